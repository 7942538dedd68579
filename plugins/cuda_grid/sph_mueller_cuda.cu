/*
 * sph_mueller_cuda: the step of sph_mueller (plugins/sph_mueller/sph_mueller.c) on an NVIDIA GPU, with
 * the particles kept on the device between steps.
 *
 * Physics: sph_mueller's own source, compiled for the device — poly6 density with initial_sum
 * (<eddy_sph/kernels.h>), p = k (rho - rho0) with the negative_pressure factor and the spiky-gradient
 * pressure and viscosity Laplacian pair weights (plugins/sph_mueller/mueller_equations.h), the
 * toolkit's material tables and time step (<eddy_sph/materials.h>), mirror ghosts of every wall and
 * collider (plane, box, sphere; <eddy/boundary_math.h>), semi-implicit Euler with the Bullet contact
 * response (the same header), periodic axes and the 3-cell bars (<eddy/grid.h>'s eddy_grid_cell_of,
 * eddy_grid_wrap_coordinate and eddy_grid_bar_row). Same parameter table. Sums run in
 * another order than on the CPU (per particle, sequentially over its 3-cell bars, ghosts interleaved;
 * the CPU vectorizes), and nvcc contracts a * b + c into FMAs, so results agree with sph_mueller within
 * round-off that grows with the steps, not bit for bit; tests/cuda_grid states and checks the tolerance.
 *
 * Copies on the device: "host order" arrays mirror the world's arrays index for index (world order);
 * "sorted" arrays are the same particles sorted by cell, rebuilt each step by a stable sort of the
 * host-order copy (so the order within a cell is the world order: a resumed run sorts exactly as the
 * uninterrupted one did, and runs are reproducible). Each step ends by scattering the sorted arrays
 * back to host order on the device. The world's own arrays are never permuted by this solver.
 *
 * Residency (ABI 2.0, world.h "Field residency"; docs/host.md "Device-resident solvers"): position,
 * velocity, density, pressure and acceleration live on the device (EDDY_MEMORY_DEVICE, declared in
 * create()), and so does the layout. Every step and compute_fields() end with
 * eddy_world_mark_host_stale; the host's arrays are brought up to date only when the host maps a field
 * (frames, probes, checkpoints, the hash): download() copies that field's host-order arrays into a
 * pinned staging buffer and from there into the world's arrays. The layout needs no copy: the device
 * never reorders the world, nor changes an id, material or flag (the sorted order is private), so the
 * host's layout arrays are always those last uploaded, and download() of the layout only checks that
 * the count and the layout generation are still the uploaded ones. Mass never changes on the device
 * and stays EDDY_MEMORY_HOST. The per-step figures the host needs (largest speed, non-finite counts)
 * come from reduce(), a device reduction that gives the core's figures bit for bit (see
 * step_stats_pass), so the time steps are those the core's reduction over the host arrays would give:
 * a resumed run, whose first max_dt comes from the core's reduction of the restored arrays, steps as
 * the uninterrupted one.
 *
 * Host edits between steps: the world counts them in edit generations (particles.h). After every
 * upload the solver records the generation of each field it uploaded (position, velocity, mass) and of
 * the layout (count, order, ids, materials, flags); before a step it uploads exactly the fields whose
 * generation moved, and everything when the layout's did (particles restored, removed or reordered by
 * the host: the device's copies are in the old order) or the count differs. Density, pressure and
 * acceleration are never uploaded: every step and compute_fields() recompute them before reading them.
 * A full upload first syncs the host copy (eddy_world_sync_host), so a stale host array is never
 * uploaded over the device's newer values. Ids never go to the device: it sorts by world index
 * (uint32_t, as the grid's permutation).
 *
 * EDDY_CUDA_HOST_COPY=every_step (environment; tests and benchmarks only) brings the whole host copy up
 * to date after every step (eddy_world_sync_host) and answers reduce() with the core's reduction over
 * those arrays: the behaviour before residency, as an A/B for `eddy bench`, and the reference the
 * residency test compares the default against byte for byte (tests/residency, gpu mode).
 * EDDY_RESIDENCY_LOG=FILE (tests) appends "download STEP FIELD" and "upload STEP FIELD" lines, the
 * format of tests/residency's test double.
 *
 * This step, resident and on the shared equations and bar walk, ran on an NVIDIA H200 (CUDA 13.0,
 * driver 580, 2026-11-30): it agrees with sph_mueller within round-off on five scenes, resumes
 * bit-identically, its resident outputs equal the per-step copy's, and compute-sanitizer's memcheck and
 * racecheck are clean; docs/cuda_grid.md has the figures (and the ABI 1.0 version's, on an H100).
 */
#include <eddy/boundary_math.h>
#include <eddy/eddy.h>
#include <eddy_sph/kernels.h>
#include <eddy_sph/materials.h>

#include <cuda_runtime.h>

#include <inttypes.h>
#include <cmath>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "cuda_grid.h"
#include "device_error.cuh"
#include "device_sort.cuh"
#include "mueller_equations.h"

/* The kernels and the copies in and out are written for float: eddy_real is float in ABI 2.x. */
static_assert(std::is_same<eddy_real, float>::value, "sph_mueller_cuda assumes eddy_real is float");

namespace {

using namespace eddy_cuda;

constexpr int BLOCK = 128;
static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "step_stats_pass reduces whole warps of a block");

/* Per material, as the kernels read it. */
struct material_dev {
    float rest_density, stiffness, self_density, gradient_scale, viscosity;
    eddy_contact_params contact;
};

/* The grid geometry the kernels need, by value: the world's layout (read by eddy_grid_cell_of, the
 * wrap and the bar walk). */
struct grid_dev {
    eddy_grid_layout layout;
};

/* Constants of one step, by value. */
struct step_consts {
    eddy_kernels k; /* the world's kernels (<eddy/kernels.h>) */
    float tiny2, pair_weight, negative_pressure, dt;
    float gravity[3];
    int dims, colliders;
};

/* Host-order copies (index i = world index i). */
enum { H_X, H_Y, H_Z, H_VX, H_VY, H_VZ, H_MASS, H_DENSITY, H_PRESSURE, H_AX, H_AY, H_AZ, H_COUNT };
/* Sorted copies (index k = k-th particle by cell). */
enum { S_X, S_Y, S_Z, S_VX, S_VY, S_VZ, S_MASS, S_DENSITY, S_PRESSURE, S_VOLUME, S_AX, S_AY, S_AZ, S_COUNT };

/* The fields a step reads from the world, each uploaded on its own when the host edited it (the layout,
 * count and materials, with all of them). */
enum { UPLOAD_POSITION, UPLOAD_VELOCITY, UPLOAD_MASS, UPLOAD_COUNT };
constexpr int upload_field[UPLOAD_COUNT] = {EDDY_FIELD_POSITION, EDDY_FIELD_VELOCITY, EDDY_FIELD_MASS};

struct host_arrays {
    float *f[H_COUNT];
    uint32_t *material;
    uint8_t *flags; /* EDDY_PARTICLE_HALO, ...: the reduction counts owned particles only, as the core's */
};

