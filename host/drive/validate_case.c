/*
 * host/drive/validate_case.c — reading the validation cases (validation/cases/NAME.json) and the solvers'
 * claims (the validation file beside each plugin). Both are data, so that a case or a solver's
 * expectations change without C code; every error names the file and the key.
 */
#include "validate_internal.h"

#include "csv_fields.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef EDDY_VALIDATION_INSTALL_DIR
#define EDDY_VALIDATION_INSTALL_DIR "/usr/local/share/eddy/validation"
#endif

static char *read_text(const char *path, eddy_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        eddy_error_set(err, EDDY_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf) {
        eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory reading '%s'", path);
        return NULL;
    }
    if (bad) {
        free(buf);
        eddy_error_set(err, EDDY_ERR_IO, "cannot read '%s'", path);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static cJSON *read_json(const char *path, eddy_error *err)
{
    char *text = read_text(path, err);
    if (!text) return NULL;
    cJSON *j = cJSON_Parse(text);
    if (!j) {
        const char *at = cJSON_GetErrorPtr();
        int line = 1;
        for (const char *c = text; at && c < at && *c; ++c) line += *c == '\n';
        eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s:%d: not valid JSON", path, line);
    }
    free(text);
    return j;
}

static void resolve(const char *base_file, const char *name, char *out, size_t size)
{
    if (name[0] == '/') {
        snprintf(out, size, "%s", name);
        return;
    }
    const char *slash = strrchr(base_file, '/');
    size_t n = slash ? (size_t)(slash - base_file + 1) : 0, m = strlen(name);
    if (n + m + 1 > size) n = m = 0; /* too long for a path: an empty one, which no file has */
    memcpy(out, base_file, n);
    memcpy(out + n, name, m);
    out[n + m] = '\0';
}

static int bad(eddy_error *err, const char *file, const char *key, const char *what)
{
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %s: %s", file, key, what);
}

/* PARENT.KEY as messages name it: `parent` is shown already, `key` is the file's text. */
static void key_path(char *out, size_t size, const char *parent, const char *key)
{
    snprintf(out, size, "%s%s%s", parent, parent[0] ? "." : "", VSHOWN_KEY(key));
}

/* A path made from the file's text, as messages name it: uncut, for it names a file. */
static const char *shown_path(const char *path, char *out, size_t size)
{
    size_t n = strlen(path);
    if (n >= size) n = size - 1;
    out[eddy_scene_terminal_safe(out, path, n)] = '\0';
    return out;
}

static int get_string(const cJSON *o, const char *k, int required, char *out, size_t size, const char *file,
                      const char *path, eddy_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    char key[256];
    snprintf(key, sizeof key, "%s%s%s", path, path[0] ? "." : "", k);
    if (!v) {
        if (required) return bad(err, file, key, "missing (a string is required)");
        return 0;
    }
    if (!cJSON_IsString(v)) return bad(err, file, key, "expected a string");
    /* Never cut silently: a case's description or note is printed whole in every report. */
    const size_t len = strlen(v->valuestring);
    if (len >= size) {
        char what[96];
        snprintf(what, sizeof what, "expected a string of at most %zu bytes, got %zu", size - 1, len);
        return bad(err, file, key, what);
    }
    memcpy(out, v->valuestring, len + 1);
    return 0;
}

/* A string shown as it is read (a name, title, description, label, citation or note): --list, the
 * progress lines, "missed its bar" and every report print it, so each control character becomes a space,
 * as the messages show the file's text. Paths and names looked up (a file, a column, a probe) are read
 * with get_string as written: a changed path would open another file. */
static int get_text(const cJSON *o, const char *k, int required, char *out, size_t size, const char *file,
                    const char *path, eddy_error *err)
{
    const int rc = get_string(o, k, required, out, size, file, path, err);
    if (!rc) out[eddy_scene_terminal_safe(out, out, strlen(out))] = '\0';
    return rc;
}

static int get_number(const cJSON *o, const char *k, int required, double lo, double hi, double *out,
                      const char *file, const char *path, eddy_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    char key[256];
    snprintf(key, sizeof key, "%s%s%s", path, path[0] ? "." : "", k);
    if (!v) {
        if (required) return bad(err, file, key, "missing (a number is required)");
        return 0;
    }
    if (!cJSON_IsNumber(v)) return bad(err, file, key, "expected a number");
    if (!(v->valuedouble >= lo && v->valuedouble <= hi))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %s: %g is out of range [%g, %g]", file, key,
                              v->valuedouble, lo, hi);
    *out = v->valuedouble;
    return 0;
}

static int get_sets(const cJSON *o, const char *k, char **sets, int *count, const char *file, const char *path,
                    eddy_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    char key[256];
    snprintf(key, sizeof key, "%s.%s", path, k);
    *count = 0;
    if (!v) return 0;
    if (!cJSON_IsArray(v)) return bad(err, file, key, "expected an array of \"key=value\" strings");
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        if (!cJSON_IsString(e) || !strchr(e->valuestring, '='))
            return bad(err, file, key, "expected an array of \"key=value\" strings");
        if (*count == VMAX_SETS) return bad(err, file, key, "more than 32 overrides");
        if (!(sets[*count] = strdup(e->valuestring))) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        ++*count;
    }
    return 0;
}

/* The first key of object o (at `path`) not in `keys`, refused: "PATH.KEY: not used by OWNER (its keys:
 * ...)"; and a key given twice: "PATH.KEY: duplicate key, expected each key once" (cJSON keeps both and
 * the readers take the first, so the second value was ignored without a word). */
static int only_keys(const cJSON *o, const char *const *keys, const char *owner, const char *file, const char *path,
                     eddy_error *err)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        int known = 0, twice = 0;
        for (int i = 0; keys[i] && !known; ++i) known = strcmp(v->string, keys[i]) == 0;
        for (const cJSON *u = o->child; known && u != v && !twice; u = u->next) twice = strcmp(u->string, v->string) == 0;
        if (twice) {
            char key[512];
            key_path(key, sizeof key, path, v->string);
            return bad(err, file, key, "duplicate key, expected each key once");
        }
        if (known) continue;
        char list[256] = "", what[512], key[512];
        for (int i = 0; keys[i]; ++i) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", keys[i]);
        snprintf(what, sizeof what, "not used by %s (its keys: %s)", owner, list);
        key_path(key, sizeof key, path, v->string);
        return bad(err, file, key, what);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* Reference tables                                                                                  */
/* ------------------------------------------------------------------------------------------------ */

