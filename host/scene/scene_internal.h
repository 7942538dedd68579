/*
 * host/scene/scene_internal.h — what the files of host/scene/ share and nothing outside it may use.
 *
 * The layer, bottom up (each file depends only on the ones above it in this list, and on scene.h,
 * cJSON and the core):
 *   scene_path.c          dotted key paths ("materials[0].viscosity"), lookups in the tree
 *   scene_document.c      the source text: the line:column locator, malformed JSON
 *   scene_errors.c        "FILE:LINE:COL: PATH: message" errors, value descriptions, key checks
 *   scene_values.c        typed getters (numbers with ranges, strings, vectors, objects)
 *   scene_set.c           --set overrides
 *   scene_lattice.c       lattices of the fluid blocks: particle counts and positions
 *   scene_world.c         schema: name, solver, grid, time, world, container, domain
 *   scene_materials.c     schema: materials (generic keys, mass and spacing)
 *   scene_colliders.c     schema: colliders; how deep a solid reaches into a fluid block
 *   scene_fluids.c        schema: fluid blocks (inside the container's walls, by that depth)
 *   scene_output.c        schema: output and the component sections (solvers, grids, writers)
 *   scene_vortices.c      schema: vortices; the vorticity they put on the seeded particles
 *   scene.c               parse, load, free: the sections in order
 *   scene_params.c        typed parameter values against a component's table
 *   scene_components.c    component sections and registered ids
 *   scene_material_params.c  per-material parameters of the running solver
 *   scene_rescale.c       the bench rescale
 *   scene_fill.c          a piece of the fluid fill (scene_fill.h: one process's particles only)
 *   scene_build.c         world building
 *   scene_memory.c        the memory a fill may count on (EDDY_MEMORY_BYTES, the machine, cgroups)
 *   scene_sections.c      the helpers other host modules read their own sections with
 *
 * Every function here starts with scene_ (types, macros and the static constants have no linkage):
 * eddy_host is a static library linked into tests, where a short global name such as fail() or
 * member() could clash.
 */
#ifndef EDDY_HOST_SCENE_INTERNAL_H
#define EDDY_HOST_SCENE_INTERNAL_H

#include "scene.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define PATH_BUF 512
/* Parameter tables have finite ranges; a bound this large (EDDY_MATERIAL_VISCOSITY_DESC's 1e30) means
 * "no bound", and messages say "a number >= 0" rather than "a number in [0, 1e+30]". */
#define UNBOUNDED 1e30
/* Likewise a positive lower bound this small (a probe's width, [1e-30, inf]) stands for "> 0". */
#define TINY 1e-30

/* ------------------------------------------------------------------------------------------------ */
/* Dotted key paths (scene_path.c)                                                                   */
/* ------------------------------------------------------------------------------------------------ */

typedef struct path_seg {
    int is_index;
    size_t index;
    const char *key; /* not NUL-terminated */
    size_t len;
} path_seg;

/* Reads the next segment of a path. Returns 1 with a segment, 0 at the end, -1 when malformed. */
int scene_path_next(const char **pp, int first, path_seg *seg);
/* Checks a whole path; returns the number of segments or -1 when malformed. */
int scene_path_validate(const char *path);
/* out[PATH_BUF] = parent.key (or key at the top level). `out` must not alias the arguments. */
void scene_path_key(char *out, const char *parent, const char *key);
/* out[PATH_BUF] = parent[i] */
void scene_path_index(char *out, const char *parent, size_t i);
/* The cJSON node at a path (first occurrence of duplicated keys), or NULL. */
cJSON *scene_tree_lookup(cJSON *root, const char *path);
/* Whether `node` is `root` or inside it. */
int scene_tree_holds(const cJSON *root, const cJSON *node);

/* ------------------------------------------------------------------------------------------------ */
/* Positions in the source text (scene_document.c)                                                   */
/* ------------------------------------------------------------------------------------------------ */

