/*
 * eddy — the command-line host: run, list, describe, bench.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include <eddy/eddy.h>

#include "args.h"
#include "bench.h"
#include "compare.h"
#include "run.h"

#define EDDY_MAX_SETS 256

static const char usage[] =
    "usage: eddy <command> [options]\n"
    "\n"
    "commands:\n"
    "  run SCENE [--solver ID] [--grid ID] [--set key=value]... [--out DIR]\n"
    "            [--steps N | --until T] [--threads N] [--format vtk,csv] [--hash]\n"
    "            [--checkpoint-every T] [--no-picture] [--quiet]\n"
    "            [--render] [--movie] [--render-field NAME] [--camera SPEC]\n"
    "            [--render-range MIN,MAX|frame] [--render-width PX]\n"
    "      Runs a scene. Writes DIR/frames/*.vtp, DIR/frames.pvd (open it in ParaView),\n"
    "      DIR/diagnostics.csv and DIR/picture.png. --set takes a dotted path into the scene,\n"
    "      e.g. --set world.smoothing_radius=0.02 --set materials[0].viscosity=0.2.\n"
    "      --render writes DIR/render/frame_NNNNN.png per frame (camera, field, colour bar, time);\n"
    "      --movie also DIR/movie.mp4 with ffmpeg. See docs/rendering.md.\n"
    "      Every run ends by writing DIR/checkpoint.eddy (also when SIGINT/SIGTERM stops it);\n"
    "      --checkpoint-every T also writes one at the first frame after every T simulated seconds.\n"
    "  resume DIR [--steps N | --until T] [--threads N] [--hash] [--checkpoint-every T]\n"
    "             [--no-picture] [--quiet]\n"
    "      Continues the run in DIR from its checkpoint to its end, or to a new total step count or\n"
    "      time; the final state is bit-identical to an uninterrupted run's.\n"
    "  compare SCENE --solvers ID,ID,... [--out DIR] [--steps N | --until T] [--set key=value]...\n"
    "                [--grid ID] [--threads N] [--quiet]\n"
    "      The scene through each solver with eddy run's stepping: DIR/<solver>/diagnostics.csv,\n"
    "      probes.csv, first and last frame; DIR/summary.md, summary.csv and DIR/plots/*.png.\n"
    "      Default DIR: out/compare/<scene name>.\n"
    "  list\n"
    "      Every component found (id, kind, version, file) and every plugin refused, with the reason.\n"
    "  describe ID\n"
    "      The parameters of a solver or grid: name, type, default, range, unit, doc.\n"
    "  bench SCENE [--solver ID] [--grid ID] [--particles N] [--steps N] [--repeats N]\n"
    "              [--threads N] [--set key=value]...\n"
    "      Median speed of a solver on the scene refilled at about N particles.\n"
    "\n"
    "Plugins are searched in $EDDY_PLUGIN_PATH (colon-separated), <exe>/../lib/eddy/plugins and the\n"
    "install folder. Exit status: 0 success, 1 error, 2 bad command line, 130 interrupted.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "eddy: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nrun 'eddy help' for usage\n");
    return 2;
}

static int parse_formats(const char *s, int *vtk, int *csv)
{
    *vtk = *csv = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "vtk") == 0) *vtk = 1;
        else if (strcmp(t, "csv") == 0) *csv = 1;
        else return -1;
    }
    return *vtk || *csv ? 0 : -1;
}

static int fail(const eddy_error *err)
{
    /* An interrupt is a clean stop, not an error. */
    fprintf(stderr, "eddy: %s%s\n", err->code == EDDY_ERR_INTERRUPTED ? "" : "error: ", err->message);
    return err->code == EDDY_ERR_INTERRUPTED ? 130 : 1;
}

