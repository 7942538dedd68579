#include "provenance.h"

#include <stdio.h>
#include <string.h>

#include <omp.h>

#include <eddy/plugin.h>
#include <eddy_sph/simd.h>

#include "decomp.h"
#include "eddy_build_info.h"

/* The first "model name" of /proc/cpuinfo, once (the same for the whole process). */
static const char *cpu_model(void)
{
    static char model[128];
    if (model[0]) return model;
    snprintf(model, sizeof model, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *v = strchr(line, ':');
        if (!v) continue;
        for (++v; *v == ' ' || *v == '\t'; ++v) {
        }
        snprintf(model, sizeof model, "%s", v);
        model[strcspn(model, "\n")] = '\0';
        break;
    }
    if (f) fclose(f);
    return model;
}

void eddy_provenance_read(eddy_provenance_facts *facts)
{
    eddy_sph_simd simd;
    eddy_error err;
    /* A bad EDDY_SIMD was refused before any solver ran; say so rather than name a path. */
    facts->simd = eddy_sph_simd_select(&simd, &err) ? "EDDY_SIMD invalid" : eddy_sph_simd_name(simd);
    facts->version = EDDY_VERSION;
    facts->abi_major = EDDY_ABI_MAJOR;
    facts->abi_minor = EDDY_ABI_MINOR;
    facts->threads = omp_get_max_threads();
    facts->processes = eddy_decomp_size();
    facts->commit = EDDY_BUILD_COMMIT;
    facts->compiler = EDDY_BUILD_COMPILER;
    facts->build_type = EDDY_BUILD_TYPE;
    facts->cpu = cpu_model();
}

void eddy_provenance(char *out, size_t size)
{
    eddy_provenance_facts f;
    eddy_provenance_read(&f);
    snprintf(out, size,
             "eddy %s (plugin ABI %d.%d; commit %s; %s, %s); SPH neighbour loops: %s path; CPU %s; %d thread%s; "
             "%d process%s",
             f.version, f.abi_major, f.abi_minor, f.commit, f.compiler, f.build_type, f.simd, f.cpu, f.threads,
             f.threads == 1 ? "" : "s", f.processes, f.processes == 1 ? "" : "es");
}

void eddy_sets_text(char *out, size_t size, const char *const *sets, size_t count)
{
    out[0] = '\0';
    for (size_t k = 0; k < count; ++k) {
        const size_t used = strlen(out);
        snprintf(out + used, size - used, "%s`--set %s`", k ? ", " : "", sets[k]);
    }
}
