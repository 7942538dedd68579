#include "run_record.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <eddy/plugin.h>

#include "decomp.h"
#include "output.h"
#include "provenance.h"
#include "scene.h"

/* One parameter's value as the component received it: JSON's own type for each kind; an unset derived
 * value is null (the component computes it: its log says the figure where it says one). */
static cJSON *param_json(const eddy_param_desc *d, const eddy_param_value *v)
{
    if (!v->is_set) return cJSON_CreateNull();
    switch (d->type) {
    case EDDY_PARAM_INT: return cJSON_CreateNumber((double)v->integer);
    case EDDY_PARAM_BOOL: return cJSON_CreateBool(v->number != 0.0);
    case EDDY_PARAM_ENUM:
    case EDDY_PARAM_STRING: return cJSON_CreateString(v->string ? v->string : "");
    case EDDY_PARAM_VECTOR: {
        cJSON *a = cJSON_CreateArray();
        for (int k = 0; a && k < v->count; ++k)
            if (!cJSON_AddItemToArray(a, cJSON_CreateNumber(v->vector[k]))) {
                cJSON_Delete(a);
                return NULL;
            }
        return a;
    }
    default: return cJSON_CreateNumber(v->number);
    }
}

/* {"id": value, ...} for a table and its values; NULL on out of memory. */
static cJSON *params_json(const eddy_param_desc *table, const eddy_param_values *values)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; o && table && values->values && i < values->count; ++i) {
        const eddy_param_desc *d = eddy_param_at(table, i);
        cJSON *v = param_json(d, &values->values[i]);
        if (!v || !cJSON_AddItemToObject(o, d->id, v)) {
            cJSON_Delete(v);
            cJSON_Delete(o);
            return NULL;
        }
    }
    return o;
}

