/*
 * The "force" probe (host/observe/probe_force.c) against closed-form hydrostatics: a lattice of
 * particles filling a tank to depth H around solids, each carrying the pressure p = rho g (H - y) of
 * the column above it, must push on each surface with the integral of that pressure over the surface:
 * a floor with rho g H times its area, a side wall with rho g H^2 / 2 times its width, a submerged box
 * or ball with its buoyancy rho g V (Archimedes) and no sideways force, a tilted plane under the water
 * with the integrals written out below, and a floor wholly under a solid with nothing. The values are
 * worked out by hand from the geometry, not from the probe. The scene uses simulation_scale 2, so a
 * force whose area is left in simulation units reads 2 (2D) or 4 (3D) times too much.
 *
 * The bars: the pressure is linear, so the probe's linear fit reproduces it at every sample and the
 * midpoint rule integrates it exactly on flat faces (equal angles on a circle: exact for the
 * first-order trigonometric integrand); what remains is the corners and edges where few particles are
 * near (the walls read 0.03% high in 2D, 0.11% in 3D; the right wall over the tilted plane 0.07%), and
 * in 3D the Fibonacci sphere's quadrature (0.001%). The bars are 0.1% (0.2% for the wall beside the
 * plane, 0.3% for the 3D walls). A Shepard average in place of the fit reads the pressure about 0.3 h
 * inside the liquid: 1% low on this floor (h = 0.02 under 0.6 m of water), 10 times its bar. Forces
 * that vanish by the symmetry of their surface (a box's or a ball's sideways) are checked where the
 * faces' terms must cancel; a container wall's off-axis component is 0 by construction and is not.
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
#include <omp.h>

#include <eddy/eddy.h>

#include "frame.h"
#include "probes.h"
#include "services.h"
#include "scene.h"

#define RHO 1000.0
#define G 9.81
#define DEPTH 0.6   /* world m */
#define SCALE 2.0

static eddy_registry *registry(void)
{
    static eddy_registry *reg;
    eddy_error err;
    if (!reg && eddy_services_registry(1, &reg, &err)) fail_msg("%s", err.message);
    return reg;
}

/* The scene of `text`, its probes parsed and its world built (not yet opened). */
static void open_scene(const char *text, eddy_scene *scene, eddy_probes **probes, eddy_world **w)
{
    eddy_error err;
    if (eddy_scene_parse(text, "force.json", NULL, 0, scene, &err)) fail_msg("%s", err.message);
    if (eddy_probes_parse(scene, registry(), probes, &err)) fail_msg("%s", err.message);
    const eddy_scene_build with = {.registry = registry()};
    if (eddy_scene_build_world(scene, &with, w, &err)) fail_msg("%s", err.message);
}

/* A world of `scene_text` whose own fluid block is moved out of the way (NaN), then the lattice of
 * spacing dx (world m) over the container up to DEPTH, without the points inside a collider, each at
 * rest density with the hydrostatic pressure; the probes measured once into values. */
static double layering; /* Pa, added to even particle layers and taken from odd ones */

