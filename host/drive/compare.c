/*
 * host/drive/compare.c — `eddy compare`: every solver on the same scene through the session layer,
 * sampled at the same times (diagnostics, probes, first and last frame), then the report
 * (compare_report.c).
 */
#include "compare_internal.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decomp.h"
#include "diagnostics.h"
#include "folder_lock.h"
#include "frame.h"
#include "output.h"
#include "plot.h"
#include "probes.h"
#include "progress.h"
#include "run.h"
#include "run_folder.h"
#include "run_record.h"
#include "same_scene.h"
#include "unused_sets.h"
#include "services.h"
#include "session.h"
#include "sim.h"

static void result_free(result *r)
{
    free(r->t);
    for (int c = 0; c < COL_COUNT; ++c) free(r->col[c]);
    free(r->probe);
}

static int result_add(result *r, double t, const eddy_diagnostics *d, double compression, const double *pv,
                      size_t np)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        double *nt = realloc(r->t, cap * sizeof *nt);
        if (!nt) return -1;
        r->t = nt;
        for (int c = 0; c < COL_COUNT; ++c) {
            double *nc = realloc(r->col[c], cap * sizeof *nc);
            if (!nc) return -1;
            r->col[c] = nc;
        }
        double *npv = realloc(r->probe, (np > 0 ? cap * np : 1) * sizeof *npv);
        if (!npv) return -1;
        r->probe = npv;
        r->cap = cap;
    }
    size_t k = r->n++;
    r->t[k] = t;
    r->col[COL_KE][k] = d->kinetic_energy;
    r->col[COL_PX][k] = d->momentum[0];
    r->col[COL_PY][k] = d->momentum[1];
    r->col[COL_PZ][k] = d->momentum[2];
    r->col[COL_DEM][k] = d->density_error_mean;
    r->col[COL_DMAX][k] = d->density_error_max;
    r->col[COL_DP99][k] = d->density_error_p99;
    r->col[COL_VMAX][k] = d->max_speed;
    r->col[COL_EP][k] = d->potential_energy;
    r->col[COL_MASS][k] = d->mass;
    r->col[COL_CMAX][k] = compression;
    for (size_t i = 0; i < np; ++i) r->probe[k * np + i] = pv[i];
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* Running one solver                                                                                */
/* ------------------------------------------------------------------------------------------------ */


typedef struct sampler {
    eddy_output *out;
    FILE *probes_csv;
    char probes_path[PATH_MAX_ + ID_MAX + 16];
    double *values;
    double wall_start;
} sampler;

/*
 * Several processes (docs/mpi.md): what failed on one process (a file rank 0 could not write, a scene
 * one node cannot read) fails the solver on every one, with the lowest failing process's message
 * (eddy_decomp_agree_error), so that all go on to the next solver together instead of one waiting in a
 * collective, and rank 0's report says what failed (it said "another process failed" where rank 0
 * was not the one). The failure is agreed: the comparison goes on with the next solver, and the report
 * is kept. In one process: rc.
 */
static int agree(int rc, eddy_error *err)
{
    return eddy_decomp_agree_error(rc, err);
}

/*
 * The largest compression rho / rho0 - 1 of the frame's particles (0 when none is compressed; NaN when a
 * density is). The density error's maximum |rho / rho0 - 1| is a particle flying alone (its summation
 * density is its own contribution, far below rho0) or a free-surface corner; compression is what a
 * solver's incompressibility is about, and such particles have none. O(N), on the frame already taken.
 */
static double compression_max(const eddy_frame *frame)
{
    const eddy_world *w = frame->world;
    const eddy_particles *p = &w->particles;
    double c = 0.0;
    for (size_t k = 0; k < frame->count; ++k) {
        const size_t i = frame->order[k];
        const uint32_t m = p->material[i];
        if (m >= w->material_count) continue; /* (the diagnostics refused it already) */
        const double e = (double)p->density[i] / w->materials[m].rest_density - 1.0;
        if (isnan(e)) return NAN;
        if (e > c) c = e;
    }
    return c;
}

/* Whether some particle of the frame has a pressure other than 0 (result.pressure_seen says why);
 * stops at the first, so a solver with a pressure field pays next to nothing. */
static int any_pressure(const eddy_frame *frame)
{
    const eddy_real *pressure = frame->world->particles.pressure;
    for (size_t k = 0; k < frame->count; ++k)
        if (pressure[frame->order[k]] != 0) return 1;
    return 0;
}

