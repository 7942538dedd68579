/*
 * python/src/_eddy.c — the CPython extension under the `eddy` package (docs/python.md).
 *
 * A thin layer over the host's session C API (host/session/session.h) and the observe layer
 * (diagnostics, probes, outputs): everything a simulation does is the host's code, so a run from
 * Python reaches the states, hashes and messages of the `eddy` command. The pure-Python package
 * (python/eddy/__init__.py) builds the friendly objects on top; this file holds what needs C:
 *
 *   - zero-copy NumPy views of the particle fields, whose base is the Core that owns the session,
 *     so an array keeps the memory it views alive (the session is closed when the last reference,
 *     the Simulation's or an array's, goes);
 *   - stepping with the GIL released, SIGINT turned into the host's stop flag for the duration of
 *     the call and given back to Python afterwards (KeyboardInterrupt at a step boundary); Python's
 *     other signal handlers run at every frame and every 0.1 s of stepping (run_cancel);
 *   - the measurements of every output frame (diagnostics and probes) gathered in C during a run.
 *
 * Threads: a Core is used by one thread at a time (session.h); the GIL is released only around the
 * session's own calls, and a Python callback re-takes it.
 *
 * Processes: a child made by os.fork() (multiprocessing's fork start method) has a copy of every Core,
 * not its output folder (folder_lock.h) nor the parent's files: there a Core reads, and refuses to step
 * or write with eddy.Error (session.h, "Processes"); closing or collecting it frees nothing.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "compare.h"
#include "diagnostics.h"
#include "folder_lock.h"
#include "frame.h"
#include "output.h"
#include "probes.h"
#include "run_folder.h"
#include "run_record.h"
#include "scene.h"
#include "services.h"
#include "session.h"
#include "unused_sets.h"

/* The arrays are NPY_FLOAT32 views of eddy_real storage. */
_Static_assert(sizeof(eddy_real) == 4, "eddy_real is not float32: the field views would misread the storage");

/* ------------------------------------------------------------------------------------------------ */
/* Exceptions: one class per kind of failure, each carrying the core's message and its status code.  */
/* ------------------------------------------------------------------------------------------------ */

static PyObject *Error, *SceneError, *NotFoundError, *PluginError, *UnstableError, *FileError, *DeviceError;

static PyObject *class_of(int code)
{
    switch (code) {
    case EDDY_ERR_INVALID_ARGUMENT:
    case EDDY_ERR_PARSE: return SceneError;
    case EDDY_ERR_NOT_FOUND: return NotFoundError;
    case EDDY_ERR_PLUGIN:
    case EDDY_ERR_UNSUPPORTED: return PluginError;
    case EDDY_ERR_UNSTABLE:
    case EDDY_ERR_DOMAIN: return UnstableError;
    case EDDY_ERR_IO: return FileError;
    case EDDY_ERR_DEVICE: return DeviceError;
    default: return Error;
    }
}

/* Raises the exception of err->code with the message `eddy` prints after "eddy: error: ". */
static PyObject *raise_error(const eddy_error *err, int rc)
{
    const int code = err->code ? err->code : rc;
    if (code == EDDY_ERR_OUT_OF_MEMORY) {
        /* MemoryError with the core's words ("out of memory for N particles"), not an empty one. */
        PyErr_SetString(PyExc_MemoryError, err->message[0] ? err->message : eddy_strerror(code));
        return NULL;
    }
    PyObject *cls = class_of(code);
    PyObject *exc = PyObject_CallFunction(cls, "s", err->message[0] ? err->message : eddy_strerror(code));
    if (!exc) return NULL;
    PyObject *c = PyLong_FromLong(code);
    PyObject *s = PyUnicode_FromString(eddy_strerror(code));
    if (!c || !s || PyObject_SetAttrString(exc, "code", c) || PyObject_SetAttrString(exc, "status", s)) {
        Py_XDECREF(c);
        Py_XDECREF(s);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(c);
    Py_DECREF(s);
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    return NULL;
}

/* ------------------------------------------------------------------------------------------------ */
/* SIGINT: Python's handler while Python runs, the host's stop flag while the session steps.         */
/* ------------------------------------------------------------------------------------------------ */

static volatile sig_atomic_t *stop_flag;

static void on_sigint(int sig) { *stop_flag = sig; }

typedef struct sig_guard {
    struct sigaction old_int, old_term;
    int saved_term;
} sig_guard;

/* Before a call that steps: the stop flag cleared, SIGINT sets it (unless SIGINT is ignored, as in
 * a background job, where it stays ignored). `save_term`: the call may install the host's own
 * handlers (eddy compare does), so SIGTERM's is saved to be put back too. */
static void guard_begin(sig_guard *g, int save_term)
{
    *stop_flag = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &g->old_int);
    if (g->old_int.sa_handler == SIG_IGN) sigaction(SIGINT, &g->old_int, NULL);
    g->saved_term = save_term && sigaction(SIGTERM, NULL, &g->old_term) == 0;
}

/* After it: Python's handlers back; a SIGINT that arrived meanwhile is handed to Python's own
 * handler (KeyboardInterrupt by default). Returns -1 with the exception set when that raised. */
static int guard_end(sig_guard *g)
{
    sigaction(SIGINT, &g->old_int, NULL);
    if (g->saved_term) sigaction(SIGTERM, &g->old_term, NULL);
    const int sig = *stop_flag;
    *stop_flag = 0;
    if (sig == SIGINT) {
        PyErr_SetInterrupt();
        /* An exception already set (an on_frame's, a signal handler's raised during the run) is the
         * call's outcome: Python's SIGINT handler must not run with it pending (a SystemError), so the
         * interrupt is left to the interpreter, which delivers it at its next check. */
        if (PyErr_Occurred()) return -1;
        return PyErr_CheckSignals();
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* The registry: one per process, made on first use, searched the way the `eddy` command searches.    */
/* ------------------------------------------------------------------------------------------------ */

static eddy_registry *registry;
static PyObject *plugin_dirs; /* list of str: the package's folders, set by __init__.py */
/* Calls that read the registry with the GIL released (opening, resuming, stepping with its writers, a
 * comparison): load_plugin, which adds to the registry, is refused while any runs in another thread.
 * Changed and read with the GIL held only, and load_plugin keeps it throughout, so no call can begin
 * between its check and its load. */
static int registry_users;
/* This thread's share of registry_users: a forked child keeps only the forking thread's own calls (a
 * run whose on_frame forked), the others' threads being gone, or load_plugin stayed refused in it. */
static _Thread_local int my_registry_uses;

/* Around a call that reads the registry with the GIL released; both with the GIL held. */
static void registry_use_begin(void) { ++registry_users, ++my_registry_uses; }
static void registry_use_end(void) { --registry_users, --my_registry_uses; }

static eddy_registry *get_registry(void)
{
    if (registry) return registry;
    eddy_error err;
    eddy_error_clear(&err);
    eddy_registry *reg;
    int rc = eddy_services_registry(0, &reg, &err);
    if (rc) {
        raise_error(&err, rc);
        return NULL;
    }
    /* The command's order with the package in place of <exe>/..: EDDY_PLUGIN_PATH first, then the
     * package's own folders, then eddy_registry_discover (which skips the folders already seen and
     * adds <python>/../lib/eddy/plugins and the install folder compiled into libeddy). */
    const char *env = getenv("EDDY_PLUGIN_PATH");
    if (env && *env) {
        char *copy = strdup(env);
        for (char *save = NULL, *tok = copy ? strtok_r(copy, ":", &save) : NULL; tok; tok = strtok_r(NULL, ":", &save))
            eddy_registry_scan_dir(reg, tok);
        free(copy);
    }
    for (Py_ssize_t i = 0; plugin_dirs && i < PyList_GET_SIZE(plugin_dirs); ++i) {
        const char *dir = PyUnicode_AsUTF8(PyList_GET_ITEM(plugin_dirs, i));
        if (!dir) {
            eddy_registry_destroy(reg);
            return NULL;
        }
        eddy_registry_scan_dir(reg, dir);
    }
    eddy_registry_discover(reg);
    registry = reg;
    return reg;
}

static PyObject *py_set_plugin_dirs(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyList_Check(arg)) return PyErr_Format(PyExc_TypeError, "plugin folders: expected a list of str");
    if (registry) return PyErr_Format(Error, "plugin folders: the registry is already made; set them before first use");
    Py_XDECREF(plugin_dirs);
    plugin_dirs = PySequence_List(arg);
    if (!plugin_dirs) return NULL;
    Py_RETURN_NONE;
}

static const char *param_type_name(int t)
{
    static const char *names[] = {"real", "int", "bool", "enum", "string", "vector"};
    return t >= 0 && t < 6 ? names[t] : "unknown";
}

static PyObject *param_dict(const eddy_param_desc *d)
{
    PyObject *choices = PyList_New(0);
    for (const char *const *c = d->choices; choices && c && *c; ++c) {
        PyObject *s = PyUnicode_FromString(*c);
        if (!s || PyList_Append(choices, s)) Py_CLEAR(choices);
        Py_XDECREF(s);
    }
    if (!choices) return NULL;
    PyObject *def;
    if (d->flags & EDDY_PARAM_DERIVED) def = Py_NewRef(Py_None);
    else if (d->type == EDDY_PARAM_STRING) def = PyUnicode_FromString(d->def_string ? d->def_string : "");
    else if (d->type == EDDY_PARAM_BOOL) def = PyBool_FromLong(d->def != 0);
    else if (d->type == EDDY_PARAM_INT) def = PyLong_FromDouble(d->def);
    else if (d->type == EDDY_PARAM_ENUM && d->choices) def = PyUnicode_FromString(d->choices[(int)d->def]);
    else def = PyFloat_FromDouble(d->def);
    if (!def) {
        Py_DECREF(choices);
        return NULL;
    }
    return Py_BuildValue("{s:s,s:s,s:N,s:d,s:d,s:s,s:s,s:N,s:O}", "id", d->id, "type", param_type_name(d->type),
                         "default", def, "min", d->min, "max", d->max, "unit", d->unit ? d->unit : "", "doc",
                         d->doc ? d->doc : "", "choices", choices, "derived",
                         (d->flags & EDDY_PARAM_DERIVED) ? Py_True : Py_False);
}

static PyObject *param_list(const eddy_param_desc *d, size_t n)
{
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && i < n; ++i) {
        PyObject *p = param_dict(&d[i]);
        if (!p || PyList_Append(l, p)) Py_CLEAR(l);
        Py_XDECREF(p);
    }
    return l;
}

