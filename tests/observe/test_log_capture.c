/*
 * The record of what components say while a session opens (host/observe/services.h,
 * eddy_services_capture_begin/_end) is the calling thread's: two threads that capture at once (a Python
 * Simulation opened while compare() opens its solvers) each get their own lines and none of the other's,
 * and a line logged on a thread that is not capturing is kept by nobody. The lines go through the
 * host's log as a component's do (eddy_host.log).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <eddy/eddy.h>

#include "services.h"

static pthread_barrier_t both_capturing, both_logged;

typedef struct job {
    const char *component;
    char *lines;
} job;

static void *capture_on_a_thread(void *arg)
{
    job *j = arg;
    const eddy_host *h = eddy_services_host();
    eddy_services_capture_begin();
    pthread_barrier_wait(&both_capturing);
    for (int k = 0; k < 3; ++k) {
        char message[64];
        snprintf(message, sizeof message, "line %d of %s", k, j->component);
        h->log(h, EDDY_LOG_INFO, j->component, message);
    }
    pthread_barrier_wait(&both_logged);
    j->lines = eddy_services_capture_end();
    return NULL;
}

static void *log_without_capture(void *arg)
{
    (void)arg;
    const eddy_host *h = eddy_services_host();
    h->log(h, EDDY_LOG_WARNING, "bystander", "said while others capture");
    return NULL;
}

int main(void)
{
    eddy_services_set_quiet(1); /* (INFO lines off the terminal; the record keeps them regardless) */
    pthread_barrier_init(&both_capturing, NULL, 3);
    pthread_barrier_init(&both_logged, NULL, 3);
    job a = {"solver_a", NULL}, b = {"solver_b", NULL};
    pthread_t ta, tb, tc;
    pthread_create(&ta, NULL, capture_on_a_thread, &a);
    pthread_create(&tb, NULL, capture_on_a_thread, &b);
    pthread_barrier_wait(&both_capturing);
    pthread_create(&tc, NULL, log_without_capture, NULL);
    pthread_join(tc, NULL);
    pthread_barrier_wait(&both_logged);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    const char *want_a = "solver_a: line 0 of solver_a\nsolver_a: line 1 of solver_a\nsolver_a: line 2 of solver_a\n";
    const char *want_b = "solver_b: line 0 of solver_b\nsolver_b: line 1 of solver_b\nsolver_b: line 2 of solver_b\n";
    int bad = 0;
    if (!a.lines || strcmp(a.lines, want_a) != 0) {
        fprintf(stderr, "thread a kept:\n%s\nexpected:\n%s", a.lines ? a.lines : "(nothing)\n", want_a);
        bad = 1;
    }
    if (!b.lines || strcmp(b.lines, want_b) != 0) {
        fprintf(stderr, "thread b kept:\n%s\nexpected:\n%s", b.lines ? b.lines : "(nothing)\n", want_b);
        bad = 1;
    }
    /* The main thread never began: it keeps nothing. */
    char *mine = eddy_services_capture_end();
    if (mine) {
        fprintf(stderr, "the main thread, which never captured, kept:\n%s", mine);
        bad = 1;
    }
    free(a.lines);
    free(b.lines);
    free(mine);
    puts(bad ? "log capture: FAIL" : "log capture: each thread kept its own lines");
    return bad;
}
