/*
 * host/observe/services.h — the one eddy_host of the `eddy` process (core/include/eddy/host.h): the services
 * every plugin, writer and probe receives, and the process-wide settings behind them.
 *
 *   log               "eddy: <component>: <message>" on stderr. ERROR and WARNING always; INFO unless
 *                     the command runs with --quiet (eddy_services_set_quiet); DEBUG only when the
 *                     environment says EDDY_LOG=debug. Under several processes INFO is said by the
 *                     first alone, the others by each, with "rank R of P: " before the component. EDDY_LOG is read
 *                     once per process (at the first registry made, or the first DEBUG message): unset
 *                     or empty shows no DEBUG, and any other value than "debug" is said once, whatever
 *                     --quiet says, and ignored: "eddy: warning: environment variable EDDY_LOG:
 *                     expected 'debug' (show the debug messages of eddy and its plugins) or unset, got
 *                     'Debug'; ignored" ("eddy: rank R of P: warning: ..." under several processes).
 *   thread_count      the thread count the host decided (eddy_services_set_threads): --threads, else
 *                     the scene's world.threads, else OpenMP's default.
 *   cancel_requested  non-zero once SIGINT, SIGTERM, SIGHUP or SIGXCPU arrived
 *                     (eddy_services_install_signal_handlers): the same flag the run loop stops on.
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

/* A DEBUG message about what every process agrees on (the step's time-step limit): "eddy: COMPONENT:
 * MESSAGE", said by the first process alone and without a rank, as INFO is; nothing unless EDDY_LOG=debug
 * (that process's). Needs no other process (EDDY_LOG may differ between them). */
