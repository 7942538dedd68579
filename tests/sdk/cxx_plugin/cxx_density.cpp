// cxx_density — a solver plugin written in C++, built by tests/sdk/install_and_build.sh against the
// installed SDK with eddy_add_plugin, as C++17 and as C++20, under -Wall -Wextra -pedantic -Werror.
//
// It checks what a C++ author relies on (docs/plugin-guide.md, "A plugin in C++"): the initializer
// macros of <eddy/params.h> and <eddy/world.h> and EDDY_PLUGIN_DESCRIPTOR_HEADER compile without a
// warning in either standard; the toolkit's inline passes compile as C++ with OpenMP (eddy_add_plugin
// must give C++ sources OpenMP's C++ flags, or these loops would run on one thread); the entry comes
// out unmangled. The method is deliberately small: density by summation (the toolkit's poly6 pass,
// walls' ghosts included), pressure p = k (rho - rho0) clamped at 0 as the template's, and particles
// that move under gravity alone. The script compares its frame-0 densities with sph_mueller's, which
// sums the same kernel over the same lattice.
#include <eddy/eddy.h>
#include <eddy_sph/sph.h>

#include <cmath>
#include <new>

#ifndef _OPENMP
#error "compiled without OpenMP: eddy_add_plugin did not give this C++ source OpenMP's flags"
#endif

namespace {

enum { P_CFL, P_COUNT };
const eddy_param_desc params[P_COUNT] = {
    EDDY_PARAM_REAL_DESC("cfl", 0.25, 0.01, 1.0, "1", "CFL number of the time-step limit."),
};
enum { M_STIFFNESS, M_INITIAL_SUM, M_COUNT };
const eddy_param_desc material_params[M_COUNT] = {
    EDDY_MATERIAL_STIFFNESS_DESC,
    EDDY_MATERIAL_INITIAL_SUM_DESC,
};

} // namespace

struct eddy_solver {
    float cfl = 0.25f;
    eddy_kernels kernels{};
    eddy_sph_materials materials{};
};

namespace {

struct density_ctx {
    const eddy_solver *s;
    const eddy_world *w;
    eddy_particles *p;
};

void density_finish(void *ctx, uint32_t i, float sum)
{
    const density_ctx *c = static_cast<const density_ctx *>(ctx);
    const uint32_t m = c->p->material[i];
    const float rho = eddy_sph_density(&c->s->kernels, sum, c->s->materials.self_density[m]);
    const float pr = c->s->materials.stiffness[m] * (rho - c->w->materials[m].rest_density);
    c->p->density[i] = rho;
    c->p->pressure[i] = pr > 0.0f ? pr : 0.0f;
}

void destroy(eddy_solver *s)
{
    if (!s) return;
    eddy_sph_materials_free(&s->materials);
    delete s;
}

int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    eddy_world *w = setup->world;
    eddy_solver *s = new (std::nothrow) eddy_solver;
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    s->cfl = static_cast<float>(setup->params->values[P_CFL].number);
    s->kernels = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    int rc = eddy_sph_materials_init(&s->materials, w, nullptr, &material_params[M_STIFFNESS],
                                     &material_params[M_INITIAL_SUM], nullptr, err);
    if (rc) {
        destroy(s);
        return rc;
    }
    *out = s;
    return EDDY_OK;
}

int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    density_ctx dc = {s, w, &w->particles};
    if (eddy_sph_density_pass(&w->grid, &w->particles, &w->boundaries, w->gravity, s->kernels.h, density_finish, &dc))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    return EDDY_OK;
}

int step(eddy_solver *s, eddy_world *w, double dt, eddy_error *err)
{
    int rc = compute_fields(s, w, err);
    if (rc) return rc;
    eddy_world_symplectic_euler(w, -1, static_cast<eddy_real>(dt));
    return EDDY_OK;
}

int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *)
{
    *dt = eddy_world_stable_dt(w, s->cfl, std::sqrt(eddy_sph_stiffness_max(&s->materials)), 0.0, 0.0, limit);
    return EDDY_OK;
}

// C++ before C++20 has no designated initializers: every member in declaration order.
const eddy_solver_vtable vtable = {sizeof(eddy_solver_vtable), create, step, destroy, max_dt, nullptr, nullptr,
                                   compute_fields, nullptr};
const eddy_component component = {sizeof(eddy_component), EDDY_INTERFACE_SOLVER, "cxx_density", "1.0.0",
                                  "density by summation under gravity (a C++ test plugin)", params, P_COUNT,
                                  &vtable, EDDY_COMPONENT_CONCURRENT_INSTANCES, material_params, M_COUNT};
const eddy_component *const components[] = {&component};
const eddy_plugin_descriptor descriptor = {EDDY_PLUGIN_DESCRIPTOR_HEADER, "cxx_density", "1.0.0", nullptr,
                                           nullptr, 1, components};

} // namespace

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
