/*
 * A test double of a device-resident solver (issue 16), on the CPU: it proves that the host honours
 * the residency contract of ABI 2.0 (world.h, "Field residency") without a GPU.
 *
 * Two components share one method, a small weakly compressible SPH step (Müller, Charypar & Gross
 * 2003: poly6 density, p = k (rho - rho0) clamped at 0, spiky pressure gradient with the pair weight
 * (p_i + p_j) / (2 rho_i rho_j), viscosity Laplacian; then the core's contact response with the
 * colliders, semi-implicit Euler as the Bullet-Fluids reference (2014) §2.1), with O(n^2) pair loops
 * in index order, single-threaded, so the two give the same bits:
 *
 *   residency_reference  steps the host arrays of w->particles, as every CPU solver does; no reduce
 *                        (the host runs the core's reduction).
 *   residency_double     keeps the authoritative copy in private storage ("the device"), declares
 *                        every field and the layout EDDY_MEMORY_DEVICE, and installs an eddy_residency
 *                        whose download copies from private storage. Before a step it uploads exactly
 *                        what the host edited (edit generations), after it provides the reduction
 *                        (reduce) from private storage, marks the host copy stale and POISONS it: NaN
 *                        in every real field, ids and materials overwritten. A host read that bypasses
 *                        eddy_world_map_field / eddy_world_sync_host therefore sees garbage, and the
 *                        byte comparison with the reference (tests/residency/same_outputs.sh) fails.
 *
 * Environment (tests only):
 *   EDDY_RESIDENCY_LOG=FILE    appends "download STEP FIELD" and "upload STEP FIELD" lines (FIELD the
 *                              field's name, or "layout"), so a test can check when the host downloads.
 *   EDDY_RESIDENCY_FAULT=...   breaks the double on purpose, to show the harness can fail:
 *                              "skip_download=N" leaves the N-th download (1-based) undone (the host is
 *                              told it is current); "keep_fresh" poisons the host copy but never marks
 *                              it stale, so the host reads it as it would without mapping;
 *                              "stale_reduce" makes reduce report the previous step's figures (a
 *                              device solver that hands over last step's asynchronous read-back).
 */
#include <eddy/eddy.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_CFL, P_COUNT };

static const eddy_param_desc params[P_COUNT] = {
    [P_CFL] = EDDY_PARAM_REAL_DESC("cfl", 0.4, 0.01, 1.0, "1",
                                   "CFL number of the time-step limit cfl * h / (c + v_max), c = sqrt(stiffness)."),
};

enum { M_VISCOSITY, M_STIFFNESS, M_COUNT };

static const eddy_param_desc material_params[M_COUNT] = {
    [M_VISCOSITY] = EDDY_MATERIAL_VISCOSITY_DESC,
    [M_STIFFNESS] = EDDY_MATERIAL_STIFFNESS_DESC,
};

/* The private copy of every field and of the layout: what a GPU solver keeps in device memory. */
typedef struct device {
    size_t count, capacity;
    int field_count;
    int components[EDDY_MAX_FIELDS];
    eddy_real *data[EDDY_MAX_FIELDS][EDDY_FIELD_MAX_COMPONENTS];
    uint64_t *id;
    uint32_t *material;
    uint8_t *flags;
    uint64_t generation[EDDY_MAX_FIELDS]; /* the host's edit generation last uploaded */
    uint64_t layout_generation;
} device;

struct eddy_solver {
    int resident;
    double cfl;
    int neighbors;           /* field id of "neighbors", the solver's own field */
    eddy_real *viscosity, *rest_density, *stiffness; /* per material */
    size_t material_count;
    double nu_max, sound_speed;
    float max_accel;         /* of the last step, for max_dt (saved in checkpoints) */
    eddy_real *ax, *ay, *az; /* scratch */
    size_t scratch;
    device dev;
    const eddy_host *host;
    /* Test switches (EDDY_RESIDENCY_FAULT) and the download counter. */
    long skip_download;      /* 1-based index of the download to leave undone; 0: none */
    int keep_fresh;
    int stale_reduce;
    eddy_step_stats previous; /* stale_reduce: what the last reduce computed */
    long downloads;
};