static PyObject *py_components(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    eddy_registry *reg = get_registry();
    if (!reg) return NULL;
    PyObject *out = PyList_New(0);
    for (size_t i = 0; out && i < eddy_registry_count(reg); ++i) {
        const eddy_registry_entry *e = eddy_registry_at(reg, i);
        const eddy_component *c = e->component;
        PyObject *params = param_list(c->params, c->param_count);
        PyObject *mparams = params ? param_list(c->material_params, c->material_param_count) : NULL;
        /* "N" hands the references over, also when Py_BuildValue fails. */
        PyObject *d = mparams ? Py_BuildValue("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:N,s:N}", "id", c->id, "kind",
                                              eddy_interface_name(c->interface_id), "interface", c->interface_id,
                                              "version", c->version ? c->version : "", "description",
                                              c->description ? c->description : "", "file", e->file, "plugin",
                                              e->plugin ? e->plugin : "", "params", params, "material_params",
                                              mparams)
                              : NULL;
        if (!mparams) Py_XDECREF(params);
        if (!d || PyList_Append(out, d)) Py_CLEAR(out);
        Py_XDECREF(d);
    }
    return out;
}

static PyObject *py_refusals(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    eddy_registry *reg = get_registry();
    if (!reg) return NULL;
    PyObject *out = PyList_New(0);
    for (size_t i = 0; out && i < eddy_registry_refusal_count(reg); ++i) {
        const eddy_registry_refusal *r = eddy_registry_refusal_at(reg, i);
        PyObject *t = Py_BuildValue("(ss)", r->file, r->reason);
        if (!t || PyList_Append(out, t)) Py_CLEAR(out);
        Py_XDECREF(t);
    }
    return out;
}

/* The registered id `id` is likely a typo of (eddy_scene_nearest_id, as the command's messages use it),
 * or None. */
static PyObject *py_nearest_id(PyObject *self, PyObject *args)
{
    (void)self;
    const char *id;
    if (!PyArg_ParseTuple(args, "s", &id)) return NULL;
    eddy_registry *reg = get_registry();
    if (!reg) return NULL;
    const char *near = eddy_scene_nearest_id(reg, NULL, id);
    if (!near) Py_RETURN_NONE;
    return PyUnicode_FromString(near);
}

static PyObject *py_load_plugin(PyObject *self, PyObject *args)
{
    (void)self;
    const char *path;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    eddy_registry *reg = get_registry();
    if (!reg) return NULL;
    eddy_error err;
    eddy_error_clear(&err);
    if (registry_users > 0) {
        PyErr_SetString(Error, "load_plugin: a Simulation or compare() is using the plugins (in another thread, "
                               "or this call is made from its on_frame or a signal handler); load plugins "
                               "before, or after it returns");
        return NULL;
    }
    int rc = eddy_registry_load_file(reg, path, &err);
    if (rc) return raise_error(&err, rc);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------------ */
/* Core: one open session, the owner of everything a view points into.                               */
/* ------------------------------------------------------------------------------------------------ */

typedef struct Core {
    PyObject_HEAD
    eddy_session *s;
    eddy_probes *probes;   /* the scene's probes, opened for the world */
    eddy_output *output;   /* made on the first write */
    FILE *probes_csv;      /* DIR/probes.csv when the scene has probes (owned by output) */
    eddy_folder_lock *lock;/* the output folder, held from the first write until close_output or the
                            * Core's end (folder_lock.h) */
    uint64_t read_views;   /* fields handed out as arrays (bit per field id) */
    uint64_t write_views;  /* ... of them writable */
    double wall_start;     /* eddy_time_ms() at open, for diagnostics.csv's wall_ms */
    int resumed;           /* opened from a checkpoint (resume()): run.json is added to, not made anew */
    int fresh_outputs;     /* ... one written without outputs (run_folder.h): they start at the first write */
    int own_checkpoint;    /* checkpoint() wrote into the output folder before the first write: the
                            * stopped run found there is this simulation's own, not one to keep */
    double resume_time;    /* ... else the files of the run are kept up to this time (eddy_run_resume_time) */
    int checkpointed;      /* an interrupted writing run() wrote its checkpoint into the output folder: the
                            * later writing runs write theirs too, or that one, older, would stand there as
                            * a stopped run's for `eddy run` and `eddy resume` */
} Core;

static PyTypeObject CoreType;

/* 1 in a child forked from the process that opened the Core's session (a copy of the parent's Core). */
static int forked_copy(const Core *c)
{
    return eddy_session_check_process(c->s, NULL, NULL) != EDDY_OK;
}

/* -1 with eddy.Error naming both processes in such a child (what steps or writes there would land among
 * the parent's files), else 0. */
static int refuse_forked(const Core *c)
{
    eddy_error err;
    eddy_error_clear(&err);
    if (!eddy_session_check_process(c->s, "open a new Simulation in the child", &err)) return 0;
    PyErr_SetString(Error, err.message);
    return -1;
}

/* In a forked child: the lock holds nothing there (its release frees the memory only); the output's
 * destroy would write the parent's files (a writer's closing lines, diagnostics.csv's buffer), and the
 * probes' and session's would tear down what the parent's plugins own. Those copies go with the child. */
static void core_forget_forked(Core *self)
{
    eddy_folder_lock_release(self->lock);
    self->lock = NULL;
    self->output = NULL;
    self->probes_csv = NULL;
}

/* In a forked child: the Core another thread of the parent was stepping at the fork (a step, run or
 * checkpoint call with the GIL released), or NULL. Its arrays and world are the parent's part-way
 * through that call, so open_core refuses it there for good; it is forgotten when the Core goes. */
static const Core *torn_core;

static void core_dealloc(Core *self)
{
    if (torn_core == self) torn_core = NULL; /* (a later Core at this address is another) */
    if (self->s && forked_copy(self)) {
        core_forget_forked(self);
        Py_TYPE(self)->tp_free((PyObject *)self);
        return;
    }
    eddy_output_destroy(self->output);
    eddy_folder_lock_release(self->lock);
    eddy_probes_destroy(self->probes);
    eddy_session_close(self->s);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Opens the probes of the scene for the session's world; the error is the scene's. */
static int core_init_probes(Core *c, eddy_error *err)
{
    int rc = eddy_probes_parse(eddy_session_scene(c->s), registry, &c->probes, err);
    if (!rc) rc = eddy_probes_open(c->probes, eddy_session_world(c->s), eddy_services_host(), err);
    return rc;
}

/* Wraps an opened session (taken) into a Core, or raises with err. */
static PyObject *core_new(eddy_session *s, int rc, eddy_error *err)
{
    if (rc) return raise_error(err, rc);
    Core *c = PyObject_New(Core, &CoreType);
    if (!c) {
        eddy_session_close(s);
        return NULL;
    }
    c->s = s;
    c->probes = NULL;
    c->output = NULL;
    c->probes_csv = NULL;
    c->lock = NULL;
    c->read_views = c->write_views = 0;
    c->wall_start = eddy_time_ms();
    c->resumed = c->fresh_outputs = c->own_checkpoint = c->checkpointed = 0;
    c->resume_time = -1.0;
    if ((rc = core_init_probes(c, err))) {
        Py_DECREF(c);
        return raise_error(err, rc);
    }
    return (PyObject *)c;
}

/* An item of a list of str as a C string borrowed from it, or NULL with TypeError / ValueError naming
 * the list (`what`): an item that is not a str, or that holds a NUL, where C would cut it silently. */
static const char *utf8_item(PyObject *item, const char *what)
{
    Py_ssize_t size = 0;
    if (!PyUnicode_Check(item)) {
        PyErr_Format(PyExc_TypeError, "%s: expected str items, got %s %R", what, Py_TYPE(item)->tp_name, item);
        return NULL;
    }
    const char *s = PyUnicode_AsUTF8AndSize(item, &size);
    if (!s && PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
        /* a lone surrogate (os.fsdecode of non-UTF-8 bytes): "'utf-8' codec can't encode character
         * '\udcff' in position 0: surrogates not allowed" named no argument */
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: %R is not valid UTF-8 text", what, item);
        return NULL;
    }
    if (s && strlen(s) != (size_t)size) {
        PyErr_Format(PyExc_ValueError, "%s: embedded null character in %R", what, item);
        return NULL;
    }
    return s;
}

/* A list of str as an array of C strings borrowed from it (freed by the caller), or NULL (utf8_item). */
static const char **string_array(PyObject *list, size_t *n, const char *what)
{
    *n = 0;
    if (!list || list == Py_None) return NULL;
    if (!PyList_Check(list)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a list of str or None, got %s", what, Py_TYPE(list)->tp_name);
        return NULL;
    }
    const Py_ssize_t len = PyList_GET_SIZE(list);
    const char **a = PyMem_Calloc((size_t)len + 1, sizeof *a);
    if (!a) return (const char **)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < len; ++i) {
        a[i] = utf8_item(PyList_GET_ITEM(list, i), what);
        if (!a[i]) {
            PyMem_Free(a);
            return NULL;
        }
    }
    *n = (size_t)len;
    return a;
}

/* threads as --threads takes it: 0 (OpenMP's default) or 1 to 4096; 100 000 crashed in libgomp. Returns
 * -1 with ValueError raised for any other value, else 0. */
static int bad_threads(int threads)
{
    if (threads >= 0 && threads <= 4096) return 0;
    PyErr_Format(PyExc_ValueError, "threads must be 0 (the default) or 1 to 4096, got %d", threads);
    return -1;
}

static PyObject *py_open(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"scene_path", "scene_text", "scene_name", "sets", "solver", "grid", "out_dir",
                             "formats", "threads", "particle_target", NULL};
    eddy_session_options o = eddy_session_default_options();
    PyObject *sets = NULL, *formats = NULL;
    Py_ssize_t target = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zzzOzzzOin", kwlist, &o.scene_path, &o.scene_text, &o.scene_name,
                                     &sets, &o.solver, &o.grid, &o.out_dir, &formats, &o.threads, &target))
        return NULL;
    if (target < 0) return PyErr_Format(PyExc_ValueError, "particles: must be >= 0, got %zd", target);
    if (bad_threads(o.threads)) return NULL;
    o.particle_target = (size_t)target;
    if (!(o.registry = get_registry())) return NULL;
    const char **set_list = string_array(sets, &o.set_count, "set");
    if (!set_list && PyErr_Occurred()) return NULL;
    const char **format_list = string_array(formats, &o.format_count, "formats");
    if (!format_list && PyErr_Occurred()) {
        PyMem_Free(set_list);
        return NULL;
    }
    o.sets = set_list;
    o.formats = format_list; /* NULL for None: the scene's; an empty list: no writer */
    eddy_session *s = NULL;
    eddy_error err;
    eddy_error_clear(&err);
    int rc;
    registry_use_begin();
    Py_BEGIN_ALLOW_THREADS
    rc = eddy_session_open(&o, &s, &err);
    Py_END_ALLOW_THREADS
    registry_use_end();
    PyMem_Free(set_list);
    PyMem_Free(format_list);
    return core_new(s, rc, &err);
}

