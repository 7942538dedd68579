#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef struct series_entry {
    int index;
    double time;
} series_entry;

struct eddy_output {
    char *dir;
    char *frames_dir;
    char *pvd_path;
    char *diag_path;
    eddy_output_options opt;
    FILE *diag;
    series_entry *series; /* sorted by index */
    size_t series_count, series_capacity;
    FILE *table;          /* eddy_output_open_table(), at most one */
    char *table_path;
};

static const char DIAG_HEADER[] =
    "time,step,kinetic_energy,momentum_x,momentum_y,momentum_z,density_error_mean,density_error_max,"
    "max_speed,wall_ms,particles\n";

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

static char *join(const char *a, const char *b)
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

eddy_output_options eddy_output_default_options(void)
{
    eddy_output_options o;
    memset(&o, 0, sizeof o);
    o.write_vtk = 1;
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

/* A file being written under "<path>.tmp"; committed by renaming it over <path>. */
typedef struct atomic_file {
    FILE *f;
    char *tmp;
    const char *path;
} atomic_file;

static int atomic_open(atomic_file *af, const char *path, eddy_error *err)
{
    af->path = path;
    af->f = NULL;
    size_t n = strlen(path);
    af->tmp = malloc(n + 5);
    if (!af->tmp) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(af->tmp, path, n);
    memcpy(af->tmp + n, ".tmp", 5);
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

static int atomic_commit(atomic_file *af, eddy_error *err)
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
/* VTK XML PolyData                                                                                 */

static void base64_write(FILE *f, const uint8_t *data, size_t n)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char out[4096];
    size_t len = 0;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 | data[i + 2];
        out[len++] = alphabet[v >> 18];
        out[len++] = alphabet[(v >> 12) & 63];
        out[len++] = alphabet[(v >> 6) & 63];
        out[len++] = alphabet[v & 63];
        if (len == sizeof out) {
            fwrite(out, 1, len, f);
            len = 0;
        }
    }
    if (i < n) {
        uint32_t v = (uint32_t)data[i] << 16;
        if (i + 1 < n) v |= (uint32_t)data[i + 1] << 8;
        out[len++] = alphabet[v >> 18];
        out[len++] = alphabet[(v >> 12) & 63];
        out[len++] = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
        out[len++] = '=';
    }
    fwrite(out, 1, len, f);
}

/* Bytes are laid out explicitly, so the file says LittleEndian truthfully on any host. */
static void put_u32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

static void put_f32(uint8_t *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    put_u32(b, u);
}

/*
 * One DataArray with format="binary". VTK decodes the UInt32 byte-count header of uncompressed inline
 * data as its own base64 block before the payload, so the two are encoded separately (each with its
 * own padding), not as one 4 + n byte run.
 */
static void vtp_array(FILE *f, const char *type, const char *name, int components, const uint8_t *data,
                      size_t bytes)
{
    fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\"", type, name);
    if (components > 1) fprintf(f, " NumberOfComponents=\"%d\"", components);
    fputs(" format=\"binary\">\n          ", f);
    uint8_t header[4];
    put_u32(header, (uint32_t)bytes);
    base64_write(f, header, sizeof header);
    base64_write(f, data, bytes);
    fputs("\n        </DataArray>\n", f);
}

/* Interleaves `components` float arrays in id order into buf as little-endian bytes, divided by `scale`
 * (the simulation scale for lengths; 1 leaves the values untouched). */
static size_t gather_floats(uint8_t *buf, const float *const *src, int components, const uint32_t *order,
                            size_t n, float scale)
{
    size_t k = 0;
    for (size_t j = 0; j < n; ++j) {
        size_t i = order[j];
        for (int c = 0; c < components; ++c) {
            float v = src[c][i];
            if (scale != 1.0f) v = v / scale;
            put_f32(buf + k, v);
            k += 4;
        }
    }
    return k;
}

