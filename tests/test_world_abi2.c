/*
 * The core's side of ABI 2.0, each check one that fails if the code is wrong:
 *  - typed parameters: the exact messages of eddy_param_check, the refusals of eddy_param_table_check,
 *    defaults, and tables read with the stride of their first entry (a larger, newer entry layout);
 *  - materials: the size rule, the per-material values checked and copied into the world;
 *  - host services: NULL-safe, size-checked helpers and the silent host;
 *  - field residency: map/unmap edit generations, and a fake device solver's downloads counted;
 *  - the per-step reduction: nonfinite counts, the smallest-id offender, the max speed against a
 *    serial brute force, and the cache dropped by a write mapping;
 *  - the halo refresh hook;
 *  - the state hash: independent of storage order, blind to halo copies, byte-compatible with ABI 1.x
 *    (checked against a reimplementation of the documented format), and 64-bit ids.
 */
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <eddy/eddy.h>

#include "test_rng.h"

/* ---------------------------------------------------------------------------------------------- */
/* Helpers                                                                                        */

static eddy_param_value real_value(double x)
{
    eddy_param_value v = {.is_set = 1, .count = 1, .number = x, .integer = (int64_t)x, .vector = {x, 0, 0}};
    return v;
}

static void check_param(const eddy_param_desc *d, const eddy_param_value *v, const char *context,
                         const char *message)
{
    eddy_error err;
    eddy_error_clear(&err);
    int rc = eddy_param_check(d, v, context, &err);
    if (!message) {
        if (rc != EDDY_OK) fail_msg("expected '%s' to pass, got: %s", d->id, err.message);
        return;
    }
    assert_int_equal(rc, EDDY_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.code, EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, message);
}

/* A 3D world with one material and n particles on a jittered lattice in [0, 1]^3. */
static eddy_world *make_world(size_t n, uint64_t seed)
{
    eddy_world *w;
    eddy_error err;
    assert_int_equal(eddy_world_create(3, &w, &err), EDDY_OK);
    w->smoothing_radius = 0.1f;
    eddy_material m = eddy_default_material();
    snprintf(m.name, sizeof m.name, "water");
    m.particle_mass = 0.001f;
    if (eddy_world_add_material(w, &m, &err)) fail_msg("add_material: %s", err.message);
    float *pos = malloc(sizeof(float) * 3 * (n ? n : 1));
    float *vel = malloc(sizeof(float) * 3 * (n ? n : 1));
    rng_seed(seed);
    for (size_t i = 0; i < 3 * n; ++i) {
        pos[i] = (float)rng_uniform();
        vel[i] = (float)(4.0 * rng_uniform() - 2.0);
    }
    if (n && eddy_world_add_particles(w, n, pos, vel, 0, &err)) fail_msg("add_particles: %s", err.message);
    free(pos);
    free(vel);
    return w;
}

/* A random permutation of [0, n) (Fisher-Yates). */
static uint32_t *random_order(size_t n, uint64_t seed)
{
    uint32_t *order = malloc(sizeof(uint32_t) * (n ? n : 1));
    for (size_t i = 0; i < n; ++i) order[i] = (uint32_t)i;
    rng_seed(seed);
    for (size_t i = n; i > 1; --i) {
        size_t j = (size_t)(rng_next() % i);
        uint32_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    return order;
}

/* ---------------------------------------------------------------------------------------------- */
/* Parameters                                                                                     */

static const char *const modes[] = {"fast", "exact", "auto", NULL};

static void param_check_messages(void **state)
{
    (void)state;
    const eddy_param_desc visc = EDDY_MATERIAL_VISCOSITY_DESC;
    const eddy_param_desc iters = EDDY_PARAM_INT_DESC("iterations", 4, 1, 100, "", "Solver iterations.");
    const eddy_param_desc flag = EDDY_PARAM_BOOL_DESC("xsph", 1, "XSPH smoothing.");
    const eddy_param_desc mode = EDDY_PARAM_ENUM_DESC("mode", 1, modes, "Neighbour search mode.");
    const eddy_param_desc label = EDDY_PARAM_STRING_DESC("label", "run", 4, "A short label.");
    const eddy_param_desc point = EDDY_PARAM_VECTOR_DESC("point", 0, -1, 1, "m", "A point.");
    const eddy_param_desc derived = EDDY_PARAM_DERIVED_REAL_DESC("c0", 0, 1e6, "m/s", "Speed of sound.");

    eddy_param_value v = real_value(-1);
    check_param(&visc, &v, "solvers.sph_mueller", "solvers.sph_mueller.viscosity: -1 is out of range [0, 1e+30] Pa s");
    check_param(&visc, &v, NULL, "viscosity: -1 is out of range [0, 1e+30] Pa s");
    check_param(&visc, &v, "", "viscosity: -1 is out of range [0, 1e+30] Pa s");
    v = real_value(NAN);
    check_param(&visc, &v, "m", "m.viscosity: expected a finite number");
    v = real_value(INFINITY);
    check_param(&visc, &v, "m", "m.viscosity: expected a finite number");
    v = real_value(0.5);
    check_param(&visc, &v, "m", NULL);
    v = real_value(0.0); /* the range is inclusive */
    check_param(&visc, &v, "m", NULL);

    v = real_value(2.5);
    check_param(&iters, &v, "solvers.pbf", "solvers.pbf.iterations: expected an integer, got 2.5");
    v = real_value(0);
    check_param(&iters, &v, "solvers.pbf", "solvers.pbf.iterations: 0 is out of range [1, 100]");
    v = real_value(100);
    check_param(&iters, &v, "solvers.pbf", NULL);
    /* A dimensionless number's unit "1" is not printed after the range. */
    const eddy_param_desc cfl = EDDY_PARAM_REAL_DESC("cfl", 0.4, 0.01, 1, "1", "Courant number.");
    v = real_value(2);
    check_param(&cfl, &v, "solvers.sph_mueller", "solvers.sph_mueller.cfl: 2 is out of range [0.01, 1]");

    v = real_value(2);
    check_param(&flag, &v, "s", "s.xsph: expected true or false");
    v = real_value(1);
    check_param(&flag, &v, "s", NULL);

    v = real_value(3);
    check_param(&mode, &v, "grid", "grid.mode: expected one of fast, exact, auto (index 3 out of 3)");
    v = real_value(-1);
    check_param(&mode, &v, "grid", "grid.mode: expected one of fast, exact, auto (index -1 out of 3)");
    v = real_value(2);
    check_param(&mode, &v, "grid", NULL);
    v.string = "auto";
    check_param(&mode, &v, "grid", NULL);
    v.string = "slow";
    check_param(&mode, &v, "grid",
                 "grid.mode: expected one of fast, exact, auto, got \"slow\" with index 2 (\"auto\")");

    v = real_value(0);
    v.string = "abcde";
    check_param(&label, &v, "output", "output.label: expected at most 4 characters, got 5");
    v.string = "abcd";
    check_param(&label, &v, "output", NULL);
    v.string = NULL; /* empty */
    check_param(&label, &v, "output", NULL);

    eddy_param_value vec = {.is_set = 1, .count = 4, .vector = {0, 0, 0}};
    check_param(&point, &vec, "probes[0]", "probes[0].point: expected 1 to 3 components, got 4");
    vec.count = 0;
    check_param(&point, &vec, "probes[0]", "probes[0].point: expected 1 to 3 components, got 0");
    vec.count = 3;
    vec.vector[1] = 5;
    check_param(&point, &vec, "probes[0]", "probes[0].point[1]: 5 is out of range [-1, 1] m");
    vec.vector[1] = NAN;
    check_param(&point, &vec, "probes[0]", "probes[0].point[1]: expected a finite number");
    vec.count = 1; /* only the given components are checked */
    check_param(&point, &vec, "probes[0]", NULL);

    /* Unset: fine for a derived parameter, an error for any other. */
    eddy_param_value unset = eddy_param_default(&derived);
    assert_int_equal(unset.is_set, 0);
    check_param(&derived, &unset, "s", NULL);
    check_param(&visc, &unset, "s", "s.viscosity: expected a value (it has no derived default)");
    v = real_value(2e6);
    check_param(&derived, &v, "s", "s.c0: 2e+06 is out of range [0, 1e+06] m/s");
}

static void param_defaults(void **state)
{
    (void)state;
    const eddy_param_desc table[] = {
        EDDY_MATERIAL_STIFFNESS_DESC,
        EDDY_PARAM_DERIVED_REAL_DESC("c0", 0, 1e6, "m/s", "Speed of sound."),
        EDDY_PARAM_ENUM_DESC("mode", 2, modes, "Mode."),
        EDDY_PARAM_STRING_DESC("label", "run", 8, "Label."),
        EDDY_PARAM_STRING_DESC("file", NULL, 8, "File."),
        EDDY_PARAM_VECTOR_DESC("point", 0.25, -1, 1, "m", "Point."),
        EDDY_PARAM_BOOL_DESC("on", 1, "Switch."),
        EDDY_PARAM_INT_DESC("n", 7, 0, 10, "", "Count."),
    };
    eddy_param_value v = eddy_param_default(&table[0]);
    assert_int_equal(v.is_set, 1);
    assert_true(v.number == 1000.0);
    v = eddy_param_default(&table[1]);
    assert_int_equal(v.is_set, 0);
    assert_true(isnan(v.number));
    assert_null(v.string);
    v = eddy_param_default(&table[2]);
    assert_int_equal(v.integer, 2);
    assert_true(v.number == 2.0);
    assert_string_equal(v.string, "auto");
    v = eddy_param_default(&table[3]);
    assert_ptr_equal(v.string, table[3].def_string); /* points into the table */
    v = eddy_param_default(&table[4]);
    assert_non_null(v.string);
    assert_string_equal(v.string, "");
    v = eddy_param_default(&table[5]);
    assert_true(v.count >= 1 && v.count <= 3);
    for (int k = 0; k < v.count; ++k) assert_true(v.vector[k] == 0.25);
    assert_true(v.number == 0.25);
    v = eddy_param_default(&table[6]);
    assert_true(v.number == 1.0 && v.integer == 1);
    v = eddy_param_default(&table[7]);
    assert_true(v.number == 7.0 && v.integer == 7);
    /* Every default passes its own check, and the table is consistent. */
    eddy_error err;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        v = eddy_param_default(&table[i]);
        if (eddy_param_check(&table[i], &v, "d", &err)) fail_msg("default of %s: %s", table[i].id, err.message);
    }
    assert_int_equal(eddy_param_table_check(table, sizeof table / sizeof table[0], &err), EDDY_OK);
}