static void measure(const char *scene_text, double dx, double *values, size_t count)
{
    eddy_scene scene;
    eddy_probes *probes;
    eddy_world *w;
    eddy_error err;
    open_scene(scene_text, &scene, &probes, &w);
    assert_int_equal(eddy_probes_count(probes), count);
    eddy_particles *p = &w->particles;
    for (size_t i = 0; i < p->count; ++i) p->x[i] = NAN;
    const size_t first = p->count;
    const int d = w->dimensions;
    const eddy_boundaries *b = &w->boundaries;
    const long n[3] = {lround(1.0 / dx), lround(DEPTH / dx), d == 3 ? lround(1.0 / dx) : 1};
    for (long k = 0; k < n[2]; ++k)
        for (long j = 0; j < n[1]; ++j)
            for (long i = 0; i < n[0]; ++i) {
                const float pos[3] = {(float)((i + 0.5) * dx * SCALE), (float)((j + 0.5) * dx * SCALE),
                                      d == 3 ? (float)((k + 0.5) * dx * SCALE) : 0.0f};
                int inside = 0;
                for (size_t c = 0; c < b->collider_count && !inside; ++c)
                    inside = eddy_collider_distance(&b->colliders[c], d, pos, NULL) < 0;
                if (!inside && eddy_world_add_particles(w, 1, pos, NULL, 0, &err)) fail_msg("%s", err.message);
            }
    assert_true(p->count > first);
    for (size_t i = first; i < p->count; ++i) {
        p->density[i] = (float)RHO;
        const double y = (double)p->y[i] / SCALE;
        /* + (-1)^layer layering: the solvers' pressure alternates between particle layers at rest */
        const long layer = lround(y / dx - 0.5);
        p->pressure[i] = (float)(RHO * G * (DEPTH - y) + (layer % 2 ? -layering : layering));
    }
    if (eddy_probes_open(probes, w, eddy_services_host(), &err)) fail_msg("%s", err.message);
    eddy_frame frame;
    if (eddy_frame_of_host_copy(w, 0, &frame, &err)) fail_msg("%s", err.message);
    if (eddy_probes_measure(probes, &frame, values, &err)) fail_msg("%s", err.message);
    eddy_frame_release(&frame);
    eddy_probes_close(probes);
    eddy_probes_destroy(probes);
    eddy_world_destroy(w);
    eddy_scene_free(&scene);
}

static void expect_near(const char *what, double value, double expected, double bar)
{
    const double err = fabs(value / expected - 1.0);
    printf("%-40s %12.4f expected %12.4f  error %.5f (bar %.4f)\n", what, value, expected, err, bar);
    if (!(err <= bar)) fail_msg("%s: %.6g, expected %.6g within %g (error %.4g)", what, value, expected, bar, err);
}

static void expect_small(const char *what, double value, double scale, double bar)
{
    printf("%-40s %12.4f against %12.4f  ratio %.5f (bar %.4f)\n", what, value, scale, fabs(value) / scale, bar);
    if (!(fabs(value) <= bar * scale)) fail_msg("%s: %.6g, expected 0 within %g of %g", what, value, bar, scale);
}

static const char *const HEAD_2D =
    "{\"name\": \"force\", \"dimensions\": 2, \"solver\": \"sph_mueller\", \"time\": {\"dt\": 0.001, \"end\": 0.1},"
    " \"world\": {\"gravity\": [0, -9.81], \"smoothing_radius\": 0.04, \"simulation_scale\": 2},"
    " \"container\": {\"min\": [0, 0], \"max\": [1, 1]},"
    " \"materials\": [{\"name\": \"water\", \"rest_density\": 1000, \"particle_spacing\": 0.01}],"
    " \"fluids\": [{\"material\": \"water\", \"box\": {\"min\": [0.9, 0.9], \"max\": [0.95, 0.95]}}],";

/* 2D: a box [0.2, 0.4] x [0.2, 0.3] and a disc of radius 0.1 at (0.7, 0.3) under 0.6 m of water. */
static const char *const TANK_2D_COLLIDERS =
    "\"colliders\": [{\"type\": \"box\", \"min\": [0.2, 0.2], \"max\": [0.4, 0.3]},"
    " {\"type\": \"sphere\", \"center\": [0.7, 0.3], \"radius\": 0.1}],";

