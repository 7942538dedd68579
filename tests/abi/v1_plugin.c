/*
 * A plugin built against the real ABI 1.0 headers (tests/abi/v1/include, a frozen copy), as a plugin
 * compiled for eddy 1 is. Its descriptor is {1, 0, 4, component_count, components, name}: a 2.x host
 * may read only the first three uint32 (where 2.x has `size`, 1.0 has the component count, 1 here), so
 * a host that read further would refuse it with a different message than the rebuild hint the loader
 * test expects. Built without libeddy: it calls nothing, it only has to be refused.
 */
#include <eddy/plugin.h>

#include <stdlib.h>

struct eddy_solver { int unused; };

static int create(eddy_world *w, const eddy_param_values *p, eddy_solver **out, eddy_error *err)
{
    (void)w; (void)p; (void)err;
    *out = calloc(1, sizeof **out);
    return *out ? EDDY_OK : EDDY_ERR_OUT_OF_MEMORY;
}

static int step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    (void)s; (void)w; (void)dt; (void)err;
    return EDDY_OK;
}

static void destroy(eddy_solver *s) { free(s); }

static const eddy_param_desc params[] = {
    {"gain", EDDY_PARAM_REAL, 0.5, 0.0, 1.0, "1", "A gain.", NULL},
};

static const eddy_solver_vtable vtable = {sizeof(eddy_solver_vtable), create, step, destroy,
                                          NULL, NULL, NULL, NULL};

static const eddy_component component = {sizeof(eddy_component), EDDY_COMPONENT_SOLVER, "v1_solver",
                                         "1.0.0", "a solver built for plugin ABI 1.0", params, 1,
                                         &vtable, NULL};

static const eddy_component *const components[] = {&component};

static const eddy_plugin_descriptor descriptor = {EDDY_PLUGIN_DESCRIPTOR_HEADER, 1, components,
                                                  "v1_plugin"};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
