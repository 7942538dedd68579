#include "frame.h"

#include <stdlib.h>
#include <string.h>

uint32_t *eddy_order_by_id(const eddy_particles *p)
{
    const size_t count = p->count;
    if (count > UINT32_MAX) return NULL;
    uint32_t *a = malloc(sizeof *a * (count ? count : 1));
    uint32_t *b = malloc(sizeof *b * (count ? count : 1));
    if (!a || !b) {
        free(a);
        free(b);
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; ++i)
        if (!eddy_particle_is_halo(p, i)) a[n++] = (uint32_t)i;
    /* LSD radix sort, one byte per pass: O(N) where a comparison sort would dominate an output frame
     * of a million particles. Each pass is a stable counting sort, which is what makes LSD correct. */
    for (int shift = 0; shift < 64; shift += 8) {
        size_t start[257] = {0};
        for (size_t k = 0; k < n; ++k) start[((p->id[a[k]] >> shift) & 255u) + 1]++;
        int skip = 0;
        for (int k = 1; k <= 256; ++k)
            if (start[k] == n) skip = 1; /* every id shares this byte: the pass would be a copy */
        if (skip) continue;
        for (int k = 1; k <= 256; ++k) start[k] += start[k - 1];
        for (size_t k = 0; k < n; ++k) b[start[(p->id[a[k]] >> shift) & 255u]++] = a[k];
        uint32_t *t = a;
        a = b;
        b = t;
    }
    free(b);
    return a;
}

int eddy_frame_of_host_copy(const eddy_world *w, uint64_t index, eddy_frame *frame, eddy_error *err)
{
    memset(frame, 0, sizeof *frame);
    const eddy_particles *p = &w->particles;
    uint32_t *order = eddy_order_by_id(p);
    if (!order)
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "frame %llu: out of memory for the id order of %zu particles",
                              (unsigned long long)index, p->count);
    frame->size = sizeof *frame;
    frame->world = w;
    frame->index = index;
    frame->time = w->time;
    frame->step = w->step;
    frame->count = p->count - p->halo_count;
    frame->order = order;
    return EDDY_OK;
}

int eddy_frame_take(eddy_world *w, uint64_t index, eddy_frame *frame, eddy_error *err)
{
    memset(frame, 0, sizeof *frame);
    int rc = eddy_world_sync_host(w, err);
    if (rc) return eddy_error_prefix(err, "frame %llu (t = %.6g s): ", (unsigned long long)index, w->time);
    return eddy_frame_of_host_copy(w, index, frame, err);
}

void eddy_frame_release(eddy_frame *frame)
{
    if (!frame) return;
    free((void *)frame->order);
    frame->order = NULL;
    frame->count = 0;
}
