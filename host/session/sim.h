/*
 * host/session/sim.h — a simulation session: registry, scene, world, grid backend and solver, stepped with
 * the host's time control. `eddy run`, `eddy bench` and the tests all go through it.
 */
#ifndef EDDY_HOST_SIM_H
#define EDDY_HOST_SIM_H

#include <signal.h>

#include <eddy/eddy.h>

#include "scene.h"
#include "services.h"

#define EDDY_SIM_RUN_ID_LEN 32

typedef struct eddy_sim {
    eddy_registry *registry;        /* owned unless given in the options */
    int owns_registry;
    const eddy_host *host;          /* the process's services (services.h); never NULL once open */
    eddy_scene scene;               /* owned */
    eddy_world *world;              /* owned */
    const eddy_registry_entry *solver_entry;
    const eddy_registry_entry *grid_entry;
    const eddy_solver_vtable *solver_vtable; /* solver_entry->component->vtable */
    eddy_solver *solver;            /* owned by the solver plugin */
    eddy_param_value *param_values; /* owned; the solver's parameters in table order */
    eddy_param_values params;       /* what the solver's create() received */
    eddy_param_value *grid_param_values; /* owned; the grid backend's */
    eddy_param_values grid_params;
    int threads;                    /* the thread count in effect */
    int warned_dt_limit;            /* the dt-limit warning is printed once */
    char dt_limit[64];              /* name of the limit that last shortened a step, "" if none; the
                                     * same on every process (eddy_sim_next_dt agrees on it) */
    char dt_said[64];               /* the limit EDDY_LOG=debug last said sets dt, "" the scene's time.dt */
    double last_dt;                 /* the last step's dt, s */
    uint64_t edits_seen;            /* the fields' edit generations summed when the halo copies were last
                                     * made (eddy_sim_next_dt refreshes them after a program's writes) */
    double first_dt;                /* the run's first step as taken (landings included), s, kept in a
                                     * checkpoint and restored by a resume; 0 before it:
                                     * time.min_dt_fraction's scale */
    int dt_limited;                 /* the step eddy_sim_next_dt chose last is shorter than time.dt's would
                                     * be under the same landing rule: the solver's limit set it */
    double last_max_speed;          /* the last step's largest speed over every process, sim units/s;
                                     * NaN before this session's first step */
    char run_id[EDDY_SIM_RUN_ID_LEN + 1]; /* the run's identity, EDDY_SIM_RUN_ID_LEN lowercase hex digits
                                     * drawn when a run starts (the same on every process), stored in
                                     * its run.json and checkpoints and restored by a resume, so that a
                                     * checkpoint of another run of the same scene is told from the
                                     * folder's own; "" for a resumed run whose checkpoint predates it */
} eddy_sim;

/* Options that override the scene. NULL / 0 means "as the scene says". */
typedef struct eddy_sim_options {
    const char *solver;             /* --solver */
    const char *grid;               /* --grid */
    size_t particle_target;         /* eddy bench --particles */
    eddy_registry *registry;        /* use this registry instead of making one (not owned) */
    int threads;                    /* --threads (> 0); 0: the scene's world.threads, else OpenMP's default */
} eddy_sim_options;

/*
 * `solver` and `grid` replace the parsed scene's ids for callers that parse a scene themselves (the
 * tests); the commands and session.h never set them: their overrides go into the scene's JSON tree
 * before it is interpreted (session.h), the one override path.
 */

/*
 * Takes ownership of `scene` (also on failure: it is freed), makes the registry (services.h: the
 * built-in writers and probes, then the plugins discovered) unless one is given, finds the solver and
 * grid (eddy_registry_find with EDDY_INTERFACE_SOLVER / EDDY_INTERFACE_GRID; an unknown id is an error
 * listing the available ones), validates their parameter sections into typed values, decides the
 * thread count (eddy_services_set_threads: the option, else the scene's, else OpenMP's default), builds
 * the world with the host's services and the grid's parameters, creates the solver with an
 * eddy_solver_setup and computes its derived fields for frame 0. Then, once open: prints the notice of
 * every component used (solver, grid, output.format writers, probe kinds) that shadows one of a later
 * plugin folder (eddy_services_notice_shadow), and switches SIGINT / SIGTERM from ending the process to
 * the stop flag (eddy_services_defer_signals): nothing has been written before this point.
 *
 * Every solver callback the host calls (create, compute_fields, max_dt, step, reduce) gets a cleared
 * error record; a non-zero return is the status whatever err->code says, its message gets the solver
 * id (and the step) as prefix, and an empty one reads "CALLBACK() returned EDDY_ERR_X (text) without a
 * message".
 */
