/*
 * The energies of the diagnostics (host/observe/diagnostics.h): E_p = -sum m (g . x) against values
 * worked out here by hand (dyadic numbers, so the sums are exact and compared with ==), and the packed
 * partials of a split (what a run on several processes adds up, docs/mpi.md) giving the whole world's
 * diagnostics bit for bit, the new sum included.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <eddy/eddy.h>

#include "diagnostics.h"
#include "energy_watch.h"
#include "frame.h"
#include "sim.h"
#include "sim_support.h"

/* Two particles of masses 2 and 3 under a gravity with two non-zero components. */
static void potential_energy_by_hand(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(3, &w, &err), EDDY_OK);
    eddy_material a = support_material("a", 1000.0f, 2.0f), b = support_material("b", 500.0f, 3.0f);
    assert_int_equal(eddy_world_add_material(w, &a, &err), EDDY_OK);
    assert_int_equal(eddy_world_add_material(w, &b, &err), EDDY_OK);
    w->gravity[0] = 0.0f;
    w->gravity[1] = -8.0f;
    w->gravity[2] = 2.0f;
    const float pos[6] = {0.5f, 1.25f, -2.0f, -1.0f, 3.0f, 0.75f};
    const float v1[3] = {1, 2, 3}, v2[3] = {-1, 0, 0.5f};
    assert_int_equal(eddy_particles_add(&w->particles, 1, pos, v1, 0, NULL, &err), EDDY_OK);
    assert_int_equal(eddy_particles_add(&w->particles, 1, pos + 3, v2, 1, NULL, &err), EDDY_OK);
    eddy_diagnostics d;
    assert_int_equal(eddy_diagnostics_compute(w, &d, &err), EDDY_OK);
    /* g . x = -8 * 1.25 + 2 * -2 = -14 and -8 * 3 + 2 * 0.75 = -22.5: E_p = 2 * 14 + 3 * 22.5 = 95.5;
     * E_k = 0.5 * 2 * 14 + 0.5 * 3 * 1.25 = 15.875. */
    assert_true(d.potential_energy == 95.5);
    assert_true(d.kinetic_energy == 15.875);
    assert_true(d.total_energy == 111.375);

    /* Every particle 1 higher in y: E_p grows by M |g_y| = 5 * 8. */
    for (size_t i = 0; i < 2; ++i) w->particles.y[i] += 1.0f;
    assert_int_equal(eddy_diagnostics_compute(w, &d, &err), EDDY_OK);
    assert_true(d.potential_energy == 95.5 + 5.0 * 8.0);

    /* No gravity: no potential energy, the total is the kinetic energy. */
    memset(w->gravity, 0, sizeof w->gravity);
    assert_int_equal(eddy_diagnostics_compute(w, &d, &err), EDDY_OK);
    assert_true(d.potential_energy == 0.0 && d.total_energy == d.kinetic_energy);
    eddy_world_destroy(w);
}

/* A frame over the owned particles order[first..first+count) (already in increasing id order). */
static eddy_frame part_of(const eddy_world *w, const uint32_t *order, size_t first, size_t count)
{
    eddy_frame f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.world = w;
    f.count = count;
    f.order = order + first;
    return f;
}

/*
 * 1000 particles at pseudo-random positions and velocities (values of every magnitude, so that a sum
 * rounded per part would differ): the whole, and three parts packed, their words added as an integer
 * MPI_SUM adds them and their maxima combined, give the same diagnostics bit for bit.
 */