static int cmd_run(int argc, char **argv, int resume)
{
    const char *cmd = resume ? "resume" : "run";
    eddy_run_options o = eddy_run_default_options();
    const char *sets[EDDY_MAX_SETS];
    size_t nsets = 0;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (strcmp(a, "--hash") == 0) { o.hash = 1; takes = 0; }
        else if (strcmp(a, "--quiet") == 0) { o.quiet = 1; takes = 0; }
        else if (strcmp(a, "--no-picture") == 0) { o.picture = 0; takes = 0; }
        else if (strcmp(a, "--render") == 0 || strcmp(a, "--movie") == 0) {
            if (resume)
                return usage_error("option %s is not for resume: a resumed run keeps its scene, solver, grid, "
                                   "folder, formats and rendering", a);
            if (a[2] == 'r') o.render.enabled = 1;
            else o.render.movie = 1;
            takes = 0;
        }
        else if (a[0] == '-' && a[1] == '-') {
            if (!v) return usage_error("option %s needs a value", a);
            int run_only = strcmp(a, "--solver") == 0 || strcmp(a, "--grid") == 0 || strcmp(a, "--out") == 0 ||
                           strcmp(a, "--set") == 0 || strcmp(a, "--format") == 0 ||
                           strncmp(a, "--render", 8) == 0 || strcmp(a, "--camera") == 0 || strcmp(a, "--movie") == 0;
            if (resume && run_only)
                return usage_error("option %s is not for resume: a resumed run keeps its scene, solver, grid, "
                                   "folder, formats and rendering", a);
            if (strcmp(a, "--solver") == 0) o.solver = v;
            else if (strcmp(a, "--grid") == 0) o.grid = v;
            else if (strcmp(a, "--out") == 0) o.out_dir = v;
            else if (strcmp(a, "--render-field") == 0) o.render.field = v;
            else if (strcmp(a, "--camera") == 0) o.render.camera = v;
            else if (strcmp(a, "--render-range") == 0) o.render.range = v;
            else if (strcmp(a, "--render-width") == 0) {
                long long px;
                if (eddy_arg_integer(v, 1, &px) || px > 16384)
                    return usage_error("--render-width expects a width in pixels (16 to 16384), got '%s'", v);
                o.render.width = (int)px;
            } else if (strcmp(a, "--checkpoint-every") == 0) {
                if (eddy_arg_real(v, &o.checkpoint_every) || !(o.checkpoint_every > 0))
                    return usage_error("--checkpoint-every expects a time > 0 in seconds, got '%s'", v);
            } else if (strcmp(a, "--set") == 0) {
                if (nsets == EDDY_MAX_SETS) return usage_error("too many --set options (at most %s)", "256");
                sets[nsets++] = v;
            } else if (strcmp(a, "--steps") == 0) {
                if (eddy_arg_integer(v, 0, &o.steps)) return usage_error("--steps expects an integer >= 0, got '%s'", v);
            } else if (strcmp(a, "--until") == 0) {
                if (eddy_arg_real(v, &o.until) || o.until < 0)
                    return usage_error("--until expects a time >= 0 in seconds, got '%s'", v);
            } else if (strcmp(a, "--threads") == 0) {
                long long t;
                if (eddy_arg_integer(v, 1, &t) || t > 4096) return usage_error("--threads expects an integer >= 1, got '%s'", v);
                o.threads = (int)t;
            } else if (strcmp(a, "--format") == 0) {
                if (parse_formats(v, &o.format_vtk, &o.format_csv))
                    return usage_error("--format expects vtk, csv or vtk,csv, got '%s'", v);
            } else {
                fprintf(stderr, "eddy: unknown option '%s' for %s\nrun 'eddy help' for usage\n", a, cmd);
                return 2;
            }
        } else {
            if (o.scene_path)
                return usage_error(resume ? "unexpected argument '%s' (one run folder)" : "unexpected argument '%s' (one scene per run)", a);
            o.scene_path = a;
            takes = 0;
        }
        i += takes;
    }
    if (!o.scene_path) return usage_error(resume ? "resume needs the folder of a run%s" : "run needs a scene file%s", "");
    if (o.steps >= 0 && !isnan(o.until)) return usage_error("give --steps or --until, not both%s", "");
    o.sets = sets;
    o.set_count = nsets;
    eddy_run_install_signal_handlers();
    eddy_error err;
    eddy_error_clear(&err);
    int rc;
    if (resume) {
        o.resume_dir = o.scene_path;
        o.scene_path = NULL;
        rc = eddy_resume(&o, &err);
    } else {
        rc = eddy_run(&o, &err);
    }
    return rc ? fail(&err) : 0;
}

static int cmd_list(void)
{
    eddy_registry *reg;
    eddy_error err;
    if (eddy_registry_create(&reg, &err)) return fail(&err);
    eddy_registry_discover(reg);
    printf("%-16s %-7s %-9s %s\n", "id", "kind", "version", "file");
    for (size_t i = 0; i < eddy_registry_count(reg); ++i) {
        const eddy_registry_entry *e = eddy_registry_at(reg, i);
        printf("%-16s %-7s %-9s %s\n", e->component->id,
               e->component->kind == EDDY_COMPONENT_SOLVER ? "solver" : "grid", e->component->version,
               e->file);
    }
    size_t nref = eddy_registry_refusal_count(reg);
    if (nref) {
        printf("\nrefused plugins:\n");
        for (size_t i = 0; i < nref; ++i) {
            const eddy_registry_refusal *r = eddy_registry_refusal_at(reg, i);
            printf("  %s: %s\n", r->file, r->reason);
        }
    }
    eddy_registry_destroy(reg);
    return 0;
}

static const char *type_name(eddy_param_type t)
{
    switch (t) {
    case EDDY_PARAM_REAL: return "real";
    case EDDY_PARAM_INT: return "int";
    case EDDY_PARAM_BOOL: return "bool";
    case EDDY_PARAM_ENUM: return "enum";
    }
    return "?";
}

static void format_value(const eddy_param_desc *d, double v, char *buf, size_t n)
{
    if (isnan(v)) snprintf(buf, n, "derived");
    else if (d->type == EDDY_PARAM_BOOL) snprintf(buf, n, "%s", v != 0 ? "true" : "false");
    else if (d->type == EDDY_PARAM_ENUM) snprintf(buf, n, "%s", d->choices[(int)v]);
    else snprintf(buf, n, "%g", v);
}

