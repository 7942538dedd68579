/*
 * Boundary geometry and the contact response of the Bullet-Fluids reference (2014) §3.2.2, §5.2, each
 * against values worked out by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <eddy/eddy.h>

#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-6)

/* The plane y = 0 facing +y: eddy_default_collider() as documented. */
static eddy_collider plane_y0(void)
{
    return eddy_default_collider();
}

static void default_collider(void **state)
{
    (void)state;
    eddy_collider c = eddy_default_collider();
    assert_int_equal(c.size, sizeof(eddy_collider));
    assert_int_equal(c.shape, EDDY_SHAPE_PLANE);
    assert_int_equal(c.is_container_wall, 0);
    for (int a = 0; a < 3; ++a) {
        assert_true(c.point[a] == 0.0f);
        assert_true(c.normal[a] == (a == 1 ? 1.0f : 0.0f));
        assert_true(c.velocity[a] == 0.0f);
        assert_true(c.min[a] == 0.0f && c.max[a] == 0.0f && c.center[a] == 0.0f);
    }
    assert_true(c.radius == 0.0f);
}

static void distances(void **state)
{
    (void)state;
    float n[3];
    eddy_collider pl = plane_y0();
    const float p1[3] = {3.0f, 0.25f, -1.0f};
    NEAR(eddy_collider_distance(&pl, 3, p1, n), 0.25f);
    NEAR(n[1], 1.0f);

    eddy_collider box = eddy_default_collider();
    box.shape = EDDY_SHAPE_BOX;
    box.min[0] = box.min[1] = box.min[2] = 0.0f;
    box.max[0] = box.max[1] = box.max[2] = 1.0f;
    const float outside[3] = {1.3f, 1.4f, 0.5f}; /* off an edge: distance to the edge (0.3, 0.4) = 0.5 */
    NEAR(eddy_collider_distance(&box, 3, outside, n), 0.5f);
    NEAR(n[0], 0.6f);
    NEAR(n[1], 0.8f);
    NEAR(n[2], 0.0f);
    const float inside[3] = {0.5f, 0.9f, 0.5f}; /* 0.1 below the top face */
    NEAR(eddy_collider_distance(&box, 3, inside, n), -0.1f);
    NEAR(n[1], 1.0f);

    eddy_collider sph = eddy_default_collider();
    sph.shape = EDDY_SHAPE_SPHERE;
    sph.center[0] = 1.0f;
    sph.radius = 0.5f;
    const float ps[3] = {1.0f, 0.0f, 2.0f};
    NEAR(eddy_collider_distance(&sph, 3, ps, n), 1.5f);
    NEAR(n[2], 1.0f);
    /* In 2D the z coordinate is ignored. */
    NEAR(eddy_collider_distance(&sph, 2, ps, n), -0.5f);
}

