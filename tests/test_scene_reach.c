/*
 * How far a solid reaches into a fluid block, and what the scene says when it reaches too far
 * (host/scene/scene_colliders.c, scene_fluids.c):
 *
 *   - the depth is the least distance the solid would have to move to clear the block, so a ball
 *     centred inside a block reaches past the nearest face by its radius too (it was said to reach its
 *     radius alone), and a box spanning a block on one axis reaches as far as its far side (it was said
 *     to reach the width the two share). The values here are worked out by hand from the shapes;
 *   - a block past a wall of the container is refused as a block reaching into a collider is (it was
 *     accepted inside the domain, which widens the container by h, and its particles were thrown back
 *     at tens of m/s), with the same margin of half a fill spacing, and not on a periodic axis;
 *   - a pair error (a collider in a block, a block past a wall) that an override caused names the
 *     override (it named the file, without a line), and points at the collider or block in the file
 *     otherwise. Positions are found in the text by the test itself.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scene.h"
#include "scene_internal.h"

/* A 2D tank like the user's s1 scene: spacing 0.01 (half: 0.005), container [0, 1] x [0, 0.5], one
 * block [0, 0.2] x [0, 0.3], a box and a disc clear of it. */
static const char *const TANK =
    "{\n"
    "  \"solver\": \"sph_mueller\", \"dimensions\": 2,\n"
    "  \"time\": {\"dt\": 0.001, \"end\": 1},\n"
    "  \"world\": {\"smoothing_radius\": 0.02},\n"
    "  \"container\": {\"min\": [0, 0], \"max\": [1, 0.5]},\n"
    "  \"materials\": [{\"name\": \"water\", \"particle_spacing\": 0.01}],\n"
    "  \"fluids\": [\n"
    "    {\"material\": \"water\", \"box\": {\"min\": [0, 0], \"max\": [0.2, 0.3]}}\n"
    "  ],\n"
    "  \"colliders\": [\n"
    "    {\"type\": \"box\", \"min\": [0.45, 0], \"max\": [0.5, 0.06]},\n"
    "    {\"type\": \"sphere\", \"center\": [0.7, 0.1], \"radius\": 0.04}\n"
    "  ]\n"
    "}\n";

/* TANK with `from` replaced by `to` (the first occurrence). */
static char *edited(const char *from, const char *to)
{
    const char *at = strstr(TANK, from);
    assert_non_null(at);
    const size_t head = (size_t)(at - TANK), n = strlen(TANK) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)head, TANK, to, at + strlen(from));
    return out;
}

