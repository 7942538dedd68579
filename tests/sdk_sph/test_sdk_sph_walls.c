/*
 * The toolkit's wall images and particle shifting on small worlds built here, against values worked
 * out by hand:
 *  - eddy_boundaries_mirror_walls (<eddy/boundary.h>, ABI 2.2) names the walls that
 *    eddy_boundaries_mirrors composes, nearest first, in the order that makes mirror mask - 1 the
 *    product of the reflections across walls[k] for every bit k of mask (checked against reflection
 *    matrices built here, at a corner where the reflections do not commute);
 *  - eddy_sph_wall_images: SLIP gives eddy_sph_images' bytes; NO_SLIP maps a ghost velocity to
 *    2 v_wall - v_j per reflection (Morris, Fox & Zhu 1997 §3.3 in mirror form), written out per mask;
 *  - eddy_sph_shift (Lind, Xu, Stansby & Rogers 2012 §3.2): a rest lattice stays, a displaced particle
 *    goes back toward its site by at most EDDY_SPH_SHIFT_MAX spacings, the top layers of a free
 *    surface stay and are counted, the particles beside a wall are not pushed, and coefficient 0
 *    leaves every position bit for bit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <eddy/eddy.h>
#include <eddy_sph/sph.h>

#include "sim_support.h" /* support_run_tests: one case by name, --list */

/* ---------------------------------------------------------------------------------------------- */
/* Wall images                                                                                     */
/* ---------------------------------------------------------------------------------------------- */

/* An affine map x' = R x + t in double precision. */
typedef struct affine {
    double r[3][3], t[3];
} affine;

static affine identity(void)
{
    affine a;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < 3; ++i) a.r[i][i] = 1.0;
    return a;
}

/* The reflection across the plane through q with unit normal n: x' = x - 2 ((x - q) . n) n. */
static affine reflection(const double q[3], const double n[3])
{
    affine a;
    const double qn = q[0] * n[0] + q[1] * n[1] + q[2] * n[2];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) a.r[i][j] = (i == j ? 1.0 : 0.0) - 2.0 * n[i] * n[j];
        a.t[i] = 2.0 * qn * n[i];
    }
    return a;
}

/* a after b: x -> a(b(x)). */
static affine after(const affine *a, const affine *b)
{
    affine c;
    for (int i = 0; i < 3; ++i) {
        c.t[i] = a->t[i];
        for (int j = 0; j < 3; ++j) {
            c.r[i][j] = 0.0;
            for (int k = 0; k < 3; ++k) c.r[i][j] += a->r[i][k] * b->r[k][j];
            c.t[i] += a->r[i][j] * b->t[j];
        }
    }
    return c;
}

static double affine_distance(const affine *a, const eddy_mirror *m)
{
    double worst = 0.0;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) worst = fmax(worst, fabs(a->r[i][j] - m->rotation[i][j]));
        worst = fmax(worst, fabs(a->t[i] - m->offset[i]));
    }
    return worst;
}

/* The reflection across collider k of a world whose colliders are all planes. */
static affine wall_reflection(const eddy_world *w, size_t k)
{
    const eddy_collider *c = &w->boundaries.colliders[k];
    const double q[3] = {c->point[0], c->point[1], c->point[2]}, n[3] = {c->normal[0], c->normal[1], c->normal[2]};
    return reflection(q, n);
}

/* One expected no-slip image: the velocity map sign * I and offset v. */
typedef struct no_slip {
    float sign;
    float v[3];
} no_slip;

/*
 * The images of point x seen through `reach`, with the walls `expect_walls` (nearest first):
 *  - mirror_walls names exactly those walls;
 *  - mirror mask - 1 is the product of the reflections across expect_walls[k] for each bit k of mask,
 *    the lowest bit applied first (and, for every mask that holds the bits `order_matters`, the walls
 *    whose reflections do not commute, not the product in the other order);
 *  - SLIP images are eddy_sph_images' bytes, NO_SLIP images the same positions and pressures with
 *    velocity map expect[mask - 1].
 */
