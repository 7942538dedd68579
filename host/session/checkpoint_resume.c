/*
 * host/session/checkpoint_resume.c — the checkpoint a resume starts from: DIR/checkpoint.eddy, or the
 * pieces a manifest lists (docs/mpi.md), this process's piece or its share of them merged. One reading
 * for `eddy resume`, `eddy bench --from` and the session API (Python's Simulation.resume).
 */
#include "checkpoint_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "decomp.h"
#include "output.h"

/* A number of the manifest (docs/mpi.md), or NAN. */
static double manifest_number(const cJSON *m, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The most processes a manifest may name, and the most bytes its text may take: the manifest of a run
 * on that many processes (its piece names and cuts, as run.c prints them) is about 50 MB. */
#define MANIFEST_MAX_PROCESSES 1000000
#define MANIFEST_MAX_BYTES ((size_t)64 << 20)

/* "checkpoint manifest 'PATH' is corrupt: WHAT" (EDDY_ERR_PARSE). */
static int manifest_corrupt(eddy_error *err, const char *path, const char *fmt, ...) EDDY_PRINTF(3, 4);
static int manifest_corrupt(eddy_error *err, const char *path, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint manifest '%s' is corrupt: %s", path, what);
}

/* A member of the manifest as the message shows it: its number, or what it is instead. */
static const char *member_text(const cJSON *v, char *buf, size_t cap)
{
    if (!v) return "missing";
    if (!cJSON_IsNumber(v))
        return cJSON_IsString(v) ? "a string" : cJSON_IsBool(v) ? "a boolean" : cJSON_IsNull(v) ? "null"
               : cJSON_IsArray(v) ? "an array" : "an object";
    snprintf(buf, cap, "%.17g", v->valuedouble);
    return buf;
}

/* The manifest's text, read whole (at most MANIFEST_MAX_BYTES), parsed: *out the caller's. */
static int read_manifest(FILE *f, const char *path, cJSON **out, eddy_error *err)
{
    *out = NULL;
    /* (the file is regular, checkpoint_fopen_regular: its size says early what the reading would find) */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (uintmax_t)st.st_size > MANIFEST_MAX_BYTES) {
        fclose(f);
        return manifest_corrupt(err, path, "larger than %zu MiB, more than the manifest of %d processes takes",
                                MANIFEST_MAX_BYTES >> 20, MANIFEST_MAX_PROCESSES);
    }
    unsigned char *bytes = NULL;
    size_t len = 0;
    const int got = checkpoint_read_stream(f, MANIFEST_MAX_BYTES, &bytes, &len), error = errno;
    fclose(f);
    char *text = (char *)bytes;
    int rc = EDDY_OK;
    if (got == EDDY_ERR_OUT_OF_MEMORY)
        rc = eddy_error_set(err, got, "out of memory for the checkpoint manifest '%s'", path);
    else if (got)
        rc = eddy_error_set(err, EDDY_ERR_IO, "cannot read checkpoint manifest '%s': %s", path, strerror(error));
    else if (len > MANIFEST_MAX_BYTES)
        rc = manifest_corrupt(err, path, "larger than %zu MiB, more than the manifest of %d processes takes",
                              MANIFEST_MAX_BYTES >> 20, MANIFEST_MAX_PROCESSES);
    else if (len == 0) rc = manifest_corrupt(err, path, "the file is empty");
    if (!rc) {
        text[len] = 0;
        const char *end = NULL;
        const size_t nul = strlen(text);
        cJSON *m = nul == len ? cJSON_ParseWithLengthOpts(text, len + 1, &end, 1) : NULL;
        if (!m) {
            const size_t at = nul < len ? nul : end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
            size_t line = 1, column = 1;
            for (size_t i = 0; i < at; ++i) {
                line += text[i] == '\n';
                column = text[i] == '\n' ? 1 : column + 1;
            }
            rc = manifest_corrupt(err, path, "not valid JSON at line %zu, column %zu%s", line, column,
                                  nul < len ? " (a zero byte)" : "");
        } else if (!cJSON_IsObject(m)) {
            cJSON_Delete(m);
            rc = manifest_corrupt(err, path, "not a JSON object");
        } else {
            *out = m;
        }
    }
    free(text);
    return rc;
}

