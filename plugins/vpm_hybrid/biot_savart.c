/*
 * Regularized Biot–Savart sums, direct and Barnes–Hut (biot_savart.h has the formulas and contracts).
 *
 * Far-field expansions (3D). With R = x - c, r = |R|, G = 1/r and its derivatives G_a, G_ab, ... at R,
 * the vector potential of a cell is psi_k = (1/4 pi) (M0_k G - M1_kb G_b + 1/2 M2_kbc G_bc), where
 * M0_k = sum alpha_k, M1_kb = sum alpha_k y_b, M2_kbc = sum alpha_k y_b y_c and y = x_j - c (Taylor
 * expansion of 1/|R - y|). Then u_i = eps_ijk d_j psi_k and d_l u_i = eps_ijk d_l d_j psi_k, which needs
 * G up to its third (velocity) and fourth (gradient) derivatives:
 *   G_a    = -R_a / r^3
 *   G_ab   = 3 R_a R_b / r^5 - delta_ab / r^3
 *   G_abc  = -15 R_a R_b R_c / r^7 + 3 (delta_ab R_c + delta_ac R_b + delta_bc R_a) / r^5
 *   G_abcd = 105 R_a R_b R_c R_d / r^9 - 15 (6 terms delta R R) / r^7 + 3 (3 terms delta delta) / r^5
 * contracted with the moments in closed form below. 2D uses the stream function
 * psi = -(1/2 pi) sum Gamma_j ln|x - x_j| expanded the same way (u_x = d_y psi, u_y = -d_x psi).
 */
#include "biot_savart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BS_PI 3.14159265358979323846
#define BS_MAX_DEPTH 40
#define BS_STACK 512

typedef struct bs_node {
    float c[3];      /* expansion centre */
    float rad;       /* largest distance of a source from c */
    float m0[3];     /* 3D: sum alpha; 2D: m0[0] = sum Gamma */
    float m1[9];     /* 3D: M1[3k + b]; 2D: D_b in m1[0..1] */
    float m2[18];    /* 3D: M2[6k + (xx, xy, xz, yy, yz, zz)]; 2D: Q in m2[0..2] (xx, xy, yy) */
    uint32_t begin, end;
    int32_t first_child, child_count;
} bs_node;

/* ---------------------------------------------------------------------------------------------- */
/* Kernels                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

typedef struct eval_ctx {
    int dims;
    float sigma2, inv_s2, c3, c5; /* kernel constants */
    float theta2;
    float rcut, rc2;              /* BS_FAR_CORES sigma and its square */
} eval_ctx;

/*
 * exp(x) for -80 <= x <= 0 without a library call, so that the loops using it vectorize (SSE2 is
 * enough): 2^k e^r with k the integer nearest x / ln 2, r = x - k ln 2 (Cody–Waite split of ln 2) in
 * [-ln2/2, ln2/2], e^r by its degree-6 Taylor polynomial; relative error below 2e-7.
 */
static inline float exp_neg(float x)
{
    x = x > -80.0f ? x : -80.0f;
    const int k = (int)(x * 1.44269504088896341f - 0.5f); /* truncation of a value <= 0.5: nearest */
    const float kf = (float)k;
    const float r = (x - kf * 0.693145751953125f) - kf * 1.42860682030941723212e-6f;
    const float e_r = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6.0f + r * (1.0f / 24.0f + r * (1.0f / 120.0f + r * (1.0f / 720.0f))))));
    union { int32_t i; float f; } two_k;
    two_k.i = (k + 127) << 23;
    return e_r * two_k.f;
}

/*
 * 3D Gaussian blob: u = K(r) alpha x R / 4 pi, d_l u_i = (F(r) R_l (alpha x R)_i + K eps_ipl alpha_p) / 4 pi
 * with K = q(rho) / r^3 and F = K'(r) / r = (sqrt(2/pi) rho^3 exp(-rho^2/2) - 3 q) / r^5, rho = r / sigma.
 * Three regimes, computed branch-free and selected (so that a loop over pairs vectorizes):
 *  - rho < 1/2: both are differences of nearly equal numbers; their series (from q' = sqrt(2/pi) rho^2
 *    exp(-rho^2/2)):
 *      K = sqrt(2/pi) / sigma^3 (1/3 - rho^2/10 + rho^4/56 - rho^6/432 + rho^8/4224)
 *      F = sqrt(2/pi) / sigma^5 (-1/5 + rho^2/14 - rho^4/72 + rho^6/528 - rho^8/4992);
 *  - 1/2 <= rho < BS_FAR_CORES: the closed form, with erf(rho / sqrt 2) by Abramowitz & Stegun 7.1.26
 *    (absolute error below 1.5e-7), which reuses the exponential that q needs anyway;
 *  - beyond: the point vortex, K = 1 / r^3, F = -3 / r^5.
 */