static void expect_table_refused(const eddy_param_desc *table, size_t count, const char *message)
{
    eddy_error err;
    eddy_error_clear(&err);
    assert_int_equal(eddy_param_table_check(table, count, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, message);
}

static void param_table_refusals(void **state)
{
    (void)state;
    static const char *const none[] = {NULL};
    eddy_param_desc t[2] = {EDDY_PARAM_REAL_DESC("a", 1, 0, 2, "", "A."), EDDY_PARAM_REAL_DESC("b", 1, 0, 2, "", "B.")};
    eddy_error err;
    assert_int_equal(eddy_param_table_check(t, 2, &err), EDDY_OK);
    assert_int_equal(eddy_param_table_check(NULL, 0, &err), EDDY_OK);
    expect_table_refused(NULL, 3, "parameter table is NULL but has 3 entries");

    eddy_param_desc bad[2];
    memcpy(bad, t, sizeof t);
    bad[1].id = "a";
    expect_table_refused(bad, 2, "parameter 'a' is declared twice");
    memcpy(bad, t, sizeof t);
    bad[1].id = "Bad-Id";
    expect_table_refused(bad, 2, "parameter id 'Bad-Id' is not [a-z0-9_]+");
    memcpy(bad, t, sizeof t);
    bad[1].id = NULL;
    expect_table_refused(bad, 2, "parameter 1 has no id");
    memcpy(bad, t, sizeof t);
    bad[1].type = (eddy_param_type)42;
    expect_table_refused(bad, 2, "parameter 'b': unknown type 42");
    memcpy(bad, t, sizeof t);
    bad[0].flags = 1u << 7;
    expect_table_refused(bad, 2, "parameter 'a': unknown flags 0x80");
    memcpy(bad, t, sizeof t);
    bad[0].def = 3;
    expect_table_refused(bad, 2, "parameter 'a': default 3 is not inside [0, 2]");
    bad[0].flags = EDDY_PARAM_DERIVED; /* a derived default is not read */
    assert_int_equal(eddy_param_table_check(bad, 2, &err), EDDY_OK);
    memcpy(bad, t, sizeof t);
    bad[0].min = 5;
    bad[0].flags = EDDY_PARAM_DERIVED; /* but its range must still be a range */
    expect_table_refused(bad, 2, "parameter 'a': the range [5, 2] is empty (min > max; are they swapped?)");
    memcpy(bad, t, sizeof t);
    bad[1].doc = "";
    expect_table_refused(bad, 2, "parameter 'b' has no doc");
    /* Entry sizes: below ABI 2.0's members, or one entry unlike the first. */
    memcpy(bad, t, sizeof t);
    bad[0].size = offsetof(eddy_param_desc, choices);
    char expect[256];
    snprintf(expect, sizeof expect,
             "parameter table: entries of %zu bytes, below the %zu bytes of ABI 2.0 (write them with the "
             "EDDY_PARAM_*_DESC macros, which set the size)",
             offsetof(eddy_param_desc, choices), offsetof(eddy_param_desc, choices) + sizeof(void *));
    expect_table_refused(bad, 2, expect);
    memcpy(bad, t, sizeof t);
    bad[1].size = sizeof(eddy_param_desc) - 8;
    snprintf(expect, sizeof expect, "parameter 1: entry size %zu differs from the table's %zu",
             sizeof(eddy_param_desc) - 8, sizeof(eddy_param_desc));
    expect_table_refused(bad, 2, expect);

    const eddy_param_desc no_choices[] = {EDDY_PARAM_ENUM_DESC("mode", 0, NULL, "Mode.")};
    expect_table_refused(no_choices, 1, "enum parameter 'mode' has no choices");
    const eddy_param_desc empty_choices[] = {EDDY_PARAM_ENUM_DESC("mode", 0, none, "Mode.")};
    expect_table_refused(empty_choices, 1, "enum parameter 'mode' has no choices");
    const eddy_param_desc bad_index[] = {EDDY_PARAM_ENUM_DESC("mode", 3, modes, "Mode.")};
    expect_table_refused(bad_index, 1, "enum parameter 'mode': default index 3 is not one of its 3 choices");
    const eddy_param_desc vec[] = {EDDY_PARAM_VECTOR_DESC("g", -20, -10, 10, "m/s^2", "Gravity.")};
    expect_table_refused(vec, 1, "parameter 'g': default -20 is not inside [-10, 10]");
    const eddy_param_desc str[] = {EDDY_PARAM_STRING_DESC("name", "x", -1, "Name.")};
    expect_table_refused(str, 1, "string parameter 'name': maximum length -1 is negative");
    const eddy_param_desc int_frac[] = {EDDY_PARAM_INT_DESC("n", 2.5, 0, 10, "", "N.")};
    expect_table_refused(int_frac, 1, "parameter 'n': default 2.5 of an integer parameter is not an integer");
}

/* An entry layout of a later minor: the 2.0 entry followed by members this build does not know. */
typedef struct future_desc {
    eddy_param_desc base;
    double soft_max;
    const char *group;
    char pad[40];
} future_desc;

static void param_table_with_larger_stride(void **state)
{
    (void)state;
    future_desc t[3];
    memset(t, 0xab, sizeof t); /* the unknown members hold garbage that must never be read as entries */
    const eddy_param_desc a = EDDY_PARAM_REAL_DESC("alpha", 0.5, 0, 1, "", "Alpha.");
    const eddy_param_desc b = EDDY_PARAM_ENUM_DESC("mode", 1, modes, "Mode.");
    const eddy_param_desc c = EDDY_PARAM_INT_DESC("count", 3, 0, 9, "", "Count.");
    t[0].base = a;
    t[1].base = b;
    t[2].base = c;
    for (int i = 0; i < 3; ++i) t[i].base.size = sizeof(future_desc);
    const eddy_param_desc *table = &t[0].base;
    for (size_t i = 0; i < 3; ++i) assert_ptr_equal(eddy_param_at(table, i), &t[i].base);
    assert_int_equal(eddy_param_find(table, 3, "alpha"), 0);
    assert_int_equal(eddy_param_find(table, 3, "count"), 2);
    assert_int_equal(eddy_param_find(table, 3, "beta"), -1);
    eddy_error err;
    if (eddy_param_table_check(table, 3, &err)) fail_msg("larger stride: %s", err.message);
    /* Values follow the table in order. */
    eddy_param_value values[3] = {real_value(0.25), real_value(2), real_value(8)};
    const eddy_param_values pv = {sizeof(eddy_param_values), table, 3, values};
    assert_true(eddy_param_get(&pv, "count", -1) == 8.0);
    assert_true(eddy_param_get(&pv, "alpha", -1) == 0.25);
    assert_ptr_equal(eddy_param_find_value(&pv, "mode"), &values[1]);
    /* A duplicate id in the third entry is found only by stepping with the right stride. */
    t[2].base.id = "alpha";
    expect_table_refused(table, 3, "parameter 'alpha' is declared twice");
    /* The default string of an entry is read only where the entry's size covers it. */
    eddy_param_desc old_layout[2];
    memset(old_layout, 0, sizeof old_layout);
    const eddy_param_desc s = EDDY_PARAM_STRING_DESC("label", "zzzzzzzzzzzzz", 4, "Label.");
    old_layout[0] = s;
    old_layout[0].size = offsetof(eddy_param_desc, def_string); /* a layout without def_string */
    eddy_param_value v = eddy_param_default(&old_layout[0]);
    assert_string_equal(v.string, ""); /* not the (too long) text beyond the entry */
}

static void param_get_and_find(void **state)
{
    (void)state;
    const eddy_param_desc table[] = {
        EDDY_MATERIAL_VISCOSITY_DESC,
        EDDY_PARAM_DERIVED_REAL_DESC("c0", 0, 1e6, "m/s", "Speed of sound."),
    };
    eddy_param_value values[2] = {real_value(0.7), eddy_param_default(&table[1])};
    const eddy_param_values pv = {sizeof(eddy_param_values), table, 2, values};
    assert_true(eddy_param_get(&pv, "viscosity", -1) == 0.7);
    assert_true(eddy_param_get(&pv, "c0", -1) == -1.0);      /* unset: the fallback */
    assert_true(eddy_param_get(&pv, "missing", -2) == -2.0); /* no such id */
    assert_true(eddy_param_get(NULL, "viscosity", -3) == -3.0);
    assert_non_null(eddy_param_find_value(&pv, "c0"));
    assert_null(eddy_param_find_value(&pv, "missing"));
    assert_null(eddy_param_find_value(NULL, "c0"));
    assert_int_equal(eddy_param_find(table, 2, "c0"), 1);
    assert_int_equal(eddy_param_find(NULL, 2, "c0"), -1);
}

/* ---------------------------------------------------------------------------------------------- */
/* Materials                                                                                      */

static void materials_copy_and_check_params(void **state)
{
    (void)state;
    eddy_material d = eddy_default_material();
    assert_int_equal(d.size, sizeof(eddy_material));
    assert_true(d.rest_density == 1000.0f);
    assert_true(d.particle_mass == 0.0f);
    assert_int_equal(d.params.count, 0);
    /* The contact defaults of the scene format: restitution 0, friction 0, erp 0.5. */
    assert_true(d.contact.restitution == 0.0f && d.contact.friction == 0.0f && d.contact.erp == 0.5f);
    assert_true(d.contact.margin == 0.0f || d.contact.margin < d.contact.radius);

    eddy_world *w;
    eddy_error err;
    assert_int_equal(eddy_world_create(2, &w, &err), EDDY_OK);
    w->smoothing_radius = 0.04f;
    static const eddy_param_desc table[] = {
        EDDY_MATERIAL_VISCOSITY_DESC,
        EDDY_MATERIAL_STIFFNESS_DESC,
        EDDY_PARAM_STRING_DESC("tag", "", 16, "A tag."),
    };
    char tag[] = "blue";
    eddy_param_value values[3] = {real_value(0.2), real_value(500), real_value(0)};
    values[2].string = tag;
    eddy_material m = eddy_default_material();
    snprintf(m.name, sizeof m.name, "water");
    m.particle_mass = 0.4f;
    m.params = (eddy_param_values){sizeof(eddy_param_values), table, 3, values};

    /* A struct that does not reach `params` is refused, naming the sizes. */
    eddy_material old = m;
    old.size = offsetof(eddy_material, params);
    assert_int_equal(eddy_world_add_material(w, &old, &err), EDDY_ERR_INVALID_ARGUMENT);
    char expect[256];
    snprintf(expect, sizeof expect,
             "material: a struct of %zu bytes does not cover its parameters (%zu bytes in ABI 2.0); fill "
             "it with eddy_default_material()",
             offsetof(eddy_material, params), offsetof(eddy_material, params) + sizeof(eddy_param_values));
    assert_string_equal(err.message, expect);

    /* Each value is checked against its descriptor, the message naming the material and the key. */
    values[0] = real_value(-1);
    assert_int_equal(eddy_world_add_material(w, &m, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "material 'water': viscosity: -1 is out of range [0, 1e+30] Pa s");
    assert_int_equal(w->material_count, 0);
    values[0] = real_value(0.2);
    m.contact.erp = 2.0f;
    assert_int_equal(eddy_world_add_material(w, &m, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "material 'water': erp must be in [0, 1]");
    m.contact.erp = 0.5f;

    if (eddy_world_add_material(w, &m, &err)) fail_msg("%s", err.message);
    assert_int_equal(w->material_count, 1);
    /* The world keeps its own copy: the caller's values and strings may go away. */
    values[0] = real_value(99);
    tag[0] = 'X';
    const eddy_param_values *wp = &w->materials[0].params;
    assert_int_equal(wp->count, 3);
    assert_ptr_not_equal(wp->values, values);
    assert_true(eddy_param_get(wp, "viscosity", -1) == 0.2);
    assert_true(eddy_param_get(wp, "stiffness", -1) == 500.0);
    assert_ptr_not_equal(eddy_param_find_value(wp, "tag")->string, tag);
    assert_string_equal(eddy_param_find_value(wp, "tag")->string, "blue");
    assert_true(w->materials[0].particle_dist > 0);
    assert_true(w->contacts[0].erp == 0.5f);
    /* What solvers read: the material's value, or the descriptor's default where it has none. */
    static const eddy_param_desc initial_sum = EDDY_MATERIAL_INITIAL_SUM_DESC;
    assert_true(eddy_material_param(&w->materials[0], &table[1]) == 500.0);
    assert_true(eddy_material_param(&w->materials[0], &initial_sum) == 1.0);
    /* A second material with the same name is refused. */
    assert_int_equal(eddy_world_add_material(w, &m, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "material 'water' is defined twice");
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------------------------------------- */
/* Host services                                                                                  */

typedef struct log_capture {
    int calls;
    eddy_log_level level;
    char component[64];
    char *message;
} log_capture;

static void capture_log(const eddy_host *host, eddy_log_level level, const char *component, const char *message)
{
    log_capture *c = host->context;
    c->calls++;
    c->level = level;
    snprintf(c->component, sizeof c->component, "%s", component ? component : "");
    free(c->message);
    c->message = strdup(message);
}

static int three_threads(const eddy_host *host)
{
    (void)host;
    return 3;
}

static int cancelled(const eddy_host *host)
{
    (void)host;
    return 7;
}

static void host_services(void **state)
{
    (void)state;
    log_capture cap = {0};
    eddy_host host = {.size = sizeof(eddy_host), .name = "test", .version = "0", .context = &cap,
                      .log = capture_log, .thread_count = three_threads, .cancel_requested = cancelled};
    eddy_host_log(&host, EDDY_LOG_WARNING, "sph_mueller", "dt %g clamped to %d", 0.5, 3);
    assert_int_equal(cap.calls, 1);
    assert_int_equal(cap.level, EDDY_LOG_WARNING);
    assert_string_equal(cap.component, "sph_mueller");
    assert_string_equal(cap.message, "dt 0.5 clamped to 3");
    /* A long message arrives whole. */
    char big[3000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    eddy_host_log(&host, EDDY_LOG_INFO, "c", "<%s>", big);
    assert_int_equal(strlen(cap.message), sizeof big + 1);
    assert_int_equal(eddy_host_thread_count(&host), 3);
    assert_int_equal(eddy_host_cancel_requested(&host), 1);
    /* A host compiled before log existed (its size does not cover it) is never called through it. */
    eddy_host small = host;
    small.size = offsetof(eddy_host, log);
    eddy_host_log(&small, EDDY_LOG_ERROR, "c", "x");
    assert_int_equal(cap.calls, 2);
    assert_int_equal(eddy_host_thread_count(&small), 1);
    assert_int_equal(eddy_host_cancel_requested(&small), 0);
    /* NULL-safe. */
    eddy_host_log(NULL, EDDY_LOG_ERROR, "c", "x");
    assert_int_equal(eddy_host_thread_count(NULL), 1);
    assert_int_equal(eddy_host_cancel_requested(NULL), 0);
    /* The silent host. */
    const eddy_host *s = eddy_host_silent();
    assert_non_null(s);
    assert_ptr_equal(s, eddy_host_silent());
    assert_int_equal(s->size, sizeof(eddy_host));
    eddy_host_log(s, EDDY_LOG_ERROR, "c", "nothing happens");
    assert_int_equal(eddy_host_thread_count(s), omp_get_max_threads());
    assert_int_equal(eddy_host_cancel_requested(s), 0);
    /* A world starts with the silent host and falls back to it. */
    eddy_world *w;
    eddy_error err;
    assert_int_equal(eddy_world_create(3, &w, &err), EDDY_OK);
    assert_int_equal(w->size, sizeof(eddy_world));
    assert_int_equal(w->particles.size, sizeof(eddy_particles));
    assert_ptr_equal(w->host, s);
    eddy_world_set_host(w, &host);
    assert_ptr_equal(w->host, &host);
    eddy_world_set_host(w, NULL);
    assert_ptr_equal(w->host, s);
    eddy_world_destroy(w);
    free(cap.message);
}

/* eddy_world_integrate_velocity with an id that is no 3-component field steps with gravity alone and says
 * so once per process through the world's host; a valid field of a world without particles (no storage
 * yet: a process that owns none) is no such id and is not warned of. */
static void integrate_velocity_warns_of_bad_field_once(void **state)
{
    (void)state;
    log_capture cap = {0};
    eddy_host host = {.size = sizeof(eddy_host), .name = "test", .version = "0", .context = &cap, .log = capture_log};
    eddy_world *w;
    eddy_error err;
    assert_int_equal(eddy_world_create(2, &w, &err), EDDY_OK);
    eddy_world_set_host(w, &host);
    int acc = -1, one = -1;
    assert_int_equal(eddy_particles_add_field(&w->particles, "acceleration", 3, &acc, &err), EDDY_OK);
    assert_int_equal(eddy_particles_add_field(&w->particles, "scalar", 1, &one, &err), EDDY_OK);
    eddy_world_integrate_velocity(w, acc, 0.001f);
    eddy_world_integrate_velocity(w, -1, 0.001f);
    assert_int_equal(cap.calls, 0);
    eddy_world_integrate_velocity(w, one, 0.001f);
    assert_int_equal(cap.calls, 1);
    assert_int_equal(cap.level, EDDY_LOG_WARNING);
    char want[256];
    snprintf(want, sizeof want, "warning: eddy_world_integrate_velocity: field id %d is not a particle field of 3 "
             "components, so the velocity update applies gravity alone; pass the id eddy_particles_add_field "
             "returned for the acceleration (-1 for gravity alone)", one);
    assert_string_equal(cap.message, want);
    eddy_world_integrate_velocity(w, 999, 0.001f);
    assert_int_equal(cap.calls, 1); /* once per process */
    eddy_world_destroy(w);
    free(cap.message);
}

/* The world hands its host and the parameters to the grid backend's create(). */
static const eddy_host *seen_host;
static const eddy_param_values *seen_params;

static int spy_create(const eddy_grid_setup *setup, void **state, eddy_error *err)
{
    seen_host = setup->host;
    seen_params = setup->params;
    return eddy_cpu_grid_backend()->create(setup, state, err);
}

static int spy_sort(void *state, const eddy_grid_layout *l, size_t n, const eddy_real *x, const eddy_real *y,
                    const eddy_real *z, uint32_t *perm, uint32_t *cb, uint32_t *ce, eddy_error *err)
{
    return eddy_cpu_grid_backend()->sort(state, l, n, x, y, z, perm, cb, ce, err);
}

static void spy_destroy(void *state)
{
    eddy_cpu_grid_backend()->destroy(state);
}

static void grid_receives_world_host(void **state)
{
    (void)state;
    const eddy_grid_backend_vtable spy = {sizeof spy, spy_create, spy_sort, spy_destroy};
    eddy_world *w = make_world(100, 1);
    const eddy_host host = {.size = sizeof(eddy_host), .name = "grid test"};
    eddy_world_set_host(w, &host);
    const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    eddy_error err;
    seen_host = NULL;
    seen_params = NULL;
    if (eddy_world_init_grid(w, lo, hi, NULL, &spy, EDDY_DOMAIN_ERROR, &err)) fail_msg("%s", err.message);
    assert_ptr_equal(seen_host, &host);
    assert_non_null(seen_params);
    assert_int_equal(seen_params->count, 0);
    assert_int_equal(seen_params->size, sizeof(eddy_param_values));
    static const eddy_param_desc table[] = {EDDY_PARAM_INT_DESC("block", 128, 1, 1024, "", "Block.")};
    eddy_param_value v = real_value(64);
    const eddy_param_values pv = {sizeof pv, table, 1, &v};
    if (eddy_world_init_grid_with(w, lo, hi, NULL, &spy, &pv, EDDY_DOMAIN_ERROR, &err)) fail_msg("%s", err.message);
    assert_ptr_equal(seen_params, &pv);
    assert_ptr_equal(seen_host, &host);
    if (eddy_world_build_grid(w, &err)) fail_msg("%s", err.message);
    assert_int_equal(w->grid.particle_count, 100);
    eddy_world_destroy(w);
}

static int refusing_create(const eddy_grid_setup *setup, void **state, eddy_error *err)
{
    (void)setup;
    (void)state;
    return eddy_error_set(err, EDDY_ERR_DEVICE, "no device for this grid");
}

/* A grid that cannot be made leaves the world's grid as it was: the old one was freed first, and the
 * world was left without a grid (a build then failed on an uninitialized layout). */
static void failed_grid_init_keeps_the_grid(void **state)
{
    (void)state;
    eddy_world *w = make_world(100, 1);
    const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, hi2[3] = {2, 2, 2};
    eddy_error err;
    if (eddy_world_init_grid(w, lo, hi, NULL, NULL, EDDY_DOMAIN_ERROR, &err)) fail_msg("%s", err.message);
    const eddy_grid_layout before = w->grid.layout;
    const eddy_grid_backend_vtable refusing = {sizeof refusing, refusing_create, spy_sort, spy_destroy};
    assert_int_equal(eddy_world_init_grid(w, lo, hi2, NULL, &refusing, EDDY_DOMAIN_ERROR, &err), EDDY_ERR_DEVICE);
    assert_string_equal(err.message, "no device for this grid");
    assert_memory_equal(&w->grid.layout, &before, sizeof before);
    if (eddy_world_build_grid(w, &err)) fail_msg("%s", err.message);
    assert_int_equal(w->grid.particle_count, 100);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------------------------------------- */
/* Map / unmap and edit generations                                                               */

static void map_unmap_generations(void **state)
{
    (void)state;
    eddy_world *w = make_world(50, 2);
    eddy_error err;
    eddy_particles *p = &w->particles;
    int lambda;
    assert_int_equal(eddy_particles_add_field(p, "lambda", 1, &lambda, &err), EDDY_OK);
    const int nf = eddy_particles_field_count(p);
    for (int f = 0; f < nf; ++f) assert_int_equal(eddy_world_field_generation(w, f), 1);
    assert_int_equal(eddy_world_field_generation(w, nf), 0); /* invalid */
    assert_int_equal(eddy_world_field_generation(w, -2), 0);
    const uint64_t layout0 = eddy_world_field_generation(w, EDDY_FIELD_LAYOUT);
    assert_true(layout0 >= 2); /* 1 at init, bumped by the add */

    /* A read mapping changes nothing. */
    eddy_field_view view = {.size = sizeof view};
    assert_int_equal(eddy_world_map_field(w, EDDY_FIELD_VELOCITY, EDDY_MAP_READ, &view, &err), EDDY_OK);
    assert_int_equal(view.field, EDDY_FIELD_VELOCITY);
    assert_int_equal(view.components, 3);
    assert_int_equal(view.count, 50);
    assert_ptr_equal(view.data[0], p->vx);
    assert_ptr_equal(view.data[1], p->vy);
    assert_ptr_equal(view.data[2], p->vz);
    assert_null(view.data[3]);
    assert_ptr_equal(view.id, p->id);
    assert_ptr_equal(view.material, p->material);
    assert_ptr_equal(view.flags, p->flags);
    assert_int_equal(view.generation, 1);
    eddy_world_unmap_field(w, &view);
    for (int f = 0; f < nf; ++f) assert_int_equal(eddy_world_field_generation(w, f), 1);
    assert_int_equal(eddy_world_field_generation(w, EDDY_FIELD_LAYOUT), layout0);

    /* A write mapping bumps exactly its field, at unmap. Mappings may nest. */
    eddy_field_view rw = {.size = sizeof rw}, wr = {.size = sizeof wr};
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_READ_WRITE, &rw, &err), EDDY_OK);
    assert_int_equal(rw.components, 1);
    assert_ptr_equal(rw.data[0], eddy_particles_field(p, lambda, 0));
    assert_int_equal(eddy_world_map_field(w, EDDY_FIELD_DENSITY, EDDY_MAP_WRITE, &wr, &err), EDDY_OK);
    assert_int_equal(eddy_world_field_generation(w, lambda), 1); /* not before the unmap */
    eddy_world_unmap_field(w, &rw);
    eddy_world_unmap_field(w, &wr);
    for (int f = 0; f < nf; ++f)
        assert_int_equal(eddy_world_field_generation(w, f), f == lambda || f == EDDY_FIELD_DENSITY ? 2 : 1);
    assert_int_equal(eddy_world_field_generation(w, EDDY_FIELD_LAYOUT), layout0);
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_READ, &view, &err), EDDY_OK);
    assert_int_equal(view.generation, 2);
    eddy_world_unmap_field(w, &view);

    /* The layout pseudo-field maps without data arrays; writing it bumps the layout only. */
    assert_int_equal(eddy_world_map_field(w, EDDY_FIELD_LAYOUT, EDDY_MAP_READ_WRITE, &view, &err), EDDY_OK);
    assert_int_equal(view.components, 0);
    assert_null(view.data[0]);
    assert_int_equal(view.count, 50);
    assert_ptr_equal(view.id, p->id);
    assert_int_equal(view.generation, layout0);
    eddy_world_unmap_field(w, &view);
    assert_int_equal(eddy_world_field_generation(w, EDDY_FIELD_LAYOUT), layout0 + 1);
    assert_int_equal(eddy_world_field_generation(w, EDDY_FIELD_POSITION), 1);

    /* Sorting moves particles (layout) but no value per id (fields). */
    uint32_t *order = random_order(50, 3);
    assert_int_equal(eddy_particles_gather(p, order, 50, &err), EDDY_OK);
    free(order);
    assert_int_equal(eddy_world_field_generation(w, EDDY_FIELD_LAYOUT), layout0 + 2);
    assert_int_equal(eddy_world_field_generation(w, EDDY_FIELD_POSITION), 1);
    eddy_particles_touch(p, EDDY_FIELD_MASS);
    assert_int_equal(eddy_world_field_generation(w, EDDY_FIELD_MASS), 2);

    /* Misuse: an unknown field, a view without its size, an unknown access. */
    assert_int_equal(eddy_world_map_field(w, 42, EDDY_MAP_READ, &view, &err), EDDY_ERR_NOT_FOUND);
    assert_string_equal(err.message, "no field 42");
    assert_int_equal(eddy_world_map_field(w, -5, EDDY_MAP_READ, &view, &err), EDDY_ERR_NOT_FOUND);
    assert_string_equal(err.message, "no field -5");
    eddy_field_view unsized = {0};
    assert_int_equal(eddy_world_map_field(w, 0, EDDY_MAP_READ, &unsized, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "sizeof(eddy_field_view)"));
    assert_int_equal(eddy_world_map_field(w, 0, (eddy_map_access)0, &view, &err), EDDY_ERR_INVALID_ARGUMENT);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------------------------------------- */
/* Residency: a fake device solver                                                                */

typedef struct fake_device {
    int downloads;
    int last_field;
    int fail;
    eddy_real value; /* what "the device" holds for every particle of the field */
} fake_device;

static int fake_download(void *context, eddy_world *w, int field, eddy_error *err)
{
    fake_device *d = context;
    d->downloads++;
    d->last_field = field;
    if (d->fail) return eddy_error_set(err, EDDY_ERR_DEVICE, "the device fell off the bus");
    if (field >= 0) {
        eddy_real *a = eddy_particles_field(&w->particles, field, 0);
        for (size_t i = 0; i < w->particles.count; ++i) a[i] = d->value;
    }
    return EDDY_OK;
}

static void residency_downloads(void **state)
{
    (void)state;
    eddy_world *w = make_world(40, 4);
    eddy_error err;
    int lambda;
    assert_int_equal(eddy_particles_add_field(&w->particles, "lambda", 1, &lambda, &err), EDDY_OK);
    fake_device dev = {.last_field = -100, .value = 7.0f};
    const eddy_residency res = {sizeof res, &dev, fake_download};

    assert_int_equal(eddy_world_field_space(w, lambda), EDDY_MEMORY_HOST);
    assert_int_equal(eddy_world_set_field_space(w, lambda, EDDY_MEMORY_DEVICE, &err), EDDY_OK);
    assert_int_equal(eddy_world_field_space(w, lambda), EDDY_MEMORY_DEVICE);
    assert_int_equal(eddy_world_field_space(w, 99), EDDY_MEMORY_HOST);
    assert_int_equal(eddy_world_set_field_space(w, 99, EDDY_MEMORY_DEVICE, &err), EDDY_ERR_NOT_FOUND);
    assert_string_equal(err.message, "no field 99");

    /* Stale without a provider: an error, not stale data. */
    eddy_world_mark_host_stale(w, lambda);
    eddy_field_view v = {.size = sizeof v};
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_READ, &v, &err), EDDY_ERR_DEVICE);
    assert_non_null(strstr(err.message, "lambda"));

    eddy_world_set_residency(w, &res);
    /* Stale: one download on the first map, none on the second. */
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_READ, &v, &err), EDDY_OK);
    assert_int_equal(dev.downloads, 1);
    assert_int_equal(dev.last_field, lambda);
    assert_true(v.data[0][0] == 7.0f && v.data[0][39] == 7.0f);
    eddy_world_unmap_field(w, &v);
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_READ, &v, &err), EDDY_OK);
    eddy_world_unmap_field(w, &v);
    assert_int_equal(dev.downloads, 1);
    assert_int_equal(eddy_world_field_generation(w, lambda), 1); /* downloads are not host edits */

    /* A host field is never downloaded, even when "marked". */
    eddy_world_mark_host_stale(w, EDDY_FIELD_DENSITY);
    assert_int_equal(eddy_world_map_field(w, EDDY_FIELD_DENSITY, EDDY_MAP_READ, &v, &err), EDDY_OK);
    eddy_world_unmap_field(w, &v);
    assert_int_equal(dev.downloads, 1);

    /* Everything stale again: the device field downloads once (bringing the layout along). */
    dev.value = 8.0f;
    eddy_world_mark_host_stale(w, -1);
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_READ, &v, &err), EDDY_OK);
    eddy_world_unmap_field(w, &v);
    assert_int_equal(dev.downloads, 2);
    assert_true(eddy_particles_field(&w->particles, lambda, 0)[5] == 8.0f);
    assert_int_equal(eddy_world_map_field(w, EDDY_FIELD_POSITION, EDDY_MAP_READ, &v, &err), EDDY_OK);
    eddy_world_unmap_field(w, &v);
    assert_int_equal(dev.downloads, 2);

    /* A host field mapped while the layout is stale: the layout alone is downloaded. */
    eddy_world_mark_host_stale(w, -1);
    assert_int_equal(eddy_world_map_field(w, EDDY_FIELD_POSITION, EDDY_MAP_READ, &v, &err), EDDY_OK);
    eddy_world_unmap_field(w, &v);
    assert_int_equal(dev.downloads, 3);
    assert_int_equal(dev.last_field, EDDY_FIELD_LAYOUT);
    /* ... and the device field is still stale. */
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_READ, &v, &err), EDDY_OK);
    eddy_world_unmap_field(w, &v);
    assert_int_equal(dev.downloads, 4);
    assert_int_equal(dev.last_field, lambda);

    /* A write mapping skips the values: no download, and afterwards the host copy is the newest. */
    eddy_world_mark_host_stale(w, lambda);
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_WRITE, &v, &err), EDDY_OK);
    assert_int_equal(dev.downloads, 4);
    for (size_t i = 0; i < v.count; ++i) v.data[0][i] = 3.0f;
    eddy_world_unmap_field(w, &v);
    assert_int_equal(eddy_world_field_generation(w, lambda), 2);
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_READ, &v, &err), EDDY_OK);
    eddy_world_unmap_field(w, &v);
    assert_int_equal(dev.downloads, 4);
    assert_true(eddy_particles_field(&w->particles, lambda, 0)[0] == 3.0f);

    /* sync_host and the world hash bring stale fields up first. */
    dev.value = 9.0f;
    eddy_world_mark_host_stale(w, lambda);
    assert_int_equal(eddy_world_sync_host(w, &err), EDDY_OK);
    assert_int_equal(dev.downloads, 5);
    assert_true(eddy_particles_field(&w->particles, lambda, 0)[0] == 9.0f);
    uint64_t h;
    dev.value = 10.0f;
    eddy_world_mark_host_stale(w, -1);
    assert_int_equal(eddy_world_hash(w, &h, &err), EDDY_OK);
    assert_int_equal(dev.downloads, 6); /* the field, with the layout */
    assert_true(eddy_particles_field(&w->particles, lambda, 0)[0] == 10.0f);

    /* A failing download is the map's error, named. */
    dev.fail = 1;
    eddy_world_mark_host_stale(w, lambda);
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_READ, &v, &err), EDDY_ERR_DEVICE);
    assert_string_equal(err.message, "downloading field 'lambda': the device fell off the bus");
    /* Removed provider: stale again is an error again, not a call into freed memory. */
    eddy_world_set_residency(w, NULL);
    dev.fail = 0;
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_READ, &v, &err), EDDY_ERR_DEVICE);
    assert_int_equal(dev.downloads, 7);
    /* Back to host memory: nothing is stale any more. */
    assert_int_equal(eddy_world_set_field_space(w, lambda, EDDY_MEMORY_HOST, &err), EDDY_OK);
    assert_int_equal(eddy_world_map_field(w, lambda, EDDY_MAP_READ, &v, &err), EDDY_OK);
    eddy_world_unmap_field(w, &v);
    eddy_world_destroy(w);
}

