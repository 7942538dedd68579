#include "diagnostics.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* |rho / rho0 - 1| of particle i of material m: the density error of the mean, the maximum and the
 * percentile alike. */
static inline double density_error(const eddy_world *w, size_t i, uint32_t m)
{
    return fabs((double)w->particles.density[i] / w->materials[m].rest_density - 1.0);
}

/* The exact sums of a partial in their packed order. */
static void sums_of(eddy_diagnostics_partial *d, eddy_xsum **s)
{
    eddy_xsum *const all[EDDY_DIAGNOSTICS_SUMS] = {&d->kinetic_energy, &d->momentum[0], &d->momentum[1],
                                                  &d->momentum[2],      &d->mass,        &d->density_error,
                                                  &d->potential_energy};
    memcpy(s, all, sizeof all);
}

int eddy_diagnostics_partial_of_frame(const eddy_frame *frame, eddy_diagnostics_partial *d, eddy_error *err)
{
    memset(d, 0, sizeof *d);
    eddy_xsum *sums[EDDY_DIAGNOSTICS_SUMS];
    sums_of(d, sums);
    for (size_t k = 0; k < EDDY_DIAGNOSTICS_SUMS; ++k) eddy_xsum_init(sums[k]);
    const eddy_world *w = frame->world;
    const double gx = w->gravity[0], gy = w->gravity[1], gz = w->gravity[2];
    const eddy_particles *p = &w->particles;
    const uint32_t *order = frame->order;
    const size_t n = frame->count;
    d->particles = (int64_t)n;
    double err_max = 0.0, vmax2 = 0.0;
    for (size_t k = 0; k < n; ++k) {
        size_t i = order[k];
        uint32_t m = p->material[i];
        if (m >= w->material_count)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "diagnostics: particle id %" PRIu64 " has material %" PRIu32
                                  ", but the world has %zu material(s)",
                                  p->id[i], m, w->material_count);
        double mi = w->materials[m].particle_mass;
        double vx = p->vx[i], vy = p->vy[i], vz = p->vz[i];
        double v2 = vx * vx + vy * vy + vz * vz;
        eddy_xsum_add(&d->kinetic_energy, 0.5 * mi * v2);
        eddy_xsum_add(&d->momentum[0], mi * vx);
        eddy_xsum_add(&d->momentum[1], mi * vy);
        eddy_xsum_add(&d->momentum[2], mi * vz);
        eddy_xsum_add(&d->mass, mi);
        /* Each term is rounded from the same operands in the same order whichever process holds the
         * particle, so the exact sum of the terms is the same for every split. */
        eddy_xsum_add(&d->potential_energy, -mi * (gx * (double)p->x[i] + gy * (double)p->y[i] + gz * (double)p->z[i]));
        double e = density_error(w, i, m);
        eddy_xsum_add(&d->density_error, e);
        /* NaNs are counted apart, so that the maxima combine over processes with a plain MPI_MAX (whose
         * treatment of NaN is unspecified) and a blown-up run still reports NaN (fmax would drop it). */
        if (isnan(e)) d->nan_density_error++;
        else if (e > err_max) err_max = e;
        if (isnan(v2)) d->nan_speed2++;
        else if (v2 > vmax2) vmax2 = v2;
    }
    d->density_error_max = err_max;
    d->speed2_max = vmax2;
    return EDDY_OK;
}

void eddy_diagnostics_pack(const eddy_diagnostics_partial *d, int64_t *sums, double *maxima)
{
    eddy_xsum *s[EDDY_DIAGNOSTICS_SUMS];
    sums_of((eddy_diagnostics_partial *)d, s); /* (read only here) */
    for (size_t k = 0; k < EDDY_DIAGNOSTICS_SUMS; ++k) eddy_xsum_pack(s[k], sums + k * EDDY_XSUM_WORDS);
    int64_t *counts = sums + EDDY_DIAGNOSTICS_SUMS * EDDY_XSUM_WORDS;
    counts[0] = d->nan_density_error;
    counts[1] = d->nan_speed2;
    counts[2] = d->particles;
    maxima[0] = d->density_error_max;
    maxima[1] = d->speed2_max;
}

void eddy_diagnostics_unpack(eddy_diagnostics_partial *d, const int64_t *sums, const double *maxima)
{
    eddy_xsum *s[EDDY_DIAGNOSTICS_SUMS];
    sums_of(d, s);
    for (size_t k = 0; k < EDDY_DIAGNOSTICS_SUMS; ++k) eddy_xsum_unpack(s[k], sums + k * EDDY_XSUM_WORDS);
    const int64_t *counts = sums + EDDY_DIAGNOSTICS_SUMS * EDDY_XSUM_WORDS;
    d->nan_density_error = counts[0];
    d->nan_speed2 = counts[1];
    d->particles = counts[2];
    d->density_error_max = maxima[0];
    d->speed2_max = maxima[1];
}

