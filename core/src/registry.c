#include <eddy/registry.h>

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct loaded_file {
    char *path;
    void *handle;
} loaded_file;

struct eddy_registry {
    eddy_registry_entry *entries;
    size_t count;
    eddy_registry_refusal *refusals;
    size_t refusal_count;
    loaded_file *files;
    size_t file_count;
    char **dirs; /* scanned folders (real paths), to scan each once */
    size_t dir_count;
    char *ids;   /* buffer for eddy_registry_ids */
};

/* The CPU backend's vtable lives in another translation unit, so the component is completed at
 * registry creation rather than in a constant initializer. */
static eddy_component cpu_grid_component = {
    sizeof(eddy_component), EDDY_COMPONENT_GRID, "cpu", "1.0.0",
    "CPU uniform grid: OpenMP counting sort by cell, 3-cell bars", NULL, 0, NULL, NULL};

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static int add_entry(eddy_registry *reg, const eddy_component *c, const char *file, const char *plugin)
{
    eddy_registry_entry *e = realloc(reg->entries, sizeof *e * (reg->count + 1));
    if (!e) return EDDY_ERR_OUT_OF_MEMORY;
    reg->entries = e;
    e[reg->count].component = c;
    e[reg->count].file = file;
    e[reg->count].plugin = plugin;
    reg->count++;
    return EDDY_OK;
}

static int refuse(eddy_registry *reg, const char *path, int code, eddy_error *err, const char *fmt, ...)
    EDDY_PRINTF(5, 6);

static int refuse(eddy_registry *reg, const char *path, int code, eddy_error *err, const char *fmt, ...)
{
    char reason[EDDY_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    eddy_registry_refusal *r = realloc(reg->refusals, sizeof *r * (reg->refusal_count + 1));
    if (r) {
        reg->refusals = r;
        r[reg->refusal_count].file = dup_str(path);
        r[reg->refusal_count].reason = dup_str(reason);
        if (r[reg->refusal_count].file && r[reg->refusal_count].reason) reg->refusal_count++;
    }
    return eddy_error_set(err, code, "%s: %s", path, reason);
}

int eddy_registry_create(eddy_registry **out, eddy_error *err)
{
    cpu_grid_component.grid = eddy_cpu_grid_backend();
    eddy_registry *reg = calloc(1, sizeof *reg);
    if (!reg || add_entry(reg, &cpu_grid_component, "(built-in)", "eddy")) {
        free(reg);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    *out = reg;
    return EDDY_OK;
}

void eddy_registry_destroy(eddy_registry *reg)
{
    if (!reg) return;
    for (size_t i = 0; i < reg->file_count; ++i) {
        if (reg->files[i].handle) dlclose(reg->files[i].handle);
        free(reg->files[i].path);
    }
    for (size_t i = 0; i < reg->refusal_count; ++i) {
        free((char *)reg->refusals[i].file);
        free((char *)reg->refusals[i].reason);
    }
    for (size_t i = 0; i < reg->dir_count; ++i) free(reg->dirs[i]);
    free(reg->dirs);
    free(reg->files);
    free(reg->refusals);
    free(reg->entries);
    free(reg->ids);
    free(reg);
}

static int valid_id(const char *id)
{
    if (!id || !*id) return 0;
    for (const char *c = id; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return 0;
    return 1;
}

/* Everything a host relies on before it calls into a component: a refusal here is always better than
 * a crash later. */
static int check_component(eddy_registry *reg, const char *path, const eddy_component *c, eddy_error *err)
{
    if (!c) return refuse(reg, path, EDDY_ERR_PLUGIN, err, "component entry is NULL");
    if (c->size < sizeof(eddy_component))
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "component struct is %zu bytes, expected at least %zu",
                      c->size, sizeof(eddy_component));
    if (!valid_id(c->id))
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "component id '%s' is not [a-z0-9_]+",
                      c->id ? c->id : "(null)");
    const eddy_registry_entry *dup = eddy_registry_find(reg, c->id, 0);
    if (dup)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "duplicate component id '%s' (already provided by %s)",
                      c->id, dup->file);
    eddy_error perr;
    if (eddy_param_table_check(c->params, c->param_count, &perr))
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "component '%s': %s", c->id, perr.message);
    if (c->kind == EDDY_COMPONENT_SOLVER) {
        const eddy_solver_vtable *v = c->solver;
        if (!v) return refuse(reg, path, EDDY_ERR_PLUGIN, err, "solver '%s' has no vtable", c->id);
        size_t need = offsetof(eddy_solver_vtable, destroy) + sizeof v->destroy;
        if (v->size < need)
            return refuse(reg, path, EDDY_ERR_PLUGIN, err, "solver '%s': vtable size %zu is below the %zu required bytes",
                          c->id, v->size, need);
        const char *missing = !v->create ? "create" : !v->step ? "step" : !v->destroy ? "destroy" : NULL;
        if (missing)
            return refuse(reg, path, EDDY_ERR_PLUGIN, err, "solver '%s': missing required callback '%s'",
                          c->id, missing);
    } else if (c->kind == EDDY_COMPONENT_GRID) {
        const eddy_grid_backend_vtable *v = c->grid;
        if (!v) return refuse(reg, path, EDDY_ERR_PLUGIN, err, "grid '%s' has no vtable", c->id);
        size_t need = offsetof(eddy_grid_backend_vtable, destroy) + sizeof v->destroy;
        if (v->size < need)
            return refuse(reg, path, EDDY_ERR_PLUGIN, err, "grid '%s': vtable size %zu is below the %zu required bytes",
                          c->id, v->size, need);
        const char *missing = !v->create ? "create" : !v->sort ? "sort" : !v->destroy ? "destroy" : NULL;
        if (missing)
            return refuse(reg, path, EDDY_ERR_PLUGIN, err, "grid '%s': missing required callback '%s'",
                          c->id, missing);
    } else {
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "component '%s' has unknown kind %d", c->id, (int)c->kind);
    }
    return EDDY_OK;
}

