/*
 * host/drive/unused_sets.h — the warning for `--set` overrides that cannot change a run: a value for
 * another solver's or grid's section, or a material key the solver does not read. The scene accepts
 * them (one scene carries every method's settings), so a setting meant for one solver did nothing for
 * another without a word (a plugin's resume test then passed without testing its state).
 */
#ifndef EDDY_HOST_UNUSED_SETS_H
#define EDDY_HOST_UNUSED_SETS_H

#include <stddef.h>

#include <eddy/eddy.h>

#include "scene.h"

/*
 * Whether none of the `count` solvers can use the override `set` ("PATH=VALUE", valid) in a run of
 * `scene` (eddy_scene_set_has_effect for each): 1 with `why` (n bytes) saying so, that function's
 * reason for one solver and "no compared solver reads it" for several; else 0 (also for no solver).
 * The one rule for every caller that warns of such overrides: the commands (below) and the Python
 * package's Simulation and compare().
 */
int eddy_drive_set_unused(const eddy_scene *scene, const eddy_registry *reg, const eddy_component *const *solvers,
                          size_t count, const char *set, char *why, size_t n);

/*
 * Prints on stderr, once per override, on rank 0 only:
 *   "warning: --set 'PATH=VALUE' has no effect on this run: WHY"
 * for every one of `sets` that eddy_drive_set_unused finds unused, with its WHY. Nothing under --quiet
 * (eddy_services_quiet).
 */
void eddy_drive_warn_unused_sets(const eddy_scene *scene, const eddy_registry *reg,
                                 const eddy_component *const *solvers, size_t count, const char *const *sets,
                                 size_t set_count);

#endif /* EDDY_HOST_UNUSED_SETS_H */
