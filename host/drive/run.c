/*
 * host/drive/run.c — `eddy run`: a scene through the session layer to its end, writing frames,
 * probes, diagnostics, checkpoints and the picture. `eddy resume` (resume.c) shares its steps.
 */
#include "run_internal.h"
#include "run_record.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkpoint.h"
#include "decomp.h"
#include "diagnostics.h"
#include "energy_watch.h"
#include "fnv1a.h"
#include "frame.h"
#include "output.h"
#include "picture.h"
#include "probes.h"
#include "progress.h"
#include "same_scene.h"
#include "unused_sets.h"
#include "canvas.h"
#include "services.h"
#include "session.h"
#include "sim.h"

void eddy_run_install_signal_handlers(void)
{
    /* The flag the run loop polls is the host's cancel_requested() (services.h). */
    eddy_services_install_signal_handlers();
}

eddy_run_options eddy_run_default_options(void)
{
    eddy_run_options o;
    memset(&o, 0, sizeof o);
    o.steps = -1;
    o.until = NAN;
    o.checkpoint_every = NAN;
    o.picture = 1;
    o.overlap = 1;
    return o;
}

/* Appends to err's message (truncating at its capacity). */
static void append_message(eddy_error *err, const char *fmt, ...) EDDY_PRINTF(2, 3);
static void append_message(eddy_error *err, const char *fmt, ...)
{
    size_t n = strlen(err->message);
    if (n + 1 >= sizeof err->message) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + n, sizeof err->message - n, fmt, ap);
    va_end(ap);
}

/* The start of a command that continues this run ("mpirun -np N " on several processes), said once so
 * that every hint to continue launches as the run did. */
static const char *launch_prefix(char *buf, size_t size)
{
    if (eddy_decomp_size() > 1)
        snprintf(buf, size, "mpirun -np %d ", eddy_decomp_size());
    else
        buf[0] = '\0';
    return buf;
}

/* Whether the outputs of a frame need every particle on one process (docs/mpi.md): a writer other
 * than "vtk" (whose pieces each process writes) or a plugin's probe (the built-ins are sums or walks
 * over bins, probes.h; rendered frames are composited, host/viz/composite.h). Decided at the first
 * frame, alike on every process. */
static int outputs_need_whole(run_ctx *c)
{
    if (!c->outputs_gather) {
        const eddy_scene *s = &c->sim->scene;
        int need = !eddy_probes_reducible(c->probes);
        for (size_t i = 0; i < s->format_count; ++i) need |= strcmp(s->formats[i], "vtk") != 0;
        c->outputs_gather = eddy_decomp_all_ok(!need) ? 2 : 1;
    }
    return c->outputs_gather == 1;
}

/* The probes' integer sums over the processes (eddy_probes_comm). */
static int sum_over_processes(void *world, int64_t *values, size_t count, eddy_error *err)
{
    return eddy_decomp_sum_int64(world, values, count, err);
}

/* Overlapped pieces (host/observe/output.h): where the outputs need no gather and frames are written
 * with overlap, each process writes its VTK piece on its writer thread, and rank 0 names a frame in
 * frames.pvd only once every process's piece of it is complete. Alike on every process. */
static int pieces_overlap(run_ctx *c)
{
    return c->outputs_gather == 2 && eddy_output_overlaps_pieces(c->out);
}

/* share_error for a lost VTK piece; the frame pending on rank 0 is never named. */
static int share_piece_error(run_ctx *c, double word, const eddy_error *mine, eddy_error *err)
{
    eddy_error ignored;
    eddy_output_commit_pieces(c->out, 0, &ignored);
    return eddy_decomp_share_failure(c->sim->world, word, mine, "its piece", err);
}

/* Whether every process's part of a frame went well (eddy_decomp_agree_outcome). */
static int agree_on_frame(run_ctx *c, int rc, const eddy_error *mine, const char *what, eddy_error *err)
{
    return eddy_decomp_agree_outcome(c->sim->world, rc, mine, what, err);
}

/* E_k + E_p at each frame against this command's first, by the rule compare and validate judge a run by
 * (energy_watch.h). Rank 0's (or each process's same) diagnostics. */
static void watch_energy(run_ctx *c, const eddy_diagnostics *d, double t)
{
    eddy_energy_watch_frame(&c->energy, c->sim, d, t);
    /* Said when it first happens too: a long run told only at its end (a student's ten-minute run) spent
     * its time on a gas. The end says how far it rose in all. */
    if (!c->energy_said && eddy_energy_watch_made(&c->energy) && eddy_decomp_rank() == 0) {
        c->energy_said = 1;
        char text[512], line[640];
        eddy_energy_watch_describe(&c->energy, &c->sim->scene, text, sizeof text);
        snprintf(line, sizeof line, "eddy: warning: the run is making energy (it goes on; its end says how far it "
                                    "rose in all): %s", text);
        eddy_progress_say(&c->bar, line);
    }
}

/* Said once at the end (also of an interrupted run). */
static void warn_energy_rise(const run_ctx *c)
{
    if (eddy_decomp_rank() == 0) eddy_energy_watch_warn(&c->energy, &c->sim->scene, NULL);
}

/* Several processes, outputs that need no gather: every process writes its VTK piece and measures the
 * diagnostics and probes of its owned particles as exact partial sums (host/observe/exact_sum.h); one
 * integer sum and one maximum over the processes combine them (which also waits for every piece), the
 * walk probes exchange their occupied bins (three more integer sums when the scene has any), and rank
 * 0 writes the .pvtp naming the pieces, the diagnostics row and the probes row: bit for bit one
 * process's, with no process ever holding another's particles. */