static cJSON *component_json(const eddy_registry_entry *e, const eddy_param_values *values)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *p = o ? params_json(e->component->params, values) : NULL;
    if (!p || !cJSON_AddStringToObject(o, "id", e->component->id) ||
        !cJSON_AddStringToObject(o, "version", e->component->version) || !cJSON_AddStringToObject(o, "file", e->file) ||
        !cJSON_AddItemToObject(o, "parameters", p)) {
        if (o && !cJSON_GetObjectItemCaseSensitive(o, "parameters")) cJSON_Delete(p);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A float (eddy_real) as the shortest decimal that reads back as it: its double's 17 digits
 * (0.0061599854379892349) only show the float's binary rounding. */
static double real_value(eddy_real x)
{
    char text[32];
    snprintf(text, sizeof text, "%.9g", (double)x);
    for (int digits = 6; digits < 9; ++digits) {
        char shorter[32];
        snprintf(shorter, sizeof shorter, "%.*g", digits, (double)x);
        if ((eddy_real)strtod(shorter, NULL) == x) return strtod(shorter, NULL);
    }
    return strtod(text, NULL);
}

static cJSON *materials_json(const eddy_sim *sim)
{
    const eddy_world *w = sim->world;
    const eddy_component *sc = sim->solver_entry->component;
    cJSON *a = cJSON_CreateArray();
    for (size_t m = 0; a && m < w->material_count; ++m) {
        const eddy_material *mat = &w->materials[m];
        cJSON *o = cJSON_CreateObject();
        cJSON *p = o ? params_json(sc->material_params, &mat->params) : NULL;
        /* (filled first, then linked: on a failure o belongs to no array, and p to o only once added) */
        int ok = p && cJSON_AddStringToObject(o, "name", mat->name) &&
                 cJSON_AddNumberToObject(o, "rest_density", real_value(mat->rest_density)) &&
                 cJSON_AddNumberToObject(o, "particle_mass", real_value(mat->particle_mass)) &&
                 cJSON_AddNumberToObject(o, "particle_spacing", real_value(mat->particle_dist));
        if (ok && !cJSON_AddItemToObject(o, "parameters", p)) {
            cJSON_Delete(p);
            ok = 0;
        } else if (!ok) {
            cJSON_Delete(p);
        }
        if (!ok || !cJSON_AddItemToArray(a, o)) {
            cJSON_Delete(o);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static cJSON *command_json(const eddy_sim *sim, const eddy_run_record_command *cmd, double particles)
{
    const eddy_world *w = sim->world;
    char started[32] = "", host[256] = "";
    const time_t now = time(NULL);
    struct tm utc;
    if (gmtime_r(&now, &utc)) strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &utc);
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    eddy_provenance_facts facts;
    eddy_provenance_read(&facts);
    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddStringToObject(o, "command", cmd->command);
    if (ok && cmd->argc > 0) {
        cJSON *a = cJSON_AddArrayToObject(o, "argv");
        for (int i = 0; ok && i < cmd->argc; ++i) ok = a && cJSON_AddItemToArray(a, cJSON_CreateString(cmd->argv[i]));
    }
    ok = ok && cJSON_AddStringToObject(o, "started", started) && cJSON_AddStringToObject(o, "host", host);
    cJSON *from = ok ? cJSON_AddObjectToObject(o, "from") : NULL;
    cJSON *eddy = ok ? cJSON_AddObjectToObject(o, "eddy") : NULL;
    char abi[32];
    snprintf(abi, sizeof abi, "%d.%d", facts.abi_major, facts.abi_minor);
    ok = ok && from && eddy && cJSON_AddNumberToObject(from, "time", w->time) &&
         cJSON_AddNumberToObject(from, "step", (double)w->step) &&
         cJSON_AddStringToObject(eddy, "version", facts.version) && cJSON_AddStringToObject(eddy, "plugin_abi", abi) &&
         cJSON_AddStringToObject(eddy, "simd", facts.simd) && cJSON_AddStringToObject(eddy, "commit", facts.commit) &&
         cJSON_AddStringToObject(eddy, "compiler", facts.compiler) &&
         cJSON_AddStringToObject(eddy, "build_type", facts.build_type) && cJSON_AddStringToObject(o, "cpu", facts.cpu) &&
         cJSON_AddNumberToObject(o, "threads", facts.threads) &&
         cJSON_AddNumberToObject(o, "processes", facts.processes) && cJSON_AddNumberToObject(o, "particles", particles);
    /* How `eddy run` and `eddy resume` ended, filled in at their end (eddy_run_record_end): null until
     * then, so that one killed on its way (SIGKILL, a lost node) shows as such. */
    if (ok && (strcmp(cmd->command, "run") == 0 || strcmp(cmd->command, "resume") == 0 ||
               strcmp(cmd->command, "compare") == 0 || strncmp(cmd->command, "python ", 7) == 0))
        ok = cJSON_AddNullToObject(o, "ended") != NULL;
    cJSON *log = ok && cmd->log_kept ? cJSON_AddArrayToObject(o, "log") : NULL;
    ok = ok && (log || !cmd->log_kept);
    for (const char *line = cmd->log; ok && line && *line;) {
        const char *end = strchr(line, '\n');
        const size_t n = end ? (size_t)(end - line) : strlen(line);
        char *text = malloc(n + 1);
        if (text) {
            memcpy(text, line, n);
            text[n] = '\0';
        }
        ok = text && cJSON_AddItemToArray(log, cJSON_CreateString(text));
        free(text);
        line += n + (end ? 1 : 0);
    }
    cJSON *solver = ok ? component_json(sim->solver_entry, &sim->params) : NULL;
    ok = solver && cJSON_AddItemToObject(o, "solver", solver);
    if (!ok) cJSON_Delete(solver);
    cJSON *grid = ok ? component_json(sim->grid_entry, &sim->grid_params) : NULL;
    ok = grid && cJSON_AddItemToObject(o, "grid", grid);
    if (!ok) cJSON_Delete(grid);
    cJSON *mats = ok ? materials_json(sim) : NULL;
    ok = mats && cJSON_AddItemToObject(o, "materials", mats);
    if (!ok) {
        cJSON_Delete(mats);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* What a file at a run record's path holds (load_record). */
typedef enum record_state {
    RECORD_ABSENT,      /* no file (a folder of an eddy before run.json) */
    RECORD_EDDYS,       /* eddy's run record: format "eddy.run/1" with its commands */
    RECORD_UNOPENED,    /* open failed (errno in *why_errno) */
    RECORD_UNREADABLE,  /* read failed */
    RECORD_NOT_A_FILE,  /* a folder or a device in its place */
    RECORD_TOO_BIG,     /* over 64 MiB, more than eddy's record grows to */
    RECORD_FOREIGN      /* a file that is not the record */
} record_state;

/* PATH read and, when it is eddy's record, parsed into *doc (the caller's); *doc NULL otherwise. Says
 * nothing: a resume's append warns of what it leaves alone (read_record), and a new run's folder check
 * (eddy_run_record_is_eddys) only asks. */
static record_state load_record(const char *path, cJSON **doc, int *why_errno)
{
    *doc = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        *why_errno = errno;
        return errno == ENOENT ? RECORD_ABSENT : RECORD_UNOPENED;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return RECORD_NOT_A_FILE;
    }
    char *text = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n < (64L << 20) && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) && fread(text, 1, (size_t)n, f) == (size_t)n)
        text[n] = '\0';
    else if (text) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (!text) return n >= (64L << 20) ? RECORD_TOO_BIG : RECORD_UNREADABLE;
    cJSON *d = cJSON_Parse(text);
    free(text);
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(d, "format");
    if (!cJSON_IsString(format) || strcmp(format->valuestring, "eddy.run/1") != 0 ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(d, "commands"))) {
        cJSON_Delete(d);
        return RECORD_FOREIGN;
    }
    *doc = d;
    return RECORD_EDDYS;
}

/* DIR/run.json into `path` (PATH_MAX) and *doc when it is eddy's record (load_record). */
static int load_dir_record(const char *dir, char *path, cJSON **doc)
{
    snprintf(path, PATH_MAX, "%s/%s", dir, EDDY_RUN_RECORD_FILE);
    int why;
    return load_record(path, doc, &why) == RECORD_EDDYS;
}

/* The record a resume appends to: DIR/run.json parsed, when it is eddy's. *doc NULL with status 0: no
 * file (a folder of an eddy before run.json) or one that is not the record (said, and left alone:
 * *skip). */
static int read_record(const char *path, cJSON **doc, int *skip, eddy_error *err)
{
    (void)err;
    int why = 0;
    const record_state state = load_record(path, doc, &why);
    /* (unreadable is not absent: a record replaced by this command's alone would lose the run's) */
    *skip = state != RECORD_ABSENT && state != RECORD_EDDYS;
    switch (state) {
    case RECORD_UNOPENED:
        fprintf(stderr, "eddy: warning: cannot read '%s': %s; it is left as it is, and this command is not recorded "
                        "in it\n", path, strerror(why));
        break;
    case RECORD_UNREADABLE:
        fprintf(stderr, "eddy: warning: cannot read '%s'; it is left as it is, and this command is not recorded "
                        "in it\n", path);
        break;
    case RECORD_NOT_A_FILE:
        fprintf(stderr, "eddy: warning: cannot read '%s': not a file; it is left as it is, and this command is not "
                        "recorded in it\n", path);
        break;
    case RECORD_TOO_BIG:
        fprintf(stderr, "eddy: warning: '%s' is over 64 MiB, more than eddy's run record grows to: left as it "
                        "is, and this command is not recorded in it\n", path);
        break;
    case RECORD_FOREIGN:
        fprintf(stderr, "eddy: warning: '%s' is not eddy's run record (format \"eddy.run/1\"): left as it is, "
                        "and this command is not recorded in it\n", path);
        break;
    default:
        break;
    }
    return EDDY_OK;
}

int eddy_run_record_is_eddys(const char *dir)
{
    char path[PATH_MAX];
    cJSON *doc;
    const int eddys = load_dir_record(dir, path, &doc);
    cJSON_Delete(doc);
    return eddys;
}

/* The keys a resume puts into the scene document itself (session.h's options: the checkpoint's solver,
 * grid and writers, and the folder as given to `eddy resume`, which may be another path to it, or the
 * folder moved): a resumed run's checkpoint differs from the record's scene in these alone. The
 * solver and grid are compared as the checkpoint and the record name them. */
static void drop_resume_keys(cJSON *scene)
{
    cJSON_DeleteItemFromObjectCaseSensitive(scene, "solver");
    cJSON_DeleteItemFromObjectCaseSensitive(scene, "grid");
    cJSON *output = cJSON_GetObjectItemCaseSensitive(scene, "output");
    if (!cJSON_IsObject(output)) return;
    cJSON_DeleteItemFromObjectCaseSensitive(output, "dir");
    cJSON_DeleteItemFromObjectCaseSensitive(output, "format");
    if (!output->child) cJSON_DeleteItemFromObjectCaseSensitive(scene, "output");
}

/* The first place where scene documents `a` (the record's) and `b` (the checkpoint's) differ: its key
 * path into `path` ("" for the top) and 1, or 0 when they are equal. */
static int first_difference(const cJSON *a, const cJSON *b, char *path, size_t n, const cJSON **da,
                            const cJSON **db)
{
    *da = a;
    *db = b;
    if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
        const size_t len = strlen(path);
        for (int pass = 0; pass < 2; ++pass) {
            /* (pass 0: the record's keys, in its order, with the checkpoint's value of each; pass 1: the
             * keys the checkpoint alone has) */
            const cJSON *e, *keys = pass ? b : a;
            cJSON_ArrayForEach(e, keys) {
                const cJSON *other = cJSON_GetObjectItemCaseSensitive(pass ? a : b, e->string);
                if (pass && other) continue;
                snprintf(path + len, n - len, "%s%s", len ? "." : "", e->string);
                if (first_difference(pass ? other : e, pass ? e : other, path, n, da, db)) return 1;
            }
        }
        path[len] = '\0';
        return 0;
    }
    if (cJSON_IsArray(a) && cJSON_IsArray(b)) {
        const size_t len = strlen(path);
        const cJSON *x = a->child, *y = b->child;
        for (int i = 0; x && y; ++i, x = x->next, y = y->next) {
            snprintf(path + len, n - len, "[%d]", i);
            if (first_difference(x, y, path, n, da, db)) return 1;
        }
        path[len] = '\0';
        *da = a;
        *db = b;
        return x || y;
    }
    return !cJSON_Compare(a, b, 1);
}