/* A line's fields (csv_fields.h) into *fields, grown to hold them all: a table of any width. Returns
 * the count, or -1 out of memory. */
static int split_fields(char *line, char ***fields, size_t *cap)
{
    const size_t n = eddy_csv_field_count(line);
    if (n > INT_MAX) return -1;
    if (n > *cap) {
        char **grown = realloc(*fields, n * sizeof *grown);
        if (!grown) return -1;
        *fields = grown;
        *cap = n;
    }
    size_t k = 0;
    for (char *f, *cursor = line; (f = eddy_csv_next_field(&cursor));) (*fields)[k++] = f;
    return (int)k;
}

static int column_index(char **names, int n, const char *want)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(names[i], want) == 0) return i;
    return -1;
}

static int push(vref *r, size_t *cap, double t, double x, double y)
{
    if (r->count == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        double *nt = realloc(r->t, nc * sizeof *nt);
        if (nt) r->t = nt;
        double *nx = realloc(r->x, nc * sizeof *nx);
        if (nx) r->x = nx;
        double *ny = realloc(r->y, nc * sizeof *ny);
        if (ny) r->y = ny;
        if (!nt || !nx || !ny) return -1;
        *cap = nc;
    }
    r->t[r->count] = t;
    r->x[r->count] = x;
    r->y[r->count] = y;
    ++r->count;
    return 0;
}

/* "reference": {"file", "columns": {"time", "value", "position"}, "where": {"col": "text"}, scales,
 * labels, "label", "citation"}. */
static const char *const REFERENCE_KEYS[] = {"file", "label", "citation", "columns", "where", "time_scale",
                                             "value_scale", "position_scale", "time_label", "value_label",
                                             "position_label", NULL};
static const char *const COLUMNS_KEYS[] = {"time", "value", "position", NULL};

static int read_reference(const char *case_file, const cJSON *o, const char *path, vref *r, eddy_error *err)
{
    char name[VPATH] = "";
    int rc;
    r->time_scale = r->position_scale = r->value_scale = 1.0;
    if ((rc = only_keys(o, REFERENCE_KEYS, "a reference", case_file, path, err))) return rc;
    if ((rc = get_string(o, "file", 1, name, sizeof name, case_file, path, err))) return rc;
    resolve(case_file, name, r->file, sizeof r->file);
    /* (the file name is the label's default; a longer one is cut to the label's room) */
    snprintf(r->label, sizeof r->label, "%.*s", (int)sizeof r->label - 1, name);
    if ((rc = get_text(o, "label", 0, r->label, sizeof r->label, case_file, path, err)) ||
        (rc = get_text(o, "citation", 1, r->citation, sizeof r->citation, case_file, path, err)) ||
        (rc = get_text(o, "time_label", 0, r->time_label, sizeof r->time_label, case_file, path, err)) ||
        (rc = get_text(o, "value_label", 0, r->value_label, sizeof r->value_label, case_file, path, err)) ||
        (rc = get_text(o, "position_label", 0, r->position_label, sizeof r->position_label, case_file, path, err)) ||
        (rc = get_number(o, "time_scale", 0, 1e-30, 1e30, &r->time_scale, case_file, path, err)) ||
        (rc = get_number(o, "value_scale", 0, 1e-30, 1e30, &r->value_scale, case_file, path, err)) ||
        (rc = get_number(o, "position_scale", 0, 1e-30, 1e30, &r->position_scale, case_file, path, err)))
        return rc;
    char ctime[64] = "", cvalue[64] = "", cpos[64] = "", ckey[256];
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(o, "columns");
    snprintf(ckey, sizeof ckey, "%s.columns", path);
    if (!cols || !cJSON_IsObject(cols)) return bad(err, case_file, ckey, "missing (an object naming the \"time\" and \"value\" columns)");
    if ((rc = only_keys(cols, COLUMNS_KEYS, "a reference's columns", case_file, ckey, err))) return rc;
    if ((rc = get_string(cols, "time", 1, ctime, sizeof ctime, case_file, ckey, err)) ||
        (rc = get_string(cols, "value", 1, cvalue, sizeof cvalue, case_file, ckey, err)) ||
        (rc = get_string(cols, "position", 0, cpos, sizeof cpos, case_file, ckey, err)))
        return rc;
    /* Its keys are the file's columns, checked against its header below; a list or a string here was
     * not: a list's unnamed items crashed the column look-up, and a string kept every row. */
    const cJSON *where = cJSON_GetObjectItemCaseSensitive(o, "where");
    if (where && !cJSON_IsObject(where)) {
        snprintf(ckey, sizeof ckey, "%s.where", path);
        return bad(err, case_file, ckey, "expected an object: column name -> the text its rows must hold");
    }
    char shown[VPATH];
    shown_path(r->file, shown, sizeof shown);
    char *text = read_text(r->file, err);
    if (!text) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %s.file: cannot read '%s'", case_file, path, shown);
    char **names = NULL, **fields = NULL;
    size_t names_cap = 0, fields_cap = 0;
    int nnames = 0, it = -1, iv = -1, ip = -1, line_no = 0;
    size_t cap = 0;
    rc = 0;
    for (char *line = strtok(text, "\n"); line && !rc; line = strtok(NULL, "\n")) {
        ++line_no;
        if (line[0] == '#' || line[0] == '\r' || !line[0]) continue;
        if (!nnames) {
            nnames = split_fields(line, &names, &names_cap);
            if (nnames < 0) {
                rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
                break;
            }
            it = column_index(names, nnames, ctime);
            iv = column_index(names, nnames, cvalue);
            ip = cpos[0] ? column_index(names, nnames, cpos) : -1;
            if (it < 0 || iv < 0 || (cpos[0] && ip < 0)) {
                rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %s.columns: '%s' has no column '%s'", case_file,
                                    path, shown, VSHOWN_TEXT(it < 0 ? ctime : iv < 0 ? cvalue : cpos));
            }
            const cJSON *w;
            cJSON_ArrayForEach(w, where)
            {
                if (column_index(names, nnames, w->string) < 0 && !rc)
                    rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %s.where: '%s' has no column '%s'",
                                        case_file, path, shown, VSHOWN_KEY(w->string));
            }
            continue;
        }
        int nf = split_fields(line, &fields, &fields_cap);
        if (nf < 0) {
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        if (nf != nnames) {
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s:%d: expected %d fields, got %d", shown, line_no,
                                nnames, nf);
            break;
        }
        int keep = 1;
        const cJSON *w;
        cJSON_ArrayForEach(w, where)
        {
            int c = column_index(names, nnames, w->string);
            if (!cJSON_IsString(w) || strcmp(fields[c], w->valuestring) != 0) keep = 0;
        }
        if (!keep) continue;
        char *e1, *e2, *e3 = NULL;
        double t = strtod(fields[it], &e1), y = strtod(fields[iv], &e2), x = ip >= 0 ? strtod(fields[ip], &e3) : 0.0;
        if (*e1 || *e2 || (e3 && *e3)) {
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s:%d: expected numbers in columns '%s', '%s'%s%s%s",
                                shown, line_no, VSHOWN_TEXT(ctime), VSHOWN_TEXT(cvalue), cpos[0] ? ", '" : "",
                                VSHOWN_TEXT(cpos), cpos[0] ? "'" : "");
            break;
        }
        /* The steady state ("inf") is not a time a run reaches: it stays in the file, not in the check. */
        if (!isfinite(t)) continue;
        if (push(r, &cap, t * r->time_scale, x * r->position_scale, y * r->value_scale))
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    free(text);
    free(names);
    free(fields);
    if (!rc && r->count == 0)
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %s: '%s' has no rows that match", case_file, path, shown);
    if (!r->time_label[0]) snprintf(r->time_label, sizeof r->time_label, "%s", ctime);
    if (!r->value_label[0]) snprintf(r->value_label, sizeof r->value_label, "%s", cvalue);
    if (!r->position_label[0]) snprintf(r->position_label, sizeof r->position_label, "%s", cpos);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* Cases                                                                                             */
