/*
 * The cell of a position, shared by the CUDA kernels and the host-side test that holds it equal to
 * eddy_grid_cell_of (core/include/eddy/grid.h). Private to plugins/cuda_grid: no CUDA type, plain C
 * when compiled by a C compiler.
 *
 * The device code cannot call eddy_grid_cell_of (a host-only static inline function), so the formula
 * is written here a second time, operation for operation: (p - lo) * inv_cell_size in float (a
 * subtraction followed by a multiplication cannot be contracted into an FMA, so nvcc and GCC round the
 * same way), truncation toward zero, clamping into the interior, then the x-fastest hash in int32. Any
 * difference would move particles between cells and break the promise that the CUDA grid produces
 * the CPU grid's order, which tests/cuda_grid checks on the device.
 */
#ifndef EDDY_CUDA_GRID_CELL_INDEX_H
#define EDDY_CUDA_GRID_CELL_INDEX_H

#include <stdint.h>

#include <eddy/grid.h>

#ifdef __CUDACC__
#define CUDA_GRID_HD __host__ __device__ __forceinline__
#else
#define CUDA_GRID_HD static inline
#endif

/* The part of eddy_grid_layout the hash reads, small enough to pass to a kernel by value. */
typedef struct cuda_grid_cell_params {
    int32_t dimensions;
    float lo[3];
    float inv_cell_size[3];
    int32_t cells[3];
    int32_t pad[3];
    int32_t dim[3];
} cuda_grid_cell_params;

CUDA_GRID_HD uint32_t cuda_grid_cell_of(const cuda_grid_cell_params *l, float x, float y, float z)
{
    int32_t c[3];
    const float p[3] = {x, y, z};
    for (int a = 0; a < 3; ++a) {
        if (a >= l->dimensions) {
            c[a] = 0;
            continue;
        }
        int32_t i = (int32_t)((p[a] - l->lo[a]) * l->inv_cell_size[a]);
        if (i < 0) i = 0;
        if (i >= l->cells[a]) i = l->cells[a] - 1;
        c[a] = i + l->pad[a];
    }
    return (uint32_t)(c[0] + l->dim[0] * (c[1] + l->dim[1] * c[2]));
}

/* Host side: the hash parameters of a layout. */
static inline cuda_grid_cell_params cuda_grid_cell_params_of(const eddy_grid_layout *l)
{
    cuda_grid_cell_params q;
    q.dimensions = l->dimensions;
    for (int a = 0; a < 3; ++a) {
        q.lo[a] = l->lo[a];
        q.inv_cell_size[a] = l->inv_cell_size[a];
        q.cells[a] = l->cells[a];
        q.pad[a] = l->pad[a];
        q.dim[a] = l->dim[a];
    }
    return q;
}

#endif /* EDDY_CUDA_GRID_CELL_INDEX_H */
