/*
 * host/scene/scene.h — scene files: JSON (cJSON) to a plain description the host turns into a world.
 *
 * Lengths that the Bullet-Fluids reference (2014) §1.1.1 calls "world scale" (fluid block geometry,
 * container, domain, colliders, particle radius and margin) are kept here in world units;
 * eddy_scene_build_world() multiplies them by the simulation scale. Everything else is simulation scale
 * already.
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
#define EDDY_SCENE_FILE_MAX (256 << 20) /* bytes of a scene document read from a file or pipe */
#define EDDY_SCENE_FORMAT_MAX 16

typedef struct eddy_scene_replaced eddy_scene_replaced;
typedef struct eddy_scene_set_origin eddy_scene_set_origin;

typedef enum eddy_fluid_shape { EDDY_FLUID_BOX = 0, EDDY_FLUID_SPHERE = 1 } eddy_fluid_shape;

/* A block of fluid particles on a lattice with the material's rest spacing times spacing_factor. */
typedef struct eddy_scene_fluid {
    int material;               /* index into materials */
    eddy_fluid_shape shape;
    eddy_real min[3], max[3];   /* box, world units */
    eddy_real center[3], radius;/* sphere, world units */
    eddy_real velocity[3];      /* initial velocity, sim units / s */
    eddy_real spacing_factor;   /* lattice spacing / particle_dist, default 1 */
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
    double min_dt_fraction;           /* [0, 1); default 1e-3: the run stops as unstable when the solver's
                                       * limit falls below this fraction of its first step (0: never) */

    /* world (simulation scale unless noted) */
    eddy_real simulation_scale;       /* > 0, default 1 */
    eddy_real gravity[3];
    eddy_real smoothing_radius;       /* > 0 */
    int threads;                      /* 0 = OpenMP default */

    int has_container;
    eddy_real container_min[3], container_max[3]; /* world units */
    int has_domain;                   /* else the domain is the container */
    eddy_real domain_min[3], domain_max[3];       /* world units */
    int periodic[3];
    eddy_domain_policy out_of_domain;

    /* The generic members of each material (name, rest density, mass, particle_dist, contact with
     * radius / margin in world units here). `params` is empty in the scene: the per-material values
     * belong to the running solver's table and are resolved when the world is built
     * (eddy_scene_material_params, eddy_scene_build_world). */
    eddy_material *materials;
    size_t material_count;
    eddy_collider *colliders;         /* world units */
    size_t collider_count;
    eddy_scene_fluid *fluids;
    size_t fluid_count;

    char out_dir[EDDY_SCENE_PATH_MAX];/* default "out/<name>" */
    /* output.format: writer component ids (EDDY_INTERFACE_WRITER) in the order given, each once;
     * default {"vtk"}; none for an empty list. Any [a-z0-9_]+ id is read here; whether a writer of
     * that id is registered is checked by eddy_scene_check_components. */
    char formats[EDDY_SCENE_FORMAT_MAX][EDDY_SCENE_ID_MAX];
    size_t format_count;
    /* output.overlap: the built-in frame writers run on a writer thread while the run steps on
     * (host/observe/output.h); default true. */
    int output_overlap;

    double *collider_moving_until;    /* [collider_count] s: colliders[i] moves rigidly with its
                                       * velocity while t < this time, then stops; 0: static */
    cJSON *root;                      /* the parsed document (after --set), owned */
    char *text;                       /* the source text, for line:column lookups, owned */
    /* The file as written (eddy_scene_parse): its document before any override, interpreted as far as
     * its first error. NULL when no override replaces a value. Owned; its text is the scene's. Read by
     * eddy_scene_check_written. */
    struct eddy_scene *written;
    eddy_scene_replaced *replaced;    /* in `written`: the values the overrides replace (scene/) */
    /* The values the overrides put into the tree, each with its override's text, so that an error in
     * one names the --set that gave it: the file never held it (scene/). Owned. */
    eddy_scene_set_origin *set_origins;
    size_t set_origin_count;
    /* `dimensions` as the text gives it, before the overrides (2 or 3; 3 when absent or not 2): a
     * position's z in 2D is ignored in a 2D text, refused in a 3D one made 2D (scene/). */
    int text_dimensions;
} eddy_scene;

/*
 * Parses scene text. `file` names it in messages. `sets` are "dotted.path=value" overrides applied to
 * the JSON tree before it is interpreted (value parsed as JSON, else taken as a string); a path into a
 * missing object creates it, an array index must exist. A value the overrides replace is checked as
 * written: when one replaces a value of the text, the text as written (no override in it) is
 * interpreted first, into scene->written, and an error there that points
 * at a replaced value (or into one) is the error, "FILE:LINE:COL: ..." as without the overrides. An
 * error that points elsewhere is left to the overrides' values, which are interpreted next. An error in
 * a value an override put in names the override instead of the file ("--set 'PATH=VALUE': KEY: ...").
 * On error the scene is left freed.
 */
