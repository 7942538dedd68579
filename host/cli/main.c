/*
 * eddy — the command-line host: run, resume, compare, validate, list, describe, bench.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <eddy/eddy.h>
/* Which vector ISA the SPH solvers' neighbour loops run (header-only). */
#include <eddy_sph/simd.h>

#include "args.h"
#include "bench.h"
#include "compare.h"
#include "decomp.h"
#include "launch.h"
#include "run.h"
#include "services.h"
#include "validate.h"

#define EDDY_MAX_SETS 256

/* The usage error of a command line without a command, on several processes (main says the usage). */
static const char NO_COMMAND[] = "no command given";

static const char usage[] =
    "usage: eddy <command> [options]\n"
    "\n"
    "commands:\n"
    "  run SCENE [--solver ID] [--grid ID] [--set key=value]... [--out DIR]\n"
    "            [--steps N | --until T] [--threads N] [--format ID,ID...] [--hash]\n"
    "            [--checkpoint-every T] [--no-picture] [--no-overlap] [--quiet]\n"
    "            [--render] [--movie] [--render-field NAME] [--camera SPEC]\n"
    "            [--render-range MIN,MAX|frame] [--render-width PX]\n"
    "      Runs a scene. Writes DIR/frames/*.vtp, DIR/frames.pvd (open it in ParaView),\n"
    "      DIR/diagnostics.csv and DIR/picture.png. --set takes a dotted path into the scene,\n"
    "      e.g. --set world.smoothing_radius=0.02 --set 'materials[0].viscosity=0.2' (quoted:\n"
    "      zsh expands brackets).\n"
    "      --render writes DIR/render/frame_NNNNN.png per frame (camera, field, colour bar, time);\n"
    "      --movie also DIR/movie.mp4 with ffmpeg; --render-field, --camera, --render-range and\n"
    "      --render-width choose what they draw (only with one of them). See docs/rendering.md.\n"
    "      --steps N or --until T end the run elsewhere than the scene's time.end. --format names\n"
    "      the frame writers (vtk, csv, or a plugin's; `eddy list` shows them) instead of output.format.\n"
    "      Every run ends by writing DIR/checkpoint.eddy (under mpirun one piece per process and\n"
    "      DIR/checkpoint.manifest), also when SIGINT/SIGTERM stops it;\n"
    "      --checkpoint-every T also writes one at the first output frame at or after every T\n"
    "      simulated seconds.\n"
    "      VTK and CSV frames are written on a writer thread while the run steps on; --no-overlap\n"
    "      (or output.overlap false) writes each before the next step.\n"
    "  resume DIR [--steps N | --until T] [--threads N] [--hash] [--checkpoint-every T]\n"
    "             [--no-picture] [--no-overlap] [--quiet]\n"
    "      Continues the run in DIR from its checkpoint to its end, or to a new total step count or\n"
    "      time; the final state is bit-identical to an uninterrupted run's.\n"
    "  compare SCENE --solvers ID,ID,... [--out DIR] [--steps N | --until T] [--set key=value]...\n"
    "                [--grid ID] [--threads N] [--quiet]\n"
    "      The scene through each solver with eddy run's stepping: DIR/<solver>/diagnostics.csv,\n"
    "      probes.csv, first and last frame; DIR/summary.md, summary.csv and DIR/plots/*.png.\n"
    "      Default DIR: out/compare/<scene name>. Under mpirun every solver's run is split over the\n"
    "      processes and rank 0 writes the same report as one process.\n"
    "  validate [--solver ID]... [--case NAME]... [--resolution coarse|medium|fine[,...]]\n"
    "           [--set key=value]... [--grid ID] [--out DIR] [--cases DIR] [--threads N] [--list]\n"
    "           [--quiet]\n"
    "      Runs the validation cases (share/eddy/validation, or --cases DIR) with each solver and\n"
    "      judges every check against its reference and bar: DIR/report.md, report.csv and a plot\n"
    "      per check (default DIR: out/validate). Without --solver: every solver whose plugin ships\n"
    "      a validation file; without --case: the cases that file lists. Exits 1 when a check the\n"
    "      solver claims to pass misses its bar. --list shows the cases and the claims. --grid ID\n"
    "      runs every case on that neighbour grid (--set grid=ID). See docs/validation.md.\n"
    "  list\n"
    "      Every component found, grouped by kind (solvers, grids, writers, probes, ...: id, version,\n"
    "      file), and every plugin refused, with the reason (then the exit status is 1).\n"
    "  describe ID\n"
    "      The parameters of a component of any kind: name, type, default, range, unit, doc; for a\n"
    "      solver also its per-material parameters.\n"
    "  bench SCENE [--solver ID] [--grid ID] [--particles N] [--steps N] [--repeats N]\n"
    "              [--threads N] [--set key=value]... [--at T] [--quiet]\n"
    "  bench --from DIR [--steps N] [--repeats N] [--threads N] [--at T] [--quiet]\n"
    "      Median speed of a solver on the scene refilled at about N particles (the whole run's;\n"
    "      default: the scene's own fill): --repeats N repeats (5) of --steps N steps (20) each, after\n"
    "      10 warm-up steps.\n"
    "      --at T first steps the flow as `eddy run` does to t = T s (after the refill), so that a\n"
    "      developed state is timed (a splash costs more than water at rest: the bench prints the\n"
    "      fraction of particles within h of a wall); --from DIR benches the checkpoint of a run\n"
    "      folder (its solver and grid; --at T then continues it to T first).\n"
    "      Under mpirun (`mpirun -np R eddy bench ...`): the decomposed step, figures over every\n"
    "      process, time in MPI and halo bytes per step, printed once. See docs/mpi.md.\n"
    "  help [COMMAND]\n"
    "      This text, or one command's part of it (as `eddy COMMAND --help`).\n"
    "  --version\n"
    "      The version, the plugin ABI, whether MPI is in, and the SIMD path of the solvers.\n"
    "\n"
    "An option that takes a value is given once; --set (and validate's --solver and --case) add up.\n"
    "Plugins are searched in $EDDY_PLUGIN_PATH (colon-separated), <exe>/../lib/eddy/plugins and the\n"
    "install folder, in that order; the first component found with an id is used, and a command that\n"
    "uses one that shadows another says so on stderr (`eddy list` shows both files).\n"
    "OpenMP threads spin briefly, then sleep: eddy sets GOMP_SPINCOUNT=1000 unless OMP_WAIT_POLICY or\n"
    "GOMP_SPINCOUNT is set (OMP_WAIT_POLICY=active spins; docs/performance.md).\n"
    "Exit status: 0 success, 1 error (a lost stdout or stderr too), 2 bad command line, 130 interrupted\n"
    "(SIGINT, or SIGTERM, SIGHUP or SIGXCPU once a run has started writing: it stops after its step with a\n"
    "checkpoint), 128 + the signal while loading (nothing written: 143 SIGTERM, 129 SIGHUP, 152 SIGXCPU).\n";


