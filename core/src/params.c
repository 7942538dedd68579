/*
 * Parameters as data (params.h): typed values, their defaults and checks, and the consistency check
 * of a component's table. Tables are read with the stride of their first entry (eddy_param_at), so a
 * table compiled against an older or newer minor of the ABI reads the same.
 */
#include <eddy/params.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The members every ABI 2.x entry has; def_string (and anything a later minor appends) is optional. */
#define PARAM_DESC_MIN_SIZE (offsetof(eddy_param_desc, choices) + sizeof(((eddy_param_desc *)0)->choices))

#define KNOWN_FLAGS ((uint32_t)(EDDY_PARAM_DERIVED | EDDY_PARAM_REQUIRED | EDDY_PARAM_FIXED_ON_RESUME))

const eddy_param_desc *eddy_param_at(const eddy_param_desc *table, size_t i)
{
    if (!table) return NULL;
    /* An entry too short to be an entry at all is stepped over with this build's size, so the table
     * check can still read the ids and refuse it by name. */
    const size_t stride = table->size >= PARAM_DESC_MIN_SIZE ? table->size : sizeof(eddy_param_desc);
    return (const eddy_param_desc *)((const char *)table + stride * i);
}

int eddy_param_find(const eddy_param_desc *table, size_t count, const char *id)
{
    if (!table || !id) return -1;
    for (size_t i = 0; i < count; ++i) {
        const eddy_param_desc *d = eddy_param_at(table, i);
        if (d->id && strcmp(d->id, id) == 0) return (int)i;
    }
    return -1;
}

const eddy_param_value *eddy_param_find_value(const eddy_param_values *values, const char *id)
{
    if (!values || !values->desc || !values->values) return NULL;
    int i = eddy_param_find(values->desc, values->count, id);
    return i < 0 ? NULL : &values->values[i];
}

double eddy_param_get(const eddy_param_values *values, const char *id, double fallback)
{
    const eddy_param_value *v = eddy_param_find_value(values, id);
    return v && v->is_set ? v->number : fallback;
}

static size_t choice_count(const eddy_param_desc *d)
{
    size_t n = 0;
    while (d->choices && d->choices[n]) ++n;
    return n;
}

/* def_string only where the entry's size covers it (an entry of an older minor lacks it). */
static const char *def_string(const eddy_param_desc *d)
{
    return EDDY_HAS_MEMBER(d, eddy_param_desc, def_string) ? d->def_string : NULL;
}

/* The integer view of a real default: a conversion of a value outside int64's range is undefined
 * (a vector default of 1e300 passes the table check), so such values read as 0. */
static int64_t integer_view(double x)
{
    return isfinite(x) && fabs(x) < 9.2e18 ? (int64_t)x : 0;
}

eddy_param_value eddy_param_default(const eddy_param_desc *d)
{
    eddy_param_value v;
    memset(&v, 0, sizeof v);
    v.count = 1;
    if (!d || (d->flags & EDDY_PARAM_DERIVED)) {
        v.is_set = 0;
        v.number = NAN;
        for (int k = 0; k < 3; ++k) v.vector[k] = NAN;
        return v;
    }
    v.is_set = 1;
    switch (d->type) {
    case EDDY_PARAM_STRING: {
        const char *s = def_string(d);
        v.string = s ? s : "";
        v.number = 0.0;
        return v;
    }
    case EDDY_PARAM_VECTOR:
        v.count = 3;
        for (int k = 0; k < 3; ++k) v.vector[k] = d->def;
        v.number = d->def;
        v.integer = integer_view(d->def);
        return v;
    case EDDY_PARAM_BOOL:
        v.number = d->def != 0.0 ? 1.0 : 0.0;
        v.integer = (int64_t)v.number;
        v.vector[0] = v.number;
        return v;
    case EDDY_PARAM_ENUM: {
        size_t n = choice_count(d);
        v.number = d->def;
        v.integer = integer_view(d->def);
        v.vector[0] = v.number;
        if (v.integer >= 0 && (size_t)v.integer < n) v.string = d->choices[v.integer];
        return v;
    }
    default:
        v.number = d->def;
        v.integer = integer_view(d->def);
        v.vector[0] = v.number;
        return v;
    }
}

