/*
 * Overlapped output (host/observe/output.h, overlap = 1) against the synchronous path: the same frames
 * handed to two outputs, one writing on its writer thread, one on the caller's, must leave the same
 * files byte for byte, even though the caller re-sorts and overwrites the particles (as the next steps
 * would) the moment eddy_output_write_frame returns. A plugin's writer stays on the calling thread, in
 * order; a write error of the thread comes back naming the file, at the next frame or at the drain, and
 * the series never names a frame that is not complete.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first. */
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame.h"
#include "output.h"
#include "services.h"
#include "sim_support.h"
#include "writers_builtin.h"

static char g_root[4096];

static int setup_root(void **state)
{
    (void)state;
    const char *bin = getenv("EDDY_BINARY_DIR");
    snprintf(g_root, sizeof g_root, "%s/test_output_async", bin && *bin ? bin : "/tmp");
    support_remove_tree(g_root);
    return mkdir(g_root, 0777) == 0 ? 0 : -1;
}

static const char *dir_of(const char *name)
{
    static char buf[4][4200];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_root, name);
    return buf[k];
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)len + 1);
    assert_non_null(s);
    *n = fread(s, 1, (size_t)len, f);
    s[*n] = '\0';
    fclose(f);
    return s;
}

/* Every file under a (recursively) exists under b with the same bytes, and b has no other file. */
static int compare_trees(const char *a, const char *b)
{
    int files = 0;
    DIR *d = opendir(a);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char pa[4400], pb[4400];
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
        struct stat st;
        assert_int_equal(stat(pa, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            files += compare_trees(pa, pb);
            continue;
        }
        size_t na = 0, nb = 0;
        char *sa = slurp(pa, &na), *sb = slurp(pb, &nb);
        if (!sb) fail_msg("%s has no counterpart %s", pa, pb);
        if (na != nb || memcmp(sa, sb, na) != 0) fail_msg("%s and %s differ", pa, pb);
        free(sa);
        free(sb);
        files++;
    }
    closedir(d);
    /* and nothing more in b */
    int other = 0;
    d = opendir(b);
    assert_non_null(d);
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') other++;
    closedir(d);
    d = opendir(a);
    int mine = 0;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') mine++;
    closedir(d);
    assert_int_equal(other, mine);
    return files;
}

/* ---------------------------------------------------------------------------------------------- */
/* A world of N particles with registered fields, whose values at frame k are a function of (id, k).  */

enum { N = 20000 };

static eddy_world *make_world(void)
{
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(3, &w, &err), EDDY_OK);
    w->simulation_scale = 2.0f;
    eddy_particles *p = &w->particles;
    float *pos = calloc(3 * N, sizeof *pos);
    assert_non_null(pos);
    assert_int_equal(eddy_particles_add(p, N / 2, pos, NULL, 0, NULL, &err), EDDY_OK);
    assert_int_equal(eddy_particles_add(p, N - N / 2, pos, NULL, 1, NULL, &err), EDDY_OK);
    free(pos);
    int f = -1;
    assert_int_equal(eddy_particles_add_field(p, "vorticity", 3, &f, &err), EDDY_OK);
    assert_int_equal(eddy_particles_add_field(p, "lambda", 1, &f, &err), EDDY_OK);
    return w;
}

/* Frame k's values (bit patterns that differ per id, component and frame), or garbage (k < 0). */
static void set_values(eddy_world *w, int k)
{
    eddy_particles *p = &w->particles;
    for (size_t i = 0; i < p->count; ++i) {
        const float b = k < 0 ? -1e30f : (float)p->id[i] * 0.001f + (float)k;
        p->x[i] = b + 0.1f, p->y[i] = b + 0.2f, p->z[i] = b + 0.3f;
        p->vx[i] = -b, p->vy[i] = b * 0.5f, p->vz[i] = b * 0.25f;
        p->density[i] = 1000.0f + b;
        p->pressure[i] = b * 3.0f;
        for (int id = EDDY_BUILTIN_FIELD_COUNT; id < eddy_particles_field_count(p); ++id)
            for (int c = 0; c < eddy_particles_field_components(p, id); ++c)
                eddy_particles_field(p, id, c)[i] = b * (float)(id + c);
    }
}

/* A storage order other than id order, different each call (what the grid's sort does to a world). */
static void shuffle(eddy_world *w, unsigned seed)
{
    eddy_particles *p = &w->particles;
    uint32_t *o = malloc(sizeof *o * p->count);
    assert_non_null(o);
    for (size_t i = 0; i < p->count; ++i) o[i] = (uint32_t)i;
    for (size_t i = p->count - 1; i > 0; --i) {
        seed = seed * 1103515245u + 12345u;
        size_t j = (seed >> 8) % (i + 1);
        uint32_t t = o[i];
        o[i] = o[j];
        o[j] = t;
    }
    eddy_error err = {0};
    assert_int_equal(eddy_particles_gather(p, o, p->count, &err), EDDY_OK);
    free(o);
}

