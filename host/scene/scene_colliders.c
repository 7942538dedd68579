/*
 * host/scene/scene_colliders.c — the schema of `colliders`: planes, boxes and spheres, optionally
 * moving with a velocity until a time.
 *
 * Depends on: scene_values.c, scene_errors.c.
 */
#include "scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const PLANE_COLLIDER_KEYS[] = {"type", "point", "normal", "velocity", "moving_until", NULL};
static const char *const BOX_COLLIDER_KEYS[] = {"type", "min", "max", "velocity", "moving_until", NULL};
static const char *const SPHERE_COLLIDER_KEYS[] = {"type", "center", "radius", "velocity", "moving_until", NULL};

/* Squared distance from point p to the box [lo, hi] (0 inside), over d axes. */
static double box_dist2(const double p[3], const eddy_real lo[3], const eddy_real hi[3], int d)
{
    double r2 = 0;
    for (int a = 0; a < d; ++a) {
        const double e = p[a] < lo[a] ? lo[a] - p[a] : p[a] > hi[a] ? p[a] - hi[a] : 0.0;
        r2 += e * e;
    }
    return r2;
}

/* Signed distance from point p to the box [lo, hi] over d axes: outside, the distance; inside, minus the
 * distance to the nearest face. A ball centred inside a block reaches past that face by its radius too,
 * which a distance of 0 inside left out (a disc centred 0.02 inside a face was said to reach its radius,
 * 0.04, into the block, not 0.06). */
static double box_signed_dist(const double p[3], const eddy_real lo[3], const eddy_real hi[3], int d)
{
    const double r2 = box_dist2(p, lo, hi, d);
    if (r2 > 0) return sqrt(r2);
    double inset = INFINITY;
    for (int a = 0; a < d; ++a) inset = fmin(inset, fmin(p[a] - lo[a], (double)hi[a] - p[a]));
    return -inset;
}

/* The plane's unit normal over the scene's axes, in double, into unit; its length before, in the return.
 * One computation for the depth and the tree's pruning, so that both see the same bits. */
static double plane_unit_normal(const eddy_collider *col, int d, double unit[3])
{
    double n2 = 0;
    for (int a = 0; a < d; ++a) n2 += (double)col->normal[a] * col->normal[a];
    const double len = sqrt(n2);
    for (int a = 0; a < d; ++a) unit[a] = col->normal[a] / len;
    return len;
}

double scene_overlap_depth(const eddy_scene_fluid *f, const eddy_collider *col, int d)
{
    double fc[3] = {0, 0, 0}, cc[3] = {0, 0, 0};
    for (int a = 0; a < d; ++a) {
        fc[a] = f->center[a];
        cc[a] = col->center[a];
    }
    const int sphere = f->shape == EDDY_FLUID_SPHERE;
    switch (col->shape) {
    case EDDY_SHAPE_PLANE: {
        double unit[3], lowest = 0; /* the block's lowest point along the normal, from the plane */
        plane_unit_normal(col, d, unit);
        for (int a = 0; a < d; ++a) {
            const double n = unit[a];
            lowest += sphere ? (fc[a] - col->point[a]) * n : ((n >= 0 ? f->min[a] : f->max[a]) - (double)col->point[a]) * n;
        }
        return sphere ? (double)f->radius - lowest : -lowest;
    }
    case EDDY_SHAPE_BOX:
        if (sphere) return (double)f->radius - box_signed_dist(fc, col->min, col->max, d);
        else {
            /* The shorter way out through either face of each axis, as for a ball and a plane: the width
             * the two ranges share understated a solid that spans a block on an axis (a block of width w
             * inside a wall of 1 was said to be reached into by w). */
            double depth = INFINITY;
            for (int a = 0; a < d; ++a)
                depth = fmin(depth, fmin((double)col->max[a] - f->min[a], (double)f->max[a] - col->min[a]));
            return depth;
        }
    case EDDY_SHAPE_SPHERE:
        if (sphere) {
            double r2 = 0;
            for (int a = 0; a < d; ++a) r2 += (fc[a] - cc[a]) * (fc[a] - cc[a]);
            return (double)col->radius + (double)f->radius - sqrt(r2);
        }
        return (double)col->radius - box_signed_dist(cc, f->min, f->max, d);
    default: return 0;
    }
}

