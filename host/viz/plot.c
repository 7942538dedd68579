#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canvas.h"

#define MIN_SIZE 64
#define MAX_SIZE 8192
#define DEFAULT_WIDTH 960
#define DEFAULT_HEIGHT 600
#define MAX_INTERVALS 8
#define LEGEND_CHARS 28

static const uint8_t BACKGROUND[3] = {255, 255, 255};
static const uint8_t INK[3] = {20, 20, 20};
static const uint8_t FRAME[3] = {70, 70, 70};
static const uint8_t GRID[3] = {228, 228, 228};

eddy_plot_options eddy_plot_default_options(void)
{
    eddy_plot_options o;
    memset(&o, 0, sizeof o);
    return o;
}

void eddy_plot_palette(size_t index, uint8_t rgb[3])
{
    /* Okabe & Ito's yellow is left out: it all but disappears on white. */
    static const uint8_t P[7][3] = {{0, 114, 178},   {213, 94, 0},   {0, 158, 115}, {204, 121, 167},
                                    {230, 159, 0},   {86, 180, 233}, {0, 0, 0}};
    memcpy(rgb, P[index % 7], 3);
}

/* ---------------------------------------------------------------------------------------------- */
/* Ranges and ticks                                                                                 */

typedef struct axis {
    double lo, hi, step;
} axis;

/* Beyond this no axis can be drawn: a range rounded outwards to its step would overflow to infinity
 * (and its ticks never end). Such points are skipped as infinite ones are. */
#define PLOT_LIMIT 1e300

static int drawable(double v)
{
    return fabs(v) <= PLOT_LIMIT; /* NaN and infinities fail */
}

/* Data extent of one coordinate over every series' drawable points; 0 when there are none. */
static int data_extent(const eddy_plot_series *s, size_t n, int want_y, double *lo, double *hi)
{
    int any = 0;
    for (size_t k = 0; k < n; ++k)
        for (size_t i = 0; i < s[k].count; ++i) {
            double x = s[k].x[i], y = s[k].y[i];
            if (!drawable(x) || !drawable(y)) continue; /* a point counts only when it is drawn */
            double v = want_y ? y : x;
            if (!any || v < *lo) *lo = v;
            if (!any || v > *hi) *hi = v;
            any = 1;
        }
    return any;
}

/* Relative slack so that 0.3 / 0.1 = 2.9999999999999996 still counts as a multiple. */
#define TICK_EPS 1e-9

static double nice_step(double lo, double hi, int max_intervals, int fixed)
{
    double span = hi - lo;
    double k = pow(10.0, floor(log10(span / max_intervals)));
    static const double M[] = {1.0, 2.0, 5.0, 10.0, 20.0};
    for (size_t i = 0; i < sizeof M / sizeof M[0]; ++i) {
        double step = M[i] * k;
        double intervals = fixed ? span / step : ceil(hi / step - TICK_EPS) - floor(lo / step + TICK_EPS);
        if (intervals <= max_intervals + TICK_EPS) return step;
    }
    return 50.0 * k;
}

static axis make_axis(double lo, double hi, int have_data, int fixed, double fixed_lo, double fixed_hi,
                      int max_intervals)
{
    axis a;
    if (fixed) {
        a.lo = fixed_lo;
        a.hi = fixed_hi;
        a.step = nice_step(a.lo, a.hi, max_intervals, 1);
        return a;
    }
    if (!have_data) {
        lo = 0.0;
        hi = 1.0;
    } else if (!(hi > lo)) {
        double d = lo == 0.0 ? 1.0 : 0.1 * fabs(lo);
        lo -= d;
        hi += d;
    }
    a.step = nice_step(lo, hi, max_intervals, 0);
    a.lo = floor(lo / a.step + TICK_EPS) * a.step;
    a.hi = ceil(hi / a.step - TICK_EPS) * a.step;
    return a;
}

/* The k-th tick of the axis (k from 0), or 0 past the last one. */
static int tick(const axis *a, int k, double *v)
{
    double first = ceil(a->lo / a->step - TICK_EPS);
    if (!(first + k <= a->hi / a->step + TICK_EPS)) return 0; /* (NaN too: a loop over ticks ends) */
    double t = (first + k) * a->step;
    /* Multiples of the step, not sums of it, and no "-0". */
    if (fabs(t) < 1e-6 * a->step) t = 0.0;
    *v = t;
    return 1;
}