/* The arrays one step works on: the host's (reference) or the device's (double). */
typedef struct arrays {
    size_t n;
    eddy_real *x, *y, *z, *vx, *vy, *vz, *rho, *p, *m, *nb;
    const uint32_t *material;
    const uint8_t *flags;
} arrays;

/* ---------------------------------------------------------------------------------------------- */
/* The method, on either copy                                                                       */

static void compute_density(const eddy_solver *s, const eddy_world *w, const arrays *a)
{
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    for (size_t i = 0; i < a->n; ++i) {
        eddy_real rho = 0.0f, nb = 0.0f;
        for (size_t j = 0; j < a->n; ++j) {
            const eddy_real dx = a->x[i] - a->x[j], dy = a->y[i] - a->y[j], dz = a->z[i] - a->z[j];
            const eddy_real r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= k.h2) continue;
            rho += a->m[j] * eddy_poly6(&k, r2);
            nb += 1.0f;
        }
        const uint32_t mi = a->material[i];
        const eddy_real pr = s->stiffness[mi] * (rho - s->rest_density[mi]);
        a->rho[i] = rho;
        a->p[i] = pr > 0.0f ? pr : 0.0f;
        a->nb[i] = nb;
    }
}

static void step_arrays(eddy_solver *s, const eddy_world *w, const arrays *a, eddy_real dt)
{
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    compute_density(s, w, a);
    float amax2 = 0.0f;
    for (size_t i = 0; i < a->n; ++i) {
        eddy_real fx = 0.0f, fy = 0.0f, fz = 0.0f;
        const eddy_real mu = s->viscosity[a->material[i]];
        for (size_t j = 0; j < a->n; ++j) {
            if (j == i) continue;
            const eddy_real dx = a->x[i] - a->x[j], dy = a->y[i] - a->y[j], dz = a->z[i] - a->z[j];
            const eddy_real r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= k.h2) continue;
            const eddy_real r = sqrtf(r2);
            const eddy_real pw = -a->m[j] * (a->p[i] + a->p[j]) / (2.0f * a->rho[i] * a->rho[j]) *
                                 eddy_spiky_grad(&k, r);
            const eddy_real vw = mu * a->m[j] / (a->rho[i] * a->rho[j]) * eddy_viscosity_laplacian(&k, r);
            fx += pw * dx + vw * (a->vx[j] - a->vx[i]);
            fy += pw * dy + vw * (a->vy[j] - a->vy[i]);
            fz += pw * dz + vw * (a->vz[j] - a->vz[i]);
        }
        s->ax[i] = fx;
        s->ay[i] = fy;
        s->az[i] = fz;
        const float a2 = fx * fx + fy * fy + fz * fz;
        if (a2 > amax2) amax2 = a2;
    }
    s->max_accel = sqrtf(amax2);
    for (size_t i = 0; i < a->n; ++i) {
        eddy_real pos[3] = {a->x[i], a->y[i], a->z[i]};
        eddy_real vel[3] = {a->vx[i] + (s->ax[i] + w->gravity[0]) * dt, a->vy[i] + (s->ay[i] + w->gravity[1]) * dt,
                            a->vz[i] + (s->az[i] + w->gravity[2]) * dt};
        const eddy_contact_params *cp = &w->contacts[a->material[i]];
        for (size_t c = 0; c < w->boundaries.collider_count; ++c)
            eddy_contact_respond(&w->boundaries.colliders[c], w->dimensions, cp, pos, vel, dt);
        a->vx[i] = vel[0];
        a->vy[i] = vel[1];
        a->vz[i] = vel[2];
        a->x[i] = pos[0] + vel[0] * dt;
        a->y[i] = pos[1] + vel[1] * dt;
        a->z[i] = pos[2] + vel[2] * dt;
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* The device copy                                                                                  */

static void log_event(const eddy_world *w, const char *what, int field)
{
    const char *path = getenv("EDDY_RESIDENCY_LOG");
    if (!path || !*path) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "%s %" PRIu64 " %s\n", what, w->step,
            field == EDDY_FIELD_LAYOUT ? "layout" : eddy_particles_field_name(&w->particles, field));
    fclose(f);
}

