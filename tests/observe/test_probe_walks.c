/*
 * "front" and "height" over parts of the particles (host/observe/probes.c eddy_probes_measure_walks,
 * host/observe/probes_builtin.c): random particle sets split at random into K parts, each part one
 * "process" (a thread; the processes' integer sums are a barrier and a shared accumulator), must give
 * bit for bit the values of the whole set measured by one process (eddy_probes_measure), and both must
 * equal the walk as it was written before the split existed: the dense bins of the whole set in id
 * order, copied below from host/observe/probes_builtin.c (connected_reach, measure_front,
 * measure_height of commit c117429), an implementation independent of the bins' merge.
 *
 * The sets hold what can make a split differ: equal coordinates on the walk's axis (a lattice column:
 * the top particle is the smaller id, whose material's rest spacing the value adds, and the two
 * materials differ), coordinates exactly max_gap apart (the "> gap" edge), gaps that stop the walk,
 * droplets far ahead (bins spread wider than twice their count: the merge sorts instead of indexing),
 * coordinates beyond the N + 1 bins the walk reads, NaN and infinite coordinates (left out), -0, empty
 * parts, a part of one particle, and parts visited in shuffled order rather than by id. Some walks
 * measure one material of the two (`material`): the oracle then leaves the other's particles out.
 *
 * `test_probe_walks --bench N [REPS]` prints figures instead: the one-process time of the walks on a
 * jittered block of N particles, old dense walk against the bins, and the words the exchange sums.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <eddy/eddy.h>

#include "frame.h"
#include "probes.h"
#include "probes_builtin.h"
#include "scene.h"
#include "services.h"
#include "test_rng.h"

/* ---------------------------------------------------------------------------------------------- */
/* The probes: a table, and the scene that declares them                                          */
/* ---------------------------------------------------------------------------------------------- */

typedef struct walk_spec {
    int height;              /* 0: front */
    const char *axis;        /* "x", "-y", ... */
    double at[3];            /* height */
    double width, max_gap;   /* world units; 0: default (the smoothing radius) */
    int material;            /* -1: every material; else the index of "water" (0) or "oil" (1) */
} walk_spec;

static const char *const MATERIALS[] = {"water", "oil"};

static const walk_spec WALKS_2D[] = {
    {0, "x", {0}, 0, 0, -1},
    {0, "-x", {0}, 0, 0, -1},
    {0, "y", {0}, 0, 0.005, -1},
    {0, "-y", {0}, 0, 0.1, -1},
    {0, "x", {0}, 0, 0.02, -1},
    {1, "y", {0.3, 0, 0}, 0, 0, -1},
    {1, "-y", {0.5, 0.5, 0}, 0.1, 0, -1},
    {1, "x", {0, 0.2, 0}, 0.05, 0.03, -1},
    {1, "y", {0.25, -0.1, 0}, 0.3, 0.02, -1},
    {1, "y", {0.1, 0.1, 0}, 0.02, 0.01, -1},
    /* one material: its own start, bins and top */
    {0, "x", {0}, 0, 0, 1},
    {0, "-y", {0}, 0, 0.02, 0},
    {1, "y", {0.3, 0, 0}, 0, 0, 0},
    {1, "x", {0, 0.2, 0}, 0.05, 0.03, 1},
};

static const walk_spec WALKS_3D[] = {
    {0, "z", {0}, 0, 0, -1},
    {0, "-x", {0}, 0, 0.02, -1},
    {1, "y", {0.2, 0, 0.1}, 0.05, 0, -1},
    {1, "-z", {0.1, 0.1, 0.3}, 0.1, 0.03, -1},
    {0, "-z", {0}, 0, 0, 0},
    {1, "y", {0.2, 0, 0.1}, 0.05, 0.02, 1},
};

/* World units; simulation_scale 2 (a missed conversion reads twice or half), h = 0.04, two materials
 * of different rest spacing. */