int eddy_scene_parse(const char *text, const char *file, const char *const *sets, size_t set_count,
                     eddy_scene *scene, eddy_error *err);

/* The form of one override, before any scene is read: "PATH=VALUE" with a non-empty key path like
 * a.b[2].c. EDDY_OK, or EDDY_ERR_INVALID_ARGUMENT with the message eddy_scene_parse would give
 * ("--set 'foo': expected PATH=VALUE, got no '='"), so a command line can refuse it as such. */
int eddy_scene_check_set(const char *set, eddy_error *err);

/*
 * Whether the override `set` ("PATH=VALUE", valid) can change a run of `scene` with the solver
 * component `solver` (NULL: no solver is known; nothing then counts as unused) and the scene's grid:
 * 0 when it cannot, with `why` (n bytes) saying so, else 1. Such overrides are valid (a scene carries
 * every method's settings, so that solvers are swapped without editing it) and silently ignored:
 *   - solvers.ID... of another solver than `solver` ("the run's solver is 'pbf'");
 *   - grids.ID... of another grid than the scene's;
 *   - materials[i].KEY... of a key that another solver of the registry `reg` declares and `solver`
 *     does not ("solver 'pbf' does not read it"; a key no solver declares is the scene's error).
 * The caller (a command) warns: a test's setting meant for one solver did nothing for another.
 */
int eddy_scene_set_has_effect(const eddy_scene *scene, const eddy_registry *reg, const eddy_component *solver,
                              const char *set, char *why, size_t n);

/* Reads a file and parses it (eddy_scene_parse). */
int eddy_scene_load(const char *path, const char *const *sets, size_t set_count, eddy_scene *scene,
                    eddy_error *err);

/* Frees everything the scene owns. NULL-safe; the struct may be reused. */
void eddy_scene_free(eddy_scene *scene);

/* Non-zero when output.format names writer `id`. */
int eddy_scene_has_format(const eddy_scene *scene, const char *id);

/*
 * Validates the members of `obj` (the object at dotted `path`, for messages; NULL: every value its
 * default) against a parameter table (stepped with eddy_param_at) and fills values[count], in table
 * order: the scene's value, else the default; an absent DERIVED one (or null) unset (is_set 0, number
 * NAN); an absent REQUIRED one is an error "PATH.KEY: missing required key, expected ..." at obj.
 * `host_keys` (NULL-terminated, may be NULL) are keys the caller reads itself: allowed, skipped, and
 * listed first in "unknown key, expected one of: ..." messages. STRING values point into the scene's
 * document or the table. Types (params.h): REAL and INT a number in [min, max] (INT without fraction),
 * BOOL true/false, ENUM one of the choices by name (integer = index, string = the name), STRING a
 * string of at most max characters, VECTOR an array of 1 to 3 numbers each in [min, max]. Errors read
 * "FILE:LINE:COL: PATH.KEY: ..." like every scene error; a value outside its range reads
 * "PATH.KEY: 1.5 is out of range [0, 1] UNIT" (the wording of eddy_param_check).
 */
int eddy_scene_param_values(const eddy_scene *scene, const cJSON *obj, const char *path,
                            const eddy_param_desc *table, size_t count, const char *const *host_keys,
                            eddy_param_value *values, eddy_error *err);

/*
 * Validates the scene's section of a component against its parameter table
 * (eddy_scene_param_values): solvers.<id> (EDDY_INTERFACE_SOLVER), grids.<id> (EDDY_INTERFACE_GRID) or
 * output.writers.<id> (EDDY_INTERFACE_WRITER); no section means every default. Fills `values`
 * (component->param_count entries, allocated by the caller; may be NULL when there are none) with one
 * typed value per table entry. `out` (may be NULL) is set on success to {sizeof(eddy_param_values),
 * component->params, param_count, values}, what create() receives. STRING values point into the
 * scene's JSON tree or the component's table: keep both alive as long as the values. The section of
 * the file as written is checked first (eddy_scene_check_written).
 */
int eddy_scene_component_params(const eddy_scene *scene, const eddy_component *component,
                                eddy_param_value *values, eddy_param_values *out, eddy_error *err);

/*
 * The component ids the scene names must be registered: every solvers.<id> section a solver, every
 * grids.<id> section a grid, every output.writers.<id> section a writer ("FILE:L:C: solvers.sph_muller:
 * unknown solver 'sph_muller', expected one of the registered solvers: pbf, sph_mueller, ..."), and,
 * when the registry holds any writer, every output.format entry a writer ("output.format[1]: expected
 * \"vtk\" or \"csv\", got \"png\""). Sections of other registered components are not looked at: one
 * scene carries tuned sections for several solvers. eddy_scene_build_world calls it when given a
 * registry; `reg` NULL checks nothing.
 */
