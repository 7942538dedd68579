/*
 * Scene files (host/scene/): every error message checked word for word, including FILE:LINE:COL,
 * --set overrides, typed component parameter validation against a descriptor table, the material keys
 * the registered solvers declare, the component ids a scene names, and the world a scene builds
 * (particle counts worked out by hand, positions in simulation units).
 *
 * The registry here holds stand-in components registered as built-ins: two solvers declaring the
 * material tables of world.h (an SPH one with viscosity, stiffness and initial_sum; a PBF-like one
 * with initial_sum only), the parameter-table solver "test", and the writers "vtk" and "csv".
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "eddy/kernels.h"
#include "scene.h"

/* ------------------------------------------------------------------------------------------------ */
/* Stand-in components and the registry that holds them                                             */

static int stub_create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    (void)setup;
    (void)err;
    *out = NULL;
    return 0;
}
static int stub_step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    (void)s, (void)w, (void)dt, (void)err;
    return 0;
}
static void stub_destroy(eddy_solver *s) { (void)s; }
static const eddy_solver_vtable STUB_SOLVER = {.size = sizeof(eddy_solver_vtable), .create = stub_create,
                                               .step = stub_step, .destroy = stub_destroy};
static int stub_writer_create(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    (void)setup, (void)err;
    *out = NULL;
    return 0;
}
static int stub_write(eddy_writer *w, const eddy_frame *f, eddy_error *err)
{
    (void)w, (void)f, (void)err;
    return 0;
}
static void stub_writer_destroy(eddy_writer *w) { (void)w; }
static const eddy_writer_vtable STUB_WRITER = {.size = sizeof(eddy_writer_vtable), .create = stub_writer_create,
                                               .write_frame = stub_write, .destroy = stub_writer_destroy};

static const eddy_param_desc SPH_MATERIAL[] = {EDDY_MATERIAL_VISCOSITY_DESC, EDDY_MATERIAL_STIFFNESS_DESC,
                                               EDDY_MATERIAL_INITIAL_SUM_DESC};
static const eddy_param_desc PBF_MATERIAL[] = {EDDY_MATERIAL_INITIAL_SUM_DESC};
#define SOLVER_COMPONENT(id_, params_, count_, mat_, mat_count_) \
    {.size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_SOLVER, .id = (id_), .version = "1.0.0", \
     .description = "A stand-in solver.", .params = (params_), .param_count = (count_), .vtable = &STUB_SOLVER, \
     .material_params = (mat_), .material_param_count = (mat_count_)}
static const eddy_component SPH_SOLVER = SOLVER_COMPONENT("sph_mueller", NULL, 0, SPH_MATERIAL, 3);
static const eddy_component PBF_SOLVER = SOLVER_COMPONENT("pbf", NULL, 0, PBF_MATERIAL, 1);
#define WRITER_COMPONENT(id_) \
    {.size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_WRITER, .id = (id_), .version = "1.0.0", \
     .description = "A stand-in writer.", .vtable = &STUB_WRITER}
static const eddy_component VTK_WRITER = WRITER_COMPONENT("vtk");
static const eddy_component CSV_WRITER = WRITER_COMPONENT("csv");

static eddy_registry *registry;

/* The registry's copy of a component. */
static const eddy_component *registered(const char *id)
{
    const eddy_registry_entry *e = eddy_registry_find(registry, id, NULL);
    assert_non_null(e);
    return e->component;
}

/* Builds the world with the registry and the stand-in SPH solver (or `solver`). */
static int build_with(const eddy_scene *s, const char *solver, eddy_world **w, eddy_error *e)
{
    eddy_scene_build with = {.registry = registry, .solver = registered(solver ? solver : "sph_mueller")};
    return eddy_scene_build_world(s, &with, w, e);
}

#define NEAR(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

/* A valid 3D scene; line numbers matter for the messages below. */
static const char *const VALID =
    "{\n"                                                                       /* 1 */
    "  \"solver\": \"sph_mueller\",\n"                                          /* 2 */
    "  \"time\": {\"dt\": 0.001, \"end\": 1},\n"                                /* 3 */
    "  \"world\": {\"smoothing_radius\": 0.2, \"simulation_scale\": 2},\n"      /* 4 */
    "  \"container\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},\n"              /* 5 */
    "  \"materials\": [\n"                                                      /* 6 */
    "    {\"name\": \"water\", \"particle_spacing\": 0.05, \"viscosity\": 0.2}\n" /* 7 */
    "  ],\n"                                                                    /* 8 */
    "  \"fluids\": [\n"                                                         /* 9 */
    "    {\"material\": \"water\", \"box\": {\"min\": [0, 0, 0], \"max\": [0.5, 0.25, 0.1]}}\n" /* 10 */
    "  ]\n"                                                                     /* 11 */
    "}\n";

/* VALID in 2D, line for line. */
static const char *const VALID_2D =
    "{\n"                                                                       /* 1 */
    "  \"solver\": \"sph_mueller\", \"dimensions\": 2,\n"                       /* 2 */
    "  \"time\": {\"dt\": 0.001, \"end\": 1},\n"                                /* 3 */
    "  \"world\": {\"smoothing_radius\": 0.2, \"simulation_scale\": 2},\n"      /* 4 */
    "  \"container\": {\"min\": [0, 0], \"max\": [1, 1]},\n"                    /* 5 */
    "  \"materials\": [\n"                                                      /* 6 */
    "    {\"name\": \"water\", \"particle_spacing\": 0.05, \"viscosity\": 0.2}\n" /* 7 */
    "  ],\n"                                                                    /* 8 */
    "  \"fluids\": [\n"                                                         /* 9 */
    "    {\"material\": \"water\", \"box\": {\"min\": [0, 0], \"max\": [0.5, 0.25]}}\n" /* 10 */
    "  ]\n"                                                                     /* 11 */
    "}\n";

/* Parses text (file name "t.json") and builds its world with the registry (material keys and
 * component ids are checked there), and expects failure with exactly `message` and `code`. */
static void expect_error_sets(const char *text, const char *const *sets, size_t n, int code,
                              const char *message)
{
    eddy_scene s;
    eddy_error e;
    eddy_error_clear(&e);
    int rc = eddy_scene_parse(text, "t.json", sets, n, &s, &e);
    if (rc == 0) {
        eddy_world *w = NULL;
        rc = build_with(&s, NULL, &w, &e);
        eddy_world_destroy(w);
        eddy_scene_free(&s);
    }
    if (rc == 0 || strcmp(e.message, message) != 0 || e.code != code)
        print_error("rc %d code %d\n got:      %s\n expected: %s\n", rc, e.code, e.message, message);
    assert_int_equal(rc, code);
    assert_int_equal(e.code, code);
    assert_string_equal(e.message, message);
    /* The scene is left freed. */
    assert_null(s.root);
    assert_null(s.text);
    assert_null(s.materials);
}

static void expect_error(const char *text, int code, const char *message)
{
    expect_error_sets(text, NULL, 0, code, message);
}

/* Poly6 density at a particle deep inside a square (2D) or cubic (3D) lattice of the given spacing,
 * summed here point by point with the core's float kernel: the scene derives each particle mass so
 * that this equals the rest density, and the test checks that property rather than a formula. */
static double lattice_sum(double mass, double spacing, double h, int d)
{
    eddy_kernels k = eddy_kernels_make((float)h, d);
    int n = (int)(h / spacing) + 1;
    double sum = 0.0;
    for (int c = (d == 3 ? -n : 0); c <= (d == 3 ? n : 0); ++c)
        for (int b = -n; b <= n; ++b)
            for (int a = -n; a <= n; ++a) {
                float r2 = (float)(spacing * spacing * (a * a + b * b + c * c));
                sum += (double)eddy_poly6(&k, r2);
            }
    return mass * sum;
}

/* world.h's definition of eddy_lattice_gradient_moment, summed point by point with the core's
 * kernels: V sum_j x_j^2 |grad W_spiky(|x_j|)| / |x_j| with V = 1 / sum_j W_poly6 (eddy_spiky_grad is
 * the factor f of grad W = f (r_i - r_j), so |grad W| / |x_j| = |f|). */
static double gradient_moment_sum(double spacing, double h, int d)
{
    eddy_kernels k = eddy_kernels_make((float)h, d);
    int n = (int)(h / spacing) + 1;
    double w = 0.0, m = 0.0;
    for (int c = (d == 3 ? -n : 0); c <= (d == 3 ? n : 0); ++c)
        for (int b = -n; b <= n; ++b)
            for (int a = -n; a <= n; ++a) {
                const double x = spacing * a, r2 = spacing * spacing * (a * a + b * b + c * c);
                w += (double)eddy_poly6(&k, (float)r2);
                m += x * x * fabs((double)eddy_spiky_grad(&k, (float)sqrt(r2)));
            }
    return m / w;
}

static void parse_ok(const char *text, const char *const *sets, size_t n, eddy_scene *s)
{
    eddy_error e;
    eddy_error_clear(&e);
    int rc = eddy_scene_parse(text, "t.json", sets, n, s, &e);
    if (rc) print_error("unexpected error: %s\n", e.message);
    assert_int_equal(rc, 0);
}

/* Material m's value of the stand-in SPH solver's per-material parameter `id`, as a float (the type
 * the ABI 1 material members had). */
static float material_param(const eddy_scene *s, size_t m, const char *id)
{
    const eddy_component *sph = registered("sph_mueller");
    eddy_param_value v[3];
    eddy_error e;
    int rc = eddy_scene_material_params(s, registry, sph, m, v, &e);
    if (rc) print_error("unexpected error: %s\n", e.message);
    assert_int_equal(rc, 0);
    eddy_param_values values = {sizeof values, sph->material_params, sph->material_param_count, v};
    const eddy_param_value *x = eddy_param_find_value(&values, id);
    assert_non_null(x);
    assert_true(x->is_set);
    return (float)x->number;
}

/* `base` with `from` replaced by `to` (first occurrence). */
static char *edit_in(const char *base, const char *from, const char *to)
{
    const char *at = strstr(base, from);
    assert_non_null(at);
    size_t n = strlen(base) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
    return out;
}

/* VALID with `from` replaced by `to` (first occurrence). */
static char *edit(const char *from, const char *to)
{
    return edit_in(VALID, from, to);
}

static void edited_error(const char *from, const char *to, const char *message)
{
    char *text = edit(from, to);
    expect_error(text, EDDY_ERR_INVALID_ARGUMENT, message);
    free(text);
}

/* ------------------------------------------------------------------------------------------------ */

static void valid_scene_fields(void **state)
{
    (void)state;
    eddy_scene s;
    parse_ok(VALID, NULL, 0, &s);
    assert_string_equal(s.name, "t");             /* file basename without .json */
    assert_string_equal(s.solver, "sph_mueller");
    assert_string_equal(s.grid, "cpu");
    assert_int_equal(s.dimensions, 3);
    NEAR(s.dt, 0.001, 0);
    NEAR(s.end_time, 1, 0);
    NEAR(s.output_interval, 1.0 / 50.0, 1e-15);
    NEAR(s.simulation_scale, 2, 0);
    NEAR(s.gravity[0], 0, 0);
    NEAR(s.gravity[1], -9.81f, 0);
    NEAR(s.smoothing_radius, 0.2f, 0);
    assert_int_equal(s.threads, 0);
    assert_true(s.has_container);
    assert_false(s.has_domain);
    assert_int_equal(s.out_of_domain, EDDY_DOMAIN_ERROR);
    assert_int_equal(s.material_count, 1);
    const eddy_material *m = &s.materials[0];
    assert_string_equal(m->name, "water");
    NEAR(m->rest_density, 1000, 0);
    /* Simulation units: spacing 0.05 * scale 2 = 0.1, h = 0.2 (simulation units already). The mass makes the lattice
     * sum to rho0 and stays within a few percent of the plain estimate rho0 spacing^3. */
    NEAR(lattice_sum(m->particle_mass, 0.1, 0.2, 3), 1000, 1000 * 1e-4);
    NEAR(m->particle_mass, 1000.0 * 0.1 * 0.1 * 0.1, 0.05);
    NEAR(material_param(&s, 0, "viscosity"), 0.2f, 0);
    NEAR(material_param(&s, 0, "stiffness"), 1000, 0);
    NEAR(material_param(&s, 0, "initial_sum"), 1, 0);
    NEAR(m->contact.radius, 0.025f, 1e-9);  /* 0.5 spacing, world units */
    NEAR(m->contact.margin, 0.0025f, 1e-9); /* 0.1 radius */
    NEAR(m->contact.restitution, 0, 0);
    NEAR(m->contact.friction, 0, 0);
    NEAR(m->contact.erp, 0.5f, 0);
    assert_int_equal(s.fluid_count, 1);
    assert_int_equal(s.fluids[0].material, 0);
    assert_int_equal(s.fluids[0].shape, EDDY_FLUID_BOX);
    NEAR(s.fluids[0].spacing_factor, 1, 0);
    assert_int_equal(s.collider_count, 0);
    assert_string_equal(s.out_dir, "out/t");
    assert_true(eddy_scene_has_format(&s, "vtk"));
    assert_false(eddy_scene_has_format(&s, "csv"));
    /* 10 x 5 x 2 lattice points: extents 0.5, 0.25, 0.1 over a spacing of 0.05. */
    assert_int_equal(eddy_scene_count_particles(&s), 100);
    eddy_scene_free(&s);
    assert_null(s.root);
    eddy_scene_free(&s); /* twice is fine */
    eddy_scene_free(NULL);
}

static void malformed_json(void **state)
{
    (void)state;
    /* Missing comma: cJSON stops at the next key, on line 3. */
    expect_error("{\n  \"solver\": \"x\"\n  \"dimensions\": 3\n}\n", EDDY_ERR_PARSE,
                 "t.json:3:3: malformed JSON near '\"dimensions\": 3'");
    /* Truncated file: the position is just after the last character. */
    expect_error("{\n  \"solver\": \"x\",\n  \"time\": {\"dt\": 1\n", EDDY_ERR_PARSE,
                 "t.json:3:19: malformed JSON: unexpected end of input");
    /* Truncated inside a string. */
    expect_error("{\n  \"solver\": \"x\",\n  \"name\": \"abc\n", EDDY_ERR_PARSE,
                 "t.json:3:15: malformed JSON: unexpected end of input");
    expect_error("", EDDY_ERR_PARSE, "t.json:1:1: malformed JSON: unexpected end of input");
    expect_error("{\"a\": 1} x", EDDY_ERR_PARSE, "t.json:1:10: malformed JSON near 'x'");
    expect_error("{\n  \"a\": tru\n}", EDDY_ERR_PARSE, "t.json:2:8: malformed JSON near 'tru'");
    /* A trailing comma: cJSON stops one past the '}' (on the next line when the '}' ends its line, and
     * the excerpt was empty; at the end of the text it was "unexpected end of input"). Said at the
     * comma, with the text around it, white space and line breaks shown as one space. */
    expect_error("{\n  \"a\": 1, \n}\n", EDDY_ERR_PARSE,
                 "t.json:2:9: malformed JSON: a comma before '}' (JSON allows no trailing comma), near '{ \"a\": 1, }'");
    expect_error("{\"a\": 1,}", EDDY_ERR_PARSE,
                 "t.json:1:8: malformed JSON: a comma before '}' (JSON allows no trailing comma), near '{\"a\": 1,}'");
    expect_error("{\n  \"a\": 1\n  ,\n}\n", EDDY_ERR_PARSE,
                 "t.json:3:3: malformed JSON: a comma before '}' (JSON allows no trailing comma), near '{ \"a\": 1 , }'");
    expect_error("{\n  \"a\": [1, 2,]\n}", EDDY_ERR_PARSE,
                 "t.json:2:13: malformed JSON: a comma before ']' (JSON allows no trailing comma), near '{ \"a\": [1, 2,]'");
    /* 20 bytes before the comma cut '":' in two: the excerpt starts at the next token. */
    expect_error("{\"description\": \"a long text here\", }", EDDY_ERR_PARSE,
                 "t.json:1:35: malformed JSON: a comma before '}' (JSON allows no trailing comma), near '\"a long text "
                 "here\", }'");
    /* A key without quotes: at its first character (cJSON stops at the second). */
    expect_error("{ name: 1}", EDDY_ERR_PARSE, "t.json:1:3: malformed JSON near 'name: 1}'");
    /* Not a trailing comma: a '}' closing an array, two commas, a comma at the end of the text. */
    expect_error("{\"a\": [1, }", EDDY_ERR_PARSE, "t.json:1:11: malformed JSON near '}'");
    expect_error("{\"a\": 1,, \"b\": 2}", EDDY_ERR_PARSE, "t.json:1:9: malformed JSON near ', \"b\": 2}'");
    expect_error("{\"a\": 1,\n", EDDY_ERR_PARSE, "t.json:1:9: malformed JSON: unexpected end of input");
    /* An empty object is no key missing. */
    expect_error("{\"a\": {}", EDDY_ERR_PARSE, "t.json:1:9: malformed JSON: unexpected end of input");
    /* Not an object at the top level. */
    expect_error("[1, 2]", EDDY_ERR_INVALID_ARGUMENT,
                 "t.json:1:1: expected a JSON object at the top level, got an array of 2 elements");
    /* The column counts characters, not bytes: "é" is one column. */
    expect_error("{\"description\": \"\xc3\xa9\" \"x\": 1}", EDDY_ERR_PARSE,
                 "t.json:1:21: malformed JSON near '\"x\": 1}'");
}

