/*
 * host/drive/run_folder.h — the rules of `eddy run` and `eddy resume` for an output folder that already
 * holds a run (run_folder.c), for every program that writes a run's files there: the commands (run.c,
 * resume.c, through run_internal.h) and the Python package's writing simulations (python/src/_eddy.c).
 * The package once wrote by rules of its own: a resumed simulation started diagnostics.csv and
 * frames.pvd afresh, dropping the run's earlier rows and frames, and a new one wrote into a folder
 * holding a stopped run, whose checkpoint a later `eddy resume` then continued among its files.
 *
 * A new run: the caller holds the folder (folder_lock.h); eddy_run_folder_check refuses a folder holding
 * a run stopped before its end, else the caller creates its output (eddy_output_create, which a writer
 * may refuse with nothing lost), then eddy_run_folder_clear removes a finished run found there, and
 * eddy_run_open_probe_table opens probes.csv. A resumed run opens its output to continue the run's files
 * from eddy_run_resume_time, unless its checkpoint was written without outputs (eddy_session_checkpoint's
 * "outputs": false), whose resume starts them afresh in a folder eddy_run_folder_refuse_other_outputs
 * finds without another run's tables.
 *
 * Several processes: check, clear and refuse_other_outputs are collective (every process returns the
 * same outcome, an error said once).
 */
#ifndef EDDY_HOST_RUN_FOLDER_H
#define EDDY_HOST_RUN_FOLDER_H

#include <stdio.h>

#include <eddy/eddy.h>

#include "output.h"
#include "probes.h"

/* Refuses DIR when it holds a run stopped before its end (its checkpoint is work `eddy resume` continues),
 * with a message that offers `another` ("choose another --out") besides resuming it; *holds_run: 1 when
 * DIR holds a finished run, which the new run replaces (eddy_run_folder_clear). */
int eddy_run_folder_check(const char *dir, const char *another, int *holds_run, eddy_error *err);

/* Refuses DIR when it shows no eddy run (eddy_run_folder_check's holds_run is 0) yet holds files of the
 * names an eddy run writes there — a run.json that is not an eddy run record, picture.png, probes.csv,
 * movie.mp4, files named as frames in frames/ or render/ — which this run would overwrite, or the next
 * run into the folder (which finds this one's and clears a run's names) would delete: a folder of the
 * user's own, the files named in the message with `another`. Collective. */
int eddy_run_folder_refuse_foreign(const char *dir, const char *another, eddy_error *err);

/* Removes the finished run eddy_run_folder_check found in DIR: its frames, frame list, probe table,
 * rendered frames, movie, picture and checkpoint, and the temporaries of its writes killed half-way. */
int eddy_run_folder_clear(const char *dir, eddy_error *err);

/* A resume of a checkpoint written without outputs: refused, naming the file, when DIR holds another
 * run's diagnostics.csv, frames.pvd or probes.csv, which starting the outputs afresh would overwrite. */
int eddy_run_folder_refuse_other_outputs(const char *dir, eddy_error *err);

/* The time up to which a run resumed with `next_frame` (its checkpoint's) keeps the frames and rows
 * already written (eddy_output_options.resume_time): its last regular frame's; -1 before frame 1. */
double eddy_run_resume_time(int next_frame, double output_interval);

/* A resume's check of the tables it continues, before anything is written: diagnostics.csv, and
 * probes.csv when `p` has probes, must have the header this run writes (or an older eddy's leading part
 * of it, with rows to match) and rows whose times never go backwards (eddy_output_check_tables).
 * The trim of eddy_output_create and eddy_output_open_table refuses the same, but only once the frames
 * and diagnostics.csv are cut back to the resume point. Collective (rank 0 reads; every process returns
 * its outcome). */
int eddy_run_folder_check_tables(const char *dir, const eddy_probes *p, eddy_error *err);

/* DIR/probes.csv of the output `o` for the probes `p` (eddy_output_open_table: a resumed output keeps its
 * rows up to the resume time); nothing, *f NULL, when there are no probes. */
int eddy_run_open_probe_table(eddy_output *o, const eddy_probes *p, FILE **f, eddy_error *err);

#endif /* EDDY_HOST_RUN_FOLDER_H */
