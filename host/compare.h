/*
 * host/compare.h — `eddy compare`: one scene through several solvers, the same metrics for each.
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
 *                                  second, mean and max density error, final kinetic energy, momentum
 *                                  drift, each probe's final value and, for a probe with reference data,
 *                                  its RMS relative deviation from the reference
 *   DIR/plots/<metric>.png         each metric over time, every solver on one plot; a probe with
 *                                  reference data in the reference's units with its points as markers
 *
 * A solver that fails (unknown id, bad parameters, an explosion) is reported in the summary with its
 * error and the others still run; what it wrote before failing stays. The summary is rewritten after
 * every solver, so an interrupted comparison keeps the solvers already done. docs/compare.md has more.
 */
#ifndef EDDY_HOST_COMPARE_H
#define EDDY_HOST_COMPARE_H

/*
 * The command: argc/argv are the arguments after "compare" (argv[0] is the scene or an option).
 * Prints progress on stderr (unless --quiet) and the summary table on stdout. Returns the exit status:
 * 0 when every solver ran and every file was written; 1 when a solver or a file failed (the rest still
 * ran; the scene itself failing to load stops everything); 2 for a bad command line ("eddy: <message>"
 * on stderr); 130 when interrupted by SIGINT or SIGTERM (the current step finishes, the summary is
 * written with the solvers done).
 */
int eddy_compare_main(int argc, char **argv);

#endif /* EDDY_HOST_COMPARE_H */
