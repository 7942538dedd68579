#include "probes.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diagnostics.h"

#define PROBE_NAME_MAX 48
#define PATH_BUF 128

typedef struct probe {
    char name[PROBE_NAME_MAX];
    eddy_probe_kind kind;
    int axis, sign;            /* front, height: axis index and +1 / -1 */
    double max_gap;            /* world units; 0: the smoothing radius */
    double width;              /* height: half-width of the column, world units; 0: smoothing radius */
    float at[3];               /* height: base point; pressure: the point (world units) */
    float min[3], max[3];      /* density: the box (world units) */
    int has_reference;
    eddy_probe_reference ref;  /* strings and arrays owned */
} probe;

struct eddy_probes {
    int dimensions;
    size_t count;
    probe *items;
};

static const char *const KIND_NAMES[] = {"front", "height", "pressure", "density"};
static const char *const UNITS_2D[] = {"m", "m", "Pa", "kg/m^2"};
static const char *const UNITS_3D[] = {"m", "m", "Pa", "kg/m^3"};

/* Valid keys per kind: the common ones first. */
static const char *const FRONT_KEYS[] = {"name", "kind", "reference", "axis", "max_gap", NULL};
static const char *const HEIGHT_KEYS[] = {"name", "kind", "reference", "axis", "at", "width", "max_gap", NULL};
static const char *const PRESSURE_KEYS[] = {"name", "kind", "reference", "point", NULL};
static const char *const DENSITY_KEYS[] = {"name", "kind", "reference", "min", "max", NULL};
static const char *const REFERENCE_KEYS[] = {"file", "label", "columns", "time_scale", "value_scale",
                                             "value_offset", "time_label", "value_label", NULL};

/* ------------------------------------------------------------------------------------------------ */
/* Parsing                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static void free_reference(eddy_probe_reference *r)
{
    free((char *)r->file);
    free((char *)r->label);
    free((char *)r->x_label);
    free((char *)r->y_label);
    free((double *)r->x);
    free((double *)r->y);
    memset(r, 0, sizeof *r);
}

/* "PARENT.KEY: missing required key, expected EXP" at the parent object, as scene.c words it. */
static int fail_missing(const eddy_scene *s, eddy_error *err, const char *parent, const char *key,
                        const char *expected)
{
    int line = 0, col = 0;
    eddy_scene_locate(s, parent, &line, &col);
    char pos[48] = "";
    if (line > 0) snprintf(pos, sizeof pos, ":%d:%d", line, col);
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s: %s.%s: missing required key, expected %s",
                          s->file[0] ? s->file : "<scene>", pos, parent, key, expected);
}

/* Optional number > 0 (0 stays in *out when absent). */
static int get_positive(const eddy_scene *s, eddy_error *err, const cJSON *o, const char *path,
                        const char *key, double *out)
{
    int present = 0;
    double v = 0;
    int rc = eddy_scene_get_number(s, err, o, path, key, 0, -INFINITY, INFINITY, 0, &v, &present);
    if (rc || !present) return rc;
    if (!(v > 0)) {
        char mp[PATH_BUF];
        snprintf(mp, sizeof mp, "%s.%s", path, key);
        return eddy_scene_fail_expected(s, err, mp, cJSON_GetObjectItemCaseSensitive(o, key), "a number > 0");
    }
    *out = v;
    return EDDY_OK;
}

static int parse_axis(const eddy_scene *s, eddy_error *err, const cJSON *o, const char *path, probe *pr)
{
    const char *exp = s->dimensions == 2 ? "\"x\", \"y\", \"-x\" or \"-y\""
                                         : "\"x\", \"y\", \"z\", \"-x\", \"-y\" or \"-z\"";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "axis");
    if (!v) return fail_missing(s, err, path, "axis", exp);
    const char *t = cJSON_IsString(v) ? v->valuestring : NULL;
    pr->sign = 1;
    if (t && t[0] == '-') {
        pr->sign = -1;
        ++t;
    }
    if (!t || !t[0] || t[1] || t[0] < 'x' || t[0] >= 'x' + s->dimensions) {
        char mp[PATH_BUF];
        snprintf(mp, sizeof mp, "%s.axis", path);
        return eddy_scene_fail_expected(s, err, mp, v, exp);
    }
    pr->axis = t[0] - 'x';
    return EDDY_OK;
}

