#include <eddy/particles.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct field {
    char name[EDDY_FIELD_NAME_MAX];
    int components;
    eddy_real *data;     /* components * capacity reals, component c at data + c * capacity */
    uint64_t generation; /* edits from outside the solver; 1 when registered */
} field;

struct eddy_particles_impl {
    field fields[EDDY_MAX_FIELDS];
    int field_count;
    uint64_t next_id;      /* the next id eddy_particles_add issues */
    int ids_exhausted;     /* an id of UINT64_MAX was set: no further id can be issued */
    uint64_t layout_generation;
    void *scratch; /* gather buffer, capacity * 8 bytes */
};

static void *aligned_alloc_zero(size_t bytes)
{
    if (bytes == 0) bytes = EDDY_ALIGNMENT;
    bytes = (bytes + EDDY_ALIGNMENT - 1) / EDDY_ALIGNMENT * EDDY_ALIGNMENT;
    void *p = aligned_alloc(EDDY_ALIGNMENT, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

/* Public pointers are views into the field table; refresh them after any reallocation. */
static void refresh_views(eddy_particles *p)
{
    struct eddy_particles_impl *im = p->impl;
    size_t cap = p->capacity;
    eddy_real *pos = im->fields[EDDY_FIELD_POSITION].data;
    eddy_real *vel = im->fields[EDDY_FIELD_VELOCITY].data;
    p->x = pos;
    p->y = pos ? pos + cap : NULL;
    p->z = pos ? pos + 2 * cap : NULL;
    p->vx = vel;
    p->vy = vel ? vel + cap : NULL;
    p->vz = vel ? vel + 2 * cap : NULL;
    p->density = im->fields[EDDY_FIELD_DENSITY].data;
    p->pressure = im->fields[EDDY_FIELD_PRESSURE].data;
    p->mass = im->fields[EDDY_FIELD_MASS].data;
}

static int valid_name(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n >= EDDY_FIELD_NAME_MAX) return 0;
    for (size_t i = 0; i < n; ++i) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return 0;
    }
    return 1;
}

static int add_field_storage(eddy_particles *p, const char *name, int components, eddy_error *err)
{
    struct eddy_particles_impl *im = p->impl;
    if (im->field_count >= EDDY_MAX_FIELDS)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "cannot register field '%s': at most %d fields", name, EDDY_MAX_FIELDS);
    field *f = &im->fields[im->field_count];
    f->data = NULL;
    if (p->capacity) {
        f->data = aligned_alloc_zero(sizeof(eddy_real) * (size_t)components * p->capacity);
        if (!f->data)
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for field '%s'", name);
    }
    snprintf(f->name, sizeof f->name, "%s", name);
    f->components = components;
    f->generation = 1;
    im->field_count++;
    return EDDY_OK;
}

int eddy_particles_init(eddy_particles *p, int dimensions, eddy_error *err)
{
    if (!p) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "particles: NULL set");
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    if (dimensions != 2 && dimensions != 3)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "particles: dimensions must be 2 or 3, got %d", dimensions);
    p->dimensions = dimensions;
    p->impl = calloc(1, sizeof *p->impl);
    if (!p->impl) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    p->impl->layout_generation = 1;
    static const struct { const char *name; int components; } builtin[EDDY_BUILTIN_FIELD_COUNT] = {
        {"position", 3}, {"velocity", 3}, {"density", 1}, {"pressure", 1}, {"mass", 1}};
    for (int i = 0; i < EDDY_BUILTIN_FIELD_COUNT; ++i) {
        int rc = add_field_storage(p, builtin[i].name, builtin[i].components, err);
        if (rc) { eddy_particles_free(p); return rc; }
    }
    refresh_views(p);
    return EDDY_OK;
}

void eddy_particles_free(eddy_particles *p)
{
    if (!p) return;
    if (p->impl) {
        for (int i = 0; i < p->impl->field_count; ++i) free(p->impl->fields[i].data);
        free(p->impl->scratch);
        free(p->impl);
    }
    free(p->id);
    free(p->material);
    free(p->flags);
    memset(p, 0, sizeof *p);
}

