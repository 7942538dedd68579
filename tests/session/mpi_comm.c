/*
 * Two cases in one mpirun through the session API (eddy_session_set_mpi_comm): a program splits
 * MPI_COMM_WORLD's three processes into a case of two (ranks 0 and 1) and a case of one (rank 2), gives
 * each its communicator and runs a scene in each. Run by tests/session/mpi_comm.sh, which checks that
 * each case's hash equals `eddy run --hash` of its scene on one process.
 *
 *   mpi_comm SCENE_TWO SCENE_ONE STEPS
 *
 * Halfway each case writes its checkpoint to ./ckC (C: 0 or 1; the folders must exist): one file for
 * the case on one process, a piece per process and a manifest for the case on two.
 * Then both cases run SCENE_TWO with every owned particle's x velocity kicked halfway, and print "kicked
 * case C of N processes: state-hash H" (the two cases must agree); halfway, that new run's checkpoint
 * into ./ckC, which holds the first run's, must be refused on every process ("another run's
 * checkpoint: refused").
 * Prints, each line prefixed "rank R: ": the refusal before MPI_Init ("before init: ..."), for a handle
 * that is no communicator ("bad handle: ..."), with a session open on rank 2 alone ("one open: ...") and
 * on every process ("while open: ..."), and on every process "case C of N processes: state-hash H" (the
 * whole case's hash on each: it was its rank 0's alone).
 */
#include <eddy_host/session.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int world_rank;

static void say(const char *what, const char *message)
{
    printf("rank %d: %s: %s\n", world_rank, what, message);
    fflush(stdout);
}

