/*
 * host/session/checkpoint.h — checkpoints: everything a run needs to continue bit-identically.
 *
 * A checkpoint is one file, DIR/checkpoint.eddy, holding
 *   - the run's settings (a JSON object: the scene document as the run used it, i.e. after --set, the
 *     solver and grid ids and the solver's version, the output formats, the run's end, the index of
 *     the next output frame and the checkpoint interval),
 *   - the world's clock (time, step) and the prescribed-motion state of every collider,
 *   - every particle field (built-in and registered, by name), the 64-bit ids and the materials,
 *   - the solver's own state (the solver vtable's save/load; absent when the solver keeps none).
 * Layout (native little-endian): the magic "EDDYCKPT", the format version (u32), a byte-order mark
 * (u32 0x01020304), the payload length (u64), the payload, and a 64-bit FNV-1a checksum of everything
 * before it. It is written to "checkpoint.eddy.tmp", flushed to disk and renamed, so a crash at any
 * moment leaves the previous checkpoint or the new one, never a torn file; a write that fails (a full
 * disk) removes the temporary file and says whether the previous checkpoint is kept.
 *
 * Format versions: 3 (ABI 2.1) has the layout of 2 and promises that a solver with
 * EDDY_COMPONENT_STATE_COMPLETE saved everything its create() derived from the particles, so a resume
 * creates it on the stored particles (plugin.h); 2 (ABI 2.0) stores the size of a real and 64-bit
 * particle ids, and is resumed in the 2.0 order (the scene's initial world first); 1 (ABI 1.x) stored
 * 32-bit ids and is still read (its ids are widened). The per-material parameters are not stored:
 * they come from the embedded scene when the world is rebuilt.
 *
 * Reading refuses, with a message naming the file: a missing file, one that is not a regular file
 * (opened without blocking, so a FIFO cannot hang the reader), an empty file, a wrong magic ("not an
 * eddy checkpoint"), another format version, another byte order, a truncated file, a checksum mismatch,
 * and sections that do not fit; restoring refuses fields or colliders that do not match the solver
 * and the world the scene builds, and ("checkpoint 'F' is invalid: ...") values that no run writes, since a
 * checksum only proves that nothing changed after writing: a time that is not finite and >= 0, a step
 * count above LLONG_MAX, a field stored twice, duplicate ids, a built-in field value that is not
 * finite (z and its velocity not 0 in 2D, a mass not > 0), a collider member that is not finite, a
 * plane normal that is not a unit vector, a box with max <= min, a sphere radius <= 0, and a missing
 * solver state when the solver saves state. The run's settings (end, interval, next frame, render
 * request) are checked by `eddy resume` (drive/resume.c) with the ranges of the options they came from.
 *
 * Threads: one caller at a time per checkpoint.
 */
#ifndef EDDY_HOST_CHECKPOINT_H
#define EDDY_HOST_CHECKPOINT_H

#include <cjson/cJSON.h>
#include <eddy/eddy.h>

#include "sim.h"

#define EDDY_CHECKPOINT_FILE "checkpoint.eddy"
#define EDDY_CHECKPOINT_FORMAT 3u     /* written */
#define EDDY_CHECKPOINT_FORMAT_STATE_COMPLETE 3u /* and later: a STATE_COMPLETE solver saved all it derived */
#define EDDY_CHECKPOINT_FORMAT_V1 1u  /* still read: 32-bit particle ids */

/* A checkpoint read into memory. Opaque. */
typedef struct eddy_checkpoint eddy_checkpoint;

/*
 * Writes DIR/checkpoint.eddy for the state of `sim` (temp + fsync + rename). The particles are read
 * after eddy_world_sync_host (device-resident fields are downloaded first). `settings` is the run's
 * settings object (see above; serialized as it is, not owned); the scene document is taken from
 * sim->scene.root and stored under the key "scene". EDDY_ERR_IO names the file and the reason; the
 * solver's save() errors are passed on, prefixed with the solver id.
 */
/* The file's checksum: 64-bit FNV-1a of the `n` bytes before it (magic through payload). Tools and tests
 * that edit a checkpoint on purpose recompute it with this. */
uint64_t eddy_checkpoint_checksum(const void *data, size_t n);

int eddy_checkpoint_write(const char *dir, const eddy_sim *sim, const cJSON *settings, eddy_error *err);

/* Reads and verifies DIR/checkpoint.eddy (see the refusals above). *out is owned by the caller. */
int eddy_checkpoint_read(const char *dir, eddy_checkpoint **out, eddy_error *err);

/*
 * The pieces of a run on several processes (docs/mpi.md), one per process, DIR/checkpoint.pK.eddy in
 * this format (the owned particles of process K and its solver's state; the settings add "processes",
 * "piece" and "cuts"), listed by DIR/checkpoint.manifest (JSON, written by rank 0 once every piece is on
 * disk).
 *
 * eddy_checkpoint_write_piece writes the piece DIR/NAME into DIR/NAME<EDDY_CHECKPOINT_PIECE_STAGED>,
 * flushed to the disk, and leaves it there: the caller renames it over DIR/NAME once every process has
 * written its own, so that a piece that failed on one process leaves every previous piece in place. Its
 * errors name DIR/NAME, the checkpoint the user resumes from, and say when the previous one is kept.
 */
#define EDDY_CHECKPOINT_MANIFEST "checkpoint.manifest"
#define EDDY_CHECKPOINT_PIECE_STAGED ".next"

