/*
 * Validation of the Tait WCSPH solver (plugins/tait) through the host's session layer, the same path
 * as `eddy run`. Every check compares against a reference that does not come from this code:
 *  - piston: a wall moving at prescribed speed pushes the layer and stops; mass conservation at rest
 *    density gives the new depth H L / (L - d), so the centroid height is H L / (2 (L - d));
 *  - linear momentum in a wall-free periodic box (the pressure and viscosity forces are antisymmetric),
 *    with either pressure force, for one material and for two of different spacings;
 *  - identical state hash for 1 and 2 threads with either pressure force, also with particle shifting
 *    (Taylor-Green vortex);
 *  - the time step the host takes never exceeds the CFL limit cfl h / (c0 + v_max), and bad input
 *    gives errors that name what is wrong;
 *  - halo copies (particles of another process, ABI 2.0) are read as neighbours but never written, and
 *    density and pressure are refreshed on them after the density pass, before the forces;
 *  - energy: without viscosity, pressure_force = variational keeps kinetic + potential + elastic energy
 *    of the 2D dam break from rising, where the default spiky gradient gains it.
 * Each prints the figure it measured. Run one with `test_tait NAME` (ctest runs each as tait_NAME).
 * The dam break against Martin & Moyce (1952), with either wall method, and the hydrostatic tank (bottom
 * pressure rho0 g H, the bottom density excess g (H - h/2) / c0^2 the Tait law predicts) are validation
 * cases (validation/cases/), run for tait by tests/validate (validate_*_tait*): one definition each.
 */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <eddy/eddy.h>

#include "sim.h"
#include "sim_support.h"

static void open_scene(const char *name, const char *const *sets, size_t nsets, size_t target, eddy_sim *sim)
{
    support_open_scene(name, "tait", sets, nsets, target, sim);
}

/* The particles, with their host copy current: a host reads particles only after mapping them (world.h,
 * eddy_world_sync_host; a no-op for a solver that keeps its fields in host memory, as tait does). */
static const eddy_particles *host_particles(eddy_sim *sim)
{
    eddy_error err;
    if (eddy_world_sync_host(sim->world, &err)) fail_msg("%s", err.message);
    return &sim->world->particles;
}

/* ---------------------------------------------------------------------------------------------- */
/* Moving wall                                                                                     */
/* ---------------------------------------------------------------------------------------------- */

/*
 * scenes/tait_piston.json: a plane at x = 0.02 moves at 0.1 m/s until t = 1 s (to x = 0.12) and stops.
 * The layer (L = 0.48 m, H = 0.1 m) ends L - d = 0.38 m long; at rest density its depth is
 * H L / (L - d) and its centroid height half of that. Checks: the wall ended where velocity x time
 * puts it, no particle behind it, mean density within 1% of rho0, centroid (averaged over 0.3 s after
 * the stop, to average the slosh) within 3%.
 */
static void piston(void **state)
{
    (void)state;
    eddy_sim sim;
    open_scene("tait_piston.json", NULL, 0, 0, &sim);
    const eddy_world *w = sim.world;
    const eddy_particles *p = host_particles(&sim);
    const eddy_collider *wall = &w->boundaries.colliders[w->boundaries.collider_count - 1];
    const double x0 = wall->point[0], U = wall->velocity[0], t_stop = sim.scene.collider_moving_until[0];
    const double L = sim.scene.container_max[0] - x0, H = sim.scene.fluids[0].max[1];
    const double d = U * t_stop;
    support_advance(&sim, t_stop + 0.1);
    const double x_wall = wall->point[0];
    const int samples = 30;
    double ymean = 0, rho_mean = 0, xmin = INFINITY;
    for (int k = 0; k < samples; ++k) {
        support_advance(&sim, t_stop + 0.1 + 0.01 * (k + 1));
        host_particles(&sim);
        double sy = 0, sr = 0;
        for (size_t i = 0; i < p->count; ++i) {
            sy += p->y[i];
            sr += p->density[i];
            xmin = p->x[i] < xmin ? p->x[i] : xmin;
        }
        ymean += sy / p->count / samples;
        rho_mean += sr / p->count / samples;
    }
    const double rho0 = w->materials[0].rest_density;
    const double y_expected = 0.5 * H * L / (L - d);
    printf("  piston: %zu particles, wall moved %.4f m (expected U t = %.4f), stopped with velocity %.3g\n",
           p->count, x_wall - x0, d, (double)wall->velocity[0]);
    printf("  leftmost particle %.4f m (wall at %.4f m); mean density / rho0 = %.4f\n", xmin, x_wall, rho_mean / rho0);
    printf("  centroid height %.5f m vs H L / (2 (L - d)) = %.5f m (%.2f%%; before: H / 2 = %.3f m)\n", ymean,
           y_expected, 100 * fabs(ymean / y_expected - 1), 0.5 * H);
    assert_true(fabs((x_wall - x0) - d) < 1e-4);
    assert_true(wall->velocity[0] == 0.0f);
    assert_true(xmin > x_wall - 1e-3);
    assert_true(fabs(rho_mean / rho0 - 1) < 0.01);
    assert_true(fabs(ymean / y_expected - 1) < 0.03);
    eddy_sim_close(&sim);
}

/* ---------------------------------------------------------------------------------------------- */
/* Conservation, determinism, time step, errors                                                    */
/* ---------------------------------------------------------------------------------------------- */

static const char *const pressure_forces[] = {"spiky", "variational"};

