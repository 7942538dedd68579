/*
 * A solver built against the frozen ABI 2.1 headers (tests/abi/v2_1/include), as a third-party author
 * wrote one before ABI 2.2: it sets EDDY_COMPONENT_STATE_COMPLETE, derives a constant from the initial
 * particles in create() unless setup->resuming, saves it, and calls eddy_boundaries_mirrors(), whose
 * implementation 2.2 reorganized (its wall selection is now shared with eddy_boundaries_mirror_walls).
 * A 2.2 host must load it and resume its runs bit for bit in the 2.1 order.
 *
 * The motion: free fall at (1 + mean initial height / 1 m) g; a particle within h of a wall loses a
 * tenth of its velocity per step for each mirror it has (so a changed mirror count changes the state).
 */
#include <eddy/eddy.h>

#include <stdlib.h>

/* Built twice: against the frozen 2.1 headers and against the frozen 2.2 headers (tests/abi/v2_2), the
 * last before 2.3 added eddy_particles_hash_continue; each must load into this host. */
_Static_assert(EDDY_ABI_MAJOR == 2 && (EDDY_ABI_MINOR == 1 || EDDY_ABI_MINOR == 2),
               "compiled against the frozen ABI 2.1 or 2.2 headers");

struct eddy_solver {
    float scale; /* derived in create() from the initial particles; saved (STATE_COMPLETE) */
    float k;
};

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    const eddy_particles *p = &setup->world->particles;
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "v2_1_solver: out of memory");
    if (!setup->resuming) {
        double sum = 0;
        for (size_t i = 0; i < p->count; ++i) sum += p->y[i];
        s->scale = 1.0f + (float)(p->count ? sum / (double)p->count : 0.0);
    }
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
        const eddy_real pos[3] = {p->x[i], p->y[i], p->z[i]};
        eddy_mirror m[EDDY_MAX_MIRRORS];
        const int n = eddy_boundaries_mirrors(&w->boundaries, NULL, w->smoothing_radius, pos, m);
        const float keep = 1.0f - 0.1f * (float)n;
        p->vx[i] = (p->vx[i] + s->k * h) * keep;
        p->vy[i] = (p->vy[i] + w->gravity[1] * s->scale * h) * keep;
        p->x[i] += p->vx[i] * h;
        p->y[i] += p->vy[i] * h;
    }
    return EDDY_OK;
}

static void destroy(eddy_solver *s) { free(s); }

static int save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    const float v[2] = {s->scale, s->k};
    return eddy_state_save_floats("v2_1_solver/1", v, 2, data, size, err);
}

static int load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    float v[2];
    int rc = eddy_state_load_floats("v2_1_solver/1", v, 2, data, size, err);
    if (rc) return rc;
    s->scale = v[0];
    s->k = v[1];
    return EDDY_OK;
}

static const eddy_solver_vtable vtable = {
    .size = sizeof(eddy_solver_vtable), .create = create, .step = step, .destroy = destroy, .save = save, .load = load};

static const eddy_component component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "v2_1_solver",
    .version = "2.1.0",
    .description = "built against the ABI 2.1 headers; complete state, mirrors near the walls",
    .vtable = &vtable,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES | EDDY_COMPONENT_STATE_COMPLETE,
};

static const eddy_component *const components[] = {&component};

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER, .name = "v2_1", .version = "2.1.0", .component_count = 1,
    .components = components};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
