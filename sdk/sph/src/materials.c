/* Material tables, time step and state records (eddy_sph/materials.h). */
#include <eddy_sph/gather.h>
#include <eddy_sph/lattice.h>
#include <eddy_sph/materials.h>

#include <eddy/kernels.h>
#include <eddy/state.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { TABLES = 7 };

void eddy_sph_materials_free(eddy_sph_materials *t)
{
    if (!t) return;
    free(t->block);
    *t = (eddy_sph_materials){0};
}

/* The checks both table functions share: a world, and a support radius every table can be made with
 * (h <= 0 gives infinite kernel coefficients, so NaN self terms and gradient scales). */
static int check_world(const eddy_world *w, const char *who, eddy_error *err)
{
    if (!w) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, EDDY_SPH_WHO_FMT "material tables: no world", EDDY_SPH_WHO(who));
    if (!(w->smoothing_radius > 0.0f) || !isfinite(w->smoothing_radius))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              EDDY_SPH_WHO_FMT "material tables: the smoothing radius is %g, expected a positive number",
                              EDDY_SPH_WHO(who), (double)w->smoothing_radius);
    return EDDY_OK;
}

int eddy_sph_materials_init(eddy_sph_materials *t, const eddy_world *w, const eddy_param_desc *viscosity,
                            const eddy_param_desc *stiffness, const eddy_param_desc *initial_sum,
                            const char *who, eddy_error *err)
{
    if (!t) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, EDDY_SPH_WHO_FMT "material tables: NULL tables", EDDY_SPH_WHO(who));
    *t = (eddy_sph_materials){0};
    const int rc = check_world(w, who, err);
    if (rc) return rc;
    const size_t nm = w->material_count;
    const size_t cap = nm ? nm : 1;
    float *f = calloc(cap * TABLES, sizeof(float));
    if (!f) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, EDDY_SPH_WHO_FMT "out of memory", EDDY_SPH_WHO(who));
    t->block = f;
    t->count = nm;
    float **arrays[TABLES] = {&t->rest_density, &t->mass, &t->viscosity,
                              &t->stiffness, &t->self_density, &t->gradient_scale, &t->density_scale};
    for (int a = 0; a < TABLES; ++a) *arrays[a] = f + (size_t)a * cap;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    for (size_t m = 0; m < nm; ++m) {
        const eddy_material *mat = &w->materials[m];
        const float sum0 = initial_sum ? (float)eddy_material_param(mat, initial_sum) : 1.0f;
        t->rest_density[m] = mat->rest_density;
        t->mass[m] = mat->particle_mass;
        t->viscosity[m] = viscosity ? (float)eddy_material_param(mat, viscosity) : 0.0f;
        t->stiffness[m] = stiffness ? (float)eddy_material_param(mat, stiffness) : 0.0f;
        t->self_density[m] = eddy_sph_self_density(sum0, mat->particle_mass, &k);
        /* The spiky pressure gradient of a linear pressure field falls short by the lattice's first
         * gradient moment (<eddy/world.h>); dividing by it lets fluid at rest carry rho0 g H. */
        t->gradient_scale[m] =
            (float)(1.0 / eddy_lattice_gradient_moment(mat->particle_dist, w->smoothing_radius, w->dimensions));
        t->density_scale[m] = k.poly6;
    }
    return EDDY_OK;
}

int eddy_sph_materials_use_kernel(eddy_sph_materials *t, const eddy_world *w, eddy_sph_kernel kernel,
                                  const eddy_param_desc *initial_sum, const char *who, eddy_error *err)
{
    if (!t) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, EDDY_SPH_WHO_FMT "material tables: NULL tables", EDDY_SPH_WHO(who));
    if (kernel != EDDY_SPH_POLY6 && kernel != EDDY_SPH_WENDLAND) {
        static const char *const names[] = {"poly6", "spiky", "cubic spline", "wendland"};
        const unsigned id = (unsigned)kernel;
        return eddy_error_set(err, EDDY_ERR_UNSUPPORTED,
                              EDDY_SPH_WHO_FMT "no density pass sums the %s kernel (poly6 or wendland)", EDDY_SPH_WHO(who),
                              id < 4 ? names[id] : "unknown");
    }
    const int rc = check_world(w, who, err);
    if (rc) return rc;
    /* Tables of another world would read past this world's materials, or leave some without a row. */
    if (t->count != w->material_count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              EDDY_SPH_WHO_FMT "material tables of %zu materials for a world of %zu (eddy_sph_materials_init "
                              "with this world first)",
                              EDDY_SPH_WHO(who), t->count, w->material_count);
    /* (checked for poly6 too, which the tables already hold: the same call refuses the same arguments) */
    if (kernel == EDDY_SPH_POLY6) return EDDY_OK;
    /* Every scale first, so that a refused material leaves the tables as they were. */
    for (size_t m = 0; m < t->count; ++m) {
        const double scale = eddy_sph_rest_scale(kernel, &w->materials[m], w->smoothing_radius, w->dimensions);
        if (!(scale > 0.0) || !isfinite(scale))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  EDDY_SPH_WHO_FMT "material %zu ('%s'): the wendland kernel's rest-lattice scale is %g "
                                  "(particle spacing %g, smoothing radius %g)",
                                  EDDY_SPH_WHO(who), m, w->materials[m].name, scale,
                                  (double)w->materials[m].particle_dist, (double)w->smoothing_radius);
    }
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    for (size_t m = 0; m < t->count; ++m) {
        const eddy_material *mat = &w->materials[m];
        const double scale = eddy_sph_rest_scale(kernel, mat, w->smoothing_radius, w->dimensions);
        const double sum0 = initial_sum ? eddy_material_param(mat, initial_sum) : 1.0;
        t->density_scale[m] = (float)(k.wendland * scale);
        t->self_density[m] = (float)((sum0 - 1.0) * mat->particle_mass * k.wendland * scale);
        t->gradient_scale[m] = (float)(1.0 / eddy_sph_lattice_gradient_moment(kernel, mat->particle_dist,
                                                                              w->smoothing_radius, w->dimensions));
    }
    return EDDY_OK;
}

