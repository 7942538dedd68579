#include <eddy/params.h>

#include <math.h>
#include <string.h>

double eddy_param_get(const eddy_param_values *values, const char *id, double fallback)
{
    if (!values || !values->desc) return fallback;
    int i = eddy_param_find(values->desc, values->count, id);
    return i < 0 ? fallback : values->values[i];
}

int eddy_param_find(const eddy_param_desc *table, size_t count, const char *id)
{
    if (!table || !id) return -1;
    for (size_t i = 0; i < count; ++i)
        if (table[i].id && strcmp(table[i].id, id) == 0) return (int)i;
    return -1;
}

static size_t choice_count(const eddy_param_desc *d)
{
    size_t n = 0;
    while (d->choices && d->choices[n]) ++n;
    return n;
}

int eddy_param_check(const eddy_param_desc *d, double v, const char *context, eddy_error *err)
{
    const char *ctx = context ? context : "";
    const char *dot = context && *context ? "." : "";
    if (isnan(v) && isnan(d->def)) return EDDY_OK; /* "derived" left to the component */
    if (!isfinite(v))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s%s: expected a finite number",
                              ctx, dot, d->id);
    switch (d->type) {
    case EDDY_PARAM_BOOL:
        if (v != 0.0 && v != 1.0)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s%s: expected true or false",
                                  ctx, dot, d->id);
        return EDDY_OK;
    case EDDY_PARAM_ENUM: {
        size_t n = choice_count(d);
        if (v != floor(v) || v < 0 || v >= (double)n)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s%s%s: expected one of the choices (index %g out of %zu)", ctx, dot,
                                  d->id, v, n);
        return EDDY_OK;
    }
    case EDDY_PARAM_INT:
        if (v != floor(v))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s%s: expected an integer, got %g",
                                  ctx, dot, d->id, v);
        /* fall through */
    case EDDY_PARAM_REAL:
        if (v < d->min || v > d->max)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s%s%s: %g is out of range [%g, %g]%s%s", ctx, dot, d->id, v,
                                  d->min, d->max, d->unit && *d->unit ? " " : "",
                                  d->unit ? d->unit : "");
        return EDDY_OK;
    }
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s%s: unknown parameter type %d", ctx,
                          dot, d->id, (int)d->type);
}

int eddy_param_table_check(const eddy_param_desc *table, size_t count, eddy_error *err)
{
    if (count && !table)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "parameter table is NULL but has %zu entries",
                              count);
    for (size_t i = 0; i < count; ++i) {
        const eddy_param_desc *d = &table[i];
        if (!d->id || !*d->id)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "parameter %zu has no id", i);
        for (const char *c = d->id; *c; ++c)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "parameter id '%s' is not [a-z0-9_]+", d->id);
        for (size_t j = 0; j < i; ++j)
            if (strcmp(table[j].id, d->id) == 0)
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "parameter '%s' is declared twice",
                                      d->id);
        if (d->type == EDDY_PARAM_ENUM && choice_count(d) == 0)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "enum parameter '%s' has no choices",
                                  d->id);
        if ((d->type == EDDY_PARAM_REAL || d->type == EDDY_PARAM_INT) &&
            (!(d->min <= d->max) || (!isnan(d->def) && (d->def < d->min || d->def > d->max))))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "parameter '%s': default %g is not inside [%g, %g]", d->id, d->def,
                                  d->min, d->max);
        if (!d->doc || !*d->doc)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "parameter '%s' has no doc", d->id);
    }
    return EDDY_OK;
}