static void device_free(device *d)
{
    for (int f = 0; f < EDDY_MAX_FIELDS; ++f)
        for (int c = 0; c < EDDY_FIELD_MAX_COMPONENTS; ++c) free(d->data[f][c]);
    free(d->id);
    free(d->material);
    free(d->flags);
    memset(d, 0, sizeof *d);
}

static int device_reserve(device *d, const eddy_particles *p, eddy_error *err)
{
    const int fields = eddy_particles_field_count(p);
    const size_t cap = p->count ? p->count : 1;
    if (cap <= d->capacity && fields == d->field_count) return EDDY_OK;
    const size_t newcap = cap > d->capacity ? cap : d->capacity;
    for (int f = 0; f < fields; ++f) {
        d->components[f] = eddy_particles_field_components(p, f);
        for (int c = 0; c < d->components[f]; ++c) {
            void *q = realloc(d->data[f][c], newcap * sizeof(eddy_real));
            if (!q) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of device memory");
            d->data[f][c] = q;
        }
    }
    void *a = realloc(d->id, newcap * sizeof *d->id), *b = a ? realloc(d->material, newcap * sizeof *d->material) : NULL;
    if (a) d->id = a;
    if (b) d->material = b;
    void *c = b ? realloc(d->flags, newcap) : NULL;
    if (!c) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of device memory");
    d->flags = c;
    d->capacity = newcap;
    d->field_count = fields;
    return EDDY_OK;
}

static void upload_field(eddy_solver *s, const eddy_world *w, int f)
{
    const eddy_particles *p = &w->particles;
    for (int c = 0; c < s->dev.components[f]; ++c)
        if (p->count) memcpy(s->dev.data[f][c], eddy_particles_field(p, f, c), p->count * sizeof(eddy_real));
    s->dev.generation[f] = eddy_world_field_generation(w, f);
    log_event(w, "upload", f);
}

/* Uploads exactly what the host edited since the last upload: the fields whose edit generation moved,
 * and after a layout change (particles restored, removed or reordered by the host) the layout and every
 * field, since the device's values are in the old order. */
static int upload_edits(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    const eddy_particles *p = &w->particles;
    int rc = device_reserve(&s->dev, p, err);
    if (rc) return rc;
    const uint64_t lg = eddy_world_field_generation(w, EDDY_FIELD_LAYOUT);
    const int layout = lg != s->dev.layout_generation || p->count != s->dev.count;
    if (layout) {
        s->dev.count = p->count;
        if (p->count) {
            memcpy(s->dev.id, p->id, p->count * sizeof *p->id);
            memcpy(s->dev.material, p->material, p->count * sizeof *p->material);
            memcpy(s->dev.flags, p->flags, p->count);
        }
        s->dev.layout_generation = lg;
        log_event(w, "upload", EDDY_FIELD_LAYOUT);
    }
    for (int f = 0; f < s->dev.field_count; ++f)
        if (layout || eddy_world_field_generation(w, f) != s->dev.generation[f]) upload_field(s, w, f);
    return EDDY_OK;
}

static arrays device_arrays(eddy_solver *s)
{
    device *d = &s->dev;
    arrays a = {d->count,
                d->data[EDDY_FIELD_POSITION][0], d->data[EDDY_FIELD_POSITION][1], d->data[EDDY_FIELD_POSITION][2],
                d->data[EDDY_FIELD_VELOCITY][0], d->data[EDDY_FIELD_VELOCITY][1], d->data[EDDY_FIELD_VELOCITY][2],
                d->data[EDDY_FIELD_DENSITY][0], d->data[EDDY_FIELD_PRESSURE][0], d->data[EDDY_FIELD_MASS][0],
                d->data[s->neighbors][0], d->material, d->flags};
    return a;
}

