/*
 * The session C API (host/session/session.h), the way the Python package and the MPI work will use
 * it: a run driven through eddy_session_* reaches the state hash `eddy run` prints for the same scene,
 * its overrides land in the scene, its errors come back as the messages `eddy` prints, a checkpoint
 * written and resumed through it continues bit for bit, a program's checkpoint never replaces another
 * run's, and a cancel callback stops a plan. A child made by fork() cannot step, run or checkpoint its
 * parent's session (also from inside a callback of the parent's run), holds none of its parent's
 * output folders and leaves its writer thread alone (session.h, folder_lock.h and output_thread.h on
 * fork).
 *
 * Run as `test_session CHECK` (one CTest entry per check); EDDY_SOURCE_DIR and EDDY_EXE (the eddy
 * program) come from CTest.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "folder_lock.h"
#include "output_thread.h"
#include "session.h"
#include "sim_support.h"

#define STEPS 30

static char scene_path[4096];
static char tmp_dir[256];

static const char *env(const char *name)
{
    const char *v = getenv(name);
    if (!v) fail_msg("%s is not set (run through ctest)", name);
    return v ? v : ""; /* (fail_msg does not return; GCC cannot tell) */
}

static eddy_session *open_or_fail(const eddy_session_options *o)
{
    eddy_session *s = NULL;
    eddy_error e;
    eddy_error_clear(&e);
    if (eddy_session_open(o, &s, &e)) fail_msg("%s", e.message);
    return s;
}

/* Frames every 10 steps (dt 5e-5 s), so a plan of STEPS crosses several. */
static const char *const FRAME_SETS[] = {"time.output_interval=0.0005"};

static eddy_session_options tait_options(void)
{
    eddy_session_options o = eddy_session_default_options();
    o.scene_path = scene_path;
    o.sets = FRAME_SETS;
    o.set_count = 1;
    o.solver = "tait";
    o.threads = 2;
    o.out_dir = tmp_dir;
    return o;
}

static uint64_t hash_of(eddy_session *s)
{
    uint64_t h = 0;
    eddy_error e;
    if (eddy_session_hash(s, &h, &e)) fail_msg("%s", e.message);
    return h;
}

