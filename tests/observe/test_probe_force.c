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
 *
 * The "moment" probe (same file) sums the same samples with the lever arm: M = ∮ (x - a) x (-p n) dA
 * about the point a. Its closed forms are derived above each test; a lever arm left in simulation units
 * reads 2 times too much, one measured from the origin instead of `about` or of the wrong sign misses
 * every one of them.
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
 * at (0.7, 0.3, 0.5); the scene's text after its name, up to its probes. */
#define TANK_3D                                                                                              \
    "\"dimensions\": 3, \"solver\": \"sph_mueller\", \"time\": {\"dt\": 0.001, \"end\": 0.1},"                \
    " \"world\": {\"gravity\": [0, -9.81, 0], \"smoothing_radius\": 0.08, \"simulation_scale\": 2},"            \
    " \"container\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},"                                                \
    " \"materials\": [{\"name\": \"water\", \"rest_density\": 1000, \"particle_spacing\": 0.02}],"              \
    " \"fluids\": [{\"material\": \"water\", \"box\": {\"min\": [0.9, 0.9, 0.9], \"max\": [0.95, 0.95, 0.95]}}]," \
    " \"colliders\": [{\"type\": \"box\", \"min\": [0.2, 0.2, 0.3], \"max\": [0.4, 0.3, 0.5]},"                 \
    " {\"type\": \"sphere\", \"center\": [0.7, 0.3, 0.5], \"radius\": 0.1}],"

/* The probes on 1 thread and again on 3: samples are fitted in parallel and summed in one order, so
 * the bits must be the same. */
static void measure_on_1_and_3_threads(const char *text, double *v, size_t n)
{
    double again[16];
    assert_true(n <= 16);
    omp_set_num_threads(1);
    measure(text, 0.02, v, n);
    omp_set_num_threads(3);
    measure(text, 0.02, again, n);
    for (size_t k = 0; k < n; ++k)
        if (memcmp(&v[k], &again[k], sizeof v[k]) != 0) fail_msg("probe %zu: %.17g on 1 thread, %.17g on 3", k, v[k], again[k]);
}

