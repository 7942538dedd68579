/*
 * host/drive/resume.c — `eddy resume`: a run continued from its checkpoint, its settings read back and
 * validated, then the same steps as `eddy run` (run_internal.h).
 */
#include "run_internal.h"
#include "run_record.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "decomp.h"
#include "diagnostics.h"
#include "frame.h"
#include "output.h"
#include "picture.h"
#include "probes.h"
#include "progress.h"
#include "canvas.h"
#include "services.h"
#include "session.h"
#include "sim.h"


/*
 * The run's settings as a checkpoint holds them, validated as strictly as the same value given in a
 * scene or on the command line (same ranges), with messages naming the checkpoint and the key: the
 * user of `eddy resume` gave neither the option nor the scene key that a bad value would otherwise be
 * blamed on, and a value cast without a range check (render.width 1e300 to int) is undefined.
 */
static int setting_missing(const eddy_checkpoint *ck, const char *key, eddy_error *err)
{
    return eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint '%s' is corrupt: setting '%s' is missing",
                          eddy_checkpoint_path(ck), key);
}

static int setting_invalid(const eddy_checkpoint *ck, const char *key, const cJSON *v, const char *expected,
                           eddy_error *err)
{
    char *text = cJSON_PrintUnformatted(v);
    int rc = eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint '%s': setting '%s': expected %s, got %.64s",
                            eddy_checkpoint_path(ck), key, expected, text ? text : "?");
    cJSON_free(text);
    return rc;
}

/* obj[name] (key: its name in messages) as a finite number in [lo, hi], a whole one if `whole`. A
 * missing member is an error when `required`, else *out stays. */
static int setting_number(const eddy_checkpoint *ck, const cJSON *obj, const char *name, const char *key, int required,
                          double lo, double hi, int whole, const char *expected, double *out, eddy_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v) return required ? setting_missing(ck, key, err) : EDDY_OK;
    const double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(isfinite(d) && d >= lo && d <= hi && (!whole || d == floor(d))))
        return setting_invalid(ck, key, v, expected, err);
    *out = d;
    return EDDY_OK;
}

/* obj[name] as a string shorter than `cap` (the buffer it is kept in; a longer one would be cut). */
static int setting_string(const eddy_checkpoint *ck, const cJSON *obj, const char *name, const char *key, int required,
                          size_t cap, const char **out, eddy_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v) return required ? setting_missing(ck, key, err) : EDDY_OK;
    if (!cJSON_IsString(v) || !v->valuestring || strlen(v->valuestring) >= cap) {
        char expected[64];
        snprintf(expected, sizeof expected, "a string of at most %zu characters", cap - 1);
        return setting_invalid(ck, key, v, expected, err);
    }
    *out = v->valuestring;
    return EDDY_OK;
}

/* "render": the request of the run that rendered (the strings point into the settings). */
static int render_from_settings(const eddy_checkpoint *ck, const cJSON *r, eddy_render_request *req, eddy_error *err)
{
    *req = eddy_render_default_request();
    req->enabled = 1;
    if (!cJSON_IsObject(r)) return setting_invalid(ck, "render", r, "an object", err);
    const cJSON *movie = cJSON_GetObjectItemCaseSensitive(r, "movie");
    if (movie && !cJSON_IsBool(movie)) return setting_invalid(ck, "render.movie", movie, "true or false", err);
    req->movie = cJSON_IsTrue(movie);
    /* (a default range not settled at the checkpoint: it settles in the resumed run, with the layout kept) */
    const cJSON *pending = cJSON_GetObjectItemCaseSensitive(r, "range_pending");
    if (pending && !cJSON_IsBool(pending)) return setting_invalid(ck, "render.range_pending", pending, "true or false", err);
    req->range_was_pending = cJSON_IsTrue(pending);
    const char *field = NULL, *camera = NULL, *range = NULL;
    double width = 0;
    /* The capacities of run_ctx's copies (keep_render_request). */
    const run_ctx *none = NULL;
    int rc;
    if ((rc = setting_string(ck, r, "field", "render.field", 0, sizeof none->render_field, &field, err)) ||
        (rc = setting_string(ck, r, "camera", "render.camera", 0, sizeof none->render_camera, &camera, err)) ||
        (rc = setting_string(ck, r, "range", "render.range", 0, sizeof none->render_range, &range, err)))
        return rc;
    /* --render-width's range; 0: the width was not given (the scene's or the default). */
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(r, "width");
    if ((rc = setting_number(ck, r, "width", "render.width", 0, 0, EDDY_CANVAS_MAX_SIZE, 1,
                             "a whole number of pixels in [16, 16384], or 0 (not given)", &width, err)))
        return rc;
    if (width != 0 && width < 16)
        return setting_invalid(ck, "render.width", w, "a whole number of pixels in [16, 16384], or 0 (not given)", err);
    req->field = field && *field ? field : NULL;
    req->camera = camera && *camera ? camera : NULL;
    req->range = range && *range ? range : NULL;
    req->width = (int)width;
    return EDDY_OK;
}

