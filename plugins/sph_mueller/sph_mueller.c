/*
 * Müller, Charypar & Gross 2003 SPH with the Bullet-Fluids update loop (Bullet-Fluids reference (2014)
 * §2, §5.1):
 *   grid -> density (poly6, initial_sum, plus the walls' share) and pressure p = k (rho - rho0)
 *        -> pressure (spiky gradient) and viscosity (viscosity Laplacian) accelerations
 *        -> integrate velocity -> boundary response -> integrate position.
 *
 * Walls: besides the reference's velocity response, every sum includes the mirror ghosts of the core
 * (eddy_boundaries_mirrors): the fluid reflected across each wall within reach, with the hydrostatic
 * pressure continuation and free-slip velocity. Without them wall particles sum to ~0.8 rho0 and the
 * bulk squeezes them along the walls (the clustering of its §5.2); a continuum wall integral
 * instead misses the discrete lattice sum by ~1.5% at two spacings per h, which a stiff fluid turns
 * into jets along the walls.
 *
 * Every sum is a gather over the 3-cell bars of the particle's cell, in the grid's fixed range order,
 * so the result does not depend on the number of threads.
 *
 * Several processes: both passes update owned particles only and read halo copies as neighbours;
 * density and pressure are refreshed on the halo copies (eddy_world_refresh_fields) before the force
 * pass reads them. In one process there is no halo copy and the refresh returns at once.
 */
#include <eddy/eddy.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { P_CFL, P_NEGATIVE_PRESSURE, P_PRESSURE_FORCE, P_COUNT };

static const char *const pressure_forces[] = {"consistent", "mueller", NULL};

static const eddy_param_desc params[P_COUNT] = {
    [P_CFL] = EDDY_PARAM_REAL_DESC(
        "cfl", 0.4, 0.01, 1.0, "1",
        "CFL number of the time-step limit cfl * h / (c + v_max), with c = sqrt(stiffness)."),
    [P_NEGATIVE_PRESSURE] = EDDY_PARAM_REAL_DESC(
        "negative_pressure", 0.0, 0.0, 1.0, "1",
        "Factor on negative pressures. 0 (default) clamps p >= 0: free-surface particles, whose sums "
        "lack neighbors, are not pulled into the bulk. 1 is Bullet-Fluids' p = k (rho - rho0) exactly, "
        "stable only with a soft stiffness."),
    [P_PRESSURE_FORCE] = EDDY_PARAM_ENUM_DESC(
        "pressure_force", 0, pressure_forces,
        "Pair weight of the pressure force. consistent (default): (p_i + p_j) / (rho_i rho_j) with the "
        "spiky gradient normalized by its first moment on the rest lattice, which reproduces grad p for a "
        "linear pressure field, so fluid at rest carries rho0 g H. mueller: Bullet-Fluids' "
        "(p_i + p_j) / (2 rho_i rho_j), half of grad p in the bulk (fluid at rest settles at about "
        "2 rho0 g H, and the fluid is effectively half as stiff)."),
};

/* The per-material parameters the method reads, as world.h declares them for every SPH solver. */
enum { M_VISCOSITY, M_STIFFNESS, M_INITIAL_SUM, M_COUNT };

static const eddy_param_desc material_params[M_COUNT] = {
    [M_VISCOSITY] = EDDY_MATERIAL_VISCOSITY_DESC,
    [M_STIFFNESS] = EDDY_MATERIAL_STIFFNESS_DESC,
    [M_INITIAL_SUM] = EDDY_MATERIAL_INITIAL_SUM_DESC,
};

struct eddy_solver {
    double cfl;
    float negative_pressure;
    float pair_weight; /* 1 consistent, 1/2 Müller 2003 */
    float *gradient_scale; /* per material: 1 / lattice gradient moment (consistent), 1 (mueller) */
    int acceleration; /* field id */
    size_t nm;        /* materials */
    float *viscosity; /* per material, for the pairwise mean */
    float *rest_density, *stiffness, *self_density; /* per material */
    float max_accel; /* of the last step, for max_dt */
    float *volume;   /* m_i / rho_i of the current step, indexed like the particles */
    size_t volume_capacity;
};