/*
 * What the reading takes from the manifest `m` (at path), every member as run.c writes it: *n the
 * process count ("processes": whole, 2 to MANIFEST_MAX_PROCESSES), "step" (whole, at least 0), *cut_out
 * (malloc'ed, n - 1 numbers) the cuts, finite and in order, "rebalances" (whole, at least 0) and
 * "imbalance_floor" (finite, at least 0), both optional (manifests before rebalancing lack them: 0).
 * "pieces" and "time" are not read: the pieces are checkpoint.pK.eddy, K < n, checked against the
 * manifest's step and piece 0.
 */
static int check_manifest(const cJSON *m, const char *path, int *n, double **cut_out, long long *rebalances,
                          double *floor_out, eddy_error *err)
{
    *n = 0;
    *cut_out = NULL;
    char a[64], b[64];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "processes");
    const double procs = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(procs >= 2 && procs <= MANIFEST_MAX_PROCESSES && procs == floor(procs)))
        return manifest_corrupt(err, path, "\"processes\" is %s, expected a whole number from 2 to %d",
                                member_text(v, a, sizeof a), MANIFEST_MAX_PROCESSES);
    const int count = (int)procs;
    v = cJSON_GetObjectItemCaseSensitive(m, "step");
    /* (a step count is a uint64: below 2^64) */
    if (!(cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 18446744073709551616.0 &&
          v->valuedouble == floor(v->valuedouble)))
        return manifest_corrupt(err, path, "\"step\" is %s, expected a whole number from 0 to below 2^64",
                                member_text(v, a, sizeof a));
    v = cJSON_GetObjectItemCaseSensitive(m, "rebalances");
    if (v && !(cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e18 &&
               v->valuedouble == floor(v->valuedouble)))
        return manifest_corrupt(err, path, "\"rebalances\" is %s, expected a whole number from 0 to below 1e18",
                                member_text(v, a, sizeof a));
    *rebalances = v ? (long long)v->valuedouble : 0;
    v = cJSON_GetObjectItemCaseSensitive(m, "imbalance_floor");
    if (v && !(cJSON_IsNumber(v) && v->valuedouble >= 0 && isfinite(v->valuedouble)))
        return manifest_corrupt(err, path, "\"imbalance_floor\" is %s, expected a finite number of at least 0",
                                member_text(v, a, sizeof a));
    *floor_out = v ? v->valuedouble : 0.0;
    const cJSON *cuts = cJSON_GetObjectItemCaseSensitive(m, "cuts");
    if (!cJSON_IsArray(cuts))
        return manifest_corrupt(err, path, "\"cuts\" is %s, expected an array of %d numbers (one fewer than "
                                "\"processes\")", member_text(cuts, a, sizeof a), count - 1);
    double *cut = malloc(sizeof(double) * (size_t)count);
    if (!cut) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    int i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cuts) {
        if (i == count - 1) {
            ++i;
            break;
        }
        if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble) || (i > 0 && c->valuedouble < cut[i - 1])) {
            const int bad_order = cJSON_IsNumber(c) && isfinite(c->valuedouble);
            snprintf(b, sizeof b, "%.17g", i > 0 ? cut[i - 1] : 0.0);
            const int rc = bad_order ? manifest_corrupt(err, path, "cut %d (%s) is below cut %d (%s): the cuts must not "
                                                        "decrease", i, member_text(c, a, sizeof a), i - 1, b)
                                     : manifest_corrupt(err, path, "cut %d is %s, expected a finite number", i,
                                                        member_text(c, a, sizeof a));
            free(cut);
            return rc;
        }
        cut[i++] = c->valuedouble;
    }
    if (i != count - 1) {
        const int k = cJSON_GetArraySize(cuts);
        free(cut);
        return manifest_corrupt(err, path, "\"cuts\" has %d entr%s, expected %d for %d processes", k,
                                k == 1 ? "y" : "ies", count - 1, count);
    }
    *n = count;
    *cut_out = cut;
    return EDDY_OK;
}

