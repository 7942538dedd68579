/*
 * host/session/library.c — what the session API adds for programs outside eddy, whose `eddy` command
 * sets the same through its options (--quiet), and the MPI communicator, which `eddy` under mpirun
 * leaves as MPI_COMM_WORLD. The rest of libeddy_session is the host itself, linked
 * in whole (host/CMakeLists.txt).
 */
#include "session.h"

#include "decomp.h"
#include "services.h"

void eddy_session_set_quiet(int quiet) { eddy_services_set_quiet(quiet); }

int eddy_session_set_mpi_comm(long long fortran_handle, eddy_error *err)
{
    /* An open session's world is cut into slabs over the processes it opened with; another
     * communicator under it would mix two decompositions. */
    const long open = eddy_session_open_count();
    eddy_error mine;
    eddy_error_clear(&mine);
    if (open > 0)
        eddy_error_set(&mine, EDDY_ERR_INVALID_ARGUMENT,
                       "%ld session%s of this process %s open: close %s before setting eddy's MPI communicator "
                       "(a session keeps the processes it opened with)",
                       open, open == 1 ? "" : "s", open == 1 ? "is" : "are", open == 1 ? "it" : "them");
    /* (refused together: one process refusing alone left the others in the duplication for ever) */
    return eddy_decomp_use_comm(fortran_handle, open > 0 ? &mine : NULL, err);
}
