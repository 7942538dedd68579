/*
 * host/drive/bench.c — `eddy bench`: the median speed of a solver on a scene. Under mpirun the same
 * decomposed step as `eddy run` (the session attaches the slabs, halos and exchange, decomp.h); the
 * figures are reduced over the processes and printed by rank 0, with the time spent in MPI
 * (docs/mpi.md, "eddy bench on several processes"). With --at or --from the timed state is a developed
 * flow rather than the scene as built: water at rest next to walls costs less per step than a splash,
 * where more particles are within h of a wall and pay for mirror ghosts (docs/performance.md, "Issue 14").
 */
#include "bench.h"

#include <eddy_sph/gather.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp.h"
#include "mpi_tally.h"
#include "provenance.h"
#include "same_scene.h"
#include "unused_sets.h"
#include "services.h"
#include "session.h"

/* ------------------------------------------------------------------------------------------------ */
/* The benchmark                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The host phases of a decomposed step (eddy_decomp_timing), ms per step, and the halo's changes per
 * step. */
enum { HOST_ORDER, HOST_MIGRATE, HOST_BALANCE, HOST_HALO, HOST_REFRESH, HOST_MPI, HOST_ADDED, HOST_REMOVED,
       HOST_MIGRATED, HOST_CHANGES, HOST_COUNT };

static void host_values(const eddy_world *w, double *v)
{
    eddy_decomp_timing t;
    eddy_decomp_timing_read(w, &t);
    const double all[HOST_COUNT] = {t.order_ms, t.migrate_ms, t.balance_ms, t.halo_ms, t.refresh_ms, t.mpi_ms,
                                    (double)t.halo_added, (double)t.halo_removed, (double)t.migrated,
                                    (double)t.halo_layout_changes};
    memcpy(v, all, sizeof all);
}

/* Per repeat, per step: this process's wall time, phases and MPI tally. */
typedef struct samples {
    double *wall, *phase[EDDY_PHASE_COUNT], *exch, *red, *bytes, *msgs, *colls;
    double *host[HOST_COUNT]; /* decomp.h's host time per step: HOST_* */
} samples;

static int samples_alloc(samples *s, int repeats)
{
    memset(s, 0, sizeof *s);
    double **all[] = {&s->wall, &s->exch, &s->red, &s->bytes, &s->msgs, &s->colls};
    int ok = 1;
    for (size_t k = 0; k < sizeof all / sizeof *all; ++k) ok &= (*all[k] = calloc((size_t)repeats, sizeof(double))) != NULL;
    for (int k = 0; k < EDDY_PHASE_COUNT; ++k) ok &= (s->phase[k] = calloc((size_t)repeats, sizeof(double))) != NULL;
    for (int k = 0; k < HOST_COUNT; ++k) ok &= (s->host[k] = calloc((size_t)repeats, sizeof(double))) != NULL;
    return ok;
}

static void samples_free(samples *s)
{
    double *all[] = {s->wall, s->exch, s->red, s->bytes, s->msgs, s->colls};
    for (size_t k = 0; k < sizeof all / sizeof *all; ++k) free(all[k]);
    for (int k = 0; k < EDDY_PHASE_COUNT; ++k) free(s->phase[k]);
    for (int k = 0; k < HOST_COUNT; ++k) free(s->host[k]);
}

/* The figures of a run on several processes, on top of the one-process ones (rank 0 prints them). */
typedef struct spread {
    int processes;
    double halo, halo_max, owned_min, owned_max; /* halo copies over all processes; owned per process */
    double exch_ms, red_ms, bytes, msgs, colls;  /* per step: ms mean over processes; bytes, messages and
                                                  * collectives summed over processes (colls: per process) */
    double exch_max_ms, rebuild_ms;              /* slowest process's exchange; one halo rebuild alone */
    double host[HOST_COUNT];                     /* ms per step, slowest process; changes per step, summed */
} spread;

