/*
 * host/drive/unused_sets.c — see unused_sets.h.
 *
 * Depends on: scene.h (eddy_scene_set_has_effect), decomp.h (rank 0 speaks), services.h (--quiet).
 */
#include "unused_sets.h"

#include <stdio.h>

#include "decomp.h"
#include "services.h"

int eddy_drive_set_unused(const eddy_scene *scene, const eddy_registry *reg, const eddy_component *const *solvers,
                          size_t count, const char *set, char *why, size_t n)
{
    if (!count) return 0;
    char one[160] = "";
    for (size_t k = 0; k < count; ++k)
        if (eddy_scene_set_has_effect(scene, reg, solvers[k], set, one, sizeof one)) return 0;
    snprintf(why, n, "%s", count == 1 ? one : "no compared solver reads it");
    return 1;
}

void eddy_drive_warn_unused_sets(const eddy_scene *scene, const eddy_registry *reg,
                                 const eddy_component *const *solvers, size_t count, const char *const *sets,
                                 size_t set_count)
{
    if (!count || eddy_decomp_rank() != 0 || eddy_services_quiet()) return;
    for (size_t i = 0; i < set_count; ++i) {
        char why[160];
        if (eddy_drive_set_unused(scene, reg, solvers, count, sets[i], why, sizeof why))
            fprintf(stderr, "eddy: warning: --set '%s' has no effect on this run: %s\n", sets[i], why);
    }
}
