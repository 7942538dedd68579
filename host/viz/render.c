/*
 * host/viz/render.c — the one particle renderer: the camera, the colour range, the layout (settled by
 * the first frame), and the drawing of a frame with canvas.c. render_setup.c makes renderers,
 * render_colliders.c draws the scene's colliders, render_movie.c joins the frames. About 750 lines: the
 * camera and the layout it settles are used by every drawing function here, and splitting them would
 * only move that state into a header.
 */
#include "render_internal.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The 3D default: a three-quarter view from the front, above and a little to the left, which shows
 * the depth of a tank as well as its length. */
static const float DEFAULT_VIEW_3D[3] = {0.35f, -0.45f, -1.0f};


float render_world_scale(const eddy_renderer *r, const eddy_world *w)
{
    if (r->scale_override > 0.0f && isfinite(r->scale_override)) return r->scale_override;
    float s = w->simulation_scale > 0.0f && isfinite(w->simulation_scale) ? w->simulation_scale : r->scene_scale;
    return s > 0.0f && isfinite(s) ? s : 1.0f;
}

/* The field's value of every particle, in the units the colour bar shows (lengths and velocities in
 * world units; everything else as stored). */
static void field_values(const eddy_renderer *r, const eddy_world *w, float *out)
{
    const eddy_particles *p = &w->particles;
    float div = r->kind == KIND_LENGTH || r->kind == KIND_VELOCITY ? render_world_scale(r, w) : 1.0f;
    int n = eddy_particles_field_components(p, r->field_id);
    if (r->component >= 0) {
        const float *a = eddy_particles_field(p, r->field_id, r->component);
        for (size_t i = 0; i < p->count; ++i) out[i] = a[i] / div;
        return;
    }
    for (size_t i = 0; i < p->count; ++i) out[i] = 0.0f;
    for (int c = 0; c < n; ++c) {
        const float *a = eddy_particles_field(p, r->field_id, c);
        for (size_t i = 0; i < p->count; ++i) out[i] += a[i] * a[i];
    }
    for (size_t i = 0; i < p->count; ++i) out[i] = sqrtf(out[i]) / div;
}

static float material_spacing(const eddy_world *w, uint32_t m)
{
    return m < w->material_count && w->materials[m].particle_dist > 0.0f ? w->materials[m].particle_dist : 0.0f;
}

/* The framed region (sim units): the container, else the particles' bounding box widened by half the
 * largest rest spacing (over every process: r->stats), else a unit box; zero extents are widened so
 * that a scale exists. */
static void framed_box(eddy_renderer *r, const eddy_world *w)
{
    const frame_stats *st = &r->stats;
    int any = 0;
    if (r->has_bounds) {
        for (int a = 0; a < 3; ++a) {
            r->box_lo[a] = r->bounds_lo[a];
            r->box_hi[a] = r->bounds_hi[a];
        }
        any = 1;
    } else if (w->boundaries.has_container) {
        for (int a = 0; a < 3; ++a) {
            r->box_lo[a] = w->boundaries.container_min[a];
            r->box_hi[a] = w->boundaries.container_max[a];
        }
        any = 1;
    } else if (st->box_lo[0] <= st->box_hi[0]) {
        any = 1;
        for (int a = 0; a < 3; ++a) {
            r->box_lo[a] = st->box_lo[a];
            r->box_hi[a] = st->box_hi[a];
            if (a == 2 && r->dimensions == 2) continue;
            r->box_lo[a] -= st->pad;
            r->box_hi[a] += st->pad;
        }
    }
    if (!any)
        for (int a = 0; a < 3; ++a) {
            r->box_lo[a] = 0.0;
            r->box_hi[a] = a < r->dimensions ? 1.0 : 0.0;
        }
    if (r->dimensions == 2) r->box_lo[2] = r->box_hi[2] = 0.0;
    double big = 0.0;
    for (int a = 0; a < 3; ++a) big = fmax(big, r->box_hi[a] - r->box_lo[a]);
    if (big <= 0.0) big = fmax(1e-6, fabs(r->box_lo[0]) * 1e-3);
    for (int a = 0; a < r->dimensions; ++a)
        if (r->box_hi[a] - r->box_lo[a] <= 0.0) {
            r->box_lo[a] -= 0.5 * big;
            r->box_hi[a] += 0.5 * big;
        }
}

