/*
 * host/viz/canvas.h — the drawing underneath every PNG the host writes (render.c, plot.c): an RGB image
 * in memory drawn with cairo (anti-aliased discs, lines and text), the colormap with its colour bar,
 * and the PNG writer (libpng, through a temporary name and a rename).
 *
 * Coordinates: pixel (i, j) covers [i, i + 1) x [j, j + 1), j counted from the top, so its centre is
 * (i + 0.5, j + 0.5). Shapes are anti-aliased by cairo's area coverage: a pixel whose square lies
 * wholly inside a shape gets the shape's colour exactly (what the tests read back), its edge pixels a
 * blend. Discs below 12 px of radius are drawn once per size and sub-pixel position and reused: below
 * 3 px their centre and radius are rounded to 1/16 px, from 3 px the centre to 1/4 px and the radius
 * to 1/8 px. A disc's pixels depend only on it and on what is under it, not on which discs were drawn
 * before (the sort-last compositing of composite.h relies on it). Everything drawn is clipped to the image and
 * to the clip rectangle (eddy_canvas_clip).
 *
 * Text: UTF-8 in "DejaVu Sans" (Debian's fonts-dejavu-core, found through fontconfig; another sans
 * face where it is missing), sized in pixels. A byte sequence that is not UTF-8 is drawn as '?', so
 * that a bad label shows where it is instead of silencing the drawing (cairo refuses invalid strings).
 * A text's box is eddy_canvas_text_height(px) tall (the font's ascent plus descent) and
 * eddy_canvas_text_width() wide (the advance of its glyphs).
 *
 * Threads: a canvas is touched by one thread at a time; the functions keep no other state.
 */
#ifndef EDDY_HOST_CANVAS_H
#define EDDY_HOST_CANVAS_H

#include <stddef.h>
#include <stdint.h>

#include <eddy/eddy.h>

#define EDDY_CANVAS_MAX_SIZE 16384

/* cairo's own types, by their struct tags, so that including this header does not need cairo.h. */
struct _cairo;
struct _cairo_surface;
struct eddy_canvas_stamps;

/* An image being drawn. Owned by whoever called eddy_canvas_init(). */
typedef struct eddy_canvas {
    int width, height;
    struct _cairo_surface *surface; /* CAIRO_FORMAT_RGB24 */
    struct _cairo *cr;
    struct eddy_canvas_stamps *stamps; /* small discs drawn once, composited many times (canvas.c) */
} eddy_canvas;

/* Allocates a width x height image filled with `background`, clip = the whole image. Sizes 1..16384;
 * EDDY_ERR_INVALID_ARGUMENT outside, EDDY_ERR_OUT_OF_MEMORY when the buffer cannot be had. */
int eddy_canvas_init(eddy_canvas *c, int width, int height, const uint8_t background[3], eddy_error *err);

/* Frees the image; NULL-safe, the struct may be initialized again. */
void eddy_canvas_free(eddy_canvas *c);

/* Limits drawing to [x0, x1) x [y0, y1) (intersected with the image); eddy_canvas_unclip() lifts it. */
void eddy_canvas_clip(eddy_canvas *c, int x0, int y0, int x1, int y1);
void eddy_canvas_unclip(eddy_canvas *c);

/* The colour of pixel (x, y) into rgb; 0 outside the image (rgb untouched), 1 inside. */
int eddy_canvas_pixel(const eddy_canvas *c, int x, int y, uint8_t rgb[3]);

/* Fills [x0, x1) x [y0, y1). */
void eddy_canvas_fill_rect(eddy_canvas *c, double x0, double y0, double x1, double y1, const uint8_t rgb[3]);

/* A filled disc of radius r (pixels) centred at (cx, cy). */
void eddy_canvas_disc(eddy_canvas *c, double cx, double cy, double r, const uint8_t rgb[3]);