/* The device's scalars (s->scalars) and their pinned host copies (s->pinned). */
enum {
    SC_ESCAPE, /* set by wrap_and_check: a particle is outside the domain or not finite */
    SC_AMAX2,  /* largest |a|^2 of the step, as float bits */
    SC_VMAX2,  /* step_stats_pass: largest squared speed over owned finite velocities, as float bits */
    SC_BAD_V,  /* step_stats_pass: owned particles with a non-finite velocity component */
    SC_BAD_X,  /* step_stats_pass: owned particles with a non-finite position component */
    SC_COUNT
};

struct sorted_arrays {
    float *f[S_COUNT];
    uint32_t *material;
    uint32_t *host_index; /* world index of the k-th sorted particle */
    const uint32_t *cell; /* cell of the k-th sorted particle (the sort's key[1]) */
};

} // namespace

struct eddy_solver {
    double cfl;
    float negative_pressure;
    float pair_weight;
    float max_accel;
    int acceleration; /* field id */
    eddy_sph_materials mat; /* the toolkit's tables, as sph_mueller's; the device's copy is `materials` */

    int device;
    cudaStream_t stream;
    cudaEvent_t ev[5];
    grid_dev grid;
    size_t cells;
    material_dev *materials;  /* device [material_count] */
    eddy_collider *colliders; /* device [collider_capacity] */
    size_t collider_capacity;
    host_arrays h;
    sorted_arrays s;
    size_t capacity;
    device_sort sort;
    unsigned *scalars;   /* device [SC_COUNT] */
    unsigned *pinned;    /* host, pinned [SC_COUNT] */

    /* Residency: the world (for destroy(), which removes the provider), the pinned staging buffer of
     * download() (one field's components, grown on demand), and the test switches. */
    eddy_world *world;
    float *staging;
    size_t staging_floats;
    int every_step; /* EDDY_CUDA_HOST_COPY=every_step */
    char *log_path; /* EDDY_RESIDENCY_LOG, or NULL */

    /* What the device copy was uploaded from: the edit generations (eddy_world_field_generation) of
     * the layout and of each uploaded field when they were last uploaded. */
    int resident; /* 0: upload everything before the next step */
    size_t n;
    uint64_t layout_generation;
    uint64_t field_generation[UPLOAD_COUNT];
};

namespace {

/* Failed CUDA calls name this component first (device_error.cuh). */
constexpr char k_who[] = "sph_mueller_cuda";

#define CUDA_TRY(call) EDDY_CUDA_TRY(k_who, call)

unsigned blocks_for(size_t n)
{
    return (unsigned)((n + BLOCK - 1) / BLOCK);
}

/* ---------------------------------------------------------------------------------------------- */
/* Kernels                                                                                        */

/* Calls f(begin, end, sx, sy, sz) for the candidate ranges of `cell`: the core's bars
 * (eddy_grid_bar_row, <eddy/grid.h>) in their order, read through the device's cell offsets. */
template <typename F> __device__ inline void for_each_range(const grid_dev &g, const uint32_t *offset, uint32_t cell, F &&f)
{
    int32_t c[3];
    eddy_grid_cell_coords(&g.layout, cell, c);
    const int rows = eddy_grid_bar_rows(&g.layout);
    for (int row = 0; row < rows; ++row) {
        eddy_range bar[2]; /* runs of cells */
        const int pieces = eddy_grid_bar_row(&g.layout, c, row, bar);
        for (int k = 0; k < pieces; ++k)
            f(offset[bar[k].begin], offset[bar[k].end], bar[k].shift[0], bar[k].shift[1], bar[k].shift[2]);
    }
}

/* Calls f(j, xj, yj, zj, dx, dy, dz, r2) for every neighbour j within h of particle i at (xi, yi, zi)
 * (r2 = |x_i - x_j|^2 < h2, the particle itself included), in the bars' order, with x_j at its
 * periodic image near i and d = x_i - x_j. Beyond h every term of both passes is 0, and a ghost within
 * h of i is the image of a neighbour within h where the fluid lies on i's side of the walls
 * (<eddy/boundary.h>), so the passes skip the rest (a branch costs little on the device). */
template <typename F>
__device__ inline void for_each_neighbor(const grid_dev &g, const uint32_t *offset, uint32_t cell,
                                         const float *__restrict__ x, const float *__restrict__ y,
                                         const float *__restrict__ z, float xi, float yi, float zi, float h2, F &&f)
{
    for_each_range(g, offset, cell, [&](uint32_t b, uint32_t e, float sx, float sy, float sz) {
        for (uint32_t j = b; j < e; ++j) {
            const float xj = x[j] + sx, yj = y[j] + sy, zj = z[j] + sz;
            const float dx = xi - xj, dy = yi - yj, dz = zi - zj;
            const float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < h2) f(j, xj, yj, zj, dx, dy, dz, r2);
        }
    });
}

/* The mirrors of particle i's walls within h (eddy_hd_mirrors), into m; how many. */
__device__ inline int mirrors_of(const step_consts &c, const eddy_collider *colliders, float xi, float yi, float zi,
                                 eddy_mirror m[EDDY_MAX_MIRRORS])
{
    const float p[3] = {xi, yi, zi};
    return c.colliders ? eddy_hd_mirrors(colliders, (size_t)c.colliders, c.dims, c.gravity, c.k.h, p, m) : 0;
}

/* Wraps periodic axes in place (the CPU grid build's eddy_grid_wrap_coordinate) and raises flag[0] for
 * a particle outside the domain (or not finite), which the host then handles with the scene's domain
 * policy. */
__global__ void wrap_and_check(grid_dev g, uint32_t n, float *x, float *y, float *z, unsigned *flag)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float *pos[3] = {x, y, z};
    bool bad = false;
    for (int a = 0; a < g.layout.dimensions; ++a) {
        float v = pos[a][i];
        if (!isfinite(v)) {
            bad = true;
            continue;
        }
        if (g.layout.periodic[a]) {
            const float w = eddy_grid_wrap_coordinate(v, g.layout.lo[a], g.layout.hi[a]);
            if (w != v) pos[a][i] = w;
        } else if (!(v >= g.layout.lo[a] && v <= g.layout.hi[a])) {
            bad = true;
        }
    }
    if (bad) atomicOr(flag, 1u);
}

__global__ void gather_sorted(uint32_t n, const uint32_t *__restrict__ perm, host_arrays h, sorted_arrays s)
{
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const uint32_t i = perm[k];
    s.f[S_X][k] = h.f[H_X][i];
    s.f[S_Y][k] = h.f[H_Y][i];
    s.f[S_Z][k] = h.f[H_Z][i];
    s.f[S_VX][k] = h.f[H_VX][i];
    s.f[S_VY][k] = h.f[H_VY][i];
    s.f[S_VZ][k] = h.f[H_VZ][i];
    s.f[S_MASS][k] = h.f[H_MASS][i];
    s.material[k] = h.material[i];
    s.host_index[k] = i;
}

