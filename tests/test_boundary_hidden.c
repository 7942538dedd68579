/*
 * Colliders the fluid cannot meet add no wall: a solid within another's (a box under the container's
 * floor, or whose top face is the floor) has no mirrors and no contact response, and of two walls
 * facing the same way only the nearer is mirrored. Each point's mirrors are checked against the
 * reflections worked out by hand, and the contact response against the floor's alone.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <eddy/boundary_math.h>
#include <eddy/eddy.h>

#define REACH 0.01f

static eddy_collider floor_y0(void)
{
    eddy_collider c = eddy_default_collider(); /* y = 0 facing +y */
    c.is_container_wall = 1;
    return c;
}

static eddy_collider box(float x0, float y0, float z0, float x1, float y1, float z1)
{
    eddy_collider c = eddy_default_collider();
    c.shape = EDDY_SHAPE_BOX;
    c.min[0] = x0, c.min[1] = y0, c.min[2] = z0;
    c.max[0] = x1, c.max[1] = y1, c.max[2] = z1;
    return c;
}

static eddy_collider sphere(float x, float y, float z, float r)
{
    eddy_collider c = eddy_default_collider();
    c.shape = EDDY_SHAPE_SPHERE;
    c.center[0] = x, c.center[1] = y, c.center[2] = z;
    c.radius = r;
    return c;
}

static eddy_boundaries world_of(eddy_collider *c, size_t count, int dims)
{
    eddy_boundaries b;
    memset(&b, 0, sizeof b);
    b.dimensions = dims;
    b.collider_count = count;
    b.colliders = c;
    return b;
}

/* p has exactly one mirror, the reflection across the plane y = at (x' = x, y' = 2 at - y, z' = z),
 * and its wall is collider `wall`. */
static void expect_one_reflection(const eddy_boundaries *b, const float p[3], float at, size_t wall)
{
    eddy_mirror m[EDDY_MAX_MIRRORS];
    size_t walls[EDDY_MAX_MIRROR_WALLS];
    const int n = eddy_boundaries_mirrors(b, NULL, REACH, p, m);
    if (n != 1)
        fail_msg("the point (%g, %g, %g) has %d mirrors, expected 1 (the reflection across y = %g)", (double)p[0],
                 (double)p[1], (double)p[2], n, (double)at);
    assert_int_equal(eddy_boundaries_mirror_walls(b, REACH, p, walls), 1);
    assert_int_equal(walls[0], wall);
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) assert_true(m[0].rotation[a][c] == (a != c ? 0.0f : a == 1 ? -1.0f : 1.0f));
    const float ghost_of[3] = {p[0], p[1] + 0.004f, p[2]};
    float ghost[3];
    eddy_mirror_point(&m[0], ghost_of, ghost);
    assert_true(ghost[0] == ghost_of[0] && ghost[2] == ghost_of[2]);
    assert_true(fabsf(ghost[1] - (2.0f * at - ghost_of[1])) < 1e-7f);
}

/* Points over the floor within reach of it, across x in [0, 1] (and z in 3D): under the floor's reach
 * only, between the box's edges and beyond them. */
static void expect_floor_only(eddy_collider *c, size_t count, int dims)
{
    eddy_boundaries b = world_of(c, count, dims);
    for (int i = 0; i <= 40; ++i)
        for (int j = 0; j < 4; ++j)
            for (int l = 0; l < (dims == 3 ? 5 : 1); ++l) {
                const float p[3] = {0.025f * (float)i, 0.0005f + 0.0025f * (float)j, dims == 3 ? 0.25f * (float)l : 0.0f};
                expect_one_reflection(&b, p, 0.0f, 0);
            }
}

