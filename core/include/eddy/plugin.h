/*
 * eddy/plugin.h — the plugin ABI, version EDDY_ABI_MAJOR.EDDY_ABI_MINOR (currently 2.3).
 *
 * A plugin is a shared object that exports exactly one symbol, `eddy_plugin_entry`, a function
 * returning a pointer to a const eddy_plugin_descriptor. The descriptor begins with the ABI version the
 * plugin was compiled against; everything else is reached through it. One shared object may provide
 * several components. A component implements one *interface*, named by a string id (like CLAP's
 * extension ids): "eddy.solver.2", "eddy.grid.2", "eddy.writer.2", "eddy.probe.2", ... The host finds
 * components by interface and component id, so a new kind of component is a new interface id and a new
 * header, never an edit of a closed enum.
 *
 * Versioning rule: the host refuses a plugin whose ABI major differs from its own (a 1.x plugin is
 * told to rebuild against the 2.x headers), whose minor is newer than its own, or whose
 * sizeof(eddy_real) differs. Within a major, a minor bump only appends members at the end of structs
 * that begin with `size`, adds functions, enum values and interface ids. The host reads a member of a
 * plugin's struct only where that struct's size covers it (EDDY_HAS_MEMBER, defs.h), so plugins built
 * against an older minor keep loading; the loader refuses a struct too short for its required members.
 *
 * Every callback returns 0 or a negative eddy_status and fills the eddy_error it is given; no callback
 * prints, exits, aborts or calls exit(): it logs through the host's services (host.h).
 *
 * Threads: the host calls init/deinit and every component callback from its main thread, one at a
 * time per instance; callbacks may use OpenMP inside (with the host's thread count). Two instances of
 * one solver component may step concurrently (from different host threads) only if the component sets
 * EDDY_COMPONENT_CONCURRENT_INSTANCES; every in-tree solver does (they keep no process-wide state).
 */
#ifndef EDDY_PLUGIN_H
#define EDDY_PLUGIN_H

#include "defs.h"
#include "error.h"
#include "grid.h"
#include "host.h"
#include "params.h"
#include "world.h"

EDDY_BEGIN_DECLS

#define EDDY_ABI_MAJOR 2
#define EDDY_ABI_MINOR 3

/* The name of the one symbol a plugin exports. */
#define EDDY_PLUGIN_ENTRY_SYMBOL "eddy_plugin_entry"

/* Interface ids of the kinds of component the eddy host uses. The trailing number is the interface's
 * own major version: an incompatible change to an interface gets a new id, and a host may support
 * both for a while. */
#define EDDY_INTERFACE_SOLVER "eddy.solver.2"  /* eddy_solver_vtable (below) */
#define EDDY_INTERFACE_GRID "eddy.grid.2"      /* eddy_grid_backend_vtable (grid.h) */
#define EDDY_INTERFACE_WRITER "eddy.writer.2"  /* eddy_writer_vtable (observe.h) */
#define EDDY_INTERFACE_PROBE "eddy.probe.2"    /* eddy_probe_vtable (observe.h) */

/* Flags of a component (eddy_component.flags, bitwise or). */
enum {
    /* Instances keep no process-wide state: two of them may run their callbacks concurrently. */
    EDDY_COMPONENT_CONCURRENT_INSTANCES = 1u << 0,
    /* The solver supports domain decomposition: it updates owned particles only, reads halo copies as
     * neighbours, and calls eddy_world_refresh_fields() after each field neighbours read. A host
     * running several processes refuses a solver without this flag, naming it. */
    EDDY_COMPONENT_DECOMPOSABLE = 1u << 1,
    /* The solver keeps particle fields in device memory (eddy_world_set_field_space). */
    EDDY_COMPONENT_DEVICE_RESIDENT = 1u << 2,
    /* ABI 2.1. The solver's save() stores everything its create() derives from the particles (tait's
     * sound speed from the fluid's height, say), so a resume may create it on the checkpoint's world:
     * the host then builds no initial state at all (see `resuming` in eddy_solver_setup and save/load
     * below). Without this flag a resume keeps the 2.0 order: the scene's initial particles first. */
    EDDY_COMPONENT_STATE_COMPLETE = 1u << 3
};

/* --- Solvers (interface EDDY_INTERFACE_SOLVER) -------------------------------------------------- */

/* An opaque solver instance, defined by each plugin. */
typedef struct eddy_solver eddy_solver;

