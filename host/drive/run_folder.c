/*
 * host/drive/run_folder.c — what `eddy run` does with an output folder that already holds a run.
 *
 * A run that did not reach its end (stopped by a signal, or ended by an error after a periodic
 * checkpoint) is refused: its checkpoint is work `eddy resume` continues, and a new run would delete it.
 * Which checkpoint counts is resume's rule: the pieces a manifest names (several processes), else
 * checkpoint.eddy.
 *
 * A finished run is replaced whole: its frames, frame list, probe table, rendered frames, movie,
 * picture and checkpoint are removed before this run writes anything, so that none of them is left
 * among the new run's files (a shorter run left the old run's later frames behind, unlisted, and a
 * later `eddy resume` continued the old run's checkpoint among them); the diagnostics are rewritten
 * when the output opens (output.h). Only a folder
 * that shows an eddy run (a checkpoint, a manifest, frames.pvd or diagnostics.csv) is cleared, and only
 * of the names eddy writes: frames/frame_NNNNN.EXT and frame_NNNNN_pK.vtp, render/frame_NNNNN.png, and
 * the temporary files of those names and of the others that a write killed half-way left behind.
 *
 * Nothing here runs before the run holds the folder (run_lock_folder, folder_lock.h): a second eddy run
 * into the same folder cleared the frames of the first one while it ran.
 *
 * A stopped run whose checkpoint resume would refuse (truncated, changed: checked as resume reads it) is
 * refused too, but the user is told to move the checkpoint away rather than to resume it.
 *
 * The rules take the folder alone (run_folder.h), so that the Python package's writing simulations
 * follow them too; the run_ctx functions of run_internal.h are the commands' way in.
 *
 * Depends on: checkpoint.h (the peek at a checkpoint's clock and end, and its reader's checks),
 * decomp.h, folder_lock.h, output.h, probes.h.
 */
#include "run_folder.h"
#include "run_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "checkpoint.h"
#include "decomp.h"
#include "output.h"
#include "run_record.h"
#include "sim.h"

/* 1 when the run of these settings stopped before its end, which `end` then describes. */
static int stopped_early(const cJSON *settings, double time, uint64_t step, char *end, size_t n)
{
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(settings, "end_steps");
    const cJSON *until = cJSON_GetObjectItemCaseSensitive(settings, "end_time");
    if (cJSON_IsNumber(steps) && steps->valuedouble >= 0) {
        snprintf(end, n, "step %.0f", steps->valuedouble);
        return (double)step < steps->valuedouble;
    }
    if (cJSON_IsNumber(until)) {
        snprintf(end, n, "t = %.6g s", until->valuedouble);
        return !eddy_sim_time_reached(time, until->valuedouble);
    }
    snprintf(end, n, "an end it does not state");
    return 1;
}

/* 1 when DIR/NAME exists (of any kind, readable or not), 0 when it does not, -1 when that cannot be
 * told (errno). */
static int exists_in(const char *dir, const char *name)
{
    char *path = eddy_output_join_path(dir, name);
    if (!path) {
        errno = ENOMEM;
        return -1;
    }
    struct stat st;
    const int rc = stat(path, &st) == 0 ? 1 : errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    free(path);
    return rc;
}

/* "checkpoint.p" digits ".eddy": a piece of a checkpoint written by several processes. */
static int piece_name(const char *name)
{
    return eddy_checkpoint_piece_name_ending(name, ".eddy");
}

/* A file an eddy write goes through, left behind by a process killed in the middle of it (the next
 * write of that name would replace it, but a new run may never write that name): "NAME.tmp" of a file
 * eddy writes whole, and a checkpoint piece staged as "checkpoint.pK.eddy.next" (checkpoint.h). */
static int leftover_temporary(const char *name)
{
    static const char *const whole[] = {EDDY_CHECKPOINT_FILE, EDDY_CHECKPOINT_MANIFEST, "frames.pvd", "probes.csv",
                                        "diagnostics.csv", "picture.png", "movie.mp4"};
    if (eddy_checkpoint_piece_name_ending(name, ".eddy" EDDY_CHECKPOINT_PIECE_STAGED)) return 1;
    const size_t len = strlen(name);
    if (len <= 4 || strcmp(name + len - 4, ".tmp") != 0) return 0;
    for (size_t i = 0; i < sizeof whole / sizeof *whole; ++i)
        if (len - 4 == strlen(whole[i]) && strncmp(name, whole[i], len - 4) == 0) return 1;
    return 0;
}