/* A value of a scene document as the message shows it: its JSON, cut to `n`, or "absent". */
static void value_text(const cJSON *v, char *text, size_t n)
{
    char *json = v ? cJSON_PrintUnformatted(v) : NULL;
    const size_t len = json ? strlen(json) : 0;
    if (!v) snprintf(text, n, "absent");
    else if (!json) snprintf(text, n, "(out of memory)");
    else if (len < n) snprintf(text, n, "%s", json);
    else snprintf(text, n, "%.*s...", (int)(n - 4), json);
    cJSON_free(json);
}

/* The id of component `key` ("solver", "grid") the record's last command ran with; NULL when not said. */
static const char *recorded_id(const cJSON *record, const char *key)
{
    const cJSON *commands = cJSON_GetObjectItemCaseSensitive(record, "commands");
    const cJSON *last = cJSON_IsArray(commands) ? cJSON_GetArrayItem(commands, cJSON_GetArraySize(commands) - 1) : NULL;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(last, key), "id");
    return cJSON_IsString(id) ? id->valuestring : NULL;
}

/* What differs between the checkpoint's settings and the run the record describes, into `what`; 0 when
 * nothing does (or the record says too little to tell). */
static int checkpoint_differs(const cJSON *record, const cJSON *settings, char *what, size_t n)
{
    static const char *const COMPONENTS[] = {"solver", "grid"};
    for (size_t k = 0; k < 2; ++k) {
        const char *was = recorded_id(record, COMPONENTS[k]);
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(settings, COMPONENTS[k]);
        if (was && cJSON_IsString(id) && strcmp(was, id->valuestring) != 0) {
            snprintf(what, n, "its %s is '%.64s', the run's '%.64s'", COMPONENTS[k], id->valuestring, was);
            return 1;
        }
    }
    const cJSON *recorded = cJSON_GetObjectItemCaseSensitive(record, "scene");
    const cJSON *embedded = cJSON_GetObjectItemCaseSensitive(settings, "scene");
    if (!cJSON_IsObject(recorded) || !cJSON_IsObject(embedded)) return 0;
    cJSON *a = cJSON_Duplicate(recorded, 1), *b = cJSON_Duplicate(embedded, 1);
    int differs = 0;
    if (a && b) {
        drop_resume_keys(a);
        drop_resume_keys(b);
        char path[256] = "";
        const cJSON *da, *db;
        if ((differs = first_difference(a, b, path, sizeof path, &da, &db))) {
            char va[128], vb[128];
            value_text(da, va, sizeof va);
            value_text(db, vb, sizeof vb);
            if (cJSON_IsArray(da) && cJSON_IsArray(db))
                snprintf(what, n, "its scene's '%s' has %d entries, the run's %d", path, cJSON_GetArraySize(db),
                         cJSON_GetArraySize(da));
            else
                snprintf(what, n, "its scene's '%s' is %s, the run's %s", path, vb, va);
        }
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
    /* The same scene, solver and grid: two runs of one scene are still two runs, told by their ids (none
     * in a record or checkpoint of an eddy before them: nothing to tell) */
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(record, "run_id");
    const cJSON *ck_run = cJSON_GetObjectItemCaseSensitive(settings, "run_id");
    if (!differs && cJSON_IsString(run) && cJSON_IsString(ck_run) && strcmp(run->valuestring, ck_run->valuestring) != 0) {
        snprintf(what, n, "it is of another run of the same scene (run_id '%.40s', the run's '%.40s')",
                 ck_run->valuestring, run->valuestring);
        differs = 1;
    }
    return differs;
}

int eddy_run_record_check_checkpoint(const char *dir, const char *checkpoint, const cJSON *settings, eddy_error *err)
{
    int rc = EDDY_OK;
    if (eddy_decomp_rank() == 0) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, EDDY_RUN_RECORD_FILE);
        cJSON *record;
        int why;
        char what[512];
        /* (no record, or not eddy's: nothing to tell the run by; the append then says what it leaves) */
        if (load_record(path, &record, &why) == RECORD_EDDYS && checkpoint_differs(record, settings, what, sizeof what))
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "checkpoint '%s' is not of the run that '%s' records: %s; resuming it would continue "
                                "another run among this folder's frames and tables; move the checkpoint away, or "
                                "resume it in the folder of the run it came from (nothing was written)",
                                checkpoint, path, what);
        cJSON_Delete(record);
    }
    return eddy_decomp_agree_error(rc, err);
}

