/*
 * test_sph_agree SCENE STEPS SOLVER_A SOLVER_B [--particles N] [--trace K] [--set-b key=value]...
 *
 * Runs SCENE with two solvers side by side for STEPS steps of the same time step (the smaller of the
 * two solvers' next_dt, so both take identical steps) and compares the states particle by particle
 * (matched by id, since the solvers may store particles in different orders): the largest position,
 * velocity, density and acceleration differences,
 *
 *   position      max |x_A - x_B| / h
 *   velocity      max |v_A - v_B| / (max speed of A + sqrt(|g| h))
 *   density       max |rho_A - rho_B| / rho0 (of the particle's material)
 *   acceleration  max |a_A - a_B| / (max |a| of A + |g|)   (the field "acceleration", if both have it)
 *
 * once after compute_fields (the state the solvers were created with: every force term on the same
 * positions, no dynamics yet) and once after the steps.
 *
 * After compute_fields both solvers see bit-identical positions, so they differ only by the rounding
 * of each sum (another order on the GPU, which fuses multiply-adds; the CPU vectorizes): every
 * difference must be at most 1e-3, the acceleration at most 1e-2 (a stiff fluid turns a density
 * rounding into k drho / (rho0 h): 1e-7 rho0 is about 1e-3 of g in dam_break_2d).
 *
 * After the steps the dynamics has amplified those roundings, as far as the scene carries them: each
 * difference must be at most max(1e-3, 4 R), where R is the same difference between SOLVER_A and a
 * third run of SOLVER_A whose positions were moved by one unit in the last place (up, down or not, per
 * coordinate) before the first step — the round-off reference, run alongside on the same scene and
 * steps. A column released from rest (dam_break_2d, stiffness 400) turns that nudge of sph_mueller
 * into a velocity difference of 1.5e-3 in 100 steps, beyond any fixed 1e-3, while a sheared periodic
 * layer keeps it at 4e-5. A wrong term shows beyond both: halving the pressure force
 * (pressure_force = mueller, test cuda_grid_agree_harness_detects_change) changes the accelerations
 * at compute_fields by 0.2 of max |a| + g, and dam_break_2d's velocities after 100 steps by 30 R.
 * docs/cuda_grid.md records what sph_mueller_cuda measured on a GPU.
 *
 * --trace K also prints the differences every K steps (never failing on them): a difference that
 * grows smoothly is amplified round-off, one that jumps at a step is a different decision (a contact,
 * a wall within reach) or a wrong term. The velocity line names the worst particle, its position, its
 * distance to the nearest wall and both velocities. Trace and final lines also give each run's mean
 * |rho/rho0 - 1| and kinetic energy (as eddy run's diagnostics.csv): once round-off has decorrelated
 * single particles (a splash, after ~1000 steps of dam_break_2d), what remains comparable is these
 * statistics, against the spread the reference shows.
 *
 * Exit status: 0 within tolerance, 1 not (or an error), 77 when SOLVER_B reports no CUDA device and
 * `nvidia-smi -L` lists no GPU either (tests/support/gpu_present.h); on a machine with a GPU that
 * error fails.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnostics.h"
#include "gpu_present.h"
#include "scene.h"
#include "sim.h"

#define EXIT_SKIP 77
#define MAX_SETS 16
#define FIXED_BOUND 1e-3
#define FIELDS_ACCELERATION_BOUND 1e-2
#define ROUNDOFF_FACTOR 4.0

static int open_sim(const char *path, const char *solver, size_t particles, const char *const *sets, size_t nsets,
                    eddy_sim *sim, eddy_error *err)
{
    eddy_scene scene;
    int rc = eddy_scene_load(path, sets, nsets, &scene, err);
    if (rc) return rc;
    eddy_sim_options o = {.solver = solver, .particle_target = particles};
    return eddy_sim_open(&scene, &o, sim, err);
}

/* Particles by id: 64-bit ids need not be dense, so a lookup table indexed by id will not do. */
typedef struct id_index {
    uint64_t id;
    uint32_t index;
} id_index;

static int cmp_id_index(const void *a, const void *b)
{
    const uint64_t x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
    return (x > y) - (x < y);
}