static void box_under_floor_adds_no_mirror(void **state)
{
    (void)state;
    for (int dims = 2; dims <= 3; ++dims) {
        /* Top face on the floor, spanning the tank. */
        eddy_collider c[2] = {floor_y0(), box(-0.5f, -0.2f, -0.5f, 1.5f, 0.0f, 1.5f)};
        expect_floor_only(c, 2, dims);
        /* Top face under the floor within reach of the fluid: the translation of reflections across
         * two parallel planes laid the fluid over itself 2 * 0.005 lower. */
        c[1] = box(-0.5f, -0.2f, -0.5f, 1.5f, -0.005f, 1.5f);
        expect_floor_only(c, 2, dims);
        /* Narrower than the tank, top face on the floor: its edges, on the floor, are no corner. */
        c[1] = box(0.3f, -0.2f, 0.3f, 0.6f, 0.0f, 0.6f);
        expect_floor_only(c, 2, dims);
        /* A ball under the floor touching it, and one in that box. */
        eddy_collider d[3] = {floor_y0(), sphere(0.5f, -0.1f, 0.5f, 0.1f), box(0.3f, -0.2f, 0.3f, 0.6f, 0.0f, 0.6f)};
        expect_floor_only(d, 2, dims);
        d[1] = sphere(0.45f, -0.1f, 0.45f, 0.05f);
        expect_floor_only(d, 3, dims);
        /* The box first in the list: hidden whatever the order. */
        eddy_collider e[2] = {box(-0.5f, -0.2f, -0.5f, 1.5f, 0.0f, 1.5f), floor_y0()};
        eddy_boundaries b = world_of(e, 2, dims);
        const float p[3] = {0.5f, 0.003f, 0.5f};
        expect_one_reflection(&b, p, 0.0f, 1);
    }
}

static void plane_over_a_wall_replaces_it(void **state)
{
    (void)state;
    /* A conveyor belt laid over the container's floor: one wall, the belt's, with its velocity. */
    eddy_collider belt = eddy_default_collider();
    belt.velocity[0] = 2.0f;
    eddy_collider c[2] = {floor_y0(), belt};
    eddy_boundaries b = world_of(c, 2, 2);
    const float p[3] = {0.3f, 0.004f, 0.0f};
    expect_one_reflection(&b, p, 0.0f, 1);
    /* Two equal planes: the later counts, so the first is hidden even listed after the floor. */
    eddy_collider d[3] = {floor_y0(), belt, belt};
    b = world_of(d, 3, 2);
    expect_one_reflection(&b, p, 0.0f, 2);
}

static void nearer_of_same_facing_walls(void **state)
{
    (void)state;
    /* A plate 0.004 thick on the floor: over it only its top face is a wall (its reflection composed
     * with the floor's is a translation by 0.008); beside it, the floor and the plate's side. */
    eddy_collider c[2] = {floor_y0(), box(0.3f, 0.0f, 0.0f, 0.6f, 0.004f, 1.0f)};
    eddy_boundaries b = world_of(c, 2, 3);
    for (int i = 0; i < 5; ++i) {
        const float p[3] = {0.35f + 0.05f * (float)i, 0.0045f + 0.001f * (float)i, 0.5f};
        expect_one_reflection(&b, p, 0.004f, 1);
    }
    size_t walls[EDDY_MAX_MIRROR_WALLS];
    eddy_mirror m[EDDY_MAX_MIRRORS];
    const float beside[3] = {0.297f, 0.002f, 0.5f};
    assert_int_equal(eddy_boundaries_mirror_walls(&b, REACH, beside, walls), 2);
    assert_int_equal(eddy_boundaries_mirrors(&b, NULL, REACH, beside, m), 3);
    /* A box in a moving lift under the floor, raised until its top is 0.002 over it: seen from then
     * on, and over it alone. */
    c[1] = box(0.3f, -0.2f, 0.0f, 0.6f, -0.01f, 1.0f);
    c[1].velocity[1] = 0.012f;
    const float over[3] = {0.45f, 0.005f, 0.5f};
    expect_one_reflection(&b, over, 0.0f, 0);
    eddy_collider_translate(&c[1], 3, 1.0);
    expect_one_reflection(&b, over, c[1].max[1], 1);
}

/* The contact response of particles near the floor with the box as with the floor alone: the
 * Bullet-Fluids push of erp of the depth beyond the margin, once. */
static void hidden_box_has_no_contact(void **state)
{
    (void)state;
    eddy_contact_params cp = {0.0025f, 0.00025f, 0.0f, 0.0f, 0.5f};
    eddy_collider c[2] = {floor_y0(), box(-0.5f, -0.2f, -0.5f, 1.5f, 0.0f, 1.5f)};
    eddy_boundaries b = world_of(c, 2, 2);
    enum { N = 8 };
    float x[N], y[N], z[N], vx[N], vy[N], vz[N];
    uint32_t material[N];
    eddy_particles p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < N; ++i) {
        x[i] = 0.1f * (float)i, y[i] = 0.0003f * (float)i - 0.0005f, z[i] = 0.0f;
        vx[i] = 0.1f, vy[i] = -0.2f, vz[i] = 0.0f;
        material[i] = 0;
    }
    p.count = N;
    p.x = x, p.y = y, p.z = z, p.vx = vx, p.vy = vy, p.vz = vz, p.material = material;
    eddy_boundaries_respond(&b, &cp, &p, 1e-4f);
    for (int i = 0; i < N; ++i) {
        const float y0 = 0.0003f * (float)i - 0.0005f;
        const float depth = cp.radius - y0 - cp.margin;
        const float want = depth > 0 ? y0 + cp.erp * depth : y0;
        if (fabsf(y[i] - want) > 1e-8f)
            fail_msg("particle %d at y = %g: pushed to %g, the floor alone pushes it to %g", i, (double)y0,
                     (double)y[i], (double)want);
        assert_true(vy[i] == 0.0f && vx[i] == 0.1f);
    }
}