static int write_outputs_reduced(run_ctx *c, const eddy_frame *frame, eddy_error *err)
{
    eddy_world *w = c->sim->world;
    /* Overlapped pieces (pieces_overlap): this process's previous piece is waited for, and whether it
     * was written rides on the maximum below; rank 0 names that frame only when every process's was. */
    const int po = pieces_overlap(c);
    eddy_error perr;
    if (po) eddy_output_drain(c->out, &perr);
    const int prc = po ? eddy_output_piece_lost(c->out, &perr) : EDDY_OK;
    int rc = !po ? eddy_output_write_piece(c->out, frame, err) : prc ? EDDY_OK : eddy_output_submit_piece(c->out, frame, err);
    /* Every process learns of a piece this process could not write before the next collective (the
     * render's composite, the sums below): returning alone would leave the others waiting in it, and
     * this process's run_finish would enter collectives of its own, a crash in MPI instead of the
     * message. (A piece lost on the writer thread rides on the maximum below.) */
    eddy_error mine = *err;
    if ((rc = agree_on_frame(c, rc, &mine, "its piece", err))) return rc;
    /* Rendered frames: every process draws its own particles, rank 0 composites them and writes the
     * PNG (collective, host/viz/composite.h); rank 0's write error is agreed the same way. */
    if (c->ren) {
        rc = eddy_render_frame(c->ren, w, (int)frame->index, err);
        mine = *err;
        if ((rc = agree_on_frame(c, rc, &mine, "its rendered frame", err))) return rc;
    }
    const size_t nd = EDDY_DIAGNOSTICS_SUM_WORDS, np = eddy_probes_sum_words(c->probes);
    int64_t *sums = calloc(nd + np + 1, sizeof *sums);
    if (!sums) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    eddy_diagnostics_partial part;
    double maxima[EDDY_DIAGNOSTICS_MAX_VALUES + 1] = {0};
    rc = eddy_diagnostics_partial_of_frame(frame, &part, err);
    if (!rc) {
        eddy_diagnostics_pack(&part, sums, maxima);
        rc = eddy_probes_measure_partial(c->probes, frame, sums + nd, err);
    }
    if (rc) {
        /* A failed partial still takes part (with nothing), so that no process waits forever; the
         * flag keeps rank 0 from writing rows that lack it. */
        memset(sums, 0, (nd + np) * sizeof *sums);
        memset(maxima, 0, sizeof maxima);
        sums[nd + np] = 1;
    }
    if (po) maxima[EDDY_DIAGNOSTICS_MAX_VALUES] = eddy_decomp_failure_word(prc);
    eddy_error rerr;
    int rr = eddy_decomp_sum_int64(w, sums, nd + np + 1, &rerr);
    if (!rr) rr = eddy_world_reduce(w, EDDY_REDUCE_MAX, maxima, EDDY_DIAGNOSTICS_MAX_VALUES + (po ? 1 : 0), &rerr);
    if (!rc && rr) {
        *err = rerr;
        rc = rr;
    }
    if (!rr && po && maxima[EDDY_DIAGNOSTICS_MAX_VALUES] > 0) { /* a piece is missing: every process stops */
        free(sums);
        return share_piece_error(c, maxima[EDDY_DIAGNOSTICS_MAX_VALUES], &perr, err);
    }
    if (rc || sums[nd + np]) { /* another process's error stops the run from there */
        free(sums);
        return rc;
    }
    /* "front" and "height": each process's occupied bins, not its particles (probes.h). */
    const eddy_probes_comm comm = {eddy_decomp_rank(), eddy_decomp_size(), sum_over_processes, w};
    int complete = 1;
    if ((rc = eddy_probes_measure_walks(c->probes, frame, &comm, c->probe_values, &complete, err)) || !complete) {
        free(sums);
        return rc;
    }
    eddy_diagnostics_unpack(&part, sums, maxima);
    eddy_diagnostics d;
    eddy_diagnostics_finish(&part, &d);
    /* (the total count is every process's after the sums: all take part in the percentile's rounds or none) */
    if (d.particles > 0 &&
        (rc = eddy_diagnostics_density_error_quantile(frame, 0.99, sum_over_processes, w, &d.density_error_p99, err))) {
        free(sums);
        return rc;
    }
    watch_energy(c, &d, w->time);
    /* (the previous frame's pieces are complete: its .pvtp and series entry; this frame's wait) */
    if (po && (rc = eddy_output_commit_pieces(c->out, 1, err))) {
        free(sums);
        return rc;
    }
    if (!(rc = eddy_output_write_frame(c->out, frame, err)) &&
        !(rc = eddy_output_write_diagnostics(c->out, &d, w->time, w->step, eddy_time_ms() - c->wall_start, err)) &&
        c->probes_csv) {
        eddy_probes_finish(c->probes, sums + nd, c->probe_values);
        eddy_probes_csv_row(c->probes, c->probes_csv, w->time, w->step, c->probe_values);
        rc = eddy_output_flush_table(c->out, err);
    }
    free(sums);
    return rc;
}

/* One output frame: the one snapshot (frame.h: the host copy synced, the ids sorted once) handed to
 * the writers, the renderer, the diagnostics and the probes. On several processes (docs/mpi.md)
 * every process writes its VTK piece; then either the diagnostics and probes are reduced over the
 * processes (write_outputs_reduced), or, where an output needs every particle, the owned particles are
 * gathered to rank 0, which writes everything else from them as one process would. Either way the
 * sums are exact until one rounding: diagnostics and probes are bit for bit those of one process. */
static int write_frame_outputs(run_ctx *c, int index, eddy_error *err)
{
    eddy_world *w = c->sim->world;
    eddy_frame frame;
    int rc = eddy_frame_take(w, (uint64_t)index, &frame, err);
    if (rc) return rc;
    eddy_world *whole = w;
    if (eddy_decomp_active(w) && !outputs_need_whole(c)) {
        rc = write_outputs_reduced(c, &frame, err);
        eddy_frame_release(&frame);
        return rc;
    }
    const int decomposed = eddy_decomp_active(w);
    /* (not "frame k": with overlap the error of frame k shows at frame k + 1; the message names the file) */
    const char *what = "its outputs";
    if (decomposed) {
        /* Every process writes its piece, then all agree before the gather (collective): a process whose
         * piece failed must not leave the others waiting in it. */
        eddy_frame local = frame;
        eddy_error perr;
        const int prc = eddy_output_write_piece(c->out, &local, &perr);
        if ((rc = agree_on_frame(c, prc, &perr, "its piece", err)) || (rc = eddy_decomp_gather_whole(w, &whole, err))) {
            eddy_frame_release(&frame);
            return rc;
        }
        eddy_frame_release(&frame);
        /* Not rank 0: whether rank 0 wrote the frame, agreed below. */
        if (!whole) return agree_on_frame(c, EDDY_OK, NULL, what, err);
        if ((rc = eddy_frame_of_host_copy(whole, (uint64_t)index, &frame, err))) {
            eddy_decomp_release_whole(w, whole);
            const eddy_error mine = *err;
            return agree_on_frame(c, rc, &mine, what, err);
        }
    }
    eddy_diagnostics d;
    if (!(rc = eddy_output_write_frame(c->out, &frame, err)) && !(rc = eddy_render_frame(c->ren, whole, index, err)) &&
        !(rc = eddy_diagnostics_of_frame(&frame, &d, err)) && (watch_energy(c, &d, w->time), 1) &&
        !(rc = eddy_output_write_diagnostics(c->out, &d, w->time, w->step, eddy_time_ms() - c->wall_start, err)) &&
        c->probes_csv && !(rc = eddy_probes_measure(c->probes, &frame, c->probe_values, err))) {
        eddy_probes_csv_row(c->probes, c->probes_csv, w->time, w->step, c->probe_values);
        rc = eddy_output_flush_table(c->out, err);
    }
    eddy_frame_release(&frame);
    eddy_decomp_release_whole(w, whole);
    if (decomposed) {
        const eddy_error mine = *err;
        rc = agree_on_frame(c, rc, &mine, what, err);
    }
    return rc;
}

