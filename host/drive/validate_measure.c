/*
 * host/drive/validate_measure.c — what `eddy validate` measures on a frame, the one initial condition a
 * scene cannot state (a velocity field), and the error measures. Every measure is taken on the frame
 * snapshot (observe/frame.h), the same particles every writer and probe sees; each is named by a
 * case's "measure.kind" (validate_internal.h lists them), so a case combines them without C code.
 */
#include "validate_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const eddy_real *coord(const eddy_particles *p, int axis)
{
    return axis == 0 ? p->x : axis == 1 ? p->y : p->z;
}

static const eddy_real *vel(const eddy_particles *p, int axis)
{
    return axis == 0 ? p->vx : axis == 1 ? p->vy : p->vz;
}

/* The up axis: against the largest gravity component (y when there is none). */
static int up_axis(const eddy_world *w)
{
    int a = 1;
    for (int k = 0; k < w->dimensions; ++k)
        if (fabs(w->gravity[k]) > fabs(w->gravity[a])) a = k;
    return a;
}

/*
 * Hydrostatics: least-squares p(y) = a + b y over the bulk, the particles at least 2h from the side
 * walls, the floor and the level H the fluid's mass fills at rest density (where the SPH sums have full
 * support: the truncated kernel at a wall or the surface is the discretization's, not the physics').
 * H = mass / (rho0 * floor area) is independent of how SPH spreads the surface.
 */
static int bulk_fit(const eddy_frame *fr, double *a, double *b, double *expected_p0, double *rho0g)
{
    const eddy_world *w = fr->world;
    const eddy_particles *p = &w->particles;
    const int up = up_axis(w);
    const double h = w->smoothing_radius, rho0 = w->materials[0].rest_density, g = fabs(w->gravity[up]);
    double area = 1.0;
    for (int k = 0; k < w->dimensions; ++k)
        if (k != up) area *= w->boundaries.container_max[k] - w->boundaries.container_min[k];
    double mass = 0;
    for (size_t n = 0; n < fr->count; ++n) mass += p->mass[fr->order[n]];
    const double H = mass / (rho0 * area), floor = w->boundaries.container_min[up];
    double sy = 0, sp = 0, syy = 0, syp = 0;
    size_t nb = 0;
    for (size_t n = 0; n < fr->count; ++n) {
        const size_t i = fr->order[n];
        const double y = coord(p, up)[i] - floor;
        if (y < 2 * h || y > H - 2 * h) continue;
        int inside = 1;
        for (int k = 0; k < w->dimensions; ++k) {
            if (k == up) continue;
            const double x = coord(p, k)[i];
            if (x < w->boundaries.container_min[k] + 2 * h || x > w->boundaries.container_max[k] - 2 * h) inside = 0;
        }
        if (!inside) continue;
        sy += y, sp += p->pressure[i], syy += y * y, syp += y * p->pressure[i];
        ++nb;
    }
    if (nb < 3) return -1;
    *b = (nb * syp - sy * sp) / (nb * syy - sy * sy);
    *a = (sp - *b * sy) / nb;
    *expected_p0 = rho0 * g * H;
    *rho0g = rho0 * g;
    return 0;
}

/* The mode's shape at (x, y): u = A f, v = A g. */
static void mode_shape(int mode, double k, double x, double y, double *f, double *g)
{
    if (mode == 2) {
        *f = sin(k * y);
        *g = 0;
    } else {
        *f = -cos(k * x) * sin(k * y);
        *g = sin(k * x) * cos(k * y);
    }
}

/* Least squares: A minimizing sum |v_i - A shape(x_i)|^2. */
double vmeasure_mode_amplitude(const eddy_frame *fr, int mode, double k)
{
    const eddy_particles *p = &fr->world->particles;
    double num = 0, den = 0;
    for (size_t n = 0; n < fr->count; ++n) {
        const size_t i = fr->order[n];
        const double x = p->x[i], y = p->y[i];
        double f, g;
        mode_shape(mode, k, x, y, &f, &g);
        num += p->vx[i] * f + p->vy[i] * g;
        den += f * f + g * g;
    }
    return den > 0 ? num / den : NAN;
}

