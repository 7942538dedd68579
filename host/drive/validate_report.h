/*
 * host/drive/validate_report.h — the report of `eddy validate` (validate_report.c): per run its series
 * and plots, and DIR/report.md and DIR/report.csv over every run, with the observed order of
 * convergence of a check measured at several resolutions.
 */
#ifndef EDDY_HOST_VALIDATE_REPORT_H
#define EDDY_HOST_VALIDATE_REPORT_H

#include <stdio.h>

#include "validate_internal.h"

/* One case through one solver at one resolution. */
typedef struct vrun {
    size_t particles;
    unsigned long long steps;
    double end_time, wall_s;
    double error[VMAX_CHECKS], shift[VMAX_CHECKS];
    vseries series[VMAX_CHECKS]; /* the measured values; the caller frees them */
    char failure[EDDY_ERROR_MESSAGE_MAX]; /* non-empty: the run failed with this message */
    /* Non-empty: the run made energy (energy_watch.h: the warning's sentence), so it is unstable and
     * every check of it misses whatever its error; the rise over the energy above the floor, and when. */
    char unstable[512];
    double energy_ratio, energy_time;
} vrun;

typedef struct vrow {
    char case_name[VNAME], title[160], solver[VNAME], check[VNAME], check_title[160];
    char description[4096];
    int res;                     /* 0 coarse, 1 medium, 2 fine */
    double spacing, error, bar, shift, wall_s;
    size_t particles;
    unsigned long long steps;
    claim_kind claim;
    char note[1024], failure[EDDY_ERROR_MESSAGE_MAX];
    char plot[VPATH + 2 * VNAME + 32];             /* the plot written, relative to the report ("" if none) */
    char plot_failure[EDDY_ERROR_MESSAGE_MAX];     /* why the plot could not be written ("" if it was) */
    char sets[1024];             /* the solver's own overrides for the case (its validation file's "set") */
    char unstable[512];          /* vrun's: the run made energy */
    double energy_ratio, energy_time;
    int pass;
} vrow;

typedef struct vreport {
    char dir[VPATH];
    char sets[1024];             /* the command line's --set, applied to every case ("" if none) */
    vrow *rows;
    size_t count, cap;
    int claimed_misses;          /* checks claimed to pass that missed, or claimed cases that failed */
    int written;                 /* vreport_write wrote report.md and report.csv */
} vreport;

void vreport_init(vreport *r, const char *dir);
void vreport_free(vreport *r);
/* Writes the run's series.csv and plots, adds its rows, prints one line per check (unless quiet). Every
 * file is tried: those that could not be written are all named in err (EDDY_ERR_IO), and the rows link
 * only the plots written. */
int vreport_add(vreport *r, const vcase *c, const char *solver, int res, const vclaim *claim, const vrun *run,
                int quiet, eddy_error *err);
/* DIR/report.md and DIR/report.csv, each through a temporary file renamed over the earlier one once both
 * are whole; when either fails, both earlier ones are left as they were and err says so, naming the file
 * and the reason. The convergence plots are written meanwhile: one that fails is said in report.md
 * (not linked) and in err, with the report written. r->written: the report was written. */
int vreport_write(vreport *r, eddy_error *err);
/* The summary table on `f`, and "report: DIR/report.md" when vreport_write wrote it. */
void vreport_print_summary(const vreport *r, FILE *f);

#endif /* EDDY_HOST_VALIDATE_REPORT_H */
