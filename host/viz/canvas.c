/*
 * host/viz/canvas.c — the canvas of canvas.h: image and clip, discs and spheres (with the stamp cache
 * that makes 10^5 small discs cheap), lines, text, the colormap and colour bar, and the PNG writer.
 * About 620 lines in one file on purpose: every part draws on the same cairo surface and clip state
 * of the one struct, and the stamp cache depends on how that surface stores pixels.
 */
#include "canvas.h"

#include "output.h"

#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FONT_FACE "DejaVu Sans"

static void free_stamps(struct eddy_canvas_stamps *st);

/* ---------------------------------------------------------------------------------------------- */
/* Image                                                                                            */

static void set_rgb(cairo_t *cr, const uint8_t c[3])
{
    cairo_set_source_rgb(cr, c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
}

/* The same font everywhere, hinted the same way, so that a layout measured on one context holds on
 * another: grey anti-aliasing, slight (vertical-only) hinting for crisp baselines and stems, and whole-
 * pixel advances. */
static void set_font(cairo_t *cr, double px)
{
    cairo_select_font_face(cr, FONT_FACE, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, px);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_ON);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
}

int eddy_canvas_init(eddy_canvas *c, int width, int height, const uint8_t background[3], eddy_error *err)
{
    memset(c, 0, sizeof *c);
    if (width < 1 || height < 1 || width > EDDY_CANVAS_MAX_SIZE || height > EDDY_CANVAS_MAX_SIZE)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "image size %d x %d is out of range (1..%d)", width,
                              height, EDDY_CANVAS_MAX_SIZE);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for a %d x %d image", width, height);
    }
    cairo_t *cr = cairo_create(s);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        cairo_destroy(cr);
        cairo_surface_destroy(s);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for a %d x %d image", width, height);
    }
    c->width = width;
    c->height = height;
    c->surface = s;
    c->cr = cr;
    set_rgb(cr, background);
    cairo_paint(cr);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    return EDDY_OK;
}

void eddy_canvas_free(eddy_canvas *c)
{
    if (!c) return;
    free_stamps(c->stamps);
    if (c->cr) cairo_destroy(c->cr);
    if (c->surface) cairo_surface_destroy(c->surface);
    memset(c, 0, sizeof *c);
}

void eddy_canvas_clip(eddy_canvas *c, int x0, int y0, int x1, int y1)
{
    cairo_reset_clip(c->cr);
    cairo_new_path(c->cr);
    cairo_rectangle(c->cr, x0, y0, x1 > x0 ? x1 - x0 : 0, y1 > y0 ? y1 - y0 : 0);
    cairo_clip(c->cr);
}

void eddy_canvas_unclip(eddy_canvas *c)
{
    cairo_reset_clip(c->cr);
}

int eddy_canvas_pixel(const eddy_canvas *c, int x, int y, uint8_t rgb[3])
{
    if (x < 0 || y < 0 || x >= c->width || y >= c->height) return 0;
    cairo_surface_flush(c->surface);
    const unsigned char *d = cairo_image_surface_get_data(c->surface);
    uint32_t v;
    memcpy(&v, d + (size_t)y * (size_t)cairo_image_surface_get_stride(c->surface) + 4 * (size_t)x, 4);
    rgb[0] = (uint8_t)(v >> 16);
    rgb[1] = (uint8_t)(v >> 8);
    rgb[2] = (uint8_t)v;
    return 1;
}

void eddy_canvas_fill_rect(eddy_canvas *c, double x0, double y0, double x1, double y1, const uint8_t rgb[3])
{
    if (!(x1 > x0 && y1 > y0)) return;
    cairo_new_path(c->cr);
    cairo_rectangle(c->cr, x0, y0, x1 - x0, y1 - y0);
    set_rgb(c->cr, rgb);
    cairo_fill(c->cr);
}

/* ---------------------------------------------------------------------------------------------- */
/* Discs and lines                                                                                  */

/* A circle's path. The flattening tolerance bounds how far cairo's polygon may cut inside the circle:
 * 0.01 px below a radius of 3 keeps the pixel holding the centre of a 1.5 px disc (its far corner
 * 1.42 px away at most) fully covered; larger discs have room for the default 0.1 px, which takes half
 * the time. */
