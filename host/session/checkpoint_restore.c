/*
 * host/session/checkpoint_restore.c — a session opened from a checkpoint (checkpoint.h), in one of the
 * two orders of plugin.h:
 *   - a solver with EDDY_COMPONENT_STATE_COMPLETE, from a format-3 file: the world is built from the
 *     scene's materials, colliders and domain with the checkpoint's clock, colliders and built-in
 *     particle fields in place of the fluid blocks (fill_world); create() runs on it (resuming = 1);
 *     then the solver's own fields and load() (finish_filled). Nothing of the initial state is built.
 *   - otherwise (the 2.0 order): the scene's initial world, create() on it, then the clock, the
 *     colliders, every particle field and load() over it (finish_over_scene).
 * Both read the particle section through one index (index_particles), so the checks on what a file
 * holds are the same whichever order runs.
 */
#include "checkpoint_internal.h"
#include "decomp.h"
#include "services.h"

#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mismatch(const eddy_checkpoint *ck, eddy_error *err, const char *what)
{
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "checkpoint '%s' does not match the world its scene builds: %s", ck->path, what);
}

/* A value that no run writes (a NaN clock, a zero normal, a negative mass): the file was produced or
 * edited by something else, and resuming from it would step with garbage (a negative dt, a NaN
 * everywhere) or exit 0 with a wrong answer. */
static int invalid(const eddy_checkpoint *ck, eddy_error *err, const char *fmt, ...) EDDY_PRINTF(3, 4);
static int invalid(const eddy_checkpoint *ck, eddy_error *err, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint '%s' is invalid: %s", ck->path, what);
}

static const char *const SHAPE_NAMES[] = {"plane", "box", "sphere"};
static const char AXES[3] = {'x', 'y', 'z'};

/* What eddy_world_add_collider accepts from a scene (finite members, a non-zero normal, min < max, a
 * radius > 0), and a unit normal, as it stores one. */
static int check_collider(const eddy_checkpoint *ck, size_t i, const eddy_collider *t, int dimensions,
                          eddy_error *err)
{
    const char *shape = (unsigned)t->shape < 3 ? SHAPE_NAMES[t->shape] : "?";
    const struct {
        const char *name;
        const eddy_real *v;
        int n;
    } members[] = {{"point", t->point, 3}, {"normal", t->normal, 3}, {"min", t->min, 3},  {"max", t->max, 3},
                   {"center", t->center, 3}, {"radius", &t->radius, 1}, {"velocity", t->velocity, 3}};
    for (size_t m = 0; m < sizeof members / sizeof members[0]; ++m)
        for (int a = 0; a < members[m].n; ++a)
            if (!isfinite(members[m].v[a]))
                return members[m].n == 1
                           ? invalid(ck, err, "collider %zu (%s): %s is %g, expected a finite number", i, shape,
                                     members[m].name, (double)members[m].v[a])
                           : invalid(ck, err, "collider %zu (%s): %s.%c is %g, expected a finite number", i, shape,
                                     members[m].name, AXES[a], (double)members[m].v[a]);
    if (t->shape == EDDY_SHAPE_PLANE) {
        double l2 = 0;
        for (int a = 0; a < dimensions; ++a) l2 += (double)t->normal[a] * t->normal[a];
        /* Stored normalized in single precision: a few ulps off 1 at most. */
        if (!(fabs(sqrt(l2) - 1.0) <= 1e-5))
            return invalid(ck, err, "collider %zu (plane): normal (%g, %g, %g) has length %g, expected a unit vector",
                           i, (double)t->normal[0], (double)t->normal[1], (double)t->normal[2], sqrt(l2));
    } else if (t->shape == EDDY_SHAPE_BOX) {
        for (int a = 0; a < dimensions; ++a)
            if (!(t->min[a] < t->max[a]))
                return invalid(ck, err, "collider %zu (box): max.%c = %g <= min.%c = %g, expected max > min", i,
                               AXES[a], (double)t->max[a], AXES[a], (double)t->min[a]);
    } else if (t->shape == EDDY_SHAPE_SPHERE) {
        if (!(t->radius > 0))
            return invalid(ck, err, "collider %zu (sphere): radius is %g, expected a number > 0", i, (double)t->radius);
    }
    return EDDY_OK;
}

