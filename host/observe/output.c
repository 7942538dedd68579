#include "output.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "output_thread.h"
#include "services.h"
#include "snapshot.h"
#include "writers_builtin.h"

/* One writer of the output: the component, its parameter values (strings copied) and its instance. */
typedef struct writer_slot {
    const eddy_component *component;
    const eddy_writer_vtable *vtable;
    eddy_param_value *values;
    char **strings;               /* copies of the STRING values, owned */
    eddy_param_values params;
    eddy_writer *instance;
    int builtin; /* the host's own writer, whose messages name the file they write */
    int threaded; /* overlap: one of writers_builtin.h's, written on the writer thread */
} writer_slot;

struct eddy_output {
    char *dir;
    char *diag_path;
    eddy_output_options opt;
    eddy_registry *own_registry;  /* when none was given */
    FILE *diag;
    writer_slot *writers;
    size_t writer_count;
    int vtk_pieces;       /* several processes and the "vtk" writer among the formats */
    FILE *table;          /* eddy_output_open_table(), at most one */
    char *table_path;
    /* Overlap: the writer thread, the snapshot it writes from (read by the thread while a frame is in
     * flight, written by the caller only after waiting), and whether the threaded writers read particles. */
    eddy_output_thread *thread;
    eddy_snapshot *staging;
    int threaded_count, staging_particles;
    /* Overlapped pieces (eddy_output_submit_piece): this process's piece in flight is copied into
     * piece_staging; on piece 0, `pending` holds the clock and field table of the frame whose .pvtp
     * waits for eddy_output_commit_pieces. piece_mode: set by the first submit. */
    eddy_snapshot *piece_staging, *pending;
    int piece_mode, pending_set;
    eddy_error piece_lost; /* the first piece error of this process (code 0: none), kept */
};

static const char DIAG_HEADER[] =
    "time,step,kinetic_energy,momentum_x,momentum_y,momentum_z,density_error_mean,density_error_max,"
    "max_speed,wall_ms,particles,potential_energy,total_energy,density_error_p99\n";

/* Times go to text with 12 significant digits, so comparing a time read back with one in memory
 * needs a tolerance well above that rounding. */
static int time_at_or_before(double t, double limit)
{
    return t <= limit + 1e-9 * fmax(1.0, fabs(limit));
}

static char *dup_str(const char *a)
{
    size_t n = strlen(a) + 1;
    char *s = malloc(n);
    if (s) memcpy(s, a, n);
    return s;
}

char *eddy_output_join_path(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (!s) return NULL;
    memcpy(s, a, la);
    size_t k = la;
    if (la && a[la - 1] != '/') s[k++] = '/';
    memcpy(s + k, b, lb + 1);
    return s;
}

void eddy_output_remove_in(const char *dir, const char *name)
{
    char *path = eddy_output_join_path(dir, name);
    if (path) remove(path);
    free(path);
}

int eddy_output_frame_name(const char *name)
{
    if (strncmp(name, "frame_", 6) != 0) return 0;
    const char *p = name + 6, *d = p;
    while (isdigit((unsigned char)*p)) ++p;
    if (p - d < 5) return 0;
    if (p[0] == '_' && p[1] == 'p' && isdigit((unsigned char)p[2])) {
        p += 2;
        while (isdigit((unsigned char)*p)) ++p;
    }
    return *p == '.' && p[1];
}

void eddy_output_remove_frames(const char *dir, const char *sub)
{
    char *folder = eddy_output_join_path(dir, sub);
    DIR *d = folder ? opendir(folder) : NULL;
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (!eddy_output_frame_name(e->d_name)) continue;
            char *path = eddy_output_join_path(folder, e->d_name);
            if (path) unlink(path); /* (files only: a folder of that name is not a frame eddy wrote) */
            free(path);
        }
        closedir(d);
    }
    free(folder);
}

eddy_output_options eddy_output_default_options(void)
{
    eddy_output_options o;
    memset(&o, 0, sizeof o);
    return o;
}

/* ---------------------------------------------------------------------------------------------- */
/* Folders and atomic files                                                                        */

int eddy_output_make_dirs(const char *dir, eddy_error *err)
{
    if (!dir || !*dir)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "cannot create output folder '': empty path");
    size_t n = strlen(dir);
    char *path = malloc(n + 1);
    if (!path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(path, dir, n + 1);
    int status = EDDY_OK;
    /* Visit every prefix that ends just before a '/', then the whole path. */
    for (size_t i = 1; i <= n && !status; ++i) {
        if (i < n && path[i] != '/') continue;
        if (i < n && path[i - 1] == '/') continue; /* "a//b" */
        char saved = path[i];
        path[i] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            status = eddy_error_set(err, EDDY_ERR_IO, "cannot create output folder '%s': %s", dir, strerror(e));
        } else {
            /* EEXIST also covers a regular file in the way; only a directory will do. */
            struct stat st;
            if (stat(path, &st) != 0) {
                int e = errno;
                status = eddy_error_set(err, EDDY_ERR_IO, "cannot create output folder '%s': %s", dir, strerror(e));
            } else if (!S_ISDIR(st.st_mode)) {
                status = eddy_error_set(err, EDDY_ERR_IO, "cannot create output folder '%s': '%s' is not a directory",
                                        dir, path);
            }
        }
        path[i] = saved;
    }
    free(path);
    return status;
}

