#include "probes.h"

#include "csv_fields.h"
#include "probes_builtin.h"
#include "services.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <inttypes.h>

#define PROBE_NAME_MAX 48
#define PATH_BUF 128

typedef struct key_position {
    char key[64];
    char *lead; /* what the scene's errors put before the key's path: "FILE:LINE:COL: " or "--set '...': " */
} key_position;

typedef struct probe {
    char name[PROBE_NAME_MAX];
    const eddy_component *component;
    const eddy_probe_vtable *vtable;
    char context[EDDY_SCENE_PATH_MAX + 64]; /* "FILE:LINE:COL: probes[i]" */
    char file[EDDY_SCENE_PATH_MAX];  /* the scene file, for messages */
    char path[48];                   /* "probes[i]" */
    key_position *keys;              /* where each key's value stands in the file */
    size_t key_count;
    eddy_param_value *values;  /* [component->param_count], strings copied below */
    char **strings;
    eddy_param_values params;
    eddy_probe *instance;      /* between open and close; NULL for a probe without state */
    int open;                  /* create() succeeded: the instance is the probe's, NULL or not */
    char unit[32];             /* as the last instance reported it */
    int has_reference;
    eddy_probe_reference ref;  /* strings and arrays owned */
} probe;

struct eddy_probes {
    int dimensions;
    size_t count;
    probe *items;
};

/* The keys of a probe entry the host reads itself; the rest belong to the component's table. */
static const char *const HOST_KEYS[] = {"name", "kind", "reference", NULL};
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

/* "PARENT.KEY: missing required key, expected EXP" at the parent object, as the scene layer words it (host/scene/scene_errors.c). */
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

/* Spreadsheets export wide tables: a line may be long, but one longer than this is refused, never
 * split (fgets into a fixed buffer read the rest of a long line as a row of its own). */
#define REF_LINE_MAX 65536
#define REF_FILE_MAX (64 << 20)

/* Reads one line into buf (REF_LINE_MAX + 1 bytes) without its newline. Returns its length, which may
 * exceed REF_LINE_MAX (the line is then consumed whole and cut in buf), or -1 at the end of the file.
 * *nul tells of a NUL byte, which would end the line early for the string functions. */
static long read_line(FILE *f, char *buf, int *nul)
{
    long n = 0;
    int ch;
    *nul = 0;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (n < REF_LINE_MAX) buf[n] = (char)ch;
        if (ch == '\0') *nul = 1;
        ++n;
    }
    if (ch == EOF && n == 0) return -1;
    buf[n < REF_LINE_MAX ? n : REF_LINE_MAX] = '\0';
    return n;
}

/*
 * Reads the reference table: '#' lines and blank lines skipped, a header, then rows of the header's
 * width whose columns cx and cy (by name, or the first two) are numbers, cx never decreasing. Errors
 * point at reference.file.
 */
