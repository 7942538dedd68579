// Links a C++17 program against libeddy: the SDK's C symbols must have C linkage in C++, and the ABI 2
// structs must be usable from C++17 (no designated initializers there: members in order).
#include <eddy/eddy.h>

#include <cstring>

// A C++ plugin's entry point must come out unmangled.
EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void);
const eddy_plugin_descriptor *eddy_plugin_entry(void) { return nullptr; }

namespace {

int create(const eddy_solver_setup *, eddy_solver **out, eddy_error *)
{
    *out = nullptr;
    return EDDY_OK;
}
int step(eddy_solver *, eddy_world *, double, eddy_error *) { return EDDY_OK; }
void destroy(eddy_solver *) {}

const eddy_param_desc params[] = {
    {sizeof(eddy_param_desc), "gain", EDDY_PARAM_REAL, 0, 0.5, 0.0, 1.0, "1", "A gain.", nullptr, nullptr},
};
const eddy_solver_vtable vtable = {sizeof(eddy_solver_vtable), create, step, destroy,
                                   nullptr, nullptr, nullptr, nullptr, nullptr};
const eddy_component component = {sizeof(eddy_component), EDDY_INTERFACE_SOLVER, "cxx_solver", "1.0.0",
                                  "a solver written in C++", params, 1, &vtable,
                                  EDDY_COMPONENT_CONCURRENT_INSTANCES, nullptr, 0};

} // namespace

int main()
{
    eddy_error err{};
    eddy_error_set(&err, EDDY_ERR_IO, "cannot open '%s'", "x");
    eddy_kernels k = eddy_kernels_make(1.0f, 3);
    bool ok = std::strcmp(eddy_strerror(EDDY_ERR_IO), "input/output error") == 0 &&
              err.code == EDDY_ERR_IO && std::strcmp(err.message, "cannot open 'x'") == 0 &&
              k.h == 1.0f && eddy_plugin_entry() == nullptr;

    // The registry from C++: the built-in grid, and a component registered as a built-in.
    eddy_registry *reg = nullptr;
    if (eddy_registry_create(eddy_host_silent(), &reg, &err) != EDDY_OK) return 1;
    ok = ok && eddy_registry_find(reg, "cpu", EDDY_INTERFACE_GRID) != nullptr &&
         eddy_registry_add_builtin(reg, &component, "cxx_link", &err) == EDDY_OK;
    const eddy_registry_entry *e = eddy_registry_find(reg, "cxx_solver", EDDY_INTERFACE_SOLVER);
    ok = ok && e != nullptr && std::strcmp(eddy_interface_name(e->component->interface_id), "solver") == 0 &&
         std::strcmp(eddy_param_at(e->component->params, 0)->id, "gain") == 0 &&
         static_cast<const eddy_solver_vtable *>(e->component->vtable)->step == step;
    eddy_registry_destroy(reg);
    return ok ? 0 : 1;
}