static void check_images(const eddy_world *w, const float gravity[3], float reach, const float x[3], int nw,
                         const size_t *expect_walls, const no_slip *expect, int order_matters)
{
    const eddy_boundaries *b = &w->boundaries;
    size_t walls[EDDY_MAX_MIRROR_WALLS];
    const int got_nw = eddy_boundaries_mirror_walls(b, reach, x, walls);
    assert_int_equal(got_nw, nw);
    for (int k = 0; k < nw; ++k)
        if (walls[k] != expect_walls[k])
            fail_msg("walls[%d] = collider %zu, expected collider %zu (nearest first)", k, walls[k], expect_walls[k]);

    eddy_mirror mir[EDDY_MAX_MIRRORS];
    const int nm = eddy_boundaries_mirrors(b, gravity, reach, x, mir);
    assert_int_equal(nm, (1 << nw) - 1);
    for (int mask = 1; mask < (1 << nw); ++mask) {
        affine fwd = identity(), rev = identity();
        for (int k = 0; k < nw; ++k) {
            if (!(mask & (1 << k))) continue;
            const affine r = wall_reflection(w, expect_walls[k]);
            fwd = after(&r, &fwd); /* walls[k] after the lower bits */
            rev = after(&rev, &r);
        }
        const double e = affine_distance(&fwd, &mir[mask - 1]);
        if (!(e < 1e-5))
            fail_msg("mirror %d (mask %d): differs from the reflections across walls in increasing k by %.3g",
                     mask - 1, mask, e);
        if (order_matters && (mask & order_matters) == order_matters && !(affine_distance(&rev, &mir[mask - 1]) > 1e-2))
            fail_msg("mask %d: the corner does not tell the composition order apart; the test needs another wall",
                     mask);
    }

    eddy_sph_image slip[EDDY_MAX_MIRRORS], ref[EDDY_MAX_MIRRORS], noslip[EDDY_MAX_MIRRORS];
    memset(slip, 0xa5, sizeof slip);
    memset(ref, 0xa5, sizeof ref);
    memset(noslip, 0xa5, sizeof noslip);
    assert_int_equal(eddy_sph_images(b, gravity, reach, x[0], x[1], x[2], ref), nm);
    assert_int_equal(eddy_sph_wall_images(b, gravity, reach, EDDY_SPH_WALL_SLIP, x[0], x[1], x[2], slip), nm);
    assert_int_equal(eddy_sph_wall_images(b, gravity, reach, EDDY_SPH_WALL_NO_SLIP, x[0], x[1], x[2], noslip), nm);
    if (memcmp(slip, ref, (size_t)nm * sizeof *slip))
        fail_msg("SLIP images differ from eddy_sph_images' in their bytes");
    for (int mi = 0; mi < nm; ++mi) {
        const eddy_sph_image *s = &slip[mi], *g = &noslip[mi];
        /* Positions and pressures are those of the slip image, bit for bit. */
        if (memcmp(s->r, g->r, sizeof s->r) || memcmp(s->c, g->c, sizeof s->c) || memcmp(s->t, g->t, sizeof s->t) ||
            memcmp(s->s, g->s, sizeof s->s) || s->s0 != g->s0)
            fail_msg("NO_SLIP image %d: position or pressure map differs from the SLIP image", mi);
        /* The slip velocity map is the mirror's rotation. */
        for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c)
                if (s->vr[a][c] != (float)mir[mi].rotation[a][c])
                    fail_msg("SLIP image %d: vr != R at [%d][%d]", mi, a, c);
        for (int a = 0; a < 3; ++a) {
            for (int c = 0; c < 3; ++c) {
                const float want = a == c ? expect[mi].sign : 0.0f;
                if (g->vr[a][c] != want)
                    fail_msg("NO_SLIP image %d: vr[%d][%d] = %g, expected %g", mi, a, c, (double)g->vr[a][c],
                             (double)want);
            }
            if (!(fabsf(g->v[a] - expect[mi].v[a]) <= 1e-6f))
                fail_msg("NO_SLIP image %d: v[%d] = %.9g, expected %.9g", mi, a, (double)g->v[a],
                         (double)expect[mi].v[a]);
        }
    }
}

