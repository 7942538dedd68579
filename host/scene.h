/*
 * host/scene.h — scene files: JSON (cJSON) to a plain description the host turns into a world.
 *
 * Lengths that the seed calls "world scale" (fluid block geometry, container, domain, colliders,
 * particle radius and margin) are kept here in world units; eddy_scene_build_world() multiplies them
 * by the simulation scale. Everything else is simulation scale already.
 *
 * Errors name the file, the line and column when known, the dotted key path, and what was expected,
 * e.g. "scenes/x.json:12:5: materials[0].viscosity: expected a number >= 0, got -1".
 */
#ifndef EDDY_HOST_SCENE_H
#define EDDY_HOST_SCENE_H

#include <cjson/cJSON.h>
#include <eddy/eddy.h>

#define EDDY_SCENE_ID_MAX 64
#define EDDY_SCENE_PATH_MAX 4096

typedef enum eddy_fluid_shape { EDDY_FLUID_BOX = 0, EDDY_FLUID_SPHERE = 1 } eddy_fluid_shape;

/* A block of fluid particles on a lattice with the material's rest spacing times spacing_factor. */
typedef struct eddy_scene_fluid {
    int material;               /* index into materials */
    eddy_fluid_shape shape;
    float min[3], max[3];       /* box, world units */
    float center[3], radius;    /* sphere, world units */
    float velocity[3];          /* initial velocity, sim units / s */
    float spacing_factor;       /* lattice spacing / particle_dist, default 1 */
} eddy_scene_fluid;

typedef struct eddy_scene {
    char file[EDDY_SCENE_PATH_MAX];   /* path as given, for messages */
    char name[EDDY_SCENE_ID_MAX];
    char solver[EDDY_SCENE_ID_MAX];   /* component ids */
    char grid[EDDY_SCENE_ID_MAX];     /* default "cpu" */
    int dimensions;                   /* 2 or 3 */

    /* time */
    double dt;                        /* s, > 0 */
    double end_time;                  /* s, > 0 */
    double output_interval;           /* s, > 0; a frame at t = 0 and every interval */

    /* world (simulation scale unless noted) */
    float simulation_scale;           /* > 0, default 1 */
    float gravity[3];
    float smoothing_radius;           /* > 0 */
    int threads;                      /* 0 = OpenMP default */

    int has_container;
    float container_min[3], container_max[3];   /* world units */
    int has_domain;                   /* else the domain is the container */
    float domain_min[3], domain_max[3];         /* world units */
    int periodic[3];
    eddy_domain_policy out_of_domain;

    eddy_material *materials;         /* contact.radius / margin in world units here */
    size_t material_count;
    eddy_collider *colliders;         /* world units */
    size_t collider_count;
    eddy_scene_fluid *fluids;
    size_t fluid_count;

    char out_dir[EDDY_SCENE_PATH_MAX];/* default "out/<name>" */
    int write_vtk, write_csv;         /* output.format */

    double *collider_moving_until;    /* [collider_count] s: colliders[i] moves rigidly with its
                                       * velocity while t < this time, then stops; 0: static */
    cJSON *root;                      /* the parsed document (after --set), owned */
    char *text;                       /* the source text, for line:column lookups, owned */
} eddy_scene;

/*
 * Parses scene text. `file` names it in messages. `sets` are "dotted.path=value" overrides applied to
 * the JSON tree before it is interpreted (value parsed as JSON, else taken as a string); a path into a
 * missing object creates it, an array index must exist. On error the scene is left freed.
 */
int eddy_scene_parse(const char *text, const char *file, const char *const *sets, size_t set_count,
                     eddy_scene *scene, eddy_error *err);

/* Reads a file and parses it (eddy_scene_parse). */
int eddy_scene_load(const char *path, const char *const *sets, size_t set_count, eddy_scene *scene,
                    eddy_error *err);

/* Frees everything the scene owns. NULL-safe; the struct may be reused. */
void eddy_scene_free(eddy_scene *scene);