double vmeasure_scalar(const vcheck *ck, const vcase *c, const vbaseline *b, const eddy_frame *fr,
                       const eddy_probes *probes, const double *probe_values)
{
    const eddy_world *w = fr->world;
    const eddy_particles *p = &w->particles;
    const double rho0 = w->materials[0].rest_density;
    switch (ck->measure) {
    case M_PROBE:
        for (size_t i = 0; i < eddy_probes_count(probes); ++i)
            if (strcmp(eddy_probes_name(probes, i), ck->probe) == 0)
                return isnan(probe_values[i]) ? ck->dry : probe_values[i];
        return NAN;
    case M_BOTTOM_PRESSURE:
    case M_PRESSURE_GRADIENT: {
        double a, b, p0, rg;
        if (bulk_fit(fr, &a, &b, &p0, &rg)) return NAN;
        return ck->measure == M_BOTTOM_PRESSURE ? a / p0 : b / -rg;
    }
    case M_MEAN_DENSITY: {
        double s = 0;
        for (size_t n = 0; n < fr->count; ++n) s += p->density[fr->order[n]];
        return fr->count ? s / (double)fr->count / rho0 : NAN;
    }
    case M_DENSITY_DEVIATION: {
        /* Particles with a full kernel below the top one: the summation density of the top layer lacks
         * the neighbours above it, a truncation rather than a compression. */
        const int up = up_axis(w);
        const eddy_real *y = coord(p, up);
        double top = -INFINITY, worst = 0;
        for (size_t n = 0; n < fr->count; ++n) top = fmax(top, y[fr->order[n]]);
        for (size_t n = 0; n < fr->count; ++n) {
            const size_t i = fr->order[n];
            if (top - y[i] > w->smoothing_radius) worst = fmax(worst, fabs(p->density[i] / rho0 - 1));
        }
        return worst;
    }
    case M_MAX_SPEED: {
        double m = 0;
        for (size_t n = 0; n < fr->count; ++n) {
            const size_t i = fr->order[n];
            m = fmax(m, sqrt((double)p->vx[i] * p->vx[i] + (double)p->vy[i] * p->vy[i] + (double)p->vz[i] * p->vz[i]));
        }
        return m;
    }
    case M_BOTTOM_DENSITY: {
        /* The layer within h of the floor, 2h from the side walls: its density excess over rho0 is what
         * the linearized equation of state p = c2 (rho - rho0) gives under the hydrostatic pressure
         * there, rho0 g (H - h/2) (the layer's centre sits about h/2 up). */
        const int up = up_axis(w);
        const double h = w->smoothing_radius, g = fabs(w->gravity[up]);
        const double c2 = eddy_param_get(&w->materials[0].params, "stiffness", NAN);
        const double floor = w->boundaries.container_min[up];
        double area = 1.0, mass = 0, rho = 0;
        size_t n = 0;
        for (int k = 0; k < w->dimensions; ++k)
            if (k != up) area *= w->boundaries.container_max[k] - w->boundaries.container_min[k];
        for (size_t q = 0; q < fr->count; ++q) mass += p->mass[fr->order[q]];
        const double H = mass / (rho0 * area);
        for (size_t q = 0; q < fr->count; ++q) {
            const size_t i = fr->order[q];
            if (coord(p, up)[i] - floor >= h) continue;
            int inside = 1;
            for (int k = 0; k < w->dimensions; ++k)
                if (k != up && (coord(p, k)[i] < w->boundaries.container_min[k] + 2 * h ||
                                coord(p, k)[i] > w->boundaries.container_max[k] - 2 * h))
                    inside = 0;
            if (!inside) continue;
            rho += p->density[i];
            ++n;
        }
        if (!n || !(c2 > 0) || !(g > 0)) return NAN;
        return (rho / n / rho0 - 1) / (g * (H - 0.5 * h) / c2);
    }
    case M_MODE_AMPLITUDE:
        return vmeasure_mode_amplitude(fr, ck->mode, ck->wavenumber) / b->amplitude0;
    case M_PROFILE:
        break;
    default:
        return vmeasure_vortex(ck, c, b, fr);
    }
    return NAN;
}

