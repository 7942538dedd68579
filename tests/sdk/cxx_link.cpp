// Links a C++17 program against libeddy: the SDK's C symbols must have C linkage in C++.
#include <eddy/eddy.h>

#include <cstring>

// A C++ plugin's entry point must come out unmangled.
EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void);
const eddy_plugin_descriptor *eddy_plugin_entry(void) { return nullptr; }

int main()
{
    eddy_error err{};
    eddy_error_set(&err, EDDY_ERR_IO, "cannot open '%s'", "x");
    eddy_kernels k = eddy_kernels_make(1.0f, 3);
    const bool ok = std::strcmp(eddy_strerror(EDDY_ERR_IO), "input/output error") == 0 &&
                    err.code == EDDY_ERR_IO && std::strcmp(err.message, "cannot open 'x'") == 0 &&
                    k.h == 1.0f && eddy_plugin_entry() == nullptr;
    return ok ? 0 : 1;
}