static void vtp_body(FILE *f, const eddy_world *w, float scale, const uint32_t *order, uint8_t *buf)
{
    const eddy_particles *p = &w->particles;
    size_t n = p->count;
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt32\">\n"
          "  <PolyData>\n",
          f);
    fprintf(f,
            "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
            "NumberOfPolys=\"0\">\n",
            n, n);

    fputs("      <PointData Scalars=\"density\" Vectors=\"velocity\">\n", f);
    size_t k;
    for (size_t j = 0; j < n; ++j) put_u32(buf + 4 * j, p->id[order[j]]);
    vtp_array(f, "UInt32", "id", 1, buf, 4 * n);
    for (size_t j = 0; j < n; ++j) put_u32(buf + 4 * j, p->material[order[j]]);
    vtp_array(f, "UInt32", "material", 1, buf, 4 * n);
    const float *vel[3] = {p->vx, p->vy, p->vz};
    k = gather_floats(buf, vel, 3, order, n, scale);
    vtp_array(f, "Float32", "velocity", 3, buf, k);
    const float *rho[1] = {p->density};
    k = gather_floats(buf, rho, 1, order, n, 1.0f);
    vtp_array(f, "Float32", "density", 1, buf, k);
    const float *pr[1] = {p->pressure};
    k = gather_floats(buf, pr, 1, order, n, 1.0f);
    vtp_array(f, "Float32", "pressure", 1, buf, k);
    int fields = eddy_particles_field_count(p);
    for (int id = EDDY_BUILTIN_FIELD_COUNT; id < fields; ++id) {
        int comps = eddy_particles_field_components(p, id);
        const float *src[EDDY_FIELD_MAX_COMPONENTS];
        for (int c = 0; c < comps; ++c) src[c] = eddy_particles_field(p, id, c);
        k = gather_floats(buf, src, comps, order, n, 1.0f);
        vtp_array(f, "Float32", eddy_particles_field_name(p, id), comps, buf, k);
    }
    fputs("      </PointData>\n", f);

    fputs("      <Points>\n", f);
    const float *pos[3] = {p->x, p->y, p->z};
    k = gather_floats(buf, pos, 3, order, n, scale);
    vtp_array(f, "Float32", "position", 3, buf, k);
    fputs("      </Points>\n", f);

    /* One vertex cell per point: without cells ParaView loads the points but renders nothing. */
    fputs("      <Verts>\n", f);
    for (size_t j = 0; j < n; ++j) put_u32(buf + 4 * j, (uint32_t)j);
    vtp_array(f, "Int32", "connectivity", 1, buf, 4 * n);
    for (size_t j = 0; j < n; ++j) put_u32(buf + 4 * j, (uint32_t)(j + 1));
    vtp_array(f, "Int32", "offsets", 1, buf, 4 * n);
    fputs("      </Verts>\n", f);

    fputs("    </Piece>\n  </PolyData>\n</VTKFile>\n", f);
}

static int check_scale(float scale, const char *path, eddy_error *err)
{
    if (!(scale > 0.0f) || !isfinite(scale))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "cannot write '%s': simulation scale must be positive, got %g", path, (double)scale);
    return EDDY_OK;
}

int eddy_output_write_vtp(const char *path, const eddy_world *w, float scale, eddy_error *err)
{
    int rc = check_scale(scale, path, err);
    if (rc) return rc;
    const eddy_particles *p = &w->particles;
    size_t n = p->count;
    int max_comps = 3;
    for (int id = EDDY_BUILTIN_FIELD_COUNT; id < eddy_particles_field_count(p); ++id)
        if (eddy_particles_field_components(p, id) > max_comps) max_comps = eddy_particles_field_components(p, id);
    /* The UInt32 header caps one array at 4 GiB, and Int32 connectivity at 2^31 points. */
    if (n > (size_t)INT32_MAX || (uint64_t)n * 4u * (uint64_t)max_comps > UINT32_MAX)
        return eddy_error_set(err, EDDY_ERR_UNSUPPORTED,
                              "cannot write '%s': %zu particles exceed the 4 GiB per-array limit of a VTK file "
                              "with UInt32 headers", path, n);

    uint32_t *order = eddy_order_by_id(p);
    uint8_t *buf = calloc(n ? n : 1, 4u * (size_t)max_comps);
    if (!order || !buf) {
        free(order);
        free(buf);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "cannot write '%s': out of memory", path);
    }
    atomic_file af;
    rc = atomic_open(&af, path, err);
    if (!rc) {
        vtp_body(af.f, w, scale, order, buf);
        rc = atomic_commit(&af, err);
    }
    free(order);
    free(buf);
    return rc;
}

/* ---------------------------------------------------------------------------------------------- */
/* CSV                                                                                              */

static void csv_field_header(FILE *f, const char *name, int comps)
{
    static const char xyz[] = "xyz";
    if (comps == 1) {
        fprintf(f, ",%s", name);
        return;
    }
    for (int c = 0; c < comps; ++c) {
        if (comps == 3)
            fprintf(f, ",%s_%c", name, xyz[c]);
        else
            fprintf(f, ",%s_%d", name, c);
    }
}