/* The frame's outputs, and the step they show (c->written_step): a frame whose checkpoint then failed
 * counts as not written to the session, which would have run_finish write it a second time (the
 * tables' rows twice, and on a full disk a frame reported lost that was on disk). */
static int write_outputs(run_ctx *c, int index, eddy_error *err)
{
    const int rc = write_frame_outputs(c, index, err);
    if (!rc) c->written_step = (long long)c->sim->world->step;
    return rc;
}

/* Copies the request's strings into the context (a resumed run's come from the freed checkpoint). */
int run_keep_render_request(run_ctx *c, const eddy_render_request *req, eddy_error *err)
{
    const struct {
        const char *value, *option, *expected;
        char *buf;
        size_t size;
        const char **kept;
    } keep[] = {
        {req->field, "--render-field", "a field name of 1 to", c->render_field, sizeof c->render_field, &c->render.field},
        {req->camera, "--camera", "at most", c->render_camera, sizeof c->render_camera, &c->render.camera},
        {req->range, "--render-range", "at most", c->render_range, sizeof c->render_range, &c->render.range},
    };
    /* (a longer one was cut to fit, and then refused as another name, or taken as another camera) */
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; ++k)
        if (keep[k].value && strlen(keep[k].value) >= keep[k].size)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: expected %s %zu characters, got %zu",
                                  keep[k].option, keep[k].expected, keep[k].size - 1, strlen(keep[k].value));
    c->render = *req;
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; ++k)
        if (keep[k].value) *keep[k].kept = strcpy(keep[k].buf, keep[k].value);
    return EDDY_OK;
}

int run_open_renderer(run_ctx *c, eddy_error *err)
{
    /* Several processes: every process opens the renderer and draws its own particles; rank 0 composites
     * the images and writes the frames (host/viz/composite.h). */
    return eddy_render_open(&c->sim->scene, c->sim->world, &c->render, c->sim->scene.out_dir, &c->ren, err);
}

/* The scene's probes, measured at every output frame into DIR/probes.csv (host/observe/probes.h):
 * parsed and opened here, before the output folder is touched, so that a bad probe loses nothing
 * written there; run_open_probe_table opens the file once the output is. */
int run_open_probes(run_ctx *c, eddy_error *err)
{
    /* Several processes: every process opens the probes (it measures its part where they are sums,
     * write_outputs_reduced); rank 0 alone writes DIR/probes.csv (eddy_output_open_table). */
    int rc = eddy_probes_parse(&c->sim->scene, c->sim->registry, &c->probes, err);
    if (!rc) rc = eddy_probes_open(c->probes, c->sim->world, c->sim->host, err);
    size_t n = eddy_probes_count(c->probes);
    if (rc || n == 0) return rc;
    c->probe_values = calloc(n, sizeof(double));
    return c->probe_values ? EDDY_OK : eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
}

int run_open_probe_table(run_ctx *c, eddy_error *err)
{
    return eddy_run_open_probe_table(c->out, c->probes, &c->probes_csv, err);
}

/* "formats": the writer ids the run writes with (a resumed run writes with the same). */
static int add_formats(cJSON *s, const eddy_scene *scene)
{
    cJSON *a = cJSON_AddArrayToObject(s, "formats");
    for (size_t i = 0; a && i < scene->format_count; ++i) {
        cJSON *id = cJSON_CreateString(scene->formats[i]);
        if (!id || !cJSON_AddItemToArray(a, id)) {
            cJSON_Delete(id);
            return 0;
        }
    }
    return a != NULL;
}

/* The run's settings as a checkpoint stores them (host/session/checkpoint.h); NULL when out of memory. */
static cJSON *settings_of(const run_ctx *c)
{
    cJSON *s = cJSON_CreateObject();
    const eddy_component *sc = c->sim->solver_entry->component;
    if (!s || !cJSON_AddStringToObject(s, "scene_file", c->scene_file) ||
        !cJSON_AddStringToObject(s, "solver", sc->id) ||
        !cJSON_AddStringToObject(s, "solver_version", sc->version) ||
        !cJSON_AddStringToObject(s, "grid", c->sim->grid_entry->component->id) ||
        !add_formats(s, &c->sim->scene) ||
        !cJSON_AddNumberToObject(s, "end_steps", (double)c->end_steps) ||
        !cJSON_AddNumberToObject(s, "end_time", c->end_time) ||
        !cJSON_AddNumberToObject(s, "checkpoint_every", c->checkpoint_every) ||
        !cJSON_AddNumberToObject(s, "next_frame", c->frame)) {
        cJSON_Delete(s);
        return NULL;
    }
    /* (one process: a split run's pieces must hold one run's settings, and only rank 0 watches where the
     * outputs are gathered; such a run's resume watches from the resume, as before) */
    if (c->energy.state != 0 && eddy_decomp_size() == 1) {
        cJSON *ew = eddy_energy_watch_to_json(&c->energy);
        if (!ew || !cJSON_AddItemToObject(s, "energy_watch", ew)) {
            cJSON_Delete(ew);
            cJSON_Delete(s);
            return NULL;
        }
    }
    if (c->ren) {
        /* A resumed run renders on with the same request, and with the colour range the first frame
         * settled, so that its frames match the ones before the checkpoint. */
        eddy_render_info info;
        char range[128];
        eddy_error ierr;
        snprintf(range, sizeof range, "%s", c->render.range ? c->render.range : "");
        /* (a default range still awaiting a frame where the field varies, render.h, is left to settle
         * there in the resumed run as in one without a break: stored, it was the provisional bar for good) */
        const int got = eddy_render_info_get(c->ren, &info, &ierr) == 0, pending = got && info.range_pending;
        if (got && !pending)
            snprintf(range, sizeof range, info.range_per_frame ? "frame" : "%.17g,%.17g", info.range_min, info.range_max);
        cJSON *r = cJSON_AddObjectToObject(s, "render");
        if (!r || !cJSON_AddBoolToObject(r, "movie", c->render.movie) ||
            !cJSON_AddStringToObject(r, "field", c->render.field ? c->render.field : "") ||
            !cJSON_AddStringToObject(r, "camera", c->render.camera ? c->render.camera : "") ||
            !cJSON_AddStringToObject(r, "range", range) || !cJSON_AddNumberToObject(r, "width", c->render.width) ||
            ((pending || c->render.range_was_pending) && !cJSON_AddTrueToObject(r, "range_pending"))) {
            cJSON_Delete(s);
            return NULL;
        }
    }
    return s;
}

