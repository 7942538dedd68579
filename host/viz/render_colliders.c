/*
 * host/viz/render_colliders.c — the scene's colliders in a rendered frame (render.c's draw_frame): a
 * neutral grey fill with a darker edge, under the container's outline and the particles, so that fluid
 * that stops in mid-air is seen to rest on something. They are drawn where the world holds them when the
 * frame is drawn: a moving collider is translated in the world as the clock advances (host/session
 * sim.c), so the world at an output frame carries its position at that frame's time.
 *
 * Shapes, through the renderer's camera (render_project), exactly in 2D and in 3D:
 *   - box: the outline of its projection (the convex hull of its corners' images, exact for a convex
 *     solid in front of the eye), filled; in 3D its 12 edges on top;
 *   - sphere (a disc in 2D): its silhouette, the circle where the cone of sight rays from the eye (the
 *     cylinder along the view, orthographic) touches it, as a 96-sided polygon;
 *   - plane: its solid side within the framed region (the container, or the preset's bounds), or, in a
 *     scene without a container, within the domain; filled, with the plane's own cut through that
 *     region as its edge (a line in 2D, a polygon in 3D).
 *
 * In 3D through a perspective eye, a shape that reaches behind the eye is cut at a near plane just in
 * front of it (near_cut) before it is projected, and the part in front is drawn: a point behind the eye
 * has no image (projected as it is, it would land mirrored on the far side of the picture), yet a floor
 * that runs under the camera or a long box beside it is mostly in view. The near plane sits so close to
 * the eye that what it cuts away, in front of the eye, projects outside the picture anyway.
 */
#include "render_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CIRCLE_POINTS 96
/* The most points a clipped shape has: a plane's solid side gathered from the region's 6 faces, each cut
 * by the plane and by the near plane (a quadrilateral grows a point per cut); a box cut by the near plane
 * has fewer (8 corners and 12 edges' crossings). */
#define MAX_SHAPE_POINTS 36

typedef struct collider_ink {
    uint8_t fill[3], edge[3];
    double lw;
    int clip_x0, clip_y0, clip_x1, clip_y1; /* the scene's clip, widened by the line width */
} collider_ink;

/* Projects n points; 0 when one of them is behind a perspective eye (the shape is then not filled). */
static int project_points(const eddy_renderer *r, const double (*p)[3], size_t n, double *xy)
{
    for (size_t k = 0; k < n; ++k) {
        double d, s;
        if (!render_project(r, p[k], &xy[2 * k], &xy[2 * k + 1], &d, &s)) return 0;
    }
    return 1;
}

static double turn(const double *o, const double *a, const double *b)
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static int by_x_then_y(const void *a, const void *b)
{
    const double *p = a, *q = b;
    return p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : p[1] < q[1] ? -1 : p[1] > q[1] ? 1 : 0;
}

/* The convex hull of n <= MAX_SHAPE_POINTS points (Andrew's monotone chain), written over xy in order;
 * returns its count (collinear points dropped). */
static size_t convex_hull(double *xy, size_t n)
{
    if (n < 3) return n;
    qsort(xy, n, 2 * sizeof *xy, by_x_then_y);
    double h[2 * (2 * MAX_SHAPE_POINTS + 1)];
    size_t m = 0;
    for (size_t k = 0; k < n; ++k) {
        while (m >= 2 && turn(&h[2 * (m - 2)], &h[2 * (m - 1)], &xy[2 * k]) <= 0.0) --m;
        h[2 * m] = xy[2 * k];
        h[2 * m + 1] = xy[2 * k + 1];
        ++m;
    }
    const size_t lower = m + 1;
    for (size_t k = n - 1; k-- > 0;) {
        while (m >= lower && turn(&h[2 * (m - 2)], &h[2 * (m - 1)], &xy[2 * k]) <= 0.0) --m;
        h[2 * m] = xy[2 * k];
        h[2 * m + 1] = xy[2 * k + 1];
        ++m;
    }
    --m; /* the last point is the first again */
    memcpy(xy, h, sizeof *xy * 2 * m);
    return m;
}

/* A segment cut to the clip rectangle (Liang-Barsky), so that an edge running far out of the image keeps
 * cairo's coordinates small; nothing when it misses the rectangle. */
