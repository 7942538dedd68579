/*
 * host/scene/scene_build.c — builds the world a scene describes: materials with the running solver's
 * values, container, colliders and fluid blocks in simulation units, and the grid over the domain.
 *
 * Depends on: scene_material_params.c, scene_components.c, scene_lattice.c, scene_fill.c, scene_world.c,
 * the core's world API.
 */
#include "scene_internal.h"
#include "scene_fill.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILL_CHUNK 65536   /* particles added per eddy_world_add_particles call */
/* The least memory a run takes per particle: the core's storage alone is 57 bytes (position, velocity,
 * density, pressure, mass, id, material, flags, sort scratch); with the grid and a solver's fields the
 * in-tree solvers measure 146 (tait, 2D) to 385 (pbf) bytes. */
#define BYTES_PER_PARTICLE_MIN 128.0

/* Materials: the generic members from the scene, the running solver's table values from
 * eddy_scene_material_params (the world copies them). `w` NULL: the values are only checked. */
static int add_materials(const eddy_scene *scene, const eddy_scene_build *with, eddy_world *w, eddy_error *err)
{
    const char *file = scene_file(scene);
    const eddy_real scale = scene->simulation_scale;
    const eddy_component *solver = with->solver;
    const size_t mcount = solver && solver->material_params ? solver->material_param_count : 0;
    eddy_param_value *values = calloc(mcount + 1, sizeof *values);
    if (!values) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", file);
    int rc = EDDY_OK;
    const cJSON *mnode = NULL;
    const cJSON *marr = scene_member(scene->root, "materials");
    if (cJSON_IsArray(marr)) mnode = marr->child;
    for (size_t i = 0; i < scene->material_count; ++i, mnode = mnode ? mnode->next : NULL) {
        if ((rc = scene_material_params_of(scene, with->registry, solver, i, mnode, values, err))) break;
        if (!w) continue;
        eddy_material m = scene->materials[i];
        m.size = sizeof m;
        m.contact.radius *= scale;
        m.contact.margin *= scale;
        m.params.size = sizeof m.params;
        m.params.desc = mcount ? solver->material_params : NULL;
        m.params.count = mcount;
        m.params.values = mcount ? values : NULL;
        if ((rc = eddy_world_add_material(w, &m, err))) {
            eddy_error_prefix(err, "%s: ", file);
            break;
        }
    }
    free(values);
    return rc;
}

/* The material keys of the file as written (eddy_scene_check_written). */
static int written_materials(void *with, const eddy_scene *view, eddy_error *err)
{
    return add_materials(view, with, NULL, err);
}

/* The container and the colliders, in simulation units. */
static int add_boundaries(const eddy_scene *scene, eddy_world *w, eddy_error *err)
{
    const char *file = scene_file(scene);
    const eddy_real scale = scene->simulation_scale;
    const int d = scene->dimensions;
    int rc;
    if (scene->has_container) {
        eddy_real mn[3], mx[3];
        for (int a = 0; a < 3; ++a) {
            mn[a] = a < d ? scene->container_min[a] * scale : 0.0f;
            mx[a] = a < d ? scene->container_max[a] * scale : 0.0f;
        }
        if ((rc = eddy_world_set_container(w, mn, mx, scene->periodic, err))) {
            eddy_error_prefix(err, "%s: ", file);
            return rc;
        }
    }
    for (size_t i = 0; i < scene->collider_count; ++i) {
        eddy_collider c = scene->colliders[i];
        for (int a = 0; a < 3; ++a) {
            c.point[a] *= scale;
            c.min[a] *= scale;
            c.max[a] *= scale;
            c.center[a] *= scale;
            c.velocity[a] *= scale;
        }
        c.radius *= scale;
        if ((rc = eddy_world_add_collider(w, &c, err))) {
            eddy_error_prefix(err, "%s: colliders[%zu]: ", file, i);
            return rc;
        }
    }
    return EDDY_OK;
}

/* The grid's domain in simulation units: the `domain` section, else the container widened (init_grid).
 * Returns 0 when the scene has neither. */
static int grid_bounds(const eddy_scene *scene, eddy_real lo[3], eddy_real hi[3])
{
    const eddy_real scale = scene->simulation_scale;
    if (!scene_effective_domain(scene, lo, hi)) return 0;
    for (int a = 0; a < 3; ++a) {
        lo[a] *= scale;
        hi[a] *= scale;
    }
    return 1;
}

/* The axis a piece (scene_fill.h) is cut along, from the layout the grid will have (kept in *layout to
 * check against the grid's), or -1 for the whole fill: no piece, or a domain init_grid refuses (then
 * with its own message). */
static int piece_axis(const eddy_scene *scene, const eddy_scene_piece *pc, const eddy_world *w,
                      eddy_grid_layout *layout)
{
    eddy_real lo[3], hi[3];
    eddy_error ignored;
    eddy_error_clear(&ignored);
    if (!pc || !grid_bounds(scene, lo, hi) ||
        eddy_grid_layout_init(layout, w->dimensions, lo, hi, scene->periodic, w->smoothing_radius, &ignored))
        return -1;
    const int axis = pc->axis(pc->user, layout);
    return axis >= 0 && axis < w->dimensions ? axis : -1;
}