/* What a solver's create() receives. Owned by the host: `world`, `params` and `host` stay valid
 * until destroy(); the struct itself only during create(). */
typedef struct eddy_solver_setup {
    size_t size;                      /* sizeof(eddy_solver_setup) as compiled by the host */
    eddy_world *world;
    const eddy_param_values *params;  /* validated values of the component's table (never NULL) */
    const eddy_host *host;            /* services (host.h); never NULL */
    /* ABI 2.1 (read it only where setup->size covers it: EDDY_HAS_MEMBER). Non-zero for a solver
     * with EDDY_COMPONENT_STATE_COMPLETE that is being resumed: the world holds the checkpoint's
     * clock, colliders and built-in particle fields (positions, velocities, densities, pressures,
     * masses, ids, materials), not the scene's initial ones; the solver's own fields are restored after
     * create() registers them, then load() brings what save() stored. Derive nothing from the
     * particles here: it would describe the checkpoint's time, not the run's start. */
    int resuming;
} eddy_solver_setup;

/* Solver callbacks. Members up to and including `destroy` are required. [main thread] for all. */
typedef struct eddy_solver_vtable {
    size_t size; /* sizeof(eddy_solver_vtable) as compiled by the plugin */

    /*
     * Creates a solver for setup->world. Per-material values arrive in world->materials[m].params
     * (the component's material_params table). May register particle fields. On success *out is set
     * (the host passes it back unchanged to every other callback; it does not look inside, so a
     * solver without state may set NULL) and owned by the plugin until destroy(). A success that
     * leaves *out unset is refused (EDDY_ERR_PLUGIN, "create() returned success without setting
     * *out"): the host fills it with a marker first.
     */
    int (*create)(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err);

    /*
     * Advances the world by dt seconds (finite, > 0): builds the grid as the method needs it, updates
     * the fields of owned particles, calls eddy_world_refresh_fields() after each field neighbours
     * read, and reports phase times with eddy_world_add_phase_time(). The host advances world->time
     * and world->step afterwards. On error the world may be partially updated.
     */
    int (*step)(eddy_solver *solver, eddy_world *world, double dt, eddy_error *err);

    /* Frees the solver. NULL-safe. Never fails. */
    void (*destroy)(eddy_solver *solver);

    /* Optional: the largest stable time step for the current state (CFL, viscous and force limits),
     * in seconds (finite and > 0, or +inf for no limit; the host refuses anything else, naming the
     * solver), and a short static name of the limit that applies (e.g. "CFL"; left unset, the host's
     * messages call it "stability"). Use
     * eddy_world_stable_dt(): it reads the max speed from the step's cached reduction. */
    int (*max_dt)(eddy_solver *solver, eddy_world *world, double *dt, const char **limit,
                  eddy_error *err);

    /* Optional, for checkpoints: serializes solver state that is not in particle fields into a
     * buffer allocated with malloc() (the host frees it), and restores it. NULL: no such state.
     * save() sets *data to a buffer of *size > 0 bytes, even when it has nothing to store (a state.h
     * record carries at least its tag): the host takes an empty record for lost state (below), and
     * refuses one when it writes the checkpoint. A solver with save() but no load() is refused when its
     * plugin is loaded (every `eddy run` ends with a checkpoint). On failure it frees
     * what it allocated: the host frees *data only after a success.
     * load() gets the record as saved, read-only, valid during the call only and not necessarily
     * aligned (read it with memcpy, as state.h does). It is called only for a record of size > 0: a
     * checkpoint without one resumes without calling load() when the solver lacks save() or load(),
     * and is refused, naming the solver, when it has both; a record for a solver without load() is
     * refused (EDDY_ERR_UNSUPPORTED).
     * The resume order depends on EDDY_COMPONENT_STATE_COMPLETE:
     *   - with it (ABI 2.1): the host builds the world from the scene's materials, colliders and
     *     domain and the checkpoint's clock and particles (no fluid is seeded), calls create() with
     *     setup->resuming = 1, restores the solver's registered fields as saved, then calls load();
     *   - without it (ABI 2.0): the host builds the scene's initial world, calls create() on it, then
     *     restores the clock, the colliders and every particle field as saved (the count may shrink:
     *     particles removed during the run), then calls load().
     * In both, compute_fields() is not called: it would overwrite the restored state (derived fields
     * included: they are the state). save() therefore stores, besides the state between steps, every
     * value create() derived from the particles if the solver sets STATE_COMPLETE. state.h has helpers. */
    int (*save)(const eddy_solver *solver, void **data, size_t *size, eddy_error *err);
    int (*load)(eddy_solver *solver, const void *data, size_t size, eddy_error *err);

    /* Optional: computes the solver's derived fields (density, pressure, ...) for the current
     * positions without advancing time; may rebuild the grid. The host calls it once after create()
     * so that frame 0 and its diagnostics show the initial state. NULL: fields start as created. */
    int (*compute_fields)(eddy_solver *solver, eddy_world *world, eddy_error *err);

    /* Optional: fills *stats (world.h) for the state after a step, for solvers whose particles live in
     * device memory, so the host's per-step check needs no copy. NULL: the host uses the core's
     * parallel reduction over the host arrays (eddy_world_step_stats). Called after every successful
     * step, once world->step and world->time are advanced. The host prepares *stats: size is the
     * host's sizeof(eddy_step_stats), step is world->step, first_nonfinite SIZE_MAX and every other
     * member 0; the solver fills the figures over its owned particles (members its own header has;
     * it leaves size as set) and the host stores them with eddy_world_set_step_stats(). */
    int (*reduce)(eddy_solver *solver, eddy_world *world, eddy_step_stats *stats, eddy_error *err);
} eddy_solver_vtable;

