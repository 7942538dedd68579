/*
 * host/drive/progress.h — run progress on stderr: a bar with ETA redrawn in place on a terminal, plain
 * lines at every 10% otherwise (logs, CI).
 */
#ifndef EDDY_HOST_PROGRESS_H
#define EDDY_HOST_PROGRESS_H

#include <stdint.h>

typedef struct eddy_progress {
    int tty;            /* stderr is a terminal */
    int quiet;          /* print nothing */
    double start_ms;
    double last_draw_ms;
    int last_decile;    /* last 10% mark printed in plain mode */
    uint64_t first_step; /* the step this command started from (a resume's checkpoint step) */
} eddy_progress;

/* `step`: the world's step now, so that the end line of a resume counts this command's steps too. */
void eddy_progress_begin(eddy_progress *pr, int quiet, uint64_t step);

/* fraction in [0, 1]; time, end_time (NAN for a run to a number of steps: the label shows the time
 * alone) and step for the label. Cheap to call every step. */
void eddy_progress_update(eddy_progress *pr, double fraction, double time, double end_time,
                          uint64_t step);

/* Finishes the bar line (terminal) and prints where the run ended and the total wall time: "done:"
 * for a run that reached its end, "stopped:" for one that failed or was interrupted (`stopped`). */
void eddy_progress_end(eddy_progress *pr, double time, uint64_t step, int stopped);

/* A line said while the run goes on (a warning), on stderr: on a terminal the bar's line is ended first
 * and the bar drawn again below it at the next update. Said with --quiet too. */
void eddy_progress_say(eddy_progress *pr, const char *line);

/* "1h02m", "3m04s", "12.3s" */
void eddy_format_duration(double seconds, char *buf, int size);

#endif /* EDDY_HOST_PROGRESS_H */
