#include "output_thread.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct eddy_output_thread {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    eddy_output_job job; /* non-NULL: handed and not finished */
    void *arg;
    int stop;
    int rc;              /* the last job's, until a wait takes it */
    eddy_error err;
    pid_t pid;           /* the process the thread runs in (a forked child has the struct, not the thread) */
};

static void *thread_main(void *p)
{
    eddy_output_thread *t = p;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (!t->job && !t->stop) pthread_cond_wait(&t->changed, &t->lock);
        if (!t->job) break; /* stop, with nothing left to write */
        eddy_output_job job = t->job;
        void *arg = t->arg;
        pthread_mutex_unlock(&t->lock);
        eddy_error err;
        eddy_error_clear(&err);
        int rc = job(arg, &err);
        pthread_mutex_lock(&t->lock);
        t->rc = rc;
        t->err = err;
        t->job = NULL;
        pthread_cond_broadcast(&t->changed);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

int eddy_output_thread_start(eddy_output_thread **out, eddy_error *err)
{
    *out = NULL;
    eddy_output_thread *t = calloc(1, sizeof *t);
    if (!t) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the output writer thread");
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->changed, NULL);
    /* The thread inherits the mask in effect when it is created: SIGINT and SIGTERM blocked. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int e = pthread_create(&t->thread, NULL, thread_main, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e) {
        pthread_cond_destroy(&t->changed);
        pthread_mutex_destroy(&t->lock);
        free(t);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot start the output writer thread: %s", strerror(e));
    }
    t->pid = getpid();
    *out = t;
    return EDDY_OK;
}

/* In a child made by fork() the thread is not there, and the mutex may have been held by it at the fork:
 * waiting would block for ever. */
static int forked_child(const eddy_output_thread *t, eddy_error *err)
{
    const pid_t me = getpid();
    if (t->pid == me) return EDDY_OK;
    return eddy_error_set(err, EDDY_ERR_IO, "the output writer thread runs in process %ld; a process forked from "
                          "it (%ld) cannot write through it", (long)t->pid, (long)me);
}

int eddy_output_thread_wait(eddy_output_thread *t, eddy_error *err)
{
    const int rc_forked = forked_child(t, err);
    if (rc_forked) return rc_forked;
    pthread_mutex_lock(&t->lock);
    while (t->job) pthread_cond_wait(&t->changed, &t->lock);
    int rc = t->rc;
    if (rc && err) *err = t->err;
    t->rc = EDDY_OK;
    pthread_mutex_unlock(&t->lock);
    return rc;
}

void eddy_output_thread_submit(eddy_output_thread *t, eddy_output_job job, void *arg)
{
    if (forked_child(t, NULL)) return; /* (its wait said so first) */
    pthread_mutex_lock(&t->lock);
    while (t->job) pthread_cond_wait(&t->changed, &t->lock); /* (the caller waited: a safety net) */
    t->job = job;
    t->arg = arg;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
}

void eddy_output_thread_stop(eddy_output_thread *t)
{
    if (!t) return;
    /* (joining a thread the child lacks never returns; the struct's memory goes with the child) */
    if (forked_child(t, NULL)) return;
    pthread_mutex_lock(&t->lock);
    t->stop = 1;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    pthread_cond_destroy(&t->changed);
    pthread_mutex_destroy(&t->lock);
    free(t);
}
