/*
 * biot_savart.h — velocity (and its gradient) induced by vortex particles, by direct summation or by a
 * Barnes–Hut treecode. Private to plugins/vpm_hybrid (also compiled into its tests and benchmark).
 *
 * A source j is a point x_j carrying a vector strength alpha_j = omega_j V_j (vorticity times volume,
 * sim units m^3/s in 3D); in 2D only the z component is read: the circulation Gamma_j = omega_z,j V_j
 * (m^2/s). Each source is a Gaussian blob of core radius sigma, i.e. its vorticity is spread as
 * zeta_sigma(r) = (2 pi sigma^2)^(-d/2) exp(-r^2 / (2 sigma^2)), which regularizes the law:
 *
 *   3D  u(x) = (1 / 4 pi) sum_j q(r / sigma) alpha_j x (x - x_j) / r^3,
 *       q(s) = erf(s / sqrt 2) - sqrt(2 / pi) s exp(-s^2 / 2)        (the share of the blob inside r)
 *   2D  u(x) = (1 / 2 pi) sum_j q2(r / sigma) Gamma_j e_z x (x - x_j) / r^2,  q2(s) = 1 - exp(-s^2 / 2)
 *
 * with r = |x - x_j|; u is the curl of the vector potential psi = (1 / 4 pi) sum_j alpha_j / r (3D).
 * Sign: a source with Gamma > 0 (2D) or alpha along +z (3D) turns the fluid counter-clockwise seen
 * from +z. Beyond r = BS_FAR_CORES sigma the blob is a point (q = 1 - 1.5e-5) and the singular law is used.
 *
 * The treecode sorts the sources into an octree (cells of at most `leaf_size` sources) and stores per
 * cell the monopole sum alpha, dipole sum alpha (x - c) and quadrupole sum alpha (x - c)(x - c) about
 * c, the |alpha|-weighted centre. A cell of radius b (largest |x_j - c|) is used through its
 * expansion when b / |x - c| < theta (the opening angle) and |x - c| - b > BS_FAR_CORES sigma; otherwise
 * its children are opened, and a leaf is summed directly. The error falls as theta^3.
 *
 * Threads: bs_evaluate parallelizes over targets with OpenMP; each target's sum runs in a fixed order
 * (the tree is built deterministically), so results do not depend on the thread count.
 */
#ifndef VPM_BIOT_SAVART_H
#define VPM_BIOT_SAVART_H

#include <stddef.h>
#include <stdint.h>

#define BS_FAR_CORES 5.0f

typedef enum bs_method { BS_DIRECT = 0, BS_TREECODE = 1 } bs_method;

typedef struct bs_params {
    int dimensions;  /* 2 or 3 */
    float sigma;     /* Gaussian core radius, sim m (> 0) */
    float theta;     /* opening angle of the treecode, (0, 1] */
    int leaf_size;   /* sources per leaf cell (>= 1) */
    bs_method method;
} bs_params;

/* Sources, borrowed: n points and strengths (arrays of n floats each; 2D reads z and az only as
 * z = 0 and az = Gamma). */
typedef struct bs_sources {
    size_t n;
    const float *x, *y, *z;
    const float *ax, *ay, *az;
} bs_sources;

/* Targets, borrowed: n points; u receives the velocity (sim m/s); grad, when not NULL, nine arrays
 * grad[3 * i + l][t] = d u_i / d x_l at target t (1/s; 3D only). */
typedef struct bs_targets {
    size_t n;
    const float *x, *y, *z;
    float *ux, *uy, *uz;
    float *const *grad; /* [9] or NULL */
} bs_targets;

/* Reusable storage of the treecode (sorted sources and cells). Zero-initialize; free with bs_free. */
typedef struct bs_workspace {
    size_t capacity, node_capacity, node_count;
    float *sx, *sy, *sz, *sax, *say, *saz; /* sources in tree order */
    uint32_t *order, *scratch;
    struct bs_node *nodes;
    size_t chunk_capacity;
    float *chunk_box;                      /* direct summation: bounding boxes of runs of sources */
} bs_workspace;

/* Evaluates u (and grad) at every target. Returns 0, or -1 when memory ran out (targets then hold
 * partial results). */
int bs_evaluate(const bs_params *prm, const bs_sources *src, const bs_targets *tgt, bs_workspace *ws);

/* Frees the workspace's arrays (the struct may be reused). */
void bs_free(bs_workspace *ws);

/* Number of cells of the last treecode build (for tests and the benchmark). */
size_t bs_node_count(const bs_workspace *ws);

#endif
