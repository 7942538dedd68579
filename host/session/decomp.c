/*
 * Several processes over MPI (decomp.h, docs/mpi.md). Every process builds the whole scene, then keeps
 * the slab it owns along the domain's longest axis (cut at particle-count quantiles) and, as halo
 * copies, every particle within HALO_REACH smoothing radii of its slab (across a periodic axis too).
 * After every step particles that left their slab migrate to their new owner, then the owners refresh
 * the halo copies, which stay between steps (update_halos); the world's exchange refreshes named fields
 * of those copies by id within a step.
 * When the owned counts drift apart (EDDY_REBALANCE, decomp.h) the slabs are cut again and the
 * particles migrate to their new owners. The gathers (hash, output, checkpoint pieces) are in
 * decomp_gather.c, the cuts and the rebalancing in decomp_balance.c, sharing the decomposition and the
 * particle record through decomp_internal.h. The next split would take the halo update, the canonical
 * order and the SIGINT/SIGTERM agreement out.
 */
#include "composite.h"
#include "decomp.h"
#include "fnv1a.h"
#include "decomp_internal.h"
#include "mpi_tally.h"
#include "services.h"

#include <eddy_sph/simd_path.h>

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef EDDY_HAVE_MPI
#include <mpi.h>
#include <sched.h>
#include <unistd.h>
#endif

/*
 * Halo width in smoothing radii. A neighbour sum at the end of a step reads particles within h of an
 * owned particle's position, and during a step (PBF: the predicted positions) each of the two has
 * moved by at most max_speed * dt, which the explosion guard keeps below h: 1 + 2 radii cover every
 * neighbour a step can meet, so no sum depends on how the domain was cut.
 */
#define HALO_REACH 3.0

/* ---------------------------------------------------------------------------------------------- */
/* Canonical order (one process and several)                                                      */

/* Host time of the decomposition (decomp.h, eddy_decomp_timing_read). */
static eddy_decomp_timing g_timing;

/* The collectives' tally (mpi_tally.h); zero without MPI. */
#ifdef EDDY_HAVE_MPI
eddy_mpi_tally decomp_tally;
#else
static eddy_mpi_tally decomp_tally;
#endif
void eddy_mpi_tally_read(eddy_mpi_tally *out)
{
    *out = decomp_tally;
}

/* CPU time of this process (all its threads) in ms: the host phases are timed with it, since on a
 * shared machine it grows only while the process runs, where wall time also counts the others. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
typedef struct id_index {
    uint64_t id;
    uint32_t index;
} id_index;

static int by_id(const void *a, const void *b)
{
    const uint64_t x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
    return (x > y) - (x < y);
}

static int canonical_order(eddy_world *w, eddy_error *err);

int eddy_decomp_canonical_order(eddy_world *w, const eddy_component *solver, eddy_error *err)
{
    if (!solver || !(solver->flags & EDDY_COMPONENT_DECOMPOSABLE)) return EDDY_OK;
    const double t0 = cpu_ms();
    const int rc = canonical_order(w, err);
    g_timing.order_ms += cpu_ms() - t0;
    g_timing.orders++;
    return rc;
}

static int canonical_order(eddy_world *w, eddy_error *err)
{
    /* The grid's stable sort by cell, then ids ascending within every cell. Only cells whose ids are
     * out of order are touched, and in place: a permutation within a cell leaves the cell ranges as
     * they are, and the few cells a step disturbs (particles that changed cells, halo copies appended,
     * migrants) cost far less than a gather of every field of every particle, which this pass did
     * before (docs/performance.md, "Several processes"). */
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    eddy_particles *p = &w->particles;
    const eddy_grid *g = &w->grid;
    if (p->count == 0) return EDDY_OK;
    const int fields = eddy_particles_field_count(p);
    size_t arrays = 0;
    for (int f = 0; f < fields; ++f) arrays += (size_t)eddy_particles_field_components(p, f);
    eddy_real **arr = NULL;
    id_index *tmp = NULL;
    uint64_t *scratch = NULL; /* one cell of any array: 8-byte words hold ids, reals, materials, flags */
    size_t cap = 0;
    int moved = 0;
    uint64_t *id = p->id;
    for (size_t k = 0; k < g->occupied_count; ++k) {
        const uint32_t c = g->occupied[k], b = g->cell_begin[c], e = g->cell_end[c];
        uint32_t s = b + 1;
        while (s < e && id[s - 1] < id[s]) ++s;
        if (s >= e) continue; /* already ascending: the usual case from the previous step's order */
        const size_t len = e - b;
        if (!arr) {
            arr = malloc(sizeof *arr * (arrays ? arrays : 1));
            if (!arr) goto oom;
            size_t a = 0;
            for (int f = 0; f < fields; ++f)
                for (int cc = 0; cc < eddy_particles_field_components(p, f); ++cc) arr[a++] = eddy_particles_field(p, f, cc);
        }
        if (len > cap) {
            id_index *t = realloc(tmp, sizeof *t * len);
            if (t) tmp = t;
            uint64_t *u = realloc(scratch, sizeof *u * len);
            if (u) scratch = u;
            if (!t || !u) goto oom;
            cap = len;
        }
        for (size_t j = 0; j < len; ++j) tmp[j] = (id_index){id[b + j], b + (uint32_t)j};
        qsort(tmp, len, sizeof *tmp, by_id);
        moved = 1;
        for (size_t a = 0; a < arrays; ++a) {
            eddy_real *v = arr[a], *out = (eddy_real *)scratch;
            for (size_t j = 0; j < len; ++j) out[j] = v[tmp[j].index];
            memcpy(v + b, out, sizeof *v * len);
        }
        for (size_t j = 0; j < len; ++j) id[b + j] = tmp[j].id;
        uint32_t *mat = p->material, *mout = (uint32_t *)scratch;
        for (size_t j = 0; j < len; ++j) mout[j] = mat[tmp[j].index];
        memcpy(mat + b, mout, sizeof *mat * len);
        uint8_t *flags = p->flags, *fout = (uint8_t *)scratch;
        for (size_t j = 0; j < len; ++j) fout[j] = flags[tmp[j].index];
        memcpy(flags + b, fout, len);
    }
    free(arr);
    free(tmp);
    free(scratch);
    /* What eddy_particles_gather would say: the order changed (solver states and the halo's index
     * lists key on the layout generation). */
    if (moved) eddy_particles_touch(p, EDDY_FIELD_LAYOUT);
    return EDDY_OK;
oom:
    free(arr);
    free(tmp);
    free(scratch);
    /* Cells already reordered are consistent; the ones left are not yet canonical: say the layout moved. */
    if (moved) eddy_particles_touch(p, EDDY_FIELD_LAYOUT);
    return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the canonical order of %zu particles",
                          p->count);
}

/* A decomposable solver's host arrays are reordered every step (the canonical order, also on one
 * process and in a build without MPI), and on several processes exchanged and migrated: none of that
 * reaches a device copy. */
static int refuse_resident_decomposable(const eddy_component *solver, eddy_error *err)
{
    if ((solver->flags & EDDY_COMPONENT_DECOMPOSABLE) && (solver->flags & EDDY_COMPONENT_DEVICE_RESIDENT))
        return eddy_error_set(err, EDDY_ERR_UNSUPPORTED,
                              "solver '%s' declares both EDDY_COMPONENT_DEVICE_RESIDENT and "
                              "EDDY_COMPONENT_DECOMPOSABLE, which this host does not support yet (it "
                              "reorders a decomposable solver's host arrays every step; docs/host.md, "
                              "\"Device-resident solvers\")",
                              solver->id);
    return EDDY_OK;
}

static int g_agreed_code = EDDY_OK;

void eddy_decomp_set_agreed(int code) { g_agreed_code = code; }

int eddy_decomp_is_agreed(int code)
{
    return code != EDDY_OK && (code == g_agreed_code || (code == EDDY_ERR_INTERRUPTED && eddy_decomp_size() > 1));
}

int eddy_decomp_failed_alike(int code, const char *message, double wait_s)
{
    if (eddy_decomp_size() <= 1 || eddy_decomp_is_agreed(code)) return 1;
    if (!eddy_decomp_same_failure(message, wait_s)) return 0;
    eddy_decomp_set_agreed(code);
    return 1;
}

int eddy_decomp_first_differing(uint64_t value)
{
    int first;
    eddy_decomp_first_differing_each(&value, 1, &first);
    return first;
}

void eddy_decomp_stop_all(const char *kind, const char *message, int status)
{
    char who[96];
    snprintf(who, sizeof who, "%srank %d of %d: ", kind, eddy_decomp_rank(), eddy_decomp_size());
    eddy_services_say(who, message);
    eddy_decomp_abort(status);
}

#ifndef EDDY_HAVE_MPI

/* ---------------------------------------------------------------------------------------------- */
/* Built without MPI: one process                                                                 */

int eddy_decomp_init(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return 0;
}
void eddy_decomp_finalize(void) {}
void eddy_decomp_abort(int code) { (void)code; }
int eddy_decomp_rank(void) { return 0; }
int eddy_decomp_size(void) { return 1; }
void eddy_decomp_own_world(void) {}
int eddy_decomp_use_comm(long long fortran_handle, const eddy_error *refused, eddy_error *err)
{
    (void)fortran_handle, (void)refused;
    return eddy_error_set(err, EDDY_ERR_UNSUPPORTED,
                          "this eddy was built without MPI (EDDY_MPI=OFF, or CMake found no MPI): its runs take one "
                          "process, and there is no communicator to set");
}
const char *eddy_decomp_describe(void) { return "no MPI (built without it: one process)"; }
int eddy_decomp_built_with_mpi(void) { return 0; }