static void tank_2d(void **state)
{
    (void)state;
    char text[4096];
    snprintf(text, sizeof text,
             "%s %s"
             " \"probes\": [{\"name\": \"floor\", \"kind\": \"force\", \"wall\": \"-y\", \"axis\": \"-y\"},"
             " {\"name\": \"left\", \"kind\": \"force\", \"wall\": \"-x\", \"axis\": \"-x\"},"
             " {\"name\": \"right\", \"kind\": \"force\", \"wall\": \"+x\", \"axis\": \"+x\"},"
             " {\"name\": \"lid\", \"kind\": \"force\", \"wall\": \"+y\", \"axis\": \"y\"},"
             " {\"name\": \"box_up\", \"kind\": \"force\", \"collider\": 0, \"axis\": \"y\"},"
             " {\"name\": \"box_x\", \"kind\": \"force\", \"collider\": 0, \"axis\": \"x\"},"
             " {\"name\": \"disc_up\", \"kind\": \"force\", \"collider\": 1, \"axis\": \"y\"},"
             " {\"name\": \"disc_x\", \"kind\": \"force\", \"collider\": 1, \"axis\": \"-x\"}]}",
             HEAD_2D, TANK_2D_COLLIDERS);
    double v[8];
    measure(text, 0.01, v, 8);
    const double rg = RHO * G;
    expect_near("2D floor: rho g H L", v[0], rg * DEPTH * 1.0, 0.001);
    expect_near("2D left wall: rho g H^2 / 2", v[1], 0.5 * rg * DEPTH * DEPTH, 0.001);
    expect_near("2D right wall: rho g H^2 / 2", v[2], 0.5 * rg * DEPTH * DEPTH, 0.001);
    assert_true(v[3] == 0.0); /* the lid is dry */
    expect_near("2D box: buoyancy rho g A", v[4], rg * 0.2 * 0.1, 0.001);
    expect_small("2D box, sideways", v[5], rg * 0.2 * 0.1, 0.001);
    expect_near("2D disc: buoyancy rho g pi r^2", v[6], rg * M_PI * 0.01, 0.001);
    expect_small("2D disc, sideways", v[7], rg * M_PI * 0.01, 0.001);
}

/*
 * 2D: a plane through (0, 0.1) with normal (-0.2, 1) (solid below y = 0.1 + 0.2 x), the water above
 * it up to 0.6. On the plane p = rho g (0.5 - 0.2 x) for x in [0, 1], n = (-0.2, 1) / sqrt(1.04) out of
 * the solid, dA = sqrt(1.04) dx, so F = -int p n dA = rho g (0.2, -1) int_0^1 (0.5 - 0.2 x) dx
 * = rho g (0.08, -0.4). The left wall is wet over [0.1, 0.6] (rho g 0.5^2 / 2), the right over
 * [0.3, 0.6] (rho g 0.3^2 / 2), and the floor lies wholly in the plane's solid: no force.
 */
static void tilted_plane_2d(void **state)
{
    (void)state;
    char text[4096];
    snprintf(text, sizeof text,
             "%s \"colliders\": [{\"type\": \"plane\", \"point\": [0, 0.1], \"normal\": [-0.2, 1]}],"
             " \"probes\": [{\"name\": \"plane_down\", \"kind\": \"force\", \"collider\": 0, \"axis\": \"-y\"},"
             " {\"name\": \"plane_x\", \"kind\": \"force\", \"collider\": 0, \"axis\": \"x\"},"
             " {\"name\": \"left\", \"kind\": \"force\", \"wall\": \"-x\", \"axis\": \"-x\"},"
             " {\"name\": \"right\", \"kind\": \"force\", \"wall\": \"+x\", \"axis\": \"x\"},"
             " {\"name\": \"floor\", \"kind\": \"force\", \"wall\": \"-y\", \"axis\": \"-y\"}]}",
             HEAD_2D);
    double v[5];
    measure(text, 0.01, v, 5);
    const double rg = RHO * G;
    expect_near("2D tilted plane, down", v[0], rg * 0.4, 0.001);
    expect_near("2D tilted plane, along +x", v[1], rg * 0.08, 0.001);
    expect_near("2D left wall over [0.1, 0.6]", v[2], 0.5 * rg * 0.25, 0.001);
    expect_near("2D right wall over [0.3, 0.6]", v[3], 0.5 * rg * 0.09, 0.002);
    assert_true(v[4] == 0.0);
}

/* 3D: a unit tank, 0.6 m of water, a box [0.2, 0.4] x [0.2, 0.3] x [0.3, 0.5] and a ball of radius 0.1
 * at (0.7, 0.3, 0.5). */
