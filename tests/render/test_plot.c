/*
 * Line plots (host/viz/plot.c): points land where the documented axis mapping puts them, ranges widen to
 * the documented nice steps (worked out by hand below), NaN breaks lines, the legend carries each
 * series' palette colour, bad inputs get exact messages, and the PNG declares the size asked for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first. */
#include <cmocka.h>

#include "canvas.h"
#include "png_check.h"
#include "plot.h"

static const uint8_t WHITE[3] = {255, 255, 255};
/* Okabe & Ito (2008), as published: blue, vermillion, bluish green. */
static const uint8_t BLUE[3] = {0, 114, 178}, VERMILLION[3] = {213, 94, 0}, GREEN[3] = {0, 158, 115};

static double px_of(const eddy_plot_layout *L, double x)
{
    return L->plot_x0 + (x - L->x_min) / (L->x_max - L->x_min) * (L->plot_x1 - L->plot_x0);
}

static double py_of(const eddy_plot_layout *L, double y)
{
    return L->plot_y1 - (y - L->y_min) / (L->y_max - L->y_min) * (L->plot_y1 - L->plot_y0);
}

static void test_palette_is_okabe_ito(void **state)
{
    (void)state;
    uint8_t c[3];
    eddy_plot_palette(0, c);
    assert_true(same_rgb(c, BLUE));
    eddy_plot_palette(1, c);
    assert_true(same_rgb(c, VERMILLION));
    eddy_plot_palette(2, c);
    assert_true(same_rgb(c, GREEN));
    eddy_plot_palette(7, c); /* seven colours, then round again */
    assert_true(same_rgb(c, BLUE));
}

static void test_points_land_on_the_axis_mapping(void **state)
{
    (void)state;
    const double mx[2] = {2.5, 7.5}, my[2] = {40.0, 90.0};
    const double lx[2] = {0.0, 10.0}, ly[2] = {80.0, 0.0};
    eddy_plot_series s[2] = {{"measured", mx, my, 2, 1}, {"line", lx, ly, 2, 0}};
    eddy_plot_options o = eddy_plot_default_options();
    o.width = 640;
    o.height = 400;
    o.fixed_x = o.fixed_y = 1;
    o.x_min = 0.0;
    o.x_max = 10.0;
    o.y_min = 0.0;
    o.y_max = 100.0;
    o.title = "fixed ranges";
    o.x_label = "t (s)";
    o.y_label = "value";
    eddy_error err = {0};
    eddy_plot_layout L;
    assert_int_equal(eddy_plot_layout_compute(&o, s, 2, &L, &err), EDDY_OK);
    assert_true(L.x_min == 0.0 && L.x_max == 10.0 && L.y_min == 0.0 && L.y_max == 100.0);
    assert_true(L.plot_x0 > 0 && L.plot_x1 < 640 && L.plot_y0 > 0 && L.plot_y1 < 400);
    char *path = path_in_root("fixed.png");
    assert_int_equal(eddy_plot_write_png(path, &o, s, 2, &err), EDDY_OK);
    assert_no_tmp_files(g_root);
    rgb_image im = read_png(path);
    assert_int_equal(im.w, 640);
    assert_int_equal(im.h, 400);

    /* Markers: a quarter and three quarters across, 40% and 90% up the axes. */
    double w = L.plot_x1 - L.plot_x0, h = L.plot_y1 - L.plot_y0;
    assert_pixel(&im, L.plot_x0 + 0.25 * w, L.plot_y1 - 0.40 * h, BLUE);
    assert_pixel(&im, L.plot_x0 + 0.75 * w, L.plot_y1 - 0.90 * h, BLUE);
    /* Markers are not joined: halfway between them is empty. */
    assert_pixel(&im, L.plot_x0 + 0.5 * w + 0.5, L.plot_y1 - 0.65 * h + 0.5, WHITE);
    /* The line from (0, 80) to (10, 0) passes (3.3, 53.6) and (6.1, 31.2), away from grid lines. */
    assert_true(near_color(&im, L.plot_x0 + 0.33 * w, L.plot_y1 - 0.536 * h, VERMILLION));
    assert_true(near_color(&im, L.plot_x0 + 0.61 * w, L.plot_y1 - 0.312 * h, VERMILLION));
    /* Under the line, far from it: background. */
    assert_pixel(&im, L.plot_x0 + 0.33 * w, L.plot_y1 - 0.3 * h, WHITE);
    /* The title above the axes, the y label turned on its side left of the tick labels (right-aligned
     * against the axes, 10 px or less from them), the x label at the bottom. */
    assert_true(has_dark(&im, L.plot_x0, 0, L.plot_x1, L.plot_y0 - 2));
    int widest = eddy_canvas_text_width("100", eddy_canvas_font_px(640)); /* the widest tick label */
    assert_true(has_dark(&im, 0, L.plot_y0, L.plot_x0 - widest - 10, L.plot_y1));
    assert_true(has_dark(&im, L.plot_x0, im.h - 30, L.plot_x1, im.h));
    /* The line is clipped to the axes: nothing of it right of the frame on its row at x = 10. */
    assert_false(has_color(&im, L.plot_x1 + 3, (int)py_of(&L, 0.0) - 3, L.legend_x0 - 1, (int)py_of(&L, 0.0) + 3, VERMILLION));
    free(im.px);
}