/* Fluid blocks, in block order, each in lattice order (x fastest), counted first with the spacings
 * the world derived, which the fill uses too. *total: the particles of the whole fill. With a piece
 * (scene_fill.h) only its particles (*axis >= 0, the layout it was cut for in *layout). */
static int fill_fluids(const eddy_scene *scene, eddy_world *w, size_t *total_out, int *axis,
                       eddy_grid_layout *layout, eddy_error *err)
{
    const char *file = scene_file(scene);
    const int d = scene->dimensions;
    double counted = 0;
    for (size_t i = 0; i < scene->fluid_count; ++i) {
        const eddy_scene_fluid *f = &scene->fluids[i];
        int at_least = 0;
        if (f->material >= 0 && (size_t)f->material < w->material_count)
            counted += scene_fluid_count_at(scene, f, (double)w->materials[f->material].particle_dist, &at_least);
        if (at_least || counted > (double)UINT32_MAX)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s: fluids[%zu]: expected at most %u particles in all, got %s%.0f after this block",
                                  file, i, UINT32_MAX, at_least ? "at least " : "", counted);
    }
    const size_t total = (size_t)counted;
    *total_out = total;
    /* Several processes: each creates only the particles it will own (host/session/decomp_fill.c). */
    if ((*axis = piece_axis(scene, scene_piece(), w, layout)) >= 0)
        return scene_fill_piece(scene, scene_piece(), *axis, total, w, err);
    /* The fill touches every page it reserves: a scene that cannot fit was killed by the kernel after
     * minutes of filling (4e8 particles on 23 GB), instead of refused. */
    const double need = (double)total * BYTES_PER_PARTICLE_MIN;
    double have;
    const char *source;
    int rc = scene_usable_memory(&have, &source, err);
    if (rc) return rc;
    if (need > have) {
        /* (in MB below a GB: a small limit read "0.0 GB of memory ... need at least 0.0 GB") */
        const int gb = have >= 1e9;
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%s: fluids: expected at most %.0f particles (%.0f bytes a particle at the least) in the "
                              "%.1f %s of memory %s, got %zu, which need at least %.1f %s: use fewer or smaller fluid "
                              "blocks, or a larger particle_spacing",
                              file, floor(have / BYTES_PER_PARTICLE_MIN), BYTES_PER_PARTICLE_MIN, have / (gb ? 1e9 : 1e6),
                              gb ? "GB" : "MB", source, total, need / (gb ? 1e9 : 1e6), gb ? "GB" : "MB");
    }
    if ((rc = eddy_particles_reserve(&w->particles, total, err))) {
        eddy_error_prefix(err, "%s: ", file);
        return rc;
    }
    eddy_real *pos = malloc(sizeof *pos * 3 * FILL_CHUNK);
    eddy_real *vel = malloc(sizeof *vel * 3 * FILL_CHUNK);
    if (!pos || !vel) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", file);
        goto done;
    }
    for (size_t i = 0; i < scene->fluid_count; ++i) {
        const eddy_scene_fluid *f = &scene->fluids[i];
        if (f->material < 0 || (size_t)f->material >= w->material_count) {
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: fluids[%zu]: material index %d is invalid",
                                file, i, f->material);
            goto done;
        }
        lattice L;
        if (scene_lattice_setup(scene, f, (double)w->materials[f->material].particle_dist, &L)) {
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: fluids[%zu]: too many particles", file, i);
            goto done;
        }
        uint64_t cursor = 0;
        size_t ready = 0; /* velocities set for this block (per particle emitted: many small blocks stay cheap) */
        for (;;) {
            size_t n = scene_lattice_emit(&L, &cursor, pos, FILL_CHUNK);
            if (n == 0) break;
            for (; ready < n; ++ready) {
                vel[3 * ready + 0] = f->velocity[0];
                vel[3 * ready + 1] = f->velocity[1];
                vel[3 * ready + 2] = d == 3 ? f->velocity[2] : 0.0f;
            }
            if ((rc = eddy_world_add_particles(w, n, pos, vel, (uint32_t)f->material, err))) {
                eddy_error_prefix(err, "%s: fluids[%zu]: ", file, i);
                goto done;
            }
        }
    }
done:
    free(pos);
    free(vel);
    return rc;
}

/* The grid over the domain (simulation units), with the grid component's backend and parameters;
 * `particles`: the whole run's count (a piece's world holds fewer). */