int eddy_sim_open(eddy_scene *scene, const eddy_sim_options *opt, eddy_sim *sim, eddy_error *err);

/* How a session opened for a resume gets its state (checkpoint.h's eddy_checkpoint_open_sim makes one). */
typedef struct eddy_sim_restore {
    /* Puts saved particles, clock and colliders into the world built from the scene's materials,
     * colliders and domain, in place of the fluid blocks (eddy_scene_build.fill). Used only for a
     * solver with EDDY_COMPONENT_STATE_COMPLETE, which create() then sees with setup->resuming = 1.
     * NULL: the 2.0 order for every solver (the scene's initial world). */
    int (*fill)(void *user, eddy_world *w, eddy_error *err);
    /* After create(): the rest of the state, load() included. `filled`: whether fill ran. */
    int (*finish)(void *user, eddy_sim *sim, int filled, eddy_error *err);
    void *user;
    /* The checkpoint's path, for messages: a solver or grid the run used that is not found now is
     * named with the checkpoint (eddy_sim_component_not_found), not as an unknown id of the scene. */
    const char *checkpoint;
} eddy_sim_restore;

/*
 * eddy_sim_open for a resume: the world from restore->fill where the solver allows it (above), else
 * the scene's; create(); then restore->finish instead of the initial compute_fields(), whose every
 * field the restore overwrites.
 */
int eddy_sim_open_restored(eddy_scene *scene, const eddy_sim_options *opt, const eddy_sim_restore *restore,
                           eddy_sim *sim, eddy_error *err);

/*
 * The error of a component (interface_id: solver, grid, writer) that the run checkpointed in
 * `checkpoint` used and that `reg` does not hold now, typically a plugin whose folder is not in
 * EDDY_PLUGIN_PATH this time: EDDY_ERR_NOT_FOUND "checkpoint 'F' was written with the solver 'ID',
 * which this eddy does not find (available: ...); if it comes from a plugin, put the plugin's folder
 * in EDDY_PLUGIN_PATH (...)". Returns EDDY_OK when `reg` has it.
 */
int eddy_sim_component_not_found(eddy_registry *reg, const char *checkpoint, const char *interface_id,
                                 const char *id, eddy_error *err);

/*
 * What eddy_sim_open checks of the scene's components before it builds anything: scene->solver and
 * scene->grid are registered in `reg` (the same "unknown solver" error), and the values their
 * sections, the materials and --set give their parameters (the solver's material parameters included)
 * are valid. A command that opens several sessions in turn
 * (compare: one per solver) checks them all first, so that a mistake in the last is not met after the
 * others ran. Builds nothing, calls no plugin.
 */
int eddy_sim_check_components(const eddy_scene *scene, eddy_registry *reg, eddy_error *err);

/* Releases everything. NULL-safe, idempotent. */
void eddy_sim_close(eddy_sim *sim);

/*
 * The step the host will take toward `t_target`: min(scene dt, the solver's max_dt, t_target - time), where a
 * moving collider's moving_until before t_target counts as the target, so that a step ends exactly where the
 * wall stops. Sets sim->dt_limit when the solver's limit applied, to the name given by the process whose
 * limit the step is (on a split run each process's max_dt names its own limit: the lowest rank of those whose
 * limit is the step's), the same on every process. A max_dt() that is not finite and > 0 (+inf means no
 * limit) is EDDY_ERR_PLUGIN: "solver 'ID' at step N: max_dt returned X; it must be finite and > 0", unless
 * the state explains a limit of 0: a speed whose square overflows a float ("the largest particle speed
 * overflows single precision ...") or an acceleration whose square does (eddy_world_stable_dt's force limit
 * named "acceleration overflow": "the largest particle acceleration overflows single precision ..."), both
 * EDDY_ERR_UNSTABLE. A limit too small to advance the clock is EDDY_ERR_PLUGIN too ("solver 'ID' at step N:
 * max_dt returned X s (NAME), too small to advance the clock from t = T s"), unless the largest speed
 * explains it (it crosses a smoothing radius within a thousand such limits): then the state is named, EDDY_ERR_UNSTABLE "at step N:
 * the largest particle speed, V sim units/s, makes the solver's NAME limit X s, too small to advance the
 * clock from t = T s (...); check the velocities the run starts from (...)". With EDDY_LOG=debug, says (the
 * first process) when the limit that sets dt changes: "eddy: dt: step N (t = T s): dt X s, set by the
 * solver's CFL limit (the scene's time.dt is Y s)", and "... dt Y s, the scene's time.dt again (the solver's
 * limits are above it)" when it no longer applies; a step shortened to land on an output time or a collider's
 * moving_until is not a change of limit. Collective on a split run: every process calls it for every step.
 */
