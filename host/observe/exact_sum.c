#include "exact_sum.h"

#include <math.h>
#include <string.h>

#define MASK32 0xffffffffu
/* Carries are propagated before any limb could reach 2^62 in magnitude: a term moves a limb by less
 * than 2^32, a propagated limb is below 2^32. */
#define PENDING_MAX (1u << 30)

void eddy_xsum_init(eddy_xsum *s)
{
    memset(s, 0, sizeof *s);
}

/* Propagates carries upward: limbs 0 .. L-2 end in [0, 2^32), the top one holds the signed rest.
 * Written with unsigned conversions and exact division, so that it needs no arithmetic shift of a
 * negative number (implementation-defined in C17). */
static void normalize(eddy_xsum *s)
{
    for (int k = 0; k + 1 < EDDY_XSUM_LIMBS; ++k) {
        const int64_t v = s->limb[k];
        const int64_t low = (int64_t)((uint64_t)v & MASK32);
        s->limb[k] = low;
        s->limb[k + 1] += (v - low) / ((int64_t)1 << 32);
    }
    s->pending = 0;
}

void eddy_xsum_add(eddy_xsum *s, double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    const int neg = (int)(b >> 63);
    const unsigned e = (unsigned)(b >> 52) & 0x7ffu;
    uint64_t m = b & ((UINT64_C(1) << 52) - 1);
    if (e == 0x7ffu) {
        if (m) s->nan++;
        else if (neg) s->ninf++;
        else s->pinf++;
        return;
    }
    /* x = m 2^(pos - 1074): a subnormal's mantissa sits at bit 0, a normal one's with its hidden bit
     * at bit e - 1. */
    unsigned pos = 0;
    if (e) {
        m |= UINT64_C(1) << 52;
        pos = e - 1;
    }
    if (!m) return;
    const unsigned k = pos >> 5, sh = pos & 31u;
    const int64_t t0 = (int64_t)((m << sh) & MASK32);
    const uint64_t hi = sh ? m >> (32 - sh) : m >> 32; /* m 2^sh / 2^32, below 2^52 */
    const int64_t t1 = (int64_t)(hi & MASK32), t2 = (int64_t)(hi >> 32);
    if (neg) {
        s->limb[k] -= t0;
        s->limb[k + 1] -= t1;
        s->limb[k + 2] -= t2;
    } else {
        s->limb[k] += t0;
        s->limb[k + 1] += t1;
        s->limb[k + 2] += t2;
    }
    if (++s->pending >= PENDING_MAX) normalize(s);
}

void eddy_xsum_merge(eddy_xsum *into, const eddy_xsum *from)
{
    eddy_xsum f = *from;
    normalize(&f);
    normalize(into);
    for (int k = 0; k < EDDY_XSUM_LIMBS; ++k) into->limb[k] += f.limb[k];
    into->nan += f.nan;
    into->pinf += f.pinf;
    into->ninf += f.ninf;
    normalize(into);
}

void eddy_xsum_pack(const eddy_xsum *s, int64_t *words)
{
    eddy_xsum c = *s;
    normalize(&c);
    memcpy(words, c.limb, sizeof c.limb);
    words[EDDY_XSUM_LIMBS] = c.nan;
    words[EDDY_XSUM_LIMBS + 1] = c.pinf;
    words[EDDY_XSUM_LIMBS + 2] = c.ninf;
}

void eddy_xsum_unpack(eddy_xsum *s, const int64_t *words)
{
    memcpy(s->limb, words, sizeof s->limb);
    s->nan = words[EDDY_XSUM_LIMBS];
    s->pinf = words[EDDY_XSUM_LIMBS + 1];
    s->ninf = words[EDDY_XSUM_LIMBS + 2];
    normalize(s); /* the limbs of a sum of packs may be up to 2^31 * 2^32 */
}

static int bit_at(const eddy_xsum *s, int i)
{
    return i >= 0 && (int)((uint64_t)s->limb[i >> 5] >> (i & 31)) & 1;
}

double eddy_xsum_round(const eddy_xsum *s)
{
    if (s->nan || (s->pinf && s->ninf)) return NAN;
    if (s->pinf) return INFINITY;
    if (s->ninf) return -INFINITY;
    eddy_xsum c = *s;
    normalize(&c);
    const int neg = c.limb[EDDY_XSUM_LIMBS - 1] < 0;
    if (neg) {
        for (int k = 0; k < EDDY_XSUM_LIMBS; ++k) c.limb[k] = -c.limb[k];
        normalize(&c); /* now every limb is in [0, 2^32): the top one holds less than 2^18 */
    }
    int t = EDDY_XSUM_LIMBS - 1;
    while (t >= 0 && c.limb[t] == 0) --t;
    if (t < 0) return 0.0;
    int h = 32 * t + 31;
    while (!bit_at(&c, h)) --h;
    double r;
    if (h <= 52) {
        /* Below 2^-1021: a multiple of 2^-1074 with at most 53 bits, a double exactly (subnormal or
         * the smallest normals). */
        r = ldexp((double)((uint64_t)c.limb[0] | (uint64_t)c.limb[1] << 32), -1074);
    } else {
        const int lo = h - 52; /* the 53 bits [lo, h] are the mantissa */
        uint64_t m = 0;
        for (int i = h; i >= lo; --i) m = m << 1 | (uint64_t)bit_at(&c, i);
        const int round = bit_at(&c, lo - 1);
        int sticky = 0;
        const int below = lo - 1; /* bits [0, below) decide a tie */
        for (int k = 0; k < (below >> 5) && !sticky; ++k) sticky = c.limb[k] != 0;
        if (!sticky && below > 0 && (below & 31))
            sticky = ((uint64_t)c.limb[below >> 5] & ((UINT64_C(1) << (below & 31)) - 1)) != 0;
        if (round && (sticky || (m & 1))) ++m; /* 2^53 at most: still exact */
        r = ldexp((double)m, lo - 1074);      /* beyond the largest double: infinity */
    }
    return neg ? -r : r;
}