static void tank_3d(void **state)
{
    (void)state;
    const char *text =
        "{\"name\": \"force\", \"dimensions\": 3, \"solver\": \"sph_mueller\", \"time\": {\"dt\": 0.001, \"end\": 0.1},"
        " \"world\": {\"gravity\": [0, -9.81, 0], \"smoothing_radius\": 0.08, \"simulation_scale\": 2},"
        " \"container\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},"
        " \"materials\": [{\"name\": \"water\", \"rest_density\": 1000, \"particle_spacing\": 0.02}],"
        " \"fluids\": [{\"material\": \"water\", \"box\": {\"min\": [0.9, 0.9, 0.9], \"max\": [0.95, 0.95, 0.95]}}],"
        " \"colliders\": [{\"type\": \"box\", \"min\": [0.2, 0.2, 0.3], \"max\": [0.4, 0.3, 0.5]},"
        " {\"type\": \"sphere\", \"center\": [0.7, 0.3, 0.5], \"radius\": 0.1}],"
        " \"probes\": [{\"name\": \"floor\", \"kind\": \"force\", \"wall\": \"-y\", \"axis\": \"-y\"},"
        " {\"name\": \"back\", \"kind\": \"force\", \"wall\": \"-z\", \"axis\": \"-z\"},"
        " {\"name\": \"right\", \"kind\": \"force\", \"wall\": \"+x\", \"axis\": \"x\"},"
        " {\"name\": \"box_up\", \"kind\": \"force\", \"collider\": 0, \"axis\": \"y\"},"
        " {\"name\": \"box_z\", \"kind\": \"force\", \"collider\": 0, \"axis\": \"z\"},"
        " {\"name\": \"ball_up\", \"kind\": \"force\", \"collider\": 1, \"axis\": \"y\"},"
        " {\"name\": \"ball_x\", \"kind\": \"force\", \"collider\": 1, \"axis\": \"x\"}]}";
    double v[7], again[7];
    omp_set_num_threads(1);
    measure(text, 0.02, v, 7);
    /* Samples are fitted in parallel and summed in one order: the same bits on any number of threads. */
    omp_set_num_threads(3);
    measure(text, 0.02, again, 7);
    for (int k = 0; k < 7; ++k)
        if (memcmp(&v[k], &again[k], sizeof v[k]) != 0) fail_msg("probe %d: %.17g on 1 thread, %.17g on 3", k, v[k], again[k]);
    const double rg = RHO * G;
    expect_near("3D floor: rho g H A", v[0], rg * DEPTH, 0.001);
    expect_near("3D back wall: rho g H^2 / 2 W", v[1], 0.5 * rg * DEPTH * DEPTH, 0.003);
    expect_near("3D right wall: rho g H^2 / 2 W", v[2], 0.5 * rg * DEPTH * DEPTH, 0.003);
    expect_near("3D box: buoyancy rho g V", v[3], rg * 0.2 * 0.1 * 0.2, 0.001);
    expect_small("3D box, sideways", v[4], rg * 0.2 * 0.1 * 0.2, 0.001);
    expect_near("3D ball: buoyancy rho g 4/3 pi r^3", v[5], rg * 4.0 / 3.0 * M_PI * 1e-3, 0.001);
    expect_small("3D ball, sideways", v[6], rg * 4.0 / 3.0 * M_PI * 1e-3, 0.001);
}

/*
 * At rest the solvers' pressure alternates from one particle layer to the next near a wall (a user trial
 * read 876 / 972 / 807 / 850 Pa going up from a floor). A fit over the two layers within one smoothing
 * radius extended that step to the wall: floors 4-16% low on water at rest, and a submerged disc's
 * buoyancy with the wrong sign. Here the hydrostatic field of tank_2d carries +-5% of the floor's
 * pressure alternating by layer; the floor, the box's and the disc's buoyancy must stay near their
 * hydrostatic values. Bars: 0.6 of the layering on the floor (a line through alternating layers keeps
 * about half of it at the wall; the fit over the two layers within h read twice it), its whole size over
 * the box's and the disc's projected width (top and bottom see layers of opposite sign here).
 */