typedef struct kf { float K, F; } kf;

static inline kf kernel3(const eval_ctx *ec, float r2)
{
    const float p2 = r2 * ec->inv_s2;
    const float Ks = ec->c3 * (1.0f / 3.0f + p2 * (-0.1f + p2 * (1.0f / 56.0f + p2 * (-1.0f / 432.0f + p2 * (1.0f / 4224.0f)))));
    const float Fs = ec->c5 * (-0.2f + p2 * (1.0f / 14.0f + p2 * (-1.0f / 72.0f + p2 * (1.0f / 528.0f + p2 * (-1.0f / 4992.0f)))));
    const float r2m = r2 > 0.25f * ec->sigma2 ? r2 : 0.25f * ec->sigma2;
    const float p2m = r2m * ec->inv_s2;
    const float inv = 1.0f / sqrtf(r2m), i2 = inv * inv, i3 = i2 * inv;
    const float rho = sqrtf(p2m), e = exp_neg(-0.5f * p2m);
    const float t = 1.0f / (1.0f + 0.3275911f * 0.70710678118654752440f * rho);
    const float erfc_ = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f)))) * e;
    const float g = 0.79788456080286535588f * rho * e; /* sqrt(2/pi) rho exp(-rho^2/2) */
    const float q = (1.0f - erfc_) - g;
    const int series = p2 < 0.25f, far = p2 >= BS_FAR_CORES * BS_FAR_CORES;
    kf out;
    out.K = series ? Ks : far ? i3 : q * i3;
    out.F = series ? Fs : far ? -3.0f * i3 * i2 : (g * p2m - 3.0f * q) * i3 * i2;
    return out;
}

/* 2D Gaussian blob: u = K2(r) Gamma e_z x R / 2 pi, K2 = (1 - exp(-y)) / r^2 with y = r^2 / 2 sigma^2;
 * for y < 0.1 its series (1 / 2 sigma^2)(1 - y/2 + y^2/6 - y^3/24 + y^4/120); 1 / r^2 beyond
 * BS_FAR_CORES sigma. Branch-free. */
static inline float kernel2(const eval_ctx *ec, float r2)
{
    const float y = 0.5f * r2 * ec->inv_s2;
    const float Ks = 0.5f * ec->inv_s2 * (1.0f + y * (-0.5f + y * (1.0f / 6.0f + y * (-1.0f / 24.0f + y * (1.0f / 120.0f)))));
    const float r2m = r2 > 0.2f * ec->sigma2 ? r2 : 0.2f * ec->sigma2;
    const float inv2 = 1.0f / r2m;
    const float Km = (1.0f - exp_neg(-0.5f * r2m * ec->inv_s2)) * inv2;
    return y < 0.1f ? Ks : r2 >= ec->rc2 ? inv2 : Km;
}