int eddy_particles_reserve(eddy_particles *p, size_t capacity, eddy_error *err)
{
    if (capacity <= p->capacity) return EDDY_OK;
    /* A multiple of 16 reals keeps every component array of a field 64-byte aligned. */
    size_t cap = p->capacity ? p->capacity : 16;
    while (cap < capacity) cap *= 2;
    cap = (cap + 15) & ~(size_t)15;
    struct eddy_particles_impl *im = p->impl;

    eddy_real *fresh[EDDY_MAX_FIELDS] = {0};
    uint64_t *id = aligned_alloc_zero(sizeof(uint64_t) * cap);
    uint32_t *mat = aligned_alloc_zero(sizeof(uint32_t) * cap);
    uint8_t *flags = aligned_alloc_zero(sizeof(uint8_t) * cap);
    void *scratch = aligned_alloc_zero(sizeof(uint64_t) * cap);
    int ok = id && mat && flags && scratch;
    for (int f = 0; ok && f < im->field_count; ++f) {
        fresh[f] = aligned_alloc_zero(sizeof(eddy_real) * (size_t)im->fields[f].components * cap);
        ok = fresh[f] != NULL;
    }
    if (!ok) {
        for (int f = 0; f < im->field_count; ++f) free(fresh[f]);
        free(id);
        free(mat);
        free(flags);
        free(scratch);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu particles", capacity);
    }
    for (int f = 0; f < im->field_count; ++f) {
        field *fd = &im->fields[f];
        for (int c = 0; c < fd->components && p->count; ++c)
            memcpy(fresh[f] + (size_t)c * cap, fd->data + (size_t)c * p->capacity,
                   sizeof(eddy_real) * p->count);
        free(fd->data);
        fd->data = fresh[f];
    }
    if (p->count) {
        memcpy(id, p->id, sizeof(uint64_t) * p->count);
        memcpy(mat, p->material, sizeof(uint32_t) * p->count);
        memcpy(flags, p->flags, sizeof(uint8_t) * p->count);
    }
    free(p->id);
    free(p->material);
    free(p->flags);
    free(im->scratch);
    p->id = id;
    p->material = mat;
    p->flags = flags;
    im->scratch = scratch;
    p->capacity = cap;
    refresh_views(p);
    return EDDY_OK;
}

int eddy_particles_add(eddy_particles *p, size_t n, const eddy_real *positions, const eddy_real *velocities,
                       uint32_t material, size_t *first, eddy_error *err)
{
    if (n && !positions) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "particles: no positions");
    struct eddy_particles_impl *im = p->impl;
    if (n && (im->ids_exhausted || (uint64_t)n - 1 > UINT64_MAX - im->next_id))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "particles: cannot issue %zu more ids after id %" PRIu64 " (ids are 64-bit)", n,
                              im->ids_exhausted ? UINT64_MAX : im->next_id);
    int rc = eddy_particles_reserve(p, p->count + n, err);
    if (rc) return rc;
    size_t base = p->count;
    eddy_real *pos[3] = {p->x, p->y, p->z}, *vel[3] = {p->vx, p->vy, p->vz};
    for (size_t i = 0; i < n; ++i) {
        for (int a = 0; a < 3; ++a) {
            int used = a < p->dimensions;
            pos[a][base + i] = used ? positions[3 * i + a] : 0.0f;
            vel[a][base + i] = used && velocities ? velocities[3 * i + a] : 0.0f;
        }
        p->id[base + i] = im->next_id;
        if (im->next_id == UINT64_MAX) im->ids_exhausted = 1; /* the last id there is */
        else im->next_id++;
        p->material[base + i] = material;
        p->flags[base + i] = 0;
    }
    /* Fields of recycled slots (after removal) must start at zero like fresh ones. (Adding none to an
     * empty set: the arrays may not exist yet, and memset of NULL is undefined even for 0 bytes.) */
    for (int f = EDDY_FIELD_DENSITY; n && f < im->field_count; ++f)
        for (int c = 0; c < im->fields[f].components; ++c)
            memset(im->fields[f].data + (size_t)c * p->capacity + base, 0, sizeof(eddy_real) * n);
    p->count += n;
    if (n) im->layout_generation++;
    if (first) *first = base;
    return EDDY_OK;
}

