/*
 * The grid backend "cuda": the sort of eddy_grid_backend_vtable on an NVIDIA GPU.
 *
 * Pipeline (cuda-samples `particles`, with a histogram instead of a boundary search):
 *   positions (host) -> device
 *   kernel cell_keys: key[i] = cell of particle i (cell_index.h), value[i] = i, count[key[i]] += 1
 *   cub::DeviceRadixSort::SortPairs(key, value) over the bits a cell index needs
 *   cub::DeviceScan::ExclusiveSum(count[0..C]) -> offset, so cell c holds [offset[c], offset[c + 1])
 *   perm = sorted values, cell_begin = offset[0..C), cell_end = offset[1..C] -> host
 *
 * Why this reproduces the CPU grid exactly: CUB's radix sort is stable, and the values enter in index
 * order, so within a cell the indices stay ascending — the one stable sort by cell that grid_cpu.c's
 * counting sort also produces. The ranges are exclusive prefix sums of integer counts; integer atomics
 * make the counts exact whatever order the threads add in.
 *
 * The vtable hands positions in and the permutation out through host memory, so every build pays
 * 12 bytes per particle up and 4 bytes per particle plus 8 bytes per cell down over PCIe. That is the
 * price of serving every solver unchanged; keeping particles on the device is the business of a
 * GPU-resident solver step, not of this backend.
 *
 * STATUS: compiled and linked, but never run on a GPU when written (see docs/cuda_grid.md). The no-device
 * path of create() is tested; everything after it waits for tests/cuda_grid on a machine with a GPU.
 */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "cell_index.h"
#include "cuda_grid.h"

namespace {

constexpr int BLOCK = 256;

struct cuda_state {
    int device;
    cudaStream_t stream;
    /* Per-particle device buffers, all of `capacity` entries; [0] and [1] of a pair are the sort's
     * input and output. */
    float *pos[3];
    uint32_t *key[2];
    uint32_t *value[2];
    size_t capacity;
    /* Per-cell device buffers of `cell_capacity` entries: counts, then offsets (cell_count + 1 each). */
    uint32_t *count;
    uint32_t *offset;
    size_t cell_capacity;
    void *temp; /* CUB scratch */
    size_t temp_bytes;
};

int device_error(eddy_error *err, const char *call, cudaError_t e)
{
    const int code = e == cudaErrorMemoryAllocation ? EDDY_ERR_OUT_OF_MEMORY : EDDY_ERR_DEVICE;
    return eddy_error_set(err, code, "cuda grid: %s failed: %s (%s)", call, cudaGetErrorString(e),
                          cudaGetErrorName(e));
}

#define CUDA_TRY(call)                                                                                  \
    do {                                                                                                \
        const cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) return device_error(err, #call, e_);                                     \
    } while (0)

__global__ void cell_keys(cuda_grid_cell_params l, uint32_t n, const float *__restrict__ x,
                          const float *__restrict__ y, const float *__restrict__ z, uint32_t *__restrict__ key,
                          uint32_t *__restrict__ value, uint32_t *__restrict__ count)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    /* In 2D z is not read by the hash; x stands in for it so no z array need be copied. */
    const uint32_t c = cuda_grid_cell_of(&l, x[i], y[i], l.dimensions == 3 ? z[i] : 0.0f);
    key[i] = c;
    value[i] = i;
    atomicAdd(&count[c], 1u);
}

/* Replaces a device buffer by a larger one; the contents are not kept (every sort refills them). */
template <typename T> cudaError_t regrow(T **buf, size_t count)
{
    if (*buf) cudaFree(*buf);
    *buf = nullptr;
    return cudaMalloc(reinterpret_cast<void **>(buf), count * sizeof(T));
}

void release(cuda_state *s)
{
    for (float *&p : s->pos) cudaFree(p);
    for (int b = 0; b < 2; ++b) {
        cudaFree(s->key[b]);
        cudaFree(s->value[b]);
    }
    cudaFree(s->count);
    cudaFree(s->offset);
    cudaFree(s->temp);
}

int grid_create(const eddy_grid_layout *layout, void **state, eddy_error *err)
{
    (void)layout;
    *state = nullptr;
    /* The first CUDA call of the process, and the only place a missing GPU or driver is reported. */
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e == cudaSuccess && devices == 0) e = cudaErrorNoDevice;
    if (e != cudaSuccess)
        return eddy_error_set(err, EDDY_ERR_DEVICE, "cuda grid: no CUDA device (cudaGetDeviceCount: %s)",
                              cudaGetErrorString(e));
    /* Device 0 of those the process may see: choose another with CUDA_VISIBLE_DEVICES. */
    CUDA_TRY(cudaSetDevice(0));
    /* A device older than the architectures compiled in (CMAKE_CUDA_ARCHITECTURES) can load none of
     * the kernels; say so now instead of failing the first sort with "invalid device function". */
    cudaFuncAttributes attr;
    e = cudaFuncGetAttributes(&attr, cell_keys);
    if (e != cudaSuccess) {
        cudaDeviceProp prop;
        const int known = cudaGetDeviceProperties(&prop, 0) == cudaSuccess;
        return eddy_error_set(err, EDDY_ERR_DEVICE,
                              "cuda grid: the plugin has no code for device 0 (%s, compute capability "
                              "%d.%d): %s; rebuild with -DCMAKE_CUDA_ARCHITECTURES=<its capability>",
                              known ? prop.name : "unknown", known ? prop.major : 0, known ? prop.minor : 0,
                              cudaGetErrorString(e));
    }
    cuda_state *s = static_cast<cuda_state *>(calloc(1, sizeof(cuda_state)));
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "cuda grid: out of memory");
    s->device = 0;
    /* Its own non-blocking stream, so the sort never waits on (or serializes) other work of the
     * process on the legacy default stream. */
    e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        free(s);
        return device_error(err, "cudaStreamCreateWithFlags", e);
    }
    *state = s;
    return EDDY_OK;
}