int eddy_decomp_attach(eddy_world *w, const eddy_component *solver, int resuming, eddy_error *err)
{
    (void)resuming;
    if (refuse_resident_decomposable(solver, err)) return EDDY_ERR_UNSUPPORTED;
    return eddy_decomp_canonical_order(w, solver, err);
}
void eddy_decomp_detach(eddy_world *w) { (void)w; }
int eddy_decomp_reduce_stats(eddy_world *w, eddy_error *err)
{
    (void)w, (void)err;
    return EDDY_OK;
}
int eddy_decomp_step_outcome(eddy_world *w, int rc, eddy_error *err)
{
    (void)w, (void)err;
    return rc;
}
int eddy_decomp_check_domain(eddy_world *w, eddy_error *err)
{
    (void)w, (void)err;
    return EDDY_OK;
}
int eddy_decomp_exchange(eddy_world *w, eddy_error *err)
{
    (void)w, (void)err;
    return EDDY_OK;
}
int eddy_decomp_cuts(const eddy_world *w, double *cuts, int max)
{
    (void)w, (void)cuts, (void)max;
    return 0;
}
int eddy_decomp_resume_cuts(const double *cuts, int count, long long rebalances, double floor)
{
    (void)cuts, (void)count, (void)rebalances, (void)floor;
    return 0;
}
void eddy_decomp_resume_share(int share) { (void)share; }
uint64_t eddy_decomp_min_u64(uint64_t value) { return value; }
void eddy_decomp_first_differing_each(const uint64_t *values, int count, int *first)
{
    (void)values;
    for (int k = 0; k < count; ++k) first[k] = -1;
}
void eddy_decomp_broadcast(void *buf, size_t size, int root) { (void)buf, (void)size, (void)root; }
int eddy_decomp_same_failure(const char *message, double wait_s)
{
    (void)message, (void)wait_s;
    return 0;
}
int eddy_decomp_balance_of(const eddy_world *w, eddy_decomp_balance *b)
{
    (void)w, (void)b;
    return 0;
}
void eddy_decomp_set_stop_flag(volatile sig_atomic_t *flag) { (void)flag; }
void eddy_decomp_timing_read(const eddy_world *w, eddy_decomp_timing *t)
{
    (void)w;
    *t = g_timing;
}
int eddy_decomp_active(const eddy_world *w)
{
    (void)w;
    return 0;
}

#else

/* ---------------------------------------------------------------------------------------------- */
/* MPI                                                                                            */

/* CPU time of the process spent in the exchange's MPI calls (TIMED_MPI). */
static double g_mpi_cpu_ms;
/* Runs an MPI call of the exchange, adding its wall time (waiting for the other processes included)
 * to g_timing.mpi_ms; the phases count their CPU time without it (phase_begin / phase_end). */
#define TIMED_MPI(call)                                  \
    do {                                                 \
        const double w_mpi_ = eddy_time_ms();            \
        const double c_mpi_ = cpu_ms();                  \
        call;                                            \
        g_timing.mpi_ms += eddy_time_ms() - w_mpi_;      \
        g_mpi_cpu_ms += cpu_ms() - c_mpi_;               \
    } while (0)
typedef struct phase_clock {
    double t0, mpi0;
} phase_clock;
static phase_clock phase_begin(void)
{
    return (phase_clock){cpu_ms(), g_mpi_cpu_ms};
}
/* The CPU time since phase_begin outside MPI calls. */
static double phase_end(phase_clock c)
{
    return (cpu_ms() - c.t0) - (g_mpi_cpu_ms - c.mpi0);
}

static int g_initialized_here;
static char g_describe[160];

/* SIGINT/SIGTERM on several processes: mpirun forwards them to every process, each at its own moment,
 * but the processes must stop after the same step (a process that stopped alone would leave the others
 * waiting in a collective, or write checkpoint pieces of another step). So they are blocked in every
 * thread (before MPI_Init, whose threads inherit the mask) and stay pending; after every step the
 * processes agree on whether any has one pending (eddy_decomp_exchange) and all set the stop flag
 * the run loop polls at once. One process under mpirun gets them back unblocked. */
static volatile sig_atomic_t *g_stop_flag;

void eddy_decomp_set_stop_flag(volatile sig_atomic_t *flag)
{
    g_stop_flag = flag;
}

static void stop_signals(int how)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(how, &set, NULL);
}

static void agree_on_signals(void)
{
    sigset_t pending;
    int mine = 0, all = 0;
    if (sigpending(&pending) == 0) mine = sigismember(&pending, SIGTERM) ? SIGTERM : sigismember(&pending, SIGINT) ? SIGINT : 0;
    TALLY_REDUCE(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, eddy_decomp_comm()));
    if (all && g_stop_flag) *g_stop_flag = all;
}

/* The processes of every run of this process: MPI_COMM_WORLD (MPI_COMM_NULL here) until
 * eddy_decomp_use_comm puts a duplicate of the program's communicator here. */
static MPI_Comm g_comm = MPI_COMM_NULL;

MPI_Comm eddy_decomp_comm(void)
{
    return g_comm != MPI_COMM_NULL ? g_comm : MPI_COMM_WORLD;
}

/* eddy_decomp_same_failure's own communicator: its collectives match only each other. */
static MPI_Comm g_failure_comm = MPI_COMM_NULL;
/* The processes of the run on this process's node (MPI_COMM_TYPE_SHARED), split at the first attach
 * (check_threads); g_node_split < 0: the split failed somewhere, and no process checks. */
static MPI_Comm g_node_comm = MPI_COMM_NULL;
static int g_node_split;

int eddy_decomp_init(int *argc, char ***argv)
{
    int done = 0;
    MPI_Initialized(&done);
    if (!done) {
        stop_signals(SIG_BLOCK);
        MPI_Init(argc, argv);
        g_initialized_here = 1;
        if (eddy_decomp_size() <= 1) stop_signals(SIG_UNBLOCK);
    }
    if (eddy_decomp_size() > 1 && g_failure_comm == MPI_COMM_NULL) MPI_Comm_dup(eddy_decomp_comm(), &g_failure_comm);
    return 0;
}

int eddy_decomp_same_failure(const char *message, double wait_s)
{
    if (eddy_decomp_size() <= 1 || g_failure_comm == MPI_COMM_NULL || !message) return 0;
    /* FNV-1a of the message; the smallest of (h, ~h) over the processes gives the smallest and the
     * largest h in one reduction: equal when every process says the same. */
    const uint64_t h = eddy_fnv1a_str(EDDY_FNV1A_OFFSET, message);
    uint64_t mine[2] = {h, ~h}, all[2] = {0, 0};
    MPI_Request req;
    if (MPI_Iallreduce(mine, all, 2, MPI_UINT64_T, MPI_MIN, g_failure_comm, &req) != MPI_SUCCESS) return 0;
    const double t0 = MPI_Wtime();
    const struct timespec nap = {0, 5 * 1000 * 1000};
    int done = 0;
    while (!done && MPI_Wtime() - t0 < wait_s) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done) nanosleep(&nap, NULL);
    }
    /* Not done: the request stays posted; the abort that follows ends every process. */
    return done && all[0] == ~all[1];
}

void eddy_decomp_finalize(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done && g_failure_comm != MPI_COMM_NULL) MPI_Comm_free(&g_failure_comm);
    if (!done && g_node_comm != MPI_COMM_NULL) MPI_Comm_free(&g_node_comm);
    if (!done && g_comm != MPI_COMM_NULL) MPI_Comm_free(&g_comm);
    if (g_initialized_here && !done) MPI_Finalize();
}

static int mpi_up(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

int eddy_decomp_use_comm(long long fortran_handle, const eddy_error *refused, eddy_error *err)
{
    if (!mpi_up())
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "MPI is not running in this process (call MPI_Init before setting eddy's communicator, "
                              "and not after MPI_Finalize)");
    if (fortran_handle == (long long)MPI_Comm_c2f(MPI_COMM_NULL))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "the MPI handle is MPI_COMM_NULL's: no communicator to run on (a process that "
                              "MPI_Comm_split left out, with MPI_UNDEFINED, runs no session)");
    /* Open MPI's handles are ints; a value out of their range names no communicator. */
    MPI_Comm comm = MPI_COMM_NULL;
    if (fortran_handle >= INT_MIN && fortran_handle <= INT_MAX) comm = MPI_Comm_f2c((MPI_Fint)fortran_handle);
    /* Open MPI answers a handle it does not know with a null pointer, not MPI_COMM_NULL. */
    if (comm == MPI_COMM_NULL || comm == (MPI_Comm)0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "MPI handle %lld is not a communicator (pass MPI_Comm_c2f(comm) of a communicator this "
                              "process belongs to)", fortran_handle);
    int inter = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "MPI communicator %lld is an intercommunicator; a run is split over the processes of "
                              "one group (an intracommunicator)", fortran_handle);
    /* A reason one process alone has (a session open) is every process's refusal, before the
     * duplication they would otherwise wait in: the lowest such rank's message, to all. */
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int word = refused ? size - rank : 0, first = 0;
    MPI_Allreduce(&word, &first, 1, MPI_INT, MPI_MAX, comm);
    if (first > 0) {
        char text[EDDY_ERROR_MESSAGE_MAX];
        snprintf(text, sizeof text, "%s", refused ? refused->message : "");
        MPI_Bcast(text, (int)sizeof text, MPI_CHAR, size - first, comm);
        if (refused) {
            *err = *refused;
            return err->code;
        }
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "process %d of communicator %lld refused its change, so none changed: %s", size - first,
                              fortran_handle, text);
    }
    MPI_Comm mine;
    if (MPI_Comm_dup(comm, &mine) != MPI_SUCCESS)
        return eddy_error_set(err, EDDY_ERR_IO, "MPI_Comm_dup of communicator %lld failed", fortran_handle);
    /* What was made from the old communicator belongs to it: the node split is made again at the next
     * attach, the failure agreement's duplicate here. The old ones are let go without MPI_Comm_free,
     * which is collective over the old communicator's processes, of which only some may be here (the
     * fluid ranks of a program, leaving MPI_COMM_WORLD): a few handles until MPI_Finalize. */
    g_node_comm = MPI_COMM_NULL;
    g_node_split = 0;
    g_failure_comm = MPI_COMM_NULL;
    g_comm = mine;
    if (eddy_decomp_size() > 1) MPI_Comm_dup(g_comm, &g_failure_comm);
    return EDDY_OK;
}

void eddy_decomp_own_world(void)
{
    if (mpi_up() && g_comm == MPI_COMM_NULL) MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
}

int eddy_decomp_rank(void)
{
    int r = 0;
    if (mpi_up()) MPI_Comm_rank(eddy_decomp_comm(), &r);
    return r;
}

int eddy_decomp_size(void)
{
    int n = 1;
    if (mpi_up()) MPI_Comm_size(eddy_decomp_comm(), &n);
    return n;
}

void eddy_decomp_abort(int code)
{
    if (eddy_decomp_size() > 1) {
        fflush(stdout);
        fflush(stderr);
        MPI_Abort(eddy_decomp_comm(), code ? code : 1);
    }
}

int eddy_decomp_built_with_mpi(void) { return 1; }