/*
 * A wall-free periodic box with random velocities: the pressure, material viscosity and artificial
 * viscosity forces are antisymmetric, with either pressure force. Also with two materials of different
 * spacings, rest densities and stiffnesses side by side, whose pairs carry two gradient scales (and,
 * with the variational form, two rest scales) and two sound speeds.
 */
static void momentum_conserved_periodic(void **state)
{
    (void)state;
    static const char *const one =
        "{\"solver\": \"tait\", \"dimensions\": 2,"
        " \"time\": {\"dt\": 0.0002, \"end\": 1},"
        " \"world\": {\"gravity\": [0, 0], \"smoothing_radius\": 0.02},"
        " \"domain\": {\"min\": [0, 0], \"max\": [0.4, 0.4], \"periodic\": [true, true]},"
        " \"materials\": [{\"name\": \"w\", \"particle_spacing\": 0.01, \"viscosity\": 1, \"stiffness\": 400}],"
        " \"fluids\": [{\"material\": \"w\", \"box\": {\"min\": [0, 0], \"max\": [0.4, 0.4]},"
        "   \"spacing_factor\": 0.97}],"
        " \"solvers\": {\"tait\": {\"alpha\": 0.1, \"negative_pressure\": 1}}}";
    static const char *const two =
        "{\"solver\": \"tait\", \"dimensions\": 2,"
        " \"time\": {\"dt\": 0.0002, \"end\": 1},"
        " \"world\": {\"gravity\": [0, 0], \"smoothing_radius\": 0.02},"
        " \"domain\": {\"min\": [0, 0], \"max\": [0.4, 0.4], \"periodic\": [true, true]},"
        " \"materials\": [{\"name\": \"a\", \"particle_spacing\": 0.01, \"viscosity\": 1, \"stiffness\": 400},"
        "   {\"name\": \"b\", \"particle_spacing\": 0.008, \"viscosity\": 2, \"stiffness\": 900,"
        "    \"rest_density\": 800}],"
        " \"fluids\": [{\"material\": \"a\", \"box\": {\"min\": [0, 0], \"max\": [0.2, 0.4]},"
        "   \"spacing_factor\": 0.97},"
        "  {\"material\": \"b\", \"box\": {\"min\": [0.2, 0], \"max\": [0.4, 0.4]},"
        "   \"spacing_factor\": 0.97}],"
        " \"solvers\": {\"tait\": {\"alpha\": 0.1, \"negative_pressure\": 1}}}";
    const char *const texts[2] = {one, two}, *const labels[2] = {"one material", "two materials"};
    support_assert_momentum_conserved("tait", texts, labels, 2, pressure_forces,
                                      sizeof pressure_forces / sizeof *pressure_forces);
}

static uint64_t hash_after(const char *pressure_force, int threads, int steps)
{
    char set[128];
    const char *sets[] = {support_pressure_force_set(set, sizeof set, "tait", pressure_force)};
    return support_hash_after("tait_dam_break_3d.json", NULL, sets, 1, 6000, threads, steps);
}

/* Identical state for 1 and 2 threads with either pressure force (each its own density pass and loops). */
static void same_hash_for_1_and_2_threads(void **state)
{
    (void)state;
    uint64_t seen[2];
    for (size_t f = 0; f < sizeof pressure_forces / sizeof *pressure_forces; ++f) {
        const uint64_t h1 = hash_after(pressure_forces[f], 1, 60), h2 = hash_after(pressure_forces[f], 2, 60);
        printf("  3D dam break, %s, ~6000 particles, 60 steps: hash 1 thread %016llx, 2 threads %016llx\n",
               pressure_forces[f], (unsigned long long)h1, (unsigned long long)h2);
        assert_true(h1 == h2);
        seen[f] = h2;
    }
    const uint64_t h3 = hash_after(pressure_forces[0], 2, 59);
    printf("  59 steps: %016llx\n", (unsigned long long)h3);
    assert_true(h3 != seen[0]);
    assert_true(seen[0] != seen[1]);
}

/*
 * Particle shifting (eddy_sph/shifting.h) is bit-identical for any number of threads (docs/toolkit.md):
 * the Taylor-Green vortex of validation/scenes/taylor_green.json with the case's velocity field
 * u = -cos(kx) sin(ky), v = sin(kx) cos(ky), k = 2 pi, shifting on (A = 10, the largest allowed, for the
 * largest shifts) and negative pressures kept, 30 steps. The lattice is squeezed to 0.97 of the box: on
 * the perfect lattice grad C stays at rounding level for these steps, and a pass that wrote its shifts
 * in place during the sweep (a race between threads) would agree as well. Such a race shows in some
 * runs only, so 2 threads run three times. Without shifting the hash differs: the pass moved the
 * particles.
 */