/* Every frame taken complete on disk and named: the frame in flight waited for and, with overlapped
 * pieces, every process's last piece agreed on by one maximum over the processes (a collective then),
 * after which rank 0 names its frame; a piece that failed anywhere is every process's error. */
static int settle_outputs(run_ctx *c, eddy_error *err)
{
    eddy_error perr;
    const int prc = eddy_output_drain(c->out, &perr);
    if (!pieces_overlap(c)) {
        if (prc) *err = perr;
        return prc;
    }
    double word = eddy_decomp_failure_word(eddy_output_piece_lost(c->out, &perr));
    eddy_error rerr;
    if (eddy_world_reduce(c->sim->world, EDDY_REDUCE_MAX, &word, 1, &rerr)) {
        *err = rerr;
        return rerr.code;
    }
    if (word > 0) return share_piece_error(c, word, &perr, err);
    return eddy_output_commit_pieces(c->out, 1, err);
}

/* The frame in flight at the end of a run: settled where every process got here alike (a run that
 * reached its end, was interrupted or exploded, docs/mpi.md), else this process's alone (no collective: another
 * process may never arrive). */
static int finish_outputs(run_ctx *c, int rc, eddy_error *err)
{
    /* (an explosion is agreed too: its frame shows what went wrong, and is named like any other) */
    return rc == EDDY_OK || rc == EDDY_ERR_INTERRUPTED || eddy_decomp_is_agreed(rc) ? settle_outputs(c, err)
                                                                                  : eddy_output_drain(c->out, err);
}

static int write_checkpoint(run_ctx *c, eddy_error *err)
{
    /* Every frame taken is on disk first: a run resumed from this checkpoint starts after them, and
     * would never write a frame still in flight again. */
    int rc = settle_outputs(c, err);
    if (rc) return rc;
    cJSON *s = settings_of(c);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the checkpoint");
    rc = eddy_session_checkpoint(c->ses, c->sim->scene.out_dir, s, err);
    if (!rc) {
        c->has_checkpoint = 1;
        c->checkpoint_time = c->sim->world->time;
    }
    c->checkpoint_failed = rc != EDDY_OK;
    cJSON_Delete(s);
    return rc;
}

int run_reached_end(const run_ctx *c)
{
    const eddy_sim_plan plan = {c->end_steps, c->end_time, c->frame, NULL, NULL, NULL, NULL, NULL};
    return eddy_sim_plan_done(c->sim, &plan);
}

/*
 * The next checkpoint time after t, beyond the relative round-off 1e-12 the frame test allows, from
 * `next`, the current one. Normally by adding the interval, as every run so far has: a sum, not the
 * product k * every (they differ in the last bits, and after ~1e5 checkpoints by more than 1e-12), so
 * the checkpoint frames of an existing run, and of its resume (which sums from 0 to the same values),
 * stay bit for bit what they were. When that would take more than 1e6 additions (--checkpoint-every
 * 1e-8 on a run at t = 1000 s: 1e11), or an addition could not move the sum (an interval below the
 * clock's resolution at t), the first multiple k * every past t is computed instead: the quotient's
 * floor is at most one off either way, so one correction each side gives k. Where k cannot be held
 * exactly in a double, every later frame is past the returned time: a checkpoint at every frame, what
 * any interval shorter than the output interval gives, so no interval needs to be refused.
 */
double run_checkpoint_after(double next, double every, double t)
{
    const double past = t * (1.0 + 1e-12);
    if (next > past) return next;
    if ((past - next) / every < 1e6 && every >= past * 0x1p-40) {
        while (next <= past) next += every;
        return next;
    }
    double k = floor(past / every) + 1.0;
    if (!(k < 0x1p52)) return nextafter(past, INFINITY);
    if (k < 1.0) k = 1.0;
    if (k * every <= past) k += 1.0;
    if (k > 1.0 && (k - 1.0) * every > past) k -= 1.0;
    return k * every;
}

/* At every output frame: the frame, then a checkpoint at the first frame at or after each interval. */
static int on_frame(void *user, eddy_session *ses, int frame, eddy_error *err)
{
    (void)ses;
    run_ctx *c = user;
    int rc = write_outputs(c, frame, err);
    if (rc) return rc;
    c->frame = frame + 1; /* what a checkpoint written now must resume toward */
    const double t = c->sim->world->time;
    if (c->checkpoint_every > 0 && t >= c->next_checkpoint * (1.0 - 1e-12)) {
        if ((rc = write_checkpoint(c, err))) return rc;
        c->next_checkpoint = run_checkpoint_after(c->next_checkpoint, c->checkpoint_every, t);
    }
    return EDDY_OK;
}

void eddy_dt_tally_begin(eddy_dt_tally *t, const eddy_sim *sim)
{
    memset(t, 0, sizeof *t);
    t->first_step = sim->world->step;
}

void eddy_dt_tally_finish(eddy_dt_tally *t, const eddy_sim *sim)
{
    if (sim->world->step > t->first_step + (unsigned long long)t->steps) eddy_dt_tally_step(t, sim);
}

int eddy_dt_tally_step(eddy_dt_tally *t, const eddy_sim *sim)
{
    const double dt = sim->last_dt;
    ++t->steps;
    if (!sim->dt_limited) return 0;
    int k = 0;
    while (k < t->count && strcmp(t->limit[k].name, sim->dt_limit) != 0) ++k;
    if (k == t->count && k < EDDY_DT_TALLY_LIMITS) {
        snprintf(t->limit[k].name, sizeof t->limit[k].name, "%s", sim->dt_limit);
        t->count++;
    }
    /* (a fifth limit's steps are counted, not named: no solver has that many) */
    ++t->limited;
    if (k < t->count) {
        ++t->limit[k].steps;
        if (t->limit[k].smallest == 0 || dt < t->limit[k].smallest) t->limit[k].smallest = dt;
        if (dt > t->limit[k].longest) t->limit[k].longest = dt;
    }
    return 1;
}

/* The fewest significant digits (6 to 17) at which %g shows `a` and `b` apart: a limit a float's
 * rounding put just below time.dt read the same as it at %g, and the warning contradicted itself. */
static int digits_apart(double a, double b)
{
    char sa[40], sb[40];
    for (int p = 6; p < 17; ++p) {
        snprintf(sa, sizeof sa, "%.*g", p, a);
        snprintf(sb, sizeof sb, "%.*g", p, b);
        if (strcmp(sa, sb) != 0) return p;
    }
    return 17;
}

