/*
 * tests/render/png_check.h — what the picture tests share: a scratch folder, PNGs read back with
 * libpng's own reader (independent of the writer in host/viz/canvas.c), and pixel checks. Include after
 * cmocka.h; everything is static, one copy per test program.
 */
#ifndef EDDY_TEST_PNG_CHECK_H
#define EDDY_TEST_PNG_CHECK_H

#include <dirent.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_support.h"

static char g_root[4096]; /* a fresh folder for this test program, removed at the end */


static int setup_root(void **state)
{
    (void)state;
    snprintf(g_root, sizeof g_root, "/tmp/eddy_test_render_XXXXXX");
    return mkdtemp(g_root) ? 0 : -1;
}

static int teardown_root(void **state)
{
    (void)state;
    support_remove_tree(g_root);
    return 0;
}

/* g_root/name; a rotating buffer, so a result stays valid for the next 3 calls. */
static inline char *path_in_root(const char *name)
{
    static char buf[4][8192];
    static int k;
    k = (k + 1) & 3;
    if (snprintf(buf[k], sizeof buf[k], "%s/%s", g_root, name) >= (int)sizeof buf[k]) fail_msg("path too long");
    return buf[k];
}

static inline int file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int)st.st_size : -1;
}

/* No writer may leave "<name>.tmp" behind. */
static inline void assert_no_tmp_files(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 4 && !strcmp(e->d_name + n - 4, ".tmp")) fail_msg("left-over temporary file %s/%s", dir, e->d_name);
    }
    closedir(d);
}

typedef struct rgb_image {
    int w, h;
    uint8_t *px;
} rgb_image;

/* Reads a PNG and checks that it declares 8-bit RGB without alpha, as the writer promises. */
static inline rgb_image read_png(const char *path)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) fail_msg("not a PNG: %s (%s)", path, img.message);
    assert_int_equal(img.format, PNG_FORMAT_RGB);
    rgb_image r = {(int)img.width, (int)img.height, malloc(PNG_IMAGE_SIZE(img))};
    assert_non_null(r.px);
    if (!png_image_finish_read(&img, NULL, r.px, 0, NULL)) fail_msg("cannot decode %s: %s", path, img.message);
    return r;
}

/* The pixel that holds the real point (x, y). */
static inline const uint8_t *pixel_at(const rgb_image *im, double x, double y)
{
    int i = (int)floor(x), j = (int)floor(y);
    if (!(i >= 0 && j >= 0 && i < im->w && j < im->h)) fail_msg("point (%g, %g) is outside the %d x %d image", x, y, im->w, im->h);
    return im->px + 3 * ((size_t)j * (size_t)im->w + (size_t)i);
}

static inline int same_rgb(const uint8_t *p, const uint8_t c[3])
{
    return p[0] == c[0] && p[1] == c[1] && p[2] == c[2];
}

static inline void assert_pixel(const rgb_image *im, double x, double y, const uint8_t c[3])
{
    const uint8_t *p = pixel_at(im, x, y);
    if (!same_rgb(p, c))
        fail_msg("pixel at (%.2f, %.2f) is (%d, %d, %d), expected (%d, %d, %d)", x, y, p[0], p[1], p[2], c[0], c[1], c[2]);
}

/* Whether colour c occurs exactly in [x0, x1) x [y0, y1) (clipped to the image). */
static inline int has_color(const rgb_image *im, int x0, int y0, int x1, int y1, const uint8_t c[3])
{
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < im->h; ++y)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < im->w; ++x)
            if (same_rgb(im->px + 3 * ((size_t)y * (size_t)im->w + (size_t)x), c)) return 1;
    return 0;
}

/* Whether text or lines in dark ink show in [x0, x1) x [y0, y1): a pixel with every channel below 100.
 * Anti-aliased text need not have a pixel of the ink's colour exactly, but its stems are dark. */
static inline int has_dark(const rgb_image *im, int x0, int y0, int x1, int y1)
{
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < im->h; ++y)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < im->w; ++x) {
            const uint8_t *p = im->px + 3 * ((size_t)y * (size_t)im->w + (size_t)x);
            if (p[0] < 100 && p[1] < 100 && p[2] < 100) return 1;
        }
    return 0;
}

/* Whether colour c occurs in the 3x3 pixels around the point: an anti-aliased line 2 px wide covers
 * at least one pixel centre fully within that distance. */
static inline int near_color(const rgb_image *im, double x, double y, const uint8_t c[3])
{
    int i = (int)floor(x), j = (int)floor(y);
    return has_color(im, i - 1, j - 1, i + 2, j + 2, c);
}

#endif /* EDDY_TEST_PNG_CHECK_H */