/* ------------------------------------------------------------------------------------------------ */

static int pick(const char *file, const char *key, const char *got, const char *const *names, int *out, eddy_error *err)
{
    char list[512] = "";
    for (int i = 0; names[i]; ++i) {
        if (strcmp(got, names[i]) == 0) {
            *out = i;
            return 0;
        }
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", i ? ", " : "", names[i]);
    }
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %s: expected one of %s, got \"%s\"", file, key, list,
                          VSHOWN_TEXT(got));
}

static const char *const MEASURES[] = {"probe",          "bottom_pressure", "pressure_gradient", "mean_density",
                                       "density_deviation", "max_speed",   "bottom_density",   "profile",
                                       "mode_amplitude", "ring_speed",    "ring_travel",       "ring_impulse",
                                       "vortex_growth",  "vortex_core",   "vortex_peak_speed", "circulation",
                                       "pair_speed",     "pair_separation", "pair_circulation", "pair_impulse",
                                       NULL};
static const char *const ERRORS[] = {"rms_relative", "slope_relative", "max_relative", "rms_normalized",
                                     "impulse_relative", "relative",   "value",        "shortfall",    NULL};
static const char *const REDUCES[] = {"mean", "max", "last", NULL};
static const char *const AXES[] = {"x", "y", "z", NULL};

/*
 * The keys each part of a check reads. A key a part does not read is refused rather than ignored: a
 * case that says "smooth" or "point" where nothing uses it would be judged on something other than
 * what its file states.
 */
static const char *const CHECK_KEYS[] = {"name", "title", "measure", "error", "reference", "bar", NULL};
static const char *const MEASURE_KEYS[] = {"kind", NULL};
static const char *const PROBE_KEYS[] = {"kind", "probe", "dry", NULL};
static const char *const PROFILE_KEYS[] = {"kind", "axis", "component", "band", NULL};
static const char *const MODE_KEYS[] = {"kind", "mode", "wavenumber", NULL};
static const char *const PEAK_KEYS[] = {"kind", "core", NULL};
static const char *const WINDOW_KEYS[] = {"kind", "from", "to", NULL};
static const char *const SHIFT_KEYS[] = {"kind", "from", "to", "max_shift", NULL};
static const char *const SMOOTH_KEYS[] = {"kind", "from", "to", "smooth", NULL};
static const char *const VALUE_KEYS[] = {"kind", "from", "to", "reduce", "source", "value", NULL};
static const char *const BOUND_KEYS[] = {"kind", "from", "to", "reduce", "source", NULL};

/* The reference points whose time lies in the check's window (verror's in_window). */
static size_t points_in_window(const vcheck *ck)
{
    size_t n = 0;
    for (size_t k = 0; k < ck->ref.count; ++k) {
        const double x = ck->ref.t[k] / ck->ref.time_scale;
        n += x >= ck->from - 1e-9 && x <= ck->to + 1e-9;
    }
    return n;
}

/* The run's samples (times k * sample_interval, the frames' output_interval, up to end_time when the
 * case sets it) in the check's window; LONG_MAX for more (a window without "to" in a case without
 * "end_time" is endless, and a short sample_interval makes up to 1e90: the count was cast to long
 * unchecked, undefined behaviour). */
static long samples_in_window(const vcheck *ck, double sample_interval, double end_time)
{
    const double to = isfinite(end_time) ? fmin(ck->to * ck->ref.time_scale, end_time) : ck->to * ck->ref.time_scale;
    const double a = ck->from * ck->ref.time_scale / sample_interval, b = to / sample_interval;
    const double first = ceil(fmax(a, 0.0) - 1e-9), last = floor(b + 1e-9);
    if (!(last >= first)) return 0;
    const double n = last - first + 1;
    return n < (double)LONG_MAX ? (long)n : LONG_MAX;
}

