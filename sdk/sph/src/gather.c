/* Candidate gather and mirror images (eddy_sph/gather.h). */
#include <eddy_sph/gather.h>

#include <eddy_sph/simd_path.h>

#include <eddy/boundary_math.h>

#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* Eight particles first .. first + 7, of which those whose bits are set in mask are the candidates
 * at .. at + popcount(mask) - 1. */
struct eddy_sph_group {
    uint32_t first;
    uint32_t at;
    uint32_t mask;
};

/* Groups of eight start at each range's first particle (the gather's blocks are multiples of eight),
 * so a range of n particles has at most n / 8 + 1. */
static size_t group_capacity(size_t cap) { return cap / 8 + EDDY_MAX_CELL_RANGES + 1; }

/* One aligned block for every array and the groups, so a grown buffer costs one allocation. */
static int reserve(eddy_sph_candidates *c, size_t n)
{
    if (n <= c->capacity) return 0;
    size_t cap = n + n / 2 + 64;
    cap = (cap + 15) & ~(size_t)15; /* every array 64-byte aligned */
    const size_t arrays = 5 + (size_t)c->extra_count;
    const size_t group_bytes = group_capacity(cap) * sizeof(struct eddy_sph_group);
    void *block = aligned_alloc(64, cap * arrays * sizeof(float) + ((group_bytes + 63) & ~(size_t)63));
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
    c->group = (struct eddy_sph_group *)(f + arrays * cap);
    c->group_count = 0;
    c->grouped_count = SIZE_MAX;
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
/* Entry m: the positions of the set bits of the 8-bit mask m, in order, one per nibble (the lane
 * permutation that packs eight lanes' flagged values to the front). tests/sdk_sph meets every entry. */
static const uint32_t pack_order[256] = {
    0x00000000, 0x00000000, 0x00000001, 0x00000010, 0x00000002, 0x00000020, 0x00000021, 0x00000210,
    0x00000003, 0x00000030, 0x00000031, 0x00000310, 0x00000032, 0x00000320, 0x00000321, 0x00003210,
    0x00000004, 0x00000040, 0x00000041, 0x00000410, 0x00000042, 0x00000420, 0x00000421, 0x00004210,
    0x00000043, 0x00000430, 0x00000431, 0x00004310, 0x00000432, 0x00004320, 0x00004321, 0x00043210,
    0x00000005, 0x00000050, 0x00000051, 0x00000510, 0x00000052, 0x00000520, 0x00000521, 0x00005210,
    0x00000053, 0x00000530, 0x00000531, 0x00005310, 0x00000532, 0x00005320, 0x00005321, 0x00053210,
    0x00000054, 0x00000540, 0x00000541, 0x00005410, 0x00000542, 0x00005420, 0x00005421, 0x00054210,
    0x00000543, 0x00005430, 0x00005431, 0x00054310, 0x00005432, 0x00054320, 0x00054321, 0x00543210,
    0x00000006, 0x00000060, 0x00000061, 0x00000610, 0x00000062, 0x00000620, 0x00000621, 0x00006210,
    0x00000063, 0x00000630, 0x00000631, 0x00006310, 0x00000632, 0x00006320, 0x00006321, 0x00063210,
    0x00000064, 0x00000640, 0x00000641, 0x00006410, 0x00000642, 0x00006420, 0x00006421, 0x00064210,
    0x00000643, 0x00006430, 0x00006431, 0x00064310, 0x00006432, 0x00064320, 0x00064321, 0x00643210,
    0x00000065, 0x00000650, 0x00000651, 0x00006510, 0x00000652, 0x00006520, 0x00006521, 0x00065210,
    0x00000653, 0x00006530, 0x00006531, 0x00065310, 0x00006532, 0x00065320, 0x00065321, 0x00653210,
    0x00000654, 0x00006540, 0x00006541, 0x00065410, 0x00006542, 0x00065420, 0x00065421, 0x00654210,
    0x00006543, 0x00065430, 0x00065431, 0x00654310, 0x00065432, 0x00654320, 0x00654321, 0x06543210,
    0x00000007, 0x00000070, 0x00000071, 0x00000710, 0x00000072, 0x00000720, 0x00000721, 0x00007210,
    0x00000073, 0x00000730, 0x00000731, 0x00007310, 0x00000732, 0x00007320, 0x00007321, 0x00073210,
    0x00000074, 0x00000740, 0x00000741, 0x00007410, 0x00000742, 0x00007420, 0x00007421, 0x00074210,
    0x00000743, 0x00007430, 0x00007431, 0x00074310, 0x00007432, 0x00074320, 0x00074321, 0x00743210,
    0x00000075, 0x00000750, 0x00000751, 0x00007510, 0x00000752, 0x00007520, 0x00007521, 0x00075210,
    0x00000753, 0x00007530, 0x00007531, 0x00075310, 0x00007532, 0x00075320, 0x00075321, 0x00753210,
    0x00000754, 0x00007540, 0x00007541, 0x00075410, 0x00007542, 0x00075420, 0x00075421, 0x00754210,
    0x00007543, 0x00075430, 0x00075431, 0x00754310, 0x00075432, 0x00754320, 0x00754321, 0x07543210,
    0x00000076, 0x00000760, 0x00000761, 0x00007610, 0x00000762, 0x00007620, 0x00007621, 0x00076210,
    0x00000763, 0x00007630, 0x00007631, 0x00076310, 0x00007632, 0x00076320, 0x00076321, 0x00763210,
    0x00000764, 0x00007640, 0x00007641, 0x00076410, 0x00007642, 0x00076420, 0x00076421, 0x00764210,
    0x00007643, 0x00076430, 0x00076431, 0x00764310, 0x00076432, 0x00764320, 0x00764321, 0x07643210,
    0x00000765, 0x00007650, 0x00007651, 0x00076510, 0x00007652, 0x00076520, 0x00076521, 0x00765210,
    0x00007653, 0x00076530, 0x00076531, 0x00765310, 0x00076532, 0x00765320, 0x00765321, 0x07653210,
    0x00007654, 0x00076540, 0x00076541, 0x00765410, 0x00076542, 0x00765420, 0x00765421, 0x07654210,
    0x00076543, 0x00765430, 0x00765431, 0x07654310, 0x00765432, 0x07654320, 0x07654321, 0x76543210,
};

/* The permutation that packs the lanes whose bits are set in m to the front (the rest read lane 0). */
EDDY_SPH_TARGET_AVX2 static inline __attribute__((always_inline)) __m256i lane_order(unsigned m)
{
    const __m256i nibble = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    return _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)pack_order[m]), nibble), _mm256_set1_epi32(7));
}