/* Every component of the field set to the device's value (positions and velocities are vectors). */
static int fake_download_vector(void *context, eddy_world *w, int field, eddy_error *err)
{
    fake_device *d = context;
    (void)err;
    d->downloads++;
    d->last_field = field;
    if (field < 0) return EDDY_OK;
    const int components = field == EDDY_FIELD_POSITION || field == EDDY_FIELD_VELOCITY ? 3 : 1;
    for (int c = 0; c < components; ++c) {
        eddy_real *a = eddy_particles_field(&w->particles, field, c);
        for (size_t i = 0; i < w->particles.count; ++i) a[i] = d->value * (eddy_real)(c + 1);
    }
    return EDDY_OK;
}

/* The core's reduction runs on the host arrays when its cache is gone (before the first step, after
 * a host write mapping). On a device-resident world those arrays may hold anything: it downloads
 * position and velocity first. Poisoned host copies would otherwise report every particle non-finite. */
static void step_stats_download_device_fields(void **state)
{
    (void)state;
    eddy_world *w = make_world(24, 9);
    eddy_error err;
    fake_device dev = {.last_field = -100, .value = 2.0f};
    const eddy_residency res = {sizeof res, &dev, fake_download_vector};
    assert_int_equal(eddy_world_set_field_space(w, EDDY_FIELD_POSITION, EDDY_MEMORY_DEVICE, &err), EDDY_OK);
    assert_int_equal(eddy_world_set_field_space(w, EDDY_FIELD_VELOCITY, EDDY_MEMORY_DEVICE, &err), EDDY_OK);
    eddy_world_set_residency(w, &res);
    eddy_particles *p = &w->particles;
    for (size_t i = 0; i < p->count; ++i) p->x[i] = p->y[i] = p->z[i] = p->vx[i] = p->vy[i] = p->vz[i] = NAN;
    eddy_world_mark_host_stale(w, EDDY_FIELD_LAYOUT);
    eddy_world_set_step_stats(w, NULL);

    const eddy_step_stats *st = eddy_world_step_stats(w);
    assert_int_equal(dev.downloads, 2);
    assert_int_equal(st->nonfinite_velocity, 0);
    assert_int_equal(st->nonfinite_position, 0);
    /* v = (2, 4, 6) for every particle. */
    assert_true(st->max_speed == (double)sqrtf(4.0f + 16.0f + 36.0f));
    /* Current now: a second query downloads nothing. */
    (void)eddy_world_step_stats(w);
    assert_int_equal(dev.downloads, 2);

    /* A host write mapping of velocity drops the cache; the position, still stale, comes down. */
    dev.value = 1.0f;
    eddy_world_mark_host_stale(w, EDDY_FIELD_LAYOUT);
    for (size_t i = 0; i < p->count; ++i) p->x[i] = NAN;
    eddy_field_view v = {.size = sizeof v};
    assert_int_equal(eddy_world_map_field(w, EDDY_FIELD_VELOCITY, EDDY_MAP_WRITE, &v, &err), EDDY_OK);
    for (size_t i = 0; i < v.count; ++i) v.data[0][i] = v.data[1][i] = v.data[2][i] = 0.5f;
    eddy_world_unmap_field(w, &v);
    const int before = dev.downloads;
    st = eddy_world_step_stats(w);
    assert_int_equal(dev.downloads, before + 1);
    assert_int_equal(dev.last_field, EDDY_FIELD_POSITION);
    assert_int_equal(st->nonfinite_position, 0);
    assert_true(st->max_speed == (double)sqrtf(0.75f));
    eddy_world_set_residency(w, NULL);
    eddy_world_destroy(w);
}

