/*
 * Test doubles for the harness of `test_cuda_grid compare`, which otherwise runs only on a GPU: a
 * plugin whose grid "cuda" is the CPU sort (the harness must accept it), and, built with
 * FAKE_UNSTABLE, one that reverses the particles inside each cell — right cells and ranges, wrong
 * order — which the harness must reject. They show, on a machine without a GPU, that the GPU test
 * passes for a correct backend and fails for a subtly wrong one.
 */
#include <eddy/plugin.h>

static int fake_create(const eddy_grid_setup *setup, void **state, eddy_error *err)
{
    return eddy_cpu_grid_backend()->create(setup, state, err);
}

static int fake_sort(void *state, const eddy_grid_layout *layout, size_t n, const eddy_real *x, const eddy_real *y,
                     const eddy_real *z, uint32_t *perm, uint32_t *cell_begin, uint32_t *cell_end, eddy_error *err)
{
    int rc = eddy_cpu_grid_backend()->sort(state, layout, n, x, y, z, perm, cell_begin, cell_end, err);
#ifdef FAKE_UNSTABLE
    for (size_t c = 0; c < layout->cell_count && !rc; ++c)
        for (uint32_t i = cell_begin[c], j = cell_end[c]; i + 1 < j; ++i, --j) {
            const uint32_t t = perm[i];
            perm[i] = perm[j - 1];
            perm[j - 1] = t;
        }
#endif
    return rc;
}

static void fake_destroy(void *state)
{
    eddy_cpu_grid_backend()->destroy(state);
}

static const eddy_grid_backend_vtable fake_backend = {
    .size = sizeof(eddy_grid_backend_vtable),
    .create = fake_create,
    .sort = fake_sort,
    .destroy = fake_destroy,
};

static const eddy_component fake_component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_GRID,
    .id = "cuda",
    .version = "0.0.0",
    .description = "test double of the cuda grid (the CPU sort)",
    .vtable = &fake_backend,
};

static const eddy_component *const components[] = {&fake_component};

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = "fake_cuda_grid",
    .version = "0.0.0",
    .component_count = 1,
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void)
{
    return &descriptor;
}
