/*
 * eddy/observe.h — components that observe a run: output writers and probes (ABI 2.0).
 *
 * At every output frame the host brings the particles' host copy up to date (eddy_world_sync_host),
 * sorts the owned particles by id once, and hands that one snapshot (eddy_frame) to every writer and
 * every probe the scene names. Writers and probes are components like solvers and grids: the built-in
 * ones ("vtk" and "csv" writers; "front", "height", "pressure" and "density" probes) are registered by
 * the host the same way a plugin's are, so a plugin may add a format or a measurement without any
 * change to the host.
 *
 * A scene names writers in output.format (["vtk", "csv", "my_format"]) with optional parameters in
 * output.writers.<id>, and probes in its "probes" list, each with "kind" = the probe component's id,
 * a "name", an optional "reference" (read by the host), and the probe's own parameters.
 *
 * Units: a frame carries the world in simulation units; writers and probes convert with
 * world->simulation_scale where their output is in world units (and say so in their docs). The host
 * converts nothing they produce.
 *
 * Threads: every callback is called from the host's main thread. [main thread]
 */
#ifndef EDDY_OBSERVE_H
#define EDDY_OBSERVE_H

#include "defs.h"
#include "error.h"
#include "host.h"
#include "params.h"
#include "world.h"

EDDY_BEGIN_DECLS

/* One output frame: the world at a frame time, read-only. Owned by the host; valid during the call. */
typedef struct eddy_frame {
    size_t size;               /* sizeof(eddy_frame) as compiled by the host */
    const eddy_world *world;   /* host copy current for every field (eddy_world_sync_host) */
    uint64_t index;            /* frame number: the frame on the output interval at index * interval,
                                * but for the last frame of a run that stopped between two (a signal,
                                * an end off the interval), which takes the next index at its own
                                * time: use `time`. A resume writes that index again at its regular
                                * time (write_frame: it replaces it). */
    double time;               /* simulated time, s */
    uint64_t step;             /* steps taken */
    size_t count;              /* owned particles */
    const uint32_t *order;     /* [count] storage indices of the owned particles, increasing id */
} eddy_frame;

/* --- Writers (interface EDDY_INTERFACE_WRITER) -------------------------------------------------- */

typedef struct eddy_writer eddy_writer;

/* What a writer's create() receives. Owned by the host; `params`, `host` and `dir` stay valid until
 * destroy(); the struct itself only during create(). */
typedef struct eddy_writer_setup {
    size_t size;                      /* sizeof(eddy_writer_setup) as compiled by the host */
    const char *dir;                  /* the run's output folder; exists and is writable */
    const eddy_param_values *params;  /* validated values of the component's table (never NULL) */
    const eddy_host *host;            /* services (host.h); never NULL */
    const eddy_world *world;          /* for the field table and dimensions; particles not mapped */
    /* Continuing an earlier run from its checkpoint (resume 1): resume_time is the time of the last
     * frame on the output interval at or before the checkpoint, which the earlier run wrote and the
     * resumed run does not write again (its first frame is the next one); -1 when there is none. Keep what the earlier run wrote for times <= resume_time
     * (a series file's entries; compare with a relative tolerance, 1e-9 as the built-in writers do) and
     * drop what lies after it: frames past the checkpoint (an older periodic one), and the last frame
     * of a run stopped between two. (Before ABI 2.3's documentation said so, this read "times < resume_time",
     * which drops the kept frame: every host since 2.0 passes the same value.) */
    int resume;
    double resume_time;
} eddy_writer_setup;

typedef struct eddy_writer_vtable {
    size_t size; /* sizeof(eddy_writer_vtable) as compiled by the provider */
    /* Creates a writer for the run's output folder, before its first frame. On success *out is set
     * (NULL for a writer without state) and is the writer's own until destroy(); a success that
     * leaves it unset is refused (EDDY_ERR_PLUGIN). */
    int (*create)(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err);
    /* Writes one frame. Files are written under a temporary name and renamed, so a run stopped at any
     * moment leaves no torn file. Writing an index already written replaces it. EDDY_ERR_IO names the
     * file. */
    int (*write_frame)(eddy_writer *writer, const eddy_frame *frame, eddy_error *err);
    /* NULL-safe; files already written stay. */
    void (*destroy)(eddy_writer *writer);
} eddy_writer_vtable;

/* --- Probes (interface EDDY_INTERFACE_PROBE) ---------------------------------------------------- */

typedef struct eddy_probe eddy_probe;

/* What a probe's create() receives. Owned by the host, like eddy_writer_setup. */
typedef struct eddy_probe_setup {
    size_t size;                      /* sizeof(eddy_probe_setup) as compiled by the host */
    const char *name;                 /* the probe's name, unique in the scene */
    const char *context;              /* where it was declared, for messages: "scene.json: probes[1]" */
    const eddy_param_values *params;  /* validated values of the component's table (never NULL) */
    const eddy_host *host;            /* services (host.h); never NULL */
    const eddy_world *world;          /* dimensions, smoothing radius, materials; not mapped */
} eddy_probe_setup;

typedef struct eddy_probe_vtable {
    size_t size; /* sizeof(eddy_probe_vtable) as compiled by the provider */
    /* Creates a probe for one entry of the scene's "probes" list, before its first frame. On success
     * *out is set (NULL for a probe without state) and is the probe's own until destroy(); a success
     * that leaves it unset is refused (EDDY_ERR_PLUGIN). */
    int (*create)(const eddy_probe_setup *setup, eddy_probe **out, eddy_error *err);
    /* Measures one value on a frame: from that frame alone, since nothing of a probe is checkpointed (a
     * resumed run creates it anew, so a time integral or running mean would start again from zero;
     * probes.csv holds the series to integrate). Under several processes the host calls it on rank 0
     * only, with every process's particles gathered into frame->world. NaN means "nothing to measure
     * here" (no liquid at the point); an error is for input the probe cannot use (a particle with an
     * unknown material): it ends the run, named with the probe and the frame. The value must not
     * depend on storage order: sum in frame->order. The host records and compares it as returned,
     * converting nothing: it is in the unit unit() names, world or simulation units as the probe
     * documents (the built-in probes: lengths in world units, divided by world->simulation_scale;
     * densities and pressures as stored, simulation units). */
    int (*measure)(eddy_probe *probe, const eddy_frame *frame, double *value, eddy_error *err);
    /* The unit of the value for column headers and plots ("m", "Pa", "kg/m^3"). Static or owned by
     * the probe; the host copies it (up to 31 bytes) right after create(). Optional: NULL (the
     * function, or its result) gives an empty unit. */
    const char *(*unit)(const eddy_probe *probe);
    /* NULL-safe. */
    void (*destroy)(eddy_probe *probe);
} eddy_probe_vtable;

EDDY_END_DECLS

#endif /* EDDY_OBSERVE_H */
