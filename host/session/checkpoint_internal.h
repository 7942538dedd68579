/*
 * host/session/checkpoint_internal.h — what the checkpoint reader (checkpoint.c) hands the restore
 * (checkpoint_restore.c): the file in memory and a bounds-checked cursor over its payload.
 */
#ifndef EDDY_HOST_CHECKPOINT_INTERNAL_H
#define EDDY_HOST_CHECKPOINT_INTERNAL_H

#include <stdio.h>

#include "checkpoint.h"

struct eddy_checkpoint {
    char *path;
    unsigned char *data; /* the whole file */
    size_t size;
    uint32_t format;     /* EDDY_CHECKPOINT_FORMAT_V1 .. EDDY_CHECKPOINT_FORMAT */
    cJSON *settings;     /* parsed from the payload */
    /* where the binary sections of the payload start and end */
    size_t state_begin, state_end;
};

/* A read position in [at, end) of ck->data. */
typedef struct cursor {
    const eddy_checkpoint *ck;
    size_t at, end;
} cursor;

/* Opens `path` for reading if it is a regular file, without ever blocking in open() (a FIFO of that
 * name would wait for a writer for good): 0 and *out, -1 (errno says why the open failed) or 1 (not a
 * regular file: a folder, a FIFO, a device). */
int checkpoint_fopen_regular(const char *path, FILE **out);

/* Reads f to its end, or to max + 1 bytes (so that a longer file shows as *size > max), into a buffer
 * from malloc (*data, the caller's) with a byte to spare after the data (room for a NUL); f stays open.
 * EDDY_OK, EDDY_ERR_OUT_OF_MEMORY, or EDDY_ERR_IO with errno as the read left it; *data untouched then. */
int checkpoint_read_stream(FILE *f, size_t max, unsigned char **data, size_t *size);

/* "checkpoint 'F' is corrupt: WHAT does not fit" (EDDY_ERR_PARSE). */
int checkpoint_corrupt(const cursor *c, const char *what, eddy_error *err);
/* Copies n bytes to dst (NULL: skips them) and advances, or refuses as corrupt. */
int checkpoint_take(cursor *c, void *dst, size_t n, const char *what, eddy_error *err);
int checkpoint_take_u32(cursor *c, uint32_t *v, const char *what, eddy_error *err);
int checkpoint_take_u64(cursor *c, uint64_t *v, const char *what, eddy_error *err);

/* The built-in fields hold what a scene can make and a run keeps: finite positions, velocities,
 * densities and pressures, a mass > 0 (a scene's particle_mass range), z and its velocity zero in 2D;
 * the solvers' own fields are theirs to interpret. 0 when p's host copy holds that; else 1 and `fault`
 * says which particle and value do not ("particle I (id N): position.x is nan, expected a finite
 * number"). The restore refuses such a checkpoint, so the writer refuses to write one too. */
int checkpoint_particle_fault(const eddy_particles *p, char *fault, size_t n);

#endif /* EDDY_HOST_CHECKPOINT_INTERNAL_H */