/* Extents of the framed box's corners around the target along right and up, and the nearest and
 * farthest along forward. */
static void box_extents(const eddy_renderer *r, const double origin[3], double *A, double *B, double *near,
                        double *far, double *limit_for_fit, double tv, double aspect)
{
    *A = *B = 0.0;
    *near = DBL_MAX;
    *far = -DBL_MAX;
    double need = -DBL_MAX;
    for (int k = 0; k < 8; ++k) {
        double c[3] = {(k & 1) ? r->box_hi[0] : r->box_lo[0], (k & 2) ? r->box_hi[1] : r->box_lo[1],
                       (k & 4) ? r->box_hi[2] : r->box_lo[2]};
        double rel[3] = {c[0] - origin[0], c[1] - origin[1], c[2] - origin[2]};
        double a = fabs(dot3(rel, r->right)), b = fabs(dot3(rel, r->upv)), f = dot3(rel, r->fwd);
        *A = fmax(*A, a);
        *B = fmax(*B, b);
        *near = fmin(*near, f);
        *far = fmax(*far, f);
        /* Perspective: the eye distance D (behind the target) at which this corner just fits. */
        if (tv > 0.0) need = fmax(need, fmax(a / (tv * aspect), b / tv) - f);
    }
    if (limit_for_fit) *limit_for_fit = need;
}

static int camera_fail(const eddy_renderer *r, eddy_error *err, const char *msg)
{
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s", r->camera_prefix, msg);
}

