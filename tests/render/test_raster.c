/*
 * The raster layer (host/raster.c) against geometry: anti-aliased coverage integrates to the area of a
 * disc and to the width of a line, upright and turned text are the same pixels rotated, clipping holds,
 * and a PNG comes back from libpng's reader exactly as it was drawn.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first. */
#include <cmocka.h>

#include "png_check.h"
#include "raster.h"

static const uint8_t WHITE[3] = {255, 255, 255}, BLACK[3] = {0, 0, 0};

/* Black drawn on white: how much of the pixel is covered, from its grey level. */
static double coverage(const eddy_raster *im, int x, int y)
{
    return (255.0 - eddy_raster_pixel(im, x, y)[0]) / 255.0;
}

static void test_disc_coverage_integrates_to_its_area(void **state)
{
    (void)state;
    eddy_error err = {0};
    const double radii[3] = {1.5, 3.0, 7.25};
    const double offsets[3][2] = {{16.0, 16.0}, {16.5, 16.5}, {16.3, 15.8}};
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            eddy_raster im;
            assert_int_equal(eddy_raster_init(&im, 32, 32, WHITE, &err), EDDY_OK);
            double cx = offsets[b][0], cy = offsets[b][1], r = radii[a];
            eddy_raster_disc(&im, cx, cy, r, BLACK);
            double sum = 0.0;
            for (int y = 0; y < 32; ++y)
                for (int x = 0; x < 32; ++x) {
                    double c = coverage(&im, x, y);
                    double d = hypot(x + 0.5 - cx, y + 0.5 - cy);
                    if (d <= r - 0.5) assert_true(c == 1.0); /* whole inside */
                    if (d >= r + 0.5) assert_true(c == 0.0); /* untouched outside */
                    sum += c;
                }
            /* The one-pixel ramp is exact for straight edges and close for curved ones. */
            assert_true(fabs(sum - M_PI * r * r) < 0.02 * M_PI * r * r + 0.3);
            eddy_raster_free(&im);
        }
}

static void test_line_coverage_integrates_to_its_width(void **state)
{
    (void)state;
    eddy_error err = {0};
    const double widths[3] = {1.0, 2.0, 3.5};
    const double ys[3] = {10.5, 10.3, 10.77};
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            eddy_raster im;
            assert_int_equal(eddy_raster_init(&im, 40, 20, WHITE, &err), EDDY_OK);
            eddy_raster_line(&im, 3.0, ys[b], 37.0, ys[b], widths[a], BLACK);
            /* Every column away from the round ends carries exactly the line width (to 8-bit rounding). */
            for (int x = 8; x < 32; ++x) {
                double sum = 0.0;
                for (int y = 0; y < 20; ++y) sum += coverage(&im, x, y);
                assert_true(fabs(sum - widths[a]) < 4.0 / 255.0);
            }
            /* Nothing beyond the round ends. */
            for (int y = 0; y < 20; ++y) {
                assert_true(coverage(&im, 0, y) == 0.0);
                assert_true(coverage(&im, 39, y) == 0.0);
            }
            eddy_raster_free(&im);
        }
    /* A 45-degree line: the perpendicular width is what counts, so a row carries width * sqrt(2) (to a
     * few %: pixel centres sample the stretched ramp coarsely). */
    eddy_raster im;
    assert_int_equal(eddy_raster_init(&im, 40, 40, WHITE, &err), EDDY_OK);
    eddy_raster_line(&im, 0.0, 0.0, 40.0, 40.0, 2.0, BLACK);
    for (int y = 10; y < 30; ++y) {
        double sum = 0.0;
        for (int x = 0; x < 40; ++x) sum += coverage(&im, x, y);
        assert_true(fabs(sum - 2.0 * sqrt(2.0)) < 0.05 * 2.0 * sqrt(2.0));
    }
    eddy_raster_free(&im);
}

static void test_turned_text_is_the_text_rotated(void **state)
{
    (void)state;
    eddy_error err = {0};
    const char *s = "Agy(1)%";
    const int scale = 2;
    int tw = eddy_raster_text_width(s, scale);
    assert_int_equal(tw, (6 * 7 - 1) * scale);
    int th = 9 * scale; /* with the descenders */
    eddy_raster a, b;
    assert_int_equal(eddy_raster_init(&a, tw, th, WHITE, &err), EDDY_OK);
    assert_int_equal(eddy_raster_init(&b, th, tw, WHITE, &err), EDDY_OK);
    eddy_raster_text(&a, 0, 0, s, scale, BLACK);
    eddy_raster_text_up(&b, 0, 0, s, scale, BLACK);
    int ink = 0;
    for (int y = 0; y < th; ++y)
        for (int x = 0; x < tw; ++x) {
            /* A quarter turn counter-clockwise: along the text becomes up, the tops of letters face left. */
            assert_int_equal(eddy_raster_pixel(&a, x, y)[0], eddy_raster_pixel(&b, y, tw - 1 - x)[0]);
            ink += eddy_raster_pixel(&a, x, y)[0] == 0;
        }
    assert_true(ink > 100);
    /* The descender of 'g' (third cell, column 4) reaches below the 7-row cell. */
    int below = 0;
    for (int y = 7 * scale; y < th; ++y)
        for (int x = 6 * scale; x < 11 * scale; ++x) below += eddy_raster_pixel(&a, x, y)[0] == 0;
    assert_true(below > 0);
    eddy_raster_free(&a);
    eddy_raster_free(&b);
}

