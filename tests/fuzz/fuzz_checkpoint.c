/* The checkpoint target: a checkpoint file with its length and checksum corrected (fuzz.h). */
#include "fuzz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "run.h"
#include "scene.h"

/* host/session/checkpoint.c's layout: magic (8), format (u32), byte-order mark (u32), payload length (u64),
 * payload, FNV-1a 64 of everything before the checksum (u64). */
enum { HEADER_SIZE = 24, CHECKSUM_SIZE = 8 };

/* The particle count of the embedded scene, 0 when it cannot be read (the resume then refuses the
 * checkpoint on its own, with the same message); and whether the checkpoint's own end can be used
 * without a step being taken (see eddy_fuzz_resume). */
eddy_fuzz_checkpoint_view eddy_fuzz_checkpoint_look(const unsigned char *p, size_t size)
{
    eddy_fuzz_checkpoint_view v = {0, 0};
    if (size < HEADER_SIZE + 4 + CHECKSUM_SIZE) return v;
    uint32_t len;
    memcpy(&len, p + HEADER_SIZE, sizeof len);
    if (len > size - HEADER_SIZE - 4 - CHECKSUM_SIZE) return v;
    cJSON *settings = cJSON_ParseWithLength((const char *)p + HEADER_SIZE + 4, len);
    const cJSON *end_steps = cJSON_GetObjectItemCaseSensitive(settings, "end_steps");
    const cJSON *end_time = cJSON_GetObjectItemCaseSensitive(settings, "end_time");
    double time = NAN;
    if (len + 8 <= size - HEADER_SIZE - 4 - CHECKSUM_SIZE) memcpy(&time, p + HEADER_SIZE + 4 + len, sizeof time);
    if (cJSON_IsNumber(end_steps) && cJSON_IsNumber(end_time) &&
        !(fabs(end_steps->valuedouble) < 9.2e18) && time >= end_time->valuedouble)
        v.cast_end_steps = 1;
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(settings, "scene"));
    cJSON_Delete(settings);
    if (!text) return v;
    eddy_scene scene;
    eddy_error err;
    eddy_error_clear(&err);
    if (eddy_scene_parse(text, "fuzz.json", NULL, 0, &scene, &err) == EDDY_OK) {
        v.particles = eddy_scene_count_particles(&scene);
        eddy_scene_free(&scene);
    }
    cJSON_free(text);
    return v;
}

void eddy_fuzz_checkpoint_fix(unsigned char *p, size_t size)
{
    if (size < HEADER_SIZE + CHECKSUM_SIZE) return;
    const uint64_t payload = size - HEADER_SIZE - CHECKSUM_SIZE;
    memcpy(p + 16, &payload, sizeof payload);
    const uint64_t sum = eddy_checkpoint_checksum(p, size - CHECKSUM_SIZE);
    memcpy(p + size - CHECKSUM_SIZE, &sum, sizeof sum);
}

void eddy_fuzz_write_file(const char *dir, const char *name, const void *p, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        abort();
    }
    if (fwrite(p, 1, size, f) != size || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

void eddy_fuzz_resume(const char *target, const char *dir, eddy_fuzz_checkpoint_view view, int pieces)
{
    eddy_error err;
    eddy_error_clear(&err);
    if (view.particles <= EDDY_FUZZ_MAX_RESUME_PARTICLES) {
        eddy_run_options opt = eddy_run_default_options();
        opt.resume_dir = dir;
        /* --steps 0: everything up to the first step, which "already at its end" then refuses. The
         * checkpoint's own end (end_steps, end_time) is read only without --steps / --until, and
         * could start a long run: it is used only when end_steps is a number no long long holds (the
         * cast run.c makes is undefined; issue 20) and the clock already is at end_time, so that
         * stopping by time, what such a cast gave in practice, takes no step either. */
        opt.steps = view.cast_end_steps ? -1 : 0;
        opt.threads = 1;
        opt.quiet = 1;
        opt.picture = 0;
        opt.registry = eddy_fuzz_registry();
        eddy_fuzz_report(target, eddy_resume(&opt, &err), &err, "resumed");
    } else {
        /* Too large to resume here: the reader's checks still run (with pieces, every piece read and
         * merged, as a resume on one process reads them). */
        eddy_checkpoint *ck = NULL;
        const int rc = pieces ? eddy_checkpoint_read_for_resume(dir, &ck, &err) : eddy_checkpoint_read(dir, &ck, &err);
        eddy_fuzz_report(target, rc, &err, "read, too many particles to resume here");
        eddy_checkpoint_free(ck);
    }
}

int eddy_fuzz_checkpoint(const uint8_t *data, size_t size)
{
    eddy_fuzz_init();
    unsigned char *p = malloc(size ? size : 1);
    if (!p) return 0;
    if (size) memcpy(p, data, size);
    eddy_fuzz_checkpoint_fix(p, size);
    const char *dir = eddy_fuzz_scratch_dir();
    eddy_fuzz_write_file(dir, EDDY_CHECKPOINT_FILE, p, size);
    eddy_fuzz_resume("checkpoint", dir, eddy_fuzz_checkpoint_look(p, size), 0);
    free(p);
    return 0;
}