/* A collider reaching into a fluid block starts particles inside the solid, which the contact response
 * then throws out at the first step: refused, naming both. Up to half a fill spacing is allowed: the
 * lattice keeps that far from a box's faces (and touching blocks are common).
 *
 * Comparing every collider with every block took 16 s for 30 000 of each, hours for a generated scene
 * near the size cap (a porous bed of many balls seemed to hang); so the blocks' bounding boxes are kept in
 * a tree, and a collider is only compared with the blocks under the nodes it may reach too far into. A box
 * or a ball may reach into the nodes whose boxes its own meets (0.07 s for 30 000 balls): a pair is
 * refused only when its depth exceeds half a spacing, which is >= 0, and a positive depth needs the
 * shapes, hence their boxes, to meet. A plane, unbounded, may reach too far into the nodes whose boxes it
 * reaches into by more than the least half spacing of their blocks: a block's depth is at most minus the
 * lowest value of (x - point) . normal over its bounding box, and over a node's box that value is no
 * higher (see plane_clears). So a plane resting on the blocks, or reaching into them by less than is
 * allowed, is done with at the tree's root: 30 000 planes each touching 30 000 blocks took 12 s of CPU
 * compared with each block, 30 s when only the nodes wholly on the planes' fluid side were skipped, and
 * 0.3 s for the whole read so (30 000 planes of random normals: 13 s of CPU against 0.3 s). A plane
 * with a zero or non-finite normal (which the reader refuses) is compared with every block. What is
 * refused, and which pair is named, stays as it was when each collider was checked
 * against the blocks in order right after it was read: the first collider with a refused pair, and its
 * first such block. */

/* A bounding box on the scene's axes (0 on the others). */
typedef struct bounds {
    double lo[3], hi[3];
} bounds;

/* Widens b by a relative 1e-9, so that no rounding in overlap_depth can refuse a pair whose boxes were
 * found apart. False for a box that is not finite or is inverted: its shape is compared with everything. */
static int bounds_close(bounds *b)
{
    for (int a = 0; a < 3; ++a) {
        if (!isfinite(b->lo[a]) || !isfinite(b->hi[a]) || !(b->lo[a] <= b->hi[a])) return 0;
        const double m = 1e-9 * fmax(fabs(b->lo[a]), fabs(b->hi[a]));
        b->lo[a] -= m;
        b->hi[a] += m;
    }
    return 1;
}

static int fluid_bounds(const eddy_scene_fluid *f, int d, bounds *b)
{
    *b = (bounds){{0, 0, 0}, {0, 0, 0}};
    for (int a = 0; a < d; ++a) {
        const int sphere = f->shape == EDDY_FLUID_SPHERE;
        b->lo[a] = sphere ? (double)f->center[a] - f->radius : f->min[a];
        b->hi[a] = sphere ? (double)f->center[a] + f->radius : f->max[a];
    }
    return bounds_close(b);
}

/* False for a plane, which has no bounds. */
static int collider_bounds(const eddy_collider *col, int d, bounds *b)
{
    *b = (bounds){{0, 0, 0}, {0, 0, 0}};
    if (col->shape != EDDY_SHAPE_BOX && col->shape != EDDY_SHAPE_SPHERE) return 0;
    for (int a = 0; a < d; ++a) {
        const int sphere = col->shape == EDDY_SHAPE_SPHERE;
        b->lo[a] = sphere ? (double)col->center[a] - col->radius : col->min[a];
        b->hi[a] = sphere ? (double)col->center[a] + col->radius : col->max[a];
    }
    return bounds_close(b);
}

/* A plane as overlap_depth sees it: its point, and its normal divided by its length the same way. */
typedef struct plane {
    double point[3], unit[3];
    int d;
} plane;

/* False for a plane whose normal has no length (zero, or not finite): it is compared with everything. */
static int plane_make(const eddy_collider *col, int d, plane *q)
{
    *q = (plane){.d = d};
    const double len = plane_unit_normal(col, d, q->unit);
    if (!(len > 0) || !isfinite(len)) return 0;
    for (int a = 0; a < d; ++a) q->point[a] = col->point[a];
    return 1;
}

