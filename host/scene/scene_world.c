/*
 * host/scene/scene_world.c — the schema of the scene's frame: name, component ids (solver, grid), time,
 * world, container and domain, and the effective domain other sections and the world use.
 *
 * Depends on: scene_values.c, scene_errors.c, scene_path.c.
 */
#include "scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const TIME_KEYS[] = {"dt", "end", "output_interval", "min_dt_fraction", NULL};
static const char *const WORLD_KEYS[] = {"simulation_scale", "gravity", "smoothing_radius", "threads",
                                         NULL};
static const char *const DOMAIN_KEYS[] = {"min", "max", "periodic", "out_of_domain", NULL};

/* The domain in world units: the `domain` section, else the container widened by one smoothing
 * radius on bounded axes. 2D: z = 0. Returns 0 when there is neither. */
int scene_effective_domain(const eddy_scene *s, eddy_real lo[3], eddy_real hi[3])
{
    for (int a = 0; a < 3; ++a) lo[a] = hi[a] = 0.0f;
    if (s->has_domain) {
        for (int a = 0; a < s->dimensions; ++a) { lo[a] = s->domain_min[a]; hi[a] = s->domain_max[a]; }
        return 1;
    }
    if (!s->has_container) return 0;
    eddy_real widen = s->smoothing_radius / s->simulation_scale;
    for (int a = 0; a < s->dimensions; ++a) {
        lo[a] = s->container_min[a];
        hi[a] = s->container_max[a];
        if (!s->periodic[a]) { lo[a] -= widen; hi[a] += widen; }
    }
    return 1;
}

int scene_is_id(const char *s)
{
    if (!*s) return 0;
    for (; *s; ++s)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
    return 1;
}

int scene_parse_id(ctx *c, const cJSON *root, const char *key, int required, const char *def,
                   char *out)
{
    const cJSON *v = scene_member(root, key);
    const char *exp = "a component id (1 to 63 characters of [a-z0-9_])";
    if (!v) {
        if (required) return scene_fail_missing(c, "", root, key, exp);
        snprintf(out, EDDY_SCENE_ID_MAX, "%s", def);
        return EDDY_OK;
    }
    if (!cJSON_IsString(v) || !v->valuestring || strlen(v->valuestring) >= EDDY_SCENE_ID_MAX ||
        !scene_is_id(v->valuestring))
        return scene_fail_expected(c, key, v, exp);
    snprintf(out, EDDY_SCENE_ID_MAX, "%s", v->valuestring);
    return EDDY_OK;
}

static void default_name(const char *file, char *out)
{
    const char *base = file && *file ? file : "scene";
    const char *slash = strrchr(base, '/');
    if (slash) base = slash + 1;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0) len -= 5;
    if (len == 0) { base = "scene"; len = 5; }
    if (len >= EDDY_SCENE_ID_MAX) len = EDDY_SCENE_ID_MAX - 1;
    while (len > 0 && ((unsigned char)base[len] & 0xC0) == 0x80) --len; /* whole UTF-8 characters */
    memcpy(out, base, len);
    out[len] = '\0';
    /* A name follows the rules of a written one: "..json" and "...json" named their runs "." and "..",
     * and wrote them into out/ and into the working folder itself. */
    for (char *p = out; *p; ++p)
        if ((unsigned char)*p < 0x20 || *p == '\\') *p = '_';
    if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0 || !out[0]) snprintf(out, EDDY_SCENE_ID_MAX, "scene");
}