static arrays host_arrays(eddy_solver *s, eddy_world *w)
{
    eddy_particles *p = &w->particles;
    arrays a = {p->count, p->x, p->y, p->z, p->vx, p->vy, p->vz, p->density, p->pressure, p->mass,
                eddy_particles_field(p, s->neighbors, 0), p->material, p->flags};
    return a;
}

/* After the device changed every field: the host copy is stale, and made unreadable so that a host
 * read that skips the mapping shows in the outputs. */
static void leave_host_stale(eddy_solver *s, eddy_world *w)
{
    if (!s->keep_fresh) eddy_world_mark_host_stale(w, EDDY_FIELD_LAYOUT);
    eddy_particles *p = &w->particles;
    for (int f = 0; f < eddy_particles_field_count(p); ++f)
        for (int c = 0; c < eddy_particles_field_components(p, f); ++c) {
            eddy_real *v = eddy_particles_field(p, f, c);
            for (size_t i = 0; i < p->count; ++i) v[i] = NAN;
        }
    for (size_t i = 0; i < p->count; ++i) {
        p->id[i] = UINT64_C(0xdead000000000000) + i;
        p->material[i] = (uint32_t)w->material_count; /* out of the table: a read says so */
    }
}

static int download(void *context, eddy_world *w, int field, eddy_error *err)
{
    eddy_solver *s = context;
    eddy_particles *p = &w->particles;
    if (p->count != s->dev.count)
        return eddy_error_set(err, EDDY_ERR_DEVICE, "residency_double: the host holds %zu particles, the device %zu",
                              p->count, s->dev.count);
    log_event(w, "download", field);
    if (field != EDDY_FIELD_LAYOUT && ++s->downloads == s->skip_download) return EDDY_OK;
    if (p->count) {
        memcpy(p->id, s->dev.id, p->count * sizeof *p->id);
        memcpy(p->material, s->dev.material, p->count * sizeof *p->material);
        memcpy(p->flags, s->dev.flags, p->count);
    }
    if (field == EDDY_FIELD_LAYOUT) return EDDY_OK;
    for (int c = 0; c < s->dev.components[field]; ++c)
        if (p->count) memcpy(eddy_particles_field(p, field, c), s->dev.data[field][c], p->count * sizeof(eddy_real));
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Callbacks                                                                                        */

static void destroy(eddy_solver *s);

static int create_common(const eddy_solver_setup *setup, int resident, eddy_solver **out, eddy_error *err)
{
    eddy_world *w = setup->world;
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    s->resident = resident;
    s->host = setup->host;
    s->cfl = eddy_param_get(setup->params, "cfl", 0.4);
    const char *fault = getenv("EDDY_RESIDENCY_FAULT");
    if (fault && !strncmp(fault, "skip_download=", 14)) s->skip_download = strtol(fault + 14, NULL, 10);
    if (fault && !strcmp(fault, "keep_fresh")) s->keep_fresh = 1;
    if (fault && !strcmp(fault, "stale_reduce")) s->stale_reduce = 1;
    s->previous.first_nonfinite = SIZE_MAX;
    int rc = eddy_particles_add_field(&w->particles, "neighbors", 1, &s->neighbors, err);
    const size_t nm = w->material_count ? w->material_count : 1;
    s->material_count = w->material_count;
    s->viscosity = calloc(nm, sizeof *s->viscosity);
    s->rest_density = calloc(nm, sizeof *s->rest_density);
    s->stiffness = calloc(nm, sizeof *s->stiffness);
    if (!rc && (!s->viscosity || !s->rest_density || !s->stiffness))
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t m = 0; !rc && m < w->material_count; ++m) {
        const eddy_material *mat = &w->materials[m];
        s->viscosity[m] = (eddy_real)eddy_material_param(mat, &material_params[M_VISCOSITY]);
        s->stiffness[m] = (eddy_real)eddy_material_param(mat, &material_params[M_STIFFNESS]);
        s->rest_density[m] = mat->rest_density;
        const double nu = (double)s->viscosity[m] / (double)mat->rest_density, c = sqrt((double)s->stiffness[m]);
        if (nu > s->nu_max) s->nu_max = nu;
        if (c > s->sound_speed) s->sound_speed = c;
    }
    if (!rc && resident) {
        /* Every field and the layout live on the device from here on; the host copy is current now. */
        for (int f = 0; !rc && f < eddy_particles_field_count(&w->particles); ++f)
            rc = eddy_world_set_field_space(w, f, EDDY_MEMORY_DEVICE, err);
        if (!rc) rc = eddy_world_set_field_space(w, EDDY_FIELD_LAYOUT, EDDY_MEMORY_DEVICE, err);
        const eddy_residency r = {sizeof r, s, download};
        if (!rc) eddy_world_set_residency(w, &r);
        s->dev.layout_generation = UINT64_MAX; /* nothing uploaded yet */
        if (!rc) rc = upload_edits(s, w, err);
    }
    if (rc) {
        if (resident) eddy_world_set_residency(w, NULL);
        destroy(s);
        return rc;
    }
    *out = s;
    return EDDY_OK;
}