#define EDDY_MAX_FORMATS 16

/* --format ID,ID,...: writer ids ([a-z0-9_]+), each once, split in place. Returns the count, or -1
   with what is wrong in why. An empty entry ("vtk,,csv", "vtk,") is refused, not skipped: it is a typo,
   not a request. */
static int split_formats(char *buf, const char **ids, char *why, size_t cap)
{
    int n = 0;
    for (char *t = buf, *next; t; t = next) {
        next = strchr(t, ',');
        if (next) *next++ = '\0';
        if (n == EDDY_MAX_FORMATS) {
            snprintf(why, cap, "at most %d writers", EDDY_MAX_FORMATS);
            return -1;
        }
        if (*t == '\0') {
            snprintf(why, cap, "an empty entry");
            return -1;
        }
        int id = 1;
        for (const char *c = t; *c; ++c)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) id = 0;
        if (!id || strlen(t) >= 64) {
            snprintf(why, cap, id ? "'%.40s...' is longer than 63 characters" : "'%.40s' is not a writer id "
                     "(lower-case letters, digits, _)", t);
            return -1;
        }
        for (int k = 0; k < n; ++k)
            if (strcmp(ids[k], t) == 0) {
                snprintf(why, cap, "'%s' is given twice", t);
                return -1;
            }
        ids[n++] = t;
    }
    return n;
}

/* Every id must be a writer of the registry: else the usage error lists those there are. */
static int check_formats(eddy_registry *reg, const char *arg, const char **ids, int n)
{
    for (int k = 0; k < n; ++k) {
        if (eddy_registry_find(reg, ids[k], EDDY_INTERFACE_WRITER)) continue;
        char msg[1024];
        snprintf(msg, sizeof msg, "--format expects writer ids separated by commas (available: %s), got '%%s'%%s",
                 eddy_registry_ids(reg, EDDY_INTERFACE_WRITER));
        const char *near = eddy_scene_nearest_id(reg, EDDY_INTERFACE_WRITER, ids[k]);
        char mean[160] = "";
        /* (in a list, which entry the suggestion replaces) */
        if (near && n == 1) snprintf(mean, sizeof mean, "; did you mean '%s'?", near);
        else if (near) snprintf(mean, sizeof mean, "; did you mean '%s' for '%.64s'?", near, ids[k]);
        return eddy_arg_usage_error(msg, arg, mean);
    }
    return 0;
}

static int fail(const eddy_error *err)
{
    /* An interrupt is a clean stop, not an error. */
    const int status = err->code == EDDY_ERR_INTERRUPTED ? 130 : 1;
    const char *kind = err->code == EDDY_ERR_INTERRUPTED ? "" : "error: ";
    if (eddy_decomp_size() <= 1) {
        eddy_services_say(kind, err->message);
        return status;
    }
    /* Several processes (docs/mpi.md). An outcome they reached together (an agreed interrupt, an
     * explosion in the reduced statistics), or any other error every process met alike (a missing
     * scene, a bad environment variable), is said once, by the first, and every process ends normally:
     * an MPI_Abort from one would kill the first while it still writes (the picture). The wait of the
     * comparison is for processes that fail a little later; one that does not come is stepping or
     * waits in a collective, and is stopped below. */
    if (eddy_decomp_failed_alike(err->code, err->message, EDDY_DECOMP_FAILURE_WAIT_S)) {
        if (eddy_decomp_rank() == 0) eddy_services_say(kind, err->message);
        return status;
    }
    /* Else the failing process says who it is and stops every other one. */
    eddy_decomp_stop_all(kind, err->message, status);
    return status;
}

/* argc/argv: the command's own words (after "run"/"resume"); all_argc/all_argv: the whole command line,
 * which DIR/run.json records. */
