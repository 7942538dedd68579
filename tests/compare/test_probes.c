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

static void bad_probes_are_refused_with_exact_messages(void **state)
{
    (void)state;
    eddy_error err;
    /* Line 8 is `  "probes": ...`, whose value starts at column 13. */
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"speed\"}]", &err),
                        "s.json:8:23: probes[0].kind: expected \"front\", \"height\", \"pressure\" or "
                        "\"density\", got \"speed\"");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"front\"}]", &err),
                        "s.json:8:14: probes[0].axis: missing required key, expected one of \"x\", \"y\", \"z\", "
                        "\"-x\", \"-y\", \"-z\"");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"front\", \"axis\": \"z\"}]", &err),
                        "s.json:8:40: probes[0].axis: expected \"x\", \"y\", \"-x\" or \"-y\", got \"z\"");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"pressure\"}]", &err),
                        "s.json:8:14: probes[0].point: missing required key, expected an array of 1 to 3 numbers");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"density\", \"min\": [0, 0], \"max\": [1, 0]}]", &err),
                        "s.json:8:56: probes[0].max: expected max > min on every axis, got max.y = 0 <= min.y = 0");
    assert_string_equal(probes_error("s.json", "[{\"kind\": \"pressure\", \"point\": [0, 0], \"axis\": \"x\"}]", &err),
                        "s.json:8:52: probes[0].axis: unknown key, expected one of: name, kind, reference, point");
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
    char scene[4400], expect[8800];
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

    snprintf(probes, sizeof probes, "%s{\"file\": \"bad.csv\", \"time_scale\": -1}}]", pre);
    snprintf(expect, sizeof expect, "%s:8:92: probes[0].reference.time_scale: expected a number > 0, got -1", scene);
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
        cmocka_unit_test(dam_break_scenes_declare_front_and_height),
        cmocka_unit_test(bad_probes_are_refused_with_exact_messages),
        cmocka_unit_test(bad_reference_files_are_refused),
        cmocka_unit_test(absent_section_gives_no_probes),
    };
    return support_run_tests("test_probes", argc, argv, tests, sizeof tests / sizeof tests[0]);
}