/* Settles the camera's basis and the target; the scale waits for the viewport. */
static int resolve_camera(eddy_renderer *r, float scale, eddy_error *err)
{
    const camera *c = &r->cam;
    double centre[3], eye[3], target[3], d[3];
    for (int a = 0; a < 3; ++a) {
        centre[a] = 0.5 * (r->box_lo[a] + r->box_hi[a]);
        eye[a] = (double)c->eye[a] * scale;
        target[a] = c->has_target ? (double)c->target[a] * scale : centre[a];
    }
    if (c->has_eye && !c->has_view) {
        for (int a = 0; a < 3; ++a) d[a] = target[a] - eye[a];
        if (norm3(d) == 0.0) return camera_fail(r, err, "the eye is at the target (the centre of the framed region)");
    } else if (c->has_view) {
        for (int a = 0; a < 3; ++a) d[a] = c->view[a];
        if (c->has_eye && !c->has_target) {
            /* The target only marks the ray through the image centre: the eye's own. */
            for (int a = 0; a < 3; ++a) target[a] = eye[a] + d[a];
        }
    } else {
        for (int a = 0; a < 3; ++a) d[a] = r->dimensions == 2 ? (a == 2 ? -1.0 : 0.0) : DEFAULT_VIEW_3D[a];
    }
    double n = norm3(d);
    for (int a = 0; a < 3; ++a) d[a] /= n;

    double up[3] = {0.0, 1.0, 0.0};
    if (c->has_up) {
        for (int a = 0; a < 3; ++a) up[a] = c->up[a];
    } else if (fabs(d[1]) > 0.99) {
        /* Looking straight down (or up) at a tank: +x stays to the right, -z (the back) at the top. */
        up[0] = 0.0;
        up[1] = 0.0;
        up[2] = d[1] < 0.0 ? -1.0 : 1.0;
    }
    double x[3];
    cross3(d, up, x);
    if (norm3(x) <= 1e-6 * norm3(up)) {
        char msg[160];
        snprintf(msg, sizeof msg, "up (%g, %g, %g) is parallel to the view direction", up[0], up[1], up[2]);
        return camera_fail(r, err, msg);
    }
    double xn = norm3(x);
    for (int a = 0; a < 3; ++a) {
        r->right[a] = x[a] / xn;
        r->fwd[a] = d[a];
        r->target[a] = target[a];
        r->eye[a] = eye[a];
        r->up_given[a] = up[a];
    }
    cross3(r->right, r->fwd, r->upv);

    if (c->projection)
        r->perspective = c->projection == PROJ_PERSPECTIVE;
    else if (c->has_eye)
        r->perspective = 1;
    else if (c->has_view)
        r->perspective = 0;
    else
        r->perspective = r->dimensions == 3;
    r->fov = c->fov > 0.0 ? c->fov : DEFAULT_FOV;
    r->zoom = c->zoom > 0.0 ? c->zoom : 1.0;
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Colour range                                                                                     */

static void widen(double *lo, double *hi)
{
    if (*hi > *lo) return;
    double d = *lo == 0.0 ? 1.0 : 0.1 * fabs(*lo);
    *lo -= d;
    *hi += d;
}

/* The range of the field's finite values over every process (r->stats): one bad particle should not
 * blank every frame; none at all gives [0, 1]. */
static void finite_range(const eddy_renderer *r, double *lo, double *hi)
{
    if (r->stats.lo <= r->stats.hi) {
        *lo = r->stats.lo;
        *hi = r->stats.hi;
    } else {
        *lo = 0.0;
        *hi = 1.0;
    }
    widen(lo, hi);
}

/* |g| and the framed box's extent along g, simulation units (0, 0 without gravity). */
static void gravity_height(const eddy_renderer *r, const eddy_world *w, double *gn_out, double *height)
{
    double g[3] = {w->gravity[0], w->gravity[1], w->gravity[2]};
    double gn = norm3(g);
    *height = 0.0;
    if (gn > 0.0) {
        double lo_g = DBL_MAX, hi_g = -DBL_MAX;
        for (int k = 0; k < 8; ++k) {
            double c[3] = {(k & 1) ? r->box_hi[0] : r->box_lo[0], (k & 2) ? r->box_hi[1] : r->box_lo[1],
                           (k & 4) ? r->box_hi[2] : r->box_lo[2]};
            double f = dot3(c, g) / gn;
            lo_g = fmin(lo_g, f);
            hi_g = fmax(hi_g, f);
        }
        *height = hi_g - lo_g;
    }
    *gn_out = gn;
}

/*
 * The documented default of a range the scene and the command line leave open: free-fall speed over the
 * framed height for velocities, the rest density +-10% for density, the box for position components,
 * from 0 for pressure and for a vector's magnitude, else the frame's own range. Returns 1 when the range
 * is settled; 0 when this frame gives it nothing to go on (the field is constant here, or a velocity or
 * pressure at rest without gravity): *lo, *hi are then a provisional range, 0..1 where the rule starts at
 * 0, else the value +-10% (-1..1 for 0), and the caller asks again at the next frame. Fixing -1..1 at a
 * frame where the field is still 0 (vorticity before the flow starts) saturated every later frame.
 */
static int rule_range(eddy_renderer *r, const eddy_world *w, double *lo, double *hi)
{
    float scale = render_world_scale(r, w);
    const int any = r->stats.lo <= r->stats.hi;
    if (r->kind == KIND_PRESSURE && w->material_count) {
        /* A fluid at rest in the first frame carries little pressure; the flow that follows reaches
         * about the hydrostatic pressure of the framed height, rho0 g H (simulation units, as stored). */
        double gn, height, rho0 = 0.0;
        gravity_height(r, w, &gn, &height);
        for (size_t m = 0; m < w->material_count; ++m) rho0 = fmax(rho0, w->materials[m].rest_density);
        /* The frame's own extremes, not finite_range's: that one widens an empty range first, and a
         * fluid at rest with zero pressure then started the bar at -1 instead of 0. */
        *lo = fmin(any ? r->stats.lo : 0.0, 0.0);
        *hi = fmax(any ? r->stats.hi : 0.0, rho0 * gn * height);
        /* Without gravity and at rest: a unit range from the start, not one settled later on the
         * round-off of a fluid settling (6e-5 fixed a piston's bar, every later frame at the top). */
        if (!(*hi > *lo)) *hi = *lo + 1.0;
        return 1;
    }
    if (r->kind == KIND_VELOCITY) {
        double gn, height;
        gravity_height(r, w, &gn, &height);
        /* World units: g / scale and height / scale. */
        double s = sqrt(2.0 * (gn / scale) * (height / scale));
        s = fmax(s, r->stats.absmax);
        if (!(s > 0.0)) s = 1.0; /* (as pressure's: a unit range at rest without gravity, not settled later) */
        *lo = r->component < 0 ? 0.0 : -s;
        *hi = s;
        return 1;
    }
    if (r->kind == KIND_LENGTH && r->component >= 0) {
        *lo = r->box_lo[r->component] / scale;
        *hi = r->box_hi[r->component] / scale;
        widen(lo, hi);
        return 1;
    }
    if (r->kind == KIND_DENSITY && w->material_count) {
        double a = DBL_MAX, b = 0.0;
        for (size_t m = 0; m < w->material_count; ++m) {
            a = fmin(a, w->materials[m].rest_density);
            b = fmax(b, w->materials[m].rest_density);
        }
        *lo = 0.9 * a;
        *hi = 1.1 * b;
        return 1;
    }
    if (r->component < 0) {
        /* A vector drawn as its magnitude: below 0 the bar would hold colours no particle can take. */
        *lo = 0.0;
        *hi = any ? r->stats.hi : 0.0;
        if (*hi > 0.0) return 1;
        *hi = 1.0;
        return 0;
    }
    const int settled = any && r->stats.hi > r->stats.lo;
    finite_range(r, lo, hi);
    return settled;
}

/* ---------------------------------------------------------------------------------------------- */
/* Layout                                                                                           */

static void range_label(double v, char *buf, size_t size)
{
    snprintf(buf, size, "%.3g", v);
}

/* The colour bar's labels: the range's ends, and between them the multiples of a "nice" step (1, 2 or
 * 5 x 10^k, at most `intervals` of them over the range) that keep a label's height from both ends. */
#define MAX_BAR_LABELS 16
typedef struct bar_labels {
    char text[MAX_BAR_LABELS][32];
    const char *ptr[MAX_BAR_LABELS];
    double at[MAX_BAR_LABELS]; /* place along the bar, 0 (bottom, lo) to 1 (top, hi) */
    int n;
} bar_labels;

static void add_label(bar_labels *b, double v, double t)
{
    range_label(v, b->text[b->n], sizeof b->text[b->n]);
    b->ptr[b->n] = b->text[b->n];
    b->at[b->n] = t;
    b->n++;
}

/* `gap`: the least distance of an inner label from either end, as a fraction of the bar. */
static void make_bar_labels(double lo, double hi, int intervals, double gap, bar_labels *b)
{
    b->n = 0;
    add_label(b, lo, 0.0);
    double span = hi - lo;
    if (intervals > 1 && span > 0.0 && isfinite(span)) {
        double k = pow(10.0, floor(log10(span / intervals)));
        static const double M[] = {1.0, 2.0, 5.0, 10.0};
        double step = 10.0 * k;
        for (size_t i = 0; i < sizeof M / sizeof M[0]; ++i)
            if (span / (M[i] * k) <= intervals + 1e-9) {
                step = M[i] * k;
                break;
            }
        double first = ceil(lo / step);
        for (int j = 0; b->n < MAX_BAR_LABELS - 1 && j <= intervals + 1; ++j) {
            double v = (first + j) * step;
            if (fabs(v) < 1e-9 * step) v = 0.0; /* no "-0" */
            double t = (v - lo) / span;
            if (t >= 1.0 - gap) break;
            if (t > gap) add_label(b, v, t);
        }
    }
    add_label(b, hi, 1.0);
}

/* Steps of the bar as many as its height holds apart from each other (1: the ends only). */
static int bar_intervals(int bar_height, int text_height)
{
    return bar_height >= 8 * text_height ? 5 : bar_height >= 4 * text_height ? 3 : 1;
}

static int bar_thickness(double px)
{
    return (int)lrint(px);
}

/* The colour bar's room right of the view: the bar and its labels, as wide as any label of the fixed
 * range can be (any label at all for ranges that change per frame). */
static int colorbar_width(const eddy_renderer *r, double px)
{
    if (!r->colorbar) return 0;
    bar_labels b;
    if (r->range_mode == RANGE_FRAME || r->range_mode == RANGE_FROM_ZERO || r->range_pending || r->wide_bar) {
        /* Labels change per frame, or once the range settles: room for the widest "%.3g" ("-1.23e+100"). */
        b.n = 1;
        b.ptr[0] = "-1.23e-100";
    } else {
        make_bar_labels(r->range_lo, r->range_hi, 5, 0.0, &b);
    }
    return eddy_canvas_colorbar_width(bar_thickness(px), b.ptr, b.n, px);
}

static int settle(eddy_renderer *r, const eddy_world *w, eddy_error *err)
{
    float scale = render_world_scale(r, w);
    framed_box(r, w);
    int rc = resolve_camera(r, scale, err);
    if (rc) return rc;
    if (r->range_mode == RANGE_RULE) r->range_pending = !rule_range(r, w, &r->range_lo, &r->range_hi);
    r->wide_bar |= r->range_pending;

    int W = r->width;
    double px = eddy_canvas_font_px(W);
    int margin = W / 40 < 8 ? 8 : W / 40;
    int top = r->show_time || r->colorbar ? margin + eddy_canvas_text_height(px) : margin;
    int cbw = colorbar_width(r, px);
    int view_w = W - 2 * margin - (cbw ? margin + cbw : 0);
    if (view_w < 4) {
        /* A narrow image: the scene gets the space, the decorations would not fit anyway. */
        cbw = 0;
        margin = top = 1;
        view_w = W - 2;
        r->colorbar = r->show_time = 0;
    }
    double A, B, fmn, fmx;
    box_extents(r, r->target, &A, &B, &fmn, &fmx, NULL, 0.0, 1.0);
    double aspect = B > 0.0 ? A / B : 4.0 / 3.0;
    if (A <= 0.0 && B <= 0.0) aspect = 1.0;
    aspect = fmin(4.0, fmax(0.25, aspect));
    int H = r->height, view_h, even = 0;
    if (H == 0) {
        view_h = (int)lrint(view_w / aspect);
        if (view_h < 1) view_h = 1;
        if (view_h > MAX_SIZE - top - margin) view_h = MAX_SIZE - top - margin;
        H = top + view_h + margin;
        if (H < MIN_SIZE) H = MIN_SIZE;
        /* Even sizes: H.264 in yuv420p wants them. The pixel goes to the bottom margin, so that the
         * view keeps the framed region's aspect (MAX_SIZE is even: there is room for it). */
        even = H & 1;
        H += even;
    }
    view_h = H - top - margin - even;
    if (view_h < 1 || ((r->colorbar || r->show_time) && view_h < 2 * eddy_canvas_text_height(px))) {
        /* A short image (a small render.height): as a narrow one, the scene alone; the time and the
         * colour bar's end labels would be drawn over each other and over the scene. */
        cbw = 0;
        top = margin = 1;
        view_w = W - 2;
        view_h = H - 2 - even;
        r->colorbar = r->show_time = 0;
    }
    r->font_px = px;
    r->margin = margin;
    r->image_w = W;
    r->image_h = H;
    r->view_x0 = margin;
    r->view_y0 = top;
    r->view_x1 = margin + view_w;
    r->view_y1 = top + view_h;

    if (r->perspective) {
        double tv = tan(0.5 * r->fov * M_PI / 180.0);
        r->focal = r->zoom * 0.5 * view_h / tv;
        if (!r->cam.has_eye) {
            /* Back away from the target until every corner of the framed box is in view. */
            double need;
            box_extents(r, r->target, &A, &B, &fmn, &fmx, &need, tv, (double)view_w / view_h);
            double D = fmax(need, -fmn + 1e-3 * (fmx - fmn + A + B));
            for (int a = 0; a < 3; ++a) r->eye[a] = r->target[a] - D * r->fwd[a];
        }
    } else {
        if (r->cam.span > 0.0) {
            r->ppu = r->zoom * view_h / (r->cam.span * scale);
        } else {
            double kx = A > 0.0 ? view_w / (2.0 * A) : DBL_MAX, ky = B > 0.0 ? view_h / (2.0 * B) : DBL_MAX;
            double k = fmin(kx, ky);
            r->ppu = r->zoom * (k < DBL_MAX ? k : view_h);
        }
    }
    r->settled = 1;
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Drawing                                                                                          */

/* (render_internal.h) */
int render_project(const eddy_renderer *r, const double p[3], double *x, double *y, double *depth, double *px_per_unit)
{
    double cx = 0.5 * (r->view_x0 + r->view_x1), cy = 0.5 * (r->view_y0 + r->view_y1);
    const double *o = r->perspective ? r->eye : r->target;
    double rel[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]};
    double a = dot3(rel, r->right), b = dot3(rel, r->upv), c = dot3(rel, r->fwd);
    *depth = c;
    if (r->perspective) {
        if (!(c > 1e-9)) return 0;
        *x = cx + r->focal * a / c;
        *y = cy - r->focal * b / c;
        *px_per_unit = r->focal / c;
    } else {
        *x = cx + r->ppu * a;
        *y = cy - r->ppu * b;
        *px_per_unit = r->ppu;
    }
    return isfinite(*x) && isfinite(*y);
}

/* The edges of the framed box: the container's (or the preset's bounds), 12 in 3D and 4 in 2D, drawn
 * under the particles and centred on the walls, so that the wall is where the line is. */
static void draw_box(const eddy_renderer *r, eddy_canvas *im, const uint8_t c[3])
{
    const double *lo = r->box_lo, *hi = r->box_hi;
    double lw = fmax(2.0, r->font_px / 8.0);
    /* Corners k and k ^ bit differ on one axis. */
    for (int k = 0; k < 8; ++k)
        for (int bit = 1; bit < 8; bit <<= 1) {
            if (k & bit) continue;
            if (r->dimensions == 2 && (k & 4 || bit == 4)) continue;
            int m = k | bit;
            double p[3] = {(k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]};
            double q[3] = {(m & 1) ? hi[0] : lo[0], (m & 2) ? hi[1] : lo[1], (m & 4) ? hi[2] : lo[2]};
            if (r->dimensions == 2) p[2] = q[2] = 0.0;
            double x0, y0, x1, y1;
            /* (an edge reaching behind a perspective eye, the camera inside the tank: its part in front) */
            if (render_project_segment(r, p, q, &x0, &y0, &x1, &y1)) eddy_canvas_line(im, x0, y0, x1, y1, lw, c);
        }
}

/* This process's particles as discs (composite.h), in no order; halo copies are drawn by their owners.
 * *out is malloc'ed (NULL with *count 0 when there are none). */
static int make_discs(const eddy_renderer *r, const eddy_world *w, double lo, double hi, eddy_disc **out, size_t *count,
                      eddy_error *err)
{
    const uint8_t nan_grey[3] = {128, 128, 128};
    const eddy_particles *p = &w->particles;
    *out = NULL;
    *count = 0;
    eddy_disc *d = p->count ? malloc(sizeof *d * p->count) : NULL;
    if (p->count && !d)
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "render: out of memory for %zu particles", p->count);
    size_t m = 0;
    for (size_t i = 0; i < p->count; ++i) {
        if (eddy_particle_is_halo(p, i)) continue;
        double q[3] = {p->x[i], p->y[i], p->z[i]}, x, y, depth, s;
        if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2])) continue;
        if (!render_project(r, q, &x, &y, &depth, &s)) continue;
        eddy_disc *e = &d[m++];
        memset(e, 0, sizeof *e);
        e->depth = depth;
        e->id = p->id[i];
        e->x = x;
        e->y = y;
        e->r = fmax(1.5, 0.5 * material_spacing(w, p->material[i]) * r->radius_factor * s);
        if (isnan(r->values[i]))
            memcpy(e->rgb, nan_grey, 3);
        else
            eddy_canvas_colormap((float)((r->values[i] - lo) / (hi - lo)), e->rgb);
    }
    *out = d;
    *count = m;
    return EDDY_OK;
}

