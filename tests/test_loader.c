/*
 * Loader tests against real plugins built by the suite: every broken one is refused with the message
 * that names its fault and both versions where versions differ, and the good ones (including
 * sph_mueller from the build tree) still load.
 *
 *   tests/plugins  (test_plugins/)      one solver source, each BROKEN_* variant breaking one rule
 *   tests/abi      (test_plugins_abi/)  plugins built against other ABI versions (an older and a newer
 *                                       2.x minor, a newer major, the real 1.0 headers), an open kind,
 *                                       init()/deinit() counted through $EDDY_TEST_INIT_LOG
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <eddy/eddy.h>


static char plugin_dir[4096];     /* tests/plugins */
static char bin_dir[4096];        /* the build folder */
static char abi_dir[4096];        /* tests/abi */
static char abi_dir_real[4096];   /* the same as the registry reports it (a real path) */

/* A host of the test's own, to see that init() receives the registry's host. */
static const eddy_host test_host = {sizeof(eddy_host), "loader_test", "0.0.0", NULL, NULL, NULL, NULL};

static const char *reason_for(const eddy_registry *reg, const char *file_suffix)
{
    for (size_t i = 0; i < eddy_registry_refusal_count(reg); ++i) {
        const eddy_registry_refusal *r = eddy_registry_refusal_at(reg, i);
        size_t n = strlen(r->file), m = strlen(file_suffix);
        if (n >= m && strcmp(r->file + n - m, file_suffix) == 0) return r->reason;
    }
    return NULL;
}

static eddy_registry *create(void)
{
    eddy_registry *reg = NULL;
    eddy_error err;
    assert_int_equal(eddy_registry_create(&test_host, &reg, &err), 0);
    assert_non_null(reg);
    return reg;
}

static eddy_registry *scan(const char *dir)
{
    eddy_registry *reg = create();
    eddy_registry_scan_dir(reg, dir);
    return reg;
}

static void expect_reason(const eddy_registry *reg, const char *file, const char *expected)
{
    const char *reason = reason_for(reg, file);
    if (!reason) fail_msg("%s was not refused", file);
    if (strcmp(reason, expected) != 0) fail_msg("%s: expected reason\n  '%s'\ngot\n  '%s'", file, expected, reason);
}

/* Loads one file of the ABI fixtures: 0 or the refusal code; err filled on refusal. */
static int load_abi(eddy_registry *reg, const char *name, eddy_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", abi_dir, name);
    eddy_error_clear(err);
    return eddy_registry_load_file(reg, path, err);
}

/* --- tests/plugins: one rule broken at a time ---------------------------------------------------- */

static void refuses_wrong_major(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    expect_reason(reg, "/eddy_bad_major.so", "ABI major version mismatch: plugin 3.0, host 2.3"
                                            " (built for a newer eddy: run it with an eddy of plugin ABI 3, or rebuild it against this eddy's headers)");
    eddy_registry_destroy(reg);
}

static void refuses_newer_minor(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    expect_reason(reg, "/eddy_bad_minor.so", "plugin needs a newer host: plugin ABI 2.4, host 2.3");
    eddy_registry_destroy(reg);
}

/* (d) */
static void refuses_other_real_size(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    expect_reason(reg, "/eddy_bad_real_size.so", "real-number size mismatch: plugin 8 bytes, host 4 bytes");
    eddy_registry_destroy(reg);
}

/* A descriptor initializer without EDDY_PLUGIN_DESCRIPTOR_HEADER: the message names the macro. */
static void refuses_descriptor_without_header(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    expect_reason(reg, "/eddy_no_header.so",
                  "the descriptor has no ABI version (plugin 0.0, host 2.3); begin the descriptor's initializer with "
                  "EDDY_PLUGIN_DESCRIPTOR_HEADER (<eddy/plugin.h>), which fills abi_major, abi_minor, real_size "
                  "and size");
    expect_reason(reg, "/eddy_half_header.so",
                  "real-number size mismatch: plugin 0 bytes, host 4 bytes; begin the descriptor's initializer "
                  "with EDDY_PLUGIN_DESCRIPTOR_HEADER (<eddy/plugin.h>), which fills abi_major, abi_minor, "
                  "real_size and size");
    eddy_registry_destroy(reg);
}

static void refuses_missing_entry(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    /* An entry under another name is named (the advice to export it sent the author after a visibility
     * that was right); one that is not exported at all gets that advice. */
    expect_reason(reg, "/eddy_no_entry.so",
                  "missing entry symbol 'eddy_plugin_entry'; the file exports 'eddy_plugin_entry_v0': is the name "
                  "misspelled?");
    expect_reason(reg, "/eddy_hidden_entry.so",
                  "missing entry symbol 'eddy_plugin_entry': it must be exported (define it with EDDY_EXPORT, "
                  "which gives it default visibility and C linkage)");
    eddy_registry_destroy(reg);
}

static void refuses_missing_callback(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    expect_reason(reg, "/eddy_missing_step.so", "solver 'missing_step_solver': missing required callback 'step'");
    assert_null(eddy_registry_find(reg, "missing_step_solver", NULL));
    eddy_registry_destroy(reg);
}

static void refuses_short_vtable(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    /* size + create = 16 bytes; create, step and destroy need 32 (LP64). */
    char want[256];
    snprintf(want, sizeof want, "solver 'short_solver': vtable size %zu is below the %zu required bytes",
             2 * sizeof(void *), 4 * sizeof(void *));
    expect_reason(reg, "/eddy_short_vtable.so", want);
    eddy_registry_destroy(reg);
}

static void refuses_bad_parameter_table(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    expect_reason(reg, "/eddy_bad_param.so",
                  "component 'bad_param_solver': parameter 'gain': default 5 is not inside [0, 1]");
    /* A range written wrong is named as such: it was "default 0.5 is not inside [1, 0]" / "[nan, 1]". */
    expect_reason(reg, "/eddy_empty_range.so",
                  "component 'empty_range_solver': parameter 'gain': the range [1, 0] is empty (min > max; are they "
                  "swapped?)");
    expect_reason(reg, "/eddy_nan_bound.so",
                  "component 'nan_bound_solver': parameter 'gain': min is NaN (range [nan, 1]); give each bound a "
                  "number (-INFINITY or INFINITY for none)");
    eddy_registry_destroy(reg);
}

