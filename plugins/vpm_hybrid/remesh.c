/*
 * remesh.c — periodic remeshing of the vortons (vpm mode): their strengths alpha = omega V are
 * interpolated onto a regular lattice of the material's rest spacing with the M4' kernel, and the
 * lattice nodes that carry strength replace them.
 *
 * Why: PSE diffusion and the regularized Biot–Savart sum are accurate only while the blobs overlap on
 * a near-regular distribution; the flow's strain pulls the particles into lines and clumps, and the
 * PSE Laplacian (normalized on the rest lattice) then diffuses at the wrong rate (docs/solvers/
 * vpm_hybrid.md, "Remeshing", measures it on the Lamb–Oseen vortex). Restoring the lattice every few
 * steps is the standard cure (Koumoutsakos 1997, J. Comput. Phys. 138:821; Cottet &
 * Koumoutsakos 2000, "Vortex Methods: Theory and Practice", ch. 7).
 *
 * M4' (Monaghan 1985, "Extrapolating B splines for interpolation", J. Comput. Phys. 60:253):
 *   W(x) = 1 - 5/2 |x|^2 + 3/2 |x|^3           for |x| <= 1,
 *          (2 - |x|)^2 (1 - |x|) / 2            for 1 <= |x| <= 2,
 *          0                                   beyond,
 * in units of the lattice spacing, applied as a tensor product in 2D and 3D. It reproduces polynomials
 * up to degree 2, so the lattice carries the particles' total strength (circulation), their first
 * moments (linear impulse) and second moments (angular impulse) exactly up to rounding; it
 * interpolates (W(0) = 1, W(1) = W(2) = 0), so a particle on a node is copied unchanged.
 *
 * Determinism: the strengths are accumulated by one thread, particle after particle in index order
 * (the grid's order, itself independent of the thread count), into a hash table, and the nodes are
 * emitted sorted by their lattice index, so the new particles and their ids do not depend on OpenMP
 * scheduling. The cost is 4^d multiply-adds per vorton, small beside one Biot–Savart evaluation.
 */
#include "vpm_hybrid.h"

#include <eddy/grid.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lattice indices are packed into 21 bits per axis, offset to be non-negative. */
#define INDEX_BITS 21
#define INDEX_OFFSET (1 << (INDEX_BITS - 1))
#define INDEX_LIMIT (INDEX_OFFSET - 4) /* room for the stencil's reach on both sides */
#define EMPTY_KEY UINT64_MAX

static double m4prime(double x)
{
    x = fabs(x);
    if (x < 1.0) return 1.0 - x * x * (2.5 - 1.5 * x);
    if (x < 2.0) {
        const double a = 2.0 - x;
        return 0.5 * a * a * (1.0 - x);
    }
    return 0.0;
}

/* Open-addressing table from packed lattice index to the node's strength (3 components, double). */
typedef struct node_table {
    size_t cap, count; /* cap a power of two */
    uint64_t *key;
    double *alpha;     /* [3 cap] */
} node_table;

static uint64_t mix(uint64_t k)
{
    /* The splitmix64 finalizer: spreads neighbouring lattice indices over the table. */
    k ^= k >> 30;
    k *= UINT64_C(0xbf58476d1ce4e5b9);
    k ^= k >> 27;
    k *= UINT64_C(0x94d049bb133111eb);
    return k ^ (k >> 31);
}

static int table_init(node_table *t, size_t cap)
{
    t->cap = cap;
    t->count = 0;
    t->key = malloc(cap * sizeof *t->key);
    t->alpha = calloc(3 * cap, sizeof *t->alpha);
    if (!t->key || !t->alpha) return -1;
    for (size_t i = 0; i < cap; ++i) t->key[i] = EMPTY_KEY;
    return 0;
}

static void table_free(node_table *t)
{
    free(t->key);
    free(t->alpha);
    t->key = NULL;
    t->alpha = NULL;
}

static double *table_find(node_table *t, uint64_t key);

static int table_grow(node_table *t)
{
    node_table g = {0, 0, NULL, NULL};
    if (table_init(&g, 2 * t->cap)) {
        table_free(&g);
        return -1;
    }
    for (size_t i = 0; i < t->cap; ++i) {
        if (t->key[i] == EMPTY_KEY) continue;
        double *a = table_find(&g, t->key[i]);
        memcpy(a, t->alpha + 3 * i, 3 * sizeof(double));
    }
    table_free(t);
    *t = g;
    return 0;
}