static void circle(cairo_t *cr, double cx, double cy, double r)
{
    cairo_set_tolerance(cr, r < 3.0 ? 0.01 : 0.1);
    cairo_new_path(cr);
    cairo_arc(cr, cx, cy, r, 0.0, 2.0 * M_PI);
}

/* Whether a shape reaching `reach` pixels from (x, y) can touch the image: cairo would clip it anyway,
 * but a picture of many particles mostly outside the view should not pay for building their paths. */
static int visible(const eddy_canvas *c, double x, double y, double reach)
{
    return x + reach >= 0.0 && y + reach >= 0.0 && x - reach <= c->width && y - reach <= c->height;
}

/*
 * Stamps: a particle picture draws thousands of small discs, and cairo spends about 3 us rasterizing
 * each path but under 1 us compositing a ready mask. So a disc of radius below STAMP_MAX_RADIUS is
 * drawn by cairo once into an A8 coverage mask per radius and sub-pixel position (see draw_stamp), and
 * composited from there. A sphere's shading is a second mask, black over the disc with the alpha that
 * darkens it (exact wherever the disc covers its pixel wholly, a blend of the two on its rim).
 */
#define STAMP_MAX_RADIUS 12.0
#define STAMP_STEPS 16
#define STAMP_SLOTS 4096

typedef struct stamp {
    int r16, fx, fy, rim256; /* the key: radius and position in 1/16 px, the rim shade in 1/256 */
    int half;                /* the mask's origin is (half, half) px up and left of the centre's pixel */
    cairo_surface_t *cover, *shade;
} stamp;

struct eddy_canvas_stamps {
    stamp slot[STAMP_SLOTS];
    int used;
};

static void free_stamps(struct eddy_canvas_stamps *st)
{
    if (!st) return;
    for (int k = 0; k < STAMP_SLOTS; ++k) {
        if (st->slot[k].cover) cairo_surface_destroy(st->slot[k].cover);
        if (st->slot[k].shade) cairo_surface_destroy(st->slot[k].shade);
    }
    free(st);
}

/* The shade of a sphere at distance d from its centre: 1 out to `flat`, then linear to `rim` at r. */
static double shade_at(double d, double r, double flat, double rim)
{
    if (d <= flat) return 1.0;
    double u = (d - flat) / (r - flat);
    return 1.0 - (1.0 - rim) * (u < 1.0 ? u : 1.0);
}

/* Draws the masks of the stamp for this key into *s; 0 when cairo fails. */
static int make_stamp(stamp *s, int r16, int fx, int fy, int rim256)
{
    double r = (double)r16 / STAMP_STEPS;
    int half = (int)ceil(r) + 1, n = 2 * half + 1;
    double cx = half + (double)fx / STAMP_STEPS, cy = half + (double)fy / STAMP_STEPS;
    cairo_surface_t *cover = cairo_image_surface_create(CAIRO_FORMAT_A8, n, n);
    cairo_t *cr = cairo_create(cover);
    circle(cr, cx, cy, r);
    cairo_fill(cr);
    int bad = cairo_status(cr) != CAIRO_STATUS_SUCCESS;
    cairo_destroy(cr);
    cairo_surface_t *shade = NULL;
    if (!bad && rim256 < 256) {
        shade = cairo_image_surface_create(CAIRO_FORMAT_A8, n, n);
        bad = cairo_surface_status(shade) != CAIRO_STATUS_SUCCESS;
    }
    if (!bad && shade) {
        /* Black over the colour with alpha 1 - shade darkens it to shade x colour. */
        cairo_surface_flush(cover);
        cairo_surface_flush(shade);
        const unsigned char *cv = cairo_image_surface_get_data(cover);
        unsigned char *sh = cairo_image_surface_get_data(shade);
        int cs = cairo_image_surface_get_stride(cover), ss = cairo_image_surface_get_stride(shade);
        double flat = fmax(0.5 * r, 0.75), rim = rim256 / 256.0;
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                double d = hypot(x + 0.5 - cx, y + 0.5 - cy);
                double a = cv[y * cs + x] * (1.0 - shade_at(d, r, flat, rim));
                sh[y * ss + x] = (unsigned char)lrint(a);
            }
        cairo_surface_mark_dirty(shade);
    }
    if (bad) {
        cairo_surface_destroy(cover);
        if (shade) cairo_surface_destroy(shade);
        return 0;
    }
    s->r16 = r16;
    s->fx = fx;
    s->fy = fy;
    s->rim256 = rim256;
    s->half = half;
    s->cover = cover;
    s->shade = shade;
    return 1;
}

