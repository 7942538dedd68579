#include "sim.h"

#include "decomp.h"
#include "fnv1a.h"
#include "scene_vortices.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int eddy_sim_component_not_found(eddy_registry *reg, const char *checkpoint, const char *interface_id,
                                 const char *id, eddy_error *err)
{
    if (eddy_registry_find(reg, id, interface_id)) return EDDY_OK;
    char ids[EDDY_ERROR_MESSAGE_MAX / 2];
    const char *available = eddy_scene_registry_ids(reg, interface_id, ids, sizeof ids);
    return eddy_error_set(err, EDDY_ERR_NOT_FOUND,
                          "checkpoint '%s' was written with the %s '%s', which this eddy does not find (available: "
                          "%s); if it comes from a plugin, put the plugin's folder in EDDY_PLUGIN_PATH (`eddy list` "
                          "shows the plugins found and those refused)",
                          checkpoint, eddy_interface_name(interface_id), id, available && *available ? available : "none");
}

/* `checkpoint`: the path of the checkpoint a resume opens from, NULL for a scene. */
static int find_component(eddy_registry *reg, const eddy_scene *scene, const char *id, const char *interface_id,
                          const char *checkpoint, const eddy_registry_entry **out, eddy_error *err)
{
    *out = eddy_registry_find(reg, id, interface_id);
    if (*out) return EDDY_OK;
    /* The scene a checkpoint embeds is not the user's to fix: the component is missing from this eddy. */
    if (checkpoint) return eddy_sim_component_not_found(reg, checkpoint, interface_id, id, err);
    /* A component of that id of another kind: often an interface id mistyped in the plugin
     * ("eddy.solver.3"), which registers it as a kind of its own. */
    const eddy_registry_entry *other = eddy_registry_find(reg, id, NULL);
    char kind[EDDY_SCENE_ID_MAX + 96] = "";
    if (other && other->component->interface_id)
        snprintf(kind, sizeof kind, "; '%s' is a component of interface '%s', not '%s'", id,
                 other->component->interface_id, interface_id);
    char ids[EDDY_ERROR_MESSAGE_MAX / 2];
    const char *available = eddy_scene_registry_ids(reg, interface_id, ids, sizeof ids);
    char refused[EDDY_ERROR_MESSAGE_MAX];
    /* An id the file names is pointed at, as every other scene error is; one an option or --set put
     * there has no place in the file (eddy_scene_locate gives 0). */
    const int solver = strcmp(interface_id, EDDY_INTERFACE_SOLVER) == 0;
    int line = 0, col = 0;
    /* An id an option gave (--solver, --grid, compare's --solvers, Python's solver=) is not the file's:
     * the file was named before it, as if it held the typo. */
    char at[EDDY_SCENE_PATH_MAX + 64] = "";
    const cJSON *named = cJSON_GetObjectItemCaseSensitive(scene->root, solver ? "solver" : "grid");
    /* (located when the file's value is this id, wherever the id came from: a --solver equal to the
     * file's typo points at the file's) */
    if (cJSON_IsString(named) && strcmp(named->valuestring, id) == 0)
        eddy_scene_locate(scene, solver ? "solver" : "grid", &line, &col);
    if (line > 0) snprintf(at, sizeof at, "%s:%d:%d: %s: ", scene->file, line, col, solver ? "solver" : "grid");
    /* (where plugins are searched is beside the point when the id was found as another kind, or is a
     * typo of a registered one) */
    const char *near = eddy_scene_nearest_id(reg, interface_id, id);
    char mean[EDDY_SCENE_ID_MAX + 32] = "";
    if (near) snprintf(mean, sizeof mean, "; did you mean '%s'?", near);
    const char *hint = near ? "" : eddy_services_refusal_hint(reg, id, refused, sizeof refused);
    if (kind[0] && !eddy_registry_refusal_count(reg)) hint = "";
    return eddy_error_set(err, EDDY_ERR_NOT_FOUND, "%sunknown %s '%s' (available: %s%s%s)%s", at,
                          eddy_interface_name(interface_id), id, *available ? available : "none", kind, hint, mean);
}

/*
 * A solver callback returned rc != 0 into `err` (which the host cleared before the call): makes the
 * record say so whatever the plugin left in it, then prefixes `where` (the solver id and step).
 * The plugin's return value is the status, not err->code, which a plugin may have left at 0: returning
 * err->code then would read as success and step again without advancing. A message the plugin left
 * empty becomes "CALLBACK() returned NAME (text) without a message", so no error prints as nothing.
 */
/* The grid builds inside the solver's callbacks and the host's own passes, whose messages name the
 * solver or nothing: a plugin grid's faulty sort (core/src/grid.c) is named, with where it came from. */
static int name_grid(const eddy_sim *sim, int rc, eddy_error *err)
{
    const eddy_registry_entry *g = sim->grid_entry;
    if (rc && g && strstr(err->message, "grid build: the grid backend's") && !strstr(err->message, "; the grid is '")) {
        const size_t len = strlen(err->message);
        snprintf(err->message + len, sizeof err->message - len, "; the grid is '%s' (%s)", g->component->id, g->file);
    }
    return rc;
}

static int plugin_failed(const eddy_sim *sim, eddy_error *err, int rc, const char *callback, const char *where)
{
    eddy_services_callback_error(err, rc, callback);
    eddy_error_prefix(err, "%s", where);
    return name_grid(sim, rc, err);
}

