#include "sim_support.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <eddy_sph/lattice.h>

int support_run_tests(const char *program, int argc, char **argv, const struct CMUnitTest *tests, size_t count)
{
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < count; ++i) printf("%s\n", tests[i].name);
        return 0;
    }
    support_source_dir();
    if (argc > 1) {
        for (size_t i = 0; i < count; ++i)
            if (strcmp(tests[i].name, argv[1]) == 0) return _cmocka_run_group_tests(argv[1], &tests[i], 1, NULL, NULL);
        fprintf(stderr, "%s: no test named '%s'\n", program, argv[1]);
        return 1;
    }
    return _cmocka_run_group_tests(program, tests, count, NULL, NULL);
}

eddy_material support_material(const char *name, float rest_density, float mass)
{
    eddy_material m = eddy_default_material();
    snprintf(m.name, sizeof m.name, "%s", name);
    m.rest_density = rest_density;
    m.particle_mass = mass;
    m.contact.radius = 0.01f;
    m.contact.margin = 0.001f;
    m.contact.erp = 0.5f;
    return m;
}

void support_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            for (struct dirent *e; (e = readdir(d));) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
                char sub[8192];
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                support_remove_tree(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

const char *support_source_dir(void)
{
    const char *src = getenv("EDDY_SOURCE_DIR");
    if (!src) {
        fprintf(stderr, "EDDY_SOURCE_DIR is not set (run through ctest)\n");
        exit(1);
    }
    return src;
}

void support_open_scene(const char *name, const char *solver, const char *const *sets, size_t nsets,
                        size_t target, eddy_sim *sim)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/scenes/%s", support_source_dir(), name);
    eddy_scene scene;
    eddy_error err;
    if (eddy_scene_load(path, sets, nsets, &scene, &err)) fail_msg("%s", err.message);
    eddy_sim_options o = {solver, NULL, target, NULL, 0};
    if (eddy_sim_open(&scene, &o, sim, &err)) fail_msg("%s", err.message);
}

void support_open_text(const char *text, const char *const *sets, size_t nsets, eddy_sim *sim)
{
    eddy_scene scene;
    eddy_error err;
    if (eddy_scene_parse(text, "inline.json", sets, nsets, &scene, &err)) fail_msg("%s", err.message);
    if (eddy_sim_open(&scene, NULL, sim, &err)) fail_msg("%s", err.message);
}

void support_advance(eddy_sim *sim, double t)
{
    eddy_error err;
    if (eddy_sim_advance_to(sim, t, &err)) fail_msg("%s", err.message);
}

void support_steps(eddy_sim *sim, int steps, double dt)
{
    eddy_error err;
    for (int s = 0; s < steps; ++s)
        if (eddy_sim_step(sim, dt, &err)) fail_msg("%s", err.message);
}

uint64_t support_hash_after(const char *name, const char *solver, const char *const *sets, size_t nsets,
                            size_t target, int threads, int steps)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/scenes/%s", support_source_dir(), name);
    eddy_scene scene;
    eddy_error err;
    if (eddy_scene_load(path, sets, nsets, &scene, &err)) fail_msg("%s", err.message);
    /* The session sets the thread count (services.h), as `eddy run --threads` does. */
    eddy_sim_options o = {solver, NULL, target, NULL, threads};
    eddy_sim sim;
    if (eddy_sim_open(&scene, &o, &sim, &err)) fail_msg("%s", err.message);
    assert_int_equal(eddy_services_threads(), threads);
    const uint64_t h = support_steps_hash(&sim, steps);
    eddy_sim_close(&sim);
    return h;
}

uint64_t support_steps_hash(eddy_sim *sim, int steps)
{
    support_steps(sim, steps, sim->scene.dt);
    uint64_t h;
    eddy_error err;
    if (eddy_world_hash(sim->world, &h, &err)) fail_msg("%s", err.message);
    return h;
}

static void momentum(const eddy_particles *p, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    for (size_t i = 0; i < p->count; ++i) {
        out[0] += (double)p->mass[i] * p->vx[i];
        out[1] += (double)p->mass[i] * p->vy[i];
        out[2] += (double)p->mass[i] * p->vz[i];
    }
}

/* The host copy of every field, current (a device solver downloads it); fails the test otherwise. */
static void sync_host(eddy_sim *sim)
{
    eddy_error err;
    if (eddy_world_sync_host(sim->world, &err)) fail_msg("%s", err.message);
}

double support_momentum_ratio(eddy_sim *sim, int steps, double dt, double *gross_out)
{
    eddy_particles *p = &sim->world->particles;
    eddy_error err;
    /* A host edit goes through a write mapping, so that a device solver uploads it. */
    eddy_field_view view;
    memset(&view, 0, sizeof view);
    view.size = sizeof view;
    if (eddy_world_map_field(sim->world, EDDY_FIELD_VELOCITY, EDDY_MAP_READ_WRITE, &view, &err))
        fail_msg("%s", err.message);
    uint32_t seed = 12345;
    for (size_t i = 0; i < view.count; ++i) {
        for (int a = 0; a < 3; ++a) {
            seed = seed * 1664525u + 1013904223u;
            view.data[a][i] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * 0.5f;
        }
    }
    eddy_world_unmap_field(sim->world, &view);
    sync_host(sim);
    const size_t n = p->count;
    double p0[3], p1[3], gross = 0.0;
    momentum(p, p0);
    /* Velocities by particle id: the grid reorders particles every step. */
    float *old = malloc(sizeof(float) * 3 * n);
    assert_non_null(old);
    for (int s = 0; s < steps; ++s) {
        for (size_t i = 0; i < n; ++i) {
            assert_true(p->id[i] < n); /* the scene's ids are 0 .. n-1 */
            old[3 * p->id[i]] = p->vx[i];
            old[3 * p->id[i] + 1] = p->vy[i];
            old[3 * p->id[i] + 2] = p->vz[i];
        }
        if (eddy_sim_step(sim, dt, &err)) fail_msg("%s", err.message);
        sync_host(sim);
        for (size_t i = 0; i < n; ++i) {
            uint64_t id = p->id[i];
            double dx = p->vx[i] - old[3 * id], dy = p->vy[i] - old[3 * id + 1], dz = p->vz[i] - old[3 * id + 2];
            gross += (double)p->mass[i] * sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    free(old);
    assert_int_equal(p->count, n);
    momentum(p, p1);
    double drift = sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) +
                        (p1[2] - p0[2]) * (p1[2] - p0[2]));
    assert_true(gross > 0);
    if (gross_out) *gross_out = gross;
    return drift / gross;
}