/* A download that fails, or that asks for the figures itself (a solver's download helper calling
 * eddy_world_max_speed, say). */
static int stats_in_download_calls;
static int download_failing_or_reentrant(void *context, eddy_world *w, int field, eddy_error *err)
{
    fake_device *d = context;
    d->downloads++;
    if (d->fail) return eddy_error_set(err, EDDY_ERR_DEVICE, "the device fell off the bus");
    if (stats_in_download_calls++ < 8) (void)eddy_world_step_stats(w); /* must not recurse */
    if (field == EDDY_FIELD_VELOCITY)
        for (int c = 0; c < 3; ++c) {
            eddy_real *a = eddy_particles_field(&w->particles, field, c);
            for (size_t i = 0; i < w->particles.count; ++i) a[i] = d->value * (eddy_real)(c + 1);
        }
    return EDDY_OK;
}

static void step_stats_failed_download_not_cached(void **state)
{
    (void)state;
    eddy_world *w = make_world(16, 11);
    eddy_error err;
    fake_device dev = {.last_field = -100, .value = 1.0f, .fail = 1};
    const eddy_residency res = {sizeof res, &dev, download_failing_or_reentrant};
    assert_int_equal(eddy_world_set_field_space(w, EDDY_FIELD_VELOCITY, EDDY_MEMORY_DEVICE, &err), EDDY_OK);
    eddy_world_set_residency(w, &res);
    eddy_particles *p = &w->particles;
    for (size_t i = 0; i < p->count; ++i) p->vx[i] = NAN;
    eddy_world_mark_host_stale(w, EDDY_FIELD_VELOCITY);
    eddy_world_set_step_stats(w, NULL);

    /* Failed: figures of the stale copy, not cached: the next query downloads again. */
    const eddy_step_stats *st = eddy_world_step_stats(w);
    assert_int_equal(dev.downloads, 1);
    assert_int_equal(st->nonfinite_velocity, p->count);
    (void)eddy_world_step_stats(w);
    assert_int_equal(dev.downloads, 2);

    /* Working again, and the download asks for the figures: one download, no recursion. */
    dev.fail = 0;
    stats_in_download_calls = 0;
    st = eddy_world_step_stats(w);
    assert_int_equal(stats_in_download_calls, 1);
    assert_int_equal(dev.downloads, 3);
    assert_int_equal(st->nonfinite_velocity, 0);
    assert_true(st->max_speed == (double)sqrtf(1.0f + 4.0f + 9.0f));
    eddy_world_set_residency(w, NULL);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------------------------------------- */
/* The per-step reduction                                                                         */

/* The max speed as ABI 1.x computed it: a serial max of float squares over the finite velocities,
 * then sqrtf. */
static float brute_max_speed(const eddy_particles *p)
{
    float m2 = 0.0f;
    for (size_t i = 0; i < p->count; ++i) {
        if (p->flags[i] & EDDY_PARTICLE_HALO) continue;
        if (!isfinite(p->vx[i]) || !isfinite(p->vy[i]) || !isfinite(p->vz[i])) continue;
        float s = p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i];
        if (s > m2) m2 = s;
    }
    return sqrtf(m2);
}

