/*
 * A solver built against the frozen ABI 2.0 headers (tests/abi/v2_0/include), as a third-party author
 * wrote one before ABI 2.1: its create() derives a constant from the initial particles (their mean
 * height, as tait derives its sound speed from the fluid's height) and its save() does not store it,
 * which the 2.0 resume order allowed: create() saw the scene's initial particles again on resume.
 * A 2.1 host must keep that order for it (it cannot set EDDY_COMPONENT_STATE_COMPLETE), or a resumed
 * run would derive the constant from the checkpoint's particles and go on differently.
 *
 * The motion: free fall at (1 + mean initial height / 1 m) g, plus a counter k kept as solver state.
 */
#include <eddy/eddy.h>

#include <stdlib.h>

_Static_assert(EDDY_ABI_MAJOR == 2 && EDDY_ABI_MINOR == 0, "compiled against the frozen ABI 2.0 headers");

struct eddy_solver {
    float scale; /* derived in create() from the initial particles; not saved */
    float k;     /* saved */
};

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    const eddy_particles *p = &setup->world->particles;
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "v2_0_solver: out of memory");
    double sum = 0;
    for (size_t i = 0; i < p->count; ++i) sum += p->y[i];
    s->scale = 1.0f + (float)(p->count ? sum / (double)p->count : 0.0);
    *out = s;
    return EDDY_OK;
}

static int step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    (void)err;
    eddy_particles *p = &w->particles;
    const float h = (float)dt;
    s->k += 0.001f;
    for (size_t i = 0; i < p->count; ++i) {
        p->vx[i] += s->k * h;
        p->vy[i] += w->gravity[1] * s->scale * h;
        p->x[i] += p->vx[i] * h;
        p->y[i] += p->vy[i] * h;
    }
    return EDDY_OK;
}

static void destroy(eddy_solver *s) { free(s); }

static int save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    return eddy_state_save_floats("v2_0_solver/1", &s->k, 1, data, size, err);
}

static int load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    return eddy_state_load_floats("v2_0_solver/1", &s->k, 1, data, size, err);
}

static const eddy_solver_vtable vtable = {
    .size = sizeof(eddy_solver_vtable), .create = create, .step = step, .destroy = destroy, .save = save, .load = load};

static const eddy_component component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "v2_0_solver",
    .version = "2.0.0",
    .description = "built against the ABI 2.0 headers; derives a constant from the initial particles",
    .vtable = &vtable,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES,
};

static const eddy_component *const components[] = {&component};

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER, .name = "v2_0", .version = "2.0.0", .component_count = 1,
    .components = components};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
