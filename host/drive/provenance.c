#include "provenance.h"

#include <stdio.h>
#include <string.h>

#include <omp.h>

#include <eddy/plugin.h>
#include <eddy_sph/simd.h>

#include "decomp.h"

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
}

void eddy_provenance(char *out, size_t size)
{
    eddy_provenance_facts f;
    eddy_provenance_read(&f);
    snprintf(out, size, "eddy %s (plugin ABI %d.%d); SPH neighbour loops: %s path; %d thread%s; %d process%s",
             f.version, f.abi_major, f.abi_minor, f.simd, f.threads, f.threads == 1 ? "" : "s", f.processes,
             f.processes == 1 ? "" : "es");
}

void eddy_sets_text(char *out, size_t size, const char *const *sets, size_t count)
{
    out[0] = '\0';
    for (size_t k = 0; k < count; ++k) {
        const size_t used = strlen(out);
        snprintf(out + used, size - used, "%s`--set %s`", k ? ", " : "", sets[k]);
    }
}