/* The colliders' prescribed-motion state, over those the scene made (same count and shapes). */
static int restore_colliders(cursor *c, eddy_boundaries *bd, eddy_error *err)
{
    uint64_t n = 0;
    int rc = checkpoint_take_u64(c, &n, "the collider count", err);
    if (rc) return rc;
    if (n != bd->collider_count) {
        /* (the count holds the container's walls, which are colliders to the core but not the scene's
         * `colliders`: counted apart, so that a scene of one collider is not said to have five) */
        size_t walls = 0;
        for (size_t i = 0; i < bd->collider_count; ++i) walls += bd->colliders[i].is_container_wall != 0;
        char what[160];
        if (n >= walls)
            snprintf(what, sizeof what, "%llu collider%s besides the container's %zu walls, the scene has %zu",
                     (unsigned long long)(n - walls), n - walls == 1 ? "" : "s", walls, bd->collider_count - walls);
        else
            snprintf(what, sizeof what, "%llu colliders and walls, the scene has %zu colliders and %zu walls",
                     (unsigned long long)n, bd->collider_count - walls, walls);
        return mismatch(c->ck, err, what);
    }
    for (size_t i = 0; i < n; ++i) {
        eddy_collider *k = &bd->colliders[i];
        uint32_t shape = 0;
        eddy_collider t;
        if ((rc = checkpoint_take_u32(c, &shape, "a collider", err)) ||
            (rc = checkpoint_take(c, t.point, sizeof t.point, "a collider", err)) ||
            (rc = checkpoint_take(c, t.normal, sizeof t.normal, "a collider", err)) ||
            (rc = checkpoint_take(c, t.min, sizeof t.min, "a collider", err)) ||
            (rc = checkpoint_take(c, t.max, sizeof t.max, "a collider", err)) ||
            (rc = checkpoint_take(c, t.center, sizeof t.center, "a collider", err)) ||
            (rc = checkpoint_take(c, &t.radius, sizeof t.radius, "a collider", err)) ||
            (rc = checkpoint_take(c, t.velocity, sizeof t.velocity, "a collider", err)))
            return rc;
        if (shape != (uint32_t)k->shape) {
            char what[64];
            snprintf(what, sizeof what, "collider %zu has another shape", i);
            return mismatch(c->ck, err, what);
        }
        t.shape = k->shape;
        if ((rc = check_collider(c->ck, i, &t, bd->dimensions, err))) return rc;
        memcpy(k->point, t.point, sizeof t.point);
        memcpy(k->normal, t.normal, sizeof t.normal);
        memcpy(k->min, t.min, sizeof t.min);
        memcpy(k->max, t.max, sizeof t.max);
        memcpy(k->center, t.center, sizeof t.center);
        k->radius = t.radius;
        memcpy(k->velocity, t.velocity, sizeof t.velocity);
    }
    return EDDY_OK;
}


/* Where each part of the binary state lies, found once, bounds-checked, before anything is restored. */
typedef struct saved_field {
    char name[EDDY_FIELD_NAME_MAX];
    uint32_t components;
    size_t at;            /* its first value */
} saved_field;

typedef struct saved_state {
    double time;
    uint64_t step;
    size_t colliders_at;  /* the collider count */
    uint64_t count;       /* particles */
    uint32_t field_count;
    saved_field fields[EDDY_MAX_FIELDS];
    size_t ids_at, materials_at;
    size_t blob_at;
    uint64_t blob_size;
} saved_state;

static size_t collider_record_size(void)
{
    const eddy_collider t = {0};
    return sizeof(uint32_t) + sizeof t.point + sizeof t.normal + sizeof t.min + sizeof t.max + sizeof t.center +
           sizeof t.radius + sizeof t.velocity;
}

