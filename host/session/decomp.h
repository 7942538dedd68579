/*
 * host/session/decomp.h — several processes (MPI, docs/mpi.md): slabs along the domain's longest axis
 * balanced by particle count, halo copies within the reach of a step, migration, the world's exchange
 * (eddy_world_refresh_fields / eddy_world_reduce across processes) and the state hash over every
 * process. Built without MPI every call is the one-process answer.
 *
 * Same answer on any process count: the host puts the particles in (cell, id) order before every
 * solver step (eddy_decomp_canonical_order), in one process as in several, so every neighbour sum
 * visits its neighbours in an order that does not depend on which process owns which particle; the
 * grid's stable sort keeps any order that is a restriction of one global order.
 */
#ifndef EDDY_HOST_DECOMP_H
#define EDDY_HOST_DECOMP_H

#include <signal.h>

#include <eddy/eddy.h>

/* MPI_Init when built with MPI (a no-op otherwise, or when already initialized). Returns 0. */
int eddy_decomp_init(int *argc, char ***argv);
/* MPI_Finalize when eddy_decomp_init initialized MPI. */
void eddy_decomp_finalize(void);
/* Stops every process (MPI_Abort) with `code` when running on several; returns otherwise. */
void eddy_decomp_abort(int code);
/* An error every process reaches together, at the same step, from the same agreed figures: an
 * explosion seen in the reduced step statistics, an interrupt agreed after a step. The sites that
 * decide such an outcome record its code; main then has the first process say it once and ends every
 * process normally instead of with MPI_Abort, which would kill the first while it still writes (the
 * picture after an interrupt). An interrupt under mpirun is always agreed (signals are held until the
 * processes agree on them). */
void eddy_decomp_set_agreed(int code);
int eddy_decomp_is_agreed(int code);
/*
 * The outcome of a step on a split run: `rc` and `err` are this process's, from the canonical order and
 * the solver's step. A failure one process meets alone within the step (a particle that left the domain
 * in pbf's predicted positions, an allocation) leaves the others in the step's collectives; so every
 * field refresh and reduction of the exchange first asks, in one MPI_Allreduce, whether a process has
 * failed, and this call is the question asked after the step. The first time the answer is yes, every
 * process takes the error of the lowest failing rank (code and message; broadcast), which the exchange
 * call then returns (the solver passes it on) and this call returns; it is recorded as agreed, so it is
 * said once and every process reaches the run's end (final frame, picture) together. Collective unless
 * the failure is known already; rc as it is on one process or for a world that is not split. */
int eddy_decomp_step_outcome(eddy_world *w, int rc, eddy_error *err);
/* For an error that was not agreed: 1 when every process reports the same `message` within `wait_s`
 * seconds (a missing scene file, a bad environment variable: each found it alone), so that one line
 * says it and every process can end normally; 0 when another process does not arrive in time (it is
 * still stepping, or waits in a collective: the caller stops them with eddy_decomp_abort) or says
 * something else. Uses a communicator of its own, so it never matches the collectives of a step.
 * 0 on one process. */
int eddy_decomp_same_failure(const char *message, double wait_s);
/* How long a failing process waits for the others' messages: they fail at nearly the same moment when
 * they fail alike, but on a loaded machine (a CI runner with every core taken, oversubscribed
 * processes) 2 s let a slow process miss it, and each then said the same error and aborted. The price
 * is the delay before a process that failed alone stops the others. */
#define EDDY_DECOMP_FAILURE_WAIT_S 5.0
/* After a failure (`code`, `message`) on several processes, before any collective: 1 when every process
 * got there alike, an agreed outcome or the same message from each within `wait_s` seconds (then
 * recorded as agreed: main says it once), so that they may still write the final frame and the picture
 * together; 0 when another process does not come (it waits in the exchange of the step this one left,
 * e.g. after a particle left the domain within the step) or says something else: the caller must then
 * enter no collective and stop every process (eddy_decomp_stop_all). 1 on one process. */
