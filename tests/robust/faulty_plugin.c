/*
 * A solver that misbehaves on request, for the host's checks of plugin outputs (host/session/sim.c), and the
 * same source under other ids for the rules on component ids across plugin folders (registry.c).
 *
 *   fault = "none"          gravity only, like a plain solver (eddy_world_symplectic_euler)
 *           "dt_zero"       max_dt returns 0
 *           "dt_negative"   max_dt returns -1
 *           "dt_nan"        max_dt returns NaN
 *           "position_nan"  at step `at_step` the particle with id 7 gets a NaN y (velocities finite)
 *           "step_error_empty"    at step `at_step` step() returns EDDY_ERR_UNSUPPORTED with no message
 *           "max_dt_error_empty"  max_dt() returns EDDY_ERR_DEVICE with no message
 *           "create_error_empty"  create() returns EDDY_ERR_INVALID_ARGUMENT with no message
 *           "create_no_out" create() returns success without setting *out
 *           "dt_tiny"       max_dt returns 1e-21 s from step `at_step` on (t + dt == t there)
 *           "dt_unnamed"    max_dt returns 1e-5 s and leaves the limit's name unset (it is optional)
 *           "save_empty"    save() returns success with an empty record (plugin.h asks for > 0 bytes)
 *           "dt_by_side"    max_dt names its limit by where the process's owned particles are: 2e-5 s
 *                           "left" with all of them at x < side_x, else 1e-5 s "right"; from step
 *                           `at_step` on (when it is > 1) "right" is 1e-21 s instead (t + dt == t)
 *           "slow_create"   create() sleeps `sleep_s` seconds: a load that takes long, for the signal
 *                           tests (nothing has been written while a solver is created)
 *           "dt_zero_force" max_dt returns 0 named "force", as a force limit of its own gone wrong would
 *           "accel_overflow"  from step `at_step` on, max_dt is eddy_world_stable_dt's with an infinite
 *                           acceleration (what eddy_sph_max_accel gives when its square overflows a float)
 *           "accel_overflow_by_side"  as dt_by_side, but the right side's limit is accel_overflow's
 *           "dt_window"     max_dt returns 1e-5 s "test" at steps `at_step` and `at_step` + 1, else +inf
 *           "max_dt_error_by_side"  from step `at_step` on, max_dt fails (EDDY_ERR_DEVICE, "device lost")
 *                           on a process that owns a particle at x >= side_x (as dt_by_side's right)
 *           "bad_accel_field"  steps with eddy_world_symplectic_euler(w, 12345, dt): no such field
 *           "dt_runaway"    from step `at_step` on, max_dt returns 1e-4 s "CFL" halved every step (a
 *                           blow-up without a NaN), else +inf
 *
 * Build definitions: COMPONENT_ID (default "robust_faulty"), PLUGIN_NAME, INTERFACE_ID (default the
 * solver interface; another one makes a component of another kind); SAVE_WITHOUT_LOAD: the vtable
 * has save() but no load(), so its checkpoints could not be resumed; DECOMPOSABLE: the component is
 * (a gravity-only step updates every particle; the host overwrites halo copies between steps);
 * NO_DESCRIPTION: the solver's description is NULL (the ABI allows it: the plugin loads);
 * ESCAPED_TEXT: its description and a parameter's doc and unit hold escape sequences (ESC [ 2 J clears
 * a terminal's screen) that `eddy describe` must not pass on; create() logs a warning whose component
 * and text hold some, and with fault step_error_empty fails with an error that holds one;
 * OTHER_KINDS: the plugin also provides a writer COMPONENT_ID "_writer", a probe COMPONENT_ID "_probe"
 * and a grid COMPONENT_ID "_grid", each with a `fault` of its own:
 *
 *   fault = "none"          the writer writes nothing, the probe measures 0, the grid is the CPU grid
 *           "create_no_out" create() returns success without setting *out
 *           "dup_perm"      (the grid) the sort puts one particle at two positions
 *
 * (one kind per create() the host checks: the solver's is above, with the solver faults)
 */
#include <eddy/eddy.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifndef COMPONENT_ID
#define COMPONENT_ID "robust_faulty"
#endif
#ifndef INTERFACE_ID
#define INTERFACE_ID EDDY_INTERFACE_SOLVER
#endif
#ifndef PLUGIN_NAME
#define PLUGIN_NAME "robust_faulty"
#endif

