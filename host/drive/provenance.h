/*
 * host/drive/provenance.h — what made a report, in one line: the version and plugin ABI, the vector path
 * of the SPH neighbour loops (results differ between paths by rounding, README "Building options"),
 * OpenMP threads and processes. For compare's summary.md and validate's report.md, so that a figure
 * quoted from them can be traced to the build that produced it.
 */
#ifndef EDDY_HOST_PROVENANCE_H
#define EDDY_HOST_PROVENANCE_H

#include <stddef.h>

/* "eddy 0.1.0 (plugin ABI 2.3); SPH neighbour loops: avx2 path; 2 threads; 1 process" into out
 * (truncated to size). [main thread] */
void eddy_provenance(char *out, size_t size);

#endif /* EDDY_HOST_PROVENANCE_H */
