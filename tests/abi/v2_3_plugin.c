/*
 * A solver built against the frozen ABI 2.3 headers as they stood before the contact response picked
 * its particles first (tests/abi/v2_3/include, commit b61e20f): the host's eddy_boundaries_respond
 * changed inside, and <eddy/boundary_math.h> gained eddy_hd_contact_pick. This plugin inlines the
 * older header's eddy_hd_contact_respond and checks, every step, that the host's response
 * (eddy_world_respond_boundaries) moved every particle exactly as that inline copy does; a step that
 * finds a difference fails with the particle named. So a host whose response drifted from what an
 * older plugin compiled in fails here, as does one that no longer loads such a plugin.
 *
 * The motion: free fall under gravity, then the contact response, then x += v dt. Particles reach the
 * floor and the walls within the first steps; a run in which no particle touches a surface by step 20
 * fails too, so the comparison cannot pass by comparing nothing.
 */
#include <eddy/boundary_math.h>
#include <eddy/eddy.h>

#include <stdlib.h>
#include <string.h>

_Static_assert(EDDY_ABI_MAJOR == 2 && EDDY_ABI_MINOR == 3, "compiled against the frozen ABI 2.3 headers");

struct eddy_solver {
    eddy_real *before; /* positions and velocities before the host's response, 6 per particle */
    size_t room;
    size_t steps, touched; /* steps taken, particle contacts seen by the inline response */
};

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    (void)setup;
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "v2_3_solver: out of memory");
    *out = s;
    return EDDY_OK;
}

static int step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    eddy_particles *p = &w->particles;
    const float h = (float)dt;
    if (p->count > s->room) {
        eddy_real *grown = realloc(s->before, 6 * p->count * sizeof *grown);
        if (!grown) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "v2_3_solver: out of memory");
        s->before = grown, s->room = p->count;
    }
    for (size_t i = 0; i < p->count; ++i) {
        p->vy[i] += w->gravity[1] * h;
        const eddy_real b[6] = {p->x[i], p->y[i], p->z[i], p->vx[i], p->vy[i], p->vz[i]};
        memcpy(s->before + 6 * i, b, sizeof b);
    }
    eddy_world_respond_boundaries(w, dt);
    const eddy_boundaries *bd = &w->boundaries;
    for (size_t i = 0; i < p->count; ++i) {
        eddy_real pos[3] = {s->before[6 * i], s->before[6 * i + 1], s->before[6 * i + 2]};
        eddy_real vel[3] = {s->before[6 * i + 3], s->before[6 * i + 4], s->before[6 * i + 5]};
        int any = 0;
        for (size_t k = 0; k < bd->collider_count; ++k)
            any |= eddy_hd_contact_respond(&bd->colliders[k], w->dimensions, &w->contacts[p->material[i]], pos, vel);
        s->touched += (size_t)any;
        const eddy_real host[6] = {p->x[i], p->y[i], p->z[i], p->vx[i], p->vy[i], p->vz[i]};
        const eddy_real mine[6] = {pos[0], pos[1], pos[2], vel[0], vel[1], vel[2]};
        if (memcmp(host, mine, sizeof host) != 0)
            return eddy_error_set(err, EDDY_ERR_PLUGIN,
                                  "v2_3_solver: step %zu, particle %zu: the host's contact response gives "
                                  "(%.9g %.9g) velocity (%.9g %.9g), the 2.3 inline one (%.9g %.9g) velocity "
                                  "(%.9g %.9g)",
                                  s->steps, i, (double)host[0], (double)host[1], (double)host[3], (double)host[4],
                                  (double)mine[0], (double)mine[1], (double)mine[3], (double)mine[4]);
        p->x[i] += p->vx[i] * h;
        p->y[i] += p->vy[i] * h;
        p->z[i] += p->vz[i] * h;
    }
    if (++s->steps >= 20 && s->touched == 0)
        return eddy_error_set(err, EDDY_ERR_PLUGIN, "v2_3_solver: no particle touched a surface in 20 steps");
    return EDDY_OK;
}

static void destroy(eddy_solver *s)
{
    if (!s) return;
    free(s->before);
    free(s);
}

static const eddy_solver_vtable vtable = {
    .size = sizeof(eddy_solver_vtable), .create = create, .step = step, .destroy = destroy};

static const eddy_component component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "v2_3_solver",
    .version = "2.3.0",
    .description = "built against the ABI 2.3 headers of b61e20f; checks the host's contact response",
    .vtable = &vtable,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES,
};

static const eddy_component *const components[] = {&component};

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER, .name = "v2_3", .version = "2.3.0", .component_count = 1,
    .components = components};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
