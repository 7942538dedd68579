/*
 * host/scene/scene.c — the scene document's entry points: read a file, parse its JSON, apply the --set
 * overrides, and interpret the sections in order (each in its own file, scene_internal.h lists them);
 * free a scene.
 *
 * Depends on: every schema file (scene_world.c, scene_materials.c, scene_fluids.c, scene_colliders.c,
 * scene_output.c), scene_path.c (--set), scene_document.c (malformed JSON), scene_errors.c.
 */
#include "scene_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const TOP_KEYS[] = {"name",   "description", "solver",    "grid",
                                       "dimensions", "time",    "world",     "container",
                                       "domain", "materials",   "fluids",    "colliders",
                                       "vortices", "solvers",   "grids",     "output",
                                       /* read by the probes, render and checkpoint modules */
                                       "probes", "render",      "checkpoint", NULL};

static int interpret_sections(ctx *c)
{
    eddy_scene *s = c->s;
    const cJSON *root = s->root;
    int rc;
    if ((rc = scene_check_keys(c, root, "", TOP_KEYS))) return rc;
    const cJSON *dim = scene_member(root, "dimensions");
    s->dimensions = 3;
    if (dim) {
        if (!cJSON_IsNumber(dim) || !(dim->valuedouble == 2.0 || dim->valuedouble == 3.0))
            return scene_fail_expected(c, "dimensions", dim, "2 or 3");
        s->dimensions = (int)dim->valuedouble;
    }
    const cJSON *desc = scene_member(root, "description");
    if (desc && !cJSON_IsString(desc)) return scene_fail_expected(c, "description", desc, "a string");
    if ((rc = scene_parse_name(c, root)) || (rc = scene_parse_id(c, root, "solver", 1, NULL, s->solver)) ||
        (rc = scene_parse_id(c, root, "grid", 0, "cpu", s->grid)) || (rc = scene_parse_time(c, root)) ||
        (rc = scene_parse_world(c, root)) || (rc = scene_parse_container(c, root)) ||
        (rc = scene_parse_domain(c, root)) || (rc = scene_parse_materials(c, root)) ||
        (rc = scene_parse_fluids(c, root)) || (rc = scene_parse_colliders(c, root)) ||
        (rc = scene_parse_vortices(c, root)) ||
        (rc = scene_parse_component_sections(c, root, "", "solvers")) ||
        (rc = scene_parse_component_sections(c, root, "", "grids")) || (rc = scene_parse_output(c, root)))
        return rc;
    return EDDY_OK;
}

/* The sections in order, with the material name index they share. */
static int interpret(ctx *c)
{
    name_index names = {0};
    c->material_names = &names;
    int rc = interpret_sections(c);
    c->material_names = NULL;
    scene_name_index_free(&names);
    return rc;
}

/* eddy_scene_check_written's check for the parse: the file as written interpreted like the scene. */
static int interpret_view(void *user, const eddy_scene *view, eddy_error *err)
{
    (void)user;
    ctx c = {(eddy_scene *)view, err, NULL};
    return interpret(&c);
}

/* scene->written, not yet interpreted: a copy of the document as written, and the values the overrides
 * replace. No override goes into it, not even one that adds a key the file lacks: an added key changes
 * how the file's own values are judged (an added simulation_scale rescales the radius a replaced spacing
 * is held against), so the copy would be neither the file nor the run. A key the file lacks is then an
 * error of the copy that points at no replaced value, which leaves the check to the run's values. */
