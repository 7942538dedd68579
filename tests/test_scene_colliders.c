/*
 * Colliders clear of the fluid blocks (host/scene/scene_colliders.c). The check used to compare every
 * collider with every block, 30 s for a scene of 30 000 of each; it now looks up the blocks near each
 * collider. Here it is held to the plain loop it replaced, kept below as the reference: on random 2D and
 * 3D scenes of every collider kind, on coordinates of a 1/16 grid (so that faces touch exactly and
 * overlaps sit exactly at half a spacing), with several colliders reaching into several blocks and now
 * and then a malformed collider, the scene must fail with the same collider, the same block and the
 * same message as the loop's order gives (collider by collider in file order, for each the blocks in
 * order), or parse when the loop finds nothing. Planes come in every orientation (axis-aligned, tilted,
 * nearly aligned with an axis), anywhere, against a block's lowest corner, or with their point far out
 * along the plane (so that the rounding margin of the plane's pruning is wider than half a spacing).
 * Timing cases print what a 30 000 x 30 000 scene costs, of balls and of planes.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "scene.h"
#include "scene_internal.h"

/* ------------------------------------------------------------------------------------------------ */
/* Text of a scene, grown as it is written                                                          */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    assert_true(n >= 0);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = 2 * (t->len + (size_t)n + 1);
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    t->len += (size_t)n;
    va_end(ap);
}

/* ------------------------------------------------------------------------------------------------ */
/* The reference: the loop the check was before it looked blocks up (kept as it was)               */

/* The depth of a pair is the check's own formula (scene_overlap_depth); what is held here is which
 * pairs the check compares and which it names. */