static int cmd_run(int argc, char **argv, int resume, int all_argc, char **all_argv)
{
    static const char *const run_values[] = {"--solver", "--grid", "--out", "--set", "--format", "--render-field",
                                             "--camera", "--render-range", "--render-width", "--checkpoint-every",
                                             "--steps", "--until", "--threads", NULL};
    const char *cmd = resume ? "resume" : "run";
    eddy_run_options o = eddy_run_default_options();
    o.argc = all_argc;
    o.argv = (const char *const *)all_argv;
    const char *sets[EDDY_MAX_SETS];
    size_t nsets = 0;
    static char format_buf[1024];
    static const char *formats[EDDY_MAX_FORMATS];
    const char *format_arg = NULL;
    int nformats = 0;
    eddy_arg_once seen = {0};
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (strcmp(a, "--hash") == 0) { o.hash = 1; takes = 0; }
        else if (strcmp(a, "--quiet") == 0) { o.quiet = 1; takes = 0; }
        else if (strcmp(a, "--no-picture") == 0) { o.picture = 0; takes = 0; }
        else if (strcmp(a, "--no-overlap") == 0) { o.overlap = 0; takes = 0; }
        else if (strcmp(a, "--render") == 0 || strcmp(a, "--movie") == 0) {
            if (resume)
                return eddy_arg_usage_error("option %s is not for resume: a resumed run keeps its scene, solver, grid, "
                                   "folder, formats and rendering", a);
            if (a[2] == 'r') o.render.enabled = 1;
            else o.render.movie = 1;
            takes = 0;
        }
        else if (a[0] == '-' && a[1]) {
            if (eddy_arg_value(cmd, run_values, a, v)) return 2;
            int run_only = strcmp(a, "--solver") == 0 || strcmp(a, "--grid") == 0 || strcmp(a, "--out") == 0 ||
                           strcmp(a, "--set") == 0 || strcmp(a, "--format") == 0 ||
                           strncmp(a, "--render", 8) == 0 || strcmp(a, "--camera") == 0 || strcmp(a, "--movie") == 0;
            if (resume && run_only)
                return eddy_arg_usage_error("option %s is not for resume: a resumed run keeps its scene, solver, grid, "
                                   "folder, formats and rendering", a);
            if (strcmp(a, "--set") != 0 && eddy_arg_given_once(&seen, a, v)) return 2;
            if (strcmp(a, "--solver") == 0 || strcmp(a, "--grid") == 0) {
                if (eddy_arg_component_id(a, v)) return 2;
                if (a[2] == 's') o.solver = v;
                else o.grid = v;
            } else if (strcmp(a, "--out") == 0) {
                if (eddy_arg_folder(a, v)) return 2;
                o.out_dir = v;
            } else if (strcmp(a, "--render-field") == 0) {
                /* (the length is the form; whether the solver has the field is the run's to say, 1) */
                if (!v[0]) return eddy_arg_usage_error("--render-field expects a field name of 1 to 63 characters, got ''");
                if (strlen(v) > 63)
                    return eddy_arg_usage_error("--render-field expects a field name of 1 to 63 characters, got %zu characters",
                                                strlen(v));
                o.render.field = v;
            } else if (strcmp(a, "--camera") == 0) o.render.camera = v;
            else if (strcmp(a, "--render-range") == 0) o.render.range = v;
            else if (strcmp(a, "--render-width") == 0) {
                long long px;
                if (eddy_arg_integer(v, 16, &px) || px > 16384)
                    return eddy_arg_usage_error("--render-width expects a width in pixels (16 to 16384), got '%s'", v);
                o.render.width = (int)px;
            } else if (strcmp(a, "--checkpoint-every") == 0) {
                if (eddy_arg_real(v, &o.checkpoint_every) || !(o.checkpoint_every > 0))
                    return eddy_arg_usage_error("--checkpoint-every expects a time > 0 in seconds, got '%s'", v);
            } else if (strcmp(a, "--set") == 0) {
                if (nsets == EDDY_MAX_SETS) return eddy_arg_usage_error("too many --set options (at most %s)", "256");
                if (eddy_arg_set(v)) return 2;
                sets[nsets++] = v;
            } else if (strcmp(a, "--steps") == 0) {
                /* A checkpoint keeps the count as a JSON number, a double: exact up to 2^53 (and 2^63 came
                 * back as a count its resume refused). */
                if (eddy_arg_integer_option(a, v, 0, 9007199254740992LL, &o.steps)) return 2;
            } else if (strcmp(a, "--until") == 0) {
                if (eddy_arg_until(v, &o.until)) return 2;
            } else if (strcmp(a, "--threads") == 0) {
                if (eddy_arg_threads(v, &o.threads)) return 2;
            } else if (strcmp(a, "--format") == 0) {
                snprintf(format_buf, sizeof format_buf, "%s", v);
                format_arg = v;
                char why[128] = "the list is longer than 1023 characters";
                if (strlen(v) >= sizeof format_buf || (nformats = split_formats(format_buf, formats, why, sizeof why)) < 0)
                    /* (the list shown cut short: the reason must fit the message) */
                    return eddy_arg_usage_error("--format expects writer ids separated by commas, each once, e.g. "
                                                "vtk,csv, got '%.200s%s': %s", v, strlen(v) > 200 ? "..." : "", why);
            } else {
                return eddy_arg_usage_error("unknown option '%s' for %s", a, cmd);
            }
        } else {
            if (o.scene_path)
                return eddy_arg_usage_error(resume ? "unexpected argument '%s' (one run folder)" : "unexpected argument '%s' (one scene per run)", a);
            o.scene_path = a;
            takes = 0;
        }
        i += takes;
    }
    if (!o.scene_path) return eddy_arg_usage_error(resume ? "resume needs the folder of a run%s" : "run needs a scene file%s", "");
    if (o.steps >= 0 && !isnan(o.until)) return eddy_arg_usage_error("give --steps or --until, not both%s", "");
    o.sets = sets;
    o.set_count = nsets;
    eddy_error err;
    eddy_error_clear(&err);
    if (eddy_render_check_request(&o.render, &err)) return eddy_arg_usage_error("%s", err.message);
    /* They only choose what --render draws: alone they were ignored without a word. */
    if (!o.render.enabled && !o.render.movie) {
        const char *alone = o.render.field ? "--render-field" : o.render.camera ? "--camera"
                          : o.render.range ? "--render-range" : o.render.width ? "--render-width" : NULL;
        if (alone) return eddy_arg_usage_error("%s chooses what --render draws: give --render or --movie with it", alone);
    }
    eddy_services_set_quiet(o.quiet);
    /* One registry for the command: the --format ids are checked against it, and the run uses it. */
    eddy_registry *reg;
    if (eddy_services_registry(1, &reg, &err)) return fail(&err);
    int rc;
    if (format_arg && (rc = check_formats(reg, format_arg, formats, nformats))) {
        eddy_registry_destroy(reg);
        return rc;
    }
    o.formats = format_arg ? formats : NULL;
    o.format_count = format_arg ? (size_t)nformats : 0;
    o.registry = reg;
    /* Signals: main() made them end the process while nothing is written; eddy_sim_open switches them
     * to the run loop's stop flag once the session is open (services.h). */
    if (resume) {
        o.resume_dir = o.scene_path;
        o.scene_path = NULL;
        rc = eddy_resume(&o, &err);
    } else {
        rc = eddy_run(&o, &err);
    }
    eddy_registry_destroy(reg);
    return rc ? fail(&err) : 0;
}

/* The interfaces `eddy list` groups first, in this order, with their group titles; any other interface
 * id a plugin implements follows under its own id. */
static const struct {
    const char *id, *title;
} KNOWN_KINDS[] = {
    {EDDY_INTERFACE_SOLVER, "solvers"},
    {EDDY_INTERFACE_GRID, "grids"},
    {EDDY_INTERFACE_WRITER, "writers"},
    {EDDY_INTERFACE_PROBE, "probes"},
};
#define KNOWN_KIND_COUNT (sizeof KNOWN_KINDS / sizeof KNOWN_KINDS[0])

static int is_known_kind(const char *interface_id)
{
    for (size_t k = 0; k < KNOWN_KIND_COUNT; ++k)
        if (strcmp(KNOWN_KINDS[k].id, interface_id) == 0) return 1;
    return 0;
}

/* Prints the components of one interface under a title; returns how many there were. */
static size_t list_group(eddy_registry *reg, const char *interface_id, const char *title, int first)
{
    size_t n = 0;
    for (size_t i = 0; i < eddy_registry_count(reg); ++i) {
        const eddy_registry_entry *e = eddy_registry_at(reg, i);
        const eddy_component *c = e->component;
        if (strcmp(c->interface_id, interface_id) != 0) continue;
        if (n++ == 0) {
            if (strcmp(title, interface_id) == 0) printf("%s%s:\n", first ? "" : "\n", title);
            else printf("%s%s (%s):\n", first ? "" : "\n", title, interface_id);
        }
        char version[64], file[PATH_MAX];
        printf("%-16s %-7s %-9s %s\n", c->id, eddy_interface_name(c->interface_id),
               eddy_services_terminal_text(c->version ? c->version : "", version, sizeof version),
               eddy_services_terminal_text(e->file, file, sizeof file));
    }
    return n;
}

