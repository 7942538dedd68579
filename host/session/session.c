#include "session.h"

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "decomp.h"
#include "fnv1a.h"
#include "frame.h"
#include "output.h"
#include "services.h"

#include <eddy_sph/simd_path.h>

struct eddy_session {
    eddy_sim sim;
    int next_frame;           /* index of the next output frame */
    int failed_frame;         /* a frame landed on whose on_frame failed (settle_frame), or -1 */
    int restored;             /* opened from a checkpoint: its folder may hold the outputs of the run */
    int restored_without_outputs; /* ... whose settings say "outputs": false (eddy_session_checkpoint) */
    char *outputs_dir;        /* the folder a driver writes this session's frames and tables into, or NULL */
    pid_t pid;                /* the process that opened it (eddy_session_check_process) */
};

eddy_session_options eddy_session_default_options(void)
{
    eddy_session_options o;
    memset(&o, 0, sizeof o);
    return o;
}

/* ------------------------------------------------------------------------------------------------ */
/* Overrides: the one path is the scene's JSON tree (scene.h's --set), so each option becomes a set   */
/* whose value is JSON text (a string encoded as one, never re-read as a number or boolean).          */
/* ------------------------------------------------------------------------------------------------ */

typedef struct set_list {
    const char **sets;        /* the caller's, then ours */
    char **owned;             /* ours, freed */
    size_t count, owned_count;
} set_list;

static void set_list_free(set_list *l)
{
    for (size_t i = 0; i < l->owned_count; ++i) cJSON_free(l->owned[i]);
    free(l->owned);
    free(l->sets);
    memset(l, 0, sizeof *l);
}

/* Appends "path=<value as JSON>"; takes `value` (deleted here). */
static int add_set(set_list *l, const char *path, cJSON *value)
{
    char *json = value ? cJSON_PrintUnformatted(value) : NULL;
    cJSON_Delete(value);
    char *set = json ? malloc(strlen(path) + strlen(json) + 2) : NULL;
    if (set) sprintf(set, "%s=%s", path, json);
    cJSON_free(json);
    if (!set) return -1;
    l->owned[l->owned_count++] = set;
    l->sets[l->count++] = set;
    return 0;
}

static int make_sets(const eddy_session_options *o, int with_user_sets, set_list *l, eddy_error *err)
{
    memset(l, 0, sizeof *l);
    const size_t user = with_user_sets ? o->set_count : 0;
    l->sets = malloc((user + 4) * sizeof *l->sets);
    l->owned = malloc(4 * sizeof *l->owned);
    if (!l->sets || !l->owned) goto oom;
    for (size_t i = 0; i < user; ++i) l->sets[l->count++] = o->sets[i];
    if ((o->solver && add_set(l, "solver", cJSON_CreateString(o->solver))) ||
        (o->grid && add_set(l, "grid", cJSON_CreateString(o->grid))) ||
        (o->out_dir && add_set(l, "output.dir", cJSON_CreateString(o->out_dir))))
        goto oom;
    if (o->formats) {
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; a && i < o->format_count; ++i) {
            cJSON *id = cJSON_CreateString(o->formats[i]);
            if (!id || !cJSON_AddItemToArray(a, id)) {
                cJSON_Delete(id);
                cJSON_Delete(a);
                a = NULL;
            }
        }
        if (!a || add_set(l, "output.format", a)) goto oom;
    }
    return EDDY_OK;
oom:
    set_list_free(l);
    return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
}

/* ------------------------------------------------------------------------------------------------ */

/* GNU OpenMP keeps the threads of a process's parallel regions for its next one, and a child made by
 * fork() inherits that record but not the threads: its first region on more than one thread waits for
 * them for ever (a multiprocessing worker's own Simulation hung in its open). The process whose sessions
 * set more than one thread (0: none yet), so that one forked from it runs its sessions on one (whichever
 * OpenMP the build links: LLVM's could start them again, but one thread is safe with either). */
static atomic_long threads_started_in;
static atomic_long said_one_thread_in;
/* Sessions open in this process, for eddy_session_set_mpi_comm. */
static atomic_long sessions_open;

long eddy_session_open_count(void)
{
    return atomic_load(&sessions_open);
}