static uint64_t taylor_green_hash(int threads, int steps, int shifting)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/validation/scenes/taylor_green.json", support_source_dir());
    const char *sets[] = {shifting ? "solvers.tait.shifting=true" : "solvers.tait.shifting=false",
                          "solvers.tait.shifting_coefficient=10", "solvers.tait.negative_pressure=1",
                          "fluids[0].spacing_factor=0.97"};
    eddy_scene scene;
    eddy_error err;
    if (eddy_scene_load(path, sets, 4, &scene, &err)) fail_msg("%s", err.message);
    eddy_sim_options o = {"tait", NULL, 0, NULL, threads};
    eddy_sim sim;
    if (eddy_sim_open(&scene, &o, &sim, &err)) fail_msg("%s", err.message);
    assert_int_equal(eddy_services_threads(), threads);
    eddy_field_view pos = {.size = sizeof pos}, v = {.size = sizeof v};
    if (eddy_world_map_field(sim.world, EDDY_FIELD_POSITION, EDDY_MAP_READ, &pos, &err) ||
        eddy_world_map_field(sim.world, EDDY_FIELD_VELOCITY, EDDY_MAP_READ_WRITE, &v, &err))
        fail_msg("%s", err.message);
    const double k = 2.0 * M_PI;
    for (size_t i = 0; i < v.count; ++i) {
        const double x = pos.data[0][i], y = pos.data[1][i];
        v.data[0][i] = (eddy_real)(-cos(k * x) * sin(k * y));
        v.data[1][i] = (eddy_real)(sin(k * x) * cos(k * y));
    }
    eddy_world_unmap_field(sim.world, &v);
    eddy_world_unmap_field(sim.world, &pos);
    const uint64_t h = support_steps_hash(&sim, steps);
    eddy_sim_close(&sim);
    return h;
}

static void shifting_same_hash_for_1_and_2_threads(void **state)
{
    (void)state;
    const uint64_t h1 = taylor_green_hash(1, 30, 1), h0 = taylor_green_hash(2, 30, 0);
    for (int r = 0; r < 3; ++r) {
        const uint64_t h2 = taylor_green_hash(2, 30, 1);
        printf("  Taylor-Green, shifting, 30 steps: hash 1 thread %016llx, 2 threads %016llx (no shifting %016llx)\n",
               (unsigned long long)h1, (unsigned long long)h2, (unsigned long long)h0);
        assert_true(h1 == h2);
    }
    assert_true(h0 != h1);
}

/* The host must never step beyond cfl h / (c0 + v_max): with a scene dt of 10 ms it sub-steps, names
 * the limit, and still lands exactly on the target time. */
static void time_step_limit(void **state)
{
    (void)state;
    const char *sets[] = {"time.dt=0.01", "solvers.tait.cfl=0.25", "solvers.tait.sound_speed=20"};
    eddy_sim sim;
    open_scene("tait_dam_break_2d.json", sets, 3, 0, &sim);
    eddy_error err;
    double worst = 0;
    for (int s = 0; s < 200; ++s) {
        double dt;
        if (eddy_sim_next_dt(&sim, 1.0, &dt, &err)) fail_msg("%s", err.message);
        double limit = 0.25 * sim.world->smoothing_radius / (20.0 + eddy_world_max_speed(sim.world));
        worst = dt / limit > worst ? dt / limit : worst;
        assert_string_equal(sim.dt_limit, "CFL");
        if (eddy_sim_step(&sim, dt, &err)) fail_msg("%s", err.message);
    }
    support_advance(&sim, 0.0301);
    printf("  scene dt 0.01 s: largest step / (cfl h / (c0 + v_max)) = %.6f over 200 steps; limit named '%s'; "
           "landed on t = %.10g (target 0.0301)\n", worst, sim.dt_limit, sim.world->time);
    assert_true(worst <= 1.0 + 1e-9);
    assert_true(sim.world->time == 0.0301);
    eddy_sim_close(&sim);
}

/* Without a sound_speed the solver derives c0 = 10 sqrt(2 |g| H) from the column's height H; the CFL
 * limit of the first step, cfl h / c0 at rest, shows the c0 it chose. */
static void derived_sound_speed(void **state)
{
    (void)state;
    const char *sets[] = {"solvers.tait.sound_speed=null", "time.dt=1"};
    eddy_sim sim;
    open_scene("tait_dam_break_2d.json", sets, 2, 0, &sim);
    /* sound_speed is a derived parameter: null leaves it unset, and the solver derives c0. */
    const eddy_param_value *c_param = eddy_param_find_value(&sim.params, "sound_speed");
    assert_non_null(c_param);
    assert_int_equal(c_param->is_set, 0);
    const eddy_particles *p = host_particles(&sim);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < p->count; ++i) {
        lo = p->y[i] < lo ? p->y[i] : lo;
        hi = p->y[i] > hi ? p->y[i] : hi;
    }
    const double c_expected = 10 * sqrt(2 * 9.81 * (hi - lo));
    double dt;
    eddy_error err;
    if (eddy_sim_next_dt(&sim, 1.0, &dt, &err)) fail_msg("%s", err.message);
    const double cfl = eddy_param_get(&sim.params, "cfl", NAN);
    const double c = cfl * sim.world->smoothing_radius / dt;
    printf("  column height %.4f m: c0 from the CFL limit %.3f m/s vs 10 sqrt(2 g H) = %.3f m/s (limit '%s')\n",
           hi - lo, c, c_expected, sim.dt_limit);
    assert_string_equal(sim.dt_limit, "CFL");
    assert_true(fabs(c / c_expected - 1) < 1e-4);
    eddy_sim_close(&sim);
}

/*
 * The virtual wall partner (boundary = virtual, Theng & Zhao) pushes with the write-up's spiky gradient
 * in both pressure forms: one particle at rest 0.05 h above the bottom wall, alone (initial_sum 0.5 keeps
 * its density below rho0 with either kernel, so p_i = 0 and the partner carries P_b = boundary_pressure).
 * Its acceleration is
 * m (P_b / rho0^2) g_s |dW_spiky/dr|(d) = m (P_b / rho0^2) g_s 30 (h - d)^2 / (pi h^5) away from the
 * wall, with g_s = 1 / the spiky gradient's lattice moment, and the same to the bit with the variational
 * form. Wendland's gradient, which that form takes between particles, vanishes at the wall: with it (the
 * code before this test) the variational push here was 24.5 m/s^2 against 121.5.
 */