static int write_record(const char *path, const cJSON *doc, eddy_error *err)
{
    char *text = cJSON_Print(doc);
    if (!text) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for '%s'", path);
    eddy_atomic_file af;
    int rc = eddy_atomic_open(&af, path, err);
    if (!rc) {
        fputs(text, af.f);
        fputc('\n', af.f);
        rc = eddy_atomic_commit(&af, err);
    }
    cJSON_free(text);
    return rc;
}

int eddy_run_record_write(const char *dir, const eddy_sim *sim, const eddy_run_record_command *cmd, eddy_error *err)
{
    /* Every process's owned particles: a collective, taken before rank 0 alone goes on. */
    eddy_world *w = sim->world;
    double particles = (double)(w->particles.count - w->particles.halo_count);
    int rc = eddy_world_reduce(w, EDDY_REDUCE_SUM, &particles, 1, err);
    if (!rc && eddy_decomp_rank() == 0) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, EDDY_RUN_RECORD_FILE);
        const int resume = cmd->append;
        cJSON *doc = NULL;
        int skip = 0;
        if (resume) rc = read_record(path, &doc, &skip, err);
        if (!rc && !skip) {
            cJSON *c = command_json(sim, cmd, particles);
            if (!doc) {
                doc = cJSON_CreateObject();
                if (!doc || !cJSON_AddStringToObject(doc, "format", "eddy.run/1") ||
                    (sim->run_id[0] && !cJSON_AddStringToObject(doc, "run_id", sim->run_id)) ||
                    !cJSON_AddItemToObject(doc, "scene", cJSON_Duplicate(sim->scene.root, 1)) ||
                    !cJSON_AddArrayToObject(doc, "commands")) {
                    cJSON_Delete(doc);
                    doc = NULL;
                }
            }
            if (!c || !doc || !cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(doc, "commands"), c)) {
                cJSON_Delete(c);
                rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for '%s'", path);
            } else if (write_record(path, doc, err)) {
                /* The run's results do not depend on it: said, and the run goes on (failing here came after
                 * the folder's earlier run was cleared away). */
                fprintf(stderr, "eddy: warning: %s; the run goes on without its record\n", err->message);
            }
        }
        cJSON_Delete(doc);
    }
    /* Rank 0's write error is every process's, said once. */
    return eddy_decomp_agree_error(rc, err);
}

