/*
 * One source, many plugins: each BROKEN_* definition breaks exactly one rule of the ABI (plugin.h),
 * so the loader test can check that each is refused with its own message while the good one loads.
 */
#include <eddy/eddy.h>

#include <stdlib.h>

#ifndef COMPONENT_ID
#define COMPONENT_ID "test_solver"
#endif

struct eddy_solver { int unused; };

static int create(eddy_world *w, const eddy_param_values *p, eddy_solver **out, eddy_error *err)
{
    (void)w; (void)p; (void)err;
    *out = calloc(1, sizeof **out);
    return *out ? EDDY_OK : EDDY_ERR_OUT_OF_MEMORY;
}

#ifndef BROKEN_MISSING_STEP
static int step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    (void)s;
#ifdef EXPLODE_AT_STEP
    /* For the explosion-guard test: a NaN appears as a real blow-up would. */
    if (w->step + 1 == EXPLODE_AT_STEP && w->particles.count) w->particles.vx[0] = 0.0f / 0.0f;
#endif
    eddy_world_integrate_velocity(w, -1, (float)dt);
    eddy_world_integrate_position(w, (float)dt);
    (void)err;
    return EDDY_OK;
}
#endif

static void destroy(eddy_solver *s) { free(s); }

static const eddy_param_desc params[] = {
#ifdef BROKEN_PARAM_RANGE
    {"gain", EDDY_PARAM_REAL, 5.0, 0.0, 1.0, "1", "A gain whose default is out of its own range.", NULL},
#else
    {"gain", EDDY_PARAM_REAL, 0.5, 0.0, 1.0, "1", "A gain.", NULL},
#endif
};

static const eddy_solver_vtable vtable = {
#ifdef BROKEN_SHORT_VTABLE
    sizeof(size_t) + sizeof(void *),
#else
    sizeof(eddy_solver_vtable),
#endif
    create,
#ifdef BROKEN_MISSING_STEP
    NULL,
#else
    step,
#endif
    destroy, NULL, NULL, NULL, NULL};

static const eddy_component component = {sizeof(eddy_component), EDDY_COMPONENT_SOLVER, COMPONENT_ID,
                                         "0.0.1", "test solver: gravity only", params, 1, &vtable, NULL};

static const eddy_component *const components[] = {&component};

static const eddy_plugin_descriptor descriptor = {
#if defined(BROKEN_MAJOR)
    EDDY_ABI_MAJOR + 1, EDDY_ABI_MINOR, (uint32_t)sizeof(eddy_real),
#elif defined(BROKEN_MINOR)
    EDDY_ABI_MAJOR, EDDY_ABI_MINOR + 1, (uint32_t)sizeof(eddy_real),
#elif defined(BROKEN_REAL_SIZE)
    EDDY_ABI_MAJOR, EDDY_ABI_MINOR, (uint32_t)sizeof(double),
#else
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
#endif
    1, components, "test_plugin"};

#ifndef BROKEN_NO_ENTRY
EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
#else
/* Exported under the wrong name: the loader must not find an entry. */
EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry_v0(void) { return &descriptor; }
#endif
