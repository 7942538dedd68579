/* What the fuzz targets share: one registry, quiet services, one thread, a scratch folder. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "services.h"

static int initialized;
static eddy_registry *registry;
static char scratch[512];
static pid_t owner; /* the process that made the folder (the replay's children share it) */

static void remove_scratch(void)
{
    if (getpid() != owner) return;
    char path[600];
    snprintf(path, sizeof path, "%s/checkpoint.eddy", scratch);
    remove(path);
    snprintf(path, sizeof path, "%s/checkpoint.eddy.tmp", scratch);
    remove(path);
    /* the manifest target's (fuzz_manifest.c), where its last input stopped early */
    snprintf(path, sizeof path, "%s/checkpoint.manifest", scratch);
    remove(path);
    for (int k = 0; k < EDDY_FUZZ_MAX_PIECES; ++k) {
        snprintf(path, sizeof path, "%s/checkpoint.p%d.eddy", scratch, k);
        remove(path);
    }
    rmdir(scratch);
}

void eddy_fuzz_init(void)
{
    if (initialized) return;
    initialized = 1;
    eddy_services_set_quiet(1);
    /* Threads would only make runs slower and less reproducible under the fuzzer's time limits. */
    eddy_services_set_threads(1);
    eddy_error err;
    eddy_error_clear(&err);
    if (eddy_services_registry(1, &registry, &err)) {
        fprintf(stderr, "eddy fuzz: no registry (%s); scenes are built without plugins\n", err.message);
        registry = NULL;
    }
    /* The checkpoint and manifest targets write files per input: keep them in memory where there is a tmpfs. */
    const char *base = "/dev/shm";
    struct stat st;
    if (stat(base, &st) != 0 || !S_ISDIR(st.st_mode) || access(base, W_OK) != 0) {
        base = getenv("TMPDIR");
        if (!base || !*base) base = "/tmp";
    }
    snprintf(scratch, sizeof scratch, "%s/eddy-fuzz-%ld", base, (long)getpid());
    if (mkdir(scratch, 0700) != 0 && access(scratch, W_OK) != 0) {
        fprintf(stderr, "eddy fuzz: cannot create the scratch folder '%s'\n", scratch);
        abort();
    }
    owner = getpid();
    atexit(remove_scratch);
}

const char *eddy_fuzz_scratch_dir(void)
{
    eddy_fuzz_init();
    return scratch;
}

eddy_registry *eddy_fuzz_registry(void)
{
    eddy_fuzz_init();
    return registry;
}

void eddy_fuzz_report(const char *target, int rc, const eddy_error *err, const char *what)
{
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("EDDY_FUZZ_VERBOSE") != NULL;
    if (!verbose) return;
    if (rc) fprintf(stderr, "%s: error %d: %s\n", target, rc, err->message);
    else fprintf(stderr, "%s: ok: %s\n", target, what ? what : "");
}
