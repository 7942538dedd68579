/*
 * host/services.h — the one eddy_host of the `eddy` process (core/include/eddy/host.h): the services
 * every plugin, writer and probe receives, and the process-wide settings behind them.
 *
 *   log               "eddy: <component>: <message>" on stderr. ERROR and WARNING always; INFO unless
 *                     the command runs with --quiet (eddy_services_set_quiet); DEBUG only when the
 *                     environment says EDDY_LOG=debug.
 *   thread_count      the thread count the host decided (eddy_services_set_threads): --threads, else
 *                     the scene's world.threads, else OpenMP's default.
 *   cancel_requested  non-zero once SIGINT or SIGTERM arrived (eddy_services_install_signal_handlers):
 *                     the same flag the run loop stops on.
 *
 * The registry of a command is made here too (eddy_services_registry), with the host's built-in
 * writers ("vtk", "csv") and probes ("front", "height", "pressure", "density") registered the way a
 * plugin's components are.
 *
 * Threads: the log, thread_count and cancel_requested callbacks may be called from any thread; the
 * setters only from the main thread, between runs.
 */
#ifndef EDDY_HOST_SERVICES_H
#define EDDY_HOST_SERVICES_H

#include <signal.h>

#include <eddy/eddy.h>

/* The process's host services; static, never NULL. */
const eddy_host *eddy_services_host(void);

/* --quiet: hide INFO messages (WARNING and ERROR still show). */
void eddy_services_set_quiet(int quiet);

/*
 * The one place the host sets the thread count: n >= 1 uses n threads, n <= 0 OpenMP's default (what
 * omp_get_max_threads() said before eddy first changed it, so OMP_NUM_THREADS is honoured). Makes the
 * count OpenMP's default for every later parallel region (omp_set_num_threads) and what the host's
 * thread_count() reports. Returns the count in effect.
 */
int eddy_services_set_threads(int n);

/* The thread count in effect (>= 1). */
int eddy_services_threads(void);

/* Installs the SIGINT / SIGTERM handlers that set the stop flag (idempotent). */
void eddy_services_install_signal_handlers(void);

/* The stop flag: 0, or the number of the signal that asked the run to stop. Run loops poll it at
 * every step boundary (eddy_sim_plan.stop); plugins see it through cancel_requested(). */
volatile sig_atomic_t *eddy_services_stop_flag(void);

/*
 * Creates a registry for this host (eddy_registry_create with eddy_services_host()), registers the
 * host's built-in writers and probes, and with `discover` non-zero scans the standard plugin folders
 * (eddy_registry_discover). *out is owned by the caller: eddy_registry_destroy().
 */
int eddy_services_registry(int discover, eddy_registry **out, eddy_error *err);

#endif /* EDDY_HOST_SERVICES_H */