/* "a, b, c" into buf (truncated with "..." when it does not fit). */
static const char *list_choices(const eddy_param_desc *d, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; d->choices && d->choices[i]; ++i) {
        int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", d->choices[i]);
        if (n < 0 || (size_t)n >= size - len) {
            if (size >= 4) memcpy(buf + size - 4, "...", 4);
            break;
        }
        len += (size_t)n;
    }
    return buf;
}

static int range_error(const eddy_param_desc *d, const char *ctx, const char *dot, const char *index,
                       double v, eddy_error *err)
{
    /* "1", the unit of a dimensionless number, would read as part of the range: "[0.01, 1] 1". */
    const int unit = d->unit && *d->unit && strcmp(d->unit, "1") != 0;
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s%s%s: %g is out of range [%g, %g]%s%s", ctx,
                          dot, d->id, index, v, d->min, d->max, unit ? " " : "", unit ? d->unit : "");
}

int eddy_param_check(const eddy_param_desc *d, const eddy_param_value *v, const char *context,
                     eddy_error *err)
{
    if (!d || !v)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%sparameter check: NULL %s",
                              context ? context : "", context && *context ? ": " : "",
                              d ? "value" : "descriptor");
    const char *ctx = context ? context : "";
    const char *dot = context && *context ? "." : "";
    const char *id = d->id ? d->id : "(unnamed)";
    if (!v->is_set) {
        if (d->flags & EDDY_PARAM_DERIVED) return EDDY_OK; /* the component derives it */
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s%s: expected a value (it has no derived default)",
                              ctx, dot, id);
    }
    switch (d->type) {
    case EDDY_PARAM_REAL:
    case EDDY_PARAM_INT: {
        const double x = v->number;
        if (!isfinite(x))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s%s: expected a finite number", ctx, dot,
                                  id);
        if (d->type == EDDY_PARAM_INT && x != floor(x))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s%s: expected an integer, got %g", ctx,
                                  dot, id, x);
        if (x < d->min || x > d->max) return range_error(d, ctx, dot, "", x, err);
        return EDDY_OK;
    }
    case EDDY_PARAM_BOOL:
        if (v->number != 0.0 && v->number != 1.0)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s%s: expected true or false", ctx, dot,
                                  id);
        return EDDY_OK;
    case EDDY_PARAM_ENUM: {
        const size_t n = choice_count(d);
        char names[512];
        if (v->integer < 0 || (uint64_t)v->integer >= n)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s%s%s: expected one of %s (index %lld out of %zu)", ctx, dot, id,
                                  list_choices(d, names, sizeof names), (long long)v->integer, n);
        if (v->string && strcmp(v->string, d->choices[v->integer]) != 0)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s%s%s: expected one of %s, got \"%s\" with index %lld (\"%s\")", ctx, dot,
                                  id, list_choices(d, names, sizeof names), v->string, (long long)v->integer,
                                  d->choices[v->integer]);
        return EDDY_OK;
    }
    case EDDY_PARAM_STRING: {
        const size_t len = v->string ? strlen(v->string) : 0;
        if (!((double)len <= d->max))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s%s%s: expected at most %g characters, got %zu", ctx, dot, id, d->max, len);
        return EDDY_OK;
    }
    case EDDY_PARAM_VECTOR:
        if (v->count < 1 || v->count > 3)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s%s%s: expected 1 to 3 components, got %d", ctx, dot, id, v->count);
        for (int k = 0; k < v->count; ++k) {
            char index[16];
            snprintf(index, sizeof index, "[%d]", k);
            if (!isfinite(v->vector[k]))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s%s%s: expected a finite number",
                                      ctx, dot, id, index);
            if (v->vector[k] < d->min || v->vector[k] > d->max)
                return range_error(d, ctx, dot, index, v->vector[k], err);
        }
        return EDDY_OK;
    }
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s%s: unknown parameter type %d", ctx, dot, id,
                          (int)d->type);
}