/* The drawing's clip (draw_frame) within the image. */
static void scene_clip(const eddy_renderer *r, int *x0, int *y0, int *x1, int *y1)
{
    /* The scene stays in its rectangle (a camera close to the container would otherwise draw edges over
     * the colour bar); half the margin of slack keeps the container's outline whole where it frames the
     * view exactly. */
    int pad = r->margin / 2;
    *x0 = r->view_x0 - pad > 0 ? r->view_x0 - pad : 0;
    *y0 = r->view_y0 - pad > 0 ? r->view_y0 - pad : 0;
    *x1 = r->view_x1 + pad < r->image_w ? r->view_x1 + pad : r->image_w;
    *y1 = r->view_y1 + pad < r->image_h ? r->view_y1 + pad : r->image_h;
}

/* Draws the frame from the discs of every process, in draw order (eddy_disc_sort). */
static void draw_frame(eddy_renderer *r, eddy_canvas *im, const eddy_world *w, const eddy_disc *discs, size_t n,
                       double lo, double hi)
{
    const uint8_t ink[3] = {r->dark ? 230 : 20, r->dark ? 230 : 20, r->dark ? 230 : 20};
    const uint8_t edge[3] = {r->dark ? 140 : 110, r->dark ? 140 : 110, r->dark ? 140 : 110};
    int x0, y0, x1, y1;
    scene_clip(r, &x0, &y0, &x1, &y1);
    eddy_canvas_clip(im, x0, y0, x1, y1);
    /* Colliders under the container's outline, which stays whole over a collider against a wall. */
    render_draw_colliders(r, im, w, x0, y0, x1, y1);
    if (r->outline && (r->has_bounds || w->boundaries.has_container)) draw_box(r, im, edge);
    /* Spheres in 3D: the darker rim separates particles of one colour seen on top of each other. */
    eddy_disc_draw(im, discs, n, r->dimensions == 3 && r->shaded ? 0.6f : 1.0f);
    eddy_canvas_unclip(im);

    double px = r->font_px;
    double text_y = 0.5 * (r->view_y0 - eddy_canvas_text_height(px));
    if (r->show_time) {
        char t[64];
        snprintf(t, sizeof t, "t = %.*f s", r->time_decimals > 3 ? r->time_decimals : 3, w->time);
        eddy_canvas_text(im, r->view_x0, text_y, t, px, ink);
    }
    if (r->colorbar) {
        int bx0 = r->view_x1 + r->margin;
        bar_labels b;
        int bh = r->view_y1 - r->view_y0, th = eddy_canvas_text_height(px);
        make_bar_labels(lo, hi, bar_intervals(bh, th), bh > 0 ? 1.2 * th / bh : 1.0, &b);
        eddy_canvas_colorbar(im, bx0, r->view_y0, bx0 + bar_thickness(px), r->view_y1, b.ptr, b.at, b.n, px, ink);
        int tw = eddy_canvas_text_width(r->title, px);
        eddy_canvas_text(im, r->image_w - r->margin - tw, text_y, r->title, px, ink);
    }
}

