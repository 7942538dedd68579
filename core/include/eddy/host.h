/*
 * eddy/host.h — the services a host gives to plugins (ABI 2.0).
 *
 * A plugin receives a `const eddy_host *` in its entry's init() and in every component's setup
 * struct. Through it, and never through process globals, it logs, learns how many threads it may use,
 * and sees whether the user asked the run to stop. The struct is owned by the host and stays valid
 * from init() until after deinit(); a plugin may keep the pointer.
 *
 * Growth: eddy_host begins with its size (defs.h, EDDY_HAS_MEMBER). Plugins should call the helpers
 * below rather than the members directly: they check the size and are NULL-safe.
 */
#ifndef EDDY_HOST_H
#define EDDY_HOST_H

#include "defs.h"

EDDY_BEGIN_DECLS

typedef enum eddy_log_level {
    EDDY_LOG_ERROR = 0,   /* something failed; the callback also returns an error */
    EDDY_LOG_WARNING = 1, /* a result may not be what the user expects (a parameter clamped, ...) */
    EDDY_LOG_INFO = 2,    /* one line a user may want to see once per run (a derived value) */
    EDDY_LOG_DEBUG = 3    /* for plugin authors; hidden unless the host is asked to show it */
} eddy_log_level;

typedef struct eddy_host eddy_host;

struct eddy_host {
    size_t size;          /* sizeof(eddy_host) as compiled by the host */
    const char *name;     /* e.g. "eddy"; owned by the host, valid as long as the struct */
    const char *version;  /* the host program's version, e.g. "0.2.0"; owned likewise */
    void *context;        /* the host's own; plugins never touch it */

    /* Emits one message (a sentence without trailing newline) from component `component` (its id, or
     * the plugin name from init(); may be NULL). Both strings are borrowed for the call: the host
     * copies what it keeps. May be NULL (no logging): call it through eddy_host_log. [any thread] */
    void (*log)(const eddy_host *host, eddy_log_level level, const char *component,
                const char *message);

    /* The number of threads a component may use in its parallel regions (>= 1). The host has already
     * made it OpenMP's default, so `#pragma omp parallel` needs no clause; a component that manages
     * its own threads (or a CUDA stream pool) sizes them with it. [any thread] */
    int (*thread_count)(const eddy_host *host);

    /* Non-zero once the user asked the run to stop (SIGINT, SIGTERM, Ctrl-C in Python). A long
     * callback may return EDDY_ERR_INTERRUPTED early; the host stops at the next step boundary
     * anyway. [any thread] */
    int (*cancel_requested)(const eddy_host *host);
};

/* Formats and logs a message through `host` (printf-style), whole at any length (past 1023 bytes it is
 * formatted on the heap; cut to 1023 only when that allocation fails). Does nothing when host, its log
 * member or fmt is NULL, or host->size does not cover log. `component` is passed through as given
 * (may be NULL). [any thread] */
EDDY_API void eddy_host_log(const eddy_host *host, eddy_log_level level, const char *component,
                            const char *fmt, ...) EDDY_PRINTF(4, 5);

/* host->thread_count(host) (a result below 1 reads as 1), or 1 when host is NULL or lacks it (its size
 * does not cover the member, or the member is NULL). [any thread] */
EDDY_API int eddy_host_thread_count(const eddy_host *host);

/* 1 when host->cancel_requested(host) is non-zero, else 0; 0 when host is NULL or lacks it. [any
 * thread] */
EDDY_API int eddy_host_cancel_requested(const eddy_host *host);

/* A host with no services: logs nothing (log is NULL), OpenMP's default thread count at each call
 * (omp_get_max_threads), never cancelled. For tests and tools that drive components directly. Static
 * and immutable, never NULL, never freed; [any thread], and its members too. */
EDDY_API const eddy_host *eddy_host_silent(void);

EDDY_END_DECLS

#endif /* EDDY_HOST_H */
