/*
 * host/viz/render_movie.c — `--movie`: ffmpeg joins the rendered frames into OUT/movie.mp4.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "composite.h"
#include "output.h"
#include "render_internal.h"
#include "services.h"

extern char **environ;

/* ---------------------------------------------------------------------------------------------- */
/* Movie                                                                                            */

/* The first executable `name` on PATH, into out; 0 when there is none. */
static int find_on_path(const char *name, char *out, size_t size)
{
    const char *path = getenv("PATH");
    if (!path) return 0;
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        /* An empty entry means the current folder, as the shell has it. */
        if (snprintf(out, size, "%.*s/%s", (int)(len ? len : 1), len ? path : ".", name) < (int)size) {
            struct stat st;
            if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0) return 1;
        }
        path += len;
        if (*path == ':') ++path;
    }
    return 0;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The last non-empty line of a text file (ffmpeg's final complaint), or "". */
static void last_line(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = '\0';
        if (n) snprintf(out, size, "%s", line);
    }
    fclose(f);
}

int eddy_render_finish(eddy_renderer *r, eddy_error *err)
{
    /* Several processes render every frame together; rank 0 writes them, so it alone joins them. */
    if (!r || !r->movie || !r->frames || eddy_viz_rank() != 0) return EDDY_OK;
    char movie[PREFIX_MAX + 4096], tmp[PREFIX_MAX + 4200], pattern[PREFIX_MAX + 4200], log[PREFIX_MAX + 4200];
    snprintf(movie, sizeof movie, "%s/movie.mp4", r->out_dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", movie);
    snprintf(pattern, sizeof pattern, "%s/frame_%%05d.png", r->render_dir);
    snprintf(log, sizeof log, "%s/ffmpeg.log", r->render_dir);
    char ffmpeg[4096];
    if (!find_on_path("ffmpeg", ffmpeg, sizeof ffmpeg))
        return eddy_error_set(err, EDDY_ERR_NOT_FOUND,
                              "cannot write '%s': ffmpeg was not found on PATH (install it, e.g. apt-get install "
                              "ffmpeg); the PNG frames are kept in %s",
                              movie, r->render_dir);

    /* A resumed run renders from where it left off: the earlier frames on disk belong to the movie. */
    int first = r->first_frame;
    while (first > 0) {
        char prev[PREFIX_MAX + 4200];
        snprintf(prev, sizeof prev, "%s/frame_%05d.png", r->render_dir, first - 1);
        if (!file_exists(prev)) break;
        --first;
    }
    char start[32], count[32], rate[32];
    snprintf(start, sizeof start, "%d", first);
    snprintf(count, sizeof count, "%d", r->last_frame - first + 1);
    snprintf(rate, sizeof rate, "%g", r->fps);
    char *const argv[] = {ffmpeg, "-nostdin", "-y", "-loglevel", "error", "-framerate", rate, "-start_number", start,
                          "-i", pattern, "-frames:v", count,
                          /* yuv420p (what players expect) needs even sizes; --render-width may be odd */
                          "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-f", "mp4",
                          tmp, NULL};
    eddy_output_remove_fifo(tmp); /* (ffmpeg writes into whatever is there: a FIFO blocked it, and the run, for ever) */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int e = posix_spawn(&pid, ffmpeg, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0)
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': cannot start %s: %s; the PNG frames are kept in %s",
                              movie, ffmpeg, strerror(e), r->render_dir);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            status = -1;
            break;
        }
    int ok = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok && rename(tmp, movie) != 0) {
        e = errno;
        remove(tmp);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': %s", movie, strerror(e));
    }
    if (!ok) {
        remove(tmp);
        char why[300];
        last_line(log, why, sizeof why);
        char how[64], sig[48];
        if (status >= 0 && WIFEXITED(status))
            snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
        else if (status >= 0 && WIFSIGNALED(status))
            snprintf(how, sizeof how, "was killed by %s", eddy_services_signal_text(WTERMSIG(status), sig, sizeof sig));
        else
            snprintf(how, sizeof how, "could not be waited for");
        return eddy_error_set(err, EDDY_ERR_IO, "cannot write '%s': ffmpeg %s%s%s; the PNG frames are kept in %s (ffmpeg's "
                              "messages: %s)",
                              movie, how, why[0] ? ": " : "", why, r->render_dir, log);
    }
    remove(log);
    return EDDY_OK;
}