static const char *const SCENE =
    "{\n"
    "  \"name\": \"walks\", \"dimensions\": %d, \"solver\": \"sph_mueller\",\n"
    "  \"time\": {\"dt\": 0.001, \"end\": 0.1},\n"
    "  \"world\": {\"gravity\": [0, -9.81%s], \"smoothing_radius\": 0.04, \"simulation_scale\": 2},\n"
    "  \"container\": {\"min\": [0, 0%s], \"max\": [1, 0.5%s]},\n"
    "  \"materials\": [{\"name\": \"water\", \"rest_density\": 1000, \"particle_spacing\": 0.01},\n"
    "                {\"name\": \"oil\", \"rest_density\": 900, \"particle_spacing\": 0.016}],\n"
    "  \"fluids\": [{\"material\": \"water\", \"box\": {\"min\": [0, 0%s], \"max\": [0.02, 0.02%s]}}],\n"
    "  \"probes\": [%s]\n"
    "}\n";

static const double SCALE = 2.0;

static eddy_registry *registry(void)
{
    static eddy_registry *reg;
    eddy_error err;
    if (!reg && eddy_services_registry(1, &reg, &err)) fail_msg("%s", err.message);
    return reg;
}

typedef struct fixture {
    int dims;
    const walk_spec *spec;
    size_t nspec;
    eddy_scene scene;
    eddy_probes *probes;
} fixture;

static void open_fixture(fixture *f, int dims)
{
    memset(f, 0, sizeof *f);
    f->dims = dims;
    f->spec = dims == 2 ? WALKS_2D : WALKS_3D;
    f->nspec = dims == 2 ? sizeof WALKS_2D / sizeof WALKS_2D[0] : sizeof WALKS_3D / sizeof WALKS_3D[0];
    char probes[4096] = "", one[256];
    for (size_t k = 0; k < f->nspec; ++k) {
        const walk_spec *s = &f->spec[k];
        int n = snprintf(one, sizeof one, "%s{\"kind\": \"%s\", \"axis\": \"%s\"", k ? ", " : "",
                         s->height ? "height" : "front", s->axis);
        if (s->height && dims == 2)
            n += snprintf(one + n, sizeof one - (size_t)n, ", \"at\": [%g, %g]", s->at[0], s->at[1]);
        if (s->height && dims == 3)
            n += snprintf(one + n, sizeof one - (size_t)n, ", \"at\": [%g, %g, %g]", s->at[0], s->at[1], s->at[2]);
        if (s->width > 0) n += snprintf(one + n, sizeof one - (size_t)n, ", \"width\": %g", s->width);
        if (s->max_gap > 0) n += snprintf(one + n, sizeof one - (size_t)n, ", \"max_gap\": %g", s->max_gap);
        if (s->material >= 0)
            n += snprintf(one + n, sizeof one - (size_t)n, ", \"material\": \"%s\"", MATERIALS[s->material]);
        snprintf(one + n, sizeof one - (size_t)n, "}");
        strncat(probes, one, sizeof probes - strlen(probes) - 1);
    }
    const char *z = dims == 3 ? ", 0" : "", *zmax = dims == 3 ? ", 0.4" : "", *zb = dims == 3 ? ", 0.02" : "";
    char text[8192];
    snprintf(text, sizeof text, SCENE, dims, z, z, zmax, z, zb, probes);
    eddy_error err;
    if (eddy_scene_parse(text, "walks.json", NULL, 0, &f->scene, &err)) fail_msg("%s", err.message);
    if (eddy_probes_parse(&f->scene, registry(), &f->probes, &err)) fail_msg("%s", err.message);
}

static void close_fixture(fixture *f)
{
    eddy_probes_destroy(f->probes);
    eddy_scene_free(&f->scene);
}

/* ---------------------------------------------------------------------------------------------- */
/* The walk as one process measured it before the split (commit c117429), on the whole set         */
/* ---------------------------------------------------------------------------------------------- */

static const float *coord(const eddy_particles *p, int axis)
{
    return axis == 0 ? p->x : axis == 1 ? p->y : p->z;
}

static double half_spacing(const eddy_world *w, size_t i)
{
    return 0.5 * (double)w->materials[w->particles.material[i]].particle_dist;
}

typedef struct column {
    int use;
    double c[3], half_width;
} column;

