/*
 * host/viz/render_setup.c — how a renderer comes to be: the command line's request, the scene's
 * "render" section, the --camera syntax, binding the field, presets (picture.png), and its end.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "render_internal.h"

eddy_render_request eddy_render_default_request(void)
{
    eddy_render_request r;
    memset(&r, 0, sizeof r);
    return r;
}


static const char CAMERA_KEYS_TEXT[] = "eye, target, up, view, projection, fov, span, zoom";

#define FLOAT_RANGE_TEXT "numbers of at most 3.4e+38 in magnitude (the float range)"

/* Parses "x,y,z" (2D: "x,y" too, z = 0): 1, or 0 for bad syntax, or -1 for a number beyond the float
 * range (cast to float it would turn infinite and the camera into NaN: a blank image, no error). */
static int parse_numbers(const char *s, int dimensions, float out[3])
{
    double v[3] = {0, 0, 0};
    int n = 0, huge = 0;
    const char *p = s;
    while (1) {
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || !isfinite(x) || errno == ERANGE || n == 3) return 0;
        if (fabs(x) > FLT_MAX) huge = 1;
        v[n++] = x;
        p = end;
        while (*p == ' ') ++p;
        if (*p == '\0') break;
        if (*p != ',') return 0;
        ++p;
    }
    if (!(n == 3 || (n == 2 && dimensions == 2))) return 0;
    if (huge) return -1;
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
            const int ok = parse_numbers(val, dimensions, dst);
            if (ok <= 0)
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: expected %s, got \"%s\"", key,
                                      ok < 0 ? FLOAT_RANGE_TEXT : vector_expected(dimensions), val);
            if (k == 0) cam->has_eye = 1;
            if (k == 1) cam->has_target = 1;
            if (k == 2) cam->has_up = 1;
            break;
        }
        case 3: {
            const int ok = parse_axis(val, cam->view) ? 1 : parse_numbers(val, dimensions, cam->view);
            if (ok < 0)
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "view: expected %s, got \"%s\"", FLOAT_RANGE_TEXT,
                                      val);
            if (!ok)
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "view: expected an axis (+x, -x, +y, -y, +z, -z) or a direction of %s, got \"%s\"",
                                      vector_expected(dimensions), val);
            cam->has_view = 1;
            break;
        }
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


static int set_prefix_from_scene(const eddy_scene *scene, const char *path, const cJSON *node, char *out)
{
    /* The scene module formats positions; borrowing it keeps "FILE:LINE:COL: path: " identical. */
    eddy_error tmp;
    eddy_scene_fail_at(scene, &tmp, path, node, "%s", "");
    snprintf(out, PREFIX_MAX, "%s", tmp.message);
    return 0;
}

