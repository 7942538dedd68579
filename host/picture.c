#include "picture.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_SIZE 16
#define MAX_SIZE 16384

eddy_picture_options eddy_picture_default_options(void)
{
    eddy_picture_options o;
    memset(&o, 0, sizeof o);
    o.width = 960;
    o.outline = 1;
    o.colorbar = 1;
    o.show_time = 1;
    return o;
}

/* ---------------------------------------------------------------------------------------------- */
/* Colormap                                                                                         */

/* Nine samples of matplotlib's viridis at t = 0, 1/8, ..., 1. Linear interpolation between them stays
 * within a few levels of the real map and keeps its two useful properties: lightness rises
 * monotonically (speed reads as brightness, also in greyscale) and it is readable to colour-blind eyes. */
static const uint8_t VIRIDIS[9][3] = {
    {68, 1, 84},    {72, 40, 120},  {62, 73, 137},  {49, 104, 142}, {38, 130, 142},
    {31, 158, 137}, {53, 183, 121}, {110, 206, 88}, {253, 231, 37},
};

void eddy_picture_colormap(float t, uint8_t rgb[3])
{
    if (!(t > 0.0f)) t = 0.0f; /* NaN included */
    if (t > 1.0f) t = 1.0f;
    float u = t * 8.0f;
    int k = (int)u;
    if (k > 7) k = 7;
    float f = u - (float)k;
    for (int c = 0; c < 3; ++c) {
        float v = (float)VIRIDIS[k][c] + f * ((float)VIRIDIS[k + 1][c] - (float)VIRIDIS[k][c]);
        rgb[c] = (uint8_t)lrintf(v);
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* A 5x7 font for the characters our labels use; each row is 5 bits, bit 4 the leftmost pixel.      */

typedef struct glyph {
    char c;
    uint8_t rows[7];
} glyph;

static const glyph FONT[] = {
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}}, {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}}, {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}}, {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}},
    {'+', {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}}, {'=', {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}},
    {'/', {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}}, {'t', {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}},
    {'s', {0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E}}, {'m', {0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11}},
    {'e', {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}}, {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'a', {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F}}, {'i', {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E}},
    {'f', {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08}},
};

typedef struct image {
    int w, h;
    uint8_t *rgb;
} image;

static void put_pixel(image *im, int x, int y, const uint8_t c[3], float a)
{
    if (x < 0 || y < 0 || x >= im->w || y >= im->h || !(a > 0.0f)) return;
    uint8_t *p = im->rgb + 3 * ((size_t)y * (size_t)im->w + (size_t)x);
    if (a >= 1.0f) {
        p[0] = c[0];
        p[1] = c[1];
        p[2] = c[2];
        return;
    }
    for (int k = 0; k < 3; ++k) p[k] = (uint8_t)lrintf((float)p[k] + a * ((float)c[k] - (float)p[k]));
}

static void fill_rect(image *im, int x0, int y0, int x1, int y1, const uint8_t c[3])
{
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) put_pixel(im, x, y, c, 1.0f);
}

/* Width in pixels of `s` at font scale `scale`: 5 columns and 1 of spacing per character. */
static int text_width(const char *s, int scale)
{
    int n = (int)strlen(s);
    return n ? (6 * n - 1) * scale : 0;
}

static void draw_text(image *im, int x, int y, const char *s, int scale, const uint8_t c[3])
{
    for (; *s; ++s, x += 6 * scale) {
        const glyph *g = NULL;
        for (size_t k = 0; k < sizeof FONT / sizeof FONT[0]; ++k)
            if (FONT[k].c == *s) g = &FONT[k];
        if (!g) continue; /* a space, or a character no label should contain */
        for (int r = 0; r < 7; ++r)
            for (int col = 0; col < 5; ++col)
                if (g->rows[r] & (0x10 >> col))
                    fill_rect(im, x + col * scale, y + r * scale, x + (col + 1) * scale, y + (r + 1) * scale, c);
    }
}

/* Coverage of a pixel by a disc, from the distance of its centre: a one-pixel linear ramp at the
 * rim, which is enough to keep 1.5 px discs from looking like plus signs. */
static void draw_disc(image *im, double cx, double cy, double r, const uint8_t c[3])
{
    int x0 = (int)floor(cx - r - 0.5), x1 = (int)ceil(cx + r + 0.5);
    int y0 = (int)floor(cy - r - 0.5), y1 = (int)ceil(cy + r + 0.5);
    if (x1 < 0 || y1 < 0 || x0 >= im->w || y0 >= im->h) return;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > im->w) x1 = im->w;
    if (y1 > im->h) y1 = im->h;
    /* Squared radii bound the rim, so the square root is only taken for the few pixels on it. */
    double inner = r - 0.5, outer2 = (r + 0.5) * (r + 0.5);
    double inner2 = inner > 0.0 ? inner * inner : 0.0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
            double d2 = dx * dx + dy * dy;
            if (d2 >= outer2) continue;
            if (d2 <= inner2) {
                put_pixel(im, x, y, c, 1.0f);
                continue;
            }
            double a = r + 0.5 - sqrt(d2);
            if (a > 0.0) put_pixel(im, x, y, c, a >= 1.0 ? 1.0f : (float)a);
        }
}

