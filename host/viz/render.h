/*
 * host/viz/render.h — the one renderer of particles: `eddy run --render` (a PNG per output frame, the
 * particles seen from a camera and coloured by a field, with a colour bar and the time; `--movie` joins
 * them into an MP4 with ffmpeg) and, as a preset, picture.png (picture.c). Drawn with cairo (canvas.h).
 * docs/rendering.md is the user's reference (scene section, --camera syntax, fields, colour ranges).
 *
 * Life of a renderer: eddy_render_open() once the world exists (it reads and checks the scene's
 * "render" section and the command-line request), eddy_render_frame() for every output frame,
 * eddy_render_finish() at the end of the run (also after an error or an interrupt: it makes the movie
 * from the frames there are), eddy_render_destroy().
 *
 * What stays fixed over a run, so that frames can be compared: the camera and the image layout, and
 * the colour range. Both are settled by the first frame rendered (frame 0 of a fresh run), from the
 * scene or the request where they say, otherwise by the documented rules (render.c, docs); a default
 * range the first frame cannot settle (its field constant there) settles at the first frame that can.
 *
 * Besides the particles a frame shows the world's colliders where they are at its time (a moving one
 * is moved in the world as the clock advances) and the container's outline (render_colliders.c).
 *
 * Units: the scene and the command line speak world units (eye, target, span; the colour bar of
 * lengths and velocities); the world holds simulation units (multiplied by world->simulation_scale).
 *
 * Threads: one renderer belongs to one thread; it reads the world between steps.
 */
#ifndef EDDY_HOST_RENDER_H
#define EDDY_HOST_RENDER_H

#include <eddy/eddy.h>

#include "scene.h"

/* What the command line asks for. Zeros and NULLs: as the scene's "render" section says, else the
 * defaults. The strings are read during eddy_render_open() only. */
typedef struct eddy_render_request {
    int enabled;          /* --render: write OUT/render/frame_NNNNN.png for every output frame */
    int movie;            /* --movie: also OUT/movie.mp4 with ffmpeg (implies enabled) */
    const char *field;    /* --render-field NAME: "speed", "pressure", "velocity.y", a solver field, ... */
    const char *camera;   /* --camera SPEC: "eye=1,2,3;target=0,0,0;fov=40" or "view=-z" (docs) */
    const char *range;    /* --render-range "MIN,MAX" (field units) or "frame" (each frame its own) */
    int width;            /* --render-width PX, 16..16384 */
    int range_was_pending;/* a resumed run whose default range had not settled at its checkpoint: the
                           * colour bar keeps the room for labels of any width it had (eddy_render_info
                           * .range_pending), so its frames match those of a run without a break */
} eddy_render_request;

/* Everything off and unset. */
eddy_render_request eddy_render_default_request(void);

typedef struct eddy_renderer eddy_renderer;

/*
 * The request's text options on their own, before any scene is read: the --render-range syntax and the
 * --camera syntax (keys, numbers, choices; the number of coordinates a 2D scene takes, so whether a
 * camera fits the scene and the --render-field name are eddy_render_open's to check). The same
 * messages as eddy_render_open; the CLI turns a failure into the bad-command-line exit status (2).
 */
int eddy_render_check_request(const eddy_render_request *req, eddy_error *err);

/*
 * Checks the scene's "render" section (unknown keys, types and ranges are errors in the scene's
 * "FILE:LINE:COL: render.KEY: ..." form) and the request ("--camera 'SPEC': ...", "--render-range
 * ...", "--render-width ..."), whether or not rendering is on. When it is on (enabled or movie):
 * checks the field against `w`'s particle fields (may be NULL: then at the first frame; an unknown
 * field is an error listing the available names), creates OUT/render, and sets *out to a renderer
 * owned by the caller. When it is off, *out is NULL; the other functions accept NULL and do nothing.
 * `out_dir` is the run's output folder (OUT).
 */
int eddy_render_open(const eddy_scene *scene, const eddy_world *w, const eddy_render_request *req,
                     const char *out_dir, eddy_renderer **out, eddy_error *err);

/*
 * Writes OUT/render/frame_NNNNN.png (frame zero-padded to 5 digits, as the VTK frames) of `w` now,
 * through a temporary name and a rename. The first call settles the camera, layout and colour range
 * (info.range_pending: the range awaits a later frame).
 * EDDY_ERR_NOT_FOUND for an unknown field, EDDY_ERR_IO naming the file.
 */
int eddy_render_frame(eddy_renderer *r, const eddy_world *w, int frame, eddy_error *err);

