/*
 * host/drive/validate_report.c — what `eddy validate` writes: per run DIR/<case>/<solver>/<resolution>/
 * series.csv and one plot per check (the measured curve over the reference points), and over all runs
 * DIR/report.md and DIR/report.csv (error, bar, expectation, result, wall time; the observed order of
 * convergence where a check was measured at several resolutions).
 */
#include "validate_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "folder_lock.h"
#include "output.h"
#include "plot.h"
#include "provenance.h"

static const char *const RES_NAMES[] = {"coarse", "medium", "fine"};

void vreport_init(vreport *r, const char *dir)
{
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
}

void vreport_free(vreport *r)
{
    free(r->rows);
    memset(r, 0, sizeof *r);
}

/* A check's result. An unstable run's (it made energy) says so and when, whatever the check's error: a
 * front that runs at the right speed in a gas is no pass. */
#define RESULT_TEXT(w) result_text((w), (char[128]){0}, 128)
static const char *result_text(const vrow *w, char *buf, size_t size)
{
    if (w->failure[0]) return w->claim == CLAIM_PASS ? "FAILED" : "failed";
    if (w->unstable[0]) {
        snprintf(buf, size, "%s (%senergy rose %.3gx at t = %.6g s)", w->claim == CLAIM_PASS ? "MISS" : "miss",
                 w->claim == CLAIM_MISS ? "expected; " : w->claim == CLAIM_NONE ? "not claimed; " : "",
                 w->energy_ratio, w->energy_time);
        return buf;
    }
    if (w->claim == CLAIM_PASS) return w->pass ? "pass" : "MISS";
    if (w->claim == CLAIM_MISS) return w->pass ? "pass (expected to miss)" : "miss (expected)";
    return w->pass ? "pass (not claimed)" : "miss (not claimed)";
}

/* A Markdown table cell: a check's title may hold a '|' (|I - I0|), which would end the cell. */
static void md_cell(FILE *f, const char *text)
{
    for (const char *c = text; *c; ++c) {
        if (*c == '|') fputc('\\', f);
        fputc(*c, f);
    }
}

static const char *claim_text(claim_kind k)
{
    return k == CLAIM_PASS ? "pass" : k == CLAIM_MISS ? "miss" : "-";
}

/* ------------------------------------------------------------------------------------------------ */
/* One run: series and plots                                                                         */
/* ------------------------------------------------------------------------------------------------ */

