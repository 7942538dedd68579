/*
 * eddy/boundary.h — rigid boundaries: an axis-aligned container and static colliders, with signed
 * distance and normal queries and the collision response of the Bullet-Fluids reference (2014) §3.2.2,
 * §5.2.
 *
 * Sign convention: the signed distance is positive in free space (where fluid may be), negative inside
 * a solid; the normal is the unit vector pointing out of the solid into free space. For the container
 * the solid is everything outside the box, so its walls face inward.
 *
 * Units: simulation units throughout (the host converts scene lengths with the simulation scale).
 * Threads: all functions are pure or parallelize internally; none keeps state between calls.
 */
#ifndef EDDY_BOUNDARY_H
#define EDDY_BOUNDARY_H

#include "defs.h"
#include "error.h"
#include "particles.h"

EDDY_BEGIN_DECLS

typedef enum eddy_shape {
    EDDY_SHAPE_PLANE = 0,  /* half-space below a plane: solid where dot(x - point, normal) < 0 */
    EDDY_SHAPE_BOX = 1,    /* solid axis-aligned box [min, max] */
    EDDY_SHAPE_SPHERE = 2  /* solid ball (a disc in 2D) of `radius` around `center` */
} eddy_shape;

/* One rigid surface. Only the members of its shape are read. Growth: begins with its size; start from
 * eddy_default_collider(). */
typedef struct eddy_collider {
    size_t size;               /* sizeof(eddy_collider) as compiled by whoever filled it */
    eddy_shape shape;
    eddy_real point[3], normal[3]; /* plane: a point on it and its unit normal (into free space) */
    eddy_real min[3], max[3];      /* box */
    eddy_real center[3], radius;   /* sphere */
    eddy_real velocity[3];         /* rigid velocity of the surface (prescribed motion), sim units / s */
    int is_container_wall;     /* set on the planes generated from the container */
} eddy_collider;

/* A plane collider through the origin with normal +y, at rest, every member set. [any thread] */
EDDY_API eddy_collider eddy_default_collider(void);

/* Contact response of one material with rigid surfaces (Bullet-Fluids local parameters). The
 * fractions apply once per response, i.e. per call of eddy_contact_respond for the particle and the
 * surface (once a step with eddy_world_symplectic_euler or eddy_world_respond_boundaries), whatever
 * the step's length: halving dt doubles the responses per second. Velocities are relative to the
 * surface's own (eddy_collider.velocity). */
typedef struct eddy_contact_params {
    eddy_real radius;      /* particle radius for rigid contact, sim units (no effect on SPH); a
                            * response needs signed distance < radius (0: only inside the solid) */
    eddy_real margin;      /* allowed penetration before ERP pushes back, [0, radius), sim units */
    eddy_real restitution; /* [0, 1] fraction of the approaching normal velocity reflected, in each
                            * response where the particle touches and approaches the surface */
    eddy_real friction;    /* [0, 1] fraction of the tangential velocity removed, in each response
                            * where the particle touches and approaches the surface (none while it
                            * slides along or moves away) */
    eddy_real erp;         /* [0, 1] fraction of the penetration beyond margin removed in each response
                            * where the particle touches the surface, by moving the particle (not by
                            * adding velocity) */
} eddy_contact_params;

/* All rigid surfaces of a world. The container, when present, is stored as its wall planes (one per
 * bounded axis side) at the start of `colliders`. Owned by the world. */
typedef struct eddy_boundaries {
    int dimensions;
    int has_container;
    eddy_real container_min[3], container_max[3];
    size_t collider_count;
    eddy_collider *colliders;
} eddy_boundaries;

/* Signed distance from point p to one collider over the first `dimensions` axes (sim units), and the
 * unit normal there into free space (may be NULL). FLT_MAX and a zero normal for an unknown shape.
 * Pure; [any thread]. */
EDDY_API eddy_real eddy_collider_distance(const eddy_collider *c, int dimensions, const eddy_real p[3],
                                      eddy_real normal[3]);

/* Signed distance to the nearest surface of all boundaries (FLT_MAX when there is none; normal and
 * index are then not written), its normal and its index into b->colliders (both may be NULL). Pure;
 * [any thread]. */
EDDY_API eddy_real eddy_boundaries_distance(const eddy_boundaries *b, const eddy_real p[3], eddy_real normal[3],
                                        size_t *collider);

