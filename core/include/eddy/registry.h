/*
 * eddy/registry.h — plugin discovery, loading and the component registry (for hosts).
 *
 * The registry loads plugin shared objects with dlopen, checks each against the ABI rules of plugin.h,
 * and collects their components. A refused plugin is recorded with the reason and never stops the
 * others from loading. The CPU grid backend ("cpu") is always registered as a built-in component.
 *
 * Discovery order (eddy_registry_discover): every folder in EDDY_PLUGIN_PATH (colon-separated), the
 * plugin folder next to the running executable (<exe>/../lib/eddy/plugins, which is both the build
 * tree and the install layout), the plugin folder next to libeddy's own file (<folder of
 * libeddy.so>/eddy/plugins: <prefix>/lib/eddy/plugins of the installation the program is linked
 * against, wherever it was moved, so any program linking libeddy finds its plugins), then the install
 * folder compiled into libeddy, only when libeddy's own folder has no eddy/plugins (a copy of an
 * installation, or a build tree, then never loads the configured installation's plugins besides its
 * own). A folder seen twice (the same real path, or the same device and inode:
 * for `eddy` the executable's and libeddy's folder are one) is scanned once, at its first place; in
 * each, every file named eddy_*.so is tried, in name order. An EDDY_PLUGIN_PATH entry
 * that can give no plugin (no such folder, a file, a folder whose .so files none is named eddy_*.so) is
 * recorded with the refusals, the entry (or the misnamed file) as the file; an entry that is no folder
 * (missing or a file) is also logged once as a warning through the host, in the same words.
 *
 * Component ids are unique. The first folder in discovery order that provides an id wins: a component
 * of a later folder with the same id is *shadowed* — not registered, while the rest of its plugin is —
 * and recorded (eddy_registry_shadow_at), so that hosts can list it and announce, on every command that
 * uses the id, which file is used and which is shadowed. This lets a plugin author test a fixed build of
 * an installed component without uninstalling it, and never replaces one silently. Within one folder,
 * among files given to eddy_registry_load_file, and against a built-in, a second component with a
 * registered id is a conflict: its plugin is refused, and the reason names both files.
 *
 * Kinds of component: any interface id is accepted (open kinds); the interfaces this host knows
 * (plugin.h: solver, grid, writer, probe) are also checked for their vtable's size and required
 * callbacks, so a component the host will call is refused at load time rather than crashing later.
 *
 * Threads: [main thread] for every function but eddy_interface_name.
 */
#ifndef EDDY_REGISTRY_H
#define EDDY_REGISTRY_H

#include "defs.h"
#include "error.h"
#include "plugin.h"

EDDY_BEGIN_DECLS

typedef struct eddy_registry eddy_registry;

/*
 * One registered component and where it came from. Owned by the registry: an entry, its component and
 * the strings they point to stay valid, at the same addresses, until eddy_registry_destroy (a plugin's
 * strings point into the plugin, which stays loaded until then).
 *
 * The growth rule is applied here, once: `component` is the registry's copy of the plugin's component
 * in this host's layout, with every member the plugin's size does not cover set to zero (NULL), its
 * parameter tables re-laid at this host's stride, and `component->vtable` pointing to a copy of the
 * vtable of a known interface padded the same way. Hosts therefore read every member directly.
 */
typedef struct eddy_registry_entry {
    const eddy_component *component;
    const char *file;     /* the shared object's path, or "(built-in)" */
    const char *plugin;   /* the plugin's name */
} eddy_registry_entry;

/* One refused plugin file and why. Owned by the registry; the strings stay valid until
 * eddy_registry_destroy. */
typedef struct eddy_registry_refusal {
    const char *file;
    const char *reason;
} eddy_registry_refusal;

/* A component not registered because an earlier plugin folder provides its id. Owned by the
 * registry; the strings stay valid until eddy_registry_destroy. */
typedef struct eddy_registry_shadow {
    const char *id;           /* the component id both files provide */
    const char *interface_id; /* the shadowed component's interface */
    const char *file;         /* the file of the registered (shadowing) component: an earlier folder */
    const char *shadowed;     /* the file whose component of that id was not registered */
} eddy_registry_shadow;

/* Creates a registry whose plugins' init() receive `host` (NULL: eddy_host_silent()); the host must
 * outlive the registry. The CPU grid ("cpu") is registered as a built-in. *out is NULL on failure;
 * the caller owns the registry. */
EDDY_API int eddy_registry_create(const eddy_host *host, eddy_registry **out, eddy_error *err);

/* Calls every loaded plugin's deinit(), unloads it (dlclose; the last loaded first) and frees the
 * registry. Every entry, refusal, shadow and string obtained from it becomes invalid, and so does
 * every vtable and parameter table of a plugin's component: destroy the instances first. NULL-safe. */