/* Whether plane q reaches into box b by no more than `allowed` (>= 0), so that it reaches too far into
 * no block inside b whose half spacing is at least that: the lowest value of (x - point) . unit over b, at
 * the corner that the normal's signs choose, is at least -allowed plus a relative 1e-9 of the sum of the
 * terms' sizes over both of b's faces on each axis. A block's depth is at most minus that lowest value
 * over its bounding box (a ball's: the box's corner is lower than the ball's lowest point by
 * r (|unit|_1 - 1) >= 0), and b's is no higher than any box's inside it, term by term; the margin
 * outweighs the rounding of both sums (1e-16 of the same sizes, and of the ball's radius, which b's
 * extent bounds), so that what is skipped would have been found clear. NaN skips nothing. */
static int plane_clears(const plane *q, const bounds *b, double allowed)
{
    double lowest = 0, size = 0;
    for (int a = 0; a < q->d; ++a) {
        const double n = q->unit[a];
        lowest += ((n >= 0 ? b->lo[a] : b->hi[a]) - q->point[a]) * n;
        size += (fabs(b->lo[a] - q->point[a]) + fabs(b->hi[a] - q->point[a])) * fabs(n);
    }
    return lowest + allowed >= 1e-9 * size;
}

/* What a collider may reach too far into: a bounded one, the boxes its own meets; a plane, the boxes it
 * reaches into by more than is allowed. */
typedef struct reach {
    int is_plane;
    bounds box;
    plane q;
} reach;

static int bounds_meet(const bounds *x, const bounds *y)
{
    for (int a = 0; a < 3; ++a)
        if (x->hi[a] < y->lo[a] || y->hi[a] < x->lo[a]) return 0;
    return 1;
}

/* Whether collider r may reach too far into a block in box b, whose blocks' half spacings are at least
 * `allowed` (>= 0). */
static int may_reach(const reach *r, const bounds *b, double allowed)
{
    return r->is_plane ? !plane_clears(&r->q, b, allowed) : bounds_meet(&r->box, b);
}

static void bounds_join(bounds *into, const bounds *b)
{
    for (int a = 0; a < 3; ++a) {
        into->lo[a] = fmin(into->lo[a], b->lo[a]);
        into->hi[a] = fmax(into->hi[a], b->hi[a]);
    }
}

enum { LEAF_BLOCKS = 4 };

/* A leaf holds blocks order[first .. first + count); an inner node (count 0) has its children at left and
 * left + 1. `lowest` is the lowest block index below, so that a subtree which cannot hold a block named
 * before the best one found is skipped; `allowed` the least half spacing below (how far a plane may reach
 * into every block there). */
typedef struct block_node {
    bounds box;
    double allowed;
    size_t lowest, first, count, left;
} block_node;

typedef struct blocks {
    const eddy_scene *s;
    double *spacing;     /* per block: its fill spacing in world units, the message's */
    bounds *box;         /* per block */
    unsigned char *kind; /* per block: SKIPPED, LOOSE (compared with every collider) or IN_TREE */
    size_t *loose, loose_count, *order, tree_count;
    block_node *nodes;
    size_t node_count;
} blocks;

enum { SKIPPED, LOOSE, IN_TREE };

typedef struct keyed {
    uint64_t key;
    size_t index;
} keyed;

static int keyed_cmp(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    return a->key != b->key ? (a->key > b->key ? 1 : -1) : (a->index > b->index) - (a->index < b->index);
}