/* Letters, digits, '_', '-', '.': a CSV column and a file name as it is. */
static int valid_name(const char *n)
{
    if (!n[0]) return 0;
    for (const char *c = n; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '-' || *c == '.'))
            return 0;
    return 1;
}

/* The scene's folder joined with `name` (unless absolute, or the scene has no folder). */
static char *resolve_path(const eddy_scene *s, const char *name)
{
    const char *slash = strrchr(s->file, '/');
    if (name[0] == '/' || !slash) return dup_str(name);
    size_t dl = (size_t)(slash - s->file) + 1, nl = strlen(name);
    char *p = malloc(dl + nl + 1);
    if (!p) return NULL;
    memcpy(p, s->file, dl);
    memcpy(p + dl, name, nl + 1);
    return p;
}

/* Splits a CSV line in place at commas, trimming blanks around each field; returns the count. */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
    for (char *p = line;;) {
        while (*p == ' ' || *p == '\t') ++p;
        char *start = p;
        while (*p && *p != ',') ++p;
        char *end = p;
        while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
            --end;
        int last = *p == '\0';
        *end = '\0';
        if (n < max) fields[n++] = start;
        if (last) break;
        ++p;
    }
    return n;
}

#define REF_MAX_COLUMNS 64
#define REF_LINE_MAX 4096

/*
 * Reads the reference table: '#' lines and blank lines skipped, a header, then rows whose columns
 * cx and cy (by name, or the first two) are numbers. Errors point at reference.file.
 */
static int read_reference(const eddy_scene *s, eddy_error *err, const char *rpath, const cJSON *file_node,
                          const cJSON *columns, eddy_probe_reference *r)
{
    char fpath[PATH_BUF];
    snprintf(fpath, sizeof fpath, "%s.file", rpath);
    FILE *f = fopen(r->file, "r");
    if (!f) {
        int e = errno;
        return eddy_scene_fail_at(s, err, fpath, file_node, "cannot read '%s': %s", r->file, strerror(e));
    }
    char line[REF_LINE_MAX];
    char *fields[REF_MAX_COLUMNS];
    int lineno = 0, cx = -1, cy = -1, rc = EDDY_OK;
    size_t cap = 0;
    double *x = NULL, *y = NULL;
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        char *p = line;
        while (*p == ' ' || *p == '\t') ++p;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0') continue;
        int n = split_csv(p, fields, REF_MAX_COLUMNS);
        if (cx < 0) {
            /* The header. */
            if (n < 2) {
                rc = eddy_scene_fail_at(s, err, fpath, file_node,
                                        "'%s' line %d: expected a header of at least 2 columns, got %d", r->file,
                                        lineno, n);
                break;
            }
            if (!columns) {
                cx = 0;
                cy = 1;
            } else {
                for (int c = 0; c < 2 && !rc; ++c) {
                    const char *want = cJSON_GetArrayItem(columns, c)->valuestring;
                    int *dst = c == 0 ? &cx : &cy;
                    for (int k = 0; k < n; ++k)
                        if (strcmp(fields[k], want) == 0) *dst = k;
                    if (*dst < 0) {
                        char cp[PATH_BUF], list[512] = "";
                        snprintf(cp, sizeof cp, "%s.columns[%d]", rpath, c);
                        for (int k = 0; k < n; ++k) {
                            strncat(list, k ? ", " : "", sizeof list - strlen(list) - 1);
                            strncat(list, fields[k], sizeof list - strlen(list) - 1);
                        }
                        rc = eddy_scene_fail_at(s, err, cp, cJSON_GetArrayItem(columns, c),
                                                "no column \"%s\" in '%s' (columns: %s)", want, r->file, list);
                        cx = 0; /* (header seen) */
                    }
                }
                if (rc) break;
            }
            r->x_label = dup_str(fields[cx]);
            r->y_label = dup_str(fields[cy]);
            if (!r->x_label || !r->y_label) {
                rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
                break;
            }
            continue;
        }
        double v[2];
        int want[2] = {cx, cy};
        for (int c = 0; c < 2 && !rc; ++c) {
            char *end = NULL;
            const char *t = want[c] < n ? fields[want[c]] : "";
            errno = 0;
            v[c] = strtod(t, &end);
            if (!t[0] || *end || errno || !isfinite(v[c]))
                rc = eddy_scene_fail_at(s, err, fpath, file_node,
                                        "'%s' line %d: expected a number in column %s, got \"%s\"", r->file, lineno,
                                        c ? r->y_label : r->x_label, t);
        }
        if (rc) break;
        if (r->count == cap) {
            cap = cap ? 2 * cap : 32;
            double *nx = realloc(x, cap * sizeof *x), *ny = nx ? realloc(y, cap * sizeof *y) : NULL;
            if (nx) x = nx;
            if (ny) y = ny;
            if (!nx || !ny) {
                rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
                break;
            }
        }
        x[r->count] = v[0];
        y[r->count] = v[1];
        r->count++;
    }
    if (!rc && ferror(f)) {
        int e = errno;
        rc = eddy_scene_fail_at(s, err, fpath, file_node, "cannot read '%s': %s", r->file, strerror(e));
    }
    fclose(f);
    if (!rc && r->count == 0)
        rc = eddy_scene_fail_at(s, err, fpath, file_node, "'%s' holds no data rows (expected a header and rows of numbers)",
                                r->file);
    r->x = x;
    r->y = y;
    return rc;
}