/* rc, after a take of DIR's lock: where it was refused because a lock of this process holds DIR (another
 * Simulation, one a notebook's failed cell keeps alive), the refusal says so instead of "another eddy
 * run", which sent the user looking for a process there was none of; what it offers is kept. */
static int held_here(const char *dir, int rc, eddy_error *err)
{
    static const char finish[] = "wait for it to finish";
    if (rc != EDDY_ERR_IO || !strstr(err->message, "is in use by another eddy run") ||
        !eddy_folder_lock_held_here(dir))
        return rc;
    const char *offer = strstr(err->message, finish);
    char rest[128]; /* (" or choose another out folder": copied, as err->message is written over) */
    snprintf(rest, sizeof rest, "%s", offer ? offer + sizeof finish - 1 : "");
    return eddy_error_set(err, rc, "output folder '%s' is held by another Simulation (or run) in this process; close() "
                          "it first%s", dir, rest);
}

/* As `eddy resume` checks it (resume.c, run_record.h): the folder's checkpoint is the run's that its
 * run.json records, not one copied in from another run's folder, which a resumed Simulation would
 * continue among this folder's frames and tables. (A split run's pieces hold no checkpoint.eddy: their
 * manifest is checked when they are read.) */
static int checkpoint_is_the_runs(const char *dir, eddy_error *err)
{
    char *path = eddy_output_join_path(dir, EDDY_CHECKPOINT_FILE);
    if (!path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    double time = 0;
    uint64_t step = 0;
    cJSON *settings = NULL;
    eddy_error why;
    int rc = EDDY_OK;
    if (access(path, F_OK) == 0 && eddy_checkpoint_peek(path, &time, &step, &settings, &why) == EDDY_OK)
        rc = eddy_run_record_check_checkpoint(dir, path, settings, err);
    cJSON_Delete(settings);
    free(path);
    /* (a FileError, as the folder's other refusals: the scene has no fault) */
    if (rc == EDDY_ERR_INVALID_ARGUMENT) rc = err->code = EDDY_ERR_IO;
    return rc;
}

static PyObject *py_resume(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"dir", "threads", NULL};
    eddy_session_options o = eddy_session_default_options();
    const char *dir;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|i", kwlist, &dir, &o.threads)) return NULL;
    if (bad_threads(o.threads)) return NULL;
    if (!(o.registry = get_registry())) return NULL;
    eddy_session *s = NULL;
    eddy_error err;
    eddy_error_clear(&err);
    int rc;
    /* The folder is held while its checkpoint is read, as `eddy resume` holds it (folder_lock.h): a run
     * or resume still writing there is refused, not continued from a checkpoint it replaces. It is let go
     * then, and held again from the first write (core_open_output): a resumed Simulation that only reads
     * the state keeps no other run out. */
    eddy_folder_lock *lock = NULL;
    int fresh = 0;
    registry_use_begin();
    Py_BEGIN_ALLOW_THREADS
    rc = eddy_folder_lock_take(dir, EDDY_FOLDER_EXISTING, NULL, &lock, &err);
    if (!rc) rc = eddy_session_resume(dir, &o, &s, &err);
    if (!rc) fresh = eddy_session_restored_without_outputs(s);
    if (!rc && (rc = checkpoint_is_the_runs(dir, &err))) {
        eddy_session_close(s);
        s = NULL;
    }
    eddy_folder_lock_release(lock);
    Py_END_ALLOW_THREADS
    registry_use_end();
    PyObject *core = core_new(s, held_here(dir, rc, &err), &err);
    if (core) {
        Core *c = (Core *)core;
        c->resumed = 1;
        c->fresh_outputs = fresh;
        c->resume_time = eddy_run_resume_time(eddy_session_next_frame(s), eddy_session_scene(s)->output_interval);
    }
    return core;
}

/* Host copies of the fields handed out as views: a writable view's field is marked edited before a
 * step (a device solver uploads it, the cached step statistics are dropped when it is a position or
 * velocity), and a device-resident field is downloaded after one, so that the arrays show the state. */
static int touch_views(Core *c, eddy_map_access access, eddy_error *err)
{
    const uint64_t mask = access == EDDY_MAP_READ ? c->read_views : c->write_views;
    eddy_world *w = eddy_session_world(c->s);
    for (int f = 0; f < 64 && mask >> f; ++f) {
        if (!((mask >> f) & 1)) continue;
        if (access == EDDY_MAP_READ && eddy_world_field_space(w, f) != EDDY_MEMORY_DEVICE) continue;
        eddy_field_view v = {.size = sizeof v};
        int rc = eddy_world_map_field(w, f, access, &v, err);
        if (rc) return rc;
        eddy_world_unmap_field(w, &v);
    }
    return EDDY_OK;
}

/* The row one frame contributes to a run's record: time, step, frame, the diagnostics, the probes. */
enum { ROW_FIXED = 15 };

typedef struct record {
    double *rows;
    size_t count, cap, width;
} record;

