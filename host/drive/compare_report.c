/*
 * host/drive/compare_report.c — the report of `eddy compare`: per-solver summary rows (final values,
 * means, the change of total energy and its largest rise, momentum drift, RMS deviation from each
 * probe's reference data),
 * summary.csv and summary.md, and one plot per metric and probe with every solver on it
 * (compare_internal.h).
 */
#include "compare_internal.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "plot.h"
#include "provenance.h"
#include "services.h"

/* |P(k) - P(0)| */
static double momentum_drift(const result *r, size_t k)
{
    double s = 0;
    for (int c = COL_PX; c <= COL_PZ; ++c) {
        double d = r->col[c][k] - r->col[c][0];
        s += d * d;
    }
    return sqrt(s);
}

static double mean_of(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += v[i];
    return n ? s / (double)n : NAN;
}

/* Largest value; NaN as soon as one is NaN (an exploded sample must show). */
static double max_of(const double *v, size_t n)
{
    double m = n ? -INFINITY : NAN;
    for (size_t i = 0; i < n; ++i) {
        if (isnan(v[i])) return NAN;
        if (v[i] > m) m = v[i];
    }
    return m;
}

/* E_k + E_p at sample k (diagnostics.h: E_p relative to the origin). */
static double total_energy(const result *r, size_t k)
{
    return r->col[COL_KE][k] + r->col[COL_EP][k];
}

/* Whether solver r has what probe i reads: a "pressure" probe of a solver that left the pressure field
 * 0 everywhere (result.pressure_seen) would report the zero-fill as a measured 0 Pa, and a "force"
 * or a "moment", which integrate that field, a structure under no load (a user trial read pbf's 0 N/m
 * so, before pbf wrote its constraint's pressure). */
static int probe_applies(const context *cx, const result *r, size_t i)
{
    const char *kind = eddy_probes_kind(cx->probes, i);
    return r->pressure_seen ||
           (strcmp(kind, "pressure") != 0 && strcmp(kind, "force") != 0 && strcmp(kind, "moment") != 0);
}

/* Fewer reference points than this give no RMS: one or two points are a spot check, not a deviation
 * over the run, and printed as an RMS they read as a measured agreement. */
#define REFERENCE_MIN_POINTS 3

/*
 * RMS of (measured / reference - 1) over the reference points whose time lies within the samples
 * after the first, the measured value interpolated linearly in time and taken in the reference's
 * units. A point at the first sample's time (t = 0) is left out: it compares the scene's initial state,
 * which every solver starts from, and would read as agreement however the solver moves. NaN when fewer
 * than REFERENCE_MIN_POINTS points qualify; *points gets the count.
 */
static double reference_rms(const result *r, size_t np, size_t probe, const eddy_probe_reference *ref,
                            int *points)
{
    double s = 0;
    int n = 0;
    for (size_t k = 0; k < ref->count && r->n >= 2; ++k) {
        double t = ref->x[k] * ref->time_scale;
        if (ref->y[k] == 0 || t <= r->t[0] || t > r->t[r->n - 1]) continue;
        size_t j = 1;
        while (j < r->n - 1 && r->t[j] < t) ++j;
        double t0 = r->t[j - 1], t1 = r->t[j], f = t1 > t0 ? (t - t0) / (t1 - t0) : 0.0;
        double v = (1 - f) * r->probe[(j - 1) * np + probe] + f * r->probe[j * np + probe];
        double y = (v - ref->value_offset) / ref->value_scale;
        s += (y / ref->y[k] - 1) * (y / ref->y[k] - 1);
        ++n;
    }
    *points = n;
    return n >= REFERENCE_MIN_POINTS ? sqrt(s / n) : NAN;
}

/* ------------------------------------------------------------------------------------------------ */
/* Summary                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/* Opens "<path>.tmp" for writing; close_replace() renames it over <path>. */
static FILE *open_tmp(const char *path, char *tmp, size_t size, eddy_error *err)
{
    snprintf(tmp, size, "%s.tmp", path);
    eddy_output_remove_fifo(tmp); /* (a FIFO left at the temporary name blocked the open for ever) */
    FILE *f = fopen(tmp, "w");
    if (!f) eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
    return f;
}

