/*
 * host/drive/compare.h — `eddy compare`: one scene through several solvers, the same metrics for each.
 *
 *   eddy compare SCENE --solvers a,b,c [--out DIR] [--steps N | --until T] [--set key=value]...
 *                [--grid ID] [--threads N] [--quiet]
 *
 * Every solver gets the same initial particles (the scene's lattices are deterministic), the same
 * stepping as `eddy run` (the same output times, the same sub-steps, so a solver's states and
 * diagnostics equal those of `eddy run --solver ID`), and at every sample time (every
 * time.output_interval, and the last state) the diagnostics (diagnostics.h) and the scene's probes
 * (probes.h). It writes into DIR (default out/compare/<scene name>):
 *
 *   DIR/<solver>/diagnostics.csv   as `eddy run` writes it, one row per sample
 *   DIR/<solver>/probes.csv        time,step,<probe>... (when the scene declares probes)
 *   DIR/<solver>/frames/           the first and the last state (the scene's output.format), frames.pvd
 *   DIR/summary.md, summary.csv    per solver: status, steps, wall time per step, particle-steps per
 *                                  second, mean and max density error, largest compression, final
 *                                  kinetic energy, change of total mechanical energy and its largest
 *                                  rise above the start during the run, momentum drift (n/a in summary.md
 *                                  where momentum is not conserved), each probe's final value (n/a for a
 *                                  pressure the solver never set) and, for a probe with reference data,
 *                                  its RMS relative deviation
 *                                  from the reference (over 3 or more points after t = 0)
 *   DIR/plots/<metric>.png         each metric over time, every solver on one plot; a probe with
 *                                  reference data in the reference's units with its points as markers
 *
 * A solver that fails (unknown id, bad parameters, an explosion) is reported in the summary with its
 * error and the others still run; what it wrote before failing stays. The summary is rewritten after
 * every solver, so an interrupted comparison keeps the solvers already done. It writes no checkpoint.
 * docs/compare.md has more.
 */
#ifndef EDDY_HOST_COMPARE_H
#define EDDY_HOST_COMPARE_H

#include <stddef.h>

#include <eddy/eddy.h>

#define EDDY_COMPARE_MAX_SETS 256
#define EDDY_COMPARE_MAX_SOLVERS 64
#define EDDY_COMPARE_ID_MAX 64

/* The command line of `eddy compare`, as cli/compare_args.c parses it. */
typedef struct eddy_compare_options {
    const char *scene_path;
    /* In place of scene_path (NULL there), the scene's JSON text and the file name its messages and
     * relative paths go by (eddy_scene_parse; NULL: "scene.json"): the Python package's dict scenes. */
    const char *scene_text, *scene_name;
    char solvers[EDDY_COMPARE_MAX_SOLVERS][EDDY_COMPARE_ID_MAX];
    int solver_count;
    const char *grid;
    const char *out_dir;
    long long steps;          /* -1: by time */
    double until;             /* NAN: the scene's end */
    int threads;
    int quiet;
    int no_stdout; /* 1: the summary goes to summary.md only, not to stdout too (the Python package) */
    const char *sets[EDDY_COMPARE_MAX_SETS];
    size_t set_count;
    /* NULL: an error that stops the comparison before its first solver (the scene, its probes, the
     * output folder) is printed on stderr. Else it is put here, unprinted, for the caller to report
     * (the Python package raises it); its code is 0 when there was none. */
    eddy_error *setup_error;
    /* NULL: a registry made for the call and discovered as the command's is (<exe>/.., which in a
     * library caller is its interpreter's prefix). Else the caller's, with the plugin folders it
     * searches (the Python package's): used, not changed by discovery, and left to the caller. */
    eddy_registry *registry;
    /* The command line each solver's run.json records ("argv"); argc 0: not known (the Python package),
     * left out. */
    int argc;
    const char *const *argv;
} eddy_compare_options;

/*
 * Runs the comparison. Prints progress on stderr (unless quiet) and the summary table on stdout (unless
 * no_stdout).
 * Returns the exit status: 0 when every solver ran and every file was written; 1 when a solver or a
 * file failed (the rest still ran; the scene itself failing to load stops everything); 130 when
 * interrupted by SIGINT or SIGTERM (the current step finishes, the summary is written with the
 * solvers done).
 */
int eddy_compare_run(const eddy_compare_options *opt);

/*
 * The command (cli/compare_args.c): argc/argv are the whole command line, argv[1] "compare" (argv[2] is
 * the scene or an option). A bad command line is exit status 2 ("eddy: <message>" on stderr); otherwise
 * eddy_compare_run's status.
 */
int eddy_compare_main(int argc, char **argv);

#endif /* EDDY_HOST_COMPARE_H */
