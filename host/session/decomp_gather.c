/*
 * host/session/decomp_gather.c — the gathers of a run on several processes (decomp.h, docs/mpi.md):
 * every owned particle to rank 0 (what rank 0 writes for all: CSV frames and other non-VTK writers, a
 * plugin's probe, `eddy compare`'s samples), the state hash by id range without a gather, a process's
 * owned particles without its halo copies (its checkpoint piece), the collective AND of a status and the
 * agreement on one process's error. Built without MPI: the one-process answers.
 */
#include "decomp.h"
#include "decomp_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifndef EDDY_HAVE_MPI

int eddy_decomp_hash(eddy_world *w, uint64_t *hash, eddy_error *err) { return eddy_world_hash(w, hash, err); }
int eddy_decomp_gather_whole(eddy_world *w, eddy_world **whole, eddy_error *err)
{
    *whole = w;
    return eddy_world_sync_host(w, err);
}
int eddy_decomp_owned_world(eddy_world *w, eddy_world **owned, eddy_error *err)
{
    *owned = w;
    return eddy_world_sync_host(w, err);
}
void eddy_decomp_release_whole(eddy_world *w, eddy_world *whole) { (void)w, (void)whole; }
int eddy_decomp_all_ok(int ok) { return ok; }
int eddy_decomp_sum_int64(eddy_world *w, int64_t *values, size_t count, eddy_error *err)
{
    (void)w, (void)values, (void)count, (void)err;
    return EDDY_OK;
}
int eddy_decomp_gather_records(const void *mine, size_t count, size_t size, void **all, size_t *total,
                               eddy_error *err)
{
    *all = malloc(count * size + 1);
    if (!*all) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu records", count);
    if (count) memcpy(*all, mine, count * size);
    *total = count;
    return EDDY_OK;
}

#else

#include <mpi.h>

/* The one gather of byte records to rank 0 (decomp.h). A process that failed before it still takes
 * part, with nothing, so that no process waits forever. */