void eddy_dt_tally_describe(const eddy_dt_tally *t, double scene_dt, int report, char *out, size_t size)
{
    out[0] = '\0';
    if (t->limited == 0 || size == 0) return;
    int p = 6;
    for (int k = 0; k < t->count; ++k)
        if (digits_apart(scene_dt, t->limit[k].smallest) > p) p = digits_apart(scene_dt, t->limit[k].smallest);
    size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(out + n, n < size ? size - n : 0, __VA_ARGS__), n = n < size ? n : size)
    if (report)
        PUT("steps below the scene's %.*g s under its ", p, scene_dt);
    else
        PUT("%lld of %lld steps were shorter than time.dt = %.*g s, limited by the solver's ", t->limited, t->steps,
            p, scene_dt);
    long long named = 0;
    for (int k = 0; k < t->count; ++k) {
        named += t->limit[k].steps;
        if (k > 0) PUT(k + 1 == t->count && named == t->limited ? " and " : ", ");
        PUT("%s limit", t->limit[k].name);
        /* The longest too where it differs: the shortest alone is often a step halved to land on an
         * output time, half the step the limit set all run (a summary read 3.1e-05 s for 6.25e-05). */
        char longest[340] = "";
        char a[320], b[320];
        snprintf(a, sizeof a, "%.*g", p, t->limit[k].smallest);
        snprintf(b, sizeof b, "%.*g", p, t->limit[k].longest);
        if (strcmp(a, b) != 0) snprintf(longest, sizeof longest, report ? " to %s" : ", longest %s s", b);
        if (t->count == 1)
            PUT(report ? " (%s%s s)" : " (shortest step %s s%s)", a, longest);
        else
            PUT(report ? " (%lld steps, %s%s s)" : " (%lld steps, shortest step %s s%s)", t->limit[k].steps, a, longest);
    }
    if (named < t->limited) PUT(" and others (%lld steps)", t->limited - named);
    if (report) PUT(": %lld of %lld steps", t->limited, t->steps);
#undef PUT
}

/* The first step the solver's limit set: said once (the tally's figures follow at the end of the run).
 * A limit within round-off of time.dt still changes every step of the run, so it is said too, with the
 * digits that show it apart. */
static void warn_dt_limit(const eddy_sim *sim)
{
    const double dt = sim->scene.dt, lim = sim->last_dt;
    const int p = digits_apart(dt, lim);
    if (p == 6)
        fprintf(stderr, "eddy: warning: time step %.6g s is above the solver's %s limit; stepping with %.6g s\n", dt,
                sim->dt_limit, lim);
    else
        fprintf(stderr, "eddy: warning: the solver's %s limit, %.*g s, is just below the time step %.*g s (by a relative "
                "%.2g); stepping with the limit, so the steps differ from time.dt's\n", sim->dt_limit, p, lim, p, dt,
                (dt - lim) / dt);
}

static void on_step(void *user, eddy_session *ses, double step_ms)
{
    (void)step_ms;
    (void)ses;
    run_ctx *c = user;
    const eddy_world *w = c->sim->world;
    const int by_steps = c->end_steps >= 0;
    /* The step and the limit's name are agreed over every process, so is this branch (--quiet is not:
     * it only silences); the first process says it. */
    if (eddy_dt_tally_step(&c->dt_tally, c->sim) &&
        !c->sim->warned_dt_limit) {
        if (eddy_decomp_rank() == 0 && !c->opt->quiet) warn_dt_limit(c->sim);
        c->sim->warned_dt_limit = 1;
    }
    double f = by_steps ? (double)((long long)w->step - c->first_step) / (double)(c->end_steps - c->first_step)
                        : (w->time - c->first_time) / (c->end_time - c->first_time);
    eddy_progress_update(&c->bar, f, w->time, by_steps ? NAN : c->end_time, w->step);
}

/* Steps to the end with the plan every command shares (sim.h). */
int run_step_to_end(run_ctx *c, int *last_written, eddy_error *err)
{
    eddy_world *w = c->sim->world;
    c->first_step = (long long)w->step;
    c->first_time = w->time;
    /* Several processes: one progress report, rank 0's (every rank steps alike). */
    eddy_progress_begin(&c->bar, c->opt->quiet || eddy_decomp_rank() != 0, w->step);
    eddy_dt_tally_begin(&c->dt_tally, c->sim);
    const eddy_session_plan plan = {c->end_steps, c->end_time, on_frame, on_step, NULL, c};
    int rc = eddy_session_run(c->ses, &plan, last_written, err);
    c->frame = eddy_session_next_frame(c->ses);
    eddy_progress_end(&c->bar, w->time, w->step, rc != EDDY_OK);
    eddy_dt_tally_finish(&c->dt_tally, c->sim);
    /* The warning named the first limited step; the step may have shrunk since (the CFL limit follows
     * the fastest particle): how many and how short, once (INFO: the first process, not with --quiet). */
    char said[1024];
    eddy_dt_tally_describe(&c->dt_tally, c->sim->scene.dt, 0, said, sizeof said);
    if (said[0]) eddy_host_log(eddy_services_host(), EDDY_LOG_INFO, NULL, "%s", said);
    return rc;
}

/* Everything after the loop: the final state as a frame (also after an error or an interrupt, since
 * an exploded state shows what went wrong), the end checkpoint (not of an exploded or failed state),
 * the movie, the picture and the hash. */
/* The frame in flight settled (finish_outputs) and its error merged into the run's: it becomes the
 * run's error when the run has none, or when `outranks_interrupt` and the run was interrupted; else it
 * is appended. */
static int finish_outputs_into(run_ctx *c, int rc, int outranks_interrupt, eddy_error *err)
{
    eddy_error derr;
    if (!finish_outputs(c, rc, &derr)) return rc;
    if (!rc || (outranks_interrupt && rc == EDDY_ERR_INTERRUPTED)) {
        *err = derr;
        return derr.code;
    }
    /* (a piece already lost is the run's error: settling finds it again) */
    if (!strstr(err->message, derr.message)) append_message(err, "; %s", derr.message);
    return rc;
}

