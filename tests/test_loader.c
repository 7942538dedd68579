/*
 * Loader tests against real plugins built by the suite (tests/plugins): every broken one is refused
 * with the message that names its fault and both versions where versions differ, and the good ones
 * (including sph_mueller from the build tree) still load.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <eddy/eddy.h>

static char plugin_dir[4096];

static const char *reason_for(const eddy_registry *reg, const char *file_suffix)
{
    for (size_t i = 0; i < eddy_registry_refusal_count(reg); ++i) {
        const eddy_registry_refusal *r = eddy_registry_refusal_at(reg, i);
        size_t n = strlen(r->file), m = strlen(file_suffix);
        if (n >= m && strcmp(r->file + n - m, file_suffix) == 0) return r->reason;
    }
    return NULL;
}

static eddy_registry *scan(void)
{
    eddy_registry *reg;
    eddy_error err;
    assert_int_equal(eddy_registry_create(&reg, &err), 0);
    eddy_registry_scan_dir(reg, plugin_dir);
    return reg;
}

static void expect_reason(const eddy_registry *reg, const char *file, const char *expected)
{
    const char *reason = reason_for(reg, file);
    if (!reason) fail_msg("%s was not refused", file);
    if (strcmp(reason, expected) != 0) fail_msg("%s: expected reason\n  '%s'\ngot\n  '%s'", file, expected, reason);
}

static void refuses_wrong_major(void **state)
{
    (void)state;
    eddy_registry *reg = scan();
    char want[256];
    snprintf(want, sizeof want, "ABI major version mismatch: plugin %d.%d, host %d.%d", EDDY_ABI_MAJOR + 1,
             EDDY_ABI_MINOR, EDDY_ABI_MAJOR, EDDY_ABI_MINOR);
    expect_reason(reg, "/eddy_bad_major.so", want);
    eddy_registry_destroy(reg);
}

static void refuses_newer_minor(void **state)
{
    (void)state;
    eddy_registry *reg = scan();
    char want[256];
    snprintf(want, sizeof want, "plugin needs a newer host: plugin ABI %d.%d, host %d.%d", EDDY_ABI_MAJOR,
             EDDY_ABI_MINOR + 1, EDDY_ABI_MAJOR, EDDY_ABI_MINOR);
    expect_reason(reg, "/eddy_bad_minor.so", want);
    eddy_registry_destroy(reg);
}

static void refuses_other_real_size(void **state)
{
    (void)state;
    eddy_registry *reg = scan();
    expect_reason(reg, "/eddy_bad_real_size.so", "real-number size mismatch: plugin 8 bytes, host 4 bytes");
    eddy_registry_destroy(reg);
}

static void refuses_missing_entry(void **state)
{
    (void)state;
    eddy_registry *reg = scan();
    expect_reason(reg, "/eddy_no_entry.so", "missing entry symbol 'eddy_plugin_entry'");
    eddy_registry_destroy(reg);
}

static void refuses_missing_callback(void **state)
{
    (void)state;
    eddy_registry *reg = scan();
    expect_reason(reg, "/eddy_missing_step.so", "solver 'missing_step_solver': missing required callback 'step'");
    assert_null(eddy_registry_find(reg, "missing_step_solver", 0));
    eddy_registry_destroy(reg);
}

static void refuses_short_vtable(void **state)
{
    (void)state;
    eddy_registry *reg = scan();
    char want[256];
    snprintf(want, sizeof want, "solver 'short_solver': vtable size %zu is below the %zu required bytes",
             sizeof(size_t) + sizeof(void *), offsetof(eddy_solver_vtable, destroy) + sizeof(void *));
    expect_reason(reg, "/eddy_short_vtable.so", want);
    eddy_registry_destroy(reg);
}

static void refuses_bad_parameter_table(void **state)
{
    (void)state;
    eddy_registry *reg = scan();
    expect_reason(reg, "/eddy_bad_param.so",
                  "component 'bad_param_solver': parameter 'gain': default 5 is not inside [0, 1]");
    eddy_registry_destroy(reg);
}

static void refuses_duplicate_id(void **state)
{
    (void)state;
    eddy_registry *reg = scan();
    char want[4200];
    snprintf(want, sizeof want, "duplicate component id 'test_solver' (already provided by %s/eddy_a_good.so)",
             plugin_dir);
    /* The registry reports real paths; the build folder may itself be reached through a link. */
    char real[4096];
    if (realpath(plugin_dir, real))
        snprintf(want, sizeof want, "duplicate component id 'test_solver' (already provided by %s/eddy_a_good.so)",
                 real);
    expect_reason(reg, "/eddy_zz_duplicate.so", want);
    eddy_registry_destroy(reg);
}

static void refuses_non_elf_file(void **state)
{
    (void)state;
    eddy_registry *reg = scan();
    const char *reason = reason_for(reg, "/eddy_not_elf.so");
    assert_non_null(reason);
    assert_non_null(strstr(reason, "cannot load: "));
    eddy_registry_destroy(reg);
}

static void good_plugins_still_load(void **state)
{
    (void)state;
    eddy_registry *reg = scan();
    /* Nine broken files, one good: the refusals do not stop the good one. */
    assert_int_equal(eddy_registry_refusal_count(reg), 9);
    const eddy_registry_entry *e = eddy_registry_find(reg, "test_solver", EDDY_COMPONENT_SOLVER);
    assert_non_null(e);
    assert_non_null(strstr(e->file, "eddy_a_good.so"));
    /* The built-in CPU grid is always there. */
    assert_non_null(eddy_registry_find(reg, "cpu", EDDY_COMPONENT_GRID));
    /* The real plugin folder of the build loads alongside. */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/lib/eddy/plugins", getenv("EDDY_BINARY_DIR"));
    eddy_registry_scan_dir(reg, dir);
    assert_non_null(eddy_registry_find(reg, "sph_mueller", EDDY_COMPONENT_SOLVER));
    assert_int_equal(eddy_registry_refusal_count(reg), 9);
    eddy_registry_destroy(reg);
}

static void load_file_reports_error(void **state)
{
    (void)state;
    eddy_registry *reg;
    eddy_error err;
    assert_int_equal(eddy_registry_create(&reg, &err), 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/eddy_bad_major.so", plugin_dir);
    assert_int_equal(eddy_registry_load_file(reg, path, &err), EDDY_ERR_PLUGIN);
    assert_non_null(strstr(err.message, "eddy_bad_major.so: ABI major version mismatch"));
    eddy_registry_destroy(reg);
}

int main(void)
{
    const char *bin = getenv("EDDY_BINARY_DIR");
    if (!bin) {
        fprintf(stderr, "EDDY_BINARY_DIR is not set (run through ctest)\n");
        return 1;
    }
    snprintf(plugin_dir, sizeof plugin_dir, "%s/test_plugins", bin);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refuses_wrong_major),     cmocka_unit_test(refuses_newer_minor),
        cmocka_unit_test(refuses_other_real_size), cmocka_unit_test(refuses_missing_entry),
        cmocka_unit_test(refuses_missing_callback),cmocka_unit_test(refuses_short_vtable),
        cmocka_unit_test(refuses_bad_parameter_table), cmocka_unit_test(refuses_duplicate_id),
        cmocka_unit_test(refuses_non_elf_file),    cmocka_unit_test(good_plugins_still_load),
        cmocka_unit_test(load_file_reports_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
