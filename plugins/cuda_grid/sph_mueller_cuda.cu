/*
 * sph_mueller_cuda: the step of sph_mueller (plugins/sph_mueller/sph_mueller.c) on an NVIDIA GPU, with
 * the particles kept on the device between steps.
 *
 * Physics: exactly sph_mueller's — poly6 density with initial_sum, p = k (rho - rho0) with the
 * negative_pressure factor, spiky-gradient pressure (consistent or mueller pair weight, the lattice
 * gradient scale), viscosity Laplacian, mirror ghosts of every wall and collider (plane, box, sphere;
 * the core's own inline functions of <eddy/boundary_math.h>, compiled for the device), semi-implicit
 * Euler with the Bullet contact response (the same header), periodic axes (the cell and the wrap are
 * <eddy/grid.h>'s eddy_grid_cell_of and eddy_grid_wrap_coordinate). Same parameter table. Sums run in
 * another order than on the CPU (per particle, sequentially over its 3-cell bars, ghosts interleaved;
 * the CPU vectorizes), and nvcc contracts a * b + c into FMAs, so results agree with sph_mueller within
 * round-off that grows with the steps, not bit for bit; tests/cuda_grid states and checks the tolerance.
 * The neighbour-bar walk (neighbor_coord, for_each_range) is still written here: the core's is
 * eddy_grid_cell_ranges, an exported host function, and the toolkit has no inline one to share.
 *
 * Residency: the device holds two copies of the particles. "Host order" arrays mirror the world's
 * arrays index for index; "sorted" arrays are the same particles sorted by cell, rebuilt each step by
 * a stable sort of the host-order copy (so the order within a cell is the host order: a resumed run
 * sorts exactly as the uninterrupted one did, and runs are reproducible). The world's own arrays are
 * never permuted by this solver.
 *
 * Where the fields live (ABI 2.0): the world's fields stay EDDY_MEMORY_HOST, and every step still ends
 * by copying 11 floats per particle (positions, velocities, density, pressure, acceleration) back into
 * the world, so the host copy is always current: the host's per-step explosion check and max_dt use
 * the core's reduction over the host arrays (no `reduce` callback), and frames, probes, checkpoints
 * and hashes read the arrays as they are. That copy, not the arithmetic, bounds the speed at millions
 * of particles; removing it (device fields, an eddy_residency that downloads on map, the device
 * `reduce`) is a separate change, not made here: it must first be run on a GPU, and the device
 * reduction must give the core's max_speed bit for bit, or a resumed run (whose first max_dt comes
 * from the core's reduction of the restored host arrays) would take another time step than the
 * uninterrupted one.
 *
 * Host edits between steps: the world counts them in edit generations (particles.h). After every
 * upload the solver records the generation of each field it uploaded (position, velocity, mass) and of
 * the layout (count, order, ids, materials); before a step it uploads exactly the fields whose
 * generation moved, and everything when the layout's did (particles added, removed or reordered) or
 * the count differs. The solver's own copy back into the world is not an edit (it bumps nothing).
 * create() (via compute_fields) and load() upload everything. Ids never go to the device: the device
 * sorts by world index (uint32_t, as the grid's permutation), and the world's order, ids included, is
 * changed only by the core.
 *
 * The ABI 1.0 version of this step ran on an NVIDIA H100 (CUDA 13.0, driver 580): it agreed with
 * sph_mueller within round-off on five scenes, resumed bit-identically, and passed compute-sanitizer;
 * docs/cuda_grid.md has the figures. The port to ABI 2.0 (setup struct, parameter and material tables,
 * edit generations instead of a sampled fingerprint) changed no kernel; it has been compiled, not yet
 * run on a GPU.
 */
#include <eddy/boundary_math.h>
#include <eddy/eddy.h>

#include <cuda_runtime.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "cuda_grid.h"
#include "device_sort.cuh"

/* The kernels and the copies in and out are written for float: eddy_real is float in ABI 2.x. */
static_assert(std::is_same<eddy_real, float>::value, "sph_mueller_cuda assumes eddy_real is float");

