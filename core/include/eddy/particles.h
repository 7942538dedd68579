/*
 * eddy/particles.h — structure-of-arrays particle storage with named per-particle fields.
 *
 * Every per-particle quantity is a *field*: a name, a component count (1 for a scalar, 3 for a
 * vector), and one contiguous, EDDY_ALIGNMENT-aligned eddy_real array per component. Five fields are
 * built in and always present (position, velocity, density, pressure, mass); solvers and grids register the
 * extra fields they need (e.g. "acceleration" with 3 components, "lambda" with 1) through
 * eddy_particles_add_field(). The core allocates every field, permutes all of them whenever the grid
 * sorts the particles, writes all of them to output and checkpoints. A plugin must never keep a
 * per-particle array of its own: after a sort it would be out of order.
 *
 * Besides the real-number fields every particle has a stable 64-bit `id` (unique, never changes,
 * survives sorting and migration between processes), a `material` index into the world's material
 * table, and `flags` (owned or halo copy).
 *
 * Units: everything is stored in *simulation units* (Bullet-Fluids reference (2014) §1.1.1). The host
 * converts world-scale scene input (positions, container) to simulation units on load and back on
 * output. A 2D set is a slab of unit depth: masses are per unit depth (kg/m) and densities kg/m^3, as
 * in 3D (world.h).
 *
 * Edit generations: every field, and the particle layout (count, order, ids, materials, flags), has a
 * generation counter. A field's counts edits made *from outside the solver*: it moves only through
 * eddy_particles_touch (the host's write unmaps, world.h), never when a solver writes the arrays. The
 * layout's moves at every change of count or order, whoever makes it: eddy_particles_add (n > 0),
 * eddy_particles_set_ids, eddy_particles_gather (so also a grid build that moved a particle, or removed
 * one, including the solver's own builds) and a write unmap of EDDY_FIELD_LAYOUT. A solver that keeps
 * fields elsewhere (a GPU solver) compares them with the generations it last uploaded to know what
 * changed (world.h, map/unmap).
 *
 * Threads: every function that changes a set (init, free, reserve, add, add_field, touch, set_ids,
 * gather) is [main thread]: none may run concurrently with any other call on that set. The read-only
 * ones (find_field, field_count, field_name, field_components, field, generation, hash,
 * hash_continue, eddy_particle_is_halo) are [any thread] while no call changes the set. Reading and
 * writing the arrays from several threads is the caller's business (each thread its own range).
 *
 * Arguments: `p` must be a set initialized by eddy_particles_init, except where a function says it
 * accepts NULL (init refuses it; free, find_field, field_count, field_name, field_components, field,
 * generation and touch accept it); particle and field indices are not checked where a function does
 * not say so (eddy_particle_is_halo: i < count).
 */
#ifndef EDDY_PARTICLES_H
#define EDDY_PARTICLES_H

#include "defs.h"
#include "error.h"

EDDY_BEGIN_DECLS

/* Built-in field ids (indices into the field table). Registered fields follow. */
enum {
    EDDY_FIELD_POSITION = 0, /* 3 components, simulation units (m * simulation_scale) */
    EDDY_FIELD_VELOCITY = 1, /* 3 components, simulation units per second */
    EDDY_FIELD_DENSITY = 2,  /* 1 component, kg/m^3 in simulation units (in 2D too) */
    EDDY_FIELD_PRESSURE = 3, /* 1 component, Pa in simulation units (solver-defined) */
    EDDY_FIELD_MASS = 4,     /* 1 component, kg (per unit depth in 2D: kg/m); set from the material
                              * on creation */
    EDDY_BUILTIN_FIELD_COUNT = 5
};

#define EDDY_FIELD_NAME_MAX 32   /* including the terminating NUL */
#define EDDY_FIELD_MAX_COMPONENTS 9
#define EDDY_MAX_FIELDS 64

/* Per-particle flags (eddy_particles.flags, bitwise or). */
enum {
    /* A halo copy: a particle owned by another process (domain decomposition), kept here because it
     * lies within the kernel support of this process's subdomain. Solvers read halo particles as
     * neighbours but never update them: their fields arrive through eddy_world_refresh_fields()
     * (world.h). In a single process no particle carries this flag and halo_count is 0. */
    EDDY_PARTICLE_HALO = 1u << 0
};

/* Where the authoritative copy of a field lives (eddy_world_set_field_space, world.h). */
typedef enum eddy_memory_space {
    EDDY_MEMORY_HOST = 0,  /* host memory: the arrays below are the field */
    EDDY_MEMORY_DEVICE = 1 /* an accelerator's memory, kept by the solver; the arrays below are a host
                            * copy that eddy_world_map_field() brings up to date on demand */
} eddy_memory_space;