/* The stamp for this key, made on first use. When the table is full it is made into *spare, used once
 * and freed by the caller: whether a disc is drawn from a stamp must not depend on which discs came
 * before it, or a process drawing some of the discs (composite.h) would blend its edges otherwise than
 * one drawing them all. NULL when cairo fails (the caller then draws the path itself). */
static stamp *get_stamp(eddy_canvas *c, int r16, int fx, int fy, int rim256, stamp *spare)
{
    if (!c->stamps) c->stamps = calloc(1, sizeof *c->stamps);
    struct eddy_canvas_stamps *st = c->stamps;
    uint32_t h = (uint32_t)r16 * 2654435761u ^ (uint32_t)fx * 40503u ^ (uint32_t)fy * 9973u ^ (uint32_t)rim256 * 131u;
    for (int probe = 0; st && probe < STAMP_SLOTS; ++probe) {
        stamp *s = &st->slot[(h + (uint32_t)probe) % STAMP_SLOTS];
        if (s->cover) {
            if (s->r16 == r16 && s->fx == fx && s->fy == fy && s->rim256 == rim256) return s;
            continue;
        }
        if (st->used >= STAMP_SLOTS * 3 / 4) break; /* keep probing short */
        if (!make_stamp(s, r16, fx, fy, rim256)) return NULL;
        st->used++;
        return s;
    }
    memset(spare, 0, sizeof *spare);
    return make_stamp(spare, r16, fx, fy, rim256) ? spare : NULL;
}

/* Draws a disc (rim >= 1) or a sphere from a stamp; 0 when there is none to be had. */
static int draw_stamp(eddy_canvas *c, double cx, double cy, double r, const uint8_t rgb[3], float rim)
{
    if (r >= STAMP_MAX_RADIUS) return 0;
    /* Small discs to 1/16 px (the pixel holding a 1.5 px disc's centre stays wholly inside it), larger
     * ones to 1/4 px of position and 1/8 px of radius: fewer stamps for a perspective view, whose
     * radii vary from particle to particle. */
    int steps = r < 3.0 ? STAMP_STEPS : STAMP_STEPS / 4, rsteps = r < 3.0 ? STAMP_STEPS : STAMP_STEPS / 2;
    double qx = floor(cx * steps + 0.5), qy = floor(cy * steps + 0.5);
    if (!(fabs(qx) < 1e9 && fabs(qy) < 1e9)) return 0;
    int ix = (int)floor(qx / steps), iy = (int)floor(qy / steps);
    int fx = (int)(qx - (double)ix * steps) * (STAMP_STEPS / steps), fy = (int)(qy - (double)iy * steps) * (STAMP_STEPS / steps);
    int r16 = (int)lrint(r * rsteps) * (STAMP_STEPS / rsteps), rim256 = rim >= 1.0f ? 256 : (int)lrint(rim * 256.0f);
    stamp spare;
    stamp *s = get_stamp(c, r16 > 0 ? r16 : 1, fx, fy, rim256, &spare);
    if (!s) return 0;
    set_rgb(c->cr, rgb);
    cairo_mask_surface(c->cr, s->cover, ix - s->half, iy - s->half);
    if (s->shade) {
        cairo_set_source_rgb(c->cr, 0.0, 0.0, 0.0);
        cairo_mask_surface(c->cr, s->shade, ix - s->half, iy - s->half);
    }
    if (s == &spare) {
        cairo_surface_destroy(spare.cover);
        if (spare.shade) cairo_surface_destroy(spare.shade);
    }
    return 1;
}

