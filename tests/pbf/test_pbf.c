/*
 * Validation of the pbf solver through the host's session layer (the path of `eddy run`). Each test
 * prints the figure it measured:
 *  - settled tank: mean density error (recomputed here from the positions, independently of the
 *    plugin's own sums) falls monotonically for 1, 2, 4, 8 iterations and is under 2% at 4;
 *  - 2D dam break against Martin & Moyce 1952 Table 2: RMS relative front error over 0.8 <= T <= 3.3
 *    under 15%, with no time shift;
 *  - vorticity confinement: a stirred box keeps more kinetic energy with it than without;
 *  - linear momentum in a wall-free periodic box (vorticity confinement off: it is an external force)
 *    is conserved to round-off;
 *  - identical state hash for 1 and 2 threads.
 */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <eddy/eddy.h>

#include "sim.h"

static char source_dir[4096];

static void open_file(const char *name, const char *const *sets, size_t nsets, size_t target, eddy_sim *sim)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/scenes/%s", source_dir, name);
    eddy_scene scene;
    eddy_error err;
    if (eddy_scene_load(path, sets, nsets, &scene, &err)) fail_msg("%s", err.message);
    eddy_sim_options o = {NULL, NULL, target, NULL};
    if (eddy_sim_open(&scene, &o, sim, &err)) fail_msg("%s", err.message);
}

static void open_text(const char *text, const char *const *sets, size_t nsets, eddy_sim *sim)
{
    eddy_scene scene;
    eddy_error err;
    if (eddy_scene_parse(text, "inline.json", sets, nsets, &scene, &err)) fail_msg("%s", err.message);
    if (eddy_sim_open(&scene, NULL, sim, &err)) fail_msg("%s", err.message);
}

static void advance(eddy_sim *sim, double t)
{
    eddy_error err;
    if (eddy_sim_advance_to(sim, t, &err)) fail_msg("%s", err.message);
}

/*
 * Poly6 density of every particle at its current position, with the walls' mirror images (the core's
 * eddy_boundaries_mirrors), summed here over the grid's cell ranges: an estimate independent of the
 * plugin's neighbor lists and loops. Rebuilds the grid (a reordering only). Writes rho[i].
 */