static eddy_world *box_world(int dims, const int periodic[3])
{
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(dims, &w, &err), EDDY_OK);
    w->smoothing_radius = 0.1f;
    const float lo[3] = {-0.5f, 0.2f, 0.0f}, hi[3] = {1.0f, 1.5f, 1.0f};
    if (eddy_world_set_container(w, lo, hi, periodic, &err)) fail_msg("container: %s", err.message);
    return w;
}

static void set_velocity(eddy_world *w, size_t k, float vx, float vy, float vz)
{
    eddy_collider *c = &w->boundaries.colliders[k];
    c->velocity[0] = vx;
    c->velocity[1] = vy;
    c->velocity[2] = vz;
}

/*
 * A 2D corner of the container [-0.5, 1] x [0.2, 1.5] (colliders: 0 x-min, 1 x-max, 2 y-min, 3 y-max),
 * the point 0.03 from x-min and 0.01 from y-min: walls {y-min, x-min}, nearest first, not in collider
 * order. Both walls move, along themselves and across.
 */
static void mirror_walls_2d_corner(void **state)
{
    (void)state;
    const int periodic[3] = {0, 0, 0};
    eddy_world *w = box_world(2, periodic);
    assert_int_equal((int)w->boundaries.collider_count, 4);
    const float v0[3] = {0.2f, 0.7f, 0.0f}, v2[3] = {-0.4f, 0.1f, 0.0f}; /* x-min, y-min */
    set_velocity(w, 0, v0[0], v0[1], v0[2]);
    set_velocity(w, 2, v2[0], v2[1], v2[2]);
    const float x[3] = {-0.47f, 0.21f, 0.0f}, g[3] = {0.0f, -9.81f, 0.0f};
    const size_t walls[2] = {2, 0};
    /* walls[0] = y-min (w1), walls[1] = x-min (w2): one wall 2 v_w - v_j, both 2 v_w2 - (2 v_w1 - v_j). */
    const no_slip expect[3] = {
        {-1.0f, {2 * v2[0], 2 * v2[1], 0.0f}},
        {-1.0f, {2 * v0[0], 2 * v0[1], 0.0f}},
        {+1.0f, {2 * v0[0] - 2 * v2[0], 2 * v0[1] - 2 * v2[1], 0.0f}},
    };
    check_images(w, g, 0.1f, x, 2, walls, expect, 0);
    /* The same corner with x-min nearer: the order (and so the masks) swap. */
    const float x2[3] = {-0.49f, 0.25f, 0.0f};
    const size_t walls2[2] = {0, 2};
    const no_slip expect2[3] = {
        {-1.0f, {2 * v0[0], 2 * v0[1], 0.0f}},
        {-1.0f, {2 * v2[0], 2 * v2[1], 0.0f}},
        {+1.0f, {2 * v2[0] - 2 * v0[0], 2 * v2[1] - 2 * v0[1], 0.0f}},
    };
    check_images(w, g, 0.1f, x2, 2, walls2, expect2, 0);
    eddy_world_destroy(w);
}

/*
 * A 3D corner: the container [-0.5, 1] x [0.2, 1.5] x [0, 1] (colliders 0-5: x-min, x-max, y-min, y-max,
 * z-min, z-max) and a plane collider (6) through q with normal (0.6, 0.8, 0), moving. The point is 0.02
 * from x-min, 0.04 from the plane, 0.06 from z-min and 0.08 from y-min: the nearest three are
 * {x-min, plane, z-min}; y-min, also within reach, is left out. The plane is not orthogonal to x-min,
 * so the order of composition shows in the rotation.
 */
