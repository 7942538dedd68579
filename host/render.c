#include "render.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output.h"
#include "picture.h"
#include "raster.h"

extern char **environ;

#define MIN_SIZE 16
#define MAX_SIZE EDDY_RASTER_MAX_SIZE
#define DEFAULT_WIDTH 960
#define DEFAULT_FOV 40.0
#define PREFIX_MAX EDDY_ERROR_MESSAGE_MAX

/* The 3D default: a three-quarter view from the front, above and a little to the left, which shows
 * the depth of a tank as well as its length. */
static const float DEFAULT_VIEW_3D[3] = {0.35f, -0.45f, -1.0f};

eddy_render_request eddy_render_default_request(void)
{
    eddy_render_request r;
    memset(&r, 0, sizeof r);
    return r;
}

/* ---------------------------------------------------------------------------------------------- */
/* Small vector helpers (double: camera math on float positions should not lose what float keeps)  */

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double norm3(const double a[3])
{
    return sqrt(dot3(a, a));
}

/* ---------------------------------------------------------------------------------------------- */
/* Camera description (world units, as written)                                                     */

enum { PROJ_AUTO = 0, PROJ_ORTHOGRAPHIC = 1, PROJ_PERSPECTIVE = 2 };

typedef struct camera {
    int has_eye, has_target, has_up, has_view;
    float eye[3], target[3], up[3], view[3];
    int projection;
    double fov;  /* degrees; 0: default */
    double span; /* world units; 0: fit */
    double zoom; /* 0: 1 */
} camera;

static const char CAMERA_KEYS_TEXT[] = "eye, target, up, view, projection, fov, span, zoom";

/* Parses "x,y,z" (2D: "x,y" too, z = 0). */
static int parse_numbers(const char *s, int dimensions, float out[3])
{
    double v[3] = {0, 0, 0};
    int n = 0;
    const char *p = s;
    while (1) {
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || !isfinite(x) || errno == ERANGE || n == 3) return 0;
        v[n++] = x;
        p = end;
        while (*p == ' ') ++p;
        if (*p == '\0') break;
        if (*p != ',') return 0;
        ++p;
    }
    if (!(n == 3 || (n == 2 && dimensions == 2))) return 0;
    for (int a = 0; a < 3; ++a) out[a] = (float)v[a];
    return 1;
}

static int parse_axis(const char *s, float out[3])
{
    if ((s[0] != '+' && s[0] != '-') || s[1] < 'x' || s[1] > 'z' || s[2]) return 0;
    out[0] = out[1] = out[2] = 0.0f;
    out[s[1] - 'x'] = s[0] == '-' ? -1.0f : 1.0f;
    return 1;
}

static const char *vector_expected(int dimensions)
{
    return dimensions == 2 ? "2 or 3 numbers separated by commas" : "3 numbers separated by commas";
}

/* The --camera syntax: KEY=VALUE items separated by ';' (spaces around items allowed). Errors are
 * written without a prefix; the caller says where the text came from. */
static int parse_camera_spec(const char *spec, int dimensions, camera *cam, eddy_error *err)
{
    memset(cam, 0, sizeof *cam);
    char buf[1024];
    if (strlen(spec) >= sizeof buf)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "expected at most %zu characters", sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", spec);
    int seen[8] = {0};
    static const char *const KEYS[8] = {"eye", "target", "up", "view", "projection", "fov", "span", "zoom"};
    char *save = NULL;
    int items = 0;
    for (char *item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
        while (*item == ' ') ++item;
        size_t len = strlen(item);
        while (len && item[len - 1] == ' ') item[--len] = '\0';
        if (!len) continue; /* "a=1;;b=2" or a trailing ';' */
        ++items;
        char *eq = strchr(item, '=');
        if (!eq)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "expected KEY=VALUE items separated by ';', got \"%s\"",
                                  item);
        *eq = '\0';
        char *key = item, *val = eq + 1;
        size_t kl = strlen(key);
        while (kl && key[kl - 1] == ' ') key[--kl] = '\0';
        while (*val == ' ') ++val;
        int k = 0;
        while (k < 8 && strcmp(KEYS[k], key) != 0) ++k;
        if (k == 8)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "unknown key \"%s\", expected one of: %s", key,
                                  CAMERA_KEYS_TEXT);
        if (seen[k]) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: given twice", key);
        seen[k] = 1;
        char *end;
        double x;
        switch (k) {
        case 0: case 1: case 2: {
            float *dst = k == 0 ? cam->eye : k == 1 ? cam->target : cam->up;
            if (!parse_numbers(val, dimensions, dst))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: expected %s, got \"%s\"", key,
                                      vector_expected(dimensions), val);
            if (k == 0) cam->has_eye = 1;
            if (k == 1) cam->has_target = 1;
            if (k == 2) cam->has_up = 1;
            break;
        }
        case 3:
            if (!parse_axis(val, cam->view) && !parse_numbers(val, dimensions, cam->view))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "view: expected an axis (+x, -x, +y, -y, +z, -z) or a direction of %s, got \"%s\"",
                                      vector_expected(dimensions), val);
            cam->has_view = 1;
            break;
        case 4:
            if (!strcmp(val, "perspective")) cam->projection = PROJ_PERSPECTIVE;
            else if (!strcmp(val, "orthographic")) cam->projection = PROJ_ORTHOGRAPHIC;
            else
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "projection: expected perspective or orthographic, got \"%s\"", val);
            break;
        default:
            errno = 0;
            x = strtod(val, &end);
            if (end == val || *end || !isfinite(x) || (k == 5 ? !(x >= 1.0 && x <= 179.0) : !(x > 0.0)))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: expected %s, got \"%s\"", key,
                                      k == 5 ? "a number of degrees in [1, 179]"
                                      : k == 6 ? "a number > 0 (world units)" : "a number > 0",
                                      val);
            if (k == 5) cam->fov = x;
            else if (k == 6) cam->span = x;
            else cam->zoom = x;
            break;
        }
    }
    if (!items) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "expected KEY=VALUE items separated by ';', got nothing");
    return EDDY_OK;
}