int eddy_decomp_failed_alike(int code, const char *message, double wait_s);
/* "eddy: <kind>rank R of N: <message>" on stderr, then every process stops (MPI_Abort with `status`).
 * Returns only on one process. */
void eddy_decomp_stop_all(const char *kind, const char *message, int status);
/* Collective on several processes: the smallest `value` over them (the value itself on one). */
uint64_t eddy_decomp_min_u64(uint64_t value);

/* This process's rank and the number of processes of the runs it takes part in (0 and 1 without MPI):
 * in MPI_COMM_WORLD, or in the communicator of eddy_decomp_use_comm. */
int eddy_decomp_rank(void);
int eddy_decomp_size(void);
/*
 * From now on every run of this process is split over the processes of the communicator whose Fortran
 * handle is `fortran_handle` (MPI_Comm_c2f) instead of MPI_COMM_WORLD (eddy_session_set_mpi_comm in
 * <eddy_host/session.h>). eddy works on a duplicate of it, so its messages never match the program's
 * own; the node split and the failure agreement start again on it. Collective over that communicator.
 * Refused (EDDY_ERR_UNSUPPORTED or EDDY_ERR_INVALID_ARGUMENT, naming why, nothing changed) built
 * without MPI, before MPI_Init or after MPI_Finalize, for a handle that is no communicator (MPI_Comm_f2c
 * gives MPI_COMM_NULL) and for an intercommunicator: alike on every process. `refused` (may be NULL):
 * this process's own reason to refuse (a session open); every process of the communicator then refuses,
 * with its own reason, or naming the lowest rank that had one and its message.
 */
int eddy_decomp_use_comm(long long fortran_handle, const eddy_error *refused, eddy_error *err);
/* Before the first session of a process opens, with no communicator given: eddy's own duplicate of
 * MPI_COMM_WORLD (collective over it, as the open is), so that its messages never meet the program's on
 * MPI_COMM_WORLD (its state-hash chain once took a program's pending tag-0 message for its own). */
void eddy_decomp_own_world(void);
/* "MPI (Open MPI v4.1.4, ...)" or "no MPI (built without it)", for `eddy --version` and `eddy list`. */
const char *eddy_decomp_describe(void);
/* 1 in a build with MPI (EDDY_HAVE_MPI), 0 without: said apart in the warning to a launcher's processes
 * that find themselves alone (main.c). */
int eddy_decomp_built_with_mpi(void);

/*
 * After the world is built and before the solver's create(): on several processes refuses a solver
 * without EDDY_COMPONENT_DECOMPOSABLE (naming it), keeps this process's slab and its halo, and
 * installs the exchange; then, for a decomposable solver, puts the particles in canonical order (also
 * in one process). `resuming` with the cuts of eddy_decomp_resume_cuts: the world holds this
 * process's checkpoint piece, kept whole under those cuts (a particle outside its slab is refused);
 * otherwise every process holds every particle and the slabs are cut afresh. On several processes it
 * also says once when the processes of a node run more threads than their CPUs (docs/mpi.md, "Threads
 * per process").
 */
int eddy_decomp_attach(eddy_world *w, const eddy_component *solver, int resuming, eddy_error *err);
/* Forgets the world's decomposition (eddy_sim_close). */
void eddy_decomp_detach(eddy_world *w);

/* (cell, id) order of every particle; only for a decomposable solver, which `solver` says. */
int eddy_decomp_canonical_order(eddy_world *w, const eddy_component *solver, eddy_error *err);

/* After a step: the step statistics combined over every process (max speed, non-finite counts). */
int eddy_decomp_reduce_stats(eddy_world *w, eddy_error *err);
/* After the explosion guard: under out_of_domain "error", the owned particles that left the domain
 * in the step, counted over every process with the statistics above. A split run checks the domain
 * here, not in the next step's grid build, so that every process fails alike (the same message, naming
 * the lowest id, an agreed error: eddy_decomp_is_agreed) instead of the one owning such a particle
 * alone. EDDY_ERR_DOMAIN, in the grid build's words ("particle id I at (x, y) left the domain ..."); EDDY_OK
 * on one process or when none left. Collective when some left. */
