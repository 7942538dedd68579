/*
 * `eddy run --render` frames (host/viz/render.c). Particles are placed at known points; where each lands
 * is worked out here from the camera math documented in render.h (basis, perspective divide, the
 * orthographic fit), its colour from eddy_picture_colormap at the value's place in the range, and the
 * PNG is read back with libpng. Errors are checked word for word, --movie with a stand-in ffmpeg
 * (a shell script) for the argument and failure paths, and with the real one where it is installed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first. */
#include <cmocka.h>

#include "canvas.h"
#include "picture.h"
#include "png_check.h"
#include "render.h"
#include "scene.h"

/* ---------------------------------------------------------------------------------------------- */
/* Fixtures                                                                                         */

/*
 * A scene whose "render" section is `render` (NULL: none), on line 7 of the text:
 *   1 {
 *   2   "dimensions": D,
 *   3   "time": {...},
 *   4   "world": {...},
 *   5   "materials": [...],
 *   6   "fluids": [...],
 *   7   "render": RENDER
 *   8 }
 */
static void parse_scene_every(int dimensions, const char *render, const char *interval, eddy_scene *s)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\n"
             "  \"dimensions\": %d, \"solver\": \"sph_mueller\",\n"
             "  \"time\": {\"dt\": 0.0001, \"end\": 1, \"output_interval\": %s},\n"
             "  \"world\": {\"smoothing_radius\": 0.2}, \"container\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},\n"
             "  \"materials\": [{\"name\": \"water\", \"particle_spacing\": 0.05}],\n"
             "  \"fluids\": [{\"material\": \"water\", \"box\": {\"min\": [0, 0, 0], \"max\": [0.1, 0.1, 0.1]}}]%s\n"
             "%s%s%s"
             "}\n",
             dimensions, interval, render ? "," : "", render ? "  \"render\": " : "", render ? render : "",
             render ? "\n" : "");
    eddy_error err = {0};
    if (eddy_scene_parse(text, "t.json", NULL, 0, s, &err)) fail_msg("scene does not parse: %s", err.message);
}

/* Frames every 0.1 s. */
static void parse_scene(int dimensions, const char *render, eddy_scene *s)
{
    parse_scene_every(dimensions, render, "0.1", s);
}

/* A world without particles: material spacing `spacing` (sim units), optional container (sim units). */
static eddy_world *make_world(int dimensions, float scale, float spacing, const float *lo, const float *hi)
{
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(dimensions, &w, &err), EDDY_OK);
    w->simulation_scale = scale;
    eddy_material m = eddy_default_material();
    snprintf(m.name, sizeof m.name, "water");
    m.rest_density = 1000.0f;
    /* No smoothing radius: the rest spacing is (m / rho0)^(1/d) exactly. */
    m.particle_mass = 1000.0f * powf(spacing, (float)dimensions);
    m.contact.radius = 0.01f;
    m.contact.erp = 0.5f;
    assert_int_equal(eddy_world_add_material(w, &m, &err), EDDY_OK);
    if (lo) assert_int_equal(eddy_world_set_container(w, lo, hi, NULL, &err), EDDY_OK);
    return w;
}

static void add_particle(eddy_world *w, float x, float y, float z, float pressure)
{
    eddy_error err = {0};
    const float p[3] = {x, y, z};
    size_t first;
    assert_int_equal(eddy_particles_add(&w->particles, 1, p, NULL, 0, &first, &err), EDDY_OK);
    w->particles.pressure[first] = pressure;
}

static eddy_renderer *open_ok(const eddy_scene *s, const eddy_world *w, const eddy_render_request *req, const char *dir)
{
    eddy_error err = {0};
    eddy_renderer *r = NULL;
    if (eddy_render_open(s, w, req, path_in_root(dir), &r, &err)) fail_msg("render open: %s", err.message);
    assert_non_null(r);
    return r;
}

static rgb_image render_one(eddy_renderer *r, const eddy_world *w, int frame, const char *dir, eddy_render_info *info)
{
    eddy_error err = {0};
    if (eddy_render_frame(r, w, frame, &err)) fail_msg("render frame: %s", err.message);
    assert_int_equal(eddy_render_info_get(r, info, &err), EDDY_OK);
    char name[256];
    snprintf(name, sizeof name, "%s/render/frame_%05d.png", dir, frame);
    rgb_image im = read_png(path_in_root(name));
    /* The PNG declares the size the layout says. */
    assert_int_equal(im.w, info->width);
    assert_int_equal(im.h, info->height);
    return im;
}

/* The render section of the perspective tests: eye (0.5, 0.5, 3) looking down -z at (0.5, 0.5, 0), up
 * +y, fov 60, pressure over [0, 1], 480 x 360 (persp_of gives its pixel of a point). */
static void parse_perspective_scene(eddy_scene *s)
{
    parse_scene(3,
                "{\"camera\": {\"eye\": [0.5, 0.5, 3], \"target\": [0.5, 0.5, 0], \"up\": [0, 1, 0], \"fov\": 60},"
                " \"field\": \"pressure\", \"range\": [0, 1], \"width\": 480, \"height\": 360}",
                s);
}

static void colour_at(double t, uint8_t c[3])
{
    eddy_picture_colormap((float)t, c);
}

static void assert_message(const eddy_error *err, const char *want)
{
    if (strcmp(err->message, want) != 0) fail_msg("message\n got:      %s\n expected: %s", err->message, want);
}

/* ---------------------------------------------------------------------------------------------- */
/* Geometry                                                                                         */

static void test_orthographic_front_view_fits_the_container(void **state)
{
    (void)state;
    eddy_scene s;
    parse_scene(2, "{\"camera\": \"view=-z\", \"field\": \"pressure\", \"range\": [0, 10], \"width\": 400}", &s);
    const float lo[3] = {0, 0, 0}, hi[3] = {2, 1, 0};
    eddy_world *w = make_world(2, 1.0f, 0.01f, lo, hi);
    add_particle(w, 0.5f, 0.25f, 0.0f, 2.5f);
    add_particle(w, 1.5f, 0.75f, 0.0f, 10.0f);
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&s, w, &req, "ortho");
    eddy_render_info info;
    rgb_image im = render_one(r, w, 0, "ortho", &info);
    assert_int_equal(im.w, 400);
    assert_false(info.perspective);

    /* Looking along -z with y up: right = +x, up = +y. The 2 x 1 container around its centre (1, 0.5)
     * fills the view where it binds: k = min(view width / 2, view height / 1). */
    double vw = info.view_x1 - info.view_x0, vh = info.view_y1 - info.view_y0;
    double k = fmin(vw / 2.0, vh / 1.0);
    assert_true(fabs(info.pixels_per_unit - k) < 1e-9 * k);
    assert_true(fabs(vw - 2.0 * vh) <= 2.0); /* the view takes the container's aspect */
    double cx = 0.5 * (info.view_x0 + info.view_x1), cy = 0.5 * (info.view_y0 + info.view_y1);
    uint8_t c[3];
    colour_at(0.25, c);
    assert_pixel(&im, cx + k * (0.5 - 1.0), cy - k * (0.25 - 0.5), c);
    colour_at(1.0, c);
    assert_pixel(&im, cx + k * (1.5 - 1.0), cy - k * (0.75 - 0.5), c);
    /* Between them: background. */
    const uint8_t white[3] = {255, 255, 255};
    assert_pixel(&im, cx, cy, white);
    /* The container's corners are drawn (grey), the bottom-left one at (cx - k, cy + k / 2). */
    const uint8_t *corner = pixel_at(&im, cx - k + 0.5, cy + 0.5 * k - 0.5);
    assert_true(corner[0] == corner[1] && corner[1] == corner[2] && corner[0] < 255);
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

static void test_the_scene_stays_in_its_rectangle(void **state)
{
    (void)state;
    /* Zoomed in 3x: the container's edges and most particles fall outside the view, and must not spill
     * over the margins and the colour bar (half a margin of slack, view_x0 / 2, is allowed). */
    eddy_scene s;
    parse_scene(2, "{\"camera\": \"view=-z;zoom=3\", \"field\": \"pressure\", \"range\": [0, 1]}", &s);
    const float lo[3] = {0, 0, 0}, hi[3] = {2, 1, 0};
    eddy_world *w = make_world(2, 1.0f, 0.05f, lo, hi);
    for (int i = 0; i <= 20; ++i)
        for (int j = 0; j <= 10; ++j) add_particle(w, 0.1f * (float)i, 0.1f * (float)j, 0.0f, 0.5f);
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&s, w, &req, "zoom");
    eddy_render_info info;
    rgb_image im = render_one(r, w, 0, "zoom", &info);
    int pad = info.view_x0 / 2;
    uint8_t c[3];
    colour_at(0.5, c);
    assert_true(has_color(&im, info.view_x0, info.view_y0, info.view_x1, info.view_y1, c));
    const uint8_t white[3] = {255, 255, 255};
    for (int y = 0; y < im.h; ++y)
        for (int x = 0; x < im.w; ++x) {
            int inside = x >= info.view_x0 - pad && x < info.view_x1 + pad && y >= info.view_y0 - pad &&
                         y < info.view_y1 + pad;
            if (inside || x >= info.view_x1 + info.view_x0 || y < info.view_y0) continue; /* bar, labels, text */
            assert_pixel(&im, x, y, white);
        }
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* The camera of the perspective tests, written out by hand: eye (0.5, 0.5, 3), target (0.5, 0.5, 0),
 * up +y. Forward (0, 0, -1), right = forward x up = (1, 0, 0), up (0, 1, 0); a world point (x, y, z)
 * sits at a = x - 0.5, b = y - 0.5, c = 3 - z from the eye (times the simulation scale). */
static void expect_perspective(const rgb_image *im, const eddy_render_info *info, double x, double y, double z,
                               double scale, const uint8_t colour[3])
{
    double a = (x - 0.5) * scale, b = (y - 0.5) * scale, c = (3.0 - z) * scale;
    double vh = info->view_y1 - info->view_y0;
    double f = vh / 2.0 / tan(60.0 / 2.0 * M_PI / 180.0);
    double cx = 0.5 * (info->view_x0 + info->view_x1), cy = 0.5 * (info->view_y0 + info->view_y1);
    assert_pixel(im, cx + f * a / c, cy - f * b / c, colour);
}

