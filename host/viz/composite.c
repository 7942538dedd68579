/*
 * host/viz/composite.c — the discs of composite.h: draw order, culling of hidden discs, the gather of
 * the survivors to rank 0 and the reductions the renderer frames with.
 */
#include "composite.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The session's hooks (eddy_viz_set_processes); zero: one process. */
static eddy_viz_processes g_processes;

void eddy_viz_set_processes(const eddy_viz_processes *p)
{
    if (p) g_processes = *p;
    else memset(&g_processes, 0, sizeof g_processes);
}

int eddy_viz_rank(void) { return g_processes.rank ? g_processes.rank() : 0; }

static int is_split(const eddy_world *w) { return g_processes.split && g_processes.split(w); }

static int by_draw_order(const void *a, const void *b)
{
    const eddy_disc *p = a, *q = b;
    if (p->depth != q->depth) return p->depth > q->depth ? -1 : 1;
    return p->id < q->id ? -1 : p->id > q->id;
}

void eddy_disc_sort(eddy_disc *d, size_t n)
{
    if (n > 1) qsort(d, n, sizeof *d, by_draw_order);
}

/*
 * How far canvas.c may put a disc's pixels from the exact circle of radius r about (x, y). Below 3 px
 * its stamps round the centre and the radius to 1/16 px (0.044 px and 0.031 px off at worst) and
 * cairo flattens the circle to 0.01 px: 0.09 px in all, 0.15 allowed. From 3 px the centre goes to
 * 1/4 px (0.18), the radius to 1/8 px (0.06) and the flattening to 0.1 px (so does a path-drawn disc
 * from 12 px): 0.34 px, 0.45 allowed. A pixel counts as reached when its square comes within r + slack
 * of the centre, as covered wholly when its four corners lie within r - slack: both err on the side of
 * keeping a disc, which costs only bytes.
 */
static double slack(double r)
{
    return r < 3.0 ? 0.15 : 0.45;
}

/* floor(v) clamped to [lo, hi] (v may be huge: a particle next to a perspective eye). */
static int clamp_floor(double v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : (int)floor(v);
}

void eddy_disc_reach_row(const eddy_disc *d, int j, int x0, int x1, int *ia, int *ib)
{
    double R = d->r + slack(d->r);
    double dy = d->y < j ? j - d->y : d->y > j + 1 ? d->y - (j + 1) : 0.0;
    *ia = x0;
    *ib = x0 - 1;
    if (!(dy <= R)) return;
    double h = sqrt(R * R - dy * dy);
    /* Pixel i reaches when [i, i + 1] meets [x - h, x + h]. */
    *ia = clamp_floor(ceil(d->x - h) - 1.0, x0, x1);
    *ib = clamp_floor(d->x + h, x0 - 1, x1 - 1);
}

void eddy_disc_cover_row(const eddy_disc *d, int j, int x0, int x1, int *ia, int *ib)
{
    double R = d->r - slack(d->r);
    double dy = fmax(fabs(j - d->y), fabs(j + 1 - d->y));
    *ia = x0;
    *ib = x0 - 1;
    if (!(R > 0.0 && dy <= R)) return;
    double h = sqrt(R * R - dy * dy);
    /* Pixel i is covered when [i, i + 1] lies within [x - h, x + h]. */
    *ia = clamp_floor(ceil(d->x - h), x0, x1);
    *ib = clamp_floor(floor(d->x + h) - 1.0, x0 - 1, x1 - 1);
}

/* Whether the disc reaches a pixel of the mask not yet covered. */
static int shows(const eddy_disc *d, const unsigned char *covered, int x0, int y0, int x1, int y1)
{
    double R = d->r + slack(d->r);
    int ja = clamp_floor(d->y - R, y0, y1), jb = clamp_floor(d->y + R, y0 - 1, y1 - 1);
    for (int j = ja; j <= jb; ++j) {
        int ia, ib;
        eddy_disc_reach_row(d, j, x0, x1, &ia, &ib);
        const unsigned char *row = covered + (size_t)(j - y0) * (size_t)(x1 - x0) - x0;
        for (int i = ia; i <= ib; ++i)
            if (!row[i]) return 1;
    }
    return 0;
}

/* Marks the pixels the disc covers wholly. */
static void cover(const eddy_disc *d, unsigned char *covered, int x0, int y0, int x1, int y1)
{
    double R = d->r - slack(d->r);
    if (!(R > 0.0)) return;
    int ja = clamp_floor(d->y - R, y0, y1), jb = clamp_floor(d->y + R, y0 - 1, y1 - 1);
    for (int j = ja; j <= jb; ++j) {
        int ia, ib;
        eddy_disc_cover_row(d, j, x0, x1, &ia, &ib);
        unsigned char *row = covered + (size_t)(j - y0) * (size_t)(x1 - x0) - x0;
        for (int i = ia; i <= ib; ++i) row[i] = 1;
    }
}

int eddy_disc_cull(eddy_disc *d, size_t *n, int x0, int y0, int x1, int y1, eddy_error *err)
{
    if (x1 <= x0 || y1 <= y0 || *n == 0) { /* also: no discs, where d may be NULL */
        *n = 0;
        return EDDY_OK;
    }
    unsigned char *covered = calloc((size_t)(x1 - x0) * (size_t)(y1 - y0), 1);
    if (!covered)
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "render: out of memory for a %d x %d pixel mask", x1 - x0,
                              y1 - y0);
    /* From the last drawn to the first: what is covered is covered by later discs. Survivors are moved
     * to the end, in order, then to the front. */
    size_t keep = *n;
    for (size_t k = *n; k-- > 0;) {
        const eddy_disc *e = &d[k];
        if (!(isfinite(e->x) && isfinite(e->y) && e->r > 0.0)) continue; /* canvas.c draws nothing */
        int visible = shows(e, covered, x0, y0, x1, y1);
        cover(e, covered, x0, y0, x1, y1);
        if (visible) d[--keep] = *e;
    }
    free(covered);
    memmove(d, d + keep, (*n - keep) * sizeof *d);
    *n -= keep;
    return EDDY_OK;
}

void eddy_disc_draw(eddy_canvas *c, const eddy_disc *d, size_t n, float rim)
{
    for (size_t k = 0; k < n; ++k) eddy_canvas_sphere(c, d[k].x, d[k].y, d[k].r, d[k].rgb, rim);
}

int eddy_disc_writer(const eddy_world *w)
{
    return !is_split(w) || eddy_viz_rank() == 0;
}

int eddy_disc_reduce_max(const eddy_world *w, double *values, size_t count, eddy_error *err)
{
    /* Only a split world: a shallow copy sharing its exchange (eddy_decomp_gather_whole's, drawn by rank
     * 0 alone) must not start a collective the other processes never join. The reduction reads the
     * world's exchange and changes nothing in it. */
    if (!is_split(w)) return EDDY_OK;
    return eddy_world_reduce((eddy_world *)w, EDDY_REDUCE_MAX, values, count, err);
}

int eddy_disc_gather(const eddy_world *w, eddy_disc **d, size_t *n, eddy_error *err)
{
    if (!is_split(w) || !g_processes.gather) return EDDY_OK;
    void *all = NULL;
    size_t total = 0;
    int rc = g_processes.gather(*d, *n, sizeof **d, &all, &total, err);
    if (rc) return eddy_error_prefix(err, "render: ");
    free(*d);
    *d = all;
    *n = total;
    return EDDY_OK;
}