/* ---------------------------------------------------------------------------------------------- */
/* Tree build                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

static int reserve(bs_workspace *ws, size_t n)
{
    if (n <= ws->capacity) return 0;
    size_t cap = n + n / 2 + 64;
    float **arrays[] = {&ws->sx, &ws->sy, &ws->sz, &ws->sax, &ws->say, &ws->saz};
    for (size_t a = 0; a < sizeof arrays / sizeof *arrays; ++a) {
        float *p = realloc(*arrays[a], cap * sizeof(float));
        if (!p) return -1;
        *arrays[a] = p;
    }
    uint32_t *o = realloc(ws->order, cap * sizeof(uint32_t));
    if (!o) return -1;
    ws->order = o;
    o = realloc(ws->scratch, cap * sizeof(uint32_t));
    if (!o) return -1;
    ws->scratch = o;
    ws->capacity = cap;
    return 0;
}

static int32_t new_nodes(bs_workspace *ws, int32_t count)
{
    if (ws->node_count + (size_t)count > ws->node_capacity) {
        size_t cap = (ws->node_count + (size_t)count) * 2 + 64;
        bs_node *p = realloc(ws->nodes, cap * sizeof *p);
        if (!p) return -1;
        ws->nodes = p;
        ws->node_capacity = cap;
    }
    int32_t first = (int32_t)ws->node_count;
    ws->node_count += (size_t)count;
    memset(ws->nodes + first, 0, (size_t)count * sizeof(bs_node));
    return first;
}

/* Centre, radius and moments of a node from its sources (already in tree order in ws->s*). */
static void node_moments(bs_workspace *ws, bs_node *nd, int dims, const double box_centre[3])
{
    double wsum = 0.0, c[3] = {0.0, 0.0, 0.0};
    for (uint32_t k = nd->begin; k < nd->end; ++k) {
        double a = dims == 3 ? sqrt((double)ws->sax[k] * ws->sax[k] + (double)ws->say[k] * ws->say[k] +
                                    (double)ws->saz[k] * ws->saz[k])
                             : fabs((double)ws->saz[k]);
        wsum += a;
        c[0] += a * ws->sx[k];
        c[1] += a * ws->sy[k];
        c[2] += a * ws->sz[k];
    }
    for (int a = 0; a < 3; ++a) c[a] = wsum > 0.0 ? c[a] / wsum : box_centre[a];
    if (dims == 2) c[2] = 0.0;
    double m0[3] = {0}, m1[9] = {0}, m2[18] = {0}, rad2 = 0.0;
    for (uint32_t k = nd->begin; k < nd->end; ++k) {
        const double y[3] = {ws->sx[k] - c[0], ws->sy[k] - c[1], dims == 3 ? ws->sz[k] - c[2] : 0.0};
        const double al[3] = {ws->sax[k], ws->say[k], ws->saz[k]};
        double d2 = y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
        rad2 = d2 > rad2 ? d2 : rad2;
        if (dims == 2) {
            const double G = al[2];
            m0[0] += G;
            m1[0] += G * y[0];
            m1[1] += G * y[1];
            m2[0] += G * y[0] * y[0];
            m2[1] += G * y[0] * y[1];
            m2[2] += G * y[1] * y[1];
            continue;
        }
        for (int kk = 0; kk < 3; ++kk) {
            m0[kk] += al[kk];
            for (int b = 0; b < 3; ++b) m1[3 * kk + b] += al[kk] * y[b];
            m2[6 * kk + 0] += al[kk] * y[0] * y[0];
            m2[6 * kk + 1] += al[kk] * y[0] * y[1];
            m2[6 * kk + 2] += al[kk] * y[0] * y[2];
            m2[6 * kk + 3] += al[kk] * y[1] * y[1];
            m2[6 * kk + 4] += al[kk] * y[1] * y[2];
            m2[6 * kk + 5] += al[kk] * y[2] * y[2];
        }
    }
    for (int a = 0; a < 3; ++a) nd->c[a] = (float)c[a], nd->m0[a] = (float)m0[a];
    for (int a = 0; a < 9; ++a) nd->m1[a] = (float)m1[a];
    for (int a = 0; a < 18; ++a) nd->m2[a] = (float)m2[a];
    /* Rounded up so that the acceptance test stays conservative after the float conversion. */
    nd->rad = (float)(sqrt(rad2) * (1.0 + 1e-6));
}

/*
 * Splits node `ni` (sources [begin, end) of ws->order, box centre `bc`, half size `half`) into octants
 * (quadrants in 2D) until a cell holds at most leaf_size sources. Children of a node are contiguous.
 */
