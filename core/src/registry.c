/*
 * The plugin loader and the component registry (registry.h).
 *
 * Loading a plugin runs the checks of plugin.h in a fixed order, so that the first thing wrong is the
 * thing reported: the descriptor's version header (the only part every ABI version shares), its size,
 * init(), then every component. A plugin is taken whole or not at all.
 *
 * The growth rule is applied here and nowhere else: each registered component is a registry-owned
 * copy in this host's layout, with what the plugin's sizes do not cover zeroed, its parameter tables
 * re-laid at this host's stride and the vtable of a known interface copied the same way. Every other
 * part of the host reads members directly.
 */
#include <eddy/registry.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <eddy/observe.h>

#include "internal.h"
#include "plugin_file.h"

#define BUILTIN_FILE "(built-in)"

/* Bytes a struct must cover to hold `member` of `type`. */
#define END_OF(type, member) (offsetof(type, member) + sizeof(((const type *)0)->member))

/* The part of an eddy_component the host cannot do without; flags and the material table are
 * optional (absent before they existed). */
#define COMPONENT_REQUIRED END_OF(eddy_component, vtable)
/* A parameter entry must cover `choices`: an enum without them cannot be validated. */
#define PARAM_REQUIRED END_OF(eddy_param_desc, choices)

/* The descriptor of a 2.x plugin covers every member of 2.0: later minors append after components. */
#define DESCRIPTOR_REQUIRED END_OF(eddy_plugin_descriptor, components)

/* A callback every component of an interface must provide, found by its offset in the vtable. */
typedef struct required_callback {
    const char *name;
    size_t offset;
} required_callback;

/* An interface this host calls, and so checks at load time. */
typedef struct known_interface {
    const char *id;
    const char *name;          /* for messages: "solver", ... */
    size_t vtable_size;        /* sizeof its vtable in this host */
    size_t required_size;      /* bytes the plugin's vtable must cover: through its last required member */
    size_t align;              /* _Alignof its vtable */
    required_callback required[3];
    /* A callback that is useless, or harmful, without another: {needs, what}; unset for most. */
    required_callback needs[2];
} known_interface;

#define CALLBACK(type, member) {#member, offsetof(type, member)}

static const known_interface known_interfaces[] = {
    {EDDY_INTERFACE_SOLVER, "solver", sizeof(eddy_solver_vtable), END_OF(eddy_solver_vtable, destroy),
     _Alignof(eddy_solver_vtable),
     {CALLBACK(eddy_solver_vtable, create), CALLBACK(eddy_solver_vtable, step),
      CALLBACK(eddy_solver_vtable, destroy)},
     /* (every run ends with a checkpoint, which save() writes and nothing could read back: refused
      * after the whole run, at the first checkpoint, before this check) */
     {CALLBACK(eddy_solver_vtable, save), CALLBACK(eddy_solver_vtable, load)}},
    {EDDY_INTERFACE_GRID, "grid", sizeof(eddy_grid_backend_vtable),
     END_OF(eddy_grid_backend_vtable, destroy), _Alignof(eddy_grid_backend_vtable),
     {CALLBACK(eddy_grid_backend_vtable, create), CALLBACK(eddy_grid_backend_vtable, sort),
      CALLBACK(eddy_grid_backend_vtable, destroy)},
     {{NULL, 0}, {NULL, 0}}},
    {EDDY_INTERFACE_WRITER, "writer", sizeof(eddy_writer_vtable), END_OF(eddy_writer_vtable, destroy),
     _Alignof(eddy_writer_vtable),
     {CALLBACK(eddy_writer_vtable, create), CALLBACK(eddy_writer_vtable, write_frame),
      CALLBACK(eddy_writer_vtable, destroy)},
     {{NULL, 0}, {NULL, 0}}},
    /* unit() lies before destroy but is optional. */
    {EDDY_INTERFACE_PROBE, "probe", sizeof(eddy_probe_vtable), END_OF(eddy_probe_vtable, destroy),
     _Alignof(eddy_probe_vtable),
     {CALLBACK(eddy_probe_vtable, create), CALLBACK(eddy_probe_vtable, measure),
      CALLBACK(eddy_probe_vtable, destroy)},
     {{NULL, 0}, {NULL, 0}}},
};

#define KNOWN_INTERFACE_COUNT (sizeof known_interfaces / sizeof known_interfaces[0])

/* The CPU grid, always registered. Static const like a plugin's component: registering copies it. */
static const eddy_component cpu_grid_component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_GRID,
    .id = "cpu",
    .version = "2.0.0",
    .description = "CPU uniform grid: OpenMP counting sort by cell, 3-cell bars",
    .vtable = &eddy_cpu_grid_vtable,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES,
};

/* A loaded shared object: kept open, and deinit() pending, until the registry is destroyed. */
typedef struct loaded_plugin {
    char *path;
    void *handle;
    void (*deinit)(void);
} loaded_plugin;

/* One registered component with the copies its entry points to. Allocated one by one, so entries and
 * components keep their addresses while the registry grows. */
