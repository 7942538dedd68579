/*
 * A plugin built for a NEWER MAJOR (EDDY_ABI_MAJOR + 1). A new major may change everything but the
 * first three uint32 of the descriptor; this one keeps them and changes the rest: no `size` where 2.x
 * has it (a flags word instead, zero), no components where 2.x has them, and 8-byte reals. The host
 * must refuse it for its major, naming both versions; a host that looked at anything else first would
 * give another reason (real-number size, descriptor size), and the loader test would see it.
 */
#include <eddy/eddy.h>

typedef struct next_major_descriptor {
    uint32_t abi_major;
    uint32_t abi_minor;
    uint32_t real_size;
    uint32_t flags;                     /* where 2.x has `size` */
    const char *const *interface_ids;   /* where 2.x has `name` */
} next_major_descriptor;

static const char *const interface_ids[] = {"eddy.solver.3", NULL};

static const next_major_descriptor descriptor = {EDDY_ABI_MAJOR + 1, 0, sizeof(double), 0, interface_ids};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void)
{
    return (const eddy_plugin_descriptor *)(const void *)&descriptor;
}