int eddy_particles_add_field(eddy_particles *p, const char *name, int components, int *out,
                             eddy_error *err)
{
    if (!valid_name(name))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "field name '%s' is not 1 to %d characters of [a-z0-9_]",
                              name ? name : "(null)", EDDY_FIELD_NAME_MAX - 1);
    if (components < 1 || components > EDDY_FIELD_MAX_COMPONENTS)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "field '%s': component count must be 1 to %d, got %d", name,
                              EDDY_FIELD_MAX_COMPONENTS, components);
    int existing = eddy_particles_find_field(p, name);
    if (existing >= 0) {
        if (p->impl->fields[existing].components != components)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "field '%s' already exists with %d components, not %d", name,
                                  p->impl->fields[existing].components, components);
        if (out) *out = existing;
        return EDDY_OK;
    }
    int rc = add_field_storage(p, name, components, err);
    if (rc) return rc;
    if (out) *out = p->impl->field_count - 1;
    return EDDY_OK;
}

int eddy_particles_find_field(const eddy_particles *p, const char *name)
{
    if (!p || !p->impl || !name) return -1;
    for (int i = 0; i < p->impl->field_count; ++i)
        if (strcmp(p->impl->fields[i].name, name) == 0) return i;
    return -1;
}

int eddy_particles_field_count(const eddy_particles *p)
{
    return p && p->impl ? p->impl->field_count : 0;
}

const char *eddy_particles_field_name(const eddy_particles *p, int f)
{
    if (f < 0 || f >= eddy_particles_field_count(p)) return NULL;
    return p->impl->fields[f].name;
}

int eddy_particles_field_components(const eddy_particles *p, int f)
{
    if (f < 0 || f >= eddy_particles_field_count(p)) return 0;
    return p->impl->fields[f].components;
}

eddy_real *eddy_particles_field(const eddy_particles *p, int f, int component)
{
    if (f < 0 || f >= eddy_particles_field_count(p)) return NULL;
    const field *fd = &p->impl->fields[f];
    if (component < 0 || component >= fd->components || !fd->data) return NULL;
    return fd->data + (size_t)component * p->capacity;
}

uint64_t eddy_particles_generation(const eddy_particles *p, int f)
{
    if (!p || !p->impl) return 0;
    if (f == EDDY_FIELD_LAYOUT) return p->impl->layout_generation;
    if (f < 0 || f >= p->impl->field_count) return 0;
    return p->impl->fields[f].generation;
}

void eddy_particles_touch(eddy_particles *p, int f)
{
    if (!p || !p->impl) return;
    if (f == EDDY_FIELD_LAYOUT) p->impl->layout_generation++;
    else if (f >= 0 && f < p->impl->field_count) p->impl->fields[f].generation++;
}

/* Sorts `keys` ascending, carrying `vals` along (LSD radix sort, 8-bit digits, only over the bytes
 * that differ), using `tk`/`tv` of the same length as scratch. Stable; O(n) per byte. */
