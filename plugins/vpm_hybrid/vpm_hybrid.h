/*
 * vpm_hybrid.h — what the files of plugins/vpm_hybrid share: the solver record and the neighbour-grid
 * passes (sph_terms.c) that vpm_hybrid.c composes into a step. Private to the plugin.
 *
 * Units (simulation units throughout, d = 2 or 3): vorticity 1/s; density kg/m^3 (2D: mass per unit
 * depth, as the core); number density 1/m^d; density gradient kg/m^4; vortex strength alpha = omega V with V = m / rho0 (m^d/s times
 * m, i.e. m^3/s in 3D, circulation m^2/s in 2D).
 */
#ifndef VPM_HYBRID_H
#define VPM_HYBRID_H

#include <eddy/eddy.h>
#include <eddy_sph/simd.h>

#include "biot_savart.h"

enum vpm_mode { MODE_VPM = 0, MODE_SPH = 1, MODE_HYBRID = 2 };

struct eddy_solver {
    eddy_sph_simd simd;       /* the vector ISA of the neighbour-grid passes (eddy_sph/simd.h) */
    int mode;
    int dims;
    float sigma;              /* Gaussian core radius of the vortons, sim m */
    int bs_choice;            /* 0 auto, 1 direct, 2 treecode */
    int tree_threshold;       /* auto: treecode from this many vortons on */
    float theta;              /* opening angle */
    int stretching, diffusion, baroclinic, hybrid_gravity;
    float ambient;            /* rho_a, kg/m^3 */
    uint32_t tracer;          /* tracer material, UINT32_MAX for none */
    float negative_pressure;
    double cfl, vortex_cfl;

    /* fields */
    int f_vorticity, f_gradient, f_number, f_acceleration, f_sph_velocity; /* -1 when not registered */

    /* per material */
    size_t nm;
    float *rest_density, *stiffness, *viscosity, *nu, *gscale, *self_number, *buoyancy;
    float c_max, nu_max;

    float max_accel;          /* of the last force evaluation, for max_dt (saved in checkpoints) */

    /* scratch, indexed like the particles during one step */
    size_t cap;
    float *rate[3];           /* baroclinic + diffusion rate of omega, 1/s^2 */
    float *x0[3], *w0[3];     /* positions and vorticity at the start of the step */
    float *u[3], *grad[9];    /* velocity induced by the vortons and its gradient */
    float *vs[3];             /* SPH velocity of the step */
    size_t src_cap;
    float *sx, *sy, *sz, *sax, *say, *saz; /* the vortons (omega != 0) and their strengths */
    bs_workspace ws;
    size_t last_sources;      /* vortons in the last Biot–Savart evaluation */
    int last_method;          /* bs_method of the last evaluation */

    /* remeshing (remesh.c; vpm mode only) */
    int remesh_every;         /* steps between remeshes, 0 off */
    double remesh_threshold;  /* nodes weaker than this times the strongest are dropped */
    uint32_t remesh_material; /* the one vortex material: the lattice's spacing and the nodes' material */
    double remesh_h;          /* lattice spacing: the material's rest spacing, sim m */
    double remesh_volume;     /* V = particle_mass / rest_density of a node */
    int remesh_warned;        /* nodes beyond the domain were reported */
};

/* Which sums the terms pass computes. */
typedef struct vpm_terms {
    int forces;      /* SPH pressure + viscosity accelerations into the acceleration field */
    int gradient;    /* mass density gradient into the density_gradient field, baroclinic rate into rate */
    int diffusion;   /* PSE Laplacian of omega times nu, added to rate */
    float gravity[3];/* gravity the mirror ghosts continue the pressure with (sim m/s^2) */
} vpm_terms;

/* Grows the scratch arrays to the particle count. Returns 0 or -1 (out of memory). */
int vpm_reserve(eddy_solver *s, size_t n);

/* Number density n_i = sum_j W_poly6 (fluid neighbours and their mirror ghosts, self term scaled by
 * initial_sum) into the number_density field; density rho_i = m_i n_i; pressure k (rho - rho0) (negative
 * values times negative_pressure). Tracers get rho0, 0 and 0. Needs the grid built. Returns EDDY_OK or
 * EDDY_ERR_OUT_OF_MEMORY (a gather's buffer). */
int vpm_density(eddy_solver *s, eddy_world *w);

/* The gathers of `t` for every fluid particle (see vpm_terms); sets s->max_accel when forces are on.
 * Zeroes rate first. Needs vpm_density of the same positions. Returns EDDY_OK or EDDY_ERR_OUT_OF_MEMORY. */
int vpm_terms_pass(eddy_solver *s, eddy_world *w, const vpm_terms *t);

/* Tracer velocity from the fluid's: v_t = sum_j V_j v_j W / max(1/2, sum_j V_j W) (poly6, V_j = 1 / n_j):
 * the Shepard interpolation inside the fluid and up to its free surface (where the sum is about 1/2),
 * fading beyond it, where the ambient fluid is at rest. Reads and writes vx, vy, vz (arrays indexed like
 * the particles). Returns EDDY_OK or EDDY_ERR_OUT_OF_MEMORY. */
int vpm_tracer_velocity(eddy_solver *s, eddy_world *w, float *vx, float *vy, float *vz);

/* Replaces the vortons (every particle but the tracers) by the nodes of the lattice of spacing
 * remesh_h that their strengths alpha = omega V reach through the M4' kernel (remesh.c), keeping the
 * nodes above remesh_threshold times the strongest and inside the domain. The tracers stay, in their
 * order, at the front; the nodes follow, sorted by lattice index, with the material's mass and zero
 * velocity. Nothing changes on error: EDDY_ERR_OUT_OF_MEMORY, EDDY_ERR_DOMAIN (a non-finite position,
 * or one beyond the lattice's 2^20 nodes from the origin). [main thread] */
int vpm_remesh(eddy_solver *s, eddy_world *w, eddy_error *err);

#endif
