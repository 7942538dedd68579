#include "raster.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------- */
/* Image                                                                                            */

int eddy_raster_init(eddy_raster *im, int width, int height, const uint8_t background[3], eddy_error *err)
{
    memset(im, 0, sizeof *im);
    if (width < 1 || height < 1 || width > EDDY_RASTER_MAX_SIZE || height > EDDY_RASTER_MAX_SIZE)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "image size %d x %d is out of range (1..%d)", width,
                              height, EDDY_RASTER_MAX_SIZE);
    size_t n = (size_t)width * (size_t)height;
    im->rgb = malloc(3 * n);
    if (!im->rgb) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for a %d x %d image", width, height);
    im->width = width;
    im->height = height;
    for (size_t k = 0; k < n; ++k) memcpy(im->rgb + 3 * k, background, 3);
    eddy_raster_unclip(im);
    return EDDY_OK;
}

void eddy_raster_free(eddy_raster *im)
{
    if (!im) return;
    free(im->rgb);
    memset(im, 0, sizeof *im);
}

void eddy_raster_clip(eddy_raster *im, int x0, int y0, int x1, int y1)
{
    im->clip_x0 = x0 > 0 ? x0 : 0;
    im->clip_y0 = y0 > 0 ? y0 : 0;
    im->clip_x1 = x1 < im->width ? x1 : im->width;
    im->clip_y1 = y1 < im->height ? y1 : im->height;
}

void eddy_raster_unclip(eddy_raster *im)
{
    eddy_raster_clip(im, 0, 0, im->width, im->height);
}

uint8_t *eddy_raster_pixel(const eddy_raster *im, int x, int y)
{
    if (x < 0 || y < 0 || x >= im->width || y >= im->height) return NULL;
    return im->rgb + 3 * ((size_t)y * (size_t)im->width + (size_t)x);
}

void eddy_raster_blend(eddy_raster *im, int x, int y, const uint8_t c[3], float a)
{
    if (x < im->clip_x0 || y < im->clip_y0 || x >= im->clip_x1 || y >= im->clip_y1 || !(a > 0.0f)) return;
    uint8_t *p = im->rgb + 3 * ((size_t)y * (size_t)im->width + (size_t)x);
    if (a >= 1.0f) {
        p[0] = c[0];
        p[1] = c[1];
        p[2] = c[2];
        return;
    }
    for (int k = 0; k < 3; ++k) p[k] = (uint8_t)lrintf((float)p[k] + a * ((float)c[k] - (float)p[k]));
}

void eddy_raster_fill_rect(eddy_raster *im, int x0, int y0, int x1, int y1, const uint8_t c[3])
{
    if (x0 < im->clip_x0) x0 = im->clip_x0;
    if (y0 < im->clip_y0) y0 = im->clip_y0;
    if (x1 > im->clip_x1) x1 = im->clip_x1;
    if (y1 > im->clip_y1) y1 = im->clip_y1;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) memcpy(im->rgb + 3 * ((size_t)y * (size_t)im->width + (size_t)x), c, 3);
}

void eddy_raster_frame_rect(eddy_raster *im, int x0, int y0, int x1, int y1, int t, const uint8_t c[3])
{
    eddy_raster_fill_rect(im, x0 - t, y0 - t, x1 + t, y0, c);
    eddy_raster_fill_rect(im, x0 - t, y1, x1 + t, y1 + t, c);
    eddy_raster_fill_rect(im, x0 - t, y0, x0, y1, c);
    eddy_raster_fill_rect(im, x1, y0, x1 + t, y1, c);
}

/* ---------------------------------------------------------------------------------------------- */
/* Discs and lines                                                                                  */

/* The pixel rows and columns a shape reaching `reach` pixels from its centre can touch, clipped;
 * returns 0 when there are none. */