/* The component's validated values from the scene (calloc'ed: `count` may be 0). */
static int component_params(const eddy_scene *scene, const eddy_component *c, eddy_param_value **values,
                            eddy_param_values *out, eddy_error *err)
{
    *values = calloc(c->param_count + 1, sizeof **values);
    if (!*values) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    return eddy_scene_component_params(scene, c, *values, out, err);
}

int eddy_sim_check_components(const eddy_scene *scene, eddy_registry *reg, eddy_error *err)
{
    const eddy_registry_entry *entry[2];
    int rc = find_component(reg, scene, scene->solver, EDDY_INTERFACE_SOLVER, NULL, &entry[0], err);
    if (!rc) rc = find_component(reg, scene, scene->grid, EDDY_INTERFACE_GRID, NULL, &entry[1], err);
    for (int k = 0; k < 2 && !rc; ++k) {
        eddy_param_value *values = NULL;
        eddy_param_values params;
        rc = component_params(scene, entry[k]->component, &values, &params, err);
        free(values);
    }
    /* The solver's material parameters, which the world build checks for the running solver only. */
    const eddy_component *sc = rc ? NULL : entry[0]->component;
    for (size_t m = 0; sc && m < scene->material_count && !rc; ++m) {
        eddy_param_value *values = calloc(sc->material_param_count + 1, sizeof *values);
        rc = values ? eddy_scene_material_params(scene, reg, sc, m, values, err)
                    : eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        free(values);
    }
    return rc;
}

/* Component `id`'s notice (announce), or h continued over the shadows it would name. */
static uint64_t shadow_of(const eddy_registry *reg, const char *id, int announce, uint64_t h)
{
    if (announce) {
        eddy_services_notice_shadow(reg, id);
        return h;
    }
    for (size_t i = 0; i < eddy_registry_shadow_count(reg); ++i) {
        const eddy_registry_shadow *s = eddy_registry_shadow_at(reg, i);
        if (strcmp(s->id, id) == 0)
            h = eddy_fnv1a_str(eddy_fnv1a_str(eddy_fnv1a_str(h, s->id), s->file), s->shadowed);
    }
    return h;
}

/* The solver, the grid, the writers of output.format and the probes' kinds, as shadow_of. */
static uint64_t shadows_used(const eddy_sim *sim, int announce)
{
    const eddy_registry *reg = sim->registry;
    uint64_t h = shadow_of(reg, sim->solver_entry->component->id, announce, EDDY_FNV1A_OFFSET);
    h = shadow_of(reg, sim->grid_entry->component->id, announce, h);
    for (size_t i = 0; i < sim->scene.format_count && i < EDDY_SCENE_FORMAT_MAX; ++i)
        h = shadow_of(reg, sim->scene.formats[i], announce, h);
    const cJSON *probe;
    cJSON_ArrayForEach(probe, eddy_scene_section(&sim->scene, "probes")) {
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(probe, "kind");
        if (cJSON_IsString(kind)) h = shadow_of(reg, kind->valuestring, announce, h);
    }
    return h;
}

/* The notice of every component the session uses that shadows one of a later plugin folder
 * (services.h). Under mpirun every process used to say it: rank 0 now says it for all, and another
 * process only when its plugin folders give other shadows than rank 0's (EDDY_PLUGIN_PATH may differ
 * between nodes), which one broadcast of rank 0's digest tells it. */
static void announce_shadows(const eddy_sim *sim)
{
    const uint64_t mine = shadows_used(sim, 0);
    uint64_t first = mine;
    eddy_decomp_broadcast(&first, sizeof first, 0);
    if (eddy_decomp_rank() == 0 || mine != first) shadows_used(sim, 1);
}

/* The fields' edit generations together: they move only when something outside the solver wrote a
 * field (a program between steps, a restore), never with the solver's own writes (particles.h). */
static uint64_t field_edits(const eddy_world *w)
{
    uint64_t sum = 0;
    for (int f = 0; f < eddy_particles_field_count(&w->particles); ++f)
        sum += eddy_particles_generation(&w->particles, f);
    return sum;
}

/* A fresh run's identity: 128 random bits from rank 0, every process's. Where the kernel's random source
 * fails (a seccomp filter), the clock, the process id and a counter still tell two runs on a machine
 * apart, which is all the identity is for (run_record.h: a checkpoint copied between run folders). */
static void draw_run_id(eddy_sim *sim)
{
    static unsigned counter;
    uint64_t bits[2] = {0, 0};
    if (eddy_decomp_rank() == 0 && getrandom(bits, sizeof bits, GRND_NONBLOCK) != (ssize_t)sizeof bits) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        const uint64_t mix[3] = {(uint64_t)t.tv_sec, (uint64_t)t.tv_nsec, ((uint64_t)getpid() << 32) | ++counter};
        bits[0] = eddy_fnv1a(EDDY_FNV1A_OFFSET, mix, sizeof mix);
        bits[1] = eddy_fnv1a(bits[0], mix, sizeof mix);
    }
    eddy_decomp_broadcast(bits, sizeof bits, 0);
    snprintf(sim->run_id, sizeof sim->run_id, "%016" PRIx64 "%016" PRIx64, bits[0], bits[1]);
}