/*
 * With --movie: runs ffmpeg (the first on PATH) over the frames into OUT/movie.mp4 (H.264, yuv420p,
 * the scene's render.fps or real time). The frames are those of this run, extended backwards over
 * consecutive frame files already in OUT/render (a resumed run). ffmpeg missing: EDDY_ERR_NOT_FOUND
 * saying so and that the PNG frames are kept; ffmpeg failing: EDDY_ERR_IO with its last message line
 * (the whole log stays in OUT/render/ffmpeg.log). Without --movie, or with no frame rendered: nothing.
 */
int eddy_render_finish(eddy_renderer *r, eddy_error *err);

/* Frees the renderer; files written stay. NULL-safe. */
void eddy_render_destroy(eddy_renderer *r);

/*
 * Where things land, settled by the first frame (before it, eddy_render_info() fails with
 * EDDY_ERR_INVALID_ARGUMENT). Pixel (i, j) covers [i, i + 1) x [j, j + 1), j from the top. With the
 * camera's orthonormal basis (right, up, forward; forward from eye to target, right = forward x up
 * normalized, up re-orthogonalized) and a particle at camera coordinates (a, b, c) = its offset from
 * the eye (perspective) or from the target (orthographic) along right, up, forward, in sim units:
 *   perspective   x = cx + f a / c,  y = cy - f b / c,  f = zoom * (view_y1 - view_y0) / 2 / tan(fov / 2)
 *   orthographic  x = cx + k a,      y = cy - k b,      k = pixels_per_unit
 * where (cx, cy) is the centre of the view rectangle: the target lands there.
 */
typedef struct eddy_render_info {
    int width, height;                       /* the image */
    int view_x0, view_y0, view_x1, view_y1;  /* the rectangle the scene is drawn in */
    int perspective;                         /* 1: perspective, 0: orthographic */
    double fov_degrees, zoom;                /* perspective */
    double pixels_per_unit;                  /* orthographic: pixels per simulation unit */
    float eye[3], target[3], up[3];          /* sim units; up as given (not re-orthogonalized) */
    double range_min, range_max;             /* the colour range in the field's units (fixed ranges) */
    int range_per_frame;                     /* 1: each frame takes its own range */
    int range_pending;                       /* 1: the default range awaits a frame where the field is
                                              * not constant; range_min/max are provisional */
    double box_min[3], box_max[3];           /* the framed region, sim units */
    char field[64];                          /* as asked, e.g. "velocity.y" */
    char unit[16];                           /* "m/s", "Pa", ... or "" */
} eddy_render_info;

int eddy_render_info_get(const eddy_renderer *r, eddy_render_info *info, eddy_error *err);

/*
 * Presets: a renderer made from settings alone, without a scene, an output folder or a movie (what
 * picture.c makes picture.png with). Zeros: no decorations, the rule's colour range, the default view.
 */
typedef struct eddy_render_preset {
    const char *field;            /* NULL: "speed" */
    const char *camera;           /* the --camera syntax; NULL: the default view of the dimension */
    int width, height;            /* 16..16384; height 0: from the view */
    int dark, colorbar, show_time;
    int outline;                  /* the framed box's edges, where it is the container or the bounds */
    int shaded;                   /* 3D particles as spheres with a darker rim; 0: flat discs */
    int has_bounds;               /* frame bounds_min/max (sim units) instead of the container */
    float bounds_min[3], bounds_max[3];
    double range_min, range_max;  /* a fixed colour range (field units) where range_max > range_min */
    int range_from_zero;          /* otherwise: 1: each frame 0 to its largest value; 0: the rule */
    float simulation_scale;       /* > 0: instead of the world's, for lengths and velocities */
} eddy_render_preset;

/* EDDY_ERR_INVALID_ARGUMENT for sizes out of range ("render: size W x H is out of range ...") and a
 * bad camera ("render: camera: ..."). The field is bound at the first frame. */
int eddy_render_create(const eddy_render_preset *preset, int dimensions, eddy_renderer **out, eddy_error *err);

/* Settles the camera, layout and colour range on `w` without drawing (eddy_render_info_get() then
 * answers); a later frame keeps them. */
int eddy_render_settle(eddy_renderer *r, const eddy_world *w, eddy_error *err);

/* Draws `w` now and writes the PNG to `path` (via "<path>.tmp" and a rename). Not counted as a frame
 * of the movie. */
int eddy_render_write(eddy_renderer *r, const eddy_world *w, const char *path, eddy_error *err);

#endif /* EDDY_HOST_RENDER_H */
