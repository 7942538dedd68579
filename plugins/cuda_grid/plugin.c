/*
 * The cuda_grid plugin: its descriptor and entry point. The CUDA code lives in cuda_grid.cu behind
 * cuda_grid.h, so that nothing here (and nothing the loader reads) needs the CUDA runtime: loading
 * the plugin makes no CUDA call, and `eddy list` shows it on a machine without a GPU. The device is
 * first touched when a grid is created (create() in cuda_grid.cu).
 */
#include <eddy/plugin.h>

#include "cuda_grid.h"

static const eddy_component grid_cuda = {
    .size = sizeof(eddy_component),
    .kind = EDDY_COMPONENT_GRID,
    .id = "cuda",
    .version = "0.1.0",
    .description = "Neighbor grid on an NVIDIA GPU: cell index, CUB radix sort by cell, cell ranges; "
                   "the same order and ranges as the cpu grid",
    .grid = &cuda_grid_backend,
};

#ifdef EDDY_CUDA_SOLVERS
/* Listed only in builds that ask for it (CMake option EDDY_CUDA_SOLVERS): tests/checkpoint requires a
 * resume test of every listed solver and has none for this one yet, which needs a GPU
 * (docs/cuda_grid.md). */
static const eddy_component solver_sph_mueller_cuda = {
    .size = sizeof(eddy_component),
    .kind = EDDY_COMPONENT_SOLVER,
    .id = "sph_mueller_cuda",
    .version = "0.1.0",
    .description = "sph_mueller's step on an NVIDIA GPU, particles kept on the device (same physics and "
                   "parameters)",
    .params = sph_mueller_cuda_params,
    .param_count = SPH_MUELLER_CUDA_PARAM_COUNT,
    .solver = &sph_mueller_cuda_vtable,
};
static const eddy_component *const components[] = {&grid_cuda, &solver_sph_mueller_cuda};
#else
static const eddy_component *const components[] = {&grid_cuda};
#endif

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .component_count = sizeof components / sizeof components[0],
    .components = components,
    .name = "cuda_grid",
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void)
{
    return &descriptor;
}
