/*
 * The drawing layer (host/viz/canvas.c, cairo) against geometry: anti-aliased coverage integrates to
 * the area of a disc and to the width of a line, pixels wholly inside a shape get its colour exactly
 * (what the picture tests rely on), a sphere keeps its colour at the centre and darkens to the rim,
 * turned text is the text rotated, text that is not UTF-8 neither vanishes nor stops later drawing,
 * clipping holds, and a PNG comes back from libpng's reader exactly as it was drawn.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first. */
#include <cmocka.h>

#include "canvas.h"
#include "png_check.h"

static const uint8_t WHITE[3] = {255, 255, 255}, BLACK[3] = {0, 0, 0};

static uint8_t grey(const eddy_canvas *c, int x, int y)
{
    uint8_t p[3];
    assert_true(eddy_canvas_pixel(c, x, y, p));
    return p[0];
}

/* Black drawn on white: how much of the pixel is covered, from its grey level. */
static double coverage(const eddy_canvas *c, int x, int y)
{
    return (255.0 - grey(c, x, y)) / 255.0;
}

/* The farthest and the nearest point of pixel (x, y)'s square from (cx, cy). */
static double farthest(int x, int y, double cx, double cy)
{
    double dx = fmax(fabs(x - cx), fabs(x + 1 - cx)), dy = fmax(fabs(y - cy), fabs(y + 1 - cy));
    return hypot(dx, dy);
}

static double nearest(int x, int y, double cx, double cy)
{
    double dx = cx < x ? x - cx : cx > x + 1 ? cx - x - 1 : 0.0;
    double dy = cy < y ? y - cy : cy > y + 1 ? cy - y - 1 : 0.0;
    return hypot(dx, dy);
}

static void test_disc_coverage_integrates_to_its_area(void **state)
{
    (void)state;
    eddy_error err = {0};
    const double radii[3] = {1.5, 3.0, 7.25};
    const double offsets[3][2] = {{16.0, 16.0}, {16.5, 16.5}, {16.3, 15.8}};
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            eddy_canvas c;
            assert_int_equal(eddy_canvas_init(&c, 32, 32, WHITE, &err), EDDY_OK);
            double cx = offsets[b][0], cy = offsets[b][1], r = radii[a];
            eddy_canvas_disc(&c, cx, cy, r, BLACK);
            double sum = 0.0;
            for (int y = 0; y < 32; ++y)
                for (int x = 0; x < 32; ++x) {
                    double cov = coverage(&c, x, y);
                    /* A square wholly inside is the colour exactly, one wholly outside untouched, with
                     * room for the rounding of small discs (canvas.h): below 3 px the centre is placed
                     * to 1/32 px and the circle flattened to 0.01 px; from 3 px the centre is within
                     * 1/8 px (0.18 px diagonally), the radius 1/16 px, the flattening 0.1 px. */
                    double room = r < 3.0 ? 0.05 : 0.18 + 0.0625 + 0.1;
                    if (farthest(x, y, cx, cy) <= r - room) assert_true(cov == 1.0);
                    if (nearest(x, y, cx, cy) >= r + room) assert_true(cov == 0.0);
                    sum += cov;
                }
            /* Area coverage: the sum is the disc's area, to the sampling of the rasterizer. */
            assert_true(fabs(sum - M_PI * r * r) < 0.02 * M_PI * r * r + 0.2);
            eddy_canvas_free(&c);
        }
}

/* A filled polygon: a triangle's coverage integrates to its area, a pixel wholly inside is the fill
 * exactly; an edge is stroked over it; a polygon with points a billion pixels away (a plane cut to a large
 * domain) still fills what it covers, where cairo's own coordinates would overflow. */