static void mirror_walls_3d_corner_with_plane(void **state)
{
    (void)state;
    const int periodic[3] = {0, 0, 0};
    eddy_world *w = box_world(3, periodic);
    assert_int_equal((int)w->boundaries.collider_count, 6);
    const float x[3] = {-0.48f, 0.28f, 0.06f};
    eddy_error err = {0};
    eddy_collider plane = eddy_default_collider();
    plane.shape = EDDY_SHAPE_PLANE;
    const float n[3] = {0.6f, 0.8f, 0.0f};
    for (int a = 0; a < 3; ++a) {
        plane.normal[a] = n[a];
        plane.point[a] = x[a] - 0.04f * n[a];
    }
    const float vp[3] = {0.3f, -0.2f, 0.5f};
    for (int a = 0; a < 3; ++a) plane.velocity[a] = vp[a];
    if (eddy_world_add_collider(w, &plane, &err)) fail_msg("collider: %s", err.message);
    const float v0[3] = {0.1f, 0.4f, 0.0f}, v4[3] = {0.0f, -0.3f, 0.25f}, v2[3] = {5.0f, 5.0f, 5.0f};
    set_velocity(w, 0, v0[0], v0[1], v0[2]);
    set_velocity(w, 4, v4[0], v4[1], v4[2]);
    set_velocity(w, 2, v2[0], v2[1], v2[2]); /* y-min, not among the three: must not show */
    const float g[3] = {0.0f, -9.81f, 0.0f};
    const size_t walls[3] = {0, 6, 4};
    /* w1 = x-min (v0), w2 = plane (vp), w3 = z-min (v4); each reflection u -> 2 v_w - u, in that order. */
    no_slip e[7];
    for (int a = 0; a < 3; ++a) {
        e[0].v[a] = 2 * v0[a];                            /* {w1} */
        e[1].v[a] = 2 * vp[a];                            /* {w2} */
        e[2].v[a] = 2 * vp[a] - 2 * v0[a];                /* {w1, w2} */
        e[3].v[a] = 2 * v4[a];                            /* {w3} */
        e[4].v[a] = 2 * v4[a] - 2 * v0[a];                /* {w1, w3} */
        e[5].v[a] = 2 * v4[a] - 2 * vp[a];                /* {w2, w3} */
        e[6].v[a] = 2 * v4[a] - 2 * vp[a] + 2 * v0[a];    /* {w1, w2, w3} */
    }
    const float signs[7] = {-1, -1, +1, -1, +1, +1, -1};
    for (int i = 0; i < 7; ++i) e[i].sign = signs[i];
    check_images(w, g, 0.1f, x, 3, walls, e, 3); /* x-min and the plane do not commute */
    eddy_world_destroy(w);
}

