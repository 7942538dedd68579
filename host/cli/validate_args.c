/*
 * host/cli/validate_args.c — the command line of `eddy validate` (drive/validate.h runs it).
 */
#include <stdio.h>
#include <string.h>

#include <eddy/eddy.h>

#include "args.h"
#include "scene.h"
#include "validate.h"


static const char *const RESOLUTIONS[] = {"coarse", "medium", "fine"};

/* "coarse", "medium,fine", ...: each at most once, kept in the order coarse, medium, fine. */
static int parse_resolutions(const char *list, eddy_validate_options *o)
{
    int seen[3] = {0, 0, 0};
    const char *p = list;
    while (1) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        int k = -1;
        for (int r = 0; r < 3; ++r)
            if (strlen(RESOLUTIONS[r]) == n && strncmp(p, RESOLUTIONS[r], n) == 0) k = r;
        if (k < 0)
            return eddy_arg_usage_error("--resolution expects coarse, medium or fine (or a comma-separated list of them), "
                               "got '%s'", list);
        if (seen[k]) return eddy_arg_usage_error("--resolution lists '%s' twice", RESOLUTIONS[k]);
        seen[k] = 1;
        if (!comma) break;
        p = comma + 1;
    }
    o->resolution_count = 0;
    for (int r = 0; r < 3; ++r)
        if (seen[r]) o->resolutions[o->resolution_count++] = RESOLUTIONS[r];
    return 0;
}

static int add_name(const char *opt, const char *v, const char **list, int *count)
{
    if (!v[0]) return eddy_arg_usage_error("%s expects a name, got ''", opt);
    for (int k = 0; k < *count; ++k)
        if (strcmp(list[k], v) == 0) return eddy_arg_usage_error("%s '%s' is given twice", opt, v);
    if (*count == EDDY_VALIDATE_MAX) return eddy_arg_usage_error("too many %s options (at most %d)", opt, EDDY_VALIDATE_MAX);
    list[(*count)++] = v;
    return 0;
}

static int parse_args(int argc, char **argv, eddy_validate_options *o)
{
    memset(o, 0, sizeof *o);
    eddy_arg_once seen = {0};
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        if (strcmp(a, "--list") == 0) {
            o->list = 1;
            continue;
        }
        if (a[0] != '-' || a[1] != '-') return eddy_arg_usage_error("unexpected argument '%s' (validate takes options only)", a);
        static const char *const takes_value[] = {"--solver", "--case", "--resolution", "--out", "--cases",
                                                  "--set", "--threads", "--grid", NULL};
        if (eddy_arg_value("validate", takes_value, a, v)) return 2;
        /* (--solver, --case and --set are repeatable) */
        if (strcmp(a, "--solver") != 0 && strcmp(a, "--case") != 0 && strcmp(a, "--set") != 0 &&
            eddy_arg_given_once(&seen, a, v))
            return 2;
        ++i;
        int rc = 0;
        if (strcmp(a, "--solver") == 0) {
            rc = add_name(a, v, o->solvers, &o->solver_count);
        } else if (strcmp(a, "--case") == 0) {
            rc = add_name(a, v, o->cases, &o->case_count);
        } else if (strcmp(a, "--resolution") == 0) {
            rc = parse_resolutions(v, o);
        } else if (strcmp(a, "--out") == 0) {
            rc = eddy_arg_folder(a, v);
            o->out_dir = v;
        } else if (strcmp(a, "--cases") == 0) {
            rc = eddy_arg_folder(a, v);
            o->cases_dir = v;
        } else if (strcmp(a, "--set") == 0) {
            if (o->set_count == EDDY_VALIDATE_MAX_SETS)
                return eddy_arg_usage_error("too many --set options (at most %d)", EDDY_VALIDATE_MAX_SETS);
            if (eddy_arg_set(v)) return 2;
            o->sets[o->set_count++] = v;
        } else if (strcmp(a, "--threads") == 0) {
            if (eddy_arg_threads(v, &o->threads)) return 2;
        } else if (strcmp(a, "--grid") == 0) {
            /* As `--set grid=ID` on every case, the way a grid author holds a grid plugin to the cases
             * (docs/plugin-guide.md, "Grids"). */
            static char grid_set[EDDY_SCENE_ID_MAX + 8];
            if (eddy_arg_component_id(a, v)) return 2;
            if (o->set_count == EDDY_VALIDATE_MAX_SETS)
                return eddy_arg_usage_error("too many --set options (at most %d)", EDDY_VALIDATE_MAX_SETS);
            snprintf(grid_set, sizeof grid_set, "grid=%s", v);
            o->sets[o->set_count++] = grid_set;
        } else {
            return eddy_arg_usage_error("unknown option '%s' for validate", a);
        }
        if (rc) return rc;
    }
    /* --list shows every case and every solver's claims: an option that selects or runs something would
     * be silently ignored (a misspelt --solver listed everything and exited 0). --cases chooses the
     * folder it lists. */
    if (o->list && (o->solver_count || o->case_count || o->resolution_count || o->set_count || o->out_dir || o->threads))
        return eddy_arg_usage_error("--list shows every case and solver and takes only --cases DIR and --quiet, not %s",
                                    o->solver_count ? "--solver" : o->case_count ? "--case"
                                    : o->resolution_count ? "--resolution" : o->set_count ? "--set"
                                    : o->out_dir ? "--out" : "--threads");
    if (o->resolution_count == 0) {
        o->resolutions[0] = "medium";
        o->resolution_count = 1;
    }
    return 0;
}

int eddy_validate_main(int argc, char **argv)
{
    eddy_validate_options o;
    int rc = parse_args(argc, argv, &o);
    return rc ? rc : eddy_validate_run(&o);
}
