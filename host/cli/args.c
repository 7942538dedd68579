#include "args.h"

#include "decomp.h"
#include "scene.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int eddy_arg_integer(const char *s, long long min, long long *out)
{
    char *end;
    /* strtoll skips leading white space, which a value with trailing white space does not get. */
    if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+')) return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min) return -1;
    *out = v;
    return 0;
}

int eddy_arg_real(const char *s, double *out)
{
    char *end;
    if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.')) return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* The first usage error of a process among several, said by main once the processes compared it. */
static char deferred[1024];
static int has_deferred;

int eddy_arg_usage_error(const char *fmt, ...)
{
    char msg[sizeof deferred];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (eddy_decomp_size() > 1) {
        if (!has_deferred) memcpy(deferred, msg, sizeof deferred);
        has_deferred = 1;
        return 2;
    }
    fprintf(stderr, "eddy: %s\nrun 'eddy help' for usage\n", msg);
    return 2;
}

const char *eddy_arg_deferred_usage_error(void)
{
    return has_deferred ? deferred : NULL;
}

int eddy_arg_integer_option(const char *opt, const char *v, long long min, long long max, long long *out)
{
    long long n = min;
    if (!eddy_arg_integer(v, min, &n) && n <= max) {
        *out = n;
        return 0;
    }
    if (max == LLONG_MAX) return eddy_arg_usage_error("%s expects an integer >= %lld, got '%s'", opt, min, v);
    return eddy_arg_usage_error("%s expects an integer in [%lld, %lld], got '%s'", opt, min, max, v);
}

int eddy_arg_threads(const char *v, int *out)
{
    long long n = 1;
    if (eddy_arg_integer_option("--threads", v, 1, 4096, &n)) return 2;
    *out = (int)n;
    return 0;
}

int eddy_arg_until(const char *v, double *out)
{
    double t = 0;
    if (eddy_arg_real(v, &t) || t < 0) return eddy_arg_usage_error("--until expects a time >= 0 in seconds, got '%s'", v);
    *out = t;
    return 0;
}

int eddy_arg_set(const char *v)
{
    eddy_error err = {0};
    if (eddy_scene_check_set(v, &err) == EDDY_OK) return 0;
    return eddy_arg_usage_error("%s", err.message);
}

int eddy_arg_bench_at(const char *s, double *out)
{
    double t;
    /* The clock is a double of seconds: beyond 1e9 s a bench would step for ever. */
    if (eddy_arg_real(s, &t) || t < 0 || t > 1e9)
        return eddy_arg_usage_error("--at expects a simulated time in seconds, 0 to 1e9, got '%s'", s);
    *out = t;
    return 0;
}

int eddy_arg_bench_from_conflict(const char *scene)
{
    /* A checkpoint holds its particles, solver and grid: a refill or an override would bench another
     * state than the one resumed. */
    if (scene)
        return eddy_arg_usage_error("bench takes a scene or --from DIR, not both (got the scene '%s')", scene);
    return eddy_arg_usage_error("bench --from DIR benches the checkpoint's own state: --solver, --grid, --set and "
                                "--particles are not for it%s", "");
}

int eddy_arg_value(const char *cmd, const char *const *takes_value, const char *opt, const char *v)
{
    const char *const *k = takes_value;
    while (*k && strcmp(*k, opt) != 0) ++k;
    if (!*k) return eddy_arg_usage_error("unknown option '%s' for %s", opt, cmd);
    if (!v) return eddy_arg_usage_error("option %s needs a value", opt);
    if (v[0] == '-' && v[1] == '-') return eddy_arg_usage_error("option %s needs a value, got the option '%s'", opt, v);
    return 0;
}

int eddy_arg_given_once(eddy_arg_once *seen, const char *opt, const char *v)
{
    for (int k = 0; k < seen->count; ++k)
        if (strcmp(seen->opt[k], opt) == 0)
            return eddy_arg_usage_error("option %s is given twice ('%s', then '%s')", opt, seen->value[k], v);
    if (seen->count < EDDY_ARG_ONCE_MAX) {
        seen->opt[seen->count] = opt;
        seen->value[seen->count++] = v;
    }
    return 0;
}

int eddy_arg_is_component_id(const char *v)
{
    size_t n = strlen(v);
    int ok = n > 0 && n < EDDY_SCENE_ID_MAX;
    for (const char *c = v; ok && *c; ++c) ok = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
    return ok;
}

int eddy_arg_component_id(const char *opt, const char *v)
{
    if (eddy_arg_is_component_id(v)) return 0;
    size_t n = strlen(v);
    if (n >= EDDY_SCENE_ID_MAX)
        return eddy_arg_usage_error("%s expects a component id (1 to %d characters of [a-z0-9_]), got %zu characters", opt,
                                    EDDY_SCENE_ID_MAX - 1, n);
    return eddy_arg_usage_error("%s expects a component id (1 to %d characters of [a-z0-9_]), got '%s'", opt,
                                EDDY_SCENE_ID_MAX - 1, v);
}

int eddy_arg_folder(const char *opt, const char *v)
{
    size_t n = strlen(v);
    if (n > 0 && n < EDDY_SCENE_PATH_MAX) return 0;
    if (n == 0) return eddy_arg_usage_error("%s expects a folder, got ''", opt);
    return eddy_arg_usage_error("%s expects a folder path of at most %d characters, got %zu", opt,
                                EDDY_SCENE_PATH_MAX - 1, n);
}