/* Farther than reach from every wall (just, and by far): no walls, no mirrors, no images. */
static void no_images_beyond_reach(void **state)
{
    (void)state;
    const int periodic[3] = {0, 0, 0};
    eddy_world *w = box_world(3, periodic);
    const float reach = 0.1f;
    const float points[][3] = {{0.25f, 0.85f, 0.5f}, {-0.5f + 0.1001f, 0.2f + 0.1001f, 0.1001f}};
    for (size_t i = 0; i < sizeof points / sizeof *points; ++i) {
        size_t walls[EDDY_MAX_MIRROR_WALLS];
        eddy_mirror mir[EDDY_MAX_MIRRORS];
        eddy_sph_image img[EDDY_MAX_MIRRORS];
        const float *x = points[i];
        assert_int_equal(eddy_boundaries_mirror_walls(&w->boundaries, reach, x, walls), 0);
        assert_int_equal(eddy_boundaries_mirrors(&w->boundaries, NULL, reach, x, mir), 0);
        const eddy_boundaries *b = &w->boundaries;
        assert_int_equal(eddy_sph_wall_images(b, NULL, reach, EDDY_SPH_WALL_NO_SLIP, x[0], x[1], x[2], img), 0);
        assert_int_equal(eddy_sph_wall_images(b, NULL, reach, EDDY_SPH_WALL_SLIP, x[0], x[1], x[2], img), 0);
        /* ... and within reach of one wall the count is 1 (the point above is not beyond by accident). */
        const float y[3] = {x[0], x[1], 0.0999f};
        assert_int_equal(eddy_boundaries_mirror_walls(&w->boundaries, reach, y, walls), 1);
        assert_int_equal((int)walls[0], 4);
    }
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------------------------------------- */
/* Particle shifting                                                                               */
/* ---------------------------------------------------------------------------------------------- */

/* A 2D lattice world: support h, the material's rest spacing s (poly6 sums to rho0 on it), nx x ny
 * sites at ((a + 1/2) s, (b + 1/2) s) in the box [0, nx s] x [0, top], periodic in x, in y when
 * `periodic_y`; one site displaced by `disp` (spacings). Velocity (1, 0.5) everywhere, density rho0. */
typedef struct lattice {
    eddy_world *w;
    eddy_sph_materials mat;
    float s;
    int nx, ny;
} lattice;

static lattice make_lattice(int nx, int ny, float top_spacings, int periodic_y, int da, int db, const float disp[2])
{
    lattice l;
    eddy_error err = {0};
    const float h = 0.1f, rho0 = 1000.0f;
    assert_int_equal(eddy_world_create(2, &l.w, &err), EDDY_OK);
    eddy_world *w = l.w;
    w->smoothing_radius = h;
    eddy_material m = eddy_default_material();
    m.rest_density = rho0;
    m.particle_mass = rho0 * powf(0.5f * h, 2);
    if (eddy_world_add_material(w, &m, &err)) fail_msg("material: %s", err.message);
    const float s = w->materials[0].particle_dist;
    assert_true(s > 0.4f * h && s < 0.6f * h);
    const float lo[3] = {0, 0, 0}, hi[3] = {nx * s, top_spacings * s, 0};
    const int periodic[3] = {1, periodic_y, 0};
    if (eddy_world_set_container(w, lo, hi, periodic, &err)) fail_msg("container: %s", err.message);
    const size_t n = (size_t)nx * ny;
    float *pos = calloc(3 * n, sizeof *pos), *vel = calloc(3 * n, sizeof *vel);
    for (int b = 0, i = 0; b < ny; ++b)
        for (int a = 0; a < nx; ++a, ++i) {
            pos[3 * i] = (a + 0.5f) * s;
            pos[3 * i + 1] = (b + 0.5f) * s;
            if (a == da && b == db) {
                pos[3 * i] += disp[0] * s;
                pos[3 * i + 1] += disp[1] * s;
            }
            vel[3 * i] = 1.0f;
            vel[3 * i + 1] = 0.5f;
        }
    if (eddy_world_add_particles(w, n, pos, vel, 0, &err)) fail_msg("particles: %s", err.message);
    free(pos);
    free(vel);
    for (size_t i = 0; i < n; ++i) w->particles.density[i] = rho0;
    if (eddy_world_init_grid(w, lo, hi, periodic, NULL, EDDY_DOMAIN_ERROR, &err)) fail_msg("grid: %s", err.message);
    if (eddy_world_build_grid(w, &err)) fail_msg("build: %s", err.message);
    if (eddy_sph_materials_init(&l.mat, w, NULL, NULL, NULL, "test", &err)) fail_msg("materials: %s", err.message);
    l.s = s;
    l.nx = nx;
    l.ny = ny;
    return l;
}

static void free_lattice(lattice *l)
{
    eddy_sph_materials_free(&l->mat);
    eddy_world_destroy(l->w);
}

/* Positions before a pass, to measure what it moved. */
static float *copy_positions(const eddy_particles *p)
{
    float *c = malloc(3 * p->count * sizeof *c);
    memcpy(c, p->x, p->count * sizeof *c);
    memcpy(c + p->count, p->y, p->count * sizeof *c);
    memcpy(c + 2 * p->count, p->z, p->count * sizeof *c);
    return c;
}

static int positions_equal(const eddy_particles *p, const float *c)
{
    return !memcmp(c, p->x, p->count * sizeof *c) && !memcmp(c + p->count, p->y, p->count * sizeof *c) &&
           !memcmp(c + 2 * p->count, p->z, p->count * sizeof *c);
}

/* Runs one pass with coefficient A and step dt; returns the shifts (2 per particle, in the grid's
 * particle order, which the pass does not change). */
static float *shift_once(lattice *l, float A, float dt, eddy_sph_shifting *s)
{
    eddy_error err = {0};
    eddy_particles *p = &l->w->particles;
    float *before = copy_positions(p);
    *s = eddy_sph_shifting_make(A);
    if (eddy_sph_shift(s, l->w, &l->mat, dt, "test", &err)) fail_msg("shift: %s", err.message);
    float *d = malloc(2 * p->count * sizeof *d);
    for (size_t i = 0; i < p->count; ++i) {
        d[2 * i] = p->x[i] - before[i];
        d[2 * i + 1] = p->y[i] - before[p->count + i];
    }
    free(before);
    return d;
}

/* The particle farthest from its lattice site, and its offset from the site (sim units). */
static size_t farthest_from_site(const lattice *l, float off[2])
{
    const eddy_particles *p = &l->w->particles;
    size_t best = 0;
    float best_r = -1.0f;
    off[0] = off[1] = 0.0f;
    for (size_t i = 0; i < p->count; ++i) {
        const float ox = p->x[i] - (floorf(p->x[i] / l->s) + 0.5f) * l->s;
        const float oy = p->y[i] - (floorf(p->y[i] / l->s) + 0.5f) * l->s;
        if (ox * ox + oy * oy > best_r) {
            best_r = ox * ox + oy * oy;
            best = i;
            off[0] = ox;
            off[1] = oy;
        }
    }
    return best;
}

static float shift_length(const float *d, size_t i) { return hypotf(d[2 * i], d[2 * i + 1]); }

/* The step of these tests: D = A (h/2) |v| dt with A = 2, |v| = 1.118, h = 0.1. */
static const float DT_SMALL = 2e-3f; /* the displaced particle's shift stays under the cap */
static const float DT_LARGE = 0.2f;  /* it would exceed the cap many times over */

/*
 * A periodic 20 x 20 rest lattice: grad C = 0 by symmetry, so every shift is rounding only: below
 * 1e-4 of the shift that one particle displaced by 0.1 spacing gets with the same step (next test),
 * and below 1e-6 spacing. No particle is at a free surface.
 */
static void shifting_rest_lattice_stays(void **state)
{
    (void)state;
    const float none[2] = {0, 0};
    lattice l = make_lattice(20, 20, 20, 1, -1, -1, none);
    eddy_sph_shifting s;
    float *d = shift_once(&l, 2.0f, DT_SMALL, &s);
    /* The shifts as computed (the scratch), not as rounded into positions of magnitude ~1. */
    float worst = 0.0f;
    for (size_t i = 0; i < l.w->particles.count; ++i) worst = fmaxf(worst, hypotf(s.shift[4 * i], s.shift[4 * i + 1]));
    const float disp[2] = {0.06f, 0.08f};
    lattice m = make_lattice(20, 20, 20, 1, 7, 9, disp);
    eddy_sph_shifting s2;
    float off[2];
    const size_t k = farthest_from_site(&m, off);
    float *d2 = shift_once(&m, 2.0f, DT_SMALL, &s2);
    const float displaced = shift_length(d2, k);
    printf("  rest lattice %zu particles: largest shift %.3g spacing (a particle displaced 0.1 spacing: %.3g "
           "spacing), %zu at a surface\n",
           l.w->particles.count, (double)(worst / l.s), (double)(displaced / m.s), s.surface_count);
    assert_true(worst < 1e-6f * l.s);
    assert_true(worst < 1e-4f * displaced);
    assert_true(s.max_shift < 1e-6f * l.s);
    assert_int_equal((int)s.surface_count, 0);
    free(d);
    free(d2);
    eddy_sph_shifting_free(&s);
    eddy_sph_shifting_free(&s2);
    free_lattice(&l);
    free_lattice(&m);
}

/*
 * One particle of the periodic lattice displaced by 0.1 spacing along (0.6, 0.8): its shift points
 * back toward its site (within 10 degrees of it), is the largest of the pass, and is at most
 * EDDY_SPH_SHIFT_MAX = 0.2 spacing long: below it with a small step, exactly the cap with a step that
 * would carry it far beyond.
 */
static void shifting_moves_displaced_particle_back(void **state)
{
    (void)state;
    const float disp[2] = {0.06f, 0.08f};
    const float steps[2] = {DT_SMALL, DT_LARGE};
    for (int t = 0; t < 2; ++t) {
        lattice l = make_lattice(20, 20, 20, 1, 7, 9, disp);
        float off[2];
        const size_t k = farthest_from_site(&l, off);
        assert_true(fabsf(hypotf(off[0], off[1]) / l.s - 0.1f) < 1e-4f);
        eddy_sph_shifting s;
        float *d = shift_once(&l, 2.0f, steps[t], &s);
        const float len = shift_length(d, k);
        const float cosine = -(d[2 * k] * off[0] + d[2 * k + 1] * off[1]) / (len * hypotf(off[0], off[1]));
        float others = 0.0f;
        for (size_t i = 0; i < l.w->particles.count; ++i)
            if (i != k) others = fmaxf(others, shift_length(d, i));
        printf("  dt %g: displaced particle shifted %.5f spacing, cos(shift, back to site) %.5f; largest other "
               "shift %.5f spacing; max_shift %.5f spacing\n",
               (double)steps[t], (double)(len / l.s), (double)cosine, (double)(others / l.s),
               (double)(s.max_shift / l.s));
        assert_true(len > 0.0f);
        assert_true(cosine > cosf(10.0f * 3.14159265f / 180.0f));
        assert_true(len <= EDDY_SPH_SHIFT_MAX * l.s * (1.0f + 1e-5f));
        assert_true(fabsf(s.max_shift - len) <= 1e-6f * l.s);
        if (t == 0) {
            assert_true(len < 0.5f * EDDY_SPH_SHIFT_MAX * l.s);
            assert_true(others < len);
        } else {
            assert_true(fabsf(len / l.s - EDDY_SPH_SHIFT_MAX) < 1e-4f);
        }
        free(d);
        eddy_sph_shifting_free(&s);
        free_lattice(&l);
    }
}

/*
 * A layer 16 x 10 on a floor (container wall at y = 0, periodic in x, open top 10 spacings above the
 * layer). The top layer, whose support the free surface cuts, has div r < 0.75 d: it is counted in
 * surface_count and not moved, bit for bit; no particle deeper than h is counted. The bottom layer,
 * beside the wall, sees its mirror ghosts: a full neighbourhood (div r = d, not a surface) and no push
 * (shift below 1e-4 of the cap). The step is large: the top layer, whose grad C points down into the
 * fluid, would be moved up by the whole cap if the pass did not leave it alone.
 */
static void shifting_leaves_free_surface(void **state)
{
    (void)state;
    const float none[2] = {0, 0};
    const int nx = 16, ny = 10;
    lattice l = make_lattice(nx, ny, 20, 0, -1, -1, none);
    const eddy_particles *p = &l.w->particles;
    float *before = copy_positions(p);
    eddy_sph_shifting s;
    float *d = shift_once(&l, 2.0f, DT_LARGE, &s);
    const float h = l.w->smoothing_radius, top = (ny - 0.5f) * l.s;
    size_t top_row = 0, within_h = 0, top_moved = 0, deep_counted = 0;
    float bottom = 0.0f, bottom_div = 2.0f;
    for (size_t i = 0; i < p->count; ++i) {
        const float y0 = before[p->count + i];
        if (top - y0 < 0.5f * l.s) {
            ++top_row;
            if (p->x[i] != before[i] || p->y[i] != y0 || p->z[i] != before[2 * p->count + i]) ++top_moved;
        }
        if (top - y0 < h + 0.5f * l.s) ++within_h;
        /* div r of the pass (the scratch): below 0.75 d marks a free surface. */
        const float div = s.shift[4 * i + 3];
        if (top - y0 >= h + 0.5f * l.s && !(div >= EDDY_SPH_SHIFT_SURFACE * 2)) ++deep_counted;
        if (y0 < l.s) {
            bottom = fmaxf(bottom, shift_length(d, i));
            if (fabsf(div - 2.0f) > fabsf(bottom_div - 2.0f)) bottom_div = div;
        }
    }
    printf("  layer %d x %d: surface_count %zu (top row %zu, rows within h of the top %zu, deeper ones marked %zu); "
           "top row moved %zu; bottom row: div r %.5f (d = 2), largest shift %.3g of the cap\n",
           nx, ny, s.surface_count, top_row, within_h, deep_counted, top_moved, (double)bottom_div,
           (double)(bottom / (EDDY_SPH_SHIFT_MAX * l.s)));
    assert_int_equal((int)top_row, nx);
    assert_int_equal((int)top_moved, 0);
    assert_true(s.surface_count >= top_row);
    assert_true(s.surface_count <= within_h);
    assert_int_equal((int)deep_counted, 0);
    /* With its ghosts the bottom row has a full neighbourhood: div r = d, as in the bulk. */
    assert_true(fabsf(bottom_div - 2.0f) < 1e-3f);
    assert_true(bottom < 1e-4f * EDDY_SPH_SHIFT_MAX * l.s);
    free(before);
    free(d);
    eddy_sph_shifting_free(&s);
    free_lattice(&l);
}

/* Coefficient 0: no particle moves, bit for bit, on a lattice where A = 2 moves one; the pass reports
 * nothing. */
static void shifting_coefficient_zero_moves_nothing(void **state)
{
    (void)state;
    const float disp[2] = {0.06f, 0.08f};
    lattice l = make_lattice(20, 20, 20, 1, 7, 9, disp);
    eddy_error err = {0};
    float *before = copy_positions(&l.w->particles);
    eddy_sph_shifting s = eddy_sph_shifting_make(0.0f);
    s.max_shift = 1.0f; /* stale figures of an earlier pass are reset */
    s.surface_count = 7;
    assert_int_equal(eddy_sph_shift(&s, l.w, &l.mat, DT_LARGE, "test", &err), EDDY_OK);
    assert_true(positions_equal(&l.w->particles, before));
    assert_true(s.max_shift == 0.0f);
    assert_int_equal((int)s.surface_count, 0);
    /* The same lattice with A = 2 does move (the case would show a broken switch). */
    s.coefficient = 2.0f;
    assert_int_equal(eddy_sph_shift(&s, l.w, &l.mat, DT_LARGE, "test", &err), EDDY_OK);
    assert_false(positions_equal(&l.w->particles, before));
    free(before);
    eddy_sph_shifting_free(&s);
    free_lattice(&l);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mirror_walls_2d_corner),
        cmocka_unit_test(mirror_walls_3d_corner_with_plane),
        cmocka_unit_test(no_images_beyond_reach),
        cmocka_unit_test(shifting_rest_lattice_stays),
        cmocka_unit_test(shifting_moves_displaced_particle_back),
        cmocka_unit_test(shifting_leaves_free_surface),
        cmocka_unit_test(shifting_coefficient_zero_moves_nothing),
    };
    return support_run_tests("test_sdk_sph_walls", argc, argv, tests, sizeof tests / sizeof tests[0]);
}