/* --- Components and the plugin entry ------------------------------------------------------------ */

/* One component of a plugin. Static const data owned by the plugin, never written by the host. */
typedef struct eddy_component {
    size_t size;                  /* sizeof(eddy_component) as compiled by the plugin */
    const char *interface_id;     /* EDDY_INTERFACE_SOLVER, ... (any "[a-z0-9_.]+" for new kinds) */
    const char *id;               /* unique id used in scenes and on the command line: [a-z0-9_]+ */
    const char *version;          /* the component's own version, e.g. "2.0.0" */
    const char *description;      /* one line; NULL loads, and `eddy describe` shows "(no description)" */
    const eddy_param_desc *params;/* parameter table (may be NULL when param_count is 0) */
    size_t param_count;
    const void *vtable;           /* the interface's vtable; it begins with its own size */
    uint64_t flags;               /* EDDY_COMPONENT_* */
    /* Solvers: the per-material parameters the method reads (viscosity, stiffness, ...). A scene's
     * material keys are validated against the tables of the registered solvers; the running solver
     * receives its own table's values in world->materials[m].params. */
    const eddy_param_desc *material_params;
    size_t material_param_count;
} eddy_component;

/* What eddy_plugin_entry returns. The first three members stay first in every ABI version, so any
 * host can read them and refuse a plugin it cannot load by name and version. */
typedef struct eddy_plugin_descriptor {
    uint32_t abi_major;           /* EDDY_ABI_MAJOR at compile time */
    uint32_t abi_minor;           /* EDDY_ABI_MINOR at compile time */
    uint32_t real_size;           /* sizeof(eddy_real) at compile time */
    uint32_t size;                /* sizeof(eddy_plugin_descriptor) as compiled by the plugin */
    const char *name;             /* plugin name, for messages */
    const char *version;          /* the plugin's own version */
    /* Optional: called once after the ABI checks pass and before any component is used; where a
     * plugin sets up what its components share (a CUDA context, a log sink, tables). `host` stays
     * valid until after deinit(). A failure refuses the plugin with the error's message. */
    int (*init)(const eddy_host *host, eddy_error *err);
    /* Optional: called once before the shared object is unloaded, after every instance is destroyed;
     * only if init() succeeded (or is NULL). Never fails. */
    void (*deinit)(void);
    uint32_t component_count;
    const eddy_component *const *components; /* [component_count] */
} eddy_plugin_descriptor;

/* Signature of the entry symbol. */
typedef const eddy_plugin_descriptor *(*eddy_plugin_entry_fn)(void);

/* Convenience for plugin authors: the first four members of a descriptor initializer. */
#define EDDY_PLUGIN_DESCRIPTOR_HEADER \
    EDDY_ABI_MAJOR, EDDY_ABI_MINOR, (uint32_t)sizeof(eddy_real), (uint32_t)sizeof(eddy_plugin_descriptor)

EDDY_END_DECLS

#endif /* EDDY_PLUGIN_H */
