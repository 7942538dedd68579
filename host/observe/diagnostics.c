#include "diagnostics.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int eddy_diagnostics_of_frame(const eddy_frame *frame, eddy_diagnostics *d, eddy_error *err)
{
    memset(d, 0, sizeof *d);
    const eddy_world *w = frame->world;
    const eddy_particles *p = &w->particles;
    const uint32_t *order = frame->order;
    const size_t n = frame->count;
    d->particles = n;
    if (n == 0) return EDDY_OK;

    double ke = 0.0, px = 0.0, py = 0.0, pz = 0.0, mass = 0.0, err_sum = 0.0, err_max = 0.0;
    double vmax2 = 0.0;
    for (size_t k = 0; k < n; ++k) {
        size_t i = order[k];
        uint32_t m = p->material[i];
        if (m >= w->material_count)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "diagnostics: particle id %" PRIu64 " has material %" PRIu32
                                  ", but the world has %zu material(s)",
                                  p->id[i], m, w->material_count);
        double mi = w->materials[m].particle_mass;
        double rho0 = w->materials[m].rest_density;
        double vx = p->vx[i], vy = p->vy[i], vz = p->vz[i];
        double v2 = vx * vx + vy * vy + vz * vz;
        ke += 0.5 * mi * v2;
        px += mi * vx;
        py += mi * vy;
        pz += mi * vz;
        mass += mi;
        double e = fabs((double)p->density[i] / rho0 - 1.0);
        err_sum += e;
        /* A NaN, once seen, sticks: a blown-up run must not report a finite maximum (fmax would
         * quietly drop the NaN). !(a <= b) is true for a NaN a. */
        if (!isnan(err_max) && !(e <= err_max)) err_max = e;
        if (!isnan(vmax2) && !(v2 <= vmax2)) vmax2 = v2;
    }
    d->kinetic_energy = ke;
    d->momentum[0] = px;
    d->momentum[1] = py;
    d->momentum[2] = pz;
    d->mass = mass;
    d->density_error_mean = err_sum / (double)n;
    d->density_error_max = err_max;
    d->max_speed = sqrt(vmax2);
    return EDDY_OK;
}

int eddy_diagnostics_compute(const eddy_world *w, eddy_diagnostics *d, eddy_error *err)
{
    memset(d, 0, sizeof *d);
    if (w->particles.count == 0) return EDDY_OK;
    eddy_frame f;
    int rc = eddy_frame_of_host_copy(w, 0, &f, err);
    if (rc)
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "diagnostics: out of memory for %zu particles",
                              w->particles.count);
    rc = eddy_diagnostics_of_frame(&f, d, err);
    eddy_frame_release(&f);
    return rc;
}
