/*
 * host/session/decomp_internal.h — what decomp.c (the slabs, halos, migration and exchange) shares
 * with decomp_gather.c (the gathers for output, the hash and the checkpoint pieces) and
 * decomp_balance.c (the cuts and the rebalancing): the one decomposition of this process, the
 * particle record both send, the coordinate along the cut axis. MPI builds only.
 */
#ifndef EDDY_HOST_DECOMP_INTERNAL_H
#define EDDY_HOST_DECOMP_INTERNAL_H

#ifdef EDDY_HAVE_MPI

#include <eddy/eddy.h>

#include <mpi.h>

#include <math.h>

/* The communicator of every run of this process: MPI_COMM_WORLD, or eddy's duplicate of the one
 * eddy_decomp_use_comm was given. */
MPI_Comm eddy_decomp_comm(void);

typedef struct decomp {
    eddy_world *w;
    int rank, size;
    int axis, periodic, dims;
    double lo, hi, period, reach;
    double *cut;              /* [size + 1]: rank r owns [cut[r], cut[r + 1]) along the axis */
    uint64_t **send_ids;      /* [size]: ids of owned particles whose halo copies rank r holds */
    size_t *send_n;
    uint64_t **recv_ids;      /* [size]: ids of the halo copies received from rank r, in its order */
    size_t *recv_n;
    /* [size]: the indices of send_ids / recv_ids in the layout of generation idx_generation (0: none) */
    uint32_t **send_idx, **recv_idx;
    uint64_t idx_generation;
    size_t *send_ids_cap, *recv_ids_cap, *send_idx_cap, *recv_idx_cap; /* bytes allocated */
    int *scount, *sdispl, *rcount, *rdispl;
    /* Buffers kept between exchanges (bytes allocated in *_cap): the packed sends and receives of the
     * halo update and every refresh, and the halo update's kept-particle marks. */
    unsigned char *sbuf, *rbuf, *seen;
    size_t sbuf_cap, rbuf_cap, seen_cap;
    long long migrated, halo_updates, halo_added, halo_removed, halo_layout_changes; /* since attach */
    /* id -> index map of the current layout (open addressing, key id + 1) */
    uint64_t *map_key;
    uint32_t *map_val;
    size_t map_cap;
    uint64_t map_generation;
    /* Rebalancing (decomp.h, eddy_decomp_balance): new cuts once the imbalance of the owned counts
     * exceeds threshold + floor, where floor is what the last cuts achieved. */
    double threshold, floor, imbalance, rebalance_s;
    double imbalance_sum; /* of the imbalance every step ran with, for its mean */
    long long rebalances, checks;
    /* Owned particles outside the domain after the last step, over every process (reduced with the
     * step statistics; under the "error" policy only, else 0). */
    uint64_t outside;
} decomp;

/* The decomposition of `w`, or NULL (one process, or another world). */
decomp *decomp_of(const eddy_world *w);

/* The coordinate along the cut axis, in [lo, hi) on a periodic axis. */
static inline double axis_coord(const decomp *d, double x)
{
    if (d->periodic && isfinite(x) && (x < d->lo || x >= d->hi)) {
        double t = fmod(x - d->lo, d->period);
        if (t < 0) t += d->period;
        x = d->lo + t;
    }
    return x;
}
static inline const eddy_real *coord_array(const eddy_particles *p, int axis)
{
    return axis == 0 ? p->x : axis == 1 ? p->y : p->z;
}

/* decomp.c: particles outside this process's slab go to their owners (collective). */
int decomp_migrate(decomp *d, eddy_error *err);
/* decomp.c: an MPI call of the exchange timed into eddy_decomp_timing's mpi_ms (DECOMP_TIMED_MPI). */
typedef struct decomp_mpi_clock {
    double wall0, cpu0;
} decomp_mpi_clock;
decomp_mpi_clock decomp_mpi_begin(void);
void decomp_mpi_end(decomp_mpi_clock c);
#define DECOMP_TIMED_MPI(call)                              \
    do {                                                    \
        const decomp_mpi_clock c_mpi_ = decomp_mpi_begin(); \
        call;                                               \
        decomp_mpi_end(c_mpi_);                             \
    } while (0)

/* decomp_balance.c: the slab cuts and rebalancing (docs/mpi.md, "Rebalancing"). */
/* The first cuts at attach, from every particle every process holds; sets d->floor (collective). */
int decomp_make_cuts(decomp *d, eddy_error *err);
/* After a migration: the imbalance, and new cuts with their migration when due (collective). */
int decomp_balance(decomp *d, eddy_error *err);
/* EDDY_REBALANCE as rank 0 reads it, for every process (collective). */
int decomp_rebalance_threshold(double *out, eddy_error *err);
/* A key per coordinate whose unsigned order is the coordinates' (-0 as +0). */
uint64_t decomp_cut_key(double x);
/* Collective over eddy_decomp_comm() (size processes): the cuts and imbalance eddy_decomp_quantile_pairs (decomp.h) gives for
 * every process's coordinates together, each process passing its keys (decomp_cut_key; sorted here in
 * place). keys NULL: this process ran out of memory, which every process then reports. */
int decomp_select_cuts(int size, double lo, double hi, uint64_t *keys, size_t n, double *cut, double *imbalance,
                       eddy_error *err);
/* One particle as sent: id, material, every component of every field (decomp_record_size bytes). */
size_t decomp_record_size(const eddy_particles *p);
void decomp_pack(const eddy_particles *p, size_t i, unsigned char *out);
/* Appends n records; `halo` sets EDDY_PARTICLE_HALO on them. */
int decomp_unpack(eddy_particles *p, const unsigned char *in, size_t n, int halo, eddy_error *err);
/* EDDY_ERR_UNSUPPORTED for a message above the 2^31 bytes one MPI count can say. */
int decomp_too_big(size_t bytes, eddy_error *err);

/* The collectives' tally of this process (mpi_tally.h): every MPI_Alltoall(v) of the exchange and every
 * MPI_Allreduce / MPI_Allgather goes through one of these, so bench sees them all. */
#include "mpi_tally.h"
extern eddy_mpi_tally decomp_tally;
#define TALLY_CALL(field, call)                            \
    do {                                                   \
        const double t_tally_ = eddy_time_ms();            \
        call;                                              \
        decomp_tally.field += eddy_time_ms() - t_tally_;   \
        decomp_tally.collectives += 1;                     \
    } while (0)
#define TALLY_EXCHANGE(call) TALLY_CALL(exchange_ms, call)
#define TALLY_REDUCE(call) TALLY_CALL(reduce_ms, call)
/* Bytes and non-empty messages of an MPI_Alltoallv of MPI_BYTE to other processes. */
static inline void decomp_tally_sends(const int *counts, int size, int rank)
{
    for (int r = 0; r < size; ++r)
        if (r != rank && counts[r] > 0) {
            decomp_tally.bytes += counts[r];
            decomp_tally.messages += 1;
        }
}

#endif /* EDDY_HAVE_MPI */
#endif /* EDDY_HOST_DECOMP_INTERNAL_H */
