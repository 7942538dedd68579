/*
 * host/observe/output_thread.h — the writer thread of overlapped output (output.h): one job at a time,
 * run on a thread of its own while the caller goes on; the caller waits for the job before it hands the
 * next (back-pressure: at most one job in flight, so whatever the job reads is bounded to one frame).
 *
 * The thread blocks SIGINT and SIGTERM, so the run's handlers (services.h) run on the main thread and
 * no write of the thread is interrupted by them.
 *
 * Threads: every function here is called from one thread, the one that started the writer thread.
 *
 * fork(): a child made by fork() has the struct but not the thread. There wait fails with EDDY_ERR_IO
 * "the output writer thread runs in process P; a process forked from it (C) cannot write through it",
 * submit does nothing (its wait failed first), and stop frees nothing and joins nothing.
 */
#ifndef EDDY_HOST_OUTPUT_THREAD_H
#define EDDY_HOST_OUTPUT_THREAD_H

#include <eddy/eddy.h>

typedef struct eddy_output_thread eddy_output_thread;

/* A job: writes from `arg`; its error goes to `err` (the thread's own), returned by the next wait. */
typedef int (*eddy_output_job)(void *arg, eddy_error *err);

/* Starts the thread. EDDY_ERR_IO "cannot start the output writer thread: <reason>" when it cannot. */
int eddy_output_thread_start(eddy_output_thread **t, eddy_error *err);

/* Waits until no job is in flight; returns the error of the last job (once: a second wait says OK). */
int eddy_output_thread_wait(eddy_output_thread *t, eddy_error *err);

/* Hands a job to the thread and returns at once. The caller has waited since the last submit. */
void eddy_output_thread_submit(eddy_output_thread *t, eddy_output_job job, void *arg);

/* Waits for the job in flight (its error is dropped: wait first to see it), ends the thread. NULL-safe. */
void eddy_output_thread_stop(eddy_output_thread *t);

#endif /* EDDY_HOST_OUTPUT_THREAD_H */