static int read_reference(const eddy_scene *s, eddy_error *err, const char *rpath, const cJSON *file_node,
                          const cJSON *columns, eddy_probe_reference *r)
{
    char fpath[PATH_BUF];
    snprintf(fpath, sizeof fpath, "%s.file", rpath);
    /* Opened without blocking: a FIFO given as the table blocked the open itself until a writer came
     * (an adversarial trial), before the regular-file check below could refuse it. */
    const int fd = open(r->file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) close(fd);
        return eddy_scene_fail_at(s, err, fpath, file_node, "cannot read '%s': %s", r->file, strerror(e));
    }
    /* A device or a pipe ("/dev/zero", found by fuzzing) never ends: the loop below read it forever,
     * deaf to SIGTERM. Reference tables are small CSV files. */
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > REF_FILE_MAX) {
        const int regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
        fclose(f);
        if (!regular)
            return eddy_scene_fail_at(s, err, fpath, file_node, "'%s' is not a regular file (a CSV table is expected)",
                                      r->file);
        return eddy_scene_fail_at(s, err, fpath, file_node,
                                  "'%s' has %lld bytes; a reference table may have at most %d MiB", r->file,
                                  (long long)st.st_size, REF_FILE_MAX >> 20);
    }
    char *line = malloc(REF_LINE_MAX + 1);
    if (!line) {
        fclose(f);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    int lineno = 0, cx = -1, cy = -1, columns_n = 0, rc = EDDY_OK, nul;
    size_t cap = 0;
    double *x = NULL, *y = NULL;
    long len;
    while ((len = read_line(f, line, &nul)) >= 0) {
        ++lineno;
        if (len > REF_LINE_MAX) {
            rc = eddy_scene_fail_at(s, err, fpath, file_node,
                                    "'%s' line %d has %ld bytes; a line of a reference table may have at most %d",
                                    r->file, lineno, len, REF_LINE_MAX);
            break;
        }
        if (nul) {
            rc = eddy_scene_fail_at(s, err, fpath, file_node, "'%s' line %d: expected text, got a NUL byte", r->file,
                                    lineno);
            break;
        }
        char *p = line;
        while (*p == ' ' || *p == '\t') ++p;
        if (*p == '#' || *p == '\r' || *p == '\0') continue;
        int n = 0;
        const char *t, *tx = NULL, *ty = NULL;
        if (cx < 0) {
            /* The header: every name is looked at (the last of equal names counts) and listed for the
             * message of a missing one as far as it has room. */
            const char *want[2] = {columns ? cJSON_GetArrayItem(columns, 0)->valuestring : NULL,
                                   columns ? cJSON_GetArrayItem(columns, 1)->valuestring : NULL};
            int found[2] = {columns ? -1 : 0, columns ? -1 : 1};
            char list[512] = "";
            int listed = 0;
            while ((t = eddy_csv_next_field(&p))) {
                for (int c = 0; c < 2; ++c)
                    if (want[c] && strcmp(t, want[c]) == 0) found[c] = n;
                if (n == found[0]) tx = t;
                if (n == found[1]) ty = t;
                if (listed == n && strlen(list) + strlen(t) + 2 < sizeof list - 32) {
                    if (n) strcat(list, ", ");
                    strcat(list, t);
                    ++listed;
                }
                ++n;
            }
            if (n < 2) {
                rc = eddy_scene_fail_at(s, err, fpath, file_node,
                                        "'%s' line %d: expected a header of at least 2 columns, got %d", r->file,
                                        lineno, n);
                break;
            }
            for (int c = 0; c < 2 && !rc; ++c) {
                if (found[c] >= 0) continue;
                char cp[PATH_BUF];
                snprintf(cp, sizeof cp, "%s.columns[%d]", rpath, c);
                if (listed < n) snprintf(list + strlen(list), sizeof list - strlen(list), ", ... (%d in all)", n);
                rc = eddy_scene_fail_at(s, err, cp, cJSON_GetArrayItem(columns, c),
                                        "no column \"%s\" in '%s' (columns: %s)", want[c], r->file, list);
            }
            if (rc) break;
            cx = found[0];
            cy = found[1];
            columns_n = n;
            r->x_label = dup_str(tx);
            r->y_label = dup_str(ty);
            if (!r->x_label || !r->y_label) {
                rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
                break;
            }
            continue;
        }
        while ((t = eddy_csv_next_field(&p))) {
            if (n == cx) tx = t;
            if (n == cy) ty = t;
            ++n;
        }
        /* A row of another width is a shifted or cut row (a stray comma, a value lost), whose numbers
         * may sit under the wrong column: it was taken as far as the two columns reached. */
        if (n != columns_n) {
            rc = eddy_scene_fail_at(s, err, fpath, file_node, "'%s' line %d: expected %d columns as the header has, got %d",
                                    r->file, lineno, columns_n, n);
            break;
        }
        double v[2];
        for (int c = 0; c < 2 && !rc; ++c) {
            char *end = NULL;
            t = c ? ty : tx;
            errno = 0;
            v[c] = strtod(t, &end);
            /* (strtod reads C's hexadecimal floats: "0x10" was taken as 16) */
            if (!t[0] || *end || errno || !isfinite(v[c]) || strpbrk(t, "xX"))
                rc = eddy_scene_fail_at(s, err, fpath, file_node,
                                        "'%s' line %d: expected a number in column %s, got \"%s\"", r->file, lineno,
                                        c ? r->y_label : r->x_label, t);
        }
        if (rc) break;
        /* Samples in time order: the plot joins them in file order (rows out of order drew a zigzag) and
         * a reference is a time series. Equal times are kept (a jump at an instant). */
        if (r->count && v[0] < x[r->count - 1]) {
            rc = eddy_scene_fail_at(s, err, fpath, file_node,
                                    "'%s' line %d: expected rows in time order, got %s = %.9g after %.9g", r->file,
                                    lineno, r->x_label, v[0], x[r->count - 1]);
            break;
        }
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
    free(line);
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

/* The registry's probe ids as "\"a\", \"b\" or \"c\"" (registration order: the built-ins first). */
static void kind_list(eddy_registry *reg, char *out, size_t size)
{
    size_t n = 0, k = 0, total = 0;
    out[0] = '\0';
    for (size_t i = 0; i < eddy_registry_count(reg); ++i)
        if (strcmp(eddy_registry_at(reg, i)->component->interface_id, EDDY_INTERFACE_PROBE) == 0) ++total;
    for (size_t i = 0; i < eddy_registry_count(reg); ++i) {
        const eddy_component *c = eddy_registry_at(reg, i)->component;
        if (strcmp(c->interface_id, EDDY_INTERFACE_PROBE) != 0) continue;
        const char *sep = n == 0 ? "" : n + 1 == total ? " or " : ", ";
        int w = snprintf(out + k, size - k, "%s\"%s\"", sep, c->id);
        if (w < 0 || (size_t)w >= size - k) break;
        k += (size_t)w;
        ++n;
    }
    if (n == 0) snprintf(out, size, "a probe kind (none is registered)");
}

static void free_probe(probe *pr)
{
    if (pr->open && pr->vtable) pr->vtable->destroy(pr->instance);
    pr->instance = NULL;
    pr->open = 0;
    for (size_t i = 0; pr->strings && i < pr->params.count; ++i) free(pr->strings[i]);
    free(pr->strings);
    free(pr->values);
    for (size_t i = 0; pr->keys && i < pr->key_count; ++i) free(pr->keys[i].lead);
    free(pr->keys);
    pr->strings = NULL;
    pr->values = NULL;
    pr->keys = NULL;
    free_reference(&pr->ref);
}

/* The probe's parameters, validated against its component's table, strings copied out of the scene. */
static int parse_params(const eddy_scene *s, eddy_error *err, const cJSON *o, const char *path, probe *pr)
{
    const eddy_component *c = pr->component;
    const size_t n = c->param_count;
    pr->values = calloc(n ? n : 1, sizeof *pr->values);
    pr->strings = calloc(n ? n : 1, sizeof *pr->strings);
    if (!pr->values || !pr->strings) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    pr->params.size = sizeof pr->params;
    pr->params.desc = c->params;
    pr->params.count = n;
    pr->params.values = pr->values;
    int rc = eddy_scene_param_values(s, o, path, c->params, n, HOST_KEYS, pr->values, err);
    if (rc) return rc;
    for (size_t i = 0; i < n; ++i) {
        if (!pr->values[i].string) continue;
        if (!(pr->strings[i] = dup_str(pr->values[i].string)))
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        pr->values[i].string = pr->strings[i];
    }
    return EDDY_OK;
}

/* Where every key's value stands, so that a component's error about a key ("<context>.max: ...") can
 * point at the value as the scene's own errors do (eddy_probes_open), after the scene is gone. The scene
 * words it (eddy_scene_fail_at): a position in the file, or the --set that put the value in, which the
 * file never held (a position of the file there sent the reader looking for it in vain). */
static int locate_keys(const eddy_scene *s, const cJSON *o, const char *path, probe *pr, eddy_error *err)
{
    size_t n = 0;
    for (const cJSON *m = o->child; m; m = m->next) ++n;
    pr->keys = calloc(n ? n : 1, sizeof *pr->keys);
    if (!pr->keys) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    for (const cJSON *m = o->child; m; m = m->next) {
        if (!m->string || strlen(m->string) >= sizeof pr->keys[0].key) continue;
        char kp[PATH_BUF];
        snprintf(kp, sizeof kp, "%s.%s", path, m->string);
        eddy_error where;
        eddy_error_clear(&where);
        eddy_scene_fail_at(s, &where, kp, m, "%s", "");
        /* "LEAD<path>: ": the lead is what precedes the path (a message cut short is left out). */
        const size_t ml = strlen(where.message), tail = strlen(kp) + 2;
        if (ml < tail || strncmp(where.message + ml - tail, kp, tail - 2) != 0) continue;
        key_position *k = &pr->keys[pr->key_count];
        if (!(k->lead = malloc(ml - tail + 1))) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        memcpy(k->lead, where.message, ml - tail);
        k->lead[ml - tail] = '\0';
        snprintf(k->key, sizeof k->key, "%s", m->string);
        pr->key_count++;
    }
    return EDDY_OK;
}

/* "<context>.KEY...: message" from a component becomes "FILE:LINE:COL: probes[i].KEY...: message" with
 * the position of KEY's value (or "--set '...': probes[i].KEY...: message"), when the scene gave that
 * key. */
static void point_at_key(const probe *pr, eddy_error *err)
{
    if (!err) return;
    const size_t cl = strlen(pr->context);
    if (strncmp(err->message, pr->context, cl) != 0 || err->message[cl] != '.') return;
    const char *rest = err->message + cl + 1;
    const size_t kl = strcspn(rest, ".:[ ");
    for (size_t i = 0; i < pr->key_count; ++i) {
        const key_position *k = &pr->keys[i];
        if (strlen(k->key) != kl || strncmp(k->key, rest, kl) != 0) continue;
        char msg[EDDY_ERROR_MESSAGE_MAX];
        snprintf(msg, sizeof msg, "%.*s%s.%s", (int)(sizeof msg / 2), k->lead, pr->path, rest);
        memcpy(err->message, msg, sizeof err->message);
        return;
    }
}

static int parse_probe(const eddy_scene *s, eddy_registry *reg, eddy_error *err, const cJSON *o, size_t index,
                       eddy_probes *set)
{
    char path[40];
    snprintf(path, sizeof path, "probes[%zu]", index);
    if (!cJSON_IsObject(o)) return eddy_scene_fail_expected(s, err, path, o, "a probe object {name, kind, ...}");
    probe *pr = &set->items[index];
    char kinds[512];
    kind_list(reg, kinds, sizeof kinds);
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    if (!kind) return fail_missing(s, err, path, "kind", kinds);
    const eddy_registry_entry *e =
        cJSON_IsString(kind) ? eddy_registry_find(reg, kind->valuestring, EDDY_INTERFACE_PROBE) : NULL;
    if (!e) {
        char kp[PATH_BUF];
        snprintf(kp, sizeof kp, "%s.kind", path);
        return eddy_scene_fail_expected(s, err, kp, kind, kinds);
    }
    pr->component = e->component;
    pr->vtable = e->component->vtable;
    int line = 0, col = 0;
    snprintf(pr->file, sizeof pr->file, "%s", s->file[0] ? s->file : "<scene>");
    snprintf(pr->path, sizeof pr->path, "%s", path);
    eddy_scene_locate(s, path, &line, &col);
    if (line > 0) snprintf(pr->context, sizeof pr->context, "%s:%d:%d: %s", pr->file, line, col, path);
    else snprintf(pr->context, sizeof pr->context, "%s: %s", pr->file, path);
    /* A probe an override put in is worded as the scene words it, naming the --set (the file never held
     * it: "FILE: probes[0]: expected `wall` or `collider`, got both" sent the reader to the file). */
    {
        eddy_error where;
        eddy_error_clear(&where);
        eddy_scene_fail_at(s, &where, path, o, "%s", "");
        const size_t ml = strlen(where.message), tail = strlen(path) + 2;
        if (line <= 0 && ml >= tail && strncmp(where.message + ml - tail, path, tail - 2) == 0)
            snprintf(pr->context, sizeof pr->context, "%.*s%s", (int)(ml - tail), where.message, path);
    }
    int rc = locate_keys(s, o, path, pr, err);
    if (!rc) rc = parse_params(s, err, o, path, pr);
    if (rc) return rc;

    char def[PROBE_NAME_MAX];
    snprintf(def, sizeof def, "%s_%zu", e->component->id, index);
    if ((rc = eddy_scene_get_string(s, err, o, path, "name", 0, def, pr->name, sizeof pr->name))) return rc;
    char np[PATH_BUF];
    snprintf(np, sizeof np, "%s.name", path);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    if (!valid_name(pr->name))
        return eddy_scene_fail_expected(s, err, np, name, "a name of letters, digits, '_', '-' and '.'");
    /* probes.csv's columns begin with time and step, the Python package's records with time, step and
     * frame: a probe of such a name gave a table with two columns of one name. */
    static const char *const RESERVED[] = {"time", "step", "frame"};
    for (size_t k = 0; k < sizeof RESERVED / sizeof RESERVED[0]; ++k)
        if (strcmp(pr->name, RESERVED[k]) == 0)
            return eddy_scene_fail_at(s, err, np, name, "probe name \"%s\" is reserved: probes.csv begins with "
                                      "time, step and the Python records with time, step, frame; choose another",
                                      pr->name);
    for (size_t j = 0; j < index; ++j)
        if (strcmp(set->items[j].name, pr->name) == 0)
            return eddy_scene_fail_at(s, err, np, name, "duplicate probe name \"%s\" (probes[%zu] has it), "
                                      "expected each name once", pr->name, j);
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(o, "reference");
    return ref ? parse_reference(s, err, ref, path, pr) : EDDY_OK;
}

int eddy_probes_parse(const eddy_scene *scene, eddy_registry *registry, eddy_probes **out, eddy_error *err)
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
                rc = parse_probe(scene, registry, err, o, i, set);
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

void eddy_probes_close(eddy_probes *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->count; ++i) {
        probe *pr = &p->items[i];
        if (pr->open) pr->vtable->destroy(pr->instance);
        pr->instance = NULL;
        pr->open = 0;
    }
}

int eddy_probes_open(eddy_probes *p, const eddy_world *w, const eddy_host *host, eddy_error *err)
{
    if (!p || p->count == 0) return EDDY_OK;
    eddy_probes_close(p);
    if (w->dimensions != p->dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "probes were declared for a %dD scene, the world is %dD",
                              p->dimensions, w->dimensions);
    for (size_t i = 0; i < p->count; ++i) {
        probe *pr = &p->items[i];
        const eddy_probe_setup setup = {
            .size = sizeof setup,
            .name = pr->name,
            .context = pr->context,
            .params = &pr->params,
            .host = host ? host : eddy_host_silent(),
            .world = w,
        };
        eddy_error_clear(err);
        void *instance = eddy_services_unset_instance();
        int rc = pr->vtable->create(&setup, (eddy_probe **)&instance, err);
        if (rc) eddy_services_callback_error(err, rc, "create");
        else rc = eddy_services_check_created(rc, &instance, "probe", err);
        pr->instance = rc ? NULL : instance;
        pr->open = !rc;
        if (rc) {
            /* A message that names a key of the entry points at it; any other names the probe, as
             * measure()'s do (the host's own create() check and a plugin's terse message say neither). */
            if (strncmp(err->message, pr->context, strlen(pr->context)) != 0)
                eddy_error_prefix(err, "probe '%s': ", pr->name);
            point_at_key(pr, err);
            eddy_probes_close(p);
            return rc;
        }
        const char *unit = pr->vtable->unit ? pr->vtable->unit(pr->instance) : NULL; /* optional (registry.c) */
        snprintf(pr->unit, sizeof pr->unit, "%s", unit ? unit : "");
        /* The unit goes into probes.csv's header and summary.md's table: a line break, a control
         * character, a comma or a '|' broke them (an adversarial trial's plugin). */
        for (const unsigned char *u = (const unsigned char *)pr->unit; *u; ++u)
            if (*u < 0x20 || *u == 0x7f || *u == '|' || *u == ',' || *u == '"') {
                const int at = (int)(u - (const unsigned char *)pr->unit);
                eddy_probes_close(p);
                return eddy_error_set(err, EDDY_ERR_PLUGIN,
                                      "probe '%s': unit() returned a unit with %s at byte %d, which the tables cannot "
                                      "hold (a unit is text such as \"m\", \"Pa\" or \"kg/m^3\")", pr->name,
                                      *u < 0x20 || *u == 0x7f ? "a control character" : *u == '|' ? "a '|'"
                                      : *u == ',' ? "a comma" : "a double quote", at);
            }
    }
    return EDDY_OK;
}

void eddy_probes_destroy(eddy_probes *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->count; ++i) free_probe(&p->items[i]);
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

const char *eddy_probes_kind(const eddy_probes *p, size_t i)
{
    return p->items[i].component->id;
}

const char *eddy_probes_unit(const eddy_probes *p, size_t i)
{
    return p->items[i].unit;
}

const eddy_probe_reference *eddy_probes_reference(const eddy_probes *p, size_t i)
{
    return p->items[i].has_reference ? &p->items[i].ref : NULL;
}

/* Every particle's material is in the table (a probe reads material properties). */
static int check_materials(const eddy_frame *frame, eddy_error *err)
{
    const eddy_world *w = frame->world;
    const eddy_particles *p = &w->particles;
    for (size_t o = 0; o < frame->count; ++o) {
        const size_t i = frame->order[o];
        if (p->material[i] >= w->material_count)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "particle %" PRIu64 ": material index %" PRIu32
                                  " is outside the material table (%zu materials)",
                                  p->id[i], p->material[i], w->material_count);
    }
    return EDDY_OK;
}