static int create_resident(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    return create_common(setup, 1, out, err);
}

static int create_reference(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    return create_common(setup, 0, out, err);
}

static int ensure_scratch(eddy_solver *s, size_t n, eddy_error *err)
{
    if (n <= s->scratch) return EDDY_OK;
    eddy_real *a = realloc(s->ax, n * sizeof *a);
    if (a) s->ax = a;
    eddy_real *b = a ? realloc(s->ay, n * sizeof *b) : NULL;
    if (b) s->ay = b;
    eddy_real *c = b ? realloc(s->az, n * sizeof *c) : NULL;
    if (!c) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    s->az = c;
    s->scratch = n;
    return EDDY_OK;
}

static int step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    int rc = ensure_scratch(s, w->particles.count, err);
    if (rc) return rc;
    const double t0 = eddy_time_ms();
    if (!s->resident) {
        const arrays a = host_arrays(s, w);
        step_arrays(s, w, &a, (eddy_real)dt);
    } else {
        if ((rc = upload_edits(s, w, err))) return rc;
        const arrays a = device_arrays(s);
        step_arrays(s, w, &a, (eddy_real)dt);
        leave_host_stale(s, w);
    }
    eddy_world_add_phase_time(w, EDDY_PHASE_FORCES, eddy_time_ms() - t0);
    return EDDY_OK;
}

static int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    if (!s->resident) {
        const arrays a = host_arrays(s, w);
        compute_density(s, w, &a);
        return EDDY_OK;
    }
    int rc = upload_edits(s, w, err);
    if (rc) return rc;
    const arrays a = device_arrays(s);
    compute_density(s, w, &a);
    leave_host_stale(s, w);
    return EDDY_OK;
}

static int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    (void)err;
    *dt = eddy_world_stable_dt(w, s->cfl, s->sound_speed, s->nu_max, s->max_accel, limit);
    return EDDY_OK;
}

/* The core's reduction (world.c, compute_stats) over the device copy, term for term: the max of the
 * float squared speeds of owned particles with finite velocities, then one sqrtf, and the counts of
 * non-finite velocities and positions, so the host's time steps are those of the reference. */
