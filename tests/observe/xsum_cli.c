/*
 * xsum_cli: one sum per input line. Reads whitespace-separated doubles (C99 hex floats, "%a") from
 * each line of stdin, sums them with the exact accumulator (host/observe/exact_sum.h) and prints the
 * sum as a hex float, one line each: what xsum_fsum.py compares with Python's math.fsum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact_sum.h"

int main(void)
{
    static char line[1 << 20];
    while (fgets(line, sizeof line, stdin)) {
        eddy_xsum s;
        eddy_xsum_init(&s);
        char *p = line, *end;
        for (;;) {
            double x = strtod(p, &end);
            if (end == p) break;
            eddy_xsum_add(&s, x);
            p = end;
        }
        printf("%a\n", eddy_xsum_round(&s));
    }
    return 0;
}