/* Whether two paths name the same folder (whatever their spelling). */
static int same_folder(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The output, made on the first write with the scene's writers into its folder, which is held first
 * (folder_lock.h), as `eddy run` holds it: another eddy run or Simulation writing there is refused, and
 * this one holds it until close_output or the Core's end. What the folder holds is dealt with by the
 * commands' rules (run_folder.h): a new simulation is refused a run stopped before its end and replaces
 * a finished one whole, as `eddy run`; a resumed one continues the run's frames and tables from its
 * checkpoint, as `eddy resume`. */
static int core_open_output(Core *c, eddy_error *err)
{
    if (c->output) return EDDY_OK;
    const eddy_scene *sc = eddy_session_scene(c->s);
    eddy_folder_lock *taken = NULL;
    int rc = EDDY_OK;
    if (!eddy_folder_lock_holds(c->lock, sc->out_dir) &&
        (rc = eddy_folder_lock_take(sc->out_dir, EDDY_FOLDER_MAKE, "choose another out folder", &taken, err)))
        return held_here(sc->out_dir, rc, err);
    int holds_run = 0;
    /* (a checkpoint of its own before the first write, step(); checkpoint(); run(write=True), is no
     * stopped run to keep: the new files start beside it, and a checkpoint() after them records them) */
    if (!c->resumed && !c->own_checkpoint) {
        rc = eddy_run_folder_check(sc->out_dir, "choose another out folder", &holds_run, err);
        if (!rc && !holds_run) rc = eddy_run_folder_refuse_foreign(sc->out_dir, "choose another out folder", err);
    } else if (c->fresh_outputs) rc = eddy_run_folder_refuse_other_outputs(sc->out_dir, err);
    /* The tables checked before the output cuts anything back (run_folder.h): refused by its trim
     * instead, frames.pvd and diagnostics.csv were already cut back to the checkpoint. */
    else rc = eddy_run_folder_check_tables(sc->out_dir, c->probes, err);
    /* A FileError, as for a folder another run holds: the command's code would raise a refusal of what
     * the folder holds as a SceneError, blaming a scene that has no fault. */
    if (rc == EDDY_ERR_INVALID_ARGUMENT || rc == EDDY_ERR_PARSE) rc = err->code = EDDY_ERR_IO;
    const char *ids[EDDY_SCENE_FORMAT_MAX];
    for (size_t i = 0; i < sc->format_count; ++i) ids[i] = sc->formats[i];
    eddy_output_options oo = eddy_output_default_options();
    oo.formats = ids;
    oo.format_count = sc->format_count;
    oo.registry = registry;
    oo.scene = sc;
    oo.resume = c->resumed && !c->fresh_outputs;
    oo.resume_time = c->resume_time;
    if (!rc) rc = eddy_output_create(sc->out_dir, &oo, eddy_session_world(c->s), &c->output, err);
    /* (after the writers' create(), which may refuse their parameters, as `eddy run` clears) */
    if (!rc && holds_run) rc = eddy_run_folder_clear(sc->out_dir, err);
    if (!rc) rc = eddy_run_open_probe_table(c->output, c->probes, &c->probes_csv, err);
    /* What made the files, as `eddy run` records it (run_record.h); the interpreter's command line is
     * not eddy's to record, and the messages of the open were not kept (another thread may open a
     * Simulation meanwhile). */
    const eddy_run_record_command cmd = {c->resumed ? "python resume" : "python run", c->resumed, 0, NULL, NULL, 0};
    if (!rc) rc = eddy_run_record_write(sc->out_dir, eddy_session_sim(c->s), &cmd, err);
    /* A checkpoint() into this folder then keeps these files as the run's, for a resume to continue. */
    if (!rc && eddy_session_set_outputs_dir(c->s, sc->out_dir))
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    if (rc) {
        eddy_output_destroy(c->output);
        c->output = NULL;
        c->probes_csv = NULL;
        eddy_folder_lock_release(taken);
    } else if (taken) {
        eddy_folder_lock_release(c->lock);
        c->lock = taken;
    }
    return rc;
}

static int measure(Core *c, double *row, int write, eddy_error *err)
{
    eddy_frame f;
    int rc = eddy_session_snapshot(c->s, &f, err);
    if (rc) return rc;
    eddy_diagnostics d;
    rc = eddy_diagnostics_of_frame(&f, &d, err);
    if (!rc && eddy_probes_count(c->probes)) rc = eddy_probes_measure(c->probes, &f, row + ROW_FIXED, err);
    if (!rc) {
        const double fixed[ROW_FIXED] = {f.time, (double)f.step, (double)f.index, d.kinetic_energy, d.momentum[0],
                                         d.momentum[1], d.momentum[2], d.mass, d.density_error_mean,
                                         d.density_error_max, d.max_speed, (double)d.particles,
                                         d.potential_energy, d.total_energy, d.density_error_p99};
        memcpy(row, fixed, sizeof fixed);
    }
    if (!rc && write) {
        rc = core_open_output(c, err);
        if (!rc) rc = eddy_output_write_frame(c->output, &f, err);
        if (!rc) rc = eddy_output_write_diagnostics(c->output, &d, f.time, f.step, eddy_time_ms() - c->wall_start, err);
        if (!rc && c->probes_csv) {
            eddy_probes_csv_row(c->probes, c->probes_csv, f.time, f.step, row + ROW_FIXED);
            rc = eddy_output_flush_table(c->output, err);
        }
    }
    eddy_session_snapshot_release(&f);
    return rc;
}

static int record_row(Core *c, record *r, int write, eddy_error *err)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        double *rows = realloc(r->rows, cap * r->width * sizeof *rows);
        if (!rows) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the run's record");
        r->rows = rows;
        r->cap = cap;
    }
    int rc = measure(c, r->rows + r->count * r->width, write, err);
    if (!rc) r->count++;
    return rc;
}

typedef struct run_ctx {
    Core *core;
    PyThreadState *ts;     /* the released thread state, re-taken for the callback */
    PyObject *callback;    /* on_frame(frame) or NULL */
    record rec;
    int do_record, write;
    int frame_failed;      /* a frame's row or callback failed (the run stopped there) */
    int main_thread;       /* stepping in Python's main thread, the one its signal handlers run in */
    double checked_ms;     /* eddy_time_ms() of the last run of Python's signal handlers */
} run_ctx;

/* Python's main thread, the only one its signal handlers run in (threading.main_thread(); after a fork,
 * the thread that forked, as Python makes it): 0 when unknown, where every thread checks. */
static unsigned long main_ident;

static int in_main_thread(void) { return !main_ident || PyThread_get_thread_ident() == main_ident; }

/* Python's own handlers of the signals that arrived (an alarm's, SIGTERM's; SIGINT is the stop flag's
 * while stepping) are run by the interpreter only when it gets the GIL back: a run without on_frame
 * ran them when it returned, so a timeout handler could not end it. With the GIL held, runs them;
 * -1 when one raised (the exception is set: the run stops with it). */
static int run_py_signals(run_ctx *c)
{
    c->checked_ms = eddy_time_ms();
    return c->main_thread ? PyErr_CheckSignals() : 0;
}

/* How often, at most, a run between frames re-takes the GIL for them: 10 times a second costs nothing
 * beside the steps, and is soon enough for a handler that times out. */
enum { PY_SIGNAL_CHECK_MS = 100 };

/* The plan's poll before every step: non-zero stops the run ("cancelled"), with the handler's
 * exception set. In another thread than Python's main one no handler can run, so none is awaited. */
static int run_cancel(void *user)
{
    run_ctx *c = user;
    if (!c->main_thread || eddy_time_ms() - c->checked_ms < PY_SIGNAL_CHECK_MS) return 0;
    PyEval_RestoreThread(c->ts);
    const int raised = run_py_signals(c) != 0;
    c->ts = PyEval_SaveThread();
    return raised;
}

static int run_on_frame(void *user, eddy_session *s, int frame, eddy_error *err)
{
    (void)s;
    run_ctx *c = user;
    int rc = EDDY_OK;
    if (c->do_record || c->write) rc = record_row(c->core, &c->rec, c->write, err);
    /* At every frame boundary, the signals first: an exception of their handlers ends the run at this
     * frame, its row recorded and on_frame not called, as an exception of on_frame ends it. */
    if (!rc && (c->callback || c->main_thread)) {
        PyEval_RestoreThread(c->ts);
        if (run_py_signals(c))
            rc = eddy_error_set(err, EDDY_ERR_INTERRUPTED, "a signal handler raised an exception at frame %d", frame);
        /* The callback sees the arrays as the frame left them. */
        if (!rc && c->callback) rc = touch_views(c->core, EDDY_MAP_READ, err);
        if (!rc && c->callback) {
            PyObject *r = PyObject_CallFunction(c->callback, "i", frame);
            if (!r) rc = eddy_error_set(err, EDDY_ERR_INTERRUPTED, "on_frame raised an exception at frame %d", frame);
            Py_XDECREF(r);
            if (!rc) rc = touch_views(c->core, EDDY_MAP_READ_WRITE, err);
        }
        c->ts = PyEval_SaveThread();
    }
    if (rc) c->frame_failed = 1;
    return rc;
}

/* The call that steps (step, run, checkpoint, compare) while it runs: one at a time per process, as
 * the thread count and the stop flag are the process's (session.h). The GIL guards these. */
static unsigned long stepping_thread;
static const Core *stepping_core;

/* Claims the stepping for `c` (NULL: compare), or raises: another thread steps (this or another
 * Simulation), or this thread steps already (a step or run from its own on_frame callback, which
 * would move the clock under the run's plan). */
static int begin_stepping(const Core *c, const char *what)
{
    const unsigned long me = PyThread_get_thread_ident();
    if (stepping_thread == me) {
        PyErr_Format(Error, "%s: called while this thread is already stepping (from an on_frame callback?): a "
                            "callback may read and write the arrays, not step",
                     what);
        return -1;
    }
    if (stepping_thread) {
        PyErr_Format(Error, "%s: another thread is stepping a simulation; one steps at a time per process", what);
        return -1;
    }
    stepping_thread = me;
    stepping_core = c;
    /* The session's thread count, set for the process when it was opened (sim.c) -- OpenMP keeps it per
     * calling thread, and a later open with another count replaced it: without this, a Simulation opened
     * with threads=4 stepped with the count of the last one opened, or, from another Python thread, with
     * OpenMP's default. */
    if (c) eddy_services_set_threads(eddy_session_sim(c->s)->threads);
    return 0;
}

static void end_stepping(void)
{
    stepping_thread = 0;
    stepping_core = NULL;
}

/* A thread stepping when another forked is not in the child: its claim would refuse every step there
 * ("another thread is stepping") for good, so it goes, and the Core it stepped is remembered as torn
 * (a child of that child inherits it). The forking thread's own claim (a fork in its on_frame callback)
 * stays: that run goes on in the child until the session stops it. */
static void stepping_after_fork_in_child(void)
{
    main_ident = PyThread_get_thread_ident();
    registry_users = my_registry_uses;
    if (stepping_thread == PyThread_get_thread_ident()) return;
    if (stepping_core) torn_core = stepping_core;
    end_stepping();
}

/* The Core of `self` when it is open, not stepping in another thread (its arrays and world are being
 * changed there) and not torn by a fork under such a call, else NULL with the error raised. */