static int cmd_list(void)
{
    eddy_registry *reg;
    eddy_error err;
    if (eddy_services_registry(1, &reg, &err)) return fail(&err);
    printf("%-16s %-7s %-9s %s\n\n", "id", "kind", "version", "file");
    int first = 1;
    for (size_t k = 0; k < KNOWN_KIND_COUNT; ++k)
        if (list_group(reg, KNOWN_KINDS[k].id, KNOWN_KINDS[k].title, first)) first = 0;
    /* Other kinds, each once, in the order they were registered. */
    for (size_t i = 0; i < eddy_registry_count(reg); ++i) {
        const char *id = eddy_registry_at(reg, i)->component->interface_id;
        if (is_known_kind(id)) continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; ++j) seen = strcmp(eddy_registry_at(reg, j)->component->interface_id, id) == 0;
        if (!seen && list_group(reg, id, id, first)) first = 0;
    }
    /* The solvers are plugins: a program built alone (the target eddy_cli) or copied away from its
     * plugin folder finds none, and the listing only lacked their section. */
    const char *solver_ids = eddy_registry_ids(reg, EDDY_INTERFACE_SOLVER);
    if (!solver_ids || !*solver_ids)
        printf("%ssolvers: none found; they are plugins, searched in EDDY_PLUGIN_PATH's folders and in "
               "<program>/../lib/eddy/plugins and <folder of libeddy>/eddy/plugins: build them (the default "
               "build target builds every plugin) or point EDDY_PLUGIN_PATH at their folder\n", first ? "" : "\n");
    printf("\nprocesses: %s\n", eddy_decomp_describe());
    /* Components not registered because an earlier plugin folder has the id (eddy/registry.h). */
    size_t nshadow = eddy_registry_shadow_count(reg);
    if (nshadow) {
        printf("\nshadowed components (the first one found in the search order is used):\n");
        for (size_t i = 0; i < nshadow; ++i) {
            const eddy_registry_shadow *s = eddy_registry_shadow_at(reg, i);
            char shadowed[PATH_MAX], file[PATH_MAX];
            printf("  %-16s %-7s %s\n  %-16s shadowed by %s\n", s->id, eddy_interface_name(s->interface_id),
                   eddy_services_terminal_text(s->shadowed, shadowed, sizeof shadowed), "",
                   eddy_services_terminal_text(s->file, file, sizeof file));
        }
    }
    size_t nref = eddy_registry_refusal_count(reg);
    if (nref) {
        printf("\nrefused plugins:\n");
        for (size_t i = 0; i < nref; ++i) {
            const eddy_registry_refusal *r = eddy_registry_refusal_at(reg, i);
            /* (a path from EDDY_PLUGIN_PATH, a reason quoting a plugin's own text: shown as the log shows
             * them, a terminal obeys an escape sequence) */
            char file[PATH_MAX], reason[EDDY_ERROR_MESSAGE_MAX];
            printf("  %s: %s\n", eddy_services_terminal_text(r->file, file, sizeof file),
                   eddy_services_terminal_text(r->reason, reason, sizeof reason));
        }
    }
    /* A component without a description loads (the ABI does not require one) but describes itself as
     * "(no description)": said here, where a plugin author checks the loader first. */
    for (size_t i = 0; i < eddy_registry_count(reg); ++i) {
        const eddy_registry_entry *e = eddy_registry_at(reg, i);
        if (e->component->description && *e->component->description) continue;
        fflush(stdout);
        char file[PATH_MAX];
        fprintf(stderr, "eddy: warning: %s '%s' of %s has no description; give its component a one-line "
                "`description`, which `eddy describe` shows\n", eddy_interface_name(e->component->interface_id),
                e->component->id, eddy_services_terminal_text(e->file, file, sizeof file));
    }
    if (nref) {
        /* A refusal is a broken installation or plugin path: the listing is printed whole, and the
         * exit status lets a script or an install check see it. */
        fflush(stdout);
        fprintf(stderr, "eddy: error: %zu plugin refusal%s (see \"refused plugins\" above)\n", nref,
                nref == 1 ? "" : "s");
    }
    eddy_registry_destroy(reg);
    return nref ? 1 : 0;
}

static const char *type_name(eddy_param_type t)
{
    switch (t) {
    case EDDY_PARAM_REAL: return "real";
    case EDDY_PARAM_INT: return "int";
    case EDDY_PARAM_BOOL: return "bool";
    case EDDY_PARAM_ENUM: return "enum";
    case EDDY_PARAM_STRING: return "string";
    case EDDY_PARAM_VECTOR: return "vector";
    }
    return "?";
}

/* The default as a scene would write it; "required" / "derived" where the table says so. */
static void format_default(const eddy_param_desc *d, char *buf, size_t n)
{
    if (d->flags & EDDY_PARAM_REQUIRED) snprintf(buf, n, "required");
    else if (d->flags & EDDY_PARAM_DERIVED) snprintf(buf, n, "derived");
    else if (d->type == EDDY_PARAM_BOOL) snprintf(buf, n, "%s", d->def != 0 ? "true" : "false");
    else if (d->type == EDDY_PARAM_ENUM) snprintf(buf, n, "%s", d->choices ? d->choices[(int)d->def] : "?");
    else if (d->type == EDDY_PARAM_STRING) snprintf(buf, n, "\"%s\"", d->def_string ? d->def_string : "");
    else if (d->type == EDDY_PARAM_VECTOR) snprintf(buf, n, "[%g, ...]", d->def);
    else snprintf(buf, n, "%g", d->def);
}

/* [min, max], with the conventions of parameter tables: a bound of magnitude >= 1e30 is none ("inf"),
 * and a tiny positive min (<= 1e-30) means "> 0". */
static void format_interval(double min, double max, char *out, size_t size)
{
    char lo[32], hi[32];
    if (min <= -1e30) snprintf(lo, sizeof lo, "(-inf");
    else if (min > 0 && min <= 1e-30) snprintf(lo, sizeof lo, "(0");
    else snprintf(lo, sizeof lo, "[%g", min);
    if (max >= 1e30) snprintf(hi, sizeof hi, "inf)");
    else snprintf(hi, sizeof hi, "%g]", max);
    snprintf(out, size, "%s, %s", lo, hi);
}

