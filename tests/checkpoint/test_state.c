/* eddy_state_save_floats / eddy_state_load_floats: a record reads back exactly, and every mismatch
 * (another tag, another count, a damaged size) is refused with a message naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <eddy/eddy.h>

static void round_trip(void **state)
{
    (void)state;
    const float in[3] = {1.5f, -0.0f, 3.4028235e38f};
    float out[3] = {0};
    void *data;
    size_t size;
    eddy_error err;
    assert_int_equal(eddy_state_save_floats("demo/1", in, 3, &data, &size, &err), EDDY_OK);
    assert_int_equal(size, strlen("demo/1") + 1 + 4 + 3 * sizeof(float));
    assert_int_equal(eddy_state_load_floats("demo/1", out, 3, data, size, &err), EDDY_OK);
    assert_memory_equal(in, out, sizeof in);
    free(data);
}

static void mismatches_are_refused(void **state)
{
    (void)state;
    const float in[2] = {1, 2};
    float out[2];
    void *data;
    size_t size;
    eddy_error err;
    assert_int_equal(eddy_state_save_floats("tait/1", in, 2, &data, &size, &err), EDDY_OK);
    assert_int_equal(eddy_state_load_floats("sph_mueller/1", out, 2, data, size, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "state record is 'tait/1', expected 'sph_mueller/1'");
    assert_int_equal(eddy_state_load_floats("tait/1", out, 1, data, size, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "state record 'tait/1' has 19 bytes, expected 15 (1 values)");
    assert_int_equal(eddy_state_load_floats("tait/1", out, 2, data, size - 1, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "state record 'tait/1' has 18 bytes, expected 19 (2 values)");
    memset(data, 'x', size);
    assert_int_equal(eddy_state_load_floats("tait/1", out, 2, data, size, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "state record of 19 bytes has no tag, expected 'tait/1'");
    free(data);
    /* A count the record's 32 bits cannot hold is refused before anything is read or allocated (it
     * once saved a record that never loaded). */
    if (sizeof(size_t) > 4) {
        const size_t huge = (size_t)UINT32_MAX + 1;
        data = NULL;
        assert_int_equal(eddy_state_save_floats("tait/1", in, huge, &data, &size, &err), EDDY_ERR_INVALID_ARGUMENT);
        assert_null(data);
        assert_string_equal(err.message, "the state of 'tait/1' has 4294967296 values; a state record holds at most 4294967295");
    }
}

/* NULL where the header asks for memory is refused by name, never read or written through (the load
 * once passed NULL data of a nonzero size to memchr). */
static void null_arguments_are_refused(void **state)
{
    (void)state;
    const float in[1] = {1};
    float out[1] = {7};
    void *data = NULL;
    size_t size = 0;
    eddy_error err;
    assert_int_equal(eddy_state_load_floats("tait/1", out, 1, NULL, 19, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "eddy_state_load_floats: data (with a size above 0) is NULL");
    assert_int_equal(eddy_state_load_floats(NULL, out, 1, in, 4, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "eddy_state_load_floats: tag is NULL");
    assert_int_equal(eddy_state_save_floats("tait/1", in, 1, &data, &size, &err), EDDY_OK);
    assert_int_equal(eddy_state_load_floats("tait/1", NULL, 1, data, size, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "eddy_state_load_floats: values (with a count above 0) is NULL");
    assert_true(out[0] == 7);
    free(data);
    data = NULL;
    assert_int_equal(eddy_state_save_floats(NULL, in, 1, &data, &size, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "eddy_state_save_floats: tag is NULL");
    assert_int_equal(eddy_state_save_floats("tait/1", NULL, 1, &data, &size, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "eddy_state_save_floats: values (with a count above 0) is NULL");
    assert_int_equal(eddy_state_save_floats("tait/1", in, 1, NULL, &size, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "eddy_state_save_floats: data is NULL");
    assert_int_equal(eddy_state_save_floats("tait/1", in, 1, &data, NULL, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "eddy_state_save_floats: size is NULL");
    assert_null(data);
    /* A record of nothing needs no values. */
    assert_int_equal(eddy_state_save_floats("none/1", NULL, 0, &data, &size, &err), EDDY_OK);
    assert_int_equal(eddy_state_load_floats("none/1", NULL, 0, data, size, &err), EDDY_OK);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(mismatches_are_refused),
        cmocka_unit_test(null_arguments_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
