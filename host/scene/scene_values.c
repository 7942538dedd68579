/*
 * host/scene/scene_values.c — typed getters for the members of a section: numbers within a range
 * (numspec, and the text that names the range in messages), floats, strings, objects, vectors of 2 or
 * 3 numbers, and min < max boxes.
 *
 * Depends on: scene_errors.c, scene_path.c.
 */
#include "scene_internal.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void scene_numspec_text(const numspec *ns, char *out, size_t size)
{
    const char *what = ns->integer ? "an integer" : "a number";
    char lo[32], hi[32];
    scene_fmt_number(lo, sizeof lo, ns->lo);
    scene_fmt_number(hi, sizeof hi, ns->hi);
    int has_lo = isfinite(ns->lo) && ns->lo > -UNBOUNDED, has_hi = isfinite(ns->hi) && ns->hi < UNBOUNDED;
    int lo_open = ns->lo_open;
    if (has_lo && !ns->integer && ns->lo > 0 && ns->lo <= TINY) {
        scene_fmt_number(lo, sizeof lo, 0.0); /* a table's "> 0" */
        lo_open = 1;
    }
    if (ns->integer && ns->hi == INT_MAX) has_hi = 0;
    if (has_lo && has_hi)
        snprintf(out, size, "%s in %c%s, %s%c", what, lo_open ? '(' : '[', lo, hi,
                 ns->hi_open ? ')' : ']');
    else if (has_lo) snprintf(out, size, "%s %s %s", what, lo_open ? ">" : ">=", lo);
    else if (has_hi) snprintf(out, size, "%s %s %s", what, ns->hi_open ? "<" : "<=", hi);
    else snprintf(out, size, "%s", what);
}

int scene_numspec_ok(const numspec *ns, double v)
{
    if (!isfinite(v)) return 0;
    if (ns->integer && v != floor(v)) return 0;
    if (ns->lo_open ? !(v > ns->lo) : !(v >= ns->lo)) return 0;
    if (ns->hi_open ? !(v < ns->hi) : !(v <= ns->hi)) return 0;
    return 1;
}