/* An error code as "ended" records it. */
static const char *error_name(int rc)
{
    switch (rc) {
    case EDDY_ERR_INVALID_ARGUMENT: return "invalid_argument";
    case EDDY_ERR_OUT_OF_MEMORY: return "out_of_memory";
    case EDDY_ERR_IO: return "io";
    case EDDY_ERR_PARSE: return "parse";
    case EDDY_ERR_PLUGIN: return "plugin";
    case EDDY_ERR_DOMAIN: return "domain";
    case EDDY_ERR_UNSTABLE: return "unstable";
    case EDDY_ERR_NOT_FOUND: return "not_found";
    case EDDY_ERR_UNSUPPORTED: return "unsupported";
    case EDDY_ERR_DEVICE: return "device";
    default: return "other";
    }
}

/* The record's last command when it is `eddy run` or `eddy resume` (the commands that record their
 * end), else NULL. */
static cJSON *last_cli_command(const cJSON *record)
{
    const cJSON *commands = cJSON_GetObjectItemCaseSensitive(record, "commands");
    cJSON *last = cJSON_IsArray(commands) ? cJSON_GetArrayItem(commands, cJSON_GetArraySize(commands) - 1) : NULL;
    return cJSON_GetObjectItemCaseSensitive(last, "ended") ? last : NULL;
}