static int build_node(bs_workspace *ws, const bs_sources *src, int32_t ni, const double bc[3], double half,
                      int depth, int dims, int leaf_size)
{
    bs_node *nd = &ws->nodes[ni];
    const uint32_t begin = nd->begin, end = nd->end;
    for (uint32_t k = begin; k < end; ++k) {
        uint32_t j = ws->order[k];
        ws->sx[k] = src->x[j];
        ws->sy[k] = src->y[j];
        ws->sz[k] = dims == 3 ? src->z[j] : 0.0f;
        ws->sax[k] = dims == 3 ? src->ax[j] : 0.0f;
        ws->say[k] = dims == 3 ? src->ay[j] : 0.0f;
        ws->saz[k] = src->az[j];
    }
    node_moments(ws, nd, dims, bc);
    nd->first_child = -1;
    nd->child_count = 0;
    if (end - begin <= (uint32_t)leaf_size || depth >= BS_MAX_DEPTH || !(half > 0.0)) return 0;

    const int nocts = dims == 3 ? 8 : 4;
    uint32_t count[8] = {0}, start[8];
    for (uint32_t k = begin; k < end; ++k) {
        uint32_t j = ws->order[k];
        int o = (src->x[j] >= bc[0]) | ((src->y[j] >= bc[1]) << 1);
        if (dims == 3) o |= (src->z[j] >= bc[2]) << 2;
        ws->scratch[k] = (uint32_t)o;
        count[o]++;
    }
    int used = 0;
    for (int o = 0; o < nocts; ++o) used += count[o] > 0;
    /* Stable counting sort of the range by octant. */
    uint32_t pos = begin;
    for (int o = 0; o < nocts; ++o) start[o] = pos, pos += count[o];
    uint32_t *tmp = malloc((size_t)(end - begin) * sizeof(uint32_t));
    if (!tmp) return -1;
    uint32_t fill[8];
    memcpy(fill, start, sizeof fill);
    for (uint32_t k = begin; k < end; ++k) tmp[fill[ws->scratch[k]]++ - begin] = ws->order[k];
    memcpy(ws->order + begin, tmp, (size_t)(end - begin) * sizeof(uint32_t));
    free(tmp);

    int32_t first = new_nodes(ws, used);
    if (first < 0) return -1;
    nd = &ws->nodes[ni]; /* the array may have moved */
    nd->first_child = first;
    nd->child_count = used;
    int32_t child = first;
    for (int o = 0; o < nocts; ++o) {
        if (!count[o]) continue;
        ws->nodes[child].begin = start[o];
        ws->nodes[child].end = start[o] + count[o];
        double cc[3] = {bc[0] + ((o & 1) ? 0.5 : -0.5) * half, bc[1] + ((o & 2) ? 0.5 : -0.5) * half,
                        dims == 3 ? bc[2] + ((o & 4) ? 0.5 : -0.5) * half : 0.0};
        if (build_node(ws, src, child, cc, 0.5 * half, depth + 1, dims, leaf_size)) return -1;
        ++child;
    }
    return 0;
}

static int build_tree(bs_workspace *ws, const bs_sources *src, int dims, int leaf_size)
{
    const size_t n = src->n;
    if (reserve(ws, n)) return -1;
    ws->node_count = 0;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t j = 0; j < n; ++j) {
        const double p[3] = {src->x[j], src->y[j], dims == 3 ? src->z[j] : 0.0};
        for (int a = 0; a < 3; ++a) {
            lo[a] = p[a] < lo[a] ? p[a] : lo[a];
            hi[a] = p[a] > hi[a] ? p[a] : hi[a];
        }
        ws->order[j] = (uint32_t)j;
    }
    double bc[3], half = 0.0;
    for (int a = 0; a < 3; ++a) {
        bc[a] = 0.5 * (lo[a] + hi[a]);
        half = 0.5 * (hi[a] - lo[a]) > half ? 0.5 * (hi[a] - lo[a]) : half;
    }
    half *= 1.0 + 1e-6;
    int32_t root = new_nodes(ws, 1);
    if (root < 0) return -1;
    ws->nodes[root].begin = 0;
    ws->nodes[root].end = (uint32_t)n;
    return build_node(ws, src, root, bc, half, 0, dims, leaf_size);
}