static void radix_sort_u64(uint64_t *keys, uint32_t *vals, uint64_t *tk, uint32_t *tv, size_t n)
{
    if (n < 2) return;
    uint64_t all_or = 0, all_and = UINT64_MAX;
    for (size_t i = 0; i < n; ++i) {
        all_or |= keys[i];
        all_and &= keys[i];
    }
    const uint64_t varying = all_or ^ all_and;
    for (int shift = 0; shift < 64; shift += 8) {
        if (((varying >> shift) & 0xff) == 0) continue; /* every key has the same byte here */
        size_t count[257] = {0};
        for (size_t i = 0; i < n; ++i) count[((keys[i] >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; ++b) count[b + 1] += count[b];
        for (size_t i = 0; i < n; ++i) {
            size_t o = count[(keys[i] >> shift) & 0xff]++;
            tk[o] = keys[i];
            tv[o] = vals[i];
        }
        memcpy(keys, tk, sizeof *keys * n);
        memcpy(vals, tv, sizeof *vals * n);
    }
}

/* Indices of the owned particles (halo copies left out) in increasing id order, in a malloc'ed
 * array of *count entries. A set whose ids are dense (the usual case: ids issued by add) gets them
 * from a slot table; sparse ids (migrated, restored, or >= 2^32) by a radix sort. On duplicate ids
 * *dup receives one of them and the function returns NULL with *count = 0. */
static uint32_t *owned_in_id_order(const eddy_particles *p, size_t *count, int *dup, uint64_t *dup_id)
{
    const size_t n = p->count;
    *dup = 0;
    size_t owned = 0;
    uint64_t min_id = UINT64_MAX, max_id = 0;
    for (size_t i = 0; i < n; ++i) {
        if (p->flags[i] & EDDY_PARTICLE_HALO) continue;
        ++owned;
        if (p->id[i] > max_id) max_id = p->id[i];
        if (p->id[i] < min_id) min_id = p->id[i];
    }
    *count = owned;
    uint32_t *order = malloc(sizeof(uint32_t) * (owned ? owned : 1));
    if (!order) return NULL;
    if (owned == 0) return order;
    /* Slots from the smallest id: a process holding one id range of a large run (the hash in pieces,
     * eddy_particles_hash_continue) needs O(its particles), not O(the largest id). */
    if (max_id - min_id < 4 * (uint64_t)owned + 1024) {
        const size_t span = (size_t)(max_id - min_id) + 1;
        uint32_t *slot = malloc(sizeof(uint32_t) * span);
        if (!slot) {
            free(order);
            return NULL;
        }
        for (size_t k = 0; k < span; ++k) slot[k] = UINT32_MAX;
        for (size_t i = 0; i < n; ++i) {
            if (p->flags[i] & EDDY_PARTICLE_HALO) continue;
            if (slot[p->id[i] - min_id] != UINT32_MAX) {
                *dup = 1;
                *dup_id = p->id[i];
            }
            slot[p->id[i] - min_id] = (uint32_t)i;
        }
        size_t k = 0;
        for (size_t s = 0; s < span && !*dup; ++s)
            if (slot[s] != UINT32_MAX) order[k++] = slot[s];
        free(slot);
    } else {
        uint64_t *keys = malloc(sizeof(uint64_t) * owned * 2);
        uint32_t *tv = malloc(sizeof(uint32_t) * owned);
        if (!keys || !tv) {
            free(keys);
            free(tv);
            free(order);
            return NULL;
        }
        size_t k = 0;
        for (size_t i = 0; i < n; ++i) {
            if (p->flags[i] & EDDY_PARTICLE_HALO) continue;
            keys[k] = p->id[i];
            order[k++] = (uint32_t)i;
        }
        radix_sort_u64(keys, order, keys + owned, tv, owned);
        for (size_t i = 1; i < owned && !*dup; ++i)
            if (keys[i] == keys[i - 1]) {
                *dup = 1;
                *dup_id = keys[i];
            }
        free(keys);
        free(tv);
    }
    if (*dup) {
        free(order);
        *count = 0;
        return NULL;
    }
    return order;
}

int eddy_particles_set_ids(eddy_particles *p, const uint64_t *ids, eddy_error *err)
{
    const size_t n = p->count;
    if (n && !ids) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "particles: set_ids without ids");
    if (n == 0) return EDDY_OK;
    /* Uniqueness by sorting a copy: O(n) passes of a radix sort, not a pairwise scan. */
    uint64_t *keys = malloc(sizeof(uint64_t) * n * 2);
    uint32_t *vals = malloc(sizeof(uint32_t) * n * 2);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "particles: out of memory for %zu ids", n);
    }
    for (size_t i = 0; i < n; ++i) {
        keys[i] = ids[i];
        vals[i] = (uint32_t)i;
    }
    radix_sort_u64(keys, vals, keys + n, vals + n, n);
    for (size_t i = 1; i < n; ++i)
        if (keys[i] == keys[i - 1]) {
            /* Name the first two particles (by index) that share the id. */
            uint32_t a = vals[i - 1], b = vals[i];
            uint64_t dup = keys[i];
            free(keys);
            free(vals);
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "particles: id %" PRIu64 " is given twice (particles %u and %u); ids must be "
                                  "unique",
                                  dup, (unsigned)(a < b ? a : b), (unsigned)(a < b ? b : a));
        }
    const uint64_t max_id = keys[n - 1];
    free(keys);
    free(vals);
    memcpy(p->id, ids, sizeof(uint64_t) * n);
    struct eddy_particles_impl *im = p->impl;
    if (max_id == UINT64_MAX) im->ids_exhausted = 1;
    else if (max_id + 1 > im->next_id) im->next_id = max_id + 1;
    im->layout_generation++;
    return EDDY_OK;
}

