#include "services.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "probes_builtin.h"
#include "writers_builtin.h"

#ifndef EDDY_VERSION
#define EDDY_VERSION "unknown"
#endif

static int quiet;
static int debug = -1;         /* -1: EDDY_LOG not read yet */
static int default_threads;    /* OpenMP's default before eddy changed it; 0: not read yet */
static int threads;            /* in effect; 0: not decided yet (OpenMP's default) */
static volatile sig_atomic_t stop_requested;

static int show_debug(void)
{
    if (debug < 0) {
        const char *v = getenv("EDDY_LOG");
        debug = v && strcmp(v, "debug") == 0;
    }
    return debug;
}

static void host_log(const eddy_host *host, eddy_log_level level, const char *component, const char *message)
{
    (void)host;
    if (level == EDDY_LOG_INFO && quiet) return;
    if (level == EDDY_LOG_DEBUG && !show_debug()) return;
    /* One fprintf per message, so that lines from two threads do not interleave. */
    fprintf(stderr, "eddy: %s%s%s\n", component && *component ? component : "",
            component && *component ? ": " : "", message ? message : "");
}

static int openmp_default(void)
{
    if (default_threads == 0) default_threads = omp_get_max_threads();
    return default_threads >= 1 ? default_threads : 1;
}

static int host_thread_count(const eddy_host *host)
{
    (void)host;
    return eddy_services_threads();
}

static int host_cancel_requested(const eddy_host *host)
{
    (void)host;
    return stop_requested != 0;
}

static const eddy_host the_host = {
    .size = sizeof(eddy_host),
    .name = "eddy",
    .version = EDDY_VERSION,
    .context = NULL,
    .log = host_log,
    .thread_count = host_thread_count,
    .cancel_requested = host_cancel_requested,
};

const eddy_host *eddy_services_host(void)
{
    return &the_host;
}

void eddy_services_set_quiet(int q)
{
    quiet = q != 0;
}

int eddy_services_set_threads(int n)
{
    const int def = openmp_default();
    threads = n >= 1 ? n : def;
    omp_set_num_threads(threads);
    return threads;
}

int eddy_services_threads(void)
{
    return threads >= 1 ? threads : openmp_default();
}

static void on_signal(int sig)
{
    stop_requested = sig;
}

void eddy_services_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

volatile sig_atomic_t *eddy_services_stop_flag(void)
{
    return &stop_requested;
}

int eddy_services_registry(int discover, eddy_registry **out, eddy_error *err)
{
    *out = NULL;
    eddy_registry *reg = NULL;
    int rc = eddy_registry_create(&the_host, &reg, err);
    if (rc) return rc;
    const eddy_component *const *lists[2];
    size_t counts[2];
    lists[0] = eddy_builtin_writers(&counts[0]);
    lists[1] = eddy_builtin_probes(&counts[1]);
    for (int l = 0; l < 2 && !rc; ++l)
        for (size_t i = 0; i < counts[l] && !rc; ++i)
            rc = eddy_registry_add_builtin(reg, lists[l][i], "eddy", err);
    if (rc) {
        eddy_error_prefix(err, "built-in component: ");
        eddy_registry_destroy(reg);
        return rc;
    }
    if (discover) eddy_registry_discover(reg);
    *out = reg;
    return EDDY_OK;
}