static double virtual_wall_push(const char *pressure_force, double *ax, double *expected)
{
    static const char *const text =
        "{\"solver\": \"tait\", \"dimensions\": 2,"
        " \"time\": {\"dt\": 0.000001, \"end\": 1},"
        " \"world\": {\"gravity\": [0, 0], \"smoothing_radius\": 0.02},"
        " \"container\": {\"min\": [0, 0], \"max\": [0.4, 0.4]},"
        " \"materials\": [{\"name\": \"w\", \"particle_spacing\": 0.01, \"viscosity\": 0.1, \"initial_sum\": 0.5}],"
        " \"fluids\": [{\"material\": \"w\", \"box\": {\"min\": [0.195, 0.195], \"max\": [0.205, 0.205]}}],"
        " \"solvers\": {\"tait\": {\"sound_speed\": 20, \"boundary\": \"virtual\", \"boundary_pressure\": 1000}}}";
    char set[128];
    const char *sets[] = {support_pressure_force_set(set, sizeof set, "tait", pressure_force)};
    eddy_sim sim;
    support_open_text(text, sets, 1, &sim);
    assert_int_equal(sim.world->particles.count, 1);
    const double h = sim.world->smoothing_radius, d = 0.05 * h;
    eddy_error err;
    eddy_field_view pos = {.size = sizeof pos};
    if (eddy_world_map_field(sim.world, EDDY_FIELD_POSITION, EDDY_MAP_READ_WRITE, &pos, &err)) fail_msg("%s", err.message);
    pos.data[1][0] = (eddy_real)d;
    eddy_world_unmap_field(sim.world, &pos);
    support_steps(&sim, 1, 1e-6);
    const eddy_particles *p = host_particles(&sim);
    const int acc = eddy_particles_find_field(p, "acceleration");
    assert_true(acc >= 0);
    const eddy_material *m = &sim.world->materials[0];
    const double gs = 1.0 / eddy_lattice_gradient_moment(m->particle_dist, h, 2);
    *expected = m->particle_mass * 1000.0 / ((double)m->rest_density * m->rest_density) * gs * 30.0 * (h - d) * (h - d) /
                (M_PI * pow(h, 5));
    *ax = eddy_particles_field(p, acc, 0)[0];
    const double ay = eddy_particles_field(p, acc, 1)[0];
    printf("  %s: one particle 0.05 h above a virtual wall, density %.1f kg/m^2: acceleration (%g, %.6g) m/s^2, "
           "expected (0, %.6g)\n",
           pressure_force, (double)p->density[0], *ax, ay, *expected);
    eddy_sim_close(&sim);
    return ay;
}

static void virtual_wall_pushes_alike(void **state)
{
    (void)state;
    double ax_s, ax_v, expected;
    const double spiky = virtual_wall_push("spiky", &ax_s, &expected);
    const double variational = virtual_wall_push("variational", &ax_v, &expected);
    assert_true(fabs(spiky / expected - 1.0) < 1e-4);
    assert_true(variational == spiky);
    assert_true(ax_s == 0.0 && ax_v == 0.0);
}

/* The 3D dam break, refilled at about 5000 particles, runs to its end time without NaN (the host's
 * explosion guard would fail the step), runaway speed or lost particles; and, a physical check that can
 * fail: with its viscosity on (materials[0].viscosity 1 Pa s, alpha 0.02) and fixed mirror walls, which do
 * no work, the mechanical energy E = kinetic + potential (-m g.x) + the Tait elastic energy m e(rho)
 * (tait_elastic below, weight 1: the continuum's) can only be dissipated. Sampled every 0.05 s (40
 * samples, a few ms in all) from the end of the first step (which computes the densities), no sample may
 * lie more than ENERGY_RISE E(first) above the lowest sample before it. The Tait constants are the
 * solver's documented derivation (the scene gives no sound_speed): c0 = 10 sqrt(2 |g| H), H the height the
 * particles span at the start, B = rho0 c0^2 / gamma. A force that makes energy (the spiky one without
 * viscosity gains 17 E0 in energy_bounded_variational's control) fails it. */
