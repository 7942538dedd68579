/*
 * Private interface between the plugin's C descriptor (plugin.c) and its CUDA code. No CUDA type
 * appears here, so plugin.c compiles with the C compiler and the plugin's public face stays plain C.
 */
#ifndef EDDY_CUDA_GRID_H
#define EDDY_CUDA_GRID_H

#include <eddy/plugin.h>

EDDY_BEGIN_DECLS

/* The grid backend "cuda" (cuda_grid.cu): cell index per particle, CUB radix sort by cell, cell
 * ranges by a histogram and an exclusive scan. Const data of the plugin, hidden outside it. */
extern const eddy_grid_backend_vtable cuda_grid_backend;

/* The solver "sph_mueller_cuda" (sph_mueller_cuda.cu): sph_mueller's step on the GPU, particles kept
 * on the device between steps. Listed by the plugin only when built with EDDY_CUDA_SOLVERS. */
extern const eddy_solver_vtable sph_mueller_cuda_vtable;
#define SPH_MUELLER_CUDA_PARAM_COUNT 3
extern const eddy_param_desc sph_mueller_cuda_params[SPH_MUELLER_CUDA_PARAM_COUNT];

EDDY_END_DECLS

#endif /* EDDY_CUDA_GRID_H */