/* r->stats of the owned particles, combined over the processes (collective where `w` is split). */
static int frame_stats_of(eddy_renderer *r, const eddy_world *w, eddy_error *err)
{
    const eddy_particles *p = &w->particles;
    frame_stats st;
    st.lo = INFINITY;
    st.hi = -INFINITY;
    st.absmax = 0.0;
    st.pad = 0.0;
    for (int a = 0; a < 3; ++a) {
        st.box_lo[a] = INFINITY;
        st.box_hi[a] = -INFINITY;
    }
    for (size_t i = 0; i < p->count; ++i) {
        if (eddy_particle_is_halo(p, i)) continue; /* counted by its owner; its solver fields may be stale */
        double v = r->values[i];
        if (isfinite(v)) {
            st.lo = fmin(st.lo, v);
            st.hi = fmax(st.hi, v);
            st.absmax = fmax(st.absmax, fabs(v));
        }
        float q[3] = {p->x[i], p->y[i], p->z[i]};
        if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2])) continue;
        for (int a = 0; a < 3; ++a) {
            st.box_lo[a] = fmin(st.box_lo[a], q[a]);
            st.box_hi[a] = fmax(st.box_hi[a], q[a]);
        }
        st.pad = fmax(st.pad, 0.5f * material_spacing(w, p->material[i]));
    }
    /* One exact maximum over the processes: minima as maxima of their negations. */
    double m[10] = {-st.lo, st.hi, st.absmax, -st.box_lo[0], -st.box_lo[1], -st.box_lo[2],
                    st.box_hi[0], st.box_hi[1], st.box_hi[2], st.pad};
    int rc = eddy_disc_reduce_max(w, m, 10, err);
    if (rc) return rc;
    st.lo = -m[0];
    st.hi = m[1];
    st.absmax = m[2];
    for (int a = 0; a < 3; ++a) {
        st.box_lo[a] = -m[3 + a];
        st.box_hi[a] = m[6 + a];
    }
    st.pad = m[9];
    r->stats = st;
    return EDDY_OK;
}

