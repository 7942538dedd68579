/*
 * host/scene/scene_memory.c — how much memory a fill may count on (scene_build.c refuses a scene that
 * cannot fit before it makes a particle): EDDY_MEMORY_BYTES when set, else the machine's memory, or
 * less where a cgroup of the process (or one above it) limits it: a batch job's or a container's.
 */
#include "scene_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A limit in bytes read from a cgroup file, or INFINITY ("max", no file, unreadable). */
static double cgroup_file_limit(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return INFINITY;
    double v = INFINITY;
    unsigned long long x;
    if (fscanf(f, "%llu", &x) == 1) v = (double)x; /* "max" (no limit) does not scan */
    fclose(f);
    return v;
}

/* The smallest limit of the cgroup at ROOT/path and every cgroup above it, FILE in each. */
static double cgroup_tree_limit(const char *root, const char *path, const char *file)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s%s", root, path) >= (int)sizeof dir) return INFINITY;
    double least = INFINITY;
    for (;;) {
        char at[4200];
        snprintf(at, sizeof at, "%s/%s", dir, file);
        least = fmin(least, cgroup_file_limit(at));
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < strlen(root)) break;
        *slash = '\0';
    }
    return least;
}

/* The process's own cgroups (/proc/self/cgroup): "0::PATH" (v2, memory.max) and "N:...memory...:PATH"
 * (v1, memory.limit_in_bytes), each with its ancestors. A limit set on a nested cgroup (a systemd
 * MemoryMax, a batch system's job) is not in the root's files. */
static double cgroup_limit(void)
{
    double least = fmin(cgroup_file_limit("/sys/fs/cgroup/memory.max"),
                        cgroup_file_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return least;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c2 = '\0';
        const char *controllers = c1 + 1, *path = c2 + 1;
        if (strcmp(line, "0") == 0 && *controllers == '\0')
            least = fmin(least, cgroup_tree_limit("/sys/fs/cgroup", path, "memory.max"));
        else if (strstr(controllers, "memory"))
            least = fmin(least, cgroup_tree_limit("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes"));
    }
    fclose(f);
    return least;
}

int scene_usable_memory(double *bytes, const char **source, eddy_error *err)
{
    const char *v = getenv("EDDY_MEMORY_BYTES");
    if (v && *v) {
        char *end;
        errno = 0;
        const double b = strtod(v, &end);
        if (end == v || *end || errno || !(b > 0) || !isfinite(b))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "environment variable EDDY_MEMORY_BYTES: expected a number of bytes > 0 (the "
                                  "memory a run may count on), got '%.40s'", v);
        *bytes = b;
        *source = "EDDY_MEMORY_BYTES gives";
        return EDDY_OK;
    }
    double mem = INFINITY;
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) mem = (double)pages * (double)page;
#endif
    const double limit = cgroup_limit();
    *bytes = fmin(mem, limit);
    *source = limit < mem ? "this process's cgroup allows" : "this machine has";
    return EDDY_OK;
}