static void test_automatic_ranges_are_nice(void **state)
{
    (void)state;
    /* x in [0, 0.93]: step 0.1 would need 10 intervals, 0.2 needs 5 -> [0, 1].
     * y in [-3.2, 7.7]: step 1 needs 12 intervals (-4..8), 2 needs 6 -> [-4, 8]. */
    const double x[3] = {0.0, 0.5, 0.93}, y[3] = {-3.2, 7.7, 1.0};
    eddy_plot_series s = {"a", x, y, 3, 0};
    eddy_error err = {0};
    eddy_plot_layout L;
    assert_int_equal(eddy_plot_layout_compute(NULL, &s, 1, &L, &err), EDDY_OK);
    assert_int_equal(L.width, 960);
    assert_int_equal(L.height, 600);
    assert_true(fabs(L.x_min) < 1e-12 && fabs(L.x_max - 1.0) < 1e-12 && fabs(L.x_step - 0.2) < 1e-12);
    assert_true(fabs(L.y_min + 4.0) < 1e-12 && fabs(L.y_max - 8.0) < 1e-12 && fabs(L.y_step - 2.0) < 1e-12);

    /* Constant y = 5 widens to 4.5..5.5 (10%): step 0.1 needs 10 intervals, 0.2 needs 6 (4.4..5.6). */
    const double c[3] = {5.0, 5.0, 5.0};
    s.y = c;
    assert_int_equal(eddy_plot_layout_compute(NULL, &s, 1, &L, &err), EDDY_OK);
    assert_true(fabs(L.y_min - 4.4) < 1e-9 && fabs(L.y_max - 5.6) < 1e-9 && fabs(L.y_step - 0.2) < 1e-12);

    /* Non-finite points do not count; no finite point at all gives [0, 1]. */
    const double nx[2] = {NAN, INFINITY}, ny[2] = {1.0, 2.0};
    eddy_plot_series bad = {"nan", nx, ny, 2, 0};
    assert_int_equal(eddy_plot_layout_compute(NULL, &bad, 1, &L, &err), EDDY_OK);
    assert_true(L.x_min == 0.0 && L.x_max == 1.0 && L.y_min == 0.0 && L.y_max == 1.0);
    assert_int_equal(eddy_plot_layout_compute(NULL, NULL, 0, &L, &err), EDDY_OK);
    assert_true(L.x_min == 0.0 && L.x_max == 1.0 && L.y_min == 0.0 && L.y_max == 1.0);
    char *path = path_in_root("empty.png");
    assert_int_equal(eddy_plot_write_png(path, NULL, NULL, 0, &err), EDDY_OK);
    rgb_image im = read_png(path);
    assert_int_equal(im.w, 960);
    assert_int_equal(im.h, 600);
    free(im.px);
}

