#include "eddy/state.h"

#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

int eddy_state_save_floats(const char *tag, const eddy_real *values, size_t count, void **data, size_t *size,
                           eddy_error *err)
{
    if (!tag || !data || !size || (count && !values))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_state_save_floats: %s is NULL",
                              !tag ? "tag" : !data ? "data" : !size ? "size" : "values (with a count above 0)");
    const size_t tag_len = strlen(tag) + 1;
    /* The record stores the count in 32 bits: a larger one would save and never load back. */
    if (count > UINT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "the state of '%s' has %zu values; a state record holds at most %u", tag, count,
                              (unsigned)UINT32_MAX);
    const uint32_t n = (uint32_t)count;
    const size_t total = tag_len + sizeof n + count * sizeof(eddy_real);
    unsigned char *p = malloc(total);
    if (!p) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the state of '%s'", tag);
    memcpy(p, tag, tag_len);
    memcpy(p + tag_len, &n, sizeof n);
    if (count) memcpy(p + tag_len + sizeof n, values, count * sizeof(eddy_real));
    *data = p;
    *size = total;
    return EDDY_OK;
}

int eddy_state_load_floats(const char *tag, eddy_real *values, size_t count, const void *data, size_t size,
                           eddy_error *err)
{
    if (!tag || (size && !data) || (count && !values))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_state_load_floats: %s is NULL",
                              !tag ? "tag" : (size && !data) ? "data (with a size above 0)" : "values (with a count above 0)");
    const unsigned char *p = data;
    const void *nul = size ? memchr(p, '\0', size) : NULL;
    if (!nul)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "state record of %zu bytes has no tag, expected '%s'",
                              size, tag);
    if (strcmp((const char *)p, tag) != 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "state record is '%.64s', expected '%s'",
                              (const char *)p, tag);
    const size_t tag_len = strlen(tag) + 1;
    uint32_t n = 0;
    if (size >= tag_len + sizeof n) memcpy(&n, p + tag_len, sizeof n);
    if (size != tag_len + sizeof n + count * sizeof(eddy_real) || n != count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "state record '%s' has %zu bytes, expected %zu (%zu values)", tag, size,
                              tag_len + sizeof n + count * sizeof(eddy_real), count);
    /* Read into a copy first: a refused record leaves the solver's values as they were. A solver's
     * state between steps is finite (a run that produced inf or NaN stopped as exploded before it
     * could save), so a non-finite value means a damaged or hand-made file. */
    for (size_t k = 0; k < count; ++k) {
        eddy_real v;
        memcpy(&v, p + tag_len + sizeof n + k * sizeof v, sizeof v);
        if (!isfinite(v))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "state record '%s': value %zu is %g, expected a finite number", tag, k, (double)v);
    }
    if (count) memcpy(values, p + tag_len + sizeof n, count * sizeof(eddy_real));
    return EDDY_OK;
}

const char *eddy_state_record_tag(const void *data, size_t size)
{
    return data && size && memchr(data, '\0', size) ? (const char *)data : NULL;
}
