/*
 * host/session/checkpoint.c — checkpoint files (format in checkpoint.h): writing one atomically,
 * reading one back with every byte-level and semantic check, and restoring it into a session.
 * About 650 lines, kept in one file on purpose: the writer and the reader are the two sides of one
 * format, and a change to either must be made beside the other.
 */
#include "checkpoint.h"
#include "services.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char MAGIC[8] = {'E', 'D', 'D', 'Y', 'C', 'K', 'P', 'T'};
static const uint32_t BYTE_ORDER_MARK = 0x01020304u;
/* magic, format, byte-order mark, payload length */
enum { HEADER_SIZE = 8 + 4 + 4 + 8, CHECKSUM_SIZE = 8 };

struct eddy_checkpoint {
    char *path;
    unsigned char *data; /* the whole file */
    size_t size;
    uint32_t format;     /* EDDY_CHECKPOINT_FORMAT or EDDY_CHECKPOINT_FORMAT_V1 */
    cJSON *settings;     /* parsed from the payload */
    /* where the binary sections of the payload start and end */
    size_t state_begin, state_end;
};

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static const uint64_t FNV_OFFSET = 0xcbf29ce484222325ULL;

uint64_t eddy_checkpoint_checksum(const void *data, size_t n)
{
    return fnv1a(FNV_OFFSET, data, n);
}

/* ------------------------------------------------------------------------------------------------ */
/* Writing: a growing buffer, then one atomic file write                                             */

typedef struct buffer {
    unsigned char *p;
    size_t n, cap;
    int failed;
} buffer;