static void refuses_duplicate_id(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    /* The registry reports real paths; the build folder may itself be reached through a link. */
    char real[4096], want[4300];
    assert_non_null(realpath(plugin_dir, real));
    snprintf(want, sizeof want, "duplicate component id 'test_solver' (already provided by %s/eddy_a_good.so)",
             real);
    expect_reason(reg, "/eddy_zz_duplicate.so", want);
    /* One file that lists an id twice: it read "already provided by" the file itself. */
    expect_reason(reg, "/eddy_twice.so", "duplicate component id 'twice_solver' (the file lists it twice: "
                                         "components 0 and 1)");
    assert_null(eddy_registry_find(reg, "twice_solver", NULL));
    /* Within one folder a second id is a conflict, never a shadow. */
    assert_int_equal(eddy_registry_shadow_count(reg), 0);
    eddy_registry_destroy(reg);
}

/* Real path of BUILD/<rel> into out (the registry reports real paths). */
static void real_in_build(const char *rel, char *out)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", bin_dir, rel);
    if (!realpath(path, out)) fail_msg("%s: no such file (build the eddy_cli target)", path);
}

/* eddy/registry.h: an earlier folder's component wins, the later one is recorded, not refused. */
static void earlier_folder_shadows_later(void **state)
{
    (void)state;
    char shadow_dir[4096], real_dir[4096], shadow_file[4096], real_file[4096];
    real_in_build("robust_plugins/shadow", shadow_dir);
    real_in_build("lib/eddy/plugins", real_dir);
    real_in_build("robust_plugins/shadow/eddy_shadow_sph_mueller.so", shadow_file);
    real_in_build("lib/eddy/plugins/eddy_sph_mueller.so", real_file);

    eddy_registry *reg = create();
    eddy_registry_scan_dir(reg, shadow_dir);
    eddy_registry_scan_dir(reg, real_dir);
    const eddy_registry_entry *e = eddy_registry_find(reg, "sph_mueller", EDDY_INTERFACE_SOLVER);
    assert_non_null(e);
    assert_string_equal(e->file, shadow_file);
    assert_string_equal(e->component->version, "0.0.1");
    assert_null(reason_for(reg, "/eddy_sph_mueller.so"));
    assert_int_equal(eddy_registry_shadow_count(reg), 1);
    const eddy_registry_shadow *sh = eddy_registry_shadow_at(reg, 0);
    assert_string_equal(sh->id, "sph_mueller");
    assert_string_equal(sh->interface_id, EDDY_INTERFACE_SOLVER);
    assert_string_equal(sh->file, shadow_file);
    assert_string_equal(sh->shadowed, real_file);
    assert_null(eddy_registry_shadow_at(reg, 1));
    /* The other plugins of the later folder load as before. */
    assert_non_null(eddy_registry_find(reg, "pbf", EDDY_INTERFACE_SOLVER));
    eddy_registry_destroy(reg);

    /* The other order: the installed one wins and the fixture is the shadowed one. */
    reg = create();
    eddy_registry_scan_dir(reg, real_dir);
    eddy_registry_scan_dir(reg, shadow_dir);
    assert_string_equal(eddy_registry_find(reg, "sph_mueller", NULL)->file, real_file);
    assert_int_equal(eddy_registry_shadow_count(reg), 1);
    assert_string_equal(eddy_registry_shadow_at(reg, 0)->shadowed, shadow_file);
    eddy_registry_destroy(reg);
}

/* A file loaded by itself is at no folder's level: an id it repeats is a conflict, as with built-ins. */
static void explicit_file_duplicate_is_refused(void **state)
{
    (void)state;
    char shadow_file[4096], real_dir[4096], real_file[4096], want[8400];
    real_in_build("robust_plugins/shadow/eddy_shadow_sph_mueller.so", shadow_file);
    real_in_build("lib/eddy/plugins", real_dir);
    real_in_build("lib/eddy/plugins/eddy_sph_mueller.so", real_file);
    eddy_registry *reg = create();
    eddy_error err;
    assert_int_equal(eddy_registry_load_file(reg, shadow_file, &err), 0);
    eddy_registry_scan_dir(reg, real_dir);
    snprintf(want, sizeof want, "duplicate component id 'sph_mueller' (already provided by %s)", shadow_file);
    expect_reason(reg, "/eddy_sph_mueller.so", want);
    assert_int_equal(eddy_registry_shadow_count(reg), 0);
    eddy_registry_destroy(reg);
}

/* A NULL description is no refusal: the ABI never required one, and 2.x plugins built without it keep
 * loading (the host says "(no description)" where it shows one). */
static void null_description_loads(void **state)
{
    (void)state;
    char file[4096];
    real_in_build("robust_plugins/no_description/eddy_no_description.so", file);
    eddy_registry *reg = create();
    eddy_error err;
    assert_int_equal(eddy_registry_load_file(reg, file, &err), EDDY_OK);
    assert_int_equal(eddy_registry_refusal_count(reg), 0);
    const eddy_registry_entry *e = eddy_registry_find(reg, "robust_undescribed", EDDY_INTERFACE_SOLVER);
    assert_non_null(e);
    assert_null(e->component->description);
    eddy_registry_destroy(reg);
}

/* The same file under another name is the plugin already loaded, not a duplicate of itself: it was
 * refused as "duplicate component id 'sph_mueller' (already provided by <the same file>)". */
