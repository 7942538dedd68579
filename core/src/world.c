#include <eddy/world.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int eddy_world_create(int dimensions, eddy_world **out, eddy_error *err)
{
    *out = NULL;
    eddy_world *w = calloc(1, sizeof *w);
    if (!w) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    int rc = eddy_particles_init(&w->particles, dimensions, err);
    if (rc) { free(w); return rc; }
    w->dimensions = dimensions;
    w->simulation_scale = 1.0f;
    w->boundaries.dimensions = dimensions;
    *out = w;
    return EDDY_OK;
}

void eddy_world_destroy(eddy_world *w)
{
    if (!w) return;
    eddy_grid_free(&w->grid);
    eddy_particles_free(&w->particles);
    free(w->materials);
    free(w->contacts);
    free(w->boundaries.colliders);
    free(w);
}

double eddy_lattice_density(double mass, double spacing, double h, int d)
{
    if (!(spacing > 0) || !(h > 0)) return 0.0;
    const int n = (int)ceil(h / spacing);
    const double c = d == 2 ? 4.0 / (M_PI * pow(h, 8)) : 315.0 / (64.0 * M_PI * pow(h, 9));
    double sum = 0.0;
    for (int k = (d == 3 ? -n : 0); k <= (d == 3 ? n : 0); ++k)
        for (int j = -n; j <= n; ++j)
            for (int i = -n; i <= n; ++i) {
                double r2 = spacing * spacing * (double)(i * i + j * j + k * k);
                if (r2 < h * h) sum += pow(h * h - r2, 3);
            }
    return mass * c * sum;
}

double eddy_lattice_gradient_moment(double spacing, double h, int d)
{
    if (!(spacing > 0) || !(h > 0)) return 1.0;
    const int n = (int)ceil(h / spacing);
    const double c6 = d == 2 ? 4.0 / (M_PI * pow(h, 8)) : 315.0 / (64.0 * M_PI * pow(h, 9));
    const double cg = d == 2 ? 30.0 / (M_PI * pow(h, 5)) : 45.0 / (M_PI * pow(h, 6));
    double sum_w = 0.0, moment = 0.0;
    for (int k = (d == 3 ? -n : 0); k <= (d == 3 ? n : 0); ++k)
        for (int j = -n; j <= n; ++j)
            for (int i = -n; i <= n; ++i) {
                double x = spacing * i, r = spacing * sqrt((double)(i * i + j * j + k * k));
                if (r >= h) continue;
                sum_w += c6 * pow(h * h - r * r, 3);
                if (r > 0) moment += x * x * cg * (h - r) * (h - r) / r;
            }
    return moment / sum_w;
}

/* The spacing whose lattice sums to rho0: lattice density falls as the spacing grows (up to small
 * wiggles of the kernel sum), so bisection around (m / rho0)^(1/d) finds it deterministically. Without
 * a smoothing radius there is no kernel yet, and the plain volume estimate is all there is. */
float eddy_rest_spacing(double mass, double rho0, double h, int d)
{
    double guess = pow(mass / rho0, 1.0 / d);
    if (!(h > 0)) return (float)guess;
    double lo = 0.7 * guess, hi = 1.3 * guess;
    if (!(eddy_lattice_density(mass, lo, h, d) > rho0 && eddy_lattice_density(mass, hi, h, d) < rho0))
        return (float)guess;
    for (int it = 0; it < 60; ++it) {
        double mid = 0.5 * (lo + hi);
        if (eddy_lattice_density(mass, mid, h, d) > rho0) lo = mid;
        else hi = mid;
    }
    return (float)(0.5 * (lo + hi));
}

#define CHECK_RANGE(cond, key, what)                                                               \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "material '%s': %s must be %s",  \
                                  m->name, key, what);                                             \
    } while (0)

