/*
 * Checkpoints (host/session/checkpoint.c) with a stand-in solver, independent of the physics plugins:
 *  - 64-bit ids (one above 2^32, one next to UINT64_MAX) and every field, a registered one included,
 *    round-trip bit for bit, and the resumed session steps on to the same state hash;
 *  - the two resume orders of plugin.h, and no compute_fields() in either (it would overwrite the
 *    restored state): without EDDY_COMPONENT_STATE_COMPLETE (or from a format-2 file) create() on the
 *    scene's initial world, then the particles restored (every field as saved), then load(); with it,
 *    create() on the checkpoint's particles and clock with setup->resuming set, then load();
 *  - the per-material parameters come from the scene embedded in the checkpoint;
 *  - a format-1 checkpoint (32-bit ids), written here byte by byte, is read and its ids widened;
 *  - another format version is refused naming the versions read.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "checkpoint.h"
#include "scene.h"
#include "sim.h"

/* ------------------------------------------------------------------------------------------------ */
/* The stand-in solver: x += v dt, v += k dt with a counter k kept as solver state (save/load), a
 * registered field "lambda" carried along, and density derived from the position (compute_fields),
 * so a resume that skipped load() or restored fields in the wrong order changes the state. */

#define MAX_EVENTS 16
static char events[MAX_EVENTS][48];
static int event_count;

static void record(const char *what, const eddy_world *w)
{
    if (event_count >= MAX_EVENTS) return;
    /* Whether the world holds the particles with the wide ids the test gives them (above 2^32), i.e.
     * on resume whether they are restored yet. */
    int wide = w && w->particles.count > 0 && w->particles.id[0] >= (UINT64_C(1) << 32);
    snprintf(events[event_count++], sizeof events[0], "%s%s", what, wide ? "(wide ids)" : "");
}

/* What the last create() saw: setup->resuming, the clock and the particle count. */
static int created_resuming;
static double created_time;
static size_t created_count;

struct eddy_solver {
    eddy_world *world;
    int lambda;
    eddy_real k;
    double viscosity;
};

static void derive_density(eddy_world *w)
{
    eddy_particles *p = &w->particles;
    for (size_t i = 0; i < p->count; ++i) p->density[i] = 1000.0f + p->x[i] * 3.0f + p->y[i];
}

static int ck_create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    s->world = setup->world;
    s->viscosity = eddy_param_get(&setup->world->materials[0].params, "viscosity", NAN);
    int rc = eddy_particles_add_field(&setup->world->particles, "lambda", 1, &s->lambda, err);
    if (rc) {
        free(s);
        return rc;
    }
    record(EDDY_HAS_MEMBER(setup, eddy_solver_setup, resuming) && setup->resuming ? "create(resuming)" : "create",
           setup->world);
    created_resuming = setup->resuming;
    created_time = setup->world->time;
    created_count = setup->world->particles.count;
    *out = s;
    return 0;
}

static int ck_step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    (void)err;
    eddy_particles *p = &w->particles;
    eddy_real *lambda = eddy_particles_field(p, s->lambda, 0);
    s->k += 0.25f;
    for (size_t i = 0; i < p->count; ++i) {
        p->vx[i] += s->k * (eddy_real)dt;
        p->x[i] += p->vx[i] * (eddy_real)dt;
        lambda[i] = lambda[i] * 0.5f + p->x[i];
    }
    derive_density(w);
    return 0;
}

static void ck_destroy(eddy_solver *s) { free(s); }

static int ck_save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    record("save", s->world);
    return eddy_state_save_floats("ckpt/1", &s->k, 1, data, size, err);
}

static int ck_load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    record("load", s->world);
    return eddy_state_load_floats("ckpt/1", &s->k, 1, data, size, err);
}

static int ck_compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    (void)s, (void)err;
    record("compute_fields", w);
    derive_density(w);
    return 0;
}

static const eddy_solver_vtable CK_VTABLE = {.size = sizeof(eddy_solver_vtable),
                                             .create = ck_create,
                                             .step = ck_step,
                                             .destroy = ck_destroy,
                                             .save = ck_save,
                                             .load = ck_load,
                                             .compute_fields = ck_compute_fields};
static const eddy_param_desc CK_MATERIAL[] = {EDDY_MATERIAL_VISCOSITY_DESC};
static const eddy_component CK_SOLVER = {.size = sizeof(eddy_component),
                                         .interface_id = EDDY_INTERFACE_SOLVER,
                                         .id = "ckpt",
                                         .version = "1.0.0",
                                         .description = "A stand-in solver for checkpoint tests.",
                                         .vtable = &CK_VTABLE,
                                         .material_params = CK_MATERIAL,
                                         .material_param_count = 1};