/* The hash `eddy run SCENE --solver tait --steps N --hash` prints. */
static uint64_t hash_of_eddy_run(int steps)
{
    char cmd[8192], line[256];
    snprintf(cmd, sizeof cmd,
             "'%s' run '%s' --solver tait --set time.output_interval=0.0005 --steps %d --threads 2 --hash --quiet --no-picture --format csv "
             "--out '%s/cli' 2>&1",
             env("EDDY_EXE"), scene_path, steps, tmp_dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    unsigned long long h = 0;
    int found = 0;
    while (fgets(line, sizeof line, p))
        if (sscanf(line, "state-hash: %llx", &h) == 1) found = 1;
    assert_int_equal(pclose(p), 0);
    assert_true(found);
    return (uint64_t)h;
}

typedef struct counts {
    int frames, steps, last_frame;
    uint64_t snapshot_count;
} counts;

static int count_frame(void *user, eddy_session *s, int frame, eddy_error *err)
{
    counts *c = user;
    eddy_frame f;
    int rc = eddy_session_snapshot(s, &f, err);
    if (rc) return rc;
    /* The snapshot is of this frame, its particles in increasing id order. */
    assert_int_equal(f.index, (uint64_t)frame);
    const eddy_particles *p = &f.world->particles;
    for (size_t k = 1; k < f.count; ++k) assert_true(p->id[f.order[k - 1]] < p->id[f.order[k]]);
    c->snapshot_count = f.count;
    eddy_session_snapshot_release(&f);
    c->frames++;
    c->last_frame = frame;
    return EDDY_OK;
}

static void count_step(void *user, eddy_session *s, double step_ms)
{
    (void)s;
    assert_true(step_ms >= 0);
    ((counts *)user)->steps++;
}

static void same_state_as_eddy_run(void **state)
{
    (void)state;
    eddy_session_options o = tait_options();
    eddy_session *s = open_or_fail(&o);
    counts c = {0};
    eddy_session_plan plan = {STEPS, NAN, count_frame, count_step, NULL, &c};
    int last = 0;
    eddy_error e;
    if (eddy_session_run(s, &plan, &last, &e)) fail_msg("%s", e.message);
    assert_int_equal(eddy_session_world(s)->step, STEPS);
    assert_int_equal(c.steps, STEPS);
    assert_int_equal(c.frames, STEPS / 10);
    assert_int_equal(c.last_frame, STEPS / 10);
    assert_int_equal(eddy_session_next_frame(s), c.last_frame + 1);
    assert_true(hash_of(s) == hash_of_eddy_run(STEPS));
    /* Already at the end: no step. */
    if (eddy_session_run(s, &plan, &last, &e)) fail_msg("%s", e.message);
    assert_int_equal(c.steps, STEPS);
    eddy_session_close(s);
}

static void overrides_apply(void **state)
{
    (void)state;
    static const char *const sets[] = {"time.dt=0.0004", "world.gravity=[0, -5]"};
    static const char *const formats[] = {"csv", "vtk"};
    eddy_session_options o = tait_options();
    o.sets = sets;
    o.set_count = 2;
    o.solver = "pbf";
    o.grid = "cpu";
    o.formats = formats;
    o.format_count = 2;
    eddy_session *s = open_or_fail(&o);
    const eddy_scene *sc = eddy_session_scene(s);
    assert_true(sc->dt == 0.0004);
    assert_true(sc->gravity[1] == -5.0f);
    assert_string_equal(sc->solver, "pbf");
    assert_string_equal(eddy_session_sim(s)->solver_entry->component->id, "pbf");
    assert_string_equal(sc->out_dir, tmp_dir);
    assert_int_equal(sc->format_count, 2);
    assert_string_equal(sc->formats[0], "csv");
    assert_string_equal(sc->formats[1], "vtk");
    /* The overrides are in the document too, so a checkpoint's embedded scene shows them. */
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(sc->root, "solver")->valuestring, "pbf");
    eddy_session_close(s);

    /* A scene given as text; an id that reads as JSON ("true") stays a string. */
    eddy_session_options t = eddy_session_default_options();
    t.scene_text = "{\"solver\": \"tait\", \"dimensions\": 2, \"time\": {\"dt\": 0.001, \"end\": 0.01},"
                   " \"world\": {\"smoothing_radius\": 0.1},"
                   " \"container\": {\"min\": [0, 0], \"max\": [1, 1]},"
                   " \"materials\": [{\"name\": \"w\", \"particle_spacing\": 0.05}],"
                   " \"fluids\": [{\"material\": \"w\", \"box\": {\"min\": [0, 0], \"max\": [0.3, 0.3]}}]}";
    t.out_dir = "true";
    s = open_or_fail(&t);
    assert_string_equal(eddy_session_scene(s)->out_dir, "true");
    assert_string_equal(eddy_session_scene(s)->file, "scene.json");
    eddy_error e;
    if (eddy_session_step(s, 3, &e)) fail_msg("%s", e.message);
    assert_int_equal(eddy_session_world(s)->step, 3);
    eddy_session_close(s);
}

/* Opening fails with exactly the message `eddy` prints after "eddy: error: ". */
static void expect_open_error(const eddy_session_options *o, int code, const char *text)
{
    eddy_session *s = (eddy_session *)1;
    eddy_error e;
    eddy_error_clear(&e);
    assert_int_equal(eddy_session_open(o, &s, &e), code);
    assert_null(s);
    if (!strstr(e.message, text)) fail_msg("message '%s' lacks '%s'", e.message, text);
}