__global__ void density_pass(uint32_t n, grid_dev g, const uint32_t *__restrict__ offset, sorted_arrays s,
                             const material_dev *__restrict__ mat, const eddy_collider *__restrict__ colliders,
                             step_consts c)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float *__restrict__ x = s.f[S_X], *__restrict__ y = s.f[S_Y], *__restrict__ z = s.f[S_Z];
    const float *__restrict__ mass = s.f[S_MASS];
    const float xi = x[i], yi = y[i], zi = z[i];
    eddy_mirror mirror[EDDY_MAX_MIRRORS];
    const int nmir = mirrors_of(c, colliders, xi, yi, zi, mirror);
    const float h2 = c.k.h2;
    float sum = 0.0f;
    for_each_neighbor(g, offset, s.cell[i], x, y, z, xi, yi, zi, h2,
                      [&](uint32_t j, float xj, float yj, float zj, float, float, float, float r2) {
                          const float mj = mass[j];
                          sum += eddy_sph_poly6_mass_term(mj, h2, r2);
                          const float pj[3] = {xj, yj, zj};
                          for (int mi = 0; mi < nmir; ++mi) {
                              float gp[3];
                              eddy_mirror_point(&mirror[mi], pj, gp);
                              const float gx = xi - gp[0], gy = yi - gp[1], gz = zi - gp[2];
                              sum += eddy_sph_poly6_mass_term(mj, h2, gx * gx + gy * gy + gz * gz);
                          }
                      });
    const material_dev &m = mat[s.material[i]];
    const float density = eddy_sph_density(&c.k, sum, m.self_density);
    s.f[S_DENSITY][i] = density;
    s.f[S_VOLUME][i] = mass[i] / density;
    s.f[S_PRESSURE][i] = mueller_pressure(m.stiffness, density, m.rest_density, c.negative_pressure);
}

__global__ void force_pass(uint32_t n, grid_dev g, const uint32_t *__restrict__ offset, sorted_arrays s,
                           const material_dev *__restrict__ mat, const eddy_collider *__restrict__ colliders,
                           step_consts c, unsigned *amax2_bits)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float *__restrict__ x = s.f[S_X], *__restrict__ y = s.f[S_Y], *__restrict__ z = s.f[S_Z];
    const float *__restrict__ vx = s.f[S_VX], *__restrict__ vy = s.f[S_VY], *__restrict__ vz = s.f[S_VZ];
    const float *__restrict__ rho = s.f[S_DENSITY], *__restrict__ pres = s.f[S_PRESSURE];
    const float *__restrict__ vol = s.f[S_VOLUME];
    const uint32_t *__restrict__ matid = s.material;
    const float xi = x[i], yi = y[i], zi = z[i], vxi = vx[i], vyi = vy[i], vzi = vz[i], pi = pres[i];
    const material_dev &mi_ = mat[matid[i]];
    const float inv_rho_i = 1.0f / rho[i];
    const mueller_pair_ctx pc = {c.k.h, c.k.h2, c.tiny2, c.k.spiky_grad, c.k.visc_lap, c.pair_weight * inv_rho_i,
                                 pi, mi_.viscosity, mi_.gradient_scale};
    const float h2 = c.k.h2;
    eddy_mirror mirror[EDDY_MAX_MIRRORS];
    const int nmir = mirrors_of(c, colliders, xi, yi, zi, mirror);
    float fx = 0.0f, fy = 0.0f, fz = 0.0f, px = 0.0f, py = 0.0f, pz = 0.0f;
    for_each_neighbor(g, offset, s.cell[i], x, y, z, xi, yi, zi, h2,
                      [&](uint32_t j, float xj, float yj, float zj, float dx, float dy, float dz, float r2) {
                          const material_dev &mj = mat[matid[j]];
                          const float vj = vol[j], pj = pres[j];
                          const mueller_pair_w pw = mueller_pair(&pc, r2, vj, pj, mj.gradient_scale, mj.viscosity);
                          px += pw.fp * dx;
                          py += pw.fp * dy;
                          pz += pw.fp * dz;
                          fx += pw.fv * (vx[j] - vxi);
                          fy += pw.fv * (vy[j] - vyi);
                          fz += pw.fv * (vz[j] - vzi);
                          const float xv[3] = {xj, yj, zj}, vv[3] = {vx[j], vy[j], vz[j]};
                          for (int q = 0; q < nmir; ++q) {
                              const eddy_mirror &mm = mirror[q];
                              float gp[3], gv[3];
                              eddy_mirror_point(&mm, xv, gp);
                              const float gx = xi - gp[0], gy = yi - gp[1], gz = zi - gp[2];
                              const float g2 = gx * gx + gy * gy + gz * gz;
                              if (!(g2 < h2)) continue;
                              eddy_mirror_velocity(&mm, vv, gv);
                              const float pg = eddy_mirror_pressure(&mm, pj, rho[j], xv);
                              const mueller_pair_w gw = mueller_pair(&pc, g2, vj, pg, mj.gradient_scale, mj.viscosity);
                              px += gw.fp * gx;
                              py += gw.fp * gy;
                              pz += gw.fp * gz;
                              fx += gw.fv * (gv[0] - vxi);
                              fy += gw.fv * (gv[1] - vyi);
                              fz += gw.fv * (gv[2] - vzi);
                          }
                      });
    const float ax = px + fx * inv_rho_i, ay = py + fy * inv_rho_i, az = pz + fz * inv_rho_i;
    s.f[S_AX][i] = ax;
    s.f[S_AY][i] = ay;
    s.f[S_AZ][i] = az;
    /* Non-negative floats order like their bit patterns, so an integer max is the float max; NaN
     * fails the test and is left to the host's explosion guard, as on the CPU. */
    const float a2 = ax * ax + ay * ay + az * az;
    if (a2 > 0.0f) atomicMax(amax2_bits, __float_as_uint(a2));
}

/* eddy_world_symplectic_euler for one particle: v += (a + g) dt, the contact response with every
 * collider in order, x += v dt. */
__global__ void integrate(uint32_t n, sorted_arrays s, const material_dev *__restrict__ mat,
                          const eddy_collider *__restrict__ colliders, step_consts c)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float dt = c.dt;
    const float gz = c.dims == 3 ? c.gravity[2] : 0.0f;
    float v[3] = {s.f[S_VX][i] + (s.f[S_AX][i] + c.gravity[0]) * dt, s.f[S_VY][i] + (s.f[S_AY][i] + c.gravity[1]) * dt,
                  s.f[S_VZ][i] + (s.f[S_AZ][i] + gz) * dt};
    float p[3] = {s.f[S_X][i], s.f[S_Y][i], s.f[S_Z][i]};
    if (c.colliders) {
        const eddy_contact_params &cp = mat[s.material[i]].contact;
        eddy_hd_contact_respond_visible(colliders, (size_t)c.colliders, c.dims, &cp, p, v);
    }
    s.f[S_VX][i] = v[0];
    s.f[S_VY][i] = v[1];
    s.f[S_VZ][i] = v[2];
    s.f[S_X][i] = p[0] + v[0] * dt;
    s.f[S_Y][i] = p[1] + v[1] * dt;
    s.f[S_Z][i] = p[2] + v[2] * dt;
}