void eddy_canvas_disc(eddy_canvas *c, double cx, double cy, double r, const uint8_t rgb[3])
{
    if (!(r > 0.0) || !isfinite(cx) || !isfinite(cy) || !visible(c, cx, cy, r)) return;
    if (draw_stamp(c, cx, cy, r, rgb, 1.0f)) return;
    circle(c->cr, cx, cy, r);
    set_rgb(c->cr, rgb);
    cairo_fill(c->cr);
}

void eddy_canvas_sphere(eddy_canvas *c, double cx, double cy, double r, const uint8_t rgb[3], float rim)
{
    if (!(r > 0.0) || !isfinite(cx) || !isfinite(cy) || !visible(c, cx, cy, r)) return;
    rim = rim < 0.0f ? 0.0f : rim > 1.0f ? 1.0f : rim;
    double flat = fmax(0.5 * r, 0.75);
    if (rim >= 1.0f || flat >= r) {
        eddy_canvas_disc(c, cx, cy, r, rgb);
        return;
    }
    if (draw_stamp(c, cx, cy, r, rgb, rim)) return;
    /* A radial gradient sampled at pixel centres: flat to `flat`, then linear to the rim colour. */
    cairo_pattern_t *p = cairo_pattern_create_radial(cx, cy, 0.0, cx, cy, r);
    double k[3] = {rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0};
    cairo_pattern_add_color_stop_rgb(p, 0.0, k[0], k[1], k[2]);
    cairo_pattern_add_color_stop_rgb(p, flat / r, k[0], k[1], k[2]);
    cairo_pattern_add_color_stop_rgb(p, 1.0, rim * k[0], rim * k[1], rim * k[2]);
    circle(c->cr, cx, cy, r);
    cairo_set_source(c->cr, p);
    cairo_fill(c->cr);
    cairo_pattern_destroy(p);
}

void eddy_canvas_line(eddy_canvas *c, double x0, double y0, double x1, double y1, double lw, const uint8_t rgb[3])
{
    const double xy[4] = {x0, y0, x1, y1};
    eddy_canvas_polyline(c, xy, 2, lw, rgb);
}

/* The segment (x0, y0)..(x1, y1) cut to [lo_x, hi_x] x [lo_y, hi_y] (Liang-Barsky); 0 when it misses. */
static int clip_segment_to(double *x0, double *y0, double *x1, double *y1, double lo_x, double hi_x, double lo_y,
                           double hi_y)
{
    const double dx = *x1 - *x0, dy = *y1 - *y0;
    const double p[4] = {-dx, dx, -dy, dy}, q[4] = {*x0 - lo_x, hi_x - *x0, *y0 - lo_y, hi_y - *y0};
    double t0 = 0.0, t1 = 1.0;
    for (int k = 0; k < 4; ++k) {
        if (p[k] == 0.0) {
            if (q[k] < 0.0) return 0;
            continue;
        }
        const double t = q[k] / p[k];
        if (p[k] < 0.0) t0 = fmax(t0, t);
        else t1 = fmin(t1, t);
        if (t0 > t1) return 0;
    }
    const double ax = *x0, ay = *y0;
    *x0 = ax + t0 * dx, *y0 = ay + t0 * dy;
    *x1 = ax + t1 * dx, *y1 = ay + t1 * dy;
    return 1;
}