/* Binds r->field to a particle field of `w`. */
int render_bind_field(eddy_renderer *r, const eddy_world *w, eddy_error *err)
{
    const eddy_particles *p = &w->particles;
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
    /* Lengths and velocities are drawn in world units (value / simulation_scale): metres only at scale 1.
     * A scene in centimetres (scale 0.01) had its 1..39 labelled m. */
    const int metres = render_world_scale(r, w) == 1.0f;
    switch (id) {
    case EDDY_FIELD_POSITION: unit = metres ? "m" : "world units"; break;
    case EDDY_FIELD_VELOCITY: unit = metres ? "m/s" : "world units/s"; break;
    case EDDY_FIELD_DENSITY: unit = "kg/m^3"; break; /* 2D too: masses are per unit depth */
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

/* The scene's vectors are positions in the simulated plane, so in 2D their z is dropped; a camera's
 * are not: an eye stands off the plane, a view looks along -z. An array of 3 already read (and checked)
 * by eddy_scene_get_vector keeps its z here, as the --camera syntax keeps it. */
static void camera_keeps_z(const eddy_scene *s, const cJSON *array, float out[3])
{
    if (s->dimensions == 2 && cJSON_IsArray(array) && cJSON_GetArraySize(array) == 3)
        out[2] = (float)cJSON_GetArrayItem(array, 2)->valuedouble;
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
        camera_keeps_z(s, cJSON_GetObjectItemCaseSensitive(v, vk[k]), dst[k]);
        *has[k] = 1;
    }
    const cJSON *view = cJSON_GetObjectItemCaseSensitive(v, "view");
    if (view) {
        int ok = cJSON_IsString(view) && view->valuestring && parse_axis(view->valuestring, cam->view);
        if (!ok && cJSON_IsArray(view)) {
            eddy_error ignored;
            ok = eddy_scene_get_vector(s, &ignored, v, path, "view", 1, NULL, cam->view) == 0;
            if (ok) camera_keeps_z(s, view, cam->view);
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

int eddy_render_check_request(const eddy_render_request *req, eddy_error *err)
{
    if (req->camera) {
        camera cam;
        eddy_error e;
        /* Two dimensions: their vectors take 2 or 3 numbers, so every camera some scene takes passes. */
        if (parse_camera_spec(req->camera, 2, &cam, &e))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--camera '%.400s': %s", req->camera, e.message);
    }
    int mode;
    double lo, hi;
    if (req->range) return parse_range_option(req->range, &mode, &lo, &hi, err);
    return EDDY_OK;
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
    r->colorbar = r->show_time = r->outline = r->shaded = 1;
    r->radius_factor = 1.0;
    /* Real time by default: one output interval of simulated time per frame. */
    r->fps = scene->output_interval > 0.0 ? fmin(60.0, fmax(1.0, 1.0 / scene->output_interval)) : 25.0;
    /* Enough decimals that frames one output interval apart never show the same time. */
    r->time_decimals = 3;
    if (scene->output_interval > 0.0 && scene->output_interval < 1e-3)
        r->time_decimals = (int)fmin(9.0, ceil(-log10(scene->output_interval) - 1e-9));

    int rc = read_section(r, scene, err);
    if (!rc && req->camera) {
        eddy_error e;
        snprintf(r->camera_prefix, sizeof r->camera_prefix, "--camera '%.400s': ", req->camera);
        if (parse_camera_spec(req->camera, r->dimensions, &r->cam, &e) || check_camera(&r->cam, &e))
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s", r->camera_prefix, e.message);
    }
    if (!rc && req->range) rc = parse_range_option(req->range, &r->range_mode, &r->range_lo, &r->range_hi, err);
    r->wide_bar = req->range_was_pending != 0;
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
    if (w && (rc = render_bind_field(r, w, err))) {
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
    free(r->values);
    free(r);
}

/* ---------------------------------------------------------------------------------------------- */
/* Presets: a renderer from settings alone (picture.png)                                          */

int eddy_render_create(const eddy_render_preset *p, int dimensions, eddy_renderer **out, eddy_error *err)
{
    *out = NULL;
    if (p->width < MIN_SIZE || p->width > MAX_SIZE || (p->height != 0 && (p->height < MIN_SIZE || p->height > MAX_SIZE)))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "render: size %d x %d is out of range (width %d..%d, height 0 or %d..%d)",
                              p->width, p->height, MIN_SIZE, MAX_SIZE, MIN_SIZE, MAX_SIZE);
    eddy_renderer *r = calloc(1, sizeof *r);
    if (!r) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "render: out of memory");
    r->dimensions = dimensions;
    snprintf(r->field, sizeof r->field, "%s", p->field ? p->field : "speed");
    snprintf(r->field_prefix, sizeof r->field_prefix, "render: ");
    snprintf(r->camera_prefix, sizeof r->camera_prefix, "render: camera: ");
    r->width = p->width;
    r->height = p->height;
    r->dark = p->dark;
    r->colorbar = p->colorbar;
    r->show_time = p->show_time;
    r->outline = p->outline;
    r->shaded = p->shaded;
    r->radius_factor = 1.0;
    r->scale_override = p->simulation_scale;
    r->range_mode = p->range_max > p->range_min ? RANGE_FIXED : p->range_from_zero ? RANGE_FROM_ZERO : RANGE_RULE;
    r->range_lo = p->range_min;
    r->range_hi = p->range_max;
    if (p->has_bounds) {
        r->has_bounds = 1;
        for (int a = 0; a < 3; ++a) {
            r->bounds_lo[a] = p->bounds_min[a];
            r->bounds_hi[a] = p->bounds_max[a];
        }
    }
    if (p->camera) {
        eddy_error e;
        if (parse_camera_spec(p->camera, dimensions, &r->cam, &e) || check_camera(&r->cam, &e)) {
            eddy_render_destroy(r);
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s", r->camera_prefix, e.message);
        }
    }
    *out = r;
    return EDDY_OK;
}

