/*
 * eddy_sph/lattice.h — the rest-lattice normalization of every kernel the core offers.
 *
 * The host derives each material's particle mass and spacing so that a poly6 sum on the rest lattice
 * gives rho0 (eddy_rest_spacing, <eddy/world.h>). Another kernel on the same lattice does not: at
 * h = 2 spacings the cubic spline sums to about 0.986 rho0 in 2D and 0.990 rho0 in 3D, Wendland C2 to
 * about 1.023 rho0 in 2D and 1.024 rho0 in 3D, which a Tait equation with gamma = 7 turns into
 * thousands of pascals at rest. A solver summing density with such a kernel multiplies its sum by
 * eddy_sph_rest_scale() of the material.
 *
 * Double precision, pure: [any thread]. NaN where <eddy/world.h>'s lattice helpers give NaN (h /
 * spacing above EDDY_LATTICE_RATIO_MAX, non-finite input, dimensions other than 2 and 3), and for a
 * `kernel` outside the eddy_sph_kernel enum. Unlike the core's poly6 sum these sum the lattice point
 * by point: O((h / spacing)^d) per call.
 *
 * At h = 2 spacings (tests/sdk_sph checks these figures against sums over the lattice with
 * <eddy/kernels.h>): sum W / sum W_poly6 is 0.986 (2D) and 0.990 (3D) for the cubic spline, 1.023 and
 * 1.024 for Wendland C2, 1.255 and 1.224 for spiky; the gradient moment is 1.000 and 1.055 for poly6,
 * 0.874 and 0.947 for spiky, 0.999 and 1.010 for the cubic spline, 0.962 and 0.973 for Wendland C2.
 */
#ifndef EDDY_SPH_LATTICE_H
#define EDDY_SPH_LATTICE_H

#include <eddy/world.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* sum_j W(|x_j|) over the infinite square (2D) or cubic (3D) lattice of `spacing`, the origin
 * included, with the kernel of support h (the coefficients of <eddy/kernels.h>, in double): 1/m^d,
 * sim units. 0 when spacing or h <= 0. */
double eddy_sph_lattice_sum(eddy_sph_kernel kernel, double spacing, double h, int dimensions);

/* mass * eddy_sph_lattice_sum: the summation density at rest (kg/m^3 with a mass in kg, or in kg/m in
 * 2D). */
double eddy_sph_lattice_density(eddy_sph_kernel kernel, double mass, double spacing, double h, int dimensions);

/* rho0 / (m sum_j W) for a material (rest_density, particle_mass, particle_dist): the factor that makes
 * `kernel`'s summation density equal rho0 on the rest lattice (1 for poly6, up to the bisection's
 * tolerance), dimensionless. NaN for a NULL material and where the lattice density is not positive
 * (spacing or h <= 0, no mass) or NaN (above). */
double eddy_sph_rest_scale(eddy_sph_kernel kernel, const eddy_material *material, double h, int dimensions);

/*
 * First moment of `kernel`'s gradient on the rest lattice, with the lattice-consistent volume
 * V = 1 / sum_j W_poly6 (mass over rho0 as the host derives it): V sum_j x_j^2 |W'(|x_j|)| / |x_j|,
 * dimensionless. A pressure force sum_j V (p_j - p_i) |W'| e_ij reproduces a linear pressure gradient
 * times this factor, so a solver divides its gradient by it (1 in the continuum limit). For the spiky
 * kernel it is <eddy/world.h>'s eddy_lattice_gradient_moment, which knows no other kernel: a solver
 * taking the poly6, cubic spline or Wendland gradient uses this function; at h = 2 spacings the poly6 gradient
 * gives 1.000 in 2D and 1.055 in 3D. 1 when spacing or h <= 0, 0 for spacing >= h, NaN out of range
 * (as eddy_sph_lattice_sum).
 */
double eddy_sph_lattice_gradient_moment(eddy_sph_kernel kernel, double spacing, double h, int dimensions);

#ifdef __cplusplus
}
#endif

#endif /* EDDY_SPH_LATTICE_H */