/*
 * The particle set. Between steps the solver owns it: a solver reads and writes the public arrays
 * directly inside its callbacks. The host reaches particles only through eddy_world_map_field()
 * (world.h), which keeps device-resident copies and edit generations right.
 *
 * The pointers are owned by the set and refreshed by the calls that reallocate (reserve, and add when
 * it grows the capacity; add_field and gather leave them as they are); never free or replace them, and
 * read them again after such a call. In 2D, z and vz exist and are kept at zero. Growth: begins with
 * its size; libeddy fills it (plugins only read this struct), and new members are appended at the end.
 */
typedef struct eddy_particles {
    size_t size;        /* sizeof(eddy_particles) as compiled into libeddy */
    size_t count;       /* live particles occupy indices [0, count): owned ones and halo copies */
    size_t halo_count;  /* how many of them carry EDDY_PARTICLE_HALO (0 in a single process) */
    size_t capacity;    /* allocated length of every array (a multiple of 16) */
    int dimensions;     /* 2 or 3 */
    eddy_real *x, *y, *z;   /* position components (field EDDY_FIELD_POSITION) */
    eddy_real *vx, *vy, *vz;/* velocity components (field EDDY_FIELD_VELOCITY) */
    eddy_real *density;     /* field EDDY_FIELD_DENSITY */
    eddy_real *pressure;    /* field EDDY_FIELD_PRESSURE */
    eddy_real *mass;        /* field EDDY_FIELD_MASS */
    uint64_t *id;       /* stable particle id, unique across all processes of a run */
    uint32_t *material; /* index into the world's material table */
    uint8_t *flags;     /* EDDY_PARTICLE_HALO, ...; 0 for an owned particle */
    struct eddy_particles_impl *impl; /* private to libeddy */
} eddy_particles;

/* Non-zero when particle i is a halo copy (owned by another process). [any thread] */
static inline int eddy_particle_is_halo(const eddy_particles *p, size_t i)
{
    return p->halo_count != 0 && (p->flags[i] & EDDY_PARTICLE_HALO) != 0;
}

/* Initializes an empty set for `dimensions` (2 or 3, else EDDY_ERR_INVALID_ARGUMENT) with the five
 * built-in fields and no storage (capacity 0: the public arrays are NULL until the first reserve or
 * add). The caller owns the struct (*p is overwritten: free a previous set first); release with
 * eddy_particles_free() (also safe after a failed init). EDDY_ERR_INVALID_ARGUMENT for a NULL p,
 * EDDY_ERR_OUT_OF_MEMORY. */
EDDY_API int eddy_particles_init(eddy_particles *p, int dimensions, eddy_error *err);

/* Frees every array. The struct may be initialized again afterwards. NULL-safe. */
EDDY_API void eddy_particles_free(eddy_particles *p);

/* Grows every array (and every registered field) to hold at least `capacity` particles (rounded up: doubling from the current
 * capacity, or from 16, a multiple of 16); a capacity at or below the current one does nothing. Existing
 * data is kept; the public pointers (and those of eddy_particles_field) change when it grows. On failure
 * (EDDY_ERR_OUT_OF_MEMORY) nothing changes. */
EDDY_API int eddy_particles_reserve(eddy_particles *p, size_t capacity, eddy_error *err);

/*
 * Appends `n` particles of material `material`. `positions` holds 3*n reals (x0,y0,z0,x1,...), copied
 * (in 2D each z is ignored and stored as 0; NULL only when n is 0); `velocities` likewise, or NULL for
 * rest. Every other field starts at zero (mass too: prefer eddy_world_add_particles(), which sets it
 * from the material). New ids continue from the largest id ever issued or set (eddy_particles_set_ids)
 * plus 1, so ids are never reused; new particles are owned (flags 0). Bumps the layout generation
 * when n > 0. Returns the index of the first new particle in *first (may be NULL). Errors, with the set
 * unchanged: EDDY_ERR_INVALID_ARGUMENT (positions NULL with n > 0; the 64-bit ids exhausted),
 * EDDY_ERR_OUT_OF_MEMORY (growing the arrays). `material` is not checked here (the world's add does).
 */
EDDY_API int eddy_particles_add(eddy_particles *p, size_t n, const eddy_real *positions,
                                const eddy_real *velocities, uint32_t material, size_t *first,
                                eddy_error *err);

/*
 * Registers a field, or finds it if a field with that name and component count already exists (so
 * create() may be called twice). `name` is copied. Names: 1 to EDDY_FIELD_NAME_MAX-1 characters of
 * [a-z0-9_]; components: 1 to EDDY_FIELD_MAX_COMPONENTS; at most EDDY_MAX_FIELDS fields in all. A bad
 * name or count, a different component count for an existing name, or a full table is
 * EDDY_ERR_INVALID_ARGUMENT; EDDY_ERR_OUT_OF_MEMORY; on error nothing changes. New fields are
 * zero-filled, with generation 1; the built-in arrays (x, ..., mass) do not move. On success *field (may
 * be NULL) receives the field id for eddy_particles_field(). Field ids stay valid for the set's life.
 */
EDDY_API int eddy_particles_add_field(eddy_particles *p, const char *name, int components,
                                      int *field, eddy_error *err);

/* Field id of `name`, or -1 if no such field (or p or name is NULL). */
EDDY_API int eddy_particles_find_field(const eddy_particles *p, const char *name);