static long long connected_reach(const eddy_frame *fr, int axis, int sign, double start, double gap,
                                 const column *col, int material, float *bmin, float *bmax, uint32_t *btop, double *reach_out)
{
    const eddy_world *w = fr->world;
    const eddy_particles *p = &w->particles;
    const float *u_arr = coord(p, axis);
    const size_t n = fr->count, nb = n + 1;
    for (size_t b = 0; b < nb; ++b) {
        bmin[b] = INFINITY;
        bmax[b] = -INFINITY;
        btop[b] = UINT32_MAX;
    }
    for (size_t o = 0; o < n; ++o) {
        const size_t i = fr->order[o];
        if (material >= 0 && p->material[i] != (uint32_t)material) continue;
        double u = sign * (double)u_arr[i];
        if (!isfinite(u) || u < start) continue;
        if (col->use) {
            int inside = 1;
            for (int b = 0; b < w->dimensions && inside; ++b) {
                if (b == axis) continue;
                double d = (double)coord(p, b)[i] - col->c[b];
                inside = fabs(d) <= col->half_width;
            }
            if (!inside) continue;
        }
        double k = floor((u - start) / gap);
        if (!(k < (double)nb)) continue;
        size_t b = (size_t)k;
        float uf = (float)u;
        if (uf < bmin[b]) bmin[b] = uf;
        if (uf > bmax[b] || (uf == bmax[b] && p->id[i] < p->id[btop[b]])) {
            bmax[b] = uf;
            btop[b] = (uint32_t)i;
        }
    }
    double reach = start;
    long long top = -1;
    for (size_t b = 0; b < nb; ++b) {
        if (btop[b] == UINT32_MAX) continue;
        if ((double)bmin[b] - reach > gap) break;
        reach = bmax[b];
        top = btop[b];
    }
    *reach_out = reach;
    return top;
}

static double oracle(const walk_spec *s, const eddy_frame *fr)
{
    const eddy_world *w = fr->world;
    const int sign = s->axis[0] == '-' ? -1 : 1, axis = s->axis[sign < 0] - 'x';
    const double scale = w->simulation_scale;
    const double gap = s->max_gap > 0 ? s->max_gap * scale : (double)w->smoothing_radius;
    const size_t nb = fr->count + 1;
    float *bmin = malloc(nb * sizeof *bmin), *bmax = malloc(nb * sizeof *bmax);
    uint32_t *btop = malloc(nb * sizeof *btop);
    assert_non_null(bmin), assert_non_null(bmax), assert_non_null(btop);
    double value, reach;
    if (!s->height) {
        const float *u_arr = coord(&w->particles, axis);
        double start = INFINITY;
        for (size_t o = 0; o < fr->count; ++o) {
            const size_t i = fr->order[o];
            double u = sign * (double)u_arr[i];
            if (isfinite(u) && u < start && (s->material < 0 || w->particles.material[i] == (uint32_t)s->material))
                start = u;
        }
        if (!isfinite(start)) {
            value = NAN;
        } else {
            column none = {0, {0, 0, 0}, 0};
            long long top = connected_reach(fr, axis, sign, start, gap, &none, s->material, bmin, bmax, btop, &reach);
            value = sign * (reach + half_spacing(w, (size_t)top)) / scale + 0.0;
        }
    } else {
        /* as the probe keeps them: float world units */
        const float at[3] = {(float)s->at[0], (float)s->at[1], (float)s->at[2]};
        column col = {1, {at[0] * scale, at[1] * scale, at[2] * scale},
                      s->width > 0 ? s->width * scale : (double)w->smoothing_radius};
        double start = sign * (double)at[axis] * scale;
        long long top = connected_reach(fr, axis, sign, start, gap, &col, s->material, bmin, bmax, btop, &reach);
        value = top < 0 ? 0.0 : (reach + half_spacing(w, (size_t)top) - start) / scale;
    }
    free(bmin);
    free(bmax);
    free(btop);
    return value;
}

/* ---------------------------------------------------------------------------------------------- */
/* K "processes": threads whose integer sums meet at a barrier                                     */
/* ---------------------------------------------------------------------------------------------- */