static int init_grid(const eddy_scene *scene, const eddy_scene_build *with,
                     const eddy_grid_backend_vtable *backend, size_t particles, eddy_world *w, eddy_error *err)
{
    const char *file = scene_file(scene);
    const eddy_real scale = scene->simulation_scale;
    eddy_real lo[3], hi[3];
    if (!grid_bounds(scene, lo, hi))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: the scene has neither a container nor a domain",
                              file);
    /* The grid stores two 32-bit cell ranges per cell, also for empty cells: a domain far larger than
     * its fluid (a container 1e5 m tall at h = 3 cm, found by fuzzing) asked for 15 GB and was killed
     * rather than refused. The core allows up to 2^31 cells; the host allows what the particles can
     * use: 64 cells per particle, and at least 2^27 (1 GiB of ranges) for small scenes in large domains. */
    eddy_grid_layout layout;
    int rc = eddy_grid_layout_init(&layout, w->dimensions, lo, hi, scene->periodic, w->smoothing_radius, err);
    /* The layout is the scene's domain, whatever the backend: "grid 'cpu': grid: ..." named neither
     * the key nor its value. */
    if (rc) return eddy_error_prefix(err, "%s: %s: ", file, scene->has_domain ? "domain" : "container");
    const double max_cells = fmax(134217728.0, 64.0 * (double)particles);
    if (!rc && (double)layout.cell_count > max_cells)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%s: domain: %g x %g x %g (world units) at smoothing_radius %g gives %zu grid cells "
                              "(%.1f GB of cell ranges) for %zu particles; at most %.0f are allowed (64 per "
                              "particle, at least 2^27): use a smaller container or domain, or a larger smoothing "
                              "radius",
                              file, (double)((hi[0] - lo[0]) / scale), (double)((hi[1] - lo[1]) / scale),
                              w->dimensions == 3 ? (double)((hi[2] - lo[2]) / scale) : 0.0,
                              (double)(w->smoothing_radius / scale), layout.cell_count,
                              8.0 * (double)layout.cell_count / 1e9, particles, max_cells);
    if (!rc)
        rc = eddy_world_init_grid_with(w, lo, hi, scene->periodic, backend, with->grid_params, scene->out_of_domain,
                                       err);
    if (rc && with->grid) eddy_error_prefix(err, "%s: grid '%s': ", file, with->grid->id ? with->grid->id : "");
    else if (rc) eddy_error_prefix(err, "%s: ", file);
    return rc;
}

/* A piece was cut for the layout the grid was about to get; the grid must have got it. */
static int same_domain(const eddy_scene *scene, const eddy_grid_layout *cut_for, const eddy_grid_layout *grid,
                       eddy_error *err)
{
    for (int a = 0; a < 3; ++a)
        if (cut_for->lo[a] != grid->lo[a] || cut_for->hi[a] != grid->hi[a] || cut_for->periodic[a] != grid->periodic[a])
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s: the grid's domain on axis %d is [%g, %g], the fill was cut for [%g, %g]",
                                  scene_file(scene), a, (double)grid->lo[a], (double)grid->hi[a],
                                  (double)cut_for->lo[a], (double)cut_for->hi[a]);
    return EDDY_OK;
}

int eddy_scene_build_world(const eddy_scene *scene, const eddy_scene_build *with, eddy_world **out,
                           eddy_error *err)
{
    if (!out) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_build_world: out is NULL");
    *out = NULL;
    if (!scene) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_build_world: scene is NULL");
    static const eddy_scene_build nothing = {0};
    if (!with) with = &nothing;
    const char *file = scene_file(scene);
    const int d = scene->dimensions;
    const eddy_grid_backend_vtable *backend = NULL;
    if (with->grid) {
        const char *kind = NULL;
        if (!scene_component_section(with->grid, &kind) || strcmp(kind, "grid") != 0)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s: component '%s' is not a grid (it implements '%s')", file,
                                  with->grid->id ? with->grid->id : "",
                                  with->grid->interface_id ? with->grid->interface_id : "");
        backend = (const eddy_grid_backend_vtable *)with->grid->vtable;
    }
    int rc = eddy_scene_check_components(scene, with->registry, err);
    if (!rc) rc = eddy_scene_check_written(scene, written_materials, (void *)with, err);
    if (rc) return rc;
    eddy_world *w = NULL;
    if ((rc = eddy_world_create(d, &w, err))) return eddy_error_prefix(err, "%s: ", file);
    eddy_world_set_host(w, with->host);
    w->smoothing_radius = scene->smoothing_radius;
    w->simulation_scale = scene->simulation_scale;
    for (int a = 0; a < 3; ++a) w->gravity[a] = a < d ? scene->gravity[a] : 0.0f;
    size_t total = 0;
    int axis = -1;
    eddy_grid_layout cut_for;
    if ((rc = add_materials(scene, with, w, err)) || (rc = add_boundaries(scene, w, err)) ||
        (rc = with->fill ? with->fill(with->fill_user, w, err) : fill_fluids(scene, w, &total, &axis, &cut_for, err)) ||
        (rc = init_grid(scene, with, backend, axis >= 0 ? total : w->particles.count, w, err)) ||
        (rc = axis >= 0 ? same_domain(scene, &cut_for, &w->grid.layout, err) : EDDY_OK)) {
        eddy_world_destroy(w);
        return rc;
    }
    scene_warn_resolution(scene, with->host);
    *out = w;
    return EDDY_OK;
}