int eddy_decomp_check_domain(eddy_world *w, eddy_error *err);
/* After a step that passed the explosion guard: migration, rebalancing when due (below), then fresh
 * halo copies. */
int eddy_decomp_exchange(eddy_world *w, eddy_error *err);

/*
 * Rebalancing (docs/mpi.md). After every migration the processes compare their owned particle counts
 * (one MPI_Allgather, so every process takes the same decision); once the imbalance, largest count /
 * mean - 1, exceeds `threshold` over `floor`, the processes select new cuts together at the count
 * quantiles (decomp_balance.c: no process gathers another's coordinates) and all migrate. `floor` is
 * the imbalance those cuts achieve: particles on one coordinate (a lattice column) go to one slab
 * whole, so it need not be 0, and cuts that would not lower the imbalance are not applied (the floor
 * then rises to what they would give; it halves every 10 checks without new cuts). The threshold is
 * the environment variable EDDY_REBALANCE (a number >= 0, or "off"), which rank 0 reads and checks for
 * all; EDDY_DECOMP_REBALANCE_DEFAULT without it.
 */
#define EDDY_DECOMP_REBALANCE_DEFAULT 0.05
typedef struct eddy_decomp_balance {
    double threshold;     /* INFINITY: off */
    double imbalance;     /* after the last migration */
    double floor;         /* what the last cuts achieved */
    long long rebalances; /* new cuts applied so far (a resume on as many processes goes on counting) */
    double seconds;       /* wall time this process spent in them (gather, cut, extra migration) */
    /* The mean over the steps of this run of the imbalance each ran with: a step costs about the
     * largest count, so (1 + mean_imbalance) is its cost over a perfectly balanced step. */
    double mean_imbalance;
} eddy_decomp_balance;
/* Fills *b and returns 1 when `w` is split over several processes; returns 0 otherwise. */
int eddy_decomp_balance_of(const eddy_world *w, eddy_decomp_balance *b);

/*
 * Host time of the decomposition in this process, summed since it started (eddy bench prints it per
 * step, docs/performance.md): the canonical order before every step (on one process too), and on
 * several the migration, the rebalancing check (with any new cuts and their migration), the halo
 * update after every step and the field refreshes inside one, each without the MPI calls it makes,
 * whose time (waiting for the other processes included) is mpi_ms. The counts describe the halo:
 * particles that migrated, halo copies appended and removed, and updates that changed the layout (the
 * others overwrote the copies in place).
 */
typedef struct eddy_decomp_timing {
    double order_ms, migrate_ms, balance_ms, halo_ms, refresh_ms, mpi_ms;
    long long orders, exchanges, refreshes;
    long long migrated, halo_updates, halo_added, halo_removed, halo_layout_changes;
} eddy_decomp_timing;
void eddy_decomp_timing_read(const eddy_world *w, eddy_decomp_timing *t);

/* The state hash of the whole run (every process's owned particles), on every process. Collective. */
int eddy_decomp_hash(eddy_world *w, uint64_t *hash, eddy_error *err);

/*
 * The whole run's particles for what one process writes (every writer but the VTK pieces, a plugin's
 * probe, `eddy compare`'s samples): on several processes a collective call that gathers every process's
 * owned particles (host copies synced) to rank 0 into *whole, a shallow copy of *w (materials,
 * boundaries, grid and impl shared: read its particles, materials and scalars only, never build its
 * grid) whose particles are the gathered set without halo copies; *whole is NULL on the other ranks.
 * On one process: the host copy synced and *whole = w. Release with eddy_decomp_release_whole.
 */
int eddy_decomp_gather_whole(eddy_world *w, eddy_world **whole, eddy_error *err);
void eddy_decomp_release_whole(eddy_world *w, eddy_world *whole);