static int parse_reference(const eddy_scene *s, eddy_error *err, const cJSON *o, const char *path, probe *pr)
{
    char rpath[64];
    snprintf(rpath, sizeof rpath, "%s.reference", path);
    if (!cJSON_IsObject(o)) return eddy_scene_fail_expected(s, err, rpath, o, "a reference object {file, ...}");
    int rc = eddy_scene_check_keys(s, err, o, rpath, REFERENCE_KEYS);
    if (rc) return rc;
    char file[EDDY_SCENE_PATH_MAX], text[256];
    if ((rc = eddy_scene_get_string(s, err, o, rpath, "file", 1, NULL, file, sizeof file))) return rc;
    const cJSON *columns = cJSON_GetObjectItemCaseSensitive(o, "columns");
    if (columns) {
        int ok = cJSON_IsArray(columns) && cJSON_GetArraySize(columns) == 2;
        for (int c = 0; ok && c < 2; ++c) {
            const cJSON *e = cJSON_GetArrayItem(columns, c);
            ok = cJSON_IsString(e) && e->valuestring[0];
        }
        if (!ok) {
            char cp[PATH_BUF];
            snprintf(cp, sizeof cp, "%s.columns", rpath);
            return eddy_scene_fail_expected(s, err, cp, columns, "an array of 2 column names (time, value)");
        }
    }
    eddy_probe_reference *r = &pr->ref;
    pr->has_reference = 1;
    r->time_scale = r->value_scale = 1.0;
    if ((rc = get_positive(s, err, o, rpath, "time_scale", &r->time_scale)) ||
        (rc = get_positive(s, err, o, rpath, "value_scale", &r->value_scale)) ||
        (rc = eddy_scene_get_number(s, err, o, rpath, "value_offset", 0, -INFINITY, INFINITY, 0.0,
                                    &r->value_offset, NULL)))
        return rc;
    if (!(r->file = resolve_path(s, file))) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    if ((rc = read_reference(s, err, rpath, cJSON_GetObjectItemCaseSensitive(o, "file"), columns, r))) return rc;
    /* Labels given in the scene replace the defaults (the file name, the column names). */
    const char *base = strrchr(file, '/');
    if ((rc = eddy_scene_get_string(s, err, o, rpath, "label", 0, base ? base + 1 : file, text, sizeof text)))
        return rc;
    free((char *)r->label);
    r->label = dup_str(text);
    for (int k = 0; k < 2; ++k) {
        const char **dst = k ? &r->y_label : &r->x_label;
        int present = cJSON_GetObjectItemCaseSensitive(o, k ? "value_label" : "time_label") != NULL;
        if (!present) continue;
        if ((rc = eddy_scene_get_string(s, err, o, rpath, k ? "value_label" : "time_label", 1, NULL, text,
                                        sizeof text)))
            return rc;
        free((char *)*dst);
        *dst = dup_str(text);
    }
    if (!r->label || !r->x_label || !r->y_label) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    return EDDY_OK;
}

