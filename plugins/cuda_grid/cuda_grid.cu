/*
 * The grid backend "cuda": the sort of eddy_grid_backend_vtable on an NVIDIA GPU.
 *
 * Pipeline (cuda-samples `particles`, with a histogram instead of a boundary search):
 *   positions (host) -> device
 *   device_sort.cuh: cell key per particle, CUB radix sort by cell, CUB exclusive scan of the counts
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
 * Run on an NVIDIA H100 (CUDA 13.0, driver 580): tests/cuda_grid's GPU tests pass, compute-sanitizer
 * (memcheck, initcheck) reports no error; docs/cuda_grid.md has what was run and measured.
 */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "cuda_grid.h"
#include "device_error.cuh"
#include "device_sort.cuh"

/* The device code and the copies in and out are written for float: eddy_real is float in ABI 2.x (and
 * the loader refuses a plugin whose sizeof(eddy_real) differs from the host's). */
static_assert(std::is_same<eddy_real, float>::value, "cuda_grid assumes eddy_real is float");

namespace {

using namespace eddy_cuda;

struct cuda_state {
    int device;
    cudaStream_t stream;
    float *pos[3]; /* [capacity] each */
    size_t capacity;
    device_sort sort;
};

/* Failed CUDA calls name this component first (device_error.cuh). */
constexpr char k_who[] = "cuda grid";

#define CUDA_TRY(call) EDDY_CUDA_TRY(k_who, call)

/* The layout arrives again with every sort, and the grid has no parameters: nothing of the setup is
 * kept. */
int grid_create(const eddy_grid_setup *setup, void **state, eddy_error *err)
{
    (void)setup;
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
    e = cudaFuncGetAttributes(&attr, sort_cell_keys);
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
        return device_error(err, k_who, "cudaStreamCreateWithFlags", e);
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
    for (float *&p : s->pos) cudaFree(p);
    device_sort_release(&s->sort);
    cudaStreamDestroy(s->stream);
    free(s);
}

int grid_sort(void *state, const eddy_grid_layout *layout, size_t n, const eddy_real *x, const eddy_real *y,
              const eddy_real *z, uint32_t *perm, uint32_t *cell_begin, uint32_t *cell_end, eddy_error *err)
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
    cudaStream_t st = s->stream;
    sort_failure f = {nullptr};
    cudaError_t e = device_sort_reserve(&s->sort, n, cells, st, &f);
    if (e != cudaSuccess) return device_error(err, k_who, f.call, e);
    if (n > s->capacity) {
        const size_t cap = s->sort.capacity; /* the same slack as the sort's buffers */
        for (int a = 0; a < 3; ++a) CUDA_TRY(sort_regrow(&s->pos[a], cap));
        s->capacity = cap;
    }
    const int dims = layout->dimensions;
    const float *host_pos[3] = {x, y, z};
    for (int a = 0; a < dims; ++a)
        CUDA_TRY(cudaMemcpyAsync(s->pos[a], host_pos[a], n * sizeof(float), cudaMemcpyHostToDevice, st));
    e = device_sort_run(&s->sort, *layout, n, cells, s->pos[0], s->pos[1],
                        dims == 3 ? s->pos[2] : s->pos[0], st, &f);
    if (e != cudaSuccess) return device_error(err, k_who, f.call, e);
    CUDA_TRY(cudaMemcpyAsync(perm, s->sort.value[1], n * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaMemcpyAsync(cell_begin, s->sort.offset, cells * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaMemcpyAsync(cell_end, s->sort.offset + 1, cells * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
    /* The vtable contract: nothing is kept or still in flight when sort() returns. */
    CUDA_TRY(cudaStreamSynchronize(st));
    return EDDY_OK;
}

} // namespace

/* Positional: designated initializers are C++20, and this file is C++17 (CUB). In member order:
 * size, create, sort, destroy. */
extern "C" const eddy_grid_backend_vtable cuda_grid_backend = {
    sizeof(eddy_grid_backend_vtable),
    grid_create,
    grid_sort,
    grid_destroy,
};