static double tait_elastic(const void *eos, double rho);
enum { DAM_3D_SAMPLES = 40 };
static const double ENERGY_RISE = 1e-3;
static void dam_break_3d_runs_to_the_end(void **state)
{
    (void)state;
    eddy_sim sim;
    open_scene("tait_dam_break_3d.json", NULL, 0, 5000, &sim);
    const size_t n = sim.world->particles.count;
    const eddy_particles *p = host_particles(&sim);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        lo = fmin(lo, p->y[i]);
        hi = fmax(hi, p->y[i]);
    }
    const double g = 9.81, c0 = 10.0 * sqrt(2.0 * g * (hi - lo)), rho0 = sim.world->materials[0].rest_density;
    const double gamma = 7.0; /* the scene's solvers.tait.gamma */
    const double eos[3] = {rho0 * c0 * c0 / gamma, rho0, gamma};
    const double t_end = sim.scene.end_time;
    support_advance(&sim, sim.scene.dt); /* the first step computes the densities */
    const double e0 = support_mechanical_energy(&sim, tait_elastic, eos, 1.0);
    double rise = 0.0, e = e0, lowest = e0;
    for (int k = 1; k <= DAM_3D_SAMPLES; ++k) {
        support_advance(&sim, t_end * k / DAM_3D_SAMPLES);
        e = support_mechanical_energy(&sim, tait_elastic, eos, 1.0);
        printf("  t = %.3f s: E = %.6f E0\n", sim.world->time, e / e0);
        if ((e - lowest) / e0 > rise) rise = (e - lowest) / e0;
        if (e < lowest) lowest = e;
    }
    const double vmax = eddy_world_max_speed(sim.world), v_fall = sqrt(2 * g * 0.5);
    printf("  tait_dam_break_3d at %zu particles: reached t = %.3f s in %llu steps; max speed %.2f m/s "
           "(free fall from the column top %.2f m/s); c0 %.2f m/s; mechanical energy E0 %.4f J, largest "
           "rise over an earlier sample %.2e E0 (at most %.0e), E(end) = %.4f E0\n", n, sim.world->time,
           (unsigned long long)sim.world->step, vmax, v_fall, c0, e0, rise, ENERGY_RISE, e / e0);
    assert_true(sim.world->time == t_end);
    assert_int_equal(sim.world->particles.count, n);
    assert_true(vmax < 3 * v_fall);
    assert_true(rise <= ENERGY_RISE);
    eddy_sim_close(&sim);
}

/* ---------------------------------------------------------------------------------------------- */
/* Several processes: owned particles and halo copies                                              */
/* ---------------------------------------------------------------------------------------------- */

/* What the fake exchange saw: a domain-decomposed host's exchange would send the named fields of owned
 * particles to their halo copies elsewhere; this one records the call and the state at that moment. */
typedef struct refresh_log {
    int calls;
    int fields[4];
    size_t field_count;
    size_t owned_not_computed; /* owned particles whose density or pressure was still NaN */
    size_t halo_written;       /* halo copies whose density or pressure differed from before the step */
    size_t accel_written;      /* particles whose acceleration was no longer the sentinel */
    const float *halo_density, *halo_pressure; /* by id: the values before the step */
} refresh_log;

static const float ACCEL_SENTINEL = 7.0f;

static int record_refresh(void *context, eddy_world *w, const int *fields, size_t field_count, eddy_error *err)
{
    (void)err;
    refresh_log *log = context;
    ++log->calls;
    log->field_count = field_count;
    for (size_t f = 0; f < field_count && f < 4; ++f) log->fields[f] = fields[f];
    const eddy_particles *p = &w->particles;
    const int acc = eddy_particles_find_field(p, "acceleration");
    for (size_t i = 0; i < p->count; ++i) {
        if (eddy_particle_is_halo(p, i)) {
            if (memcmp(&p->density[i], &log->halo_density[p->id[i]], sizeof(float)) ||
                memcmp(&p->pressure[i], &log->halo_pressure[p->id[i]], sizeof(float)))
                ++log->halo_written;
        } else if (isnan(p->density[i]) || isnan(p->pressure[i])) {
            ++log->owned_not_computed;
        }
        for (int a = 0; a < 3; ++a)
            if (eddy_particles_field(p, acc, a)[i] != ACCEL_SENTINEL) {
                ++log->accel_written;
                break;
            }
    }
    return EDDY_OK;
}

/*
 * Every fifth particle of the 2D dam break is made a halo copy (as another process's particle would
 * be). One step must then (1) compute density and pressure of every owned particle before refreshing
 * them (their values are set to NaN before the step), (2) call eddy_world_refresh_fields once, with
 * density and pressure, before any acceleration is computed (all accelerations are set to a sentinel),
 * (3) leave density, pressure and acceleration of the halo copies exactly as they were, and (4) give
 * every owned particle the acceleration, velocity and position it gets in the same step without halo
 * copies, bit for bit: on the first step the halo copies' density and pressure (those of the initial
 * state, computed before the split) are what the owners' refresh would bring, so reading them as
 * neighbours must change nothing. This is what the component's EDDY_COMPONENT_DECOMPOSABLE promises.
 * Particles are matched by id: the grid sort reorders them.
 */
