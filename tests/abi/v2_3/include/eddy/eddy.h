/*
 * eddy/eddy.h — umbrella header: the whole public SDK.
 */
#ifndef EDDY_EDDY_H
#define EDDY_EDDY_H

#include "defs.h"
#include "error.h"
#include "particles.h"
#include "kernels.h"
#include "grid.h"
#include "host.h"
#include "params.h"
#include "boundary.h"
#include "world.h"
#include "plugin.h"
#include "observe.h"
#include "registry.h"
#include "state.h"

#endif /* EDDY_EDDY_H */