/* The writers the run wrote with: "formats" (or, from checkpoints of ABI 1.x runs, write_vtk and
 * write_csv), into c->formats (pointing into the checkpoint's settings). */
static int formats_from_settings(run_ctx *c, const eddy_checkpoint *ck, eddy_error *err)
{
    const cJSON *s = eddy_checkpoint_settings(ck);
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(s, "formats");
    c->format_count = 0;
    if (!f) {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "write_vtk"))) c->formats[c->format_count++] = "vtk";
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "write_csv"))) c->formats[c->format_count++] = "csv";
        return EDDY_OK;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, f) {
        if (!cJSON_IsString(e) || !e->valuestring[0] || strlen(e->valuestring) >= EDDY_SCENE_ID_MAX ||
            c->format_count == EDDY_SCENE_FORMAT_MAX)
            return eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint '%s' is corrupt: setting 'formats' is not a list of "
                                  "writer ids", eddy_checkpoint_path(ck));
        c->formats[c->format_count++] = e->valuestring;
    }
    if (!cJSON_IsArray(f))
        return eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint '%s' is corrupt: setting 'formats' is not a list of "
                              "writer ids", eddy_checkpoint_path(ck));
    return EDDY_OK;
}

/*
 * A component the checkpoint's run used (solver, grid, writer), looked up before its scene is opened:
 * one that is not loaded now (a plugin whose folder is not in EDDY_PLUGIN_PATH this time) is named with
 * the checkpoint, not as an unknown id of the scene file that the run once read.
 */
static int check_component(const run_ctx *c, const eddy_checkpoint *ck, const char *id, const char *interface_id,
                           eddy_error *err)
{
    eddy_registry *reg = c->opt->registry;
    return reg ? eddy_sim_component_not_found(reg, eddy_checkpoint_path(ck), interface_id, id, err) : EDDY_OK;
}

