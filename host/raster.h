/*
 * host/raster.h — the drawing underneath every PNG the host writes (picture.c, render.c, plot.c): an
 * 8-bit RGB image in memory, anti-aliased discs and lines, filled rectangles, a built-in 5x7 pixel
 * font (no font files), the colormap with its colour bar, and the PNG writer (libpng).
 *
 * Coordinates: pixel (i, j) covers [i, i + 1) x [j, j + 1), j counted from the top, so its centre is
 * (i + 0.5, j + 0.5). Shapes given in real coordinates (discs, lines) are anti-aliased by the distance
 * of each pixel centre to the shape's edge (a one-pixel linear ramp); everything else is drawn whole.
 * Everything drawn is clipped to the image and to the clip rectangle (eddy_raster_clip).
 *
 * Text: printable ASCII (32..126) in a 5x7 cell, one blank column between characters, drawn at an
 * integer scale; the descenders of g, j, p, q and y reach 2 rows below the cell. A UTF-8 sequence outside ASCII takes one cell and is drawn as '?', so that a label with
 * a character the font lacks shows where it is instead of silently losing it.
 *
 * Threads: an image is touched by one thread at a time; the functions keep no other state.
 */
#ifndef EDDY_HOST_RASTER_H
#define EDDY_HOST_RASTER_H

#include <stdint.h>

#include <eddy/eddy.h>

#define EDDY_RASTER_MAX_SIZE 16384

/* An RGB image, rows top to bottom, 3 bytes per pixel. Owned by whoever called eddy_raster_init(). */
typedef struct eddy_raster {
    int width, height;
    uint8_t *rgb;
    int clip_x0, clip_y0, clip_x1, clip_y1; /* drawing is limited to [x0, x1) x [y0, y1) */
} eddy_raster;

/* Allocates a width x height image filled with `background`, clip = the whole image. Sizes 1..16384;
 * EDDY_ERR_INVALID_ARGUMENT outside, EDDY_ERR_OUT_OF_MEMORY when the buffer cannot be had. */
int eddy_raster_init(eddy_raster *im, int width, int height, const uint8_t background[3], eddy_error *err);

/* Frees the pixels; NULL-safe, the struct may be initialized again. */
void eddy_raster_free(eddy_raster *im);

/* Limits drawing to [x0, x1) x [y0, y1) (intersected with the image). */
void eddy_raster_clip(eddy_raster *im, int x0, int y0, int x1, int y1);

/* Clip = the whole image again. */
void eddy_raster_unclip(eddy_raster *im);

/* The pixel at (x, y), or NULL outside the image (the clip rectangle does not apply). */
uint8_t *eddy_raster_pixel(const eddy_raster *im, int x, int y);

/* Blends colour c over pixel (x, y) with coverage a in [0, 1] (1: replaced, 0 or NaN: untouched). */
void eddy_raster_blend(eddy_raster *im, int x, int y, const uint8_t c[3], float a);

/* Fills [x0, x1) x [y0, y1). */
void eddy_raster_fill_rect(eddy_raster *im, int x0, int y0, int x1, int y1, const uint8_t c[3]);

/* A rectangle outline `t` pixels thick drawn outside [x0, x1) x [y0, y1), so that it never covers
 * what is inside. */
void eddy_raster_frame_rect(eddy_raster *im, int x0, int y0, int x1, int y1, int t, const uint8_t c[3]);

/* A filled disc of radius r (pixels) centred at (cx, cy). */
void eddy_raster_disc(eddy_raster *im, double cx, double cy, double r, const uint8_t c[3]);

/*
 * A disc shaded like a sphere lit from the viewer: full colour c out to half the radius, then darker
 * towards the rim (to `rim` times c at the edge, rim in [0, 1]), so that overlapping particles of one
 * colour stay distinguishable. The centre pixel keeps c exactly.
 */
void eddy_raster_sphere(eddy_raster *im, double cx, double cy, double r, const uint8_t c[3], float rim);

/* A straight line of width `lw` pixels from (x0, y0) to (x1, y1) with round ends. */
void eddy_raster_line(eddy_raster *im, double x0, double y0, double x1, double y1, double lw, const uint8_t c[3]);

/* The pixels `s` takes at font `scale` (>= 1): 6 * scale per character less the trailing blank column;
 * 0 for "". eddy_raster_text_height() is 7 * scale. */
int eddy_raster_text_width(const char *s, int scale);
int eddy_raster_text_height(int scale);

/* Draws `s` with its top-left corner at (x, y). */
void eddy_raster_text(eddy_raster *im, int x, int y, const char *s, int scale, const uint8_t c[3]);

/* Draws `s` turned a quarter turn counter-clockwise (read bottom to top, e.g. a y-axis label): the
 * text's box is eddy_raster_text_height() wide and eddy_raster_text_width() tall, its top-left corner
 * at (x, y). */
void eddy_raster_text_up(eddy_raster *im, int x, int y, const char *s, int scale, const uint8_t c[3]);

/* Whether the font has a glyph of its own for `c` (printable ASCII). */
int eddy_raster_has_glyph(int c);

/* A font scale that keeps labels readable at any image width: 2 at 960 px, at least 1. */
int eddy_raster_font_scale(int image_width);

/*
 * The colormap: t in [0, 1] (clamped; NaN counts as 0) to 8-bit sRGB, viridis-like (dark purple to
 * yellow; lightness rises monotonically, readable to colour-blind eyes). eddy_picture_colormap() is
 * this function.
 */
void eddy_raster_colormap(float t, uint8_t rgb[3]);

/*
 * A vertical colour bar filling [x0, x1) x [y0, y1): the colormap's top (t = 1) in the first row, its
 * bottom (t = 0) in the last. `top` and `bottom` (may be NULL) are written right of the bar, 3 * scale
 * pixels away, level with its first and last text line.
 */
void eddy_raster_colorbar(eddy_raster *im, int x0, int y0, int x1, int y1, const char *top, const char *bottom,
                          int scale, const uint8_t ink[3]);

/*
 * Writes the image as an 8-bit RGB PNG to `path`, through "<path>.tmp" and a rename, so that a reader
 * never sees half a file and a failed write leaves no temporary behind. EDDY_ERR_IO as "cannot write
 * 'PATH': <reason>" (the system's or libpng's).
 */
int eddy_raster_write_png(const eddy_raster *im, const char *path, eddy_error *err);

#endif /* EDDY_HOST_RASTER_H */