int scene_parse_name(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *v = scene_member(root, "name");
    if (!v) {
        default_name(s->file, s->name);
        return EDDY_OK;
    }
    /* The name is the default output folder's last component (out/NAME): "." and ".." would put a run
     * in out/ or in the working folder itself. */
    const char *exp = "a non-empty string of at most 63 characters without '/', '\\' or control characters, "
                      "and not \".\" or \"..\"";
    if (!cJSON_IsString(v) || !v->valuestring || !v->valuestring[0] ||
        strlen(v->valuestring) >= EDDY_SCENE_ID_MAX || strchr(v->valuestring, '/') ||
        strchr(v->valuestring, '\\') || strcmp(v->valuestring, ".") == 0 || strcmp(v->valuestring, "..") == 0)
        return scene_fail_expected(c, "name", v, exp);
    for (const char *p = v->valuestring; *p; ++p)
        if ((unsigned char)*p < 0x20) return scene_fail_expected(c, "name", v, exp);
    snprintf(s->name, sizeof s->name, "%s", v->valuestring);
    return EDDY_OK;
}

/* The most output frames a scene may ask for over its end time. */
#define OUTPUT_FRAMES_MAX 1e6

int scene_parse_time(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *t;
    int rc;
    if ((rc = scene_get_object(c, root, "", "time", 1, "an object {dt, end, output_interval}", &t)) ||
        (rc = scene_check_keys(c, t, "time", TIME_KEYS)) ||
        (rc = scene_get_number(c, t, "time", "dt", 1, &NS_POS, 0, &s->dt, NULL)) ||
        (rc = scene_get_number(c, t, "time", "end", 1, &NS_POS, 0, &s->end_time, NULL)) ||
        (rc = scene_get_number(c, t, "time", "output_interval", 0, &NS_POS, s->end_time / 50.0,
                               &s->output_interval, NULL)) ||
        (rc = scene_get_number(c, t, "time", "min_dt_fraction", 0, &NS_FRACTION_OPEN, 1e-3, &s->min_dt_fraction,
                               NULL)))
        return rc;
    /* Frames fall exactly on multiples of the interval, the steps shortened to meet them: 1e-300 s
     * wrote a frame a step for ever, filling the disk while time stood still. */
    if (s->end_time / s->output_interval > OUTPUT_FRAMES_MAX)
        return scene_fail(c, "time.output_interval", scene_member(t, "output_interval"), AT_VALUE,
                          "expected at least time.end / %g = %g s (at most %g frames), got %g", OUTPUT_FRAMES_MAX,
                          s->end_time / OUTPUT_FRAMES_MAX, OUTPUT_FRAMES_MAX, s->output_interval);
    return EDDY_OK;
}

int scene_parse_world(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *w;
    static const eddy_real g_def[3] = {0.0f, -9.81f, 0.0f};
    double threads;
    int rc;
    if ((rc = scene_get_object(c, root, "", "world", 1, "an object {smoothing_radius, ...}", &w)) ||
        (rc = scene_check_keys(c, w, "world", WORLD_KEYS)) ||
        (rc = scene_get_real(c, w, "world", "simulation_scale", 0, &NS_POS, 1.0, &s->simulation_scale, NULL)) ||
        (rc = scene_get_direction(c, w, "world", "gravity", 0, g_def, s->gravity)) ||
        (rc = scene_get_real(c, w, "world", "smoothing_radius", 1, &NS_POS, 0, &s->smoothing_radius, NULL)) ||
        (rc = scene_get_number(c, w, "world", "threads", 0, &NS_THREADS, 0, &threads, NULL)))
        return rc;
    /* An acceleration whose square overflows a float makes the force limit 0 (world.c): no time step is
     * stable, and the run stopped at its first step, after the output folder's previous run was cleared. */
    const float g2 = s->gravity[0] * s->gravity[0] + s->gravity[1] * s->gravity[1] + s->gravity[2] * s->gravity[2];
    if (isinf(g2))
        return scene_fail(c, "world.gravity", scene_member(w, "gravity"), AT_VALUE,
                          "expected a magnitude below 1.8446743525e19 (sim units/s^2; its square must fit single precision, "
                          "or no time step is stable), got %.8g",
                          sqrt((double)s->gravity[0] * s->gravity[0] + (double)s->gravity[1] * s->gravity[1] +
                               (double)s->gravity[2] * s->gravity[2]));
    s->threads = (int)threads;
    return EDDY_OK;
}

