#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int eddy_bench_run(const eddy_bench_options *opt, eddy_error *err)
{
    int steps = opt->steps > 0 ? opt->steps : 20;
    int repeats = opt->repeats > 0 ? opt->repeats : 5;
    int warmup = opt->warmup >= 0 ? opt->warmup : 10;
    eddy_session_options so = eddy_session_default_options();
    so.scene_path = opt->scene_path;
    so.sets = opt->sets;
    so.set_count = opt->set_count;
    so.solver = opt->solver;
    so.grid = opt->grid;
    so.particle_target = opt->particles;
    so.threads = opt->threads;
    so.registry = opt->registry;
    eddy_session *ses;
    int rc = eddy_session_open(&so, &ses, err);
    if (rc) return rc;
    eddy_sim *simp = eddy_session_sim(ses);
    eddy_world *w = simp->world;
    /* A fixed dt keeps the repeats comparable; the solver's limit still caps it for stability. */
    double dt;
    if ((rc = eddy_sim_next_dt(simp, 1e30, &dt, err))) goto done;
    for (int s = 0; s < warmup && !rc; ++s) rc = eddy_sim_step(simp, dt, err);
    if (rc) goto done;

    double *wall = calloc((size_t)repeats, sizeof(double));
    double *phase[EDDY_PHASE_COUNT];
    for (int k = 0; k < EDDY_PHASE_COUNT; ++k) phase[k] = calloc((size_t)repeats, sizeof(double));
    for (int r = 0; r < repeats && !rc; ++r) {
        double before[EDDY_PHASE_COUNT];
        memcpy(before, w->phase_ms, sizeof before);
        double t0 = eddy_time_ms();
        for (int s = 0; s < steps && !rc; ++s) rc = eddy_sim_step(simp, dt, err);
        wall[r] = (eddy_time_ms() - t0) / steps;
        for (int k = 0; k < EDDY_PHASE_COUNT; ++k) phase[k][r] = (w->phase_ms[k] - before[k]) / steps;
    }
    /* The figures read the particles (the neighbour count): the host copy first. */
    if (!rc) rc = eddy_world_sync_host(w, err);
    if (!rc) {
        size_t n = w->particles.count - w->particles.halo_count;
        double ms = median(wall, repeats);
        double med[EDDY_PHASE_COUNT];
        for (int k = 0; k < EDDY_PHASE_COUNT; ++k) med[k] = median(phase[k], repeats);
        double rate = (double)n / (ms * 1e-3);
        double neighbors = eddy_grid_mean_neighbors(&w->grid, &w->particles, w->smoothing_radius);
        int threads = simp->threads;
        const char *solver = simp->solver_entry->component->id, *grid = simp->grid_entry->component->id;
        printf("eddy bench: %s, solver %s, grid %s, %zu particles, %d threads, dt %.3g s\n",
               simp->scene.name, solver, grid, n, threads, dt);
        printf("  %.2e particle-steps/s  (%.3f us per particle-step), median of %d x %d steps\n", rate,
               1e3 * ms / (double)n, repeats, steps);
        printf("  neighbors per particle: %.1f (within h, self excluded)\n", neighbors);
        printf("  ms per step: grid %.3f  density %.3f  forces %.3f  integration %.3f  total %.3f\n",
               med[EDDY_PHASE_GRID], med[EDDY_PHASE_DENSITY], med[EDDY_PHASE_FORCES],
               med[EDDY_PHASE_INTEGRATE], ms);
        printf("  grid build: %.1f ns per particle\n", 1e6 * med[EDDY_PHASE_GRID] / (double)n);
        printf("bench: scene=%s solver=%s grid=%s particles=%zu threads=%d steps=%d repeats=%d "
               "particle_steps_per_s=%.4e ns_per_particle_step=%.2f neighbors=%.2f grid_ms=%.4f "
               "density_ms=%.4f forces_ms=%.4f integration_ms=%.4f step_ms=%.4f grid_ns_per_particle=%.2f\n",
               simp->scene.name, solver, grid, n, threads, steps, repeats, rate, 1e6 * ms / (double)n,
               neighbors, med[EDDY_PHASE_GRID], med[EDDY_PHASE_DENSITY], med[EDDY_PHASE_FORCES],
               med[EDDY_PHASE_INTEGRATE], ms, 1e6 * med[EDDY_PHASE_GRID] / (double)n);
    }
    free(wall);
    for (int k = 0; k < EDDY_PHASE_COUNT; ++k) free(phase[k]);
done:
    eddy_session_close(ses);
    return rc;
}