int eddy_decomp_gather_records(const void *mine, size_t count, size_t size, void **all, size_t *total,
                               eddy_error *err)
{
    *all = NULL;
    *total = 0;
    const int rank = eddy_decomp_rank(), nproc = eddy_decomp_size();
    /* Every process learns every count, so that all refuse an oversized gather alike. */
    long long own = (long long)count, *counts = malloc(sizeof *counts * (size_t)nproc);
    int *bytes = malloc(sizeof *bytes * 2 * (size_t)nproc);
    if (!counts || !bytes) own = 0;
    long long dummy = 0;
    MPI_Allgather(&own, 1, MPI_LONG_LONG, counts ? counts : &dummy, counts ? 1 : 0, MPI_LONG_LONG, eddy_decomp_comm());
    if (!counts || !bytes) {
        free(counts);
        free(bytes);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    long long sum = 0;
    for (int r = 0; r < nproc; ++r) sum += counts[r];
    if ((unsigned long long)sum * size > INT32_MAX) {
        free(counts);
        free(bytes);
        return decomp_too_big((size_t)sum * size, err);
    }
    int *rcount = bytes, *rdispl = bytes + nproc;
    for (int r = 0, at = 0; r < nproc; ++r) {
        rcount[r] = (int)(counts[r] * (long long)size);
        rdispl[r] = at;
        at += rcount[r];
    }
    free(counts);
    unsigned char *buf = NULL;
    int rc = EDDY_OK;
    /* Rank 0 failing here still takes part (receiving nothing) and returns its error, which stops every
     * process (main.c). */
    if (rank == 0 && !(buf = malloc((size_t)sum * size + 1)))
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %lld records", sum);
    MPI_Gatherv(mine, rcount[rank], MPI_BYTE, buf, rcount, rdispl, MPI_BYTE, 0, eddy_decomp_comm());
    free(bytes);
    if (rc) return rc;
    *all = buf;
    *total = rank == 0 ? (size_t)sum : 0;
    return EDDY_OK;
}

/* Every process's owned particles, in rank order, into `q` (initialized here with w's fields) on rank 0;
 * collective. Other ranks: q untouched, EDDY_OK. */
static int gather_owned(decomp *d, eddy_world *w, eddy_particles *q, eddy_error *err)
{
    int rc = eddy_world_sync_host(w, err);
    /* A failed download still takes part below (with nothing), so that no process waits forever. */
    eddy_particles *p = &w->particles;
    const size_t rs = decomp_record_size(p), owned = rc ? 0 : p->count - p->halo_count;
    unsigned char *mine = rc ? NULL : malloc(owned * rs + 1);
    if (!rc && !mine) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    size_t k = 0;
    for (size_t i = 0; mine && i < p->count; ++i)
        if (!(p->flags[i] & EDDY_PARTICLE_HALO)) decomp_pack(p, i, mine + rs * k++);
    void *gathered = NULL;
    size_t total = 0;
    eddy_error gerr;
    const int rg = eddy_decomp_gather_records(mine, mine ? owned : 0, rs, &gathered, &total, &gerr);
    unsigned char *all = gathered;
    free(mine);
    if (!rc && rg) {
        *err = gerr;
        rc = rg;
    }
    if (d->rank != 0 || rc) {
        free(all);
        return rc;
    }
    /* A particle set with the same fields, in the same order, holding every owned particle. */
    if ((rc = eddy_particles_init(q, p->dimensions, err))) {
        free(all);
        return rc;
    }
    for (int f = EDDY_BUILTIN_FIELD_COUNT; !rc && f < eddy_particles_field_count(p); ++f) {
        int id;
        rc = eddy_particles_add_field(q, eddy_particles_field_name(p, f), eddy_particles_field_components(p, f), &id,
                                      err);
    }
    if (!rc) rc = decomp_unpack(q, all, total, 0, err);
    free(all);
    if (rc) eddy_particles_free(q);
    return rc;
}

/* Ids at most x in sorted ids[0..n). */
static unsigned long long ids_upto(const uint64_t *ids, size_t n, uint64_t x)
{
    size_t a = 0, b = n;
    while (a < b) {
        const size_t m = a + (b - a) / 2;
        if (ids[m] <= x) a = m + 1;
        else b = m;
    }
    return a;
}
static int by_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * The id ranges of the hash: process r takes the ids from split[r] up to below split[r + 1], where
 * split[r] (0 < r < size) is the id of rank k r / size among every process's k owned ids in increasing
 * order, so that every range holds k / size ids however sparse the ids are (particles removed). Found
 * like the slab cuts (decomp_balance.c) without any id leaving its process: bisection of every split
 * at once over [smallest id, largest id], each process counting its own sorted ids at most the
 * midpoint, one MPI_Allreduce of the size - 1 counts a round (at most 64 rounds; about log2 of the id
 * span). Collective; ids sorted; range[0..2] = smallest id, largest id, k over every process.
 */
static int hash_splits(const decomp *d, const uint64_t *ids, size_t n, const unsigned long long *range,
                       uint64_t *split, eddy_error *err)
{
    const int m = d->size - 1;
    uint64_t *a = malloc(sizeof *a * (size_t)m), *b = malloc(sizeof *b * (size_t)m);
    unsigned long long *want = malloc(sizeof *want * (size_t)m), *count = malloc(sizeof *count * (size_t)m);
    int mine = a && b && want && count, all = 0;
    TALLY_REDUCE(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, eddy_decomp_comm()));
    int rc = EDDY_OK;
    if (!all) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "state hash: out of memory for %d id ranges", d->size);
        goto done;
    }
    for (int r = 0; r < m; ++r) {
        a[r] = range[0];
        b[r] = range[1];
        want[r] = range[2] * (unsigned long long)(r + 1) / (unsigned long long)d->size;
    }
    /* split[r + 1] is the smallest id x with more than want[r] ids at most x; a[r] <= x <= b[r]. Every
     * process takes the same steps from the same sums, so all leave together. */
    for (;;) {
        int open = 0;
        for (int r = 0; r < m; ++r) {
            const uint64_t mid = a[r] + (b[r] - a[r]) / 2;
            count[r] = a[r] < b[r] ? ids_upto(ids, n, mid) : 0;
            open |= a[r] < b[r];
        }
        if (!open) break;
        TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, count, m, MPI_UNSIGNED_LONG_LONG, MPI_SUM, eddy_decomp_comm()));
        for (int r = 0; r < m; ++r) {
            if (a[r] >= b[r]) continue;
            const uint64_t mid = a[r] + (b[r] - a[r]) / 2;
            if (count[r] > want[r]) b[r] = mid;
            else a[r] = mid + 1;
        }
    }
    split[0] = 0;
    for (int r = 0; r < m; ++r) split[r + 1] = a[r];