int eddy_probes_measure(const eddy_probes *set, const eddy_frame *frame, double *values, eddy_error *err)
{
    if (!set || set->count == 0) return EDDY_OK;
    int rc = check_materials(frame, err);
    if (rc) return rc;
    for (size_t k = 0; k < set->count; ++k) {
        const probe *pr = &set->items[k];
        if (!pr->open)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "probe '%s' is not open for a world", pr->name);
        eddy_error_clear(err);
        rc = pr->vtable->measure(pr->instance, frame, &values[k], err);
        if (rc) {
            eddy_services_callback_error(err, rc, "measure");
            eddy_error_prefix(err, "probe '%s' at frame %llu (t = %.6g s): ", pr->name, (unsigned long long)frame->index,
                              frame->time);
            return rc;
        }
    }
    return EDDY_OK;
}

int eddy_probes_reducible(const eddy_probes *set)
{
    for (size_t k = 0; set && k < set->count; ++k)
        if (!eddy_builtin_probe_reducible(set->items[k].component) &&
            !eddy_builtin_probe_walks(set->items[k].component))
            return 0;
    return 1;
}

size_t eddy_probes_sum_words(const eddy_probes *set)
{
    return eddy_probes_count(set) * EDDY_PROBE_PARTIAL_WORDS;
}