static size_t index_of_id(const eddy_particles *p, uint64_t id)
{
    for (size_t i = 0; i < p->count; ++i)
        if (p->id[i] == id) return i;
    fail_msg("no particle with id %" PRIu64, id);
    return SIZE_MAX;
}

static void step_stats(void **state)
{
    (void)state;
    const int saved = omp_get_max_threads();
    /* Large enough for the parallel path; 1 and 2 threads must agree. */
    const size_t n = 20000;
    for (int threads = 1; threads <= 2; ++threads) {
        omp_set_num_threads(threads);
        eddy_world *w = make_world(n, 5);
        eddy_particles *p = &w->particles;
        eddy_error err;
        uint32_t *order = random_order(n, 6); /* storage order unlike id order */
        assert_int_equal(eddy_particles_gather(p, order, n, &err), EDDY_OK);
        free(order);

        const eddy_step_stats *s = eddy_world_step_stats(w);
        assert_int_equal(s->size, sizeof(eddy_step_stats));
        assert_int_equal(s->step, 0);
        assert_int_equal(s->nonfinite_velocity, 0);
        assert_int_equal(s->nonfinite_position, 0);
        assert_int_equal(s->first_nonfinite, SIZE_MAX);
        assert_true(s->max_speed == (double)brute_max_speed(p));
        assert_true(s->max_speed > 1.0);
        assert_true(eddy_world_max_speed(w) == brute_max_speed(p));

        /* Break three particles through write mappings (ids 9000, 1234 and 15000). */
        eddy_field_view v = {.size = sizeof v};
        assert_int_equal(eddy_world_map_field(w, EDDY_FIELD_VELOCITY, EDDY_MAP_READ_WRITE, &v, &err), EDDY_OK);
        v.data[1][index_of_id(p, 9000)] = NAN;
        v.data[2][index_of_id(p, 1234)] = INFINITY;
        eddy_world_unmap_field(w, &v);
        assert_int_equal(eddy_world_map_field(w, EDDY_FIELD_POSITION, EDDY_MAP_READ_WRITE, &v, &err), EDDY_OK);
        v.data[0][index_of_id(p, 15000)] = -INFINITY;
        v.data[0][index_of_id(p, 9000)] = NAN; /* both broken: counted once per kind */
        eddy_world_unmap_field(w, &v);
        s = eddy_world_step_stats(w);
        assert_int_equal(s->nonfinite_velocity, 2);
        assert_int_equal(s->nonfinite_position, 2);
        assert_int_equal(s->first_nonfinite, index_of_id(p, 1234));
        assert_true(s->max_speed == (double)brute_max_speed(p)); /* over the finite ones */
        assert_true(isfinite(s->max_speed));

        /* A halo copy is not this process's: neither counted nor in the max. */
        size_t k = index_of_id(p, 1234);
        p->flags[k] = EDDY_PARTICLE_HALO;
        p->halo_count = 1;
        eddy_particles_touch(p, EDDY_FIELD_LAYOUT);
        s = eddy_world_step_stats(w);
        assert_int_equal(s->nonfinite_velocity, 1);
        assert_int_equal(s->first_nonfinite, index_of_id(p, 9000));
        p->flags[k] = 0;
        p->halo_count = 0;
        eddy_particles_touch(p, EDDY_FIELD_LAYOUT);

        /* Cached: a direct write the world is not told of is not seen ... */
        s = eddy_world_step_stats(w);
        const double cached = s->max_speed;
        const size_t fast = index_of_id(p, 77);
        p->vx[fast] = 1000.0f;
        assert_true(eddy_world_step_stats(w)->max_speed == cached);
        assert_ptr_equal(eddy_world_step_stats(w), s);
        /* ... a write mapping of the velocity drops the cache ... */
        assert_int_equal(eddy_world_map_field(w, EDDY_FIELD_VELOCITY, EDDY_MAP_WRITE, &v, &err), EDDY_OK);
        eddy_world_unmap_field(w, &v);
        assert_true(eddy_world_step_stats(w)->max_speed == (double)brute_max_speed(p));
        assert_true(eddy_world_step_stats(w)->max_speed >= 1000.0);
        /* ... and so does the next step. */
        p->vx[fast] = 0.0f;
        w->step++;
        s = eddy_world_step_stats(w);
        assert_int_equal(s->step, 1);
        assert_true(s->max_speed == (double)brute_max_speed(p));
        assert_true(s->max_speed < 1000.0);

        /* The limits use the cached speed exactly as ABI 1.x did. */
        const double vmax = (double)brute_max_speed(p), h = w->smoothing_radius;
        assert_true(eddy_world_cfl_dt(w, 0.4, 3.0) == 0.4 * h / (3.0 + vmax));
        const char *limit = NULL;
        assert_true(eddy_world_stable_dt(w, 0.4, 3.0, 0.0, 0.0, &limit) == 0.4 * h / (3.0 + vmax));
        assert_string_equal(limit, "CFL");
        assert_true(eddy_world_stable_dt(w, 0.4, 3.0, 1e3, 0.0, &limit) == 0.125 * h * h / 1e3);
        assert_string_equal(limit, "viscous");

        /* Figures a device solver reduced itself replace the scan. */
        eddy_step_stats mine = {.size = sizeof mine, .step = w->step, .max_speed = 42.0,
                                .nonfinite_velocity = 5, .first_nonfinite = 3};
        eddy_world_set_step_stats(w, &mine);
        s = eddy_world_step_stats(w);
        assert_true(s->max_speed == 42.0);
        assert_int_equal(s->nonfinite_velocity, 5);
        assert_int_equal(s->first_nonfinite, 3);
        assert_true(eddy_world_max_speed(w) == 42.0f);
        assert_true(eddy_world_cfl_dt(w, 0.5, 0.0) == 0.5 * h / 42.0);
        w->step++;
        assert_true(eddy_world_step_stats(w)->max_speed == vmax);
        eddy_world_destroy(w);
    }
    omp_set_num_threads(saved);
    /* An empty world: zero speed, no limit from it. */
    eddy_world *w = make_world(0, 1);
    const eddy_step_stats *s = eddy_world_step_stats(w);
    assert_true(s->max_speed == 0.0);
    assert_int_equal(s->first_nonfinite, SIZE_MAX);
    assert_true(isinf(eddy_world_cfl_dt(w, 0.4, 0.0)));
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------------------------------------- */
/* Halo refresh                                                                                   */

typedef struct fake_exchange {
    int calls;
    int fields[8];
    size_t count;
    eddy_world *world;
    int fail;
} fake_exchange;

static int fake_refresh(void *context, eddy_world *w, const int *fields, size_t count, eddy_error *err)
{
    fake_exchange *x = context;
    x->calls++;
    x->world = w;
    x->count = count;
    for (size_t i = 0; i < count && i < 8; ++i) x->fields[i] = fields[i];
    if (x->fail) return eddy_error_set(err, EDDY_ERR_IO, "rank 3 hung up");
    return EDDY_OK;
}

static void refresh_fields(void **state)
{
    (void)state;
    eddy_world *w = make_world(10, 7);
    eddy_error err;
    const int fields[] = {EDDY_FIELD_DENSITY, EDDY_FIELD_PRESSURE};
    /* One process: a no-op that succeeds. */
    assert_int_equal(eddy_world_refresh_fields(w, fields, 2, &err), EDDY_OK);
    assert_int_equal(eddy_world_refresh_fields(w, NULL, 0, &err), EDDY_OK);
    fake_exchange x = {0};
    const eddy_exchange ex = {.size = sizeof ex, .context = &x, .refresh = fake_refresh};
    eddy_world_set_exchange(w, &ex);
    assert_int_equal(eddy_world_refresh_fields(w, fields, 2, &err), EDDY_OK);
    assert_int_equal(x.calls, 1);
    assert_ptr_equal(x.world, w);
    assert_int_equal(x.count, 2);
    assert_int_equal(x.fields[0], EDDY_FIELD_DENSITY);
    assert_int_equal(x.fields[1], EDDY_FIELD_PRESSURE);
    const int one[] = {EDDY_FIELD_VELOCITY};
    assert_int_equal(eddy_world_refresh_fields(w, one, 1, &err), EDDY_OK);
    assert_int_equal(x.calls, 2);
    assert_int_equal(x.count, 1);
    assert_int_equal(x.fields[0], EDDY_FIELD_VELOCITY);
    x.fail = 1;
    assert_int_equal(eddy_world_refresh_fields(w, fields, 2, &err), EDDY_ERR_IO);
    assert_string_equal(err.message, "rank 3 hung up");
    const int unknown[] = {EDDY_FIELD_DENSITY, 60};
    assert_int_equal(eddy_world_refresh_fields(w, unknown, 2, &err), EDDY_ERR_NOT_FOUND);
    assert_int_equal(x.calls, 3);
    eddy_world_set_exchange(w, NULL);
    assert_int_equal(eddy_world_refresh_fields(w, fields, 2, &err), EDDY_OK);
    assert_int_equal(x.calls, 3);
    /* An unknown field is refused on one process as well: it must not work until the run is split. */
    assert_int_equal(eddy_world_refresh_fields(w, unknown, 2, &err), EDDY_ERR_NOT_FOUND);
    assert_string_equal(err.message, "refresh fields: no field 60");
    eddy_world_destroy(w);
}

/* Stands in for the other processes: each value combined with the given "remote" values. */
typedef struct fake_reducer {
    int calls;
    eddy_reduce_op op;
    double remote[2];
} fake_reducer;

static int fake_reduce(void *context, eddy_reduce_op op, double *values, size_t count, eddy_error *err)
{
    (void)err;
    fake_reducer *r = context;
    r->calls++;
    r->op = op;
    for (size_t i = 0; i < count && i < 2; ++i)
        values[i] = op == EDDY_REDUCE_MIN ? fmin(values[i], r->remote[i])
                  : op == EDDY_REDUCE_MAX ? fmax(values[i], r->remote[i]) : values[i] + r->remote[i];
    return EDDY_OK;
}

static void reduce_values(void **state)
{
    (void)state;
    eddy_world *w = make_world(4, 3);
    eddy_error err;
    double v[2] = {1.5, -2.0};
    /* One process: the values are already global. */
    assert_int_equal(eddy_world_reduce(w, EDDY_REDUCE_MIN, v, 2, &err), EDDY_OK);
    assert_true(v[0] == 1.5 && v[1] == -2.0);
    assert_int_equal(eddy_world_reduce(w, (eddy_reduce_op)7, v, 2, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "reduce: unknown operation 7");
    /* An exchange with refresh only (an older layout, or a host without reductions): unchanged. */
    fake_exchange x = {0};
    const eddy_exchange refresh_only = {.size = offsetof(eddy_exchange, reduce), .context = &x,
                                        .refresh = fake_refresh};
    eddy_world_set_exchange(w, &refresh_only);
    assert_int_equal(eddy_world_reduce(w, EDDY_REDUCE_MAX, v, 2, &err), EDDY_OK);
    assert_true(v[0] == 1.5 && v[1] == -2.0);
    fake_reducer r = {.remote = {0.5, 4.0}};
    const eddy_exchange ex = {.size = sizeof ex, .context = &r, .refresh = fake_refresh, .reduce = fake_reduce};
    eddy_world_set_exchange(w, &ex);
    assert_int_equal(eddy_world_reduce(w, EDDY_REDUCE_MIN, v, 2, &err), EDDY_OK);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.op, EDDY_REDUCE_MIN);
    assert_true(v[0] == 0.5 && v[1] == -2.0);
    assert_int_equal(eddy_world_reduce(w, EDDY_REDUCE_SUM, v, 2, &err), EDDY_OK);
    assert_true(v[0] == 1.0 && v[1] == 2.0);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------------------------------------- */
/* State hash and ids                                                                             */

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; ++i) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static const eddy_particles *cmp_set;
static int cmp_by_id(const void *a, const void *b)
{
    uint64_t x = cmp_set->id[*(const size_t *)a], y = cmp_set->id[*(const size_t *)b];
    return (x > y) - (x < y);
}

/* The documented hash, written from particles.h: FNV-1a over the owned particles in increasing id
 * order; per particle its id (4 bytes below 0xffffffff, else 0xffffffff and 8 bytes), its material,
 * then every component of every field. For ids below 2^32 - 1 this is byte for byte ABI 1.x's hash
 * (a uint32_t id), so 1.x state hashes carry over. */
static uint64_t reference_hash(const eddy_particles *p)
{
    size_t *idx = malloc(sizeof(size_t) * (p->count ? p->count : 1));
    size_t n = 0;
    for (size_t i = 0; i < p->count; ++i)
        if (!(p->flags[i] & EDDY_PARTICLE_HALO)) idx[n++] = i;
    cmp_set = p;
    qsort(idx, n, sizeof *idx, cmp_by_id);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t k = 0; k < n; ++k) {
        size_t i = idx[k];
        if (p->id[i] < 0xffffffffu) {
            uint32_t id = (uint32_t)p->id[i];
            h = fnv(h, &id, 4);
        } else {
            uint32_t escape = 0xffffffffu;
            h = fnv(h, &escape, 4);
            h = fnv(h, &p->id[i], 8);
        }
        h = fnv(h, &p->material[i], 4);
        for (int f = 0; f < eddy_particles_field_count(p); ++f)
            for (int c = 0; c < eddy_particles_field_components(p, f); ++c)
                h = fnv(h, &eddy_particles_field(p, f, c)[i], sizeof(eddy_real));
    }
    free(idx);
    return h;
}

