#include <eddy/particles.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct field {
    char name[EDDY_FIELD_NAME_MAX];
    int components;
    float *data; /* components * capacity floats, component c at data + c * capacity */
} field;

struct eddy_particles_impl {
    field fields[EDDY_MAX_FIELDS];
    int field_count;
    uint32_t next_id;
    void *scratch; /* gather buffer, capacity * 4 bytes */
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
    float *pos = im->fields[EDDY_FIELD_POSITION].data;
    float *vel = im->fields[EDDY_FIELD_VELOCITY].data;
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
        f->data = aligned_alloc_zero(sizeof(float) * (size_t)components * p->capacity);
        if (!f->data)
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for field '%s'", name);
    }
    snprintf(f->name, sizeof f->name, "%s", name);
    f->components = components;
    im->field_count++;
    return EDDY_OK;
}

int eddy_particles_init(eddy_particles *p, int dimensions, eddy_error *err)
{
    if (!p) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "particles: NULL set");
    memset(p, 0, sizeof *p);
    if (dimensions != 2 && dimensions != 3)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "particles: dimensions must be 2 or 3, got %d", dimensions);
    p->dimensions = dimensions;
    p->impl = calloc(1, sizeof *p->impl);
    if (!p->impl) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
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
    memset(p, 0, sizeof *p);
}

int eddy_particles_reserve(eddy_particles *p, size_t capacity, eddy_error *err)
{
    if (capacity <= p->capacity) return EDDY_OK;
    /* A multiple of 16 floats keeps every component array of a field 64-byte aligned. */
    size_t cap = p->capacity ? p->capacity : 16;
    while (cap < capacity) cap *= 2;
    cap = (cap + 15) & ~(size_t)15;
    struct eddy_particles_impl *im = p->impl;

    float *fresh[EDDY_MAX_FIELDS] = {0};
    uint32_t *id = aligned_alloc_zero(sizeof(uint32_t) * cap);
    uint32_t *mat = aligned_alloc_zero(sizeof(uint32_t) * cap);
    void *scratch = aligned_alloc_zero(sizeof(uint32_t) * cap);
    int ok = id && mat && scratch;
    for (int f = 0; ok && f < im->field_count; ++f) {
        fresh[f] = aligned_alloc_zero(sizeof(float) * (size_t)im->fields[f].components * cap);
        ok = fresh[f] != NULL;
    }
    if (!ok) {
        for (int f = 0; f < im->field_count; ++f) free(fresh[f]);
        free(id);
        free(mat);
        free(scratch);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu particles", capacity);
    }
    for (int f = 0; f < im->field_count; ++f) {
        field *fd = &im->fields[f];
        for (int c = 0; c < fd->components && p->count; ++c)
            memcpy(fresh[f] + (size_t)c * cap, fd->data + (size_t)c * p->capacity, sizeof(float) * p->count);
        free(fd->data);
        fd->data = fresh[f];
    }
    if (p->count) {
        memcpy(id, p->id, sizeof(uint32_t) * p->count);
        memcpy(mat, p->material, sizeof(uint32_t) * p->count);
    }
    free(p->id);
    free(p->material);
    free(im->scratch);
    p->id = id;
    p->material = mat;
    im->scratch = scratch;
    p->capacity = cap;
    refresh_views(p);
    return EDDY_OK;
}

int eddy_particles_add(eddy_particles *p, size_t n, const float *positions, const float *velocities,
                       uint32_t material, size_t *first, eddy_error *err)
{
    if (n && !positions) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "particles: no positions");
    if ((uint64_t)p->impl->next_id + n > UINT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "particles: more than 2^32 ids");
    int rc = eddy_particles_reserve(p, p->count + n, err);
    if (rc) return rc;
    size_t base = p->count;
    float *pos[3] = {p->x, p->y, p->z}, *vel[3] = {p->vx, p->vy, p->vz};
    for (size_t i = 0; i < n; ++i) {
        for (int a = 0; a < 3; ++a) {
            int used = a < p->dimensions;
            pos[a][base + i] = used ? positions[3 * i + a] : 0.0f;
            vel[a][base + i] = used && velocities ? velocities[3 * i + a] : 0.0f;
        }
        p->id[base + i] = p->impl->next_id++;
        p->material[base + i] = material;
    }
    /* Fields of recycled slots (after removal) must start at zero like fresh ones. */
    struct eddy_particles_impl *im = p->impl;
    for (int f = EDDY_FIELD_DENSITY; f < im->field_count; ++f)
        for (int c = 0; c < im->fields[f].components; ++c)
            memset(im->fields[f].data + (size_t)c * p->capacity + base, 0, sizeof(float) * n);
    p->count += n;
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

float *eddy_particles_field(const eddy_particles *p, int f, int component)
{
    if (f < 0 || f >= eddy_particles_field_count(p)) return NULL;
    const field *fd = &p->impl->fields[f];
    if (component < 0 || component >= fd->components || !fd->data) return NULL;
    return fd->data + (size_t)component * p->capacity;
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
    /* One scratch array of 4-byte words serves floats and ids alike: gather into it, copy back. */
    float *tmp = im->scratch;
    const long long n = (long long)new_count;
    for (int f = 0; f < im->field_count; ++f) {
        for (int c = 0; c < im->fields[f].components; ++c) {
            float *src = im->fields[f].data + (size_t)c * p->capacity;
#pragma omp parallel for schedule(static)
            for (long long i = 0; i < n; ++i) tmp[i] = src[order[i]];
            memcpy(src, tmp, sizeof(float) * new_count);
        }
    }
    uint32_t *utmp = im->scratch;
    uint32_t *ints[2] = {p->id, p->material};
    for (int k = 0; k < 2; ++k) {
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; ++i) utmp[i] = ints[k][order[i]];
        memcpy(ints[k], utmp, sizeof(uint32_t) * new_count);
    }
    p->count = new_count;
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
    size_t n = p->count;
    /* Ids are unique and below next_id; a direct slot table gives id order without sorting. */
    size_t span = p->impl->next_id;
    uint32_t *slot = malloc(sizeof(uint32_t) * (span ? span : 1));
    if (!slot) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for state hash");
    for (size_t k = 0; k < span; ++k) slot[k] = UINT32_MAX;
    for (size_t i = 0; i < n; ++i) slot[p->id[i]] = (uint32_t)i;
    uint64_t h = 0xcbf29ce484222325ULL;
    const struct eddy_particles_impl *im = p->impl;
    for (size_t k = 0; k < span; ++k) {
        uint32_t i = slot[k];
        if (i == UINT32_MAX) continue;
        h = fnv1a(h, &p->id[i], sizeof(uint32_t));
        h = fnv1a(h, &p->material[i], sizeof(uint32_t));
        for (int f = 0; f < im->field_count; ++f)
            for (int c = 0; c < im->fields[f].components; ++c)
                h = fnv1a(h, im->fields[f].data + (size_t)c * p->capacity + i, sizeof(float));
    }
    free(slot);
    *hash = h;
    return EDDY_OK;
}