int eddy_scene_check_components(const eddy_scene *scene, const eddy_registry *reg, eddy_error *err);

/*
 * The per-material parameters of material `material` for the running `solver` (its component's
 * material_params table, read with eddy_param_at). A key of materials[i] is valid when it is a
 * generic key (name, rest_density, particle_mass, particle_spacing, particle_radius, particle_margin,
 * restitution, friction, erp) or declared by the material table of ANY solver in `reg` (or of
 * `solver`; `reg` may be NULL). Values of keys in the running solver's table are validated against it
 * (FILE:LINE:COL: materials[i].key: expected ..., got ...) and stored in values[], defaults for the
 * keys the scene omits; keys that only other solvers declare are accepted and ignored, so one scene
 * runs with every solver; a key no solver declares is an error listing the valid keys. `values` holds
 * solver->material_param_count entries (may be NULL when 0, or when `solver` is NULL: then only the
 * keys are checked).
 */
int eddy_scene_material_params(const eddy_scene *scene, const eddy_registry *reg,
                               const eddy_component *solver, size_t material, eddy_param_value *values,
                               eddy_error *err);

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

/* What building a world needs besides the scene. Every member may be NULL. */
typedef struct eddy_scene_build {
    const eddy_registry *registry;        /* the registered solvers, whose material tables make the
                                           * valid material keys (NULL: only `solver`'s) */
    const eddy_component *solver;         /* the running solver: its material_params values go into
                                           * world->materials[m].params (NULL: none) */
    const eddy_component *grid;           /* the grid component (EDDY_INTERFACE_GRID; NULL: the CPU grid) */
    const eddy_param_values *grid_params; /* its validated values (eddy_scene_component_params) */
    const eddy_host *host;                /* set on the world before the grid is created (NULL: silent) */
    /* Puts particles into the world instead of the scene's fluid blocks (NULL: the fluid blocks): a
     * resume fills it from the checkpoint (host/session/checkpoint.h), so nothing of the initial state
     * is seeded. Called after the materials and colliders are added, before the grid is created
     * (whose cell cap counts the particles). */
    int (*fill)(void *user, eddy_world *w, eddy_error *err);
    void *fill_user;
} eddy_scene_build;

/*
 * Builds a world from the scene: the host services, the component sections checked against the
 * registry (eddy_scene_check_components, when given one), materials with the running solver's values
 * (eddy_scene_material_params; those of the file as written checked first, eddy_scene_check_written),
 * container, colliders (converted to simulation units), the fluid blocks filled on lattices
 * (positions min + (i + 1/2) * spacing; or by with->fill), and the grid over the domain (the `domain`
 * section, else the container widened by one smoothing radius on bounded axes) with the grid
 * component's backend and parameters (eddy_world_init_grid_with). The grid is not built yet. `with`
 * may be NULL (CPU grid, no solver).
 */
int eddy_scene_build_world(const eddy_scene *scene, const eddy_scene_build *with, eddy_world **out,
                           eddy_error *err);

/* ------------------------------------------------------------------------------------------------ */
/* Sections read by other host modules ("probes", "render", "checkpoint"): scene.c accepts these    */
/* top-level keys and leaves their contents to the module, which reports errors through these        */
/* helpers so that every scene error reads the same: "FILE:LINE:COL: dotted.path: message".          */
/* ------------------------------------------------------------------------------------------------ */

/*
 * Runs a check of the scene on the file as written too (scene->written, eddy_scene_parse), so that a
 * value an override replaces is refused as a run without the override refuses it: check(user, view,
 * err) on the file as written, when there is one. Its error is returned when it points at a value an
 * override replaces (or into one), else EDDY_OK: the error of a value no override replaces is left to
 * the check of the scene itself, which the caller runs next, against the values the run has. The
 * component sections and the material keys are checked this way (eddy_scene_component_params,
 * eddy_scene_build_world); a module that reads a section of its own can check the file's the same way.
 * Whether a component of some id is installed is the run's question, not the file's: the file's
 * solver, grid, writer and section ids are checked as written for their form only, so that a scene
 * written for a plugin runs with --solver, --grid or --format where the plugin is missing. The verdict
 * is kept in the file as written: one check of a scene at a time.
 */
int eddy_scene_check_written(const eddy_scene *scene,
                             int (*check)(void *user, const eddy_scene *view, eddy_error *err), void *user,
                             eddy_error *err);

/* The top-level member `key` of the parsed scene, or NULL when absent. Owned by the scene. */
const cJSON *eddy_scene_section(const eddy_scene *scene, const char *key);

