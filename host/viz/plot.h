/*
 * host/viz/plot.h — line plots as PNG (cairo, canvas.h): what `eddy compare` draws, one metric over
 * time with every solver on the same axes, and measured reference points on top.
 *
 * Axes: linear, ranges from the data (the union of every series' finite points, widened to "nice"
 * tick values), or fixed by the options. Each series gets its own colour from a fixed palette
 * (colour-blind safe, in series order) and a legend entry; NaN or infinite points are skipped and
 * break a line into pieces. Units are whatever the caller's numbers are; labels say which.
 *
 * Picture: the title centred above the axes (moved in when it is wider than they are), the y label
 * turned on its side left of the tick labels, the x label centred below; light grid lines at every
 * tick; the legend right of the axes (series without a label get none; labels longer than 28
 * characters are cut with "..."). Line series are drawn first, clipped to the axes, then marker series
 * (discs, whole even at the edge of the axes; points outside the axes are left out), each group in
 * series order. A piece of a line that is a single finite point between gaps is drawn as a dot, so
 * that it does not vanish.
 *
 * "Nice" ranges: the tick step is the smallest of 1, 2, 5 x 10^k that gives at most 8 intervals (fewer
 * where the axes are small), and an automatic range is the data's widened outwards to multiples of it;
 * data of zero extent v is first widened to v -+ 10% of |v| (-1..1 for v = 0). A fixed range is used as
 * given, with ticks at the multiples of the step inside it.
 *
 * Threads: pure; safe from any one thread.
 */
#ifndef EDDY_HOST_PLOT_H
#define EDDY_HOST_PLOT_H

#include <stddef.h>
#include <stdint.h>

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
 * Where things land in the image. Pixel (i, j) covers [i, i + 1) x [j, j + 1), j counted from the top;
 * the point (x, y) lands at
 *   px = plot_x0 + (x - x_min) / (x_max - x_min) * (plot_x1 - plot_x0)
 *   py = plot_y1 - (y - y_min) / (y_max - y_min) * (plot_y1 - plot_y0)
 * so x_min is the left edge of the axes, y_max their top edge.
 */
typedef struct eddy_plot_layout {
    int width, height;                      /* the image */
    int plot_x0, plot_y0, plot_x1, plot_y1; /* the axes rectangle [x0, x1) x [y0, y1) */
    double x_min, x_max, y_min, y_max;      /* the axis ranges (nice, or as fixed) */
    double x_step, y_step;                  /* tick spacing */
    int legend_x0, legend_y0;               /* top-left corner of the legend (first entry) */
    int legend_row;                         /* pixels from one legend entry to the next */
} eddy_plot_layout;

/* The layout eddy_plot_write_png() uses for these inputs (same checks, messages without the path). */
int eddy_plot_layout_compute(const eddy_plot_options *opt, const eddy_plot_series *series, size_t series_count,
                             eddy_plot_layout *layout, eddy_error *err);

/* Colour of series `index`: the Okabe & Ito (2008) colour-blind safe palette without its yellow
 * (blue, vermillion, bluish green, reddish purple, orange, sky blue, black), repeating after 7. */
void eddy_plot_palette(size_t index, uint8_t rgb[3]);

/*
 * Draws the series and writes an 8-bit RGB PNG to `path` (via "<path>.tmp" and rename). Zero series
 * or series without finite points give empty axes over [0, 1]. EDDY_ERR_INVALID_ARGUMENT for sizes
 * out of range or fixed ranges that are empty or not finite; EDDY_ERR_IO names the file and says why.
 */
int eddy_plot_write_png(const char *path, const eddy_plot_options *opt, const eddy_plot_series *series,
                        size_t series_count, eddy_error *err);

#endif /* EDDY_HOST_PLOT_H */