static int reduce(eddy_solver *s, eddy_world *w, eddy_step_stats *st, eddy_error *err)
{
    (void)err;
    const arrays a = device_arrays(s);
    eddy_real m2 = 0.0f;
    size_t bad_v = 0, bad_x = 0, first = SIZE_MAX;
    uint64_t first_id = UINT64_MAX;
    for (size_t i = 0; i < a.n; ++i) {
        if (a.flags[i] & EDDY_PARTICLE_HALO) continue;
        const eddy_real dv = (a.vx[i] - a.vx[i]) + (a.vy[i] - a.vy[i]) + (a.vz[i] - a.vz[i]);
        const eddy_real dx = (a.x[i] - a.x[i]) + (a.y[i] - a.y[i]) + (a.z[i] - a.z[i]);
        const int bv = dv != dv, bx = dx != dx;
        const eddy_real sp = a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i];
        if (!bv && sp > m2) m2 = sp;
        bad_v += (size_t)bv;
        bad_x += (size_t)bx;
        if ((bv || bx) && s->dev.id[i] < first_id) {
            first_id = s->dev.id[i];
            first = i;
        }
    }
    const eddy_step_stats previous = s->previous;
    st->step = w->step;
    st->max_speed = (double)sqrtf(m2);
    st->nonfinite_velocity = bad_v;
    st->nonfinite_position = bad_x;
    st->first_nonfinite = first;
    s->previous = *st;
    if (s->stale_reduce) {
        st->max_speed = previous.max_speed;
        st->nonfinite_velocity = previous.nonfinite_velocity;
        st->nonfinite_position = previous.nonfinite_position;
        st->first_nonfinite = previous.first_nonfinite;
    }
    return EDDY_OK;
}

static int save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    const eddy_real v = s->max_accel;
    return eddy_state_save_floats("residency_double/1", &v, 1, data, size, err);
}

static int load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    eddy_real v = 0.0f;
    int rc = eddy_state_load_floats("residency_double/1", &v, 1, data, size, err);
    if (!rc) s->max_accel = v;
    return rc;
}

static void destroy(eddy_solver *s)
{
    if (!s) return;
    if (s->host && s->resident && getenv("EDDY_RESIDENCY_LOG"))
        eddy_host_log(s->host, EDDY_LOG_DEBUG, "residency_double", "%ld field downloads", s->downloads);
    device_free(&s->dev);
    free(s->ax);
    free(s->ay);
    free(s->az);
    free(s->viscosity);
    free(s->rest_density);
    free(s->stiffness);
    free(s);
}

static const eddy_solver_vtable resident_vtable = {
    .size = sizeof(eddy_solver_vtable),
    .create = create_resident,
    .step = step,
    .destroy = destroy,
    .max_dt = max_dt,
    .save = save,
    .load = load,
    .compute_fields = compute_fields,
    .reduce = reduce,
};

static const eddy_solver_vtable reference_vtable = {
    .size = sizeof(eddy_solver_vtable),
    .create = create_reference,
    .step = step,
    .destroy = destroy,
    .max_dt = max_dt,
    .save = save,
    .load = load,
    .compute_fields = compute_fields,
};

static const eddy_component resident_component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "residency_double",
    .version = "0.1.0",
    .description = "test double: SPH whose particles stay in private storage (a CPU stand-in for a GPU)",
    .params = params,
    .param_count = P_COUNT,
    .vtable = &resident_vtable,
    .flags = EDDY_COMPONENT_DEVICE_RESIDENT,
    .material_params = material_params,
    .material_param_count = M_COUNT,
};

static const eddy_component reference_component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "residency_reference",
    .version = "0.1.0",
    .description = "test double's reference: the same SPH step on the host arrays",
    .params = params,
    .param_count = P_COUNT,
    .vtable = &reference_vtable,
    .flags = 0,
    .material_params = material_params,
    .material_param_count = M_COUNT,
};

/* Both flags: the host must refuse it (tests/residency, residency_refuses_decomposable). */
static const eddy_component decomposable_component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "residency_double_decomposable",
    .version = "0.1.0",
    .description = "test double: device-resident and decomposable, a combination the host refuses",
    .params = params,
    .param_count = P_COUNT,
    .vtable = &resident_vtable,
    .flags = EDDY_COMPONENT_DEVICE_RESIDENT | EDDY_COMPONENT_DECOMPOSABLE,
    .material_params = material_params,
    .material_param_count = M_COUNT,
};

static const eddy_component *const components[] = {&resident_component, &reference_component,
                                                   &decomposable_component};

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = "residency_double",
    .version = "0.1.0",
    .component_count = 3,
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void)
{
    return &descriptor;
}
