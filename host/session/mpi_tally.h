/*
 * host/session/mpi_tally.h — time and bytes in the MPI collectives of this process, for `eddy bench`.
 *
 * Every MPI_Alltoall, MPI_Alltoallv, MPI_Allreduce and MPI_Allgather of eddy is made in decomp.c or
 * decomp_gather.c, through decomp_internal.h's TALLY_EXCHANGE / TALLY_REDUCE, which add its wall time
 * (two clock reads) and count it. A profiler that interposes MPI (mpiP, Score-P) sees them as usual.
 * Without MPI the tally stays zero.
 */
#ifndef EDDY_HOST_MPI_TALLY_H
#define EDDY_HOST_MPI_TALLY_H

/* Running totals since the process started. The all-to-alls carry the migration, the halo copies and
 * every field refresh (decomp.c); the all-reduces and all-gathers the time step, the step statistics,
 * the signal agreement and eddy_world_reduce. */
typedef struct eddy_mpi_tally {
    double exchange_ms; /* in MPI_Alltoall / MPI_Alltoallv, waiting for the slowest process included */
    double reduce_ms;   /* in MPI_Allreduce / MPI_Allgather */
    double bytes;       /* sent to other processes by MPI_Alltoallv */
    double messages;    /* non-empty MPI_Alltoallv sends to other processes */
    double collectives; /* calls of the four */
} eddy_mpi_tally;

/* Copies the totals (decomp.c). [main thread: MPI is called from the main thread only] */
void eddy_mpi_tally_read(eddy_mpi_tally *out);

#endif /* EDDY_HOST_MPI_TALLY_H */