static void test_nan_breaks_the_line(void **state)
{
    (void)state;
    /* y = x with a gap at x = 2, and a lone finite point at x = 5 between two gaps. */
    const double x[7] = {0, 1, 2, 3, 4, 5, 6}, y[7] = {0, 1, NAN, 3, NAN, 5, NAN};
    eddy_plot_series s = {"gappy", x, y, 7, 0};
    eddy_plot_options o = eddy_plot_default_options();
    o.fixed_x = o.fixed_y = 1;
    o.x_min = o.y_min = 0.0;
    o.x_max = o.y_max = 6.0;
    eddy_error err = {0};
    eddy_plot_layout L;
    assert_int_equal(eddy_plot_layout_compute(&o, &s, 1, &L, &err), EDDY_OK);
    char *path = path_in_root("gap.png");
    assert_int_equal(eddy_plot_write_png(path, &o, &s, 1, &err), EDDY_OK);
    rgb_image im = read_png(path);
    /* Ticks every 1 (6 intervals): probe off the grid lines. Drawn: (0.7, 0.7) on the first piece. */
    assert_true(near_color(&im, px_of(&L, 0.7), py_of(&L, 0.7), BLUE));
    /* Not drawn: the segment from (1, 1) to (3, 3) across the gap, nor from 3 to 5 across the next. */
    assert_pixel(&im, px_of(&L, 1.7), py_of(&L, 1.7), WHITE);
    assert_pixel(&im, px_of(&L, 2.3), py_of(&L, 2.3), WHITE);
    assert_pixel(&im, px_of(&L, 4.3), py_of(&L, 4.3), WHITE);
    /* The lone point (5, 5) is a dot. */
    assert_pixel(&im, px_of(&L, 5.0), py_of(&L, 5.0), BLUE);
    free(im.px);
}

/* Values no axis can span (a reference file's 1e308, a blow-up's) are skipped like infinite ones: the
 * axes were NaN or infinite and listing their ticks never ended. The rest is drawn as without them. */