static int index_state(const eddy_checkpoint *ck, saved_state *st, eddy_error *err)
{
    memset(st, 0, sizeof *st);
    cursor c = {ck, ck->state_begin, ck->state_end};
    uint64_t colliders = 0;
    uint32_t real_size = 4; /* format 1 was written with float fields */
    int rc;
    if ((rc = checkpoint_take(&c, &st->time, sizeof st->time, "the clock", err)) ||
        (rc = checkpoint_take_u64(&c, &st->step, "the clock", err)))
        return rc;
    st->colliders_at = c.at;
    if ((rc = checkpoint_take_u64(&c, &colliders, "the collider count", err))) return rc;
    if (colliders > (c.end - c.at) / collider_record_size()) return checkpoint_corrupt(&c, "a collider", err);
    c.at += (size_t)colliders * collider_record_size();
    if ((rc = checkpoint_take_u64(&c, &st->count, "the particle count", err)) ||
        (ck->format >= 2 && (rc = checkpoint_take_u32(&c, &real_size, "the size of a real", err))) ||
        (rc = checkpoint_take_u32(&c, &st->field_count, "the field count", err)))
        return rc;
    if (real_size != sizeof(eddy_real)) {
        char what[160];
        snprintf(what, sizeof what, "its particle fields hold %u-byte reals, this eddy %zu-byte ones",
                 (unsigned)real_size, sizeof(eddy_real));
        return mismatch(ck, err, what);
    }
    if (st->field_count > EDDY_MAX_FIELDS) return checkpoint_corrupt(&c, "the field list", err);
    for (uint32_t k = 0; k < st->field_count; ++k) {
        saved_field *f = &st->fields[k];
        uint32_t len = 0;
        if ((rc = checkpoint_take_u32(&c, &len, "a field name", err))) return rc;
        if (len >= sizeof f->name) return checkpoint_corrupt(&c, "a field name", err);
        if ((rc = checkpoint_take(&c, f->name, len, "a field name", err)) ||
            (rc = checkpoint_take_u32(&c, &f->components, "a field", err)))
            return rc;
        f->name[len] = '\0';
        f->at = c.at;
        /* Skipped in steps of one component, so no product can overflow. */
        for (uint32_t j = 0; j < f->components; ++j) {
            if (st->count > (c.end - c.at) / sizeof(eddy_real)) return checkpoint_corrupt(&c, "a particle field", err);
            c.at += (size_t)st->count * sizeof(eddy_real);
        }
    }
    const size_t id_size = ck->format >= 2 ? sizeof(uint64_t) : sizeof(uint32_t);
    st->ids_at = c.at;
    if (st->count > (c.end - c.at) / id_size) return checkpoint_corrupt(&c, "the particle ids", err);
    c.at += (size_t)st->count * id_size;
    st->materials_at = c.at;
    if (st->count > (c.end - c.at) / sizeof(uint32_t)) return checkpoint_corrupt(&c, "the particle materials", err);
    c.at += (size_t)st->count * sizeof(uint32_t);
    if ((rc = checkpoint_take_u64(&c, &st->blob_size, "the solver state", err))) return rc;
    st->blob_at = c.at;
    if (st->blob_size != c.end - c.at) return checkpoint_corrupt(&c, "the solver state", err);
    /* What a run's clock can read: a NaN, infinite or negative time would step with a NaN or negative
     * dt; the step count becomes a long long (--steps). */
    if (!(isfinite(st->time) && st->time >= 0))
        return invalid(ck, err, "its time t = %g s, expected a finite time >= 0", st->time);
    if (st->step > (uint64_t)LLONG_MAX)
        return invalid(ck, err, "its step count %llu, expected at most %lld", (unsigned long long)st->step, LLONG_MAX);
    return EDDY_OK;
}

/* The i-th stored id (64-bit; 32-bit in format 1, widened). */
static uint64_t stored_id_at(const eddy_checkpoint *ck, const saved_state *st, size_t i)
{
    if (ck->format >= 2) {
        uint64_t id;
        memcpy(&id, ck->data + st->ids_at + i * sizeof id, sizeof id);
        return id;
    }
    uint32_t id32;
    memcpy(&id32, ck->data + st->ids_at + i * sizeof id32, sizeof id32);
    return id32;
}

typedef struct stored_id {
    uint64_t id;
    size_t index;
} stored_id;

static int by_stored_id(const void *a, const void *b)
{
    const uint64_t x = ((const stored_id *)a)->id, y = ((const stored_id *)b)->id;
    return (x > y) - (x < y);
}

/* The stored index of every owned particle of `p`, matched by id (SIZE_MAX for none): for a layout
 * that moved since the particles were put in (a process's piece, after its halo copies joined and the
 * canonical order ran, decomp.h). NULL when out of memory or when an owned particle is not stored. */
static size_t *stored_index_by_id(const eddy_checkpoint *ck, const saved_state *st, const eddy_particles *p,
                                  eddy_error *err)
{
    const size_t n = (size_t)st->count;
    stored_id *s = malloc(sizeof *s * (n ? n : 1));
    size_t *map = malloc(sizeof *map * (p->count ? p->count : 1));
    if (!s || !map) {
        free(s);
        free(map);
        eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; ++i) {
        s[i].id = stored_id_at(ck, st, i);
        s[i].index = i;
    }
    qsort(s, n, sizeof *s, by_stored_id);
    for (size_t i = 0; i < p->count; ++i) {
        map[i] = SIZE_MAX;
        if (p->flags[i] & EDDY_PARTICLE_HALO) continue;
        const stored_id key = {p->id[i], 0};
        const stored_id *hit = n ? bsearch(&key, s, n, sizeof *s, by_stored_id) : NULL;
        if (!hit) {
            free(s);
            free(map);
            mismatch(ck, err, "a particle of the world is not stored");
            return NULL;
        }
        map[i] = hit->index;
    }
    free(s);
    return map;
}

/* Whether the world's particles are the stored ones, in the stored order (the usual case). */
static int same_layout(const eddy_checkpoint *ck, const saved_state *st, const eddy_particles *p)
{
    if (p->count != st->count || p->halo_count) return 0;
    for (size_t i = 0; i < p->count; ++i)
        if (stored_id_at(ck, st, i) != p->id[i]) return 0;
    return 1;
}

/* Reads the stored values of `sf` into the write-mapped arrays of the world's field f: straight, or
 * through `map` (stored index of each world particle, SIZE_MAX for a halo copy, which keeps its value)
 * where the layout moved after the particles were put in. */