namespace {

using namespace eddy_cuda;

constexpr int BLOCK = 128;

/* Per material, as the kernels read it. */
struct material_dev {
    float rest_density, stiffness, self_density, gradient_scale, viscosity;
    eddy_contact_params contact;
};

/* The grid geometry the kernels need, by value: the world's layout (read by eddy_grid_cell_of and the
 * wrap) and each axis' period hi - lo. */
struct grid_dev {
    eddy_grid_layout layout;
    float period[3];
};

/* Constants of one step, by value. */
struct step_consts {
    float h, h2, tiny2, poly6, spiky_grad, visc_lap, pair_weight, negative_pressure, dt;
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
    size_t material_count;
    float *stiffness_host, *nu_host; /* per material, for max_dt */

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
    unsigned *scalars;   /* device [2]: escape flag, largest |a|^2 as float bits */
    unsigned *pinned;    /* host, pinned [2] */

    /* What the device copy was uploaded from: the edit generations (eddy_world_field_generation) of
     * the layout and of each uploaded field when they were last uploaded. */
    int resident; /* 0: upload everything before the next step */
    size_t n;
    uint64_t layout_generation;
    uint64_t field_generation[UPLOAD_COUNT];
};

namespace {

int device_error(eddy_error *err, const char *call, cudaError_t e)
{
    const int code = e == cudaErrorMemoryAllocation ? EDDY_ERR_OUT_OF_MEMORY : EDDY_ERR_DEVICE;
    return eddy_error_set(err, code, "sph_mueller_cuda: %s failed: %s (%s)", call, cudaGetErrorString(e),
                          cudaGetErrorName(e));
}

#define CUDA_TRY(call)                                                                                  \
    do {                                                                                                \
        const cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) return device_error(err, #call, e_);                                     \
    } while (0)

unsigned blocks_for(size_t n)
{
    return (unsigned)((n + BLOCK - 1) / BLOCK);
}

/* ---------------------------------------------------------------------------------------------- */
/* Kernels                                                                                        */

/* Maps a neighbor cell coordinate on axis a to a stored index and the periodic image shift; false
 * when it is off a bounded grid. The same rule as neighbor_coord in core/src/grid.c. */
__device__ inline bool neighbor_coord(const grid_dev &g, int a, int32_t i, int32_t *out, float *shift)
{
    *shift = 0.0f;
    if (g.layout.periodic[a]) {
        if (i < 0) {
            i += g.layout.cells[a];
            *shift = -g.period[a];
        } else if (i >= g.layout.cells[a]) {
            i -= g.layout.cells[a];
            *shift = g.period[a];
        }
    } else if (i < 0 || i >= g.layout.dim[a]) {
        return false;
    }
    *out = i;
    return true;
}

/* Calls f(begin, end, sx, sy, sz) for the candidate ranges of `cell` in the order of
 * eddy_grid_cell_ranges: bars by z, then y; a bar split by a periodic x wrap in two pieces. */
template <typename F> __device__ inline void for_each_range(const grid_dev &g, const uint32_t *offset, uint32_t cell, F &&f)
{
    const int32_t d0 = g.layout.dim[0], d1 = g.layout.dim[1];
    const int32_t ix = (int32_t)(cell % (uint32_t)d0);
    const int32_t iy = (int32_t)((cell / (uint32_t)d0) % (uint32_t)d1);
    const int32_t iz = (int32_t)(cell / ((uint32_t)d0 * (uint32_t)d1));
    const int rz = g.layout.dimensions == 3 ? 1 : 0;
    for (int dz = -rz; dz <= rz; ++dz) {
        int32_t z;
        float sz;
        if (!neighbor_coord(g, 2, iz + dz, &z, &sz)) continue;
        for (int dy = -1; dy <= 1; ++dy) {
            int32_t y;
            float sy;
            if (!neighbor_coord(g, 1, iy + dy, &y, &sy)) continue;
            const uint32_t row = (uint32_t)d0 * ((uint32_t)y + (uint32_t)d1 * (uint32_t)z);
            if (!g.layout.periodic[0]) {
                const int32_t x0 = ix > 0 ? ix - 1 : 0, x1 = ix + 1 < d0 ? ix + 1 : d0 - 1;
                f(offset[row + x0], offset[row + x1 + 1], 0.0f, sy, sz);
            } else {
                const int32_t cx = g.layout.cells[0];
                const float L = g.period[0];
                if (ix == 0) {
                    f(offset[row + cx - 1], offset[row + cx], -L, sy, sz);
                    f(offset[row], offset[row + 2], 0.0f, sy, sz);
                } else if (ix == cx - 1) {
                    f(offset[row + ix - 1], offset[row + ix + 1], 0.0f, sy, sz);
                    f(offset[row], offset[row + 1], L, sy, sz);
                } else {
                    f(offset[row + ix - 1], offset[row + ix + 2], 0.0f, sy, sz);
                }
            }
        }
    }
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
    const float pos[3] = {xi, yi, zi};
    eddy_mirror mirror[EDDY_MAX_MIRRORS];
    const int nmir =
        c.colliders ? eddy_hd_mirrors(colliders, (size_t)c.colliders, c.dims, c.gravity, c.h, pos, mirror) : 0;
    const float h2 = c.h2;
    float sum = 0.0f;
    for_each_range(g, offset, s.cell[i], [&](uint32_t b, uint32_t e, float sx, float sy, float sz) {
        for (uint32_t j = b; j < e; ++j) {
            const float xj = x[j] + sx, yj = y[j] + sy, zj = z[j] + sz;
            const float dx = xi - xj, dy = yi - yj, dz = zi - zj;
            const float r2 = dx * dx + dy * dy + dz * dz;
            if (!(r2 < h2)) continue;
            const float mj = mass[j], d = h2 - r2;
            sum += mj * d * d * d;
            /* A ghost within h of i is the image of a neighbour within h (eddy_boundaries_mirrors). */
            const float pj[3] = {xj, yj, zj};
            for (int mi = 0; mi < nmir; ++mi) {
                float gp[3];
                eddy_mirror_point(&mirror[mi], pj, gp);
                const float gx = xi - gp[0], gy = yi - gp[1], gz = zi - gp[2];
                const float dg = h2 - (gx * gx + gy * gy + gz * gz);
                if (dg > 0.0f) sum += mj * dg * dg * dg;
            }
        }
    });
    const material_dev &m = mat[s.material[i]];
    const float density = c.poly6 * sum + m.self_density;
    s.f[S_DENSITY][i] = density;
    s.f[S_VOLUME][i] = mass[i] / density;
    const float pr = m.stiffness * (density - m.rest_density);
    s.f[S_PRESSURE][i] = pr < 0.0f ? pr * c.negative_pressure : pr;
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
    const float mu_i = mi_.viscosity, gs_i = mi_.gradient_scale;
    const float inv_rho_i = 1.0f / rho[i];
    const float wp = c.pair_weight * inv_rho_i;
    const float h = c.h, h2 = c.h2, tiny2 = c.tiny2, cp = c.spiky_grad, cv = c.visc_lap;
    const float pos[3] = {xi, yi, zi};
    eddy_mirror mirror[EDDY_MAX_MIRRORS];
    const int nmir =
        c.colliders ? eddy_hd_mirrors(colliders, (size_t)c.colliders, c.dims, c.gravity, h, pos, mirror) : 0;
    float fx = 0.0f, fy = 0.0f, fz = 0.0f, px = 0.0f, py = 0.0f, pz = 0.0f;
    for_each_range(g, offset, s.cell[i], [&](uint32_t b, uint32_t e, float sx, float sy, float sz) {
        for (uint32_t j = b; j < e; ++j) {
            const float xj = x[j] + sx, yj = y[j] + sy, zj = z[j] + sz;
            const float dx = xi - xj, dy = yi - yj, dz = zi - zj;
            const float r2 = dx * dx + dy * dy + dz * dz;
            if (!(r2 < h2)) continue;
            const material_dev &mj = mat[matid[j]];
            /* Pair weight w (p_i + p_j) / (rho_i rho_j); the gradient scale and mu are the pair's means
             * (sph_mueller.c explains the choice). */
            const float cpij = cp * (0.5f * (gs_i + mj.gradient_scale));
            const float mu = 0.5f * (mu_i + mj.viscosity);
            const float vj = vol[j], pj = pres[j];
            if (r2 > tiny2) {
                const float rr = sqrtf(r2), hr = h - rr, inv_r = 1.0f / rr;
                const float fp = vj * wp * (pi + pj) * cpij * hr * hr * inv_r;
                const float fv = vj * mu * cv * hr;
                px += fp * dx;
                py += fp * dy;
                pz += fp * dz;
                fx += fv * (vx[j] - vxi);
                fy += fv * (vy[j] - vyi);
                fz += fv * (vz[j] - vzi);
            }
            if (nmir == 0) continue;
            const float xv[3] = {xj, yj, zj}, vv[3] = {vx[j], vy[j], vz[j]};
            const float rho_j = rho[j];
            for (int q = 0; q < nmir; ++q) {
                const eddy_mirror &mm = mirror[q];
                float gp[3], gv[3];
                eddy_mirror_point(&mm, xv, gp);
                const float gx = xi - gp[0], gy = yi - gp[1], gz = zi - gp[2];
                const float g2 = gx * gx + gy * gy + gz * gz;
                if (!(g2 < h2) || g2 <= tiny2) continue;
                eddy_mirror_velocity(&mm, vv, gv);
                const float pg = eddy_mirror_pressure(&mm, pj, rho_j, xv);
                const float rr = sqrtf(g2), hr = h - rr;
                const float fp = vj * wp * (pi + pg) * cpij * hr * hr / rr;
                const float fv = vj * mu * cv * hr;
                px += fp * gx;
                py += fp * gy;
                pz += fp * gz;
                fx += fv * (gv[0] - vxi);
                fy += fv * (gv[1] - vyi);
                fz += fv * (gv[2] - vzi);
            }
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
        for (int k = 0; k < c.colliders; ++k) eddy_hd_contact_respond(&colliders[k], c.dims, &cp, p, v);
    }
    s.f[S_VX][i] = v[0];
    s.f[S_VY][i] = v[1];
    s.f[S_VZ][i] = v[2];
    s.f[S_X][i] = p[0] + v[0] * dt;
    s.f[S_Y][i] = p[1] + v[1] * dt;
    s.f[S_Z][i] = p[2] + v[2] * dt;
}

/* Sorted -> host order, for the copy back into the world and the next step's sort. */
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

/* ---------------------------------------------------------------------------------------------- */
/* Host side                                                                                      */

void release_particles(eddy_solver *s)
{
    for (float *&p : s->h.f) cudaFree(p);
    cudaFree(s->h.material);
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
    for (float *&p : s->s.f) CUDA_TRY(cudaMalloc(&p, cap * sizeof(float)));
    CUDA_TRY(cudaMalloc(&s->s.material, cap * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc(&s->s.host_index, cap * sizeof(uint32_t)));
    s->capacity = cap;
    return EDDY_OK;
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
    return EDDY_OK;
}

/* World -> device, everything a step reads (host-order copies), with the layout's generation. */
int upload_all(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    const eddy_particles *p = &w->particles;
    const size_t n = p->count;
    if (n > (size_t)INT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "sph_mueller_cuda: %zu particles exceed 2^31 - 1", n);
    s->resident = 0;
    int rc = reserve_particles(s, n, err);
    if (rc) return rc;
    s->n = n;
    for (int u = 0; u < UPLOAD_COUNT; ++u)
        if ((rc = upload_one(s, w, u, err))) return rc;
    if (n)
        CUDA_TRY(cudaMemcpyAsync(s->h.material, p->material, n * sizeof(uint32_t), cudaMemcpyHostToDevice, s->stream));
    s->layout_generation = eddy_world_field_generation(w, EDDY_FIELD_LAYOUT);
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
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    step_consts c;
    c.h = k.h;
    c.h2 = k.h2;
    c.tiny2 = 1e-12f * k.h2;
    c.poly6 = k.poly6;
    c.spiky_grad = k.spiky_grad;
    c.visc_lap = k.visc_lap;
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
 * domain policy with its own messages: an error, or removal), then uploads the result. */
int make_resident(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc;
    if ((rc = upload_edits(s, w, err))) return rc;
    if ((rc = upload_colliders(s, w, err))) return rc;
    if (s->n == 0) return EDDY_OK;
    CUDA_TRY(cudaMemsetAsync(s->scalars, 0, 2 * sizeof(unsigned), s->stream));
    wrap_and_check<<<blocks_for(s->n), BLOCK, 0, s->stream>>>(s->grid, (uint32_t)s->n, s->h.f[H_X], s->h.f[H_Y],
                                                              s->h.f[H_Z], s->scalars);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaMemcpyAsync(s->pinned, s->scalars, sizeof(unsigned), cudaMemcpyDeviceToHost, s->stream));
    CUDA_TRY(cudaStreamSynchronize(s->stream));
    if (s->pinned[0]) {
        /* The world's arrays hold the positions of the last step's end, unwrapped: exactly what the
         * CPU solver would hand to its grid build now. */
        s->resident = 0;
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
    if (e != cudaSuccess) return device_error(err, f.call, e);
    s->s.cell = s->sort.key[1];
    gather_sorted<<<blocks_for(n), BLOCK, 0, st>>>((uint32_t)n, s->sort.value[1], s->h, s->s);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventRecord(s->ev[1], st));
    density_pass<<<blocks_for(n), BLOCK, 0, st>>>((uint32_t)n, s->grid, s->sort.offset, s->s, s->materials,
                                                  s->colliders, c);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventRecord(s->ev[2], st));
    CUDA_TRY(cudaMemsetAsync(s->scalars + 1, 0, sizeof(unsigned), st));
    force_pass<<<blocks_for(n), BLOCK, 0, st>>>((uint32_t)n, s->grid, s->sort.offset, s->s, s->materials,
                                                s->colliders, c, s->scalars + 1);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventRecord(s->ev[3], st));
    return EDDY_OK;
}

/* Sorted -> host order -> the world's arrays, the largest acceleration, and the wait for all of it.
 * Writing the world's arrays here is the solver's own update, not a host edit: no generation moves, and
 * the device copy stays what the world holds. */
int copy_back(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    const size_t n = s->n;
    cudaStream_t st = s->stream;
    eddy_particles *p = &w->particles;
    scatter_host<<<blocks_for(n), BLOCK, 0, st>>>((uint32_t)n, s->s, s->h);
    CUDA_TRY(cudaGetLastError());
    float *dst[] = {p->x,
                    p->y,
                    p->z,
                    p->vx,
                    p->vy,
                    p->vz,
                    p->density,
                    p->pressure,
                    eddy_particles_field(p, s->acceleration, 0),
                    eddy_particles_field(p, s->acceleration, 1),
                    eddy_particles_field(p, s->acceleration, 2)};
    const int src[] = {H_X, H_Y, H_Z, H_VX, H_VY, H_VZ, H_DENSITY, H_PRESSURE, H_AX, H_AY, H_AZ};
    for (int a = 0; a < 11; ++a)
        CUDA_TRY(cudaMemcpyAsync(dst[a], s->h.f[src[a]], n * sizeof(float), cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaMemcpyAsync(s->pinned + 1, s->scalars + 1, sizeof(unsigned), cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaEventRecord(s->ev[4], st));
    CUDA_TRY(cudaStreamSynchronize(st));
    float a2;
    memcpy(&a2, &s->pinned[1], sizeof a2);
    s->max_accel = sqrtf(a2);
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
    release_particles(s);
    device_sort_release(&s->sort);
    cudaFree(s->materials);
    cudaFree(s->colliders);
    cudaFree(s->scalars);
    cudaFreeHost(s->pinned);
    for (cudaEvent_t &e : s->ev)
        if (e) cudaEventDestroy(e);
    if (s->stream) cudaStreamDestroy(s->stream);
    free(s->stiffness_host);
    free(s->nu_host);
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
    /* The CPU step's optional terms the device step does not have: refused (before the
     * device is looked for, so a machine without one says so too), never silently dropped. */
    if (param_integer(pv, SPH_MUELLER_CUDA_P_WALL_VELOCITY) != 0) {
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "sph_mueller_cuda: wall_velocity = \"no_slip\" is not implemented on the GPU; "
                              "use the solver sph_mueller");
    }
    if (param_integer(pv, SPH_MUELLER_CUDA_P_SHIFTING) != 0) {
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "sph_mueller_cuda: shifting = true is not implemented on the GPU; use the solver "
                              "sph_mueller");
    }
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e == cudaSuccess && devices == 0) e = cudaErrorNoDevice;
    if (e != cudaSuccess)
        return eddy_error_set(err, EDDY_ERR_DEVICE, "sph_mueller_cuda: no CUDA device (cudaGetDeviceCount: %s)",
                              cudaGetErrorString(e));
    CUDA_TRY(cudaSetDevice(0));
    cudaFuncAttributes attr;
    if ((e = cudaFuncGetAttributes(&attr, force_pass)) != cudaSuccess)
        return eddy_error_set(err, EDDY_ERR_DEVICE,
                              "sph_mueller_cuda: the plugin has no code for device 0: %s; rebuild with "
                              "-DCMAKE_CUDA_ARCHITECTURES=<its compute capability>",
                              cudaGetErrorString(e));
    const eddy_grid_layout *l = &w->grid.layout;
    if (l->cell_count == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "sph_mueller_cuda: the world has no grid layout");
    if (l->cell_count + 1 > (size_t)INT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "sph_mueller_cuda: %zu cells exceed 2^31 - 2; use a larger smoothing radius",
                              l->cell_count);