/* Sorted -> host order: the world order the next step sorts, download() copies and reduce() scans. */
__global__ void scatter_host(uint32_t n, sorted_arrays s, host_arrays h)
{
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const uint32_t i = s.host_index[k];
    h.f[H_X][i] = s.f[S_X][k];
    h.f[H_Y][i] = s.f[S_Y][k];
    h.f[H_Z][i] = s.f[S_Z][k];
    h.f[H_VX][i] = s.f[S_VX][k];
    h.f[H_VY][i] = s.f[S_VY][k];
    h.f[H_VZ][i] = s.f[S_VZ][k];
    h.f[H_DENSITY][i] = s.f[S_DENSITY][k];
    h.f[H_PRESSURE][i] = s.f[S_PRESSURE][k];
    h.f[H_AX][i] = s.f[S_AX][k];
    h.f[H_AY][i] = s.f[S_AY][k];
    h.f[H_AZ][i] = s.f[S_AZ][k];
}

/* The core's per-step reduction (core/src/world.c, compute_stats) over the host-order arrays, figure
 * for figure: over owned particles (no EDDY_PARTICLE_HALO flag), the max of the float squared speed
 * (vx*vx + vy*vy) + vz*vz of those with finite velocity, and the counts of non-finite velocities and
 * positions. The core computes the squared speed without contraction (-ffp-contract=off, three
 * products and two sums, each rounded, left to right); nvcc would contract it into FMAs, so the
 * intrinsics __fmul_rn and __fadd_rn, which are never contracted, spell out the same roundings. The max
 * of non-negative floats is the max of their bit patterns as unsigned integers (IEEE 754 orders them
 * so), and a max is independent of the order of its operands: the atomics give the core's figure
 * exactly. The squared speed is never NaN (finite velocities, non-negative terms) and never -0. Every
 * thread of every block reaches the shuffles and the barrier (no early return): the block size must
 * be BLOCK. */
__global__ void step_stats_pass(uint32_t n, host_arrays h, unsigned *out)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned m = 0u, bad_v = 0u, bad_x = 0u;
    if (i < n && !(h.flags[i] & EDDY_PARTICLE_HALO)) {
        const float vx = h.f[H_VX][i], vy = h.f[H_VY][i], vz = h.f[H_VZ][i];
        const float x = h.f[H_X][i], y = h.f[H_Y][i], z = h.f[H_Z][i];
        bad_v = (isfinite(vx) && isfinite(vy) && isfinite(vz)) ? 0u : 1u;
        bad_x = (isfinite(x) && isfinite(y) && isfinite(z)) ? 0u : 1u;
        if (!bad_v) m = __float_as_uint(__fadd_rn(__fadd_rn(__fmul_rn(vx, vx), __fmul_rn(vy, vy)), __fmul_rn(vz, vz)));
    }
    for (int o = 16; o > 0; o >>= 1) {
        m = max(m, __shfl_down_sync(0xffffffffu, m, o));
        bad_v += __shfl_down_sync(0xffffffffu, bad_v, o);
        bad_x += __shfl_down_sync(0xffffffffu, bad_x, o);
    }
    __shared__ unsigned warp_m[BLOCK / 32], warp_v[BLOCK / 32], warp_x[BLOCK / 32];
    const unsigned lane = threadIdx.x % 32u, warp = threadIdx.x / 32u;
    if (lane == 0) {
        warp_m[warp] = m;
        warp_v[warp] = bad_v;
        warp_x[warp] = bad_x;
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    for (int k = 1; k < BLOCK / 32; ++k) {
        m = max(m, warp_m[k]);
        bad_v += warp_v[k];
        bad_x += warp_x[k];
    }
    if (m) atomicMax(out + SC_VMAX2, m);
    if (bad_v) atomicAdd(out + SC_BAD_V, bad_v);
    if (bad_x) atomicAdd(out + SC_BAD_X, bad_x);
}

/* ---------------------------------------------------------------------------------------------- */
/* Host side                                                                                      */

void release_particles(eddy_solver *s)
{
    for (float *&p : s->h.f) cudaFree(p);
    cudaFree(s->h.material);
    cudaFree(s->h.flags);
    for (float *&p : s->s.f) cudaFree(p);
    cudaFree(s->s.material);
    cudaFree(s->s.host_index);
    s->h = host_arrays{};
    s->s = sorted_arrays{};
    s->capacity = 0;
}

