/*
 * host/viz/picture.h — a PNG of the particles for people who would rather look than read: what
 * `eddy run` writes as picture.png. A preset of the one renderer (render.h), drawn with cairo.
 *
 * Orthographic projection onto the x-y plane: x to the right, y up; in 3D the view looks along -z, so
 * particles with larger z are nearer and drawn over the others. Each particle is an anti-aliased disc
 * of radius max(1.5 px, half its material's rest spacing), coloured by speed with a viridis-like
 * colormap (slow: dark purple, fast: yellow). Optional: the container outline, a colour bar with its
 * speed labels and the field's name and unit, and the time stamp "t = 1.234 s" (DejaVu Sans).
 *
 * Units: positions and bounds are simulation units, as stored in the world; the speed range and the
 * colour bar labels are world units per second (speed divided by the simulation scale).
 *
 * Threads: pure; safe to call from any one thread at a time per world.
 */
#ifndef EDDY_HOST_PICTURE_H
#define EDDY_HOST_PICTURE_H

#include <eddy/eddy.h>

typedef struct eddy_picture_options {
    int width;               /* pixels, 16..16384; default 960 */
    int height;              /* pixels, 16..16384; 0: from the aspect of the framed region (default) */
    int dark;                /* dark background and light text instead of white and black */
    int outline;             /* draw the framed box (the container unless has_bounds); default on */
    int colorbar;            /* colour bar with min/max labels at the right; default on */
    int show_time;           /* "t = <world->time> s" at the top left; default on */
    int has_bounds;          /* frame bounds_min/max instead of the container (or particle bounds) */
    float bounds_min[3], bounds_max[3]; /* simulation units; only x and y are used */
    float speed_min, speed_max;  /* colour range, world units/s; speed_max <= speed_min (default):
                                  * 0 to the current largest speed. Fix it to compare frames. */
    float simulation_scale;  /* sim length / world length for the speed labels; <= 0: the world's */
} eddy_picture_options;

/* Defaults as documented above. */
eddy_picture_options eddy_picture_default_options(void);

/*
 * Where things land in the image. Pixel (i, j) covers [i, i + 1) x [j, j + 1), j counted from the top;
 * simulation point (x, y) maps to (origin_x + x * pixels_per_unit, origin_y - y * pixels_per_unit).
 */
typedef struct eddy_picture_layout {
    int width, height;
    double pixels_per_unit;
    double origin_x, origin_y;
    int plot_x0, plot_y0, plot_x1, plot_y1; /* the rectangle the framed region is centred in */
    float region_min[2], region_max[2];     /* the framed region, simulation units */
} eddy_picture_layout;

/*
 * The layout eddy_picture_write() will use (the renderer's, render.h). The framed region is, in this
 * order: opt->bounds when has_bounds, the world's container when it has one, or the particles' bounding
 * box widened by half a rest spacing (a unit square with no particles). Degenerate extents are widened
 * so that the scale stays finite. EDDY_ERR_INVALID_ARGUMENT for sizes out of range or non-finite bounds.
 */
int eddy_picture_layout_compute(const eddy_world *w, const eddy_picture_options *opt,
                                eddy_picture_layout *layout, eddy_error *err);

/*
 * Renders `w` and writes an 8-bit RGB PNG to `path` (via "<path>.tmp" and rename, so a reader never
 * sees half a picture). `opt` may be NULL (defaults). EDDY_ERR_IO names the file and says why (libpng's
 * message included); EDDY_ERR_OUT_OF_MEMORY when the image buffer cannot be allocated.
 */
int eddy_picture_write(const char *path, const eddy_world *w, const eddy_picture_options *opt,
                       eddy_error *err);

/* eddy_picture_write() with the default options: what `eddy run --picture` wants. */
int eddy_picture_write_world(const char *path, const eddy_world *w, eddy_error *err);

/* The colormap: t in [0, 1] (clamped; NaN counts as 0) to 8-bit sRGB. Exposed for tests and legends. */
void eddy_picture_colormap(float t, uint8_t rgb[3]);

#endif /* EDDY_HOST_PICTURE_H */
