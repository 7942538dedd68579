#include "writers_builtin.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

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
    int resume;                    /* created to continue an earlier run's files up to resume_time */
    double resume_time;
    int pvd_errno;                 /* vtk, resume: why frames.pvd could not be opened (ENOENT: missing), 0 */
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

/* Parses one DataSet line as write_pvd writes it. The whole line must be there: a line cut short
 * (a file truncated by hand or by a full disk) reads "frame_000" as index 0, or a time of fewer digits. */
static int pvd_line(const char *line, double *t, unsigned long long *index, int *parallel)
{
    const char *ts = strstr(line, "timestep=\"");
    const char *fi = strstr(line, "file=\"frames/frame_");
    if (!ts || !fi || !strstr(fi, "/>")) return 0;
    char *end;
    *t = strtod(ts + 10, &end);
    if (end == ts + 10 || *end != '"' || !isfinite(*t)) return 0;
    const char *d = fi + 19;
    if (!isdigit((unsigned char)*d)) return 0;
    *index = strtoull(d, &end, 10);
    if (end - d < 5) return 0;
    if (strncmp(end, ".vtp\"", 5) == 0) *parallel = 0;
    else if (strncmp(end, ".pvtp\"", 6) == 0) *parallel = 1;
    else return 0;
    return 1;
}

/* Reads back the entries of our own frames.pvd (one DataSet per line, as write_pvd writes them), each
 * with the kind of file it names: a run resumed on another process count keeps the earlier frames as
 * they were written (.vtp on one process, .pvtp over pieces on several). A missing or unreadable file
 * leaves the series empty and its reason in pvd_errno: eddy_builtin_writer_check_resumed rebuilds it
 * from the frame files. */