static void put(buffer *b, const void *src, size_t n)
{
    if (b->failed) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->n + n) cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q) {
            b->failed = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void put_u32(buffer *b, uint32_t v) { put(b, &v, sizeof v); }
static void put_u64(buffer *b, uint64_t v) { put(b, &v, sizeof v); }
static void put_f64(buffer *b, double v) { put(b, &v, sizeof v); }

static void put_str(buffer *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    put_u32(b, n);
    put(b, s, n);
}

static char *join_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* The colliders' geometry and velocity: what prescribed motion changes during a run. */
static void put_colliders(buffer *b, const eddy_boundaries *bd)
{
    put_u64(b, bd->collider_count);
    for (size_t i = 0; i < bd->collider_count; ++i) {
        const eddy_collider *c = &bd->colliders[i];
        put_u32(b, (uint32_t)c->shape);
        put(b, c->point, sizeof c->point);
        put(b, c->normal, sizeof c->normal);
        put(b, c->min, sizeof c->min);
        put(b, c->max, sizeof c->max);
        put(b, c->center, sizeof c->center);
        put(b, &c->radius, sizeof c->radius);
        put(b, c->velocity, sizeof c->velocity);
    }
}

/* Format 2: count (u64), size of a real (u32), field count (u32), each field by name with its
 * components, the ids (u64 each), the materials (u32 each). The host copy is current
 * (eddy_world_sync_host). */
static void put_particles(buffer *b, const eddy_particles *p)
{
    const size_t n = p->count;
    put_u64(b, n);
    put_u32(b, (uint32_t)sizeof(eddy_real));
    int nf = eddy_particles_field_count(p);
    put_u32(b, (uint32_t)nf);
    for (int f = 0; f < nf; ++f) {
        int comps = eddy_particles_field_components(p, f);
        put_str(b, eddy_particles_field_name(p, f));
        put_u32(b, (uint32_t)comps);
        for (int c = 0; c < comps; ++c) put(b, eddy_particles_field(p, f, c), n * sizeof(eddy_real));
    }
    put(b, p->id, n * sizeof(uint64_t));
    put(b, p->material, n * sizeof(uint32_t));
}

static int write_file(const char *path, const buffer *b, eddy_error *err)
{
    char *tmp = malloc(strlen(path) + 5);
    if (!tmp) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    sprintf(tmp, "%s.tmp", path);
    int rc = EDDY_OK;
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write checkpoint '%s': %s", tmp, strerror(errno));
    } else {
        int ok = fwrite(b->p, 1, b->n, f) == b->n && fflush(f) == 0 && fsync(fileno(f)) == 0;
        int e = errno;
        if (fclose(f) != 0 && ok) {
            ok = 0;
            e = errno;
        }
        if (!ok) rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write checkpoint '%s': %s", tmp, strerror(e));
        else if (rename(tmp, path) != 0)
            rc = eddy_error_set(err, EDDY_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
        if (rc) remove(tmp);
    }
    free(tmp);
    return rc;
}

int eddy_checkpoint_write(const char *dir, const eddy_sim *sim, const cJSON *settings, eddy_error *err)
{
    eddy_world *w = sim->world;
    const eddy_component *sc = sim->solver_entry->component;
    /* The registry's copy of the vtable covers every member of this host's layout. */
    const eddy_solver_vtable *v = (const eddy_solver_vtable *)sc->vtable;
    void *blob = NULL;
    size_t blob_size = 0;
    /* Every host access to particles goes through the world's mappings: bring the host copy of every
     * field (and the layout) up to date, then read the arrays. */
    int rc = eddy_world_sync_host(w, err);
    if (rc) return eddy_error_prefix(err, "cannot write a checkpoint: ");
    if (w->particles.halo_count)
        return eddy_error_set(err, EDDY_ERR_UNSUPPORTED,
                              "cannot write a checkpoint of a world with %zu halo particles (a domain-decomposed run)",
                              w->particles.halo_count);
    if (v->save) {
        eddy_error_clear(err);
        rc = v->save(sim->solver, &blob, &blob_size, err);
        if (rc) {
            eddy_services_callback_error(err, rc, "save");
            eddy_error_prefix(err, "solver '%s' cannot save its state: ", sc->id);
            return rc;
        }
    }
    cJSON *all = cJSON_Duplicate(settings, 1);
    cJSON *scene = all ? cJSON_Duplicate(sim->scene.root, 1) : NULL;
    char *text = NULL;
    if (scene && cJSON_AddItemToObject(all, "scene", scene)) text = cJSON_PrintUnformatted(all);
    else cJSON_Delete(scene);
    cJSON_Delete(all);
    if (!text) {
        free(blob);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the checkpoint");
    }

    buffer b = {0};
    put(&b, MAGIC, sizeof MAGIC);
    put_u32(&b, EDDY_CHECKPOINT_FORMAT);
    put_u32(&b, BYTE_ORDER_MARK);
    put_u64(&b, 0); /* payload length, patched below */
    const size_t payload_begin = b.n;
    put_str(&b, text);
    put_f64(&b, w->time);
    put_u64(&b, w->step);
    put_colliders(&b, &w->boundaries);
    put_particles(&b, &w->particles);
    put_u64(&b, blob_size);
    if (blob_size) put(&b, blob, blob_size);
    free(blob);
    cJSON_free(text);
    if (b.failed) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the checkpoint");
    } else {
        uint64_t payload = b.n - payload_begin;
        memcpy(b.p + payload_begin - sizeof payload, &payload, sizeof payload);
        put_u64(&b, fnv1a(FNV_OFFSET, b.p, b.n));
        char *path = join_path(dir, EDDY_CHECKPOINT_FILE);
        rc = !path || b.failed ? eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory")
                               : write_file(path, &b, err);
        free(path);
    }
    free(b.p);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* Reading: every section is bounds-checked against the payload                                      */

typedef struct cursor {
    const eddy_checkpoint *ck;
    size_t at, end;
} cursor;

static int corrupt(const cursor *c, const char *what, eddy_error *err)
{
    return eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint '%s' is corrupt: %s does not fit", c->ck->path, what);
}

static int take(cursor *c, void *dst, size_t n, const char *what, eddy_error *err)
{
    if (n > c->end - c->at) return corrupt(c, what, err);
    if (dst) memcpy(dst, c->ck->data + c->at, n);
    c->at += n;
    return EDDY_OK;
}

static int take_u32(cursor *c, uint32_t *v, const char *what, eddy_error *err)
{
    return take(c, v, sizeof *v, what, err);
}

static int take_u64(cursor *c, uint64_t *v, const char *what, eddy_error *err)
{
    return take(c, v, sizeof *v, what, err);
}

static int read_all(const char *path, unsigned char **data, size_t *size, eddy_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return eddy_error_set(err, EDDY_ERR_NOT_FOUND,
                                  "no checkpoint '%s' (a run writes one when it ends, is interrupted, or "
                                  "every --checkpoint-every seconds)", path);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot read checkpoint '%s': %s", path, strerror(errno));
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *p = malloc(cap);
    int rc = p ? EDDY_OK : eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    while (!rc) {
        if (n == cap) {
            unsigned char *q = realloc(p, cap * 2);
            if (!q) {
                rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory reading '%s'", path);
                break;
            }
            p = q;
            cap *= 2;
        }
        size_t got = fread(p + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) rc = eddy_error_set(err, EDDY_ERR_IO, "cannot read checkpoint '%s'", path);
            break;
        }
    }
    fclose(f);
    if (rc) {
        free(p);
        return rc;
    }
    *data = p;
    *size = n;
    return EDDY_OK;
}