/* The 21 low bits of x spread to every third bit. */
static uint64_t spread3(uint64_t x)
{
    x &= 0x1fffff;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

static void tree_build(blocks *t, size_t node, size_t first, size_t count)
{
    block_node *n = &t->nodes[node];
    n->first = first;
    n->count = count;
    n->left = 0;
    if (count <= LEAF_BLOCKS) {
        n->box = t->box[t->order[first]];
        n->lowest = t->order[first];
        n->allowed = 0.5 * t->spacing[t->order[first]];
        for (size_t i = first + 1; i < first + count; ++i) {
            bounds_join(&n->box, &t->box[t->order[i]]);
            if (t->order[i] < n->lowest) n->lowest = t->order[i];
            n->allowed = fmin(n->allowed, 0.5 * t->spacing[t->order[i]]);
        }
        return;
    }
    const size_t left = t->node_count;
    t->node_count += 2;
    tree_build(t, left, first, count / 2);
    tree_build(t, left + 1, first + count / 2, count - count / 2);
    n->count = 0;
    n->left = left;
    n->box = t->nodes[left].box;
    bounds_join(&n->box, &t->nodes[left + 1].box);
    n->lowest = t->nodes[left].lowest < t->nodes[left + 1].lowest ? t->nodes[left].lowest : t->nodes[left + 1].lowest;
    n->allowed = fmin(t->nodes[left].allowed, t->nodes[left + 1].allowed);
}

static void blocks_free(blocks *t)
{
    free(t->spacing);
    free(t->box);
    free(t->kind);
    free(t->loose);
    free(t->order);
    free(t->nodes);
}

/* The blocks' spacings and boxes, and a tree of the boxes: the blocks sorted along a Morton curve of
 * their centres and halved down to leaves, so that a leaf's blocks lie close together. Returns
 * EDDY_ERR_OUT_OF_MEMORY when it cannot. */
static int blocks_make(blocks *t, const eddy_scene *s)
{
    const size_t n = s->fluid_count;
    *t = (blocks){.s = s};
    t->spacing = malloc(n * sizeof *t->spacing);
    t->box = malloc(n * sizeof *t->box);
    t->kind = malloc(n);
    t->loose = malloc(n * sizeof *t->loose);
    t->order = malloc(n * sizeof *t->order);
    t->nodes = malloc(2 * n * sizeof *t->nodes);
    keyed *keys = malloc(n * sizeof *keys);
    if (!t->spacing || !t->box || !t->kind || !t->loose || !t->order || !t->nodes || !keys) {
        free(keys);
        blocks_free(t);
        return EDDY_ERR_OUT_OF_MEMORY;
    }
    double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t k = 0; k < n; ++k) {
        const eddy_scene_fluid *f = &s->fluids[k];
        t->kind[k] = SKIPPED;
        if (f->material < 0 || (size_t)f->material >= s->material_count) continue;
        t->spacing[k] =
            (double)s->materials[f->material].particle_dist * (double)f->spacing_factor / (double)s->simulation_scale;
        /* The box test holds only for a threshold >= 0 (NaN refuses nothing, but is kept exact too). */
        if (!fluid_bounds(f, s->dimensions, &t->box[k]) || !(t->spacing[k] >= 0)) {
            t->kind[k] = LOOSE;
            t->loose[t->loose_count++] = k;
            continue;
        }
        t->kind[k] = IN_TREE;
        keys[t->tree_count++].index = k;
        for (int a = 0; a < 3; ++a) {
            const double mid = 0.5 * (t->box[k].lo[a] + t->box[k].hi[a]);
            clo[a] = fmin(clo[a], mid);
            chi[a] = fmax(chi[a], mid);
        }
    }
    for (size_t i = 0; i < t->tree_count; ++i) {
        const bounds *b = &t->box[keys[i].index];
        keys[i].key = 0;
        for (int a = 0; a < 3; ++a) {
            const double mid = 0.5 * (b->lo[a] + b->hi[a]), q = (mid - clo[a]) / (chi[a] - clo[a]) * 2097151.0;
            keys[i].key |= spread3(q >= 0 && q <= 2097151.0 ? (uint64_t)q : 0) << a;
        }
    }
    qsort(keys, t->tree_count, sizeof *keys, keyed_cmp);
    for (size_t i = 0; i < t->tree_count; ++i) t->order[i] = keys[i].index;
    free(keys);
    if (t->tree_count) {
        t->node_count = 1;
        tree_build(t, 0, 0, t->tree_count);
    }
    return EDDY_OK;
}

/* Whether collider `col` reaches too far into block k; its depth in *depth. */
static int refuses(const blocks *t, size_t k, const eddy_collider *col, double *depth)
{
    *depth = scene_overlap_depth(&t->s->fluids[k], col, t->s->dimensions);
    return *depth > 0.5 * t->spacing[k];
}

