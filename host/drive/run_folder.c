/*
 * host/drive/run_folder.c — what `eddy run` does with an output folder that already holds a run.
 *
 * A run that did not reach its end (stopped by a signal, or ended by an error after a periodic
 * checkpoint) is refused: its checkpoint is work `eddy resume` continues, and a new run would delete it.
 * A finished run is replaced whole: its frames, frame list, rendered frames, movie and picture are
 * removed before this run writes anything, so that none of them is left among the new run's files (a
 * shorter run left the old run's later frames behind, unlisted); the tables are rewritten and the
 * checkpoint removed when the output opens (run.c). Files eddy does not write are never touched.
 *
 * Depends on: checkpoint.h (the peek at a checkpoint's clock and end), decomp.h, output.h.
 */
#include "run_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "decomp.h"
#include "output.h"

/* 1 when the run of these settings stopped before its end, which `end` then describes. */
static int stopped_early(const cJSON *settings, double time, uint64_t step, char *end, size_t n)
{
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(settings, "end_steps");
    const cJSON *until = cJSON_GetObjectItemCaseSensitive(settings, "end_time");
    if (cJSON_IsNumber(steps) && steps->valuedouble >= 0) {
        snprintf(end, n, "step %.0f", steps->valuedouble);
        return (double)step < steps->valuedouble;
    }
    if (cJSON_IsNumber(until)) {
        snprintf(end, n, "t = %.6g s", until->valuedouble);
        return time < until->valuedouble;
    }
    snprintf(end, n, "an end it does not state");
    return 1;
}

/* Removes DIR/SUB/<prefix>*, the files a run writes there, but not "*.tmp": a write in progress is
 * renamed from one, and whatever stands at that name is what the next write goes through. */
static void remove_matching(const char *dir, const char *sub, const char *prefix)
{
    char *folder = eddy_output_join_path(dir, sub);
    DIR *d = folder ? opendir(folder) : NULL;
    if (d) {
        const size_t n = strlen(prefix);
        for (struct dirent *e; (e = readdir(d));) {
            const size_t len = strlen(e->d_name);
            if (strncmp(e->d_name, prefix, n) != 0 || (len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0)) continue;
            char *path = eddy_output_join_path(folder, e->d_name);
            if (path) remove(path);
            free(path);
        }
        closedir(d);
    }
    free(folder);
}

static void remove_file(const char *dir, const char *name)
{
    char *path = eddy_output_join_path(dir, name);
    if (path) remove(path);
    free(path);
}

int run_claim_folder(run_ctx *c, eddy_error *err)
{
    const char *dir = c->sim->scene.out_dir;
    /* A checkpoint of one process, else piece 0 of one written in pieces (every piece has the clock). */
    char *path = eddy_output_join_path(dir, EDDY_CHECKPOINT_FILE);
    FILE *probe = path ? fopen(path, "rb") : NULL;
    if (!probe) {
        free(path);
        path = eddy_output_join_path(dir, "checkpoint.p0.eddy");
        probe = path ? fopen(path, "rb") : NULL;
    }
    if (!path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    int rc = EDDY_OK;
    if (probe) {
        fclose(probe);
        double time = 0.0;
        uint64_t step = 0;
        cJSON *settings = NULL;
        char end[64];
        eddy_error why;
        if (eddy_checkpoint_peek(path, &time, &step, &settings, &why)) {
            rc = eddy_error_set(err, why.code,
                                "the output folder '%s' holds a checkpoint this run would delete (%s); move it away "
                                "or choose another --out",
                                dir, why.message);
        } else if (stopped_early(settings, time, step, end, sizeof end)) {
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "the output folder '%s' holds a run stopped at step %llu (t = %.6g s) before its end "
                                "(%s); continue it with `eddy resume %s`, or choose another --out (a new run "
                                "would delete its checkpoint)",
                                dir, (unsigned long long)step, time, end, dir);
        }
        cJSON_Delete(settings);
    }
    free(path);
    /* Every process decided the same from the same files; rank 0 removes, and the others wait for it
     * before any writes a frame. */
    if (!rc && eddy_decomp_rank() == 0) {
        remove_matching(dir, "frames", "frame_");
        remove_matching(dir, "render", "frame_");
        remove_file(dir, "frames.pvd");
        remove_file(dir, "movie.mp4");
        remove_file(dir, "picture.png");
    }
    if (eddy_decomp_size() > 1 && !eddy_decomp_all_ok(!rc) && !rc)
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "another process refused the output folder '%s'", dir);
    return rc;
}
