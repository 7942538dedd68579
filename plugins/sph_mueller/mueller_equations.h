/*
 * mueller_equations.h — the equations of Müller, Charypar & Gross (2003), as both implementations of
 * the method evaluate them: sph_mueller (CPU, plugins/sph_mueller) and sph_mueller_cuda (GPU,
 * plugins/cuda_grid). Inline and EDDY_SPH_HD (host and device), so the two compile one source and
 * cannot drift apart; the neighbour loops around them are each implementation's own.
 *
 * The density is the toolkit's poly6 sum (eddy_sph/kernels.h: eddy_sph_density); what is Müller's is
 * the equation of state and the pair terms of the momentum equation.
 */
#ifndef EDDY_MUELLER_EQUATIONS_H
#define EDDY_MUELLER_EQUATIONS_H

#include <math.h>

#include <eddy_sph/defs.h>
#include <eddy_sph/kernels.h>

/* Inlining is what lets the CPU's pair loops vectorize (the weights stay in registers); on the device
 * it is the compiler's default for a small function. */
#if defined(__CUDACC__)
#define MUELLER_INLINE static __forceinline__ EDDY_SPH_HD
#else
#define MUELLER_INLINE static inline __attribute__((always_inline))
#endif

/* Müller et al. 2003 eq. 12 (the Bullet-Fluids reference's eq. 3): p = k (rho - rho0), Pa (sim
 * units). A negative pressure (tension) is scaled by negative_pressure: 1 keeps it, 0 clamps it away. */
MUELLER_INLINE float mueller_pressure(float stiffness, float density, float rest_density, float negative_pressure)
{
    const float p = stiffness * (density - rest_density);
    return p < 0.0f ? p * negative_pressure : p;
}

/* What the pair terms of particle i share. h, h2: support radius and its square (m, m^2); tiny2: the
 * squared distance below which a pair has no direction (the particle itself, coincident particles);
 * cp, cv: the spiky gradient and viscosity Laplacian coefficients (eddy_kernels.spiky_grad, visc_lap);
 * wp = w / rho_i, the pair weight over i's density; pi: i's pressure; mu_i, gs_i: i's viscosity and
 * gradient scale. */
typedef struct mueller_pair_ctx {
    float h, h2, tiny2, cp, cv, wp, pi, mu_i, gs_i;
} mueller_pair_ctx;

/* The weights of one pair: the acceleration terms fp (x_i - x_j) (pressure) and fv (v_j - v_i)
 * (viscosity, times 1 / rho_i once per particle). */
typedef struct mueller_pair_w {
    float fp, fv;
} mueller_pair_w;

/*
 * Pressure and viscosity weights of particle i and one partner at r2 = |x_i - x_j|^2 (a real
 * neighbour or a mirror ghost), with the partner's volume m_j / rho_j, pressure, gradient scale and
 * viscosity. Pressure: the spiky gradient (the Bullet-Fluids reference's eq. 8; Müller et al. 2003 eq. 10
 * divided by rho_i) with the pair weight w (p_i + p_j) / (rho_i rho_j).
 * For a linear pressure field the p_j half alone approximates grad p / rho (the p_i half sums to ~0 in
 * the bulk), so the Bullet-Fluids reference's w = 1/2 gives only half of grad p; w = 1 is consistent.
 * Viscosity: mu (v_j - v_i) lap W_visc (Bullet-Fluids eq. 9; Müller et al. 2003 eq. 14). Either way
 * f_ij = -f_ji: between materials the gradient scale and mu are the pair's means. Branch-free, so the
 * CPU loops that call it vectorize; 0 outside h and for r2 <= tiny2. (The weights come back by
 * value: accumulating into an array argument made GCC keep the sums in memory and the force loop 2.4
 * times as slow.)
 */
MUELLER_INLINE mueller_pair_w mueller_pair(const mueller_pair_ctx *c, float r2, float vol, float pj, float gs_j,
                                           float mu_j)
{
    /* Bitwise &, not &&: a short-circuit is control flow, which stops vectorization. */
    const int inside = (r2 < c->h2) & (r2 > c->tiny2);
    const float rr = sqrtf(r2);
    const float hr = inside ? c->h - rr : 0.0f;
    /* No division or load under a condition: they could trap, so GCC would not vectorize. The pair
     * means equal mu_i and gs_i exactly for one material. */
    const float inv_r = 1.0f / (inside ? rr : 1.0f);
    const float cpij = c->cp * (0.5f * (c->gs_i + gs_j));
    const float mu = 0.5f * (c->mu_i + mu_j);
    const mueller_pair_w w = {vol * c->wp * (c->pi + pj) * cpij * hr * hr * inv_r, vol * mu * c->cv * hr};
    return w;
}

/*
 * The variational pressure term (pressure_force = variational): the pair term of
 * a_i = -sum_j m_j (p_i / rho_i^2 + p_j / rho_j^2) grad W(x_i - x_j) with W the kernel the density sums
 * with, here Wendland C2 (the density pass sums it too: eddy_sph_materials_use_kernel). With summation
 * density this is minus the gradient of the elastic energy sum_i m_i e(rho_i), de/drho = p / rho^2: the
 * equations of motion from the SPH Lagrangian (Monaghan 2005, Rep. Prog. Phys. 68, 1703; Price 2012,
 * J. Comput. Phys. 231, 759), so without viscosity the kinetic, potential and elastic energy add up to a
 * constant (up to the walls and the time step). Müller's spiky gradient is not the poly6 density's, and
 * its force does work that no energy accounts for; poly6's own gradient lets compressed particles pair
 * up, which Wendland C2 does not: its Fourier transform is positive, poly6's is not (Dehnen & Aly 2012,
 * MNRAS 425, 1068)
 * (docs/solvers/sph_mueller.md, "Energy"). Arguments as mueller_pair's (c->wp and c->pi unused), with
 * the kernels k, i's pi_rho2 = p_i / rho_i^2, and the partner's mass mj and density rhoj; the gradient
 * scale is Wendland's, the viscosity weight mueller_pair's. The energy it conserves weighs the elastic
 * part by gs / (rest scale) of the Wendland sum (1.063 in 2D, 1.053 in 3D at h = 2 spacings): the
 * normalization that makes a tank at rest carry rho0 g H.
 */
MUELLER_INLINE mueller_pair_w mueller_pair_variational(const mueller_pair_ctx *c, const eddy_kernels *k, float pi_rho2,
                                                       float r2, float vol, float mj, float pj, float rhoj,
                                                       float gs_j, float mu_j)
{
    const int inside = (r2 < c->h2) & (r2 > c->tiny2);
    const float rr = sqrtf(r2);
    const float hr = inside ? c->h - rr : 0.0f;
    const float mu = 0.5f * (c->mu_i + mu_j);
    /* eddy_sph_wendland_grad is (dW/dr) / r, negative: the pair pushes i away from j. Each term carries
     * its own particle's gradient scale (not the pair's mean): still f_ij = -f_ji, and between materials
     * of other spacings still minus the gradient of sum_i (gs_i / density_scale_i) m_i e(rho_i). */
    const mueller_pair_w w = {-mj * (c->gs_i * pi_rho2 + gs_j * pj / (rhoj * rhoj)) * eddy_sph_wendland_grad(k, rr),
                              vol * mu * c->cv * hr};
    return w;
}

#undef MUELLER_INLINE

#endif /* EDDY_MUELLER_EQUATIONS_H */