static void measure_density(eddy_world *w, double *rho)
{
    eddy_error err;
    if (eddy_world_build_grid(w, &err)) fail_msg("%s", err.message);
    const eddy_particles *p = &w->particles;
    const eddy_grid *g = &w->grid;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float zero[3] = {0, 0, 0};
    for (size_t i = 0; i < p->count; ++i) {
        const float xi[3] = {p->x[i], p->y[i], p->z[i]};
        eddy_range r[EDDY_MAX_CELL_RANGES];
        int nr = eddy_grid_cell_ranges(g, g->particle_cell[i], r);
        eddy_mirror m[EDDY_MAX_MIRRORS];
        int nm = eddy_boundaries_mirrors(&w->boundaries, zero, k.h, xi, m);
        double sum = 0.0;
        for (int q = 0; q < nr; ++q)
            for (uint32_t j = r[q].begin; j < r[q].end; ++j) {
                const float xj[3] = {p->x[j] + r[q].shift[0], p->y[j] + r[q].shift[1], p->z[j] + r[q].shift[2]};
                float d[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
                sum += p->mass[j] * eddy_poly6(&k, d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                for (int mi = 0; mi < nm; ++mi) {
                    float gp[3];
                    eddy_mirror_point(&m[mi], xj, gp);
                    float e[3] = {xi[0] - gp[0], xi[1] - gp[1], xi[2] - gp[2]};
                    sum += p->mass[j] * eddy_poly6(&k, e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
                }
            }
        rho[i] = sum;
    }
}

/* --- settled tank: density error against iterations ------------------------------------------- */

static const char *tank_scene =
    "{\"solver\": \"pbf\", \"dimensions\": 2,"
    " \"time\": {\"dt\": 0.001, \"end\": 2},"
    " \"world\": {\"gravity\": [0, -9.81], \"smoothing_radius\": 0.01},"
    " \"container\": {\"min\": [0, 0], \"max\": [0.2, 0.2]},"
    " \"materials\": [{\"name\": \"w\", \"rest_density\": 1000, \"particle_spacing\": 0.005}],"
    " \"fluids\": [{\"material\": \"w\", \"box\": {\"min\": [0, 0], \"max\": [0.2, 0.1]}}]}";

/*
 * Mean |rho / rho0 - 1| over the particles whose kernel support lies inside the fluid (more than h
 * below the free surface, whose level H is where the fluid's mass fills the tank at rest density),
 * averaged over 10 samples 0.05 s apart after 1.5 s of settling.
 */
static double tank_density_error(int iterations, double *signed_mean, double *vmax_out)
{
    char set[64];
    snprintf(set, sizeof set, "solvers.pbf.iterations=%d", iterations);
    const char *sets[] = {set};
    eddy_sim sim;
    open_text(tank_scene, sets, 1, &sim);
    eddy_world *w = sim.world;
    advance(&sim, 1.5);
    const eddy_particles *p = &w->particles;
    const double rho0 = w->materials[0].rest_density, h = w->smoothing_radius;
    const double width = w->boundaries.container_max[0] - w->boundaries.container_min[0];
    double mass = 0;
    for (size_t i = 0; i < p->count; ++i) mass += p->mass[i];
    const double H = mass / (rho0 * width);
    double *rho = malloc(sizeof(double) * p->count);
    double err_sum = 0.0, signed_sum = 0.0, vmax = 0.0;
    size_t samples = 0;
    for (int s = 0; s < 10; ++s) {
        advance(&sim, 1.5 + 0.05 * (s + 1));
        measure_density(w, rho);
        for (size_t i = 0; i < p->count; ++i) {
            double v = sqrt((double)p->vx[i] * p->vx[i] + (double)p->vy[i] * p->vy[i]);
            vmax = v > vmax ? v : vmax;
            if (p->y[i] > H - h) continue;
            err_sum += fabs(rho[i] / rho0 - 1.0);
            signed_sum += rho[i] / rho0 - 1.0;
            ++samples;
        }
    }
    free(rho);
    eddy_sim_close(&sim);
    *signed_mean = signed_sum / (double)samples;
    *vmax_out = vmax;
    return err_sum / (double)samples;
}

static void tank_density_error_vs_iterations(void **state)
{
    (void)state;
    const int its[4] = {1, 2, 4, 8};
    double e[4];
    printf("  settled 2D tank (0.2 m wide, 0.1 m deep, h = 0.01 m, dt = 1 ms), bulk particles:\n");
    printf("  iterations | mean |rho/rho0 - 1| | mean (rho/rho0 - 1) | max speed (m/s)\n");
    for (int k = 0; k < 4; ++k) {
        double sm, vmax;
        e[k] = tank_density_error(its[k], &sm, &vmax);
        printf("  %10d | %18.3f%% | %18.3f%% | %.4f\n", its[k], 100 * e[k], 100 * sm, vmax);
    }
    for (int k = 1; k < 4; ++k) assert_true(e[k] < e[k - 1]);
    assert_true(e[2] < 0.02);
}

/* --- dam break against Martin & Moyce 1952 ---------------------------------------------------- */

/* Martin & Moyce 1952, Table 2 (n^2 = 2): T = t sqrt(2 g / a), Z = x_front / a. The same values as
 * shared/validation/martin_moyce_1952_front.csv, which the test compares against when present. */
static const double mm_T[] = {0.41, 0.84, 1.19, 1.43, 1.63, 1.83, 1.98, 2.20, 2.32, 2.51, 2.65, 2.83, 2.98, 3.11, 3.33};
static const double mm_Z[] = {1.11, 1.22, 1.44, 1.67, 1.89, 2.11, 2.33, 2.56, 2.78, 3.00, 3.22, 3.44, 3.67, 3.89, 4.11};
enum { MM_COUNT = sizeof mm_T / sizeof mm_T[0] };

static void check_reference_file(void)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/../shared/validation/martin_moyce_1952_front.csv", source_dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("  (reference file %s not found; using the built-in copy of Table 2)\n", path);
        return;
    }
    char line[256];
    int k = 0;
    while (fgets(line, sizeof line, f)) {
        double T, Z;
        if (line[0] == '#' || sscanf(line, "%lf,%lf", &T, &Z) != 2 || T == 0.0) continue;
        assert_true(k < MM_COUNT);
        assert_true(fabs(T - mm_T[k]) < 1e-9 && fabs(Z - mm_Z[k]) < 1e-9);
        ++k;
    }
    fclose(f);
    assert_int_equal(k, MM_COUNT);
}

/* Front position Z(T) of the simulation, linearly interpolated in its samples (T_k = k dT). */
static double front_at(const double *Z, int n, double dT, double T)
{
    if (T <= 0) return Z[0];
    int k = (int)(T / dT);
    if (k >= n - 1) return Z[n - 1];
    double f = T / dT - k;
    return Z[k] + f * (Z[k + 1] - Z[k]);
}

/* RMS relative error over 0.8 <= T <= 3.3 with the simulation delayed by `shift` (Z_sim(T - shift)). */
static double front_rms(const double *Z, int n, double dT, double shift, int *points)
{
    double sum2 = 0.0;
    int m = 0;
    for (int k = 0; k < MM_COUNT; ++k) {
        if (mm_T[k] < 0.8 || mm_T[k] > 3.3) continue;
        double rel = front_at(Z, n, dT, mm_T[k] - shift) / mm_Z[k] - 1.0;
        sum2 += rel * rel;
        ++m;
    }
    *points = m;
    return sqrt(sum2 / m);
}

static void dam_break_front_martin_moyce(void **state)
{
    (void)state;
    check_reference_file();
    eddy_sim sim;
    open_file("pbf_dam_break_2d.json", NULL, 0, 0, &sim);
    const eddy_world *w = sim.world;
    const double a = 0.1, g = 9.81, scale = sqrt(2 * g / a), dT = 0.05;
    enum { SAMPLES = 70 }; /* T = 0 to 3.45 */
    double Z[SAMPLES];
    for (int k = 0; k < SAMPLES; ++k) {
        if (k) advance(&sim, k * dT / scale);
        double front = 0.0;
        for (size_t i = 0; i < w->particles.count; ++i)
            front = w->particles.x[i] > front ? w->particles.x[i] : front;
        Z[k] = front / a;
    }
    printf("  pbf_dam_break_2d, %zu particles (a = 0.1 m, 40 across a); front = largest x:\n"
           "      T   Z(M&M)   Z(pbf)   error\n", w->particles.count);
    for (int k = 0; k < MM_COUNT; ++k) {
        double Zs = front_at(Z, SAMPLES, dT, mm_T[k]);
        printf("   %.2f   %.2f     %.2f    %+6.1f%%%s\n", mm_T[k], mm_Z[k], Zs, 100 * (Zs / mm_Z[k] - 1),
               mm_T[k] >= 0.8 && mm_T[k] <= 3.3 ? "" : "  (outside 0.8 <= T <= 3.3)");
    }
    int n;
    double rms = front_rms(Z, SAMPLES, dT, 0.0, &n);
    /* For information: the delay of the simulation that fits best (the gate of the experiment took
     * time to open), searched over 0 <= shift <= 0.5. */
    double best = rms, best_shift = 0.0;
    for (int k = 1; k <= 50; ++k) {
        double e = front_rms(Z, SAMPLES, dT, 0.01 * k, &n);
        if (e < best) { best = e; best_shift = 0.01 * k; }
    }
    printf("  RMS relative front error over 0.8 <= T <= 3.3 (%d points): %.1f%% with no time shift "
           "(asserted < 15%%); best fit %.1f%% with the simulation delayed by dT = %.2f (not used)\n",
           n, 100 * rms, 100 * best, best_shift);
    assert_true(rms < 0.15);
    eddy_sim_close(&sim);
}

/* --- vorticity confinement ----------------------------------------------------------------------- */

static const char *box_scene =
    "{\"solver\": \"pbf\", \"dimensions\": 2,"
    " \"time\": {\"dt\": 0.001, \"end\": 2},"
    " \"world\": {\"gravity\": [0, 0], \"smoothing_radius\": 0.01},"
    " \"container\": {\"min\": [0, 0], \"max\": [0.2, 0.2]},"
    " \"materials\": [{\"name\": \"w\", \"rest_density\": 1000, \"particle_spacing\": 0.005}],"
    " \"fluids\": [{\"material\": \"w\", \"box\": {\"min\": [0, 0], \"max\": [0.2, 0.2]}}]}";

/* Kinetic energy after 0.5 s of a box full of fluid stirred into four counter-rotating cells
 * (u = U sin(2 pi x / L) cos(2 pi y / L), v = -U cos(2 pi x / L) sin(2 pi y / L), U = 0.5 m/s),
 * relative to the initial energy. */
static double stirred_energy(double epsilon)
{
    char set[64];
    snprintf(set, sizeof set, "solvers.pbf.vorticity_epsilon=%g", epsilon);
    const char *sets[] = {set};
    eddy_sim sim;
    open_text(box_scene, sets, 1, &sim);
    eddy_particles *p = &sim.world->particles;
    const double L = 0.2, U = 0.5, k = 2 * 3.14159265358979 / L;
    double e0 = 0.0;
    for (size_t i = 0; i < p->count; ++i) {
        p->vx[i] = (float)(U * sin(k * p->x[i]) * cos(k * p->y[i]));
        p->vy[i] = (float)(-U * cos(k * p->x[i]) * sin(k * p->y[i]));
        e0 += 0.5 * p->mass[i] * ((double)p->vx[i] * p->vx[i] + (double)p->vy[i] * p->vy[i]);
    }
    advance(&sim, 0.5);
    double e1 = 0.0;
    for (size_t i = 0; i < p->count; ++i)
        e1 += 0.5 * p->mass[i] * ((double)p->vx[i] * p->vx[i] + (double)p->vy[i] * p->vy[i]);
    eddy_sim_close(&sim);
    return e1 / e0;
}

static void vorticity_confinement_keeps_energy(void **state)
{
    (void)state;
    double off = stirred_energy(0.0), on = stirred_energy(0.01);
    printf("  stirred box, kinetic energy kept after 0.5 s: without confinement %.3f, with epsilon = 0.01 m/s "
           "%.3f (+%.1f%%)\n", off, on, 100 * (on / off - 1));
    /* The stated margin: at least 5% more energy kept. */
    assert_true(on > 1.05 * off);
    assert_true(on < 1.5); /* and no energy created from nothing */
}

/* --- momentum -------------------------------------------------------------------------------------- */

static double momentum_drift(double epsilon, double *ratio)
{
    const char *text =
        "{\"solver\": \"pbf\", \"dimensions\": 3,"
        " \"time\": {\"dt\": 0.002, \"end\": 1},"
        " \"world\": {\"gravity\": [0, 0, 0], \"smoothing_radius\": 0.04},"
        " \"domain\": {\"min\": [0, 0, 0], \"max\": [0.24, 0.24, 0.24], \"periodic\": [true, true, true]},"
        " \"materials\": [{\"name\": \"w\", \"particle_spacing\": 0.02}],"
        " \"fluids\": [{\"material\": \"w\", \"box\": {\"min\": [0, 0, 0], \"max\": [0.24, 0.24, 0.24]},"
        "   \"spacing_factor\": 0.95}]}";
    char set[64];
    snprintf(set, sizeof set, "solvers.pbf.vorticity_epsilon=%g", epsilon);
    const char *sets[] = {set};
    eddy_sim sim;
    open_text(text, sets, 1, &sim);
    eddy_particles *p = &sim.world->particles;
    uint32_t seed = 12345;
    for (size_t i = 0; i < p->count; ++i) {
        float *v[3] = {&p->vx[i], &p->vy[i], &p->vz[i]};
        for (int a = 0; a < 3; ++a) {
            seed = seed * 1664525u + 1013904223u;
            *v[a] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * 0.5f;
        }
    }
    const size_t n = p->count;
    double p0[3] = {0, 0, 0}, gross = 0.0;
    for (size_t i = 0; i < n; ++i) {
        p0[0] += (double)p->mass[i] * p->vx[i];
        p0[1] += (double)p->mass[i] * p->vy[i];
        p0[2] += (double)p->mass[i] * p->vz[i];
    }
    float *old = malloc(sizeof(float) * 3 * n);
    eddy_error err;
    for (int s = 0; s < 100; ++s) {
        for (size_t i = 0; i < n; ++i) {
            old[3 * p->id[i]] = p->vx[i];
            old[3 * p->id[i] + 1] = p->vy[i];
            old[3 * p->id[i] + 2] = p->vz[i];
        }
        if (eddy_sim_step(&sim, 0.002, &err)) fail_msg("%s", err.message);
        for (size_t i = 0; i < n; ++i) {
            uint32_t id = p->id[i];
            double dx = p->vx[i] - old[3 * id], dy = p->vy[i] - old[3 * id + 1], dz = p->vz[i] - old[3 * id + 2];
            gross += (double)p->mass[i] * sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    double p1[3] = {0, 0, 0};
    for (size_t i = 0; i < n; ++i) {
        p1[0] += (double)p->mass[i] * p->vx[i];
        p1[1] += (double)p->mass[i] * p->vy[i];
        p1[2] += (double)p->mass[i] * p->vz[i];
    }
    double drift = sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) +
                        (p1[2] - p0[2]) * (p1[2] - p0[2]));
    assert_int_equal(p->count, n);
    assert_true(gross > 0);
    free(old);
    eddy_sim_close(&sim);
    *ratio = drift / gross;
    return gross;
}

static void momentum_conserved_periodic(void **state)
{
    (void)state;
    double r_off, r_on;
    double gross = momentum_drift(0.0, &r_off);
    momentum_drift(0.01, &r_on);
    printf("  periodic box, no walls, 100 steps: |momentum change| / gross impulse = %.2e (gross %.3e); "
           "with vorticity confinement on (not momentum-conserving): %.2e\n", r_off, gross, r_on);
    assert_true(r_off < 1e-5);
}

/* --- determinism ----------------------------------------------------------------------------------- */

static uint64_t hash_after(int threads, int steps)
{
    omp_set_num_threads(threads);
    eddy_sim sim;
    open_file("pbf_dam_break_3d.json", NULL, 0, 6000, &sim);
    eddy_error err;
    for (int s = 0; s < steps; ++s)
        if (eddy_sim_step(&sim, 0.002, &err)) fail_msg("%s", err.message);
    uint64_t h;
    assert_int_equal(eddy_particles_hash(&sim.world->particles, &h, &err), 0);
    eddy_sim_close(&sim);
    return h;
}

static void same_hash_for_1_and_2_threads(void **state)
{
    (void)state;
    uint64_t h1 = hash_after(1, 60), h2 = hash_after(2, 60);
    printf("  pbf_dam_break_3d, 60 steps: hash 1 thread %016llx, 2 threads %016llx\n", (unsigned long long)h1,
           (unsigned long long)h2);
    assert_true(h1 == h2);
    assert_true(hash_after(2, 59) != h2);
}

/* test_pbf [NAME]: every test, or only the one called NAME (CTest runs them one by one). */
int main(int argc, char **argv)
{
    const char *src = getenv("EDDY_SOURCE_DIR");
    if (!src) {
        fprintf(stderr, "EDDY_SOURCE_DIR is not set (run through ctest)\n");
        return 1;
    }
    snprintf(source_dir, sizeof source_dir, "%s", src);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(momentum_conserved_periodic),
        cmocka_unit_test(same_hash_for_1_and_2_threads),
        cmocka_unit_test(vorticity_confinement_keeps_energy),
        cmocka_unit_test(dam_break_front_martin_moyce),
        cmocka_unit_test(tank_density_error_vs_iterations),
    };
    if (argc > 1) {
        for (size_t i = 0; i < sizeof tests / sizeof tests[0]; ++i)
            if (strcmp(tests[i].name, argv[1]) == 0) return _cmocka_run_group_tests(argv[1], &tests[i], 1, NULL, NULL);
        fprintf(stderr, "test_pbf: no test named '%s'\n", argv[1]);
        return 1;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