static int open_sim(eddy_scene *scene, const eddy_sim_options *opt, const eddy_sim_restore *restore, eddy_sim *sim,
                    eddy_error *err)
{
    static const eddy_sim_options none = {0};
    if (!opt) opt = &none;
    memset(sim, 0, sizeof *sim);
    sim->last_max_speed = NAN;
    sim->scene = *scene;
    memset(scene, 0, sizeof *scene);
    sim->host = eddy_services_host();
    int rc;
    if (opt->solver) snprintf(sim->scene.solver, sizeof sim->scene.solver, "%s", opt->solver);
    if (opt->grid) snprintf(sim->scene.grid, sizeof sim->scene.grid, "%s", opt->grid);
    if (opt->particle_target && (rc = eddy_scene_rescale(&sim->scene, opt->particle_target, err)))
        goto fail;
    if (opt->registry) {
        sim->registry = opt->registry;
    } else {
        if ((rc = eddy_services_registry(1, &sim->registry, err))) goto fail;
        sim->owns_registry = 1;
    }
    const char *checkpoint = restore ? restore->checkpoint : NULL;
    if ((rc = find_component(sim->registry, &sim->scene, sim->scene.solver, EDDY_INTERFACE_SOLVER, checkpoint,
                             &sim->solver_entry, err)) ||
        (rc = find_component(sim->registry, &sim->scene, sim->scene.grid, EDDY_INTERFACE_GRID, checkpoint,
                             &sim->grid_entry, err)))
        goto fail;
    const eddy_component *sc = sim->solver_entry->component;
    sim->solver_vtable = sc->vtable;
    if ((rc = component_params(&sim->scene, sc, &sim->param_values, &sim->params, err)) ||
        (rc = component_params(&sim->scene, sim->grid_entry->component, &sim->grid_param_values, &sim->grid_params,
                               err)))
        goto fail;

    /* The one place a session decides its thread count: the option, else the scene's, else OpenMP's. */
    sim->threads = eddy_services_set_threads(opt->threads > 0 ? opt->threads : sim->scene.threads);
    /* A resume builds no initial state where the solver saved all it derives (plugin.h, STATE_COMPLETE). */
    const int filled = restore && restore->fill && (sc->flags & EDDY_COMPONENT_STATE_COMPLETE);
    const eddy_scene_build with = {sim->registry, sc, sim->grid_entry->component, &sim->grid_params, sim->host,
                                   filled ? restore->fill : NULL, restore ? restore->user : NULL};
    if ((rc = eddy_scene_build_world(&sim->scene, &with, &sim->world, err))) goto fail;
    eddy_world_set_host(sim->world, sim->host);
    /* Several processes: this process's slab and halo, the exchange (decomp.h); in one process the
     * canonical (cell, id) order a decomposed run also starts from. */
    if ((rc = name_grid(sim, eddy_decomp_attach(sim->world, sc, restore != NULL, err), err))) goto fail;
    const eddy_solver_setup setup = {sizeof setup, sim->world, &sim->params, sim->host, filled};
    char where[EDDY_SCENE_ID_MAX + 16];
    snprintf(where, sizeof where, "solver '%s': ", sc->id);
    eddy_error_clear(err);
    void *instance = eddy_services_unset_instance();
    rc = sim->solver_vtable->create(&setup, (eddy_solver **)&instance, err);
    if (rc) {
        plugin_failed(sim, err, rc, "create", where);
        sim->solver = NULL;
        goto fail;
    }
    if ((rc = eddy_services_check_created(rc, &instance, "solver", err))) {
        eddy_error_prefix(err, "%s", where);
        goto fail;
    }
    sim->solver = instance;
    eddy_error_clear(err);
    /* A resumed session skips the initial fields: the restore overwrites every one of them
     * (checkpoint.h), and load() brings the solver's own state. So it skips the scene's vortices too, as
     * it skips the fluid blocks' velocities: the vorticity comes from the checkpoint. They go on before
     * compute_fields(), which derives the velocity they induce. */
    if (!restore) draw_run_id(sim); /* (a resume takes its run's from the checkpoint) */
    if (restore) {
        if ((rc = restore->finish(restore->user, sim, filled, err))) goto fail;
    } else if ((rc = eddy_scene_apply_vortices(&sim->scene, sim->world, sc->id, err))) {
        goto fail;
    } else if (sim->solver_vtable->compute_fields &&
               (rc = sim->solver_vtable->compute_fields(sim->solver, sim->world, err))) {
        plugin_failed(sim, err, rc, "compute_fields", where);
        goto fail;
    }
    announce_shadows(sim);
    sim->edits_seen = field_edits(sim->world);
    /* The session is open and nothing has been written yet: from here on a signal asks the stepping
     * loop to stop (it finishes the step, writes the checkpoint) instead of ending the process. */
    eddy_services_defer_signals();
    return EDDY_OK;
fail:
    eddy_sim_close(sim);
    return rc;
}

int eddy_sim_open(eddy_scene *scene, const eddy_sim_options *opt, eddy_sim *sim, eddy_error *err)
{
    return open_sim(scene, opt, NULL, sim, err);
}

int eddy_sim_open_restored(eddy_scene *scene, const eddy_sim_options *opt, const eddy_sim_restore *restore,
                           eddy_sim *sim, eddy_error *err)
{
    return open_sim(scene, opt, restore, sim, err);
}

void eddy_sim_close(eddy_sim *sim)
{
    if (!sim) return;
    if (sim->solver && sim->solver_vtable) sim->solver_vtable->destroy(sim->solver);
    sim->solver = NULL;
    eddy_decomp_detach(sim->world);
    eddy_world_destroy(sim->world);
    sim->world = NULL;
    eddy_scene_free(&sim->scene);
    free(sim->param_values);
    free(sim->grid_param_values);
    sim->param_values = sim->grid_param_values = NULL;
    /* Close plugins last: the solver's code and tables live in them. */
    if (sim->owns_registry) eddy_registry_destroy(sim->registry);
    sim->registry = NULL;
}

int eddy_sim_time_reached(double time, double t)
{
    return t - time <= 1e-12 * fabs(t);
}

