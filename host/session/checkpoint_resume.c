/*
 * host/session/checkpoint_resume.c — the checkpoint a resume starts from: DIR/checkpoint.eddy, or the
 * pieces a manifest lists (docs/mpi.md), this process's piece or its share of them merged. One reading
 * for `eddy resume`, `eddy bench --from` and the session API (Python's Simulation.resume).
 */
#include "checkpoint_internal.h"

#include <errno.h>
#include <math.h>
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

/* The settings `st` of piece k (at path) against the manifest `m` (at mpath): a piece of another
 * checkpoint (a run stopped while its pieces were being written) is refused by name. */
static int check_against_manifest(const cJSON *st, int k, int n, const cJSON *m, const char *path, const char *mpath,
                                  eddy_error *err)
{
    const double step = manifest_number(st, "step"), piece = manifest_number(st, "piece");
    if (piece == k && manifest_number(st, "processes") == n && step == manifest_number(m, "step")) return EDDY_OK;
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "checkpoint piece '%s' does not match the manifest '%s' (piece %g of %g at step %.0f; "
                          "expected piece %d of %d at step %.0f)", path, mpath, piece, manifest_number(st, "processes"),
                          step, k, n, manifest_number(m, "step"));
}

/* Piece k of the checkpoint the manifest `m` (at mpath) describes: checked against the manifest first,
 * then, so that a piece of another run at the same step (a copied file) is refused too, by its
 * settings against piece 0's (`ref` at ref_path, itself checked against the manifest already). */
static int read_one_piece(const char *dir, const char *mpath, const cJSON *m, int k, int n, const cJSON *ref,
                          const char *ref_path, eddy_checkpoint **out, eddy_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "checkpoint.p%d.eddy", k);
    int rc = eddy_checkpoint_read_named(dir, name, out, err);
    if (rc) return rc;
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
    char *text = calloc(1, 1 << 20);
    const size_t len = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    cJSON *m = len ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *cuts = cJSON_GetObjectItemCaseSensitive(m, "cuts");
    const double procs = manifest_number(m, "processes");
    const int n = procs >= 2 && procs <= 1e6 && procs == floor(procs) ? (int)procs : 0;
    if (!m || !cJSON_IsArray(cuts) || !n || cJSON_GetArraySize(cuts) != n - 1)
        rc = eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint manifest '%s' is corrupt", path);
    *count = n;
    /* Piece 0's settings (its head only), which every other piece must share. */
    cJSON *ref = NULL;
    char *ref_path = eddy_output_join_path(dir, "checkpoint.p0.eddy");
    if (!rc && !ref_path) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    if (!rc) {
        double t;
        uint64_t step;
        rc = eddy_checkpoint_peek(ref_path, &t, &step, &ref, err);
        /* Every process judges the others' pieces by piece 0: it must be the manifest's first. */
        if (!rc) rc = check_against_manifest(ref, 0, n, m, ref_path, path, err);
    }
    if (!rc && n == size) {
        double *cut = malloc(sizeof(double) * (size_t)n);
        if (!cut) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        for (int i = 0; !rc && i < n - 1; ++i) {
            const cJSON *v = cJSON_GetArrayItem(cuts, i);
            if (!cJSON_IsNumber(v)) rc = eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint manifest '%s' is corrupt", path);
            else cut[i] = v->valuedouble;
        }
        /* The run's rebalance count and floor (decomp.h), absent from manifests before rebalancing. */
        const double k = manifest_number(m, "rebalances"), least = manifest_number(m, "imbalance_floor");
        const long long done = k >= 0 && k < 1e18 ? (long long)k : 0;
        if (!rc && eddy_decomp_resume_cuts(cut, n - 1, done, least >= 0 ? least : 0.0))
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        free(cut);
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
