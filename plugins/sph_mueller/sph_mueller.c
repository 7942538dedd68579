/*
 * Müller, Charypar & Gross 2003 SPH with the Bullet-Fluids update loop (seed 000 §2, §5.1):
 *   grid -> density (poly6, initial_sum) and pressure p = k (rho - rho0)
 *        -> pressure (spiky gradient) and viscosity (viscosity Laplacian) accelerations
 *        -> integrate velocity -> boundary response -> integrate position.
 *
 * Every sum is a gather over the 3-cell bars of the particle's cell, in the grid's fixed range order,
 * so the result does not depend on the number of threads.
 */
#include <eddy/eddy.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { P_CFL, P_NEGATIVE_PRESSURE, P_COUNT };

static const eddy_param_desc params[P_COUNT] = {
    {"cfl", EDDY_PARAM_REAL, 0.4, 0.01, 1.0, "1",
     "CFL number of the time-step limit cfl * h / (c + v_max), with c = sqrt(stiffness).", NULL},
    {"negative_pressure", EDDY_PARAM_REAL, 0.0, 0.0, 1.0, "1",
     "Factor on negative pressures. 0 (default) clamps p >= 0: free-surface particles, whose sums "
     "lack neighbors, are not pulled into the bulk. 1 is the seed's p = k (rho - rho0) exactly, "
     "stable only with a soft stiffness.", NULL},
};

struct eddy_solver {
    double cfl;
    float negative_pressure;
    int acceleration; /* field id */
    float *viscosity; /* per material, for the pairwise mean */
    float *rest_density, *stiffness, *self_density; /* per material */
    int uniform_viscosity;
    float max_accel; /* of the last step, for max_dt */
};

static int create(eddy_world *w, const eddy_param_values *pv, eddy_solver **out, eddy_error *err)
{
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "sph_mueller: out of memory");
    s->cfl = pv->values[P_CFL];
    s->negative_pressure = (float)pv->values[P_NEGATIVE_PRESSURE];
    size_t nm = w->material_count ? w->material_count : 1;
    s->viscosity = calloc(nm, sizeof(float));
    s->rest_density = calloc(nm, sizeof(float));
    s->stiffness = calloc(nm, sizeof(float));
    s->self_density = calloc(nm, sizeof(float));
    if (!s->viscosity || !s->rest_density || !s->stiffness || !s->self_density) {
        free(s->viscosity); free(s->rest_density); free(s->stiffness); free(s->self_density); free(s);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "sph_mueller: out of memory");
    }
    eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    s->uniform_viscosity = 1;
    for (size_t m = 0; m < w->material_count; ++m) {
        const eddy_material *mat = &w->materials[m];
        s->viscosity[m] = mat->viscosity;
        s->rest_density[m] = mat->rest_density;
        s->stiffness[m] = mat->stiffness;
        /* The full gather sum includes the particle itself with weight m W(0); initial_sum scales
         * that self term (seed 000 §3.2.1), so the correction is (initial_sum - 1) m W(0). */
        s->self_density[m] = (mat->initial_sum - 1.0f) * mat->particle_mass * eddy_poly6(&k, 0.0f);
        if (mat->viscosity != w->materials[0].viscosity) s->uniform_viscosity = 0;
    }
    int rc = eddy_particles_add_field(&w->particles, "acceleration", 3, &s->acceleration, err);
    if (rc) {
        free(s->viscosity); free(s->rest_density); free(s->stiffness); free(s->self_density); free(s);
        return rc;
    }
    *out = s;
    return EDDY_OK;
}

static void destroy(eddy_solver *s)
{
    if (!s) return;
    free(s->viscosity);
    free(s->rest_density);
    free(s->stiffness);
    free(s->self_density);
    free(s);
}

static void compute_density(eddy_solver *s, eddy_world *w)
{
    const eddy_grid *g = &w->grid;
    eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float h2 = k.h2;
    const float *x = p->x, *y = p->y, *z = p->z, *mass = p->mass;
    float *rho = p->density, *pres = p->pressure;
    const uint32_t *mat = p->material;
    const long long cells = (long long)g->occupied_count;
#pragma omp parallel for schedule(dynamic, 8)
    for (long long ci = 0; ci < cells; ++ci) {
        uint32_t c = g->occupied[ci];
        eddy_range r[EDDY_MAX_CELL_RANGES];
        int nr = eddy_grid_cell_ranges(g, c, r);
        for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
            const float xi = x[i], yi = y[i], zi = z[i];
            float sum = 0.0f;
            for (int q = 0; q < nr; ++q) {
                const float sx = xi - r[q].shift[0], sy = yi - r[q].shift[1], sz = zi - r[q].shift[2];
#pragma omp simd reduction(+ : sum)
                for (uint32_t j = r[q].begin; j < r[q].end; ++j) {
                    float dx = sx - x[j], dy = sy - y[j], dz = sz - z[j];
                    float d = h2 - (dx * dx + dy * dy + dz * dz);
                    d = d > 0.0f ? d : 0.0f;
                    sum += mass[j] * d * d * d;
                }
            }
            uint32_t m = mat[i];
            float density = k.poly6 * sum + s->self_density[m];
            rho[i] = density;
            float pr = s->stiffness[m] * (density - s->rest_density[m]);
            pres[i] = pr < 0.0f ? pr * s->negative_pressure : pr;
        }
    }
}

