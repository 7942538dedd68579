/*
 * host/drive/compare_internal.h — what the two halves of `eddy compare` share: compare.c runs every
 * solver on the scene and samples it (the result of each), compare_report.c turns the results into
 * the summary (CSV, Markdown, the table on stdout) and the plots.
 */
#ifndef EDDY_COMPARE_INTERNAL_H
#define EDDY_COMPARE_INTERNAL_H

#include "compare.h"

#include <stdint.h>
#include <stdio.h>

#include "energy_watch.h"
#include "probes.h"

#define MAX_SOLVERS EDDY_COMPARE_MAX_SOLVERS
#define ID_MAX EDDY_COMPARE_ID_MAX
#define PATH_MAX_ 4200

/* The command line, parsed by cli/ (compare_args.c). */
typedef eddy_compare_options options;

/* ------------------------------------------------------------------------------------------------ */
/* Per-solver results                                                                                */
/* ------------------------------------------------------------------------------------------------ */

/* COL_EP: potential energy (diagnostics.h); COL_MASS: the total mass, which scales the floor's energy;
 * COL_CMAX: the largest compression rho / rho0 - 1 over particles (0 with none compressed). */
enum { COL_KE, COL_PX, COL_PY, COL_PZ, COL_DEM, COL_DMAX, COL_VMAX, COL_EP, COL_MASS, COL_CMAX, COL_DP99, COL_COUNT };

typedef struct result {
    char id[ID_MAX];
    int ran;                      /* the session opened */
    int failed;
    int interrupted;              /* failed by SIGINT / SIGTERM */
    char error[EDDY_ERROR_MESSAGE_MAX];
    size_t particles;
    uint64_t steps;
    double step_ms;               /* wall time inside eddy_sim_step */
    double end_time;
    char settings[1024];          /* the solver's parameters as it ran ("cfl = 0.4, ..."), for summary.md */
    char stepping[512];           /* its time step: the scene's, or the smaller one its stable-dt limit took */
    /* Some particle's pressure was not 0 at some sample. Nothing in the plugin ABI says which fields a
     * solver fills; pressure is zero-filled when the particles are made and a method without a pressure
     * (pbf, position-based) never writes it, so a field still 0 everywhere at every sample is one the
     * solver did not provide, and the pressure probes' figures are n/a rather than a measured 0 Pa. */
    int pressure_seen;
    /* E_k + E_p over the samples by the rule eddy run warns by: a run that made energy is not "ok". */
    eddy_energy_watch energy;
    size_t n, cap;                /* samples */
    double *t, *col[COL_COUNT], *probe;   /* probe: n x probe_count */
} result;

/* The comparison: options, probes, registry, output folder and the sampling. */
typedef struct context {
    const options *opt;
    eddy_probes *probes;
    eddy_registry *registry;
    char out_dir[PATH_MAX_];
    char scene_name[EDDY_SCENE_ID_MAX];
    double end_time;
    double interval;
    size_t particles;
    int dimensions;
    /* g . x_floor, x_floor the corner of the container (of the domain without one) lowest along gravity,
     * sim units: E(0) + M g . x_floor is the mechanical energy above that floor, the scale of the
     * relative energy change (independent of where the coordinates' origin is). */
    double g_dot_floor;
    /* Why the momentum drift means nothing for this scene ("gravity", "walls", "colliders"); "" when
     * momentum is conserved (no gravity, every bounded axis periodic, no collider). */
    char momentum_na[32];
    /* The resolution a study varies (world units): the first material's lattice spacing and the
     * smoothing radius, and how many materials have a spacing of their own. */
    double spacing, smoothing_radius;
    size_t materials;
    /* Per solver, in the options' order: 1 where its folder held a finished run (eddy_run_folder_check),
     * which its run clears as `eddy run` does. */
    const int *holds_run;
} context;

/* The plots drawn so far (compare_draw_plots): one per metric and one per probe, as many as the scene
 * declares probes (a fixed table dropped the plots past it without a word). */
typedef struct plotter {
    const context *cx;
    const result *res;
    int count;
    char (*names)[96];            /* relative to the output folder; `capacity` of them */
    const char **list;            /* the plots written, for the summary's links */
    int capacity;
    int plot_count;
    int failures;
    eddy_error first_error;
} plotter;

/* summary.csv and summary.md in the output folder, over the first `count` results (written after every
 * solver, so that an interrupted comparison keeps what it has); `plots` are the plot files to link. */
int compare_write_summary_csv(const context *cx, const result *res, int count, eddy_error *err);
int compare_write_summary_md(const context *cx, const result *res, int count, const char *const *plots,
                             int plot_count, eddy_error *err);
/* The Markdown summary to a stream (stdout at the end of the command). */
void compare_summary_md(FILE *f, const context *cx, const result *res, int count, const char *const *plots,
                        int plot_count);
/* Every metric and probe of every solver on one plot each, into <out>/plots/; compare_free_plots()
 * frees the names once the summary has linked them. */
void compare_draw_plots(plotter *pl);
void compare_free_plots(plotter *pl);

#endif /* EDDY_COMPARE_INTERNAL_H */
