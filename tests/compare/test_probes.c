/*
 * Probes (host/observe/probes.c, the built-in probe components of host/observe/probes_builtin.c) against arrangements whose answers are known without the code: lattice blocks
 * built by the scene loader, whose front and height are the block's edges; imposed pressure fields
 * whose value at a point is the field's own; density fields whose mean over a box is the field at the
 * box's centre; and exact messages for bad "probes" sections and reference files.
 *
 * The blocks live in a world with simulation_scale 2 (sim lengths twice the world's), so a probe that
 * forgot a conversion reads twice or half the answer.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <eddy/eddy.h>

#include "probes.h"
#include "scene.h"
#include "sim_support.h"

/* World spacing 0.01, h = 2 spacings (sim 0.04 at scale 2). Line 8 holds the probes. */
static const char *const SCENE_2D =
    "{\n"
    "  \"name\": \"t\", \"dimensions\": 2, \"solver\": \"sph_mueller\",\n"
    "  \"time\": {\"dt\": 0.001, \"end\": 0.1},\n"
    "  \"world\": {\"gravity\": [0, -9.81], \"smoothing_radius\": 0.04, \"simulation_scale\": 2},\n"
    "  \"container\": {\"min\": [0, 0], \"max\": [1, 0.5]},\n"
    "  \"materials\": [{\"name\": \"water\", \"rest_density\": 1000, \"particle_spacing\": 0.01}],\n"
    "  \"fluids\": [{\"material\": \"water\", \"box\": {\"min\": [%s], \"max\": [%s]}}],\n"
    "  \"probes\": %s\n"
    "}\n";

static const double SCALE = 2.0, SPACING = 0.01, H_WORLD = 0.02;

/* The host's registry (services.h) as `eddy run` has it: the built-in writers and probes, and the
 * plugins, whose material tables make the scenes' material keys valid. */
static eddy_registry *registry(void)
{
    static eddy_registry *reg;
    eddy_error err;
    if (!reg && eddy_services_registry(1, &reg, &err)) fail_msg("%s", err.message);
    return reg;
}

/* A world for the scene without a solver (the probes need none). */
static void build_world(const eddy_scene *scene, eddy_world **w)
{
    eddy_error err;
    const eddy_scene_build with = {.registry = registry()};
    if (eddy_scene_build_world(scene, &with, w, &err)) fail_msg("%s", err.message);
}

typedef struct fixture {
    eddy_scene scene;
    eddy_world *w;
    eddy_probes *probes;
} fixture;

/* Parses the probes of a scene and creates their instances for its world. */
static void open_probes(fixture *f)
{
    eddy_error err;
    build_world(&f->scene, &f->w);
    if (eddy_probes_parse(&f->scene, registry(), &f->probes, &err)) fail_msg("%s", err.message);
    if (eddy_probes_open(f->probes, f->w, eddy_services_host(), &err)) fail_msg("%s", err.message);
}

static void open_fixture(fixture *f, const char *file, const char *text)
{
    eddy_error err;
    memset(f, 0, sizeof *f);
    if (eddy_scene_parse(text, file, NULL, 0, &f->scene, &err)) fail_msg("%s", err.message);
    open_probes(f);
}

static void open_2d(fixture *f, const char *min, const char *max, const char *probes)
{
    char text[4096];
    snprintf(text, sizeof text, SCENE_2D, min, max, probes);
    open_fixture(f, "inline.json", text);
}

static void close_fixture(fixture *f)
{
    eddy_probes_destroy(f->probes);
    eddy_world_destroy(f->w);
    eddy_scene_free(&f->scene);
}

/* One frame of the world as it is now (frame.h), measured. */
static void measure(const fixture *f, double *values)
{
    eddy_error err;
    eddy_frame frame;
    if (eddy_frame_take(f->w, 0, &frame, &err)) fail_msg("%s", err.message);
    if (eddy_probes_measure(f->probes, &frame, values, &err)) fail_msg("%s", err.message);
    eddy_frame_release(&frame);
}

/* Adds one particle of material 0 at a world position. */
static void add_particle(fixture *f, double x, double y, double z)
{
    float pos[3] = {(float)(x * SCALE), (float)(y * SCALE), (float)(z * SCALE)};
    eddy_error err;
    if (eddy_world_add_particles(f->w, 1, pos, NULL, 0, &err)) fail_msg("%s", err.message);
}

static void assert_near(double got, double want, double tol, const char *what)
{
    printf("  %-44s %.7f (expected %.7f)\n", what, got, want);
    if (!(fabs(got - want) <= tol)) fail_msg("%s: got %.9g, expected %.9g (tolerance %g)", what, got, want, tol);
}

/* ---------------------------------------------------------------------------------------------- */
/* Front and height                                                                                */
/* ---------------------------------------------------------------------------------------------- */

/*
 * A block [0, 0.2] x [0, 0.1] on a lattice: its front along +x is 0.2, along -x 0, its height at the
 * left wall 0.1, and nothing stands at x = 0.5. A droplet 3 smoothing radii ahead of the block, or
 * floating 3 radii above it, changes nothing; a particle within one radius of the edge extends the
 * liquid to its own edge.
 */