static void tick_label(const axis *a, double v, char *buf, size_t size)
{
    double big = fmax(fabs(a->lo), fabs(a->hi));
    if (big >= 1e5 || a->step < 1e-3) {
        int digits = (int)(floor(log10(big) + TICK_EPS) - floor(log10(a->step) + TICK_EPS));
        snprintf(buf, size, "%.*e", digits < 0 ? 0 : digits > 12 ? 12 : digits, v);
    } else {
        int decimals = (int)-floor(log10(a->step) + TICK_EPS);
        snprintf(buf, size, "%.*f", decimals < 0 ? 0 : decimals, v);
    }
}

static int widest_tick_label(const axis *a, double px)
{
    int w = 0;
    double v;
    char buf[64];
    for (int k = 0; tick(a, k, &v); ++k) {
        tick_label(a, v, buf, sizeof buf);
        int tw = eddy_canvas_text_width(buf, px);
        if (tw > w) w = tw;
    }
    return w;
}

/* Legend text: cut with "..." past LEGEND_CHARS characters (UTF-8 sequences count as one). */
static void legend_text(const char *label, char *buf, size_t size)
{
    size_t n = 0, cut = 0, i = 0;
    for (; label[i]; ++i)
        if (((unsigned char)label[i] & 0xC0) != 0x80) {
            if (n == LEGEND_CHARS - 3) cut = i;
            ++n;
        }
    if (n <= LEGEND_CHARS) {
        snprintf(buf, size, "%s", label);
        return;
    }
    snprintf(buf, size, "%.*s...", (int)cut, label);
}

/* The blank border around everything. */
static int outer_margin(int width)
{
    return width / 60 > 6 ? width / 60 : 6;
}

static int has_legend_entry(const eddy_plot_series *s)
{
    return s->label && s->label[0];
}

/* Sizes that follow the font, so that a plot looks the same at any resolution. */
typedef struct metrics {
    double px;    /* font size */
    int th;       /* height of a line of text */
    int gap;      /* between a label and what it labels */
    int tick;     /* tick length */
    int frame;    /* thickness of the frame around the axes */
    int swatch;   /* length of a legend entry's line */
    double lw;    /* series line width */
    double r;     /* marker radius */
} metrics;

static metrics metrics_for(int width)
{
    metrics m;
    m.px = eddy_canvas_font_px(width);
    m.th = eddy_canvas_text_height(m.px);
    m.gap = (int)lrint(0.4 * m.px);
    m.tick = (int)lrint(0.3 * m.px);
    m.frame = m.px >= 15.0 ? 2 : 1;
    m.swatch = (int)lrint(1.6 * m.px);
    m.lw = fmax(2.0, m.px / 8.0);
    m.r = fmax(3.0, 0.3 * m.px);
    return m;
}

/* ---------------------------------------------------------------------------------------------- */
/* Layout                                                                                           */

static int check(const eddy_plot_options *o, const eddy_plot_series *series, size_t n, int *W, int *H, eddy_error *err)
{
    *W = o->width ? o->width : DEFAULT_WIDTH;
    *H = o->height ? o->height : DEFAULT_HEIGHT;
    if (o->width == 0 && o->height != 0) *W = DEFAULT_WIDTH;
    if (*W < MIN_SIZE || *W > MAX_SIZE || *H < MIN_SIZE || *H > MAX_SIZE)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "plot size %d x %d is out of range (width and height %d..%d, or 0 for %d x %d)", *W,
                              *H, MIN_SIZE, MAX_SIZE, DEFAULT_WIDTH, DEFAULT_HEIGHT);
    if (o->fixed_x && !(drawable(o->x_min) && drawable(o->x_max) && o->x_max > o->x_min))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "plot x range [%g, %g] is empty or not finite (expected finite x_min < x_max)",
                              o->x_min, o->x_max);
    if (o->fixed_y && !(drawable(o->y_min) && drawable(o->y_max) && o->y_max > o->y_min))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "plot y range [%g, %g] is empty or not finite (expected finite y_min < y_max)",
                              o->y_min, o->y_max);
    if (n && !series) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "plot of %zu series without the series", n);
    for (size_t k = 0; k < n; ++k)
        if (series[k].count && (!series[k].x || !series[k].y))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "plot series %zu (%s) has %zu points but no %s values",
                                  k, series[k].label ? series[k].label : "no label", series[k].count,
                                  series[k].x ? "y" : "x");
    return EDDY_OK;
}