/* The first setting in which two pieces differ, or NULL when they are pieces of one run: everything but
 * "piece" (each its own) and "render" (the colour range is settled on rank 0) must be equal: the scene
 * document, solver and version, grid, writers, end, clock and cuts. */
static const char *setting_that_differs(const cJSON *a, const cJSON *b)
{
    const cJSON *const sides[2][2] = {{a, b}, {b, a}};
    for (int k = 0; k < 2; ++k) {
        const cJSON *item;
        cJSON_ArrayForEach(item, sides[k][0]) {
            if (!item->string || !strcmp(item->string, "piece") || !strcmp(item->string, "render")) continue;
            const cJSON *other = cJSON_GetObjectItemCaseSensitive(sides[k][1], item->string);
            if (!other || !cJSON_Compare(item, other, 1)) return item->string;
        }
    }
    return NULL;
}

/* The manifest's cuts (n - 1 of them) against those piece 0's settings `st` hold, written together
 * with %.17g so that equal means the same bits: cuts edited into the manifest would become the slabs of
 * a resume on n processes, and the pieces would be blamed for particles outside them. A piece without
 * "cuts" is not compared. */
static int check_cuts_against_piece(const cJSON *st, const double *cut, int n, const char *path, const char *mpath,
                                    eddy_error *err)
{
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(st, "cuts"), *c;
    if (!cJSON_IsArray(own)) return EDDY_OK;
    int i = 0;
    char a[64];
    cJSON_ArrayForEach(c, own) {
        if (i == n - 1 || !cJSON_IsNumber(c) || c->valuedouble != cut[i]) break;
        ++i;
    }
    if (i == n - 1 && cJSON_GetArraySize(own) == n - 1) return EDDY_OK;
    if (i < n - 1 && c)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "checkpoint manifest '%s' does not match its piece '%s': cut %d is %.17g in the manifest, "
                              "%s in the piece", mpath, path, i, cut[i], member_text(c, a, sizeof a));
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "checkpoint manifest '%s' does not match its piece '%s': %d cuts in the manifest, %d in the "
                          "piece", mpath, path, n - 1, cJSON_GetArraySize(own));
}

/* The settings `st` of piece k (at path) against the manifest `m` (at mpath): a piece of another
 * checkpoint (a run stopped while its pieces were being written) is refused by name. */
static int check_against_manifest(const cJSON *st, int k, int n, const cJSON *m, const char *path, const char *mpath,
                                  eddy_error *err)
{
    const double step = manifest_number(st, "step"), piece = manifest_number(st, "piece");
    if (piece == k && manifest_number(st, "processes") == n && step == manifest_number(m, "step")) return EDDY_OK;
    /* (the piece's own members as they are: a number, or "missing", "a string", ...) */
    char p[64], c[64], t[64];
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "checkpoint piece '%s' does not match the manifest '%s' (its \"piece\" %s, \"processes\" "
                          "%s, \"step\" %s; expected piece %d of %d at step %.17g)", path, mpath,
                          member_text(cJSON_GetObjectItemCaseSensitive(st, "piece"), p, sizeof p),
                          member_text(cJSON_GetObjectItemCaseSensitive(st, "processes"), c, sizeof c),
                          member_text(cJSON_GetObjectItemCaseSensitive(st, "step"), t, sizeof t), k, n,
                          manifest_number(m, "step"));
}

/*
 * A split run puts its checkpoint in place in two moves (checkpoint_split.c): the manifest naming the
 * new step, then each process renames its staged piece (NAME.next) over its old one. A run killed
 * between the two (SIGKILL, a node lost) left the new manifest over old pieces, or over none at a run's
 * first checkpoint, and resume refused both checkpoints. Where piece k is missing or of another step and
 * the staged piece beside it is the one the manifest names, the staged piece is read instead: nothing is
 * renamed, so a reader without the folder's lock (bench --from, the session API) cannot take a live run's
 * staged piece from under it; the resumed run's next checkpoint replaces both. Returns 1 and the name
 * to read (NAME.next) in `staged`, said on stderr; 0 when there is none to read.
 */