static int bounds(const eddy_raster *im, double xlo, double ylo, double xhi, double yhi, int *x0, int *y0, int *x1,
                  int *y1)
{
    if (!(xlo <= xhi && ylo <= yhi)) return 0; /* NaN included */
    if (xhi < im->clip_x0 || yhi < im->clip_y0 || xlo >= im->clip_x1 || ylo >= im->clip_y1) return 0;
    *x0 = xlo < im->clip_x0 ? im->clip_x0 : (int)floor(xlo);
    *y0 = ylo < im->clip_y0 ? im->clip_y0 : (int)floor(ylo);
    *x1 = xhi >= im->clip_x1 ? im->clip_x1 : (int)ceil(xhi);
    *y1 = yhi >= im->clip_y1 ? im->clip_y1 : (int)ceil(yhi);
    return *x0 < *x1 && *y0 < *y1;
}

/* Coverage of a pixel by a disc, from the distance of its centre: a one-pixel linear ramp at the rim,
 * which is enough to keep 1.5 px discs from looking like plus signs. `rim` < 1 shades it as a sphere. */
static void disc(eddy_raster *im, double cx, double cy, double r, const uint8_t c[3], float rim)
{
    int x0, y0, x1, y1;
    if (!(r > 0.0) || !bounds(im, cx - r - 0.5, cy - r - 0.5, cx + r + 0.5, cy + r + 0.5, &x0, &y0, &x1, &y1)) return;
    /* Squared radii bound the rim, so the square root is only taken for the few pixels on it. */
    double inner = r - 0.5, outer2 = (r + 0.5) * (r + 0.5);
    double inner2 = inner > 0.0 ? inner * inner : 0.0;
    /* Shading starts at half the radius but never inside the pixel that holds the centre (0.71 px away at
     * most), so the colour a particle stands for is always visible there exactly. */
    double flat = fmax(0.5 * r, 0.75), flat2 = flat * flat;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
            double d2 = dx * dx + dy * dy;
            if (d2 >= outer2) continue;
            const uint8_t *col = c;
            uint8_t shaded[3];
            if (rim < 1.0f && d2 > flat2 && r > flat) {
                double u = (sqrt(d2) - flat) / (r - flat);
                float f = 1.0f - (1.0f - rim) * (float)(u < 1.0 ? u : 1.0);
                for (int k = 0; k < 3; ++k) shaded[k] = (uint8_t)lrintf(f * (float)c[k]);
                col = shaded;
            }
            if (d2 <= inner2) {
                eddy_raster_blend(im, x, y, col, 1.0f);
                continue;
            }
            double a = r + 0.5 - sqrt(d2);
            if (a > 0.0) eddy_raster_blend(im, x, y, col, a >= 1.0 ? 1.0f : (float)a);
        }
}

void eddy_raster_disc(eddy_raster *im, double cx, double cy, double r, const uint8_t c[3])
{
    disc(im, cx, cy, r, c, 1.0f);
}

void eddy_raster_sphere(eddy_raster *im, double cx, double cy, double r, const uint8_t c[3], float rim)
{
    disc(im, cx, cy, r, c, rim < 0.0f ? 0.0f : rim > 1.0f ? 1.0f : rim);
}

void eddy_raster_line(eddy_raster *im, double x0, double y0, double x1, double y1, double lw, const uint8_t c[3])
{
    double h = 0.5 * lw;
    int px0, py0, px1, py1;
    if (!(h > 0.0) || !bounds(im, fmin(x0, x1) - h - 0.5, fmin(y0, y1) - h - 0.5, fmax(x0, x1) + h + 0.5,
                              fmax(y0, y1) + h + 0.5, &px0, &py0, &px1, &py1))
        return;
    double ex = x1 - x0, ey = y1 - y0, len2 = ex * ex + ey * ey;
    for (int y = py0; y < py1; ++y)
        for (int x = px0; x < px1; ++x) {
            /* Distance from the pixel centre to the segment: to its nearest point, clamped to the ends. */
            double qx = x + 0.5 - x0, qy = y + 0.5 - y0;
            double s = len2 > 0.0 ? (qx * ex + qy * ey) / len2 : 0.0;
            if (s < 0.0) s = 0.0;
            if (s > 1.0) s = 1.0;
            double dx = qx - s * ex, dy = qy - s * ey;
            double a = h + 0.5 - sqrt(dx * dx + dy * dy);
            if (a > 0.0) eddy_raster_blend(im, x, y, c, a >= 1.0 ? 1.0f : (float)a);
        }
}