static void halo_copies_are_read_not_written(void **state)
{
    (void)state;
    eddy_sim sim;
    open_scene("tait_dam_break_2d.json", NULL, 0, 0, &sim);
    /* The claim this test holds the solver to: a host of several processes runs it only with it. */
    assert_true(sim.solver_entry->component->flags & EDDY_COMPONENT_DECOMPOSABLE);
    eddy_world *w = sim.world;
    eddy_particles *p = &w->particles;
    eddy_error err;
    host_particles(&sim);
    const size_t n = p->count;
    uint64_t max_id = 0;
    for (size_t i = 0; i < n; ++i) max_id = p->id[i] > max_id ? p->id[i] : max_id;
    float *halo_density = calloc(max_id + 1, sizeof(float)), *halo_pressure = calloc(max_id + 1, sizeof(float));
    uint8_t *is_halo = calloc(max_id + 1, 1);
    uint32_t *order = malloc(n * sizeof *order);
    assert_true(halo_density && halo_pressure && is_halo && order);
    const int acc = eddy_particles_find_field(p, "acceleration");
    assert_true(acc >= 0);
    size_t halos = 0;
    for (size_t i = 0; i < n; ++i) {
        order[i] = (uint32_t)i;
        if (i % 5 == 0) {
            p->flags[i] |= EDDY_PARTICLE_HALO;
            halo_density[p->id[i]] = p->density[i];
            halo_pressure[p->id[i]] = p->pressure[i];
            is_halo[p->id[i]] = 1;
            ++halos;
        } else {
            p->density[i] = NAN;
            p->pressure[i] = NAN;
        }
        for (int a = 0; a < 3; ++a) eddy_particles_field(p, acc, a)[i] = ACCEL_SENTINEL;
    }
    /* The identity gather recounts halo_count (particles.h). */
    if (eddy_particles_gather(p, order, n, &err)) fail_msg("%s", err.message);
    assert_int_equal(p->halo_count, halos);
    refresh_log log = {.halo_density = halo_density, .halo_pressure = halo_pressure};
    const eddy_exchange exchange = {.size = sizeof exchange, .context = &log, .refresh = record_refresh};
    eddy_world_set_exchange(w, &exchange);

    const double dt = 1e-4;
    if (eddy_sim_step(&sim, dt, &err)) fail_msg("%s", err.message);
    host_particles(&sim);

    /* The same step without halo copies: the reference for the owned particles, by id. */
    eddy_sim ref;
    open_scene("tait_dam_break_2d.json", NULL, 0, 0, &ref);
    if (eddy_sim_step(&ref, dt, &err)) fail_msg("%s", err.message);
    const eddy_particles *rp = host_particles(&ref);
    assert_int_equal(rp->count, n);
    const int racc = eddy_particles_find_field(rp, "acceleration");
    enum { REF_VALUES = 9 }; /* acceleration, velocity, position */
    float *ref_values = calloc((max_id + 1) * REF_VALUES, sizeof(float));
    assert_non_null(ref_values);
    for (size_t i = 0; i < n; ++i) {
        float *v = &ref_values[rp->id[i] * REF_VALUES];
        const float values[REF_VALUES] = {eddy_particles_field(rp, racc, 0)[i], eddy_particles_field(rp, racc, 1)[i],
                                          eddy_particles_field(rp, racc, 2)[i], rp->vx[i], rp->vy[i], rp->vz[i],
                                          rp->x[i], rp->y[i], rp->z[i]};
        memcpy(v, values, sizeof values);
    }
    eddy_sim_close(&ref);

    size_t halo_written = 0, owned_unchanged = 0, halo_seen = 0, owned_differ = 0;
    for (size_t i = 0; i < p->count; ++i) {
        const float a[3] = {eddy_particles_field(p, acc, 0)[i], eddy_particles_field(p, acc, 1)[i],
                            eddy_particles_field(p, acc, 2)[i]};
        const int sentinel = a[0] == ACCEL_SENTINEL && a[1] == ACCEL_SENTINEL && a[2] == ACCEL_SENTINEL;
        if (is_halo[p->id[i]]) {
            assert_true(eddy_particle_is_halo(p, i));
            ++halo_seen;
            if (!sentinel || memcmp(&p->density[i], &halo_density[p->id[i]], sizeof(float)) ||
                memcmp(&p->pressure[i], &halo_pressure[p->id[i]], sizeof(float)))
                ++halo_written;
        } else {
            assert_false(eddy_particle_is_halo(p, i));
            if (a[0] == ACCEL_SENTINEL || a[1] == ACCEL_SENTINEL) ++owned_unchanged;
            const float mine[REF_VALUES] = {a[0], a[1], a[2], p->vx[i], p->vy[i], p->vz[i], p->x[i], p->y[i], p->z[i]};
            if (memcmp(mine, &ref_values[p->id[i] * REF_VALUES], sizeof mine)) ++owned_differ;
        }
    }
    printf("  %zu particles, %zu halo copies: refresh called %d time(s) with %zu field(s); at the refresh %zu "
           "owned particles lacked density or pressure, %zu accelerations were computed, %zu halo copies "
           "written; after the step %zu halo copies written, %zu owned accelerations not computed, %zu owned "
           "particles not bit-identical to the step without halo copies\n",
           n, halos, log.calls, log.field_count, log.owned_not_computed, log.accel_written, log.halo_written,
           halo_written, owned_unchanged, owned_differ);
    assert_int_equal(log.calls, 1);
    assert_int_equal(log.field_count, 2);
    assert_int_equal(log.fields[0], EDDY_FIELD_DENSITY);
    assert_int_equal(log.fields[1], EDDY_FIELD_PRESSURE);
    assert_int_equal(log.owned_not_computed, 0);
    assert_int_equal(log.accel_written, 0);
    assert_int_equal(log.halo_written, 0);
    assert_int_equal(halo_seen, halos);
    assert_int_equal(halo_written, 0);
    assert_int_equal(owned_unchanged, 0);
    assert_int_equal(owned_differ, 0);
    eddy_world_set_exchange(w, NULL);
    free(ref_values);
    free(halo_density);
    free(halo_pressure);
    free(is_halo);
    free(order);
    eddy_sim_close(&sim);
}

/* e(rho) of the Tait equation p = B ((rho / rho0)^gamma - 1) clamped at 0: (B / rho0) ((r^(gamma-1) - 1) /
 * (gamma - 1) + 1 / r - 1) above r = rho / rho0 = 1, 0 below. eos: {B, rho0, gamma}. */