static int staged_piece(const char *dir, const char *name, int k, int n, const cJSON *m, const char *mpath,
                        char *staged, size_t len)
{
    snprintf(staged, len, "%s" EDDY_CHECKPOINT_PIECE_STAGED, name);
    char *path = eddy_output_join_path(dir, staged);
    double time;
    uint64_t step;
    cJSON *st = NULL;
    eddy_error ignored;
    const int ok = path && !eddy_checkpoint_peek(path, &time, &step, &st, &ignored) &&
                   !check_against_manifest(st, k, n, m, path, mpath, &ignored);
    /* (piece 0 is looked at twice, for its head and read whole: said once) */
    static char said[80];
    if (ok && strcmp(said, staged) != 0)
        fprintf(stderr, "eddy: warning: checkpoint piece '%s/%s' is missing or older than its manifest '%s': reading "
                        "its staged successor '%s', which the manifest names (the run was stopped while it put its "
                        "checkpoint in place)\n", dir, name, mpath, path);
    if (ok) snprintf(said, sizeof said, "%s", staged);
    cJSON_Delete(st);
    free(path);
    return ok;
}

/* Piece k of the checkpoint the manifest `m` (at mpath) describes: checked against the manifest first,
 * then, so that a piece of another run at the same step (a copied file) is refused too, by its
 * settings against piece 0's (`ref` at ref_path, itself checked against the manifest already). */
static int read_one_piece(const char *dir, const char *mpath, const cJSON *m, int k, int n, const cJSON *ref,
                          const char *ref_path, eddy_checkpoint **out, eddy_error *err)
{
    char name[64], staged[80];
    snprintf(name, sizeof name, "checkpoint.p%d.eddy", k);
    int rc = eddy_checkpoint_read_named(dir, name, out, err);
    /* (the piece missing, or of another step: a move left half done, staged_piece) */
    if (rc == EDDY_ERR_NOT_FOUND || (!rc && check_against_manifest(eddy_checkpoint_settings(*out), k, n, m,
                                                                   eddy_checkpoint_path(*out), mpath, err))) {
        if (staged_piece(dir, name, k, n, m, mpath, staged, sizeof staged)) {
            eddy_checkpoint_free(*out);
            *out = NULL;
            rc = eddy_checkpoint_read_named(dir, staged, out, err);
        } else if (!rc) {
            rc = EDDY_ERR_INVALID_ARGUMENT; /* (err holds check_against_manifest's message) */
        }
    }
    if (rc) {
        eddy_checkpoint_free(*out);
        *out = NULL;
        return rc;
    }
    const cJSON *st = eddy_checkpoint_settings(*out);
    const char *differs = NULL;
    if (!(rc = check_against_manifest(st, k, n, m, eddy_checkpoint_path(*out), mpath, err)) && k != 0 &&
        (differs = setting_that_differs(st, ref)))
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                            "checkpoint pieces '%s' and '%s' are not of one run: their settings differ in \"%s\"",
                            ref_path, eddy_checkpoint_path(*out), differs);
    if (rc) {
        eddy_checkpoint_free(*out);
        *out = NULL;
    }
    return rc;
}

/* The folder a resume reads: one that is not there, or a file given in its place (the checkpoint
 * itself, a scene), is said as such, not as "cannot read 'F/checkpoint.eddy': Not a directory". */
static int check_run_folder(const char *dir, eddy_error *err)
{
    struct stat st;
    if (!*dir)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "the run folder is an empty path: give the folder of a run (its --out, or the "
                              "scene's output.dir)");
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT)
            return eddy_error_set(err, EDDY_ERR_NOT_FOUND,
                                  "no checkpoint '%s/%s': there is no folder '%s' (give the folder of a run: its "
                                  "--out, or the scene's output.dir)", dir, EDDY_CHECKPOINT_FILE, dir);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot read the run folder '%s': %s", dir, strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) return EDDY_OK;
    /* The checkpoint's own path, or one of its pieces or manifest: the folder that holds it. */
    const char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : dir;
    if (strcmp(base, EDDY_CHECKPOINT_FILE) == 0 || strcmp(base, EDDY_CHECKPOINT_MANIFEST) == 0 ||
        (strncmp(base, "checkpoint.p", 12) == 0 && strstr(base, ".eddy"))) {
        const int n = slash ? (slash == dir ? 1 : (int)(slash - dir)) : 1;
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "'%s' is a checkpoint file, not the folder of a run: give the folder that holds it "
                              "('%.*s')", dir, n, slash ? dir : ".");
    }
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "'%s' is not a folder: give the folder of a run (its --out, or the scene's output.dir), "
                          "which holds its %s", dir, EDDY_CHECKPOINT_FILE);
}