static int restore_field(const eddy_checkpoint *ck, const saved_state *st, const saved_field *sf, eddy_world *w,
                         int f, const size_t *map, eddy_error *err)
{
    eddy_field_view view;
    memset(&view, 0, sizeof view);
    view.size = sizeof view;
    int rc = eddy_world_map_field(w, f, EDDY_MAP_WRITE, &view, err);
    if (rc) return eddy_error_prefix(err, "checkpoint '%s': field '%s': ", ck->path, sf->name);
    if (!map && view.count != st->count) {
        eddy_world_unmap_field(w, &view);
        return mismatch(ck, err, "the particle count changed while restoring");
    }
    const size_t bytes = (size_t)st->count * sizeof(eddy_real);
    for (int j = 0; j < view.components; ++j) {
        const unsigned char *src = ck->data + sf->at + (size_t)j * bytes;
        if (!map) {
            if (bytes) memcpy(view.data[j], src, bytes);
            continue;
        }
        for (size_t i = 0; i < view.count && i < w->particles.count; ++i)
            if (map[i] != SIZE_MAX) memcpy(&view.data[j][i], src + map[i] * sizeof(eddy_real), sizeof(eddy_real));
    }
    eddy_world_unmap_field(w, &view);
    return EDDY_OK;
}

enum which_fields { BUILTIN_FIELDS = 1, SOLVER_FIELDS = 2 };

static int restore_each_field(const eddy_checkpoint *ck, const saved_state *st, eddy_world *w, unsigned which,
                              const size_t *map, eddy_error *err)
{
    eddy_particles *p = &w->particles;
    /* Each field once: with one listed twice, another (velocity, say) would keep the scene's values. */
    unsigned char listed[EDDY_MAX_FIELDS] = {0};
    for (uint32_t k = 0; k < st->field_count; ++k) {
        const saved_field *sf = &st->fields[k];
        const int f = eddy_particles_find_field(p, sf->name);
        const int builtin = f >= 0 && f < EDDY_BUILTIN_FIELD_COUNT;
        if (f >= 0 && !(which & (builtin ? BUILTIN_FIELDS : SOLVER_FIELDS))) continue;
        if (f < 0 && !(which & SOLVER_FIELDS)) continue; /* not registered yet: the solver's */
        if (f < 0 || eddy_particles_field_components(p, f) != (int)sf->components) {
            char what[160];
            snprintf(what, sizeof what, "field '%s' (%u components) is not a field of the solver", sf->name,
                     (unsigned)sf->components);
            return mismatch(ck, err, what);
        }
        if (f >= EDDY_MAX_FIELDS || listed[f]++)
            return invalid(ck, err, "field '%s' is stored twice (so another field would not be restored)", sf->name);
        int rc = restore_field(ck, st, sf, w, f, map, err);
        if (rc) return rc;
    }
    for (int f = 0; f < eddy_particles_field_count(p); ++f) {
        const int builtin = f < EDDY_BUILTIN_FIELD_COUNT;
        if ((which & (builtin ? BUILTIN_FIELDS : SOLVER_FIELDS)) && !listed[f]) {
            char what[160];
            snprintf(what, sizeof what, "it stores no field '%s' (%u fields stored, the solver has %d)",
                     eddy_particles_field_name(p, f), (unsigned)st->field_count, eddy_particles_field_count(p));
            return mismatch(ck, err, what);
        }
    }
    return EDDY_OK;
}

/* Restores the stored fields of the kinds in `which` (built-in: index < EDDY_BUILTIN_FIELD_COUNT), each
 * into the world's field of that name and component count. */
static int restore_fields(const eddy_checkpoint *ck, const saved_state *st, eddy_world *w, unsigned which,
                          eddy_error *err)
{
    eddy_particles *p = &w->particles;
    /* The solver's fields go in after create(), by id where the layout moved since the particles were
     * put in (eddy_decomp_attach's canonical order, a process's halo copies): one map for all of them. */
    size_t *map = NULL;
    if (which == SOLVER_FIELDS && !same_layout(ck, st, p) && !(map = stored_index_by_id(ck, st, p, err)))
        return err->code ? err->code : EDDY_ERR_OUT_OF_MEMORY;
    int rc = restore_each_field(ck, st, w, which, map, err);
    free(map);
    return rc;
}

