/*
 * One source, many plugins: each BROKEN_* definition breaks exactly one rule of the ABI (plugin.h),
 * so the loader test can check that each is refused with its own message while the good one loads.
 * Other suites use the good variants (the exploding solver) through EDDY_PLUGIN_PATH.
 */
#include <eddy/eddy.h>

#include <math.h>
#include <stdlib.h>

#ifndef COMPONENT_ID
#define COMPONENT_ID "test_solver"
#endif

struct eddy_solver { int unused; };

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    (void)setup; (void)err;
    *out = calloc(1, sizeof **out);
    return *out ? EDDY_OK : EDDY_ERR_OUT_OF_MEMORY;
}

#ifndef BROKEN_MISSING_STEP
static int step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    (void)s; (void)err;
#ifdef EXPLODE_AT_STEP
    /* For the explosion-guard test: a NaN appears as a real blow-up would. */
    if (w->step + 1 == EXPLODE_AT_STEP && w->particles.count) w->particles.vx[0] = NAN;
#endif
    eddy_world_integrate_velocity(w, -1, (eddy_real)dt);
    eddy_world_integrate_position(w, (eddy_real)dt);
    return EDDY_OK;
}
#endif

static void destroy(eddy_solver *s) { free(s); }

static const eddy_param_desc params[] = {
#ifdef BROKEN_PARAM_RANGE
    EDDY_PARAM_REAL_DESC("gain", 5.0, 0.0, 1.0, "1", "A gain whose default is out of its own range."),
#elif defined(BROKEN_PARAM_EMPTY_RANGE)
    EDDY_PARAM_REAL_DESC("gain", 0.5, 1.0, 0.0, "1", "A gain whose min and max are swapped."),
#elif defined(BROKEN_PARAM_NAN_BOUND)
    EDDY_PARAM_REAL_DESC("gain", 0.5, NAN, 1.0, "1", "A gain whose min is NaN."),
#else
    EDDY_PARAM_REAL_DESC("gain", 0.5, 0.0, 1.0, "1", "A gain."),
#endif
};

static const eddy_solver_vtable vtable = {
#ifdef BROKEN_SHORT_VTABLE
    /* As if the vtable ended after create: too short for the required step and destroy. */
    .size = offsetof(eddy_solver_vtable, create) + sizeof(void (*)(void)),
#else
    .size = sizeof(eddy_solver_vtable),
#endif
    .create = create,
#ifndef BROKEN_MISSING_STEP
    .step = step,
#endif
    .destroy = destroy,
};

static const eddy_component component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = COMPONENT_ID,
    .version = "0.0.1",
    .description = "test solver: gravity only",
    .params = params,
    .param_count = sizeof params / sizeof params[0],
    .vtable = &vtable,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES,
};

#ifdef BROKEN_COMPONENT_TWICE
/* The same component listed twice, as a copied line leaves it. */
static const eddy_component *const components[] = {&component, &component};
#else
static const eddy_component *const components[] = {&component};
#endif

static const eddy_plugin_descriptor descriptor = {
#if defined(BROKEN_MAJOR)
    EDDY_ABI_MAJOR + 1, 0, sizeof(eddy_real), sizeof(eddy_plugin_descriptor), /* a 3.0 plugin */
#elif defined(BROKEN_MINOR)
    EDDY_ABI_MAJOR, EDDY_ABI_MINOR + 1, sizeof(eddy_real), sizeof(eddy_plugin_descriptor),
#elif defined(BROKEN_REAL_SIZE)
    EDDY_ABI_MAJOR, EDDY_ABI_MINOR, sizeof(double), sizeof(eddy_plugin_descriptor),
#elif defined(BROKEN_NO_HEADER)
    /* the header macro forgotten: the four members stay 0 */
#elif defined(BROKEN_HALF_HEADER)
    EDDY_ABI_MAJOR, EDDY_ABI_MINOR, /* the version written by hand, real_size and size forgotten */
#else
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
#endif
    .name = "test_plugin",
    .version = "0.0.1",
    .component_count = sizeof components / sizeof components[0],
    .components = components,
};

#if defined(BROKEN_NO_ENTRY)
/* Exported under the wrong name: the loader must not find an entry, and names this one. */
EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry_v0(void) { return &descriptor; }
#elif defined(BROKEN_HIDDEN_ENTRY)
/* The right name without EDDY_EXPORT: hidden (plugins build with -fvisibility=hidden), so the file
 * exports nothing that looks like an entry. */
const eddy_plugin_descriptor *eddy_plugin_entry(void);
const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
#else
EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
#endif
