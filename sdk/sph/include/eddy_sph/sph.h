/* eddy_sph/sph.h — the whole SPH toolkit (docs/toolkit.md). */
#ifndef EDDY_SPH_SPH_H
#define EDDY_SPH_SPH_H

#include "defs.h"
#include "gather.h"
#include "kernels.h"
#include "lattice.h"
#include "materials.h"
#include "neighbors.h"
#include "partners.h"
#include "shifting.h"

#endif /* EDDY_SPH_SPH_H */