static int read_check(const char *file, const cJSON *o, int index, double sample_interval, double end_time,
                      vcheck *ck, eddy_error *err)
{
    char path[64], key[96], text[64];
    snprintf(path, sizeof path, "checks[%d]", index);
    int rc, k;
    if (!cJSON_IsObject(o)) return bad(err, file, path, "expected an object");
    if ((rc = only_keys(o, CHECK_KEYS, "a check", file, path, err))) return rc;
    if ((rc = get_text(o, "name", 1, ck->name, sizeof ck->name, file, path, err)) ||
        (rc = get_text(o, "title", 0, ck->title, sizeof ck->title, file, path, err)) ||
        (rc = get_number(o, "bar", 1, 0, 1e30, &ck->bar, file, path, err)))
        return rc;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "measure");
    snprintf(key, sizeof key, "%s.measure", path);
    if (!cJSON_IsObject(m)) return bad(err, file, key, "missing (an object with a \"kind\")");
    if ((rc = get_string(m, "kind", 1, text, sizeof text, file, key, err))) return rc;
    snprintf(key, sizeof key, "%s.measure.kind", path);
    if ((rc = pick(file, key, text, MEASURES, &k, err))) return rc;
    ck->measure = (measure_kind)k;
    snprintf(key, sizeof key, "%s.measure", path);
    /* A pressure probe reads NaN where no fluid is within h; a wall sensor before the water arrives
     * reads the atmosphere, 0, and "dry" says so for the check. The probe keeps NaN for `eddy run`,
     * where "no fluid here" is worth seeing. */
    ck->dry = NAN;
    if (ck->measure == M_PROBE && ((rc = get_string(m, "probe", 1, ck->probe, sizeof ck->probe, file, key, err)) ||
                                   (rc = get_number(m, "dry", 0, -1e30, 1e30, &ck->dry, file, key, err))))
        return rc;
    if (ck->measure == M_PROFILE) {
        char axis[8] = "y", comp[8] = "x";
        if ((rc = get_string(m, "axis", 1, axis, sizeof axis, file, key, err)) ||
            (rc = get_string(m, "component", 1, comp, sizeof comp, file, key, err)) ||
            (rc = get_number(m, "band", 0, 0, 1e30, &ck->band, file, key, err)))
            return rc;
        char k2[128];
        snprintf(k2, sizeof k2, "%s.axis", key);
        if ((rc = pick(file, k2, axis, AXES, &ck->axis, err))) return rc;
        snprintf(k2, sizeof k2, "%s.component", key);
        if ((rc = pick(file, k2, comp, AXES, &ck->component, err))) return rc;
    }
    if (ck->measure == M_MODE_AMPLITUDE) {
        char mode[32] = "";
        static const char *const MODES[] = {"taylor_green", "shear_wave", NULL};
        if ((rc = get_number(m, "wavenumber", 1, 1e-30, 1e30, &ck->wavenumber, file, key, err)) ||
            (rc = get_string(m, "mode", 1, mode, sizeof mode, file, key, err)))
            return rc;
        char k2[128];
        snprintf(k2, sizeof k2, "%s.mode", key);
        if ((rc = pick(file, k2, mode, MODES, &ck->mode, err))) return rc;
        ++ck->mode;
    }
    if (ck->measure == M_VORTEX_PEAK) {
        /* Which delta the peak is held to: the blob-smoothed field's, which moves with the resolution and
         * so measures the scheme against its own start, or the vortex the case defines, which measures
         * the discretisation too (validate_vortex.c). Kept in `mode`, which no vortex measure uses. */
        char core[32] = "smoothed";
        static const char *const CORES[] = {"smoothed", "case", NULL};
        if ((rc = get_string(m, "core", 0, core, sizeof core, file, key, err))) return rc;
        char k2[128];
        snprintf(k2, sizeof k2, "%s.core", key);
        if ((rc = pick(file, k2, core, CORES, &ck->mode, err))) return rc;
    }
    char owner[96];
    snprintf(owner, sizeof owner, "a \"%s\" measure", MEASURES[ck->measure]);
    if ((rc = only_keys(m,
                        ck->measure == M_PROBE            ? PROBE_KEYS
                        : ck->measure == M_PROFILE        ? PROFILE_KEYS
                        : ck->measure == M_MODE_AMPLITUDE ? MODE_KEYS
                        : ck->measure == M_VORTEX_PEAK    ? PEAK_KEYS
                                                          : MEASURE_KEYS,
                        owner, file, key, err)))
        return rc;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
    snprintf(key, sizeof key, "%s.error", path);
    if (!cJSON_IsObject(e)) return bad(err, file, key, "missing (an object with a \"kind\")");
    if ((rc = get_string(e, "kind", 1, text, sizeof text, file, key, err))) return rc;
    char k2[128];
    snprintf(k2, sizeof k2, "%s.kind", key);
    if ((rc = pick(file, k2, text, ERRORS, &k, err))) return rc;
    ck->error = (error_kind)k;
    if (cJSON_GetObjectItemCaseSensitive(e, "smooth") && (ck->error != E_RMS_NORMALIZED || ck->measure == M_PROFILE)) {
        snprintf(k2, sizeof k2, "%s.smooth", key);
        snprintf(text, sizeof text, "kind is %s", ERRORS[ck->error]);
        char what[128];
        snprintf(what, sizeof what, "only rms_normalized of a series smooths (%s)",
                 ck->error == E_RMS_NORMALIZED ? "the measure is a profile" : text);
        return bad(err, file, k2, what);
    }
    snprintf(k2, sizeof k2, "\"%s\"", ERRORS[ck->error]);
    if ((rc = only_keys(e,
                        ck->error == E_RMS_RELATIVE     ? SHIFT_KEYS
                        : ck->error == E_RMS_NORMALIZED ? SMOOTH_KEYS
                        : ck->error == E_RELATIVE || ck->error == E_SHORTFALL ? VALUE_KEYS
                        : ck->error == E_VALUE          ? BOUND_KEYS
                                                        : WINDOW_KEYS,
                        k2, file, key, err)))
        return rc;
    ck->from = -INFINITY;
    ck->to = INFINITY;
    ck->reduce = R_MEAN;
    if ((rc = get_number(e, "from", 0, -1e30, 1e30, &ck->from, file, key, err)) ||
        (rc = get_number(e, "to", 0, -1e30, 1e30, &ck->to, file, key, err)) ||
        (rc = get_number(e, "max_shift", 0, 0, 1e30, &ck->max_shift, file, key, err)) ||
        (rc = get_number(e, "smooth", 0, 0, 1e30, &ck->smooth, file, key, err)) ||
        (rc = get_string(e, "source", ck->error >= E_RELATIVE, ck->value_source, sizeof ck->value_source, file, key, err)))
        return rc;
    if ((ck->error == E_RELATIVE || ck->error == E_SHORTFALL) &&
        (rc = get_number(e, "value", 1, -1e30, 1e30, &ck->value, file, key, err)))
        return rc;
    if (cJSON_GetObjectItemCaseSensitive(e, "reduce")) {
        if ((rc = get_string(e, "reduce", 1, text, sizeof text, file, key, err))) return rc;
        snprintf(k2, sizeof k2, "%s.reduce", key);
        if ((rc = pick(file, k2, text, REDUCES, &k, err))) return rc;
        ck->reduce = (reduce_kind)k;
    }
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "reference");
    snprintf(key, sizeof key, "%s.reference", path);
    if (ck->error < E_RELATIVE) {
        if (!cJSON_IsObject(r)) return bad(err, file, key, "missing (this error measure compares with a reference file)");
        ck->has_ref = 1;
        if ((rc = read_reference(file, r, key, &ck->ref, err))) return rc;
        if (ck->measure == M_PROFILE && !cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "columns"), "position"))
            return bad(err, file, key, "a profile's reference needs a \"position\" column");
        /* An integral or a slope needs two points; with fewer the error would be NaN, a failure that
         * says nothing of the solver. */
        const size_t need = ck->error == E_IMPULSE_RELATIVE || ck->error == E_SLOPE_RELATIVE ? 2 : 1,
                     got = points_in_window(ck);
        if (got < need) {
            char what[256];
            snprintf(key, sizeof key, "%s.error", path);
            snprintf(what, sizeof what, "%s needs at least %zu reference point%s in [from, to] = [%g, %g], got %zu",
                     ERRORS[ck->error], need, need == 1 ? "" : "s", ck->from, ck->to, got);
            return bad(err, file, key, what);
        }
        /* A slope also fits the run's own samples (the other measures interpolate the run at the
         * reference's times). */
        const long samples = samples_in_window(ck, sample_interval, end_time);
        if (ck->error == E_SLOPE_RELATIVE && samples < 2) {
            char what[256];
            snprintf(key, sizeof key, "%s.error", path);
            char until[64] = "";
            if (isfinite(end_time)) snprintf(until, sizeof until, " up to end_time %g s", end_time);
            snprintf(what, sizeof what,
                     "slope_relative fits the run's samples in [from, to] = [%g, %g], and at sample_interval %g s "
                     "the window holds %ld%s; it needs at least 2",
                     ck->from, ck->to, sample_interval, samples, until);
            return bad(err, file, key, what);
        }
    } else if (r) {
        char what[256];
        snprintf(what, sizeof what,
                 "not used by \"%s\", which %s (rms_relative, slope_relative, max_relative, rms_normalized "
                 "and impulse_relative read a reference)",
                 ERRORS[ck->error], ck->error == E_VALUE ? "holds the measure itself to the bar" : "compares with error.value");
        return bad(err, file, key, what);
    }
    return 0;
}