/*
 * Validates scene.solvers.<component id> (or scene.grids.<id>) against the component's parameter
 * table and fills `values` (param_count doubles, allocated by the caller) with the scene's values or
 * the defaults. Unknown keys, wrong types and out-of-range values are errors naming file:line:column,
 * the key path, and the valid keys or range.
 */
int eddy_scene_component_params(const eddy_scene *scene, const eddy_component *component,
                                double *values, eddy_error *err);

/* Line and column (1-based) of the value at a dotted key path ("materials[0].viscosity") in the
 * source text; 0 when unknown. */
void eddy_scene_locate(const eddy_scene *scene, const char *path, int *line, int *column);

/* Number of particles the scene's fluid blocks produce. */
size_t eddy_scene_count_particles(const eddy_scene *scene);

/*
 * Refills the scene at about `particle_target` particles (for `eddy bench`): every lattice spacing,
 * particle mass (keeping the rest density), the smoothing radius (keeping neighbors per particle),
 * the contact radius and margin, and dt are scaled by the same factor f = (current / target)^(1/d)
 * (mass by f^d).
 */
int eddy_scene_rescale(eddy_scene *scene, size_t particle_target, eddy_error *err);

/*
 * Builds a world from the scene: materials, container, colliders (converted to simulation units),
 * the fluid blocks filled on lattices (positions min + (i + 1/2) * spacing), and the grid over the
 * domain (the `domain` section, else the container widened by one smoothing radius on bounded axes)
 * with the given backend (NULL: CPU). The grid is not built yet.
 */
int eddy_scene_build_world(const eddy_scene *scene, const eddy_grid_backend_vtable *grid_backend,
                           eddy_world **out, eddy_error *err);

/* ------------------------------------------------------------------------------------------------ */
/* Sections read by other host modules ("probes", "render", "checkpoint"): scene.c accepts these    */
/* top-level keys and leaves their contents to the module, which reports errors through these        */
/* helpers so that every scene error reads the same: "FILE:LINE:COL: dotted.path: message".          */
/* ------------------------------------------------------------------------------------------------ */

/* The top-level member `key` of the parsed scene, or NULL when absent. Owned by the scene. */
const cJSON *eddy_scene_section(const eddy_scene *scene, const char *key);

/* Sets err (EDDY_ERR_INVALID_ARGUMENT) to "FILE[:LINE:COL]: PATH: <message>" with the position of
 * `node` (the value at `path`; may be NULL). Returns EDDY_ERR_INVALID_ARGUMENT. */
int eddy_scene_fail_at(const eddy_scene *scene, eddy_error *err, const char *path, const cJSON *node,
                       const char *fmt, ...) EDDY_PRINTF(5, 6);

/* "PATH: expected <expected>, got <description of node>". */
int eddy_scene_fail_expected(const eddy_scene *scene, eddy_error *err, const char *path,
                             const cJSON *node, const char *expected);

/* Refuses unknown and duplicated keys of `obj` (at `path`); `valid` is NULL-terminated. */
int eddy_scene_check_keys(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *const *valid);

/* Number member `key` of obj in [lo, hi] (infinite bounds allowed). Absent: an error naming the
 * range when `required`, else *out = def. *present (may be NULL) tells whether it was given. */
int eddy_scene_get_number(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *key, int required, double lo, double hi, double def, double *out,
                          int *present);

/* String member copied into out[size] (non-empty, shorter than size). Absent: error when
 * `required`, else `def` is copied (when not NULL). */
int eddy_scene_get_string(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *key, int required, const char *def, char *out, size_t size);

/* Vector member: an array of `dimensions` numbers (3 are accepted in 2D, z set to 0). Absent: error
 * when `required`, else `def` (NULL: zeros). Values are taken as they are (no unit conversion). */
int eddy_scene_get_vector(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *key, int required, const float def[3], float out[3]);

#endif /* EDDY_HOST_SCENE_H */