typedef struct record {
    eddy_registry_entry entry;
    eddy_component component;          /* the normalized copy; entry.component points here */
    void *vtable;                      /* copy of a known interface's vtable, or NULL */
    eddy_param_desc *params;           /* [param_count] at this host's stride, or NULL */
    eddy_param_desc *material_params;  /* [material_param_count], or NULL */
    char *plugin;                      /* owned copy of a built-in's plugin name, or NULL */
    unsigned level;                    /* the folder scan it came from (see eddy_registry.level) */
    uint32_t index;                    /* its place in its plugin's components[] */
} record;

/* A folder scanned for plugins. Its device and inode as well as its real path: a bind mount or a
 * second mount of one file system gives the same folder two real paths, and its plugins were then
 * loaded twice over (each refused as a duplicate of itself). */
typedef struct scanned_dir {
    char *path; /* real path */
    dev_t dev;
    ino_t ino;
} scanned_dir;

struct eddy_registry {
    const eddy_host *host;
    record **records;
    size_t count;
    eddy_registry_refusal *refusals;
    size_t refusal_count;
    loaded_plugin *plugins;
    size_t plugin_count;
    scanned_dir *dirs; /* scanned folders, to scan each once */
    size_t dir_count;
    char *ids;   /* buffer for eddy_registry_ids */
    /* Search-path level of what is registered now: 0 for built-ins and files loaded one by one, k >= 1
     * while the k-th folder is scanned. An id held at another level >= 1 is shadowed (an earlier folder
     * wins, eddy/registry.h); at the same level, or against level 0, it is a conflict (refused). */
    unsigned level;
    unsigned scans;
    eddy_registry_shadow *shadows;
    size_t shadow_count;
};

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static int refuse(eddy_registry *reg, const char *path, int code, eddy_error *err, const char *fmt, ...)
    EDDY_PRINTF(5, 6);

/* Records why `path` was refused and fills err with "path: reason". Returns code. */
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
        char *file = dup_str(path), *why = dup_str(reason);
        if (file && why) {
            r[reg->refusal_count].file = file;
            r[reg->refusal_count].reason = why;
            reg->refusal_count++;
        } else {
            free(file);
            free(why);
        }
    }
    return eddy_error_set(err, code, "%s: %s", path, reason);
}

static void free_record(record *r)
{
    if (!r) return;
    free(r->vtable);
    free(r->params);
    free(r->material_params);
    free(r->plugin);
    free(r);
}

/* Removes the records registered after the first `keep` (a refused plugin's). */
static void drop_records(eddy_registry *reg, size_t keep)
{
    while (reg->count > keep) free_record(reg->records[--reg->count]);
}

static void free_shadow(eddy_registry_shadow *s)
{
    free((char *)s->id);
    free((char *)s->interface_id);
    free((char *)s->file);
    free((char *)s->shadowed);
}

/* Forgets the shadows recorded after the first `keep` (those of a plugin refused afterwards). */
static void drop_shadows(eddy_registry *reg, size_t keep)
{
    while (reg->shadow_count > keep) free_shadow(&reg->shadows[--reg->shadow_count]);
}

/* Records that `file`'s component `c` is shadowed by the registered one of the same id. */
static int add_shadow(eddy_registry *reg, const eddy_registry_entry *held, const eddy_component *c, const char *file)
{
    eddy_registry_shadow *grown = realloc(reg->shadows, sizeof *grown * (reg->shadow_count + 1));
    if (!grown) return -1;
    reg->shadows = grown;
    eddy_registry_shadow s = {dup_str(c->id), dup_str(c->interface_id), dup_str(held->file), dup_str(file)};
    if (!s.id || !s.interface_id || !s.file || !s.shadowed) {
        free_shadow(&s);
        return -1;
    }
    reg->shadows[reg->shadow_count++] = s;
    return 0;
}

static int valid_name(const char *s, int allow_dot)
{
    if (!s || !*s) return 0;
    for (const char *c = s; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || (allow_dot && *c == '.')))
            return 0;
    return 1;
}

static const known_interface *known_interface_of(const char *interface_id)
{
    for (size_t i = 0; i < KNOWN_INTERFACE_COUNT; ++i)
        if (strcmp(known_interfaces[i].id, interface_id) == 0) return &known_interfaces[i];
    return NULL;
}

const char *eddy_interface_name(const char *interface_id)
{
    if (!interface_id) return "(null)";
    const known_interface *k = known_interface_of(interface_id);
    return k ? k->name : interface_id;
}

/*
 * The growth rule for one struct that begins with its size: copies what the writer's size covers
 * (at most this host's size) into a zeroed `dst` of dst_size bytes and sets dst's size to dst_size.
 * The copy stops at a multiple of the struct's alignment, so a size that ends inside a member leaves
 * that member out (zero) instead of half-copied.
 */
static void copy_grown(void *dst, size_t dst_size, const void *src, size_t src_size, size_t align)
{
    size_t n = src_size < dst_size ? src_size : dst_size;
    n -= n % align;
    memset(dst, 0, dst_size);
    memcpy(dst, src, n);
    memcpy(dst, &dst_size, sizeof dst_size);
}

/*
 * Copies a parameter table into a registry-owned array at this host's stride. The plugin's table is
 * read with eddy_param_at (the stride of its first entry), each entry as far as its own size covers.
 * `what` names the table in messages ("parameter" or "material parameter"), `count_name` the
 * component's member that counts it ("param_count", ...). Returns 0, or fills `reason`.
 */
