/*
 * Output, diagnostics and pictures: every file is read back by code written here, independently of the
 * writers (own base64 decoder, own CSV and XML scanning, libpng's reader), and compared with values
 * the test derives from the particles it created.
 *
 * The frames of test_vtp_fixture are left in $EDDY_BINARY_DIR/test_output/vtp together with
 * expected.json, for the independent Python reader tests/check_vtp.py (CTest output_vtp_reader).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first. */
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <inttypes.h>

#include "diagnostics.h"
#include "frame.h"
#include "output.h"
#include "picture.h"
#include "services.h"
#include "sim_support.h"

/* ---------------------------------------------------------------------------------------------- */
/* Helpers                                                                                          */

static char g_root[4096]; /* a fresh folder for this test program */
static int g_root_is_temporary;  /* removed at the end; under EDDY_BINARY_DIR it stays for check_vtp.py */


static int setup_root(void **state)
{
    (void)state;
    const char *bin = getenv("EDDY_BINARY_DIR");
    if (bin && *bin) {
        snprintf(g_root, sizeof g_root, "%s/test_output", bin);
        support_remove_tree(g_root);
        if (mkdir(g_root, 0777) != 0) return -1;
    } else {
        snprintf(g_root, sizeof g_root, "/tmp/eddy_test_output_XXXXXX");
        if (!mkdtemp(g_root)) return -1;
        g_root_is_temporary = 1;
    }
    return 0;
}

static int teardown_root(void **state)
{
    (void)state;
    if (g_root_is_temporary) support_remove_tree(g_root);
    return 0;
}

static char *path_in(const char *a, const char *b)
{
    static char buf[4][8192]; /* rotating: a result stays valid for the next 3 calls */
    static int k;
    k = (k + 1) & 3;
    if (snprintf(buf[k], sizeof buf[k], "%s/%s", a, b) >= (int)sizeof buf[k]) fail_msg("path too long: %s", a);
    return buf[k];
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* No writer may leave "<name>.tmp" behind after success. */
static void assert_no_tmp_files(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 4 && !strcmp(e->d_name + n - 4, ".tmp")) fail_msg("left-over temporary file %s/%s", dir, e->d_name);
    }
    closedir(d);
}

static eddy_material water(float rest_density, float mass)
{
    static int serial; /* material names must be unique within a world */
    char name[32];
    snprintf(name, sizeof name, "water%d", serial++);
    return support_material(name, rest_density, mass);
}

/* ---------------------------------------------------------------------------------------------- */
/* The frame world: 6 particles stored out of id order, with three registered fields.              */

#define NP 6
static const float SCALE = 0.004f;

typedef struct expected {
    uint64_t id[NP];
    float pos[NP][3], vel[NP][3]; /* sim units */
    float density[NP], pressure[NP];
    uint32_t material[NP];
    float vort[NP][3], lambda[NP], pair[NP][2];
} expected;

/* The values of the particle with id `id`, made up so that no two numbers coincide and most are not
 * short decimals (they must survive %.9g and base64 exactly). */
static void values_for(uint64_t id, float pos[3], float vel[3], float *rho, float *pr, float vort[3], float *lam,
                       float pair[2])
{
    float t = (float)(id % 1000u); /* ids above 2^32 (test_vtp_64bit_ids) get the values of id % 1000 */
    pos[0] = 0.001f * t + 1.0f / 3.0f * 0.01f;
    pos[1] = -0.0023f * t + 0.007f;
    pos[2] = 0.0001f * t * t;
    vel[0] = 0.11f * t - 0.3f;
    vel[1] = -9.81f * 0.01f * t;
    vel[2] = 1.0f / (t + 7.0f);
    *rho = 1000.0f + 3.3f * t;
    *pr = -12.5f + 0.7f * t;
    vort[0] = 10.0f * t + 0.25f;
    vort[1] = -t / 3.0f;
    vort[2] = 1e-7f * (t + 1.0f);
    *lam = -0.5f * t + 0.125f;
    pair[0] = 2.0f * t;
    pair[1] = 1e20f / (t + 1.0f);
}

static eddy_world *make_frame_world(expected *ex)
{
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(3, &w, &err), EDDY_OK);
    w->simulation_scale = SCALE;
    eddy_material m0 = water(1000.0f, 0.02f), m1 = water(800.0f, 0.01f);
    assert_int_equal(eddy_world_add_material(w, &m0, &err), EDDY_OK);
    assert_int_equal(eddy_world_add_material(w, &m1, &err), EDDY_OK);
    eddy_particles *p = &w->particles;
    float pos[3 * NP] = {0};
    assert_int_equal(eddy_particles_add(p, 3, pos, NULL, 0, NULL, &err), EDDY_OK);
    assert_int_equal(eddy_particles_add(p, 3, pos, NULL, 1, NULL, &err), EDDY_OK);
    int vort = -1, lam = -1, pair = -1;
    assert_int_equal(eddy_particles_add_field(p, "vorticity", 3, &vort, &err), EDDY_OK);
    assert_int_equal(eddy_particles_add_field(p, "lambda", 1, &lam, &err), EDDY_OK);
    assert_int_equal(eddy_particles_add_field(p, "pair", 2, &pair, &err), EDDY_OK);

    /* Shuffle storage so that files in id order prove the writer sorted. */
    const uint32_t order[NP] = {4, 1, 5, 0, 3, 2};
    assert_int_equal(eddy_particles_gather(p, order, NP, &err), EDDY_OK);
    assert_int_not_equal(p->id[0], p->id[1] - 1);

    for (size_t i = 0; i < NP; ++i) {
        float ps[3], v[3], vo[3], pa[2], rho, pr, l;
        values_for(p->id[i], ps, v, &rho, &pr, vo, &l, pa);
        p->x[i] = ps[0], p->y[i] = ps[1], p->z[i] = ps[2];
        p->vx[i] = v[0], p->vy[i] = v[1], p->vz[i] = v[2];
        p->density[i] = rho;
        p->pressure[i] = pr;
        for (int c = 0; c < 3; ++c) eddy_particles_field(p, vort, c)[i] = vo[c];
        eddy_particles_field(p, lam, 0)[i] = l;
        for (int c = 0; c < 2; ++c) eddy_particles_field(p, pair, c)[i] = pa[c];
    }

    /* Expected, in increasing id order (ids are issued 0.. by eddy_particles_add). */
    uint64_t ids[NP];
    for (size_t i = 0; i < NP; ++i) ids[i] = p->id[i];
    for (size_t a = 0; a < NP; ++a)
        for (size_t b = a + 1; b < NP; ++b)
            if (ids[b] < ids[a]) {
                uint64_t t = ids[a];
                ids[a] = ids[b];
                ids[b] = t;
            }
    for (size_t k = 0; k < NP; ++k) {
        ex->id[k] = ids[k];
        values_for(ids[k], ex->pos[k], ex->vel[k], &ex->density[k], &ex->pressure[k], ex->vort[k], &ex->lambda[k],
                   ex->pair[k]);
        for (size_t i = 0; i < NP; ++i)
            if (p->id[i] == ids[k]) ex->material[k] = p->material[i];
    }
    return w;
}

/* ---------------------------------------------------------------------------------------------- */
/* A minimal reader for our .vtp: find a DataArray by name, decode base64 (header and data as two
 * separately padded runs, as VTK reads them).                                                     */

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Decodes exactly `chars` characters (a multiple of 4) into out; returns the byte count. */
static size_t b64_decode(const char *s, size_t chars, uint8_t *out)
{
    assert_int_equal(chars % 4, 0);
    size_t n = 0;
    for (size_t i = 0; i < chars; i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            if (s[i + k] == '=') {
                v[k] = 0;
                pad++;
            } else {
                v[k] = b64_value(s[i + k]);
                assert_true(v[k] >= 0);
                assert_int_equal(pad, 0); /* '=' only at the end of a run */
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[n++] = (uint8_t)(w >> 16);
        if (pad < 2) out[n++] = (uint8_t)(w >> 8);
        if (pad < 1) out[n++] = (uint8_t)w;
    }
    return n;
}

typedef struct vtp_array {
    char type[16];
    int components;
    size_t bytes;
    uint8_t data[4096];
} vtp_array;

static uint64_t le_u64(const uint8_t *b);

static void attr(const char *tag_start, const char *tag_end, const char *name, char *out, size_t n)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *a = strstr(tag_start, key);
    out[0] = '\0';
    if (!a || a > tag_end) return;
    a += strlen(key);
    const char *b = strchr(a, '"');
    size_t len = (size_t)(b - a) < n - 1 ? (size_t)(b - a) : n - 1;
    memcpy(out, a, len);
    out[len] = '\0';
}

