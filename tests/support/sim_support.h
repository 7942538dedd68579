/*
 * tests/support — what the physics suites of every solver share: opening scenes through the host's
 * session layer, the state hash after N steps, the linear-momentum check of a wall-free periodic box,
 * and the energy checks of a conserving pressure force. The Martin & Moyce (1952) surge-front
 * comparison is a validation case (validation/cases/dam_break_2d.json), run by tests/validate.
 * Failures end the current cmocka test.
 */
#ifndef EDDY_TEST_SIM_SUPPORT_H
#define EDDY_TEST_SIM_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"

#include <eddy_sph/kernels.h>

struct CMUnitTest;

/* Runs every test, or with a NAME argument only that one (so CTest can run and report each alone);
 * --list prints the names, one a line (tests/support/cases.cmake checks that CTest registers each). */
int support_run_tests(const char *program, int argc, char **argv, const struct CMUnitTest *tests, size_t count);

/* EDDY_SOURCE_DIR (set by CTest); exits with a message when it is missing. */
const char *support_source_dir(void);

/* A material of the given name, rest density (kg/m^3) and particle mass (kg), with a contact response
 * (radius 0.01, margin 0.001, erp 0.5) that worlds built by hand in tests share. */
eddy_material support_material(const char *name, float rest_density, float mass);

/* rm -rf: removes a file or a folder with everything in it (symbolic links are removed, not followed). */
void support_remove_tree(const char *path);

/* Opens scenes/<name> (solver: override or NULL; sets: --set strings; target: refill at about that
 * many particles, 0 = as is). */
void support_open_scene(const char *name, const char *solver, const char *const *sets, size_t nsets,
                        size_t target, eddy_sim *sim);
/* Opens a scene given as JSON text. */
void support_open_text(const char *text, const char *const *sets, size_t nsets, eddy_sim *sim);
void support_advance(eddy_sim *sim, double t);
void support_steps(eddy_sim *sim, int steps, double dt);

/* Takes `steps` steps of the scene's dt and returns the state hash (the sim stays open). */
uint64_t support_steps_hash(eddy_sim *sim, int steps);

/* State hash of scenes/<name> (solver override may be NULL; sets: --set strings, may be NULL with
 * nsets 0) refilled at `target` particles after `steps` steps of the scene's dt with `threads` OpenMP
 * threads. */
uint64_t support_hash_after(const char *name, const char *solver, const char *const *sets, size_t nsets,
                            size_t target, int threads, int steps);

/*
 * Gives every particle a pseudo-random velocity (fixed seed), takes `steps` steps of dt and returns
 * |net momentum change| / gross impulse (sum over steps and particles of m |dv|): round-off for a
 * momentum-conserving method in a wall-free periodic box. *gross receives the gross impulse.
 */
double support_momentum_ratio(eddy_sim *sim, int steps, double dt, double *gross);

/* Writes the --set string solvers.<solver>.pressure_force="<form>" into buf; returns buf. */
const char *support_pressure_force_set(char *buf, size_t size, const char *solver, const char *form);

/*
 * For each wall-free periodic scene in `texts` (JSON, described by `labels`) and each value of
 * solvers.<solver>.pressure_force in `forms`: 100 steps of 0.2 ms from pseudo-random velocities, the
 * figure printed, and a cmocka failure unless the gross impulse is positive and the net momentum change
 * under 1e-5 of it (support_momentum_ratio).
 */
void support_assert_momentum_conserved(const char *solver, const char *const *texts, const char *const *labels,
                                       size_t ntexts, const char *const *forms, size_t nforms);

/* Elastic energy per unit mass e(rho) of an equation of state, de/drho = p / rho^2 (J/kg, sim units);
 * eos: the callback's own constants. */
typedef double (*support_elastic_fn)(const void *eos, double rho);

/* Kinetic + potential (-m g.x) + scale * sum_i m_i e(rho_i): J, or J/m in 2D (sim units). */
double support_mechanical_energy(eddy_sim *sim, support_elastic_fn elastic, const void *eos, double scale);

/* The weight of the elastic energy a variational force with `kernel` (density and gradient) conserves:
 * its gradient scale over its density's rest scale, 1 / (lattice gradient moment x rest scale) of
 * material 0 (1.063 for Wendland C2 at h = 2 spacings in 2D). */
double support_elastic_weight(const eddy_world *w, eddy_sph_kernel kernel);

/*
 * Opens scenes/<name> (solver override may be NULL; sets: --set strings), takes one step of `dt` and
 * then samples kinetic + potential (-m g.x) + elastic energy every `every` seconds up to t_end, the
 * elastic part weighted by support_elastic_weight(kernel). Returns the
 * largest rise above the first sample relative to it; *final_ratio: the last sample over the first.
 * Prints one line with `label`.
 */
double support_energy_rise(const char *label, const char *name, const char *solver, const char *const *sets,
                           size_t nsets, double dt, double every, double t_end, eddy_sph_kernel kernel,
                           support_elastic_fn elastic, const void *eos, double *final_ratio);

/*
 * The energy check of a conserving pressure force against a control that is not: scenes/<name> with
 * `sets` plus `conserving` (one more --set) sampled every 5 ms with support_energy_rise over 0.2 s at
 * dt 5e-5 must never rise more than 1e-3 above its start and must end at least 0.97 of it (the walls'
 * response and the time step may only take energy away); with `control` in its place it must rise
 * more than 10% by 0.15 s, so that the check can fail. nsets <= 8.
 */
void support_assert_energy_bounded(const char *name, const char *solver, const char *const *sets, size_t nsets,
                                   const char *conserving, const char *control, eddy_sph_kernel kernel,
                                   support_elastic_fn elastic, const void *eos);

#endif