static const char *const RESOLUTION_KEYS[] = {"spacing", "set", NULL};

static int read_resolution(const char *file, const cJSON *o, const char *name, vresolution *r, eddy_error *err)
{
    char path[64];
    snprintf(path, sizeof path, "resolutions.%s", name);
    if (!cJSON_IsObject(o)) return bad(err, file, path, "expected an object with \"spacing\" and \"set\"");
    snprintf(r->name, sizeof r->name, "%s", name);
    int rc = only_keys(o, RESOLUTION_KEYS, "a resolution", file, path, err);
    if (rc) return rc;
    rc = get_number(o, "spacing", 1, 1e-30, 1e30, &r->spacing, file, path, err);
    return rc ? rc : get_sets(o, "set", r->sets, &r->set_count, file, path, err);
}

int vcase_load(const char *dir, const char *name, vcase *c, eddy_error *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->file, sizeof c->file, "%s/cases/%s.json", dir, name);
    cJSON *j = read_json(c->file, err);
    if (!j) return err->code ? err->code : EDDY_ERR_IO;
    int rc = 0;
    char scene[VPATH];
    const char *f = c->file;
    c->end_time = NAN;
    if (!cJSON_IsObject(j)) {
        rc = bad(err, f, "(top level)", "expected an object");
        goto done;
    }
    /* A misspelt optional key ("end_tme", "intial") would run the case on its defaults without a word. */
    static const char *const CASE_KEYS[] = {"name", "title", "description", "scene", "end_time",
                                            "sample_interval", "resolutions", "initial", "checks", NULL};
    if ((rc = only_keys(j, CASE_KEYS, "a case", f, "", err))) goto done;
    if ((rc = get_text(j, "name", 1, c->name, sizeof c->name, f, "", err)) ||
        (rc = get_text(j, "title", 1, c->title, sizeof c->title, f, "", err)) ||
        (rc = get_text(j, "description", 0, c->description, sizeof c->description, f, "", err)) ||
        (rc = get_string(j, "scene", 1, scene, sizeof scene, f, "", err)) ||
        (rc = get_number(j, "end_time", 0, 0, 1e30, &c->end_time, f, "", err)) ||
        (rc = get_number(j, "sample_interval", 1, 1e-30, 1e30, &c->sample_interval, f, "", err)))
        goto done;
    if (strcmp(c->name, name) != 0) {
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: name: \"%s\" differs from the file's name \"%s\"", f,
                            VSHOWN_TEXT(c->name), name);
        goto done;
    }
    resolve(f, scene, c->scene, sizeof c->scene);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "resolutions");
    if (!cJSON_IsObject(res)) {
        rc = bad(err, f, "resolutions", "missing (an object with \"coarse\", \"medium\" and \"fine\")");
        goto done;
    }
    static const char *const RES[] = {"coarse", "medium", "fine", NULL};
    if ((rc = only_keys(res, RES, "the resolutions", f, "resolutions", err))) goto done;
    for (int r = 0; r < 3 && !rc; ++r) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(res, RES[r]);
        if (!o) {
            char key[64];
            snprintf(key, sizeof key, "resolutions.%s", RES[r]);
            rc = bad(err, f, key, "missing (every case has coarse, medium and fine)");
        } else {
            rc = read_resolution(f, o, RES[r], &c->res[r], err);
        }
    }
    if (rc) goto done;
    const cJSON *init = cJSON_GetObjectItemCaseSensitive(j, "initial");
    if (init && !cJSON_IsObject(init)) {
        rc = bad(err, f, "initial", "expected an object with \"velocity\", \"hydrostatic\" or \"vortices\"");
        goto done;
    }
    static const char *const INITIAL_KEYS[] = {"velocity", "hydrostatic", "vortices", NULL};
    if (init && (rc = only_keys(init, INITIAL_KEYS, "the initial state", f, "initial", err))) goto done;
    if (init && cJSON_GetObjectItemCaseSensitive(init, "velocity")) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(init, "velocity");
        char kind[32] = "";
        if (!cJSON_IsObject(v)) {
            rc = bad(err, f, "initial.velocity", "expected an object with \"kind\", \"amplitude\" and \"wavenumber\"");
            goto done;
        }
        static const char *const MODES[] = {"taylor_green", "shear_wave", NULL};
        static const char *const VELOCITY_KEYS[] = {"kind", "amplitude", "wavenumber", NULL};
        int mode;
        if ((rc = only_keys(v, VELOCITY_KEYS, "an initial velocity", f, "initial.velocity", err)) ||
            (rc = get_string(v, "kind", 1, kind, sizeof kind, f, "initial.velocity", err)) ||
            (rc = pick(f, "initial.velocity.kind", kind, MODES, &mode, err)))
            goto done;
        c->initial_velocity = mode + 1;
        if ((rc = get_number(v, "amplitude", 1, 1e-30, 1e30, &c->tg_amplitude, f, "initial.velocity", err)) ||
            (rc = get_number(v, "wavenumber", 1, 1e-30, 1e30, &c->tg_wavenumber, f, "initial.velocity", err)))
            goto done;
    }
    const cJSON *vx = init ? cJSON_GetObjectItemCaseSensitive(init, "vortices") : NULL;
    if (vx) {
        static const char *const KINDS[] = {"ring", "lamb_oseen", "pair", NULL};
        static const char *const RING_KEYS[] = {"kind", "circulation", "radius", "core", "blob_radius", NULL};
        static const char *const VORTEX_KEYS[] = {"kind", "circulation", "core", "extent", "blob_radius", NULL};
        static const char *const PAIR_KEYS[] = {"kind",   "circulation", "core", "separation",
                                                "extent", "blob_radius", NULL};
        static const char *const *const KEYS[] = {RING_KEYS, VORTEX_KEYS, PAIR_KEYS};
        char kind[32] = "", owner[64];
        int k;
        const char *P = "initial.vortices";
        if (!cJSON_IsObject(vx)) {
            rc = bad(err, f, P, "expected an object with \"kind\": \"ring\", \"lamb_oseen\" or \"pair\"");
            goto done;
        }
        if ((rc = get_string(vx, "kind", 1, kind, sizeof kind, f, P, err)) ||
            (rc = pick(f, "initial.vortices.kind", kind, KINDS, &k, err)))
            goto done;
        /* A key the kind does not read (a "separation" on one vortex) would leave the flow other than
         * the file states. */
        snprintf(owner, sizeof owner, "vortices of kind \"%s\"", KINDS[k]);
        /* The pair's circulation is that of its counter-clockwise vortex: the other is its opposite,
         * and the pair's speed G / (2 pi d) the reference. */
        if ((rc = only_keys(vx, KEYS[k], owner, f, P, err)) ||
            (rc = get_number(vx, "circulation", 1, k == 2 ? 1e-30 : -1e30, 1e30, &c->vx_circulation, f, P, err)) ||
            (rc = get_number(vx, "core", 1, 1e-30, 1e30, &c->vx_core, f, P, err)) ||
            (rc = get_number(vx, k == 0 ? "radius" : "extent", 1, 1e-30, 1e30, &c->vx_radius, f, P, err)) ||
            (k == 2 && (rc = get_number(vx, "separation", 1, 1e-30, 1e30, &c->vx_separation, f, P, err))))
            goto done;
        /* Two vortices sampled within `extent` of centres `separation` apart share no particle only when
         * the discs do not overlap; overlapping ones would double the vorticity between them. */
        if (k == 2 && !(c->vx_separation > 2 * c->vx_radius)) {
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "%s: initial.vortices.separation: %g is not more than twice the extent %g (the two "
                                "vortices' particles would overlap)",
                                f, c->vx_separation, c->vx_radius);
            goto done;
        }
        /* The particles' blob radius sigma: a length, or "spacing" (the scene's particle spacing, which
         * changes with the resolution). */
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(vx, "blob_radius");
        if (cJSON_IsString(b) && strcmp(b->valuestring, "spacing") == 0) {
            c->vx_blob = -1;
        } else if (!cJSON_IsString(b) && (rc = get_number(vx, "blob_radius", 1, 0, 1e30, &c->vx_blob, f, P, err))) {
            goto done;
        } else if (cJSON_IsString(b)) {
            rc = bad(err, f, "initial.vortices.blob_radius", "expected a length or \"spacing\"");
            goto done;
        }
        c->vortices = k + 1;
    }
    const cJSON *hs = init ? cJSON_GetObjectItemCaseSensitive(init, "hydrostatic") : NULL;
    if (hs) {
        if (!cJSON_IsBool(hs)) {
            rc = bad(err, f, "initial.hydrostatic", "expected true or false");
            goto done;
        }
        c->hydrostatic = cJSON_IsTrue(hs);
    }
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(j, "checks");
    if (!cJSON_IsArray(checks) || cJSON_GetArraySize(checks) < 1 || cJSON_GetArraySize(checks) > VMAX_CHECKS) {
        rc = bad(err, f, "checks", "expected an array of 1 to 8 checks");
        goto done;
    }
    const cJSON *o;
    cJSON_ArrayForEach(o, checks)
    {
        if ((rc = read_check(f, o, c->check_count, c->sample_interval, c->end_time, &c->checks[c->check_count], err))) goto done;
        for (int k = 0; k < c->check_count; ++k)
            if (strcmp(c->checks[k].name, c->checks[c->check_count].name) == 0) {
                char key[64];
                snprintf(key, sizeof key, "checks[%d].name", c->check_count);
                rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %s: \"%s\" is used twice", f, key,
                                    VSHOWN_TEXT(c->checks[k].name));
                goto done;
            }
        /* A vortex measure of a flow the case does not set up would read NaN and fail without saying
         * why. */
        const measure_kind m = c->checks[c->check_count].measure;
        const int needs = m == M_RING_SPEED || m == M_RING_TRAVEL || m == M_RING_IMPULSE ? 1
                          : m == M_VORTEX_GROWTH || m == M_VORTEX_CORE || m == M_VORTEX_PEAK || m == M_CIRCULATION ? 2
                          : m >= M_PAIR_SPEED ? 3 : 0;
        if (needs && needs != c->vortices) {
            static const char *const FLOWS[] = {"", "ring", "lamb_oseen", "pair"};
            char key[64];
            snprintf(key, sizeof key, "checks[%d].measure.kind", c->check_count);
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "%s: %s: \"%s\" measures the vortices of kind \"%s\"; this case's initial.vortices %s%s%s",
                                f, key, MEASURES[m], FLOWS[needs], c->vortices ? "are of kind \"" : "are not given",
                                FLOWS[c->vortices], c->vortices ? "\"" : "");
            goto done;
        }
        ++c->check_count;
    }
