/*
 * internal.h — declarations shared between libeddy's own sources; not part of the SDK.
 */
#ifndef EDDY_INTERNAL_H
#define EDDY_INTERNAL_H

#include <eddy/grid.h>

#if defined(__GNUC__)
#define EDDY_HIDDEN __attribute__((visibility("hidden")))
#else
#define EDDY_HIDDEN
#endif

/* The built-in CPU grid backend (grid_cpu.c), as an object so that static const initializers (the
 * registry's built-in component) can take its address; eddy_cpu_grid_backend() returns it. */
EDDY_HIDDEN extern const eddy_grid_backend_vtable eddy_cpu_grid_vtable;

/*
 * Windowed grid (grid.c): with `on`, every later build of the built-in CPU backend stores only the cells
 * the particles occupy on each bounded axis, with slack and one empty ghost layer each side; the
 * stored cells are the full layout's shifted by whole cells (grid.h, eddy_grid_layout), so the sort
 * order and every cell range are the full grid's. Off (the default), or with another backend, the
 * grid has the layout eddy_grid_init got. The world turns it on while an exchange is installed
 * (several processes, each holding a slab of the particles). [main thread]
 */
EDDY_HIDDEN void eddy_grid_set_window(eddy_grid *grid, int on);

#endif /* EDDY_INTERNAL_H */