static void split_partials_equal_the_whole(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(2, &w, &err), EDDY_OK);
    eddy_material a = support_material("a", 1000.0f, 0.00625f);
    assert_int_equal(eddy_world_add_material(w, &a, &err), EDDY_OK);
    w->gravity[1] = -9.81f;
    enum { N = 1000 };
    static float pos[3 * N], vel[3 * N];
    uint32_t s = 2024;
    for (size_t i = 0; i < 3 * N; ++i) {
        s = s * 1664525u + 1013904223u;
        const double u = (double)(s >> 8) / (double)(1u << 24);
        pos[i] = i % 3 == 2 ? 0.0f : (float)(ldexp(u, (int)(i % 7)) - 3.0);
        vel[i] = i % 3 == 2 ? 0.0f : (float)((u - 0.5) * 7.0);
    }
    assert_int_equal(eddy_particles_add(&w->particles, N, pos, vel, 0, NULL, &err), EDDY_OK);
    for (size_t i = 0; i < N; ++i) w->particles.density[i] = 900.0f + (float)(i % 200);

    eddy_frame whole_frame;
    assert_int_equal(eddy_frame_of_host_copy(w, 0, &whole_frame, &err), EDDY_OK);
    eddy_diagnostics whole;
    assert_int_equal(eddy_diagnostics_of_frame(&whole_frame, &whole, &err), EDDY_OK);
    assert_true(whole.potential_energy != 0.0);

    int64_t total[EDDY_DIAGNOSTICS_SUM_WORDS] = {0};
    double maxima[EDDY_DIAGNOSTICS_MAX_VALUES] = {0};
    const size_t cut[4] = {0, 137, 600, N};
    for (int part = 0; part < 3; ++part) {
        eddy_frame f = part_of(w, whole_frame.order, cut[part], cut[part + 1] - cut[part]);
        eddy_diagnostics_partial p;
        assert_int_equal(eddy_diagnostics_partial_of_frame(&f, &p, &err), EDDY_OK);
        int64_t words[EDDY_DIAGNOSTICS_SUM_WORDS];
        double m[EDDY_DIAGNOSTICS_MAX_VALUES];
        eddy_diagnostics_pack(&p, words, m);
        for (size_t k = 0; k < EDDY_DIAGNOSTICS_SUM_WORDS; ++k) total[k] += words[k];
        for (size_t k = 0; k < EDDY_DIAGNOSTICS_MAX_VALUES; ++k) maxima[k] = fmax(maxima[k], m[k]);
    }
    eddy_diagnostics_partial sum;
    eddy_diagnostics_unpack(&sum, total, maxima);
    eddy_diagnostics joined;
    eddy_diagnostics_finish(&sum, &joined);
    /* (the percentile is no sum of partials: a split run selects it collectively, which test_output's
     * density_error_quantile checks with the counts of two copies, and tests/mpi across processes) */
    assert_true(joined.density_error_p99 == 0.0 && whole.density_error_p99 > 0.0);
    joined.density_error_p99 = whole.density_error_p99;
    assert_memory_equal(&whole, &joined, sizeof whole);

    /* The second computation: the terms summed here in long double, as close as that gets. */
    long double ep = 0;
    const long double m = w->materials[0].particle_mass, gy = w->gravity[1];
    for (size_t i = 0; i < N; ++i) ep -= m * gy * (long double)w->particles.y[i];
    assert_true(fabs(whole.potential_energy - (double)ep) <= 1e-12 * fabs((double)ep));
    eddy_frame_release(&whole_frame);
    eddy_world_destroy(w);
}

/* The energy watch (host/drive/energy_watch.h) on made-up diagnostics: a 2D tank whose floor is at y = 0,
 * so the energy above the floor at the start is E(0) itself (E_p of mass above y = 0). A rise of more
 * than half of it is a run that made energy; one that then loses a particle (out_of_domain "remove")
 * still made it, where the watch once forgot the rise and the run read "ok". */
static void watch_keeps_a_rise_after_a_removal(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_sim sim;
    memset(&sim, 0, sizeof sim);
    assert_int_equal(eddy_world_create(2, &sim.world, &err), EDDY_OK);
    sim.scene.dimensions = 2;
    sim.scene.has_container = 1;
    sim.scene.simulation_scale = 1.0f;
    sim.scene.gravity[1] = -9.81f;
    sim.scene.container_max[0] = sim.scene.container_max[1] = 1.0f;
    eddy_diagnostics d;
    memset(&d, 0, sizeof d);
    d.particles = 100;
    d.mass = 10.0;
    d.total_energy = 20.0; /* above the floor: 20 + 10 * (g . 0) = 20 */
    eddy_energy_watch ew;
    memset(&ew, 0, sizeof ew);
    eddy_energy_watch_frame(&ew, &sim, &d, 0.0);
    d.total_energy = 29.0; /* +9: 0.45 of 20, under the rule's half */
    eddy_energy_watch_frame(&ew, &sim, &d, 0.1);
    assert_false(eddy_energy_watch_made(&ew));
    d.total_energy = 35.0; /* +15: 0.75 */
    eddy_energy_watch_frame(&ew, &sim, &d, 0.2);
    assert_true(eddy_energy_watch_made(&ew));
    d.particles = 99; /* one removed, its energy gone with it */
    d.total_energy = 12.0;
    eddy_energy_watch_frame(&ew, &sim, &d, 0.3);
    assert_true(eddy_energy_watch_made(&ew));
    assert_true(fabs(eddy_energy_watch_ratio(&ew) - 0.75) < 1e-12);
    assert_true(ew.rise_time == 0.2);
    d.total_energy = 60.0; /* after the removal no frame counts */
    eddy_energy_watch_frame(&ew, &sim, &d, 0.4);
    assert_true(fabs(eddy_energy_watch_ratio(&ew) - 0.75) < 1e-12);
    /* A rise under the rule when the particle goes stays under it. */
    memset(&ew, 0, sizeof ew);
    d.particles = 100;
    d.total_energy = 20.0;
    eddy_energy_watch_frame(&ew, &sim, &d, 0.0);
    d.particles = 99;
    d.total_energy = 40.0;
    eddy_energy_watch_frame(&ew, &sim, &d, 0.1);
    assert_false(eddy_energy_watch_made(&ew));
    eddy_world_destroy(sim.world);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(potential_energy_by_hand),
        cmocka_unit_test(split_partials_equal_the_whole),
        cmocka_unit_test(watch_keeps_a_rise_after_a_removal),
    };
    return support_run_tests("test_energy", argc, argv, tests, sizeof tests / sizeof tests[0]);
}