static void compute_forces(eddy_solver *s, eddy_world *w)
{
    const eddy_grid *g = &w->grid;
    eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float h = k.h, h2 = k.h2, cp = 0.5f * k.spiky_grad, cv = k.visc_lap;
    /* Pairs closer than this are the particle itself (or coincident particles): no direction. */
    const float tiny2 = 1e-12f * h2;
    const float *x = p->x, *y = p->y, *z = p->z, *vx = p->vx, *vy = p->vy, *vz = p->vz;
    const float *rho = p->density, *pres = p->pressure, *mass = p->mass;
    const uint32_t *mat = p->material;
    const float *visc = s->viscosity;
    const int uniform = s->uniform_viscosity;
    float *ax = eddy_particles_field(p, s->acceleration, 0);
    float *ay = eddy_particles_field(p, s->acceleration, 1);
    float *az = eddy_particles_field(p, s->acceleration, 2);
    const long long cells = (long long)g->occupied_count;
    float amax2 = 0.0f;
#pragma omp parallel for schedule(dynamic, 8) reduction(max : amax2)
    for (long long ci = 0; ci < cells; ++ci) {
        uint32_t c = g->occupied[ci];
        eddy_range r[EDDY_MAX_CELL_RANGES];
        int nr = eddy_grid_cell_ranges(g, c, r);
        for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
            const float xi = x[i], yi = y[i], zi = z[i];
            const float vxi = vx[i], vyi = vy[i], vzi = vz[i], pi = pres[i];
            const float mu_i = visc[mat[i]];
            float fx = 0.0f, fy = 0.0f, fz = 0.0f;
            for (int q = 0; q < nr; ++q) {
                const float sx = xi - r[q].shift[0], sy = yi - r[q].shift[1], sz = zi - r[q].shift[2];
#pragma omp simd reduction(+ : fx, fy, fz)
                for (uint32_t j = r[q].begin; j < r[q].end; ++j) {
                    float dx = sx - x[j], dy = sy - y[j], dz = sz - z[j];
                    float r2 = dx * dx + dy * dy + dz * dz;
                    float inside = (r2 < h2 && r2 > tiny2) ? 1.0f : 0.0f;
                    float rr = sqrtf(r2);
                    float hr = h - rr;
                    hr = inside > 0.0f ? hr : 0.0f;
                    float inv_r = inside > 0.0f ? 1.0f / rr : 0.0f;
                    float mj_rhoj = mass[j] / rho[j];
                    /* Pressure: (p_i + p_j) / 2 * |grad W_spiky| along r_ij (eq. 8). */
                    float fp = mj_rhoj * (pi + pres[j]) * cp * hr * hr * inv_r;
                    /* Viscosity: mu_ij (v_j - v_i) lap W_visc (eq. 9), mu_ij the pair's mean so that
                     * forces stay antisymmetric between materials. */
                    float mu = uniform ? mu_i : 0.5f * (mu_i + visc[mat[j]]);
                    float fv = mj_rhoj * mu * cv * hr;
                    fx += fp * dx + fv * (vx[j] - vxi);
                    fy += fp * dy + fv * (vy[j] - vyi);
                    fz += fp * dz + fv * (vz[j] - vzi);
                }
            }
            const float inv_rho = 1.0f / rho[i];
            ax[i] = fx * inv_rho;
            ay[i] = fy * inv_rho;
            az[i] = fz * inv_rho;
            float a2 = ax[i] * ax[i] + ay[i] * ay[i] + az[i] * az[i];
            amax2 = a2 > amax2 ? a2 : amax2;
        }
    }
    s->max_accel = sqrtf(amax2);
}

static int step(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    const float dt = (float)dt_in;
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    double t0 = eddy_time_ms();
    compute_density(s, w);
    double t1 = eddy_time_ms();
    compute_forces(s, w);
    double t2 = eddy_time_ms();
    eddy_world_integrate_velocity(w, s->acceleration, dt);
    eddy_world_respond_boundaries(w, dt);
    eddy_world_integrate_position(w, dt);
    double t3 = eddy_time_ms();
    eddy_world_add_phase_time(w, EDDY_PHASE_DENSITY, t1 - t0);
    eddy_world_add_phase_time(w, EDDY_PHASE_FORCES, t2 - t1);
    eddy_world_add_phase_time(w, EDDY_PHASE_INTEGRATE, t3 - t2);
    return EDDY_OK;
}

static int max_dt(eddy_solver *s, const eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    (void)err;
    double kmax = 0.0, nu_max = 0.0;
    for (size_t m = 0; m < w->material_count; ++m) {
        if (w->materials[m].stiffness > kmax) kmax = w->materials[m].stiffness;
        double nu = w->materials[m].viscosity / w->materials[m].rest_density;
        if (nu > nu_max) nu_max = nu;
    }
    /* p = k (rho - rho0) gives dp/drho = k, so the speed of sound is sqrt(k). */
    double h = w->smoothing_radius;
    double best = eddy_world_cfl_dt(w, s->cfl, sqrt(kmax));
    *limit = "CFL";
    if (nu_max > 0 && 0.125 * h * h / nu_max < best) {
        best = 0.125 * h * h / nu_max;
        *limit = "viscous";
    }
    if (s->max_accel > 0 && 0.25 * sqrt(h / s->max_accel) < best) {
        best = 0.25 * sqrt(h / s->max_accel);
        *limit = "force";
    }
    *dt = best;
    return EDDY_OK;
}

static const eddy_solver_vtable vtable = {
    sizeof(eddy_solver_vtable), create, step, destroy, max_dt, NULL, NULL};

static const eddy_component component = {
    sizeof(eddy_component), EDDY_COMPONENT_SOLVER, "sph_mueller", "1.0.0",
    "Müller 2003 SPH: poly6 density, spiky pressure, viscosity Laplacian (Bullet-Fluids loop)",
    params, P_COUNT, &vtable, NULL};

static const eddy_component *const components[] = {&component};

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER, 1, components, "sph_mueller"};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