/* Binds the field, sizes the buffers, reads the values, combines what framing reads over the processes
 * and settles the layout at the first call. Collective where `w` is split. */
static int prepare(eddy_renderer *r, const eddy_world *w, eddy_error *err)
{
    int rc;
    if (!r->bound && (rc = render_bind_field(r, w, err))) return rc;
    size_t n = w->particles.count;
    if (n > r->capacity) {
        float *v = realloc(r->values, sizeof *v * n);
        if (!v) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "render: out of memory for %zu particles", n);
        r->values = v;
        r->capacity = n;
    }
    field_values(r, w, r->values);
    if ((rc = frame_stats_of(r, w, err))) return rc;
    if (!r->settled) return settle(r, w, err);
    /* A range the first frame left open settles at the first frame that gives it something to go on,
     * and is kept from there (every process alike: the stats are combined). */
    if (r->range_pending) r->range_pending = !rule_range(r, w, &r->range_lo, &r->range_hi);
    return EDDY_OK;
}

int eddy_render_settle(eddy_renderer *r, const eddy_world *w, eddy_error *err)
{
    return prepare(r, w, err);
}

int eddy_render_write(eddy_renderer *r, const eddy_world *w, const char *path, eddy_error *err)
{
    int rc = prepare(r, w, err);
    if (rc) return rc;
    double lo = r->range_lo, hi = r->range_hi;
    if (r->range_mode == RANGE_FRAME) finite_range(r, &lo, &hi);
    if (r->range_mode == RANGE_FROM_ZERO) {
        finite_range(r, &lo, &hi);
        lo = 0.0;
        hi = fmax(hi, 0.0);
        widen(&lo, &hi);
    }
    /* Sort-last (composite.h): each process drops its discs hidden under its own, rank 0 draws the rest
     * of every process in the one draw order. One process does the same with its own. */
    eddy_disc *discs;
    size_t n, owned;
    int x0, y0, x1, y1;
    scene_clip(r, &x0, &y0, &x1, &y1);
    if ((rc = make_discs(r, w, lo, hi, &discs, &n, err))) return rc;
    owned = n;
    eddy_disc_sort(discs, n);
    if ((rc = eddy_disc_cull(discs, &n, x0, y0, x1, y1, err))) {
        free(discs);
        return rc;
    }
    eddy_host_log(w->host, EDDY_LOG_DEBUG, "render", "%zu of %zu particles show in this process's image", n, owned);
    if ((rc = eddy_disc_gather(w, &discs, &n, err)) || !eddy_disc_writer(w)) {
        free(discs);
        return rc;
    }
    eddy_disc_sort(discs, n);
    const uint8_t bg[3] = {r->dark ? 20 : 255, r->dark ? 22 : 255, r->dark ? 28 : 255};
    eddy_canvas im;
    if ((rc = eddy_canvas_init(&im, r->image_w, r->image_h, bg, err))) {
        free(discs);
        return eddy_error_prefix(err, "cannot write '%s': ", path);
    }
    draw_frame(r, &im, w, discs, n, lo, hi);
    free(discs);
    rc = eddy_canvas_write_png(&im, path, err);
    eddy_canvas_free(&im);
    return rc;
}