int scene_parse_container(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *o;
    int rc;
    if ((rc = scene_get_object(c, root, "", "container", 0, "an object {min, max}", &o))) return rc;
    if (!o) return EDDY_OK;
    if ((rc = scene_check_keys(c, o, "container", MINMAX_KEYS)) ||
        (rc = scene_get_vector(c, o, "container", "min", 1, NULL, s->container_min)) ||
        (rc = scene_get_vector(c, o, "container", "max", 1, NULL, s->container_max)) ||
        (rc = scene_check_min_max(c, o, "container", s->container_min, s->container_max)))
        return rc;
    s->has_container = 1;
    return EDDY_OK;
}

int scene_parse_domain(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *o;
    int rc;
    if ((rc = scene_get_object(c, root, "", "domain", 0, "an object {min, max, periodic, out_of_domain}", &o)))
        return rc;
    if (o) {
        if ((rc = scene_check_keys(c, o, "domain", DOMAIN_KEYS))) return rc;
        const cJSON *mn = scene_member(o, "min"), *mx = scene_member(o, "max");
        if (mn || mx) {
            if ((rc = scene_get_vector(c, o, "domain", "min", 1, NULL, s->domain_min)) ||
                (rc = scene_get_vector(c, o, "domain", "max", 1, NULL, s->domain_max)) ||
                (rc = scene_check_min_max(c, o, "domain", s->domain_min, s->domain_max)))
                return rc;
            s->has_domain = 1;
        }
        const cJSON *per = scene_member(o, "periodic");
        if (per) {
            const char *exp = s->dimensions == 2 ? "an array of 2 (or 3) booleans" : "an array of 3 booleans";
            int n = cJSON_IsArray(per) ? cJSON_GetArraySize(per) : -1;
            if (!(n == s->dimensions || n == 3)) return scene_fail_length(c, "domain.periodic", per, exp);
            int i = 0;
            for (const cJSON *e = per->child; e; e = e->next, ++i) {
                char ep[PATH_BUF];
                scene_path_index(ep, "domain.periodic", (size_t)i);
                if (!cJSON_IsBool(e)) return scene_fail_expected(c, ep, e, "true or false");
                /* (a periodic z in 2D was dropped without a word, as a z-up gravity was) */
                if (i >= s->dimensions && cJSON_IsTrue(e)) return scene_fail_z(c, "domain.periodic", e, "true");
                s->periodic[i] = i < s->dimensions && cJSON_IsTrue(e);
            }
        }
        const cJSON *pol = scene_member(o, "out_of_domain");
        if (pol) {
            if (cJSON_IsString(pol) && strcmp(pol->valuestring, "error") == 0)
                s->out_of_domain = EDDY_DOMAIN_ERROR;
            else if (cJSON_IsString(pol) && strcmp(pol->valuestring, "remove") == 0)
                s->out_of_domain = EDDY_DOMAIN_REMOVE;
            else
                return scene_fail_expected(c, "domain.out_of_domain", pol, "\"error\" or \"remove\"");
        }
    }
    if (!s->has_domain && !s->has_container)
        return scene_fail_missing(c, "", root, "container",
                                  "an object {min, max} (or a domain with min and max)");
    if (!s->has_domain) scene_effective_domain(s, s->domain_min, s->domain_max);
    return EDDY_OK;
}

double eddy_scene_gravity_floor(const eddy_scene *scene)
{
    const eddy_real *lo = scene->has_container ? scene->container_min : scene->domain_min;
    const eddy_real *hi = scene->has_container ? scene->container_max : scene->domain_max;
    double g_dot_floor = 0.0;
    for (int a = 0; a < scene->dimensions; ++a) {
        const double g = scene->gravity[a];
        /* (positions in simulation units, as the particles' are) */
        g_dot_floor += g * (double)(g > 0 ? hi[a] : lo[a]) * (double)scene->simulation_scale;
    }
    return g_dot_floor;
}
