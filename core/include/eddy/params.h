/*
 * eddy/params.h — parameters as data (ABI 2.0).
 *
 * A component declares its parameters as a static table of eddy_param_desc; a solver may declare a
 * second table of per-material parameters (plugin.h, eddy_component.material_params). The host lists
 * them (`eddy describe ID`), validates a scene's section against them (unknown keys, wrong types and
 * out-of-range values are errors that name the key and what is allowed) and only then creates the
 * component, handing it an eddy_param_values with one typed value per table entry, in table order.
 *
 * Growth: eddy_param_desc begins with its size, and the host steps through a table with the stride of
 * its first entry (eddy_param_at), so a table compiled against an older minor stays readable. Write
 * entries with the EDDY_PARAM_* initializer macros below, which fill the size.
 *
 * Threads: every function here is pure. [any thread]
 */
#ifndef EDDY_PARAMS_H
#define EDDY_PARAMS_H

#include "defs.h"
#include "error.h"

EDDY_BEGIN_DECLS

typedef enum eddy_param_type {
    EDDY_PARAM_REAL = 0,   /* a real number in [min, max] */
    EDDY_PARAM_INT = 1,    /* an integer in [min, max] (JSON number without fraction) */
    EDDY_PARAM_BOOL = 2,   /* true or false */
    EDDY_PARAM_ENUM = 3,   /* one of `choices`, given by name */
    EDDY_PARAM_STRING = 4, /* free text (a file name, a label); max is the longest length allowed, in
                            * bytes (strlen: a non-ASCII UTF-8 character counts 2 to 4), NUL excluded */
    EDDY_PARAM_VECTOR = 5  /* an array of 1 to 3 reals, each in [min, max] (a point, a direction) */
} eddy_param_type;

/* Flags of a parameter (eddy_param_desc.flags, bitwise or). */
enum {
    /* The component derives the value from the scene when the scene does not give one (the doc says
     * how); the default is then unset (eddy_param_value.is_set = 0, number NAN). */
    EDDY_PARAM_DERIVED = 1u << 0,
    /* The scene must give the value: a missing key is an error naming it. */
    EDDY_PARAM_REQUIRED = 1u << 1,
    /* A resumed run keeps the checkpoint's value; `eddy describe` marks the parameter "fixed on resume".
     * (`eddy resume` takes no `--set` at all, so no host check depends on the flag.) */
    EDDY_PARAM_FIXED_ON_RESUME = 1u << 2
};

/* One parameter. Tables are static const data owned by the plugin; the strings must outlive it. */
typedef struct eddy_param_desc {
    size_t size;         /* sizeof(eddy_param_desc) as compiled by the component */
    const char *id;      /* key in the scene: [a-z0-9_]+ */
    eddy_param_type type;
    uint32_t flags;      /* EDDY_PARAM_DERIVED, ... */
    double def;          /* default: REAL, INT, BOOL (0/1), ENUM (index into choices), VECTOR (every
                          * component); ignored for STRING and when EDDY_PARAM_DERIVED is set */
    double min, max;     /* inclusive range: REAL, INT and each VECTOR component; STRING: max length in
                          * bytes (strlen) */
    const char *unit;    /* e.g. "m^2/s", "1" for dimensionless, "" for none */
    const char *doc;     /* one or two sentences */
    const char *const *choices;  /* ENUM only: NULL-terminated list of names */
    const char *def_string;      /* STRING only: the default text (may be NULL: empty) */
} eddy_param_desc;

/* Initializers for table entries. They name every member, in declaration order and without
 * designators, so that they compile unchanged as C (C99 and later) and as C++ (C++11 and later) with
 * -Wall -Wextra -pedantic: C++ before C++20 has no designated initializers, and C++20 warns about
 * members a designated list leaves out (-Wmissing-field-initializers). The order is the ABI's own. */
#define EDDY_PARAM_DESC_ALL_(id_, type_, flags_, def_, min_, max_, unit_, doc_, choices_, def_string_) \
    {sizeof(eddy_param_desc), (id_), (type_), (flags_), (def_), (min_), (max_), (unit_), (doc_), \
     (choices_), (def_string_)}
#define EDDY_PARAM_REAL_DESC(id_, def_, min_, max_, unit_, doc_) \
    EDDY_PARAM_DESC_ALL_(id_, EDDY_PARAM_REAL, 0u, def_, min_, max_, unit_, doc_, NULL, NULL)
#define EDDY_PARAM_DERIVED_REAL_DESC(id_, min_, max_, unit_, doc_) \
    EDDY_PARAM_DESC_ALL_(id_, EDDY_PARAM_REAL, EDDY_PARAM_DERIVED, 0.0, min_, max_, unit_, doc_, NULL, NULL)
#define EDDY_PARAM_INT_DESC(id_, def_, min_, max_, unit_, doc_) \
    EDDY_PARAM_DESC_ALL_(id_, EDDY_PARAM_INT, 0u, def_, min_, max_, unit_, doc_, NULL, NULL)
#define EDDY_PARAM_BOOL_DESC(id_, def_, doc_) \
    EDDY_PARAM_DESC_ALL_(id_, EDDY_PARAM_BOOL, 0u, def_, 0, 1, "", doc_, NULL, NULL)