/* Opens the session the checkpoint was written from: its scene document, solver and grid. */
static int open_from_checkpoint(run_ctx *c, const eddy_checkpoint *ck, eddy_error *err)
{
    const eddy_run_options *opt = c->opt;
    const cJSON *s = eddy_checkpoint_settings(ck);
    const char *file = NULL, *solver = NULL, *grid = NULL, *version = NULL;
    double end_steps = -1, end_time = INFINITY, every = 0, next_frame = 0;
    int rc;
    /* A checkpoint of a program's own (eddy_session_checkpoint: "outputs" false) comes with no frames or
     * tables to continue: they start at the resume point, not reported lost one by one. */
    c->fresh_outputs = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(s, "outputs"));
    /* The ids' lengths are the registry's to check: an unknown id is refused by name. */
    if ((rc = setting_string(ck, s, "scene_file", "scene_file", 1, sizeof c->scene_file, &file, err)) ||
        (rc = setting_string(ck, s, "solver", "solver", 1, EDDY_SCENE_PATH_MAX, &solver, err)) ||
        (rc = setting_string(ck, s, "grid", "grid", 1, EDDY_SCENE_PATH_MAX, &grid, err)) ||
        (rc = setting_string(ck, s, "solver_version", "solver_version", 1, EDDY_SCENE_PATH_MAX, &version, err)))
        return rc;
    /* --steps N (N >= 0) or -1, the run ends by time; below 2^63, the range of the long long it becomes. */
    if ((rc = setting_number(ck, s, "end_steps", "end_steps", 1, -1.0, 0x1p63 - 1024.0, 1,
                             "a whole number of steps >= 0, or -1 (the run ends by time)", &end_steps, err)))
        return rc;
    /* --until T (T >= 0). A run that ends by steps may store none (null: a run resumed with --steps,
     * whose end time is infinite), and does not use it. */
    const cJSON *et = cJSON_GetObjectItemCaseSensitive(s, "end_time");
    if (!(end_steps >= 0 && cJSON_IsNull(et)) &&
        (rc = setting_number(ck, s, "end_time", "end_time", 1, 0.0, INFINITY, 0, "a time >= 0 in seconds", &end_time,
                             err)))
        return rc;
    /* The scene's checkpoint.every (>= 0; 0: only at the end). */
    if ((rc = setting_number(ck, s, "checkpoint_every", "checkpoint_every", 1, 0.0, INFINITY, 0,
                             "a time >= 0 in seconds (0: only at the end)", &every, err)) ||
        (rc = setting_number(ck, s, "next_frame", "next_frame", 1, 0.0, INT_MAX - 1, 1,
                             "a whole frame index in [0, 2147483646]", &next_frame, err)))
        return rc;
    snprintf(c->scene_file, sizeof c->scene_file, "%s", file);
    snprintf(c->checkpoint_path, sizeof c->checkpoint_path, "%s", eddy_checkpoint_path(ck));
    c->frame = (int)next_frame;
    c->has_checkpoint = 1; /* (its time: once the session is open, the restored clock) */
    /* The run's energy watch goes on from the run's start (a checkpoint from before it was kept has
     * none: watched from the resume, as then). */
    const cJSON *ew = cJSON_GetObjectItemCaseSensitive(s, "energy_watch");
    if (ew && eddy_energy_watch_from_json(&c->energy, ew))
        return setting_invalid(ck, "energy_watch", ew, "the run's energy watch (state, start, above_floor, rise, "
                               "rise_time, particles, stopped)", err);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(s, "render");
    if (r) {
        eddy_render_request req;
        if ((rc = render_from_settings(ck, r, &req, err)) || (rc = run_keep_render_request(c, &req, err)))
            return rc;
    }
    c->checkpoint_every = isnan(opt->checkpoint_every) ? every : opt->checkpoint_every;
    if (opt->steps >= 0 || !isnan(opt->until)) {
        c->end_steps = opt->steps;
        c->end_time = isnan(opt->until) ? INFINITY : opt->until;
    } else {
        c->end_steps = (long long)end_steps;
        c->end_time = end_time;
    }

    if (!(rc = formats_from_settings(c, ck, err)) &&
        !(rc = check_component(c, ck, solver, EDDY_INTERFACE_SOLVER, err)))
        rc = check_component(c, ck, grid, EDDY_INTERFACE_GRID, err);
    for (size_t i = 0; !rc && i < c->format_count; ++i)
        rc = check_component(c, ck, c->formats[i], EDDY_INTERFACE_WRITER, err);
    /* Several processes: a plugin missing on one node is every process's error before the session's
     * collectives (that process returned alone, and the others waited for it in them). */
    if ((rc = eddy_decomp_agree_error(rc, err))) return rc;
    /* The warning comes before the state is put back, as a resumed run's first words. */
    const eddy_registry_entry *e = opt->registry ? eddy_registry_find(opt->registry, solver, EDDY_INTERFACE_SOLVER) : NULL;
    if (e && strcmp(e->component->version, version) != 0 && !opt->quiet && eddy_decomp_rank() == 0)
        fprintf(stderr, "eddy: warning: the checkpoint was written by %s %s, resuming with %s %s: the result may differ "
                        "from an uninterrupted run\n", solver, version, solver, e->component->version);
    /* The session of the run: its scene document with its solver, grid, writers and this folder (the
     * overrides go into the document, session.h), the checkpoint's state put in without computing the
     * initial one (eddy_session_restore). */
    eddy_session_options so = eddy_session_default_options();
    so.solver = solver;
    so.grid = grid;
    so.out_dir = opt->resume_dir;
    so.formats = c->formats;
    so.format_count = c->format_count;
    so.threads = opt->threads;
    so.registry = opt->registry;
    eddy_services_capture_begin();
    rc = eddy_session_restore(ck, &so, c->frame, &c->ses, err);
    c->open_log = eddy_services_capture_end();
    if (rc) return rc;
    c->sim = eddy_session_sim(c->ses);
    c->checkpoint_time = c->sim->world->time;
    /* The next frame is the first regular one at or after the clock (the frame written at t, when t
     * is a frame time, comes before it): another index would write frames out of order or, from a
     * frame time before the clock, make the plan step backwards toward it. Round-off allowance as
     * the plan's own frame test. */
    const double t = c->sim->world->time, interval = c->sim->scene.output_interval, slack = 1e-6 * interval;
    if (!(t <= c->frame * interval + slack && (c->frame == 0 || t >= (c->frame - 1) * interval - slack))) {
        const double want = ceil(t / interval - 1e-6);
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "checkpoint '%s': setting 'next_frame': expected the first output frame at or after "
                              "the checkpoint's time t = %.9g s (frame %.0f, output_interval %g s), got %d",
                              eddy_checkpoint_path(ck), t, want, interval, c->frame);
    }
    return EDDY_OK;
}

