/*
 * eddy/defs.h — basic types and visibility macros shared by every public header.
 *
 * The real-number type of the ABI is eddy_real (float). A plugin compiled with a different
 * sizeof(eddy_real) is refused by the loader (see plugin.h).
 */
#ifndef EDDY_DEFS_H
#define EDDY_DEFS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define EDDY_BEGIN_DECLS extern "C" {
#define EDDY_END_DECLS }
#else
#define EDDY_BEGIN_DECLS
#define EDDY_END_DECLS
#endif

/* Symbols of libeddy that plugins and hosts may call. Everything else is hidden. */
#if defined(__GNUC__)
#define EDDY_API __attribute__((visibility("default")))
#define EDDY_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define EDDY_API
#define EDDY_PRINTF(fmt, args)
#endif

/* The one symbol a plugin exports (see plugin.h). */
#ifdef __cplusplus
#define EDDY_EXPORT extern "C" EDDY_API
#else
#define EDDY_EXPORT EDDY_API
#endif

/*
 * Inline math that also compiles for a GPU (eddy/boundary_math.h, eddy_grid_cell_of, the toolkit's
 * kernels): __host__ __device__ under nvcc, nothing in C, so one definition serves libeddy and a CUDA
 * plugin's kernels. Source shared by host and device, not binary interface (docs/abi.md).
 */
#if defined(__CUDACC__)
#define EDDY_HD __host__ __device__
#else
#define EDDY_HD
#endif

/* The real-number type of every per-particle array and every physical value in the ABI. */
typedef float eddy_real;

/* Every per-particle array is aligned to this many bytes (one cache line, one AVX-512 vector). */
#define EDDY_ALIGNMENT 64

/*
 * The growth rule of ABI 2.x. Every public struct that may grow begins with `size_t size`, set by
 * whoever fills the struct to sizeof(the struct) as *it* was compiled. A newer minor version only
 * appends members at the end, so a reader checks that a member is covered before it reads it:
 *
 *     if (EDDY_HAS_MEMBER(vtable, eddy_solver_vtable, max_dt) && vtable->max_dt) ...
 *
 * A member the writer's size does not cover is absent (treated as NULL or as its documented default).
 */
#define EDDY_HAS_MEMBER(ptr, type, member) \
    ((ptr)->size >= offsetof(type, member) + sizeof(((const type *)0)->member))

/*
 * Thread annotations used in every header:
 *   [main thread]  call only from the thread that loaded the plugin / created the object, never
 *                  concurrently with another [main thread] call on the same object;
 *   [any thread]   may be called from any thread, concurrently (pure, or internally synchronized).
 * A callback a plugin implements carries the annotation of the context the host calls it from.
 */

#endif /* EDDY_DEFS_H */