int eddy_output_write_csv(const char *path, const eddy_world *w, float scale, eddy_error *err)
{
    int rc = check_scale(scale, path, err);
    if (rc) return rc;
    const eddy_particles *p = &w->particles;
    size_t n = p->count;
    uint32_t *order = eddy_order_by_id(p);
    if (!order) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "cannot write '%s': out of memory", path);
    atomic_file af;
    rc = atomic_open(&af, path, err);
    if (rc) {
        free(order);
        return rc;
    }
    FILE *f = af.f;
    int fields = eddy_particles_field_count(p);
    fputs("id,x,y,z,vx,vy,vz,density,pressure,material", f);
    for (int id = EDDY_BUILTIN_FIELD_COUNT; id < fields; ++id)
        csv_field_header(f, eddy_particles_field_name(p, id), eddy_particles_field_components(p, id));
    fputc('\n', f);
    for (size_t j = 0; j < n; ++j) {
        size_t i = order[j];
        /* Same float arithmetic as the .vtp, so both files carry the same numbers. */
        fprintf(f, "%" PRIu32 ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%" PRIu32, p->id[i],
                (double)(p->x[i] / scale), (double)(p->y[i] / scale), (double)(p->z[i] / scale),
                (double)(p->vx[i] / scale), (double)(p->vy[i] / scale), (double)(p->vz[i] / scale),
                (double)p->density[i], (double)p->pressure[i], p->material[i]);
        for (int id = EDDY_BUILTIN_FIELD_COUNT; id < fields; ++id) {
            int comps = eddy_particles_field_components(p, id);
            for (int c = 0; c < comps; ++c) fprintf(f, ",%.9g", (double)eddy_particles_field(p, id, c)[i]);
        }
        fputc('\n', f);
    }
    free(order);
    return atomic_commit(&af, err);
}

/* ---------------------------------------------------------------------------------------------- */
/* The writer                                                                                       */

static int series_put(eddy_output *o, int index, double time)
{
    size_t k = 0;
    while (k < o->series_count && o->series[k].index < index) ++k;
    if (k < o->series_count && o->series[k].index == index) {
        o->series[k].time = time;
        return EDDY_OK;
    }
    if (o->series_count == o->series_capacity) {
        size_t cap = o->series_capacity ? 2 * o->series_capacity : 64;
        series_entry *s = realloc(o->series, cap * sizeof *s);
        if (!s) return EDDY_ERR_OUT_OF_MEMORY;
        o->series = s;
        o->series_capacity = cap;
    }
    memmove(o->series + k + 1, o->series + k, (o->series_count - k) * sizeof *o->series);
    o->series[k].index = index;
    o->series[k].time = time;
    o->series_count++;
    return EDDY_OK;
}

static int write_pvd(const eddy_output *o, eddy_error *err)
{
    atomic_file af;
    int rc = atomic_open(&af, o->pvd_path, err);
    if (rc) return rc;
    FILE *f = af.f;
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          "  <Collection>\n",
          f);
    for (size_t k = 0; k < o->series_count; ++k)
        fprintf(f, "    <DataSet timestep=\"%.12g\" group=\"\" part=\"0\" file=\"frames/frame_%05d.vtp\"/>\n",
                o->series[k].time, o->series[k].index);
    fputs("  </Collection>\n</VTKFile>\n", f);
    return atomic_commit(&af, err);
}

