/*
 * host/drive/bench.h — `eddy bench`: the median speed of a solver on a scene refilled at about N particles.
 */
#ifndef EDDY_HOST_BENCH_H
#define EDDY_HOST_BENCH_H

#include <eddy/eddy.h>

typedef struct eddy_bench_options {
    const char *scene_path;
    const char *solver;      /* NULL: the scene's */
    const char *grid;        /* NULL: the scene's */
    size_t particles;        /* 0: the scene as it is */
    int steps;               /* steps per repeat (default 20) */
    int repeats;             /* repeats, the median is reported with the fastest and slowest (default 5) */
    int warmup;              /* steps before timing (default 10) */
    int threads;             /* --threads; 0: the scene's world.threads, else OpenMP's default */
    double at;               /* --at: first step as `eddy run` does to this simulated time (s), after the
                              * refill; 0: bench the state as built (or as resumed) */
    const char *from;        /* --from: a run folder whose checkpoint.eddy is benched instead of the
                              * scene (its solver and grid; no refill, no --set); NULL: the scene */
    eddy_registry *registry; /* the command's registry (not owned); NULL: the session makes one */
    const char *const *sets;
    size_t set_count;
} eddy_bench_options;

/* Runs the benchmark and prints the human-readable figures and one machine-readable line
 * ("bench: key=value ...", new keys appended at its end) to stdout; a note among the figures when the
 * machine's 1-minute load average exceeded the threads of the bench as it started (never an error). */
int eddy_bench_run(const eddy_bench_options *opt, eddy_error *err);

#endif /* EDDY_HOST_BENCH_H */