/* Removes the entries of DIR/SUB (SUB may be "") whose names `match` accepts. */
static void remove_matching(const char *dir, const char *sub, int (*match)(const char *))
{
    char *folder = *sub ? eddy_output_join_path(dir, sub) : strdup(dir);
    DIR *d = folder ? opendir(folder) : NULL;
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (!match(e->d_name)) continue;
            char *path = eddy_output_join_path(folder, e->d_name);
            if (path) remove(path);
            free(path);
        }
        closedir(d);
    }
    free(folder);
}

int run_lock_folder(run_ctx *c, const char *dir, int resume, eddy_error *err)
{
    return eddy_folder_lock_take_all(dir, resume ? EDDY_FOLDER_EXISTING : EDDY_FOLDER_MAKE_TIDY,
                                     resume ? NULL : "choose another --out", &c->lock, err);
}

/*
 * Non-zero, with why set, when `eddy resume` would refuse the checkpoint of DIR as damaged: each file is
 * read and verified whole, as resume reads it (length and checksum), without restoring anything. With a
 * manifest, the pieces checkpoint.p0.eddy ... of the "processes" its settings (those of piece 0) state,
 * each process verifying its share (piece k on process k mod size, as a resume on another count reads
 * them); the caller agrees on the first refusal.
 */
static int resume_would_refuse(const char *dir, int pieces, const cJSON *settings, eddy_error *why)
{
    if (!pieces) {
        eddy_checkpoint *ck = NULL;
        const int rc = eddy_checkpoint_read(dir, &ck, why);
        eddy_checkpoint_free(ck);
        return rc;
    }
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(settings, "processes");
    const int count = cJSON_IsNumber(n) && n->valuedouble >= 1 && n->valuedouble <= 1 << 20 ? (int)n->valuedouble : 1;
    for (int k = eddy_decomp_rank(); k < count; k += eddy_decomp_size()) {
        char name[48];
        snprintf(name, sizeof name, "checkpoint.p%d.eddy", k);
        eddy_checkpoint *ck = NULL;
        const int rc = eddy_checkpoint_read_named(dir, name, &ck, why);
        eddy_checkpoint_free(ck);
        if (rc) return rc;
    }
    return EDDY_OK;
}

int eddy_run_folder_refuse_other_outputs(const char *dir, eddy_error *err)
{
    static const char *const TABLES[] = {"diagnostics.csv", "frames.pvd", "probes.csv"};
    int rc = EDDY_OK;
    for (size_t k = 0; k < sizeof TABLES / sizeof TABLES[0] && !rc; ++k) {
        const int there = exists_in(dir, TABLES[k]);
        if (there < 0)
            rc = eddy_error_set(err, EDDY_ERR_IO, "cannot tell whether '%s' holds another run's outputs: %s", dir,
                                strerror(errno));
        else if (there > 0)
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "the checkpoint in '%s' was written by a program (eddy_session_checkpoint) that wrote "
                                "no outputs there, but the folder holds another run's %s, which this resume would "
                                "start again: move them away, or copy %s to an empty folder and resume "
                                "that", dir, TABLES[k],
                                exists_in(dir, EDDY_CHECKPOINT_MANIFEST) > 0
                                    ? "checkpoint.manifest and its checkpoint.pK.eddy pieces"
                                    : "checkpoint.eddy");
    }
    /* Several processes (a folder of each node's own may differ): all stop, or none, on one message. */
    return eddy_decomp_agree_error(rc, err);
}

int run_refuse_other_outputs(run_ctx *c, eddy_error *err)
{
    return eddy_run_folder_refuse_other_outputs(c->sim->scene.out_dir, err);
}