/* Where an error points: the value (which must still be the file's value), the key, or an object
 * or array whose contents --set may have changed (only its kind must match the file). */
enum { AT_VALUE = 0, AT_KEY = 1, AT_CONTAINER = 2 };

/* The scene's file name for messages ("<scene>" when it has none). */
const char *scene_file(const eddy_scene *s);
/* 1-based line and column (in characters) of a byte offset. */
void scene_offset_linecol(const char *text, size_t off, int *line, int *col);
/* Line and column of `node` in the scene's text, found by its place in the tree (any key, any
 * duplicate); a node not in the tree by `path`, `occurrence` picking the n-th member with the last
 * key. 0 when unknown or changed by --set. */
void scene_node_position(const eddy_scene *s, const char *path, const cJSON *node, int where,
                         int occurrence, int *line, int *col);
/* Offset of the first byte of `text` that is not well-formed UTF-8, or SIZE_MAX. */
size_t scene_utf8_invalid_at(const char *text);
/* Offset of the first "\u0000" escape inside a JSON string of `text`, or SIZE_MAX. cJSON ends the
 * decoded string there, so "sph_mueller\u0000junk" read as "sph_mueller" and a folder name lost its
 * tail without a word: refused instead. */
size_t scene_nul_escape_at(const char *text);
/* The error for text cJSON could not parse (`where`: where it stopped). */
int scene_malformed(const eddy_scene *s, const char *text, const char *where, eddy_error *err);

/* ------------------------------------------------------------------------------------------------ */
/* Errors (scene_errors.c)                                                                           */
/* ------------------------------------------------------------------------------------------------ */

typedef struct name_index name_index;

typedef struct ctx {
    eddy_scene *s;
    eddy_error *err;
    name_index *material_names; /* material name -> index, while interpreting */
} ctx;

/* The context of a helper that reads a finished scene. */
static inline ctx scene_ctx(const eddy_scene *s, eddy_error *err)
{
    ctx c = {(eddy_scene *)s, err, NULL};
    return c;
}

/* "FILE[:LINE:COL]: [PATH: ]message" at the position of `node` at `path`. */
int scene_vfail(const eddy_scene *s, eddy_error *err, const char *path, const cJSON *node, int where,
                const char *fmt, va_list ap);
int scene_fail(ctx *c, const char *path, const cJSON *node, int where, const char *fmt, ...) EDDY_PRINTF(5, 6);
/* "PATH: message" about the object (or array) `obj` at `path` whose contents, together with those of
 * `also` (NULL: none), make the error (a collider reaching into a block, a block past a wall): named by
 * the latest override that put `obj` or a value inside it, else the latest that put `also` or a value
 * inside it, else at `obj`'s opening bracket in the file. */
int scene_fail_object(ctx *c, const char *path, const cJSON *obj, const cJSON *also, const char *fmt, ...)
    EDDY_PRINTF(5, 6);
/* "PARENT.KEY: message" at the key of `member` of the object at `parent` (`occurrence`: the n-th
 * member with that key), the key shown cut to 40 characters and without control characters. */
int scene_fail_key(ctx *c, const char *parent, const cJSON *member, int occurrence, const char *fmt, ...)
    EDDY_PRINTF(5, 6);
/* A key (or an id the scene wrote) as messages show it, in buf[size] (size >= 48). */
const char *scene_key_text(const char *key, char *buf, size_t size);
/* text[0..len) (a piece of a string value, a name) shown the same way, without quotes; empty when
 * len is 0. A scene's strings reach the terminal through messages, so an escape sequence must not. */
const char *scene_token_text(const char *text, size_t len, char *buf, size_t size);
/* Copies in[0..n) to out as a terminal may show it: each control character, C0 (below 0x20), DEL and
 * C1 (U+0080 to U+009F, in UTF-8 0xC2 0x80 to 0xC2 0x9F), becomes one space. Returns the bytes written
 * (at most n). Every piece of the scene's text a message shows goes through it. */