/* g . x_floor in simulation units (m^2/s^2 at scale 1): gravity dotted with the corner of the container
 * (of the domain without one) farthest along it. M g . x_floor added to E_k + E_p is the mechanical energy
 * above that floor, whatever origin the scene chose (compare's relative energy change, eddy run's
 * energy-rise warning). [any thread] */
double eddy_scene_gravity_floor(const eddy_scene *scene);

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

/* Vector member: an array of `dimensions` numbers (3 are accepted in 2D with any z, set to 0: the caller
 * reads a z it means itself, as a camera's; the scene's own directions refuse one). Absent: error
 * when `required`, else `def` (NULL: zeros). Values are taken as they are (no unit conversion). */
int eddy_scene_get_vector(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *key, int required, const eddy_real def[3], eddy_real out[3]);

/*
 * Why a vector of `count` numbers does not fit the scene, for the end of an "expected an array of 3
 * numbers, got ..." message: when the scene is 3D only because it does not set "dimensions" and the
 * vector has 2 numbers, " (the scene is 3D: "dimensions" is not set, and 3 is its default; add
 * "dimensions": 2 for a 2D scene)"; else "". The scene's readers of a vector against the dimensions end
 * their message with it (a probe's point does not: its scene's gravity, read first, already says it).
 */
const char *eddy_scene_dimensions_hint(const eddy_scene *scene, int count);

/* h / spacing with which SPH resolves a fluid, "about 1.2 to 4" (docs/scenes.md, "materials[]"): below
 * the lower end a run is warned when its world is built (eddy_scene_build_world, through the host's
 * log); the upper end is only said (more spacings cost time, not stability; 32 is refused). */
#define EDDY_SCENE_RATIO_MIN 1.2
#define EDDY_SCENE_RATIO_MAX 4.0

/*
 * For the end of a "simulation exploded ..." hint: "; material 'NAME' has h / spacing = R, below the
 * 1.2 to 4 with which SPH resolves a fluid: use a smaller particle_spacing" for
 * the first material of `w` under the range, else "". Written into buf[size]; returns buf.
 */
const char *eddy_scene_resolution_hint(const eddy_world *w, char *buf, size_t size);

/* Room for the text eddy_scene_key_text and eddy_scene_token_text write. */
#define EDDY_SCENE_SHOWN_MAX 48

/*
 * A key as the scene's messages show it, in buf[size] (size >= EDDY_SCENE_SHOWN_MAX): cut after 40 bytes
 * of whole UTF-8 characters ("..." after them), each control character (C0, DEL, C1) a space, an empty
 * key as "". A terminal would obey an escape sequence in a file's text, and a key of 10 kB would fill
 * the message: other readers of JSON files (the validation cases) show what they quote this way too.
 */
const char *eddy_scene_key_text(const char *key, char *buf, size_t size);
/* text[0..len) (a string value, a name) shown the same way, without quotes; empty when len is 0. */
const char *eddy_scene_token_text(const char *text, size_t len, char *buf, size_t size);
/* in[0..n) with each control character a space and nothing cut (a path); returns the bytes written to
 * out (at most n, no NUL added). */
size_t eddy_scene_terminal_safe(char *out, const char *in, size_t n);

/*
 * The registered id of interface `interface_id` (NULL: of any) that `id`, which the registry does not
 * hold, is likely a typo of: the one nearest by optimal string alignment distance (an insertion,
 * deletion, substitution or swap of two neighbours is one edit), when at most 2 edits away (1 for an
 * `id` of 3 characters or fewer) and strictly nearer than every other; else NULL (nothing near, or a
 * tie). Ids over 63 characters are near nothing. For the "; did you mean 'ID'?" of every "unknown
 * <kind> 'ID'" message (the scene's own check of its sections and output.format too), which then leaves out the plugin-path hint (eddy_services_refusal_hint) (a typo, not a missing
 * plugin). Depends only on the registry, so every process of a run gets the same answer. The string
 * is the registry's.
 */
const char *eddy_scene_nearest_id(const eddy_registry *reg, const char *interface_id, const char *id);

/*
 * The ids of the registered components of interface `interface_id` (NULL: of every one), ", "-separated
 * sorted by id, in buf[size] (cut with "..." when they do not fit), for the "available: ..." of
 * the host's messages; returns buf. core's eddy_registry_ids builds the same list into one buffer of the
 * registry, which two threads asking at once (the Python package's Simulations and compare(), with the
 * GIL released) garbled and could free under each other: this one only reads the registry.
 */
const char *eddy_scene_registry_ids(const eddy_registry *reg, const char *interface_id, char *buf, size_t size);

#endif /* EDDY_HOST_SCENE_H */
