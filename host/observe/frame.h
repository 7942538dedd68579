/*
 * host/observe/frame.h — the snapshot of one output frame (eddy_frame, core/include/eddy/observe.h).
 *
 * At every output frame the host brings the particles' host copy up to date once
 * (eddy_world_sync_host: a GPU solver's fields are downloaded here and only here), sorts the owned
 * particles by id once, and hands that one eddy_frame to every writer, the diagnostics, the probes and
 * the renderer. Nothing else in the host reads particles between steps.
 *
 * Order: frame.order lists the storage indices of the owned particles (halo copies left out) in
 * increasing id order, so that everything computed or written from a frame depends on the particle
 * state only, not on how the grid happened to sort the arrays.
 *
 * Threads: main thread.
 */
#ifndef EDDY_HOST_FRAME_H
#define EDDY_HOST_FRAME_H

#include <eddy/eddy.h>

/*
 * Takes the frame `index` of `w` at its current time and step: eddy_world_sync_host(w), then the id
 * order of the owned particles. On success release it with eddy_frame_release() (which frees the
 * order). EDDY_ERR_OUT_OF_MEMORY, or the download's error (a device solver's), otherwise.
 */
int eddy_frame_take(eddy_world *w, uint64_t index, eddy_frame *frame, eddy_error *err);

/* A frame over a host copy the caller knows to be current (tests, tools): no sync. */
int eddy_frame_of_host_copy(const eddy_world *w, uint64_t index, eddy_frame *frame, eddy_error *err);

/* Frees the order of a frame taken above. NULL-safe; the frame may be taken again. */
void eddy_frame_release(eddy_frame *frame);

/*
 * The permutation that visits the owned particles of `p` (count - halo_count of them) in increasing
 * id order: order[k] is the storage index of the k-th smallest id. Returns a malloc()ed array of
 * max(owned, 1) entries that the caller frees, or NULL when out of memory or when p->count exceeds
 * 2^32 - 1. O(N): a byte-wise radix sort of the 64-bit ids that skips the bytes every id shares (the
 * upper four of ids below 2^32).
 */
uint32_t *eddy_order_by_id(const eddy_particles *p);

#endif /* EDDY_HOST_FRAME_H */