/* ---------------------------------------------------------------------------------------------- */
/* Layout                                                                                           */

static float world_scale(const eddy_world *w, const eddy_picture_options *o)
{
    float s = o->simulation_scale > 0.0f ? o->simulation_scale : w->simulation_scale;
    return s > 0.0f && isfinite(s) ? s : 1.0f;
}

static float material_spacing(const eddy_world *w, uint32_t m)
{
    return m < w->material_count && w->materials[m].particle_dist > 0.0f ? w->materials[m].particle_dist : 0.0f;
}

/* Font scale: 2x at the default 960 px, so labels stay readable whatever the image width. */
static int font_scale(int width)
{
    int s = (width + 240) / 480;
    return s < 1 ? 1 : s;
}

/* Colour range in world units/s: fixed by the options, or 0 to the current largest speed. */
static void speed_range(const eddy_world *w, const eddy_picture_options *o, float *lo, float *hi)
{
    if (o->speed_max > o->speed_min) {
        *lo = o->speed_min;
        *hi = o->speed_max;
        return;
    }
    const eddy_particles *p = &w->particles;
    float scale = world_scale(w, o);
    float vmax = 0.0f;
    for (size_t i = 0; i < p->count; ++i) {
        float v = sqrtf(p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i]) / scale;
        if (v > vmax) vmax = v; /* NaN is skipped here: one bad particle should not blank the picture */
    }
    *lo = 0.0f;
    *hi = vmax;
}

static void speed_label(char *buf, size_t n, float v)
{
    snprintf(buf, n, "%.3g m/s", (double)v);
}

static int colorbar_width(const eddy_world *w, const eddy_picture_options *o, int margin, int fs)
{
    if (!o->colorbar) return 0;
    float lo, hi;
    speed_range(w, o, &lo, &hi);
    char a[64], b[64];
    speed_label(a, sizeof a, lo);
    speed_label(b, sizeof b, hi);
    int tw = text_width(a, fs) > text_width(b, fs) ? text_width(a, fs) : text_width(b, fs);
    return margin + 8 * fs + 3 * fs + tw;
}