    eddy_solver *s = static_cast<eddy_solver *>(calloc(1, sizeof(eddy_solver)));
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "sph_mueller_cuda: out of memory");
    s->cfl = param_number(pv, SPH_MUELLER_CUDA_P_CFL);
    s->negative_pressure = (float)param_number(pv, SPH_MUELLER_CUDA_P_NEGATIVE_PRESSURE);
    /* ENUM: the index into {consistent, mueller}. */
    s->pair_weight = param_integer(pv, SPH_MUELLER_CUDA_P_PRESSURE_FORCE) == 1 ? 0.5f : 1.0f;
    s->device = 0;
    s->grid.layout = *l;
    for (int a = 0; a < 3; ++a) s->grid.period[a] = l->hi[a] - l->lo[a];
    s->cells = l->cell_count;

    /* Per-material constants, computed as sph_mueller's create() does. */
    const size_t nm = w->material_count ? w->material_count : 1;
    s->material_count = w->material_count;
    material_dev *mats = static_cast<material_dev *>(calloc(nm, sizeof(material_dev)));
    s->stiffness_host = static_cast<float *>(calloc(nm, sizeof(float)));
    s->nu_host = static_cast<float *>(calloc(nm, sizeof(float)));
    if (!mats || !s->stiffness_host || !s->nu_host) {
        free(mats);
        destroy(s);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "sph_mueller_cuda: out of memory");
    }
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    for (size_t m = 0; m < w->material_count; ++m) {
        const eddy_material *mat = &w->materials[m];
        const float viscosity = (float)eddy_material_param(
            mat, &sph_mueller_cuda_material_params[SPH_MUELLER_CUDA_M_VISCOSITY]);
        const float stiffness = (float)eddy_material_param(
            mat, &sph_mueller_cuda_material_params[SPH_MUELLER_CUDA_M_STIFFNESS]);
        const float initial_sum = (float)eddy_material_param(
            mat, &sph_mueller_cuda_material_params[SPH_MUELLER_CUDA_M_INITIAL_SUM]);
        mats[m].rest_density = mat->rest_density;
        mats[m].stiffness = stiffness;
        mats[m].viscosity = viscosity;
        mats[m].self_density = (initial_sum - 1.0f) * mat->particle_mass * eddy_poly6(&k, 0.0f);
        mats[m].gradient_scale =
            s->pair_weight == 1.0f
                ? (float)(1.0 / eddy_lattice_gradient_moment(mat->particle_dist, w->smoothing_radius, w->dimensions))
                : 1.0f;
        mats[m].contact = w->contacts[m];
        s->stiffness_host[m] = stiffness;
        s->nu_host[m] = viscosity / mat->rest_density;
    }
    int rc = EDDY_OK;