static void front_and_height_of_a_block(void **state)
{
    (void)state;
    fixture f;
    open_2d(&f, "0, 0", "0.2, 0.1",
            "[{\"name\": \"front\", \"kind\": \"front\", \"axis\": \"x\"},"
            " {\"name\": \"back\", \"kind\": \"front\", \"axis\": \"-x\"},"
            " {\"name\": \"h_wall\", \"kind\": \"height\", \"axis\": \"y\", \"at\": [0, 0]},"
            " {\"name\": \"h_far\", \"kind\": \"height\", \"axis\": \"y\", \"at\": [0.5, 0]},"
            " {\"name\": \"h_mid\", \"kind\": \"height\", \"axis\": \"y\", \"at\": [0.1, 0.04]}]");
    assert_int_equal(eddy_probes_count(f.probes), 5);
    assert_string_equal(eddy_probes_name(f.probes, 2), "h_wall");
    assert_string_equal(eddy_probes_unit(f.probes, 0), "m");
    assert_int_equal(f.w->particles.count, 20 * 10);
    const double tol = 1e-6;
    double v[5];
    measure(&f, v);
    assert_near(v[0], 0.2, tol, "front of the block");
    assert_near(v[1], 0.0, tol, "front along -x (the back edge)");
    assert_near(v[2], 0.1, tol, "height at the left wall");
    assert_near(v[3], 0.0, tol, "height where there is no liquid");
    assert_near(v[4], 0.06, tol, "height above a base inside the liquid");

    add_particle(&f, 0.2 + 3 * H_WORLD, 0.005, 0);        /* a droplet thrown ahead */
    add_particle(&f, 0.005, 0.1 + 3 * H_WORLD, 0);        /* a droplet above the wall column */
    add_particle(&f, 0.5, 0.3, 0);                        /* one in the air over x = 0.5 */
    measure(&f, v);
    assert_near(v[0], 0.2, tol, "front with a droplet 3h ahead");
    assert_near(v[2], 0.1, tol, "height with a droplet 3h above");
    assert_near(v[3], 0.0, tol, "height under a droplet in the air");

    /* The last particle centre of the block is at 0.195; one 0.9 h beyond it is connected. */
    const double x_near = 0.195 + 0.9 * H_WORLD;
    add_particle(&f, x_near, 0.005, 0);
    add_particle(&f, 0.005, 0.095 + 0.9 * H_WORLD, 0);
    measure(&f, v);
    assert_near(v[0], x_near + 0.5 * SPACING, tol, "front with a particle 0.9h beyond the edge");
    assert_near(v[2], 0.095 + 0.9 * H_WORLD + 0.5 * SPACING, tol, "height with a particle 0.9h above");
    close_fixture(&f);
}

/* The same rules in 3D, along z and with a square column around (0.05, *, 0.05). */
static void front_and_height_in_3d(void **state)
{
    (void)state;
    const char *text =
        "{\n"
        "  \"name\": \"t3\", \"dimensions\": 3, \"solver\": \"sph_mueller\",\n"
        "  \"time\": {\"dt\": 0.001, \"end\": 0.1},\n"
        "  \"world\": {\"gravity\": [0, -9.81, 0], \"smoothing_radius\": 0.04, \"simulation_scale\": 2},\n"
        "  \"container\": {\"min\": [0, 0, 0], \"max\": [0.3, 0.3, 0.3]},\n"
        "  \"materials\": [{\"name\": \"water\", \"rest_density\": 1000, \"particle_spacing\": 0.01}],\n"
        "  \"fluids\": [{\"material\": \"water\", \"box\": {\"min\": [0, 0, 0], \"max\": [0.1, 0.15, 0.12]}},\n"
        "             {\"material\": \"water\", \"box\": {\"min\": [0.2, 0, 0], \"max\": [0.3, 0.05, 0.3]}}],\n"
        "  \"probes\": [{\"kind\": \"front\", \"axis\": \"z\"},\n"
        "             {\"kind\": \"height\", \"axis\": \"y\", \"at\": [0.05, 0, 0.05]},\n"
        "             {\"kind\": \"height\", \"axis\": \"y\", \"at\": [0.25, 0, 0.2], \"width\": 0.006}]\n"
        "}\n";
    fixture f;
    open_fixture(&f, "inline3.json", text);
    assert_string_equal(eddy_probes_name(f.probes, 0), "front_0");
    assert_string_equal(eddy_probes_name(f.probes, 1), "height_1");
    double v[3];
    measure(&f, v);
    /* The second block reaches z = 0.3 but is 0.1 away along x: along z both blocks overlap, so the
     * front is the farther one's edge. */
    assert_near(v[0], 0.3, 1e-6, "front along z");
    assert_near(v[1], 0.15, 1e-6, "height of the first block");
    assert_near(v[2], 0.05, 1e-6, "height of the second block");
    close_fixture(&f);
}

/* ---------------------------------------------------------------------------------------------- */
/* Pressure                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

/*
 * A block [0, 1] x [0, 0.5] holding the hydrostatic field p = rho0 g (0.5 - y) (world y). At a point
 * whose lattice neighbourhood is symmetric, Shepard interpolation reproduces a linear field exactly.
 * Every density is set to 1.3 rho0, so that an interpolation without the normalisation (sum V W != 1)
 * would be 23% low. Near the free surface a constant field stays exact; where no particle is within h
 * the probe reads NaN.
 */
static void pressure_of_imposed_fields(void **state)
{
    (void)state;
    fixture f;
    open_2d(&f, "0, 0", "1, 0.5",
            "[{\"name\": \"p_mid\", \"kind\": \"pressure\", \"point\": [0.5, 0.2]},"
            " {\"name\": \"p_deep\", \"kind\": \"pressure\", \"point\": [0.33, 0.06]},"
            " {\"name\": \"p_top\", \"kind\": \"pressure\", \"point\": [0.5, 0.499]},"
            " {\"name\": \"p_air\", \"kind\": \"pressure\", \"point\": [0.5, 0.545]}]");
    eddy_particles *p = &f.w->particles;
    const double rho0 = 1000, g = 9.81, H = 0.5;
    for (size_t i = 0; i < p->count; ++i) {
        double y = p->y[i] / SCALE;
        p->pressure[i] = (float)(rho0 * g * (H - y));
        p->density[i] = (float)(1.3 * rho0);
    }
    double v[4];
    measure(&f, v);
    assert_string_equal(eddy_probes_unit(f.probes, 0), "Pa");
    assert_near(v[0], rho0 * g * (H - 0.2), 1e-4 * rho0 * g * H, "hydrostatic pressure at y = 0.2");
    assert_near(v[1], rho0 * g * (H - 0.06), 1e-4 * rho0 * g * H, "hydrostatic pressure at y = 0.06");
    assert_true(isnan(v[3]));
    printf("  %-44s %g (expected NaN)\n", "pressure 0.045 above the surface", v[3]);
    for (size_t i = 0; i < p->count; ++i) p->pressure[i] = 500.0f;
    measure(&f, v);
    assert_near(v[2], 500.0, 1e-3, "constant field just below the surface");
    assert_near(v[0], 500.0, 1e-3, "constant field inside");
    close_fixture(&f);
}

/* ---------------------------------------------------------------------------------------------- */
/* Density                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

/*
 * rho = 1000 + 50 x + 20 y (world units) on the block [0, 1] x [0, 0.5]: the box [0.4, 0.7] x
 * [0.1, 0.3] holds a symmetric set of lattice points around (0.55, 0.2), so the mean is the field
 * there, 1031.5. A box in the air holds nothing: NaN.
 */
