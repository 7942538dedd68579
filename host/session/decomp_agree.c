/*
 * host/session/decomp_agree.c — one outcome of a write that every process of a split run took part in
 * (a frame's pieces, a checkpoint's): the error of the lowest process that failed, on every process, so
 * that all stop at the same point with the same message (decomp.h). Built without MPI, or on one
 * process, each call is that process's own outcome.
 */
#include "decomp.h"

#include <stdint.h>
#include <string.h>

double eddy_decomp_failure_word(int rc)
{
    return rc ? (double)(eddy_decomp_size() - eddy_decomp_rank()) : 0.0;
}

int eddy_decomp_share_failure(eddy_world *w, double word, const eddy_error *mine, const char *what, eddy_error *err)
{
    /* The message travels in one integer sum to which the failing process alone contributes its bytes
     * (the others add zeros, so the sum is exact). */
    enum { WORDS = 1 + EDDY_ERROR_MESSAGE_MAX / 8 };
    const int failed = eddy_decomp_size() - (int)word;
    int64_t words[WORDS];
    memset(words, 0, sizeof words);
    if (eddy_decomp_rank() == failed) {
        words[0] = mine->code;
        memcpy(words + 1, mine->message, sizeof mine->message);
    }
    eddy_error serr;
    if (eddy_decomp_sum_int64(w, words, WORDS, &serr)) {
        *err = serr;
        return serr.code;
    }
    const int code = words[0] ? (int)words[0] : EDDY_ERR_IO;
    eddy_decomp_set_agreed(code);
    if (eddy_decomp_rank() == failed) {
        *err = *mine;
        err->code = code;
        return code;
    }
    char text[EDDY_ERROR_MESSAGE_MAX];
    memcpy(text, words + 1, sizeof text);
    text[sizeof text - 1] = '\0';
    return eddy_error_set(err, code, "another process (rank %d) could not write %s: %s", failed, what, text);
}

int eddy_decomp_agree_outcome(eddy_world *w, int rc, const eddy_error *mine, const char *what, eddy_error *err)
{
    double word = eddy_decomp_failure_word(rc);
    eddy_error rerr;
    if (eddy_world_reduce(w, EDDY_REDUCE_MAX, &word, 1, &rerr)) {
        *err = rerr;
        return rerr.code;
    }
    return word > 0 ? eddy_decomp_share_failure(w, word, mine, what, err) : EDDY_OK;
}
