/*
 * host/cli/launch.c — the same work on every process of a launch (docs/mpi.md, "Failures").
 *
 * Every process of a command makes the same sequence of collectives, so processes given other work (an
 * MPMD launch, `mpirun -np 1 eddy run A : -np 1 eddy bench A`, or an environment variable that one node
 * sets) hung in MPI or died in it without eddy's message. Before any command runs, the processes compare a hash of their command line
 * and one of each environment variable that changes what they do together; a difference refuses the
 * launch on every process alike (status 2), said once by rank 0.
 */
#include "launch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp.h"
#include "fnv1a.h"

/* Environment variables every process must see alike: read by each process for itself, they choose
 * collectives. (EDDY_REBALANCE is rank 0's for all, decomp_balance.c; processes on different SIMD paths
 * run, with a warning, so EDDY_SIMD may differ; EDDY_LOG, EDDY_PLUGIN_PATH and
 * EDDY_TEST_MANIFEST_DELAY_MS change no collective.) */
static const char *const SAME_ENVIRONMENT[] = {"EDDY_DECOMP_FILL", "EDDY_OUTPUT_OVERLAP"};
#define SAME_ENVIRONMENT_COUNT (int)(sizeof SAME_ENVIRONMENT / sizeof SAME_ENVIRONMENT[0])
/* The longest command line or value said in a refusal (a longer one ends with "..."). */
#define SAME_TEXT 400

/* What the value of SAME_ENVIRONMENT[k] means, so that spellings of one setting compare equal (unset,
 * "" and "pieces" fill in pieces; unset, "on" and "1" overlap, "off" and "0" do not). A bad value stays
 * itself: every process that has it refuses it alike later, by name. */
static const char *environment_meaning(int k, const char *v)
{
    if (strcmp(SAME_ENVIRONMENT[k], "EDDY_DECOMP_FILL") == 0)
        return !v || !*v || strcmp(v, "pieces") == 0 ? "pieces" : v;
    if (strcmp(SAME_ENVIRONMENT[k], "EDDY_OUTPUT_OVERLAP") == 0) {
        if (!v || strcmp(v, "on") == 0 || strcmp(v, "1") == 0) return "on";
        if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0) return "off";
    }
    return v;
}

/* Appends the word `s` to text (of `size`), after a space, in single quotes unless it is plain (letters,
 * digits and _./,=:+@%-); " ..." instead where it does not fit. */
static void append_word(char *text, size_t size, const char *s)
{
    static const char plain_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,=:+@%-";
    const size_t n = strlen(text);
    if (n >= 4 && strcmp(text + n - 4, " ...") == 0) return;
    char word[SAME_TEXT];
    if (*s && strspn(s, plain_chars) == strlen(s)) {
        snprintf(word, sizeof word, "%s", s);
    } else {
        /* 'it'\''s' for a quote within */
        size_t w = 0;
        word[w++] = '\'';
        for (const char *c = s; *c && w + 6 < sizeof word; ++c) {
            if (*c == '\'') {
                memcpy(word + w, "'\\''", 4);
                w += 4;
            } else {
                word[w++] = *c;
            }
        }
        word[w++] = '\'';
        word[w] = '\0';
    }
    if (n + 1 + strlen(word) + 4 >= size) {
        if (n + 5 <= size) snprintf(text + n, size - n, " ...");
        return;
    }
    snprintf(text + n, size - n, "%s%s", n ? " " : "", word);
}

/* The hash of the command line without the options that may differ between processes (--threads N and
 * --quiet after the command; no value starts with "--", eddy_arg_value), and its words for a refusal. */
static uint64_t launch_line(int argc, char **argv, char *text, size_t size)
{
    uint64_t h = EDDY_FNV1A_OFFSET;
    text[0] = '\0';
    for (int i = 1; i < argc; ++i) {
        if (i >= 2 && strcmp(argv[i], "--quiet") == 0) continue;
        if (i >= 2 && strcmp(argv[i], "--threads") == 0) {
            ++i;
            continue;
        }
        h = eddy_fnv1a_str(h, argv[i]); /* (with its terminating zero: "ab" "c" is not "a" "bc") */
        append_word(text, size, argv[i]);
    }
    if (!text[0]) snprintf(text, size, "(no arguments)");
    return h;
}

/* How an environment variable is said in a refusal: unset, or its value quoted. */
static void environment_words(const char *v, char *text, size_t size)
{
    text[0] = '\0';
    if (!v) snprintf(text, size, "unset");
    else if (!*v) snprintf(text, size, "''");
    else snprintf(text, size, "'%.*s'%s", (int)size - 8, v, strlen(v) > size - 8 ? "..." : "");
}

/* 0 when every process was given the same command line and environment (or there is one process);
 * else 2 on every process alike, rank 0 having said what differs. Collective: one MPI_Allreduce where
 * they agree. */
int eddy_launch_check(int argc, char **argv)
{
    const int size = eddy_decomp_size();
    if (size <= 1) return 0;
    uint64_t h[1 + SAME_ENVIRONMENT_COUNT];
    int first[1 + SAME_ENVIRONMENT_COUNT];
    char line[SAME_TEXT];
    h[0] = launch_line(argc, argv, line, sizeof line);
    for (int k = 0; k < SAME_ENVIRONMENT_COUNT; ++k) {
        const char *v = environment_meaning(k, getenv(SAME_ENVIRONMENT[k]));
        h[1 + k] = eddy_fnv1a_str(EDDY_FNV1A_OFFSET, v);
    }
    eddy_decomp_first_differing_each(h, 1 + SAME_ENVIRONMENT_COUNT, first);
    /* Each process knows from the same collective what differs: the first difference is said by rank
     * 0, after the words of the process that differs come to it (a broadcast from that process). */
    char mine[SAME_TEXT], other[SAME_TEXT];
    if (first[0] >= 0) {
        memcpy(other, line, sizeof other);
        eddy_decomp_broadcast(other, sizeof other, first[0]);
        if (eddy_decomp_rank() == 0)
            fprintf(stderr,
                    "eddy: error: process %d of %d was given another command line than process 0: %s (process "
                    "0: %s); every process must be given the same command and options (--threads and --quiet "
                    "may differ)\n",
                    first[0], size, other, line);
        return 2;
    }
    for (int k = 0; k < SAME_ENVIRONMENT_COUNT; ++k) {
        if (first[1 + k] < 0) continue;
        environment_words(getenv(SAME_ENVIRONMENT[k]), mine, sizeof mine);
        memcpy(other, mine, sizeof other);
        eddy_decomp_broadcast(other, sizeof other, first[1 + k]);
        if (eddy_decomp_rank() == 0)
            fprintf(stderr,
                    "eddy: error: environment variable %s differs between processes (process 0: %s, process "
                    "%d: %s); every process must be given the same\n",
                    SAME_ENVIRONMENT[k], mine, first[1 + k], other);
        return 2;
    }
    return 0;
}