static void density_mean_over_a_box(void **state)
{
    (void)state;
    fixture f;
    open_2d(&f, "0, 0", "1, 0.5",
            "[{\"name\": \"rho\", \"kind\": \"density\", \"min\": [0.4, 0.1], \"max\": [0.7, 0.3]},"
            " {\"name\": \"rho_air\", \"kind\": \"density\", \"min\": [0.4, 0.6], \"max\": [0.7, 0.7]}]");
    eddy_particles *p = &f.w->particles;
    for (size_t i = 0; i < p->count; ++i)
        p->density[i] = (float)(1000.0 + 50.0 * p->x[i] / SCALE + 20.0 * p->y[i] / SCALE);
    double v[2];
    measure(&f, v);
    assert_string_equal(eddy_probes_unit(f.probes, 0), "kg/m^3");
    assert_near(v[0], 1031.5, 1e-3, "mean density over the box");
    assert_true(isnan(v[1]));
    close_fixture(&f);
}

/* ---------------------------------------------------------------------------------------------- */
/* One material of several                                                                         */
/* ---------------------------------------------------------------------------------------------- */

/* Oil (spacing 0.0125) fills the floor [0, 1] x [0, 0.2]; a water block (spacing 0.01) sits on it over
 * [0.3, 0.5] x [0.2, 0.3], touching: one connected body when every material counts. Line 9 holds the
 * probes. */
static const char *const SCENE_TWO =
    "{\n"
    "  \"name\": \"two\", \"dimensions\": 2, \"solver\": \"sph_mueller\",\n"
    "  \"time\": {\"dt\": 0.001, \"end\": 0.1},\n"
    "  \"world\": {\"gravity\": [0, -9.81], \"smoothing_radius\": 0.04, \"simulation_scale\": 2},\n"
    "  \"container\": {\"min\": [0, 0], \"max\": [1, 0.5]},\n"
    "  \"materials\": [{\"name\": \"water\", \"rest_density\": 1000, \"particle_spacing\": 0.01},\n"
    "                {\"name\": \"oil\", \"rest_density\": 800, \"particle_spacing\": 0.0125}],\n"
    "  \"fluids\": [{\"material\": \"oil\", \"box\": {\"min\": [0, 0], \"max\": [1, 0.2]}}, {\"material\": \"water\", \"box\": {\"min\": [0.3, 0.2], \"max\": [0.5, 0.3]}}],\n"
    "  \"probes\": %s\n"
    "}\n";

/*
 * With `material` a probe sees that material's particles alone, as if the other were not there: the
 * water block's bottom, sides and top are its box's edges, the oil's the floor layer's; without it the
 * two are one body (the water's bottom is the oil's, the column stands 0.3 high). The densities and
 * pressures are imposed per block (by position, not by material), so each material's mean and
 * Shepard value is its block's constant, and every material together gives a value between the two.
 */
static void one_material_of_two(void **state)
{
    (void)state;
    fixture f;
    char text[4096];
    snprintf(text, sizeof text, SCENE_TWO,
             "[{\"name\": \"w_bottom\", \"kind\": \"front\", \"axis\": \"-y\", \"material\": \"water\"},"
             " {\"name\": \"all_bottom\", \"kind\": \"front\", \"axis\": \"-y\"},"
             " {\"name\": \"w_front\", \"kind\": \"front\", \"axis\": \"x\", \"material\": \"water\"},"
             " {\"name\": \"w_back\", \"kind\": \"front\", \"axis\": \"-x\", \"material\": \"water\"},"
             " {\"name\": \"o_front\", \"kind\": \"front\", \"axis\": \"x\", \"material\": \"oil\"},"
             " {\"name\": \"o_top\", \"kind\": \"front\", \"axis\": \"y\", \"material\": \"oil\"},"
             " {\"name\": \"all_top\", \"kind\": \"front\", \"axis\": \"y\"},"
             " {\"name\": \"h_water\", \"kind\": \"height\", \"axis\": \"y\", \"at\": [0.4, 0.2], \"material\": \"water\"},"
             " {\"name\": \"h_water_floor\", \"kind\": \"height\", \"axis\": \"y\", \"at\": [0.4, 0], \"material\": \"water\"},"
             " {\"name\": \"h_oil\", \"kind\": \"height\", \"axis\": \"y\", \"at\": [0.4, 0], \"material\": \"oil\"},"
             " {\"name\": \"h_all\", \"kind\": \"height\", \"axis\": \"y\", \"at\": [0.4, 0]},"
             " {\"name\": \"rho_w\", \"kind\": \"density\", \"min\": [0.2, 0.1], \"max\": [0.6, 0.28], \"material\": \"water\"},"
             " {\"name\": \"rho_o\", \"kind\": \"density\", \"min\": [0.2, 0.1], \"max\": [0.6, 0.28], \"material\": \"oil\"},"
             " {\"name\": \"rho_all\", \"kind\": \"density\", \"min\": [0.2, 0.1], \"max\": [0.6, 0.28]},"
             " {\"name\": \"rho_w_none\", \"kind\": \"density\", \"min\": [0.7, 0], \"max\": [0.9, 0.1], \"material\": \"water\"},"
             " {\"name\": \"p_w\", \"kind\": \"pressure\", \"point\": [0.4, 0.2], \"material\": \"water\"},"
             " {\"name\": \"p_o\", \"kind\": \"pressure\", \"point\": [0.4, 0.2], \"material\": \"oil\"},"
             " {\"name\": \"p_all\", \"kind\": \"pressure\", \"point\": [0.4, 0.2]},"
             " {\"name\": \"w_none\", \"kind\": \"front\", \"axis\": \"x\", \"material\": \"water\"}]");
    open_fixture(&f, "two.json", text);
    enum { W_BOTTOM, ALL_BOTTOM, W_FRONT, W_BACK, O_FRONT, O_TOP, ALL_TOP, H_WATER, H_WATER_FLOOR, H_OIL, H_ALL,
           RHO_W, RHO_O, RHO_ALL, RHO_W_NONE, P_W, P_O, P_ALL, W_NONE, N };
    assert_int_equal(eddy_probes_count(f.probes), N);
    /* 80 x 16 oil, 20 x 10 water */
    assert_int_equal(f.w->particles.count, 80 * 16 + 20 * 10);
    eddy_particles *p = &f.w->particles;
    for (size_t i = 0; i < p->count; ++i) {
        const int in_water_block = p->y[i] / SCALE > 0.2;
        p->density[i] = in_water_block ? 1000.0f : 800.0f;
        p->pressure[i] = in_water_block ? 100.0f : 500.0f;
    }
    const double tol = 1e-6;
    double v[N];
    measure(&f, v);
    assert_near(v[W_BOTTOM], 0.2, tol, "water's bottom (front -y)");
    assert_near(v[ALL_BOTTOM], 0.0, tol, "every material's bottom: the oil's");
    assert_near(v[W_FRONT], 0.5, tol, "water's front along x");
    assert_near(v[W_BACK], 0.3, tol, "water's back (front -x)");
    assert_near(v[O_FRONT], 1.0, tol, "oil's front along x");
    assert_near(v[O_TOP], 0.2, tol, "oil's top (front y)");
    assert_near(v[ALL_TOP], 0.3, tol, "every material's top: the water's");
    assert_near(v[H_WATER], 0.1, tol, "water column on the oil");
    assert_near(v[H_WATER_FLOOR], 0.0, tol, "water column from the floor: none touches it");
    assert_near(v[H_OIL], 0.2, tol, "oil column from the floor");
    assert_near(v[H_ALL], 0.3, tol, "column of both from the floor");
    assert_near(v[RHO_W], 1000.0, 1e-9, "water's mean density in the box");
    assert_near(v[RHO_O], 800.0, 1e-9, "oil's mean density in the box");
    assert_true(v[RHO_ALL] > 800.0 + 1 && v[RHO_ALL] < 1000.0 - 1);
    assert_true(isnan(v[RHO_W_NONE]));
    assert_near(v[P_W], 100.0, 1e-6, "water's pressure at the interface");
    assert_near(v[P_O], 500.0, 1e-6, "oil's pressure at the interface");
    assert_true(v[P_ALL] > 100.0 + 1 && v[P_ALL] < 500.0 - 1);
    /* No water left (its particles turned to oil): the front has nothing to measure. */
    for (size_t i = 0; i < p->count; ++i) p->material[i] = 1;
    measure(&f, v);
    assert_true(isnan(v[W_NONE]));
    assert_near(v[H_WATER], 0.0, tol, "water column with no water");
    assert_true(isnan(v[RHO_W]) && isnan(v[P_W]));
    close_fixture(&f);
}