static void errors_are_messages(void **state)
{
    (void)state;
    eddy_session_options o = tait_options();
    o.solver = "nope";
    char want[4200];
    /* (the option's id, not the file's: the file is not named) */
    snprintf(want, sizeof want, "unknown solver 'nope' (available: ");
    expect_open_error(&o, EDDY_ERR_NOT_FOUND, want);

    static const char *const bad_set[] = {"time.dt=-1"};
    o = tait_options();
    o.sets = bad_set;
    o.set_count = 1;
    expect_open_error(&o, EDDY_ERR_INVALID_ARGUMENT, "time.dt: expected a number > 0, got -1");

    o = eddy_session_default_options();
    o.scene_path = "/nonexistent/scene.json";
    expect_open_error(&o, EDDY_ERR_IO, "/nonexistent/scene.json");

    o = eddy_session_default_options();
    expect_open_error(&o, EDDY_ERR_INVALID_ARGUMENT, "session: no scene (give scene_path or scene_text)");

    eddy_session *s = NULL;
    eddy_error e;
    assert_int_equal(eddy_session_resume("/nonexistent/run", NULL, &s, &e), EDDY_ERR_NOT_FOUND);
    assert_null(s);
    assert_non_null(strstr(e.message, "/nonexistent/run/checkpoint.eddy"));
}

static void resume_is_bit_exact(void **state)
{
    (void)state;
    eddy_session_options o = tait_options();
    eddy_session *a = open_or_fail(&o);
    eddy_error e;
    if (eddy_session_step(a, 12, &e)) fail_msg("%s", e.message);
    char dir[300];
    snprintf(dir, sizeof dir, "%s/ck", tmp_dir);
    char cmd[700];
    /* (emptied: the checkpoint an earlier run of this test left there is another run's, refused) */
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
    if (eddy_session_checkpoint(a, dir, NULL, &e)) fail_msg("%s", e.message);
    const uint64_t at_checkpoint = hash_of(a);
    const int next_at_checkpoint = eddy_session_next_frame(a);
    if (eddy_session_step(a, STEPS - 12, &e)) fail_msg("%s", e.message);

    eddy_session *b = NULL;
    eddy_session_options r = eddy_session_default_options();
    r.threads = 2;
    if (eddy_session_resume(dir, &r, &b, &e)) fail_msg("%s", e.message);
    assert_true(hash_of(b) == at_checkpoint);
    assert_int_equal(eddy_session_next_frame(b), next_at_checkpoint);
    if (eddy_session_step(b, STEPS - 12, &e)) fail_msg("%s", e.message);
    assert_int_equal(eddy_session_world(b)->step, STEPS);
    assert_true(hash_of(a) == hash_of(b));
    assert_int_equal(eddy_session_next_frame(a), eddy_session_next_frame(b));
    /* And the same as one uninterrupted `eddy run`. */
    assert_true(hash_of(b) == hash_of_eddy_run(STEPS));
    eddy_session_close(a);
    eddy_session_close(b);
}

/* The whole content of PATH (malloc'd; *n its size), or a failed test. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open '%s'", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    const long size = ftell(f);
    assert_true(size > 0);
    rewind(f);
    char *buf = malloc((size_t)size);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return buf;
}

/* A program's own checkpoint (NULL settings) into a folder that holds another run's checkpoint, here
 * a second session of the same scene, replaced it, and that run could not be continued: refused with
 * the message Simulation.checkpoint gives, the other checkpoint left byte for byte; the first session
 * still replaces its own. */