void eddy_diagnostics_finish(const eddy_diagnostics_partial *p, eddy_diagnostics *d)
{
    memset(d, 0, sizeof *d);
    d->particles = (size_t)p->particles;
    if (p->particles == 0) return;
    d->kinetic_energy = eddy_xsum_round(&p->kinetic_energy);
    d->potential_energy = eddy_xsum_round(&p->potential_energy);
    d->total_energy = d->kinetic_energy + d->potential_energy;
    for (int a = 0; a < 3; ++a) d->momentum[a] = eddy_xsum_round(&p->momentum[a]);
    d->mass = eddy_xsum_round(&p->mass);
    d->density_error_mean = eddy_xsum_round(&p->density_error) / (double)p->particles;
    d->density_error_max = p->nan_density_error ? NAN : p->density_error_max;
    d->max_speed = p->nan_speed2 ? NAN : sqrt(p->speed2_max);
}

/* The density error of the frame's k-th particle; -1 for a material outside the table. */
static double density_error_of(const eddy_frame *frame, size_t k)
{
    const eddy_world *w = frame->world;
    const size_t i = frame->order[k];
    const uint32_t m = w->particles.material[i];
    return m < w->material_count ? density_error(w, i, m) : -1.0;
}

int eddy_diagnostics_density_error_quantile(const eddy_frame *frame, double q, eddy_diagnostics_sum_fn sum,
                                            void *ctx, double *out, eddy_error *err)
{
    enum { BINS = 256, NAN_COUNT = BINS, ALL = BINS + 1, WORDS = BINS + 2 };
    *out = 0.0;
    if (!(q > 0.0 && q <= 1.0)) /* (the same q on every process: refused by all before any round) */
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "diagnostics: quantile %g, expected a number in (0, 1]", q);
    uint64_t prefix = 0, rank = 0;
    int bad = 0;
    int64_t counts[WORDS];
    for (int shift = 56; shift >= 0; shift -= 8) {
        /* The bits above `shift` are found; the errors that share them are counted by the next byte. */
        const uint64_t above = shift == 56 ? 0 : ~UINT64_C(0) << (shift + 8);
        memset(counts, 0, sizeof counts);
        for (size_t k = 0; k < frame->count; ++k) {
            const double e = density_error_of(frame, k);
            if (e < 0) {
                bad = 1;
                continue;
            }
            if (isnan(e)) {
                counts[NAN_COUNT]++;
                continue;
            }
            counts[ALL]++;
            uint64_t bits;
            memcpy(&bits, &e, sizeof bits);
            if ((bits & above) == prefix) counts[(bits >> shift) & 0xff]++;
        }
        /* Every process takes part in every round, a failed one too, so that none waits in a sum. */
        if (sum) {
            int rc = sum(ctx, counts, WORDS, err);
            if (rc) return rc;
        }
        if (counts[NAN_COUNT] > 0) {
            *out = NAN;
            break;
        }
        if (counts[ALL] == 0) break;
        if (shift == 56) {
            const double r = ceil(q * (double)counts[ALL]);
            rank = r < 1 ? 1 : r > (double)counts[ALL] ? (uint64_t)counts[ALL] : (uint64_t)r;
        }
        /* The byte whose errors hold the one of rank `rank` among those under the prefix. */
        int b = 0;
        while (b < BINS - 1 && rank > (uint64_t)counts[b]) rank -= (uint64_t)counts[b++];
        prefix |= (uint64_t)b << shift;
        if (shift == 0) memcpy(out, &prefix, sizeof *out);
    }
    if (bad)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "diagnostics: a particle's material is outside the world's %zu material(s)",
                              frame->world->material_count);
    return EDDY_OK;
}

int eddy_diagnostics_of_frame(const eddy_frame *frame, eddy_diagnostics *d, eddy_error *err)
{
    eddy_diagnostics_partial p;
    memset(d, 0, sizeof *d);
    int rc = eddy_diagnostics_partial_of_frame(frame, &p, err);
    if (!rc) eddy_diagnostics_finish(&p, d);
    if (!rc && p.particles > 0)
        rc = eddy_diagnostics_density_error_quantile(frame, 0.99, NULL, NULL, &d->density_error_p99, err);
    return rc;
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