/*
 * A disc shaded like a sphere lit from the viewer: full colour out to half the radius (never less
 * than 0.75 px, so the pixel holding the centre keeps the colour exactly), then darker towards the rim
 * (to `rim` times the colour at the edge, rim in [0, 1]), so that overlapping particles of one colour
 * stay distinguishable.
 */
void eddy_canvas_sphere(eddy_canvas *c, double cx, double cy, double r, const uint8_t rgb[3], float rim);

/* A straight line of width `lw` pixels from (x0, y0) to (x1, y1) with round ends. */
void eddy_canvas_line(eddy_canvas *c, double x0, double y0, double x1, double y1, double lw, const uint8_t rgb[3]);

/* A line through n points xy[2k], xy[2k + 1] with round joins and ends (n = 1: a dot of diameter lw). */
void eddy_canvas_polyline(eddy_canvas *c, const double *xy, size_t n, double lw, const uint8_t rgb[3]);

/*
 * A closed polygon through n points xy[2k], xy[2k + 1] (any order that does not cross itself), filled
 * with `fill` (NULL: not filled), then its edges stroked lw pixels wide in `edge` (NULL or lw <= 0: no
 * edges). Points far outside the image are welcome (a plane clipped to a large domain): the polygon is
 * cut to the image first, well outside it, so that cairo's fixed-point coordinates never overflow.
 * Fewer than 3 points, or a non-finite one: nothing.
 */
void eddy_canvas_polygon(eddy_canvas *c, const double *xy, size_t n, const uint8_t fill[3], double lw,
                         const uint8_t edge[3]);

/* A font size that keeps labels readable at any image width: 16 px at 960 px, at least 10. */
double eddy_canvas_font_px(int image_width);

/* The width of `s` at font size px (0 for "" or NULL) and the height of a line of text, whole pixels
 * rounded up, so that layouts made of them stay on the pixel grid. */
int eddy_canvas_text_width(const char *s, double px);
int eddy_canvas_text_height(double px);

/* Draws `s` with the top-left corner of its box at (x, y). */
void eddy_canvas_text(eddy_canvas *c, double x, double y, const char *s, double px, const uint8_t rgb[3]);

/* Draws `s` turned a quarter turn counter-clockwise (read bottom to top, e.g. a y-axis label): its box
 * is eddy_canvas_text_height() wide and eddy_canvas_text_width() tall, top-left corner at (x, y). */
void eddy_canvas_text_up(eddy_canvas *c, double x, double y, const char *s, double px, const uint8_t rgb[3]);

/*
 * The colormap: t in [0, 1] (clamped; NaN counts as 0) to 8-bit sRGB, viridis-like (dark purple to
 * yellow; lightness rises monotonically, readable to colour-blind eyes). eddy_picture_colormap() is
 * this function.
 */
void eddy_canvas_colormap(float t, uint8_t rgb[3]);

/*
 * A vertical colour bar filling [x0, x1) x [y0, y1) row by row: the colormap's top (t = 1) in the first
 * row, its bottom (t = 0) in the last. `labels` (n of them, may be 0) are written right of the bar at
 * their place along it, with a short tick: label k at t = at[k] from the bottom (at NULL: evenly,
 * k / (n - 1)); a label's text is kept inside [y0, y1), its tick stays at its place.
 */
void eddy_canvas_colorbar(eddy_canvas *c, int x0, int y0, int x1, int y1, const char *const *labels, const double *at,
                          int n, double px, const uint8_t ink[3]);

/* The pixels a colour bar of `bar_width` with these labels takes from x0 to the end of its widest label. */
int eddy_canvas_colorbar_width(int bar_width, const char *const *labels, int n, double px);

/*
 * Writes the image as an 8-bit RGB PNG to `path`, through "<path>.tmp" and a rename, so that a reader
 * never sees half a file and a failed write leaves no temporary behind. EDDY_ERR_IO as "cannot write
 * 'PATH': <reason>" (the system's or libpng's).
 */
int eddy_canvas_write_png(const eddy_canvas *c, const char *path, eddy_error *err);

#endif /* EDDY_HOST_CANVAS_H */
