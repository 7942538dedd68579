#include "picture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "canvas.h"
#include "render.h"

#define MIN_SIZE 16
#define MAX_SIZE EDDY_CANVAS_MAX_SIZE

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
    eddy_canvas_colormap(t, rgb);
}

/* The picture as a render preset: the front view (orthographic, looking along -z), coloured by speed,
 * flat discs, and the options as they are. */
static int make_renderer(const eddy_world *w, const eddy_picture_options *o, eddy_renderer **r, eddy_error *err)
{
    if (o->width < MIN_SIZE || o->width > MAX_SIZE || (o->height != 0 && (o->height < MIN_SIZE || o->height > MAX_SIZE)))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "picture: size %d x %d is out of range (width %d..%d, height 0 or %d..%d)", o->width,
                              o->height, MIN_SIZE, MAX_SIZE, MIN_SIZE, MAX_SIZE);
    if (o->has_bounds)
        for (int a = 0; a < 2; ++a)
            if (!isfinite(o->bounds_min[a]) || !isfinite(o->bounds_max[a]) || o->bounds_max[a] < o->bounds_min[a])
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "picture: the framed region [%g, %g] x [%g, %g] is not a finite box",
                                      (double)o->bounds_min[0], (double)o->bounds_max[0], (double)o->bounds_min[1],
                                      (double)o->bounds_max[1]);
    eddy_render_preset p;
    memset(&p, 0, sizeof p);
    p.field = "speed";
    p.camera = "view=-z;projection=orthographic";
    p.width = o->width;
    p.height = o->height;
    p.dark = o->dark;
    p.colorbar = o->colorbar;
    p.show_time = o->show_time;
    p.outline = o->outline;
    p.shaded = 0;
    p.has_bounds = o->has_bounds;
    for (int a = 0; a < 2; ++a) {
        p.bounds_min[a] = o->bounds_min[a];
        p.bounds_max[a] = o->bounds_max[a];
    }
    p.range_min = o->speed_min;
    p.range_max = o->speed_max;
    p.range_from_zero = 1;
    p.simulation_scale = o->simulation_scale;
    return eddy_render_create(&p, w->dimensions, r, err);
}

int eddy_picture_layout_compute(const eddy_world *w, const eddy_picture_options *opt, eddy_picture_layout *L,
                                eddy_error *err)
{
    eddy_picture_options defaults = eddy_picture_default_options();
    const eddy_picture_options *o = opt ? opt : &defaults;
    memset(L, 0, sizeof *L);
    eddy_renderer *r;
    int rc = make_renderer(w, o, &r, err);
    if (rc) return rc;
    eddy_render_info info;
    if (!(rc = eddy_render_settle(r, w, err))) rc = eddy_render_info_get(r, &info, err);
    eddy_render_destroy(r);
    if (rc) return rc;
    L->width = info.width;
    L->height = info.height;
    L->pixels_per_unit = info.pixels_per_unit;
    /* The front view puts the target (the framed region's centre) at the view's centre. */
    L->origin_x = 0.5 * (info.view_x0 + info.view_x1) - info.target[0] * info.pixels_per_unit;
    L->origin_y = 0.5 * (info.view_y0 + info.view_y1) + info.target[1] * info.pixels_per_unit;
    L->plot_x0 = info.view_x0;
    L->plot_y0 = info.view_y0;
    L->plot_x1 = info.view_x1;
    L->plot_y1 = info.view_y1;
    for (int a = 0; a < 2; ++a) {
        L->region_min[a] = (float)info.box_min[a];
        L->region_max[a] = (float)info.box_max[a];
    }
    return EDDY_OK;
}

int eddy_picture_write(const char *path, const eddy_world *w, const eddy_picture_options *opt, eddy_error *err)
{
    eddy_picture_options defaults = eddy_picture_default_options();
    const eddy_picture_options *o = opt ? opt : &defaults;
    eddy_renderer *r;
    int rc = make_renderer(w, o, &r, err);
    if (rc) return eddy_error_prefix(err, "cannot write '%s': ", path);
    rc = eddy_render_write(r, w, path, err);
    eddy_render_destroy(r);
    return rc;
}

int eddy_picture_write_world(const char *path, const eddy_world *w, eddy_error *err)
{
    return eddy_picture_write(path, w, NULL, err);
}