/* The mask of eight 0/1 flags, and the permutation that packs the flagged lanes to the front. */
EDDY_SPH_TARGET_AVX2 static inline __attribute__((always_inline)) __m256i pack_lanes(const uint32_t *flag,
                                                                                     unsigned *mask)
{
    const __m256i f = _mm256_loadu_si256((const __m256i *)flag);
    const unsigned m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_sub_epi32(_mm256_setzero_si256(), f)));
    *mask = m;
    return lane_order(m);
}

/* Eight flags at a time: one permutation and one unaligned store per array; the lanes past the count
 * are overwritten by the next store, or lie past the count within what the caller provides (a full
 * group of eight writes below the group's own last position). */
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
    /* Locals, so the stores (which may alias anything) do not make the pointers reload. */
    uint32_t *index = c->index;
    float *cx = c->x, *cy = c->y, *cz = c->z, *cm = c->m;
    const float *px = s->x, *py = s->y, *pz = s->z, *pm = s->m;
    struct eddy_sph_group *group = c->group;
    size_t ng = c->group_count;
    uint32_t t = 0;
    for (; t + 8 <= len; t += 8) {
        unsigned m;
        const __m256i lane = pack_lanes(flag + t, &m);
        const uint32_t j = s->first + t;
        _mm256_storeu_si256((__m256i *)(index + k), _mm256_add_epi32(lane, _mm256_set1_epi32((int)j)));
        _mm256_storeu_ps(cx + k, _mm256_permutevar8x32_ps(_mm256_add_ps(_mm256_loadu_ps(px + j), sx), lane));
        _mm256_storeu_ps(cy + k, _mm256_permutevar8x32_ps(_mm256_add_ps(_mm256_loadu_ps(py + j), sy), lane));
        _mm256_storeu_ps(cz + k, _mm256_permutevar8x32_ps(_mm256_add_ps(_mm256_loadu_ps(pz + j), sz), lane));
        _mm256_storeu_ps(cm + k, _mm256_permutevar8x32_ps(_mm256_loadu_ps(pm + j), lane));
        /* Recorded unconditionally and kept when any lane is (no branch on the flags). */
        group[ng] = (struct eddy_sph_group){j, (uint32_t)k, m};
        ng += m != 0;
        k += (size_t)__builtin_popcount(m);
    }
    if (t < len) {
        /* The last len - t particles, as the top lanes of the eight that end with them: rows stay
         * whole, reading particles before the range that no lane keeps. Not before particle 0: then
         * the buffer has no groups (the copies go through the indices). */
        const uint32_t end = s->first + len, rest = len - t;
        unsigned m = 0;
        for (uint32_t u = t; u < len; ++u) m |= flag[u] << (u - t);
        if (end >= 8) {
            group[ng] = (struct eddy_sph_group){end - 8, (uint32_t)k, m << (8 - rest)};
            ng += m != 0;
        } else {
            c->grouped_count = SIZE_MAX;
        }
    }
    c->group_count = ng;
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
    c->group_count = 0;
    c->grouped_count = 0;
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
    /* Only the wide path records groups, and none when a range's last, partial group would start
     * before particle 0 (a range that ends below 8, keep_avx2). */
    c->grouped_count = keep == keep_baseline || c->grouped_count == SIZE_MAX ? SIZE_MAX : k;
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