/* `name` (a buffer of sizeof sim->dt_limit) becomes the one of the lowest-ranked process whose limit is
 * the step's (`mine`). Collective; nothing on one process. */
static void agree_limit_name(const eddy_sim *sim, char *name, int mine)
{
    if (!eddy_decomp_active(sim->world)) return;
    const uint64_t root = eddy_decomp_min_u64(mine ? (uint64_t)eddy_decomp_rank() : UINT64_MAX);
    /* (some process always has the step's limit, the exact minimum of theirs; the test is a guard) */
    if (root < (uint64_t)eddy_decomp_size()) eddy_decomp_broadcast(name, sizeof sim->dt_limit, (int)root);
}

/* eddy_world_stable_dt's name for a force limit of 0 from an acceleration whose square overflowed a float
 * (core/src/world.c): a state the run starts from, where any other max_dt of 0 is the solver's own. */
static const char ACCEL_OVERFLOW[] = "acceleration overflow";

/* EDDY_LOG=debug: which limit sets the step, said when it changes rather than at every step, so that a
 * run of a million CFL-limited steps says it once. The name and the step are agreed, so every process
 * follows the same changes; the first says them. */
static void say_dt_setter(eddy_sim *sim, double lim)
{
    if (strcmp(sim->dt_limit, sim->dt_said) == 0) return;
    snprintf(sim->dt_said, sizeof sim->dt_said, "%s", sim->dt_limit);
    const eddy_world *w = sim->world;
    if (sim->dt_limit[0])
        eddy_services_debug_once("dt", "step %" PRIu64 " (t = %.6g s): dt %.6g s, set by the solver's %s limit "
                                 "(the scene's time.dt is %.6g s)", w->step + 1, w->time, lim, sim->dt_limit,
                                 sim->scene.dt);
    else
        eddy_services_debug_once("dt", "step %" PRIu64 " (t = %.6g s): dt %.6g s, the scene's time.dt again (the "
                                 "solver's limits are above it)", w->step + 1, w->time, sim->scene.dt);
}

/* Land exactly on the target instead of leaving a sliver step for later: the whole remainder when dt
 * nearly reaches it, half of it when dt is more than half. */
static double landing_step(double dt, double remaining)
{
    if (dt >= remaining * (1.0 - 1e-9)) return remaining;
    if (dt > 0.5 * remaining) return 0.5 * remaining;
    return dt;
}

