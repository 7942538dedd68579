/*
 * host/scene/scene_params.c — typed parameter values (params.h) read from a scene object against a
 * parameter table, with the scene's messages, and checked a second time by the core
 * (eddy_param_check): eddy_scene_param_values and the value reader the material parameters share.
 *
 * Depends on: scene_values.c (numspec), scene_errors.c, the core's params.h.
 */
#include "scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Entry i of a table of n (stride of its first entry), or NULL. */
const eddy_param_desc *scene_table_at(const eddy_param_desc *table, size_t n, size_t i)
{
    return table && i < n ? eddy_param_at(table, i) : NULL;
}

/* Index of `id` in a table, or -1. */
int scene_table_find(const eddy_param_desc *table, size_t n, const char *id)
{
    for (size_t i = 0; id && i < n; ++i) {
        const eddy_param_desc *d = eddy_param_at(table, i);
        if (d && d->id && strcmp(d->id, id) == 0) return (int)i;
    }
    return -1;
}

static numspec desc_numspec(const eddy_param_desc *d)
{
    numspec ns = {d->min, d->max, 0, 0, d->type == EDDY_PARAM_INT};
    return ns;
}

/* "\"a\", \"b\"" */
static void choices_text(const eddy_param_desc *d, char *out, size_t size)
{
    size_t k = 0;
    out[0] = '\0';
    for (size_t n = 0; d->choices && d->choices[n]; ++n)
        if (scene_list_add(out, size, &k, n ? ", " : "", 1, d->choices[n])) break;
}

/* What a value of `d` must be, after "expected ". */
void scene_desc_expected(const eddy_param_desc *d, char *out, size_t size)
{
    numspec ns = desc_numspec(d);
    switch (d->type) {
    case EDDY_PARAM_REAL:
    case EDDY_PARAM_INT: scene_numspec_text(&ns, out, size); return;
    case EDDY_PARAM_BOOL: snprintf(out, size, "true or false"); return;
    case EDDY_PARAM_ENUM: {
        char list[EDDY_ERROR_MESSAGE_MAX / 2];
        choices_text(d, list, sizeof list);
        snprintf(out, size, "one of %s", list);
        return;
    }
    case EDDY_PARAM_STRING: snprintf(out, size, "a string of at most %.0f characters", d->max); return;
    case EDDY_PARAM_VECTOR: {
        char each[96];
        scene_numspec_text(&ns, each, sizeof each); /* "a number in [lo, hi]" */
        snprintf(out, size, "an array of 1 to 3 numbers%s", each + strlen("a number"));
        return;
    }
    }
    snprintf(out, size, "a value of an unknown parameter type %d", (int)d->type);
}

/* `x` (at path, node v) is outside [min, max]. */
static int range_error(ctx *c, const eddy_param_desc *d, const char *path, const cJSON *v, double x, int style,
                       const char *expected)
{
    /* A range with an end the tables cannot write ("no bound", "> 0") reads as the scene's own. */
    const int plain = d->min > -UNBOUNDED && d->max < UNBOUNDED && !(d->min > 0 && d->min <= TINY);
    if ((x > d->max && d->max >= UNBOUNDED) || (x < d->min && d->min <= -UNBOUNDED)) {
        /* Beyond the bound that reads as "none": "expected a number >= 0, got 1e+300" contradicted
         * itself, so the range is written out. */
        char both[96];
        snprintf(both, sizeof both, "%s in [%g, %g]", d->type == EDDY_PARAM_INT ? "an integer" : "a number", d->min,
                 d->max);
        return scene_fail_expected(c, path, v, both);
    }
    if (style == STYLE_MATERIAL || !plain) return scene_fail_expected(c, path, v, expected);
    /* As eddy_param_check: a dimensionless number's unit "1" is not printed after the range. */
    const char *unit = d->unit && strcmp(d->unit, "1") != 0 ? d->unit : "";
    return scene_fail(c, path, v, AT_VALUE, "%g is out of range [%g, %g]%s%s", x, d->min, d->max, *unit ? " " : "",
                      unit);
}

/*
 * Reads the JSON value v (at `path`) as a value of descriptor d. null asks for the derived value of a
 * DERIVED parameter (unset: is_set 0, NAN), as leaving it out does.
 */
