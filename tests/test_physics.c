/*
 * Physical checks of sph_mueller through the host's session layer (the same path as `eddy run`):
 *  - linear momentum in a wall-free periodic box: the net impulse is round-off of the gross impulse,
 *    with every pressure force, for one material and for two of different spacings;
 *  - identical state hash after 100 steps with 1 and 2 threads, with every pressure force;
 *  - simulation scale (Bullet-Fluids reference (2014) §1.1.1): doubling it while halving every
 *    world-scale length gives the same motion in simulation units;
 *  - energy: without viscosity, the variational pressure force keeps kinetic + potential + elastic
 *    energy from growing on the 2D dam break, where the spiky forms do work no energy accounts for;
 *    and it does not let particles pair in a tank at rest.
 * Each prints the figure it measured. The hydrostatic tank is a validation case (validation/cases/
 * hydrostatic_tank.json), run for sph_mueller by tests/validate (validate_hydrostatic_tank_sph_mueller*).
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
#include "sim_support.h"

static const char *const pressure_forces[] = {"consistent", "mueller", "variational"};

/*
 * A periodic box of fluid with random velocities and no walls or gravity: pair forces must cancel, with
 * every pressure force. Also with two materials of different spacings side by side (masses 2.4 times
 * apart, gradient scales and, with the variational form, rest scales per material): the pressure terms
 * of a pair then carry different scales and must still be equal and opposite.
 */
static void momentum_conserved_periodic(void **state)
{
    (void)state;
    static const char *const one =
        "{\"solver\": \"sph_mueller\", \"dimensions\": 3,"
        " \"time\": {\"dt\": 0.0002, \"end\": 1},"
        " \"world\": {\"gravity\": [0, 0, 0], \"smoothing_radius\": 0.04},"
        " \"domain\": {\"min\": [0, 0, 0], \"max\": [0.4, 0.4, 0.4], \"periodic\": [true, true, true]},"
        " \"materials\": [{\"name\": \"w\", \"particle_spacing\": 0.02, \"viscosity\": 1, \"stiffness\": 1000}],"
        " \"fluids\": [{\"material\": \"w\", \"box\": {\"min\": [0, 0, 0], \"max\": [0.4, 0.4, 0.4]},"
        "   \"spacing_factor\": 0.95}]}";
    static const char *const two =
        "{\"solver\": \"sph_mueller\", \"dimensions\": 3,"
        " \"time\": {\"dt\": 0.0002, \"end\": 1},"
        " \"world\": {\"gravity\": [0, 0, 0], \"smoothing_radius\": 0.04},"
        " \"domain\": {\"min\": [0, 0, 0], \"max\": [0.4, 0.4, 0.4], \"periodic\": [true, true, true]},"
        " \"materials\": [{\"name\": \"a\", \"particle_spacing\": 0.02, \"viscosity\": 1, \"stiffness\": 1000},"
        "   {\"name\": \"b\", \"particle_spacing\": 0.016, \"viscosity\": 2, \"stiffness\": 1500,"
        "    \"rest_density\": 800}],"
        " \"fluids\": [{\"material\": \"a\", \"box\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.4, 0.4]},"
        "   \"spacing_factor\": 0.95},"
        "  {\"material\": \"b\", \"box\": {\"min\": [0.2, 0, 0], \"max\": [0.4, 0.4, 0.4]},"
        "   \"spacing_factor\": 0.95}]}";
    const char *const texts[2] = {one, two}, *const labels[2] = {"one material", "two materials"};
    support_assert_momentum_conserved("sph_mueller", texts, labels, 2, pressure_forces,
                                      sizeof pressure_forces / sizeof *pressure_forces);
}

static uint64_t hash_after(const char *pressure_force, int threads, int steps)
{
    char set[128];
    const char *sets[] = {support_pressure_force_set(set, sizeof set, "sph_mueller", pressure_force)};
    return support_hash_after("dam_break_3d.json", NULL, sets, 1, 6000, threads, steps);
}

/* Identical state for 1 and 2 threads, with every pressure force (each its own loops and, with the
 * variational form, its own density pass). */
