/*
 * A plugin with a component of an interface this host does not know ("acme.widget.1", an open kind,
 * plugin.h) beside a probe, which it does. The unknown one is registered and listed with its
 * interface, its vtable left as the plugin gave it; the probe is checked and copied as usual (its
 * optional unit() left out).
 *
 * Variants: BAD_INTERFACE_ID (an interface id outside [a-z0-9_.]+), NO_VTABLE (the unknown kind's
 * vtable is NULL). Each is refused, and with it the probe: a plugin is taken whole or not at all.
 */
#include <eddy/eddy.h>

#include <math.h>
#include <stdlib.h>

#ifndef PREFIX
#define PREFIX "acme"
#endif

#ifdef BAD_INTERFACE_ID
#define WIDGET_INTERFACE "Acme/Widget"
#else
#define WIDGET_INTERFACE "acme.widget.1"
#endif

/* The acme.widget.1 interface, as its (imaginary) header would declare it. */
typedef struct acme_widget_vtable {
    size_t size;
    int (*spin)(double rate, double *turns);
} acme_widget_vtable;

#ifndef NO_VTABLE
static int spin(double rate, double *turns)
{
    *turns = 2.0 * rate;
    return EDDY_OK;
}
#endif

#ifndef NO_VTABLE
static const acme_widget_vtable widget_vtable = {sizeof(acme_widget_vtable), spin};
#endif

static const eddy_component widget = {
    .size = sizeof(eddy_component),
    .interface_id = WIDGET_INTERFACE,
    .id = PREFIX "_widget",
    .version = "0.3.0",
    .description = "a widget of a kind the eddy host does not know",
#ifndef NO_VTABLE
    .vtable = &widget_vtable,
#endif
};

struct eddy_probe { int unused; };

static int probe_create(const eddy_probe_setup *setup, eddy_probe **out, eddy_error *err)
{
    (void)setup; (void)err;
    *out = calloc(1, sizeof **out);
    return *out ? EDDY_OK : EDDY_ERR_OUT_OF_MEMORY;
}

static int probe_measure(eddy_probe *probe, const eddy_frame *frame, double *value, eddy_error *err)
{
    (void)probe; (void)err;
    *value = frame ? (double)frame->count : NAN;
    return EDDY_OK;
}

static void probe_destroy(eddy_probe *probe) { free(probe); }

static const eddy_probe_vtable probe_vtable = {
    .size = sizeof(eddy_probe_vtable), .create = probe_create, .measure = probe_measure,
    .destroy = probe_destroy};

static const eddy_component probe = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_PROBE,
    .id = PREFIX "_count",
    .version = "0.3.0",
    .description = "the number of owned particles in a frame",
    .vtable = &probe_vtable,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES,
};

static const eddy_component *const components[] = {&probe, &widget};

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = "acme",
    .version = "0.3.0",
    .component_count = 2,
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