/* The first block (in order) that `col` reaches too far into, or SIZE_MAX; its depth in *depth. */
static size_t first_refusal(const blocks *t, const eddy_collider *col, double *depth)
{
    size_t best = SIZE_MAX;
    double d;
    reach r = {.is_plane = col->shape == EDDY_SHAPE_PLANE};
    if (r.is_plane ? !plane_make(col, t->s->dimensions, &r.q) : !collider_bounds(col, t->s->dimensions, &r.box)) {
        for (size_t k = 0; k < t->s->fluid_count; ++k)
            if (t->kind[k] != SKIPPED && refuses(t, k, col, &d)) {
                *depth = d;
                return k;
            }
        return SIZE_MAX;
    }
    for (size_t i = 0; i < t->loose_count; ++i)
        if (refuses(t, t->loose[i], col, &d)) {
            *depth = d;
            best = t->loose[i];
            break;
        }
    if (!t->node_count) return best;
    size_t stack[2 * 64 + 2], top = 0; /* the tree is at most 64 levels deep: halved each level */
    stack[top++] = 0;
    while (top) {
        const block_node *n = &t->nodes[stack[--top]];
        if (n->lowest >= best || !may_reach(&r, &n->box, n->allowed)) continue;
        if (n->count) {
            for (size_t i = n->first; i < n->first + n->count; ++i) {
                const size_t k = t->order[i];
                if (k < best && may_reach(&r, &t->box[k], 0.5 * t->spacing[k]) && refuses(t, k, col, &d)) {
                    *depth = d;
                    best = k;
                }
            }
        } else {
            /* The child holding the lower index first: a refusal found there prunes more of the other. */
            const int swap = t->nodes[n->left + 1].lowest < t->nodes[n->left].lowest;
            stack[top++] = n->left + !swap;
            stack[top++] = n->left + swap;
        }
    }
    return best;
}

/* The first block that `col` reaches too far into, or SIZE_MAX, the blocks taken one by one: the
 * check where the tree's memory could not be had. */
static size_t first_refusal_plain(const eddy_scene *s, const eddy_collider *col, double *depth, double *spacing)
{
    for (size_t k = 0; k < s->fluid_count; ++k) {
        const eddy_scene_fluid *f = &s->fluids[k];
        if (f->material < 0 || (size_t)f->material >= s->material_count) continue;
        *spacing =
            (double)s->materials[f->material].particle_dist * (double)f->spacing_factor / (double)s->simulation_scale;
        *depth = scene_overlap_depth(f, col, s->dimensions);
        if (*depth > 0.5 * *spacing) return k;
    }
    return SIZE_MAX;
}

/* Checks colliders[0 .. count) against the blocks: the first collider reaching too far into one is
 * refused, naming the first such block. */
static int check_clear_of_fluids(ctx *c, const cJSON *root, const cJSON *arr, size_t count)
{
    eddy_scene *s = c->s;
    if (count == 0 || s->fluid_count == 0) return EDDY_OK;
    blocks t;
    const int tree = blocks_make(&t, s) == EDDY_OK;
    size_t i = 0, k = SIZE_MAX;
    double depth = 0, spacing = 0;
    for (; i < count && k == SIZE_MAX; ++i)
        k = tree ? first_refusal(&t, &s->colliders[i], &depth)
                 : first_refusal_plain(s, &s->colliders[i], &depth, &spacing);
    if (tree) {
        if (k != SIZE_MAX) spacing = t.spacing[k];
        blocks_free(&t);
    }
    if (k == SIZE_MAX) return EDDY_OK;
    const size_t at = i - 1;
    const cJSON *node = arr->child;
    for (size_t j = 0; j < at; ++j) node = node->next;
    char p[PATH_BUF];
    scene_path_index(p, "colliders", at);
    s->collider_count = at + 1; /* as when the reading stopped there */
    const cJSON *block = scene_member(root, "fluids");
    block = cJSON_IsArray(block) ? cJSON_GetArrayItem(block, (int)k) : NULL;
    return scene_fail_object(c, p, node, block,
                             "expected a solid clear of the fluid blocks, got one that would have to move %g to "
                             "clear fluids[%zu], more than half its particle spacing of %g: particles would start "
                             "inside the solid",
                             depth, k, spacing);
}

