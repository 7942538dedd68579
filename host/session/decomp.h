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

#include <eddy/eddy.h>

/* MPI_Init when built with MPI (a no-op otherwise, or when already initialized). Returns 0. */
int eddy_decomp_init(int *argc, char ***argv);
/* MPI_Finalize when eddy_decomp_init initialized MPI. */
void eddy_decomp_finalize(void);
/* Stops every process (MPI_Abort) with `code` when running on several; returns otherwise. */
void eddy_decomp_abort(int code);

/* This process's rank and the number of processes (0 and 1 without MPI). */
int eddy_decomp_rank(void);
int eddy_decomp_size(void);
/* "MPI (Open MPI v4.1.4, ...)" or "no MPI (built without it)", for `eddy --version` and `eddy list`. */
const char *eddy_decomp_describe(void);

/*
 * After the world is built and before the solver's create(): on several processes refuses a solver
 * without EDDY_COMPONENT_DECOMPOSABLE (naming it) and a resume, keeps this process's slab and its
 * halo, and installs the exchange; then, for a decomposable solver, puts the particles in canonical
 * order (also in one process).
 */
int eddy_decomp_attach(eddy_world *w, const eddy_component *solver, int resuming, eddy_error *err);
/* Forgets the world's decomposition (eddy_sim_close). */
void eddy_decomp_detach(eddy_world *w);

/* (cell, id) order of every particle; only for a decomposable solver, which `solver` says. */
int eddy_decomp_canonical_order(eddy_world *w, const eddy_component *solver, eddy_error *err);

/* After a step: the step statistics combined over every process (max speed, non-finite counts). */
int eddy_decomp_reduce_stats(eddy_world *w, eddy_error *err);
/* After a step that passed the explosion guard: migration, then fresh halo copies. */
int eddy_decomp_exchange(eddy_world *w, eddy_error *err);

/* The state hash of the whole run (every process's owned particles); valid on rank 0. */
int eddy_decomp_hash(eddy_world *w, uint64_t *hash, eddy_error *err);

/* True when the world is split over several processes. */
int eddy_decomp_active(const eddy_world *w);

#endif /* EDDY_HOST_DECOMP_H */
