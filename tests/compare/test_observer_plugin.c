/*
 * A third-party plugin of observers, built by the tests only (tests/compare/CMakeLists.txt, into
 * <build>/test_observer_plugins, which `eddy` searches only when EDDY_PLUGIN_PATH points there). It
 * proves that the host's frame writers and probes are open kinds: nothing in the host names these
 * components, yet a scene (or --format) can use them like the built-in "vtk" writer and "front" probe.
 *
 *   "test_writer"   writer: DIR/test_writer/<prefix>_NNNNN.txt per frame, one line
 *                   "index time step count first_id last_id sum_x" computed from the frame it is handed
 *                   (sum_x over the owned particles in the frame's order, in world units, %.9g).
 *                   Parameter "prefix" (string, default "frame"). Logs where the files go (INFO) and
 *                   the folder (DEBUG) through the host's services. "fail_at_frame": that frame's
 *                   write fails; "signal_at_frame": writing that frame raises SIGINT (a Ctrl-C that
 *                   lands while a frame is written, at a point the test chooses). A series file
 *                   <prefix>_series.txt, one "index time" line per frame written, kept on resume as
 *                   observe.h tells a writer (times <= resume_time, relative 1e-9), started afresh at
 *                   a fresh run's first frame.
 *   "test_count"    probe: the number of owned particles whose x (world units) is at least "min_x"
 *                   (vector of 1 to 3 numbers, only x read; default 0), unit "1".
 *   "test_marker"   a component of an interface no host knows ("eddy.test_marker.1"): `eddy list`
 *                   shows it under its own id; nothing calls it.
 */
#include <eddy/eddy.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* --- the writer --------------------------------------------------------------------------------- */

struct eddy_writer {
    char dir[4096];
    char prefix[64];
    const eddy_host *host;
    long long fail_at_frame; /* write_frame of this frame returns EDDY_ERR_IO with no message (-1: never) */
    long long signal_at_frame; /* write_frame of this frame raises SIGINT, then writes it (-1: never) */
    char series[4200];         /* <dir>/<prefix>_series.txt */
    int fresh;                 /* a fresh run: the series starts anew at the first frame */
};

/* A resumed run's series: the earlier run's lines up to resume_time, the rest dropped (observe.h). */
static int keep_series(const char *path, double resume_time, eddy_error *err)
{
    FILE *in = fopen(path, "r");
    if (!in) return errno == ENOENT ? EDDY_OK : eddy_error_set(err, EDDY_ERR_IO, "cannot read '%s'", path);
    char tmp[4300], line[256];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        fclose(in);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
    }
    const double limit = resume_time + 1e-9 * fmax(1.0, fabs(resume_time));
    while (fgets(line, sizeof line, in)) {
        unsigned long long index;
        double t;
        if (sscanf(line, "%llu %lf", &index, &t) == 2 && t <= limit) fputs(line, out);
    }
    fclose(in);
    if (fclose(out) != 0 || rename(tmp, path) != 0)
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return EDDY_OK;
}

static int writer_create(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    eddy_writer *w = calloc(1, sizeof *w);
    if (!w) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    const eddy_param_value *prefix = eddy_param_find_value(setup->params, "prefix");
    snprintf(w->prefix, sizeof w->prefix, "%s", prefix && prefix->string ? prefix->string : "frame");
    snprintf(w->dir, sizeof w->dir, "%s/test_writer", setup->dir);
    w->host = setup->host;
    const eddy_param_value *fail = eddy_param_find_value(setup->params, "fail_at_frame");
    w->fail_at_frame = fail ? fail->integer : -1;
    const eddy_param_value *sig = eddy_param_find_value(setup->params, "signal_at_frame");
    w->signal_at_frame = sig ? sig->integer : -1;
    if (mkdir(w->dir, 0777) != 0 && errno != EEXIST) {
        int e = errno;
        free(w);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot create '%s/test_writer': %s", setup->dir, strerror(e));
    }
    snprintf(w->series, sizeof w->series, "%s/%s_series.txt", w->dir, w->prefix);
    w->fresh = !setup->resume;
    if (setup->resume) {
        const int rc = keep_series(w->series, setup->resume_time, err);
        if (rc) {
            free(w);
            return rc;
        }
    }
    eddy_host_log(setup->host, EDDY_LOG_INFO, "test_writer", "frames as %s/%s_NNNNN.txt", w->dir, w->prefix);
    eddy_host_log(setup->host, EDDY_LOG_DEBUG, "test_writer", "writing into %s", w->dir);
    *out = w;
    return EDDY_OK;
}

static int writer_write(eddy_writer *w, const eddy_frame *f, eddy_error *err)
{
    if ((long long)f->index == w->fail_at_frame) return EDDY_ERR_IO;
    if ((long long)f->index == w->signal_at_frame) raise(SIGINT);
    const eddy_particles *p = &f->world->particles;
    const double scale = f->world->simulation_scale;
    double sum_x = 0.0;
    for (size_t k = 0; k < f->count; ++k) sum_x += p->x[f->order[k]] / scale;
    char path[4300], tmp[4310];
    snprintf(path, sizeof path, "%s/%s_%05llu.txt", w->dir, w->prefix, (unsigned long long)f->index);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (!out) return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    fprintf(out, "%llu %.12g %llu %zu %llu %llu %.9g\n", (unsigned long long)f->index, f->time,
            (unsigned long long)f->step, f->count,
            f->count ? (unsigned long long)p->id[f->order[0]] : 0ull,
            f->count ? (unsigned long long)p->id[f->order[f->count - 1]] : 0ull, sum_x);
    if (fclose(out) != 0 || rename(tmp, path) != 0)
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    FILE *series = fopen(w->series, w->fresh ? "w" : "a");
    const int wrote = series && fprintf(series, "%llu %.17g\n", (unsigned long long)f->index, f->time) > 0;
    if (!series || (fclose(series) != 0) | !wrote) return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s'", w->series);
    w->fresh = 0;
    return EDDY_OK;
}

