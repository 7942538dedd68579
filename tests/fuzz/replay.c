/*
 * eddy_fuzz_replay: feeds files to a fuzz target without a fuzzing engine, one child process per
 * file, so that a crash or a hang names its input and the other inputs still run.
 *
 *   eddy_fuzz_replay [--timeout SECONDS] TARGET PATH...
 *
 * TARGET is scene, checkpoint, manifest, params, plugin_file or validate_case (fuzz.h); a PATH is a file or a folder (its regular files,
 * in name order, not recursive). An input fails when its child dies of a signal (a crash, an abort
 * of a sanitizer), exits non-zero, or runs longer than the timeout (default 10 s; killed then).
 * Prints one line per failing input, the slowest input and its time, and exits 1 when any failed.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef int (*target_fn)(const uint8_t *, size_t);

/* LeakSanitizer's hook (read only in a sanitized build). The OpenMP runtime's fork handler drops the
 * parent's thread-team structures in the child, where they show up as leaks at exit: not eddy's. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libomp.so\nleak:libgomp.so\n";
}
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

static const struct {
    const char *name;
    target_fn fn;
} TARGETS[] = {{"scene", eddy_fuzz_scene},
               {"checkpoint", eddy_fuzz_checkpoint},
               {"manifest", eddy_fuzz_manifest},
               {"params", eddy_fuzz_params},
               {"plugin_file", eddy_fuzz_plugin_file},
               {"validate_case", eddy_fuzz_validate_case}};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 4096, n = 0;
    uint8_t *p = malloc(cap);
    while (p) {
        if (n == cap) {
            uint8_t *q = realloc(p, cap * 2);
            if (!q) {
                free(p);
                p = NULL;
                break;
            }
            p = q;
            cap *= 2;
        }
        size_t got = fread(p + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = !p || ferror(f);
    fclose(f);
    if (bad) {
        free(p);
        return -1;
    }
    *data = p;
    *size = n;
    return 0;
}

typedef struct tally {
    int inputs, failed;
    double slowest;
    char slowest_path[4096];
} tally;

static volatile sig_atomic_t timed_out;
static void on_alarm(int sig)
{
    (void)sig;
    timed_out = 1;
}

/* Runs one input in a child; the parent kills it at the timeout. */
static void run_one(target_fn fn, const char *path, unsigned timeout, tally *t)
{
    uint8_t *data = NULL;
    size_t size = 0;
    if (read_file(path, &data, &size) != 0) {
        fprintf(stderr, "FAIL %s: cannot read: %s\n", path, strerror(errno));
        ++t->failed;
        ++t->inputs;
        return;
    }
    fflush(NULL);
    const double start = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        fn(data, size);
        free(data);
        exit(0); /* not _exit: a sanitized build checks for leaks at exit */
    }
    free(data);
    timed_out = 0;
    alarm(timeout);
    int status = 0;
    pid_t got;
    while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
        if (timed_out) {
            kill(pid, SIGKILL);
            timed_out = 2;
        }
    }
    alarm(0);
    const double took = now_s() - start;
    ++t->inputs;
    if (timed_out) {
        fprintf(stderr, "FAIL %s: still running after %u s (a hang), killed\n", path, timeout);
        ++t->failed;
    } else if (WIFSIGNALED(status)) {
        fprintf(stderr, "FAIL %s: killed by signal %d (%s) after %.3f s\n", path, WTERMSIG(status),
                strsignal(WTERMSIG(status)), took);
        ++t->failed;
    } else if (WEXITSTATUS(status) != 0) {
        fprintf(stderr, "FAIL %s: exited with status %d after %.3f s\n", path, WEXITSTATUS(status), took);
        ++t->failed;
    }
    if (getenv("EDDY_FUZZ_VERBOSE")) fprintf(stderr, "%s: %.3f s\n", path, took);
    if (took > t->slowest) {
        t->slowest = took;
        snprintf(t->slowest_path, sizeof t->slowest_path, "%s", path);
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(target_fn fn, const char *path, unsigned timeout, tally *t)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "FAIL %s: %s\n", path, strerror(errno));
        ++t->failed;
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        run_one(fn, path, timeout, t);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "FAIL %s: %s\n", path, strerror(errno));
        ++t->failed;
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        char *full = malloc(len);
        if (!full) break;
        snprintf(full, len, "%s/%s", path, e->d_name);
        if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(full);
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **q = realloc(names, cap * sizeof *q);
            if (!q) {
                free(full);
                break;
            }
            names = q;
        }
        names[n++] = full;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; ++i) {
        run_one(fn, names[i], timeout, t);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    unsigned timeout = 10;
    int a = 1;
    if (a + 1 < argc && strcmp(argv[a], "--timeout") == 0) {
        timeout = (unsigned)strtoul(argv[a + 1], NULL, 10);
        if (timeout == 0) timeout = 1;
        a += 2;
    }
    if (a + 1 >= argc) {
        fprintf(stderr, "usage: %s [--timeout SECONDS] scene|checkpoint|manifest|params|plugin_file|validate_case PATH...\n", argv[0]);
        return 2;
    }
    target_fn fn = NULL;
    for (size_t i = 0; i < sizeof TARGETS / sizeof TARGETS[0]; ++i)
        if (strcmp(argv[a], TARGETS[i].name) == 0) fn = TARGETS[i].fn;
    if (!fn) {
        fprintf(stderr, "%s: unknown target '%s', expected scene, checkpoint, manifest, params, plugin_file or validate_case\n", argv[0], argv[a]);
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm; /* no SA_RESTART: the alarm interrupts waitpid */
    sigaction(SIGALRM, &sa, NULL);
    /* The registry is made once, before the children are forked (no OpenMP team exists yet). */
    eddy_fuzz_init();
    tally t;
    memset(&t, 0, sizeof t);
    for (int i = a + 1; i < argc; ++i) run_path(fn, argv[i], timeout, &t);
    printf("%s: %d inputs, %d failed; slowest %.3f s (%s)\n", argv[a], t.inputs, t.failed, t.slowest,
           t.inputs ? t.slowest_path : "-");
    if (t.inputs == 0) {
        fprintf(stderr, "no inputs found\n");
        return 1;
    }
    return t.failed ? 1 : 0;
}