int eddy_resume(const eddy_run_options *opt, eddy_error *err)
{
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.opt = opt;
    c.written_step = -1;
    int rc0 = run_same_everywhere(opt, err);
    if (rc0) return rc0;
    /* Several processes stop together on SIGINT/SIGTERM (decomp.h). */
    eddy_decomp_set_stop_flag(eddy_services_stop_flag());
    /* The folder is held before its checkpoint is read (folder_lock.h): a resume while its run still
     * writes there (or a second resume) is refused, not continued from a checkpoint the run replaces. */
    int rc = run_lock_folder(&c, opt->resume_dir, 1, err);
    if (rc) return rc;
    eddy_checkpoint *ck;
    if ((rc = eddy_checkpoint_read_for_resume(opt->resume_dir, &ck, err))) {
        run_close_ctx(&c);
        return rc;
    }
    rc = open_from_checkpoint(&c, ck, err);
    /* A checkpoint copied in from another run's folder is refused before anything is written: continued,
     * it put its frames, rows and table header among this run's (run_record.h). */
    if (!rc) rc = eddy_run_record_check_checkpoint(opt->resume_dir, c.checkpoint_path, eddy_checkpoint_settings(ck), err);
    eddy_checkpoint_free(ck);
    /* (eddy_session_restore cleared the resume cuts and sent the halo copies again; this clears them
     * where the settings were refused before it ran) */
    eddy_decomp_resume_cuts(NULL, 0, 0, 0.0);
    if (rc) {
        run_close_ctx(&c);
        return rc;
    }
    eddy_world *w = c.sim->world;
    if (run_reached_end(&c)) {
        char end[64];
        if (c.end_steps >= 0) snprintf(end, sizeof end, "step %lld", c.end_steps);
        else snprintf(end, sizeof end, "t = %.6g s", c.end_time);
        if (opt->steps > 0 && opt->steps <= LLONG_MAX - (long long)w->step)
            /* --steps 10 meant as "10 more" is the likely mistake: the total it takes for that. */
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "the run in '%s' is at step %llu (t = %.6g s), already at or past the end --steps %lld "
                                "asks for: --steps is the total step count from the run's start, not more steps "
                                "(--steps %lld takes %lld more)",
                                opt->resume_dir, (unsigned long long)w->step, w->time, opt->steps,
                                (long long)w->step + opt->steps, opt->steps);
        else if (opt->until > 0 && isfinite(w->time + opt->until))
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "the run in '%s' is at step %llu (t = %.6g s), already at or past the end --until %g "
                                "asks for: --until is the end time from the run's start, not more time (--until %.9g "
                                "takes %g s more)",
                                opt->resume_dir, (unsigned long long)w->step, w->time, opt->until,
                                w->time + opt->until, opt->until);
        else
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "the run in '%s' is at step %llu (t = %.6g s), already at or past its end (%s); extend "
                                "it with --steps N or --until T",
                                opt->resume_dir, (unsigned long long)w->step, w->time, end);
        run_close_ctx(&c);
        return rc;
    }
    /* Keep the regular frames up to the checkpoint (run_folder.h). */
    const double resume_time = eddy_run_resume_time(c.frame, c.sim->scene.output_interval);
    /* Probes and renderer before the output, which cuts the tables back to the checkpoint. */
    if ((rc = run_open_probes(&c, err))) {
        /* The probes are the checkpoint's scene's: its error's place is in the text the checkpoint
         * embeds, not in the scene file it names (which may say otherwise now), as the restore's are. */
        if (rc != EDDY_ERR_OUT_OF_MEMORY) eddy_error_prefix(err, "checkpoint '%s': ", c.checkpoint_path);
        run_close_ctx(&c);
        return rc;
    }
    /* The tables' headers and row order, checked before the output cuts anything back (run_folder.h):
     * refused by the output's trim instead, probes.csv would be left whole but frames.pvd and
     * diagnostics.csv already cut back to the checkpoint. */
    if (!c.fresh_outputs && (rc = eddy_run_folder_check_tables(opt->resume_dir, c.probes, err))) {
        run_close_ctx(&c);
        return rc;
    }
    /* The render request is the checkpoint's (as its run was given it), not this command's. */
    if ((rc = run_open_renderer(&c, err))) {
        eddy_error_prefix(err, "checkpoint '%s': setting 'render': ", c.checkpoint_path);
        run_close_ctx(&c);
        return rc;
    }
    if (c.fresh_outputs && (rc = run_refuse_other_outputs(&c, err))) {
        run_close_ctx(&c);
        return rc;
    }
    if ((rc = run_open_output(&c, !c.fresh_outputs, resume_time, err)) || (rc = run_open_probe_table(&c, err))) {
        run_close_ctx(&c);
        return rc;
    }
    run_announce(&c, "resuming");
    const eddy_run_record_command cmd = {"resume", 1, opt->argc, opt->argv, c.open_log, 1};
    if ((rc = eddy_run_record_write(opt->resume_dir, c.sim, &cmd, err))) {
        run_close_ctx(&c);
        return rc;
    }
    c.wall_start = eddy_time_ms();
    c.next_checkpoint = c.checkpoint_every > 0 ? run_checkpoint_after(0.0, c.checkpoint_every, w->time) : 0.0;
    int last_written = 1;
    rc = run_step_to_end(&c, &last_written, err);
    rc = run_finish(&c, rc, last_written, err);
    run_close_ctx(&c);
    return rc;
}
