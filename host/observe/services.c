#include "services.h"

#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "probes_builtin.h"
#include "scene.h"
#include "writers_builtin.h"

#ifndef EDDY_VERSION
#define EDDY_VERSION "unknown"
#endif

static atomic_int quiet; /* read by the log from any thread, set between runs */
static int process_rank, process_count = 1; /* eddy_services_set_process */
static int debug = -1;         /* -1: EDDY_LOG not read yet */
static int default_threads;    /* OpenMP's default before eddy changed it; 0: not read yet */
static int threads;            /* in effect; 0: not decided yet (OpenMP's default) */
static int threads_given;      /* the count in effect was asked for (n >= 1), not OpenMP's default */
static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t exit_on_signal; /* 1 until eddy_services_defer_signals: nothing written yet */

static void host_log(const eddy_host *host, eddy_log_level level, const char *component, const char *message);

/* EDDY_LOG is read once per process. A value other than "debug" was ignored without a word, so a typo
 * ("Debug", "verbose") hid the messages asked for: said once, whatever --quiet says (the user asked for
 * more output, not less). Empty is unset, as for the other variables. Each process reads its own, and no
 * collective depends on it (docs/mpi.md): a warning of the log, said by each process with its rank, as
 * a bad EDDY_PLUGIN_PATH entry is (registry.c). */
static int show_debug(void)
{
    if (debug < 0) {
        const char *v = getenv("EDDY_LOG");
        debug = v && strcmp(v, "debug") == 0;
        if (v && *v && !debug) {
            char message[256], shown[EDDY_SCENE_SHOWN_MAX];
            snprintf(message, sizeof message, "warning: environment variable EDDY_LOG: expected 'debug' (show the "
                     "debug messages of eddy and its plugins) or unset, got '%s'; ignored",
                     eddy_scene_token_text(v, strlen(v), shown, sizeof shown));
            host_log(NULL, EDDY_LOG_WARNING, NULL, message);
        }
    }
    return debug;
}

/* A message may quote what no one checked: an environment variable's value, a plugin's text, a file's
 * bytes read by a third-party plugin. A terminal obeys an escape sequence in any of them, so every
 * control character but the line break is shown as a space, as the scene's messages show its text. */
const char *eddy_services_terminal_text(const char *text, char *out, size_t size)
{
    if (size == 0) return out;
    size_t n = strlen(text);
    const int cut = n >= size;
    if (cut) {
        n = size > 4 ? size - 4 : size - 1; /* room for "..." */
        /* Whole UTF-8 characters: back to the lead byte of a sequence (at most 3 continuation bytes);
         * text that is not UTF-8 is cut where it is. */
        size_t lead = n;
        while (lead > 0 && n - lead < 3 && ((unsigned char)text[lead] & 0xC0) == 0x80) --lead;
        if (((unsigned char)text[lead] & 0xC0) == 0xC0) n = lead;
    }
    size_t k = 0; /* a C1 control's two bytes become one space: out is never longer than text */
    for (size_t at = 0; at < n;) {
        size_t line = at;
        while (line < n && text[line] != '\n') ++line;
        k += eddy_scene_terminal_safe(out + k, text + at, line - at);
        at = line;
        if (at < n) out[k++] = '\n', ++at;
    }
    if (cut && size > 4) memcpy(out + k, "...", 3), k += 3;
    out[k] = '\0';
    return out;
}

/* "eddy: " + who + component + ": " + message + newline, terminal-safe, in one write: stderr is
 * unbuffered, and pieces written one by one interleaved with another process's lines under mpirun
 * (flockfile orders only this process's threads). A line too long for the stack is built on the heap,
 * and cut to the stack's when that allocation fails. */
static void write_line(const char *who, const char *component, const char *message)
{
    char comp[128] = "";
    if (component && *component) {
        eddy_services_terminal_text(component, comp, sizeof comp - 2);
        strcat(comp, ": ");
    }
    const size_t head = strlen("eddy: ") + strlen(who) + strlen(comp), room = head + strlen(message) + 2;
    char stack[2048];
    char *line = room <= sizeof stack ? stack : malloc(room);
    size_t size = room;
    if (!line) line = stack, size = sizeof stack;
    snprintf(line, size, "eddy: %s%s", who, comp);
    size_t k = strlen(line);
    if (k + 1 < size) {
        eddy_services_terminal_text(message, line + k, size - k - 1);
        k += strlen(line + k);
    }
    line[k++] = '\n';
    fwrite(line, 1, k, stderr);
    if (line != stack) free(line);
}

void eddy_services_say(const char *kind, const char *message)
{
    write_line(kind ? kind : "", NULL, message ? message : "");
}