int scene_read_value(ctx *c, const eddy_param_desc *d, const char *path, const cJSON *v, int style,
                     eddy_param_value *out)
{
    char exp[EDDY_ERROR_MESSAGE_MAX / 2];
    scene_desc_expected(d, exp, sizeof exp);
    eddy_param_value r;
    memset(&r, 0, sizeof r);
    r.is_set = 1;
    r.count = 1;
    if (cJSON_IsNull(v) && (d->flags & EDDY_PARAM_DERIVED)) {
        r.is_set = 0;
        r.number = NAN;
        *out = r;
        return EDDY_OK;
    }
    switch (d->type) {
    case EDDY_PARAM_REAL:
    case EDDY_PARAM_INT: {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return scene_fail_expected(c, path, v, exp);
        const double x = v->valuedouble;
        if (d->type == EDDY_PARAM_INT && x != floor(x)) {
            if (style == STYLE_COMPONENT) return scene_fail(c, path, v, AT_VALUE, "expected an integer, got %g", x);
            return scene_fail_expected(c, path, v, exp);
        }
        if (!(x >= d->min && x <= d->max)) return range_error(c, d, path, v, x, style, exp);
        if (d->type == EDDY_PARAM_INT && !(fabs(x) < 9.2e18)) return scene_fail_expected(c, path, v, exp);
        r.number = x;
        r.integer = fabs(x) < 9.2e18 ? (int64_t)x : 0;
        r.vector[0] = x;
        break;
    }
    case EDDY_PARAM_BOOL:
        if (!cJSON_IsBool(v)) return scene_fail_expected(c, path, v, exp);
        r.integer = cJSON_IsTrue(v) ? 1 : 0;
        r.number = r.vector[0] = (double)r.integer;
        break;
    case EDDY_PARAM_ENUM: {
        int found = -1;
        for (size_t n = 0; d->choices && d->choices[n]; ++n)
            if (cJSON_IsString(v) && v->valuestring && strcmp(v->valuestring, d->choices[n]) == 0) found = (int)n;
        if (found < 0) return scene_fail_expected(c, path, v, exp);
        r.integer = found;
        r.number = r.vector[0] = (double)found;
        r.string = d->choices[found];
        break;
    }
    case EDDY_PARAM_STRING:
        if (!cJSON_IsString(v) || !v->valuestring || (double)strlen(v->valuestring) > d->max)
            return scene_fail_expected(c, path, v, exp);
        r.string = v->valuestring;
        break;
    case EDDY_PARAM_VECTOR: {
        int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
        if (n < 1 || n > 3) return scene_fail_expected(c, path, v, exp);
        numspec ns = desc_numspec(d);
        char each[96];
        scene_numspec_text(&ns, each, sizeof each);
        int i = 0;
        for (const cJSON *e = v->child; e; e = e->next, ++i) {
            char ep[PATH_BUF];
            scene_path_index(ep, path, (size_t)i);
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) return scene_fail_expected(c, ep, e, each);
            const double x = e->valuedouble;
            if (!(x >= d->min && x <= d->max)) return range_error(c, d, ep, e, x, style, each);
            r.vector[i] = x;
        }
        r.count = n;
        r.number = r.vector[0];
        break;
    }
    default:
        return scene_fail(c, path, v, AT_VALUE, "parameter has an unknown type %d", (int)d->type);
    }
    *out = r;
    return EDDY_OK;
}

/* The core's own check of a value read above (a second opinion: it must agree), its error prefixed
 * with the value's position. */
int scene_core_check(ctx *c, const eddy_param_desc *d, const eddy_param_value *v, const char *context,
                     const char *path, const cJSON *node)
{
    if (!v->is_set) return EDDY_OK;
    int rc = eddy_param_check(d, v, context, c->err);
    if (rc) scene_prefix_position(c->s, c->err, path, node);
    return rc;
}

int eddy_scene_param_values(const eddy_scene *scene, const cJSON *obj, const char *path,
                            const eddy_param_desc *table, size_t count, const char *const *host_keys,
                            eddy_param_value *values, eddy_error *err)
{
    if (!scene || (count && (!table || !values)))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_param_values: bad arguments");
    if (!path) path = "";
    for (size_t i = 0; i < count; ++i) values[i] = eddy_param_default(eddy_param_at(table, i));
    ctx c = scene_ctx(scene, err);
    int rc;
    if (obj && !cJSON_IsObject(obj)) return scene_fail_expected(&c, path, obj, "an object {parameter: value}");
    if (obj) {
        size_t nh = 0;
        while (host_keys && host_keys[nh]) ++nh;
        const char **valid = calloc(nh + count + 1, sizeof *valid);
        if (!valid) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        for (size_t i = 0; i < nh; ++i) valid[i] = host_keys[i];
        for (size_t i = 0; i < count; ++i) valid[nh + i] = eddy_param_at(table, i)->id;
        rc = scene_check_keys(&c, obj, path, valid);
        free(valid);
        if (rc) return rc;
        for (const cJSON *m = obj->child; m; m = m->next) {
            if (scene_listed(host_keys, m->string)) continue;
            int i = scene_table_find(table, count, m->string);
            const eddy_param_desc *d = eddy_param_at(table, (size_t)i);
            char kp[PATH_BUF];
            scene_path_key(kp, path, d->id);
            eddy_param_value v;
            if ((rc = scene_read_value(&c, d, kp, m, STYLE_COMPONENT, &v)) ||
                (rc = scene_core_check(&c, d, &v, path, kp, m)))
                return rc;
            values[i] = v;
        }
    }
    for (size_t i = 0; i < count; ++i) {
        const eddy_param_desc *d = eddy_param_at(table, i);
        if ((d->flags & EDDY_PARAM_REQUIRED) && !(obj && scene_member(obj, d->id))) {
            char exp[EDDY_ERROR_MESSAGE_MAX / 2];
            scene_desc_expected(d, exp, sizeof exp);
            return scene_fail_missing(&c, path, obj, d->id, exp);
        }
    }
    return EDDY_OK;
}