static void unknown_keys(void **state)
{
    (void)state;
    edited_error("\"solver\"", "\"solvr\"",
                 "t.json:2:3: solvr: unknown key, expected one of: name, description, solver, grid, "
                 "dimensions, time, world, container, domain, materials, fluids, colliders, vortices, solvers, "
                 "grids, output, probes, render, checkpoint");
    edited_error("\"viscosity\"", "\"viscosty\"",
                 "t.json:7:49: materials[0].viscosty: unknown key, expected one of: name, rest_density, "
                 "particle_mass, particle_spacing, viscosity, stiffness, initial_sum, particle_radius, "
                 "particle_margin, restitution, friction, erp");
    edited_error("\"end\": 1}", "\"end\": 1, \"ed\": 2}",
                 "t.json:3:35: time.ed: unknown key, expected one of: dt, end, output_interval, min_dt_fraction");
    /* Duplicated keys are refused at the second occurrence. */
    edited_error("\"viscosity\": 0.2}", "\"viscosity\": 0.2, \"viscosity\": 0.3}",
                 "t.json:7:67: materials[0].viscosity: duplicate key, expected each key once");
}

static void wrong_types_and_ranges(void **state)
{
    (void)state;
    edited_error("\"viscosity\": 0.2", "\"viscosity\": \"high\"",
                 "t.json:7:62: materials[0].viscosity: expected a number >= 0, got \"high\"");
    edited_error("\"viscosity\": 0.2", "\"viscosity\": -1",
                 "t.json:7:62: materials[0].viscosity: expected a number >= 0, got -1");
    edited_error("\"solver\"", "\"dimensions\": 4, \"solver\"",
                 "t.json:2:17: dimensions: expected 2 or 3, got 4");
    edited_error("\"dt\": 0.001", "\"dt\": 0", "t.json:3:18: time.dt: expected a number > 0, got 0");
    edited_error("\"viscosity\": 0.2", "\"viscosity\": 0.2, \"restitution\": 1.5",
                 "t.json:7:82: materials[0].restitution: expected a number in [0, 1], got 1.5");
    /* The range of a solver's material parameter is its table's: EDDY_MATERIAL_INITIAL_SUM_DESC is
     * [1e-6, 1] (a table has no open bound; ABI 1 wrote this "(0, 1]"). */
    edited_error("\"viscosity\": 0.2", "\"viscosity\": 0.2, \"initial_sum\": 0",
                 "t.json:7:82: materials[0].initial_sum: expected a number in [1e-06, 1], got 0");
    edited_error("\"smoothing_radius\": 0.2", "\"threads\": 1.5, \"smoothing_radius\": 0.2",
                 "t.json:4:24: world.threads: expected an integer in [0, 4096], got 1.5");
    edited_error("\"time\": {\"dt\": 0.001, \"end\": 1}", "\"time\": []",
                 "t.json:3:11: time: expected an object {dt, end, output_interval}, got an empty array");
    edited_error("\"particle_spacing\": 0.05", "\"particle_spacing\": 0.05, \"particle_margin\": 0.03",
                 "t.json:7:68: materials[0].particle_margin: expected a number in [0, particle_radius) = "
                 "[0, 0.025), got 0.03");
    /* 1e999 overflows to infinity: numbers must be finite. */
    edited_error("\"end\": 1", "\"end\": 1e999", "t.json:3:32: time.end: expected a number > 0, got inf");
}

static void missing_required(void **state)
{
    (void)state;
    /* The position is that of the object that lacks the key. */
    edited_error("\"dt\": 0.001, ", "", "t.json:3:11: time.dt: missing required key, expected a number > 0");
    edited_error("  \"solver\": \"sph_mueller\",\n", "",
                 "t.json:1:1: solver: missing required key, expected a component id (1 to 63 characters "
                 "of [a-z0-9_])");
    edited_error("\"smoothing_radius\": 0.2, ", "",
                 "t.json:4:12: world.smoothing_radius: missing required key, expected a number > 0");
    edited_error("\"container\"", "\"containerx\"",
                 "t.json:5:3: containerx: unknown key, expected one of: name, description, solver, grid, "
                 "dimensions, time, world, container, domain, materials, fluids, colliders, vortices, solvers, "
                 "grids, output, probes, render, checkpoint");
    edited_error("  \"container\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},\n", "",
                 "t.json:1:1: container: missing required key, expected an object {min, max} (or a domain "
                 "with min and max)");
}

static void material_and_fluid_rules(void **state)
{
    (void)state;
    edited_error("{\"material\": \"water\"", "{\"material\": \"oil\"",
                 "t.json:10:18: fluids[0].material: expected the name of a material (\"water\"), got \"oil\"");
    edited_error("\"particle_spacing\": 0.05", "\"particle_mass\": 1, \"particle_spacing\": 0.05",
                 "t.json:7:43: materials[0].particle_spacing: expected exactly one of particle_mass and "
                 "particle_spacing, got both");
    edited_error("\"particle_spacing\": 0.05, ", "",
                 "t.json:7:5: materials[0]: expected exactly one of particle_mass and particle_spacing, got "
                 "neither");
    edited_error("\"materials\": [\n", "\"materials\": [\n    {\"name\": \"water\", \"particle_mass\": 1},\n",
                 "t.json:8:14: materials[1].name: expected a unique material name, got \"water\" again (also "
                 "materials[0])");
    edited_error("\"max\": [0.5, 0.25, 0.1]", "\"max\": [0.5, 0.25, 0.01]",
                 "t.json:10:34: fluids[0].box: expected a block at least one particle spacing (0.05) wide on "
                 "every axis, got 0 particles");
    edited_error("\"max\": [0.5, 0.25, 0.1]", "\"max\": [0.5, 0.25, -0.1]",
                 "t.json:10:60: fluids[0].box.max: expected max > min on every axis, got max.z = -0.1 <= "
                 "min.z = 0");
    /* Past the lid by 0.25, so past the domain too (the container widened by h / scale = 0.1 on each
     * side): the container, which the scene wrote, is named, not the domain [-0.1, 1.1] it did not. */
    edited_error("\"max\": [0.5, 0.25, 0.1]", "\"max\": [0.5, 1.25, 0.1]",
                 "t.json:10:34: fluids[0].box: expected a block inside the container's walls, got one that "
                 "reaches 0.25 past its wall at y = 1 (container.max), more than half its particle spacing of "
                 "0.05: particles would start outside the container");
    /* Without a container the domain is the bound, and named. */
    char *text = edit("\"container\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]}",
                      "\"domain\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]}");
    char *t2 = edit_in(text, "\"max\": [0.5, 0.25, 0.1]", "\"max\": [0.5, 1.25, 0.1]");
    expect_error(t2, EDDY_ERR_INVALID_ARGUMENT,
                 "t.json:10:34: fluids[0].box: expected a block inside the domain [0, 1] on axis y, got [0, 1.25]");
    free(t2);
    free(text);
}

static void vectors(void **state)
{
    (void)state;
    /* VALID does not set "dimensions": 3D by default, what a 2D scene that forgot it is told. */
    edited_error("\"min\": [0, 0, 0], \"max\": [1, 1, 1]", "\"min\": [0, 0], \"max\": [1, 1, 1]",
                 "t.json:5:24: container.min: expected an array of 3 numbers, got an array of 2 elements (the scene "
                 "is 3D: \"dimensions\" is not set, and 3 is its default; add \"dimensions\": 2 for a 2D scene)");
    /* A scene 3D by its own word is not told to be 2D; nor is a vector of 1 number. */
    char *three = edit("\"solver\": \"sph_mueller\",", "\"solver\": \"sph_mueller\", \"dimensions\": 3,");
    char *t3 = edit_in(three, "\"min\": [0, 0, 0], \"max\": [1, 1, 1]", "\"min\": [0, 0], \"max\": [1, 1, 1]");
    expect_error(t3, EDDY_ERR_INVALID_ARGUMENT,
                 "t.json:5:24: container.min: expected an array of 3 numbers, got an array of 2 elements");
    free(t3);
    free(three);
    edited_error("\"min\": [0, 0, 0], \"max\": [1, 1, 1]", "\"min\": [0], \"max\": [1, 1, 1]",
                 "t.json:5:24: container.min: expected an array of 3 numbers, got an array of 1 element");
    edited_error("\"min\": [0, 0, 0], \"max\": [1, 1, 1]", "\"min\": [0, \"a\", 0], \"max\": [1, 1, 1]",
                 "t.json:5:28: container.min[1]: expected a finite number, got \"a\"");
    /* In 2D a vector has 2 entries, or 3: a position's or an extent's z is ignored (the depth of the
     * plane), VALID's 3D boxes in a 2D text included. */
    char *text = edit("\"solver\"", "\"dimensions\": 2, \"solver\"");
    char *t2 = edit_in(text, "\"max\": [1, 1, 1]", "\"max\": [1, 1, 7]");
    eddy_scene s;
    parse_ok(t2, NULL, 0, &s);
    free(t2);
    assert_int_equal(s.dimensions, 2);
    NEAR(s.container_max[1], 1, 0);
    NEAR(s.container_max[2], 0, 0); /* z ignored */
    NEAR(s.gravity[1], -9.81f, 0);
    /* 10 x 5 points (z ignored) */
    assert_int_equal(eddy_scene_count_particles(&s), 50);
    NEAR(lattice_sum(s.materials[0].particle_mass, 0.1, 0.2, 2), 1000, 1000 * 1e-4);
    eddy_scene_free(&s);
    free(text);
}

/* The warnings a world's build logs through the host, one a line. */
static char logged[4096];

static void log_warnings(const eddy_host *host, eddy_log_level level, const char *component, const char *message)
{
    (void)host;
    (void)component;
    if (level != EDDY_LOG_WARNING) return;
    const size_t k = strlen(logged);
    snprintf(logged + k, sizeof logged - k, "%s\n", message);
}

/* eddy_scene_resolution_hint of the last world build_logged built. */
static char resolution_hint[256];