static int copy_param_table(const eddy_param_desc *table, size_t count, const char *what, const char *count_name,
                            eddy_param_desc **out, char *reason, size_t reason_size)
{
    *out = NULL;
    if (count == 0) return 0;
    if (!table) {
        snprintf(reason, reason_size, "%s table is NULL but has %zu entries", what, count);
        return -1;
    }
    eddy_param_desc *copy = calloc(count, sizeof *copy);
    if (!copy) {
        snprintf(reason, reason_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < count; ++i) {
        /* Entry 0's size is the stride: check it before stepping with it. */
        const eddy_param_desc *e = i == 0 ? table : eddy_param_at(table, i);
        if (e->size < PARAM_REQUIRED || e->size != table->size) {
            /* Past entry 0 the usual cause is a count larger than the table: the loader then reads
             * whatever follows the array as an entry. */
            char hint[64] = "";
            if (i > 0) snprintf(hint, sizeof hint, " (is %s larger than the table?)", count_name);
            if (e->size < PARAM_REQUIRED)
                snprintf(reason, reason_size, "%s entry %zu: size %zu is below the %zu required bytes%s",
                         what, i, e->size, (size_t)PARAM_REQUIRED, hint);
            else /* one compiler writes one size: a table mixing them is damaged */
                snprintf(reason, reason_size, "%s entry %zu: size %zu differs from the table's %zu%s", what,
                         i, e->size, table->size, hint);
            free(copy);
            return -1;
        }
        copy_grown(&copy[i], sizeof copy[i], e, e->size, _Alignof(eddy_param_desc));
    }
    *out = copy;
    return 0;
}

/* The vtable checks and copy of a known interface. Returns 0, or fills `reason`. */
static int copy_known_vtable(const known_interface *k, const char *id, const void *vtable, void **out,
                             char *reason, size_t reason_size)
{
    size_t size;
    memcpy(&size, vtable, sizeof size); /* every vtable begins with its size */
    if (size < k->required_size) {
        snprintf(reason, reason_size, "%s '%s': vtable size %zu is below the %zu required bytes", k->name,
                 id, size, k->required_size);
        return -1;
    }
    unsigned char *copy = malloc(k->vtable_size);
    if (!copy) {
        snprintf(reason, reason_size, "out of memory");
        return -1;
    }
    copy_grown(copy, k->vtable_size, vtable, size, k->align);
    for (size_t i = 0; i < sizeof k->required / sizeof k->required[0]; ++i) {
        void (*fn)(void);
        memcpy(&fn, copy + k->required[i].offset, sizeof fn);
        if (!fn) {
            snprintf(reason, reason_size, "%s '%s': missing required callback '%s'", k->name, id,
                     k->required[i].name);
            free(copy);
            return -1;
        }
    }
    if (k->needs[0].name) {
        void (*has)(void), (*needed)(void);
        memcpy(&has, copy + k->needs[0].offset, sizeof has);
        memcpy(&needed, copy + k->needs[1].offset, sizeof needed);
        if (has && !needed) {
            snprintf(reason, reason_size,
                     "%s '%s': has %s() but no %s(), so a checkpoint of it could not be resumed: give it %s(), or "
                     "leave %s() NULL when it keeps no state outside its particle fields",
                     k->name, id, k->needs[0].name, k->needs[1].name, k->needs[1].name, k->needs[0].name);
            free(copy);
            return -1;
        }
    }
    *out = copy;
    return 0;
}

/*
 * Checks component `index` of a plugin (or a built-in) and registers its normalized copy. Everything a
 * host relies on before it calls into a component is checked here: a refusal is always better than a
 * crash later. `file` names the shared object in messages and in the entry (owned by the caller, who
 * keeps it for the registry's lifetime); `plugin` is the plugin's name for the entry.
 */
static int register_component(eddy_registry *reg, const char *file, const char *plugin, int own_plugin,
                              const eddy_component *c, uint32_t index, eddy_error *err)
{
    /* Past component 0 the usual cause is a component_count larger than the array. */
    if (!c)
        return refuse(reg, file, EDDY_ERR_PLUGIN, err, "component %u is NULL%s", index,
                      index > 0 ? " (is component_count larger than the array?)" : "");
    if (c->size < COMPONENT_REQUIRED) {
        if (EDDY_HAS_MEMBER(c, eddy_component, id) && valid_name(c->id, 0))
            return refuse(reg, file, EDDY_ERR_PLUGIN, err, "component '%s': size %zu is below the %zu required bytes",
                          c->id, c->size, (size_t)COMPONENT_REQUIRED);
        return refuse(reg, file, EDDY_ERR_PLUGIN, err, "component %u: size %zu is below the %zu required bytes",
                      index, c->size, (size_t)COMPONENT_REQUIRED);
    }
    record *r = calloc(1, sizeof *r);
    if (!r || (own_plugin && !(r->plugin = dup_str(plugin)))) {
        free_record(r);
        return refuse(reg, file, EDDY_ERR_OUT_OF_MEMORY, err, "out of memory");
    }
    eddy_component *copy = &r->component;
    copy_grown(copy, sizeof *copy, c, c->size, _Alignof(eddy_component));

    /* Room for a prefix and a whole message from below; refuse() cuts it to an error's length. */
    char reason[2 * EDDY_ERROR_MESSAGE_MAX] = "", detail[EDDY_ERROR_MESSAGE_MAX];
    const known_interface *k = NULL;
    const eddy_registry_entry *dup;
    eddy_error perr;
    if (!valid_name(copy->id, 0)) {
        snprintf(reason, sizeof reason, "component id '%s' is not [a-z0-9_]+", copy->id ? copy->id : "(null)");
    } else if (!valid_name(copy->interface_id, 1)) {
        snprintf(reason, sizeof reason, "component '%s': interface id '%s' is not [a-z0-9_.]+", copy->id,
                 copy->interface_id ? copy->interface_id : "(null)");
    } else if ((dup = eddy_registry_find(reg, copy->id, NULL))) {
        /* Ids are unique across interfaces, so a scene's names are unambiguous. The entry is the first
         * member of its record. */
        const unsigned held_level = ((const record *)dup)->level;
        if (reg->level > 0 && held_level > 0 && held_level != reg->level) {
            /* An earlier folder of the search path provides it: that one stays, this one is skipped
             * and remembered, and the rest of this plugin loads (eddy/registry.h). */
            int failed = add_shadow(reg, dup, copy, file);
            free_record(r);
            return failed ? refuse(reg, file, EDDY_ERR_OUT_OF_MEMORY, err, "out of memory") : EDDY_OK;
        }
        /* `file` is this load's own copy of the path, so the same pointer is the same plugin (built-ins
         * all share BUILTIN_FILE, and are separate components of separate callers). */
        if (dup->file == file && strcmp(file, BUILTIN_FILE) != 0)
            snprintf(reason, sizeof reason,
                     "duplicate component id '%s' (the file lists it twice: components %u and %u)", copy->id,
                     ((const record *)dup)->index, index);
        else
            snprintf(reason, sizeof reason, "duplicate component id '%s' (already provided by %s)", copy->id,
                     dup->file);
    } else if (copy_param_table(copy->params, copy->param_count, "parameter", "param_count", &r->params, detail,
                                sizeof detail) ||
               copy_param_table(copy->material_params, copy->material_param_count, "material parameter",
                                "material_param_count", &r->material_params, detail, sizeof detail)) {
        snprintf(reason, sizeof reason, "component '%s': %s", copy->id, detail);
    } else if (eddy_param_table_check(r->params, copy->param_count, &perr)) {
        snprintf(reason, sizeof reason, "component '%s': %s", copy->id, perr.message);
    } else if (eddy_param_table_check(r->material_params, copy->material_param_count, &perr)) {
        snprintf(reason, sizeof reason, "component '%s': material parameters: %s", copy->id, perr.message);
    } else if (!copy->vtable) {
        snprintf(reason, sizeof reason, "%s '%s' has no vtable", eddy_interface_name(copy->interface_id),
                 copy->id);
    } else if ((k = known_interface_of(copy->interface_id))) {
        copy_known_vtable(k, copy->id, copy->vtable, &r->vtable, reason, sizeof reason);
    }
    /* An interface this host does not know is an open kind: registered as it is, for the hosts that
     * use it to check. */
    if (reason[0]) {
        free_record(r);
        return refuse(reg, file, EDDY_ERR_PLUGIN, err, "%s", reason);
    }
    copy->params = r->params;
    copy->material_params = r->material_params;
    if (r->vtable) copy->vtable = r->vtable;
    r->entry.component = copy;
    r->level = reg->level;
    r->index = index;
    r->entry.file = file;
    r->entry.plugin = own_plugin ? r->plugin : plugin;

    record **grown = realloc(reg->records, sizeof *grown * (reg->count + 1));
    if (!grown) {
        free_record(r);
        return refuse(reg, file, EDDY_ERR_OUT_OF_MEMORY, err, "out of memory");
    }
    reg->records = grown;
    reg->records[reg->count++] = r;
    return EDDY_OK;
}

int eddy_registry_add_builtin(eddy_registry *reg, const eddy_component *c, const char *plugin,
                              eddy_error *err)
{
    return register_component(reg, BUILTIN_FILE, plugin ? plugin : "eddy", 1, c, 0, err);
}

int eddy_registry_create(const eddy_host *host, eddy_registry **out, eddy_error *err)
{
    *out = NULL;
    eddy_registry *reg = calloc(1, sizeof *reg);
    if (!reg) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    reg->host = host ? host : eddy_host_silent();
    int rc = eddy_registry_add_builtin(reg, &cpu_grid_component, "eddy", err);
    if (rc) {
        eddy_registry_destroy(reg);
        return rc;
    }
    *out = reg;
    return EDDY_OK;
}

void eddy_registry_destroy(eddy_registry *reg)
{
    if (!reg) return;
    /* Last loaded, first unloaded; each deinit() before its dlclose. */
    for (size_t i = reg->plugin_count; i-- > 0;) {
        if (reg->plugins[i].deinit) reg->plugins[i].deinit();
        dlclose(reg->plugins[i].handle);
        free(reg->plugins[i].path);
    }
    drop_records(reg, 0);
    drop_shadows(reg, 0);
    free(reg->shadows);
    for (size_t i = 0; i < reg->refusal_count; ++i) {
        free((char *)reg->refusals[i].file);
        free((char *)reg->refusals[i].reason);
    }
    for (size_t i = 0; i < reg->dir_count; ++i) free(reg->dirs[i].path);
    free(reg->dirs);
    free(reg->plugins);
    free(reg->refusals);
    free(reg->records);
    free(reg->ids);
    free(reg);
}

/*
 * The checks of the descriptor, in order. Until the major is known to be this host's, only the first
 * three uint32 are read: they are the one part every ABI version shares (a 1.x descriptor continues
 * with its component count where 2.x has its size).
 */
/* The usual cause of a zero in the descriptor's first four members: an initializer written without the
 * macro that fills them. */
#define HEADER_HINT                                                                                            \
    "; begin the descriptor's initializer with EDDY_PLUGIN_DESCRIPTOR_HEADER (<eddy/plugin.h>), which fills "  \
    "abi_major, abi_minor, real_size and size"

static int check_descriptor(eddy_registry *reg, const char *path, const eddy_plugin_descriptor *d,
                            eddy_error *err)
{
    if (!d) return refuse(reg, path, EDDY_ERR_PLUGIN, err, "%s() returned NULL", EDDY_PLUGIN_ENTRY_SYMBOL);
    if (d->abi_major == 0)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "the descriptor has no ABI version (plugin %u.%u, host %d.%d)"
                      HEADER_HINT, d->abi_major, d->abi_minor, EDDY_ABI_MAJOR, EDDY_ABI_MINOR);
    if (d->abi_major >= 1 && d->abi_major < EDDY_ABI_MAJOR)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err,
                      "built for plugin ABI %u.%u; this host loads ABI %d.x plugins: rebuild the plugin "
                      "against the eddy %d headers",
                      d->abi_major, d->abi_minor, EDDY_ABI_MAJOR, EDDY_ABI_MAJOR);
    if (d->abi_major != EDDY_ABI_MAJOR)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err,
                      "ABI major version mismatch: plugin %u.%u, host %d.%d (built for a newer eddy: run it with an "
                      "eddy of plugin ABI %u, or rebuild it against this eddy's headers)",
                      d->abi_major, d->abi_minor, EDDY_ABI_MAJOR, EDDY_ABI_MINOR, d->abi_major);
    if (d->abi_minor > EDDY_ABI_MINOR)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "plugin needs a newer host: plugin ABI %u.%u, host %d.%d",
                      d->abi_major, d->abi_minor, EDDY_ABI_MAJOR, EDDY_ABI_MINOR);
    if (d->real_size != sizeof(eddy_real))
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "real-number size mismatch: plugin %u bytes, host %zu bytes%s",
                      d->real_size, sizeof(eddy_real), d->real_size == 0 ? HEADER_HINT : "");
    if (d->size < DESCRIPTOR_REQUIRED)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "plugin descriptor size %u is below the %zu required bytes%s",
                      d->size, (size_t)DESCRIPTOR_REQUIRED, d->size == 0 ? HEADER_HINT : "");
    if (d->component_count == 0 || !d->components)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "plugin provides no components");
    return EDDY_OK;
}