int eddy_probes_measure_partial(const eddy_probes *set, const eddy_frame *frame, int64_t *words, eddy_error *err)
{
    if (!set || set->count == 0) return EDDY_OK;
    int rc = check_materials(frame, err);
    for (size_t k = 0; !rc && k < set->count; ++k) {
        const probe *pr = &set->items[k];
        int64_t *mine = words + k * EDDY_PROBE_PARTIAL_WORDS;
        if (pr->open && eddy_builtin_probe_walks(pr->component)) { /* eddy_probes_measure_walks */
            memset(mine, 0, EDDY_PROBE_PARTIAL_WORDS * sizeof *mine);
            continue;
        }
        if (!pr->open || !eddy_builtin_probe_reducible(pr->component))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "probe '%s' is not open or not a sum over particles",
                                  pr->name);
        eddy_probe_partial part;
        if ((rc = eddy_builtin_probe_partial(pr->instance, frame, &part, err))) {
            eddy_error_prefix(err, "probe '%s': ", pr->name);
            return rc;
        }
        eddy_probe_partial_pack(&part, mine);
    }
    return rc;
}

void eddy_probes_finish(const eddy_probes *set, const int64_t *words, double *values)
{
    for (size_t k = 0; set && k < set->count; ++k) {
        if (eddy_builtin_probe_walks(set->items[k].component)) continue;
        eddy_probe_partial part;
        eddy_probe_partial_unpack(&part, words + k * EDDY_PROBE_PARTIAL_WORDS);
        values[k] = eddy_builtin_probe_finish(set->items[k].instance, &part);
    }
}

