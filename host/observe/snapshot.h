/*
 * host/observe/snapshot.h — what the built-in writers (writers_builtin.h) read of one output frame: the
 * particle arrays, the id order and the field table, either borrowed from the world (the synchronous
 * path) or copied into staging buffers the snapshot owns (overlapped output, output.h), so that a
 * writer thread can format and write the files while the main thread steps the world on.
 *
 * A copy holds each array over the storage count (halo copies included, as the world stores them)
 * plus the frame's order, i.e. plain memcpy's on the main thread: applying the order (the scattered
 * reads) is left to the writer thread. The arrays are those the built-in writers read: id, material,
 * position, velocity, density, pressure and every registered field (not mass).
 *
 * Staging memory comes from eddy_staging_alloc / eddy_staging_free, the one seam where a GPU solver's
 * frames would land in pinned (page-locked) host memory, so that its download of the frame is a DMA
 * straight into the buffer the writer thread reads (see docs/scenes.md, "Overlapped output").
 *
 * Threads: a copied snapshot refers to nothing the main thread mutates (not the world, not its field
 * table): the writer thread may read it while the world steps on.
 */
#ifndef EDDY_HOST_SNAPSHOT_H
#define EDDY_HOST_SNAPSHOT_H

#include <eddy/eddy.h>

/* One registered field (beyond the built-in ones): its name and its component arrays. */
typedef struct eddy_snapshot_field {
    char name[EDDY_FIELD_NAME_MAX];
    int components;
    const float *data[EDDY_FIELD_MAX_COMPONENTS];
} eddy_snapshot_field;

typedef struct eddy_snapshot {
    uint64_t index;            /* the frame's */
    double time;
    uint64_t step;
    size_t count;              /* particles in the frame (owned) */
    const uint32_t *order;     /* [count]: the storage index of the k-th smallest id */
    float simulation_scale;
    /* With particles 0 (a copy for files that list no particle, e.g. a .pvtp) the arrays are NULL. */
    const uint64_t *id;
    const uint32_t *material;
    const float *x, *y, *z, *vx, *vy, *vz, *density, *pressure;
    int field_count;           /* registered fields only, in registration order */
    eddy_snapshot_field fields[EDDY_MAX_FIELDS];
    /* A copy's staging block (eddy_staging_alloc) and its capacity in bytes; NULL for a view. Kept
     * across copies into the same snapshot, so that a run's frames reuse one block. */
    void *block;
    size_t block_bytes;
} eddy_snapshot;

/* A view of `frame` that borrows the world's arrays (valid while the frame is). No allocation. */
void eddy_snapshot_view(const eddy_frame *frame, eddy_snapshot *s);

/*
 * Copies `frame` into `s`, reusing its staging block when it is large enough (zero-initialize `s`
 * before its first copy). particles 0: the field table and the frame's clock only. EDDY_ERR_OUT_OF_MEMORY
 * "frame N: out of memory for the output staging buffers (B bytes)" otherwise, `s` then holding no frame.
 */
int eddy_snapshot_copy(const eddy_frame *frame, int particles, eddy_snapshot *s, eddy_error *err);

/* Frees what a copy owns. NULL-safe; `s` may be copied into again. */
void eddy_snapshot_release(eddy_snapshot *s);

/*
 * The staging allocator: `bytes` of host memory, 64-byte aligned, for frames on their way to the files.
 * Today plain memory. A GPU solver would want page-locked memory here (cudaHostAlloc), which the ABI
 * does not offer yet: it needs a host callback to allocate and free pinned memory (or a solver call
 * that downloads a field into a buffer the host passes); see the notes in docs/scenes.md.
 */
void *eddy_staging_alloc(size_t bytes);
void eddy_staging_free(void *p);

#endif /* EDDY_HOST_SNAPSHOT_H */
