/*
 * host/scene/fnv1a.h — the 64-bit FNV-1a hash (Fowler, Noll and Vo), for checksums and identities that
 * must not depend on the machine: a checkpoint's checksum, a name index, the settings the processes of
 * a run compare. Not for anything an adversary chooses.
 */
#ifndef EDDY_HOST_FNV1A_H
#define EDDY_HOST_FNV1A_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define EDDY_FNV1A_OFFSET 0xcbf29ce484222325ULL

/* h continued over the n bytes at p (start from EDDY_FNV1A_OFFSET). */
static inline uint64_t eddy_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* h continued over a string and its terminating zero (so "ab","c" and "a","bc" differ); NULL as "". */
static inline uint64_t eddy_fnv1a_str(uint64_t h, const char *s)
{
    return s ? eddy_fnv1a(h, s, strlen(s) + 1) : eddy_fnv1a(h, "", 1);
}

#endif /* EDDY_HOST_FNV1A_H */