static void same_hash_for_1_and_2_threads(void **state)
{
    (void)state;
    uint64_t seen[3];
    for (size_t f = 0; f < sizeof pressure_forces / sizeof *pressure_forces; ++f) {
        const uint64_t h1 = hash_after(pressure_forces[f], 1, 100), h2 = hash_after(pressure_forces[f], 2, 100);
        printf("  %s, state hash after 100 steps: 1 thread %016llx, 2 threads %016llx\n", pressure_forces[f],
               (unsigned long long)h1, (unsigned long long)h2);
        assert_true(h1 == h2);
        seen[f] = h2;
    }
    /* The hash must see the state: a different step count, or another pressure force, gives another. */
    const uint64_t h3 = hash_after(pressure_forces[0], 2, 99);
    assert_true(h3 != seen[0]);
    assert_true(seen[0] != seen[1] && seen[0] != seen[2] && seen[1] != seen[2]);
}

/* Positions in simulation units, indexed by id. */
static float *sim_positions(eddy_sim *sim)
{
    eddy_error err;
    if (eddy_world_sync_host(sim->world, &err)) fail_msg("%s", err.message);
    const eddy_particles *p = &sim->world->particles;
    float *out = calloc(3 * p->count, sizeof(float));
    for (size_t i = 0; i < p->count; ++i) {
        out[3 * p->id[i]] = p->x[i];
        out[3 * p->id[i] + 1] = p->y[i];
        out[3 * p->id[i] + 2] = p->z[i];
    }
    return out;
}

static void simulation_scale_invariance(void **state)
{
    (void)state;
    const char *base[] = {"time.dt=0.00005"};
    const char *scaled[] = {"time.dt=0.00005", "world.simulation_scale=2", "container.min=[0, 0]",
                            "container.max=[0.3, 0.15]", "fluids[0].box.min=[0, 0]",
                            "fluids[0].box.max=[0.05, 0.1]", "materials[0].particle_spacing=0.00125"};
    eddy_sim a, b;
    support_open_scene("dam_break_2d.json", NULL, base, 1, 0, &a);
    support_open_scene("dam_break_2d.json", NULL, scaled, 7, 0, &b);
    assert_int_equal(a.world->particles.count, b.world->particles.count);
    support_steps(&a, 400, 0.00005);
    support_steps(&b, 400, 0.00005);
    float *pa = sim_positions(&a), *pb = sim_positions(&b);
    double maxdiff = 0, travel = 0;
    size_t n = a.world->particles.count;
    for (size_t i = 0; i < 3 * n; ++i) {
        double d = fabs((double)pa[i] - pb[i]);
        maxdiff = d > maxdiff ? d : maxdiff;
    }
    for (size_t i = 0; i < n; ++i) {
        double v = a.world->particles.vx[i] * a.world->particles.vx[i] + a.world->particles.vy[i] * a.world->particles.vy[i];
        travel = sqrt(v) > travel ? sqrt(v) : travel;
    }
    printf("  scale 1 vs scale 2 with halved lengths, %zu particles, 400 steps: max |dx_sim| = %.3e m (max speed %.3f m/s)\n",
           n, maxdiff, travel);
    assert_true(travel > 0.1); /* the column did move */
    assert_true(maxdiff <= 1e-6 * 0.3);
    free(pa);
    free(pb);
    eddy_sim_close(&a);
    eddy_sim_close(&b);
}

/* e(rho) of p = k (rho - rho0) clamped at 0 (negative_pressure = 0): k (ln(rho / rho0) + rho0 / rho - 1)
 * above rho0, 0 below. eos: {k, rho0}. */
static double mueller_elastic(const void *eos, double rho)
{
    const double *c = eos, r = rho / c[1];
    return r > 1.0 ? c[0] * (log(r) + 1.0 / r - 1.0) : 0.0;
}

/*
 * The 2D dam break (stiffness 400, rho0 1000) without viscosity: the variational form's energy does not
 * grow (it ends 0.5% lower at 0.2 s); the default spiky form's rises to 11 E0 by 0.15 s (a force that
 * does work on the fluid), the control that shows the check can fail.
 */