size_t scene_terminal_safe(char *out, const char *in, size_t n);
/* "PATH: expected EXP, got DESC" at the value. */
int scene_fail_expected(ctx *c, const char *path, const cJSON *v, const char *expected);
/* "PATH: a 2D scene has no z (the x-y plane, y up), got z = Z; give [x, y]" at `e`, the z of the
 * array at `path` (Z as the message shows it), naming the --set that made a 3D scene 2D. */
int scene_fail_z(ctx *c, const char *path, const cJSON *e, const char *z);
/* "PATH: expected EXP, got DESC" for an array `v` of the wrong length for the scene's dimensions, saying
 * why a 2-element one is wrong when the scene is 3D only by default (eddy_scene_dimensions_hint). */
int scene_fail_length(ctx *c, const char *path, const cJSON *v, const char *expected);
/* "PARENT.KEY: missing required key, expected EXP" at the parent object. */
int scene_fail_missing(ctx *c, const char *parent_path, const cJSON *parent, const char *key,
                       const char *expected);
/* "FILE[:LINE:COL]: " before an error set elsewhere, at the value `node` at `path`. */
void scene_prefix_position(const eddy_scene *s, eddy_error *err, const char *path, const cJSON *node);
/* "%.15g" */
void scene_fmt_number(char *out, size_t size, double v);
/* Describes a JSON value for "got ..." */
const char *scene_describe(const cJSON *v, char *buf, size_t size);
/* Appends sep + item (in double quotes when `quoted`) to out[size] at *len. Returns 0, or -1 when it
 * did not fit (out then ends with what did; callers stop there). */
int scene_list_add(char *out, size_t size, size_t *len, const char *sep, int quoted, const char *item);
/* Whether `key` is in the NULL-terminated list `keys` (NULL: none). */
int scene_listed(const char *const *keys, const char *key);

/* A string index (open addressing), so that finding duplicates among n keys or names costs O(n). */
struct name_index {
    const char **keys; /* borrowed; NULL: empty slot */
    size_t *values;
    size_t mask;
};
/* Room for n names. Returns 0, or -1 when out of memory. */
int scene_name_index_init(name_index *ix, size_t n);
void scene_name_index_free(name_index *ix);
/* The value stored under `key`, or SIZE_MAX. */
size_t scene_name_index_find(const name_index *ix, const char *key);
/* Stores key -> value unless key is there already; returns the value stored under key. */
size_t scene_name_index_add(name_index *ix, const char *key, size_t value);

/* Unknown and duplicated keys of an object. `valid` is NULL-terminated (NULL: duplicates only). */
int scene_check_keys(ctx *c, const cJSON *obj, const char *path, const char *const *valid);

/* ------------------------------------------------------------------------------------------------ */
/* Typed getters (scene_values.c)                                                                    */
/* ------------------------------------------------------------------------------------------------ */

typedef struct numspec {
    double lo, hi;
    int lo_open, hi_open;
    int integer;
} numspec;

static const numspec NS_POS = {0, INFINITY, 1, 0, 0};
static const numspec NS_NONNEG = {0, INFINITY, 0, 0, 0};
static const numspec NS_UNIT = {0, 1, 0, 0, 0};
static const numspec NS_FRACTION_OPEN = {0, 1, 0, 1, 0}; /* [0, 1) */
static const numspec NS_INT_NONNEG = {0, INT_MAX, 0, 0, 1};
/* world.threads: as --threads (0: OpenMP's default). */
static const numspec NS_THREADS = {0, 4096, 0, 0, 1};

static const char AXIS[3] = {'x', 'y', 'z'};

/* What a value stored as a float (eddy_real) must also be: a scalar (scene_get_real), a vector's
 * component (positions and velocities may be as small as they like). */
#define FLOAT_RANGE "a number within the float range (0, or a magnitude of 1.2e-38 to 3.4e+38)"
#define FLOAT_MAX_TEXT "a number of at most 3.4e+38 in magnitude (the float range)"