/* The diagnostics, the probes and (write) the frame of one sample, of the sim's time and step. */
static int sample_frame(const context *cx, sampler *s, const eddy_sim *sim, const eddy_frame *frame, result *r,
                        int write, eddy_error *err)
{
    const eddy_world *w = sim->world;
    eddy_diagnostics d;
    int rc = eddy_diagnostics_of_frame(frame, &d, err);
    if (!rc) eddy_energy_watch_frame(&r->energy, sim, &d, w->time);
    if (!rc) rc = eddy_probes_measure(cx->probes, frame, s->values, err);
    if (!rc) rc = eddy_output_write_diagnostics(s->out, &d, w->time, w->step, eddy_time_ms() - s->wall_start, err);
    if (!rc && write) rc = eddy_output_write_frame(s->out, frame, err);
    if (rc) return rc;
    if (s->probes_csv) {
        eddy_probes_csv_row(cx->probes, s->probes_csv, w->time, w->step, s->values);
        if (fflush(s->probes_csv) != 0 || ferror(s->probes_csv))
            return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", s->probes_path, strerror(errno));
    }
    if (!r->pressure_seen) r->pressure_seen = any_pressure(frame);
    if (result_add(r, w->time, &d, compression_max(frame), s->values, eddy_probes_count(cx->probes)))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    return EDDY_OK;
}

/* One sample: the frame snapshot (frame.h) for the diagnostics, the probes and, when write_index >= 0,
 * the writers (frame write_index). On several processes every process's owned particles are gathered to
 * rank 0 (collective), which samples them as one process would: the same sums over the same particles
 * in the same id order, so the report equals one process's. */
static int take_sample(const context *cx, sampler *s, eddy_sim *sim, result *r, long long write_index,
                       eddy_error *err)
{
    eddy_world *w = sim->world;
    const uint64_t index = write_index >= 0 ? (uint64_t)write_index : 0;
    eddy_frame frame;
    int rc;
    if (eddy_decomp_active(w)) {
        eddy_world *whole = NULL;
        rc = eddy_decomp_gather_whole(w, &whole, err);
        if (!rc && whole) {
            if (!(rc = eddy_frame_of_host_copy(whole, index, &frame, err))) {
                rc = sample_frame(cx, s, sim, &frame, r, write_index >= 0, err);
                eddy_frame_release(&frame);
            }
        }
        eddy_decomp_release_whole(w, whole);
        return agree(rc, err);
    }
    if ((rc = eddy_frame_take(w, index, &frame, err))) return rc;
    rc = sample_frame(cx, s, sim, &frame, r, write_index >= 0, err);
    eddy_frame_release(&frame);
    return rc;
}

/* What the plan's callbacks need (eddy_sim_run_plan, sim.h: the stepping of `eddy run`, so that the
 * states are the same as a run's). */
typedef struct stepper {
    const context *cx;
    sampler *s;
    eddy_sim *sim;
    result *r;
    const eddy_sim_plan *plan; /* its end, for eddy_sim_plan_done */
    eddy_progress bar;
    eddy_dt_tally dt_tally;    /* the steps its stable-dt limit shortened, for the report (as eddy run says) */
} stepper;

/* Every sample time; the one that ends the plan also writes the last state's frame. */
static int on_sample(void *user, eddy_session *ses, int frame, eddy_error *err)
{
    (void)ses;
    stepper *st = user;
    const int last = eddy_sim_plan_done(st->sim, st->plan);
    return take_sample(st->cx, st->s, st->sim, st->r, last ? frame : -1, err);
}

static void on_step(void *user, eddy_session *ses, double step_ms)
{
    (void)ses;
    stepper *st = user;
    const options *o = st->cx->opt;
    const eddy_world *w = st->sim->world;
    st->r->step_ms += step_ms;
    st->r->steps = w->step;
    const int by_steps = o->steps >= 0;
    eddy_dt_tally_step(&st->dt_tally, st->sim);
    double f = by_steps ? (double)w->step / (double)(o->steps ? o->steps : 1) : w->time / st->cx->end_time;
    eddy_progress_update(&st->bar, f, w->time, by_steps ? NAN : st->cx->end_time, w->step);
}

/* The solver's parameters as the session resolved them (the scene's values, else the table's defaults):
 * what differs between solvers beyond the scene, in the report. A DERIVED one the scene left unset is
 * computed by the solver ("derived"). */
