/*
 * host/session/session.h — the session C API as the host's own drivers see it.
 *
 * The API itself, with its units, errors, ownership and threads, is the installed header
 * <eddy_host/session.h> (host/include/eddy_host/session.h), which programs outside eddy use through
 * libeddy_session. This header adds what only the host's drivers (run, resume, compare, bench, the
 * Python package) take: a session restored from a checkpoint already read, and the interpreted scene
 * and stepping session underneath.
 *
 * Signals: once open, a SIGINT/SIGTERM handler the program installed through observe/services.h (the
 * `eddy` command's main() does) sets the stop flag instead of ending the process; a session installs
 * no handler itself (the Python package installs its own around stepping calls).
 *
 * Processes: a session belongs to the process that opened it. A child made by fork() without exec has a
 * copy of it, but not the parent's output folder (its locks stay the parent's: drive/folder_lock.h), its
 * threads (the solver's, a writer thread) or its device context, and whatever it stepped or wrote would
 * land among the parent's files. So in such a child eddy_session_step, eddy_session_run and
 * eddy_session_checkpoint fail with eddy_session_check_process's error, naming both processes; a run
 * whose callback forks stops in the child at once with that error (after on_frame, or before the next
 * step) and goes on in the parent; and eddy_session_close there frees nothing (the solver's destroy
 * could join threads that are not there; the copy's memory goes with the child). Reading the copy (the
 * world, a snapshot, the hash) works on a host-resident state. A session opened in the child is the
 * child's; where sessions of the parent (or an ancestor) ran on more than one thread it runs on one,
 * said once in an "eddy: notice:" line (OpenMP cannot start threads again in a forked child: GNU
 * OpenMP's first parallel region there waited for ever for the parent's).
 */
#ifndef EDDY_HOST_SESSION_H
#define EDDY_HOST_SESSION_H

#include <cjson/cJSON.h>
#include <eddy/eddy.h>
#include <eddy_host/session.h>

#include "checkpoint.h"
#include "scene.h"
#include "sim.h"

/*
 * Opens the session a checkpoint was written from and puts the checkpoint's state into it: the
 * scene document embedded in `ck` with opt's overrides (the caller passes the solver, grid, output
 * folder and formats its run used, read from the checkpoint's settings; scene_path, scene_text and
 * sets are ignored), then eddy_checkpoint_open_sim (checkpoint.h). For a solver that saves all it
 * derives (EDDY_COMPONENT_STATE_COMPLETE, every in-tree CPU solver) nothing of the initial state is
 * built or computed: the world is made from the scene's materials, colliders and domain and the
 * checkpoint's particles, and the solver created on it. Other solvers get the 2.0 order (the scene's
 * initial world, create(), then every field restored). compute_fields() is never called. `next_frame`
 * is the index of the next output frame (the checkpoint's "next_frame" setting). `ck` is only read;
 * the caller frees it. Errors in the embedded scene are prefixed "checkpoint 'PATH': ".
 */
int eddy_session_restore(const eddy_checkpoint *ck, const eddy_session_options *opt, int next_frame,
                         eddy_session **out, eddy_error *err);

/* Where the session stands (borrowed; valid until close). */
const eddy_scene *eddy_session_scene(const eddy_session *s);
/* The stepping session underneath, for the host's drivers (run, compare, bench). */
eddy_sim *eddy_session_sim(eddy_session *s);
/* 1 for a session restored from a checkpoint written without outputs (eddy_session_checkpoint's
 * "outputs": false: no frames or tables of the run to continue), whether one file or a split run's
 * pieces; else 0. */
int eddy_session_restored_without_outputs(const eddy_session *s);
/* A driver that writes the session's frames and tables (the Python package's write=True) names their
 * folder: a checkpoint eddy_session_checkpoint writes there with NULL settings then records the outputs
 * as the run's (`eddy resume` continues them) instead of "outputs": false (it starts them afresh and
 * refuses a folder that holds tables). NULL: none. EDDY_ERR_OUT_OF_MEMORY, else EDDY_OK. */
int eddy_session_set_outputs_dir(eddy_session *s, const char *dir);
/* How many sessions this process has open (opened and not yet closed; [any thread]). */
long eddy_session_open_count(void);

#endif /* EDDY_HOST_SESSION_H */