/* ---------------------------------------------------------------------------------------------- */
/* Evaluation                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

/* Far field of a 3D cell at R = x - c: adds 4 pi u to u[3] and 4 pi grad u to g[9] (if not NULL). */
static inline void far3(const bs_node *nd, const float R[3], float u[3], float *g)
{
    const float r2 = R[0] * R[0] + R[1] * R[1] + R[2] * R[2];
    const float inv = 1.0f / sqrtf(r2), i2 = inv * inv, i3 = i2 * inv, i5 = i3 * i2, i7 = i5 * i2;
    float Gj[3];
    for (int a = 0; a < 3; ++a) Gj[a] = -R[a] * i3;
    /* Per component k of the strength: M1_k . R, M2_k R, R . M2_k . R, trace M2_k. */
    float m1R[3], t[3][3], s[3], T[3];
    for (int k = 0; k < 3; ++k) {
        const float *M1 = nd->m1 + 3 * k, *M2 = nd->m2 + 6 * k;
        m1R[k] = M1[0] * R[0] + M1[1] * R[1] + M1[2] * R[2];
        t[k][0] = M2[0] * R[0] + M2[1] * R[1] + M2[2] * R[2];
        t[k][1] = M2[1] * R[0] + M2[3] * R[1] + M2[4] * R[2];
        t[k][2] = M2[2] * R[0] + M2[4] * R[1] + M2[5] * R[2];
        s[k] = t[k][0] * R[0] + t[k][1] * R[1] + t[k][2] * R[2];
        T[k] = M2[0] + M2[3] + M2[5];
    }
    /* V_jk = M0_k G_j - M1_kb G_jb + 1/2 M2_kbc G_jbc, and u_i = eps_ijk V_jk. */
    float V[3][3];
    for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) {
            const float dip = 3.0f * R[j] * m1R[k] * i5 - nd->m1[3 * k + j] * i3;
            const float quad = -15.0f * R[j] * s[k] * i7 + 3.0f * (2.0f * t[k][j] + R[j] * T[k]) * i5;
            V[j][k] = nd->m0[k] * Gj[j] - dip + 0.5f * quad;
        }
    u[0] += V[1][2] - V[2][1];
    u[1] += V[2][0] - V[0][2];
    u[2] += V[0][1] - V[1][0];
    if (!g) return;
    /* W_jkl = M0_k G_jl - M1_kb G_jbl + 1/2 M2_kbc G_jbcl, and d_l u_i = eps_ijk W_jkl. */
    const float i9 = i7 * i2;
    float W[3][3][3] = {{{0}}};
    for (int j = 0; j < 3; ++j)
        for (int l = 0; l < 3; ++l) {
            const float djl = j == l ? 1.0f : 0.0f;
            const float Gjl = 3.0f * R[j] * R[l] * i5 - djl * i3;
            for (int k = 0; k < 3; ++k) {
                if (k == j) continue; /* eps_ijk: only j != k is needed */
                const float *M1 = nd->m1 + 3 * k, *M2 = nd->m2 + 6 * k;
                static const int sym[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
                const float dip = -15.0f * R[j] * R[l] * m1R[k] * i7 +
                                  3.0f * (djl * m1R[k] + M1[j] * R[l] + M1[l] * R[j]) * i5;
                const float quad = 105.0f * R[j] * R[l] * s[k] * i9 -
                                   15.0f * (2.0f * t[k][j] * R[l] + djl * s[k] + T[k] * R[j] * R[l] +
                                            2.0f * R[j] * t[k][l]) * i7 +
                                   3.0f * (2.0f * M2[sym[j][l]] + djl * T[k]) * i5;
                W[j][k][l] = nd->m0[k] * Gjl - dip + 0.5f * quad;
            }
        }
    for (int l = 0; l < 3; ++l) {
        g[0 + l] += W[1][2][l] - W[2][1][l];
        g[3 + l] += W[2][0][l] - W[0][2][l];
        g[6 + l] += W[0][1][l] - W[1][0][l];
    }
}

/* Far field of a 2D cell: adds 2 pi u. E_a = Gamma0 L_a - D_b L_ab + 1/2 Q_bc L_abc, u = (-E_y, E_x). */
static inline void far2(const bs_node *nd, const float R[2], float u[2])
{
    const float r2 = R[0] * R[0] + R[1] * R[1];
    const float i2 = 1.0f / r2, i4 = i2 * i2, i6 = i4 * i2;
    const float G0 = nd->m0[0], D[2] = {nd->m1[0], nd->m1[1]};
    const float Q[2][2] = {{nd->m2[0], nd->m2[1]}, {nd->m2[1], nd->m2[2]}};
    const float DR = D[0] * R[0] + D[1] * R[1];
    const float QR[2] = {Q[0][0] * R[0] + Q[0][1] * R[1], Q[1][0] * R[0] + Q[1][1] * R[1]};
    const float RQR = QR[0] * R[0] + QR[1] * R[1], trQ = Q[0][0] + Q[1][1];
    float E[2];
    for (int a = 0; a < 2; ++a) {
        const float dip = D[a] * i2 - 2.0f * R[a] * DR * i4;
        const float quad = -2.0f * (2.0f * QR[a] + R[a] * trQ) * i4 + 8.0f * R[a] * RQR * i6;
        E[a] = G0 * R[a] * i2 - dip + 0.5f * quad;
    }
    u[0] -= E[1];
    u[1] += E[0];
}

