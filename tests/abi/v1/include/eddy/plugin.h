/*
 * eddy/plugin.h — the plugin ABI.
 *
 * A plugin is a shared object that exports exactly one symbol, `eddy_plugin_entry`, a function
 * returning a pointer to a const eddy_plugin_descriptor. The descriptor begins with the ABI version the
 * plugin was compiled against; everything else is reached through it. One shared object may provide
 * several components (solvers and grid backends), each with a unique id.
 *
 * Versioning rule: the host refuses a plugin whose ABI major differs from its own, whose minor is
 * newer than its own, or whose sizeof(eddy_real) differs. A minor bump may only append members at the
 * end of structs that begin with a `size` member, and add new functions; old plugins keep loading
 * because the host reads an optional member only if `offsetof(member) + sizeof(member) <= size`.
 *
 * Every callback returns 0 or a negative eddy_status and fills the eddy_error it is given; no callback
 * prints, exits, aborts or calls exit(). Callbacks are called from the host's main thread and may use
 * OpenMP inside; a solver instance is never used from two threads at once.
 */
#ifndef EDDY_PLUGIN_H
#define EDDY_PLUGIN_H

#include "defs.h"
#include "error.h"
#include "grid.h"
#include "params.h"
#include "world.h"

EDDY_BEGIN_DECLS

#define EDDY_ABI_MAJOR 1
#define EDDY_ABI_MINOR 0

/* The name of the one symbol a plugin exports. */
#define EDDY_PLUGIN_ENTRY_SYMBOL "eddy_plugin_entry"

/* An opaque solver instance, defined by each plugin. */
typedef struct eddy_solver eddy_solver;

/* Solver callbacks. Members up to and including `destroy` are required. */
typedef struct eddy_solver_vtable {
    size_t size; /* sizeof(eddy_solver_vtable) as compiled by the plugin */

    /*
     * Creates a solver for `world` with validated parameter values (one per table entry; NAN means
     * "derive from the scene"). May register particle fields and read materials. *out is owned by the
     * plugin until destroy(). `params` stays valid until destroy().
     */
    int (*create)(eddy_world *world, const eddy_param_values *params, eddy_solver **out,
                  eddy_error *err);

    /*
     * Advances the world by dt seconds: builds the grid as the method needs it, updates particle
     * fields, and reports phase times with eddy_world_add_phase_time(). The host advances
     * world->time and world->step afterwards. On error the world may be partially updated.
     */
    int (*step)(eddy_solver *solver, eddy_world *world, double dt, eddy_error *err);

    /* Frees the solver. NULL-safe. Never fails. */
    void (*destroy)(eddy_solver *solver);

    /* Optional: the largest stable time step for the current state (CFL, viscous and force limits),
     * in seconds, and a short static name of the limit that applies (e.g. "CFL"). NULL: no limit. */
    int (*max_dt)(eddy_solver *solver, const eddy_world *world, double *dt, const char **limit,
                  eddy_error *err);

    /* Optional, for checkpoints: serializes solver state that is not in particle fields into a
     * buffer allocated with malloc() (the host frees it), and restores it. NULL: no such state. */
    int (*save)(const eddy_solver *solver, void **data, size_t *size, eddy_error *err);
    int (*load)(eddy_solver *solver, const void *data, size_t size, eddy_error *err);

    /* Optional: computes the solver's derived fields (density, pressure, ...) for the current
     * positions without advancing time; may rebuild the grid. The host calls it once after create()
     * so that frame 0 and its diagnostics show the initial state. NULL: fields start as created. */
    int (*compute_fields)(eddy_solver *solver, eddy_world *world, eddy_error *err);
} eddy_solver_vtable;

typedef enum eddy_component_kind {
    EDDY_COMPONENT_SOLVER = 1,
    EDDY_COMPONENT_GRID = 2
} eddy_component_kind;

/* One component of a plugin. Static const data owned by the plugin. */
typedef struct eddy_component {
    size_t size;                  /* sizeof(eddy_component) as compiled by the plugin */
    eddy_component_kind kind;
    const char *id;               /* unique id used in scenes and on the command line: [a-z0-9_]+ */
    const char *version;          /* the component's own version, e.g. "1.0.0" */
    const char *description;      /* one line */
    const eddy_param_desc *params;/* parameter table (may be NULL when param_count is 0) */
    size_t param_count;
    const eddy_solver_vtable *solver;        /* kind SOLVER */
    const eddy_grid_backend_vtable *grid;    /* kind GRID */
} eddy_component;

/* What eddy_plugin_entry returns. The ABI version must stay the first two members forever. */
typedef struct eddy_plugin_descriptor {
    uint32_t abi_major;           /* EDDY_ABI_MAJOR at compile time */
    uint32_t abi_minor;           /* EDDY_ABI_MINOR at compile time */
    uint32_t real_size;           /* sizeof(eddy_real) at compile time */
    uint32_t component_count;
    const eddy_component *const *components; /* [component_count] */
    const char *name;             /* plugin name, for messages */
} eddy_plugin_descriptor;

/* Signature of the entry symbol. */
typedef const eddy_plugin_descriptor *(*eddy_plugin_entry_fn)(void);

/* Convenience for plugin authors: fills the version members of a descriptor initializer. */
#define EDDY_PLUGIN_DESCRIPTOR_HEADER EDDY_ABI_MAJOR, EDDY_ABI_MINOR, (uint32_t)sizeof(eddy_real)

EDDY_END_DECLS

#endif /* EDDY_PLUGIN_H */
