/* Per-particle neighbour lists with mirror images (eddy_sph/neighbors.h). */
#include <eddy_sph/neighbors.h>

#include <stdlib.h>

int eddy_sph_neighbors_reserve(eddy_sph_neighbors *nb, size_t n)
{
    if (n <= nb->capacity) return 0;
    const size_t cap = n + n / 4 + 16;
    unsigned char *near = realloc(nb->near, cap);
    if (!near) return -1;
    nb->near = near;
    unsigned char *count = realloc(nb->image_count, cap);
    if (!count) return -1;
    nb->image_count = count;
    uint32_t *slot = realloc(nb->image_slot, cap * sizeof(uint32_t));
    if (!slot) return -1;
    nb->image_slot = slot;
    nb->capacity = cap;
    return 0;
}

int eddy_sph_neighbors_slots(eddy_sph_neighbors *nb)
{
    /* A serial prefix over the near flags: cheap next to the passes. */
    const size_t n = nb->count;
    size_t near_count = 0;
    for (size_t i = 0; i < n; ++i) {
        nb->image_slot[i] = (uint32_t)(near_count * EDDY_MAX_MIRRORS);
        nb->image_count[i] = 0;
        near_count += nb->near[i];
    }
    if (near_count * EDDY_MAX_MIRRORS > nb->image_capacity) {
        const size_t cap = (near_count + near_count / 4 + 16) * EDDY_MAX_MIRRORS;
        eddy_sph_image *img = realloc(nb->images, cap * sizeof(eddy_sph_image));
        if (!img) return -1;
        nb->images = img;
        nb->image_capacity = cap;
    }
    return 0;
}

void eddy_sph_neighbors_free(eddy_sph_neighbors *nb)
{
    if (!nb) return;
    free(nb->near);
    free(nb->image_count);
    free(nb->image_slot);
    free(nb->images);
    *nb = (eddy_sph_neighbors){0};
}

int eddy_sph_neighbors_find_images(eddy_sph_neighbors *nb, const eddy_boundaries *b, const float gravity[3],
                                   float h, const eddy_particles *p, uint32_t i)
{
    if (!nb->near[i]) return 0;
    const int n = eddy_sph_images(b, gravity, h, p->x[i], p->y[i], p->z[i], nb->images + nb->image_slot[i]);
    nb->image_count[i] = (unsigned char)n;
    return n;
}

int eddy_sph_list_reserve(eddy_sph_list *l, const eddy_sph_neighbors *nb)
{
    /* > longest: room for the particle itself; every array 64-byte aligned. */
    const size_t cap = ((size_t)nb->longest + 16) & ~(size_t)15;
    if (cap > l->capacity) {
        const size_t arrays = 4 + (size_t)l->extra_count;
        void *block = aligned_alloc(64, arrays * cap * sizeof(float));
        if (!block) return -1;
        free(l->block);
        l->block = block;
        l->capacity = cap;
        float *f = block;
        l->dx = f;
        l->dy = f + cap;
        l->dz = f + 2 * cap;
        l->m = f + 3 * cap;
        for (int e = 0; e < l->extra_count; ++e) l->extra[e] = f + (4 + (size_t)e) * cap;
    }
    if (nb->uniform_mass > 0.0f)
        for (size_t q = 0; q < l->capacity; ++q) l->m[q] = nb->uniform_mass;
    return 0;
}

void eddy_sph_list_free(eddy_sph_list *l)
{
    if (!l) return;
    free(l->block);
    const int extra = l->extra_count;
    *l = (eddy_sph_list){0};
    l->extra_count = extra;
}