static eddy_collider plane(float py, float nx, float ny)
{
    eddy_collider c = eddy_default_collider();
    c.point[1] = py;
    c.normal[0] = nx, c.normal[1] = ny;
    return c;
}

/* Containment worked out by hand, on values a float holds exactly. */
static void solids_within(void **state)
{
    (void)state;
    const eddy_collider cube = box(0.25f, 0.25f, 0.25f, 0.5f, 0.5f, 0.5f);      /* half diagonal 0.2165 */
    const eddy_collider ball = sphere(0.375f, 0.375f, 0.375f, 0.25f);
    const eddy_collider tight = sphere(0.375f, 0.375f, 0.375f, 0.1875f);        /* < 0.2165 */
    const eddy_collider inner = sphere(0.375f, 0.375f, 0.375f, 0.125f);         /* touches the cube's faces */
    const eddy_collider fat = sphere(0.375f, 0.375f, 0.375f, 0.15625f);
    const eddy_collider off = sphere(0.5f, 0.375f, 0.375f, 0.125f);             /* touches ball inside */
    const eddy_collider fl = floor_y0(), high = plane(0.5f, 0.0f, 1.0f), tilted = plane(0.0f, 0.6f, 0.8f);
    /* A rod along z: within the ball over x and y only. */
    const eddy_collider rod = box(0.3125f, 0.3125f, -8.0f, 0.4375f, 0.4375f, 8.0f);
    struct {
        const eddy_collider *a, *b;
        int dims, within;
    } cases[] = {
        {&cube, &ball, 3, 1},     {&cube, &tight, 3, 0}, {&inner, &cube, 3, 1},  {&fat, &cube, 3, 0},
        {&inner, &ball, 3, 1},    {&off, &ball, 3, 1},   {&ball, &inner, 3, 0},  {&fl, &high, 3, 1},
        {&high, &fl, 3, 0},       {&tilted, &fl, 3, 0},  {&fl, &tilted, 3, 0},   {&fl, &cube, 3, 0},
        {&fl, &ball, 3, 0},       {&rod, &ball, 2, 1},   {&rod, &ball, 3, 0},    {&cube, &high, 3, 1},
        {&cube, &fl, 3, 0},       {&inner, &high, 3, 1}, {&ball, &high, 3, 0},   {&fl, &fl, 3, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        if (eddy_hd_solid_within(cases[i].a, cases[i].b, cases[i].dims) != cases[i].within)
            fail_msg("case %zu: expected the solid %s within the other", i, cases[i].within ? "" : "not");
    /* A box under a tilted plane (its corner farthest along the normal is (-0.5, -0.5)). */
    const eddy_collider under = box(-1.0f, -1.0f, 0.0f, -0.5f, -0.5f, 0.0f);
    assert_true(eddy_hd_solid_within(&under, &tilted, 2));
    const eddy_collider over = box(-1.0f, -1.0f, 0.0f, -0.5f, 0.5f, 0.0f); /* 0.6 (-0.5) + 0.8 (0.5) > 0 */
    assert_false(eddy_hd_solid_within(&over, &tilted, 2));
    /* Hidden: within another; of equal solids all but the last. */
    eddy_collider list[] = {fl, cube, ball, fl, inner};
    const int hidden[] = {1, 1, 0, 0, 1};
    for (size_t k = 0; k < 5; ++k) assert_int_equal(eddy_hd_collider_hidden(list, 5, 3, k), hidden[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(box_under_floor_adds_no_mirror),
        cmocka_unit_test(plane_over_a_wall_replaces_it),
        cmocka_unit_test(nearer_of_same_facing_walls),
        cmocka_unit_test(hidden_box_has_no_contact),
        cmocka_unit_test(solids_within),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
