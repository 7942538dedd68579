/*
 * host/scene/scene_vortices.h — initial vortices, the scene's top-level `vortices` (docs/scenes.md,
 * "Initial vortices"): 2D Gaussian (Lamb–Oseen) vortices and 3D thin vortex rings, put on the seeded
 * particles of a solver with a "vorticity" field; and the one Gaussian profile that the vortex cases
 * of `eddy validate` (drive/validate_vortex.c) sample on their own particles.
 */
#ifndef EDDY_HOST_SCENE_VORTICES_H
#define EDDY_HOST_SCENE_VORTICES_H

#include "scene.h"

/* omega = G / (pi a^2) exp(-r^2 / a^2) at r^2 = r2: a Gaussian vortex of circulation G (its integral
 * over the plane) and core radius a, Lamb–Oseen's delta (a^2 = 4 nu t; the standard deviation of the
 * Gaussian is a / sqrt 2). Also the core of a thin ring, r its distance to the ring's circle. Pure. */
double eddy_scene_gaussian_vorticity(double G, double a, double r2);

/* The number of entries of the scene's `vortices` (0 without the key). */
size_t eddy_scene_vortex_count(const eddy_scene *scene);

/*
 * Sets the "vorticity" field of every particle of w to the sum of the scene's vortices (simulation
 * units, 1/s; in 2D its z component). A particle carries the circulation of its lattice cell,
 * omega(x) s^d (s its fluid block's fill spacing), over the volume m / rho0 the solver gives it, so that
 * sum omega m / rho0 is the vortices' circulation to the lattice's quadrature error. For a world the
 * scene's fluid blocks have just filled (ids in fill order), after the solver's create() (which adds the
 * field) and before its compute_fields(); never on a resume, whose particles come with their vorticity.
 * No vortex: nothing is done. Vortices and no such field: EDDY_ERR_INVALID_ARGUMENT at the scene's
 * `vortices`, naming `solver` (the running solver's id). [main thread]
 */
int eddy_scene_apply_vortices(const eddy_scene *scene, eddy_world *w, const char *solver, eddy_error *err);

#endif /* EDDY_HOST_SCENE_VORTICES_H */