static int find_array(const char *xml, const char *name, vtp_array *arr)
{
    char key[128];
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    const char *hit = strstr(xml, key);
    if (!hit) return 0;
    const char *tag = hit;
    while (tag > xml && strncmp(tag, "<DataArray", 10) != 0) --tag;
    const char *tag_end = strchr(hit, '>');
    char buf[64];
    attr(tag, tag_end, "type", arr->type, sizeof arr->type);
    attr(tag, tag_end, "NumberOfComponents", buf, sizeof buf);
    arr->components = buf[0] ? atoi(buf) : 1;
    attr(tag, tag_end, "format", buf, sizeof buf);
    assert_string_equal(buf, "binary");
    const char *s = tag_end + 1;
    while (*s == ' ' || *s == '\n') ++s;
    const char *e = strstr(s, "</DataArray>");
    while (e > s && (e[-1] == ' ' || e[-1] == '\n')) --e;
    /* Header: 4 bytes -> one 8-character run ending in "==". */
    uint8_t header[8];
    assert_true(e - s >= 8);
    assert_int_equal(s[6], '=');
    assert_int_equal(s[7], '=');
    assert_int_equal(b64_decode(s, 8, header), 4);
    uint32_t count = (uint32_t)header[0] | (uint32_t)header[1] << 8 | (uint32_t)header[2] << 16 | (uint32_t)header[3] << 24;
    assert_true((size_t)(e - s - 8) <= 4 * (sizeof arr->data + 2) / 3 + 4);
    arr->bytes = b64_decode(s + 8, (size_t)(e - s - 8), arr->data);
    assert_int_equal(count, arr->bytes); /* the header tells the truth */
    return 1;
}

static uint32_t le_u32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t le_u64(const uint8_t *b)
{
    return (uint64_t)le_u32(b) | (uint64_t)le_u32(b + 4) << 32;
}

static float le_f32(const uint8_t *b)
{
    uint32_t u = le_u32(b);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void expect_floats(const char *xml, const char *name, int comps, const float *values /* [NP][comps] */)
{
    vtp_array a;
    if (!find_array(xml, name, &a)) fail_msg("no DataArray '%s'", name);
    assert_string_equal(a.type, "Float32");
    assert_int_equal(a.components, comps);
    assert_int_equal(a.bytes, (size_t)NP * (size_t)comps * 4);
    for (size_t k = 0; k < (size_t)NP * (size_t)comps; ++k) {
        float got = le_f32(a.data + 4 * k);
        if (memcmp(&got, &values[k], sizeof got) != 0)
            fail_msg("%s[%zu]: got %.9g, expected %.9g", name, k, (double)got, (double)values[k]);
    }
}

/* The id array: UInt32 when every id fits (the files of ABI 1.x byte for byte), UInt64 otherwise. */
static void expect_ids(const char *xml, const uint64_t *ids)
{
    int wide = 0;
    for (size_t k = 0; k < NP; ++k) wide |= ids[k] > UINT32_MAX;
    vtp_array a;
    if (!find_array(xml, "id", &a)) fail_msg("no DataArray 'id'");
    assert_string_equal(a.type, wide ? "UInt64" : "UInt32");
    assert_int_equal(a.components, 1);
    assert_int_equal(a.bytes, (size_t)NP * (wide ? 8 : 4));
    for (size_t k = 0; k < NP; ++k) {
        uint64_t got = wide ? le_u64(a.data + 8 * k) : le_u32(a.data + 4 * k);
        if (got != ids[k]) fail_msg("id[%zu]: got %" PRIu64 ", expected %" PRIu64, k, got, ids[k]);
    }
}

static void expect_u32(const char *xml, const char *name, const char *type, const uint32_t *values)
{
    vtp_array a;
    if (!find_array(xml, name, &a)) fail_msg("no DataArray '%s'", name);
    assert_string_equal(a.type, type);
    assert_int_equal(a.components, 1);
    assert_int_equal(a.bytes, (size_t)NP * 4);
    for (size_t k = 0; k < NP; ++k) assert_int_equal(le_u32(a.data + 4 * k), values[k]);
}

static void check_vtp(const char *path, const expected *ex)
{
    char *xml = read_text(path);
    assert_non_null(xml);
    assert_non_null(strstr(xml, "<VTKFile type=\"PolyData\""));
    assert_non_null(strstr(xml, "header_type=\"UInt32\""));
    assert_non_null(strstr(xml, "byte_order=\"LittleEndian\""));
    assert_non_null(strstr(xml, "NumberOfPoints=\"6\""));
    assert_non_null(strstr(xml, "NumberOfVerts=\"6\""));
    assert_non_null(strstr(xml, "</VTKFile>"));

    float pos[NP][3], vel[NP][3];
    uint32_t conn[NP], offs[NP];
    for (size_t k = 0; k < NP; ++k) {
        for (int c = 0; c < 3; ++c) {
            /* World units: a simulation-scale length divided by the simulation scale. */
            pos[k][c] = ex->pos[k][c] / SCALE;
            vel[k][c] = ex->vel[k][c] / SCALE;
        }
        conn[k] = (uint32_t)k;
        offs[k] = (uint32_t)k + 1;
    }
    expect_ids(xml, ex->id);
    expect_u32(xml, "material", "UInt32", ex->material);
    expect_floats(xml, "position", 3, &pos[0][0]);
    expect_floats(xml, "velocity", 3, &vel[0][0]);
    expect_floats(xml, "density", 1, ex->density);
    expect_floats(xml, "pressure", 1, ex->pressure);
    expect_floats(xml, "vorticity", 3, &ex->vort[0][0]);
    expect_floats(xml, "lambda", 1, ex->lambda);
    expect_floats(xml, "pair", 2, &ex->pair[0][0]);
    expect_u32(xml, "connectivity", "Int32", conn);
    expect_u32(xml, "offsets", "Int32", offs);
    /* The points are the Points, not point data. */
    const char *points = strstr(xml, "<Points>");
    assert_non_null(points);
    assert_true(strstr(xml, "Name=\"position\"") > points);
    free(xml);
}

/* expected.json for tests/check_vtp.py: the simulation-unit values and the scale, so the Python side
 * does the unit conversion itself. %.9g round-trips a float. */
static void write_expected_json(const char *path, const expected *ex)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"simulation_scale\": %.9g, \"particles\": [\n", (double)SCALE);
    for (size_t k = 0; k < NP; ++k) {
        fprintf(f,
                "  {\"id\": %" PRIu64 ", \"material\": %u, \"position\": [%.9g, %.9g, %.9g], \"velocity\": [%.9g, %.9g, %.9g],"
                " \"density\": %.9g, \"pressure\": %.9g, \"fields\": {\"vorticity\": [%.9g, %.9g, %.9g],"
                " \"lambda\": [%.9g], \"pair\": [%.9g, %.9g]}}%s\n",
                ex->id[k], ex->material[k], (double)ex->pos[k][0], (double)ex->pos[k][1], (double)ex->pos[k][2],
                (double)ex->vel[k][0], (double)ex->vel[k][1], (double)ex->vel[k][2], (double)ex->density[k],
                (double)ex->pressure[k], (double)ex->vort[k][0], (double)ex->vort[k][1], (double)ex->vort[k][2],
                (double)ex->lambda[k], (double)ex->pair[k][0], (double)ex->pair[k][1], k + 1 < NP ? "," : "");
    }
    fprintf(f, "]}\n");
    fclose(f);
}

/* ---------------------------------------------------------------------------------------------- */
/* Frames                                                                                           */

/* One frame of the world (frame.h) at frame `index` and `time`, handed to every writer of `o`. */
static int write_frame(eddy_output *o, eddy_world *w, uint64_t index, double time, eddy_error *err)
{
    eddy_frame f;
    int rc = eddy_frame_take(w, index, &f, err);
    if (rc) return rc;
    f.time = time;
    rc = eddy_output_write_frame(o, &f, err);
    eddy_frame_release(&f);
    return rc;
}

static void test_vtp_fixture(void **state)
{
    (void)state;
    expected ex;
    eddy_world *w = make_frame_world(&ex);
    eddy_error err = {0};
    char dir[8192];
    snprintf(dir, sizeof dir, "%s/vtp", g_root);
    eddy_output *o = NULL;
    eddy_output_options opt = eddy_output_default_options(); /* scale from the world */
    assert_int_equal(eddy_output_create(dir, &opt, w, &o, &err), EDDY_OK);
    assert_int_equal(write_frame(o, w, 0, 0.0, &err), EDDY_OK);
    assert_int_equal(write_frame(o, w, 1, 0.5, &err), EDDY_OK);
    eddy_output_destroy(o);

    check_vtp(path_in(dir, "frames/frame_00000.vtp"), &ex);
    check_vtp(path_in(dir, "frames/frame_00001.vtp"), &ex);
    assert_false(file_exists(path_in(dir, "frames/frame_00000.csv"))); /* CSV is off by default */
    assert_no_tmp_files(dir);
    assert_no_tmp_files(path_in(dir, "frames"));
    write_expected_json(path_in(dir, "expected.json"), &ex);
    eddy_world_destroy(w);
}

/* The text of the one-tuple ascii FieldData array `name` (NULL when absent), checking its tag. */
static const char *field_data_value(const char *xml, const char *name, const char *type)
{
    const char *block = strstr(xml, "<FieldData>"), *end = strstr(xml, "</FieldData>");
    if (!block || !end) return NULL;
    char key[96];
    snprintf(key, sizeof key, "<DataArray type=\"%s\" Name=\"%s\" NumberOfTuples=\"1\" format=\"ascii\">", type,
             name);
    const char *hit = strstr(block, key);
    return hit && hit < end ? hit + strlen(key) : NULL;
}