/* Sources [b, e), all farther than BS_FAR_CORES sigma from the target: the point-vortex law. */
static inline void far_pairs3(const float *sx, const float *sy, const float *sz, const float *ax, const float *ay,
                              const float *az, size_t b, size_t e, const float x[3], float u[3], float *g)
{
    float u0 = 0, u1 = 0, u2 = 0;
    if (!g) {
#pragma omp simd reduction(+ : u0, u1, u2)
        for (size_t k = b; k < e; ++k) {
            const float R0 = x[0] - sx[k], R1 = x[1] - sy[k], R2 = x[2] - sz[k];
            const float inv = 1.0f / sqrtf(R0 * R0 + R1 * R1 + R2 * R2);
            const float K = inv * inv * inv;
            u0 += K * (ay[k] * R2 - az[k] * R1);
            u1 += K * (az[k] * R0 - ax[k] * R2);
            u2 += K * (ax[k] * R1 - ay[k] * R0);
        }
    } else {
        float g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0, g8 = 0;
#pragma omp simd reduction(+ : u0, u1, u2, g0, g1, g2, g3, g4, g5, g6, g7, g8)
        for (size_t k = b; k < e; ++k) {
            const float R0 = x[0] - sx[k], R1 = x[1] - sy[k], R2 = x[2] - sz[k];
            const float inv = 1.0f / sqrtf(R0 * R0 + R1 * R1 + R2 * R2);
            const float K = inv * inv * inv, F = -3.0f * K * inv * inv;
            const float a0 = ax[k], a1 = ay[k], a2 = az[k];
            const float c0 = a1 * R2 - a2 * R1, c1 = a2 * R0 - a0 * R2, c2 = a0 * R1 - a1 * R0;
            u0 += K * c0;
            u1 += K * c1;
            u2 += K * c2;
            g0 += F * R0 * c0;
            g1 += F * R1 * c0 - K * a2;
            g2 += F * R2 * c0 + K * a1;
            g3 += F * R0 * c1 + K * a2;
            g4 += F * R1 * c1;
            g5 += F * R2 * c1 - K * a0;
            g6 += F * R0 * c2 - K * a1;
            g7 += F * R1 * c2 + K * a0;
            g8 += F * R2 * c2;
        }
        g[0] += g0, g[1] += g1, g[2] += g2, g[3] += g3, g[4] += g4, g[5] += g5, g[6] += g6, g[7] += g7, g[8] += g8;
    }
    u[0] += u0, u[1] += u1, u[2] += u2;
}

/* Sources [b, e) at any distance: the Gaussian kernel (kernel3) in one branch-free SIMD loop. The same
 * body as far_pairs3 but for the kernel: one function with a constant point-law flag measured 2.8x slower
 * for the direct sum (GCC 12 -O3 does not split the inlined kernels into two vector loops). */
static inline void near_pairs3(const eval_ctx *ec, const float *sx, const float *sy, const float *sz,
                               const float *ax, const float *ay, const float *az, size_t b, size_t e,
                               const float x[3], float u[3], float *g)
{
    float u0 = 0, u1 = 0, u2 = 0;
    if (!g) {
#pragma omp simd reduction(+ : u0, u1, u2)
        for (size_t k = b; k < e; ++k) {
            const float R0 = x[0] - sx[k], R1 = x[1] - sy[k], R2 = x[2] - sz[k];
            const float K = kernel3(ec, R0 * R0 + R1 * R1 + R2 * R2).K;
            u0 += K * (ay[k] * R2 - az[k] * R1);
            u1 += K * (az[k] * R0 - ax[k] * R2);
            u2 += K * (ax[k] * R1 - ay[k] * R0);
        }
    } else {
        float g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0, g8 = 0;
#pragma omp simd reduction(+ : u0, u1, u2, g0, g1, g2, g3, g4, g5, g6, g7, g8)
        for (size_t k = b; k < e; ++k) {
            const float R0 = x[0] - sx[k], R1 = x[1] - sy[k], R2 = x[2] - sz[k];
            const kf kk = kernel3(ec, R0 * R0 + R1 * R1 + R2 * R2);
            const float K = kk.K, F = kk.F;
            const float a0 = ax[k], a1 = ay[k], a2 = az[k];
            const float c0 = a1 * R2 - a2 * R1, c1 = a2 * R0 - a0 * R2, c2 = a0 * R1 - a1 * R0;
            u0 += K * c0;
            u1 += K * c1;
            u2 += K * c2;
            g0 += F * R0 * c0;
            g1 += F * R1 * c0 - K * a2;
            g2 += F * R2 * c0 + K * a1;
            g3 += F * R0 * c1 + K * a2;
            g4 += F * R1 * c1;
            g5 += F * R2 * c1 - K * a0;
            g6 += F * R0 * c2 - K * a1;
            g7 += F * R1 * c2 + K * a0;
            g8 += F * R2 * c2;
        }
        g[0] += g0, g[1] += g1, g[2] += g2, g[3] += g3, g[4] += g4, g[5] += g5, g[6] += g6, g[7] += g7, g[8] += g8;
    }
    u[0] += u0, u[1] += u1, u[2] += u2;
}