static int parse_probe(const eddy_scene *s, eddy_error *err, const cJSON *o, size_t index, eddy_probes *set)
{
    char path[40];
    snprintf(path, sizeof path, "probes[%zu]", index);
    if (!cJSON_IsObject(o)) return eddy_scene_fail_expected(s, err, path, o, "a probe object {name, kind, ...}");
    probe *pr = &set->items[index];
    const char *kinds = "\"front\", \"height\", \"pressure\" or \"density\"";
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    if (!kind) return fail_missing(s, err, path, "kind", kinds);
    int k = -1;
    for (int i = 0; i < 4 && cJSON_IsString(kind); ++i)
        if (strcmp(kind->valuestring, KIND_NAMES[i]) == 0) k = i;
    if (k < 0) {
        char kp[PATH_BUF];
        snprintf(kp, sizeof kp, "%s.kind", path);
        return eddy_scene_fail_expected(s, err, kp, kind, kinds);
    }
    pr->kind = (eddy_probe_kind)k;
    static const char *const *const KEYS[] = {FRONT_KEYS, HEIGHT_KEYS, PRESSURE_KEYS, DENSITY_KEYS};
    int rc = eddy_scene_check_keys(s, err, o, path, KEYS[k]);
    if (rc) return rc;

    char def[PROBE_NAME_MAX];
    snprintf(def, sizeof def, "%s_%zu", KIND_NAMES[k], index);
    if ((rc = eddy_scene_get_string(s, err, o, path, "name", 0, def, pr->name, sizeof pr->name))) return rc;
    char np[PATH_BUF];
    snprintf(np, sizeof np, "%s.name", path);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    if (!valid_name(pr->name))
        return eddy_scene_fail_expected(s, err, np, name, "a name of letters, digits, '_', '-' and '.'");
    for (size_t j = 0; j < index; ++j)
        if (strcmp(set->items[j].name, pr->name) == 0)
            return eddy_scene_fail_at(s, err, np, name, "duplicate probe name \"%s\" (probes[%zu] has it), "
                                      "expected each name once", pr->name, j);

    switch (pr->kind) {
    case EDDY_PROBE_FRONT:
        if ((rc = parse_axis(s, err, o, path, pr)) || (rc = get_positive(s, err, o, path, "max_gap", &pr->max_gap)))
            return rc;
        break;
    case EDDY_PROBE_HEIGHT:
        if ((rc = parse_axis(s, err, o, path, pr)) ||
            (rc = eddy_scene_get_vector(s, err, o, path, "at", 1, NULL, pr->at)) ||
            (rc = get_positive(s, err, o, path, "width", &pr->width)) ||
            (rc = get_positive(s, err, o, path, "max_gap", &pr->max_gap)))
            return rc;
        break;
    case EDDY_PROBE_PRESSURE:
        if ((rc = eddy_scene_get_vector(s, err, o, path, "point", 1, NULL, pr->at))) return rc;
        break;
    case EDDY_PROBE_DENSITY:
        if ((rc = eddy_scene_get_vector(s, err, o, path, "min", 1, NULL, pr->min)) ||
            (rc = eddy_scene_get_vector(s, err, o, path, "max", 1, NULL, pr->max)))
            return rc;
        for (int a = 0; a < s->dimensions; ++a) {
            if (!(pr->max[a] > pr->min[a])) {
                char mp[PATH_BUF];
                snprintf(mp, sizeof mp, "%s.max", path);
                return eddy_scene_fail_at(s, err, mp, cJSON_GetObjectItemCaseSensitive(o, "max"),
                                          "expected max > min on every axis, got max.%c = %g <= min.%c = %g",
                                          'x' + a, (double)pr->max[a], 'x' + a, (double)pr->min[a]);
            }
        }
        break;
    }
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(o, "reference");
    return ref ? parse_reference(s, err, ref, path, pr) : EDDY_OK;
}