/* ---------------------------------------------------------------------------------------------- */
/* A plugin's writer: records the thread and order of its calls.                                  */

static struct {
    pthread_t thread[16];
    uint64_t index[16];
    int calls;
    int vtp_on_disk; /* frames whose .vtp existed when the plugin was called (overlap: not waited for) */
} g_plugin;

struct eddy_writer {
    int unused;
};

static int plug_create(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    (void)setup, (void)err;
    *out = calloc(1, sizeof **out);
    return *out ? EDDY_OK : EDDY_ERR_OUT_OF_MEMORY;
}

static int plug_write(eddy_writer *wr, const eddy_frame *f, eddy_error *err)
{
    (void)wr, (void)err;
    if (g_plugin.calls < 16) {
        g_plugin.thread[g_plugin.calls] = pthread_self();
        g_plugin.index[g_plugin.calls] = f->index;
    }
    g_plugin.calls++;
    return EDDY_OK;
}

static void plug_destroy(eddy_writer *wr)
{
    free(wr);
}

static const eddy_writer_vtable PLUG_VTABLE = {sizeof(eddy_writer_vtable), plug_create, plug_write, plug_destroy};
static const eddy_component PLUG_WRITER = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_WRITER,
    .id = "plug",
    .version = "1.0.0",
    .description = "records the thread it is called on",
    .vtable = &PLUG_VTABLE,
};

/* Writes frames 0..frames-1 of `w` through an output into DIR; after each write_frame the particles
 * are re-sorted and overwritten, as the steps after a frame would. */
static void write_run(eddy_world *w, const char *dir, int overlap, int pieces, eddy_registry *reg, int frames)
{
    static const char *const formats[] = {"vtk", "plug", "csv"};
    eddy_output_options opt = eddy_output_default_options();
    opt.formats = formats;
    opt.format_count = 3;
    opt.registry = reg;
    opt.overlap = overlap;
    opt.pieces = pieces;
    eddy_output *o = NULL;
    eddy_error err = {0};
    assert_int_equal(eddy_output_create(dir, &opt, w, &o, &err), EDDY_OK);
    assert_int_equal(eddy_output_overlaps(o), overlap);
    for (int k = 0; k < frames; ++k) {
        shuffle(w, 17u + (unsigned)k);
        set_values(w, k);
        w->time = 0.01 * k;
        w->step = (uint64_t)(10 * k);
        eddy_frame f;
        assert_int_equal(eddy_frame_of_host_copy(w, (uint64_t)k, &f, &err), EDDY_OK);
        if (eddy_output_write_frame(o, &f, &err)) fail_msg("frame %d: %s", k, err.message);
        eddy_frame_release(&f);
        shuffle(w, 1000u + (unsigned)k);
        set_values(w, -1);
    }
    if (eddy_output_drain(o, &err)) fail_msg("drain: %s", err.message);
    eddy_output_destroy(o);
}

static eddy_registry *registry_with_plugin(void)
{
    eddy_error err = {0};
    eddy_registry *reg = NULL;
    assert_int_equal(eddy_services_registry(0, &reg, &err), EDDY_OK);
    assert_int_equal(eddy_registry_add_builtin(reg, &PLUG_WRITER, "test_output_async", &err), EDDY_OK);
    return reg;
}

static void test_same_files_as_synchronous(void **state)
{
    (void)state;
    eddy_registry *reg = registry_with_plugin();
    eddy_world *w = make_world();
    write_run(w, dir_of("sync"), 0, 1, reg, 5);
    memset(&g_plugin, 0, sizeof g_plugin);
    write_run(w, dir_of("overlap"), 1, 1, reg, 5);
    /* frames 0-4 as .vtp and .csv, and frames.pvd */
    assert_int_equal(compare_trees(dir_of("sync"), dir_of("overlap")), 5 * 2 + 2);
    /* The plugin: on this thread, once per frame, in order. */
    assert_int_equal(g_plugin.calls, 5);
    for (int k = 0; k < 5; ++k) {
        assert_true(pthread_equal(g_plugin.thread[k], pthread_self()));
        assert_int_equal(g_plugin.index[k], (uint64_t)k);
    }
    eddy_world_destroy(w);
    eddy_registry_destroy(reg);
}