static void segment(eddy_canvas *im, const collider_ink *ink, double x0, double y0, double x1, double y1)
{
    double t0 = 0.0, t1 = 1.0, dx = x1 - x0, dy = y1 - y0;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {x0 - ink->clip_x0, ink->clip_x1 - x0, y0 - ink->clip_y0, ink->clip_y1 - y0};
    for (int k = 0; k < 4; ++k) {
        if (p[k] == 0.0) {
            if (q[k] < 0.0) return;
            continue;
        }
        const double t = q[k] / p[k];
        if (p[k] < 0.0) t0 = fmax(t0, t);
        else t1 = fmin(t1, t);
        if (t0 > t1) return;
    }
    eddy_canvas_line(im, x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy, ink->lw, ink->edge);
}

/* The corner k (bits: x, y, z from hi) of [lo, hi]. */
static void corner(const double lo[3], const double hi[3], int k, double out[3])
{
    for (int a = 0; a < 3; ++a) out[a] = (k >> a & 1) ? hi[a] : lo[a];
}

/* The points p with dot(k, p - o) >= off: the side of a cut that is kept. */
typedef struct half_space {
    double k[3], o[3], off;
} half_space;

static double side_of(const half_space *h, const double p[3])
{
    const double d[3] = {p[0] - h->o[0], p[1] - h->o[1], p[2] - h->o[2]};
    return dot3(h->k, d) - h->off;
}

/* The near plane of a perspective eye in 3D: what is at least `near` in front of the eye along the view;
 * 0 when nothing is cut (2D, or an orthographic camera, which sees every point). `near` is a millionth
 * of the eye's distance to its target, so that it scales with the scene, and never under 1e-8: the
 * crossings made on it must stay in front of render_project's threshold (1e-9) after rounding. */
static int near_cut(const eddy_renderer *r, half_space *h)
{
    if (r->dimensions != 3 || !r->perspective) return 0;
    const double to_target[3] = {r->target[0] - r->eye[0], r->target[1] - r->eye[1], r->target[2] - r->eye[2]};
    memcpy(h->k, r->fwd, sizeof h->k);
    memcpy(h->o, r->eye, sizeof h->o);
    h->off = fmax(1e-6 * norm3(to_target), 1e-8);
    return 1;
}

/* Where the segment from p (side sp) to q (side sq) crosses the cut; sp and sq of opposite signs. */
static void crossing(const double p[3], double sp, const double q[3], double sq, double out[3])
{
    const double t = sp / (sp - sq);
    for (int a = 0; a < 3; ++a) out[a] = p[a] + t * (q[a] - p[a]);
}

/* The polygon in[0..n) cut to the kept side of h (Sutherland-Hodgman), into out (room for 2n points:
 * a convex polygon gains at most one); returns its count. */
static size_t clip_polygon(const half_space *h, const double (*in)[3], size_t n, double (*out)[3])
{
    size_t m = 0;
    for (size_t k = 0; k < n; ++k) {
        const double *p = in[k], *q = in[(k + 1) % n];
        const double sp = side_of(h, p), sq = side_of(h, q);
        if (sp >= 0.0) memcpy(out[m++], p, sizeof out[0]);
        if ((sp >= 0.0) != (sq >= 0.0)) crossing(p, sp, q, sq, out[m++]);
    }
    return m;
}

/* The segment p..q cut to the kept side of h (NULL: kept whole) into a..b; 0 when none of it is kept. */
static int clip_segment(const half_space *h, const double p[3], const double q[3], double a[3], double b[3])
{
    memcpy(a, p, 3 * sizeof a[0]);
    memcpy(b, q, 3 * sizeof b[0]);
    if (!h) return 1;
    const double sa = side_of(h, a), sb = side_of(h, b);
    if (sa < 0.0 && sb < 0.0) return 0;
    if (sa < 0.0) crossing(p, sa, q, sb, a);
    else if (sb < 0.0) crossing(p, sa, q, sb, b);
    return 1;
}

int render_project_segment(const eddy_renderer *r, const double p[3], const double q[3], double *x0, double *y0,
                           double *x1, double *y1)
{
    half_space near;
    double a[3], b[3], d, s;
    return clip_segment(near_cut(r, &near) ? &near : NULL, p, q, a, b) && render_project(r, a, x0, y0, &d, &s) &&
           render_project(r, b, x1, y1, &d, &s);
}