/*
 * Several processes (collective): each writes DIR/checkpoint.pK.eddy of its owned particles and solver
 * state, then rank 0 the manifest naming them, only when every piece was written; a failure on any
 * process is every process's error (eddy_decomp_agree_outcome), said once. A piece is written to
 * DIR/checkpoint.pK.eddy.next and replaces the previous one only once every process has written its own
 * and the manifest is on disk: a piece that failed on one process (a full disk) left the others' new
 * pieces beside its old one under the old manifest, so that neither checkpoint could be resumed, where
 * now the previous checkpoint is kept whole. Then checkpoint.eddy and the pieces of more processes are
 * removed. `settings` (the run's, as eddy_checkpoint_write takes them) gains each piece's "processes",
 * "piece", "cuts", "time" and "step".
 */
int eddy_checkpoint_write_split(const eddy_sim *sim, const char *dir, cJSON *settings, eddy_error *err);

/* Whether NAME is a piece's, "checkpoint.p" and digits, followed by exactly TAIL (".eddy", or ".eddy"
 * EDDY_CHECKPOINT_PIECE_STAGED for a staged one). */
int eddy_checkpoint_piece_name_ending(const char *name, const char *tail);
/* Removes DIR/checkpoint.pK.eddy for every K >= keep: the pieces a newer checkpoint no longer names
 * (a resume on fewer processes, or on one, which writes checkpoint.eddy). */
void eddy_checkpoint_remove_stale_pieces(const char *dir, int keep);
int eddy_checkpoint_write_piece(const char *dir, const char *name, const eddy_sim *sim, const cJSON *settings,
                                eddy_error *err);
int eddy_checkpoint_read_named(const char *dir, const char *name, eddy_checkpoint **out, eddy_error *err);

/*
 * The checkpoint a resume on this process count starts from (docs/mpi.md): without a manifest, the
 * single-process DIR/checkpoint.eddy (on several processes split afresh); with one written on as many
 * processes, this process's piece and the run's cuts (decomp.h), so every process owns what it owned
 * and its solver state fits; on another count, this process's share of the pieces merged into one
 * (one process: every piece; refused when the solver keeps a state per process). A piece that does not
 * match the manifest is refused by name. Collective under a launcher. *out is owned by the caller.
 */
int eddy_checkpoint_read_for_resume(const char *dir, eddy_checkpoint **out, eddy_error *err);
/*
 * The n pieces of one checkpoint as one (their particles in piece order; `path` names it in messages),
 * for a resume on another process count. Refuses pieces whose fields differ, and solver state records
 * that differ between pieces (a state per process, e.g. the largest acceleration of its own particles:
 * the host cannot merge an opaque record), naming the solver and two pieces.
 */
int eddy_checkpoint_merge(eddy_checkpoint *const *pieces, int n, const char *path, eddy_checkpoint **out,
                          eddy_error *err);
/*
 * Resuming on another process count with every process reading only its share of the n pieces (piece k
 * on process k mod size, docs/mpi.md): eddy_checkpoint_merge of this process's pieces or, with
 * `particles` 0 (a process without a piece, where there are fewer pieces than processes; `pieces` then
 * holds one piece read for its header), their header, settings, clock, colliders, field names and solver
 * state without a particle. Collective, after every process read its pieces: refuses on every process
 * what eddy_checkpoint_merge refuses between pieces, fields or solver records that differ, between the
 * processes' shares too, naming DIR/checkpoint.p0.eddy and the first piece of the lowest process that
 * differs (`total`: the checkpoint's piece count).
 */
int eddy_checkpoint_merge_share(eddy_checkpoint *const *pieces, int n, int particles, const char *dir, int total,
                                const char *path, eddy_checkpoint **out, eddy_error *err);

/*
 * The clock and the settings of the checkpoint file at `path`, read from its head alone (no checksum:
 * for a decision about the file, such as whether its run reached its end, not for restoring it).
 * *settings is the caller's (cJSON_Delete), NULL on failure; an unreadable or foreign file is
 * EDDY_ERR_PARSE or EDDY_ERR_IO, naming it.
 */
int eddy_checkpoint_peek(const char *path, double *time, uint64_t *step, cJSON **settings, eddy_error *err);

/* The path read, and the settings object (with its "scene" member); owned by the checkpoint. */
const char *eddy_checkpoint_path(const eddy_checkpoint *ck);
const cJSON *eddy_checkpoint_settings(const eddy_checkpoint *ck);

/*
 * Opens `sim` for the scene embedded in `ck` (parsed by the caller, with its overrides; taken, also on
 * failure) and puts the checkpoint's state into it, in the order plugin.h prescribes:
 *   - a solver with EDDY_COMPONENT_STATE_COMPLETE and a file of format 3 or later: the world gets the
 *     scene's materials, colliders and domain, and the stored clock, colliders and particles instead
 *     of the fluid blocks; create() runs on it with setup->resuming = 1; then the solver's registered
 *     fields are restored and load() gets its state. No initial state is built or computed.
 *   - otherwise: eddy_sim_open's world and create() for the scene, then the clock, the colliders and
 *     every particle field as saved (the count may be smaller than the scene's, when particles left
 *     the domain and were removed), then load().
 * Fields are written through eddy_world_map_field(EDDY_MAP_WRITE) / unmap, so edit generations move;
 * ids through eddy_particles_set_ids. compute_fields() is never called: it would overwrite the
 * restored state. Every refusal above names the file.
 */
int eddy_checkpoint_open_sim(const eddy_checkpoint *ck, eddy_scene *scene, const eddy_sim_options *opt,
                             eddy_sim *sim, eddy_error *err);

/* NULL-safe. */
void eddy_checkpoint_free(eddy_checkpoint *ck);

#endif /* EDDY_HOST_CHECKPOINT_H */