int eddy_sim_next_dt(eddy_sim *sim, double t_target, double *dt_out, eddy_error *err)
{
    /* A split run whose particles a program wrote between steps (the session API): the halo copies
     * hold the values of before, so the neighbours on another process saw the old ones in this step
     * and the run depended on the process count. Agreed over the processes (one may have written
     * alone), then the exchange a resume makes: migration for moved positions, fresh halo copies. */
    if (eddy_decomp_active(sim->world) && !eddy_decomp_all_ok(field_edits(sim->world) == sim->edits_seen)) {
        const int rc = eddy_decomp_exchange(sim->world, err);
        if (rc) return rc;
        sim->edits_seen = field_edits(sim->world);
    }
    double dt = sim->scene.dt;
    sim->dt_limit[0] = '\0';
    eddy_decomp_set_agreed(EDDY_OK); /* (an outcome is agreed for the step that reached it only) */
    const eddy_solver_vtable *v = sim->solver_vtable;
    if (v->max_dt) {
        double lim = INFINITY;
        const char *name = NULL;
        eddy_error_clear(err);
        const int failed = v->max_dt(sim->solver, sim->world, &lim, &name, err);
        /* The name is optional; messages read "the solver's <name> limit". */
        if (!name || !*name) name = "stability";
        if (failed) {
            /* (the step's start time, as a failed step() names it) */
            char where[EDDY_SCENE_ID_MAX + 80];
            snprintf(where, sizeof where, "solver '%s' at step %" PRIu64 " (t = %.6g s): ",
                     sim->solver_entry->component->id, sim->world->step + 1, sim->world->time);
            plugin_failed(sim, err, failed, "max_dt", where);
            lim = INFINITY;
        }
        /* +inf: no limit; anything else must be a usable step. A speed whose square overflows a
         * float (finite velocities of 1.8446743525e19 or more) makes every speed limit 0, and an acceleration
         * whose square does (from velocities of about 1e18, or gravity or stiffness as large) the force
         * limit: that is the state's fault, not the solver's, and before the first step (or right after
         * a resume) no explosion check has looked yet. The smallest limit over every process (a no-op
         * in one), with a non-positive or NaN one as 0, whether any process's speeds or accelerations
         * overflow, and the smallest and largest digest of the limits' names (alike on every process
         * for a solver whose limits are reduced, as sph_mueller's and tait's are: then nothing more is
         * needed to agree on the name), in one reduction that every process takes whatever its own
         * limit: the same step, or the same error, everywhere (a process that skipped it for a limit of
         * 0 left the others waiting in it). A process whose max_dt failed takes it too, with a flag:
         * then every process returns the first failing one's error, agreed (main says it once), where
         * the others waited in the reduction until that process stopped them all with MPI_Abort. */
        /* (53 bits: exact as a double, and two names alike by chance once in 9e15) */
        const double digest = (double)(eddy_fnv1a_str(EDDY_FNV1A_OFFSET, name) & ((UINT64_C(1) << 53) - 1));
        double agreed[6] = {lim > 0 ? lim : 0.0, isinf(eddy_world_step_stats(sim->world)->max_speed) ? -1.0 : 0.0,
                            lim == 0 && strcmp(name, ACCEL_OVERFLOW) == 0 ? -1.0 : 0.0, digest, -digest,
                            failed ? -1.0 : 0.0};
        eddy_error reduced;
        eddy_error_clear(&reduced);
        int rc = eddy_world_reduce(sim->world, EDDY_REDUCE_MIN, agreed, 6, &reduced);
        if (rc) return failed ? failed : (*err = reduced, rc);
        if (agreed[5] < 0) return eddy_decomp_agree_error(failed, err);
        const int mine = lim > 0 && lim == agreed[0];
        if (lim > 0) lim = agreed[0]; /* (0 where another's is not usable: this process fails too) */
        const int overflow = agreed[1] < 0, accel_overflow = agreed[2] < 0, names_alike = agreed[3] == -agreed[4];
        if (!(lim > 0) && overflow && (eddy_decomp_set_agreed(EDDY_ERR_UNSTABLE), 1))
            return eddy_error_set(err, EDDY_ERR_UNSTABLE,
                                  "at step %" PRIu64 " (t = %.6g s): the largest particle speed overflows single "
                                  "precision (a velocity of 1.8446743525e19 sim units/s or more), so no time step is stable; "
                                  "check the velocities the run starts from (a scene's are refused when it is read: "
                                  "a checkpoint's, or values written into the particles)",
                                  sim->world->step + 1, sim->world->time);
        if (!(lim > 0) && accel_overflow && (eddy_decomp_set_agreed(EDDY_ERR_UNSTABLE), 1))
            return eddy_error_set(err, EDDY_ERR_UNSTABLE,
                                  "at step %" PRIu64 " (t = %.6g s): the largest particle acceleration overflows "
                                  "single precision (1.8446743525e19 sim units/s^2 or more), so the force limit of solver '%s' "
                                  "is 0 and no time step is stable; check the state the run starts from: its "
                                  "velocities (a scene's below 1.8446743525e19 sim units/s pass when it is read, as do a "
                                  "checkpoint's and values written into the particles) and the scene's gravity and "
                                  "stiffness",
                                  sim->world->step + 1, sim->world->time, sim->solver_entry->component->id);
        if (!(lim > 0))
            return eddy_error_set(err, EDDY_ERR_PLUGIN,
                                  "solver '%s' at step %" PRIu64 " (t = %.6g s): max_dt returned %g; it must be finite "
                                  "and > 0",
                                  sim->solver_entry->component->id, sim->world->step + 1, sim->world->time, lim);
        /* A limit the clock cannot resolve (t + dt == t; e.g. a damaged force limit of 1e38 m/s^2 gives
         * 1e-21 s) would loop forever on a run that ends by time. */
        if (lim < dt && (double)sim->world->time + lim == (double)sim->world->time) {
            /* (every process is here: the same message from each, so it is said once) */
            char agreed_name[sizeof sim->dt_limit];
            snprintf(agreed_name, sizeof agreed_name, "%s", name);
            agree_limit_name(sim, agreed_name, mine);
            /* A speed that crosses a smoothing radius in less than a thousand limits explains the limit (a
             * CFL limit is a fraction of the crossing time): the state's fault (a checkpoint edited,
             * velocities written into the particles), not the solver's; a damaged limit at ordinary
             * speeds stays the solver's. The largest speed over every process, so that all say the same. */
            double speed = eddy_world_step_stats(sim->world)->max_speed;
            if ((rc = eddy_world_reduce(sim->world, EDDY_REDUCE_MAX, &speed, 1, err))) return rc;
            const double crossing = (double)sim->world->smoothing_radius / speed;
            if (speed > 0 && lim * 1e3 >= crossing &&
                (eddy_decomp_set_agreed(EDDY_ERR_UNSTABLE), 1))
                return eddy_error_set(err, EDDY_ERR_UNSTABLE,
                                      "at step %" PRIu64 ": the largest particle speed, %g sim units/s, makes the "
                                      "solver's %s limit %g s, too small to advance the clock from t = %.17g s (a "
                                      "particle crosses a smoothing radius in %g s); check the velocities the run "
                                      "starts from (the scene's, a checkpoint's, or values written into the "
                                      "particles)",
                                      sim->world->step + 1, speed, agreed_name, lim, (double)sim->world->time,
                                      crossing);
            return eddy_error_set(err, EDDY_ERR_PLUGIN,
                                  "solver '%s' at step %" PRIu64 ": max_dt returned %g s (%s), too small to advance "
                                  "the clock from t = %.17g s",
                                  sim->solver_entry->component->id, sim->world->step + 1, lim,
                                  agreed_name, (double)sim->world->time);
        }
        /* A run blowing up without a NaN: where the solver's limits shrink with the speeds, the steps
         * shrink with them and the crossing check after each step never trips (an unstable scheme ran
         * for hours at 22 km/s with steps of 4e-8 s). Against the run's first step (kept across a
         * resume), not time.dt, which a scene may set far above what the solver ever takes. The limit
         * is agreed, and so the first step: every process stops here together. */
        const double floor = sim->scene.min_dt_fraction * sim->first_dt;
        if (lim < floor) {
            char agreed_name[sizeof sim->dt_limit];
            snprintf(agreed_name, sizeof agreed_name, "%s", name);
            agree_limit_name(sim, agreed_name, mine);
            double speed = eddy_world_step_stats(sim->world)->max_speed;
            if ((rc = eddy_world_reduce(sim->world, EDDY_REDUCE_MAX, &speed, 1, err))) return rc;
            eddy_decomp_set_agreed(EDDY_ERR_UNSTABLE);
            return eddy_error_set(err, EDDY_ERR_UNSTABLE,
                                  "at step %" PRIu64 " (t = %.6g s): the solver's %s limit fell to %g s, under "
                                  "time.min_dt_fraction = %g of this run's first step (%g s), with the largest "
                                  "particle speed %g sim units/s: the run is blowing up, though no value is NaN; "
                                  "if steps this small are right for the flow, lower time.min_dt_fraction (0 turns "
                                  "this check off)",
                                  sim->world->step + 1, sim->world->time, agreed_name, lim,
                                  sim->scene.min_dt_fraction, sim->first_dt, speed);
        }
        if (lim < dt) {
            dt = lim;
            snprintf(sim->dt_limit, sizeof sim->dt_limit, "%s", name);
            /* (names_alike is reduced: every process takes this collective, or none) */
            if (!names_alike) agree_limit_name(sim, sim->dt_limit, mine);
        }
        say_dt_setter(sim, lim);
    }
    /* A moving collider stops at its moving_until: land a step there, as on an output time. */
    for (size_t i = 0; sim->scene.collider_moving_until && i < sim->scene.collider_count; ++i) {
        double until = sim->scene.collider_moving_until[i];
        /* (not when the clock sits within round-off of it already: no sliver steps) */
        if (!eddy_sim_time_reached(sim->world->time, until) && until < t_target) t_target = until;
    }
    const double remaining = t_target - sim->world->time;
    /* The step is the limit's doing where time.dt under the same landings would have been longer: a
     * landing time.dt shares is not, a halving time.dt would not have needed is. */
    const double scene_step = landing_step(sim->scene.dt, remaining);
    dt = landing_step(dt, remaining);
    sim->dt_limited = dt < scene_step;
    /* The scene's own step below the clock's resolution at this time (a run resumed late with a tiny
     * time.dt): every step would leave the clock where it is, for ever. */
    if (!((double)sim->world->time + dt > (double)sim->world->time))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "at step %" PRIu64 ": time.dt = %g s is too small to advance the clock from t = %.17g s "
                              "(below its resolution there); raise time.dt",
                              sim->world->step + 1, dt, (double)sim->world->time);
    /* The step taken, not the limit: time.dt may stand far above any step a run takes (a scene that
     * leaves the step to the solver), and a limit is +inf for a fluid at rest. */
    if (sim->first_dt == 0) sim->first_dt = dt;
    *dt_out = dt;
    return EDDY_OK;
}