/*
 * A plugin built with a sanitizer (-fsanitize=address / undefined) and linked without its runtime, as
 * shared objects are by default (clang; gcc when the flag is given to the compiler only), needs the
 * runtime in the executable: dlopen then fails on the runtime's first symbol. Says how to provide it.
 */
#define ASAN_HINT                                                                                              \
    "; the plugin was built with AddressSanitizer but this eddy is not: run eddy with "                        \
    "LD_PRELOAD=$(gcc -print-file-name=libasan.so) (or clang's libclang_rt.asan), or build eddy "              \
    "with -DEDDY_SANITIZE=ON"

static const char *sanitizer_hint(const char *dlerror_text)
{
    if (!dlerror_text) return "";
    if (strstr(dlerror_text, "undefined symbol: __asan")) return ASAN_HINT;
    if (strstr(dlerror_text, "undefined symbol: __ubsan"))
        return "; the plugin was built with UndefinedBehaviorSanitizer but this eddy is not: run eddy with "
               "LD_PRELOAD=$(gcc -print-file-name=libubsan.so) (or clang's libclang_rt.ubsan_standalone), or "
               "build eddy with -DEDDY_SANITIZE=ON";
    return "";
}

/* Files that dlopen would not refuse but crash or abort on (plugin_file.c) are refused unopened: one
 * cut short, one linked with a sanitizer runtime this process lacks. */