static Core *open_core(PyObject *self)
{
    Core *c = (Core *)self;
    if (!c->s) {
        PyErr_SetString(Error, "the simulation is closed");
        return NULL;
    }
    if (c == torn_core) {
        PyErr_SetString(Error, "this simulation was stepping in another thread when this process was forked; its "
                               "state here is part-way through a step; open a new Simulation in the child");
        return NULL;
    }
    if (stepping_core == c && stepping_thread != PyThread_get_thread_ident()) {
        PyErr_SetString(Error, "the simulation is stepping in another thread; use a Simulation from one thread "
                               "at a time");
        return NULL;
    }
    return c;
}

/* step(n): n steps as `eddy run` takes them. */
static PyObject *core_step(PyObject *self, PyObject *args)
{
    Core *c = open_core(self);
    long long n;
    if (!c || !PyArg_ParseTuple(args, "L", &n)) return NULL;
    if (n < 0) return PyErr_Format(PyExc_ValueError, "step: n must be >= 0, got %lld", n);
    if (refuse_forked(c)) return NULL;
    eddy_error err;
    eddy_error_clear(&err);
    if (begin_stepping(c, "step")) return NULL;
    int rc = touch_views(c, EDDY_MAP_READ_WRITE, &err);
    if (rc) {
        end_stepping();
        return raise_error(&err, rc);
    }
    /* eddy_session_step's plan (n more steps, no end time: the same states) with a run's polls, so that
     * Python's signal handlers run at its frames and between them as in run(). */
    run_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.core = c;
    ctx.main_thread = in_main_thread();
    ctx.checked_ms = eddy_time_ms();
    const long long at = (long long)eddy_session_world(c->s)->step;
    eddy_session_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.end_steps = n > LLONG_MAX - at ? LLONG_MAX : at + n;
    plan.end_time = INFINITY;
    plan.on_frame = run_on_frame;
    plan.cancel = run_cancel;
    plan.user = &ctx;
    sig_guard g;
    guard_begin(&g, 0);
    registry_use_begin();
    ctx.ts = PyEval_SaveThread();
    rc = n ? eddy_session_run(c->s, &plan, NULL, &err) : EDDY_OK;
    PyEval_RestoreThread(ctx.ts);
    registry_use_end();
    int sig = guard_end(&g);
    end_stepping();
    eddy_error verr;
    int vrc = touch_views(c, EDDY_MAP_READ, &verr);
    if (sig || PyErr_Occurred()) return NULL;
    if (rc && rc != EDDY_ERR_INTERRUPTED) return raise_error(&err, rc);
    if (vrc) return raise_error(&verr, vrc);
    return PyBool_FromLong(rc == EDDY_OK);
}

/* The rows a run recorded before it raised (an explosion, Ctrl-C, the callback's own exception), on
 * the exception as _eddy_rows (bytes) and _eddy_width: Simulation.run hands them on as e.record, so
 * that the frames measured before the failure are not lost. Leaves the exception as it was when the
 * attributes cannot be set. */
static void attach_rows(const record *r)
{
    if (!PyErr_Occurred() || !r->count) return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *rows = PyBytes_FromStringAndSize((const char *)r->rows, (Py_ssize_t)(r->count * r->width * sizeof(double)));
    PyObject *width = PyLong_FromSize_t(r->width);
    if (rows && width && value) {
        if (PyObject_SetAttrString(value, "_eddy_rows", rows) || PyObject_SetAttrString(value, "_eddy_width", width))
            PyErr_Clear();
    } else {
        PyErr_Clear();
    }
    Py_XDECREF(rows);
    Py_XDECREF(width);
    PyErr_Restore(type, value, tb);
}

/* A run whose end the simulation has reached already takes no step and records nothing: it returned
 * completed=True with no rows, which read as a run that worked. Such a plan is refused with ValueError,
 * as `eddy resume DIR --steps N / --until T` refuses it (host/drive/resume.c), in the API's own terms:
 * the likely mistake is steps=10 or until=0.01 meant as "10 more steps" / "0.01 s more", so the message
 * says the totals that take that much more. At step 0 the run still records (and writes) frame 0, as
 * `eddy run --steps 0` writes it, so only a simulation that has stepped is refused. Returns -1 with the
 * error raised, 0 when the run may go. */
static int refuse_run_at_end(Core *c, long long end_steps, double end_time)
{
    eddy_sim *sim = eddy_session_sim(c->s);
    const eddy_world *w = sim->world;
    /* The test eddy_sim_run_plan stops by, with the end eddy_session_run gives it. */
    const eddy_sim_plan plan = {.end_steps = end_steps, .end_time = isnan(end_time) ? sim->scene.end_time : end_time};
    if (w->step == 0 || !eddy_sim_plan_done(sim, &plan)) return 0;
    char at[96], msg[512];
    snprintf(at, sizeof at, "run: the simulation is at step %llu (t = %.6g s), already at or past",
             (unsigned long long)w->step, (double)w->time);
    if (end_steps > 0 && end_steps <= LLONG_MAX - (long long)w->step)
        snprintf(msg, sizeof msg,
                 "%s the end steps=%lld asks for: steps is the total step count from the simulation's start "
                 "(t = 0), not more steps (steps=%lld takes %lld more)",
                 at, end_steps, (long long)w->step + end_steps, end_steps);
    else if (end_steps < 0 && end_time > 0 && isfinite((double)w->time + end_time))
        snprintf(msg, sizeof msg,
                 "%s the end until=%g asks for: until is the end time from the simulation's start (t = 0), "
                 "not more time (until=%.9g takes %g s more)",
                 at, end_time, (double)w->time + end_time, end_time);
    else if (end_steps >= 0)
        snprintf(msg, sizeof msg, "%s its end (steps=%lld); extend it with run(steps=N) or run(until=T)", at,
                 end_steps);
    else if (!isnan(end_time))
        snprintf(msg, sizeof msg, "%s its end (until=%g); extend it with run(steps=N) or run(until=T)", at, end_time);
    else
        snprintf(msg, sizeof msg, "%s its end (time.end = %g s); extend it with run(steps=N) or run(until=T)", at,
                 plan.end_time);
    PyErr_SetString(PyExc_ValueError, msg);
    return -1;
}

/* run(end_steps, end_time, on_frame, record, write) -> (completed, last_on_frame, rows bytes, width) */
static PyObject *core_run(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"end_steps", "end_time", "on_frame", "record", "write", NULL};
    Core *c = open_core(self);
    eddy_session_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.end_steps = -1;
    plan.end_time = NAN;
    run_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    PyObject *cb = Py_None;
    if (!c || !PyArg_ParseTupleAndKeywords(args, kw, "|LdOpp", kwlist, &plan.end_steps, &plan.end_time, &cb,
                                           &ctx.do_record, &ctx.write))
        return NULL;
    /* Before any step: a callback that cannot be called would fail only at the first frame, after the
     * run has moved the clock. */
    if (cb != Py_None && !PyCallable_Check(cb))
        return PyErr_Format(PyExc_TypeError, "run: on_frame must be a callable taking the frame index, or None, got %s",
                            Py_TYPE(cb)->tp_name);
    ctx.core = c;
    ctx.callback = cb == Py_None ? NULL : cb;
    ctx.rec.width = ROW_FIXED + eddy_probes_count(c->probes);
    plan.on_frame = run_on_frame;
    plan.cancel = run_cancel;
    plan.user = &ctx;
    ctx.main_thread = in_main_thread();
    if (refuse_forked(c)) return NULL;
    eddy_error err;
    eddy_error_clear(&err);
    if (begin_stepping(c, "run")) return NULL;
    /* (after the claim: a run from its own on_frame callback is told so, whatever its end) */
    if (refuse_run_at_end(c, plan.end_steps, plan.end_time)) {
        end_stepping();
        return NULL;
    }
    /* An until beyond the steps a run can count is the caller's value, refused before frame 0 is
     * recorded or written: the session's own check said it as a SceneError, of a scene that has none. */
    if (plan.end_steps < 0 && !isnan(plan.end_time) &&
        eddy_sim_check_end(eddy_session_sim(c->s), plan.end_time, &err)) {
        end_stepping();
        char msg[EDDY_ERROR_MESSAGE_MAX + 64]; /* (PyErr_Format has no %g) */
        snprintf(msg, sizeof msg, "run: until=%g: %s", plan.end_time, err.message);
        PyErr_SetString(PyExc_ValueError, msg);
        return NULL;
    }
    int rc = touch_views(c, EDDY_MAP_READ_WRITE, &err);
    /* A folder another run writes into is refused before the first step, not at the first frame. */
    if (!rc && ctx.write) rc = core_open_output(c, &err);
    /* (run.json says the folder's run goes on until this run() ends: one killed on its way is kept by
     * the next run into the folder, as `eddy run`'s is; run_record.h) */
    if (!rc && ctx.write) eddy_run_record_reopen(eddy_session_scene(c->s)->out_dir);
    /* The state the run starts from, when it is frame 0 (which a plan's on_frame never sees). */
    if (!rc && (ctx.do_record || ctx.write) && eddy_session_world(c->s)->step == 0)
        rc = record_row(c, &ctx.rec, ctx.write, &err);
    if (rc) {
        end_stepping();
        free(ctx.rec.rows);
        return raise_error(&err, rc);
    }
    int last = 0;
    sig_guard g;
    guard_begin(&g, 0);
    /* (from here: frame 0's write and the output's opening are not stepping time) */
    ctx.checked_ms = eddy_time_ms();
    registry_use_begin();
    ctx.ts = PyEval_SaveThread();
    rc = eddy_session_run(c->s, &plan, &last, &err);
    /* (the child of a fork in the callback: stopped by the session, it records and writes nothing more) */
    const int forked = forked_copy(c);
    /* The final state when the run ended off the frame times (time.end or --until T not a multiple of
     * output_interval, --steps N, a stop request, an explosion): `eddy run` writes it as one more frame
     * (host/drive/run.c, run_finish), at the index of the next regular frame, which is the index
     * eddy_session_snapshot gives it; so the record ends at the final state and write=True writes the
     * files the command writes. Not after a frame whose row or callback failed: its row is recorded
     * already, or writing failed. An error here is the run's only when the run has none. */
    if (!forked && !last && !ctx.frame_failed && (ctx.do_record || ctx.write)) {
        eddy_error ferr;
        eddy_error_clear(&ferr);
        const int frc = record_row(c, &ctx.rec, ctx.write, &ferr);
        if (frc && !rc) {
            rc = frc;
            err = ferr;
        }
    }
    PyEval_RestoreThread(ctx.ts);
    registry_use_end();
    int sig = guard_end(&g);
    const char *out_dir = eddy_session_scene(c->s)->out_dir;
    /* A writing run stopped by Ctrl-C (or a signal) writes its checkpoint as `eddy run` does, so that
     * `eddy resume` and Simulation.resume continue it: without one its folder could only be kept or
     * deleted. A checkpoint that cannot be written is said on stderr; the interrupt stays the outcome. */
    if (ctx.write && !forked && c->output && (rc == EDDY_ERR_INTERRUPTED || (sig && !rc) || (c->checkpointed && !rc))) {
        eddy_error cerr;
        eddy_error_clear(&cerr);
        if (eddy_session_checkpoint(c->s, out_dir, NULL, &cerr))
            fprintf(stderr, "eddy: warning: the run's checkpoint could not be written: %s\n", cerr.message);
        else
            c->checkpointed = 1;
    }
    if (ctx.write && !forked)
        eddy_run_record_end(out_dir, eddy_session_sim(c->s), sig && !rc ? EDDY_ERR_INTERRUPTED : rc,
                            rc ? err.message : "interrupted");
    end_stepping();
    eddy_error verr;
    int vrc = touch_views(c, EDDY_MAP_READ, &verr);
    PyObject *rows = NULL;
    if (!sig && !PyErr_Occurred()) {
        if (forked) refuse_forked(c);
        else if (rc && rc != EDDY_ERR_INTERRUPTED) raise_error(&err, rc);
        else if (vrc) raise_error(&verr, vrc);
        else
            rows = PyBytes_FromStringAndSize((const char *)ctx.rec.rows,
                                             (Py_ssize_t)(ctx.rec.count * ctx.rec.width * sizeof(double)));
    }
    if (!rows) attach_rows(&ctx.rec);
    free(ctx.rec.rows);
    if (!rows) return NULL;
    return Py_BuildValue("(OONn)", rc == EDDY_OK ? Py_True : Py_False, last ? Py_True : Py_False, rows,
                         (Py_ssize_t)ctx.rec.width);
}