#define CREATE_TRY(call)                                                                                \
    do {                                                                                                \
        const cudaError_t ce_ = (call);                                                                 \
        if (ce_ != cudaSuccess) {                                                                       \
            rc = device_error(err, #call, ce_);                                                         \
            goto fail;                                                                                  \
        }                                                                                               \
    } while (0)
    /* Its own non-blocking stream: nothing of the process's default stream is waited for. */
    CREATE_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    for (cudaEvent_t &ev : s->ev) CREATE_TRY(cudaEventCreate(&ev));
    CREATE_TRY(cudaMalloc(&s->materials, nm * sizeof(material_dev)));
    CREATE_TRY(cudaMemcpy(s->materials, mats, nm * sizeof(material_dev), cudaMemcpyHostToDevice));
    CREATE_TRY(cudaMalloc(&s->scalars, 2 * sizeof(unsigned)));
    CREATE_TRY(cudaMallocHost(&s->pinned, 2 * sizeof(unsigned)));
#undef CREATE_TRY
    free(mats);
    mats = nullptr;
    if ((rc = eddy_particles_add_field(&w->particles, "acceleration", 3, &s->acceleration, err))) goto fail;
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
    if ((rc = copy_back(s, w, err))) return rc;
    /* The copy back is counted with the integration: it is the price of keeping the host copy current. */
    eddy_world_add_phase_time(w, EDDY_PHASE_GRID, elapsed_ms(s->ev[0], s->ev[1]));
    eddy_world_add_phase_time(w, EDDY_PHASE_DENSITY, elapsed_ms(s->ev[1], s->ev[2]));
    eddy_world_add_phase_time(w, EDDY_PHASE_FORCES, elapsed_ms(s->ev[2], s->ev[3]));
    eddy_world_add_phase_time(w, EDDY_PHASE_INTEGRATE, elapsed_ms(s->ev[3], s->ev[4]));
    return EDDY_OK;
}