static double tait_elastic(const void *eos, double rho)
{
    const double *c = eos, r = rho / c[1], gamma = c[2];
    return r > 1.0 ? c[0] / c[1] * ((pow(r, gamma - 1.0) - 1.0) / (gamma - 1.0) + 1.0 / r - 1.0) : 0.0;
}

/*
 * The 2D dam break with tait, c0 = 20 m/s, gamma = 7, no viscosity of either kind. With one kernel
 * (Wendland C2) for density and gradient the pressure force derives from the elastic energy, which then
 * never rises; the control, the default spiky gradient over the poly6 density, gains energy until the
 * front blows apart (17 E0 by 0.15 s), so the check can fail.
 */
static void energy_bounded_variational(void **state)
{
    (void)state;
    const char *sets[] = {"materials[0].viscosity=0", "solvers.tait.alpha=0", "solvers.tait.sound_speed=20",
                          "solvers.tait.gamma=7"};
    static const double eos[3] = {1000.0 * 20.0 * 20.0 / 7.0, 1000.0, 7.0};
    support_assert_energy_bounded("dam_break_2d.json", "tait", sets, 4, "solvers.tait.pressure_force=\"variational\"",
                                  "solvers.tait.pressure_force=\"spiky\"", EDDY_SPH_WENDLAND, tait_elastic, eos);
}

/* Opening tait_dam_break_2d.json with `sets` must fail with exactly `expected`; a message about a value
 * the last of `sets` gave starts by naming that --set (`scene_error`), one from the solver does not. */
static void expect_open_error(const char *const *sets, size_t nsets, int scene_error, const char *expected)
{
    char path[4200], want[8192];
    snprintf(path, sizeof path, "%s/scenes/tait_dam_break_2d.json", support_source_dir());
    snprintf(want, sizeof want, "%s%s%s%s", scene_error ? "--set '" : "", scene_error ? sets[nsets - 1] : "",
             scene_error ? "': " : "", expected);
    eddy_scene scene;
    eddy_error err;
    eddy_sim sim;
    int rc = eddy_scene_load(path, sets, nsets, &scene, &err);
    if (!rc) rc = eddy_sim_open(&scene, NULL, &sim, &err);
    if (!rc) eddy_sim_close(&sim);
    printf("  error: %s\n", rc ? err.message : "(none)");
    assert_true(rc != 0);
    assert_string_equal(err.message, want);
}

static void errors_name_the_problem(void **state)
{
    (void)state;
    const char *zero_c[] = {"materials[0].stiffness=0", "solvers.tait.sound_speed=null", "world.gravity=[0, 0]"};
    expect_open_error(zero_c, 3, 0,
                      "solver 'tait': no gravity, and material 'water' has stiffness 0, so the derived sound "
                      "speed sqrt(stiffness) is 0; set materials[0].stiffness > 0 (c0^2 in m^2/s^2) or "
                      "solvers.tait.sound_speed");
    /* Under gravity, a layer one particle thick spans no height: the fault is that, not gravity. */
    const char *flat[] = {"materials[0].stiffness=0", "solvers.tait.sound_speed=null", "fluids[0].box.max=[0.1, 0.0025]"};
    expect_open_error(flat, 3, 0,
                      "solver 'tait': the particles span no height along gravity, and material 'water' has "
                      "stiffness 0, so the derived sound speed sqrt(stiffness) is 0; set materials[0].stiffness > 0 "
                      "(c0^2 in m^2/s^2) or solvers.tait.sound_speed");
    const char *bad_gamma[] = {"solvers.tait.gamma=0.5"};
    expect_open_error(bad_gamma, 1, 1, "solvers.tait.gamma: 0.5 is out of range [1, 10]");
    const char *bad_boundary[] = {"solvers.tait.boundary=\"ghost\""};
    expect_open_error(bad_boundary, 1, 1, "solvers.tait.boundary: expected one of \"mirror\", \"virtual\", got \"ghost\"");
    const char *bad_motion[] = {"colliders=[{\"type\": \"plane\", \"point\": [0.3, 0], \"normal\": [-1, 0],"
                                " \"moving_until\": -1}]"};
    expect_open_error(bad_motion, 1, 1, "colliders[0].moving_until: expected a number >= 0, got -1");
}

/* The stiffness entry tait declares for itself (its own description) must stay the key world.h declares
 * for every SPH solver: the same id, type, flags, default, range and unit, so that a scene's value
 * means the same for each; only the description differs, and it says when tait reads the value. */
static void stiffness_entry_is_the_shared_key(void **state)
{
    (void)state;
    static const eddy_param_desc shared = EDDY_MATERIAL_STIFFNESS_DESC;
    eddy_sim sim;
    open_scene("tait_dam_break_2d.json", NULL, 0, 0, &sim);
    const eddy_component *c = sim.solver_entry->component;
    const int i = eddy_param_find(c->material_params, c->material_param_count, "stiffness");
    assert_true(i >= 0);
    const eddy_param_desc *d = eddy_param_at(c->material_params, (size_t)i);
    printf("  tait's stiffness: %s\n", d->doc);
    assert_string_equal(d->id, shared.id);
    assert_int_equal(d->type, shared.type);
    assert_int_equal(d->flags, shared.flags);
    assert_true(d->def == shared.def && d->min == shared.min && d->max == shared.max);
    assert_string_equal(d->unit, shared.unit);
    assert_string_not_equal(d->doc, shared.doc);
    assert_non_null(strstr(d->doc, "solvers.tait.sound_speed"));
    eddy_sim_close(&sim);
}

