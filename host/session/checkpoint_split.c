/*
 * host/session/checkpoint_split.c — the checkpoint of a run split over several processes: one piece per
 * process (its owned particles and the solver's state) and a manifest naming them, written so that a
 * failure on any process leaves the previous checkpoint whole (checkpoint.h). The `eddy` command and the
 * session API (eddy_session_checkpoint) both write it here.
 */
#include "checkpoint.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decomp.h"
#include "output.h"

/* A number that reads back as the double it is. cJSON prints 15 digits wherever they read back within an
 * epsilon of the value, not to it: a cut of 4 processes' rebalanced slabs (0.0812499374151229858, the
 * coordinate of the particle it was taken at) came back an ulp off as 0.081249937415123, and on resume
 * that particle lay outside its slab. Time and cuts must come back exactly. */
static cJSON *exact_number(double v)
{
    char text[32];
    if (!isfinite(v)) return cJSON_CreateNumber(v); /* (never for these; cJSON writes null) */
    snprintf(text, sizeof text, "%.17g", v);
    return cJSON_CreateRaw(text);
}

/* exact_number as member `key` of object `o`: 0 when out of memory. */
static int add_exact(cJSON *o, const char *key, double v)
{
    cJSON *n = exact_number(v);
    return n && cJSON_AddItemToObject(o, key, n);
}

/* The manifest of a checkpoint written as pieces (checkpoint.h): rank 0, once every piece is on disk. */
static int write_manifest(const char *dir, const eddy_world *w, const double *cuts, int n, eddy_error *err)
{
    cJSON *m = cJSON_CreateObject();
    cJSON *pieces = m ? cJSON_AddArrayToObject(m, "pieces") : NULL;
    cJSON *cut = m ? cJSON_AddArrayToObject(m, "cuts") : NULL;
    /* The rebalance count and floor go on in a resume on as many processes (decomp.h). */
    eddy_decomp_balance b = {0};
    eddy_decomp_balance_of(w, &b);
    int ok = pieces && cut && cJSON_AddNumberToObject(m, "processes", n) &&
             add_exact(m, "time", w->time) && cJSON_AddNumberToObject(m, "step", (double)w->step) &&
             cJSON_AddNumberToObject(m, "rebalances", (double)b.rebalances) &&
             cJSON_AddNumberToObject(m, "imbalance_floor", b.floor);
    for (int r = 0; ok && r < n; ++r) {
        char name[64];
        snprintf(name, sizeof name, "checkpoint.p%d.eddy", r);
        cJSON *e = cJSON_CreateString(name);
        ok = e && cJSON_AddItemToArray(pieces, e);
        if (ok && r + 1 < n) {
            cJSON *v = exact_number(cuts[r]);
            ok = v && cJSON_AddItemToArray(cut, v);
        }
    }
    char *text = ok ? cJSON_Print(m) : NULL;
    cJSON_Delete(m);
    char *path = eddy_output_join_path(dir, EDDY_CHECKPOINT_MANIFEST);
    int rc = !text || !path ? eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the checkpoint") : EDDY_OK;
    eddy_atomic_file af;
    if (!rc && !(rc = eddy_atomic_open(&af, path, err))) {
        fputs(text, af.f);
        fputc('\n', af.f);
        rc = eddy_atomic_commit(&af, err);
    }
    cJSON_free(text);
    free(path);
    return rc;
}

/* (checkpoint.h; the order of its writes and agreements is why each comes where it does) */
int eddy_checkpoint_write_split(const eddy_sim *sim, const char *dir, cJSON *s, eddy_error *err)
{
    eddy_world *w = sim->world;
    const int n = eddy_decomp_size(), r = eddy_decomp_rank();
    double *cuts = malloc(sizeof(double) * (size_t)n);
    cJSON *cut = cJSON_AddArrayToObject(s, "cuts");
    int rc = cuts && cut && cJSON_AddNumberToObject(s, "processes", n) && cJSON_AddNumberToObject(s, "piece", r) &&
                     add_exact(s, "time", w->time) && cJSON_AddNumberToObject(s, "step", (double)w->step)
                 ? EDDY_OK
                 : eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the checkpoint");
    const int k = cuts ? eddy_decomp_cuts(w, cuts, n - 1) : 0;
    for (int i = 0; !rc && i < k; ++i) {
        cJSON *v = exact_number(cuts[i]);
        if (!v || !cJSON_AddItemToArray(cut, v)) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    char final[48], next[64];
    snprintf(final, sizeof final, "checkpoint.p%d.eddy", r);
    snprintf(next, sizeof next, "%s" EDDY_CHECKPOINT_PIECE_STAGED, final);
    eddy_world *owned = NULL;
    if (!rc && !(rc = eddy_decomp_owned_world(w, &owned, err))) {
        eddy_sim piece = *sim;
        piece.world = owned;
        rc = eddy_checkpoint_write_piece(dir, final, &piece, s, err);
    }
    eddy_decomp_release_whole(w, owned);
    /* (every process learns the first failure's message) */
    const eddy_error mine = *err;
    const int wrote = rc == EDDY_OK;
    rc = eddy_decomp_agree_outcome(w, rc, &mine, "its checkpoint piece", err);
    if (rc && wrote) eddy_output_remove_in(dir, next); /* (this process's new piece, which no manifest will name) */
    /* The manifest first, naming the staged pieces' step, then the pieces put in place: a manifest that
     * cannot be written (a full disk) leaves the previous manifest and pieces whole, where the pieces
     * renamed first stood under the old manifest, which resume refused (no checkpoint left at all). */
    if (!rc && r == 0) {
        /* Tests only (tests/mpi/interrupt.sh): rank 0 takes this long to get to the manifest. */
        const char *delay = getenv("EDDY_TEST_MANIFEST_DELAY_MS");
        if (delay && atoi(delay) > 0) {
            const long ms = atoi(delay);
            const struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
            nanosleep(&ts, NULL); /* (signals are blocked under a launcher: no early wake-up) */
        }
        rc = write_manifest(dir, w, cuts, n, err);
    }
    /* (every process takes both collectives alike: whether all is well is the same answer everywhere) */
    if (!eddy_decomp_all_ok(rc == EDDY_OK)) {
        if (wrote) eddy_output_remove_in(dir, next); /* (the previous manifest names the previous pieces, kept) */
        rc = eddy_decomp_agree_error(rc, err);
    }
    if (!rc) {
        char *from = eddy_output_join_path(dir, next), *to = eddy_output_join_path(dir, final);
        if (!from || !to) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        else if (rename(from, to) != 0)
            rc = eddy_error_set(err, EDDY_ERR_IO, "cannot rename '%s' to '%s': %s", from, to, strerror(errno));
        free(from), free(to);
        /* (a process that could not put its piece in place is every process's error, its own message:
         * "another process could not" differed from it, and the processes stopped with MPI_Abort) */
        rc = eddy_decomp_agree_error(rc, err);
        /* The other kind, older now, must not be resumed from instead (resume.c prefers the manifest);
         * pieces of a run on more processes are named by no manifest any more. */
        if (!rc && r == 0) {
            eddy_output_remove_in(dir, EDDY_CHECKPOINT_FILE);
            eddy_checkpoint_remove_stale_pieces(dir, n);
        }
    }
    free(cuts);
    /* Nobody leaves before the manifest is on disk: the processes of an interrupted run stop with
     * MPI_Abort (main.c), which would kill rank 0 while it writes it if another got there first, leaving
     * the new pieces under the old manifest (refused by resume) or none. */
    return eddy_decomp_agree_error(rc, err);
}