/* Frame 0 (and the first call after a resume): density, pressure and acceleration of the current
 * state. The world's arrays are deliberately not sorted here (no eddy_world_build_grid unless a
 * particle is outside the domain): the device sorts the world's order, so a resumed run, whose world
 * comes back in the checkpoint's order, sorts exactly as the uninterrupted run did. Everything is
 * uploaded (the host calls this after create() and after restoring a checkpoint). */
int fields_on_device(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    s->resident = 0;
    int rc = make_resident(s, w, err);
    if (rc) return rc;
    if (s->n == 0) return EDDY_OK;
    if ((rc = compute_on_device(s, w, 0.0f, err))) return rc;
    return copy_back(s, w, err);
}

/* The callbacks may come from any host thread (EDDY_COMPONENT_CONCURRENT_INSTANCES): each selects the
 * solver's device first. After a failure the device copy may differ from the world's arrays in ways no
 * generation shows (a step half done, a copy back cut short): the next call uploads everything. */
int step(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    CUDA_TRY(cudaSetDevice(s->device));
    const int rc = step_on_device(s, w, dt_in, err);
    if (rc) s->resident = 0;
    return rc;
}

int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    CUDA_TRY(cudaSetDevice(s->device));
    const int rc = fields_on_device(s, w, err);
    if (rc) s->resident = 0;
    return rc;
}