/* The frame's time and step as VTK FieldData (TimeValue, the name ParaView reads as the data set's
 * time): a time that needs all 17 digits to come back exactly (0.1 + 0.2 is not 0.3), a step above
 * 2^32, and the block inside PolyData ahead of the Piece, where VTK's reader looks for it. */
static void test_vtp_frame_clock(void **state)
{
    (void)state;
    expected ex;
    eddy_world *w = make_frame_world(&ex);
    eddy_error err = {0};
    char dir[8192];
    snprintf(dir, sizeof dir, "%s/clock", g_root);
    eddy_output *o = NULL;
    assert_int_equal(eddy_output_create(dir, NULL, w, &o, &err), EDDY_OK);
    volatile double a = 0.1, b = 0.2; /* (computed at run time: the sum is the double a solver's clock holds) */
    const double t = a + b;
    assert_true(t != 0.3);
    w->step = (UINT64_C(1) << 33) + 5;
    assert_int_equal(write_frame(o, w, 3, t, &err), EDDY_OK);
    eddy_output_destroy(o);
    char *xml = read_text(path_in(dir, "frames/frame_00003.vtp"));
    assert_non_null(xml);
    const char *tv = field_data_value(xml, "TimeValue", "Float64");
    const char *st = field_data_value(xml, "step", "UInt64");
    if (!tv || !st) fail_msg("no TimeValue / step FieldData in:\n%.600s", xml);
    char *e;
    assert_true(strtod(tv, &e) == t);
    assert_true(strncmp(e, "</DataArray>", 12) == 0);
    assert_true(strtoull(st, &e, 10) == (UINT64_C(1) << 33) + 5);
    assert_true(strncmp(e, "</DataArray>", 12) == 0);
    const char *poly = strstr(xml, "<PolyData>"), *piece = strstr(xml, "<Piece ");
    assert_true(poly && piece && poly < tv && tv < piece);
    free(xml);
    eddy_world_destroy(w);
}

static void test_vtp_explicit_scale_and_empty_world(void **state)
{
    (void)state;
    expected ex;
    eddy_world *w = make_frame_world(&ex);
    eddy_error err = {0};
    /* An explicit scale overrides the world's. */
    w->simulation_scale = 123.0f;
    char *path = path_in(g_root, "explicit.vtp");
    assert_int_equal(eddy_output_write_vtp(path, w, SCALE, &err), EDDY_OK);
    check_vtp(path, &ex);
    assert_int_equal(eddy_output_write_vtp(path, w, 0.0f, &err), EDDY_ERR_INVALID_ARGUMENT);
    eddy_world_destroy(w);

    /* No particles: still a well-formed file, every array empty. */
    assert_int_equal(eddy_world_create(2, &w, &err), EDDY_OK);
    path = path_in(g_root, "empty.vtp");
    assert_int_equal(eddy_output_write_vtp(path, w, 1.0f, &err), EDDY_OK);
    char *xml = read_text(path);
    assert_non_null(strstr(xml, "NumberOfPoints=\"0\""));
    vtp_array a;
    assert_true(find_array(xml, "position", &a));
    assert_int_equal(a.bytes, 0);
    assert_true(find_array(xml, "offsets", &a));
    assert_int_equal(a.bytes, 0);
    free(xml);
    eddy_world_destroy(w);
}

static void test_csv(void **state)
{
    (void)state;
    expected ex;
    eddy_world *w = make_frame_world(&ex);
    eddy_error err = {0};
    char dir[8192];
    snprintf(dir, sizeof dir, "%s/csv", g_root);
    eddy_output *o = NULL;
    eddy_output_options opt = eddy_output_default_options();
    static const char *const csv_only[] = {"csv"};
    opt.formats = csv_only;
    opt.format_count = 1;
    assert_int_equal(eddy_output_create(dir, &opt, w, &o, &err), EDDY_OK);
    assert_int_equal(write_frame(o, w, 7, 0.25, &err), EDDY_OK);
    eddy_output_destroy(o);
    assert_false(file_exists(path_in(dir, "frames/frame_00007.vtp")));
    assert_false(file_exists(path_in(dir, "frames.pvd")));

    char *text = read_text(path_in(dir, "frames/frame_00007.csv"));
    assert_non_null(text);
    char *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    assert_string_equal(line, "id,x,y,z,vx,vy,vz,density,pressure,material,vorticity_x,vorticity_y,vorticity_z,"
                              "lambda,pair_0,pair_1");
    for (size_t k = 0; k < NP; ++k) {
        line = strtok_r(NULL, "\n", &save);
        assert_non_null(line);
        float want[15] = {ex.pos[k][0] / SCALE, ex.pos[k][1] / SCALE, ex.pos[k][2] / SCALE,
                          ex.vel[k][0] / SCALE, ex.vel[k][1] / SCALE, ex.vel[k][2] / SCALE,
                          ex.density[k], ex.pressure[k], (float)ex.material[k],
                          ex.vort[k][0], ex.vort[k][1], ex.vort[k][2], ex.lambda[k], ex.pair[k][0], ex.pair[k][1]};
        char *end;
        unsigned long id = strtoul(line, &end, 10);
        assert_int_equal(id, ex.id[k]); /* rows in increasing id order */
        for (int c = 0; c < 15; ++c) {
            assert_int_equal(*end, ',');
            float got = strtof(end + 1, &end);
            if (memcmp(&got, &want[c], sizeof got) != 0)
                fail_msg("row %zu column %d: got %.9g, expected %.9g", k, c + 1, (double)got, (double)want[c]);
        }
        assert_int_equal(*end, '\0');
    }
    assert_null(strtok_r(NULL, "\n", &save));
    free(text);
    eddy_world_destroy(w);
}

/* Our own scan of frames.pvd: the (timestep, file) pairs in order. */
static int read_pvd(const char *path, double *times, char files[][64], int max)
{
    char *text = read_text(path);
    assert_non_null(text);
    assert_non_null(strstr(text, "<VTKFile type=\"Collection\""));
    assert_non_null(strstr(text, "</VTKFile>"));
    int n = 0;
    for (const char *s = strstr(text, "<DataSet"); s; s = strstr(s + 1, "<DataSet")) {
        assert_true(n < max);
        const char *end = strchr(s, '>');
        char buf[64];
        attr(s, end, "timestep", buf, sizeof buf);
        times[n] = strtod(buf, NULL);
        attr(s, end, "file", files[n], 64);
        n++;
    }
    free(text);
    return n;
}

static void test_pvd_series(void **state)
{
    (void)state;
    expected ex;
    eddy_world *w = make_frame_world(&ex);
    eddy_error err = {0};
    char dir[8192];
    snprintf(dir, sizeof dir, "%s/series", g_root);
    eddy_output *o = NULL;
    assert_int_equal(eddy_output_create(dir, NULL, w, &o, &err), EDDY_OK);
    double times[16];
    char files[16][64];
    eddy_diagnostics d = {0};
    for (int f = 0; f < 4; ++f) {
        assert_int_equal(write_frame(o, w, f, 0.125 * f, &err), EDDY_OK);
        assert_int_equal(eddy_output_write_diagnostics(o, &d, 0.125 * f, (uint64_t)f, 1.0, &err), EDDY_OK);
        /* Valid after every frame, listing every frame so far. */
        int n = read_pvd(path_in(dir, "frames.pvd"), times, files, 16);
        assert_int_equal(n, f + 1);
        for (int k = 0; k < n; ++k) {
            char want[64];
            snprintf(want, sizeof want, "frames/frame_%05d.vtp", k);
            assert_string_equal(files[k], want);
            assert_true(times[k] == 0.125 * k);
            assert_true(file_exists(path_in(dir, files[k])));
        }
    }
    /* Rewriting a frame replaces its entry. */
    assert_int_equal(write_frame(o, w, 2, 0.3, &err), EDDY_OK);
    assert_int_equal(read_pvd(path_in(dir, "frames.pvd"), times, files, 16), 4);
    assert_true(times[2] == 0.3);
    eddy_output_destroy(o);
    assert_no_tmp_files(dir);

    /* Resuming at t = 0.125 keeps frames 0 and 1 and the diagnostics rows up to then. */
    o = NULL;
    eddy_output_options opt = eddy_output_default_options();
    opt.resume = 1;
    opt.resume_time = 0.125;
    assert_int_equal(eddy_output_create(dir, &opt, w, &o, &err), EDDY_OK);
    assert_int_equal(read_pvd(path_in(dir, "frames.pvd"), times, files, 16), 2);
    assert_int_equal(eddy_output_write_diagnostics(o, &d, 0.25, 99, 1.0, &err), EDDY_OK);
    assert_int_equal(write_frame(o, w, 2, 0.25, &err), EDDY_OK);
    assert_int_equal(read_pvd(path_in(dir, "frames.pvd"), times, files, 16), 3);
    eddy_output_destroy(o);
    char *text = read_text(path_in(dir, "diagnostics.csv"));
    assert_non_null(text);
    int lines = 0;
    for (char *s = text; *s; ++s) lines += *s == '\n';
    assert_int_equal(lines, 1 + 3); /* header, t = 0 and 0.125 kept, the resumed row */
    assert_non_null(strstr(text, "\n0.25,99,"));
    assert_null(strstr(text, "\n0.375,"));
    free(text);

    /* A fresh run in the same folder: its series lists its own frames, not the old ones, from its first
     * frame on (its creation leaves the folder as it was, so that a writer refused after the VTK writer
     * loses nothing). */
    assert_int_equal(eddy_output_create(dir, NULL, w, &o, &err), EDDY_OK);
    assert_int_equal(read_pvd(path_in(dir, "frames.pvd"), times, files, 16), 3);
    assert_int_equal(write_frame(o, w, 0, 0.0, &err), EDDY_OK);
    assert_int_equal(read_pvd(path_in(dir, "frames.pvd"), times, files, 16), 1);
    assert_true(times[0] == 0.0);
    eddy_output_destroy(o);
    eddy_world_destroy(w);
}