int eddy_probes_parse(const eddy_scene *scene, eddy_probes **out, eddy_error *err)
{
    *out = NULL;
    eddy_probes *set = calloc(1, sizeof *set);
    if (!set) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    set->dimensions = scene->dimensions;
    const cJSON *sec = eddy_scene_section(scene, "probes");
    int rc = EDDY_OK;
    if (sec) {
        if (!cJSON_IsArray(sec)) {
            rc = eddy_scene_fail_expected(scene, err, "probes", sec, "an array of probe objects");
        } else {
            size_t n = (size_t)cJSON_GetArraySize(sec);
            set->items = calloc(n ? n : 1, sizeof *set->items);
            if (!set->items) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
            size_t i = 0;
            for (const cJSON *o = sec->child; o && !rc; o = o->next, ++i) {
                set->count = i + 1; /* so that destroy frees what a failed probe read */
                rc = parse_probe(scene, err, o, i, set);
            }
        }
    }
    if (rc) {
        eddy_probes_destroy(set);
        return rc;
    }
    *out = set;
    return EDDY_OK;
}

void eddy_probes_destroy(eddy_probes *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->count; ++i) free_reference(&p->items[i].ref);
    free(p->items);
    free(p);
}

size_t eddy_probes_count(const eddy_probes *p)
{
    return p ? p->count : 0;
}

const char *eddy_probes_name(const eddy_probes *p, size_t i)
{
    return p->items[i].name;
}

eddy_probe_kind eddy_probes_kind(const eddy_probes *p, size_t i)
{
    return p->items[i].kind;
}

const char *eddy_probes_unit(const eddy_probes *p, size_t i)
{
    return (p->dimensions == 2 ? UNITS_2D : UNITS_3D)[p->items[i].kind];
}

const eddy_probe_reference *eddy_probes_reference(const eddy_probes *p, size_t i)
{
    return p->items[i].has_reference ? &p->items[i].ref : NULL;
}

/* ------------------------------------------------------------------------------------------------ */
/* Measuring                                                                                         */
/* ------------------------------------------------------------------------------------------------ */

static const float *coord(const eddy_particles *p, int axis)
{
    return axis == 0 ? p->x : axis == 1 ? p->y : p->z;
}

/* Half the rest spacing of particle i's material: the edge of its volume beyond its centre. */
static double half_spacing(const eddy_world *w, size_t i)
{
    return 0.5 * (double)w->materials[w->particles.material[i]].particle_dist;
}

/*
 * The connected reach along u = sign * x[axis] (sim units), walking from `start` through particles no
 * more than `gap` apart. Only particles with u >= start that pass the column filter take part. The
 * walk visits occupied bins of width `gap` in order: within a bin consecutive coordinates are less
 * than `gap` apart, so only the steps between bins (the previous reach to the next bin's minimum) can
 * break the chain. A connected particle lies at most k * gap beyond start after k particles, so N + 1
 * bins hold every particle the walk can reach: O(N) time and memory, and the result depends only on
 * the set of coordinates, not on their order. Returns the index of the farthest connected particle,
 * or -1 when none is within `gap` of start.
 */
typedef struct column {
    int use;              /* filter by |x_b - c_b| <= half_width on every axis b != axis */
    double c[3], half_width;
} column;