int eddy_sim_check_end(const eddy_sim *sim, double t_end, eddy_error *err)
{
    const double steps = (t_end - sim->world->time) / sim->scene.dt;
    if (isfinite(t_end) && steps > 0x1p53)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "time.dt = %g s would take %.3g steps to reach t = %g s from t = %g s, more than the "
                              "2^53 a run can count; raise time.dt or end the run sooner",
                              sim->scene.dt, steps, t_end, (double)sim->world->time);
    return EDDY_OK;
}

/*
 * Prescribed wall motion (scene key colliders[].moving_until): after each step the colliders that move
 * are displaced by velocity * dt (eddy_collider_translate); once the time reaches moving_until their
 * velocity becomes 0, so contacts and mirror ghosts see a wall at rest. The scene's colliders are the
 * last ones of the world's list, after the container walls.
 */
static void move_colliders(eddy_sim *sim, double t_before, double dt)
{
    eddy_boundaries *b = &sim->world->boundaries;
    const size_t n = sim->scene.collider_count;
    if (n == 0 || !sim->scene.collider_moving_until || b->collider_count < n) return;
    const size_t base = b->collider_count - n;
    for (size_t i = 0; i < n; ++i) {
        const double until = sim->scene.collider_moving_until[i];
        if (!(until > t_before)) continue;
        eddy_collider *c = &b->colliders[base + i];
        eddy_collider_translate(c, sim->world->dimensions, dt);
        if (eddy_sim_time_reached(sim->world->time, until)) c->velocity[0] = c->velocity[1] = c->velocity[2] = 0.0f;
    }
}

/*
 * What the explosion message says about the first particle with a non-finite value (the smallest id):
 * its id, and for a velocity whether it is NaN or infinite. Only on this error path does the host read
 * particles between frames (a device solver downloads the field here).
 */
static int first_nonfinite(eddy_world *w, const eddy_step_stats *st, int field, uint64_t *id, int *is_nan,
                           eddy_error *err)
{
    *id = UINT64_MAX;
    *is_nan = 1;
    eddy_field_view v;
    memset(&v, 0, sizeof v);
    v.size = sizeof v;
    if (st->first_nonfinite == SIZE_MAX) return EDDY_OK;
    /* A failed download is the error to report: the figures may come from a stale host copy. */
    int rc = eddy_world_map_field(w, field, EDDY_MAP_READ, &v, err);
    if (rc) return rc;
    const size_t i = st->first_nonfinite;
    if (i < v.count) {
        *id = v.id[i];
        *is_nan = 0;
        for (int c = 0; c < v.components && c < 3; ++c)
            if (isnan(v.data[c][i])) *is_nan = 1;
    }
    eddy_world_unmap_field(w, &v);
    return EDDY_OK;
}

/* On a split run the statistics are reduced, so every process takes the same branch of exploded(), but
 * the first non-finite particle is one process's: the processes agree on the lowest id (and whether
 * its value is NaN), so that all say the same. The failure of one to read its field is agreed too. */