/* Checks that need no world: the direction is determined at most once, and up is usable. */
static int check_camera(const camera *c, eddy_error *err)
{
    if (c->has_eye && c->has_target && c->has_view)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "eye, target and view together over-determine the direction; give at most two of them");
    if (c->has_view && !(c->view[0] != 0.0f || c->view[1] != 0.0f || c->view[2] != 0.0f))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "view: the direction (0, 0, 0) has no length");
    if (c->has_up && !(c->up[0] != 0.0f || c->up[1] != 0.0f || c->up[2] != 0.0f))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "up: the direction (0, 0, 0) has no length");
    if (c->has_eye && c->has_target && c->eye[0] == c->target[0] && c->eye[1] == c->target[1] && c->eye[2] == c->target[2])
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eye and target are the same point");
    if (c->has_up && (c->has_view || (c->has_eye && c->has_target))) {
        double d[3], u[3] = {c->up[0], c->up[1], c->up[2]}, x[3];
        for (int a = 0; a < 3; ++a) d[a] = c->has_view ? c->view[a] : (double)c->target[a] - c->eye[a];
        cross3(d, u, x);
        if (norm3(x) <= 1e-6 * norm3(d) * norm3(u))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "up (%g, %g, %g) is parallel to the view direction",
                                  (double)c->up[0], (double)c->up[1], (double)c->up[2]);
    }
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Renderer                                                                                         */

enum { RANGE_RULE = 0, RANGE_FIXED = 1, RANGE_FRAME = 2 };

typedef struct depth_key {
    double depth;
    uint64_t id;
    uint32_t index;
} depth_key;

struct eddy_renderer {
    char *out_dir, *render_dir;
    int dimensions;
    float scene_scale;

    /* settings */
    char field[64];
    char field_prefix[PREFIX_MAX];  /* where the field name came from, for messages */
    camera cam;
    char camera_prefix[PREFIX_MAX];
    int range_mode;
    double range_lo, range_hi;
    int width, height;              /* height 0: from the framed region */
    int dark, colorbar, show_time, movie;
    double radius_factor, fps;

    /* the bound field */
    int bound;
    int field_id, component;        /* component -1: magnitude */
    int kind;                       /* what the value is: see field_kind */
    char unit[16], title[96];

    /* settled by the first frame */
    int settled;
    double box_lo[3], box_hi[3];    /* framed region, sim units */
    double eye[3], target[3], up_given[3];
    double right[3], upv[3], fwd[3];
    int perspective;
    double fov, zoom, focal, ppu;
    int view_x0, view_y0, view_x1, view_y1, image_w, image_h, margin, fs;

    /* frames */
    int frames, first_frame, last_frame;
    depth_key *keys;
    float *values;
    size_t capacity;
};

/* What a field's numbers mean for units and the default colour range. */
enum { KIND_OTHER = 0, KIND_LENGTH, KIND_VELOCITY, KIND_DENSITY, KIND_PRESSURE };

static int set_prefix_from_scene(const eddy_scene *scene, const char *path, const cJSON *node, char *out)
{
    /* The scene module formats positions; borrowing it keeps "FILE:LINE:COL: path: " identical. */
    eddy_error tmp;
    eddy_scene_fail_at(scene, &tmp, path, node, "%s", "");
    snprintf(out, PREFIX_MAX, "%s", tmp.message);
    return 0;
}

/* Binds r->field to a particle field of `p`. */
static int bind_field(eddy_renderer *r, const eddy_particles *p, eddy_error *err)
{
    char base[64];
    snprintf(base, sizeof base, "%s", r->field);
    char *dot = strchr(base, '.');
    const char *comp = NULL;
    if (dot) {
        *dot = '\0';
        comp = dot + 1;
    }
    int id;
    if (!strcmp(base, "speed") && !comp)
        id = EDDY_FIELD_VELOCITY;
    else
        id = eddy_particles_find_field(p, base);
    if (id < 0 || (!strcmp(base, "speed") && comp)) {
        char list[EDDY_ERROR_MESSAGE_MAX / 2];
        size_t k = (size_t)snprintf(list, sizeof list, "speed");
        for (int f = 0; f < eddy_particles_field_count(p) && k < sizeof list; ++f)
            k += (size_t)snprintf(list + k, sizeof list - k, ", %s", eddy_particles_field_name(p, f));
        return eddy_error_set(err, EDDY_ERR_NOT_FOUND,
                              "%sunknown particle field \"%s\", expected one of: %s (a vector by its magnitude, one "
                              "component as NAME.x, NAME.y, NAME.z)",
                              r->field_prefix, r->field, list);
    }
    int n = eddy_particles_field_components(p, id);
    int c = -1;
    if (comp) {
        if (n == 1)
            return eddy_error_set(err, EDDY_ERR_NOT_FOUND, "%s\"%s\": %s has a single component; use \"%s\"",
                                  r->field_prefix, r->field, base, base);
        if (n == 3 && comp[0] >= 'x' && comp[0] <= 'z' && !comp[1])
            c = comp[0] - 'x';
        else if (comp[0] >= '0' && comp[0] <= '9' && !comp[1] && comp[0] - '0' < n)
            c = comp[0] - '0';
        else if (n == 3)
            return eddy_error_set(err, EDDY_ERR_NOT_FOUND, "%s\"%s\": %s has the components x, y and z",
                                  r->field_prefix, r->field, base);
        else
            return eddy_error_set(err, EDDY_ERR_NOT_FOUND, "%s\"%s\": %s has the components 0 to %d", r->field_prefix,
                                  r->field, base, n - 1);
    } else if (n == 1) {
        c = 0;
    }
    r->field_id = id;
    r->component = c;
    r->kind = id == EDDY_FIELD_POSITION   ? KIND_LENGTH
              : id == EDDY_FIELD_VELOCITY ? KIND_VELOCITY
              : id == EDDY_FIELD_DENSITY  ? KIND_DENSITY
              : id == EDDY_FIELD_PRESSURE ? KIND_PRESSURE
                                          : KIND_OTHER;
    const char *unit = "";
    int d = p->dimensions;
    switch (id) {
    case EDDY_FIELD_POSITION: unit = "m"; break;
    case EDDY_FIELD_VELOCITY: unit = "m/s"; break;
    case EDDY_FIELD_DENSITY: unit = d == 2 ? "kg/m^2" : "kg/m^3"; break;
    case EDDY_FIELD_PRESSURE: unit = "Pa"; break;
    case EDDY_FIELD_MASS: unit = d == 2 ? "kg/m" : "kg"; break;
    default: break;
    }
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    if (unit[0])
        snprintf(r->title, sizeof r->title, "%s (%s)", r->field, unit);
    else
        snprintf(r->title, sizeof r->title, "%s", r->field);
    r->bound = 1;
    return EDDY_OK;
}

static float world_scale(const eddy_renderer *r, const eddy_world *w)
{
    float s = w->simulation_scale > 0.0f && isfinite(w->simulation_scale) ? w->simulation_scale : r->scene_scale;
    return s > 0.0f && isfinite(s) ? s : 1.0f;
}

/* The field's value of every particle, in the units the colour bar shows (lengths and velocities in
 * world units; everything else as stored). */
