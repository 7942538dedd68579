/*
 * <eddy_host/session.h> — the session C API: one simulation driven from a program of your own.
 *
 * Installed with the SDK (`cmake --install`): link the CMake target eddy::session (find_package(eddy))
 * or the pkg-config module eddy_session, which bring libeddy_session and libeddy. It is the API the
 * `eddy` command (run, resume, compare, bench) and the Python package drive their runs with: open a
 * scene (a file or JSON text) with overrides, step it, run a plan with callbacks, read the particles
 * between steps, hash the state, write a checkpoint, resume from one, close. A session stepped here
 * reaches the state `eddy run` reaches at the same step count, bit for bit (eddy_session_hash equals
 * `eddy run --hash`), and a checkpoint written here is continued by `eddy resume DIR` and the other
 * way round. docs/host.md has an example and tests/session/installed/ a complete program.
 *
 * Versions: libeddy_session's SONAME (libeddy_session.so.0) changes whenever this API changes
 * incompatibly, so a program built against another version is refused by the loader rather than
 * run with a wrong layout; rebuild against the new headers. The particle data (eddy_world,
 * eddy_particles, eddy_frame) is libeddy's plugin ABI (<eddy/eddy.h>, docs/abi.md).
 *
 * Units: times in seconds of simulated time, lengths and speeds in the scene's simulation units
 * (docs/scenes.md, world.simulation_scale), step counts as whole steps since t = 0. Frame k is the
 * state at t = k * the scene's time.output_interval, landed on exactly (the clock is snapped there).
 *
 * Errors: every function that can fail returns 0 (EDDY_OK) or an eddy_status (<eddy/error.h>) and
 * fills `err` with a message that names the file, key or value at fault: the text `eddy` prints after
 * "eddy: error: ". The components (solvers, grids) also say what they derive, and warn, on stderr in
 * lines that start "eddy: " (eddy_session_set_quiet hides the informational ones).
 *
 * Ownership: an eddy_session is made by eddy_session_open or eddy_session_resume and freed by
 * eddy_session_close; nothing else frees it. Pointers it hands out (the world) belong to it and stay
 * valid until eddy_session_close. Strings and arrays passed in options are only read during the call.
 *
 * Threads: a session is used by one thread at a time, and one session steps at a time per process:
 * the sessions of a process share its thread count, log and stop request. Opening a session sets
 * OpenMP's thread count for the whole process (omp_set_num_threads: the option, else the scene's
 * world.threads, else OpenMP's default) and closing it leaves it so: a program that runs OpenMP code
 * of its own on another count sets it again. Results are bit-identical on every thread count.
 * Callbacks run on the calling thread, between steps. A session in a child made by fork() without
 * exec cannot step or write (eddy_session_check_process).
 *
 * MPI: in a program that has initialised MPI (under mpirun), every session is one run split over the
 * processes of MPI_COMM_WORLD, or of the communicator given to eddy_session_set_mpi_comm (eddy talks on
 * a duplicate of either, made when the first session opens or by that call, so that its messages never
 * meet the program's), as
 * `mpirun -np N eddy run` splits it (docs/mpi.md): every process of it must open, step, hash and
 * checkpoint the same session together, in the same order; a process that opens one alone waits for
 * the others for ever. Processes that run cases of their own (a coupling program's fluid ranks beside
 * its solid ranks, a parameter sweep) each give eddy the communicator of their case first. A process's
 * world (eddy_session_world) then holds its slab of the particles and, among them, particles.halo_count
 * copies of its neighbours' (eddy_particle_is_halo: write the particles it is false for; a value written
 * to a copy is overwritten from its owner before the next step, when the copies are sent again so that
 * the next step sees the values written on every process, as `eddy run` on one process would), and a
 * snapshot its slab; the hash and a checkpoint (a piece per process and a manifest, which
 * `mpirun -np N eddy resume DIR` continues on any process count) cover every process.
 */
#ifndef EDDY_HOST_SESSION_PUBLIC_H
#define EDDY_HOST_SESSION_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#include <eddy/eddy.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eddy_session eddy_session;
/* The host's interpreted scene, opaque here (a driver's own sections are read through it). */
typedef struct eddy_scene eddy_scene;
/* cJSON's object type (<cjson/cJSON.h>), for eddy_session_checkpoint's settings. */
struct cJSON;