/* Builds `text`'s world with a host that records its warnings into `logged`. */
static void build_logged(const char *text)
{
    const eddy_host host = {.size = sizeof host, .name = "test", .log = log_warnings};
    eddy_scene_build with = {.registry = registry, .solver = registered("sph_mueller"), .host = &host};
    eddy_scene s;
    eddy_world *w = NULL;
    eddy_error e;
    logged[0] = '\0';
    parse_ok(text, NULL, 0, &s);
    int rc = eddy_scene_build_world(&s, &with, &w, &e);
    if (rc) print_error("unexpected error: %s\n", e.message);
    assert_int_equal(rc, 0);
    eddy_scene_resolution_hint(w, resolution_hint, sizeof resolution_hint);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* A spacing just below h ran without a word and exploded later, the hint naming the time step: below
 * the 1.2 spacings per smoothing radius docs/scenes.md gives, the build warns, at the key, with both
 * values, each as written (h in simulation units, the spacing in world units and simulated beside it: a
 * review found h said divided by the scale). h = 0.2 and scale 2: a spacing of 0.09 is 0.18 simulated,
 * h / spacing = 1.11. */
static void spacing_near_radius_warned(void **state)
{
    (void)state;
    build_logged(VALID); /* h / spacing = 2 */
    assert_string_equal(logged, "");
    assert_string_equal(resolution_hint, "");
    char *text = edit("\"particle_spacing\": 0.05", "\"particle_spacing\": 0.09");
    build_logged(text);
    assert_string_equal(logged,
                        "warning: t.json:7:43: materials[0].particle_spacing: 0.09 (0.18 in simulation units) "
                        "is close to world.smoothing_radius = 0.2 (h / spacing = 1.11, below the 1.2 to 4 with which SPH "
                        "resolves a fluid, docs/scenes.md): the density sum sees the neighbours at the kernel's "
                        "edge and the run may explode; use a spacing of at most h / 1.2 = 0.0833\n");
    /* What an explosion's hint can add (the world's values, simulation units). */
    assert_string_equal(resolution_hint, "; material 'water' has h / spacing = 1.11, below the 1.2 to 4 with which "
                                         "SPH resolves a fluid: use a smaller particle_spacing");
    /* The same scene again (compare builds one world a solver): said once. */
    build_logged(text);
    assert_string_equal(logged, "");
    free(text);
    /* A mass: its rest spacing, at the mass. */
    text = edit("\"particle_spacing\": 0.05", "\"particle_mass\": 5");
    build_logged(text);
    assert_non_null(strstr(logged, "warning: t.json:7:40: materials[0].particle_mass: 5 gives a rest spacing of "));
    free(text);
}

/* A 2D scene is the x-y plane: a vector's z was dropped without a word, so a z-up gravity [0, 0, -9.81]
 * ran with no gravity and a 3D scene made 2D by --set ran a slice of itself. A direction's z (gravity,
 * velocities, normals) other than 0 is refused; a position's is the plane's depth, ignored in a 2D text
 * and refused in a 3D one made 2D. */
static void two_d_vectors_have_no_z(void **state)
{
    (void)state;
    /* In the file: at the z. */
    char *text = edit_in(VALID_2D, "\"simulation_scale\": 2}", "\"simulation_scale\": 2, \"gravity\": [0, 0, -9.81]}");
    expect_error(text, EDDY_ERR_INVALID_ARGUMENT,
                 "t.json:4:79: world.gravity: a 2D scene has no z (the x-y plane, y up), got z = -9.81; give [x, y]");
    free(text);
    text = edit_in(VALID_2D, "[0.5, 0.25]}}", "[0.5, 0.25]}, \"velocity\": [0, 0, 1]}");
    expect_error(text, EDDY_ERR_INVALID_ARGUMENT,
                 "t.json:10:90: fluids[0].velocity: a 2D scene has no z (the x-y plane, y up), got z = 1; give [x, y]");
    free(text);
    /* From --set: the --set named, for every direction. */
    static const struct {
        const char *set, *path, *z;
    } cases[] = {
        {"world.gravity=[0,0,-9.81]", "world.gravity", "-9.81"},
        {"fluids[0].velocity=[1, 0, 2]", "fluids[0].velocity", "2"},
        {"colliders=[{\"type\": \"plane\", \"point\": [0, 0], \"normal\": [0, 1, 1]}]", "colliders[0].normal", "1"},
        {"colliders=[{\"type\": \"sphere\", \"center\": [3, 3], \"radius\": 0.1, \"velocity\": [0, 0, 1e-3]}]",
         "colliders[0].velocity", "0.001"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char expected[512];
        snprintf(expected, sizeof expected,
                 "--set '%s': %s: a 2D scene has no z (the x-y plane, y up), got z = %s; give [x, y]", cases[i].set,
                 cases[i].path, cases[i].z);
        expect_error_sets(VALID_2D, &cases[i].set, 1, EDDY_ERR_INVALID_ARGUMENT, expected);
    }
    /* Positions and extents keep the depth of the plane, from --set as from the file. */
    const char *places[] = {"container.max=[1, 1, 1]",
                            "fluids[0]={\"material\": \"water\", \"sphere\": {\"center\": [0.5, 0.5, 0.5], \"radius\": 0.2}}",
                            "colliders=[{\"type\": \"box\", \"min\": [0.8, 0.8, -1], \"max\": [1, 1, 1]}]"};
    eddy_scene s;
    parse_ok(VALID_2D, places, 3, &s);
    NEAR(s.container_max[2], 0, 0);
    NEAR(s.fluids[0].center[2], 0, 0);
    NEAR(s.colliders[0].min[2], 0, 0);
    eddy_scene_free(&s);
    /* z = 0 from --set is accepted as from the file. */
    const char *flat[] = {"world.gravity=[0, -1, 0]", "fluids[0].velocity=[1, 0, -0.0]"};
    parse_ok(VALID_2D, flat, 2, &s);
    NEAR(s.gravity[1], -1, 0);
    NEAR(s.fluids[0].velocity[0], 1, 0);
    eddy_scene_free(&s);
    /* A 3D scene made 2D: refused at its first vector with a z, saying why the scene is 2D. */
    const char *two[] = {"dimensions=2"};
    expect_error_sets(VALID, two, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:5:49: container.max: a 2D scene has no z (the x-y plane, y up), got z = 1; give [x, y] "
                      "(the scene is 2D by --set 'dimensions=2', and a 3D scene is not read as a 2D one)");
    /* A caller's own vector keeps a z (a camera's eye stands off the plane): eddy_scene_get_vector takes
     * any z in 2D, and leaves it to the caller. */
    const char *render[] = {"render={\"camera\": {\"eye\": [0.5, 0.5, 2]}}"};
    parse_ok(VALID_2D, render, 1, &s);
    const cJSON *cam = cJSON_GetObjectItemCaseSensitive(eddy_scene_section(&s, "render"), "camera");
    eddy_real eye[3] = {-1, -1, -1};
    eddy_error e;
    eddy_error_clear(&e);
    assert_int_equal(eddy_scene_get_vector(&s, &e, cam, "render.camera", "eye", 1, NULL, eye), EDDY_OK);
    NEAR(eye[0], 0.5, 0);
    NEAR(eye[2], 0, 0);
    eddy_scene_free(&s);
}

static void set_overrides(void **state)
{
    (void)state;
    eddy_scene s;
    const char *sets[] = {"materials[0].viscosity=0.5", "name=hello world", "world.gravity=[0, -1, 0]",
                          "output.format=vtk,csv", "solvers.pbf.iterations=7", "time.dt=2e-4"};
    parse_ok(VALID, sets, 6, &s);
    NEAR(material_param(&s, 0, "viscosity"), 0.5f, 0);
    assert_string_equal(s.name, "hello world"); /* not JSON: taken as a string */
    assert_string_equal(s.out_dir, "out/hello world");
    NEAR(s.gravity[1], -1, 0);
    assert_true(eddy_scene_has_format(&s, "vtk"));
    assert_true(eddy_scene_has_format(&s, "csv"));
    NEAR(s.dt, 2e-4, 0);
    /* The created section is in the tree. */
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s.root, "solvers"), "pbf"),
        "iterations");
    assert_true(cJSON_IsNumber(it));
    NEAR(it->valuedouble, 7, 0);
    /* A value changed by --set has no position in the file; an untouched one keeps its own. */
    int line = -1, col = -1;
    eddy_scene_locate(&s, "materials[0].viscosity", &line, &col);
    assert_int_equal(line, 0);
    assert_int_equal(col, 0);
    eddy_scene_locate(&s, "materials[0].particle_spacing", &line, &col);
    assert_int_equal(line, 7);
    assert_int_equal(col, 43);
    eddy_scene_free(&s);

    /* A bad value from --set names the --set, not the file, which never held it. */
    const char *neg[] = {"materials[0].viscosity=-2"};
    expect_error_sets(VALID, neg, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'materials[0].viscosity=-2': materials[0].viscosity: expected a number >= 0, got -2");
    const char *unk[] = {"timee.dt=1"};
    expect_error_sets(VALID, unk, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'timee.dt=1': timee: unknown key, expected one of: name, description, solver, grid, "
                      "dimensions, time, world, container, domain, materials, fluids, colliders, vortices, solvers, "
                      "grids, output, probes, render, checkpoint");
}

static int params_of(const char *section, const char *const *sets, size_t n, eddy_param_value *values,
                     eddy_error *e);

/* Every error in a value an override put in names the override: a bad solver parameter from --set
 * blamed the scene file ("t.json: solvers.test.vorticity: ..."), which never held it. */