int eddy_run_folder_check(const char *dir, const char *another, int *holds_run, eddy_error *err)
{
    *holds_run = 0;
    const int manifest = exists_in(dir, EDDY_CHECKPOINT_MANIFEST);
    const char *name = manifest == 1 ? "checkpoint.p0.eddy" : EDDY_CHECKPOINT_FILE;
    const int checkpoint = exists_in(dir, name);
    int rc = EDDY_OK, damaged = 0, stopped = 0;
    char killed[PATH_MAX + 128];
    if (manifest < 0 || checkpoint < 0) {
        rc = eddy_error_set(err, EDDY_ERR_IO, "cannot tell whether the output folder '%s' holds a run: %s", dir,
                            strerror(errno));
    } else if (checkpoint == 0 && manifest == 1 && exists_in(dir, "checkpoint.p0.eddy" EDDY_CHECKPOINT_PIECE_STAGED) == 1) {
        /* A split run killed between its manifest and its first pieces' renames: resume reads the staged
         * pieces (checkpoint_resume.c), and a new run cleared them away without a word (review). */
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                            "the output folder '%s' holds the checkpoint of a run on several processes stopped while it "
                            "put it in place (its manifest and staged pieces); continue it with `mpirun -np N eddy "
                            "resume %s` as it ran, or %s (a new run would delete it)", dir, dir, another);
    } else if (checkpoint == 0 && manifest == 0 && (exists_in(dir, "frames.pvd") == 1 || exists_in(dir, "diagnostics.csv") == 1) &&
               eddy_run_record_unfinished(dir, killed, sizeof killed)) {
        /* A run that did not finish and left no checkpoint (killed before its first, the default writing
         * one at the end only; interrupted where its checkpoint could not be written): nothing continues
         * it, but its frames and tables are what the job computed, and a resubmitted job line deleted
         * them without a word (an HPC trial: 220 MB; an adversarial trial: a full disk at the stop). A
         * run that finished, or exploded, is replaced as before (run_record.h). */
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                            "the output folder '%s' holds the frames and tables of a run that did not finish (%s) and "
                            "left no checkpoint, so eddy resume cannot continue it: a new run would delete them; move "
                            "them away or %s",
                            dir, killed, another);
    } else if (checkpoint == 1) {
        char *path = eddy_output_join_path(dir, name);
        double time = 0.0;
        uint64_t step = 0;
        cJSON *settings = NULL;
        char end[64];
        eddy_error why;
        if (!path) {
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        } else if (eddy_checkpoint_peek(path, &time, &step, &settings, &why)) {
            rc = eddy_error_set(err, why.code,
                                "the output folder '%s' holds a checkpoint this run would delete (%s); move it away "
                                "or %s",
                                dir, why.message, another);
        } else if (!stopped_early(settings, time, step, end, sizeof end) &&
                   eddy_run_record_unfinished(dir, killed, sizeof killed)) {
            /* The checkpoint's run reached its end, but a later command did not finish (a resume that
             * extended it, killed before its own checkpoint): its frames past the checkpoint were what
             * it computed, and a new run deleted them (an adversarial trial). A resume replaces those
             * past the checkpoint, and says so. */
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "the output folder '%s' holds a run whose last command did not finish (%s); its "
                                "checkpoint (step %llu, t = %.6g s) continues it with `eddy resume %s --until T`, or %s "
                                "(a new run would delete its files)",
                                dir, killed, (unsigned long long)step, time, dir, another);
        } else if (!stopped_early(settings, time, step, end, sizeof end)) {
            /* (a finished run: replaced whole, whatever its checkpoint holds) */
        } else if ((stopped = 1, damaged = resume_would_refuse(dir, manifest == 1, settings, &why))) {
            /* Sending the user to `eddy resume` for a checkpoint it refuses (truncated, a flipped byte:
             * the head above reads fine) was a dead end: both commands refused the folder. */
            rc = eddy_error_set(err, why.code,
                                "the output folder '%s' holds a checkpoint this run would delete, of a run stopped at "
                                "step %llu (t = %.6g s) before its end (%s), which eddy resume cannot continue (%s); "
                                "move it away or %s",
                                dir, (unsigned long long)step, time, end, why.message, another);
        } else {
            /* (as the interrupt's own message says it: under mpirun, with the launcher) */
            char how[48] = "eddy resume";
            if (eddy_decomp_size() > 1) snprintf(how, sizeof how, "mpirun -np %d eddy resume", eddy_decomp_size());
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "the output folder '%s' holds a run stopped at step %llu (t = %.6g s) before its end "
                                "(%s); continue it with `%s %s`, or %s (a new run would delete its checkpoint)",
                                dir, (unsigned long long)step, time, end, how, dir, another);
        }
        cJSON_Delete(settings);
        free(path);
    }
    /* Several processes each check their own pieces: one whose pieces are whole would send the user to
     * eddy resume, which another's damaged piece makes refuse; that process's message is the one said. */
    if (eddy_decomp_size() > 1 && !eddy_decomp_all_ok(!damaged) && stopped && !damaged) rc = EDDY_OK;
    if (!rc)
        *holds_run = checkpoint == 1 || manifest == 1 || exists_in(dir, "frames.pvd") == 1 ||
                     exists_in(dir, "diagnostics.csv") == 1;
    /* Several processes agree before any goes on, on the lowest refusing process's message (a folder
     * of each node's own may hold a stopped run on one node only: "another process refused" there, its
     * own message on that node, differed, and the processes stopped with MPI_Abort) ... */
    rc = eddy_decomp_agree_error(rc, err);
    /* ... and on whether it holds a run: a process that cleared it while another did not met that one
     * in another collective. */
    if (!rc && eddy_decomp_size() > 1) *holds_run = !eddy_decomp_all_ok(!*holds_run);
    return rc;
}