static void container_walls(void **state)
{
    (void)state;
    eddy_world *w;
    eddy_error err;
    assert_int_equal(eddy_world_create(3, &w, &err), 0);
    const float lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1};
    const int periodic[3] = {0, 0, 1};
    assert_int_equal(eddy_world_set_container(w, lo, hi, periodic, &err), 0);
    /* Four walls: the periodic z axis has none. */
    assert_int_equal(w->boundaries.collider_count, 4);
    float n[3];
    const float p[3] = {1.9f, 0.5f, 0.01f};
    NEAR(eddy_boundaries_distance(&w->boundaries, p, n, NULL), 0.1f);
    NEAR(n[0], -1.0f);
    /* Colliders after the container; a zero normal is refused. */
    eddy_collider bad = plane_y0();
    bad.normal[1] = 0.0f;
    assert_int_equal(eddy_world_add_collider(w, &bad, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "plane collider: normal has zero length");
    /* Components whose squares leave float's range are a direction all the same (they once read as
     * zero length); a non-finite one is refused as such. */
    const size_t before = w->boundaries.collider_count;
    bad.normal[0] = 1e38f, bad.normal[1] = 1e38f;
    assert_int_equal(eddy_world_add_collider(w, &bad, &err), EDDY_OK);
    NEAR(w->boundaries.colliders[before].normal[0], 0.70710678f);
    NEAR(w->boundaries.colliders[before].normal[1], 0.70710678f);
    bad.normal[0] = 0.0f, bad.normal[1] = 1e-40f;
    assert_int_equal(eddy_world_add_collider(w, &bad, &err), EDDY_OK);
    NEAR(w->boundaries.colliders[before + 1].normal[1], 1.0f);
    bad.normal[1] = INFINITY;
    assert_int_equal(eddy_world_add_collider(w, &bad, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "plane collider: normal is not finite");
    w->boundaries.collider_count = before;
    /* A collider filled by an older or careless caller (size not covering every member) is refused,
     * naming the sizes; the default one is accepted and appended after the walls. */
    eddy_collider small = plane_y0();
    small.size = offsetof(eddy_collider, is_container_wall);
    assert_int_equal(eddy_world_add_collider(w, &small, &err), EDDY_ERR_INVALID_ARGUMENT);
    char expect[160];
    snprintf(expect, sizeof expect,
             "collider: a struct of %zu bytes, %zu needed; fill it with eddy_default_collider()",
             offsetof(eddy_collider, is_container_wall), sizeof(eddy_collider));
    assert_string_equal(err.message, expect);
    assert_int_equal(w->boundaries.collider_count, 4);
    eddy_collider ok = plane_y0();
    ok.normal[1] = 2.0f; /* normalized on the way in */
    assert_int_equal(eddy_world_add_collider(w, &ok, &err), EDDY_OK);
    assert_int_equal(w->boundaries.collider_count, 5);
    assert_true(w->boundaries.colliders[4].normal[1] == 1.0f);
    assert_int_equal(w->boundaries.colliders[4].is_container_wall, 0);
    eddy_world_destroy(w);
}

static eddy_contact_params contact(float restitution, float friction, float erp)
{
    eddy_contact_params cp = {0.01f, 0.001f, restitution, friction, erp};
    return cp;
}

static void response_removes_approach_and_friction(void **state)
{
    (void)state;
    eddy_collider pl = plane_y0();
    eddy_contact_params cp = contact(0.0f, 0.2f, 0.0f);
    float p[3] = {0.0f, 0.005f, 0.0f}; /* touching: distance 0.005 < radius 0.01, within the margin */
    float v[3] = {1.0f, -2.0f, 0.0f};
    assert_true(eddy_contact_respond(&pl, 3, &cp, p, v, 0.001f));
    NEAR(v[0], 0.8f); /* friction removes 20% of the tangential velocity */
    NEAR(v[1], 0.0f); /* the approaching normal velocity is gone */

    cp = contact(0.5f, 0.0f, 0.0f);
    float v2[3] = {0.0f, -2.0f, 0.0f};
    eddy_contact_respond(&pl, 3, &cp, p, v2, 0.001f);
    NEAR(v2[1], 1.0f); /* half reflected */

    /* Moving away: untouched. Out of reach: untouched and not a contact. */
    float v3[3] = {0.3f, 2.0f, 0.0f};
    eddy_contact_respond(&pl, 3, &cp, p, v3, 0.001f);
    NEAR(v3[0], 0.3f);
    NEAR(v3[1], 2.0f);
    float far[3] = {0.0f, 0.5f, 0.0f};
    float v4[3] = {0.0f, -2.0f, 0.0f};
    assert_false(eddy_contact_respond(&pl, 3, &cp, far, v4, 0.001f));
    NEAR(v4[1], -2.0f);
}

static void response_erp_pushes_out(void **state)
{
    (void)state;
    eddy_collider pl = plane_y0();
    eddy_contact_params cp = contact(0.0f, 0.0f, 0.5f);
    /* Centre 0.004 below the surface: depth = radius - distance - margin = 0.01 + 0.004 - 0.001. */
    float p[3] = {0.0f, -0.004f, 0.0f};
    float v[3] = {0.0f, 0.0f, 0.0f};
    eddy_contact_respond(&pl, 3, &cp, p, v, 0.001f);
    NEAR(p[1], -0.004f + 0.5f * 0.013f); /* half the depth beyond the margin is removed ... */
    NEAR(v[1], 0.0f);                    /* ... without adding velocity that would outlive the step */
    /* Within the margin: no push. */
    float q[3] = {0.0f, 0.0095f, 0.0f};
    eddy_contact_respond(&pl, 3, &cp, q, v, 0.001f);
    NEAR(q[1], 0.0095f);
}

static void response_relative_to_moving_wall(void **state)
{
    (void)state;
    eddy_collider pl = plane_y0();
    pl.velocity[1] = 1.0f; /* the floor rises at 1 m/s */
    eddy_contact_params cp = contact(0.0f, 0.0f, 0.0f);
    float p[3] = {0.0f, 0.005f, 0.0f};
    float v[3] = {0.0f, 0.0f, 0.0f};
    eddy_contact_respond(&pl, 3, &cp, p, v, 0.001f);
    NEAR(v[1], 1.0f); /* carried along with the wall */
}

/* Poly6 sum (without the constant) at x over a square lattice of spacing dx with points at
 * ((i + 1/2) dx, (j + 1/2) dx), restricted to i >= 0 (walled_x) and j >= 0 (walled_y), plus the mirror
 * images of those points that eddy_boundaries_mirrors gives for x. With every wall mirrored the sum
 * must equal the unrestricted lattice's: the ghosts continue the lattice exactly. */
static double lattice_sum_2d(const eddy_boundaries *b, const float x[3], float h, float dx, int walled_x,
                             int walled_y, int use_mirrors, int *mirror_count)
{
    eddy_mirror m[EDDY_MAX_MIRRORS];
    const float g[3] = {0, 0, 0};
    int nm = use_mirrors ? eddy_boundaries_mirrors(b, g, h, x, m) : 0;
    if (mirror_count) *mirror_count = nm;
    double sum = 0.0;
    for (int j = -20; j < 20; ++j)
        for (int i = -20; i < 20; ++i) {
            if ((walled_x && i < 0) || (walled_y && j < 0)) continue;
            const float xj[3] = {((float)i + 0.5f) * dx, ((float)j + 0.5f) * dx, 0.0f};
            for (int k = -1; k < nm; ++k) {
                float q[3];
                if (k < 0) memcpy(q, xj, sizeof q);
                else eddy_mirror_point(&m[k], xj, q);
                double r2 = (double)(x[0] - q[0]) * (x[0] - q[0]) + (double)(x[1] - q[1]) * (x[1] - q[1]);
                if (r2 < (double)h * h) sum += pow((double)h * h - r2, 3);
            }
        }
    return sum;
}

static void mirrors_continue_a_lattice(void **state)
{
    (void)state;
    eddy_world *w;
    eddy_error err;
    assert_int_equal(eddy_world_create(2, &w, &err), 0);
    const float lo[3] = {0, 0, 0}, hi[3] = {10, 10, 0};
    const int periodic[3] = {0, 0, 0};
    assert_int_equal(eddy_world_set_container(w, lo, hi, periodic, &err), 0);
    const float dx = 0.1f, h = 0.2f;
    const float bulk[3] = {1.05f, 1.05f, 0};
    const double full = lattice_sum_2d(&w->boundaries, bulk, h, dx, 0, 0, 1, NULL);
    int nm;
    /* Far from walls: no mirrors. */
    lattice_sum_2d(&w->boundaries, bulk, h, dx, 0, 0, 1, &nm);
    assert_int_equal(nm, 0);
    /* Rows next to the bottom wall: one mirror each, and the deficit without it. */
    for (int row = 0; row < 2; ++row) {
        const float x[3] = {1.05f, (row + 0.5f) * dx, 0};
        double without = lattice_sum_2d(&w->boundaries, x, h, dx, 0, 1, 0, NULL);
        double with = lattice_sum_2d(&w->boundaries, x, h, dx, 0, 1, 1, &nm);
        print_message("  row %d: lattice sum without mirrors %.4f, with %.6f of the bulk (%d mirror)\n", row,
                      without / full, with / full, nm);
        assert_int_equal(nm, 1);
        if (row == 0) assert_true(without / full < 0.99); /* at h = 2 dx only row 0 lacks neighbours */
        assert_true(fabs(with / full - 1) < 1e-5);
    }
    /* The corner: three mirrors (x, y and both). */
    const float c[3] = {0.05f, 0.15f, 0};
    double with = lattice_sum_2d(&w->boundaries, c, h, dx, 1, 1, 1, &nm);
    print_message("  corner: %d mirrors, lattice sum %.6f of the bulk\n", nm, with / full);
    assert_int_equal(nm, 3);
    assert_true(fabs(with / full - 1) < 1e-5);
    eddy_world_destroy(w);
}

static void mirrors_continue_hydrostatic_pressure(void **state)
{
    (void)state;
    eddy_boundaries b;
    memset(&b, 0, sizeof b);
    eddy_collider floor = plane_y0();
    floor.point[1] = 0.5f; /* the floor at y = 0.5 */
    b.dimensions = 3;
    b.collider_count = 1;
    b.colliders = &floor;
    const float g[3] = {0, -10, 0}, x[3] = {0.3f, 0.55f, 0.2f};
    eddy_mirror m[EDDY_MAX_MIRRORS];
    assert_int_equal(eddy_boundaries_mirrors(&b, g, 0.1f, x, m), 1);
    /* A neighbour d above the floor has its ghost d below: deeper by 2 d, so p_ghost - p_j = 2 d rho g. */
    for (int k = 0; k < 4; ++k) {
        const float xj[3] = {0.1f * k, 0.5f + 0.02f * k, -0.1f};
        float q[3];
        eddy_mirror_point(&m[0], xj, q);
        NEAR(q[1], 0.5f - 0.02f * k);
        NEAR(q[0], xj[0]);
        double dp = m[0].pressure_slope[0] * xj[0] + m[0].pressure_slope[1] * xj[1] +
                    m[0].pressure_slope[2] * xj[2] + m[0].pressure_offset;
        assert_true(fabs(dp - 2 * 0.02 * k * 10) < 1e-5);
    }
    /* Free slip against a wall moving up at 1: the ghost of a particle at rest moves up at 2 (the
     * normal velocity relative to the wall reversed), tangential velocity kept. */
    floor.velocity[1] = 1.0f;
    assert_int_equal(eddy_boundaries_mirrors(&b, g, 0.1f, x, m), 1);
    const float v[3] = {0.5f, 0.0f, -0.25f};
    float gv[3];
    eddy_mirror_velocity(&m[0], v, gv);
    NEAR(gv[0], 0.5f);
    NEAR(gv[1], 2.0f);
    NEAR(gv[2], -0.25f);
    /* Out of reach: none. */
    const float far[3] = {0.3f, 0.7f, 0.2f};
    assert_int_equal(eddy_boundaries_mirrors(&b, g, 0.1f, far, m), 0);
}

/* Deterministic uniform numbers in [0, 1) (a 64-bit LCG, Knuth's MMIX constants). */
static double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* Materials by particle: mixed in even blocks of 256 (the response's blocks), only the smallest
 * contact radius (material 2) in odd ones, so that blocks differ in their largest radius. */
static uint32_t material_of(size_t i)
{
    return (i / 256) % 2 ? 2u : (uint32_t)(i % 3);
}

/* A particle at the centre of a sphere of radius 1e-25 with a contact radius of 1e-25 touches it:
 * the response's first stage must not lose that to underflow (squares of ~1e-25 are 0 in float). */
static void respond_tiny_sphere(void)
{
    eddy_world *w;
    eddy_error err;
    assert_int_equal(eddy_world_create(3, &w, &err), 0);
    w->smoothing_radius = 0.05f;
    eddy_material mat = eddy_default_material();
    mat.rest_density = 1000.0f;
    mat.particle_mass = 1000.0f * powf(0.02f, 3.0f);
    mat.contact.radius = 1e-25f;
    mat.contact.margin = 0.0f;
    if (eddy_world_add_material(w, &mat, &err)) fail_msg("material: %s", err.message);
    eddy_collider ball = eddy_default_collider();
    ball.shape = EDDY_SHAPE_SPHERE;
    ball.radius = 1e-25f;
    assert_int_equal(eddy_world_add_collider(w, &ball, &err), 0);
    const float pos[3] = {0.0f, 0.0f, 0.0f}, vel[3] = {0.0f, -1.0f, 0.0f};
    assert_int_equal(eddy_world_add_particles(w, 1, pos, vel, 0, &err), 0);
    float q[3] = {0.0f, 0.0f, 0.0f}, v[3] = {0.0f, -1.0f, 0.0f};
    assert_true(eddy_contact_respond(&w->boundaries.colliders[0], 3, &w->contacts[0], q, v, 0.001f));
    eddy_boundaries_respond(&w->boundaries, w->contacts, &w->particles, 0.001f);
    const eddy_particles *p = &w->particles;
    const float got[6] = {p->x[0], p->y[0], p->z[0], p->vx[0], p->vy[0], p->vz[0]};
    const float want[6] = {q[0], q[1], q[2], v[0], v[1], v[2]};
    if (memcmp(got, want, sizeof got) != 0)
        fail_msg("tiny sphere: y %.9g vy %.9g, one by one y %.9g vy %.9g", (double)got[1], (double)got[4],
                 (double)q[1], (double)v[1]);
    eddy_world_destroy(w);
}

/*
 * The response of a whole world (eddy_boundaries_respond, which first picks in SIMD loops the
 * particles that may touch anything) against eddy_contact_respond applied to every particle and every
 * collider in order, bit for bit: container walls, a tilted plane, a sphere, and (second world) a box,
 * which the pick does not model; three materials of different contact radii; particles placed at
 * distances around each contact radius, down to a few ulps either side, inside the solids and beyond.
 */
static void respond_world(int dims, int with_box)
{
    eddy_world *w;
    eddy_error err;
    assert_int_equal(eddy_world_create(dims, &w, &err), 0);
    w->smoothing_radius = 0.05f;
    const float radii[3] = {0.01f, 0.025f, 0.004f};
    for (int m = 0; m < 3; ++m) {
        eddy_material mat = eddy_default_material();
        mat.rest_density = 1000.0f;
        mat.particle_mass = 1000.0f * powf(0.02f, (float)dims);
        snprintf(mat.name, sizeof mat.name, "m%d", m);
        mat.contact.radius = radii[m];
        mat.contact.margin = 0.25f * radii[m];
        mat.contact.restitution = 0.1f * (float)m;
        mat.contact.friction = 0.2f;
        mat.contact.erp = 0.5f;
        if (eddy_world_add_material(w, &mat, &err)) fail_msg("material: %s", err.message);
    }
    const float lo[3] = {-1.0f, 0.0f, 2.0f}, hi[3] = {3.0f, 1.5f, 2.75f};
    const int periodic[3] = {0, 0, 0};
    assert_int_equal(eddy_world_set_container(w, lo, hi, periodic, &err), 0);
    eddy_collider tilted = eddy_default_collider();
    tilted.point[0] = 1.0f, tilted.point[1] = 0.3f, tilted.point[2] = 2.2f;
    tilted.normal[0] = 0.3f, tilted.normal[1] = 1.0f, tilted.normal[2] = dims == 3 ? -0.2f : 0.0f;
    tilted.velocity[0] = 0.5f;
    assert_int_equal(eddy_world_add_collider(w, &tilted, &err), 0);
    eddy_collider ball = eddy_default_collider();
    ball.shape = EDDY_SHAPE_SPHERE;
    ball.center[0] = 2.0f, ball.center[1] = 0.8f, ball.center[2] = 2.4f;
    ball.radius = 0.3f;
    assert_int_equal(eddy_world_add_collider(w, &ball, &err), 0);
    if (with_box) {
        eddy_collider box = eddy_default_collider();
        box.shape = EDDY_SHAPE_BOX;
        for (int a = 0; a < 3; ++a) box.min[a] = lo[a] + 0.5f, box.max[a] = lo[a] + 0.9f;
        assert_int_equal(eddy_world_add_collider(w, &box, &err), 0);
    }
    const eddy_boundaries *b = &w->boundaries;
    /* Each particle near a random collider, at a random distance from it around a contact radius. */
    enum { N = 3000 };
    float pos[3 * N], vel[3 * N];
    uint64_t seed = 99;
    for (size_t i = 0; i < N; ++i) {
        const eddy_collider *c = &b->colliders[(size_t)(uniform(&seed) * (double)b->collider_count)];
        float q[3];
        for (int a = 0; a < 3; ++a) q[a] = lo[a] + (float)uniform(&seed) * (hi[a] - lo[a]);
        if (dims == 2) q[2] = 0.0f;
        float n[3];
        const float d = eddy_collider_distance(c, dims, q, n);
        const float r = radii[(size_t)(uniform(&seed) * 3.0)];
        const double u = uniform(&seed);
        /* Within a few ulps of r, or anywhere in [-2r, 4r]. */
        const float want = u < 0.5 ? r * (1.0f + (float)(uniform(&seed) - 0.5) * 4e-7f)
                                   : r * (float)(6.0 * uniform(&seed) - 2.0);
        for (int a = 0; a < dims; ++a) q[a] += (want - d) * n[a];
        for (int a = 0; a < 3; ++a) pos[3 * i + a] = q[a], vel[3 * i + a] = (float)(uniform(&seed) - 0.5);
        if (dims == 2) vel[3 * i + 2] = 0.0f;
    }
    for (size_t i = 0; i < N; ++i)
        if (eddy_world_add_particles(w, 1, pos + 3 * i, vel + 3 * i, material_of(i), &err))
            fail_msg("particles: %s", err.message);
    eddy_particles *p = &w->particles;
    eddy_boundaries_respond(b, w->contacts, p, 0.001f);
    size_t touched = 0;
    for (size_t i = 0; i < N; ++i) {
        float q[3] = {pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]}, v[3] = {vel[3 * i], vel[3 * i + 1], vel[3 * i + 2]};
        int any = 0;
        for (size_t k = 0; k < b->collider_count; ++k)
            any |= eddy_contact_respond(&b->colliders[k], dims, &w->contacts[material_of(i)], q, v, 0.001f);
        touched += (size_t)any;
        const float got[6] = {p->x[i], p->y[i], p->z[i], p->vx[i], p->vy[i], p->vz[i]};
        const float want[6] = {q[0], q[1], q[2], v[0], v[1], v[2]};
        if (memcmp(got, want, sizeof got) != 0)
            fail_msg("%dD, particle %zu: (%.9g %.9g %.9g) velocity (%.9g %.9g %.9g), one by one (%.9g %.9g %.9g) "
                     "velocity (%.9g %.9g %.9g)",
                     dims, i, (double)got[0], (double)got[1], (double)got[2], (double)got[3], (double)got[4],
                     (double)got[5], (double)q[0], (double)q[1], (double)q[2], (double)v[0], (double)v[1],
                     (double)v[2]);
    }
    print_message("%dD%s: %zu of %d particles touched a surface\n", dims, with_box ? " with a box" : "", touched, N);
    assert_true(touched > N / 4 && touched < 3 * N / 4); /* both kinds in numbers */
    eddy_world_destroy(w);
}

static void response_of_all_matches_one_by_one(void **state)
{
    (void)state;
    respond_world(3, 0);
    respond_world(2, 0);
    respond_world(3, 1);
    respond_tiny_sphere();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_collider),
        cmocka_unit_test(distances),
        cmocka_unit_test(container_walls),
        cmocka_unit_test(response_removes_approach_and_friction),
        cmocka_unit_test(response_erp_pushes_out),
        cmocka_unit_test(response_relative_to_moving_wall),
        cmocka_unit_test(mirrors_continue_a_lattice),
        cmocka_unit_test(mirrors_continue_hydrostatic_pressure),
        cmocka_unit_test(response_of_all_matches_one_by_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