static int refuse_before_dlopen(eddy_registry *reg, const char *path, eddy_error *err)
{
    eddy_plugin_file_facts f;
    if (eddy_plugin_file_read(path, &f)) return EDDY_OK;
    /* (dlopen's own words were "invalid ELF header" or "file too short", after the path again) */
    if (f.not_elf)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err,
                      "cannot load: not a shared object (%s); a plugin is the .so its build makes, e.g. with "
                      "eddy_add_plugin", f.file_size ? "the file does not begin with an ELF header" : "the file is empty");
    if (f.load_end > f.file_size)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err,
                      "cannot load: the file is cut short (its segments need %llu bytes, it has %llu); an "
                      "interrupted copy or build? Build or install it again",
                      (unsigned long long)f.load_end, (unsigned long long)f.file_size);
    if (!f.sanitizer) return EDDY_OK;
    if (strcmp(f.sanitizer, "AddressSanitizer") == 0)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err,
                      "cannot load: it needs %s, which must be in the process from its start%s", f.needed, ASAN_HINT);
    return refuse(reg, path, EDDY_ERR_PLUGIN, err,
                  "cannot load: it needs %s, which must be in the process from its start; the plugin was built "
                  "with %s but this eddy is not: run eddy with that runtime in LD_PRELOAD",
                  f.needed, f.sanitizer);
}

