/*
 * The energy figures of `eddy compare`'s summary (host/drive/compare_report.c) from sample tables made
 * here, so that each figure has a known answer: total_energy_change E(end) - E(0), and
 * total_energy_rise_max, the largest E(k) - E(0) over the samples (energy a scheme made and may have
 * lost again before the end), each also relative to E(0) above the floor, E(0) + M g . x_floor. The
 * tables are dyadic numbers: E = E_k + E_p and the differences are exact.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <eddy/eddy.h>

#include "compare_internal.h"
#include "sim_support.h"

#define MAX_SAMPLES 8

/* One solver's samples: E_k and E_p given, everything else 0, the mass M at every sample. */
typedef struct table {
    result r;
    double t[MAX_SAMPLES], col[COL_COUNT][MAX_SAMPLES];
} table;

static void table_init(table *tb, const char *id, const double *ke, const double *ep, size_t n, double mass)
{
    memset(tb, 0, sizeof *tb);
    assert_true(n <= MAX_SAMPLES);
    snprintf(tb->r.id, sizeof tb->r.id, "%s", id);
    tb->r.ran = 1;
    tb->r.particles = 1;
    tb->r.steps = n;
    tb->r.end_time = (double)(n - 1);
    tb->r.n = tb->r.cap = n;
    tb->r.t = tb->t;
    for (int c = 0; c < COL_COUNT; ++c) tb->r.col[c] = tb->col[c];
    for (size_t k = 0; k < n; ++k) {
        tb->t[k] = (double)k;
        tb->col[COL_KE][k] = ke[k];
        tb->col[COL_EP][k] = ep[k];
        tb->col[COL_MASS][k] = mass;
    }
}

/* The comparison the report reads: a 2D scene by steps, no probes, g . x_floor given, into a folder of
 * its own. */
typedef struct report {
    options opt;
    context cx;
    char dir[256];
} report;

static void report_init(report *rp, double g_dot_floor)
{
    memset(rp, 0, sizeof *rp);
    rp->opt.scene_path = "synthetic.json";
    rp->opt.steps = 3;
    rp->opt.until = NAN;
    rp->cx.opt = &rp->opt;
    rp->cx.dimensions = 2;
    rp->cx.interval = 1;
    rp->cx.end_time = 3;
    rp->cx.g_dot_floor = g_dot_floor;
    snprintf(rp->cx.scene_name, sizeof rp->cx.scene_name, "synthetic");
    snprintf(rp->cx.momentum_na, sizeof rp->cx.momentum_na, "gravity");
    snprintf(rp->dir, sizeof rp->dir, "/tmp/eddy_test_summary_XXXXXX");
    assert_non_null(mkdtemp(rp->dir));
    snprintf(rp->cx.out_dir, sizeof rp->cx.out_dir, "%s", rp->dir);
}

static void report_free(report *rp)
{
    char path[320];
    snprintf(path, sizeof path, "%s/summary.csv", rp->dir);
    remove(path);
    rmdir(rp->dir);
}

/* summary.csv's value of `column` in row `row` (0: the first solver), parsed; fails when absent. */
static double csv_value(const char *dir, int row, const char *column)
{
    char path[320], line[4096], header[4096];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(header, sizeof header, f));
    for (int k = 0; k <= row; ++k) assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    int index = -1, i = 0;
    for (char *save = NULL, *tok = strtok_r(header, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save), ++i)
        if (strcmp(tok, column) == 0) index = i;
    if (index < 0) fail_msg("summary.csv has no column %s", column);
    /* (the fields before the error column are plain numbers and words: no quoted commas) */
    const char *p = line;
    for (i = 0; i < index; ++i) {
        p = strchr(p, ',');
        assert_non_null(p);
        ++p;
    }
    char *end;
    const double v = strtod(p, &end);
    if (end == p) fail_msg("summary.csv %s: not a number: %.40s", column, p);
    return v;
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b));
}

/* E = 10, 12, 12.5, 8.5: up by 2.5 at the third sample, ended 1.5 below the start. With M = 2 and
 * g . x_floor = 1.25 the energy above the floor at the start is 10 + 2 * 1.25 = 12.5. */
static void rise_and_change_of_a_table(void **state)
{
    (void)state;
    report rp;
    report_init(&rp, 1.25);
    const double ke[] = {0, 3, 1, 0.5}, ep[] = {10, 9, 11.5, 8};
    table tb;
    table_init(&tb, "made_up", ke, ep, 4, 2);
    eddy_error err = {0};
    assert_int_equal(compare_write_summary_csv(&rp.cx, &tb.r, 1, &err), EDDY_OK);
    assert_true(close_to(csv_value(rp.dir, 0, "total_energy_change"), -1.5));
    assert_true(close_to(csv_value(rp.dir, 0, "total_energy_change_relative"), -1.5 / 12.5));
    assert_true(close_to(csv_value(rp.dir, 0, "total_energy_rise_max"), 2.5));
    assert_true(close_to(csv_value(rp.dir, 0, "total_energy_rise_max_relative"), 2.5 / 12.5));

    /* summary.md: the column beside the change, the rise with its percent. */
    char *md = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&md, &size);
    assert_non_null(f);
    compare_summary_md(f, &rp.cx, &tb.r, 1, NULL, 0);
    fclose(f);
    if (!strstr(md, "| total energy change (J/m) | largest energy rise (J/m) | momentum drift (kg/s) |"))
        fail_msg("no largest energy rise column after the total energy change in:\n%s", md);
    if (!strstr(md, " | -1.5 (-12%) | +2.5 (+20%) | n/a (gravity) |"))
        fail_msg("no row with change -1.5 (-12%%) and rise +2.5 (+20%%) in:\n%s", md);
    free(md);
    report_free(&rp);
}

/* Energy that only falls (E = 4, 3, 1) never rose: 0, whatever the fall; energy that rises to the end
 * (E = 4, 5, 6) rose by its change; a NaN sample (an explosion) is nan, not the largest finite rise. */
static void rise_never_end_and_nan(void **state)
{
    (void)state;
    report rp;
    report_init(&rp, 0);
    table tb[3];
    const double zero[] = {0, 0, 0};
    const double fall[] = {4, 3, 1}, up[] = {4, 5, 6}, nan_mid[] = {4, NAN, 6};
    table_init(&tb[0], "falls", zero, fall, 3, 1);
    table_init(&tb[1], "rises", up, zero, 3, 1);
    table_init(&tb[2], "explodes", zero, nan_mid, 3, 1);
    result res[3] = {tb[0].r, tb[1].r, tb[2].r};
    eddy_error err = {0};
    assert_int_equal(compare_write_summary_csv(&rp.cx, res, 3, &err), EDDY_OK);
    assert_true(csv_value(rp.dir, 0, "total_energy_rise_max") == 0);
    assert_true(close_to(csv_value(rp.dir, 0, "total_energy_change"), -3));
    assert_true(close_to(csv_value(rp.dir, 1, "total_energy_rise_max"), 2));
    assert_true(close_to(csv_value(rp.dir, 1, "total_energy_rise_max_relative"), 2.0 / 4.0));
    assert_true(close_to(csv_value(rp.dir, 1, "total_energy_change"), 2));
    assert_true(isnan(csv_value(rp.dir, 2, "total_energy_rise_max")));
    assert_true(isnan(csv_value(rp.dir, 2, "total_energy_rise_max_relative")));
    report_free(&rp);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rise_and_change_of_a_table),
        cmocka_unit_test(rise_never_end_and_nan),
    };
    return support_run_tests("test_summary", argc, argv, tests, sizeof tests / sizeof tests[0]);
}
