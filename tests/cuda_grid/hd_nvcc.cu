/*
 * The shared host/device math (<eddy/grid.h>'s eddy_grid_cell_of and eddy_grid_wrap_coordinate,
 * <eddy/boundary.h>'s mirror apply, <eddy/boundary_math.h>, the toolkit's <eddy_sph/kernels.h> and
 * sph_mueller's mueller_equations.h) compiled by nvcc, as the CUDA plugin
 * compiles it, behind plain C entry points that test_cuda_grid.c compares with libeddy's C build.
 *
 * These are the host instances of the EDDY_HD functions: nvcc's front end and the CUDA C++ dialect
 * with the plugin's flags, not the GPU's arithmetic (that needs a device: the gpu-labelled tests).
 * What they can catch without a GPU: the header meaning something else as CUDA C++ than as C (an
 * #ifdef __CUDACC__ branch, a C/C++ difference in conversions or constants), or not compiling for
 * nvcc at all. A __global__ kernel calls every function too, so this file also fails to build when a
 * function stops being callable from device code.
 *
 * A perturbation (`ulps` > 0) moves the inputs the nvcc side sees by that many floats, so the caller
 * can show that its comparison notices a one-ulp difference.
 */
#include <eddy/boundary_math.h>
#include <eddy/grid.h>
#include <eddy_sph/kernels.h>

#include <math.h>

#include "hd_nvcc.h"

namespace {

float nudge(float v, int ulps)
{
    for (int k = 0; k < ulps; ++k) v = nextafterf(v, INFINITY);
    return v;
}

} // namespace

/* Every function of the shared headers from device code: built, never launched here. */
__global__ void hd_nvcc_device_instances(const eddy_grid_layout l, const eddy_collider *c,
                                         eddy_contact_params cp, float *out)
{
    const float p[3] = {out[0], out[1], out[2]};
    float v[3] = {out[3], out[4], out[5]}, q[3] = {p[0], p[1], p[2]}, n[3];
    eddy_mirror m[EDDY_MAX_MIRRORS];
    size_t which[EDDY_MAX_MIRROR_WALLS];
    float dist[EDDY_MAX_MIRROR_WALLS], normal[EDDY_MAX_MIRROR_WALLS][3];
    out[0] = (float)eddy_grid_cell_of(&l, p[0], p[1], p[2]);
    out[1] = eddy_grid_wrap_coordinate(p[0], l.lo[0], l.hi[0]);
    out[2] = eddy_hd_collider_distance(c, l.dimensions, p, n);
    out[3] = (float)eddy_hd_contact_respond(c, l.dimensions, &cp, q, v);
    out[4] = (float)eddy_hd_mirror_walls(c, 1, l.dimensions, 1.0f, p, which, dist, normal, NULL, NULL);
    const int k = eddy_hd_mirrors(c, 1, l.dimensions, n, 1.0f, p, m);
    eddy_mirror_point(&m[0], p, q);
    eddy_mirror_velocity(&m[0], v, n);
    out[5] = (float)k + q[0] + n[0] + eddy_mirror_pressure(&m[0], 1.0f, 1.0f, p);
    float dx = p[0], dy = p[1], dz = p[2];
    eddy_grid_min_image(&l, &dx, &dy, &dz);
    out[6] = dx;
    int32_t cc[3];
    eddy_range bar[2];
    eddy_grid_cell_coords(&l, (uint32_t)out[7], cc);
    out[7] = (float)eddy_grid_bar_row(&l, cc, eddy_grid_bar_rows(&l) - 1, bar) + (float)bar[0].begin;
}

/* The SPH equations of sph_mueller_cuda's passes from device code: built, never launched here. */
__global__ void hd_nvcc_device_equations(const eddy_kernels k, mueller_pair_ctx c, float *out)
{
    const float r2 = out[0], r = sqrtf(r2);
    const mueller_pair_w w = mueller_pair(&c, r2, out[1], out[2], out[3], out[4]);
    out[0] = w.fp + w.fv;
    out[1] = mueller_pressure(out[1], out[2], out[3], out[4]);
    out[2] = eddy_sph_density(&k, eddy_sph_poly6_mass_term(out[5], k.h2, r2), out[6]) +
             eddy_sph_wendland_mass_term(out[5], 1.0f / k.h, r2);
    const mueller_pair_w v = mueller_pair_variational(&c, &k, out[7], r2, out[1], out[5], out[2], out[6], out[3], out[4]);
    out[4] = v.fp + v.fv;
    out[3] = eddy_sph_poly6(&k, r2) + eddy_sph_poly6_grad(&k, r2) + eddy_sph_spiky(&k, r) +
             eddy_sph_spiky_grad(&k, r2, c.tiny2) + eddy_sph_viscosity_laplacian(&k, r) + eddy_sph_cubic(&k, r) +
             eddy_sph_cubic_grad(&k, r) + eddy_sph_wendland(&k, r) + eddy_sph_wendland_grad(&k, r);
}