/* An exported name that may be the entry under another spelling ("eddy_plugin_entrypoint", a C++
 * name "_Z17eddy_plugin_entryv"): a plugin exports little else, and libeddy's functions it calls are
 * imports, not exports. */
static int entry_lookalike(const char *name)
{
    return strncmp(name, "eddy_", 5) == 0 || strstr(name, "plugin_entry") != NULL;
}

#define LOOKALIKES_NAMED 3

/* No entry symbol: when the file exports names like it, they are named (a misspelling, a C++ name) where
 * the advice to export the entry would send the author after a visibility that is already right. */
static int refuse_missing_entry(eddy_registry *reg, const char *path, eddy_error *err)
{
    char names[LOOKALIKES_NAMED][EDDY_PLUGIN_FILE_NAME_MAX];
    const size_t n = eddy_plugin_file_exports(path, entry_lookalike, names, LOOKALIKES_NAMED);
    if (n == 0)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err,
                      "missing entry symbol '%s': it must be exported (define it with EDDY_EXPORT, which gives it "
                      "default visibility and C linkage)",
                      EDDY_PLUGIN_ENTRY_SYMBOL);
    char list[LOOKALIKES_NAMED * (EDDY_PLUGIN_FILE_NAME_MAX + 4) + 32] = "";
    size_t len = 0;
    int cxx = 0;
    for (size_t i = 0; i < n && i < LOOKALIKES_NAMED; ++i) {
        len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s'", i ? ", " : "", names[i]);
        cxx |= strncmp(names[i], "_Z", 2) == 0;
    }
    if (n > LOOKALIKES_NAMED) snprintf(list + len, sizeof list - len, " and %zu more", n - LOOKALIKES_NAMED);
    if (n == 1 && cxx)
        return refuse(reg, path, EDDY_ERR_PLUGIN, err,
                      "missing entry symbol '%s'; the file exports %s, a C++ name: define the entry with "
                      "EDDY_EXPORT, which gives it C linkage",
                      EDDY_PLUGIN_ENTRY_SYMBOL, list);
    return refuse(reg, path, EDDY_ERR_PLUGIN, err,
                  "missing entry symbol '%s'; the file exports %s: %s%s", EDDY_PLUGIN_ENTRY_SYMBOL, list,
                  n == 1 ? "is the name misspelled?" : "is one of them the entry, misspelled?",
                  cxx ? " (a name that begins with _Z is C++'s: define the entry with EDDY_EXPORT, which gives it C "
                        "linkage)"
                      : "");
}

int eddy_registry_load_file(eddy_registry *reg, const char *path, eddy_error *err)
{
    /* dlopen("") hands back the program itself, which then read as a plugin without an entry symbol. */
    if (!path || !*path) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "the plugin file's path is empty");
    for (size_t i = 0; i < reg->plugin_count; ++i)
        if (strcmp(reg->plugins[i].path, path) == 0) return EDDY_OK;
    int unsafe = refuse_before_dlopen(reg, path, err);
    if (unsafe) return unsafe;
    /* A name without a '/' is a file here, as it is to every other file function: dlopen would look for
     * it in the library search path instead (not finding the plugin beside the user, or loading a system
     * library of that name). */
    char *here = NULL;
    if (!strchr(path, '/')) {
        if (!(here = malloc(strlen(path) + 3))) return refuse(reg, path, EDDY_ERR_OUT_OF_MEMORY, err, "out of memory");
        sprintf(here, "./%s", path);
    }
    void *h = dlopen(here ? here : path, RTLD_NOW | RTLD_LOCAL);
    free(here);
    if (!h) {
        const char *why = dlerror();
        return refuse(reg, path, EDDY_ERR_PLUGIN, err, "cannot load: %s%s", why ? why : "(no reason given)",
                      sanitizer_hint(why));
    }
    /* The same file under another name (a "..", a symbolic or hard link): dlopen hands back the handle
     * it has, and the plugin is loaded already. Registering it again refused it as a duplicate of
     * itself. (dlclose only drops the count this dlopen added.) */
    for (size_t i = 0; i < reg->plugin_count; ++i)
        if (reg->plugins[i].handle == h) {
            dlclose(h);
            return EDDY_OK;
        }
    /* dlsym returns void *; going through a union avoids the ISO C object-to-function cast warning. */
    union { void *obj; eddy_plugin_entry_fn fn; } entry;
    entry.obj = dlsym(h, EDDY_PLUGIN_ENTRY_SYMBOL);
    if (!entry.obj) {
        dlclose(h);
        return refuse_missing_entry(reg, path, err);
    }
    const eddy_plugin_descriptor *d = entry.fn();
    int rc = check_descriptor(reg, path, d, err);
    if (rc) {
        dlclose(h);
        return rc;
    }
    if (d->init) {
        eddy_error ierr;
        eddy_error_clear(&ierr);
        int irc = d->init(reg->host, &ierr);
        if (irc) {
            /* init() failed: the plugin is not initialized, so deinit() is not called. */
            rc = refuse(reg, path, EDDY_ERR_PLUGIN, err, "init failed: %s",
                        ierr.message[0] ? ierr.message : eddy_strerror(irc));
            dlclose(h);
            return rc;
        }
    }

    /* Every component is checked and registered; a refusal of any drops those already registered, so
     * a plugin is taken whole or not at all (and duplicates inside one plugin are caught too). */
    size_t before = reg->count, shadows_before = reg->shadow_count;
    char *path_copy = dup_str(path);
    loaded_plugin *grown = realloc(reg->plugins, sizeof *grown * (reg->plugin_count + 1));
    if (grown) reg->plugins = grown;
    if (!path_copy || !grown)
        rc = refuse(reg, path, EDDY_ERR_OUT_OF_MEMORY, err, "out of memory");
    const char *name = d->name && *d->name ? d->name : path_copy;
    for (uint32_t i = 0; i < d->component_count && rc == EDDY_OK; ++i)
        rc = register_component(reg, path_copy, name, 0, d->components[i], i, err);
    if (rc) {
        drop_records(reg, before);
        drop_shadows(reg, shadows_before);
        free(path_copy);
        if (d->deinit) d->deinit();
        dlclose(h);
        return rc;
    }
    reg->plugins[reg->plugin_count++] = (loaded_plugin){path_copy, h, d->deinit};
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
    struct stat st;
    if (!realpath(dir, real) || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) return;
    for (size_t i = 0; i < reg->dir_count; ++i)
        if (strcmp(reg->dirs[i].path, real) == 0 || (reg->dirs[i].dev == st.st_dev && reg->dirs[i].ino == st.st_ino))
            return;
    scanned_dir *dirs = realloc(reg->dirs, sizeof *dirs * (reg->dir_count + 1));
    if (!dirs) return;
    reg->dirs = dirs;
    if (!(dirs[reg->dir_count].path = dup_str(real))) return;
    dirs[reg->dir_count].dev = st.st_dev;
    dirs[reg->dir_count].ino = st.st_ino;
    reg->dir_count++;
    /* One level per folder: an id seen in an earlier folder shadows, one seen in this folder conflicts. */
    const unsigned outer = reg->level;
    reg->level = ++reg->scans;
    struct dirent **list = NULL;
    int n = scandir(real, &list, plugin_name_filter, alphasort);
    for (int i = 0; i < n; ++i) {
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", real, list[i]->d_name) < (int)sizeof path)
            eddy_registry_load_file(reg, path, NULL);
        free(list[i]);
    }
    free(list);
    reg->level = outer;
}