int eddy_registry_load_file(eddy_registry *reg, const char *path, eddy_error *err)
{
    for (size_t i = 0; i < reg->file_count; ++i)
        if (strcmp(reg->files[i].path, path) == 0) return EDDY_OK;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return refuse(reg, path, EDDY_ERR_PLUGIN, err, "cannot load: %s", dlerror());
    /* dlsym returns void *; going through a union avoids the ISO C object-to-function cast warning. */
    union { void *obj; eddy_plugin_entry_fn fn; } entry;
    entry.obj = dlsym(h, EDDY_PLUGIN_ENTRY_SYMBOL);
    if (!entry.obj) {
        dlclose(h);
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "missing entry symbol '%s'", EDDY_PLUGIN_ENTRY_SYMBOL);
    }
    const eddy_plugin_descriptor *d = entry.fn();
    int rc = EDDY_OK;
    if (!d)
        rc = refuse(reg, path, EDDY_ERR_PLUGIN, err, "%s() returned NULL", EDDY_PLUGIN_ENTRY_SYMBOL);
    else if (d->abi_major != EDDY_ABI_MAJOR)
        rc = refuse(reg, path, EDDY_ERR_PLUGIN, err,
                    "ABI major version mismatch: plugin %u.%u, host %d.%d", d->abi_major, d->abi_minor,
                    EDDY_ABI_MAJOR, EDDY_ABI_MINOR);
    else if (d->abi_minor > EDDY_ABI_MINOR)
        rc = refuse(reg, path, EDDY_ERR_PLUGIN, err,
                    "plugin needs a newer host: plugin ABI %u.%u, host %d.%d", d->abi_major,
                    d->abi_minor, EDDY_ABI_MAJOR, EDDY_ABI_MINOR);
    else if (d->real_size != sizeof(eddy_real))
        rc = refuse(reg, path, EDDY_ERR_PLUGIN, err,
                    "real-number size mismatch: plugin %u bytes, host %zu bytes", d->real_size,
                    sizeof(eddy_real));
    else if (d->component_count == 0 || !d->components)
        rc = refuse(reg, path, EDDY_ERR_PLUGIN, err, "plugin provides no components");
    if (rc) { dlclose(h); return rc; }

    /* All components are checked before any is registered, so a plugin is taken whole or not at all.
     * Duplicates inside one plugin are caught by registering into a trial count. */
    size_t before = reg->count;
    const char *name = d->name ? d->name : path;
    char *path_copy = dup_str(path);
    for (uint32_t i = 0; i < d->component_count && rc == EDDY_OK; ++i) {
        rc = check_component(reg, path, d->components[i], err);
        if (rc == EDDY_OK && add_entry(reg, d->components[i], path_copy, name))
            rc = refuse(reg, path, EDDY_ERR_OUT_OF_MEMORY, err, "out of memory");
    }
    if (rc) {
        reg->count = before;
        free(path_copy);
        dlclose(h);
        return rc;
    }
    loaded_file *f = realloc(reg->files, sizeof *f * (reg->file_count + 1));
    if (!f) {
        reg->count = before;
        free(path_copy);
        dlclose(h);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    reg->files = f;
    f[reg->file_count].path = path_copy;
    f[reg->file_count].handle = h;
    reg->file_count++;
    return EDDY_OK;
}

