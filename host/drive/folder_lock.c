/*
 * host/drive/folder_lock.c — an output folder written by one eddy run at a time (folder_lock.h).
 *
 * Depends on: decomp.h (rank 0 takes it, the outcome agreed), output.h (the folder made as the output
 * makes it).
 */
#include "folder_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decomp.h"
#include "output.h"

struct eddy_folder_lock {
    int fd;          /* the folder's descriptor holding the lock; -1: the file system could not lock it */
    dev_t dev;       /* the folder locked */
    ino_t ino;
    char *made;      /* EDDY_FOLDER_MAKE_TIDY: the folder, when this take made it (NULL: it was there) */
};

static void lock_free(eddy_folder_lock *l)
{
    if (!l) return;
    if (l->fd >= 0) close(l->fd);
    free(l->made);
    free(l);
}

/* Once per process: the folder is written without the lock. */
static void notice_unlocked(const char *dir, const char *why)
{
    static int said;
    if (said) return;
    said = 1;
    fprintf(stderr, "eddy: notice: cannot lock the output folder '%s' (%s): another eddy run writing into it at the "
                    "same time would not be stopped\n", dir, why);
}

/* flock's errors that say the file system (or its emulation of flock) cannot lock the folder. */
static int cannot_lock_here(int e)
{
    return e == EOPNOTSUPP || e == ENOTSUP || e == ENOLCK || e == EBADF || e == ENOSYS || e == EINVAL;
}

int eddy_folder_lock_take(const char *dir, eddy_folder_mode mode, const char *instead, eddy_folder_lock **lock,
                          eddy_error *err)
{
    *lock = NULL;
    /* (as eddy_output_make_dirs says it; a folder to read is the reader's to refuse) */
    if (!dir || !*dir)
        return mode == EDDY_FOLDER_EXISTING
                   ? EDDY_OK
                   : eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "cannot create output folder '': empty path");
    eddy_folder_lock *l = calloc(1, sizeof *l);
    if (!l) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    l->fd = -1;
    int rc = EDDY_OK;
    struct stat st;
    if (mode == EDDY_FOLDER_MAKE_TIDY && stat(dir, &st) != 0 && errno == ENOENT) {
        l->made = strdup(dir);
        if (!l->made) rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    /* The folder may be replaced between its open and its lock (one refused run removing the empty folder
     * it made, another making it again): the lock must be on the folder the path names after it is taken. */
    for (int attempt = 0; !rc; ++attempt) {
        if (mode != EDDY_FOLDER_EXISTING && (rc = eddy_output_make_dirs(dir, err))) break;
        const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            const int e = errno;
            if (mode == EDDY_FOLDER_EXISTING && (e == ENOENT || e == ENOTDIR)) {
                lock_free(l);
                return EDDY_OK;
            }
            notice_unlocked(dir, strerror(e));
            break;
        }
        const char *test = getenv("EDDY_TEST_FOLDER_LOCK");
        int r, e = 0;
        if (test && strcmp(test, "unsupported") == 0) {
            r = -1;
            e = EOPNOTSUPP;
        } else {
            while ((r = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {}
            e = errno;
        }
        if (r != 0) {
            close(fd);
            if (e == EWOULDBLOCK) {
                /* (a folder this take made is the holder's now: it stays) */
                rc = eddy_error_set(err, EDDY_ERR_IO, "output folder '%s' is in use by another eddy run; wait for it "
                                    "to finish%s%s", dir, instead ? " or " : "", instead ? instead : "");
                break;
            }
            if (!cannot_lock_here(e)) {
                rc = eddy_error_set(err, EDDY_ERR_IO, "cannot lock the output folder '%s': %s", dir, strerror(e));
                break;
            }
            char why[96];
            snprintf(why, sizeof why, "flock: %s", strerror(e));
            notice_unlocked(dir, why);
            break;
        }
        struct stat held, named;
        if (fstat(fd, &held) == 0 && stat(dir, &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino) {
            l->fd = fd;
            l->dev = held.st_dev;
            l->ino = held.st_ino;
            break;
        }
        close(fd);
        if (attempt == 16)
            rc = eddy_error_set(err, EDDY_ERR_IO, "cannot lock the output folder '%s': it is replaced again and again "
                                "while it is locked", dir);
    }
    if (rc) {
        lock_free(l);
        return rc;
    }
    *lock = l;
    return EDDY_OK;
}

int eddy_folder_lock_take_all(const char *dir, eddy_folder_mode mode, const char *instead, eddy_folder_lock **lock,
                              eddy_error *err)
{
    *lock = NULL;
    int rc = eddy_decomp_rank() == 0 ? eddy_folder_lock_take(dir, mode, instead, lock, err) : EDDY_OK;
    rc = eddy_decomp_agree_error(rc, err);
    if (rc) {
        eddy_folder_lock_release(*lock);
        *lock = NULL;
    }
    return rc;
}

int eddy_folder_lock_holds(const eddy_folder_lock *lock, const char *dir)
{
    struct stat st;
    return lock && lock->fd >= 0 && dir && stat(dir, &st) == 0 && st.st_dev == lock->dev && st.st_ino == lock->ino;
}

void eddy_folder_lock_release(eddy_folder_lock *lock)
{
    if (!lock) return;
    /* Before the lock goes: no other run can be writing into it meanwhile. Only the folder itself: a
     * parent the take made may be where another process is making its own folder at that moment. And
     * only while the path still names the folder locked: one moved or removed meanwhile may have been
     * replaced by another run's, made and locked after it. */
    if (lock->made && eddy_folder_lock_holds(lock, lock->made)) rmdir(lock->made);
    lock_free(lock);
}
