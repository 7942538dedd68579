/*
 * eddy_sph/kernels.h — the kernels of <eddy/kernels.h> as branch-free masked expressions.
 *
 * <eddy/kernels.h> stays the reference definition (tests/sdk_sph checks these against it). The
 * versions here have no control flow: outside the support (and at r = 0 for the spiky and cubic
 * spline gradients, which divide by r) a select makes the factor 0 (the poly6 and Wendland gradient
 * factors are finite at r = 0, as in the reference), and no division or square root sits under a
 * condition, so a loop over candidates
 * that calls them vectorizes (GCC needs -fno-trapping-math -fno-math-errno, which eddy sets). They
 * take r^2 where the kernel allows it and r otherwise, with the coefficients of eddy_kernels: r^2 for
 * the poly6 functions, the mass terms (Wendland's too) and eddy_sph_spiky_grad (whose core counterpart
 * eddy_spiky_grad takes r); r for eddy_sph_spiky, the cubic spline, Wendland, the viscosity Laplacian
 * and eddy_sph_kernel_value. Passing the wrong one compiles silently (both are float) and gives a wrong
 * but plausible value: eddy_sph_wendland_grad(k, r * r) at r = h/2 with h = 0.01 is 7.9 times too large.
 *
 * Gradients are factors g with grad_i W(x_i - x_j) = g (x_i - x_j), as in <eddy/kernels.h>.
 *
 * Beyond the support (r > h) every function gives 0, as the reference does, and at r = h too, except
 * that the cubic spline and Wendland C2, which take q = r (1/h), keep (1 - q)^n of an ulp (~1e-22 of
 * their peak) where h (1/h) rounds below 1, as the reference does. At r = 0 each gives the
 * reference's value (tests/sdk_sph checks r = 0, r = h and the floats around h). `k` comes from
 * eddy_kernels_make with h > 0: h <= 0 makes the coefficients infinite and the values inf or NaN (not
 * checked). Units as <eddy/kernels.h>. Pure, allocate nothing: [any thread], host and device.
 */
#ifndef EDDY_SPH_KERNELS_H
#define EDDY_SPH_KERNELS_H

#include <math.h>

#include <eddy/kernels.h>

#include "defs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernels of the core, for tables and the rest-lattice helpers (eddy_sph/lattice.h). */
typedef enum eddy_sph_kernel {
    EDDY_SPH_POLY6 = 0,
    EDDY_SPH_SPIKY = 1,
    EDDY_SPH_CUBIC = 2,
    EDDY_SPH_WENDLAND = 3
} eddy_sph_kernel;

/* max(a, 0) as a select. */
EDDY_SPH_INLINE float eddy_sph_pos(float a) { return a > 0.0f ? a : 0.0f; }

/* (h^2 - r^2)^3 clamped at 0: poly6 without its coefficient, the term density sums accumulate. */
EDDY_SPH_INLINE float eddy_sph_poly6_term(float h2, float r2)
{
    const float d = eddy_sph_pos(h2 - r2);
    return d * d * d;
}

/* m (h^2 - r^2)^3, clamped at 0: one partner's term of a poly6 density sum, kg m^6 (kg m^5 in 2D,
 * where m is per unit depth; sim units). The
 * product is m d d d, not m (d d d): the rounding every solver's sums have had, CPU and GPU alike. */
EDDY_SPH_INLINE float eddy_sph_poly6_mass_term(float mass, float h2, float r2)
{
    const float d = eddy_sph_pos(h2 - r2);
    return mass * d * d * d;
}

/* m (1 - q)^4 (1 + 4 q) with q = r / h, clamped at 0: one partner's term of a Wendland C2 density sum
 * without its coefficient (eddy_kernels.wendland), kg (sim units); inv_h = 1 / h. Takes r^2, unlike
 * eddy_sph_wendland and eddy_sph_wendland_grad, which take r. */
EDDY_SPH_INLINE float eddy_sph_wendland_mass_term(float mass, float inv_h, float r2)
{
    const float q = sqrtf(r2) * inv_h;
    const float a = eddy_sph_pos(1.0f - q), a2 = a * a;
    return mass * a2 * a2 * (1.0f + 4.0f * q);
}

/* The mass term of a density sum with `kernel`: EDDY_SPH_WENDLAND's, else poly6's (the two kernels the
 * density passes sum with). A constant `kernel` leaves one of them after inlining. */
EDDY_SPH_INLINE float eddy_sph_kernel_mass_term(eddy_sph_kernel kernel, float mass, float h2, float inv_h, float r2)
{
    return kernel == EDDY_SPH_WENDLAND ? eddy_sph_wendland_mass_term(mass, inv_h, r2)
                                       : eddy_sph_poly6_mass_term(mass, h2, r2);
}

/* The density of a particle from its poly6 sum (sum_j m_j (h^2 - r_ij^2)^3, the particle itself
 * included) and its material's self term: k.poly6 sum + self_density, kg/m^3 (sim units, 2D too). */
EDDY_SPH_INLINE float eddy_sph_density(const eddy_kernels *k, float sum, float self_density)
{
    return k->poly6 * sum + self_density;
}

