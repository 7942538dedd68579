/*
 * host/drive/run.h — `eddy run` and `eddy resume`: step a scene to its end, writing frames, diagnostics, a
 * picture and checkpoints.
 *
 * Checkpoints (host/session/checkpoint.h): every run ends by writing DIR/checkpoint.eddy, when it reaches its
 * end and when SIGINT or SIGTERM stops it (the current step is finished first); with
 * --checkpoint-every T (or the scene's "checkpoint": {"every": T}) also at the first output frame at
 * or after every T seconds of simulated time. An exploded run writes none, so the last good one stays.
 * `eddy resume DIR` continues from it to the original end, or to a new --steps / --until (a finished
 * run can be extended); the final state is bit-identical to that of one uninterrupted run with the
 * same end, because the checkpoint holds every particle field, the clock, the colliders' motion and
 * the solver's own state, and the host's time stepping depends on nothing else.
 */
#ifndef EDDY_HOST_RUN_H
#define EDDY_HOST_RUN_H

#include <eddy/eddy.h>

#include "render.h"

typedef struct eddy_run_options {
    const char *scene_path;    /* run: the scene file */
    const char *resume_dir;    /* resume: the folder of the run to continue (its checkpoint.eddy) */
    const char *solver;        /* --solver, NULL: the scene's */
    const char *grid;          /* --grid */
    const char *const *sets;   /* --set key=value */
    size_t set_count;
    const char *out_dir;       /* --out, NULL: the scene's output.dir */
    long long steps;           /* --steps N (>= 0): total step count, -1: by time */
    double until;              /* --until T: total time, NAN: the scene's end time (resume: the run's) */
    double checkpoint_every;   /* --checkpoint-every T (> 0), NAN: the scene's (resume: the run's) */
    int threads;               /* --threads N, 0: scene / OpenMP default */
    const char *const *formats;/* --format: writer ids replacing output.format; NULL: the scene's */
    size_t format_count;
    eddy_registry *registry;   /* the command's registry (services.h; not owned); NULL: the run makes one */
    int hash;                  /* --hash: print "state-hash: <hex>" at the end */
    int picture;               /* write DIR/picture.png of the last frame */
    int overlap;               /* 0 (--no-overlap): frames written before the next step, not on the
                                * writer thread; 1: as the scene's output.overlap says */
    int quiet;                 /* no progress output */
    eddy_render_request render;/* --render, --movie, --render-field, --camera, --render-range,
                                * --render-width (run only: a resumed run renders as its run did) */
    int argc;                  /* the command line, for DIR/run.json (run_record.h); 0: not recorded */
    const char *const *argv;
} eddy_run_options;

/* Defaults: everything from the scene, picture on. */
eddy_run_options eddy_run_default_options(void);

/* Runs opt->scene_path; on failure every frame already written stays, and err says what went wrong.
 * An interrupted run returns EDDY_ERR_INTERRUPTED after writing its checkpoint. */
int eddy_run(const eddy_run_options *opt, eddy_error *err);

/* Continues the run in opt->resume_dir from its checkpoint (--steps / --until / --threads / --hash /
 * --quiet / --no-picture / --checkpoint-every apply; the scene, solver and grid are the run's). The
 * run's frames.pvd and diagnostics.csv keep what was written up to the checkpoint's last output frame
 * and continue from there. */
int eddy_resume(const eddy_run_options *opt, eddy_error *err);

/* Set by SIGINT/SIGTERM: the run finishes its step, writes the frame and a checkpoint, and stops. */
void eddy_run_install_signal_handlers(void);

struct eddy_sim;

/*
 * The steps the solver's stable-dt limit shortened below the scene's time.dt, said at the end of `eddy run`
 * and `eddy resume` (an INFO line) and in the report of `eddy compare`. A step counts when the limit set
 * its length, not when it was shortened to land on an output time, the run's end or a collider's
 * moving_until (which time.dt stepping does alike); a step halved before such a landing counts when
 * time.dt would have landed in one step. Every process steps alike (the step and the limit's name are
 * agreed), so every process's tally is the same.
 */
#define EDDY_DT_TALLY_LIMITS 4
typedef struct eddy_dt_tally {
    long long steps;          /* steps taken since eddy_dt_tally_begin */
    unsigned long long first_step; /* the world's step count then */
    long long limited;        /* of those, the ones a limit of the solver shortened */
    int count;                /* limits in limit[] */
    struct {
        char name[64];
        long long steps;
        double smallest;      /* the shortest of those steps, s */
        double longest;       /* the longest of them, s */
    } limit[EDDY_DT_TALLY_LIMITS];
} eddy_dt_tally;

void eddy_dt_tally_begin(eddy_dt_tally *t, const struct eddy_sim *sim);
/* After each step (a plan's on_step). Returns 1 when the limit set this step's length (sim->dt_limited,
 * decided by eddy_sim_next_dt), else 0. */
int eddy_dt_tally_step(eddy_dt_tally *t, const struct eddy_sim *sim);
/* After the plan: a step that was taken but then failed its checks (the
 * explosion guard, a particle that left the domain) had no on_step, and counts too: a split run finds a
 * particle that left the domain after the step that one process finds in the next step's grid build, and
 * both took the same steps. */
void eddy_dt_tally_finish(eddy_dt_tally *t, const struct eddy_sim *sim);
/* "N of M steps were shorter than time.dt = X s, limited by the solver's CFL limit (shortest step Y s,
 * longest Z s)" (run), or for compare's report "steps below the scene's X s under its CFL limit (Y to Z
 * s): N of M steps"; the longest where it shows apart from the shortest (a step halved to land on an
 * output time is often the shortest); several limits each with its count. The figures have enough digits
 * to differ from time.dt. Empty when no step was limited. */
void eddy_dt_tally_describe(const eddy_dt_tally *t, double scene_dt, int report, char *out, size_t size);

#endif /* EDDY_HOST_RUN_H */