/* The same solver declaring that its save() holds all create() derives (it derives nothing). */
static const eddy_component CK_SOLVER_COMPLETE = {.size = sizeof(eddy_component),
                                                  .interface_id = EDDY_INTERFACE_SOLVER,
                                                  .id = "ckpt_complete",
                                                  .version = "1.0.0",
                                                  .description = "The stand-in solver, STATE_COMPLETE.",
                                                  .vtable = &CK_VTABLE,
                                                  .flags = EDDY_COMPONENT_STATE_COMPLETE,
                                                  .material_params = CK_MATERIAL,
                                                  .material_param_count = 1};

/* ------------------------------------------------------------------------------------------------ */

static const char *const SCENE =
    "{\"solver\": \"ckpt\", \"dimensions\": 2,\n"
    " \"time\": {\"dt\": 0.001, \"end\": 1},\n"
    " \"world\": {\"smoothing_radius\": 0.1, \"gravity\": [0, 0]},\n"
    " \"container\": {\"min\": [0, 0], \"max\": [2, 1]},\n"
    " \"domain\": {\"out_of_domain\": \"remove\"},\n"
    " \"materials\": [{\"name\": \"w\", \"particle_spacing\": 0.05, \"viscosity\": 0.3}],\n"
    " \"fluids\": [{\"material\": \"w\", \"box\": {\"min\": [0, 0], \"max\": [0.5, 0.25]}, \"velocity\": [0.1, 0]}],\n"
    " \"colliders\": [{\"type\": \"sphere\", \"center\": [1.5, 0.5], \"radius\": 0.1, \"velocity\": [-1, 0],\n"
    "                \"moving_until\": 10}]}\n";

static eddy_registry *registry;
static char dir[64];
static const char *solver_id = "ckpt"; /* the component the sessions of a test use */

static void open_sim(const char *text, eddy_sim *sim)
{
    eddy_scene scene;
    eddy_error e;
    eddy_error_clear(&e);
    if (eddy_scene_parse(text, "ck.json", NULL, 0, &scene, &e)) fail_msg("%s", e.message);
    eddy_sim_options o = {0};
    o.registry = registry;
    o.solver = solver_id;
    if (eddy_sim_open(&scene, &o, sim, &e)) fail_msg("%s", e.message);
}

static uint64_t hash_of(eddy_sim *sim)
{
    uint64_t h = 0;
    eddy_error e;
    if (eddy_world_hash(sim->world, &h, &e)) fail_msg("%s", e.message);
    return h;
}

static void step(eddy_sim *sim, int n)
{
    eddy_error e;
    for (int i = 0; i < n; ++i)
        if (eddy_sim_step(sim, 0.001, &e)) fail_msg("%s", e.message);
}

/* The same particles, bit for bit: count, ids, materials and every field, in storage order. */
static void assert_same_particles(const eddy_world *a, const eddy_world *b)
{
    const eddy_particles *p = &a->particles, *q = &b->particles;
    assert_int_equal(p->count, q->count);
    assert_memory_equal(p->id, q->id, p->count * sizeof *p->id);
    assert_memory_equal(p->material, q->material, p->count * sizeof *p->material);
    assert_int_equal(eddy_particles_field_count(p), eddy_particles_field_count(q));
    for (int f = 0; f < eddy_particles_field_count(p); ++f) {
        assert_string_equal(eddy_particles_field_name(p, f), eddy_particles_field_name(q, f));
        for (int c = 0; c < eddy_particles_field_components(p, f); ++c)
            assert_memory_equal(eddy_particles_field(p, f, c), eddy_particles_field(q, f, c),
                                p->count * sizeof(eddy_real));
    }
}

static void write_checkpoint(eddy_sim *sim)
{
    cJSON *settings = cJSON_CreateObject();
    assert_non_null(settings);
    cJSON_AddStringToObject(settings, "solver", "ckpt");
    eddy_error e;
    int rc = eddy_checkpoint_write(dir, sim, settings, &e);
    cJSON_Delete(settings);
    if (rc) fail_msg("%s", e.message);
}