/* measure(write) -> bytes of one row (the current state) */
static PyObject *core_measure(PyObject *self, PyObject *args)
{
    Core *c = open_core(self);
    int write = 0;
    if (!c || !PyArg_ParseTuple(args, "|p", &write)) return NULL;
    if (write && refuse_forked(c)) return NULL;
    const size_t width = ROW_FIXED + eddy_probes_count(c->probes);
    double *row = calloc(width, sizeof *row);
    if (!row) return PyErr_NoMemory();
    eddy_error err;
    eddy_error_clear(&err);
    int rc = measure(c, row, write, &err);
    /* (a frame written outside run(): the folder is whole up to it; said once, over the opening null) */
    if (!rc && write) eddy_run_record_end(eddy_session_scene(c->s)->out_dir, eddy_session_sim(c->s), EDDY_OK, NULL);
    PyObject *out = rc ? raise_error(&err, rc) : PyBytes_FromStringAndSize((const char *)row, (Py_ssize_t)(width * sizeof *row));
    free(row);
    return out;
}

static PyObject *core_probes(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    Core *c = open_core(self);
    if (!c) return NULL;
    PyObject *out = PyList_New(0);
    for (size_t i = 0; out && i < eddy_probes_count(c->probes); ++i) {
        const eddy_probe_reference *r = eddy_probes_reference(c->probes, i);
        PyObject *ref = Py_NewRef(Py_None);
        if (r) {
            Py_DECREF(ref);
            PyObject *x = PyBytes_FromStringAndSize((const char *)r->x, (Py_ssize_t)(r->count * sizeof(double)));
            PyObject *y = PyBytes_FromStringAndSize((const char *)r->y, (Py_ssize_t)(r->count * sizeof(double)));
            ref = x && y ? Py_BuildValue("{s:s,s:s,s:s,s:s,s:N,s:N,s:d,s:d,s:d}", "file", r->file, "label", r->label,
                                         "x_label", r->x_label, "y_label", r->y_label, "x", x, "y", y, "time_scale",
                                         r->time_scale, "value_scale", r->value_scale, "value_offset",
                                         r->value_offset)
                         : NULL;
            if (!(x && y)) { /* else Py_BuildValue took them ("N"), also when it failed */
                Py_XDECREF(x);
                Py_XDECREF(y);
            }
        }
        PyObject *d = ref ? Py_BuildValue("{s:s,s:s,s:s,s:N}", "name", eddy_probes_name(c->probes, i), "kind",
                                          eddy_probes_kind(c->probes, i), "unit", eddy_probes_unit(c->probes, i),
                                          "reference", ref)
                          : NULL;
        if (!d || PyList_Append(out, d)) Py_CLEAR(out);
        Py_XDECREF(d);
    }
    return out;
}

static PyObject *core_hash(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    Core *c = open_core(self);
    if (!c) return NULL;
    uint64_t h;
    eddy_error err;
    eddy_error_clear(&err);
    int rc = eddy_session_hash(c->s, &h, &err);
    return rc ? raise_error(&err, rc) : PyLong_FromUnsignedLongLong(h);
}

/* Why a "path=value" override cannot change this simulation, or a comparison of the solvers with the
 * ids `solvers` (a list; None: this simulation's solver), or None: the rule the commands warn by
 * (unused_sets.h). A solver the registry lacks gives None, as the command says nothing then (what it
 * reads is not known). */
static PyObject *core_set_unused(PyObject *self, PyObject *args)
{
    Core *c = open_core(self);
    const char *set;
    PyObject *ids = Py_None;
    if (!c || !PyArg_ParseTuple(args, "s|O", &set, &ids)) return NULL;
    const eddy_sim *sim = eddy_session_sim(c->s);
    if (ids != Py_None && !PyList_Check(ids))
        return PyErr_Format(PyExc_TypeError, "set_unused: solvers must be a list of str or None, got %s",
                            Py_TYPE(ids)->tp_name);
    const Py_ssize_t n = ids == Py_None ? 1 : PyList_GET_SIZE(ids);
    const eddy_component **solvers = PyMem_Calloc(n ? (size_t)n : 1, sizeof *solvers);
    if (!solvers) return PyErr_NoMemory();
    int known = 1;
    if (ids == Py_None) solvers[0] = sim->solver_entry->component;
    for (Py_ssize_t i = 0; ids != Py_None && known && i < n; ++i) {
        const char *id = utf8_item(PyList_GET_ITEM(ids, i), "set_unused: solvers");
        if (!id) {
            PyMem_Free(solvers);
            return NULL;
        }
        const eddy_registry_entry *e = eddy_registry_find(sim->registry, id, EDDY_INTERFACE_SOLVER);
        if (e) solvers[i] = e->component;
        known = e != NULL;
    }
    char why[160];
    const int unused = known && eddy_drive_set_unused(&sim->scene, sim->registry, solvers, (size_t)n, set, why,
                                                      sizeof why);
    PyMem_Free(solvers);
    if (!unused) Py_RETURN_NONE;
    return PyUnicode_FromString(why);
}

static PyObject *core_checkpoint(PyObject *self, PyObject *args)
{
    Core *c = open_core(self);
    const char *dir;
    if (!c || !PyArg_ParseTuple(args, "s", &dir)) return NULL;
    if (refuse_forked(c)) return NULL;
    eddy_error err;
    eddy_error_clear(&err);
    int rc;
    /* From an on_frame callback the run's claim covers it; else it claims the stepping, so that no
     * thread steps this simulation while the GIL is released here. */
    const int claim = stepping_thread != PyThread_get_thread_ident();
    if (claim && begin_stepping(c, "checkpoint")) return NULL;
    /* Into a folder this simulation does not hold: held while the checkpoint is written (folder_lock.h),
     * so that one is not written into a folder another eddy run writes into. */
    eddy_folder_lock *held = NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = eddy_folder_lock_holds(c->lock, dir)
             ? EDDY_OK
             : eddy_folder_lock_take(dir, EDDY_FOLDER_EXISTING, "choose another folder", &held, &err);
    /* (no check of what the folder holds here: eddy_session_checkpoint refuses another run's checkpoint) */
    if (!rc) rc = eddy_session_checkpoint(c->s, dir, NULL, &err);
    eddy_folder_lock_release(held);
    Py_END_ALLOW_THREADS
    if (claim) end_stepping();
    if (rc) return raise_error(&err, held_here(dir, rc, &err));
    if (!c->output && same_folder(dir, eddy_session_scene(c->s)->out_dir)) c->own_checkpoint = 1;
    Py_RETURN_NONE;
}