static int load_pvd(eddy_writer *o, double keep_until, eddy_error *err)
{
    FILE *f = fopen(o->pvd_path, "r");
    if (!f) {
        o->pvd_errno = errno ? errno : ENOENT;
        return EDDY_OK;
    }
    char line[1024];
    int rc = EDDY_OK;
    while (!rc && fgets(line, sizeof line, f)) {
        double t;
        unsigned long long index;
        int parallel;
        if (!pvd_line(line, &t, &index, &parallel)) continue;
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
    o->resume = setup->resume;
    o->resume_time = setup->resume_time;
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

/* ---------------------------------------------------------------------------------------------- */
/* Resuming over a folder damaged by hand                                                           */

/* At most `limit` bytes of the file at `path`, NUL-terminated and malloc'ed; NULL when it cannot be
 * read. A frame's clock is in its first lines, so a .vtp is read only that far. */
static char *read_text(const char *path, size_t limit)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = limit < 4096 ? limit : 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap == limit) break;
        cap = 2 * cap < limit ? 2 * cap : limit;
        char *grown = realloc(buf, cap + 1);
        if (!grown) free(buf);
        buf = grown;
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

/* The clock a frame file carries (write_clock); 0 when it has none (a file of an eddy before it). */
static int read_clock(const char *text, double *t)
{
    const char *p = text ? strstr(text, "Name=\"TimeValue\"") : NULL;
    if (!p || !(p = strchr(p, '>'))) return 0;
    char *end;
    const double v = strtod(p + 1, &end);
    if (end == p + 1 || !isfinite(v)) return 0;
    *t = v;
    return 1;
}

static int regular_file(const char *path, struct stat *st)
{
    return stat(path, st) == 0 && S_ISREG(st->st_mode);
}

/* The .pvtp names at most this many bytes of pieces worth reading (a few dozen bytes each). */
enum { PVTP_READ_MAX = 16 << 20 };

/*
 * Whether frame `index` of one kind (.vtp, or .pvtp over pieces) is in the frames folder whole: its file
 * and every piece a .pvtp names, since ParaView shows a frame whose piece is gone as a hole. 1: whole;
 * 0: not, *missing (when asked for) the first absent file, malloc'ed; -1: out of memory. With `e`, a
 * whole frame's entry: its clock as the file says, else `fallback`, and the file's modification time.
 */
static int frame_on_disk(const eddy_writer *o, unsigned long long index, int parallel, double fallback,
                         series_entry *e, struct timespec *mtime, char **missing)
{
    char name[64];
    snprintf(name, sizeof name, "frame_%05llu.%s", index, parallel ? "pvtp" : "vtp");
    char *path = eddy_output_join_path(o->frames_dir, name);
    if (!path) return -1;
    struct stat st;
    if (!regular_file(path, &st)) {
        if (missing) *missing = path;
        else free(path);
        return 0;
    }
    char *text = parallel || e ? read_text(path, parallel ? PVTP_READ_MAX : 4096) : NULL;
    free(path);
    int whole = 1;
    for (const char *p = text; whole && p && (p = strstr(p, "<Piece Source=\""));) {
        p += 15;
        const char *q = strchr(p, '"');
        if (!q) break;
        char *source = malloc((size_t)(q - p) + 1);
        if (!source) {
            free(text);
            return -1;
        }
        memcpy(source, p, (size_t)(q - p));
        source[q - p] = '\0';
        char *piece = source[0] == '/' ? source : eddy_output_join_path(o->frames_dir, source);
        if (piece != source) free(source);
        if (!piece) {
            free(text);
            return -1;
        }
        struct stat ps;
        if (regular_file(piece, &ps)) free(piece);
        else {
            whole = 0;
            if (missing) *missing = piece;
            else free(piece);
        }
        p = q;
    }
    if (whole && e) {
        e->index = index;
        e->parallel = parallel;
        if (!read_clock(text, &e->time)) e->time = fallback;
        *mtime = st.st_mtim;
    }
    free(text);
    return whole;
}

/* The entry of frame `index` from its file on disk, the newer of a .vtp and a .pvtp when both are
 * whole (a run resumed on another process count writes the other kind over the same index). 1: found;
 * 0: none whole, *piece (malloc'ed) naming the first piece missing of a .pvtp that is there, else NULL;
 * -1: out of memory. */
static int frame_from_disk(const eddy_writer *o, unsigned long long index, unsigned kinds, double fallback,
                           series_entry *e, char **piece)
{
    series_entry got[2];
    struct timespec when[2];
    int whole[2] = {0, 0};
    char *miss[2] = {NULL, NULL};
    *piece = NULL;
    for (int k = 0; k < 2; ++k)
        if ((kinds & (1u << k)) && (whole[k] = frame_on_disk(o, index, k, fallback, &got[k], &when[k], &miss[k])) < 0) {
            free(miss[0]);
            return -1;
        }
    /* (a .pvtp's missing file is a piece when it does not end in ".pvtp", the frame's own name) */
    const size_t n = miss[1] ? strlen(miss[1]) : 0;
    if (n > 5 && strcmp(miss[1] + n - 5, ".pvtp") != 0) *piece = miss[1];
    else free(miss[1]);
    free(miss[0]);
    if (!whole[0] && !whole[1]) return 0;
    free(*piece);
    *piece = NULL;
    int pick = whole[1];
    if (whole[0] && whole[1])
        pick = when[1].tv_sec != when[0].tv_sec ? when[1].tv_sec > when[0].tv_sec : when[1].tv_nsec >= when[0].tv_nsec;
    *e = got[pick];
    return 1;
}

/* The frame files of one index found in the frames folder: bit 0 .vtp, bit 1 .pvtp, bit 2 .csv. */
typedef struct disk_frame {
    unsigned long long index;
    unsigned kinds;
} disk_frame;

static int disk_frame_order(const void *a, const void *b)
{
    const unsigned long long x = ((const disk_frame *)a)->index, y = ((const disk_frame *)b)->index;
    return (x > y) - (x < y);
}

/* The frame files of indices 0..last in the frames folder, sorted by index, one read of the folder
 * (not a look-up per index: a checkpoint may say a million frames came before, of which the folder
 * holds a few). Pieces ("_pK") are not frames; each .pvtp's are checked where it is read. *count 0 and
 * EDDY_OK where there is no folder. */
static int scan_frames(const eddy_writer *o, unsigned long long last, disk_frame **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    DIR *d = opendir(o->frames_dir);
    if (!d) return EDDY_OK;
    disk_frame *list = NULL;
    size_t n = 0, cap = 0;
    int rc = EDDY_OK;
    for (struct dirent *e; !rc && (e = readdir(d));) {
        const char *name = e->d_name;
        if (strncmp(name, "frame_", 6) != 0 || !isdigit((unsigned char)name[6])) continue;
        char *end;
        const unsigned long long index = strtoull(name + 6, &end, 10);
        if (end - (name + 6) < 5 || index > last) continue;
        const unsigned kind = strcmp(end, ".vtp") == 0 ? 1u : strcmp(end, ".pvtp") == 0 ? 2u : strcmp(end, ".csv") == 0 ? 4u : 0u;
        if (!kind) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            disk_frame *grown = realloc(list, cap * sizeof *list);
            if (!grown) {
                rc = EDDY_ERR_OUT_OF_MEMORY;
                break;
            }
            list = grown;
        }
        list[n].index = index;
        list[n++].kinds = kind;
    }
    closedir(d);
    if (rc) {
        free(list);
        return rc;
    }
    if (n > 1) qsort(list, n, sizeof *list, disk_frame_order); /* (an empty folder has no list: qsort(NULL)) */
    size_t m = 0; /* one row per index, its kinds together */
    for (size_t i = 0; i < n; ++i) {
        if (m && list[m - 1].index == list[i].index) list[m - 1].kinds |= list[i].kinds;
        else list[m++] = list[i];
    }
    *out = list;
    *count = m;
    return EDDY_OK;
}