static void format_range(const eddy_param_desc *d, char *range, size_t size)
{
    range[0] = '\0';
    if (d->type == EDDY_PARAM_ENUM) {
        for (int k = 0; d->choices && d->choices[k]; ++k) {
            if (k) strncat(range, "|", size - strlen(range) - 1);
            strncat(range, d->choices[k], size - strlen(range) - 1);
        }
    } else if (d->type == EDDY_PARAM_BOOL) {
        snprintf(range, size, "true|false");
    } else if (d->type == EDDY_PARAM_STRING) {
        snprintf(range, size, "<= %g chars", d->max);
    } else if (d->type == EDDY_PARAM_VECTOR) {
        char each[64];
        format_interval(d->min, d->max, each, sizeof each);
        snprintf(range, size, "1-3 x %s", each);
    } else {
        format_interval(d->min, d->max, range, size);
    }
}

/* One parameter table: a line per entry. The type column widens for "string" and "vector". */
static void print_table(const eddy_param_desc *table, size_t count)
{
    int tw = 5;
    for (size_t i = 0; i < count; ++i) {
        int l = (int)strlen(type_name(eddy_param_at(table, i)->type));
        if (l > tw) tw = l;
    }
    printf("%-20s %-*s %-10s %-24s %-8s %s\n", "name", tw, "type", "default", "range", "unit", "doc");
    for (size_t i = 0; i < count; ++i) {
        const eddy_param_desc *d = eddy_param_at(table, i);
        char def[64], range[128];
        format_default(d, def, sizeof def);
        format_range(d, range, sizeof range);
        /* (a plugin's own text: shown as the log shows it, a terminal obeys an escape sequence) */
        char unit[64], doc[4096];
        printf("%-20s %-*s %-10s %-24s %-8s %s%s\n", d->id, tw, type_name(d->type), def, range,
               eddy_services_terminal_text(d->unit ? d->unit : "", unit, sizeof unit),
               eddy_services_terminal_text(d->doc ? d->doc : "", doc, sizeof doc),
               d->flags & EDDY_PARAM_FIXED_ON_RESUME ? " (fixed on resume)" : "");
    }
}

static int cmd_describe(int argc, char **argv)
{
    /* (an option was looked up as a component: "unknown component '--quiet'", status 1) */
    for (int i = 0; i < argc; ++i)
        if (argv[i][0] == '-') return eddy_arg_usage_error("unknown option '%s' for describe", argv[i]);
    if (argc != 1) return eddy_arg_usage_error("describe needs exactly one component id%s", "");
    /* The registry takes only ids of [a-z0-9_] (of any length): '' or "Tait" was "unknown component",
     * with the hint to add the folder that holds eddy_.so. */
    int id_form = argv[0][0] != '\0';
    for (const char *c = argv[0]; id_form && *c; ++c)
        id_form = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
    if (!id_form)
        return eddy_arg_usage_error("describe expects a component id (characters of [a-z0-9_], as `eddy list` "
                                    "shows them), got '%s'", argv[0]);
    eddy_registry *reg;
    eddy_error err;
    if (eddy_services_registry(1, &reg, &err)) return fail(&err);
    const eddy_registry_entry *e = eddy_registry_find(reg, argv[0], NULL);
    if (!e) {
        /* A typo of a registered id is pointed at instead of where plugins are searched. */
        char refused[EDDY_ERROR_MESSAGE_MAX] = "";
        const char *near = eddy_scene_nearest_id(reg, NULL, argv[0]);
        if (!near) eddy_services_refusal_hint(reg, argv[0], refused, sizeof refused);
        /* (an id of thousands of characters was echoed whole, pushing the list of ids off the screen) */
        char shown[96];
        const size_t n = strlen(argv[0]);
        if (n < 64) snprintf(shown, sizeof shown, "'%s'", argv[0]);
        else snprintf(shown, sizeof shown, "'%.40s...' (%zu characters)", argv[0], n);
        eddy_error_set(&err, EDDY_ERR_NOT_FOUND, "unknown component %s (available: %s%s)%s%s%s", shown,
                       eddy_registry_ids(reg, NULL), refused, near ? "; did you mean '" : "", near ? near : "",
                       near ? "'?" : "");
        eddy_registry_destroy(reg);
        return fail(&err);
    }
    const eddy_component *c = e->component;
    /* (under mpirun the others' stdout is /dev/null: the notice on stderr is rank 0's to say too) */
    if (eddy_decomp_rank() == 0) eddy_services_notice_shadow(reg, c->id);
    const char *kind = eddy_interface_name(c->interface_id);
    /* A description is not required by the ABI (2.x plugins without one load): its absence is said,
     * where the line ended in a dash with nothing after it. */
    char version[64], description[1024], file[PATH_MAX], plugin[256];
    printf("%s %s (%s, %s) — %s\n", c->id, eddy_services_terminal_text(c->version ? c->version : "", version, sizeof version),
           kind, c->interface_id,
           c->description && *c->description ? eddy_services_terminal_text(c->description, description, sizeof description)
                                             : "(no description)");
    if (strcmp(e->file, "(built-in)") == 0) printf("file: (built-in)\n");
    else
        printf("file: %s (plugin %s)\n", eddy_services_terminal_text(e->file, file, sizeof file),
               eddy_services_terminal_text(e->plugin ? e->plugin : "", plugin, sizeof plugin));
    if (c->flags) {
        printf("flags:%s%s%s%s\n", c->flags & EDDY_COMPONENT_CONCURRENT_INSTANCES ? " concurrent-instances" : "",
               c->flags & EDDY_COMPONENT_DECOMPOSABLE ? " decomposable" : "",
               c->flags & EDDY_COMPONENT_DEVICE_RESIDENT ? " device-resident" : "",
               c->flags & EDDY_COMPONENT_STATE_COMPLETE ? " state-complete" : "");
    }
    const int solver = strcmp(c->interface_id, EDDY_INTERFACE_SOLVER) == 0;
    const int grid = strcmp(c->interface_id, EDDY_INTERFACE_GRID) == 0;
    const int writer = strcmp(c->interface_id, EDDY_INTERFACE_WRITER) == 0;
    const int probe = strcmp(c->interface_id, EDDY_INTERFACE_PROBE) == 0;
    if (c->param_count == 0) {
        printf("\nno parameters\n");
    } else {
        if (solver || grid)
            printf("\nparameters (scene section \"%s\": {\"%s\": {...}}, or --set %s.%s.NAME=VALUE):\n\n",
                   solver ? "solvers" : "grids", c->id, solver ? "solvers" : "grids", c->id);
        else if (writer)
            printf("\nparameters (scene section \"output\": {\"format\": [\"%s\"], \"writers\": {\"%s\": {...}}}):\n\n",
                   c->id, c->id);
        else if (probe)
            printf("\nparameters (in a \"probes\" entry: {\"kind\": \"%s\", \"name\": ..., NAME: VALUE, ...}):\n\n",
                   c->id);
        else
            printf("\nparameters:\n\n");
        print_table(c->params, c->param_count);
    }
    if (solver) {
        if (c->material_param_count == 0) {
            printf("\nno material parameters\n");
        } else {
            printf("\nmaterial parameters (in each \"materials\" entry, or --set materials[i].NAME=VALUE):\n\n");
            print_table(c->material_params, c->material_param_count);
        }
    }
    eddy_registry_destroy(reg);
    return 0;
}

