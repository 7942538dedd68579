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

/* With EDDY_FUZZ_VERBOSE set in the environment, the targets print what became of each input (the
 * error, or what was built) on stderr: for checking that a reproducer reaches the defect it names. */
void eddy_fuzz_report(const char *target, int rc, const eddy_error *err, const char *what);

/* The scratch folder (created by eddy_fuzz_init): /dev/shm when it exists, else TMPDIR or /tmp. */
const char *eddy_fuzz_scratch_dir(void);

/* The registry of the targets (built-in writers and probes plus the plugins discovered); NULL when
 * it could not be made (the targets then run without one). */
eddy_registry *eddy_fuzz_registry(void);

#endif /* EDDY_TESTS_FUZZ_H */