/* "t.json:LINE:COL" of the first occurrence of `what` in `text`, counted here. */
static void position_of(const char *text, const char *what, char *out, size_t size)
{
    const char *at = strstr(text, what);
    assert_non_null(at);
    int line = 1, col = 1;
    for (const char *p = text; p < at; ++p) {
        if (*p == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    snprintf(out, size, "t.json:%d:%d", line, col);
}

static void expect_error(const char *text, const char *const *sets, size_t n, const char *message)
{
    eddy_scene s;
    eddy_error e;
    eddy_error_clear(&e);
    const int rc = eddy_scene_parse(text, "t.json", sets, n, &s, &e);
    if (rc == 0) eddy_scene_free(&s);
    if (rc == 0 || strcmp(e.message, message) != 0)
        print_error("rc %d\n got:      %s\n expected: %s\n", rc, rc ? e.message : "(parsed)", message);
    assert_int_equal(rc, EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(e.message, message);
}

static void expect_ok(const char *text, const char *const *sets, size_t n)
{
    eddy_scene s;
    eddy_error e;
    eddy_error_clear(&e);
    const int rc = eddy_scene_parse(text, "t.json", sets, n, &s, &e);
    if (rc) print_error("expected the scene to parse, got: %s\n", e.message);
    assert_int_equal(rc, 0);
    eddy_scene_free(&s);
}

/* ------------------------------------------------------------------------------------------------ */
/* The depth                                                                                         */

static eddy_scene_fluid box_block(double x0, double y0, double x1, double y1)
{
    eddy_scene_fluid f;
    memset(&f, 0, sizeof f);
    f.shape = EDDY_FLUID_BOX;
    f.min[0] = (eddy_real)x0;
    f.min[1] = (eddy_real)y0;
    f.max[0] = (eddy_real)x1;
    f.max[1] = (eddy_real)y1;
    return f;
}

static eddy_scene_fluid disc_block(double x, double y, double r)
{
    eddy_scene_fluid f;
    memset(&f, 0, sizeof f);
    f.shape = EDDY_FLUID_SPHERE;
    f.center[0] = (eddy_real)x;
    f.center[1] = (eddy_real)y;
    f.radius = (eddy_real)r;
    for (int a = 0; a < 2; ++a) {
        f.min[a] = f.center[a] - f.radius;
        f.max[a] = f.center[a] + f.radius;
    }
    return f;
}

static eddy_collider ball(double x, double y, double r)
{
    eddy_collider c = eddy_default_collider();
    c.shape = EDDY_SHAPE_SPHERE;
    c.center[0] = (eddy_real)x;
    c.center[1] = (eddy_real)y;
    c.center[2] = 0;
    c.radius = (eddy_real)r;
    return c;
}

static eddy_collider box(double x0, double y0, double x1, double y1)
{
    eddy_collider c = eddy_default_collider();
    c.shape = EDDY_SHAPE_BOX;
    c.min[0] = (eddy_real)x0;
    c.min[1] = (eddy_real)y0;
    c.max[0] = (eddy_real)x1;
    c.max[1] = (eddy_real)y1;
    c.min[2] = c.max[2] = 0;
    return c;
}

static eddy_collider plane(double px, double py, double nx, double ny)
{
    eddy_collider c = eddy_default_collider();
    c.shape = EDDY_SHAPE_PLANE;
    c.point[0] = (eddy_real)px;
    c.point[1] = (eddy_real)py;
    c.point[2] = 0;
    c.normal[0] = (eddy_real)nx;
    c.normal[1] = (eddy_real)ny;
    c.normal[2] = 0;
    return c;
}

/* Within what the shapes' single precision allows. */
static void expect_depth(const char *what, const eddy_scene_fluid *f, const eddy_collider *c, double want)
{
    const double got = scene_overlap_depth(f, c, 2);
    if (!(fabs(got - want) <= 1e-6)) print_error("%s: depth %.9g, expected %.9g\n", what, got, want);
    assert_true(fabs(got - want) <= 1e-6);
}

static void depths(void **state)
{
    (void)state;
    const eddy_scene_fluid blk = box_block(0, 0, 0.2, 0.3);
    /* A disc centred 0.02 inside the face x = 0.2: out through that face, 0.02 + 0.04 (it said 0.04). */
    eddy_collider c = ball(0.18, 0.1, 0.04);
    expect_depth("disc centred inside", &blk, &c, 0.06);
    /* Centred outside: the radius less the distance, to the face and to the corner (0.03, 0.04 away). */
    c = ball(0.22, 0.1, 0.04);
    expect_depth("disc outside a face", &blk, &c, 0.02);
    c = ball(0.23, 0.34, 0.1);
    expect_depth("disc outside a corner", &blk, &c, 0.05);
    c = ball(0.3, 0.1, 0.04);
    expect_depth("disc clear", &blk, &c, -0.06);
    /* A wall across the block, x in [0.05, 0.1]: out through x = 0 is 0.1, through x = 0.2 is 0.15 (it
     * said 0.05, the width it shares with the block). */
    c = box(0.05, -1, 0.1, 1);
    expect_depth("box across the block", &blk, &c, 0.1);
    /* A box over a corner: 0.05 out along x, 0.2 along y. */
    c = box(0.15, 0.1, 1, 1);
    expect_depth("box over a corner", &blk, &c, 0.05);
    /* A box around the whole block: 1 to clear it either way (it said 0.2, the block's width). */
    c = box(-1, -1, 1, 1);
    expect_depth("box around the block", &blk, &c, 1.0);
    /* Planes: the block's lowest corner below them, along the unit normal. */
    c = plane(0, 0.25, 0, -1);
    expect_depth("plane across", &blk, &c, 0.05);
    c = plane(0.1, 0.1, 1, 1);
    expect_depth("tilted plane", &blk, &c, 0.2 / sqrt(2.0));
    /* A disc block: centred 0.02 inside a box, 0.05 + 0.02 (it said 0.05); two discs 0.1 apart. */
    const eddy_scene_fluid disc = disc_block(0.1, 0.1, 0.05);
    c = box(0.08, -1, 1, 1);
    expect_depth("disc block centred in a box", &disc, &c, 0.07);
    c = ball(0.1, 0.2, 0.08);
    expect_depth("disc block and a ball", &disc, &c, 0.03);
    c = plane(0, 0.12, 0, -1);
    expect_depth("disc block below a plane", &disc, &c, 0.03);
}

/* ------------------------------------------------------------------------------------------------ */
/* The container's walls                                                                            */

static void block_past_a_wall(void **state)
{
    (void)state;
    static const char *const BOX = "{\"min\": [0, 0], \"max\": [0.2, 0.3]}";
    char pos[64], msg[512];
    /* The user's case, in the file: 0.52 - 0.5 past the lid. */
    char *t = edited(BOX, "{\"min\": [0, 0.2], \"max\": [0.2, 0.52]}");
    position_of(t, "{\"min\": [0, 0.2]", pos, sizeof pos);
    snprintf(msg, sizeof msg,
             "%s: fluids[0].box: expected a block inside the container's walls, got one that reaches 0.02 past "
             "its wall at y = 0.5 (container.max), more than half its particle spacing of 0.01: particles would "
             "start outside the container",
             pos);
    expect_error(t, NULL, 0, msg);
    free(t);
    /* The lower wall of x, 0.015 past it (the domain reaches 0.02 past it). */
    t = edited(BOX, "{\"min\": [-0.015, 0], \"max\": [0.2, 0.3]}");
    position_of(t, "{\"min\": [-0.015", pos, sizeof pos);
    snprintf(msg, sizeof msg,
             "%s: fluids[0].box: expected a block inside the container's walls, got one that reaches 0.015 past "
             "its wall at x = 0 (container.min), more than half its particle spacing of 0.01: particles would "
             "start outside the container",
             pos);
    expect_error(t, NULL, 0, msg);
    free(t);
    /* A disc block: its top 0.465 + 0.05 is 0.015 past the lid. */
    t = edited("\"box\": {\"min\": [0, 0], \"max\": [0.2, 0.3]}",
               "\"sphere\": {\"center\": [0.5, 0.465], \"radius\": 0.05}");
    position_of(t, "{\"center\"", pos, sizeof pos);
    snprintf(msg, sizeof msg,
             "%s: fluids[0].sphere: expected a block inside the container's walls, got one that reaches 0.015 past "
             "its wall at y = 0.5 (container.max), more than half its particle spacing of 0.01: particles would "
             "start outside the container",
             pos);
    expect_error(t, NULL, 0, msg);
    free(t);
    /* Removing escaping particles does not make a start outside the walls sound. */
    const char *removed[] = {"domain.out_of_domain=remove", "fluids[0].box.max=[0.2,0.52]"};
    expect_error(TANK, removed, 2,
                 "--set 'fluids[0].box.max=[0.2,0.52]': fluids[0].box: expected a block inside the container's "
                 "walls, got one that reaches 0.02 past its wall at y = 0.5 (container.max), more than half its "
                 "particle spacing of 0.01: particles would start outside the container");
    /* An override of the container that leaves the block outside names it (the domain, widened by h =
     * 0.02, still holds the block). */
    const char *lower[] = {"container.max=[1,0.29]"};
    expect_error(TANK, lower, 1,
                 "--set 'container.max=[1,0.29]': fluids[0].box: expected a block inside the container's walls, "
                 "got one that reaches 0.01 past its wall at y = 0.29 (container.max), more than half its particle "
                 "spacing of 0.01: particles would start outside the container");
}

static void block_at_a_wall(void **state)
{
    (void)state;
    /* Touching the walls, and up to half a spacing (0.005) past them, as for a collider. */
    const char *touching[] = {"fluids[0].box.max=[0.2,0.5]"};
    expect_ok(TANK, touching, 1);
    const char *within[] = {"fluids[0].box.min=[-0.004,0]", "fluids[0].box.max=[0.2,0.504]"};
    expect_ok(TANK, within, 2);
    const char *disc[] = {
        "fluids[0]={\"material\": \"water\", \"sphere\": {\"center\": [0.25, 0.25], \"radius\": 0.25}}"};
    expect_ok(TANK, disc, 1);
    /* A periodic axis has no walls: a block across its ends wraps. */
    const char *periodic[] = {"domain.periodic=[true,false]", "fluids[0].box.min=[-0.05,0]"};
    expect_ok(TANK, periodic, 2);
    /* Without a container there are no walls, only the domain. */
    char *t = edited("\"container\": {\"min\": [0, 0], \"max\": [1, 0.5]}",
                     "\"domain\": {\"min\": [-0.1, 0], \"max\": [1, 0.5]}");
    const char *past[] = {"fluids[0].box.min=[-0.05,0]"};
    expect_ok(t, past, 1);
    free(t);
}

/* ------------------------------------------------------------------------------------------------ */
/* Who a pair error names                                                                           */

static void pair_errors_name_their_cause(void **state)
{
    (void)state;
    char pos[64], msg[512];
    /* The disc moved into the block by an override: the override, and the true depth. */
    const char *moved[] = {"colliders[1].center=[0.18,0.1]"};
    expect_error(TANK, moved, 1,
                 "--set 'colliders[1].center=[0.18,0.1]': colliders[1]: expected a solid clear of the fluid blocks, "
                 "got one that would have to move 0.06 to clear fluids[0], more than half its particle spacing of 0.01: particles "
                 "would start inside the solid");
    /* The block grown into the box by an override: that override. */
    const char *grown[] = {"fluids[0].box.max=[0.47,0.3]"};
    expect_error(TANK, grown, 1,
                 "--set 'fluids[0].box.max=[0.47,0.3]': colliders[0]: expected a solid clear of the fluid blocks, "
                 "got one that would have to move 0.02 to clear fluids[0], more than half its particle spacing of 0.01: particles "
                 "would start inside the solid");
    /* Both: the collider's. */
    const char *both[] = {"colliders[1].center=[0.18,0.1]", "fluids[0].box.max=[0.2,0.31]"};
    expect_error(TANK, both, 2,
                 "--set 'colliders[1].center=[0.18,0.1]': colliders[1]: expected a solid clear of the fluid blocks, "
                 "got one that would have to move 0.06 to clear fluids[0], more than half its particle spacing of 0.01: particles "
                 "would start inside the solid");
    /* Neither: the collider's place in the file. */
    char *t = edited("\"center\": [0.7, 0.1]", "\"center\": [0.18, 0.1]");
    position_of(t, "{\"type\": \"sphere\"", pos, sizeof pos);
    snprintf(msg, sizeof msg,
             "%s: colliders[1]: expected a solid clear of the fluid blocks, got one that would have to move "
             "0.06 to clear fluids[0], more than half its particle spacing of 0.01: particles would start inside the solid",
             pos);
    expect_error(t, NULL, 0, msg);
    /* A later override elsewhere leaves the file's collider named at its place. */
    const char *elsewhere[] = {"time.end=2"};
    expect_error(t, elsewhere, 1, msg);
    free(t);
    /* A block outside the domain by an override of its box names it too (it named the file); past the
     * container's lid as well, it is told by the container's message, the bound the scene wrote. */
    const char *outside[] = {"fluids[0].box.max=[0.2,0.6]"};
    expect_error(TANK, outside, 1,
                 "--set 'fluids[0].box.max=[0.2,0.6]': fluids[0].box: expected a block inside the container's "
                 "walls, got one that reaches 0.1 past its wall at y = 0.5 (container.max), more than half its "
                 "particle spacing of 0.01: particles would start outside the container");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(depths),
        cmocka_unit_test(block_past_a_wall),
        cmocka_unit_test(block_at_a_wall),
        cmocka_unit_test(pair_errors_name_their_cause),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