void eddy_services_debug_once(const char *component, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* text as a terminal may show it, in out[size] (cut to fit, "..." marking the cut, never inside a UTF-8
 * character; NUL-terminated; returns out): each control
 * character but the line break a space. The log writes every message so; an error message printed by
 * the program goes through this, as it may quote a plugin's text, an environment variable or a file. */
const char *eddy_services_terminal_text(const char *text, char *out, size_t size);
/* Prints "eddy: KIND MESSAGE" and a line break on stderr in one write (a process's line is not split by
 * another's under mpirun), MESSAGE terminal-safe and whole at any length. KIND: "error: ", "error: rank
 * 1 of 2: ", "" (an interrupt). Every command's ending error goes through it. [any thread] */
void eddy_services_say(const char *kind, const char *message);

/* Keeps a copy of every INFO and WARNING message a component logs (eddy_host.log with a component name)
 * on the calling thread from now until eddy_services_capture_end on it, whatever --quiet and the
 * process's rank hide: DIR/run.json records what a solver derived and said while it was created
 * (tait's sound speed; create() runs on the opening thread). Each thread keeps its own, so sessions
 * opened on two threads at once (Python) do not mix their records; a line logged from another thread
 * (an OpenMP worker) is printed but not kept. [any thread] */
void eddy_services_capture_begin(void);
/* The messages kept since eddy_services_capture_begin, "component: message\n" each (the text as given,
 * not made terminal-safe), owned by the caller (free); NULL when there were none. Stops keeping.
 * [the thread that began] */
char *eddy_services_capture_end(void);

/* --quiet: hide INFO messages (WARNING and ERROR still show). */
void eddy_services_set_quiet(int quiet);
/* Whether INFO messages are hidden now: a library call that sets its own (eddy_compare_run) puts the
 * caller's back when it returns. */
int eddy_services_quiet(void);
/* This process's rank among `count` processes of one run (main.c, after MPI started; 0 of 1 until
 * then): under several, the log says INFO once (rank 0) and prefixes warnings and errors with the rank. */
void eddy_services_set_process(int rank, int count);

/*
 * The one place the host sets the thread count: n >= 1 uses n threads, n <= 0 OpenMP's default (what
 * omp_get_max_threads() said before eddy first changed it, so OMP_NUM_THREADS is honoured). Makes the
 * count OpenMP's default for every later parallel region (omp_set_num_threads) and what the host's
 * thread_count() reports. Returns the count in effect.
 */
int eddy_services_set_threads(int n);

/* The thread count in effect (>= 1). */
int eddy_services_threads(void);
/* 1 when that count was asked for (the last eddy_services_set_threads had n >= 1: --threads or the
 * scene's world.threads), 0 when it is OpenMP's default (under mpirun: what the CPU binding Open MPI set
 * allows, or OMP_NUM_THREADS); the thread check under mpirun words its message by it (decomp.c). */
int eddy_services_threads_given(void);

/* "signal 15 (SIGTERM)": how every message of eddy names a signal, the number a shell's status shows
 * (128 + it) and the name a reader knows; "signal N" alone for one without a name here. [any thread; not
 * async-signal-safe] */
const char *eddy_services_signal_text(int sig, char *out, size_t n);

/*
 * SIGINT and SIGTERM, and SIGHUP and SIGXCPU alike (unless the process started with them ignored, as
 * under nohup), honoured from the start of a command; SIGPIPE and SIGXFSZ, once a session switched to
 * the stop flag (eddy_services_defer_signals: a run, resume, compare or bench that may write), caught by
 * a handler that does nothing, so that the write that raised them fails (EPIPE, EFBIG) and is reported as
 * a failed write rather than killing the process (docs/host.md, "Signals"); a command that only prints
 * (list, describe) ends at SIGPIPE as any filter does:
 *
 *   eddy_services_exit_on_signal()   (main(), first thing) installs the handlers in "nothing written
 *                                    yet" mode: a signal ends the process at once, with the message
 *                                    "eddy: interrupted by signal 15 (SIGTERM) while loading; nothing
 *                                    was written" and exit status 128 + signal (143; 130 for SIGINT,
 *                                    129 SIGHUP, 152 SIGXCPU). A scene or checkpoint load, however
 *                                    long, is stopped this way.
 *   eddy_services_defer_signals()    (eddy_sim_open, once the session is open and before anything is
 *                                    written) switches those handlers to setting the stop flag: the
 *                                    stepping loop finishes its step, writes the checkpoint and exits
 *                                    130 (eddy_sim_step refuses the next step, for callers without a
 *                                    loop of their own). Installs nothing itself.
 *   eddy_services_install_signal_handlers()  installs the handlers (idempotent) and keeps the mode;
 *                                    without eddy_services_exit_on_signal the mode is the stop flag.
 *   eddy_services_catch_write_signals()  (main(), for a command that runs: run, resume, compare,
 *                                    validate, bench) catches SIGPIPE and SIGXFSZ from the start: a
 *                                    line a plugin prints while the session opens ("eddy: tait: sound
 *                                    speed ...") into a pipe whose reader already went killed the run
 *                                    (141) before it wrote anything, where the README promises it goes
 *                                    on to its end.
 *
 * Under several processes (eddy_services_set_process count > 1) SIGINT and SIGTERM are blocked and agreed
 * on after each step (decomp.c); a SIGHUP or SIGXCPU, which reaches one process alone, is passed on as a
 * SIGTERM to the process itself, pending for that agreement, so that every process stops after the same
 * step.
 */
void eddy_services_exit_on_signal(void);
void eddy_services_defer_signals(void);
void eddy_services_install_signal_handlers(void);
void eddy_services_catch_write_signals(void);

/*
 * When component `id` of `reg` shadows a component of the same id in a later plugin folder
 * (eddy/registry.h), prints once per process, whatever --quiet says:
 *   eddy: notice: solver 'ID' is the one in FILE, which shadows OTHER (a plugin folder earlier in the
 *   search order wins)
 * Called for every component a command uses (eddy_sim_open, `eddy describe`).
 */
void eddy_services_notice_shadow(const eddy_registry *reg, const char *id);

/*
 * A plugin callback (`callback`, e.g. "step", "write_frame") returned rc != 0 into `err`, which the
 * caller cleared before the call: makes the record hold rc, whatever err->code the plugin left (a
 * plugin may leave it 0, and returning that would read as success), and, when the plugin left no
 * message, says which callback returned which status ("step() returned EDDY_ERR_DEVICE (device error)
 * without a message"). Returns rc. The caller adds the component's name as a prefix.
 */
int eddy_services_callback_error(eddy_error *err, int rc, const char *callback);

/*
 * A component's create() must set its *out on success (plugin.h; NULL for one without state). The host
 * puts eddy_services_unset_instance() there before the call; eddy_services_check_created then turns a
 * success that left it in place into EDDY_ERR_PLUGIN "create() returned success without setting *out
 * (...)", with *instance NULL, where the next callback got whatever the variable held and the process
 * died of SIGSEGV without a word. `what` names the state ("solver", "writer", "probe"). Returns rc
 * unchanged otherwise. The caller adds the component's name as a prefix. (The core's grid.c does the
 * same for grid backends, which it creates.)
 */
void *eddy_services_unset_instance(void);
int eddy_services_check_created(int rc, void **instance, const char *what, eddy_error *err);

/*
 * The tail of an "unknown component 'ID'" message, in buf (n bytes). When plugins were refused: the
 * refusal of the file named eddy_ID.so when there is one, the usual name of ID's plugin
 * ("; PATH/eddy_ID.so was refused: REASON", the refused file's path as the registry holds it), which
 * is why the component is missing; otherwise "; some plugins were refused, see `eddy list`". When
 * none was: where plugins are searched, with EDDY_PLUGIN_PATH's value ("; a plugin's components are
 * found in the folders of EDDY_PLUGIN_PATH (it is not set) and ..."). Returns buf.
 */
const char *eddy_services_refusal_hint(const eddy_registry *reg, const char *id, char *buf, size_t n);

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