/* ... still waiting for its end ("ended" null). */
static cJSON *open_command(const cJSON *record)
{
    cJSON *last = last_cli_command(record);
    return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(last, "ended")) ? last : NULL;
}

void eddy_run_record_end(const char *dir, const eddy_sim *sim, int rc, const char *message)
{
    if (eddy_decomp_rank() != 0) return;
    char path[PATH_MAX];
    cJSON *doc = NULL;
    cJSON *last = load_dir_record(dir, path, &doc) ? open_command(doc) : NULL;
    if (last) {
        char at[32] = "";
        const time_t now = time(NULL);
        struct tm utc;
        if (gmtime_r(&now, &utc)) strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", &utc);
        const eddy_world *w = sim->world;
        cJSON *end = cJSON_CreateObject();
        int ok = end && cJSON_AddStringToObject(end, "outcome", rc == EDDY_OK                ? "finished"
                                                               : rc == EDDY_ERR_INTERRUPTED ? "interrupted"
                                                                                              : "failed") &&
                 cJSON_AddStringToObject(end, "at", at) && cJSON_AddNumberToObject(end, "time", w->time) &&
                 cJSON_AddNumberToObject(end, "step", (double)w->step) &&
                 (rc == EDDY_OK || rc == EDDY_ERR_INTERRUPTED || cJSON_AddStringToObject(end, "error", error_name(rc))) &&
                 (rc == EDDY_OK || cJSON_AddStringToObject(end, "message", message ? message : ""));
        eddy_error werr;
        if (!ok || !cJSON_ReplaceItemInObjectCaseSensitive(last, "ended", end)) {
            if (!ok) cJSON_Delete(end);
            fprintf(stderr, "eddy: warning: out of memory for the end of '%s'\n", path);
        } else if (write_record(path, doc, &werr)) {
            fprintf(stderr, "eddy: warning: %s; the record does not say how the run ended\n", werr.message);
        }
    }
    cJSON_Delete(doc);
}

