/* The MPI collectives timed through the profiling interface (mpi_tally.h). */
#include "mpi_tally.h"

static eddy_mpi_tally g_tally;

void eddy_mpi_tally_read(eddy_mpi_tally *out)
{
    *out = g_tally;
}

#ifdef EDDY_HAVE_MPI
#include <mpi.h>

/* The profiling interface (mpi_tally.h): tools such as mpiP work the same way. */
static int size_of(MPI_Datatype t)
{
    int s = 0;
    PMPI_Type_size(t, &s);
    return s;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    const double t0 = PMPI_Wtime();
    const int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    g_tally.exchange_ms += 1e3 * (PMPI_Wtime() - t0);
    g_tally.collectives += 1;
    return rc;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int me = 0, n = 1;
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &n);
    const int ts = size_of(sendtype);
    for (int r = 0; r < n; ++r)
        if (r != me && sendcounts[r] > 0) {
            g_tally.bytes += (double)sendcounts[r] * ts;
            g_tally.messages += 1;
        }
    const double t0 = PMPI_Wtime();
    const int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    g_tally.exchange_ms += 1e3 * (PMPI_Wtime() - t0);
    g_tally.collectives += 1;
    return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    const double t0 = PMPI_Wtime();
    const int rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    g_tally.reduce_ms += 1e3 * (PMPI_Wtime() - t0);
    g_tally.collectives += 1;
    return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    const double t0 = PMPI_Wtime();
    const int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    g_tally.reduce_ms += 1e3 * (PMPI_Wtime() - t0);
    g_tally.collectives += 1;
    return rc;
}
#endif /* EDDY_HAVE_MPI */
