/*
 * host/session/session.h — the session C API: one simulation driven without the command line.
 *
 * The `eddy` command (run, resume, compare, bench), the Python package and the MPI work all drive a
 * run through these functions: open a scene (a file or JSON text) with overrides, step it, run a
 * plan with callbacks, take the frame snapshot, write a checkpoint, resume from one, close.
 *
 * Units: times in seconds of simulated time, lengths and speeds in the scene's simulation units
 * (scene.h), step counts as whole steps since t = 0. Frame k is the state at t = k * the scene's
 * time.output_interval, landed on exactly (the clock is snapped there, not left as a sum of dt).
 *
 * Errors: every function that can fail returns 0 (EDDY_OK) or an eddy_status and fills `err` with a
 * message that names the file, key or value at fault, the same text `eddy` prints after "eddy: error: ".
 *
 * Ownership: an eddy_session is created by eddy_session_open / eddy_session_resume /
 * eddy_session_restore and freed by eddy_session_close; nothing else frees it. Pointers it hands out
 * (world, scene, sim) belong to it and stay valid until eddy_session_close. Strings and arrays passed
 * in options are only read during the call (copied where kept).
 *
 * Threads: a session is used by one thread at a time. The process shares its host services
 * (observe/services.h: the thread count, the log, the SIGINT/SIGTERM stop flag), so one session steps at
 * a time per process; opening a session sets OpenMP's thread count for the process. Callbacks run on
 * the calling thread, between steps.
 *
 * Processes: a session belongs to the process that opened it. A child made by fork() without exec has a
 * copy of it, but not the parent's output folder (its locks stay the parent's: drive/folder_lock.h), its
 * threads (the solver's, a writer thread) or its device context, and whatever it stepped or wrote would
 * land among the parent's files. So in such a child eddy_session_step, eddy_session_run and
 * eddy_session_checkpoint fail with eddy_session_check_process's error, naming both processes; a run
 * whose callback forks stops in the child at once with that error (after on_frame, or before the next
 * step) and goes on in the parent; and eddy_session_close there frees nothing (the solver's destroy
 * could join threads that are not there; the copy's memory goes with the child). Reading the copy (the
 * world, a snapshot, the hash) works on a host-resident state. A session opened in the child is the
 * child's; where sessions of the parent (or an ancestor) ran on more than one thread it runs on one,
 * said once in an "eddy: notice:" line (OpenMP cannot start threads again in a forked child: GNU
 * OpenMP's first parallel region there waited for ever for the parent's).
 */
#ifndef EDDY_HOST_SESSION_H
#define EDDY_HOST_SESSION_H

#include <signal.h>
#include <stddef.h>

#include <cjson/cJSON.h>
#include <eddy/eddy.h>

#include "checkpoint.h"
#include "scene.h"
#include "sim.h"

typedef struct eddy_session eddy_session;

/*
 * What a session is opened with. Start from eddy_session_default_options(); NULL / 0 members mean
 * "as the scene says". Every override is applied to the scene's JSON tree before it is interpreted
 * (the scene layer's --set path, scene.h), so an override is checked exactly as the scene key it
 * replaces and the checkpoint's embedded scene shows it: `solver` is the key "solver", `grid` "grid",
 * `out_dir` "output.dir", `formats` "output.format"; `sets` come first, these after them.
 */
typedef struct eddy_session_options {
    const char *scene_path;        /* a scene file, or NULL and: */
    const char *scene_text;        /* the scene as JSON text */
    const char *scene_name;        /* how messages name scene_text (default "scene.json") */
    const char *const *sets;       /* "dotted.path=value" overrides (`eddy run --set`) */
    size_t set_count;
    const char *solver;            /* solver component id (--solver) */
    const char *grid;              /* grid component id (--grid) */
    const char *out_dir;           /* output folder (--out) */
    const char *const *formats;    /* writer ids replacing output.format (--format); NULL: the scene's */
    size_t format_count;
    int threads;                   /* > 0: thread count; 0: the scene's world.threads, else OpenMP's */
    size_t particle_target;        /* > 0: refill the scene at about this many particles (eddy bench) */
    eddy_registry *registry;       /* the components to use (not owned); NULL: the session makes one
                                    * (the built-ins and the plugins found, observe/services.h) */
    /* Called once the scene is interpreted and before the world is built (may be NULL): a driver's
     * own sections (`eddy run` reads "checkpoint" here), so their errors come before any work. */
    int (*check_scene)(void *user, const eddy_scene *scene, eddy_error *err);
    void *user;
} eddy_session_options;

eddy_session_options eddy_session_default_options(void);

/*
 * Parses the scene with the overrides, builds the world, creates the solver and computes its
 * derived fields for frame 0 (eddy_sim_open, sim.h). *out is owned by the caller (eddy_session_close);
 * on failure it is NULL and err says why. Once open, a SIGINT/SIGTERM handler the program installed
 * through observe/services.h (the `eddy` command's main() does) sets the stop flag instead of ending
 * the process; a session installs no handler itself (the Python package installs its own around
 * stepping calls).
 */
int eddy_session_open(const eddy_session_options *opt, eddy_session **out, eddy_error *err);