static void energy_bounded_variational(void **state)
{
    (void)state;
    const char *sets[] = {"materials[0].viscosity=0"};
    static const double eos[2] = {400.0, 1000.0}; /* the scene's */
    support_assert_energy_bounded("dam_break_2d.json", NULL, sets, 1, "solvers.sph_mueller.pressure_force=\"variational\"",
                                  "solvers.sph_mueller.pressure_force=\"consistent\"", EDDY_SPH_WENDLAND,
                                  mueller_elastic, eos);
}

/*
 * Kinetic + weights[w] * elastic energy of the periodic box below over `steps` steps of dt, sampled every
 * 10 steps: ratio[w] = the largest |E - E0| over the largest |KE - KE0| (the energy the pressure moved
 * between its two forms). The weights only read the trajectory, so one run gives every ratio.
 */
static void periodic_energy_drift(eddy_sim *sim, int steps, double dt, size_t nw, const double *weights,
                                  double *ratio)
{
    static const double eos[2] = {400.0, 1000.0};
    const double ke0 = support_mechanical_energy(sim, mueller_elastic, eos, 0.0);
    const double el0 = support_mechanical_energy(sim, mueller_elastic, eos, 1.0) - ke0;
    double exchanged = 0.0, drift[8] = {0};
    assert_true(nw <= sizeof drift / sizeof *drift);
    for (int s = 10; s <= steps; s += 10) {
        support_steps(sim, 10, dt);
        const double ke = support_mechanical_energy(sim, mueller_elastic, eos, 0.0);
        const double el = support_mechanical_energy(sim, mueller_elastic, eos, 1.0) - ke;
        exchanged = fabs(ke - ke0) > exchanged ? fabs(ke - ke0) : exchanged;
        for (size_t w = 0; w < nw; ++w) {
            const double d = fabs(ke - ke0 + weights[w] * (el - el0));
            drift[w] = d > drift[w] ? d : drift[w];
        }
    }
    for (size_t w = 0; w < nw; ++w) ratio[w] = drift[w] / exchanged;
}