int eddy_plot_layout_compute(const eddy_plot_options *opt, const eddy_plot_series *series, size_t n,
                             eddy_plot_layout *L, eddy_error *err)
{
    eddy_plot_options defaults = eddy_plot_default_options();
    const eddy_plot_options *o = opt ? opt : &defaults;
    memset(L, 0, sizeof *L);
    int W, H;
    int rc = check(o, series, n, &W, &H, err);
    if (rc) return rc;

    metrics mt = metrics_for(W);
    int th = mt.th, gap = mt.gap, tick_len = mt.tick, ft = mt.frame;
    int m = outer_margin(W);

    /* Vertical: title, axes, tick labels, x label. Half a tick label stays free above the axes, for
     * the top one. */
    int top = m + (o->title && o->title[0] ? th + gap : 0) + th / 2;
    int bottom = m + ft + tick_len + gap / 2 + th + (o->x_label && o->x_label[0] ? gap / 2 + th : 0);
    int plot_h = H - top - bottom;
    if (plot_h < 8) plot_h = 8;

    double lo = 0.0, hi = 0.0;
    int have = data_extent(series, n, 1, &lo, &hi);
    int max_y = plot_h / (3 * th);
    max_y = max_y < 2 ? 2 : max_y > MAX_INTERVALS ? MAX_INTERVALS : max_y;
    axis ya = make_axis(lo, hi, have, o->fixed_y, o->y_min, o->y_max, max_y);

    /* Horizontal: y label, tick labels, axes, legend. The frame is drawn outside the axes, ft thick,
     * and the ticks outside it. */
    int left = m + (o->y_label && o->y_label[0] ? th + gap : 0) + widest_tick_label(&ya, mt.px) + gap + tick_len + ft;
    int legend_w = 0;
    for (size_t k = 0; k < n; ++k) {
        if (!has_legend_entry(&series[k])) continue;
        char buf[4 * LEGEND_CHARS + 8];
        legend_text(series[k].label, buf, sizeof buf);
        int tw = eddy_canvas_text_width(buf, mt.px);
        if (tw > legend_w) legend_w = tw;
    }
    if (legend_w) legend_w += mt.swatch + gap;
    have = data_extent(series, n, 0, &lo, &hi);
    axis xa = {0, 1, 1};
    int right = 0, plot_w = 0;
    /* More x intervals only while their labels fit side by side. */
    for (int max_x = MAX_INTERVALS; max_x >= 2; --max_x) {
        xa = make_axis(lo, hi, have, o->fixed_x, o->x_min, o->x_max, max_x);
        int lw = widest_tick_label(&xa, mt.px);
        right = m + (legend_w ? 2 * gap + legend_w : lw / 2);
        plot_w = W - left - right;
        double intervals = (xa.hi - xa.lo) / xa.step;
        if (plot_w >= (lw + 2 * gap) * intervals) break;
    }
    if (plot_w < 8) plot_w = 8;

    L->width = W;
    L->height = H;
    L->plot_x0 = left;
    L->plot_y0 = top;
    L->plot_x1 = left + plot_w;
    L->plot_y1 = top + plot_h;
    L->x_min = xa.lo;
    L->x_max = xa.hi;
    L->x_step = xa.step;
    L->y_min = ya.lo;
    L->y_max = ya.hi;
    L->y_step = ya.step;
    L->legend_x0 = L->plot_x1 + 2 * gap;
    L->legend_y0 = top;
    L->legend_row = th + gap / 2;
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Drawing                                                                                          */

static double map_x(const eddy_plot_layout *L, double x)
{
    return L->plot_x0 + (x - L->x_min) / (L->x_max - L->x_min) * (L->plot_x1 - L->plot_x0);
}

static double map_y(const eddy_plot_layout *L, double y)
{
    return L->plot_y1 - (y - L->y_min) / (L->y_max - L->y_min) * (L->plot_y1 - L->plot_y0);
}

static void draw_axes(eddy_canvas *im, const eddy_plot_options *o, const eddy_plot_layout *L, const metrics *mt)
{
    int th = mt->th, gap = mt->gap, tick_len = mt->tick, ft = mt->frame;
    axis xa = {L->x_min, L->x_max, L->x_step}, ya = {L->y_min, L->y_max, L->y_step};
    double v;
    char buf[64];
    int widest = 0;
    /* Grid lines and ticks one whole pixel wide on whole pixels: crisp, never a two-pixel blur. */
    for (int k = 0; tick(&ya, k, &v); ++k) {
        int y = (int)floor(map_y(L, v));
        if (y >= L->plot_y1) y = L->plot_y1 - 1; /* the bottom edge's tick sits on the last row */
        eddy_canvas_fill_rect(im, L->plot_x0, y, L->plot_x1, y + 1, GRID);
        eddy_canvas_fill_rect(im, L->plot_x0 - ft - tick_len, y, L->plot_x0 - ft, y + 1, FRAME);
        tick_label(&ya, v, buf, sizeof buf);
        int tw = eddy_canvas_text_width(buf, mt->px);
        if (tw > widest) widest = tw;
        eddy_canvas_text(im, L->plot_x0 - ft - tick_len - gap - tw, y + 0.5 - 0.5 * th, buf, mt->px, INK);
    }
    for (int k = 0; tick(&xa, k, &v); ++k) {
        int x = (int)floor(map_x(L, v));
        if (x >= L->plot_x1) x = L->plot_x1 - 1;
        eddy_canvas_fill_rect(im, x, L->plot_y0, x + 1, L->plot_y1, GRID);
        eddy_canvas_fill_rect(im, x, L->plot_y1 + ft, x + 1, L->plot_y1 + ft + tick_len, FRAME);
        tick_label(&xa, v, buf, sizeof buf);
        eddy_canvas_text(im, x + 0.5 - 0.5 * eddy_canvas_text_width(buf, mt->px), L->plot_y1 + ft + tick_len + gap / 2,
                         buf, mt->px, INK);
    }
    /* The frame outside the axes, so that it never covers a point on their edge. */
    eddy_canvas_fill_rect(im, L->plot_x0 - ft, L->plot_y0 - ft, L->plot_x1 + ft, L->plot_y0, FRAME);
    eddy_canvas_fill_rect(im, L->plot_x0 - ft, L->plot_y1, L->plot_x1 + ft, L->plot_y1 + ft, FRAME);
    eddy_canvas_fill_rect(im, L->plot_x0 - ft, L->plot_y0, L->plot_x0, L->plot_y1, FRAME);
    eddy_canvas_fill_rect(im, L->plot_x1, L->plot_y0, L->plot_x1 + ft, L->plot_y1, FRAME);

    int cx = (L->plot_x0 + L->plot_x1) / 2;
    if (o->title && o->title[0]) {
        /* Centred over the axes, but kept inside the image when it is wider than they are. */
        int tw = eddy_canvas_text_width(o->title, mt->px), m = outer_margin(L->width);
        int x = cx - tw / 2;
        if (x + tw > L->width - m) x = L->width - m - tw;
        if (x < m) x = m;
        eddy_canvas_text(im, x, m, o->title, mt->px, INK);
    }
    if (o->x_label && o->x_label[0])
        eddy_canvas_text(im, cx - eddy_canvas_text_width(o->x_label, mt->px) / 2,
                         L->plot_y1 + ft + tick_len + gap + th, o->x_label, mt->px, INK);
    if (o->y_label && o->y_label[0]) {
        int tw = eddy_canvas_text_width(o->y_label, mt->px);
        int x = L->plot_x0 - ft - tick_len - 2 * gap - widest - th;
        eddy_canvas_text_up(im, x < 0 ? 0 : x, (L->plot_y0 + L->plot_y1) / 2 - tw / 2, o->y_label, mt->px, INK);
    }
}

/* One polyline per run of finite points; a run of a single point is a dot, so that it does not vanish. */
static void draw_line_series(eddy_canvas *im, const eddy_plot_series *s, const eddy_plot_layout *L, double *xy,
                             double lw, const uint8_t c[3])
{
    eddy_canvas_clip(im, L->plot_x0, L->plot_y0, L->plot_x1, L->plot_y1);
    size_t run = 0;
    for (size_t i = 0; i <= s->count; ++i) {
        int ok = i < s->count && drawable(s->x[i]) && drawable(s->y[i]);
        if (ok) {
            xy[2 * run] = map_x(L, s->x[i]);
            xy[2 * run + 1] = map_y(L, s->y[i]);
            ++run;
            continue;
        }
        if (run == 1)
            eddy_canvas_disc(im, xy[0], xy[1], lw, c);
        else if (run > 1)
            eddy_canvas_polyline(im, xy, run, lw, c);
        run = 0;
    }
    eddy_canvas_unclip(im);
}

static void draw_marker_series(eddy_canvas *im, const eddy_plot_series *s, const eddy_plot_layout *L, double r,
                               const uint8_t c[3])
{
    for (size_t i = 0; i < s->count; ++i) {
        double x = s->x[i], y = s->y[i];
        if (!drawable(x) || !drawable(y) || x < L->x_min || x > L->x_max || y < L->y_min || y > L->y_max) continue;
        eddy_canvas_disc(im, map_x(L, x), map_y(L, y), r, c);
    }
}

static void draw_legend(eddy_canvas *im, const eddy_plot_series *series, size_t n, const eddy_plot_layout *L,
                        const metrics *mt)
{
    int row = 0;
    for (size_t k = 0; k < n; ++k) {
        if (!has_legend_entry(&series[k])) continue;
        uint8_t c[3];
        eddy_plot_palette(k, c);
        int y = L->legend_y0 + row * L->legend_row;
        double cy = y + 0.5 * mt->th;
        if (series[k].markers)
            eddy_canvas_disc(im, L->legend_x0 + 0.5 * mt->swatch, cy, mt->r, c);
        else
            eddy_canvas_line(im, L->legend_x0 + mt->lw, cy, L->legend_x0 + mt->swatch - mt->lw, cy, mt->lw, c);
        char buf[4 * LEGEND_CHARS + 8];
        legend_text(series[k].label, buf, sizeof buf);
        eddy_canvas_text(im, L->legend_x0 + mt->swatch + mt->gap, y, buf, mt->px, INK);
        ++row;
    }
}

int eddy_plot_write_png(const char *path, const eddy_plot_options *opt, const eddy_plot_series *series, size_t n,
                        eddy_error *err)
{
    eddy_plot_options defaults = eddy_plot_default_options();
    const eddy_plot_options *o = opt ? opt : &defaults;
    eddy_plot_layout L;
    int rc = eddy_plot_layout_compute(o, series, n, &L, err);
    if (rc) return eddy_error_prefix(err, "cannot write '%s': ", path);
    size_t longest = 0;
    for (size_t k = 0; k < n; ++k)
        if (series[k].count > longest) longest = series[k].count;
    double *xy = malloc(2 * sizeof *xy * (longest ? longest : 1));
    if (!xy) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "cannot write '%s': out of memory", path);
    eddy_canvas im;
    if ((rc = eddy_canvas_init(&im, L.width, L.height, BACKGROUND, err))) {
        free(xy);
        return eddy_error_prefix(err, "cannot write '%s': ", path);
    }
    metrics mt = metrics_for(L.width);
    draw_axes(&im, o, &L, &mt);
    /* Lines under markers: measured points stay visible on top of the curves they are compared with. */
    for (int pass = 0; pass < 2; ++pass)
        for (size_t k = 0; k < n; ++k) {
            if (!series[k].markers != !pass) continue;
            uint8_t c[3];
            eddy_plot_palette(k, c);
            if (pass == 0)
                draw_line_series(&im, &series[k], &L, xy, mt.lw, c);
            else
                draw_marker_series(&im, &series[k], &L, mt.r, c);
        }
    draw_legend(&im, series, n, &L, &mt);
    rc = eddy_canvas_write_png(&im, path, err);
    eddy_canvas_free(&im);
    free(xy);
    return rc;
}
