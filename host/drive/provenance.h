/*
 * host/drive/provenance.h — what made a report, in one line: the version and plugin ABI, the vector path
 * of the SPH neighbour loops (results differ between paths by rounding, README "Building options"),
 * OpenMP threads and processes; and the overrides a run was given. For compare's summary.md and
 * validate's report.md, so that a figure quoted from them can be traced to what produced it.
 */
#ifndef EDDY_HOST_PROVENANCE_H
#define EDDY_HOST_PROVENANCE_H

#include <stddef.h>

/* "eddy 0.1.0 (plugin ABI 2.3); SPH neighbour loops: avx2 path; 2 threads; 1 process" into out
 * (truncated to size). [main thread] */
void eddy_provenance(char *out, size_t size);

/* Overrides as the reports print them, "`--set a=1`, `--set b=2`" ("" for none), into out (truncated
 * to size). [any thread] */
void eddy_sets_text(char *out, size_t size, const char *const *sets, size_t count);

#endif /* EDDY_HOST_PROVENANCE_H */