/*
 * What a session is opened with. Start from eddy_session_default_options(); NULL / 0 members mean
 * "as the scene says". Every override is applied to the scene's JSON tree before it is interpreted
 * (`eddy run --set`), so an override is checked exactly as the scene key it replaces and a
 * checkpoint's embedded scene shows it: `solver` is the key "solver", `grid` "grid", `out_dir`
 * "output.dir", `formats` "output.format"; `sets` come first, these after them (so an error about one
 * names the `--set` that carries it: solver "Bad Id!" is "--set 'solver="Bad Id!"': ..."). A session writes no
 * frames itself (`eddy run` does, around it): out_dir and formats are what the scene records and
 * where eddy_session_checkpoint's settings say a resume writes.
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
                                    * (the built-ins and the plugins found: EDDY_PLUGIN_PATH, then
                                    * eddy's own plugin folder) */
    /* Called once the scene is interpreted and before the world is built (may be NULL): a driver's
     * own sections (`eddy run` reads "checkpoint" here), so their errors come before any work. */
    int (*check_scene)(void *user, const eddy_scene *scene, eddy_error *err);
    void *user;
} eddy_session_options;

EDDY_API eddy_session_options eddy_session_default_options(void);

/*
 * Parses the scene with the overrides, builds the world, creates the solver and computes its
 * derived fields for frame 0. *out is the caller's (eddy_session_close); on failure it is NULL and
 * err says why.
 */
EDDY_API int eddy_session_open(const eddy_session_options *opt, eddy_session **out, eddy_error *err);

/*
 * Continues the checkpoint in `dir` (DIR/checkpoint.eddy, or a split run's DIR/checkpoint.manifest and
 * its pieces, on any process count; written by `eddy run` or eddy_session_checkpoint) with its own solver, grid and frame count; opt may add threads and a
 * registry (its scene, overrides, solver and grid are ignored: the checkpoint's embedded scene is the
 * run's). `eddy resume DIR` checks the run's settings more strictly itself.
 */
EDDY_API int eddy_session_resume(const char *dir, const eddy_session_options *opt, eddy_session **out,
                                 eddy_error *err);

/* Releases everything. NULL-safe. In a child forked from the process that opened `s`, nothing. */
EDDY_API void eddy_session_close(eddy_session *s);

/*
 * EDDY_OK in the process that opened `s`; in another (a child made by fork()), EDDY_ERR_INVALID_ARGUMENT
 * "this simulation was opened by process P; a process forked from it (C) cannot step or write it;
 * REOPEN", where REOPEN is the caller's advice (NULL: "open a new session in the child"). `err` may be
 * NULL.
 */
EDDY_API int eddy_session_check_process(const eddy_session *s, const char *reopen, eddy_error *err);

/*
 * n steps (n >= 0; a negative n is EDDY_ERR_INVALID_ARGUMENT) as `eddy run` takes them: toward the
 * next output frame time, landing on it exactly. Stops early with EDDY_ERR_INTERRUPTED when a stop was
 * requested (the `eddy` program's SIGINT/SIGTERM), or with the solver's or the explosion guard's
 * error. After such an error the world holds what the failed step left (read it to see what went
 * wrong); eddy_session_checkpoint refuses a state with a non-finite value.
 */
EDDY_API int eddy_session_step(eddy_session *s, long long n, eddy_error *err);

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
     * N (t = T s)"). May be NULL. */
    int (*cancel)(void *user);
    void *user;
} eddy_session_plan;

/*
 * Steps until the plan's end (the state of `eddy run --steps N` / `--until T`), an error, a cancel
 * or a stop request. *last_on_frame (may be NULL) tells whether the final state is one on_frame saw.
 * A session already at or past the end takes no step and returns EDDY_OK.
 */
EDDY_API int eddy_session_run(eddy_session *s, const eddy_session_plan *plan, int *last_on_frame, eddy_error *err);

/*
 * The snapshot of the current state (eddy_frame, <eddy/observe.h>): the host copy synced once (a
 * device solver's fields downloaded), the owned particles in increasing id order (frame->order).
 * Its index is the last output frame landed on when the state is at that frame's time, else the next
 * regular frame's. Valid until the next step; release with eddy_session_snapshot_release.
 */
EDDY_API int eddy_session_snapshot(eddy_session *s, eddy_frame *frame, eddy_error *err);
EDDY_API void eddy_session_snapshot_release(eddy_frame *frame);