static void same_file_under_another_name_is_loaded_once(void **state)
{
    (void)state;
    char real_file[4096], other_name[8300], link_name[4300];
    real_in_build("lib/eddy/plugins/eddy_sph_mueller.so", real_file);
    const char *slash = strrchr(real_file, '/');
    snprintf(other_name, sizeof other_name, "%.*s/../plugins/%s", (int)(slash - real_file), real_file, slash + 1);
    snprintf(link_name, sizeof link_name, "/tmp/eddy_test_loader_link_%d.so", (int)getpid());
    unlink(link_name);
    assert_int_equal(symlink(real_file, link_name), 0);
    eddy_registry *reg = create();
    eddy_error err;
    assert_int_equal(eddy_registry_load_file(reg, real_file, &err), EDDY_OK);
    const size_t count = eddy_registry_count(reg);
    assert_int_equal(eddy_registry_load_file(reg, other_name, &err), EDDY_OK);
    assert_int_equal(eddy_registry_load_file(reg, link_name, &err), EDDY_OK);
    assert_int_equal(eddy_registry_refusal_count(reg), 0);
    assert_int_equal(eddy_registry_count(reg), count);
    const eddy_registry_entry *e = eddy_registry_find(reg, "sph_mueller", EDDY_INTERFACE_SOLVER);
    assert_non_null(e);
    assert_string_equal(e->file, real_file);
    eddy_registry_destroy(reg);
    unlink(link_name);
}

/* A plugin built with -fsanitize but no runtime: the refusal says how to load it. */
static void sanitized_plugin_refusal_has_hint(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"robust_plugins/asan/eddy_sanitized_asan.so",
         "; the plugin was built with AddressSanitizer but this eddy is not: run eddy with "
         "LD_PRELOAD=$(gcc -print-file-name=libasan.so) (or clang's libclang_rt.asan), or build eddy with "
         "-DEDDY_SANITIZE=ON"},
        {"robust_plugins/ubsan/eddy_sanitized_ubsan.so",
         "; the plugin was built with UndefinedBehaviorSanitizer but this eddy is not: run eddy with "
         "LD_PRELOAD=$(gcc -print-file-name=libubsan.so) (or clang's libclang_rt.ubsan_standalone), or "
         "build eddy with -DEDDY_SANITIZE=ON"},
    };
    for (size_t k = 0; k < 2; ++k) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", bin_dir, cases[k][0]);
        FILE *f = fopen(path, "rb");
        if (!f) continue; /* not built: a sanitized host, or a compiler without the flag */
        fclose(f);
        eddy_registry *reg = create();
        eddy_error err;
        assert_int_equal(eddy_registry_load_file(reg, path, &err), EDDY_ERR_PLUGIN);
        const char *tail = cases[k][1];
        size_t n = strlen(err.message), m = strlen(tail);
        if (n < m || strcmp(err.message + n - m, tail) != 0) fail_msg("no hint in: %s", err.message);
        if (!strstr(err.message, "cannot load: ")) fail_msg("unexpected: %s", err.message);
        eddy_registry_destroy(reg);
    }
}

static void refuses_non_elf_file(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    /* (dlopen's "<path>: invalid ELF header" repeated the path and did not say what was wrong) */
    expect_reason(reg, "/eddy_not_elf.so",
                  "cannot load: not a shared object (the file does not begin with an ELF header); a plugin is the "
                  ".so its build makes, e.g. with eddy_add_plugin");
    eddy_registry_destroy(reg);
}

static void good_plugins_still_load(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    /* Fifteen broken files, two good: the refusals do not stop the good ones. */
    assert_int_equal(eddy_registry_refusal_count(reg), 15);
    const eddy_registry_entry *e = eddy_registry_find(reg, "test_solver", EDDY_INTERFACE_SOLVER);
    assert_non_null(e);
    assert_non_null(strstr(e->file, "eddy_a_good.so"));
    assert_string_equal(e->plugin, "test_plugin");
    assert_non_null(eddy_registry_find(reg, "exploding_solver", EDDY_INTERFACE_SOLVER));
    /* Found by id and interface: a solver is no grid. */
    assert_ptr_equal(eddy_registry_find(reg, "test_solver", NULL), e);
    assert_null(eddy_registry_find(reg, "test_solver", EDDY_INTERFACE_GRID));
    /* The built-in CPU grid is always there. */
    assert_non_null(eddy_registry_find(reg, "cpu", EDDY_INTERFACE_GRID));
    assert_string_equal(eddy_registry_ids(reg, EDDY_INTERFACE_SOLVER), "exploding_solver, test_solver");
    /* The real plugin folder of the build loads alongside. */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/lib/eddy/plugins", getenv("EDDY_BINARY_DIR"));
    eddy_registry_scan_dir(reg, dir);
    assert_non_null(eddy_registry_find(reg, "sph_mueller", EDDY_INTERFACE_SOLVER));
    assert_int_equal(eddy_registry_refusal_count(reg), 15);
    eddy_registry_destroy(reg);
}

/* What the registry hands a host for a current plugin: its copy, every member as the plugin set it. */
static void entry_is_the_plugins_component(void **state)
{
    (void)state;
    eddy_registry *reg = scan(plugin_dir);
    const eddy_component *c = eddy_registry_find(reg, "test_solver", EDDY_INTERFACE_SOLVER)->component;
    assert_int_equal(c->size, sizeof(eddy_component));
    assert_string_equal(c->interface_id, EDDY_INTERFACE_SOLVER);
    assert_string_equal(c->version, "0.0.1");
    assert_string_equal(c->description, "test solver: gravity only");
    assert_int_equal(c->flags, EDDY_COMPONENT_CONCURRENT_INSTANCES);
    assert_int_equal(c->param_count, 1);
    assert_int_equal(c->params[0].size, sizeof(eddy_param_desc));
    assert_string_equal(c->params[0].id, "gain");
    assert_true(c->params[0].def == 0.5 && c->params[0].min == 0.0 && c->params[0].max == 1.0);
    assert_null(c->material_params);
    const eddy_solver_vtable *v = c->vtable;
    assert_int_equal(v->size, sizeof(eddy_solver_vtable));
    assert_non_null(v->create);
    assert_non_null(v->step);
    assert_non_null(v->destroy);
    assert_null(v->max_dt);
    assert_null(v->reduce);
    eddy_registry_destroy(reg);
}