/* This process's share of a checkpoint of another process count, read and waiting for the collective
 * merge (eddy_checkpoint_merge_share), which comes after every process read its own. */
typedef struct share {
    eddy_checkpoint **pieces;
    int held, mine, total;
    char *manifest;
} share;

static void share_free(share *sh)
{
    for (int j = 0; sh->pieces && j < sh->held; ++j) eddy_checkpoint_free(sh->pieces[j]);
    free(sh->pieces);
    free(sh->manifest);
    memset(sh, 0, sizeof *sh);
}

/*
 * What this process reads by itself, without a collective: the checkpoint (*out), or its pieces, merged
 * where it holds all of them, or left in `sh` for the merge of a share. *count: the checkpoint's piece
 * count (1 without a manifest, 0 when the manifest could not be read), which every process must agree on.
 */
static int read_local(const char *dir, eddy_checkpoint **out, share *sh, int *count, eddy_error *err)
{
    const int size = eddy_decomp_size(), r = eddy_decomp_rank();
    *count = 0;
    int rc = check_run_folder(dir, err);
    if (rc) return rc;
    char *path = eddy_output_join_path(dir, EDDY_CHECKPOINT_MANIFEST);
    if (!path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    FILE *f;
    const int opened = checkpoint_fopen_regular(path, &f);
    if (opened < 0 && errno == ENOENT) {
        free(path);
        *count = 1;
        return eddy_checkpoint_read(dir, out, err);
    }
    if (opened) {
        rc = opened > 0 ? eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint manifest '%s' is not a regular file", path)
                        : eddy_error_set(err, EDDY_ERR_IO, "cannot read checkpoint manifest '%s': %s", path,
                                         strerror(errno));
        free(path);
        return rc;
    }
    cJSON *m = NULL;
    double *cut = NULL, least = 0.0;
    long long done = 0;
    int n = 0;
    if (!(rc = read_manifest(f, path, &m, err))) rc = check_manifest(m, path, &n, &cut, &done, &least, err);
    *count = n;
    /* Piece 0's settings (its head only), which every other piece must share. */
    cJSON *ref = NULL;
    char ref_name[80] = "checkpoint.p0.eddy";
    char *ref_path = eddy_output_join_path(dir, ref_name);
    if (!rc && !ref_path) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    if (!rc) {
        double t;
        uint64_t step;
        rc = eddy_checkpoint_peek(ref_path, &t, &step, &ref, err);
        /* (missing, or of another step: a move left half done, staged_piece; every process reads piece
         * 0's head, so each finds the staged one alike, and says it once per process) */
        char staged[80];
        if ((rc == EDDY_ERR_IO || (!rc && check_against_manifest(ref, 0, n, m, ref_path, path, err))) &&
            staged_piece(dir, "checkpoint.p0.eddy", 0, n, m, path, staged, sizeof staged)) {
            cJSON_Delete(ref);
            ref = NULL;
            free(ref_path);
            snprintf(ref_name, sizeof ref_name, "%s", staged);
            ref_path = eddy_output_join_path(dir, ref_name);
            rc = ref_path ? eddy_checkpoint_peek(ref_path, &t, &step, &ref, err)
                          : eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        }
        /* Its head alone tells only that it is "not a readable eddy checkpoint": the whole reading says
         * what is wrong (its format version, byte order, length, checksum or settings). */
        if (rc == EDDY_ERR_PARSE) {
            eddy_checkpoint *whole = NULL;
            eddy_error why;
            eddy_error_clear(&why);
            const int whole_rc = eddy_checkpoint_read_named(dir, ref_name, &whole, &why);
            if (whole_rc) {
                rc = whole_rc;
                if (err) *err = why;
            }
            eddy_checkpoint_free(whole);
        }
        /* Every process judges the others' pieces by piece 0: it must be the manifest's first. */
        if (!rc) rc = check_against_manifest(ref, 0, n, m, ref_path, path, err);
        if (!rc) rc = check_cuts_against_piece(ref, cut, n, ref_path, path, err);
    }
    if (!rc && n == size) {
        /* The run's cuts, rebalance count and floor (decomp.h; the count and floor are 0 in manifests
         * before rebalancing). */
        if (eddy_decomp_resume_cuts(cut, n - 1, done, least))
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        if (!rc) rc = read_one_piece(dir, path, m, r, n, ref, ref_path, out, err);
    } else if (!rc && size == 1) {
        eddy_checkpoint **pieces = calloc((size_t)n, sizeof *pieces);
        if (!pieces) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        for (int k = 0; !rc && k < n; ++k) rc = read_one_piece(dir, path, m, k, n, ref, ref_path, &pieces[k], err);
        if (!rc) rc = eddy_checkpoint_merge(pieces, n, path, out, err);
        for (int k = 0; pieces && k < n; ++k) eddy_checkpoint_free(pieces[k]);
        free(pieces);
    } else if (!rc) {
        /* Another count on several processes: this process reads its share only, piece k on process
         * k mod size (a process without one reads piece r mod n for the header and keeps no particle);
         * the attach cuts the slabs together and the first exchange migrates (decomp.h). */
        sh->mine = r < n ? (n - 1 - r) / size + 1 : 0;
        sh->held = sh->mine ? sh->mine : 1;
        sh->total = n;
        sh->pieces = calloc((size_t)sh->held, sizeof *sh->pieces);
        if (!sh->pieces) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        for (int j = 0; !rc && j < sh->held; ++j)
            rc = read_one_piece(dir, path, m, sh->mine ? r + j * size : r % n, n, ref, ref_path, &sh->pieces[j],
                                err);
        sh->manifest = path;
        path = NULL;
    }
    cJSON_Delete(ref);
    free(ref_path);
    free(cut);
    cJSON_Delete(m);
    free(path);
    return rc;
}

/*
 * Several processes: whether every process read what it needs, and the same checkpoint (its piece
 * count), agreed before any collective. A piece, manifest or folder missing on one node failed on that
 * process alone, which then stopped the others with MPI_Abort after a wait; now every process returns
 * the lowest failing process's error, recorded as agreed (said once).
 */
static int agree_on_reading(int rc, int count, const char *dir, eddy_error *err)
{
    const int size = eddy_decomp_size();
    if (size <= 1 || (rc = eddy_decomp_agree_error(rc, err))) return rc;
    const int other = eddy_decomp_first_differing((uint64_t)count);
    if (other < 0) return EDDY_OK;
    eddy_decomp_set_agreed(EDDY_ERR_INVALID_ARGUMENT);
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "process %d of %d reads another checkpoint in '%s' than process 0 (another number of "
                          "pieces, or none: a run folder that differs between nodes?)",
                          other, size, dir);
}

int eddy_checkpoint_read_for_resume(const char *dir, eddy_checkpoint **out, eddy_error *err)
{
    *out = NULL;
    share sh;
    memset(&sh, 0, sizeof sh);
    int count = 0;
    int rc = read_local(dir, out, &sh, &count, err);
    rc = agree_on_reading(rc, count, dir, err);
    if (!rc && sh.pieces) {
        rc = eddy_checkpoint_merge_share(sh.pieces, sh.held, sh.mine > 0, dir, sh.total, sh.manifest, out, err);
        if (!rc) eddy_decomp_resume_share(1);
    }
    share_free(&sh);
    if (rc) {
        eddy_checkpoint_free(*out);
        *out = NULL;
        eddy_decomp_resume_cuts(NULL, 0, 0, 0.0); /* (armed for this reading alone) */
    }
    return rc;
}
