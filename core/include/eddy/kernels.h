/*
 * eddy/kernels.h — SPH smoothing kernels, 2D and 3D, as static inline functions.
 *
 * Convention: h is the *support radius* (every kernel is zero for r >= h), as in Müller, Charypar &
 * Gross 2003 and the Bullet-Fluids reference (2014). All functions take the distance r (or r^2 where
 * that avoids a square root) in simulation units: eddy_poly6 and eddy_poly6_grad take r^2, every other
 * function here takes r. Passing the wrong one compiles silently (both are eddy_real) and gives a wrong
 * but plausible value; note that <eddy_sph/kernels.h>'s eddy_sph_spiky_grad takes r^2 where
 * eddy_spiky_grad takes r. Gradients are returned as a scalar factor g such that
 *     grad_i W(r_i - r_j) = g * (r_i - r_j),
 * so callers multiply the factor by the difference vector they already have. At r = 0 the spiky and
 * cubic spline factors are 0 (they divide by r); poly6's and Wendland's are finite and non-zero there,
 * which is harmless, since the difference vector is 0.
 *
 * Normalization (d = dimensions): every kernel value integrates to 1 over R^d, and each gradient is
 * its kernel's exact gradient (so int r . grad W dV = -d). The viscosity kernel enters only through
 * its Laplacian, which does not integrate to 1: its coefficient is fixed by the second moment,
 * int r^2 lap W dV = 2d, as for the Laplacian of any kernel normalized to 1. The coefficients:
 *   poly6        3D 315/(64 pi h^9) (h^2-r^2)^3        2D 4/(pi h^8) (h^2-r^2)^3
 *   spiky        3D 15/(pi h^6) (h-r)^3                2D 10/(pi h^5) (h-r)^3
 *     gradient   3D -45/(pi h^6) (h-r)^2 r_hat         2D -30/(pi h^5) (h-r)^2 r_hat
 *   viscosity    Laplacian 3D 45/(pi h^6) (h-r)        2D 40/(pi h^5) (h-r)
 *   cubic spline (M4, support h, q = r/h)  sigma 3D 8/(pi h^3), 2D 40/(7 pi h^2);
 *                W = sigma (6(q^3-q^2)+1) for q <= 1/2, 2 sigma (1-q)^3 for q <= 1
 *   Wendland C2  3D 21/(2 pi h^3) (1-q)^4 (1+4q), 2D 7/(pi h^2) (1-q)^4 (1+4q)
 * The spiky gradient coefficient is 45/(pi h^6) (Müller 2003); some write-ups print 45/(64 pi h^6),
 * which does not normalize. tests/test_kernels.c checks every one by quadrature (integral 1, gradient
 * moment -d, Laplacian moment 2d). On the discrete rest lattice the sums miss these continuum values
 * by a few percent: eddy_lattice_gradient_moment (<eddy/world.h>) is the spiky gradient's correction
 * only; eddy_sph_lattice_gradient_moment and eddy_sph_rest_scale (<eddy_sph/lattice.h>) give every kernel's.
 *
 * Units: h and r in simulation units; W is in 1/m^d, a gradient factor in 1/m^(d+2), the Laplacian
 * in 1/m^(d+2) (sim units).
 *
 * Thread safety: pure functions. [any thread]
 */
#ifndef EDDY_KERNELS_H
#define EDDY_KERNELS_H

#include <math.h>

#include "defs.h"

EDDY_BEGIN_DECLS

#define EDDY_PI_F 3.14159265358979323846f

/* Precomputed coefficients for one support radius and dimension. Fill with eddy_kernels_make(). */
typedef struct eddy_kernels {
    eddy_real h, h2, inv_h;
    int dimensions;
    eddy_real poly6;         /* W_poly6 = poly6 * (h^2 - r^2)^3 */
    eddy_real spiky;         /* W_spiky = spiky * (h - r)^3 */
    eddy_real spiky_grad;    /* |grad W_spiky| = spiky_grad * (h - r)^2 */
    eddy_real visc_lap;      /* lap W_visc = visc_lap * (h - r) */
    eddy_real cubic;         /* cubic spline sigma */
    eddy_real wendland;      /* Wendland C2 sigma */
} eddy_kernels;

/* The coefficients for support radius h (simulation units, > 0: h = 0 gives infinite coefficients) in
 * `dimensions` (2; any other value gets the 3D ones). Returned by value; pure; [any thread]. */
