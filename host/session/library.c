/*
 * host/session/library.c — what the session API adds for programs outside eddy, whose `eddy` command
 * sets the same through its options (--quiet). The rest of libeddy_session is the host itself, linked
 * in whole (host/CMakeLists.txt).
 */
#include "session.h"

#include "services.h"

void eddy_session_set_quiet(int quiet) { eddy_services_set_quiet(quiet); }