static void field_values(const eddy_renderer *r, const eddy_world *w, float *out)
{
    const eddy_particles *p = &w->particles;
    float div = r->kind == KIND_LENGTH || r->kind == KIND_VELOCITY ? world_scale(r, w) : 1.0f;
    int n = eddy_particles_field_components(p, r->field_id);
    if (r->component >= 0) {
        const float *a = eddy_particles_field(p, r->field_id, r->component);
        for (size_t i = 0; i < p->count; ++i) out[i] = a[i] / div;
        return;
    }
    for (size_t i = 0; i < p->count; ++i) out[i] = 0.0f;
    for (int c = 0; c < n; ++c) {
        const float *a = eddy_particles_field(p, r->field_id, c);
        for (size_t i = 0; i < p->count; ++i) out[i] += a[i] * a[i];
    }
    for (size_t i = 0; i < p->count; ++i) out[i] = sqrtf(out[i]) / div;
}

static float material_spacing(const eddy_world *w, uint32_t m)
{
    return m < w->material_count && w->materials[m].particle_dist > 0.0f ? w->materials[m].particle_dist : 0.0f;
}

/* The framed region (sim units): the container, else the particles' bounding box widened by half the
 * largest rest spacing, else a unit box; zero extents are widened so that a scale exists. */
static void framed_box(eddy_renderer *r, const eddy_world *w)
{
    const eddy_particles *p = &w->particles;
    int any = 0;
    if (w->boundaries.has_container) {
        for (int a = 0; a < 3; ++a) {
            r->box_lo[a] = w->boundaries.container_min[a];
            r->box_hi[a] = w->boundaries.container_max[a];
        }
        any = 1;
    } else {
        float pad = 0.0f;
        for (size_t i = 0; i < p->count; ++i) {
            float q[3] = {p->x[i], p->y[i], p->z[i]};
            if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2])) continue;
            for (int a = 0; a < 3; ++a) {
                if (!any || q[a] < r->box_lo[a]) r->box_lo[a] = q[a];
                if (!any || q[a] > r->box_hi[a]) r->box_hi[a] = q[a];
            }
            any = 1;
            pad = fmaxf(pad, 0.5f * material_spacing(w, p->material[i]));
        }
        for (int a = 0; a < 3 && any; ++a) {
            if (a == 2 && r->dimensions == 2) continue;
            r->box_lo[a] -= pad;
            r->box_hi[a] += pad;
        }
    }
    if (!any)
        for (int a = 0; a < 3; ++a) {
            r->box_lo[a] = 0.0;
            r->box_hi[a] = a < r->dimensions ? 1.0 : 0.0;
        }
    if (r->dimensions == 2) r->box_lo[2] = r->box_hi[2] = 0.0;
    double big = 0.0;
    for (int a = 0; a < 3; ++a) big = fmax(big, r->box_hi[a] - r->box_lo[a]);
    if (big <= 0.0) big = fmax(1e-6, fabs(r->box_lo[0]) * 1e-3);
    for (int a = 0; a < r->dimensions; ++a)
        if (r->box_hi[a] - r->box_lo[a] <= 0.0) {
            r->box_lo[a] -= 0.5 * big;
            r->box_hi[a] += 0.5 * big;
        }
}

/* Extents of the framed box's corners around the target along right and up, and the nearest and
 * farthest along forward. */
static void box_extents(const eddy_renderer *r, const double origin[3], double *A, double *B, double *near,
                        double *far, double *limit_for_fit, double tv, double aspect)
{
    *A = *B = 0.0;
    *near = DBL_MAX;
    *far = -DBL_MAX;
    double need = -DBL_MAX;
    for (int k = 0; k < 8; ++k) {
        double c[3] = {(k & 1) ? r->box_hi[0] : r->box_lo[0], (k & 2) ? r->box_hi[1] : r->box_lo[1],
                       (k & 4) ? r->box_hi[2] : r->box_lo[2]};
        double rel[3] = {c[0] - origin[0], c[1] - origin[1], c[2] - origin[2]};
        double a = fabs(dot3(rel, r->right)), b = fabs(dot3(rel, r->upv)), f = dot3(rel, r->fwd);
        *A = fmax(*A, a);
        *B = fmax(*B, b);
        *near = fmin(*near, f);
        *far = fmax(*far, f);
        /* Perspective: the eye distance D (behind the target) at which this corner just fits. */
        if (tv > 0.0) need = fmax(need, fmax(a / (tv * aspect), b / tv) - f);
    }
    if (limit_for_fit) *limit_for_fit = need;
}

static int camera_fail(const eddy_renderer *r, eddy_error *err, const char *msg)
{
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s", r->camera_prefix, msg);
}

/* Settles the camera's basis and the target; the scale waits for the viewport. */
static int resolve_camera(eddy_renderer *r, float scale, eddy_error *err)
{
    const camera *c = &r->cam;
    double centre[3], eye[3], target[3], d[3];
    for (int a = 0; a < 3; ++a) {
        centre[a] = 0.5 * (r->box_lo[a] + r->box_hi[a]);
        eye[a] = (double)c->eye[a] * scale;
        target[a] = c->has_target ? (double)c->target[a] * scale : centre[a];
    }
    if (c->has_eye && !c->has_view) {
        for (int a = 0; a < 3; ++a) d[a] = target[a] - eye[a];
        if (norm3(d) == 0.0) return camera_fail(r, err, "the eye is at the target (the centre of the framed region)");
    } else if (c->has_view) {
        for (int a = 0; a < 3; ++a) d[a] = c->view[a];
        if (c->has_eye && !c->has_target) {
            /* The target only marks the ray through the image centre: the eye's own. */
            for (int a = 0; a < 3; ++a) target[a] = eye[a] + d[a];
        }
    } else {
        for (int a = 0; a < 3; ++a) d[a] = r->dimensions == 2 ? (a == 2 ? -1.0 : 0.0) : DEFAULT_VIEW_3D[a];
    }
    double n = norm3(d);
    for (int a = 0; a < 3; ++a) d[a] /= n;

    double up[3] = {0.0, 1.0, 0.0};
    if (c->has_up) {
        for (int a = 0; a < 3; ++a) up[a] = c->up[a];
    } else if (fabs(d[1]) > 0.99) {
        /* Looking straight down (or up) at a tank: +x stays to the right, -z (the back) at the top. */
        up[0] = 0.0;
        up[1] = 0.0;
        up[2] = d[1] < 0.0 ? -1.0 : 1.0;
    }
    double x[3];
    cross3(d, up, x);
    if (norm3(x) <= 1e-6 * norm3(up)) {
        char msg[160];
        snprintf(msg, sizeof msg, "up (%g, %g, %g) is parallel to the view direction", up[0], up[1], up[2]);
        return camera_fail(r, err, msg);
    }
    double xn = norm3(x);
    for (int a = 0; a < 3; ++a) {
        r->right[a] = x[a] / xn;
        r->fwd[a] = d[a];
        r->target[a] = target[a];
        r->eye[a] = eye[a];
        r->up_given[a] = up[a];
    }
    cross3(r->right, r->fwd, r->upv);

    if (c->projection)
        r->perspective = c->projection == PROJ_PERSPECTIVE;
    else if (c->has_eye)
        r->perspective = 1;
    else if (c->has_view)
        r->perspective = 0;
    else
        r->perspective = r->dimensions == 3;
    r->fov = c->fov > 0.0 ? c->fov : DEFAULT_FOV;
    r->zoom = c->zoom > 0.0 ? c->zoom : 1.0;
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Colour range                                                                                     */

static void widen(double *lo, double *hi)
{
    if (*hi > *lo) return;
    double d = *lo == 0.0 ? 1.0 : 0.1 * fabs(*lo);
    *lo -= d;
    *hi += d;
}

static void finite_range(const float *v, size_t n, double *lo, double *hi)
{
    int any = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(v[i])) continue; /* one bad particle should not blank every frame */
        if (!any || v[i] < *lo) *lo = v[i];
        if (!any || v[i] > *hi) *hi = v[i];
        any = 1;
    }
    if (!any) {
        *lo = 0.0;
        *hi = 1.0;
    }
    widen(lo, hi);
}