void eddy_output_remove_fifo(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) unlink(path);
}

/* A file being written under "<path>.tmp"; committed by renaming it over <path>. */

int eddy_atomic_open(eddy_atomic_file *af, const char *path, eddy_error *err)
{
    af->path = path;
    af->f = NULL;
    size_t n = strlen(path);
    af->tmp = malloc(n + 5);
    if (!af->tmp) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(af->tmp, path, n);
    memcpy(af->tmp + n, ".tmp", 5);
    eddy_output_remove_fifo(af->tmp);
    af->f = fopen(af->tmp, "wb");
    if (!af->f) {
        int e = errno;
        free(af->tmp);
        af->tmp = NULL;
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", path, strerror(e));
    }
    /* Frames are large and written front to back; a big buffer keeps the syscall count low. */
    setvbuf(af->f, NULL, _IOFBF, 1 << 20);
    return EDDY_OK;
}

int eddy_atomic_commit(eddy_atomic_file *af, eddy_error *err)
{
    /* A full disk shows up in ferror or at fclose, never in the fprintf calls we did not check. */
    int bad = ferror(af->f);
    int e = bad ? (errno ? errno : EIO) : 0;
    if (fclose(af->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    af->f = NULL;
    if (!bad && rename(af->tmp, af->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        remove(af->tmp);
        free(af->tmp);
        af->tmp = NULL;
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", af->path, strerror(e));
    }
    free(af->tmp);
    af->tmp = NULL;
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* The writer                                                                                       */

/* How many columns `header` appends to the file's header line `old`, an older eddy's leading part of
 * it (0 when they are the same or old is not a leading part of it: table_lines refuses the latter). */
static size_t appended_columns(const char *old, const char *header)
{
    const size_t n = strcspn(old, "\r\n");
    if (strncmp(old, header, n) != 0 || header[n] != ',') return 0;
    size_t added = 0;
    for (const char *c = header + n; *c && *c != '\n'; ++c) added += *c == ',';
    return added;
}

void eddy_output_warn(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    char *text = NULL;
    const int n = vasprintf(&text, format, ap);
    va_end(ap);
    if (n < 0) return; /* (out of memory: the run goes on without the warning) */
    eddy_services_say("warning: ", text);
    free(text);
}

/* The frames whose rows a resumed table should hold: frame k at k * interval, for k = 0..last (the
 * clock lands on each exactly, session.h); seen[k] once a row of it is read. `seen` NULL: no check
 * (no interval known, or nothing before the resume point). */
typedef struct table_rows {
    double interval;
    unsigned long long last;
    unsigned char *seen;
    int torn; /* the last row was cut short and left out */
} table_rows;

static size_t count_commas(const char *line)
{
    size_t n = 0;
    for (; *line && *line != '\n'; ++line) n += *line == ',';
    return n;
}

static void table_rows_begin(table_rows *r, const eddy_output *o, double keep_until)
{
    memset(r, 0, sizeof *r);
    const double interval = o->opt.scene ? o->opt.scene->output_interval : 0.0;
    if (!(interval > 0.0) || !(keep_until >= 0.0)) return;
    const double last = floor(keep_until / interval + 1e-6);
    if (!(last < 0x1p40)) return;
    r->interval = interval;
    r->last = (unsigned long long)last;
    /* (without the memory for it the table is continued unchecked, as before: no reason to refuse) */
    r->seen = calloc((size_t)r->last + 1, 1);
}

static void table_rows_see(table_rows *r, double t)
{
    if (!r->seen || !(t >= -0.5 * r->interval)) return;
    const double k = floor(t / r->interval + 0.5);
    if (k <= (double)r->last && fabs(t - k * r->interval) <= 1e-6 * r->interval) r->seen[(size_t)k] = 1;
}

/* Says which frames' rows the table lacks (a row was expected for each; none is made up for them). */
static void table_rows_end(table_rows *r, const char *path, int missing)
{
    unsigned long long lost = 0, first = 0;
    for (unsigned long long k = 0; r->seen && k <= r->last; ++k)
        if (!r->seen[k] && !lost++) first = k;
    const char *torn = r->torn ? " (its last row was cut short: left out)" : "";
    if (r->seen && missing)
        eddy_output_warn("'%s' was missing: the rows of the %llu frame%s before the resume point (t = 0 to %.6g s) "
                         "are lost; the table starts again at t = %.6g s", path, r->last + 1, r->last ? "s" : "",
                         (double)r->last * r->interval, (double)(r->last + 1) * r->interval);
    else if (lost)
        eddy_output_warn("'%s' lacks the rows of %llu of the %llu frame%s before the resume point (the first at "
                         "t = %.6g s): the rows it has are kept, none made up%s", path, lost, r->last + 1,
                         r->last ? "s" : "", (double)first * r->interval, torn);
    else if (r->torn)
        eddy_output_warn("'%s': its last row was cut short and is left out", path);
    free(r->seen);
    r->seen = NULL;
}

/*
 * What a resume checks of a table's lines before it keeps any (trim_table, eddy_output_check_tables): the
 * header line is the one `header` names, or a leading part of it that an older eddy wrote (its rows then
 * lack the columns appended since); the rows' times never go backwards. A header edited by hand (a
 * column removed) left the old rows one field longer than the header put back over them, and a row
 * copied out of place survived the trim as one of the run's; refused rather than continued, with the
 * file left as it was.
 */
typedef struct table_lines {
    const char *path, *header;
    unsigned long long line;      /* of the line last seen, from 1 */
    size_t added;                 /* columns the header has beyond those of the file's rows */
    char *header_line;            /* the file's, when it is a leading part of `header` (owned) */
    double last_time;             /* of the last row kept in order, at last_line (0: none yet) */
    unsigned long long last_line;
} table_lines;

static void table_lines_begin(table_lines *k, const char *path, const char *header)
{
    memset(k, 0, sizeof *k);
    k->path = path;
    k->header = header;
}

static void table_lines_end(table_lines *k)
{
    free(k->header_line);
    k->header_line = NULL;
}

/* The `col`-th (from 0) comma-separated field of `line` and its length; NULL past the last one. */
static const char *csv_field(const char *line, size_t col, size_t *len)
{
    const char *f = line;
    for (size_t c = 0; c < col; ++c) {
        f += strcspn(f, ",\r\n");
        if (*f != ',') return NULL;
        ++f;
    }
    *len = strcspn(f, ",\r\n");
    return f;
}

static int header_refused(const table_lines *k, const char *found, eddy_error *err)
{
    /* The first column that differs: a header of hundreds of probes is more than a message holds. */
    size_t col = 0, flen = 0, hlen = 0;
    const char *f, *h;
    for (;; ++col) {
        f = csv_field(found, col, &flen);
        h = csv_field(k->header, col, &hlen);
        if (!f || !h || flen != hlen || strncmp(f, h, flen) != 0) break;
    }
    char what[256];
    if (f && h)
        snprintf(what, sizeof what, "column %zu is '%.*s', expected '%.*s'", col + 1, (int)(flen > 64 ? 64 : flen), f,
                 (int)(hlen > 64 ? 64 : hlen), h);
    else if (h)
        snprintf(what, sizeof what, "it ends before column %zu, '%.*s', which its rows have", col + 1,
                 (int)(hlen > 64 ? 64 : hlen), h);
    else
        snprintf(what, sizeof what, "column %zu, '%.*s', is not one this run writes", col + 1,
                 (int)(flen > 64 ? 64 : flen), f ? f : "");
    const size_t n = strcspn(k->header, "\n");
    return eddy_error_set(err, EDDY_ERR_IO,
                          "cannot continue '%s': its header line is not the one this run writes (%s; this run "
                          "writes '%.*s%s'), so its rows would stand under other columns: a header edited by hand, or a "
                          "table of another run; put the header back, or move the file away, and resume again (the "
                          "file is left as it was)",
                          k->path, what, (int)(n > 320 ? 320 : n), k->header, n > 320 ? "..." : "");
}

/* Checks one line of the file (with its line break, if it has one). *keep: 1 for a row (its time in
 * *t; *torn when it is a last row cut short), 0 for the header or a line that is no row. */
static int table_lines_see(table_lines *k, const char *line, int *keep, double *t, int *torn, eddy_error *err)
{
    *keep = *torn = 0;
    char *end;
    *t = strtod(line, &end);
    if (++k->line == 1 && end == line) {
        /* The header: the one this run writes, or an older eddy's leading part of it. */
        const size_t n = strcspn(line, "\r\n");
        if (strncmp(line, k->header, n) == 0 && k->header[n] == '\n') return EDDY_OK;
        if (!(k->added = appended_columns(line, k->header))) return header_refused(k, line, err);
        if (!(k->header_line = dup_str(line))) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        return EDDY_OK;
    }
    if (end == line) return EDDY_OK; /* (not a row: left out, as before) */
    *keep = 1;
    const size_t commas = count_commas(line), want = count_commas(k->header);
    /* A last line without its line break and short of columns is a row cut by hand or by a full disk:
     * its last number is cut too (its time as well, when the cut is early), so it is left out. */
    if (!strchr(line, '\n') && commas + k->added < want) {
        *torn = 1;
        return EDDY_OK;
    }
    /* An older eddy's header has as many columns as its rows: rows with this run's columns under a
     * leading part of its header are a header cut by hand, not an older table to pad. */
    if (k->added && commas == want) return header_refused(k, k->header_line, err);
    if (commas + k->added != want)
        return eddy_error_set(err, EDDY_ERR_IO,
                              "cannot continue '%s': line %llu has %zu columns where the table's header has %zu: a "
                              "row edited by hand, or not one of this table's; mend or remove it and resume again "
                              "(the file is left as it was)",
                              k->path, k->line, commas + 1, want - k->added + 1);
    if (k->last_line && *t < k->last_time)
        return eddy_error_set(err, EDDY_ERR_IO,
                              "cannot continue '%s': line %llu (t = %.12g s) comes after line %llu (t = %.12g s), "
                              "but the run writes its rows in time order: that row was copied or moved there, and "
                              "is not one of the run's rows in its place; remove it (or put the rows back in order) "
                              "and resume again (the file is left as it was)",
                              k->path, k->line, *t, k->last_line, k->last_time);
    if (!isnan(*t)) {
        k->last_time = *t;
        k->last_line = k->line;
    }
    return EDDY_OK;
}

/* Reads the table at `path` through table_lines, writing nothing. */
static int check_table(const char *path, const char *header, eddy_error *err)
{
    FILE *in = fopen(path, "r");
    if (!in) return EDDY_OK; /* (absent or unopenable: the trim says it, as before) */
    table_lines k;
    table_lines_begin(&k, path, header);
    char *line = NULL;
    size_t cap = 0;
    int rc = EDDY_OK, keep, torn;
    double t;
    while (!rc && getline(&line, &cap, in) >= 0) rc = table_lines_see(&k, line, &keep, &t, &torn, err);
    table_lines_end(&k);
    free(line);
    fclose(in);
    return rc;
}

int eddy_output_check_tables(const char *dir, const char *table, const char *header, eddy_error *err)
{
    char *diag = eddy_output_join_path(dir, "diagnostics.csv");
    char *other = table ? eddy_output_join_path(dir, table) : NULL;
    int rc = !diag || (table && !other) ? eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory") : EDDY_OK;
    if (!rc) rc = check_table(diag, DIAG_HEADER, err);
    if (!rc && table) rc = check_table(other, header, err);
    free(diag);
    free(other);
    return rc;
}

/* Rewrites the CSV table at `path` (first column: time) without the rows after keep_until (a resumed
 * run writes those again), with `header` as its first line, and says which frames' rows it lacks
 * before that (table_rows). A header or a row order table_lines refuses leaves the file as it was. */
static int trim_table(const eddy_output *o, const char *path, const char *header, double keep_until, eddy_error *err)
{
    table_rows rows;
    table_rows_begin(&rows, o, keep_until);
    FILE *in = fopen(path, "r");
    if (!in) {
        /* (another reason than absence is the open for appending's to report, naming it) */
        table_rows_end(&rows, path, errno == ENOENT);
        return EDDY_OK;
    }
    eddy_atomic_file af;
    int rc = eddy_atomic_open(&af, path, err);
    if (rc) {
        fclose(in);
        return rc;
    }
    /* Whole lines of any length: a table of hundreds of probes has rows of many kilobytes, and a
     * fixed buffer split them, keeping pieces of later rows that began with a small number. */
    char *line = NULL;
    size_t cap = 0;
    table_lines lines;
    table_lines_begin(&lines, path, header);
    fputs(header, af.f);
    int keep, torn;
    double t;
    errno = 0;
    while (getline(&line, &cap, in) >= 0) {
        if ((rc = table_lines_see(&lines, line, &keep, &t, &torn, err))) break;
        if (!keep || !time_at_or_before(t, keep_until)) continue;
        if (torn) {
            rows.torn = 1;
            continue;
        }
        table_rows_see(&rows, t);
        /* A row of a run written before columns were appended (diagnostics.csv's energies): the new
         * columns left empty, so that every row has the header's columns and none is made up. */
        const size_t n = strcspn(line, "\r\n");
        fwrite(line, 1, n, af.f);
        for (size_t k = 0; k < lines.added; ++k) fputc(',', af.f);
        fputc('\n', af.f);
    }
    /* (getline stops with -1 at the end and on an error; only the end leaves feof set) */
    const int e = errno, read_failed = !rc && (!feof(in) || ferror(in));
    table_lines_end(&lines);
    free(line);
    fclose(in);
    if (rc || read_failed) {
        /* The table stays as it was: a trimmed copy of a part of it would lose the rest. */
        free(rows.seen);
        fclose(af.f);
        remove(af.tmp);
        free(af.tmp);
        return rc ? rc : eddy_error_set(err, EDDY_ERR_IO, "cannot read '%s' to continue it: %s", path, strerror(e ? e : EIO));
    }
    rc = eddy_atomic_commit(&af, err);
    if (!rc) table_rows_end(&rows, path, 0);
    free(rows.seen);
    return rc;
}


/* ---------------------------------------------------------------------------------------------- */
/* Writers                                                                                          */

/* The node of output.format that names writer `index` of the scene's list (for error positions). */
static const cJSON *format_node(const eddy_scene *s, size_t index, const char *id, char *path, size_t size)
{
    const cJSON *out = s ? eddy_scene_section(s, "output") : NULL;
    const cJSON *f = cJSON_IsObject(out) ? cJSON_GetObjectItemCaseSensitive(out, "format") : NULL;
    if (cJSON_IsArray(f)) {
        size_t i = 0;
        for (const cJSON *e = f->child; e; e = e->next, ++i)
            if (cJSON_IsString(e) && strcmp(e->valuestring, id) == 0) {
                snprintf(path, size, "output.format[%zu]", i);
                return e;
            }
        return NULL;
    }
    (void)index;
    if (cJSON_IsString(f) && strstr(f->valuestring, id)) {
        snprintf(path, size, "output.format");
        return f;
    }
    return NULL;
}

static int unknown_writer(eddy_output *o, eddy_registry *reg, size_t index, const char *id, eddy_error *err)
{
    char ids[EDDY_ERROR_MESSAGE_MAX / 2];
    const char *available = eddy_scene_registry_ids(reg, EDDY_INTERFACE_WRITER, ids, sizeof ids);
    const char *near = eddy_scene_nearest_id(reg, EDDY_INTERFACE_WRITER, id);
    char mean[96] = "";
    if (near) snprintf(mean, sizeof mean, "; did you mean '%s'?", near);
    char path[48];
    const cJSON *node = format_node(o->opt.scene, index, id, path, sizeof path);
    if (node) {
        eddy_scene_fail_at(o->opt.scene, err, path, node, "unknown writer '%s' (available: %s)%s", id,
                           *available ? available : "none", mean);
        if (err) err->code = EDDY_ERR_NOT_FOUND;
        return EDDY_ERR_NOT_FOUND;
    }
    return eddy_error_set(err, EDDY_ERR_NOT_FOUND, "unknown writer '%s' (available: %s)%s", id,
                          *available ? available : "none", mean);
}

static void slot_free(writer_slot *w)
{
    if (w->instance && w->vtable) w->vtable->destroy(w->instance);
    w->instance = NULL;
    for (size_t i = 0; w->strings && i < w->params.count; ++i) free(w->strings[i]);
    free(w->strings);
    free(w->values);
    memset(w, 0, sizeof *w);
}

/* The writer's validated parameters (output.writers.<id> of the scene, else the defaults), with the
 * strings copied so that they outlive the scene. */
static int slot_params(const eddy_output *o, writer_slot *w, eddy_error *err)
{
    const eddy_component *c = w->component;
    const size_t n = c->param_count;
    w->values = calloc(n ? n : 1, sizeof *w->values);
    w->strings = calloc(n ? n : 1, sizeof *w->strings);
    if (!w->values || !w->strings) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    int rc = EDDY_OK;
    if (o->opt.scene) rc = eddy_scene_component_params(o->opt.scene, c, w->values, NULL, err);
    else
        for (size_t i = 0; i < n; ++i) w->values[i] = eddy_param_default(eddy_param_at(c->params, i));
    if (rc) return rc;
    for (size_t i = 0; i < n; ++i) {
        if (!w->values[i].string) continue;
        if (!(w->strings[i] = dup_str(w->values[i].string)))
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        w->values[i].string = w->strings[i];
    }
    w->params.size = sizeof w->params;
    w->params.desc = c->params;
    w->params.count = n;
    w->params.values = w->values;
    return EDDY_OK;
}

static int open_writers(eddy_output *o, const eddy_world *world, eddy_error *err)
{
    static const char *const DEFAULT_FORMATS[] = {"vtk"};
    const char *const *formats = o->opt.formats;
    size_t count = o->opt.format_count;
    if (!formats) {
        formats = DEFAULT_FORMATS;
        count = 1;
    }
    eddy_registry *reg = o->opt.registry;
    if (!reg && count) {
        int rc = eddy_services_registry(0, &o->own_registry, err);
        if (rc) return rc;
        reg = o->own_registry;
    }
    o->writers = calloc(count ? count : 1, sizeof *o->writers);
    if (!o->writers) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < count; ++i) {
        const eddy_registry_entry *e = eddy_registry_find(reg, formats[i], EDDY_INTERFACE_WRITER);
        if (!e) return unknown_writer(o, reg, i, formats[i], err);
        writer_slot *w = &o->writers[o->writer_count++];
        w->component = e->component;
        w->vtable = e->component->vtable;
        w->builtin = strcmp(e->file, "(built-in)") == 0;
        /* Only the host's own components: their instances are the struct writers_builtin.c knows. */
        w->threaded = o->opt.overlap && eddy_builtin_writer_is(w->vtable);
        int rc = slot_params(o, w, err);
        if (rc) return rc;
        const eddy_writer_setup setup = {
            .size = sizeof setup,
            .dir = o->dir,
            .params = &w->params,
            .host = eddy_services_host(),
            .world = world,
            .resume = o->opt.resume,
            .resume_time = o->opt.resume_time,
        };
        eddy_error_clear(err);
        void *instance = eddy_services_unset_instance();
        rc = w->vtable->create(&setup, (eddy_writer **)&instance, err);
        if (rc) {
            w->instance = NULL;
            eddy_services_callback_error(err, rc, "create");
            /* The built-ins' messages name the file already; a plugin's may not name the writer. */
            if (!w->builtin) eddy_error_prefix(err, "writer '%s': ", formats[i]);
            return rc;
        }
        if ((rc = eddy_services_check_created(rc, &instance, "writer", err)))
            return eddy_error_prefix(err, "writer '%s': ", formats[i]);
        w->instance = instance;
        if (o->opt.resume && eddy_builtin_writer_is(w->vtable) &&
            (rc = eddy_builtin_writer_check_resumed(w->instance, o->opt.scene ? o->opt.scene->output_interval : 0.0, err)))
            return rc;
    }
    return EDDY_OK;
}

/* The writer thread and its staging snapshot, when overlap is asked for and a built-in writer is open. */
static int start_overlap(eddy_output *o, eddy_error *err)
{
    for (size_t i = 0; i < o->writer_count; ++i)
        if (o->writers[i].threaded) {
            o->threaded_count++;
            o->staging_particles |= eddy_builtin_writer_reads_particles(o->writers[i].instance);
        }
    if (!o->threaded_count) return EDDY_OK;
    if (!(o->staging = calloc(1, sizeof *o->staging)))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the output staging buffers");
    return eddy_output_thread_start(&o->thread, err);
}

int eddy_output_create(const char *dir, const eddy_output_options *opt, const eddy_world *w, eddy_output **out,
                       eddy_error *err)
{
    *out = NULL;
    eddy_output *o = calloc(1, sizeof *o);
    if (!o) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    o->opt = opt ? *opt : eddy_output_default_options();
    if (!dir) dir = "";
    o->dir = dup_str(dir);
    o->diag_path = eddy_output_join_path(dir, "diagnostics.csv");
    if (!o->dir || !o->diag_path) {
        eddy_output_destroy(o);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    const int follower = o->opt.pieces > 1 && o->opt.piece != 0;
    /* (the format strings are the caller's, valid during this call only) */
    o->vtk_pieces = o->opt.pieces > 1 && !o->opt.formats;
    for (size_t i = 0; o->opt.pieces > 1 && o->opt.formats && i < o->opt.format_count; ++i)
        o->vtk_pieces |= strcmp(o->opt.formats[i], "vtk") == 0;
    eddy_builtin_writers_set_pieces(o->opt.pieces > 1 ? o->opt.pieces : 1);
    int rc = eddy_output_make_dirs(dir, err);
    if (follower) {
        /* Its pieces only (eddy_output_write_piece): piece 0 writes every shared file. */
        char *frames = eddy_output_join_path(dir, "frames");
        if (!frames) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        if (!rc) rc = eddy_output_make_dirs(frames, err);
        free(frames);
        if (rc) {
            eddy_output_destroy(o);
            return rc;
        }
        *out = o;
        return EDDY_OK;
    }
    /* The writers before diagnostics.csv is truncated: a writer whose create() refuses leaves the
     * folder's earlier run whole. */
    if (!rc) rc = open_writers(o, w, err);
    if (!rc && o->opt.resume) rc = trim_table(o, o->diag_path, DIAG_HEADER, o->opt.resume_time, err);
    if (!rc) {
        o->diag = fopen(o->diag_path, o->opt.resume ? "a" : "w");
        if (!o->diag) {
            int e = errno;
            rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", o->diag_path, strerror(e));
        } else {
            /* Append mode: an empty file (new, or trimmed to nothing) still needs its header. */
            if (fseek(o->diag, 0, SEEK_END) == 0 && ftell(o->diag) == 0) fputs(DIAG_HEADER, o->diag);
            if (fflush(o->diag) != 0) {
                int e = errno;
                rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", o->diag_path, strerror(e));
            }
        }
    }
    if (!rc) rc = start_overlap(o, err);
    if (rc) {
        eddy_output_destroy(o);
        return rc;
    }
    *out = o;
    return EDDY_OK;
}

void eddy_output_destroy(eddy_output *o)
{
    if (!o) return;
    /* First: the thread may be writing with the writers and the snapshot freed below. */
    eddy_output_thread_stop(o->thread);
    o->thread = NULL;
    eddy_snapshot_release(o->staging);
    free(o->staging);
    eddy_snapshot_release(o->piece_staging);
    free(o->piece_staging);
    eddy_snapshot_release(o->pending);
    free(o->pending);
    for (size_t i = 0; i < o->writer_count; ++i) slot_free(&o->writers[i]);
    free(o->writers);
    /* After the writers: a plugin's writer code lives in the registry's shared objects. */
    eddy_registry_destroy(o->own_registry);
    if (o->diag) fclose(o->diag);
    if (o->table) fclose(o->table);
    free(o->table_path);
    free(o->dir);
    free(o->diag_path);
    free(o);
}

const char *eddy_output_dir(const eddy_output *o)
{
    return o->dir;
}

size_t eddy_output_writer_count(const eddy_output *o)
{
    return o ? o->writer_count : 0;
}

const char *eddy_output_writer_id(const eddy_output *o, size_t i)
{
    return o->writers[i].component->id;
}

/* The path of this process's piece of frame `index`, malloc'ed (NULL when out of memory). */
static char *piece_path(const eddy_output *o, uint64_t index)
{
    char name[96];
    snprintf(name, sizeof name, "frames/frame_%05llu_p%d.vtp", (unsigned long long)index, o->opt.piece);
    return eddy_output_join_path(o->dir, name);
}

int eddy_output_write_piece(eddy_output *o, const eddy_frame *local, eddy_error *err)
{
    if (!o->vtk_pieces) return EDDY_OK;
    char *path = piece_path(o, local->index);
    if (!path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    int rc = eddy_vtp_write_piece(path, local, local->world->simulation_scale, err);
    free(path);
    return rc;
}

/* The writer thread's job of an overlapped piece: the staged piece to its file. */
static int write_staged_piece(void *arg, eddy_error *err)
{
    eddy_output *o = arg;
    char *path = piece_path(o, o->piece_staging->index);
    if (!path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    int rc = eddy_vtp_write_piece_snapshot(path, o->piece_staging, err);
    free(path);
    return rc;
}

int eddy_output_overlaps_pieces(const eddy_output *o)
{
    return o && o->opt.overlap && o->vtk_pieces;
}

int eddy_output_submit_piece(eddy_output *o, const eddy_frame *local, eddy_error *err)
{
    if (!eddy_output_overlaps_pieces(o)) return eddy_output_write_piece(o, local, err);
    int rc = EDDY_OK;
    /* The other processes open no writer, hence no thread, until their first piece. */
    if (!o->thread) rc = eddy_output_thread_start(&o->thread, err);
    if (!rc && !o->piece_staging && !(o->piece_staging = calloc(1, sizeof *o->piece_staging)))
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the output staging buffers");
    if (!rc) rc = eddy_output_drain(o, err);
    if (!rc) rc = eddy_snapshot_copy(local, 1, o->piece_staging, err);
    if (rc) return rc;
    o->piece_mode = 1;
    eddy_output_thread_submit(o->thread, write_staged_piece, o);
    return EDDY_OK;
}

/* The "vtk" writer that writes the .pvtp files of piece 0 (NULL elsewhere). */
static writer_slot *pvtp_slot(eddy_output *o)
{
    for (size_t i = 0; i < o->writer_count; ++i)
        if (o->writers[i].threaded && !eddy_builtin_writer_reads_particles(o->writers[i].instance))
            return &o->writers[i];
    return NULL;
}

int eddy_output_commit_pieces(eddy_output *o, int complete, eddy_error *err)
{
    if (!o->pending_set) return EDDY_OK;
    o->pending_set = 0;
    if (!complete) return EDDY_OK;
    writer_slot *w = pvtp_slot(o);
    return w ? eddy_builtin_writer_write(w->instance, o->pending, err) : EDDY_OK;
}

/* The writer thread's job: the threaded writers, in order, from the staging snapshot; the first
 * failure stops it (as write_frame stops at the first failing writer). */
static int write_staged(void *arg, eddy_error *err)
{
    eddy_output *o = arg;
    for (size_t i = 0; i < o->writer_count; ++i) {
        if (!o->writers[i].threaded) continue;
        int rc = eddy_builtin_writer_write(o->writers[i].instance, o->staging, err);
        if (rc) return rc;
    }
    return EDDY_OK;
}

int eddy_output_drain(eddy_output *o, eddy_error *err)
{
    if (!o || !o->thread) return EDDY_OK;
    eddy_error e;
    int rc = eddy_output_thread_wait(o->thread, &e);
    if (!rc) return EDDY_OK;
    if (o->piece_mode && !o->piece_lost.code) o->piece_lost = e;
    if (err) *err = e;
    return rc;
}

int eddy_output_piece_lost(const eddy_output *o, eddy_error *err)
{
    if (!o || !o->piece_lost.code) return EDDY_OK;
    if (err) *err = o->piece_lost;
    return o->piece_lost.code;
}

int eddy_output_overlaps(const eddy_output *o)
{
    return o && o->thread;
}

/* A writer called on the caller's thread, its error named as write_frame's (and the plugin's). */
static int call_writer(writer_slot *w, const eddy_frame *frame, eddy_error *err)
{
    eddy_error_clear(err);
    int rc = w->vtable->write_frame(w->instance, frame, err);
    if (rc) {
        eddy_services_callback_error(err, rc, "write_frame");
        /* (which frame: a plugin's message says its file at best, the run's log says the step) */
        if (!w->builtin)
            eddy_error_prefix(err, "writer '%s' at frame %llu (t = %.6g s): ", w->component->id,
                              (unsigned long long)frame->index, frame->time);
    }
    return rc;
}

int eddy_output_write_frame(eddy_output *o, const eddy_frame *frame, eddy_error *err)
{
    if (o->piece_mode) {
        /* The thread writes this process's pieces; the .pvtp waits for every process's (output.h). A
         * pending frame not committed by now is one whose pieces were not all written: never named. */
        writer_slot *pv = pvtp_slot(o);
        o->pending_set = 0;
        if (pv && !o->pending && !(o->pending = calloc(1, sizeof *o->pending)))
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the output staging buffers");
        int rc = pv ? eddy_snapshot_copy(frame, 0, o->pending, err) : EDDY_OK;
        if (rc) return rc;
        o->pending_set = pv != NULL;
        /* (none in practice: a writer but "vtk" makes the caller gather the frame instead) */
        for (size_t i = 0; !rc && i < o->writer_count; ++i)
            if (&o->writers[i] != pv) rc = call_writer(&o->writers[i], frame, err);
        return rc;
    }
    if (o->thread) {
        /* Back-pressure: the previous frame's files are complete before its snapshot is overwritten. */
        int rc = eddy_output_drain(o, err);
        if (!rc) rc = eddy_snapshot_copy(frame, o->staging_particles, o->staging, err);
        if (rc) return rc;
        eddy_output_thread_submit(o->thread, write_staged, o);
    }
    int rc = EDDY_OK;
    for (size_t i = 0; !rc && i < o->writer_count; ++i)
        if (!(o->writers[i].threaded && o->thread)) rc = call_writer(&o->writers[i], frame, err);
    return rc;
}

/* ---------------------------------------------------------------------------------------------- */
/* Single files                                                                                     */

static int write_world_file(const char *path, const eddy_world *w, float scale, int vtk, eddy_error *err)
{
    eddy_frame f;
    int rc = eddy_frame_of_host_copy(w, 0, &f, err);
    if (rc) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "cannot write '%s': out of memory", path);
    rc = vtk ? eddy_vtp_write_file(path, &f, scale, err) : eddy_csv_write_file(path, &f, scale, err);
    eddy_frame_release(&f);
    return rc;
}

int eddy_output_write_vtp(const char *path, const eddy_world *w, float scale, eddy_error *err)
{
    return write_world_file(path, w, scale, 1, err);
}

int eddy_output_write_csv(const char *path, const eddy_world *w, float scale, eddy_error *err)
{
    return write_world_file(path, w, scale, 0, err);
}

/* ---------------------------------------------------------------------------------------------- */
/* Tables                                                                                           */

int eddy_output_open_table(eddy_output *o, const char *name, const char *header, FILE **f, eddy_error *err)
{
    *f = NULL;
    if (o->opt.pieces > 1 && o->opt.piece != 0) return EDDY_OK; /* piece 0 writes it */
    if (o->table) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "output: a table is open already");
    o->table_path = eddy_output_join_path(o->dir, name);
    if (!o->table_path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    if (o->opt.resume) {
        int rc = trim_table(o, o->table_path, header, o->opt.resume_time, err);
        if (rc) return rc;
    }
    o->table = fopen(o->table_path, o->opt.resume ? "a" : "w");
    if (!o->table) return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", o->table_path, strerror(errno));
    if (fseek(o->table, 0, SEEK_END) == 0 && ftell(o->table) == 0) fputs(header, o->table);
    *f = o->table;
    return eddy_output_flush_table(o, err);
}

int eddy_output_flush_table(eddy_output *o, eddy_error *err)
{
    if (!o->table) return EDDY_OK;
    if (fflush(o->table) != 0 || ferror(o->table)) {
        int e = errno ? errno : EIO;
        clearerr(o->table);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", o->table_path, strerror(e));
    }
    return EDDY_OK;
}

int eddy_output_write_diagnostics(eddy_output *o, const eddy_diagnostics *d, double time, uint64_t step,
                                  double wall_ms, eddy_error *err)
{
    if (!o->diag) return EDDY_OK; /* a process other than piece 0 */
    /* (potential_energy, total_energy and density_error_p99 after particles: they came later, and
     * readers by position keep the columns they knew) */
    fprintf(o->diag, "%.12g,%" PRIu64 ",%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%zu,%.12g,%.12g,%.12g\n",
            time, step, d->kinetic_energy, d->momentum[0], d->momentum[1], d->momentum[2], d->density_error_mean,
            d->density_error_max, d->max_speed, wall_ms, d->particles, d->potential_energy, d->total_energy,
            d->density_error_p99);
    /* Flushed per row so that a run that dies later still leaves every row it reached. */
    if (fflush(o->diag) != 0 || ferror(o->diag)) {
        int e = errno ? errno : EIO;
        clearerr(o->diag);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", o->diag_path, strerror(e));
    }
    return EDDY_OK;
}