/* Ids (64-bit; 32-bit in format 1, widened) and materials: the layout. */
static int restore_layout(const eddy_checkpoint *ck, const saved_state *st, eddy_world *w, eddy_error *err)
{
    eddy_particles *p = &w->particles;
    const size_t n = (size_t)st->count;
    uint64_t *ids = calloc(n ? n : 1, sizeof *ids);
    if (!ids) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < n; ++i) ids[i] = stored_id_at(ck, st, i);
    int rc = EDDY_OK;
    for (size_t i = 0; i < n && !rc; ++i) {
        uint32_t m;
        memcpy(&m, ck->data + st->materials_at + i * sizeof m, sizeof m);
        if (m >= w->material_count) rc = mismatch(ck, err, "a particle's material is out of range");
    }
    if (!rc && (rc = eddy_particles_set_ids(p, ids, err))) eddy_error_prefix(err, "checkpoint '%s': ", ck->path);
    if (!rc && n) {
        memcpy(p->material, ck->data + st->materials_at, n * sizeof(uint32_t));
        eddy_particles_touch(p, EDDY_FIELD_LAYOUT);
    }
    free(ids);
    return rc;
}

/* Read from the host copy just restored (checkpoint_particle_fault, checkpoint_internal.h). */
static int check_particles(const eddy_checkpoint *ck, const eddy_particles *p, eddy_error *err)
{
    char fault[160];
    if (!checkpoint_particle_fault(p, fault, sizeof fault)) return EDDY_OK;
    return invalid(ck, err, "%s", fault);
}

/* The solver's own state (save/load), last in both orders. */
static int load_solver_state(const eddy_checkpoint *ck, const saved_state *st, eddy_sim *sim, eddy_error *err)
{
    const eddy_component *sc = sim->solver_entry->component;
    const eddy_solver_vtable *v = (const eddy_solver_vtable *)sc->vtable;
    /* A solver that saves state always writes some (state.h records carry at least their tag): a
     * checkpoint without any lost it, and the solver would go on from create()'s values. */
    if (!st->blob_size && v->save && v->load)
        return invalid(ck, err, "it holds no solver state, but solver '%s' saves state (save/load) that a resume needs",
                       sc->id);
    if (!st->blob_size) return EDDY_OK;
    if (!v->load)
        return eddy_error_set(err, EDDY_ERR_UNSUPPORTED,
                              "checkpoint '%s' holds %llu bytes of solver state, but solver '%s' cannot load state",
                              ck->path, (unsigned long long)st->blob_size, sc->id);
    eddy_error_clear(err);
    int rc = v->load(sim->solver, ck->data + st->blob_at, (size_t)st->blob_size, err);
    if (rc) {
        eddy_services_callback_error(err, rc, "load");
        eddy_error_prefix(err, "solver '%s' cannot load the state in '%s': ", sc->id, ck->path);
    }
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* The two orders                                                                                    */

typedef struct restore_job {
    const eddy_checkpoint *ck;
    saved_state st;
} restore_job;

/* Zero positions for eddy_world_add_particles, overwritten by the stored ones right after. */
enum { FILL_CHUNK = 4096 };

/* STATE_COMPLETE, before create(): the clock, the colliders and the stored particles with their
 * built-in fields, ids and materials, into the world the scene's materials and colliders made. */
static int fill_world(void *user, eddy_world *w, eddy_error *err)
{
    restore_job *job = user;
    const eddy_checkpoint *ck = job->ck;
    const saved_state *st = &job->st;
    cursor c = {ck, st->colliders_at, ck->state_end};
    int rc = restore_colliders(&c, &w->boundaries, err);
    if (rc) return rc;
    w->time = st->time;
    w->step = st->step;
    if (st->count > (uint64_t)UINT32_MAX) {
        char what[96];
        snprintf(what, sizeof what, "%llu particles, at most %u are allowed", (unsigned long long)st->count,
                 UINT32_MAX);
        return mismatch(ck, err, what);
    }
    if (!w->material_count) return mismatch(ck, err, "the scene has no material");
    if ((rc = eddy_particles_reserve(&w->particles, (size_t)st->count, err))) return rc;
    static const eddy_real zeros[3 * FILL_CHUNK];
    for (size_t done = 0; done < st->count && !rc; done += FILL_CHUNK) {
        const size_t n = st->count - done < FILL_CHUNK ? (size_t)st->count - done : FILL_CHUNK;
        rc = eddy_world_add_particles(w, n, zeros, NULL, 0, err);
    }
    if (rc || (rc = restore_fields(ck, st, w, BUILTIN_FIELDS, err)) || (rc = restore_layout(ck, st, w, err)))
        return rc;
    return check_particles(ck, &w->particles, err);
}

/* STATE_COMPLETE, after create(): the fields the solver registered, then its state. */
static int finish_filled(restore_job *job, eddy_sim *sim, eddy_error *err)
{
    int rc = restore_fields(job->ck, &job->st, sim->world, SOLVER_FIELDS, err);
    return rc ? rc : load_solver_state(job->ck, &job->st, sim, err);
}

/* The 2.0 order: over the scene's initial world and the solver created on it. */
static int finish_over_scene(restore_job *job, eddy_sim *sim, eddy_error *err)
{
    const eddy_checkpoint *ck = job->ck;
    const saved_state *st = &job->st;
    eddy_world *w = sim->world;
    eddy_particles *p = &w->particles;
    cursor c = {ck, st->colliders_at, ck->state_end};
    int rc = restore_colliders(&c, &w->boundaries, err);
    if (rc) return rc;
    w->time = st->time;
    w->step = st->step;
    if (st->count > p->count) {
        char what[160];
        snprintf(what, sizeof what, "%llu particles, the scene makes %zu", (unsigned long long)st->count, p->count);
        return mismatch(ck, err, what);
    }
    /* The host copy is the one edited below: bring it up to date first (a device solver's layout). */
    if ((rc = eddy_world_sync_host(w, err))) return eddy_error_prefix(err, "checkpoint '%s': ", ck->path);
    if (st->count < p->count) {
        /* Particles were removed during the run (out_of_domain "remove"): shrink, then overwrite. */
        const size_t n = (size_t)st->count;
        uint32_t *order = malloc(sizeof(uint32_t) * (n ? n : 1));
        if (!order) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        for (size_t i = 0; i < n; ++i) order[i] = (uint32_t)i;
        rc = eddy_particles_gather(p, order, n, err);
        free(order);
        if (rc) return rc;
    }
    if ((rc = restore_fields(ck, st, w, BUILTIN_FIELDS | SOLVER_FIELDS, err)) ||
        (rc = restore_layout(ck, st, w, err)) || (rc = check_particles(ck, p, err)))
        return rc;
    return load_solver_state(ck, st, sim, err);
}

static int finish(void *user, eddy_sim *sim, int filled, eddy_error *err)
{
    return filled ? finish_filled(user, sim, err) : finish_over_scene(user, sim, err);
}

/* The gravity the run stepped with when it differs from the scene's (a program changed the world's
 * between steps, session API): set after create(), which in the run saw the scene's too. Checkpoints
 * before "gravity" was stored go on with the scene's. */
static int restore_gravity(const eddy_checkpoint *ck, eddy_world *w, eddy_error *err)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(ck->settings, "gravity");
    if (!g) return EDDY_OK;
    double v[3];
    int n = 0;
    const cJSON *e, *list = cJSON_IsArray(g) ? g : NULL;
    cJSON_ArrayForEach(e, list) {
        if (n == 3 || !cJSON_IsNumber(e) || !isfinite(e->valuedouble) || fabs(e->valuedouble) > FLT_MAX) {
            n = -1;
            break;
        }
        v[n++] = e->valuedouble;
    }
    if (n != 3) return invalid(ck, err, "setting 'gravity': expected an array of 3 finite numbers (m/s^2)");
    for (int a = 0; a < 3; ++a) w->gravity[a] = (eddy_real)v[a];
    return EDDY_OK;
}