int eddy_run_record_unfinished(const char *dir, char *what, size_t n)
{
    char path[PATH_MAX];
    cJSON *doc = NULL;
    const cJSON *last = load_dir_record(dir, path, &doc) ? last_cli_command(doc) : NULL;
    /* (a comparison's folder records its end for its reader, but is replaced as before: it has no
     * checkpoint to continue, and the next comparison is its repetition) */
    const cJSON *command = cJSON_GetObjectItemCaseSensitive(last, "command");
    if (!cJSON_IsString(command) || (strcmp(command->valuestring, "run") != 0 && strcmp(command->valuestring, "resume") != 0 &&
                                     strncmp(command->valuestring, "python ", 7) != 0))
        last = NULL;
    const cJSON *ended = cJSON_GetObjectItemCaseSensitive(last, "ended");
    const cJSON *outcome = cJSON_GetObjectItemCaseSensitive(ended, "outcome");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(ended, "error");
    const char *o = cJSON_IsString(outcome) ? outcome->valuestring : "";
    const char *e = cJSON_IsString(error) ? error->valuestring : "";
    /* Finished, or failed in its physics (exploded, a particle out of the domain: its frames show what
     * went wrong, and the next run with other settings replaces them, the usual loop): not kept. */
    const int unfinished = last && (cJSON_IsNull(ended) || strcmp(o, "interrupted") == 0 ||
                                    (strcmp(o, "failed") == 0 && e[0] && strcmp(e, "unstable") != 0 &&
                                     strcmp(e, "domain") != 0));
    if (unfinished) {
        const cJSON *started = cJSON_GetObjectItemCaseSensitive(last, "started");
        const cJSON *host = cJSON_GetObjectItemCaseSensitive(last, "host");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(ended, "time");
        char how[96];
        if (cJSON_IsNull(ended)) snprintf(how, sizeof how, "never recorded its end: killed, or its process lost");
        else snprintf(how, sizeof how, "%s at t = %.6g s", strcmp(o, "interrupted") == 0 ? "was interrupted" : "failed",
                      cJSON_IsNumber(t) ? t->valuedouble : NAN);
        const int python = strncmp(command->valuestring, "python ", 7) == 0;
        snprintf(what, n, "%s%.16s%s started %.32s on %.64s %s", python ? "a Python Simulation's writing run (" : "`eddy ",
                 command->valuestring, python ? ")" : "`",
                 cJSON_IsString(started) ? started->valuestring : "(unknown)",
                 cJSON_IsString(host) && host->valuestring[0] ? host->valuestring : "(unknown host)", how);
    }
    cJSON_Delete(doc);
    return unfinished;
}

void eddy_run_record_reopen(const char *dir)
{
    if (eddy_decomp_rank() != 0) return;
    char path[PATH_MAX];
    cJSON *doc = NULL;
    cJSON *last = load_dir_record(dir, path, &doc) ? last_cli_command(doc) : NULL;
    eddy_error werr;
    if (last && !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(last, "ended"))) {
        cJSON *null = cJSON_CreateNull();
        if (!null || !cJSON_ReplaceItemInObjectCaseSensitive(last, "ended", null)) cJSON_Delete(null);
        else if (write_record(path, doc, &werr))
            fprintf(stderr, "eddy: warning: %s; the record does not say that the run goes on\n", werr.message);
    }
    cJSON_Delete(doc);
}