/* Opens the checkpoint in dir as `eddy resume` does: its embedded scene, then the restore. */
static int resume(eddy_sim *sim, eddy_error *e)
{
    eddy_checkpoint *ck = NULL;
    int rc = eddy_checkpoint_read(dir, &ck, e);
    if (rc) return rc;
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(eddy_checkpoint_settings(ck), "scene"));
    assert_non_null(text);
    eddy_scene scene;
    if (eddy_scene_parse(text, "ck.json", NULL, 0, &scene, e)) fail_msg("%s", e->message);
    cJSON_free(text);
    eddy_sim_options o = {0};
    o.registry = registry;
    o.solver = solver_id;
    event_count = 0;
    created_resuming = -1;
    rc = eddy_checkpoint_open_sim(ck, &scene, &o, sim, e);
    eddy_checkpoint_free(ck);
    return rc;
}

/* Rewrites the format version of the checkpoint in dir (same layout: 2 and 3), checksum recomputed. */
static void set_format(uint32_t format)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, EDDY_CHECKPOINT_FILE);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    const long n = ftell(f);
    assert_true(n > 32);
    unsigned char *b = malloc((size_t)n);
    assert_non_null(b);
    rewind(f);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    memcpy(b + 8, &format, sizeof format);
    const uint64_t sum = eddy_checkpoint_checksum(b, (size_t)n - 8);
    memcpy(b + n - 8, &sum, sizeof sum);
    rewind(f);
    assert_int_equal(fwrite(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    free(b);
}

static void wide_ids_round_trip(void **state)
{
    (void)state;
    eddy_sim a, b;
    eddy_error e;
    open_sim(SCENE, &a);
    step(&a, 5);
    /* Ids a single process never issues this early: above 2^32, and next to the top of the range. */
    eddy_particles *p = &a.world->particles;
    assert_true(p->count > 10);
    uint64_t *ids = malloc(p->count * sizeof *ids);
    assert_non_null(ids);
    for (size_t i = 0; i < p->count; ++i) ids[i] = (UINT64_C(1) << 32) + 7 * (uint64_t)i + 3;
    ids[p->count / 2] = UINT64_MAX - 1;
    if (eddy_particles_set_ids(p, ids, &e)) fail_msg("%s", e.message);
    free(ids);
    /* The solver's own field, set through a write mapping. */
    eddy_field_view v = {.size = sizeof v};
    int lambda = eddy_particles_find_field(p, "lambda");
    assert_true(lambda >= 0);
    assert_int_equal(eddy_world_map_field(a.world, lambda, EDDY_MAP_WRITE, &v, &e), 0);
    for (size_t i = 0; i < v.count; ++i) v.data[0][i] = (eddy_real)i * 0.125f - 3.0f;
    eddy_world_unmap_field(a.world, &v);
    const uint64_t before = hash_of(&a);
    event_count = 0;
    write_checkpoint(&a);
    assert_int_equal(event_count, 1);
    assert_string_equal(events[0], "save(wide ids)");

    int rc = resume(&b, &e);
    if (rc) fail_msg("%s", e.message);
    /* plugin.h's 2.0 order (no STATE_COMPLETE): create() on the scene's world, the particles, then
     * load() with them in place, and nothing after it (no compute_fields()). */
    assert_int_equal(event_count, 2);
    assert_string_equal(events[0], "create");
    assert_string_equal(events[1], "load(wide ids)");
    assert_int_equal(created_resuming, 0);
    assert_true(created_time == 0.0);
    assert_int_equal(b.world->step, a.world->step);
    assert_memory_equal(&b.world->time, &a.world->time, sizeof(double));
    assert_same_particles(a.world, b.world);
    assert_int_equal(b.world->particles.id[b.world->particles.count / 2], UINT64_MAX - 1);
    assert_true(hash_of(&b) == before);
    /* The moving collider's position and velocity. */
    const eddy_boundaries *ba = &a.world->boundaries, *bb = &b.world->boundaries;
    assert_int_equal(ba->collider_count, bb->collider_count);
    const eddy_collider *ca = &ba->colliders[ba->collider_count - 1], *cb = &bb->colliders[bb->collider_count - 1];
    assert_memory_equal(ca->center, cb->center, sizeof ca->center);
    assert_memory_equal(ca->velocity, cb->velocity, sizeof ca->velocity);
    /* Material parameters from the embedded scene. */
    assert_true(b.solver->viscosity == 0.3);
    assert_true(eddy_param_get(&b.world->materials[0].params, "viscosity", NAN) == 0.3);
    /* On from here, both sessions reach the same state (the solver state k came back too). */
    step(&a, 7);
    step(&b, 7);
    assert_true(hash_of(&a) == hash_of(&b));
    assert_same_particles(a.world, b.world);
    eddy_sim_close(&a);
    eddy_sim_close(&b);
}

/* ------------------------------------------------------------------------------------------------ */
/* Format 1, written here from the layout ABI 1.x used: 32-bit ids                                    */

typedef struct bytes {
    unsigned char *p;
    size_t n, cap;
} bytes;

static void put(bytes *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void put_u32(bytes *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(bytes *b, uint64_t v) { put(b, &v, 8); }

static void write_format(const eddy_sim *sim, uint32_t format, const char *path)
{
    const eddy_world *w = sim->world;
    const eddy_particles *p = &w->particles;
    bytes b = {0};
    put(&b, "EDDYCKPT", 8);
    put_u32(&b, format);
    put_u32(&b, 0x01020304u);
    put_u64(&b, 0);
    const size_t begin = b.n;
    cJSON *s = cJSON_CreateObject();
    cJSON_AddItemToObject(s, "scene", cJSON_Duplicate(sim->scene.root, 1));
    char *text = cJSON_PrintUnformatted(s);
    put_u32(&b, (uint32_t)strlen(text));
    put(&b, text, strlen(text));
    cJSON_free(text);
    cJSON_Delete(s);
    put(&b, &w->time, 8);
    put_u64(&b, w->step);
    put_u64(&b, w->boundaries.collider_count);
    for (size_t i = 0; i < w->boundaries.collider_count; ++i) {
        const eddy_collider *c = &w->boundaries.colliders[i];
        put_u32(&b, (uint32_t)c->shape);
        put(&b, c->point, sizeof c->point);
        put(&b, c->normal, sizeof c->normal);
        put(&b, c->min, sizeof c->min);
        put(&b, c->max, sizeof c->max);
        put(&b, c->center, sizeof c->center);
        put(&b, &c->radius, sizeof c->radius);
        put(&b, c->velocity, sizeof c->velocity);
    }
    put_u64(&b, p->count);
    const int nf = eddy_particles_field_count(p);
    put_u32(&b, (uint32_t)nf);
    for (int f = 0; f < nf; ++f) {
        const char *name = eddy_particles_field_name(p, f);
        put_u32(&b, (uint32_t)strlen(name));
        put(&b, name, strlen(name));
        put_u32(&b, (uint32_t)eddy_particles_field_components(p, f));
        for (int c = 0; c < eddy_particles_field_components(p, f); ++c)
            put(&b, eddy_particles_field(p, f, c), p->count * sizeof(float));
    }
    for (size_t i = 0; i < p->count; ++i) {
        assert_true(p->id[i] < (UINT64_C(1) << 32));
        put_u32(&b, (uint32_t)p->id[i]);
    }
    put(&b, p->material, p->count * sizeof(uint32_t));
    void *blob = NULL;
    size_t blob_size = 0;
    eddy_error e;
    assert_int_equal(ck_save(sim->solver, &blob, &blob_size, &e), 0);
    put_u64(&b, blob_size);
    put(&b, blob, blob_size);
    free(blob);
    const uint64_t payload = b.n - begin;
    memcpy(b.p + begin - 8, &payload, 8);
    put_u64(&b, eddy_checkpoint_checksum(b.p, b.n));
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b.p, 1, b.n, f), b.n);
    fclose(f);
    free(b.p);
}

static void reads_format_1(void **state)
{
    (void)state;
    eddy_sim a, b;
    eddy_error e;
    open_sim(SCENE, &a);
    step(&a, 4);
    /* A permutation of the ids, as a grid sort leaves them, all below 2^32. */
    eddy_particles *p = &a.world->particles;
    uint64_t *ids = malloc(p->count * sizeof *ids);
    assert_non_null(ids);
    for (size_t i = 0; i < p->count; ++i) ids[i] = (uint64_t)(p->count - i) * 1000u + UINT32_MAX / 2;
    if (eddy_particles_set_ids(p, ids, &e)) fail_msg("%s", e.message);
    free(ids);
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, EDDY_CHECKPOINT_FILE);
    write_format(&a, EDDY_CHECKPOINT_FORMAT_V1, path);
    int rc = resume(&b, &e);
    if (rc) fail_msg("%s", e.message);
    assert_same_particles(a.world, b.world);
    assert_true(hash_of(&a) == hash_of(&b));
    step(&a, 3);
    step(&b, 3);
    assert_true(hash_of(&a) == hash_of(&b));
    eddy_sim_close(&b);

    /* Another version: refused, naming the version found and the ones read. */
    write_format(&a, 99, path);
    eddy_checkpoint *ck = NULL;
    assert_int_equal(eddy_checkpoint_read(dir, &ck, &e), EDDY_ERR_PARSE);
    assert_null(ck);
    char want[256];
    snprintf(want, sizeof want, "checkpoint '%s' has format version 99; this eddy reads versions 1 to 3", path);
    assert_string_equal(e.message, want);
    eddy_sim_close(&a);
}