/* ---------------------------------------------------------------------------------------------- */
/* The scenes' own probes                                                                          */
/* ---------------------------------------------------------------------------------------------- */

/*
 * The three 2D dam breaks declare the front with Martin & Moyce's table and the height at the back
 * wall: at t = 0 the column of width a = 0.1 and height 2a reads Z = 1 and 2a; the reference is the
 * paper's Table 2 (16 rows from (0, 1) to (3.33, 4.11)) in T = t sqrt(2g/a), Z = x / a.
 */
static void dam_break_scenes_declare_front_and_height(void **state)
{
    (void)state;
    const char *names[] = {"dam_break_2d.json", "tait_dam_break_2d.json", "pbf_dam_break_2d.json"};
    for (int s = 0; s < 3; ++s) {
        char path[4200];
        snprintf(path, sizeof path, "%s/scenes/%s", support_source_dir(), names[s]);
        fixture f;
        memset(&f, 0, sizeof f);
        eddy_error err;
        if (eddy_scene_load(path, NULL, 0, &f.scene, &err)) fail_msg("%s", err.message);
        open_probes(&f);
        printf("%s\n", names[s]);
        assert_int_equal(eddy_probes_count(f.probes), 2);
        assert_string_equal(eddy_probes_name(f.probes, 0), "front");
        assert_string_equal(eddy_probes_name(f.probes, 1), "height_left_wall");
        double v[2];
        measure(&f, v);
        const double a = 0.1;
        assert_near(v[0], a, 1e-6, "front at t = 0");
        assert_near(v[1], 2 * a, 1e-6, "height at the back wall at t = 0");
        const eddy_probe_reference *r = eddy_probes_reference(f.probes, 0);
        assert_non_null(r);
        assert_null(eddy_probes_reference(f.probes, 1));
        assert_int_equal(r->count, 16);
        assert_true(r->x[0] == 0.0 && r->y[0] == 1.0);
        assert_true(r->x[1] == 0.41 && r->y[1] == 1.11);
        assert_true(r->x[15] == 3.33 && r->y[15] == 4.11);
        assert_string_equal(r->label, "Martin & Moyce (1952)");
        assert_string_equal(r->x_label, "T = t sqrt(2g/a)");
        /* T = t / time_scale with time_scale = sqrt(a / (2 g)). */
        assert_near(r->time_scale, sqrt(a / (2 * 9.81)), 1e-6, "time scale sqrt(a / 2g)");
        assert_near(r->value_scale, a, 0, "value scale a");
        close_fixture(&f);
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* Errors                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

/*
 * The error for a bad probes section: from parsing (the generic keys and the component's table), or,
 * where parsing accepts it, from creating the probes for the scene's world (what only the world can
 * decide: an axis it lacks, a point with too few numbers, a box inside out, a length that is not > 0).
 */
static const char *probes_error(const char *file, const char *probes, eddy_error *err)
{
    char text[4096];
    snprintf(text, sizeof text, SCENE_2D, "0, 0", "0.2, 0.1", probes);
    eddy_scene scene;
    if (eddy_scene_parse(text, file, NULL, 0, &scene, err)) fail_msg("scene: %s", err->message);
    eddy_probes *p = (eddy_probes *)1;
    int rc = eddy_probes_parse(&scene, registry(), &p, err);
    if (rc == 0) {
        assert_non_null(p);
        eddy_world *w = NULL;
        build_world(&scene, &w);
        rc = eddy_probes_open(p, w, eddy_services_host(), err);
        eddy_probes_destroy(p);
        eddy_world_destroy(w);
    } else {
        assert_null(p);
    }
    eddy_scene_free(&scene);
    if (rc == 0) fail_msg("no error for probes %s", probes);
    assert_int_equal(rc, EDDY_ERR_INVALID_ARGUMENT);
    printf("  %s\n", err->message);
    return err->message;
}

/* A front probe's reference, up to the object naming its file. */
static const char *const REF_PRE = "[{\"kind\": \"front\", \"axis\": \"x\", \"reference\": ";

/* A table that is refused: its file, and what the message says of it after its path. */
typedef struct {
    const char *file, *why;
} bad_table;

/* Each table of bad[] named as the front probe's reference in a scene at scene_path (whose folder, dir,
 * holds them) is refused with the path of its file and its why. */
static void expect_tables_refused(const char *scene_path, const char *dir, const bad_table *bad, size_t count)
{
    char probes[512], expect[13400];
    eddy_error err;
    for (size_t k = 0; k < count; ++k) {
        snprintf(probes, sizeof probes, "%s{\"file\": \"%s\"}}]", REF_PRE, bad[k].file);
        snprintf(expect, sizeof expect, "%s:8:67: probes[0].reference.file: '%s/%s' %s", scene_path, dir, bad[k].file,
                 bad[k].why);
        assert_string_equal(probes_error(scene_path, probes, &err), expect);
    }
}


static void bad_probes_are_refused_with_exact_messages(void **state)
{
    (void)state;
    eddy_error err;
    /* Line 8 is `  "probes": ...`, whose value starts at column 13. */
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"speed\"}]", &err),
                        "s.json:8:23: probes[0].kind: expected \"front\", \"height\", \"pressure\", "
                        "\"density\", \"force\" or \"moment\", got \"speed\"");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"front\"}]", &err),
                        "s.json:8:14: probes[0].axis: missing required key, expected one of \"x\", \"y\", \"z\", "
                        "\"-x\", \"-y\", \"-z\", \"+x\", \"+y\", \"+z\"");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"front\", \"axis\": \"z\"}]", &err),
                        "s.json:8:40: probes[0].axis: expected \"x\", \"y\", \"-x\" or \"-y\" (\"+x\" is \"x\"), got \"z\"");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"pressure\"}]", &err),
                        "s.json:8:14: probes[0].point: missing required key, expected an array of 1 to 3 numbers");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"density\", \"min\": [0, 0], \"max\": [1, 0]}]", &err),
                        "s.json:8:56: probes[0].max: expected max > min on every axis, got max.y = 0 <= min.y = 0");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"pressure\", \"point\": [0, 0], \"axis\": \"x\"}]", &err),
                        "s.json:8:52: probes[0].axis: unknown key, expected one of: name, kind, reference, point, "
                        "material");
    /* A material the scene lacks, named with the ones it has (one here; the list form below). */
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"front\", \"axis\": \"x\", \"material\": \"oil\"}]", &err),
                        "s.json:8:57: probes[0].material: expected one of the scene's materials, \"water\", got "
                        "\"oil\" (probe 'front_0')");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"density\", \"min\": [0, 0], \"max\": [1, 1], \"material\": 3}]", &err),
                        "s.json:8:76: probes[0].material: expected a string of at most 31 characters, got 3");
    assert_string_equal(
        probes_error("s.json", "[{\"kind\": \"front\", \"axis\": \"x\"}, {\"kind\": \"front\", \"axis\": \"y\", \"name\": \"front_0\"}]", &err),
        "s.json:8:85: probes[1].name: duplicate probe name \"front_0\" (probes[0] has it), expected each name once");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"front\", \"axis\": \"x\", \"name\": \"step\"}]", &err),
                        "s.json:8:53: probes[0].name: probe name \"step\" is reserved: probes.csv begins with time, "
                        "step and the Python records with time, step, frame; choose another");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"front\", \"axis\": \"x\", \"name\": \"a b\"}]", &err),
                        "s.json:8:53: probes[0].name: expected a name of letters, digits, '_', '-' and '.', got \"a b\"");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"front\", \"axis\": \"x\", \"max_gap\": 0}]", &err),
                        "s.json:8:56: probes[0].max_gap: expected a number > 0, got 0");
    assert_string_equal(probes_error("s.json", "{\"kind\": \"front\"}", &err),
                        "s.json:8:13: probes: expected an array of probe objects, got an object");
    assert_string_equal(probes_error("s.json", "[3]", &err),
                        "s.json:8:14: probes[0]: expected a probe object {name, kind, ...}, got 3");
}