static void writer_destroy(eddy_writer *w)
{
    free(w);
}

static const eddy_writer_vtable WRITER_VTABLE = {
    .size = sizeof(eddy_writer_vtable),
    .create = writer_create,
    .write_frame = writer_write,
    .destroy = writer_destroy,
};

static const eddy_param_desc WRITER_PARAMS[] = {
    EDDY_PARAM_STRING_DESC("prefix", "frame", 32, "File name prefix of the per-frame text files."),
    EDDY_PARAM_INT_DESC("fail_at_frame", -1, -1, 1000000, "1",
                        "Frame whose write_frame fails with EDDY_ERR_IO and no message (-1: none)."),
    EDDY_PARAM_INT_DESC("signal_at_frame", -1, -1, 1000000, "1",
                        "Frame whose write_frame raises SIGINT before writing it (-1: none)."),
};

static const eddy_component WRITER = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_WRITER,
    .id = "test_writer",
    .version = "0.1.0",
    .description = "test plugin: one line of frame figures per frame",
    .params = WRITER_PARAMS,
    .param_count = sizeof WRITER_PARAMS / sizeof WRITER_PARAMS[0],
    .vtable = &WRITER_VTABLE,
};

/* --- the probe ---------------------------------------------------------------------------------- */

struct eddy_probe {
    double min_x;
    int fail; /* measure returns EDDY_ERR_DEVICE with no message */
    char unit[40]; /* what unit() returns ("unit": the host must refuse one its tables cannot hold) */
};

static int probe_create(const eddy_probe_setup *setup, eddy_probe **out, eddy_error *err)
{
    eddy_probe *p = calloc(1, sizeof *p);
    if (!p) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    const eddy_param_value *v = eddy_param_find_value(setup->params, "min_x");
    p->min_x = v && v->is_set ? v->vector[0] : 0.0;
    const eddy_param_value *fail = eddy_param_find_value(setup->params, "fail");
    p->fail = fail && fail->integer;
    const eddy_param_value *unit = eddy_param_find_value(setup->params, "unit");
    snprintf(p->unit, sizeof p->unit, "%s", unit && unit->string ? unit->string : "1");
    *out = p;
    return EDDY_OK;
}

static int probe_measure(eddy_probe *pr, const eddy_frame *f, double *value, eddy_error *err)
{
    (void)err;
    if (pr->fail) return EDDY_ERR_DEVICE;
    const eddy_particles *p = &f->world->particles;
    size_t n = 0;
    for (size_t k = 0; k < f->count; ++k)
        if (p->x[f->order[k]] / f->world->simulation_scale >= pr->min_x) ++n;
    *value = (double)n;
    return EDDY_OK;
}

static const char *probe_unit(const eddy_probe *p)
{
    return p->unit;
}

static void probe_destroy(eddy_probe *p)
{
    free(p);
}

static const eddy_probe_vtable PROBE_VTABLE = {
    .size = sizeof(eddy_probe_vtable),
    .create = probe_create,
    .measure = probe_measure,
    .unit = probe_unit,
    .destroy = probe_destroy,
};

static const eddy_param_desc PROBE_PARAMS[] = {
    EDDY_PARAM_VECTOR_DESC("min_x", 0.0, -1e30, 1e30, "m", "Count particles with x at least this (only x is read)."),
    EDDY_PARAM_BOOL_DESC("fail", 0, "measure fails with EDDY_ERR_DEVICE and no message."),
    EDDY_PARAM_STRING_DESC("unit", "1", 32, "What unit() returns."),
};

static const eddy_component PROBE = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_PROBE,
    .id = "test_count",
    .version = "0.1.0",
    .description = "test plugin: the number of particles beyond a plane",
    .params = PROBE_PARAMS,
    .param_count = 3,
    .vtable = &PROBE_VTABLE,
};

/* The same probe without unit(), which is optional (observe.h): the host once called it regardless. */
static const eddy_probe_vtable UNITLESS_VTABLE = {
    .size = sizeof(eddy_probe_vtable),
    .create = probe_create,
    .measure = probe_measure,
    .destroy = probe_destroy,
};

static const eddy_component UNITLESS = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_PROBE,
    .id = "test_unitless",
    .version = "0.1.0",
    .description = "test plugin: test_count without a unit() callback",
    .params = PROBE_PARAMS,
    .param_count = 3,
    .vtable = &UNITLESS_VTABLE,
};

/* --- a kind no host knows ----------------------------------------------------------------------- */

static const struct {
    size_t size;
} MARKER_VTABLE = {sizeof MARKER_VTABLE};

static const eddy_component MARKER = {
    .size = sizeof(eddy_component),
    .interface_id = "eddy.test_marker.1",
    .id = "test_marker",
    .version = "0.1.0",
    .description = "test plugin: a component of an interface the host does not know",
    .vtable = &MARKER_VTABLE,
};

static const eddy_component *const COMPONENTS[] = {&WRITER, &PROBE, &UNITLESS, &MARKER};

static const eddy_plugin_descriptor DESCRIPTOR = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = "test_observers",
    .version = "0.1.0",
    .component_count = 4,
    .components = COMPONENTS,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void)
{
    return &DESCRIPTOR;
}