/* One halo rebuild (migration and fresh halo copies: what follows every step) timed alone, the median
 * of a few, slowest process: the packing and unpacking the MPI tally does not see. */
static int time_rebuild(eddy_world *w, double *ms, eddy_error *err)
{
    double t[3];
    for (int k = 0; k < 3; ++k) {
        const double t0 = eddy_time_ms();
        int rc = eddy_decomp_exchange(w, err);
        if (rc) return rc;
        t[k] = eddy_time_ms() - t0;
    }
    *ms = median(t, 3);
    return eddy_world_reduce(w, EDDY_REDUCE_MAX, ms, 1, err);
}

/* The fraction of this process's particles within h of a wall or collider, and how many there are. The
 * SPH solvers add mirror ghosts for every such particle, in the density and in the force pass, so this
 * fraction sets what a step costs beyond the bulk (docs/performance.md, "Issue 14": 29% at rest in the
 * default dam break, 44% once it splashes). Host copy: the caller syncs it first. */
static void near_wall(const eddy_world *w, double *near, double *owned)
{
    const eddy_particles *p = &w->particles;
    const eddy_real h = w->smoothing_radius;
    size_t n = 0, own = 0;
    for (size_t i = 0; i < p->count; ++i) {
        if (eddy_particle_is_halo(p, i)) continue;
        const eddy_real x[3] = {p->x[i], p->y[i], p->z[i]};
        n += eddy_boundaries_distance(&w->boundaries, x, NULL, NULL) < h;
        ++own;
    }
    *near = (double)n;
    *owned = (double)own;
}

/* What the per-cell passes of the SPH toolkit (eddy_sph_cell_pass) work through on this process: the
 * cells that hold owned particles, every particle of the 3-cell bars around a cell, and the candidates
 * the toolkit's gather keeps of those (eddy_sph_gather itself, so the figure is what the passes see),
 * both weighted by the owned particles of the cell that loop over them (*looping: their sum). Cells
 * that hold only halo copies are left out, as the passes skip them (eddy_sph_cell_owned). A splash spreads the same
 * particles thinly over more cells, so each gathered buffer serves fewer particles. *gathered is NAN
 * when the gather's buffer could not be allocated: a figure of the report, not worth failing the bench
 * (or, on several processes, leaving the others in the reduction that follows). */
static void cell_load(const eddy_grid *g, const eddy_particles *p, double *occupied, double *in_bars,
                      double *gathered, double *looping)
{
    double bars = 0.0, kept = 0.0, loops = 0.0, cells = 0.0;
    eddy_sph_candidates cand = eddy_sph_candidates_make(0);
    int rc = 0;
    for (size_t k = 0; k < g->occupied_count && !rc; ++k) {
        const uint32_t c = g->occupied[k];
        if (!eddy_sph_cell_owned(g, p, c)) continue;
        eddy_range r[EDDY_MAX_CELL_RANGES];
        const int nr = eddy_grid_cell_ranges(g, c, r);
        size_t n = 0;
        for (int q = 0; q < nr; ++q) n += r[q].end - r[q].begin;
        rc = eddy_sph_gather(&cand, g, p, c);
        double own = 0.0;
        for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) own += !eddy_particle_is_halo(p, i);
        bars += (double)n * own;
        kept += (double)cand.count * own;
        loops += own;
        cells += 1.0;
    }
    eddy_sph_candidates_free(&cand);
    *occupied = cells;
    *in_bars = bars;
    *gathered = rc ? NAN : kept;
    *looping = loops;
}

