/* The template's solver (xsph.c, included whole) with one defect that one of eddy_add_plugin_tests'
 * checks exists to catch, chosen by BREAK_CHECK (1 threads, 2 resume, 3 hydrostatic); tests/sdk/plugin_tests_fail.sh builds one plugin per
 * defect and expects each check to fail on its own defect. The defects are macros over calls xsph.c
 * makes, defined after the headers those calls are declared in (their include guards keep xsph.c's
 * own includes from seeing them), so the template's source itself stays untouched. */
#include <eddy/eddy.h>
#include <eddy_sph/sph.h>
#include <eddy_sph/simd.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#if BREAK_CHECK == 1
/* threads: each density depends on the thread count by a few units in the last place, as a sum whose
 * order followed the threads would, but reproducibly, so the check fails on every run and never by
 * chance. (Scaling the time step instead does nothing here: scene.json's dt caps it.) */
#define eddy_sph_density(k, sum, self) (eddy_sph_density(k, sum, self) * (1.0f + 1e-5f * (float)omp_get_max_threads()))
#elif BREAK_CHECK == 2
/* resume: load() accepts the record and restores nothing (max_accel stays create()'s 0). */
#define eddy_state_load_floats(tag, dst, n, data, size, err) \
    ((void)(tag), (void)(dst), (void)(n), (void)(data), (void)(size), (void)(err), EDDY_OK)
#elif BREAK_CHECK == 3
/* hydrostatic: the pressure force 20% weak, so the fluid settles with a pressure 25% too high. */
#define eddy_sph_spiky_grad(k, r2, tiny2) (0.8f * eddy_sph_spiky_grad(k, r2, tiny2))
#else
#error "BREAK_CHECK must be 1 (threads), 2 (resume) or 3 (hydrostatic)"
#endif

#include "xsph.c"
