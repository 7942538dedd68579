/* Per-particle neighbour lists, their blocks and the walls' ghosts (eddy_sph/neighbors.h). */
#include <eddy_sph/neighbors.h>

#include <stdlib.h>

int eddy_sph_neighbors_reserve(eddy_sph_neighbors *nb, size_t n)
{
    if (nb->offset && n <= nb->capacity) return 0; /* offset has n + 1 entries: one even for n = 0 */
    const size_t cap = n + n / 4 + 16;
    uint32_t *offset = realloc(nb->offset, (cap + 1) * sizeof(uint32_t));
    if (!offset) return -1;
    nb->offset = offset;
    nb->offset_capacity = cap + 1;
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

int eddy_sph_list_chunk_reserve(eddy_sph_list_chunk *chunk, size_t more)
{
    if (chunk->count + more <= chunk->capacity) return 0;
    const size_t need = chunk->count + more, cap = need + need / 2 + 256;
    uint32_t *index = realloc(chunk->index, cap * sizeof(uint32_t));
    if (!index) return -1;
    chunk->index = index;
    chunk->capacity = cap;
    return 0;
}

int eddy_sph_neighbors_offsets(eddy_sph_neighbors *nb, size_t n)
{
    /* A serial running sum: one add per particle, cheap next to the build. */
    uint32_t *off = nb->offset;
    uint64_t total = 0;
    off[0] = 0;
    for (size_t i = 1; i <= n; ++i) {
        total += off[i];
        if (total > UINT32_MAX) return -2;
        off[i] = (uint32_t)total;
    }
    if (total > nb->index_capacity) {
        const size_t cap = (size_t)total + (size_t)total / 4 + 64;
        uint32_t *index = realloc(nb->index, cap * sizeof(uint32_t));
        if (!index) return -1;
        nb->index = index;
        nb->index_capacity = cap;
    }
    return 0;
}

void eddy_sph_neighbors_free(eddy_sph_neighbors *nb)
{
    if (!nb) return;
    free(nb->offset);
    free(nb->index);
    for (int k = 0; k < EDDY_SPH_LIST_CHUNKS; ++k) free(nb->chunk[k].index);
    free(nb->near);
    free(nb->image_count);
    free(nb->image_slot);
    free(nb->images);
    free(nb->block_particle);
    free(nb->block_count);
    free(nb->block_row);
    free(nb->block_index);
    free(nb->ghost_first);
    free(nb->ghost_chunk_of);
    free(nb->ghost_slot_rows);
    free(nb->ghost_mirror_first);
    free(nb->ghost_slots);
    for (int k = 0; k < EDDY_SPH_LIST_CHUNKS; ++k) {
        free(nb->ghost_chunk[k].index);
        free(nb->ghost_chunk[k].weight);
        free(nb->ghost_chunk[k].mirror);
    }
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

int eddy_sph_neighbors_block_rows(eddy_sph_neighbors *nb, const eddy_particles *p)
{
    /* Serial: one pass over the particles and one over the blocks, cheap next to the build. */
    const size_t n = nb->count;
    size_t owned = 0;
    for (size_t i = 0; i < n; ++i) owned += !eddy_particle_is_halo(p, i);
    const size_t blocks = (owned + EDDY_SPH_LANES - 1) / EDDY_SPH_LANES;
    if (blocks + 1 > nb->block_capacity) {
        const size_t cap = blocks + blocks / 4 + 16;
        uint32_t *particle = realloc(nb->block_particle, cap * EDDY_SPH_LANES * sizeof(uint32_t));
        if (!particle) return -1;
        nb->block_particle = particle;
        uint32_t *count = realloc(nb->block_count, cap * EDDY_SPH_LANES * sizeof(uint32_t));
        if (!count) return -1;
        nb->block_count = count;
        uint32_t *row = realloc(nb->block_row, (cap + 1) * sizeof(uint32_t));
        if (!row) return -1;
        nb->block_row = row;
        nb->block_capacity = cap;
    }
    const uint32_t *off = nb->offset;
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        if (eddy_particle_is_halo(p, i)) continue;
        nb->block_particle[k] = (uint32_t)i;
        nb->block_count[k] = off[i + 1] - off[i];
        ++k;
    }
    for (; k < blocks * EDDY_SPH_LANES; ++k) { /* the last block's empty lanes */
        nb->block_particle[k] = nb->block_particle[k / EDDY_SPH_LANES * EDDY_SPH_LANES];
        nb->block_count[k] = 0;
    }
    uint64_t rows = 0;
    for (size_t b = 0; b < blocks; ++b) {
        nb->block_row[b] = (uint32_t)rows;
        uint32_t longest = 0;
        for (size_t l = 0; l < EDDY_SPH_LANES; ++l) {
            const uint32_t c = nb->block_count[b * EDDY_SPH_LANES + l];
            longest = c > longest ? c : longest;
        }
        rows += longest;
        if (rows * EDDY_SPH_LANES > UINT32_MAX) return -2;
    }
    nb->block_row[blocks] = (uint32_t)rows;
    nb->blocks = blocks;
    nb->owned = owned;
    const size_t entries = (size_t)rows * EDDY_SPH_LANES;
    if (entries > nb->block_index_capacity) {
        const size_t cap = entries + entries / 4 + 64;
        uint32_t *index = realloc(nb->block_index, cap * sizeof(uint32_t));
        if (!index) return -1;
        nb->block_index = index;
        nb->block_index_capacity = cap;
    }
    return 0;
}

int eddy_sph_neighbors_ghost_blocks(eddy_sph_neighbors *nb)
{
    const size_t blocks = nb->blocks;
    if (nb->ghost_first && blocks <= nb->ghost_capacity) return 0;
    const size_t cap = blocks + blocks / 4 + 16;
    uint32_t *first = realloc(nb->ghost_first, cap * sizeof(uint32_t));
    if (!first) return -1;
    nb->ghost_first = first;
    uint16_t *chunk = realloc(nb->ghost_chunk_of, cap * sizeof(uint16_t));
    if (!chunk) return -1;
    nb->ghost_chunk_of = chunk;
    uint32_t *rows = realloc(nb->ghost_slot_rows, cap * EDDY_MAX_MIRRORS * sizeof(uint32_t));
    if (!rows) return -1;
    nb->ghost_slot_rows = rows;
    uint32_t *mirror_first = realloc(nb->ghost_mirror_first, cap * sizeof(uint32_t));
    if (!mirror_first) return -1;
    nb->ghost_mirror_first = mirror_first;
    unsigned char *slots = realloc(nb->ghost_slots, cap);
    if (!slots) return -1;
    nb->ghost_slots = slots;
    nb->ghost_capacity = cap;
    return 0;
}

int eddy_sph_ghost_chunk_reserve(eddy_sph_ghost_chunk *chunk, size_t more)
{
    if (chunk->rows + more <= chunk->capacity) return 0;
    const size_t need = chunk->rows + more, cap = need + need / 2 + 64;
    uint32_t *index = realloc(chunk->index, cap * EDDY_SPH_LANES * sizeof(uint32_t));
    if (!index) return -1;
    chunk->index = index;
    float *weight = realloc(chunk->weight, cap * EDDY_SPH_LANES * sizeof(float));
    if (!weight) return -1;
    chunk->weight = weight;
    chunk->capacity = cap;
    return 0;
}

int eddy_sph_ghost_chunk_reserve_mirrors(eddy_sph_ghost_chunk *chunk, size_t more)
{
    if (chunk->mirrors + more <= chunk->mirror_capacity) return 0;
    const size_t need = chunk->mirrors + more, cap = need + need / 2 + 16;
    eddy_sph_block_mirror *m = realloc(chunk->mirror, cap * sizeof *m);
    if (!m) return -1;
    chunk->mirror = m;
    chunk->mirror_capacity = cap;
    return 0;
}

int eddy_sph_records_reserve(eddy_sph_records *r, size_t n)
{
    if (n <= r->capacity) return 0;
    const size_t cap = n + n / 4 + 16;
    if (cap > SIZE_MAX / sizeof *r->v) return -1;
    float(*v)[4] = realloc(r->v, cap * sizeof *v);
    if (!v) return -1;
    r->v = v;
    r->capacity = cap;
    return 0;
}

void eddy_sph_records_free(eddy_sph_records *r)
{
    if (!r) return;
    free(r->v);
    *r = (eddy_sph_records){0};
}

int eddy_sph_row_values_reserve(eddy_sph_row_values *r, const eddy_sph_neighbors *nb)
{
    const size_t rows = (nb->blocks ? (size_t)nb->block_row[nb->blocks] : 0) + (nb->ghosts ? nb->ghost_rows : 0);
    const size_t entries = rows * EDDY_SPH_LANES;
    if (r->v && entries <= r->capacity) return 0;
    /* Not realloc: the values of the last build are of no use, so there is nothing to copy. */
    const size_t cap = entries + entries / 4 + 64;
    float *v = malloc(cap * sizeof *v);
    if (!v) return -1;
    free(r->v);
    r->v = v;
    r->capacity = cap;
    return 0;
}

void eddy_sph_row_values_free(eddy_sph_row_values *r)
{
    if (!r) return;
    free(r->v);
    *r = (eddy_sph_row_values){0};
}