double eddy_sph_nu_max(const eddy_sph_materials *t)
{
    double nu_max = 0.0;
    for (size_t m = 0; t && m < t->count; ++m) {
        double nu = t->viscosity[m] / t->rest_density[m];
        if (nu > nu_max) nu_max = nu;
    }
    return nu_max;
}

double eddy_sph_stiffness_max(const eddy_sph_materials *t)
{
    double kmax = 0.0;
    for (size_t m = 0; t && m < t->count; ++m)
        if (t->stiffness[m] > kmax) kmax = t->stiffness[m];
    return kmax;
}

double eddy_sph_stable_dt(const eddy_world *w, double cfl, double signal_speed, const eddy_sph_materials *t,
                          double max_accel, const char **limit)
{
    return eddy_world_stable_dt(w, cfl, signal_speed, eddy_sph_nu_max(t), max_accel, limit);
}

int eddy_sph_max_accel(eddy_world *w, float amax2, float *max_accel, eddy_error *err)
{
    if (!w || !max_accel)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_sph_max_accel: %s is NULL", w ? "max_accel" : "the world");
    double v = amax2;
    const int rc = eddy_world_reduce(w, EDDY_REDUCE_MAX, &v, 1, err);
    if (!rc) *max_accel = sqrtf((float)v);
    return rc;
}

int eddy_sph_fall_height(eddy_world *w, double *height, eddy_error *err)
{
    if (!w || !height)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_sph_fall_height: %s is NULL", w ? "height" : "the world");
    const double g = sqrt((double)w->gravity[0] * w->gravity[0] + (double)w->gravity[1] * w->gravity[1] +
                          (double)w->gravity[2] * w->gravity[2]);
    if (!(g > 0)) {
        *height = 0.0;
        return EDDY_OK;
    }
    const eddy_particles *p = &w->particles;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < p->count; ++i) {
        if (eddy_particle_is_halo(p, i)) continue;
        /* (the dot product in float, as tait has always derived it: its c0, and so its state hashes, stay
         * bit for bit) */
        const double up = -(p->x[i] * w->gravity[0] + p->y[i] * w->gravity[1] + p->z[i] * w->gravity[2]) / g;
        lo = up < lo ? up : lo;
        hi = up > hi ? up : hi;
    }
    double extent[2] = {lo, -hi}; /* both by MIN: one collective call */
    const int rc = eddy_world_reduce(w, EDDY_REDUCE_MIN, extent, 2, err);
    if (rc) return eddy_error_prefix(err, "fall height: ");
    *height = -extent[1] >= extent[0] ? -extent[1] - extent[0] : 0.0; /* no particle on any process: 0 */
    return EDDY_OK;
}

/*
 * The checks save and load share, before anything is allocated or copied: a tag, the arrays of every
 * non-empty part, and a total that a record can hold. The sum is checked as it grows: counts whose sum
 * wraps around size_t would otherwise size a small buffer that the copies then overrun.
 */
static int check_parts(const char *tag, const void *const *parts, const size_t *counts, size_t nparts, size_t *n,
                       eddy_error *err)
{
    if (!tag) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "state record: no tag");
    if (nparts && !counts) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %zu parts without counts", tag, nparts);
    if (nparts && !parts) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %zu parts without arrays", tag, nparts);
    size_t total = 0;
    for (size_t i = 0; i < nparts; ++i) {
        if (counts[i] && !parts[i])
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: part %zu has %zu values but no array", tag, i,
                                  counts[i]);
        if (counts[i] > UINT32_MAX - total)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s: the parts hold more than %u values, the most a state record holds", tag,
                                  (unsigned)UINT32_MAX);
        total += counts[i];
    }
    *n = total;
    return EDDY_OK;
}

int eddy_sph_state_save(const char *tag, const float *const *parts, const size_t *counts, size_t nparts,
                        void **data, size_t *size, eddy_error *err)
{
    size_t n = 0;
    int rc = check_parts(tag, (const void *const *)parts, counts, nparts, &n, err);
    if (rc) return rc;
    if (!data || !size) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: nowhere to put the record", tag);
    float *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", tag);
    for (size_t i = 0, o = 0; i < nparts; o += counts[i++])
        if (counts[i]) memcpy(v + o, parts[i], counts[i] * sizeof *v);
    rc = eddy_state_save_floats(tag, v, n, data, size, err);
    free(v);
    return rc;
}

int eddy_sph_state_load(const char *tag, float *const *parts, const size_t *counts, size_t nparts,
                        const void *data, size_t size, eddy_error *err)
{
    size_t n = 0;
    int rc = check_parts(tag, (const void *const *)parts, counts, nparts, &n, err);
    if (rc) return rc;
    if (!data && size) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: a record of %zu bytes at NULL", tag, size);
    float *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", tag);
    rc = eddy_state_load_floats(tag, v, n, data, size, err);
    if (!rc)
        for (size_t i = 0, o = 0; i < nparts; o += counts[i++])
            if (counts[i]) memcpy(parts[i], v + o, counts[i] * sizeof *v);
    free(v);
    return rc;
}