enum {
    FAULT_NONE,
    FAULT_DT_ZERO,
    FAULT_DT_NEGATIVE,
    FAULT_DT_NAN,
    FAULT_POSITION_NAN,
    FAULT_STEP_ERROR_EMPTY,
    FAULT_MAX_DT_ERROR_EMPTY,
    FAULT_CREATE_ERROR_EMPTY,
    FAULT_SLOW_CREATE,
    FAULT_DT_TINY,
    FAULT_DT_UNNAMED,
    FAULT_SAVE_EMPTY,
    FAULT_DT_BY_SIDE,
    FAULT_CREATE_NO_OUT,
    FAULT_DT_ZERO_FORCE,
    FAULT_ACCEL_OVERFLOW,
    FAULT_ACCEL_OVERFLOW_BY_SIDE,
    FAULT_DT_WINDOW,
    FAULT_MAX_DT_ERROR_BY_SIDE,
    FAULT_BAD_ACCEL_FIELD,
    FAULT_DT_RUNAWAY
};

struct eddy_solver {
    int fault;
    int64_t at_step;
    double side_x;
};

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    const eddy_param_value *fault = eddy_param_find_value(setup->params, "fault");
    const eddy_param_value *at = eddy_param_find_value(setup->params, "at_step");
    const eddy_param_value *sleep_s = eddy_param_find_value(setup->params, "sleep_s");
    const eddy_param_value *side_x = eddy_param_find_value(setup->params, "side_x");
    const int f = fault ? (int)fault->integer : FAULT_NONE;
#ifdef ESCAPED_TEXT
    eddy_host_log(setup->host, EDDY_LOG_WARNING, "comp\033]0;t\007", "a log line \033[2Jhere");
    if (f == FAULT_STEP_ERROR_EMPTY)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "an error \033[2Jhere, of %d bytes", 4000);
#endif
    if (f == FAULT_CREATE_ERROR_EMPTY) return EDDY_ERR_INVALID_ARGUMENT; /* err left as the host gave it */
    if (f == FAULT_CREATE_NO_OUT) return EDDY_OK;                         /* (the classic slip) */
    if (f == FAULT_SLOW_CREATE && sleep_s) {
        struct timespec ts = {(time_t)sleep_s->number, 0};
        while (nanosleep(&ts, &ts) != 0) {
        }
    }
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    s->fault = f;
    s->at_step = at ? at->integer : 1;
    s->side_x = side_x ? side_x->number : 0.0;
    *out = s;
    return EDDY_OK;
}

static int step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    (void)err;
    const int now = (int64_t)w->step + 1 == s->at_step;
    if (s->fault == FAULT_STEP_ERROR_EMPTY && now) return EDDY_ERR_UNSUPPORTED;
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    eddy_world_symplectic_euler(w, s->fault == FAULT_BAD_ACCEL_FIELD ? 12345 : -1, (eddy_real)dt);
    if (s->fault == FAULT_POSITION_NAN && now)
        for (size_t i = 0; i < w->particles.count; ++i)
            if (w->particles.id[i] == 7) w->particles.y[i] = NAN;
    return EDDY_OK;
}

static void destroy(eddy_solver *s)
{
    free(s);
}

static int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    if (s->fault == FAULT_DT_UNNAMED) {
        *dt = 1e-5;
        return EDDY_OK;
    }
    *limit = "test";
    switch (s->fault) {
    case FAULT_DT_ZERO: *dt = 0.0; break;
    case FAULT_DT_NEGATIVE: *dt = -1.0; break;
    case FAULT_DT_NAN: *dt = NAN; break;
    case FAULT_DT_TINY: *dt = w->step + 1 >= (uint64_t)s->at_step ? 1e-21 : INFINITY; break;
    case FAULT_MAX_DT_ERROR_EMPTY: return EDDY_ERR_DEVICE;
    case FAULT_DT_ZERO_FORCE:
        *dt = 0.0;
        *limit = "force";
        break;
    case FAULT_ACCEL_OVERFLOW:
        *dt = w->step + 1 >= (uint64_t)s->at_step ? eddy_world_stable_dt(w, 0.4, 0.0, 0.0, INFINITY, limit) : INFINITY;
        break;
    case FAULT_MAX_DT_ERROR_BY_SIDE:
    case FAULT_ACCEL_OVERFLOW_BY_SIDE:
    case FAULT_DT_BY_SIDE: {
        const eddy_particles *p = &w->particles;
        int right = 0;
        for (size_t i = 0; i < p->count && !right; ++i)
            right = !eddy_particle_is_halo(p, i) && p->x[i] >= s->side_x;
        if (s->fault == FAULT_MAX_DT_ERROR_BY_SIDE) {
            *dt = INFINITY;
            if (right && w->step + 1 >= (uint64_t)s->at_step)
                return eddy_error_set(err, EDDY_ERR_DEVICE, "device lost (the side at x >= %g)", s->side_x);
            break;
        }
        const int tiny = s->at_step > 1 && w->step + 1 >= (uint64_t)s->at_step;
        *dt = right ? (tiny ? 1e-21 : 1e-5) : 2e-5;
        *limit = right ? "right" : "left";
        if (right && s->fault == FAULT_ACCEL_OVERFLOW_BY_SIDE)
            *dt = eddy_world_stable_dt(w, 0.4, 0.0, 0.0, INFINITY, limit);
        break;
    }
    /* A blow-up without a NaN: the limit halves every step from at_step on, as a CFL limit does while
     * the speeds double. */
    case FAULT_DT_RUNAWAY:
        *dt = w->step + 1 >= (uint64_t)s->at_step ? 1e-4 * ldexp(1.0, -(int)(w->step + 1 - (uint64_t)s->at_step)) : INFINITY;
        *limit = "CFL";
        break;
    case FAULT_DT_WINDOW: {
        const uint64_t next = w->step + 1, at = (uint64_t)s->at_step;
        *dt = next >= at && next <= at + 1 ? 1e-5 : INFINITY;
        break;
    }
    default: *dt = INFINITY; break;
    }
    return EDDY_OK;
}