static void tank_3d(void **state)
{
    (void)state;
    const char *text =
        "{\"name\": \"force\", " TANK_3D
        " \"probes\": [{\"name\": \"floor\", \"kind\": \"force\", \"wall\": \"-y\", \"axis\": \"-y\"},"
        " {\"name\": \"back\", \"kind\": \"force\", \"wall\": \"-z\", \"axis\": \"-z\"},"
        " {\"name\": \"right\", \"kind\": \"force\", \"wall\": \"+x\", \"axis\": \"x\"},"
        " {\"name\": \"box_up\", \"kind\": \"force\", \"collider\": 0, \"axis\": \"y\"},"
        " {\"name\": \"box_z\", \"kind\": \"force\", \"collider\": 0, \"axis\": \"z\"},"
        " {\"name\": \"ball_up\", \"kind\": \"force\", \"collider\": 1, \"axis\": \"y\"},"
        " {\"name\": \"ball_x\", \"kind\": \"force\", \"collider\": 1, \"axis\": \"x\"}]}";
    double v[7];
    measure_on_1_and_3_threads(text, v, 7);
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

/*
 * 2D moments in tank_2d's scene (depth H = 0.6, width L = 1, p = rho g (H - y); right-handed, "z"
 * counterclockwise; a force f at x about a turns by ((x - a) x f)_z = (x - a)_x f_y - (x - a)_y f_x).
 *
 * Left wall (x = 0, n = (1, 0) out of the solid): the pressure pushes it with f = (-p, 0) dy at (0, y).
 *   About its foot (0, 0): M_z = int_0^H -y (-p) dy = rho g int_0^H y (H - y) dy = rho g H^3 / 6.
 *   About (0, H): M_z = int_0^H (y - H) p dy = rho g H^3 / 6 - H rho g H^2 / 2 = -rho g H^3 / 3.
 *   With F = rho g H^2 / 2 along -x (a force probe's "-x"), M / F = H / 3: the centre of pressure a
 *   third of the depth above the floor.
 * Right wall (x = L, n = (-1, 0)), f = (p, 0) dy at (L, y), about (L, 0): M_z = -rho g H^3 / 6.
 * Floor (y = 0, n = (0, 1)), f = (0, -rho g H) dx at (x, 0), about its left corner (0, 0):
 *   M_z = int_0^L x (-rho g H) dx = -rho g H L^2 / 2, so "-z" reads rho g H L^2 / 2 (clockwise).
 * A submerged body: its moment about a, M_a = M_c - (a - c) x F, shifted from any point c. The box
 *   [0.2, 0.4] x [0.2, 0.3] is symmetric about x = 0.3 under a pressure depending on y alone: its side
 *   faces' moments about its centre c = (0.3, 0.25) cancel (equal pushes, opposite sides, same heights)
 *   and its top's and bottom's vanish (odd in x - 0.3), so M_c = 0; F = (0, rho g A), A = 0.02, so
 *   about c + (d, 0): M_z = -d rho g A, -0.1 rho g A for d = 0.1 (an upward push left of the point
 *   turns clockwise). The disc's pressure acts along its normals, through its centre: M_c = 0 sample by
 *   sample, and about its centre moved by d = -0.2 along x, M_z = 0.2 rho g pi r^2.
 * The bars: a wall's samples above the free surface whose fit reaches the top particle layer alone
 * (a band one spacing dx wide, R - dx/2 above it, R = 3 h) take that layer's mean, rho g dx / 2: a
 * force of about rho g dx^2 / 2 per unit width that the force probe shares (it is most of its walls'
 * 0.03% here, 0.11% in 3D), at a height of about H + R - dx. About the foot that is a moment of
 * rho g dx^2 / 2 (H + R - dx), 0.09% of rho g H^3 / 6 here (dx = 0.01, R = 0.06), 0.39% in 3D (dx =
 * 0.02, R = 0.12); about (0, H) its arm is R - dx, 8 times shorter. Bars: 0.1% over that, 0.2% about
 * the foot and for M / F from it, 0.1% about the top; a vanishing moment within 0.1% of the
 * buoyancy times the body's half-width.
 */
static void moment_2d(void **state)
{
    (void)state;
    char text[8192];
    snprintf(text, sizeof text,
             "%s %s"
             " \"probes\": [{\"name\": \"left_force\", \"kind\": \"force\", \"wall\": \"-x\", \"axis\": \"-x\"},"
             " {\"name\": \"left_foot\", \"kind\": \"moment\", \"wall\": \"-x\", \"about\": [0, 0], \"axis\": \"z\"},"
             " {\"name\": \"left_top\", \"kind\": \"moment\", \"wall\": \"-x\", \"about\": [0, 0.6]},"
             " {\"name\": \"right_foot\", \"kind\": \"moment\", \"wall\": \"+x\", \"about\": [1, 0, 5], \"axis\": \"-z\"},"
             " {\"name\": \"floor\", \"kind\": \"moment\", \"wall\": \"-y\", \"about\": [0, 0], \"axis\": \"-z\"},"
             " {\"name\": \"floor_z\", \"kind\": \"moment\", \"wall\": \"-y\", \"about\": [0, 0], \"axis\": \"+z\"},"
             " {\"name\": \"box_c\", \"kind\": \"moment\", \"collider\": 0, \"about\": [0.3, 0.25]},"
             " {\"name\": \"box_d\", \"kind\": \"moment\", \"collider\": 0, \"about\": [0.4, 0.25], \"axis\": \"z\"},"
             " {\"name\": \"disc_c\", \"kind\": \"moment\", \"collider\": 1, \"about\": [0.7, 0.3]},"
             " {\"name\": \"disc_d\", \"kind\": \"moment\", \"collider\": 1, \"about\": [0.5, 0.3]}]}",
             HEAD_2D, TANK_2D_COLLIDERS);
    double v[10];
    measure(text, 0.01, v, 10);
    const double rg = RHO * G, H = DEPTH, L = 1.0, box = rg * 0.2 * 0.1, disc = rg * M_PI * 0.01;
    expect_near("2D left wall about its foot: rho g H^3/6", v[1], rg * H * H * H / 6, 0.002);
    expect_near("2D left wall about (0, H): -rho g H^3/3", v[2], -rg * H * H * H / 3, 0.001);
    expect_near("2D left wall's centre of pressure: H/3", v[1] / v[0], H / 3, 0.002);
    expect_near("2D left wall's, from the top: -2H/3", v[2] / v[0], -2 * H / 3, 0.001);
    expect_near("2D right wall about its foot, -z", v[3], rg * H * H * H / 6, 0.002);
    expect_near("2D floor about (0, 0), -z: rho g H L^2/2", v[4], rg * H * L * L / 2, 0.001);
    expect_near("2D floor about (0, 0), +z", v[5], -rg * H * L * L / 2, 0.001);
    expect_small("2D box about its centre", v[6], box * 0.1, 0.001);
    expect_near("2D box about c + (0.1, 0): -0.1 rho g A", v[7], -0.1 * box, 0.001);
    expect_small("2D disc about its centre", v[8], disc * 0.1, 0.001);
    expect_near("2D disc about c - (0.2, 0): 0.2 rho g pi r^2", v[9], 0.2 * disc, 0.001);
}

/*
 * 3D moments in tank_3d's scene (H = 0.6, walls W = 1 wide). The back wall (z = 0, n = (0, 0, 1)) is
 * pushed by f = (0, 0, -p) dA at (x, y, 0); about the origin, on the line of its foot along x,
 * (r x f)_x = r_y f_z - r_z f_y = -y p, so M_x = -W rho g H^3 / 6: "-x" reads rho g H^3 W / 6. Its
 * y component about the foot's midpoint (0.5, 0, 0), (r x f)_y = r_z f_x - r_x f_z = (x - 0.5) p, is
 * odd in x - 0.5: 0. The right wall (x = 1, n = (-1, 0, 0)), f = (p, 0, 0) dA at (1, y, z), about
 * (1, 0, 0): (r x f)_z = r_x f_y - r_y f_x = -y p, M_z = -W rho g H^3 / 6, "-z" rho g H^3 W / 6. The
 * box [0.2, 0.4] x [0.2, 0.3] x [0.3, 0.5], centre c = (0.3, 0.25, 0.4), F = (0, rho g V, 0): M_c = 0 by
 * its symmetry in x and z; about c + (0.1, 0, 0), M = -(0.1, 0, 0) x F, M_z = -0.1 rho g V; about
 * c + (0, 0, 0.1), M = -(0, 0, 0.1) x F, M_x = 0.1 rho g V. The ball's normals pass through its centre:
 * M = 0 there. Bars: about the feet 0.5%, the band above the free surface (moment_2d: 0.39% here)
 * and 0.1%; about the top (0, H, 0), M_x = -int (y - H) (-p) dA = rho g H^3 W / 3, 0.1%; the bodies'
 * as the buoyancy's, 0.1%. Measured on 1 and on 3 threads: the same bits.
 */
static void moment_3d(void **state)
{
    (void)state;
    const char *text =
        "{\"name\": \"moment\", " TANK_3D
        " \"probes\": [{\"name\": \"back_foot\", \"kind\": \"moment\", \"wall\": \"-z\", \"about\": [0, 0, 0], \"axis\": \"-x\"},"
        " {\"name\": \"back_top\", \"kind\": \"moment\", \"wall\": \"-z\", \"about\": [0, 0.6, 0], \"axis\": \"x\"},"
        " {\"name\": \"back_y\", \"kind\": \"moment\", \"wall\": \"-z\", \"about\": [0.5, 0, 0], \"axis\": \"y\"},"
        " {\"name\": \"right_foot\", \"kind\": \"moment\", \"wall\": \"+x\", \"about\": [1, 0, 0], \"axis\": \"-z\"},"
        " {\"name\": \"box_c\", \"kind\": \"moment\", \"collider\": 0, \"about\": [0.3, 0.25, 0.4], \"axis\": \"z\"},"
        " {\"name\": \"box_dx\", \"kind\": \"moment\", \"collider\": 0, \"about\": [0.4, 0.25, 0.4], \"axis\": \"z\"},"
        " {\"name\": \"box_dz\", \"kind\": \"moment\", \"collider\": 0, \"about\": [0.3, 0.25, 0.5], \"axis\": \"+x\"},"
        " {\"name\": \"ball_x\", \"kind\": \"moment\", \"collider\": 1, \"about\": [0.7, 0.3, 0.5], \"axis\": \"x\"},"
        " {\"name\": \"ball_z\", \"kind\": \"moment\", \"collider\": 1, \"about\": [0.7, 0.3, 0.5], \"axis\": \"z\"}]}";
    double v[9];
    measure_on_1_and_3_threads(text, v, 9);
    const double rg = RHO * G, H = DEPTH, box = rg * 0.2 * 0.1 * 0.2, ball = rg * 4.0 / 3.0 * M_PI * 1e-3;
    expect_near("3D back wall about its foot: rho g H^3 W/6", v[0], rg * H * H * H / 6, 0.005);
    expect_near("3D back wall about (0, H, 0), x: rho g H^3 W/3", v[1], rg * H * H * H / 3, 0.001);
    expect_small("3D back wall about its foot's middle, y", v[2], rg * H * H / 2 * 0.5, 0.001);
    expect_near("3D right wall about its foot: rho g H^3 W/6", v[3], rg * H * H * H / 6, 0.005);
    expect_small("3D box about its centre", v[4], box * 0.1, 0.001);
    expect_near("3D box about c + 0.1 x, z: -0.1 rho g V", v[5], -0.1 * box, 0.001);
    expect_near("3D box about c + 0.1 z, x: 0.1 rho g V", v[6], 0.1 * box, 0.001);
    expect_small("3D ball about its centre, x", v[7], ball * 0.1, 0.001);
    expect_small("3D ball about its centre, z", v[8], ball * 0.1, 0.001);
}

/* A moment's refusals, each naming the key and what it needs: a 2D scene (head_2d) or a 3D one. */
static void moment_refusals(void **state)
{
    (void)state;
    static const char *const HEAD_3D =
        "{\"name\": \"force\", \"dimensions\": 3, \"solver\": \"sph_mueller\", \"time\": {\"dt\": 0.001, \"end\": 0.1},"
        " \"world\": {\"gravity\": [0, -9.81, 0], \"smoothing_radius\": 0.08},"
        " \"container\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},"
        " \"materials\": [{\"name\": \"water\", \"rest_density\": 1000, \"particle_spacing\": 0.02}],"
        " \"fluids\": [{\"material\": \"water\", \"box\": {\"min\": [0.9, 0.9, 0.9], \"max\": [0.95, 0.95, 0.95]}}],";
    static const struct {
        int dimensions;
        const char *probe, *message;
    } CASES[] = {
        {2, "{\"name\": \"m\", \"kind\": \"moment\", \"wall\": \"-x\"}",
         "probes[0].about: missing required key, expected an array of 1 to 3 numbers"},
        {2, "{\"name\": \"m\", \"kind\": \"moment\", \"wall\": \"-x\", \"about\": [0]}",
         "probes[0].about: expected an array of 2 (or 3) numbers, got 1 number"},
        {2, "{\"name\": \"m\", \"kind\": \"moment\", \"wall\": \"-x\", \"about\": [0, 0], \"axis\": \"x\"}",
         "probes[0].axis: expected \"z\" or \"-z\" (\"+z\" is \"z\"), got \"x\": in 2D the pressure forces and their "
         "lever arms lie in the x-y plane, so the moment has only a z component"},
        {2, "{\"name\": \"m\", \"kind\": \"moment\", \"wall\": \"-x\", \"about\": [0, 0], \"axis\": \"-y\"}",
         "probes[0].axis: expected \"z\" or \"-z\" (\"+z\" is \"z\"), got \"-y\""},
        {2, "{\"name\": \"m\", \"kind\": \"moment\", \"about\": [0, 0]}",
         "probes[0]: expected the surface the moment is taken of: `wall` (a container side, \"-y\" for the "
         "floor) or `collider` (an index into the scene's colliders)"},
        {2, "{\"name\": \"m\", \"kind\": \"moment\", \"about\": [0, 0], \"wall\": \"-y\", \"collider\": 0}",
         "probes[0]: expected `wall` or `collider`, got both"},
        {2, "{\"name\": \"m\", \"kind\": \"moment\", \"about\": [0, 0], \"collider\": 1}",
         "probes[0].collider: expected an index into the scene's 1 collider (0 to 0), got 1"},
        {3, "{\"name\": \"m\", \"kind\": \"moment\", \"wall\": \"-x\", \"about\": [0, 0, 0]}",
         "probes[0].axis: missing, expected \"x\", \"y\", \"z\", \"-x\", \"-y\" or \"-z\" in 3D: the component of "
         "the moment vector reported (only a 2D moment defaults to \"z\")"},
        {3, "{\"name\": \"m\", \"kind\": \"moment\", \"wall\": \"-x\", \"about\": [0, 0], \"axis\": \"z\"}",
         "probes[0].about: expected an array of 3 numbers, got 2 numbers"},
    };
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; ++c) {
        char text[4096];
        snprintf(text, sizeof text, "%s \"colliders\": [{\"type\": \"sphere\", \"center\": %s, \"radius\": 0.1}],"
                 " \"probes\": [%s]}",
                 CASES[c].dimensions == 2 ? HEAD_2D : HEAD_3D, CASES[c].dimensions == 2 ? "[0.5, 0.5]" : "[0.5, 0.5, 0.5]",
                 CASES[c].probe);
        eddy_scene scene;
        eddy_probes *probes = NULL;
        eddy_world *w = NULL;
        eddy_error err;
        if (eddy_scene_parse(text, "moment.json", NULL, 0, &scene, &err)) fail_msg("%s", err.message);
        /* A key the table requires is refused while the probes are read; the rest when they open. */
        int rc = eddy_probes_parse(&scene, registry(), &probes, &err);
        if (!rc) {
            const eddy_scene_build with = {.registry = registry()};
            if (eddy_scene_build_world(&scene, &with, &w, &err)) fail_msg("%s", err.message);
            rc = eddy_probes_open(probes, w, eddy_services_host(), &err);
            eddy_probes_destroy(probes);
            eddy_world_destroy(w);
        }
        printf("%s\n", rc ? err.message : "(accepted)");
        assert_int_not_equal(rc, 0);
        if (!strstr(err.message, CASES[c].message)) fail_msg("got '%s', expected '%s'", err.message, CASES[c].message);
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
        cmocka_unit_test(moment_2d),
        cmocka_unit_test(moment_3d),
        cmocka_unit_test(moment_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
