/*
 * The stable sort of particles by cell on the device, shared by the grid backend (cuda_grid.cu) and
 * the GPU-resident solver (sph_mueller_cuda.cu). Private to plugins/cuda_grid; CUDA C++ only.
 *
 *   cell_keys: key[i] = cell of particle i (eddy_grid_cell_of of <eddy/grid.h>, the CPU grid's own
 *              inline function compiled for the device), value[i] = i, count[key[i]] += 1
 *   cub::DeviceRadixSort::SortPairs over the bits a cell index needs -> key[1], value[1]
 *   cub::DeviceScan::ExclusiveSum over count[0..cells] -> offset: cell c holds [offset[c], offset[c+1])
 *
 * CUB's radix sort is stable and the values enter in index order, so within a cell the indices stay
 * ascending: the permutation of the CPU grid's stable counting sort (core/src/grid_cpu.c). The counts
 * are integers, so the atomics make them exact in any order.
 */
#ifndef EDDY_CUDA_GRID_DEVICE_SORT_CUH
#define EDDY_CUDA_GRID_DEVICE_SORT_CUH

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <stdint.h>

#include <eddy/grid.h>

namespace eddy_cuda {

constexpr int SORT_BLOCK = 256;

struct device_sort {
    uint32_t *key[2];   /* [0] input keys, [1] sorted keys: the cell of each sorted particle */
    uint32_t *value[2]; /* [0] 0..n-1, [1] the permutation: sorted position -> input index */
    size_t capacity;
    uint32_t *count;    /* [cells + 1] */
    uint32_t *offset;   /* [cells + 1] exclusive prefix sums of count */
    size_t cell_capacity;
    void *temp;         /* CUB scratch */
    size_t temp_bytes;
};

/* The CUDA call that failed, for messages: set by the functions below before they return an error. */
struct sort_failure {
    const char *call;
};

#define EDDY_SORT_TRY(expr, fail)                                                                       \
    do {                                                                                                \
        const cudaError_t e_ = (expr);                                                                  \
        if (e_ != cudaSuccess) {                                                                        \
            (fail)->call = #expr;                                                                       \
            return e_;                                                                                  \
        }                                                                                               \
    } while (0)

static __global__ void sort_cell_keys(eddy_grid_layout l, uint32_t n, const float *__restrict__ x,
                               const float *__restrict__ y, const float *__restrict__ z,
                               uint32_t *__restrict__ key, uint32_t *__restrict__ value,
                               uint32_t *__restrict__ count)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    /* z is not read in 2D (callers may pass any array there). */
    const uint32_t c = eddy_grid_cell_of(&l, x[i], y[i], l.dimensions == 3 ? z[i] : 0.0f);
    key[i] = c;
    value[i] = i;
    atomicAdd(&count[c], 1u);
}

/* Number of low bits the radix sort must look at to order keys in [0, cells). */
inline int sort_key_bits(size_t cells)
{
    int bits = 1;
    while (bits < 32 && ((size_t)1 << bits) < cells) ++bits;
    return bits;
}

/* Replaces a device buffer by a larger one; the contents are not kept. */
template <typename T> cudaError_t sort_regrow(T **buf, size_t count)
{
    if (*buf) cudaFree(*buf);
    *buf = nullptr;
    return cudaMalloc(reinterpret_cast<void **>(buf), count * sizeof(T));
}

inline void device_sort_release(device_sort *s)
{
    for (int b = 0; b < 2; ++b) {
        cudaFree(s->key[b]);
        cudaFree(s->value[b]);
    }
    cudaFree(s->count);
    cudaFree(s->offset);
    cudaFree(s->temp);
    *s = device_sort{};
}

/* Sizes every buffer for n particles (n <= INT32_MAX) in `cells` cells (cells + 1 <= INT32_MAX). */
inline cudaError_t device_sort_reserve(device_sort *s, size_t n, size_t cells, cudaStream_t st, sort_failure *f)
{
    if (n > s->capacity) {
        /* A quarter of slack, so a slowly growing particle count does not reallocate every build. */
        const size_t cap = n + n / 4 + 1024;
        for (int b = 0; b < 2; ++b) {
            EDDY_SORT_TRY(sort_regrow(&s->key[b], cap), f);
            EDDY_SORT_TRY(sort_regrow(&s->value[b], cap), f);
        }
        s->capacity = cap;
    }
    if (cells + 1 > s->cell_capacity) {
        EDDY_SORT_TRY(sort_regrow(&s->count, cells + 1), f);
        EDDY_SORT_TRY(sort_regrow(&s->offset, cells + 1), f);
        s->cell_capacity = cells + 1;
    }
    /* CUB reports its scratch size for the exact call; ask for both and keep the larger. */
    size_t sort_bytes = 0, scan_bytes = 0;
    EDDY_SORT_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, s->key[0], s->key[1], s->value[0],
                                                  s->value[1], (int)n, 0, sort_key_bits(cells), st),
                  f);
    EDDY_SORT_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, s->count, s->offset, (int)(cells + 1), st), f);
    const size_t need = sort_bytes > scan_bytes ? sort_bytes : scan_bytes;
    if (need > s->temp_bytes) {
        EDDY_SORT_TRY(sort_regrow(reinterpret_cast<unsigned char **>(&s->temp), need + need / 4), f);
        s->temp_bytes = need + need / 4;
    }
    return cudaSuccess;
}

/* Enqueues the sort of n > 0 device positions on stream st (after device_sort_reserve). */
inline cudaError_t device_sort_run(device_sort *s, const eddy_grid_layout &l, size_t n, size_t cells,
                                   const float *x, const float *y, const float *z, cudaStream_t st, sort_failure *f)
{
    EDDY_SORT_TRY(cudaMemsetAsync(s->count, 0, (cells + 1) * sizeof(uint32_t), st), f);
    const unsigned blocks = (unsigned)((n + SORT_BLOCK - 1) / SORT_BLOCK);
    sort_cell_keys<<<blocks, SORT_BLOCK, 0, st>>>(l, (uint32_t)n, x, y, z, s->key[0], s->value[0], s->count);
    EDDY_SORT_TRY(cudaGetLastError(), f);
    size_t bytes = s->temp_bytes;
    EDDY_SORT_TRY(cub::DeviceRadixSort::SortPairs(s->temp, bytes, s->key[0], s->key[1], s->value[0], s->value[1],
                                                  (int)n, 0, sort_key_bits(cells), st),
                  f);
    bytes = s->temp_bytes;
    EDDY_SORT_TRY(cub::DeviceScan::ExclusiveSum(s->temp, bytes, s->count, s->offset, (int)(cells + 1), st), f);
    return cudaSuccess;
}

} // namespace eddy_cuda

#endif /* EDDY_CUDA_GRID_DEVICE_SORT_CUH */
