/*
 * eddy/state.h — helpers for a solver's save()/load() (plugin.h): the state a solver keeps between
 * steps outside particle fields, as a small tagged record of floats.
 *
 * Record layout: a NUL-terminated tag (the solver's id and a layout version, e.g. "sph_mueller/1"),
 * a uint32 count, then `count` floats, native byte order (the checkpoint file that carries it records
 * the byte order and a checksum). The tag lets load() refuse state written by another solver or by an
 * older layout of the same solver with a message instead of misreading it.
 *
 * Threads: pure functions; call from any thread.
 */
#ifndef EDDY_STATE_H
#define EDDY_STATE_H

#include "defs.h"
#include "error.h"

EDDY_BEGIN_DECLS

/* Packs `count` floats under `tag` (a NUL-terminated string, copied) into a buffer allocated with
 * malloc() (*data, *size), as save() must return it; the caller (the host, for save()) owns it and
 * frees it with free(). `values` is borrowed for the call (may be NULL when count is 0). The record is
 * never empty (the tag's bytes at least). count is stored as a uint32: a count above UINT32_MAX is
 * refused (EDDY_ERR_INVALID_ARGUMENT), EDDY_ERR_OUT_OF_MEMORY when allocation fails; on either error
 * *data and *size are untouched. A NULL tag, data or size, or NULL values with count > 0, is
 * EDDY_ERR_INVALID_ARGUMENT naming the argument. */
EDDY_API int eddy_state_save_floats(const char *tag, const eddy_real *values, size_t count, void **data,
                                    size_t *size, eddy_error *err);

/* Unpacks a record written by eddy_state_save_floats() with the same tag and count into values.
 * EDDY_ERR_INVALID_ARGUMENT, naming both tags or both sizes, when the record does not match (no NUL in
 * its `size` bytes, another tag, another length or count), and naming the value when one is not finite
 * (a solver's state between steps always is: a damaged or hand-made checkpoint); `values` is left
 * unchanged then. `data` is read with memcpy (it need not be aligned) and only during the call. A NULL
 * tag, NULL data with size > 0, or NULL values with count > 0 is EDDY_ERR_INVALID_ARGUMENT naming the
 * argument; NULL data with size 0 is refused as a record without tag. */
EDDY_API int eddy_state_load_floats(const char *tag, eddy_real *values, size_t count, const void *data,
                                    size_t size, eddy_error *err);

/* ABI 2.1. The tag of a record (its NUL-terminated first bytes), or NULL when `size` bytes hold no
 * NUL (or data is NULL): lets load() accept an older layout of its own record (e.g. "tait/1" beside
 * "tait/2"). The pointer points into `data` and is valid as long as it. */
EDDY_API const char *eddy_state_record_tag(const void *data, size_t size);

EDDY_END_DECLS

#endif /* EDDY_STATE_H */
