/*
 * host/drive/energy_watch.h — the one rule by which `eddy run`, `eddy compare` and `eddy validate` tell
 * a run that made energy: E_k + E_p at each frame against the first, a rise of more than half the
 * mechanical energy above the container's floor at the start. The three commands share the rule, so a
 * run judged by it is judged alike; what they judge may still differ (compare and validate sample at
 * their own intervals, validate runs the SSE2 path and the case's settings).
 */
#ifndef EDDY_DRIVE_ENERGY_WATCH_H
#define EDDY_DRIVE_ENERGY_WATCH_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "diagnostics.h"
#include "scene.h"

struct eddy_sim;

/* Zeroed before the first frame. */
typedef struct eddy_energy_watch {
    int state;            /* 0 first frame to come, 1 watching, -1 off (energy may rightly enter: a collider
                           * with a velocity, gravity along a periodic axis, a particle removed; or nothing
                           * above the floor to scale by) */
    double start;         /* E_k + E_p at the first frame */
    double above_floor;   /* the mechanical energy above the floor then: the rule's scale */
    double rise, rise_time; /* the largest E_k + E_p - start so far (0 until it rose), and its time (s) */
    double particles;     /* the first frame's count: fewer later, one was removed */
    int stopped;          /* a particle was removed: no frame counts from then on, but a rise already seen
                           * stays (a run that blew up and then lost particles made energy all the same) */
} eddy_energy_watch;

/* One frame's diagnostics (of every particle of the run) at time t. */
void eddy_energy_watch_frame(eddy_energy_watch *ew, const struct eddy_sim *sim, const eddy_diagnostics *d,
                             double t);
/* Whether the run made energy by the rule (watching, and the rise beyond half the energy above the floor). */
int eddy_energy_watch_made(const eddy_energy_watch *ew);
/* The rise over the energy above the floor (NaN when not watching). */
double eddy_energy_watch_ratio(const eddy_energy_watch *ew);
/* The warning's sentence, "the energy E_k + E_p rose by ... docs/compare.md)", without "eddy: warning: ". */
void eddy_energy_watch_describe(const eddy_energy_watch *ew, const eddy_scene *scene, char *out, size_t size);
/* The watch as a checkpoint's settings keep it ("energy_watch"), so that a resumed run is judged against
 * the run's start, not the checkpoint's (a resume after a full disk warned of the rise since the
 * checkpoint as if from the start). NULL when out of memory. */
cJSON *eddy_energy_watch_to_json(const eddy_energy_watch *ew);
/* Back from the settings: 0 and *ew set when `o` is such an object, -1 (ew untouched) otherwise. */
int eddy_energy_watch_from_json(eddy_energy_watch *ew, const cJSON *o);
/* "eddy: warning: [WHO: ]<the sentence>" on stderr when the run made energy (who NULL: no name). */
void eddy_energy_watch_warn(const eddy_energy_watch *ew, const eddy_scene *scene, const char *who);

#endif /* EDDY_DRIVE_ENERGY_WATCH_H */
