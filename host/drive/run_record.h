/*
 * host/drive/run_record.h — DIR/run.json: what made the run in an output folder, for whoever cites,
 * reviews or repeats it. diagnostics.csv and the frames hold results only; the scene file may be
 * edited after the run, the --set values and the solver's defaults are nowhere else in readable form,
 * and a state hash depends on the vector path and the eddy version.
 *
 *   {"format": "eddy.run/1",
 *    "scene": {...},            the scene document as the run read it, overrides applied
 *    "commands": [{...}, ...]}  `eddy run`, then each `eddy resume` of the folder, in order
 *
 * Each command: "command" ("run" / "resume"), "argv" (as given), "started" (UTC, ISO 8601), "host",
 * "from" (time s and step it began at), "eddy" (version, plugin ABI, SIMD path of the SPH neighbour
 * loops), "threads", "processes", "particles" (over every process), "solver" and "grid" (id, version,
 * file, every parameter's value as the component received it, null for one it derives itself),
 * "materials" (name, rest density, particle mass, the lattice spacing, the solver's material
 * parameters), "ended" (run, resume and compare: how the command ended, eddy_run_record_end; null
 * while it runs, and for good when it was killed), "log" (what the components said as they were made, whatever --quiet hid: a solver's
 * derived values, such as tait's sound speed). Units are the scene's simulation units (scene.h), as in
 * diagnostics.csv.
 *
 * `eddy run` (and a Simulation's first write) writes the file anew (a run into a finished run's folder
 * replaces its frames too); `eddy resume` (and a resumed Simulation) appends its command, keeping what is
 * there. A run.json that is not eddy's record, or cannot be read (not a file, unreadable, over 64 MiB), is
 * left as it is, with a warning, and nothing is appended; one that cannot be written is warned of and the
 * run goes on (its results do not depend on it). Written by rank 0 through a temporary file
 * and a rename, so an interrupted write leaves the previous record.
 */
#ifndef EDDY_HOST_RUN_RECORD_H
#define EDDY_HOST_RUN_RECORD_H

#include <cjson/cJSON.h>
#include <eddy/eddy.h>

#include "sim.h"

#define EDDY_RUN_RECORD_FILE "run.json"

typedef struct eddy_run_record_command {
    const char *command;         /* "run" or "resume" (`eddy`), "python run" or "python resume" (a
                                  * Simulation opened or resumed, at its first write) */
    int append;                  /* 1: a resume, added to the folder's record; 0: the record anew */
    int argc;                    /* the command line (argc 0: not known, "argv" is left out) */
    const char *const *argv;
    const char *log;             /* what the components said while the session opened ("component:
                                  * message" lines, eddy_services_capture_end), NULL for none: "log" */
    int log_kept;                /* 0: nothing was kept (no "log" member, rather than an empty one) */
} eddy_run_record_command;

/* Writes (cmd->append 0) or appends to (1) DIR/run.json for `sim` as it stands now. Collective under
 * several processes (the particle count is summed; the write's error is every process's). [main thread] */
int eddy_run_record_write(const char *dir, const eddy_sim *sim, const eddy_run_record_command *cmd, eddy_error *err);

/* Whether DIR/run.json is eddy's run record (format "eddy.run/1" with its commands), the one a resume
 * appends to: a new run's folder check tells an eddy run's folder from a user's by it (run_folder.h).
 * Says nothing. [any thread] */
int eddy_run_record_is_eddys(const char *dir);

/*
 * A resume's check, before it writes anything, that the checkpoint (`checkpoint`: its path, for the
 * message; `settings`: eddy_checkpoint_settings) is the one of the run DIR/run.json records: the solver
 * and grid of the record's last command, and its scene document, as the checkpoint embeds them (but for
 * what a resume itself sets there: solver, grid, output.dir and output.format), and its run_id when both
 * carry one (another run of the same scene, solver and grid). A checkpoint copied in
 * from another run's folder was continued among this run's files (frames.pvd listing both runs' frames,
 * probes.csv another header over the old rows, run.json still another scene). EDDY_ERR_INVALID_ARGUMENT
 * naming both files, the first key that differs and the way on; nothing is refused when DIR holds no
 * record or one that is not eddy's (a folder of an eddy before run.json). Collective (rank 0 reads the
 * record; every process returns its outcome). [main thread]
 */
int eddy_run_record_check_checkpoint(const char *dir, const char *checkpoint, const cJSON *settings, eddy_error *err);

/*
 * How the last command ended, into its "ended" member (null from its start; run, resume, compare and
 * the Python package's writing runs):
 * {"outcome": "finished" | "interrupted" | "failed", "at" (UTC), "time", "step", "error" (failed: the
 * kind, "unstable", "domain", "io", "plugin", ...), "message" (the error or the interrupt's, not for
 * "finished")}. A command killed on its way (SIGKILL, out of memory, a node
 * lost) leaves it null. Rank 0 writes; the others return at once (not collective). A record that cannot
 * be read or written is warned of; the run's outcome does not change. [main thread]
 */
void eddy_run_record_end(const char *dir, const eddy_sim *sim, int rc, const char *message);

/* The last command's "ended" back to null: a Python Simulation's writing run() goes on in a folder whose
 * earlier run() ended (eddy_run_record_end writes only over null). Rank 0; warns of a failed write. */
void eddy_run_record_reopen(const char *dir);

/* Whether DIR/run.json is eddy's record whose last command (`eddy run` or `eddy resume`, a Python
 * Simulation's writing run) did not finish:
 * it never recorded its end (killed on its way), was interrupted, or failed other than in its physics
 * (an "unstable" or "domain" error: the frames of an exploded run are what the next run replaces). `what`
 * gets "`eddy run` started <UTC> on <host> <how it ended>". Says nothing. [any thread] */
int eddy_run_record_unfinished(const char *dir, char *what, size_t n);

#endif /* EDDY_HOST_RUN_RECORD_H */
