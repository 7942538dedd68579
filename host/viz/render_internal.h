/*
 * host/viz/render_internal.h — what the renderer's files share: render_setup.c (the request, the
 * scene's "render" section, the --camera syntax, field binding, presets), render.c (camera, colour
 * range, layout, drawing), render_colliders.c (the scene's colliders) and render_movie.c (ffmpeg). Not for use outside host/viz.
 */
#ifndef EDDY_HOST_RENDER_INTERNAL_H
#define EDDY_HOST_RENDER_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "canvas.h"
#include "composite.h"
#include "render.h"

#define MIN_SIZE 16
#define MAX_SIZE EDDY_CANVAS_MAX_SIZE
#define DEFAULT_WIDTH 960
#define DEFAULT_FOV 40.0
#define PREFIX_MAX EDDY_ERROR_MESSAGE_MAX

/* ---------------------------------------------------------------------------------------------- */
/* Small vector helpers (double: camera math on float positions should not lose what float keeps)  */

static inline double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double norm3(const double a[3])
{
    return sqrt(dot3(a, a));
}


/* ---------------------------------------------------------------------------------------------- */
/* Camera description (world units, as written)                                                     */

enum { PROJ_AUTO = 0, PROJ_ORTHOGRAPHIC = 1, PROJ_PERSPECTIVE = 2 };

typedef struct camera {
    int has_eye, has_target, has_up, has_view;
    float eye[3], target[3], up[3], view[3];
    int projection;
    double fov;  /* degrees; 0: default */
    double span; /* world units; 0: fit */
    double zoom; /* 0: 1 */
} camera;


/* ---------------------------------------------------------------------------------------------- */
/* Renderer                                                                                         */

/* RANGE_FROM_ZERO: each frame 0 to its largest value (the picture preset's speed). */
enum { RANGE_RULE = 0, RANGE_FIXED = 1, RANGE_FRAME = 2, RANGE_FROM_ZERO = 3 };

/* What the framing and the colour range read of the owned particles, combined over every process by
 * exact maxima (render.c's prepare), so that each process frames its part as one process frames all. */
typedef struct frame_stats {
    double lo, hi;                /* of the field's finite values; lo > hi: there are none */
    double absmax;                /* the largest |value| among them; 0 when none */
    double box_lo[3], box_hi[3];  /* of the finite positions; lo > hi: none */
    double pad;                   /* half the largest rest spacing of those particles' materials */
} frame_stats;

struct eddy_renderer {
    char *out_dir, *render_dir;
    int dimensions;
    float scene_scale;

    /* settings */
    char field[64];
    char field_prefix[PREFIX_MAX];  /* where the field name came from, for messages */
    camera cam;
    char camera_prefix[PREFIX_MAX];
    int range_mode;
    double range_lo, range_hi;
    int range_pending;              /* RANGE_RULE: no frame has settled it yet (render.c's rule_range) */
    int width, height;              /* height 0: from the framed region */
    int dark, colorbar, show_time, movie;
    double radius_factor, fps;
    int time_decimals;              /* of the time stamp: 3, more where frames are under 1 ms apart */
    int outline, shaded;            /* draw the framed box's edges; 3D spheres with a darker rim */
    int has_bounds;                 /* frame bounds_lo/hi (sim units) instead of the container */
    double bounds_lo[3], bounds_hi[3];
    int wide_bar;                   /* the colour bar keeps room for labels of any width: the range was
                                     * pending at the first frame (of this run or of the one resumed) */
    float scale_override;           /* > 0: the simulation scale for the colour bar's units */

    /* the bound field */
    int bound;
    int field_id, component;        /* component -1: magnitude */
    int kind;                       /* what the value is: see field_kind */
    char unit[16], title[96];

    /* settled by the first frame */
    int settled;
    double box_lo[3], box_hi[3];    /* framed region, sim units */
    double eye[3], target[3], up_given[3];
    double right[3], upv[3], fwd[3];
    int perspective;
    double fov, zoom, focal, ppu;
    int view_x0, view_y0, view_x1, view_y1, image_w, image_h, margin;
    double font_px;

    /* frames */
    int frames, first_frame, last_frame;
    frame_stats stats;              /* of the frame being drawn */
    float *values;
    size_t capacity;
};

/* What a field's numbers mean for units and the default colour range. */
enum { KIND_OTHER = 0, KIND_LENGTH, KIND_VELOCITY, KIND_DENSITY, KIND_PRESSURE };

/* The pixel (x, y) of a sim-units point p, its depth along the view and the pixels one sim unit spans
 * there (render.c, the formulas of render.h); 0 when p is behind a perspective eye or lands nowhere. */
int render_project(const eddy_renderer *r, const double p[3], double *x, double *y, double *depth,
                   double *px_per_unit);

/* The pixels (x0, y0) and (x1, y1) of the segment p..q's part in front of a perspective eye's near
 * plane (render_colliders.c; the whole segment otherwise); 0 when none of it is in front or an end lands
 * nowhere. */
int render_project_segment(const eddy_renderer *r, const double p[3], const double q[3], double *x0, double *y0,
                           double *x1, double *y1);

/* The world's colliders (not the container's walls) as they are now, under the particles, clipped to
 * [x0, x1) x [y0, y1) (render_colliders.c). Needs the settled camera. */
void render_draw_colliders(const eddy_renderer *r, eddy_canvas *im, const eddy_world *w, int x0, int y0, int x1,
                           int y1);

/* Binds r->field to a particle field of `w` (render_setup.c); errors list the available fields. */
int render_bind_field(eddy_renderer *r, const eddy_world *w, eddy_error *err);
/* World units per simulation unit of the colour bar's lengths and velocities: the picture's override,
 * else the world's simulation_scale, else the scene's; 1 where none is a finite positive number. */
float render_world_scale(const eddy_renderer *r, const eddy_world *w);

#endif /* EDDY_HOST_RENDER_INTERNAL_H */