int reserve_particles(eddy_solver *s, size_t n, eddy_error *err)
{
    if (n <= s->capacity) return EDDY_OK;
    release_particles(s);
    const size_t cap = n + n / 4 + 1024;
    for (float *&p : s->h.f) CUDA_TRY(cudaMalloc(&p, cap * sizeof(float)));
    CUDA_TRY(cudaMalloc(&s->h.material, cap * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc(&s->h.flags, cap * sizeof(uint8_t)));
    for (float *&p : s->s.f) CUDA_TRY(cudaMalloc(&p, cap * sizeof(float)));
    CUDA_TRY(cudaMalloc(&s->s.material, cap * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc(&s->s.host_index, cap * sizeof(uint32_t)));
    s->capacity = cap;
    return EDDY_OK;
}

/* EDDY_RESIDENCY_LOG (tests): one line "WHAT STEP FIELD" per upload or download, the format of
 * tests/residency's test double, so the residency harness can check when the host downloads. */
void log_event(const eddy_solver *s, const eddy_world *w, const char *what, int field)
{
    if (!s->log_path) return;
    FILE *f = fopen(s->log_path, "a");
    if (!f) return;
    fprintf(f, "%s %" PRIu64 " %s\n", what, w->step,
            field == EDDY_FIELD_LAYOUT ? "layout" : eddy_particles_field_name(&w->particles, field));
    fclose(f);
}

/* World -> device: one field's host-order copies, and the field's generation recorded as uploaded.
 * The device arrays must hold s->n particles (upload_all sized them). */
int upload_one(eddy_solver *s, eddy_world *w, int which, eddy_error *err)
{
    const eddy_particles *p = &w->particles;
    const size_t n = s->n;
    const float *src[3] = {nullptr, nullptr, nullptr};
    int dst[3] = {0, 0, 0}, count = 0;
    switch (which) {
    case UPLOAD_POSITION:
        src[0] = p->x, src[1] = p->y, src[2] = p->z;
        dst[0] = H_X, dst[1] = H_Y, dst[2] = H_Z;
        count = 3;
        break;
    case UPLOAD_VELOCITY:
        src[0] = p->vx, src[1] = p->vy, src[2] = p->vz;
        dst[0] = H_VX, dst[1] = H_VY, dst[2] = H_VZ;
        count = 3;
        break;
    default: /* UPLOAD_MASS */
        src[0] = p->mass;
        dst[0] = H_MASS;
        count = 1;
        break;
    }
    /* From pageable memory: the call returns once the host array is read (staged), so the host may
     * change it afterwards. */
    for (int a = 0; a < count && n; ++a)
        CUDA_TRY(cudaMemcpyAsync(s->h.f[dst[a]], src[a], n * sizeof(float), cudaMemcpyHostToDevice, s->stream));
    s->field_generation[which] = eddy_world_field_generation(w, upload_field[which]);
    log_event(s, w, "upload", upload_field[which]);
    return EDDY_OK;
}

/* World -> device, everything a step reads (host-order copies) and the layout (materials, flags), with
 * the layout's generation. The host copy is brought up to date first: where a device field is stale
 * on the host (the device holds newer values), eddy_world_sync_host downloads it, so the upload never
 * puts old values back; where the host copy is current (after create(), a restore, or a host change
 * of the layout, which the host makes only after a sync), it downloads nothing. reserve_particles may
 * reallocate the device arrays, which is why every field is uploaded after it. */
int upload_all(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    const eddy_particles *p = &w->particles;
    const size_t n = p->count;
    if (n > (size_t)INT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "sph_mueller_cuda: %zu particles exceed 2^31 - 1", n);
    s->resident = 0;
    int rc = eddy_world_sync_host(w, err);
    if (rc) return rc;
    if ((rc = reserve_particles(s, n, err))) return rc;
    s->n = n;
    for (int u = 0; u < UPLOAD_COUNT; ++u)
        if ((rc = upload_one(s, w, u, err))) return rc;
    if (n) {
        CUDA_TRY(cudaMemcpyAsync(s->h.material, p->material, n * sizeof(uint32_t), cudaMemcpyHostToDevice, s->stream));
        CUDA_TRY(cudaMemcpyAsync(s->h.flags, p->flags, n * sizeof(uint8_t), cudaMemcpyHostToDevice, s->stream));
    }
    s->layout_generation = eddy_world_field_generation(w, EDDY_FIELD_LAYOUT);
    log_event(s, w, "upload", EDDY_FIELD_LAYOUT);
    s->resident = 1;
    return EDDY_OK;
}

/* Brings the device copy up to the world's: everything when nothing is resident yet, the layout moved
 * or the count differs; otherwise exactly the fields whose edit generation moved since their upload. */
int upload_edits(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    if (!s->resident || s->n != w->particles.count ||
        s->layout_generation != eddy_world_field_generation(w, EDDY_FIELD_LAYOUT))
        return upload_all(s, w, err);
    for (int u = 0; u < UPLOAD_COUNT; ++u)
        if (s->field_generation[u] != eddy_world_field_generation(w, upload_field[u])) {
            const int rc = upload_one(s, w, u, err);
            if (rc) {
                s->resident = 0; /* half uploaded: start over at the next call */
                return rc;
            }
        }
    return EDDY_OK;
}

int upload_colliders(eddy_solver *s, const eddy_world *w, eddy_error *err)
{
    const size_t nc = w->boundaries.collider_count;
    if (nc > s->collider_capacity) {
        cudaFree(s->colliders);
        s->colliders = nullptr;
        s->collider_capacity = 0;
        CUDA_TRY(cudaMalloc(&s->colliders, nc * sizeof(eddy_collider)));
        s->collider_capacity = nc;
    }
    /* Every step: the host moves colliders between steps (scene key moving_until). */
    if (nc)
        CUDA_TRY(cudaMemcpyAsync(s->colliders, w->boundaries.colliders, nc * sizeof(eddy_collider),
                                 cudaMemcpyHostToDevice, s->stream));
    return EDDY_OK;
}

step_consts make_consts(const eddy_solver *s, const eddy_world *w, float dt)
{
    step_consts c;
    c.k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    /* Pairs closer than this are the particle itself (or coincident particles): no direction. */
    c.tiny2 = 1e-12f * c.k.h2;
    c.pair_weight = s->pair_weight;
    c.negative_pressure = s->negative_pressure;
    c.dt = dt;
    for (int a = 0; a < 3; ++a) c.gravity[a] = w->gravity[a];
    c.dims = w->dimensions;
    c.colliders = (int)w->boundaries.collider_count;
    return c;
}

/* Makes the device copy current: uploads when the world's particles are not the ones last seen, wraps
 * periodic axes, and hands escaped particles to the core's grid build (which applies the scene's
 * domain policy with its own messages: an error, or removal), then uploads the result. The one
 * synchronization before the step's kernels: the escape flag decides whether the host must act. */
int make_resident(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc;
    if ((rc = upload_edits(s, w, err))) return rc;
    if ((rc = upload_colliders(s, w, err))) return rc;
    if (s->n == 0) return EDDY_OK;
    CUDA_TRY(cudaMemsetAsync(s->scalars + SC_ESCAPE, 0, sizeof(unsigned), s->stream));
    wrap_and_check<<<blocks_for(s->n), BLOCK, 0, s->stream>>>(s->grid, (uint32_t)s->n, s->h.f[H_X], s->h.f[H_Y],
                                                              s->h.f[H_Z], s->scalars + SC_ESCAPE);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaMemcpyAsync(s->pinned + SC_ESCAPE, s->scalars + SC_ESCAPE, sizeof(unsigned), cudaMemcpyDeviceToHost,
                             s->stream));
    CUDA_TRY(cudaStreamSynchronize(s->stream));
    if (s->pinned[SC_ESCAPE]) {
        /* The grid build works on the world's arrays: they are brought up to date first (the positions
         * as wrapped above; wrapping what is wrapped changes nothing, so the build sees what the CPU
         * solver's build would). It may reorder and remove particles; upload_all then takes the
         * result. */
        s->resident = 0;
        if ((rc = eddy_world_sync_host(w, err))) return rc;
        if ((rc = eddy_world_build_grid(w, err))) return rc;
        if ((rc = upload_all(s, w, err))) return rc;
    }
    return EDDY_OK;
}

/* Sort by cell, gather into sorted order, density and pressure, accelerations. ev[0..3] mark the
 * phase boundaries. */
int compute_on_device(eddy_solver *s, eddy_world *w, float dt, eddy_error *err)
{
    const size_t n = s->n;
    cudaStream_t st = s->stream;
    const step_consts c = make_consts(s, w, dt);
    CUDA_TRY(cudaEventRecord(s->ev[0], st));
    sort_failure f = {nullptr};
    cudaError_t e = device_sort_reserve(&s->sort, n, s->cells, st, &f);
    if (e == cudaSuccess)
        e = device_sort_run(&s->sort, s->grid.layout, n, s->cells, s->h.f[H_X], s->h.f[H_Y], s->h.f[H_Z], st, &f);
    if (e != cudaSuccess) return device_error(err, k_who, f.call, e);
    s->s.cell = s->sort.key[1];
    gather_sorted<<<blocks_for(n), BLOCK, 0, st>>>((uint32_t)n, s->sort.value[1], s->h, s->s);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventRecord(s->ev[1], st));
    density_pass<<<blocks_for(n), BLOCK, 0, st>>>((uint32_t)n, s->grid, s->sort.offset, s->s, s->materials,
                                                  s->colliders, c);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventRecord(s->ev[2], st));
    CUDA_TRY(cudaMemsetAsync(s->scalars + SC_AMAX2, 0, sizeof(unsigned), st));
    force_pass<<<blocks_for(n), BLOCK, 0, st>>>((uint32_t)n, s->grid, s->sort.offset, s->s, s->materials,
                                                s->colliders, c, s->scalars + SC_AMAX2);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventRecord(s->ev[3], st));
    return EDDY_OK;
}

