/*
 * host/cli/compare_args.c — the command line of `eddy compare` (drive/compare.h runs it): all argument
 * parsing lives in cli/, with the number readers every command shares (args.h).
 */
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <eddy/eddy.h>

#include "args.h"
#include "compare.h"


static int parse_solvers(const char *list, eddy_compare_options *o)
{
    const char *p = list;
    while (1) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char id[EDDY_COMPARE_ID_MAX + 1];
        if (n == 0) return eddy_arg_usage_error("--solvers expects a comma-separated list of solver ids, got '%s'", list);
        /* (cut to fit, a long id was shown cut and called "not a solver id" for characters it has not) */
        if (n >= EDDY_COMPARE_ID_MAX)
            return eddy_arg_usage_error("--solvers: '%.*s' is not a solver id (at most %d characters, got %zu)", (int)n,
                                        p, EDDY_COMPARE_ID_MAX - 1, n);
        memcpy(id, p, n);
        id[n] = '\0';
        /* (a component id, as --solver takes it: a looser rule let 'Tait' through to the scene, which
         * refused it as the scene file's key, after the report folder was made) */
        if (!eddy_arg_is_component_id(id))
            return eddy_arg_usage_error("--solvers: '%s' is not a solver id ([a-z0-9_])", id);
        for (int k = 0; k < o->solver_count; ++k)
            if (strcmp(o->solvers[k], id) == 0) return eddy_arg_usage_error("--solvers lists '%s' twice", id);
        if (o->solver_count == EDDY_COMPARE_MAX_SOLVERS) return eddy_arg_usage_error("--solvers lists more than %d solvers", EDDY_COMPARE_MAX_SOLVERS);
        memcpy(o->solvers[o->solver_count++], id, n + 1); /* (n < EDDY_COMPARE_ID_MAX, above) */
        if (!comma) return 0;
        p = comma + 1;
    }
}

static int parse_args(int argc, char **argv, eddy_compare_options *o)
{
    memset(o, 0, sizeof *o);
    o->steps = -1;
    o->until = NAN;
    int have_solvers = 0;
    eddy_arg_once seen = {0};
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        if (a[0] != '-' || !a[1]) {
            if (o->scene_path) return eddy_arg_usage_error("unexpected argument '%s' (one scene per comparison)", a);
            o->scene_path = a;
            continue;
        }
        static const char *const takes_value[] = {"--solvers", "--out", "--grid", "--set", "--steps",
                                                  "--until", "--threads", NULL};
        if (eddy_arg_value("compare", takes_value, a, v)) return 2;
        if (strcmp(a, "--set") != 0 && eddy_arg_given_once(&seen, a, v)) return 2;
        ++i;
        int rc = 0;
        if (strcmp(a, "--solvers") == 0) {
            rc = parse_solvers(v, o);
            have_solvers = 1;
        } else if (strcmp(a, "--out") == 0) {
            rc = eddy_arg_folder(a, v);
            o->out_dir = v;
        } else if (strcmp(a, "--grid") == 0) {
            rc = eddy_arg_component_id(a, v);
            o->grid = v;
        } else if (strcmp(a, "--set") == 0) {
            if (o->set_count == EDDY_COMPARE_MAX_SETS) return eddy_arg_usage_error("too many --set options (at most %d)", EDDY_COMPARE_MAX_SETS);
            if (eddy_arg_set(v)) return 2;
            o->sets[o->set_count++] = v;
        } else if (strcmp(a, "--steps") == 0) {
            if (eddy_arg_integer_option(a, v, 0, LLONG_MAX, &o->steps)) return 2;
        } else if (strcmp(a, "--until") == 0) {
            if (eddy_arg_until(v, &o->until)) return 2;
        } else if (strcmp(a, "--threads") == 0) {
            if (eddy_arg_threads(v, &o->threads)) return 2;
        } else {
            return eddy_arg_usage_error("unknown option '%s' for compare", a);
        }
        if (rc) return rc;
    }
    if (!o->scene_path) return eddy_arg_usage_error("compare needs a scene file");
    if (!have_solvers) return eddy_arg_usage_error("compare needs --solvers ID,ID,... (e.g. --solvers sph_mueller,tait)");
    if (o->steps >= 0 && !isnan(o->until)) return eddy_arg_usage_error("give --steps or --until, not both");
    return 0;
}

int eddy_compare_main(int argc, char **argv)
{
    eddy_compare_options o;
    int rc = parse_args(argc - 2, argv + 2, &o);
    o.argc = argc;
    o.argv = (const char *const *)argv;
    return rc ? rc : eddy_compare_run(&o);
}
