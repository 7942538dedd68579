#include "writers_builtin.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "snapshot.h"

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

static void put_u64(uint8_t *b, uint64_t v)
{
    put_u32(b, (uint32_t)v);
    put_u32(b + 4, (uint32_t)(v >> 32));
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

/* Whether every id of the frame fits the UInt32 array of ABI 1.x files. */
static int ids_fit_32(const eddy_snapshot *fr)
{
    const uint64_t *id = fr->id;
    for (size_t j = 0; j < fr->count; ++j)
        if (id[fr->order[j]] > UINT32_MAX) return 0;
    return 1;
}

/* The frame's clock in the file itself: a .vtp opened alone (not through frames.pvd) or copied out of
 * its run still says when it was taken. "TimeValue" is the name VTK's readers (ParaView's) take as the
 * data set's time; ascii with 17 digits so that the double reads back exactly. Written into every
 * piece and into the .pvtp over them: the parallel reader takes the time from its own file only. */
static void write_clock(FILE *f, const eddy_snapshot *p)
{
    fprintf(f,
            "    <FieldData>\n"
            "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">"
            "%.17g</DataArray>\n"
            "      <DataArray type=\"UInt64\" Name=\"step\" NumberOfTuples=\"1\" format=\"ascii\">"
            "%" PRIu64 "</DataArray>\n"
            "    </FieldData>\n",
            p->time, p->step);
}

static void vtp_body(FILE *f, const eddy_snapshot *p, float scale, int ids32, uint8_t *buf)
{
    const uint32_t *order = p->order;
    size_t n = p->count;
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt32\">\n"
          "  <PolyData>\n",
          f);
    write_clock(f, p);
    fprintf(f,
            "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
            "NumberOfPolys=\"0\">\n",
            n, n);

    fputs("      <PointData Scalars=\"density\" Vectors=\"velocity\">\n", f);
    size_t k;
    if (ids32) {
        for (size_t j = 0; j < n; ++j) put_u32(buf + 4 * j, (uint32_t)p->id[order[j]]);
        vtp_array(f, "UInt32", "id", 1, buf, 4 * n);
    } else {
        for (size_t j = 0; j < n; ++j) put_u64(buf + 8 * j, p->id[order[j]]);
        vtp_array(f, "UInt64", "id", 1, buf, 8 * n);
    }
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
    for (int id = 0; id < p->field_count; ++id) {
        const eddy_snapshot_field *fd = &p->fields[id];
        k = gather_floats(buf, fd->data, fd->components, order, n, 1.0f);
        vtp_array(f, "Float32", fd->name, fd->components, buf, k);
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

/* ids64: UInt64 ids whatever their values (the pieces of several processes, which cannot see each
 * other's ids, must agree on the type the .pvtp declares). */
static int vtp_write(const char *path, const eddy_snapshot *fr, float scale, int ids64, eddy_error *err)
{
    int rc = check_scale(scale, path, err);
    if (rc) return rc;
    size_t n = fr->count;
    int max_comps = 3;
    for (int id = 0; id < fr->field_count; ++id)
        if (fr->fields[id].components > max_comps) max_comps = fr->fields[id].components;
    const int ids32 = !ids64 && ids_fit_32(fr);
    /* The UInt32 header caps one array at 4 GiB, and Int32 connectivity at 2^31 points. */
    if (n > (size_t)INT32_MAX || (uint64_t)n * 4u * (uint64_t)max_comps > UINT32_MAX ||
        (!ids32 && (uint64_t)n * 8u > UINT32_MAX))
        return eddy_error_set(err, EDDY_ERR_UNSUPPORTED,
                              "cannot write '%s': %zu particles exceed the 4 GiB per-array limit of a VTK file "
                              "with UInt32 headers", path, n);
    /* 4 * max_comps >= 12 bytes per particle also holds the 8 of a UInt64 id. */
    uint8_t *buf = calloc(n ? n : 1, 4u * (size_t)max_comps);
    if (!buf) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "cannot write '%s': out of memory", path);
    eddy_atomic_file af;
    rc = eddy_atomic_open(&af, path, err);
    if (!rc) {
        vtp_body(af.f, fr, scale, ids32, buf);
        rc = eddy_atomic_commit(&af, err);
    }
    free(buf);
    return rc;
}

int eddy_vtp_write_file(const char *path, const eddy_frame *fr, float scale, eddy_error *err)
{
    eddy_snapshot view;
    eddy_snapshot_view(fr, &view);
    return vtp_write(path, &view, scale, 0, err);
}

int eddy_vtp_write_piece(const char *path, const eddy_frame *fr, float scale, eddy_error *err)
{
    eddy_snapshot view;
    eddy_snapshot_view(fr, &view);
    return vtp_write(path, &view, scale, 1, err);
}

int eddy_vtp_write_piece_snapshot(const char *path, const eddy_snapshot *s, eddy_error *err)
{
    return vtp_write(path, s, s->simulation_scale, 1, err);
}

/* The number of processes whose pieces make one frame (eddy_builtin_writers_set_pieces). */
static int g_pieces = 1;

void eddy_builtin_writers_set_pieces(int pieces)
{
    g_pieces = pieces > 1 ? pieces : 1;
}

/* The parallel file of a frame written as pieces (VTK's PPolyData): the arrays every piece holds,
 * in the order vtp_body writes them, and the pieces by name, relative to the .pvtp's folder. */
static int pvtp_write(const char *path, const eddy_snapshot *fr, int pieces, eddy_error *err)
{
    eddy_atomic_file af;
    int rc = eddy_atomic_open(&af, path, err);
    if (rc) return rc;
    FILE *f = af.f;
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PPolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt32\">\n"
          "  <PPolyData GhostLevel=\"0\">\n",
          f);
    write_clock(f, fr);
    fputs("    <PPointData Scalars=\"density\" Vectors=\"velocity\">\n"
          "      <PDataArray type=\"UInt64\" Name=\"id\"/>\n"
          "      <PDataArray type=\"UInt32\" Name=\"material\"/>\n"
          "      <PDataArray type=\"Float32\" Name=\"velocity\" NumberOfComponents=\"3\"/>\n"
          "      <PDataArray type=\"Float32\" Name=\"density\"/>\n"
          "      <PDataArray type=\"Float32\" Name=\"pressure\"/>\n",
          f);
    for (int id = 0; id < fr->field_count; ++id) {
        const int comps = fr->fields[id].components;
        fprintf(f, "      <PDataArray type=\"Float32\" Name=\"%s\"", fr->fields[id].name);
        if (comps > 1) fprintf(f, " NumberOfComponents=\"%d\"", comps);
        fputs("/>\n", f);
    }
    fputs("    </PPointData>\n"
          "    <PPoints>\n"
          "      <PDataArray type=\"Float32\" Name=\"position\" NumberOfComponents=\"3\"/>\n"
          "    </PPoints>\n",
          f);
    for (int k = 0; k < pieces; ++k)
        fprintf(f, "    <Piece Source=\"frame_%05llu_p%d.vtp\"/>\n", (unsigned long long)fr->index, k);
    fputs("  </PPolyData>\n</VTKFile>\n", f);
    return eddy_atomic_commit(&af, err);
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

static int csv_write(const char *path, const eddy_snapshot *p, float scale, eddy_error *err)
{
    int rc = check_scale(scale, path, err);
    if (rc) return rc;
    const size_t n = p->count;
    eddy_atomic_file af;
    if ((rc = eddy_atomic_open(&af, path, err))) return rc;
    FILE *f = af.f;
    fputs("id,x,y,z,vx,vy,vz,density,pressure,material", f);
    for (int id = 0; id < p->field_count; ++id) csv_field_header(f, p->fields[id].name, p->fields[id].components);
    fputc('\n', f);
    for (size_t j = 0; j < n; ++j) {
        size_t i = p->order[j];
        /* Same float arithmetic as the .vtp, so both files carry the same numbers. */
        fprintf(f, "%" PRIu64 ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%" PRIu32, p->id[i],
                (double)(p->x[i] / scale), (double)(p->y[i] / scale), (double)(p->z[i] / scale),
                (double)(p->vx[i] / scale), (double)(p->vy[i] / scale), (double)(p->vz[i] / scale),
                (double)p->density[i], (double)p->pressure[i], p->material[i]);
        for (int id = 0; id < p->field_count; ++id)
            for (int c = 0; c < p->fields[id].components; ++c) fprintf(f, ",%.9g", (double)p->fields[id].data[c][i]);
        fputc('\n', f);
    }
    return eddy_atomic_commit(&af, err);
}

int eddy_csv_write_file(const char *path, const eddy_frame *fr, float scale, eddy_error *err)
{
    eddy_snapshot view;
    eddy_snapshot_view(fr, &view);
    return csv_write(path, &view, scale, err);
}

/* ---------------------------------------------------------------------------------------------- */
/* The writer components                                                                            */

typedef struct series_entry {
    uint64_t index;
    double time;
    int parallel; /* the frame is frame_NNNNN.pvtp over pieces (written on several processes), else .vtp */
} series_entry;

enum { KIND_VTK, KIND_CSV };

struct eddy_writer {
    int kind;
    char *frames_dir;
    char *pvd_path;                /* vtk */
    series_entry *series;          /* vtk: sorted by index */
    size_t series_count, series_capacity;
    int pieces;                    /* vtk: > 1: frames are .pvtp files over that many .vtp pieces */
};

/* Times go to text with 12 significant digits, so comparing a time read back with one in memory
 * needs a tolerance well above that rounding. */
static int time_at_or_before(double t, double limit)
{
    return t <= limit + 1e-9 * fmax(1.0, fabs(limit));
}

static int series_put(eddy_writer *o, uint64_t index, double time, int parallel)
{
    size_t k = 0;
    while (k < o->series_count && o->series[k].index < index) ++k;
    if (k < o->series_count && o->series[k].index == index) {
        o->series[k].time = time;
        o->series[k].parallel = parallel;
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
    o->series[k].parallel = parallel;
    o->series_count++;
    return EDDY_OK;
}

static int write_pvd(const eddy_writer *o, eddy_error *err)
{
    eddy_atomic_file af;
    int rc = eddy_atomic_open(&af, o->pvd_path, err);
    if (rc) return rc;
    FILE *f = af.f;
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          "  <Collection>\n",
          f);
    for (size_t k = 0; k < o->series_count; ++k)
        fprintf(f, "    <DataSet timestep=\"%.12g\" group=\"\" part=\"0\" file=\"frames/frame_%05llu.%s\"/>\n",
                o->series[k].time, (unsigned long long)o->series[k].index, o->series[k].parallel ? "pvtp" : "vtp");
    fputs("  </Collection>\n</VTKFile>\n", f);
    return eddy_atomic_commit(&af, err);
}

/* Reads back the entries of our own frames.pvd (one DataSet per line, as write_pvd writes them), each
 * with the kind of file it names: a run resumed on another process count keeps the earlier frames as
 * they were written (.vtp on one process, .pvtp over pieces on several). */
static int load_pvd(eddy_writer *o, double keep_until, eddy_error *err)
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
        unsigned long long index;
        if (sscanf(ts + 10, "%lf", &t) != 1 || sscanf(fi + 19, "%llu", &index) != 1) continue;
        const char *dot = strchr(fi + 19, '.');
        const int parallel = dot && strncmp(dot, ".pvtp\"", 6) == 0;
        if (time_at_or_before(t, keep_until) && series_put(o, index, t, parallel))
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    fclose(f);
    return rc;
}