typedef struct shared_sum {
    pthread_barrier_t barrier;
    pthread_mutex_t lock;
    uint64_t *acc;
    size_t count;
    int mismatch;   /* a process summed a different count */
    int rounds;
} shared_sum;

typedef struct process {
    shared_sum *shared;
    int rank, size;
    const eddy_probes *probes;
    eddy_frame frame;
    double *values;
    int complete, rc;
    eddy_error err;
} process;

static int thread_sum(void *ctx, int64_t *values, size_t count, eddy_error *err)
{
    (void)err;
    process *me = ctx;
    shared_sum *s = me->shared;
    pthread_barrier_wait(&s->barrier);
    if (me->rank == 0) {
        s->acc = calloc(count ? count : 1, sizeof *s->acc);
        s->count = count;
        s->rounds++;
    }
    pthread_barrier_wait(&s->barrier);
    pthread_mutex_lock(&s->lock);
    if (count != s->count || !s->acc) s->mismatch = 1;
    else
        for (size_t i = 0; i < count; ++i) s->acc[i] += (uint64_t)values[i];
    pthread_mutex_unlock(&s->lock);
    pthread_barrier_wait(&s->barrier);
    if (!s->mismatch)
        for (size_t i = 0; i < count; ++i) values[i] = (int64_t)s->acc[i];
    pthread_barrier_wait(&s->barrier);
    if (me->rank == 0) {
        free(s->acc);
        s->acc = NULL;
    }
    return EDDY_OK;
}

static void *process_main(void *arg)
{
    process *me = arg;
    const eddy_probes_comm comm = {me->rank, me->size, thread_sum, me};
    eddy_error_clear(&me->err);
    me->rc = eddy_probes_measure_walks(me->probes, &me->frame, &comm, me->values, &me->complete, &me->err);
    return NULL;
}

/* Every process's call of eddy_probes_measure_walks on its part (parts[r][0..counts[r])); returns the
 * number of integer sums they made. */
static int run_processes(const eddy_probes *probes, const eddy_frame *whole, uint32_t **parts, const size_t *counts,
                         int k, process *procs)
{
    shared_sum s;
    memset(&s, 0, sizeof s);
    pthread_barrier_init(&s.barrier, NULL, (unsigned)k);
    pthread_mutex_init(&s.lock, NULL);
    pthread_t threads[16];
    for (int r = 0; r < k; ++r) {
        procs[r].shared = &s;
        procs[r].rank = r;
        procs[r].size = k;
        procs[r].probes = probes;
        procs[r].frame = *whole;
        procs[r].frame.count = counts[r];
        procs[r].frame.order = parts[r];
        if (pthread_create(&threads[r], NULL, process_main, &procs[r])) fail_msg("pthread_create failed");
    }
    for (int r = 0; r < k; ++r) pthread_join(threads[r], NULL);
    pthread_barrier_destroy(&s.barrier);
    pthread_mutex_destroy(&s.lock);
    if (s.mismatch) fail_msg("the processes summed different counts in one round");
    return s.rounds;
}

/* ---------------------------------------------------------------------------------------------- */
/* Random particle sets                                                                            */
/* ---------------------------------------------------------------------------------------------- */

static size_t below(size_t n)
{
    return (size_t)(rng_next() % n);
}

/* A coordinate of the set on axis a (world units), by the trial's mode. */
static double random_coordinate(int mode, int a)
{
    const double extent = a == 0 ? 0.6 : a == 1 ? 0.3 : 0.3;
    switch (mode) {
    case 0: /* uniform: gaps everywhere for small N */
        return rng_uniform() * extent;
    case 1: /* a lattice of spacing 0.01: columns of equal coordinates, ties broken by id */
        return 0.01 * (double)below(25);
    case 2: /* multiples of the gaps (0.005, 0.02, 0.04, 0.03): steps exactly max_gap */
        return 0.005 * (double)below(40);
    default: /* a lattice with droplets, some far ahead or behind */
        if (rng_uniform() < 0.1) return (rng_uniform() < 0.5 ? -1 : 1) * (1 + rng_uniform() * 1000);
        return 0.01 * (double)below(20) + 0.001 * rng_uniform();
    }
}

