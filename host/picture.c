#include "picture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raster.h"

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

void eddy_picture_colormap(float t, uint8_t rgb[3])
{
    eddy_raster_colormap(t, rgb);
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
    int tw = eddy_raster_text_width(a, fs) > eddy_raster_text_width(b, fs) ? eddy_raster_text_width(a, fs) : eddy_raster_text_width(b, fs);
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
    int fs = eddy_raster_font_scale(W);
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
    uint32_t index;
    uint64_t id;
} depth_key;

static int by_depth(const void *a, const void *b)
{
    const depth_key *p = a, *q = b;
    if (p->z != q->z) return p->z < q->z ? -1 : 1;
    /* Ties (all of 2D) go by id, so the picture does not depend on the grid's storage order. */
    return p->id < q->id ? -1 : p->id > q->id;
}

static void render(eddy_raster *im, const eddy_world *w, const eddy_picture_options *o, const eddy_picture_layout *L,
                   depth_key *keys)
{
    const uint8_t ink[3] = {o->dark ? 230 : 20, o->dark ? 230 : 20, o->dark ? 230 : 20};
    const uint8_t frame[3] = {o->dark ? 140 : 110, o->dark ? 140 : 110, o->dark ? 140 : 110};
    int fs = eddy_raster_font_scale(im->width);
    double s = L->pixels_per_unit;

    if (o->outline && (o->has_bounds || w->boundaries.has_container)) {
        int x0 = (int)lrint(L->origin_x + L->region_min[0] * s), x1 = (int)lrint(L->origin_x + L->region_max[0] * s);
        int y0 = (int)lrint(L->origin_y - L->region_max[1] * s), y1 = (int)lrint(L->origin_y - L->region_min[1] * s);
        /* Line width fs, drawn outside the box, so it never covers fluid at the wall. */
        eddy_raster_frame_rect(im, x0, y0, x1, y1, fs, frame);
    }

    const eddy_particles *p = &w->particles;
    size_t n = 0;
    for (size_t i = 0; i < p->count; ++i) {
        if (eddy_particle_is_halo(p, i)) continue; /* another process's particle: drawn there */
        keys[n].z = isnan(p->z[i]) ? 0.0f : p->z[i];
        keys[n].id = p->id[i];
        keys[n].index = (uint32_t)i;
        ++n;
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
        eddy_raster_disc(im, L->origin_x + p->x[i] * s, L->origin_y - p->y[i] * s, r, c);
    }

    if (o->show_time) {
        char t[64];
        snprintf(t, sizeof t, "t = %.3f s", w->time);
        eddy_raster_text(im, L->plot_x0, (L->plot_y0 - 7 * fs) / 2, t, fs, ink);
    }
    int margin = L->plot_x0;
    if (o->colorbar && L->width - L->plot_x1 > margin + 8 * fs) {
        int bx0 = L->plot_x1 + margin;
        char a[64], b[64];
        speed_label(a, sizeof a, hi);
        speed_label(b, sizeof b, lo);
        eddy_raster_colorbar(im, bx0, L->plot_y0, bx0 + 8 * fs, L->plot_y1, a, b, fs, ink);
    }
}

int eddy_picture_write(const char *path, const eddy_world *w, const eddy_picture_options *opt, eddy_error *err)
{
    eddy_picture_options defaults = eddy_picture_default_options();
    const eddy_picture_options *o = opt ? opt : &defaults;
    eddy_picture_layout L;
    int rc = eddy_picture_layout_compute(w, o, &L, err);
    if (rc) return eddy_error_prefix(err, "cannot write '%s': ", path);

    size_t n = w->particles.count;
    if (n > UINT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "cannot write '%s': more than %u particles", path,
                              (unsigned)UINT32_MAX);
    const uint8_t bg[3] = {o->dark ? 20 : 255, o->dark ? 22 : 255, o->dark ? 28 : 255};
    eddy_raster im;
    if ((rc = eddy_raster_init(&im, L.width, L.height, bg, err))) return eddy_error_prefix(err, "cannot write '%s': ", path);
    depth_key *keys = malloc(sizeof *keys * (n ? n : 1));
    if (!keys) {
        eddy_raster_free(&im);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "cannot write '%s': out of memory", path);
    }
    render(&im, w, o, &L, keys);
    free(keys);
    rc = eddy_raster_write_png(&im, path, err);
    eddy_raster_free(&im);
    return rc;
}

int eddy_picture_write_world(const char *path, const eddy_world *w, eddy_error *err)
{
    return eddy_picture_write(path, w, NULL, err);
}