static int write_series(const char *dir, const vcase *c, const vrun *run, eddy_error *err)
{
    char *path = eddy_output_join_path(dir, "series.csv");
    if (!path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    /* Through a temporary file: a failed write (a full disk) leaves an earlier validation's series.csv
     * whole rather than cut short. */
    eddy_atomic_file af;
    int rc = eddy_atomic_open(&af, path, err);
    if (rc) {
        free(path);
        return rc;
    }
    FILE *f = af.f;
    /* Scalar checks share the frames: one row per frame. Profiles follow as their own rows. */
    fprintf(f, "time");
    int first = -1;
    for (int k = 0; k < c->check_count; ++k)
        if (c->checks[k].measure != M_PROFILE) {
            fprintf(f, ",%s", c->checks[k].name);
            if (first < 0) first = k;
        }
    fprintf(f, "\n");
    for (size_t i = 0; first >= 0 && i < run->series[first].n; ++i) {
        fprintf(f, "%.9g", run->series[first].t[i]);
        for (int k = 0; k < c->check_count; ++k)
            if (c->checks[k].measure != M_PROFILE)
                fprintf(f, ",%.9g", i < run->series[k].n ? run->series[k].v[i] : NAN);
        fprintf(f, "\n");
    }
    for (int k = 0; k < c->check_count; ++k) {
        const vcheck *ck = &c->checks[k];
        if (ck->measure != M_PROFILE || !run->series[k].profile) continue;
        fprintf(f, "\n# %s: time,position,measured,reference\n", ck->name);
        for (size_t i = 0; i < ck->ref.count; ++i)
            fprintf(f, "%.9g,%.9g,%.9g,%.9g\n", ck->ref.t[i], ck->ref.x[i], run->series[k].profile[i], ck->ref.y[i]);
    }
    rc = eddy_atomic_commit(&af, err);
    free(path);
    return rc;
}

/* A profile plot: per reference time the measured values at the reference positions (a line) and the
 * reference (markers), value over position in the reference's units. */
static int plot_profile(const char *path, const char *title, const vcheck *ck, const vseries *s, eddy_error *err)
{
    enum { MAXT = 6 };
    double times[MAXT];
    int nt = 0;
    for (size_t i = 0; i < ck->ref.count; ++i) {
        int seen = 0;
        for (int k = 0; k < nt; ++k) seen |= times[k] == ck->ref.t[i];
        if (!seen && nt < MAXT) times[nt++] = ck->ref.t[i];
    }
    size_t n = ck->ref.count;
    double *x = malloc(2 * n * sizeof *x + 1), *ym = malloc(n * sizeof *ym + 1), *yr = malloc(n * sizeof *yr + 1);
    eddy_plot_series ser[2 * MAXT];
    char labels[2 * MAXT][64];
    int ns = 0;
    size_t used = 0;
    if (!x || !ym || !yr) {
        free(x), free(ym), free(yr);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (int k = 0; k < nt; ++k) {
        size_t start = used;
        for (size_t i = 0; i < n; ++i) {
            if (ck->ref.t[i] != times[k]) continue;
            x[used] = ck->ref.x[i] / ck->ref.position_scale;
            ym[used] = s->profile ? s->profile[i] / ck->ref.value_scale : NAN;
            yr[used] = ck->ref.y[i] / ck->ref.value_scale;
            ++used;
        }
        snprintf(labels[ns], sizeof labels[ns], "measured, t = %.4g s", times[k]);
        ser[ns] = (eddy_plot_series){labels[ns], x + start, ym + start, used - start, 0};
        ++ns;
        snprintf(labels[ns], sizeof labels[ns], "reference, t = %.4g s", times[k]);
        ser[ns] = (eddy_plot_series){labels[ns], x + start, yr + start, used - start, 1};
        ++ns;
    }
    eddy_plot_options po = eddy_plot_default_options();
    po.title = title;
    po.x_label = ck->ref.position_label;
    po.y_label = ck->ref.value_label;
    int rc = eddy_plot_write_png(path, &po, ser, (size_t)ns, err);
    free(x), free(ym), free(yr);
    return rc;
}

/* A series plot: the measured values over time, in the reference's units when there is one, with the
 * reference points as markers (or the expected value / bound as a line). */
static int plot_series(const char *path, const char *title, const vcheck *ck, const vseries *s, double shift,
                       eddy_error *err)
{
    const double ts = ck->has_ref ? ck->ref.time_scale : 1.0, vs = ck->has_ref ? ck->ref.value_scale : 1.0;
    double *x = malloc((s->n + 1) * sizeof *x), *y = malloc((s->n + 1) * sizeof *y);
    double *rx = NULL, *ry = NULL;
    if (!x || !y) {
        free(x), free(y);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < s->n; ++i) {
        x[i] = s->t[i] / ts + shift;
        y[i] = s->v[i] / vs;
    }
    char label[96];
    if (shift > 0)
        snprintf(label, sizeof label, "measured (shifted by %.2f)", shift);
    else
        snprintf(label, sizeof label, "measured");
    eddy_plot_series ser[2] = {{label, x, y, s->n, 0}};
    size_t ns = 1;
    double lx[2], ly[2];
    if (ck->has_ref) {
        rx = malloc((ck->ref.count + 1) * sizeof *rx);
        ry = malloc((ck->ref.count + 1) * sizeof *ry);
        if (rx && ry) {
            for (size_t i = 0; i < ck->ref.count; ++i) {
                rx[i] = ck->ref.t[i] / ts;
                ry[i] = ck->ref.y[i] / vs;
            }
            ser[ns++] = (eddy_plot_series){ck->ref.label, rx, ry, ck->ref.count, 1};
        }
    } else if (s->n > 0) {
        lx[0] = s->t[0], lx[1] = s->t[s->n - 1];
        ly[0] = ly[1] = ck->error == E_VALUE ? ck->bar : ck->value;
        const char *what = ck->error == E_RELATIVE ? "expected" : ck->error == E_VALUE ? "bound" : "least";
        ser[ns++] = (eddy_plot_series){what, lx, ly, 2, 0};
    }
    eddy_plot_options po = eddy_plot_default_options();
    po.title = title;
    po.x_label = ck->has_ref ? ck->ref.time_label : "t (s)";
    po.y_label = ck->has_ref ? ck->ref.value_label : ck->name;
    int rc = eddy_plot_write_png(path, &po, ser, ns, err);
    free(x), free(y), free(rx), free(ry);
    return rc;
}

static int grow(vreport *r)
{
    if (r->count < r->cap) return 0;
    size_t cap = r->cap ? 2 * r->cap : 32;
    vrow *nr = realloc(r->rows, cap * sizeof *nr);
    if (!nr) return -1;
    r->rows = nr;
    r->cap = cap;
    return 0;
}

/* One more file of a run that could not be written, added to `all` (the first error as it is, the others
 * after "; "), so that every failed file is named, not the first alone; the count says how many. */
static void add_failure(eddy_error *all, int *count, const eddy_error *one)
{
    if ((*count)++ == 0) {
        *all = *one;
        return;
    }
    const size_t n = strlen(all->message), room = sizeof all->message - n;
    if (room > strlen(one->message) + 2)
        snprintf(all->message + n, room, "; %s", one->message);
    else if (room > 16 && !strstr(all->message, "; and more"))
        snprintf(all->message + n, room, "; and more");
}

int vreport_add(vreport *r, const vcase *c, const char *solver, int res, const vclaim *claim, const vrun *run,
                int quiet, eddy_error *err)
{
    char rel[3 * VNAME + 16], dir[2 * VPATH];
    snprintf(rel, sizeof rel, "%s/%s/%s", c->name, solver, RES_NAMES[res]);
    snprintf(dir, sizeof dir, "%s/%s", r->dir, rel);
    /* The case's folder is made and held while its files are written (series and plots), as each
     * solver's folder of a comparison (folder_lock.h). A folder that cannot be held gets no file. */
    eddy_folder_lock *lock = NULL;
    eddy_error one;
    eddy_error_clear(&one);
    int failures = 0;
    const int locked = eddy_folder_lock_take(dir, EDDY_FOLDER_MAKE, "choose another --out", &lock, &one) == 0;
    if (!locked) add_failure(err, &failures, &one);
    /* Each file on its own: one that failed (a full disk, a name taken) does not keep the next from
     * being tried, nor goes unsaid. */
    if (locked && !run->failure[0] && write_series(dir, c, run, &one)) add_failure(err, &failures, &one);
    if (!quiet && run->failure[0]) fprintf(stderr, "  failed: %s\n", run->failure);
    if (!quiet && run->unstable[0]) fprintf(stderr, "  unstable: %s\n", run->unstable);
    int rc = EDDY_OK;
    for (int k = 0; k < c->check_count; ++k) {
        const vcheck *ck = &c->checks[k];
        if (grow(r)) {
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        vrow *w = &r->rows[r->count++];
        memset(w, 0, sizeof *w);
        snprintf(w->case_name, sizeof w->case_name, "%s", c->name);
        snprintf(w->title, sizeof w->title, "%s", c->title);
        snprintf(w->description, sizeof w->description, "%s", c->description);
        snprintf(w->solver, sizeof w->solver, "%s", solver);
        snprintf(w->check, sizeof w->check, "%s", ck->name);
        snprintf(w->check_title, sizeof w->check_title, "%s", ck->title[0] ? ck->title : ck->name);
        const char *note = NULL;
        w->claim = vclaim_of_check(claim, ck->name, &note);
        snprintf(w->note, sizeof w->note, "%s", note ? note : "");
        eddy_sets_text(w->sets, sizeof w->sets, (const char *const *)claim->sets, (size_t)claim->set_count);
        snprintf(w->failure, sizeof w->failure, "%s", run->failure);
        snprintf(w->unstable, sizeof w->unstable, "%s", run->unstable);
        w->energy_ratio = run->energy_ratio;
        w->energy_time = run->energy_time;
        w->res = res;
        w->spacing = c->res[res].spacing;
        w->error = run->error[k];
        w->bar = ck->bar;
        w->shift = run->shift[k];
        w->wall_s = run->wall_s;
        w->particles = run->particles;
        w->steps = run->steps;
        w->pass = !run->failure[0] && !run->unstable[0] && !isnan(w->error) && w->error <= w->bar;
        if (w->claim == CLAIM_PASS && !w->pass) {
            ++r->claimed_misses;
            /* Always said, --quiet or not: this is what makes the command fail. */
            if (run->failure[0])
                fprintf(stderr, "eddy: validate: %s with %s (%s): %s failed to run: %s\n", c->name, solver, RES_NAMES[res],
                        ck->name, run->failure);
            else if (run->unstable[0])
                fprintf(stderr,
                        "eddy: validate: %s with %s (%s): %s missed: the run made energy (E_k + E_p rose %.3g times "
                        "the mechanical energy above the floor at the start, at t = %.6g s), so it is unstable "
                        "whatever the check's error (%.4g)\n",
                        c->name, solver, RES_NAMES[res], ck->name, run->energy_ratio, run->energy_time, w->error);
            else
                fprintf(stderr, "eddy: validate: %s with %s (%s): %s missed its bar: error %.4g > %.4g\n", c->name, solver,
                        RES_NAMES[res], ck->name, w->error, w->bar);
        }
        if (locked && !run->failure[0]) {
            char title[256], path[3 * VPATH];
            snprintf(title, sizeof title, "%s: %s, %s, %s", c->name, ck->name, solver, RES_NAMES[res]);
            snprintf(path, sizeof path, "%s/%s.png", dir, ck->name);
            const int failed = ck->measure == M_PROFILE ? plot_profile(path, title, ck, &run->series[k], &one)
                                                        : plot_series(path, title, ck, &run->series[k], w->shift, &one);
            /* The report links a plot of this run only: a failed one may have left an earlier
             * validation's file of the same name, which is not this run's curve. */
            if (failed) {
                add_failure(err, &failures, &one);
                snprintf(w->plot_failure, sizeof w->plot_failure, "%s", one.message);
            } else {
                snprintf(w->plot, sizeof w->plot, "%s/%s.png", rel, ck->name);
            }
        }
        if (!quiet)
            fprintf(stderr, "  %-18s error %-10.4g bar %-8.4g%s expected %-4s -> %s\n", ck->name, w->error, w->bar,
                    w->shift > 0 ? " (shifted)" : "", claim_text(w->claim), RESULT_TEXT(w));
    }
    eddy_folder_lock_release(lock);
    if (!quiet) fprintf(stderr, "  %zu particles, %llu steps, %.1f s\n", run->particles, run->steps, run->wall_s);
    return rc ? rc : failures ? err->code : EDDY_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* The report                                                                                        */
/* ------------------------------------------------------------------------------------------------ */

/* The observed order between the errors at two spacings: log(e1 / e2) / log(h1 / h2). */
static double order(double e1, double h1, double e2, double h2)
{
    if (!(e1 > 0) || !(e2 > 0) || h1 == h2) return NAN;
    return log(e1 / e2) / log(h1 / h2);
}

/*
 * DIR/<case>/convergence_<check>.png for every check of the case that some solver ran at two or more
 * resolutions: log10 of the error over log10 of the particle spacing, one line per solver (a slope of p
 * is order p). Linked from the Markdown report when written; one that could not be written is said there
 * instead and added to `err` (add_failure, `failures` counts them). Returns the number written.
 */
static int plot_convergence(const vreport *r, size_t first, FILE *md, eddy_error *err, int *failures)
{
    const char *name = r->rows[first].case_name;
    int written = 0;
    for (size_t j = first; j < r->count; ++j) {
        const vrow *x = &r->rows[j];
        if (strcmp(x->case_name, name) != 0) continue;
        int seen = 0;
        for (size_t k = first; k < j; ++k)
            seen |= strcmp(r->rows[k].case_name, name) == 0 && strcmp(r->rows[k].check, x->check) == 0;
        if (seen) continue;
        enum { MAXS = 16 };
        eddy_plot_series ser[MAXS];
        double px[MAXS][3], py[MAXS][3];
        const char *labels[MAXS];
        size_t ns = 0;
        for (size_t k = first; k < r->count && ns < MAXS; ++k) {
            const vrow *y = &r->rows[k];
            if (strcmp(y->case_name, name) || strcmp(y->check, x->check)) continue;
            size_t s = 0;
            while (s < ns && strcmp(labels[s], y->solver) != 0) ++s;
            if (s == ns) {
                labels[ns] = y->solver;
                for (int q = 0; q < 3; ++q) px[ns][q] = py[ns][q] = NAN;
                ++ns;
            }
            if (y->error > 0 && isfinite(y->error)) {
                px[s][y->res] = log10(y->spacing);
                py[s][y->res] = log10(y->error);
            }
        }
        size_t kept = 0;
        for (size_t s = 0; s < ns; ++s) {
            int n = 0;
            for (int q = 0; q < 3; ++q) n += isfinite(py[s][q]);
            if (n >= 2) ser[kept++] = (eddy_plot_series){labels[s], px[s], py[s], 3, 0};
        }
        if (!kept) continue;
        char path[2 * VPATH], title[256];
        snprintf(path, sizeof path, "%s/%s/convergence_%s.png", r->dir, name, x->check);
        snprintf(title, sizeof title, "%s: %s against resolution", name, x->check);
        eddy_plot_options po = eddy_plot_default_options();
        po.title = title;
        po.x_label = "log10 particle spacing (m)";
        po.y_label = "log10 error";
        eddy_error one;
        eddy_error_clear(&one);
        if (eddy_plot_write_png(path, &po, ser, kept, &one)) {
            add_failure(err, failures, &one);
            fprintf(md, "\n- The plot of %s against resolution was not written: %s\n\n", x->check, one.message);
            continue;
        }
        fprintf(md, "![%s: %s against resolution](%s/convergence_%s.png)\n", name, x->check, name, x->check);
        ++written;
    }
    return written;
}

/*
 * The row measured at the next coarser resolution than w's for the same case, solver and check (the
 * last such row, as the Markdown table keeps it), or NULL: the pair whose observed order report.csv
 * gives on w's line, the same successive pairs as the Markdown convergence table.
 */
static const vrow *next_coarser(const vreport *r, const vrow *w)
{
    const vrow *best = NULL;
    for (size_t k = 0; k < r->count; ++k) {
        const vrow *y = &r->rows[k];
        if (y->res >= w->res || strcmp(y->case_name, w->case_name) || strcmp(y->solver, w->solver) ||
            strcmp(y->check, w->check))
            continue;
        if (!best || y->res >= best->res) best = y;
    }
    return best;
}

static void write_csv(const vreport *r, FILE *f)
{
    /* New columns go at the end: readers (tests/validate/run_case.sh) take the others by index. */
    fprintf(f, "case,solver,resolution,spacing,particles,check,error,bar,time_shift,expected,result,wall_s,steps,plot,"
               "order\n");
    for (size_t i = 0; i < r->count; ++i) {
        const vrow *w = &r->rows[i];
        /* order: between the next coarser resolution run and this one; empty on the coarsest row. */
        const vrow *c = next_coarser(r, w);
        char ord[32] = "";
        if (c) snprintf(ord, sizeof ord, "%.4g", order(c->error, c->spacing, w->error, w->spacing));
        fprintf(f, "%s,%s,%s,%.6g,%zu,%s,%.6g,%.6g,%.3g,%s,%s,%.2f,%llu,%s,%s\n", w->case_name, w->solver,
                RES_NAMES[w->res], w->spacing, w->particles, w->check, w->error, w->bar, w->shift, claim_text(w->claim),
                RESULT_TEXT(w), w->wall_s, w->steps, w->plot, ord);
    }
}

/* report.md into f; the convergence plots it links are written meanwhile (plot_convergence). */
static void write_md(const vreport *r, FILE *f, eddy_error *plot_err, int *plot_failures)
{
    fprintf(f, "# Validation report\n\nWritten by `eddy validate`. A check passes when its error is at most its bar; "
               "\"expected\" is what the solver's validation file claims (pass, miss, or - for no claim). A run "
               "whose energy E_k + E_p rose above its start by more than half the mechanical energy above the "
               "container's floor at the start (walls at rest: the scheme made energy, the warning of `eddy run`) is "
               "unstable: each of its checks misses whatever its error (\"energy rose ...x at t = ...\"). Only a "
               "claimed pass that misses (MISS) or fails to run (FAILED) fails the command.\n");
    char made[256];
    eddy_provenance(made, sizeof made);
    fprintf(f, "\nMade by %s.\n", made);
    if (r->sets[0]) fprintf(f, "\nEvery case ran with %s (the command line's overrides).\n", r->sets);
    for (size_t i = 0; i < r->count; ++i) {
        const vrow *w = &r->rows[i];
        int seen = 0;
        for (size_t j = 0; j < i; ++j) seen |= strcmp(r->rows[j].case_name, w->case_name) == 0;
        if (seen) continue;
        fprintf(f, "\n## %s (`%s`)\n\n%s\n\n", w->title, w->case_name, w->description);
        fprintf(f, "| solver | resolution | particles | check | error | bar | expected | result | wall (s) |\n"
                   "|---|---|---|---|---|---|---|---|---|\n");
        for (size_t j = i; j < r->count; ++j) {
            const vrow *x = &r->rows[j];
            if (strcmp(x->case_name, w->case_name) != 0) continue;
            char shift[48] = "";
            if (x->shift > 0) snprintf(shift, sizeof shift, " (time shift %.2f)", x->shift);
            fprintf(f, "| %s | %s | %zu | ", x->solver, RES_NAMES[x->res], x->particles);
            md_cell(f, x->check_title);
            fprintf(f, " | %.4g%s | %.4g | %s | %s | %.1f |\n", x->error, shift, x->bar, claim_text(x->claim),
                    RESULT_TEXT(x), x->wall_s);
        }
        /* Failures (once per run) and the solvers' notes (once each). */
        for (size_t j = i; j < r->count; ++j) {
            const vrow *x = &r->rows[j];
            if (strcmp(x->case_name, w->case_name) != 0) continue;
            int failure_seen = 0, note_seen = 0, solver_seen = 0;
            for (size_t k = i; k < j; ++k) {
                const vrow *y = &r->rows[k];
                if (strcmp(y->case_name, x->case_name) || strcmp(y->solver, x->solver)) continue;
                failure_seen |= y->res == x->res;
                note_seen |= strcmp(y->note, x->note) == 0;
                solver_seen = 1;
            }
            /* What this solver runs differently from the case's scene (its validation file says why). */
            if (x->sets[0] && !solver_seen) fprintf(f, "\n- %s runs this case with %s.\n", x->solver, x->sets);
            if (x->failure[0] && !failure_seen) fprintf(f, "\n- %s (%s): failed: %s\n", x->solver, RES_NAMES[x->res], x->failure);
            if (x->unstable[0] && !failure_seen)
                fprintf(f, "\n- %s (%s): unstable, every check missed: %s\n", x->solver, RES_NAMES[x->res], x->unstable);
            if (x->note[0] && !note_seen) fprintf(f, "\n- %s, %s: %s\n", x->solver, x->check, x->note);
        }
        /* Convergence: a check of a solver measured at two or more resolutions. */
        int header = 0;
        for (size_t j = i; j < r->count; ++j) {
            const vrow *x = &r->rows[j];
            if (strcmp(x->case_name, w->case_name) != 0) continue;
            const vrow *by[3] = {NULL, NULL, NULL};
            int n = 0, dup = 0;
            for (size_t k = i; k < r->count; ++k) {
                const vrow *y = &r->rows[k];
                if (strcmp(y->case_name, x->case_name) || strcmp(y->solver, x->solver) || strcmp(y->check, x->check)) continue;
                if (k < j) dup = 1;
                if (!by[y->res]) ++n;
                by[y->res] = y;
            }
            if (dup || n < 2) continue;
            if (!header) {
                fprintf(f, "\nConvergence (error at each particle spacing; observed order p = log(e1/e2) / log(dx1/dx2) "
                           "between successive resolutions):\n\n| solver | check | coarse | medium | fine | order |\n"
                           "|---|---|---|---|---|---|\n");
                header = 1;
            }
            fprintf(f, "| %s | ", x->solver);
            md_cell(f, x->check_title);
            fputs(" |", f);
            for (int q = 0; q < 3; ++q) {
                if (by[q])
                    fprintf(f, " %.4g (dx %.4g) |", by[q]->error, by[q]->spacing);
                else
                    fprintf(f, " - |");
            }
            char ord[96] = "";
            for (int q = 0; q < 2; ++q) {
                const vrow *a = by[q], *b = by[q + 1] ? by[q + 1] : (q == 0 ? by[2] : NULL);
                if (!a || !b) continue;
                snprintf(ord + strlen(ord), sizeof ord - strlen(ord), "%s%.2f", ord[0] ? ", " : "",
                         order(a->error, a->spacing, b->error, b->spacing));
                if (!by[q + 1]) break;
            }
            fprintf(f, " %s |\n", ord[0] ? ord : "-");
        }
        fprintf(f, "\n");
        if (header) plot_convergence(r, i, f, plot_err, plot_failures);
        for (size_t j = i; j < r->count; ++j)
            if (strcmp(r->rows[j].case_name, w->case_name) == 0 && r->rows[j].plot[0])
                fprintf(f, "![%s: %s, %s, %s](%s)\n", r->rows[j].case_name, r->rows[j].check, r->rows[j].solver,
                        RES_NAMES[r->rows[j].res], r->rows[j].plot);
        int said = 0;
        for (size_t j = i; j < r->count; ++j) {
            const vrow *x = &r->rows[j];
            if (strcmp(x->case_name, w->case_name) != 0 || !x->plot_failure[0]) continue;
            fprintf(f, "%s- The plot of %s, %s, %s was not written: %s\n", said++ ? "" : "\n", x->check, x->solver,
                    RES_NAMES[x->res], x->plot_failure);
        }
    }
}

/* Drops a temporary file that eddy_atomic_open opened, leaving the file it was to replace as it was. */
static void atomic_drop(eddy_atomic_file *af)
{
    fclose(af->f);
    remove(af->tmp);
    free(af->tmp);
    af->f = NULL;
    af->tmp = NULL;
}

/* The report could not be written (err says which file and why): says what DIR holds instead. */
static int report_not_written(const vreport *r, const char *md_path, eddy_error *err)
{
    char why[EDDY_ERROR_MESSAGE_MAX];
    snprintf(why, sizeof why, "%s", err->message);
    if (access(md_path, F_OK) == 0)
        return eddy_error_set(err, err->code, "%s; the earlier report in '%s' (report.md, report.csv) is kept unchanged",
                              why, r->dir);
    return eddy_error_set(err, err->code, "%s; no report was written", why);
}

int vreport_write(vreport *r, eddy_error *err)
{
    r->written = 0;
    int rc = eddy_output_make_dirs(r->dir, err);
    if (rc) return rc;
    char csv_path[VPATH + 16], md_path[VPATH + 16];
    snprintf(csv_path, sizeof csv_path, "%s/report.csv", r->dir);
    snprintf(md_path, sizeof md_path, "%s/report.md", r->dir);
    /* Each through a temporary file, renamed over the earlier one only once both are whole: a disk that
     * fills half-way leaves the earlier pair as it was (it left an empty report.md, or an empty
     * report.csv and no report.md), not a new table beside an old report. */
    eddy_atomic_file csv, md;
    if ((rc = eddy_atomic_open(&csv, csv_path, err))) return report_not_written(r, md_path, err);
    write_csv(r, csv.f);
    if ((rc = eddy_atomic_open(&md, md_path, err))) {
        atomic_drop(&csv);
        return report_not_written(r, md_path, err);
    }
    eddy_error plots;
    eddy_error_clear(&plots);
    int plot_failures = 0;
    write_md(r, md.f, &plots, &plot_failures);
    /* A full disk shows at the flush (the files' buffers hold the whole report); eddy_atomic_commit of
     * a file in error removes its temporary file and names the reason. */
    if (fflush(csv.f) != 0 || ferror(csv.f)) {
        rc = eddy_atomic_commit(&csv, err);
        atomic_drop(&md);
    } else if (fflush(md.f) != 0 || ferror(md.f)) {
        rc = eddy_atomic_commit(&md, err);
        atomic_drop(&csv);
    } else if ((rc = eddy_atomic_commit(&csv, err))) {
        atomic_drop(&md);
    } else {
        rc = eddy_atomic_commit(&md, err);
        /* (after a flush that succeeded, a failing close or rename: the new table beside the old report) */
        if (rc) return eddy_error_prefix(err, "report.csv was written, but: ");
    }
    if (rc) return report_not_written(r, md_path, err);
    r->written = 1;
    if (plot_failures) {
        *err = plots;
        return err->code;
    }
    return EDDY_OK;
}

void vreport_print_summary(const vreport *r, FILE *f)
{
    fprintf(f, "%-22s %-12s %-7s %-20s %10s %8s %-9s %s\n", "case", "solver", "res", "check", "error", "bar", "expected",
            "result");
    for (size_t i = 0; i < r->count; ++i) {
        const vrow *w = &r->rows[i];
        fprintf(f, "%-22s %-12s %-7s %-20s %10.4g %8.4g %-9s %s\n", w->case_name, w->solver, RES_NAMES[w->res], w->check,
                w->error, w->bar, claim_text(w->claim), RESULT_TEXT(w));
    }
    /* Only a report this validation wrote: the error above says why there is none, or which earlier one
     * is left in its place. */
    if (r->written) fprintf(f, "report: %s/report.md\n", r->dir);
}
