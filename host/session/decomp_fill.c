/*
 * host/session/decomp_fill.c — on several processes every process creates only the particles it will
 * own (decomp.h, docs/mpi.md): at 10^7 to 10^9 particles the whole scene does not fit one process.
 *
 * The slabs of a new run are the particle-count quantiles of the coordinate along the grid's longest
 * axis (decomp.c's make_cuts). The fluid blocks are lattices, so along an axis the coordinates take
 * one value per lattice plane: the sorted coordinates are a short list of (value, count) pairs, from
 * which the same cuts follow with the same rule (eddy_decomp_quantile_pairs) without any particle
 * stored. The scene's fill (host/scene/scene_fill.h) then adds only this process's particles with
 * their whole-run ids, and eddy_decomp_attach takes the cuts as a resume's: the world it sees is the
 * one the earlier way left after keeping the slab, particle for particle and in the same order.
 *
 * Every process computes the cuts itself from the scene (no message): the same scene, binary and
 * arithmetic give the same doubles, as rank 0's cuts of every particle did.
 */
#include "decomp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_fill.h"

typedef struct fill_plan {
    int size, rank;
    int axis, periodic;
    double lo, hi, period; /* the cut axis of the grid, as eddy_decomp_attach reads it */
    double *cut;           /* size + 1: cut[0] and cut[size] the open ends (or the periodic bounds) */
    double floor;          /* the imbalance the cuts give */
    const eddy_world *w;   /* the world filled as this piece, until eddy_decomp_fill_take */
    int taken;             /* the attach took the cuts (eddy_decomp_resume_cuts holds them) */
} fill_plan;

static fill_plan g_plan;
static int g_armed;
static unsigned long long g_created, g_pieces;

/* The coordinate along the cut axis, in [lo, hi) on a periodic axis: decomp.c's axis_coord. */
static double key_of(const fill_plan *p, eddy_real coord)
{
    double x = coord;
    if (p->periodic && isfinite(x) && (x < p->lo || x >= p->hi)) {
        double t = fmod(x - p->lo, p->period);
        if (t < 0) t += p->period;
        x = p->lo + t;
    }
    return x;
}

/* decomp.c's owner_of for a finite coordinate. */
static int owner_of(const fill_plan *p, eddy_real coord)
{
    const double x = key_of(p, coord);
    int r = 0;
    while (r + 1 < p->size && x >= p->cut[r + 1]) ++r;
    return r;
}

static int plan_axis(void *user, const eddy_grid_layout *l)
{
    fill_plan *p = user;
    /* The longest axis, as eddy_decomp_attach picks it (the first of equal lengths). */
    int axis = 0;
    for (int a = 1; a < l->dimensions; ++a)
        if ((double)l->hi[a] - l->lo[a] > (double)l->hi[axis] - l->lo[axis]) axis = a;
    p->axis = axis;
    p->periodic = l->periodic[axis];
    p->lo = l->lo[axis];
    p->hi = l->hi[axis];
    p->period = (double)(l->hi[axis] - l->lo[axis]);
    return axis;
}

typedef struct pair {
    double v;
    uint64_t c;
} pair;

static int by_value(const void *a, const void *b)
{
    const double x = ((const pair *)a)->v, y = ((const pair *)b)->v;
    return (x > y) - (x < y);
}

double eddy_decomp_quantile_pairs(const double *v, const uint64_t *c, size_t m, int size, double lo, double hi,
                                  double *cut)
{
    size_t k = 0;
    for (size_t i = 0; i < m; ++i) k += (size_t)c[i];
    size_t first = 0, largest = 0;
    size_t at_pair = 0, before = 0; /* pair at_pair covers sorted indices [before, before + c[at_pair]) */
    for (int r = 1; r <= size; ++r) {
        size_t at = k;
        if (r < size && k == 0) {
            cut[r] = lo + (hi - lo) * r / size;
        } else if (r < size) {
            /* quantile_cuts: j = k r / size; its run of equal coordinates is [lo, hi) of the sorted
             * list, one pair here; the cut goes to the nearer end (hi only inside the list). */
            const size_t j = k * (size_t)r / (size_t)size;
            while (before + (size_t)c[at_pair] <= j) before += (size_t)c[at_pair++];
            const size_t run_lo = before, run_hi = before + (size_t)c[at_pair];
            at = run_hi < k && run_hi - j < j - run_lo ? run_hi : run_lo;
            cut[r] = at == run_lo ? v[at_pair] : v[at_pair + 1];
        }
        if (at - first > largest) largest = at - first;
        first = at;
    }
    return k ? (double)largest * size / (double)k - 1.0 : 0.0;
}

