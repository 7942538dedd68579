/* Candidate gather and mirror images (eddy_sph/gather.h). */
#include <eddy_sph/gather.h>

#include <eddy_sph/simd_path.h>

#include <eddy/boundary_math.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#if EDDY_SPH_SIMD_X86
#include <immintrin.h>
#endif

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

/*
 * The gather and the hit selection are compiled twice, for the SSE2 baseline and for AVX2 (the path
 * EDDY_SIMD selects, <eddy_sph/simd_path.h>; AVX-512 runs the AVX2 code), from one always-inline body
 * each. In the baseline build they were 28-31% of sph_mueller's and tait's step and 11% of pbf's
 * (3D dam break, 100k particles): the tests ran 4 wide and the kept candidates were copied one float
 * at a time through their indices. Both paths keep the same candidates in the same order, and add the
 * same shifts, so they give the same results bit for bit.
 *
 * Each stage is free of branches on the data: a conditional store mispredicts on the ~30 hits among
 * ~80 candidates, in a pattern close to random.
 */

/* Where a block of candidates comes from: particles first .. first + len of one cell range, and the
 * range's periodic shift. */
typedef struct block_src {
    const float *x, *y, *z, *m;
    float sx, sy, sz;
    uint32_t first;
} block_src;

/* Appends the candidates of a block whose flag is set (flag[t] for particle first + t) to c at
 * position k: index, shifted position, mass; returns how many. Writes c's arrays at k .. k + len - 1
 * at most. */
typedef size_t (*keep_fn)(eddy_sph_candidates *c, size_t k, const uint32_t *flag, uint32_t len, const block_src *s);

/* Writes first + t for the set flags among flag[0 .. len), in order, to out; returns how many. Writes
 * out[0 .. len) at most. */
typedef size_t (*compact_fn)(const uint32_t *flag, uint32_t len, uint32_t first, uint32_t *out);

/* A store at every position and a count that advances on a set flag. */
static inline __attribute__((always_inline)) size_t compact_baseline(const uint32_t *flag, uint32_t len,
                                                                     uint32_t first, uint32_t *out)
{
    size_t k = 0;
    for (uint32_t t = 0; t < len; ++t) {
        out[k] = first + t;
        k += flag[t];
    }
    return k;
}

/* The indices compacted, then the kept particles' values copied through them. */
static inline __attribute__((always_inline)) size_t keep_baseline(eddy_sph_candidates *c, size_t k,
                                                                  const uint32_t *flag, uint32_t len,
                                                                  const block_src *s)
{
    uint32_t *restrict index = c->index + k;
    const size_t kept = compact_baseline(flag, len, s->first, index);
    float *restrict cx = c->x + k, *restrict cy = c->y + k, *restrict cz = c->z + k, *restrict cm = c->m + k;
    for (size_t t = 0; t < kept; ++t) {
        const uint32_t j = index[t];
        cx[t] = s->x[j] + s->sx;
        cy[t] = s->y[j] + s->sy;
        cz[t] = s->z[j] + s->sz;
        cm[t] = s->m[j];
    }
    return kept;
}

#if EDDY_SPH_SIMD_X86
/* The positions of the set bits of each 8-bit mask, in order, one per nibble (filled once, with the
 * path): the lane permutation that packs eight lanes' flagged values to the front. */
static uint32_t pack_order[256];

static void pack_order_fill(void)
{
    for (unsigned m = 0; m < 256; ++m) {
        uint32_t order = 0;
        unsigned k = 0;
        for (unsigned lane = 0; lane < 8; ++lane)
            if (m & (1u << lane)) order |= (uint32_t)lane << (4 * k++);
        pack_order[m] = order;
    }
}

/* The mask of eight 0/1 flags, and the permutation that packs the flagged lanes to the front. */
EDDY_SPH_TARGET_AVX2 static inline __attribute__((always_inline)) __m256i pack_lanes(const uint32_t *flag,
                                                                                     unsigned *mask)
{
    const __m256i f = _mm256_loadu_si256((const __m256i *)flag);
    const unsigned m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_sub_epi32(_mm256_setzero_si256(), f)));
    *mask = m;
    const __m256i nibble = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    return _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)pack_order[m]), nibble), _mm256_set1_epi32(7));
}