static void test_perspective_projection_in_world_units(void **state)
{
    (void)state;
    const double scales[2] = {1.0, 2.0};
    for (int k = 0; k < 2; ++k) {
        double sc = scales[k];
        eddy_scene s;
        parse_scene(3,
                    "{\"camera\": {\"eye\": [0.5, 0.5, 3], \"target\": [0.5, 0.5, 0], \"up\": [0, 1, 0], \"fov\": 60},"
                    " \"field\": \"pressure\", \"range\": [0, 100], \"width\": 480, \"height\": 360}",
                    &s);
        eddy_world *w = make_world(3, (float)sc, 0.02f * (float)sc, NULL, NULL);
        add_particle(w, (float)(0.8 * sc), (float)(0.6 * sc), (float)(0.2 * sc), 75.0f);
        add_particle(w, (float)(0.2 * sc), (float)(0.3 * sc), (float)(-0.5 * sc), 25.0f);
        add_particle(w, (float)(0.9 * sc), (float)(0.1 * sc), (float)(1.0 * sc), 50.0f);
        /* Behind the eye: must not be drawn (nor mirrored in front). */
        add_particle(w, (float)(0.5 * sc), (float)(0.5 * sc), (float)(4.0 * sc), 0.0f);
        eddy_render_request req = eddy_render_default_request();
        req.enabled = 1;
        char dir[32];
        snprintf(dir, sizeof dir, "persp%d", k);
        eddy_renderer *r = open_ok(&s, w, &req, dir);
        eddy_render_info info;
        rgb_image im = render_one(r, w, 3, dir, &info);
        assert_int_equal(im.w, 480);
        assert_int_equal(im.h, 360);
        assert_true(info.perspective);
        uint8_t c[3];
        colour_at(0.75, c);
        expect_perspective(&im, &info, 0.8, 0.6, 0.2, sc, c);
        colour_at(0.25, c);
        expect_perspective(&im, &info, 0.2, 0.3, -0.5, sc, c);
        colour_at(0.5, c);
        expect_perspective(&im, &info, 0.9, 0.1, 1.0, sc, c);
        uint8_t behind[3];
        colour_at(0.0, behind);
        assert_false(has_color(&im, info.view_x0, info.view_y0, info.view_x1, info.view_y1, behind));
        free(im.px);
        eddy_render_destroy(r);
        eddy_world_destroy(w);
        eddy_scene_free(&s);
    }
}

/* A 2D scene's camera may stand off the plane: its z counts in a "camera" object as in the --camera
 * string (it was dropped like a position's z, so an eye at z = 3 above a target at z = 0 was refused as
 * "the same point" and a "view" of [0, 0, -1] as having no length). */
static void test_2d_camera_objects_keep_their_z(void **state)
{
    (void)state;
    const char *sections[] = {
        "{\"camera\": {\"eye\": [0.5, 0.5, 3], \"target\": [0.5, 0.5, 0], \"fov\": 60},"
        " \"field\": \"pressure\", \"range\": [0, 100], \"width\": 480, \"height\": 360}",
        "{\"camera\": \"eye=0.5,0.5,3;target=0.5,0.5,0;fov=60\","
        " \"field\": \"pressure\", \"range\": [0, 100], \"width\": 480, \"height\": 360}",
    };
    for (int k = 0; k < 2; ++k) {
        eddy_scene s;
        parse_scene(2, sections[k], &s);
        eddy_world *w = make_world(2, 1.0f, 0.02f, NULL, NULL);
        add_particle(w, 0.8f, 0.6f, 0.0f, 75.0f);
        eddy_render_request req = eddy_render_default_request();
        req.enabled = 1;
        const char *dir = k ? "cam2d_string" : "cam2d_object";
        eddy_renderer *r = open_ok(&s, w, &req, dir);
        eddy_render_info info;
        rgb_image im = render_one(r, w, 0, dir, &info);
        assert_true(info.perspective);
        assert_true(info.eye[2] == 3.0f && info.target[2] == 0.0f);
        uint8_t c[3];
        colour_at(0.75, c);
        expect_perspective(&im, &info, 0.8, 0.6, 0.0, 1.0, c);
        free(im.px);
        eddy_render_destroy(r);
        eddy_world_destroy(w);
        eddy_scene_free(&s);
    }
    /* A view along -z, written as an array: the front view. */
    eddy_scene s;
    parse_scene(2, "{\"camera\": {\"view\": [0, 0, -1]}}", &s);
    eddy_world *w = make_world(2, 1.0f, 0.02f, NULL, NULL);
    add_particle(w, 0.8f, 0.6f, 0.0f, 75.0f);
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&s, w, &req, "cam2d_view");
    eddy_error err = {0};
    assert_int_equal(eddy_render_settle(r, w, &err), EDDY_OK);
    eddy_render_info info;
    assert_int_equal(eddy_render_info_get(r, &info, &err), EDDY_OK);
    assert_false(info.perspective);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