/* eddy_poly6, eddy_poly6_grad, eddy_spiky, ... of <eddy/kernels.h>, masked, in the same units and with
 * the same argument (r^2 for poly6, r otherwise), except eddy_sph_spiky_grad, which takes r^2. Pure;
 * [any thread]. */
EDDY_SPH_INLINE float eddy_sph_poly6(const eddy_kernels *k, float r2)
{
    return k->poly6 * eddy_sph_poly6_term(k->h2, r2);
}

EDDY_SPH_INLINE float eddy_sph_poly6_grad(const eddy_kernels *k, float r2)
{
    const float d = eddy_sph_pos(k->h2 - r2);
    return -6.0f * k->poly6 * d * d;
}

EDDY_SPH_INLINE float eddy_sph_spiky(const eddy_kernels *k, float r)
{
    const float d = eddy_sph_pos(k->h - r);
    return k->spiky * d * d * d;
}

/* Spiky gradient factor from r^2 (grad_i W = factor (x_i - x_j), factor <= 0: W falls off with r). Takes
 * r^2, unlike the core's eddy_spiky_grad and the cubic spline and Wendland gradients here, which take r
 * (given r, it reads r as a squared distance: 0 wherever r >= h^2). 0
 * outside the support and for r^2 <= tiny2 (the particle itself or a coincident one: no direction).
 * tiny2 = 0 reproduces eddy_spiky_grad exactly. */
EDDY_SPH_INLINE float eddy_sph_spiky_grad(const eddy_kernels *k, float r2, float tiny2)
{
    /* Bitwise &: a short-circuit would be control flow. */
    const int inside = (r2 < k->h2) & (r2 > tiny2);
    const float r = sqrtf(r2);
    const float hr = inside ? k->h - r : 0.0f;
    const float inv_r = 1.0f / (inside ? r : 1.0f);
    return -k->spiky_grad * hr * hr * inv_r;
}

EDDY_SPH_INLINE float eddy_sph_viscosity_laplacian(const eddy_kernels *k, float r)
{
    return k->visc_lap * eddy_sph_pos(k->h - r);
}

/* Cubic spline: 2 (1-q)^3 - 8 (1/2-q)^3 with both brackets clamped at 0 equals the two branches of
 * the M4 spline (6 (q^3 - q^2) + 1 below q = 1/2). */
EDDY_SPH_INLINE float eddy_sph_cubic(const eddy_kernels *k, float r)
{
    const float q = r * k->inv_h;
    const float a = eddy_sph_pos(1.0f - q), b = eddy_sph_pos(0.5f - q);
    return k->cubic * (2.0f * a * a * a - 8.0f * b * b * b);
}

/* Cubic spline gradient factor from r, not r^2 (unlike eddy_sph_poly6_grad and eddy_sph_spiky_grad).
 * Each branch's derivative is evaluated without the cancellation of the clamped form near r = 0 (its
 * two terms are ~6 where the sum is 12 q), then selected; 0 at r = 0 like the reference. */
EDDY_SPH_INLINE float eddy_sph_cubic_grad(const eddy_kernels *k, float r)
{
    const float q = r * k->inv_h;
    const float a = eddy_sph_pos(1.0f - q);
    const float inner = k->cubic * (18.0f * q - 12.0f) * k->inv_h * k->inv_h; /* dW/dq / (q h^2) */
    const float outer = -6.0f * k->cubic * a * a * k->inv_h / (r > 0.0f ? r : 1.0f);
    const float g = q <= 0.5f ? inner : outer;
    return r > 0.0f ? g : 0.0f;
}

EDDY_SPH_INLINE float eddy_sph_wendland(const eddy_kernels *k, float r)
{
    const float q = r * k->inv_h;
    const float a = eddy_sph_pos(1.0f - q), a2 = a * a;
    return k->wendland * a2 * a2 * (1.0f + 4.0f * q);
}

/* Wendland C2 gradient factor from r, not r^2 (unlike eddy_sph_poly6_grad, eddy_sph_spiky_grad and
 * eddy_sph_wendland_mass_term). */
EDDY_SPH_INLINE float eddy_sph_wendland_grad(const eddy_kernels *k, float r)
{
    const float a = eddy_sph_pos(1.0f - r * k->inv_h);
    return -20.0f * k->wendland * a * a * a * k->inv_h * k->inv_h;
}

/* Value of any kernel at distance r (tables, lattice sums; not for inner loops); an unknown kernel
 * gives poly6's. */
EDDY_SPH_INLINE float eddy_sph_kernel_value(const eddy_kernels *k, eddy_sph_kernel kernel, float r)
{
    switch (kernel) {
    case EDDY_SPH_SPIKY: return eddy_sph_spiky(k, r);
    case EDDY_SPH_CUBIC: return eddy_sph_cubic(k, r);
    case EDDY_SPH_WENDLAND: return eddy_sph_wendland(k, r);
    default: return eddy_sph_poly6(k, r * r);
    }
}

#ifdef __cplusplus
}
#endif

#endif /* EDDY_SPH_KERNELS_H */