int eddy_picture_layout_compute(const eddy_world *w, const eddy_picture_options *opt,
                                eddy_picture_layout *L, eddy_error *err)
{
    eddy_picture_options defaults = eddy_picture_default_options();
    const eddy_picture_options *o = opt ? opt : &defaults;
    memset(L, 0, sizeof *L);
    if (o->width < MIN_SIZE || o->width > MAX_SIZE || (o->height != 0 && (o->height < MIN_SIZE || o->height > MAX_SIZE)))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "picture: size %d x %d is out of range (width %d..%d, height 0 or %d..%d)", o->width,
                              o->height, MIN_SIZE, MAX_SIZE, MIN_SIZE, MAX_SIZE);

    const eddy_particles *p = &w->particles;
    float lo[2], hi[2];
    if (o->has_bounds) {
        lo[0] = o->bounds_min[0];
        lo[1] = o->bounds_min[1];
        hi[0] = o->bounds_max[0];
        hi[1] = o->bounds_max[1];
    } else if (w->boundaries.has_container) {
        lo[0] = w->boundaries.container_min[0];
        lo[1] = w->boundaries.container_min[1];
        hi[0] = w->boundaries.container_max[0];
        hi[1] = w->boundaries.container_max[1];
    } else if (p->count) {
        float pad = 0.0f;
        lo[0] = hi[0] = p->x[0];
        lo[1] = hi[1] = p->y[0];
        for (size_t i = 0; i < p->count; ++i) {
            if (!isfinite(p->x[i]) || !isfinite(p->y[i])) continue;
            lo[0] = fminf(lo[0], p->x[i]);
            hi[0] = fmaxf(hi[0], p->x[i]);
            lo[1] = fminf(lo[1], p->y[i]);
            hi[1] = fmaxf(hi[1], p->y[i]);
            pad = fmaxf(pad, 0.5f * material_spacing(w, p->material[i]));
        }
        lo[0] -= pad;
        lo[1] -= pad;
        hi[0] += pad;
        hi[1] += pad;
    } else {
        lo[0] = lo[1] = 0.0f;
        hi[0] = hi[1] = 1.0f;
    }
    for (int a = 0; a < 2; ++a)
        if (!isfinite(lo[a]) || !isfinite(hi[a]) || hi[a] < lo[a])
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "picture: the framed region [%g, %g] x [%g, %g] is not a finite box",
                                  (double)lo[0], (double)hi[0], (double)lo[1], (double)hi[1]);
    /* A line of particles (or a single one) has zero extent on an axis; widen it so the scale exists. */
    double ex = (double)hi[0] - lo[0], ey = (double)hi[1] - lo[1];
    if (ex <= 0.0 && ey <= 0.0) ex = ey = fmax(1e-6, fabs((double)lo[0]) * 1e-3);
    if (ex <= 0.0) ex = ey;
    if (ey <= 0.0) ey = ex;
    double cx = 0.5 * ((double)lo[0] + hi[0]), cy = 0.5 * ((double)lo[1] + hi[1]);
    L->region_min[0] = (float)(cx - 0.5 * ex);
    L->region_max[0] = (float)(cx + 0.5 * ex);
    L->region_min[1] = (float)(cy - 0.5 * ey);
    L->region_max[1] = (float)(cy + 0.5 * ey);

    int W = o->width;
    int margin = W / 40 < 8 ? 8 : W / 40;
    int fs = font_scale(W);
    int top = o->show_time ? margin + 7 * fs : margin;
    int cbw = colorbar_width(w, o, margin, fs);
    int plot_w = W - 2 * margin - cbw;
    if (plot_w < 4) {
        /* A narrow picture: the frame gets the space and the colour bar would not fit anyway. */
        cbw = 0;
        margin = 1;
        top = 1;
        plot_w = W - 2;
    }
    int H = o->height;
    if (H == 0) {
        double h = ceil(ey * (plot_w / ex));
        double hmax = MAX_SIZE - top - margin;
        if (h > hmax) h = hmax;
        if (h < 1.0) h = 1.0;
        H = top + (int)h + margin;
        if (H < MIN_SIZE) H = MIN_SIZE;
    }
    int plot_h = H - top - margin;
    if (plot_h < 1) {
        top = margin = 1;
        plot_h = H - 2;
    }
    L->width = W;
    L->height = H;
    L->plot_x0 = margin;
    L->plot_y0 = top;
    L->plot_x1 = margin + plot_w;
    L->plot_y1 = top + plot_h;
    double ppu = fmin(plot_w / ex, plot_h / ey);
    L->pixels_per_unit = ppu;
    L->origin_x = L->plot_x0 + 0.5 * (plot_w - ex * ppu) - L->region_min[0] * ppu;
    L->origin_y = L->plot_y0 + 0.5 * (plot_h - ey * ppu) + L->region_max[1] * ppu;
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Rendering                                                                                        */

typedef struct depth_key {
    float z;
    uint32_t id;
    uint32_t index;
} depth_key;

static int by_depth(const void *a, const void *b)
{
    const depth_key *p = a, *q = b;
    if (p->z != q->z) return p->z < q->z ? -1 : 1;
    /* Ties (all of 2D) go by id, so the picture does not depend on the grid's storage order. */
    return p->id < q->id ? -1 : p->id > q->id;
}