/* The CSV writer has no series: what it can say is which frames before the resume point are gone. */
static void check_csv_frames(const eddy_writer *o, unsigned long long last, double interval, const disk_frame *disk,
                             size_t count)
{
    unsigned long long found = 0, first = 0, k = 0;
    int gap = 0;
    for (size_t i = 0; i < count; ++i) {
        if (!(disk[i].kinds & 4u)) continue;
        if (!gap && disk[i].index != k) gap = 1, first = k;
        if (!gap) ++k;
        ++found;
    }
    if (!gap && k <= last) gap = 1, first = k;
    const unsigned long long gaps = last + 1 - found;
    if (gap)
        eddy_output_warn("%llu of the %llu frame%s before the resume point %s not in '%s' (the first "
                         "'frame_%05llu.csv', t = %.6g s)", gaps, last + 1, last ? "s" : "", gaps == 1 ? "is" : "are",
                         o->frames_dir, first, (double)first * interval);
}

int eddy_builtin_writer_check_resumed(eddy_writer *o, double interval, eddy_error *err)
{
    /* Frame k is at k * interval exactly (the clock lands there): frames 0..last come before the
     * resume point. */
    if (!o->resume || !(interval > 0.0) || !(o->resume_time >= 0.0)) return EDDY_OK;
    const double lastd = floor(o->resume_time / interval + 1e-6);
    if (!(lastd < 0x1p62)) return EDDY_OK;
    const unsigned long long last = (unsigned long long)lastd;
    disk_frame *disk;
    size_t disk_count;
    if (scan_frames(o, last, &disk, &disk_count)) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    if (o->kind == KIND_CSV) {
        check_csv_frames(o, last, interval, disk, disk_count);
        free(disk);
        return EDDY_OK;
    }

    /* The series as it should be: each kept entry whose files are there, and each frame before the
     * resume point that frames.pvd lacks (missing or cut short) but whose files are whole on disk. The
     * indices visited are those of the entries and of the files: a gap between them is counted, not
     * walked. */
    const size_t cap = o->series_count + disk_count + 1;
    series_entry *out = malloc(cap * sizeof *out);
    if (!out) {
        free(disk);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    size_t n = 0, j = 0, i = 0;
    unsigned long long rebuilt = 0, dangling = 0, gaps = 0, first_gap = 0, next = 0;
    series_entry first_rebuilt = {0};
    char *first_dangling = NULL, *gap_piece = NULL;
    int rc = 0;
    for (;;) {
        while (j < o->series_count && o->series[j].index < next) out[n++] = o->series[j++];
        while (i < disk_count && disk[i].index < next) ++i;
        /* the next index that has an entry or a file, or last + 1 */
        unsigned long long k = last + 1;
        if (j < o->series_count && o->series[j].index < k) k = o->series[j].index;
        if (i < disk_count && disk[i].index < k) k = disk[i].index;
        if (k > next) {
            if (!gaps) first_gap = next;
            gaps += k - next;
        }
        if (rc || k > last) break;
        next = k + 1;
        const unsigned kinds = i < disk_count && disk[i].index == k ? disk[i].kinds & 3u : 0u;
        const series_entry *e = j < o->series_count && o->series[j].index == k ? &o->series[j++] : NULL;
        if (e) {
            char *miss = NULL;
            const int whole = frame_on_disk(o, k, e->parallel, 0.0, NULL, NULL, &miss);
            if (whole > 0) out[n++] = *e;
            else if (whole < 0) rc = -1;
            /* (named but gone: left out, not replaced by a file of the other kind that a run on another
             * process count may have left under the same index) */
            else if (!dangling++) first_dangling = miss;
            else free(miss);
            continue;
        }
        series_entry d;
        char *piece = NULL;
        const int found = kinds ? frame_from_disk(o, k, kinds, (double)k * interval, &d, &piece) : 0;
        if (found > 0) {
            out[n++] = d;
            if (!rebuilt++) first_rebuilt = d;
        } else if (found < 0) {
            rc = -1;
        } else if (!gaps++) {
            first_gap = k;
            gap_piece = piece;
            piece = NULL;
        }
        free(piece);
    }
    while (!rc && j < o->series_count) out[n++] = o->series[j++];
    free(disk);
    if (rc) {
        free(out);
        free(first_dangling);
        free(gap_piece);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    free(o->series);
    o->series = out;
    o->series_count = n;
    o->series_capacity = cap;
    if (rebuilt || dangling) rc = write_pvd(o, err);

    /* One warning for the series, in the words of what was found and what was done about it. */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        const char *sep = "";
        if (o->pvd_errno) {
            if (o->pvd_errno == ENOENT) fprintf(m, "'%s' was missing", o->pvd_path);
            else fprintf(m, "'%s' could not be read (%s)", o->pvd_path, strerror(o->pvd_errno));
            if (rebuilt)
                fprintf(m, ": rebuilt the entries of %llu frame%s before the resume point from their files in '%s'",
                        rebuilt, rebuilt == 1 ? "" : "s", o->frames_dir);
            sep = "; ";
        } else if (rebuilt) {
            fprintf(m, "'%s' lacked the entries of %llu frame%s before the resume point (the first 'frame_%05llu.%s', "
                       "t = %.6g s): rebuilt them from their files in '%s'",
                    o->pvd_path, rebuilt, rebuilt == 1 ? "" : "s", (unsigned long long)first_rebuilt.index,
                    first_rebuilt.parallel ? "pvtp" : "vtp", first_rebuilt.time, o->frames_dir);
            sep = "; ";
        }
        if (dangling) {
            fprintf(m, "%s'%s' named %llu frame%s whose files are not all on disk (the first missing: '%s'): left out "
                       "of the series", sep, o->pvd_path, dangling, dangling == 1 ? "" : "s", first_dangling);
            sep = "; ";
        }
        if (gaps)
            fprintf(m, "%s%llu of the %llu frame%s before the resume point %s not in '%s' (the first "
                       "'frame_%05llu.%s', t = %.6g s%s%s%s)",
                    sep, gaps, last + 1, last ? "s" : "", gaps == 1 ? "is" : "are", o->frames_dir, first_gap,
                    gap_piece || o->pieces > 1 ? "pvtp" : "vtp", (double)first_gap * interval,
                    gap_piece ? ", whose piece '" : "", gap_piece ? gap_piece : "", gap_piece ? "' is missing" : "");
        fclose(m);
        if (text && *text) eddy_output_warn("%s", text);
    }
    free(text);
    free(first_dangling);
    free(gap_piece);
    return rc;
}

static int vtk_create(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    return writer_create(KIND_VTK, setup, out, err);
}

static int csv_create(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    return writer_create(KIND_CSV, setup, out, err);
}

/*
 * A resumed run on another process count writes frame `index` in the other form than the run before it
 * (.pvtp over pieces against one .vtp), or over fewer pieces: the earlier run's files of that index, the
 * frame it wrote when it stopped between two, stayed beside the new one under the same number, and a
 * frame_* glob took them (an HPC trial: 40 MB of pieces). Removed once the new frame is in place; pieces
 * are numbered from 0 without a gap.
 */
static void remove_other_form(const eddy_writer *o, uint64_t index, int parallel)
{
    char name[64];
    snprintf(name, sizeof name, "frame_%05llu.%s", (unsigned long long)index, parallel ? "vtp" : "pvtp");
    eddy_output_remove_in(o->frames_dir, name);
    /* (on fewer processes than the stopped run, its pieces past this run's count too) */
    for (int k = parallel ? o->pieces : 0;; ++k) {
        snprintf(name, sizeof name, "frame_%05llu_p%d.vtp", (unsigned long long)index, k);
        char *path = eddy_output_join_path(o->frames_dir, name);
        const int gone = !path || unlink(path) != 0;
        free(path);
        if (gone) break;
    }
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
    rc = write_pvd(o, err);
    if (!rc && o->resume) remove_other_form(o, fr->index, o->pieces > 1);
    return rc;
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
