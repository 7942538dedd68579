/* The scene target: "--set KEY=VALUE" lines, then a scene document (fuzz.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"

/* More overrides than a command line would carry only slow the fuzzer down. */
#define MAX_SETS 16

static const char SET_PREFIX[] = "--set ";

/* The solver's and grid's sections and the world, as eddy_sim_open does them before create(). */
static void build(const eddy_scene *scene)
{
    eddy_registry *reg = eddy_fuzz_registry();
    eddy_error err;
    eddy_error_clear(&err);
    const eddy_registry_entry *solver = reg ? eddy_registry_find(reg, scene->solver, EDDY_INTERFACE_SOLVER) : NULL;
    const eddy_registry_entry *grid = reg ? eddy_registry_find(reg, scene->grid, EDDY_INTERFACE_GRID) : NULL;
    const eddy_component *sc = solver ? solver->component : NULL;
    const eddy_component *gc = grid ? grid->component : NULL;
    eddy_param_value *sv = calloc((sc ? sc->param_count : 0) + 1, sizeof *sv);
    eddy_param_value *gv = calloc((gc ? gc->param_count : 0) + 1, sizeof *gv);
    eddy_param_values sp, gp;
    memset(&gp, 0, sizeof gp);
    int rc = !sv || !gv ? eddy_error_set(&err, EDDY_ERR_OUT_OF_MEMORY, "out of memory") : EDDY_OK;
    if (!rc && sc) rc = eddy_scene_component_params(scene, sc, sv, &sp, &err);
    if (!rc && gc) rc = eddy_scene_component_params(scene, gc, gv, &gp, &err);
    char what[96] = "not built (not the CPU grid)";
    /* Only the CPU grid: a device grid would fuzz the driver, not the loader. */
    if (!rc && (!gc || strcmp(gc->id, "cpu") == 0)) {
        const eddy_scene_build with = {.registry = reg, .solver = sc, .grid = gc, .grid_params = gc ? &gp : NULL};
        eddy_world *w = NULL;
        rc = eddy_scene_build_world(scene, &with, &w, &err);
        if (rc == EDDY_OK) {
            snprintf(what, sizeof what, "built a world of %zu particles", w->particles.count);
            eddy_world_destroy(w);
        }
    }
    eddy_fuzz_report("scene", rc, &err, what);
    free(sv);
    free(gv);
}

int eddy_fuzz_scene(const uint8_t *data, size_t size)
{
    eddy_fuzz_init();
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    /* Leading override lines; the text is cut at each line end, so the sets point into it. */
    const char *sets[MAX_SETS];
    size_t nsets = 0;
    char *doc = text;
    while (nsets < MAX_SETS && strncmp(doc, SET_PREFIX, sizeof SET_PREFIX - 1) == 0) {
        char *end = strchr(doc, '\n');
        if (!end) break;
        *end = '\0';
        sets[nsets++] = doc + sizeof SET_PREFIX - 1;
        doc = end + 1;
    }
    eddy_scene scene;
    eddy_error err;
    eddy_error_clear(&err);
    int rc = eddy_scene_parse(doc, "fuzz.json", sets, nsets, &scene, &err);
    if (rc == EDDY_OK) {
        const size_t n = eddy_scene_count_particles(&scene);
        if (n <= EDDY_FUZZ_MAX_PARTICLES) {
            build(&scene);
        } else {
            char what[96];
            snprintf(what, sizeof what, "parsed, %zu particles: not built", n);
            eddy_fuzz_report("scene", rc, &err, what);
        }
        eddy_scene_free(&scene);
    } else {
        eddy_fuzz_report("scene", rc, &err, NULL);
    }
    free(text);
    return 0;
}
