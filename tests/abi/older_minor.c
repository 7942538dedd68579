/*
 * A plugin built against an OLDER MINOR of ABI 2.
 *
 * 2.0 is the first 2.x, so no older 2.x headers exist to build against. What a plugin built against
 * one would hand the host is known, though: the same structs, each stopping before the members a later
 * minor appended, with their `size` members set to those smaller sizeofs (plugin.h: a minor only
 * appends at the end of structs that begin with `size`). The local struct definitions below are such
 * headers, as if
 *   - eddy_component had ended at `vtable` (no flags, no material parameter table),
 *   - eddy_solver_vtable had ended at `compute_fields` (no reduce),
 *   - eddy_param_desc had ended at `choices` (no def_string),
 * and the descriptor is 2.0's (every member of it up to `components` is required in any 2.x).
 *
 * The loader must take it, and its registry entry must read the missing members as NULL / 0. So that a
 * loader reading past a struct's size cannot pass by luck, every struct here is followed by non-zero
 * data where the host's larger struct would continue.
 *
 * Variants (for refusals the growth rule still makes): SHORT_COMPONENT (the component stops before
 * `vtable`), SHORT_PARAM (the parameter entries stop before `choices`), SHORT_DESCRIPTOR (the
 * descriptor stops before `components`).
 */
#include <eddy/eddy.h>

#include <stdlib.h>

#ifndef COMPONENT_ID
#define COMPONENT_ID "older_solver"
#endif

typedef struct older_param_desc {
    size_t size;
    const char *id;
    eddy_param_type type;
    uint32_t flags;
    double def;
    double min, max;
    const char *unit;
    const char *doc;
    const char *const *choices;
} older_param_desc;

typedef struct older_solver_vtable {
    size_t size;
    int (*create)(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err);
    int (*step)(eddy_solver *solver, eddy_world *world, double dt, eddy_error *err);
    void (*destroy)(eddy_solver *solver);
    int (*max_dt)(eddy_solver *solver, eddy_world *world, double *dt, const char **limit, eddy_error *err);
    int (*save)(const eddy_solver *solver, void **data, size_t *size, eddy_error *err);
    int (*load)(eddy_solver *solver, const void *data, size_t size, eddy_error *err);
    int (*compute_fields)(eddy_solver *solver, eddy_world *world, eddy_error *err);
} older_solver_vtable;

typedef struct older_component {
    size_t size;
    const char *interface_id;
    const char *id;
    const char *version;
    const char *description;
    const older_param_desc *params;
    size_t param_count;
    const void *vtable;
} older_component;

typedef struct older_plugin_descriptor {
    uint32_t abi_major;
    uint32_t abi_minor;
    uint32_t real_size;
    uint32_t size;
    const char *name;
    const char *version;
    int (*init)(const eddy_host *host, eddy_error *err);
    void (*deinit)(void);
    uint32_t component_count;
    const older_component *const *components;
} older_plugin_descriptor;

/* What a loader that read past `size` would find: never NULL, never zero. */
static int trailing_callback(eddy_solver *solver, eddy_world *world, eddy_step_stats *stats, eddy_error *err)
{
    (void)solver; (void)world; (void)stats; (void)err;
    return EDDY_ERR_UNSUPPORTED;
}

struct eddy_solver { int steps; };

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    (void)setup; (void)err;
    *out = calloc(1, sizeof **out);
    return *out ? EDDY_OK : EDDY_ERR_OUT_OF_MEMORY;
}

/* Counts steps and leaves the world alone (the loader test steps it without one). */
static int step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    (void)w; (void)dt; (void)err;
    s->steps++;
    return EDDY_OK;
}

static void destroy(eddy_solver *s) { free(s); }

/* Succeeds after exactly one step: the loader test calls create, step and this through the
 * registry's copy of the vtable. */
static int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    (void)w;
    if (s->steps != 1)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "expected 1 step, got %d", s->steps);
    return EDDY_OK;
}

static const char *const modes[] = {"fast", "exact", NULL};

#ifdef SHORT_PARAM
#define PARAM_SIZE offsetof(older_param_desc, choices)
#else
#define PARAM_SIZE sizeof(older_param_desc)
#endif

static const struct {
    older_param_desc table[3];
    const char *after;
} params = {
    {{PARAM_SIZE, "gain", EDDY_PARAM_REAL, 0, 0.25, 0.0, 1.0, "1", "A gain.", NULL},
     {PARAM_SIZE, "iterations", EDDY_PARAM_INT, 0, 4, 1, 100, "", "Solver iterations.", NULL},
     {PARAM_SIZE, "mode", EDDY_PARAM_ENUM, 0, 1, 0, 0, "", "Fast or exact.", modes}},
    "a def_string the older entries do not have",
};

static const struct {
    older_solver_vtable v;
    int (*after)(eddy_solver *, eddy_world *, eddy_step_stats *, eddy_error *);
} vtable = {
    {sizeof(older_solver_vtable), create, step, destroy, NULL, NULL, NULL, compute_fields},
    trailing_callback,
};

static const struct {
    older_component c;
    const void *after[3];
} component = {
    {
#ifdef SHORT_COMPONENT
        offsetof(older_component, vtable),
#else
        sizeof(older_component),
#endif
        EDDY_INTERFACE_SOLVER, COMPONENT_ID, "1.9.0", "a solver built against an older 2.x minor",
        params.table, 3, &vtable.v},
    {&params, &params, &params},
};

static const older_component *const components[] = {&component.c};

static const older_plugin_descriptor descriptor = {
    EDDY_ABI_MAJOR, EDDY_ABI_MINOR, sizeof(eddy_real),
#ifdef SHORT_DESCRIPTOR
    offsetof(older_plugin_descriptor, components),
#else
    sizeof(older_plugin_descriptor),
#endif
    "older_minor", "1.9.0", NULL, NULL, 1, components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void)
{
    return (const eddy_plugin_descriptor *)(const void *)&descriptor;
}