/* A fresh world of the scene with n particles of random material, coordinates and ids. */
static eddy_world *random_world(const fixture *f, size_t n, int mode)
{
    eddy_error err;
    eddy_world *w;
    const eddy_scene_build with = {.registry = registry()};
    if (eddy_scene_build_world(&f->scene, &with, &w, &err)) fail_msg("%s", err.message);
    /* Drop the scene's block: only the random set stays. */
    eddy_particles *p = &w->particles;
    for (size_t i = 0; i < n; ++i) {
        float pos[3] = {0, 0, 0};
        if (eddy_world_add_particles(w, 1, pos, NULL, (uint32_t)below(2), &err)) fail_msg("%s", err.message);
    }
    const size_t first = p->count - n;
    for (size_t i = 0; i < p->count; ++i) {
        float *xyz[3] = {&p->x[i], &p->y[i], &p->z[i]};
        for (int a = 0; a < 3; ++a) *xyz[a] = a < f->dims ? (float)(random_coordinate(mode, a) * SCALE) : 0.0f;
        if (i < first) *xyz[0] = NAN; /* the scene's block: left out by every walk ... */
        if (i < first && i % 2) *xyz[0] = -INFINITY, *xyz[1] = INFINITY; /* ... infinite or NaN */
    }
    if (mode == 3 && n) {
        p->x[first] = p->y[first] = -0.0f;
        p->y[first + n / 2] = NAN;        /* out of the columns of x-walking heights, and of y-walks */
        p->x[first + n - 1] = 3e30f;      /* beyond the N + 1 bins of any walk */
    }
    /* Ids in a random order of storage, with gaps. */
    uint64_t *ids = malloc(p->count * sizeof *ids);
    assert_non_null(ids);
    for (size_t i = 0; i < p->count; ++i) ids[i] = 3 * i + 7;
    for (size_t i = p->count; i > 1; --i) {
        size_t j = below(i);
        uint64_t t = ids[i - 1];
        ids[i - 1] = ids[j];
        ids[j] = t;
    }
    if (eddy_particles_set_ids(p, ids, &err)) fail_msg("%s", err.message);
    free(ids);
    return w;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Tests                                                                                           */
/* ---------------------------------------------------------------------------------------------- */

static void split_sets(int dims, int trials)
{
    fixture f;
    open_fixture(&f, dims);
    const size_t np = f.nspec;
    double *whole_values = calloc(np, sizeof(double));
    process procs[16];
    uint32_t *parts[16];
    size_t counts[16];
    int checked = 0, finite = 0;
    for (int t = 0; t < trials; ++t) {
        const int mode = t % 4;
        const size_t n = t % 17 == 0 ? below(3) : 1 + below(dims == 2 ? 400 : 200);
        eddy_world *w = random_world(&f, n, mode);
        eddy_error err;
        eddy_frame whole;
        if (eddy_probes_open(f.probes, w, eddy_services_host(), &err)) fail_msg("%s", err.message);
        if (eddy_frame_of_host_copy(w, 0, &whole, &err)) fail_msg("%s", err.message);
        if (eddy_probes_measure(f.probes, &whole, whole_values, &err)) fail_msg("%s", err.message);
        for (size_t k = 0; k < np; ++k) {
            const double want = oracle(&f.spec[k], &whole);
            if (!same_bits(whole_values[k], want))
                fail_msg("trial %d (%zu particles, mode %d), probe %zu: one process measures %.17g, the walk of "
                         "c117429 gives %.17g", t, whole.count, mode, k, whole_values[k], want);
            finite += isfinite(want) && want != 0;
        }
        /* K parts: a random process for each particle (the last left empty now and then), in shuffled order. */
        const int k_parts = 1 + (int)below(6);
        const int used = k_parts > 1 && t % 3 == 0 ? k_parts - 1 : k_parts;
        for (int r = 0; r < k_parts; ++r) {
            parts[r] = malloc((whole.count + 1) * sizeof *parts[r]);
            assert_non_null(parts[r]);
            counts[r] = 0;
        }
        for (size_t o = 0; o < whole.count; ++o) {
            const size_t r = below((size_t)used);
            parts[r][counts[r]++] = whole.order[o];
        }
        for (int r = 0; r < k_parts; ++r)
            for (size_t i = counts[r]; i > 1; --i) {
                size_t j = below(i);
                uint32_t x = parts[r][i - 1];
                parts[r][i - 1] = parts[r][j];
                parts[r][j] = x;
            }
        for (int r = 0; r < k_parts; ++r) {
            procs[r].values = malloc(np * sizeof(double));
            assert_non_null(procs[r].values);
            for (size_t k = 0; k < np; ++k) procs[r].values[k] = -12345.0;
        }
        const int rounds = run_processes(f.probes, &whole, parts, counts, k_parts, procs);
        if (k_parts > 1) assert_int_equal(rounds, 3);
        for (int r = 0; r < k_parts; ++r) {
            if (procs[r].rc) fail_msg("process %d of %d: %s", r, k_parts, procs[r].err.message);
            assert_int_equal(procs[r].complete, 1);
            for (size_t k = 0; k < np; ++k)
                if (!same_bits(procs[r].values[k], whole_values[k]))
                    fail_msg("trial %d (%zu particles, mode %d), probe %zu (%s %s): process %d of %d reads %.17g, "
                             "one process %.17g", t, whole.count, mode, k, f.spec[k].height ? "height" : "front",
                             f.spec[k].axis, r, k_parts, procs[r].values[k], whole_values[k]);
            free(procs[r].values);
            free(parts[r]);
        }
        ++checked;
        eddy_frame_release(&whole);
        eddy_probes_close(f.probes);
        eddy_world_destroy(w);
    }
    printf("  %dD: %d sets, %zu probes each, split over 1..6 processes: equal bit for bit (%d finite values "
           "other than 0)\n", dims, checked, np, finite);
    /* The sets must not be degenerate: most values are real reaches. */
    assert_true(finite > checked * (int)np / 2);
    free(whole_values);
    close_fixture(&f);
}

static void split_sets_2d(void **state)
{
    (void)state;
    rng_seed(17);
    split_sets(2, 400);
}

static void split_sets_3d(void **state)
{
    (void)state;
    rng_seed(18);
    split_sets(3, 120);
}

/*
 * A process whose part holds a particle of a material outside the table says so (the one-process
 * message of eddy_probes_measure) and the others stop without values, after the same one round.
 */
static void a_failing_process_stops_all(void **state)
{
    (void)state;
    rng_seed(19);
    fixture f;
    open_fixture(&f, 2);
    eddy_world *w = random_world(&f, 50, 1);
    eddy_error err;
    eddy_frame whole;
    if (eddy_probes_open(f.probes, w, eddy_services_host(), &err)) fail_msg("%s", err.message);
    if (eddy_frame_of_host_copy(w, 0, &whole, &err)) fail_msg("%s", err.message);
    uint32_t *parts[3];
    size_t counts[3] = {0, 0, 0};
    for (int r = 0; r < 3; ++r) parts[r] = malloc(whole.count * sizeof *parts[r]);
    for (size_t o = 0; o < whole.count; ++o) parts[o % 3][counts[o % 3]++] = whole.order[o];
    const uint32_t bad = parts[1][2];
    w->particles.material[bad] = 7;
    process procs[3];
    double values[3][16];
    for (int r = 0; r < 3; ++r) procs[r].values = values[r];
    const int rounds = run_processes(f.probes, &whole, parts, counts, 3, procs);
    assert_int_equal(rounds, 1);
    char want[200];
    snprintf(want, sizeof want, "particle %llu: material index 7 is outside the material table (2 materials)",
             (unsigned long long)w->particles.id[bad]);
    assert_int_equal(procs[1].rc, EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(procs[1].err.message, want);
    for (int r = 0; r < 3; ++r) {
        assert_int_equal(procs[r].complete, 0);
        if (r != 1) assert_int_equal(procs[r].rc, EDDY_OK);
        free(parts[r]);
    }
    eddy_frame_release(&whole);
    eddy_probes_close(f.probes);
    eddy_world_destroy(w);
    close_fixture(&f);
}

/* ---------------------------------------------------------------------------------------------- */
/* --bench N [REPS]: figures, not a test                                                           */
/* ---------------------------------------------------------------------------------------------- */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The words of every sum, as process 0 of 2 whose partner holds nothing (so the sums change nothing). */
static size_t bench_words[8];
static int bench_rounds;
static int counting_sum(void *ctx, int64_t *values, size_t count, eddy_error *err)
{
    (void)ctx, (void)values, (void)err;
    if (bench_rounds < 8) bench_words[bench_rounds++] = count;
    return EDDY_OK;
}

static int bench(size_t n, int reps)
{
    fixture f;
    open_fixture(&f, 2);
    rng_seed(5);
    eddy_error err;
    eddy_world *w;
    const eddy_scene_build with = {.registry = registry()};
    if (eddy_scene_build_world(&f.scene, &with, &w, &err)) fail_msg("%s", err.message);
    /* A block of liquid 2:1 at spacing 0.0025 (a dam break's), jittered a little. */
    const size_t cols = (size_t)sqrt((double)n / 2) + 1;
    float *pos = malloc(3 * n * sizeof *pos);
    for (size_t i = 0; i < n; ++i) {
        pos[3 * i] = (float)((0.0025 * (double)(i % cols) + 1e-4 * rng_uniform()) * SCALE);
        pos[3 * i + 1] = (float)((0.0025 * (double)(i / cols) + 1e-4 * rng_uniform()) * SCALE);
        pos[3 * i + 2] = 0;
    }
    if (eddy_world_add_particles(w, n, pos, NULL, 0, &err)) fail_msg("%s", err.message);
    free(pos);
    if (eddy_probes_open(f.probes, w, eddy_services_host(), &err)) fail_msg("%s", err.message);
    eddy_frame whole;
    if (eddy_frame_of_host_copy(w, 0, &whole, &err)) fail_msg("%s", err.message);
    double *t_old = malloc(reps * sizeof(double)), *t_new = malloc(reps * sizeof(double));
    double *v = malloc(f.nspec * sizeof(double)), sink = 0;
    for (int r = 0; r < reps; ++r) { /* interleaved A/B */
        double t0 = now_ms();
        for (size_t k = 0; k < f.nspec; ++k) sink += oracle(&f.spec[k], &whole);
        t_old[r] = now_ms() - t0;
        t0 = now_ms();
        if (eddy_probes_measure(f.probes, &whole, v, &err)) fail_msg("%s", err.message);
        t_new[r] = now_ms() - t0;
    }
    const eddy_probes_comm comm = {0, 2, counting_sum, NULL};
    int complete;
    if (eddy_probes_measure_walks(f.probes, &whole, &comm, v, &complete, &err)) fail_msg("%s", err.message);
    qsort(t_old, reps, sizeof(double), cmp_double);
    qsort(t_new, reps, sizeof(double), cmp_double);
    printf("%zu particles (%zu with the scene's), %zu walk probes, median of %d: dense walk of c117429 %.2f ms, "
           "bins (start, bins, merge, walk) %.2f ms\n", n, whole.count, f.nspec, reps, t_old[reps / 2],
           t_new[reps / 2]);
    printf("exchange on 2 processes: %d integer sums of %zu + %zu + %zu words (%zu bins, %.1f KiB), (sink %g)\n",
           bench_rounds, bench_words[0], bench_words[1], bench_words[2], bench_words[2] / EDDY_PROBE_BIN_WORDS,
           (bench_words[0] + bench_words[1] + bench_words[2]) * 8 / 1024.0, sink);
    free(t_old), free(t_new), free(v);
    eddy_frame_release(&whole);
    eddy_probes_close(f.probes);
    eddy_world_destroy(w);
    close_fixture(&f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--bench") == 0)
        return bench((size_t)strtoull(argv[2], NULL, 10), argc >= 4 ? atoi(argv[3]) : 7);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(split_sets_2d),
        cmocka_unit_test(split_sets_3d),
        cmocka_unit_test(a_failing_process_stops_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
