/*
 * The solver x scene matrix: every solver found runs every scene in scenes/ with its default
 * parameters for a fixed number of steps, each scene refilled at about PARTICLES particles (the
 * matrix checks that every pairing opens and steps, not accuracy: the solvers' own suites do that at
 * the scenes' resolutions). A cell passes when the run opens, every step succeeds (the host's
 * explosion guard stops NaN and runaway speeds), no particle is lost (the count is kept and every
 * position is finite and inside the grid's domain on bounded axes), and the state is bit-identical for
 * any thread count, as eddy promises for every solver (docs name none that is not): the cell runs with 2
 * threads, and the same pairing opened again with 1 thread, then again with 3 threads, must reach the
 * same state hash after the first HASH_STEPS steps (the same steps: eddy_sim_next_dt, then
 * eddy_sim_step), shown as "1/2 threads differ" or "1/3 threads differ" otherwise (a sum whose order
 * follows the threads, a race, a per-thread buffer merged in thread order). Two threads split every
 * static schedule in halves; three split it unevenly and bring a thread number 2, so a defect that two
 * threads miss can show here (on a 2-core machine the third thread only costs time: the test waits
 * passively, OMP_WAIT_POLICY=PASSIVE). The matrix is printed as a table; any failing cell
 * fails the test and says why. A GPU solver on a machine without a GPU (the solver's EDDY_ERR_DEVICE
 * "no CUDA device" at open, and nvidia-smi lists no GPU either) shows "no device" and does not count
 * as a failure; any other device error, or that one where there is a GPU, fails. A scene of initial
 * vortices (its top-level "vortices") with a solver that has no vorticity field must be refused with the
 * scene layer's message naming that field: "no vorticity", not a failure.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "gpu_present.h"
#include "sim_support.h"

enum { STEPS = 60, HASH_STEPS = 10, PARTICLES = 1000, MAX_SCENES = 64, MAX_SOLVERS = 16, CELL = 40 };

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Particles outside the domain on a bounded axis, or with a non-finite coordinate (the host copy:
 * synced first, as a GPU solver's particles live on the device). */
static size_t escaped(eddy_world *w)
{
    eddy_error err;
    if (eddy_world_sync_host(w, &err)) fail_msg("%s", err.message);
    const eddy_particles *p = &w->particles;
    const eddy_grid_layout *g = &w->grid.layout;
    size_t bad = 0;
    for (size_t i = 0; i < p->count; ++i) {
        const float x[3] = {p->x[i], p->y[i], p->z[i]};
        for (int a = 0; a < w->dimensions; ++a) {
            if (!isfinite(x[a]) || (!g->periodic[a] && (x[a] < g->lo[a] || x[a] > g->hi[a]))) {
                ++bad;
                break;
            }
        }
    }
    return bad;
}

/* Takes `steps` steps of the sim, each of the time step the host would take (eddy_sim_next_dt); stops at
 * the first error. */
static int take_steps(eddy_sim *sim, int steps, eddy_error *err)
{
    int rc = 0;
    for (int s = 0; s < steps && !rc; ++s) {
        double dt;
        rc = eddy_sim_next_dt(sim, INFINITY, &dt, err);
        if (!rc) rc = eddy_sim_step(sim, dt, err);
    }
    return rc;
}

/* The state hash of scene_path with `solver` after HASH_STEPS steps with `threads` threads, into *hash. */
static int hash_with_threads(const char *scene_path, const char *solver, eddy_registry *reg, int threads,
                             uint64_t *hash)
{
    eddy_scene scene;
    eddy_error err;
    eddy_sim sim;
    eddy_sim_options o = {solver, NULL, PARTICLES, reg, threads};
    int rc = eddy_scene_load(scene_path, NULL, 0, &scene, &err);
    if (!rc) rc = eddy_sim_open(&scene, &o, &sim, &err);
    if (rc) {
        fprintf(stderr, "%s with %s, %d thread(s): %s\n", scene_path, solver, threads, err.message);
        return rc;
    }
    rc = take_steps(&sim, HASH_STEPS, &err);
    if (!rc) rc = eddy_world_hash(sim.world, hash, &err);
    if (rc) fprintf(stderr, "%s with %s, %d thread(s): %s\n", scene_path, solver, threads, err.message);
    eddy_sim_close(&sim);
    return rc;
}

/* Whether `hash` (with `threads` threads) differs from hash1 (one thread): then the cell says so and
 * stderr has both. */
static int differs(char *cell, const char *scene_path, const char *solver, uint64_t hash1, uint64_t hash, int threads)
{
    if (hash == hash1) return 0;
    snprintf(cell, CELL, "1/%d threads differ", threads);
    fprintf(stderr, "%s with %s: state hash after %d steps %016llx with 1 thread, %016llx with %d\n", scene_path,
            solver, HASH_STEPS, (unsigned long long)hash1, (unsigned long long)hash, threads);
    return 1;
}