static void test_huge_values_are_skipped(void **state)
{
    (void)state;
    const double x[5] = {0, 1, 2, 3, 4}, y[5] = {0, 1, -1.7e308, 3, 1.75e308};
    const double x2[2] = {0, 4}, y2[2] = {4, 0};
    eddy_plot_series s[2] = {{"huge", x, y, 5, 0}, {"plain", x2, y2, 2, 0}};
    eddy_error err = {0};
    eddy_plot_layout L;
    assert_int_equal(eddy_plot_layout_compute(NULL, s, 2, &L, &err), EDDY_OK);
    /* The range of the drawable points, 0..4, widened to nice steps by the documented rule. */
    assert_true(L.y_min == 0.0 && L.y_max == 4.0 && L.x_min == 0.0 && L.x_max == 4.0);
    char *path = path_in_root("huge.png");
    assert_int_equal(eddy_plot_write_png(path, NULL, s, 2, &err), EDDY_OK);
    rgb_image im = read_png(path);
    assert_int_equal(im.w, 960);
    /* The segment (0, 0)-(1, 1) is drawn; none from (1, 1) towards the skipped point. */
    assert_true(near_color(&im, px_of(&L, 0.5), py_of(&L, 0.5), BLUE));
    assert_false(near_color(&im, px_of(&L, 1.2), py_of(&L, 0.5), BLUE));
    free(im.px);
    /* A fixed range of such values is refused like an infinite one. */
    eddy_plot_options o = eddy_plot_default_options();
    o.fixed_y = 1;
    o.y_min = -1e308;
    o.y_max = 1e308;
    assert_int_equal(eddy_plot_layout_compute(&o, s, 2, &L, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "plot y range [-1e+308, 1e+308] is empty or not finite (expected finite y_min < y_max)");
}

static void test_legend_has_each_series_colour(void **state)
{
    (void)state;
    const double x[2] = {0, 1}, y[2] = {0, 1};
    /* The middle series has no label and so no legend entry: the third one takes the second row. */
    eddy_plot_series s[3] = {{"sph_mueller", x, y, 2, 0}, {NULL, x, y, 2, 0}, {"Martin & Moyce (1952)", x, y, 2, 1}};
    eddy_error err = {0};
    eddy_plot_layout L;
    assert_int_equal(eddy_plot_layout_compute(NULL, s, 3, &L, &err), EDDY_OK);
    assert_true(L.legend_x0 >= L.plot_x1 && L.legend_row > 0);
    char *path = path_in_root("legend.png");
    assert_int_equal(eddy_plot_write_png(path, NULL, s, 3, &err), EDDY_OK);
    rgb_image im = read_png(path);
    int r0 = L.legend_y0, r1 = r0 + L.legend_row, r2 = r1 + L.legend_row;
    assert_true(has_color(&im, L.legend_x0, r0, im.w, r1, BLUE));
    assert_true(has_color(&im, L.legend_x0, r1, im.w, r2, GREEN));
    assert_false(has_color(&im, L.legend_x0, r0, im.w, im.h, VERMILLION));
    /* Text in each row, nothing in the third (anti-aliased: dark pixels, not the ink's colour exactly). */
    int text_x = L.legend_x0 + (int)(2.0 * L.legend_row);
    assert_true(has_dark(&im, text_x, r0, im.w, r1));
    assert_true(has_dark(&im, text_x, r1, im.w, r2));
    assert_false(has_dark(&im, L.legend_x0, r2 + 2, im.w, r2 + L.legend_row));
    /* Inside the axes all three colours appear (the unlabelled series is still drawn). */
    assert_true(has_color(&im, L.plot_x0, L.plot_y0, L.plot_x1, L.plot_y1, VERMILLION));
    free(im.px);
}

static void test_bad_inputs_have_exact_messages(void **state)
{
    (void)state;
    const double x[3] = {0, 1, 2};
    eddy_error err = {0};
    char *path = path_in_root("bad.png");
    char want[8192];

    eddy_plot_options o = eddy_plot_default_options();
    o.width = 10;
    assert_int_equal(eddy_plot_write_png(path, &o, NULL, 0, &err), EDDY_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want,
             "cannot write '%s': plot size 10 x 600 is out of range (width and height 64..8192, or 0 for 960 x 600)", path);
    assert_string_equal(err.message, want);

    o = eddy_plot_default_options();
    o.fixed_x = 1;
    o.x_min = o.x_max = 1.0;
    assert_int_equal(eddy_plot_write_png(path, &o, NULL, 0, &err), EDDY_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want,
             "cannot write '%s': plot x range [1, 1] is empty or not finite (expected finite x_min < x_max)", path);
    assert_string_equal(err.message, want);

    o = eddy_plot_default_options();
    o.fixed_y = 1;
    o.y_min = 0.0;
    o.y_max = NAN;
    assert_int_equal(eddy_plot_write_png(path, &o, NULL, 0, &err), EDDY_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want,
             "cannot write '%s': plot y range [0, nan] is empty or not finite (expected finite y_min < y_max)", path);
    assert_string_equal(err.message, want);

    eddy_plot_series s = {"kinetic_energy", x, NULL, 3, 0};
    assert_int_equal(eddy_plot_write_png(path, NULL, &s, 1, &err), EDDY_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "cannot write '%s': plot series 0 (kinetic_energy) has 3 points but no y values", path);
    assert_string_equal(err.message, want);

    char *nowhere = path_in_root("no/such/folder/p.png");
    assert_int_equal(eddy_plot_write_png(nowhere, NULL, NULL, 0, &err), EDDY_ERR_IO);
    snprintf(want, sizeof want, "cannot write '%s': No such file or directory", nowhere);
    assert_string_equal(err.message, want);
    assert_int_equal(file_size(path), -1); /* nothing was written for the refused calls */
    assert_no_tmp_files(g_root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_palette_is_okabe_ito),
        cmocka_unit_test(test_points_land_on_the_axis_mapping),
        cmocka_unit_test(test_automatic_ranges_are_nice),
        cmocka_unit_test(test_nan_breaks_the_line),
        cmocka_unit_test(test_huge_values_are_skipped),
        cmocka_unit_test(test_legend_has_each_series_colour),
        cmocka_unit_test(test_bad_inputs_have_exact_messages),
    };
    return cmocka_run_group_tests(tests, setup_root, teardown_root);
}