/* Neighbour and cell figures of this process's particles from a grid the bench builds itself (the CPU
 * backend, the world grid's layout and domain policy) over a copy of their positions, for a solver whose
 * steps never build the world's grid: a device-resident one (sph_mueller_cuda) or one with pair loops of
 * its own, where that grid's arrays read 0 cells and a NaN neighbour count (docs/host.md, "Bench
 * output"). The copy leaves the world untouched: a grid build reorders and may remove particles, which a
 * device-resident solver's device copy would never see. It costs a particle set of its own, once, after
 * the timed steps: every built-in field, ids, materials, flags and scratch, about 65 bytes a slot, for a
 * capacity rounded up to a power of two (about 0.5 GB at 4.2M particles), and the grid's arrays.
 * Positions are read through a read mapping (the caller synced the host copy). One process only: the
 * halo copies of a decomposed run need the world's own grid (its window, decomp.h). Returns 0 and the
 * figures, or non-zero with why they could not be measured. */
static int own_grid_stats(eddy_world *w, double *neighbors, double cells[4], char *why, size_t why_size)
{
    eddy_error e;
    eddy_error_clear(&e);
    eddy_field_view v;
    memset(&v, 0, sizeof v);
    v.size = sizeof v;
    int rc = eddy_world_map_field(w, EDDY_FIELD_POSITION, EDDY_MAP_READ, &v, &e);
    if (rc) {
        snprintf(why, why_size, "the positions could not be read: %s", e.message);
        return rc;
    }
    eddy_particles q;
    eddy_grid g;
    memset(&g, 0, sizeof g);
    rc = eddy_particles_init(&q, w->dimensions, &e);
    if (!rc) rc = eddy_particles_reserve(&q, v.count, &e);
    /* Added in chunks: eddy_particles_add takes interleaved positions, of which a whole copy would add
     * 12 bytes a particle more. */
    enum { CHUNK = 4096 };
    eddy_real xyz[3 * CHUNK];
    for (size_t i0 = 0; i0 < v.count && !rc; i0 += CHUNK) {
        const size_t n = v.count - i0 < CHUNK ? v.count - i0 : CHUNK;
        for (size_t i = 0; i < n; ++i)
            for (int c = 0; c < 3; ++c) xyz[3 * i + (size_t)c] = c < v.components ? v.data[c][i0 + i] : 0;
        rc = eddy_particles_add(&q, n, xyz, NULL, 0, NULL, &e);
    }
    eddy_world_unmap_field(w, &v);
    if (!rc) rc = eddy_grid_init(&g, &w->grid.layout, NULL, w->grid.policy, &e);
    if (!rc) rc = eddy_grid_build(&g, &q, &e);
    if (rc) {
        snprintf(why, why_size, "the bench's grid of the particles could not be built: %s", e.message);
    } else {
        *neighbors = eddy_grid_mean_neighbors(&g, &q, w->smoothing_radius);
        cell_load(&g, &q, &cells[0], &cells[1], &cells[3], &cells[2]);
        if (!isfinite(*neighbors) || !isfinite(cells[3])) {
            snprintf(why, why_size, "%s", !isfinite(*neighbors) ? "no neighbour count within h on the world grid's "
                                                                  "layout (cells smaller than h)"
                                                                : "out of memory for the gather's buffer");
            rc = EDDY_ERR_INVALID_ARGUMENT;
        }
    }
    eddy_grid_free(&g);
    eddy_particles_free(&q);
    return rc;
}

/* The vector path of the SPH neighbour loops as run.json names it (provenance.c), as one token of the
 * machine line: "EDDY_SIMD invalid" (a bad EDDY_SIMD, which a solver without SPH loops does not refuse)
 * would otherwise split into two. */
static const char *simd_token(char *out, size_t size)
{
    eddy_provenance_facts f;
    eddy_provenance_read(&f);
    snprintf(out, size, "%s", f.simd);
    for (char *c = out; *c; ++c)
        if (*c == ' ' || *c == '=') *c = '_';
    return f.simd;
}

/* The 1-minute load average of this machine (/proc/loadavg), or NAN where it cannot be read (not
 * Linux). The test switch EDDY_TEST_LOADAVG names a file read in its place, so the note below can be
 * tested on a machine whose load no test chooses. */