/* The files of a run that eddy_run_folder_clear removes by name (besides frames.pvd, the frames in frames/
 * and render/, pieces and temporaries), and that eddy_run_folder_refuse_foreign finds the user's copies
 * of: one list, so that no name cleared by the next run goes unrefused by this one. */
static const char *const RUN_FILES[] = {"picture.png", "probes.csv", "movie.mp4", "render/ffmpeg.log"};

/* Whether DIR/NAME is a regular file a write of this run would replace: a folder or a device in its
 * place makes the write fail with its own message, which is not the user's data lost, and a "*.tmp" is
 * the temporary an eddy write goes through (one killed half-way left it). */
static int replaceable_file(const char *dir, const char *name)
{
    const size_t len = strlen(name);
    if (len > 4 && strcmp(name + len - 4, ".tmp") == 0) return 0;
    char *path = eddy_output_join_path(dir, name);
    struct stat st;
    const int regular = path && lstat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    return regular;
}

/* The first file of DIR/SUB named as a frame that a write would replace, into name; 0 when there is none. */
static int first_frame(const char *dir, const char *sub, char *name, size_t n)
{
    char *folder = eddy_output_join_path(dir, sub);
    DIR *d = folder ? opendir(folder) : NULL;
    int found = 0;
    if (d) {
        for (struct dirent *e; !found && (e = readdir(d));)
            if (eddy_output_frame_name(e->d_name) && replaceable_file(folder, e->d_name))
                found = snprintf(name, n, "%s/%s", sub, e->d_name) > 0;
        closedir(d);
    }
    free(folder);
    return found;
}

int eddy_run_folder_refuse_foreign(const char *dir, const char *another, eddy_error *err)
{
    /* (several processes: each looks at its own view of the folder, a node's own one included) */
    char found[3][300];
    int count = 0;
    if (replaceable_file(dir, "run.json") && !eddy_run_record_is_eddys(dir)) snprintf(found[count++], sizeof found[0], "run.json");
    /* Every name eddy_run_folder_clear removes: a file this run does not write is still a run's name
     * there once this run's files show, and the next run would clear it. */
    for (size_t k = 0; k < sizeof RUN_FILES / sizeof RUN_FILES[0] && count < 3; ++k)
        if (replaceable_file(dir, RUN_FILES[k])) snprintf(found[count++], sizeof found[0], "%s", RUN_FILES[k]);
    if (count < 3 && first_frame(dir, "frames", found[count], sizeof found[0])) ++count;
    if (count < 3 && first_frame(dir, "render", found[count], sizeof found[0])) ++count;
    int rc = EDDY_OK;
    if (count)
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                            "the output folder '%s' holds %s%s%s%s%s, which no eddy run wrote there (it shows no "
                            "checkpoint, frames.pvd or diagnostics.csv) and runs into it would overwrite or remove; "
                            "move %s away or %s",
                            dir, found[0], count > 2 ? ", " : count > 1 ? " and " : "", count > 1 ? found[1] : "",
                            count > 2 ? " and " : "", count > 2 ? found[2] : "", count > 1 ? "them" : "it", another);
    return eddy_decomp_agree_error(rc, err);
}