static int plan_planes(void *user, const eddy_real *coord, const uint64_t *count, size_t m, size_t total,
                       eddy_error *err)
{
    (void)total;
    fill_plan *p = user;
    pair *q = malloc(sizeof *q * (m ? m : 1));
    double *v = malloc(sizeof *v * (m ? m : 1));
    uint64_t *c = malloc(sizeof *c * (m ? m : 1));
    free(p->cut);
    p->cut = calloc((size_t)p->size + 1, sizeof *p->cut);
    if (!q || !v || !c || !p->cut) {
        free(q);
        free(v);
        free(c);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    /* make_cuts skips a non-finite coordinate, and so do the pairs; equal values (planes of several
     * blocks) become one pair, one run of equal coordinates. */
    size_t n = 0, k = 0;
    for (size_t i = 0; i < m; ++i) {
        const double x = key_of(p, coord[i]);
        if (isfinite(x) && count[i]) q[n++] = (pair){x, count[i]};
    }
    qsort(q, n, sizeof *q, by_value);
    for (size_t i = 0; i < n; ++i) {
        if (k && v[k - 1] == q[i].v) {
            c[k - 1] += q[i].c;
        } else {
            v[k] = q[i].v;
            c[k++] = q[i].c;
        }
    }
    p->cut[0] = p->periodic ? p->lo : -INFINITY;
    p->cut[p->size] = p->periodic ? p->hi : INFINITY;
    p->floor = eddy_decomp_quantile_pairs(v, c, k, p->size, p->lo, p->hi, p->cut);
    free(q);
    free(v);
    free(c);
    return EDDY_OK;
}

static int plan_keeps(void *user, eddy_real coord)
{
    const fill_plan *p = user;
    /* A coordinate that is not finite stays with every process, as owner_of says (never on a lattice). */
    return !isfinite(coord) || owner_of(p, coord) == p->rank;
}

static int plan_filled(void *user, eddy_world *w, size_t created, size_t total, eddy_error *err)
{
    (void)err;
    fill_plan *p = user;
    p->w = w;
    g_created += created;
    g_pieces++;
    eddy_host_log(w->host, EDDY_LOG_DEBUG, "decomp",
                  "rank %d of %d created %zu of the scene's %zu particles (its slab only; imbalance %.4f)", p->rank,
                  p->size, created, total, p->floor);
    return EDDY_OK;
}

static const eddy_scene_piece g_piece = {&g_plan, plan_axis, plan_planes, plan_keeps, plan_filled};

int eddy_decomp_fill_begin(eddy_error *err)
{
    eddy_decomp_fill_end();
    const int size = eddy_decomp_size();
    if (size <= 1) return EDDY_OK;
    const char *v = getenv("EDDY_DECOMP_FILL");
    if (v && strcmp(v, "whole") == 0) return EDDY_OK;
    if (v && *v && strcmp(v, "pieces") != 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "environment variable EDDY_DECOMP_FILL: expected 'pieces' (every process creates only "
                              "its particles, the default) or 'whole' (every process builds the whole scene), got '%s'",
                              v);
    g_plan.size = size;
    g_plan.rank = eddy_decomp_rank();
    g_armed = 1;
    eddy_scene_set_piece(&g_piece);
    return EDDY_OK;
}

void eddy_decomp_fill_end(void)
{
    eddy_scene_set_piece(NULL);
    /* The attach copied the cuts; a later resume must not find them (it sets its own or none). */
    if (g_plan.taken) eddy_decomp_resume_cuts(NULL, 0, 0, 0.0);
    free(g_plan.cut);
    memset(&g_plan, 0, sizeof g_plan);
    g_armed = 0;
}

int eddy_decomp_fill_take(const eddy_world *w)
{
    if (!g_armed || !w || g_plan.w != w || !g_plan.cut) return 0;
    g_plan.taken = 1;
    return eddy_decomp_resume_cuts(g_plan.cut + 1, g_plan.size - 1, 0, g_plan.floor) ? -1 : 1;
}

void eddy_decomp_fill_counts(unsigned long long *particles, unsigned long long *pieces)
{
    if (particles) *particles = g_created;
    if (pieces) *pieces = g_pieces;
}

double eddy_decomp_peak_mib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return NAN;
    char line[256];
    double kib = NAN;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kib = strtod(line + 6, NULL); /* "VmHWM:   123456 kB" */
            break;
        }
    fclose(f);
    return kib / 1024.0;
}
