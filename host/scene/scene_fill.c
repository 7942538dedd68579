/*
 * host/scene/scene_fill.c — a piece of the fluid fill (scene_fill.h): the lattice planes across one
 * axis as (coordinate, count) pairs, then only the points the piece keeps, with their ids in the whole
 * fill. Nothing the size of the whole scene is stored: one count per lattice plane, one flag per plane.
 *
 * Depends on: scene_lattice.c (the one lattice arithmetic, so a piece's points are bit for bit the
 * whole fill's), the core's world API.
 */
#include "scene_internal.h"
#include "scene_fill.h"

#include <stdlib.h>
#include <string.h>

#define PIECE_CHUNK 65536 /* particles added per eddy_world_add_particles call */

static const eddy_scene_piece *g_piece;

void eddy_scene_set_piece(const eddy_scene_piece *piece) { g_piece = piece; }

const eddy_scene_piece *scene_piece(void) { return g_piece; }

/* The lattice of block i as fill_fluids makes it, with fill_fluids' messages. */
static int block_lattice(const eddy_scene *scene, const eddy_world *w, size_t i, lattice *L, eddy_error *err)
{
    const char *file = scene_file(scene);
    const eddy_scene_fluid *f = &scene->fluids[i];
    if (f->material < 0 || (size_t)f->material >= w->material_count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: fluids[%zu]: material index %d is invalid", file,
                              i, f->material);
    if (scene_lattice_setup(scene, f, (double)w->materials[f->material].particle_dist, L))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: fluids[%zu]: too many particles", file, i);
    return EDDY_OK;
}

/* Every block's planes across `axis`, handed to the piece (which decides its cuts from them). */
static int hand_planes(const eddy_scene *scene, const eddy_scene_piece *pc, int axis, size_t total,
                       const eddy_world *w, eddy_error *err)
{
    size_t m = 0, cap = 0;
    eddy_real *coord = NULL;
    uint64_t *count = NULL;
    uint64_t sum = 0;
    int rc = EDDY_OK;
    for (size_t i = 0; !rc && i < scene->fluid_count; ++i) {
        lattice L;
        if ((rc = block_lattice(scene, w, i, &L, err))) break;
        const uint64_t planes = L.n[axis];
        if (m + planes > cap) {
            const size_t grown = 2 * cap > m + planes ? 2 * cap : (size_t)(m + planes);
            eddy_real *c2 = realloc(coord, sizeof *c2 * (grown ? grown : 1));
            if (c2) coord = c2;
            uint64_t *n2 = c2 ? realloc(count, sizeof *n2 * (grown ? grown : 1)) : NULL;
            if (n2) count = n2;
            if (!c2 || !n2) {
                rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", scene_file(scene));
                break;
            }
            cap = grown;
        }
        scene_lattice_plane_counts(&L, axis, count + m);
        for (uint64_t k = 0; k < planes; ++k) {
            coord[m + k] = scene_lattice_coord(&L, axis, k);
            sum += count[m + k];
        }
        m += (size_t)planes;
    }
    /* The planes must hold what the scene counted (scene_fluid_count_at), or the ids would not be the
     * whole fill's. */
    if (!rc && sum != (uint64_t)total)
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                            "%s: the lattice planes hold %llu particles, the fluid blocks count %zu", scene_file(scene),
                            (unsigned long long)sum, total);
    if (!rc) rc = pc->planes(pc->user, coord, count, m, total, err);
    free(coord);
    free(count);
    return rc;
}

typedef struct chunk {
    eddy_real *pos, *vel;
    size_t n;
} chunk;

static int flush(eddy_world *w, chunk *c, const eddy_scene_fluid *f, int d, eddy_error *err)
{
    if (!c->n) return EDDY_OK;
    for (size_t k = 0; k < c->n; ++k) {
        c->vel[3 * k + 0] = f->velocity[0];
        c->vel[3 * k + 1] = f->velocity[1];
        c->vel[3 * k + 2] = d == 3 ? f->velocity[2] : 0.0f;
    }
    int rc = eddy_world_add_particles(w, c->n, c->pos, c->vel, (uint32_t)f->material, err);
    c->n = 0;
    return rc;
}

/* The world's ids: the whole fill's index of each particle, and the next id the whole fill's count,
 * which eddy_particles_set_ids makes the largest id + 1: when the last particle of the scene is not
 * this piece's, a stand-in holds its id for that call and goes again. */