static int close_replace(FILE *f, const char *tmp, const char *path, eddy_error *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        int e = errno;
        remove(tmp);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", tmp, strerror(e ? e : EIO));
    }
    if (rename(tmp, path) != 0) {
        /* (the earlier summary, if any, stays as it was; the new one is not left beside it half-named) */
        int e = errno;
        remove(tmp);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", path, strerror(e));
    }
    return EDDY_OK;
}

/* A CSV field: quoted, with inner quotes doubled. */
static void csv_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

/* A Markdown table cell: '|' escaped. */
static void md_text(FILE *f, const char *s)
{
    for (; *s; ++s) {
        if (*s == '|') fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

typedef struct summary_row {
    int have;                     /* at least one sample */
    double dem, dmax, cmax, p99, ke_end, drift, ms_per_step, rate;
    double de, de_rel;            /* E(end) - E(0), and over E(0) above the floor (NaN: no such scale) */
    double rise, rise_rel;        /* max over samples of E(k) - E(0) (>= 0), and over the same scale */
} summary_row;

/* The largest E(k) - E(0) over the samples, 0 when E never exceeds its start; NaN as soon as one sample's
 * is NaN (an exploded sample must show). The end-to-start change alone hides energy a scheme made and
 * lost again: pbf on the dam break rose above its start mid-run and still ended below it. */
static double largest_rise(const result *r)
{
    const double e0 = total_energy(r, 0);
    double m = 0;
    for (size_t k = 0; k < r->n; ++k) {
        const double d = total_energy(r, k) - e0;
        if (isnan(d)) return NAN;
        if (d > m) m = d;
    }
    return m;
}

static summary_row summarize(const context *cx, const result *r)
{
    summary_row s;
    memset(&s, 0, sizeof s);
    if (r->n == 0) return s;
    s.have = 1;
    s.dem = mean_of(r->col[COL_DEM], r->n);
    s.dmax = max_of(r->col[COL_DMAX], r->n);
    s.cmax = max_of(r->col[COL_CMAX], r->n);
    s.p99 = max_of(r->col[COL_DP99], r->n);
    s.ke_end = r->col[COL_KE][r->n - 1];
    s.de = total_energy(r, r->n - 1) - total_energy(r, 0);
    /* Relative to the energy above the container's floor at the start, not to E(0) itself: E(0) depends
     * on where the scene put the origin (a tank whose floor is at y = -10 has a large negative E_p) and
     * so would any ratio to it; above the floor it is what the fluid has to lose, the origin cancels. */
    const double scale = total_energy(r, 0) + r->col[COL_MASS][0] * cx->g_dot_floor;
    s.de_rel = scale > 0 ? s.de / scale : NAN;
    s.rise = largest_rise(r);
    s.rise_rel = scale > 0 ? s.rise / scale : NAN;
    s.drift = momentum_drift(r, r->n - 1);
    s.ms_per_step = r->steps ? r->step_ms / (double)r->steps : NAN;
    s.rate = r->step_ms > 0 ? (double)r->particles * (double)r->steps / (r->step_ms * 1e-3) : NAN;
    return s;
}

/* "made energy": the run ended, but its energy rose by the rule eddy run warns by (energy_watch.h), so
 * its figures are an unstable run's. */
static const char *status_of(const result *r)
{
    return r->interrupted                        ? "interrupted"
           : r->failed                           ? "failed"
           : !r->ran                             ? "not run"
           : eddy_energy_watch_made(&r->energy) ? "made energy"
                                                 : "ok";
}

int compare_write_summary_csv(const context *cx, const result *res, int count, eddy_error *err)
{
    char path[PATH_MAX_ + 32], tmp[PATH_MAX_ + 40];
    snprintf(path, sizeof path, "%s/summary.csv", cx->out_dir);
    FILE *f = open_tmp(path, tmp, sizeof tmp, err);
    if (!f) return err->code;
    const eddy_probes *p = cx->probes;
    const size_t np = eddy_probes_count(p);
    fputs("solver,status,end_time,steps,particles,density_error_mean,density_error_max,kinetic_energy_end,"
          "momentum_drift,ms_per_step,particle_steps_per_s,density_compression_max,total_energy_change,"
          "total_energy_change_relative,total_energy_rise_max,total_energy_rise_max_relative,particle_spacing,"
          "smoothing_radius,density_error_p99_max", f);
    for (size_t i = 0; i < np; ++i) fprintf(f, ",%s", eddy_probes_name(p, i));
    for (size_t i = 0; i < np; ++i)
        if (eddy_probes_reference(p, i)) fprintf(f, ",%s_reference_rms", eddy_probes_name(p, i));
    fputs(",error\n", f);
    for (int k = 0; k < count; ++k) {
        const result *r = &res[k];
        summary_row s = summarize(cx, r);
        fprintf(f, "%s,%s,", r->id, status_of(r));
        if (r->ran) fprintf(f, "%.12g,%llu,%zu", r->end_time, (unsigned long long)r->steps, r->particles);
        else fputs(",,", f);
        if (s.have)
            fprintf(f, ",%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g", s.dem, s.dmax, s.ke_end,
                    s.drift, s.ms_per_step, s.rate, s.cmax, s.de, s.de_rel, s.rise, s.rise_rel);
        else
            fputs(",,,,,,,,,,,", f);
        /* (single-precision values: 7 digits, 0.0025 rather than 0.00249999994412) */
        fprintf(f, ",%.7g,%.7g", cx->spacing, cx->smoothing_radius);
        if (s.have) fprintf(f, ",%.12g", s.p99);
        else fputc(',', f);
        /* A probe whose field the solver lacks is nan, the file's one form for a figure without a value
         * (summary.md says n/a and why). */
        for (size_t i = 0; i < np; ++i) {
            if (s.have) fprintf(f, ",%.12g", probe_applies(cx, r, i) ? r->probe[(r->n - 1) * np + i] : NAN);
            else fputc(',', f);
        }
        for (size_t i = 0; i < np; ++i) {
            const eddy_probe_reference *ref = eddy_probes_reference(p, i);
            if (!ref) continue;
            int points;
            double rms = s.have && probe_applies(cx, r, i) ? reference_rms(r, np, i, ref, &points) : NAN;
            if (s.have) fprintf(f, ",%.12g", rms);
            else fputc(',', f);
        }
        fputc(',', f);
        if (r->failed) csv_quoted(f, r->error);
        fputc('\n', f);
    }
    return close_replace(f, tmp, path, err);
}

static void md_number(FILE *f, double v)
{
    if (isnan(v)) fputs(" NaN |", f);
    else fprintf(f, " %.4g |", v);
}

/* The change and, where the scene gives it a scale, the change in percent. */
static void md_change(FILE *f, double d, double rel)
{
    if (isnan(d)) fputs(" NaN |", f);
    else if (isnan(rel)) fprintf(f, " %+.4g |", d);
    else fprintf(f, " %+.4g (%+.3g%%) |", d, 100 * rel);
}

/* The units of energy and momentum: a 2D world is a slab of unit depth (world.h). */
static const char *energy_unit(const context *cx)
{
    return cx->dimensions == 2 ? "J/m" : "J";
}
static const char *momentum_unit(const context *cx)
{
    return cx->dimensions == 2 ? "kg/s" : "kg m/s";
}

/* The times the samples were taken at: a run that ends before the first output time has its start
 * and its end only, which "every <interval>" misstated. */
static void md_sampling(FILE *f, const context *cx, const result *res, int count)
{
    double last = -1;
    for (int k = 0; k < count; ++k)
        if (res[k].n && res[k].t[res[k].n - 1] > last) last = res[k].t[res[k].n - 1];
    const int by_time = cx->opt->steps < 0;
    const int short_run = by_time ? cx->end_time < cx->interval : last >= 0 && last < cx->interval;
    if (short_run)
        fprintf(f, ", sampled at the start and at the end (the output interval, %.6g s, is longer than the run)",
                cx->interval);
    else fprintf(f, ", sampled every %.6g s and at the end", cx->interval);
}

/* The Markdown summary; also printed on stdout (`echo`) once at the end. */
void compare_summary_md(FILE *f, const context *cx, const result *res, int count, const char *const *plots,
                        int plot_count)
{
    const options *o = cx->opt;
    const eddy_probes *p = cx->probes;
    const size_t np = eddy_probes_count(p);
    fprintf(f, "# eddy compare: %s\n\n", cx->scene_name);
    fprintf(f, "Scene `%s`%s, %zu particles (spacing %g m%s, smoothing radius %g m: %.3g spacings), ",
            o->scene_path ? o->scene_path : o->scene_name ? o->scene_name : "scene.json",
            o->scene_path ? "" : " (given as text)",
            cx->particles, cx->spacing, cx->materials > 1 ? " for the first material" : "", cx->smoothing_radius,
            cx->smoothing_radius / cx->spacing);
    if (o->steps >= 0) fprintf(f, "%lld steps", o->steps);
    else fprintf(f, "to t = %.6g s", cx->end_time);
    md_sampling(f, cx, res, count);
    for (size_t i = 0; i < o->set_count; ++i) fprintf(f, "%s `--set %s`", i ? "," : "; with", o->sets[i]);
    char made[256];
    eddy_provenance(made, sizeof made);
    fprintf(f, ".\n\nMade by %s.\n\n", made);
    const char *eu = energy_unit(cx);
    fprintf(f,
            "| solver | status | t end (s) | steps | ms/step | particle-steps/s | density error mean | "
            "density error max | density error p99 max | compression max | kinetic energy end (%s) | total energy change (%s) | "
            "largest energy rise (%s) | momentum drift (%s) |",
            eu, eu, eu, momentum_unit(cx));
    for (size_t i = 0; i < np; ++i) fprintf(f, " %s (%s) |", eddy_probes_name(p, i), eddy_probes_unit(p, i));
    fputs("\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|", f);
    for (size_t i = 0; i < np; ++i) fputs("---|", f);
    fputc('\n', f);
    int lacking = 0; /* a probe n/a for a solver without its field: the note under the table says why */
    for (int k = 0; k < count; ++k) {
        const result *r = &res[k];
        summary_row s = summarize(cx, r);
        fprintf(f, "| %s | %s |", r->id, status_of(r));
        if (r->ran) fprintf(f, " %.6g | %llu |", r->end_time, (unsigned long long)r->steps);
        else fputs(" | |", f);
        if (s.have) {
            md_number(f, s.ms_per_step);
            md_number(f, s.rate);
            md_number(f, s.dem);
            md_number(f, s.dmax);
            md_number(f, s.p99);
            md_number(f, s.cmax);
            md_number(f, s.ke_end);
            md_change(f, s.de, s.de_rel);
            md_change(f, s.rise, s.rise_rel);
            if (cx->momentum_na[0]) fprintf(f, " n/a (%s) |", cx->momentum_na);
            else md_number(f, s.drift);
            for (size_t i = 0; i < np; ++i) {
                if (probe_applies(cx, r, i)) {
                    md_number(f, r->probe[(r->n - 1) * np + i]);
                } else {
                    fputs(" n/a (no pressure) |", f);
                    lacking = 1;
                }
            }
        } else {
            for (size_t i = 0; i < 10 + np; ++i) fputs(" |", f);
        }
        fputc('\n', f);
    }
    int energy_made = 0;
    for (int k = 0; k < count; ++k) energy_made |= !strcmp(status_of(&res[k]), "made energy");
    if (energy_made)
        fputs("\n`made energy`: the run ended, but E_k + E_p rose above its start by more than half the mechanical "
              "energy above the container's floor at the start, with walls and colliders at rest (the warning `eddy "
              "run` gives): the scheme made energy, so the run is likely unstable and its figures are not the "
              "physics'.\n",
              f);
    if (lacking)
        fputs("\n`n/a (no pressure)`: the solver's pressure field was 0 on every particle at every sample: the "
              "method computes no pressure, so a pressure probe would read the field's "
              "zero fill, not a measured 0 Pa, and a force or moment probe, which integrates it, no load "
              "(summary.csv: "
              "`nan`).\n",
              f);
    int refs = 0;
    for (size_t i = 0; i < np; ++i) {
        const eddy_probe_reference *ref = eddy_probes_reference(p, i);
        if (!ref) continue;
        if (!refs++) fputs("\n## Against reference data\n\n", f);
        fprintf(f, "`%s` against %s (`%s`): RMS of measured / reference - 1 over the reference points within "
                   "the run after t = 0, in %s vs %s\n\n",
                eddy_probes_name(p, i), ref->label, ref->file, ref->y_label, ref->x_label);
        fputs("| solver | RMS relative deviation | points |\n|---|---|---|\n", f);
        int too_few = 0;
        for (int k = 0; k < count; ++k) {
            const result *r = &res[k];
            if (r->n == 0) continue;
            if (!probe_applies(cx, r, i)) {
                fprintf(f, "| %s | n/a (no pressure) | 0 |\n", r->id);
                continue;
            }
            int points;
            double rms = reference_rms(r, np, i, ref, &points);
            fprintf(f, "| %s |", r->id);
            if (isnan(rms)) fputs(" - |", f);
            else fprintf(f, " %.1f%% |", 100 * rms);
            fprintf(f, " %d |\n", points);
            too_few |= points < REFERENCE_MIN_POINTS;
        }
        if (too_few)
            fprintf(f, "\n`-`: fewer than %d reference points after t = 0 within the run, too few for an RMS (the "
                       "point at t = 0 is left out: every solver starts from the scene's state there).\n",
                    REFERENCE_MIN_POINTS);
    }
    /* What differs between the solvers besides the scene: their own parameters and time step. */
    int settings = 0;
    for (int k = 0; k < count; ++k) {
        if (!res[k].ran) continue;
        if (!settings++)
            fputs("\n## Solver settings\n\nEach solver's parameters as it ran (the scene's `solvers.<id>` values, else "
                  "its defaults; `derived`: computed by the solver from the scene, a value the solver does not hand "
                  "to the host: it logs it on stderr, `eddy: tait: sound speed c0 = ...`, unless --quiet) and its "
                  "time step.\n\n", f);
        fprintf(f, "- `%s`: %s; %s.\n", res[k].id, res[k].settings[0] ? res[k].settings : "no parameters",
                res[k].stepping);
    }
    int failures = 0;
    for (int k = 0; k < count; ++k) {
        if (!res[k].failed) continue;
        if (!failures++) fputs("\n## Errors\n\n", f);
        fprintf(f, "- `%s`: ", res[k].id);
        md_text(f, res[k].error);
        fputc('\n', f);
    }
    if (plot_count) {
        fputs("\n## Plots\n\n", f);
        for (int k = 0; k < plot_count; ++k) fprintf(f, "- [%s](%s)\n", plots[k], plots[k]);
    }
    fprintf(f,
            "\nDensity error: |rho / rho0 - 1| per particle; the mean is its mean over particles averaged over the "
            "samples, the max its largest value at any sample, which one particle sets: a droplet flying alone "
            "(its density is its own contribution, far below rho0) or a free-surface corner. Compression max is "
            "the largest rho / rho0 - 1 at any sample, the figure for incompressibility (such particles are never "
            "compressed). Energies are per unit depth in 2D and in simulation units, E_p = -sum m (g . x) "
            "relative to the origin; the total energy change is E_k + E_p at the end minus at the start, in "
            "percent of the mechanical energy above the container's floor at the start (the dam break's "
            "potential energy above its bottom); the largest energy rise is the most E_k + E_p stood above its "
            "start at any sample (0 when it never did), in percent of the same energy. With walls and colliders "
            "at rest the energy should only fall (viscosity and walls take energy out): a rise, at the end or "
            "along the way, is energy the scheme made. E_k + E_p leaves out the elastic energy of compression. "
            "%s ms/step is the wall time inside the solver "
            "steps only: one pass on a machine that may be shared, so compare speeds with `eddy bench` "
            "(medians of repeats). See docs/compare.md.\n",
            cx->momentum_na[0] ? "Momentum drift |P(end) - P(0)| is n/a: momentum is not conserved with gravity, "
                                 "walls or colliders (summary.csv still gives it)."
                               : "Momentum drift |P(end) - P(0)|: momentum is conserved here (no gravity, "
                                 "wall or collider), so the drift is the solver's error.");
}

int compare_write_summary_md(const context *cx, const result *res, int count, const char *const *plots,
                             int plot_count, eddy_error *err)
{
    char path[PATH_MAX_ + 32], tmp[PATH_MAX_ + 40];
    snprintf(path, sizeof path, "%s/summary.md", cx->out_dir);
    FILE *f = open_tmp(path, tmp, sizeof tmp, err);
    if (!f) return err->code;
    compare_summary_md(f, cx, res, count, plots, plot_count);
    return close_replace(f, tmp, path, err);
}

/* ------------------------------------------------------------------------------------------------ */
/* Plots                                                                                             */
/* ------------------------------------------------------------------------------------------------ */



/* y values of one solver for a metric: a column, the momentum drift, or a probe in its units. */
typedef double (*metric_fn)(const result *r, size_t k, const void *arg);

static double metric_column(const result *r, size_t k, const void *arg)
{
    return r->col[*(const int *)arg][k];
}

static double metric_drift(const result *r, size_t k, const void *arg)
{
    (void)arg;
    return momentum_drift(r, k);
}

static double metric_total_energy(const result *r, size_t k, const void *arg)
{
    (void)arg;
    return total_energy(r, k);
}

typedef struct probe_metric {
    size_t index, count;
    const eddy_probe_reference *ref;  /* NULL: as measured */
} probe_metric;

static double metric_probe(const result *r, size_t k, const void *arg)
{
    const probe_metric *pm = arg;
    double v = r->probe[k * pm->count + pm->index];
    return pm->ref ? (v - pm->ref->value_offset) / pm->ref->value_scale : v;
}

/* probe: the probe index a probe's plot draws (its solvers without the field it reads are left out: a
 * flat line at the zero fill would read as a measurement), SIZE_MAX for a metric's. */
static void plot_metric(plotter *pl, const char *file, const char *title, const char *y_label, metric_fn fn,
                        const void *arg, const eddy_probe_reference *ref, size_t probe)
{
    if (pl->plot_count == pl->capacity) return;
    eddy_plot_series series[MAX_SOLVERS + 1];
    double *buf[MAX_SOLVERS + 1];
    size_t ns = 0;
    int oom = 0;
    for (int s = 0; s < pl->count; ++s) {
        const result *r = &pl->res[s];
        if (r->n == 0 || (probe != SIZE_MAX && !probe_applies(pl->cx, r, probe))) continue;
        double *xy = malloc(2 * r->n * sizeof *xy);
        if (!xy) {
            oom = 1;
            break;
        }
        for (size_t k = 0; k < r->n; ++k) {
            xy[k] = ref ? r->t[k] / ref->time_scale : r->t[k];
            xy[r->n + k] = fn(r, k, arg);
        }
        buf[ns] = xy;
        series[ns] = (eddy_plot_series){r->id, xy, xy + r->n, r->n, 0};
        ++ns;
    }
    if (ref && !oom) series[ns++] = (eddy_plot_series){ref->label, ref->x, ref->y, ref->count, 1};
    snprintf(pl->names[pl->plot_count], sizeof pl->names[0], "plots/%s.png", file);
    char path[PATH_MAX_ + 128], full_title[256];
    snprintf(path, sizeof path, "%s/%s", pl->cx->out_dir, pl->names[pl->plot_count]);
    snprintf(full_title, sizeof full_title, "%s: %s", pl->cx->scene_name, title);
    eddy_plot_options po = eddy_plot_default_options();
    po.title = full_title;
    po.x_label = ref ? ref->x_label : "t (s)";
    po.y_label = ref ? ref->y_label : y_label;
    eddy_error err;
    int rc = oom ? eddy_error_set(&err, EDDY_ERR_OUT_OF_MEMORY, "out of memory drawing '%s'", path)
                 : eddy_plot_write_png(path, &po, series, ns, &err);
    for (size_t s = 0; s < ns - (ref && !oom ? 1 : 0); ++s) free(buf[s]);
    if (rc) {
        if (!pl->failures++) pl->first_error = err;
        eddy_services_say("error: ", err.message);
        return;
    }
    pl->list[pl->plot_count] = pl->names[pl->plot_count];
    pl->plot_count++;
}

/* The plots an earlier comparison into the same folder drew (a probe this scene no longer declares, a
 * momentum drift this scene leaves out): the metrics' names and probe_*.png. */
static void remove_old_plots(const context *cx)
{
    char dir[PATH_MAX_ + 8];
    snprintf(dir, sizeof dir, "%s/plots", cx->out_dir);
    DIR *d = opendir(dir);
    if (!d) return;
    static const char *const FIXED[] = {"kinetic_energy.png",    "total_energy.png",      "density_error_mean.png",
                                        "density_error_max.png", "density_error_p99.png", "max_speed.png",
                                        "momentum_drift.png"};
    for (struct dirent *e; (e = readdir(d));) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        int ours = len > 10 && !strncmp(n, "probe_", 6) && !strcmp(n + len - 4, ".png");
        for (size_t k = 0; k < sizeof FIXED / sizeof FIXED[0]; ++k) ours |= !strcmp(n, FIXED[k]);
        if (!ours) continue;
        char path[PATH_MAX_ + 8 + 260];
        snprintf(path, sizeof path, "%s/%s", dir, n);
        unlink(path); /* (files only: a folder of that name is not a plot eddy drew) */
    }
    closedir(d);
}

void compare_draw_plots(plotter *pl)
{
    static const int KE = COL_KE, DEM = COL_DEM, DMAX = COL_DMAX, DP99 = COL_DP99, VMAX = COL_VMAX;
    remove_old_plots(pl->cx);
    const size_t want = 7 + eddy_probes_count(pl->cx->probes);
    pl->names = calloc(want, sizeof *pl->names);
    pl->list = calloc(want, sizeof *pl->list);
    if (!pl->names || !pl->list) {
        compare_free_plots(pl);
        eddy_error_set(&pl->first_error, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu plots", want);
        eddy_services_say("error: ", pl->first_error.message);
        pl->failures++;
        return;
    }
    pl->capacity = (int)want;
    const context *cx = pl->cx;
    const int d2 = cx->dimensions == 2;
    char label[128];
    snprintf(label, sizeof label, "kinetic energy (%s, simulation units)", d2 ? "J/m, per unit depth" : "J");
    plot_metric(pl, "kinetic_energy", "kinetic energy", label, metric_column, &KE, NULL, SIZE_MAX);
    snprintf(label, sizeof label, "E_k + E_p (%s, simulation units)", d2 ? "J/m, per unit depth" : "J");
    plot_metric(pl, "total_energy", "total energy E_k + E_p, E_p = -sum m g.x", label, metric_total_energy, NULL,
                NULL, SIZE_MAX);
    plot_metric(pl, "density_error_mean", "mean density error", "mean |rho/rho0 - 1|", metric_column, &DEM, NULL,
                SIZE_MAX);
    plot_metric(pl, "density_error_max", "max density error", "max |rho/rho0 - 1|", metric_column, &DMAX, NULL,
                SIZE_MAX);
    plot_metric(pl, "density_error_p99", "99th percentile of the density error", "99th percentile of |rho/rho0 - 1|",
                metric_column, &DP99, NULL, SIZE_MAX);
    plot_metric(pl, "max_speed", "max speed", "max speed (m/s, simulation units)", metric_column, &VMAX, NULL,
                SIZE_MAX);
    /* (not drawn where momentum is not conserved: the report's column says n/a, a plot would not) */
    snprintf(label, sizeof label, "|P(t) - P(0)| (%s, simulation units)", d2 ? "kg/s, per unit depth" : "kg m/s");
    if (!cx->momentum_na[0])
        plot_metric(pl, "momentum_drift", "momentum drift |P(t) - P(0)|", label, metric_drift, NULL, NULL, SIZE_MAX);
    const eddy_probes *p = pl->cx->probes;
    const size_t np = eddy_probes_count(p);
    for (size_t i = 0; i < np; ++i) {
        const eddy_probe_reference *ref = eddy_probes_reference(p, i);
        probe_metric pm = {i, np, ref};
        char file[80], title[128];
        snprintf(file, sizeof file, "probe_%s", eddy_probes_name(p, i));
        snprintf(title, sizeof title, "probe %s%s%s", eddy_probes_name(p, i), ref ? " against " : "",
                 ref ? ref->label : "");
        snprintf(label, sizeof label, "%s (%s)", eddy_probes_name(p, i), eddy_probes_unit(p, i));
        plot_metric(pl, file, title, label, metric_probe, &pm, ref, i);
    }
}

void compare_free_plots(plotter *pl)
{
    free(pl->names);
    free(pl->list);
    pl->names = NULL;
    pl->list = NULL;
    pl->capacity = pl->plot_count = 0;
}