const char *eddy_decomp_describe(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[len < (int)sizeof lib ? len : (int)sizeof lib - 1] = '\0';
    /* The first clause: "Open MPI v4.1.4". */
    lib[strcspn(lib, ",\n")] = '\0';
    snprintf(g_describe, sizeof g_describe, "MPI (%.100s; mpirun -np N eddy run SCENE)", lib);
    return g_describe;
}



static decomp *g_decomp;
/* The interior cuts of a run being resumed (eddy_decomp_resume_cuts), until it is attached. */
static double *g_resume_cut;
static int g_resume_cut_count;
static long long g_resume_rebalances;
static double g_resume_floor;
/* The world of the next resuming attach holds this process's share of the pieces (eddy_decomp_resume_share). */
static int g_resume_share;
/* The attached world holds such a share, not yet migrated (the next migration moves it). */
static int g_share_pending;

int eddy_decomp_active(const eddy_world *w)
{
    return g_decomp && g_decomp->w == w;
}

decomp *decomp_of(const eddy_world *w)
{
    return g_decomp && g_decomp->w == w ? g_decomp : NULL;
}

static void free_lists(decomp *d)
{
    for (int r = 0; r < d->size; ++r) {
        free(d->send_ids[r]);
        free(d->recv_ids[r]);
        free(d->send_idx[r]);
        free(d->recv_idx[r]);
        d->send_ids[r] = d->recv_ids[r] = NULL;
        d->send_idx[r] = d->recv_idx[r] = NULL;
        d->send_n[r] = d->recv_n[r] = 0;
        d->send_ids_cap[r] = d->recv_ids_cap[r] = d->send_idx_cap[r] = d->recv_idx_cap[r] = 0;
    }
}

void eddy_decomp_detach(eddy_world *w)
{
    decomp *d = decomp_of(w);
    if (!d) return;
    eddy_world_set_exchange(w, NULL);
    free_lists(d);
    free(d->send_ids);
    free(d->recv_ids);
    free(d->send_n);
    free(d->recv_n);
    free(d->send_idx);
    free(d->recv_idx);
    free(d->send_ids_cap);
    free(d->recv_ids_cap);
    free(d->send_idx_cap);
    free(d->recv_idx_cap);
    free(d->sbuf);
    free(d->rbuf);
    free(d->seen);
    free(d->cut);
    free(d->scount);
    free(d->sdispl);
    free(d->rcount);
    free(d->rdispl);
    free(d->map_key);
    free(d->map_val);
    free(d);
    g_decomp = NULL;
}

static int owner_of(const decomp *d, double x)
{
    if (!isfinite(x)) return d->rank; /* the explosion guard reports it where it is */
    x = axis_coord(d, x);
    int r = 0;
    while (r + 1 < d->size && x >= d->cut[r + 1]) ++r;
    return r;
}

static int in_reach(const decomp *d, int r, double x)
{
    if (!isfinite(x)) return 0;
    x = axis_coord(d, x);
    const double a = d->cut[r] - d->reach, b = d->cut[r + 1] + d->reach;
    if (x >= a && x < b) return 1;
    return d->periodic && ((x + d->period >= a && x + d->period < b) || (x - d->period >= a && x - d->period < b));
}

/* Record of one particle: id, material, every component of every field. */
static size_t components_total(const eddy_particles *p)
{
    size_t c = 0;
    for (int f = 0; f < eddy_particles_field_count(p); ++f) c += (size_t)eddy_particles_field_components(p, f);
    return c;
}

size_t decomp_record_size(const eddy_particles *p)
{
    return 16 + sizeof(eddy_real) * components_total(p);
}

void decomp_pack(const eddy_particles *p, size_t i, unsigned char *out)
{
    memcpy(out, &p->id[i], 8);
    memcpy(out + 8, &p->material[i], 4);
    memset(out + 12, 0, 4);
    out += 16;
    for (int f = 0; f < eddy_particles_field_count(p); ++f)
        for (int c = 0; c < eddy_particles_field_components(p, f); ++c) {
            memcpy(out, eddy_particles_field(p, f, c) + i, sizeof(eddy_real));
            out += sizeof(eddy_real);
        }
}

/* Appends n records; `halo` sets EDDY_PARTICLE_HALO on them. */
int decomp_unpack(eddy_particles *p, const unsigned char *in, size_t n, int halo, eddy_error *err)
{
    if (n == 0) return EDDY_OK;
    const size_t rs = decomp_record_size(p), first = p->count;
    eddy_real *xyz = calloc(3 * n, sizeof(eddy_real));
    if (!xyz) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu particles", n);
    int rc = eddy_particles_add(p, n, xyz, NULL, 0, NULL, err);
    free(xyz);
    if (rc) return rc;
    uint64_t *ids = malloc(sizeof(uint64_t) * p->count);
    if (!ids) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu ids", p->count);
    memcpy(ids, p->id, sizeof(uint64_t) * first);
    for (size_t k = 0; k < n; ++k) {
        const unsigned char *r = in + k * rs;
        const size_t i = first + k;
        memcpy(&ids[i], r, 8);
        memcpy(&p->material[i], r + 8, 4);
        p->flags[i] = halo ? EDDY_PARTICLE_HALO : 0;
        r += 16;
        for (int f = 0; f < eddy_particles_field_count(p); ++f)
            for (int c = 0; c < eddy_particles_field_components(p, f); ++c) {
                memcpy(eddy_particles_field(p, f, c) + i, r, sizeof(eddy_real));
                r += sizeof(eddy_real);
            }
    }
    rc = eddy_particles_set_ids(p, ids, err);
    free(ids);
    if (halo) p->halo_count += n;
    return rc;
}

/* Keeps the particles with keep[i] != 0, in order. */
static int keep_only(eddy_particles *p, const unsigned char *keep, eddy_error *err)
{
    uint32_t *order = malloc(sizeof(uint32_t) * (p->count ? p->count : 1));
    if (!order) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < p->count; ++i)
        if (keep[i]) order[k++] = (uint32_t)i;
    int rc = k == p->count ? EDDY_OK : eddy_particles_gather(p, order, k, err);
    free(order);
    return rc;
}

int decomp_too_big(size_t bytes, eddy_error *err)
{
    return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY,
                          "mpi: a message of %zu bytes exceeds MPI's int count; use more processes", bytes);
}

/* One all-to-all of byte buffers: send[r] holds sn[r] bytes for rank r; *recv gets the concatenation
 * in rank order, with rn[r] bytes from rank r. */
static int alltoall(decomp *d, unsigned char **send, const size_t *sn, unsigned char **recv, size_t *rn,
                    eddy_error *err)
{
    size_t total = 0;
    for (int r = 0; r < d->size; ++r) {
        if (sn[r] > INT32_MAX || total + sn[r] > INT32_MAX) return decomp_too_big(total + sn[r], err);
        d->scount[r] = (int)sn[r];
        d->sdispl[r] = (int)total;
        total += sn[r];
    }
    unsigned char *sbuf = malloc(total ? total : 1);
    if (!sbuf) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu bytes", total);
    for (int r = 0; r < d->size; ++r)
        if (sn[r]) memcpy(sbuf + d->sdispl[r], send[r], sn[r]);
    TIMED_MPI(TALLY_EXCHANGE(MPI_Alltoall(d->scount, 1, MPI_INT, d->rcount, 1, MPI_INT, eddy_decomp_comm())));
    size_t rtotal = 0;
    for (int r = 0; r < d->size; ++r) {
        if (rtotal + (size_t)d->rcount[r] > INT32_MAX) {
            free(sbuf);
            return decomp_too_big(rtotal + (size_t)d->rcount[r], err);
        }
        d->rdispl[r] = (int)rtotal;
        rn[r] = (size_t)d->rcount[r];
        rtotal += rn[r];
    }
    *recv = malloc(rtotal ? rtotal : 1);
    if (!*recv) {
        free(sbuf);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu bytes", rtotal);
    }
    decomp_tally_sends(d->scount, d->size, d->rank);
    TIMED_MPI(TALLY_EXCHANGE(MPI_Alltoallv(sbuf, d->scount, d->sdispl, MPI_BYTE, *recv, d->rcount, d->rdispl,
                                           MPI_BYTE, eddy_decomp_comm())));
    free(sbuf);
    return EDDY_OK;
}

/* Growable per-rank byte buffers. */
typedef struct bufs {
    unsigned char **b;
    size_t *n, *cap;
    int size;
} bufs;

static int bufs_init(bufs *B, int size)
{
    B->size = size;
    B->b = calloc((size_t)size, sizeof *B->b);
    B->n = calloc((size_t)size, sizeof *B->n);
    B->cap = calloc((size_t)size, sizeof *B->cap);
    return B->b && B->n && B->cap ? 0 : -1;
}

static void bufs_free(bufs *B)
{
    for (int r = 0; B->b && r < B->size; ++r) free(B->b[r]);
    free(B->b);
    free(B->n);
    free(B->cap);
}

static unsigned char *bufs_push(bufs *B, int r, size_t len)
{
    if (B->n[r] + len > B->cap[r]) {
        size_t c = B->cap[r] ? 2 * B->cap[r] : 4096;
        while (c < B->n[r] + len) c *= 2;
        unsigned char *f = realloc(B->b[r], c);
        if (!f) return NULL;
        B->b[r] = f;
        B->cap[r] = c;
    }
    unsigned char *at = B->b[r] + B->n[r];
    B->n[r] += len;
    return at;
}

/* Grows *buf to at least `bytes`; 0 or -1 (out of memory). */
static int grow(void *buf, size_t *cap, size_t bytes)
{
    void **b = buf;
    if (bytes <= *cap && *b) return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < bytes) c *= 2;
    void *f = realloc(*b, c);
    if (!f) return -1;
    *b = f;
    *cap = c;
    return 0;
}