/* The particles of p sorted by id, for find_by_id(); NULL when out of memory. */
static id_index *index_by_id(const eddy_particles *p)
{
    id_index *map = malloc(sizeof(id_index) * (p->count ? p->count : 1));
    if (!map) return NULL;
    for (size_t i = 0; i < p->count; ++i) {
        map[i].id = p->id[i];
        map[i].index = (uint32_t)i;
    }
    qsort(map, p->count, sizeof(id_index), cmp_id_index);
    return map;
}

/* The index of the particle with this id, or UINT32_MAX. */
static uint32_t find_by_id(const id_index *map, size_t count, uint64_t id)
{
    const id_index key = {id, 0};
    const id_index *hit = count ? bsearch(&key, map, count, sizeof(id_index), cmp_id_index) : NULL;
    return hit ? hit->index : UINT32_MAX;
}

/* Moves every coordinate of every particle by one unit in the last place, up, down or not (a fixed
 * pseudo-random pattern): a perturbation of the size of one rounding. Through a read-write mapping of
 * the positions, as a host edits particles, so that the solver sees the edit (world.h). */
static int nudge_positions(eddy_world *w, eddy_error *err)
{
    eddy_field_view view;
    memset(&view, 0, sizeof view);
    view.size = sizeof view;
    int rc = eddy_world_map_field(w, EDDY_FIELD_POSITION, EDDY_MAP_READ_WRITE, &view, err);
    if (rc) return rc;
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < view.count; ++i)
        for (int a = 0; a < w->dimensions && a < view.components; ++a) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const int step = (int)((state >> 33) % 3) - 1;
            if (step) view.data[a][i] = nextafterf(view.data[a][i], step < 0 ? -INFINITY : INFINITY);
        }
    eddy_world_unmap_field(w, &view);
    return EDDY_OK;
}

/* Brings the host copies of the worlds up to date before they are read directly (world.h). 0, or 1
 * (failed, said on stderr). */
static int sync_worlds(eddy_world *const worlds[], int count, eddy_error *err)
{
    for (int k = 0; k < count; ++k)
        if (eddy_world_sync_host(worlds[k], err)) {
            fprintf(stderr, "FAIL: bringing the host copy up to date: %s\n", err->message);
            return 1;
        }
    return 0;
}

enum { D_POSITION, D_VELOCITY, D_DENSITY, D_ACCELERATION, D_COUNT };
static const char *const diff_names[D_COUNT] = {"position", "velocity", "density", "acceleration"};

typedef struct diffs {
    double d[D_COUNT]; /* relative, as in the header; NaN propagates */
    int has_acceleration;
    int ids_differ;
} diffs;

/* Larger, or NaN (which must win: it has to fail). */
static int worse(double v, double than) { return v > than || v != v; }