static void render(image *im, const eddy_world *w, const eddy_picture_options *o, const eddy_picture_layout *L,
                   depth_key *keys)
{
    const uint8_t bg[3] = {o->dark ? 20 : 255, o->dark ? 22 : 255, o->dark ? 28 : 255};
    const uint8_t ink[3] = {o->dark ? 230 : 20, o->dark ? 230 : 20, o->dark ? 230 : 20};
    const uint8_t frame[3] = {o->dark ? 140 : 110, o->dark ? 140 : 110, o->dark ? 140 : 110};
    for (size_t k = 0; k < (size_t)im->w * (size_t)im->h; ++k) memcpy(im->rgb + 3 * k, bg, 3);
    int fs = font_scale(im->w);
    double s = L->pixels_per_unit;

    if (o->outline && (o->has_bounds || w->boundaries.has_container)) {
        int x0 = (int)lrint(L->origin_x + L->region_min[0] * s), x1 = (int)lrint(L->origin_x + L->region_max[0] * s);
        int y0 = (int)lrint(L->origin_y - L->region_max[1] * s), y1 = (int)lrint(L->origin_y - L->region_min[1] * s);
        int t = fs; /* line width: drawn outside the box, so it never covers fluid at the wall */
        fill_rect(im, x0 - t, y0 - t, x1 + t, y0, frame);
        fill_rect(im, x0 - t, y1, x1 + t, y1 + t, frame);
        fill_rect(im, x0 - t, y0, x0, y1, frame);
        fill_rect(im, x1, y0, x1 + t, y1, frame);
    }

    const eddy_particles *p = &w->particles;
    size_t n = p->count;
    for (size_t i = 0; i < n; ++i) {
        keys[i].z = isnan(p->z[i]) ? 0.0f : p->z[i];
        keys[i].id = p->id[i];
        keys[i].index = (uint32_t)i;
    }
    /* Far first (smallest z, as the view looks along -z), so nearer particles end up on top. */
    qsort(keys, n, sizeof *keys, by_depth);
    float lo, hi;
    speed_range(w, o, &lo, &hi);
    float scale = world_scale(w, o);
    for (size_t k = 0; k < n; ++k) {
        size_t i = keys[k].index;
        if (!isfinite(p->x[i]) || !isfinite(p->y[i])) continue;
        float v = sqrtf(p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i]) / scale;
        uint8_t c[3];
        eddy_picture_colormap(hi > lo ? (v - lo) / (hi - lo) : 0.0f, c);
        double r = fmax(1.5, 0.5 * material_spacing(w, p->material[i]) * s);
        draw_disc(im, L->origin_x + p->x[i] * s, L->origin_y - p->y[i] * s, r, c);
    }

    if (o->show_time) {
        char t[64];
        snprintf(t, sizeof t, "t = %.3f s", w->time);
        draw_text(im, L->plot_x0, (L->plot_y0 - 7 * fs) / 2, t, fs, ink);
    }
    int margin = L->plot_x0;
    if (o->colorbar && L->width - L->plot_x1 > margin + 8 * fs) {
        int bx0 = L->plot_x1 + margin, bx1 = bx0 + 8 * fs;
        int by0 = L->plot_y0, by1 = L->plot_y1;
        for (int y = by0; y < by1; ++y) {
            uint8_t c[3];
            eddy_picture_colormap(by1 - by0 > 1 ? (float)(by1 - 1 - y) / (float)(by1 - by0 - 1) : 0.0f, c);
            fill_rect(im, bx0, y, bx1, y + 1, c);
        }
        char a[64];
        speed_label(a, sizeof a, hi);
        draw_text(im, bx1 + 3 * fs, by0, a, fs, ink);
        speed_label(a, sizeof a, lo);
        draw_text(im, bx1 + 3 * fs, by1 - 7 * fs, a, fs, ink);
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* PNG                                                                                              */

typedef struct png_context {
    char message[256];
} png_context;

static void on_png_error(png_structp png, png_const_charp msg)
{
    png_context *ctx = png_get_error_ptr(png);
    snprintf(ctx->message, sizeof ctx->message, "%s", msg);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* libpng warnings are about its own choices; nothing for the user to act on */
}

/* libpng reports errors by longjmp; everything it may skip over is passed in, not local to this frame. */
static int encode_png(FILE *f, const image *im, png_bytep *rows, png_context *ctx)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, ctx, on_png_error, on_png_warning);
    if (!png) {
        snprintf(ctx->message, sizeof ctx->message, "libpng could not start");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(ctx->message, sizeof ctx->message, "libpng could not start");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)im->w, (png_uint_32)im->h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

int eddy_picture_write(const char *path, const eddy_world *w, const eddy_picture_options *opt, eddy_error *err)
{
    eddy_picture_options defaults = eddy_picture_default_options();
    const eddy_picture_options *o = opt ? opt : &defaults;
    eddy_picture_layout L;
    int rc = eddy_picture_layout_compute(w, o, &L, err);
    if (rc) return eddy_error_prefix(err, "cannot write '%s': ", path);

    size_t n = w->particles.count;
    image im = {L.width, L.height, malloc((size_t)L.width * (size_t)L.height * 3)};
    png_bytep *rows = malloc(sizeof *rows * (size_t)L.height);
    depth_key *keys = malloc(sizeof *keys * (n ? n : 1));
    size_t len = strlen(path);
    char *tmp = malloc(len + 5);
    if (!im.rgb || !rows || !keys || !tmp || n > UINT32_MAX) {
        free(im.rgb);
        free(rows);
        free(keys);
        free(tmp);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "cannot write '%s': out of memory", path);
    }
    render(&im, w, o, &L, keys);
    free(keys);
    for (int y = 0; y < L.height; ++y) rows[y] = im.rgb + 3 * (size_t)y * (size_t)L.width;

    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);
    png_context ctx = {{0}};
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        int e = errno;
        rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", path, strerror(e));
    } else {
        int bad = encode_png(f, &im, rows, &ctx);
        int e = 0;
        if (!bad && ferror(f)) {
            bad = 1;
            e = errno ? errno : EIO;
        }
        if (fclose(f) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        if (!bad && rename(tmp, path) != 0) {
            bad = 1;
            e = errno;
        }
        if (bad) {
            remove(tmp);
            rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", path, ctx.message[0] ? ctx.message : strerror(e));
        }
    }
    free(tmp);
    free(rows);
    free(im.rgb);
    return rc;
}

int eddy_picture_write_world(const char *path, const eddy_world *w, eddy_error *err)
{
    return eddy_picture_write(path, w, NULL, err);
}