/* The periodic box below, given random velocities (a fixed sequence, up to 1 m/s per component). */
static void open_periodic_box(eddy_sim *sim)
{
    const char *text =
        "{\"solver\": \"sph_mueller\", \"dimensions\": 2,"
        " \"time\": {\"dt\": 0.00005, \"end\": 1},"
        " \"world\": {\"gravity\": [0, 0], \"smoothing_radius\": 0.02},"
        " \"domain\": {\"min\": [0, 0], \"max\": [0.2, 0.2], \"periodic\": [true, true]},"
        " \"materials\": [{\"name\": \"w\", \"particle_spacing\": 0.01, \"viscosity\": 0, \"stiffness\": 400}],"
        " \"solvers\": {\"sph_mueller\": {\"pressure_force\": \"variational\"}},"
        " \"fluids\": [{\"material\": \"w\", \"box\": {\"min\": [0, 0], \"max\": [0.2, 0.2]}}]}";
    support_open_text(text, NULL, 0, sim);
    eddy_particles *p = &sim->world->particles;
    uint64_t seed = 12345;
    for (size_t i = 0; i < p->count; ++i) {
        float *v[2] = {&p->vx[i], &p->vy[i]};
        for (int a = 0; a < 2; ++a) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            *v[a] = (float)((double)(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        }
    }
}

/*
 * The elastic part of the variational form's energy, without walls or gravity: a periodic 2D box at rest
 * density given random velocities (Mach ~0.05, no viscosity) turns kinetic energy into elastic energy and
 * back over four sound crossings (0.04 s). Kinetic + weight * elastic energy, with the weight the
 * normalization gives (support_elastic_weight: gradient scale over rest scale, 1.063, from the lattice
 * sums test_sdk_sph checks against explicit ones), stays within 2% of the energy that moved between them,
 * and that 2% is the integrator's: halving dt roughly halves it (measured 2.4% and 1.3%). Controls on the
 * same trajectory: weight 1 (the energy of the stiffness alone, 6% off) misses the 2% (measured 6.0%),
 * so the check resolves the normalization; twice the weight is off by all of it.
 */
static void energy_exchange_conserved_variational(void **state)
{
    (void)state;
    eddy_sim sim;
    double coarse, ratio[3];
    open_periodic_box(&sim);
    const double weight = support_elastic_weight(sim.world, EDDY_SPH_WENDLAND);
    periodic_energy_drift(&sim, 800, 0.00005, 1, &weight, &coarse);
    printf("  periodic box, %zu particles, dt 5e-05 s, elastic weight %.4f: |E - E0| / |KE - KE0| %.4f\n",
           sim.world->particles.count, weight, coarse);
    eddy_sim_close(&sim);
    open_periodic_box(&sim);
    const double weights[3] = {weight, 1.0, 2.0 * weight};
    periodic_energy_drift(&sim, 1600, 0.000025, 3, weights, ratio);
    for (int k = 0; k < 3; ++k)
        printf("  periodic box, dt 2.5e-05 s, elastic weight %.4f: |E - E0| / |KE - KE0| %.4f\n", weights[k],
               ratio[k]);
    eddy_sim_close(&sim);
    assert_true(weight > 1.03 && weight < 1.1);
    assert_true(ratio[0] < 0.02);
    assert_true(ratio[0] < 0.7 * coarse);
    assert_true(ratio[1] > 0.02);
    assert_true(ratio[2] > 0.5);
}

/* The smallest distance between two particles (O(N^2): a few thousand particles). */
static double smallest_separation(eddy_sim *sim)
{
    eddy_error err;
    if (eddy_world_sync_host(sim->world, &err)) fail_msg("%s", err.message);
    const eddy_particles *p = &sim->world->particles;
    double d2min = INFINITY;
    for (size_t i = 0; i < p->count; ++i)
        for (size_t j = i + 1; j < p->count; ++j) {
            const double dx = p->x[i] - p->x[j], dy = p->y[i] - p->y[j], dz = p->z[i] - p->z[j];
            const double d2 = dx * dx + dy * dy + dz * dz;
            d2min = d2 < d2min ? d2 : d2min;
        }
    return sqrt(d2min);
}

/* The smallest separation, in particle spacings, in the soft, barely viscous tank after 0.3 s. */
static double tank_smallest_separation(const char *pressure_force)
{
    char set[128];
    const char *sets[] = {support_pressure_force_set(set, sizeof set, "sph_mueller", pressure_force),
                          "materials[0].stiffness=400", "materials[0].viscosity=0.1"};
    eddy_sim sim;
    support_open_scene("hydrostatic_tank.json", NULL, sets, 3, 0, &sim);
    const double spacing = sim.world->materials[0].particle_dist;
    support_advance(&sim, 0.3);
    const double d = smallest_separation(&sim) / spacing;
    printf("  hydrostatic tank, %s, mu 0.1, %zu particles, t = 0.3 s: smallest separation %.3f spacings\n",
           pressure_force, sim.world->particles.count, d);
    eddy_sim_close(&sim);
    return d;
}

/*
 * The variational form does not let compressed particles pair (Dehnen & Aly 2012: Wendland kernels
 * have no pairing instability): the hydrostatic tank with a soft fluid and almost no viscosity keeps
 * every pair of particles more than 0.4 spacings apart (measured 0.58 at 0.3 s on SSE2, 0.67 on AVX2). With
 * poly6's gradient in its place (energy-conserving too) the same run ended with coincident particles
 * (distance 0). The control is the default form, which does pair here (measured 0.04 and 0.06: the
 * energy its spiky gradient injects drives particles together), so the check can fail.
 */
static void no_pairing_variational(void **state)
{
    (void)state;
    assert_true(tank_smallest_separation("variational") > 0.4);
    /* The control: should the default form stop pairing here (a change to it, not to this test's
     * subject), choose another control, such as a softer tank, rather than drop this one. */
    if (!(tank_smallest_separation("consistent") < 0.4))
        fail_msg("the control, pressure_force = consistent, no longer pairs in this tank: the check above "
                 "cannot be seen to fail; choose another control");
}

/* test_physics [NAME]: every test, or only the one called NAME (CTest runs each as physics_NAME). */
int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(momentum_conserved_periodic),
        cmocka_unit_test(same_hash_for_1_and_2_threads),
        cmocka_unit_test(simulation_scale_invariance),
        cmocka_unit_test(energy_bounded_variational),
        cmocka_unit_test(energy_exchange_conserved_variational),
        cmocka_unit_test(no_pairing_variational),
    };
    return support_run_tests("test_physics", argc, argv, tests, sizeof tests / sizeof tests[0]);
}