/* The path: EDDY_SIMD's, or the default (avx2 where the CPU runs it), looked up at the first call in
 * the process; a value the CPU cannot run leaves the default (a solver's create refuses it). Unlike a
 * solver, which picks at each create, this does not follow later changes of EDDY_SIMD: both paths
 * give the same results. Threads that race at the first call store the same value. */
static atomic_int gather_path = -1;

static int path_wide(void)
{
    int wide = atomic_load_explicit(&gather_path, memory_order_relaxed);
    if (wide < 0) {
        eddy_sph_simd s;
        if (eddy_sph_simd_select(&s, NULL) != EDDY_OK) s = eddy_sph_simd_default();
        wide = EDDY_SPH_SIMD_X86 && s >= EDDY_SPH_SIMD_AVX2;
        atomic_store_explicit(&gather_path, wide, memory_order_relaxed);
    }
    return wide;
}

eddy_sph_simd eddy_sph_gather_simd(void)
{
    return path_wide() ? EDDY_SPH_SIMD_AVX2 : EDDY_SPH_SIMD_BASELINE;
}

int eddy_sph_gather(eddy_sph_candidates *c, const eddy_grid *g, const eddy_particles *p, uint32_t cell)
{
#if EDDY_SPH_SIMD_X86
    if (path_wide()) return gather_avx2(c, g, p, cell);
#endif
    return gather_baseline(c, g, p, cell);
}

size_t eddy_sph_hits(const eddy_sph_candidates *c, float xi, float yi, float zi, float r2max, uint32_t *out)
{
#if EDDY_SPH_SIMD_X86
    if (path_wide()) return hits_avx2(c, xi, yi, zi, r2max, out);
#endif
    return hits_baseline(c, xi, yi, zi, r2max, out);
}

#if EDDY_SPH_SIMD_X86
/* Solver arrays of the candidates from the gather's groups: each group's permutation made once, then
 * for every array its row of eight particles loaded at once and packed as the gather packed the
 * positions. The same values as the copies through the indices. */
EDDY_SPH_TARGET_AVX2 static void fields_avx2(const eddy_sph_candidates *c, int n, float *const dst[],
                                             const float *const src[])
{
    const struct eddy_sph_group *group = c->group;
    for (size_t i = 0, ng = c->group_count; i < ng; ++i) {
        const struct eddy_sph_group g = group[i];
        assert(c->index[g.at] == g.first + (uint32_t)__builtin_ctz(g.mask)); /* the groups describe the buffer */
        const __m256i order = lane_order(g.mask);
        for (int f = 0; f < n; ++f)
            _mm256_storeu_ps(dst[f] + g.at, _mm256_permutevar8x32_ps(_mm256_loadu_ps(src[f] + g.first), order));
    }
}
#endif

void eddy_sph_gather_fields(eddy_sph_candidates *c, int n, const int slot[], const float *const src[])
{
    if (n > EDDY_SPH_MAX_EXTRA) { /* more arrays than a buffer holds: slots repeat; copy in turn */
        for (int f0 = 0; f0 < n; f0 += EDDY_SPH_MAX_EXTRA) {
            const int m = n - f0 < EDDY_SPH_MAX_EXTRA ? n - f0 : EDDY_SPH_MAX_EXTRA;
            eddy_sph_gather_fields(c, m, slot + f0, src + f0);
        }
        return;
    }
    float *dst[EDDY_SPH_MAX_EXTRA];
    for (int f = 0; f < n; ++f) {
        assert(slot[f] >= 0 && slot[f] < c->extra_count);
        dst[f] = c->extra[slot[f]];
    }
#if EDDY_SPH_SIMD_X86
    if (c->grouped_count == c->count && path_wide()) {
        fields_avx2(c, n, dst, src);
        return;
    }
#endif
    const uint32_t *restrict idx = c->index;
    for (int f = 0; f < n; ++f) {
        float *restrict d = dst[f];
        const float *restrict s = src[f];
        for (size_t q = 0, count = c->count; q < count; ++q) d[q] = s[idx[q]];
    }
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
    near->grouped_count = SIZE_MAX; /* a selection, not a gather: no rows to read */
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