/* The documented default: free-fall speed over the framed height for velocities, the rest density
 * +-10% for density, the box for position components, else the first frame's own range. */
/* |g| and the framed box's extent along g, simulation units (0, 0 without gravity). */
static void gravity_height(const eddy_renderer *r, const eddy_world *w, double *gn_out, double *height)
{
    double g[3] = {w->gravity[0], w->gravity[1], w->gravity[2]};
    double gn = norm3(g);
    *height = 0.0;
    if (gn > 0.0) {
        double lo_g = DBL_MAX, hi_g = -DBL_MAX;
        for (int k = 0; k < 8; ++k) {
            double c[3] = {(k & 1) ? r->box_hi[0] : r->box_lo[0], (k & 2) ? r->box_hi[1] : r->box_lo[1],
                           (k & 4) ? r->box_hi[2] : r->box_lo[2]};
            double f = dot3(c, g) / gn;
            lo_g = fmin(lo_g, f);
            hi_g = fmax(hi_g, f);
        }
        *height = hi_g - lo_g;
    }
    *gn_out = gn;
}

static void rule_range(eddy_renderer *r, const eddy_world *w, const float *v, double *lo, double *hi)
{
    size_t n = w->particles.count;
    float scale = world_scale(r, w);
    if (r->kind == KIND_PRESSURE && w->material_count) {
        /* A fluid at rest in the first frame carries little pressure; the flow that follows reaches
         * about the hydrostatic pressure of the framed height, rho0 g H (simulation units, as stored). */
        double gn, height, rho0 = 0.0;
        gravity_height(r, w, &gn, &height);
        for (size_t m = 0; m < w->material_count; ++m) rho0 = fmax(rho0, w->materials[m].rest_density);
        finite_range(v, n, lo, hi);
        *lo = fmin(*lo, 0.0);
        *hi = fmax(*hi, rho0 * gn * height);
        widen(lo, hi);
        return;
    }
    if (r->kind == KIND_VELOCITY) {
        double gn, height;
        gravity_height(r, w, &gn, &height);
        /* World units: g / scale and height / scale. */
        double s = sqrt(2.0 * (gn / scale) * (height / scale));
        double vmax = 0.0;
        for (size_t i = 0; i < n; ++i)
            if (isfinite(v[i]) && fabs(v[i]) > vmax) vmax = fabs(v[i]);
        s = fmax(s, vmax);
        if (!(s > 0.0)) s = 1.0;
        *lo = r->component < 0 ? 0.0 : -s;
        *hi = s;
        return;
    }
    if (r->kind == KIND_LENGTH && r->component >= 0) {
        *lo = r->box_lo[r->component] / scale;
        *hi = r->box_hi[r->component] / scale;
        widen(lo, hi);
        return;
    }
    if (r->kind == KIND_DENSITY && w->material_count) {
        double a = DBL_MAX, b = 0.0;
        for (size_t m = 0; m < w->material_count; ++m) {
            a = fmin(a, w->materials[m].rest_density);
            b = fmax(b, w->materials[m].rest_density);
        }
        *lo = 0.9 * a;
        *hi = 1.1 * b;
        return;
    }
    finite_range(v, n, lo, hi);
}

/* ---------------------------------------------------------------------------------------------- */
/* Layout                                                                                           */

static void range_label(double v, char *buf, size_t size)
{
    snprintf(buf, size, "%.3g", v);
}

static int colorbar_width(const eddy_renderer *r, int margin, int fs)
{
    if (!r->colorbar) return 0;
    int tw = 0;
    char a[64];
    if (r->range_mode == RANGE_FRAME) {
        /* Labels change per frame: room for the widest "%.3g" ("-1.23e+100"). */
        tw = eddy_raster_text_width("-1.23e-100", fs);
    } else {
        range_label(r->range_lo, a, sizeof a);
        tw = eddy_raster_text_width(a, fs);
        range_label(r->range_hi, a, sizeof a);
        if (eddy_raster_text_width(a, fs) > tw) tw = eddy_raster_text_width(a, fs);
    }
    return margin + 8 * fs + 3 * fs + tw;
}