/* A resume trims probes.csv to the checkpoint's time whatever the length of its rows: a scene with
 * hundreds of probes writes rows of many kilobytes, which a fixed line buffer split, keeping the part
 * of a later row that began with a small number (a corrupt table). */
static void test_resume_trims_long_rows(void **state)
{
    (void)state;
    expected ex;
    eddy_world *w = make_frame_world(&ex);
    eddy_error err = {0};
    char dir[8192];
    snprintf(dir, sizeof dir, "%s/long_rows", g_root);
    eddy_output *o = NULL;
    assert_int_equal(eddy_output_create(dir, NULL, w, &o, &err), EDDY_OK);
    eddy_output_destroy(o);
    enum { PROBES = 1500 };
    size_t cap = 64 + PROBES * 16, hn = 0;
    char *header = malloc(cap);
    assert_non_null(header);
    hn += (size_t)snprintf(header + hn, cap - hn, "time,step,frame");
    for (int k = 0; k < PROBES; ++k) hn += (size_t)snprintf(header + hn, cap - hn, ",probe_%d", k);
    snprintf(header + hn, cap - hn, "\n");
    char *rows[4];
    for (int f = 0; f < 4; ++f) {
        rows[f] = malloc(cap);
        assert_non_null(rows[f]);
        size_t n = (size_t)snprintf(rows[f], cap, "%.17g,%d,%d", 0.125 * f, 10 * f, f);
        for (int k = 0; k < PROBES; ++k) n += (size_t)snprintf(rows[f] + n, cap - n, ",0.0%d", k % 10);
        snprintf(rows[f] + n, cap - n, "\n");
        assert_true(strlen(rows[f]) > 4096);
    }
    char *table = path_in(dir, "probes.csv");
    FILE *f = fopen(table, "w");
    assert_non_null(f);
    fputs(header, f);
    for (int k = 0; k < 4; ++k) fputs(rows[k], f);
    fclose(f);

    eddy_output_options opt = eddy_output_default_options();
    opt.resume = 1;
    opt.resume_time = 0.125;
    assert_int_equal(eddy_output_create(dir, &opt, w, &o, &err), EDDY_OK);
    FILE *t = NULL;
    assert_int_equal(eddy_output_open_table(o, "probes.csv", header, &t, &err), EDDY_OK);
    eddy_output_destroy(o);
    char *text = read_text(table);
    assert_non_null(text);
    size_t want_len = strlen(header) + strlen(rows[0]) + strlen(rows[1]);
    char *want = malloc(want_len + 1);
    assert_non_null(want);
    snprintf(want, want_len + 1, "%s%s%s", header, rows[0], rows[1]);
    assert_int_equal(strlen(text), want_len);
    assert_string_equal(text, want);
    free(want);
    free(text);
    for (int k = 0; k < 4; ++k) free(rows[k]);
    free(header);
    eddy_world_destroy(w);
}

static void test_unwritable_folder(void **state)
{
    (void)state;
    char *file = path_in(g_root, "plain_file");
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("not a folder\n", f);
    fclose(f);
    char dir[8192];
    snprintf(dir, sizeof dir, "%s/run/out", file);
    eddy_output *o = (eddy_output *)1;
    eddy_error err = {0};
    expected ex;
    eddy_world *w = make_frame_world(&ex);
    assert_int_equal(eddy_output_create(dir, NULL, w, &o, &err), EDDY_ERR_IO);
    assert_int_equal(err.code, EDDY_ERR_IO);
    assert_null(o);
    char want[8300];
    snprintf(want, sizeof want, "cannot create output folder '%s'", dir);
    if (!strstr(err.message, want)) fail_msg("message \"%s\" does not name the folder", err.message);

    /* Writing a frame into a folder that vanished names the file. */
    snprintf(dir, sizeof dir, "%s/frame.vtp", file);
    assert_int_equal(eddy_output_write_vtp(dir, w, 1.0f, &err), EDDY_ERR_IO);
    assert_non_null(strstr(err.message, dir));
    eddy_world_destroy(w);
}


/* ---------------------------------------------------------------------------------------------- */
/* 64-bit ids, halo copies and writers found by id                                                  */

/*
 * Ids above 2^32: the .vtp id array becomes UInt64 (and stays UInt32 below, test_vtp_fixture), the CSV
 * writes the whole id. The ids are 10^10 (k + 1) + k for the fixture's ids k, so that they keep their
 * order and values_for(id) gives the values the particles carry. The frames stay in
 * $EDDY_BINARY_DIR/test_output/vtp64 for check_vtp.py (CTest output_vtp_reader_64bit_ids).
 */
static void test_vtp_64bit_ids(void **state)
{
    (void)state;
    expected ex;
    eddy_world *w = make_frame_world(&ex);
    eddy_particles *p = &w->particles;
    eddy_error err = {0};
    uint64_t ids[NP];
    for (size_t i = 0; i < NP; ++i) ids[i] = 10000000000ull * (p->id[i] + 1) + p->id[i];
    assert_int_equal(eddy_particles_set_ids(p, ids, &err), EDDY_OK);
    for (size_t k = 0; k < NP; ++k) ex.id[k] = 10000000000ull * (ex.id[k] + 1) + ex.id[k];
    assert_true(ex.id[0] > UINT32_MAX);

    char dir[8192];
    snprintf(dir, sizeof dir, "%s/vtp64", g_root);
    static const char *const both[] = {"vtk", "csv"};
    eddy_output_options opt = eddy_output_default_options();
    opt.formats = both;
    opt.format_count = 2;
    eddy_output *o = NULL;
    assert_int_equal(eddy_output_create(dir, &opt, w, &o, &err), EDDY_OK);
    assert_int_equal(write_frame(o, w, 0, 0.0, &err), EDDY_OK);
    eddy_output_destroy(o);
    check_vtp(path_in(dir, "frames/frame_00000.vtp"), &ex);
    write_expected_json(path_in(dir, "expected.json"), &ex);

    char *text = read_text(path_in(dir, "frames/frame_00000.csv"));
    assert_non_null(text);
    char *save = NULL;
    strtok_r(text, "\n", &save); /* the header */
    for (size_t k = 0; k < NP; ++k) {
        char *line = strtok_r(NULL, "\n", &save);
        assert_non_null(line);
        char *end;
        unsigned long long id = strtoull(line, &end, 10);
        assert_int_equal(*end, ',');
        assert_true(id == ex.id[k]);
    }
    free(text);
    eddy_world_destroy(w);
}

/* Halo copies (another process's particles) are in no frame: the order, the count, the diagnostics
 * and the files hold the owned particles only. */
static void test_frame_skips_halo_copies(void **state)
{
    (void)state;
    expected ex;
    eddy_world *w = make_frame_world(&ex);
    eddy_particles *p = &w->particles;
    eddy_error err = {0};
    /* Mark the particles with ids 1 and 4 as halo copies; a gather recounts halo_count. */
    for (size_t i = 0; i < NP; ++i) p->flags[i] = p->id[i] == 1 || p->id[i] == 4 ? EDDY_PARTICLE_HALO : 0;
    uint32_t same[NP];
    for (uint32_t i = 0; i < NP; ++i) same[i] = i;
    assert_int_equal(eddy_particles_gather(p, same, NP, &err), EDDY_OK);
    assert_int_equal(p->halo_count, 2);

    eddy_frame f;
    assert_int_equal(eddy_frame_take(w, 3, &f, &err), EDDY_OK);
    assert_int_equal(f.count, NP - 2);
    assert_int_equal(f.index, 3);
    const uint64_t owned[NP - 2] = {0, 2, 3, 5};
    for (size_t k = 0; k < f.count; ++k) assert_true(p->id[f.order[k]] == owned[k]);
    eddy_diagnostics d;
    assert_int_equal(eddy_diagnostics_of_frame(&f, &d, &err), EDDY_OK);
    assert_int_equal(d.particles, NP - 2);
    char path[8192];
    snprintf(path, sizeof path, "%s/owned.vtp", g_root);
    eddy_frame_release(&f);
    assert_int_equal(eddy_output_write_vtp(path, w, SCALE, &err), EDDY_OK);
    char *xml = read_text(path);
    assert_non_null(strstr(xml, "NumberOfPoints=\"4\""));
    free(xml);
    eddy_world_destroy(w);
}

/* A writer component of the test's own, registered beside the built-ins: what output.c hands it. */
typedef struct recorder_log {
    int created, frames, destroyed;
    char dir[8192];
    char label[64];          /* its "label" parameter as seen at every frame (the scene freed by then) */
    double gain;
    uint64_t index;
    double time;
    size_t count;
    int vtp_before, csv_before; /* whether the vtk / csv writers had written this frame already */
    int order_by_id;
} recorder_log;