static int verify(eddy_checkpoint *ck, eddy_error *err)
{
    const char *path = ck->path;
    const size_t head = ck->size < sizeof MAGIC ? ck->size : sizeof MAGIC;
    if (memcmp(ck->data, MAGIC, head) != 0 || ck->size == 0)
        return eddy_error_set(err, EDDY_ERR_PARSE, "'%s' is not an eddy checkpoint (wrong magic)", path);
    if (ck->size < HEADER_SIZE + CHECKSUM_SIZE)
        return eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint '%s' is truncated: %zu bytes", path, ck->size);
    uint32_t format, bom;
    uint64_t payload;
    memcpy(&format, ck->data + 8, 4);
    memcpy(&bom, ck->data + 12, 4);
    memcpy(&payload, ck->data + 16, 8);
    if (bom != BYTE_ORDER_MARK)
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "checkpoint '%s' was written on a machine of another byte order", path);
    if (format != EDDY_CHECKPOINT_FORMAT && format != EDDY_CHECKPOINT_FORMAT_V1)
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "checkpoint '%s' has format version %u; this eddy reads version %u or %u", path,
                              (unsigned)format, (unsigned)EDDY_CHECKPOINT_FORMAT_V1,
                              (unsigned)EDDY_CHECKPOINT_FORMAT);
    ck->format = format;
    const uint64_t expected = (uint64_t)HEADER_SIZE + payload + CHECKSUM_SIZE;
    if (payload > ck->size || expected != ck->size)
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "checkpoint '%s' is truncated: %zu bytes, its header says %llu", path, ck->size,
                              (unsigned long long)expected);
    uint64_t stored;
    memcpy(&stored, ck->data + ck->size - CHECKSUM_SIZE, CHECKSUM_SIZE);
    if (fnv1a(FNV_OFFSET, ck->data, ck->size - CHECKSUM_SIZE) != stored)
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "checkpoint '%s' is corrupt: checksum mismatch (the file was changed or damaged)",
                              path);
    cursor c = {ck, HEADER_SIZE, ck->size - CHECKSUM_SIZE};
    uint32_t len = 0;
    int rc = take_u32(&c, &len, "the settings", err);
    if (rc) return rc;
    if (len > c.end - c.at) return corrupt(&c, "the settings", err);
    ck->settings = cJSON_ParseWithLength((const char *)ck->data + c.at, len);
    if (!cJSON_IsObject(ck->settings) || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(ck->settings, "scene")))
        return eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint '%s' is corrupt: its settings are not a JSON object with a scene",
                              path);
    c.at += len;
    ck->state_begin = c.at;
    ck->state_end = c.end;
    return EDDY_OK;
}