/* What a number of `ns` must be ("a number > 0", "an integer in [0, 10]"). */
void scene_numspec_text(const numspec *ns, char *out, size_t size);
int scene_numspec_ok(const numspec *ns, double v);
/* Member `key` of obj (NULL when absent). */
cJSON *scene_member(const cJSON *obj, const char *key);
/* Number member; `*present` (may be NULL) tells whether it was given. Absent and not required: def. */
int scene_get_number(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                     const numspec *ns, double def, double *out, int *present);
/* A number member that must also fit a float (eddy_real). */
int scene_get_real(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                   const numspec *ns, double def, eddy_real *out, int *present);
/* String member copied into out[size]. */
int scene_get_string(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                     const char *def, char *out, size_t size, int nonempty);
/* Optional boolean member (true or false): *out = def when absent. */
int scene_get_bool(ctx *c, const cJSON *obj, const char *path, const char *key, int def, int *out);
/* Object member: *out = NULL when absent. */
int scene_get_object(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                     const char *expected, const cJSON **out);
/* Vector member, a position or an extent: an array of `dimensions` numbers, or of 3 in 2D with the z
 * ignored (set to 0), refused other than 0 when the text is a 3D scene made 2D by an override. */
int scene_get_vector(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                     const eddy_real def[3], eddy_real out[3]);
/* Vector member, a direction or a rate (gravity, a velocity, a normal): in 2D a z other than 0 is
 * refused. */
int scene_get_direction(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                        const eddy_real def[3], eddy_real out[3]);
/* The same with any z accepted in 2D (out[2] = 0): for a reader that keeps the z itself (a camera). */
int scene_get_vector_z_free(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                            const eddy_real def[3], eddy_real out[3]);
/* max > min on every used axis; the error points at `max`. */
int scene_check_min_max(ctx *c, const cJSON *obj, const char *path, const eddy_real mn[3],
                        const eddy_real mx[3]);

/* ------------------------------------------------------------------------------------------------ */
/* --set (scene_set.c)                                                                               */
/* ------------------------------------------------------------------------------------------------ */

/* Applies one "dotted.path=value" override to the scene's tree, and records what it put there (the
 * value, or the object its path created) as the override's (eddy_scene.set_origins); what it replaces
 * leaves the record. */
int scene_apply_set(eddy_scene *s, const char *set, eddy_error *err);
/* The text of the override ("PATH=VALUE") that put `node` (or a value holding it) into the scene's
 * tree, the latest when several did; NULL for a value of the file. */
const char *scene_set_origin(const eddy_scene *s, const cJSON *node);
/* Frees the scene's record of what the overrides put in. */
void scene_free_set_origins(eddy_scene *s);
/* What an override does to a tree: SET_ADDS when its path leads, through objects and existing array
 * elements, to a key the tree lacks; SET_SAME when it leads to the value it sets already (it changes
 * no value of the file); SET_REPLACES when it
 * replaces a value of the tree or meets one in its way (a number where its path needs an object), with
 * *node that value; SET_FAILS when it cannot be applied for another reason (malformed, an index past
 * an array's end), which scene_apply_set says. */
enum { SET_ADDS = 0, SET_REPLACES = 1, SET_FAILS = 2, SET_SAME = 3 };
int scene_set_effect(const cJSON *root, const char *set, const cJSON **node);

/* One value an override put into the tree, and the override ("PATH=VALUE") as messages quote it
 * (cut, without control characters; owned). */
struct eddy_scene_set_origin {
    const cJSON *node;
    char *set;
};

/* The values of the file as written (eddy_scene.written) that overrides replace. `verdict` is set by
 * every error reported on that scene: 1 when the error points at one of them (or into one), 0 when it
 * points elsewhere; an error that points at nothing (out of memory) leaves it as it was. */
struct eddy_scene_replaced {
    const cJSON **nodes;
    size_t count;
    int verdict;
};

/* ------------------------------------------------------------------------------------------------ */
/* Lattices (scene_lattice.c)                                                                        */
/* ------------------------------------------------------------------------------------------------ */

