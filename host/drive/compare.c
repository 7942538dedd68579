#include "compare.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnostics.h"
#include "frame.h"
#include "output.h"
#include "plot.h"
#include "probes.h"
#include "progress.h"
#include "services.h"
#include "session.h"
#include "sim.h"

#define MAX_SOLVERS EDDY_COMPARE_MAX_SOLVERS
#define ID_MAX EDDY_COMPARE_ID_MAX
#define PATH_MAX_ 4200

/* The command line, parsed by cli/ (compare_args.c). */
typedef eddy_compare_options options;

/* ------------------------------------------------------------------------------------------------ */
/* Per-solver results                                                                                */
/* ------------------------------------------------------------------------------------------------ */

enum { COL_KE, COL_PX, COL_PY, COL_PZ, COL_DEM, COL_DMAX, COL_VMAX, COL_COUNT };

typedef struct result {
    char id[ID_MAX];
    int ran;                      /* the session opened */
    int failed;
    int interrupted;              /* failed by SIGINT / SIGTERM */
    char error[EDDY_ERROR_MESSAGE_MAX];
    size_t particles;
    uint64_t steps;
    double step_ms;               /* wall time inside eddy_sim_step */
    double end_time;
    size_t n, cap;                /* samples */
    double *t, *col[COL_COUNT], *probe;   /* probe: n x probe_count */
} result;

static void result_free(result *r)
{
    free(r->t);
    for (int c = 0; c < COL_COUNT; ++c) free(r->col[c]);
    free(r->probe);
}

static int result_add(result *r, double t, const eddy_diagnostics *d, const double *pv, size_t np)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        double *nt = realloc(r->t, cap * sizeof *nt);
        if (!nt) return -1;
        r->t = nt;
        for (int c = 0; c < COL_COUNT; ++c) {
            double *nc = realloc(r->col[c], cap * sizeof *nc);
            if (!nc) return -1;
            r->col[c] = nc;
        }
        double *npv = realloc(r->probe, (np > 0 ? cap * np : 1) * sizeof *npv);
        if (!npv) return -1;
        r->probe = npv;
        r->cap = cap;
    }
    size_t k = r->n++;
    r->t[k] = t;
    r->col[COL_KE][k] = d->kinetic_energy;
    r->col[COL_PX][k] = d->momentum[0];
    r->col[COL_PY][k] = d->momentum[1];
    r->col[COL_PZ][k] = d->momentum[2];
    r->col[COL_DEM][k] = d->density_error_mean;
    r->col[COL_DMAX][k] = d->density_error_max;
    r->col[COL_VMAX][k] = d->max_speed;
    for (size_t i = 0; i < np; ++i) r->probe[k * np + i] = pv[i];
    return 0;
}

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

/*
 * RMS of (measured / reference - 1) over the reference points whose time lies within the samples,
 * the measured value interpolated linearly in time and taken in the reference's units. NaN when no
 * point qualifies; *points gets the count.
 */
static double reference_rms(const result *r, size_t np, size_t probe, const eddy_probe_reference *ref,
                            int *points)
{
    double s = 0;
    int n = 0;
    for (size_t k = 0; k < ref->count && r->n >= 2; ++k) {
        double t = ref->x[k] * ref->time_scale;
        if (ref->y[k] == 0 || t < r->t[0] || t > r->t[r->n - 1]) continue;
        size_t j = 1;
        while (j < r->n - 1 && r->t[j] < t) ++j;
        double t0 = r->t[j - 1], t1 = r->t[j], f = t1 > t0 ? (t - t0) / (t1 - t0) : 0.0;
        double v = (1 - f) * r->probe[(j - 1) * np + probe] + f * r->probe[j * np + probe];
        double y = (v - ref->value_offset) / ref->value_scale;
        s += (y / ref->y[k] - 1) * (y / ref->y[k] - 1);
        ++n;
    }
    *points = n;
    return n ? sqrt(s / n) : NAN;
}

/* ------------------------------------------------------------------------------------------------ */
/* Running one solver                                                                                */
/* ------------------------------------------------------------------------------------------------ */

typedef struct context {
    const options *opt;
    eddy_probes *probes;
    eddy_registry *registry;
    char out_dir[PATH_MAX_];
    char scene_name[EDDY_SCENE_ID_MAX];
    double end_time;
    double interval;
    size_t particles;
} context;

