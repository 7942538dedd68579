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
    float erp;         /* [0, 1] fraction of penetration (beyond margin) removed per step */
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
 * The Bullet-Fluids response for one particle and one surface, applied to its velocity v (sim units):
 * when the particle sphere touches the surface (distance < radius) and moves into it, the approaching
 * normal velocity is removed and (1 + restitution) reflected, and `friction` of the tangential velocity
 * relative to the surface is removed; when it penetrates deeper than `margin`, a normal velocity of
 * erp * depth / dt is added to push it out. Returns non-zero if a contact was handled.
 */
EDDY_API int eddy_contact_respond(const eddy_collider *c, int dimensions,
                                  const eddy_contact_params *params, const float p[3], float v[3],
                                  float dt);

/*
 * Applies eddy_contact_respond() for every particle and every surface, in collider order, using each
 * particle's material contact parameters (`contacts[material]`). OpenMP-parallel over particles;
 * deterministic.
 */
EDDY_API void eddy_boundaries_respond(const eddy_boundaries *b, const eddy_contact_params *contacts,
                                      eddy_particles *p, float dt);

EDDY_END_DECLS

#endif /* EDDY_BOUNDARY_H */
