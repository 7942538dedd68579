#include "snapshot.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *eddy_staging_alloc(size_t bytes)
{
    /* aligned_alloc wants a multiple of the alignment. */
    size_t n = (bytes + 63) / 64 * 64;
    return aligned_alloc(64, n ? n : 64);
}

void eddy_staging_free(void *p)
{
    free(p);
}

static void clock_of(const eddy_frame *f, eddy_snapshot *s)
{
    s->index = f->index;
    s->time = f->time;
    s->step = f->step;
    s->count = f->count;
    s->simulation_scale = f->world->simulation_scale;
}

/* The field table (names copied, so that a copy outlives any change to the world's table). */
static size_t fields_of(const eddy_particles *p, eddy_snapshot *s)
{
    size_t components = 0;
    s->field_count = eddy_particles_field_count(p) - EDDY_BUILTIN_FIELD_COUNT;
    for (int k = 0; k < s->field_count; ++k) {
        eddy_snapshot_field *d = &s->fields[k];
        const int id = EDDY_BUILTIN_FIELD_COUNT + k;
        snprintf(d->name, sizeof d->name, "%s", eddy_particles_field_name(p, id));
        d->components = eddy_particles_field_components(p, id);
        for (int c = 0; c < d->components; ++c) d->data[c] = eddy_particles_field(p, id, c);
        components += (size_t)d->components;
    }
    return components;
}

void eddy_snapshot_view(const eddy_frame *f, eddy_snapshot *s)
{
    memset(s, 0, offsetof(eddy_snapshot, fields));
    s->block = NULL;
    s->block_bytes = 0;
    const eddy_particles *p = &f->world->particles;
    clock_of(f, s);
    s->order = f->order;
    s->id = p->id;
    s->material = p->material;
    s->x = p->x, s->y = p->y, s->z = p->z;
    s->vx = p->vx, s->vy = p->vy, s->vz = p->vz;
    s->density = p->density;
    s->pressure = p->pressure;
    fields_of(p, s);
}

/* Each array of a copy starts on a 64-byte boundary of the block. */
static size_t round64(size_t n)
{
    return (n + 63) / 64 * 64;
}

int eddy_snapshot_copy(const eddy_frame *f, int particles, eddy_snapshot *s, eddy_error *err)
{
    const eddy_particles *p = &f->world->particles;
    void *block = s->block;
    const size_t block_bytes = s->block_bytes;
    memset(s, 0, offsetof(eddy_snapshot, fields));
    s->block = block;
    s->block_bytes = block_bytes;
    clock_of(f, s);
    /* x y z vx vy vz density pressure, and the registered fields' components */
    const size_t components = 8 + fields_of(p, s);
    const int nfields = s->field_count;
    if (!particles) {
        /* Nothing here may point into the world: the writer thread reads it while the world steps. */
        s->count = 0;
        for (int k = 0; k < nfields; ++k) memset(s->fields[k].data, 0, sizeof s->fields[k].data);
        return EDDY_OK;
    }
    const size_t n = p->count, owned = f->count;
    const size_t bytes = round64(owned * sizeof(uint32_t)) + round64(n * sizeof(uint64_t)) +
                         round64(n * sizeof(uint32_t)) + components * round64(n * sizeof(float));
    if (bytes > s->block_bytes || !s->block) { /* a block even for 0 bytes: `at` below is never NULL */
        eddy_staging_free(s->block);
        s->block_bytes = 0;
        if (!(s->block = eddy_staging_alloc(bytes))) {
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY,
                                  "frame %llu: out of memory for the output staging buffers (%zu bytes)",
                                  (unsigned long long)f->index, bytes);
        }
        s->block_bytes = bytes;
    }
    char *at = s->block;
#define TAKE(dst, src, type, len)                                                                                    \
    do {                                                                                                             \
        type *d_ = (type *)(void *)at;                                                                               \
        if (len) memcpy(d_, (src), (len) * sizeof(type));                                                            \
        (dst) = d_;                                                                                                  \
        at += round64((len) * sizeof(type));                                                                         \
    } while (0)
    TAKE(s->order, f->order, uint32_t, owned);
    TAKE(s->id, p->id, uint64_t, n);
    TAKE(s->material, p->material, uint32_t, n);
    TAKE(s->x, p->x, float, n);
    TAKE(s->y, p->y, float, n);
    TAKE(s->z, p->z, float, n);
    TAKE(s->vx, p->vx, float, n);
    TAKE(s->vy, p->vy, float, n);
    TAKE(s->vz, p->vz, float, n);
    TAKE(s->density, p->density, float, n);
    TAKE(s->pressure, p->pressure, float, n);
    for (int k = 0; k < nfields; ++k)
        for (int c = 0; c < s->fields[k].components; ++c)
            TAKE(s->fields[k].data[c], eddy_particles_field(p, EDDY_BUILTIN_FIELD_COUNT + k, c), float, n);
#undef TAKE
    return EDDY_OK;
}

void eddy_snapshot_release(eddy_snapshot *s)
{
    if (!s) return;
    eddy_staging_free(s->block);
    memset(s, 0, offsetof(eddy_snapshot, fields));
    s->field_count = 0;
    s->block = NULL;
    s->block_bytes = 0;
}