/* An edge from p to q in the edge ink: the part in front of the near plane (cut: h, else all of it). */
static void edge_3d(const eddy_renderer *r, eddy_canvas *im, const collider_ink *ink, const half_space *h,
                    const double p[3], const double q[3])
{
    double a[3], b[3], xa, ya, xb, yb, d, s;
    if (clip_segment(h, p, q, a, b) && render_project(r, a, &xa, &ya, &d, &s) && render_project(r, b, &xb, &yb, &d, &s))
        segment(im, ink, xa, ya, xb, yb);
}

static void draw_collider_box(const eddy_renderer *r, eddy_canvas *im, const collider_ink *ink, const eddy_collider *c)
{
    double lo[3], hi[3], p[8][3], xy[2 * MAX_SHAPE_POINTS];
    for (int a = 0; a < 3; ++a) {
        lo[a] = c->min[a];
        hi[a] = c->max[a];
    }
    if (r->dimensions == 2) lo[2] = hi[2] = 0.0;
    const int n = r->dimensions == 2 ? 4 : 8;
    for (int k = 0; k < n; ++k) corner(lo, hi, k, p[k]);
    if (r->dimensions == 2) {
        /* Corners 0, 1, 3, 2 go round the rectangle. */
        const int order[4] = {0, 1, 3, 2};
        double q[4][3];
        for (int k = 0; k < 4; ++k) memcpy(q[k], p[order[k]], sizeof q[k]);
        if (project_points(r, (const double(*)[3])q, 4, xy)) eddy_canvas_polygon(im, xy, 4, ink->fill, ink->lw, ink->edge);
        return;
    }
    /* The box cut by the near plane is convex, and its corners are the box's corners in front and the
     * edges' crossings with the plane: its image is their images' hull. */
    half_space h;
    const int cut = near_cut(r, &h);
    double s[8], kept[MAX_SHAPE_POINTS][3];
    size_t nk = 0;
    for (int k = 0; k < 8; ++k) {
        s[k] = cut ? side_of(&h, p[k]) : 0.0;
        if (s[k] >= 0.0) memcpy(kept[nk++], p[k], sizeof p[k]);
    }
    /* (corners k and k | bit differ on one axis: the 12 edges) */
    for (int k = 0; k < 8; ++k)
        for (int bit = 1; bit < 8; bit <<= 1)
            if (!(k & bit) && (s[k] >= 0.0) != (s[k | bit] >= 0.0)) crossing(p[k], s[k], p[k | bit], s[k | bit], kept[nk++]);
    if (nk >= 3 && project_points(r, (const double(*)[3])kept, nk, xy)) {
        size_t m = convex_hull(xy, nk);
        eddy_canvas_polygon(im, xy, m, ink->fill, 0.0, NULL);
    }
    for (int k = 0; k < 8; ++k)
        for (int bit = 1; bit < 8; bit <<= 1)
            if (!(k & bit)) edge_3d(r, im, ink, cut ? &h : NULL, p[k], p[k | bit]);
}