/* The differences of b from a; prints them unless quiet. */
static int measure(const eddy_world *a, const eddy_world *b, const char *label, int quiet, diffs *out)
{
    memset(out, 0, sizeof *out);
    const eddy_particles *pa = &a->particles, *pb = &b->particles;
    if (pa->count != pb->count) {
        fprintf(stderr, "FAIL: %s: %zu particles against %zu\n", label, pa->count, pb->count);
        out->ids_differ = 1;
        return 0;
    }
    id_index *ib = index_by_id(pb);
    if (!ib) {
        fprintf(stderr, "FAIL: out of memory\n");
        return 1;
    }
    const int fa = eddy_particles_find_field(pa, "acceleration"), fb = eddy_particles_find_field(pb, "acceleration");
    const int has_a = fa >= 0 && fb >= 0 && eddy_particles_field_components(pa, fa) == 3 &&
                      eddy_particles_field_components(pb, fb) == 3;
    const float *aa[3] = {NULL, NULL, NULL}, *ab[3] = {NULL, NULL, NULL};
    for (int c = 0; c < 3 && has_a; ++c) {
        aa[c] = eddy_particles_field(pa, fa, c);
        ab[c] = eddy_particles_field(pb, fb, c);
    }
    const double h = a->smoothing_radius;
    const double g = sqrt((double)a->gravity[0] * a->gravity[0] + (double)a->gravity[1] * a->gravity[1] +
                          (double)a->gravity[2] * a->gravity[2]);
    double vmax = 0.0, amax = 0.0, dx = 0.0, dv = 0.0, drho = 0.0, da = 0.0;
    size_t worst = 0, worst_v = 0;
    for (size_t i = 0; i < pa->count; ++i) {
        const double v = sqrt((double)pa->vx[i] * pa->vx[i] + (double)pa->vy[i] * pa->vy[i] +
                              (double)pa->vz[i] * pa->vz[i]);
        vmax = v > vmax ? v : vmax;
        const uint32_t j = find_by_id(ib, pb->count, pa->id[i]);
        if (j == UINT32_MAX) {
            out->ids_differ = 1;
            continue;
        }
        const double ex = (double)pa->x[i] - pb->x[j], ey = (double)pa->y[i] - pb->y[j], ez = (double)pa->z[i] - pb->z[j];
        const double e = sqrt(ex * ex + ey * ey + ez * ez);
        if (worse(e, dx)) {
            dx = e;
            worst = i;
        }
        const double ux = (double)pa->vx[i] - pb->vx[j], uy = (double)pa->vy[i] - pb->vy[j],
                     uz = (double)pa->vz[i] - pb->vz[j];
        const double u = sqrt(ux * ux + uy * uy + uz * uz);
        if (worse(u, dv)) {
            dv = u;
            worst_v = i;
        }
        const double rho0 = a->materials[pa->material[i]].rest_density;
        const double r = fabs((double)pa->density[i] - pb->density[j]) / rho0;
        if (worse(r, drho)) drho = r;
        if (has_a) {
            const double s = sqrt((double)aa[0][i] * aa[0][i] + (double)aa[1][i] * aa[1][i] + (double)aa[2][i] * aa[2][i]);
            amax = s > amax ? s : amax;
            const double qx = (double)aa[0][i] - ab[0][j], qy = (double)aa[1][i] - ab[1][j], qz = (double)aa[2][i] - ab[2][j];
            const double q = sqrt(qx * qx + qy * qy + qz * qz);
            if (worse(q, da)) da = q;
        }
    }
    out->d[D_POSITION] = dx / h;
    out->d[D_VELOCITY] = dv / (vmax + sqrt(g * h));
    out->d[D_DENSITY] = drho;
    out->d[D_ACCELERATION] = has_a ? da / (amax + g) : 0.0;
    out->has_acceleration = has_a;
    if (!quiet) {
        printf("%s: %zu particles, h = %g, max speed %.4g\n", label, pa->count, h, vmax);
        printf("  position: max difference %.3e h, worst particle id %" PRIu64 "\n", out->d[D_POSITION],
               pa->id[worst]);
        printf("  velocity: max difference %.3e of max speed + sqrt(g h), worst particle id %" PRIu64,
               out->d[D_VELOCITY], pa->id[worst_v]);
        if (dv > 0.0) {
            const float pw[3] = {pa->x[worst_v], pa->y[worst_v], pa->z[worst_v]};
            const uint32_t jw = find_by_id(ib, pb->count, pa->id[worst_v]);
            printf(" at (%.6g, %.6g, %.6g), %.3g h from the nearest wall, v_A (%.6g, %.6g, %.6g), v_B (%.6g, %.6g, %.6g)",
                   (double)pw[0], (double)pw[1], (double)pw[2],
                   (double)eddy_boundaries_distance(&a->boundaries, pw, NULL, NULL) / h, (double)pa->vx[worst_v],
                   (double)pa->vy[worst_v], (double)pa->vz[worst_v], (double)pb->vx[jw], (double)pb->vy[jw],
                   (double)pb->vz[jw]);
        }
        printf("\n  density:  max difference %.3e rho0\n", out->d[D_DENSITY]);
        if (has_a) printf("  acceleration: max difference %.3e of max |a| + g (max |a| %.4g)\n", out->d[D_ACCELERATION], amax);
    }
    free(ib);
    return 0;
}

/* 0 when every difference of d is within max(FIXED_BOUND, ROUNDOFF_FACTOR x the reference's); without
 * a reference (after compute_fields), within the fixed bounds. */
