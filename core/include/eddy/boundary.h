/*
 * eddy/boundary.h — rigid boundaries: an axis-aligned container and static colliders, with signed
 * distance and normal queries and the Bullet-Fluids collision response (seed 000 §3.2.2, §5.2).
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

/* One rigid surface. Only the members of its shape are read. */
typedef struct eddy_collider {
    eddy_shape shape;
    float point[3], normal[3]; /* plane: a point on it and its unit normal (into free space) */
    float min[3], max[3];      /* box */
    float center[3], radius;   /* sphere */
    float velocity[3];         /* rigid velocity of the surface (prescribed motion), sim units / s */
    int is_container_wall;     /* set on the planes generated from the container */
} eddy_collider;

/* Contact response of one material with rigid surfaces (Bullet-Fluids local parameters). */
typedef struct eddy_contact_params {
    float radius;      /* particle radius for rigid contact, sim units (no effect on SPH) */
    float margin;      /* allowed penetration before ERP pushes back, [0, radius), sim units */
    float restitution; /* [0, 1] fraction of approaching normal velocity reflected */
    float friction;    /* [0, 1] fraction of tangential velocity removed per contact step */
    float erp;         /* [0, 1] fraction of penetration (beyond margin) removed per step, by moving
                        * the particle (not by adding velocity) */
} eddy_contact_params;

/* All rigid surfaces of a world. The container, when present, is stored as its wall planes (one per
 * bounded axis side) at the start of `colliders`. Owned by the world. */
typedef struct eddy_boundaries {
    int dimensions;
    int has_container;
    float container_min[3], container_max[3];
    size_t collider_count;
    eddy_collider *colliders;
} eddy_boundaries;

/* Signed distance from point p to one collider, and the unit normal there (may be NULL). */
EDDY_API float eddy_collider_distance(const eddy_collider *c, int dimensions, const float p[3],
                                      float normal[3]);

/* Signed distance to the nearest surface of all boundaries (FLT_MAX when there is none), its normal
 * and its index (both may be NULL). */
EDDY_API float eddy_boundaries_distance(const eddy_boundaries *b, const float p[3], float normal[3],
                                        size_t *collider);

/*
 * The Bullet-Fluids response for one particle and one surface (sim units): when the particle sphere
 * touches the surface (distance < radius) and moves into it, the approaching normal velocity v is
 * removed and `restitution` of it reflected, and `friction` of the tangential velocity relative to the
 * surface is removed; when it penetrates deeper than `margin`, its position p is moved `erp` of that
 * depth out along the normal. The correction is a projection of the position (a split impulse), not
 * added velocity: a velocity of erp * depth / dt would outlive the step and, at the small steps of
 * stiff fluids, launch particles off the wall. Returns non-zero if a contact was handled.
 */
EDDY_API int eddy_contact_respond(const eddy_collider *c, int dimensions,
                                  const eddy_contact_params *params, float p[3], float v[3],
                                  float dt);

/*
 * Applies eddy_contact_respond() for every particle and every surface, in collider order (updating
 * velocities and positions), using each particle's material contact parameters (`contacts[material]`). OpenMP-parallel over particles;
 * deterministic.
 */
EDDY_API void eddy_boundaries_respond(const eddy_boundaries *b, const eddy_contact_params *contacts,
                                      eddy_particles *p, float dt);

/*
 * Semi-analytic wall terms for SPH sums (the fluid continued at rest density beyond a flat wall).
 * For a particle at distance d in [0, h) from a wall, with particle at the origin and the wall's solid
 * beyond it:
 *   density(d)  = int_{beyond} W_poly6 dV              (fraction of the kernel's volume: 1/2 at d = 0)
 *   gradient(d) = |int_{beyond} grad W_spiky dV|       (points into the wall)
 * so a solver adds rho0 * density(d) to the summed density (no deficit at walls, hence no clustering)
 * and (p_i / rho_i) * gradient(d) along the wall normal to the pressure acceleration (the wall pushes
 * back as the missing fluid would). Walls are treated as planes at the nearest point, exact for the
 * container and plane colliders. Tabulated once per smoothing radius by quadrature in double precision;
 * lookups interpolate linearly.
 */
#define EDDY_WALL_TABLE_SIZE 256

typedef struct eddy_wall_table {
    int dimensions;
    float h;
    float density[EDDY_WALL_TABLE_SIZE + 1];  /* at d = h * k / SIZE; dimensionless */
    float gradient[EDDY_WALL_TABLE_SIZE + 1]; /* 1 / length (sim units) */
} eddy_wall_table;

/* Fills the table for support radius h. Pure; no allocation. */
EDDY_API void eddy_wall_table_init(eddy_wall_table *t, float h, int dimensions);

/* Table lookups at distance d (0 for d >= h; the d = 0 value for d < 0). */
static inline float eddy_wall_density(const eddy_wall_table *t, float d)
{
    if (d >= t->h) return 0.0f;
    float x = d > 0.0f ? d / t->h * (float)EDDY_WALL_TABLE_SIZE : 0.0f;
    int k = (int)x;
    if (k >= EDDY_WALL_TABLE_SIZE) return 0.0f;
    float f = x - (float)k;
    return t->density[k] + f * (t->density[k + 1] - t->density[k]);
}

static inline float eddy_wall_gradient(const eddy_wall_table *t, float d)
{
    if (d >= t->h) return 0.0f;
    float x = d > 0.0f ? d / t->h * (float)EDDY_WALL_TABLE_SIZE : 0.0f;
    int k = (int)x;
    if (k >= EDDY_WALL_TABLE_SIZE) return 0.0f;
    float f = x - (float)k;
    return t->gradient[k] + f * (t->gradient[k + 1] - t->gradient[k]);
}

EDDY_END_DECLS

#endif /* EDDY_BOUNDARY_H */