/* Sorted -> host order on the device, the largest acceleration (for max_dt), and the wait for all of
 * it. Nothing is copied into the world: the caller marks the host copy stale, and the host downloads
 * what it maps. */
int finish_on_device(eddy_solver *s, eddy_error *err)
{
    const size_t n = s->n;
    cudaStream_t st = s->stream;
    scatter_host<<<blocks_for(n), BLOCK, 0, st>>>((uint32_t)n, s->s, s->h);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventRecord(s->ev[4], st));
    CUDA_TRY(cudaMemcpyAsync(s->pinned + SC_AMAX2, s->scalars + SC_AMAX2, sizeof(unsigned), cudaMemcpyDeviceToHost,
                             st));
    CUDA_TRY(cudaStreamSynchronize(st));
    float a2;
    memcpy(&a2, &s->pinned[SC_AMAX2], sizeof a2);
    s->max_accel = sqrtf(a2);
    return EDDY_OK;
}

/* The device's host-order arrays of a device-resident field, in component order; their number (0 for a
 * field that has no device copy). */
int device_arrays_of(const eddy_solver *s, int field, int out[3])
{
    if (field == EDDY_FIELD_POSITION) {
        out[0] = H_X, out[1] = H_Y, out[2] = H_Z;
        return 3;
    }
    if (field == EDDY_FIELD_VELOCITY) {
        out[0] = H_VX, out[1] = H_VY, out[2] = H_VZ;
        return 3;
    }
    if (field == s->acceleration) {
        out[0] = H_AX, out[1] = H_AY, out[2] = H_AZ;
        return 3;
    }
    if (field == EDDY_FIELD_DENSITY) {
        out[0] = H_DENSITY;
        return 1;
    }
    if (field == EDDY_FIELD_PRESSURE) {
        out[0] = H_PRESSURE;
        return 1;
    }
    return 0;
}

/* eddy_residency.download: the host maps a field whose host copy is stale. Device -> a pinned staging
 * buffer of the solver's own (one cudaMemcpyAsync per component, then one synchronization: a pinned
 * destination lets the copy engine run at full speed, where a pageable one is staged by the driver in
 * pieces), then memcpy into the world's arrays, which are pageable memory the core allocated. The
 * device's host-order arrays are in world order, so no permutation is needed. The layout is never
 * copied (the top of this file says why): its download only checks that the host did not change it
 * behind the device's back, which would put these values in the wrong order. The stream is in order,
 * so the copy sees the last step's results. */
int download(void *context, eddy_world *w, int field, eddy_error *err)
{
    eddy_solver *s = static_cast<eddy_solver *>(context);
    eddy_particles *p = &w->particles;
    CUDA_TRY(cudaSetDevice(s->device));
    const uint64_t layout = eddy_world_field_generation(w, EDDY_FIELD_LAYOUT);
    if (p->count != s->n || layout != s->layout_generation)
        return eddy_error_set(err, EDDY_ERR_DEVICE,
                              "sph_mueller_cuda: the host changed the particle layout while the device held newer "
                              "values (host: %zu particles, layout generation %" PRIu64 "; device copy: %zu "
                              "particles, generation %" PRIu64 "); the host must sync before it reorders or "
                              "resizes (docs/host.md, Device-resident solvers)",
                              p->count, layout, s->n, s->layout_generation);
    log_event(s, w, "download", field);
    if (field == EDDY_FIELD_LAYOUT) return EDDY_OK;
    int src[3];
    const int components = device_arrays_of(s, field, src);
    if (components == 0 || components != eddy_particles_field_components(p, field))
        return eddy_error_set(err, EDDY_ERR_DEVICE, "sph_mueller_cuda: field '%s' has no device copy",
                              eddy_particles_field_name(p, field));
    const size_t n = s->n;
    if (n == 0) return EDDY_OK;
    const size_t need = (size_t)components * n;
    if (need > s->staging_floats) {
        cudaFreeHost(s->staging);
        s->staging = nullptr;
        s->staging_floats = 0;
        CUDA_TRY(cudaMallocHost(&s->staging, need * sizeof(float)));
        s->staging_floats = need;
    }
    for (int c = 0; c < components; ++c)
        CUDA_TRY(cudaMemcpyAsync(s->staging + (size_t)c * n, s->h.f[src[c]], n * sizeof(float), cudaMemcpyDeviceToHost,
                                 s->stream));
    CUDA_TRY(cudaStreamSynchronize(s->stream));
    for (int c = 0; c < components; ++c)
        memcpy(eddy_particles_field(p, field, c), s->staging + (size_t)c * n, n * sizeof(float));
    return EDDY_OK;
}

float elapsed_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0.0f;
    return cudaEventElapsedTime(&ms, a, b) == cudaSuccess ? ms : 0.0f;
}

/* ---------------------------------------------------------------------------------------------- */
/* Solver callbacks                                                                               */

void destroy(eddy_solver *s)
{
    if (!s) return;
    if (s->stream) {
        cudaSetDevice(s->device);
        cudaStreamSynchronize(s->stream);
    }
    /* The host destroys the solver before the world (eddy_sim_close). */
    if (s->world) eddy_world_set_residency(s->world, nullptr);
    release_particles(s);
    device_sort_release(&s->sort);
    cudaFree(s->materials);
    cudaFree(s->colliders);
    cudaFree(s->scalars);
    cudaFreeHost(s->pinned);
    cudaFreeHost(s->staging);
    free(s->log_path);
    for (cudaEvent_t &e : s->ev)
        if (e) cudaEventDestroy(e);
    if (s->stream) cudaStreamDestroy(s->stream);
    eddy_sph_materials_free(&s->mat);
    free(s);
}

/* Parameter `which` of the component's table (the table's default when unset). */
double param_number(const eddy_param_values *pv, int which)
{
    const eddy_param_desc *d = &sph_mueller_cuda_params[which];
    return eddy_param_get(pv, d->id, d->def);
}

/* An ENUM's index or a BOOL of the component's table (the table's default when unset). */
int64_t param_integer(const eddy_param_values *pv, int which)
{
    const eddy_param_value *v = eddy_param_find_value(pv, sph_mueller_cuda_params[which].id);
    return v && v->is_set ? v->integer : (int64_t)sph_mueller_cuda_params[which].def;
}

