/*
 * host/session/checkpoint.c — checkpoint files (format in checkpoint.h): writing one atomically and
 * reading one back with every byte-level check. The writer and the reader are the two sides of one
 * format and stay in one file; restoring what was read into a session is checkpoint_restore.c.
 */
#include "checkpoint_internal.h"
#include "fnv1a.h"
#include "output.h"
#include "services.h"

#include <eddy_sph/simd_path.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char MAGIC[8] = {'E', 'D', 'D', 'Y', 'C', 'K', 'P', 'T'};
static const uint32_t BYTE_ORDER_MARK = 0x01020304u;
/* magic, format, byte-order mark, payload length */
enum { HEADER_SIZE = 8 + 4 + 4 + 8, CHECKSUM_SIZE = 8 };


uint64_t eddy_checkpoint_checksum(const void *data, size_t n)
{
    return eddy_fnv1a(EDDY_FNV1A_OFFSET, data, n);
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
    /* n == 0 may come with src NULL (a process that owns no particle writes empty arrays). */
    if (n) memcpy(b->p + b->n, src, n);
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

/* A failed write names the checkpoint the user resumes from (the file it went through is gone again)
 * and says so when an earlier checkpoint of that name is still there, untouched. */
static int write_failed(const char *path, const char *through, const char *doing, int e, eddy_error *err)
{
    struct stat st;
    const int kept = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    return eddy_error_set(err, EDDY_ERR_IO, "cannot write checkpoint '%s': %s '%s': %s%s", path, doing, through,
                          strerror(e), kept ? "; the previous checkpoint there is kept unchanged" : "");
}

/* Writes the checkpoint PATH through PATH<SUFFIX>, flushed to the disk, then renamed over PATH when
 * `put_in_place` (else the caller renames it: a piece of several processes' checkpoint). */
static int write_file(const char *path, const char *suffix, int put_in_place, const buffer *b, eddy_error *err)
{
    char *through = malloc(strlen(path) + strlen(suffix) + 1);
    if (!through) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    sprintf(through, "%s%s", path, suffix);
    int rc = EDDY_OK;
    eddy_output_remove_fifo(through); /* (a FIFO left at that name blocked the open for ever) */
    FILE *f = fopen(through, "wb");
    if (!f) {
        rc = write_failed(path, through, "creating", errno, err);
    } else {
        int ok = fwrite(b->p, 1, b->n, f) == b->n && fflush(f) == 0 && fsync(fileno(f)) == 0;
        int e = errno;
        if (fclose(f) != 0 && ok) {
            ok = 0;
            e = errno;
        }
        if (!ok) {
            remove(through);
            rc = write_failed(path, through, "writing", e, err);
        } else if (put_in_place && rename(through, path) != 0) {
            e = errno;
            remove(through);
            rc = write_failed(path, through, "renaming", e, err);
        }
    }
    free(through);
    return rc;
}

static int write_checkpoint(const char *dir, const char *name, int piece, const eddy_sim *sim,
                            const cJSON *settings, eddy_error *err);

int eddy_checkpoint_write(const char *dir, const eddy_sim *sim, const cJSON *settings, eddy_error *err)
{
    return write_checkpoint(dir, EDDY_CHECKPOINT_FILE, 0, sim, settings, err);
}

int eddy_checkpoint_write_piece(const char *dir, const char *name, const eddy_sim *sim, const cJSON *settings,
                                eddy_error *err)
{
    return write_checkpoint(dir, name, 1, sim, settings, err);
}

int checkpoint_particle_fault(const eddy_particles *p, char *fault, size_t n)
{
    static const char *const NAMES[] = {"position", "velocity", "density", "pressure", "mass"};
    static const char AXES[3] = {'x', 'y', 'z'};
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
                snprintf(fault, n, "particle %zu (id %llu): %s is %g, expected %s", i, (unsigned long long)p->id[i],
                         name, (double)v[i],
                         f == EDDY_FIELD_MASS ? "a finite number > 0"
                         : flat               ? "0 in 2D"
                                              : "a finite number");
                return 1;
            }
        }
    }
    return 0;
}