static recorder_log g_rec;

struct eddy_writer {
    const eddy_param_values *params;
    char dir[8192];
};

static int rec_create(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    (void)err;
    eddy_writer *wr = calloc(1, sizeof *wr);
    assert_non_null(wr);
    wr->params = setup->params;
    snprintf(wr->dir, sizeof wr->dir, "%s", setup->dir);
    g_rec.created++;
    snprintf(g_rec.dir, sizeof g_rec.dir, "%s", setup->dir);
    *out = wr;
    return EDDY_OK;
}

static int rec_write(eddy_writer *wr, const eddy_frame *f, eddy_error *err)
{
    (void)err;
    g_rec.frames++;
    const eddy_param_value *label = eddy_param_find_value(wr->params, "label");
    snprintf(g_rec.label, sizeof g_rec.label, "%s", label && label->string ? label->string : "(none)");
    g_rec.gain = eddy_param_get(wr->params, "gain", NAN);
    g_rec.index = f->index;
    g_rec.time = f->time;
    g_rec.count = f->count;
    char name[64];
    snprintf(name, sizeof name, "frames/frame_%05llu.vtp", (unsigned long long)f->index);
    g_rec.vtp_before = file_exists(path_in(wr->dir, name));
    snprintf(name, sizeof name, "frames/frame_%05llu.csv", (unsigned long long)f->index);
    g_rec.csv_before = file_exists(path_in(wr->dir, name));
    g_rec.order_by_id = 1;
    for (size_t k = 1; k < f->count; ++k)
        if (f->world->particles.id[f->order[k - 1]] >= f->world->particles.id[f->order[k]]) g_rec.order_by_id = 0;
    return EDDY_OK;
}

static void rec_destroy(eddy_writer *wr)
{
    g_rec.destroyed++;
    free(wr);
}

static const eddy_writer_vtable REC_VTABLE = {sizeof(eddy_writer_vtable), rec_create, rec_write, rec_destroy};
static const eddy_param_desc REC_PARAMS[] = {
    EDDY_PARAM_STRING_DESC("label", "none", 32, "A label the test reads back."),
    EDDY_PARAM_REAL_DESC("gain", 1.0, 0.0, 10.0, "1", "A number the test reads back."),
};
static const eddy_component REC_WRITER = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_WRITER,
    .id = "recorder",
    .version = "1.0.0",
    .description = "records what the host hands a writer",
    .params = REC_PARAMS,
    .param_count = 2,
    .vtable = &REC_VTABLE,
};

static const char REC_SCENE[] =
    "{\"name\": \"rec\", \"dimensions\": 3, \"solver\": \"none\",\n"
    " \"time\": {\"dt\": 0.001, \"end\": 0.1},\n"
    " \"world\": {\"smoothing_radius\": 0.04},\n"
    " \"container\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},\n"
    " \"materials\": [{\"name\": \"water\", \"rest_density\": 1000, \"particle_spacing\": 0.01}],\n"
    " \"fluids\": [{\"material\": \"water\", \"box\": {\"min\": [0, 0, 0], \"max\": [0.02, 0.02, 0.02]}}],\n"
    " \"output\": {\"format\": [\"vtk\", \"recorder\", \"csv\"],\n"
    "            \"writers\": {\"recorder\": {\"label\": \"%s\", \"gain\": %s}}}}\n";

static void test_writers_by_id(void **state)
{
    (void)state;
    expected ex;
    eddy_world *w = make_frame_world(&ex);
    eddy_error err = {0};
    eddy_registry *reg = NULL;
    assert_int_equal(eddy_services_registry(0, &reg, &err), EDDY_OK);
    assert_int_equal(eddy_registry_add_builtin(reg, &REC_WRITER, "test_output", &err), EDDY_OK);

    /* The writers the scene's output.format names, in its order, with output.writers.<id> parameters. */
    char text[2048];
    snprintf(text, sizeof text, REC_SCENE, "hello", "2.5");
    eddy_scene scene;
    if (eddy_scene_parse(text, "rec.json", NULL, 0, &scene, &err)) fail_msg("%s", err.message);
    assert_int_equal(scene.format_count, 3);
    const char *ids[3] = {scene.formats[0], scene.formats[1], scene.formats[2]};
    char dir[8192];
    snprintf(dir, sizeof dir, "%s/writers", g_root);
    eddy_output_options opt = eddy_output_default_options();
    opt.formats = ids;
    opt.format_count = 3;
    opt.registry = reg;
    opt.scene = &scene;
    memset(&g_rec, 0, sizeof g_rec);
    eddy_output *o = NULL;
    assert_int_equal(eddy_output_create(dir, &opt, w, &o, &err), EDDY_OK);
    eddy_scene_free(&scene); /* the writer's parameters outlive the scene */
    assert_int_equal(g_rec.created, 1);
    assert_string_equal(g_rec.dir, dir);
    assert_int_equal(eddy_output_writer_count(o), 3);
    assert_string_equal(eddy_output_writer_id(o, 1), "recorder");
    assert_int_equal(write_frame(o, w, 4, 0.75, &err), EDDY_OK);
    assert_int_equal(g_rec.frames, 1);
    assert_string_equal(g_rec.label, "hello");
    assert_true(g_rec.gain == 2.5);
    assert_true(g_rec.index == 4 && g_rec.time == 0.75 && g_rec.count == NP && g_rec.order_by_id);
    assert_true(g_rec.vtp_before);  /* "vtk" comes before it in output.format */
    assert_false(g_rec.csv_before); /* "csv" after it */
    assert_true(file_exists(path_in(dir, "frames/frame_00004.csv")));
    eddy_output_destroy(o);
    assert_int_equal(g_rec.destroyed, 1);

    /* No scene: the table's defaults. */
    static const char *const rec_only[] = {"recorder"};
    opt.formats = rec_only;
    opt.format_count = 1;
    opt.scene = NULL;
    assert_int_equal(eddy_output_create(dir, &opt, w, &o, &err), EDDY_OK);
    assert_int_equal(write_frame(o, w, 0, 0.0, &err), EDDY_OK);
    assert_string_equal(g_rec.label, "none");
    assert_true(g_rec.gain == 1.0);
    eddy_output_destroy(o);

    /* A bad parameter is the scene's error, naming the key. */
    snprintf(text, sizeof text, REC_SCENE, "hello", "20");
    if (eddy_scene_parse(text, "rec.json", NULL, 0, &scene, &err)) fail_msg("%s", err.message);
    opt.formats = ids;
    opt.format_count = 3;
    opt.scene = &scene;
    o = (eddy_output *)1;
    assert_int_not_equal(eddy_output_create(dir, &opt, w, &o, &err), EDDY_OK);
    assert_null(o);
    printf("  %s\n", err.message);
    assert_non_null(strstr(err.message, "output.writers.recorder.gain"));
    eddy_scene_free(&scene);

    /* An id no writer has: the error lists those there are. */
    static const char *const bad[] = {"vtk", "hdf5"};
    opt.formats = bad;
    opt.format_count = 2;
    opt.scene = NULL;
    assert_int_equal(eddy_output_create(dir, &opt, w, &o, &err), EDDY_ERR_NOT_FOUND);
    assert_string_equal(err.message, "unknown writer 'hdf5' (available: csv, recorder, vtk)");
    assert_null(o);

    eddy_registry_destroy(reg);
    eddy_world_destroy(w);
}

/* What a terminal is shown of a message (eddy_services_terminal_text): each control character but the
 * line break a space (C0, DEL, the two bytes of a UTF-8 C1 as one), and a cut that fits, marked "...",
 * never inside a UTF-8 character, and never emptied by bytes that are not UTF-8. */
static void test_terminal_text(void **state)
{
    (void)state;
    char out[64];
    assert_string_equal(eddy_services_terminal_text("a\033[2Jb\tc\x7f" "d\ne", out, sizeof out), "a [2Jb c d\ne");
    assert_string_equal(eddy_services_terminal_text("x\xc2\x9b" "2Jy", out, sizeof out), "x 2Jy");  /* U+009B */
    assert_string_equal(eddy_services_terminal_text("caf\xc3\xa9", out, sizeof out), "caf\xc3\xa9"); /* kept */
    char small[8];
    assert_string_equal(eddy_services_terminal_text("abcdefghij", small, sizeof small), "abcd...");
    /* "abc" then é (2 bytes): the cut at 4 bytes falls inside it, so the character goes whole */
    assert_string_equal(eddy_services_terminal_text("abc\xc3\xa9zzzz", small, sizeof small), "abc...");
    /* bytes that are not UTF-8 (Latin-1 text, a run of continuation bytes): cut where they are */
    assert_string_equal(eddy_services_terminal_text("\xa9\xa9\xa9\xa9\xa9\xa9\xa9\xa9\xa9", small, sizeof small),
                        "\xa9\xa9\xa9\xa9...");
    char tiny[2];
    assert_string_equal(eddy_services_terminal_text("ab", tiny, sizeof tiny), "a");
    assert_string_equal(eddy_services_terminal_text("", out, sizeof out), "");
}