typedef struct lattice {
    int dims;
    uint64_t n[3];
    double origin[3]; /* sim units */
    double spacing;   /* sim units */
    int sphere;
    double center[3], r2;
} lattice;

/* Returns 0, or -1 when the lattice is too large to count. */
int scene_lattice_setup(const eddy_scene *s, const eddy_scene_fluid *f, double particle_dist, lattice *L);
/* Emits up to `max` points from lattice index *cursor on (x fastest); returns how many. */
size_t scene_lattice_emit(const lattice *L, uint64_t *cursor, eddy_real *pos, size_t max);
/* Lattice point (ix, iy, iz) as a particle stores it (eddy_real), and whether scene_lattice_emit emits
 * it: the one arithmetic of the emit, for a fill that keeps only some points (scene_fill.c). */
void scene_lattice_point(const lattice *L, uint64_t ix, uint64_t iy, uint64_t iz, eddy_real out[3]);
int scene_lattice_keeps(const lattice *L, uint64_t ix, uint64_t iy, uint64_t iz);
/* The stored coordinate along `axis` of every point of plane i (index i along that axis). */
eddy_real scene_lattice_coord(const lattice *L, int axis, uint64_t i);
/* counts[i] = the points emitted in plane i along `axis` (n[axis] entries): a product for a box, every
 * point's test for a sphere. */
void scene_lattice_plane_counts(const lattice *L, int axis, uint64_t *counts);
/* particle_dist as eddy_world_add_material derives it (same float arithmetic). */
eddy_real scene_material_dist(const eddy_material *m, eddy_real smoothing_radius, int dimensions);
/* Particles of one fluid block at material spacing `dist`: exact, or with *at_least a lower bound
 * above the 2^32 cap. */
double scene_fluid_count_at(const eddy_scene *s, const eddy_scene_fluid *f, double dist, int *at_least);

/* ------------------------------------------------------------------------------------------------ */
/* A piece of the fill (scene_fill.c, scene_fill.h)                                                  */
/* ------------------------------------------------------------------------------------------------ */

struct eddy_scene_piece;
/* The piece eddy_scene_set_piece installed, or NULL. */
const struct eddy_scene_piece *scene_piece(void);
/* Fills w with the piece's particles of the scene's fluid blocks (`total` in the whole fill) across
 * `axis`, with their whole-fill ids; then calls the piece's filled(). */
int scene_fill_piece(const eddy_scene *scene, const struct eddy_scene_piece *piece, int axis, size_t total,
                     eddy_world *w, eddy_error *err);

/* ------------------------------------------------------------------------------------------------ */
/* The sections (scene_world.c, scene_materials.c, scene_fluids.c, scene_colliders.c, scene_output.c) */
/* ------------------------------------------------------------------------------------------------ */

static const char *const MINMAX_KEYS[] = {"min", "max", NULL};

/* A component id: 1 or more characters of [a-z0-9_]. */
int scene_is_id(const char *s);
/* The domain in world units: the `domain` section, else the container widened by one smoothing
 * radius on bounded axes. 2D: z = 0. Returns 0 when there is neither. */
int scene_effective_domain(const eddy_scene *s, eddy_real lo[3], eddy_real hi[3]);

int scene_parse_name(ctx *c, const cJSON *root);
int scene_parse_id(ctx *c, const cJSON *root, const char *key, int required, const char *def, char *out);
int scene_parse_time(ctx *c, const cJSON *root);
int scene_parse_world(ctx *c, const cJSON *root);
int scene_parse_container(ctx *c, const cJSON *root);
int scene_parse_domain(ctx *c, const cJSON *root);
int scene_parse_materials(ctx *c, const cJSON *root);
/* Warns through `host` (NULL: silent) for each material with fewer than EDDY_SCENE_RATIO_MIN spacings
 * per smoothing radius, at the key that sets its spacing, once a process for a given message. */