void eddy_canvas_polyline(eddy_canvas *c, const double *xy, size_t n, double lw, const uint8_t rgb[3])
{
    if (!(lw > 0.0) || n == 0) return;
    int far = 0;
    for (size_t k = 0; k < 2 * n; ++k) {
        if (!isfinite(xy[k])) return;
        far |= fabs(xy[k]) > 1e6;
    }
    if (n == 1) {
        eddy_canvas_disc(c, xy[0], xy[1], 0.5 * lw, rgb);
        return;
    }
    cairo_set_tolerance(c->cr, 0.1);
    cairo_set_line_width(c->cr, lw);
    set_rgb(c->cr, rgb);
    if (far) {
        /* cairo holds coordinates in 24.8 fixed point: past about 8e6 pixels they wrap, and a line toward
         * a point just in front of a perspective eye (millions of pixels out) was drawn elsewhere. Each
         * segment is cut to the image (padded past the line's width) first; the joins are lost, which
         * only lines running out of the image have. */
        const double pad = 4.0 * lw + 4.0;
        for (size_t k = 0; k + 1 < n; ++k) {
            double x0 = xy[2 * k], y0 = xy[2 * k + 1], x1 = xy[2 * k + 2], y1 = xy[2 * k + 3];
            if (!clip_segment_to(&x0, &y0, &x1, &y1, -pad, c->width + pad, -pad, c->height + pad)) continue;
            cairo_new_path(c->cr);
            cairo_move_to(c->cr, x0, y0);
            cairo_line_to(c->cr, x1, y1);
            cairo_stroke(c->cr);
        }
        return;
    }
    cairo_new_path(c->cr);
    cairo_move_to(c->cr, xy[0], xy[1]);
    for (size_t k = 1; k < n; ++k) cairo_line_to(c->cr, xy[2 * k], xy[2 * k + 1]);
    cairo_stroke(c->cr);
}

/* The part of polygon `in` (n points) on the side x[axis] * sign <= limit * sign of the line x[axis] =
 * limit (Sutherland-Hodgman, one edge); `out` holds up to 2 n points. Returns its count. */
static size_t cut_polygon(const double *in, size_t n, int axis, double limit, double sign, double *out)
{
    size_t m = 0;
    for (size_t k = 0; k < n; ++k) {
        const double *p = in + 2 * k, *q = in + 2 * ((k + 1) % n);
        const double dp = sign * (p[axis] - limit), dq = sign * (q[axis] - limit);
        if (dp <= 0.0) {
            out[2 * m] = p[0];
            out[2 * m + 1] = p[1];
            ++m;
        }
        if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0)) {
            const double t = dp / (dp - dq);
            out[2 * m] = p[0] + t * (q[0] - p[0]);
            out[2 * m + 1] = p[1] + t * (q[1] - p[1]);
            ++m;
        }
    }
    return m;
}

void eddy_canvas_polygon(eddy_canvas *c, const double *xy, size_t n, const uint8_t fill[3], double lw,
                         const uint8_t edge[3])
{
    if (n < 3 || (!fill && !(edge && lw > 0.0))) return;
    for (size_t k = 0; k < 2 * n; ++k)
        if (!isfinite(xy[k])) return;
    /* Each cut adds at most one point per edge it crosses: 4 cuts of a convex n-gon stay under n + 4,
     * of any polygon under 2^4 n. */
    double *a = malloc(sizeof *a * 2 * 16 * n), *b = malloc(sizeof *b * 2 * 16 * n);
    if (!a || !b) {
        free(a);
        free(b);
        return;
    }
    memcpy(a, xy, sizeof *a * 2 * n);
    /* The edges cairo draws along the cut lie this far outside the image, out of sight. */
    const double pad = 4.0 * (lw > 0.0 ? lw : 0.0) + 4.0;
    size_t m = n;
    m = cut_polygon(a, m, 0, -pad, -1.0, b);
    m = cut_polygon(b, m, 0, c->width + pad, 1.0, a);
    m = cut_polygon(a, m, 1, -pad, -1.0, b);
    m = cut_polygon(b, m, 1, c->height + pad, 1.0, a);
    if (m >= 3) {
        cairo_new_path(c->cr);
        cairo_move_to(c->cr, a[0], a[1]);
        for (size_t k = 1; k < m; ++k) cairo_line_to(c->cr, a[2 * k], a[2 * k + 1]);
        cairo_close_path(c->cr);
        if (fill) {
            set_rgb(c->cr, fill);
            if (edge && lw > 0.0)
                cairo_fill_preserve(c->cr);
            else
                cairo_fill(c->cr);
        }
        if (edge && lw > 0.0) {
            cairo_set_line_width(c->cr, lw);
            set_rgb(c->cr, edge);
            cairo_stroke(c->cr);
        }
    }
    free(a);
    free(b);
}

/* ---------------------------------------------------------------------------------------------- */
/* Text                                                                                             */