/* id -> current index, rebuilt when the layout changed (a grid sort, a removal). */
static int ensure_map(decomp *d, eddy_error *err)
{
    const eddy_particles *p = &d->w->particles;
    const uint64_t gen = eddy_particles_generation(p, EDDY_FIELD_LAYOUT);
    if (d->map_key && gen == d->map_generation) return EDDY_OK;
    size_t cap = 64;
    while (cap < 2 * p->count) cap *= 2;
    if (cap > d->map_cap) {
        free(d->map_key);
        free(d->map_val);
        d->map_key = malloc(sizeof(uint64_t) * cap);
        d->map_val = malloc(sizeof(uint32_t) * cap);
        d->map_cap = cap;
        if (!d->map_key || !d->map_val) {
            free(d->map_key);
            free(d->map_val);
            d->map_key = NULL;
            d->map_val = NULL;
            d->map_cap = 0;
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the id map");
        }
    }
    memset(d->map_key, 0, sizeof(uint64_t) * d->map_cap);
    const size_t mask = d->map_cap - 1;
    for (size_t i = 0; i < p->count; ++i) {
        size_t h = (size_t)((p->id[i] * 0x9e3779b97f4a7c15ULL) >> 17) & mask;
        while (d->map_key[h]) h = (h + 1) & mask;
        d->map_key[h] = p->id[i] + 1;
        d->map_val[h] = (uint32_t)i;
    }
    d->map_generation = gen;
    return EDDY_OK;
}

static long long lookup(const decomp *d, uint64_t id)
{
    const size_t mask = d->map_cap - 1;
    size_t h = (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 17) & mask;
    while (d->map_key[h]) {
        if (d->map_key[h] == id + 1) return d->map_val[h];
        h = (h + 1) & mask;
    }
    return -1; /* removed by the domain policy since the halo was made */
}

/* Bumps the layout generation after an edit that left every particle's index and id where they were
 * (flags only), so the id map stays valid. */
static void touch_layout_keep_map(decomp *d)
{
    eddy_particles *p = &d->w->particles;
    const int map_valid = d->map_key && d->map_generation == eddy_particles_generation(p, EDDY_FIELD_LAYOUT);
    eddy_particles_touch(p, EDDY_FIELD_LAYOUT);
    if (map_valid) d->map_generation = eddy_particles_generation(p, EDDY_FIELD_LAYOUT);
}

/* Every field of one full record (decomp_pack) into particle i, whose id it already has. */
static void unpack_at(eddy_particles *p, size_t i, const unsigned char *r)
{
    memcpy(&p->material[i], r + 8, 4);
    r += 16;
    for (int f = 0; f < eddy_particles_field_count(p); ++f)
        for (int c = 0; c < eddy_particles_field_components(p, f); ++c) {
            memcpy(eddy_particles_field(p, f, c) + i, r, sizeof(eddy_real));
            r += sizeof(eddy_real);
        }
}

/*
 * Migration: the owned particles whose position lies in another slab go to its owner with every field.
 * The halo copies stay where they are (update_halos refreshes them in place), so a crossing changes
 * flags, not the layout: the particle that left stays here as a halo copy (update_halos refreshes it,
 * or drops it when it is out of reach), and an arrival this process held as a halo copy takes that
 * copy's slot. Only an arrival not held here is appended. Collective.
 */
static int migrate(decomp *d, eddy_error *err)
{
    const phase_clock t0 = phase_begin();
    eddy_particles *p = &d->w->particles;
    const size_t rs = decomp_record_size(p);
    int rc = EDDY_OK;
    bufs B;
    unsigned char *recv = NULL;
    size_t *rn = calloc((size_t)d->size, sizeof *rn), left = 0;
    if (bufs_init(&B, d->size) || !rn) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    const eddy_real *xa = coord_array(p, d->axis);
    for (size_t i = 0; i < p->count; ++i) {
        if (p->flags[i] & EDDY_PARTICLE_HALO) continue;
        const int o = owner_of(d, xa[i]);
        if (o == d->rank) continue;
        unsigned char *at = bufs_push(&B, o, rs);
        if (!at) {
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
            goto done;
        }
        decomp_pack(p, i, at);
        p->flags[i] = EDDY_PARTICLE_HALO;
        p->halo_count++;
        left++;
    }
    if (left) touch_layout_keep_map(d);
    if (g_share_pending && left) {
        /* A resume's share (decomp.h) has no halo yet: the particles that left are dropped now rather than
         * kept as halo copies for update_halos to sort out, so that the arrivals take their room instead
         * of growing the arrays past the share (the new layout invalidates the id map). */
        unsigned char *keep = malloc(p->count);
        if (!keep) {
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < p->count; ++i) keep[i] = !(p->flags[i] & EDDY_PARTICLE_HALO);
        rc = keep_only(p, keep, err);
        free(keep);
        if (rc) goto done;
        p->halo_count = 0;
    }
    g_share_pending = 0;
    if ((rc = alltoall(d, B.b, B.n, &recv, rn, err))) goto done;
    size_t got = 0, fresh = 0;
    for (int r = 0; r < d->size; ++r) got += rn[r] / rs;
    if (got && (rc = ensure_map(d, err))) goto done;
    int flipped = 0;
    for (size_t k = 0; k < got; ++k) {
        const unsigned char *rec = recv + k * rs;
        uint64_t id;
        memcpy(&id, rec, 8);
        const long long i = lookup(d, id);
        if (i < 0) {
            if (fresh != k) memmove(recv + fresh * rs, rec, rs);
            fresh++;
            continue;
        }
        if (!(p->flags[i] & EDDY_PARTICLE_HALO)) {
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "mpi: particle id %" PRIu64 " arrived from another process but is owned here", id);
            goto done;
        }
        unpack_at(p, (size_t)i, rec);
        p->flags[i] = 0;
        p->halo_count--;
        flipped = 1;
    }
    if (flipped) touch_layout_keep_map(d);
    d->migrated += (long long)left;
    rc = decomp_unpack(p, recv, fresh, 0, err);
done:
    free(recv);
    free(rn);
    bufs_free(&B);
    g_timing.migrate_ms += phase_end(t0);
    return rc;
}

/* A halo copy as sent after every step: id, material and the five built-in fields (HALO_FLOATS reals:
 * position, velocity, density, pressure, mass). That is what a neighbour sum reads of a copy before the
 * solver refreshes anything (positions, velocities, masses, materials; the ids order it), with density
 * and pressure along so that every built-in field of a copy is its owner's. A solver's own fields are
 * not sent: a decomposable solver refreshes every field it reads of its neighbours after writing it
 * (EDDY_COMPONENT_DECOMPOSABLE), so on a copy they hold what the last refresh left (zero on a new copy)
 * and nothing reads them before the next refresh. */
#define HALO_FLOATS 9
#define HALO_RECORD (16 + HALO_FLOATS * sizeof(eddy_real))

static void halo_pack(const eddy_particles *p, size_t i, unsigned char *out)
{
    const eddy_real v[HALO_FLOATS] = {p->x[i],  p->y[i],       p->z[i],        p->vx[i],  p->vy[i],
                                      p->vz[i], p->density[i], p->pressure[i], p->mass[i]};
    memcpy(out, &p->id[i], 8);
    memcpy(out + 8, &p->material[i], 4);
    memset(out + 12, 0, 4);
    memcpy(out + 16, v, sizeof v);
}

static void halo_unpack(eddy_particles *p, size_t i, const unsigned char *in)
{
    eddy_real v[HALO_FLOATS];
    memcpy(&p->material[i], in + 8, 4);
    memcpy(v, in + 16, sizeof v);
    p->x[i] = v[0], p->y[i] = v[1], p->z[i] = v[2];
    p->vx[i] = v[3], p->vy[i] = v[4], p->vz[i] = v[5];
    p->density[i] = v[6], p->pressure[i] = v[7], p->mass[i] = v[8];
}

/* Removes the particles with keep[i] == 0 (halo copies), moving the last kept ones into the holes:
 * O(removed) instead of a pass over every field of every particle. The order changes, which the
 * canonical order before the next step puts right (decomp.h). */
static void remove_holes(eddy_particles *p, unsigned char *keep)
{
    eddy_real *col[EDDY_MAX_FIELDS * EDDY_FIELD_MAX_COMPONENTS];
    int ncol = 0;
    for (int f = 0; f < eddy_particles_field_count(p); ++f)
        for (int c = 0; c < eddy_particles_field_components(p, f); ++c) col[ncol++] = eddy_particles_field(p, f, c);
    size_t lo = 0, hi = p->count, removed = 0;
    for (size_t i = 0; i < p->count; ++i) removed += !keep[i];
    for (;;) {
        while (lo < hi && keep[lo]) ++lo;
        while (hi > lo && !keep[hi - 1]) --hi;
        if (lo >= hi) break;
        const size_t from = --hi;
        for (int c = 0; c < ncol; ++c) col[c][lo] = col[c][from];
        p->id[lo] = p->id[from];
        p->material[lo] = p->material[from];
        p->flags[lo] = p->flags[from];
        keep[lo++] = 1;
    }
    /* The particles past the new count are unused slots, which eddy_particles_add clears when it
     * recycles them (only halo copies go, so the owned set is untouched). */
    p->count = lo;
    p->halo_count -= removed;
    eddy_particles_touch(p, EDDY_FIELD_LAYOUT);
}

/* Appends n halo copies from the records rec[0..n) (HALO_RECORD bytes each). Their ids are written as
 * they come: each arrives once, from its one owner, and the id map said this process held none of them,
 * so the id check of eddy_particles_set_ids (a sort of every id here) is not needed. */
static int append_halos(eddy_particles *p, const unsigned char *const *rec, size_t n, eddy_error *err)
{
    if (n == 0) return EDDY_OK;
    eddy_real *xyz = malloc(sizeof(eddy_real) * 3 * n);
    if (!xyz) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu halo copies", n);
    for (size_t k = 0; k < n; ++k) memcpy(xyz + 3 * k, rec[k] + 16, 3 * sizeof(eddy_real));
    size_t first = 0;
    int rc = eddy_particles_add(p, n, xyz, NULL, 0, &first, err);
    free(xyz);
    if (rc) return rc;
    for (size_t k = 0; k < n; ++k) {
        memcpy(&p->id[first + k], rec[k], 8);
        halo_unpack(p, first + k, rec[k]);
        p->flags[first + k] = EDDY_PARTICLE_HALO;
    }
    p->halo_count += n;
    eddy_particles_touch(p, EDDY_FIELD_LAYOUT);
    return EDDY_OK;
}

/*
 * The halo copies after every step: each owned particle within reach of another rank's slab goes there
 * (HALO_RECORD). A copy this process already holds is overwritten in place (found by id); a new one is
 * appended; a copy no owner sent is removed. So the halo holds exactly what a rebuild from nothing would
 * give (the same set of particles with the same built-in fields), and the layout changes only when a
 * particle entered or left the reach. Collective.
 */