/* ------------------------------------------------------------------------------------------------ */
/* STATE_COMPLETE: create() on the checkpoint's world                                               */

/* Runs `ckpt_complete` 6 steps with wide ids and a particle removed (the count differs from the
 * scene's), writes a checkpoint, resumes it: create() must see the stored clock and particles with
 * setup->resuming set, load() follow, and the session go on exactly. Then the same file marked format 2
 * takes the 2.0 order: create() on the scene's initial world. */
static void complete_solver_is_created_on_the_checkpoint(void **state)
{
    (void)state;
    solver_id = "ckpt_complete";
    eddy_sim a, b, c;
    eddy_error e;
    open_sim(SCENE, &a);
    const size_t scene_count = a.world->particles.count;
    step(&a, 6);
    /* One particle fewer than the scene makes, as after an out_of_domain "remove". */
    eddy_particles *p = &a.world->particles;
    uint32_t *order = malloc(p->count * sizeof *order);
    assert_non_null(order);
    for (size_t i = 0; i + 1 < p->count; ++i) order[i] = (uint32_t)(i + 1);
    if (eddy_particles_gather(p, order, p->count - 1, &e)) fail_msg("%s", e.message);
    free(order);
    uint64_t *ids = malloc(p->count * sizeof *ids);
    assert_non_null(ids);
    for (size_t i = 0; i < p->count; ++i) ids[i] = (UINT64_C(1) << 33) + (uint64_t)i;
    if (eddy_particles_set_ids(p, ids, &e)) fail_msg("%s", e.message);
    free(ids);
    write_checkpoint(&a);

    if (resume(&b, &e)) fail_msg("%s", e.message);
    assert_int_equal(event_count, 2);
    assert_string_equal(events[0], "create(resuming)(wide ids)");
    assert_string_equal(events[1], "load(wide ids)");
    assert_int_equal(created_resuming, 1);
    assert_memory_equal(&created_time, &a.world->time, sizeof(double));
    assert_int_equal(created_count, scene_count - 1);
    assert_int_equal(b.world->step, a.world->step);
    assert_same_particles(a.world, b.world);
    assert_true(hash_of(&a) == hash_of(&b));
    step(&a, 5);
    step(&b, 5);
    assert_true(hash_of(&a) == hash_of(&b));
    eddy_sim_close(&b);

    /* A format-2 file promises nothing about what create() derived: the 2.0 order. */
    write_checkpoint(&a);
    set_format(2);
    if (resume(&c, &e)) fail_msg("%s", e.message);
    assert_int_equal(event_count, 2);
    assert_string_equal(events[0], "create");
    assert_string_equal(events[1], "load(wide ids)");
    assert_int_equal(created_resuming, 0);
    assert_int_equal(created_count, scene_count);
    assert_same_particles(a.world, c.world);
    step(&a, 3);
    step(&c, 3);
    assert_true(hash_of(&a) == hash_of(&c));
    eddy_sim_close(&c);
    eddy_sim_close(&a);
    solver_id = "ckpt";
}

/* ------------------------------------------------------------------------------------------------ */

static int setup(void **state)
{
    (void)state;
    eddy_error e;
    snprintf(dir, sizeof dir, "/tmp/eddy_test_checkpoint_XXXXXX");
    if (!mkdtemp(dir)) return -1;
    if (eddy_registry_create(NULL, &registry, &e) ||
        eddy_registry_add_builtin(registry, &CK_SOLVER, "test_checkpoint", &e) ||
        eddy_registry_add_builtin(registry, &CK_SOLVER_COMPLETE, "test_checkpoint", &e)) {
        print_error("%s\n", e.message);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, EDDY_CHECKPOINT_FILE);
    remove(path);
    rmdir(dir);
    eddy_registry_destroy(registry);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wide_ids_round_trip),
        cmocka_unit_test(reads_format_1),
        cmocka_unit_test(complete_solver_is_created_on_the_checkpoint),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