/* Reads colliders[i], the object o, into s->colliders[i]. */
static int parse_collider(ctx *c, const cJSON *o, size_t i)
{
    eddy_scene *s = c->s;
    char p[PATH_BUF], q[PATH_BUF];
    scene_path_index(p, "colliders", i);
    if (!cJSON_IsObject(o)) return scene_fail_expected(c, p, o, "a collider object");
    eddy_collider *col = &s->colliders[i];
    *col = eddy_default_collider();
    s->collider_count = i + 1;
    const cJSON *t = scene_member(o, "type");
    const char *texp = "\"plane\", \"box\" or \"sphere\"";
    if (!t) {
        /* "typ" or "Type" is a misspelled key, better named as such than as a missing type. */
        static const char *const ANY_COLLIDER_KEYS[] = {"type",   "point",  "normal",   "min",          "max",
                                                       "center", "radius", "velocity", "moving_until", NULL};
        int rc = scene_check_keys(c, o, p, ANY_COLLIDER_KEYS);
        return rc ? rc : scene_fail_missing(c, p, o, "type", texp);
    }
    const char *const *keys;
    scene_path_key(q, p, "type");
    if (cJSON_IsString(t) && strcmp(t->valuestring, "plane") == 0) {
        col->shape = EDDY_SHAPE_PLANE;
        keys = PLANE_COLLIDER_KEYS;
    } else if (cJSON_IsString(t) && strcmp(t->valuestring, "box") == 0) {
        col->shape = EDDY_SHAPE_BOX;
        keys = BOX_COLLIDER_KEYS;
    } else if (cJSON_IsString(t) && strcmp(t->valuestring, "sphere") == 0) {
        col->shape = EDDY_SHAPE_SPHERE;
        keys = SPHERE_COLLIDER_KEYS;
    } else {
        return scene_fail_expected(c, q, t, texp);
    }
    int rc = scene_check_keys(c, o, p, keys);
    if (rc) return rc;
    if (col->shape == EDDY_SHAPE_PLANE) {
        if ((rc = scene_get_vector(c, o, p, "point", 1, NULL, col->point)) ||
            (rc = scene_get_direction(c, o, p, "normal", 1, NULL, col->normal)))
            return rc;
        double l2 = 0;
        for (int a = 0; a < s->dimensions; ++a) l2 += (double)col->normal[a] * col->normal[a];
        if (!(l2 > 0)) {
            scene_path_key(q, p, "normal");
            return s->dimensions == 2 ? scene_fail(c, q, scene_member(o, "normal"), AT_VALUE,
                                                   "expected a non-zero vector, got x = 0 and y = 0")
                                      : scene_fail(c, q, scene_member(o, "normal"), AT_VALUE,
                                                   "expected a non-zero vector, got a zero vector");
        }
    } else if (col->shape == EDDY_SHAPE_BOX) {
        if ((rc = scene_get_vector(c, o, p, "min", 1, NULL, col->min)) ||
            (rc = scene_get_vector(c, o, p, "max", 1, NULL, col->max)) ||
            (rc = scene_check_min_max(c, o, p, col->min, col->max)))
            return rc;
    } else {
        if ((rc = scene_get_vector(c, o, p, "center", 1, NULL, col->center)) ||
            (rc = scene_get_real(c, o, p, "radius", 1, &NS_POS, 0, &col->radius, NULL)))
            return rc;
    }
    if ((rc = scene_get_direction(c, o, p, "velocity", 0, NULL, col->velocity)) ||
        (rc = scene_get_number(c, o, p, "moving_until", 0, &NS_NONNEG, 0.0, &s->collider_moving_until[i], NULL)))
        return rc;
    return EDDY_OK;
}

int scene_parse_colliders(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *arr = scene_member(root, "colliders");
    if (!arr) return EDDY_OK;
    if (!cJSON_IsArray(arr)) return scene_fail_expected(c, "colliders", arr, "an array of collider objects");
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n == 0) return EDDY_OK;
    s->colliders = calloc(n, sizeof *s->colliders);
    s->collider_moving_until = calloc(n, sizeof *s->collider_moving_until);
    if (!s->colliders || !s->collider_moving_until)
        return eddy_error_set(c->err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    /* Every collider is read before any is checked against the blocks, all at once; but the error is the
     * one of reading and checking them one by one, so a failed read waits in `held` until the colliders
     * before it are found clear. */
    eddy_error held, *caller = c->err;
    eddy_error_clear(&held);
    c->err = &held;
    size_t read = 0;
    int rc = EDDY_OK;
    for (const cJSON *o = arr->child; o && !rc; o = o->next)
        if (!(rc = parse_collider(c, o, read))) ++read;
    c->err = caller;
    const int clear = check_clear_of_fluids(c, root, arr, read);
    if (clear || !rc) return clear;
    if (caller) *caller = held;
    return rc;
}