/* The strength of node `key`, inserted (zero) if absent; the table has room (grown by the caller). */
static double *table_find(node_table *t, uint64_t key)
{
    size_t i = (size_t)mix(key) & (t->cap - 1);
    while (t->key[i] != key) {
        if (t->key[i] == EMPTY_KEY) {
            t->key[i] = key;
            ++t->count;
            break;
        }
        i = (i + 1) & (t->cap - 1);
    }
    return t->alpha + 3 * i;
}

typedef struct node {
    uint64_t key;
    double alpha[3];
} node;

static int node_order(const void *a, const void *b)
{
    const uint64_t x = ((const node *)a)->key, y = ((const node *)b)->key;
    return x < y ? -1 : x > y;
}

static int out_of_memory(eddy_error *err)
{
    return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory (remeshing)");
}

int vpm_remesh(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    eddy_particles *p = &w->particles;
    const size_t n = p->count;
    const int d = w->dimensions;
    const double h = s->remesh_h, V = s->remesh_volume;
    const float *wv[3];
    for (int a = 0; a < 3; ++a) wv[a] = eddy_particles_field(p, s->f_vorticity, a);
    const float *pos[3] = {p->x, p->y, p->z};

    /* The nodes a smooth vorticity field covers are about as many as the particles, plus the
     * stencil's rim: start there and grow when half full. */
    size_t cap = 64;
    while (cap < 4 * n) cap *= 2;
    node_table t = {0, 0, NULL, NULL};
    uint32_t *keep = malloc((n + 1) * sizeof *keep);
    if (!keep || table_init(&t, cap)) {
        free(keep);
        table_free(&t);
        return out_of_memory(err);
    }
    size_t nkeep = 0;
    int rc = EDDY_OK;
    for (size_t i = 0; i < n && !rc; ++i) {
        if (p->material[i] == s->tracer) {
            keep[nkeep++] = (uint32_t)i;
            continue;
        }
        const double Vi = (double)p->mass[i] / s->rest_density[p->material[i]];
        const double ai[3] = {wv[0][i] * Vi, wv[1][i] * Vi, wv[2][i] * Vi};
        if (ai[0] == 0.0 && ai[1] == 0.0 && ai[2] == 0.0) continue;
        long base[3] = {0, 0, 0};
        double wt[3][4] = {{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}};
        int reach[3] = {1, 1, 1};
        for (int a = 0; a < d; ++a) {
            /* Node k of an axis sits at (k + 1/2) h: t is the position in node units. */
            const double tk = pos[a][i] / h - 0.5;
            if (!(fabs(tk) < INDEX_LIMIT)) {
                rc = eddy_error_set(err, EDDY_ERR_DOMAIN,
                                    "remeshing: particle id %llu at (%g, %g, %g) is %s: the lattice of spacing "
                                    "%g reaches %g from the origin",
                                    (unsigned long long)p->id[i], (double)p->x[i], (double)p->y[i],
                                    (double)p->z[i], isfinite(tk) ? "beyond the remeshing lattice" : "not finite",
                                    h, h * INDEX_LIMIT);
                break;
            }
            const double f = floor(tk);
            base[a] = (long)f - 1;
            for (int k = 0; k < 4; ++k) wt[a][k] = m4prime(tk - (f - 1.0 + k));
            reach[a] = 4;
        }
        if (rc) break;
        for (int kz = 0; kz < reach[2]; ++kz)
            for (int ky = 0; ky < reach[1]; ++ky)
                for (int kx = 0; kx < reach[0]; ++kx) {
                    const double wk = wt[0][kx] * wt[1][ky] * wt[2][kz];
                    if (wk == 0.0) continue;
                    if (2 * (t.count + 1) > t.cap && table_grow(&t)) {
                        rc = out_of_memory(err);
                        break;
                    }
                    const uint64_t key = ((uint64_t)(base[0] + kx + INDEX_OFFSET) << (2 * INDEX_BITS)) |
                                         ((uint64_t)(base[1] + ky + INDEX_OFFSET) << INDEX_BITS) |
                                         (uint64_t)(base[2] + kz + INDEX_OFFSET);
                    double *a = table_find(&t, key);
                    for (int c = 0; c < 3; ++c) a[c] += wk * ai[c];
                }
    }
    node *nodes = rc ? NULL : malloc((t.count + 1) * sizeof *nodes);
    if (!rc && !nodes) rc = out_of_memory(err);
    if (rc) {
        free(keep);
        table_free(&t);
        return rc;
    }

    /* The nodes to keep: non-zero, above the threshold relative to the strongest, inside the domain. */
    double amax = 0.0;
    for (size_t i = 0; i < t.cap; ++i) {
        if (t.key[i] == EMPTY_KEY) continue;
        const double *a = t.alpha + 3 * i;
        amax = fmax(amax, sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]));
    }
    const double cut = s->remesh_threshold * amax;
    size_t nn = 0, outside = 0;
    double lost = 0.0;
    for (size_t i = 0; i < t.cap; ++i) {
        if (t.key[i] == EMPTY_KEY) continue;
        const double *a = t.alpha + 3 * i;
        const double m = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        if (m == 0.0 || m <= cut) continue;
        nodes[nn].key = t.key[i];
        memcpy(nodes[nn].alpha, a, sizeof nodes[nn].alpha);
        ++nn;
    }
    table_free(&t);
    qsort(nodes, nn, sizeof *nodes, node_order);

    eddy_real *xyz = malloc((3 * nn + 1) * sizeof *xyz);
    if (!xyz) {
        free(keep);
        free(nodes);
        return out_of_memory(err);
    }
    size_t m = 0;
    const uint64_t mask = ((uint64_t)1 << INDEX_BITS) - 1;
    for (size_t k = 0; k < nn; ++k) {
        const long idx[3] = {(long)((nodes[k].key >> (2 * INDEX_BITS)) & mask) - INDEX_OFFSET,
                             (long)((nodes[k].key >> INDEX_BITS) & mask) - INDEX_OFFSET,
                             (long)(nodes[k].key & mask) - INDEX_OFFSET};
        eddy_real x[3] = {0, 0, 0};
        for (int a = 0; a < d; ++a) x[a] = (eddy_real)((idx[a] + 0.5) * h);
        /* A node beyond a bounded side of the domain would be refused or removed by the grid build:
         * its strength is lost either way, and the loss is reported. */
        if (eddy_grid_outside_domain(&w->grid.layout, x[0], x[1], x[2])) {
            ++outside;
            const double *a = nodes[k].alpha;
            lost += sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
            continue;
        }
        memcpy(xyz + 3 * m, x, sizeof x);
        nodes[m] = nodes[k];
        ++m;
    }
    if (outside && !s->remesh_warned) {
        s->remesh_warned = 1;
        eddy_host_log(w->host, EDDY_LOG_WARNING, "vpm_hybrid",
                      "remeshing at step %llu: %zu lattice node%s beyond the domain's bounded sides dropped, "
                      "carrying sum |alpha| = %g of strength: the vortons reach the domain's edge, enlarge the "
                      "domain (reported once)",
                      (unsigned long long)w->step, outside, outside == 1 ? "" : "s", lost);
    }

    /* Everything is allocated: from here the particle set changes, and nothing fails part-way. The
     * capacity is reserved first, so that adding cannot run out of memory after the vortons are gone. */
    rc = eddy_particles_reserve(p, nkeep + m, err);
    if (!rc) rc = eddy_particles_gather(p, keep, nkeep, err);
    if (!rc) rc = eddy_world_add_particles(w, m, xyz, NULL, s->remesh_material, err);
    if (!rc) {
        float *wn[3];
        for (int a = 0; a < 3; ++a) wn[a] = eddy_particles_field(p, s->f_vorticity, a);
        for (size_t k = 0; k < m; ++k)
            for (int a = 0; a < 3; ++a) wn[a][nkeep + k] = (float)(nodes[k].alpha[a] / V);
        if (d == 2)
            for (size_t k = 0; k < m; ++k) wn[0][nkeep + k] = wn[1][nkeep + k] = 0.0f;
    }
    free(keep);
    free(nodes);
    free(xyz);
    return rc;
}