/* Member `key` of obj (NULL when absent). */
cJSON *scene_member(const cJSON *obj, const char *key)
{
    return obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

static int check_number(ctx *c, const char *path, const cJSON *v, const numspec *ns, double *out)
{
    if (!cJSON_IsNumber(v) || !scene_numspec_ok(ns, v->valuedouble)) {
        char exp[96];
        scene_numspec_text(ns, exp, sizeof exp);
        return scene_fail_expected(c, path, v, exp);
    }
    *out = v->valuedouble;
    return EDDY_OK;
}

/* Number member; `*present` (may be NULL) tells whether it was given. Absent and not required: def. */
int scene_get_number(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                     const numspec *ns, double def, double *out, int *present)
{
    const cJSON *v = scene_member(obj, key);
    if (present) *present = v != NULL;
    if (!v) {
        if (required) {
            char exp[96];
            scene_numspec_text(ns, exp, sizeof exp);
            return scene_fail_missing(c, path, obj, key, exp);
        }
        *out = def;
        return EDDY_OK;
    }
    char mp[PATH_BUF];
    scene_path_key(mp, path, key);
    return check_number(c, mp, v, ns, out);
}

int scene_get_real(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                   const numspec *ns, double def, eddy_real *out, int *present)
{
    double d = 0;
    int rc = scene_get_number(c, obj, path, key, required, ns, def, &d, present);
    if (rc) return rc;
    /* Below FLT_MIN a float is subnormal: 1e-40 kept 3 digits, 1e-45 none (a simulation_scale of 1e-40
     * ended in a spacing limit of 3e+36). */
    if (isfinite(d) && (fabs(d) > FLT_MAX || (d != 0.0 && fabs(d) < FLT_MIN))) {
        char mp[PATH_BUF];
        scene_path_key(mp, path, key);
        return scene_fail_expected(c, mp, scene_member(obj, key), FLOAT_RANGE);
    }
    *out = (eddy_real)d;
    return EDDY_OK;
}

/* String member copied into out[size]: at most size - 1 characters, not empty when `nonempty`. */
int scene_get_string(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                     const char *def, char *out, size_t size, int nonempty)
{
    const cJSON *v = scene_member(obj, key);
    char exp[96];
    snprintf(exp, sizeof exp, "a %sstring of at most %zu characters", nonempty ? "non-empty " : "",
             size - 1);
    if (!v) {
        if (required) return scene_fail_missing(c, path, obj, key, exp);
        if (def) snprintf(out, size, "%s", def);
        return EDDY_OK;
    }
    char mp[PATH_BUF];
    scene_path_key(mp, path, key);
    if (!cJSON_IsString(v) || !v->valuestring || strlen(v->valuestring) >= size ||
        (nonempty && !v->valuestring[0]))
        return scene_fail_expected(c, mp, v, exp);
    snprintf(out, size, "%s", v->valuestring);
    return EDDY_OK;
}

int scene_get_bool(ctx *c, const cJSON *obj, const char *path, const char *key, int def, int *out)
{
    const cJSON *v = scene_member(obj, key);
    *out = def;
    if (!v) return EDDY_OK;
    if (!cJSON_IsBool(v)) {
        char mp[PATH_BUF];
        scene_path_key(mp, path, key);
        return scene_fail_expected(c, mp, v, "true or false");
    }
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return EDDY_OK;
}

/* Optional object member: *out = NULL when absent. */
int scene_get_object(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                     const char *expected, const cJSON **out)
{
    const cJSON *v = scene_member(obj, key);
    *out = v;
    if (!v) return required ? scene_fail_missing(c, path, obj, key, expected) : EDDY_OK;
    if (!cJSON_IsObject(v)) {
        char mp[PATH_BUF];
        scene_path_key(mp, path, key);
        return scene_fail_expected(c, mp, v, expected);
    }
    return EDDY_OK;
}

static const char *vector_expected(const eddy_scene *s)
{
    return s->dimensions == 2 ? "an array of 2 (or 3) numbers" : "an array of 3 numbers";
}

/* (scene.h) A 2D scene that forgot "dimensions" is 3D by default and fails at its first [x, y]; the
 * bare "expected an array of 3 numbers" never said that the scene's kind, not the vector, was wrong. */
const char *eddy_scene_dimensions_hint(const eddy_scene *scene, int count)
{
    if (!scene || scene->dimensions != 3 || count != 2 || scene_member(scene->root, "dimensions")) return "";
    return " (the scene is 3D: \"dimensions\" is not set, and 3 is its default; add \"dimensions\": 2 for a 2D "
           "scene)";
}

/* (scene_internal.h) */
int scene_fail_length(ctx *c, const char *path, const cJSON *v, const char *expected)
{
    char b[128];
    const int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
    return scene_fail(c, path, v, AT_VALUE, "expected %s, got %s%s", expected, scene_describe(v, b, sizeof b),
                      eddy_scene_dimensions_hint(c->s, n));
}

/* What a vector's z may be in 2D (check_vector). */
enum { Z_FREE, Z_POSITION, Z_DIRECTION };

/* (scene_internal.h) */
int scene_fail_z(ctx *c, const char *path, const cJSON *e, const char *z)
{
    /* A 3D scene made 2D on the command line fails at its first vector with a z: say why it is 2D. */
    char why[EDDY_ERROR_MESSAGE_MAX / 2] = "";
    const char *set = scene_set_origin(c->s, scene_member(c->s->root, "dimensions"));
    if (set && c->s->text_dimensions != 2)
        snprintf(why, sizeof why, " (the scene is 2D by --set '%.*s', and a 3D scene is not read as a 2D one)",
                 (int)(sizeof why / 2), set);
    return scene_fail(c, path, e, AT_VALUE, "a 2D scene has no z (the x-y plane, y up), got z = %s; give [x, y]%s", z,
                      why);
}

/*
 * Vector: an array of `dimensions` numbers, or of 3 in 2D, whose z is then dropped. In 2D a z other than
 * 0 is refused for a direction (Z_DIRECTION: gravity, a velocity, a normal), whose z dropping changes:
 * a z-up gravity [0, 0, -9.81] ran with no gravity. A position's or an extent's z (Z_POSITION) is only
 * the depth of the plane, and 2D scenes give 3D boxes: accepted, unless the text is a 3D scene made 2D
 * by an override, which ran as a slice of itself. Z_FREE: the caller reads a z it means itself (a
 * camera's eye stands off the plane).
 */
static int check_vector(ctx *c, const char *path, const cJSON *v, int z_rule, eddy_real out[3])
{
    int d = c->s->dimensions;
    const char *exp = vector_expected(c->s);
    if (!cJSON_IsArray(v)) return scene_fail_expected(c, path, v, exp);
    int n = cJSON_GetArraySize(v);
    if (!(n == d || n == 3)) return scene_fail_length(c, path, v, exp);
    const int refuse_z = z_rule == Z_DIRECTION || (z_rule == Z_POSITION && c->s->text_dimensions != 2);
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, ++i) {
        char ep[PATH_BUF];
        scene_path_index(ep, path, (size_t)i);
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) return scene_fail_expected(c, ep, e, "a finite number");
        /* Stored as a float: 1e39 is finite, but not a float ("a finite number" read as nonsense). */
        if (fabs(e->valuedouble) > FLT_MAX) return scene_fail_expected(c, ep, e, FLOAT_MAX_TEXT);
        if (i >= d && e->valuedouble != 0.0 && refuse_z) {
            char z[32];
            scene_fmt_number(z, sizeof z, e->valuedouble);
            return scene_fail_z(c, path, e, z);
        }
        out[i] = i < d ? (eddy_real)e->valuedouble : 0.0f;
    }
    for (; i < 3; ++i) out[i] = 0.0f;
    if (d == 2) out[2] = 0.0f;
    return EDDY_OK;
}

