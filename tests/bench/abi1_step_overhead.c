/*
 * The ABI 1.0 counterpart of bench_step_overhead, kept to reproduce the comparison in
 * docs/performance.md ("ABI 2.0: what the move cost and saved"). Not built by CMake: it needs the
 * headers and the libeddy of the last ABI 1.0 commit (0e7d1bd):
 *
 *   git worktree add /tmp/eddy-1.0 0e7d1bd && cmake -S /tmp/eddy-1.0 -B /tmp/eddy-1.0/build \
 *       && cmake --build /tmp/eddy-1.0/build -j2 --target eddy
 *   gcc -O2 -I/tmp/eddy-1.0/core/include tests/bench/abi1_step_overhead.c -o /tmp/abi1_step_overhead \
 *       -L/tmp/eddy-1.0/build/lib -leddy -Wl,-rpath,/tmp/eddy-1.0/build/lib
 *   OMP_NUM_THREADS=2 /tmp/abi1_step_overhead     # interleave with build/bin/bench_step_overhead
 *
 * The work per step is what the 1.0 host did: its post-step scan (eddy_world_max_speed) and the one
 * inside max_dt (eddy_world_stable_dt), both serial, on the same 100k-particle world as the 2.0 bench.
 */
#include <eddy/eddy.h>

#include <stdio.h>
#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    enum { ROUNDS = 101, STEPS_PER_ROUND = 100 };
    const size_t n = 100000;
    eddy_world *w = NULL;
    eddy_error err;
    if (eddy_world_create(3, &w, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    w->smoothing_radius = 0.02f;
    eddy_material m = {0};
    snprintf(m.name, sizeof m.name, "water");
    m.rest_density = 1000;
    m.particle_mass = 0.001f;
    m.initial_sum = 1;
    m.stiffness = 1000;
    m.viscosity = 0.1f;
    m.contact.radius = 0.005f;
    m.contact.margin = 0.001f;
    m.contact.erp = 0.2f;
    if (eddy_world_add_material(w, &m, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    float *pos = malloc(n * 3 * sizeof *pos), *vel = malloc(n * 3 * sizeof *vel);
    if (!pos || !vel) return fprintf(stderr, "out of memory\n"), 1;
    for (size_t i = 0; i < 3 * n; ++i) {
        pos[i] = (float)(i % 997) * 1e-3f;
        vel[i] = (float)((i * 7919) % 1000) * 1e-3f;
    }
    if (eddy_world_add_particles(w, n, pos, vel, 0, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    double us[ROUNDS];
    volatile double sink = 0.0;
    for (int r = 0; r < ROUNDS; ++r) {
        const double t0 = eddy_time_ms();
        for (int k = 0; k < STEPS_PER_ROUND; ++k) {
            sink += eddy_world_max_speed(w);
            sink += eddy_world_stable_dt(w, 0.4, 31.6, 1e-4, 10.0, NULL);
        }
        us[r] = (eddy_time_ms() - t0) / STEPS_PER_ROUND * 1000.0;
    }
    qsort(us, ROUNDS, sizeof *us, compare_doubles);
    printf("ABI 1.0 host overhead per step, %zu particles: median %.1f us (range %.1f-%.1f, %d rounds of %d "
           "steps)\n", n, us[ROUNDS / 2], us[0], us[ROUNDS - 1], ROUNDS, STEPS_PER_ROUND);
    (void)sink;
    free(pos);
    free(vel);
    eddy_world_destroy(w);
    return 0;
}