done:
    free(a);
    free(b);
    free(want);
    free(count);
    return rc;
}

/* The process whose id range holds `id` (split as hash_splits made it). */
static int hash_owner(const uint64_t *split, int size, uint64_t id)
{
    int lo = 0, hi = size - 1;
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (split[mid] <= id) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/*
 * The state hash over every process without a gather (docs/mpi.md, "The state hash"): FNV-1a over the
 * particles in increasing id order is one sequence, so the processes split it by id range, balanced by
 * count (hash_splits), send every owned particle to the process of its range (one MPI_Alltoallv), and
 * chain the hash state from rank 0 to rank size - 1, each continuing over its range in id order; rank
 * size - 1 hands the result to rank 0. No process holds more than its share of the ids beyond its own
 * particles: O(N / size) memory, where the gather took every particle to rank 0. A process that fails
 * (out of memory, an id twice) still passes the chain on, flagged, so none waits forever.
 */
int eddy_decomp_hash(eddy_world *w, uint64_t *hash, eddy_error *err)
{
    decomp *d = decomp_of(w);
    if (!d) return eddy_world_hash(w, hash, err);
    *hash = 0;
    const int size = d->size, rank = d->rank;
    int rc = eddy_world_sync_host(w, err);
    eddy_particles *p = &w->particles;
    const size_t rs = decomp_record_size(p), owned = rc ? 0 : p->count - p->halo_count;
    uint64_t *ids = malloc(sizeof *ids * (owned ? owned : 1)), *split = malloc(sizeof *split * (size_t)size);
    int *sn = calloc((size_t)size * 4, sizeof(int));
    if (!rc && (!ids || !split || !sn))
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for state hash");
    size_t k = 0;
    for (size_t i = 0; !rc && i < p->count; ++i)
        if (!(p->flags[i] & EDDY_PARTICLE_HALO)) ids[k++] = p->id[i];
    if (!rc) qsort(ids, k, sizeof *ids, by_u64);
    /* Smallest id, largest id (as its complement, so that one MIN gives both), count, and failures. */
    unsigned long long head[2] = {k ? ids[0] : UINT64_MAX, k ? ~ids[k - 1] : UINT64_MAX}, sums[2] = {k, rc ? 1 : 0};
    TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, head, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, eddy_decomp_comm()));
    TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, eddy_decomp_comm()));
    const unsigned long long range[3] = {head[0], ~head[1], sums[0]};
    unsigned char *send = NULL, *recv = NULL;
    eddy_particles q;
    int have_q = 0;
    if (sums[1]) {
        if (!rc)
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "state hash: another process failed (its message says why)");
        goto chain;
    }
    if (range[2] == 0) {
        split[0] = 0;
        for (int r = 1; r < size; ++r) split[r] = UINT64_MAX;
    } else if ((rc = hash_splits(d, ids, k, range, split, err)))
        goto chain;
    /* Every owned particle to the process of its id range, packed in rank order (sn: byte counts and
     * offsets sent, rn: received). */
    int *sd = sn + size, *rn = sn + 2 * size, *rd = sn + 3 * size;
    size_t *fill = calloc((size_t)size, sizeof *fill);
    int ok = fill != NULL;
    if (ok && owned * rs > INT32_MAX) ok = 0, rc = decomp_too_big(owned * rs, err);
    if (ok && !(send = malloc(owned * rs + 1))) ok = 0;
    if (ok) {
        for (size_t i = 0; i < p->count; ++i)
            if (!(p->flags[i] & EDDY_PARTICLE_HALO)) fill[hash_owner(split, size, p->id[i])] += rs;
        size_t at = 0;
        for (int r = 0; r < size; ++r) {
            sn[r] = (int)fill[r];
            sd[r] = (int)at;
            fill[r] = at;
            at += (size_t)sn[r];
        }
        for (size_t i = 0; i < p->count; ++i)
            if (!(p->flags[i] & EDDY_PARTICLE_HALO)) {
                const int r = hash_owner(split, size, p->id[i]);
                decomp_pack(p, i, send + fill[r]);
                fill[r] += rs;
            }
    }
    free(fill);
    free(ids);
    ids = NULL;
    TALLY_EXCHANGE(MPI_Alltoall(sn, 1, MPI_INT, rn, 1, MPI_INT, eddy_decomp_comm()));
    size_t got = 0;
    for (int r = 0; r < size; ++r) {
        rd[r] = (int)got;
        got += (size_t)rn[r];
    }
    /* A process out of memory sends nothing and receives nothing; every process learns it below. */
    int fine = ok && got <= INT32_MAX && (recv = malloc(got + 1)) != NULL, all = 0;
    TALLY_REDUCE(MPI_Allreduce(&fine, &all, 1, MPI_INT, MPI_MIN, eddy_decomp_comm()));
    if (!all) {
        if (!rc)
            rc = fine ? eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "state hash: another process ran out of memory")
                      : eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for state hash");
        goto chain;
    }
    decomp_tally_sends(sn, size, rank);
    TALLY_EXCHANGE(MPI_Alltoallv(send, sn, sd, MPI_BYTE, recv, rn, rd, MPI_BYTE, eddy_decomp_comm()));
    free(send);
    send = NULL;
    eddy_host_log(w->host, EDDY_LOG_DEBUG, "decomp",
                  "rank %d of %d: state hash over %zu of the run's %llu particles (ids from %" PRIu64 "; no gather)",
                  rank, size, got / rs, range[2], split[rank]);
    if (!(rc = eddy_particles_init(&q, p->dimensions, err))) {
        have_q = 1;
        for (int f = EDDY_BUILTIN_FIELD_COUNT; !rc && f < eddy_particles_field_count(p); ++f) {
            int id;
            rc = eddy_particles_add_field(&q, eddy_particles_field_name(p, f), eddy_particles_field_components(p, f),
                                          &id, err);
        }
        if (!rc) rc = decomp_unpack(&q, recv, got / rs, 0, err);
    }
    free(recv);
    recv = NULL;
