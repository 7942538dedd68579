/*
 * host/scene/scene_output.c — the schema of `output` (dir, format: the writer ids) and of the component
 * sections (solvers, grids, output.writers), whose contents scene_components.c checks against the
 * registered components.
 *
 * Depends on: scene_values.c, scene_errors.c, scene_world.c (scene_is_id, scene_parse_id).
 */
#include "scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const OUTPUT_KEYS[] = {"dir", "format", "writers", "overlap", NULL};

/* solvers / grids / output.writers: an object of objects; the contents are checked by
 * eddy_scene_component_params, the ids by eddy_scene_check_components. */
int scene_parse_component_sections(ctx *c, const cJSON *parent, const char *parent_path, const char *key)
{
    const cJSON *o;
    int rc;
    char path[PATH_BUF];
    scene_path_key(path, parent_path, key);
    if ((rc = scene_get_object(c, parent, parent_path, key, 0, "an object {component id: {parameter: value}}",
                               &o)) ||
        !o)
        return rc;
    if ((rc = scene_check_keys(c, o, path, NULL))) return rc;
    for (const cJSON *m = o->child; m; m = m->next) {
        char p[PATH_BUF];
        scene_path_key(p, path, m->string ? m->string : "");
        if (!cJSON_IsObject(m)) return scene_fail_expected(c, p, m, "an object {parameter: value}");
    }
    return EDDY_OK;
}

/* One writer id of output.format (at path / node), appended to scene->formats. */
static int add_format(ctx *c, const char *path, const cJSON *node, const char *tok, size_t len)
{
    eddy_scene *s = c->s;
    char id[EDDY_SCENE_ID_MAX];
    int ok = len > 0 && len < sizeof id;
    if (ok) {
        memcpy(id, tok, len);
        id[len] = '\0';
        ok = scene_is_id(id);
    }
    if (!ok) {
        char shown[64];
        return scene_fail(c, path, node, AT_VALUE, "expected a writer id (1 to 63 characters of [a-z0-9_]), got \"%s\"",
                          scene_token_text(tok, len, shown, sizeof shown));
    }
    for (size_t i = 0; i < s->format_count; ++i)
        if (strcmp(s->formats[i], id) == 0)
            return scene_fail(c, path, node, AT_VALUE, "expected each writer once, got \"%s\" again", id);
    if (s->format_count >= EDDY_SCENE_FORMAT_MAX)
        return scene_fail(c, path, node, AT_VALUE, "expected at most %d writers", EDDY_SCENE_FORMAT_MAX);
    snprintf(s->formats[s->format_count++], EDDY_SCENE_ID_MAX, "%s", id);
    return EDDY_OK;
}

/* output.format `f` (an array of writer ids or a comma-separated string) into scene->formats. */
static int parse_formats(ctx *c, const cJSON *f)
{
    eddy_scene *s = c->s;
    int rc;
    s->format_count = 0;
    if (cJSON_IsArray(f)) {
        size_t i = 0;
        for (const cJSON *e = f->child; e; e = e->next, ++i) {
            char ep[PATH_BUF];
            scene_path_index(ep, "output.format", i);
            if (!cJSON_IsString(e)) return scene_fail_expected(c, ep, e, "a writer id (\"vtk\", \"csv\", ...)");
            if ((rc = add_format(c, ep, e, e->valuestring, strlen(e->valuestring)))) return rc;
        }
    } else if (cJSON_IsString(f)) {
        /* A blank string is the empty list; an empty entry ("vtk,,csv", "vtk,", ",") is a typo that
           would otherwise drop a writer unnoticed. */
        const char *p = f->valuestring;
        if (p[strspn(p, " ")] != '\0')
            for (;;) {
                const char *t = p + strspn(p, " ");
                const char *end = t + strcspn(t, ",");
                const char *e = end;
                while (e > t && e[-1] == ' ') --e;
                if (e == t) {
                    char b[64];
                    return scene_fail(c, "output.format", f, AT_VALUE,
                                      "expected writer ids separated by single commas, got an empty entry in %s",
                                      scene_describe(f, b, sizeof b));
                }
                if ((rc = add_format(c, "output.format", f, t, (size_t)(e - t)))) return rc;
                if (*end == '\0') break;
                p = end + 1;
            }
    } else {
        return scene_fail_expected(c, "output.format", f,
                                   "an array of writer ids (\"vtk\", \"csv\", ...) or a comma-separated string");
    }
    return EDDY_OK;
}

int scene_parse_output(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *o;
    int rc;
    char def_dir[EDDY_SCENE_PATH_MAX];
    snprintf(def_dir, sizeof def_dir, "out/%s", s->name);
    s->format_count = 1;
    snprintf(s->formats[0], EDDY_SCENE_ID_MAX, "vtk");
    snprintf(s->out_dir, sizeof s->out_dir, "%s", def_dir);
    s->output_overlap = 1;
    if ((rc = scene_get_object(c, root, "", "output", 0, "an object {dir, format, writers, overlap}", &o)) || !o)
        return rc;
    if ((rc = scene_check_keys(c, o, "output", OUTPUT_KEYS)) ||
        (rc = scene_get_string(c, o, "output", "dir", 0, def_dir, s->out_dir, sizeof s->out_dir, 1)) ||
        (rc = scene_get_bool(c, o, "output", "overlap", 1, &s->output_overlap)) ||
        (rc = scene_parse_component_sections(c, o, "output", "writers")))
        return rc;
    const cJSON *f = scene_member(o, "format");
    return f ? parse_formats(c, f) : EDDY_OK;
}

int scene_check_replaced_values(ctx *c, const cJSON *root)
{
    char id[EDDY_SCENE_ID_MAX], dir[EDDY_SCENE_PATH_MAX];
    int rc;
    if ((rc = scene_parse_id(c, root, "solver", 0, "", id)) || (rc = scene_parse_id(c, root, "grid", 0, "", id)))
        return rc;
    /* (an output that is no object: the --out that goes into it would be blamed for the file's value) */
    const cJSON *o;
    if ((rc = scene_get_object(c, root, "", "output", 0, "an object {dir, format, writers, overlap}", &o)) || !o)
        return rc;
    if ((rc = scene_get_string(c, o, "output", "dir", 0, NULL, dir, sizeof dir, 1))) return rc;
    const cJSON *f = scene_member(o, "format");
    /* (the formats it fills are set again by scene_parse_output) */
    return f ? parse_formats(c, f) : EDDY_OK;
}