static void checkpoint_refuses_another_runs(void **state)
{
    (void)state;
    char dir[300], cmd[1400], file[400];
    snprintf(dir, sizeof dir, "%s/theirs", tmp_dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(file, sizeof file, "%s/checkpoint.eddy", dir);
    eddy_session_options o = tait_options();
    eddy_session *first = open_or_fail(&o);
    eddy_error e;
    if (eddy_session_step(first, 4, &e) || eddy_session_checkpoint(first, dir, NULL, &e)) fail_msg("%s", e.message);
    size_t kept_size;
    char *kept = slurp(file, &kept_size);

    eddy_session *second = open_or_fail(&o);
    assert_string_not_equal(eddy_session_sim(second)->run_id, eddy_session_sim(first)->run_id);
    if (eddy_session_step(second, 2, &e)) fail_msg("%s", e.message);
    eddy_error_clear(&e);
    assert_int_equal(eddy_session_checkpoint(second, dir, NULL, &e), EDDY_ERR_IO);
    assert_int_equal(e.code, EDDY_ERR_IO);
    char want[EDDY_ERROR_MESSAGE_MAX];
    /* (4 steps of the scene's dt, 5e-5 s) */
    snprintf(want, sizeof want,
             "checkpoint: the folder '%s' holds the checkpoint of another run (step 4, t = 0.0002 s, run_id '%s'), "
             "which this one would replace, and that run could not be continued; checkpoint into another "
             "folder, or move it away", dir, eddy_session_sim(first)->run_id);
    assert_string_equal(e.message, want);
    size_t now_size;
    char *now = slurp(file, &now_size);
    assert_int_equal(now_size, kept_size);
    assert_memory_equal(now, kept, kept_size);
    free(now);

    /* Piece 0 of a split run's checkpoint is read as the run's. */
    char pieces[300];
    snprintf(pieces, sizeof pieces, "%s/pieces", tmp_dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp '%s' '%s/checkpoint.p0.eddy'", pieces, pieces, file,
             pieces);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(eddy_session_checkpoint(second, pieces, NULL, &e), EDDY_ERR_IO);
    snprintf(want, sizeof want, "checkpoint: the folder '%s' holds the checkpoint of another run (step 4, t = 0.0002 s, "
             "run_id '%s')", pieces, eddy_session_sim(first)->run_id);
    if (strncmp(e.message, want, strlen(want)) != 0) fail_msg("message '%s' does not start '%s'", e.message, want);
    snprintf(file, sizeof file, "%s/checkpoint.eddy", pieces);
    assert_int_equal(access(file, F_OK), -1);

    /* One that cannot be read is no less another run's work. */
    snprintf(cmd, sizeof cmd, "rm -f '%s/checkpoint.p0.eddy' && echo 'not a checkpoint' > '%s'", pieces, file);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(eddy_session_checkpoint(second, pieces, NULL, &e), EDDY_ERR_IO);
    snprintf(want, sizeof want, "checkpoint: the folder '%s' holds a checkpoint this one would replace, which cannot be "
             "read (", pieces);
    if (strncmp(e.message, want, strlen(want)) != 0 ||
        !strstr(e.message, "); checkpoint into another folder, or move it away"))
        fail_msg("message '%s' is not the unreadable checkpoint's", e.message);
    now = slurp(file, &now_size);
    assert_int_equal(now_size, strlen("not a checkpoint\n"));
    free(now);
    snprintf(file, sizeof file, "%s/checkpoint.eddy", dir);

    /* The first session's own checkpoint is replaced by its next one. */
    if (eddy_session_step(first, 3, &e) || eddy_session_checkpoint(first, dir, NULL, &e)) fail_msg("%s", e.message);
    eddy_session *resumed = NULL;
    eddy_session_options r = eddy_session_default_options();
    r.threads = 2;
    if (eddy_session_resume(dir, &r, &resumed, &e)) fail_msg("%s", e.message);
    assert_int_equal(eddy_session_world(resumed)->step, 7);
    assert_string_equal(eddy_session_sim(resumed)->run_id, eddy_session_sim(first)->run_id);
    /* ... and a session resumed from it replaces it too: the same run. */
    if (eddy_session_step(resumed, 1, &e) || eddy_session_checkpoint(resumed, dir, NULL, &e))
        fail_msg("%s", e.message);
    free(kept);
    eddy_session_close(resumed);
    eddy_session_close(second);
    eddy_session_close(first);
}

static int cancel_after_3(void *user)
{
    counts *c = user;
    return c->steps >= 3;
}

static void cancel_stops_the_plan(void **state)
{
    (void)state;
    eddy_session_options o = tait_options();
    eddy_session *s = open_or_fail(&o);
    counts c = {0};
    eddy_session_plan plan = {STEPS, NAN, NULL, count_step, cancel_after_3, &c};
    eddy_error e;
    assert_int_equal(eddy_session_run(s, &plan, NULL, &e), EDDY_ERR_INTERRUPTED);
    assert_int_equal(eddy_session_world(s)->step, 3);
    assert_non_null(strstr(e.message, "cancelled at step 3 (t = "));
    eddy_session_close(s);
}

/* ------------------------------------------------------------------------------------------------ */
/* fork(): the checks inside a child cannot use cmocka (a failed assert would go on with the next test  */
/* in the child); each returns its exit status, 0 when all is well, and says what failed on stderr.    */
/* ------------------------------------------------------------------------------------------------ */

/* The message the session API gives in a child forked from `parent`. */
static void fork_refusal(char *buf, size_t size, pid_t parent)
{
    snprintf(buf, size, "this simulation was opened by process %ld; a process forked from it (%ld) cannot step or "
             "write it; open a new session in the child", (long)parent, (long)getpid());
}

static int child_expect(int rc, const eddy_error *e, const char *what, pid_t parent)
{
    char want[EDDY_ERROR_MESSAGE_MAX];
    fork_refusal(want, sizeof want, parent);
    if (rc == EDDY_ERR_INVALID_ARGUMENT && e->code == EDDY_ERR_INVALID_ARGUMENT && strcmp(e->message, want) == 0)
        return 0;
    fprintf(stderr, "child: %s returned %d '%s', not %d '%s'\n", what, rc, rc ? e->message : "", EDDY_ERR_INVALID_ARGUMENT,
            want);
    return 1;
}

/* A child that steps the parent's session waits for ever on the parent's OpenMP threads, which it lacks:
 * SIGALRM ends it, and its status fails the test, before CTest's timeout. */
static void end_child_if_stuck(void)
{
    signal(SIGALRM, SIG_DFL);
    alarm(20);
}

/* 0, or the exit status that names the failure (128 + the signal that ended it). */
static int wait_child(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int child_steps_the_parents_session(eddy_session *s, pid_t parent, uint64_t hash, const char *dir)
{
    int bad = 0;
    eddy_error e;
    eddy_error_clear(&e);
    bad |= child_expect(eddy_session_step(s, 1, &e), &e, "eddy_session_step", parent);
    eddy_session_plan plan = {STEPS, NAN, NULL, NULL, NULL, NULL};
    int last = 1;
    eddy_error_clear(&e);
    bad |= child_expect(eddy_session_run(s, &plan, &last, &e), &e, "eddy_session_run", parent);
    eddy_error_clear(&e);
    bad |= child_expect(eddy_session_checkpoint(s, dir, NULL, &e), &e, "eddy_session_checkpoint", parent);
    char ck[400];
    snprintf(ck, sizeof ck, "%s/checkpoint.eddy", dir);
    if (access(ck, F_OK) == 0) {
        fprintf(stderr, "child: '%s' was written\n", ck);
        bad = 1;
    }
    /* Reading the copy works: the state is the parent's at the fork. */
    uint64_t h = 0;
    if (eddy_session_hash(s, &h, &e) || h != hash || eddy_session_world(s)->step != 2) {
        fprintf(stderr, "child: the copy reads another state (step %llu)\n",
                (unsigned long long)eddy_session_world(s)->step);
        bad = 1;
    }
    eddy_session_close(s); /* frees nothing here; must return */
    /* A session of the child's own steps, on one thread: OpenMP cannot start threads again here. */
    eddy_session_options o = tait_options();
    eddy_session *own = NULL;
    eddy_error_clear(&e);
    if (eddy_session_open(&o, &own, &e) || eddy_session_step(own, 2, &e) || eddy_session_world(own)->step != 2 ||
        eddy_session_sim(own)->threads != 1) {
        fprintf(stderr, "child: a session of its own: '%s', %d threads\n", e.message,
                own ? eddy_session_sim(own)->threads : 0);
        bad = 1;
    }
    eddy_session_close(own);
    return bad;
}

static void forked_child_cannot_step(void **state)
{
    (void)state;
    eddy_session_options o = tait_options();
    eddy_session *s = open_or_fail(&o);
    eddy_error e;
    if (eddy_session_step(s, 2, &e)) fail_msg("%s", e.message);
    const uint64_t at_fork = hash_of(s);
    char dir[300], cmd[700];
    snprintf(dir, sizeof dir, "%s/forked", tmp_dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
    const pid_t parent = getpid();
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        end_child_if_stuck();
        _exit(child_steps_the_parents_session(s, parent, at_fork, dir));
    }
    assert_int_equal(wait_child(pid), 0);
    /* The parent's session is as it was, and goes on. */
    assert_true(hash_of(s) == at_fork);
    if (eddy_session_step(s, 3, &e)) fail_msg("%s", e.message);
    assert_int_equal(eddy_session_world(s)->step, 5);
    if (eddy_session_checkpoint(s, dir, NULL, &e)) fail_msg("%s", e.message);
    eddy_session_close(s);
}

typedef struct fork_in_frame {
    pid_t parent, child; /* child: fork()'s value in this process (0 in the child), -2 before the fork */
    int frames;
} fork_in_frame;

static int fork_at_first_frame(void *user, eddy_session *s, int frame, eddy_error *err)
{
    (void)s;
    (void)frame;
    (void)err;
    fork_in_frame *f = user;
    f->frames++;
    if (f->child == -2) {
        fflush(NULL);
        f->child = fork();
        if (f->child == 0) end_child_if_stuck();
    }
    return EDDY_OK;
}

static void fork_in_a_callback_stops_the_child(void **state)
{
    (void)state;
    eddy_session_options o = tait_options();
    eddy_session *s = open_or_fail(&o);
    fork_in_frame f = {getpid(), -2, 0};
    eddy_session_plan plan = {STEPS, NAN, fork_at_first_frame, NULL, NULL, &f};
    int last = 1;
    eddy_error e;
    eddy_error_clear(&e);
    const int rc = eddy_session_run(s, &plan, &last, &e);
    if (f.child == 0) {
        /* The child: stopped after the callback, at the first frame (step 10), with the fork's error. */
        int bad = child_expect(rc, &e, "eddy_session_run (forked in on_frame)", f.parent);
        if (eddy_session_world(s)->step != 10 || f.frames != 1 || last) {
            fprintf(stderr, "child: went on to step %llu, %d frames, last %d\n",
                    (unsigned long long)eddy_session_world(s)->step, f.frames, last);
            bad = 1;
        }
        eddy_session_close(s);
        _exit(bad);
    }
    assert_true(f.child > 0);
    assert_int_equal(wait_child(f.child), 0);
    if (rc) fail_msg("%s", e.message);
    assert_int_equal(eddy_session_world(s)->step, STEPS);
    assert_int_equal(f.frames, STEPS / 10);
    assert_true(hash_of(s) == hash_of_eddy_run(STEPS));
    eddy_session_close(s);
}

/* 1 when nothing holds DIR's lock (a descriptor of its own, as another process takes it). */
static int folder_free(const char *dir)
{
    const int fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    const int ok = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return ok;
}

static void forked_child_lets_the_folder_go(void **state)
{
    (void)state;
    char dir[300], cmd[700];
    snprintf(dir, sizeof dir, "%s/locked", tmp_dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, tmp_dir);
    assert_int_equal(system(cmd), 0);
    eddy_folder_lock *lock = NULL;
    eddy_error e;
    /* (TIDY: a release that wrongly thought it held the folder would remove it, empty as it is) */
    if (eddy_folder_lock_take(dir, EDDY_FOLDER_MAKE_TIDY, NULL, &lock, &e)) fail_msg("%s", e.message);
    assert_true(eddy_folder_lock_holds(lock, dir));
    int said[2], hold[2];
    assert_int_equal(pipe(said), 0);
    assert_int_equal(pipe(hold), 0);
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(said[0]);
        close(hold[1]);
        /* The child holds nothing, and its release lets nothing of the parent's go. */
        const char held = eddy_folder_lock_holds(lock, dir) ? 'h' : '-';
        eddy_folder_lock_release(lock);
        char c;
        int ok = write(said[1], &held, 1) == 1;
        while (read(hold[0], &c, 1) > 0) {} /* until the parent lets it end */
        _exit(ok ? 0 : 1);
    }
    close(said[1]);
    close(hold[0]);
    char held = 0;
    assert_int_equal(read(said[0], &held, 1), 1);
    assert_int_equal(held, '-');
    /* The parent holds the folder after the child has closed (and released) its copies ... */
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(eddy_folder_lock_holds(lock, dir));
    assert_false(folder_free(dir));
    eddy_folder_lock *second = NULL;
    assert_int_equal(eddy_folder_lock_take(dir, EDDY_FOLDER_EXISTING, NULL, &second, &e), EDDY_ERR_IO);
    char want[EDDY_ERROR_MESSAGE_MAX];
    snprintf(want, sizeof want, "output folder '%s' is in use by another eddy run; wait for it to finish", dir);
    assert_string_equal(e.message, want);
    /* ... and lets it go at its release, the child alive (a file in it, so that the release keeps it). */
    char keep[400];
    snprintf(keep, sizeof keep, "%s/keep", dir);
    FILE *k = fopen(keep, "w");
    assert_non_null(k);
    fclose(k);
    eddy_folder_lock_release(lock);
    assert_int_equal(waitpid(pid, NULL, WNOHANG), 0);
    assert_true(folder_free(dir));
    if (eddy_folder_lock_take(dir, EDDY_FOLDER_MAKE, NULL, &second, &e)) fail_msg("%s", e.message);
    assert_true(eddy_folder_lock_holds(second, dir));
    eddy_folder_lock_release(second);
    close(hold[1]);
    close(said[0]);
    assert_int_equal(wait_child(pid), 0);
}

static int slow_job(void *arg, eddy_error *err)
{
    (void)arg;
    (void)err;
    usleep(200 * 1000);
    return EDDY_OK;
}

/* The writer thread of overlapped output (observe/output_thread.h) is not in a forked child: there a
 * wait fails at once and a stop returns without joining it (a join waited for ever). */
static void forked_child_leaves_the_writer_thread(void **state)
{
    (void)state;
    eddy_output_thread *t = NULL;
    eddy_error e;
    if (eddy_output_thread_start(&t, &e)) fail_msg("%s", e.message);
    eddy_output_thread_submit(t, slow_job, NULL); /* in flight at the fork */
    const pid_t parent = getpid();
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        end_child_if_stuck();
        char want[EDDY_ERROR_MESSAGE_MAX];
        snprintf(want, sizeof want, "the output writer thread runs in process %ld; a process forked from it (%ld) "
                 "cannot write through it", (long)parent, (long)getpid());
        eddy_error_clear(&e);
        const int rc = eddy_output_thread_wait(t, &e);
        int bad = rc != EDDY_ERR_IO || strcmp(e.message, want) != 0;
        if (bad) fprintf(stderr, "child: wait returned %d '%s', not '%s'\n", rc, e.message, want);
        eddy_output_thread_stop(t);
        _exit(bad);
    }
    assert_int_equal(wait_child(pid), 0);
    assert_int_equal(eddy_output_thread_wait(t, &e), EDDY_OK);
    eddy_output_thread_stop(t);
}

int main(int argc, char **argv)
{
    const int listing = argc > 1 && strcmp(argv[1], "--list") == 0; /* needs no environment */
    if (!listing) {
        snprintf(scene_path, sizeof scene_path, "%s/scenes/dam_break_2d.json", env("EDDY_SOURCE_DIR"));
        snprintf(tmp_dir, sizeof tmp_dir, "%s/session_out/%s", env("EDDY_BINARY_DIR"), argc > 1 ? argv[1] : "all");
    }
    const struct CMUnitTest all[] = {
        cmocka_unit_test(same_state_as_eddy_run), cmocka_unit_test(overrides_apply),
        cmocka_unit_test(errors_are_messages),    cmocka_unit_test(resume_is_bit_exact),
        cmocka_unit_test(checkpoint_refuses_another_runs),
        cmocka_unit_test(cancel_stops_the_plan),  cmocka_unit_test(forked_child_cannot_step),
        cmocka_unit_test(fork_in_a_callback_stops_the_child), cmocka_unit_test(forked_child_lets_the_folder_go),
        cmocka_unit_test(forked_child_leaves_the_writer_thread),
    };
    return support_run_tests("test_session", argc, argv, all, sizeof all / sizeof all[0]);
}