int eddy_render_frame(eddy_renderer *r, const eddy_world *w, int frame, eddy_error *err)
{
    if (!r) return EDDY_OK;
    if (frame < 0 || frame > 99999)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "render: frame %d is outside 0..99999", frame);
    char path[PREFIX_MAX + 4096];
    snprintf(path, sizeof path, "%s/frame_%05d.png", r->render_dir, frame);
    int rc = eddy_render_write(r, w, path, err);
    if (rc) return rc;
    if (!r->frames || frame < r->first_frame) r->first_frame = frame;
    if (!r->frames || frame > r->last_frame) r->last_frame = frame;
    r->frames++;
    return EDDY_OK;
}

int eddy_render_info_get(const eddy_renderer *r, eddy_render_info *info, eddy_error *err)
{
    memset(info, 0, sizeof *info);
    if (!r || !r->settled)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "render: the layout is settled by the first frame");
    info->width = r->image_w;
    info->height = r->image_h;
    info->view_x0 = r->view_x0;
    info->view_y0 = r->view_y0;
    info->view_x1 = r->view_x1;
    info->view_y1 = r->view_y1;
    info->perspective = r->perspective;
    info->fov_degrees = r->fov;
    info->zoom = r->zoom;
    info->pixels_per_unit = r->ppu;
    for (int a = 0; a < 3; ++a) {
        info->eye[a] = (float)r->eye[a];
        info->target[a] = (float)r->target[a];
        info->up[a] = (float)r->up_given[a];
    }
    info->range_min = r->range_lo;
    info->range_max = r->range_hi;
    info->range_per_frame = r->range_mode == RANGE_FRAME || r->range_mode == RANGE_FROM_ZERO;
    info->range_pending = r->range_pending;
    for (int a = 0; a < 3; ++a) {
        info->box_min[a] = r->box_lo[a];
        info->box_max[a] = r->box_hi[a];
    }
    snprintf(info->field, sizeof info->field, "%s", r->field);
    snprintf(info->unit, sizeof info->unit, "%s", r->unit);
    return EDDY_OK;
}