/*
 * The Bullet-Fluids response for one particle and one surface (sim units): when the particle sphere
 * touches the surface (distance < radius) and moves into it, the approaching normal velocity v is
 * removed and `restitution` of it reflected, and `friction` of the tangential velocity relative to the
 * surface is removed; when it penetrates deeper than `margin`, its position p is moved `erp` of that
 * depth out along the normal. The correction is a projection of the position (a split impulse), not
 * added velocity: a velocity of erp * depth / dt would outlive the step and, at the small steps of
 * stiff fluids, launch particles off the wall. Returns non-zero if the particle touched the surface
 * (distance < radius). Only the first `dimensions` axes of p and v change. dt: unused, kept for the
 * ABI (the response is a position projection). Pure (writes p and v only); [any thread].
 */
EDDY_API int eddy_contact_respond(const eddy_collider *c, int dimensions,
                                  const eddy_contact_params *params, eddy_real p[3], eddy_real v[3],
                                  eddy_real dt);

/*
 * Applies eddy_contact_respond() for every particle of [0, count), halo copies included, and every
 * surface but the hidden colliders (see the mirrors below), in collider order (updating velocities and
 * positions), using each particle's material contact parameters (`contacts[material]`: one entry per
 * material index in use). Particles no response can reach are skipped (eddy_hd_contact_pick), which
 * changes no result. dt: unused, kept
 * for the ABI (the response is a position projection). A material index without an entry in
 * `contacts` is read out of bounds (not checked). OpenMP-parallel over particles; deterministic; writes
 * p: [main thread] for p.
 */
EDDY_API void eddy_boundaries_respond(const eddy_boundaries *b, const eddy_contact_params *contacts,
                                      eddy_particles *p, eddy_real dt);

/*
 * Mirror ghosts: the fluid continued beyond the walls as its own reflection (Libersky-type mirror
 * particles). For a particle at p within `reach` (the kernel support) of one or more surfaces, each
 * mirror is one reflection, or the composition of reflections for corners (2 walls: 3 mirrors, 3 walls:
 * 7), across the plane tangent to the surface at its nearest point. A solver adds, for every real
 * neighbour j and every mirror M of particle i, a ghost at M(x_j):
 *   position  M.rotation x_j + M.offset,
 *   velocity  M.rotation v_j + M.velocity_offset (free slip: the normal velocity relative to the wall
 *             reversed, the tangential kept),
 *   pressure  p_j + rho_j (dot(M.pressure_slope, x_j) + M.pressure_offset): the hydrostatic
 *             continuation p_ghost = p_j - 2 d_j rho_j (g . n) of each reflecting wall, so that a fluid
 *             at rest sees the pressure gradient rho g continue through the wall (Neumann condition).
 * A reflection keeps distances, and a particle on p's side of the reflecting plane is nearer p than
 * its ghost is; so where every real particle lies on p's side of each plane (the container walls),
 * every ghost within `reach` of p is the image of a real particle within `reach` of p, and the solver
 * finds them all in the neighbour loop it already runs for p. A perfect lattice next to a flat wall
 * then sums to exactly the bulk density, and where the free surface meets a wall the ghosts are as
 * sparse as the fluid. Near a sphere or box collider, fluid can lie beyond the tangent plane (around
 * the curve or an edge): a ghost of such a particle can be within reach while the particle is not,
 * and a solver that takes images of p's neighbours only misses it (up to ~0.2% of the density next to
 * a sphere, measured with h = 0.01 m).
 *
 * Surfaces: the container walls are exact; a sphere or box collider is replaced by its tangent plane at
 * the point nearest p (good when its radius of curvature is large against `reach`). At most
 * EDDY_MAX_MIRROR_WALLS surfaces are combined (the nearest ones). A collider whose solid lies within
 * another's (eddy_hd_collider_hidden in <eddy/boundary_math.h>: a box under the container's floor, or
 * whose top face is the floor; of equal solids all but the last in the list) is no surface, and of
 * surfaces facing the same way at their nearest points only the nearest counts: reflections across two
 * parallel planes facing the same way compose to a translation (the identity where they coincide)
 * that would lay a copy of the fluid over itself.
 */
