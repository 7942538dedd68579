#include "same_scene.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decomp.h"
#include "fnv1a.h"
#include "scene.h"

/* FNV-1a of the file's bytes (a file larger than a scene may be, which the reader refuses alike
 * everywhere, by its size alone). */
static uint64_t contents_hash(const char *path)
{
    uint64_t h = EDDY_FNV1A_OFFSET;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return h;
    if (st.st_size > EDDY_SCENE_FILE_MAX) return eddy_fnv1a(h, &st.st_size, sizeof st.st_size);
    FILE *f = fopen(path, "rb");
    if (!f) return h;
    unsigned char buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) h = eddy_fnv1a(h, buf, n);
    fclose(f);
    return h;
}

int eddy_drive_same_scene(const char *path, eddy_error *err)
{
    const int size = eddy_decomp_size();
    if (size <= 1 || !path) return EDDY_OK;
    const uint64_t rank = (uint64_t)eddy_decomp_rank();
    const int readable = access(path, R_OK) == 0;
    /* The lowest process that cannot read it and the lowest that can: the same two numbers everywhere. */
    const uint64_t cannot = eddy_decomp_min_u64(readable ? UINT64_MAX : rank);
    const uint64_t can = eddy_decomp_min_u64(readable ? rank : UINT64_MAX);
    if (cannot != UINT64_MAX && can != UINT64_MAX) {
        eddy_decomp_set_agreed(EDDY_ERR_NOT_FOUND);
        return eddy_error_set(err, EDDY_ERR_NOT_FOUND,
                              "the scene file '%s' cannot be read on process %d of %d (missing on its node?), while "
                              "process %d reads it: every process of a run must read the same scene file",
                              path, (int)cannot, size, (int)can);
    }
    if (cannot != UINT64_MAX) return EDDY_OK;
    const int other = eddy_decomp_first_differing(contents_hash(path));
    if (other < 0) return EDDY_OK;
    eddy_decomp_set_agreed(EDDY_ERR_INVALID_ARGUMENT);
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "process %d of %d reads another scene file under '%s' than process 0 (the contents "
                          "differ: a copy that differs between nodes?): every process of a run must read the same "
                          "scene file",
                          other, size, path);
}
