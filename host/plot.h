/*
 * host/plot.h — line plots as PNG (libpng, built-in font): what `eddy compare` draws, one metric over
 * time with every solver on the same axes, and measured reference points on top.
 *
 * Axes: linear, ranges from the data (the union of every series' finite points, widened to "nice"
 * tick values), or fixed by the options. Each series gets its own colour from a fixed palette
 * (colour-blind safe, in series order) and a legend entry; NaN or infinite points are skipped and
 * break a line into pieces. Units are whatever the caller's numbers are; labels say which.
 *
 * Threads: pure; safe from any one thread.
 */
#ifndef EDDY_HOST_PLOT_H
#define EDDY_HOST_PLOT_H

#include <stddef.h>

#include <eddy/eddy.h>

typedef struct eddy_plot_series {
    const char *label;     /* legend text, e.g. the solver id or "Martin & Moyce (1952)" */
    const double *x;       /* [count] */
    const double *y;       /* [count] */
    size_t count;
    int markers;           /* 0: a line through the points; 1: markers only (measured data) */
} eddy_plot_series;

typedef struct eddy_plot_options {
    int width, height;     /* pixels, 64..8192; 0: 960 x 600 */
    const char *title;     /* top line; may be NULL */
    const char *x_label;   /* e.g. "t (s)"; may be NULL */
    const char *y_label;   /* e.g. "kinetic energy (J)"; may be NULL */
    int fixed_x, fixed_y;  /* use the ranges below instead of the data's */
    double x_min, x_max, y_min, y_max;
} eddy_plot_options;

/* Zeros: automatic ranges, 960 x 600, no labels. */
eddy_plot_options eddy_plot_default_options(void);

/*
 * Draws the series and writes an 8-bit RGB PNG to `path` (via "<path>.tmp" and rename). Zero series
 * or series without finite points give empty axes over [0, 1]. EDDY_ERR_INVALID_ARGUMENT for sizes
 * out of range or fixed ranges that are empty or not finite; EDDY_ERR_IO names the file and says why.
 */
int eddy_plot_write_png(const char *path, const eddy_plot_options *opt, const eddy_plot_series *series,
                        size_t series_count, eddy_error *err);

#endif /* EDDY_HOST_PLOT_H */
