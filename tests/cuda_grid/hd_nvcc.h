/*
 * C entry points into the shared host/device math as nvcc compiles it (hd_nvcc.cu): each calls the
 * EDDY_HD function of the same name in <eddy/grid.h>, <eddy/boundary.h> or <eddy/boundary_math.h>, or
 * of the SPH equations sph_mueller_cuda shares with sph_mueller (<eddy_sph/kernels.h>,
 * plugins/sph_mueller/mueller_equations.h).
 * `ulps` > 0 first moves every input coordinate up by that many floats (the comparison's control).
 */
#ifndef EDDY_TEST_HD_NVCC_H
#define EDDY_TEST_HD_NVCC_H

#include <stddef.h>
#include <stdint.h>

#include <eddy/boundary.h>
#include <eddy/grid.h>
#include <eddy/kernels.h>

#include "mueller_equations.h"

#ifdef __cplusplus
extern "C" {
#endif

uint32_t hd_nvcc_cell_of(const eddy_grid_layout *l, float x, float y, float z, int ulps);
float hd_nvcc_wrap(float v, float lo, float hi, int ulps);
/* eddy_grid_bar_row of stored cell `cell` (its coordinates by eddy_grid_cell_coords); `ulps` > 0 walks
 * the next cell instead. */
int hd_nvcc_bar_row(const eddy_grid_layout *l, uint32_t cell, int row, eddy_range out[2], int ulps);
float hd_nvcc_collider_distance(const eddy_collider *c, int dims, const float p[3], float n[3], int ulps);
int hd_nvcc_contact_respond(const eddy_collider *c, int dims, const eddy_contact_params *cp, float p[3], float v[3],
                            int ulps);
/* The mirrors (returned count) and the walls behind them (walls, *wall_count). */
int hd_nvcc_mirrors(const eddy_collider *c, size_t count, int dims, const float g[3], float reach, const float p[3],
                    eddy_mirror out[EDDY_MAX_MIRRORS], size_t walls[EDDY_MAX_MIRROR_WALLS], int *wall_count,
                    int ulps);
void hd_nvcc_mirror_apply(const eddy_mirror *m, const float x[3], const float v[3], float p, float rho,
                          float out_x[3], float out_v[3], float *out_p);

/* Müller's pair weights (both forms), pressure, the poly6 and Wendland density terms and density, and the toolkit's masked
 * kernels at distance r (out[0..8]: poly6, poly6_grad, spiky, spiky_grad, viscosity_laplacian, cubic,
 * cubic_grad, wendland, wendland_grad), as nvcc compiles them; `ulps` moves r2 (r), the density and the
 * density sum up by that many floats. */
mueller_pair_w hd_nvcc_mueller_pair(const mueller_pair_ctx *c, float r2, float vol, float pj, float gs_j, float mu_j,
                                    int ulps);
mueller_pair_w hd_nvcc_mueller_pair_variational(const mueller_pair_ctx *c, const eddy_kernels *k, float pi_rho2, float r2,
                                                float vol, float mj, float pj, float rhoj, float gs_j, float mu_j,
                                                int ulps);
float hd_nvcc_wendland_mass_term(float mass, float inv_h, float r2, int ulps);
float hd_nvcc_mueller_pressure(float stiffness, float density, float rest_density, float negative_pressure, int ulps);
float hd_nvcc_poly6_mass_term(float mass, float h2, float r2, int ulps);
float hd_nvcc_density(const eddy_kernels *k, float sum, float self_density, int ulps);
void hd_nvcc_sph_kernels(const eddy_kernels *k, float r, float tiny2, float out[9], int ulps);

#ifdef __cplusplus
}
#endif

#endif /* EDDY_TEST_HD_NVCC_H */