/* A mistyped id gets the registered one it is a typo of (eddy_scene_nearest_id): at most 2 edits, 1
 * for ids of 3 characters or fewer, a swap of neighbours being one; nothing on a tie or when none is
 * near. */
static void test_nearest_id(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_registry *reg = NULL;
    assert_int_equal(eddy_services_registry(0, &reg, &err), EDDY_OK);
    assert_int_equal(eddy_registry_add_builtin(reg, &REC_WRITER, "test_output", &err), EDDY_OK);
    const char *w = EDDY_INTERFACE_WRITER;
    /* The "available:" list the host builds in the caller's buffer (eddy_scene_registry_ids) is the
     * core's (eddy_registry_ids), for every kind; cut with "..." when it does not fit. */
    char list[256], small[12];
    const char *kinds[] = {w, EDDY_INTERFACE_PROBE, EDDY_INTERFACE_GRID, EDDY_INTERFACE_SOLVER, NULL};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
        assert_string_equal(eddy_scene_registry_ids(reg, kinds[k], list, sizeof list), eddy_registry_ids(reg, kinds[k]));
    assert_string_equal(eddy_scene_registry_ids(reg, w, small, sizeof small), "csv, rec...");
    assert_string_equal(eddy_scene_nearest_id(reg, w, "cvs"), "csv");        /* a swap */
    assert_string_equal(eddy_scene_nearest_id(reg, w, "vtkk"), "vtk");       /* an insertion */
    assert_string_equal(eddy_scene_nearest_id(reg, w, "recrdr"), "recorder"); /* two deletions */
    assert_string_equal(eddy_scene_nearest_id(reg, w, "cs"), "csv");
    assert_null(eddy_scene_nearest_id(reg, w, "vx"));      /* 2 edits, for 2 characters */
    assert_null(eddy_scene_nearest_id(reg, w, "rcrdr"));   /* 3 edits */
    assert_null(eddy_scene_nearest_id(reg, w, "hdf5"));
    /* A word of one writer's description ("VTK XML PolyData frames ..."), 3 edits from every id. */
    assert_string_equal(eddy_scene_nearest_id(reg, w, "xml"), "vtk");
    assert_null(eddy_scene_nearest_id(reg, w, "vtsv"));    /* 2 from vtk and 2 from csv: a tie */
    /* Only the interface asked for; any with NULL. */
    assert_null(eddy_scene_nearest_id(reg, EDDY_INTERFACE_PROBE, "cvs"));
    assert_string_equal(eddy_scene_nearest_id(reg, EDDY_INTERFACE_PROBE, "hieght"), "height");
    assert_string_equal(eddy_scene_nearest_id(reg, NULL, "hieght"), "height");
    assert_null(eddy_scene_nearest_id(reg, NULL, "cpv")); /* cpu (a grid) and csv: a tie */
    char longer[80];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_null(eddy_scene_nearest_id(reg, NULL, longer));
    assert_null(eddy_scene_nearest_id(NULL, NULL, "csv"));

    /* In the message of a writer that output.format names, after the list: the scene's position. */
    static const char TYPO_SCENE[] =
        "{\"name\": \"rec\", \"dimensions\": 3, \"solver\": \"none\",\n"
        " \"time\": {\"dt\": 0.001, \"end\": 0.1},\n"
        " \"world\": {\"smoothing_radius\": 0.04},\n"
        " \"container\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},\n"
        " \"materials\": [{\"name\": \"water\", \"rest_density\": 1000, \"particle_spacing\": 0.01}],\n"
        " \"fluids\": [{\"material\": \"water\", \"box\": {\"min\": [0, 0, 0], \"max\": [0.02, 0.02, 0.02]}}],\n"
        " \"output\": {\"format\": [\"vtk\", \"cvs\"]}}\n";
    expected ex;
    eddy_world *world = make_frame_world(&ex);
    eddy_scene scene;
    if (eddy_scene_parse(TYPO_SCENE, "typo.json", NULL, 0, &scene, &err)) fail_msg("%s", err.message);
    const char *ids[2] = {scene.formats[0], scene.formats[1]};
    char dir[8192];
    snprintf(dir, sizeof dir, "%s/typo", g_root);
    eddy_output_options opt = eddy_output_default_options();
    opt.formats = ids;
    opt.format_count = 2;
    opt.registry = reg;
    opt.scene = &scene;
    eddy_output *o = (eddy_output *)1;
    assert_int_equal(eddy_output_create(dir, &opt, world, &o, &err), EDDY_ERR_NOT_FOUND);
    assert_null(o);
    /* line 7, column 31: the opening quote of "cvs" */
    assert_string_equal(err.message, "typo.json:7:31: output.format[1]: unknown writer 'cvs' (available: csv, recorder, "
                                     "vtk); did you mean 'csv'?");
    eddy_scene_free(&scene);
    /* Without a scene (the session API's formats), and nothing near: the message as it was. */
    static const char *const far[] = {"vtk", "hdf5"}, *const near[] = {"recordr"};
    opt.scene = NULL;
    opt.formats = far;
    assert_int_equal(eddy_output_create(dir, &opt, world, &o, &err), EDDY_ERR_NOT_FOUND);
    assert_string_equal(err.message, "unknown writer 'hdf5' (available: csv, recorder, vtk)");
    opt.formats = near;
    opt.format_count = 1;
    assert_int_equal(eddy_output_create(dir, &opt, world, &o, &err), EDDY_ERR_NOT_FOUND);
    assert_string_equal(err.message, "unknown writer 'recordr' (available: csv, recorder, vtk); did you mean 'recorder'?");
    eddy_registry_destroy(reg);
    eddy_world_destroy(world);
}

/* ---------------------------------------------------------------------------------------------- */
/* Diagnostics                                                                                      */

static eddy_world *two_particle_world(void)
{
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(3, &w, &err), EDDY_OK);
    eddy_material a = water(1000.0f, 2.0f), b = water(500.0f, 3.0f);
    assert_int_equal(eddy_world_add_material(w, &a, &err), EDDY_OK);
    assert_int_equal(eddy_world_add_material(w, &b, &err), EDDY_OK);
    const float pos[6] = {0, 0, 0, 1, 1, 1};
    const float v1[3] = {1, 2, 3}, v2[3] = {-1, 0, 0.5f};
    assert_int_equal(eddy_particles_add(&w->particles, 1, pos, v1, 0, NULL, &err), EDDY_OK);
    assert_int_equal(eddy_particles_add(&w->particles, 1, pos + 3, v2, 1, NULL, &err), EDDY_OK);
    w->particles.density[0] = 1250.0f; /* rho/rho0 - 1 = 0.25 */
    w->particles.density[1] = 250.0f;  /* rho/rho0 - 1 = -0.5 */
    return w;
}

static void test_diagnostics_by_hand(void **state)
{
    (void)state;
    eddy_world *w = two_particle_world();
    eddy_error err = {0};
    eddy_diagnostics d;
    assert_int_equal(eddy_diagnostics_compute(w, &d, &err), EDDY_OK);
    /* KE = 0.5*2*(1+4+9) + 0.5*3*(1+0+0.25) = 14 + 1.875; p = (2-3, 4+0, 6+1.5). */
    assert_true(d.kinetic_energy == 15.875);
    assert_true(d.momentum[0] == -1.0);
    assert_true(d.momentum[1] == 4.0);
    assert_true(d.momentum[2] == 7.5);
    assert_true(d.mass == 5.0);
    assert_true(d.density_error_mean == 0.375);
    assert_true(d.density_error_max == 0.5);
    assert_true(d.max_speed == sqrt(14.0));
    assert_true(d.density_error_p99 == 0.5);
    assert_int_equal(d.particles, 2);

    /* Independent of storage order, bit for bit. */
    const uint32_t swap[2] = {1, 0};
    assert_int_equal(eddy_particles_gather(&w->particles, swap, 2, &err), EDDY_OK);
    eddy_diagnostics e;
    assert_int_equal(eddy_diagnostics_compute(w, &e, &err), EDDY_OK);
    assert_memory_equal(&d, &e, sizeof d);

    /* A NaN velocity must show in max_speed, not vanish. */
    w->particles.vx[1] = NAN;
    assert_int_equal(eddy_diagnostics_compute(w, &e, &err), EDDY_OK);
    assert_true(isnan(e.max_speed));
    w->particles.vx[1] = 1.0f;

    /* A material index outside the table is reported, naming the particle. */
    w->particles.material[0] = 7;
    assert_int_equal(eddy_diagnostics_compute(w, &e, &err), EDDY_ERR_INVALID_ARGUMENT);
    char want[64];
    snprintf(want, sizeof want, "particle id %" PRIu64, w->particles.id[0]);
    assert_non_null(strstr(err.message, want));
    eddy_world_destroy(w);

    /* Empty world: zeros, no division by zero. */
    assert_int_equal(eddy_world_create(2, &w, &err), EDDY_OK);
    assert_int_equal(eddy_diagnostics_compute(w, &e, &err), EDDY_OK);
    assert_int_equal(e.particles, 0);
    assert_true(e.density_error_mean == 0.0 && e.kinetic_energy == 0.0);
    eddy_world_destroy(w);
}