/* The run's first step, the scale of time.min_dt_fraction (sim.h); checkpoints before it was stored
 * take the resumed run's first step. */
static int restore_first_dt(const eddy_checkpoint *ck, eddy_sim *sim, eddy_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ck->settings, "first_dt");
    if (!v) return EDDY_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || !(v->valuedouble > 0))
        return invalid(ck, err, "setting 'first_dt': expected a finite number > 0 (s)");
    /* The first step as taken is time.dt or shorter (a solver's limit, a landing on the first frame): a
     * longer one is no run's, and taken as the scale of the blow-up check it made the resumed run stop
     * at its first step as "blowing up" (an adversarial trial's 1e300). */
    if (v->valuedouble > sim->scene.dt * (1 + 1e-12))
        return invalid(ck, err, "setting 'first_dt': expected the run's first step, at most its time.dt = %.9g s, got %.9g",
                       sim->scene.dt, v->valuedouble);
    sim->first_dt = v->valuedouble;
    return EDDY_OK;
}

/* The run's identity (sim.h), which later checkpoints and the resumed run's record carry on; a
 * checkpoint before it had none, and its resumed run stays without one. */
static int restore_run_id(const eddy_checkpoint *ck, eddy_sim *sim, eddy_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ck->settings, "run_id");
    sim->run_id[0] = '\0';
    if (!v) return EDDY_OK;
    int ok = cJSON_IsString(v) && strlen(v->valuestring) == EDDY_SIM_RUN_ID_LEN;
    for (size_t i = 0; ok && i < EDDY_SIM_RUN_ID_LEN; ++i) ok = strchr("0123456789abcdef", v->valuestring[i]) != NULL;
    if (!ok) return invalid(ck, err, "setting 'run_id': expected %d lowercase hexadecimal digits", EDDY_SIM_RUN_ID_LEN);
    memcpy(sim->run_id, v->valuestring, EDDY_SIM_RUN_ID_LEN + 1);
    return EDDY_OK;
}

