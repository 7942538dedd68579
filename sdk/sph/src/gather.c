/* Candidate gather and mirror images (eddy_sph/gather.h). */
#include <eddy_sph/gather.h>

#include <eddy/boundary_math.h>

#include <math.h>
#include <stdlib.h>

void eddy_sph_candidates_free(eddy_sph_candidates *c)
{
    if (!c) return;
    free(c->block);
    int extra = c->extra_count;
    *c = (eddy_sph_candidates){0};
    c->extra_count = extra;
}

/* One aligned block for every array, so a grown buffer costs one allocation. */
static int reserve(eddy_sph_candidates *c, size_t n)
{
    if (n <= c->capacity) return 0;
    size_t cap = n + n / 2 + 64;
    cap = (cap + 15) & ~(size_t)15; /* every array 64-byte aligned */
    const size_t arrays = 5 + (size_t)c->extra_count;
    void *block = aligned_alloc(64, cap * arrays * sizeof(float));
    if (!block) return -1;
    free(c->block);
    c->block = block;
    c->capacity = cap;
    float *f = block;
    c->x = f;
    c->y = f + cap;
    c->z = f + 2 * cap;
    c->m = f + 3 * cap;
    c->index = (uint32_t *)(f + 4 * cap);
    for (int e = 0; e < c->extra_count; ++e) c->extra[e] = f + (5 + (size_t)e) * cap;
    return 0;
}

#define GATHER_BLOCK 256

/*
 * Three stages per range, none with a branch on the data: the box test of a block of candidates in a
 * SIMD loop (a flag each), the particle indices of the kept ones compacted by a store at every
 * candidate and a count that advances on a keep, then the shifted positions and masses copied for the
 * kept ones only. The test sees each position exactly as the buffer will hold it (p + shift), so a
 * narrower box applied to the buffer later keeps a subset (eddy_sph_box_reaches).
 */
int eddy_sph_gather(eddy_sph_candidates *c, const eddy_grid *g, const eddy_particles *p, uint32_t cell)
{
    eddy_range r[EDDY_MAX_CELL_RANGES];
    const int nr = eddy_grid_cell_ranges(g, cell, r);
    size_t n = 0;
    for (int q = 0; q < nr; ++q) n += r[q].end - r[q].begin;
    if (reserve(c, n)) return -1;
    eddy_sph_box box = eddy_sph_box_empty(&g->layout);
    for (uint32_t i = g->cell_begin[cell]; i < g->cell_end[cell]; ++i) eddy_sph_box_add(&box, p->x[i], p->y[i], p->z[i]);
    const float *px = p->x, *py = p->y, *pz = p->z, *pm = p->mass;
    float *restrict cx = c->x, *restrict cy = c->y, *restrict cz = c->z, *restrict cm = c->m;
    uint32_t *restrict index = c->index;
    uint32_t keep[GATHER_BLOCK];
    size_t k = 0;
    for (int q = 0; q < nr; ++q) {
        const float sx = r[q].shift[0], sy = r[q].shift[1], sz = r[q].shift[2];
        const size_t first = k;
        for (uint32_t j0 = r[q].begin; j0 < r[q].end; j0 += GATHER_BLOCK) {
            const uint32_t len = r[q].end - j0 < GATHER_BLOCK ? r[q].end - j0 : GATHER_BLOCK;
            for (uint32_t t = 0; t < len; ++t)
                keep[t] = eddy_sph_box_reaches(&box, px[j0 + t] + sx, py[j0 + t] + sy, pz[j0 + t] + sz);
            for (uint32_t t = 0; t < len; ++t) {
                index[k] = j0 + t;
                k += keep[t];
            }
        }
        for (size_t t = first; t < k; ++t) {
            const uint32_t j = index[t];
            cx[t] = px[j] + sx;
            cy[t] = py[j] + sy;
            cz[t] = pz[j] + sz;
            cm[t] = pm[j];
        }
    }
    c->count = k;
    return 0;
}

/* Two stages per block, both free of branches on the data: the distance tests write a flag per
 * candidate in a SIMD loop, then the positions of the hits are compacted by a store at every candidate
 * and a count that advances only on a hit (a conditional store mispredicted on most of the ~150
 * candidates, ~30 hits in a pattern close to random: in a splash, with more particles at walls, the
 * select was the largest item of the passes' profile, docs/performance.md). The same entries in the
 * same order as one conditional loop. */
#define HITS_BLOCK 64
size_t eddy_sph_hits(const eddy_sph_candidates *c, float xi, float yi, float zi, float r2max, uint32_t *out)
{
    const size_t nc = c->count;
    const float *cx = c->x, *cy = c->y, *cz = c->z;
    uint32_t hit[HITS_BLOCK];
    size_t k = 0;
    for (size_t q0 = 0; q0 < nc; q0 += HITS_BLOCK) {
        const size_t len = nc - q0 < HITS_BLOCK ? nc - q0 : HITS_BLOCK;
        for (size_t t = 0; t < len; ++t) {
            const float dx = xi - cx[q0 + t], dy = yi - cy[q0 + t], dz = zi - cz[q0 + t];
            hit[t] = dx * dx + dy * dy + dz * dz < r2max;
        }
        for (size_t t = 0; t < len; ++t) {
            out[k] = (uint32_t)(q0 + t);
            k += hit[t];
        }
    }
    return k;
}