static void layered_pressure_2d(void **state)
{
    (void)state;
    char text[4096];
    snprintf(text, sizeof text,
             "%s %s"
             " \"probes\": [{\"name\": \"floor\", \"kind\": \"force\", \"wall\": \"-y\", \"axis\": \"-y\"},"
             " {\"name\": \"box_up\", \"kind\": \"force\", \"collider\": 0, \"axis\": \"y\"},"
             " {\"name\": \"disc_up\", \"kind\": \"force\", \"collider\": 1, \"axis\": \"y\"}]}",
             HEAD_2D, TANK_2D_COLLIDERS);
    const double rg = RHO * G;
    layering = 0.05 * rg * DEPTH;
    double v[3];
    measure(text, 0.01, v, 3);
    layering = 0.0;
    /* The layering's own size on each surface: its amplitude over the surface's projected area. */
    expect_near("2D floor under layered pressure", v[0], rg * DEPTH, 0.03);
    expect_near("2D box under layered pressure", v[1], rg * 0.2 * 0.1, 0.05 * rg * DEPTH * 0.2 / (rg * 0.02));
    expect_near("2D disc under layered pressure", v[2], rg * M_PI * 0.01, 0.05 * rg * DEPTH * 0.2 / (rg * M_PI * 0.01));
}

/* Each refusal names the key and what it needs. */
static void refusals(void **state)
{
    (void)state;
    static const struct {
        const char *probe, *message;
    } CASES[] = {
        {"{\"name\": \"f\", \"kind\": \"force\", \"axis\": \"y\"}",
         "probes[0]: expected the surface the force acts on: `wall` (a container side, \"-y\" for the "
         "floor) or `collider` (an index into the scene's colliders)"},
        {"{\"name\": \"f\", \"kind\": \"force\", \"axis\": \"y\", \"wall\": \"-y\", \"collider\": 0}",
         "probes[0]: expected `wall` or `collider`, got both"},
        {"{\"name\": \"f\", \"kind\": \"force\", \"axis\": \"y\", \"wall\": \"-z\"}",
         "probes[0].wall: expected \"-x\", \"+x\", \"-y\" or \"+y\", got \"-z\""},
        {"{\"name\": \"f\", \"kind\": \"force\", \"axis\": \"y\", \"collider\": 2}",
         "probes[0].collider: expected an index into the scene's 1 collider (0 to 0), got 2"},
        {"{\"name\": \"f\", \"kind\": \"force\", \"axis\": \"z\", \"collider\": 0}",
         "probes[0].axis: expected \"x\", \"y\", \"-x\" or \"-y\" (\"+x\" is \"x\"), got \"z\""},
    };
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; ++c) {
        char text[4096];
        snprintf(text, sizeof text,
                 "%s \"colliders\": [{\"type\": \"sphere\", \"center\": [0.5, 0.5], \"radius\": 0.1}],"
                 " \"probes\": [%s]}",
                 HEAD_2D, CASES[c].probe);
        eddy_scene scene;
        eddy_probes *probes;
        eddy_world *w;
        eddy_error err;
        open_scene(text, &scene, &probes, &w);
        int rc = eddy_probes_open(probes, w, eddy_services_host(), &err);
        printf("%s\n", rc ? err.message : "(accepted)");
        assert_int_not_equal(rc, 0);
        if (!strstr(err.message, CASES[c].message)) fail_msg("got '%s', expected '%s'", err.message, CASES[c].message);
        eddy_probes_destroy(probes);
        eddy_world_destroy(w);
        eddy_scene_free(&scene);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tank_2d),
        cmocka_unit_test(tilted_plane_2d),
        cmocka_unit_test(tank_3d),
        cmocka_unit_test(layered_pressure_2d),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
