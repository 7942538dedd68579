/*
 * A plugin with init() and deinit(), each of which appends a line "<PLUGIN_NAME> init host=<host
 * name>" / "<PLUGIN_NAME> deinit" to the file named by $EDDY_TEST_INIT_LOG (nothing when unset), so the
 * loader test can count them.
 *
 * Variants: INIT_FAIL (init() fails with a message; deinit() must then never run), REFUSED_AFTER_INIT
 * (init() succeeds, then a component is refused: deinit() runs at the refusal, and the valid component
 * before it is not registered).
 */
#include <eddy/eddy.h>

#include <stdio.h>
#include <stdlib.h>

#ifndef PLUGIN_NAME
#define PLUGIN_NAME "init_ok"
#endif

static void note(const char *what, const eddy_host *host)
{
    const char *path = getenv("EDDY_TEST_INIT_LOG");
    if (!path || !*path) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    if (host)
        fprintf(f, "%s %s host=%s\n", PLUGIN_NAME, what, host->name ? host->name : "(null)");
    else
        fprintf(f, "%s %s\n", PLUGIN_NAME, what);
    fclose(f);
}

static int init(const eddy_host *host, eddy_error *err)
{
    note("init", host);
#ifdef INIT_FAIL
    return eddy_error_set(err, EDDY_ERR_DEVICE, "no widget device found");
#else
    (void)err;
    return EDDY_OK;
#endif
}

static void deinit(void) { note("deinit", NULL); }

struct eddy_writer { int frames; };

static int writer_create(const eddy_writer_setup *setup, eddy_writer **out, eddy_error *err)
{
    (void)setup; (void)err;
    *out = calloc(1, sizeof **out);
    return *out ? EDDY_OK : EDDY_ERR_OUT_OF_MEMORY;
}

static int writer_write(eddy_writer *w, const eddy_frame *frame, eddy_error *err)
{
    (void)frame; (void)err;
    w->frames++;
    return EDDY_OK;
}

static void writer_destroy(eddy_writer *w) { free(w); }

static const eddy_writer_vtable writer_vtable = {
    .size = sizeof(eddy_writer_vtable), .create = writer_create, .write_frame = writer_write,
    .destroy = writer_destroy};

static const eddy_component writer = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_WRITER,
    .id = PLUGIN_NAME "_writer",
    .version = "1.0.0",
    .description = "counts frames",
    .vtable = &writer_vtable,
};

#ifdef REFUSED_AFTER_INIT
/* A writer that cannot write. */
static const eddy_writer_vtable broken_vtable = {
    .size = sizeof(eddy_writer_vtable), .create = writer_create, .destroy = writer_destroy};

static const eddy_component broken = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_WRITER,
    .id = PLUGIN_NAME "_broken_writer",
    .version = "1.0.0",
    .description = "has no write_frame",
    .vtable = &broken_vtable,
};

static const eddy_component *const components[] = {&writer, &broken};
#else
static const eddy_component *const components[] = {&writer};
#endif

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = PLUGIN_NAME,
    .version = "1.0.0",
    .init = init,
    .deinit = deinit,
    .component_count = sizeof components / sizeof components[0],
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