int run_finish(run_ctx *c, int rc, int last_written, eddy_error *err)
{
    eddy_world *w = c->sim->world;
    /* Several processes: what follows is collective (the final frame, the picture, the summaries). A
     * failure this process met alone (a particle that left the domain within the step, as pbf's
     * predicted positions can; a solver's own error) leaves the others waiting in that step's exchange,
     * and entering a collective here hung both for good. Its frames in flight are completed, then it
     * stops them all with its message, as main would. */
    if (rc && !eddy_decomp_failed_alike(rc, err->message, EDDY_DECOMP_FAILURE_WAIT_S)) {
        eddy_error ignored;
        eddy_output_drain(c->out, &ignored);
        /* (rank 0 failing alone records it: the others stop in their collective, never reaching the end) */
        eddy_run_record_end(c->sim->scene.out_dir, c->sim, rc, err->message);
        eddy_decomp_stop_all("error: ", err->message, 1); /* (an interrupt is always agreed) */
    }
    /* Overlapped output: the frame in flight first, so that its write error is this run's; left to the
     * final frame's write_frame below it would be taken there and, on a run already failed or
     * interrupted, dropped. A lost frame outranks an interrupt: a checkpoint written now would be
     * resumed past the missing frame for good, so the run ends as the synchronous one would have. */
    rc = finish_outputs_into(c, rc, 1, err);
    if (!last_written && c->written_step != (long long)w->step) {
        eddy_error ferr;
        /* At the index of the next regular frame: a resumed run writes that frame over it. */
        if (write_outputs(c, c->frame, &ferr) && !rc) {
            *err = ferr;
            rc = ferr.code;
        }
    }
    /* Overlapped output: the final frame is completed whatever happened (a failed or interrupted run
     * keeps every frame it took), and its write error is this run's when it has none. */
    rc = finish_outputs_into(c, rc, 0, err);
    if (rc == EDDY_OK || rc == EDDY_ERR_INTERRUPTED) {
        eddy_error cerr;
        if (write_checkpoint(c, &cerr)) {
            if (!rc) {
                *err = cerr;
                rc = cerr.code;
            } else {
                /* Status 130 promises the stop's checkpoint (README): without it the run ends as failed,
                 * and says which checkpoint the folder still continues from (an HPC trial's full disk
                 * read "interrupted", 130, and named none). */
                append_message(err, "; the checkpoint could not be written: %s", cerr.message);
                /* (only where the failed write says the previous one stayed: a split run's renames that
                 * failed after its manifest leave no earlier checkpoint to name) */
                if (c->has_checkpoint && strstr(cerr.message, " kept")) {
                    char launch[32];
                    append_message(err, "; once the cause is fixed, continue from the checkpoint of t = %.6g s with: %seddy resume %s",
                                   c->checkpoint_time, launch_prefix(launch, sizeof launch), c->sim->scene.out_dir);
                }
                rc = err->code = cerr.code;
            }
        } else if (rc == EDDY_ERR_INTERRUPTED) {
            char launch[32];
            append_message(err, "; checkpoint written, continue with: %seddy resume %s", launch_prefix(launch, sizeof launch),
                           c->sim->scene.out_dir);
        }
    }
    /* A write that failed (a full disk, a quota) leaves the run resumable from its last checkpoint once
     * there is room; the error said what failed, not that the folder can go on. */
    /* (not after a failed checkpoint: its own message says what is kept, and a split run's manifest that
     * failed after its pieces were put in place leaves no checkpoint to continue from) */
    if (rc == EDDY_ERR_IO && c->has_checkpoint && !c->checkpoint_failed) {
        char launch[32];
        append_message(err, "; the checkpoint of t = %.6g s is kept: once the cause is fixed, continue with: %seddy resume %s",
                       c->checkpoint_time, launch_prefix(launch, sizeof launch), c->sim->scene.out_dir);
    }
    /* The movie after the checkpoint: a missing ffmpeg must not cost the checkpoint. */
    if (c->ren) {
        eddy_error merr;
        int mrc = eddy_render_finish(c->ren, &merr);
        /* Several processes (each has a renderer): rank 0 alone makes the movie, and its failure (no
         * ffmpeg) is every process's, said once, as for the picture below; rank 0 failing alone
         * stopped the others with MPI_Abort. */
        if (eddy_decomp_active(w)) {
            const eddy_error mine = merr;
            mrc = agree_on_frame(c, mrc, &mine, "the movie", &merr);
        }
        if (mrc) {
            if (!rc) {
                *err = merr;
                rc = merr.code;
            }
        } else if (!c->opt->quiet && eddy_decomp_rank() == 0) {
            fprintf(stderr, "render: %s/render%s\n", c->sim->scene.out_dir, c->render.movie ? ", movie.mp4" : "");
        }
    }
    if (c->opt->picture && c->out) {
        char path[EDDY_SCENE_PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/picture.png", c->sim->scene.out_dir);
        eddy_error perr;
        /* The picture reads the particles: the host copy first (a no-op for a CPU solver); on several
         * processes each draws its own and rank 0 composites them and writes the file (collective,
         * host/viz/composite.h: no process holds another's particles). Rank 0's write error is then
         * every process's, agreed: said once, where rank 0 alone failing stopped the others with
         * MPI_Abort. */
        int prc = eddy_world_sync_host(w, &perr);
        if (!prc) prc = eddy_picture_write_world(path, w, &perr);
        if (eddy_decomp_active(w)) {
            const eddy_error mine = perr;
            prc = agree_on_frame(c, prc, &mine, "the picture", &perr);
        }
        if (prc) {
            if (!rc) {
                *err = perr;
                rc = perr.code;
            }
        } else if (!c->opt->quiet && eddy_decomp_rank() == 0) {
            fprintf(stderr, "picture: %s\n", path);
        }
    }
    /* Several processes: how often the slabs were cut again (decomp.h), once. */
    eddy_decomp_balance b;
    if (eddy_decomp_balance_of(w, &b) && eddy_decomp_rank() == 0 && !c->opt->quiet) {
        char thr[32] = "off";
        if (isfinite(b.threshold)) snprintf(thr, sizeof thr, "%g", b.threshold);
        fprintf(stderr, "eddy: %d processes: rebalanced %lld time%s (EDDY_REBALANCE %s), %.1f ms in rebalancing; "
                        "imbalance %.3f, mean %.3f\n", eddy_decomp_size(), b.rebalances, b.rebalances == 1 ? "" : "s",
                thr, 1e3 * b.seconds, b.imbalance, b.mean_imbalance);
    }
    if (rc == EDDY_OK || rc == EDDY_ERR_INTERRUPTED) warn_energy_rise(c);
    /* Particles domain.out_of_domain "remove" deleted in this command's steps: the user asked for it,
     * but a run that lost most of its fluid without a word showed it only in diagnostics.csv's
     * particle column. Summed over the processes (a collective, taken as the halo figures' below). */
    if (rc == EDDY_OK || rc == EDDY_ERR_INTERRUPTED) {
        /* The owned particles this command started with, less those it ends with: eddy_grid.removed
         * counts a process's halo copies too (a split run said 1920 of 1200). Nothing else takes a
         * particle away. */
        double v[2] = {(double)w->grid.removed, (double)(w->particles.count - w->particles.halo_count)};
        eddy_error rerr;
        if ((!eddy_decomp_active(w) || eddy_world_reduce(w, EDDY_REDUCE_SUM, v, 2, &rerr) == EDDY_OK) && v[0] > 0 &&
            eddy_decomp_rank() == 0 && !c->opt->quiet && c->start_particles > v[1]) {
            const double gone = c->start_particles - v[1];
            fprintf(stderr, "eddy: %.0f particle%s left the domain and %s removed (domain.out_of_domain "
                            "\"remove\"); %.0f remain\n",
                    gone, gone == 1 ? "" : "s", gone == 1 ? "was" : "were", v[1]);
        }
    }
    /* Several processes: what the halo updates did (decomp.h), summed over the processes, once. A
     * collective, so only where every process reached the end (like the hash below) or stopped on an
     * interrupt (an interrupted run left them out): under mpirun an interrupt is always agreed, every
     * process stopping after the same step (decomp.h), so all of them come here alike. Whether or not
     * this process is --quiet, which may differ from process to process. */
    if (eddy_decomp_active(w) && (rc == EDDY_OK || rc == EDDY_ERR_INTERRUPTED)) {
        eddy_decomp_timing t;
        eddy_decomp_timing_read(w, &t);
        double v[5] = {(double)t.halo_updates, (double)(t.halo_updates - t.halo_layout_changes), (double)t.halo_added,
                       (double)t.halo_removed, (double)t.migrated};
        eddy_error rerr;
        if (eddy_world_reduce(w, EDDY_REDUCE_SUM, v, 5, &rerr) == EDDY_OK && eddy_decomp_rank() == 0 && !c->opt->quiet)
            fprintf(stderr, "eddy: %d processes: %.0f halo updates, %.0f of them in place; %.0f halo copies appended, "
                            "%.0f removed; %.0f particles migrated\n",
                    eddy_decomp_size(), v[0], v[1], v[2], v[3], v[4]);
    }
    /* The hash of a run that reached its end, and only of one: a failed or interrupted run's state is
     * not the scene's result (its error follows on stderr instead). */
    if (c->opt->hash && rc == EDDY_OK) {
        uint64_t h;
        eddy_error herr;
        /* Over every process (decomp.h), printed once. */
        if (eddy_decomp_hash(w, &h, &herr) == 0) {
            if (eddy_decomp_rank() == 0) printf("state-hash: %016llx\n", (unsigned long long)h);
        } else {
            *err = herr;
            rc = herr.code;
        }
    }
    eddy_run_record_end(c->sim->scene.out_dir, c->sim, rc, rc ? err->message : NULL);
    return rc;
}

void run_announce(run_ctx *c, const char *verb)
{
    eddy_world *w = c->sim->world;
    /* Every process's owned particles (a collective sum, exact below 2^53), not rank 0's slab; taken
     * also where this process is --quiet (another may not be: a collective skipped here hung both). */
    double n = (double)(w->particles.count - w->particles.halo_count);
    eddy_error rerr;
    if (eddy_world_reduce(w, EDDY_REDUCE_SUM, &n, 1, &rerr)) return;
    c->start_particles = n;
    if (eddy_decomp_rank() != 0 || c->opt->quiet) return;
    /* (a resume says where it starts: a job whose stop checkpoint was never written, killed by the
     * launcher, continues from an older periodic one, and the log said nothing of it) */
    char from[96] = "";
    if (w->step > 0) snprintf(from, sizeof from, " from step %llu (t = %.6g s)", (unsigned long long)w->step, w->time);
    fprintf(stderr, "eddy: %s %s%s with %s (grid %s), %.0f particles, %d thread%s -> %s\n", verb, c->sim->scene.name,
            from, c->sim->solver_entry->component->id, c->sim->grid_entry->component->id, n, c->sim->threads,
            c->sim->threads == 1 ? "" : "s", c->sim->scene.out_dir);
}

void run_close_ctx(run_ctx *c)
{
    free(c->open_log);
    c->open_log = NULL;
    eddy_output_destroy(c->out);
    c->out = NULL;
    c->probes_csv = NULL;
    eddy_render_destroy(c->ren);
    c->ren = NULL;
    eddy_probes_destroy(c->probes); /* (closes its instances) */
    c->probes = NULL;
    free(c->probe_values);
    c->probe_values = NULL;
    eddy_session_close(c->ses);
    c->ses = NULL;
    c->sim = NULL;
    /* Last: the output's writer thread and the movie have written their last byte. */
    eddy_folder_lock_release(c->lock);
    c->lock = NULL;
}

/* The scene's "checkpoint": {"every": T} section, in seconds of simulated time (0: absent). */
static int scene_checkpoint_every(const eddy_scene *s, double *every, eddy_error *err)
{
    static const char *const keys[] = {"every", NULL};
    *every = 0.0;
    const cJSON *o = eddy_scene_section(s, "checkpoint");
    if (!o) return EDDY_OK;
    if (!cJSON_IsObject(o)) return eddy_scene_fail_expected(s, err, "checkpoint", o, "an object {\"every\": seconds}");
    int rc = eddy_scene_check_keys(s, err, o, "checkpoint", keys);
    if (!rc) rc = eddy_scene_get_number(s, err, o, "checkpoint", "every", 0, 0.0, INFINITY, 0.0, every, NULL);
    return rc;
}

/* Overlapped output (output.h): on unless the scene's output.overlap, --no-overlap or the environment
 * variable EDDY_OUTPUT_OVERLAP=off turns it off (the variable reaches runs a script cannot change). */
static int overlap_setting(const run_ctx *c, int *overlap, eddy_error *err)
{
    const char *v = getenv("EDDY_OUTPUT_OVERLAP");
    *overlap = c->opt->overlap && c->sim->scene.output_overlap;
    if (!v || strcmp(v, "on") == 0 || strcmp(v, "1") == 0) return EDDY_OK;
    if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0) {
        *overlap = 0;
        return EDDY_OK;
    }
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "environment variable EDDY_OUTPUT_OVERLAP: expected 'on' (frames written on a writer "
                          "thread while the run steps on) or 'off' (written before the next step), got '%.40s'", v);
}