static void test_polygon_fills_its_area(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_canvas c;
    assert_int_equal(eddy_canvas_init(&c, 40, 40, WHITE, &err), EDDY_OK);
    /* Right triangle (4, 4), (36, 4), (4, 36): area 512; the pixel (x, y) is wholly inside when
     * x >= 4, y >= 4 and x + 1 + y + 1 <= 40. */
    const double tri[6] = {4.0, 4.0, 36.0, 4.0, 4.0, 36.0};
    eddy_canvas_polygon(&c, tri, 3, BLACK, 0.0, NULL);
    double sum = 0.0;
    for (int y = 0; y < 40; ++y)
        for (int x = 0; x < 40; ++x) {
            double cov = coverage(&c, x, y);
            if (x >= 4 && y >= 4 && x + y + 2 <= 40) assert_true(cov == 1.0);
            if (x < 4 || y < 4 || x + y >= 40) assert_true(cov == 0.0);
            sum += cov;
        }
    assert_true(fabs(sum - 512.0) < 0.5);
    eddy_canvas_free(&c);

    /* Fill and edge: the fill inside, the edge's colour on the edge, a 3-point polygon of huge extent
     * (the half-plane x < 20, as a triangle far out) filling the image's left half. */
    const uint8_t fill[3] = {200, 200, 200}, edge[3] = {100, 100, 100};
    assert_int_equal(eddy_canvas_init(&c, 40, 40, WHITE, &err), EDDY_OK);
    const double half[6] = {20.0, -1e9, 20.0, 1e9, -1e9, 0.0};
    eddy_canvas_polygon(&c, half, 3, fill, 2.0, edge);
    uint8_t p[3];
    for (int y = 0; y < 40; ++y) {
        assert_true(eddy_canvas_pixel(&c, 5, y, p) && p[0] == 200);
        assert_true(eddy_canvas_pixel(&c, 19, y, p) && p[0] == 100); /* [19, 21) is the edge */
        assert_true(eddy_canvas_pixel(&c, 20, y, p) && p[0] == 100);
        assert_true(eddy_canvas_pixel(&c, 30, y, p) && p[0] == 255);
    }
    /* Fewer than 3 points, or a non-finite one: nothing. */
    const double bad[6] = {0.0, 0.0, 40.0, 40.0, NAN, 0.0};
    eddy_canvas_polygon(&c, bad, 3, BLACK, 1.0, BLACK);
    eddy_canvas_polygon(&c, bad, 2, BLACK, 1.0, BLACK);
    assert_true(eddy_canvas_pixel(&c, 30, 30, p) && p[0] == 255);
    eddy_canvas_free(&c);
}

static void test_line_coverage_integrates_to_its_width(void **state)
{
    (void)state;
    eddy_error err = {0};
    const double widths[3] = {1.0, 2.0, 3.5};
    const double ys[3] = {10.5, 10.3, 10.77};
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            eddy_canvas c;
            assert_int_equal(eddy_canvas_init(&c, 40, 20, WHITE, &err), EDDY_OK);
            eddy_canvas_line(&c, 3.0, ys[b], 37.0, ys[b], widths[a], BLACK);
            /* Every column away from the round ends carries the line width. */
            for (int x = 8; x < 32; ++x) {
                double sum = 0.0;
                for (int y = 0; y < 20; ++y) sum += coverage(&c, x, y);
                if (fabs(sum - widths[a]) > 0.08) fail_msg("width %g at y %g: column %d carries %g", widths[a], ys[b], x, sum);
            }
            /* Nothing beyond the round ends. */
            for (int y = 0; y < 20; ++y) {
                assert_true(coverage(&c, 0, y) == 0.0);
                assert_true(coverage(&c, 39, y) == 0.0);
            }
            eddy_canvas_free(&c);
        }
    /* A 45-degree line: the perpendicular width is what counts, so a row carries width * sqrt(2). */
    eddy_canvas c;
    assert_int_equal(eddy_canvas_init(&c, 40, 40, WHITE, &err), EDDY_OK);
    eddy_canvas_line(&c, 0.0, 0.0, 40.0, 40.0, 2.0, BLACK);
    for (int y = 10; y < 30; ++y) {
        double sum = 0.0;
        for (int x = 0; x < 40; ++x) sum += coverage(&c, x, y);
        assert_true(fabs(sum - 2.0 * sqrt(2.0)) < 0.03 * 2.0 * sqrt(2.0));
    }
    eddy_canvas_free(&c);
}

