/*
 * host/scene/scene_fill.h — filling only a piece of a scene's fluid: the particles whose coordinate
 * along one axis the caller keeps, with the ids they have in the whole fill (docs/mpi.md, "How the
 * domain is split"). host/session/decomp_fill.c uses it so that each of N processes creates only the
 * particles it owns; this layer knows nothing of processes.
 *
 * The whole fill visits the fluid blocks in order, each lattice x fastest, and numbers the points it
 * keeps 0, 1, 2, ... (the particle ids). A piece fill visits the same points in the same order with
 * the same arithmetic, counts every one, and adds only the kept ones, with their count as id; the
 * world's next id is then the whole fill's (the scene's particle count).
 */
#ifndef EDDY_HOST_SCENE_FILL_H
#define EDDY_HOST_SCENE_FILL_H

#include <stddef.h>
#include <stdint.h>

#include <eddy/eddy.h>

typedef struct eddy_scene_piece {
    void *user;
    /* Before the fill, with the layout the world's grid will have (eddy_grid_layout_init of the scene's
     * domain): the axis to cut along, or -1 for the whole fill. */
    int (*axis)(void *user, const eddy_grid_layout *layout);
    /* The lattice planes of every fluid block across that axis: the coordinate a particle of the plane
     * stores (eddy_real) and how many the plane holds, m planes in block and lattice order (a
     * coordinate may repeat across blocks), `total` particles in all. Nonzero: an error in err. */
    int (*planes)(void *user, const eddy_real *coord, const uint64_t *count, size_t m, size_t total,
                  eddy_error *err);
    /* Whether the piece holds a particle whose coordinate along the axis is `coord`. */
    int (*keeps)(void *user, eddy_real coord);
    /* After the fill: `w` holds `created` of the scene's `total` particles. Nonzero: an error in err. */
    int (*filled)(void *user, eddy_world *w, size_t created, size_t total, eddy_error *err);
} eddy_scene_piece;

/*
 * The next eddy_scene_build_world that fills the scene's fluid blocks (no eddy_scene_build.fill) fills
 * only `piece`'s particles, until called again with NULL. Process-wide: host/session/session.c sets it
 * around a new run's build on several processes and clears it after (never for a resume).
 */
void eddy_scene_set_piece(const eddy_scene_piece *piece);

#endif /* EDDY_HOST_SCENE_FILL_H */