typedef struct sampler {
    eddy_output *out;
    FILE *probes_csv;
    char probes_path[PATH_MAX_ + ID_MAX + 16];
    double *values;
    double wall_start;
} sampler;

/* One sample: the frame snapshot (frame.h) for the diagnostics, the probes and, when write_index >= 0,
 * the writers (frame write_index). */
static int take_sample(const context *cx, sampler *s, eddy_sim *sim, result *r, long long write_index,
                       eddy_error *err)
{
    eddy_world *w = sim->world;
    eddy_frame frame;
    int rc = eddy_frame_take(w, write_index >= 0 ? (uint64_t)write_index : 0, &frame, err);
    if (rc) return rc;
    eddy_diagnostics d;
    rc = eddy_diagnostics_of_frame(&frame, &d, err);
    if (!rc) rc = eddy_probes_measure(cx->probes, &frame, s->values, err);
    if (!rc) rc = eddy_output_write_diagnostics(s->out, &d, w->time, w->step, eddy_time_ms() - s->wall_start, err);
    if (!rc && write_index >= 0) rc = eddy_output_write_frame(s->out, &frame, err);
    eddy_frame_release(&frame);
    if (rc) return rc;
    if (s->probes_csv) {
        eddy_probes_csv_row(cx->probes, s->probes_csv, w->time, w->step, s->values);
        if (fflush(s->probes_csv) != 0 || ferror(s->probes_csv))
            return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", s->probes_path, strerror(errno));
    }
    if (result_add(r, w->time, &d, s->values, eddy_probes_count(cx->probes)))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    return EDDY_OK;
}

/* What the plan's callbacks need (eddy_sim_run_plan, sim.h: the stepping of `eddy run`, so that the
 * states are the same as a run's). */
typedef struct stepper {
    const context *cx;
    sampler *s;
    eddy_sim *sim;
    result *r;
    const eddy_sim_plan *plan; /* its end, for eddy_sim_plan_done */
    eddy_progress bar;
} stepper;

/* Every sample time; the one that ends the plan also writes the last state's frame. */
static int on_sample(void *user, eddy_session *ses, int frame, eddy_error *err)
{
    (void)ses;
    stepper *st = user;
    const int last = eddy_sim_plan_done(st->sim, st->plan);
    return take_sample(st->cx, st->s, st->sim, st->r, last ? frame : -1, err);
}

static void on_step(void *user, eddy_session *ses, double step_ms)
{
    (void)ses;
    stepper *st = user;
    const options *o = st->cx->opt;
    const eddy_world *w = st->sim->world;
    st->r->step_ms += step_ms;
    st->r->steps = w->step;
    const int by_steps = o->steps >= 0;
    double f = by_steps ? (double)w->step / (double)(o->steps ? o->steps : 1) : w->time / st->cx->end_time;
    eddy_progress_update(&st->bar, f, w->time, by_steps ? w->time : st->cx->end_time, w->step);
}