static void test_sphere_keeps_its_colour_at_the_centre(void **state)
{
    (void)state;
    eddy_error err = {0};
    const uint8_t yellow[3] = {253, 231, 37};
    const double cx[3] = {20.0, 20.5, 20.31}, cy[3] = {20.0, 20.5, 19.77};
    for (int k = 0; k < 3; ++k) {
        eddy_canvas c;
        assert_int_equal(eddy_canvas_init(&c, 40, 40, WHITE, &err), EDDY_OK);
        eddy_canvas_sphere(&c, cx[k], cy[k], 12.0, yellow, 0.6f);
        uint8_t p[3];
        /* Out to half the radius: the colour exactly. */
        for (int d = -5; d <= 5; ++d) {
            eddy_canvas_pixel(&c, (int)floor(cx[k]) + d, (int)floor(cy[k]), p);
            assert_true(same_rgb(p, yellow));
        }
        /* Then darker towards the rim, monotonically, to about 0.6 of the colour (the red channel). */
        int last = 256;
        for (int x = (int)floor(cx[k]) + 6; x <= (int)floor(cx[k]) + 10; ++x) {
            eddy_canvas_pixel(&c, x, (int)floor(cy[k]), p);
            assert_true(p[0] <= last);
            last = p[0];
        }
        assert_true(last < 253 && last >= (int)(0.6 * 253) - 2);
        eddy_canvas_free(&c);
    }
    /* A tiny sphere has no room for shading: a flat disc, its centre pixel the colour exactly. */
    eddy_canvas c;
    assert_int_equal(eddy_canvas_init(&c, 8, 8, WHITE, &err), EDDY_OK);
    eddy_canvas_sphere(&c, 4.0, 4.0, 1.5, yellow, 0.6f);
    uint8_t p[3];
    eddy_canvas_pixel(&c, 3, 3, p);
    assert_true(same_rgb(p, yellow));
    eddy_canvas_free(&c);
}

/* The ink of black text on white: total coverage and its bounding box [x0, x1) x [y0, y1). */
typedef struct ink {
    double mass;
    int x0, y0, x1, y1;
} ink;

static ink ink_of(const eddy_canvas *c)
{
    ink k = {0.0, c->width, c->height, 0, 0};
    for (int y = 0; y < c->height; ++y)
        for (int x = 0; x < c->width; ++x) {
            double v = coverage(c, x, y);
            if (v <= 0.0) continue;
            k.mass += v;
            if (x < k.x0) k.x0 = x;
            if (y < k.y0) k.y0 = y;
            if (x + 1 > k.x1) k.x1 = x + 1;
            if (y + 1 > k.y1) k.y1 = y + 1;
        }
    return k;
}

static void test_turned_text_is_the_text_rotated(void **state)
{
    (void)state;
    eddy_error err = {0};
    const char *s = "Agy(1)%";
    const double px = 16.0;
    int tw = eddy_canvas_text_width(s, px), th = eddy_canvas_text_height(px);
    /* DejaVu Sans at 16 px: a line is about 1.2 em, 7 characters about 4 em. */
    assert_true(th >= 16 && th <= 22);
    assert_true(tw >= 50 && tw <= 90);
    eddy_canvas a, b;
    assert_int_equal(eddy_canvas_init(&a, tw + 8, th + 8, WHITE, &err), EDDY_OK);
    assert_int_equal(eddy_canvas_init(&b, th + 8, tw + 8, WHITE, &err), EDDY_OK);
    eddy_canvas_text(&a, 4, 4, s, px, BLACK);
    eddy_canvas_text_up(&b, 4, 4, s, px, BLACK);
    ink ia = ink_of(&a), ib = ink_of(&b);
    /* The ink stays in the documented box. */
    assert_true(ia.x0 >= 4 && ia.x1 <= 4 + tw + 1 && ia.y0 >= 4 && ia.y1 <= 4 + th);
    assert_true(ib.x0 >= 4 && ib.x1 <= 4 + th && ib.y0 >= 4 - 1 && ib.y1 <= 4 + tw);
    /* A quarter turn counter-clockwise: along the text becomes up, the tops of letters face left. The
     * box turns with it (to a pixel or two of hinting, which works across the baseline only). */
    assert_true(abs((ib.x1 - ib.x0) - (ia.y1 - ia.y0)) <= 2);
    assert_true(abs((ib.y1 - ib.y0) - (ia.x1 - ia.x0)) <= 2);
    assert_true(abs((ib.x0 - 4) - (ia.y0 - 4)) <= 2);
    assert_true(fabs(ib.mass - ia.mass) < 0.1 * ia.mass);
    assert_true(ia.mass > 100.0);
    /* The descenders of g and y reach below the baseline: ink in the bottom fifth of the line. */
    assert_true(ia.y1 > 4 + 0.8 * th);
    eddy_canvas_free(&a);
    eddy_canvas_free(&b);
}

