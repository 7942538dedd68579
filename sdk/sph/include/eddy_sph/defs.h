/*
 * eddy_sph/defs.h — what every header of the SPH toolkit shares.
 *
 * The toolkit (docs/toolkit.md) is a static library beside libeddy that solver plugins link: the
 * neighbour gather, mirror ghosts, masked kernels, material tables, time step, save/load and the
 * rest-lattice normalization, written once for every SPH solver. It is not part of the plugin ABI:
 * a plugin links its own copy, so a toolkit change never breaks a built plugin.
 *
 * EDDY_SPH_HD marks the inline math that must also compile for a GPU. It is the core's EDDY_HD
 * (<eddy/defs.h>: empty in C, __host__ __device__ under nvcc), under the toolkit's older name, so the
 * toolkit's kernels and the core's boundary math (<eddy/boundary_math.h>) carry one annotation.
 */
#ifndef EDDY_SPH_DEFS_H
#define EDDY_SPH_DEFS_H

#include <eddy/defs.h>

#define EDDY_SPH_HD EDDY_HD

/* Inline math shared by host and device code. */
#define EDDY_SPH_INLINE static inline EDDY_SPH_HD

/* The same, always inlined: for helpers a SIMD loop calls per partner, which GCC at -O2 (CMake's
 * RelWithDebInfo) otherwise leaves as calls inside the loop, which then stays scalar. */
#if defined(__CUDACC__)
#define EDDY_SPH_ALWAYS_INLINE static __forceinline__ EDDY_SPH_HD
#elif defined(__GNUC__)
#define EDDY_SPH_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define EDDY_SPH_ALWAYS_INLINE static inline
#endif

/* The `who` of the toolkit's error messages: "who: " before the message, or nothing for NULL. A solver
 * passes NULL, since the host already prefixes its errors with "solver '<id>': "; a caller of its own
 * (a test, a tool) may name itself. Used as EDDY_SPH_WHO_FMT "message", EDDY_SPH_WHO(who). */
#define EDDY_SPH_WHO_FMT "%s%s"
#define EDDY_SPH_WHO(who) ((who) ? (who) : ""), ((who) ? ": " : "")

#endif /* EDDY_SPH_DEFS_H */