static PyObject *core_fields(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    Core *c = open_core(self);
    if (!c) return NULL;
    const eddy_particles *p = &eddy_session_world(c->s)->particles;
    PyObject *out = PyList_New(0);
    for (int f = 0; out && f < eddy_particles_field_count(p); ++f) {
        PyObject *t = Py_BuildValue("(si)", eddy_particles_field_name(p, f), eddy_particles_field_components(p, f));
        if (!t || PyList_Append(out, t)) Py_CLEAR(out);
        Py_XDECREF(t);
    }
    return out;
}

/* An array over `data` whose base is the Core, so that the memory outlives the array. */
static PyObject *view(Core *c, int type, int nd, npy_intp *shape, npy_intp *strides, void *data, int writable)
{
    PyObject *a = PyArray_New(&PyArray_Type, nd, shape, type, strides, data, 0,
                              writable ? NPY_ARRAY_WRITEABLE | NPY_ARRAY_ALIGNED : NPY_ARRAY_ALIGNED, NULL);
    if (!a) return NULL;
    Py_INCREF(c);
    if (PyArray_SetBaseObject((PyArrayObject *)a, (PyObject *)c)) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* field(name, writable) -> ndarray of shape (count,) or (count, components), storage order */
static PyObject *core_field(PyObject *self, PyObject *args)
{
    Core *c = open_core(self);
    const char *name;
    int writable = 0;
    if (!c || !PyArg_ParseTuple(args, "s|p", &name, &writable)) return NULL;
    eddy_world *w = eddy_session_world(c->s);
    const eddy_particles *p = &w->particles;
    int f = eddy_particles_find_field(p, name);
    if (f < 0 || f >= 64) {
        char names[EDDY_MAX_FIELDS * (EDDY_FIELD_NAME_MAX + 2)] = "";
        for (int i = 0; i < eddy_particles_field_count(p); ++i) {
            if (i) strcat(names, ", ");
            strcat(names, eddy_particles_field_name(p, i));
        }
        return PyErr_Format(NotFoundError, "unknown field '%s' (available: %s)", name, names);
    }
    eddy_error err;
    eddy_error_clear(&err);
    eddy_field_view v = {.size = sizeof v};
    int rc = eddy_world_map_field(w, f, writable ? EDDY_MAP_READ_WRITE : EDDY_MAP_READ, &v, &err);
    if (rc) return raise_error(&err, rc);
    eddy_world_unmap_field(w, &v);
    const int k = eddy_particles_field_components(p, f);
    npy_intp shape[2] = {(npy_intp)p->count, k};
    npy_intp strides[2] = {sizeof(eddy_real), (npy_intp)(p->capacity * sizeof(eddy_real))};
    PyObject *a = view(c, NPY_FLOAT32, k == 1 ? 1 : 2, shape, strides, eddy_particles_field(p, f, 0), writable);
    if (a) {
        c->read_views |= 1ull << f;
        if (writable) c->write_views |= 1ull << f;
    }
    return a;
}

static PyObject *core_ids(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    Core *c = open_core(self);
    if (!c) return NULL;
    const eddy_particles *p = &eddy_session_world(c->s)->particles;
    npy_intp shape[1] = {(npy_intp)p->count}, strides[1] = {sizeof(uint64_t)};
    return view(c, NPY_UINT64, 1, shape, strides, p->id, 0);
}

static PyObject *core_materials(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    Core *c = open_core(self);
    if (!c) return NULL;
    const eddy_particles *p = &eddy_session_world(c->s)->particles;
    npy_intp shape[1] = {(npy_intp)p->count}, strides[1] = {sizeof(uint32_t)};
    return view(c, NPY_UINT32, 1, shape, strides, p->material, 0);
}

/* The order of the owned particles by increasing id (a copy), as every writer and the hash visit them. */
static PyObject *core_order(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    Core *c = open_core(self);
    if (!c) return NULL;
    const eddy_particles *p = &eddy_session_world(c->s)->particles;
    uint32_t *o = eddy_order_by_id(p);
    if (!o) return PyErr_NoMemory();
    npy_intp n = (npy_intp)(p->count - p->halo_count);
    PyObject *a = PyArray_SimpleNew(1, &n, NPY_UINT32);
    if (a) memcpy(PyArray_DATA((PyArrayObject *)a), o, (size_t)n * sizeof *o);
    free(o);
    return a;
}

static PyObject *core_state(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    Core *c = open_core(self);
    if (!c) return NULL;
    const eddy_world *w = eddy_session_world(c->s);
    const eddy_sim *sim = eddy_session_sim(c->s);
    const eddy_scene *sc = eddy_session_scene(c->s);
    return Py_BuildValue("{s:d,s:K,s:i,s:n,s:i,s:s,s:s,s:s,s:s,s:s,s:d,s:d,s:d,s:d,s:i,s:d,s:s}", "time", w->time,
                         "step", (unsigned long long)w->step, "next_frame", eddy_session_next_frame(c->s),
                         "count", (Py_ssize_t)w->particles.count, "dimensions", w->dimensions, "solver",
                         sim->solver_entry->component->id, "grid", sim->grid_entry->component->id, "name", sc->name,
                         "file", sc->file, "out_dir", sc->out_dir, "dt", sc->dt, "end_time", sc->end_time,
                         "output_interval", sc->output_interval, "simulation_scale", (double)sc->simulation_scale,
                         "threads", sim->threads, "last_dt", sim->last_dt, "dt_limit", sim->dt_limit);
}

static PyObject *core_close(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    Core *c = (Core *)self;
    /* A run writing frames uses the output (from another thread, or around this thread's on_frame
     * callback): destroying it under the run freed what the writers were using, and the run's next frame
     * made a new output that truncated diagnostics.csv. */
    if (stepping_core == c) {
        PyErr_SetString(Error, "close: the simulation is stepping (a step, run or checkpoint call is under way, "
                               "in another thread or around this on_frame callback); close it after that call "
                               "returns");
        return NULL;
    }
    if (forked_copy(c)) {
        core_forget_forked(c);
        Py_RETURN_NONE;
    }
    eddy_output_destroy(c->output);
    c->output = NULL;
    c->probes_csv = NULL;
    /* The folder goes with the files (folder_lock.h): another run may write into it now. */
    eddy_folder_lock_release(c->lock);
    c->lock = NULL;
    Py_RETURN_NONE;
}

/* The docstrings start with a text signature (inspect.signature reads it), which
 * tests/python/test_stub.py holds against python/eddy/_eddy.pyi, so that the stub cannot drift from
 * the calls (a keyword the stub allowed was refused here). */
static PyMethodDef core_methods[] = {
    {"step", core_step, METH_VARARGS, "step($self, n, /)\n--\n\nn steps as `eddy run` takes them; False when stopped early."},
    {"run", (PyCFunction)(void (*)(void))core_run, METH_VARARGS | METH_KEYWORDS,
     "run($self, /, end_steps=-1, end_time=..., on_frame=None, record=False, write=False)\n--\n\n"
     "(completed, last_on_frame, rows, width); end_time NaN (the default): the scene's time.end. "
     "ValueError when a simulation that has stepped is at or past that end already."},
    {"measure", core_measure, METH_VARARGS, "measure($self, write=False, /)\n--\n\nbytes: one record row of the current state."},
    {"probes", core_probes, METH_NOARGS, "probes($self, /)\n--\n\nThe scene's probes: name, kind, unit, reference."},
    {"hash", core_hash, METH_NOARGS, "hash($self, /)\n--\n\nThe state hash `eddy run --hash` prints."},
    {"set_unused", core_set_unused, METH_VARARGS,
     "set_unused($self, set, solvers=None, /)\n--\n\nWhy a 'path=value' override cannot change this simulation "
     "(or a comparison of the solvers with these ids), or None."},
    {"checkpoint", core_checkpoint, METH_VARARGS, "checkpoint($self, dir, /)\n--\n\nWrites DIR/checkpoint.eddy."},
    {"fields", core_fields, METH_NOARGS, "fields($self, /)\n--\n\n[(name, components)]"},
    {"field", core_field, METH_VARARGS,
     "field($self, name, writable=False, /)\n--\n\nZero-copy ndarray of a field in storage order."},
    {"ids", core_ids, METH_NOARGS, "ids($self, /)\n--\n\nZero-copy read-only ndarray of the particle ids, storage order."},
    {"materials", core_materials, METH_NOARGS,
     "materials($self, /)\n--\n\nZero-copy read-only ndarray of the material indices."},
    {"order", core_order, METH_NOARGS,
     "order($self, /)\n--\n\nStorage indices of the owned particles by increasing id (a copy)."},
    {"state", core_state, METH_NOARGS, "state($self, /)\n--\n\nClock, counts and ids of the session."},
    {"close_output", core_close, METH_NOARGS,
     "close_output($self, /)\n--\n\nCloses the output files (frames series, diagnostics.csv) and lets the output "
     "folder go."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "eddy._eddy.Core",
    .tp_basicsize = sizeof(Core),
    .tp_dealloc = (destructor)core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One open session (host/session/session.h); freed when its last reference goes.",
    .tp_methods = core_methods,
};

/* ------------------------------------------------------------------------------------------------ */
/* compare                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

static PyObject *py_compare(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"scene_path", "solvers", "out_dir", "steps", "until", "sets", "grid", "threads",
                             "scene_text", "scene_name", NULL};
    eddy_compare_options *o = PyMem_Calloc(1, sizeof *o);
    if (!o) return PyErr_NoMemory();
    PyObject *solvers, *sets = NULL;
    o->steps = -1;
    o->until = NAN;
    o->quiet = 1;
    o->no_stdout = 1; /* the caller gets the table; the report stays in OUT/summary.md */
    if (!PyArg_ParseTupleAndKeywords(args, kw, "zO!s|LdOzizz", kwlist, &o->scene_path, &PyList_Type, &solvers,
                                     &o->out_dir, &o->steps, &o->until, &sets, &o->grid, &o->threads,
                                     &o->scene_text, &o->scene_name)) {
        PyMem_Free(o);
        return NULL;
    }
    if (!o->scene_path == !o->scene_text) {
        PyMem_Free(o);
        return PyErr_Format(PyExc_TypeError, "compare: give scene_path or scene_text, not %s",
                            o->scene_path ? "both" : "neither");
    }
    if (sets == Py_None) sets = NULL;
    if (sets && !PyList_Check(sets)) {
        PyMem_Free(o);
        return PyErr_Format(PyExc_TypeError, "set: expected a list of str or None, got %s", Py_TYPE(sets)->tp_name);
    }
    if (bad_threads(o->threads)) {
        PyMem_Free(o);
        return NULL;
    }
    Py_ssize_t ns = PyList_GET_SIZE(solvers), nset = sets ? PyList_GET_SIZE(sets) : 0;
    if (ns < 1 || ns > EDDY_COMPARE_MAX_SOLVERS || nset > EDDY_COMPARE_MAX_SETS) {
        PyMem_Free(o);
        return PyErr_Format(PyExc_ValueError, "compare: 1 to %d solvers and at most %d overrides, got %zd and %zd",
                            EDDY_COMPARE_MAX_SOLVERS, EDDY_COMPARE_MAX_SETS, ns, nset);
    }
    for (Py_ssize_t i = 0; i < ns; ++i) {
        const char *id = utf8_item(PyList_GET_ITEM(solvers, i), "compare: solvers");
        if (!id || strlen(id) >= EDDY_COMPARE_ID_MAX) {
            PyMem_Free(o);
            return id ? PyErr_Format(PyExc_ValueError, "compare: solver id '%s' is too long", id) : NULL;
        }
        strcpy(o->solvers[i], id);
    }
    o->solver_count = (int)ns;
    for (Py_ssize_t i = 0; i < nset; ++i)
        if (!(o->sets[i] = utf8_item(PyList_GET_ITEM(sets, i), "set"))) {
            PyMem_Free(o);
            return NULL;
        }
    o->set_count = (size_t)nset;
    /* An error before the first solver (the scene, its probes, the folder) is raised with the
     * command's message; the run would only print it, leaving "summary.csv was not written". */
    eddy_error setup_error;
    eddy_error_clear(&setup_error);
    o->setup_error = &setup_error;
    /* The process's registry, as a Simulation opens with: its own (eddy_registry_discover from the
     * interpreter) lacked the package's folders, and putting them into EDDY_PLUGIN_PATH for the call
     * changed the environment other threads read while the GIL was released, and had an unknown
     * solver's message show a value the user never set. */
    if (!(o->registry = get_registry()) || begin_stepping(NULL, "compare")) {
        PyMem_Free(o);
        return NULL;
    }
    sig_guard g;
    guard_begin(&g, 1);
    int status;
    registry_use_begin();
    Py_BEGIN_ALLOW_THREADS
    status = eddy_compare_run(o);
    Py_END_ALLOW_THREADS
    registry_use_end();
    end_stepping();
    const char *out_dir = o->out_dir; /* (borrowed from the arguments, not from o) */
    PyMem_Free(o);
    if (guard_end(&g)) return NULL;
    if (setup_error.code) return raise_error(&setup_error, held_here(out_dir, setup_error.code, &setup_error));
    return PyLong_FromLong(status);
}

/* `eddy --quiet` for the process: the INFO lines of plugins and sessions (a derived sound speed, a
 * solver's notes) are hidden; warnings and errors still go to stderr. */
static PyObject *py_set_quiet(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyBool_Check(arg))
        return PyErr_Format(PyExc_TypeError, "set_quiet: expected True or False, got %s", Py_TYPE(arg)->tp_name);
    const int was = eddy_services_quiet();
    eddy_services_set_quiet(arg == Py_True);
    return PyBool_FromLong(was);
}