static void load_file_reports_error(void **state)
{
    (void)state;
    eddy_registry *reg = create();
    eddy_error err;
    char path[4200];
    snprintf(path, sizeof path, "%s/eddy_bad_major.so", plugin_dir);
    assert_int_equal(eddy_registry_load_file(reg, path, &err), EDDY_ERR_PLUGIN);
    assert_int_equal(err.code, EDDY_ERR_PLUGIN);
    char want[4400];
    snprintf(want, sizeof want, "%s: ABI major version mismatch: plugin 3.0, host 2.3%s", path,
             " (built for a newer eddy: run it with an eddy of plugin ABI 3, or rebuild it against this eddy's headers)");
    assert_string_equal(err.message, want);
    assert_int_equal(eddy_registry_refusal_count(reg), 1);
    eddy_registry_destroy(reg);
}

/* A name without a '/' is the file in the current folder, as to open(): dlopen searched the library
 * path for it, so a plugin beside the user was "not found" and a system library of the name was
 * loaded. An empty path (dlopen's handle of the program itself) is refused as such, unrecorded. */
static void bare_name_is_a_file_here(void **state)
{
    (void)state;
    char dir[4096], cwd[4096];
    real_in_build("lib/eddy/plugins", dir);
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    eddy_registry *reg = create();
    eddy_error err;
    assert_int_equal(eddy_registry_load_file(reg, "eddy_sph_mueller.so", &err), EDDY_OK);
    assert_non_null(eddy_registry_find(reg, "sph_mueller", EDDY_INTERFACE_SOLVER));
    /* (in the library path, never here) */
    assert_int_equal(eddy_registry_load_file(reg, "libm.so.6", &err), EDDY_ERR_PLUGIN);
    assert_non_null(strstr(err.message, "libm.so.6: cannot load: ./libm.so.6: cannot open shared object file"));
    assert_int_equal(chdir(cwd), 0);
    const size_t refused = eddy_registry_refusal_count(reg);
    assert_int_equal(eddy_registry_load_file(reg, "", &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "the plugin file's path is empty");
    assert_int_equal(eddy_registry_load_file(reg, NULL, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_int_equal(eddy_registry_refusal_count(reg), refused);
    eddy_registry_destroy(reg);
}

/* --- the built-in components ---------------------------------------------------------------------- */

static void builtin_cpu_grid(void **state)
{
    (void)state;
    eddy_registry *reg = NULL;
    eddy_error err;
    /* No host: the registry uses the silent one. */
    assert_int_equal(eddy_registry_create(NULL, &reg, &err), 0);
    assert_int_equal(eddy_registry_count(reg), 1);
    const eddy_registry_entry *e = eddy_registry_at(reg, 0);
    assert_ptr_equal(eddy_registry_find(reg, "cpu", EDDY_INTERFACE_GRID), e);
    assert_string_equal(e->file, "(built-in)");
    assert_string_equal(e->plugin, "eddy");
    assert_string_equal(e->component->interface_id, EDDY_INTERFACE_GRID);
    assert_int_equal(e->component->flags, EDDY_COMPONENT_CONCURRENT_INSTANCES);
    const eddy_grid_backend_vtable *v = e->component->vtable;
    assert_int_equal(v->size, sizeof(eddy_grid_backend_vtable));
    assert_true(v->sort == eddy_cpu_grid_backend()->sort);
    assert_true(v->create == eddy_cpu_grid_backend()->create);
    assert_string_equal(eddy_registry_ids(reg, EDDY_INTERFACE_GRID), "cpu");
    assert_string_equal(eddy_registry_ids(reg, EDDY_INTERFACE_SOLVER), "");
    eddy_registry_destroy(reg);
}

struct eddy_writer { int unused; };
struct eddy_probe { int unused; };

static int writer_create(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    (void)setup; (void)err;
    *out = NULL;
    return EDDY_OK;
}
static int writer_write(eddy_writer *w, const eddy_frame *f, eddy_error *err)
{
    (void)w; (void)f; (void)err;
    return EDDY_OK;
}
static void writer_destroy(eddy_writer *w) { (void)w; }
static int probe_create(const eddy_probe_setup *setup, eddy_probe **out, eddy_error *err)
{
    (void)setup; (void)err;
    *out = NULL;
    return EDDY_OK;
}
static void probe_destroy(eddy_probe *p) { (void)p; }

static void builtin_components_are_checked(void **state)
{
    (void)state;
    static const eddy_param_desc params[] = {
        EDDY_PARAM_STRING_DESC("prefix", "frame", 64, "File name prefix."),
        EDDY_PARAM_BOOL_DESC("binary", 1, "Binary payload."),
    };
    static const eddy_writer_vtable writer_vtable = {sizeof(eddy_writer_vtable), writer_create,
                                                     writer_write, writer_destroy};
    static const eddy_component writer = {
        .size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_WRITER, .id = "test_writer",
        .version = "1.0.0", .description = "writes nothing", .params = params, .param_count = 2,
        .vtable = &writer_vtable};
    /* A probe without measure(), and one that takes the CPU grid's id. */
    static const eddy_probe_vtable probe_vtable = {.size = sizeof(eddy_probe_vtable),
                                                   .create = probe_create, .destroy = probe_destroy};
    static const eddy_component no_measure = {
        .size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_PROBE, .id = "bad_probe",
        .version = "1.0.0", .description = "cannot measure", .vtable = &probe_vtable};
    static const eddy_component cpu_probe = {
        .size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_PROBE, .id = "cpu",
        .version = "1.0.0", .description = "an id already taken by a grid", .vtable = &probe_vtable};

    eddy_registry *reg = create();
    eddy_error err;
    assert_int_equal(eddy_registry_add_builtin(reg, &writer, "test_host", &err), 0);
    const eddy_registry_entry *e = eddy_registry_find(reg, "test_writer", EDDY_INTERFACE_WRITER);
    assert_non_null(e);
    assert_string_equal(e->file, "(built-in)");
    assert_string_equal(e->plugin, "test_host");
    assert_string_equal(e->component->params[0].def_string, "frame");
    assert_string_equal(e->component->params[1].id, "binary");
    assert_true(((const eddy_writer_vtable *)e->component->vtable)->write_frame == writer_write);

    assert_int_equal(eddy_registry_add_builtin(reg, &no_measure, "test_host", &err), EDDY_ERR_PLUGIN);
    assert_string_equal(err.message, "(built-in): probe 'bad_probe': missing required callback 'measure'");
    /* Ids are unique across interfaces. */
    assert_int_equal(eddy_registry_add_builtin(reg, &cpu_probe, "test_host", &err), EDDY_ERR_PLUGIN);
    assert_string_equal(err.message, "(built-in): duplicate component id 'cpu' (already provided by (built-in))");
    assert_int_equal(eddy_registry_count(reg), 2);
    assert_int_equal(eddy_registry_refusal_count(reg), 2);
    assert_string_equal(eddy_registry_ids(reg, NULL), "cpu, test_writer");
    assert_string_equal(eddy_registry_ids(reg, EDDY_INTERFACE_PROBE), "");
    eddy_registry_destroy(reg);
}

/* A count larger than its table reads what follows the table as entries: the refusal says so past the
 * first entry, where that is the usual cause (here the entries after the table are zeroed, as a count
 * one too large often meets them). Entry 0 and component 0 get no such hint. */
static void count_larger_than_the_table_is_named(void **state)
{
    (void)state;
    static const eddy_param_desc params[3] = {EDDY_PARAM_REAL_DESC("gain", 0.5, 0, 1, "1", "A gain.")};
    static const eddy_param_desc material_params[3] = {EDDY_MATERIAL_STIFFNESS_DESC};
    static const eddy_writer_vtable writer_vtable = {sizeof(eddy_writer_vtable), writer_create,
                                                     writer_write, writer_destroy};
    static const eddy_component long_count = {
        .size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_WRITER, .id = "long_count_writer",
        .version = "1.0.0", .description = "param_count 2, one entry", .params = params, .param_count = 2,
        .vtable = &writer_vtable};
    static const eddy_component long_material_count = {
        .size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_WRITER, .id = "long_material_writer",
        .version = "1.0.0", .description = "material_param_count 3, one entry", .vtable = &writer_vtable,
        .material_params = material_params, .material_param_count = 3};
    static const eddy_component zero_first = {
        .size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_WRITER, .id = "zero_first_writer",
        .version = "1.0.0", .description = "an empty first entry", .params = params + 1, .param_count = 1,
        .vtable = &writer_vtable};

    eddy_registry *reg = create();
    eddy_error err;
    char want[512];
    assert_int_equal(eddy_registry_add_builtin(reg, &long_count, "test_host", &err), EDDY_ERR_PLUGIN);
    snprintf(want, sizeof want,
             "(built-in): component 'long_count_writer': parameter entry 1: size 0 is below the %zu required bytes "
             "(is param_count larger than the table?)",
             offsetof(eddy_param_desc, choices) + sizeof(void *));
    assert_string_equal(err.message, want);
    assert_int_equal(eddy_registry_add_builtin(reg, &long_material_count, "test_host", &err), EDDY_ERR_PLUGIN);
    snprintf(want, sizeof want,
             "(built-in): component 'long_material_writer': material parameter entry 1: size 0 is below the %zu "
             "required bytes (is material_param_count larger than the table?)",
             offsetof(eddy_param_desc, choices) + sizeof(void *));
    assert_string_equal(err.message, want);
    assert_int_equal(eddy_registry_add_builtin(reg, &zero_first, "test_host", &err), EDDY_ERR_PLUGIN);
    snprintf(want, sizeof want,
             "(built-in): component 'zero_first_writer': parameter entry 0: size 0 is below the %zu required bytes",
             offsetof(eddy_param_desc, choices) + sizeof(void *));
    assert_string_equal(err.message, want);
    assert_int_equal(eddy_registry_add_builtin(reg, NULL, "test_host", &err), EDDY_ERR_PLUGIN);
    assert_string_equal(err.message, "(built-in): component 0 is NULL");
    assert_int_equal(eddy_registry_count(reg), 1); /* the CPU grid */
    eddy_registry_destroy(reg);
}

/* The same range checks for every numeric kind, a derived parameter's (which has no default to blame)
 * included, through the registry as a plugin's table meets them. */
static void parameter_ranges_are_checked_before_defaults(void **state)
{
    (void)state;
    static const eddy_writer_vtable writer_vtable = {sizeof(eddy_writer_vtable), writer_create, writer_write,
                                                     writer_destroy};
    static const struct {
        eddy_param_desc param;
        const char *reason;
    } cases[] = {
        {EDDY_PARAM_DERIVED_REAL_DESC("h", 1.0, 0.0, "m", "Derived, range swapped."),
         "parameter 'h': the range [1, 0] is empty (min > max; are they swapped?)"},
        {EDDY_PARAM_INT_DESC("n", 5, 10, 1, "1", "An integer, range swapped."),
         "parameter 'n': the range [10, 1] is empty (min > max; are they swapped?)"},
        {EDDY_PARAM_INT_DESC("n", 5, 0, NAN, "1", "An integer, max NaN."),
         "parameter 'n': max is NaN (range [0, nan]); give each bound a number (-INFINITY or INFINITY for none)"},
        {EDDY_PARAM_VECTOR_DESC("g", 0, NAN, NAN, "m/s^2", "A vector, both bounds NaN."),
         "parameter 'g': min and max are NaN (range [nan, nan]); give each bound a number (-INFINITY or INFINITY "
         "for none)"},
        {EDDY_PARAM_DERIVED_REAL_DESC("h", NAN, 1.0, "m", "Derived, min NaN."),
         "parameter 'h': min is NaN (range [nan, 1]); give each bound a number (-INFINITY or INFINITY for none)"},
        {EDDY_PARAM_STRING_DESC("name", "x", NAN, "A string, length limit NaN."),
         "string parameter 'name': maximum length is NaN; give a number of characters"},
    };
    eddy_registry *reg = create();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const eddy_component writer = {
            .size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_WRITER, .id = "range_writer",
            .version = "1.0.0", .description = "one parameter", .params = &cases[i].param, .param_count = 1,
            .vtable = &writer_vtable};
        eddy_error err;
        char want[512];
        snprintf(want, sizeof want, "(built-in): component 'range_writer': %s", cases[i].reason);
        assert_int_equal(eddy_registry_add_builtin(reg, &writer, "test_host", &err), EDDY_ERR_PLUGIN);
        if (strcmp(err.message, want) != 0) fail_msg("case %zu: expected\n  '%s'\ngot\n  '%s'", i, want, err.message);
    }
    eddy_registry_destroy(reg);
}

static void interface_names(void **state)
{
    (void)state;
    assert_string_equal(eddy_interface_name(EDDY_INTERFACE_SOLVER), "solver");
    assert_string_equal(eddy_interface_name(EDDY_INTERFACE_GRID), "grid");
    assert_string_equal(eddy_interface_name(EDDY_INTERFACE_WRITER), "writer");
    assert_string_equal(eddy_interface_name(EDDY_INTERFACE_PROBE), "probe");
    assert_string_equal(eddy_interface_name("acme.widget.1"), "acme.widget.1");
}

/* --- tests/abi: plugins built against other versions ---------------------------------------------- */

/* (a) A plugin whose structs stop where an older 2.x minor's did loads, and the registry's entry reads
 * every member it lacks as NULL / 0 (older_minor.c puts non-zero data right after each struct). */
static void loads_older_minor(void **state)
{
    (void)state;
    eddy_registry *reg = create();
    eddy_error err;
    assert_int_equal(load_abi(reg, "eddy_abi_older_minor.so", &err), 0);
    const eddy_registry_entry *e = eddy_registry_find(reg, "older_solver", EDDY_INTERFACE_SOLVER);
    assert_non_null(e);
    assert_string_equal(e->plugin, "older_minor");
    const eddy_component *c = e->component;
    assert_int_equal(c->size, sizeof(eddy_component));
    assert_string_equal(c->version, "1.9.0");
    assert_int_equal(c->flags, 0);
    assert_null(c->material_params);
    assert_int_equal(c->material_param_count, 0);

    const eddy_solver_vtable *v = c->vtable;
    assert_int_equal(v->size, sizeof(eddy_solver_vtable));
    assert_null(v->reduce);
    assert_null(v->max_dt);
    assert_non_null(v->compute_fields);
    /* The copied callbacks are the plugin's: create, one step, and compute_fields that checks it. */
    eddy_solver_setup setup = {.size = sizeof setup, .host = eddy_host_silent()};
    eddy_solver *s = NULL;
    assert_int_equal(v->create(&setup, &s, &err), 0);
    assert_non_null(s);
    assert_int_equal(v->step(s, NULL, 1e-3, &err), 0);
    assert_int_equal(v->compute_fields(s, NULL, &err), 0);
    v->destroy(s);

    /* The table is re-laid at this host's stride: plain indexing reads it. */
    assert_int_equal(c->param_count, 3);
    for (size_t i = 0; i < 3; ++i) {
        assert_int_equal(c->params[i].size, sizeof(eddy_param_desc));
        assert_null(c->params[i].def_string);
        assert_ptr_equal(eddy_param_at(c->params, i), &c->params[i]);
    }
    const eddy_param_desc *p = c->params;
    assert_string_equal(p[0].id, "gain");
    assert_int_equal(p[0].type, EDDY_PARAM_REAL);
    assert_true(p[0].def == 0.25 && p[0].min == 0.0 && p[0].max == 1.0);
    assert_string_equal(p[0].unit, "1");
    assert_string_equal(p[0].doc, "A gain.");
    assert_string_equal(p[1].id, "iterations");
    assert_int_equal(p[1].type, EDDY_PARAM_INT);
    assert_true(p[1].def == 4 && p[1].min == 1 && p[1].max == 100);
    assert_string_equal(p[2].id, "mode");
    assert_int_equal(p[2].type, EDDY_PARAM_ENUM);
    assert_true(p[2].def == 1);
    assert_string_equal(p[2].choices[0], "fast");
    assert_string_equal(p[2].choices[1], "exact");
    assert_null(p[2].choices[2]);
    assert_string_equal(p[2].doc, "Fast or exact.");
    eddy_registry_destroy(reg);
}

/* The growth rule still refuses structs too short for what every 2.x has. */
static void refuses_structs_below_the_required_size(void **state)
{
    (void)state;
    eddy_registry *reg = scan(abi_dir);
    char want[256];
    snprintf(want, sizeof want, "component 'short_component_solver': size %zu is below the %zu required bytes",
             offsetof(eddy_component, vtable), offsetof(eddy_component, vtable) + sizeof(void *));
    expect_reason(reg, "/eddy_abi_older_short_component.so", want);
    snprintf(want, sizeof want,
             "component 'short_param_solver': parameter entry 0: size %zu is below the %zu required bytes",
             offsetof(eddy_param_desc, choices), offsetof(eddy_param_desc, choices) + sizeof(void *));
    expect_reason(reg, "/eddy_abi_older_short_param.so", want);
    snprintf(want, sizeof want, "plugin descriptor size %zu is below the %zu required bytes",
             offsetof(eddy_plugin_descriptor, components), sizeof(eddy_plugin_descriptor));
    expect_reason(reg, "/eddy_abi_older_short_descriptor.so", want);
    eddy_registry_destroy(reg);
}

/* (b) A newer minor, with larger structs. */
static void refuses_newer_minor_with_larger_structs(void **state)
{
    (void)state;
    eddy_registry *reg = scan(abi_dir);
    expect_reason(reg, "/eddy_abi_newer_minor.so", "plugin needs a newer host: plugin ABI 2.4, host 2.3");
    assert_null(eddy_registry_find(reg, "newer_solver", NULL));
    eddy_registry_destroy(reg);
}

/* (c) A newer major, whose descriptor shares only the first three members (and has 8-byte reals and
 * no `size`, so a host checking anything else first would say something else). */
static void refuses_newer_major(void **state)
{
    (void)state;
    eddy_registry *reg = scan(abi_dir);
    expect_reason(reg, "/eddy_abi_newer_major.so", "ABI major version mismatch: plugin 3.0, host 2.3"
                                                  " (built for a newer eddy: run it with an eddy of plugin ABI 3, or rebuild it against this eddy's headers)");
    eddy_registry_destroy(reg);
}

/* (e) Built against the real 1.0 headers: told to rebuild. Where 2.x has `size`, its descriptor has
 * the component count (1), so a host that read it would refuse it for its descriptor size instead. */
static void refuses_v1_plugin_with_rebuild_hint(void **state)
{
    (void)state;
    eddy_registry *reg = scan(abi_dir);
    expect_reason(reg, "/eddy_abi_v1.so",
                  "built for plugin ABI 1.0; this host loads ABI 2.x plugins: rebuild the plugin against "
                  "the eddy 2 headers");
    assert_null(eddy_registry_find(reg, "v1_solver", NULL));
    eddy_registry_destroy(reg);
}

/* (f) An interface this host does not know is registered and listed, its vtable untouched. */
typedef struct acme_widget_vtable {
    size_t size;
    int (*spin)(double rate, double *turns);
} acme_widget_vtable;

static void open_kind_loads_and_is_listed(void **state)
{
    (void)state;
    eddy_registry *reg = create();
    eddy_error err;
    assert_int_equal(load_abi(reg, "eddy_abi_open_kind.so", &err), 0);
    const eddy_registry_entry *e = eddy_registry_find(reg, "acme_widget", "acme.widget.1");
    assert_non_null(e);
    assert_ptr_equal(eddy_registry_find(reg, "acme_widget", NULL), e);
    assert_null(eddy_registry_find(reg, "acme_widget", EDDY_INTERFACE_SOLVER));
    assert_string_equal(e->plugin, "acme");
    assert_string_equal(e->component->interface_id, "acme.widget.1");
    assert_string_equal(e->component->version, "0.3.0");
    const acme_widget_vtable *w = e->component->vtable;
    assert_int_equal(w->size, sizeof(acme_widget_vtable));
    double turns = 0;
    assert_int_equal(w->spin(1.5, &turns), 0);
    assert_true(turns == 3.0);
    assert_string_equal(eddy_registry_ids(reg, "acme.widget.1"), "acme_widget");
    assert_string_equal(eddy_registry_ids(reg, EDDY_INTERFACE_PROBE), "acme_count");
    assert_string_equal(eddy_registry_ids(reg, NULL), "acme_count, acme_widget, cpu");
    /* Its probe, a known interface, is checked and copied: unit() left out reads NULL. */
    const eddy_probe_vtable *p = eddy_registry_find(reg, "acme_count", EDDY_INTERFACE_PROBE)->component->vtable;
    assert_int_equal(p->size, sizeof(eddy_probe_vtable));
    assert_non_null(p->measure);
    assert_null(p->unit);
    eddy_registry_destroy(reg);
}

static void open_kind_is_still_checked(void **state)
{
    (void)state;
    eddy_registry *reg = scan(abi_dir);
    expect_reason(reg, "/eddy_abi_open_kind_bad_id.so",
                  "component 'badkind_widget': interface id 'Acme/Widget' is not [a-z0-9_.]+");
    expect_reason(reg, "/eddy_abi_open_kind_no_vtable.so", "acme.widget.1 'novtable_widget' has no vtable");
    /* Taken whole or not at all: their valid probes are not registered either. */
    assert_null(eddy_registry_find(reg, "badkind_count", NULL));
    assert_null(eddy_registry_find(reg, "novtable_count", NULL));
    eddy_registry_destroy(reg);
}

/* Every fixture of tests/abi, scanned together: which load, and how many are refused. */
static void abi_folder_loads_the_compatible_ones(void **state)
{
    (void)state;
    eddy_registry *reg = scan(abi_dir);
    /* older_short_{component,param,descriptor}, newer_minor, newer_major, v1, open_kind_bad_id,
     * open_kind_no_vtable, init_fail, init_refused */
    assert_int_equal(eddy_registry_refusal_count(reg), 10);
    assert_string_equal(eddy_registry_ids(reg, NULL), "acme_count, acme_widget, cpu, init_ok_writer, older_solver");
    for (size_t i = 1; i < eddy_registry_count(reg); ++i)
        assert_non_null(strstr(eddy_registry_at(reg, i)->file, abi_dir_real));
    eddy_registry_destroy(reg);
}

/* --- (g) init() and deinit() ---------------------------------------------------------------------- */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return strdup("");
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

static void expect_log(const char *path, const char *expected)
{
    char *got = read_file(path);
    if (strcmp(got, expected) != 0) {
        fail_msg("init log: expected\n%s---- got\n%s----", expected, got);
    }
    free(got);
}

static void init_and_deinit_run_once_each(void **state)
{
    (void)state;
    char log[4200];
    snprintf(log, sizeof log, "%s/loader_init.log", getenv("EDDY_BINARY_DIR"));
    remove(log);
    setenv("EDDY_TEST_INIT_LOG", log, 1);

    eddy_registry *reg = create();
    eddy_error err;
    assert_int_equal(load_abi(reg, "eddy_abi_init_ok.so", &err), 0);
    /* A file already loaded is not loaded (nor initialized) again. */
    assert_int_equal(load_abi(reg, "eddy_abi_init_ok.so", &err), 0);
    assert_non_null(eddy_registry_find(reg, "init_ok_writer", EDDY_INTERFACE_WRITER));
    expect_log(log, "init_ok init host=loader_test\n");

    /* init() fails: refused with its message, and never deinitialized. */
    assert_int_equal(load_abi(reg, "eddy_abi_init_fail.so", &err), EDDY_ERR_PLUGIN);
    assert_non_null(strstr(err.message, "/eddy_abi_init_fail.so: init failed: no widget device found"));
    expect_reason(reg, "/eddy_abi_init_fail.so", "init failed: no widget device found");
    assert_null(eddy_registry_find(reg, "init_fail_writer", NULL));

    /* init() succeeds, a component is refused: deinit() runs then, and its good writer is dropped. */
    assert_int_equal(load_abi(reg, "eddy_abi_init_refused.so", &err), EDDY_ERR_PLUGIN);
    expect_reason(reg, "/eddy_abi_init_refused.so",
                  "writer 'init_refused_broken_writer': missing required callback 'write_frame'");
    assert_null(eddy_registry_find(reg, "init_refused_writer", NULL));
    expect_log(log, "init_ok init host=loader_test\n"
                    "init_fail init host=loader_test\n"
                    "init_refused init host=loader_test\n"
                    "init_refused deinit\n");

    /* Destroying the registry deinitializes what it loaded, once. */
    eddy_registry_destroy(reg);
    expect_log(log, "init_ok init host=loader_test\n"
                    "init_fail init host=loader_test\n"
                    "init_refused init host=loader_test\n"
                    "init_refused deinit\n"
                    "init_ok deinit\n");

    /* Without a host of its own, init() receives the silent one. */
    remove(log);
    assert_int_equal(eddy_registry_create(NULL, &reg, &err), 0);
    assert_int_equal(load_abi(reg, "eddy_abi_init_ok.so", &err), 0);
    eddy_registry_destroy(reg);
    char want[256];
    snprintf(want, sizeof want, "init_ok init host=%s\ninit_ok deinit\n", eddy_host_silent()->name);
    expect_log(log, want);

    unsetenv("EDDY_TEST_INIT_LOG");
    remove(log);
}

/* --- EDDY_PLUGIN_PATH entries that are no folder -------------------------------------------------- */

/* What a host's log received. */
static struct {
    int count, level;
    char message[2048];
} logged;

static void capture_log(const eddy_host *host, eddy_log_level level, const char *component, const char *message)
{
    (void)host;
    (void)component;
    logged.count++;
    logged.level = (int)level;
    snprintf(logged.message, sizeof logged.message, "%s", message);
}

/* A missing entry, given twice, is refused once and said once through the host's log as a warning (a
 * refusal alone was seen by `eddy list` only); empty entries name no folder and are skipped. */
static void missing_path_entry_is_logged_once(void **state)
{
    (void)state;
    const eddy_host host = {sizeof(eddy_host), "loader_test", "0.0.0", NULL, capture_log, NULL, NULL};
    char missing[4200], path[8600];
    snprintf(missing, sizeof missing, "%s/no_such_plugins", bin_dir);
    snprintf(path, sizeof path, ":%s::%s:", missing, missing);
    setenv("EDDY_PLUGIN_PATH", path, 1);
    memset(&logged, 0, sizeof logged);
    eddy_registry *reg = NULL;
    eddy_error err;
    assert_int_equal(eddy_registry_create(&host, &reg, &err), 0);
    eddy_registry_discover(reg);
    unsetenv("EDDY_PLUGIN_PATH");
    assert_int_equal(logged.count, 1);
    assert_int_equal(logged.level, EDDY_LOG_WARNING);
    char want[4600];
    snprintf(want, sizeof want, "warning: %s: EDDY_PLUGIN_PATH names a folder that cannot be read: No such file or "
             "directory; no plugin is searched there (`eddy list` shows the plugins found and those refused)", missing);
    assert_string_equal(logged.message, want);
    assert_string_equal(reason_for(reg, "/no_such_plugins"),
                        "EDDY_PLUGIN_PATH names a folder that cannot be read: No such file or directory");
    size_t entries = 0;
    for (size_t i = 0; i < eddy_registry_refusal_count(reg); ++i)
        entries += strcmp(eddy_registry_refusal_at(reg, i)->file, missing) == 0;
    assert_int_equal(entries, 1);
    eddy_registry_destroy(reg);
}

int main(void)
{
    const char *bin = getenv("EDDY_BINARY_DIR");
    if (!bin) {
        fprintf(stderr, "EDDY_BINARY_DIR is not set (run through ctest)\n");
        return 1;
    }
    snprintf(bin_dir, sizeof bin_dir, "%s", bin);
    snprintf(plugin_dir, sizeof plugin_dir, "%s/test_plugins", bin);
    snprintf(abi_dir, sizeof abi_dir, "%s/test_plugins_abi", bin);
    if (!realpath(abi_dir, abi_dir_real)) {
        fprintf(stderr, "%s: no such folder (build the test_loader target)\n", abi_dir);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refuses_wrong_major),
        cmocka_unit_test(refuses_newer_minor),
        cmocka_unit_test(refuses_other_real_size),
        cmocka_unit_test(refuses_descriptor_without_header),
        cmocka_unit_test(refuses_missing_entry),
        cmocka_unit_test(refuses_missing_callback),
        cmocka_unit_test(refuses_short_vtable),
        cmocka_unit_test(refuses_bad_parameter_table),
        cmocka_unit_test(parameter_ranges_are_checked_before_defaults),
        cmocka_unit_test(refuses_duplicate_id),
        cmocka_unit_test(earlier_folder_shadows_later),
        cmocka_unit_test(explicit_file_duplicate_is_refused),
        cmocka_unit_test(null_description_loads),
        cmocka_unit_test(sanitized_plugin_refusal_has_hint),
        cmocka_unit_test(refuses_non_elf_file),
        cmocka_unit_test(good_plugins_still_load),
        cmocka_unit_test(entry_is_the_plugins_component),
        cmocka_unit_test(load_file_reports_error),
        cmocka_unit_test(same_file_under_another_name_is_loaded_once),
        cmocka_unit_test(bare_name_is_a_file_here),
        cmocka_unit_test(builtin_cpu_grid),
        cmocka_unit_test(builtin_components_are_checked),
        cmocka_unit_test(count_larger_than_the_table_is_named),
        cmocka_unit_test(interface_names),
        cmocka_unit_test(loads_older_minor),
        cmocka_unit_test(refuses_structs_below_the_required_size),
        cmocka_unit_test(refuses_newer_minor_with_larger_structs),
        cmocka_unit_test(refuses_newer_major),
        cmocka_unit_test(refuses_v1_plugin_with_rebuild_hint),
        cmocka_unit_test(open_kind_loads_and_is_listed),
        cmocka_unit_test(open_kind_is_still_checked),
        cmocka_unit_test(abi_folder_loads_the_compatible_ones),
        cmocka_unit_test(init_and_deinit_run_once_each),
        cmocka_unit_test(missing_path_entry_is_logged_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