static void destroy(eddy_solver *s)
{
    if (!s) return;
    free(s->viscosity);
    free(s->rest_density);
    free(s->stiffness);
    free(s->self_density);
    free(s->gradient_scale);
    free(s->volume);
    free(s);
}

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    eddy_world *w = setup->world;
    const eddy_param_values *pv = setup->params;
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "sph_mueller: out of memory");
    s->cfl = pv->values[P_CFL].number;
    s->negative_pressure = (float)pv->values[P_NEGATIVE_PRESSURE].number;
    s->pair_weight = pv->values[P_PRESSURE_FORCE].integer == 1 ? 0.5f : 1.0f;
    s->nm = w->material_count;
    size_t nm = w->material_count ? w->material_count : 1;
    s->viscosity = calloc(nm, sizeof(float));
    s->rest_density = calloc(nm, sizeof(float));
    s->stiffness = calloc(nm, sizeof(float));
    s->self_density = calloc(nm, sizeof(float));
    s->gradient_scale = calloc(nm, sizeof(float));
    if (!s->viscosity || !s->rest_density || !s->stiffness || !s->self_density || !s->gradient_scale) {
        destroy(s);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "sph_mueller: out of memory");
    }
    eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    for (size_t m = 0; m < w->material_count; ++m) {
        const eddy_material *mat = &w->materials[m];
        const float initial_sum = (float)eddy_material_param(mat, &material_params[M_INITIAL_SUM]);
        s->viscosity[m] = (float)eddy_material_param(mat, &material_params[M_VISCOSITY]);
        s->rest_density[m] = mat->rest_density;
        s->stiffness[m] = (float)eddy_material_param(mat, &material_params[M_STIFFNESS]);
        /* The full gather sum includes the particle itself with weight m W(0); initial_sum scales
         * that self term (Bullet-Fluids reference (2014) §3.2.1), so the correction is (initial_sum - 1)
         * m W(0). */
        s->self_density[m] = (initial_sum - 1.0f) * mat->particle_mass * eddy_poly6(&k, 0.0f);
        s->gradient_scale[m] =
            s->pair_weight == 1.0f
                ? (float)(1.0 / eddy_lattice_gradient_moment(mat->particle_dist, w->smoothing_radius,
                                                             w->dimensions))
                : 1.0f;
    }
    int rc = eddy_particles_add_field(&w->particles, "acceleration", 3, &s->acceleration, err);
    if (rc) {
        destroy(s);
        return rc;
    }
    *out = s;
    return EDDY_OK;
}

/*
 * Candidate neighbours of one cell (its 3-cell bars), gathered into contiguous arrays with the periodic
 * shift applied, so that each particle of the cell runs one long SIMD loop instead of up to nine short
 * ones; the gather is shared by the ~6 particles of a cell. One per thread.
 */
typedef struct candidates {
    size_t count, capacity;
    float *x, *y, *z, *vx, *vy, *vz, *pressure, *volume, *mass, *gscale, *visc;
    uint32_t *index;
    void *block;
} candidates;

enum { CANDIDATE_ARRAYS = 12 };

static int candidates_reserve(candidates *c, size_t n)
{
    if (n <= c->capacity) return 0;
    size_t cap = n + n / 2 + 64;
    cap = (cap + 15) & ~(size_t)15; /* every array 64-byte aligned */
    void *block = aligned_alloc(64, cap * CANDIDATE_ARRAYS * sizeof(float));
    if (!block) return -1;
    free(c->block);
    c->block = block;
    c->capacity = cap;
    float *f = block;
    float **arrays[] = {&c->x, &c->y, &c->z, &c->vx, &c->vy, &c->vz, &c->pressure, &c->volume,
                        &c->mass, &c->gscale, &c->visc};
    for (size_t a = 0; a < sizeof arrays / sizeof *arrays; ++a) *arrays[a] = f + a * cap;
    c->index = (uint32_t *)(f + (CANDIDATE_ARRAYS - 1) * cap);
    return 0;
}