static void set_values_name_the_set(void **state)
{
    (void)state;
    eddy_param_value v[5];
    eddy_error e;
    const char *flag[] = {"solvers.test.vorticity=yes"};
    assert_int_equal(params_of("", flag, 1, v, &e), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, "--set 'solvers.test.vorticity=yes': solvers.test.vorticity: expected true or "
                                   "false, got \"yes\"");
    /* An override inside the value an earlier one put in: the later one. */
    const char *inside[] = {"time={\"dt\": 0.001, \"end\": 1}", "time.end=-1"};
    expect_error_sets(VALID, inside, 2, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'time.end=-1': time.end: expected a number > 0, got -1");
    /* ... and the earlier one for its own value beside it. */
    const char *beside[] = {"time={\"dt\": -1, \"end\": 1}", "time.end=2"};
    expect_error_sets(VALID, beside, 2, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'time={\"dt\": -1, \"end\": 1}': time.dt: expected a number > 0, got -1");
    /* A value replaced by a later override is that one's. */
    const char *replaced[] = {"time.end=-1", "time={\"dt\": 0.001, \"end\": -2}"};
    expect_error_sets(VALID, replaced, 2, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'time={\"dt\": 0.001, \"end\": -2}': time.end: expected a number > 0, got -2");
    /* An object an override's path created is the override's, its missing keys too. */
    char *untimed = edit("  \"time\": {\"dt\": 0.001, \"end\": 1},\n", "");
    const char *created[] = {"time.end=1"};
    expect_error_sets(untimed, created, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'time.end=1': time.dt: missing required key, expected a number > 0");
    free(untimed);
    /* A value of the file keeps its place beside an override. */
    char *text = edit("\"viscosity\": 0.2", "\"viscosity\": -1");
    const char *other[] = {"time.end=2"};
    expect_error_sets(text, other, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:62: materials[0].viscosity: expected a number >= 0, got -1");
    free(text);
    /* A long override is quoted in part (200 bytes), so the key and the error still show. */
    char longset[320] = "output.format=";
    char expected[640] = "--set 'output.format=";
    for (int i = 0; i < 250; ++i) strcat(longset, "x");
    for (int i = 0; i < 186; ++i) strcat(expected, "x");
    strcat(expected, "...': output.format: expected a writer id (1 to 63 characters of [a-z0-9_]), got \"");
    for (int i = 0; i < 40; ++i) strcat(expected, "x");
    strcat(expected, "...\"");
    const char *along[] = {longset};
    expect_error_sets(VALID, along, 1, EDDY_ERR_INVALID_ARGUMENT, expected);
}

static void bad_sets(void **state)
{
    (void)state;
    const char *a[] = {"world.threads"};
    expect_error_sets(VALID, a, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'world.threads': expected PATH=VALUE, got no '='");
    const char *b[] = {"=3"};
    expect_error_sets(VALID, b, 1, EDDY_ERR_INVALID_ARGUMENT, "--set '=3': expected PATH=VALUE, got an empty path");
    const char *c[] = {"materials[3].viscosity=1"};
    expect_error_sets(VALID, c, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'materials[3].viscosity=1': materials[3]: expected an index below 1 (the array "
                      "has 1 element), got 3");
    const char *d[] = {"world..threads=1"};
    expect_error_sets(VALID, d, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'world..threads=1': expected a key path like a.b[2].c, got 'world..threads'");
    const char *e[] = {"time.dt.x=1"};
    expect_error_sets(VALID, e, 1, EDDY_ERR_INVALID_ARGUMENT, "--set 'time.dt.x=1': time.dt: expected an object, got 0.001");
    const char *f[] = {"colliders[0].type=plane"};
    expect_error_sets(VALID, f, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'colliders[0].type=plane': colliders: expected an existing array, got nothing");
}

/* ------------------------------------------------------------------------------------------------ */
/* Component parameters                                                                              */

static const char *const KERNELS[] = {"poly6", "spiky", NULL};
static const eddy_param_desc TEST_PARAMS[] = {
    EDDY_PARAM_REAL_DESC("relaxation", 0.5, 0.0, 1.0, "1", "Relaxation factor."),
    EDDY_PARAM_INT_DESC("iterations", 4, 1, 100, "", "Solver iterations."),
    EDDY_PARAM_BOOL_DESC("vorticity", 1, "Vorticity confinement."),
    EDDY_PARAM_ENUM_DESC("kernel", 0, KERNELS, "Density kernel."),
    EDDY_PARAM_DERIVED_REAL_DESC("sound_speed", 0.0, 1e6, "m/s", "Derived from the scene when not given."),
};
#define TEST_COUNT (sizeof TEST_PARAMS / sizeof TEST_PARAMS[0])
static const eddy_component TEST_SOLVER = SOLVER_COMPONENT("test", TEST_PARAMS, TEST_COUNT, NULL, 0);
static const eddy_component TEST_GRID = {
    .size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_GRID, .id = "test", .version = "1.0.0",
    .description = "A test grid.", .params = TEST_PARAMS, .param_count = TEST_COUNT};

/* VALID with a solvers section on line 11: "  \"solvers\": {\"test\": {SECTION}},". */
static int params_of(const char *section, const char *const *sets, size_t n, eddy_param_value *values,
                     eddy_error *e)
{
    char line[512];
    snprintf(line, sizeof line, "\"solvers\": {\"test\": {%s}, \"other\": {\"bogus\": 1}},\n  \"fluids\"",
             section);
    char *text = edit("\"fluids\"", line);
    eddy_scene s;
    eddy_error_clear(e);
    parse_ok(text, sets, n, &s);
    eddy_param_values out;
    int rc = eddy_scene_component_params(&s, &TEST_SOLVER, values, &out, e);
    if (rc == 0) {
        /* What create() receives: the table and one value per entry. */
        assert_int_equal(out.size, sizeof out);
        assert_ptr_equal(out.desc, TEST_PARAMS);
        assert_int_equal(out.count, TEST_COUNT);
        assert_ptr_equal(out.values, values);
    }
    eddy_scene_free(&s);
    free(text);
    return rc;
}

static void expect_param_error(const char *section, const char *message)
{
    eddy_param_value v[5];
    eddy_error e;
    int rc = params_of(section, NULL, 0, v, &e);
    if (strcmp(e.message, message) != 0) print_error(" got:      %s\n expected: %s\n", e.message, message);
    assert_int_equal(rc, EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, message);
}

static void component_params(void **state)
{
    (void)state;
    eddy_param_value v[5];
    eddy_error e;
    /* Defaults filled (and the other solver's bogus section is not looked at). */
    assert_int_equal(params_of("", NULL, 0, v, &e), 0);
    NEAR(v[0].number, 0.5, 0);
    NEAR(v[1].number, 4, 0);
    NEAR(v[2].number, 1, 0);
    NEAR(v[3].number, 0, 0);
    assert_true(isnan(v[4].number));
    /* Typed: an integer, a boolean, an enum index with its name; the derived one unset. */
    assert_int_equal(v[1].integer, 4);
    assert_int_equal(v[2].integer, 1);
    assert_int_equal(v[3].integer, 0);
    assert_string_equal(v[3].string, "poly6");
    for (int i = 0; i < 4; ++i) assert_int_equal(v[i].is_set, 1);
    assert_int_equal(v[4].is_set, 0);
    /* Values read, enum as its index, null for a derived parameter. */
    assert_int_equal(params_of("\"relaxation\": 0.25, \"iterations\": 9, \"vorticity\": false, "
                               "\"kernel\": \"spiky\", \"sound_speed\": null",
                               NULL, 0, v, &e),
                     0);
    NEAR(v[0].number, 0.25, 0);
    NEAR(v[1].number, 9, 0);
    NEAR(v[2].number, 0, 0);
    NEAR(v[3].number, 1, 0);
    assert_true(isnan(v[4].number));
    assert_int_equal(v[1].integer, 9);
    assert_int_equal(v[3].integer, 1);
    assert_string_equal(v[3].string, "spiky");
    assert_int_equal(v[4].is_set, 0);
    /* A derived parameter given a value is set. */
    assert_int_equal(params_of("\"sound_speed\": 30", NULL, 0, v, &e), 0);
    assert_int_equal(v[4].is_set, 1);
    NEAR(v[4].number, 30, 0);
    /* --set reaches the section. */
    const char *sets[] = {"solvers.test.iterations=12"};
    assert_int_equal(params_of("", sets, 1, v, &e), 0);
    NEAR(v[1].number, 12, 0);

    expect_param_error("\"iteratons\": 3",
                       "t.json:9:24: solvers.test.iteratons: unknown key, expected one of: relaxation, "
                       "iterations, vorticity, kernel, sound_speed");
    expect_param_error("\"relaxation\": 1.5", "t.json:9:38: solvers.test.relaxation: 1.5 is out of range [0, 1]");
    expect_param_error("\"iterations\": 2.5", "t.json:9:38: solvers.test.iterations: expected an integer, got 2.5");
    expect_param_error("\"iterations\": \"many\"",
                       "t.json:9:38: solvers.test.iterations: expected an integer in [1, 100], got \"many\"");
    expect_param_error("\"vorticity\": 1", "t.json:9:37: solvers.test.vorticity: expected true or false, got 1");
    expect_param_error("\"kernel\": \"cubic\"",
                       "t.json:9:34: solvers.test.kernel: expected one of \"poly6\", \"spiky\", got \"cubic\"");
    expect_param_error("\"relaxation\": null",
                       "t.json:9:38: solvers.test.relaxation: expected a number in [0, 1], got null");

    /* A range error on a --set value names the --set (it named the file, which never held it). */
    const char *bad[] = {"solvers.test.iterations=0"};
    assert_int_equal(params_of("", bad, 1, v, &e), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, "--set 'solvers.test.iterations=0': solvers.test.iterations: 0 is out of range [1, 100]");

    /* Grids read the grids section; no section means defaults. */
    eddy_scene s;
    const char *g[] = {"grids.test.relaxation=0.75"};
    parse_ok(VALID, g, 1, &s);
    assert_int_equal(eddy_scene_component_params(&s, &TEST_GRID, v, NULL, &e), 0);
    NEAR(v[0].number, 0.75, 0);
    assert_int_equal(eddy_scene_component_params(&s, &TEST_SOLVER, v, NULL, &e), 0);
    NEAR(v[0].number, 0.5, 0);
    eddy_scene_free(&s);

    /* A section that is not an object is refused at parse time. */
    edited_error("\"fluids\"", "\"solvers\": {\"test\": 3},\n  \"fluids\"",
                 "t.json:9:23: solvers.test: expected an object {parameter: value}, got 3");
}

/* ------------------------------------------------------------------------------------------------ */
/* Building the world                                                                                */

static void build_world(void **state)
{
    (void)state;
    eddy_scene s;
    parse_ok(VALID, NULL, 0, &s);
    eddy_world *w = NULL;
    eddy_error e;
    eddy_error_clear(&e);
    int rc = build_with(&s, NULL, &w, &e);
    if (rc) print_error("%s\n", e.message);
    assert_int_equal(rc, 0);
    assert_non_null(w);
    assert_int_equal(w->dimensions, 3);
    NEAR(w->smoothing_radius, 0.2f, 0);
    NEAR(w->simulation_scale, 2, 0);
    NEAR(w->gravity[1], -9.81f, 0);
    /* Box 0.5 x 0.25 x 0.1 world units at spacing 0.05: 10 x 5 x 2 = 100 particles. */
    assert_int_equal(w->particles.count, 100);
    assert_int_equal(w->particles.count, eddy_scene_count_particles(&s));
    /* Simulation units: spacing 0.05 * 2 = 0.1, positions (i + 1/2) 0.1; ids in lattice order, x fastest. */
    const eddy_particles *p = &w->particles;
    for (size_t i = 0; i < p->count; ++i) {
        size_t k = p->id[i] - p->id[0];
        size_t ix = k % 10, iy = (k / 10) % 5, iz = k / 50;
        NEAR(p->x[i], (ix + 0.5) * 0.1, 1e-5);
        NEAR(p->y[i], (iy + 0.5) * 0.1, 1e-5);
        NEAR(p->z[i], (iz + 0.5) * 0.1, 1e-5);
        NEAR(p->vx[i], 0, 0);
        NEAR(p->mass[i], s.materials[0].particle_mass, 0); /* every particle gets its material's mass */
        assert_int_equal(p->material[i], 0);
    }
    NEAR(p->x[1] - p->x[0], 0.1, 1e-6);
    assert_int_equal(w->material_count, 1);
    NEAR(w->materials[0].particle_dist, 0.1, 1e-6);
    NEAR(w->materials[0].contact.radius, 0.05f, 1e-7); /* 0.025 world * 2 */
    NEAR(w->contacts[0].margin, 0.005f, 1e-7);
    /* The running solver's per-material values, in its table's order; defaults for keys left out. */
    const eddy_param_values *mp = &w->materials[0].params;
    assert_int_equal(mp->count, 3);
    assert_string_equal(eddy_param_at(mp->desc, 0)->id, "viscosity");
    NEAR(eddy_param_get(mp, "viscosity", NAN), 0.2, 0);
    NEAR(eddy_param_get(mp, "stiffness", NAN), 1000, 0);
    NEAR(eddy_param_get(mp, "initial_sum", NAN), 1, 0);
    /* The container in simulation units: 6 wall planes. */
    assert_true(w->boundaries.has_container);
    NEAR(w->boundaries.container_max[0], 2, 0);
    assert_int_equal(w->boundaries.collider_count, 6);
    /* The domain: container widened by h (0.2 sim units). */
    NEAR(w->grid.layout.lo[0], -0.2, 1e-6);
    NEAR(w->grid.layout.lo[1], -0.2, 1e-6);
    assert_true(w->grid.layout.hi[0] >= 2.2f - 1e-5f);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* Brute-force count of lattice points of a disc, independent of host/scene/scene_lattice.c. */
static size_t disc_points(double cx, double cy, double r, double h)
{
    size_t n = (size_t)floor(2 * r / h + 1e-4), count = 0;
    for (size_t j = 0; j < n; ++j)
        for (size_t i = 0; i < n; ++i) {
            double x = cx - r + (i + 0.5) * h, y = cy - r + (j + 0.5) * h;
            if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) ++count;
        }
    return count;
}

static void build_world_2d_sphere_colliders(void **state)
{
    (void)state;
    const char *text =
        "{\n"
        "  \"name\": \"disc\", \"solver\": \"s\", \"grid\": \"cpu\", \"dimensions\": 2,\n"
        "  \"time\": {\"dt\": 0.01, \"end\": 1, \"output_interval\": 0.1},\n"
        "  \"world\": {\"smoothing_radius\": 0.1, \"gravity\": [0, -1], \"threads\": 2},\n"
        "  \"domain\": {\"min\": [0, 0], \"max\": [2, 2], \"periodic\": [true, false], \"out_of_domain\": \"remove\"},\n"
        "  \"materials\": [{\"name\": \"a\", \"rest_density\": 500, \"particle_mass\": 0.5, \"viscosity\": 0,\n"
        "                  \"particle_radius\": 0.01, \"particle_margin\": 0, \"restitution\": 0.5, \"friction\": 0.25, \"erp\": 1}],\n"
        "  \"fluids\": [{\"material\": \"a\", \"sphere\": {\"center\": [1, 1], \"radius\": 0.5}, \"velocity\": [1, 2, 0],\n"
        "              \"spacing_factor\": 2}],\n"
        "  \"colliders\": [{\"type\": \"plane\", \"point\": [0, 0.1], \"normal\": [0, 2]},\n"
        "                {\"type\": \"sphere\", \"center\": [1, 1.8], \"radius\": 0.1, \"velocity\": [0.5, 0]},\n"
        "                {\"type\": \"box\", \"min\": [0.1, 0.1], \"max\": [0.2, 0.2]}],\n"
        "  \"output\": {\"dir\": \"somewhere\", \"format\": \"csv\"}\n"
        "}\n";
    eddy_scene s;
    parse_ok(text, NULL, 0, &s);
    assert_string_equal(s.name, "disc");
    assert_int_equal(s.threads, 2);
    assert_true(s.has_domain);
    assert_false(s.has_container);
    assert_true(s.periodic[0]);
    assert_false(s.periodic[1]);
    assert_int_equal(s.out_of_domain, EDDY_DOMAIN_REMOVE);
    assert_string_equal(s.out_dir, "somewhere");
    assert_false(eddy_scene_has_format(&s, "vtk"));
    assert_true(eddy_scene_has_format(&s, "csv"));
    NEAR(s.output_interval, 0.1, 0);
    /* particle_dist = sqrt(0.5 / 500) = 0.0316..., lattice spacing twice that. */
    double h = 2.0 * sqrt(0.5 / 500.0);
    size_t expected = disc_points(1, 1, 0.5, h);
    assert_true(expected > 100);
    assert_int_equal(eddy_scene_count_particles(&s), expected);
    eddy_world *w = NULL;
    eddy_error e;
    eddy_error_clear(&e);
    int rc = build_with(&s, NULL, &w, &e);
    if (rc) print_error("%s\n", e.message);
    assert_int_equal(rc, 0);
    assert_int_equal(w->particles.count, expected);
    for (size_t i = 0; i < w->particles.count; ++i) {
        double dx = w->particles.x[i] - 1, dy = w->particles.y[i] - 1;
        assert_true(dx * dx + dy * dy <= 0.25 + 1e-6);
        NEAR(w->particles.z[i], 0, 0);
        NEAR(w->particles.vx[i], 1, 0);
        NEAR(w->particles.vy[i], 2, 0);
        NEAR(w->particles.vz[i], 0, 0); /* 2D */
    }
    assert_int_equal(w->boundaries.collider_count, 3); /* no container */
    NEAR(w->boundaries.colliders[0].normal[1], 1, 1e-7); /* normalized */
    NEAR(w->boundaries.colliders[1].velocity[0], 0.5, 0);
    NEAR(w->contacts[0].friction, 0.25f, 0);
    assert_true(w->grid.layout.periodic[0]);
    NEAR(w->grid.layout.lo[0], 0, 0);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* ------------------------------------------------------------------------------------------------ */
/* Material keys: generic, or declared by a registered solver                                        */

static void material_keys_follow_the_solvers(void **state)
{
    (void)state;
    /* A key that no registered solver declares is an error naming it and every valid key: the
     * generic ones around the running solver's, then the other solvers' (registry order, once). */
    edited_error("\"viscosity\"", "\"surface_tension\"",
                 "t.json:7:49: materials[0].surface_tension: unknown key, expected one of: name, rest_density, "
                 "particle_mass, particle_spacing, viscosity, stiffness, initial_sum, particle_radius, "
                 "particle_margin, restitution, friction, erp");
    eddy_scene s;
    eddy_world *w = NULL;
    eddy_error e;
    char *text = edit("\"viscosity\"", "\"surface_tension\"");
    parse_ok(text, NULL, 0, &s);
    assert_int_equal(build_with(&s, "pbf", &w, &e), EDDY_ERR_INVALID_ARGUMENT);
    assert_null(w);
    assert_string_equal(e.message,
                        "t.json:7:49: materials[0].surface_tension: unknown key, expected one of: name, "
                        "rest_density, particle_mass, particle_spacing, initial_sum, viscosity, stiffness, "
                        "particle_radius, particle_margin, restitution, friction, erp");
    eddy_scene_free(&s);
    free(text);

    /* viscosity is a key only the SPH solver declares: the scene still runs with the PBF one, which
     * gets its own table (initial_sum) and no viscosity. */
    parse_ok(VALID, NULL, 0, &s);
    int rc = build_with(&s, "pbf", &w, &e);
    if (rc) print_error("%s\n", e.message);
    assert_int_equal(rc, 0);
    const eddy_param_values *mp = &w->materials[0].params;
    assert_int_equal(mp->count, 1);
    assert_string_equal(eddy_param_at(mp->desc, 0)->id, "initial_sum");
    NEAR(eddy_param_get(mp, "initial_sum", NAN), 1, 0);
    assert_null(eddy_param_find_value(mp, "viscosity"));
    eddy_world_destroy(w);
    eddy_scene_free(&s);

    /* Another solver's key is not validated (only the running solver's table is): a viscosity the SPH
     * solver refuses runs with PBF. */
    const char *neg[] = {"materials[0].viscosity=-1", "materials[0].initial_sum=0.5"};
    parse_ok(VALID, neg, 2, &s);
    assert_int_equal(build_with(&s, "pbf", &w, &e), 0);
    NEAR(eddy_param_get(&w->materials[0].params, "initial_sum", NAN), 0.5, 0);
    eddy_world_destroy(w);
    w = NULL;
    assert_int_equal(build_with(&s, NULL, &w, &e), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, "--set 'materials[0].viscosity=-1': materials[0].viscosity: expected a number >= 0, "
                                   "got -1");
    eddy_scene_free(&s);

    /* --set reaches the running solver's values in the world. */
    const char *set[] = {"materials[0].viscosity=0.7", "materials[0].stiffness=50"};
    parse_ok(VALID, set, 2, &s);
    assert_int_equal(build_with(&s, NULL, &w, &e), 0);
    NEAR(eddy_param_get(&w->materials[0].params, "viscosity", NAN), 0.7, 0);
    NEAR(eddy_param_get(&w->materials[0].params, "stiffness", NAN), 50, 0);
    eddy_world_destroy(w);
    eddy_scene_free(&s);

    /* Without a solver only the keys are checked; without a registry only the solver's keys count. */
    parse_ok(VALID, NULL, 0, &s);
    assert_int_equal(eddy_scene_build_world(&s, NULL, &w, &e), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, "t.json:7:49: materials[0].viscosity: unknown key, expected one of: name, "
                                   "rest_density, particle_mass, particle_spacing, particle_radius, "
                                   "particle_margin, restitution, friction, erp");
    eddy_scene_build only_sph = {.solver = registered("sph_mueller")};
    assert_int_equal(eddy_scene_build_world(&s, &only_sph, &w, &e), 0);
    assert_int_equal(w->materials[0].params.count, 3);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* ------------------------------------------------------------------------------------------------ */
/* Typed parameters: vectors, choices, strings, required and derived values                          */

static const char *const MODES[] = {"up", "down", NULL};
static const eddy_param_desc VEC_PARAMS[] = {
    EDDY_PARAM_VECTOR_DESC("direction", 0, -1, 1, "1", "A direction."),
    EDDY_PARAM_ENUM_DESC("mode", 0, MODES, "A mode."),
    EDDY_PARAM_STRING_DESC("label", "none", 8, "A label."),
    {.size = sizeof(eddy_param_desc), .id = "origin", .type = EDDY_PARAM_VECTOR, .flags = EDDY_PARAM_REQUIRED,
     .def = 0, .min = -10, .max = 10, .unit = "m", .doc = "A point the scene must give."},
    EDDY_PARAM_REAL_DESC("width", 1, 1e-30, 1e30, "m", "A positive length."),
    EDDY_PARAM_INT_DESC("count", 1, 0, 1e30, "", "A count."),
};
#define VEC_COUNT (sizeof VEC_PARAMS / sizeof VEC_PARAMS[0])
static const eddy_component VEC_SOLVER = SOLVER_COMPONENT("vec", VEC_PARAMS, VEC_COUNT, NULL, 0);

/* VALID with "  \"solvers\": {\"vec\": {SECTION}}," on line 9: the first key is at column 23. The
 * scene stays parsed until the next call (STRING values point into it). */
static eddy_scene vec_scene;
static int vec_params(const char *section, eddy_param_value *v, eddy_error *e)
{
    eddy_scene *const sp = &vec_scene;
    eddy_scene_free(sp);
    char line[512];
    snprintf(line, sizeof line, "\"solvers\": {\"vec\": {%s}},\n  \"fluids\"", section);
    char *text = edit("\"fluids\"", line);
    parse_ok(text, NULL, 0, sp);
    free(text);
    eddy_error_clear(e);
    return eddy_scene_component_params(sp, &VEC_SOLVER, v, NULL, e);
}

static void expect_vec_error(const char *section, const char *message)
{
    eddy_param_value v[VEC_COUNT];
    eddy_error e;
    int rc = vec_params(section, v, &e);
    if (strcmp(e.message, message) != 0) print_error(" got:      %s\n expected: %s\n", e.message, message);
    assert_int_equal(rc, EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, message);
}

static void typed_params(void **state)
{
    (void)state;
    eddy_param_value v[VEC_COUNT];
    eddy_error e;
    /* Given values, typed. The vector keeps how many components were given. */
    int rc = vec_params("\"origin\": [1, 2, 3], \"direction\": [0.5, -1], \"mode\": \"down\", \"label\": \"ok\", "
                        "\"count\": 7",
                        v, &e);
    if (rc) print_error("%s\n", e.message);
    assert_int_equal(rc, 0);
    assert_int_equal(v[0].count, 2);
    NEAR(v[0].vector[0], 0.5, 0);
    NEAR(v[0].vector[1], -1, 0);
    NEAR(v[0].number, 0.5, 0);
    assert_int_equal(v[1].integer, 1);
    NEAR(v[1].number, 1, 0);
    assert_string_equal(v[1].string, "down");
    assert_string_equal(v[2].string, "ok");
    assert_int_equal(v[3].count, 3);
    NEAR(v[3].vector[2], 3, 0);
    assert_int_equal(v[5].integer, 7);
    for (size_t i = 0; i < VEC_COUNT; ++i) assert_int_equal(v[i].is_set, 1);
    /* Defaults: the first choice, the default text, the default vector. */
    assert_int_equal(vec_params("\"origin\": [0]", v, &e), 0);
    assert_int_equal(v[1].integer, 0);
    assert_string_equal(v[1].string, "up");
    assert_string_equal(v[2].string, "none");
    NEAR(v[0].vector[0], 0, 0);
    NEAR(v[4].number, 1, 0);
    eddy_scene_free(&vec_scene);

    /* "origin": [0], puts the next key at column 38. */
    expect_vec_error("\"origin\": [0], \"direction\": [0, 2]",
                     "t.json:9:55: solvers.vec.direction[1]: 2 is out of range [-1, 1]");
    expect_vec_error("\"origin\": [0], \"direction\": [0, \"x\"]",
                     "t.json:9:55: solvers.vec.direction[1]: expected a number in [-1, 1], got \"x\"");
    expect_vec_error("\"origin\": [0], \"direction\": []",
                     "t.json:9:51: solvers.vec.direction: expected an array of 1 to 3 numbers in [-1, 1], got an "
                     "empty array");
    expect_vec_error("\"origin\": [0], \"direction\": [1, 0, 0, 0]",
                     "t.json:9:51: solvers.vec.direction: expected an array of 1 to 3 numbers in [-1, 1], got an "
                     "array of 4 elements");
    expect_vec_error("\"origin\": [0], \"direction\": 0.5",
                     "t.json:9:51: solvers.vec.direction: expected an array of 1 to 3 numbers in [-1, 1], got 0.5");
    expect_vec_error("\"origin\": [0], \"mode\": \"sideways\"",
                     "t.json:9:46: solvers.vec.mode: expected one of \"up\", \"down\", got \"sideways\"");
    expect_vec_error("\"origin\": [0], \"mode\": 1",
                     "t.json:9:46: solvers.vec.mode: expected one of \"up\", \"down\", got 1");
    expect_vec_error("\"origin\": [0], \"label\": \"much too long\"",
                     "t.json:9:47: solvers.vec.label: expected a string of at most 8 characters, got \"much too "
                     "long\"");
    /* A range without an upper bound, or with a tiny positive lower one, reads as a scene range. */
    expect_vec_error("\"origin\": [0], \"width\": 0", "t.json:9:47: solvers.vec.width: expected a number > 0, got 0");
    expect_vec_error("\"origin\": [0], \"count\": -1",
                     "t.json:9:47: solvers.vec.count: expected an integer >= 0, got -1");
    /* null is only for derived parameters. */
    expect_vec_error("\"origin\": [0], \"mode\": null",
                     "t.json:9:46: solvers.vec.mode: expected one of \"up\", \"down\", got null");
    /* A required key left out: at the section's object. */
    expect_vec_error("\"mode\": \"up\"",
                     "t.json:9:22: solvers.vec.origin: missing required key, expected an array of 1 to 3 numbers "
                     "in [-10, 10]");
    eddy_scene_free(&vec_scene);
    /* ... also when the scene has no section at all. */
    eddy_scene s;
    parse_ok(VALID, NULL, 0, &s);
    assert_int_equal(eddy_scene_component_params(&s, &VEC_SOLVER, v, NULL, &e), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, "t.json: solvers.vec.origin: missing required key, expected an array of 1 to 3 "
                                   "numbers in [-10, 10]");
    eddy_scene_free(&s);

    /* The generic validator on any object, with keys the caller reads itself. */
    const char *probe = "{\"solver\": \"s\", \"time\": {\"dt\": 1, \"end\": 1}, \"world\": {\"smoothing_radius\": 1},\n"
                        "\"container\": {\"min\": [0, 0, 0], \"max\": [4, 4, 4]},\n"
                        "\"materials\": [{\"name\": \"w\", \"particle_mass\": 1}],\n"
                        "\"fluids\": [{\"material\": \"w\", \"box\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]}}],\n"
                        "\"probes\": [{\"name\": \"p\", \"kind\": \"vec\", \"origin\": [1, 1], \"mode\": \"dowm\"}]}";
    parse_ok(probe, NULL, 0, &s);
    const cJSON *p0 = cJSON_GetArrayItem(eddy_scene_section(&s, "probes"), 0);
    const char *const host_keys[] = {"name", "kind", NULL};
    assert_int_equal(eddy_scene_param_values(&s, p0, "probes[0]", VEC_PARAMS, VEC_COUNT, host_keys, v, &e),
                     EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, "t.json:5:67: probes[0].mode: expected one of \"up\", \"down\", got \"dowm\"");
    eddy_scene_free(&s);
    const char *sets[] = {"probes[0].mode=down", "probes[0].kinf=x"};
    parse_ok(probe, sets, 1, &s);
    p0 = cJSON_GetArrayItem(eddy_scene_section(&s, "probes"), 0);
    assert_int_equal(eddy_scene_param_values(&s, p0, "probes[0]", VEC_PARAMS, VEC_COUNT, host_keys, v, &e), 0);
    assert_int_equal(v[3].count, 2);
    assert_int_equal(v[1].integer, 1);
    eddy_scene_free(&s);
    parse_ok(probe, sets, 2, &s);
    p0 = cJSON_GetArrayItem(eddy_scene_section(&s, "probes"), 0);
    assert_int_equal(eddy_scene_param_values(&s, p0, "probes[0]", VEC_PARAMS, VEC_COUNT, host_keys, v, &e),
                     EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, "--set 'probes[0].kinf=x': probes[0].kinf: unknown key, expected one of: name, kind, direction, "
                                   "mode, label, origin, width, count");
    eddy_scene_free(&s);
}

/* ------------------------------------------------------------------------------------------------ */
/* The component ids a scene names must be registered                                                */

static void component_ids(void **state)
{
    (void)state;
    /* A misspelled solver section is an error naming it and the registered solvers (it used to be
     * skipped silently). */
    edited_error("\"fluids\"", "\"solvers\": {\"sph_muller\": {\"cfl\": 0.4}},\n  \"fluids\"",
                 "t.json:9:15: solvers.sph_muller: unknown solver 'sph_muller', expected one of the registered "
                 "solvers: pbf, sph_mueller, test; did you mean 'sph_mueller'?");
    edited_error("\"fluids\"", "\"grids\": {\"cuda\": {}},\n  \"fluids\"",
                 "t.json:9:13: grids.cuda: unknown grid 'cuda', expected one of the registered grids: cpu");
    /* A solver's id in grids is not a grid. */
    edited_error("\"fluids\"", "\"grids\": {\"cpu\": {}, \"pbf\": {}},\n  \"fluids\"",
                 "t.json:9:24: grids.pbf: unknown grid 'pbf', expected one of the registered grids: cpu");
    edited_error("\"fluids\"", "\"output\": {\"writers\": {\"vtx\": {}}},\n  \"fluids\"",
                 "t.json:9:26: output.writers.vtx: unknown writer 'vtx', expected one of the registered writers: "
                 "csv, vtk; did you mean 'vtk'?");
    /* From --set: the --set named. */
    const char *set[] = {"solvers.sph_muller.cfl=1"};
    expect_error_sets(VALID, set, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'solvers.sph_muller.cfl=1': solvers.sph_muller: unknown solver 'sph_muller', expected one of the registered "
                      "solvers: pbf, sph_mueller, test; did you mean 'sph_mueller'?");
    /* Sections of every registered solver are accepted whichever solver runs. */
    eddy_scene s;
    eddy_world *w = NULL;
    eddy_error e;
    const char *both[] = {"solvers.pbf.iterations=4", "solvers.sph_mueller.cfl=0.4", "grids.cpu={}"};
    parse_ok(VALID, both, 3, &s);
    assert_int_equal(eddy_scene_check_components(&s, registry, &e), 0);
    assert_int_equal(eddy_scene_check_components(&s, NULL, &e), 0);
    assert_int_equal(build_with(&s, NULL, &w, &e), 0);
    eddy_world_destroy(w);
    eddy_scene_free(&s);

    /* output.format: writer ids, each once; registered ones when the world is built. */
    const char *fmt[] = {"output.format=csv, vtk"};
    parse_ok(VALID, fmt, 1, &s);
    assert_int_equal(s.format_count, 2);
    assert_string_equal(s.formats[0], "csv");
    assert_string_equal(s.formats[1], "vtk");
    eddy_scene_free(&s);
    const char *none[] = {"output.format=[]"};
    parse_ok(VALID, none, 1, &s);
    assert_int_equal(s.format_count, 0);
    eddy_scene_free(&s);
    const char *blank[] = {"output.format= "};
    parse_ok(VALID, blank, 1, &s);
    assert_int_equal(s.format_count, 0);
    eddy_scene_free(&s);
    const char *gap[] = {"output.format=vtk,,csv"};
    expect_error_sets(VALID, gap, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'output.format=vtk,,csv': output.format: expected writer ids separated by single commas, got an "
                      "empty entry in \"vtk,,csv\"");
    const char *trailing[] = {"output.format=vtk, "};
    expect_error_sets(VALID, trailing, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'output.format=vtk, ': output.format: expected writer ids separated by single commas, got an "
                      "empty entry in \"vtk, \"");
    const char *comma[] = {"output.format=,"};
    expect_error_sets(VALID, comma, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'output.format=,': output.format: expected writer ids separated by single commas, got an empty "
                      "entry in \",\"");
    const char *dup[] = {"output.format=vtk,vtk"};
    expect_error_sets(VALID, dup, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'output.format=vtk,vtk': output.format: expected each writer once, got \"vtk\" again");
    const char *bad[] = {"output.format=[\"VTK\"]"};
    expect_error_sets(VALID, bad, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'output.format=[\"VTK\"]': output.format[0]: expected a writer id (1 to 63 characters of "
                      "[a-z0-9_]), got \"VTK\"");
    const char *other[] = {"output.format=vtk,my_writer"};
    parse_ok(VALID, other, 1, &s);
    assert_int_equal(s.format_count, 2);
    eddy_scene_free(&s);
    expect_error_sets(VALID, other, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'output.format=vtk,my_writer': output.format: expected \"vtk\" or \"csv\", got \"my_writer\"");
}

/* ------------------------------------------------------------------------------------------------ */
/* The grid component: its validated parameters reach its backend                                    */

static double seen_block = NAN;
static int seen_creates = 0;

static int stub_grid_create(const eddy_grid_setup *setup, void **state, eddy_error *err)
{
    ++seen_creates;
    seen_block = eddy_param_get(setup->params, "block", NAN);
    return eddy_cpu_grid_backend()->create(setup, state, err);
}
static int stub_grid_sort(void *state, const eddy_grid_layout *layout, size_t n, const eddy_real *x,
                          const eddy_real *y, const eddy_real *z, uint32_t *perm, uint32_t *cell_begin,
                          uint32_t *cell_end, eddy_error *err)
{
    return eddy_cpu_grid_backend()->sort(state, layout, n, x, y, z, perm, cell_begin, cell_end, err);
}
static void stub_grid_destroy(void *state) { eddy_cpu_grid_backend()->destroy(state); }
static const eddy_grid_backend_vtable STUB_GRID = {sizeof(eddy_grid_backend_vtable), stub_grid_create,
                                                   stub_grid_sort, stub_grid_destroy};
static const eddy_param_desc GRID_PARAMS[] = {EDDY_PARAM_INT_DESC("block", 32, 1, 1024, "", "Block size.")};
static const eddy_component GRID_COMPONENT = {
    .size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_GRID, .id = "stub_grid", .version = "1.0.0",
    .description = "The CPU grid, recording its parameters.", .params = GRID_PARAMS, .param_count = 1,
    .vtable = &STUB_GRID};

/* A word of what the user wants ("gpu") finds the one component whose description holds it, where one
 * edit of the id gave a wrong one ("cpu"); a misspelt id still finds its nearest id. */
static const eddy_component DESCRIBED_GRIDS[] = {
    /* (beside the built-in "cpu": "CPU uniform grid: OpenMP counting sort by cell, 3-cell bars") */
    {.size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_GRID, .id = "cuda", .version = "1.0.0",
     .description = "Grid on an NVIDIA GPU: CUB radix sort by cell.", .vtable = &STUB_GRID},
    {.size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_SOLVER, .id = "gpu_solver", .version = "1.0.0",
     .description = "A solver on the GPU.", .vtable = &STUB_SOLVER},
};

static void unknown_id_hint_reads_descriptions(void **state)
{
    (void)state;
    eddy_registry *reg = NULL;
    eddy_error e;
    assert_int_equal(eddy_registry_create(NULL, &reg, &e), 0);
    for (size_t i = 0; i < sizeof DESCRIBED_GRIDS / sizeof DESCRIBED_GRIDS[0]; ++i)
        assert_int_equal(eddy_registry_add_builtin(reg, &DESCRIBED_GRIDS[i], "test", &e), 0);
    assert_string_equal(eddy_scene_nearest_id(reg, EDDY_INTERFACE_GRID, "gpu"), "cuda");
    assert_string_equal(eddy_scene_nearest_id(reg, EDDY_INTERFACE_GRID, "nvidia"), "cuda");
    assert_string_equal(eddy_scene_nearest_id(reg, EDDY_INTERFACE_GRID, "cpus"), "cpu");
    /* In both descriptions: no word hint, and no id within reach. */
    assert_null(eddy_scene_nearest_id(reg, EDDY_INTERFACE_GRID, "sort"));
    /* Part of a word is no word ("radi" of "radix"), and a registered id needs no hint. */
    assert_null(eddy_scene_nearest_id(reg, EDDY_INTERFACE_GRID, "radi"));
    assert_null(eddy_scene_nearest_id(reg, EDDY_INTERFACE_GRID, "cuda"));
    /* Only components of the kind asked: the solver's "GPU" is not a grid's. */
    assert_string_equal(eddy_scene_nearest_id(reg, EDDY_INTERFACE_SOLVER, "gpu"), "gpu_solver");
    eddy_registry_destroy(reg);
}

static void grid_params_reach_the_grid(void **state)
{
    (void)state;
    eddy_scene s;
    eddy_error e;
    eddy_world *w = NULL;
    const char *set[] = {"grids.stub_grid.block=64"};
    parse_ok(VALID, set, 1, &s);
    eddy_param_value v[1];
    eddy_param_values gp;
    assert_int_equal(eddy_scene_component_params(&s, &GRID_COMPONENT, v, &gp, &e), 0);
    eddy_scene_build with = {.solver = registered("sph_mueller"), .grid = &GRID_COMPONENT, .grid_params = &gp};
    seen_creates = 0;
    int rc = eddy_scene_build_world(&s, &with, &w, &e);
    if (rc) print_error("%s\n", e.message);
    assert_int_equal(rc, 0);
    assert_int_equal(seen_creates, 1);
    NEAR(seen_block, 64, 0);
    assert_int_equal(eddy_world_build_grid(w, &e), 0);
    assert_int_equal(w->grid.particle_count, 100);
    eddy_world_destroy(w);
    /* A component that is not a grid is refused. */
    with.grid = registered("pbf");
    assert_int_equal(eddy_scene_build_world(&s, &with, &w, &e), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, "t.json: component 'pbf' is not a grid (it implements 'eddy.solver.2')");
    eddy_scene_free(&s);
}

static void rescale(void **state)
{
    (void)state;
    eddy_scene s;
    parse_ok(VALID, NULL, 0, &s);
    const double mass0 = s.materials[0].particle_mass;
    eddy_error e;
    /* 100 -> 800 particles: every length halves (f = (100 / 800)^(1/3) = 0.5), so 20 x 10 x 4. */
    assert_int_equal(eddy_scene_rescale(&s, 800, &e), 0);
    assert_int_equal(eddy_scene_count_particles(&s), 800);
    NEAR(s.smoothing_radius, 0.1f, 1e-7);
    NEAR(s.dt, 0.0005, 1e-12);
    NEAR(s.materials[0].particle_mass, mass0 / 8.0, 1e-7); /* mass scales with volume */
    NEAR(s.materials[0].rest_density, 1000, 0);
    NEAR(s.materials[0].contact.radius, 0.0125f, 1e-8);
    assert_int_equal(eddy_scene_rescale(&s, 0, &e), EDDY_ERR_INVALID_ARGUMENT);
    eddy_scene_free(&s);
}

static void locate_paths(void **state)
{
    (void)state;
    eddy_scene s;
    parse_ok(VALID, NULL, 0, &s);
    int line, col;
    eddy_scene_locate(&s, "materials[0].viscosity", &line, &col);
    assert_int_equal(line, 7);
    assert_int_equal(col, 62);
    eddy_scene_locate(&s, "fluids[0].box.max[1]", &line, &col);
    assert_int_equal(line, 10);
    assert_int_equal(col, 66);
    eddy_scene_locate(&s, "", &line, &col);
    assert_int_equal(line, 1);
    assert_int_equal(col, 1);
    eddy_scene_locate(&s, "materials[1]", &line, &col);
    assert_int_equal(line, 0);
    eddy_scene_locate(&s, "nothing.here", &line, &col);
    assert_int_equal(line, 0);
    eddy_scene_locate(&s, "bad..path", &line, &col);
    assert_int_equal(line, 0);
    eddy_scene_free(&s);

    /* Keys with escapes and strings holding brackets, quotes and colons do not confuse the locator. */
    const char *tricky = "{\"description\": \"a \\\"}[: ,\\\\\", \"solver\": \"s\",\n"
                         "\"time\": {\"dt\": 1, \"end\": 1}, \"world\": {\"smoothing_radius\": 1},\n"
                         "\"container\": {\"min\": [0, 0, 0], \"max\": [4, 4, 4]},\n"
                         "\"materials\": [{\"name\": \"w\", \"particle_mass\": 1}],\n"
                         "\"fluids\": [{\"material\": \"w\", \"box\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]}}],\n"
                         "\"output\": {\"form\\u0061t\": [\"vtk\", \"png\"]}}";
    expect_error(tricky, EDDY_ERR_INVALID_ARGUMENT, "t.json:6:35: output.format[1]: expected \"vtk\" or \"csv\", got \"png\"");
}

static void load_files(void **state)
{
    (void)state;
    eddy_scene s;
    eddy_error e;
    assert_int_equal(eddy_scene_load("/nonexistent/dir/x.json", NULL, 0, &s, &e), EDDY_ERR_IO);
    assert_string_equal(e.message, "cannot read '/nonexistent/dir/x.json': No such file or directory");
    char path[] = "/tmp/eddy_test_scene_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(VALID, f);
    fclose(f);
    const char *sets[] = {"world.threads=3"};
    int rc = eddy_scene_load(path, sets, 1, &s, &e);
    if (rc) print_error("%s\n", e.message);
    assert_int_equal(rc, 0);
    assert_string_equal(s.file, path);
    assert_string_equal(s.name, strrchr(path, '/') + 1);
    assert_int_equal(s.threads, 3);
    eddy_scene_free(&s);
    unlink(path);
}

static int make_registry(void **state)
{
    (void)state;
    eddy_error e;
    const eddy_component *const builtins[] = {&SPH_SOLVER, &PBF_SOLVER, &TEST_SOLVER, &VTK_WRITER, &CSV_WRITER};
    if (eddy_registry_create(NULL, &registry, &e)) {
        print_error("eddy_registry_create: %s\n", e.message);
        return -1;
    }
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; ++i)
        if (eddy_registry_add_builtin(registry, builtins[i], "test_scene", &e)) {
            print_error("eddy_registry_add_builtin: %s\n", e.message);
            return -1;
        }
    return 0;
}

static int free_registry(void **state)
{
    (void)state;
    eddy_registry_destroy(registry);
    registry = NULL;
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* Limits on input that sizes a loop (issue 20): each case hung, overflowed or miscounted before    */

/* The core helpers refuse what they cannot sum and stay O(1) at any input. */
static void lattice_helpers_limits(void **state)
{
    (void)state;
    const double nan_cases[][3] = {{1.0, 1e-3, 1.0}, /* h / spacing = 1000 */
                                   {1.0, 0.0025, 1e5},
                                   {1.0, 1e-300, 1e300},
                                   {1.0, INFINITY, 1.0},
                                   {1.0, 0.01, NAN}};
    for (size_t i = 0; i < sizeof nan_cases / sizeof nan_cases[0]; ++i)
        for (int d = 2; d <= 3; ++d) {
            assert_true(isnan(eddy_lattice_density(nan_cases[i][0], nan_cases[i][1], nan_cases[i][2], d)));
            assert_true(isnan(eddy_lattice_gradient_moment(nan_cases[i][1], nan_cases[i][2], d)));
        }
    assert_true(isnan(eddy_lattice_density(1.0, 0.5, 1.0, 4)));
    assert_true(isnan(eddy_lattice_gradient_moment(0.5, 1.0, 1)));
    /* A mass whose rest spacing lies beyond the limit (it hung), and bad masses and densities. */
    assert_true(isnan(eddy_rest_spacing(1e-12, 1000, 0.005, 2)));
    assert_true(isnan(eddy_rest_spacing(1e-12, 1000, 0.005, 3)));
    assert_true(isnan(eddy_rest_spacing(-1, 1000, 0.005, 2)));
    assert_true(isnan(eddy_rest_spacing(1e-3, 0, 0.005, 2)));
    assert_true(isnan(eddy_rest_spacing(1e-3, 1000, INFINITY, 3)));
    assert_true(isnan(eddy_rest_spacing(1e-3, 1000, 0.005, 5)));
    /* Documented legacy answers for spacing or h <= 0, and without a smoothing radius. */
    assert_true(eddy_lattice_density(1, 0, 1, 2) == 0.0);
    assert_true(eddy_lattice_gradient_moment(0.1, -1, 3) == 1.0);
    NEAR(eddy_rest_spacing(1e-3, 1000, 0, 3), 0.01, 1e-9);
    /* At the limit the sums agree with a point-by-point sum of the core kernel, and the rest spacing
     * comes back from the mass. */
    for (int d = 2; d <= 3; ++d)
        for (double ratio = 1.5; ratio <= EDDY_LATTICE_RATIO_MAX; ratio *= 2.3) {
            const double h = 0.01, dx = h / ratio, m0 = 1000 * pow(dx, d);
            const double rho = eddy_lattice_density(m0, dx, h, d);
            NEAR(rho, lattice_sum(m0, dx, h, d), 1e-4 * rho);
            const double mass = (float)(m0 * 1000 / rho);
            NEAR(eddy_rest_spacing(mass, 1000, h, d), dx, 1e-6 * dx);
        }
    /* (0.874 in 2D and 0.947 in 3D at h = 2 spacings, as world.h says) */
    for (int d = 2; d <= 3; ++d) {
        NEAR(eddy_lattice_gradient_moment(0.5, 1.0, d), gradient_moment_sum(0.5, 1.0, d), 1e-4);
        NEAR(eddy_lattice_gradient_moment(0.25, 1.0, d), gradient_moment_sum(0.25, 1.0, d), 1e-4);
    }
    NEAR(eddy_lattice_gradient_moment(0.5, 1.0, 2), 0.87, 0.01);
    NEAR(eddy_lattice_gradient_moment(0.5, 1.0, 3), 0.95, 0.01);
    assert_true(eddy_lattice_gradient_moment(1.0 / EDDY_LATTICE_RATIO_MAX, 1.0, 3) > 0.999);
    /* Every call is cheap, including at the limit (a rest spacing at h / spacing 31 in 3D once took
     * 62 sums of 63^3 terms: these 2000 calls ran for hours). No wall-clock assertion here (shared
     * machines): the CTest TIMEOUT of the scene test catches a return of the old loops. */
    double sink = 0;
    for (int i = 0; i < 2000; ++i) {
        sink += eddy_rest_spacing(1000 * pow(0.01 / 31, 3) * (1 + 1e-6 * i), 1000, 0.01, 3);
        sink += eddy_lattice_gradient_moment(0.01 / (31 - 1e-3 * i), 0.01, 3);
    }
    assert_true(sink > 0);
}

/* Spacings and masses out of range are refused with both values, before any lattice sum. */
static void spacing_limits(void **state)
{
    (void)state;
    /* h = 1e5 (simulation units) against a spacing of 0.05 x scale 2: hung, and overflowed int. */
    const char *big_h[] = {"world.smoothing_radius=1e5"};
    expect_error_sets(VALID, big_h, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:43: materials[0].particle_spacing: expected a spacing of at least "
                      "world.smoothing_radius / 32 = 1562.5 (at most 32 spacings per smoothing radius), got 0.05 "
                      "(h / spacing = 1e+06)");
    const char *huge_h[] = {"world.smoothing_radius=3e38"};
    expect_error_sets(VALID, huge_h, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:43: materials[0].particle_spacing: expected a spacing of at least "
                      "world.smoothing_radius / 32 = 4.6875e+36 (at most 32 spacings per smoothing radius), got "
                      "0.05 (h / spacing = 3e+39)");
    /* A tiny mass: its rest spacing was searched by sums over (2 h / spacing + 1)^3 points. */
    edited_error("\"particle_spacing\": 0.05", "\"particle_mass\": 1e-12",
                 "t.json:7:40: materials[0].particle_mass: expected a mass whose rest spacing is at least "
                 "world.smoothing_radius / 32 = 0.003125 (at most 32 spacings per smoothing radius), got 1e-12 "
                 "(rest spacing about 5e-06, h / spacing about 20000)");
    /* A mass whose particle alone outweighs rest density: no spacing below h gives it. The limit is
     * rho0 / W_poly6(0) with W_poly6(0) = 315 / (64 pi h^3) in 3D and h = 0.1 x scale 2 in simulation
     * units: 1000 / 195.8 = 5.10633 (the message once named a fallback spacing instead). */
    edited_error("\"particle_spacing\": 0.05", "\"particle_mass\": 50",
                 "t.json:7:40: materials[0].particle_mass: expected a mass of at most rest_density / W_poly6(0) = "
                 "5.10633 (for world.smoothing_radius = 0.1), got 50: with more, a particle's own kernel weight "
                 "alone gives more than rest_density 1000, at any spacing");
    /* A spacing of h or more: the world re-derived another spacing from the mass and built 8x the
     * particles the count promised. */
    edited_error("\"particle_spacing\": 0.05", "\"particle_spacing\": 0.1",
                 "t.json:7:43: materials[0].particle_spacing: expected a spacing below world.smoothing_radius = "
                 "0.1 (the kernel must reach the nearest neighbours for the density sum to fix the particle "
                 "mass), got 0.1");
    /* Just below h the neighbours barely count, and the mass no longer fixes the spacing. */
    edited_error("\"particle_spacing\": 0.05", "\"particle_spacing\": 0.0999",
                 "t.json:7:43: materials[0].particle_spacing: expected a spacing further below "
                 "world.smoothing_radius = 0.1, got 0.0999 (h / spacing = 1.001): the neighbours' kernel weight "
                 "is too small for a particle mass to give this spacing rest density (the mass gives 0.099897)");
    /* Within the range the count and the world agree, also for a mass-given material (h / spacing
     * about 20 here, like a tracer of scenes/vpm_drop_in_tank.json). */
    char *text = edit("\"particle_spacing\": 0.05", "\"particle_spacing\": 0.0525");
    eddy_scene s;
    parse_ok(text, NULL, 0, &s);
    free(text);
    eddy_world *w = NULL;
    eddy_error e;
    assert_int_equal(build_with(&s, NULL, &w, &e), 0);
    assert_int_equal(w->particles.count, eddy_scene_count_particles(&s));
    assert_true(w->materials[0].particle_dist == s.materials[0].particle_dist);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* Sphere counts come from rows and a volume bound, never from walking every lattice point, and agree
 * with the particles the world builds. */
static void sphere_counts(void **state)
{
    (void)state;
    /* r = 1e4 at spacing 0.1 (3D): about 4e15 particles, once walked point by point for hours. */
    const char *sets[] = {"domain.out_of_domain=\"remove\"",
                          "fluids[0]={\"material\": \"water\", \"sphere\": {\"center\": [0, 0, 0], \"radius\": 1e4}}"};
    expect_error_sets(VALID, sets, 2, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'fluids[0]={\"material\": \"water\", \"sphere\": {\"center\": [0, 0, 0], \"radius\": "
                      "1e4}}': fluids[0].sphere: expected at most 4294967295 particles in all, got more than 1e15 in "
                      "this block");
    /* r / spacing = 1040: the volume bound alone exceeds the cap. */
    const char *above[] = {"domain.out_of_domain=\"remove\"",
                           "fluids[0]={\"material\": \"water\", \"sphere\": {\"center\": [0, 0, 0], \"radius\": 52}}"};
    expect_error_sets(VALID, above, 2, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'fluids[0]={\"material\": \"water\", \"sphere\": {\"center\": [0, 0, 0], \"radius\": "
                      "52}}': fluids[0].sphere: expected at most 4294967295 particles in all, got at least "
                      "4686366526 after this block");
    /* r / spacing = 1010: the bound stays below the cap, the rows (4e6 of them) are counted. */
    const char *near[] = {"domain.out_of_domain=\"remove\"",
                          "fluids[0]={\"material\": \"water\", \"sphere\": {\"center\": [0, 0, 0], \"radius\": 50.5}}"};
    expect_error_sets(VALID, near, 2, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'fluids[0]={\"material\": \"water\", \"sphere\": {\"center\": [0, 0, 0], \"radius\": "
                      "50.5}}': fluids[0].sphere: expected at most 4294967295 particles in all, got "
                      "4315706432 after this block");
    /* Counted spheres match the world, off-centre and cut by rounding, in 2D and 3D. */
    static const char *const spheres[][3] = {
        {"[0.5, 0.5]", "[0.5, 0.5, 0.5]", "\"radius\": 0.31}"},
        {"[0.437, 0.51]", "[0.437, 0.51, 0.3]", "\"radius\": 0.27}"},
        {"[0.2, 0.3]", "[0.2, 0.3, 0.4]", "\"radius\": 0.05}"},
        {"[0.5, 0.5]", "[0.5, 0.5, 0.5]", "\"radius\": 0.5}, \"spacing_factor\": 0.37"},
    };
    for (int d = 2; d <= 3; ++d)
        for (size_t i = 0; i < sizeof spheres / sizeof spheres[0]; ++i) {
            char fluid[256];
            snprintf(fluid, sizeof fluid, "fluids[0]={\"material\": \"water\", \"sphere\": {\"center\": %s, %s}",
                     spheres[i][d - 2], spheres[i][2]);
            const char *set[] = {fluid};
            eddy_scene s;
            parse_ok(d == 2 ? VALID_2D : VALID, set, 1, &s);
            eddy_world *w = NULL;
            eddy_error e;
            assert_int_equal(build_with(&s, NULL, &w, &e), 0);
            assert_true(w->particles.count > 0);
            assert_int_equal(w->particles.count, eddy_scene_count_particles(&s));
            eddy_world_destroy(w);
            eddy_scene_free(&s);
        }
}

/* A scene text of `n` generated entries: head, then n times item(i), separated by commas, then tail. */
static char *generated(const char *head, const char *item, size_t n, const char *tail, const char *last)
{
    size_t cap = strlen(head) + strlen(tail) + strlen(last) + n * (strlen(item) + 24) + 64;
    char *out = malloc(cap), *p = out;
    assert_non_null(out);
    p += sprintf(p, "%s", head);
    for (size_t i = 0; i < n; ++i) p += sprintf(p, item, i);
    p += sprintf(p, "%s%s", last, tail);
    return out;
}

/* Duplicate keys and names are found in linear time: 100k keys in one object took over a minute,
 * 30k materials 14 s. */
static void duplicates_at_scale(void **state)
{
    (void)state;
    const char *head = "{\"solver\": \"sph_mueller\", \"time\": {\"dt\": 0.001, \"end\": 1},"
                       "\"world\": {\"smoothing_radius\": 0.2}, \"container\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},";
    char first[512];
    /* 100k members of a material object (whose keys the solvers decide later), the last a repeat. */
    snprintf(first, sizeof first, "%s\"materials\": [{\"name\": \"water\", \"particle_spacing\": 0.1,", head);
    char *keys = generated(first, "\"k%zu\": 0,", 100000, "}], \"fluids\": []}", "\"k99998\": 1");
    expect_error(keys, EDDY_ERR_INVALID_ARGUMENT,
                 "t.json:1:1189091: materials[0].k99998: duplicate key, expected each key once");
    free(keys);
    /* 30k materials, the last named like the one before it. */
    snprintf(first, sizeof first, "%s\"materials\": [", head);
    char *materials = generated(first, "{\"name\": \"m%zu\", \"particle_spacing\": 0.1},", 30000,
                                "], \"fluids\": []}", "{\"name\": \"m29999\", \"particle_spacing\": 0.1}");
    expect_error(materials, EDDY_ERR_INVALID_ARGUMENT,
                 "t.json:1:1309058: materials[30000].name: expected a unique material name, got \"m29999\" again "
                 "(also materials[29999])");
    free(materials);
}

/* ------------------------------------------------------------------------------------------------ */
/* The scene audit: input that was accepted as nonsense, or refused with a message that named the      */
/* wrong key, contradicted itself, or lost what was wrong                                            */

static void expect_set_error(const char *set, const char *message)
{
    const char *sets[] = {set};
    expect_error_sets(VALID, sets, 1, EDDY_ERR_INVALID_ARGUMENT, message);
}

/* Floats: a finite number beyond the float range was "not a finite number"; a rest density of 1e39
 * became inf and the spacing was blamed for a NaN mass; a subnormal scale wrecked the next message. */
static void float_range_messages(void **state)
{
    (void)state;
    edited_error("\"max\": [1, 1, 1]", "\"max\": [1e39, 1, 1]",
                 "t.json:5:43: container.max[0]: expected a number of at most 3.4e+38 in magnitude (the float "
                 "range), got 1e+39");
    edited_error("\"viscosity\": 0.2", "\"viscosity\": 0.2, \"rest_density\": 1e39",
                 "t.json:7:83: materials[0].rest_density: expected a number within the float range (0, or a "
                 "magnitude of 1.2e-38 to 3.4e+38), got 1e+39");
    expect_set_error("world.simulation_scale=1e-40",
                     "--set 'world.simulation_scale=1e-40': world.simulation_scale: expected a number within the float range (0, or a magnitude "
                     "of 1.2e-38 to 3.4e+38), got 1e-40");
    /* Beyond a table's "no bound" (1e30) the range is written out ("expected a number >= 0, got 1e+31"). */
    expect_set_error("materials[0].viscosity=1e31",
                     "--set 'materials[0].viscosity=1e31': materials[0].viscosity: expected a number in [0, 1e+30], "
                     "got 1e+31");
}

/* A rest density within the float range but far from any fluid's: 3e38 blew up at the first step with a
 * hint about the time step, 2e-38 was blamed on the spacing (adversarial trial). The bounds themselves
 * are taken, as floats. */
static void rest_density_bounds(void **state)
{
    (void)state;
    static const char *const BAD[] = {"3e38", "2e-38", "1.1e12", "9.9e-10"};
    static const char *const SHOWN[] = {"3e+38", "2e-38", "1.1e+12", "9.9e-10"};
    for (size_t i = 0; i < 4; ++i) {
        char set[64], message[320];
        snprintf(set, sizeof set, "materials[0].rest_density=%s", BAD[i]);
        snprintf(message, sizeof message,
                 "--set '%s': materials[0].rest_density: expected a rest density in [1e-9, 1e12] kg/m^3, got %s: "
                 "outside it the particle masses or the pressures the solvers form from it leave single precision",
                 set, SHOWN[i]);
        expect_set_error(set, message);
    }
    static const char *const GOOD[] = {"materials[0].rest_density=1e-9", "materials[0].rest_density=1e12"};
    for (size_t i = 0; i < 2; ++i) {
        eddy_scene s;
        eddy_error err;
        assert_int_equal(eddy_scene_parse(VALID, "t.json", &GOOD[i], 1, &s, &err), EDDY_OK);
        eddy_scene_free(&s);
    }
}

/* Valid JSON nested past cJSON's limit was "malformed JSON near '[[[[...'". */
static void nesting_limit(void **state)
{
    (void)state;
    const size_t deep = 1001;
    char *text = malloc(2 * deep + 64);
    assert_non_null(text);
    size_t k = (size_t)sprintf(text, "{\"description\": ");
    for (size_t i = 0; i < deep; ++i) text[k++] = '[';
    for (size_t i = 0; i < deep; ++i) text[k++] = ']';
    strcpy(text + k, "}");
    /* The object and 999 arrays are open at the 1000th '[' (column 16 + 1000). */
    expect_error(text, EDDY_ERR_PARSE,
                 "t.json:1:1016: expected arrays and objects nested at most 1000 levels deep, got deeper");
    free(text);
}

/* A key of 100 characters (or 100 000) filled the message: the path was cut at 512 bytes, and the
 * message with it, before it said what was wrong. Keys are shown cut, without control characters. */
static void long_keys_are_cut(void **state)
{
    (void)state;
    char key[101];
    memset(key, 'k', 100);
    key[100] = '\0';
    char to[160];
    snprintf(to, sizeof to, "\"%s\": 1, \"solver\"", key);
    edited_error("\"solver\"", to,
                 "t.json:2:3: kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...: unknown key, expected one of: name, "
                 "description, solver, grid, dimensions, time, world, container, domain, materials, fluids, "
                 "colliders, vortices, solvers, grids, output, probes, render, checkpoint");
    edited_error("\"viscosity\"", "\"visc\\u0007osity\"",
                 "t.json:7:49: materials[0].visc osity: unknown key, expected one of: name, rest_density, "
                 "particle_mass, particle_spacing, viscosity, stiffness, initial_sum, particle_radius, "
                 "particle_margin, restitution, friction, erp");
}

/* A key holding '.', '[' or ']' is located by its place in the tree, not by a dotted path that would
 * read it as several keys: such a key's message had no LINE:COLUMN while every other key's had one. */
static void keys_with_path_characters_are_located(void **state)
{
    (void)state;
    edited_error("\"viscosity\"", "\"visc.osity\"",
                 "t.json:7:49: materials[0].visc.osity: unknown key, expected one of: name, rest_density, "
                 "particle_mass, particle_spacing, viscosity, stiffness, initial_sum, particle_radius, "
                 "particle_margin, restitution, friction, erp");
    edited_error("\"viscosity\"", "\"visc[0]\"",
                 "t.json:7:49: materials[0].visc[0]: unknown key, expected one of: name, rest_density, "
                 "particle_mass, particle_spacing, viscosity, stiffness, initial_sum, particle_radius, "
                 "particle_margin, restitution, friction, erp");
    edited_error("\"solver\"", "\"a.b\": 1, \"solver\"",
                 "t.json:2:3: a.b: unknown key, expected one of: name, description, solver, grid, dimensions, "
                 "time, world, container, domain, materials, fluids, colliders, vortices, solvers, grids, output, probes, "
                 "render, checkpoint");
    /* A solver section key with a dot, and a section id with one. */
    expect_param_error("\"rela.xation\": 1",
                       "t.json:9:24: solvers.test.rela.xation: unknown key, expected one of: relaxation, "
                       "iterations, vorticity, kernel, sound_speed");
    edited_error("\"fluids\"", "\"solvers\": {\"sph.mueller\": {}},\n  \"fluids\"",
                 "t.json:9:15: solvers.sph.mueller: unknown solver 'sph.mueller', expected one of the registered "
                 "solvers: pbf, sph_mueller, test; did you mean 'sph_mueller'?");
    /* A key "a.b" beside an object "a" holding "b": the error is at the key "a.b" (line 2), not at the
     * member b of a (line 4), where a lookup by the dotted path found it. */
    /* A byte below 33 between tokens is white space to cJSON (a form feed, a 0x16): the locator skipped
     * only JSON's four and left the key without a line:column. */
    edited_error("\"solver\"", "\x16\f\"solvr\": 1, \"solver\"",
                 "t.json:2:5: solvr: unknown key, expected one of: name, description, solver, grid, dimensions, "
                 "time, world, container, domain, materials, fluids, colliders, vortices, solvers, grids, output, probes, "
                 "render, checkpoint");
    edited_error("\"solver\"", "\"world.smoothing_radius\": 2, \"solver\"",
                 "t.json:2:3: world.smoothing_radius: unknown key, expected one of: name, description, solver, grid, "
                 "dimensions, time, world, container, domain, materials, fluids, colliders, vortices, solvers, grids, output, "
                 "probes, render, checkpoint");
}

/* A scene's strings reach the terminal through its messages: an escape sequence in a writer id or a
 * material name was printed as it was (and a writer id cut in the middle of a UTF-8 character), and an
 * empty key showed as nothing ("materials[0].: unknown key"). */
static void messages_show_text_safely(void **state)
{
    (void)state;
    const char *esc[] = {"output.format=vtk,\x1b[2Jred"};
    expect_error_sets(VALID, esc, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'output.format=vtk, [2Jred': output.format: expected a writer id (1 to 63 characters of "
                      "[a-z0-9_]), got \" [2Jred\"");
    /* Cut after 40 bytes of whole UTF-8 characters (the 40th byte is the first half of an e acute). */
    char wide[160] = "output.format=vtk,a";
    for (int i = 0; i < 41; ++i) strcat(wide, "\xc3\xa9");
    const char *utf8[] = {wide};
    char expected[512] = "--set '";
    strcat(expected, wide);
    strcat(expected, "': output.format: expected a writer id (1 to 63 characters of [a-z0-9_]), got \"a");
    for (int i = 0; i < 19; ++i) strcat(expected, "\xc3\xa9");
    strcat(expected, "...\"");
    expect_error_sets(VALID, utf8, 1, EDDY_ERR_INVALID_ARGUMENT, expected);
    const char *gap[] = {"output.format=vtk,,\x1b[2J"};
    expect_error_sets(VALID, gap, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'output.format=vtk,, [2J': output.format: expected writer ids separated by single commas, "
                      "got an empty entry in \"vtk,, [2J\"");
    edited_error("{\"name\": \"water\"", "{\"name\": \"wa\\u001b[2Jter\"",
                 "t.json:10:18: fluids[0].material: expected the name of a material (\"wa [2Jter\"), got \"water\"");
    edited_error("\"materials\": [\n",
                 "\"materials\": [\n    {\"name\": \"\\u001b[2J\", \"particle_mass\": 1}, "
                 "{\"name\": \"\\u001b[2J\", \"particle_mass\": 1},\n",
                 "t.json:7:57: materials[1].name: expected a unique material name, got \" [2J\" again (also "
                 "materials[0])");
    edited_error("\"viscosity\"", "\"\": 1, \"viscosity\"",
                 "t.json:7:49: materials[0].\"\": unknown key, expected one of: name, rest_density, "
                 "particle_mass, particle_spacing, viscosity, stiffness, initial_sum, particle_radius, "
                 "particle_margin, restitution, friction, erp");
    edited_error("\"solver\"", "\"\": 1, \"solver\"",
                 "t.json:2:3: \"\": unknown key, expected one of: name, description, solver, grid, dimensions, "
                 "time, world, container, domain, materials, fluids, colliders, vortices, solvers, grids, output, probes, "
                 "render, checkpoint");
    /* DEL and the C1 controls (U+0085, U+009B: some terminals start an escape sequence at U+009B) in a
     * string value and in a key: one space each; U+00A0 and e acute are text. */
    edited_error("\"sph_mueller\"", "\"a\\u007fb\\u0085c\\u009b2J\\u00a0\\u00e9\"",
                 "t.json:2:13: solver: expected a component id (1 to 63 characters of [a-z0-9_]), got "
                 "\"a b c 2J\xc2\xa0\xc3\xa9\"");
    edited_error("\"solver\"", "\"k\\u009b2J\\u007f\": 1, \"solver\"",
                 "t.json:2:3: k 2J : unknown key, expected one of: name, description, solver, grid, dimensions, "
                 "time, world, container, domain, materials, fluids, colliders, vortices, solvers, grids, output, probes, "
                 "render, checkpoint");
}

/* The default name follows the rules of a written one: "..json" and "...json" ran into out/. and
 * out/.., the working folder itself. */
static void default_names(void **state)
{
    (void)state;
    static const char *const files[][2] = {{"dir/...json", "scene"}, {"..json", "scene"}, {"a/.json", ".json"},
                                           {"a\\b.json", "a_b"},       {"x/t.json", "t"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        eddy_scene s;
        eddy_error e;
        eddy_error_clear(&e);
        int rc = eddy_scene_parse(VALID, files[i][0], NULL, 0, &s, &e);
        if (rc) print_error("%s\n", e.message);
        assert_int_equal(rc, 0);
        assert_string_equal(s.name, files[i][1]);
        eddy_scene_free(&s);
    }
}

/* JSON text is UTF-8: a Latin-1 name became a folder name. */
static void utf8_only(void **state)
{
    (void)state;
    expect_error("{\"name\": \"caf\xe9\"}", EDDY_ERR_PARSE,
                 "t.json:1:14: malformed JSON: expected UTF-8 text, got the byte 0xE9");
    expect_error("{\n \"n\": \"\xc0\xaf\"}", EDDY_ERR_PARSE, /* overlong "/" */
                 "t.json:2:8: malformed JSON: expected UTF-8 text, got the byte 0xC0");
    expect_error("{\"n\": \"\xed\xa0\x80\"}", EDDY_ERR_PARSE, /* a surrogate */
                 "t.json:1:8: malformed JSON: expected UTF-8 text, got the byte 0xED");
    eddy_scene s;
    char *text = edit("\"solver\"", "\"description\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\", \"solver\"");
    parse_ok(text, NULL, 0, &s);
    eddy_scene_free(&s);
    free(text);
    const char *sets[] = {"name=caf\xe9"};
    expect_error_sets(VALID, sets, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'name=caf': expected UTF-8 text, got the byte 0xE9 next");
    eddy_error e;
    assert_int_equal(eddy_scene_check_set(sets[0], &e), EDDY_ERR_INVALID_ARGUMENT);
}

/* cJSON ends a decoded string at \u0000: "sph_mueller\u0000x" ran sph_mueller, and a name or folder
 * lost its tail, without a word. An escaped backslash before "u0000" is no NUL. */
static void nul_escape_refused(void **state)
{
    (void)state;
    expect_error("{\"name\": \"a\",\n  \"solver\": \"sph_mueller\\u0000x\"}", EDDY_ERR_PARSE,
                 "t.json:2:25: a string holds the escape \\u0000 (a NUL character), which no key, name or path can "
                 "contain");
    expect_error("{\"a\\u0000b\": 1}", EDDY_ERR_PARSE,
                 "t.json:1:4: a string holds the escape \\u0000 (a NUL character), which no key, name or path can "
                 "contain");
    const char *sets[] = {"solver=\"tait\\u0000\""};
    expect_error_sets(VALID, sets, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'solver=\"tait\\u0000\"': a string holds the escape \\u0000 (a NUL character), which "
                      "no key, name or path can contain");
    eddy_error e;
    assert_int_equal(eddy_scene_check_set(sets[0], &e), EDDY_ERR_INVALID_ARGUMENT);
    /* A value that is no JSON is its own text: a backslash and "u0000", no NUL. */
    assert_int_equal(eddy_scene_check_set("description=say \"\\u0000 hi", &e), EDDY_OK);
    eddy_scene s;
    const char *literal[] = {"description=say \"\\u0000 hi"};
    parse_ok(VALID, literal, 1, &s);
    eddy_scene_free(&s);
    char *text = edit("\"solver\"", "\"description\": \"a \\\\u0000 \\\"u0000\\\" b\", \"solver\"");
    parse_ok(text, NULL, 0, &s);
    eddy_scene_free(&s);
    free(text);
}

/* Overrides a run cannot use (scene.h, eddy_scene_set_has_effect): each branch, and what the run reads. */
static void set_effect_on_a_run(void **state)
{
    (void)state;
    eddy_scene s;
    parse_ok(VALID, NULL, 0, &s);
    const eddy_component *sph = registered("sph_mueller"), *pbf = registered("pbf");
    char why[160];
    struct { const eddy_component *solver; const char *set, *why; } cases[] = {
        {sph, "solvers.sph_mueller.cfl=0.5", NULL},
        {sph, "solvers.pbf.iterations=3", "the run's solver is 'sph_mueller'"},
        {pbf, "solvers.sph_mueller.cfl=0.5", "the run's solver is 'pbf'"},
        {sph, "grids.cpu.x=1", NULL},
        {sph, "grids.gpu.block=64", "the run's grid is 'cpu'"},
        {sph, "materials[0].stiffness=5", NULL},       /* sph_mueller declares it */
        {pbf, "materials[0].stiffness=5", "solver 'pbf' does not read it"},
        {pbf, "materials[0].initial_sum=1", NULL},     /* both declare it */
        {pbf, "materials[0].rest_density=1000", NULL}, /* a generic key */
        {pbf, "materials[0].nonsense=1", NULL},        /* declared by none: the scene's own error */
        {pbf, "time.dt=0.001", NULL},
        {NULL, "solvers.pbf.iterations=3", NULL},      /* no solver known */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        why[0] = '\0';
        const int effect = eddy_scene_set_has_effect(&s, registry, cases[i].solver, cases[i].set, why, sizeof why);
        if (effect != !cases[i].why || (cases[i].why && strcmp(why, cases[i].why) != 0))
            fail_msg("%s: effect %d, why '%s'; expected %s", cases[i].set, effect, why,
                     cases[i].why ? cases[i].why : "an effect");
    }
    eddy_scene_free(&s);
}

/* A collider reaching into a fluid block (more than half a fill spacing, 0.025 here) started particles
 * inside the solid; touching is fine. The block is [0, 0.5] x [0, 0.25] x [0, 0.1]. */
static void colliders_clear_of_fluids(void **state)
{
    (void)state;
    expect_set_error("colliders=[{\"type\": \"box\", \"min\": [0.4, 0, 0], \"max\": [1, 1, 1]}]",
                     "--set 'colliders=[{\"type\": \"box\", \"min\": [0.4, 0, 0], \"max\": [1, 1, 1]}]': colliders[0]: "
                     "expected a solid clear of the fluid blocks, got one that would have to move 0.1 "
                     "to clear fluids[0], more than half its particle spacing of 0.05: particles would start inside "
                     "the solid");
    expect_set_error("colliders=[{\"type\": \"plane\", \"point\": [0, 0.2, 0], \"normal\": [0, -1, 0]}]",
                     "--set 'colliders=[{\"type\": \"plane\", \"point\": [0, 0.2, 0], \"normal\": [0, -1, 0]}]': "
                     "colliders[0]: expected a solid clear of the fluid blocks, got one that would have to move 0.05 "
                     "to clear fluids[0], more than half its particle spacing of 0.05: particles would start inside "
                     "the solid");
    const char *sphere_in_plane[] = {
        "fluids[0]={\"material\": \"water\", \"sphere\": {\"center\": [0.5, 0.5, 0.5], \"radius\": 0.2}}",
        "colliders=[{\"type\": \"plane\", \"point\": [0.65, 0, 0], \"normal\": [-1, 0, 0]}]"};
    expect_error_sets(VALID, sphere_in_plane, 2, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'colliders=[{\"type\": \"plane\", \"point\": [0.65, 0, 0], \"normal\": [-1, 0, 0]}]': "
                      "colliders[0]: expected a solid clear of the fluid blocks, got one that would have to move 0.05 "
                      "to clear fluids[0], more than half its particle spacing of 0.05: particles would start inside "
                      "the solid");
    /* In the file: the position of the collider. */
    edited_error("  \"fluids\"", "  \"colliders\": [{\"type\": \"sphere\", \"center\": [0.6, 0.1, 0.05], \"radius\": 0.15}],\n  \"fluids\"",
                 "t.json:9:17: colliders[0]: expected a solid clear of the fluid blocks, got one that would have to move "
                 "0.05 to clear fluids[0], more than half its particle spacing of 0.05: particles would start inside "
                 "the solid");
    /* Touching, or within half a spacing: accepted. */
    static const char *const fine[] = {
        "colliders=[{\"type\": \"box\", \"min\": [0.48, 0, 0], \"max\": [1, 1, 1]}]",
        "colliders=[{\"type\": \"plane\", \"point\": [0, 0.25, 0], \"normal\": [0, -1, 0]}]",
        "colliders=[{\"type\": \"sphere\", \"center\": [0.6, 0.1, 0.05], \"radius\": 0.1}]",
        "colliders=[{\"type\": \"box\", \"min\": [0.5, 0, 0], \"max\": [1, 1, 1]}]"};
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; ++i) {
        eddy_scene s;
        parse_ok(VALID, &fine[i], 1, &s);
        assert_int_equal(s.collider_count, 1);
        eddy_scene_free(&s);
    }
}

static void collider_messages(void **state)
{
    (void)state;
    /* A misspelled "type" is an unknown key (it was "colliders[0].type: missing required key"). */
    expect_set_error("colliders=[{\"typ\": \"box\", \"min\": [0.6, 0, 0], \"max\": [1, 1, 1]}]",
                     "--set 'colliders=[{\"typ\": \"box\", \"min\": [0.6, 0, 0], \"max\": [1, 1, 1]}]': "
                     "colliders[0].typ: unknown key, expected one of: type, point, normal, min, max, "
                     "center, radius, velocity, moving_until");
    /* In 2D a normal of x = y = 0 is zero; one along z is refused for its z (it was "got x = 0 and y = 0
     * (a 2D scene ignores z)" for [0, 0, 1], which had been "got a zero vector"). */
    const char *text = VALID_2D;
    const char *zero[] = {"colliders=[{\"type\": \"plane\", \"point\": [0, 0], \"normal\": [0, 0]}]"};
    expect_error_sets(text, zero, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'colliders=[{\"type\": \"plane\", \"point\": [0, 0], \"normal\": [0, 0]}]': "
                      "colliders[0].normal: expected a non-zero vector, got x = 0 and y = 0");
    const char *along_z[] = {"colliders=[{\"type\": \"plane\", \"point\": [0, 0], \"normal\": [0, 0, 1]}]"};
    expect_error_sets(text, along_z, 1, EDDY_ERR_INVALID_ARGUMENT,
                      "--set 'colliders=[{\"type\": \"plane\", \"point\": [0, 0], \"normal\": [0, 0, 1]}]': "
                      "colliders[0].normal: a 2D scene has no z (the x-y plane, y up), got z = 1; give [x, y]");
}

/* The grid's layout errors are the domain's (the container's here), not the backend's ("grid 'cpu':"). */
static void layout_errors_name_the_domain(void **state)
{
    (void)state;
    const char *sets[] = {"domain.periodic=[true, false, false]", "container.max=[0.25, 1, 1]",
                          "fluids[0].box.max=[0.25, 0.25, 0.1]"};
    expect_error_sets(VALID, sets, 3, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json: container: grid: periodic axis x is too short: length 0.5 holds 2 cells of h = 0.2, "
                      "at least 3 are needed (length >= 3h = 0.6)");
}

/* ------------------------------------------------------------------------------------------------ */
/* Values an override replaces, checked as written (eddy_scene_parse, eddy_scene_check_written)       */

/* `text` is refused with the same message (and code) with the overrides as without them: as written. */
static void refused_as_written(const char *text, const char *const *sets, size_t n, const char *message)
{
    expect_error_sets(text, NULL, 0, EDDY_ERR_INVALID_ARGUMENT, message);
    expect_error_sets(text, sets, n, EDDY_ERR_INVALID_ARGUMENT, message);
}

/* eddy_scene_check_written's check: fails at the view's node at `user` ("time", "time.dt", "world"), or
 * with no node at all ("-"). */
static int fail_at_path(void *user, const eddy_scene *view, eddy_error *err)
{
    const char *path = user;
    if (strcmp(path, "-") == 0) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    const cJSON *node = view->root;
    char key[32];
    for (const char *p = path; node && *p;) {
        size_t len = strcspn(p, ".");
        snprintf(key, sizeof key, "%.*s", (int)len, p);
        node = cJSON_GetObjectItemCaseSensitive(node, key);
        p += len + (p[len] == '.');
    }
    assert_non_null(node);
    return eddy_scene_fail_at(view, err, path, node, "refused");
}

static void replaced_values_checked_as_written(void **state)
{
    (void)state;
    eddy_scene s;
    eddy_error e;
    /* Overrides that only add keys, or write the value the file has, leave the file's values: one
     * tree is interpreted. */
    const char *adds[] = {"solvers.pbf.iterations=7", "world.gravity=[0, -1, 0]", "time.dt=0.001"};
    parse_ok(VALID, adds, 3, &s);
    assert_null(s.written);
    eddy_scene_free(&s);
    /* One that replaces a value: the file as written beside the run's values. */
    const char *dt[] = {"time.dt=0.002"};
    parse_ok(VALID, dt, 1, &s);
    assert_non_null(s.written);
    NEAR(s.written->dt, 0.001, 0);
    NEAR(s.dt, 0.002, 0);
    /* Its verdict: an error at the replaced value or inside it counts, one elsewhere (the object around
     * it included) is left to the run's values; one with no place in the file stands. */
    eddy_error_clear(&e);
    assert_int_equal(eddy_scene_check_written(&s, fail_at_path, "time.dt", &e), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, "t.json:3:18: time.dt: refused");
    assert_int_equal(eddy_scene_check_written(&s, fail_at_path, "time", &e), EDDY_OK);
    assert_int_equal(eddy_scene_check_written(&s, fail_at_path, "world", &e), EDDY_OK);
    assert_int_equal(eddy_scene_check_written(&s, fail_at_path, "-", &e), EDDY_ERR_OUT_OF_MEMORY);
    eddy_scene_free(&s);
    parse_ok(VALID, NULL, 0, &s);
    assert_int_equal(eddy_scene_check_written(&s, fail_at_path, "time.dt", &e), EDDY_OK); /* (none) */
    eddy_scene_free(&s);

    /* A bad number, a bad type (a solver's material key, checked when the world is built), an unknown
     * key inside a replaced object, a component section: refused as without the overrides. */
    char *text = edit("\"dt\": 0.001", "\"dt\": -1");
    refused_as_written(text, dt, 1, "t.json:3:18: time.dt: expected a number > 0, got -1");
    /* (before an override's own error, as the file is read before the overrides go in) */
    const char *then_bad[] = {"time.dt=0.002", "materials[3].viscosity=1"};
    expect_error_sets(text, then_bad, 2, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:3:18: time.dt: expected a number > 0, got -1");
    free(text);
    text = edit("\"viscosity\": 0.2", "\"viscosity\": \"high\"");
    const char *material[] = {"materials[0]={\"name\": \"water\", \"particle_spacing\": 0.05}"};
    refused_as_written(text, material, 1,
                       "t.json:7:62: materials[0].viscosity: expected a number >= 0, got \"high\"");
    free(text);
    text = edit("\"end\": 1}", "\"end\": 1, \"ned\": 2}");
    const char *time_object[] = {"time={\"dt\": 0.001, \"end\": 1}"};
    refused_as_written(text, time_object, 1,
                       "t.json:3:35: time.ned: unknown key, expected one of: dt, end, output_interval, min_dt_fraction");
    free(text);
    eddy_param_value v[5];
    const char *relax[] = {"solvers.test.relaxation=0.5"};
    assert_int_equal(params_of("\"relaxation\": 1.5", relax, 1, v, &e), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, "t.json:9:38: solvers.test.relaxation: 1.5 is out of range [0, 1]");
    /* Another solver's section is not the run's: not read, as without the override. */
    const char *other[] = {"solvers.other={}"};
    assert_int_equal(params_of("", other, 1, v, &e), EDDY_OK);

    /* A key the file lacks may come from an override of that key (the file as written, which takes no
     * override, misses it: an error at no replaced value, left to the run's values); an object an
     * override replaces is the file's as written, its missing keys and all. */
    text = edit("\"dt\": 0.001, ", "");
    const char *supplied[] = {"time.dt=0.001", "time.end=2"};
    parse_ok(text, supplied, 2, &s);
    assert_non_null(s.written);
    NEAR(s.dt, 0.001, 0);
    NEAR(s.end_time, 2, 0);
    eddy_scene_free(&s);
    const char *whole[] = {"time={\"dt\": 0.001, \"end\": 2}"};
    refused_as_written(text, whole, 1, "t.json:3:11: time.dt: missing required key, expected a number > 0");
    free(text);
    /* A value refused against another that an override changes: the file's interval against its own
     * end. Kept, it is judged against the run's end; replaced, it is refused as written. */
    text = edit("\"end\": 1}", "\"end\": 1, \"output_interval\": 1e-7}");
    const char *end[] = {"time.end=0.01"};
    parse_ok(text, end, 1, &s);
    NEAR(s.output_interval, 1e-7, 0);
    eddy_scene_free(&s);
    const char *both[] = {"time.end=0.01", "time.output_interval=1e-6"};
    refused_as_written(text, both, 2,
                       "t.json:3:54: time.output_interval: expected at least time.end / 1e+06 = 1e-06 s (at most "
                       "1e+06 frames), got 1e-07");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_scene_fields),
        cmocka_unit_test(malformed_json),
        cmocka_unit_test(unknown_keys),
        cmocka_unit_test(wrong_types_and_ranges),
        cmocka_unit_test(missing_required),
        cmocka_unit_test(material_and_fluid_rules),
        cmocka_unit_test(vectors),
        cmocka_unit_test(spacing_near_radius_warned),
        cmocka_unit_test(two_d_vectors_have_no_z),
        cmocka_unit_test(set_overrides),
        cmocka_unit_test(set_values_name_the_set),
        cmocka_unit_test(bad_sets),
        cmocka_unit_test(component_params),
        cmocka_unit_test(build_world),
        cmocka_unit_test(build_world_2d_sphere_colliders),
        cmocka_unit_test(material_keys_follow_the_solvers),
        cmocka_unit_test(typed_params),
        cmocka_unit_test(component_ids),
        cmocka_unit_test(unknown_id_hint_reads_descriptions),
        cmocka_unit_test(grid_params_reach_the_grid),
        cmocka_unit_test(rescale),
        cmocka_unit_test(locate_paths),
        cmocka_unit_test(load_files),
        cmocka_unit_test(lattice_helpers_limits),
        cmocka_unit_test(spacing_limits),
        cmocka_unit_test(sphere_counts),
        cmocka_unit_test(duplicates_at_scale),
        cmocka_unit_test(float_range_messages),
        cmocka_unit_test(rest_density_bounds),
        cmocka_unit_test(nesting_limit),
        cmocka_unit_test(long_keys_are_cut),
        cmocka_unit_test(keys_with_path_characters_are_located),
        cmocka_unit_test(messages_show_text_safely),
        cmocka_unit_test(default_names),
        cmocka_unit_test(utf8_only),
        cmocka_unit_test(nul_escape_refused),
        cmocka_unit_test(set_effect_on_a_run),
        cmocka_unit_test(colliders_clear_of_fluids),
        cmocka_unit_test(collider_messages),
        cmocka_unit_test(layout_errors_name_the_domain),
        cmocka_unit_test(replaced_values_checked_as_written),
    };
    return cmocka_run_group_tests(tests, make_registry, free_registry);
}