static int within(const diffs *d, const diffs *ref, const char *label)
{
    if (ref)
        printf("  round-off reference (SOLVER_A, positions nudged by one ulp): position %.3e h, velocity %.3e, "
               "density %.3e rho0, acceleration %.3e\n",
               ref->d[D_POSITION], ref->d[D_VELOCITY], ref->d[D_DENSITY], ref->d[D_ACCELERATION]);
    if (d->ids_differ) {
        fprintf(stderr, "FAIL: %s: the particle ids differ\n", label);
        return 1;
    }
    int bad = 0;
    if (ref) printf("  bounds (max of %g and %g x the reference):", FIXED_BOUND, ROUNDOFF_FACTOR);
    else printf("  bounds (fixed):");
    for (int k = 0; k < D_COUNT; ++k) {
        if (k == D_ACCELERATION && !d->has_acceleration) continue;
        double bound = !ref && k == D_ACCELERATION ? FIELDS_ACCELERATION_BOUND : FIXED_BOUND;
        if (ref && ROUNDOFF_FACTOR * ref->d[k] > bound) bound = ROUNDOFF_FACTOR * ref->d[k];
        printf(" %s %.3e", diff_names[k], bound);
        /* Written so that NaN fails. */
        if (!(d->d[k] <= bound)) {
            fprintf(stderr, "FAIL: %s: %s difference %.3e exceeds %.3e\n", label, diff_names[k], d->d[k], bound);
            bad = 1;
        }
    }
    printf("\n");
    if (bad) fprintf(stderr, "FAIL: %s: the solvers disagree beyond the tolerance\n", label);
    return bad;
}

/* Whole-fluid figures of the three runs (host/observe/diagnostics.c, as eddy run writes them): round-off
 * moves single particles far in a splash, but not the statistics, unless a term is wrong. */
static void print_diagnostics(const eddy_world *a, const eddy_world *b, const eddy_world *r)
{
    eddy_diagnostics da, db, dr;
    eddy_error err = {0};
    if (eddy_diagnostics_compute(a, &da, &err) || eddy_diagnostics_compute(b, &db, &err) ||
        eddy_diagnostics_compute(r, &dr, &err)) {
        printf("  diagnostics: %s\n", err.message);
        return;
    }
    printf("  mean |rho/rho0 - 1|: A %.5f, B %.5f, reference %.5f; kinetic energy: A %.5g, B %.5g, reference %.5g\n",
           da.density_error_mean, db.density_error_mean, dr.density_error_mean, da.kinetic_energy, db.kinetic_energy,
           dr.kinetic_energy);
}