/* The thread count option a session opened with `o` on `scene` gets in this process. */
static int threads_here(const eddy_session_options *o, const eddy_scene *scene)
{
    const long started = atomic_load(&threads_started_in), me = (long)getpid();
    if (!started || started == me) return o->threads;
    const int wanted = o->threads > 0 ? o->threads : scene->threads;
    if (wanted != 1 && atomic_exchange(&said_one_thread_in, me) != me)
        fprintf(stderr, "eddy: notice: this process is a fork of process %ld, where eddy ran on several threads; "
                        "OpenMP cannot start threads again in a forked child, so simulations here run on 1 thread "
                        "(multiprocessing's 'spawn' or 'forkserver' start method runs them on several)\n", started);
    return 1;
}

/* Several processes: the same interpreted scene (overrides applied), solver and grid on every one, agreed
 * before the open's collectives. Processes of one session that opened different ones (another time.dt,
 * another solver on one rank) ran on to a hash of neither, or waited for each other for ever; `eddy run`
 * compares its launch first (host/drive/same_scene.c), a program of its own had nothing. */
static int same_scene_everywhere(const eddy_scene *scene, eddy_error *err)
{
    if (eddy_decomp_size() <= 1) return EDDY_OK;
    char *text = cJSON_PrintUnformatted(scene->root);
    uint64_t h = eddy_fnv1a_str(EDDY_FNV1A_OFFSET, text ? text : "(out of memory)");
    cJSON_free(text);
    h = eddy_fnv1a_str(eddy_fnv1a_str(h, scene->solver), scene->grid);
    const int other = eddy_decomp_first_differing(h);
    if (other < 0) return EDDY_OK;
    eddy_decomp_set_agreed(EDDY_ERR_INVALID_ARGUMENT);
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "process %d of %d opened another session than process 0 (its scene, overrides, solver or "
                          "grid differ): every process of a split run must open the same one",
                          other, eddy_decomp_size());
}

/* Opens the sim for a parsed scene (taken, also on failure); from `ck`'s state when given. */
static int open_scene(eddy_scene *scene, const eddy_session_options *o, const eddy_checkpoint *ck, eddy_session **out,
                      eddy_error *err)
{
    int rc;
    if (o->check_scene && (rc = o->check_scene(o->user, scene, err))) {
        eddy_scene_free(scene);
        return rc;
    }
    eddy_decomp_own_world();
    if ((rc = same_scene_everywhere(scene, err))) {
        eddy_scene_free(scene);
        return rc;
    }
    eddy_session *s = calloc(1, sizeof *s);
    if (!s) {
        eddy_scene_free(scene);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    eddy_sim_options so = {NULL, NULL, o->particle_target, o->registry, threads_here(o, scene)};
    /* A new run on several processes creates only this process's particles (decomp.h); a resume reads
     * its pieces as before. */
    if (ck) {
        rc = eddy_checkpoint_open_sim(ck, scene, &so, &s->sim, err);
    } else if (!(rc = eddy_decomp_fill_begin(err))) {
        rc = eddy_sim_open(scene, &so, &s->sim, err);
    } else {
        eddy_scene_free(scene);
    }
    eddy_decomp_fill_end();
    /* (set even when the open failed: its parallel regions may have started the threads; never in a child
     * that runs on one, whose count may still be the parent's where the open failed before setting it) */
    long none = 0;
    if (eddy_services_threads() > 1 && so.threads != 1)
        atomic_compare_exchange_strong(&threads_started_in, &none, (long)getpid());
    if (rc) {
        free(s);
        return rc;
    }
    /* Frame 0 is the state just opened; the plan's first target is frame 1. */
    s->next_frame = 1;
    s->failed_frame = -1;
    s->pid = getpid();
    atomic_fetch_add(&sessions_open, 1);
    *out = s;
    return EDDY_OK;
}

int eddy_session_open(const eddy_session_options *opt, eddy_session **out, eddy_error *err)
{
    *out = NULL;
    const eddy_session_options none = eddy_session_default_options();
    if (!opt) opt = &none;
    if (!opt->scene_path && !opt->scene_text)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "session: no scene (give scene_path or scene_text)");
    set_list l;
    int rc = make_sets(opt, 1, &l, err);
    if (rc) return rc;
    eddy_scene scene;
    rc = opt->scene_path ? eddy_scene_load(opt->scene_path, l.sets, l.count, &scene, err)
                         : eddy_scene_parse(opt->scene_text, opt->scene_name ? opt->scene_name : "scene.json", l.sets,
                                            l.count, &scene, err);
    set_list_free(&l);
    if (rc) return rc;
    return open_scene(&scene, opt, NULL, out, err);
}

