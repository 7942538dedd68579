/*
 * host/run.h — `eddy run`: load a scene, step it to the end, write frames, diagnostics and a picture.
 */
#ifndef EDDY_HOST_RUN_H
#define EDDY_HOST_RUN_H

#include <eddy/eddy.h>

typedef struct eddy_run_options {
    const char *scene_path;
    const char *solver;        /* --solver, NULL: the scene's */
    const char *grid;          /* --grid */
    const char *const *sets;   /* --set key=value */
    size_t set_count;
    const char *out_dir;       /* --out, NULL: the scene's output.dir */
    long long steps;           /* --steps N (>= 0), -1: run to the end time */
    double until;              /* --until T, NAN: the scene's end time */
    int threads;               /* --threads N, 0: scene / OpenMP default */
    int format_vtk, format_csv;/* --format, -1: the scene's */
    int hash;                  /* --hash: print "state-hash: <hex>" at the end */
    int picture;               /* write DIR/picture.png of the last frame */
    int quiet;                 /* no progress output */
} eddy_run_options;

/* Defaults: everything from the scene, picture on. */
eddy_run_options eddy_run_default_options(void);

/* Runs; on failure every frame already written stays, and err says what went wrong. */
int eddy_run(const eddy_run_options *opt, eddy_error *err);

/* Set by SIGINT/SIGTERM: the run finishes its step, writes the frame and stops. */
void eddy_run_install_signal_handlers(void);

#endif /* EDDY_HOST_RUN_H */
