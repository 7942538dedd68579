/*
 * host/viz/composite.h — sort-last compositing of the renderer's particle discs (render.c) over the
 * processes of a run (docs/mpi.md), exact to the byte: the image rank 0 writes is the one a single
 * process draws from every particle.
 *
 * Why not combine finished images per pixel: the discs are anti-aliased, so an edge pixel is a blend
 * that depends on every disc drawn over it and on their order (cairo/pixman round each blend to 8
 * bits, and those blends do not associate). What does not depend on the order is where a disc is
 * hidden: a pixel whose square lies wholly inside a disc (less the rounding of canvas.c's stamps and
 * cairo's flattening) is set to that disc's colour (and shade), whatever was under it. So each process
 * sorts its discs in draw order and drops every disc all of whose pixels a later disc of its own covers
 * wholly (eddy_disc_cull): such a disc changes nothing in the final image, whoever draws the rest.
 * Rank 0 gathers the survivors (eddy_disc_gather), sorts them all in the one draw order (far first,
 * equal depths by particle id) and draws them: the same blends in the same order as one process.
 *
 * What travels is bounded by the image, not by the particle count: a survivor shows in at least one
 * pixel of its process's own image, in its interior or on its anti-aliased rim; in a dense region a
 * pixel sees its last opaque disc and the few rims drawn after it.
 *
 * One process takes the same path (cull, "gather" of its own, sort, draw).
 */
#ifndef EDDY_HOST_COMPOSITE_H
#define EDDY_HOST_COMPOSITE_H

#include <stddef.h>
#include <stdint.h>

#include <eddy/eddy.h>

#include "canvas.h"

/* One particle as drawn: eddy_canvas_sphere(c, x, y, r, rgb, rim). Sent as bytes between processes of
 * one build, so the layout needs no care beyond being the same in every process. */
typedef struct eddy_disc {
    double depth;   /* along the view direction: larger is farther, drawn first */
    uint64_t id;    /* the particle's id: orders equal depths (all of 2D) */
    double x, y, r; /* centre and radius, pixels */
    uint8_t rgb[3];
    uint8_t unused[5];
} eddy_disc;

/* The draw order: far first, so that nearer discs cover farther ones; equal depths by id, so that the
 * image does not depend on the storage order or on which process owns which particle. */
void eddy_disc_sort(eddy_disc *d, size_t n);

/*
 * Keeps, in their order, the discs of d[0..*n) (sorted) that can change a pixel of [x0, x1) x [y0, y1)
 * (the drawing's clip) when drawn after them in this order: a disc is dropped when every pixel it
 * reaches is covered wholly by a later disc. *n becomes the number kept. EDDY_ERR_OUT_OF_MEMORY when
 * the pixel mask cannot be had (d untouched).
 */
int eddy_disc_cull(eddy_disc *d, size_t *n, int x0, int y0, int x1, int y1, eddy_error *err);

/*
 * What eddy_disc_cull decides by, for row j (pixels [i, i + 1) x [j, j + 1)), clipped to [x0, x1): the
 * pixels [*ia, *ib] the disc may change when drawn (reach), and those it sets to its own colour and
 * shade whatever was under them (cover); empty when *ia > *ib. Exposed for the tests, which check them
 * against canvas.c's drawing.
 */
void eddy_disc_reach_row(const eddy_disc *d, int j, int x0, int x1, int *ia, int *ib);
void eddy_disc_cover_row(const eddy_disc *d, int j, int x0, int x1, int *ia, int *ib);

/* Draws d[0..n) in the order given (eddy_canvas_sphere with `rim`). */
void eddy_disc_draw(eddy_canvas *c, const eddy_disc *d, size_t n, float rim);

/*
 * How the renderer reaches the other processes of a split run. viz sits below the session layer
 * (docs/host.md), which owns every MPI call; the session installs these hooks when it splits a world
 * (host/session/decomp.c). Unset (one process, or a build without MPI): no world is split.
 *   split(w)   non-zero when w is split over several processes (a collective may run on it);
 *   rank()     this process's rank (0 in one process);
 *   gather(mine, count, size, &all, &total, err)  collective: every process's `count` records of `size`
 *              bytes to rank 0, in rank order, into a malloc'ed *all of *total records (the others get
 *              NULL and 0); an error on one process is returned there and stops every process.
 */
typedef struct eddy_viz_processes {
    int (*split)(const eddy_world *w);
    int (*rank)(void);
    int (*gather)(const void *mine, size_t count, size_t size, void **all, size_t *total, eddy_error *err);
} eddy_viz_processes;

/* Installs the hooks (copied; NULL: one process). [main thread, before rendering] */
void eddy_viz_set_processes(const eddy_viz_processes *p);

/* This process's rank as the hooks say (0 without them). */
int eddy_viz_rank(void);

/*
 * Collective where `w` is split over several processes (eddy_viz_processes.split): every process's
 * d[0..*n) (malloc'ed, may be NULL with *n = 0) to rank 0, which gets them all in *d (rank order;
 * sort them) while the other processes get *n = 0. One process: nothing to do. EDDY_ERR_OUT_OF_MEMORY,
 * also past 2 GiB of discs (MPI counts are int), on every process alike.
 */
int eddy_disc_gather(const eddy_world *w, eddy_disc **d, size_t *n, eddy_error *err);

/* 1 where this process writes the image: rank 0 of a split world, or any process of a whole one. */
int eddy_disc_writer(const eddy_world *w);

/*
 * Combines values[count] with MAX over the processes that share `w` where it is split (eddy_world_
 * reduce; exact, the same on every process); nothing to do otherwise. Collective there.
 */
int eddy_disc_reduce_max(const eddy_world *w, double *values, size_t count, eddy_error *err);

#endif /* EDDY_HOST_COMPOSITE_H */
