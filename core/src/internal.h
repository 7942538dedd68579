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

#endif /* EDDY_INTERNAL_H */