static int cmd_bench(int argc, char **argv)
{
    static const char *const bench_values[] = {"--solver", "--grid", "--set", "--particles", "--steps", "--repeats",
                                               "--threads", "--at", "--from", NULL};
    eddy_bench_options o;
    memset(&o, 0, sizeof o);
    o.warmup = -1;
    const char *sets[EDDY_MAX_SETS];
    size_t nsets = 0;
    eddy_arg_once seen = {0};
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long n;
        if (a[0] != '-' || !a[1]) { /* '-' is a file name, as for run */
            if (o.scene_path) return eddy_arg_usage_error("unexpected argument '%s'", a);
            o.scene_path = a;
            continue;
        }
        if (strcmp(a, "--quiet") == 0) {
            /* (the figures are on stdout; this hides the solvers' information lines on stderr) */
            eddy_services_set_quiet(1);
            continue;
        }
        if (eddy_arg_value("bench", bench_values, a, v)) return 2;
        if (strcmp(a, "--set") != 0 && eddy_arg_given_once(&seen, a, v)) return 2;
        if (strcmp(a, "--solver") == 0 || strcmp(a, "--grid") == 0) {
            if (eddy_arg_component_id(a, v)) return 2;
            if (a[2] == 's') o.solver = v;
            else o.grid = v;
        } else if (strcmp(a, "--set") == 0) {
            if (nsets == EDDY_MAX_SETS) return eddy_arg_usage_error("too many --set options (at most %s)", "256");
            if (eddy_arg_set(v)) return 2;
            sets[nsets++] = v;
        } else if (strcmp(a, "--particles") == 0) {
            if (eddy_arg_integer_option(a, v, 1, LLONG_MAX, &n)) return 2;
            o.particles = (size_t)n;
        } else if (strcmp(a, "--steps") == 0) {
            if (eddy_arg_integer_option(a, v, 1, 1000000, &n)) return 2;
            o.steps = (int)n;
        } else if (strcmp(a, "--repeats") == 0) {
            if (eddy_arg_integer_option(a, v, 1, 1000, &n)) return 2;
            o.repeats = (int)n;
        } else if (strcmp(a, "--threads") == 0) {
            if (eddy_arg_threads(v, &o.threads)) return 2;
        } else if (strcmp(a, "--at") == 0) {
            if (eddy_arg_bench_at(v, &o.at)) return 2;
        } else if (strcmp(a, "--from") == 0) {
            if (eddy_arg_folder(a, v)) return 2;
            o.from = v;
        } else {
            return eddy_arg_usage_error("unknown option '%s' for bench", a);
        }
        ++i;
    }
    if (o.from && (o.scene_path || o.solver || o.grid || nsets || o.particles))
        return eddy_arg_bench_from_conflict(o.scene_path);
    if (!o.scene_path && !o.from) return eddy_arg_usage_error("bench needs a scene file or --from DIR%s", "");
    o.sets = sets;
    o.set_count = nsets;
    eddy_error err;
    eddy_error_clear(&err);
    return eddy_bench_run(&o, &err) ? fail(&err) : 0;
}

/* `eddy CMD --help`: the lines of the usage that describe CMD, on stdout. A command's synopsis lines
 * start with two spaces and its name (continued by lines that start with '['), its description lines
 * are indented further. */
static int command_help(const char *cmd)
{
    const size_t len = strlen(cmd);
    const char *const lead = "usage: eddy ";
    int in_block = 0;
    for (const char *line = usage; *line;) {
        const char *end = strchr(line, '\n');
        const size_t n = end ? (size_t)(end - line) : strlen(line);
        const int synopsis = n > 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ';
        if (synopsis)
            in_block = n >= len + 2 && strncmp(line + 2, cmd, len) == 0 && (n == len + 2 || line[len + 2] == ' ');
        else if (n == 0 || line[0] != ' ')
            in_block = 0;
        if (in_block) {
            const size_t indent = strspn(line, " ");
            if (synopsis) printf("%s%.*s\n", lead, (int)n - 2, line + 2);
            else if (indent < n && line[indent] == '[') printf("%*s%.*s\n", (int)strlen(lead) - 2, "", (int)n, line);
            else printf("%.*s\n", (int)n, line);
        }
        line += n + (end ? 1 : 0);
    }
    printf("All commands: eddy help\n");
    return 0;
}

/* The commands that only print (help, --version, list, describe): under mpirun every process runs
 * them, and each printed its own copy, interleaved with the others' ("install folusage:"). The first
 * process prints for all. Only stdout: their errors go through fail(), which says an error every
 * process met once and one that a process met alone (a plugin missing on its node) with its rank. */
static void speak_once(void)
{
    if (eddy_decomp_size() > 1 && eddy_decomp_rank() != 0) (void)!freopen("/dev/null", "w", stdout);
}