static int set_whole_ids(eddy_world *w, uint64_t *ids, size_t n, size_t total, eddy_error *err)
{
    eddy_particles *p = &w->particles;
    const int stand_in = total > 0 && (n == 0 || ids[n - 1] != (uint64_t)total - 1);
    int rc = EDDY_OK;
    if (stand_in) {
        static const eddy_real origin[3];
        if ((rc = eddy_world_add_particles(w, 1, origin, NULL, 0, err))) return rc;
        ids[n] = (uint64_t)total - 1;
    }
    if (p->count && (rc = eddy_particles_set_ids(p, ids, err))) return rc;
    if (stand_in) {
        uint32_t *order = malloc(sizeof *order * (n ? n : 1));
        if (!order) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        for (size_t i = 0; i < n; ++i) order[i] = (uint32_t)i;
        rc = eddy_particles_gather(p, order, n, err);
        free(order);
    }
    return rc;
}

int scene_fill_piece(const eddy_scene *scene, const eddy_scene_piece *pc, int axis, size_t total, eddy_world *w,
                     eddy_error *err)
{
    const char *file = scene_file(scene);
    const int d = scene->dimensions;
    int rc = hand_planes(scene, pc, axis, total, w, err);
    if (rc) return rc;
    /* What this piece holds, so that its arrays are reserved once at their size. */
    size_t mine = 0;
    for (size_t i = 0; i < scene->fluid_count; ++i) {
        lattice L;
        if ((rc = block_lattice(scene, w, i, &L, err))) return rc;
        const uint64_t planes = L.n[axis];
        uint64_t *count = malloc(sizeof *count * (planes ? planes : 1));
        if (!count) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", file);
        scene_lattice_plane_counts(&L, axis, count);
        for (uint64_t k = 0; k < planes; ++k)
            if (pc->keeps(pc->user, scene_lattice_coord(&L, axis, k))) mine += (size_t)count[k];
        free(count);
    }
    if ((rc = eddy_particles_reserve(&w->particles, mine + 1, err))) return eddy_error_prefix(err, "%s: ", file);
    chunk c = {malloc(sizeof(eddy_real) * 3 * PIECE_CHUNK), malloc(sizeof(eddy_real) * 3 * PIECE_CHUNK), 0};
    uint64_t *ids = malloc(sizeof *ids * (mine + 1));
    unsigned char *keep = NULL;
    if (!c.pos || !c.vel || !ids) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", file);
    uint64_t id = 0; /* the whole fill's index of the next point it emits */
    size_t held = 0;
    for (size_t i = 0; !rc && i < scene->fluid_count; ++i) {
        const eddy_scene_fluid *f = &scene->fluids[i];
        lattice L;
        if ((rc = block_lattice(scene, w, i, &L, err))) break;
        /* One decision per plane: every point of a plane has the plane's coordinate. */
        free(keep);
        keep = malloc(L.n[axis] ? L.n[axis] : 1);
        if (!keep) {
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", file);
            break;
        }
        for (uint64_t k = 0; k < L.n[axis]; ++k) keep[k] = pc->keeps(pc->user, scene_lattice_coord(&L, axis, k)) != 0;
        for (uint64_t iz = 0; !rc && iz < L.n[2]; ++iz)
            for (uint64_t iy = 0; !rc && iy < L.n[1]; ++iy) {
                /* A box row across another axis is kept or left whole. */
                if (!L.sphere && axis != 0 && !keep[axis == 1 ? iy : iz]) {
                    id += L.n[0];
                    continue;
                }
                for (uint64_t ix = 0; ix < L.n[0]; ++ix) {
                    if (L.sphere && !scene_lattice_keeps(&L, ix, iy, iz)) continue;
                    const uint64_t at = id++;
                    if (!keep[axis == 0 ? ix : axis == 1 ? iy : iz]) continue;
                    if (held == mine) {
                        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: fluids[%zu]: the piece holds more than "
                                            "the %zu particles its planes count", file, i, mine);
                        break;
                    }
                    scene_lattice_point(&L, ix, iy, iz, c.pos + 3 * c.n);
                    ids[held++] = at;
                    if (++c.n == PIECE_CHUNK && (rc = flush(w, &c, f, d, err))) break;
                }
            }
        if (!rc && (rc = flush(w, &c, f, d, err))) eddy_error_prefix(err, "%s: fluids[%zu]: ", file, i);
    }
    if (!rc && (held != mine || id != (uint64_t)total))
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                            "%s: the piece fill visited %llu particles and kept %zu; the planes count %zu and %zu",
                            file, (unsigned long long)id, held, total, mine);
    if (!rc) rc = set_whole_ids(w, ids, held, total, err);
    free(keep);
    free(ids);
    free(c.pos);
    free(c.vel);
    if (!rc) rc = pc->filled(pc->user, w, held, total, err);
    return rc;
}