static int settle(eddy_renderer *r, const eddy_world *w, const float *values, eddy_error *err)
{
    float scale = world_scale(r, w);
    framed_box(r, w);
    int rc = resolve_camera(r, scale, err);
    if (rc) return rc;
    if (r->range_mode == RANGE_RULE) rule_range(r, w, values, &r->range_lo, &r->range_hi);

    int W = r->width;
    int fs = eddy_raster_font_scale(W);
    int margin = W / 40 < 8 ? 8 : W / 40;
    int top = r->show_time || r->colorbar ? margin + 7 * fs : margin;
    int cbw = colorbar_width(r, margin, fs);
    int view_w = W - 2 * margin - cbw;
    if (view_w < 4) {
        /* A narrow image: the scene gets the space, the decorations would not fit anyway. */
        cbw = 0;
        margin = top = 1;
        view_w = W - 2;
        r->colorbar = r->show_time = 0;
    }
    double A, B, fmn, fmx;
    box_extents(r, r->target, &A, &B, &fmn, &fmx, NULL, 0.0, 1.0);
    double aspect = B > 0.0 ? A / B : 4.0 / 3.0;
    if (A <= 0.0 && B <= 0.0) aspect = 1.0;
    aspect = fmin(4.0, fmax(0.25, aspect));
    int H = r->height, view_h;
    if (H == 0) {
        view_h = (int)lrint(view_w / aspect);
        if (view_h < 1) view_h = 1;
        if (view_h > MAX_SIZE - top - margin) view_h = MAX_SIZE - top - margin;
        H = top + view_h + margin;
        if (H < MIN_SIZE) H = MIN_SIZE;
        H += H & 1; /* even sizes: H.264 in yuv420p wants them */
        if (H > MAX_SIZE) H = MAX_SIZE;
    }
    view_h = H - top - margin;
    if (view_h < 1) {
        top = margin = 1;
        view_h = H - 2;
    }
    r->fs = fs;
    r->margin = margin;
    r->image_w = W;
    r->image_h = H;
    r->view_x0 = margin;
    r->view_y0 = top;
    r->view_x1 = margin + view_w;
    r->view_y1 = top + view_h;

    if (r->perspective) {
        double tv = tan(0.5 * r->fov * M_PI / 180.0);
        r->focal = r->zoom * 0.5 * view_h / tv;
        if (!r->cam.has_eye) {
            /* Back away from the target until every corner of the framed box is in view. */
            double need;
            box_extents(r, r->target, &A, &B, &fmn, &fmx, &need, tv, (double)view_w / view_h);
            double D = fmax(need, -fmn + 1e-3 * (fmx - fmn + A + B));
            for (int a = 0; a < 3; ++a) r->eye[a] = r->target[a] - D * r->fwd[a];
        }
    } else {
        if (r->cam.span > 0.0) {
            r->ppu = r->zoom * view_h / (r->cam.span * scale);
        } else {
            double kx = A > 0.0 ? view_w / (2.0 * A) : DBL_MAX, ky = B > 0.0 ? view_h / (2.0 * B) : DBL_MAX;
            double k = fmin(kx, ky);
            r->ppu = r->zoom * (k < DBL_MAX ? k : view_h);
        }
    }
    r->settled = 1;
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Drawing                                                                                          */

/* Camera coordinates and the pixel of a sim-units point; 0 when it is behind the eye. */
static int project(const eddy_renderer *r, const double p[3], double *x, double *y, double *depth, double *px_per_unit)
{
    double cx = 0.5 * (r->view_x0 + r->view_x1), cy = 0.5 * (r->view_y0 + r->view_y1);
    const double *o = r->perspective ? r->eye : r->target;
    double rel[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]};
    double a = dot3(rel, r->right), b = dot3(rel, r->upv), c = dot3(rel, r->fwd);
    *depth = c;
    if (r->perspective) {
        if (!(c > 1e-9)) return 0;
        *x = cx + r->focal * a / c;
        *y = cy - r->focal * b / c;
        *px_per_unit = r->focal / c;
    } else {
        *x = cx + r->ppu * a;
        *y = cy - r->ppu * b;
        *px_per_unit = r->ppu;
    }
    return isfinite(*x) && isfinite(*y);
}

static void draw_container(const eddy_renderer *r, eddy_raster *im, const eddy_world *w, const uint8_t c[3])
{
    if (!w->boundaries.has_container) return;
    const float *lo = w->boundaries.container_min, *hi = w->boundaries.container_max;
    double lw = fmax(1.0, 0.5 * r->fs);
    /* The 12 edges of the box (4 in 2D): corners k and k ^ bit differ on one axis. */
    for (int k = 0; k < 8; ++k)
        for (int bit = 1; bit < 8; bit <<= 1) {
            if (k & bit) continue;
            if (r->dimensions == 2 && (k & 4 || bit == 4)) continue;
            int m = k | bit;
            double p[3] = {(k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]};
            double q[3] = {(m & 1) ? hi[0] : lo[0], (m & 2) ? hi[1] : lo[1], (m & 4) ? hi[2] : lo[2]};
            if (r->dimensions == 2) p[2] = q[2] = 0.0;
            double x0, y0, x1, y1, d, s;
            if (project(r, p, &x0, &y0, &d, &s) && project(r, q, &x1, &y1, &d, &s)) eddy_raster_line(im, x0, y0, x1, y1, lw, c);
        }
}

static int by_depth(const void *a, const void *b)
{
    const depth_key *p = a, *q = b;
    /* Far first, so that nearer particles are drawn over them. */
    if (p->depth != q->depth) return p->depth > q->depth ? -1 : 1;
    /* Ties (all of 2D) go by id, so the picture does not depend on the grid's storage order. */
    return p->id < q->id ? -1 : p->id > q->id;
}

static int draw_frame(eddy_renderer *r, eddy_raster *im, const eddy_world *w, const float *values, double lo,
                      double hi)
{
    const uint8_t ink[3] = {r->dark ? 230 : 20, r->dark ? 230 : 20, r->dark ? 230 : 20};
    const uint8_t edge[3] = {r->dark ? 110 : 160, r->dark ? 110 : 160, r->dark ? 110 : 160};
    const uint8_t nan_grey[3] = {128, 128, 128};
    /* The scene stays in its rectangle (a camera close to the container would otherwise draw edges over
     * the colour bar); half the margin of slack keeps the container's outline whole where it frames the
     * view exactly. */
    int pad = r->margin / 2;
    eddy_raster_clip(im, r->view_x0 - pad, r->view_y0 - pad, r->view_x1 + pad, r->view_y1 + pad);
    draw_container(r, im, w, edge);

    const eddy_particles *p = &w->particles;
    size_t m = 0;
    for (size_t i = 0; i < p->count; ++i) {
        if (eddy_particle_is_halo(p, i)) continue; /* another process's particle: drawn there */
        double q[3] = {p->x[i], p->y[i], p->z[i]}, x, y, s;
        if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2])) continue;
        if (!project(r, q, &x, &y, &r->keys[m].depth, &s)) continue;
        r->keys[m].id = p->id[i];
        r->keys[m].index = (uint32_t)i;
        ++m;
    }
    qsort(r->keys, m, sizeof *r->keys, by_depth);
    /* Spheres in 3D: the darker rim separates particles of one colour seen on top of each other. */
    float rim = r->dimensions == 3 ? 0.6f : 1.0f;
    for (size_t k = 0; k < m; ++k) {
        size_t i = r->keys[k].index;
        double q[3] = {p->x[i], p->y[i], p->z[i]}, x, y, d, s;
        project(r, q, &x, &y, &d, &s);
        uint8_t c[3];
        if (isnan(values[i]))
            memcpy(c, nan_grey, 3);
        else
            eddy_picture_colormap((float)((values[i] - lo) / (hi - lo)), c);
        double radius = fmax(1.5, 0.5 * material_spacing(w, p->material[i]) * r->radius_factor * s);
        eddy_raster_sphere(im, x, y, radius, c, rim);
    }
    eddy_raster_unclip(im);

    int fs = r->fs;
    if (r->show_time) {
        char t[64];
        snprintf(t, sizeof t, "t = %.3f s", w->time);
        eddy_raster_text(im, r->view_x0, (r->view_y0 - 7 * fs) / 2, t, fs, ink);
    }
    if (r->colorbar) {
        int bx0 = r->view_x1 + r->margin;
        char a[64], b[64];
        range_label(hi, a, sizeof a);
        range_label(lo, b, sizeof b);
        eddy_raster_colorbar(im, bx0, r->view_y0, bx0 + 8 * fs, r->view_y1, a, b, fs, ink);
        int tw = eddy_raster_text_width(r->title, fs);
        eddy_raster_text(im, r->image_w - r->margin - tw, (r->view_y0 - 7 * fs) / 2, r->title, fs, ink);
    }
    return EDDY_OK;
}