static void writer_destroy(eddy_writer *o)
{
    if (!o) return;
    free(o->frames_dir);
    free(o->pvd_path);
    free(o->series);
    free(o);
}

static int writer_create(int kind, const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    *out = NULL;
    eddy_writer *o = calloc(1, sizeof *o);
    if (!o) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    o->kind = kind;
    o->pieces = g_pieces;
    o->frames_dir = eddy_output_join_path(setup->dir, "frames");
    if (kind == KIND_VTK) o->pvd_path = eddy_output_join_path(setup->dir, "frames.pvd");
    if (!o->frames_dir || (kind == KIND_VTK && !o->pvd_path)) {
        writer_destroy(o);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    int rc = eddy_output_make_dirs(o->frames_dir, err);
    /* A resumed run's series is cut back to the kept frames now. A fresh run's frames.pvd waits for its
     * first frame: the host creates the writers before it clears an earlier run from the folder, so that
     * a writer that refuses leaves that run whole (run.c), and the clearing removes the stale list. */
    if (!rc && kind == KIND_VTK && setup->resume) {
        rc = load_pvd(o, setup->resume_time, err);
        if (!rc) rc = write_pvd(o, err);
    }
    if (rc) {
        writer_destroy(o);
        return rc;
    }
    *out = o;
    return EDDY_OK;
}

static int vtk_create(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    return writer_create(KIND_VTK, setup, out, err);
}

static int csv_create(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    return writer_create(KIND_CSV, setup, out, err);
}

int eddy_builtin_writer_write(eddy_writer *o, const eddy_snapshot *fr, eddy_error *err)
{
    char name[64];
    const int pvtp = o->kind == KIND_VTK && o->pieces > 1;
    snprintf(name, sizeof name, "frame_%05llu.%s", (unsigned long long)fr->index,
             o->kind == KIND_VTK ? (pvtp ? "pvtp" : "vtp") : "csv");
    char *path = eddy_output_join_path(o->frames_dir, name);
    if (!path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    const float scale = fr->simulation_scale;
    int rc = pvtp                 ? pvtp_write(path, fr, o->pieces, err)
             : o->kind == KIND_VTK ? vtp_write(path, fr, scale, 0, err)
                                   : csv_write(path, fr, scale, err);
    free(path);
    if (rc || o->kind != KIND_VTK) return rc;
    /* The series is rewritten only after the frame file is complete (renamed into place), so that
     * frames.pvd never names a frame that is not on disk. */
    if (series_put(o, fr->index, fr->time, o->pieces > 1)) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    return write_pvd(o, err);
}

int eddy_builtin_writer_reads_particles(const eddy_writer *o)
{
    return !(o->kind == KIND_VTK && o->pieces > 1);
}

static int write_frame(eddy_writer *o, const eddy_frame *fr, eddy_error *err)
{
    eddy_snapshot view;
    eddy_snapshot_view(fr, &view);
    return eddy_builtin_writer_write(o, &view, err);
}

int eddy_builtin_writer_is(const eddy_writer_vtable *v)
{
    /* The registry keeps its own copies of a component and its vtable: the function tells. */
    return v && v->write_frame == write_frame;
}

static const eddy_writer_vtable VTK_VTABLE = {
    .size = sizeof(eddy_writer_vtable),
    .create = vtk_create,
    .write_frame = write_frame,
    .destroy = writer_destroy,
};

static const eddy_writer_vtable CSV_VTABLE = {
    .size = sizeof(eddy_writer_vtable),
    .create = csv_create,
    .write_frame = write_frame,
    .destroy = writer_destroy,
};

static const eddy_component VTK_WRITER = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_WRITER,
    .id = "vtk",
    .version = "2.0.0",
    .description = "VTK XML PolyData frames (frames/frame_NNNNN.vtp) and the ParaView series frames.pvd",
    .vtable = &VTK_VTABLE,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES,
};

static const eddy_component CSV_WRITER = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_WRITER,
    .id = "csv",
    .version = "2.0.0",
    .description = "one CSV table per frame (frames/frame_NNNNN.csv), a row per particle in id order",
    .vtable = &CSV_VTABLE,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES,
};

static const eddy_component *const WRITERS[] = {&VTK_WRITER, &CSV_WRITER};

const eddy_component *const *eddy_builtin_writers(size_t *count)
{
    *count = sizeof WRITERS / sizeof WRITERS[0];
    return WRITERS;
}