done:
    cJSON_Delete(j);
    if (rc) vcase_free(c);
    return rc;
}

void vcase_free(vcase *c)
{
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < c->res[r].set_count; ++k) free(c->res[r].sets[k]);
    for (int k = 0; k < VMAX_CHECKS; ++k) {
        free(c->checks[k].ref.t);
        free(c->checks[k].ref.x);
        free(c->checks[k].ref.y);
    }
    memset(c, 0, sizeof *c);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder beside the program that vcase_default_dir looked for and did not find ("" when it found
 * it, or the default came from EDDY_VALIDATION_DIR): the install folder's error then names it too, as
 * a build tree's program (whose cases come from the target eddy_validation_data) reads from there. */
static char default_missing[VPATH + 64];

int vcase_list(const char *dir, char ***names, size_t *count, eddy_error *err)
{
    char path[VPATH];
    snprintf(path, sizeof path, "%s/cases", dir);
    *names = NULL;
    *count = 0;
    DIR *d = opendir(path);
    if (!d) {
        const int e = errno;
        char beside[VPATH + 192] = "";
        if (default_missing[0] && strcmp(dir, EDDY_VALIDATION_INSTALL_DIR) == 0)
            snprintf(beside, sizeof beside, "; nor is there '%s' beside the program (in a build folder, build the "
                     "target eddy_validation_data, part of the default build)", default_missing);
        return eddy_error_set(err, EDDY_ERR_IO,
                              "cannot read the validation cases in '%s': %s%s (give the folder holding cases/ with "
                              "--cases DIR or EDDY_VALIDATION_DIR)", path, strerror(e), beside);
    }
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n <= 5 || strcmp(e->d_name + n - 5, ".json") != 0 || e->d_name[0] == '.') continue;
        if (*count == cap) {
            cap = cap ? 2 * cap : 16;
            char **nn = realloc(*names, cap * sizeof *nn);
            if (!nn) break;
            *names = nn;
        }
        (*names)[*count] = strndup(e->d_name, n - 5);
        if (!(*names)[*count]) break;
        ++*count;
    }
    int complete = e == NULL;
    closedir(d);
    /* A list cut short by memory would validate fewer cases than asked without saying so. */
    if (!complete) {
        vcase_list_free(*names, *count);
        *names = NULL;
        *count = 0;
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory listing the validation cases in '%s'", path);
    }
    if (*count) qsort(*names, *count, sizeof **names, cmp_str);
    return 0;
}