void grid_destroy(void *state)
{
    cuda_state *s = static_cast<cuda_state *>(state);
    if (!s) return;
    cudaSetDevice(s->device);
    cudaStreamSynchronize(s->stream);
    release(s);
    cudaStreamDestroy(s->stream);
    free(s);
}

/* Number of low bits the radix sort must look at to order keys in [0, cell_count). */
int key_bits(size_t cell_count)
{
    int bits = 1;
    while (bits < 32 && ((size_t)1 << bits) < cell_count) ++bits;
    return bits;
}

int ensure_buffers(cuda_state *s, size_t n, size_t cells, int bits, eddy_error *err)
{
    if (n > s->capacity) {
        /* A quarter of slack, so a slowly growing particle count does not reallocate every build. */
        const size_t cap = n + n / 4 + 1024;
        for (int a = 0; a < 3; ++a) CUDA_TRY(regrow(&s->pos[a], cap));
        for (int b = 0; b < 2; ++b) {
            CUDA_TRY(regrow(&s->key[b], cap));
            CUDA_TRY(regrow(&s->value[b], cap));
        }
        s->capacity = cap;
    }
    if (cells + 1 > s->cell_capacity) {
        CUDA_TRY(regrow(&s->count, cells + 1));
        CUDA_TRY(regrow(&s->offset, cells + 1));
        s->cell_capacity = cells + 1;
    }
    /* CUB reports its scratch size for the exact call; ask for both and keep the larger. */
    size_t sort_bytes = 0, scan_bytes = 0;
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, s->key[0], s->key[1], s->value[0],
                                             s->value[1], (int)n, 0, bits, s->stream));
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, s->count, s->offset, (int)(cells + 1),
                                           s->stream));
    const size_t need = sort_bytes > scan_bytes ? sort_bytes : scan_bytes;
    if (need > s->temp_bytes) {
        CUDA_TRY(regrow(reinterpret_cast<unsigned char **>(&s->temp), need + need / 4));
        s->temp_bytes = need + need / 4;
    }
    return EDDY_OK;
}

int grid_sort(void *state, const eddy_grid_layout *layout, size_t n, const float *x, const float *y,
              const float *z, uint32_t *perm, uint32_t *cell_begin, uint32_t *cell_end, eddy_error *err)
{
    cuda_state *s = static_cast<cuda_state *>(state);
    const size_t cells = layout->cell_count;
    /* CUB's int item counts (and the scan over cells + 1 entries) bound what one call can sort. */
    if (n > (size_t)INT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "cuda grid: %zu particles exceed 2^31 - 1", n);
    if (cells + 1 > (size_t)INT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "cuda grid: %zu cells exceed 2^31 - 2; use a larger smoothing radius", cells);
    if (n == 0) {
        memset(cell_begin, 0, sizeof(uint32_t) * cells);
        memset(cell_end, 0, sizeof(uint32_t) * cells);
        return EDDY_OK;
    }
    CUDA_TRY(cudaSetDevice(s->device));
    const int bits = key_bits(cells);
    int rc = ensure_buffers(s, n, cells, bits, err);
    if (rc) return rc;

    cudaStream_t st = s->stream;
    const int dims = layout->dimensions;
    const float *host_pos[3] = {x, y, z};
    for (int a = 0; a < dims; ++a)
        CUDA_TRY(cudaMemcpyAsync(s->pos[a], host_pos[a], n * sizeof(float), cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemsetAsync(s->count, 0, (cells + 1) * sizeof(uint32_t), st));
    const unsigned blocks = (unsigned)((n + BLOCK - 1) / BLOCK);
    cell_keys<<<blocks, BLOCK, 0, st>>>(cuda_grid_cell_params_of(layout), (uint32_t)n, s->pos[0], s->pos[1],
                                        dims == 3 ? s->pos[2] : s->pos[0], s->key[0], s->value[0], s->count);
    CUDA_TRY(cudaGetLastError());
    size_t temp_bytes = s->temp_bytes;
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(s->temp, temp_bytes, s->key[0], s->key[1], s->value[0],
                                             s->value[1], (int)n, 0, bits, st));
    temp_bytes = s->temp_bytes;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(s->temp, temp_bytes, s->count, s->offset, (int)(cells + 1), st));
    CUDA_TRY(cudaMemcpyAsync(perm, s->value[1], n * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaMemcpyAsync(cell_begin, s->offset, cells * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaMemcpyAsync(cell_end, s->offset + 1, cells * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
    /* The vtable contract: nothing is kept or still in flight when sort() returns. */
    CUDA_TRY(cudaStreamSynchronize(st));
    return EDDY_OK;
}

} // namespace

extern "C" const eddy_grid_backend_vtable cuda_grid_backend = {
    sizeof(eddy_grid_backend_vtable),
    grid_create,
    grid_sort,
    grid_destroy,
};
