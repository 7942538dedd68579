/*
 * host/observe/probe_params.h — the keys the built-in probes share (probes_builtin.c, probe_force.c):
 * their parameter-table entries and the readers that check what a table cannot say (an axis the world
 * lacks, a point with too few numbers, a material the world lacks), each naming the probe's context
 * ("FILE:LINE:COL: probes[i]") and the key. Every reader is pure apart from writing its outputs and err.
 */
#ifndef EDDY_HOST_PROBE_PARAMS_H
#define EDDY_HOST_PROBE_PARAMS_H

#include <eddy/eddy.h>

#include <stdint.h>

/* "x", "y", "z", "-x", "-y", "-z", NULL: the choices of an axis key. */
extern const char *const eddy_probe_axes[];

#define EDDY_PROBE_AXIS_DESC(doc_) \
    {.size = sizeof(eddy_param_desc), .id = "axis", .type = EDDY_PARAM_ENUM, .flags = EDDY_PARAM_REQUIRED, \
     .def = 0, .unit = "", .doc = (doc_), .choices = eddy_probe_axes}
#define EDDY_PROBE_POINT_DESC(id_, doc_) \
    {.size = sizeof(eddy_param_desc), .id = (id_), .type = EDDY_PARAM_VECTOR, .flags = EDDY_PARAM_REQUIRED, \
     .def = 0.0, .min = -1e30, .max = 1e30, .unit = "m", .doc = (doc_)}
/* A string no longer than a material's name can be: a longer one can name no material. */
#define EDDY_PROBE_MATERIAL_DESC \
    {.size = sizeof(eddy_param_desc), .id = "material", .type = EDDY_PARAM_STRING, .flags = EDDY_PARAM_DERIVED, \
     .def = 0.0, .min = 0.0, .max = EDDY_MATERIAL_NAME_MAX - 1, .unit = "", \
     .doc = "Name of the one material measured (as in fluids[].material); default: every material."}

/* The probe's context for messages: setup->context, or its name where there is none. */
const char *eddy_probe_context(const eddy_probe_setup *s);

/* The axis key `id` ("x" ... "-z"): its index into *axis and +1 / -1 into *sign. The axis must exist in
 * a world of `dimensions` ("z" is refused in 2D). */
int eddy_probe_read_axis(const eddy_probe_setup *s, const char *id, int dimensions, int *axis, int *sign,
                         eddy_error *err);

/* A point with a number per dimension (world units; 3 accepted in 2D, z ignored), kept as float as the
 * scene's vectors are; 0 on the axes beyond `dimensions`. */
int eddy_probe_read_point(const eddy_probe_setup *s, const char *id, int dimensions, float out[3], eddy_error *err);

/* An optional length > 0; 0 in *out when unset (the default applies). */
int eddy_probe_read_positive(const eddy_probe_setup *s, const char *id, double *out, eddy_error *err);

/* The optional material, by name, resolved to its index in the world's table once: *one_material = 1
 * and *material its index when given; both untouched when not. A name the world lacks is refused with
 * the names it has, so that a misspelt material is not measured as an empty one without a word. */
int eddy_probe_read_material(const eddy_probe_setup *s, int *one_material, uint32_t *material, eddy_error *err);

#endif /* EDDY_HOST_PROBE_PARAMS_H */