static double load_average(void)
{
    const char *test = getenv("EDDY_TEST_LOADAVG");
    FILE *f = fopen(test && *test ? test : "/proc/loadavg", "r");
    if (!f) return NAN;
    double load = NAN;
    if (fscanf(f, "%lf", &load) != 1 || !(load >= 0)) load = NAN;
    fclose(f);
    return load;
}

/* Opens what the options bench: the scene (refilled at about opt->particles), or the checkpoint of the
 * run folder opt->from; then, with opt->at, the steps to that time as `eddy run` takes them (landing on
 * every output time), so that the state benched is the one `eddy run --until AT` reaches. */
static int open_state(const eddy_bench_options *opt, eddy_session **ses, double *opened_at, double *advance_ms,
                      eddy_error *err)
{
    eddy_session_options so = eddy_session_default_options();
    so.threads = opt->threads;
    so.registry = opt->registry;
    int rc;
    if (opt->from) {
        rc = eddy_session_resume(opt->from, &so, ses, err);
    } else {
        so.scene_path = opt->scene_path;
        so.sets = opt->sets;
        so.set_count = opt->set_count;
        so.solver = opt->solver;
        so.grid = opt->grid;
        so.particle_target = opt->particles;
        rc = eddy_session_open(&so, ses, err);
    }
    if (rc) return rc;
    const double t = eddy_session_world(*ses)->time;
    *opened_at = t;
    *advance_ms = 0.0;
    if (opt->at > 0 && opt->at < t)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "bench --at %g: the checkpoint in '%s' is at t = %.6g s already; --at must be at "
                              "least that, or 0 to bench it as it is",
                              opt->at, opt->from ? opt->from : "", t);
    if (opt->at > t) {
        eddy_session_plan plan;
        memset(&plan, 0, sizeof plan);
        plan.end_steps = -1;
        plan.end_time = opt->at;
        const double t0 = eddy_time_ms();
        rc = eddy_session_run(*ses, &plan, NULL, err);
        *advance_ms = eddy_time_ms() - t0;
    }
    return rc;
}