static int step_all(eddy_sim *const sims[], const char *const names[], int count, int s, eddy_error *err)
{
    double dt = INFINITY;
    const double far = sims[0]->world->time + 1e9;
    for (int k = 0; k < 2; ++k) { /* the two solvers compared choose the step; the reference follows */
        double d;
        if (eddy_sim_next_dt(sims[k], far, &d, err)) {
            fprintf(stderr, "FAIL: %s, step %d: %s\n", names[k], s + 1, err->message);
            return 1;
        }
        dt = d < dt ? d : dt;
    }
    for (int k = 0; k < count; ++k)
        if (eddy_sim_step(sims[k], dt, err)) {
            fprintf(stderr, "FAIL: %s, step %d: %s\n", names[k], s + 1, err->message);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: test_sph_agree SCENE STEPS SOLVER_A SOLVER_B [--particles N] [--trace K] [--set-b key=value]...\n");
        return 2;
    }
    const char *scene = argv[1], *solver_a = argv[3], *solver_b = argv[4];
    const int steps = atoi(argv[2]);
    size_t particles = 0;
    int trace = 0;
    const char *sets_b[MAX_SETS];
    size_t nsets_b = 0;
    for (int i = 5; i < argc; ++i) {
        if (strcmp(argv[i], "--particles") == 0 && i + 1 < argc) particles = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc) trace = atoi(argv[++i]);
        else if (strcmp(argv[i], "--set-b") == 0 && i + 1 < argc && nsets_b < MAX_SETS) sets_b[nsets_b++] = argv[++i];
        else {
            fprintf(stderr, "test_sph_agree: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    eddy_sim a, b, r;
    eddy_error err = {0};
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&r, 0, sizeof r);
    if (open_sim(scene, solver_a, particles, NULL, 0, &a, &err)) {
        fprintf(stderr, "FAIL: %s with %s: %s\n", scene, solver_a, err.message);
        return 1;
    }
    int rc = open_sim(scene, solver_b, particles, sets_b, nsets_b, &b, &err);
    if (rc == EDDY_ERR_DEVICE && strstr(err.message, "no CUDA device") && !support_gpu_present()) {
        printf("skipped: %s\n", err.message);
        eddy_sim_close(&a);
        return EXIT_SKIP;
    }
    if (rc) {
        fprintf(stderr, "FAIL: %s with %s: %s%s\n", scene, solver_b, err.message,
                support_gpu_present() ? " (nvidia-smi -L lists a GPU)" : "");
        eddy_sim_close(&a);
        return 1;
    }
    if (open_sim(scene, solver_a, particles, NULL, 0, &r, &err)) {
        fprintf(stderr, "FAIL: %s with %s (round-off reference): %s\n", scene, solver_a, err.message);
        eddy_sim_close(&b);
        eddy_sim_close(&a);
        return 1;
    }
    /* The reference: positions nudged by one ulp, then its fields computed again from them. */
    if (nudge_positions(r.world, &err)) {
        fprintf(stderr, "FAIL: %s with %s (round-off reference): nudging the positions: %s\n", scene, solver_a,
                err.message);
        eddy_sim_close(&r);
        eddy_sim_close(&b);
        eddy_sim_close(&a);
        return 1;
    }
    const eddy_solver_vtable *rv = (const eddy_solver_vtable *)r.solver_entry->component->vtable;
    if (rv->compute_fields && rv->compute_fields(r.solver, r.world, &err)) {
        fprintf(stderr, "FAIL: %s with %s (round-off reference): compute_fields: %s\n", scene, solver_a, err.message);
        eddy_sim_close(&r);
        eddy_sim_close(&b);
        eddy_sim_close(&a);
        return 1;
    }
    char label[512];
    snprintf(label, sizeof label, "%s, %s against %s", scene, solver_a, solver_b);
    diffs d, dr;
    eddy_world *const worlds[] = {a.world, b.world, r.world};
    int status = sync_worlds(worlds, 3, &err);
    if (status == 0) status = measure(a.world, b.world, "after compute_fields", 0, &d);
    if (status == 0) status = within(&d, NULL, "after compute_fields");
    eddy_sim *const sims[] = {&a, &b, &r};
    const char *const names[] = {solver_a, solver_b, "the round-off reference"};
    for (int s = 0; s < steps && status == 0; ++s) {
        status = step_all(sims, names, 3, s, &err);
        if (status == 0 && trace > 0 && (s + 1) % trace == 0 && s + 1 < steps) {
            char at[64];
            snprintf(at, sizeof at, "trace: step %d (t = %.6g s)", s + 1, a.world->time);
            status = sync_worlds(worlds, 3, &err);
            if (status == 0) status = measure(a.world, b.world, at, 0, &d);
            if (status == 0) status = measure(a.world, r.world, "reference", 1, &dr);
            if (status == 0)
                printf("  round-off reference: position %.3e h, velocity %.3e, density %.3e rho0, acceleration %.3e\n",
                       dr.d[D_POSITION], dr.d[D_VELOCITY], dr.d[D_DENSITY], dr.d[D_ACCELERATION]);
            print_diagnostics(a.world, b.world, r.world);
        }
    }
    if (status == 0) {
        char after[600];
        snprintf(after, sizeof after, "%s after %d steps (t = %.6g s)", label, steps, a.world->time);
        status = sync_worlds(worlds, 3, &err);
        if (status == 0) status = measure(a.world, b.world, after, 0, &d);
        if (status == 0) status = measure(a.world, r.world, "reference", 1, &dr);
        if (status == 0) print_diagnostics(a.world, b.world, r.world);
        if (status == 0) status = within(&d, &dr, after);
    }
    eddy_sim_close(&r);
    eddy_sim_close(&b);
    eddy_sim_close(&a);
    return status;
}
