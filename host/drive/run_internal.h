/*
 * host/drive/run_internal.h — what `eddy run` (run.c) and `eddy resume` (resume.c) share: the state of
 * one run and the steps both take (open the output, renderer and probes; step to the end; finish with
 * the final frame, checkpoint and picture).
 */
#ifndef EDDY_RUN_INTERNAL_H
#define EDDY_RUN_INTERNAL_H

#include "run.h"

#include <stdio.h>

#include "energy_watch.h"
#include "folder_lock.h"
#include "output.h"
#include "probes.h"
#include "progress.h"
#include "render.h"
#include "run_folder.h"
#include "session.h"

/* One run or resumed run: the session, its output and where it stands. */
typedef struct run_ctx {
    const eddy_run_options *opt;
    eddy_session *ses;        /* owned */
    eddy_sim *sim;            /* the session's (eddy_session_sim) */
    const char *formats[EDDY_SCENE_FORMAT_MAX]; /* resume: the run's writers (into the checkpoint) */
    size_t format_count;
    eddy_output *out;
    char scene_file[EDDY_SCENE_PATH_MAX]; /* absolute when it could be resolved: resume may run elsewhere */
    int frame;                /* index of the next regular output frame (at frame * output_interval) */
    long long written_step;   /* the step of the last frame whose outputs were written; -1: none yet */
    int has_checkpoint;       /* a checkpoint of this run is in the folder (written, or resumed from) */
    int fresh_outputs;        /* resume: the checkpoint's run wrote no outputs to continue (session API) */
    double checkpoint_time;   /* ... at this time, s */
    int checkpoint_failed;    /* the last checkpoint write failed (its message says the previous is kept) */
    char *open_log;           /* what the components said while the session opened (run.json), owned */
    double start_particles;   /* owned particles over every process when this command began stepping */
    eddy_energy_watch energy; /* E_k + E_p against its first frame (energy_watch.h) */
    int energy_said;          /* the rise was said while the run went on */
    long long end_steps;      /* >= 0: the run ends at this step count; -1: at end_time */
    double end_time;
    double checkpoint_every;  /* s of simulated time, 0: only at the end */
    double next_checkpoint;
    double wall_start;
    eddy_renderer *ren;       /* NULL unless rendering */
    eddy_render_request render; /* as opened; its strings point into the buffers below */
    char render_field[64], render_camera[512], render_range[128];
    eddy_probes *probes;      /* the scene's probes; DIR/probes.csv when there are any */
    FILE *probes_csv;         /* owned by out */
    double *probe_values;
    int outputs_gather;       /* several processes: 0 undecided, 1 outputs gather every particle, 2 reduced */
    eddy_progress bar;        /* progress of this invocation: from where it started */
    eddy_dt_tally dt_tally;   /* the steps the solver's limit shortened in this invocation */
    long long first_step;
    double first_time;
    char checkpoint_path[EDDY_SCENE_PATH_MAX + 32]; /* resume: the checkpoint read, for messages */
    eddy_folder_lock *lock;   /* the output folder's (rank 0; folder_lock.h), released by run_close_ctx */
} run_ctx;

/* Resume of a checkpoint written without outputs (c->fresh_outputs): eddy_run_folder_refuse_other_outputs
 * of the run's folder (run_folder.h). */
int run_refuse_other_outputs(run_ctx *c, eddy_error *err);


/* "eddy: running NAME with ..." (rank 0, not --quiet), and c->start_particles (collective). */
void run_announce(run_ctx *c, const char *verb);
/* The first checkpoint time after t on the grid next + k * every (the sum as run.c takes it). */
double run_checkpoint_after(double next, double every, double t);
void run_close_ctx(run_ctx *c);
int run_finish(run_ctx *c, int rc, int last_written, eddy_error *err);
int run_keep_render_request(run_ctx *c, const eddy_render_request *req, eddy_error *err);
int run_open_output(run_ctx *c, int resume, double resume_time, eddy_error *err);
int run_open_probes(run_ctx *c, eddy_error *err);
/* eddy_run_open_probe_table (run_folder.h) of the run's output and probes. */
int run_open_probe_table(run_ctx *c, eddy_error *err);
/* The output folder held for this run until run_close_ctx (folder_lock.h), before anything in it is read,
 * made, truncated or removed: a run's made first if it is not there (and removed again when the run
 * leaves it empty), a resume's only if it is there (else its checkpoint is missing, said by the read).
 * Refuses a folder another eddy run holds. Collective (rank 0 holds it, every process agrees). */
int run_lock_folder(run_ctx *c, const char *dir, int resume, eddy_error *err);
/* The output folder for a new run (run_folder.h, on the scene's output.dir). run_check_folder refuses one
 * holding a run stopped before its end ("choose another --out"), and says whether it holds one
 * (finished); run_clear_folder then removes that run's frames, tables, pictures and checkpoint, once the
 * output is open. Collective. */
int run_check_folder(run_ctx *c, int *holds_run, eddy_error *err);
/* Several processes: refuses (an agreed error naming the first process that differs) a launch whose
 * processes were given different runs (an MPMD launch; a scene file that differs between nodes or is
 * missing on one: eddy_drive_same_scene), which mixed two physics or failed in MPI without eddy's
 * message. Collective. */
int run_same_everywhere(const eddy_run_options *opt, eddy_error *err);
int run_clear_folder(run_ctx *c, eddy_error *err);
int run_open_renderer(run_ctx *c, eddy_error *err);
int run_reached_end(const run_ctx *c);
int run_step_to_end(run_ctx *c, int *last_written, eddy_error *err);

#endif /* EDDY_RUN_INTERNAL_H */
