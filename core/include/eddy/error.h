/*
 * eddy/error.h — status codes and the error record.
 *
 * Every fallible function returns 0 (EDDY_OK) or a negative eddy_status, and fills a caller-provided
 * eddy_error with a message that names what is wrong (file, key, plugin, particle or step). The error
 * pointer may be NULL when the caller does not want the message. Nothing in libeddy or a plugin prints,
 * exits or aborts: the host decides what to do with an error.
 */
#ifndef EDDY_ERROR_H
#define EDDY_ERROR_H

#include "defs.h"

EDDY_BEGIN_DECLS

typedef enum eddy_status {
    EDDY_OK = 0,
    EDDY_ERR_INVALID_ARGUMENT = -1, /* a value or combination of values is not allowed */
    EDDY_ERR_OUT_OF_MEMORY = -2,
    EDDY_ERR_IO = -3,           /* a file could not be read or written */
    EDDY_ERR_PARSE = -4,        /* a scene or other text input is malformed */
    EDDY_ERR_PLUGIN = -5,       /* a plugin was refused or misbehaved */
    EDDY_ERR_DOMAIN = -6,       /* a particle left the bounded simulation domain */
    EDDY_ERR_UNSTABLE = -7,     /* NaN or runaway velocity: the simulation exploded */
    EDDY_ERR_NOT_FOUND = -8,    /* an unknown component, field, key or file */
    EDDY_ERR_UNSUPPORTED = -9,  /* valid request this component cannot serve */
    EDDY_ERR_DEVICE = -10,      /* an accelerator is missing or failed */
    EDDY_ERR_INTERRUPTED = -11  /* stopped on request (signal) */
} eddy_status;

#define EDDY_ERROR_MESSAGE_MAX 1024

/* Caller-owned error record. `code` is the eddy_status of the failure, `message` a NUL-terminated
 * English sentence without trailing newline, cut to EDDY_ERROR_MESSAGE_MAX - 1 bytes. */
typedef struct eddy_error {
    int code;
    char message[EDDY_ERROR_MESSAGE_MAX];
} eddy_error;

/* Static text for a status code ("invalid argument", ...; "unknown error" for any other value). Never
 * NULL. [any thread] */
EDDY_API const char *eddy_strerror(int code);

/* Fills `err` (if not NULL) with `code` and the formatted message (cut to EDDY_ERROR_MESSAGE_MAX - 1
 * bytes); returns `code`, so that `return eddy_error_set(err, EDDY_ERR_IO, "cannot open '%s'", path);`
 * reads naturally. The arguments must not point into err->message (use eddy_error_prefix to extend
 * it). [any thread], as long as no two threads write one record at once. */
EDDY_API int eddy_error_set(eddy_error *err, int code, const char *fmt, ...) EDDY_PRINTF(3, 4);

/* Prepends context ("scene.json: " ...) to an existing message, keeping the code. Returns err->code
 * (or EDDY_OK when err is NULL: NULL-safe). The prefix is formatted first, so its arguments may point
 * into err->message. When the two do not fit in EDDY_ERROR_MESSAGE_MAX - 1 bytes, the whole prefix
 * (itself cut to that length) is kept and the old message's end is cut. [any thread], as long as no
 * two threads write one record at once. */
EDDY_API int eddy_error_prefix(eddy_error *err, const char *fmt, ...) EDDY_PRINTF(2, 3);

/* Resets the record to EDDY_OK and an empty message. NULL-safe. [any thread], as long as no two
 * threads write one record at once. */
EDDY_API void eddy_error_clear(eddy_error *err);

EDDY_END_DECLS

#endif /* EDDY_ERROR_H */