static int fail(const char *what, const eddy_error *err)
{
    fprintf(stderr, "mpi_comm: rank %d: %s: %s\n", world_rank, what, err->message);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: mpi_comm SCENE_TWO SCENE_ONE STEPS\n");
        return 2;
    }
    eddy_error err, before;
    if (eddy_session_set_mpi_comm(0, &before) == EDDY_OK) {
        fprintf(stderr, "mpi_comm: a communicator was taken before MPI_Init\n");
        return 1;
    }

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    say("before init", before.message);
    int world_size;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size != 3) {
        fprintf(stderr, "mpi_comm: run me on 3 processes, not %d\n", world_size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    eddy_session_set_quiet(1);

    /* No communicator given: the session spans MPI_COMM_WORLD, and the program's own message on it, a
     * tag 0 from rank 2 to rank 0 pending while the session hashes, stays the program's. eddy's hash
     * chain passed its state on MPI_COMM_WORLD itself with tag 0 from the last rank to rank 0, took the
     * program's message for it (a wrong hash), and the program then got eddy's. */
    {
        eddy_session_options wo = eddy_session_default_options();
        wo.scene_path = argv[1];
        wo.threads = 1;
        eddy_session *ws;
        uint64_t wh = 0, mine[2] = {0x5eed, 100}, got[2] = {0, 0};
        if (eddy_session_open(&wo, &ws, &err) || eddy_session_step(ws, atoll(argv[3]), &err)) return fail("world", &err);
        if (world_rank == 2) MPI_Send(mine, 2, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
        if (eddy_session_hash(ws, &wh, &err)) return fail("world hash", &err);
        if (world_rank == 0) MPI_Recv(got, 2, MPI_UINT64_T, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank %d: world of 3 processes: state-hash %016llx\n", world_rank, (unsigned long long)wh);
        if (world_rank == 0) printf("rank 0: program's message: %llx %llu\n", (unsigned long long)got[0],
                                    (unsigned long long)got[1]);
        fflush(stdout);
        eddy_session_close(ws);
        /* Processes of one session that open different scenes are refused alike (they ran on to a hash
         * of neither): rank 1 alone with another time step. */
        const char *other[] = {"time.dt=0.0001"};
        if (world_rank == 1) wo.sets = other, wo.set_count = 1;
        if (eddy_session_open(&wo, &ws, &err) == EDDY_OK) return fail("different scenes were opened", &err);
        say("different scenes", err.message);
    }

    if (eddy_session_set_mpi_comm(-7, &err) == EDDY_OK) return fail("handle -7 was taken", &err);
    say("bad handle", err.message);
    if (eddy_session_set_mpi_comm((long long)MPI_Comm_c2f(MPI_COMM_NULL), &err) == EDDY_OK)
        return fail("MPI_COMM_NULL was taken", &err);
    say("null handle", err.message);

    /* A reason one process alone has is everyone's refusal: rank 2, running a case of one on
     * MPI_COMM_SELF, has a session open when all three ask for MPI_COMM_WORLD. (Refused on rank 2 alone,
     * ranks 0 and 1 waited in the duplication for ever.) */
    if (eddy_session_set_mpi_comm((long long)MPI_Comm_c2f(MPI_COMM_SELF), &err)) return fail("set MPI_COMM_SELF", &err);
    eddy_session *alone = NULL;
    eddy_session_options ao = eddy_session_default_options();
    ao.scene_path = argv[2];
    ao.threads = 1;
    if (world_rank == 2 && eddy_session_open(&ao, &alone, &err)) return fail("open alone", &err);
    if (eddy_session_set_mpi_comm((long long)MPI_Comm_c2f(MPI_COMM_WORLD), &err) == EDDY_OK)
        return fail("a communicator was taken while one process had a session open", &err);
    say("one open", err.message);
    eddy_session_close(alone);

    /* Each case on a communicator of its own; the program frees its handle at once, eddy keeps a
     * duplicate. */
    const int color = world_rank < 2 ? 0 : 1;
    MPI_Comm mine;
    MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &mine);
    int rank, size;
    MPI_Comm_rank(mine, &rank);
    MPI_Comm_size(mine, &size);
    if (eddy_session_set_mpi_comm((long long)MPI_Comm_c2f(mine), &err)) return fail("set communicator", &err);
    MPI_Comm_free(&mine);

    eddy_session_options o = eddy_session_default_options();
    o.scene_path = argv[1 + color];
    o.threads = 1;
    eddy_session *s;
    if (eddy_session_open(&o, &s, &err)) return fail("open", &err);
    if (eddy_session_set_mpi_comm((long long)MPI_Comm_c2f(MPI_COMM_WORLD), &err) == EDDY_OK)
        return fail("a communicator was taken with a session open", &err);
    say("while open", err.message);
    uint64_t hash = 0;
    const long long steps = atoll(argv[3]);
    char ck[32];
    snprintf(ck, sizeof ck, "ck%d", color);
    if (eddy_session_step(s, steps / 2, &err) || eddy_session_checkpoint(s, ck, NULL, &err) ||
        eddy_session_step(s, steps - steps / 2, &err))
        return fail("step", &err);
    if (eddy_session_hash(s, &hash, &err)) return fail("hash", &err);
    printf("rank %d: case %d of %d processes: state-hash %016llx\n", world_rank, color, size, (unsigned long long)hash);
    fflush(stdout);
    eddy_session_close(s);

    /* Both cases again on SCENE_TWO, its particles' x velocity kicked by +0.01 halfway, on the owned
     * particles only (the halo copies are the neighbours', docs/host.md): the case on two processes
     * must end where the case on one does. The copies kept the values of before the kick for the next
     * step, and the two differed. */
    o.scene_path = argv[1];
    if (eddy_session_open(&o, &s, &err) || eddy_session_step(s, steps / 2, &err)) return fail("open to kick", &err);
    /* This new run's checkpoint into the case's folder, which holds the first run's: refused on every
     * process alike (the case's first process alone reads the folder), the first run's left for
     * mpi_comm.sh to resume. */
    char want[160];
    snprintf(want, sizeof want, "checkpoint: the folder '%s' holds the checkpoint of another run (step %lld, ", ck,
             steps / 2);
    const int refused = eddy_session_checkpoint(s, ck, NULL, &err);
    if (refused == EDDY_OK) snprintf(err.message, sizeof err.message, "was replaced");
    if (refused != EDDY_ERR_IO || strncmp(err.message, want, strlen(want)) != 0 ||
        !strstr(err.message, "which this one would replace, and that run could not be continued"))
        return fail("another run's checkpoint", &err);
    say("another run's checkpoint", "refused");
    eddy_world *w = eddy_session_world(s);
    eddy_field_view v = {.size = sizeof v};
    if (eddy_world_map_field(w, EDDY_FIELD_VELOCITY, EDDY_MAP_READ_WRITE, &v, &err)) return fail("map", &err);
    for (size_t i = 0; i < v.count; ++i)
        if (!eddy_particle_is_halo(&w->particles, i)) v.data[0][i] += 0.01f;
    eddy_world_unmap_field(w, &v);
    if (eddy_session_step(s, steps - steps / 2, &err) || eddy_session_hash(s, &hash, &err)) return fail("kicked", &err);
    printf("rank %d: kicked case %d of %d processes: state-hash %016llx\n", world_rank, color, size,
           (unsigned long long)hash);
    eddy_session_close(s);
    MPI_Finalize();
    return 0;
}