#define STATE_TAG "robust_faulty/1"

static int save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    if (s->fault == FAULT_SAVE_EMPTY) {
        *data = NULL;
        *size = 0;
        return EDDY_OK;
    }
    return eddy_state_save_floats(STATE_TAG, NULL, 0, data, size, err);
}

#ifndef SAVE_WITHOUT_LOAD
static int load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    (void)s;
    return eddy_state_load_floats(STATE_TAG, NULL, 0, data, size, err);
}
#endif

static const eddy_solver_vtable VTABLE = {
    .size = sizeof(eddy_solver_vtable),
    .create = create,
    .step = step,
    .destroy = destroy,
    .max_dt = max_dt,
    .save = save,
#ifndef SAVE_WITHOUT_LOAD
    .load = load,
#endif
};

static const char *const FAULTS[] = {"none",         "dt_zero",          "dt_negative",
                                     "dt_nan",       "position_nan",     "step_error_empty",
                                     "max_dt_error_empty", "create_error_empty", "slow_create",
                                     "dt_tiny",      "dt_unnamed",       "save_empty",
                                     "dt_by_side",   "create_no_out",    "dt_zero_force",
                                     "accel_overflow", "accel_overflow_by_side", "dt_window",
                                     "max_dt_error_by_side", "bad_accel_field", "dt_runaway", NULL};

static const eddy_param_desc PARAMS[] = {
    EDDY_PARAM_ENUM_DESC("fault", 0, FAULTS, "What goes wrong."),
    EDDY_PARAM_INT_DESC("at_step", 1, 1, 1000000, "1", "The step at which a step fault strikes."),
    EDDY_PARAM_REAL_DESC("sleep_s", 30, 0, 3600, "s", "How long slow_create takes."),
#ifdef ESCAPED_TEXT
    EDDY_PARAM_REAL_DESC("side_x", 0, -1e6, 1e6, "m\033[2J", "Where\033]0;title\007 dt_by_side's right side begins."),
#else
    EDDY_PARAM_REAL_DESC("side_x", 0, -1e6, 1e6, "m", "Where dt_by_side's right side begins."),
#endif
};

static const eddy_component COMPONENT = {
    .size = sizeof(eddy_component),
    .interface_id = INTERFACE_ID,
    .id = COMPONENT_ID,
    .version = "0.0.1",
#ifdef NO_DESCRIPTION
    .description = NULL,
#elif defined(ESCAPED_TEXT)
    .description = "clears\033[2Jthe screen",
#else
    .description = "test solver: gravity only, misbehaves on request",
#endif
    .params = PARAMS,
    .param_count = sizeof PARAMS / sizeof PARAMS[0],
    .vtable = &VTABLE,
#ifdef DECOMPOSABLE
    .flags = EDDY_COMPONENT_DECOMPOSABLE,
#endif
};

#ifdef OTHER_KINDS
enum { KIND_FAULT_NONE, KIND_FAULT_CREATE_NO_OUT, KIND_FAULT_DUP_PERM };

static const char *const KIND_FAULTS[] = {"none", "create_no_out", "dup_perm", NULL};

static const eddy_param_desc KIND_PARAMS[] = {
    EDDY_PARAM_ENUM_DESC("fault", 0, KIND_FAULTS, "What goes wrong."),
};

/* The value of `fault` from a component's validated parameters (the table above: its only entry). */
static int kind_fault(const eddy_param_values *params)
{
    const eddy_param_value *fault = eddy_param_find_value(params, "fault");
    return fault ? (int)fault->integer : KIND_FAULT_NONE;
}

static int writer_create(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    (void)err;
    if (kind_fault(setup->params) == KIND_FAULT_CREATE_NO_OUT) return EDDY_OK;
    *out = NULL; /* (a writer without state) */
    return EDDY_OK;
}