/* ------------------------------------------------------------------------------------------------ */

static PyMethodDef module_methods[] = {
    {"set_quiet", py_set_quiet, METH_O,
     "set_quiet($module, flag, /)\n--\n\nHide (True) or show (False) the INFO lines on stderr; returns the previous setting."},
    {"_set_plugin_dirs", py_set_plugin_dirs, METH_O,
     "_set_plugin_dirs($module, dirs, /)\n--\n\nThe package's plugin folders, searched after EDDY_PLUGIN_PATH."},
    {"components", py_components, METH_NOARGS, "components($module, /)\n--\n\nEvery registered component as a dict."},
    {"refusals", py_refusals, METH_NOARGS, "refusals($module, /)\n--\n\n[(file, reason)] of the plugins refused."},
    {"nearest_id", py_nearest_id, METH_VARARGS,
     "nearest_id($module, id, /)\n--\n\nThe registered id `id` is likely a typo of, or None."},
    {"load_plugin", py_load_plugin, METH_VARARGS,
     "load_plugin($module, path, /)\n--\n\nLoads one plugin file or raises PluginError."},
    {"open", (PyCFunction)(void (*)(void))py_open, METH_VARARGS | METH_KEYWORDS,
     "open($module, /, scene_path=None, scene_text=None, scene_name=None, sets=None, solver=None, grid=None, "
     "out_dir=None, formats=None, threads=0, particle_target=0)\n--\n\nOpens a session: a Core."},
    {"resume", (PyCFunction)(void (*)(void))py_resume, METH_VARARGS | METH_KEYWORDS,
     "resume($module, /, dir, threads=0)\n--\n\nThe session a checkpoint folder continues."},
    {"compare", (PyCFunction)(void (*)(void))py_compare, METH_VARARGS | METH_KEYWORDS,
     "compare($module, /, scene_path, solvers, out_dir, steps=-1, until=..., sets=None, grid=None, threads=0, "
     "scene_text=None, scene_name=None)\n--\n\n"
     "The exit status of `eddy compare`; until NaN (the default): no end time."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "eddy._eddy",
                                    "The C extension under the eddy package (docs/python.md).", -1, module_methods,
                                    NULL, NULL, NULL, NULL};

/* `code` and `status` are class attributes too, so that every eddy.Error has them as the docs promise,
 * also one raised here without a core error record (an unknown field, a closed simulation, a thread
 * conflict) or by the package's Python code; raise_error sets the core's own on the instance. */
static int add_exception(PyObject *m, PyObject **slot, const char *name, PyObject *base, const char *doc, int code)
{
    char full[64];
    snprintf(full, sizeof full, "eddy.%s", name);
    *slot = PyErr_NewExceptionWithDoc(full, doc, base, NULL);
    if (!*slot) return -1;
    PyObject *c = PyLong_FromLong(code);
    PyObject *s = PyUnicode_FromString(eddy_strerror(code));
    const int rc = !c || !s || PyObject_SetAttrString(*slot, "code", c) || PyObject_SetAttrString(*slot, "status", s);
    Py_XDECREF(c);
    Py_XDECREF(s);
    return rc ? -1 : PyModule_AddObjectRef(m, name, *slot);
}

PyMODINIT_FUNC PyInit__eddy(void)
{
    import_array();
    stop_flag = eddy_services_stop_flag();
    /* (module init runs once per process; ENOMEM, its only failure, leaves a stale claim in a child) */
    (void)pthread_atfork(NULL, NULL, stepping_after_fork_in_child);
    PyObject *threading = PyImport_ImportModule("threading");
    PyObject *main_thread = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
    PyObject *ident = main_thread ? PyObject_GetAttrString(main_thread, "ident") : NULL;
    main_ident = ident ? PyLong_AsUnsignedLong(ident) : 0;
    if (PyErr_Occurred()) { /* (unknown: every thread checks, which costs a GIL round trip at most) */
        PyErr_Clear();
        main_ident = 0;
    }
    Py_XDECREF(ident);
    Py_XDECREF(main_thread);
    Py_XDECREF(threading);
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (add_exception(m, &Error, "Error", PyExc_RuntimeError,
                      "An error of the eddy core; str() is the message `eddy` prints after 'eddy: error: ', "
                      ".code the eddy_status and .status its text.",
                      EDDY_ERR_INVALID_ARGUMENT) ||
        add_exception(m, &SceneError, "SceneError", Error, "A malformed scene or a value out of its range.",
                      EDDY_ERR_INVALID_ARGUMENT) ||
        add_exception(m, &NotFoundError, "NotFoundError", Error, "An unknown component, field, key or file.",
                      EDDY_ERR_NOT_FOUND) ||
        add_exception(m, &PluginError, "PluginError", Error, "A plugin was refused or misbehaved.", EDDY_ERR_PLUGIN) ||
        add_exception(m, &UnstableError, "UnstableError", Error,
                      "The simulation exploded (a non-finite or runaway particle) or left its domain.",
                      EDDY_ERR_UNSTABLE) ||
        add_exception(m, &FileError, "FileError", Error, "A file could not be read or written.", EDDY_ERR_IO) ||
        add_exception(m, &DeviceError, "DeviceError", Error, "An accelerator is missing or failed.",
                      EDDY_ERR_DEVICE) ||
        PyModule_AddObjectRef(m, "Core", (PyObject *)&CoreType) ||
        PyModule_AddIntConstant(m, "RECORD_FIXED_COLUMNS", ROW_FIXED)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