/* Reads back the entries of our own frames.pvd (one DataSet per line, as write_pvd writes them). */
static int load_pvd(eddy_output *o, double keep_until, eddy_error *err)
{
    FILE *f = fopen(o->pvd_path, "r");
    if (!f) return EDDY_OK; /* nothing written before: an empty series */
    char line[1024];
    int rc = EDDY_OK;
    while (!rc && fgets(line, sizeof line, f)) {
        const char *ts = strstr(line, "timestep=\"");
        const char *fi = strstr(line, "file=\"frames/frame_");
        if (!ts || !fi) continue;
        double t;
        int index;
        if (sscanf(ts + 10, "%lf", &t) != 1 || sscanf(fi + 19, "%d", &index) != 1) continue;
        if (time_at_or_before(t, keep_until) && series_put(o, index, t))
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    fclose(f);
    return rc;
}

/* Rewrites the CSV table at `path` (first column: time) without the rows after keep_until (a resumed
 * run writes those again), with `header` as its first line. */
static int trim_table(const char *path, const char *header, double keep_until, eddy_error *err)
{
    FILE *in = fopen(path, "r");
    if (!in) return EDDY_OK;
    atomic_file af;
    int rc = atomic_open(&af, path, err);
    if (rc) {
        fclose(in);
        return rc;
    }
    char line[4096];
    int first = 1;
    while (fgets(line, sizeof line, in)) {
        if (first) {
            first = 0;
            fputs(header, af.f);
            if (strncmp(line, "time,", 5) == 0) continue;
        }
        char *end;
        double t = strtod(line, &end);
        if (end != line && time_at_or_before(t, keep_until)) fputs(line, af.f);
    }
    if (first) fputs(header, af.f);
    fclose(in);
    return atomic_commit(&af, err);
}

int eddy_output_create(const char *dir, const eddy_output_options *opt, eddy_output **out, eddy_error *err)
{
    *out = NULL;
    eddy_output *o = calloc(1, sizeof *o);
    if (!o) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    o->opt = opt ? *opt : eddy_output_default_options();
    if (!dir) dir = "";
    o->dir = dup_str(dir);
    o->frames_dir = join(dir, "frames");
    o->pvd_path = join(dir, "frames.pvd");
    o->diag_path = join(dir, "diagnostics.csv");
    if (!o->dir || !o->frames_dir || !o->pvd_path || !o->diag_path) {
        eddy_output_destroy(o);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    int rc = eddy_output_make_dirs(dir, err);
    if (!rc) rc = eddy_output_make_dirs(o->frames_dir, err);
    if (!rc && o->opt.resume) {
        rc = load_pvd(o, o->opt.resume_time, err);
        if (!rc) rc = trim_table(o->diag_path, DIAG_HEADER, o->opt.resume_time, err);
    }
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
    /* Written now, so that frames.pvd describes this run from the start: empty for a fresh run (not
     * the stale list of an earlier run in the same folder), the kept frames for a resumed one. */
    if (!rc && o->opt.write_vtk) rc = write_pvd(o, err);
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
    if (o->diag) fclose(o->diag);
    if (o->table) fclose(o->table);
    free(o->table_path);
    free(o->dir);
    free(o->frames_dir);
    free(o->pvd_path);
    free(o->diag_path);
    free(o->series);
    free(o);
}

const char *eddy_output_dir(const eddy_output *o)
{
    return o->dir;
}

int eddy_output_write_frame(eddy_output *o, const eddy_world *w, int frame_index, double time, eddy_error *err)
{
    if (frame_index < 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "output: negative frame index %d", frame_index);
    float scale = o->opt.simulation_scale > 0.0f ? o->opt.simulation_scale : w->simulation_scale;
    char name[64];
    int rc = EDDY_OK;
    if (o->opt.write_vtk) {
        snprintf(name, sizeof name, "frame_%05d.vtp", frame_index);
        char *path = join(o->frames_dir, name);
        if (!path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        rc = eddy_output_write_vtp(path, w, scale, err);
        free(path);
        if (rc) return rc;
        if (series_put(o, frame_index, time))
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        rc = write_pvd(o, err);
        if (rc) return rc;
    }
    if (o->opt.write_csv) {
        snprintf(name, sizeof name, "frame_%05d.csv", frame_index);
        char *path = join(o->frames_dir, name);
        if (!path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        rc = eddy_output_write_csv(path, w, scale, err);
        free(path);
    }
    return rc;
}

int eddy_output_open_table(eddy_output *o, const char *name, const char *header, FILE **f, eddy_error *err)
{
    *f = NULL;
    if (o->table) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "output: a table is open already");
    o->table_path = join(o->dir, name);
    if (!o->table_path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    if (o->opt.resume) {
        int rc = trim_table(o->table_path, header, o->opt.resume_time, err);
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
    fprintf(o->diag, "%.12g,%" PRIu64 ",%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%zu\n", time, step,
            d->kinetic_energy, d->momentum[0], d->momentum[1], d->momentum[2], d->density_error_mean,
            d->density_error_max, d->max_speed, wall_ms, d->particles);
    /* Flushed per row so that a run that dies later still leaves every row it reached. */
    if (fflush(o->diag) != 0 || ferror(o->diag)) {
        int e = errno ? errno : EIO;
        clearerr(o->diag);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", o->diag_path, strerror(e));
    }
    return EDDY_OK;
}
