/*
 * host/cli/args.h — reading command-line values, shared by the commands of `eddy` (main.c, compare.c), so
 * that every command accepts and refuses numbers the same way.
 */
#ifndef EDDY_HOST_ARGS_H
#define EDDY_HOST_ARGS_H

#include <eddy/eddy.h>

/* A whole decimal number >= min, the whole string: 0 and *out set, or -1 (out untouched). */
int eddy_arg_integer(const char *s, long long min, long long *out);

/* A finite real number, the whole string: 0 and *out set, or -1 (out untouched). */
int eddy_arg_real(const char *s, double *out);

/* The integer value `v` of option `opt` in [min, max] into *out (0), or the usage error printed (2):
 * "OPT expects an integer in [MIN, MAX], got 'V'" (">= MIN" when max is LLONG_MAX). */
int eddy_arg_integer_option(const char *opt, const char *v, long long min, long long max, long long *out);

/* --threads N: 1 to 4096 into *out (0), or the usage error printed (2). */
int eddy_arg_threads(const char *v, int *out);

/* --until T: a simulated time >= 0 in seconds into *out (0), or the usage error printed (2). */
int eddy_arg_until(const char *v, double *out);

/* Prints "eddy: MESSAGE" and the pointer to `eddy help` on stderr; returns 2, the exit status of a bad
 * command line. On several processes (mpirun) it keeps the first message instead, for main to say once
 * when every process has the same (eddy_arg_deferred_usage_error). */
int eddy_arg_usage_error(const char *fmt, ...) EDDY_PRINTF(1, 2);

/* The usage error kept on several processes, or NULL. */
const char *eddy_arg_deferred_usage_error(void);

/* The value of option `opt` of command `cmd`, whose options that take a value are `takes_value` (a
 * NULL-terminated list): 0 when opt is one of them and v a value, else the usage error printed (2):
 * an option the command does not have ("--qiuet" is unknown, not an option without its value), a
 * missing value, or another option ("--solvers --quiet" once ran with the solver "--quiet"). No value
 * starts with "--". */
int eddy_arg_value(const char *cmd, const char *const *takes_value, const char *opt, const char *v);

/* The options of one command line given so far that take a value and may be given once. */
#define EDDY_ARG_ONCE_MAX 32
typedef struct eddy_arg_once {
    const char *opt[EDDY_ARG_ONCE_MAX], *value[EDDY_ARG_ONCE_MAX];
    int count;
} eddy_arg_once;

/* 0 the first time option `opt` is given (kept with its value `v`), else the usage error printed (2):
 * "option OPT is given twice ('FIRST', then 'V')". A second --out or --steps replaced the first without a
 * word, so a command line put together by a script ran with whichever came last. */
int eddy_arg_given_once(eddy_arg_once *seen, const char *opt, const char *v);

/* --solver ID, --grid ID: a component id (1 to 63 characters of [a-z0-9_]) into 0, else the usage error
 * printed (2). The scene checks the key it replaces the same way, but named the scene file for it. */
int eddy_arg_component_id(const char *opt, const char *v);

/* Whether v is a component id (1 to 63 characters of [a-z0-9_]), the rule above, without a message. */
int eddy_arg_is_component_id(const char *v);

/* --out DIR, --cases DIR, --from DIR: a path of 1 to 4095 characters (0), else the usage error printed
 * (2). ("--cases ''" read '/cases'.) */
int eddy_arg_folder(const char *opt, const char *v);

/* The value of --set: 0 when it has the form PATH=VALUE with a key path (eddy_scene_check_set), else
 * the usage error printed (2). Whether the path names a key of the scene is the scene's to say (1). */
int eddy_arg_set(const char *v);

/* `eddy bench --at T`: a time >= 0 in seconds into *out (0), or the usage error printed (2). */
int eddy_arg_bench_at(const char *s, double *out);

/* `eddy bench --from DIR` with a scene, --solver, --grid, --set or --particles: the usage error (2).
 * `scene`: the scene argument given, or NULL. */
int eddy_arg_bench_from_conflict(const char *scene);

#endif /* EDDY_HOST_ARGS_H */