static inline eddy_kernels eddy_kernels_make(eddy_real h, int dimensions)
{
    eddy_kernels k;
    eddy_real h2 = h * h, h3 = h2 * h, h5 = h3 * h2, h6 = h5 * h, h8 = h6 * h2, h9 = h8 * h;
    k.h = h;
    k.h2 = h2;
    k.inv_h = 1.0f / h;
    k.dimensions = dimensions;
    if (dimensions == 2) {
        k.poly6 = 4.0f / (EDDY_PI_F * h8);
        k.spiky = 10.0f / (EDDY_PI_F * h5);
        k.spiky_grad = 30.0f / (EDDY_PI_F * h5);
        k.visc_lap = 40.0f / (EDDY_PI_F * h5);
        k.cubic = 40.0f / (7.0f * EDDY_PI_F * h2);
        k.wendland = 7.0f / (EDDY_PI_F * h2);
    } else {
        k.poly6 = 315.0f / (64.0f * EDDY_PI_F * h9);
        k.spiky = 15.0f / (EDDY_PI_F * h6);
        k.spiky_grad = 45.0f / (EDDY_PI_F * h6);
        k.visc_lap = 45.0f / (EDDY_PI_F * h6);
        k.cubic = 8.0f / (EDDY_PI_F * h3);
        k.wendland = 21.0f / (2.0f * EDDY_PI_F * h3);
    }
    return k;
}

/* Poly6 kernel value from r^2. */
static inline eddy_real eddy_poly6(const eddy_kernels *k, eddy_real r2)
{
    if (r2 >= k->h2) return 0.0f;
    eddy_real d = k->h2 - r2;
    return k->poly6 * d * d * d;
}

/* Poly6 gradient factor from r^2: grad W = factor * (r_i - r_j); -6 poly6 h^4 (not 0) at r = 0.
 * Takes r^2, unlike the spiky, cubic spline and Wendland gradients, which take r. */
static inline eddy_real eddy_poly6_grad(const eddy_kernels *k, eddy_real r2)
{
    if (r2 >= k->h2) return 0.0f;
    eddy_real d = k->h2 - r2;
    return -6.0f * k->poly6 * d * d;
}

/* Spiky kernel value from r (its gradient, eddy_spiky_grad, is the pressure kernel of Müller 2003). */
static inline eddy_real eddy_spiky(const eddy_kernels *k, eddy_real r)
{
    if (r >= k->h) return 0.0f;
    eddy_real d = k->h - r;
    return k->spiky * d * d * d;
}

/* Spiky gradient factor: grad W = factor * (r_i - r_j); 0 at r = 0.
 * Takes r, not r^2 (unlike eddy_poly6_grad here and eddy_sph_spiky_grad of <eddy_sph/kernels.h>). */
static inline eddy_real eddy_spiky_grad(const eddy_kernels *k, eddy_real r)
{
    if (r >= k->h || r <= 0.0f) return 0.0f;
    eddy_real d = k->h - r;
    return -k->spiky_grad * d * d / r;
}

/* Laplacian of the viscosity kernel. */
static inline eddy_real eddy_viscosity_laplacian(const eddy_kernels *k, eddy_real r)
{
    if (r >= k->h) return 0.0f;
    return k->visc_lap * (k->h - r);
}

/* Cubic spline (M4) value. */
static inline eddy_real eddy_cubic(const eddy_kernels *k, eddy_real r)
{
    eddy_real q = r * k->inv_h;
    if (q >= 1.0f) return 0.0f;
    if (q <= 0.5f) return k->cubic * (6.0f * (q * q * q - q * q) + 1.0f);
    eddy_real d = 1.0f - q;
    return k->cubic * 2.0f * d * d * d;
}

/* Cubic spline gradient factor: grad W = factor * (r_i - r_j); 0 at r = 0.
 * Takes r, not r^2 (unlike eddy_poly6_grad and eddy_sph_spiky_grad). */
static inline eddy_real eddy_cubic_grad(const eddy_kernels *k, eddy_real r)
{
    eddy_real q = r * k->inv_h;
    if (q >= 1.0f || r <= 0.0f) return 0.0f;
    eddy_real dwdq;
    if (q <= 0.5f) dwdq = k->cubic * (18.0f * q * q - 12.0f * q);
    else {
        eddy_real d = 1.0f - q;
        dwdq = -6.0f * k->cubic * d * d;
    }
    return dwdq * k->inv_h / r;
}

/* Wendland C2 value. */
static inline eddy_real eddy_wendland(const eddy_kernels *k, eddy_real r)
{
    eddy_real q = r * k->inv_h;
    if (q >= 1.0f) return 0.0f;
    eddy_real d = 1.0f - q, d2 = d * d;
    return k->wendland * d2 * d2 * (1.0f + 4.0f * q);
}

/* Wendland C2 gradient factor: grad W = factor * (r_i - r_j). Finite at r = 0 (the kernel is C2).
 * Takes r, not r^2 (unlike eddy_poly6_grad and eddy_sph_spiky_grad). */
static inline eddy_real eddy_wendland_grad(const eddy_kernels *k, eddy_real r)
{
    eddy_real q = r * k->inv_h;
    if (q >= 1.0f) return 0.0f;
    eddy_real d = 1.0f - q;
    /* dW/dq = -20 q (1-q)^3 sigma, divided by r = q h: -20 (1-q)^3 sigma / h^2 */
    return -20.0f * k->wendland * d * d * d * k->inv_h * k->inv_h;
}

EDDY_END_DECLS

#endif /* EDDY_KERNELS_H */
