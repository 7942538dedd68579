/*
 * A failed CUDA runtime call as an eddy_error, for both components of this plugin (the grid backend in
 * cuda_grid.cu and the solver in sph_mueller_cuda.cu), each naming itself first: "cuda grid:
 * cudaMalloc(...) failed: out of memory (cudaErrorMemoryAllocation)". Private to plugins/cuda_grid.
 */
#ifndef EDDY_CUDA_GRID_DEVICE_ERROR_CUH
#define EDDY_CUDA_GRID_DEVICE_ERROR_CUH

#include <cuda_runtime.h>

#include <eddy/error.h>

namespace eddy_cuda {

/* Out of device memory is the one failure a user can act on (fewer particles, another device), so it
 * keeps the core's own code; every other failure is EDDY_ERR_DEVICE. */
inline int device_error(eddy_error *err, const char *who, const char *call, cudaError_t e)
{
    const int code = e == cudaErrorMemoryAllocation ? EDDY_ERR_OUT_OF_MEMORY : EDDY_ERR_DEVICE;
    return eddy_error_set(err, code, "%s: %s failed: %s (%s)", who, call, cudaGetErrorString(e), cudaGetErrorName(e));
}

} // namespace eddy_cuda

/* Returns device_error's code from the enclosing function, whose `eddy_error *err` it fills. */
#define EDDY_CUDA_TRY(who, call)                                                                        \
    do {                                                                                                \
        const cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) return eddy_cuda::device_error(err, (who), #call, e_);                   \
    } while (0)

#endif
