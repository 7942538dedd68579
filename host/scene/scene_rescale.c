/*
 * host/scene/scene_rescale.c — the rescale of `eddy bench`: refills a scene at about a target particle
 * count, keeping rest density and neighbours per particle.
 *
 * Depends on: scene_lattice.c (counts, material spacing), scene_world.c (the effective domain).
 */
#include "scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int eddy_scene_rescale(eddy_scene *scene, size_t particle_target, eddy_error *err)
{
    if (!scene) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_rescale: scene is NULL");
    if (particle_target == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: particle target must be > 0",
                              scene_file(scene));
    size_t current = eddy_scene_count_particles(scene);
    if (current == 0 || current == SIZE_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: cannot rescale a scene with %s particles",
                              scene_file(scene), current ? "too many" : "no");
    const int d = scene->dimensions;
    const double f = pow((double)current / (double)particle_target, 1.0 / (double)d);
    const double fd = pow(f, (double)d);
    scene->smoothing_radius = (eddy_real)((double)scene->smoothing_radius * f);
    for (size_t i = 0; i < scene->material_count; ++i) {
        eddy_material *m = &scene->materials[i];
        m->particle_mass = (eddy_real)((double)m->particle_mass * fd);
        /* as the world will derive it (the mass and h scale together: the same h / spacing) */
        m->particle_dist = scene_material_dist(m, scene->smoothing_radius, d);
        m->contact.radius = (eddy_real)((double)m->contact.radius * f);
        m->contact.margin = (eddy_real)((double)m->contact.margin * f);
    }
    scene->dt *= f;
    if (!scene->has_domain) scene_effective_domain(scene, scene->domain_min, scene->domain_max);
    size_t now = eddy_scene_count_particles(scene);
    if (now == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%s: rescaled to %zu particles, the fluid blocks hold none", scene_file(scene),
                              particle_target);
    return EDDY_OK;
}
