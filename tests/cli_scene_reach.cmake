# Solids reaching into fluid blocks, and blocks past the container's walls (host/scene/scene_fluids.c,
# scene_colliders.c), through the command line with the user trial's commands; tests/test_scene_reach.c
# holds the depths and messages in detail. The depths are the shapes' own: 0.52 - 0.5 past the lid, and
# a disc of radius 0.04 centred 0.02 inside the block's face x = 0.2 reaching 0.06 into it.
set(REACH_SCENE ${CMAKE_CURRENT_SOURCE_DIR}/cli_scenes/obstacles_2d.json)
# A block through the lid was accepted (inside the domain, which widens the container by h) and its
# particles were thrown back at 43 m/s.
cli_test(scene_fluid_past_container_wall 1 "eddy: error: --set 'fluids[0].box.max=[0.2,0.52]': fluids[0].box: expected a block inside the container's walls, got one that reaches 0.02 past its wall at y = 0.5 (container.max), more than half its particle spacing of 0.01: particles would start outside the container"
         run ${REACH_SCENE} --threads 1 --out ${CLI_OUT}/reach_lid --set "fluids[0].box.min=[0,0.2]"
         --set "fluids[0].box.max=[0.2,0.52]" --steps 1)
# Touching the walls, or within half a spacing of them, runs.
cli_test(scene_fluid_at_container_wall 0 "obstacles_2d"
         run ${REACH_SCENE} --threads 1 --out ${CLI_OUT}/reach_touch --set "fluids[0].box.min=[-0.004,0.2]"
         --set "fluids[0].box.max=[0.2,0.5]" --steps 1)
# A disc moved into the block: the depth said was its radius, and the message named the file without
# a line instead of the override.
cli_test(scene_collider_centre_in_fluid 1 "eddy: error: --set 'colliders[1].center=[0.18,0.1]': colliders[1]: expected a solid clear of the fluid blocks, got one that would have to move 0.06 to clear fluids[0], more than half its particle spacing of 0.01: particles would start inside the solid"
         run ${REACH_SCENE} --threads 1 --out ${CLI_OUT}/reach_disc --set "colliders[1].center=[0.18,0.1]" --steps 1)