/* Positions and indices of the candidates of a cell; `flow` adds what the force loop reads. */
static int candidates_gather(candidates *c, const eddy_solver *s, const eddy_particles *p,
                             const eddy_range *r, int nr, int flow)
{
    size_t n = 0;
    for (int q = 0; q < nr; ++q) n += r[q].end - r[q].begin;
    if (candidates_reserve(c, n)) return -1;
    size_t k = 0;
    for (int q = 0; q < nr; ++q)
        for (uint32_t j = r[q].begin; j < r[q].end; ++j, ++k) {
            c->x[k] = p->x[j] + r[q].shift[0];
            c->y[k] = p->y[j] + r[q].shift[1];
            c->z[k] = p->z[j] + r[q].shift[2];
            c->mass[k] = p->mass[j];
            c->index[k] = j;
            if (flow) {
                c->vx[k] = p->vx[j];
                c->vy[k] = p->vy[j];
                c->vz[k] = p->vz[j];
                c->pressure[k] = p->pressure[j];
                c->volume[k] = s->volume[j];
                c->gscale[k] = s->gradient_scale[p->material[j]];
                c->visc[k] = s->viscosity[p->material[j]];
            }
        }
    c->count = n;
    return 0;
}

static int compute_density(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    const eddy_grid *g = &w->grid;
    eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float h = k.h, h2 = k.h2;
    const float *x = p->x, *y = p->y, *z = p->z, *mass = p->mass;
    float *rho = p->density, *pres = p->pressure, *vol = s->volume;
    const uint32_t *mat = p->material;
    const long long cells = (long long)g->occupied_count;
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        candidates cand = {0};
#pragma omp for schedule(dynamic, 8)
        for (long long ci = 0; ci < cells; ++ci) {
            uint32_t c = g->occupied[ci];
            eddy_range r[EDDY_MAX_CELL_RANGES];
            int nr = eddy_grid_cell_ranges(g, c, r);
            if (failed || candidates_gather(&cand, s, p, r, nr, 0)) {
                failed = 1;
                continue;
            }
            const size_t nc = cand.count;
            const float *cx = cand.x, *cy = cand.y, *cz = cand.z, *cm = cand.mass;
            for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
                /* Halo copies are neighbours only: their owner computes them (density_pass). */
                if (eddy_particle_is_halo(p, i)) continue;
                const float xi = x[i], yi = y[i], zi = z[i];
                float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
                for (size_t q = 0; q < nc; ++q) {
                    float dx = xi - cx[q], dy = yi - cy[q], dz = zi - cz[q];
                    float d = h2 - (dx * dx + dy * dy + dz * dz);
                    d = d > 0.0f ? d : 0.0f;
                    sum += cm[q] * d * d * d;
                }
                const float pos[3] = {xi, yi, zi};
                eddy_mirror mirror[EDDY_MAX_MIRRORS];
                int nmir = eddy_boundaries_mirrors(&w->boundaries, w->gravity, h, pos, mirror);
                for (size_t q = 0; q < nc && nmir > 0; ++q) {
                    /* A ghost within h of i is the image of a neighbour within h (eddy_boundaries_mirrors). */
                    float ex = xi - cx[q], ey = yi - cy[q], ez = zi - cz[q];
                    if (ex * ex + ey * ey + ez * ez >= h2) continue;
                    const float xj[3] = {cx[q], cy[q], cz[q]};
                    for (int mi = 0; mi < nmir; ++mi) {
                        float gp[3];
                        eddy_mirror_point(&mirror[mi], xj, gp);
                        float dx = xi - gp[0], dy = yi - gp[1], dz = zi - gp[2];
                        float d = h2 - (dx * dx + dy * dy + dz * dz);
                        if (d > 0.0f) sum += cm[q] * d * d * d;
                    }
                }
                uint32_t m = mat[i];
                float density = k.poly6 * sum + s->self_density[m];
                rho[i] = density;
                vol[i] = mass[i] / density;
                float pr = s->stiffness[m] * (density - s->rest_density[m]);
                pres[i] = pr < 0.0f ? pr * s->negative_pressure : pr;
            }
        }
        free(cand.block);
    }
    if (failed) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "sph_mueller: out of memory");
    return EDDY_OK;
}