/* The error of opening SCENE_TWO's probes with overrides `sets` (count n). */
static const char *two_error(const char *probes, const char *const *sets, size_t n, eddy_error *err)
{
    char text[4096];
    snprintf(text, sizeof text, SCENE_TWO, probes);
    eddy_scene scene;
    if (eddy_scene_parse(text, "two.json", sets, n, &scene, err)) fail_msg("scene: %s", err->message);
    eddy_probes *p = NULL;
    int rc = eddy_probes_parse(&scene, registry(), &p, err);
    if (rc) fail_msg("parse: %s", err->message);
    eddy_world *w = NULL;
    build_world(&scene, &w);
    rc = eddy_probes_open(p, w, eddy_services_host(), err);
    eddy_probes_destroy(p);
    eddy_world_destroy(w);
    eddy_scene_free(&scene);
    if (rc == 0) fail_msg("no error for probes %s", probes);
    assert_int_equal(rc, EDDY_ERR_INVALID_ARGUMENT);
    printf("  %s\n", err->message);
    return err->message;
}

/*
 * A material name the scene lacks (the trial's "drop" in a scene of water and oil) is refused when the
 * probes are opened for the world, naming the probe, the key and the scene's materials: at the value's
 * place in the file, or naming the --set that gave it (the file never held it), as every scene error.
 */
static void unknown_material_names_the_scenes(void **state)
{
    (void)state;
    eddy_error err;
    /* Line 9 is `  "probes": [{"name": ...`; the value "drop" starts at column 81. */
    const char *probes = "[{\"name\": \"drop_bottom\", \"kind\": \"front\", \"axis\": \"-y\", \"material\": \"drop\"}]";
    assert_string_equal(two_error(probes, NULL, 0, &err),
                        "two.json:9:81: probes[0].material: expected one of the scene's materials, \"water\" or "
                        "\"oil\", got \"drop\" (probe 'drop_bottom')");
    const char *good = "[{\"name\": \"w\", \"kind\": \"height\", \"axis\": \"y\", \"at\": [0, 0], \"material\": \"oil\"},"
                       " {\"name\": \"p\", \"kind\": \"pressure\", \"point\": [0, 0]}]";
    const char *set_one[] = {"probes[0].material=Water"};
    assert_string_equal(two_error(good, set_one, 1, &err),
                        "--set 'probes[0].material=Water': probes[0].material: expected one of the scene's "
                        "materials, \"water\" or \"oil\", got \"Water\" (probe 'w')");
    const char *set_key[] = {"probes[1].material=air"};
    assert_string_equal(two_error(good, set_key, 1, &err),
                        "--set 'probes[1].material=air': probes[1].material: expected one of the scene's "
                        "materials, \"water\" or \"oil\", got \"air\" (probe 'p')");
    const char *set_all[] = {"probes=[{\"kind\": \"density\", \"min\": [0, 0], \"max\": [1, 1], \"material\": \"\"}]"};
    assert_string_equal(two_error(good, set_all, 1, &err),
                        "--set 'probes=[{\"kind\": \"density\", \"min\": [0, 0], \"max\": [1, 1], \"material\": \"\"}]': "
                        "probes[0].material: expected one of the scene's materials, \"water\" or \"oil\", got \"\" "
                        "(probe 'density_0')");
}