void vcase_list_free(char **names, size_t count)
{
    for (size_t i = 0; i < count; ++i) free(names[i]);
    free(names);
}

int vcase_default_dir(char *out, size_t size)
{
    default_missing[0] = '\0';
    const char *env = getenv("EDDY_VALIDATION_DIR");
    if (env && *env) {
        snprintf(out, size, "%s", env);
        return 0;
    }
    char exe[VPATH];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char cand[VPATH + 64];
            snprintf(cand, sizeof cand, "%s/../share/eddy/validation", exe);
            DIR *d = opendir(cand);
            if (d) {
                closedir(d);
                snprintf(out, size, "%s", cand);
                return 0;
            }
            snprintf(default_missing, sizeof default_missing, "%s", cand);
        }
    }
    snprintf(out, size, "%s", EDDY_VALIDATION_INSTALL_DIR);
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* The solvers' claims                                                                               */
/* ------------------------------------------------------------------------------------------------ */

/* eddy_tait.so -> eddy_tait.validation.json */
static int claims_file(const char *plugin_file, char *out, size_t size)
{
    if (!plugin_file || plugin_file[0] != '/') return -1;
    size_t n = strlen(plugin_file);
    if (n > 3 && strcmp(plugin_file + n - 3, ".so") == 0) n -= 3;
    snprintf(out, size, "%.*s.validation.json", (int)n, plugin_file);
    return access(out, R_OK) == 0 ? 0 : -1;
}

/* The whole file's shape: every key one of those the format reads, every solver, case and check an
 * object. A misspelt key ("sets" for "set", "case" for "cases") would otherwise be ignored, and the
 * solver validated without its overrides or claims (a list for "cases" crashed the command). */
static int claims_shape(const cJSON *j, const char *file, eddy_error *err)
{
    static const char *const FILE_KEYS[] = {"eddy_validation", "solvers", NULL};
    static const char *const SOLVER_KEYS[] = {"cases", NULL};
    static const char *const CLAIM_KEYS[] = {"expect", "note", "set", "checks", NULL};
    static const char *const CHECK_KEYS[] = {"expect", "note", NULL};
    char solver[128], cases_path[160], claim[256], checks_path[320], check[512];
    int rc = only_keys(j, FILE_KEYS, "a validation file", file, "", err);
    if (rc) return rc;
    const cJSON *s, *c, *k;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(j, "solvers"))
    {
        key_path(solver, sizeof solver, "solvers", s->string);
        if (!cJSON_IsObject(s)) return bad(err, file, solver, "expected an object: {\"cases\": {...}}");
        if ((rc = only_keys(s, SOLVER_KEYS, "a solver's claims", file, solver, err))) return rc;
        const cJSON *cases = cJSON_GetObjectItemCaseSensitive(s, "cases");
        snprintf(cases_path, sizeof cases_path, "%s.cases", solver);
        if (cases && !cJSON_IsObject(cases))
            return bad(err, file, cases_path, "expected an object: case name -> {\"expect\": ...}");
        cJSON_ArrayForEach(c, cases)
        {
            key_path(claim, sizeof claim, cases_path, c->string);
            if (!cJSON_IsObject(c)) return bad(err, file, claim, "expected an object with \"expect\"");
            if ((rc = only_keys(c, CLAIM_KEYS, "a case's claim", file, claim, err))) return rc;
            const cJSON *checks = cJSON_GetObjectItemCaseSensitive(c, "checks");
            snprintf(checks_path, sizeof checks_path, "%s.checks", claim);
            if (checks && !cJSON_IsObject(checks))
                return bad(err, file, checks_path, "expected an object: check name -> {\"expect\": ...}");
            cJSON_ArrayForEach(k, checks)
            {
                key_path(check, sizeof check, checks_path, k->string);
                if (!cJSON_IsObject(k)) return bad(err, file, check, "expected an object with \"expect\"");
                if ((rc = only_keys(k, CHECK_KEYS, "a check's claim", file, check, err))) return rc;
            }
        }
    }
    return 0;
}

