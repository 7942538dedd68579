/*
 * host/drive/validate.h — `eddy validate`: the validation cases run against any solver of the
 * registry, each measured against its published reference and judged by its bar.
 *
 *   eddy validate [--solver ID]... [--case NAME]... [--resolution coarse|medium|fine[,...]]
 *                 [--set key=value]... [--out DIR] [--cases DIR] [--threads N] [--list] [--quiet]
 *
 * A case (validation/cases/<name>.json, installed to <prefix>/share/eddy/validation) is data: a scene,
 * the scene's overrides per resolution, an initial condition, and checks; a check is a measure taken
 * on the frames (a scene probe, a bulk pressure fit, a velocity profile, a mode amplitude, ...), a
 * reference (a CSV file with its citation, or a value), an error measure and a bar. Adding a case
 * needs no C code. docs/validation.md documents the format.
 *
 * Which cases a solver supports, and which it is expected to miss, is the solver's data too: a
 * validation file beside its plugin (eddy_<plugin>.validation.json next to eddy_<plugin>.so, found
 * wherever the registry found the plugin), with per case the expectation ("pass" or "miss" and why)
 * and the scene overrides the solver needs (its sound speed, its wall method). A third-party plugin
 * ships one the same way.
 *
 * It writes into DIR (default out/validate):
 *   DIR/report.md, DIR/report.csv           per case, solver, resolution and check: the error, the
 *                                            bar, the expectation, pass/fail, the wall time; the
 *                                            observed order of convergence where a case ran at
 *                                            several resolutions
 *   DIR/<case>/<solver>/<resolution>/       series.csv (the measured values) and <check>.png (the
 *                                            measured curve over the reference points)
 */
#ifndef EDDY_HOST_VALIDATE_H
#define EDDY_HOST_VALIDATE_H

#include <stddef.h>

#include <eddy/eddy.h>

#define EDDY_VALIDATE_MAX 64
#define EDDY_VALIDATE_MAX_SETS 256

/* The command line, as cli/validate_args.c parses it. */
typedef struct eddy_validate_options {
    const char *solvers[EDDY_VALIDATE_MAX];   /* --solver; none: every solver with a validation file */
    int solver_count;
    const char *cases[EDDY_VALIDATE_MAX];     /* --case; none: every case the solver declares */
    int case_count;
    const char *resolutions[3];               /* --resolution; none: medium */
    int resolution_count;
    const char *sets[EDDY_VALIDATE_MAX_SETS]; /* --set, applied to every case's scene after its own */
    size_t set_count;
    const char *out_dir;                      /* --out; NULL: out/validate */
    const char *cases_dir;                    /* --cases; NULL: $EDDY_VALIDATION_DIR or the installed */
    int threads;                              /* --threads; 0: OpenMP's default */
    int list;                                 /* --list: print the cases and the solvers' claims */
    int quiet;
} eddy_validate_options;

/*
 * Runs the cases. Returns the exit status: 0 when every check a solver claims to pass passed (checks
 * it is expected to miss, or that no solver data claims, are reported but never fail); 1 when a
 * claimed check missed its bar, a claimed case failed to run, or a file could not be written; 130
 * when interrupted.
 */
int eddy_validate_run(const eddy_validate_options *opt);

/* The command (cli/validate_args.c): the arguments after "validate". A bad command line is exit
 * status 2 ("eddy: <message>" on stderr); otherwise eddy_validate_run's status. */
int eddy_validate_main(int argc, char **argv);

/*
 * The thin vortex ring of the vortex_ring case: radius R and circulation G in the plane z = 0, moving
 * along +z, a Gaussian core exp(-s^2 / ap^2) sampled on a square lattice of spacing dl in every
 * meridian section out to 2.5 ap, with 2 pi R / dl sections; each particle's vorticity along the
 * azimuth, normalised so that every section carries G, and its volume dl^2 r dphi. Returns the
 * particle count and three arrays allocated with malloc (3n positions, n volumes, 3n vorticities;
 * the caller frees them), or 0 when out of memory. Pure; any thread.
 */
size_t eddy_validate_ring_particles(double R, double G, double ap, double dl, eddy_real **pos, double **V,
                                    eddy_real **w);

#endif /* EDDY_HOST_VALIDATE_H */