/* The values summed over the processes in place (comm->sum), nothing on one process. */
static int comm_sum(const eddy_probes_comm *comm, int64_t *values, size_t count, eddy_error *err)
{
    return comm && comm->sum && comm->size > 1 ? comm->sum(comm->ctx, values, count, err) : EDDY_OK;
}

/* The smaller start, -0 before +0 (so that the result's bits do not depend on the order either). */
static double start_min(double a, double b)
{
    return b < a || (b == a && signbit(b) && !signbit(a)) ? b : a;
}

/* One walk probe of the set during eddy_probes_measure_walks. */
typedef struct walk_state {
    size_t probe;          /* its index in the set */
    double start;          /* the whole run's */
    eddy_probe_bin *bins;  /* this process's */
    size_t count;
} walk_state;

/*
 * Three integer sums: (1) a failure flag, the particle count and each process's start of each walk in
 * its own slots (a gather by sum: the other processes add zeros); (2) the flag and each process's
 * number of bins per walk, in its slots; (3) every process's packed bins at its offset, after which
 * every process holds the whole run's bins of each walk, merges them and walks. A process that fails
 * before a round still joins it with its flag set, and every process stops after that round; one that
 * cannot allocate returns its error, which stops every process (main.c).
 */
int eddy_probes_measure_walks(const eddy_probes *set, const eddy_frame *frame, const eddy_probes_comm *comm,
                              double *values, int *complete, eddy_error *err)
{
    *complete = 1;
    size_t nw = 0;
    for (size_t k = 0; set && k < set->count; ++k) nw += eddy_builtin_probe_walks(set->items[k].component) != 0;
    if (nw == 0) return EDDY_OK;
    const int several = comm && comm->sum && comm->size > 1;
    const size_t procs = several ? (size_t)comm->size : 1, me = several ? (size_t)comm->rank : 0;
    const size_t n1 = 2 + procs * nw, n2 = 1 + procs * nw;
    walk_state *wk = calloc(nw, sizeof *wk);
    int64_t *a = calloc(n1 + n2, sizeof *a), *all = NULL;
    if (!wk || !a) {
        free(wk);
        free(a);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory measuring probes");
    }
    int64_t *counts = a + n1; /* not before the check: NULL + n1 is undefined */
    int rc = check_materials(frame, err);
    a[1] = (int64_t)frame->count;
    for (size_t k = 0, j = 0; !rc && k < set->count; ++k) {
        const probe *pr = &set->items[k];
        if (!eddy_builtin_probe_walks(pr->component)) continue;
        if (!pr->open) {
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "probe '%s' is not open for a world", pr->name);
            break;
        }
        wk[j].probe = k;
        const double s = eddy_builtin_walk_start(pr->instance, frame);
        memcpy(&a[2 + me * nw + j++], &s, sizeof s);
    }
    if (rc) {
        memset(a, 0, n1 * sizeof *a);
        a[0] = 1;
    }
    int rr = comm_sum(comm, a, n1, err);
    if (!rr && !a[0]) {
        for (size_t j = 0; j < nw && !rc; ++j) {
            /* The whole run's start: the smallest over the processes (each gave its own). */
            wk[j].start = INFINITY;
            for (size_t r = 0; r < procs; ++r) {
                double s;
                memcpy(&s, &a[2 + r * nw + j], sizeof s);
                wk[j].start = start_min(wk[j].start, s);
            }
            const probe *pr = &set->items[wk[j].probe];
            if ((rc = eddy_builtin_walk_bins(pr->instance, frame, wk[j].start, (uint64_t)a[1], &wk[j].bins,
                                             &wk[j].count, err)))
                eddy_error_prefix(err, "probe '%s': ", pr->name);
            counts[1 + me * nw + j] = (int64_t)wk[j].count;
        }
        if (rc) {
            memset(counts, 0, n2 * sizeof *counts);
            counts[0] = 1;
        }
        rr = comm_sum(comm, counts, n2, err);
    }
    size_t total = 0;
    if (!rr && !a[0] && !counts[0]) {
        for (size_t i = 0; i < procs * nw; ++i) total += (size_t)counts[1 + i];
        if (!(all = calloc(total * EDDY_PROBE_BIN_WORDS + 1, sizeof *all)))
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory measuring probes (%zu bins)", total);
    } else {
        *complete = 0;
    }
    if (all) {
        /* walk 0's bins of process 0, 1, ..., then walk 1's, ... */
        size_t off = 0;
        for (size_t j = 0; j < nw; ++j)
            for (size_t r = 0; r < procs; ++r) {
                const size_t n = (size_t)counts[1 + r * nw + j];
                for (size_t b = 0; r == me && b < n; ++b)
                    eddy_probe_bin_pack(&wk[j].bins[b], all + (off + b) * EDDY_PROBE_BIN_WORDS);
                off += n;
            }
        rr = comm_sum(comm, all, total * EDDY_PROBE_BIN_WORDS, err);
        off = 0;
        for (size_t j = 0; j < nw && !rr && !rc; ++j) {
            size_t n = 0;
            for (size_t r = 0; r < procs; ++r) n += (size_t)counts[1 + r * nw + j];
            eddy_probe_bin *merged = malloc((n ? n : 1) * sizeof *merged);
            if (!merged) {
                rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory measuring probes (%zu bins)", n);
                break;
            }
            for (size_t b = 0; b < n; ++b) eddy_probe_bin_unpack(&merged[b], all + (off + b) * EDDY_PROBE_BIN_WORDS);
            off += n;
            const probe *pr = &set->items[wk[j].probe];
            if (!(rc = eddy_probe_bins_merge(merged, &n, err)))
                values[wk[j].probe] = eddy_builtin_walk_finish(pr->instance, frame->world, wk[j].start, merged, n);
            free(merged);
        }
    }
    if (!rc) rc = rr;
    if (rc) *complete = 0;
    for (size_t j = 0; j < nw; ++j) free(wk[j].bins);
    free(wk);
    free(a);
    free(all);
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