int eddy_render_frame(eddy_renderer *r, const eddy_world *w, int frame, eddy_error *err)
{
    if (!r) return EDDY_OK;
    if (frame < 0 || frame > 99999)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "render: frame %d is outside 0..99999", frame);
    int rc;
    if (!r->bound && (rc = bind_field(r, &w->particles, err))) return rc;
    size_t n = w->particles.count;
    if (n > UINT32_MAX) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "render: more than %u particles", UINT32_MAX);
    if (n > r->capacity) {
        depth_key *k = realloc(r->keys, sizeof *k * n);
        if (k) r->keys = k;
        float *v = realloc(r->values, sizeof *v * n);
        if (v) r->values = v;
        if (!k || !v) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "render: out of memory for %zu particles", n);
        r->capacity = n;
    }
    field_values(r, w, r->values);
    if (!r->settled && (rc = settle(r, w, r->values, err))) return rc;
    double lo = r->range_lo, hi = r->range_hi;
    if (r->range_mode == RANGE_FRAME) finite_range(r->values, n, &lo, &hi);

    char path[PREFIX_MAX + 4096];
    snprintf(path, sizeof path, "%s/frame_%05d.png", r->render_dir, frame);
    const uint8_t bg[3] = {r->dark ? 20 : 255, r->dark ? 22 : 255, r->dark ? 28 : 255};
    eddy_raster im;
    if ((rc = eddy_raster_init(&im, r->image_w, r->image_h, bg, err))) return eddy_error_prefix(err, "cannot write '%s': ", path);
    draw_frame(r, &im, w, r->values, lo, hi);
    rc = eddy_raster_write_png(&im, path, err);
    eddy_raster_free(&im);
    if (rc) return rc;
    if (!r->frames || frame < r->first_frame) r->first_frame = frame;
    if (!r->frames || frame > r->last_frame) r->last_frame = frame;
    r->frames++;
    return EDDY_OK;
}

int eddy_render_info_get(const eddy_renderer *r, eddy_render_info *info, eddy_error *err)
{
    memset(info, 0, sizeof *info);
    if (!r || !r->settled)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "render: the layout is settled by the first frame");
    info->width = r->image_w;
    info->height = r->image_h;
    info->view_x0 = r->view_x0;
    info->view_y0 = r->view_y0;
    info->view_x1 = r->view_x1;
    info->view_y1 = r->view_y1;
    info->perspective = r->perspective;
    info->fov_degrees = r->fov;
    info->zoom = r->zoom;
    info->pixels_per_unit = r->ppu;
    for (int a = 0; a < 3; ++a) {
        info->eye[a] = (float)r->eye[a];
        info->target[a] = (float)r->target[a];
        info->up[a] = (float)r->up_given[a];
    }
    info->range_min = r->range_lo;
    info->range_max = r->range_hi;
    info->range_per_frame = r->range_mode == RANGE_FRAME;
    snprintf(info->field, sizeof info->field, "%s", r->field);
    snprintf(info->unit, sizeof info->unit, "%s", r->unit);
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Movie                                                                                            */

/* The first executable `name` on PATH, into out; 0 when there is none. */
static int find_on_path(const char *name, char *out, size_t size)
{
    const char *path = getenv("PATH");
    if (!path) return 0;
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        /* An empty entry means the current folder, as the shell has it. */
        if (snprintf(out, size, "%.*s/%s", (int)(len ? len : 1), len ? path : ".", name) < (int)size) {
            struct stat st;
            if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0) return 1;
        }
        path += len;
        if (*path == ':') ++path;
    }
    return 0;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The last non-empty line of a text file (ffmpeg's final complaint), or "". */
static void last_line(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = '\0';
        if (n) snprintf(out, size, "%s", line);
    }
    fclose(f);
}

int eddy_render_finish(eddy_renderer *r, eddy_error *err)
{
    if (!r || !r->movie || !r->frames) return EDDY_OK;
    char movie[PREFIX_MAX + 4096], tmp[PREFIX_MAX + 4200], pattern[PREFIX_MAX + 4200], log[PREFIX_MAX + 4200];
    snprintf(movie, sizeof movie, "%s/movie.mp4", r->out_dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", movie);
    snprintf(pattern, sizeof pattern, "%s/frame_%%05d.png", r->render_dir);
    snprintf(log, sizeof log, "%s/ffmpeg.log", r->render_dir);
    char ffmpeg[4096];
    if (!find_on_path("ffmpeg", ffmpeg, sizeof ffmpeg))
        return eddy_error_set(err, EDDY_ERR_NOT_FOUND,
                              "cannot write '%s': ffmpeg was not found on PATH (install it, e.g. apt-get install "
                              "ffmpeg); the PNG frames are kept in %s",
                              movie, r->render_dir);

    /* A resumed run renders from where it left off: the earlier frames on disk belong to the movie. */
    int first = r->first_frame;
    while (first > 0) {
        char prev[PREFIX_MAX + 4200];
        snprintf(prev, sizeof prev, "%s/frame_%05d.png", r->render_dir, first - 1);
        if (!file_exists(prev)) break;
        --first;
    }
    char start[32], count[32], rate[32];
    snprintf(start, sizeof start, "%d", first);
    snprintf(count, sizeof count, "%d", r->last_frame - first + 1);
    snprintf(rate, sizeof rate, "%g", r->fps);
    char *const argv[] = {ffmpeg, "-nostdin", "-y", "-loglevel", "error", "-framerate", rate, "-start_number", start,
                          "-i", pattern, "-frames:v", count,
                          /* yuv420p (what players expect) needs even sizes; --render-width may be odd */
                          "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-f", "mp4",
                          tmp, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int e = posix_spawn(&pid, ffmpeg, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0)
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': cannot start %s: %s; the PNG frames are kept in %s",
                              movie, ffmpeg, strerror(e), r->render_dir);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            status = -1;
            break;
        }
    int ok = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok && rename(tmp, movie) != 0) {
        e = errno;
        remove(tmp);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", movie, strerror(e));
    }
    if (!ok) {
        remove(tmp);
        char why[300];
        last_line(log, why, sizeof why);
        char how[64];
        if (status >= 0 && WIFEXITED(status))
            snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
        else if (status >= 0 && WIFSIGNALED(status))
            snprintf(how, sizeof how, "was killed by signal %d", WTERMSIG(status));
        else
            snprintf(how, sizeof how, "could not be waited for");
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': ffmpeg %s%s%s; the PNG frames are kept in %s (ffmpeg's "
                              "messages: %s)",
                              movie, how, why[0] ? ": " : "", why, r->render_dir, log);
    }
    remove(log);
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Opening: the scene's section and the request                                                     */

