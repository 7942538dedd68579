/*
 * bench_step_overhead: what the host spends per step outside the solver, on a world of N particles
 * (default 100k): the per-step check (largest speed, non-finite positions and velocities) and the time
 * step's CFL limit, as `eddy run` does them. Prints medians with ranges; never fails on a time.
 *
 *   bench_step_overhead [N] [REPEATS]
 *
 * ABI 1.0 scanned the velocities twice per step, serially (the host's eddy_world_max_speed, then
 * again inside max_dt's eddy_world_stable_dt). ABI 2.0 reduces once, in parallel, and caches the
 * result for the step (eddy_world_step_stats), so the max_dt that follows reads it. Each round below
 * is one step's worth of that work: the step counter moves, the cache is cold.
 */
#include <eddy/eddy.h>

#include <stdio.h>
#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 100000;
    const int repeats = argc > 2 ? atoi(argv[2]) : 101;
    if (n == 0 || repeats < 1) {
        fprintf(stderr, "usage: bench_step_overhead [N >= 1] [REPEATS >= 1]\n");
        return 2;
    }
    eddy_world *w = NULL;
    eddy_error err;
    if (eddy_world_create(3, &w, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    w->smoothing_radius = 0.02f;
    eddy_material m = eddy_default_material();
    snprintf(m.name, sizeof m.name, "water");
    m.particle_mass = 0.001f;
    eddy_real *pos = malloc(n * 3 * sizeof *pos), *vel = malloc(n * 3 * sizeof *vel);
    double *us = malloc((size_t)repeats * sizeof *us);
    if (!pos || !vel || !us) return fprintf(stderr, "out of memory\n"), 1;
    for (size_t i = 0; i < 3 * n; ++i) {
        pos[i] = (eddy_real)(i % 997) * 1e-3f;
        vel[i] = (eddy_real)((i * 7919) % 1000) * 1e-3f;
    }
    if (eddy_world_add_material(w, &m, &err) || eddy_world_add_particles(w, n, pos, vel, 0, &err))
        return fprintf(stderr, "%s\n", err.message), 1;

    enum { STEPS_PER_ROUND = 100 };
    volatile double sink = 0.0;
    for (int r = 0; r < repeats; ++r) {
        const double t0 = eddy_time_ms();
        for (int k = 0; k < STEPS_PER_ROUND; ++k) {
            w->step++; /* a new state: the cached reduction no longer applies */
            const eddy_step_stats *st = eddy_world_step_stats(w);   /* the host's check */
            sink += st->max_speed + (double)st->nonfinite_velocity;
            sink += eddy_world_stable_dt(w, 0.4, 31.6, 1e-4, 10.0, NULL); /* the solver's max_dt */
        }
        us[r] = (eddy_time_ms() - t0) / STEPS_PER_ROUND * 1000.0;
    }
    qsort(us, (size_t)repeats, sizeof *us, compare_doubles);
    printf("host overhead per step, %zu particles, %d threads: median %.1f us (range %.1f-%.1f, %d rounds "
           "of %d steps)\n", n, eddy_host_thread_count(eddy_host_silent()), us[repeats / 2], us[0],
           us[repeats - 1], repeats, STEPS_PER_ROUND);
    (void)sink;
    free(pos);
    free(vel);
    free(us);
    eddy_world_destroy(w);
    return 0;
}