static int compute_forces(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    const eddy_grid *g = &w->grid;
    eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float h = k.h, h2 = k.h2, cp = k.spiky_grad, cv = k.visc_lap;
    /* Pairs closer than this are the particle itself (or coincident particles): no direction. */
    const float tiny2 = 1e-12f * h2;
    const float *x = p->x, *y = p->y, *z = p->z, *vx = p->vx, *vy = p->vy, *vz = p->vz;
    const float *rho = p->density, *pres = p->pressure;
    const uint32_t *mat = p->material;
    float *ax = eddy_particles_field(p, s->acceleration, 0);
    float *ay = eddy_particles_field(p, s->acceleration, 1);
    float *az = eddy_particles_field(p, s->acceleration, 2);
    const long long cells = (long long)g->occupied_count;
    float amax2 = 0.0f;
    int failed = 0;
#pragma omp parallel reduction(max : amax2) reduction(| : failed)
    {
        candidates cand = {0};
#pragma omp for schedule(dynamic, 8)
        for (long long ci = 0; ci < cells; ++ci) {
            uint32_t c = g->occupied[ci];
            eddy_range r[EDDY_MAX_CELL_RANGES];
            int nr = eddy_grid_cell_ranges(g, c, r);
            if (failed || candidates_gather(&cand, s, p, r, nr, 1)) {
                failed = 1;
                continue;
            }
            const size_t nc = cand.count;
            const float *cx = cand.x, *cy = cand.y, *cz = cand.z, *cvx = cand.vx, *cvy = cand.vy,
                        *cvz = cand.vz, *cpr = cand.pressure, *cvol = cand.volume, *cgs = cand.gscale,
                        *cmu = cand.visc;
            for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
                if (eddy_particle_is_halo(p, i)) continue; /* updated by its owner */
                const float xi = x[i], yi = y[i], zi = z[i];
                const float vxi = vx[i], vyi = vy[i], vzi = vz[i], pi = pres[i];
                const float mu_i = s->viscosity[mat[i]], gs_i = s->gradient_scale[mat[i]];
                const float inv_rho_i = 1.0f / rho[i];
                /* Pair weight w (p_i + p_j) / (rho_i rho_j). For a linear pressure field the p_j half
                 * alone approximates grad p / rho (the p_i half sums to ~0 in the bulk), so the
                 * Bullet-Fluids reference's eq. 8, w = 1/2, gives only half of grad p; w = 1 is
                 * consistent. Either way f_ij = -f_ji: between materials the gradient scale and mu are
                 * the pair's means. */
                const float wp = s->pair_weight * inv_rho_i;
                float fx = 0.0f, fy = 0.0f, fz = 0.0f, px = 0.0f, py = 0.0f, pz = 0.0f;
#pragma omp simd reduction(+ : fx, fy, fz, px, py, pz)
                for (size_t q = 0; q < nc; ++q) {
                    float dx = xi - cx[q], dy = yi - cy[q], dz = zi - cz[q];
                    float r2 = dx * dx + dy * dy + dz * dz;
                    /* Bitwise &, not &&: a short-circuit is control flow, which stops vectorization. */
                    const int inside = (r2 < h2) & (r2 > tiny2);
                    float rr = sqrtf(r2);
                    float hr = inside ? h - rr : 0.0f;
                    /* No division or load under a condition: they could trap, so GCC would not
                     * vectorize. The pair means equal mu_i and gs_i exactly for one material. */
                    float inv_r = 1.0f / (inside ? rr : 1.0f);
                    float cpij = cp * (0.5f * (gs_i + cgs[q]));
                    float mu = 0.5f * (mu_i + cmu[q]);
                    /* Pressure: spiky gradient (eq. 8); viscosity: mu (v_j - v_i) lap W_visc (eq. 9). */
                    float fp = cvol[q] * wp * (pi + cpr[q]) * cpij * hr * hr * inv_r;
                    float fv = cvol[q] * mu * cv * hr;
                    px += fp * dx;
                    py += fp * dy;
                    pz += fp * dz;
                    fx += fv * (cvx[q] - vxi);
                    fy += fv * (cvy[q] - vyi);
                    fz += fv * (cvz[q] - vzi);
                }
                /* Mirror ghosts of the walls within reach (eddy_boundaries_mirrors). */
                const float pos[3] = {xi, yi, zi};
                eddy_mirror mirror[EDDY_MAX_MIRRORS];
                int nmir = eddy_boundaries_mirrors(&w->boundaries, w->gravity, h, pos, mirror);
                for (size_t q = 0; q < nc && nmir > 0; ++q) {
                    float ex = xi - cx[q], ey = yi - cy[q], ez = zi - cz[q];
                    if (ex * ex + ey * ey + ez * ez >= h2) continue;
                    const float xj[3] = {cx[q], cy[q], cz[q]}, vj[3] = {cvx[q], cvy[q], cvz[q]};
                    const float rho_j = rho[cand.index[q]];
                    const float cpij = cp * (0.5f * (gs_i + cgs[q]));
                    const float mu = 0.5f * (mu_i + cmu[q]);
                    for (int mi = 0; mi < nmir; ++mi) {
                        const eddy_mirror *mm = &mirror[mi];
                        float gp[3], gv[3];
                        eddy_mirror_point(mm, xj, gp);
                        float dx = xi - gp[0], dy = yi - gp[1], dz = zi - gp[2];
                        float r2 = dx * dx + dy * dy + dz * dz;
                        if (!(r2 < h2) || r2 <= tiny2) continue;
                        eddy_mirror_velocity(mm, vj, gv);
                        float pg = eddy_mirror_pressure(mm, cpr[q], rho_j, xj);
                        float rr = sqrtf(r2), hr = h - rr;
                        float fp = cvol[q] * wp * (pi + pg) * cpij * hr * hr / rr;
                        float fv = cvol[q] * mu * cv * hr;
                        px += fp * dx;
                        py += fp * dy;
                        pz += fp * dz;
                        fx += fv * (gv[0] - vxi);
                        fy += fv * (gv[1] - vyi);
                        fz += fv * (gv[2] - vzi);
                    }
                }
                ax[i] = px + fx * inv_rho_i;
                ay[i] = py + fy * inv_rho_i;
                az[i] = pz + fz * inv_rho_i;
                float a2 = ax[i] * ax[i] + ay[i] * ay[i] + az[i] * az[i];
                amax2 = a2 > amax2 ? a2 : amax2;
            }
        }
        free(cand.block);
    }
    if (failed) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "sph_mueller: out of memory");
    s->max_accel = sqrtf(amax2);
    return EDDY_OK;
}