int eddy_world_add_material(eddy_world *w, const eddy_material *m, eddy_error *err)
{
    CHECK_RANGE(m->rest_density > 0 && isfinite(m->rest_density), "rest_density", "> 0");
    CHECK_RANGE(m->particle_mass > 0 && isfinite(m->particle_mass), "particle_mass", "> 0");
    CHECK_RANGE(m->viscosity >= 0 && isfinite(m->viscosity), "viscosity", ">= 0");
    CHECK_RANGE(m->stiffness >= 0 && isfinite(m->stiffness), "stiffness", ">= 0");
    CHECK_RANGE(m->initial_sum > 0 && m->initial_sum <= 1, "initial_sum", "in (0, 1]");
    CHECK_RANGE(m->contact.radius >= 0 && isfinite(m->contact.radius), "particle_radius", ">= 0");
    CHECK_RANGE(m->contact.margin >= 0 && (m->contact.margin < m->contact.radius || m->contact.radius == 0),
                "particle_margin", "in [0, particle_radius)");
    CHECK_RANGE(m->contact.restitution >= 0 && m->contact.restitution <= 1, "restitution", "in [0, 1]");
    CHECK_RANGE(m->contact.friction >= 0 && m->contact.friction <= 1, "friction", "in [0, 1]");
    CHECK_RANGE(m->contact.erp >= 0 && m->contact.erp <= 1, "erp", "in [0, 1]");
    for (size_t i = 0; i < w->material_count; ++i)
        if (strcmp(w->materials[i].name, m->name) == 0)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "material '%s' is defined twice",
                                  m->name);
    eddy_material *mats = realloc(w->materials, sizeof *mats * (w->material_count + 1));
    if (!mats) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    w->materials = mats;
    eddy_contact_params *cps = realloc(w->contacts, sizeof *cps * (w->material_count + 1));
    if (!cps) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    w->contacts = cps;
    eddy_material *dst = &mats[w->material_count];
    *dst = *m;
    dst->name[EDDY_MATERIAL_NAME_MAX - 1] = '\0';
    dst->particle_dist = eddy_rest_spacing(m->particle_mass, m->rest_density, w->smoothing_radius, w->dimensions);
    cps[w->material_count] = m->contact;
    w->material_count++;
    return EDDY_OK;
}

int eddy_world_add_particles(eddy_world *w, size_t n, const float *positions, const float *velocities,
                             uint32_t material, eddy_error *err)
{
    if (material >= w->material_count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "material index %u: only %zu materials",
                              (unsigned)material, w->material_count);
    size_t first = 0;
    int rc = eddy_particles_add(&w->particles, n, positions, velocities, material, &first, err);
    if (rc) return rc;
    for (size_t i = first; i < first + n; ++i) w->particles.mass[i] = w->materials[material].particle_mass;
    return EDDY_OK;
}

static int push_collider(eddy_world *w, const eddy_collider *c, eddy_error *err)
{
    eddy_collider *cs = realloc(w->boundaries.colliders, sizeof *cs * (w->boundaries.collider_count + 1));
    if (!cs) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    w->boundaries.colliders = cs;
    cs[w->boundaries.collider_count++] = *c;
    return EDDY_OK;
}

int eddy_world_set_container(eddy_world *w, const float min[3], const float max[3],
                             const int periodic[3], eddy_error *err)
{
    if (w->boundaries.has_container)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "container is already set");
    if (w->boundaries.collider_count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "set the container before the colliders");
    for (int a = 0; a < w->dimensions; ++a)
        if (!(min[a] < max[a]) || !isfinite(min[a]) || !isfinite(max[a]))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "container: min[%d] = %g must be below max[%d] = %g", a, min[a], a,
                                  max[a]);
    w->boundaries.has_container = 1;
    for (int a = 0; a < 3; ++a) {
        w->boundaries.container_min[a] = a < w->dimensions ? min[a] : 0.0f;
        w->boundaries.container_max[a] = a < w->dimensions ? max[a] : 0.0f;
    }
    for (int a = 0; a < w->dimensions; ++a) {
        if (periodic && periodic[a]) continue;
        for (int side = 0; side < 2; ++side) {
            eddy_collider c;
            memset(&c, 0, sizeof c);
            c.shape = EDDY_SHAPE_PLANE;
            c.is_container_wall = 1;
            c.point[a] = side ? max[a] : min[a];
            c.normal[a] = side ? -1.0f : 1.0f;
            int rc = push_collider(w, &c, err);
            if (rc) return rc;
        }
    }
    return EDDY_OK;
}

int eddy_world_add_collider(eddy_world *w, const eddy_collider *c, eddy_error *err)
{
    eddy_collider copy = *c;
    copy.is_container_wall = 0;
    if (copy.shape == EDDY_SHAPE_PLANE) {
        float l = 0.0f;
        for (int a = 0; a < w->dimensions; ++a) l += copy.normal[a] * copy.normal[a];
        l = sqrtf(l);
        if (!(l > 0) || !isfinite(l))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "plane collider: normal has zero length");
        for (int a = 0; a < 3; ++a) copy.normal[a] = a < w->dimensions ? copy.normal[a] / l : 0.0f;
    } else if (copy.shape == EDDY_SHAPE_SPHERE) {
        if (!(copy.radius > 0))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "sphere collider: radius must be > 0");
    } else if (copy.shape == EDDY_SHAPE_BOX) {
        for (int a = 0; a < w->dimensions; ++a)
            if (!(copy.min[a] < copy.max[a]))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "box collider: min[%d] must be below max[%d]", a, a);
    } else {
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "collider: unknown shape %d", (int)c->shape);
    }
    return push_collider(w, &copy, err);
}

