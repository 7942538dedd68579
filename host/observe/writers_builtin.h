/*
 * host/observe/writers_builtin.h — the host's built-in frame writers, components of interface
 * EDDY_INTERFACE_WRITER (observe.h) registered like a plugin's (services.c):
 *
 *   "vtk"  DIR/frames/frame_NNNNN.vtp, VTK XML PolyData (format="binary": inline base64, UInt32
 *          headers, little endian): Points, one vertex cell per particle (Verts, so ParaView draws
 *          points), and PointData id, material, velocity, density, pressure and every registered
 *          field; and DIR/frames.pvd, the ParaView series of every frame written so far with its time,
 *          rewritten after each frame (and at create, so that it describes this run from the start).
 *          The id array is UInt32 while every id of the frame fits in 32 bits (the files of ABI 1.x,
 *          byte for byte), UInt64 otherwise.
 *   "csv"  DIR/frames/frame_NNNNN.csv: the header id,x,y,z,vx,vy,vz,density,pressure,material and the
 *          registered fields in registration order (a scalar as its name, a 3-component field as
 *          name_x,name_y,name_z, any other k components as name_0..name_{k-1}), then one row per
 *          particle in the frame's order (increasing id), reals as %.9g (a float exactly), ids in decimal.
 *
 * Units: positions and velocities in world units (divided by world->simulation_scale); density,
 * pressure and registered fields as stored (simulation units), since only the solver knows what a
 * registered field measures. NNNNN is the frame index, zero-padded to 5 digits.
 *
 * Both write "<file>.tmp" and rename it, so a run stopped at any moment leaves no torn file. Neither
 * has parameters.
 */
#ifndef EDDY_HOST_WRITERS_BUILTIN_H
#define EDDY_HOST_WRITERS_BUILTIN_H

#include <eddy/eddy.h>

#include "snapshot.h"

/* The built-in writer components ("vtk", "csv"), static; *count receives their number. */
const eddy_component *const *eddy_builtin_writers(size_t *count);

/* The serializers of the two writers, for one file without a writer (eddy_output_write_vtp and
 * eddy_output_write_csv, output.h, and tests): lengths divided by `scale` (finite, > 0, else
 * EDDY_ERR_INVALID_ARGUMENT naming the file). */
int eddy_vtp_write_file(const char *path, const eddy_frame *frame, float scale, eddy_error *err);
int eddy_csv_write_file(const char *path, const eddy_frame *frame, float scale, eddy_error *err);

/*
 * Several processes (docs/mpi.md): with pieces > 1 a "vtk" writer created afterwards writes, for each
 * frame it is handed (the gathered frame, on one process only), DIR/frames/frame_NNNNN.pvtp, VTK's
 * parallel PolyData naming the pieces frame_NNNNN_p0.vtp .. _p{pieces-1}.vtp, and lists the .pvtp
 * files in frames.pvd; each process writes its piece with eddy_vtp_write_piece (a .vtp whose id array
 * is always UInt64, so that every piece matches the type the .pvtp declares). 1: one process.
 */
void eddy_builtin_writers_set_pieces(int pieces);
int eddy_vtp_write_piece(const char *path, const eddy_frame *frame, float scale, eddy_error *err);
/* The same piece from a copied snapshot (overlapped pieces, output.h), at its simulation scale. */
int eddy_vtp_write_piece_snapshot(const char *path, const eddy_snapshot *s, eddy_error *err);

/*
 * Overlapped output (output.h): an instance of a built-in writer (created through its component's
 * vtable) writes one frame from a snapshot instead of an eddy_frame, the files of write_frame byte for
 * byte. It touches only the snapshot and its own state (the series of frames.pvd), so a writer thread
 * may call it while the main thread steps the world, provided that no other call reaches the same
 * instance meanwhile. reads_particles: 0 where the writer writes no particle (the .pvtp of a frame
 * written as pieces), whose snapshot then needs the field table only.
 */
int eddy_builtin_writer_write(eddy_writer *w, const eddy_snapshot *s, eddy_error *err);
int eddy_builtin_writer_reads_particles(const eddy_writer *w);
/*
 * A resumed run (setup->resume) on a folder whose files were damaged or removed by hand, called once the
 * writer is created; frame k is at k * `interval` (the scene's output_interval; <= 0: nothing checked).
 * "vtk": the series of frames.pvd is checked against the frame files before the resume point, each
 * .pvtp with the pieces it names: an entry whose files are not all on disk is left out, and a frame
 * whose files are whole on disk but that frames.pvd lacks (missing, cut short) is put back with the
 * clock its file carries (FieldData "TimeValue"; k * interval in a file without it); frames.pvd is
 * rewritten when that changed anything. "csv": the frame files before the resume point are looked for.
 * What was found is said in one warning (eddy_output_warn) naming the file, the count and the first
 * frame concerned; nothing is made up. EDDY_ERR_OUT_OF_MEMORY, or frames.pvd's write error.
 */
int eddy_builtin_writer_check_resumed(eddy_writer *w, double interval, eddy_error *err);
/* Whether a registry entry's vtable is that of a built-in writer (its instances are this file's). */
int eddy_builtin_writer_is(const eddy_writer_vtable *v);

#endif /* EDDY_HOST_WRITERS_BUILTIN_H */