/* Writes `content` to EDDY_BINARY_DIR/probes_test/<name> and returns the folder. */
static const char *write_data(const char *name, const char *content)
{
    static char dir[4200];
    const char *bin = getenv("EDDY_BINARY_DIR");
    assert_non_null(bin);
    snprintf(dir, sizeof dir, "%s/probes_test", bin);
    mkdir(dir, 0777);
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
    return dir;
}

static void bad_reference_files_are_refused(void **state)
{
    (void)state;
    const char *dir = write_data("bad.csv", "# a comment\nT,Z\n0.0,1.0\n0.4,abc\n");
    write_data("empty.csv", "# nothing but a comment\nT,Z\n");
    char scene[4400], expect[13400];
    snprintf(scene, sizeof scene, "%s/scene.json", dir);
    eddy_error err;
    const char *pre = "[{\"kind\": \"front\", \"axis\": \"x\", \"reference\": ";

    char probes[512];
    snprintf(probes, sizeof probes, "%s{\"file\": \"missing.csv\"}}]", pre);
    snprintf(expect, sizeof expect,
             "%s:8:67: probes[0].reference.file: cannot read '%s/missing.csv': No such file or directory", scene, dir);
    assert_string_equal(probes_error(scene, probes, &err), expect);

    snprintf(probes, sizeof probes, "%s{\"file\": \"bad.csv\"}}]", pre);
    snprintf(expect, sizeof expect,
             "%s:8:67: probes[0].reference.file: '%s/bad.csv' line 4: expected a number in column Z, got \"abc\"",
             scene, dir);
    assert_string_equal(probes_error(scene, probes, &err), expect);

    snprintf(probes, sizeof probes, "%s{\"file\": \"empty.csv\"}}]", pre);
    snprintf(expect, sizeof expect,
             "%s:8:67: probes[0].reference.file: '%s/empty.csv' holds no data rows (expected a header and rows of "
             "numbers)", scene, dir);
    assert_string_equal(probes_error(scene, probes, &err), expect);

    snprintf(probes, sizeof probes, "%s{\"file\": \"bad.csv\", \"columns\": [\"T\", \"Q\"]}}]", pre);
    snprintf(expect, sizeof expect,
             "%s:8:95: probes[0].reference.columns[1]: no column \"Q\" in '%s/bad.csv' (columns: T, Z)", scene, dir);
    assert_string_equal(probes_error(scene, probes, &err), expect);

    /* A row of another width than the header (a stray or lost comma) and rows out of time order were
     * taken (adversarial trial); equal times are a jump, kept. */
    write_data("ragged.csv", "T,Z\n0.0,1.0\n0.2,2.0,\n");
    write_data("short.csv", "T,Z,W\n0.0,1.0,5\n0.2,2.0\n");
    write_data("unsorted.csv", "T,Z\n0.0,1.0\n0.2,2.0\n0.2,2.5\n0.1,3.0\n");
    write_data("hex.csv", "T,Z\n0.0,1.0\n0.2,0x10\n");
    static const bad_table BAD[] = {{"hex.csv", "line 3: expected a number in column Z, got \"0x10\""},
                                    {"ragged.csv", "line 3: expected 2 columns as the header has, got 3"},
                                    {"short.csv", "line 3: expected 3 columns as the header has, got 2"},
                                    {"unsorted.csv", "line 5: expected rows in time order, got T = 0.1 after 0.2"}};
    expect_tables_refused(scene, dir, BAD, sizeof BAD / sizeof BAD[0]);

    /* A FIFO blocked the open itself until a writer came; refused at once as not a regular file. */
    char fifo[4400];
    snprintf(fifo, sizeof fifo, "%s/fifo.csv", dir);
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(probes, sizeof probes, "%s{\"file\": \"fifo.csv\"}}]", pre);
    snprintf(expect, sizeof expect, "%s:8:67: probes[0].reference.file: '%s' is not a regular file (a CSV table is "
             "expected)", scene, fifo);
    assert_string_equal(probes_error(scene, probes, &err), expect);

    snprintf(probes, sizeof probes, "%s{\"file\": \"bad.csv\", \"time_scale\": -1}}]", pre);
    snprintf(expect, sizeof expect, "%s:8:92: probes[0].reference.time_scale: expected a number > 0, got -1", scene);
    assert_string_equal(probes_error(scene, probes, &err), expect);
}