int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    *out = nullptr;
    eddy_world *w = setup->world;
    const eddy_param_values *pv = setup->params;
    /* Its messages say no "sph_mueller_cuda:": the host prefixes "solver 'sph_mueller_cuda': " to what
     * create() returns (device_error's keep it: they also reach the user from the residency callbacks).
     * The CPU step's optional terms the device step does not have: refused (before the
     * device is looked for, so a machine without one says so too), never silently dropped. */
    if (param_integer(pv, SPH_MUELLER_CUDA_P_WALL_VELOCITY) != 0) {
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "wall_velocity = \"no_slip\" is not implemented on the GPU; "
                              "use the solver sph_mueller");
    }
    if (param_integer(pv, SPH_MUELLER_CUDA_P_PRESSURE_FORCE) == 2) {
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "pressure_force = \"variational\" is not implemented on the GPU; "
                              "use the solver sph_mueller");
    }
    if (param_integer(pv, SPH_MUELLER_CUDA_P_SHIFTING) != 0) {
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "shifting = true is not implemented on the GPU; use the solver "
                              "sph_mueller");
    }
    /* Test and benchmark switches (the top of this file); a bad value is refused before the device is
     * looked for, as the parameters above. */
    const char *host_copy = getenv("EDDY_CUDA_HOST_COPY");
    const int every_step = host_copy && !strcmp(host_copy, "every_step");
    if (host_copy && *host_copy && !every_step && strcmp(host_copy, "frames"))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "environment EDDY_CUDA_HOST_COPY=\"%s\": expected \"frames\" "
                              "(the default: the host copy is downloaded when mapped) or \"every_step\"",
                              host_copy);
    const char *log_path = getenv("EDDY_RESIDENCY_LOG");

    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e == cudaSuccess && devices == 0) e = cudaErrorNoDevice;
    if (e != cudaSuccess)
        return eddy_error_set(err, EDDY_ERR_DEVICE, "no CUDA device (cudaGetDeviceCount: %s)",
                              cudaGetErrorString(e));
    CUDA_TRY(cudaSetDevice(0));
    cudaFuncAttributes attr;
    if ((e = cudaFuncGetAttributes(&attr, force_pass)) != cudaSuccess)
        return eddy_error_set(err, EDDY_ERR_DEVICE,
                              "the plugin has no code for device 0: %s; rebuild with "
                              "-DCMAKE_CUDA_ARCHITECTURES=<its compute capability>",
                              cudaGetErrorString(e));
    const eddy_grid_layout *l = &w->grid.layout;
    if (l->cell_count == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "the world has no grid layout");
    if (l->cell_count + 1 > (size_t)INT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%zu cells exceed 2^31 - 2; use a larger smoothing radius",
                              l->cell_count);

    eddy_solver *s = static_cast<eddy_solver *>(calloc(1, sizeof(eddy_solver)));
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    s->every_step = every_step;
    if (log_path && *log_path && !(s->log_path = strdup(log_path))) {
        free(s);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    s->cfl = param_number(pv, SPH_MUELLER_CUDA_P_CFL);
    s->negative_pressure = (float)param_number(pv, SPH_MUELLER_CUDA_P_NEGATIVE_PRESSURE);
    /* ENUM: the index into {consistent, mueller, variational}; variational was refused above. */
    s->pair_weight = param_integer(pv, SPH_MUELLER_CUDA_P_PRESSURE_FORCE) == 1 ? 0.5f : 1.0f;
    s->device = 0;
    s->grid.layout = *l;
    s->cells = l->cell_count;

    /* Per-material constants: the toolkit's tables, as sph_mueller's create() makes them. */
    int rc = eddy_sph_materials_init(&s->mat, w, &sph_mueller_cuda_material_params[SPH_MUELLER_CUDA_M_VISCOSITY],
                                     &sph_mueller_cuda_material_params[SPH_MUELLER_CUDA_M_STIFFNESS],
                                     &sph_mueller_cuda_material_params[SPH_MUELLER_CUDA_M_INITIAL_SUM],
                                     NULL, err);
    if (rc) {
        destroy(s);
        return rc;
    }
    const size_t nm = w->material_count ? w->material_count : 1; /* a device array is never empty */
    material_dev *mats = static_cast<material_dev *>(calloc(nm, sizeof(material_dev)));
    if (!mats) {
        destroy(s);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    /* The mueller pair weight keeps the reference's unscaled gradient, as sph_mueller's create(). */
    if (s->pair_weight != 1.0f)
        for (size_t m = 0; m < s->mat.count; ++m) s->mat.gradient_scale[m] = 1.0f;
    for (size_t m = 0; m < s->mat.count; ++m) {
        mats[m].rest_density = s->mat.rest_density[m];
        mats[m].stiffness = s->mat.stiffness[m];
        mats[m].viscosity = s->mat.viscosity[m];
        mats[m].self_density = s->mat.self_density[m];
        mats[m].gradient_scale = s->mat.gradient_scale[m];
        mats[m].contact = w->contacts[m];
    }
#define CREATE_TRY(call)                                                                                \
    do {                                                                                                \
        const cudaError_t ce_ = (call);                                                                 \
        if (ce_ != cudaSuccess) {                                                                       \
            rc = device_error(err, k_who, #call, ce_);                                                  \
            goto fail;                                                                                  \
        }                                                                                               \
    } while (0)
    /* Its own non-blocking stream: nothing of the process's default stream is waited for. */
    CREATE_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    for (cudaEvent_t &ev : s->ev) CREATE_TRY(cudaEventCreate(&ev));
    CREATE_TRY(cudaMalloc(&s->materials, nm * sizeof(material_dev)));
    CREATE_TRY(cudaMemcpy(s->materials, mats, nm * sizeof(material_dev), cudaMemcpyHostToDevice));
    CREATE_TRY(cudaMalloc(&s->scalars, SC_COUNT * sizeof(unsigned)));
    CREATE_TRY(cudaMallocHost(&s->pinned, SC_COUNT * sizeof(unsigned)));
    memset(s->pinned, 0, SC_COUNT * sizeof(unsigned));
#undef CREATE_TRY
    free(mats);
    mats = nullptr;
    if ((rc = eddy_particles_add_field(&w->particles, "acceleration", 3, &s->acceleration, err))) goto fail;
    {
        /* Residency: what the device changes lives there from now on (the host copy is current now, and
         * the first compute_fields() or step() uploads it). Mass never changes on the device and stays
         * a host field. */
        const int device_fields[] = {EDDY_FIELD_POSITION, EDDY_FIELD_VELOCITY, EDDY_FIELD_DENSITY,
                                     EDDY_FIELD_PRESSURE,  s->acceleration,    EDDY_FIELD_LAYOUT};
        for (const int f : device_fields)
            if ((rc = eddy_world_set_field_space(w, f, EDDY_MEMORY_DEVICE, err))) goto fail;
        const eddy_residency residency = {sizeof residency, s, download};
        eddy_world_set_residency(w, &residency);
        s->world = w;
    }
    *out = s;
    return EDDY_OK;
fail:
    free(mats);
    destroy(s);
    return rc;
}

/* The step's work after the callback selected the device; see step(). */
int step_on_device(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    int rc = make_resident(s, w, err);
    if (rc) return rc;
    if (s->n == 0) return EDDY_OK;
    if ((rc = compute_on_device(s, w, (float)dt_in, err))) return rc;
    const step_consts c = make_consts(s, w, (float)dt_in);
    integrate<<<blocks_for(s->n), BLOCK, 0, s->stream>>>((uint32_t)s->n, s->s, s->materials, s->colliders, c);
    CUDA_TRY(cudaGetLastError());
    if ((rc = finish_on_device(s, err))) return rc;
    /* The integration phase: integrate and the scatter back to world order, on the device only. */
    eddy_world_add_phase_time(w, EDDY_PHASE_GRID, elapsed_ms(s->ev[0], s->ev[1]));
    eddy_world_add_phase_time(w, EDDY_PHASE_DENSITY, elapsed_ms(s->ev[1], s->ev[2]));
    eddy_world_add_phase_time(w, EDDY_PHASE_FORCES, elapsed_ms(s->ev[2], s->ev[3]));
    eddy_world_add_phase_time(w, EDDY_PHASE_INTEGRATE, elapsed_ms(s->ev[3], s->ev[4]));
    return EDDY_OK;
}

/* Frame 0: density, pressure and acceleration of the current state. The world's arrays are
 * deliberately not sorted here (no eddy_world_build_grid unless a particle is outside the domain): the
 * device sorts the world's order, so a resumed run, whose world comes back in the checkpoint's order,
 * sorts exactly as the uninterrupted run did. What the host edited since the last upload is uploaded
 * (everything at the first call). */
int fields_on_device(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = make_resident(s, w, err);
    if (rc) return rc;
    if (s->n == 0) return EDDY_OK;
    if ((rc = compute_on_device(s, w, 0.0f, err))) return rc;
    return finish_on_device(s, err);
}

/* The callbacks may come from any host thread (EDDY_COMPONENT_CONCURRENT_INSTANCES): each selects the
 * solver's device first. After a failure the device copy may differ from the world's arrays in ways no
 * generation shows (a step half done): the next call uploads everything. After a success the device
 * holds the newest particles: the host copy is marked stale (every device field; the layout with
 * them, whose download is a check only). */
int step(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    CUDA_TRY(cudaSetDevice(s->device));
    const int rc = step_on_device(s, w, dt_in, err);
    if (rc) {
        s->resident = 0;
        return rc;
    }
    eddy_world_mark_host_stale(w, EDDY_FIELD_LAYOUT);
    return EDDY_OK;
}

int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    CUDA_TRY(cudaSetDevice(s->device));
    int rc = fields_on_device(s, w, err);
    if (rc) {
        s->resident = 0;
        return rc;
    }
    eddy_world_mark_host_stale(w, EDDY_FIELD_LAYOUT);
    /* EDDY_CUDA_HOST_COPY=every_step: the host copy current at every step, frame 0 included. */
    if (s->every_step && (rc = eddy_world_sync_host(w, err))) return rc;
    return EDDY_OK;
}

/* The limits of sph_mueller's max_dt. The largest speed comes from eddy_world_step_stats through
 * eddy_world_stable_dt: after a step the figures reduce() gave, before the first step (or after the
 * host write-mapped positions or velocities) the core's reduction over the host arrays, which it
 * downloads first; both give the same figure for the same particles (step_stats_pass). */
int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    (void)err;
    *dt = eddy_sph_stable_dt(w, s->cfl, sqrt(eddy_sph_stiffness_max(&s->mat)), &s->mat, s->max_accel, limit);
    return EDDY_OK;
}