/* ---------------------------------------------------------------------------------------------- */
/* The 5x7 font: printable ASCII drawn here for eddy, '#' a lit pixel, indexed by character - 32.    */
/* Rows 7 and 8 are the descenders of g, j, p, q and y, below the 7-row box that layouts reserve.    */

static const char *const FONT[95][9] = {
    /* ' ' */ {".....", ".....", ".....", ".....", ".....", ".....", ".....", ".....", "....."},
    /* '!' */ {"..#..", "..#..", "..#..", "..#..", "..#..", ".....", "..#..", ".....", "....."},
    /* '"' */ {".#.#.", ".#.#.", ".#.#.", ".....", ".....", ".....", ".....", ".....", "....."},
    /* '#' */ {".#.#.", ".#.#.", "#####", ".#.#.", "#####", ".#.#.", ".#.#.", ".....", "....."},
    /* '$' */ {"..#..", ".####", "#.#..", ".###.", "..#.#", "####.", "..#..", ".....", "....."},
    /* '%' */ {"##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##", ".....", "....."},
    /* '&' */ {".##..", "#..#.", "#.#..", ".#...", "#.#.#", "#..#.", ".##.#", ".....", "....."},
    /* '\'' */ {"..#..", "..#..", ".#...", ".....", ".....", ".....", ".....", ".....", "....."},
    /* '(' */ {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#.", ".....", "....."},
    /* ')' */ {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#...", ".....", "....."},
    /* '*' */ {".....", "..#..", "#.#.#", ".###.", "#.#.#", "..#..", ".....", ".....", "....."},
    /* '+' */ {".....", "..#..", "..#..", "#####", "..#..", "..#..", ".....", ".....", "....."},
    /* ',' */ {".....", ".....", ".....", ".....", ".##..", "..#..", ".#...", ".....", "....."},
    /* '-' */ {".....", ".....", ".....", "#####", ".....", ".....", ".....", ".....", "....."},
    /* '.' */ {".....", ".....", ".....", ".....", ".....", ".##..", ".##..", ".....", "....."},
    /* '/' */ {".....", "....#", "...#.", "..#..", ".#...", "#....", ".....", ".....", "....."},
    /* '0' */ {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###.", ".....", "....."},
    /* '1' */ {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###.", ".....", "....."},
    /* '2' */ {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####", ".....", "....."},
    /* '3' */ {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###.", ".....", "....."},
    /* '4' */ {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#.", ".....", "....."},
    /* '5' */ {"#####", "#....", "####.", "....#", "....#", "#...#", ".###.", ".....", "....."},
    /* '6' */ {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###.", ".....", "....."},
    /* '7' */ {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#...", ".....", "....."},
    /* '8' */ {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###.", ".....", "....."},
    /* '9' */ {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##..", ".....", "....."},
    /* ':' */ {".....", ".##..", ".##..", ".....", ".##..", ".##..", ".....", ".....", "....."},
    /* ';' */ {".....", ".##..", ".##..", ".....", ".##..", "..#..", ".#...", ".....", "....."},
    /* '<' */ {"...#.", "..#..", ".#...", "#....", ".#...", "..#..", "...#.", ".....", "....."},
    /* '=' */ {".....", ".....", "#####", ".....", "#####", ".....", ".....", ".....", "....."},
    /* '>' */ {".#...", "..#..", "...#.", "....#", "...#.", "..#..", ".#...", ".....", "....."},
    /* '?' */ {".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#..", ".....", "....."},
    /* '@' */ {".###.", "#...#", "....#", ".##.#", "#.#.#", "#.#.#", ".###.", ".....", "....."},
    /* 'A' */ {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#", ".....", "....."},
    /* 'B' */ {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####.", ".....", "....."},
    /* 'C' */ {".###.", "#...#", "#....", "#....", "#....", "#...#", ".###.", ".....", "....."},
    /* 'D' */ {"###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###..", ".....", "....."},
    /* 'E' */ {"#####", "#....", "#....", "####.", "#....", "#....", "#####", ".....", "....."},
    /* 'F' */ {"#####", "#....", "#....", "####.", "#....", "#....", "#....", ".....", "....."},
    /* 'G' */ {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####", ".....", "....."},
    /* 'H' */ {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#", ".....", "....."},
    /* 'I' */ {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###.", ".....", "....."},
    /* 'J' */ {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##..", ".....", "....."},
    /* 'K' */ {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#", ".....", "....."},
    /* 'L' */ {"#....", "#....", "#....", "#....", "#....", "#....", "#####", ".....", "....."},
    /* 'M' */ {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#", ".....", "....."},
    /* 'N' */ {"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#", ".....", "....."},
    /* 'O' */ {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.", ".....", "....."},
    /* 'P' */ {"####.", "#...#", "#...#", "####.", "#....", "#....", "#....", ".....", "....."},
    /* 'Q' */ {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#", ".....", "....."},
    /* 'R' */ {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#", ".....", "....."},
    /* 'S' */ {".####", "#....", "#....", ".###.", "....#", "....#", "####.", ".....", "....."},
    /* 'T' */ {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#..", ".....", "....."},
    /* 'U' */ {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.", ".....", "....."},
    /* 'V' */ {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#..", ".....", "....."},
    /* 'W' */ {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#.", ".....", "....."},
    /* 'X' */ {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#", ".....", "....."},
    /* 'Y' */ {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#..", ".....", "....."},
    /* 'Z' */ {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####", ".....", "....."},
    /* '[' */ {".###.", ".#...", ".#...", ".#...", ".#...", ".#...", ".###.", ".....", "....."},
    /* '\\' */ {".....", "#....", ".#...", "..#..", "...#.", "....#", ".....", ".....", "....."},
    /* ']' */ {".###.", "...#.", "...#.", "...#.", "...#.", "...#.", ".###.", ".....", "....."},
    /* '^' */ {"..#..", ".#.#.", "#...#", ".....", ".....", ".....", ".....", ".....", "....."},
    /* '_' */ {".....", ".....", ".....", ".....", ".....", ".....", "#####", ".....", "....."},
    /* '`' */ {".#...", "..#..", "...#.", ".....", ".....", ".....", ".....", ".....", "....."},
    /* 'a' */ {".....", ".....", ".###.", "....#", ".####", "#...#", ".####", ".....", "....."},
    /* 'b' */ {"#....", "#....", "#.##.", "##..#", "#...#", "#...#", "####.", ".....", "....."},
    /* 'c' */ {".....", ".....", ".###.", "#....", "#....", "#...#", ".###.", ".....", "....."},
    /* 'd' */ {"....#", "....#", ".##.#", "#..##", "#...#", "#...#", ".####", ".....", "....."},
    /* 'e' */ {".....", ".....", ".###.", "#...#", "#####", "#....", ".###.", ".....", "....."},
    /* 'f' */ {"..##.", ".#..#", ".#...", "###..", ".#...", ".#...", ".#...", ".....", "....."},
    /* 'g' */ {".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", ".###."},
    /* 'h' */ {"#....", "#....", "#.##.", "##..#", "#...#", "#...#", "#...#", ".....", "....."},
    /* 'i' */ {"..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###.", ".....", "....."},
    /* 'j' */ {"...#.", ".....", "..##.", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."},
    /* 'k' */ {"#....", "#....", "#..#.", "#.#..", "##...", "#.#..", "#..#.", ".....", "....."},
    /* 'l' */ {".##..", "..#..", "..#..", "..#..", "..#..", "..#..", ".###.", ".....", "....."},
    /* 'm' */ {".....", ".....", "##.#.", "#.#.#", "#.#.#", "#...#", "#...#", ".....", "....."},
    /* 'n' */ {".....", ".....", "#.##.", "##..#", "#...#", "#...#", "#...#", ".....", "....."},
    /* 'o' */ {".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###.", ".....", "....."},
    /* 'p' */ {".....", ".....", "####.", "#...#", "#...#", "#...#", "####.", "#....", "#...."},
    /* 'q' */ {".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", "....#"},
    /* 'r' */ {".....", ".....", "#.##.", "##..#", "#....", "#....", "#....", ".....", "....."},
    /* 's' */ {".....", ".....", ".###.", "#....", ".###.", "....#", "####.", ".....", "....."},
    /* 't' */ {".#...", ".#...", "###..", ".#...", ".#...", ".#..#", "..##.", ".....", "....."},
    /* 'u' */ {".....", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#", ".....", "....."},
    /* 'v' */ {".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#..", ".....", "....."},
    /* 'w' */ {".....", ".....", "#...#", "#...#", "#.#.#", "#.#.#", ".#.#.", ".....", "....."},
    /* 'x' */ {".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", ".....", "....."},
    /* 'y' */ {".....", ".....", "#...#", "#...#", "#...#", "#...#", ".####", "....#", ".###."},
    /* 'z' */ {".....", ".....", "#####", "...#.", "..#..", ".#...", "#####", ".....", "....."},
    /* '{' */ {"...#.", "..#..", "..#..", ".#...", "..#..", "..#..", "...#.", ".....", "....."},
    /* '|' */ {"..#..", "..#..", "..#..", "..#..", "..#..", "..#..", "..#..", ".....", "....."},
    /* '}' */ {".#...", "..#..", "..#..", "...#.", "..#..", "..#..", ".#...", ".....", "....."},
    /* '~' */ {".....", ".....", ".#...", "#.#.#", "...#.", ".....", ".....", ".....", "....."},
};

int eddy_raster_has_glyph(int c)
{
    return c >= 32 && c <= 126;
}

/* The glyph of the character at *s, advancing *s past it: a whole UTF-8 sequence is one cell. */
static const char *const *next_glyph(const char **s)
{
    unsigned char b = (unsigned char)**s;
    ++*s;
    if (b >= 0xC0)
        while ((**s & 0xC0) == 0x80) ++*s;
    if (b < 32 || b > 126) b = '?';
    return FONT[b - 32];
}

static int cells(const char *s)
{
    int n = 0;
    while (*s) {
        next_glyph(&s);
        ++n;
    }
    return n;
}

int eddy_raster_text_width(const char *s, int scale)
{
    int n = s ? cells(s) : 0;
    return n ? (6 * n - 1) * scale : 0;
}

int eddy_raster_text_height(int scale)
{
    return 7 * scale;
}

/* Draws the text with a per-pixel placement so that both directions share the glyph walk. `up`: a
 * quarter turn counter-clockwise, the text's box (7 * scale) x (width) with its top-left at (x, y). */
static void text(eddy_raster *im, int x, int y, const char *s, int scale, const uint8_t c[3], int up)
{
    if (!s || scale < 1) return;
    int length = eddy_raster_text_width(s, scale);
    for (int cell = 0; *s; ++cell) {
        const char *const *g = next_glyph(&s);
        for (int r = 0; r < 9; ++r)
            for (int col = 0; col < 5; ++col) {
                if (g[r][col] != '#') continue;
                int u = (cell * 6 + col) * scale, v = r * scale; /* along and across the text */
                if (!up)
                    eddy_raster_fill_rect(im, x + u, y + v, x + u + scale, y + v + scale, c);
                else
                    eddy_raster_fill_rect(im, x + v, y + length - u - scale, x + v + scale, y + length - u, c);
            }
    }
}

void eddy_raster_text(eddy_raster *im, int x, int y, const char *s, int scale, const uint8_t c[3])
{
    text(im, x, y, s, scale, c, 0);
}

void eddy_raster_text_up(eddy_raster *im, int x, int y, const char *s, int scale, const uint8_t c[3])
{
    text(im, x, y, s, scale, c, 1);
}

int eddy_raster_font_scale(int image_width)
{
    int s = (image_width + 240) / 480;
    return s < 1 ? 1 : s;
}

/* ---------------------------------------------------------------------------------------------- */
/* Colormap                                                                                         */

/* Nine samples of matplotlib's viridis at t = 0, 1/8, ..., 1. Linear interpolation between them stays
 * within a few levels of the real map and keeps its two useful properties: lightness rises
 * monotonically (the value reads as brightness, also in greyscale) and it is readable to colour-blind eyes. */
static const uint8_t VIRIDIS[9][3] = {
    {68, 1, 84},    {72, 40, 120},  {62, 73, 137},  {49, 104, 142}, {38, 130, 142},
    {31, 158, 137}, {53, 183, 121}, {110, 206, 88}, {253, 231, 37},
};

void eddy_raster_colormap(float t, uint8_t rgb[3])
{
    if (!(t > 0.0f)) t = 0.0f; /* NaN included */
    if (t > 1.0f) t = 1.0f;
    float u = t * 8.0f;
    int k = (int)u;
    if (k > 7) k = 7;
    float f = u - (float)k;
    for (int c = 0; c < 3; ++c) {
        float v = (float)VIRIDIS[k][c] + f * ((float)VIRIDIS[k + 1][c] - (float)VIRIDIS[k][c]);
        rgb[c] = (uint8_t)lrintf(v);
    }
}

void eddy_raster_colorbar(eddy_raster *im, int x0, int y0, int x1, int y1, const char *top, const char *bottom,
                          int scale, const uint8_t ink[3])
{
    for (int y = y0; y < y1; ++y) {
        uint8_t c[3];
        eddy_raster_colormap(y1 - y0 > 1 ? (float)(y1 - 1 - y) / (float)(y1 - y0 - 1) : 0.0f, c);
        eddy_raster_fill_rect(im, x0, y, x1, y + 1, c);
    }
    if (top) eddy_raster_text(im, x1 + 3 * scale, y0, top, scale, ink);
    if (bottom) eddy_raster_text(im, x1 + 3 * scale, y1 - 7 * scale, bottom, scale, ink);
}

/* ---------------------------------------------------------------------------------------------- */
/* PNG                                                                                              */

typedef struct png_context {
    char message[256];
} png_context;

static void on_png_error(png_structp png, png_const_charp msg)
{
    png_context *ctx = png_get_error_ptr(png);
    snprintf(ctx->message, sizeof ctx->message, "%s", msg);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* libpng warnings are about its own choices; nothing for the user to act on */
}

/* libpng reports errors by longjmp; everything it may skip over is passed in, not local to this frame. */
static int encode_png(FILE *f, const eddy_raster *im, png_bytep *rows, png_context *ctx)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, ctx, on_png_error, on_png_warning);
    if (!png) {
        snprintf(ctx->message, sizeof ctx->message, "libpng could not start");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(ctx->message, sizeof ctx->message, "libpng could not start");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)im->width, (png_uint_32)im->height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

int eddy_raster_write_png(const eddy_raster *im, const char *path, eddy_error *err)
{
    if (!im->rgb || im->width < 1 || im->height < 1)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "cannot write '%s': the image is empty", path);
    size_t len = strlen(path);
    png_bytep *rows = malloc(sizeof *rows * (size_t)im->height);
    char *tmp = malloc(len + 5);
    if (!rows || !tmp) {
        free(rows);
        free(tmp);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "cannot write '%s': out of memory", path);
    }
    for (int y = 0; y < im->height; ++y) rows[y] = im->rgb + 3 * (size_t)y * (size_t)im->width;
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);

    int rc = EDDY_OK;
    png_context ctx = {{0}};
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        int e = errno;
        rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", path, strerror(e));
    } else {
        int bad = encode_png(f, im, rows, &ctx);
        int e = 0;
        /* A full disk shows up in ferror or at fclose, not in libpng's calls. */
        if (!bad && ferror(f)) {
            bad = 1;
            e = errno ? errno : EIO;
        }
        if (fclose(f) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        if (!bad && rename(tmp, path) != 0) {
            bad = 1;
            e = errno;
        }
        if (bad) {
            remove(tmp);
            rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", path, ctx.message[0] ? ctx.message : strerror(e));
        }
    }
    free(tmp);
    free(rows);
    return rc;
}