/*
 * Opens the session a checkpoint was written from and puts the checkpoint's state into it: the
 * scene document embedded in `ck` with opt's overrides (the caller passes the solver, grid, output
 * folder and formats its run used, read from the checkpoint's settings; scene_path, scene_text and
 * sets are ignored), then eddy_checkpoint_open_sim (checkpoint.h). For a solver that saves all it
 * derives (EDDY_COMPONENT_STATE_COMPLETE, every in-tree CPU solver) nothing of the initial state is
 * built or computed: the world is made from the scene's materials, colliders and domain and the
 * checkpoint's particles, and the solver created on it. Other solvers get the 2.0 order (the scene's
 * initial world, create(), then every field restored). compute_fields() is never called. `next_frame`
 * is the index of the next output frame (the checkpoint's "next_frame" setting). `ck` is only read;
 * the caller frees it. Errors in the embedded scene are prefixed "checkpoint 'PATH': ".
 */
int eddy_session_restore(const eddy_checkpoint *ck, const eddy_session_options *opt, int next_frame,
                         eddy_session **out, eddy_error *err);

/*
 * eddy_checkpoint_read(dir) and eddy_session_restore with the checkpoint's own settings (solver,
 * grid, next_frame; the output folder is `dir`): what a program needs to continue a run that `eddy
 * run` or eddy_session_checkpoint wrote. `eddy resume` checks the settings more strictly itself.
 */
int eddy_session_resume(const char *dir, const eddy_session_options *opt, eddy_session **out, eddy_error *err);

/* Releases everything. NULL-safe. In a child forked from the process that opened `s`, nothing (see
 * "Processes" above). */
void eddy_session_close(eddy_session *s);

/*
 * EDDY_OK in the process that opened `s`; in another (a child made by fork()), EDDY_ERR_INVALID_ARGUMENT
 * "this simulation was opened by process P; a process forked from it (C) cannot step or write it;
 * REOPEN", where REOPEN is the caller's advice (NULL: "open a new session in the child"). `err` may be
 * NULL.
 */
int eddy_session_check_process(const eddy_session *s, const char *reopen, eddy_error *err);

/*
 * n steps (n >= 0) as `eddy run` takes them: toward the next output frame time, landing on it
 * exactly, so a session stepped here reaches the states of `eddy run` at the same step counts.
 * Stops early with EDDY_ERR_INTERRUPTED when the stop flag is set (SIGINT/SIGTERM), or with the
 * solver's or the explosion guard's error (sim.h).
 */
int eddy_session_step(eddy_session *s, long long n, eddy_error *err);

/* A stepping plan: the end, and callbacks between steps. Zero-initialise, then set what you need. */
typedef struct eddy_session_plan {
    long long end_steps;          /* >= 0: stop at this total step count; -1: at end_time */
    double end_time;              /* s, when end_steps < 0; NAN: the scene's time.end */
    /* Each output frame landed on (the state at t = frame * output_interval); take the snapshot here
     * with eddy_session_snapshot. Non-zero (an eddy_status, with err filled) stops the run with it. */
    int (*on_frame)(void *user, eddy_session *s, int frame, eddy_error *err);
    /* After every step: its wall time inside the solver step (ms). May be NULL. */
    void (*on_step)(void *user, eddy_session *s, double step_ms);
    /* Polled before every step; non-zero stops the run with EDDY_ERR_INTERRUPTED ("cancelled at step
     * N (t = T s)"). May be NULL. The process's stop flag (SIGINT/SIGTERM) is always honoured. */
    int (*cancel)(void *user);
    void *user;
} eddy_session_plan;

/*
 * Steps until the plan's end (the state of `eddy run --steps N` / `--until T`), an error, a cancel
 * or a stop request. *last_on_frame (may be NULL) tells whether the final state is one on_frame saw.
 * A session already at or past the end takes no step and returns EDDY_OK.
 */
int eddy_session_run(eddy_session *s, const eddy_session_plan *plan, int *last_on_frame, eddy_error *err);

/*
 * The snapshot of the current state (observe/frame.h): the host copy synced once (a device solver's
 * fields downloaded), the owned particles in increasing id order (frame->order). Its index is the
 * last output frame landed on when the state is at that frame's time, else the next regular frame's
 * (as `eddy run` numbers a final frame between frame times). Valid until the next step; release with
 * eddy_session_snapshot_release.
 */
int eddy_session_snapshot(eddy_session *s, eddy_frame *frame, eddy_error *err);
void eddy_session_snapshot_release(eddy_frame *frame);

/* The state hash `eddy run --hash` prints (eddy_world_hash: ids, fields, clock). */
int eddy_session_hash(eddy_session *s, uint64_t *hash, eddy_error *err);

/*
 * Writes DIR/checkpoint.eddy (checkpoint.h). `settings` is the run's settings object as `eddy run`
 * stores it (not owned); NULL makes one that `eddy resume DIR` continues to the scene's time.end:
 * scene_file, solver, solver_version, grid, formats, end_steps -1, end_time, checkpoint_every 0 and
 * next_frame.
 */
int eddy_session_checkpoint(eddy_session *s, const char *dir, const cJSON *settings, eddy_error *err);

/* Where the session stands (borrowed; valid until close). */
eddy_world *eddy_session_world(eddy_session *s);
const eddy_scene *eddy_session_scene(const eddy_session *s);
/* The index of the next output frame (advanced by step and run): 1 after eddy_session_open (frame 0
 * is the state it opened with, which a plan's on_frame does not see: take it before running). */
int eddy_session_next_frame(const eddy_session *s);
/* The stepping session underneath, for the host's drivers (run, compare, bench). */
eddy_sim *eddy_session_sim(eddy_session *s);

#endif /* EDDY_HOST_SESSION_H */