static void draw_collider_sphere(const eddy_renderer *r, eddy_canvas *im, const collider_ink *ink, const eddy_collider *c)
{
    const double R = c->radius;
    double centre[3] = {c->center[0], c->center[1], r->dimensions == 2 ? 0.0 : c->center[2]};
    double mid[3], u[3], v[3], rho;
    if (r->dimensions == 2) {
        /* A disc in the plane of the scene. */
        memcpy(mid, centre, sizeof mid);
        const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
        memcpy(u, ex, sizeof u);
        memcpy(v, ey, sizeof v);
        rho = R;
    } else if (!r->perspective) {
        /* The rays are parallel to the view: the great circle square to it. */
        memcpy(mid, centre, sizeof mid);
        memcpy(u, r->right, sizeof u);
        memcpy(v, r->upv, sizeof v);
        rho = R;
    } else {
        /* The cone from the eye touches the sphere on a circle square to the line of sight to its centre:
         * at distance d - R^2 / d from the eye, of radius R sqrt(d^2 - R^2) / d. */
        double w[3] = {centre[0] - r->eye[0], centre[1] - r->eye[1], centre[2] - r->eye[2]};
        const double d = norm3(w);
        if (!(d > R)) return; /* the eye is inside: the sphere fills the view; nothing sensible to outline */
        for (int a = 0; a < 3; ++a) w[a] /= d;
        const double along = d - R * R / d;
        for (int a = 0; a < 3; ++a) mid[a] = r->eye[a] + along * w[a];
        rho = R * sqrt(d * d - R * R) / d;
        /* Any two unit vectors square to w and to each other. */
        const double *seed = fabs(dot3(w, r->upv)) < 0.9 ? r->upv : r->right;
        cross3(w, seed, u);
        const double un = norm3(u);
        for (int a = 0; a < 3; ++a) u[a] /= un;
        cross3(w, u, v);
    }
    double p[CIRCLE_POINTS][3], xy[2 * CIRCLE_POINTS];
    for (int k = 0; k < CIRCLE_POINTS; ++k) {
        const double t = 2.0 * M_PI * k / CIRCLE_POINTS, cs = cos(t), sn = sin(t);
        for (int a = 0; a < 3; ++a) p[k][a] = mid[a] + rho * (cs * u[a] + sn * v[a]);
    }
    half_space h;
    int behind = 0;
    if (near_cut(r, &h))
        for (int k = 0; k < CIRCLE_POINTS; ++k) behind |= side_of(&h, p[k]) < 0.0;
    if (!behind) {
        if (project_points(r, (const double(*)[3])p, CIRCLE_POINTS, xy))
            eddy_canvas_polygon(im, xy, CIRCLE_POINTS, ink->fill, ink->lw, ink->edge);
        return;
    }
    /* Every sight ray in the cone that points forward meets the disc in front of the eye, so the disc's
     * part in front of the near plane images the whole visible silhouette. The cut across it is no edge
     * of the sphere: only the circle's own edges are stroked. */
    double kept[2 * CIRCLE_POINTS][3], kxy[2 * 2 * CIRCLE_POINTS];
    const size_t m = clip_polygon(&h, (const double(*)[3])p, CIRCLE_POINTS, kept);
    if (m >= 3 && project_points(r, (const double(*)[3])kept, m, kxy)) eddy_canvas_polygon(im, kxy, m, ink->fill, 0.0, NULL);
    for (int k = 0; k < CIRCLE_POINTS; ++k) edge_3d(r, im, ink, &h, p[k], p[(k + 1) % CIRCLE_POINTS]);
}

/* The region a plane's solid side is shown in (sim units): the framed region where it is the container or
 * the preset's bounds; otherwise the domain, where the world has one (an open scene framed by its fluid
 * would otherwise cut its floor away), else the framed region. */
static void plane_region(const eddy_renderer *r, const eddy_world *w, int use_domain, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; ++a) {
        lo[a] = r->box_lo[a];
        hi[a] = r->box_hi[a];
    }
    const eddy_grid_layout *g = &w->grid.layout;
    if (!use_domain || r->has_bounds || w->boundaries.has_container || g->dimensions != r->dimensions) return;
    for (int a = 0; a < r->dimensions; ++a)
        if (!(isfinite(g->lo[a]) && isfinite(g->hi[a]) && g->lo[a] < g->hi[a])) return;
    for (int a = 0; a < r->dimensions; ++a) {
        lo[a] = g->lo[a];
        hi[a] = g->hi[a];
    }
}

/* The solid side of plane c within [lo, hi] (3D) where it reaches behind the near plane h: the region cut
 * by the plane and by h is convex, and its corners lie on the region's faces, so cutting each face by both
 * (Sutherland-Hodgman) gathers them; its image is their images' hull. The cut polygon's edges, ordered
 * round it in its plane, are each cut by h. 0 when an image is not finite. */
