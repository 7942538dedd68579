# Scene input limits (host/scene/, the core lattice helpers).
#
# Each case loads a shipped scene with one --set and expects a refusal naming the key and the values,
# within the test's TIMEOUT: before the fixes these hung (lattice sums of (2 h / spacing + 1)^d terms,
# a sphere counted point by point), overflowed an int, or silently built another particle count.
# `--steps 0` stops right after loading.

# scene_limit(<name> <status> <text> <args...>): expect.sh, TIMEOUT 30.
function(scene_limit name status text)
  add_test(NAME robust_scene_${name} COMMAND ${EXPECT} ${status} "${text}" ${EDDY_EXE} ${ARGN})
  set_tests_properties(robust_scene_${name} PROPERTIES TIMEOUT 30 ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")
endfunction()

set(SCENE_LIMIT_RUN --steps 0 --quiet --no-picture --out ${ROBUST_OUT}/scene_limits)

# h / spacing = 1e5 / 0.0025: hung in the scene parser (and overflowed int in the lattice sum).
scene_limit(smoothing_radius_huge 1
  "dam_break_2d.json:10:66: materials[0].particle_spacing: expected a spacing of at least world.smoothing_radius / 32 = 3125 (at most 32 spacings per smoothing radius), got 0.0025 (h / spacing = 4e+07)"
  run ${SCENES}/dam_break_2d.json --set world.smoothing_radius=1e5 ${SCENE_LIMIT_RUN})
# The same in 3D, where the hang started at h / spacing of about 100.
scene_limit(smoothing_radius_3d 1
  "materials[0].particle_spacing: expected a spacing of at least world.smoothing_radius / 32 = 0.0625 (at most 32 spacings per smoothing radius), got 0.014 (h / spacing = 142.857)"
  run ${SCENES}/dam_break_3d.json --set world.smoothing_radius=2 ${SCENE_LIMIT_RUN})
# A mass so small that its rest spacing is 1e-6 of h: hung deriving the spacing from the mass.
scene_limit(particle_mass_tiny 1
  "materials[0].particle_mass: expected a mass whose rest spacing is at least world.smoothing_radius / 32 = 0.00015625 (at most 32 spacings per smoothing radius), got 1e-12 (rest spacing about 3.16228e-08, h / spacing about 158114)"
  run ${SCENES}/dam_break_2d.json --set "materials[0]={\"name\":\"water\",\"particle_mass\":1e-12}" ${SCENE_LIMIT_RUN})
# A spacing of 2 h built 4x the particles the count promised (the world re-derived the spacing).
scene_limit(particle_spacing_above_h 1
  "materials[0].particle_spacing: expected a spacing below world.smoothing_radius = 0.005 (the kernel must reach the nearest neighbours for the density sum to fix the particle mass), got 0.01"
  run ${SCENES}/dam_break_2d.json --set materials[0].particle_spacing=0.01 ${SCENE_LIMIT_RUN})
# A sphere of r = 100 at spacing 0.0025: about 5e9 particles, counted point by point for many minutes.
scene_limit(sphere_too_many_2d 1
  "fluids[0].sphere: expected at most 4294967295 particles in all, got at least "
  run ${SCENES}/dam_break_2d.json --set domain.out_of_domain=remove
  --set "fluids[0]={\"material\":\"water\",\"sphere\":{\"center\":[0.3,0.15],\"radius\":100}}" ${SCENE_LIMIT_RUN})
scene_limit(sphere_too_many_3d 1
  "fluids[0].sphere: expected at most 4294967295 particles in all, got at least "
  run ${SCENES}/dam_break_3d.json --set domain.out_of_domain=remove
  --set "fluids[0]={\"material\":\"water\",\"sphere\":{\"center\":[0,0,0],\"radius\":100}}" ${SCENE_LIMIT_RUN})
# Parameters under a misspelled solver id are refused, naming the id.
scene_limit(misspelled_solver_section 1
  "solvers.sph_muller: unknown solver 'sph_muller', expected one of the registered solvers: "
  run ${SCENES}/dam_break_2d.json --set solvers.sph_muller.cfl=-5 ${SCENE_LIMIT_RUN})
# A container 5000 m tall around a 0.6 m dam break: 2.9e8 grid cells (2.3 GB of cell ranges) for 20580
# particles were allocated and swept every step (the fuzzer's 1e5 m variant asked for 15 GB).
scene_limit(grid_cells_per_particle 1
  "dam_break_3d.json: domain: 1.656 x 0.656 x 5000.06 (world units) at smoothing_radius 0.028 gives 287864512 grid cells (2.3 GB of cell ranges) for 20580 particles; at most 134217728 are allowed (64 per particle, at least 2^27): use a smaller container or domain, or a larger smoothing radius"
  run ${SCENES}/dam_break_3d.json --set "container.max=[1.6,0.6,5000]" ${SCENE_LIMIT_RUN})
# A key spelled with '.' or '[' was read by the locator as a path of several keys and had no position:
# the message lost its LINE:COLUMN while every other key's had one. Both kinds of keys checked at
# build time (a material's solver parameters, a solver section).
set(SCENE_KEYS ${PROJECT_SOURCE_DIR}/tests/scene_keys)
scene_limit(material_key_with_dot 1
  "material_key_with_dot.json:8:50: materials[0].visc.osity: unknown key, expected one of: name, "
  run ${SCENE_KEYS}/material_key_with_dot.json ${SCENE_LIMIT_RUN})
scene_limit(solver_key_with_dot 1
  "solver_key_with_dot.json:13:33: solvers.sph_mueller.c.fl: unknown key, expected one of: cfl, "
  run ${SCENE_KEYS}/solver_key_with_dot.json ${SCENE_LIMIT_RUN})