int eddy_bench_run(const eddy_bench_options *opt, eddy_error *err)
{
    int steps = opt->steps > 0 ? opt->steps : 20;
    int repeats = opt->repeats > 0 ? opt->repeats : 5;
    int warmup = opt->warmup >= 0 ? opt->warmup : 10;
    /* Several processes stop together on SIGINT/SIGTERM (decomp.h). */
    eddy_decomp_set_stop_flag(eddy_services_stop_flag());
    eddy_session *ses = NULL;
    double advance_ms = 0.0, opened_at = 0.0;
    /* (a scene that differs between the nodes gave figures of neither) */
    int rc = opt->from ? EDDY_OK : eddy_drive_same_scene(opt->scene_path, err);
    if (rc) return rc;
    /* Read before eddy's own work adds to it: what else this machine was busy with. Two runs on a
     * loaded machine once differed 4x with nothing in the figures to say why. */
    const double load = load_average();
    rc = open_state(opt, &ses, &opened_at, &advance_ms, err);
    if (rc) {
        eddy_session_close(ses);
        return rc;
    }
    eddy_sim *simp = eddy_session_sim(ses);
    const eddy_component *solver = simp->solver_entry->component;
    if (!opt->from) eddy_drive_warn_unused_sets(&simp->scene, simp->registry, &solver, 1, opt->sets, opt->set_count);
    eddy_world *w = simp->world;
    const int procs = eddy_decomp_size(), decomposed = eddy_decomp_active(w);
    const double start_time = w->time;
    const unsigned long long start_step = (unsigned long long)w->step;
    /* The state the timing starts from: how many particles pay for mirror ghosts. */
    double walls[2] = {0.0, 0.0};
    if (!(rc = eddy_world_sync_host(w, err))) {
        near_wall(w, &walls[0], &walls[1]);
        rc = eddy_world_reduce(w, EDDY_REDUCE_SUM, walls, 2, err);
    }
    const double near_fraction = walls[1] > 0 ? walls[0] / walls[1] : 0.0;
    /* A fixed dt keeps the repeats comparable; the solver's limit still caps it for stability. With --at
     * it is the limit of the developed flow, the step `eddy run` takes there. */
    double dt = 0.0;
    samples S;
    const int have = samples_alloc(&S, repeats);
    if (!rc && !have) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    if (!rc) rc = eddy_sim_next_dt(simp, 1e30, &dt, err);
    for (int s = 0; s < warmup && !rc; ++s) rc = eddy_sim_step(simp, dt, err);
    for (int r = 0; r < repeats && !rc; ++r) {
        double before[EDDY_PHASE_COUNT];
        memcpy(before, w->phase_ms, sizeof before);
        eddy_mpi_tally t0, t1;
        eddy_mpi_tally_read(&t0);
        double h0[HOST_COUNT], h1[HOST_COUNT];
        host_values(w, h0);
        double t = eddy_time_ms();
        for (int s = 0; s < steps && !rc; ++s) rc = eddy_sim_step(simp, dt, err);
        S.wall[r] = (eddy_time_ms() - t) / steps;
        for (int k = 0; k < EDDY_PHASE_COUNT; ++k) S.phase[k][r] = (w->phase_ms[k] - before[k]) / steps;
        eddy_mpi_tally_read(&t1);
        S.exch[r] = (t1.exchange_ms - t0.exchange_ms) / steps;
        S.red[r] = (t1.reduce_ms - t0.reduce_ms) / steps;
        S.bytes[r] = (t1.bytes - t0.bytes) / steps;
        S.msgs[r] = (t1.messages - t0.messages) / steps;
        S.colls[r] = (t1.collectives - t0.collectives) / steps;
        host_values(w, h1);
        for (int k = 0; k < HOST_COUNT; ++k) S.host[k][r] = (h1[k] - h0[k]) / steps;
    }
    /* The figures read the particles (the neighbour count): the host copy first. */
    if (!rc) rc = eddy_world_sync_host(w, err);
    spread sp;
    memset(&sp, 0, sizeof sp);
    sp.processes = procs;
    double owned = (double)(w->particles.count - w->particles.halo_count);
    double neighbors = 0.0, ms = 0.0, med[EDDY_PHASE_COUNT];
    /* cells with owned particles, candidates in the bars, owned particles in them, candidates gathered */
    double cells[4] = {0.0, 0.0, 0.0, 0.0};
    /* Whether the steps sorted the particles on the world's grid (the scene's grid component), read
     * before the figures below build it again. A device-resident solver keeps its particles where that
     * grid cannot sort them: any host build it asks for (a particle leaving the domain) applies the
     * domain policy, not its neighbour search. */
    const int host_grid = !(solver->flags & EDDY_COMPONENT_DEVICE_RESIDENT) && w->grid.particle_count > 0;
    char unmeasured[EDDY_ERROR_MESSAGE_MAX + 64] = "";
    if (!rc) {
        /* A step ends when the slowest process ends it: per repeat the maximum over the processes. */
        rc = eddy_world_reduce(w, EDDY_REDUCE_MAX, S.wall, (size_t)repeats, err);
        ms = median(S.wall, repeats);
        for (int k = 0; k < EDDY_PHASE_COUNT; ++k) med[k] = median(S.phase[k], repeats);
        if (!rc && !decomposed && !host_grid) {
            /* Not a reason to fail the bench: its timings stand without these figures. */
            if (own_grid_stats(w, &neighbors, cells, unmeasured, sizeof unmeasured)) {
                neighbors = NAN;
                memset(cells, 0, sizeof cells);
            }
        } else if (!rc) {
            /* One process: the grid the last step sorted the particles on (they moved one step since).
             * Several: the step's exchange replaced the halo copies since the grid was built (and a
             * decomposable solver steps on the host arrays, so the world's grid is theirs). */
            const int built = decomposed ? eddy_world_build_grid(w, err) : EDDY_OK;
            /* Neighbours of every particle this process holds, weighted by their number below: halo
             * copies at the far edge of a halo see fewer, so on several processes it reads a little low. */
            neighbors = eddy_grid_mean_neighbors(&w->grid, &w->particles, w->smoothing_radius);
            cell_load(&w->grid, &w->particles, &cells[0], &cells[1], &cells[3], &cells[2]);
            /* (the reduction is collective: every process takes part, whatever its build said) */
            if (decomposed) rc = eddy_world_reduce(w, EDDY_REDUCE_SUM, cells, 4, err);
            if (!rc) rc = built;
        }
    }
    if (!rc && decomposed) {
        const double own = owned, held = (double)w->particles.count;
        double sums[8] = {owned, held * neighbors, (double)w->particles.halo_count,
                                       median(S.exch, repeats), median(S.red, repeats), median(S.bytes, repeats),
                                       median(S.msgs, repeats), held};
        double maxes[3 + EDDY_PHASE_COUNT] = {(double)w->particles.halo_count, own, sums[3]};
        memcpy(maxes + 3, med, sizeof med);
        double mins[1] = {own};
        if (!(rc = eddy_world_reduce(w, EDDY_REDUCE_SUM, sums, 8, err)) &&
            !(rc = eddy_world_reduce(w, EDDY_REDUCE_MAX, maxes, 3 + EDDY_PHASE_COUNT, err)) &&
            !(rc = eddy_world_reduce(w, EDDY_REDUCE_MIN, mins, 1, err))) {
            owned = sums[0];
            neighbors = sums[7] > 0 ? sums[1] / sums[7] : 0.0;
            sp.halo = sums[2];
            sp.exch_ms = sums[3] / procs;
            sp.red_ms = sums[4] / procs;
            sp.bytes = sums[5];
            sp.msgs = sums[6];
            sp.colls = median(S.colls, repeats);
            sp.halo_max = maxes[0];
            sp.owned_max = maxes[1];
            sp.exch_max_ms = maxes[2];
            /* Phases: the slowest process's (the others wait for it in the next exchange). */
            memcpy(med, maxes + 3, sizeof med);
            sp.owned_min = mins[0];
            for (int k = 0; k < HOST_COUNT; ++k) sp.host[k] = median(S.host[k], repeats);
            if (!(rc = eddy_world_reduce(w, EDDY_REDUCE_MAX, sp.host, HOST_ADDED, err)))
                rc = eddy_world_reduce(w, EDDY_REDUCE_SUM, sp.host + HOST_ADDED, HOST_COUNT - HOST_ADDED, err);
            if (!rc) rc = time_rebuild(w, &sp.rebuild_ms, err);
        }
    }
    if (!rc && eddy_decomp_rank() == 0) {
        const size_t n = (size_t)owned;
        double rate = owned / (ms * 1e-3);
        int threads = simp->threads;
        const char *solver = simp->solver_entry->component->id, *grid_id = simp->grid_entry->component->id;
        /* "solver": the figures of another neighbour search than the grid the scene names. */
        const char *grid = host_grid ? grid_id : "solver";
        char simd[64];
        const char *simd_path = simd_token(simd, sizeof simd);
        if (host_grid)
            printf("eddy bench: %s, solver %s, grid %s, ", simp->scene.name, solver, grid_id);
        else
            printf("eddy bench: %s, solver %s, grid: the solver's own neighbour search (grid %s not built), ",
                   simp->scene.name, solver, grid_id);
        printf("%zu particles, %d thread%s, dt %.3g s, SPH neighbour loops: %s\n", n, threads,
               threads == 1 ? "" : "s", dt, simd_path);
        if (decomposed)
            printf("  %d processes (slabs): %.0f particles per process (min %.0f, max %.0f), %.0f halo copies "
                   "(max %.0f on one process)\n",
                   procs, owned / procs, sp.owned_min, sp.owned_max, sp.halo, sp.halo_max);
        if (opt->from && start_time > opened_at)
            printf("  from t = %.6g s (step %llu, continued from the checkpoint of %s at t = %.6g s in %.1f s of wall "
                   "time)\n", start_time, start_step, opt->from, opened_at, 1e-3 * advance_ms);
        else if (opt->from)
            printf("  from t = %.6g s (step %llu, the checkpoint of %s)\n", start_time, start_step, opt->from);
        else if (start_time > 0)
            printf("  from t = %.6g s (step %llu, reached in %.1f s of wall time)\n", start_time, start_step,
                   1e-3 * advance_ms);
        printf("  within h of a wall: %.1f%% of the particles at t = %.6g s (each adds mirror ghosts to both "
               "passes)\n", 100.0 * near_fraction, start_time);
        /* median() sorted the repeats: the first is the fastest, the last the slowest. */
        const double fastest = S.wall[0], slowest = S.wall[repeats - 1];
        /* Three significant digits: a GPU step of a million particles takes about a nanosecond each. */
        printf("  %.2e particle-steps/s  (%.3g us per particle-step), median of %d x %d steps; ms per step "
               "over the repeats: min %.3f, max %.3f (max/min %.2f)\n", rate, 1e3 * ms / (double)n, repeats,
               steps, fastest, slowest, fastest > 0 ? slowest / fastest : NAN);
        /* Threads of every process: on one machine (the usual mpirun of a bench) they all compete. A note
         * only, never an error: CI machines are loaded as a rule, and the figures are still figures. */
        const int busy = threads * procs;
        if (load > busy)
            printf("  note: the 1-minute load average was %.2f when the bench started, more than the %d thread%s "
                   "eddy uses: other programs share the CPUs, so the figures may be slower than this machine "
                   "can do and vary from run to run (compare min and max above)\n",
                   load, busy, busy == 1 ? "" : "s");
        if (decomposed)
            printf("  %.2e particle-steps/s per process\n", rate / procs);
        double per_cell = cells[0] > 0 ? cells[2] / cells[0] : 0.0;
        double cand = cells[2] > 0 ? cells[1] / cells[2] : 0.0;
        double gathered = cells[2] > 0 ? cells[3] / cells[2] : 0.0;
        if (!unmeasured[0] && (!isfinite(neighbors) || !isfinite(cells[3])))
            snprintf(unmeasured, sizeof unmeasured, "out of memory for the neighbour count or the gather's buffer");
        if (unmeasured[0]) {
            printf("  neighbors per particle: not measured (%s)\n", unmeasured);
            printf("  cells holding particles: not measured (as above)\n");
            /* The machine line's documented stand-in (docs/host.md): no count is negative. */
            neighbors = cells[0] = per_cell = cand = gathered = -1.0;
        } else {
            printf("  neighbors per particle: %.1f (within h, self excluded%s)\n", neighbors,
                   decomposed ? "; halo copies included" : "");
            printf("  cells holding particles: %.0f, %.2f particles each; %.1f candidates per particle in the "
                   "3-cell bars around its cell, %.1f of them gathered (within reach of the cell's particles)\n",
                   cells[0], per_cell, cand, gathered);
        }
        printf("  ms per step: grid %.3f  density %.3f  forces %.3f  integration %.3f  total %.3f\n",
               med[EDDY_PHASE_GRID], med[EDDY_PHASE_DENSITY], med[EDDY_PHASE_FORCES],
               med[EDDY_PHASE_INTEGRATE], ms);
        if (decomposed) {
            printf("  ms per step in MPI (mean over processes): exchange %.3f (slowest process %.3f)  reductions "
                   "%.3f  outside MPI %.3f\n",
                   sp.exch_ms, sp.exch_max_ms, sp.red_ms, ms - sp.exch_ms - sp.red_ms);
            printf("  per step: %.3g bytes exchanged (all processes), %.1f messages with data, %.0f collectives "
                   "per process; one halo rebuild alone %.3f ms\n",
                   sp.bytes, sp.msgs, sp.colls, sp.rebuild_ms);
            printf("  host ms per step (slowest process, MPI calls apart): canonical order %.3f  migration %.3f  "
                   "balance check %.3f  halo update %.3f  refreshes %.3f  (their MPI calls %.3f)\n",
                   sp.host[HOST_ORDER], sp.host[HOST_MIGRATE], sp.host[HOST_BALANCE], sp.host[HOST_HALO],
                   sp.host[HOST_REFRESH], sp.host[HOST_MPI]);
            printf("  halo changes per step (all processes): %.1f copies appended, %.1f removed, %.1f particles "
                   "migrated; %.2f updates changed the layout\n",
                   sp.host[HOST_ADDED], sp.host[HOST_REMOVED], sp.host[HOST_MIGRATED], sp.host[HOST_CHANGES]);
        }
        printf("  grid build%s: %.1f ns per particle\n", host_grid ? "" : " (the solver's own, as it times it)",
               1e6 * med[EDDY_PHASE_GRID] / (double)n);
        printf("bench: scene=%s solver=%s grid=%s particles=%zu threads=%d steps=%d repeats=%d "
               "particle_steps_per_s=%.4e ns_per_particle_step=%.2f neighbors=%.2f grid_ms=%.4f "
               "density_ms=%.4f forces_ms=%.4f integration_ms=%.4f step_ms=%.4f grid_ns_per_particle=%.2f "
               "start_time=%.6g start_step=%llu near_wall=%.4f dt=%.6g occupied_cells=%.0f particles_per_cell=%.3f "
               "candidates=%.2f gathered=%.2f",
               simp->scene.name, solver, grid, n, threads, steps, repeats, rate, 1e6 * ms / (double)n,
               neighbors, med[EDDY_PHASE_GRID], med[EDDY_PHASE_DENSITY], med[EDDY_PHASE_FORCES],
               med[EDDY_PHASE_INTEGRATE], ms, 1e6 * med[EDDY_PHASE_GRID] / (double)n, start_time, start_step,
               near_fraction, dt, cells[0], per_cell, cand, gathered);
        if (decomposed)
            printf(" processes=%d particles_per_process=%.0f halo_particles=%.0f halo_bytes_per_step=%.6g "
                   "messages_per_step=%.1f collectives_per_step=%.0f exchange_ms=%.4f exchange_max_ms=%.4f "
                   "reduce_ms=%.4f rebuild_ms=%.4f order_ms=%.4f migrate_ms=%.4f balance_ms=%.4f halo_ms=%.4f "
                   "refresh_ms=%.4f decomp_mpi_ms=%.4f halo_added=%.2f halo_removed=%.2f migrated=%.2f "
                   "halo_layout_changes=%.3f",
                   procs, owned / procs, sp.halo, sp.bytes, sp.msgs, sp.colls, sp.exch_ms, sp.exch_max_ms,
                   sp.red_ms, sp.rebuild_ms, sp.host[HOST_ORDER], sp.host[HOST_MIGRATE], sp.host[HOST_BALANCE],
                   sp.host[HOST_HALO], sp.host[HOST_REFRESH], sp.host[HOST_MPI], sp.host[HOST_ADDED],
                   sp.host[HOST_REMOVED], sp.host[HOST_MIGRATED], sp.host[HOST_CHANGES]);
        /* Appended last, so that no key moves for the scripts that read the line. */
        printf(" step_ms_min=%.4f step_ms_max=%.4f load_average=%.2f simd=%s", fastest, slowest, load, simd);
        printf("\n");
        fflush(stdout);
    }
    samples_free(&S);
    eddy_session_close(ses);
    return rc;
}