/* The hits (eddy_sph_hits), then every array copied for the hits only, one short loop each. */
int eddy_sph_select(const eddy_sph_candidates *c, float xi, float yi, float zi, float r2max,
                    eddy_sph_candidates *near)
{
    if (near->extra_count != c->extra_count) { /* laid out for other arrays: start again */
        eddy_sph_candidates_free(near);
        near->extra_count = c->extra_count;
    }
    if (reserve(near, c->count)) return -1;
    uint32_t *sel = near->index; /* candidate positions of the hits, replaced by their indices last */
    const size_t k = eddy_sph_hits(c, xi, yi, zi, r2max, sel);
    float *dst[5 + EDDY_SPH_MAX_EXTRA];
    const float *src[5 + EDDY_SPH_MAX_EXTRA];
    int arrays = 0;
    dst[arrays] = near->x, src[arrays++] = c->x;
    dst[arrays] = near->y, src[arrays++] = c->y;
    dst[arrays] = near->z, src[arrays++] = c->z;
    dst[arrays] = near->m, src[arrays++] = c->m;
    for (int e = 0; e < c->extra_count; ++e) dst[arrays] = near->extra[e], src[arrays++] = c->extra[e];
    for (int a = 0; a < arrays; ++a) {
        float *restrict d = dst[a];
        const float *restrict s = src[a];
        for (size_t t = 0; t < k; ++t) d[t] = s[sel[t]];
    }
    const uint32_t *ci = c->index;
    for (size_t t = 0; t < k; ++t) sel[t] = ci[sel[t]];
    near->count = k;
    return 0;
}

const char *const eddy_sph_wall_velocity_choices[] = {"slip", "no_slip", NULL};

int eddy_sph_cell_near_walls(const eddy_boundaries *b, const eddy_grid *g, const eddy_particles *p, uint32_t c,
                             float reach)
{
    if (b->collider_count == 0) return 0;
    const uint32_t begin = g->cell_begin[c], end = g->cell_end[c];
    if (begin == end) return 0;
    const int dims = g->layout.dimensions;
    const float *pos[3] = {p->x, p->y, p->z};
    eddy_real centre[3] = {0.0f, 0.0f, 0.0f};
    float half2 = 0.0f, scale = 0.0f;
    for (int a = 0; a < dims; ++a) {
        float lo = pos[a][begin], hi = lo;
        for (uint32_t i = begin + 1; i < end; ++i) {
            lo = pos[a][i] < lo ? pos[a][i] : lo;
            hi = pos[a][i] > hi ? pos[a][i] : hi;
        }
        centre[a] = 0.5f * (lo + hi);
        half2 += 0.25f * (hi - lo) * (hi - lo);
        scale = fmaxf(scale, fmaxf(fabsf(lo), fabsf(hi)));
    }
    /* The margin covers the rounding of the distances here and in the mirror search (a few ulps of the
     * coordinates) and of the box's half diagonal. */
    const float clear = sqrtf(half2) * 1.0001f + reach * 1.001f + 1e-5f * scale;
    for (size_t k = 0; k < b->collider_count; ++k) {
        const float d = eddy_hd_collider_distance(&b->colliders[k], dims, centre, NULL);
        if (!(d > clear)) return 1; /* signed: a box inside a solid answers 1, as when it cannot tell */
    }
    return 0;
}

int eddy_sph_images(const eddy_boundaries *b, const float gravity[3], float reach, float xi, float yi,
                    float zi, eddy_sph_image out[EDDY_MAX_MIRRORS])
{
    return eddy_sph_wall_images(b, gravity, reach, EDDY_SPH_WALL_SLIP, xi, yi, zi, out);
}

int eddy_sph_wall_images(const eddy_boundaries *b, const float gravity[3], float reach, eddy_sph_wall_velocity wall,
                         float xi, float yi, float zi, eddy_sph_image out[EDDY_MAX_MIRRORS])
{
    static const float zero[3] = {0.0f, 0.0f, 0.0f};
    const float pos[3] = {xi, yi, zi};
    eddy_mirror m[EDDY_MAX_MIRRORS];
    const int n = eddy_boundaries_mirrors(b, gravity ? gravity : zero, reach, pos, m);
    for (int i = 0; i < n; ++i) eddy_sph_image_make(&m[i], xi, yi, zi, &out[i]);
    if (wall != EDDY_SPH_WALL_NO_SLIP || n == 0) return n;
    /* The mirror carries only the walls' normal velocity (all a free-slip ghost needs); a no-slip ghost
     * needs each wall's whole velocity. Mirror mask - 1 composes the walls whose bits mask sets. */
    size_t walls[EDDY_MAX_MIRROR_WALLS];
    const int nw = eddy_boundaries_mirror_walls(b, reach, pos, walls);
    float vel[EDDY_MAX_MIRROR_WALLS][3];
    for (int k = 0; k < nw; ++k)
        for (int a = 0; a < 3; ++a) vel[k][a] = b->colliders[walls[k]].velocity[a];
    for (int mask = 1; mask <= n; ++mask) {
        /* Each reflection maps the ghost velocity u to 2 v_wall - u, in the core's wall order. */
        float sign = 1.0f, off[3] = {0.0f, 0.0f, 0.0f};
        for (int k = 0; k < nw; ++k) {
            if (!(mask & (1 << k))) continue;
            sign = -sign;
            for (int a = 0; a < 3; ++a) off[a] = 2.0f * vel[k][a] - off[a];
        }
        eddy_sph_image *g = &out[mask - 1];
        for (int a = 0; a < 3; ++a) {
            for (int c = 0; c < 3; ++c) g->vr[a][c] = a == c ? sign : 0.0f;
            g->v[a] = off[a];
        }
    }
    return n;
}