static int draw_plane_clipped(const eddy_renderer *r, eddy_canvas *im, const collider_ink *ink, const eddy_collider *c,
                              const double lo[3], const double hi[3], const half_space *h, const double (*cut)[3],
                              size_t nc)
{
    half_space solid_side;
    for (int a = 0; a < 3; ++a) {
        solid_side.k[a] = -(double)c->normal[a];
        solid_side.o[a] = c->point[a];
    }
    solid_side.off = 0.0;
    double solid[MAX_SHAPE_POINTS][3], xy[2 * MAX_SHAPE_POINTS];
    size_t ns = 0;
    for (int a = 0; a < 3; ++a)
        for (int v = 0; v < 2; ++v) {
            /* The face where axis a is at lo (v 0) or hi (v 1), its corners in turn round it. */
            const int b = (a + 1) % 3, e = (a + 2) % 3, round[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
            double face[4][3], once[8][3], twice[16][3];
            for (int k = 0; k < 4; ++k) corner(lo, hi, v << a | round[k][0] << b | round[k][1] << e, face[k]);
            const size_t n1 = clip_polygon(&solid_side, (const double(*)[3])face, 4, once);
            const size_t n2 = clip_polygon(h, (const double(*)[3])once, n1, twice);
            for (size_t k = 0; k < n2 && ns < MAX_SHAPE_POINTS; ++k) memcpy(solid[ns++], twice[k], sizeof twice[k]);
        }
    if (ns < 3) return 1; /* nothing of the solid side is in front of the eye */
    if (!project_points(r, (const double(*)[3])solid, ns, xy)) return 0;
    const size_t m = convex_hull(xy, ns);
    eddy_canvas_polygon(im, xy, m, ink->fill, 0.0, NULL);
    if (nc < 2) return 1;
    /* Round the cut polygon by angle about its centre, in the plane: u towards its first point, w = n x u. */
    double mid[3] = {0, 0, 0}, u[3], w[3], n[3] = {c->normal[0], c->normal[1], c->normal[2]}, angle[MAX_SHAPE_POINTS];
    size_t order[MAX_SHAPE_POINTS];
    for (size_t k = 0; k < nc; ++k)
        for (int a = 0; a < 3; ++a) mid[a] += cut[k][a] / (double)nc;
    for (int a = 0; a < 3; ++a) u[a] = cut[0][a] - mid[a];
    cross3(n, u, w);
    for (size_t k = 0; k < nc; ++k) {
        const double d[3] = {cut[k][0] - mid[0], cut[k][1] - mid[1], cut[k][2] - mid[2]};
        const double t = atan2(dot3(d, w), dot3(d, u));
        size_t j = k;
        for (; j > 0 && angle[j - 1] > t; --j) {
            angle[j] = angle[j - 1];
            order[j] = order[j - 1];
        }
        angle[j] = t;
        order[j] = k;
    }
    for (size_t k = 0; k < (nc == 2 ? 1 : nc); ++k) edge_3d(r, im, ink, h, cut[order[k]], cut[order[(k + 1) % nc]]);
    return 1;
}

/* Draws the solid side of plane c within [lo, hi]; 0 when an image of it is not finite. */
static int draw_plane_in(const eddy_renderer *r, eddy_canvas *im, const collider_ink *ink, const eddy_collider *c,
                         const double lo[3], const double hi[3])
{
    const int dims = r->dimensions, ncorners = dims == 2 ? 4 : 8;
    double p[8][3], s[8], solid[MAX_SHAPE_POINTS][3], cut[MAX_SHAPE_POINTS][3];
    size_t ns = 0, nc = 0;
    for (int k = 0; k < ncorners; ++k) {
        corner(lo, hi, k, p[k]);
        if (dims == 2) p[k][2] = 0.0;
        s[k] = 0.0;
        for (int a = 0; a < dims; ++a) s[k] += (p[k][a] - c->point[a]) * c->normal[a];
        if (s[k] <= 0.0) memcpy(solid[ns++], p[k], sizeof p[k]);
        if (s[k] == 0.0) memcpy(cut[nc++], p[k], sizeof p[k]);
    }
    for (int k = 0; k < ncorners; ++k)
        for (int bit = 1; bit < ncorners; bit <<= 1) {
            const int m = k | bit;
            if ((k & bit) || !((s[k] < 0.0 && s[m] > 0.0) || (s[k] > 0.0 && s[m] < 0.0))) continue;
            const double t = s[k] / (s[k] - s[m]);
            double x[3];
            for (int a = 0; a < 3; ++a) x[a] = p[k][a] + t * (p[m][a] - p[k][a]);
            memcpy(solid[ns++], x, sizeof x);
            memcpy(cut[nc++], x, sizeof x);
        }
    if (ns < 3) return 1; /* the region is wholly on the free side (or touches the plane only) */
    half_space h;
    if (near_cut(r, &h))
        for (size_t k = 0; k < ns; ++k)
            if (side_of(&h, solid[k]) < 0.0)
                return draw_plane_clipped(r, im, ink, c, lo, hi, &h, (const double(*)[3])cut, nc);
    double xy[2 * MAX_SHAPE_POINTS], cxy[2 * MAX_SHAPE_POINTS];
    if (!project_points(r, (const double(*)[3])solid, ns, xy) || !project_points(r, (const double(*)[3])cut, nc, cxy))
        return 0;
    size_t m = convex_hull(xy, ns);
    eddy_canvas_polygon(im, xy, m, ink->fill, 0.0, NULL);
    /* The cut is a planar convex polygon (a segment in 2D): its projection's hull goes round it in order. */
    m = convex_hull(cxy, nc);
    if (m == 2)
        segment(im, ink, cxy[0], cxy[1], cxy[2], cxy[3]);
    else if (m >= 3)
        eddy_canvas_polygon(im, cxy, m, NULL, ink->lw, ink->edge);
    return 1;
}

static void draw_collider_plane(const eddy_renderer *r, eddy_canvas *im, const eddy_world *w, const collider_ink *ink,
                                const eddy_collider *c)
{
    double lo[3], hi[3];
    plane_region(r, w, 1, lo, hi);
    if (draw_plane_in(r, im, ink, c, lo, hi)) return;
    /* A domain so large that an image of it is not finite: the framed region. */
    plane_region(r, w, 0, lo, hi);
    draw_plane_in(r, im, ink, c, lo, hi);
}

void render_draw_colliders(const eddy_renderer *r, eddy_canvas *im, const eddy_world *w, int x0, int y0, int x1,
                           int y1)
{
    const eddy_boundaries *b = &w->boundaries;
    collider_ink ink = {
        .fill = {r->dark ? 62 : 208, r->dark ? 64 : 208, r->dark ? 70 : 208},
        .edge = {r->dark ? 140 : 110, r->dark ? 140 : 110, r->dark ? 140 : 110},
        .lw = fmax(2.0, r->font_px / 8.0),
    };
    const int pad = (int)ceil(2.0 * ink.lw);
    ink.clip_x0 = x0 - pad;
    ink.clip_y0 = y0 - pad;
    ink.clip_x1 = x1 + pad;
    ink.clip_y1 = y1 + pad;
    /* In 3D, farthest first, as a painter draws: in list order a box behind a sphere painted its edges
     * over the sphere. Planes (unbounded: a floor, a wall) go first; a box or sphere by its centre's
     * depth along the view. In 2D every shape lies in the plane of the picture. */
    size_t *order = malloc((b->collider_count ? b->collider_count : 1) * sizeof *order);
    double *depth = malloc((b->collider_count ? b->collider_count : 1) * sizeof *depth);
    size_t n = 0;
    for (size_t i = 0; order && depth && i < b->collider_count; ++i) {
        const eddy_collider *c = &b->colliders[i];
        if (c->is_container_wall) continue; /* the container's outline shows those */
        double d = INFINITY;
        if (r->dimensions == 3 && c->shape != EDDY_SHAPE_PLANE) {
            double m[3];
            for (int a = 0; a < 3; ++a)
                m[a] = c->shape == EDDY_SHAPE_BOX ? 0.5 * ((double)c->min[a] + (double)c->max[a]) : (double)c->center[a];
            d = 0.0;
            for (int a = 0; a < 3; ++a) d += (m[a] - r->eye[a]) * r->fwd[a];
        }
        size_t k = n++;
        /* (insertion by depth, stable: equal depths and 2D keep the list's order) */
        while (r->dimensions == 3 && k > 0 && depth[k - 1] < d) {
            order[k] = order[k - 1];
            depth[k] = depth[k - 1];
            --k;
        }
        order[k] = i;
        depth[k] = d;
    }
    const int ordered = order && depth; /* (out of memory: the list's order, as before) */
    if (!ordered) n = b->collider_count;
    for (size_t j = 0; j < n; ++j) {
        const eddy_collider *c = &b->colliders[ordered ? order[j] : j];
        if (!ordered && c->is_container_wall) continue;
        switch (c->shape) {
        case EDDY_SHAPE_BOX: draw_collider_box(r, im, &ink, c); break;
        case EDDY_SHAPE_SPHERE: draw_collider_sphere(r, im, &ink, c); break;
        case EDDY_SHAPE_PLANE: draw_collider_plane(r, im, w, &ink, c); break;
        default: break;
        }
    }
    free(order);
    free(depth);
}