static int shared_object_filter(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 3 && strcmp(e->d_name + n - 3, ".so") == 0 && !plugin_name_filter(e);
}

/* An entry that is no folder at all, recorded with the refusals and logged as a warning in the words
 * `eddy list` gives it ("ENTRY: REASON"). The refusal alone was seen by `eddy list` only: a run whose
 * solver is built in went on without a word, and without the plugins the user meant to add. Said by
 * every process under mpirun (the host's log says a warning on each, with its rank): each reads its own
 * environment, and a node may lack a folder the others have. */
static void refuse_path_entry(eddy_registry *reg, const char *entry, int code, const char *fmt, ...)
    EDDY_PRINTF(4, 5);

static void refuse_path_entry(eddy_registry *reg, const char *entry, int code, const char *fmt, ...)
{
    /* (an entry given twice is one mistake) */
    for (size_t i = 0; i < reg->refusal_count; ++i)
        if (strcmp(reg->refusals[i].file, entry) == 0) return;
    char reason[EDDY_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    refuse(reg, entry, code, NULL, "%s", reason);
    eddy_host_log(reg->host, EDDY_LOG_WARNING, NULL,
                  "warning: %s: %s; no plugin is searched there (`eddy list` shows the plugins found and those "
                  "refused)", entry, reason);
}

/* An EDDY_PLUGIN_PATH entry the user wrote that can give no plugin, recorded with the refusals: the
 * standard folders may be absent, but a mistyped entry used to leave only "unknown solver" behind. */
static void check_path_entry(eddy_registry *reg, const char *entry)
{
    struct stat st;
    if (stat(entry, &st) != 0) {
        refuse_path_entry(reg, entry, EDDY_ERR_NOT_FOUND, "EDDY_PLUGIN_PATH names a folder that cannot be read: %s",
                          strerror(errno));
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        const char *slash = strrchr(entry, '/');
        const char *base = slash ? slash + 1 : entry;
        int dir_len = slash ? (slash == entry ? 1 : (int)(slash - entry)) : 1;
        refuse_path_entry(reg, entry, EDDY_ERR_INVALID_ARGUMENT,
                          "EDDY_PLUGIN_PATH lists folders, and this is a file: give its folder '%.*s'%s", dir_len,
                          slash ? entry : ".",
                          strncmp(base, "eddy_", 5) == 0 ? "" : " (and name the file eddy_<name>.so)");
        return;
    }
    /* A folder of shared objects none of which has a plugin's file name: say why none was tried. */
    struct dirent **list = NULL;
    int plugins = scandir(entry, &list, plugin_name_filter, alphasort);
    for (int i = 0; i < plugins; ++i) free(list[i]);
    free(list);
    if (plugins != 0) return;
    list = NULL;
    int others = scandir(entry, &list, shared_object_filter, alphasort);
    for (int i = 0; i < others; ++i) {
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", entry, list[i]->d_name) < (int)sizeof path)
            refuse(reg, path, EDDY_ERR_INVALID_ARGUMENT, NULL,
                   "not tried: plugin files are named eddy_<name>.so (rename it eddy_%s)", list[i]->d_name);
        free(list[i]);
    }
    free(list);
}

/* Scans `base`'s folder joined with `sub` (base is a file's path: an executable, a library); 1 when that
 * folder exists. */
static int scan_beside(eddy_registry *reg, const char *base, const char *sub)
{
    const char *slash = strrchr(base, '/');
    if (!slash) return 0;
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%.*s/%s", (int)(slash - base), base, sub) >= (int)sizeof dir) return 0;
    eddy_registry_scan_dir(reg, dir);
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

void eddy_registry_discover(eddy_registry *reg)
{
    const char *env = getenv("EDDY_PLUGIN_PATH");
    if (env && *env) {
        char *copy = dup_str(env);
        for (char *save = NULL, *tok = copy ? strtok_r(copy, ":", &save) : NULL; tok;
             tok = strtok_r(NULL, ":", &save)) {
            check_path_entry(reg, tok);
            eddy_registry_scan_dir(reg, tok);
        }
        free(copy);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        scan_beside(reg, exe, "../" EDDY_PLUGIN_SUBDIR);
    }
    /* Beside libeddy's own file: a program other than `eddy` (a coupling code in its own folder, an
     * interpreter) linked against a moved installation finds the plugins of that installation, where
     * the folder next to its executable is not eddy's and the configured prefix is not where the files
     * are. The build tree has the install tree's layout, so the one relative path serves both. For
     * `eddy` itself this is the folder above, scanned once. */
    Dl_info self;
    int own = 0;
    if (dladdr((const void *)&eddy_registry_discover, &self) && self.dli_fname && self.dli_fname[0] == '/')
        own = scan_beside(reg, self.dli_fname, EDDY_PLUGIN_DIR_FROM_LIB);
    /* The prefix eddy was configured with, only where libeddy has no plugin folder of its own: a copy
     * of an installation (or a build tree beside an installed eddy) loaded the original's plugins
     * too, each said to shadow the copy's, and of another version perhaps. */
    if (own) return;
    /* Tests only (tests/sdk/relocated_discover.sh): a configured folder that exists, without installing
     * into the prefix the test build was configured with. */
    const char *configured = getenv("EDDY_TEST_INSTALL_PLUGIN_DIR");
    eddy_registry_scan_dir(reg, configured && *configured ? configured : EDDY_INSTALL_PLUGIN_DIR);
}

size_t eddy_registry_folder_count(const eddy_registry *reg) { return reg->dir_count; }

const char *eddy_registry_folder_at(const eddy_registry *reg, size_t i)
{
    return i < reg->dir_count ? reg->dirs[i].path : NULL;
}

size_t eddy_registry_count(const eddy_registry *reg) { return reg->count; }

const eddy_registry_entry *eddy_registry_at(const eddy_registry *reg, size_t i)
{
    return i < reg->count ? &reg->records[i]->entry : NULL;
}

size_t eddy_registry_refusal_count(const eddy_registry *reg) { return reg->refusal_count; }

const eddy_registry_refusal *eddy_registry_refusal_at(const eddy_registry *reg, size_t i)
{
    return i < reg->refusal_count ? &reg->refusals[i] : NULL;
}

static int implements(const eddy_component *c, const char *interface_id)
{
    return !interface_id || strcmp(c->interface_id, interface_id) == 0;
}

const eddy_registry_entry *eddy_registry_find(const eddy_registry *reg, const char *id,
                                              const char *interface_id)
{
    if (!id) return NULL;
    for (size_t i = 0; i < reg->count; ++i) {
        const eddy_component *c = reg->records[i]->entry.component;
        if (strcmp(c->id, id) == 0 && implements(c, interface_id)) return &reg->records[i]->entry;
    }
    return NULL;
}

static int compare_ids(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *eddy_registry_ids(eddy_registry *reg, const char *interface_id)
{
    /* Sorted: in registration order the list followed the folders and the file names (a CUDA build put
     * sph_mueller_cuda first), and the reader looks a name up. */
    const char **ids = malloc(sizeof *ids * (reg->count ? reg->count : 1));
    if (!ids) return "";
    size_t len = 1, n = 0;
    for (size_t i = 0; i < reg->count; ++i) {
        const eddy_component *c = &reg->records[i]->component;
        if (!implements(c, interface_id)) continue;
        ids[n++] = c->id;
        len += strlen(c->id) + 2;
    }
    qsort(ids, n, sizeof *ids, compare_ids);
    char *buf = realloc(reg->ids, len);
    if (!buf) {
        free(ids);
        return "";
    }
    reg->ids = buf;
    buf[0] = '\0';
    for (size_t i = 0; i < n; ++i) {
        if (i) strcat(buf, ", ");
        strcat(buf, ids[i]);
    }
    free(ids);
    return buf;
}

size_t eddy_registry_shadow_count(const eddy_registry *reg) { return reg->shadow_count; }

const eddy_registry_shadow *eddy_registry_shadow_at(const eddy_registry *reg, size_t i)
{
    return i < reg->shadow_count ? &reg->shadows[i] : NULL;
}
