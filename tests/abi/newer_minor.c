/*
 * A plugin built against a NEWER MINOR (EDDY_ABI_MINOR + 1) than this host's. Such headers would
 * append members at the end of the structs that begin with `size`; the local structs below are the
 * 2.0 ones with a member appended each, and every `size` is the larger sizeof. The host must refuse it
 * at the version check, naming both versions, before it reads anything the newer layout may have
 * changed the meaning of.
 */
#include <eddy/eddy.h>

#include <stdlib.h>

typedef struct newer_param_desc {
    eddy_param_desc v2_0;
    const char *group;                  /* appended */
} newer_param_desc;

typedef struct newer_solver_vtable {
    eddy_solver_vtable v2_0;
    int (*suspend)(eddy_solver *solver, eddy_error *err); /* appended */
} newer_solver_vtable;

typedef struct newer_component {
    eddy_component v2_0;
    const char *license;                /* appended */
} newer_component;

typedef struct newer_plugin_descriptor {
    eddy_plugin_descriptor v2_0;
    uint64_t capabilities;              /* appended */
} newer_plugin_descriptor;

struct eddy_solver { int unused; };

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    (void)setup; (void)err;
    *out = calloc(1, sizeof **out);
    return *out ? EDDY_OK : EDDY_ERR_OUT_OF_MEMORY;
}

static int step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    (void)s; (void)w; (void)dt; (void)err;
    return EDDY_OK;
}

static void destroy(eddy_solver *s) { free(s); }

static int suspend(eddy_solver *s, eddy_error *err)
{
    (void)s; (void)err;
    return EDDY_OK;
}

static const newer_param_desc params[] = {
    {{.size = sizeof(newer_param_desc), .id = "gain", .type = EDDY_PARAM_REAL, .def = 0.5, .min = 0,
      .max = 1, .unit = "1", .doc = "A gain."}, "gains"},
};

static const newer_solver_vtable vtable = {
    {.size = sizeof(newer_solver_vtable), .create = create, .step = step, .destroy = destroy}, suspend};

static const newer_component component = {
    {.size = sizeof(newer_component), .interface_id = EDDY_INTERFACE_SOLVER, .id = "newer_solver",
     .version = "2.1.0", .description = "a solver built against a newer 2.x minor",
     .params = &params[0].v2_0, .param_count = 1, .vtable = &vtable,
     .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES},
    "MIT"};

static const eddy_component *const components[] = {&component.v2_0};

static const newer_plugin_descriptor descriptor = {
    {.abi_major = EDDY_ABI_MAJOR, .abi_minor = EDDY_ABI_MINOR + 1, .real_size = sizeof(eddy_real),
     .size = sizeof(newer_plugin_descriptor), .name = "newer_minor", .version = "2.1.0",
     .component_count = 1, .components = components},
    1};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor.v2_0; }