static int write_checkpoint(const char *dir, const char *name, int piece, const eddy_sim *sim,
                            const cJSON *settings, eddy_error *err)
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
    /* A state no resume would take (a step that blew up, a NaN a coupling program wrote) must not
     * replace the checkpoint before it: a caller that checkpoints into one folder after every step
     * would be left with nothing to go back to. */
    char fault[160];
    if (checkpoint_particle_fault(&w->particles, fault, sizeof fault))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "cannot write a checkpoint of this state at step %llu (t = %.6g s), which no resume "
                              "would take: %s; the folder's previous checkpoint, if any, is kept",
                              (unsigned long long)w->step, w->time, fault);
    if (v->save) {
        eddy_error_clear(err);
        rc = v->save(sim->solver, &blob, &blob_size, err);
        if (rc) {
            eddy_services_callback_error(err, rc, "save");
            eddy_error_prefix(err, "solver '%s' cannot save its state: ", sc->id);
            return rc;
        }
        /* Either would be refused by the resume, long after the run: said now, naming the callback. */
        if (!blob || !blob_size) {
            free(blob);
            return eddy_error_set(err, EDDY_ERR_PLUGIN,
                                  "solver '%s' cannot save its state: save() returned success with an empty record; "
                                  "it must store at least a tag (eddy_state_save_floats), or a resume takes the "
                                  "state for lost", sc->id);
        }
        /* (a solver with save() but no load() is refused when its plugin is loaded, registry.c) */
    }
    cJSON *all = cJSON_Duplicate(settings, 1);
    /* The vector path the neighbour loops took: another rounds their sums differently, so a resume on it
     * is not bit-identical to the run (eddy_session_restore says so). A bad EDDY_SIMD stopped the run's
     * solver before any checkpoint; none is stored then. */
    eddy_sph_simd simd;
    eddy_error ignored;
    if (all && !eddy_sph_simd_select(&simd, &ignored)) {
        cJSON_DeleteItemFromObjectCaseSensitive(all, "simd");
        if (!cJSON_AddStringToObject(all, "simd", eddy_sph_simd_name(simd))) {
            cJSON_Delete(all);
            all = NULL;
        }
    }
    /* The gravity stepped with, which a program may have changed between steps (session API): a resume
     * takes it over the scene's. Floats print exactly in cJSON's 17 digits. */
    if (all) {
        const double g[3] = {w->gravity[0], w->gravity[1], w->gravity[2]};
        cJSON_DeleteItemFromObjectCaseSensitive(all, "gravity");
        cJSON *ga = cJSON_CreateDoubleArray(g, 3);
        if (!ga || !cJSON_AddItemToObject(all, "gravity", ga)) {
            cJSON_Delete(ga);
            cJSON_Delete(all);
            all = NULL;
        }
    }
    /* time.min_dt_fraction's scale goes on in a resume, so that a resumed run stops where the run
     * without the break would (sim.h). */
    if (all && sim->first_dt > 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(all, "first_dt");
        if (!cJSON_AddNumberToObject(all, "first_dt", sim->first_dt)) {
            cJSON_Delete(all);
            all = NULL;
        }
    }
    /* The run's identity: a resume in another run's folder is told by it (run_record.h). */
    if (all && sim->run_id[0]) {
        cJSON_DeleteItemFromObjectCaseSensitive(all, "run_id");
        if (!cJSON_AddStringToObject(all, "run_id", sim->run_id)) {
            cJSON_Delete(all);
            all = NULL;
        }
    }
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
        put_u64(&b, eddy_checkpoint_checksum(b.p, b.n));
        char *path = join_path(dir, name);
        rc = !path || b.failed ? eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory")
                               : piece ? write_file(path, EDDY_CHECKPOINT_PIECE_STAGED, 0, &b, err)
                                       : write_file(path, ".tmp", 1, &b, err);
        free(path);
    }
    free(b.p);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* Reading: every section is bounds-checked against the payload                                      */

int checkpoint_corrupt(const cursor *c, const char *what, eddy_error *err)
{
    return eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint '%s' is corrupt: %s does not fit", c->ck->path, what);
}

int checkpoint_take(cursor *c, void *dst, size_t n, const char *what, eddy_error *err)
{
    if (n > c->end - c->at) return checkpoint_corrupt(c, what, err);
    if (dst) memcpy(dst, c->ck->data + c->at, n);
    c->at += n;
    return EDDY_OK;
}