static int update_halos(decomp *d, eddy_error *err)
{
    const phase_clock t0 = phase_begin();
    eddy_particles *p = &d->w->particles;
    const int size = d->size;
    int rc = EDDY_OK;
    const unsigned char **fresh = NULL;
    /* Who gets what: indices of owned particles per rank. */
    for (int r = 0; r < size; ++r) d->send_n[r] = 0;
    const eddy_real *xa = coord_array(p, d->axis);
    for (size_t i = 0; i < p->count; ++i) {
        if (p->flags[i] & EDDY_PARTICLE_HALO) continue;
        for (int r = 0; r < size; ++r) {
            if (r == d->rank || !in_reach(d, r, xa[i])) continue;
            if (grow(&d->send_idx[r], &d->send_idx_cap[r], sizeof(uint32_t) * (d->send_n[r] + 1))) goto oom;
            d->send_idx[r][d->send_n[r]++] = (uint32_t)i;
        }
    }
    size_t total = 0;
    for (int r = 0; r < size; ++r) {
        const size_t bytes = d->send_n[r] * HALO_RECORD;
        if (bytes > INT32_MAX || total + bytes > INT32_MAX) {
            rc = decomp_too_big(total + bytes, err);
            goto done;
        }
        d->scount[r] = (int)bytes;
        d->sdispl[r] = (int)total;
        total += bytes;
        if (grow(&d->send_ids[r], &d->send_ids_cap[r], sizeof(uint64_t) * (d->send_n[r] ? d->send_n[r] : 1))) goto oom;
    }
    if (grow(&d->sbuf, &d->sbuf_cap, total + 1)) goto oom;
    for (int r = 0; r < size; ++r)
        for (size_t k = 0; k < d->send_n[r]; ++k) {
            const uint32_t i = d->send_idx[r][k];
            halo_pack(p, i, d->sbuf + d->sdispl[r] + k * HALO_RECORD);
            d->send_ids[r][k] = p->id[i];
        }
    TIMED_MPI(TALLY_EXCHANGE(MPI_Alltoall(d->scount, 1, MPI_INT, d->rcount, 1, MPI_INT, eddy_decomp_comm())));
    size_t rtotal = 0;
    for (int r = 0; r < size; ++r) {
        if (rtotal + (size_t)d->rcount[r] > INT32_MAX) {
            rc = decomp_too_big(rtotal + (size_t)d->rcount[r], err);
            goto done;
        }
        d->rdispl[r] = (int)rtotal;
        rtotal += (size_t)d->rcount[r];
    }
    if (grow(&d->rbuf, &d->rbuf_cap, rtotal + 1)) goto oom;
    decomp_tally_sends(d->scount, d->size, d->rank);
    TIMED_MPI(TALLY_EXCHANGE(MPI_Alltoallv(d->sbuf, d->scount, d->sdispl, MPI_BYTE, d->rbuf, d->rcount,
                                           d->rdispl, MPI_BYTE, eddy_decomp_comm())));
    /* In place by id; what is not here yet is appended below. */
    if ((rc = ensure_map(d, err))) goto done;
    if (grow(&d->seen, &d->seen_cap, p->count + 1)) goto oom;
    memset(d->seen, 0, p->count);
    const size_t got = rtotal / HALO_RECORD;
    fresh = malloc(sizeof *fresh * (got ? got : 1));
    if (!fresh) goto oom;
    size_t nfresh = 0;
    for (int r = 0; r < size; ++r) {
        const size_t n = (size_t)d->rcount[r] / HALO_RECORD;
        d->recv_n[r] = n;
        if (grow(&d->recv_ids[r], &d->recv_ids_cap[r], sizeof(uint64_t) * (n ? n : 1))) goto oom;
        for (size_t k = 0; k < n; ++k) {
            const unsigned char *rec = d->rbuf + d->rdispl[r] + k * HALO_RECORD;
            uint64_t id;
            memcpy(&id, rec, 8);
            d->recv_ids[r][k] = id;
            const long long i = lookup(d, id);
            if (i < 0) {
                fresh[nfresh++] = rec;
            } else if (!(p->flags[i] & EDDY_PARTICLE_HALO)) {
                rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                    "mpi: particle id %" PRIu64 " arrived as a halo copy from process %d but is "
                                    "owned here", id, r);
                goto done;
            } else {
                halo_unpack(p, (size_t)i, rec);
                d->seen[i] = 1;
            }
        }
    }
    size_t stale = 0;
    for (size_t i = 0; i < p->count; ++i) {
        const int halo = (p->flags[i] & EDDY_PARTICLE_HALO) != 0;
        stale += halo && !d->seen[i];
        d->seen[i] = !halo || d->seen[i]; /* keep */
    }
    if (stale) remove_holes(p, d->seen);
    if ((rc = append_halos(p, fresh, nfresh, err))) goto done;
    /* The built-in fields changed under any solver copy of them. */
    for (int f = EDDY_FIELD_POSITION; f < EDDY_BUILTIN_FIELD_COUNT; ++f) eddy_particles_touch(p, f);
    d->halo_added += (long long)nfresh;
    d->halo_removed += (long long)stale;
    if (stale || nfresh) d->halo_layout_changes++;
    d->halo_updates++;
    /* The send and receive index lists: valid for this layout when nothing moved. */
    d->idx_generation = 0;
    if (!stale && !nfresh) {
        for (int r = 0; r < size; ++r) {
            if (grow(&d->recv_idx[r], &d->recv_idx_cap[r], sizeof(uint32_t) * (d->recv_n[r] + 1))) goto oom;
            for (size_t k = 0; k < d->recv_n[r]; ++k)
                d->recv_idx[r][k] = (uint32_t)lookup(d, d->recv_ids[r][k]);
        }
        d->idx_generation = eddy_particles_generation(p, EDDY_FIELD_LAYOUT);
    }
    goto done;
oom:
    rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the halo copies");
done:
    free(fresh);
    g_timing.halo_ms += phase_end(t0);
    return rc;
}

static int redistribute(decomp *d, eddy_error *err)
{
    int rc = migrate(d, err);
    return rc ? rc : update_halos(d, err);
}

/* The indices of send_ids / recv_ids in the current layout (UINT32_MAX: no longer here, removed by the
 * domain policy since the halo was made), looked up once per layout rather than once per refresh. */
static int ensure_idx(decomp *d, eddy_error *err)
{
    const eddy_particles *p = &d->w->particles;
    const uint64_t gen = eddy_particles_generation(p, EDDY_FIELD_LAYOUT);
    if (d->idx_generation == gen) return EDDY_OK;
    int rc = ensure_map(d, err);
    if (rc) return rc;
    for (int r = 0; r < d->size; ++r) {
        if (grow(&d->send_idx[r], &d->send_idx_cap[r], sizeof(uint32_t) * (d->send_n[r] + 1)) ||
            grow(&d->recv_idx[r], &d->recv_idx_cap[r], sizeof(uint32_t) * (d->recv_n[r] + 1)))
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the halo lists");
        for (size_t k = 0; k < d->send_n[r]; ++k) d->send_idx[r][k] = (uint32_t)lookup(d, d->send_ids[r][k]);
        for (size_t k = 0; k < d->recv_n[r]; ++k) d->recv_idx[r][k] = (uint32_t)lookup(d, d->recv_ids[r][k]);
    }
    d->idx_generation = gen;
    return EDDY_OK;
}

/* A failure within a step (eddy_decomp_step_outcome): the lowest failing rank's error, the same on every
 * process once known; known until the step's outcome is taken (or the next step begins). */
static eddy_error g_step_failure;
static int g_step_failure_known;

static void domain_failure_whole(const eddy_world *w, eddy_error *e);

/* Collective unless a failure is known: whether any process failed (`mine`: this one's error, or NULL),
 * in one MPI_Allreduce; if one did, its error (the lowest failing rank's) is broadcast to every process,
 * recorded as agreed and copied into *err. Returns its code, or EDDY_OK when none failed. */
static int step_failure(const eddy_world *w, const eddy_error *mine, eddy_error *err)
{
    if (!g_step_failure_known) {
        const int rank = eddy_decomp_rank(), size = eddy_decomp_size();
        int first = mine ? rank : size, lowest = size;
        TALLY_REDUCE(MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, eddy_decomp_comm()));
        if (lowest >= size) return EDDY_OK;
        if (rank == lowest) g_step_failure = *mine;
        MPI_Bcast(&g_step_failure, (int)sizeof g_step_failure, MPI_BYTE, lowest, eddy_decomp_comm());
        if (g_step_failure.code == EDDY_OK) g_step_failure.code = EDDY_ERR_PLUGIN; /* (a failure is one) */
        if (g_step_failure.code == EDDY_ERR_DOMAIN) domain_failure_whole(w, &g_step_failure);
        g_step_failure_known = 1;
        eddy_decomp_set_agreed(g_step_failure.code);
    }
    if (err && err != &g_step_failure) *err = g_step_failure;
    return g_step_failure.code;
}

int eddy_decomp_step_outcome(eddy_world *w, int rc, eddy_error *err)
{
    if (!decomp_of(w)) return rc;
    if (rc && err->code == EDDY_OK) err->code = rc;
    rc = step_failure(w, rc ? err : NULL, err);
    g_step_failure_known = 0;
    return rc;
}

/* eddy_world_refresh_fields: the owners' values of the named fields onto every halo copy. Both sides
 * know every count from the halo lists, so one MPI_Alltoallv carries it, after the question whether
 * any process failed (step_failure: its own preparation here included). */
static int refresh(void *context, eddy_world *w, const int *fields, size_t field_count, eddy_error *err)
{
    const phase_clock t0 = phase_begin();
    decomp *d = context;
    eddy_particles *p = &w->particles;
    eddy_real *col[EDDY_MAX_FIELDS * EDDY_FIELD_MAX_COMPONENTS];
    size_t ncol = 0;
    int rc = ensure_idx(d, err);
    if (rc) goto ask;
    for (size_t k = 0; k < field_count; ++k)
        for (int c = 0; c < eddy_particles_field_components(p, fields[k]) && ncol < sizeof col / sizeof *col; ++c)
            col[ncol++] = eddy_particles_field(p, fields[k], c);
    size_t total = 0, rtotal = 0;
    for (int r = 0; r < d->size; ++r) {
        const size_t sb = d->send_n[r] * ncol * sizeof(eddy_real), rb = d->recv_n[r] * ncol * sizeof(eddy_real);
        if (total + sb > INT32_MAX || rtotal + rb > INT32_MAX) {
            rc = decomp_too_big(total + sb > INT32_MAX ? total + sb : rtotal + rb, err);
            goto ask;
        }
        d->scount[r] = (int)sb;
        d->sdispl[r] = (int)total;
        d->rcount[r] = (int)rb;
        d->rdispl[r] = (int)rtotal;
        total += sb;
        rtotal += rb;
    }
    if (grow(&d->sbuf, &d->sbuf_cap, total + 1) || grow(&d->rbuf, &d->rbuf_cap, rtotal + 1)) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        goto ask;
    }
    eddy_real *out = (eddy_real *)(void *)d->sbuf;
    for (int r = 0; r < d->size; ++r)
        for (size_t k = 0; k < d->send_n[r]; ++k) {
            const uint32_t i = d->send_idx[r][k];
            for (size_t c = 0; c < ncol; ++c) *out++ = i != UINT32_MAX ? col[c][i] : 0.0f;
        }