static void test_order_by_id(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_particles p;
    assert_int_equal(eddy_particles_init(&p, 3, &err), EDDY_OK);
    enum { N = 1000 };
    static float pos[3 * N];
    assert_int_equal(eddy_particles_add(&p, N, pos, NULL, 0, NULL, &err), EDDY_OK);
    /* A fixed pseudo-random permutation (LCG Fisher-Yates). */
    static uint32_t perm[N];
    for (uint32_t i = 0; i < N; ++i) perm[i] = i;
    uint32_t s = 12345;
    for (uint32_t i = N - 1; i > 0; --i) {
        s = s * 1664525u + 1013904223u;
        uint32_t j = s % (i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    assert_int_equal(eddy_particles_gather(&p, perm, N, &err), EDDY_OK);
    uint32_t *order = eddy_order_by_id(&p);
    assert_non_null(order);
    for (size_t k = 0; k < N; ++k) assert_int_equal(p.id[order[k]], k);
    free(order);
    eddy_particles_free(&p);
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A sum over "processes" that are the same process: every count doubled, as two copies of the frame. */
static int sum_twice(void *ctx, int64_t *values, size_t count, eddy_error *err)
{
    (void)err;
    ++*(int *)ctx;
    for (size_t k = 0; k < count; ++k) values[k] *= 2;
    return EDDY_OK;
}

/*
 * The density error's quantile (diagnostics.h) against a sort of the same errors: the value of rank
 * ceil(q n), for several q and spreads of value (errors sharing their upper bytes, exact ties, zeros),
 * with the counts summed over two copies of the frame as a split run sums them (the same rank of 2n
 * values); NaN where one is; the mean's and maximum's neighbours are not it.
 */
static void test_density_error_quantile(void **state)
{
    (void)state;
    enum { N = 1003 };
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(3, &w, &err), EDDY_OK);
    eddy_material a = water(1000.0f, 1.0f);
    assert_int_equal(eddy_world_add_material(w, &a, &err), EDDY_OK);
    float pos[3 * N] = {0}, vel[3 * N] = {0};
    assert_int_equal(eddy_particles_add(&w->particles, N, pos, vel, 0, NULL, &err), EDDY_OK);
    uint32_t s = 12345u;
    for (int spread = 0; spread < 3; ++spread) {
        double e[N];
        for (size_t i = 0; i < N; ++i) {
            s = s * 1664525u + 1013904223u;
            /* 0: a wide spread; 1: densities within a few float steps (upper bytes shared); 2: ties and 0 */
            const float rho = spread == 0 ? 1000.0f * (0.5f + (float)(s >> 8) / 16777216.0f)
                            : spread == 1 ? 1000.0f + (float)((s >> 8) % 7) * 0.0625f
                                          : (s >> 8) % 3 == 0 ? 1000.0f : 1010.0f;
            w->particles.density[i] = rho;
            e[i] = fabs((double)rho / 1000.0 - 1.0);
        }
        qsort(e, N, sizeof e[0], compare_doubles);
        eddy_frame f;
        assert_int_equal(eddy_frame_of_host_copy(w, 0, &f, &err), EDDY_OK);
        const double qs[] = {1e-9, 0.5, 0.9, 0.99, 1.0};
        for (size_t k = 0; k < sizeof qs / sizeof qs[0]; ++k) {
            double got = -1, twice = -1;
            int rounds = 0;
            assert_int_equal(eddy_diagnostics_density_error_quantile(&f, qs[k], NULL, NULL, &got, &err), EDDY_OK);
            assert_int_equal(eddy_diagnostics_density_error_quantile(&f, qs[k], sum_twice, &rounds, &twice, &err),
                             EDDY_OK);
            size_t rank = (size_t)ceil(qs[k] * N), rank2 = (size_t)ceil(qs[k] * 2 * N);
            if (rank < 1) rank = 1;
            if (rank2 < 1) rank2 = 1;
            assert_true(got == e[rank - 1]);
            assert_true(twice == e[(rank2 - 1) / 2]); /* the sorted doubled list holds each value twice */
            assert_int_equal(rounds, 8);
        }
        eddy_diagnostics d;
        assert_int_equal(eddy_diagnostics_of_frame(&f, &d, &err), EDDY_OK);
        assert_true(d.density_error_p99 == e[(size_t)ceil(0.99 * N) - 1]);
        eddy_frame_release(&f);
    }
    w->particles.density[7] = NAN;
    eddy_frame f;
    assert_int_equal(eddy_frame_of_host_copy(w, 0, &f, &err), EDDY_OK);
    double got = 0;
    assert_int_equal(eddy_diagnostics_density_error_quantile(&f, 0.99, NULL, NULL, &got, &err), EDDY_OK);
    assert_true(isnan(got));
    eddy_frame_release(&f);
    eddy_world_destroy(w);
}

static void test_diagnostics_csv(void **state)
{
    (void)state;
    eddy_world *w = two_particle_world();
    eddy_error err = {0};
    eddy_diagnostics d;
    assert_int_equal(eddy_diagnostics_compute(w, &d, &err), EDDY_OK);
    char dir[8192];
    snprintf(dir, sizeof dir, "%s/diag", g_root);
    eddy_output *o = NULL;
    assert_int_equal(eddy_output_create(dir, NULL, w, &o, &err), EDDY_OK);
    assert_int_equal(eddy_output_write_diagnostics(o, &d, 0.0, 0, 0.0, &err), EDDY_OK);
    assert_int_equal(eddy_output_write_diagnostics(o, &d, 0.5, 1234, 56.75, &err), EDDY_OK);
    /* Flushed per row: readable while the writer is still open. */
    char *text = read_text(path_in(dir, "diagnostics.csv"));
    eddy_output_destroy(o);
    assert_non_null(text);
    char *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    assert_string_equal(line, "time,step,kinetic_energy,momentum_x,momentum_y,momentum_z,density_error_mean,"
                              "density_error_max,max_speed,wall_ms,particles,potential_energy,total_energy,density_error_p99");
    line = strtok_r(NULL, "\n", &save);
    assert_non_null(line);
    line = strtok_r(NULL, "\n", &save);
    assert_non_null(line);
    double v[14];
    char *s = line;
    for (int c = 0; c < 14; ++c) {
        v[c] = strtod(s, &s);
        assert_true(*s == (c < 13 ? ',' : '\0'));
        s++;
    }
    assert_true(v[0] == 0.5 && v[1] == 1234.0 && v[2] == 15.875);
    assert_true(v[3] == -1.0 && v[4] == 4.0 && v[5] == 7.5);
    assert_true(v[6] == 0.375 && v[7] == 0.5);
    assert_true(fabs(v[8] - sqrt(14.0)) < 1e-11);
    assert_true(v[9] == 56.75 && v[10] == 2.0);
    /* (the world has no gravity: no potential energy, the total is the kinetic energy) */
    assert_true(v[11] == 0.0 && v[12] == 15.875);
    /* the 99th percentile of the errors 0.25 and 0.5: rank ceil(0.99 * 2) = 2, the larger */
    assert_true(v[13] == 0.5);
    assert_null(strtok_r(NULL, "\n", &save));
    free(text);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------------------------------------- */
/* Pictures                                                                                         */

typedef struct rgb_image {
    int w, h;
    uint8_t *px;
} rgb_image;

static rgb_image read_png(const char *path)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) fail_msg("not a PNG: %s (%s)", path, img.message);
    assert_int_equal(img.format & PNG_FORMAT_FLAG_COLOR, PNG_FORMAT_FLAG_COLOR);
    img.format = PNG_FORMAT_RGB;
    rgb_image r = {(int)img.width, (int)img.height, malloc(PNG_IMAGE_SIZE(img))};
    assert_non_null(r.px);
    if (!png_image_finish_read(&img, NULL, r.px, 0, NULL)) fail_msg("cannot decode %s: %s", path, img.message);
    return r;
}

static const uint8_t *pixel(const rgb_image *im, double x, double y)
{
    int i = (int)floor(x), j = (int)floor(y);
    assert_true(i >= 0 && j >= 0 && i < im->w && j < im->h);
    return im->px + 3 * ((size_t)j * (size_t)im->w + (size_t)i);
}

static void assert_rgb(const uint8_t *p, int r, int g, int b)
{
    if (p[0] != r || p[1] != g || p[2] != b)
        fail_msg("pixel (%d, %d, %d), expected (%d, %d, %d)", p[0], p[1], p[2], r, g, b);
}

static void test_picture_2d(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(2, &w, &err), EDDY_OK);
    eddy_material m = water(1000.0f, 0.1f); /* spacing 0.01 */
    assert_int_equal(eddy_world_add_material(w, &m, &err), EDDY_OK);
    const float lo[3] = {0, 0, 0}, hi[3] = {2, 1, 0};
    assert_int_equal(eddy_world_set_container(w, lo, hi, NULL, &err), EDDY_OK);
    const float pos[6] = {0.5f, 0.25f, 0, 1.5f, 0.75f, 0};
    const float vel[6] = {0, 0, 0, 3, 4, 0}; /* speeds 0 and 5: the two ends of the colormap */
    assert_int_equal(eddy_particles_add(&w->particles, 2, pos, vel, 0, NULL, &err), EDDY_OK);
    w->time = 1.25;

    eddy_picture_options opt = eddy_picture_default_options();
    opt.width = 480;
    eddy_picture_layout L;
    assert_int_equal(eddy_picture_layout_compute(w, &opt, &L, &err), EDDY_OK);
    char *path = path_in(g_root, "picture.png");
    assert_int_equal(eddy_picture_write(path, w, &opt, &err), EDDY_OK);
    assert_no_tmp_files(g_root);
    rgb_image im = read_png(path);
    assert_int_equal(im.w, 480);
    assert_int_equal(im.h, L.height);
    /* The height follows the container's 2:1 aspect. */
    int pw = L.plot_x1 - L.plot_x0, ph = L.plot_y1 - L.plot_y0;
    assert_true(abs(2 * ph - pw) <= 2);
    assert_true(L.region_min[0] == 0.0f && L.region_max[0] == 2.0f);

    double s = L.pixels_per_unit;
    /* Slow particle: the colormap's low end (viridis' dark purple); fast one: its high end (yellow). */
    assert_rgb(pixel(&im, L.origin_x + 0.5 * s, L.origin_y - 0.25 * s), 68, 1, 84);
    assert_rgb(pixel(&im, L.origin_x + 1.5 * s, L.origin_y - 0.75 * s), 253, 231, 37);
    /* Background away from the particles. */
    assert_rgb(pixel(&im, L.origin_x + 1.0 * s, L.origin_y - 0.5 * s), 255, 255, 255);
    assert_rgb(pixel(&im, L.origin_x + 0.5 * s, L.origin_y - 0.75 * s), 255, 255, 255);
    /* x right, y up, found by scanning the pixels rather than through the layout: the slow particle
     * (x 0.5, y 0.25) is left of and below the fast one (x 1.5, y 0.75), at the ratio of the distances. */
    double cx[2] = {0, 0}, cy[2] = {0, 0}, cnt[2] = {0, 0};
    for (int y = L.plot_y0; y < L.plot_y1; ++y)
        for (int x = L.plot_x0; x < L.plot_x1; ++x) {
            const uint8_t *p = pixel(&im, x, y);
            int k = p[0] == 68 && p[1] == 1 && p[2] == 84 ? 0 : p[0] == 253 && p[1] == 231 && p[2] == 37 ? 1 : -1;
            if (k < 0) continue;
            cx[k] += x + 0.5;
            cy[k] += y + 0.5;
            cnt[k] += 1;
        }
    assert_true(cnt[0] > 0 && cnt[1] > 0);
    for (int k = 0; k < 2; ++k) cx[k] /= cnt[k], cy[k] /= cnt[k];
    assert_true(cx[1] > cx[0] && cy[1] < cy[0]);
    assert_true(fabs((cx[1] - cx[0]) - 2.0 * (cy[0] - cy[1])) < 1.0);
    /* The whole 2 x 1 container spans the plot width: 1 unit of x is half the plot width. */
    assert_true(fabs((cx[1] - cx[0]) - 0.5 * pw) < 1.5);
    /* The container outline is drawn just outside the box, in grey. */
    const uint8_t *edge = pixel(&im, L.origin_x + 1.0 * s, (double)lrint(L.origin_y - 1.0 * s) - 0.5);
    assert_true(edge[0] == edge[1] && edge[1] == edge[2] && edge[0] < 200);
    /* Something (the time stamp) is drawn in the top margin. */
    int ink = 0;
    for (int y = 0; y < L.plot_y0; ++y)
        for (int x = 0; x < im.w; ++x) ink += pixel(&im, x, y)[0] < 100;
    assert_true(ink > 20);
    /* The colour bar runs from yellow at the top to purple at the bottom, right of the plot. */
    int bar_x = -1;
    for (int x = L.plot_x1; x < im.w && bar_x < 0; ++x) {
        const uint8_t *p = pixel(&im, x, L.plot_y0);
        if (p[0] == 253 && p[1] == 231 && p[2] == 37) bar_x = x;
    }
    assert_true(bar_x > 0);
    assert_rgb(pixel(&im, bar_x, L.plot_y1 - 1), 68, 1, 84);
    free(im.px);

    /* A requested height is honoured, dark background included. */
    opt.height = 300;
    opt.dark = 1;
    opt.colorbar = 0;
    opt.show_time = 0;
    assert_int_equal(eddy_picture_write(path, w, &opt, &err), EDDY_OK);
    im = read_png(path);
    assert_int_equal(im.w, 480);
    assert_int_equal(im.h, 300);
    assert_int_equal(eddy_picture_layout_compute(w, &opt, &L, &err), EDDY_OK);
    const uint8_t *bg = pixel(&im, 1, 1);
    assert_true(bg[0] < 60 && bg[1] < 60 && bg[2] < 60);
    assert_rgb(pixel(&im, L.origin_x + 1.5 * L.pixels_per_unit, L.origin_y - 0.75 * L.pixels_per_unit), 253, 231, 37);
    free(im.px);

    /* Failures name the file. */
    char bad[8192];
    snprintf(bad, sizeof bad, "%s/no/such/folder/p.png", g_root);
    assert_int_equal(eddy_picture_write(bad, w, &opt, &err), EDDY_ERR_IO);
    assert_non_null(strstr(err.message, bad));
    opt.width = 3;
    assert_int_equal(eddy_picture_write(path, w, &opt, &err), EDDY_ERR_INVALID_ARGUMENT);
    eddy_world_destroy(w);
}