int checkpoint_take_u32(cursor *c, uint32_t *v, const char *what, eddy_error *err)
{
    return checkpoint_take(c, v, sizeof *v, what, err);
}

int checkpoint_take_u64(cursor *c, uint64_t *v, const char *what, eddy_error *err)
{
    return checkpoint_take(c, v, sizeof *v, what, err);
}

int checkpoint_fopen_regular(const char *path, FILE **out)
{
    *out = NULL;
    /* Without blocking: open() of a FIFO for reading waits for a writer, for good. */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 1;
    }
    const int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        const int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    *out = f;
    return 0;
}

int checkpoint_read_stream(FILE *f, size_t max, unsigned char **data, size_t *size)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *p = malloc(cap);
    if (!p) return EDDY_ERR_OUT_OF_MEMORY;
    for (;;) {
        if (n + 1 == cap) {
            if (n > max) break;
            unsigned char *q = realloc(p, cap * 2);
            if (!q) {
                free(p);
                return EDDY_ERR_OUT_OF_MEMORY;
            }
            p = q;
            cap *= 2;
        }
        const size_t want = cap - 1 - n, got = fread(p + n, 1, want, f);
        n += got;
        if (got < want) {
            if (!ferror(f)) break;
            const int e = errno;
            free(p);
            errno = e;
            return EDDY_ERR_IO;
        }
    }
    *data = p;
    *size = n;
    return EDDY_OK;
}

static int read_all(const char *path, unsigned char **data, size_t *size, eddy_error *err)
{
    /* eddy writes checkpoints as regular files; a device (a link to /dev/zero) would be read forever,
     * and a FIFO would block the open itself. */
    FILE *f;
    const int opened = checkpoint_fopen_regular(path, &f);
    if (opened > 0)
        return eddy_error_set(err, EDDY_ERR_PARSE, "'%s' is not a regular file, so not an eddy checkpoint", path);
    if (opened < 0) {
        if (errno == ENOENT)
            return eddy_error_set(err, EDDY_ERR_NOT_FOUND,
                                  "no checkpoint '%s' (eddy run writes one when it ends, is interrupted, or "
                                  "every --checkpoint-every seconds; eddy compare and eddy validate write none: "
                                  "run the scene with eddy run --solver ID to continue it)", path);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot read checkpoint '%s': %s", path, strerror(errno));
    }
    const int rc = checkpoint_read_stream(f, SIZE_MAX / 2, data, size);
    fclose(f);
    if (rc == EDDY_ERR_OUT_OF_MEMORY) return eddy_error_set(err, rc, "out of memory reading '%s'", path);
    if (rc) return eddy_error_set(err, rc, "cannot read checkpoint '%s'", path);
    return EDDY_OK;
}

static int verify(eddy_checkpoint *ck, eddy_error *err)
{
    const char *path = ck->path;
    const size_t head = ck->size < sizeof MAGIC ? ck->size : sizeof MAGIC;
    /* (an empty file is what a copy onto a full disk leaves, not a foreign file) */
    if (ck->size == 0) return eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint '%s' is empty (0 bytes)", path);
    if (memcmp(ck->data, MAGIC, head) != 0)
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
    if (format < EDDY_CHECKPOINT_FORMAT_V1 || format > EDDY_CHECKPOINT_FORMAT)
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "checkpoint '%s' has format version %u; this eddy reads versions %u to %u", path,
                              (unsigned)format, (unsigned)EDDY_CHECKPOINT_FORMAT_V1,
                              (unsigned)EDDY_CHECKPOINT_FORMAT);
    ck->format = format;
    const uint64_t expected = (uint64_t)HEADER_SIZE + payload + CHECKSUM_SIZE;
    if (payload > ck->size || expected > ck->size)
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "checkpoint '%s' is truncated: %zu bytes, its header says %llu", path, ck->size,
                              (unsigned long long)expected);
    /* (a longer file is not a truncated one: bytes were appended, or the header's size was damaged) */
    if (expected != ck->size)
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "checkpoint '%s' is corrupt: %zu bytes, %llu more than its header says (%llu); "
                              "the file was changed or damaged",
                              path, ck->size, (unsigned long long)(ck->size - expected),
                              (unsigned long long)expected);
    uint64_t stored;
    memcpy(&stored, ck->data + ck->size - CHECKSUM_SIZE, CHECKSUM_SIZE);
    if (eddy_checkpoint_checksum(ck->data, ck->size - CHECKSUM_SIZE) != stored)
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "checkpoint '%s' is corrupt: checksum mismatch (the file was changed or damaged)",
                              path);
    cursor c = {ck, HEADER_SIZE, ck->size - CHECKSUM_SIZE};
    uint32_t len = 0;
    int rc = checkpoint_take_u32(&c, &len, "the settings text", err);
    if (rc) return rc;
    if (len > c.end - c.at) return checkpoint_corrupt(&c, "the settings text", err);
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
    return eddy_checkpoint_read_named(dir, EDDY_CHECKPOINT_FILE, out, err);
}