chain:;
    /* FNV-1a is one sequence: rank r continues the state rank r - 1 reached over the lower ids. */
    uint64_t state[2] = {EDDY_PARTICLES_HASH_INIT, 0}; /* the hash's state; a failure flag */
    if (rank > 0) MPI_Recv(state, 2, MPI_UINT64_T, rank - 1, 0, eddy_decomp_comm(), MPI_STATUS_IGNORE);
    if (!rc && !state[1]) rc = eddy_particles_hash_continue(&q, &state[0], err);
    if (rc) state[1] = 1;
    MPI_Send(state, 2, MPI_UINT64_T, (rank + 1) % size, 0, eddy_decomp_comm());
    if (rank == 0) MPI_Recv(state, 2, MPI_UINT64_T, size - 1, 0, eddy_decomp_comm(), MPI_STATUS_IGNORE);
    /* Every process gets it (the session API's hash and Python's on any rank, not 0 but on rank 0). */
    MPI_Bcast(state, 2, MPI_UINT64_T, 0, eddy_decomp_comm());
    if (have_q) eddy_particles_free(&q);
    free(send);
    free(recv);
    free(ids);
    free(split);
    free(sn);
    if (!rc && state[1])
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                            "state hash: another process failed (its message says why)");
    if (!rc) *hash = state[0];
    return rc;
}