/* One solver through the scene. */
static int run_solver(const context *cx, result *r, eddy_error *err)
{
    const options *o = cx->opt;
    /* The scene with this solver: --set and the solver id through the session's one override path. */
    eddy_session_options so = eddy_session_default_options();
    so.scene_path = o->scene_path;
    so.sets = o->sets;
    so.set_count = o->set_count;
    so.solver = r->id;
    so.grid = o->grid;
    so.threads = o->threads;
    so.registry = cx->registry;
    eddy_session *ses;
    int rc = eddy_session_open(&so, &ses, err);
    if (rc) return rc;
    eddy_sim *sim = eddy_session_sim(ses);
    eddy_world *w = sim->world;
    r->ran = 1;
    r->particles = w->particles.count - w->particles.halo_count;

    sampler s;
    memset(&s, 0, sizeof s);
    char dir[PATH_MAX_ + ID_MAX + 2];
    snprintf(dir, sizeof dir, "%s/%s", cx->out_dir, r->id);
    const char *ids[EDDY_SCENE_FORMAT_MAX];
    for (size_t i = 0; i < sim->scene.format_count && i < EDDY_SCENE_FORMAT_MAX; ++i) ids[i] = sim->scene.formats[i];
    eddy_output_options oo = eddy_output_default_options();
    oo.formats = ids;
    oo.format_count = sim->scene.format_count;
    oo.registry = cx->registry;
    oo.scene = &sim->scene;
    const size_t np = eddy_probes_count(cx->probes);
    s.values = calloc(np + 1, sizeof *s.values);
    if (!s.values) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    if ((rc = eddy_output_create(dir, &oo, w, &s.out, err)) || (rc = eddy_probes_open(cx->probes, w, sim->host, err)))
        goto done;
    if (np) {
        snprintf(s.probes_path, sizeof s.probes_path, "%s/probes.csv", dir);
        if (!(s.probes_csv = fopen(s.probes_path, "w"))) {
            rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", s.probes_path, strerror(errno));
            goto done;
        }
        eddy_probes_csv_header(cx->probes, s.probes_csv);
    }
    if (!o->quiet)
        fprintf(stderr, "compare: %s with %s (grid %s), %zu particles, %d threads -> %s\n", sim->scene.name, r->id,
                sim->grid_entry->component->id, r->particles, sim->threads, dir);

    s.wall_start = eddy_time_ms();
    int frame = 0;
    if ((rc = take_sample(cx, &s, sim, r, frame, err))) goto done;
    ++frame;
    stepper st = {cx, &s, sim, r, NULL, {0}};
    eddy_progress_begin(&st.bar, o->quiet);
    const eddy_sim_plan end = {o->steps, cx->end_time, frame, NULL, NULL, NULL, NULL, NULL};
    st.plan = &end;
    const eddy_session_plan plan = {o->steps, cx->end_time, on_sample, on_step, NULL, &st};
    int last_sampled = 1;
    rc = eddy_session_run(ses, &plan, &last_sampled, err);
    frame = eddy_session_next_frame(ses);
    r->steps = w->step;
    /* The last state is always sampled and written, also an exploded one: it shows what went wrong
     * (a last regular sample wrote its frame in on_sample). */
    eddy_error ferr;
    int frc = EDDY_OK;
    if (!last_sampled) frc = take_sample(cx, &s, sim, r, frame, &ferr);
    if (frc && !rc) {
        *err = ferr;
        rc = frc;
    }
    eddy_progress_end(&st.bar, w->time, w->step);
done:
    r->end_time = sim->world ? sim->world->time : 0;
    r->steps = sim->world ? sim->world->step : 0;
    if (s.probes_csv && fclose(s.probes_csv) != 0 && !rc)
        rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", s.probes_path, strerror(errno));
    eddy_output_destroy(s.out);
    eddy_probes_close(cx->probes);
    free(s.values);
    eddy_session_close(ses);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* Summary                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/* Opens "<path>.tmp" for writing; close_replace() renames it over <path>. */
static FILE *open_tmp(const char *path, char *tmp, size_t size, eddy_error *err)
{
    snprintf(tmp, size, "%s.tmp", path);
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
    if (rename(tmp, path) != 0)
        return eddy_error_set(err, EDDY_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
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
    double dem, dmax, ke_end, drift, ms_per_step, rate;
} summary_row;

static summary_row summarize(const result *r)
{
    summary_row s;
    memset(&s, 0, sizeof s);
    if (r->n == 0) return s;
    s.have = 1;
    s.dem = mean_of(r->col[COL_DEM], r->n);
    s.dmax = max_of(r->col[COL_DMAX], r->n);
    s.ke_end = r->col[COL_KE][r->n - 1];
    s.drift = momentum_drift(r, r->n - 1);
    s.ms_per_step = r->steps ? r->step_ms / (double)r->steps : NAN;
    s.rate = r->step_ms > 0 ? (double)r->particles * (double)r->steps / (r->step_ms * 1e-3) : NAN;
    return s;
}

static const char *status_of(const result *r)
{
    return r->interrupted ? "interrupted" : r->failed ? "failed" : r->ran ? "ok" : "not run";
}

static int write_summary_csv(const context *cx, const result *res, int count, eddy_error *err)
{
    char path[PATH_MAX_ + 32], tmp[PATH_MAX_ + 40];
    snprintf(path, sizeof path, "%s/summary.csv", cx->out_dir);
    FILE *f = open_tmp(path, tmp, sizeof tmp, err);
    if (!f) return err->code;
    const eddy_probes *p = cx->probes;
    const size_t np = eddy_probes_count(p);
    fputs("solver,status,end_time,steps,particles,density_error_mean,density_error_max,kinetic_energy_end,"
          "momentum_drift,ms_per_step,particle_steps_per_s", f);
    for (size_t i = 0; i < np; ++i) fprintf(f, ",%s", eddy_probes_name(p, i));
    for (size_t i = 0; i < np; ++i)
        if (eddy_probes_reference(p, i)) fprintf(f, ",%s_reference_rms", eddy_probes_name(p, i));
    fputs(",error\n", f);
    for (int k = 0; k < count; ++k) {
        const result *r = &res[k];
        summary_row s = summarize(r);
        fprintf(f, "%s,%s,", r->id, status_of(r));
        if (r->ran) fprintf(f, "%.12g,%llu,%zu", r->end_time, (unsigned long long)r->steps, r->particles);
        else fputs(",,", f);
        if (s.have)
            fprintf(f, ",%.12g,%.12g,%.12g,%.12g,%.12g,%.12g", s.dem, s.dmax, s.ke_end, s.drift, s.ms_per_step, s.rate);
        else
            fputs(",,,,,,", f);
        for (size_t i = 0; i < np; ++i) {
            if (s.have) fprintf(f, ",%.12g", r->probe[(r->n - 1) * np + i]);
            else fputc(',', f);
        }
        for (size_t i = 0; i < np; ++i) {
            const eddy_probe_reference *ref = eddy_probes_reference(p, i);
            if (!ref) continue;
            int points;
            double rms = s.have ? reference_rms(r, np, i, ref, &points) : NAN;
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

/* The Markdown summary; also printed on stdout (`echo`) once at the end. */
static void summary_md(FILE *f, const context *cx, const result *res, int count, const char *const *plots,
                       int plot_count)
{
    const options *o = cx->opt;
    const eddy_probes *p = cx->probes;
    const size_t np = eddy_probes_count(p);
    fprintf(f, "# eddy compare: %s\n\n", cx->scene_name);
    fprintf(f, "Scene `%s`, %zu particles, ", o->scene_path, cx->particles);
    if (o->steps >= 0) fprintf(f, "%lld steps", o->steps);
    else fprintf(f, "to t = %.6g s", cx->end_time);
    fprintf(f, ", sampled every %.6g s", cx->interval);
    for (size_t i = 0; i < o->set_count; ++i) fprintf(f, "%s `--set %s`", i ? "," : "; with", o->sets[i]);
    fprintf(f, ".\n\n");
    fputs("| solver | status | t end (s) | steps | ms/step | particle-steps/s | density error mean | "
          "density error max | kinetic energy end | momentum drift |", f);
    for (size_t i = 0; i < np; ++i) fprintf(f, " %s (%s) |", eddy_probes_name(p, i), eddy_probes_unit(p, i));
    fputs("\n|---|---|---|---|---|---|---|---|---|---|", f);
    for (size_t i = 0; i < np; ++i) fputs("---|", f);
    fputc('\n', f);
    for (int k = 0; k < count; ++k) {
        const result *r = &res[k];
        summary_row s = summarize(r);
        fprintf(f, "| %s | %s |", r->id, status_of(r));
        if (r->ran) fprintf(f, " %.6g | %llu |", r->end_time, (unsigned long long)r->steps);
        else fputs(" | |", f);
        if (s.have) {
            md_number(f, s.ms_per_step);
            md_number(f, s.rate);
            md_number(f, s.dem);
            md_number(f, s.dmax);
            md_number(f, s.ke_end);
            md_number(f, s.drift);
            for (size_t i = 0; i < np; ++i) md_number(f, r->probe[(r->n - 1) * np + i]);
        } else {
            for (size_t i = 0; i < 6 + np; ++i) fputs(" |", f);
        }
        fputc('\n', f);
    }
    int refs = 0;
    for (size_t i = 0; i < np; ++i) {
        const eddy_probe_reference *ref = eddy_probes_reference(p, i);
        if (!ref) continue;
        if (!refs++) fputs("\n## Against reference data\n\n", f);
        fprintf(f, "`%s` against %s (`%s`): RMS of measured / reference - 1 over the reference points within "
                   "the run, in %s vs %s\n\n",
                eddy_probes_name(p, i), ref->label, ref->file, ref->y_label, ref->x_label);
        fputs("| solver | RMS relative deviation | points |\n|---|---|---|\n", f);
        for (int k = 0; k < count; ++k) {
            const result *r = &res[k];
            if (r->n == 0) continue;
            int points;
            double rms = reference_rms(r, np, i, ref, &points);
            fprintf(f, "| %s |", r->id);
            if (isnan(rms)) fputs(" - |", f);
            else fprintf(f, " %.1f%% |", 100 * rms);
            fprintf(f, " %d |\n", points);
        }
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
    fputs("\nDensity error: |rho / rho0 - 1| per particle; the mean is its mean over particles averaged over the "
          "samples, the max its largest value at any sample. Kinetic energy and momentum drift |P(end) - P(0)| "
          "are in simulation units (per unit depth in 2D); with gravity and walls momentum is not conserved, so "
          "the drift measures how differently the solvers move the fluid. ms/step is the wall time inside the "
          "solver steps only. See docs/compare.md.\n", f);
}

static int write_summary_md(const context *cx, const result *res, int count, const char *const *plots,
                            int plot_count, eddy_error *err)
{
    char path[PATH_MAX_ + 32], tmp[PATH_MAX_ + 40];
    snprintf(path, sizeof path, "%s/summary.md", cx->out_dir);
    FILE *f = open_tmp(path, tmp, sizeof tmp, err);
    if (!f) return err->code;
    summary_md(f, cx, res, count, plots, plot_count);
    return close_replace(f, tmp, path, err);
}

/* ------------------------------------------------------------------------------------------------ */
/* Plots                                                                                             */
/* ------------------------------------------------------------------------------------------------ */

#define MAX_PLOTS (8 + 64)

typedef struct plotter {
    const context *cx;
    const result *res;
    int count;
    char names[MAX_PLOTS][96];    /* relative to the output folder */
    const char *list[MAX_PLOTS];
    int plot_count;
    int failures;
    eddy_error first_error;
} plotter;

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

static void plot_metric(plotter *pl, const char *file, const char *title, const char *y_label, metric_fn fn,
                        const void *arg, const eddy_probe_reference *ref)
{
    if (pl->plot_count == MAX_PLOTS) return;
    eddy_plot_series series[MAX_SOLVERS + 1];
    double *buf[MAX_SOLVERS + 1];
    size_t ns = 0;
    int oom = 0;
    for (int s = 0; s < pl->count; ++s) {
        const result *r = &pl->res[s];
        if (r->n == 0) continue;
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
        fprintf(stderr, "eddy: error: %s\n", err.message);
        return;
    }
    pl->list[pl->plot_count] = pl->names[pl->plot_count];
    pl->plot_count++;
}

static void draw_plots(plotter *pl)
{
    static const int KE = COL_KE, DEM = COL_DEM, DMAX = COL_DMAX, VMAX = COL_VMAX;
    plot_metric(pl, "kinetic_energy", "kinetic energy", "kinetic energy (J, simulation units)", metric_column, &KE,
                NULL);
    plot_metric(pl, "density_error_mean", "mean density error", "mean |rho/rho0 - 1|", metric_column, &DEM, NULL);
    plot_metric(pl, "density_error_max", "max density error", "max |rho/rho0 - 1|", metric_column, &DMAX, NULL);
    plot_metric(pl, "max_speed", "max speed", "max speed (m/s, simulation units)", metric_column, &VMAX, NULL);
    plot_metric(pl, "momentum_drift", "momentum drift |P(t) - P(0)|", "|P(t) - P(0)| (kg m/s, simulation units)",
                metric_drift, NULL, NULL);
    const eddy_probes *p = pl->cx->probes;
    const size_t np = eddy_probes_count(p);
    for (size_t i = 0; i < np; ++i) {
        const eddy_probe_reference *ref = eddy_probes_reference(p, i);
        probe_metric pm = {i, np, ref};
        char file[80], title[128], label[96];
        snprintf(file, sizeof file, "probe_%s", eddy_probes_name(p, i));
        snprintf(title, sizeof title, "probe %s%s%s", eddy_probes_name(p, i), ref ? " against " : "",
                 ref ? ref->label : "");
        snprintf(label, sizeof label, "%s (%s)", eddy_probes_name(p, i), eddy_probes_unit(p, i));
        plot_metric(pl, file, title, label, metric_probe, &pm, ref);
    }
}

/* ------------------------------------------------------------------------------------------------ */
/* The command                                                                                       */
/* ------------------------------------------------------------------------------------------------ */

int eddy_compare_run(const eddy_compare_options *opt)
{
    const options o = *opt;
    int rc;
    eddy_services_set_quiet(o.quiet);

    context cx;
    memset(&cx, 0, sizeof cx);
    cx.opt = &o;
    eddy_error err;
    eddy_error_clear(&err);
    eddy_scene scene;
    eddy_probes *probes = NULL;
    result *res = NULL;
    int status = 0;
    if ((rc = eddy_scene_load(o.scene_path, o.sets, o.set_count, &scene, &err))) {
        fprintf(stderr, "eddy: error: %s\n", err.message);
        return 1;
    }
    if (!(rc = eddy_services_registry(1, &cx.registry, &err))) rc = eddy_probes_parse(&scene, cx.registry, &probes, &err);
    snprintf(cx.scene_name, sizeof cx.scene_name, "%s", scene.name);
    cx.end_time = isnan(o.until) ? scene.end_time : o.until;
    cx.interval = scene.output_interval;
    cx.particles = eddy_scene_count_particles(&scene);
    if (o.out_dir) snprintf(cx.out_dir, sizeof cx.out_dir, "%s", o.out_dir);
    else snprintf(cx.out_dir, sizeof cx.out_dir, "out/compare/%s", scene.name);
    eddy_scene_free(&scene);
    cx.probes = probes;
    char plots_dir[PATH_MAX_ + 8];
    snprintf(plots_dir, sizeof plots_dir, "%s/plots", cx.out_dir);
    if (rc || (rc = eddy_output_make_dirs(cx.out_dir, &err)) || (rc = eddy_output_make_dirs(plots_dir, &err))) {
        fprintf(stderr, "eddy: error: %s\n", err.message);
        eddy_probes_destroy(probes);
        eddy_registry_destroy(cx.registry);
        return 1;
    }
    eddy_services_install_signal_handlers();
    volatile sig_atomic_t *stop_signal = eddy_services_stop_flag();

    res = calloc((size_t)o.solver_count, sizeof *res);
    if (!res) {
        fprintf(stderr, "eddy: error: out of memory\n");
        status = 1;
        goto done;
    }
    int failed = 0;
    for (int k = 0; k < o.solver_count; ++k) {
        result *r = &res[k];
        snprintf(r->id, sizeof r->id, "%s", o.solvers[k]);
        if (*stop_signal) continue;
        eddy_error_clear(&err);
        if ((rc = run_solver(&cx, r, &err))) {
            r->failed = 1;
            snprintf(r->error, sizeof r->error, "%s", err.message);
            fprintf(stderr, "eddy: error: %s: %s\n", r->id, err.message);
            ++failed;
            if (rc == EDDY_ERR_INTERRUPTED) {
                r->interrupted = 1;
                status = 130;
            }
        }
        /* After every solver, so that an interrupted comparison keeps what it has. */
        eddy_error serr;
        if (write_summary_csv(&cx, res, k + 1, &serr) || write_summary_md(&cx, res, k + 1, NULL, 0, &serr)) {
            fprintf(stderr, "eddy: error: %s\n", serr.message);
            status = status ? status : 1;
        }
    }

    plotter pl;
    memset(&pl, 0, sizeof pl);
    pl.cx = &cx;
    pl.res = res;
    pl.count = o.solver_count;
    draw_plots(&pl);
    eddy_error serr;
    if (write_summary_csv(&cx, res, o.solver_count, &serr) ||
        write_summary_md(&cx, res, o.solver_count, pl.list, pl.plot_count, &serr)) {
        fprintf(stderr, "eddy: error: %s\n", serr.message);
        pl.failures++;
    }
    summary_md(stdout, &cx, res, o.solver_count, pl.list, pl.plot_count);
    fflush(stdout);
    if (!o.quiet) fprintf(stderr, "compare: summary in %s/summary.md and summary.csv, plots in %s\n", cx.out_dir, plots_dir);
    if (failed && status != 130)
        fprintf(stderr, "eddy: error: %d of %d solvers failed (see %s/summary.md)\n", failed, o.solver_count,
                cx.out_dir);
    if (!status && (failed || pl.failures)) status = 1;
done:
    for (int k = 0; res && k < o.solver_count; ++k) result_free(&res[k]);
    free(res);
    eddy_probes_destroy(probes);
    eddy_registry_destroy(cx.registry);
    return status;
}