int eddy_checkpoint_read_named(const char *dir, const char *name, eddy_checkpoint **out, eddy_error *err)
{
    *out = NULL;
    eddy_checkpoint *ck = calloc(1, sizeof *ck);
    if (!ck || !(ck->path = join_path(dir, name))) {
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

int eddy_checkpoint_peek(const char *path, double *time, uint64_t *step, cJSON **settings, eddy_error *err)
{
    *settings = NULL;
    FILE *f;
    const int opened = checkpoint_fopen_regular(path, &f);
    if (opened > 0)
        return eddy_error_set(err, EDDY_ERR_PARSE, "'%s' is not a regular file, so not an eddy checkpoint", path);
    if (opened < 0) return eddy_error_set(err, EDDY_ERR_IO, "cannot read checkpoint '%s': %s", path, strerror(errno));
    unsigned char head[HEADER_SIZE + 4];
    uint32_t format = 0, bom = 0, len = 0;
    int rc = fread(head, 1, sizeof head, f) == sizeof head ? EDDY_OK : EDDY_ERR_PARSE;
    if (!rc) {
        memcpy(&format, head + 8, 4);
        memcpy(&bom, head + 12, 4);
        memcpy(&len, head + HEADER_SIZE, 4);
        if (memcmp(head, MAGIC, sizeof MAGIC) != 0 || bom != BYTE_ORDER_MARK || format < EDDY_CHECKPOINT_FORMAT_V1 ||
            format > EDDY_CHECKPOINT_FORMAT || len > (1u << 30))
            rc = EDDY_ERR_PARSE;
        /* A length the file cannot hold is refused before it is allocated (up to 1 GiB for nothing). */
        struct stat st;
        if (!rc && fstat(fileno(f), &st) == 0 &&
            (uintmax_t)len + sizeof head + 16 > (uintmax_t)(st.st_size > 0 ? st.st_size : 0))
            rc = EDDY_ERR_PARSE;
    }
    char *text = rc ? NULL : malloc((size_t)len + 1);
    unsigned char clock[16];
    if (!rc && (!text || fread(text, 1, len, f) != len || fread(clock, 1, sizeof clock, f) != sizeof clock))
        rc = text ? EDDY_ERR_PARSE : EDDY_ERR_OUT_OF_MEMORY;
    fclose(f);
    if (!rc) {
        memcpy(time, clock, 8);
        memcpy(step, clock + 8, 8);
        *settings = cJSON_ParseWithLength(text, len);
        if (!cJSON_IsObject(*settings)) rc = EDDY_ERR_PARSE;
    }
    free(text);
    if (rc) {
        cJSON_Delete(*settings);
        *settings = NULL;
        return rc == EDDY_ERR_OUT_OF_MEMORY ? eddy_error_set(err, rc, "out of memory")
                                            : eddy_error_set(err, rc, "'%s' is not a readable eddy checkpoint", path);
    }
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

int eddy_checkpoint_piece_name_ending(const char *name, const char *tail)
{
    if (strncmp(name, "checkpoint.p", 12) != 0) return 0;
    const char *p = name + 12, *d = p;
    while (isdigit((unsigned char)*p)) ++p;
    return p > d && strcmp(p, tail) == 0;
}

void eddy_checkpoint_remove_stale_pieces(const char *dir, int keep)
{
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!eddy_checkpoint_piece_name_ending(e->d_name, ".eddy") || atol(e->d_name + 12) < keep) continue;
        eddy_output_remove_in(dir, e->d_name);
    }
    closedir(d);
}