static void describe_settings(const eddy_param_values *pv, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = 0; k < pv->count && n < size; ++k) {
        const eddy_param_desc *d = eddy_param_at(pv->desc, k);
        const eddy_param_value *v = &pv->values[k];
        char value[128];
        if (!v->is_set) snprintf(value, sizeof value, "derived");
        else if (d->type == EDDY_PARAM_ENUM || d->type == EDDY_PARAM_STRING)
            snprintf(value, sizeof value, "\"%s\"", v->string ? v->string : "");
        else if (d->type == EDDY_PARAM_BOOL) snprintf(value, sizeof value, "%s", v->integer ? "true" : "false");
        else if (d->type == EDDY_PARAM_VECTOR && v->count == 3)
            snprintf(value, sizeof value, "[%.6g, %.6g, %.6g]", v->vector[0], v->vector[1], v->vector[2]);
        else if (d->type == EDDY_PARAM_VECTOR && v->count == 2)
            snprintf(value, sizeof value, "[%.6g, %.6g]", v->vector[0], v->vector[1]);
        else snprintf(value, sizeof value, "%.6g", v->number);
        const int unit =
            v->is_set && d->unit && d->unit[0] && strcmp(d->unit, "1") != 0 && d->type != EDDY_PARAM_ENUM;
        const int w = snprintf(out + n, size - n, "%s%s = %s%s%s", k ? ", " : "", d->id, value, unit ? " " : "",
                               unit ? d->unit : "");
        if (w < 0) break;
        n += (size_t)w;
    }
}

/* One solver through the scene (the k-th of the options), into its folder, which main() holds. */
static int run_solver(const context *cx, result *r, int k, eddy_error *err)
{
    const options *o = cx->opt;
    /* The scene with this solver: --set and the solver id through the session's one override path. */
    eddy_session_options so = eddy_session_default_options();
    so.scene_path = o->scene_path;
    so.scene_text = o->scene_path ? NULL : o->scene_text;
    so.scene_name = o->scene_name;
    so.sets = o->sets;
    so.set_count = o->set_count;
    so.solver = r->id;
    so.grid = o->grid;
    so.threads = o->threads;
    so.registry = cx->registry;
    eddy_session *ses;
    eddy_services_capture_begin();
    int rc = eddy_session_open(&so, &ses, err), recorded = 0;
    char *open_log = eddy_services_capture_end();
    if (rc) {
        free(open_log);
        return rc;
    }
    eddy_sim *sim = eddy_session_sim(ses);
    eddy_world *w = sim->world;
    r->ran = 1;
    describe_settings(&sim->params, r->settings, sizeof r->settings);
    /* Several processes (docs/mpi.md): the run is split as `eddy run` splits it; rank 0 samples the
     * gathered particles and writes every file, the others step. */
    const int writes = eddy_decomp_rank() == 0;
    sampler s; /* before the first jump to done, which closes what it holds */
    memset(&s, 0, sizeof s);
    double owned = (double)(w->particles.count - w->particles.halo_count);
    if ((rc = eddy_world_reduce(w, EDDY_REDUCE_SUM, &owned, 1, err))) goto done;
    r->particles = (size_t)owned;

    char dir[PATH_MAX_ + ID_MAX + 2];
    snprintf(dir, sizeof dir, "%s/%s", cx->out_dir, r->id);
    const char *ids[EDDY_SCENE_FORMAT_MAX];
    for (size_t i = 0; i < sim->scene.format_count && i < EDDY_SCENE_FORMAT_MAX; ++i) ids[i] = sim->scene.formats[i];
    eddy_output_options oo = eddy_output_default_options();
    oo.formats = ids;
    oo.format_count = sim->scene.format_count;
    oo.registry = cx->registry;
    oo.scene = &sim->scene;
    const size_t np = eddy_probes_count(cx->probes);
    s.values = calloc(np + 1, sizeof *s.values);
    if (!s.values) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        goto agreed;
    }
    /* A finished run found there (an earlier comparison's, an `eddy run`'s) is cleared once the output
     * is made, as `eddy run` clears it: its frames, probe table, picture and checkpoint, which a later
     * `eddy resume` would otherwise have continued among this comparison's files. Collective. */
    if (writes) rc = eddy_output_create(dir, &oo, w, &s.out, err);
    if ((rc = agree(rc, err)) || (cx->holds_run[k] && (rc = eddy_run_folder_clear(dir, err)))) goto done;
    if (writes && (rc = eddy_probes_open(cx->probes, w, sim->host, err))) goto agreed;
    if (writes && np) {
        snprintf(s.probes_path, sizeof s.probes_path, "%s/probes.csv", dir);
        if (!(s.probes_csv = fopen(s.probes_path, "w"))) {
            rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", s.probes_path, strerror(errno));
            goto agreed;
        }
        eddy_probes_csv_header(cx->probes, s.probes_csv);
    }