int run_check_folder(run_ctx *c, int *holds_run, eddy_error *err)
{
    const char *dir = c->sim->scene.out_dir, *another = "choose another --out";
    int rc = eddy_run_folder_check(dir, another, holds_run, err);
    return rc || *holds_run ? rc : eddy_run_folder_refuse_foreign(dir, another, err);
}

int eddy_run_folder_clear(const char *dir, eddy_error *err)
{
    int rc = EDDY_OK;
    /* Nothing is removed from a folder the run could not then write its own files into. (Under mpirun
     * with a folder of each node's own, rank 0's may not be there yet while another node's holds a
     * run: nothing to clear, and the output makes it.) */
    int absent = 0;
    if (eddy_decomp_rank() == 0 && access(dir, W_OK) != 0) {
        absent = errno == ENOENT;
        if (!absent)
            rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write into the output folder '%s': %s", dir, strerror(errno));
    }
    if (!rc && !absent && eddy_decomp_rank() == 0) {
        eddy_output_remove_frames(dir, "frames");
        eddy_output_remove_frames(dir, "render");
        remove_matching(dir, "", piece_name);
        remove_matching(dir, "", leftover_temporary);
        eddy_output_remove_in(dir, "frames.pvd");
        for (size_t k = 0; k < sizeof RUN_FILES / sizeof RUN_FILES[0]; ++k) eddy_output_remove_in(dir, RUN_FILES[k]);
    }
    /* The others wait for rank 0 before any writes a frame, and take its error. */
    rc = eddy_decomp_agree_error(rc, err);
    /* The checkpoint no longer matches the frames written now: a later `eddy resume` continued the old
     * run among them. Every process's (under mpirun a folder of each node's own may hold one). */
    if (!rc) {
        eddy_output_remove_in(dir, EDDY_CHECKPOINT_FILE);
        if (eddy_decomp_rank() == 0) eddy_output_remove_in(dir, EDDY_CHECKPOINT_MANIFEST);
    }
    return rc;
}

int run_clear_folder(run_ctx *c, eddy_error *err)
{
    return eddy_run_folder_clear(c->sim->scene.out_dir, err);
}

double eddy_run_resume_time(int next_frame, double output_interval)
{
    /* A final frame written after the last regular one (at an interrupt or an odd end) is dropped, and
     * its index written again at its regular time. */
    return next_frame > 0 ? (next_frame - 1) * output_interval : -1.0;
}

/* The header line of DIR/probes.csv for the probes `p` (eddy_probes_csv_header), malloc'ed. */
static int probe_header(const eddy_probes *p, char **header, eddy_error *err)
{
    size_t len = 0;
    *header = NULL;
    FILE *mem = open_memstream(header, &len);
    if (mem) {
        eddy_probes_csv_header(p, mem);
        fclose(mem);
    }
    if (mem && *header) return EDDY_OK;
    free(*header);
    *header = NULL;
    return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
}

int eddy_run_open_probe_table(eddy_output *o, const eddy_probes *p, FILE **f, eddy_error *err)
{
    *f = NULL;
    if (eddy_probes_count(p) == 0) return EDDY_OK;
    char *header;
    int rc = probe_header(p, &header, err);
    if (!rc) rc = eddy_output_open_table(o, "probes.csv", header, f, err);
    free(header);
    return rc;
}

int eddy_run_folder_check_tables(const char *dir, const eddy_probes *p, eddy_error *err)
{
    int rc = EDDY_OK;
    /* (rank 0 writes the tables, and reads the ones it continues: under mpirun with a folder of each
     * node's own, the others' may hold none) */
    if (eddy_decomp_rank() == 0) {
        char *header = NULL;
        if (eddy_probes_count(p) > 0) rc = probe_header(p, &header, err);
        if (!rc) rc = eddy_output_check_tables(dir, header ? "probes.csv" : NULL, header, err);
        free(header);
    }
    return eddy_decomp_agree_error(rc, err);
}
