/*
 * The host services helpers (host.h): size-checked, NULL-safe calls into an eddy_host, and the silent
 * host for tests and tools.
 */
#include <eddy/host.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <omp.h>

void eddy_host_log(const eddy_host *host, eddy_log_level level, const char *component, const char *fmt,
                   ...)
{
    if (!host || !EDDY_HAS_MEMBER(host, eddy_host, log) || !host->log || !fmt) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof buf) {
        host->log(host, level, component, buf);
        return;
    }
    /* A long message (a list of ids, a path): format it again into a buffer of its length. */
    char *big = malloc((size_t)n + 1);
    if (!big) {
        host->log(host, level, component, buf); /* truncated rather than lost */
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    host->log(host, level, component, big);
    free(big);
}

int eddy_host_thread_count(const eddy_host *host)
{
    if (!host || !EDDY_HAS_MEMBER(host, eddy_host, thread_count) || !host->thread_count) return 1;
    int n = host->thread_count(host);
    return n >= 1 ? n : 1;
}

int eddy_host_cancel_requested(const eddy_host *host)
{
    if (!host || !EDDY_HAS_MEMBER(host, eddy_host, cancel_requested) || !host->cancel_requested) return 0;
    return host->cancel_requested(host) != 0;
}

static int silent_thread_count(const eddy_host *host)
{
    (void)host;
    return omp_get_max_threads();
}

static int silent_cancel_requested(const eddy_host *host)
{
    (void)host;
    return 0;
}

static const eddy_host silent_host = {
    .size = sizeof(eddy_host),
    .name = "eddy (silent)",
    .version = "",
    .context = NULL,
    .log = NULL,
    .thread_count = silent_thread_count,
    .cancel_requested = silent_cancel_requested,
};

const eddy_host *eddy_host_silent(void)
{
    return &silent_host;
}