agreed:
    if ((rc = agree(rc, err))) goto done;
    {
        /* What made this solver's files (run_record.h), with what it derived, which a quiet comparison
         * (the Python package's always is) showed nowhere. Collective; rank 0 writes. */
        const eddy_run_record_command cmd = {"compare", 0, o->argc, o->argv, open_log, 1};
        if ((rc = eddy_run_record_write(dir, sim, &cmd, err))) goto done;
        recorded = 1;
    }
    if (!o->quiet && writes)
        fprintf(stderr, "compare: %s with %s (grid %s), %zu particles, %d thread%s -> %s\n", sim->scene.name, r->id,
                sim->grid_entry->component->id, r->particles, sim->threads, sim->threads == 1 ? "" : "s", dir);

    s.wall_start = eddy_time_ms();
    int frame = 0;
    if ((rc = take_sample(cx, &s, sim, r, frame, err))) goto done;
    ++frame;
    stepper st = {cx, &s, sim, r, NULL, {0}, {0}};
    eddy_dt_tally_begin(&st.dt_tally, sim);
    eddy_progress_begin(&st.bar, o->quiet || !writes, sim->world->step);
    const eddy_sim_plan end = {o->steps, cx->end_time, frame, NULL, NULL, NULL, NULL, NULL};
    st.plan = &end;
    const eddy_session_plan plan = {o->steps, cx->end_time, on_sample, on_step, NULL, &st};
    int last_sampled = 1;
    rc = eddy_session_run(ses, &plan, &last_sampled, err);
    /* Several processes: an explosion, an interrupt and a particle leaving the domain are agreed by
     * every process (the step's statistics, the domain count and the signal are reduced before they
     * are judged: eddy_decomp_is_agreed), so all go on to the next solver alike, as do failures every
     * process met in the same words. Any other failure (out of memory, a solver's own error, a particle
     * that left the domain within the step) happened on this process alone while the others wait in
     * the step's exchange: stop them all with its message, as `eddy run` does, instead of hanging. */
    if (rc && !eddy_decomp_failed_alike(rc, err->message, EDDY_DECOMP_FAILURE_WAIT_S))
        eddy_decomp_stop_all("error: ", err->message, 1);
    frame = eddy_session_next_frame(ses);
    r->steps = w->step;
    /* The last state is always sampled and written, also an exploded one: it shows what went wrong
     * (a last regular sample wrote its frame in on_sample). */
    eddy_error ferr;
    int frc = EDDY_OK;
    if (!last_sampled) frc = take_sample(cx, &s, sim, r, frame, &ferr);
    if (frc && !rc) {
        *err = ferr;
        rc = frc;
    }
    eddy_progress_end(&st.bar, w->time, w->step, rc != EDDY_OK);
    /* As eddy run warns at its end (also of an interrupted run), naming the solver among several. */
    if (writes && (rc == EDDY_OK || rc == EDDY_ERR_INTERRUPTED)) eddy_energy_watch_warn(&r->energy, &sim->scene, r->id);
    /* The time step: the scene's, unless the solver's stable-dt limit shortened steps (eddy run warns of
     * it and says these figures at its end; here the report says them). */
    eddy_dt_tally_finish(&st.dt_tally, sim);
    eddy_dt_tally_describe(&st.dt_tally, sim->scene.dt, 1, r->stepping, sizeof r->stepping);
done:
    /* (how this solver's run ended, as `eddy run` records it: a reader tells a finished comparison from
     * a killed one; a comparison's folders are not kept for it, run_record.h) */
    if (recorded) eddy_run_record_end(dir, sim, rc, rc ? err->message : NULL);
    if (!r->stepping[0]) snprintf(r->stepping, sizeof r->stepping, "the scene's time step, %.6g s", sim->scene.dt);
    r->end_time = sim->world ? sim->world->time : 0;
    r->steps = sim->world ? sim->world->step : 0;
    if (s.probes_csv && fclose(s.probes_csv) != 0 && !rc)
        rc = eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", s.probes_path, strerror(errno));
    eddy_output_destroy(s.out);
    if (writes) eddy_probes_close(cx->probes);
    free(s.values);
    free(open_log);
    eddy_session_close(ses);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* The command                                                                                       */
