/*
 * The manifest target: a checkpoint written as pieces on several processes, read on one and as one of
 * several (fuzz.h).
 *
 * The reading of a launch on several processes (host/session/checkpoint_resume.c, read_local) branches
 * on eddy_decomp_size() and eddy_decomp_rank(), which are 1 and 0 without mpirun: one process reads
 * every piece and merges them, and the manifest's cuts are never parsed. So the file is compiled here a
 * second time, its two calls replaced by this target's process count and rank (and its one external
 * function renamed, so it does not clash with the host library's). Everything it calls is the host
 * library's own (the piece reader, the merge, eddy_decomp_resume_cuts), on one real process: no MPI
 * call is made.
 */
#define eddy_decomp_size eddy_fuzz_manifest_size
#define eddy_decomp_rank eddy_fuzz_manifest_rank
#define eddy_checkpoint_read_for_resume eddy_fuzz_manifest_read_for_resume
#include "../../host/session/checkpoint_resume.c"
#undef eddy_decomp_size
#undef eddy_decomp_rank
#undef eddy_checkpoint_read_for_resume

#include "fuzz.h"

static int sim_size = 1, sim_rank = 0;

int eddy_fuzz_manifest_size(void)
{
    return sim_size;
}

int eddy_fuzz_manifest_rank(void)
{
    return sim_rank;
}

static const char MAGIC[] = "EDDYCKPT";
enum { MAGIC_SIZE = sizeof MAGIC - 1 };

/* The next piece's start at or after `from`, or size. */
static size_t next_magic(const unsigned char *p, size_t size, size_t from)
{
    for (size_t i = from; i + MAGIC_SIZE <= size; ++i)
        if (p[i] == 'E' && memcmp(p + i, MAGIC, MAGIC_SIZE) == 0) return i;
    return size;
}

static void piece_name(char *name, size_t cap, int k)
{
    snprintf(name, cap, "checkpoint.p%d.eddy", k);
}

/* The files an input leaves in the scratch folder (an earlier input's pieces must not be read as this
 * one's: a manifest naming more pieces than the input holds finds them missing). */
static void remove_files(const char *dir)
{
    char path[1024], name[64];
    snprintf(path, sizeof path, "%s/%s", dir, EDDY_CHECKPOINT_MANIFEST);
    remove(path);
    for (int k = 0; k < EDDY_FUZZ_MAX_PIECES; ++k) {
        piece_name(name, sizeof name, k);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        remove(path);
    }
}

/* The manifest's process count (2 to MANIFEST_MAX_PROCESSES, whole), 0 otherwise: how many processes
 * the target plays; the reading itself checks the manifest (check_manifest). */
static int manifest_processes(const unsigned char *text, size_t len)
{
    char *s = malloc(len + 1);
    if (!s) return 0;
    memcpy(s, text, len);
    s[len] = 0;
    cJSON *m = cJSON_Parse(s);
    free(s);
    const double procs = manifest_number(m, "processes");
    cJSON_Delete(m);
    return procs >= 2 && procs <= MANIFEST_MAX_PROCESSES && procs == floor(procs) ? (int)procs : 0;
}

/* What process `rank` of `size` reads by itself, and the merge of its share (collective under a
 * launcher, one process here: it compares nothing with the others). */
static void read_as(const char *dir, int size, int rank)
{
    sim_size = size;
    sim_rank = rank;
    eddy_checkpoint *ck = NULL;
    share sh;
    memset(&sh, 0, sizeof sh);
    int count = 0;
    eddy_error err;
    eddy_error_clear(&err);
    int rc = read_local(dir, &ck, &sh, &count, &err);
    if (!rc && sh.pieces)
        rc = eddy_checkpoint_merge_share(sh.pieces, sh.held, sh.mine > 0, dir, sh.total, sh.manifest, &ck, &err);
    share_free(&sh);
    eddy_checkpoint_free(ck);
    /* (armed by a reading on as many processes for the decomposition that follows it: none here) */
    eddy_decomp_resume_cuts(NULL, 0, 0, 0.0);
    sim_size = 1;
    sim_rank = 0;
    char what[64];
    snprintf(what, sizeof what, "read as process %d of %d", rank, size);
    eddy_fuzz_report("manifest", rc, &err, what);
}

int eddy_fuzz_manifest(const uint8_t *data, size_t size)
{
    eddy_fuzz_init();
    const char *dir = eddy_fuzz_scratch_dir();
    remove_files(dir);
    unsigned char *p = malloc(size ? size : 1);
    if (!p) return 0;
    if (size) memcpy(p, data, size);
    size_t at = next_magic(p, size, 0);
    eddy_fuzz_write_file(dir, EDDY_CHECKPOINT_MANIFEST, p, at);
    const int n = manifest_processes(p, at);
    eddy_fuzz_checkpoint_view view = {0, 0};
    for (int k = 0; at < size && k < EDDY_FUZZ_MAX_PIECES; ++k) {
        const size_t end = k + 1 < EDDY_FUZZ_MAX_PIECES ? next_magic(p, size, at + MAGIC_SIZE) : size;
        eddy_fuzz_checkpoint_fix(p + at, end - at);
        char name[64];
        piece_name(name, sizeof name, k);
        eddy_fuzz_write_file(dir, name, p + at, end - at);
        /* The merged checkpoint is piece 0 with every piece's particles: its settings are piece 0's. */
        if (k == 0) view = eddy_fuzz_checkpoint_look(p + at, end - at);
        at = end;
    }
    free(p);
    eddy_fuzz_resume("manifest", dir, view, 1);
    if (n) {
        read_as(dir, n, 0);
        read_as(dir, n, n - 1);
        read_as(dir, n + 1, n);
        if (n >= 3) read_as(dir, 2, 0);
    }
    remove_files(dir);
    return 0;
}