ask:
    if ((rc = step_failure(w, rc ? err : NULL, err))) goto done;
    decomp_tally_sends(d->scount, d->size, d->rank);
    TIMED_MPI(TALLY_EXCHANGE(MPI_Alltoallv(d->sbuf, d->scount, d->sdispl, MPI_BYTE, d->rbuf, d->rcount,
                                           d->rdispl, MPI_BYTE, eddy_decomp_comm())));
    const eddy_real *in = (const eddy_real *)(const void *)d->rbuf;
    for (int r = 0; r < d->size; ++r)
        for (size_t k = 0; k < d->recv_n[r]; ++k, in += ncol) {
            const uint32_t i = d->recv_idx[r][k];
            if (i != UINT32_MAX)
                for (size_t c = 0; c < ncol; ++c) col[c][i] = in[c];
        }
done:
    g_timing.refresh_ms += phase_end(t0);
    g_timing.refreshes++;
    return rc;
}

/* eddy_world_reduce, after the question whether any process failed (step_failure). */
static int reduce(void *context, eddy_reduce_op op, double *values, size_t count, eddy_error *err)
{
    decomp *d = context;
    double *all = NULL;
    int rc = EDDY_OK;
    if (count > INT32_MAX) rc = decomp_too_big(count * sizeof(double), err);
    else if (op == EDDY_REDUCE_SUM && !(all = malloc(sizeof(double) * count * (size_t)d->size)))
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    if ((rc = step_failure(d->w, rc ? err : NULL, err))) {
        free(all);
        return rc;
    }
    if (op == EDDY_REDUCE_SUM) {
        /* Summed in rank order on every process, so every process gets the same bits. */
        TALLY_REDUCE(MPI_Allgather(values, (int)count, MPI_DOUBLE, all, (int)count, MPI_DOUBLE, eddy_decomp_comm()));
        for (size_t k = 0; k < count; ++k) {
            double s = 0.0;
            for (int r = 0; r < d->size; ++r) s += all[(size_t)r * count + k];
            values[k] = s;
        }
        free(all);
        return EDDY_OK;
    }
    TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, values, (int)count, MPI_DOUBLE,
                               op == EDDY_REDUCE_MIN ? MPI_MIN : MPI_MAX, eddy_decomp_comm()));
    return EDDY_OK;
}

/* For decomp_balance.c (decomp_internal.h). */
int decomp_migrate(decomp *d, eddy_error *err)
{
    return migrate(d, err);
}
decomp_mpi_clock decomp_mpi_begin(void)
{
    return (decomp_mpi_clock){eddy_time_ms(), cpu_ms()};
}
void decomp_mpi_end(decomp_mpi_clock c)
{
    g_timing.mpi_ms += eddy_time_ms() - c.wall0;
    g_mpi_cpu_ms += cpu_ms() - c.cpu0;
}

/* Why a solver of this project is not decomposable (docs/mpi.md); a plugin's own says nothing more. */
static const char *not_decomposable_reason(const char *id)
{
    /* The vortex particle method's Biot-Savart sum gives every vorton the velocity induced by all the
     * others (Cottet and Koumoutsakos (2000), "Vortex methods"): a halo of one kernel support cannot hold it. */
    if (strcmp(id, "vpm_hybrid") == 0) return "its Biot-Savart sum needs every vorton";
    return "its neighbour sums are not written for halo copies";
}

/*
 * The first cuts of a resume in which every process holds its share of the checkpoint's pieces
 * (eddy_decomp_resume_share): the shares are disjoint and together every particle, so the cuts selected
 * together from every process's coordinates are those decomp_make_cuts gives when every process holds
 * every particle (the same quantiles of the same coordinates). Collective; sets d->floor.
 */
static int share_cuts(decomp *d, eddy_error *err)
{
    const eddy_particles *p = &d->w->particles;
    const eddy_real *xa = coord_array(p, d->axis);
    d->cut[0] = d->periodic ? d->lo : -INFINITY;
    d->cut[d->size] = d->periodic ? d->hi : INFINITY;
    uint64_t *keys = malloc(sizeof *keys * (p->count ? p->count : 1));
    size_t k = 0;
    if (keys)
        for (size_t i = 0; i < p->count; ++i)
            if (isfinite(xa[i])) keys[k++] = decomp_cut_key(axis_coord(d, xa[i]));
    eddy_host_log(d->w->host, EDDY_LOG_DEBUG, "decomp",
                  "rank %d of %d: resume holds %zu particles of the checkpoint (its share of the pieces; the cuts "
                  "selected together, no process reads every piece)",
                  d->rank, d->size, p->count);
    const int rc = decomp_select_cuts(d->size, d->lo, d->hi, keys, k, d->cut, &d->floor, err);
    free(keys);
    return rc;
}

/* Each process picks its own vector path for the SPH neighbour loops (its CPU's, or EDDY_SIMD). Where
 * they differ, slabs round their sums differently and the run is not bit-identical to one process's
 * (docs/mpi.md): said once, by rank 0. Collective. */
static void warn_mixed_simd(void)
{
    static int warned; /* once per process: compare attaches once per solver */
    eddy_sph_simd simd;
    eddy_error e;
    /* (-1: an EDDY_SIMD the solvers will refuse, with their own message) */
    const int mine = eddy_sph_simd_select(&simd, &e) ? -1 : (int)simd;
    int lo = mine, hi = mine;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, eddy_decomp_comm());
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, eddy_decomp_comm());
    if (lo != hi && lo >= 0 && !warned && eddy_decomp_rank() == 0)
        fprintf(stderr, "eddy: warning: the processes run different SIMD paths of the SPH neighbour loops (%s to %s): the "
                        "result is not bit-identical to one process's; set EDDY_SIMD to one path on every process\n",
                eddy_sph_simd_name((eddy_sph_simd)lo), eddy_sph_simd_name((eddy_sph_simd)hi));
    warned |= lo != hi;
}

/* The CPUs this process may run on: its affinity mask, which OpenMP's default thread count follows and
 * mpirun's binding narrows (one core of the node's sixteen); every CPU online where the mask cannot be
 * read (more CPUs than a cpu_set_t holds). */
static void own_cpus(cpu_set_t *set)
{
    if (sched_getaffinity(0, sizeof *set, set) == 0 && CPU_COUNT(set) > 0) return;
    CPU_ZERO(set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < (online > 1 ? online : 1) && c < CPU_SETSIZE; ++c) CPU_SET((int)c, set);
}

/* What the processes of one node run against its CPUs (check_threads). */
typedef struct node_threads {
    int procs, total, least, most, defaults, cpus;
} node_threads;

/* The thread check's message for node figures `n`, the node named `where` ("this node"): "" when the
 * threads do not outnumber the CPUs, or do only because the processes do (mpirun's choice, which no
 * thread count undoes). */
static void threads_text(const node_threads *n, const char *where, char *out, size_t size)
{
    *out = '\0';
    if (n->most <= 1 || n->total <= n->cpus || n->total <= n->procs) return;
    char each[64], all[96];
    if (n->procs == 1) snprintf(each, sizeof each, "%d threads", n->most);
    else if (n->least == n->most) snprintf(each, sizeof each, "%d threads each", n->most);
    else snprintf(each, sizeof each, "%d to %d threads", n->least, n->most);
    const char *why = n->defaults == 0 ? "as --threads or the scene's world.threads asks" : "OpenMP's default";
    if (n->procs == 1) snprintf(all, sizeof all, "%s", why);
    else if (n->defaults == 0 || n->defaults == n->procs) snprintf(all, sizeof all, "%d in all, %s", n->total, why);
    else snprintf(all, sizeof all, "%d in all, OpenMP's default on %d of them", n->total, n->defaults);
    const int fit = n->cpus / n->procs > 1 ? n->cpus / n->procs : 1;
    char advice[96];
    snprintf(advice, sizeof advice, "%s--threads %d (the CPUs / the processes on the node)%s",
             n->defaults ? "give " : "", fit, n->defaults ? "" : " is likely faster");
    snprintf(out, size,
             "%s: %d process%s on %s run%s %s (%s) on the %d CPU%s %s may use: the threads wait for CPUs; %s",
             n->defaults ? "warning" : "notice", n->procs, n->procs == 1 ? "" : "es", where, n->procs == 1 ? "s" : "",
             each, all, n->cpus, n->cpus == 1 ? "" : "s", n->procs == 1 ? "it" : "they", advice);
}

/* OpenMP's default thread count follows each process's CPU binding. `mpirun -np 2` on two cores binds
 * each process to one (one thread each), but with more processes than cores mpirun binds none and each
 * takes every CPU: 3 processes of 2 threads on 2 cores ran 1.5 times as long as with --threads 1, and
 * nothing said why. So the processes of each node compare the threads they run with the CPUs their
 * masks allow together (their union: a binding leaves them fewer than the node has online), and it is
 * said once where the threads are too many: a warning where the count was OpenMP's default, a notice
 * (hidden by --quiet) where every process was given its count, a choice still worth knowing about.
 * Said by rank 0 when every node has the same figures, else by the first process of each node that
 * has some. Collective, and alike on every process: fixed-size reductions whatever the figures. */
