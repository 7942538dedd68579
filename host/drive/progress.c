#include "progress.h"

#include <eddy/world.h>

#include <math.h>
#include <stdio.h>
#include <unistd.h>

void eddy_format_duration(double s, char *buf, int size)
{
    if (s < 0 || s != s) s = 0;
    if (s < 60) snprintf(buf, (size_t)size, "%.1fs", s);
    else if (s < 3600) snprintf(buf, (size_t)size, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else snprintf(buf, (size_t)size, "%dh%02dm", (int)(s / 3600), ((int)s % 3600) / 60);
}

void eddy_progress_begin(eddy_progress *pr, int quiet, uint64_t step)
{
    pr->first_step = step;
    pr->tty = isatty(STDERR_FILENO);
    pr->quiet = quiet;
    pr->start_ms = eddy_time_ms();
    pr->last_draw_ms = -1e9;
    pr->last_decile = -1;
}

void eddy_progress_update(eddy_progress *pr, double f, double time, double end_time, uint64_t step)
{
    if (pr->quiet) return;
    double now = eddy_time_ms();
    if (f < 0) f = 0;
    if (f > 1) f = 1;
    double elapsed = (now - pr->start_ms) / 1e3;
    char eta[32] = "?", spent[32];
    if (f > 0.001) eddy_format_duration(elapsed * (1 - f) / f, eta, sizeof eta);
    eddy_format_duration(elapsed, spent, sizeof spent);
    /* A run to a number of steps has no end time to show ("t = 0.005 / 0.005 s" said it had arrived). */
    char clock[64];
    if (isnan(end_time)) snprintf(clock, sizeof clock, "t = %.4g s", time);
    else snprintf(clock, sizeof clock, "t = %.4g / %.4g s", time, end_time);
    if (pr->tty) {
        /* Redrawing more than ~10 times a second costs time and shows nothing new. */
        if (now - pr->last_draw_ms < 100 && f < 1) return;
        pr->last_draw_ms = now;
        char bar[31];
        int filled = (int)(f * 30);
        for (int i = 0; i < 30; ++i) bar[i] = i < filled ? '#' : '.';
        bar[30] = '\0';
        fprintf(stderr, "\r[%s] %3d%%  %s  step %llu  elapsed %s  ETA %s   ", bar, (int)(f * 100), clock,
                (unsigned long long)step, spent, eta);
        fflush(stderr);
    } else {
        int decile = (int)(f * 10);
        if (decile <= pr->last_decile) return;
        pr->last_decile = decile;
        fprintf(stderr, "progress: %3d%%  %s  step %llu  elapsed %s  ETA %s\n", decile * 10, clock,
                (unsigned long long)step, spent, eta);
    }
}

void eddy_progress_say(eddy_progress *pr, const char *line)
{
    if (pr->tty && !pr->quiet && pr->last_draw_ms > -1e8) fputc('\n', stderr); /* (a bar is on the line) */
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    pr->last_draw_ms = -1e9; /* (none on the line now: drawn again at the next update) */
}

void eddy_progress_end(eddy_progress *pr, double time, uint64_t step, int stopped)
{
    if (pr->quiet) return;
    char spent[32];
    eddy_format_duration((eddy_time_ms() - pr->start_ms) / 1e3, spent, sizeof spent);
    if (pr->tty) fprintf(stderr, "\n");
    /* A resume's step count is the run's, its time this command's: the steps it took are said beside. */
    char own[48] = "";
    if (pr->first_step > 0 && step >= pr->first_step)
        snprintf(own, sizeof own, " (%llu by this command)", (unsigned long long)(step - pr->first_step));
    fprintf(stderr, "%s: t = %.6g s after %llu steps%s in %s\n", stopped ? "stopped" : "done", time,
            (unsigned long long)step, own, spent);
}