static void test_picture_depth_order(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(3, &w, &err), EDDY_OK);
    eddy_material m = water(1000.0f, 1.0f); /* spacing 0.1 */
    assert_int_equal(eddy_world_add_material(w, &m, &err), EDDY_OK);
    /* Same x, y; the near one (z = 0.9) is fast, the far one (z = 0.1) slow. The far one comes later
     * in storage and id, so only a depth sort draws the near one on top. No container: the frame is
     * the particle bounds. A third particle sets the x-y extent. */
    const float pos[9] = {0.5f, 0.5f, 0.9f, 0.5f, 0.5f, 0.1f, 1.0f, 1.0f, 0.5f};
    const float vel[9] = {2, 0, 0, 0, 0, 0, 1, 0, 0};
    assert_int_equal(eddy_particles_add(&w->particles, 3, pos, vel, 0, NULL, &err), EDDY_OK);
    eddy_picture_options opt = eddy_picture_default_options();
    char *path = path_in(g_root, "depth.png");
    assert_int_equal(eddy_picture_write(path, w, &opt, &err), EDDY_OK);
    eddy_picture_layout L;
    assert_int_equal(eddy_picture_layout_compute(w, &opt, &L, &err), EDDY_OK);
    rgb_image im = read_png(path);
    assert_int_equal(im.w, 960);
    assert_int_equal(im.h, L.height);
    /* The frame is the particle bounds widened by half a spacing. */
    assert_true(fabsf(L.region_min[0] - 0.45f) < 1e-6f && fabsf(L.region_max[1] - 1.05f) < 1e-6f);
    double s = L.pixels_per_unit;
    assert_rgb(pixel(&im, L.origin_x + 0.5 * s, L.origin_y - 0.5 * s), 253, 231, 37);
    /* Disc radius: half the spacing, 0.05 units, so a point 0.04 away is covered, 0.07 away is not. */
    assert_rgb(pixel(&im, L.origin_x + 0.54 * s, L.origin_y - 0.5 * s), 253, 231, 37);
    assert_rgb(pixel(&im, L.origin_x + 0.57 * s, L.origin_y - 0.5 * s), 255, 255, 255);
    free(im.px);
    eddy_world_destroy(w);
}

static void test_colormap(void **state)
{
    (void)state;
    uint8_t a[3], b[3];
    eddy_picture_colormap(0.0f, a);
    assert_rgb(a, 68, 1, 84);
    eddy_picture_colormap(1.0f, a);
    assert_rgb(a, 253, 231, 37);
    eddy_picture_colormap(-3.0f, b);
    assert_rgb(b, 68, 1, 84);
    eddy_picture_colormap(NAN, b);
    assert_rgb(b, 68, 1, 84);
    /* Perceptual: luminance rises monotonically along the map. */
    double last = -1.0;
    for (int k = 0; k <= 64; ++k) {
        eddy_picture_colormap((float)k / 64.0f, a);
        double y = 0.2126 * a[0] + 0.7152 * a[1] + 0.0722 * a[2];
        assert_true(y > last);
        last = y;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vtp_fixture),
        cmocka_unit_test(test_vtp_explicit_scale_and_empty_world),
        cmocka_unit_test(test_vtp_frame_clock),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_pvd_series),
        cmocka_unit_test(test_resume_trims_long_rows),
        cmocka_unit_test(test_unwritable_folder),
        cmocka_unit_test(test_vtp_64bit_ids),
        cmocka_unit_test(test_frame_skips_halo_copies),
        cmocka_unit_test(test_writers_by_id),
        cmocka_unit_test(test_terminal_text), cmocka_unit_test(test_nearest_id),
        cmocka_unit_test(test_diagnostics_by_hand),
        cmocka_unit_test(test_order_by_id),
        cmocka_unit_test(test_diagnostics_csv),
        cmocka_unit_test(test_density_error_quantile),
        cmocka_unit_test(test_picture_2d),
        cmocka_unit_test(test_picture_depth_order),
        cmocka_unit_test(test_colormap),
    };
    return cmocka_run_group_tests(tests, setup_root, teardown_root);
}