/* A checkpoint written on another vector path of the SPH neighbour loops (its "simd" setting): the sums
 * round differently from here on, so the resumed run is bit-identical neither to the uninterrupted run
 * nor to one on this path; a reviewer resuming on a machine without the run's ISA got no word of it.
 * Said once, by rank 0 (each process compares its own piece; decomp.c warns of processes that differ). */
static void warn_other_simd(const eddy_checkpoint *ck)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(eddy_checkpoint_settings(ck), "simd");
    eddy_sph_simd now;
    eddy_error e;
    if (!cJSON_IsString(v) || eddy_sph_simd_select(&now, &e) || eddy_decomp_rank() != 0) return;
    int known = 0;
    for (int k = 0; k < EDDY_SPH_SIMD_COUNT; ++k) known |= strcmp(v->valuestring, eddy_sph_simd_name((eddy_sph_simd)k)) == 0;
    if (strcmp(v->valuestring, eddy_sph_simd_name(now)) == 0) return;
    /* (a name this eddy does not know comes from a file, not from here: not echoed) */
    char path[64] = "a path this eddy does not know";
    if (known) snprintf(path, sizeof path, "the %s path", v->valuestring);
    fprintf(stderr, "eddy: warning: checkpoint '%s' was written on %s of the SPH neighbour loops and this "
                    "process runs the %s path: sums round differently, so the result is bit-identical neither to "
                    "the uninterrupted run nor to one on this path%s%s%s\n",
            eddy_checkpoint_path(ck), path, eddy_sph_simd_name(now),
            known ? "; set EDDY_SIMD=" : "", known ? v->valuestring : "", known ? " to resume on the run's path" : "");
}

int eddy_session_restore(const eddy_checkpoint *ck, const eddy_session_options *opt, int next_frame,
                         eddy_session **out, eddy_error *err)
{
    *out = NULL;
    const eddy_session_options none = eddy_session_default_options();
    if (!opt) opt = &none;
    const cJSON *settings = eddy_checkpoint_settings(ck);
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(settings, "scene_file");
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(settings, "scene"));
    if (!text) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    set_list l;
    int rc = make_sets(opt, 0, &l, err);
    eddy_scene scene;
    if (!rc)
        rc = eddy_scene_parse(text, cJSON_IsString(file) ? file->valuestring : "scene.json", l.sets, l.count, &scene,
                              err);
    cJSON_free(text);
    set_list_free(&l);
    if (rc) return eddy_error_prefix(err, "checkpoint '%s': ", eddy_checkpoint_path(ck));
    warn_other_simd(ck);
    eddy_session_options o = *opt;
    o.particle_target = 0;
    rc = open_scene(&scene, &o, ck, out, err);
    /* The cuts a resume on as many processes armed (eddy_checkpoint_read_for_resume) are this open's
     * alone: a later open in the process (Python) must not take them. */
    eddy_decomp_resume_cuts(NULL, 0, 0, 0.0); /* (and the share flag, decomp.h) */
    if (rc) return rc;
    (*out)->next_frame = next_frame;
    (*out)->failed_frame = -1;
    (*out)->restored = 1;
    (*out)->restored_without_outputs = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(settings, "outputs"));
    /* Several processes: the halo copies were made before the solver registered its fields; send them
     * again, whole, so that the first step reads them as `eddy resume`'s does. */
    if (eddy_decomp_size() > 1 && (rc = eddy_decomp_exchange((*out)->sim.world, err))) {
        eddy_session_close(*out);
        *out = NULL;
        return rc;
    }
    return EDDY_OK;
}

