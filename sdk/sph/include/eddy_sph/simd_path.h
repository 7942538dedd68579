/*
 * eddy_sph/simd_path.h — which vector ISA path runs: the paths, whether this CPU runs each, and the
 * one EDDY_SIMD selects (the reasons and the paths' results are described in <eddy_sph/simd.h>, which
 * compiles the solvers' loops for each path). Separate so the toolkit's own sources (gather.c) can
 * compile their loops per path without simd.h's clones of the density pass.
 */
#ifndef EDDY_SPH_SIMD_PATH_H
#define EDDY_SPH_SIMD_PATH_H

#include <stdlib.h>
#include <string.h>

#include <eddy/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum eddy_sph_simd {
    EDDY_SPH_SIMD_BASELINE = 0,
    EDDY_SPH_SIMD_AVX2 = 1,
    EDDY_SPH_SIMD_AVX512 = 2,
    EDDY_SPH_SIMD_COUNT = 3
} eddy_sph_simd;

/* The values of EDDY_SIMD, indexed by eddy_sph_simd. */
static inline const char *eddy_sph_simd_name(eddy_sph_simd s)
{
    static const char *const names[EDDY_SPH_SIMD_COUNT] = {"baseline", "avx2", "avx512"};
    return (unsigned)s < EDDY_SPH_SIMD_COUNT ? names[s] : "?";
}

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(__CUDACC__)
#define EDDY_SPH_SIMD_X86 1
/* ISA extensions only, no arch=: a function compiled for another arch cannot inline the toolkit's
 * (default-target) inline math; with the same arch GCC inlines any function whose ISA is a subset. */
#define EDDY_SPH_TARGET_AVX2 __attribute__((target("avx2,fma,bmi,bmi2")))
#define EDDY_SPH_TARGET_AVX512 \
    __attribute__((target("avx512f,avx512cd,avx512bw,avx512dq,avx512vl,avx2,fma,bmi,bmi2")))
#else
#define EDDY_SPH_SIMD_X86 0
#define EDDY_SPH_TARGET_AVX2
#define EDDY_SPH_TARGET_AVX512
#endif

/* Whether this CPU (and its operating system, which must save the wider registers) runs path s. */
static inline int eddy_sph_simd_cpu_has(eddy_sph_simd s)
{
    if (s == EDDY_SPH_SIMD_BASELINE) return 1;
#if EDDY_SPH_SIMD_X86
    __builtin_cpu_init();
    const int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                     __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    if (s == EDDY_SPH_SIMD_AVX2) return avx2;
    if (s == EDDY_SPH_SIMD_AVX512)
        return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl");
#endif
    return 0;
}

/* The widest path this CPU runs. */
static inline eddy_sph_simd eddy_sph_simd_widest(void)
{
    eddy_sph_simd s = EDDY_SPH_SIMD_BASELINE;
    for (int k = 1; k < EDDY_SPH_SIMD_COUNT; ++k)
        if (eddy_sph_simd_cpu_has((eddy_sph_simd)k)) s = (eddy_sph_simd)k;
    return s;
}

/* The default path: avx2 where the CPU runs it, else baseline (<eddy_sph/simd.h> says why). */
static inline eddy_sph_simd eddy_sph_simd_default(void)
{
    const eddy_sph_simd w = eddy_sph_simd_widest();
    return w > EDDY_SPH_SIMD_AVX2 ? EDDY_SPH_SIMD_AVX2 : w;
}

/*
 * The path to run: EDDY_SIMD's when set (and not empty), else eddy_sph_simd_default(). Returns EDDY_OK,
 * or EDDY_ERR_INVALID_ARGUMENT for a value that is not a path's name or names a path this CPU lacks
 * (refused rather than lowered: a user who sets it wants that path's hashes); *out holds the default
 * path then. Reads the environment (getenv): call it from the main thread, as create() is. out must
 * not be NULL; err may be (eddy_error_set's rule).
 */
static inline int eddy_sph_simd_select(eddy_sph_simd *out, eddy_error *err)
{
    const char *v = getenv("EDDY_SIMD");
    *out = eddy_sph_simd_default();
    if (!v || !*v) return EDDY_OK;
    for (int k = 0; k < EDDY_SPH_SIMD_COUNT; ++k) {
        if (strcmp(v, eddy_sph_simd_name((eddy_sph_simd)k)) != 0) continue;
        if (!eddy_sph_simd_cpu_has((eddy_sph_simd)k))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "EDDY_SIMD: '%s' is not supported by this CPU (it runs baseline%s%s)", v,
                                  eddy_sph_simd_cpu_has(EDDY_SPH_SIMD_AVX2) ? ", avx2" : "",
                                  eddy_sph_simd_cpu_has(EDDY_SPH_SIMD_AVX512) ? ", avx512" : "");
        *out = (eddy_sph_simd)k;
        return EDDY_OK;
    }
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "EDDY_SIMD: '%s' is not one of baseline, avx2, avx512 (unset: avx2 where the CPU runs it, else baseline)",
                          v);
}

#ifdef __cplusplus
}
#endif

#endif /* EDDY_SPH_SIMD_PATH_H */