void scene_warn_resolution(const eddy_scene *s, const eddy_host *host);
int scene_parse_fluids(ctx *c, const cJSON *root);
int scene_parse_colliders(ctx *c, const cJSON *root);
/* `vortices` (scene_vortices.c): each entry's keys and values, checked against the scene's dimensions. */
int scene_parse_vortices(ctx *c, const cJSON *root);
/* How deep (world units) collider `col` reaches into fluid block f in d dimensions: the least distance
 * the solid would have to move to clear the block (past a plane, out through the nearer face, a ball
 * centred inside by its radius plus its centre's distance to the nearest face); <= 0 when they do not
 * overlap, and > 0 only where the shapes share an interior. The one formula of the colliders' clearance check (tests/test_scene_colliders.c holds
 * the check's search to a plain loop over it). */
double scene_overlap_depth(const eddy_scene_fluid *f, const eddy_collider *col, int d);
int scene_parse_component_sections(ctx *c, const cJSON *parent, const char *parent_path, const char *key);
int scene_parse_output(ctx *c, const cJSON *root);
/* The file's own solver, grid, output.dir and output.format, checked as written before any override
 * goes in, by the readers interpretation uses. A backstop to the file as written (eddy_scene_parse):
 * its interpretation stops at its first error, and when that error is one the overrides mend (a spacing
 * refused against a radius --set changes) the values after it are not reached; these four, which
 * --solver, --grid, --out and --format replace on most command lines, are checked whatever comes first. */
int scene_check_replaced_values(ctx *c, const cJSON *root);

/* ------------------------------------------------------------------------------------------------ */
/* Typed parameter values (scene_params.c, scene_components.c, scene_material_params.c)             */
/* ------------------------------------------------------------------------------------------------ */

/* How a value outside its range reads. Component sections keep the wording of eddy_param_check
 * ("solvers.pbf.relaxation: 1.5 is out of range [0, 1]"), materials the scene's own ("materials[0].
 * viscosity: expected a number >= 0, got -1"), as they always did. */
enum { STYLE_COMPONENT = 0, STYLE_MATERIAL = 1 };

/* Entry i of a table of n (stride of its first entry), or NULL. */
const eddy_param_desc *scene_table_at(const eddy_param_desc *table, size_t n, size_t i);
/* Index of `id` in a table, or -1. */
int scene_table_find(const eddy_param_desc *table, size_t n, const char *id);
/* What a value of `d` must be, after "expected ". */
void scene_desc_expected(const eddy_param_desc *d, char *out, size_t size);
/* Reads the JSON value v (at `path`) as a value of descriptor d. */
int scene_read_value(ctx *c, const eddy_param_desc *d, const char *path, const cJSON *v, int style,
                     eddy_param_value *out);
/* eddy_param_check of a value read above, its error prefixed with the value's position. */
int scene_core_check(ctx *c, const eddy_param_desc *d, const eddy_param_value *v, const char *context,
                     const char *path, const cJSON *node);
/* The scene section of a component's kind ("solvers", "grids", "output.writers"), or NULL; *kind
 * its short name for messages. */
const char *scene_component_section(const eddy_component *component, const char **kind);
/* eddy_scene_material_params with the material's object `o` already found. */
int scene_material_params_of(const eddy_scene *scene, const eddy_registry *reg, const eddy_component *solver,
                             size_t material, const cJSON *o, eddy_param_value *values, eddy_error *err);

/* The memory a run may count on, in bytes, and how a message says where it comes from ("this machine
 * has", "this process's cgroup allows", "EDDY_MEMORY_BYTES gives"): EDDY_MEMORY_BYTES when set (a bad
 * value is EDDY_ERR_INVALID_ARGUMENT naming it), else the machine's memory or a smaller limit of the
 * process's cgroup or one above it (scene_memory.c). INFINITY where nothing tells. */
int scene_usable_memory(double *bytes, const char **source, eddy_error *err);

#endif /* EDDY_HOST_SCENE_INTERNAL_H */