/* Number of fields (built-in ones included); 0 for a NULL or uninitialized p. */
EDDY_API int eddy_particles_field_count(const eddy_particles *p);

/* Name and component count of a field id; NULL / 0 for an invalid id. The name pointer lives as long
 * as the particle set. */
EDDY_API const char *eddy_particles_field_name(const eddy_particles *p, int field);
EDDY_API int eddy_particles_field_components(const eddy_particles *p, int field);

/* The array of one component of a field (length capacity, valid for [0, count)), or NULL for an
 * invalid id or component, and while the set has no storage (capacity 0). Owned by the set; invalidated
 * by calls that may reallocate (reserve, add). For a field in device memory this is the host copy,
 * current only while mapped (world.h). */
EDDY_API eddy_real *eddy_particles_field(const eddy_particles *p, int field, int component);

/* Pseudo field id for the generation of the particle layout (count, order, ids, materials, flags). */
#define EDDY_FIELD_LAYOUT (-1)

/* Edit generation of a field, or of the layout for EDDY_FIELD_LAYOUT; 0 for an invalid id. Starts at
 * 1 when the field is registered. */
EDDY_API uint64_t eddy_particles_generation(const eddy_particles *p, int field);

/* Bumps the edit generation of a field (or of the layout); an invalid id is ignored. libeddy calls it
 * on a write unmap (add, set_ids and gather bump the layout's themselves); a solver never needs to. */
EDDY_API void eddy_particles_touch(eddy_particles *p, int field);

/* Replaces the ids of particles [0, count) (copied from `ids`, borrowed for the call; must stay unique)
 * and raises the next id to be issued above the largest, for hosts restoring a checkpoint or receiving
 * migrated particles. A repeated id is EDDY_ERR_INVALID_ARGUMENT naming both particles, ids NULL with
 * count > 0 too, EDDY_ERR_OUT_OF_MEMORY; the ids are left as they were on any error. Bumps the layout
 * generation (not for an empty set). */
EDDY_API int eddy_particles_set_ids(eddy_particles *p, const uint64_t *ids, eddy_error *err);

/*
 * Reorders and/or compacts every field, id, material and flag: new[i] = old[order[i]] for i <
 * new_count. `order` (borrowed) must contain distinct indices below count (the range is checked,
 * distinctness is not); new_count above count or an index out of range is EDDY_ERR_INVALID_ARGUMENT,
 * with nothing changed. In place: no array is reallocated. This is how the grid sort and particle
 * removal are applied; solvers rarely call it directly. Bumps the layout generation (not the fields':
 * their values per id are unchanged) and recounts halo_count. OpenMP-parallel.
 */
EDDY_API int eddy_particles_gather(eddy_particles *p, const uint32_t *order, size_t new_count,
                                   eddy_error *err);

/*
 * A 64-bit FNV-1a hash over every field, id and material of the owned particles, visited in
 * increasing id order, so that it does not depend on how the grid happened to sort or on which
 * process owns which particle. An id below 2^32 - 1 enters the hash as its 4 low bytes (so ABI 1.x
 * states hash as they did), any other as 0xffffffff followed by its 8 bytes; then the material, then
 * every component of every field in field-id order (flags are not hashed; halo copies are left out).
 * Equal hashes mean bit-identical states, up to the odds of a 64-bit collision. Reads host memory:
 * hosts map the fields first (world.h, eddy_world_hash). An id that occurs twice among the owned
 * particles is EDDY_ERR_INVALID_ARGUMENT, EDDY_ERR_OUT_OF_MEMORY for its scratch; *hash is written
 * only on success. [any thread], p not modified meanwhile.
 */
EDDY_API int eddy_particles_hash(const eddy_particles *p, uint64_t *hash, eddy_error *err);

/* The state of eddy_particles_hash before any particle: the FNV-1a offset basis. (ABI 2.3) */
#define EDDY_PARTICLES_HASH_INIT UINT64_C(0xcbf29ce484222325)

/*
 * eddy_particles_hash continued (ABI 2.3): *hash holds the state after every particle of lower id
 * (EDDY_PARTICLES_HASH_INIT for none) and becomes the state after p's owned particles too, visited
 * in increasing id order with the bytes eddy_particles_hash gives each. Sets split by id range
 * (every id of one set below every id of the next) therefore hash as their union: start from
 * EDDY_PARTICLES_HASH_INIT and continue over each set in id order. This is how a run on several
 * processes hashes its state without one process holding every particle (each process takes one id
 * range; docs/mpi.md). An id that occurs twice among p's owned particles is refused as by
 * eddy_particles_hash (so is running out of memory), and *hash is then unchanged. Memory: O(p's
 * owned particles). Reads host memory; [any thread], p not modified meanwhile.
 */
EDDY_API int eddy_particles_hash_continue(const eddy_particles *p, uint64_t *hash, eddy_error *err);

EDDY_END_DECLS

#endif /* EDDY_PARTICLES_H */