EDDY_API void eddy_registry_destroy(eddy_registry *reg);

/* Tries one shared object. Returns 0 when loaded (or when the same file was loaded before, under this
 * or another path: a "..", a symbolic or hard link; a component shadowed by an earlier folder does not
 * refuse its plugin), or the refusal code
 * (EDDY_ERR_PLUGIN, EDDY_ERR_OUT_OF_MEMORY); a refusal is also recorded (see eddy_registry_refusal_at),
 * so callers may ignore the result. `path` is copied; a path without a '/' names a file in the current
 * folder (never a library search), and an empty or NULL one is EDDY_ERR_INVALID_ARGUMENT (not
 * recorded as a refusal). The plugin's init() runs here; a refused plugin is unloaded, whole (its
 * deinit() runs first when its init() had succeeded). */
EDDY_API int eddy_registry_load_file(eddy_registry *reg, const char *path, eddy_error *err);

/* Registers a component the host itself provides (its built-in writers and probes), checked like a
 * plugin's; `plugin` names its provider in the entry (copied; NULL: "eddy"). The registry copies the
 * struct, its parameter tables and a known interface's vtable, but keeps pointers to its strings and
 * to an unknown interface's vtable: keep `c` and what it points to alive until eddy_registry_destroy.
 * A refusal returns EDDY_ERR_PLUGIN (EDDY_ERR_OUT_OF_MEMORY) and is recorded with the file
 * "(built-in)". */
EDDY_API int eddy_registry_add_builtin(eddy_registry *reg, const eddy_component *c, const char *plugin,
                                       eddy_error *err);

/* Tries every eddy_*.so in a folder, in name order (refusals recorded, not returned). A missing
 * folder is not an error; a folder already scanned (same real path) is skipped. */
EDDY_API void eddy_registry_scan_dir(eddy_registry *reg, const char *dir);

/* Scans the standard places (see above). */
EDDY_API void eddy_registry_discover(eddy_registry *reg);

/* The folders scanned so far (eddy_registry_scan_dir, _discover), as real paths, in the order scanned:
 * each once, and only those that exist. For a host to say where it looked for a component it did not
 * find. eddy_registry_folder_at returns NULL past the count; the string stays valid until
 * eddy_registry_destroy. */
EDDY_API size_t eddy_registry_folder_count(const eddy_registry *reg);
EDDY_API const char *eddy_registry_folder_at(const eddy_registry *reg, size_t i);

/* The registered components (the built-ins included), in the order they were registered;
 * eddy_registry_at returns NULL past the count. An entry stays valid until eddy_registry_destroy. */
EDDY_API size_t eddy_registry_count(const eddy_registry *reg);
EDDY_API const eddy_registry_entry *eddy_registry_at(const eddy_registry *reg, size_t i);
/* The refused plugin files, in the order they were refused; eddy_registry_refusal_at returns NULL past
 * the count. The struct it points to may move at the next call that loads or registers
 * (eddy_registry_load_file, _add_builtin, _scan_dir, _discover): copy what you keep, or take it again
 * by index; its strings stay valid until eddy_registry_destroy. */
EDDY_API size_t eddy_registry_refusal_count(const eddy_registry *reg);
EDDY_API const eddy_registry_refusal *eddy_registry_refusal_at(const eddy_registry *reg, size_t i);
/* The shadowed components, in the order they were met; eddy_registry_shadow_at returns NULL past the
 * count. As for refusals, the struct may move at the next call that loads or registers; its strings
 * stay valid until eddy_registry_destroy. */
EDDY_API size_t eddy_registry_shadow_count(const eddy_registry *reg);
EDDY_API const eddy_registry_shadow *eddy_registry_shadow_at(const eddy_registry *reg, size_t i);

/* The component with this id implementing `interface_id` (EDDY_INTERFACE_SOLVER, ...; NULL: any), or
 * NULL (also for a NULL id). The entry stays valid until eddy_registry_destroy. */
EDDY_API const eddy_registry_entry *eddy_registry_find(const eddy_registry *reg, const char *id,
                                                       const char *interface_id);

/* The ids of the components implementing `interface_id` (NULL: all) as "a, b, c" for error messages,
 * sorted (strcmp); owned by the registry until the next call ("" when memory runs out). */
EDDY_API const char *eddy_registry_ids(eddy_registry *reg, const char *interface_id);

/* Short name of an interface for messages: "solver", "grid", "writer", "probe", or the id itself
 * ("(null)" for NULL). Pure: [any thread]. */
EDDY_API const char *eddy_interface_name(const char *interface_id);

EDDY_END_DECLS

#endif /* EDDY_REGISTRY_H */
