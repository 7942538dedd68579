# Scene input limits (host/scene.c, the core lattice helpers).
