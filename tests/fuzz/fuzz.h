/*
 * tests/fuzz/fuzz.h — the fuzz targets of eddy, callable from libFuzzer (entry.c, -DEDDY_FUZZ=ON) and
 * from the replay driver of every build (replay.c, CTest fuzz_replay_*). See docs/fuzzing.md.
 *
 * Each target takes arbitrary bytes, never crashes, leaks or hangs on them, and returns 0 (libFuzzer
 * reserves other values). Errors of the code under test are the expected outcome for most inputs and
 * are not reported.
 */
#ifndef EDDY_TESTS_FUZZ_H
#define EDDY_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include <eddy/eddy.h>

/*
 * Scenes above this many particles are parsed and counted but not built: filling a lattice of 10^8
 * particles is a legitimate (slow, large) request, not a defect, and would only report out-of-memory
 * or timeouts. The count itself must be cheap for every input (issue 20: counted, not walked).
 */
#define EDDY_FUZZ_MAX_PARTICLES ((size_t)1 << 17)
/* A resumed checkpoint also creates the solver and computes its fields (a neighbor search): smaller. */
#define EDDY_FUZZ_MAX_RESUME_PARTICLES ((size_t)1 << 14)

/* One-time setup shared by the targets (the registry with the plugins of the build tree, quiet
 * services, one thread, the scratch folder). Idempotent; every target calls it. */
void eddy_fuzz_init(void);

/*
 * scene: optional leading lines "--set KEY=VALUE" (each the argument of one --set), then the scene
 * document. Parses it (host/scene/scene.h) and, when its particle count is at most EDDY_FUZZ_MAX_PARTICLES,
 * validates the solver's and grid's sections and builds the world the way `eddy run` does, without
 * creating the solver or stepping.
 */
int eddy_fuzz_scene(const uint8_t *data, size_t size);

/*
 * checkpoint: a checkpoint.eddy file. Its payload length and checksum are corrected (so a mutation
 * reaches the parser and the semantic checks instead of the checksum refusal), it is written to a
 * scratch folder and resumed with `eddy resume DIR --steps 0` semantics: read, settings checked, the
 * embedded scene parsed, the world built, the solver created, the state restored, then refused as
 * "already at its end" without a step.
 */
int eddy_fuzz_checkpoint(const uint8_t *data, size_t size);

/*
 * manifest: a checkpoint written as pieces by a run on several processes (docs/mpi.md), as one file:
 * the manifest's text (DIR/checkpoint.manifest), then the pieces checkpoint.p0.eddy, p1, ... each
 * starting at its magic "EDDYCKPT" (`cat checkpoint.manifest checkpoint.p0.eddy checkpoint.p1.eddy`
 * of a real run is a valid input; at most EDDY_FUZZ_MAX_PIECES pieces, the rest stays in the last).
 * Every piece has its length and checksum corrected as in the checkpoint target. Then:
 *  - `eddy resume DIR --steps 0` on this one process (host/session/checkpoint_resume.c, read_local:
 *    the manifest's process count and cuts, piece 0's head, every piece against the manifest and
 *    piece 0, eddy_checkpoint_merge; the merged checkpoint restored as in the checkpoint target);
 *  - the same reading as a process of a launch on several: checkpoint_resume.c compiled into the
 *    target with eddy_decomp_size / eddy_decomp_rank replaced, read_local as rank 0 and the last rank
 *    of as many processes as the manifest names (its cuts parsed and armed, eddy_decomp_resume_cuts,
 *    this process's piece), as a process without a piece of one process more, and as rank 0 of 2 when
 *    the manifest names 3 or more (a process holding several pieces), each share merged
 *    (eddy_checkpoint_merge_share). No MPI call is made: the real process count stays 1.
 */
#define EDDY_FUZZ_MAX_PIECES 8
int eddy_fuzz_manifest(const uint8_t *data, size_t size);

/*
 * params: a parameter table (core/include/eddy/params.h) decoded from the bytes, checked with
 * eddy_param_table_check; when it passes, typed values decoded from the bytes are checked with
 * eddy_param_check, and the rest of the input, as a JSON object, is validated against the table the
 * way a scene's solver section is (eddy_scene_param_values).
 */
int eddy_fuzz_params(const uint8_t *data, size_t size);

/*
 * plugin_file: a plugin file. Written to the scratch folder and read by the loader's check before
 * dlopen (core/src/plugin_file.c: program headers, the segments' extent, the needed libraries), never
 * opened with dlopen (a mutated ELF file would run whatever it holds).
 */
int eddy_fuzz_plugin_file(const uint8_t *data, size_t size);

/*
 * validate_case: a validation case of `eddy validate` (host/drive/validate_case.c), its JSON followed
 * by the files it names, each starting at a line "--- data/NAME" or "--- scenes/NAME" (at most
 * EDDY_FUZZ_MAX_VALIDATE_FILES; what follows one more separator is not written). The files are written to those paths of
 * the scratch folder and the case to cases/NAME.json beside them (NAME its "name" when that is a plain
 * file name), so its "../data/X.csv" references and "../scenes/X.json" scene are the input's. Then
 * vcase_load (its keys, resolutions, initial state, checks, and the reference tables through
 * read_reference), and for a case it accepts the scene loaded with each resolution's overrides and its
 * probes parsed, as `eddy validate` does before it opens a session. No world is built.
 */
#define EDDY_FUZZ_MAX_VALIDATE_FILES 4
int eddy_fuzz_validate_case(const uint8_t *data, size_t size);

/* What the checkpoint and manifest targets share (fuzz_checkpoint.c). */
typedef struct eddy_fuzz_checkpoint_view {
    size_t particles;   /* of the embedded scene; 0 when it cannot be read (the resume refuses it) */
    int cast_end_steps; /* end_steps is a number no long long holds, and the clock is at end_time */
} eddy_fuzz_checkpoint_view;
/* What the target reads from a checkpoint's settings itself before resuming it. */
eddy_fuzz_checkpoint_view eddy_fuzz_checkpoint_look(const unsigned char *p, size_t size);
/* Sets the payload length and the checksum of the checkpoint file p[0, size) to match its size. */
void eddy_fuzz_checkpoint_fix(unsigned char *p, size_t size);
/* Writes DIR/NAME (aborts when it cannot: the scratch folder must be writable). */
void eddy_fuzz_write_file(const char *dir, const char *name, const void *p, size_t size);
/* `eddy resume DIR --steps 0` on one thread, reported as `target`; when the embedded scene has more
 * than EDDY_FUZZ_MAX_RESUME_PARTICLES, only read (`pieces`: as a resume reads a manifest's pieces). */
void eddy_fuzz_resume(const char *target, const char *dir, eddy_fuzz_checkpoint_view view, int pieces);

/* With EDDY_FUZZ_VERBOSE set in the environment, the targets print what became of each input (the
 * error, or what was built) on stderr: for checking that a reproducer reaches the defect it names. */
void eddy_fuzz_report(const char *target, int rc, const eddy_error *err, const char *what);

/* The scratch folder (created by eddy_fuzz_init): /dev/shm when it exists, else TMPDIR or /tmp. */
const char *eddy_fuzz_scratch_dir(void);

/* The registry of the targets (built-in writers and probes plus the plugins discovered); NULL when
 * it could not be made (the targets then run without one). */
eddy_registry *eddy_fuzz_registry(void);

#endif /* EDDY_TESTS_FUZZ_H */