static void test_text_that_is_not_utf8_is_drawn_as_question_marks(void **state)
{
    (void)state;
    eddy_error err = {0};
    /* A lone continuation byte and a cut-short sequence: each byte one '?'. */
    const char *bad = "\x80=1\xcf";
    assert_int_equal(eddy_canvas_text_width(bad, 12.0), eddy_canvas_text_width("?=1?", 12.0));
    assert_int_equal(eddy_canvas_text_width("", 12.0), 0);
    assert_int_equal(eddy_canvas_text_width(NULL, 12.0), 0);
    eddy_canvas a, b;
    assert_int_equal(eddy_canvas_init(&a, 60, 20, WHITE, &err), EDDY_OK);
    assert_int_equal(eddy_canvas_init(&b, 60, 20, WHITE, &err), EDDY_OK);
    eddy_canvas_text(&a, 1, 0, bad, 12.0, BLACK);
    eddy_canvas_text(&b, 1, 0, "?=1?", 12.0, BLACK);
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 60; ++x) assert_int_equal(grey(&a, x, y), grey(&b, x, y));
    /* Drawing goes on after it (cairo would otherwise refuse everything after an invalid string). */
    eddy_canvas_fill_rect(&a, 50, 10, 60, 20, BLACK);
    assert_int_equal(grey(&a, 55, 15), 0);
    eddy_canvas_free(&a);
    eddy_canvas_free(&b);
    /* Real UTF-8 is drawn as itself: a Greek rho is a glyph, not a question mark. */
    assert_true(eddy_canvas_text_width("\xcf\x81=1", 12.0) > 0);
    assert_int_equal(eddy_canvas_init(&a, 60, 20, WHITE, &err), EDDY_OK);
    assert_int_equal(eddy_canvas_init(&b, 60, 20, WHITE, &err), EDDY_OK);
    eddy_canvas_text(&a, 1, 0, "\xcf\x81=1", 12.0, BLACK);
    eddy_canvas_text(&b, 1, 0, "?=1", 12.0, BLACK);
    int differ = 0;
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 60; ++x) differ += grey(&a, x, y) != grey(&b, x, y);
    assert_true(differ > 0);
    assert_true(ink_of(&a).mass > 20.0);
    eddy_canvas_free(&a);
    eddy_canvas_free(&b);
}

static void test_clip_limits_drawing(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_canvas c;
    assert_int_equal(eddy_canvas_init(&c, 30, 30, WHITE, &err), EDDY_OK);
    eddy_canvas_clip(&c, 10, 10, 20, 20);
    eddy_canvas_fill_rect(&c, 0, 0, 30, 30, BLACK);
    eddy_canvas_disc(&c, 10.0, 10.0, 8.0, BLACK);
    eddy_canvas_line(&c, 0.0, 25.0, 30.0, 25.0, 3.0, BLACK);
    eddy_canvas_text(&c, 0, 0, "clipped", 12.0, BLACK);
    for (int y = 0; y < 30; ++y)
        for (int x = 0; x < 30; ++x) {
            int inside = x >= 10 && x < 20 && y >= 10 && y < 20;
            assert_int_equal(grey(&c, x, y), inside ? 0 : 255);
        }
    eddy_canvas_unclip(&c);
    eddy_canvas_fill_rect(&c, -5, -5, 2, 2, BLACK); /* off the image: clipped, no crash */
    assert_int_equal(grey(&c, 1, 1), 0);
    uint8_t p[3] = {7, 7, 7};
    assert_int_equal(eddy_canvas_pixel(&c, 30, 0, p), 0);
    assert_int_equal(p[0], 7);
    eddy_canvas_free(&c);
}