int eddy_session_resume(const char *dir, const eddy_session_options *opt, eddy_session **out, eddy_error *err)
{
    *out = NULL;
    eddy_checkpoint *ck;
    int rc = eddy_checkpoint_read_for_resume(dir, &ck, err);
    if (rc) return rc;
    const cJSON *s = eddy_checkpoint_settings(ck);
    const cJSON *solver = cJSON_GetObjectItemCaseSensitive(s, "solver");
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(s, "grid");
    const cJSON *next = cJSON_GetObjectItemCaseSensitive(s, "next_frame");
    const cJSON *formats = cJSON_GetObjectItemCaseSensitive(s, "formats");
    const char *ids[EDDY_SCENE_FORMAT_MAX];
    size_t n = 0;
    const cJSON *e, *list = cJSON_IsArray(formats) ? formats : NULL;
    cJSON_ArrayForEach(e, list) {
        if (cJSON_IsString(e) && n < EDDY_SCENE_FORMAT_MAX) ids[n++] = e->valuestring;
    }
    if (!cJSON_IsString(solver) || !cJSON_IsString(grid) || !cJSON_IsNumber(next) || !(next->valuedouble >= 0) ||
        !(next->valuedouble < 2147483647.0)) {
        rc = eddy_error_set(err, EDDY_ERR_PARSE, "checkpoint '%s' is corrupt: its settings lack solver, grid or "
                            "next_frame", eddy_checkpoint_path(ck));
    } else {
        eddy_session_options o = opt ? *opt : eddy_session_default_options();
        o.solver = solver->valuestring;
        o.grid = grid->valuestring;
        o.out_dir = dir;
        o.formats = cJSON_IsArray(formats) ? ids : NULL;
        o.format_count = n;
        rc = eddy_session_restore(ck, &o, (int)next->valuedouble, out, err);
    }
    eddy_checkpoint_free(ck);
    return rc;
}

int eddy_session_check_process(const eddy_session *s, const char *reopen, eddy_error *err)
{
    const pid_t me = getpid();
    if (s->pid == me) return EDDY_OK;
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "this simulation was opened by process %ld; a process "
                          "forked from it (%ld) cannot step or write it; %s", (long)s->pid, (long)me,
                          reopen ? reopen : "open a new session in the child");
}

void eddy_session_close(eddy_session *s)
{
    if (!s) return;
    /* In a forked child the session is a copy whose solver and plugins may own threads, a device context
     * or files that are the parent's: their destroy() would join threads that are not there or tear down
     * what the parent still uses. The copy's memory goes with the child. */
    if (eddy_session_check_process(s, NULL, NULL)) return;
    eddy_sim_close(&s->sim);
    free(s->outputs_dir);
    free(s);
    atomic_fetch_sub(&sessions_open, 1);
}

/* ------------------------------------------------------------------------------------------------ */

/* A frame whose on_frame failed is not counted: `eddy run` then writes its final frame at that index
 * (a frame not fully written is written again) and stops. A caller that steps on from there (Python,
 * after an exception in its callback) would aim its next step at the time already reached, a step of
 * length 0, and every later state would differ from one stepping: the frame is taken first. The same
 * holds for a step that reached a frame's time and then failed (the explosion guard, a particle
 * leaving the domain): its clock moved, its frame was never landed on, and stepping on from there
 * took steps of length 0, the step counter running ahead of a clock that stood still. */
static void settle_frame(eddy_session *s)
{
    if (s->failed_frame >= 0 && s->failed_frame == s->next_frame) ++s->next_frame;
    s->failed_frame = -1;
    if (s->sim.world->step > 0 && eddy_sim_at_frame(&s->sim, s->next_frame)) ++s->next_frame;
}