int eddy_checkpoint_open_sim(const eddy_checkpoint *ck, eddy_scene *scene, const eddy_sim_options *opt,
                             eddy_sim *sim, eddy_error *err)
{
    restore_job *job = malloc(sizeof *job);
    if (!job) {
        eddy_scene_free(scene);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    job->ck = ck;
    int rc = index_state(ck, &job->st, err);
    if (rc) {
        eddy_scene_free(scene);
        free(job);
        return rc;
    }
    /* Format 3 promises what STATE_COMPLETE needs: a solver that sets the flag wrote everything its
     * create() derived. Older files were written when create() always saw the scene's particles. */
    const eddy_sim_restore restore = {ck->format >= EDDY_CHECKPOINT_FORMAT_STATE_COMPLETE ? fill_world : NULL,
                                      finish, job, ck->path};
    rc = eddy_sim_open_restored(scene, opt, &restore, sim, err);
    free(job);
    if (!rc && ((rc = restore_gravity(ck, sim->world, err)) || (rc = restore_first_dt(ck, sim, err)) ||
                (rc = restore_run_id(ck, sim, err)))) eddy_sim_close(sim);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* The pieces of a run on several processes, as one checkpoint (checkpoint.h)                        */

typedef struct grow {
    unsigned char *p;
    size_t n, cap;
    int failed;
} grow;

static void grow_put(grow *g, const void *src, size_t n)
{
    if (g->failed || !n) return;
    if (g->n + n > g->cap) {
        size_t cap = g->cap ? g->cap : 1 << 16;
        while (cap < g->n + n) cap *= 2;
        unsigned char *q = realloc(g->p, cap);
        if (!q) {
            g->failed = 1;
            return;
        }
        g->p = q;
        g->cap = cap;
    }
    memcpy(g->p + g->n, src, n);
    g->n += n;
}

static void grow_u32(grow *g, uint32_t v) { grow_put(g, &v, sizeof v); }
static void grow_u64(grow *g, uint64_t v) { grow_put(g, &v, sizeof v); }

/* eddy_checkpoint_merge, or with `particles` 0 the pieces' header, settings, clock, colliders, field
 * names and solver state with no particle (eddy_checkpoint_merge_share). */
static int merge_pieces(eddy_checkpoint *const *pieces, int n, int particles, const char *path, eddy_checkpoint **out,
                        eddy_error *err)
{
    *out = NULL;
    saved_state *st = calloc((size_t)n, sizeof *st);
    if (!st) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    int rc = EDDY_OK;
    uint64_t total = 0;
    for (int k = 0; k < n && !rc; ++k) {
        if ((rc = index_state(pieces[k], &st[k], err))) break;
        if (particles) total += st[k].count;
        const eddy_checkpoint *a = pieces[0], *b = pieces[k];
        const saved_state *s0 = &st[0], *sk = &st[k];
        int same = b->format == a->format && b->format >= 2 && sk->field_count == s0->field_count;
        for (uint32_t f = 0; same && f < sk->field_count; ++f)
            same = strcmp(sk->fields[f].name, s0->fields[f].name) == 0 && sk->fields[f].components == s0->fields[f].components;
        if (!same)
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "checkpoint piece '%s' does not hold the fields of '%s' (pieces of different runs)",
                                b->path, a->path);
        else if (sk->blob_size != s0->blob_size ||
                 (sk->blob_size && memcmp(b->data + sk->blob_at, a->data + s0->blob_at, (size_t)sk->blob_size) != 0)) {
            const cJSON *solver = cJSON_GetObjectItemCaseSensitive(a->settings, "solver");
            rc = eddy_error_set(err, EDDY_ERR_UNSUPPORTED,
                                "the solver '%s' has different state records in '%s' and '%s' (a state kept per process, "
                                "or pieces of different runs), which cannot be merged; resume on %d processes "
                                "(docs/mpi.md)",
                                cJSON_IsString(solver) ? solver->valuestring : "?", a->path, b->path, n);
        }
    }
    grow g = {0};
    if (!rc) {
        /* Piece 0 up to its particles: header, settings, clock, colliders (the same in every piece). */
        const eddy_checkpoint *a = pieces[0];
        uint64_t colliders;
        memcpy(&colliders, a->data + st[0].colliders_at, sizeof colliders);
        const size_t particles_at = st[0].colliders_at + sizeof colliders + (size_t)colliders * collider_record_size();
        grow_put(&g, a->data, particles_at);
        grow_u64(&g, total);
        grow_u32(&g, (uint32_t)sizeof(eddy_real));
        grow_u32(&g, st[0].field_count);
        for (uint32_t f = 0; f < st[0].field_count; ++f) {
            const uint32_t len = (uint32_t)strlen(st[0].fields[f].name);
            grow_u32(&g, len);
            grow_put(&g, st[0].fields[f].name, len);
            grow_u32(&g, st[0].fields[f].components);
            for (uint32_t j = 0; j < st[0].fields[f].components; ++j)
                for (int k = 0; particles && k < n; ++k) {
                    const size_t bytes = (size_t)st[k].count * sizeof(eddy_real);
                    grow_put(&g, pieces[k]->data + st[k].fields[f].at + j * bytes, bytes);
                }
        }
        for (int k = 0; particles && k < n; ++k)
            grow_put(&g, pieces[k]->data + st[k].ids_at, (size_t)st[k].count * sizeof(uint64_t));
        for (int k = 0; particles && k < n; ++k)
            grow_put(&g, pieces[k]->data + st[k].materials_at, (size_t)st[k].count * sizeof(uint32_t));
        grow_u64(&g, st[0].blob_size);
        grow_put(&g, a->data + st[0].blob_at, (size_t)st[0].blob_size);
        const uint64_t payload = g.n - 24; /* magic, format, byte-order mark, payload length */
        if (!g.failed) memcpy(g.p + 16, &payload, sizeof payload);
        const uint64_t sum = g.failed ? 0 : eddy_checkpoint_checksum(g.p, g.n);
        grow_u64(&g, sum);
        if (g.failed) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the merged checkpoint");
    }
    eddy_checkpoint *ck = rc ? NULL : calloc(1, sizeof *ck);
    if (!rc && ck) {
        const size_t plen = strlen(path) + 1;
        ck->path = malloc(plen);
        ck->settings = cJSON_Duplicate(pieces[0]->settings, 1);
        if (ck->path) memcpy(ck->path, path, plen);
        ck->data = g.p;
        ck->size = g.n;
        g.p = NULL;
        ck->format = pieces[0]->format;
        ck->state_begin = pieces[0]->state_begin;
        ck->state_end = ck->size - sizeof(uint64_t);
        if (!ck->path || !ck->settings) {
            eddy_checkpoint_free(ck);
            ck = NULL;
        }
    }
    if (!rc && !ck) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    free(g.p);
    free(st);
    if (!rc) *out = ck;
    return rc;
}

int eddy_checkpoint_merge(eddy_checkpoint *const *pieces, int n, const char *path, eddy_checkpoint **out,
                          eddy_error *err)
{
    return merge_pieces(pieces, n, 1, path, out, err);
}

int eddy_checkpoint_merge_share(eddy_checkpoint *const *pieces, int n, int particles, const char *dir, int total,
                                const char *path, eddy_checkpoint **out, eddy_error *err)
{
    int rc = merge_pieces(pieces, n, particles, path, out, err);
    /* What eddy_checkpoint_merge compares between pieces, as two digests: the format and the fields' names
     * and components, and the solver's state record. A failure above stops every process (main.c), so the
     * others, waiting here, need not learn it. */
    if (rc) return rc;
    saved_state st;
    if ((rc = index_state(*out, &st, err))) {
        eddy_checkpoint_free(*out);
        *out = NULL;
        return rc;
    }
    uint64_t fields = eddy_checkpoint_checksum(&(*out)->format, sizeof(*out)->format);
    fields ^= eddy_checkpoint_checksum(&st.field_count, sizeof st.field_count) * 3;
    for (uint32_t f = 0; f < st.field_count; ++f)
        fields = fields * 0x100000001b3ULL ^ eddy_checkpoint_checksum(st.fields[f].name, strlen(st.fields[f].name)) ^
                 (uint64_t)st.fields[f].components << 1;
    const uint64_t record = eddy_checkpoint_checksum((*out)->data + st.blob_at, (size_t)st.blob_size) ^ st.blob_size;
    const int bad_fields = eddy_decomp_first_differing(fields), bad_record = eddy_decomp_first_differing(record);
    const int bad = bad_fields >= 0 ? bad_fields : bad_record;
    if (bad < 0) return EDDY_OK;
    /* The first piece of rank 0 and of rank `bad`: piece r, or r mod total where there are fewer pieces. */
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s/checkpoint.p0.eddy", dir);
    snprintf(b, sizeof b, "%s/checkpoint.p%d.eddy", dir, bad % total);
    if (bad_fields >= 0)
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                            "checkpoint piece '%s' does not hold the fields of '%s' (pieces of different runs)", b, a);
    else {
        const cJSON *solver = cJSON_GetObjectItemCaseSensitive((*out)->settings, "solver");
        rc = eddy_error_set(err, EDDY_ERR_UNSUPPORTED,
                            "the solver '%s' has different state records in '%s' and '%s' (a state kept per process, "
                            "or pieces of different runs), which cannot be merged; resume on %d processes "
                            "(docs/mpi.md)",
                            cJSON_IsString(solver) ? solver->valuestring : "?", a, b, total);
    }
    eddy_checkpoint_free(*out);
    *out = NULL;
    return rc;
}