/* What components said between eddy_services_capture_begin and _end (services.h), kept per thread: the
 * Python package opens a Simulation on one thread while compare() opens its solvers on another, and a
 * process-wide record put each one's lines into the other's run.json. */
static _Thread_local int capturing;
static _Thread_local char *captured;
static _Thread_local size_t captured_len;

static void capture(eddy_log_level level, const char *component, const char *message)
{
    if (!capturing || !component || !*component || (level != EDDY_LOG_INFO && level != EDDY_LOG_WARNING)) return;
    const size_t add = strlen(component) + strlen(message) + 3;
    char *grown = realloc(captured, captured_len + add + 1);
    /* (a line lost to a failed allocation costs the record a note, not the run) */
    if (grown) {
        captured = grown;
        captured_len += (size_t)snprintf(captured + captured_len, add + 1, "%s: %s\n", component, message);
    }
}

void eddy_services_capture_begin(void)
{
    free(captured);
    captured = NULL;
    captured_len = 0;
    capturing = 1;
}

char *eddy_services_capture_end(void)
{
    char *lines = captured;
    captured = NULL;
    captured_len = 0;
    capturing = 0;
    return lines;
}

static void host_log(const eddy_host *host, eddy_log_level level, const char *component, const char *message)
{
    (void)host;
    capture(level, component, message ? message : "");
    if (level == EDDY_LOG_INFO && quiet) return;
    if (level == EDDY_LOG_DEBUG && !show_debug()) return;
    /* Several processes: a derived value (INFO) is the same on every one (their states are the
     * same bits), so only the first says it; a warning or an error may be one process's own and is
     * said by each, with its rank. */
    const int size = process_count, rank = process_rank;
    if (level == EDDY_LOG_INFO && rank > 0) return;
    char who[48] = "";
    if (size > 1 && level != EDDY_LOG_INFO) snprintf(who, sizeof who, "rank %d of %d: ", rank, size);
    write_line(who, component, message ? message : "");
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

void eddy_services_debug_once(const char *component, const char *format, ...)
{
    if (!show_debug() || process_rank > 0) return;
    char message[EDDY_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    write_line("", component, message);
}

void eddy_services_set_quiet(int q)
{
    quiet = q != 0;
}

int eddy_services_quiet(void)
{
    return quiet;
}

void eddy_services_set_process(int rank, int count)
{
    process_rank = rank;
    process_count = count >= 1 ? count : 1;
}

int eddy_services_set_threads(int n)
{
    const int def = openmp_default();
    threads = n >= 1 ? n : def;
    threads_given = n >= 1;
    omp_set_num_threads(threads);
    return threads;
}

int eddy_services_threads_given(void)
{
    return threads_given;
}

int eddy_services_threads(void)
{
    return threads >= 1 ? threads : openmp_default();
}

const char *eddy_services_signal_text(int sig, char *out, size_t n)
{
    static const struct {
        int sig;
        const char *name;
    } NAMES[] = {{SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
                 {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"},
                 {SIGSEGV, "SIGSEGV"}, {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
                 {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}};
    for (size_t k = 0; k < sizeof NAMES / sizeof *NAMES; ++k)
        if (NAMES[k].sig == sig) {
            snprintf(out, n, "signal %d (%s)", sig, NAMES[k].name);
            return out;
        }
    snprintf(out, n, "signal %d", sig);
    return out;
}

/* write(2) of a constant string: the only output a signal handler may make. */
#define SAY(text) (void)!write(STDERR_FILENO, text, sizeof text - 1)

static void on_signal(int sig)
{
    /* Several processes agree on SIGINT/SIGTERM, which decomp.c keeps blocked and pending until every
     * process has looked after a step: a hang-up or a CPU limit reaches one process alone, at its own
     * moment, and one process stopping (or ending while loading) alone would leave the others waiting
     * in a collective. It is passed on as a SIGTERM to this process (kill is async-signal-safe;
     * process-directed, it stays pending for the agreement whatever thread runs this handler). */
    if (process_count > 1 && sig != SIGINT && sig != SIGTERM) {
        (void)kill(getpid(), SIGTERM);
        return;
    }
    if (exit_on_signal) {
        /* Nothing has been written: there is nothing to save, so end now rather than after a load that
         * may take long. Async-signal-safe only: write and _exit. */
        switch (sig) {
        case SIGINT: SAY("eddy: interrupted by signal 2 (SIGINT) while loading; nothing was written\n"); break;
        case SIGHUP: SAY("eddy: interrupted by signal 1 (SIGHUP) while loading; nothing was written\n"); break;
        case SIGXCPU: SAY("eddy: interrupted by signal 24 (SIGXCPU) while loading; nothing was written\n"); break;
        default: SAY("eddy: interrupted by signal 15 (SIGTERM) while loading; nothing was written\n"); break;
        }
        _exit(128 + sig);
    }
    stop_requested = sig;
}

/* SIGPIPE (a pipe whose reader went: `eddy run ... 2>&1 | head -1`) and SIGXFSZ (a file past `ulimit -f`)
 * killed the process by default mid-run, without a checkpoint, a frame's .tmp left behind. Caught, the
 * write that caused them fails with EPIPE or EFBIG instead, and the path that reports a failed write says
 * so ("File too large"). A handler that does nothing rather than SIG_IGN: an ignored signal stays ignored
 * across exec, a caught one is reset there, so the programs eddy starts (ffmpeg) get the defaults. */
static void on_write_signal(int sig)
{
    (void)sig;
}

static int handlers_installed; /* the program asked for signal handling (install_handlers) */

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* SIGHUP (the terminal or ssh session went away) and SIGXCPU (a CPU-time limit's warning, which
     * batch systems send before the kill) stop a run as SIGTERM does: the step, a frame, a checkpoint. */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* ... unless the process was started with them ignored: `nohup eddy run ...` asks that a hang-up
     * change nothing. */
    static const int stops[] = {SIGHUP, SIGXCPU};
    for (size_t k = 0; k < sizeof stops / sizeof *stops; ++k) {
        struct sigaction old;
        if (sigaction(stops[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(stops[k], &sa, NULL);
    }
    handlers_installed = 1;
}

/* From the point a command writes a run's files: a command that only prints (`eddy describe tait | head
 * -1`) ends at SIGPIPE silently as any filter does, where a caught one turned into "cannot write to
 * standard output" and status 1. */
static void catch_write_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_write_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPIPE, &sa, NULL);
    sigaction(SIGXFSZ, &sa, NULL);
}

void eddy_services_exit_on_signal(void)
{
    exit_on_signal = 1;
    install_handlers();
}

void eddy_services_install_signal_handlers(void)
{
    install_handlers();
}

void eddy_services_catch_write_signals(void)
{
    catch_write_signals();
}

void eddy_services_defer_signals(void)
{
    /* Only a change of mode: a process that never asked for signal handling (a test, Python) gets none. */
    exit_on_signal = 0;
    if (handlers_installed) catch_write_signals();
}

/* Ids announced by eddy_services_notice_shadow in this process: one notice each. */
#define NOTICED_MAX 64
static char noticed[NOTICED_MAX][64];
static size_t noticed_count;

void eddy_services_notice_shadow(const eddy_registry *reg, const char *id)
{
    if (!reg || !id) return;
    for (size_t k = 0; k < noticed_count; ++k)
        if (strcmp(noticed[k], id) == 0) return;
    /* Not subject to --quiet: that the component used is not the installed one must never go unsaid. */
    int any = 0;
    for (size_t i = 0; i < eddy_registry_shadow_count(reg); ++i) {
        const eddy_registry_shadow *s = eddy_registry_shadow_at(reg, i);
        if (strcmp(s->id, id) != 0) continue;
        fprintf(stderr, "eddy: notice: %s '%s' is the one in %s, which shadows %s (a plugin folder earlier in "
                "the search order wins)\n", eddy_interface_name(s->interface_id), id, s->file, s->shadowed);
        any = 1;
    }
    if (any && noticed_count < NOTICED_MAX) snprintf(noticed[noticed_count++], sizeof noticed[0], "%s", id);
}

volatile sig_atomic_t *eddy_services_stop_flag(void)
{
    return &stop_requested;
}

int eddy_services_registry(int discover, eddy_registry **out, eddy_error *err)
{
    *out = NULL;
    eddy_registry *reg = NULL;
    (void)show_debug(); /* (a bad EDDY_LOG is said by every command that loads components, not at its first
                         * debug message, which may never come) */
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

/* The name of an eddy_status for messages ("EDDY_ERR_PLUGIN"), or NULL for a value that is none. */
static const char *status_name(int code)
{
    switch (code) {
    case EDDY_ERR_INVALID_ARGUMENT: return "EDDY_ERR_INVALID_ARGUMENT";
    case EDDY_ERR_OUT_OF_MEMORY: return "EDDY_ERR_OUT_OF_MEMORY";
    case EDDY_ERR_IO: return "EDDY_ERR_IO";
    case EDDY_ERR_PARSE: return "EDDY_ERR_PARSE";
    case EDDY_ERR_PLUGIN: return "EDDY_ERR_PLUGIN";
    case EDDY_ERR_DOMAIN: return "EDDY_ERR_DOMAIN";
    case EDDY_ERR_UNSTABLE: return "EDDY_ERR_UNSTABLE";
    case EDDY_ERR_NOT_FOUND: return "EDDY_ERR_NOT_FOUND";
    case EDDY_ERR_UNSUPPORTED: return "EDDY_ERR_UNSUPPORTED";
    case EDDY_ERR_DEVICE: return "EDDY_ERR_DEVICE";
    case EDDY_ERR_INTERRUPTED: return "EDDY_ERR_INTERRUPTED";
    default: return NULL;
    }
}

/* Whether the real folder `dir` is one of the entries of `path` (EDDY_PLUGIN_PATH's value, or NULL). */
static int in_plugin_path(const char *path, const char *dir)
{
    for (const char *p = path; p && *p;) {
        const char *end = strchr(p, ':');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        char entry[PATH_MAX], real[PATH_MAX];
        if (len > 0 && len < sizeof entry) {
            memcpy(entry, p, len);
            entry[len] = '\0';
            if (realpath(entry, real) && strcmp(real, dir) == 0) return 1;
        }
        p = end ? end + 1 : p + len;
    }
    return 0;
}

const char *eddy_services_refusal_hint(const eddy_registry *reg, const char *id, char *buf, size_t n)
{
    buf[0] = '\0';
    const size_t count = reg ? eddy_registry_refusal_count(reg) : 0;
    if (!count) {
        /* Nothing was refused: the plugin's folder was never searched, the usual slip of an outside
         * author (EDDY_PLUGIN_PATH unset, or naming the source folder instead of the build's). */
        const char *path = getenv("EDDY_PLUGIN_PATH");
        char shown[160];
        if (path && *path)
            snprintf(shown, sizeof shown, "is '%.120s%s'", path, strlen(path) > 120 ? "..." : "");
        else
            snprintf(shown, sizeof shown, "is not set");
        /* Eddy's own folders are named as searched (a moved installation, a program of the user's linked
         * against libeddy): "eddy's own plugin folder" alone left the reader to guess which, and whether
         * it existed. */
        char own[512] = "";
        size_t len = 0;
        for (size_t i = 0; reg && i < eddy_registry_folder_count(reg) && len < sizeof own; ++i) {
            const char *dir = eddy_registry_folder_at(reg, i);
            if (in_plugin_path(path, dir)) continue;
            int w = snprintf(own + len, sizeof own - len, "%s%.200s", len ? ", " : "", dir);
            if (w > 0) len += (size_t)w;
        }
        snprintf(buf, n, "; a plugin's components are found in the folders of EDDY_PLUGIN_PATH (it %s) and in "
                         "eddy's own plugin folder (%s%s): add the folder that holds eddy_%.64s.so (`eddy list` "
                         "shows the plugins found)", shown, own[0] ? "searched: " : "none was found", own,
                 id ? id : "ID");
        return buf;
    }
    char name[256];
    snprintf(name, sizeof name, "eddy_%s.so", id ? id : "");
    for (size_t i = 0; i < count; ++i) {
        const eddy_registry_refusal *r = eddy_registry_refusal_at(reg, i);
        const char *slash = strrchr(r->file, '/');
        if (strcmp(slash ? slash + 1 : r->file, name) != 0) continue;
        snprintf(buf, n, "; %s was refused: %s", r->file, r->reason);
        return buf;
    }
    snprintf(buf, n, "; some plugins were refused, see `eddy list`");
    return buf;
}

static char unset_instance; /* (its address: no allocation or NULL a plugin hands back is equal to it) */

void *eddy_services_unset_instance(void)
{
    return &unset_instance;
}

int eddy_services_check_created(int rc, void **instance, const char *what, eddy_error *err)
{
    if (rc || *instance != &unset_instance) return rc;
    *instance = NULL;
    return eddy_error_set(err, EDDY_ERR_PLUGIN,
                          "create() returned success without setting *out (set it to the %s's state, or to NULL "
                          "for a %s without state)", what, what);
}

int eddy_services_callback_error(eddy_error *err, int rc, const char *callback)
{
    err->message[sizeof err->message - 1] = '\0'; /* a plugin may have filled it to the end */
    err->code = rc;
    if (!err->message[0]) {
        const char *name = status_name(rc);
        if (name)
            snprintf(err->message, sizeof err->message, "%s() returned %s (%s) without a message", callback, name,
                     eddy_strerror(rc));
        else
            snprintf(err->message, sizeof err->message, "%s() returned %d, which is not an eddy_status, without a "
                     "message", callback, rc);
    }
    return rc;
}
