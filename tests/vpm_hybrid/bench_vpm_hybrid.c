/*
 * Benchmark of the Biot–Savart sums of plugins/vpm_hybrid (biot_savart.c, compiled in): direct summation
 * against the treecode for N vortons filling a ball on a cubic lattice (spacing = core radius, random
 * strengths, the typical layout of a vorticity-carrying drop), every vorton also a target, velocity and
 * its gradient. Prints per N the median over repeats of the wall time of each method, the treecode's
 * RMS deviation from the direct sum, and the crossover (the smallest N from which the treecode is
 * faster). Not a test: speed is reported, never asserted.
 *
 *   bench_vpm_hybrid [theta] [repeats] [N ...]
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "biot_savart.h"

static double now_ms(void)
{
    return omp_get_wtime() * 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A ball of about n lattice points of spacing 1 (so sigma = 1), strengths uniform in [-1, 1]. */
static size_t make_ball(size_t n, float **px, float **py, float **pz, float **ax, float **ay, float **az)
{
    double R = cbrt(3.0 * (double)n / (4.0 * M_PI));
    int m = (int)ceil(R) + 1;
    size_t cap = (size_t)(2 * m + 1) * (2 * m + 1) * (2 * m + 1), k = 0;
    float *a[6];
    for (int i = 0; i < 6; ++i) a[i] = malloc(cap * sizeof(float));
    uint32_t seed = 7;
    for (int i = -m; i <= m; ++i)
        for (int j = -m; j <= m; ++j)
            for (int l = -m; l <= m; ++l) {
                if ((double)i * i + (double)j * j + (double)l * l > R * R) continue;
                a[0][k] = (float)i, a[1][k] = (float)j, a[2][k] = (float)l;
                for (int c = 3; c < 6; ++c) {
                    seed = seed * 1664525u + 1013904223u;
                    a[c][k] = (float)(seed >> 8) / 8388608.0f - 1.0f;
                }
                ++k;
            }
    *px = a[0], *py = a[1], *pz = a[2], *ax = a[3], *ay = a[4], *az = a[5];
    return k;
}

int main(int argc, char **argv)
{
    double theta = argc > 1 ? atof(argv[1]) : 0.5;
    int repeats = argc > 2 ? atoi(argv[2]) : 5;
    size_t sizes[32] = {250, 500, 1000, 1500, 2000, 3000, 4000, 8000, 16000, 32000};
    int ns = 10;
    if (argc > 3) {
        ns = 0;
        for (int i = 3; i < argc && ns < 32; ++i) sizes[ns++] = (size_t)atol(argv[i]);
    }
    printf("threads %d, theta %.2f, %d repeats (median), velocity and gradient at every vorton\n",
           omp_get_max_threads(), theta, repeats);
    printf("| vortons | direct ms | treecode ms | speed-up | cells | RMS dev. velocity | RMS dev. gradient |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    size_t crossover = 0;
    for (int s = 0; s < ns; ++s) {
        float *x, *y, *z, *ax, *ay, *az;
        size_t n = make_ball(sizes[s], &x, &y, &z, &ax, &ay, &az);
        float *u[2][3], *g[2][9];
        for (int m = 0; m < 2; ++m) {
            for (int a = 0; a < 3; ++a) u[m][a] = malloc(n * sizeof(float));
            for (int a = 0; a < 9; ++a) g[m][a] = malloc(n * sizeof(float));
        }
        bs_workspace ws;
        memset(&ws, 0, sizeof ws);
        double med[2];
        for (int m = 0; m < 2; ++m) {
            bs_params prm = {3, 1.0f, (float)theta, getenv("LEAF") ? atoi(getenv("LEAF")) : 64, m ? BS_TREECODE : BS_DIRECT};
            bs_sources src = {n, x, y, z, ax, ay, az};
            bs_targets tgt = {n, x, y, z, u[m][0], u[m][1], u[m][2], g[m]};
            double t[64];
            int reps = repeats < 64 ? repeats : 64;
            bs_evaluate(&prm, &src, &tgt, &ws); /* warm-up */
            for (int r = 0; r < reps; ++r) {
                double t0 = now_ms();
                bs_evaluate(&prm, &src, &tgt, &ws);
                t[r] = now_ms() - t0;
            }
            qsort(t, reps, sizeof *t, cmp);
            med[m] = t[reps / 2];
        }
        double du = 0, uu = 0, dg = 0, gg = 0;
        for (size_t i = 0; i < n; ++i) {
            for (int a = 0; a < 3; ++a) {
                du += pow(u[1][a][i] - u[0][a][i], 2);
                uu += pow(u[0][a][i], 2);
            }
            for (int a = 0; a < 9; ++a) {
                dg += pow(g[1][a][i] - g[0][a][i], 2);
                gg += pow(g[0][a][i], 2);
            }
        }
        if (!crossover && med[1] < med[0]) crossover = n;
        if (crossover && med[1] >= med[0]) crossover = 0;
        printf("| %zu | %.2f | %.2f | %.2f | %zu | %.2e | %.2e |\n", n, med[0], med[1], med[0] / med[1],
               bs_node_count(&ws), sqrt(du / uu), sqrt(dg / gg));
        fflush(stdout);
        bs_free(&ws);
        for (int m = 0; m < 2; ++m) {
            for (int a = 0; a < 3; ++a) free(u[m][a]);
            for (int a = 0; a < 9; ++a) free(g[m][a]);
        }
        free(x), free(y), free(z), free(ax), free(ay), free(az);
    }
    if (crossover) printf("bench: crossover %zu vortons (the treecode is faster from there on)\n", crossover);
    else printf("bench: no crossover within the sizes measured\n");
    return 0;
}