int eddy_particles_gather(eddy_particles *p, const uint32_t *order, size_t new_count, eddy_error *err)
{
    if (new_count > p->count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "gather: %zu > %zu particles", new_count,
                              p->count);
    for (size_t i = 0; i < new_count; ++i)
        if (order[i] >= p->count)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "gather: index %u out of range",
                                  (unsigned)order[i]);
    struct eddy_particles_impl *im = p->impl;
    /* Nothing kept: a set that never had storage has NULL arrays, which memcpy may not be given even
     * for 0 bytes (C17 7.24.1). */
    if (new_count == 0) {
        p->count = 0;
        p->halo_count = 0;
        im->layout_generation++;
        return EDDY_OK;
    }
    /* One scratch array of capacity 8-byte words serves reals, ids, materials and flags alike: gather
     * into it, copy back. */
    eddy_real *tmp = im->scratch;
    const long long n = (long long)new_count;
    for (int f = 0; f < im->field_count; ++f) {
        for (int c = 0; c < im->fields[f].components; ++c) {
            eddy_real *src = im->fields[f].data + (size_t)c * p->capacity;
#pragma omp parallel for schedule(static)
            for (long long i = 0; i < n; ++i) tmp[i] = src[order[i]];
            memcpy(src, tmp, sizeof(eddy_real) * new_count);
        }
    }
    uint64_t *itmp = im->scratch;
    {
        uint64_t *ids = p->id;
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; ++i) itmp[i] = ids[order[i]];
        memcpy(ids, itmp, sizeof(uint64_t) * new_count);
    }
    uint32_t *utmp = im->scratch;
    {
        uint32_t *mat = p->material;
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; ++i) utmp[i] = mat[order[i]];
        memcpy(mat, utmp, sizeof(uint32_t) * new_count);
    }
    uint8_t *btmp = im->scratch;
    size_t halo = 0;
    {
        uint8_t *flags = p->flags;
#pragma omp parallel for schedule(static) reduction(+ : halo)
        for (long long i = 0; i < n; ++i) {
            btmp[i] = flags[order[i]];
            halo += (btmp[i] & EDDY_PARTICLE_HALO) != 0;
        }
        memcpy(flags, btmp, sizeof(uint8_t) * new_count);
    }
    p->count = new_count;
    p->halo_count = halo;
    im->layout_generation++;
    return EDDY_OK;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; ++i) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

int eddy_particles_hash(const eddy_particles *p, uint64_t *hash, eddy_error *err)
{
    uint64_t h = EDDY_PARTICLES_HASH_INIT;
    int rc = eddy_particles_hash_continue(p, &h, err);
    if (!rc) *hash = h;
    return rc;
}

int eddy_particles_hash_continue(const eddy_particles *p, uint64_t *hash, eddy_error *err)
{
    size_t owned = 0;
    int dup = 0;
    uint64_t dup_id = 0;
    uint32_t *order = owned_in_id_order(p, &owned, &dup, &dup_id);
    if (dup) {
        free(order);
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "state hash: id %" PRIu64 " occurs twice", dup_id);
    }
    if (!order) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for state hash");
    uint64_t h = *hash;
    const struct eddy_particles_impl *im = p->impl;
    for (size_t k = 0; k < owned; ++k) {
        const uint32_t i = order[k];
        const uint64_t id = p->id[i];
        /* ABI 1.x hashed a uint32_t id: ids below 2^32 - 1 enter as those 4 bytes, so its states hash
         * as they did; any other id as the escape 0xffffffff and its 8 bytes. */
        if (id < UINT32_MAX) {
            const uint32_t id32 = (uint32_t)id;
            h = fnv1a(h, &id32, sizeof id32);
        } else {
            const uint32_t escape = UINT32_MAX;
            h = fnv1a(h, &escape, sizeof escape);
            h = fnv1a(h, &id, sizeof id);
        }
        h = fnv1a(h, &p->material[i], sizeof(uint32_t));
        for (int f = 0; f < im->field_count; ++f)
            for (int c = 0; c < im->fields[f].components; ++c)
                h = fnv1a(h, im->fields[f].data + (size_t)c * p->capacity + i, sizeof(eddy_real));
    }
    free(order);
    *hash = h;
    return EDDY_OK;
}
