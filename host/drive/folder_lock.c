/*
 * host/drive/folder_lock.c — an output folder written by one eddy run at a time (folder_lock.h).
 *
 * Depends on: decomp.h (rank 0 takes it, the outcome agreed), output.h (the folder made as the output
 * makes it).
 *
 * fork(): the lock belongs to the open file description, which a child made by fork() shares through
 * its copy of the descriptor, so the child held the folder until it exited, even after the parent had let
 * it go. Every lock is on one list from its allocation to its free, and a pthread_atfork handler closes
 * the child's copies of their descriptors: close, never flock(LOCK_UN), which would unlock the shared
 * description and so the parent's lock too. A descriptor is opened and closed with the list's mutex held,
 * which the fork's prepare handler takes as well: no fork falls between an open and its entry on the
 * list, where the child would keep a copy that a later flock in the parent locks.
 */
#include "folder_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decomp.h"
#include "output.h"

struct eddy_folder_lock {
    int fd;          /* the folder's descriptor holding the lock; -1: the file system could not lock it, or
                      * this process is a child forked from the holder */
    dev_t dev;       /* the folder locked */
    ino_t ino;
    char *made;      /* EDDY_FOLDER_MAKE_TIDY: the folder, when this take made it (NULL: it was there) */
    eddy_folder_lock *prev, *next; /* on `locks` while it exists */
};

/* Every eddy_folder_lock of the process; `locks_mutex` guards the list and every open and close of a
 * lock's fd (see the top of the file). */
static pthread_mutex_t locks_mutex = PTHREAD_MUTEX_INITIALIZER;
static eddy_folder_lock *locks;
static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;

static void before_fork(void) { pthread_mutex_lock(&locks_mutex); }

static void after_fork_in_parent(void) { pthread_mutex_unlock(&locks_mutex); }

/* The child's copies go; the parent keeps its lock. fd -1 makes the child's structs hold nothing
 * (eddy_folder_lock_holds says 0), and their release there removes no folder and closes nothing. */
static void after_fork_in_child(void)
{
    for (eddy_folder_lock *l = locks; l; l = l->next)
        if (l->fd >= 0) {
            close(l->fd);
            l->fd = -1;
        }
    pthread_mutex_unlock(&locks_mutex);
}

/* (ENOMEM is its only failure; the locks then stay shared with a forked child, as before the handlers.) */
static void add_fork_handlers(void) { (void)pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child); }

static eddy_folder_lock *lock_new(void)
{
    pthread_once(&fork_handlers_once, add_fork_handlers);
    eddy_folder_lock *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->fd = -1;
    pthread_mutex_lock(&locks_mutex);
    l->next = locks;
    if (locks) locks->prev = l;
    locks = l;
    pthread_mutex_unlock(&locks_mutex);
    return l;
}

/* Opens DIR as l->fd (-1 and errno on failure) with the list's mutex held (a fork waits for it). */
static int open_folder(eddy_folder_lock *l, const char *dir)
{
    pthread_mutex_lock(&locks_mutex);
    l->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const int e = errno;
    pthread_mutex_unlock(&locks_mutex);
    errno = e;
    return l->fd;
}

static void close_folder(eddy_folder_lock *l)
{
    pthread_mutex_lock(&locks_mutex);
    if (l->fd >= 0) close(l->fd);
    l->fd = -1;
    pthread_mutex_unlock(&locks_mutex);
}

static void lock_free(eddy_folder_lock *l)
{
    if (!l) return;
    pthread_mutex_lock(&locks_mutex);
    if (l->fd >= 0) close(l->fd);
    if (l->prev) l->prev->next = l->next;
    else locks = l->next;
    if (l->next) l->next->prev = l->prev;
    pthread_mutex_unlock(&locks_mutex);
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
    eddy_folder_lock *l = lock_new();
    if (!l) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
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
        if (open_folder(l, dir) < 0) {
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
            while ((r = flock(l->fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {}
            e = errno;
        }
        if (r != 0) {
            close_folder(l);
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
        if (fstat(l->fd, &held) == 0 && stat(dir, &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino) {
            l->dev = held.st_dev;
            l->ino = held.st_ino;
            break;
        }
        close_folder(l);
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

int eddy_folder_lock_held_here(const char *dir)
{
    struct stat st;
    if (!dir || stat(dir, &st) != 0) return 0;
    int found = 0;
    pthread_mutex_lock(&locks_mutex);
    for (const eddy_folder_lock *l = locks; l && !found; l = l->next)
        found = l->fd >= 0 && l->dev == st.st_dev && l->ino == st.st_ino;
    pthread_mutex_unlock(&locks_mutex);
    return found;
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
