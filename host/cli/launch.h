/* host/cli/launch.h — the check that every process of an mpirun launch was given the same work. */
#ifndef EDDY_HOST_LAUNCH_H
#define EDDY_HOST_LAUNCH_H

/* 0 when every process was given the same command line (--threads N and --quiet aside) and the same
 * environment variables that choose collectives (EDDY_DECOMP_FILL, EDDY_OUTPUT_OVERLAP), or when there is
 * one process; else 2 on every process alike, rank 0 having said what differs. Collective under mpirun:
 * one MPI_Allreduce where they agree. Call before any command's first collective. */
int eddy_launch_check(int argc, char **argv);

#endif