/* Several processes, piece 0: the .pvtp (field table only, no particle) comes from the thread too. */
static void test_pvtp_same_as_synchronous(void **state)
{
    (void)state;
    eddy_registry *reg = registry_with_plugin();
    eddy_world *w = make_world();
    write_run(w, dir_of("sync_pieces"), 0, 2, reg, 3);
    write_run(w, dir_of("overlap_pieces"), 1, 2, reg, 3);
    assert_int_equal(compare_trees(dir_of("sync_pieces"), dir_of("overlap_pieces")), 3 * 2 + 2);
    size_t n = 0;
    char *pvd = slurp(dir_of("overlap_pieces/frames.pvd"), &n);
    assert_non_null(strstr(pvd, "frames/frame_00002.pvtp"));
    free(pvd);
    eddy_world_destroy(w);
    eddy_registry_destroy(reg);
    eddy_builtin_writers_set_pieces(1);
}

/* ---------------------------------------------------------------------------------------------- */
/* Write errors: frame_00001.vtp.tmp is a link to /dev/full, so frame 1's file fails at its flush.   */

static int write_with_full_disk(const char *dir, int overlap, int frames, eddy_error *first_err, int *at_frame)
{
    eddy_error err = {0};
    char frames_dir[4400], link[4480];
    snprintf(frames_dir, sizeof frames_dir, "%s/frames", dir);
    assert_int_equal(eddy_output_make_dirs(frames_dir, &err), EDDY_OK);
    snprintf(link, sizeof link, "%s/frame_00001.vtp.tmp", frames_dir);
    assert_int_equal(symlink("/dev/full", link), 0);
    eddy_world *w = make_world();
    eddy_output_options opt = eddy_output_default_options();
    opt.overlap = overlap;
    eddy_output *o = NULL;
    assert_int_equal(eddy_output_create(dir, &opt, w, &o, &err), EDDY_OK);
    int rc = EDDY_OK;
    *at_frame = -1;
    for (int k = 0; k < frames && !rc; ++k) {
        set_values(w, k);
        w->time = 0.01 * k;
        eddy_frame f;
        assert_int_equal(eddy_frame_of_host_copy(w, (uint64_t)k, &f, &err), EDDY_OK);
        rc = eddy_output_write_frame(o, &f, first_err);
        eddy_frame_release(&f);
        if (rc) *at_frame = k;
    }
    if (!rc && (rc = eddy_output_drain(o, first_err))) *at_frame = frames;
    /* Reported once: the drain after it has nothing more to say. */
    assert_int_equal(eddy_output_drain(o, &err), EDDY_OK);
    eddy_output_destroy(o);
    eddy_world_destroy(w);
    return rc;
}

static void check_error_left(const char *dir, const eddy_error *err)
{
    char want[4600];
    snprintf(want, sizeof want, "cannot write '%s/frames/frame_00001.vtp': No space left on device", dir);
    assert_string_equal(err->message, want);
    assert_int_equal(err->code, EDDY_ERR_IO);
    /* frame 0 stays, frame 1 is neither on disk nor in the series */
    char path[4600];
    struct stat st;
    snprintf(path, sizeof path, "%s/frames/frame_00000.vtp", dir);
    assert_int_equal(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/frames/frame_00001.vtp", dir);
    assert_int_not_equal(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/frames.pvd", dir);
    size_t n = 0;
    char *pvd = slurp(path, &n);
    assert_non_null(pvd);
    assert_non_null(strstr(pvd, "frame_00000.vtp"));
    assert_null(strstr(pvd, "frame_00001.vtp"));
    free(pvd);
}

static void test_write_error_at_next_frame(void **state)
{
    (void)state;
    eddy_error sync_err = {0}, async_err = {0};
    int sync_at = 0, async_at = 0;
    const char *ds = dir_of("full_sync"), *da = dir_of("full_overlap");
    assert_int_equal(write_with_full_disk(ds, 0, 4, &sync_err, &sync_at), EDDY_ERR_IO);
    assert_int_equal(write_with_full_disk(da, 1, 4, &async_err, &async_at), EDDY_ERR_IO);
    /* The synchronous path reports it at frame 1; the thread's error comes with frame 2. */
    assert_int_equal(sync_at, 1);
    assert_int_equal(async_at, 2);
    check_error_left(ds, &sync_err);
    check_error_left(da, &async_err);
}

static void test_write_error_at_drain(void **state)
{
    (void)state;
    eddy_error e = {0};
    int at = 0;
    const char *d = dir_of("full_last");
    /* Frame 1 is the last one: only the drain can report it. */
    assert_int_equal(write_with_full_disk(d, 1, 2, &e, &at), EDDY_ERR_IO);
    assert_int_equal(at, 2);
    check_error_left(d, &e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_files_as_synchronous),
        cmocka_unit_test(test_pvtp_same_as_synchronous),
        cmocka_unit_test(test_write_error_at_next_frame),
        cmocka_unit_test(test_write_error_at_drain),
    };
    if (setup_root(NULL)) return 1;
    return support_run_tests("test_output_async", argc, argv, tests, sizeof tests / sizeof tests[0]);
}