static void reference_verdict(const eddy_scene *s, const eddy_collider *cols, size_t n, size_t malformed,
                              char *out, size_t size)
{
    out[0] = '\0';
    for (size_t i = 0; i < n; ++i) {
        if (i == malformed) {
            snprintf(out, size, "colliders[%zu].%s: ", i, cols[i].shape == EDDY_SHAPE_PLANE ? "normal" : "radius");
            return;
        }
        for (size_t k = 0; k < s->fluid_count; ++k) {
            const eddy_scene_fluid *f = &s->fluids[k];
            if (f->material < 0 || (size_t)f->material >= s->material_count) continue;
            const double spacing = (double)s->materials[f->material].particle_dist * (double)f->spacing_factor /
                                   (double)s->simulation_scale;
            const double depth = scene_overlap_depth(f, &cols[i], s->dimensions);
            if (depth > 0.5 * spacing) {
                snprintf(out, size,
                         "colliders[%zu]: expected a solid clear of the fluid blocks, got one that would have to "
                         "move %g to clear fluids[%zu], more than half its particle spacing of %g: particles would start inside the "
                         "solid",
                         i, depth, k, spacing);
                return;
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------------ */
/* Random scenes                                                                                    */

static uint64_t rng_state;

static uint64_t next_u64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* An integer in [lo, hi]. */
static int pick(int lo, int hi)
{
    return lo + (int)(next_u64() % (uint64_t)(hi - lo + 1));
}

/* Lengths are whole sixteenths: exact in float, so the scene holds what the text says and faces meet
 * exactly where the generator puts them. */
static double tick(int n)
{
    return n / 16.0;
}

static void put_vector(text *t, const double *v, int d)
{
    put(t, "[%.17g", v[0]);
    for (int a = 1; a < d; ++a) put(t, ", %.17g", v[a]);
    put(t, "]");
}

typedef struct scene_shape {
    int d, scale, nf, nc, world_ticks; /* the container is [0, world_ticks / 16] on every axis */
    size_t malformed;                  /* the collider given a negative radius or a zero normal; nc or more: none */
    size_t culprit;                    /* see put_colliders */
} scene_shape;

/* The scene's text up to its fluid blocks (inclusive). */
static void put_fluids(text *t, const scene_shape *sh)
{
    const int d = sh->d;
    double w = tick(sh->world_ticks);
    double zero[3] = {0, 0, 0}, top[3] = {w, w, w};
    /* h / spacing is 4 and 2 for the two materials, in simulation units (spacing x scale). */
    put(t, "{\n  \"solver\": \"sph_mueller\",\n  \"dimensions\": %d,\n  \"time\": {\"dt\": 0.001, \"end\": 1},\n", d);
    put(t, "  \"world\": {\"smoothing_radius\": %g, \"simulation_scale\": %d},\n", 0.5 * sh->scale, sh->scale);
    put(t, "  \"container\": {\"min\": ");
    put_vector(t, zero, d);
    put(t, ", \"max\": ");
    put_vector(t, top, d);
    put(t, "},\n  \"materials\": [{\"name\": \"a\", \"particle_spacing\": 0.125}, "
           "{\"name\": \"b\", \"particle_spacing\": 0.25}],\n  \"fluids\": [\n");
    for (int k = 0; k < sh->nf; ++k) {
        const int mat = pick(0, 1), f = pick(0, 2); /* spacing_factor 1, 0.5 or 2 */
        const int base = mat ? 4 : 2, fill = f == 0 ? base : f == 1 ? base / 2 : 2 * base; /* in ticks */
        put(t, "    {\"material\": \"%s\", ", mat ? "b" : "a");
        if (f) put(t, "\"spacing_factor\": %g, ", f == 1 ? 0.5 : 2.0);
        if (pick(0, 3)) {
            double lo[3], hi[3];
            for (int a = 0; a < d; ++a) {
                const int width = pick(2 * fill, 2 * fill + 24);
                const int at = pick(0, sh->world_ticks - width);
                lo[a] = tick(at);
                hi[a] = tick(at + width);
            }
            put(t, "\"box\": {\"min\": ");
            put_vector(t, lo, d);
            put(t, ", \"max\": ");
            put_vector(t, hi, d);
            put(t, "}}");
        } else {
            const int r = pick(2 * fill, 2 * fill + 12);
            double c[3];
            for (int a = 0; a < d; ++a) c[a] = tick(pick(r, sh->world_ticks - r));
            put(t, "\"sphere\": {\"center\": ");
            put_vector(t, c, d);
            put(t, ", \"radius\": %.17g}}", tick(r));
        }
        put(t, k + 1 < sh->nf ? ",\n" : "\n");
    }
    put(t, "  ]");
}

/* A random plane's normal over d axes, not zero: whole components in [-4, 4] (every orientation:
 * along an axis, tilted, in every octant), now and then one of them a tiny power of two (nearly along
 * an axis, where a ball's box corner is barely below the ball), the whole scaled by a power of two. */
static void random_normal(int d, eddy_real n[3])
{
    int any;
    do {
        any = 0;
        for (int a = 0; a < d; ++a) any |= (n[a] = (eddy_real)pick(-4, 4)) != 0;
    } while (!any);
    if (!pick(0, 5)) {
        const int a = pick(0, d - 1);
        n[a] = (eddy_real)ldexp(pick(0, 1) ? 1.0 : -1.0, -pick(8, 40));
    }
    const int scale = pick(-3, 3);
    for (int a = 0; a < d; ++a) n[a] = (eddy_real)ldexp(n[a], scale);
}

/* A random plane in scene s (d axes, the container [0, w / 16]): one at a face of the container facing in,
 * moved a few ticks either way, or tilted; or of a random normal, through a point anywhere in and around
 * the container, or at the lowest corner (along the normal) of a block's bounding box moved a few ticks
 * along an axis; either of the latter now and then with its point moved far out along the plane (2^19 to
 * 2^26 world units; rounded to a float, which moves the plane a little). */
static void random_plane(int d, int w, const eddy_scene *s, eddy_collider *c)
{
    static const int NORMALS[][3] = {{1, 0, 0},  {0, 1, 0},  {0, 0, 1}, {-1, 0, 0}, {0, -1, 0},
                                     {0, 0, -1}, {1, 1, 0},  {1, 2, 2}, {-3, 4, 0}, {2, -1, 1}};
    c->shape = EDDY_SHAPE_PLANE;
    const int how = pick(0, 7);
    if (how < 2) {
        const int *n = NORMALS[pick(0, 9)];
        if (n[0] == 0 && n[1] == 0 && d == 2) n = NORMALS[1];
        for (int a = 0; a < d; ++a) {
            c->normal[a] = (eddy_real)n[a];
            c->point[a] = (eddy_real)tick(n[a] > 0 ? pick(-4, 3) : n[a] < 0 ? w + pick(-3, 4) : pick(0, w));
        }
        return;
    }
    random_normal(d, c->normal);
    if (how < 4 || s->fluid_count == 0) {
        for (int a = 0; a < d; ++a) c->point[a] = (eddy_real)tick(pick(-8, w + 8));
    } else {
        const eddy_scene_fluid *f = &s->fluids[pick(0, (int)s->fluid_count - 1)];
        for (int a = 0; a < d; ++a) {
            const int up = c->normal[a] < 0;
            c->point[a] = f->shape == EDDY_FLUID_SPHERE ? (up ? f->center[a] + f->radius : f->center[a] - f->radius)
                                                        : (up ? f->max[a] : f->min[a]);
        }
        int a;
        do a = pick(0, d - 1);
        while (c->normal[a] == 0);
        c->point[a] += (eddy_real)tick(pick(-4, 4));
    }
    if (how >= 6) {
        /* Along t = n x e (n turned a right angle in 2D), whose dot product with n is exactly 0. */
        double t[3] = {0, 0, 0};
        if (d == 2) {
            t[0] = -c->normal[1];
            t[1] = c->normal[0];
        } else {
            int a;
            do a = pick(0, 2);
            while (c->normal[(a + 1) % 3] == 0 && c->normal[(a + 2) % 3] == 0);
            const double e[3] = {a == 0, a == 1, a == 2}; /* t = n x e */
            t[0] = c->normal[1] * e[2] - c->normal[2] * e[1];
            t[1] = c->normal[2] * e[0] - c->normal[0] * e[2];
            t[2] = c->normal[0] * e[1] - c->normal[1] * e[0];
        }
        double tt = 0;
        for (int a = 0; a < d; ++a) tt = fmax(tt, fabs(t[a]));
        const double far = ldexp(pick(0, 1) ? 1.0 : -1.0, pick(19, 26)) / tt;
        for (int a = 0; a < d; ++a) c->point[a] = (eddy_real)(c->point[a] + far * t[a]);
    }
}

/* A random collider: a plane (random_plane), or a box or a ball anywhere in and around the container. */
static void random_collider(int d, int w, const eddy_scene *s, eddy_collider *c)
{
    *c = eddy_default_collider();
    const int kind = pick(0, 9);
    if (kind < 3) {
        random_plane(d, w, s, c);
    } else if (kind < 6) {
        c->shape = EDDY_SHAPE_BOX;
        for (int a = 0; a < d; ++a) {
            const int at = pick(-16, w + 8);
            c->min[a] = (eddy_real)tick(at);
            c->max[a] = (eddy_real)tick(at + pick(1, 24));
        }
    } else {
        c->shape = EDDY_SHAPE_SPHERE;
        for (int a = 0; a < d; ++a) c->center[a] = (eddy_real)tick(pick(-16, w + 16));
        c->radius = (eddy_real)tick(pick(1, 16));
    }
}

static void put_reals(text *t, const eddy_real *v, int d)
{
    double x[3] = {0, 0, 0};
    for (int a = 0; a < d; ++a) x[a] = v[a];
    put_vector(t, x, d);
}

static void put_collider(text *t, const eddy_collider *c, int d)
{
    if (c->shape == EDDY_SHAPE_PLANE) {
        put(t, "    {\"type\": \"plane\", \"point\": ");
        put_reals(t, c->point, d);
        put(t, ", \"normal\": ");
        put_reals(t, c->normal, d);
    } else if (c->shape == EDDY_SHAPE_BOX) {
        put(t, "    {\"type\": \"box\", \"min\": ");
        put_reals(t, c->min, d);
        put(t, ", \"max\": ");
        put_reals(t, c->max, d);
    } else {
        put(t, "    {\"type\": \"sphere\", \"center\": ");
        put_reals(t, c->center, d);
        put(t, ", \"radius\": %.17g", (double)c->radius);
    }
    put(t, "}");
}

/* Whether the reference refuses collider c in scene s (parsed without colliders). */
static int refused(const eddy_scene *s, const eddy_collider *c)
{
    char verdict[EDDY_ERROR_MESSAGE_MAX];
    reference_verdict(s, c, 1, 1, verdict, sizeof verdict);
    return verdict[0] != '\0';
}

/* Appends the colliders (cols[] gets what they are) and closes the scene. Before sh->culprit they are
 * drawn again until clear of the blocks of s, and at it until refused (a few tries, so that large scenes
 * can be fine, or be refused late); SIZE_MAX leaves them as drawn. */
static void put_colliders(text *t, const scene_shape *sh, const eddy_scene *s, eddy_collider *cols)
{
    put(t, ",\n  \"colliders\": [\n");
    for (int i = 0; i < sh->nc; ++i) {
        eddy_collider *c = &cols[i];
        for (int tries = 0; tries < 100; ++tries) {
            random_collider(sh->d, sh->world_ticks, s, c);
            if (sh->culprit == SIZE_MAX || (size_t)i > sh->culprit || ((size_t)i < sh->culprit) != refused(s, c))
                break;
        }
        if ((size_t)i == sh->malformed) {
            if (pick(0, 1)) { /* a plane of a zero normal, or a ball of a negative radius */
                c->shape = EDDY_SHAPE_PLANE;
                c->normal[0] = c->normal[1] = c->normal[2] = 0;
            } else {
                c->shape = EDDY_SHAPE_SPHERE;
                c->radius = -0.5f;
            }
        }
        put_collider(t, c, sh->d);
        put(t, i + 1 < sh->nc ? ",\n" : "\n");
    }
    put(t, "  ]\n}\n");
}

typedef struct tally {
    int fine, first_collider, later_collider, several_pairs, malformed, later_block;
    int touching;     /* scenes with a (collider, block) pair exactly touching (depth 0) */
    int deep_fine;    /* scenes of over 50 colliders that parse */
    int deep_refused; /* and that are refused at colliders[10] or later */
    /* Refused naming a plane: any; along an axis; tilted; nearly along an axis (a tiny component); with its
     * point far out; reaching too far into several blocks; in a scene of over 50 colliders. Scenes of over
     * 50 colliders that parse and hold a plane, and planes of a zero normal. */
    int plane, plane_axis, plane_tilted, plane_near_axis, plane_far, plane_several, plane_deep;
    int plane_deep_fine, zero_normal;
} tally;

/* Whether collider c is a plane whose normal has one non-zero component (1), several (2), one of them
 * tiny (3); 0 for a box or a ball. */
static int plane_kind(const eddy_collider *c, int d)
{
    if (c->shape != EDDY_SHAPE_PLANE) return 0;
    int nonzero = 0, tiny = 0;
    for (int a = 0; a < d; ++a) {
        nonzero += c->normal[a] != 0;
        tiny |= c->normal[a] != 0 && fabs(c->normal[a]) < 1e-2;
    }
    return tiny && nonzero > 1 ? 3 : nonzero > 1 ? 2 : 1;
}

static int plane_far(const eddy_collider *c, int d)
{
    for (int a = 0; a < d; ++a)
        if (fabs(c->point[a]) > 1e5) return 1;
    return 0;
}

/* One random scene: the check's verdict against the reference's. */
static void compare_one(const scene_shape *sh, tally *n)
{
    eddy_collider *cols = calloc((size_t)sh->nc + 1, sizeof *cols);
    assert_non_null(cols);
    text t = {0};
    put_fluids(&t, sh);
    const size_t fluids_end = t.len;
    put(&t, "\n}\n");
    /* The blocks as the scene holds them (particle_dist comes from a mass: not exactly the spacing). */
    eddy_scene s;
    eddy_error e;
    eddy_error_clear(&e);
    int rc = eddy_scene_parse(t.s, "t.json", NULL, 0, &s, &e);
    if (rc) print_error("the scene without colliders: %s\n%s", e.message, t.s);
    assert_int_equal(rc, 0);
    t.len = fluids_end;
    put_colliders(&t, sh, &s, cols);
    char expected[EDDY_ERROR_MESSAGE_MAX];
    reference_verdict(&s, cols, (size_t)sh->nc, sh->malformed, expected, sizeof expected);
    /* How many (collider, block) pairs the loop would have refused, for the tally. */
    int pairs = 0, first_k = -1, touching = 0, named_pairs = 0, refusing = -1; /* the first refusing collider */
    for (int i = 0; i < sh->nc && (size_t)i != sh->malformed; ++i) {
        if (refusing < 0 && pairs > 0) refusing = i - 1;
        for (size_t k = 0; k < s.fluid_count; ++k) {
            const eddy_scene_fluid *f = &s.fluids[k];
            const double h = 0.5 * (double)s.materials[f->material].particle_dist * (double)f->spacing_factor /
                             (double)s.simulation_scale;
            const double depth = scene_overlap_depth(f, &cols[i], s.dimensions);
            touching |= depth == 0;
            if (depth > h) {
                ++pairs;
                named_pairs += refusing < 0;
                if (first_k < 0) first_k = (int)k;
            }
        }
    }
    eddy_scene_free(&s);
    n->touching += touching;

    eddy_error_clear(&e);
    rc = eddy_scene_parse(t.s, "t.json", NULL, 0, &s, &e);
    if (!expected[0]) {
        if (rc) print_error("expected no error, got: %s\n%s", e.message, t.s);
        assert_int_equal(rc, 0);
        assert_int_equal(s.collider_count, sh->nc);
        eddy_scene_free(&s);
        ++n->fine;
        n->deep_fine += sh->nc > 50;
        int planes = 0;
        for (int i = 0; i < sh->nc; ++i) planes |= cols[i].shape == EDDY_SHAPE_PLANE;
        n->plane_deep_fine += sh->nc > 50 && planes;
    } else {
        const int malformed = strstr(expected, "].radius: ") || strstr(expected, "].normal: ");
        const char *tail = strstr(e.message, ": colliders[");
        int ok = rc == EDDY_ERR_INVALID_ARGUMENT && strncmp(e.message, "t.json:", 7) == 0 && tail &&
                 strncmp(tail + 2, expected, strlen(expected)) == 0 && (malformed || strcmp(tail + 2, expected) == 0);
        if (!ok) print_error("rc %d\n got:      %s\n expected: ...%s\n%s", rc, e.message, expected, t.s);
        assert_true(ok);
        if (malformed) {
            ++n->malformed;
            n->zero_normal += strstr(expected, "].normal: ") != NULL;
        } else {
            size_t named = 0;
            sscanf(expected, "colliders[%zu]", &named);
            if (named == 0) ++n->first_collider;
            else ++n->later_collider;
            n->deep_refused += sh->nc > 50 && named >= 10;
            if (pairs > 1) ++n->several_pairs;
            if (first_k > 0) ++n->later_block;
            const int kind = plane_kind(&cols[named], sh->d);
            if (kind) {
                ++n->plane;
                n->plane_axis += kind == 1;
                n->plane_tilted += kind == 2;
                n->plane_near_axis += kind == 3;
                n->plane_far += plane_far(&cols[named], sh->d);
                n->plane_several += named_pairs > 1;
                n->plane_deep += sh->nc > 50;
            }
        }
    }
    free(t.s);
    free(cols);
}

static void same_pair_as_the_loop(void **state)
{
    (void)state;
    rng_state = 20240611;
    tally n = {0};
    for (int run = 0; run < 3000; ++run) {
        scene_shape sh = {.d = pick(2, 3), .scale = pick(1, 2), .nf = pick(1, 12), .nc = pick(1, 12),
                          .world_ticks = 64};
        sh.malformed = pick(0, 6) ? (size_t)sh.nc : (size_t)pick(0, sh.nc - 1);
        sh.culprit = pick(0, 1) ? SIZE_MAX : (size_t)pick(0, sh.nc);
        compare_one(&sh, &n);
    }
    /* Larger scenes, so that the lookup's tree is several levels deep: more, smaller blocks in a larger
     * container, and colliders that mostly miss them. */
    for (int run = 0; run < 60; ++run) {
        scene_shape sh = {.d = pick(2, 3), .scale = pick(1, 2), .nf = pick(50, 300), .nc = pick(50, 300),
                          .world_ticks = 16 * 24};
        sh.malformed = pick(0, 3) ? (size_t)sh.nc : (size_t)pick(0, sh.nc - 1);
        sh.culprit = pick(0, 2) ? (size_t)pick(0, sh.nc - 1) : (size_t)sh.nc;
        compare_one(&sh, &n);
    }
    print_message("scenes: %d fine, refused at colliders[0] %d, at a later collider %d, with several refused "
                  "pairs %d, naming a block after fluids[0] %d, a malformed collider %d, with a pair touching %d; of "
                  "over 50 colliders: %d fine, %d refused at colliders[10] or later\n",
                  n.fine, n.first_collider, n.later_collider, n.several_pairs, n.later_block, n.malformed,
                  n.touching, n.deep_fine, n.deep_refused);
    print_message("planes: named %d (along an axis %d, tilted %d, nearly along an axis %d, with a far point %d, "
                  "reaching into several blocks %d, of over 50 colliders %d); scenes of over 50 colliders that "
                  "parse holding a plane %d; zero normals %d\n",
                  n.plane, n.plane_axis, n.plane_tilted, n.plane_near_axis, n.plane_far, n.plane_several,
                  n.plane_deep, n.plane_deep_fine, n.zero_normal);
    /* Each way the order matters occurred, or the comparison proved little. */
    assert_true(n.fine >= 100);
    assert_true(n.first_collider >= 100);
    assert_true(n.later_collider >= 100);
    assert_true(n.several_pairs >= 100);
    assert_true(n.later_block >= 100);
    assert_true(n.malformed >= 50);
    assert_true(n.touching >= 100);
    assert_true(n.deep_fine >= 5);
    assert_true(n.deep_refused >= 5);
    assert_true(n.plane >= 300);
    assert_true(n.plane_axis >= 50);
    assert_true(n.plane_tilted >= 100);
    assert_true(n.plane_near_axis >= 20);
    assert_true(n.plane_far >= 50);
    assert_true(n.plane_several >= 100);
    assert_true(n.plane_deep >= 5);
    assert_true(n.plane_deep_fine >= 5);
    assert_true(n.zero_normal >= 20);
}

/* ------------------------------------------------------------------------------------------------ */
/* Messages                                                                                         */

/* Three blocks along x ([0, 0.5], [0.6, 0.9], [1, 1.5], each 0.5 high) and three colliders: a ball
 * above the second block (clear by 0.2), a box over x in [0.8, 1.2] reaching 0.1 into the second block
 * and 0.2 into the third, and a box over x in [0.3, 0.5] reaching 0.2 into the first. The second
 * collider is named, with the first block it reaches into, not the deepest one; the third collider,
 * though it reaches into a block of a lower index, is not (particle spacing 0.05, allowed 0.025). */
static const char *const THREE =
    "{\n"                                                                                 /* 1 */
    "  \"solver\": \"sph_mueller\",\n"                                                    /* 2 */
    "  \"time\": {\"dt\": 0.001, \"end\": 1},\n"                                          /* 3 */
    "  \"world\": {\"smoothing_radius\": 0.2, \"simulation_scale\": 2},\n"                /* 4 */
    "  \"container\": {\"min\": [0, 0, 0], \"max\": [2, 1, 1]},\n"                        /* 5 */
    "  \"materials\": [{\"name\": \"water\", \"particle_spacing\": 0.05}],\n"             /* 6 */
    "  \"fluids\": [\n"                                                                   /* 7 */
    "    {\"material\": \"water\", \"box\": {\"min\": [0, 0, 0], \"max\": [0.5, 0.5, 0.5]}},\n"   /* 8 */
    "    {\"material\": \"water\", \"box\": {\"min\": [0.6, 0, 0], \"max\": [0.9, 0.5, 0.5]}},\n" /* 9 */
    "    {\"material\": \"water\", \"box\": {\"min\": [1, 0, 0], \"max\": [1.5, 0.5, 0.5]}}\n"    /* 10 */
    "  ],\n"                                                                              /* 11 */
    "  \"colliders\": [\n"                                                                /* 12 */
    "    {\"type\": \"sphere\", \"center\": [0.75, 0.8, 0.25], \"radius\": 0.1},\n"       /* 13 */
    "    {\"type\": \"box\", \"min\": [0.8, 0, 0], \"max\": [1.2, 1, 1]},\n"              /* 14 */
    "    {\"type\": \"box\", \"min\": [0.3, 0, 0], \"max\": [0.5, 1, 1]}\n"               /* 15 */
    "  ]\n"                                                                               /* 16 */
    "}\n";

static void expect_message(const char *const *sets, size_t n, const char *message)
{
    eddy_scene s;
    eddy_error e;
    eddy_error_clear(&e);
    int rc = eddy_scene_parse(THREE, "t.json", sets, n, &s, &e);
    if (rc == 0) eddy_scene_free(&s);
    if (strcmp(e.message, message) != 0) print_error(" got:      %s\n expected: %s\n", e.message, message);
    assert_int_equal(rc, EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, message);
}

static void first_pair_named(void **state)
{
    (void)state;
    expect_message(NULL, 0,
                   "t.json:14:5: colliders[1]: expected a solid clear of the fluid blocks, got one that would have to move 0.1 "
                   "to clear fluids[1], more than half its particle spacing of 0.05: particles would start inside the "
                   "solid");
    /* A malformed collider after the one named does not change the message; one before it does. */
    const char *after[] = {"colliders[2].max=[0.2, 1, 1]"};
    expect_message(after, 1,
                   "t.json:14:5: colliders[1]: expected a solid clear of the fluid blocks, got one that would have to move 0.1 "
                   "to clear fluids[1], more than half its particle spacing of 0.05: particles would start inside the "
                   "solid");
    const char *before[] = {"colliders[0].radius=-1"};
    expect_message(before, 1, "--set 'colliders[0].radius=-1': colliders[0].radius: expected a number > 0, got -1");
    /* Without the middle collider, the third is named. */
    const char *third[] = {"colliders[1].min=[0.5, 0.5, 0.5]", "colliders[1].max=[0.6, 1, 1]"};
    expect_message(third, 2,
                   "t.json:15:5: colliders[2]: expected a solid clear of the fluid blocks, got one that would have to move 0.2 "
                   "to clear fluids[0], more than half its particle spacing of 0.05: particles would start inside the "
                   "solid");
}

/* ------------------------------------------------------------------------------------------------ */
/* Timing                                                                                           */

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 30 000 blocks of 0.1 in cells of 0.2 (30 x 40 x 25), and 30 000 colliders clear of every block, so
 * that the check runs to the end: each block with a ball in the free corner of its cell, or planes of
 * random normals against the blocks' hull, from 0.05 clear of it to 0.02 into it (half a spacing, 0.025,
 * is allowed: the check skips the whole tree for such a plane). Prints the parse time with and without
 * the colliders; the figure is for the reader (the plain loop took 16-30 s for the balls, 13 s of CPU for
 * the planes), not a bound. */
static void thirty_thousand(int planes)
{
    enum { NX = 30, NY = 40, NZ = 25 };
    const double hull[3] = {0.2 * (NX - 1) + 0.1, 0.2 * (NY - 1) + 0.1, 0.2 * (NZ - 1) + 0.1};
    rng_state = 20240612;
    text t = {0};
    put(&t, "{\n  \"solver\": \"sph_mueller\",\n  \"time\": {\"dt\": 0.001, \"end\": 1},\n"
            "  \"world\": {\"smoothing_radius\": 0.1},\n"
            "  \"container\": {\"min\": [0, 0, 0], \"max\": [%g, %g, %g]},\n"
            "  \"materials\": [{\"name\": \"water\", \"particle_spacing\": 0.05}],\n  \"fluids\": [\n",
        0.2 * NX, 0.2 * NY, 0.2 * NZ);
    for (int i = 0; i < NX * NY * NZ; ++i) {
        const double x = 0.2 * (i % NX), y = 0.2 * (i / NX % NY), z = 0.2 * (i / (NX * NY));
        put(&t, "    {\"material\": \"water\", \"box\": {\"min\": [%g, %g, %g], \"max\": [%g, %g, %g]}}%s\n", x, y,
            z, x + 0.1, y + 0.1, z + 0.1, i + 1 < NX * NY * NZ ? "," : "");
    }
    put(&t, "  ]");
    const size_t fluids_end = t.len;
    put(&t, "\n}\n");
    char *bare = strdup(t.s);
    assert_non_null(bare);
    t.len = fluids_end;
    put(&t, ",\n  \"colliders\": [\n");
    for (int i = 0; i < NX * NY * NZ; ++i) {
        const char *sep = i + 1 < NX * NY * NZ ? "," : "";
        if (planes) {
            double n[3], len = 0, lowest = 0;
            do {
                len = 0;
                for (int a = 0; a < 3; ++a) {
                    n[a] = pick(-8, 8);
                    len += n[a] * n[a];
                }
            } while (len == 0);
            len = sqrt(len);
            for (int a = 0; a < 3; ++a) {
                n[a] /= len;
                lowest += n[a] * (n[a] >= 0 ? 0 : hull[a]);
            }
            const double at = lowest - (pick(-20, 50) / 1000.0);
            put(&t, "    {\"type\": \"plane\", \"point\": [%.9g, %.9g, %.9g], \"normal\": [%.9g, %.9g, %.9g]}%s\n",
                at * n[0], at * n[1], at * n[2], n[0], n[1], n[2], sep);
        } else {
            const double x = 0.2 * (i % NX), y = 0.2 * (i / NX % NY), z = 0.2 * (i / (NX * NY));
            put(&t, "    {\"type\": \"sphere\", \"center\": [%g, %g, %g], \"radius\": 0.04}%s\n", x + 0.15,
                y + 0.15, z + 0.15, sep);
        }
    }
    put(&t, "  ]\n}\n");
    double took[2];
    for (int with = 0; with < 2; ++with) {
        eddy_scene s;
        eddy_error e;
        eddy_error_clear(&e);
        const double t0 = seconds();
        int rc = eddy_scene_parse(with ? t.s : bare, "t.json", NULL, 0, &s, &e);
        took[with] = seconds() - t0;
        if (rc) print_error("%s\n", e.message);
        assert_int_equal(rc, 0);
        assert_int_equal(s.fluid_count, NX * NY * NZ);
        assert_int_equal(s.collider_count, with ? NX * NY * NZ : 0);
        eddy_scene_free(&s);
    }
    print_message("%d %s x %d fluid blocks (%.1f MB): parse %.3f s, %.3f s of it the colliders "
                  "(%.3f s without them)\n",
                  NX * NY * NZ, planes ? "planes" : "balls", NX * NY * NZ, (double)t.len / 1e6, took[1],
                  took[1] - took[0], took[0]);
    free(bare);
    free(t.s);
}

static void thirty_thousand_each(void **state)
{
    (void)state;
    thirty_thousand(0);
}

static void thirty_thousand_planes(void **state)
{
    (void)state;
    thirty_thousand(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_pair_as_the_loop),
        cmocka_unit_test(first_pair_named),
        cmocka_unit_test(thirty_thousand_each),
        cmocka_unit_test(thirty_thousand_planes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
