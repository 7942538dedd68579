/*
 * eddy/particles.h — structure-of-arrays particle storage with named per-particle fields.
 *
 * Every per-particle quantity is a *field*: a name, a component count (1 for a scalar, 3 for a
 * vector), and one contiguous, EDDY_ALIGNMENT-aligned float array per component. Five fields are
 * built in and always present (position, velocity, density, pressure, mass); solvers and grids register the
 * extra fields they need (e.g. "acceleration" with 3 components, "lambda" with 1) through
 * eddy_particles_add_field(). The core allocates every field, permutes all of them whenever the grid
 * sorts the particles, writes all of them to output and checkpoints. A plugin must never keep a
 * per-particle array of its own: after a sort it would be out of order.
 *
 * Besides the float fields every particle has a stable `id` (unique, never changes, survives sorting)
 * and a `material` index into the world's material table.
 *
 * Units: everything is stored in *simulation units* (Bullet-Fluids reference (2014) §1.1.1). The host
 * converts world-scale scene input (positions, container) to simulation units on load and back on
 * output.
 *
 * Threads: none of these functions may be called concurrently on one eddy_particles. Reading and
 * writing the arrays from several threads is the caller's business (each OpenMP thread its own range).
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
    EDDY_FIELD_DENSITY = 2,  /* 1 component, kg / m^d in simulation units */
    EDDY_FIELD_PRESSURE = 3, /* 1 component, Pa in simulation units (solver-defined) */
    EDDY_FIELD_MASS = 4,     /* 1 component, kg (kg/m in 2D); set from the material on creation */
    EDDY_BUILTIN_FIELD_COUNT = 5
};

#define EDDY_FIELD_NAME_MAX 32   /* including the terminating NUL */
#define EDDY_FIELD_MAX_COMPONENTS 9
#define EDDY_MAX_FIELDS 64

/*
 * The particle set. The public members are read/write for solvers between calls of the functions
 * below; they are refreshed by any call that may reallocate (reserve, add, add_field, gather).
 * Never free or replace these pointers. In 2D, z and vz exist and are kept at zero.
 */
typedef struct eddy_particles {
    size_t count;       /* live particles occupy indices [0, count) */
    size_t capacity;    /* allocated length of every array (a multiple of 16) */
    int dimensions;     /* 2 or 3 */
    float *x, *y, *z;   /* position components (field EDDY_FIELD_POSITION) */
    float *vx, *vy, *vz;/* velocity components (field EDDY_FIELD_VELOCITY) */
    float *density;     /* field EDDY_FIELD_DENSITY */
    float *pressure;    /* field EDDY_FIELD_PRESSURE */
    float *mass;        /* field EDDY_FIELD_MASS */
    uint32_t *id;       /* stable particle id, unique within the set */
    uint32_t *material; /* index into the world's material table */
    struct eddy_particles_impl *impl; /* private to libeddy */
} eddy_particles;

/* Initializes an empty set for `dimensions` (2 or 3) with the five built-in fields. The caller owns
 * the struct; release with eddy_particles_free(). */
EDDY_API int eddy_particles_init(eddy_particles *p, int dimensions, eddy_error *err);

/* Frees every array. The struct may be initialized again afterwards. NULL-safe. */
EDDY_API void eddy_particles_free(eddy_particles *p);

/* Grows every array to hold at least `capacity` particles. Existing data is kept. */
EDDY_API int eddy_particles_reserve(eddy_particles *p, size_t capacity, eddy_error *err);

/*
 * Appends `n` particles of material `material`. `positions` holds 3*n floats (x0,y0,z0,x1,...);
 * `velocities` likewise, or NULL for rest. Every other field starts at zero (mass too: prefer
 * eddy_world_add_particles(), which sets it from the material). New ids continue from the
 * largest id ever issued, so ids are never reused. Returns the index of the first new particle in
 * *first (may be NULL).
 */
EDDY_API int eddy_particles_add(eddy_particles *p, size_t n, const float *positions,
                                const float *velocities, uint32_t material, size_t *first,
                                eddy_error *err);

/*
 * Registers a field, or finds it if a field with that name and component count already exists (so
 * create() may be called twice). A different component count for an existing name is an error.
 * Names: 1 to EDDY_FIELD_NAME_MAX-1 characters of [a-z0-9_]. New fields are zero-filled.
 * On success *field receives the field id for eddy_particles_field().
 */
EDDY_API int eddy_particles_add_field(eddy_particles *p, const char *name, int components,
                                      int *field, eddy_error *err);

/* Field id of `name`, or -1 if no such field. */
EDDY_API int eddy_particles_find_field(const eddy_particles *p, const char *name);

/* Number of fields (built-in ones included). */
EDDY_API int eddy_particles_field_count(const eddy_particles *p);

/* Name and component count of a field id; NULL / 0 for an invalid id. The name pointer lives as long
 * as the particle set. */
EDDY_API const char *eddy_particles_field_name(const eddy_particles *p, int field);
EDDY_API int eddy_particles_field_components(const eddy_particles *p, int field);

/* The float array of one component of a field (length capacity, valid for [0, count)), or NULL for
 * an invalid id or component. Owned by the set; invalidated by calls that may reallocate. */
EDDY_API float *eddy_particles_field(const eddy_particles *p, int field, int component);

/*
 * Reorders and/or compacts every field, id and material: new[i] = old[order[i]] for i < new_count.
 * `order` must contain distinct indices below count. This is how the grid sort and particle removal
 * are applied; solvers rarely call it directly.
 */
EDDY_API int eddy_particles_gather(eddy_particles *p, const uint32_t *order, size_t new_count,
                                   eddy_error *err);

/*
 * A 64-bit FNV-1a hash over every field, id and material, visited in increasing id order, so that it
 * does not depend on how the grid happened to sort. Equal hashes mean bit-identical states.
 */
EDDY_API int eddy_particles_hash(const eddy_particles *p, uint64_t *hash, eddy_error *err);

EDDY_END_DECLS

#endif /* EDDY_PARTICLES_H */