extern "C" {

uint32_t hd_nvcc_cell_of(const eddy_grid_layout *l, float x, float y, float z, int ulps)
{
    return eddy_grid_cell_of(l, nudge(x, ulps), nudge(y, ulps), nudge(z, ulps));
}

int hd_nvcc_bar_row(const eddy_grid_layout *l, uint32_t cell, int row, eddy_range out[2], int ulps)
{
    int32_t c[3];
    eddy_grid_cell_coords(l, cell + (ulps > 0 ? 1u : 0u), c);
    return eddy_grid_bar_row(l, c, row, out);
}

float hd_nvcc_wrap(float v, float lo, float hi, int ulps)
{
    return eddy_grid_wrap_coordinate(nudge(v, ulps), lo, hi);
}

float hd_nvcc_collider_distance(const eddy_collider *c, int dims, const float p[3], float n[3], int ulps)
{
    const float q[3] = {nudge(p[0], ulps), nudge(p[1], ulps), nudge(p[2], ulps)};
    return eddy_hd_collider_distance(c, dims, q, n);
}

int hd_nvcc_contact_respond(const eddy_collider *c, int dims, const eddy_contact_params *cp, float p[3], float v[3],
                            int ulps)
{
    for (int a = 0; a < 3; ++a) p[a] = nudge(p[a], ulps);
    return eddy_hd_contact_respond(c, dims, cp, p, v);
}

int hd_nvcc_mirrors(const eddy_collider *c, size_t count, int dims, const float g[3], float reach, const float p[3],
                    eddy_mirror out[EDDY_MAX_MIRRORS], size_t walls[EDDY_MAX_MIRROR_WALLS], int *wall_count,
                    int ulps)
{
    const float q[3] = {nudge(p[0], ulps), nudge(p[1], ulps), nudge(p[2], ulps)};
    float dist[EDDY_MAX_MIRROR_WALLS], normal[EDDY_MAX_MIRROR_WALLS][3];
    *wall_count = eddy_hd_mirror_walls(c, count, dims, reach, q, walls, dist, normal, NULL, NULL);
    return eddy_hd_mirrors(c, count, dims, g, reach, q, out);
}

void hd_nvcc_mirror_apply(const eddy_mirror *m, const float x[3], const float v[3], float p, float rho,
                          float out_x[3], float out_v[3], float *out_p)
{
    eddy_mirror_point(m, x, out_x);
    eddy_mirror_velocity(m, v, out_v);
    *out_p = eddy_mirror_pressure(m, p, rho, x);
}

mueller_pair_w hd_nvcc_mueller_pair(const mueller_pair_ctx *c, float r2, float vol, float pj, float gs_j, float mu_j,
                                    int ulps)
{
    return mueller_pair(c, nudge(r2, ulps), vol, pj, gs_j, mu_j);
}

mueller_pair_w hd_nvcc_mueller_pair_variational(const mueller_pair_ctx *c, const eddy_kernels *k, float pi_rho2, float r2,
                                                float vol, float mj, float pj, float rhoj, float gs_j, float mu_j,
                                                int ulps)
{
    return mueller_pair_variational(c, k, pi_rho2, nudge(r2, ulps), vol, mj, pj, rhoj, gs_j, mu_j);
}

float hd_nvcc_wendland_mass_term(float mass, float inv_h, float r2, int ulps)
{
    return eddy_sph_wendland_mass_term(mass, inv_h, nudge(r2, ulps));
}

float hd_nvcc_mueller_pressure(float stiffness, float density, float rest_density, float negative_pressure, int ulps)
{
    return mueller_pressure(stiffness, nudge(density, ulps), rest_density, negative_pressure);
}

float hd_nvcc_poly6_mass_term(float mass, float h2, float r2, int ulps)
{
    return eddy_sph_poly6_mass_term(mass, h2, nudge(r2, ulps));
}

float hd_nvcc_density(const eddy_kernels *k, float sum, float self_density, int ulps)
{
    return eddy_sph_density(k, nudge(sum, ulps), self_density);
}

void hd_nvcc_sph_kernels(const eddy_kernels *k, float r, float tiny2, float out[9], int ulps)
{
    r = nudge(r, ulps);
    const float r2 = r * r;
    out[0] = eddy_sph_poly6(k, r2);
    out[1] = eddy_sph_poly6_grad(k, r2);
    out[2] = eddy_sph_spiky(k, r);
    out[3] = eddy_sph_spiky_grad(k, r2, tiny2);
    out[4] = eddy_sph_viscosity_laplacian(k, r);
    out[5] = eddy_sph_cubic(k, r);
    out[6] = eddy_sph_cubic_grad(k, r);
    out[7] = eddy_sph_wendland(k, r);
    out[8] = eddy_sph_wendland_grad(k, r);
}

} // extern "C"