/* 2D sources [b, e): u += K2 Gamma e_z x R (kernel2). */
static inline void pairs2(const eval_ctx *ec, const float *sx, const float *sy, const float *az, size_t b, size_t e,
                          const float x[2], float u[2])
{
    float u0 = 0, u1 = 0;
#pragma omp simd reduction(+ : u0, u1)
    for (size_t k = b; k < e; ++k) {
        const float R0 = x[0] - sx[k], R1 = x[1] - sy[k];
        const float K = az[k] * kernel2(ec, R0 * R0 + R1 * R1);
        u0 -= K * R1;
        u1 += K * R0;
    }
    u[0] += u0;
    u[1] += u1;
}

/* Squared distance from x to the box [lo, hi] (0 inside). */
static inline float box_dist2(const float x[3], const float lo[3], const float hi[3])
{
    float d2 = 0.0f;
    for (int a = 0; a < 3; ++a) {
        const float d = x[a] < lo[a] ? lo[a] - x[a] : x[a] > hi[a] ? x[a] - hi[a] : 0.0f;
        d2 += d * d;
    }
    return d2;
}

static void tree_target(const eval_ctx *ec, const bs_workspace *ws, const float x[3], float u[3], float *g)
{
    int32_t stack[BS_STACK];
    int top = 0;
    stack[top++] = 0;
    float uf[3] = {0, 0, 0}, gf[9] = {0}; /* far-field sums (times 4 pi or 2 pi) */
    while (top > 0) {
        const bs_node *nd = &ws->nodes[stack[--top]];
        const float R[3] = {x[0] - nd->c[0], x[1] - nd->c[1], ec->dims == 3 ? x[2] - nd->c[2] : 0.0f};
        const float r2 = R[0] * R[0] + R[1] * R[1] + R[2] * R[2];
        const float gap = sqrtf(r2) - nd->rad;
        if (nd->rad * nd->rad < ec->theta2 * r2 && gap > ec->rcut) {
            if (ec->dims == 3) far3(nd, R, uf, g ? gf : NULL);
            else far2(nd, R, uf);
            continue;
        }
        if (nd->first_child < 0 || top + nd->child_count > BS_STACK) {
            if (ec->dims == 2) pairs2(ec, ws->sx, ws->sy, ws->saz, nd->begin, nd->end, x, u);
            else if (gap > ec->rcut)
                far_pairs3(ws->sx, ws->sy, ws->sz, ws->sax, ws->say, ws->saz, nd->begin, nd->end, x, u, g);
            else near_pairs3(ec, ws->sx, ws->sy, ws->sz, ws->sax, ws->say, ws->saz, nd->begin, nd->end, x, u, g);
            continue;
        }
        /* Pushed in reverse so that children are visited in their stored order. */
        for (int32_t c = nd->child_count - 1; c >= 0; --c) stack[top++] = nd->first_child + c;
    }
    for (int a = 0; a < 3; ++a) u[a] += uf[a];
    if (g)
        for (int a = 0; a < 9; ++a) g[a] += gf[a];
}

/*
 * Direct summation over runs of BS_CHUNK consecutive sources (spatially coherent when the caller's
 * order is, e.g. the grid's): a run whose bounding box lies farther than BS_FAR_CORES sigma from the
 * target takes the cheap point-vortex loop, the others the Gaussian kernel. Same sum as one loop over
 * every source with kernel3, in a fixed order.
 */
#define BS_CHUNK 32

static int chunk_boxes(bs_workspace *ws, const bs_sources *src, int dims)
{
    const size_t nc = (src->n + BS_CHUNK - 1) / BS_CHUNK;
    if (nc > ws->chunk_capacity) {
        float *p = realloc(ws->chunk_box, nc * 6 * sizeof(float));
        if (!p) return -1;
        ws->chunk_box = p;
        ws->chunk_capacity = nc;
    }
    for (size_t c = 0; c < nc; ++c) {
        float *bx = ws->chunk_box + 6 * c;
        bx[0] = bx[1] = bx[2] = INFINITY;
        bx[3] = bx[4] = bx[5] = -INFINITY;
        const size_t e = (c + 1) * BS_CHUNK < src->n ? (c + 1) * BS_CHUNK : src->n;
        for (size_t k = c * BS_CHUNK; k < e; ++k) {
            const float p[3] = {src->x[k], src->y[k], dims == 3 ? src->z[k] : 0.0f};
            for (int a = 0; a < 3; ++a) {
                bx[a] = p[a] < bx[a] ? p[a] : bx[a];
                bx[3 + a] = p[a] > bx[3 + a] ? p[a] : bx[3 + a];
            }
        }
    }
    return 0;
}