static int cmd_describe(int argc, char **argv)
{
    if (argc != 1) return usage_error("describe needs exactly one component id%s", "");
    eddy_registry *reg;
    eddy_error err;
    if (eddy_registry_create(&reg, &err)) return fail(&err);
    eddy_registry_discover(reg);
    const eddy_registry_entry *e = eddy_registry_find(reg, argv[0], 0);
    if (!e) {
        fprintf(stderr, "eddy: error: unknown component '%s' (available: %s)\n", argv[0],
                eddy_registry_ids(reg, 0));
        eddy_registry_destroy(reg);
        return 1;
    }
    const eddy_component *c = e->component;
    printf("%s %s (%s) — %s\nfile: %s\n", c->id, c->version,
           c->kind == EDDY_COMPONENT_SOLVER ? "solver" : "grid", c->description, e->file);
    const char *section = c->kind == EDDY_COMPONENT_SOLVER ? "solvers" : "grids";
    if (c->param_count == 0) {
        printf("\nno parameters\n");
    } else {
        printf("\nparameters (scene section \"%s\": {\"%s\": {...}}, or --set %s.%s.NAME=VALUE):\n\n", section,
               c->id, section, c->id);
        printf("%-20s %-5s %-10s %-24s %-8s %s\n", "name", "type", "default", "range", "unit", "doc");
        for (size_t i = 0; i < c->param_count; ++i) {
            const eddy_param_desc *d = &c->params[i];
            char def[64], range[64];
            format_value(d, d->def, def, sizeof def);
            if (d->type == EDDY_PARAM_ENUM) {
                range[0] = '\0';
                for (int k = 0; d->choices[k]; ++k) {
                    if (k) strncat(range, "|", sizeof range - strlen(range) - 1);
                    strncat(range, d->choices[k], sizeof range - strlen(range) - 1);
                }
            } else if (d->type == EDDY_PARAM_BOOL) {
                snprintf(range, sizeof range, "true|false");
            } else {
                snprintf(range, sizeof range, "[%g, %g]", d->min, d->max);
            }
            printf("%-20s %-5s %-10s %-24s %-8s %s\n", d->id, type_name(d->type), def, range,
                   d->unit ? d->unit : "", d->doc);
        }
    }
    eddy_registry_destroy(reg);
    return 0;
}

static int cmd_bench(int argc, char **argv)
{
    eddy_bench_options o;
    memset(&o, 0, sizeof o);
    o.warmup = -1;
    const char *sets[EDDY_MAX_SETS];
    size_t nsets = 0;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long n;
        if (a[0] != '-') {
            if (o.scene_path) return usage_error("unexpected argument '%s'", a);
            o.scene_path = a;
            continue;
        }
        if (!v) return usage_error("option %s needs a value", a);
        if (strcmp(a, "--solver") == 0) o.solver = v;
        else if (strcmp(a, "--grid") == 0) o.grid = v;
        else if (strcmp(a, "--set") == 0) {
            if (nsets == EDDY_MAX_SETS) return usage_error("too many --set options (at most %s)", "256");
            sets[nsets++] = v;
        } else if (strcmp(a, "--particles") == 0) {
            if (eddy_arg_integer(v, 1, &n)) return usage_error("--particles expects an integer >= 1, got '%s'", v);
            o.particles = (size_t)n;
        } else if (strcmp(a, "--steps") == 0) {
            if (eddy_arg_integer(v, 1, &n) || n > 1000000) return usage_error("--steps expects an integer >= 1, got '%s'", v);
            o.steps = (int)n;
        } else if (strcmp(a, "--repeats") == 0) {
            if (eddy_arg_integer(v, 1, &n) || n > 1000) return usage_error("--repeats expects an integer >= 1, got '%s'", v);
            o.repeats = (int)n;
        } else if (strcmp(a, "--threads") == 0) {
            if (eddy_arg_integer(v, 1, &n) || n > 4096) return usage_error("--threads expects an integer >= 1, got '%s'", v);
            omp_set_num_threads((int)n);
        } else {
            return usage_error("unknown option '%s' for bench", a);
        }
        ++i;
    }
    if (!o.scene_path) return usage_error("bench needs a scene file%s", "");
    o.sets = sets;
    o.set_count = nsets;
    eddy_error err;
    eddy_error_clear(&err);
    return eddy_bench_run(&o, &err) ? fail(&err) : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("eddy %s (plugin ABI %d.%d)\n", EDDY_VERSION, EDDY_ABI_MAJOR, EDDY_ABI_MINOR);
        return 0;
    }
    if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2, 0);
    if (strcmp(cmd, "resume") == 0) return cmd_run(argc - 2, argv + 2, 1);
    if (strcmp(cmd, "list") == 0) return argc == 2 ? cmd_list() : usage_error("list takes no arguments%s", "");
    if (strcmp(cmd, "describe") == 0) return cmd_describe(argc - 2, argv + 2);
    if (strcmp(cmd, "bench") == 0) return cmd_bench(argc - 2, argv + 2);
    if (strcmp(cmd, "compare") == 0) return eddy_compare_main(argc - 2, argv + 2);
    return usage_error("unknown command '%s'", cmd);
}
