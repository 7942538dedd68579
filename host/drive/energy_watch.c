/*
 * host/drive/energy_watch.c — whether a run made energy (energy_watch.h).
 *
 * With walls at rest and gravity the only body force, no consistent scheme gains energy (viscosity and
 * walls only take it out), so a large rise is an unstable run that otherwise ended with status 0 and a
 * "done" line (sph_mueller's dam break without viscosity reached 12 times its start; a 1.5 density ratio
 * under sph_mueller 20 times; at 20 particles across the column with the default viscosity 2.3 times,
 * passing the front check of `eddy validate` and "ok" in `eddy compare` until they watched it too). The
 * scale is the mechanical energy above the container's floor at the start, as compare's relative change
 * (the origin cancels).
 */
#include "energy_watch.h"

#include <math.h>
#include <stdio.h>

#include "sim.h"


void eddy_energy_watch_frame(eddy_energy_watch *ew, const struct eddy_sim *sim, const eddy_diagnostics *d, double t)
{
    const eddy_scene *s = &sim->scene;
    if (ew->state == 0) {
        const double g_dot_floor = eddy_scene_gravity_floor(s);
        /* Gravity along a periodic axis makes E_p jump as positions wrap. */
        int off = 0;
        for (int a = 0; a < s->dimensions; ++a) off |= s->gravity[a] != 0 && s->periodic[a];
        /* (a collider with a velocity, moving or a conveyor belt in place, does work on the fluid) */
        const eddy_boundaries *b = &sim->world->boundaries;
        for (size_t i = 0; i < b->collider_count; ++i)
            off |= b->colliders[i].velocity[0] != 0 || b->colliders[i].velocity[1] != 0 ||
                   b->colliders[i].velocity[2] != 0;
        ew->start = d->total_energy;
        ew->particles = (double)d->particles;
        ew->above_floor = d->total_energy + d->mass * g_dot_floor;
        ew->rise = 0;
        ew->rise_time = t;
        ew->state = off || !(ew->above_floor > 0) ? -1 : 1;
        return;
    }
    /* A particle removed (domain.out_of_domain "remove") takes its energy along, and one below the
     * origin took a negative E_k + E_p: the total then rose with no scheme at fault. */
    if ((double)d->particles < ew->particles) ew->stopped = 1;
    const double rise = d->total_energy - ew->start;
    if (ew->state == 1 && !ew->stopped && rise > ew->rise) {
        ew->rise = rise;
        ew->rise_time = t;
    }
}

int eddy_energy_watch_made(const eddy_energy_watch *ew)
{
    /* Half the energy the fluid had to lose: far beyond what a time integrator's own error adds. */
    return ew->state == 1 && ew->rise > 0.5 * ew->above_floor;
}

double eddy_energy_watch_ratio(const eddy_energy_watch *ew)
{
    return ew->state == 1 ? ew->rise / ew->above_floor : NAN;
}

/* The hint's "not always": sph_mueller's dam break made energy at dt / 2 and at cfl = 0.1 alike, its
 * spiky pressure force's gain, not the step (docs/solvers/sph_mueller.md, "When a run blows up"). */
void eddy_energy_watch_describe(const eddy_energy_watch *ew, const eddy_scene *scene, char *out, size_t size)
{
    const char *unit = scene->dimensions == 2 ? "J/m" : "J";
    snprintf(out, size,
             "the energy E_k + E_p rose by %.4g %s (at t = %.6g s), %.3g times the mechanical energy above the %s's "
             "floor at the start (%.4g %s), with walls at rest: the scheme made energy, so the run is likely "
             "unstable (more viscosity or another solver may help, a smaller time.dt not always; docs/compare.md)",
             ew->rise, unit, ew->rise_time, ew->rise / ew->above_floor, scene->has_container ? "container" : "domain",
             ew->above_floor, unit);
}

void eddy_energy_watch_warn(const eddy_energy_watch *ew, const eddy_scene *scene, const char *who)
{
    if (!eddy_energy_watch_made(ew)) return;
    char text[512];
    eddy_energy_watch_describe(ew, scene, text, sizeof text);
    fprintf(stderr, "eddy: warning: %s%s%s\n", who ? who : "", who ? ": " : "", text);
}

cJSON *eddy_energy_watch_to_json(const eddy_energy_watch *ew)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddNumberToObject(o, "state", ew->state) || !cJSON_AddNumberToObject(o, "start", ew->start) ||
        !cJSON_AddNumberToObject(o, "above_floor", ew->above_floor) || !cJSON_AddNumberToObject(o, "rise", ew->rise) ||
        !cJSON_AddNumberToObject(o, "rise_time", ew->rise_time) ||
        !cJSON_AddNumberToObject(o, "particles", ew->particles) || !cJSON_AddBoolToObject(o, "stopped", ew->stopped)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int eddy_energy_watch_from_json(eddy_energy_watch *ew, const cJSON *o)
{
    static const char *const numbers[] = {"state", "start", "above_floor", "rise", "rise_time", "particles"};
    double v[6];
    for (int k = 0; k < 6; ++k) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, numbers[k]);
        if (!cJSON_IsNumber(n) || !isfinite(n->valuedouble)) return -1;
        v[k] = n->valuedouble;
    }
    const cJSON *stopped = cJSON_GetObjectItemCaseSensitive(o, "stopped");
    if (!cJSON_IsBool(stopped) || (v[0] != -1 && v[0] != 0 && v[0] != 1) || !(v[5] >= 0)) return -1;
    *ew = (eddy_energy_watch){.state = (int)v[0], .start = v[1], .above_floor = v[2], .rise = v[3],
                              .rise_time = v[4], .particles = v[5], .stopped = cJSON_IsTrue(stopped)};
    return 0;
}
