/*
 * host/observe/probe_force.h — the built-in "force" and "moment" probes, components of interface
 * EDDY_INTERFACE_PROBE listed with the others (probes_builtin.c). Their parameter tables are the whole
 * definition of their keys in a scene's "probes" entries (`eddy describe force`, `eddy describe moment`).
 *
 *   force     the force the liquid's pressure exerts on one surface, F = -∮ p n dA over the wetted
 *             surface (n: the surface's normal out of the solid), component `axis` ("x" ... "-z"). The
 *             surface is a container wall (`wall`: "-x", "+x", "-y", ...) or one of the scene's
 *             colliders (`collider`: its index in the scene's list). Samples a quarter of the smoothing
 *             radius apart over the surface (midpoint rule; a sphere's are of equal area); at each, the
 *             "pressure" field's linear least-squares fit over the particles within three smoothing
 *             radii on the liquid's side, weights V (1 - r^2 / R^2), wide and even enough to average
 *             the layer-to-layer alternation of a solver's pressure at a wall (Shepard's average where
 *             they do not span the
 *             dimensions), 0 where none is near (a dry surface: the fields are gauge pressures) or where
 *             the sample lies inside another solid. Pressure forces only: no viscous shear. A solver
 *             without a pressure field reads 0. Units: the pressure's times world area, N (N/m
 *             per unit depth in 2D) where simulation_scale is 1.
 *   moment    the moment of that pressure about the point `about` (world units), M = ∮ (x - about) x
 *             (-p n) dA over the same samples with the same fits, component `axis` (right-handed;
 *             required in 3D; in 2D only "z" or "-z", the default "z", counterclockwise seen from +z).
 *             Keys `wall`, `collider` and `material` as the force's. M / F with a force probe on the
 *             same surface is the centre of pressure (a wall's under a hydrostatic column: H / 3 above
 *             its foot). Units: N m (N m/m per unit depth in 2D) where simulation_scale is 1.
 *
 * Not a sum over particles (a ratio per sample): on several processes each is measured on the particles
 * gathered to rank 0, as a plugin's probe. Independent of storage order (the particles near the surface
 * are visited in cell and id order). O(N) to find the particles within 3 h of the surface, then
 * O(samples (log M + neighbours)) over the wetted part, M the particles near the surface; a sample that
 * is wet also checks every other collider (whether it lies inside one).
 */
#ifndef EDDY_HOST_PROBE_FORCE_H
#define EDDY_HOST_PROBE_FORCE_H

#include <eddy/eddy.h>

extern const eddy_component eddy_probe_force_component;
extern const eddy_component eddy_probe_moment_component;

#endif /* EDDY_HOST_PROBE_FORCE_H */
