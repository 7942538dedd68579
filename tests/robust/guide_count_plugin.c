/*
 * A plugin whose descriptor counts more components than its array holds, the mistake the loader's
 * "component N is NULL (is component_count larger than the array?)" names. The array ends in an
 * explicit NULL, so that the loader meets what a count one too large often meets (a zero after the
 * array) without reading past it. The first component is a valid solver: it must not be registered,
 * since a plugin is taken whole or not at all.
 */
#include <eddy/eddy.h>

#include <stdlib.h>

struct eddy_solver {
    int unused;
};

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    (void)setup;
    *out = calloc(1, sizeof **out);
    return *out ? EDDY_OK : eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
}

static int step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    (void)s, (void)w, (void)dt, (void)err;
    return EDDY_OK;
}

static void destroy(eddy_solver *s) { free(s); }

static const eddy_solver_vtable vtable = {
    .size = sizeof(eddy_solver_vtable), .create = create, .step = step, .destroy = destroy};

static const eddy_component component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "guide_count",
    .version = "0.0.1",
    .description = "component_count 2 over an array of one component",
    .vtable = &vtable,
};

static const eddy_component *const components[] = {&component, NULL};

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = "guide_count",
    .version = "0.0.1",
    .component_count = 2,
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
