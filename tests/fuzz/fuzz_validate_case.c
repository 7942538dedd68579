/*
 * The validate_case target: a validation case file of `eddy validate` and the files it names (fuzz.h).
 *
 * The input is the case's JSON, optionally followed by files, each starting at a line
 *
 *   --- data/NAME          (or --- scenes/NAME)
 *
 * whose following bytes, up to the next such line or the end, are written to that path of the scratch
 * folder. The case itself is written to cases/CASE.json beside them, CASE its "name" when that is a
 * plain file name (else "case", which the loader refuses as a name that differs from the file's), so
 * a case's "../data/X.csv" reference and "../scenes/X.json" scene are the files the input carries, as
 * they are for the installed cases. Then, as `eddy validate` does before it opens a session:
 * vcase_load (the case's keys, resolutions, initial state, checks and reference tables, read_reference),
 * and for a case it accepts, at each resolution the case's scene loaded with the overrides run_one
 * passes (time.output_interval, then the resolution's "set") and its probes parsed. No world is built
 * and no solver created.
 */
#include "fuzz.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes.h"
#include "scene.h"
#include "validate_internal.h"

static const char SEP[] = "--- ";
enum { SEP_SIZE = sizeof SEP - 1 };

/* The folders an input's files go into, below the scratch folder (removed after each input). */
static const char *const FOLDERS[] = {"cases", "data", "scenes"};
enum { NFOLDERS = sizeof FOLDERS / sizeof FOLDERS[0] };

/* The files written for one input, removed after it. */
static char written[EDDY_FUZZ_MAX_VALIDATE_FILES + 1][768];
static int nwritten;

/* A plain file name: 1 to 63 of [A-Za-z0-9_.-], not starting with '.'. */
static int plain_name(const char *s, size_t n)
{
    if (n == 0 || n > 63 || s[0] == '.') return 0;
    for (size_t i = 0; i < n; ++i) {
        const char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.'))
            return 0;
    }
    return 1;
}

/* "data/NAME" or "scenes/NAME" of a separator line [s, s + n): its folder index, or -1. */
static int section_folder(const char *s, size_t n, const char **name, size_t *name_len)
{
    for (int f = 1; f < NFOLDERS; ++f) {
        const size_t fl = strlen(FOLDERS[f]);
        if (n > fl + 1 && memcmp(s, FOLDERS[f], fl) == 0 && s[fl] == '/' && plain_name(s + fl + 1, n - fl - 1)) {
            *name = s + fl + 1;
            *name_len = n - fl - 1;
            return f;
        }
    }
    return -1;
}

static void write_in(int folder, const char *name, size_t name_len, const void *p, size_t size)
{
    char dir[600], file[128]; /* the scratch folder's path is at most 511 bytes (fuzz_common.c) */
    snprintf(dir, sizeof dir, "%s/%s", eddy_fuzz_scratch_dir(), FOLDERS[folder]);
    mkdir(dir, 0700);
    snprintf(file, sizeof file, "%.*s", (int)name_len, name);
    eddy_fuzz_write_file(dir, file, p, size);
    if (nwritten <= EDDY_FUZZ_MAX_VALIDATE_FILES) snprintf(written[nwritten++], sizeof written[0], "%s/%s", dir, file);
}

static void remove_written(void)
{
    for (int k = 0; k < nwritten; ++k) remove(written[k]);
    nwritten = 0;
    char dir[600];
    for (int f = 0; f < NFOLDERS; ++f) {
        snprintf(dir, sizeof dir, "%s/%s", eddy_fuzz_scratch_dir(), FOLDERS[f]);
        rmdir(dir);
    }
}

/* The start of the next separator line at or after `from` (a line beginning with "--- "), or size. */
static size_t next_separator(const uint8_t *p, size_t size, size_t from)
{
    for (size_t i = from; i + SEP_SIZE <= size; ++i)
        if ((i == 0 || p[i - 1] == '\n') && memcmp(p + i, SEP, SEP_SIZE) == 0) return i;
    return size;
}