static const char *const RENDER_KEYS[] = {"field", "range",      "camera", "width",  "height", "background",
                                          "colorbar", "time", "fps",    "radius", NULL};
static const char *const CAMERA_OBJECT_KEYS[] = {"eye", "target", "up", "view", "projection", "fov", "span", "zoom", NULL};

static int scene_bool(const eddy_scene *s, eddy_error *err, const cJSON *sec, const char *key, int *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(sec, key);
    if (!v) return EDDY_OK;
    char path[64];
    snprintf(path, sizeof path, "render.%s", key);
    if (!cJSON_IsBool(v)) return eddy_scene_fail_expected(s, err, path, v, "true or false");
    *out = cJSON_IsTrue(v);
    return EDDY_OK;
}

static int scene_camera(const eddy_scene *s, eddy_error *err, const cJSON *v, camera *cam, char *prefix)
{
    const char *path = "render.camera";
    set_prefix_from_scene(s, path, v, prefix);
    if (cJSON_IsString(v) && v->valuestring) {
        eddy_error e;
        if (parse_camera_spec(v->valuestring, s->dimensions, cam, &e) || check_camera(cam, &e))
            return eddy_scene_fail_at(s, err, path, v, "%s", e.message);
        return EDDY_OK;
    }
    if (!cJSON_IsObject(v))
        return eddy_scene_fail_expected(s, err, path, v, "an object or a string in the --camera syntax");
    int rc = eddy_scene_check_keys(s, err, v, path, CAMERA_OBJECT_KEYS);
    if (rc) return rc;
    memset(cam, 0, sizeof *cam);
    const char *vk[3] = {"eye", "target", "up"};
    float *dst[3] = {cam->eye, cam->target, cam->up};
    int *has[3] = {&cam->has_eye, &cam->has_target, &cam->has_up};
    for (int k = 0; k < 3; ++k) {
        if (!cJSON_GetObjectItemCaseSensitive(v, vk[k])) continue;
        if ((rc = eddy_scene_get_vector(s, err, v, path, vk[k], 1, NULL, dst[k]))) return rc;
        *has[k] = 1;
    }
    const cJSON *view = cJSON_GetObjectItemCaseSensitive(v, "view");
    if (view) {
        int ok = cJSON_IsString(view) && view->valuestring && parse_axis(view->valuestring, cam->view);
        if (!ok && cJSON_IsArray(view)) {
            eddy_error ignored;
            ok = eddy_scene_get_vector(s, &ignored, v, path, "view", 1, NULL, cam->view) == 0;
        }
        if (!ok)
            return eddy_scene_fail_expected(s, err, "render.camera.view", view,
                                            s->dimensions == 2
                                                ? "an axis (\"+x\", \"-x\", \"+y\", \"-y\", \"+z\", \"-z\") or an array of 2 or 3 numbers"
                                                : "an axis (\"+x\", \"-x\", \"+y\", \"-y\", \"+z\", \"-z\") or an array of 3 numbers");
        cam->has_view = 1;
    }
    const cJSON *proj = cJSON_GetObjectItemCaseSensitive(v, "projection");
    if (proj) {
        if (cJSON_IsString(proj) && !strcmp(proj->valuestring, "perspective"))
            cam->projection = PROJ_PERSPECTIVE;
        else if (cJSON_IsString(proj) && !strcmp(proj->valuestring, "orthographic"))
            cam->projection = PROJ_ORTHOGRAPHIC;
        else
            return eddy_scene_fail_expected(s, err, "render.camera.projection", proj, "\"perspective\" or \"orthographic\"");
    }
    const char *nk[3] = {"fov", "span", "zoom"};
    double *nd[3] = {&cam->fov, &cam->span, &cam->zoom};
    for (int k = 0; k < 3; ++k) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(v, nk[k]);
        if (!x) continue;
        char p[64];
        snprintf(p, sizeof p, "render.camera.%s", nk[k]);
        double d = cJSON_IsNumber(x) ? x->valuedouble : NAN;
        if (k == 0 ? !(d >= 1.0 && d <= 179.0) : !(d > 0.0 && isfinite(d)))
            return eddy_scene_fail_expected(s, err, p, x,
                                            k == 0 ? "a number of degrees in [1, 179]"
                                            : k == 1 ? "a number > 0 (world units)" : "a number > 0");
        *nd[k] = d;
    }
    eddy_error e;
    if (check_camera(cam, &e)) return eddy_scene_fail_at(s, err, path, v, "%s", e.message);
    return EDDY_OK;
}

static int scene_range(const eddy_scene *s, eddy_error *err, const cJSON *v, int *mode, double *lo, double *hi)
{
    if (cJSON_IsString(v) && !strcmp(v->valuestring, "frame")) {
        *mode = RANGE_FRAME;
        return EDDY_OK;
    }
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2) {
        const cJSON *a = cJSON_GetArrayItem(v, 0), *b = cJSON_GetArrayItem(v, 1);
        if (cJSON_IsNumber(a) && cJSON_IsNumber(b) && isfinite(a->valuedouble) && isfinite(b->valuedouble) &&
            a->valuedouble < b->valuedouble) {
            *mode = RANGE_FIXED;
            *lo = a->valuedouble;
            *hi = b->valuedouble;
            return EDDY_OK;
        }
    }
    return eddy_scene_fail_expected(s, err, "render.range", v, "[min, max] with min < max, or \"frame\"");
}

