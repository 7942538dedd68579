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

/* "checkpoint 'F' is corrupt: WHAT does not fit" (EDDY_ERR_PARSE). */
int checkpoint_corrupt(const cursor *c, const char *what, eddy_error *err);
/* Copies n bytes to dst (NULL: skips them) and advances, or refuses as corrupt. */
int checkpoint_take(cursor *c, void *dst, size_t n, const char *what, eddy_error *err);
int checkpoint_take_u32(cursor *c, uint32_t *v, const char *what, eddy_error *err);
int checkpoint_take_u64(cursor *c, uint64_t *v, const char *what, eddy_error *err);

#endif /* EDDY_HOST_CHECKPOINT_INTERNAL_H */