/* Eight flags at a time: one permutation and one unaligned store per array; the lanes past the count
 * are overwritten by the next store or lie past the end. */
EDDY_SPH_TARGET_AVX2 static inline __attribute__((always_inline)) size_t compact_avx2(const uint32_t *flag,
                                                                                     uint32_t len, uint32_t first,
                                                                                     uint32_t *out)
{
    size_t k = 0;
    uint32_t t = 0;
    for (; t + 8 <= len; t += 8) {
        unsigned m;
        const __m256i lane = pack_lanes(flag + t, &m);
        _mm256_storeu_si256((__m256i *)(out + k), _mm256_add_epi32(lane, _mm256_set1_epi32((int)(first + t))));
        k += (size_t)__builtin_popcount(m);
    }
    return k + compact_baseline(flag + t, len - t, first + t, out + k);
}

/* The block's values loaded eight in a row (not through the indices) and packed like the indices. */
EDDY_SPH_TARGET_AVX2 static inline __attribute__((always_inline)) size_t keep_avx2(eddy_sph_candidates *c, size_t k,
                                                                                  const uint32_t *flag, uint32_t len,
                                                                                  const block_src *s)
{
    const size_t k0 = k;
    const __m256 sx = _mm256_set1_ps(s->sx), sy = _mm256_set1_ps(s->sy), sz = _mm256_set1_ps(s->sz);
    uint32_t t = 0;
    for (; t + 8 <= len; t += 8) {
        unsigned m;
        const __m256i lane = pack_lanes(flag + t, &m);
        const uint32_t j = s->first + t;
        _mm256_storeu_si256((__m256i *)(c->index + k), _mm256_add_epi32(lane, _mm256_set1_epi32((int)j)));
        _mm256_storeu_ps(c->x + k, _mm256_permutevar8x32_ps(_mm256_add_ps(_mm256_loadu_ps(s->x + j), sx), lane));
        _mm256_storeu_ps(c->y + k, _mm256_permutevar8x32_ps(_mm256_add_ps(_mm256_loadu_ps(s->y + j), sy), lane));
        _mm256_storeu_ps(c->z + k, _mm256_permutevar8x32_ps(_mm256_add_ps(_mm256_loadu_ps(s->z + j), sz), lane));
        _mm256_storeu_ps(c->m + k, _mm256_permutevar8x32_ps(_mm256_loadu_ps(s->m + j), lane));
        k += (size_t)__builtin_popcount(m);
    }
    block_src rest = *s;
    rest.first += t;
    return k - k0 + keep_baseline(c, k, flag + t, len - t, &rest);
}
#endif

#define GATHER_BLOCK 256

/*
 * Per block of a range: the box test of each candidate in a SIMD loop (a flag each), then the kept
 * ones appended. The test sees each position exactly as the buffer will hold it (p + shift), so a
 * narrower box applied to the buffer later keeps a subset (eddy_sph_box_reaches).
 */