/*
 * Checkpoints of a run on several processes (docs/mpi.md). eddy_decomp_owned_world: this process's
 * owned particles without halo copies, as a shallow copy of *w like eddy_decomp_gather_whole's (*owned
 * = w on one process); release with eddy_decomp_release_whole. eddy_decomp_cuts: the interior cuts
 * (size - 1 of them, at most max) into cuts; returns their number (0 on one process).
 * eddy_decomp_resume_cuts: the cuts the next eddy_decomp_attach with `resuming` uses, whose world
 * holds this process's piece, with the run's rebalance count and floor (eddy_decomp_balance; returns
 * -1 when out of memory). eddy_decomp_all_ok: collective; true
 * when `ok` on every process.
 */
int eddy_decomp_owned_world(eddy_world *w, eddy_world **owned, eddy_error *err);
int eddy_decomp_cuts(const eddy_world *w, double *cuts, int max);
int eddy_decomp_resume_cuts(const double *cuts, int count, long long rebalances, double floor);
int eddy_decomp_all_ok(int ok);
/* Collective: a status that a process may meet alone, outside a step (reading its checkpoint piece,
 * making its output folder), agreed before the next collective. Every process returns the error
 * (code and message) of the lowest process whose `rc` is not 0, recorded as agreed (main says it once
 * and every process ends normally), or EDDY_OK when none failed. `rc` on one process. */
int eddy_decomp_agree_error(int rc, eddy_error *err);

/* The run loop's stop flag (services.h), which the processes set together after a step once any has
 * SIGINT or SIGTERM pending (blocked on several processes since eddy_decomp_init; docs/mpi.md). */
void eddy_decomp_set_stop_flag(volatile sig_atomic_t *flag);

/* True when the world is split over several processes. */
int eddy_decomp_active(const eddy_world *w);

/*
 * Each process creates only its particles (decomp_fill.c, docs/mpi.md). eddy_decomp_fill_begin, before a
 * new run's world is built (session.c; never for a resume): on several processes it has the scene's
 * fill (host/scene/scene_fill.h) cut the slabs as eddy_decomp_attach would from every particle (the
 * longest axis of the grid, the count quantiles with the same rule, from the lattice planes as
 * (coordinate, count) pairs) and create only this process's particles with their whole-run ids; the
 * attach then takes those cuts (eddy_decomp_fill_take) as a resume's, with rebalances 0 and the
 * imbalance they give as floor. The environment variable EDDY_DECOMP_FILL = "whole" keeps the earlier
 * way (every process builds every particle, the attach keeps its slab), for comparisons; any value but
 * "whole" or "pieces" is refused. eddy_decomp_fill_end after the world is open (or failed) forgets it.
 */
int eddy_decomp_fill_begin(eddy_error *err);
void eddy_decomp_fill_end(void);
/* In eddy_decomp_attach: 1 when `w` was filled as this process's piece, whose cuts are then the next
 * resuming attach's (eddy_decomp_resume_cuts; -1: out of memory); 0 otherwise. */
int eddy_decomp_fill_take(const eddy_world *w);
/* This process's peak resident memory in MiB since it started (VmHWM of /proc/self/status, the figure
 * the fill shrinks; eddy bench prints the largest over the processes); NAN where it cannot be read. */
double eddy_decomp_peak_mib(void);
/* What the fills of this process created: particles, and worlds filled as pieces (tests, EDDY_LOG=debug). */
void eddy_decomp_fill_counts(unsigned long long *particles, unsigned long long *pieces);

/*
 * The count-quantile cuts of sorted distinct coordinates v[0..m) with multiplicities c[0..m): exactly
 * the cuts decomp.c's quantile_cuts gives for the k = sum c coordinates written out (cut r at the
 * coordinate of particle k r / size, moved to the nearer end of its run of equal coordinates; with
 * k = 0 the cuts split [lo, hi] evenly). Writes cut[1..size-1]; returns the imbalance they give,
 * largest count / mean - 1.
 */
double eddy_decomp_quantile_pairs(const double *v, const uint64_t *c, size_t m, int size, double lo, double hi,
                                  double *cut);