#define EDDY_PARAM_ENUM_DESC(id_, def_index_, choices_, doc_) \
    EDDY_PARAM_DESC_ALL_(id_, EDDY_PARAM_ENUM, 0u, def_index_, 0, 0, "", doc_, choices_, NULL)
#define EDDY_PARAM_STRING_DESC(id_, def_string_, max_len_, doc_) \
    EDDY_PARAM_DESC_ALL_(id_, EDDY_PARAM_STRING, 0u, 0, 0, max_len_, "", doc_, NULL, def_string_)
#define EDDY_PARAM_VECTOR_DESC(id_, def_, min_, max_, unit_, doc_) \
    EDDY_PARAM_DESC_ALL_(id_, EDDY_PARAM_VECTOR, 0u, def_, min_, max_, unit_, doc_, NULL, NULL)

/* One validated value. Every member is filled for every type, so reading the wrong one is harmless:
 *   REAL    number
 *   INT     number (an exact integer) and integer
 *   BOOL    number 0 or 1, integer likewise
 *   ENUM    integer: the index into choices; number the same; string: the choice's name
 *   STRING  string (owned by the host, valid as long as the values)
 *   VECTOR  vector[0..count-1]; number = vector[0]; count 1 to 3 (components given)
 * Unset DERIVED values have is_set 0, number NAN, string NULL. */
typedef struct eddy_param_value {
    int is_set;          /* 1 when the scene gave it or a default applied; 0 for an unset DERIVED one */
    int count;           /* VECTOR: components given (1 to 3); 1 otherwise */
    double number;
    int64_t integer;
    const char *string;
    double vector[3];
} eddy_param_value;

/* Validated values for one component (or one material), one per table entry, in table order. Owned by
 * the host for the lifetime of the component. */
typedef struct eddy_param_values {
    size_t size;                  /* sizeof(eddy_param_values) as compiled by the host */
    const eddy_param_desc *desc;  /* the table the values follow (stride desc[0].size) */
    size_t count;
    const eddy_param_value *values; /* [count] */
} eddy_param_values;

/* Entry i of a table, stepping with the stride of the table's first entry (see Growth above; a first
 * entry too short to cover `choices` steps with this build's sizeof). No bounds check: i < the
 * table's count. NULL for a NULL table. */
EDDY_API const eddy_param_desc *eddy_param_at(const eddy_param_desc *table, size_t i);

/* The number value of parameter `id` (eddy_param_value.number); `fallback` when values (or its desc
 * or values member) is NULL, the table has no such id, or the value is unset. O(count). The
 * lower-level lookup: for a solver's material parameters eddy_material_param (world.h) supplies the
 * table entry's default itself. */
EDDY_API double eddy_param_get(const eddy_param_values *values, const char *id, double fallback);

/* The value of parameter `id`, or NULL when values (or its desc or values member) or id is NULL or the
 * table has no such id. O(count). The pointer points into values->values (owned like them). */
EDDY_API const eddy_param_value *eddy_param_find_value(const eddy_param_values *values, const char *id);

/* Index of `id` among the first `count` entries of a table, stepping with the stride of its first
 * entry (eddy_param_at), so a table compiled against another minor is searched alike; -1 when absent
 * or when table or id is NULL. O(count). */
EDDY_API int eddy_param_find(const eddy_param_desc *table, size_t count, const char *id);

/* The default value of an entry, by value (DERIVED, or desc NULL: unset, number and vector NAN).
 * STRING defaults point into the table ("" without def_string); VECTOR defaults have 3 components, each
 * `def`; BOOL is 0 or 1; ENUM's string is its choice's name. */
EDDY_API eddy_param_value eddy_param_default(const eddy_param_desc *desc);

/*
 * Checks a value against its descriptor: integer-valued for INT, 0/1 for BOOL, a valid index for
 * ENUM (and a string, where set, equal to its name), finite and inside [min, max] for REAL, INT and
 * each VECTOR component, no longer than max bytes for STRING, 1 to 3 components for VECTOR; an unset
 * value passes only for a DERIVED entry. Returns 0, or EDDY_ERR_INVALID_ARGUMENT (also for a NULL desc
 * or value, or an unknown type) with a message that names the key (prefixed by `context`, e.g.
 * "solvers.sph_mueller"; NULL: none) and what is allowed.
 */
EDDY_API int eddy_param_check(const eddy_param_desc *desc, const eddy_param_value *value,
                              const char *context, eddy_error *err);

/* Checks a whole table for internal consistency: entry sizes (at least the 2.0 size, all equal), ids
 * of [a-z0-9_]+ and unique, known types and flags, min <= max and min <= def <= max (an integer for
 * INT, 0/1 for BOOL; not for DERIVED), choices for ENUM with a default index among them, a
 * non-negative max length for STRING with a default no longer, and a non-empty doc for every entry.
 * Returns 0 (also for count 0), or EDDY_ERR_INVALID_ARGUMENT naming the entry. The loader calls it on
 * every table of every component, so a broken table refuses the plugin. */
EDDY_API int eddy_param_table_check(const eddy_param_desc *table, size_t count, eddy_error *err);

EDDY_END_DECLS

#endif /* EDDY_PARAMS_H */