static int plugin_name_filter(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 8 && strncmp(e->d_name, "eddy_", 5) == 0 && strcmp(e->d_name + n - 3, ".so") == 0;
}

void eddy_registry_scan_dir(eddy_registry *reg, const char *dir)
{
    char real[PATH_MAX];
    if (!realpath(dir, real)) return;
    for (size_t i = 0; i < reg->dir_count; ++i)
        if (strcmp(reg->dirs[i], real) == 0) return;
    char **dirs = realloc(reg->dirs, sizeof *dirs * (reg->dir_count + 1));
    if (!dirs) return;
    reg->dirs = dirs;
    if (!(dirs[reg->dir_count] = dup_str(real))) return;
    reg->dir_count++;
    struct dirent **list = NULL;
    int n = scandir(real, &list, plugin_name_filter, alphasort);
    for (int i = 0; i < n; ++i) {
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", real, list[i]->d_name) < (int)sizeof path)
            eddy_registry_load_file(reg, path, NULL);
        free(list[i]);
    }
    free(list);
}

void eddy_registry_discover(eddy_registry *reg)
{
    const char *env = getenv("EDDY_PLUGIN_PATH");
    if (env && *env) {
        char *copy = dup_str(env);
        for (char *save = NULL, *tok = copy ? strtok_r(copy, ":", &save) : NULL; tok;
             tok = strtok_r(NULL, ":", &save))
            eddy_registry_scan_dir(reg, tok);
        free(copy);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char dir[PATH_MAX];
            if (snprintf(dir, sizeof dir, "%s/../%s", exe, EDDY_PLUGIN_SUBDIR) < (int)sizeof dir)
                eddy_registry_scan_dir(reg, dir);
        }
    }
    eddy_registry_scan_dir(reg, EDDY_INSTALL_PLUGIN_DIR);
}

size_t eddy_registry_count(const eddy_registry *reg) { return reg->count; }

const eddy_registry_entry *eddy_registry_at(const eddy_registry *reg, size_t i)
{
    return i < reg->count ? &reg->entries[i] : NULL;
}

size_t eddy_registry_refusal_count(const eddy_registry *reg) { return reg->refusal_count; }

const eddy_registry_refusal *eddy_registry_refusal_at(const eddy_registry *reg, size_t i)
{
    return i < reg->refusal_count ? &reg->refusals[i] : NULL;
}

const eddy_registry_entry *eddy_registry_find(const eddy_registry *reg, const char *id, int kind)
{
    if (!id) return NULL;
    for (size_t i = 0; i < reg->count; ++i) {
        const eddy_component *c = reg->entries[i].component;
        if (strcmp(c->id, id) == 0 && (kind == 0 || (int)c->kind == kind)) return &reg->entries[i];
    }
    return NULL;
}

const char *eddy_registry_ids(eddy_registry *reg, int kind)
{
    size_t len = 1;
    for (size_t i = 0; i < reg->count; ++i) len += strlen(reg->entries[i].component->id) + 2;
    char *buf = realloc(reg->ids, len);
    if (!buf) return "";
    reg->ids = buf;
    buf[0] = '\0';
    for (size_t i = 0; i < reg->count; ++i) {
        const eddy_component *c = reg->entries[i].component;
        if (kind && (int)c->kind != kind) continue;
        if (buf[0]) strcat(buf, ", ");
        strcat(buf, c->id);
    }
    return buf;
}