/* ------------------------------------------------------------------------------------------------ */

/* The --set overrides none of the compared solvers can use (unused_sets.h), said before the runs. */
/* Each solver is registered and its parameters' values (its section, --set) are valid, before the
 * first runs: a mistake in the last solver's was met after the others had run to their end. Then the
 * overrides none of them reads are warned of (only of a comparison that runs). */
static int check_solvers(const eddy_scene *scene, eddy_registry *reg, const options *o, eddy_error *err)
{
    eddy_scene with = *scene; /* (read only: the run's grid, --grid replacing the scene's) */
    if (o->grid) snprintf(with.grid, sizeof with.grid, "%s", o->grid);
    const eddy_component *solvers[MAX_SOLVERS];
    size_t n = 0;
    for (int k = 0; k < o->solver_count && k < MAX_SOLVERS; ++k) {
        snprintf(with.solver, sizeof with.solver, "%s", o->solvers[k]);
        int rc = eddy_sim_check_components(&with, reg, err);
        if (rc) return rc;
        solvers[n++] = eddy_registry_find(reg, o->solvers[k], EDDY_INTERFACE_SOLVER)->component;
    }
    snprintf(with.solver, sizeof with.solver, "%s", scene->solver);
    eddy_drive_warn_unused_sets(&with, reg, solvers, n, o->sets, o->set_count);
    return EDDY_OK;
}

/* What the report needs to judge the energy and the momentum (context, compare_internal.h). */
static void describe_conservation(const eddy_scene *scene, context *cx)
{
    cx->dimensions = scene->dimensions;
    int gravity = 0, walls = 0;
    cx->g_dot_floor = eddy_scene_gravity_floor(scene);
    for (int a = 0; a < scene->dimensions; ++a) {
        gravity |= scene->gravity[a] != 0;
        walls |= scene->has_container && !scene->periodic[a];
    }
    const char *why = gravity ? "gravity" : walls ? "walls" : scene->collider_count ? "colliders" : "";
    snprintf(cx->momentum_na, sizeof cx->momentum_na, "%s", why);
    /* (what a resolution study changes, on every row: a table read alone says which run it was) */
    const double scale = scene->simulation_scale;
    cx->materials = scene->material_count;
    cx->spacing = scene->material_count ? (double)scene->materials[0].particle_dist / scale : NAN;
    cx->smoothing_radius = (double)scene->smoothing_radius / scale;
}

/* A summary that cannot be written fails the same way after every solver and at the end: said once
 * (it was said once per solver and again at the end), a different message again. */
static void say_summary_error(char *said, const eddy_error *serr)
{
    if (strcmp(said, serr->message) == 0) return;
    eddy_services_say("error: ", serr->message);
    snprintf(said, EDDY_ERROR_MESSAGE_MAX, "%s", serr->message);
}