/*
 * Density and pressure of the owned particles, then of their halo copies: eddy_world_refresh_fields
 * brings the owners' new values (a no-op in one process, where there is no halo), and the volumes
 * m / rho that the force pass reads of every neighbour follow from them.
 */
static int density_pass(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    static const int fields[] = {EDDY_FIELD_DENSITY, EDDY_FIELD_PRESSURE};
    int rc = compute_density(s, w, err);
    if (!rc) rc = eddy_world_refresh_fields(w, fields, sizeof fields / sizeof *fields, err);
    if (rc) return rc;
    const eddy_particles *p = &w->particles;
    if (p->halo_count == 0) return EDDY_OK;
    for (size_t i = 0; i < p->count; ++i)
        if (eddy_particle_is_halo(p, i)) s->volume[i] = p->mass[i] / p->density[i];
    return EDDY_OK;
}

/* Grid and per-particle scratch for the current positions. */
static int prepare(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    if (w->particles.count > s->volume_capacity) {
        float *v = realloc(s->volume, w->particles.count * sizeof(float));
        if (!v) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "sph_mueller: out of memory");
        s->volume = v;
        s->volume_capacity = w->particles.count;
    }
    return EDDY_OK;
}

static int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = prepare(s, w, err);
    if (rc) return rc;
    if ((rc = density_pass(s, w, err))) return rc;
    rc = compute_forces(s, w, err);
    return rc;
}