static int is_help(const char *a)
{
    return strcmp(a, "help") == 0 || strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

static int command(int argc, char **argv)
{
    if (argc < 2) {
        /* Several processes: main prints the usage once, when every process was given no command. */
        if (eddy_decomp_size() > 1) return eddy_arg_usage_error("%s", NO_COMMAND);
        fputs(usage, stderr);
        return 2;
    }
    /* Honour SIGINT / SIGTERM (and SIGHUP, SIGXCPU) from the start: until a command has opened its session
     * and may write, a signal ends the process at once (128 + the signal: 130, 143, 129, 152), however long
     * a scene or checkpoint takes to load. SIGPIPE and SIGXFSZ are caught below for the commands that run. */
    eddy_services_exit_on_signal();
    const char *cmd = argv[1];
    static const char *const commands[] = {"run", "resume", "compare", "validate", "list", "describe", "bench"};
    const size_t ncommands = sizeof commands / sizeof commands[0];
    if (is_help(cmd)) {
        /* `eddy help run` printed every command, and `eddy help bogus` too, with status 0. */
        if (argc > 3) return eddy_arg_usage_error("%s takes at most one command, got '%s' too", cmd, argv[3]);
        if (argc == 3 && !is_help(argv[2])) {
            for (size_t k = 0; k < ncommands; ++k) {
                if (strcmp(argv[2], commands[k]) != 0) continue;
                speak_once();
                return command_help(commands[k]);
            }
            return eddy_arg_usage_error("unknown command '%s'", argv[2]);
        }
        speak_once();
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        if (argc > 2) return eddy_arg_usage_error("%s takes no arguments, got '%s'", cmd, argv[2]);
        speak_once();
        eddy_sph_simd simd;
        eddy_error err;
        if (eddy_sph_simd_select(&simd, &err)) return fail(&err);
        printf("eddy %s (plugin ABI %d.%d)\n", EDDY_VERSION, EDDY_ABI_MAJOR, EDDY_ABI_MINOR);
        printf("processes: %s\n", eddy_decomp_describe());
        printf("simd: %s (SPH neighbour loops; this CPU runs baseline%s%s; EDDY_SIMD chooses)\n",
               eddy_sph_simd_name(simd), eddy_sph_simd_cpu_has(EDDY_SPH_SIMD_AVX2) ? ", avx2" : "",
               eddy_sph_simd_cpu_has(EDDY_SPH_SIMD_AVX512) ? ", avx512" : "");
        return 0;
    }
    /* --help or -h where an option name stands, not as the value of one (--out -h is a folder). */
    static const char *const flags[] = {"--hash", "--quiet", "--no-picture", "--no-overlap", "--render", "--movie",
                                        "--list"};
    for (size_t k = 0; k < ncommands; ++k) {
        if (strcmp(cmd, commands[k]) != 0) continue;
        for (int i = 2; i < argc; ++i) {
            if (strcmp(argv[i], "--help") != 0 && strcmp(argv[i], "-h") != 0) continue;
            const char *prev = argv[i - 1];
            int value = i > 2 && prev[0] == '-' && prev[1] == '-';
            for (size_t f = 0; value && f < sizeof flags / sizeof flags[0]; ++f) value = strcmp(prev, flags[f]) != 0;
            if (!value) {
                speak_once();
                return command_help(cmd);
            }
        }
    }
    /* A command that runs goes on into a pipe whose reader went, from the start (services.h); one that
     * only prints (list, describe, validate --list) ends there as a filter does. */
    static const char *const running[] = {"run", "resume", "compare", "validate", "bench"};
    int lists = 0;
    for (int i = 2; i < argc; ++i) lists |= strcmp(argv[i], "--list") == 0;
    for (size_t k = 0; k < sizeof running / sizeof running[0]; ++k)
        if (strcmp(cmd, running[k]) == 0 && !(lists && strcmp(cmd, "validate") == 0)) eddy_services_catch_write_signals();
    if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2, 0, argc, argv);
    if (strcmp(cmd, "resume") == 0) return cmd_run(argc - 2, argv + 2, 1, argc, argv);
    if (strcmp(cmd, "list") == 0 || strcmp(cmd, "describe") == 0) speak_once();
    if (strcmp(cmd, "list") == 0) return argc == 2 ? cmd_list() : eddy_arg_usage_error("list takes no arguments%s", "");
    if (strcmp(cmd, "describe") == 0) return cmd_describe(argc - 2, argv + 2);
    if (strcmp(cmd, "bench") == 0) return cmd_bench(argc - 2, argv + 2);
    if (strcmp(cmd, "compare") == 0) return eddy_compare_main(argc, argv);
    if (strcmp(cmd, "validate") == 0) {
        /* Its measurements (validate_measure.c, validate_vortex.c) read every particle of the world they
         * are given, which on several processes holds one slab and its halo copies. */
        int list = 0;
        for (int i = 2; i < argc; ++i) list |= strcmp(argv[i], "--list") == 0;
        /* (--list only lists: the first process does it) */
        if (eddy_decomp_size() > 1 && list) return eddy_decomp_rank() == 0 ? eddy_validate_main(argc - 2, argv + 2) : 0;
        if (eddy_decomp_size() > 1) {
            if (eddy_decomp_rank() == 0)
                fprintf(stderr, "eddy: error: validate cannot run on %d processes: its measurements read every "
                        "particle of one process; run `eddy validate` without mpirun\n", eddy_decomp_size());
            return 1;
        }
        return eddy_validate_main(argc - 2, argv + 2);
    }
    return eddy_arg_usage_error("unknown command '%s'", cmd);
}

/* OpenMP threads spin briefly, then sleep, unless the user chose a policy. libgomp's default spins
 * 300 000 times at every barrier before it sleeps: two eddy runs side by side on a 2-core machine (a
 * parameter sweep, two solvers compared at once) each took 4 to 15 times as long as with a short spin,
 * while threads that never spin (OMP_WAIT_POLICY=passive) made a run alone up to 1.7 times slower. A
 * spin count of 1000 (libgomp's own when threads outnumber the cores) measured as fast as the default
 * alone and about as passive side by side (docs/performance.md, "OpenMP's wait policy").
 * libgomp reads its environment once, in its constructor, before main (a .preinit_array entry is too
 * early: libc resets the environment after it), so the one way left is to start again with the
 * variable set, as the Java launcher does for its library path. Not under valgrind, which would lose
 * the process (it does not follow an exec by default); where the exec fails, the run goes on as it is. */
static void spin_briefly_by_default(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
    const char *preload = getenv("LD_PRELOAD");
    if (preload && strstr(preload, "vgpreload")) return;
    if (setenv("GOMP_SPINCOUNT", "1000", 1) != 0) return;
    execv("/proc/self/exe", argv);
}

/* What a command prints on stdout is its result (bench's figures, --hash, list, describe, the tables of
 * compare and validate): stdout on a full disk (`> /dev/full`), a closed descriptor or a failing pipe
 * lost it while eddy exited 0. The buffer is flushed here and any failed write is an error. */
static int stdout_written(int rc)
{
    errno = 0;
    const int flush_failed = fflush(stdout) != 0;
    const int why = errno;
    if (!flush_failed && !ferror(stdout)) return rc;
    if (flush_failed && why)
        fprintf(stderr, "eddy: error: cannot write to standard output: %s (the command's output is lost)\n",
                strerror(why));
    else
        fprintf(stderr, "eddy: error: cannot write to standard output (the command's output is lost)\n");
    return rc ? rc : 1;
}

