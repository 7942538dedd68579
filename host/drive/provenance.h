/*
 * host/drive/provenance.h — what made a report, in one line: the version and plugin ABI, the commit,
 * compiler and build type it was built from (cmake/eddy_build_info.cmake), the vector path
 * of the SPH neighbour loops (results differ between paths by rounding, README "Building options"),
 * the CPU, OpenMP threads and processes; and the overrides a run was given. For compare's summary.md and
 * validate's report.md, so that a figure quoted from them can be traced to what produced it.
 */
#ifndef EDDY_HOST_PROVENANCE_H
#define EDDY_HOST_PROVENANCE_H

#include <stddef.h>

/* What the line says, one fact each (run_record.h writes them as JSON). simd is "EDDY_SIMD invalid"
 * when the variable names no path this CPU runs (the solvers refuse it with their own message). */
typedef struct eddy_provenance_facts {
    const char *version;       /* eddy's, e.g. "0.1.0" */
    int abi_major, abi_minor;  /* the plugin ABI the host implements */
    const char *simd;          /* the vector path of the SPH neighbour loops: "baseline", "avx2", ... */
    int threads;               /* OpenMP threads in effect */
    int processes;             /* MPI processes of the run (1 without mpirun) */
    const char *commit;        /* the source's git describe at build time, "-dirty" with uncommitted
                                * changes; "unknown" outside a git checkout */
    const char *compiler;      /* "GNU 12.2.0" */
    const char *build_type;    /* "Release", ... */
    const char *cpu;           /* the CPU's model name (/proc/cpuinfo), "unknown" where none is found */
} eddy_provenance_facts;

/* [main thread] */
void eddy_provenance_read(eddy_provenance_facts *facts);

/* "eddy 0.1.0 (plugin ABI 2.3; commit 8819c70ab12c; GNU 12.2.0, Release); SPH neighbour loops: avx2 path;
 * CPU Intel(R) Xeon(R) ...; 2 threads; 1 process" into out
 * (truncated to size). [main thread] */
void eddy_provenance(char *out, size_t size);

/* Overrides as the reports print them, "`--set a=1`, `--set b=2`" ("" for none), into out (truncated
 * to size). [any thread] */
void eddy_sets_text(char *out, size_t size, const char *const *sets, size_t count);

#endif /* EDDY_HOST_PROVENANCE_H */