int eddy_checkpoint_read(const char *dir, eddy_checkpoint **out, eddy_error *err)
{
    *out = NULL;
    eddy_checkpoint *ck = calloc(1, sizeof *ck);
    if (!ck || !(ck->path = join_path(dir, EDDY_CHECKPOINT_FILE))) {
        free(ck);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    int rc = read_all(ck->path, &ck->data, &ck->size, err);
    if (!rc) rc = verify(ck, err);
    if (rc) {
        eddy_checkpoint_free(ck);
        return rc;
    }
    *out = ck;
    return EDDY_OK;
}

const char *eddy_checkpoint_path(const eddy_checkpoint *ck)
{
    return ck->path;
}

const cJSON *eddy_checkpoint_settings(const eddy_checkpoint *ck)
{
    return ck->settings;
}

void eddy_checkpoint_free(eddy_checkpoint *ck)
{
    if (!ck) return;
    cJSON_Delete(ck->settings);
    free(ck->data);
    free(ck->path);
    free(ck);
}

/* ------------------------------------------------------------------------------------------------ */
/* Restoring                                                                                         */

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

static int restore_colliders(cursor *c, eddy_boundaries *bd, eddy_error *err)
{
    uint64_t n = 0;
    int rc = take_u64(c, &n, "the collider count", err);
    if (rc) return rc;
    if (n != bd->collider_count) {
        char what[96];
        snprintf(what, sizeof what, "%llu colliders, the scene has %zu", (unsigned long long)n, bd->collider_count);
        return mismatch(c->ck, err, what);
    }
    for (size_t i = 0; i < n; ++i) {
        eddy_collider *k = &bd->colliders[i];
        uint32_t shape = 0;
        eddy_collider t;
        if ((rc = take_u32(c, &shape, "a collider", err)) ||
            (rc = take(c, t.point, sizeof t.point, "a collider", err)) ||
            (rc = take(c, t.normal, sizeof t.normal, "a collider", err)) ||
            (rc = take(c, t.min, sizeof t.min, "a collider", err)) ||
            (rc = take(c, t.max, sizeof t.max, "a collider", err)) ||
            (rc = take(c, t.center, sizeof t.center, "a collider", err)) ||
            (rc = take(c, &t.radius, sizeof t.radius, "a collider", err)) ||
            (rc = take(c, t.velocity, sizeof t.velocity, "a collider", err)))
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

/* Reads the n values of every component of field f straight into its write-mapped arrays. */
static int restore_field(cursor *c, eddy_world *w, int f, size_t n, eddy_error *err)
{
    eddy_field_view view;
    memset(&view, 0, sizeof view);
    view.size = sizeof view;
    int rc = eddy_world_map_field(w, f, EDDY_MAP_WRITE, &view, err);
    if (rc) return eddy_error_prefix(err, "checkpoint '%s': field '%s': ", c->ck->path,
                                     eddy_particles_field_name(&w->particles, f));
    if (view.count != n) {
        eddy_world_unmap_field(w, &view);
        return mismatch(c->ck, err, "the particle count changed while restoring");
    }
    for (int j = 0; j < view.components && !rc; ++j)
        rc = take(c, view.data[j], n * sizeof(eddy_real), "a particle field", err);
    eddy_world_unmap_field(w, &view);
    return rc;
}

/* The built-in fields hold what a scene can make and a run keeps: finite positions, velocities,
 * densities and pressures, a mass > 0 (a scene's particle_mass range), z and its velocity zero in 2D.
 * The solvers' own fields are theirs to interpret. Read from the host copy just restored. */
static int check_particles(const eddy_checkpoint *ck, const eddy_particles *p, eddy_error *err)
{
    static const char *const NAMES[] = {"position", "velocity", "density", "pressure", "mass"};
    for (int f = 0; f < EDDY_BUILTIN_FIELD_COUNT; ++f) {
        const int comps = eddy_particles_field_components(p, f);
        for (int a = 0; a < comps; ++a) {
            const eddy_real *v = eddy_particles_field(p, f, a);
            const int flat = p->dimensions == 2 && a == 2; /* z, vz in 2D */
            for (size_t i = 0; i < p->count; ++i) {
                const int ok = f == EDDY_FIELD_MASS ? isfinite(v[i]) && v[i] > 0 : flat ? v[i] == 0 : isfinite(v[i]);
                if (ok) continue;
                char name[32];
                if (comps > 1) snprintf(name, sizeof name, "%s.%c", NAMES[f], AXES[a]);
                else snprintf(name, sizeof name, "%s", NAMES[f]);
                return invalid(ck, err, "particle %zu (id %llu): %s is %g, expected %s", i,
                               (unsigned long long)p->id[i], name, (double)v[i],
                               f == EDDY_FIELD_MASS ? "a finite number > 0"
                               : flat               ? "0 in 2D"
                                                    : "a finite number");
            }
        }
    }
    return EDDY_OK;
}

static int restore_particles(cursor *c, eddy_world *w, eddy_error *err)
{
    eddy_particles *p = &w->particles;
    const uint32_t format = c->ck->format;
    uint64_t n = 0;
    uint32_t nf = 0, real_size = 4; /* format 1 was written with float fields */
    int rc;
    if ((rc = take_u64(c, &n, "the particle count", err)) ||
        (format >= 2 && (rc = take_u32(c, &real_size, "the size of a real", err))) ||
        (rc = take_u32(c, &nf, "the field count", err)))
        return rc;
    char what[160];
    if (real_size != sizeof(eddy_real)) {
        snprintf(what, sizeof what, "its particle fields hold %u-byte reals, this eddy %zu-byte ones", (unsigned)real_size,
                 sizeof(eddy_real));
        return mismatch(c->ck, err, what);
    }
    if (n > p->count) {
        snprintf(what, sizeof what, "%llu particles, the scene makes %zu", (unsigned long long)n, p->count);
        return mismatch(c->ck, err, what);
    }
    if ((int)nf != eddy_particles_field_count(p)) {
        snprintf(what, sizeof what, "%u particle fields, the solver has %d", (unsigned)nf, eddy_particles_field_count(p));
        return mismatch(c->ck, err, what);
    }
    /* The host copy is the one edited below: bring it up to date first (a device solver's layout). */
    if ((rc = eddy_world_sync_host(w, err))) return eddy_error_prefix(err, "checkpoint '%s': ", c->ck->path);
    if (n < p->count) {
        /* Particles were removed during the run (out_of_domain "remove"): shrink to n, then overwrite. */
        uint32_t *order = malloc(sizeof(uint32_t) * (n ? n : 1));
        if (!order) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        for (size_t i = 0; i < n; ++i) order[i] = (uint32_t)i;
        rc = eddy_particles_gather(p, order, (size_t)n, err);
        free(order);
        if (rc) return rc;
    }
    /* Each field once: with one listed twice, another (velocity, say) would keep the scene's values. */
    unsigned char listed[EDDY_MAX_FIELDS] = {0};
    for (uint32_t k = 0; k < nf; ++k) {
        uint32_t len = 0, comps = 0;
        char name[EDDY_FIELD_NAME_MAX];
        if ((rc = take_u32(c, &len, "a field name", err))) return rc;
        if (len >= sizeof name) return corrupt(c, "a field name", err);
        if ((rc = take(c, name, len, "a field name", err)) || (rc = take_u32(c, &comps, "a field", err))) return rc;
        name[len] = '\0';
        int f = eddy_particles_find_field(p, name);
        if (f < 0 || eddy_particles_field_components(p, f) != (int)comps) {
            snprintf(what, sizeof what, "field '%s' (%u components) is not a field of the solver", name, (unsigned)comps);
            return mismatch(c->ck, err, what);
        }
        if (f >= EDDY_MAX_FIELDS || listed[f]++)
            return invalid(c->ck, err, "field '%s' is stored twice (so another field would not be restored)", name);
        if ((rc = restore_field(c, w, f, (size_t)n, err))) return rc;
    }
    /* Ids (64-bit; 32-bit in format 1, widened) and materials: the layout. */
    uint64_t *ids = malloc(sizeof *ids * (n ? n : 1));
    uint32_t *mats = malloc(sizeof *mats * (n ? n : 1));
    if (!ids || !mats) {
        free(ids);
        free(mats);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (format >= 2) {
        rc = take(c, ids, (size_t)n * sizeof(uint64_t), "the particle ids", err);
    } else {
        for (size_t i = 0; i < n && !rc; ++i) {
            uint32_t id32 = 0;
            rc = take_u32(c, &id32, "the particle ids", err);
            ids[i] = id32;
        }
    }
    if (!rc) rc = take(c, mats, (size_t)n * sizeof(uint32_t), "the particle materials", err);
    for (size_t i = 0; i < n && !rc; ++i)
        if (mats[i] >= w->material_count) rc = mismatch(c->ck, err, "a particle's material is out of range");
    if (!rc && (rc = eddy_particles_set_ids(p, ids, err)))
        eddy_error_prefix(err, "checkpoint '%s': ", c->ck->path);
    if (!rc && n) {
        memcpy(p->material, mats, (size_t)n * sizeof(uint32_t));
        eddy_particles_touch(p, EDDY_FIELD_LAYOUT);
    }
    free(ids);
    free(mats);
    return rc ? rc : check_particles(c->ck, p, err);
}

int eddy_checkpoint_restore(const eddy_checkpoint *ck, eddy_sim *sim, eddy_error *err)
{
    eddy_world *w = sim->world;
    cursor c = {ck, ck->state_begin, ck->state_end};
    double time = 0;
    uint64_t step = 0, blob_size = 0;
    int rc;
    if ((rc = take(&c, &time, sizeof time, "the clock", err)) || (rc = take_u64(&c, &step, "the clock", err)) ||
        (rc = restore_colliders(&c, &w->boundaries, err)) || (rc = restore_particles(&c, w, err)) ||
        (rc = take_u64(&c, &blob_size, "the solver state", err)))
        return rc;
    if (blob_size > c.end - c.at || c.end - c.at != blob_size) return corrupt(&c, "the solver state", err);
    /* What a run's clock can read: a NaN, infinite or negative time would step with a NaN or negative
     * dt; the step count becomes a long long (--steps). */
    if (!(isfinite(time) && time >= 0))
        return invalid(ck, err, "its time t = %g s, expected a finite time >= 0", time);
    if (step > (uint64_t)LLONG_MAX)
        return invalid(ck, err, "its step count %llu, expected at most %lld", (unsigned long long)step, LLONG_MAX);
    w->time = time;
    w->step = step;
    /* plugin.h: create() and compute_fields() (eddy_sim_open), every field as saved (above), load().
     * No compute_fields() after load(): it would overwrite the restored state (sph_mueller's largest
     * acceleration, vpm_hybrid's vortex fields) and the resumed run would no longer be exact. */
    const eddy_component *sc = sim->solver_entry->component;
    const eddy_solver_vtable *v = (const eddy_solver_vtable *)sc->vtable;
    /* A solver that saves state always writes some (state.h records carry at least their tag): a
     * checkpoint without any lost it, and the solver would go on from create()'s values. */
    if (!blob_size && v->save && v->load)
        return invalid(ck, err, "it holds no solver state, but solver '%s' saves state (save/load) that a resume needs",
                       sc->id);
    if (blob_size) {
        if (!v->load)
            return eddy_error_set(err, EDDY_ERR_UNSUPPORTED,
                                  "checkpoint '%s' holds %llu bytes of solver state, but solver '%s' cannot load state",
                                  ck->path, (unsigned long long)blob_size, sc->id);
        eddy_error_clear(err);
        if ((rc = v->load(sim->solver, ck->data + c.at, (size_t)blob_size, err))) {
            eddy_services_callback_error(err, rc, "load");
            eddy_error_prefix(err, "solver '%s' cannot load the state in '%s': ", sc->id, ck->path);
            return rc;
        }
    }
    return EDDY_OK;
}