static int valid_id(const char *id)
{
    if (!id || !*id) return 0;
    for (const char *c = id; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return 0;
    return 1;
}

int eddy_param_table_check(const eddy_param_desc *table, size_t count, eddy_error *err)
{
    if (count && !table)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "parameter table is NULL but has %zu entries",
                              count);
    if (!count) return EDDY_OK;
    if (table->size < PARAM_DESC_MIN_SIZE)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "parameter table: entries of %zu bytes, below the %zu bytes of ABI 2.0 "
                              "(write them with the EDDY_PARAM_*_DESC macros, which set the size)",
                              table->size, (size_t)PARAM_DESC_MIN_SIZE);
    for (size_t i = 0; i < count; ++i) {
        const eddy_param_desc *d = eddy_param_at(table, i);
        if (d->size != table->size)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "parameter %zu: entry size %zu differs from the table's %zu", i, d->size,
                                  table->size);
        if (!d->id || !*d->id)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "parameter %zu has no id", i);
        if (!valid_id(d->id))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "parameter id '%s' is not [a-z0-9_]+", d->id);
        for (size_t j = 0; j < i; ++j)
            if (strcmp(eddy_param_at(table, j)->id, d->id) == 0)
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "parameter '%s' is declared twice",
                                      d->id);
        if (d->flags & ~KNOWN_FLAGS)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "parameter '%s': unknown flags 0x%x", d->id,
                                  (unsigned)(d->flags & ~KNOWN_FLAGS));
        const int derived = (d->flags & EDDY_PARAM_DERIVED) != 0;
        switch (d->type) {
        case EDDY_PARAM_REAL:
        case EDDY_PARAM_INT:
        case EDDY_PARAM_VECTOR:
            /* The range before the default: no default fits an empty range, and a derived parameter
             * has none, so "default ... is not inside" blamed the default for a range written wrong. */
            if (isnan(d->min) || isnan(d->max))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "parameter '%s': %s NaN (range [%g, %g]); give each bound a number "
                                      "(-INFINITY or INFINITY for none)",
                                      d->id, isnan(d->min) ? (isnan(d->max) ? "min and max are" : "min is")
                                                           : "max is",
                                      d->min, d->max);
            if (d->min > d->max)
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "parameter '%s': the range [%g, %g] is empty (min > max; are they swapped?)",
                                      d->id, d->min, d->max);
            if (!derived && !(d->def >= d->min && d->def <= d->max))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "parameter '%s': default %g is not inside [%g, %g]", d->id, d->def,
                                      d->min, d->max);
            if (d->type == EDDY_PARAM_INT && !derived && d->def != floor(d->def))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "parameter '%s': default %g of an integer parameter is not an integer",
                                      d->id, d->def);
            break;
        case EDDY_PARAM_BOOL:
            if (!derived && d->def != 0.0 && d->def != 1.0)
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "parameter '%s': default %g of a boolean parameter is not 0 or 1", d->id,
                                      d->def);
            break;
        case EDDY_PARAM_ENUM: {
            const size_t n = choice_count(d);
            if (n == 0)
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "enum parameter '%s' has no choices",
                                      d->id);
            if (!derived && !(d->def >= 0 && d->def < (double)n && d->def == floor(d->def)))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "enum parameter '%s': default index %g is not one of its %zu choices", d->id,
                                      d->def, n);
            break;
        }
        case EDDY_PARAM_STRING: {
            if (isnan(d->max))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "string parameter '%s': maximum length is NaN; give a number of characters",
                                      d->id);
            if (d->max < 0)
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "string parameter '%s': maximum length %g is negative", d->id, d->max);
            const char *s = def_string(d);
            if (s && !((double)strlen(s) <= d->max))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "string parameter '%s': default \"%s\" is longer than %g characters",
                                      d->id, s, d->max);
            break;
        }
        default:
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "parameter '%s': unknown type %d", d->id,
                                  (int)d->type);
        }
        if (!d->doc || !*d->doc)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "parameter '%s' has no doc", d->id);
    }
    return EDDY_OK;
}