#define EDDY_MAX_MIRROR_WALLS 3
#define EDDY_MAX_MIRRORS 7

typedef struct eddy_mirror {
    eddy_real rotation[3][3];   /* orthogonal; row-major: x' = rotation x + offset */
    eddy_real offset[3];
    eddy_real velocity_offset[3]; /* v' = rotation v + velocity_offset (moving walls), sim units / s */
    eddy_real pressure_slope[3];  /* (p_ghost - p_j) / rho_j = pressure_slope . x_j + pressure_offset: */
    eddy_real pressure_offset;    /* slope in sim units / s^2, offset in sim units^2 / s^2 */
} eddy_mirror;

/*
 * Fills `out` with the mirrors of point p (sim units) and returns how many (0 when no surface is
 * within `reach`). `gravity` (sim units / s^2) gives the hydrostatic pressure continuation; pass zeros
 * (or NULL) for mirrored pressure. A surface counts when p's signed distance d to it has
 * -reach <= d < reach. Pure; thread-safe.
 */
EDDY_API int eddy_boundaries_mirrors(const eddy_boundaries *b, const eddy_real gravity[3], eddy_real reach,
                                     const eddy_real p[3], eddy_mirror out[EDDY_MAX_MIRRORS]);

/*
 * The surfaces behind the mirrors of point p (ABI 2.2): writes to walls[] the indices into b->colliders
 * of the surfaces eddy_boundaries_mirrors(b, ..., reach, p, ...) reflects across, nearest first (collider
 * order among equal distances), and returns their count nw (0 .. EDDY_MAX_MIRROR_WALLS). Mirror
 * number mask - 1, for mask = 1 .. 2^nw - 1, composes the reflections across walls[k] for every bit k
 * set in mask, in increasing k. For a solver that needs more of a wall than the mirror carries, e.g.
 * the collider's whole velocity for no-slip ghosts (the mirror's velocity_offset holds only its normal
 * part). Pure; thread-safe.
 */
EDDY_API int eddy_boundaries_mirror_walls(const eddy_boundaries *b, eddy_real reach, const eddy_real p[3],
                                          size_t walls[EDDY_MAX_MIRROR_WALLS]);

/* Applies a mirror to a point (x' = R x + t) and to a velocity (v' = R v + velocity_offset). EDDY_HD:
 * the same inline source serves GPU kernels (<eddy/boundary_math.h> has the rest of the boundary math). */
static inline EDDY_HD void eddy_mirror_point(const eddy_mirror *m, const eddy_real x[3], eddy_real out[3])
{
    for (int a = 0; a < 3; ++a)
        out[a] = m->rotation[a][0] * x[0] + m->rotation[a][1] * x[1] + m->rotation[a][2] * x[2] +
                 m->offset[a];
}

static inline EDDY_HD void eddy_mirror_velocity(const eddy_mirror *m, const eddy_real v[3], eddy_real out[3])
{
    for (int a = 0; a < 3; ++a)
        out[a] = m->rotation[a][0] * v[0] + m->rotation[a][1] * v[1] + m->rotation[a][2] * v[2] +
                 m->velocity_offset[a];
}

/* Pressure of the ghost of a neighbour with pressure p_j and density rho_j at x_j (sim units):
 * p_j + rho_j (dot(pressure_slope, x_j) + pressure_offset), the hydrostatic continuation above. */
static inline EDDY_HD eddy_real eddy_mirror_pressure(const eddy_mirror *m, eddy_real p_j, eddy_real rho_j,
                                                     const eddy_real x_j[3])
{
    return p_j + rho_j * (m->pressure_slope[0] * x_j[0] + m->pressure_slope[1] * x_j[1] +
                          m->pressure_slope[2] * x_j[2] + m->pressure_offset);
}

/*
 * Prescribed motion: displaces a collider rigidly by velocity * dt (sim units): a plane's point, a
 * box's min and max, a sphere's centre (all of them are moved, whatever the shape; dt in seconds, only
 * the first `dimensions` axes). The caller (the host, between steps) owns the collider; the mirrors
 * and contacts of the next step see the new position. Not thread-safe on one collider.
 */
EDDY_API void eddy_collider_translate(eddy_collider *c, int dimensions, double dt);

EDDY_END_DECLS

#endif /* EDDY_BOUNDARY_H */