/*
 * Sums count integers over every process, in place, on every process (an integer MPI_SUM: exact, the
 * same in any order): the packed exact sums of the diagnostics and probes (host/observe/exact_sum.h).
 * Collective; on one process the values stay.
 */
int eddy_decomp_sum_int64(eddy_world *w, int64_t *values, size_t count, eddy_error *err);

/*
 * One outcome of a write every process takes part in (decomp_agree.c): whether every process's part went
 * well (a frame's pieces, a checkpoint's), agreed by all of them, so that all stop at the same point with
 * the same error; a process that left the write alone while the others went on to the next step's
 * collectives would wait in them for ever (a rank-0 write error in the gathered path hung the job).
 * eddy_decomp_failure_word(rc): what a process puts into a maximum over the processes, size - rank when
 * rc failed, else 0, so that the maximum names the lowest failing rank. eddy_decomp_share_failure: after
 * such a maximum said `word` (> 0), the error of that process on every process (its own `mine` there;
 * elsewhere "another process (rank R) could not write <what>: <its message>"), recorded as agreed, so
 * rank 0 says it once and the run ends as one process's does. eddy_decomp_agree_outcome: the maximum of
 * the words, then the sharing when one failed; EDDY_OK when none did. Collective.
 */
double eddy_decomp_failure_word(int rc);
int eddy_decomp_share_failure(eddy_world *w, double word, const eddy_error *mine, const char *what, eddy_error *err);
int eddy_decomp_agree_outcome(eddy_world *w, int rc, const eddy_error *mine, const char *what, eddy_error *err);


/*
 * Resuming on another process count than the checkpoint's (docs/mpi.md): each process reads only its
 * share of the pieces (piece k on process k mod size) and says so with eddy_decomp_resume_share(1)
 * before the resuming eddy_decomp_attach, whose world then holds that share rather than every particle.
 * The attach selects the cuts of a new run together from every process's particles (the count
 * quantiles, decomp_select_cuts: no coordinate leaves its process), keeps every particle where it is and
 * makes no halo, so that the solver's own fields, registered by its create(), are restored from this
 * process's pieces; the first eddy_decomp_exchange then migrates every particle to its owner with all of
 * its fields and makes the halo. The attach forgets the flag (as does eddy_decomp_resume_cuts(NULL, 0, ..)).
 */
void eddy_decomp_resume_share(int share);
/* Collective: the lowest rank whose `value` differs from rank 0's, or -1 when every process has rank 0's
 * (always -1 on one process). */
int eddy_decomp_first_differing(uint64_t value);
/* Collective: for each of the `count` values (at most EDDY_DECOMP_EACH_MAX), the lowest rank whose value
 * differs from rank 0's into first[k], or -1 where every process has rank 0's (always -1 on one
 * process). One MPI_Allreduce when every value agrees everywhere; two more collectives otherwise. main
 * compares with it what the processes of a launch were given (host/cli/launch.c). */
#define EDDY_DECOMP_EACH_MAX 16
void eddy_decomp_first_differing_each(const uint64_t *values, int count, int *first);
/* Collective: the `size` bytes at `buf` on process `root` into `buf` on every process (MPI_Bcast; nothing
 * on one process). */
void eddy_decomp_broadcast(void *buf, size_t size, int root);

/*
 * Collective on a split run (one process: a copy): every process's `count` records of `size` bytes to
 * rank 0, in rank order, into a malloc'ed *all of *total records (the other processes get NULL, 0).
 * EDDY_ERR_OUT_OF_MEMORY on the process that failed (its error stops every process, main.c), and on
 * every process alike past 2 GiB in all (MPI counts are int). The one gather of the host: every
 * particle for what rank 0 writes (eddy_decomp_gather_whole) and the renderer's discs that show
 * (host/viz/composite.h, installed as its hook).
 */
int eddy_decomp_gather_records(const void *mine, size_t count, size_t size, void **all, size_t *total,
                               eddy_error *err);

#endif /* EDDY_HOST_DECOMP_H */
