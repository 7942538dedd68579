/*
 * gpu_present.h — whether this machine has an NVIDIA GPU, asked of the driver's tool (`nvidia-smi -L`
 * lists a line "GPU <n>: ...") and not of the plugin under test, so that a GPU test skips (exit 77)
 * only where there is no GPU: a plugin or runtime that wrongly reports "no CUDA device" on a GPU
 * machine fails its tests instead of hiding them. The same rule as tests/cuda_grid/gpu_present.sh
 * (the shell tests). Header-only (POSIX popen), so a test program needs no library for it.
 */
#ifndef EDDY_TEST_GPU_PRESENT_H
#define EDDY_TEST_GPU_PRESENT_H

#include <stdio.h>
#include <string.h>

/* 1 when `nvidia-smi -L` lists a GPU, 0 when it lists none or cannot be run. Asked once per program. */
static inline int support_gpu_present(void)
{
    static int known = -1;
    if (known >= 0) return known;
    known = 0;
    FILE *f = popen("nvidia-smi -L 2>/dev/null", "r");
    if (!f) return known;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "GPU ", 4) == 0) known = 1;
    pclose(f);
    return known;
}

#endif