/* The state hash `eddy run --hash` prints (eddy_world_hash: ids, fields, clock). On several processes
 * collective: every process calls it and gets the hash. */
EDDY_API int eddy_session_hash(eddy_session *s, uint64_t *hash, eddy_error *err);

/*
 * Writes DIR/checkpoint.eddy (the folder must exist) through a temporary file, so an earlier
 * checkpoint there is replaced only by a complete one. `settings` is the run's settings object as
 * `eddy run` stores it (not owned); a program of its own passes NULL, which makes one that `eddy
 * resume DIR` continues to the scene's time.end. Refused (EDDY_ERR_INVALID_ARGUMENT, naming the
 * particle and value) when a built-in field holds what no resume would take: a non-finite position,
 * velocity, density or pressure, a mass <= 0.
 *
 * With NULL settings (since 2026-11-30; a behaviour change, not a layout one: the SONAME stays), a folder
 * that holds another run's checkpoint (a stopped `eddy run`'s, another
 * session's: DIR/checkpoint.eddy, else piece 0 of a split run, DIR/checkpoint.p0.eddy, whose "run_id"
 * setting differs from this session's, or is absent where this session has one) is refused before
 * anything is written, EDDY_ERR_IO "checkpoint: the folder 'DIR' holds the checkpoint of another run (step S, t = T
 * s, run_id 'ID'), which this one would replace, and that run could not be continued; checkpoint into
 * another folder, or move it away" (", run_id 'ID'" only when it has one): writing over it left that run
 * with no way on. One that cannot be read is refused alike (EDDY_ERR_IO "checkpoint: the folder 'DIR'
 * holds a checkpoint this one would replace, which cannot be read (WHY); ..."). A checkpoint of the
 * session's own run (written before by it, or the one eddy_session_resume continued) is replaced. A
 * session opened anew draws a run_id of its own, so two sessions of one scene are two runs. With
 * settings (`eddy run`'s own), the folder is not checked: the caller's rules decide what it replaces.
 * On several processes the first process reads that checkpoint and every process returns its refusal,
 * so none writes a piece alone.
 *
 * The world's particles, the clock, gravity and the colliders' positions and velocities are saved,
 * with the solver's own state, so a program that changes them between steps (eddy_session_world) is
 * resumed where it was; the domain, the materials and the solver's parameters are the scene's.
 */
EDDY_API int eddy_session_checkpoint(eddy_session *s, const char *dir, const struct cJSON *settings,
                                     eddy_error *err);

/*
 * The world the session steps (borrowed; valid until close). Between steps a program reads and writes
 * particle fields through eddy_world_map_field (<eddy/world.h>), which keeps a device solver's copy
 * in step; a write changes the run exactly as the same values in a checkpoint would.
 */
EDDY_API eddy_world *eddy_session_world(eddy_session *s);

/* The index of the next output frame (advanced by step and run): 1 after eddy_session_open (frame 0
 * is the state it opened with, which a plan's on_frame does not see: take it before running). */
EDDY_API int eddy_session_next_frame(const eddy_session *s);

/* Non-zero: the informational lines of the components and the host ("eddy: tait: sound speed ...")
 * are not printed; warnings and errors still are. For the whole process. */
EDDY_API void eddy_session_set_quiet(int quiet);

/*
 * Under MPI: every session this process opens from now on is one run split over the processes of the
 * communicator whose Fortran handle is `fortran_handle`, MPI_Comm_c2f(comm) (a handle, so that this
 * header needs no <mpi.h>), instead of MPI_COMM_WORLD. eddy works on its own duplicate of comm, so
 * its messages never match the program's; the program may free comm afterwards. Collective over comm:
 * each of its processes calls it, after MPI_Init and before opening its sessions (rank and process
 * count in messages, outputs and checkpoint pieces are then comm's). For the whole process, until it is
 * called again. Non-zero with err filled, nothing changed: eddy built without MPI, MPI not running
 * (before MPI_Init, after MPI_Finalize), a handle that names no communicator, an intercommunicator
 * (all alike on every process; with an MPI other than Open MPI a handle that names nothing may abort
 * instead, as MPI's default error handler does), or a session open on any process of comm: every
 * process of comm then refuses, those without one naming the process that has one.
 */
EDDY_API int eddy_session_set_mpi_comm(long long fortran_handle, eddy_error *err);

#ifdef __cplusplus
}
#endif

#endif /* EDDY_HOST_SESSION_PUBLIC_H */