static inline __attribute__((always_inline)) int gather_body(eddy_sph_candidates *c, const eddy_grid *g,
                                                             const eddy_particles *p, uint32_t cell, keep_fn keep)
{
    eddy_range r[EDDY_MAX_CELL_RANGES];
    const int nr = eddy_grid_cell_ranges(g, cell, r);
    size_t n = 0;
    for (int q = 0; q < nr; ++q) n += r[q].end - r[q].begin;
    if (reserve(c, n)) return -1;
    eddy_sph_box box = eddy_sph_box_empty(&g->layout);
    for (uint32_t i = g->cell_begin[cell]; i < g->cell_end[cell]; ++i) eddy_sph_box_add(&box, p->x[i], p->y[i], p->z[i]);
    uint32_t flag[GATHER_BLOCK];
    size_t k = 0;
    for (int q = 0; q < nr; ++q) {
        block_src s = {p->x, p->y, p->z, p->mass, r[q].shift[0], r[q].shift[1], r[q].shift[2], 0};
        for (uint32_t j0 = r[q].begin; j0 < r[q].end; j0 += GATHER_BLOCK) {
            const uint32_t len = r[q].end - j0 < GATHER_BLOCK ? r[q].end - j0 : GATHER_BLOCK;
            /* Offset pointers: px[j0 + t] with 32-bit j0 + t may wrap, and GCC then loaded lane by lane. */
            const float *bx = s.x + j0, *by = s.y + j0, *bz = s.z + j0;
            for (size_t t = 0; t < len; ++t)
                flag[t] = eddy_sph_box_reaches(&box, bx[t] + s.sx, by[t] + s.sy, bz[t] + s.sz);
            s.first = j0;
            k += keep(c, k, flag, len, &s);
        }
    }
    c->count = k;
    return 0;
}

/* Per block: the distance tests write a flag per candidate in a SIMD loop, then the positions of the
 * hits are compacted. The same entries in the same order as one conditional loop. */
#define HITS_BLOCK 64
static inline __attribute__((always_inline)) size_t hits_body(const eddy_sph_candidates *c, float xi, float yi,
                                                              float zi, float r2max, uint32_t *out,
                                                              compact_fn compact)
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
        k += compact(hit, (uint32_t)len, (uint32_t)q0, out + k);
    }
    return k;
}

static int gather_baseline(eddy_sph_candidates *c, const eddy_grid *g, const eddy_particles *p, uint32_t cell)
{
    return gather_body(c, g, p, cell, keep_baseline);
}

static size_t hits_baseline(const eddy_sph_candidates *c, float xi, float yi, float zi, float r2max,
                            uint32_t *out)
{
    return hits_body(c, xi, yi, zi, r2max, out, compact_baseline);
}

#if EDDY_SPH_SIMD_X86
EDDY_SPH_TARGET_AVX2 static int gather_avx2(eddy_sph_candidates *c, const eddy_grid *g, const eddy_particles *p,
                                            uint32_t cell)
{
    return gather_body(c, g, p, cell, keep_avx2);
}

EDDY_SPH_TARGET_AVX2 static size_t hits_avx2(const eddy_sph_candidates *c, float xi, float yi, float zi,
                                             float r2max, uint32_t *out)
{
    return hits_body(c, xi, yi, zi, r2max, out, compact_avx2);
}
#endif

/* The path, picked once per process as the solvers pick theirs (an EDDY_SIMD the CPU cannot run is
 * refused by the solver's create; here it leaves the default). */
static struct {
    int (*gather)(eddy_sph_candidates *, const eddy_grid *, const eddy_particles *, uint32_t);
    size_t (*hits)(const eddy_sph_candidates *, float, float, float, float, uint32_t *);
} path = {gather_baseline, hits_baseline};
static pthread_once_t path_once = PTHREAD_ONCE_INIT;

static void path_pick(void)
{
#if EDDY_SPH_SIMD_X86
    eddy_error err;
    eddy_sph_simd s;
    if (eddy_sph_simd_select(&s, &err) != EDDY_OK) s = eddy_sph_simd_default();
    if (s >= EDDY_SPH_SIMD_AVX2) {
        pack_order_fill();
        path.gather = gather_avx2;
        path.hits = hits_avx2;
    }
#endif
}

int eddy_sph_gather(eddy_sph_candidates *c, const eddy_grid *g, const eddy_particles *p, uint32_t cell)
{
    pthread_once(&path_once, path_pick);
    return path.gather(c, g, p, cell);
}

size_t eddy_sph_hits(const eddy_sph_candidates *c, float xi, float yi, float zi, float r2max, uint32_t *out)
{
    pthread_once(&path_once, path_pick);
    return path.hits(c, xi, yi, zi, r2max, out);
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