/* Runs one cell; writes "ok" or the reason into cell. Returns 0 when it passed. */
static int run_cell(const char *scene_path, const char *solver, eddy_registry *reg, char *cell)
{
    eddy_scene scene;
    eddy_error err;
    if (eddy_scene_load(scene_path, NULL, 0, &scene, &err)) {
        snprintf(cell, CELL, "scene error");
        fprintf(stderr, "%s: %s\n", scene_path, err.message);
        return 1;
    }
    /* (read before the open, which takes the scene) */
    const int has_vortices = cJSON_GetObjectItemCaseSensitive(scene.root, "vortices") != NULL;
    eddy_sim sim;
    eddy_sim_options o = {solver, NULL, PARTICLES, reg, 2};
    int orc = eddy_sim_open(&scene, &o, &sim, &err);
    if (orc == EDDY_ERR_DEVICE && strstr(err.message, "no CUDA device") && !support_gpu_present()) {
        /* A GPU solver on a machine without the device: its own tests (label gpu) cover it there. */
        snprintf(cell, CELL, "no device");
        return 0;
    }
    if (orc && has_vortices && strstr(err.message, "has no \"vorticity\" field to put the vortices on")) {
        /* A scene of initial vortices (docs/scenes.md) is for a solver that carries vorticity: the
         * others must refuse it with this message, which is what the cell checks. */
        snprintf(cell, CELL, "no vorticity");
        return 0;
    }
    if (orc) {
        snprintf(cell, CELL, "open failed");
        fprintf(stderr, "%s with %s: %s\n", scene_path, solver, err.message);
        return 1;
    }
    const size_t n0 = sim.world->particles.count;
    uint64_t hash2 = 0;
    int rc = take_steps(&sim, HASH_STEPS, &err);
    if (!rc) rc = eddy_world_hash(sim.world, &hash2, &err);
    if (!rc) rc = take_steps(&sim, STEPS - HASH_STEPS, &err);
    const size_t n1 = sim.world->particles.count;
    const size_t out = escaped(sim.world);
    if (rc) {
        snprintf(cell, CELL, rc == EDDY_ERR_UNSTABLE ? "exploded@%llu" : "error@%llu",
                 (unsigned long long)sim.world->step + 1);
        fprintf(stderr, "%s with %s: %s\n", scene_path, solver, err.message);
    } else if (n1 != n0 || out) {
        snprintf(cell, CELL, "lost %zu", (n0 - n1) + out);
        rc = 1;
    }
    /* the time is informative only; the test never judges speed */
    double total = 0;
    for (int k = 0; k < EDDY_PHASE_COUNT; ++k) total += sim.world->phase_ms[k];
    eddy_sim_close(&sim);
    if (rc) return 1;
    /* The 1-thread run is the reference; 3 threads after 2 (see the top comment). */
    uint64_t hash1 = 0;
    if (hash_with_threads(scene_path, solver, reg, 1, &hash1)) {
        snprintf(cell, CELL, "1 thread failed");
        return 1;
    }
    if (differs(cell, scene_path, solver, hash1, hash2, 2)) return 1;
    uint64_t hash3 = 0;
    if (hash_with_threads(scene_path, solver, reg, 3, &hash3)) {
        snprintf(cell, CELL, "3 threads failed");
        return 1;
    }
    if (differs(cell, scene_path, solver, hash1, hash3, 3)) return 1;
    snprintf(cell, CELL, "ok (%.0f ms/step)", total / STEPS);
    return 0;
}

static void every_solver_runs_every_scene(void **state)
{
    (void)state;
    eddy_registry *reg;
    eddy_error err;
    assert_int_equal(eddy_services_registry(1, &reg, &err), EDDY_OK);
    const char *solvers[MAX_SOLVERS];
    size_t ns = 0;
    for (size_t i = 0; i < eddy_registry_count(reg) && ns < MAX_SOLVERS; ++i) {
        const eddy_component *c = eddy_registry_at(reg, i)->component;
        if (strcmp(c->interface_id, EDDY_INTERFACE_SOLVER) == 0) solvers[ns++] = c->id;
    }
    assert_true(ns >= 3); /* sph_mueller, tait, pbf at least */

    char dir[4200];
    snprintf(dir, sizeof dir, "%s/scenes", support_source_dir());
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *scenes[MAX_SCENES];
    size_t nsc = 0;
    for (struct dirent *e; (e = readdir(d)) && nsc < MAX_SCENES;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) scenes[nsc++] = strdup(e->d_name);
    }
    closedir(d);
    assert_true(nsc >= 4);
    qsort(scenes, nsc, sizeof *scenes, by_name);

    int failures = 0;
    printf("\n%d steps of every solver on every scene (default parameters, about %d particles, 2 threads; the "
           "state hash after %d steps also with 1 and 3 threads):\n\n| %-26s |",
           STEPS, PARTICLES, HASH_STEPS, "scene");
    for (size_t j = 0; j < ns; ++j) printf(" %-20s |", solvers[j]);
    printf("\n|%.*s|", 28, "----------------------------");
    for (size_t j = 0; j < ns; ++j) printf("%.*s|", 22, "----------------------");
    printf("\n");
    for (size_t i = 0; i < nsc; ++i) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, scenes[i]);
        printf("| %-26s |", scenes[i]);
        fflush(stdout);
        for (size_t j = 0; j < ns; ++j) {
            char cell[CELL];
            failures += run_cell(path, solvers[j], reg, cell);
            printf(" %-20s |", cell);
            fflush(stdout);
        }
        printf("\n");
        free(scenes[i]);
    }
    printf("\n%d failing cell(s)\n", failures);
    eddy_registry_destroy(reg);
    assert_int_equal(failures, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(every_solver_runs_every_scene)};
    return support_run_tests("matrix", argc, argv, tests, sizeof tests / sizeof tests[0]);
}
