/*
 * A program outside eddy driving a run through the installed session API (<eddy_host/session.h>,
 * linked as eddy::session): what docs/host.md shows a coupling code doing. Built by
 * tests/session/installed_api.sh against an installed, moved prefix only.
 *
 *   coupler SCENE STEPS DIR THREADS
 *
 * Steps SCENE to STEPS/2, writes DIR/half/checkpoint.eddy, steps on to STEPS, prints "hash: H"; then
 * kicks every particle's velocity by +0.01 in x between two steps of a second session and prints its
 * hash after STEPS ("kicked: H", with DIR/kicked/checkpoint.eddy written just after the kick), tries the refusals a program meets (a negative step count, a
 * checkpoint of a state with a NaN velocity over the good one in DIR/half) and prints their messages;
 * a third session turns gravity sideways halfway, checkpoints to DIR/tilted and prints "tilted: H".
 */
#include <eddy_host/session.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static int fail(const char *what, const eddy_error *err)
{
    fprintf(stderr, "coupler: %s: %s\n", what, err->message);
    return 1;
}

/* Adds dv to every particle's x velocity (the coupling code's own force, applied between steps). */
static int kick(eddy_session *s, float dv, eddy_error *err)
{
    eddy_field_view v = {.size = sizeof v};
    int rc = eddy_world_map_field(eddy_session_world(s), EDDY_FIELD_VELOCITY, EDDY_MAP_READ_WRITE, &v, err);
    if (rc) return rc;
    for (size_t i = 0; i < v.count; ++i) v.data[0][i] += dv;
    eddy_world_unmap_field(eddy_session_world(s), &v);
    return EDDY_OK;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: coupler SCENE STEPS DIR THREADS\n");
        return 2;
    }
    const long long steps = atoll(argv[2]);
    char half[4096];
    snprintf(half, sizeof half, "%s/half", argv[3]);
    mkdir(argv[3], 0777);
    mkdir(half, 0777);
    eddy_session_set_quiet(1);

    eddy_session_options o = eddy_session_default_options();
    o.scene_path = argv[1];
    o.threads = atoi(argv[4]);
    eddy_session *s;
    eddy_error err;
    uint64_t hash;
    if (eddy_session_open(&o, &s, &err)) return fail("open", &err);
    if (eddy_session_step(s, steps / 2, &err)) return fail("step", &err);
    if (eddy_session_checkpoint(s, half, NULL, &err)) return fail("checkpoint", &err);
    if (eddy_session_step(s, steps - steps / 2, &err)) return fail("step", &err);
    if (eddy_session_hash(s, &hash, &err)) return fail("hash", &err);
    printf("hash: %016llx\n", (unsigned long long)hash);

    if (eddy_session_step(s, -1, &err) == EDDY_OK) return fail("a negative step count was taken", &err);
    printf("negative: %s\n", err.message);
    eddy_field_view v = {.size = sizeof v};
    if (eddy_world_map_field(eddy_session_world(s), EDDY_FIELD_VELOCITY, EDDY_MAP_READ_WRITE, &v, &err))
        return fail("map", &err);
    v.data[1][0] = NAN;
    eddy_world_unmap_field(eddy_session_world(s), &v);
    if (eddy_session_checkpoint(s, half, NULL, &err) == EDDY_OK) return fail("a NaN state was checkpointed", &err);
    printf("nan: %s\n", err.message);
    eddy_session_close(s);

    /* A second session in the same process: the kick halfway, as a coupling code's force would be. */
    if (eddy_session_open(&o, &s, &err)) return fail("open again", &err);
    char kicked[4096];
    snprintf(kicked, sizeof kicked, "%s/kicked", argv[3]);
    mkdir(kicked, 0777);
    if (eddy_session_step(s, steps / 2, &err) || kick(s, 0.01f, &err) || eddy_session_checkpoint(s, kicked, NULL, &err) ||
        eddy_session_step(s, steps - steps / 2, &err) || eddy_session_hash(s, &hash, &err))
        return fail("kicked run", &err);
    printf("kicked: %016llx\n", (unsigned long long)hash);
    eddy_session_close(s);

    /* A third: gravity turned sideways halfway (a program's own forcing), then checkpointed. */
    char tilted[4096];
    snprintf(tilted, sizeof tilted, "%s/tilted", argv[3]);
    mkdir(tilted, 0777);
    if (eddy_session_open(&o, &s, &err)) return fail("open a third time", &err);
    if (eddy_session_step(s, steps / 2, &err)) return fail("tilted run", &err);
    eddy_session_world(s)->gravity[0] = 2.0f;
    if (eddy_session_checkpoint(s, tilted, NULL, &err) || eddy_session_step(s, steps - steps / 2, &err) ||
        eddy_session_hash(s, &hash, &err))
        return fail("tilted run", &err);
    printf("tilted: %016llx\n", (unsigned long long)hash);
    eddy_session_close(s);
    return 0;
}