static void test_near_particles_cover_far_ones(void **state)
{
    (void)state;
    /* Perspective: eye (0, 0, 5) looking at the origin. The far particle is on the ray from the eye
     * through the near one (twice as far), so both land on one pixel. The far one comes later in
     * storage and id: only a depth sort puts the near one on top. */
    for (int ortho = 0; ortho < 2; ++ortho) {
        eddy_scene s;
        parse_scene(3, "{\"field\": \"pressure\", \"range\": [0, 1]}", &s);
        eddy_world *w = make_world(3, 1.0f, 0.1f, NULL, NULL);
        if (ortho) {
            add_particle(w, 0.3f, 0.2f, 0.5f, 1.0f);  /* near (larger z, the view looks along -z) */
            add_particle(w, 0.3f, 0.2f, -0.5f, 0.0f); /* far */
            add_particle(w, -0.4f, -0.3f, 0.0f, 0.5f);
        } else {
            add_particle(w, 0.1f, 0.1f, 2.0f, 1.0f);  /* near */
            add_particle(w, 0.2f, 0.2f, -1.0f, 0.0f); /* far: (0, 0, 5) + 2 ((0.1, 0.1, 2) - (0, 0, 5)) */
        }
        eddy_render_request req = eddy_render_default_request();
        req.enabled = 1;
        req.camera = ortho ? "view=-z" : "eye=0,0,5;target=0,0,0";
        eddy_renderer *r = open_ok(&s, w, &req, ortho ? "depth_o" : "depth_p");
        eddy_render_info info;
        rgb_image im = render_one(r, w, 0, ortho ? "depth_o" : "depth_p", &info);
        double cx = 0.5 * (info.view_x0 + info.view_x1), cy = 0.5 * (info.view_y0 + info.view_y1);
        double x, y;
        if (ortho) {
            assert_false(info.perspective);
            /* Framed region: the particles' box (x -0.4..0.3, y -0.3..0.2, widened by half the spacing)
             * has its centre at (-0.05, -0.05); the target is there. */
            x = cx + info.pixels_per_unit * (0.3 + 0.05);
            y = cy - info.pixels_per_unit * (0.2 + 0.05);
        } else {
            assert_true(info.perspective);
            double f = (info.view_y1 - info.view_y0) / 2.0 / tan(40.0 / 2.0 * M_PI / 180.0); /* default fov */
            x = cx + f * 0.1 / 3.0;
            y = cy - f * 0.1 / 3.0;
        }
        uint8_t near[3], far[3];
        colour_at(1.0, near);
        colour_at(0.0, far);
        assert_pixel(&im, x, y, near);
        free(im.px);
        eddy_render_destroy(r);
        eddy_world_destroy(w);
        eddy_scene_free(&s);
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* Fields and colour ranges                                                                        */

static void test_fields_by_name_magnitude_and_component(void **state)
{
    (void)state;
    eddy_scene s;
    parse_scene(2, "{\"camera\": \"view=-z\", \"range\": [0, 10], \"width\": 200}", &s);
    eddy_world *w = make_world(2, 2.0f, 0.05f, NULL, NULL);
    add_particle(w, 0.0f, 0.0f, 0.0f, 0.0f);
    eddy_error err = {0};
    int fid;
    assert_int_equal(eddy_particles_add_field(&w->particles, "vorticity", 3, &fid, &err), EDDY_OK);
    eddy_particles_field(&w->particles, fid, 0)[0] = 3.0f;
    eddy_particles_field(&w->particles, fid, 1)[0] = 4.0f;
    /* Velocity in sim units: the colour bar shows world units, sim / 2. */
    w->particles.vx[0] = 12.0f;
    w->particles.vy[0] = -16.0f;
    w->particles.density[0] = 7.0f;
    struct {
        const char *field;
        double value;
        const char *unit;
    } cases[] = {
        /* (lengths and velocities in world units: not metres at simulation_scale 2) */
        {"vorticity", 5.0, ""},     {"vorticity.y", 4.0, ""},  {"velocity.x", 6.0, "world units/s"},
        {"speed", 10.0, "world units/s"}, {"velocity", 10.0, "world units/s"}, {"density", 7.0, "kg/m^3"},
        {"position.x", 0.0, "world units"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        eddy_render_request req = eddy_render_default_request();
        req.enabled = 1;
        req.field = cases[k].field;
        char dir[32];
        snprintf(dir, sizeof dir, "field%zu", k);
        eddy_renderer *r = open_ok(&s, w, &req, dir);
        eddy_render_info info;
        rgb_image im = render_one(r, w, 0, dir, &info);
        assert_string_equal(info.field, cases[k].field);
        assert_string_equal(info.unit, cases[k].unit);
        uint8_t c[3];
        colour_at(cases[k].value / 10.0, c);
        /* One particle: the framed region is centred on it, so it lands at the view's centre. */
        assert_pixel(&im, 0.5 * (info.view_x0 + info.view_x1), 0.5 * (info.view_y0 + info.view_y1), c);
        free(im.px);
        eddy_render_destroy(r);
    }
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

static void test_default_ranges_follow_the_rules(void **state)
{
    (void)state;
    /* Speed: 0 to the free-fall speed over the container's height along gravity, sqrt(2 g H) in world
     * units (here 0.8 m under 9.81 m/s^2), also when the world is stored at twice the scale. */
    for (int k = 1; k <= 2; ++k) {
        eddy_scene s;
        parse_scene(2, NULL, &s);
        const float lo[3] = {0, 0, 0}, hi[3] = {2.0f * k, 0.8f * k, 0};
        eddy_world *w = make_world(2, (float)k, 0.02f, lo, hi);
        w->gravity[1] = -9.81f * k;
        add_particle(w, 0.5f * k, 0.1f * k, 0.0f, 0.0f);
        w->particles.vx[0] = 1.0f * k; /* 1 m/s: below the free-fall speed */
        eddy_render_request req = eddy_render_default_request();
        req.enabled = 1;
        eddy_renderer *r = open_ok(&s, w, &req, "rule_speed");
        eddy_render_info info;
        rgb_image im = render_one(r, w, 0, "rule_speed", &info);
        double vff = sqrt(2.0 * 9.81 * 0.8);
        assert_true(info.range_min == 0.0);
        assert_true(fabs(info.range_max - vff) < 1e-5 * vff);
        assert_string_equal(info.field, "speed");
        free(im.px);
        eddy_render_destroy(r);
        eddy_world_destroy(w);
        eddy_scene_free(&s);
    }

    /* Pressure: from min(0, the first frame's smallest) to max(its largest, rho0 g H) — here without
     * gravity 0..30 — then kept: later values outside it clamp. */
    eddy_scene s;
    parse_scene(2, "{\"field\": \"pressure\", \"camera\": \"view=-z\"}", &s);
    eddy_world *w = make_world(2, 1.0f, 0.05f, NULL, NULL);
    add_particle(w, 0.0f, 0.0f, 0.0f, 10.0f);
    add_particle(w, 1.0f, 0.0f, 0.0f, 30.0f);
    add_particle(w, 2.0f, 0.0f, 0.0f, 20.0f);
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&s, w, &req, "rule_p");
    eddy_render_info info;
    rgb_image im = render_one(r, w, 0, "rule_p", &info);
    assert_true(info.range_min == 0.0 && info.range_max == 30.0);
    free(im.px);
    w->particles.pressure[0] = 40.0f; /* above the range */
    w->particles.pressure[2] = 15.0f;
    im = render_one(r, w, 1, "rule_p", &info);
    assert_true(info.range_min == 0.0 && info.range_max == 30.0);
    double cx = 0.5 * (info.view_x0 + info.view_x1), cy = 0.5 * (info.view_y0 + info.view_y1);
    double k = info.pixels_per_unit;
    uint8_t c[3];
    colour_at(1.0, c);
    assert_pixel(&im, cx + k * (0.0 - 1.0), cy, c);
    colour_at(0.5, c);
    assert_pixel(&im, cx + k * (2.0 - 1.0), cy, c);
    free(im.px);
    eddy_render_destroy(r);

    /* The pressure rule's ends are the frame's own extremes, widened only when the result is empty:
     * zero pressure under gravity starts at 0 (not at the -1 of an empty range widened first), a
     * uniform 5 without gravity gives 0..5 (not 0..5.5). */
    for (int k = 0; k < 2; ++k) {
        eddy_scene s2;
        parse_scene(2, "{\"field\": \"pressure\"}", &s2);
        const float lo[3] = {0, 0, 0}, hi[3] = {2, 0.8f, 0};
        eddy_world *w2 = make_world(2, 1.0f, 0.05f, lo, hi);
        w2->gravity[1] = k ? 0.0f : -9.81f;
        add_particle(w2, 0.5f, 0.1f, 0.0f, k ? 5.0f : 0.0f);
        add_particle(w2, 0.7f, 0.1f, 0.0f, k ? 5.0f : 0.0f);
        eddy_render_request req2 = eddy_render_default_request();
        req2.enabled = 1;
        eddy_renderer *r2 = open_ok(&s2, w2, &req2, "rule_p_even");
        eddy_error err = {0};
        eddy_render_info info2;
        assert_int_equal(eddy_render_settle(r2, w2, &err), EDDY_OK);
        assert_int_equal(eddy_render_info_get(r2, &info2, &err), EDDY_OK);
        const double want = k ? 5.0 : 1000.0 * (double)9.81f * (double)0.8f;
        if (!(info2.range_min == 0.0 && fabs(info2.range_max - want) < 1e-9 * want))
            fail_msg("pressure range %g..%g, expected 0..%g", info2.range_min, info2.range_max, want);
        eddy_render_destroy(r2);
        eddy_world_destroy(w2);
        eddy_scene_free(&s2);
    }

    /* "frame": every frame its own range. */
    req.range = "frame";
    r = open_ok(&s, w, &req, "rule_frame");
    im = render_one(r, w, 0, "rule_frame", &info); /* values 40, 30, 15 */
    assert_true(info.range_per_frame);
    /* The colour bar keeps room for any label now, so the view (and its centre) moved. */
    cx = 0.5 * (info.view_x0 + info.view_x1);
    cy = 0.5 * (info.view_y0 + info.view_y1);
    colour_at((30.0 - 15.0) / (40.0 - 15.0), c);
    assert_pixel(&im, cx, cy, c);
    free(im.px);
    eddy_render_destroy(r);

    /* Density: the rest density -+ 10%. */
    req.range = NULL;
    req.field = "density";
    r = open_ok(&s, w, &req, "rule_rho");
    im = render_one(r, w, 0, "rule_rho", &info);
    assert_true(fabs(info.range_min - 900.0) < 1e-9 && fabs(info.range_max - 1100.0) < 1e-9);
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* A field that is constant in the first frame (vorticity before the flow starts) leaves the default range
 * open: -1..1 fixed there saturated every later frame. It settles at the first frame where the field
 * varies, from the values of that frame, and is kept from then on. A vector drawn as its magnitude starts
 * at 0. Two particles at (0, 0) and (1, 0): the framed region is centred at (0.5, 0). */
static void set_vorticity(eddy_world *w, int fid, size_t i, float x, float y, float z)
{
    eddy_particles_field(&w->particles, fid, 0)[i] = x;
    eddy_particles_field(&w->particles, fid, 1)[i] = y;
    eddy_particles_field(&w->particles, fid, 2)[i] = z;
}

/* The colours of the particles at (0, 0) and (1, 0) are those of t0 and t1 along the bar. */
static void expect_two(const rgb_image *im, const eddy_render_info *info, double t0, double t1)
{
    double cx = 0.5 * (info->view_x0 + info->view_x1), cy = 0.5 * (info->view_y0 + info->view_y1);
    double k = info->pixels_per_unit;
    uint8_t c[3];
    colour_at(t0, c);
    assert_pixel(im, cx - 0.5 * k, cy, c);
    colour_at(t1, c);
    assert_pixel(im, cx + 0.5 * k, cy, c);
}

static void expect_range(const eddy_render_info *info, double lo, double hi)
{
    if (!(fabs(info->range_min - lo) <= 1e-6 * fabs(hi - lo) && fabs(info->range_max - hi) <= 1e-6 * fabs(hi - lo)))
        fail_msg("range %g..%g, expected %g..%g", info->range_min, info->range_max, lo, hi);
}

static void test_a_magnitude_range_starts_at_zero(void **state)
{
    (void)state;
    eddy_scene s;
    parse_scene(2, "{\"field\": \"vorticity\", \"camera\": \"view=-z\"}", &s);
    eddy_world *w = make_world(2, 1.0f, 0.05f, NULL, NULL);
    add_particle(w, 0.0f, 0.0f, 0.0f, 0.0f);
    add_particle(w, 1.0f, 0.0f, 0.0f, 0.0f);
    eddy_error err = {0};
    int fid;
    assert_int_equal(eddy_particles_add_field(&w->particles, "vorticity", 3, &fid, &err), EDDY_OK);
    set_vorticity(w, fid, 0, 0.0f, 3.0f, 0.0f); /* |.| = 3 */
    set_vorticity(w, fid, 1, 3.0f, 0.0f, 4.0f); /* |.| = 5 */
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&s, w, &req, "mag0");
    eddy_render_info info;
    rgb_image im = render_one(r, w, 0, "mag0", &info);
    expect_range(&info, 0.0, 5.0);
    expect_two(&im, &info, 3.0 / 5.0, 1.0);
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

static void test_a_field_constant_at_first_settles_its_range_later(void **state)
{
    (void)state;
    struct {
        const char *field;
        double lo1, hi1;       /* the range frame 1 settles: its values' */
        double first;          /* where frame 0's constant 0 sits on the provisional bar */
    } cases[] = {
        {"vorticity", 0.0, 5.0, 0.0},    /* magnitudes 2 and 5: from 0; 0 at the bottom before */
        {"vorticity.z", -2.0, 5.0, 0.5}, /* a component: its values; 0 in the middle of -1..1 before */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        eddy_scene s;
        parse_scene(2, "{\"camera\": \"view=-z\"}", &s);
        eddy_world *w = make_world(2, 1.0f, 0.05f, NULL, NULL); /* gravity 0 */
        add_particle(w, 0.0f, 0.0f, 0.0f, 0.0f);
        add_particle(w, 1.0f, 0.0f, 0.0f, 0.0f);
        eddy_error err = {0};
        int fid;
        assert_int_equal(eddy_particles_add_field(&w->particles, "vorticity", 3, &fid, &err), EDDY_OK);
        eddy_render_request req = eddy_render_default_request();
        req.enabled = 1;
        req.field = cases[k].field;
        char dir[32];
        snprintf(dir, sizeof dir, "late%zu", k);
        eddy_renderer *r = open_ok(&s, w, &req, dir);
        eddy_render_info info;
        /* Frame 0: everything at rest. */
        rgb_image im = render_one(r, w, 0, dir, &info);
        expect_two(&im, &info, cases[k].first, cases[k].first);
        free(im.px);
        /* Frame 1: values -2 and 5 (components), magnitudes 2 and 5. */
        set_vorticity(w, fid, 0, 0.0f, 0.0f, -2.0f);
        set_vorticity(w, fid, 1, 0.0f, 0.0f, 5.0f);
        w->particles.vx[0] = -2.0f;
        w->particles.vx[1] = 3.0f;
        w->particles.vy[1] = 4.0f;
        im = render_one(r, w, 1, dir, &info);
        expect_range(&info, cases[k].lo1, cases[k].hi1);
        const double a = cases[k].lo1 < 0.0 ? -2.0 : 2.0;
        expect_two(&im, &info, (a - cases[k].lo1) / (cases[k].hi1 - cases[k].lo1), 1.0);
        free(im.px);
        /* Frame 2: the range is kept; 10 clamps to the top, 2.5 (magnitudes; -2.5 a component) inside. */
        set_vorticity(w, fid, 0, 0.0f, 0.0f, -2.5f);
        set_vorticity(w, fid, 1, 0.0f, 0.0f, 10.0f);
        w->particles.vx[0] = -2.5f;
        w->particles.vx[1] = 6.0f;
        w->particles.vy[1] = 8.0f;
        im = render_one(r, w, 2, dir, &info);
        expect_range(&info, cases[k].lo1, cases[k].hi1);
        const double b = cases[k].lo1 < 0.0 ? -2.5 : 2.5;
        expect_two(&im, &info, fmax(0.0, (b - cases[k].lo1) / (cases[k].hi1 - cases[k].lo1)), 1.0);
        free(im.px);
        eddy_render_destroy(r);
        eddy_world_destroy(w);
        eddy_scene_free(&s);
    }
}

/* Speed and pressure at rest without gravity keep a unit range from the first frame (0..1 m/s, 0..1 Pa):
 * settled at the first frame that moved, the range was the round-off of a fluid settling (6e-5 m/s), and
 * a piston's 1 m/s flow later drew every particle at the top colour. */
static void test_at_rest_without_gravity_speed_and_pressure_keep_a_unit_range(void **state)
{
    (void)state;
    const char *fields[] = {"speed", "pressure"};
    for (size_t k = 0; k < 2; ++k) {
        eddy_scene s;
        parse_scene(2, "{\"camera\": \"view=-z\"}", &s);
        eddy_world *w = make_world(2, 1.0f, 0.05f, NULL, NULL); /* gravity 0 */
        add_particle(w, 0.0f, 0.0f, 0.0f, 0.0f);
        add_particle(w, 1.0f, 0.0f, 0.0f, 0.0f);
        eddy_render_request req = eddy_render_default_request();
        req.enabled = 1;
        req.field = fields[k];
        char dir[32];
        snprintf(dir, sizeof dir, "unit%zu", k);
        eddy_renderer *r = open_ok(&s, w, &req, dir);
        eddy_render_info info;
        rgb_image im = render_one(r, w, 0, dir, &info);
        expect_range(&info, 0.0, 1.0);
        assert_int_equal(info.range_pending, 0);
        free(im.px);
        /* Frame 1: round-off motion (6e-5) does not become the range. */
        w->particles.vx[1] = 6e-5f;
        w->particles.pressure[1] = 6e-5f;
        im = render_one(r, w, 1, dir, &info);
        expect_range(&info, 0.0, 1.0);
        free(im.px);
        eddy_render_destroy(r);
        eddy_world_destroy(w);
        eddy_scene_free(&s);
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* Colliders                                                                                        */

static void add_collider(eddy_world *w, const eddy_collider *c)
{
    eddy_error err = {0};
    if (eddy_world_add_collider(w, c, &err)) fail_msg("collider: %s", err.message);
}

/* A box [x0, x1] x [y0, y1] x [z0, z1] (z 0 in 2D). */
static void add_box(eddy_world *w, float x0, float y0, float z0, float x1, float y1, float z1)
{
    eddy_collider c = eddy_default_collider();
    c.shape = EDDY_SHAPE_BOX;
    c.min[0] = x0, c.min[1] = y0, c.min[2] = z0;
    c.max[0] = x1, c.max[1] = y1, c.max[2] = z1;
    add_collider(w, &c);
}

/* A sphere (a disc in 2D, z 0) of radius r at (x, y, z). */
static void add_sphere(eddy_world *w, float x, float y, float z, float r)
{
    eddy_collider c = eddy_default_collider();
    c.shape = EDDY_SHAPE_SPHERE;
    c.center[0] = x, c.center[1] = y, c.center[2] = z, c.radius = r;
    add_collider(w, &c);
}

/* The solid behind the plane through (px, py, pz) of normal (nx, ny, nz). */
static void add_plane(eddy_world *w, float px, float py, float pz, float nx, float ny, float nz)
{
    eddy_collider c = eddy_default_collider();
    c.shape = EDDY_SHAPE_PLANE;
    c.point[0] = px, c.point[1] = py, c.point[2] = pz;
    c.normal[0] = nx, c.normal[1] = ny, c.normal[2] = nz;
    add_collider(w, &c);
}

/* A collider's fill: a neutral grey, not the background (white) nor a colour of the colormap. */
static void expect_collider(const rgb_image *im, double x, double y, const char *what)
{
    const uint8_t *p = pixel_at(im, x, y);
    if (!(p[0] == p[1] && p[1] == p[2] && p[0] < 255))
        fail_msg("%s: pixel at (%.1f, %.1f) is (%d, %d, %d), expected the colliders' grey", what, x, y, p[0], p[1], p[2]);
}

static void expect_free(const rgb_image *im, double x, double y, const char *what)
{
    const uint8_t white[3] = {255, 255, 255};
    const uint8_t *p = pixel_at(im, x, y);
    if (!same_rgb(p, white))
        fail_msg("%s: pixel at (%.1f, %.1f) is (%d, %d, %d), expected the background", what, x, y, p[0], p[1], p[2]);
}

static void test_colliders_are_drawn_in_2d(void **state)
{
    (void)state;
    eddy_scene s;
    parse_scene(2, "{\"camera\": \"view=-z\", \"field\": \"pressure\", \"range\": [0, 1], \"width\": 400}", &s);
    const float lo[3] = {0, 0, 0}, hi[3] = {2, 1, 0};
    eddy_world *w = make_world(2, 1.0f, 0.05f, lo, hi);
    add_box(w, 0.2f, 0.1f, 0.0f, 0.6f, 0.5f, 0.0f);
    add_sphere(w, 1.0f, 0.6f, 0.0f, 0.2f);
    /* Solid below the line through (2, 0.4) of normal (-0.6, 0.8): y < 0.4 + 0.75 (x - 2), a wedge in the
     * container's bottom-right corner. */
    add_plane(w, 2.0f, 0.4f, 0.0f, -0.6f, 0.8f, 0.0f);
    add_particle(w, 0.4f, 0.3f, 0.0f, 0.5f); /* on the box: drawn over it */
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&s, w, &req, "coll2d");
    eddy_render_info info;
    rgb_image im = render_one(r, w, 0, "coll2d", &info);
    /* The front view of the 2 x 1 container: x = cx + k (x - 1), y = cy - k (y - 0.5). */
    double vw = info.view_x1 - info.view_x0, vh = info.view_y1 - info.view_y0;
    double k = fmin(vw / 2.0, vh / 1.0);
    double cx = 0.5 * (info.view_x0 + info.view_x1), cy = 0.5 * (info.view_y0 + info.view_y1);
#define AT(x, y) cx + k * ((x) - 1.0), cy - k * ((y) - 0.5)
    expect_collider(&im, AT(0.25, 0.15), "box");
    expect_collider(&im, AT(0.55, 0.45), "box");
    expect_free(&im, AT(0.15, 0.3), "left of the box");
    expect_free(&im, AT(0.65, 0.3), "right of the box");
    expect_free(&im, AT(0.4, 0.55), "above the box");
    expect_free(&im, AT(0.4, 0.05), "below the box");
    uint8_t c[3];
    colour_at(0.5, c);
    assert_pixel(&im, AT(0.4, 0.3), c);
    for (int d = 0; d < 8; ++d) {
        double a = d * M_PI / 4.0, ca = cos(a), sa = sin(a);
        expect_collider(&im, AT(1.0 + 0.85 * 0.2 * ca, 0.6 + 0.85 * 0.2 * sa), "disc");
        expect_free(&im, AT(1.0 + 1.15 * 0.2 * ca, 0.6 + 1.15 * 0.2 * sa), "around the disc");
    }
    expect_collider(&im, AT(1.9, 0.1), "plane");
    expect_collider(&im, AT(1.6, 0.02), "plane");
    expect_free(&im, AT(1.6, 0.2), "above the plane");
    expect_free(&im, AT(1.95, 0.5), "above the plane");
#undef AT
    free(im.px);
    eddy_render_destroy(r);

    /* picture.png, the renderer's preset: the same colliders, where its layout puts them. */
    eddy_error err = {0};
    eddy_picture_layout L;
    assert_int_equal(eddy_picture_layout_compute(w, NULL, &L, &err), EDDY_OK);
    assert_int_equal(eddy_picture_write(path_in_root("coll2d_picture.png"), w, NULL, &err), EDDY_OK);
    im = read_png(path_in_root("coll2d_picture.png"));
#define AT(x, y) L.origin_x + (x) * L.pixels_per_unit, L.origin_y - (y) * L.pixels_per_unit
    expect_collider(&im, AT(0.25, 0.15), "picture: box");
    expect_collider(&im, AT(1.0, 0.75), "picture: disc");
    expect_collider(&im, AT(1.9, 0.1), "picture: plane");
    expect_free(&im, AT(0.8, 0.3), "picture: between");
#undef AT
    free(im.px);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* 3D through a perspective camera (eye (0.5, 0.5, 3), target (0.5, 0.5, 0), fov 60): a sphere's
 * outline is the circle of the cone from the eye tangent to it, f R / sqrt(d^2 - R^2) pixels around its
 * centre's image; a box covers the images of its points. */
static void test_colliders_are_drawn_in_3d(void **state)
{
    (void)state;
    eddy_scene s;
    parse_perspective_scene(&s);
    eddy_world *w = make_world(3, 1.0f, 0.02f, NULL, NULL);
    add_sphere(w, 0.5f, 0.5f, 0.0f, 0.3f);
    add_box(w, 0.1f, 0.1f, -0.2f, 0.3f, 0.2f, 0.2f);
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&s, w, &req, "coll3d");
    eddy_render_info info;
    rgb_image im = render_one(r, w, 0, "coll3d", &info);
    double vh = info.view_y1 - info.view_y0;
    double f = vh / 2.0 / tan(30.0 * M_PI / 180.0);
    double cx = 0.5 * (info.view_x0 + info.view_x1), cy = 0.5 * (info.view_y0 + info.view_y1);
    double rho = f * 0.3 / sqrt(9.0 - 0.09);
    for (int d = 0; d < 8; ++d) {
        double a = d * M_PI / 4.0 + 0.1;
        expect_collider(&im, cx + 0.9 * rho * cos(a), cy + 0.9 * rho * sin(a), "sphere");
        expect_free(&im, cx + 1.1 * rho * cos(a), cy + 1.1 * rho * sin(a), "around the sphere");
    }
    /* The box's centre (0.2, 0.15, 0) and its near face's corner region; a point beside it. */
#define AT(x, y, z) cx + f * ((x) - 0.5) / (3.0 - (z)), cy - f * ((y) - 0.5) / (3.0 - (z))
    expect_collider(&im, AT(0.2, 0.15, 0.0), "box");
    expect_collider(&im, AT(0.12, 0.12, 0.2), "box");
    expect_free(&im, AT(0.2, 0.26, 0.2), "above the box");
    expect_free(&im, AT(0.02, 0.15, 0.2), "left of the box");
#undef AT
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* Colliders in 3D are painted farthest first: a sphere in front of a box listed after it covers the box's
 * edges (in list order the box's near-face edges, x = 0.5 +- 0.3 at z = -0.5, were drawn across the
 * sphere's disc). Eye at z = 3 looking down -z, fov 60: a point (x, y, z) projects f (x - 0.5) / (3 - z)
 * off the centre; the sphere (r 0.2 at z = 1) covers f 0.2 / sqrt(4 - 0.04) = 0.1005 f, the box's edge
 * lies at f 0.3 / 3.5 = 0.0857 f. */
static void test_colliders_in_3d_are_painted_farthest_first(void **state)
{
    (void)state;
    eddy_scene s;
    parse_perspective_scene(&s);
    eddy_world *w = make_world(3, 1.0f, 0.02f, NULL, NULL);
    add_sphere(w, 0.5f, 0.5f, 1.0f, 0.2f);
    add_box(w, 0.2f, 0.2f, -1.0f, 0.8f, 0.8f, -0.5f);
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&s, w, &req, "order3d");
    eddy_render_info info;
    rgb_image im = render_one(r, w, 0, "order3d", &info);
    const double f = (info.view_y1 - info.view_y0) / 2.0 / tan(30.0 * M_PI / 180.0);
    const double cx = 0.5 * (info.view_x0 + info.view_x1), cy = 0.5 * (info.view_y0 + info.view_y1);
    uint8_t fill[3];
    memcpy(fill, pixel_at(&im, cx, cy), 3); /* the sphere's centre: the fill */
    expect_collider(&im, cx, cy, "the sphere's centre");
    /* Where the box's near-face edges cross the sphere's disc: the sphere's fill, not the box's edge. */
    const double e = f * 0.3 / 3.5;
    const double at[4][2] = {{cx + e, cy}, {cx - e, cy}, {cx, cy + e}, {cx, cy - e}};
    for (int k = 0; k < 4; ++k) {
        const uint8_t *p = pixel_at(&im, at[k][0], at[k][1]);
        if (!same_rgb(p, fill))
            fail_msg("box edge under the sphere at (%.1f, %.1f): (%d, %d, %d), expected the sphere's fill (%d, %d, %d)",
                     at[k][0], at[k][1], p[0], p[1], p[2], fill[0], fill[1], fill[2]);
    }
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* The pixel of a world point through the camera of the perspective tests (eye (0.5, 0.5, 3), target
 * (0.5, 0.5, 0), up +y, fov 60): f (x - 0.5) / (3 - z), -f (y - 0.5) / (3 - z) off the view's centre. */
typedef struct persp_view {
    double f, cx, cy;
    const eddy_render_info *info;
} persp_view;

static persp_view persp_of(const eddy_render_info *info)
{
    persp_view v = {(info->view_y1 - info->view_y0) / 2.0 / tan(30.0 * M_PI / 180.0),
                    0.5 * (info->view_x0 + info->view_x1), 0.5 * (info->view_y0 + info->view_y1), info};
    return v;
}

/* (x, y) off the view's centre in units of f, checked to lie in the view (else the check means nothing). */
static void in_view(const persp_view *v, double fx, double fy, double *x, double *y)
{
    *x = v->cx + fx * v->f;
    *y = v->cy + fy * v->f;
    if (!(*x > v->info->view_x0 + 3 && *x < v->info->view_x1 - 3 && *y > v->info->view_y0 + 3 && *y < v->info->view_y1 - 3))
        fail_msg("test point (%.1f, %.1f) is not inside the view [%d, %d) x [%d, %d)", *x, *y, v->info->view_x0,
                 v->info->view_x1, v->info->view_y0, v->info->view_y1);
}

static void expect_collider_at(const rgb_image *im, const persp_view *v, double fx, double fy, const char *what)
{
    double x, y;
    in_view(v, fx, fy, &x, &y);
    expect_collider(im, x, y, what);
}

static void expect_free_at(const rgb_image *im, const persp_view *v, double fx, double fy, const char *what)
{
    double x, y;
    in_view(v, fx, fy, &x, &y);
    expect_free(im, x, y, what);
}

/* Nothing above the view's centre line: every shape below is under the eye (y < 0.5), so all its visible
 * points image below the centre; a point behind the eye projected as it is lands above it (y - 0.5 and
 * 3 - z both negative), mirrored. */
static void expect_no_mirror(const rgb_image *im, const persp_view *v, const char *what)
{
    const uint8_t white[3] = {255, 255, 255};
    for (int y = v->info->view_y0; y < (int)floor(v->cy) - 3; ++y)
        for (int x = v->info->view_x0; x < v->info->view_x1; ++x) {
            const uint8_t *p = pixel_at(im, x, y);
            if (!same_rgb(p, white))
                fail_msg("%s: pixel (%d, %d) above the centre line (%.1f) is (%d, %d, %d): drawn from behind the eye",
                         what, x, y, v->cy, p[0], p[1], p[2]);
        }
}

/* Colliders that reach behind a perspective eye are cut just in front of it and their front part drawn
 * (they were dropped whole). The camera of the perspective tests, looking down -z from z = 3:
 *   - a long box [0.2, 0.8] x [-0.5, 0.3] x [-1, 5] under the eye: its top face at y = 0.3 images at
 *     (f (x - 0.5), 0.2 f) / (3 - z); its edge x = 0.2, y = -0.5 at (-0.3 f, f) / (3 - z), inside the
 *     image of the box, so darker than the fill around it;
 *   - a sphere of radius 0.45 at (0.5, 0, 2.8), reaching z = 3.25 behind the eye: the cone of sight lines
 *     touching it has its axis atan(0.5 / 0.2) below the view and half-angle asin(0.45 / sqrt(0.29)), so
 *     the silhouette's top, straight below the centre, is f tan(axis - half) down; a sight line is inside
 *     when its angle to the axis is under the half-angle;
 *   - a floor y <= 0.2 in a container [-1, 2] x [0, 1] x [-1, 5] around the eye (the container's own far
 *     edges are drawn at z = -1: at +-0.375 f across and +-0.125 f up and down, and the floor's far edge at
 *     0.075 f down; the points checked keep clear of them): its top at (f (x - 0.5), 0.3 f) / (3 - z), its
 *     cut's edge along x = 2 at (1.5 f, 0.3 f) / (3 - z). */
static void test_colliders_reaching_behind_the_eye_are_cut_at_it(void **state)
{
    (void)state;
    eddy_scene s;
    parse_perspective_scene(&s);
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_render_info info;

    /* The box. */
    eddy_world *w = make_world(3, 1.0f, 0.02f, NULL, NULL);
    add_box(w, 0.2f, -0.5f, -1.0f, 0.8f, 0.3f, 5.0f);
    eddy_renderer *r = open_ok(&s, w, &req, "behind_box");
    rgb_image im = render_one(r, w, 0, "behind_box", &info);
    persp_view v = persp_of(&info);
    expect_collider_at(&im, &v, 0.0, 0.2 / 1.0, "box: its top at (0.5, 0.3, 2)");
    expect_collider_at(&im, &v, 0.2 / 0.5, 0.2 / 0.5, "box: its top at (0.7, 0.3, 2.5)");
    double x, y;
    in_view(&v, 0.0, 0.2, &x, &y);
    const uint8_t fill = pixel_at(&im, x, y)[0];
    in_view(&v, -0.3 / 2.0, 1.0 / 2.0, &x, &y);
    expect_collider(&im, x, y, "box: its edge x = 0.2, y = -0.5 at z = 1");
    if (!(pixel_at(&im, x, y)[0] < fill))
        fail_msg("box: the edge at (%.1f, %.1f) is %d, not darker than the fill (%d)", x, y, pixel_at(&im, x, y)[0], fill);
    expect_no_mirror(&im, &v, "box");
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);

    /* The sphere. */
    w = make_world(3, 1.0f, 0.02f, NULL, NULL);
    add_sphere(w, 0.5f, 0.0f, 2.8f, 0.45f);
    r = open_ok(&s, w, &req, "behind_ball");
    im = render_one(r, w, 0, "behind_ball", &info);
    v = persp_of(&info);
    const double axis[3] = {0.0, -0.5 / sqrt(0.29), 0.2 / sqrt(0.29)}; /* (right, up, forward) */
    const double half = asin(0.45 / sqrt(0.29));
    const double top = tan(atan2(0.5, 0.2) - half);
    expect_collider_at(&im, &v, 0.0, top, "sphere: the top of its silhouette (its edge)");
    expect_free_at(&im, &v, 0.0, top - 0.05, "sphere: above its silhouette");
    const double probes[3][2] = {{0.0, top + 0.15}, {0.3, 0.45}, {-0.3, 0.45}};
    for (int k = 0; k < 3; ++k) {
        /* (a sight line through the probe: right fx, up -fy, forward 1) */
        const double d[3] = {probes[k][0], -probes[k][1], 1.0};
        const double cosine = (d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2]) / sqrt(d[0] * d[0] + d[1] * d[1] + 1.0);
        assert_true(cosine > cos(half) + 0.02); /* well inside the silhouette */
        expect_collider_at(&im, &v, probes[k][0], probes[k][1], "sphere: inside its silhouette");
    }
    expect_no_mirror(&im, &v, "sphere");
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);

    /* The floor in a container around the eye. */
    const float lo[3] = {-1, 0, -1}, hi[3] = {2, 1, 5};
    w = make_world(3, 1.0f, 0.02f, lo, hi);
    add_plane(w, 0.5f, 0.2f, 0.5f, 0.0f, 1.0f, 0.0f);
    r = open_ok(&s, w, &req, "behind_floor");
    im = render_one(r, w, 0, "behind_floor", &info);
    v = persp_of(&info);
    expect_collider_at(&im, &v, 0.0, 0.3 / 1.5, "floor: its top at (0.5, 0.2, 1.5)");
    expect_collider_at(&im, &v, 0.3 / 1.0, 0.3 / 1.0, "floor: its top at (0.8, 0.2, 2)");
    expect_collider_at(&im, &v, 1.5 / 3.0, 0.3 / 3.0, "floor: its edge along x = 2 at z = 0");
    /* Where its top behind the eye, (0.5, 0.2, 4) and (0.2 or 0.8, 0.2, 4), would land projected as it
     * is, and above the floor's far edge. */
    expect_free_at(&im, &v, 0.0, -0.3, "floor: (0.5, 0.2, 4) mirrored");
    expect_free_at(&im, &v, 0.3, -0.3, "floor: (0.2, 0.2, 4) mirrored");
    expect_free_at(&im, &v, -0.3, -0.3, "floor: (0.8, 0.2, 4) mirrored");
    expect_free_at(&im, &v, 0.2, 0.03, "floor: above its far edge");
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* A moving collider (colliders[].velocity, moving_until) is drawn where it is at the frame's time: the
 * paddle [0.1, 0.2] x [0, 0.3] moves at 1 m/s until t = 0.2 s, so it spans x + min(t, 0.2). */
/* The container's own edges reaching behind the eye (the camera inside the tank) are cut at the near
 * plane as the colliders' are; they were dropped whole. The container [-1, 2] x [0, 1] x [-1, 5] around
 * the eye of the perspective tests: its long edge x = -1, y = 0 images at (-1.5 f, 0.5 f) / (3 - z), and
 * the edge x = 2, y = 1 at (1.5 f, -0.5 f) / (3 - z); no particle or collider is drawn. The part in front
 * of the near plane images millions of pixels out, past what cairo's fixed point holds: drawn as it
 * was, the line wrapped and crossed the picture elsewhere (eddy_canvas_polyline cuts it to the image). */
static void test_container_edges_behind_the_eye_are_cut_at_it(void **state)
{
    (void)state;
    eddy_scene s;
    parse_perspective_scene(&s);
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_render_info info;
    const float lo[3] = {-1, 0, -1}, hi[3] = {2, 1, 5};
    eddy_world *w = make_world(3, 1.0f, 0.02f, lo, hi);
    eddy_renderer *r = open_ok(&s, w, &req, "inside_tank");
    rgb_image im = render_one(r, w, 0, "inside_tank", &info);
    persp_view v = persp_of(&info);
    const uint8_t white[3] = {255, 255, 255};
    const double z[2] = {0.0, 0.5};
    for (int k = 0; k < 2; ++k) {
        const double d = 3.0 - z[k];
        double x, y;
        in_view(&v, -1.5 / d, 0.5 / d, &x, &y);
        if (same_rgb(pixel_at(&im, x, y), white))
            fail_msg("the container's edge x = -1, y = 0 at z = %g, pixel (%.1f, %.1f), is not drawn", z[k], x, y);
        in_view(&v, 1.5 / d, -0.5 / d, &x, &y);
        if (same_rgb(pixel_at(&im, x, y), white))
            fail_msg("the container's edge x = 2, y = 1 at z = %g, pixel (%.1f, %.1f), is not drawn", z[k], x, y);
    }
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

static void test_a_moving_collider_is_drawn_where_it_is(void **state)
{
    (void)state;
    const char *text =
        "{\"dimensions\": 2, \"solver\": \"sph_mueller\",\n"
        " \"time\": {\"dt\": 0.001, \"end\": 1, \"output_interval\": 0.05},\n"
        " \"world\": {\"gravity\": [0, -9.81], \"smoothing_radius\": 0.04, \"threads\": 1},\n"
        " \"container\": {\"min\": [0, 0], \"max\": [1, 0.5]},\n"
        " \"materials\": [{\"name\": \"water\", \"particle_spacing\": 0.02}],\n"
        " \"fluids\": [{\"material\": \"water\", \"box\": {\"min\": [0.9, 0], \"max\": [1.0, 0.04]}}],\n"
        " \"colliders\": [{\"type\": \"box\", \"min\": [0.1, 0], \"max\": [0.2, 0.3], \"velocity\": [1, 0],"
        " \"moving_until\": 0.2}]}\n";
    eddy_sim sim;
    support_open_text(text, NULL, 0, &sim);
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&sim.scene, sim.world, &req, "paddle");
    const double times[2] = {0.1, 0.3};
    for (int n = 0; n < 2; ++n) {
        support_advance(&sim, times[n]);
        eddy_render_info info;
        rgb_image im = render_one(r, sim.world, n, "paddle", &info);
        /* The front view of the 1 x 0.5 container around (0.5, 0.25). */
        double vw = info.view_x1 - info.view_x0, vh = info.view_y1 - info.view_y0;
        double k = fmin(vw / 1.0, vh / 0.5);
        double cx = 0.5 * (info.view_x0 + info.view_x1), cy = 0.5 * (info.view_y0 + info.view_y1);
        const double x0 = 0.1 + fmin(times[n], 0.2);
        char what[64];
        snprintf(what, sizeof what, "paddle at t = %g s", times[n]);
        expect_collider(&im, cx + k * (x0 + 0.02 - 0.5), cy - k * (0.25 - 0.25), what);
        expect_collider(&im, cx + k * (x0 + 0.08 - 0.5), cy - k * (0.25 - 0.25), what);
        expect_free(&im, cx + k * (x0 - 0.03 - 0.5), cy - k * (0.25 - 0.25), what);
        expect_free(&im, cx + k * (x0 + 0.13 - 0.5), cy - k * (0.25 - 0.25), what);
        free(im.px);
    }
    eddy_render_destroy(r);
    eddy_sim_close(&sim);
}

static void test_colour_bar_and_time_stamp(void **state)
{
    (void)state;
    eddy_scene s;
    parse_scene(2, "{\"field\": \"pressure\", \"range\": [0, 1], \"width\": 600}", &s);
    eddy_world *w = make_world(2, 1.0f, 0.05f, NULL, NULL);
    add_particle(w, 0.0f, 0.0f, 0.0f, 0.5f);
    w->time = 1.25;
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&s, w, &req, "bar");
    eddy_render_info info;
    rgb_image im = render_one(r, w, 0, "bar", &info);
    /* Right of the view: a column whose top row is the colormap's top and bottom row its bottom. */
    uint8_t top[3], bottom[3];
    colour_at(1.0, top);
    colour_at(0.0, bottom);
    int bar = -1;
    for (int x = info.view_x1; x < im.w && bar < 0; ++x)
        if (same_rgb(pixel_at(&im, x, info.view_y0), top)) bar = x;
    assert_true(bar > 0);
    assert_pixel(&im, bar, info.view_y1 - 1, bottom);
    /* Text above the view: the time at the left, the field name at the right (anti-aliased: dark
     * pixels, not the ink's colour exactly). */
    assert_true(has_dark(&im, 0, 0, im.w / 2, info.view_y0));
    assert_true(has_dark(&im, im.w / 2, 0, im.w, info.view_y0));
    /* The bar's values right of it: its ends and the "nice" steps between, here 0, 0.2, ..., 1 (the
     * bar holds 5 intervals when it is 8 lines of text tall). Ink at each label's place, none halfway
     * between two. */
    int end = bar;
    while (end < im.w && same_rgb(pixel_at(&im, end, info.view_y0), top)) ++end;
    int vh = info.view_y1 - info.view_y0;
    int th = eddy_canvas_text_height(eddy_canvas_font_px(600));
    assert_true(vh >= 8 * th);
    for (int k = 0; k <= 5; ++k) {
        double y = info.view_y1 - 0.5 - 0.2 * k * (vh - 1);
        assert_true(has_dark(&im, end, (int)y - th / 2, im.w, (int)y + th / 2 + 1));
        if (k < 5) assert_false(has_dark(&im, end, (int)(y - 0.1 * vh) - 2, im.w, (int)(y - 0.1 * vh) + 3));
    }
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* Frames 0.5 ms apart show different times: "t = 0.001 s" twice (%.3f) hid which frame was which. */
static void test_time_stamps_tell_close_frames_apart(void **state)
{
    (void)state;
    eddy_scene s;
    parse_scene_every(2, "{\"colorbar\": false}", "0.0005", &s);
    eddy_world *w = make_world(2, 1.0f, 0.05f, NULL, NULL);
    add_particle(w, 0.5f, 0.5f, 0.0f, 0.0f);
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&s, w, &req, "stamps");
    eddy_render_info info;
    rgb_image im[3];
    for (int k = 0; k < 3; ++k) {
        w->time = 0.0005 * (k + 1);
        im[k] = render_one(r, w, k + 1, "stamps", &info);
        assert_true(has_dark(&im[k], 0, 0, im[k].w, info.view_y0));
    }
    /* The band above the view holds the time stamp alone (no colour bar, no field name). */
    for (int k = 0; k < 2; ++k) {
        int differ = 0;
        for (int y = 0; y < info.view_y0 && !differ; ++y)
            for (int x = 0; x < im[k].w && !differ; ++x)
                differ = !same_rgb(pixel_at(&im[k], x, y), pixel_at(&im[k + 1], x, y));
        if (!differ) fail_msg("frames at t = %g s and %g s carry the same time stamp", 0.0005 * (k + 1), 0.0005 * (k + 2));
    }
    for (int k = 0; k < 3; ++k) free(im[k].px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* A short image (render.height 16 of 960 px) has no room for the time and the colour bar: the scene
 * alone, centred, as in a narrow one (the bar and its labels were drawn over each other). */
static void test_short_image_shows_the_scene_alone(void **state)
{
    (void)state;
    eddy_scene s;
    parse_scene(2, "{\"field\": \"pressure\", \"range\": [0, 1], \"height\": 16}", &s);
    eddy_world *w = make_world(2, 1.0f, 0.05f, NULL, NULL);
    add_particle(w, 0.0f, 0.0f, 0.0f, 0.5f);
    w->time = 1.25;
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_renderer *r = open_ok(&s, w, &req, "short");
    eddy_render_info info;
    rgb_image im = render_one(r, w, 0, "short", &info);
    assert_int_equal(im.w, 960);
    assert_int_equal(im.h, 16);
    uint8_t top[3], bottom[3], mid[3];
    colour_at(1.0, top);
    colour_at(0.0, bottom);
    colour_at(0.5, mid);
    /* No colour bar: neither end of the colormap anywhere. */
    assert_false(has_color(&im, 0, 0, im.w, im.h, top));
    assert_false(has_color(&im, 0, 0, im.w, im.h, bottom));
    /* The one particle, at the target, lands at the image's centre. */
    assert_true(near_color(&im, 0.5 * im.w, 0.5 * im.h, mid));
    assert_true(info.view_x1 - info.view_x0 >= im.w - 2);
    free(im.px);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* ---------------------------------------------------------------------------------------------- */
/* Errors                                                                                           */

static void expect_open_error(int dimensions, const char *section, const eddy_render_request *req, int code,
                              const char *want)
{
    eddy_scene s;
    parse_scene(dimensions, section, &s);
    eddy_world *w = make_world(dimensions, 1.0f, 0.05f, NULL, NULL);
    eddy_error err = {0};
    eddy_renderer *r = (eddy_renderer *)&err; /* must be reset to NULL */
    assert_int_equal(eddy_render_open(&s, w, req, path_in_root("err"), &r, &err), code);
    assert_null(r);
    assert_message(&err, want);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

static const char FIELDS[] = "speed, position, velocity, density, pressure, mass";
static const char COMPONENTS[] = "(a vector by its magnitude, one component as NAME.x, NAME.y, NAME.z)";

static void test_unknown_fields_list_the_available_ones(void **state)
{
    (void)state;
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    req.field = "bogus";
    char want[2048];
    snprintf(want, sizeof want, "--render-field: unknown particle field \"bogus\", expected one of: %s %s", FIELDS,
             COMPONENTS);
    expect_open_error(2, NULL, &req, EDDY_ERR_NOT_FOUND, want);

    /* From the scene: the value's position, column 23 of line 7 `  "render": {"field": "vorticity"}`. */
    req.field = NULL;
    snprintf(want, sizeof want, "t.json:7:23: render.field: unknown particle field \"vorticity\", expected one of: %s %s",
             FIELDS, COMPONENTS);
    expect_open_error(2, "{\"field\": \"vorticity\"}", &req, EDDY_ERR_NOT_FOUND, want);

    req.field = "density.x";
    expect_open_error(2, NULL, &req, EDDY_ERR_NOT_FOUND,
                      "--render-field: \"density.x\": density has a single component; use \"density\"");
    req.field = "velocity.w";
    expect_open_error(2, NULL, &req, EDDY_ERR_NOT_FOUND, "--render-field: \"velocity.w\": velocity has the components x, y and z");

    /* A solver's field counts once it is registered. */
    eddy_scene s;
    parse_scene(2, NULL, &s);
    eddy_world *w = make_world(2, 1.0f, 0.05f, NULL, NULL);
    eddy_error err = {0};
    int fid;
    assert_int_equal(eddy_particles_add_field(&w->particles, "lambda", 1, &fid, &err), EDDY_OK);
    req.field = "lambda";
    eddy_renderer *r = open_ok(&s, w, &req, "lambda");
    eddy_render_destroy(r);
    /* Without a world at open, the first frame finds it out. */
    req.field = "nope";
    assert_int_equal(eddy_render_open(&s, NULL, &req, path_in_root("late"), &r, &err), EDDY_OK);
    assert_int_equal(eddy_render_frame(r, w, 0, &err), EDDY_ERR_NOT_FOUND);
    snprintf(want, sizeof want, "--render-field: unknown particle field \"nope\", expected one of: %s, lambda %s", FIELDS,
             COMPONENTS);
    assert_message(&err, want);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

static void test_bad_camera_strings(void **state)
{
    (void)state;
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    struct {
        int dims;
        const char *spec, *want;
    } cases[] = {
        {3, "eye=1,2", "--camera 'eye=1,2': eye: expected 3 numbers separated by commas, got \"1,2\""},
        {2, "eye=1", "--camera 'eye=1': eye: expected 2 or 3 numbers separated by commas, got \"1\""},
        {3, "fov=40;eyes=1,2,3",
         "--camera 'fov=40;eyes=1,2,3': unknown key \"eyes\", expected one of: eye, target, up, view, projection, fov, span, zoom"},
        {3, "view=down",
         "--camera 'view=down': view: expected an axis (+x, -x, +y, -y, +z, -z) or a direction of 3 numbers separated by "
         "commas, got \"down\""},
        {3, "fov=500", "--camera 'fov=500': fov: expected a number of degrees in [1, 179], got \"500\""},
        {3, "projection=fisheye", "--camera 'projection=fisheye': projection: expected perspective or orthographic, got \"fisheye\""},
        {3, "span=-1", "--camera 'span=-1': span: expected a number > 0 (world units), got \"-1\""},
        {3, "eye", "--camera 'eye': expected KEY=VALUE items separated by ';', got \"eye\""},
        {3, " ; ", "--camera ' ; ': expected KEY=VALUE items separated by ';', got nothing"},
        {3, "zoom=2;zoom=3", "--camera 'zoom=2;zoom=3': zoom: given twice"},
        {3, "eye=0,0,1;target=0,0,1", "--camera 'eye=0,0,1;target=0,0,1': eye and target are the same point"},
        {3, "view=-y;up=0,2,0", "--camera 'view=-y;up=0,2,0': up (0, 2, 0) is parallel to the view direction"},
        /* Beyond the float range a coordinate turned infinite: a NaN camera, a blank image, no error. */
        {3, "eye=1e39,0,0",
         "--camera 'eye=1e39,0,0': eye: expected numbers of at most 3.4e+38 in magnitude (the float range), got "
         "\"1e39,0,0\""},
        {2, "view=0,-1e40", "--camera 'view=0,-1e40': view: expected numbers of at most 3.4e+38 in magnitude (the float "
                            "range), got \"0,-1e40\""},
        {3, "eye=0,0,1;target=0,0,0;view=+x",
         "--camera 'eye=0,0,1;target=0,0,0;view=+x': eye, target and view together over-determine the direction; give at "
         "most two of them"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        req.camera = cases[k].spec;
        expect_open_error(cases[k].dims, NULL, &req, EDDY_ERR_INVALID_ARGUMENT, cases[k].want);
    }
    /* Spaces around items and a trailing ';' are fine. */
    eddy_scene s;
    parse_scene(3, NULL, &s);
    eddy_world *w = make_world(3, 1.0f, 0.05f, NULL, NULL);
    req.camera = " eye = 1, 2, 3 ; target=0,0,0; fov=30;";
    eddy_renderer *r = open_ok(&s, w, &req, "spaces");
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

static void test_bad_render_sections(void **state)
{
    (void)state;
    /* Checked whether or not rendering is on: a typo should not wait for the day --render is used. */
    eddy_render_request off = eddy_render_default_request();
    expect_open_error(2, "{\"feild\": \"speed\"}", &off, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:14: render.feild: unknown key, expected one of: field, range, camera, width, height, "
                      "background, colorbar, time, fps, radius");
    expect_open_error(2, "{\"range\": [1, 2, 3]}", &off, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:23: render.range: expected [min, max] with min < max, or \"frame\", got an array of 3 "
                      "elements");
    expect_open_error(3, "{\"camera\": {\"eye\": [1, 2]}}", &off, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:32: render.camera.eye: expected an array of 3 numbers, got an array of 2 elements");
    expect_open_error(3, "{\"camera\": {\"lens\": 3}}", &off, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:25: render.camera.lens: unknown key, expected one of: eye, target, up, view, projection, "
                      "fov, span, zoom");
    expect_open_error(3, "{\"camera\": \"fov=500\"}", &off, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:24: render.camera: fov: expected a number of degrees in [1, 179], got \"500\"");
    expect_open_error(3, "{\"camera\": {\"view\": \"down\"}}", &off, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:33: render.camera.view: expected an axis (\"+x\", \"-x\", \"+y\", \"-y\", \"+z\", \"-z\") "
                      "or an array of 3 numbers, got \"down\"");
    expect_open_error(2, "{\"width\": 960.5}", &off, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:23: render.width: expected a whole number of pixels in [16, 16384], got 960.5");
    expect_open_error(2, "{\"colorbar\": 1}", &off, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:26: render.colorbar: expected true or false, got 1");
    expect_open_error(2, "{\"background\": \"black\"}", &off, EDDY_ERR_INVALID_ARGUMENT,
                      "t.json:7:28: render.background: expected \"light\" or \"dark\", got \"black\"");
    expect_open_error(2, "[]", &off, EDDY_ERR_INVALID_ARGUMENT, "t.json:7:13: render: expected an object, got an empty array");

    /* Options. */
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    req.range = "5";
    expect_open_error(2, NULL, &req, EDDY_ERR_INVALID_ARGUMENT, "--render-range '5': expected MIN,MAX with MIN < MAX, or frame");
    req.range = "3,1";
    expect_open_error(2, NULL, &req, EDDY_ERR_INVALID_ARGUMENT, "--render-range '3,1': expected MIN,MAX with MIN < MAX, or frame");
    req.range = NULL;
    req.width = 8;
    expect_open_error(2, NULL, &req, EDDY_ERR_INVALID_ARGUMENT, "--render-width 8: expected 16..16384 pixels");

    /* Off and valid: no renderer, and the NULL renderer does nothing. */
    eddy_scene s;
    parse_scene(2, "{\"field\": \"anything_at_all\"}", &s);
    eddy_error err = {0};
    eddy_renderer *r = (eddy_renderer *)&err;
    assert_int_equal(eddy_render_open(&s, NULL, &off, path_in_root("off"), &r, &err), EDDY_OK);
    assert_null(r);
    assert_int_equal(eddy_render_frame(NULL, NULL, 0, &err), EDDY_OK);
    assert_int_equal(eddy_render_finish(NULL, &err), EDDY_OK);
    eddy_render_destroy(NULL);
    assert_int_equal(file_size(path_in_root("off")), -1); /* nothing created */
    eddy_scene_free(&s);
}

static void test_unwritable_places(void **state)
{
    (void)state;
    eddy_scene s;
    parse_scene(2, NULL, &s);
    eddy_world *w = make_world(2, 1.0f, 0.05f, NULL, NULL);
    add_particle(w, 0.0f, 0.0f, 0.0f, 0.0f);
    eddy_render_request req = eddy_render_default_request();
    req.enabled = 1;
    eddy_error err = {0};
    /* A file where a folder should be (root ignores permissions, so the test does not use them). */
    char *file = path_in_root("a_file");
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    char dir[8192], want[16384];
    snprintf(dir, sizeof dir, "%s/out", file);
    eddy_renderer *r = NULL;
    assert_int_equal(eddy_render_open(&s, w, &req, dir, &r, &err), EDDY_ERR_IO);
    snprintf(want, sizeof want, "cannot create output folder '%s/render': '%s' is not a directory", dir, file);
    assert_message(&err, want);
    assert_null(r);
    /* The folder vanishes after open: the frame names its file. */
    r = open_ok(&s, w, &req, "vanish");
    char *render_dir = path_in_root("vanish/render");
    support_remove_tree(render_dir);
    assert_int_equal(eddy_render_frame(r, w, 12, &err), EDDY_ERR_IO);
    snprintf(want, sizeof want, "cannot write '%s/frame_00012.png': No such file or directory", render_dir);
    assert_message(&err, want);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* ---------------------------------------------------------------------------------------------- */
/* Movie                                                                                            */

/* Renders frames 0..n-1 of a one-particle world into g_root/dir with --movie. */
static eddy_renderer *movie_run(const char *dir, int n, eddy_world **wp, eddy_scene *s)
{
    parse_scene(2, NULL, s);
    eddy_world *w = make_world(2, 1.0f, 0.05f, NULL, NULL);
    add_particle(w, 0.0f, 0.0f, 0.0f, 0.0f);
    eddy_render_request req = eddy_render_default_request();
    req.movie = 1; /* implies --render */
    eddy_renderer *r = open_ok(s, w, &req, dir);
    eddy_error err = {0};
    for (int k = 0; k < n; ++k) {
        w->particles.x[0] = 0.1f * (float)k;
        w->time = 0.1 * k;
        assert_int_equal(eddy_render_frame(r, w, k, &err), EDDY_OK);
    }
    *wp = w;
    return r;
}

static void write_script(const char *path, const char *body)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s", body);
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
}

static void test_movie_without_ffmpeg_keeps_the_frames(void **state)
{
    (void)state;
    char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    char *empty = path_in_root("empty_bin");
    assert_int_equal(mkdir(empty, 0777), 0);
    setenv("PATH", empty, 1);
    eddy_scene s;
    eddy_world *w;
    eddy_renderer *r = movie_run("nomovie", 3, &w, &s);
    eddy_error err = {0};
    assert_int_equal(eddy_render_finish(r, &err), EDDY_ERR_NOT_FOUND);
    char want[16384];
    snprintf(want, sizeof want,
             "cannot write '%s/movie.mp4': ffmpeg was not found on PATH (install it, e.g. apt-get install ffmpeg); the "
             "PNG frames are kept in %s/render",
             path_in_root("nomovie"), path_in_root("nomovie"));
    assert_message(&err, want);
    for (int k = 0; k < 3; ++k) {
        char name[64];
        snprintf(name, sizeof name, "nomovie/render/frame_%05d.png", k);
        assert_true(file_size(path_in_root(name)) > 0);
    }
    assert_int_equal(file_size(path_in_root("nomovie/movie.mp4")), -1);
    if (saved) setenv("PATH", saved, 1);
    free(saved);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

static void test_movie_arguments_and_failures_with_a_stand_in(void **state)
{
    (void)state;
    char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    char bin[4096]; /* a copy: path_in_root's buffers are reused */
    snprintf(bin, sizeof bin, "%s", path_in_root("fake_bin"));
    assert_int_equal(mkdir(bin, 0777), 0);
    char script[8192], body[16384];
    snprintf(script, sizeof script, "%s/ffmpeg", bin);
    /* Records its arguments one per line and writes its last argument (the output) like ffmpeg would. */
    snprintf(body, sizeof body, "for a in \"$@\"; do echo \"$a\"; done > '%s/args'\nfor a; do out=$a; done\necho fake > \"$out\"\n", bin);
    write_script(script, body);
    char path_var[16384];
    snprintf(path_var, sizeof path_var, "%s:%s", bin, saved ? saved : "/usr/bin:/bin");
    setenv("PATH", path_var, 1);

    eddy_scene s;
    eddy_world *w;
    eddy_renderer *r = movie_run("fake", 4, &w, &s);
    eddy_error err = {0};
    /* A FIFO left at the temporary name: ffmpeg (here the script) waited to open it for a reader that
     * never comes, and the run with it; the alarm turns that hang into a failure. */
    char fifo[8300];
    snprintf(fifo, sizeof fifo, "%s.tmp", path_in_root("fake/movie.mp4"));
    assert_int_equal(mkfifo(fifo, 0666), 0);
    alarm(60);
    assert_int_equal(eddy_render_finish(r, &err), EDDY_OK);
    alarm(0);
    char *movie = path_in_root("fake/movie.mp4");
    assert_int_equal(file_size(movie), 5); /* "fake\n", renamed from the temporary */
    assert_no_tmp_files(path_in_root("fake"));
    assert_int_equal(file_size(path_in_root("fake/render/ffmpeg.log")), -1); /* removed after success */
    char argsfile[8300];
    snprintf(argsfile, sizeof argsfile, "%s/args", bin);
    FILE *f = fopen(argsfile, "r");
    assert_non_null(f);
    char args[8192];
    size_t n = fread(args, 1, sizeof args - 1, f);
    args[n] = '\0';
    fclose(f);
    char want[16384];
    /* Real time: the scene's output interval 0.1 s gives 10 frames per second. */
    snprintf(want, sizeof want,
             "-nostdin\n-y\n-loglevel\nerror\n-framerate\n10\n-start_number\n0\n-i\n%s/frame_%%05d.png\n-frames:v\n4\n",
             path_in_root("fake/render"));
    if (strncmp(args, want, strlen(want)) != 0) fail_msg("ffmpeg arguments\n got:\n%s\n expected to start with:\n%s", args, want);
    assert_non_null(strstr(args, "\n-pix_fmt\nyuv420p\n"));
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);

    /* A failing ffmpeg: its status and last message line, and where the rest is. */
    write_script(script, "echo 'first complaint' >&2\necho 'Unknown encoder libx264' >&2\nexit 3\n");
    r = movie_run("failing", 2, &w, &s);
    assert_int_equal(eddy_render_finish(r, &err), EDDY_ERR_IO);
    char *dir = path_in_root("failing");
    snprintf(want, sizeof want,
             "cannot write '%s/movie.mp4': ffmpeg exited with status 3: Unknown encoder libx264; the PNG frames are kept "
             "in %s/render (ffmpeg's messages: %s/render/ffmpeg.log)",
             dir, dir, dir);
    assert_message(&err, want);
    assert_int_equal(file_size(path_in_root("failing/movie.mp4")), -1);
    assert_no_tmp_files(dir);
    assert_true(file_size(path_in_root("failing/render/frame_00001.png")) > 0);
    if (saved) setenv("PATH", saved, 1);
    free(saved);
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

static int ffmpeg_on_path(void)
{
    const char *path = getenv("PATH");
    char buf[8192];
    for (const char *p = path; p && *p;) {
        size_t len = strcspn(p, ":");
        snprintf(buf, sizeof buf, "%.*s/ffmpeg", (int)len, p);
        if (access(buf, X_OK) == 0) return 1;
        p += len + (p[len] == ':');
    }
    return 0;
}

/* With the real ffmpeg: a non-empty MP4 that starts like one. Its own CTest entry
 * (render_movie_with_ffmpeg), reported as skipped where ffmpeg is not installed. */
static void test_movie_with_ffmpeg(void **state)
{
    (void)state;
    eddy_scene s;
    eddy_world *w;
    eddy_renderer *r = movie_run("real", 5, &w, &s);
    eddy_error err = {0};
    if (eddy_render_finish(r, &err)) fail_msg("%s", err.message);
    char *movie = path_in_root("real/movie.mp4");
    assert_true(file_size(movie) > 0);
    FILE *f = fopen(movie, "rb");
    assert_non_null(f);
    unsigned char head[8];
    assert_int_equal(fread(head, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(head + 4, "ftyp", 4); /* the ISO media file's first box */
    eddy_render_destroy(r);
    eddy_world_destroy(w);
    eddy_scene_free(&s);
}

/* CTest's skip code: the real-movie check reports "not run" where ffmpeg is missing, instead of a pass. */
enum { SKIPPED = 77 };

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "movie_with_ffmpeg") == 0) {
        if (!ffmpeg_on_path()) {
            printf("ffmpeg is not installed: the real-movie check is skipped (the missing case is tested)\n");
            return SKIPPED;
        }
        const struct CMUnitTest movie[] = {cmocka_unit_test(test_movie_with_ffmpeg)};
        return cmocka_run_group_tests(movie, setup_root, teardown_root);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orthographic_front_view_fits_the_container),
        cmocka_unit_test(test_the_scene_stays_in_its_rectangle),
        cmocka_unit_test(test_perspective_projection_in_world_units),
        cmocka_unit_test(test_2d_camera_objects_keep_their_z),
        cmocka_unit_test(test_near_particles_cover_far_ones),
        cmocka_unit_test(test_fields_by_name_magnitude_and_component),
        cmocka_unit_test(test_default_ranges_follow_the_rules),
        cmocka_unit_test(test_a_magnitude_range_starts_at_zero),
        cmocka_unit_test(test_a_field_constant_at_first_settles_its_range_later),
        cmocka_unit_test(test_at_rest_without_gravity_speed_and_pressure_keep_a_unit_range),
        cmocka_unit_test(test_colliders_are_drawn_in_2d),
        cmocka_unit_test(test_colliders_are_drawn_in_3d),
        cmocka_unit_test(test_colliders_in_3d_are_painted_farthest_first),
        cmocka_unit_test(test_colliders_reaching_behind_the_eye_are_cut_at_it),
        cmocka_unit_test(test_container_edges_behind_the_eye_are_cut_at_it),
        cmocka_unit_test(test_a_moving_collider_is_drawn_where_it_is),
        cmocka_unit_test(test_colour_bar_and_time_stamp),
        cmocka_unit_test(test_time_stamps_tell_close_frames_apart),
        cmocka_unit_test(test_short_image_shows_the_scene_alone),
        cmocka_unit_test(test_unknown_fields_list_the_available_ones),
        cmocka_unit_test(test_bad_camera_strings),
        cmocka_unit_test(test_bad_render_sections),
        cmocka_unit_test(test_unwritable_places),
        cmocka_unit_test(test_movie_without_ffmpeg_keeps_the_frames),
        cmocka_unit_test(test_movie_arguments_and_failures_with_a_stand_in),
    };
    return cmocka_run_group_tests(tests, setup_root, teardown_root);
}