/* The messages on stderr (progress, warnings, errors) lost to a pipe whose reader went (`eddy run ... 2>&1 |
 * head -1`: with SIGPIPE caught, services.c, the run goes on to its end and its files are whole) or to a
 * hung-up terminal: the exit status says so, as there is nowhere left to say it. */
static int stderr_written(int rc)
{
    return rc == 0 && ferror(stderr) ? 1 : rc;
}

/* A standard descriptor closed when eddy starts (`eddy run ... 2>&-`, a daemon's closed stdio) is the
 * number the next open() returns: the log lines written to stderr went into whatever file took it
 * (diagnostics.csv, probes.csv), as would a result flushed to stdout while a file held 1 (only the output
 * folder's lock, a read-only descriptor, and the order of closes kept that from happening). Each closed
 * one is held by /dev/null instead. Stdout's is read-only so that a result written there fails and
 * stdout_written() reports it lost (exit 1), while a command that prints nothing ends as it would;
 * stderr's messages are lost, as they were, since there is nowhere to say them. */
static int hold_closed_std_descriptors(void)
{
    static const int mode[3] = {O_RDONLY, O_RDONLY, O_WRONLY};
    static const char *const name[3] = {"input", "output", "error"};
    for (int fd = 0; fd <= 2; ++fd) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        /* open() takes the lowest free number, and every one below fd is open by now. */
        const int got = open("/dev/null", mode[fd]);
        if (got == fd) continue;
        const int why = got < 0 ? errno : 0;
        if (got >= 0) close(got);
        /* Said where stderr is open; where it is closed too, there is no one to tell. */
        fprintf(stderr,
                "eddy: error: standard %s (descriptor %d) is closed and /dev/null cannot be opened in its place%s%s; "
                "refusing to run, as the next file eddy opened would take its descriptor\n",
                name[fd], fd, why ? ": " : "", why ? strerror(why) : "");
        return -1;
    }
    return 0;
}

/* The count of processes a launcher says it started (Open MPI's mpirun, or a PMI launcher: MPICH's and
 * Intel MPI's mpiexec, srun --mpi=pmi2), with the variable that says it and this process's rank there
 * (-1 where it says none); 0 where no launcher says a count. */
static long launcher_count(const char **variable, long *rank)
{
    static const char *const vars[][2] = {{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"}};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; ++k) {
        const char *size = getenv(vars[k][0]), *mine = getenv(vars[k][1]);
        char *end;
        const long count = size ? strtol(size, &end, 10) : 0;
        if (!size || end == size || *end || count < 1) continue;
        *variable = vars[k][0];
        *rank = mine && *mine ? strtol(mine, &end, 10) : -1;
        if (mine && *end) *rank = -1;
        return count;
    }
    return 0;
}

/* A launcher starts N copies of what it is given. An eddy without MPI, or built with another MPI than
 * the launcher's (each process then initializes a world of its own), makes N whole runs: into one folder
 * all but one were refused as "in use by another eddy run", which named no cause. A warning, not a
 * refusal: N whole runs into N folders (`mpirun -n N sh -c 'eddy run ... --out out_$RANK'`, a sweep) are
 * what some mean. Said by the launcher's rank 0, for the commands that run a scene. */
static void warn_processes_alone(int argc, char **argv)
{
    if (eddy_decomp_size() > 1 || argc < 2) return;
    static const char *const running[] = {"run", "resume", "compare", "validate", "bench"};
    int runs = 0;
    for (size_t k = 0; k < sizeof running / sizeof running[0]; ++k) runs |= strcmp(argv[1], running[k]) == 0;
    const char *variable = NULL;
    long rank = -1;
    const long count = runs ? launcher_count(&variable, &rank) : 0;
    if (count <= 1 || rank > 0) return;
    if (eddy_decomp_built_with_mpi())
        fprintf(stderr,
                "eddy: warning: the launcher started %ld processes (%s=%ld), but MPI gave this one a world of its "
                "own: the launcher belongs to another MPI than the one this eddy is built with ('eddy --version' "
                "names it), so each process runs the whole scene by itself (two into one output folder: the later "
                "is refused as in use); to split one run over the processes, start eddy with that MPI's mpirun\n",
                count, variable, count);
    else
        fprintf(stderr,
                "eddy: warning: the launcher started %ld processes (%s=%ld), but this eddy is built without MPI, so "
                "each process runs the whole scene by itself (two into one output folder: the later is refused as "
                "in use); to split one run over the processes, build eddy with MPI (README, \"Several processes "
                "(MPI)\")\n",
                count, variable, count);
}

/* MPI starts only under a launcher (mpirun sets OMPI_COMM_WORLD_SIZE; PMI/PMIx launchers theirs), so a
 * plain `eddy` never depends on the MPI runtime being able to start (docs/mpi.md). */
int main(int argc, char **argv)
{
    /* First: the re-exec below keeps them, and from then on anything may open a file. */
    if (hold_closed_std_descriptors()) return 1;
    spin_briefly_by_default(argv);
    const int launched = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
    if (launched) eddy_decomp_init(&argc, &argv);
    eddy_services_set_process(eddy_decomp_rank(), eddy_decomp_size());
    if (launched) warn_processes_alone(argc, argv);
    /* Processes given other work are refused together, before any command's first collective. */
    if (launched && eddy_launch_check(argc, argv)) {
        eddy_decomp_finalize();
        return 2;
    }
    int rc = stderr_written(stdout_written(command(argc, argv)));
    /* A bad command line on some processes only, the command lines alike (a writer plugin missing on one
     * node, a --threads value one process alone has; other command lines were refused above) would
     * leave this one in MPI_Finalize and the others in their first collective for ever: stop every
     * process, as an error does (fail above). Where every process refused it alike (a typo on the one
     * command line), it is said once and every process ends normally. */
    if (launched && rc == 2) {
        const char *usage_error = eddy_arg_deferred_usage_error();
        if (usage_error && eddy_decomp_same_failure(usage_error, EDDY_DECOMP_FAILURE_WAIT_S)) {
            if (eddy_decomp_rank() == 0 && strcmp(usage_error, NO_COMMAND) == 0) fputs(usage, stderr);
            else if (eddy_decomp_rank() == 0) fprintf(stderr, "eddy: %s\nrun 'eddy help' for usage\n", usage_error);
        } else {
            if (usage_error)
                fprintf(stderr, "eddy: rank %d of %d: %s\nrun 'eddy help' for usage\n", eddy_decomp_rank(),
                        eddy_decomp_size(), usage_error);
            eddy_decomp_abort(2);
        }
    }
    if (launched) eddy_decomp_finalize();
    return rc;
}
