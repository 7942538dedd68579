/*
 * Private interface between the plugin's C descriptor (plugin.c) and its CUDA code. No CUDA type
 * appears here, so plugin.c compiles with the C compiler and the plugin's public face stays plain C.
 * Everything declared here is hidden outside the plugin (-fvisibility=hidden; tests/cuda_grid's
 * check_elf.sh holds the plugin to exporting eddy_plugin_entry alone).
 */
#ifndef EDDY_CUDA_GRID_H
#define EDDY_CUDA_GRID_H

#include <eddy/plugin.h>

EDDY_BEGIN_DECLS

/* The grid backend "cuda" (cuda_grid.cu, interface EDDY_INTERFACE_GRID): cell index per particle, CUB
 * radix sort by cell, cell ranges by a histogram and an exclusive scan. */
extern const eddy_grid_backend_vtable cuda_grid_backend;

/* The solver "sph_mueller_cuda" (sph_mueller_cuda.cu, interface EDDY_INTERFACE_SOLVER): sph_mueller's
 * step on the GPU, particles kept on the device between steps. Always compiled; listed by the plugin
 * only when built with EDDY_CUDA_SOLVERS. */
extern const eddy_solver_vtable sph_mueller_cuda_vtable;

/* Its parameter tables, defined in plugin.c (C designated initializers, the shared material entries of
 * world.h) and read by sph_mueller_cuda.cu by id, with each entry's default as the fallback. The same
 * ids, types, defaults and ranges as sph_mueller's, so a scene section is valid for either. */
enum {
    SPH_MUELLER_CUDA_P_CFL,
    SPH_MUELLER_CUDA_P_NEGATIVE_PRESSURE,
    SPH_MUELLER_CUDA_P_PRESSURE_FORCE, /* ENUM: consistent (0), mueller (1) */
    /* sph_mueller's CPU-only options (no-slip walls, particle shifting): accepted at their defaults, any
     * other value refused by create(), so a scene written for sph_mueller names what the GPU lacks. */
    SPH_MUELLER_CUDA_P_WALL_VELOCITY,  /* ENUM: slip (0), no_slip (1) */
    SPH_MUELLER_CUDA_P_SHIFTING,
    SPH_MUELLER_CUDA_P_SHIFTING_COEFFICIENT,
    SPH_MUELLER_CUDA_PARAM_COUNT
};
extern const eddy_param_desc sph_mueller_cuda_params[SPH_MUELLER_CUDA_PARAM_COUNT];

enum {
    SPH_MUELLER_CUDA_M_VISCOSITY,
    SPH_MUELLER_CUDA_M_STIFFNESS,
    SPH_MUELLER_CUDA_M_INITIAL_SUM,
    SPH_MUELLER_CUDA_MATERIAL_PARAM_COUNT
};
extern const eddy_param_desc sph_mueller_cuda_material_params[SPH_MUELLER_CUDA_MATERIAL_PARAM_COUNT];

EDDY_END_DECLS

#endif /* EDDY_CUDA_GRID_H */
