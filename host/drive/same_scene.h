/*
 * host/drive/same_scene.h — several processes given one scene path (docs/mpi.md): every process must
 * read the same file. The command lines are compared before (cli/launch.c); a scene file is a node's
 * own on a cluster without a shared file system, and one that differs ran to results mixing both.
 */
#ifndef EDDY_HOST_SAME_SCENE_H
#define EDDY_HOST_SAME_SCENE_H

#include <eddy/eddy.h>

/*
 * Collective over every process (EDDY_OK at once on one process). Refuses, with the same message on
 * every process and the error recorded as agreed (main says it once), a file that some processes can
 * read and others cannot:
 *   "the scene file 'P' cannot be read on process K of N (missing on its node?), while process J reads
 *   it: every process of a run must read the same scene file"
 * and one whose contents differ:
 *   "process K of N reads another scene file under 'P' than process 0 (the contents differ: a copy
 *   that differs between nodes?): every process of a run must read the same scene file"
 * A file no process can read passes: the scene's own loading then refuses it alike everywhere.
 */
int eddy_drive_same_scene(const char *path, eddy_error *err);

#endif /* EDDY_HOST_SAME_SCENE_H */