static void hash_order_and_halo(void **state)
{
    (void)state;
    const size_t n = 3000;
    eddy_world *w = make_world(n, 8);
    eddy_particles *p = &w->particles;
    eddy_error err;
    int lambda;
    assert_int_equal(eddy_particles_add_field(p, "lambda", 1, &lambda, &err), EDDY_OK);
    for (size_t i = 0; i < n; ++i) {
        p->density[i] = 1000.0f + (float)i;
        eddy_particles_field(p, lambda, 0)[i] = (float)(i * i % 97);
    }
    uint64_t h0, h;
    assert_int_equal(eddy_world_hash(w, &h0, &err), EDDY_OK);
    assert_true(h0 == reference_hash(p));
    /* Storage order does not matter. */
    uint32_t *order = random_order(n, 9);
    assert_int_equal(eddy_particles_gather(p, order, n, &err), EDDY_OK);
    free(order);
    assert_int_equal(eddy_world_hash(w, &h, &err), EDDY_OK);
    assert_true(h == h0);
    /* Every value counts. */
    const size_t k = index_of_id(p, 1500);
    const float saved = p->pressure[k];
    p->pressure[k] = nextafterf(saved, 1.0f);
    assert_int_equal(eddy_particles_hash(p, &h, &err), EDDY_OK);
    assert_true(h != h0);
    p->pressure[k] = saved;

    /* Halo copies are another process's particles: they do not enter the hash. */
    float pos[3 * 5] = {0}, vel[3 * 5] = {0};
    for (int i = 0; i < 15; ++i) pos[i] = 0.1f * (float)i;
    assert_int_equal(eddy_world_add_particles(w, 5, pos, vel, 0, &err), EDDY_OK);
    assert_int_equal(p->count, n + 5);
    assert_int_equal(p->halo_count, 0);
    for (size_t i = n; i < n + 5; ++i) assert_int_equal(p->flags[i], 0); /* new particles are owned */
    assert_int_equal(eddy_particles_hash(p, &h, &err), EDDY_OK);
    assert_true(h != h0); /* owned, they count */
    for (size_t i = n; i < n + 5; ++i) p->flags[i] = EDDY_PARTICLE_HALO;
    /* A gather carries the flags along and recounts the halo copies. */
    order = random_order(n + 5, 10);
    assert_int_equal(eddy_particles_gather(p, order, n + 5, &err), EDDY_OK);
    free(order);
    assert_int_equal(p->halo_count, 5);
    size_t flagged = 0;
    for (size_t i = 0; i < p->count; ++i) {
        flagged += eddy_particle_is_halo(p, i);
        assert_int_equal(eddy_particle_is_halo(p, i), p->id[i] >= n);
    }
    assert_int_equal(flagged, 5);
    assert_int_equal(eddy_world_hash(w, &h, &err), EDDY_OK);
    assert_true(h == h0);
    assert_true(h == reference_hash(p));
    /* Compacting them away recounts to zero and leaves the hash. */
    order = malloc(sizeof(uint32_t) * p->count);
    size_t kept = 0;
    for (size_t i = 0; i < p->count; ++i)
        if (!(p->flags[i] & EDDY_PARTICLE_HALO)) order[kept++] = (uint32_t)i;
    assert_int_equal(eddy_particles_gather(p, order, kept, &err), EDDY_OK);
    free(order);
    assert_int_equal(p->count, n);
    assert_int_equal(p->halo_count, 0);
    assert_int_equal(eddy_world_hash(w, &h, &err), EDDY_OK);
    assert_true(h == h0);
    eddy_world_destroy(w);
}

