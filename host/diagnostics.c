#include "diagnostics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint32_t *eddy_order_by_id(const eddy_particles *p)
{
    size_t n = p->count;
    if (n > UINT32_MAX) return NULL;
    uint32_t *a = malloc(sizeof *a * (n ? n : 1));
    uint32_t *b = malloc(sizeof *b * (n ? n : 1));
    if (!a || !b) {
        free(a);
        free(b);
        return NULL;
    }
    for (size_t i = 0; i < n; ++i) a[i] = (uint32_t)i;
    /* LSD radix sort, one byte per pass: O(N) where a comparison sort would dominate an output frame
     * of a million particles. Each pass is a stable counting sort, which is what makes LSD correct. */
    for (int shift = 0; shift < 32; shift += 8) {
        size_t start[257] = {0};
        for (size_t i = 0; i < n; ++i) start[((p->id[a[i]] >> shift) & 255u) + 1]++;
        int skip = 0;
        for (int k = 1; k <= 256; ++k)
            if (start[k] == n) skip = 1; /* every id shares this byte: the pass would be a copy */
        if (skip) continue;
        for (int k = 1; k <= 256; ++k) start[k] += start[k - 1];
        for (size_t i = 0; i < n; ++i) b[start[(p->id[a[i]] >> shift) & 255u]++] = a[i];
        uint32_t *t = a;
        a = b;
        b = t;
    }
    free(b);
    return a;
}

int eddy_diagnostics_compute(const eddy_world *w, eddy_diagnostics *d, eddy_error *err)
{
    memset(d, 0, sizeof *d);
    const eddy_particles *p = &w->particles;
    size_t n = p->count;
    d->particles = n;
    if (n == 0) return EDDY_OK;

    uint32_t *order = eddy_order_by_id(p);
    if (!order)
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "diagnostics: out of memory for %zu particles", n);

    double ke = 0.0, px = 0.0, py = 0.0, pz = 0.0, mass = 0.0, err_sum = 0.0, err_max = 0.0;
    double vmax2 = 0.0;
    int status = EDDY_OK;
    for (size_t k = 0; k < n; ++k) {
        size_t i = order[k];
        uint32_t m = p->material[i];
        if (m >= w->material_count) {
            status = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                    "diagnostics: particle id %u has material %u, but the world has %zu material(s)",
                                    p->id[i], m, w->material_count);
            break;
        }
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
    free(order);
    if (status) return status;

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