/* The limits of sph_mueller's max_dt. The largest speed comes from the core's reduction over the
 * world's arrays (eddy_world_stable_dt), which are current after every step (the copy back). */
int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    (void)err;
    double kmax = 0.0, nu_max = 0.0;
    for (size_t m = 0; m < s->material_count; ++m) {
        if (s->stiffness_host[m] > kmax) kmax = s->stiffness_host[m];
        if (s->nu_host[m] > nu_max) nu_max = s->nu_host[m];
    }
    *dt = eddy_world_stable_dt(w, s->cfl, sqrt(kmax), nu_max, s->max_accel, limit);
    return EDDY_OK;
}

int save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    return eddy_state_save_floats("sph_mueller_cuda/1", &s->max_accel, 1, data, size, err);
}

int load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    /* The host restores the particles just before (how it writes them need not move a generation:
     * eddy_particles_set_ids, say): upload everything at the next call. */
    s->resident = 0;
    return eddy_state_load_floats("sph_mueller_cuda/1", &s->max_accel, 1, data, size, err);
}

} // namespace

/* Positional: designated initializers are C++20, and this file is C++17 (CUB). In member order: size,
 * create, step, destroy, max_dt, save, load, compute_fields, reduce (none: the world's arrays are
 * current after every step, so the core's reduction over them serves the host). */
extern "C" const eddy_solver_vtable sph_mueller_cuda_vtable = {
    sizeof(eddy_solver_vtable), create, step, destroy, max_dt, save, load, compute_fields, nullptr};