static int get_vector(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                      const eddy_real def[3], int z_rule, eddy_real out[3])
{
    const cJSON *v = scene_member(obj, key);
    if (!v) {
        if (required)
            return scene_fail_missing(c, path, obj, key,
                                      c->s->dimensions == 2 ? "an array of 2 (or 3) numbers"
                                                            : "an array of 3 numbers");
        for (int a = 0; a < 3; ++a) out[a] = def ? def[a] : 0.0f;
        if (c->s->dimensions == 2) out[2] = 0.0f;
        return EDDY_OK;
    }
    char mp[PATH_BUF];
    scene_path_key(mp, path, key);
    return check_vector(c, mp, v, z_rule, out);
}

int scene_get_vector(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                     const eddy_real def[3], eddy_real out[3])
{
    return get_vector(c, obj, path, key, required, def, Z_POSITION, out);
}

int scene_get_direction(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                        const eddy_real def[3], eddy_real out[3])
{
    return get_vector(c, obj, path, key, required, def, Z_DIRECTION, out);
}

int scene_get_vector_z_free(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                            const eddy_real def[3], eddy_real out[3])
{
    return get_vector(c, obj, path, key, required, def, Z_FREE, out);
}

/* max > min on every used axis; the error points at `max`. */
int scene_check_min_max(ctx *c, const cJSON *obj, const char *path, const eddy_real mn[3], const eddy_real mx[3])
{
    for (int a = 0; a < c->s->dimensions; ++a) {
        if (!(mx[a] > mn[a])) {
            char mp[PATH_BUF];
            scene_path_key(mp, path, "max");
            return scene_fail(c, mp, scene_member(obj, "max"), AT_VALUE,
                              "expected max > min on every axis, got max.%c = %g <= min.%c = %g", AXIS[a],
                              (double)mx[a], AXIS[a], (double)mn[a]);
        }
    }
    return EDDY_OK;
}