double eddy_canvas_font_px(int image_width)
{
    double px = image_width / 60.0;
    return px < 10.0 ? 10.0 : px;
}

/* The length of the UTF-8 sequence at s (1..4), or 0 when it is not one (overlong, surrogate, above
 * U+10FFFF, cut short). */
static size_t utf8_length(const unsigned char *s)
{
    unsigned char b = s[0];
    size_t n;
    uint32_t cp;
    if (b < 0x80) return 1;
    if (b >= 0xC2 && b <= 0xDF) n = 2, cp = b & 0x1F;
    else if (b >= 0xE0 && b <= 0xEF) n = 3, cp = b & 0x0F;
    else if (b >= 0xF0 && b <= 0xF4) n = 4, cp = b & 0x07;
    else return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[k] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* A copy cairo accepts: invalid UTF-8 and control characters become '?'. NULL when out of memory. */
static char *clean_text(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(len + 1);
    if (!out) return NULL;
    size_t i = 0, o = 0;
    while (i < len) {
        size_t n = utf8_length((const unsigned char *)s + i);
        if (n == 0 || (n == 1 && ((unsigned char)s[i] < 32 || s[i] == 127))) {
            out[o++] = '?';
            ++i;
            continue;
        }
        memcpy(out + o, s + i, n);
        o += n;
        i += n;
    }
    out[o] = '\0';
    return out;
}

/* A context for measuring text before there is an image (a layout is computed first). */
static cairo_t *measuring_context(double px, cairo_surface_t **surface)
{
    *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(*surface);
    set_font(cr, px);
    return cr;
}

int eddy_canvas_text_width(const char *s, double px)
{
    if (!s || !s[0]) return 0;
    char *t = clean_text(s);
    if (!t) return 0;
    cairo_surface_t *surface;
    cairo_t *cr = measuring_context(px, &surface);
    cairo_text_extents_t e;
    cairo_text_extents(cr, t, &e);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    free(t);
    double w = fmax(e.x_advance, e.x_bearing + e.width);
    return w > 0.0 ? (int)ceil(w - 1e-9) : 0;
}

static void font_metrics(double px, double *ascent, double *descent)
{
    cairo_surface_t *surface;
    cairo_t *cr = measuring_context(px, &surface);
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    *ascent = fe.ascent;
    *descent = fe.descent;
}

int eddy_canvas_text_height(double px)
{
    double a, d;
    font_metrics(px, &a, &d);
    return (int)ceil(a + d - 1e-9);
}

static void draw_text(eddy_canvas *c, double x, double y, const char *s, double px, const uint8_t rgb[3], int up)
{
    if (!s || !s[0] || !(px > 0.0)) return;
    char *t = clean_text(s);
    if (!t) return;
    cairo_t *cr = c->cr;
    cairo_save(cr);
    set_font(cr, px);
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    set_rgb(cr, rgb);
    cairo_new_path(cr);
    if (up) {
        cairo_translate(cr, x, y + eddy_canvas_text_width(t, px));
        cairo_rotate(cr, -0.5 * M_PI);
        cairo_move_to(cr, 0.0, fe.ascent);
    } else {
        cairo_move_to(cr, x, y + fe.ascent);
    }
    cairo_show_text(cr, t);
    cairo_restore(cr);
    free(t);
}

void eddy_canvas_text(eddy_canvas *c, double x, double y, const char *s, double px, const uint8_t rgb[3])
{
    draw_text(c, x, y, s, px, rgb, 0);
}

void eddy_canvas_text_up(eddy_canvas *c, double x, double y, const char *s, double px, const uint8_t rgb[3])
{
    draw_text(c, x, y, s, px, rgb, 1);
}

/* ---------------------------------------------------------------------------------------------- */
/* Colormap                                                                                         */

/* Nine samples of matplotlib's viridis (van der Walt & Smith 2015) at t = 0, 1/8, ..., 1. Linear
 * interpolation between them stays within a few levels of the real map and keeps its two useful
 * properties: lightness rises monotonically (the value reads as brightness, also in greyscale) and it
 * is readable to colour-blind eyes. */
static const uint8_t VIRIDIS[9][3] = {
    {68, 1, 84},    {72, 40, 120},  {62, 73, 137},  {49, 104, 142}, {38, 130, 142},
    {31, 158, 137}, {53, 183, 121}, {110, 206, 88}, {253, 231, 37},
};

void eddy_canvas_colormap(float t, uint8_t rgb[3])
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

/* Label geometry shared by the bar and its width: the tick and the gap after it. */
static double tick_length(double px)
{
    return fmax(3.0, 0.3 * px);
}

int eddy_canvas_colorbar_width(int bar_width, const char *const *labels, int n, double px)
{
    int w = 0;
    for (int k = 0; k < n; ++k) {
        int tw = eddy_canvas_text_width(labels[k], px);
        if (tw > w) w = tw;
    }
    return bar_width + (w ? (int)ceil(2.0 * tick_length(px)) + w : 0);
}

void eddy_canvas_colorbar(eddy_canvas *c, int x0, int y0, int x1, int y1, const char *const *labels, const double *at,
                          int n, double px, const uint8_t ink[3])
{
    for (int y = y0; y < y1; ++y) {
        uint8_t col[3];
        eddy_canvas_colormap(y1 - y0 > 1 ? (float)(y1 - 1 - y) / (float)(y1 - y0 - 1) : 0.0f, col);
        eddy_canvas_fill_rect(c, x0, y, x1, y + 1, col);
    }
    int th = eddy_canvas_text_height(px);
    double tick = tick_length(px), lw = fmax(1.0, px / 14.0);
    for (int k = 0; k < n; ++k) {
        if (!labels[k]) continue;
        double t = at ? at[k] : n > 1 ? (double)k / (n - 1) : 1.0;
        if (!(t >= 0.0 && t <= 1.0)) continue;
        double y = y1 - 0.5 - t * (y1 - y0 - 1);
        eddy_canvas_fill_rect(c, x1, y - 0.5 * lw, x1 + tick, y + 0.5 * lw, ink); /* square ends: none in the bar */
        double ty = y - 0.5 * th;
        if (ty < y0) ty = y0;
        if (ty + th > y1) ty = y1 - th;
        eddy_canvas_text(c, x1 + 2.0 * tick, ty, labels[k], px, ink);
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
static int encode_png(FILE *f, const eddy_canvas *c, png_bytep row, png_context *ctx)
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
    png_set_IHDR(png, info, (png_uint_32)c->width, (png_uint_32)c->height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    /* cairo keeps RGB24 as native-endian 32-bit words 0x00RRGGBB; PNG wants R, G, B bytes. */
    const unsigned char *data = cairo_image_surface_get_data(c->surface);
    size_t stride = (size_t)cairo_image_surface_get_stride(c->surface);
    for (int y = 0; y < c->height; ++y) {
        const unsigned char *src = data + (size_t)y * stride;
        for (int x = 0; x < c->width; ++x) {
            uint32_t v;
            memcpy(&v, src + 4 * (size_t)x, 4);
            row[3 * x] = (png_byte)(v >> 16);
            row[3 * x + 1] = (png_byte)(v >> 8);
            row[3 * x + 2] = (png_byte)v;
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

int eddy_canvas_write_png(const eddy_canvas *c, const char *path, eddy_error *err)
{
    if (!c->surface || c->width < 1 || c->height < 1)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "cannot write '%s': the image is empty", path);
    cairo_surface_flush(c->surface);
    size_t len = strlen(path);
    png_bytep row = malloc(3 * (size_t)c->width);
    char *tmp = malloc(len + 5);
    if (!row || !tmp) {
        free(row);
        free(tmp);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "cannot write '%s': out of memory", path);
    }
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);

    int rc = EDDY_OK;
    png_context ctx = {{0}};
    eddy_output_remove_fifo(tmp); /* (a FIFO left at the temporary name blocked the open for ever) */
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        int e = errno;
        rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", path, strerror(e));
    } else {
        int bad = encode_png(f, c, row, &ctx);
        int e = 0;
        /* A full disk shows up in ferror or at fclose, not in libpng's calls. */
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
    free(row);
    return rc;
}
