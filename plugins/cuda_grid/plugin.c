/*
 * The cuda_grid plugin: its descriptor, components and parameter tables. The CUDA code lives in
 * cuda_grid.cu and sph_mueller_cuda.cu behind cuda_grid.h, so that nothing here (and nothing the
 * loader reads) needs the CUDA runtime.
 *
 * No init(): loading the plugin makes no CUDA call, so `eddy list` (and every run with another grid
 * and solver, since the host initializes every plugin it loads) never pays for initializing the CUDA
 * driver, and a machine without a GPU or driver loads the plugin like any other. The device is first
 * touched, and a missing one reported ("no CUDA device", EDDY_ERR_DEVICE), when a grid or a solver is
 * created (create() in cuda_grid.cu and sph_mueller_cuda.cu). Probing the device once in init() would
 * save one cudaGetDeviceCount per create, which costs microseconds, at the price of that driver
 * initialization on every load; and init() must not fail without a GPU anyway, so create() would still
 * have to report it.
 */
#include <eddy/plugin.h>

#include "cuda_grid.h"

static const eddy_component grid_cuda = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_GRID,
    .id = "cuda",
    .version = "0.1.0",
    .description = "Neighbor grid on an NVIDIA GPU: cell index, CUB radix sort by cell, cell ranges; "
                   "the same order and ranges as the cpu grid",
    .vtable = &cuda_grid_backend,
    /* Each grid has its own stream and buffers and selects its device in every callback. */
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES,
};

/* sph_mueller_cuda's tables (cuda_grid.h). Defined whether or not the solver is listed: its code is
 * always compiled and reads them. The same ids, defaults and ranges as sph_mueller's tables. */
static const char *const pressure_forces[] = {"consistent", "mueller", "variational", NULL};
static const char *const wall_velocities[] = {"slip", "no_slip", NULL};

const eddy_param_desc sph_mueller_cuda_params[SPH_MUELLER_CUDA_PARAM_COUNT] = {
    [SPH_MUELLER_CUDA_P_CFL] = EDDY_PARAM_REAL_DESC(
        "cfl", 0.4, 0.01, 1.0, "1",
        "CFL number of the time-step limit cfl * h / (c + v_max), with c = sqrt(stiffness)."),
    [SPH_MUELLER_CUDA_P_NEGATIVE_PRESSURE] = EDDY_PARAM_REAL_DESC(
        "negative_pressure", 0.0, 0.0, 1.0, "1",
        "Factor on negative pressures; 0 (default) clamps p >= 0. As sph_mueller."),
    [SPH_MUELLER_CUDA_P_PRESSURE_FORCE] = EDDY_PARAM_ENUM_DESC(
        "pressure_force", 0, pressure_forces,
        "Pair weight of the pressure force: consistent (default) or mueller, as sph_mueller; variational "
        "is refused (use sph_mueller)."),
    [SPH_MUELLER_CUDA_P_WALL_VELOCITY] = EDDY_PARAM_ENUM_DESC(
        "wall_velocity", 0, wall_velocities,
        "As sph_mueller's, but only slip (default) runs on the GPU: no_slip is refused (use sph_mueller)."),
    [SPH_MUELLER_CUDA_P_SHIFTING] = EDDY_PARAM_BOOL_DESC(
        "shifting", 0, "As sph_mueller's, but not on the GPU: true is refused (use sph_mueller)."),
    [SPH_MUELLER_CUDA_P_SHIFTING_COEFFICIENT] = EDDY_PARAM_REAL_DESC(
        "shifting_coefficient", 2.0, 0.0, 10.0, "1", "As sph_mueller's; read only with shifting = true."),
};

const eddy_param_desc sph_mueller_cuda_material_params[SPH_MUELLER_CUDA_MATERIAL_PARAM_COUNT] = {
    [SPH_MUELLER_CUDA_M_VISCOSITY] = EDDY_MATERIAL_VISCOSITY_DESC,
    [SPH_MUELLER_CUDA_M_STIFFNESS] = EDDY_MATERIAL_STIFFNESS_DESC,
    [SPH_MUELLER_CUDA_M_INITIAL_SUM] = EDDY_MATERIAL_INITIAL_SUM_DESC,
};

#ifdef EDDY_CUDA_SOLVERS
/* Listed only in builds that ask for it (CMake option EDDY_CUDA_SOLVERS, on by default).
 * EDDY_COMPONENT_DEVICE_RESIDENT: its particles stay on the device, the host downloads them when it maps
 * them, and reduce() gives the per-step figures (sph_mueller_cuda.cu, docs/host.md "Device-resident
 * solvers"). Never with EDDY_COMPONENT_DECOMPOSABLE, which the host refuses beside it: a decomposed run
 * reorders and exchanges the host arrays every step. */
static const eddy_component solver_sph_mueller_cuda = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "sph_mueller_cuda",
    .version = "0.1.0",
    .description = "sph_mueller's step on an NVIDIA GPU, particles kept on the device (same physics and "
                   "parameters)",
    .params = sph_mueller_cuda_params,
    .param_count = SPH_MUELLER_CUDA_PARAM_COUNT,
    .vtable = &sph_mueller_cuda_vtable,
    /* Every instance has its own stream, buffers and events, keeps no process-wide state, and selects
     * its device in every callback (the CUDA runtime is thread-safe). */
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES | EDDY_COMPONENT_DEVICE_RESIDENT,
    .material_params = sph_mueller_cuda_material_params,
    .material_param_count = SPH_MUELLER_CUDA_MATERIAL_PARAM_COUNT,
};
static const eddy_component *const components[] = {&grid_cuda, &solver_sph_mueller_cuda};
#else
static const eddy_component *const components[] = {&grid_cuda};
#endif

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = "cuda_grid",
    .version = "0.1.0",
    .init = NULL, /* see the top of this file */
    .deinit = NULL,
    .component_count = sizeof components / sizeof components[0],
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void)
{
    return &descriptor;
}
