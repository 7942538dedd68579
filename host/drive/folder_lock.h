/*
 * host/drive/folder_lock.h — an output folder written by one eddy run at a time.
 *
 * Nothing stopped two eddy processes from writing into one folder (a sweep script that repeats an
 * --out, a run started twice, a resume while its run still goes): the second cleared the first one's
 * frames and both wrote on, mixing frames of two runs, truncating diagnostics.csv, resuming one run's
 * checkpoint in the other, without a word. So every command that writes into a folder (run, resume,
 * compare and each of its solvers' folders, validate, the Python package's writing simulations) takes
 * the folder's lock before it creates, truncates or removes anything there, and holds it until its
 * last write. Another holder makes it refuse with
 *
 *   output folder 'DIR' is in use by another eddy run; wait for it to finish or choose another --out
 *
 * (EDDY_ERR_IO, the status of the other errors of opening the output), leaving the folder as it was.
 *
 * The lock is an advisory flock(2) (LOCK_EX | LOCK_NB) on a descriptor of the folder itself (opened
 * O_RDONLY | O_DIRECTORY | O_CLOEXEC: Linux locks folders as files), so no lock file is left behind, a
 * process that ends in any way (kill -9 included) lets it go with its descriptors, and a child such as
 * ffmpeg does not inherit it. flock(1) takes the same lock (`flock DIR CMD` holds DIR while CMD runs).
 * Nor does a child made by fork() without exec (Python's os.fork, multiprocessing's fork start method):
 * its copies of the held descriptors are closed in it at the fork, without an unlock, so the parent holds
 * its folders as before and lets them go at its release whether the child lives on or not; in the child
 * every lock holds nothing (eddy_folder_lock_holds: 0) and its release frees only the memory.
 * A flock lock belongs to its open file description: a second take of a folder in the process that
 * holds it conflicts like another process's (two Python simulations writing into one folder); the
 * commands take each folder once (compare: the report folder, then each solver's folder in turn).
 *
 * Where the file system cannot lock (flock fails with EOPNOTSUPP or ENOLCK; NFS emulates flock with a
 * byte-range lock and refuses an exclusive one on a descriptor not open for writing, as a folder's is,
 * with EBADF; a folder that cannot be opened for reading) the run goes on without the lock, and says
 * so once per process: "eddy: notice: cannot lock the output folder 'DIR' (REASON): ...".
 *
 * Tests only: the environment variable EDDY_TEST_FOLDER_LOCK=unsupported has flock fail as on a file
 * system without it.
 */
#ifndef EDDY_HOST_FOLDER_LOCK_H
#define EDDY_HOST_FOLDER_LOCK_H

#include <eddy/eddy.h>

typedef struct eddy_folder_lock eddy_folder_lock;

typedef enum {
    /* A folder that is not there is not locked (*lock NULL, EDDY_OK): the caller's read of it fails
     * with its own message (resume: the checkpoint). */
    EDDY_FOLDER_EXISTING,
    /* The folder and its missing parents are made first (eddy_output_make_dirs: its messages), then
     * locked. */
    EDDY_FOLDER_MAKE,
    /* As EDDY_FOLDER_MAKE, and the folder, when this take made it, is removed again at the release
     * where it is still empty: a run refused once the folder was locked (a --render-field the scene
     * lacks) leaves no folder behind, as before the lock (the parents it made stay). */
    EDDY_FOLDER_MAKE_TIDY
} eddy_folder_mode;

/* Takes DIR's lock in this process; *lock is NULL on failure, and where `mode` is EDDY_FOLDER_EXISTING
 * and DIR is not there. `instead`: what the refusal offers besides waiting ("choose another --out"),
 * NULL for nothing. */
int eddy_folder_lock_take(const char *dir, eddy_folder_mode mode, const char *instead, eddy_folder_lock **lock,
                          eddy_error *err);

/* Collective (docs/mpi.md): rank 0 takes it, the process that clears the folder and writes its shared
 * files (the others write their pieces into it); every process returns the outcome, an error said once
 * (eddy_decomp_agree_error). One process: eddy_folder_lock_take. */
int eddy_folder_lock_take_all(const char *dir, eddy_folder_mode mode, const char *instead, eddy_folder_lock **lock,
                              eddy_error *err);

/* 1 when `lock` holds DIR (the same folder: device and inode), 0 otherwise (NULL, a lock the file system
 * could not take). */
int eddy_folder_lock_holds(const eddy_folder_lock *lock, const char *dir);

/* 1 when a lock of this process holds DIR (the same folder), 0 otherwise (a forked child's copies hold
 * nothing). After a refused take, it tells a holder in this process (the Python package's other
 * Simulation, kept alive by a notebook's failed cell) from another eddy run, which the refusal names. */
int eddy_folder_lock_held_here(const char *dir);

/* Lets the folder go (NULL: nothing), after removing it where an EDDY_FOLDER_MAKE_TIDY take made it and
 * it is empty. */
void eddy_folder_lock_release(eddy_folder_lock *lock);

#endif /* EDDY_HOST_FOLDER_LOCK_H */