static long long connected_reach(const eddy_world *w, int axis, int sign, double start, double gap,
                                 const column *col, float *bmin, float *bmax, uint32_t *btop, double *reach_out)
{
    const eddy_particles *p = &w->particles;
    const float *u_arr = coord(p, axis);
    const size_t n = p->count, nb = n + 1;
    for (size_t b = 0; b < nb; ++b) {
        bmin[b] = INFINITY;
        bmax[b] = -INFINITY;
        btop[b] = UINT32_MAX;
    }
    for (size_t i = 0; i < n; ++i) {
        double u = sign * (double)u_arr[i];
        if (!isfinite(u) || u < start) continue;
        if (col->use) {
            int inside = 1;
            for (int b = 0; b < w->dimensions && inside; ++b) {
                if (b == axis) continue;
                double d = (double)coord(p, b)[i] - col->c[b];
                inside = fabs(d) <= col->half_width;
            }
            if (!inside) continue;
        }
        double k = floor((u - start) / gap);
        if (!(k < (double)nb)) continue;
        size_t b = (size_t)k;
        float uf = (float)u;
        if (uf < bmin[b]) bmin[b] = uf;
        /* Ties go to the smaller index: the same state gives the same particle whatever the order. */
        if (uf > bmax[b] || (uf == bmax[b] && p->id[i] < p->id[btop[b]])) {
            bmax[b] = uf;
            btop[b] = (uint32_t)i;
        }
    }
    double reach = start;
    long long top = -1;
    for (size_t b = 0; b < nb; ++b) {
        if (btop[b] == UINT32_MAX) continue;
        if ((double)bmin[b] - reach > gap) break;
        reach = bmax[b];
        top = btop[b];
    }
    *reach_out = reach;
    return top;
}

static double measure_front(const probe *pr, const eddy_world *w, double gap, float *bmin, float *bmax,
                            uint32_t *btop)
{
    const eddy_particles *p = &w->particles;
    const float *u_arr = coord(p, pr->axis);
    double start = INFINITY;
    for (size_t i = 0; i < p->count; ++i) {
        double u = pr->sign * (double)u_arr[i];
        if (isfinite(u) && u < start) start = u;
    }
    if (!isfinite(start)) return NAN;
    column none = {0, {0, 0, 0}, 0};
    double reach;
    long long top = connected_reach(w, pr->axis, pr->sign, start, gap, &none, bmin, bmax, btop, &reach);
    /* (+ 0.0: an edge at 0 along -x reads 0, not -0) */
    return pr->sign * (reach + half_spacing(w, (size_t)top)) / (double)w->simulation_scale + 0.0;
}

static double measure_height(const probe *pr, const eddy_world *w, double gap, float *bmin, float *bmax,
                             uint32_t *btop)
{
    const double scale = w->simulation_scale;
    column col = {1, {pr->at[0] * scale, pr->at[1] * scale, pr->at[2] * scale},
                  (pr->width > 0 ? pr->width * scale : (double)w->smoothing_radius)};
    double start = pr->sign * (double)pr->at[pr->axis] * scale, reach;
    long long top = connected_reach(w, pr->axis, pr->sign, start, gap, &col, bmin, bmax, btop, &reach);
    if (top < 0) return 0.0;
    return (reach + half_spacing(w, (size_t)top) - start) / scale;
}

static double measure_pressure(const probe *pr, const eddy_world *w, const uint32_t *order)
{
    const eddy_particles *p = &w->particles;
    const double scale = w->simulation_scale;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const double h2 = (double)w->smoothing_radius * w->smoothing_radius;
    const double c[3] = {pr->at[0] * scale, pr->at[1] * scale, w->dimensions == 3 ? pr->at[2] * scale : 0.0};
    double num = 0.0, den = 0.0;
    for (size_t o = 0; o < p->count; ++o) {
        size_t i = order[o];
        double dx = p->x[i] - c[0], dy = p->y[i] - c[1], dz = w->dimensions == 3 ? p->z[i] - c[2] : 0.0;
        double r2 = dx * dx + dy * dy + dz * dz;
        if (!(r2 < h2)) continue;
        double rho = p->density[i];
        if (!(rho > 0) || !isfinite(rho)) rho = w->materials[p->material[i]].rest_density;
        double vw = (double)p->mass[i] / rho * (double)eddy_poly6(&k, (float)r2);
        num += vw * (double)p->pressure[i];
        den += vw;
    }
    return den > 0 ? num / den : NAN;
}