static int compare_run(const eddy_compare_options *opt)
{
    const options o = *opt;
    int rc;
    /* Several processes (docs/mpi.md): every process runs every solver's decomposed steps; rank 0
     * alone writes the files, the report and the messages. */
    const int writes = eddy_decomp_rank() == 0;
    eddy_services_set_quiet(o.quiet);

    context cx;
    memset(&cx, 0, sizeof cx);
    cx.opt = &o;
    eddy_error err;
    eddy_error_clear(&err);
    eddy_scene scene;
    eddy_probes *probes = NULL;
    result *res = NULL;
    int status = 0;
    char plots_dir[PATH_MAX_ + 8] = "";
    eddy_folder_lock *lock = NULL; /* the comparison's folder (rank 0), held until the report is written */
    char summary_said[EDDY_ERROR_MESSAGE_MAX] = "";
    /* A scene one process cannot read goes through the agreement below like any other error of the
     * set-up: returning alone left the others waiting in it. One that differs between the nodes ran
     * to a report mixing both. */
    /* (a scene given as text is one process's: the Python package's, which runs on one) */
    if (!(rc = o.scene_path ? eddy_drive_same_scene(o.scene_path, &err) : EDDY_OK) &&
        !(rc = o.scene_path ? eddy_scene_load(o.scene_path, o.sets, o.set_count, &scene, &err)
                            : eddy_scene_parse(o.scene_text ? o.scene_text : "",
                                               o.scene_name ? o.scene_name : "scene.json", o.sets, o.set_count,
                                               &scene, &err))) {
        if (o.registry) cx.registry = o.registry;
        else rc = eddy_services_registry(1, &cx.registry, &err);
        if (!rc) rc = eddy_probes_parse(&scene, cx.registry, &probes, &err);
        if (!rc) rc = check_solvers(&scene, cx.registry, &o, &err);
        snprintf(cx.scene_name, sizeof cx.scene_name, "%s", scene.name);
        cx.end_time = isnan(o.until) ? scene.end_time : o.until;
        cx.interval = scene.output_interval;
        cx.particles = eddy_scene_count_particles(&scene);
        describe_conservation(&scene, &cx);
        if (o.out_dir) snprintf(cx.out_dir, sizeof cx.out_dir, "%s", o.out_dir);
        else snprintf(cx.out_dir, sizeof cx.out_dir, "out/compare/%s", scene.name);
        eddy_scene_free(&scene);
        cx.probes = probes;
        snprintf(plots_dir, sizeof plots_dir, "%s/plots", cx.out_dir);
        /* The folder is made and held before anything in it is written or removed (folder_lock.h): a
         * comparison (or a run) writing into it already is refused. */
        if (!rc && writes &&
            !(rc = eddy_folder_lock_take(cx.out_dir, EDDY_FOLDER_MAKE, "choose another --out", &lock, &err)))
            rc = eddy_output_make_dirs(plots_dir, &err);
        /* A summary that cannot be written (a folder in its place) is refused before the solvers run,
         * not after every one of them has. */
        static const char *const SUMMARIES[] = {"summary.csv", "summary.md"};
        for (size_t k = 0; !rc && writes && k < sizeof SUMMARIES / sizeof SUMMARIES[0]; ++k) {
            char *path = eddy_output_join_path(cx.out_dir, SUMMARIES[k]);
            struct stat st;
            if (path && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
                rc = eddy_error_set(&err, EDDY_ERR_IO, "cannot write '%s': %s", path, strerror(EISDIR));
            free(path);
        }
    }
    if (opt->setup_error) eddy_error_clear(opt->setup_error);
    /* Every solver's folder is held from here to the end (folder_lock.h), so that an eddy run started
     * into one while another solver runs is refused, and judged by `eddy run`'s rules before any solver
     * runs: one holding a run stopped before its end (its checkpoint is work `eddy resume` continues) or
     * files of the user's named as a run's refuses the comparison with nothing lost. Collective. */
    eddy_folder_lock *solver_lock[EDDY_COMPARE_MAX_SOLVERS] = {0};
    int holds_run[EDDY_COMPARE_MAX_SOLVERS] = {0};
    cx.holds_run = holds_run;
    rc = agree(rc, &err);
    for (int k = 0; !rc && k < o.solver_count; ++k) {
        char dir[PATH_MAX_ + ID_MAX + 2];
        snprintf(dir, sizeof dir, "%s/%s", cx.out_dir, o.solvers[k]);
        if (writes) rc = eddy_folder_lock_take(dir, EDDY_FOLDER_MAKE, "choose another --out", &solver_lock[k], &err);
        if (!(rc = agree(rc, &err)) && !(rc = eddy_run_folder_check(dir, "choose another --out", &holds_run[k], &err)) &&
            !holds_run[k])
            rc = eddy_run_folder_refuse_foreign(dir, "choose another --out", &err);
    }
    if (rc) {
        /* (every process holds the lowest failing process's error: rank 0 says it, once) */
        if (opt->setup_error) *opt->setup_error = err;
        else if (writes) eddy_services_say("error: ", err.message);
        for (int k = 0; k < o.solver_count; ++k) eddy_folder_lock_release(solver_lock[k]);
        eddy_folder_lock_release(lock);
        eddy_probes_destroy(probes);
        if (!o.registry) eddy_registry_destroy(cx.registry);
        return 1;
    }
    eddy_services_install_signal_handlers();
    volatile sig_atomic_t *stop_signal = eddy_services_stop_flag();
    /* Several processes stop together on SIGINT/SIGTERM, after the same step (decomp.h). */
    eddy_decomp_set_stop_flag(stop_signal);

    res = calloc((size_t)o.solver_count, sizeof *res);
    if (!res) {
        fprintf(stderr, "eddy: error: out of memory\n");
        status = 1;
        goto done;
    }
    int failed = 0;
    for (int k = 0; k < o.solver_count; ++k) {
        result *r = &res[k];
        snprintf(r->id, sizeof r->id, "%s", o.solvers[k]);
        if (*stop_signal) continue;
        eddy_error_clear(&err);
        if ((rc = run_solver(&cx, r, k, &err))) {
            /* A failure this process met alone before the steps (its plugin folder lacks the solver)
             * leaves the others in the session's first collective: stop them all, as `eddy run` does. */
            if (!eddy_decomp_failed_alike(rc, err.message, EDDY_DECOMP_FAILURE_WAIT_S))
                eddy_decomp_stop_all("error: ", err.message, 1);
            r->failed = 1;
            snprintf(r->error, sizeof r->error, "%s", err.message);
            if (writes) {
                char kind[ID_MAX + 16];
                snprintf(kind, sizeof kind, "error: %s: ", r->id);
                eddy_services_say(kind, err.message);
            }
            ++failed;
            if (rc == EDDY_ERR_INTERRUPTED) {
                r->interrupted = 1;
                status = 130;
            }
        }
        /* After every solver, so that an interrupted comparison keeps what it has. */
        eddy_error serr;
        if (writes && (compare_write_summary_csv(&cx, res, k + 1, &serr) ||
                       compare_write_summary_md(&cx, res, k + 1, NULL, 0, &serr))) {
            say_summary_error(summary_said, &serr);
            status = status ? status : 1;
        }
    }

    /* A signal that came outside a solver's steps (while its last frame was written, between solvers)
     * stopped no run, but skipped the solvers after it: the comparison was interrupted all the same. */
    const int stopped_by = (int)*stop_signal;
    char not_run[MAX_SOLVERS * (ID_MAX + 2)] = "";
    for (int k = 0, n = 0; stopped_by && k < o.solver_count; ++k)
        if (!res[k].ran && !res[k].failed)
            n += snprintf(not_run + n, sizeof not_run - (size_t)n, "%s%s", n ? ", " : "", res[k].id);
    if (stopped_by) status = 130;

    if (!writes) {
        if (!status && failed) status = 1;
        goto done;
    }
    plotter pl;
    memset(&pl, 0, sizeof pl);
    pl.cx = &cx;
    pl.res = res;
    pl.count = o.solver_count;
    compare_draw_plots(&pl);
    eddy_error serr;
    const int summary_failed = compare_write_summary_csv(&cx, res, o.solver_count, &serr) ||
                               compare_write_summary_md(&cx, res, o.solver_count, pl.list, pl.plot_count, &serr);
    if (summary_failed) {
        say_summary_error(summary_said, &serr);
        pl.failures++;
    }
    if (!o.no_stdout) {
        compare_summary_md(stdout, &cx, res, o.solver_count, pl.list, pl.plot_count);
        fflush(stdout);
    }
    if (!o.quiet && !summary_failed)
        fprintf(stderr, "compare: summary in %s/summary.md and summary.csv, plots in %s\n", cx.out_dir, plots_dir);
    if (failed && status != 130)
        fprintf(stderr, "eddy: error: %d of %d solvers failed (see %s/summary.md)\n", failed, o.solver_count,
                cx.out_dir);
    char sig[48];
    if (not_run[0])
        fprintf(stderr, "eddy: interrupted by %s; not run: %s (see %s/summary.md)\n",
                eddy_services_signal_text(stopped_by, sig, sizeof sig), not_run, cx.out_dir);
    if (!status && (failed || pl.failures)) status = 1;
    compare_free_plots(&pl);
done:
    for (int k = 0; k < o.solver_count; ++k) eddy_folder_lock_release(solver_lock[k]);
    eddy_folder_lock_release(lock);
    for (int k = 0; res && k < o.solver_count; ++k) result_free(&res[k]);
    free(res);
    eddy_probes_destroy(probes);
    if (!o.registry) eddy_registry_destroy(cx.registry);
    return status;
}

/* --quiet is process-wide (services.h); a library caller (the Python package) keeps its own setting
 * for the sessions it opens after the comparison. */
int eddy_compare_run(const eddy_compare_options *opt)
{
    const int caller_quiet = eddy_services_quiet();
    const int status = compare_run(opt);
    eddy_services_set_quiet(caller_quiet);
    return status;
}
