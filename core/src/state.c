#include "eddy/state.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int eddy_state_save_floats(const char *tag, const eddy_real *values, size_t count, void **data, size_t *size,
                           eddy_error *err)
{
    const size_t tag_len = strlen(tag) + 1;
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
    if (count) memcpy(values, p + tag_len + sizeof n, count * sizeof(eddy_real));
    return EDDY_OK;
}