int eddy_session_step(eddy_session *s, long long n, eddy_error *err)
{
    int rc = eddy_session_check_process(s, NULL, err);
    if (rc) return rc;
    if (n < 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_session_step: %lld steps, expected a count >= 0", n);
    if (n == 0) return EDDY_OK;
    settle_frame(s);
    eddy_sim_plan plan = {(long long)s->sim.world->step + n, INFINITY, s->next_frame, eddy_services_stop_flag(),
                          NULL, NULL, NULL, NULL};
    rc = eddy_sim_run_plan(&s->sim, &plan, NULL, err);
    s->next_frame = plan.next_frame;
    return rc;
}

typedef struct plan_call {
    eddy_session *s;
    const eddy_session_plan *plan;
} plan_call;

/* A callback that forks goes on in the child too, inside this run: the child stops at once, after the
 * callback (on_frame) or before the next step (the poll, which runs before every step). */
static int call_on_frame(void *user, int frame, eddy_error *err)
{
    plan_call *c = user;
    /* The frame index a snapshot taken inside the callback gets. */
    c->s->next_frame = frame + 1;
    int rc = c->plan->on_frame ? c->plan->on_frame(c->plan->user, c->s, frame, err) : EDDY_OK;
    if (!rc) rc = eddy_session_check_process(c->s, NULL, err);
    if (rc) c->s->failed_frame = frame;
    return rc;
}

static void call_on_step(void *user, double step_ms)
{
    plan_call *c = user;
    if (c->plan->on_step) c->plan->on_step(c->plan->user, c->s, step_ms);
}

static int call_cancel(void *user)
{
    plan_call *c = user;
    if (eddy_session_check_process(c->s, NULL, NULL)) return 1;
    return c->plan->cancel && c->plan->cancel(c->plan->user);
}

int eddy_session_run(eddy_session *s, const eddy_session_plan *plan, int *last_on_frame, eddy_error *err)
{
    int rc = eddy_session_check_process(s, NULL, err);
    if (rc) {
        if (last_on_frame) *last_on_frame = 0;
        return rc;
    }
    settle_frame(s);
    plan_call c = {s, plan};
    const double end_time = isnan(plan->end_time) ? s->sim.scene.end_time : plan->end_time;
    eddy_sim_plan p = {plan->end_steps, end_time, s->next_frame, eddy_services_stop_flag(), &c, call_on_frame,
                       call_on_step, call_cancel};
    rc = eddy_sim_run_plan(&s->sim, &p, last_on_frame, err);
    s->next_frame = p.next_frame;
    /* (a child forked in a callback: its error in place of the poll's "cancelled", or of none where the
     * plan ended with that step) */
    if (eddy_session_check_process(s, NULL, NULL)) rc = eddy_session_check_process(s, NULL, err);
    return rc;
}

int eddy_session_snapshot(eddy_session *s, eddy_frame *frame, eddy_error *err)
{
    /* Off the frame times (a run or steps that ended between frames), the index of the next regular
     * frame, as `eddy run` numbers its final frame: the frame landed on last keeps its file, and the
     * regular frame at that index, when the session gets there, takes the place of this one. */
    int index = s->next_frame > 0 ? s->next_frame - 1 : 0;
    if (s->sim.scene.output_interval > 0 && !eddy_sim_at_frame(&s->sim, index)) index = s->next_frame;
    return eddy_frame_take(s->sim.world, (uint64_t)index, frame, err);
}

void eddy_session_snapshot_release(eddy_frame *frame) { eddy_frame_release(frame); }

int eddy_session_hash(eddy_session *s, uint64_t *hash, eddy_error *err)
{
    /* Over every process of a split run, as `eddy run --hash` (a process's world holds its slab and
     * halo copies, whose own hash is no state of the run). */
    return eddy_decomp_hash(s->sim.world, hash, err);
}

int eddy_session_restored_without_outputs(const eddy_session *s)
{
    return s->restored_without_outputs;
}

int eddy_session_set_outputs_dir(eddy_session *s, const char *dir)
{
    char *copy = dir ? strdup(dir) : NULL;
    if (dir && !copy) return EDDY_ERR_OUT_OF_MEMORY;
    free(s->outputs_dir);
    s->outputs_dir = copy;
    return EDDY_OK;
}

/* Whether `dir` is the folder this session's frames and tables go to (the same file, whatever the
 * spelling of its path). */
static int writes_outputs_in(const eddy_session *s, const char *dir)
{
    struct stat a, b;
    return s->outputs_dir && stat(s->outputs_dir, &a) == 0 && stat(dir, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* One process's checkpoint.eddy, and then no manifest or pieces of an older split run beside it: a
 * resume prefers the manifest, and took that older state (review). */
static int write_whole(eddy_session *s, const char *dir, const cJSON *settings, eddy_error *err)
{
    const int rc = eddy_checkpoint_write(dir, &s->sim, settings, err);
    if (!rc) {
        eddy_output_remove_in(dir, EDDY_CHECKPOINT_MANIFEST);
        eddy_checkpoint_remove_stale_pieces(dir, 0);
    }
    return rc;
}

/* The settings a checkpoint written with NULL settings records (what `eddy resume DIR` continues), or
 * NULL when out of memory. */
static cJSON *session_settings(const eddy_session *s, const char *dir)
{
    const eddy_sim *sim = &s->sim;
    const eddy_component *sc = sim->solver_entry->component;
    cJSON *o = cJSON_CreateObject();
    cJSON *f = o ? cJSON_AddArrayToObject(o, "formats") : NULL;
    int ok = f && cJSON_AddStringToObject(o, "scene_file", sim->scene.file) &&
             cJSON_AddStringToObject(o, "solver", sc->id) && cJSON_AddStringToObject(o, "solver_version", sc->version) &&
             cJSON_AddStringToObject(o, "grid", sim->grid_entry->component->id) &&
             cJSON_AddNumberToObject(o, "end_steps", -1) && cJSON_AddNumberToObject(o, "end_time", sim->scene.end_time) &&
             cJSON_AddNumberToObject(o, "checkpoint_every", 0) &&
             cJSON_AddNumberToObject(o, "next_frame", s->next_frame) &&
             /* A session writes no frames or tables: `eddy resume` starts them at the resume point
              * instead of reporting each as lost from a folder that never held them. Not for a
              * session resumed from a run's folder, whose frames and tables `eddy resume` must keep
              * (it says which rows the session's own steps left out), nor for one whose driver writes
              * them into this folder. */
             (s->restored || writes_outputs_in(s, dir) || cJSON_AddFalseToObject(o, "outputs"));
    for (size_t i = 0; ok && i < sim->scene.format_count; ++i) {
        cJSON *id = cJSON_CreateString(sim->scene.formats[i]);
        if (!id || !cJSON_AddItemToArray(f, id)) {
            cJSON_Delete(id);
            ok = 0;
        }
    }
    if (!ok) cJSON_Delete(o);
    return ok ? o : NULL;
}

/*
 * The checkpoint already in DIR (one process's, or piece 0 of a split one) when it is another run's than
 * this session's (another run_id, or none where this one has one): writing over it left that run with
 * no way on (a stopped `eddy run` continued by nothing, and its resume then refused this checkpoint as
 * another run's in that folder: an adversarial trial and the review). A checkpoint of this session's own
 * run (written before, or the one it resumed) is replaced. Rank 0 reads it, as it reads the folder's
 * other files (run_folder.c); the caller agrees the outcome before any collective.
 */
static int refuse_foreign_checkpoint(const eddy_session *s, const char *dir, eddy_error *err)
{
    if (eddy_decomp_rank() != 0) return EDDY_OK;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, EDDY_CHECKPOINT_FILE);
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(path, sizeof path, "%s/checkpoint.p0.eddy", dir);
        if (stat(path, &st) != 0) return EDDY_OK;
    }
    double time;
    uint64_t step;
    cJSON *settings = NULL;
    eddy_error why;
    if (eddy_checkpoint_peek(path, &time, &step, &settings, &why))
        return eddy_error_set(err, EDDY_ERR_IO,
                              "checkpoint: the folder '%s' holds a checkpoint this one would replace, which cannot be "
                              "read (%s); checkpoint into another folder, or move it away", dir, why.message);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(settings, "run_id");
    const char *theirs = cJSON_IsString(id) ? id->valuestring : "";
    int rc = EDDY_OK;
    if (strcmp(theirs, s->sim.run_id) != 0)
        rc = eddy_error_set(err, EDDY_ERR_IO,
                            "checkpoint: the folder '%s' holds the checkpoint of another run (step %llu, t = %.6g s%s%s%s), "
                            "which this one would replace, and that run could not be continued; checkpoint into "
                            "another folder, or move it away", dir, (unsigned long long)step, time,
                            theirs[0] ? ", run_id '" : "", theirs, theirs[0] ? "'" : "");
    cJSON_Delete(settings);
    return rc;
}

int eddy_session_checkpoint(eddy_session *s, const char *dir, const cJSON *settings, eddy_error *err)
{
    const int rc_process = eddy_session_check_process(s, NULL, err);
    if (rc_process) return rc_process;
    /* The run's own settings come from `eddy run` and `eddy resume`, whose folder rules
     * (run_folder.h) already decided which checkpoint their folder may replace. */
    if (eddy_decomp_size() <= 1 && settings) return write_whole(s, dir, settings, err);
    int rc = settings ? EDDY_OK : refuse_foreign_checkpoint(s, dir, err);
    /* A split run's pieces add their own members to the settings: a copy of the caller's. */
    cJSON *o = rc ? NULL : settings ? cJSON_Duplicate(settings, 1) : session_settings(s, dir);
    /* (every process learns whether every one may write and has them, before the pieces' collectives) */
    if (!rc && !o) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the checkpoint");
    if ((rc = eddy_decomp_agree_error(rc, err))) {
        cJSON_Delete(o);
        return rc;
    }
    rc = eddy_decomp_size() > 1 ? eddy_checkpoint_write_split(&s->sim, dir, o, err)
                                : write_whole(s, dir, o, err);
    cJSON_Delete(o);
    return rc;
}

eddy_world *eddy_session_world(eddy_session *s) { return s->sim.world; }
const eddy_scene *eddy_session_scene(const eddy_session *s) { return &s->sim.scene; }
int eddy_session_next_frame(const eddy_session *s) { return s->next_frame; }
eddy_sim *eddy_session_sim(eddy_session *s) { return &s->sim; }
