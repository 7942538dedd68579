/*
 * host/session/decomp_gather.c — the gathers of a run on several processes (decomp.h, docs/mpi.md):
 * every owned particle to rank 0 (the state hash, and what rank 0 writes for all: diagnostics,
 * probes, CSV frames, pictures), a process's owned particles without its halo copies (its checkpoint
 * piece), and the collective AND of a status. Built without MPI: the one-process answers.
 */
#include "decomp.h"
#include "decomp_internal.h"

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

#else

#include <mpi.h>

/* Every process's owned particles, in rank order, into `q` (initialized here with w's fields) on rank 0;
 * collective. Other ranks: q untouched, EDDY_OK. */
static int gather_owned(decomp *d, eddy_world *w, eddy_particles *q, eddy_error *err)
{
    int rc = eddy_world_sync_host(w, err);
    /* A failed download still takes part below (with nothing), so that no process waits forever. */
    eddy_particles *p = &w->particles;
    const size_t rs = decomp_record_size(p), owned = rc ? 0 : p->count - p->halo_count;
    if (!rc && owned * rs > INT32_MAX) rc = decomp_too_big(owned * rs, err);
    unsigned char *mine = rc ? NULL : malloc(owned * rs + 1);
    if (!rc && !mine) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    size_t k = 0;
    for (size_t i = 0; mine && i < p->count; ++i)
        if (!(p->flags[i] & EDDY_PARTICLE_HALO)) decomp_pack(p, i, mine + rs * k++);
    int bytes = mine ? (int)(owned * rs) : 0;
    MPI_Gather(&bytes, 1, MPI_INT, d->rcount, 1, MPI_INT, 0, MPI_COMM_WORLD);
    unsigned char *all = NULL;
    size_t total = 0;
    int rc0 = EDDY_OK;
    if (d->rank == 0) {
        for (int r = 0; r < d->size; ++r) {
            d->rdispl[r] = (int)total;
            total += (size_t)d->rcount[r];
        }
        if (total > INT32_MAX) rc0 = decomp_too_big(total, err);
        else if (!(all = malloc(total + 1))) rc0 = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    /* Every process takes part even when rank 0 failed, so none waits forever. */
    MPI_Gatherv(mine, bytes, MPI_BYTE, all, d->rcount, d->rdispl, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(mine);
    if (rc0) rc = rc0;
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
    if (!rc) rc = decomp_unpack(q, all, total / rs, 0, err);
    free(all);
    if (rc) eddy_particles_free(q);
    return rc;
}

int eddy_decomp_hash(eddy_world *w, uint64_t *hash, eddy_error *err)
{
    decomp *d = decomp_of(w);
    if (!d) return eddy_world_hash(w, hash, err);
    *hash = 0;
    eddy_particles q;
    int rc = gather_owned(d, w, &q, err);
    if (rc || d->rank != 0) return rc;
    rc = eddy_particles_hash(&q, hash, err);
    eddy_particles_free(&q);
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
    TALLY_REDUCE(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    return all;
}

int eddy_decomp_sum_int64(eddy_world *w, int64_t *values, size_t count, eddy_error *err)
{
    if (!decomp_of(w)) return EDDY_OK;
    if (count > INT32_MAX) return decomp_too_big(count * sizeof(int64_t), err);
    TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, values, (int)count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
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