static int parse_range_option(const char *text, int *mode, double *lo, double *hi, eddy_error *err)
{
    if (!strcmp(text, "frame")) {
        *mode = RANGE_FRAME;
        return EDDY_OK;
    }
    char *end;
    double a = strtod(text, &end);
    if (end != text && *end == ',') {
        const char *q = end + 1;
        double b = strtod(q, &end);
        if (end != q && !*end && isfinite(a) && isfinite(b) && a < b) {
            *mode = RANGE_FIXED;
            *lo = a;
            *hi = b;
            return EDDY_OK;
        }
    }
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--render-range '%s': expected MIN,MAX with MIN < MAX, or frame",
                          text);
}

static int read_section(eddy_renderer *r, const eddy_scene *s, eddy_error *err)
{
    const cJSON *sec = eddy_scene_section(s, "render");
    if (!sec) return EDDY_OK;
    if (!cJSON_IsObject(sec)) return eddy_scene_fail_expected(s, err, "render", sec, "an object");
    int rc = eddy_scene_check_keys(s, err, sec, "render", RENDER_KEYS);
    if (rc) return rc;
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(sec, "field"))) {
        if ((rc = eddy_scene_get_string(s, err, sec, "render", "field", 1, NULL, r->field, sizeof r->field))) return rc;
        set_prefix_from_scene(s, "render.field", v, r->field_prefix);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(sec, "range")) &&
        (rc = scene_range(s, err, v, &r->range_mode, &r->range_lo, &r->range_hi)))
        return rc;
    if ((v = cJSON_GetObjectItemCaseSensitive(sec, "camera")) && (rc = scene_camera(s, err, v, &r->cam, r->camera_prefix)))
        return rc;
    const char *sizes[2] = {"width", "height"};
    int *dst[2] = {&r->width, &r->height};
    for (int k = 0; k < 2; ++k) {
        if (!(v = cJSON_GetObjectItemCaseSensitive(sec, sizes[k]))) continue;
        double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
        int ok = d == floor(d) && d >= MIN_SIZE && d <= MAX_SIZE;
        if (k == 1 && d == 0.0) ok = 1;
        char p[32];
        snprintf(p, sizeof p, "render.%s", sizes[k]);
        if (!ok)
            return eddy_scene_fail_expected(s, err, p, v,
                                            k == 0 ? "a whole number of pixels in [16, 16384]"
                                                   : "a whole number of pixels in [16, 16384], or 0 (from the view)");
        *dst[k] = (int)d;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(sec, "background"))) {
        if (cJSON_IsString(v) && !strcmp(v->valuestring, "light")) r->dark = 0;
        else if (cJSON_IsString(v) && !strcmp(v->valuestring, "dark")) r->dark = 1;
        else return eddy_scene_fail_expected(s, err, "render.background", v, "\"light\" or \"dark\"");
    }
    if ((rc = scene_bool(s, err, sec, "colorbar", &r->colorbar)) || (rc = scene_bool(s, err, sec, "time", &r->show_time)))
        return rc;
    if ((rc = eddy_scene_get_number(s, err, sec, "render", "fps", 0, 0.1, 240.0, r->fps, &r->fps, NULL))) return rc;
    if ((rc = eddy_scene_get_number(s, err, sec, "render", "radius", 0, 0.01, 100.0, 1.0, &r->radius_factor, NULL)))
        return rc;
    return EDDY_OK;
}

int eddy_render_open(const eddy_scene *scene, const eddy_world *w, const eddy_render_request *req, const char *out_dir,
                     eddy_renderer **out, eddy_error *err)
{
    *out = NULL;
    eddy_render_request none = eddy_render_default_request();
    if (!req) req = &none;
    eddy_renderer *r = calloc(1, sizeof *r);
    if (!r) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "render: out of memory");
    r->dimensions = w ? w->dimensions : scene->dimensions;
    r->scene_scale = scene->simulation_scale;
    snprintf(r->field, sizeof r->field, "speed");
    snprintf(r->field_prefix, sizeof r->field_prefix, "render: ");
    snprintf(r->camera_prefix, sizeof r->camera_prefix, "render: camera: ");
    r->width = DEFAULT_WIDTH;
    r->colorbar = r->show_time = 1;
    r->radius_factor = 1.0;
    /* Real time by default: one output interval of simulated time per frame. */
    r->fps = scene->output_interval > 0.0 ? fmin(60.0, fmax(1.0, 1.0 / scene->output_interval)) : 25.0;

    int rc = read_section(r, scene, err);
    if (!rc && req->camera) {
        eddy_error e;
        snprintf(r->camera_prefix, sizeof r->camera_prefix, "--camera '%.400s': ", req->camera);
        if (parse_camera_spec(req->camera, r->dimensions, &r->cam, &e) || check_camera(&r->cam, &e))
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s", r->camera_prefix, e.message);
    }
    if (!rc && req->range) rc = parse_range_option(req->range, &r->range_mode, &r->range_lo, &r->range_hi, err);
    if (!rc && req->width) {
        if (req->width < MIN_SIZE || req->width > MAX_SIZE)
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--render-width %d: expected %d..%d pixels", req->width,
                                MIN_SIZE, MAX_SIZE);
        r->width = req->width;
    }
    if (!rc && req->field) {
        if (!req->field[0] || strlen(req->field) >= sizeof r->field)
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--render-field '%s': expected a field name of 1 to %zu characters",
                                req->field, sizeof r->field - 1);
        snprintf(r->field, sizeof r->field, "%s", req->field);
        snprintf(r->field_prefix, sizeof r->field_prefix, "--render-field: ");
    }
    r->movie = req->movie;
    if (rc || !(req->enabled || req->movie)) {
        eddy_render_destroy(r);
        return rc;
    }
    if (w && (rc = bind_field(r, &w->particles, err))) {
        eddy_render_destroy(r);
        return rc;
    }
    size_t n = strlen(out_dir);
    r->out_dir = malloc(n + 1);
    r->render_dir = malloc(n + 8);
    if (!r->out_dir || !r->render_dir) {
        eddy_render_destroy(r);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    memcpy(r->out_dir, out_dir, n + 1);
    snprintf(r->render_dir, n + 8, "%s/render", out_dir);
    if ((rc = eddy_output_make_dirs(r->render_dir, err))) {
        eddy_render_destroy(r);
        return rc;
    }
    *out = r;
    return EDDY_OK;
}

void eddy_render_destroy(eddy_renderer *r)
{
    if (!r) return;
    free(r->out_dir);
    free(r->render_dir);
    free(r->keys);
    free(r->values);
    free(r);
}