const char *support_pressure_force_set(char *buf, size_t size, const char *solver, const char *form)
{
    snprintf(buf, size, "solvers.%s.pressure_force=\"%s\"", solver, form);
    return buf;
}

void support_assert_momentum_conserved(const char *solver, const char *const *texts, const char *const *labels,
                                       size_t ntexts, const char *const *forms, size_t nforms)
{
    for (size_t t = 0; t < ntexts; ++t)
        for (size_t f = 0; f < nforms; ++f) {
            char set[160];
            const char *sets[] = {support_pressure_force_set(set, sizeof set, solver, forms[f])};
            eddy_sim sim;
            support_open_text(texts[t], sets, 1, &sim);
            double gross;
            const double ratio = support_momentum_ratio(&sim, 100, 0.0002, &gross);
            printf("  periodic box, %s, %s, %zu particles, 100 steps: |momentum change| / gross impulse %.2e "
                   "(gross %.3e)\n",
                   labels[t], forms[f], sim.world->particles.count, ratio, gross);
            assert_true(gross > 0.0);
            assert_true(ratio < 1e-5);
            eddy_sim_close(&sim);
        }
}

double support_elastic_weight(const eddy_world *w, eddy_sph_kernel kernel)
{
    const eddy_material *mat = &w->materials[0];
    return 1.0 / (eddy_sph_lattice_gradient_moment(kernel, mat->particle_dist, w->smoothing_radius, w->dimensions) *
                  eddy_sph_rest_scale(kernel, mat, w->smoothing_radius, w->dimensions));
}

double support_mechanical_energy(eddy_sim *sim, support_elastic_fn elastic, const void *eos, double scale)
{
    eddy_error err;
    if (eddy_world_sync_host(sim->world, &err)) fail_msg("%s", err.message);
    const eddy_particles *p = &sim->world->particles;
    const float *g = sim->world->gravity;
    double e = 0.0;
    for (size_t i = 0; i < p->count; ++i) {
        const double v2 = (double)p->vx[i] * p->vx[i] + (double)p->vy[i] * p->vy[i] + (double)p->vz[i] * p->vz[i];
        const double height = -((double)g[0] * p->x[i] + (double)g[1] * p->y[i] + (double)g[2] * p->z[i]);
        e += p->mass[i] * (0.5 * v2 + height + scale * elastic(eos, p->density[i]));
    }
    return e;
}

double support_energy_rise(const char *label, const char *name, const char *solver, const char *const *sets,
                           size_t nsets, double dt, double every, double t_end, eddy_sph_kernel kernel,
                           support_elastic_fn elastic, const void *eos, double *final_ratio)
{
    eddy_sim sim;
    support_open_scene(name, solver, sets, nsets, 0, &sim);
    const eddy_world *w = sim.world;
    const double scale = support_elastic_weight(w, kernel);
    support_steps(&sim, 1, dt);
    const double e0 = support_mechanical_energy(&sim, elastic, eos, scale);
    double rise = 0.0, e = e0;
    for (int k = 1; k * every <= t_end + 1e-9; ++k) {
        support_advance(&sim, k * every);
        e = support_mechanical_energy(&sim, elastic, eos, scale);
        if ((e - e0) / e0 > rise) rise = (e - e0) / e0;
    }
    *final_ratio = e / e0;
    printf("  %s, %zu particles: E0 %.4f, largest rise %.2e E0, E(%.2f s) = %.4f E0\n", label,
           w->particles.count, e0, rise, t_end, *final_ratio);
    eddy_sim_close(&sim);
    return rise;
}

void support_assert_energy_bounded(const char *name, const char *solver, const char *const *sets, size_t nsets,
                                   const char *conserving, const char *control, eddy_sph_kernel kernel,
                                   support_elastic_fn elastic, const void *eos)
{
    const char *all[9];
    assert_true(nsets < sizeof all / sizeof *all);
    for (size_t i = 0; i < nsets; ++i) all[i] = sets[i];
    double final_ratio;
    all[nsets] = conserving;
    const double rise = support_energy_rise(conserving, name, solver, all, nsets + 1, 0.00005, 0.005, 0.2, kernel,
                                            elastic, eos, &final_ratio);
    assert_true(rise <= 1e-3);
    assert_true(final_ratio >= 0.97);
    all[nsets] = control;
    assert_true(support_energy_rise(control, name, solver, all, nsets + 1, 0.00005, 0.005, 0.15, kernel, elastic,
                                    eos, &final_ratio) > 0.1);
}