static void direct_target(const eval_ctx *ec, const bs_workspace *ws, const bs_sources *src, const float x[3],
                          float u[3], float *g)
{
    const size_t nc = (src->n + BS_CHUNK - 1) / BS_CHUNK;
    for (size_t c = 0; c < nc; ++c) {
        const size_t b = c * BS_CHUNK, e = b + BS_CHUNK < src->n ? b + BS_CHUNK : src->n;
        const float *bx = ws->chunk_box + 6 * c;
        if (ec->dims == 2) pairs2(ec, src->x, src->y, src->az, b, e, x, u);
        else if (box_dist2(x, bx, bx + 3) > ec->rc2)
            far_pairs3(src->x, src->y, src->z, src->ax, src->ay, src->az, b, e, x, u, g);
        else near_pairs3(ec, src->x, src->y, src->z, src->ax, src->ay, src->az, b, e, x, u, g);
    }
}

int bs_evaluate(const bs_params *prm, const bs_sources *src, const bs_targets *tgt, bs_workspace *ws)
{
    const int dims = prm->dimensions;
    const int want_grad = dims == 3 && tgt->grad != NULL;
    const long long nt = (long long)tgt->n;
    if (src->n == 0) {
        for (long long t = 0; t < nt; ++t) {
            tgt->ux[t] = tgt->uy[t] = tgt->uz[t] = 0.0f;
            if (want_grad)
                for (int a = 0; a < 9; ++a) tgt->grad[a][t] = 0.0f;
        }
        return 0;
    }
    eval_ctx ec;
    ec.dims = dims;
    const float sigma = prm->sigma;
    ec.sigma2 = sigma * sigma;
    ec.inv_s2 = 1.0f / (sigma * sigma);
    ec.c3 = (float)(sqrt(2.0 / BS_PI) / ((double)sigma * sigma * sigma));
    ec.c5 = (float)(sqrt(2.0 / BS_PI) / pow((double)sigma, 5));
    ec.rcut = BS_FAR_CORES * sigma;
    ec.rc2 = ec.rcut * ec.rcut;
    ec.theta2 = prm->theta * prm->theta;
    const int tree = prm->method == BS_TREECODE;
    if (tree ? build_tree(ws, src, dims, prm->leaf_size > 0 ? prm->leaf_size : 1) : chunk_boxes(ws, src, dims))
        return -1;
    /* The 1 / (4 pi) (3D) or 1 / (2 pi) (2D) of the law, applied once per target. */
    const float scale = (float)(dims == 3 ? 1.0 / (4.0 * BS_PI) : 1.0 / (2.0 * BS_PI));
#pragma omp parallel for schedule(dynamic, 64)
    for (long long t = 0; t < nt; ++t) {
        const float x[3] = {tgt->x[t], tgt->y[t], dims == 3 ? tgt->z[t] : 0.0f};
        float u[3] = {0, 0, 0}, g[9] = {0};
        if (tree) tree_target(&ec, ws, x, u, want_grad ? g : NULL);
        else direct_target(&ec, ws, src, x, u, want_grad ? g : NULL);
        tgt->ux[t] = scale * u[0];
        tgt->uy[t] = scale * u[1];
        tgt->uz[t] = dims == 3 ? scale * u[2] : 0.0f;
        if (want_grad)
            for (int a = 0; a < 9; ++a) tgt->grad[a][t] = scale * g[a];
    }
    return 0;
}

size_t bs_node_count(const bs_workspace *ws)
{
    return ws->node_count;
}

void bs_free(bs_workspace *ws)
{
    if (!ws) return;
    free(ws->sx);
    free(ws->sy);
    free(ws->sz);
    free(ws->sax);
    free(ws->say);
    free(ws->saz);
    free(ws->order);
    free(ws->scratch);
    free(ws->nodes);
    free(ws->chunk_box);
    memset(ws, 0, sizeof *ws);
}