/* Hat-weighted mean (weight 1 - |d| / band) of the velocity component over the particles within `band`
 * of each reference position: a linear interpolation between the particle rows around it. */
void vmeasure_profile(const vcheck *ck, const eddy_frame *fr, double *values)
{
    const eddy_world *w = fr->world;
    const eddy_particles *p = &w->particles;
    const double band = ck->band > 0 ? ck->band : w->materials[0].particle_dist;
    const eddy_real *pos = coord(p, ck->axis), *u = vel(p, ck->component);
    for (size_t k = 0; k < ck->ref.count; ++k) {
        const double t = ck->ref.t[k];
        if (fabs(t - fr->time) > 1e-9 * fmax(1.0, fabs(t))) continue;
        double s = 0, sw = 0;
        for (size_t n = 0; n < fr->count; ++n) {
            const size_t i = fr->order[n];
            const double d = fabs(pos[i] - ck->ref.x[k]);
            if (d >= band) continue;
            const double wgt = 1 - d / band;
            s += wgt * u[i];
            sw += wgt;
        }
        values[k] = sw > 0 ? s / sw : NAN;
    }
}

int vinitial_velocity(eddy_world *w, int mode, double U, double k, eddy_error *err)
{
    eddy_field_view pos = {.size = sizeof pos}, v = {.size = sizeof v};
    int rc = eddy_world_map_field(w, EDDY_FIELD_POSITION, EDDY_MAP_READ, &pos, err);
    if (rc) return rc;
    if ((rc = eddy_world_map_field(w, EDDY_FIELD_VELOCITY, EDDY_MAP_READ_WRITE, &v, err))) {
        eddy_world_unmap_field(w, &pos);
        return rc;
    }
    for (size_t i = 0; i < v.count; ++i) {
        const double x = pos.data[0][i], y = pos.data[1][i];
        double f, g;
        mode_shape(mode, k, x, y, &f, &g);
        v.data[0][i] = (eddy_real)(U * f);
        v.data[1][i] = (eddy_real)(U * g);
    }
    eddy_world_unmap_field(w, &v);
    eddy_world_unmap_field(w, &pos);
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* Errors                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

/* The measured value at time t (s), linear between samples; NaN outside the samples. */
static double at(const vseries *s, double t)
{
    if (s->n == 0 || t < s->t[0] - 1e-12 || t > s->t[s->n - 1] + 1e-12) return NAN;
    if (s->n == 1) return s->v[0];
    size_t j = 1;
    while (j < s->n - 1 && s->t[j] < t) ++j;
    const double t0 = s->t[j - 1], t1 = s->t[j], f = t1 > t0 ? (t - t0) / (t1 - t0) : 0.0;
    return s->v[j - 1] + (s->v[j] - s->v[j - 1]) * fmin(fmax(f, 0.0), 1.0);
}

static int in_window(const vcheck *ck, double t_si)
{
    const double x = t_si / ck->ref.time_scale;
    return x >= ck->from - 1e-9 && x <= ck->to + 1e-9;
}

/* Least-squares slope of the points (t[k], v[k]) with t in the check's window; NAN with fewer than two
 * distinct times or a non-finite value among them. *first and *last (may be NULL) receive the window's
 * first and last times. */
static double window_slope(const vcheck *ck, const double *t, const double *v, size_t n, double *first,
                           double *last)
{
    double st = 0, sv = 0, lo = NAN, hi = NAN;
    size_t m = 0;
    for (size_t k = 0; k < n; ++k) {
        if (!in_window(ck, t[k])) continue;
        if (!isfinite(v[k])) return NAN;
        st += t[k], sv += v[k], ++m;
        lo = isnan(lo) ? t[k] : fmin(lo, t[k]);
        hi = isnan(hi) ? t[k] : fmax(hi, t[k]);
    }
    if (first) *first = lo;
    if (last) *last = hi;
    if (m < 2 || !(hi > lo)) return NAN;
    const double mt = st / (double)m, mv = sv / (double)m;
    double stt = 0, stv = 0;
    for (size_t k = 0; k < n; ++k) {
        if (!in_window(ck, t[k])) continue;
        stt += (t[k] - mt) * (t[k] - mt);
        stv += (t[k] - mt) * (v[k] - mv);
    }
    return stv / stt;
}

static double rms_relative(const vcheck *ck, const vseries *s, double shift)
{
    double sum = 0;
    int n = 0;
    for (size_t k = 0; k < ck->ref.count; ++k) {
        if (!in_window(ck, ck->ref.t[k]) || ck->ref.y[k] == 0) continue;
        const double m = at(s, ck->ref.t[k] - shift * ck->ref.time_scale);
        if (isnan(m)) return NAN; /* the run did not reach a reference point: no error to claim */
        const double r = m / ck->ref.y[k] - 1;
        sum += r * r;
        ++n;
    }
    return n ? sqrt(sum / n) : NAN;
}

static double reduce(const vcheck *ck, const vseries *s)
{
    double acc = ck->reduce == R_MAX ? -INFINITY : 0, last = NAN;
    int n = 0;
    for (size_t k = 0; k < s->n; ++k) {
        if (s->t[k] < ck->from - 1e-12 || s->t[k] > ck->to + 1e-12) continue;
        if (isnan(s->v[k])) return NAN;
        acc = ck->reduce == R_MAX ? fmax(acc, s->v[k]) : acc + s->v[k];
        last = s->v[k];
        ++n;
    }
    if (!n) return NAN;
    return ck->reduce == R_MEAN ? acc / n : ck->reduce == R_MAX ? acc : last;
}

/* The mean of the reference values at the reference points within `half` of point k (inside the
 * check's window), and of the measured series at the same times: the same moving average for both, so
 * that a noisy impact signal and a noisy solver are compared on what both resolve. */
static void smoothed(const vcheck *ck, const vseries *s, size_t k, double half, double *m, double *r)
{
    double sm = 0, sr = 0;
    int n = 0;
    for (size_t j = 0; j < ck->ref.count; ++j) {
        if (!in_window(ck, ck->ref.t[j]) || fabs(ck->ref.t[j] - ck->ref.t[k]) > half + 1e-12) continue;
        sm += at(s, ck->ref.t[j]);
        sr += ck->ref.y[j];
        ++n;
    }
    *m = sm / n;
    *r = sr / n;
}

double verror(const vcheck *ck, const vseries *s, double *shift)
{
    *shift = 0;
    switch (ck->error) {
    case E_RMS_RELATIVE: {
        double best = rms_relative(ck, s, 0);
        const int steps = (int)floor(ck->max_shift / 0.01 + 1e-9);
        for (int k = 1; k <= steps; ++k) {
            const double e = rms_relative(ck, s, 0.01 * k);
            if (e < best || isnan(best)) {
                best = e;
                *shift = 0.01 * k;
            }
        }
        return best;
    }
    case E_SLOPE_RELATIVE: {
        /* Least-squares slopes over the window, of the reference's points and of the run's samples. Not
         * the difference of the two end values: a surge front is the largest x of connected liquid,
         * which jumps by a few spacings when a tongue of liquid detaches or joins, and a jump at either
         * end moved the dam break's late speed between 12% and 18% with the summation order alone
         * (the fit: 9.5-10.3%; docs/validation.md, "Error measures"). */
        double ta = NAN, tb = NAN;
        const double sr = window_slope(ck, ck->ref.t, ck->ref.y, ck->ref.count, &ta, &tb);
        /* The run must cover the reference's window: a run that stopped early has no speed there. */
        if (isnan(sr) || s->n == 0 || s->t[0] > ta + 1e-12 || s->t[s->n - 1] < tb - 1e-12) return NAN;
        const double sm = window_slope(ck, s->t, s->v, s->n, NULL, NULL);
        return fabs(sm / sr - 1);
    }
    case E_MAX_RELATIVE: {
        double worst = NAN;
        for (size_t k = 0; k < ck->ref.count; ++k) {
            if (!in_window(ck, ck->ref.t[k]) || ck->ref.y[k] == 0) continue;
            const double m = at(s, ck->ref.t[k]);
            if (isnan(m)) return NAN;
            const double e = fabs(m / ck->ref.y[k] - 1);
            worst = isnan(worst) ? e : fmax(worst, e);
        }
        return worst;
    }
    case E_RMS_NORMALIZED: {
        double sum = 0, scale = 0;
        int n = 0;
        for (size_t k = 0; k < ck->ref.count; ++k) {
            if (!in_window(ck, ck->ref.t[k])) continue;
            /* A profile's values at the reference points, or a series at the reference times. */
            double m = ck->measure == M_PROFILE ? (s->profile ? s->profile[k] : NAN) : at(s, ck->ref.t[k]), r = ck->ref.y[k];
            if (ck->smooth > 0 && ck->measure != M_PROFILE)
                smoothed(ck, s, k, 0.5 * ck->smooth * ck->ref.time_scale, &m, &r);
            if (isnan(m)) return NAN;
            const double d = m - r;
            sum += d * d;
            scale = fmax(scale, fabs(r));
            ++n;
        }
        return n && scale > 0 ? sqrt(sum / n) / scale : NAN;
    }
    case E_IMPULSE_RELATIVE: {
        /* Trapezoids over the reference times in the window, the measured series interpolated there:
         * both integrals see the same sampling. */
        double im = 0, ir = 0;
        size_t last = ck->ref.count;
        for (size_t k = 0; k < ck->ref.count; ++k) {
            if (!in_window(ck, ck->ref.t[k])) continue;
            if (isnan(at(s, ck->ref.t[k]))) return NAN;
            if (last < ck->ref.count) {
                const double dt = ck->ref.t[k] - ck->ref.t[last];
                im += 0.5 * dt * (at(s, ck->ref.t[k]) + at(s, ck->ref.t[last]));
                ir += 0.5 * dt * (ck->ref.y[k] + ck->ref.y[last]);
            }
            last = k;
        }
        return ir != 0 ? fabs(im / ir - 1) : NAN;
    }
    case E_RELATIVE:
        return fabs(reduce(ck, s) / ck->value - 1);
    case E_VALUE:
        return reduce(ck, s);
    case E_SHORTFALL:
        return ck->value - reduce(ck, s);
    }
    return NAN;
}

/*
 * A tank at rest started as hydrostatics compresses it (the fluid filling the container's floor,
 * gravity along one axis): each particle moves down so that the mass below it is unchanged at the
 * density rho(y) = rho0 (1 + g (H' - y) / c2) of the linearized equation of state p = c2 (rho - rho0)
 * under the hydrostatic pressure. A lattice at rest density instead falls by that much and rings in the
 * column's acoustic mode (period 4 H / c) for about a second, which a case would have to wait out.
 */
int vinitial_hydrostatic(eddy_world *w, double c2, eddy_error *err)
{
    const int up = up_axis(w);
    const double rho0 = w->materials[0].rest_density, g = fabs(w->gravity[up]);
    const double floor = w->boundaries.container_min[up];
    double area = 1.0;
    for (int k = 0; k < w->dimensions; ++k)
        if (k != up) area *= w->boundaries.container_max[k] - w->boundaries.container_min[k];
    eddy_field_view pos = {.size = sizeof pos}, m = {.size = sizeof m};
    int rc = eddy_world_map_field(w, EDDY_FIELD_MASS, EDDY_MAP_READ, &m, err);
    if (rc) return rc;
    double mass = 0;
    for (size_t i = 0; i < m.count; ++i) mass += m.data[0][i];
    eddy_world_unmap_field(w, &m);
    if (!(g > 0) || !(c2 > 0)) return 0;
    /* With b = g / c2 the mass per area below height z is rho0 (z + b (Hc z - z^2 / 2)); the lattice held
     * rho0 y below y. The whole column (y = H) gives the compressed depth Hc, then each y its z. */
    const double b = g / c2, H = mass / (rho0 * area);
    const double Hc = (sqrt(1 + 2 * b * H) - 1) / b, q = 1 + b * Hc;
    if ((rc = eddy_world_map_field(w, EDDY_FIELD_POSITION, EDDY_MAP_READ_WRITE, &pos, err))) return rc;
    for (size_t i = 0; i < pos.count; ++i) {
        const double y = pos.data[up][i] - floor;
        pos.data[up][i] = (eddy_real)(floor + (q - sqrt(q * q - 2 * b * y)) / b);
    }
    eddy_world_unmap_field(w, &pos);
    return 0;
}