static int agree_on_first(const eddy_world *w, int rc, uint64_t *id, int *is_nan)
{
    if (!eddy_decomp_active(w)) return rc;
    /* (id, not-NaN) in one number, plus one, so that one reduction also carries a failure (0); ids stay
     * below 2^62. UINT64_MAX: no such particle here. */
    uint64_t key = rc ? 0 : *id == UINT64_MAX ? UINT64_MAX : ((*id << 1) | (uint64_t)!*is_nan) + 1;
    key = eddy_decomp_min_u64(key);
    if (key == 0) return rc ? rc : EDDY_ERR_IO;
    *id = key == UINT64_MAX ? UINT64_MAX : (key - 1) >> 1;
    *is_nan = key == UINT64_MAX ? 1 : !((key - 1) & 1);
    return EDDY_OK;
}

static int checking_failed(const eddy_world *w, eddy_error *err)
{
    return eddy_error_prefix(err, "checking the state after step %" PRIu64 " (t = %.6g s): ", w->step, w->time);
}

/* `solver`: the component's id, named in the message, since a comparison's runs differ by it alone.
 * `calm_speed`: the largest speed before the step (the step before's, over every process) when at it no
 * particle moves a tenth of a smoothing radius in this step's dt, else NaN. */
static int exploded(eddy_world *w, const eddy_step_stats *st, double dt, const char *solver, double calm_speed,
                    eddy_error *err)
{
    static const char HINT[] = "hint: lower the time step, stiffness, gravity or viscosity";
    char hint[512], resolution[256];
    snprintf(hint, sizeof hint, "%s", HINT);
    /* An instability grows over steps; a NaN or an infinity out of one calm step is more likely a
     * division by zero or an unset value in the solver, which the usual hint points away from. */
    if ((st->nonfinite_velocity || st->nonfinite_position) && !isnan(calm_speed))
        snprintf(hint, sizeof hint, "the step began calm (largest speed %.3g sim units/s, %.2g smoothing radii "
                 "per step), so look first for a division by zero or an unset value in the solver's step "
                 "(docs/plugin-guide.md, \"Error reporting\"); else %s", calm_speed,
                 calm_speed * dt / w->smoothing_radius, HINT + strlen("hint: "));
    char what[192];
    uint64_t id;
    int is_nan, rc;
    if (st->nonfinite_velocity) {
        rc = agree_on_first(w, first_nonfinite(w, st, EDDY_FIELD_VELOCITY, &id, &is_nan, err), &id, &is_nan);
        if (rc) return checking_failed(w, err);
        if (id != UINT64_MAX)
            snprintf(what, sizeof what, "a particle velocity is %s (particle id %" PRIu64 "%s)", is_nan ? "NaN" : "infinite",
                     id, st->nonfinite_velocity > 1 ? " and others" : "");
        else
            snprintf(what, sizeof what, "a particle velocity is %s", is_nan ? "NaN" : "infinite");
    } else if (st->nonfinite_position) {
        rc = agree_on_first(w, first_nonfinite(w, st, EDDY_FIELD_POSITION, &id, &is_nan, err), &id, &is_nan);
        if (rc) return checking_failed(w, err);
        if (id != UINT64_MAX)
            snprintf(what, sizeof what, "particle id %" PRIu64 " has a non-finite position%s", id,
                     st->nonfinite_position > 1 ? " (and others)" : "");
        else
            snprintf(what, sizeof what, "a particle position is not finite");
    } else if (!isfinite(st->max_speed) || st->max_speed * dt > (double)w->smoothing_radius) {
        snprintf(what, sizeof what, "max speed %.4g (sim units/s) moves a particle %.3g smoothing radii per step",
                 st->max_speed, st->max_speed * dt / w->smoothing_radius);
    } else {
        return EDDY_OK;
    }
    /* A spacing too close to h is a cause none of the usual knobs reaches: said where it applies. */
    const size_t used = strlen(hint);
    snprintf(hint + used, sizeof hint - used, "%s", eddy_scene_resolution_hint(w, resolution, sizeof resolution));
    /* Reached by every process at this step (the statistics are reduced): main says it once. */
    eddy_decomp_set_agreed(EDDY_ERR_UNSTABLE);
    return eddy_error_set(err, EDDY_ERR_UNSTABLE, "simulation exploded at step %" PRIu64 " (t = %.6g s) with solver '%s': %s; %s",
                          w->step, w->time, solver ? solver : "", what, hint);
}

