/*
 * host/observe/probe_params.c — the keys the built-in probes share (probe_params.h): read once, when a
 * probe is created, and refused with the probe's context and the key where the table cannot say what
 * is wrong.
 */
#include "probe_params.h"

#include <stdio.h>
#include <string.h>

/* "+x" is "x": a force probe names its wall "+x", and its axis is read the same way. */
const char *const eddy_probe_axes[] = {"x", "y", "z", "-x", "-y", "-z", "+x", "+y", "+z", NULL};

const char *eddy_probe_context(const eddy_probe_setup *s)
{
    return s->context && *s->context ? s->context : s->name;
}

int eddy_probe_read_axis(const eddy_probe_setup *s, const char *id, int dimensions, int *axis, int *sign,
                         eddy_error *err)
{
    const eddy_param_value *v = eddy_param_find_value(s->params, id);
    const char *t = v && v->string ? v->string : "";
    *sign = t[0] == '-' ? -1 : 1;
    if (t[0] == '-' || t[0] == '+') ++t;
    const int a = t[0] && !t[1] ? t[0] - 'x' : -1;
    if (a < 0 || a >= dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s.%s: expected %s, got \"%s\"", eddy_probe_context(s),
                              id,
                              dimensions == 2 ? "\"x\", \"y\", \"-x\" or \"-y\" (\"+x\" is \"x\")"
                                              : "\"x\", \"y\", \"z\", \"-x\", \"-y\" or \"-z\" (\"+x\" is \"x\")",
                              v && v->string ? v->string : "");
    *axis = a;
    return EDDY_OK;
}

int eddy_probe_read_point(const eddy_probe_setup *s, const char *id, int dimensions, float out[3], eddy_error *err)
{
    const eddy_param_value *v = eddy_param_find_value(s->params, id);
    if (!v || !v->is_set || v->count < dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s.%s: expected %s, got %d number%s",
                              eddy_probe_context(s), id,
                              dimensions == 2 ? "an array of 2 (or 3) numbers" : "an array of 3 numbers",
                              v ? v->count : 0, v && v->count == 1 ? "" : "s");
    for (int a = 0; a < 3; ++a) out[a] = a < dimensions ? (float)v->vector[a] : 0.0f;
    return EDDY_OK;
}

/* The table's range (> 0) has been checked by the host already; this keeps a direct caller honest. */
int eddy_probe_read_positive(const eddy_probe_setup *s, const char *id, double *out, eddy_error *err)
{
    const eddy_param_value *v = eddy_param_find_value(s->params, id);
    *out = 0.0;
    if (!v || !v->is_set) return EDDY_OK;
    if (!(v->number > 0))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s.%s: expected a number > 0, got %.17g",
                              eddy_probe_context(s), id, v->number);
    *out = v->number;
    return EDDY_OK;
}

int eddy_probe_read_material(const eddy_probe_setup *s, int *one_material, uint32_t *material, eddy_error *err)
{
    const eddy_param_value *v = eddy_param_find_value(s->params, "material");
    if (!v || !v->is_set || !v->string) return EDDY_OK;
    const eddy_world *w = s->world;
    for (size_t m = 0; m < w->material_count; ++m)
        if (strcmp(w->materials[m].name, v->string) == 0) {
            *one_material = 1;
            *material = (uint32_t)m;
            return EDDY_OK;
        }
    char names[512] = "";
    size_t k = 0;
    for (size_t m = 0; m < w->material_count; ++m) {
        const char *sep = m == 0 ? "" : m + 1 == w->material_count ? " or " : ", ";
        int n = snprintf(names + k, sizeof names - k, "%s\"%s\"", sep, w->materials[m].name);
        if (n < 0 || (size_t)n >= sizeof names - k) {
            snprintf(names + (sizeof names - 5), 5, " ...");
            break;
        }
        k += (size_t)n;
    }
    const char *probe = s->name ? s->name : "";
    if (w->material_count == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%s.material: got \"%s\", but the world has no material (probe '%s')",
                              eddy_probe_context(s), v->string, probe);
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "%s.material: expected one of the scene's materials, %s, got \"%s\" (probe '%s')",
                          eddy_probe_context(s), names, v->string, probe);
}