static double measure_density(const probe *pr, const eddy_world *w, const uint32_t *order)
{
    const eddy_particles *p = &w->particles;
    const double scale = w->simulation_scale;
    double lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        lo[a] = pr->min[a] * scale;
        hi[a] = pr->max[a] * scale;
    }
    double sum = 0.0;
    size_t n = 0;
    for (size_t o = 0; o < p->count; ++o) {
        size_t i = order[o];
        double x[3] = {p->x[i], p->y[i], p->z[i]};
        int inside = 1;
        for (int a = 0; a < w->dimensions && inside; ++a) inside = x[a] >= lo[a] && x[a] <= hi[a];
        if (!inside) continue;
        sum += p->density[i];
        ++n;
    }
    return n ? sum / (double)n : NAN;
}

int eddy_probes_measure(const eddy_probes *set, const eddy_world *w, double *values, eddy_error *err)
{
    if (!set || set->count == 0) return EDDY_OK;
    if (w->dimensions != set->dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "probes were declared for a %dD scene, the world is %dD", set->dimensions,
                              w->dimensions);
    const eddy_particles *p = &w->particles;
    for (size_t i = 0; i < p->count; ++i)
        if (p->material[i] >= w->material_count)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "particle %u: material index %u is outside the material table (%zu materials)",
                                  p->id[i], p->material[i], w->material_count);
    int walks = 0, sums = 0;
    for (size_t k = 0; k < set->count; ++k) {
        eddy_probe_kind kind = set->items[k].kind;
        if (kind == EDDY_PROBE_FRONT || kind == EDDY_PROBE_HEIGHT) walks = 1;
        else sums = 1;
    }
    const size_t nb = p->count + 1;
    float *bmin = NULL, *bmax = NULL;
    uint32_t *btop = NULL, *order = NULL;
    if (walks) {
        bmin = malloc(nb * sizeof *bmin);
        bmax = malloc(nb * sizeof *bmax);
        btop = malloc(nb * sizeof *btop);
    }
    if (sums) order = eddy_order_by_id(p);
    int rc = EDDY_OK;
    if ((walks && (!bmin || !bmax || !btop)) || (sums && !order)) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory measuring probes (%zu particles)",
                            p->count);
    } else {
        for (size_t k = 0; k < set->count; ++k) {
            const probe *pr = &set->items[k];
            double gap = pr->max_gap > 0 ? pr->max_gap * w->simulation_scale : (double)w->smoothing_radius;
            switch (pr->kind) {
            case EDDY_PROBE_FRONT: values[k] = measure_front(pr, w, gap, bmin, bmax, btop); break;
            case EDDY_PROBE_HEIGHT: values[k] = measure_height(pr, w, gap, bmin, bmax, btop); break;
            case EDDY_PROBE_PRESSURE: values[k] = measure_pressure(pr, w, order); break;
            case EDDY_PROBE_DENSITY: values[k] = measure_density(pr, w, order); break;
            }
        }
    }
    free(bmin);
    free(bmax);
    free(btop);
    free(order);
    return rc;
}

void eddy_probes_csv_header(const eddy_probes *p, FILE *f)
{
    fputs("time,step", f);
    for (size_t i = 0; i < eddy_probes_count(p); ++i) fprintf(f, ",%s", p->items[i].name);
    fputc('\n', f);
}

void eddy_probes_csv_row(const eddy_probes *p, FILE *f, double time, uint64_t step, const double *values)
{
    fprintf(f, "%.12g,%llu", time, (unsigned long long)step);
    for (size_t i = 0; i < eddy_probes_count(p); ++i) fprintf(f, ",%.12g", values[i]);
    fputc('\n', f);
}
