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

#endif /* EDDY_HOST_RUN_H */