/* The core's own figures (eddy_world_step_stats) over a host copy brought up to date. */
int core_figures(eddy_world *w, eddy_step_stats *st, eddy_error *err)
{
    int rc = eddy_world_sync_host(w, err);
    if (rc) return rc;
    const eddy_step_stats *core = eddy_world_step_stats(w);
    st->max_speed = core->max_speed;
    st->nonfinite_velocity = core->nonfinite_velocity;
    st->nonfinite_position = core->nonfinite_position;
    st->first_nonfinite = core->first_nonfinite;
    return EDDY_OK;
}

/* The host's per-step figures (eddy_solver_vtable.reduce), after every step: step_stats_pass over the
 * device's world-order arrays, three integers back, one synchronization, then sqrtf on the host as the
 * core does. The host reads no particle. With EDDY_CUDA_HOST_COPY=every_step the host copy is brought
 * up to date instead and the core's own reduction answers: the reference the residency test compares
 * the default against (a reduction one bit off changes the time steps, and so every output). */
int reduce_on_device(eddy_solver *s, eddy_world *w, eddy_step_stats *st, eddy_error *err)
{
    if (s->every_step) return core_figures(w, st, err);
    const size_t n = s->n;
    if (w->particles.count != n)
        return eddy_error_set(err, EDDY_ERR_DEVICE,
                              "sph_mueller_cuda: the world holds %zu particles, the device copy %zu", w->particles.count,
                              n);
    unsigned v2 = 0u, bad_v = 0u, bad_x = 0u;
    if (n) {
        cudaStream_t stream = s->stream;
        /* SC_VMAX2, SC_BAD_V and SC_BAD_X are adjacent: one clear, one copy back. */
        CUDA_TRY(cudaMemsetAsync(s->scalars + SC_VMAX2, 0, 3 * sizeof(unsigned), stream));
        step_stats_pass<<<blocks_for(n), BLOCK, 0, stream>>>((uint32_t)n, s->h, s->scalars);
        CUDA_TRY(cudaGetLastError());
        CUDA_TRY(cudaMemcpyAsync(s->pinned + SC_VMAX2, s->scalars + SC_VMAX2, 3 * sizeof(unsigned),
                                 cudaMemcpyDeviceToHost, stream));
        CUDA_TRY(cudaStreamSynchronize(stream));
        v2 = s->pinned[SC_VMAX2];
        bad_v = s->pinned[SC_BAD_V];
        bad_x = s->pinned[SC_BAD_X];
    }
    float m2;
    memcpy(&m2, &v2, sizeof m2);
    st->max_speed = (double)sqrtf(m2);
    st->nonfinite_velocity = bad_v;
    st->nonfinite_position = bad_x;
    st->first_nonfinite = SIZE_MAX;
    /* An explosion: the core's pass over the host copy names the particle (the smallest id). */
    if (bad_v || bad_x) return core_figures(w, st, err);
    return EDDY_OK;
}

int reduce(eddy_solver *s, eddy_world *w, eddy_step_stats *st, eddy_error *err)
{
    CUDA_TRY(cudaSetDevice(s->device));
    return reduce_on_device(s, w, st, err);
}

int save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    return eddy_state_save_floats("sph_mueller_cuda/1", &s->max_accel, 1, data, size, err);
}

int load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    /* The host restores the particles just before, through write mappings that move the generations;
     * everything is uploaded at the next call all the same (what a restore writes is current on the
     * host, so upload_all downloads nothing first). */
    s->resident = 0;
    return eddy_state_load_floats("sph_mueller_cuda/1", &s->max_accel, 1, data, size, err);
}

} // namespace

/* Positional: designated initializers are C++20, and this file is C++17 (CUB). In member order: size,
 * create, step, destroy, max_dt, save, load, compute_fields, reduce. */
extern "C" const eddy_solver_vtable sph_mueller_cuda_vtable = {
    sizeof(eddy_solver_vtable), create, step, destroy, max_dt, save, load, compute_fields, reduce};