static void ids_64_bit(void **state)
{
    (void)state;
    const size_t n = 2000;
    eddy_world *w = make_world(n, 11);
    eddy_particles *p = &w->particles;
    eddy_error err;
    for (size_t i = 0; i < n; ++i) assert_true(p->id[i] == i); /* issued densely from 0 */
    uint64_t h_dense;
    assert_int_equal(eddy_particles_hash(p, &h_dense, &err), EDDY_OK);
    const uint64_t layout = eddy_particles_generation(p, EDDY_FIELD_LAYOUT);

    /* Duplicates are refused, naming the id and both particles, and nothing changes. */
    uint64_t *ids = malloc(sizeof(uint64_t) * n);
    for (size_t i = 0; i < n; ++i) ids[i] = 5000000000ull + 3 * i;
    ids[1700] = ids[42];
    assert_int_equal(eddy_particles_set_ids(p, ids, &err), EDDY_ERR_INVALID_ARGUMENT);
    char expect[200];
    snprintf(expect, sizeof expect,
             "particles: id %" PRIu64 " is given twice (particles 42 and 1700); ids must be unique", ids[42]);
    assert_string_equal(err.message, expect);
    for (size_t i = 0; i < n; ++i) assert_true(p->id[i] == i);
    assert_int_equal(eddy_particles_generation(p, EDDY_FIELD_LAYOUT), layout);

    /* Ids of 2^32 and beyond, the 2^32 - 1 escape itself, and small ones mixed. */
    for (size_t i = 0; i < n; ++i) ids[i] = i % 3 == 0 ? 5000000000ull + 7 * i : (uint64_t)(n - i) * 11;
    ids[10] = 0xffffffffull;
    ids[11] = 0xfffffffeull;
    ids[12] = UINT64_MAX - 1;
    assert_int_equal(eddy_particles_set_ids(p, ids, &err), EDDY_OK);
    assert_int_equal(eddy_particles_generation(p, EDDY_FIELD_LAYOUT), layout + 1);
    for (size_t i = 0; i < n; ++i) assert_true(p->id[i] == ids[i]);
    uint64_t h;
    assert_int_equal(eddy_particles_hash(p, &h, &err), EDDY_OK);
    assert_true(h == reference_hash(p));
    assert_true(h != h_dense);
    /* Still independent of storage order with sparse ids (the sorting path). */
    uint32_t *order = random_order(n, 12);
    assert_int_equal(eddy_particles_gather(p, order, n, &err), EDDY_OK);
    free(order);
    uint64_t h2;
    assert_int_equal(eddy_particles_hash(p, &h2, &err), EDDY_OK);
    assert_true(h2 == h);
    /* New particles continue above the largest id ever set. */
    const float pos[3] = {0.5f, 0.5f, 0.5f};
    assert_int_equal(eddy_world_add_particles(w, 1, pos, NULL, 0, &err), EDDY_OK);
    assert_true(p->id[n] == UINT64_MAX);
    /* ... and none can follow UINT64_MAX. */
    assert_int_equal(eddy_world_add_particles(w, 1, pos, NULL, 0, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_int_equal(p->count, n + 1);

    /* Setting ids lower never lowers the next id: ids are never reused. */
    eddy_world *w2 = make_world(4, 13);
    uint64_t big[4] = {100, 7, 1ull << 40, 3};
    assert_int_equal(eddy_particles_set_ids(&w2->particles, big, &err), EDDY_OK);
    uint64_t small[4] = {0, 1, 2, 3};
    assert_int_equal(eddy_particles_set_ids(&w2->particles, small, &err), EDDY_OK);
    assert_int_equal(eddy_world_add_particles(w2, 1, pos, NULL, 0, &err), EDDY_OK);
    assert_true(w2->particles.id[4] == (1ull << 40) + 1);
    eddy_world_destroy(w2);
    free(ids);
    eddy_world_destroy(w);
}

/* Material names are unique through an index (not a scan of all earlier names): a duplicate is found
 * among thousands, names that collide in the index are told apart, and a mass too small for the
 * smoothing radius (a rest spacing beyond the lattice helpers' ratio limit) is refused by name. */
static void material_names_and_limits(void **state)
{
    (void)state;
    eddy_world *w;
    eddy_error err;
    assert_int_equal(eddy_world_create(2, &w, &err), EDDY_OK);
    w->smoothing_radius = 0.01f;
    eddy_material m = eddy_default_material();
    m.particle_mass = 0.01f;
    enum { COUNT = 5000 };
    for (int i = 0; i < COUNT; ++i) {
        snprintf(m.name, sizeof m.name, "m%d", i);
        if (eddy_world_add_material(w, &m, &err)) fail_msg("material %d: %s", i, err.message);
    }
    assert_int_equal(w->material_count, COUNT);
    snprintf(m.name, sizeof m.name, "m%d", COUNT / 2);
    assert_int_equal(eddy_world_add_material(w, &m, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "material 'm2500' is defined twice");
    assert_int_equal(w->material_count, COUNT);
    for (int i = 0; i < COUNT; i += 97) { /* every name still maps to its own material */
        char name[32];
        snprintf(name, sizeof name, "m%d", i);
        assert_string_equal(w->materials[i].name, name);
    }

    m.particle_mass = 1e-12f;
    snprintf(m.name, sizeof m.name, "dust");
    assert_int_equal(eddy_world_add_material(w, &m, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "material 'dust': particle_mass 1e-12 gives a rest spacing below "
                                     "smoothing_radius / 32 (0.0003125); the lattice helpers are defined up "
                                     "to 32 spacings per smoothing radius");
    assert_int_equal(w->material_count, COUNT);
    eddy_world_destroy(w);
}

/* Gathering nothing from a set that never had storage: its arrays are NULL, and memcpy was given them
 * for 0 bytes, undefined behaviour that the sanitizer build stops at. */
static void gather_nothing_from_empty_set(void **state)
{
    (void)state;
    eddy_particles p;
    eddy_error err;
    assert_int_equal(eddy_particles_init(&p, 3, &err), EDDY_OK);
    assert_int_equal(eddy_particles_gather(&p, NULL, 0, &err), EDDY_OK);
    assert_int_equal(p.count, 0);
    eddy_particles_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gather_nothing_from_empty_set),
        cmocka_unit_test(param_check_messages),
        cmocka_unit_test(param_defaults),
        cmocka_unit_test(param_table_refusals),
        cmocka_unit_test(param_table_with_larger_stride),
        cmocka_unit_test(param_get_and_find),
        cmocka_unit_test(materials_copy_and_check_params),
        cmocka_unit_test(host_services),
        cmocka_unit_test(integrate_velocity_warns_of_bad_field_once),
        cmocka_unit_test(grid_receives_world_host),
        cmocka_unit_test(failed_grid_init_keeps_the_grid),
        cmocka_unit_test(map_unmap_generations),
        cmocka_unit_test(residency_downloads),
        cmocka_unit_test(step_stats),
        cmocka_unit_test(step_stats_download_device_fields),
        cmocka_unit_test(step_stats_failed_download_not_cached),
        cmocka_unit_test(refresh_fields),
        cmocka_unit_test(reduce_values),
        cmocka_unit_test(hash_order_and_halo),
        cmocka_unit_test(ids_64_bit),
        cmocka_unit_test(material_names_and_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