/* Writes len bytes (NUL bytes too) as a data file beside the test's scene; returns the folder. */
static const char *write_bytes(const char *name, const char *content, size_t len)
{
    const char *dir = write_data(name, "");
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(content, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return dir;
}

/* The probes of SCENE_2D named `file` (beside the data files) with the given section, parsed. */
static eddy_probes *parse_probes(const char *file, const char *probes, eddy_scene *scene)
{
    char text[4096];
    snprintf(text, sizeof text, SCENE_2D, "0, 0", "0.2, 0.1", probes);
    eddy_error err;
    if (eddy_scene_parse(text, file, NULL, 0, scene, &err)) fail_msg("scene: %s", err.message);
    eddy_probes *p = NULL;
    if (eddy_probes_parse(scene, registry(), &p, &err)) fail_msg("%s", err.message);
    return p;
}

/*
 * A reference table of 70 columns (as spreadsheets export) whose named columns are the 66th and the
 * 69th: the probe holds the same reference as the two columns alone give, the numbers written. The
 * other columns hold numbers that are neither (a wrong column reads as other values). Tables were cut
 * to 64 columns: these two read as missing, and rows of another width past the 64th were taken.
 */
static void wide_reference_tables_are_read_whole(void **state)
{
    (void)state;
    enum { WIDTH = 70, ROWS = 6 };
    static const double T[ROWS] = {0.0, 0.41, 0.84, 1.19, 1.43, 1.72};
    static const double Z[ROWS] = {1.0, 1.11, 1.22, 1.44, 1.67, 1.89};
    static char wide[16384], narrow[1024];
    char *w = wide, *n = narrow;
    const char *const end = wide + sizeof wide;
    w += snprintf(w, (size_t)(end - w), "# a spreadsheet's export\n");
    for (int k = 1; k <= WIDTH; ++k) {
        char name[16];
        snprintf(name, sizeof name, "c%d", k);
        w += snprintf(w, (size_t)(end - w), "%s%s", k > 1 ? "," : "", k == 66 ? "T" : k == 69 ? "Z" : name);
    }
    w += snprintf(w, (size_t)(end - w), "\n");
    n += snprintf(n, sizeof narrow, "T,Z\n");
    for (int r = 0; r < ROWS; ++r) {
        for (int k = 1; k <= WIDTH; ++k) {
            if (k == 66 || k == 69)
                w += snprintf(w, (size_t)(end - w), "%s%.2f", k > 1 ? "," : "", k == 66 ? T[r] : Z[r]);
            else
                w += snprintf(w, (size_t)(end - w), "%s%d.5", k > 1 ? "," : "", 100 * k + r);
        }
        w += snprintf(w, (size_t)(end - w), "\n");
        n += snprintf(n, (size_t)(narrow + sizeof narrow - n), "%.2f,%.2f\n", T[r], Z[r]);
        assert_true(w < end && n < narrow + sizeof narrow);
    }
    const char *dir = write_data("wide.csv", wide);
    write_data("narrow.csv", narrow);
    char scene_path[4400];
    snprintf(scene_path, sizeof scene_path, "%s/scene.json", dir);

    eddy_scene sw, sn;
    eddy_probes *pw = parse_probes(scene_path,
                                   "[{\"kind\": \"front\", \"axis\": \"x\", \"reference\": {\"file\": \"wide.csv\", "
                                   "\"columns\": [\"T\", \"Z\"]}}]",
                                   &sw);
    eddy_probes *pn = parse_probes(scene_path,
                                   "[{\"kind\": \"front\", \"axis\": \"x\", \"reference\": {\"file\": \"narrow.csv\"}}]",
                                   &sn);
    const eddy_probe_reference *rw = eddy_probes_reference(pw, 0), *rn = eddy_probes_reference(pn, 0);
    assert_non_null(rw);
    assert_non_null(rn);
    assert_int_equal(rw->count, ROWS);
    assert_int_equal(rn->count, ROWS);
    assert_string_equal(rw->x_label, "T");
    assert_string_equal(rw->y_label, "Z");
    for (int r = 0; r < ROWS; ++r) {
        printf("  row %d: wide (%g, %g), two columns (%g, %g)\n", r, rw->x[r], rw->y[r], rn->x[r], rn->y[r]);
        assert_true(rw->x[r] == rn->x[r] && rw->y[r] == rn->y[r]);
        assert_near(rw->x[r], T[r], 1e-12, "T");
        assert_near(rw->y[r], Z[r], 1e-12, "Z");
    }
    eddy_probes_destroy(pw);
    eddy_probes_destroy(pn);
    eddy_scene_free(&sw);
    eddy_scene_free(&sn);
}

/* Writes a table of `width` columns "c1", "c2", ... and `rows` rows, the row at `odd` (0-based) of
 * `odd_width` columns, every value a number; returns the folder. */
static const char *write_table(const char *name, int width, int rows, int odd, int odd_width)
{
    static char text[32768];
    size_t at = 0;
    for (int k = 1; k <= width; ++k) at += (size_t)snprintf(text + at, sizeof text - at, "%sc%d", k > 1 ? "," : "", k);
    at += (size_t)snprintf(text + at, sizeof text - at, "\n");
    for (int r = 0; r < rows; ++r) {
        const int cols = r == odd ? odd_width : width;
        for (int k = 1; k <= cols; ++k)
            at += (size_t)snprintf(text + at, sizeof text - at, "%s%d", k > 1 ? "," : "", r);
        at += (size_t)snprintf(text + at, sizeof text - at, "\n");
    }
    assert_true(at < sizeof text);
    return write_data(name, text);
}

/*
 * Rows of another width than a 70-column header, where the difference lies past the 64th column (tables
 * were cut to 64 columns), are refused naming the line; a name the header lacks lists all 70.
 */
static void wide_reference_rows_of_another_width_are_refused(void **state)
{
    (void)state;
    write_table("wide_short_row.csv", 70, 4, 2, 69);
    write_table("wide_long_row.csv", 70, 4, 1, 71);
    const char *dir = write_table("wide_header.csv", 70, 2, -1, 0);
    char scene[4400], expect[13400], probes[512];
    snprintf(scene, sizeof scene, "%s/scene.json", dir);
    eddy_error err;
    const char *pre = REF_PRE;
    static const bad_table BAD[] = {{"wide_short_row.csv", "line 4: expected 70 columns as the header has, got 69"},
                                    {"wide_long_row.csv", "line 3: expected 70 columns as the header has, got 71"}};
    expect_tables_refused(scene, dir, BAD, sizeof BAD / sizeof BAD[0]);

    /* A name the header lacks: every column of the 70 is listed. */
    char list[1024] = "";
    for (int k = 1; k <= 70; ++k) snprintf(list + strlen(list), sizeof list - strlen(list), "%sc%d", k > 1 ? ", " : "", k);
    snprintf(probes, sizeof probes, "%s{\"file\": \"wide_header.csv\", \"columns\": [\"c66\", \"Q\"]}}]", pre);
    snprintf(expect, sizeof expect, "%s:8:105: probes[0].reference.columns[1]: no column \"Q\" in '%s/wide_header.csv' "
             "(columns: %s)", scene, dir, list);
    assert_string_equal(probes_error(scene, probes, &err), expect);

    /* A header whose names do not fit the message: those that fit, in order, then the count. */
    static char text[8192];
    size_t at = 0;
    for (int k = 1; k <= 100; ++k)
        at += (size_t)snprintf(text + at, sizeof text - at, "%sa_rather_long_column_name_%03d", k > 1 ? "," : "", k);
    snprintf(text + at, sizeof text - at, "\n0,1\n");
    write_data("long_names.csv", text);
    snprintf(probes, sizeof probes, "%s{\"file\": \"long_names.csv\", \"columns\": [\"Q\", \"T\"]}}]", pre);
    const char *got = probes_error(scene, probes, &err);
    snprintf(expect, sizeof expect, "no column \"Q\" in '%s/long_names.csv' (columns: a_rather_long_column_name_001, "
             "a_rather_long_column_name_002, ", dir);
    assert_non_null(strstr(got, expect));
    const char *tail = ", ... (100 in all))";
    assert_true(strlen(got) > strlen(tail));
    assert_string_equal(got + strlen(got) - strlen(tail), tail);
    /* Whole names only, in order up to the "...". */
    const char *names = strstr(got, "(columns: ") + strlen("(columns: ");
    int k = 1;
    for (const char *q = names; strncmp(q, "...", 3) != 0; ++k) {
        char name[64];
        snprintf(name, sizeof name, "a_rather_long_column_name_%03d, ", k);
        assert_int_equal(strncmp(q, name, strlen(name)), 0);
        q += strlen(name);
    }
    assert_true(k > 2 && k < 100);
}

/*
 * A line of 65536 bytes is read. One of 65537 is refused naming the line: fgets in pieces of 4096 had
 * read its start as the row (0.2, 2.0), skipped the pieces of blanks and read its end as a row (0.3,
 * 3.0) of its own, where the line is one row of 3 columns. Blanks around a value are trimmed: they make
 * the lines long.
 */
static void long_reference_lines_are_refused(void **state)
{
    (void)state;
    const char *dir = write_data("long.csv", "");
    char scene[4400], expect[13400], probes[512];
    snprintf(scene, sizeof scene, "%s/scene.json", dir);
    eddy_error err;
    const char *pre = REF_PRE;
    enum { LIMIT = 65536 };
    static char text[2 * LIMIT];
    for (int over = 0; over <= 1; ++over) {
        size_t at = (size_t)snprintf(text, sizeof text, "T,Z\n0.0,1.0\n");
        const size_t start = at;
        at += (size_t)snprintf(text + at, sizeof text - at, "0.2,2.0");
        const char *tail = over ? "0.3,3.0" : "";
        while (at - start < (size_t)LIMIT + (size_t)over - strlen(tail)) text[at++] = ' ';
        at += (size_t)snprintf(text + at, sizeof text - at, "%s\n0.4,4.0\n", tail);
        assert_int_equal(strchr(text + start, '\n') - (text + start), LIMIT + over);
        write_data("long.csv", text);
        snprintf(probes, sizeof probes, "%s{\"file\": \"long.csv\"}}]", pre);
        if (!over) {
            eddy_scene sc;
            eddy_probes *p = parse_probes(scene, probes, &sc);
            const eddy_probe_reference *r = eddy_probes_reference(p, 0);
            assert_int_equal(r->count, 3);
            assert_true(r->x[1] == 0.2 && r->y[1] == 2.0 && r->x[2] == 0.4 && r->y[2] == 4.0);
            eddy_probes_destroy(p);
            eddy_scene_free(&sc);
            continue;
        }
        snprintf(expect, sizeof expect,
                 "%s:8:67: probes[0].reference.file: '%s/long.csv' line 3 has %d bytes; a line of a reference table "
                 "may have at most %d", scene, dir, LIMIT + 1, LIMIT);
        assert_string_equal(probes_error(scene, probes, &err), expect);
    }
}

/* A NUL byte ended the line early for the string functions: "0.2,2\0,5" was read as the row (0.2, 2). */
static void nul_in_reference_is_refused(void **state)
{
    (void)state;
    static const char NUL[] = "T,Z\n0.0,1.0\n0.2,2\0,5\n0.4,4.0\n";
    const char *dir = write_bytes("nul.csv", NUL, sizeof NUL - 1);
    char scene[4400], expect[13400], probes[512];
    snprintf(scene, sizeof scene, "%s/scene.json", dir);
    eddy_error err;
    const char *pre = REF_PRE;
    snprintf(probes, sizeof probes, "%s{\"file\": \"nul.csv\"}}]", pre);
    snprintf(expect, sizeof expect, "%s:8:67: probes[0].reference.file: '%s/nul.csv' line 3: expected text, got a NUL "
             "byte", scene, dir);
    assert_string_equal(probes_error(scene, probes, &err), expect);
}

/* No section: no probes, and measuring is a no-op. */
static void absent_section_gives_no_probes(void **state)
{
    (void)state;
    fixture f;
    open_2d(&f, "0, 0", "0.2, 0.1", "[]");
    assert_int_equal(eddy_probes_count(f.probes), 0);
    close_fixture(&f);
    char path[4200];
    snprintf(path, sizeof path, "%s/scenes/dam_break_3d.json", support_source_dir());
    eddy_scene scene;
    eddy_error err;
    if (eddy_scene_load(path, NULL, 0, &scene, &err)) fail_msg("%s", err.message);
    eddy_probes *p = NULL;
    assert_int_equal(eddy_probes_parse(&scene, registry(), &p, &err), 0);
    assert_int_equal(eddy_probes_count(p), 0);
    eddy_probes_destroy(p);
    eddy_scene_free(&scene);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(front_and_height_of_a_block),
        cmocka_unit_test(front_and_height_in_3d),
        cmocka_unit_test(pressure_of_imposed_fields),
        cmocka_unit_test(density_mean_over_a_box),
        cmocka_unit_test(one_material_of_two),
        cmocka_unit_test(unknown_material_names_the_scenes),
        cmocka_unit_test(dam_break_scenes_declare_front_and_height),
        cmocka_unit_test(bad_probes_are_refused_with_exact_messages),
        cmocka_unit_test(bad_reference_files_are_refused),
        cmocka_unit_test(wide_reference_tables_are_read_whole),
        cmocka_unit_test(wide_reference_rows_of_another_width_are_refused),
        cmocka_unit_test(long_reference_lines_are_refused),
        cmocka_unit_test(nul_in_reference_is_refused),
        cmocka_unit_test(absent_section_gives_no_probes),
    };
    return support_run_tests("test_probes", argc, argv, tests, sizeof tests / sizeof tests[0]);
}