int eddy_sim_step(eddy_sim *sim, double dt, eddy_error *err)
{
    eddy_world *w = sim->world;
    const eddy_component *sc = sim->solver_entry->component;
    const eddy_solver_vtable *v = sim->solver_vtable;
    /* The stop request of a caller without a plan of its own (bench, advance_to): the step is not
     * taken, as eddy_sim_run_plan does before each step. */
    const volatile sig_atomic_t *stop = eddy_services_stop_flag();
    char sig[48];
    if (*stop)
        return eddy_error_set(err, EDDY_ERR_INTERRUPTED, "interrupted by %s at step %llu (t = %.6g s)",
                              eddy_services_signal_text((int)*stop, sig, sizeof sig), (unsigned long long)w->step, w->time);
    char where[EDDY_SCENE_ID_MAX + 80];
    eddy_error_clear(err);
    eddy_decomp_set_agreed(EDDY_OK);
    /* Whether the step begins calm: the largest speed of the step before over every process (the
     * world's figures now are this process's own: the exchange after that step dropped the reduced
     * ones), moving no particle a tenth of a smoothing radius in this step's dt. Unknown before this
     * session's first step. */
    const double speed_before = sim->last_max_speed;
    const double calm_speed = isfinite(speed_before) && speed_before * dt <= 0.1 * w->smoothing_radius ? speed_before
                                                                                                         : NAN;
    /* (cell, id) order, so sums do not depend on which process owns a particle (decomp.h). */
    int rc = name_grid(sim, eddy_decomp_canonical_order(w, sc, err), err);
    if (!rc) {
        eddy_error_clear(err);
        rc = v->step(sim->solver, w, dt, err);
    }
    /* A split run: whether a process failed within the step, the same answer and error everywhere. */
    rc = eddy_decomp_step_outcome(w, rc, err);
    if (rc) {
        snprintf(where, sizeof where, "solver '%s' at step %llu (t = %.6g s): ", sc->id,
                 (unsigned long long)w->step + 1, w->time);
        return plugin_failed(sim, err, rc, "step", where);
    }
    w->step++;
    sim->last_dt = dt;
    const double t_before = w->time;
    w->time += dt;
    move_colliders(sim, t_before, dt);
    /* One reduction per step: the solver's (device-resident particles) or the core's parallel pass,
     * cached for the max_dt() of the next step. */
    if (v->reduce) {
        eddy_step_stats st;
        memset(&st, 0, sizeof st);
        st.size = sizeof st;
        st.step = w->step;
        st.first_nonfinite = SIZE_MAX;
        eddy_error_clear(err);
        if ((rc = v->reduce(sim->solver, w, &st, err))) {
            snprintf(where, sizeof where, "solver '%s' at step %" PRIu64 " (t = %.6g s): reduce: ", sc->id, w->step,
                     w->time);
            return plugin_failed(sim, err, rc, "reduce", where);
        }
        eddy_world_set_step_stats(w, &st);
    }
    if ((rc = eddy_decomp_reduce_stats(w, err))) return rc;
    sim->last_max_speed = eddy_world_step_stats(w)->max_speed;
    if ((rc = exploded(w, eddy_world_step_stats(w), dt, sc->id, calm_speed, err))) return rc;
    /* A split run finds a particle that left the domain here, on every process alike; one process finds
     * it in the next step's grid build, whose error reads as this one does. */
    if ((rc = eddy_decomp_check_domain(w, err))) {
        snprintf(where, sizeof where, "solver '%s' at step %llu (t = %.6g s): ", sc->id, (unsigned long long)w->step + 1,
                 w->time);
        return eddy_error_prefix(err, "%s", where);
    }
    if ((rc = eddy_decomp_exchange(w, err))) return rc;
    sim->edits_seen = field_edits(w);
    return EDDY_OK;
}

int eddy_sim_advance_to(eddy_sim *sim, double t_end, eddy_error *err)
{
    if (eddy_sim_check_end(sim, t_end, err)) return err->code;
    while (!eddy_sim_time_reached(sim->world->time, t_end)) {
        double dt = 0.0;
        int rc = eddy_sim_next_dt(sim, t_end, &dt, err);
        if (rc) return rc;
        if ((rc = eddy_sim_step(sim, dt, err))) return rc;
        if (eddy_sim_time_reached(sim->world->time, t_end)) sim->world->time = t_end;
    }
    return EDDY_OK;
}

int eddy_sim_at_frame(const eddy_sim *sim, int frame)
{
    const double interval = sim->scene.output_interval;
    return fabs(sim->world->time - frame * interval) <= 1e-9 * interval;
}

int eddy_sim_plan_done(const eddy_sim *sim, const eddy_sim_plan *plan)
{
    const eddy_world *w = sim->world;
    return plan->end_steps >= 0 ? (long long)w->step >= plan->end_steps
                                : eddy_sim_time_reached(w->time, plan->end_time);
}

int eddy_sim_run_plan(eddy_sim *sim, eddy_sim_plan *plan, int *last_on_frame, eddy_error *err)
{
    eddy_world *w = sim->world;
    const double interval = sim->scene.output_interval;
    const double t_stop = plan->end_steps >= 0 ? INFINITY : plan->end_time;
    int on_frame = 1, rc = eddy_sim_check_end(sim, t_stop, err);
    if (rc) {
        if (last_on_frame) *last_on_frame = on_frame;
        return rc;
    }
    while (!eddy_sim_plan_done(sim, plan)) {
        if (plan->stop && *plan->stop) {
            char sig[48];
            rc = eddy_error_set(err, EDDY_ERR_INTERRUPTED, "interrupted by %s at step %llu (t = %.6g s)",
                                eddy_services_signal_text((int)*plan->stop, sig, sizeof sig),
                                (unsigned long long)w->step, w->time);
            break;
        }
        if (plan->cancel && plan->cancel(plan->user)) {
            rc = eddy_error_set(err, EDDY_ERR_INTERRUPTED, "cancelled at step %llu (t = %.6g s)",
                                (unsigned long long)w->step, w->time);
            break;
        }
        const double next_frame = plan->next_frame * interval;
        double dt = 0.0;
        if ((rc = eddy_sim_next_dt(sim, next_frame < t_stop ? next_frame : t_stop, &dt, err))) break;
        const double t0 = eddy_time_ms();
        rc = eddy_sim_step(sim, dt, err);
        const double step_ms = eddy_time_ms() - t0;
        on_frame = 0;
        if (rc) break;
        if (eddy_sim_at_frame(sim, plan->next_frame)) {
            w->time = next_frame;
            if (plan->on_frame && (rc = plan->on_frame(plan->user, plan->next_frame, err))) break;
            plan->next_frame++;
            on_frame = 1;
        }
        if (plan->on_step) plan->on_step(plan->user, step_ms);
    }
    if (last_on_frame) *last_on_frame = on_frame;
    return rc;
}