static void check_threads(void)
{
    static int said; /* once per process: compare attaches once per solver */
    if (g_node_split == 0) {
        int ok = MPI_Comm_split_type(eddy_decomp_comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &g_node_comm) ==
                 MPI_SUCCESS, all_ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, eddy_decomp_comm());
        g_node_split = all_ok ? 1 : -1;
        if (!all_ok && ok) MPI_Comm_free(&g_node_comm);
    }
    if (g_node_split < 0) return;
    const int threads = eddy_services_threads();
    int sums[2] = {threads, !eddy_services_threads_given()}, node_sums[2] = {0, 0};
    int most[2] = {threads, -threads}, node_most[2] = {0, 0};
    cpu_set_t cpus, node_cpus;
    own_cpus(&cpus);
    CPU_ZERO(&node_cpus);
    MPI_Allreduce(sums, node_sums, 2, MPI_INT, MPI_SUM, g_node_comm);
    MPI_Allreduce(most, node_most, 2, MPI_INT, MPI_MAX, g_node_comm);
    MPI_Allreduce(&cpus, &node_cpus, (int)sizeof cpus, MPI_BYTE, MPI_BOR, g_node_comm);
    node_threads n = {0, node_sums[0], -node_most[1], node_most[0], node_sums[1], CPU_COUNT(&node_cpus)};
    int node_rank = 0;
    MPI_Comm_size(g_node_comm, &n.procs);
    MPI_Comm_rank(g_node_comm, &node_rank);
    char text[768];
    threads_text(&n, "this node", text, sizeof text);
    const uint64_t h = eddy_fnv1a_str(EDDY_FNV1A_OFFSET, text);
    uint64_t mine[2] = {h, ~h}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MIN, eddy_decomp_comm());
    const int alike = all[0] == ~all[1], rank = eddy_decomp_rank(), size = eddy_decomp_size();
    const int speak = *text && !said && (alike ? rank == 0 : node_rank == 0) && (n.defaults || !eddy_services_quiet());
    said |= *text != '\0';
    if (!speak) return;
    char where[MPI_MAX_PROCESSOR_NAME + 64], who[48] = "", shown[sizeof text];
    if (alike && size > n.procs) {
        snprintf(where, sizeof where, "each of the %d nodes", size / n.procs);
    } else if (alike) {
        snprintf(where, sizeof where, "this node");
    } else {
        char name[MPI_MAX_PROCESSOR_NAME];
        int len = 0;
        MPI_Get_processor_name(name, &len);
        name[len > 0 && len < (int)sizeof name ? len : 0] = '\0';
        snprintf(where, sizeof where, *name ? "this node (%s)" : "this node%s", name);
        snprintf(who, sizeof who, "rank %d of %d: ", rank, size);
    }
    threads_text(&n, where, text, sizeof text);
    fprintf(stderr, "eddy: %s%s\n", who, eddy_services_terminal_text(text, shown, sizeof shown));
}

int eddy_decomp_attach(eddy_world *w, const eddy_component *solver, int resuming, eddy_error *err)
{
    const int size = eddy_decomp_size();
    g_step_failure_known = 0; /* (a failure of the run before, e.g. compare's previous solver, is said) */
    if (refuse_resident_decomposable(solver, err)) return EDDY_ERR_UNSUPPORTED;
    if (size <= 1) return eddy_decomp_canonical_order(w, solver, err);
    if (!(solver->flags & EDDY_COMPONENT_DECOMPOSABLE))
        return eddy_error_set(err, EDDY_ERR_UNSUPPORTED,
                              "solver '%s' cannot run on %d processes: %s (it does not declare "
                              "EDDY_COMPONENT_DECOMPOSABLE, docs/mpi.md); run it as one process",
                              solver->id, size, not_decomposable_reason(solver->id));
    warn_mixed_simd();
    check_threads();
    /* [fill] A world filled with this process's particles only (decomp_fill.c): its cuts, taken as a
     * resume's (rebalances 0, the imbalance they give as floor). */
    const int filled = resuming ? 0 : eddy_decomp_fill_take(w);
    if (filled < 0) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    if (filled) resuming = 1;
    /* Resuming without the cuts of a run on as many processes (eddy_decomp_resume_cuts): split afresh as a
     * new run's. Every process holds every particle of the checkpoint (a single-process one), or
     * (`share`, eddy_decomp_resume_share) its share of the pieces of a run on another count. */
    const int share = resuming && g_resume_share && g_resume_cut_count != size - 1;
    g_resume_share = g_share_pending = 0;
    if (resuming && g_resume_cut_count != size - 1) resuming = 0;
    double threshold = INFINITY;
    int rc = decomp_rebalance_threshold(&threshold, err);
    if (rc) return rc;
    if (g_decomp) eddy_decomp_detach(g_decomp->w);
    decomp *d = calloc(1, sizeof *d);
    if (!d) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    d->w = w;
    d->size = size;
    d->rank = eddy_decomp_rank();
    const eddy_grid_layout *l = &w->grid.layout;
    d->dims = l->dimensions;
    d->axis = 0;
    for (int a = 1; a < l->dimensions; ++a)
        if ((double)l->hi[a] - l->lo[a] > (double)l->hi[d->axis] - l->lo[d->axis]) d->axis = a;
    d->periodic = l->periodic[d->axis];
    d->lo = l->lo[d->axis];
    d->hi = l->hi[d->axis];
    d->period = (double)(l->hi[d->axis] - l->lo[d->axis]);
    d->reach = HALO_REACH * (double)w->smoothing_radius;
    d->threshold = threshold;
    const size_t s = (size_t)size;
    d->cut = calloc(s + 1, sizeof *d->cut);
    d->send_ids = calloc(s, sizeof *d->send_ids);
    d->recv_ids = calloc(s, sizeof *d->recv_ids);
    d->send_n = calloc(s, sizeof *d->send_n);
    d->recv_n = calloc(s, sizeof *d->recv_n);
    d->scount = calloc(s, sizeof(int));
    d->sdispl = calloc(s, sizeof(int));
    d->rcount = calloc(s, sizeof(int));
    d->rdispl = calloc(s, sizeof(int));
    d->send_idx = calloc(s, sizeof *d->send_idx);
    d->recv_idx = calloc(s, sizeof *d->recv_idx);
    d->send_ids_cap = calloc(s, sizeof(size_t));
    d->recv_ids_cap = calloc(s, sizeof(size_t));
    d->send_idx_cap = calloc(s, sizeof(size_t));
    d->recv_idx_cap = calloc(s, sizeof(size_t));
    g_decomp = d;
    /* The renderer (a layer below) composites through these (host/viz/composite.h). */
    static const eddy_viz_processes viz = {eddy_decomp_active, eddy_decomp_rank, eddy_decomp_gather_records};
    eddy_viz_set_processes(&viz);
    if (!d->cut || !d->send_ids || !d->recv_ids || !d->send_n || !d->recv_n || !d->scount || !d->sdispl ||
        !d->rcount || !d->rdispl || !d->send_idx || !d->recv_idx || !d->send_ids_cap || !d->recv_ids_cap ||
        !d->send_idx_cap || !d->recv_idx_cap) {
        eddy_decomp_detach(w);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (resuming) {
        /* The particles are this process's piece (the slab it owned when the checkpoint was written):
         * the run's cuts again, so every process owns what it owned, and its solver state fits. */
        d->cut[0] = d->periodic ? d->lo : -INFINITY;
        d->cut[size] = d->periodic ? d->hi : INFINITY;
        memcpy(d->cut + 1, g_resume_cut, sizeof(double) * (size_t)(size - 1));
        d->rebalances = g_resume_rebalances;
        d->floor = g_resume_floor;
        if (filled) d->imbalance = d->floor; /* [fill] as a new run's */
        const eddy_particles *p = &w->particles;
        const eddy_real *xa = coord_array(p, d->axis);
        for (size_t i = 0; !rc && i < p->count; ++i)
            if (owner_of(d, xa[i]) != d->rank)
                rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                    "checkpoint piece %d holds particle id %" PRIu64 " at %c = %.17g, outside its slab "
                                    "[%.17g, %.17g) of the manifest's cuts",
                                    d->rank, p->id[i], "xyz"[d->axis], (double)xa[i], d->cut[d->rank],
                                    d->cut[d->rank + 1]);
    } else if (share) {
        rc = share_cuts(d, err);
        d->imbalance = d->floor;
        g_share_pending = 1;
    } else {
        rc = decomp_make_cuts(d, err);
        d->imbalance = d->floor;
    }
    if (!rc && !resuming && !share) {
        /* Every process built every particle: keep those of this slab, then the halo. */
        eddy_particles *p = &w->particles;
        unsigned char *keep = malloc(p->count ? p->count : 1);
        if (!keep) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        else {
            const eddy_real *xa = coord_array(p, d->axis);
            for (size_t i = 0; i < p->count; ++i) keep[i] = owner_of(d, xa[i]) == d->rank;
            rc = keep_only(p, keep, err);
            free(keep);
        }
    }
    /* A share stays as it is until the solver's fields are in (decomp.h): the first exchange moves it. */
    if (!rc && !share) rc = redistribute(d, err);
    if (rc) {
        eddy_decomp_detach(w);
        return rc;
    }
    const eddy_exchange ex = {sizeof ex, d, refresh, reduce};
    eddy_world_set_exchange(w, &ex);
    return eddy_decomp_canonical_order(w, solver, err);
}

/* Owned particle i outside the domain, by the grid build's own test. */
static int owned_and_outside(const eddy_world *w, size_t i)
{
    const eddy_particles *p = &w->particles;
    return !eddy_particle_is_halo(p, i) && eddy_grid_outside_domain(&w->grid.layout, p->x[i], p->y[i], p->z[i]);
}

/* Owned particles outside the domain (every step: a parallel count), and with `lowest` the index of
 * the one with the lowest id (SIZE_MAX: none; only once some left). */
static uint64_t owned_outside(const eddy_world *w, size_t *lowest)
{
    if (lowest) *lowest = SIZE_MAX;
    if (w->grid.policy != EDDY_DOMAIN_ERROR) return 0;
    const eddy_particles *p = &w->particles;
    const long long n = (long long)p->count;
    long long outside = 0;
    if (!lowest) {
#pragma omp parallel for schedule(static) reduction(+ : outside) if (n >= 65536)
        for (long long i = 0; i < n; ++i) outside += owned_and_outside(w, (size_t)i);
        return (uint64_t)outside;
    }
    for (size_t i = 0; i < p->count; ++i) {
        if (!owned_and_outside(w, i)) continue;
        ++outside;
        if (*lowest == SIZE_MAX || p->id[i] < p->id[*lowest]) *lowest = i;
    }
    return (uint64_t)outside;
}

