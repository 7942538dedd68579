/*
 * relocated_discover PREFIX: a program of its own (not `eddy`, and not in PREFIX/bin) linked against
 * PREFIX/lib/libeddy.so, run with EDDY_PLUGIN_PATH unset. eddy_registry_discover must find eddy's
 * solvers in PREFIX/lib/eddy/plugins, an installation moved away from the prefix it was configured
 * with, each once and nothing refused. Exits 0 when it does, 1 naming what is missing.
 */
#define _GNU_SOURCE /* realpath, PATH_MAX under -std=c11 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <eddy/registry.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: relocated_discover PREFIX\n");
        return 2;
    }
    char want[PATH_MAX], dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/lib/eddy/plugins", argv[1]);
    if (!realpath(dir, want)) {
        fprintf(stderr, "relocated_discover: %s: no such folder\n", dir);
        return 2;
    }
    eddy_registry *reg;
    eddy_error err;
    if (eddy_registry_create(NULL, &reg, &err)) {
        fprintf(stderr, "relocated_discover: %s\n", err.message);
        return 2;
    }
    eddy_registry_discover(reg);
    int bad = 0;
    static const char *const solvers[] = {"sph_mueller", "tait", "pbf", "vpm_hybrid"};
    for (size_t i = 0; i < sizeof solvers / sizeof solvers[0]; ++i) {
        const eddy_registry_entry *e = eddy_registry_find(reg, solvers[i], EDDY_INTERFACE_SOLVER);
        const size_t n = strlen(want);
        if (!e) {
            printf("relocated_discover: solver %s not found (looked for %s)\n", solvers[i], want);
            bad = 1;
        } else if (strncmp(e->file, want, n) != 0 || e->file[n] != '/') {
            printf("relocated_discover: solver %s came from %s, not from %s\n", solvers[i], e->file, want);
            bad = 1;
        } else {
            printf("relocated_discover: solver %s: %s\n", solvers[i], e->file);
        }
    }
    /* A folder reached by two routes scanned twice refuses each plugin as a duplicate of itself. */
    for (size_t i = 0; i < eddy_registry_refusal_count(reg); ++i) {
        const eddy_registry_refusal *r = eddy_registry_refusal_at(reg, i);
        printf("relocated_discover: refused %s: %s\n", r->file, r->reason);
        bad = 1;
    }
    eddy_registry_destroy(reg);
    return bad;
}
