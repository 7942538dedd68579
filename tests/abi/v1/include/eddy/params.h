/*
 * eddy/params.h — parameter descriptors: parameters as data.
 *
 * A component (solver or grid) declares its parameters as a static table of eddy_param_desc. The host
 * lists it (`eddy describe ID`), validates a scene's section for the component against it (unknown keys
 * and out-of-range values are errors naming the key and the valid ones) and only then creates the
 * component, handing it an eddy_param_values with one value per table entry, in table order.
 */
#ifndef EDDY_PARAMS_H
#define EDDY_PARAMS_H

#include "defs.h"
#include "error.h"

EDDY_BEGIN_DECLS

typedef enum eddy_param_type {
    EDDY_PARAM_REAL = 0, /* a real number in [min, max] */
    EDDY_PARAM_INT = 1,  /* an integer in [min, max] */
    EDDY_PARAM_BOOL = 2, /* true or false (stored as 1 or 0) */
    EDDY_PARAM_ENUM = 3  /* one of `choices` (stored as its index) */
} eddy_param_type;

/* One parameter. Tables are static const data owned by the plugin; the strings must outlive it. */
typedef struct eddy_param_desc {
    const char *id;      /* key in the scene: [a-z0-9_]+ */
    eddy_param_type type;
    double def;          /* default value; NAN means "derived from the scene" (doc says how) */
    double min, max;     /* inclusive range for REAL and INT */
    const char *unit;    /* e.g. "m^2/s", "1" for dimensionless, "" for none */
    const char *doc;     /* one or two sentences */
    const char *const *choices; /* ENUM only: NULL-terminated list of names */
} eddy_param_desc;

/* Validated values for one component, one per table entry, in table order. Owned by the host for the
 * lifetime of the component. A NAN value means "derived": the component computes it. */
typedef struct eddy_param_values {
    const eddy_param_desc *desc;
    size_t count;
    const double *values;
} eddy_param_values;

/* Value of parameter `id`; returns `fallback` if the table has no such id. O(count). */
EDDY_API double eddy_param_get(const eddy_param_values *values, const char *id, double fallback);

/* Index of `id` in a table, or -1. */
EDDY_API int eddy_param_find(const eddy_param_desc *table, size_t count, const char *id);

/*
 * Checks a value against its descriptor: integer-valued for INT, 0/1 for BOOL, a valid index for ENUM,
 * inside [min, max] for REAL and INT. On failure the message names the key (prefixed by `context`,
 * e.g. "solvers.sph_mueller") and the allowed range.
 */
EDDY_API int eddy_param_check(const eddy_param_desc *desc, double value, const char *context,
                              eddy_error *err);

/* Checks a whole table for internal consistency (unique ids, min <= def <= max, choices for ENUM).
 * The loader calls it on every component, so a broken table refuses the plugin. */
EDDY_API int eddy_param_table_check(const eddy_param_desc *table, size_t count, eddy_error *err);

EDDY_END_DECLS

#endif /* EDDY_PARAMS_H */