static int step(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    const float dt = (float)dt_in;
    int rc = prepare(s, w, err);
    if (rc) return rc;
    double t0 = eddy_time_ms();
    if ((rc = density_pass(s, w, err))) return rc;
    double t1 = eddy_time_ms();
    if ((rc = compute_forces(s, w, err))) return rc;
    double t2 = eddy_time_ms();
    eddy_world_add_phase_time(w, EDDY_PHASE_DENSITY, t1 - t0);
    eddy_world_add_phase_time(w, EDDY_PHASE_FORCES, t2 - t1);
    eddy_world_symplectic_euler(w, s->acceleration, dt);
    return EDDY_OK;
}

static int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    (void)err;
    double kmax = 0.0, nu_max = 0.0;
    for (size_t m = 0; m < s->nm; ++m) {
        if (s->stiffness[m] > kmax) kmax = s->stiffness[m];
        double nu = s->viscosity[m] / s->rest_density[m];
        if (nu > nu_max) nu_max = nu;
    }
    /* p = k (rho - rho0) gives dp/drho = k, so the speed of sound is sqrt(k) (with the mueller pair
     * weight the fluid is half as stiff; sqrt(k) stays on the safe side). */
    *dt = eddy_world_stable_dt(w, s->cfl, sqrt(kmax), nu_max, s->max_accel, limit);
    return EDDY_OK;
}

/* Between steps the solver keeps only the last step's largest acceleration (max_dt's force limit);
 * a checkpoint carries it so that a resumed run picks the same time steps. */
static int save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    return eddy_state_save_floats("sph_mueller/1", &s->max_accel, 1, data, size, err);
}

static int load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    return eddy_state_load_floats("sph_mueller/1", &s->max_accel, 1, data, size, err);
}

static const eddy_solver_vtable vtable = {
    .size = sizeof(eddy_solver_vtable),
    .create = create,
    .step = step,
    .destroy = destroy,
    .max_dt = max_dt,
    .save = save,
    .load = load,
    .compute_fields = compute_fields,
};

/* Instances keep all their state in the eddy_solver (CONCURRENT_INSTANCES); they update owned
 * particles only and refresh density and pressure on halo copies (DECOMPOSABLE). */
static const eddy_component component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "sph_mueller",
    .version = "2.0.0",
    .description = "Müller 2003 SPH: poly6 density, spiky pressure, viscosity Laplacian (Bullet-Fluids loop)",
    .params = params,
    .param_count = P_COUNT,
    .vtable = &vtable,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES | EDDY_COMPONENT_DECOMPOSABLE | EDDY_COMPONENT_STATE_COMPLETE,
    .material_params = material_params,
    .material_param_count = M_COUNT,
};

static const eddy_component *const components[] = {&component};

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = "sph_mueller",
    .version = "2.0.0",
    .init = NULL,
    .deinit = NULL,
    .component_count = 1,
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
