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

/* The real-number type of every per-particle array and every physical value in the ABI. */
typedef float eddy_real;

/* Every per-particle array is aligned to this many bytes (one cache line, one AVX-512 vector). */
#define EDDY_ALIGNMENT 64

#endif /* EDDY_DEFS_H */