static int writer_write_frame(eddy_writer *writer, const eddy_frame *frame, eddy_error *err)
{
    (void)writer;
    (void)frame;
    (void)err;
    return EDDY_OK;
}

static void writer_destroy(eddy_writer *writer)
{
    (void)writer;
}

static const eddy_writer_vtable WRITER_VTABLE = {
    .size = sizeof(eddy_writer_vtable),
    .create = writer_create,
    .write_frame = writer_write_frame,
    .destroy = writer_destroy,
};

static int probe_create(const eddy_probe_setup *setup, eddy_probe **out, eddy_error *err)
{
    (void)err;
    if (kind_fault(setup->params) == KIND_FAULT_CREATE_NO_OUT) return EDDY_OK;
    *out = NULL;
    return EDDY_OK;
}

static int probe_measure(eddy_probe *probe, const eddy_frame *frame, double *value, eddy_error *err)
{
    (void)probe;
    (void)frame;
    (void)err;
    *value = 0.0;
    return EDDY_OK;
}

static void probe_destroy(eddy_probe *probe)
{
    (void)probe;
}

static const eddy_probe_vtable PROBE_VTABLE = {
    .size = sizeof(eddy_probe_vtable),
    .create = probe_create,
    .measure = probe_measure,
    .destroy = probe_destroy,
};

/* Without the fault, the core's CPU grid does the work, so that a run with this grid steps as usual;
 * "dup_perm": its permutation puts particle perm[0] at position 1 too (the ranges right), one particle
 * doubled and another lost, which the core refuses (a grid-plugin trial's backend ran on). */
typedef struct grid_state {
    void *cpu;
    int fault;
} grid_state;

static int grid_create(const eddy_grid_setup *setup, void **state, eddy_error *err)
{
    const int fault = kind_fault(setup->params);
    if (fault == KIND_FAULT_CREATE_NO_OUT) return EDDY_OK;
    grid_state *g = calloc(1, sizeof *g);
    if (!g) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    g->fault = fault;
    const int rc = eddy_cpu_grid_backend()->create(setup, &g->cpu, err);
    if (rc) free(g);
    else *state = g;
    return rc;
}

static int grid_sort(void *state, const eddy_grid_layout *layout, size_t n, const eddy_real *x, const eddy_real *y,
                     const eddy_real *z, uint32_t *perm, uint32_t *cell_begin, uint32_t *cell_end, eddy_error *err)
{
    grid_state *g = state;
    const int rc = eddy_cpu_grid_backend()->sort(g->cpu, layout, n, x, y, z, perm, cell_begin, cell_end, err);
    if (!rc && g->fault == KIND_FAULT_DUP_PERM && n > 1) perm[1] = perm[0];
    return rc;
}

static void grid_destroy(void *state)
{
    grid_state *g = state;
    if (!g) return;
    eddy_cpu_grid_backend()->destroy(g->cpu);
    free(g);
}

static const eddy_grid_backend_vtable GRID_VTABLE = {
    .size = sizeof(eddy_grid_backend_vtable),
    .create = grid_create,
    .sort = grid_sort,
    .destroy = grid_destroy,
};

#define KIND_COMPONENT(name, interface, suffix, vt)                                                     \
    static const eddy_component name = {                                                                \
        .size = sizeof(eddy_component),                                                                 \
        .interface_id = interface,                                                                      \
        .id = COMPONENT_ID suffix,                                                                      \
        .version = "0.0.1",                                                                             \
        .description = "test " #vt ": create() misbehaves on request",                                  \
        .params = KIND_PARAMS,                                                                          \
        .param_count = sizeof KIND_PARAMS / sizeof KIND_PARAMS[0],                                      \
        .vtable = &vt,                                                                                  \
    }
KIND_COMPONENT(WRITER_COMPONENT, EDDY_INTERFACE_WRITER, "_writer", WRITER_VTABLE);
KIND_COMPONENT(PROBE_COMPONENT, EDDY_INTERFACE_PROBE, "_probe", PROBE_VTABLE);
KIND_COMPONENT(GRID_COMPONENT, EDDY_INTERFACE_GRID, "_grid", GRID_VTABLE);

static const eddy_component *const COMPONENTS[] = {&COMPONENT, &WRITER_COMPONENT, &PROBE_COMPONENT, &GRID_COMPONENT};
#else
static const eddy_component *const COMPONENTS[] = {&COMPONENT};
#endif

static const eddy_plugin_descriptor DESCRIPTOR = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = PLUGIN_NAME,
    .version = "0.0.1",
    .component_count = sizeof COMPONENTS / sizeof COMPONENTS[0],
    .components = COMPONENTS,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void)
{
    return &DESCRIPTOR;
}