/* Two materials side by side in a 2D tank under gravity; the test sets their stiffness. */
static const char *const TWO_MATERIALS =
    "{\"solver\": \"tait\", \"dimensions\": 2, \"time\": {\"dt\": 0.0001, \"end\": 1},"
    " \"world\": {\"gravity\": [0, -9.81], \"smoothing_radius\": 0.02},"
    " \"container\": {\"min\": [0, 0], \"max\": [0.2, 0.2]},"
    " \"materials\": [{\"name\": \"a\", \"particle_spacing\": 0.01}, {\"name\": \"b\", \"particle_spacing\": 0.01}],"
    " \"fluids\": [{\"material\": \"a\", \"box\": {\"min\": [0, 0], \"max\": [0.1, 0.1]}},"
    "            {\"material\": \"b\", \"box\": {\"min\": [0.1, 0], \"max\": [0.2, 0.05]}}]}";

/* Opens TWO_MATERIALS with `sets`, with what the host logs on stderr meanwhile in log[n]; returns
 * 10 sqrt(2 |g| H) from the opened particles' vertical span H (derived_sound_speed checks the solver
 * takes that c0). stderr is restored before anything can fail. */
static double open_capturing_log(const char *const *sets, size_t nsets, char *log, size_t n)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    fflush(stderr);
    const int saved = dup(fileno(stderr));
    assert_true(saved >= 0);
    dup2(fileno(f), fileno(stderr));
    eddy_scene scene;
    eddy_error err;
    eddy_sim sim;
    int rc = eddy_scene_parse(TWO_MATERIALS, "inline.json", sets, nsets, &scene, &err);
    if (!rc) rc = eddy_sim_open(&scene, NULL, &sim, &err);
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    rewind(f);
    const size_t got = fread(log, 1, n - 1, f);
    log[got] = '\0';
    fclose(f);
    if (rc) fail_msg("%s", err.message);
    printf("%s", log);
    const eddy_particles *p = host_particles(&sim);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < p->count; ++i) {
        lo = p->y[i] < lo ? p->y[i] : lo;
        hi = p->y[i] > hi ? p->y[i] : hi;
    }
    eddy_sim_close(&sim);
    return 10 * sqrt(2 * 9.81 * (hi - lo));
}

/* Under gravity without sound_speed, c0 comes from the fall height and a stiffness the scene gives
 * changes nothing: the run says so, once, naming each such value. Without gravity (c0 = sqrt(k)) or
 * with sound_speed given it says nothing, nor for the default stiffness (the only value the ABI does
 * not tell from one left out). */
static void unused_stiffness_is_said(void **state)
{
    (void)state;
    static const char *const why = "no effect: with gravity the speed of sound is derived from the fall height";
    static const char *const hint = "set solvers.tait.sound_speed to choose c0\n";
    char log[8192], want[1024];
    const char *one[] = {"materials[0].stiffness=40000"};
    double c0 = open_capturing_log(one, 1, log, sizeof log);
    snprintf(want, sizeof want, "eddy: tait: materials[0].stiffness = 40000 has %s (c0 = %.4g m/s); %s", why, c0, hint);
    assert_non_null(strstr(log, want));
    assert_null(strstr(strstr(log, want) + strlen(want), "no effect"));

    const char *two[] = {"materials[0].stiffness=40000", "materials[1].stiffness=0"};
    c0 = open_capturing_log(two, 2, log, sizeof log);
    snprintf(want, sizeof want,
             "eddy: tait: materials[0].stiffness = 40000, materials[1].stiffness = 0 have %s (c0 = %.4g m/s); %s", why,
             c0, hint);
    assert_non_null(strstr(log, want));
    assert_null(strstr(strstr(log, want) + strlen(want), "no effect"));

    const char *no_gravity[] = {"materials[0].stiffness=40000", "world.gravity=[0, 0]"};
    open_capturing_log(no_gravity, 2, log, sizeof log);
    assert_non_null(strstr(log, "no gravity: sound speed c0 = sqrt(stiffness)"));
    assert_null(strstr(log, "no effect"));

    const char *given_c0[] = {"materials[0].stiffness=40000", "solvers.tait.sound_speed=20"};
    open_capturing_log(given_c0, 2, log, sizeof log);
    assert_null(strstr(log, "no effect"));

    const char *by_default[] = {"materials[1].stiffness=1000"};
    open_capturing_log(by_default, 1, log, sizeof log);
    assert_non_null(strstr(log, "sound speed c0 = 10 sqrt(2 |g| H)"));
    assert_null(strstr(log, "no effect"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest all[] = {
        cmocka_unit_test(piston),
        cmocka_unit_test(momentum_conserved_periodic),
        cmocka_unit_test(same_hash_for_1_and_2_threads),
        cmocka_unit_test(shifting_same_hash_for_1_and_2_threads),
        cmocka_unit_test(time_step_limit),
        cmocka_unit_test(derived_sound_speed),
        cmocka_unit_test(energy_bounded_variational),
        cmocka_unit_test(virtual_wall_pushes_alike),
        cmocka_unit_test(dam_break_3d_runs_to_the_end),
        cmocka_unit_test(errors_name_the_problem),
        cmocka_unit_test(halo_copies_are_read_not_written),
        cmocka_unit_test(stiffness_entry_is_the_shared_key),
        cmocka_unit_test(unused_stiffness_is_said),
    };
    return support_run_tests("test_tait", argc, argv, all, sizeof all / sizeof *all);
}