int eddy_world_init_grid(eddy_world *w, const float lo[3], const float hi[3], const int periodic[3],
                         const eddy_grid_backend_vtable *backend, eddy_domain_policy policy,
                         eddy_error *err)
{
    if (!(w->smoothing_radius > 0) || !isfinite(w->smoothing_radius))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "smoothing_radius must be > 0, got %g",
                              w->smoothing_radius);
    eddy_grid_layout layout;
    int rc = eddy_grid_layout_init(&layout, w->dimensions, lo, hi, periodic, w->smoothing_radius, err);
    if (rc) return rc;
    eddy_grid_free(&w->grid);
    return eddy_grid_init(&w->grid, &layout, backend, policy, err);
}

double eddy_time_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void eddy_world_add_phase_time(eddy_world *w, eddy_phase phase, double ms)
{
    if ((int)phase >= 0 && phase < EDDY_PHASE_COUNT) w->phase_ms[phase] += ms;
}

int eddy_world_build_grid(eddy_world *w, eddy_error *err)
{
    double t0 = eddy_time_ms();
    int rc = eddy_grid_build(&w->grid, &w->particles, err);
    eddy_world_add_phase_time(w, EDDY_PHASE_GRID, eddy_time_ms() - t0);
    return rc;
}

void eddy_world_integrate_velocity(eddy_world *w, int acceleration_field, float dt)
{
    eddy_particles *p = &w->particles;
    const float *ax = eddy_particles_field(p, acceleration_field, 0);
    const float *ay = eddy_particles_field(p, acceleration_field, 1);
    const float *az = eddy_particles_field(p, acceleration_field, 2);
    const float gx = w->gravity[0], gy = w->gravity[1], gz = w->dimensions == 3 ? w->gravity[2] : 0.0f;
    const long long n = (long long)p->count;
    float *vx = p->vx, *vy = p->vy, *vz = p->vz;
    if (ax && ay && az) {
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; ++i) {
            vx[i] += (ax[i] + gx) * dt;
            vy[i] += (ay[i] + gy) * dt;
            vz[i] += (az[i] + gz) * dt;
        }
    } else {
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; ++i) {
            vx[i] += gx * dt;
            vy[i] += gy * dt;
            vz[i] += gz * dt;
        }
    }
}

void eddy_world_symplectic_euler(eddy_world *w, int acceleration_field, float dt)
{
    double t0 = eddy_time_ms();
    eddy_world_integrate_velocity(w, acceleration_field, dt);
    eddy_world_respond_boundaries(w, dt);
    eddy_world_integrate_position(w, dt);
    eddy_world_add_phase_time(w, EDDY_PHASE_INTEGRATE, eddy_time_ms() - t0);
}

void eddy_world_integrate_position(eddy_world *w, float dt)
{
    eddy_particles *p = &w->particles;
    const long long n = (long long)p->count;
    float *x = p->x, *y = p->y, *z = p->z;
    const float *vx = p->vx, *vy = p->vy, *vz = p->vz;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) {
        x[i] += vx[i] * dt;
        y[i] += vy[i] * dt;
        z[i] += vz[i] * dt;
    }
}

void eddy_world_respond_boundaries(eddy_world *w, float dt)
{
    eddy_boundaries_respond(&w->boundaries, w->contacts, &w->particles, dt);
}

float eddy_world_max_speed(const eddy_world *w)
{
    const eddy_particles *p = &w->particles;
    const long long n = (long long)p->count;
    float m2 = 0.0f;
    /* Serial on purpose: an OpenMP max reduction may drop a NaN, and a NaN must reach the caller. */
    for (long long i = 0; i < n; ++i) {
        float s = p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i];
        if (s > m2 || s != s) m2 = s;
        if (s != s) break;
    }
    return sqrtf(m2);
}

double eddy_world_cfl_dt(const eddy_world *w, double cfl, double signal_speed)
{
    double speed = signal_speed + (double)eddy_world_max_speed(w);
    if (!(speed > 0)) return INFINITY;
    return cfl * (double)w->smoothing_radius / speed;
}

double eddy_world_stable_dt(const eddy_world *w, double cfl, double signal_speed, double nu_max,
                            double accel_max, const char **limit)
{
    const double h = w->smoothing_radius;
    double best = eddy_world_cfl_dt(w, cfl, signal_speed);
    const char *name = "CFL";
    if (nu_max > 0 && 0.125 * h * h / nu_max < best) {
        best = 0.125 * h * h / nu_max;
        name = "viscous";
    }
    if (accel_max > 0 && 0.25 * sqrt(h / accel_max) < best) {
        best = 0.25 * sqrt(h / accel_max);
        name = "force";
    }
    if (limit) *limit = name;
    return best;
}