int eddy_decomp_owned_world(eddy_world *w, eddy_world **owned, eddy_error *err)
{
    *owned = w;
    decomp *d = decomp_of(w);
    int rc = eddy_world_sync_host(w, err);
    if (!d || rc) return rc;
    eddy_particles *p = &w->particles;
    const size_t rs = decomp_record_size(p), n = p->count - p->halo_count;
    unsigned char *buf = malloc(rs * (n ? n : 1));
    eddy_world *copy = malloc(sizeof *copy);
    *owned = NULL;
    if (!buf || !copy) {
        free(buf);
        free(copy);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < p->count; ++i)
        if (!(p->flags[i] & EDDY_PARTICLE_HALO)) decomp_pack(p, i, buf + rs * k++);
    eddy_particles q;
    rc = eddy_particles_init(&q, p->dimensions, err);
    for (int f = EDDY_BUILTIN_FIELD_COUNT; !rc && f < eddy_particles_field_count(p); ++f) {
        int id;
        rc = eddy_particles_add_field(&q, eddy_particles_field_name(p, f), eddy_particles_field_components(p, f), &id,
                                      err);
    }
    if (!rc) rc = decomp_unpack(&q, buf, n, 0, err);
    free(buf);
    if (rc) {
        eddy_particles_free(&q);
        free(copy);
        return rc;
    }
    *copy = *w;
    copy->particles = q;
    *owned = copy;
    return EDDY_OK;
}


int eddy_decomp_all_ok(int ok)
{
    if (eddy_decomp_size() <= 1) return ok;
    int mine = ok ? 1 : 0, all = 0;
    TALLY_REDUCE(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, eddy_decomp_comm()));
    return all;
}

int eddy_decomp_sum_int64(eddy_world *w, int64_t *values, size_t count, eddy_error *err)
{
    if (!decomp_of(w)) return EDDY_OK;
    if (count > INT32_MAX) return decomp_too_big(count * sizeof(int64_t), err);
    TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, values, (int)count, MPI_INT64_T, MPI_SUM, eddy_decomp_comm()));
    return EDDY_OK;
}

int eddy_decomp_gather_whole(eddy_world *w, eddy_world **whole, eddy_error *err)
{
    *whole = NULL;
    decomp *d = decomp_of(w);
    if (!d) {
        *whole = w;
        return eddy_world_sync_host(w, err);
    }
    /* Named, so that a test can tell a run whose outputs need no gather from one that gathers. */
    eddy_host_log(w->host, EDDY_LOG_DEBUG, "decomp",
                  "rank %d: gather of every particle to rank 0 at t = %.9g s (step %llu)", d->rank, w->time,
                  (unsigned long long)w->step);
    eddy_particles q;
    int rc = gather_owned(d, w, &q, err);
    if (rc || d->rank != 0) return rc;
    eddy_world *copy = malloc(sizeof *copy);
    if (!copy) {
        eddy_particles_free(&q);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    *copy = *w;
    copy->particles = q;
    *whole = copy;
    return EDDY_OK;
}

void eddy_decomp_release_whole(eddy_world *w, eddy_world *whole)
{
    if (!whole || whole == w) return;
    eddy_particles_free(&whole->particles);
    free(whole);
}

#endif /* EDDY_HAVE_MPI */

int eddy_decomp_agree_error(int rc, eddy_error *err)
{
    if (eddy_decomp_size() <= 1) return rc;
    const uint64_t failed = eddy_decomp_min_u64(rc ? (uint64_t)eddy_decomp_rank() : UINT64_MAX);
    if (failed == UINT64_MAX) return EDDY_OK;
    /* The status travels with the record: a caller's error record need not hold it. */
    struct {
        int rc;
        eddy_error err;
    } shared;
    memset(&shared, 0, sizeof shared);
    shared.rc = rc;
    if (rc) shared.err = *err;
    eddy_decomp_broadcast(&shared, sizeof shared, (int)failed);
    *err = shared.err;
    eddy_decomp_set_agreed(shared.rc);
    return shared.rc;
}
