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
 * Prints on stderr, once per override, on rank 0 only:
 *   "warning: --set 'PATH=VALUE' has no effect on this run: WHY"
 * for every one of `sets` that none of the `count` solvers can use (eddy_scene_set_has_effect), WHY
 * that function's reason for one solver and "no compared solver reads it" for several. Nothing
 * under --quiet (eddy_services_quiet).
 */
void eddy_drive_warn_unused_sets(const eddy_scene *scene, const eddy_registry *reg,
                                 const eddy_component *const *solvers, size_t count, const char *const *sets,
                                 size_t set_count);

#endif /* EDDY_HOST_UNUSED_SETS_H */