static int make_written(eddy_scene *s, const char *const *sets, size_t n, eddy_error *err)
{
    eddy_scene *w = calloc(1, sizeof *w);
    eddy_scene_replaced *r = calloc(1, sizeof *r);
    const cJSON **nodes = calloc(n, sizeof *nodes);
    cJSON *root = w && r && nodes ? cJSON_Duplicate(s->root, 1) : NULL;
    if (!root) {
        free(w);
        free(r);
        free(nodes);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(w->file, s->file, sizeof w->file);
    w->text = s->text;
    w->text_dimensions = s->text_dimensions;
    w->root = root;
    w->replaced = r;
    r->nodes = nodes;
    s->written = w;
    for (size_t i = 0; i < n; ++i)
        if (sets[i] && scene_set_effect(root, sets[i], &nodes[r->count]) == SET_REPLACES) ++r->count;
    return EDDY_OK;
}

/*
 * The overrides into the tree. A file is refused for a value whether or not an override replaces it:
 * when one replaces a value of the file (or is in the way of one), the file as written is interpreted
 * first, by the same code, and its error is the error when it points at a replaced value
 * (eddy_scene_check_written). Overrides that only add leave every value of the file as it is: the tree
 * is then interpreted once.
 */
static int apply_overrides(ctx *c, const char *const *sets, size_t n)
{
    eddy_scene *s = c->s;
    int replaces = 0;
    for (size_t i = 0; i < n && !replaces; ++i) {
        const cJSON *node;
        replaces = sets[i] && scene_set_effect(s->root, sets[i], &node) == SET_REPLACES;
    }
    int rc;
    if (replaces && ((rc = make_written(s, sets, n, c->err)) ||
                     (rc = eddy_scene_check_written(s, interpret_view, NULL, c->err))))
        return rc;
    for (size_t i = 0; i < n; ++i)
        if (sets[i] && (rc = scene_apply_set(s, sets[i], c->err))) return rc;
    return EDDY_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Public entry points                                                                               */
/* ------------------------------------------------------------------------------------------------ */

int eddy_scene_has_format(const eddy_scene *scene, const char *id)
{
    for (size_t i = 0; scene && id && i < scene->format_count; ++i)
        if (strcmp(scene->formats[i], id) == 0) return 1;
    return 0;
}

void eddy_scene_free(eddy_scene *scene)
{
    if (!scene) return;
    free(scene->materials);
    free(scene->colliders);
    free(scene->collider_moving_until);
    free(scene->fluids);
    if (scene->written) {
        scene->written->text = NULL; /* (the scene's) */
        eddy_scene_free(scene->written);
        free(scene->written);
    }
    scene_free_set_origins(scene);
    if (scene->replaced) free(scene->replaced->nodes);
    free(scene->replaced);
    cJSON_Delete(scene->root);
    free(scene->text);
    memset(scene, 0, sizeof *scene);
}

int eddy_scene_parse(const char *text, const char *file, const char *const *sets, size_t set_count,
                     eddy_scene *scene, eddy_error *err)
{
    if (!scene) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_parse: scene is NULL");
    memset(scene, 0, sizeof *scene);
    if (file) snprintf(scene->file, sizeof scene->file, "%s", file);
    if (!text) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: no scene text", scene_file(scene));
    if ((unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF)
        text += 3; /* UTF-8 byte order mark */
    /* JSON text is UTF-8 (RFC 8259): a Latin-1 name became a folder name no other tool could read. */
    const size_t bad = scene_utf8_invalid_at(text);
    if (bad != SIZE_MAX) {
        int line, col;
        scene_offset_linecol(text, bad, &line, &col);
        return eddy_error_set(err, EDDY_ERR_PARSE, "%s:%d:%d: malformed JSON: expected UTF-8 text, got the byte 0x%02X",
                              scene_file(scene), line, col, (unsigned)(unsigned char)text[bad]);
    }
    const size_t nul = scene_nul_escape_at(text);
    if (nul != SIZE_MAX) {
        int line, col;
        scene_offset_linecol(text, nul, &line, &col);
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "%s:%d:%d: a string holds the escape \\u0000 (a NUL character), which no key, name or "
                              "path can contain", scene_file(scene), line, col);
    }
    scene->text = strdup(text);
    if (!scene->text) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    const char *end = NULL;
    scene->root = cJSON_ParseWithOpts(scene->text, &end, 1);
    int rc;
    ctx c = {scene, err, NULL};
    if (!scene->root) {
        rc = scene_malformed(scene, scene->text, end ? end : cJSON_GetErrorPtr(), err);
        goto fail;
    }
    /* Checked before the overrides, which cannot replace the top level (a path is never empty). */
    if (!cJSON_IsObject(scene->root)) {
        rc = scene_fail_expected(&c, "", scene->root, "a JSON object at the top level");
        goto fail;
    }
    const cJSON *dims = scene_member(scene->root, "dimensions");
    scene->text_dimensions = cJSON_IsNumber(dims) && dims->valuedouble == 2.0 ? 2 : 3;
    if (sets && set_count && ((rc = scene_check_replaced_values(&c, scene->root)) ||
                              (rc = apply_overrides(&c, sets, set_count))))
        goto fail;
    if ((rc = interpret(&c))) goto fail;
    return EDDY_OK;
fail:
    eddy_scene_free(scene);
    return rc;
}

int eddy_scene_load(const char *path, const char *const *sets, size_t set_count, eddy_scene *scene,
                    eddy_error *err)
{
    if (scene) memset(scene, 0, sizeof *scene);
    if (!path) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "no scene file given");
    FILE *f = fopen(path, "rb");
    if (!f) return eddy_error_set(err, EDDY_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 4096) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        /* A NUL ends what can be a scene: stop at once, so /dev/zero or a binary file is refused
         * below instead of read forever; and a stream that never ends (a pipe) at the size cap. */
        const int nul = got && memchr(buf + len, '\0', got) != NULL;
        len += got;
        if (got == 0 || nul) break;
        if (len > EDDY_SCENE_FILE_MAX) {
            free(buf);
            fclose(f);
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "'%s' is larger than %d MiB, the most a scene file may be",
                                  path, EDDY_SCENE_FILE_MAX >> 20);
        }
    }
    int bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(buf);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot read '%s': %s", path, strerror(saved));
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        size_t at = strlen(buf);
        int line, col;
        scene_offset_linecol(buf, at, &line, &col);
        free(buf);
        return eddy_error_set(err, EDDY_ERR_PARSE, "%s:%d:%d: malformed JSON: a NUL byte in the text", path,
                              line, col);
    }
    int rc = eddy_scene_parse(buf, path, sets, set_count, scene, err);
    free(buf);
    return rc;
}