int eddy_sim_next_dt(eddy_sim *sim, double t_target, double *dt, eddy_error *err);

/*
 * One solver step of dt, then the prescribed motion of the moving colliders (scene key
 * colliders[].moving_until: displaced by velocity * dt, stopped once the time reaches moving_until), then the
 * explosion guard on the step's one reduction (the solver's reduce() when it has one, stored with
 * eddy_world_set_step_stats, else the core's eddy_world_step_stats, which max_dt() reuses): a non-finite
 * position (naming the particle id), a NaN or infinite velocity, or a speed that crosses more than one
 * smoothing radius per step stops with EDDY_ERR_UNSTABLE naming the step, the time and the quantity, with the
 * hint of the Bullet-Fluids reference (2014) §1.1.3, "Explosions". The particles are not read by the host
 * here. A stop request already set (eddy_services_stop_flag) is EDDY_ERR_INTERRUPTED before the step, with
 * eddy_sim_run_plan's message, so that callers without a plan (eddy bench) stop too.
 */
int eddy_sim_step(eddy_sim *sim, double dt, eddy_error *err);

/*
 * How `eddy run`, `eddy resume` and `eddy compare` step a session, so that all three reach the same
 * states: toward the end (a step count, or a time), landing exactly on every multiple of the scene's
 * output interval (the time is snapped there, not left as a sum of dt), with callbacks after every
 * step and at every output frame.
 */
typedef struct eddy_sim_plan {
    long long end_steps;      /* >= 0: stop at this total step count; -1: at end_time */
    double end_time;          /* s, when end_steps < 0 */
    int next_frame;           /* index of the next output frame, at next_frame * output_interval;
                               * advanced by eddy_sim_run_plan */
    volatile const sig_atomic_t *stop; /* non-zero (a signal number): finish the step under way and
                                        * return EDDY_ERR_INTERRUPTED; may be NULL */
    void *user;
    /* After landing on frame `frame` (w->time exact); non-zero stops the run with that status. */
    int (*on_frame)(void *user, int frame, eddy_error *err);
    /* After every step (may be NULL): its wall time inside eddy_sim_step, for progress and timing. */
    void (*on_step)(void *user, double step_ms);
    /* Polled before every step (may be NULL): non-zero stops with EDDY_ERR_INTERRUPTED, "cancelled at
     * step N (t = T s)" (the session API's cancel, session.h). */
    int (*cancel)(void *user);
} eddy_sim_plan;

/* True when the session is at or past the plan's end. */
int eddy_sim_plan_done(const eddy_sim *sim, const eddy_sim_plan *plan);

/* Whether the clock `time` has reached `t` within round-off (1e-12 of t): k * interval can fall a few
 * ulps short of a time asked for as a decimal (30 * 0.0075 < 0.225), and the 3e-17 s step left would be
 * a "sliver" that a position-based solver turns into velocities of 1e11 m/s (v = dx / dt). Relative, not
 * in seconds: a scene on a nanosecond scale (an end of 1e-12 s) was taken as done before its first step.
 * The one rule for every target: the end of a run (eddy_sim_plan_done), advance_to, a collider's
 * moving_until, and whether a run folder's checkpoint stopped before its end. */
int eddy_sim_time_reached(double time, double t);

/* True when the world's clock is at output frame `frame`'s time, frame * output_interval, within the
 * relative round-off 1e-9 of the interval that the stepping lands on it with. */
int eddy_sim_at_frame(const eddy_sim *sim, int frame);

/*
 * Steps until the plan's end, an error, or a stop request. *last_on_frame (may be NULL) tells whether
 * the state it stops in is one on_frame saw (callers then need not write a final frame); it is 1 when
 * no step was taken.
 */
int eddy_sim_run_plan(eddy_sim *sim, eddy_sim_plan *plan, int *last_on_frame, eddy_error *err);

/* Whether a run can reach t_end (INFINITY: a run by steps, always) from the world's time: at least
 * (t_end - time) / time.dt steps, which beyond 2^53 neither the step counter's exactness nor any
 * machine's life covers (time.dt = 1e-300 s ran on with an ETA of ever). EDDY_ERR_INVALID_ARGUMENT
 * naming time.dt, the count and the end otherwise. eddy_sim_run_plan and eddy_sim_advance_to check it
 * first; `eddy run` checks it before it touches the output folder. */
int eddy_sim_check_end(const eddy_sim *sim, double t_end, eddy_error *err);

/* Steps until world->time reaches t_end exactly (sub-stepping as eddy_sim_next_dt says). */
int eddy_sim_advance_to(eddy_sim *sim, double t_end, eddy_error *err);

#endif /* EDDY_HOST_SIM_H */