static void test_non_ascii_is_one_question_mark(void **state)
{
    (void)state;
    eddy_error err = {0};
    /* "rho = 1" with a Greek rho (2 bytes in UTF-8): three cells, the first drawn as '?'. */
    const char *greek = "\xcf\x81=1";
    assert_int_equal(eddy_raster_text_width(greek, 1), eddy_raster_text_width("?=1", 1));
    assert_int_equal(eddy_raster_text_width("", 3), 0);
    eddy_raster a, b;
    assert_int_equal(eddy_raster_init(&a, 20, 9, WHITE, &err), EDDY_OK);
    assert_int_equal(eddy_raster_init(&b, 20, 9, WHITE, &err), EDDY_OK);
    eddy_raster_text(&a, 1, 0, greek, 1, BLACK);
    eddy_raster_text(&b, 1, 0, "?=1", 1, BLACK);
    assert_memory_equal(a.rgb, b.rgb, 20 * 9 * 3);
    assert_true(eddy_raster_has_glyph('~') && eddy_raster_has_glyph(' ') && !eddy_raster_has_glyph('\n'));
    eddy_raster_free(&a);
    eddy_raster_free(&b);
}

static void test_clip_limits_drawing(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_raster im;
    assert_int_equal(eddy_raster_init(&im, 30, 30, WHITE, &err), EDDY_OK);
    eddy_raster_clip(&im, 10, 10, 20, 20);
    eddy_raster_fill_rect(&im, 0, 0, 30, 30, BLACK);
    eddy_raster_disc(&im, 10.0, 10.0, 8.0, BLACK);
    eddy_raster_line(&im, 0.0, 25.0, 30.0, 25.0, 3.0, BLACK);
    for (int y = 0; y < 30; ++y)
        for (int x = 0; x < 30; ++x) {
            int inside = x >= 10 && x < 20 && y >= 10 && y < 20;
            assert_int_equal(eddy_raster_pixel(&im, x, y)[0], inside ? 0 : 255);
        }
    eddy_raster_unclip(&im);
    eddy_raster_fill_rect(&im, -5, -5, 2, 2, BLACK); /* off the image: clipped, no crash */
    assert_int_equal(eddy_raster_pixel(&im, 1, 1)[0], 0);
    assert_null(eddy_raster_pixel(&im, 30, 0));
    eddy_raster_free(&im);
}

static void test_png_round_trip(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_raster im;
    assert_int_equal(eddy_raster_init(&im, 37, 23, WHITE, &err), EDDY_OK);
    uint32_t r = 12345;
    for (size_t k = 0; k < 37 * 23 * 3; ++k) {
        r = r * 1103515245u + 12345u;
        im.rgb[k] = (uint8_t)(r >> 16);
    }
    char *path = path_in_root("noise.png");
    assert_int_equal(eddy_raster_write_png(&im, path, &err), EDDY_OK);
    assert_no_tmp_files(g_root);
    rgb_image back = read_png(path);
    assert_int_equal(back.w, 37);
    assert_int_equal(back.h, 23);
    assert_memory_equal(back.px, im.rgb, 37 * 23 * 3);
    free(back.px);

    char want[8192];
    char *bad = path_in_root("missing/x.png");
    assert_int_equal(eddy_raster_write_png(&im, bad, &err), EDDY_ERR_IO);
    snprintf(want, sizeof want, "cannot write '%s': No such file or directory", bad);
    assert_string_equal(err.message, want);
    /* A folder where the file should go: the temporary is written, the rename fails, nothing is left. */
    char *dir = path_in_root("a_folder");
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(eddy_raster_write_png(&im, dir, &err), EDDY_ERR_IO);
    snprintf(want, sizeof want, "cannot write '%s': Is a directory", dir);
    assert_string_equal(err.message, want);
    assert_no_tmp_files(g_root);
    eddy_raster_free(&im);

    assert_int_equal(eddy_raster_init(&im, 0, 5, WHITE, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "image size 0 x 5 is out of range (1..16384)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disc_coverage_integrates_to_its_area),
        cmocka_unit_test(test_line_coverage_integrates_to_its_width),
        cmocka_unit_test(test_turned_text_is_the_text_rotated),
        cmocka_unit_test(test_non_ascii_is_one_question_mark),
        cmocka_unit_test(test_clip_limits_drawing),
        cmocka_unit_test(test_png_round_trip),
    };
    return cmocka_run_group_tests(tests, setup_root, teardown_root);
}