/* The case's "name" when it is a plain file name, else "case". */
static void case_name(const uint8_t *p, size_t size, char *out, size_t cap)
{
    snprintf(out, cap, "case");
    cJSON *j = cJSON_ParseWithLength((const char *)p, size);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "name");
    if (cJSON_IsString(name) && plain_name(name->valuestring, strlen(name->valuestring)))
        snprintf(out, cap, "%s", name->valuestring);
    cJSON_Delete(j);
}

/* What run_one does with the case's scene before eddy_session_open builds the world: the scene loaded
 * with the case's overrides of each resolution, and its probes parsed (as after the open). */
static int load_scenes(const vcase *c, char *what, size_t cap, eddy_error *err)
{
    int rc = EDDY_OK;
    for (int r = 0; r < 3 && !rc; ++r) {
        const vresolution *rs = &c->res[r];
        const char *sets[VMAX_SETS + 1];
        size_t n = 0;
        char interval[64];
        snprintf(interval, sizeof interval, "time.output_interval=%.17g", c->sample_interval);
        sets[n++] = interval;
        for (int k = 0; k < rs->set_count; ++k) sets[n++] = rs->sets[k];
        eddy_scene scene;
        if ((rc = eddy_scene_load(c->scene, sets, n, &scene, err))) break;
        eddy_probes *probes = NULL;
        rc = eddy_probes_parse(&scene, eddy_fuzz_registry(), &probes, err);
        if (!rc)
            snprintf(what + strlen(what), cap - strlen(what), "; %s: %zu particles, %zu probes", rs->name,
                     eddy_scene_count_particles(&scene), eddy_probes_count(probes));
        eddy_probes_destroy(probes);
        eddy_scene_free(&scene);
    }
    return rc;
}

int eddy_fuzz_validate_case(const uint8_t *data, size_t size)
{
    eddy_fuzz_init();
    remove_written();
    const size_t case_end = next_separator(data, size, 0);
    /* The files after the case: each separator line names one; a line that names no file of data/ or
     * scenes/ starts a file that is not written. */
    size_t at = case_end;
    for (int k = 0; at < size && k < EDDY_FUZZ_MAX_VALIDATE_FILES; ++k) {
        const uint8_t *line = data + at + SEP_SIZE;
        const uint8_t *nl = memchr(line, '\n', size - at - SEP_SIZE);
        const size_t line_len = nl ? (size_t)(nl - line) : size - at - SEP_SIZE;
        const size_t body = nl ? (size_t)(nl - data) + 1 : size;
        const size_t end = next_separator(data, size, body);
        const char *name;
        size_t name_len;
        const int folder = section_folder((const char *)line, line_len, &name, &name_len);
        if (folder > 0) write_in(folder, name, name_len, data + body, end - body);
        at = end;
    }
    char name[64], dir_cases[VPATH];
    case_name(data, case_end, name, sizeof name);
    snprintf(dir_cases, sizeof dir_cases, "%s.json", name);
    write_in(0, dir_cases, strlen(dir_cases), data, case_end);
    vcase c;
    eddy_error err;
    eddy_error_clear(&err);
    int rc = vcase_load(eddy_fuzz_scratch_dir(), name, &c, &err);
    if (rc == EDDY_OK) {
        char what[512];
        size_t rows = 0;
        for (int k = 0; k < c.check_count; ++k) rows += c.checks[k].ref.count;
        snprintf(what, sizeof what, "case '%s': %d checks, %zu reference rows", c.name, c.check_count, rows);
        rc = load_scenes(&c, what, sizeof what, &err);
        eddy_fuzz_report("validate_case", rc, &err, what);
        vcase_free(&c);
    } else {
        eddy_fuzz_report("validate_case", rc, &err, NULL);
    }
    remove_written();
    return 0;
}