static void test_colour_bar(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_canvas c;
    assert_int_equal(eddy_canvas_init(&c, 120, 100, WHITE, &err), EDDY_OK);
    const char *labels[3] = {"0", "0.5", "1"};
    int w = eddy_canvas_colorbar_width(12, labels, 3, 12.0);
    assert_true(w > 12 + eddy_canvas_text_width("0.5", 12.0));
    eddy_canvas_colorbar(&c, 10, 10, 22, 90, labels, NULL, 3, 12.0, BLACK);
    /* Row by row: the colormap's top in the first row, its bottom in the last, whole pixels. */
    uint8_t top[3], bottom[3], p[3];
    eddy_canvas_colormap(1.0f, top);
    eddy_canvas_colormap(0.0f, bottom);
    for (int x = 10; x < 22; ++x) {
        eddy_canvas_pixel(&c, x, 10, p);
        assert_true(same_rgb(p, top));
        eddy_canvas_pixel(&c, x, 89, p);
        assert_true(same_rgb(p, bottom));
    }
    /* Labels at the top, middle and bottom, right of the bar and within the width it claims. */
    int rows[3] = {0, 0, 0};
    for (int y = 0; y < 100; ++y)
        for (int x = 22; x < 120; ++x)
            if (coverage(&c, x, y) > 0.5) {
                assert_true(x < 10 + w);
                rows[y < 30 ? 0 : y < 70 ? 1 : 2]++;
            }
    assert_true(rows[0] > 5 && rows[1] > 5 && rows[2] > 5);
    eddy_canvas_free(&c);
}

static void test_png_round_trip(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_canvas c;
    assert_int_equal(eddy_canvas_init(&c, 37, 23, WHITE, &err), EDDY_OK);
    uint32_t r = 12345;
    uint8_t want_px[37 * 23 * 3];
    for (int y = 0; y < 23; ++y)
        for (int x = 0; x < 37; ++x) {
            uint8_t *q = want_px + 3 * (y * 37 + x);
            for (int k = 0; k < 3; ++k) {
                r = r * 1103515245u + 12345u;
                q[k] = (uint8_t)(r >> 16);
            }
            eddy_canvas_fill_rect(&c, x, y, x + 1, y + 1, q);
        }
    char *path = path_in_root("noise.png");
    assert_int_equal(eddy_canvas_write_png(&c, path, &err), EDDY_OK);
    assert_no_tmp_files(g_root);
    rgb_image back = read_png(path);
    assert_int_equal(back.w, 37);
    assert_int_equal(back.h, 23);
    assert_memory_equal(back.px, want_px, sizeof want_px);
    free(back.px);

    char want[8192];
    char *bad = path_in_root("missing/x.png");
    assert_int_equal(eddy_canvas_write_png(&c, bad, &err), EDDY_ERR_IO);
    snprintf(want, sizeof want, "cannot write '%s': No such file or directory", bad);
    assert_string_equal(err.message, want);
    /* A folder where the file should go: the temporary is written, the rename fails, nothing is left. */
    char *dir = path_in_root("a_folder");
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(eddy_canvas_write_png(&c, dir, &err), EDDY_ERR_IO);
    snprintf(want, sizeof want, "cannot write '%s': Is a directory", dir);
    assert_string_equal(err.message, want);
    assert_no_tmp_files(g_root);
    /* A FIFO at the temporary name (left by another program): opening it for writing waited for a
     * reader forever. The write replaces it; the alarm turns a hang into a failure of this test. */
    char *fifo_png = path_in_root("fifo.png");
    char fifo[8300];
    snprintf(fifo, sizeof fifo, "%s.tmp", fifo_png);
    assert_int_equal(mkfifo(fifo, 0666), 0);
    alarm(60);
    assert_int_equal(eddy_canvas_write_png(&c, fifo_png, &err), EDDY_OK);
    alarm(0);
    assert_no_tmp_files(g_root);
    back = read_png(fifo_png);
    assert_memory_equal(back.px, want_px, sizeof want_px);
    free(back.px);
    eddy_canvas_free(&c);

    assert_int_equal(eddy_canvas_init(&c, 0, 5, WHITE, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "image size 0 x 5 is out of range (1..16384)");
    eddy_canvas_free(&c); /* a failed init leaves a struct that frees */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disc_coverage_integrates_to_its_area),
        cmocka_unit_test(test_line_coverage_integrates_to_its_width),
        cmocka_unit_test(test_polygon_fills_its_area),
        cmocka_unit_test(test_sphere_keeps_its_colour_at_the_centre),
        cmocka_unit_test(test_turned_text_is_the_text_rotated),
        cmocka_unit_test(test_text_that_is_not_utf8_is_drawn_as_question_marks),
        cmocka_unit_test(test_clip_limits_drawing),
        cmocka_unit_test(test_colour_bar),
        cmocka_unit_test(test_png_round_trip),
    };
    return cmocka_run_group_tests(tests, setup_root, teardown_root);
}