/* The writers of the scene's output.format (or --format, already put into the scene). */
int run_open_output(run_ctx *c, int resume, double resume_time, eddy_error *err)
{
    const eddy_scene *s = &c->sim->scene;
    const char *ids[EDDY_SCENE_FORMAT_MAX];
    for (size_t i = 0; i < s->format_count && i < EDDY_SCENE_FORMAT_MAX; ++i) ids[i] = s->formats[i];
    eddy_output_options oo = eddy_output_default_options();
    oo.formats = ids;
    oo.format_count = s->format_count;
    oo.registry = c->sim->registry;
    oo.scene = s;
    oo.resume = resume;
    oo.resume_time = resume_time;
    oo.piece = eddy_decomp_rank();
    oo.pieces = eddy_decomp_size();
    int rc = overlap_setting(c, &oo.overlap, err);
    if (!rc) rc = eddy_output_create(s->out_dir, &oo, c->sim->world, &c->out, err);
    /* Several processes: a folder one node cannot make (a file in its way, a full disk there) is every
     * process's error, said once; that process stopped the others with MPI_Abort. */
    return eddy_decomp_agree_error(rc, err);
}

/* scene_checkpoint_every on the file as written (eddy_scene_check_written), its value not kept. */
static int written_checkpoint_every(void *user, const eddy_scene *view, eddy_error *err)
{
    (void)user;
    double every;
    return scene_checkpoint_every(view, &every, err);
}