int eddy_decomp_reduce_stats(eddy_world *w, eddy_error *err)
{
    (void)err;
    decomp *d = decomp_of(w);
    if (!d) return EDDY_OK;
    eddy_step_stats st = *eddy_world_step_stats(w);
    /* (the domain count rides on the sums: no collective of its own while nothing leaves) */
    double mx = st.max_speed,
           sums[3] = {(double)st.nonfinite_velocity, (double)st.nonfinite_position, (double)owned_outside(w, NULL)};
    TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_DOUBLE, MPI_MAX, eddy_decomp_comm()));
    TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_DOUBLE, MPI_SUM, eddy_decomp_comm()));
    st.max_speed = mx;
    st.nonfinite_velocity = (size_t)sums[0];
    st.nonfinite_position = (size_t)sums[1];
    d->outside = (uint64_t)sums[2];
    eddy_world_set_step_stats(w, &st);
    return EDDY_OK;
}

/* The grid build's message for particle `id` at `pos` outside the domain, `count` particles outside in
 * all (core/src/grid.c, domain_error), written at `out`. */
static void say_outside(const eddy_grid_layout *l, uint64_t id, const double pos[3], uint64_t count, char *out,
                        size_t size)
{
    char where[160], box[256];
    if (l->dimensions == 3) snprintf(where, sizeof where, "(%g, %g, %g)", pos[0], pos[1], pos[2]);
    else snprintf(where, sizeof where, "(%g, %g)", pos[0], pos[1]);
    int len = 0;
    for (int a = 0; a < l->dimensions && len < (int)sizeof box; ++a)
        len += snprintf(box + len, sizeof box - (size_t)len, "%s%c in [%g, %g]%s", a ? ", " : "", "xyz"[a],
                        (double)l->lo[a], (double)l->hi[a], l->periodic[a] ? " (periodic)" : "");
    int finite = 1;
    for (int a = 0; a < l->dimensions; ++a) finite &= isfinite(pos[a]) != 0;
    if (finite)
        snprintf(out, size, "particle id %" PRIu64 " at %s left the domain %s (%" PRIu64 " particle%s outside)", id,
                 where, box, count, count == 1 ? "" : "s");
    else
        snprintf(out, size,
                 "particle id %" PRIu64 " has a non-finite position %s (%" PRIu64 " particle%s outside the domain "
                 "%s); the simulation has probably exploded: lower dt or stiffness",
                 id, where, count, count == 1 ? "" : "s", box);
}

/* The position of owned particle `id` (index i here, SIZE_MAX: not here) on every process: broadcast by
 * its owner, since a minimum over the processes would not carry a NaN coordinate. */
static void owner_position(const eddy_particles *p, size_t i, uint64_t id, double pos[3])
{
    const int mine = i != SIZE_MAX && p->id[i] == id, size = eddy_decomp_size();
    int owner = mine ? eddy_decomp_rank() : size;
    TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, &owner, 1, MPI_INT, MPI_MIN, eddy_decomp_comm()));
    pos[0] = pos[1] = pos[2] = INFINITY;
    if (mine) pos[0] = p->x[i], pos[1] = p->y[i], pos[2] = p->z[i];
    if (owner < size) MPI_Bcast(pos, 3, MPI_DOUBLE, owner, eddy_decomp_comm());
}

/* A domain error met within a step (pbf's predicted positions) comes from the grid build of the lowest
 * failing process, which counted and named what it held: its halo copies in, the other processes'
 * particles out. Every process takes part here, so the message becomes one process's: the owned
 * particles outside summed over the processes, and the lowest id of those the grid build names (any
 * outside under the "error" policy, a non-finite one under the others), after the same prefix. */
static void domain_failure_whole(const eddy_world *w, eddy_error *e)
{
    char *at = strstr(e->message, "particle id ");
    if (!at) return; /* (the broadcast text is the same everywhere: every process returns here alike) */
    const eddy_particles *p = &w->particles;
    const eddy_grid_layout *l = &w->grid.layout;
    const int any = w->grid.policy == EDDY_DOMAIN_ERROR;
    uint64_t count = 0;
    size_t lowest = SIZE_MAX;
    for (size_t i = 0; i < p->count; ++i) {
        if (eddy_particle_is_halo(p, i) || !eddy_grid_outside_domain(l, p->x[i], p->y[i], p->z[i])) continue;
        ++count;
        const int named = any || !isfinite(p->x[i]) || !isfinite(p->y[i]) || !isfinite(p->z[i]);
        if (named && (lowest == SIZE_MAX || p->id[i] < p->id[lowest])) lowest = i;
    }
    TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_UINT64_T, MPI_SUM, eddy_decomp_comm()));
    const uint64_t id = eddy_decomp_min_u64(lowest == SIZE_MAX ? UINT64_MAX : p->id[lowest]);
    if (!count || id == UINT64_MAX) return;
    double pos[3];
    owner_position(p, lowest, id, pos);
    const size_t kept = (size_t)(at - e->message);
    say_outside(l, id, pos, count, at, sizeof e->message - kept);
}

int eddy_decomp_check_domain(eddy_world *w, eddy_error *err)
{
    decomp *d = decomp_of(w);
    if (!d || !d->outside) return EDDY_OK;
    size_t i;
    owned_outside(w, &i);
    /* The lowest id over the processes, and its owner's position. */
    const uint64_t id = eddy_decomp_min_u64(i == SIZE_MAX ? UINT64_MAX : w->particles.id[i]);
    double pos[3];
    owner_position(&w->particles, i, id, pos);
    eddy_decomp_set_agreed(EDDY_ERR_DOMAIN);
    eddy_error_set(err, EDDY_ERR_DOMAIN, "%s", "");
    say_outside(&w->grid.layout, id, pos, d->outside, err->message, sizeof err->message);
    return EDDY_ERR_DOMAIN;
}

int eddy_decomp_exchange(eddy_world *w, eddy_error *err)
{
    decomp *d = decomp_of(w);
    if (!d) return EDDY_OK;
    g_timing.exchanges++;
    agree_on_signals();
    int rc = migrate(d, err);
    if (!rc) {
        const phase_clock t0 = phase_begin();
        rc = decomp_balance(d, err);
        g_timing.balance_ms += phase_end(t0);
    }
    return rc ? rc : update_halos(d, err);
}

void eddy_decomp_timing_read(const eddy_world *w, eddy_decomp_timing *t)
{
    *t = g_timing;
    const decomp *d = decomp_of(w);
    if (!d) return;
    t->migrated = d->migrated;
    t->halo_updates = d->halo_updates;
    t->halo_added = d->halo_added;
    t->halo_removed = d->halo_removed;
    t->halo_layout_changes = d->halo_layout_changes;
}

int eddy_decomp_balance_of(const eddy_world *w, eddy_decomp_balance *b)
{
    const decomp *d = decomp_of(w);
    if (!d) return 0;
    *b = (eddy_decomp_balance){d->threshold, d->imbalance, d->floor, d->rebalances, d->rebalance_s,
                               d->checks ? d->imbalance_sum / (double)d->checks : d->imbalance};
    return 1;
}

int eddy_decomp_cuts(const eddy_world *w, double *cuts, int max)
{
    decomp *d = decomp_of(w);
    if (!d) return 0;
    int k = 0;
    for (int r = 1; r < d->size && k < max; ++r) cuts[k++] = d->cut[r];
    return k;
}

int eddy_decomp_resume_cuts(const double *cuts, int count, long long rebalances, double floor)
{
    free(g_resume_cut);
    g_resume_cut = NULL;
    g_resume_cut_count = 0;
    g_resume_rebalances = rebalances;
    g_resume_floor = floor;
    if (count <= 0) {
        g_resume_share = 0;
        return 0;
    }
    if (!(g_resume_cut = malloc(sizeof(double) * (size_t)count))) return -1;
    memcpy(g_resume_cut, cuts, sizeof(double) * (size_t)count);
    g_resume_cut_count = count;
    return 0;
}

void eddy_decomp_resume_share(int share) { g_resume_share = share; }

uint64_t eddy_decomp_min_u64(uint64_t value)
{
    if (eddy_decomp_size() <= 1) return value;
    uint64_t all = value;
    TALLY_REDUCE(MPI_Allreduce(&value, &all, 1, MPI_UINT64_T, MPI_MIN, eddy_decomp_comm()));
    return all;
}

void eddy_decomp_first_differing_each(const uint64_t *values, int count, int *first)
{
    const int size = eddy_decomp_size();
    if (count > EDDY_DECOMP_EACH_MAX) count = EDDY_DECOMP_EACH_MAX;
    for (int k = 0; k < count; ++k) first[k] = -1;
    if (size <= 1 || count <= 0) return;
    /* The smallest of (v, ~v) over the processes gives the smallest and the largest v in one reduction:
     * equal when every process has the same v (as in eddy_decomp_same_failure). */
    uint64_t mine[2 * EDDY_DECOMP_EACH_MAX], all[2 * EDDY_DECOMP_EACH_MAX];
    for (int k = 0; k < count; ++k) mine[2 * k] = values[k], mine[2 * k + 1] = ~values[k];
    TALLY_REDUCE(MPI_Allreduce(mine, all, 2 * count, MPI_UINT64_T, MPI_MIN, eddy_decomp_comm()));
    int any = 0;
    for (int k = 0; k < count; ++k) any |= all[2 * k] != ~all[2 * k + 1];
    if (!any) return;
    /* Some differ (every process knows it from the same reduction): which process first, for each. */
    uint64_t zero[EDDY_DECOMP_EACH_MAX];
    memcpy(zero, values, sizeof *values * (size_t)count);
    MPI_Bcast(zero, count, MPI_UINT64_T, 0, eddy_decomp_comm());
    const int rank = eddy_decomp_rank();
    int differs[EDDY_DECOMP_EACH_MAX], lowest[EDDY_DECOMP_EACH_MAX];
    for (int k = 0; k < count; ++k) differs[k] = zero[k] != values[k] ? rank : size;
    TALLY_REDUCE(MPI_Allreduce(differs, lowest, count, MPI_INT, MPI_MIN, eddy_decomp_comm()));
    for (int k = 0; k < count; ++k) first[k] = lowest[k] < size ? lowest[k] : -1;
}

void eddy_decomp_broadcast(void *buf, size_t size, int root)
{
    /* (a few hundred bytes: a command line, an environment variable's value) */
    if (eddy_decomp_size() > 1 && size < (1u << 30)) MPI_Bcast(buf, (int)size, MPI_BYTE, root, eddy_decomp_comm());
}

#endif /* EDDY_HAVE_MPI */