/* The object of solver `id` in the file, or NULL (no file, or the file does not name the solver). */
static cJSON *claims_of(const char *plugin_file, const char *id, char *file, size_t size, const cJSON **solver,
                        eddy_error *err)
{
    *solver = NULL;
    if (claims_file(plugin_file, file, size)) return NULL;
    cJSON *j = read_json(file, err);
    if (!j) return NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "eddy_validation");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "solvers");
    if (!cJSON_IsNumber(v) || v->valueint != 1) {
        bad(err, file, "eddy_validation", "expected 1 (the format's version)");
    } else if (!cJSON_IsObject(s)) {
        bad(err, file, "solvers", "expected an object: solver id -> {\"cases\": {...}}");
    } else if (!claims_shape(j, file, err)) {
        *solver = cJSON_GetObjectItemCaseSensitive(s, id);
        return j;
    }
    cJSON_Delete(j);
    return NULL;
}

/* "expect": "pass" or "miss", or per resolution {"coarse": "pass", "medium": "miss", ...} (a resolution
 * left out is not claimed). `res` NULL (--list): "miss" when any resolution says so. */
static int read_expect(const cJSON *o, const char *res, const char *file, const char *path, claim_kind *out,
                       eddy_error *err)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "expect");
    char key[460];
    snprintf(key, sizeof key, "%s.expect", path);
    *out = CLAIM_NONE;
    if (!e) return bad(err, file, key, "missing (\"pass\", \"miss\", or an object of them per resolution)");
    const cJSON *v = e;
    if (cJSON_IsObject(e)) {
        const cJSON *r;
        cJSON_ArrayForEach(r, e)
        {
            if (strcmp(r->string, "coarse") && strcmp(r->string, "medium") && strcmp(r->string, "fine"))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "%s: %s: expected the resolutions coarse, medium and fine, got \"%s\"", file, key,
                                      VSHOWN_TEXT(r->string));
            if (!cJSON_IsString(r) || (strcmp(r->valuestring, "pass") && strcmp(r->valuestring, "miss")))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %s.%s: expected \"pass\" or \"miss\"", file,
                                      key, VSHOWN_KEY(r->string));
            if (!res && (*out == CLAIM_NONE || r->valuestring[0] == 'm'))
                *out = r->valuestring[0] == 'p' ? CLAIM_PASS : CLAIM_MISS;
        }
        if (!res) return 0;
        v = cJSON_GetObjectItemCaseSensitive(e, res);
        if (!v) return 0;
    }
    if (cJSON_IsString(v) && strcmp(v->valuestring, "pass") == 0) {
        *out = CLAIM_PASS;
    } else if (cJSON_IsString(v) && strcmp(v->valuestring, "miss") == 0) {
        *out = CLAIM_MISS;
    } else {
        const int text = cJSON_IsString(v);
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: %s: expected \"pass\" or \"miss\", got %s%s%s", file,
                              key, text ? "\"" : "", text ? VSHOWN_TEXT(v->valuestring) : "another type", text ? "\"" : "");
    }
    return 0;
}

int vclaim_find(const char *plugin_file, const char *id, const char *name, const char *res, vclaim *out,
                eddy_error *err)
{
    memset(out, 0, sizeof *out);
    const cJSON *solver;
    eddy_error_clear(err);
    cJSON *j = claims_of(plugin_file, id, out->source, sizeof out->source, &solver, err);
    if (!j) return err->code;
    int rc = 0;
    const cJSON *cases = solver ? cJSON_GetObjectItemCaseSensitive(solver, "cases") : NULL;
    const cJSON *c = cases ? cJSON_GetObjectItemCaseSensitive(cases, name) : NULL;
    char path[256];
    snprintf(path, sizeof path, "solvers.%s.cases.%s", id, name);
    if (c && !cJSON_IsObject(c)) {
        rc = bad(err, out->source, path, "expected an object with \"expect\"");
    } else if (c && !(rc = read_expect(c, res, out->source, path, &out->kind, err))) {
        rc = get_text(c, "note", out->kind == CLAIM_MISS, out->note, sizeof out->note, out->source, path, err);
        if (!rc) rc = get_sets(c, "set", out->sets, &out->set_count, out->source, path, err);
        const cJSON *checks = cJSON_GetObjectItemCaseSensitive(c, "checks"), *ck;
        char cpath[400];
        cJSON_ArrayForEach(ck, checks)
        {
            if (rc) break;
            char checks_path[272];
            snprintf(checks_path, sizeof checks_path, "%s.checks", path);
            key_path(cpath, sizeof cpath, checks_path, ck->string);
            if (out->check_count == VMAX_CHECKS) {
                rc = bad(err, out->source, cpath, "more than 8 checks");
                break;
            }
            const int k = out->check_count++;
            /* (made terminal-safe as the case's own check names are, which it is compared with) */
            snprintf(out->check_names[k], VNAME, "%s", ck->string);
            out->check_names[k][eddy_scene_terminal_safe(out->check_names[k], out->check_names[k],
                                                         strlen(out->check_names[k]))] = '\0';
            if (!(rc = read_expect(ck, res, out->source, cpath, &out->check_kinds[k], err)))
                rc = get_text(ck, "note", out->check_kinds[k] == CLAIM_MISS, out->check_notes[k],
                                sizeof out->check_notes[k], out->source, cpath, err);
        }
    }
    cJSON_Delete(j);
    if (rc) vclaim_free(out);
    return rc;
}

claim_kind vclaim_of_check(const vclaim *c, const char *check, const char **note)
{
    for (int k = 0; k < c->check_count; ++k)
        if (strcmp(c->check_names[k], check) == 0) {
            if (note) *note = c->check_notes[k];
            return c->check_kinds[k];
        }
    if (note) *note = c->note;
    return c->kind;
}

void vclaim_free(vclaim *c)
{
    for (int k = 0; k < c->set_count; ++k) free(c->sets[k]);
    c->set_count = 0;
}

int vclaim_cases(const char *plugin_file, const char *id, char ***names, size_t *count, eddy_error *err)
{
    *names = NULL;
    *count = 0;
    char file[VPATH];
    const cJSON *solver;
    eddy_error_clear(err);
    cJSON *j = claims_of(plugin_file, id, file, sizeof file, &solver, err);
    if (!j) return err->code;
    const cJSON *cases = solver ? cJSON_GetObjectItemCaseSensitive(solver, "cases") : NULL;
    int n = cases ? cJSON_GetArraySize(cases) : 0;
    if (n > 0 && (*names = calloc((size_t)n, sizeof **names))) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cases)
        {
            if (((*names)[*count] = strdup(c->string))) ++*count;
        }
    }
    cJSON_Delete(j);
    return 0;
}