/* The scene's checkpoint section, read once the scene is interpreted and before the world is built
 * (eddy_session_options.check_scene), then --checkpoint-every over it. A value --set replaces is
 * checked as written too, as the scene layer checks its own sections. */
static int check_scene(void *user, const eddy_scene *scene, eddy_error *err)
{
    run_ctx *c = user;
    int rc = eddy_scene_check_written(scene, written_checkpoint_every, NULL, err);
    if (!rc) rc = scene_checkpoint_every(scene, &c->checkpoint_every, err);
    if (!rc && !isnan(c->opt->checkpoint_every)) c->checkpoint_every = c->opt->checkpoint_every;
    return rc;
}

int run_same_everywhere(const eddy_run_options *opt, eddy_error *err)
{
    if (eddy_decomp_size() <= 1) return EDDY_OK;
    int rc = eddy_drive_same_scene(opt->scene_path, err);
    if (rc) return rc;
    /* What every process must agree on: what is simulated and what is written (outputs, the hash and
     * the pictures are collective). Threads and --quiet may differ from node to node. */
    uint64_t h = eddy_fnv1a_str(EDDY_FNV1A_OFFSET, opt->scene_path);
    h = eddy_fnv1a_str(h, opt->resume_dir);
    h = eddy_fnv1a_str(h, opt->solver);
    h = eddy_fnv1a_str(h, opt->grid);
    for (size_t i = 0; i < opt->set_count; ++i) h = eddy_fnv1a_str(h, opt->sets[i]);
    h = eddy_fnv1a_str(h, opt->out_dir);
    for (size_t i = 0; opt->formats && i < opt->format_count; ++i) h = eddy_fnv1a_str(h, opt->formats[i]);
    const double reals[] = {opt->until, opt->checkpoint_every};
    const long long ints[] = {opt->steps, (long long)opt->set_count, (long long)opt->format_count, !!opt->formats,
                              opt->hash, opt->picture, opt->overlap, opt->render.enabled, opt->render.movie,
                              opt->render.width};
    h = eddy_fnv1a(h, reals, sizeof reals);
    h = eddy_fnv1a(h, ints, sizeof ints);
    h = eddy_fnv1a_str(eddy_fnv1a_str(eddy_fnv1a_str(h, opt->render.field), opt->render.camera), opt->render.range);
    const int other = eddy_decomp_first_differing(h);
    if (other < 0) return EDDY_OK;
    /* Every process found the same one: an agreed refusal, said once (main.c). */
    eddy_decomp_set_agreed(EDDY_ERR_INVALID_ARGUMENT);
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "process %d of %d was given another run than process 0 (its --solver, --grid, --set, --out, "
                          "--steps, --until, --format, --checkpoint-every, --hash, --no-picture, --no-overlap or "
                          "rendering options differ): every process of a run must be given the same (--threads and "
                          "--quiet may differ)",
                          other, eddy_decomp_size());
}

int eddy_run(const eddy_run_options *opt, eddy_error *err)
{
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.opt = opt;
    c.written_step = -1;
    int rc0 = run_same_everywhere(opt, err);
    if (rc0) return rc0;
    /* Several processes stop together on SIGINT/SIGTERM (decomp.h). */
    eddy_decomp_set_stop_flag(eddy_services_stop_flag());
    /* --solver, --grid, --out, --format and --set: all into the scene's JSON tree (session.h). */
    eddy_session_options so = eddy_session_default_options();
    so.scene_path = opt->scene_path;
    so.sets = opt->sets;
    so.set_count = opt->set_count;
    so.solver = opt->solver;
    so.grid = opt->grid;
    so.out_dir = opt->out_dir;
    so.formats = opt->formats;
    so.format_count = opt->format_count;
    so.threads = opt->threads;
    so.registry = opt->registry;
    so.check_scene = check_scene;
    so.user = &c;
    eddy_services_capture_begin();
    int rc = eddy_session_open(&so, &c.ses, err);
    c.open_log = eddy_services_capture_end();
    if (rc) {
        free(c.open_log);
        return rc;
    }
    c.sim = eddy_session_sim(c.ses);
    const eddy_component *solver = c.sim->solver_entry->component;
    eddy_drive_warn_unused_sets(&c.sim->scene, c.sim->registry, &solver, 1, opt->sets, opt->set_count);
    if (!realpath(opt->scene_path, c.scene_file)) snprintf(c.scene_file, sizeof c.scene_file, "%s", opt->scene_path);
    c.end_steps = opt->steps;
    c.end_time = isnan(opt->until) ? c.sim->scene.end_time : opt->until;
    if ((rc = eddy_sim_check_end(c.sim, c.end_steps >= 0 ? INFINITY : c.end_time, err)) ||
        (rc = run_keep_render_request(&c, &opt->render, err))) {
        run_close_ctx(&c);
        return rc;
    }
    /* Everything that can refuse this run's input first, the writers' create() included (a plugin's
     * may refuse its parameters): the clearing and the output's tables remove a run already in the
     * folder. The folder is held from before its first look at it (folder_lock.h): another eddy run
     * writing into it is refused, not cleared away. */
    int holds_run = 0;
    if ((rc = run_open_probes(&c, err)) || (rc = run_lock_folder(&c, c.sim->scene.out_dir, 0, err)) ||
        (rc = run_check_folder(&c, &holds_run, err)) ||
        (rc = run_open_renderer(&c, err)) || (rc = run_open_output(&c, 0, 0.0, err)) ||
        (holds_run && (rc = run_clear_folder(&c, err))) || (rc = run_open_probe_table(&c, err))) {
        run_close_ctx(&c);
        return rc;
    }
    run_announce(&c, "running");
    const eddy_run_record_command cmd = {"run", 0, opt->argc, opt->argv, c.open_log, 1};
    if ((rc = eddy_run_record_write(c.sim->scene.out_dir, c.sim, &cmd, err))) {
        run_close_ctx(&c);
        return rc;
    }
    c.wall_start = eddy_time_ms();
    c.next_checkpoint = c.checkpoint_every;
    int last_written = 1;
    rc = write_outputs(&c, c.frame++, err);
    if (!rc) rc = run_step_to_end(&c, &last_written, err);
    rc = run_finish(&c, rc, last_written, err);
    run_close_ctx(&c);
    return rc;
}
