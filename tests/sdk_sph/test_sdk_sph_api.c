/*
 * The toolkit as a plugin author calls it, against definitions written out here rather than the
 * toolkit's own code: the masked kernels at and around the edge of their support (r = 0, r = h and the
 * floats beside h) against <eddy/kernels.h>; the density passes (poly6 and Wendland C2, every vector
 * path) against an O(N^2) sum over every particle and every mirror of the core, halo copies skipped;
 * the material tables against their defining formulas (self term, gradient scale, coefficients), the
 * self-term convention on a rest lattice, the stable time step against its formula; the rest-lattice
 * scale of every kernel in 2D and 3D against a directly summed lattice and the figures the
 * documentation quotes; state records at their edges; the image maps against the core's mirror
 * functions; and the refusal of bad arguments with a status and a message.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <eddy/eddy.h>
#include <eddy_sph/simd.h>
#include <eddy_sph/sph.h>

#include "sph_reference.h" /* uniform, cube_sum, random_world */
#include "sim_support.h" /* support_run_tests: one case by name, --list */

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Every `every`-th particle (from `first`) flagged as a halo copy, as a domain-decomposed host does. */
static void flag_halo(eddy_particles *p, size_t every, size_t first)
{
    size_t halo = 0;
    for (size_t i = 0; i < p->count; ++i) {
        const int is = i % every == first;
        p->flags[i] = (uint8_t)(is ? p->flags[i] | EDDY_PARTICLE_HALO : p->flags[i] & ~EDDY_PARTICLE_HALO);
        halo += (size_t)is;
    }
    p->halo_count = halo;
}

/* ---------------------------------------------------------------------------------------------- */
/* Kernels at the edge of their support                                                            */
/* ---------------------------------------------------------------------------------------------- */

typedef float (*kfun)(const eddy_kernels *, float);

static float ref_poly6(const eddy_kernels *k, float r) { return eddy_poly6(k, r * r); }
static float tk_poly6(const eddy_kernels *k, float r) { return eddy_sph_poly6(k, r * r); }
static float tk_poly6_term(const eddy_kernels *k, float r) { return k->poly6 * eddy_sph_poly6_term(k->h2, r * r); }
static float tk_poly6_mass(const eddy_kernels *k, float r) { return k->poly6 * eddy_sph_poly6_mass_term(1.0f, k->h2, r * r); }
static float tk_wendland_mass(const eddy_kernels *k, float r)
{
    return k->wendland * eddy_sph_wendland_mass_term(1.0f, k->inv_h, r * r);
}
static float ref_poly6_grad(const eddy_kernels *k, float r) { return eddy_poly6_grad(k, r * r); }
static float tk_poly6_grad(const eddy_kernels *k, float r) { return eddy_sph_poly6_grad(k, r * r); }
static float tk_spiky_grad(const eddy_kernels *k, float r) { return eddy_sph_spiky_grad(k, r * r, 0.0f); }
static float tk_value_poly6(const eddy_kernels *k, float r) { return eddy_sph_kernel_value(k, EDDY_SPH_POLY6, r); }
static float tk_value_spiky(const eddy_kernels *k, float r) { return eddy_sph_kernel_value(k, EDDY_SPH_SPIKY, r); }
static float tk_value_cubic(const eddy_kernels *k, float r) { return eddy_sph_kernel_value(k, EDDY_SPH_CUBIC, r); }
static float tk_value_wendland(const eddy_kernels *k, float r)
{
    return eddy_sph_kernel_value(k, EDDY_SPH_WENDLAND, r);
}
/* The documented fallback: a value outside the enum is poly6. */
static float tk_value_unknown(const eddy_kernels *k, float r)
{
    return eddy_sph_kernel_value(k, (eddy_sph_kernel)7, r);
}

typedef struct kernel_pair {
    const char *name;
    kfun ref, tk;
    int zero_at_origin; /* the gradient factors that divide by r are 0 there */
} kernel_pair;

/*
 * At r = 0, at r = h, at the floats on either side of h, beyond h, and at h (1 - 2^-k) for k = 1 .. 10
 * (values down to ~1e-9 of the kernel's peak): 0 exactly wherever the reference is 0, and the
 * reference's value to a relative 5e-4 elsewhere (the masked forms round in another order, and those
 * of r^2 see sqrtf(r^2), which may differ from r by an ulp: at d = h - r of 1e-3 h that is 1.2e-4
 * relative); within a few ulps of h, where d itself is an ulp or two, to 1e-6 of the kernel's peak.
 * r = 0 to 1e-6 relative, and exactly 0 for the spiky and cubic gradients.
 */
static void kernels_at_support_edge(void **state)
{
    (void)state;
    const kernel_pair pairs[] = {
        {"poly6", ref_poly6, tk_poly6, 0},
        {"poly6 term", ref_poly6, tk_poly6_term, 0},
        {"poly6 mass term", ref_poly6, tk_poly6_mass, 0},
        {"poly6 gradient", ref_poly6_grad, tk_poly6_grad, 0},
        {"spiky", eddy_spiky, eddy_sph_spiky, 0},
        {"spiky gradient", eddy_spiky_grad, tk_spiky_grad, 1},
        {"viscosity Laplacian", eddy_viscosity_laplacian, eddy_sph_viscosity_laplacian, 0},
        {"cubic spline", eddy_cubic, eddy_sph_cubic, 0},
        {"cubic spline gradient", eddy_cubic_grad, eddy_sph_cubic_grad, 1},
        {"Wendland C2", eddy_wendland, eddy_sph_wendland, 0},
        {"Wendland C2 mass term", eddy_wendland, tk_wendland_mass, 0},
        {"Wendland C2 gradient", eddy_wendland_grad, eddy_sph_wendland_grad, 0},
        {"kernel_value poly6", ref_poly6, tk_value_poly6, 0},
        {"kernel_value spiky", eddy_spiky, tk_value_spiky, 0},
        {"kernel_value cubic", eddy_cubic, tk_value_cubic, 0},
        {"kernel_value wendland", eddy_wendland, tk_value_wendland, 0},
        {"kernel_value unknown (poly6)", ref_poly6, tk_value_unknown, 0},
    };
    const float hs[] = {0.013f, 0.1f, 1.0f, 1.7f, 3.0f};
    size_t zeros = 0, inside = 0;
    for (size_t pi = 0; pi < sizeof pairs / sizeof *pairs; ++pi)
        for (int d = 2; d <= 3; ++d)
            for (size_t hi = 0; hi < sizeof hs / sizeof *hs; ++hi) {
                const kernel_pair *kp = &pairs[pi];
                const eddy_kernels k = eddy_kernels_make(hs[hi], d);
                float r[32];
                int nr = 0;
                r[nr++] = 0.0f;
                r[nr++] = k.h;
                r[nr++] = nextafterf(k.h, 0.0f);
                r[nr++] = nextafterf(nextafterf(k.h, 0.0f), 0.0f);
                r[nr++] = nextafterf(k.h, INFINITY);
                r[nr++] = 1.5f * k.h;
                r[nr++] = 1e3f * k.h;
                for (int e = 1; e <= 10; ++e) r[nr++] = k.h * (1.0f - ldexpf(1.0f, -e));
                const double peak = fabs(kp->ref(&k, 0.0f)) > 0 ? fabs(kp->ref(&k, 0.0f)) : fabs(kp->ref(&k, 0.25f * k.h));
                for (int i = 0; i < nr; ++i) {
                    const float a = kp->ref(&k, r[i]), b = kp->tk(&k, r[i]);
                    if (!isfinite(b))
                        fail_msg("%s, %dD, h = %g, r = %.9g: toolkit %g", kp->name, d, (double)k.h, (double)r[i], (double)b);
                    const int at_edge = r[i] > 0.0f && k.h - r[i] < 1e-5f * k.h && r[i] < k.h;
                    if (at_edge) {
                        if (!(fabs((double)a - b) <= 1e-6 * peak))
                            fail_msg("%s, %dD, h = %g, r = %.9g (an ulp or two below h): reference %.9g, toolkit %.9g",
                                     kp->name, d, (double)k.h, (double)r[i], (double)a, (double)b);
                        continue;
                    }
                    if (a == 0.0f || b == 0.0f) {
                        if (a != b)
                            fail_msg("%s, %dD, h = %g, r = %.9g (h %+.3g ulp): reference %.9g, toolkit %.9g", kp->name, d,
                                     (double)k.h, (double)r[i], (double)((r[i] - k.h) / (nextafterf(k.h, INFINITY) - k.h)),
                                     (double)a, (double)b);
                        ++zeros;
                        continue;
                    }
                    const double tol = r[i] == 0.0f ? 1e-6 : 5e-4;
                    if (!(fabs((double)a - b) <= tol * fabs((double)a)))
                        fail_msg("%s, %dD, h = %g, r = %.9g: reference %.9g, toolkit %.9g", kp->name, d, (double)k.h,
                                 (double)r[i], (double)a, (double)b);
                    ++inside;
                }
                /* The cases the comment names hold. */
                /* At r = h the kernels of q = r (1/h) keep (1 - q)^n of an ulp where h (1/h) rounds below
                 * 1, as the reference does: ~1e-22 of the peak. */
                if (!(fabs(kp->tk(&k, k.h)) <= 1e-12 * peak) || kp->tk(&k, nextafterf(k.h, INFINITY)) != 0.0f)
                    fail_msg("%s, %dD, h = %g: %g at r = h", kp->name, d, (double)k.h, (double)kp->tk(&k, k.h));
                if (kp->zero_at_origin ? kp->tk(&k, 0.0f) != 0.0f : kp->tk(&k, 0.0f) == 0.0f)
                    fail_msg("%s, %dD: %g at r = 0", kp->name, d, (double)kp->tk(&k, 0.0f));
                if (!(peak > 0)) fail_msg("%s: no scale", kp->name);
            }
    print_message("%zu samples at 0, %zu inside the support\n", zeros, inside);
    assert_true(zeros > 100 && inside > 1000);
}

/* ---------------------------------------------------------------------------------------------- */
/* The density passes                                                                              */
/* ---------------------------------------------------------------------------------------------- */

typedef struct sums {
    float *sum;
    unsigned *calls;
} sums;

static void record_sum(void *ctx, uint32_t i, float sum)
{
    sums *s = ctx;
    s->sum[i] = sum;
    ++s->calls[i]; /* a particle is in one cell, so one thread writes its entries */
}

static void run_pass(const eddy_world *w, int which, eddy_sph_simd path, sums *out)
{
    const eddy_particles *p = &w->particles;
    memset(out->calls, 0, p->count * sizeof *out->calls);
    for (size_t i = 0; i < p->count; ++i) out->sum[i] = NAN;
    const float h = w->smoothing_radius;
    int rc;
    switch (which) {
    case 0: rc = eddy_sph_density_pass(&w->grid, p, &w->boundaries, w->gravity, h, record_sum, out); break;
    case 1: rc = eddy_sph_density_pass_simd(path, &w->grid, p, &w->boundaries, w->gravity, h, record_sum, out); break;
    case 2:
        rc = eddy_sph_density_pass_kernel_simd(path, EDDY_SPH_POLY6, &w->grid, p, &w->boundaries, w->gravity, h,
                                               record_sum, out);
        break;
    default:
        rc = eddy_sph_density_pass_kernel_simd(path, EDDY_SPH_WENDLAND, &w->grid, p, &w->boundaries, w->gravity, h,
                                               record_sum, out);
    }
    assert_int_equal(rc, 0);
    for (size_t i = 0; i < p->count; ++i)
        if (out->calls[i] != (eddy_particle_is_halo(p, i) ? 0u : 1u))
            fail_msg("pass %d: particle %zu (%s) finished %u times", which, i, eddy_particle_is_halo(p, i) ? "halo" : "owned",
                     out->calls[i]);
}

/* The two mass terms without their coefficients, in double, from their definitions. */
static double poly6_term(double h, double r2) { return r2 < h * h ? pow(h * h - r2, 3) : 0.0; }
static double wendland_term(double h, double r2)
{
    const double q = sqrt(r2) / h;
    return q < 1.0 ? pow(1.0 - q, 4) * (1.0 + 4.0 * q) : 0.0;
}

/*
 * eddy_sph_density_pass, eddy_sph_density_pass_simd on every path this CPU runs, and
 * eddy_sph_density_pass_kernel_simd with poly6 and Wendland C2: each owned particle finished exactly
 * once and halo copies never, with the sum over every particle (minimum image) and every ghost of the
 * core's mirrors (eddy_boundaries_mirrors) computed here in double; the baseline path bit-identical to
 * eddy_sph_density_pass and the kernel pass with poly6 bit-identical to the poly6 pass (as simd.h
 * says). Walls on every side (corners: 7 mirrors), and x periodic with walls in y and z.
 */
static void check_density_pass(const int periodic[3], uint64_t seed)
{
    const float L = 1.0f, h = 0.13f;
    const size_t n = 1200;
    eddy_world *w = random_world(n, L, h, periodic, seed, 1);
    eddy_particles *p = &w->particles;
    flag_halo(p, 7, 3);
    float *poly = malloc(n * sizeof(float)), *tmp = malloc(n * sizeof(float)), *wend = malloc(n * sizeof(float));
    unsigned *calls = malloc(n * sizeof(unsigned));
    sums s = {poly, calls};
    run_pass(w, 0, EDDY_SPH_SIMD_BASELINE, &s);
    size_t near_walls = 0, paths = 0;
    for (int path = 0; path < EDDY_SPH_SIMD_COUNT; ++path) {
        if (!eddy_sph_simd_cpu_has((eddy_sph_simd)path)) continue;
        ++paths;
        sums t = {tmp, calls};
        run_pass(w, 1, (eddy_sph_simd)path, &t);
        if (path == EDDY_SPH_SIMD_BASELINE && memcmp(tmp, poly, n * sizeof(float)) != 0)
            fail_msg("the baseline path's pass differs from eddy_sph_density_pass in its bits");
        float *again = malloc(n * sizeof(float));
        sums u = {again, calls};
        run_pass(w, 2, (eddy_sph_simd)path, &u);
        if (memcmp(again, tmp, n * sizeof(float)) != 0)
            fail_msg("%s: the kernel pass with poly6 differs from the poly6 pass", eddy_sph_simd_name((eddy_sph_simd)path));
        sums v = {wend, calls};
        run_pass(w, 3, (eddy_sph_simd)path, &v);
        for (size_t i = 0; i < n; ++i) {
            if (eddy_particle_is_halo(p, i)) continue;
            const float xi[3] = {p->x[i], p->y[i], p->z[i]};
            eddy_mirror mir[EDDY_MAX_MIRRORS];
            const int nm = eddy_boundaries_mirrors(&w->boundaries, w->gravity, h, xi, mir);
            near_walls += nm > 0 && path == 0;
            double want_p = 0.0, want_w = 0.0;
            for (size_t j = 0; j < n; ++j) {
                float d[3] = {xi[0] - p->x[j], xi[1] - p->y[j], xi[2] - p->z[j]};
                eddy_grid_min_image(&w->grid.layout, &d[0], &d[1], &d[2]);
                const double r2 = (double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2];
                want_p += p->mass[j] * poly6_term(h, r2);
                want_w += p->mass[j] * wendland_term(h, r2);
                const float xj[3] = {xi[0] - d[0], xi[1] - d[1], xi[2] - d[2]};
                for (int mi = 0; mi < nm; ++mi) {
                    float gp[3];
                    eddy_mirror_point(&mir[mi], xj, gp);
                    const double e[3] = {xi[0] - gp[0], xi[1] - gp[1], xi[2] - gp[2]};
                    const double e2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
                    want_p += p->mass[j] * poly6_term(h, e2);
                    want_w += p->mass[j] * wendland_term(h, e2);
                }
            }
            if (!(fabs(tmp[i] - want_p) <= 2e-5 * want_p))
                fail_msg("%s: particle %zu (%d mirrors): poly6 sum %.9g, O(N^2) %.9g",
                         eddy_sph_simd_name((eddy_sph_simd)path), i, nm, (double)tmp[i], want_p);
            if (!(fabs(wend[i] - want_w) <= 2e-5 * want_w))
                fail_msg("%s: particle %zu (%d mirrors): Wendland sum %.9g, O(N^2) %.9g",
                         eddy_sph_simd_name((eddy_sph_simd)path), i, nm, (double)wend[i], want_w);
        }
        free(again);
    }
    if (!(periodic[0] && periodic[1] && periodic[2])) assert_true(near_walls > n / 5);
    assert_true(paths >= 1);
    free(poly);
    free(tmp);
    free(wend);
    free(calls);
    eddy_world_destroy(w);
}

static void density_pass_matches_brute_force(void **state)
{
    (void)state;
    const int walls[3] = {0, 0, 0}, mixed[3] = {1, 0, 0};
    check_density_pass(walls, 21);
    check_density_pass(mixed, 22);
}

/* ---------------------------------------------------------------------------------------------- */
/* Material tables, the self term and the time step                                                */
/* ---------------------------------------------------------------------------------------------- */

static const eddy_param_desc material_table[] = {
    EDDY_MATERIAL_VISCOSITY_DESC,
    EDDY_MATERIAL_STIFFNESS_DESC,
    EDDY_MATERIAL_INITIAL_SUM_DESC,
};

static eddy_param_value real_value(double v)
{
    eddy_param_value x;
    memset(&x, 0, sizeof x);
    x.is_set = 1;
    x.count = 1;
    x.number = v;
    x.integer = (int64_t)v;
    return x;
}

/* poly6's coefficient and W_poly6(0), from the formulas of <eddy/kernels.h>, in double. */
static double poly6_coefficient(double h, int d) { return d == 2 ? 4.0 / (M_PI * pow(h, 8)) : 315.0 / (64.0 * M_PI * pow(h, 9)); }
static double wendland_coefficient(double h, int d)
{
    return d == 2 ? 7.0 / (M_PI * h * h) : 21.0 / (2.0 * M_PI * h * h * h);
}

/* A world of `dims` with two materials: "water" with its own viscosity 0.2, stiffness 500 and
 * initial_sum 0.5, and "oil" (rest density 800) with none, so the descriptors' defaults apply. */
static eddy_world *two_material_world(int dims, float h, eddy_param_value values[3])
{
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(dims, &w, &err), EDDY_OK);
    w->smoothing_radius = h;
    values[0] = real_value(0.2);
    values[1] = real_value(500.0);
    values[2] = real_value(0.5);
    eddy_material a = eddy_default_material();
    snprintf(a.name, sizeof a.name, "water");
    a.rest_density = 1000.0f;
    a.particle_mass = 1000.0f * powf(0.5f * h, (float)dims);
    a.params = (eddy_param_values){sizeof(eddy_param_values), material_table, 3, values};
    if (eddy_world_add_material(w, &a, &err)) fail_msg("material: %s", err.message);
    eddy_material b = eddy_default_material();
    snprintf(b.name, sizeof b.name, "oil");
    b.rest_density = 800.0f;
    b.particle_mass = 800.0f * powf(0.4f * h, (float)dims);
    if (eddy_world_add_material(w, &b, &err)) fail_msg("material: %s", err.message);
    return w;
}

/*
 * eddy_sph_materials_init against the definitions of each table (materials.h): rho0, m, the material's
 * parameter or the descriptor's default, self_density = (initial_sum - 1) m W_poly6(0),
 * gradient_scale = 1 / the spiky lattice gradient moment, density_scale = poly6's coefficient; NULL
 * descriptors give 0, 0 and no self term; eddy_sph_nu_max and eddy_sph_stiffness_max the largest mu /
 * rho0 and k; eddy_sph_density and eddy_sph_self_density their formulas. In 2D and 3D.
 */
static void materials_tables_match_definitions(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; ++d) {
        const float h = 0.1f;
        eddy_param_value values[3];
        eddy_world *w = two_material_world(d, h, values);
        eddy_error err = {0};
        eddy_sph_materials t;
        if (eddy_sph_materials_init(&t, w, &material_table[0], &material_table[1], &material_table[2], NULL, &err))
            fail_msg("materials: %s", err.message);
        assert_int_equal(t.count, 2);
        const double visc[2] = {0.2, 0.1}, stiff[2] = {500.0, 1000.0}, sum0[2] = {0.5, 1.0};
        for (size_t m = 0; m < 2; ++m) {
            const eddy_material *mat = &w->materials[m];
            assert_true(t.rest_density[m] == mat->rest_density && t.mass[m] == mat->particle_mass);
            if (!(fabs(t.viscosity[m] - visc[m]) <= 1e-7 * visc[m] && fabs(t.stiffness[m] - stiff[m]) <= 1e-7 * stiff[m]))
                fail_msg("%dD material %zu: viscosity %g, stiffness %g", d, m, (double)t.viscosity[m], (double)t.stiffness[m]);
            const double self = (sum0[m] - 1.0) * mat->particle_mass * poly6_coefficient(h, d) * pow(h, 6);
            if (!(fabs(t.self_density[m] - self) <= 1e-5 * fabs(self)) && !(self == 0.0 && t.self_density[m] == 0.0f))
                fail_msg("%dD material %zu: self density %.9g, (initial_sum - 1) m W(0) = %.9g", d, m,
                         (double)t.self_density[m], self);
            const double gs = 1.0 / eddy_sph_lattice_gradient_moment(EDDY_SPH_SPIKY, mat->particle_dist, h, d);
            if (!(fabs(t.gradient_scale[m] - gs) <= 1e-6 * gs))
                fail_msg("%dD material %zu: gradient scale %.9g, 1 / spiky moment %.9g", d, m, (double)t.gradient_scale[m], gs);
            if (!(fabs(t.density_scale[m] - poly6_coefficient(h, d)) <= 1e-6 * poly6_coefficient(h, d)))
                fail_msg("%dD material %zu: density scale %.9g, poly6 coefficient %.9g", d, m, (double)t.density_scale[m],
                         poly6_coefficient(h, d));
        }
        if (!(fabs(eddy_sph_nu_max(&t) - fmax(0.2 / 1000.0, 0.1 / 800.0)) <= 1e-7 * 2e-4))
            fail_msg("nu_max %.9g", eddy_sph_nu_max(&t));
        assert_true(eddy_sph_stiffness_max(&t) == 1000.0);
        /* The self term and the density from a sum, as eddy_sph_materials.self_density defines them. */
        const eddy_kernels k = eddy_kernels_make(h, d);
        assert_true(eddy_sph_self_density(1.0f, 0.3f, &k) == 0.0f);
        const double self = -0.75 * 0.3 * poly6_coefficient(h, d) * pow(h, 6);
        assert_true(fabs(eddy_sph_self_density(0.25f, 0.3f, &k) - self) <= 1e-5 * fabs(self));
        assert_true(eddy_sph_density(&k, 2.5f, 7.0f) == k.poly6 * 2.5f + 7.0f);
        eddy_sph_materials_free(&t);
        assert_true(t.count == 0 && t.block == NULL && t.rest_density == NULL);
        eddy_sph_materials_free(&t); /* a second free is safe */

        /* Without descriptors: no viscosity, no stiffness, no self term. */
        if (eddy_sph_materials_init(&t, w, NULL, NULL, NULL, NULL, &err)) fail_msg("materials: %s", err.message);
        for (size_t m = 0; m < 2; ++m)
            assert_true(t.viscosity[m] == 0.0f && t.stiffness[m] == 0.0f && t.self_density[m] == 0.0f);
        assert_true(eddy_sph_nu_max(&t) == 0.0 && eddy_sph_stiffness_max(&t) == 0.0);
        eddy_sph_materials_free(&t);
        eddy_world_destroy(w);
    }
}

/* A periodic rest lattice of nside^d particles of the world's material 0 at its particle_dist. */
static eddy_world *lattice_world(int d, float h, double initial_sum, eddy_param_value *value, int nside)
{
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(d, &w, &err), EDDY_OK);
    w->smoothing_radius = h;
    *value = real_value(initial_sum);
    eddy_material m = eddy_default_material();
    m.rest_density = 1000.0f;
    m.particle_mass = 1000.0f * powf(0.5f * h, (float)d);
    m.params = (eddy_param_values){sizeof(eddy_param_values), &material_table[2], 1, value};
    if (eddy_world_add_material(w, &m, &err)) fail_msg("material: %s", err.message);
    const float s = w->materials[0].particle_dist, L = s * (float)nside;
    const float lo[3] = {0, 0, 0}, hi[3] = {L, L, d == 3 ? L : 0.0f};
    const int periodic[3] = {1, 1, d == 3};
    if (eddy_world_set_container(w, lo, hi, periodic, &err)) fail_msg("container: %s", err.message);
    const size_t n = (size_t)nside * nside * (d == 3 ? nside : 1);
    float *pos = calloc(3 * n, sizeof *pos);
    for (size_t i = 0; i < n; ++i) {
        pos[3 * i] = ((float)(i % nside) + 0.5f) * s;
        pos[3 * i + 1] = ((float)(i / nside % nside) + 0.5f) * s;
        pos[3 * i + 2] = d == 3 ? ((float)(i / nside / nside) + 0.5f) * s : 0.0f;
    }
    if (eddy_world_add_particles(w, n, pos, NULL, 0, &err)) fail_msg("particles: %s", err.message);
    free(pos);
    if (eddy_world_init_grid(w, lo, hi, periodic, NULL, EDDY_DOMAIN_ERROR, &err)) fail_msg("grid: %s", err.message);
    if (eddy_world_build_grid(w, &err)) fail_msg("build: %s", err.message);
    return w;
}

/*
 * The self-term convention on a periodic rest lattice the host would make (mass and spacing such that
 * poly6 sums to rho0): the density pass's sum includes the particle itself, so eddy_sph_density with
 * the tables' self term gives rho0 - (1 - initial_sum) m W(0), for poly6 and, after
 * eddy_sph_materials_use_kernel, for Wendland C2 with its rest scale taken from a lattice summed here.
 */
static void self_term_convention_on_rest_lattice(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; ++d) {
        const float h = 0.1f;
        const double s0 = 0.6;
        eddy_param_value value;
        eddy_world *w = lattice_world(d, h, s0, &value, d == 3 ? 10 : 16);
        const eddy_material *mat = &w->materials[0];
        const double m = mat->particle_mass, rho0 = mat->rest_density;
        eddy_error err = {0};
        eddy_sph_materials t;
        if (eddy_sph_materials_init(&t, w, NULL, NULL, &material_table[2], NULL, &err)) fail_msg("materials: %s", err.message);
        float *sum = malloc(w->particles.count * sizeof(float));
        unsigned *calls = malloc(w->particles.count * sizeof(unsigned));
        sums s = {sum, calls};
        run_pass(w, 0, EDDY_SPH_SIMD_BASELINE, &s);
        const eddy_kernels k = eddy_kernels_make(h, d);
        const double want_poly6 = rho0 - (1.0 - s0) * m * poly6_coefficient(h, d) * pow(h, 6);
        for (size_t i = 0; i < w->particles.count; ++i) {
            const double rho = eddy_sph_density(&k, sum[i], t.self_density[0]);
            if (!(fabs(rho - want_poly6) <= 2e-5 * rho0))
                fail_msg("%dD poly6, particle %zu: density %.7g, rho0 - (1 - s) m W(0) = %.7g", d, i, rho, want_poly6);
        }
        assert_int_equal(eddy_sph_materials_use_kernel(&t, w, EDDY_SPH_WENDLAND, &material_table[2], NULL, &err), EDDY_OK);
        sums v = {sum, calls};
        run_pass(w, 3, EDDY_SPH_SIMD_BASELINE, &v);
        const double scale = rho0 / (m * cube_sum(EDDY_SPH_WENDLAND, mat->particle_dist, h, d));
        const double want_w = rho0 - (1.0 - s0) * m * wendland_coefficient(h, d) * scale;
        for (size_t i = 0; i < w->particles.count; ++i) {
            const double rho = (double)t.density_scale[0] * sum[i] + t.self_density[0];
            if (!(fabs(rho - want_w) <= 2e-5 * rho0))
                fail_msg("%dD Wendland, particle %zu: density %.7g, rho0 - (1 - s) m W(0) scale = %.7g", d, i, rho, want_w);
        }
        if (!(fabs(t.gradient_scale[0] * eddy_sph_lattice_gradient_moment(EDDY_SPH_WENDLAND, mat->particle_dist, h, d) - 1.0) < 1e-6))
            fail_msg("%dD Wendland gradient scale %g", d, (double)t.gradient_scale[0]);
        free(sum);
        free(calls);
        eddy_sph_materials_free(&t);
        eddy_world_destroy(w);
    }
}

/*
 * eddy_sph_stable_dt against its formula (materials.h): min(cfl h / (c + v_max), 0.125 h^2 / nu_max,
 * 0.25 sqrt(h / a_max)), each limit named when it applies, limits with input <= 0 left out, +inf when
 * none applies; and eddy_sph_max_accel in one process: sqrtf(amax2).
 */
static void stable_dt_matches_formula(void **state)
{
    (void)state;
    const int periodic[3] = {1, 1, 1};
    eddy_world *w = random_world(300, 1.0f, 0.13f, periodic, 5, 1);
    const eddy_particles *p = &w->particles;
    double vmax = 0.0;
    for (size_t i = 0; i < p->count; ++i)
        vmax = fmax(vmax, sqrt((double)p->vx[i] * p->vx[i] + (double)p->vy[i] * p->vy[i] + (double)p->vz[i] * p->vz[i]));
    const double h = w->smoothing_radius;
    eddy_error err = {0};
    eddy_sph_materials t;
    if (eddy_sph_materials_init(&t, w, &material_table[0], NULL, NULL, NULL, &err)) fail_msg("materials: %s", err.message);
    t.viscosity[0] = 500.0f; /* mu, Pa s: a viscous limit that can bind */
    const double nu = 500.0 / 1000.0;
    const struct {
        double cfl, c, accel;
        int tables;
        const char *limit;
    } cases[] = {
        {0.4, 10.0, 0.0, 0, "CFL"},       /* no viscous limit without tables */
        {0.4, 0.01, 1.0, 1, "viscous"},   /* 0.125 h^2 / nu = 4.2 ms, CFL ~30 ms */
        {0.4, 1e5, 1.0, 1, "CFL"},
        {0.4, 10.0, 1e6, 1, "force"},
        {0.4, 10.0, -3.0, 0, "CFL"},     /* a negative acceleration: no force limit */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        const char *limit = NULL;
        const double got = eddy_sph_stable_dt(w, cases[c].cfl, cases[c].c, cases[c].tables ? &t : NULL, cases[c].accel, &limit);
        double want = cases[c].cfl * h / (cases[c].c + vmax);
        const char *name = "CFL";
        if (cases[c].tables && 0.125 * h * h / nu < want) want = 0.125 * h * h / nu, name = "viscous";
        if (cases[c].accel > 0 && 0.25 * sqrt(h / cases[c].accel) < want) want = 0.25 * sqrt(h / cases[c].accel), name = "force";
        if (!(fabs(got - want) <= 1e-6 * want) || !limit || strcmp(limit, name) != 0 || strcmp(name, cases[c].limit) != 0)
            fail_msg("case %zu: dt %.9g (%s), formula %.9g (%s)", c, got, limit ? limit : "NULL", want, name);
        assert_true(eddy_sph_stable_dt(w, cases[c].cfl, cases[c].c, cases[c].tables ? &t : NULL, cases[c].accel, NULL) == got);
    }
    /* At rest with no signal speed, no viscosity and no acceleration, no limit applies. */
    for (size_t i = 0; i < p->count; ++i) p->vx[i] = p->vy[i] = p->vz[i] = 0.0f;
    eddy_world_set_step_stats(w, NULL); /* velocities written here, not through a mapping */
    assert_true(isinf(eddy_sph_stable_dt(w, 0.4, 0.0, NULL, 0.0, NULL)));
    float a = -1.0f;
    assert_int_equal(eddy_sph_max_accel(w, 6.25f, &a, &err), EDDY_OK);
    assert_true(a == 2.5f);
    eddy_sph_materials_free(&t);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------------------------------------- */
/* The rest-lattice normalization of every kernel                                                  */
/* ---------------------------------------------------------------------------------------------- */

/*
 * For every kernel in 2D and 3D, on the lattice the host derives (mass rho0 (h/2)^d, the spacing at
 * which poly6 sums to rho0): eddy_sph_rest_scale times m times the lattice summed here with the
 * reference kernels is rho0 (and the scale is 1 for poly6). At exactly h = 2 spacings the ratios of
 * the sums and the gradient moments are the figures that lattice.h and docs/toolkit.md quote.
 */
static void rest_scale_every_kernel_2d_3d(void **state)
{
    (void)state;
    const char *names[] = {"poly6", "spiky", "cubic spline", "Wendland C2"};
    /* [kernel][d - 2]: the documented figures, to their three decimals. */
    const double ratio_doc[4][2] = {{1.0, 1.0}, {1.255, 1.224}, {0.986, 0.990}, {1.023, 1.024}};
    const double moment_doc[4][2] = {{1.000, 1.055}, {0.874, 0.947}, {0.999, 1.010}, {0.962, 0.973}};
    const float h = 0.1f, rho0 = 1000.0f;
    for (int d = 2; d <= 3; ++d) {
        eddy_material m = eddy_default_material();
        m.rest_density = rho0;
        m.particle_mass = rho0 * powf(0.5f * h, (float)d);
        m.particle_dist = eddy_rest_spacing(m.particle_mass, rho0, h, d);
        for (int kern = EDDY_SPH_POLY6; kern <= EDDY_SPH_WENDLAND; ++kern) {
            const double scale = eddy_sph_rest_scale((eddy_sph_kernel)kern, &m, h, d);
            const double rho = scale * m.particle_mass * cube_sum((eddy_sph_kernel)kern, m.particle_dist, h, d);
            if (!(fabs(rho / rho0 - 1.0) < 1e-5))
                fail_msg("%s %dD: scale %.9g gives %.9g on the lattice, not rho0", names[kern], d, scale, rho);
            if (kern == EDDY_SPH_POLY6 ? !(fabs(scale - 1.0) < 1e-5) : !(fabs(scale - 1.0) > 0.005))
                fail_msg("%s %dD: scale %.9g", names[kern], d, scale);
            const double ratio = cube_sum((eddy_sph_kernel)kern, 0.5 * h, h, d) / cube_sum(EDDY_SPH_POLY6, 0.5 * h, h, d);
            const double moment = eddy_sph_lattice_gradient_moment((eddy_sph_kernel)kern, 0.5 * h, h, d);
            if (!(fabs(ratio - ratio_doc[kern][d - 2]) <= 5e-4 + 1e-6))
                fail_msg("%s %dD: sum W / sum W_poly6 at h = 2 spacings is %.6f, documented %.3f", names[kern], d, ratio,
                         ratio_doc[kern][d - 2]);
            if (!(fabs(moment - moment_doc[kern][d - 2]) <= 5e-4 + 1e-6))
                fail_msg("%s %dD: gradient moment at h = 2 spacings is %.6f, documented %.3f", names[kern], d, moment,
                         moment_doc[kern][d - 2]);
        }
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* State records                                                                                   */
/* ---------------------------------------------------------------------------------------------- */

/*
 * Records at their edges: no parts at all, an empty part without an array, values that must keep
 * their bits (-0, a subnormal, FLT_MAX); a truncated record, a non-finite value and another count
 * refused with the arrays untouched.
 */
static void state_records_edges(void **state)
{
    (void)state;
    eddy_error err = {0};
    void *data = NULL;
    size_t size = 0;
    assert_int_equal(eddy_sph_state_save("none/1", NULL, NULL, 0, &data, &size, &err), EDDY_OK);
    assert_int_equal(eddy_sph_state_load("none/1", NULL, NULL, 0, data, size, &err), EDDY_OK);
    float one = 3.0f;
    float *const one_part[] = {&one};
    const size_t one_count[] = {1};
    assert_int_equal(eddy_sph_state_load("none/1", one_part, one_count, 1, data, size, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_true(one == 3.0f);
    free(data);

    const float a[3] = {-0.0f, FLT_TRUE_MIN, FLT_MAX}, b[2] = {1.0f / 3.0f, -7.25f};
    const float *parts[] = {a, NULL, b};
    const size_t counts[] = {3, 0, 2};
    assert_int_equal(eddy_sph_state_save("edge/1", parts, counts, 3, &data, &size, &err), EDDY_OK);
    float a2[3] = {1, 1, 1}, b2[2] = {1, 1};
    float *const out[] = {a2, NULL, b2};
    assert_int_equal(eddy_sph_state_load("edge/1", out, counts, 3, data, size, &err), EDDY_OK);
    assert_memory_equal(a, a2, sizeof a);
    assert_memory_equal(b, b2, sizeof b);
    /* Truncated, or with a value made infinite: refused, nothing written. */
    float c3[3] = {9, 9, 9}, c2[2] = {9, 9};
    float *const keep[] = {c3, NULL, c2};
    assert_int_equal(eddy_sph_state_load("edge/1", keep, counts, 3, data, size - 1, &err), EDDY_ERR_INVALID_ARGUMENT);
    const float inf = INFINITY;
    memcpy((char *)data + size - sizeof(float), &inf, sizeof inf);
    assert_int_equal(eddy_sph_state_load("edge/1", keep, counts, 3, data, size, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_true(c3[0] == 9 && c3[2] == 9 && c2[0] == 9 && c2[1] == 9);
    free(data);
}

/* ---------------------------------------------------------------------------------------------- */
/* Bad arguments                                                                                   */
/* ---------------------------------------------------------------------------------------------- */

static void expect_error(int rc, int code, const eddy_error *err, const char *text)
{
    if (rc != code) fail_msg("status %d (%s), expected %d; message '%s'", rc, eddy_strerror(rc), code, err->message);
    if (!strstr(err->message, text)) fail_msg("message '%s' does not say '%s'", err->message, text);
}

/*
 * eddy_sph_fall_height against the extent along the unit vector of gravity computed here in double
 * (the toolkit takes the dot product in float, as tait always did: a relative bar of 1e-6), for gravity along -y and tilted; a halo copy placed beyond every
 * particle does not count; no gravity gives 0; NULL arguments are refused by name.
 */
static void fall_height_spans_owned_particles(void **state)
{
    (void)state;
    const int periodic[3] = {0, 0, 0};
    eddy_world *w = random_world(300, 1.0f, 0.13f, periodic, 11, 0);
    eddy_particles *p = &w->particles;
    const float gravities[][3] = {{0.0f, -9.81f, 0.0f}, {3.0f, -4.0f, 1.5f}};
    eddy_error err = {0};
    for (size_t c = 0; c < 2; ++c) {
        memcpy(w->gravity, gravities[c], sizeof w->gravity);
        const double g = sqrt((double)w->gravity[0] * w->gravity[0] + (double)w->gravity[1] * w->gravity[1] +
                              (double)w->gravity[2] * w->gravity[2]);
        const double u[3] = {-w->gravity[0] / g, -w->gravity[1] / g, -w->gravity[2] / g};
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < p->count; ++i) {
            const double up = p->x[i] * u[0] + p->y[i] * u[1] + p->z[i] * u[2];
            lo = fmin(lo, up);
            hi = fmax(hi, up);
        }
        double H = -1.0;
        assert_int_equal(eddy_sph_fall_height(w, &H, &err), EDDY_OK);
        assert_true(hi - lo > 0.5 && fabs(H - (hi - lo)) <= 1e-6 * (hi - lo));
        /* A halo copy far above every particle: left out. */
        const float x0 = p->x[0], y0 = p->y[0], z0 = p->z[0];
        p->x[0] = (float)(10.0 * u[0]), p->y[0] = (float)(10.0 * u[1]), p->z[0] = (float)(10.0 * u[2]);
        double with_owned = -1.0;
        assert_int_equal(eddy_sph_fall_height(w, &with_owned, &err), EDDY_OK);
        assert_true(with_owned > 9.0);
        p->flags[0] = EDDY_PARTICLE_HALO;
        p->halo_count = 1;
        double without = -1.0;
        assert_int_equal(eddy_sph_fall_height(w, &without, &err), EDDY_OK);
        assert_true(without < 2.0);
        p->flags[0] = 0;
        p->halo_count = 0;
        p->x[0] = x0, p->y[0] = y0, p->z[0] = z0;
    }
    memset(w->gravity, 0, sizeof w->gravity);
    double H = -1.0;
    assert_int_equal(eddy_sph_fall_height(w, &H, &err), EDDY_OK);
    assert_true(H == 0.0);
    expect_error(eddy_sph_fall_height(w, NULL, &err), EDDY_ERR_INVALID_ARGUMENT, &err, "height");
    expect_error(eddy_sph_fall_height(NULL, &H, &err), EDDY_ERR_INVALID_ARGUMENT, &err, "world");
    eddy_world_destroy(w);
}

/*
 * The material tables, the lattice helpers and the time step's inputs: NULL pointers, a smoothing
 * radius that is not positive, tables of another world, a kernel outside the enum, a material whose
 * lattice sums to nothing; each refused with a status and a message (or NaN where a number is
 * returned), the tables as they were.
 */
static void materials_refuse_bad_arguments(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_param_value values[3];
    eddy_world *w = two_material_world(3, 0.1f, values);
    eddy_sph_materials t;
    expect_error(eddy_sph_materials_init(NULL, w, NULL, NULL, NULL, "test", &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "test: material tables: NULL tables");
    memset(&t, 0xa5, sizeof t);
    expect_error(eddy_sph_materials_init(&t, NULL, NULL, NULL, NULL, "test", &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "no world");
    assert_true(t.count == 0 && t.block == NULL);
    const float radii[] = {0.0f, -0.1f, NAN, INFINITY};
    for (size_t r = 0; r < sizeof radii / sizeof *radii; ++r) {
        w->smoothing_radius = radii[r];
        memset(&t, 0xa5, sizeof t);
        expect_error(eddy_sph_materials_init(&t, w, NULL, NULL, NULL, NULL, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                     "expected a positive number");
        assert_true(t.count == 0 && t.block == NULL);
    }
    w->smoothing_radius = 0.1f;
    if (eddy_sph_materials_init(&t, w, NULL, NULL, NULL, NULL, &err)) fail_msg("materials: %s", err.message);
    const float scale0 = t.density_scale[0], self0 = t.self_density[0], gs0 = t.gradient_scale[0];
    /* Tables of this world (two materials) against a world of one. */
    const int periodic[3] = {1, 1, 1};
    eddy_world *one = random_world(10, 1.0f, 0.1f, periodic, 3, 1);
    expect_error(eddy_sph_materials_use_kernel(&t, one, EDDY_SPH_WENDLAND, NULL, NULL, &err), EDDY_ERR_INVALID_ARGUMENT,
                 &err, "material tables of 2 materials for a world of 1");
    /* poly6, which the tables already hold, refuses the same arguments (it returned OK before checking). */
    expect_error(eddy_sph_materials_use_kernel(&t, one, EDDY_SPH_POLY6, NULL, NULL, &err), EDDY_ERR_INVALID_ARGUMENT,
                 &err, "material tables of 2 materials for a world of 1");
    expect_error(eddy_sph_materials_use_kernel(&t, NULL, EDDY_SPH_POLY6, NULL, NULL, &err), EDDY_ERR_INVALID_ARGUMENT,
                 &err, "no world");
    assert_int_equal(eddy_sph_materials_use_kernel(&t, w, EDDY_SPH_POLY6, NULL, NULL, &err), EDDY_OK);
    expect_error(eddy_sph_materials_use_kernel(NULL, w, EDDY_SPH_WENDLAND, NULL, NULL, &err), EDDY_ERR_INVALID_ARGUMENT,
                 &err, "NULL tables");
    expect_error(eddy_sph_materials_use_kernel(&t, NULL, EDDY_SPH_WENDLAND, NULL, NULL, &err), EDDY_ERR_INVALID_ARGUMENT,
                 &err, "no world");
    expect_error(eddy_sph_materials_use_kernel(&t, w, (eddy_sph_kernel)7, NULL, "test", &err), EDDY_ERR_UNSUPPORTED, &err,
                 "test: no density pass sums the unknown kernel");
    /* A material whose lattice sums to nothing (a spacing of 0, which the host never derives). */
    const float dist = w->materials[1].particle_dist;
    w->materials[1].particle_dist = 0.0f;
    expect_error(eddy_sph_materials_use_kernel(&t, w, EDDY_SPH_WENDLAND, NULL, NULL, &err), EDDY_ERR_INVALID_ARGUMENT,
                 &err, "material 1 ('oil')");
    w->materials[1].particle_dist = dist;
    assert_true(t.density_scale[0] == scale0 && t.self_density[0] == self0 && t.gradient_scale[0] == gs0);
    assert_int_equal(eddy_sph_materials_use_kernel(&t, w, EDDY_SPH_WENDLAND, NULL, NULL, &err), EDDY_OK);
    assert_true(t.density_scale[0] != scale0);
    /* NULL tables are tables without materials. */
    assert_true(eddy_sph_nu_max(NULL) == 0.0 && eddy_sph_stiffness_max(NULL) == 0.0);
    expect_error(eddy_sph_max_accel(w, 4.0f, NULL, &err), EDDY_ERR_INVALID_ARGUMENT, &err, "max_accel");
    float a = 0.0f;
    expect_error(eddy_sph_max_accel(NULL, 4.0f, &a, &err), EDDY_ERR_INVALID_ARGUMENT, &err, "world");

    /* The lattice helpers: NaN for a kernel outside the enum, a NULL material or a lattice without mass. */
    assert_true(isnan(eddy_sph_lattice_sum((eddy_sph_kernel)9, 0.05, 0.1, 3)));
    assert_true(isnan(eddy_sph_lattice_gradient_moment((eddy_sph_kernel)-1, 0.05, 0.1, 2)));
    assert_true(isnan(eddy_sph_lattice_density((eddy_sph_kernel)4, 1.0, 0.05, 0.1, 2)));
    assert_true(isnan(eddy_sph_rest_scale(EDDY_SPH_CUBIC, NULL, 0.1, 3)));
    eddy_material m = w->materials[0];
    m.particle_dist = 0.0f;
    assert_true(isnan(eddy_sph_rest_scale(EDDY_SPH_CUBIC, &m, 0.1, 3)));
    m = w->materials[0];
    assert_true(isnan(eddy_sph_rest_scale(EDDY_SPH_WENDLAND, &m, -0.1, 3)));
    m.particle_mass = 0.0f;
    assert_true(isnan(eddy_sph_rest_scale(EDDY_SPH_WENDLAND, &m, 0.1, 3)));
    /* The documented values at the edges the core shares. */
    assert_true(eddy_sph_lattice_sum(EDDY_SPH_SPIKY, 0.05, 0.0, 3) == 0.0);
    assert_true(eddy_sph_lattice_gradient_moment(EDDY_SPH_SPIKY, 0.05, -1.0, 3) == 1.0);
    assert_true(isnan(eddy_sph_lattice_sum(EDDY_SPH_SPIKY, NAN, 0.1, 3)));
    eddy_sph_materials_free(&t);
    eddy_world_destroy(one);
    eddy_world_destroy(w);
}

/* State records: a NULL tag, parts without arrays, counts past what a record holds (or past size_t),
 * and nowhere to put or read the record: refused before any array is read, *data untouched. */
static void state_records_refuse_bad_arguments(void **state)
{
    (void)state;
    eddy_error err = {0};
    const float v[2] = {1.0f, 2.0f};
    const float *parts[] = {v, v};
    const size_t counts[] = {2, 2};
    void *data = (void *)&err; /* a sentinel: must stay */
    size_t size = 77;
    expect_error(eddy_sph_state_save(NULL, parts, counts, 2, &data, &size, &err), EDDY_ERR_INVALID_ARGUMENT, &err, "no tag");
    expect_error(eddy_sph_state_save("t/1", NULL, counts, 2, &data, &size, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "without arrays");
    expect_error(eddy_sph_state_save("t/1", parts, NULL, 2, &data, &size, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "without counts");
    const float *holey[] = {v, NULL};
    expect_error(eddy_sph_state_save("t/1", holey, counts, 2, &data, &size, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "part 1 has 2 values but no array");
    /* More values than a record's uint32 count holds, and counts whose sum wraps around size_t: the
     * arrays hold two floats each, so reading them as counted would run far past them. */
    const size_t huge[] = {UINT32_MAX, 1}, wraps[] = {SIZE_MAX, 2};
    expect_error(eddy_sph_state_save("t/1", parts, huge, 2, &data, &size, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "more than 4294967295 values");
    expect_error(eddy_sph_state_save("t/1", parts, wraps, 2, &data, &size, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "more than 4294967295 values");
    expect_error(eddy_sph_state_save("t/1", parts, counts, 2, NULL, &size, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "nowhere");
    assert_true(data == (void *)&err && size == 77);

    float o[2] = {5, 5};
    float *const out[] = {o, o};
    expect_error(eddy_sph_state_load(NULL, out, counts, 2, "t/1", 4, &err), EDDY_ERR_INVALID_ARGUMENT, &err, "no tag");
    expect_error(eddy_sph_state_load("t/1", out, wraps, 2, "t/1", 4, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "more than 4294967295 values");
    expect_error(eddy_sph_state_load("t/1", out, counts, 2, NULL, 24, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "a record of 24 bytes at NULL");
    assert_true(o[0] == 5 && o[1] == 5);
}

/* The neighbour lists and particle shifting: a smoothing radius that is not positive, NULL arguments,
 * tables of another world, a negative time step; refused, nothing moved. */
static void lists_and_shifting_refuse_bad_arguments(void **state)
{
    (void)state;
    eddy_error err = {0};
    const int periodic[3] = {1, 0, 0};
    eddy_world *w = random_world(400, 1.0f, 0.13f, periodic, 9, 1);
    eddy_particles *p = &w->particles;
    eddy_sph_neighbors nb = {0};
    const float radii[] = {0.0f, -0.13f, NAN};
    for (size_t r = 0; r < sizeof radii / sizeof *radii; ++r)
        expect_error(eddy_sph_neighbors_build(&nb, &w->grid, p, &w->boundaries, radii[r], 0.2f, "test", &err),
                     EDDY_ERR_INVALID_ARGUMENT, &err, "test: neighbour lists: the smoothing radius is");
    expect_error(eddy_sph_neighbors_build(&nb, &w->grid, p, &w->boundaries, 0.2f, 0.2f, NULL, &err),
                 EDDY_ERR_INVALID_ARGUMENT, &err, "smaller than the smoothing radius 0.2");
    expect_error(eddy_sph_neighbors_build(NULL, &w->grid, p, &w->boundaries, 0.13f, 0.2f, NULL, &err),
                 EDDY_ERR_INVALID_ARGUMENT, &err, "NULL lists");
    expect_error(eddy_sph_neighbors_build(&nb, &w->grid, p, NULL, 0.13f, 0.2f, NULL, &err), EDDY_ERR_INVALID_ARGUMENT,
                 &err, "NULL boundaries");
    assert_int_equal(eddy_sph_neighbors_build(&nb, &w->grid, p, &w->boundaries, 0.13f, 0.2f, NULL, &err), EDDY_OK);
    eddy_sph_neighbors_free(&nb);

    for (size_t i = 0; i < p->count; ++i) p->density[i] = 1000.0f;
    eddy_param_value values[3];
    eddy_world *two = two_material_world(3, 0.13f, values);
    eddy_sph_materials other, mine;
    if (eddy_sph_materials_init(&other, two, NULL, NULL, NULL, NULL, &err) ||
        eddy_sph_materials_init(&mine, w, NULL, NULL, NULL, NULL, &err))
        fail_msg("materials: %s", err.message);
    float *before = malloc(3 * p->count * sizeof(float));
    memcpy(before, p->x, p->count * sizeof(float));
    memcpy(before + p->count, p->y, p->count * sizeof(float));
    memcpy(before + 2 * p->count, p->z, p->count * sizeof(float));
    eddy_sph_shifting sh = eddy_sph_shifting_make(2.0f);
    expect_error(eddy_sph_shift(&sh, w, &other, 1e-3f, "test", &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "test: particle shifting: material tables of 2 materials for a world of 1");
    expect_error(eddy_sph_shift(&sh, w, NULL, 1e-3f, NULL, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "material tables of 0 materials");
    expect_error(eddy_sph_shift(&sh, w, &mine, -1e-3f, NULL, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "the time step is -0.001");
    expect_error(eddy_sph_shift(&sh, w, &mine, NAN, NULL, &err), EDDY_ERR_INVALID_ARGUMENT, &err, "the time step is nan");
    assert_true(memcmp(before, p->x, p->count * sizeof(float)) == 0 &&
                memcmp(before + p->count, p->y, p->count * sizeof(float)) == 0 &&
                memcmp(before + 2 * p->count, p->z, p->count * sizeof(float)) == 0);
    /* Off: nothing read, nothing refused. */
    eddy_sph_shifting off = eddy_sph_shifting_make(0.0f);
    assert_int_equal(eddy_sph_shift(&off, w, NULL, -1.0f, NULL, &err), EDDY_OK);
    assert_int_equal(eddy_sph_shift(&sh, w, &mine, 1e-3f, NULL, &err), EDDY_OK);
    eddy_sph_shifting_free(&sh);
    eddy_sph_shifting_free(&sh);
    free(before);
    eddy_sph_materials_free(&other);
    eddy_sph_materials_free(&mine);
    eddy_world_destroy(two);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------------------------------------- */
/* Image maps, tables of candidates, records                                                       */
/* ---------------------------------------------------------------------------------------------- */

/*
 * Every image of a particle near the walls (corners with gravity) against the core's mirror it was
 * made from: x_i - M(x_j) by eddy_sph_image_diff and by eddy_sph_image_origin + _of_diff against
 * x_i - eddy_mirror_point, the ghost velocity and pressure bit for bit against eddy_mirror_velocity
 * and eddy_mirror_pressure (the same products in the same order).
 */
static void image_maps_match_core(void **state)
{
    (void)state;
    const int periodic[3] = {0, 0, 0};
    eddy_world *w = random_world(800, 1.0f, 0.13f, periodic, 31, 1);
    const eddy_particles *p = &w->particles;
    const float h = w->smoothing_radius;
    uint64_t seed = 4;
    size_t images = 0;
    for (size_t i = 0; i < p->count; ++i) {
        const float xi[3] = {p->x[i], p->y[i], p->z[i]};
        eddy_mirror mir[EDDY_MAX_MIRRORS];
        const int nm = eddy_boundaries_mirrors(&w->boundaries, w->gravity, h, xi, mir);
        eddy_sph_image img[EDDY_MAX_MIRRORS];
        assert_int_equal(eddy_sph_images(&w->boundaries, w->gravity, h, xi[0], xi[1], xi[2], img), nm);
        for (int mi = 0; mi < nm; ++mi) {
            eddy_sph_image made;
            eddy_sph_image_make(&mir[mi], xi[0], xi[1], xi[2], &made);
            assert_memory_equal(&made, &img[mi], sizeof made);
            float c0[3];
            eddy_sph_image_origin(&img[mi], xi[0], xi[1], xi[2], c0);
            for (int t = 0; t < 8; ++t, ++images) {
                const size_t j = (size_t)(uniform(&seed) * (double)p->count);
                const float xj[3] = {p->x[j], p->y[j], p->z[j]}, vj[3] = {p->vx[j], p->vy[j], p->vz[j]};
                float gp[3], ex, ey, ez, fx, fy, fz;
                eddy_mirror_point(&mir[mi], xj, gp);
                eddy_sph_image_diff(&img[mi], xj[0], xj[1], xj[2], &ex, &ey, &ez);
                eddy_sph_image_of_diff(&img[mi], c0, xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2], &fx, &fy, &fz);
                const float want[3] = {xi[0] - gp[0], xi[1] - gp[1], xi[2] - gp[2]};
                const float got[2][3] = {{ex, ey, ez}, {fx, fy, fz}};
                for (int f = 0; f < 2; ++f)
                    for (int a = 0; a < 3; ++a)
                        if (!(fabsf(got[f][a] - want[a]) <= 4e-6f))
                            fail_msg("particle %zu, mirror %d, partner %zu, axis %d: %s %.9g, core %.9g", i, mi, j, a,
                                     f ? "origin + of_diff" : "image_diff", (double)got[f][a], (double)want[a]);
                float gv[3], cv[3];
                eddy_sph_image_velocity(&img[mi], vj[0], vj[1], vj[2], &gv[0], &gv[1], &gv[2]);
                eddy_mirror_velocity(&mir[mi], vj, cv);
                assert_memory_equal(gv, cv, sizeof gv);
                const float pj = 1234.5f, rho = 998.0f;
                const float gpres = eddy_sph_image_pressure(&img[mi], pj, rho, xj[0], xj[1], xj[2]);
                const float cpres = eddy_mirror_pressure(&mir[mi], pj, rho, xj);
                assert_memory_equal(&gpres, &cpres, sizeof gpres);
            }
        }
    }
    print_message("%zu ghosts compared\n", images);
    assert_true(images > 2000);
    eddy_world_destroy(w);
}

/* The sums of a pair loop the way a solver writes one: a pressure-like gradient term and a
 * velocity-difference term, so that positions, velocities, pressures, densities and masses all enter. */
typedef struct partner_test_sums {
    float a[3], u[3];
} partner_test_sums;

/* Written once with eddy_sph/partners.h, for the candidates (img NULL) or one mirror's ghosts. */
EDDY_SPH_SIMD_BODY partner_test_sums partner_loop(const eddy_kernels *k, const eddy_sph_candidates *c,
                                                  const eddy_sph_image *img, const float xi[3], const float vi[3])
{
    const eddy_sph_partners v = eddy_sph_partners_make(c, img);
    float a0 = 0, a1 = 0, a2 = 0, u0 = 0, u1 = 0, u2 = 0;
    EDDY_SPH_SIMD_SUM(a0, a1, a2, u0, u1, u2)
    for (size_t q = 0; q < v.count; ++q) {
        const eddy_sph_partner j = eddy_sph_partner_at(&v, q, xi[0], xi[1], xi[2]);
        const float r2 = j.dx * j.dx + j.dy * j.dy + j.dz * j.dz;
        const float g = eddy_sph_spiky_grad(k, r2, 1e-12f * k->h2) * v.m[q] * j.pressure / (v.density[q] * v.density[q]);
        const float wv = eddy_sph_poly6(k, r2) * v.m[q];
        a0 += g * j.dx, a1 += g * j.dy, a2 += g * j.dz;
        u0 += wv * (j.vx - vi[0]), u1 += wv * (j.vy - vi[1]), u2 += wv * (j.vz - vi[2]);
    }
    const partner_test_sums r = {{a0, a1, a2}, {u0, u1, u2}};
    return r;
}

/* The same sums written out by hand, one loop for the candidates and one per mirror, as the solvers
 * had them before partners.h. */
static partner_test_sums hand_loops(const eddy_kernels *k, const eddy_sph_candidates *c, const eddy_sph_image *img,
                                    int nimg, const float xi[3], const float vi[3])
{
    const size_t n = c->count;
    const float *cx = c->x, *cy = c->y, *cz = c->z, *cm = c->m;
    const float *cvx = c->extra[EDDY_SPH_VX], *cvy = c->extra[EDDY_SPH_VY], *cvz = c->extra[EDDY_SPH_VZ];
    const float *cp = c->extra[EDDY_SPH_PRESSURE], *crho = c->extra[EDDY_SPH_DENSITY];
    const float tiny2 = 1e-12f * k->h2;
    float a0 = 0, a1 = 0, a2 = 0, u0 = 0, u1 = 0, u2 = 0;
    EDDY_SPH_SIMD_SUM(a0, a1, a2, u0, u1, u2)
    for (size_t q = 0; q < n; ++q) {
        const float dx = xi[0] - cx[q], dy = xi[1] - cy[q], dz = xi[2] - cz[q];
        const float r2 = dx * dx + dy * dy + dz * dz;
        const float g = eddy_sph_spiky_grad(k, r2, tiny2) * cm[q] * cp[q] / (crho[q] * crho[q]);
        const float wv = eddy_sph_poly6(k, r2) * cm[q];
        a0 += g * dx, a1 += g * dy, a2 += g * dz;
        u0 += wv * (cvx[q] - vi[0]), u1 += wv * (cvy[q] - vi[1]), u2 += wv * (cvz[q] - vi[2]);
    }
    for (int mi = 0; mi < nimg; ++mi) {
        const eddy_sph_image gi = img[mi];
        float b0 = 0, b1 = 0, b2 = 0, y0 = 0, y1 = 0, y2 = 0;
        EDDY_SPH_SIMD_SUM(b0, b1, b2, y0, y1, y2)
        for (size_t q = 0; q < n; ++q) {
            float ex, ey, ez, gx, gy, gz;
            eddy_sph_image_diff(&gi, cx[q], cy[q], cz[q], &ex, &ey, &ez);
            eddy_sph_image_velocity(&gi, cvx[q], cvy[q], cvz[q], &gx, &gy, &gz);
            const float pg = eddy_sph_image_pressure(&gi, cp[q], crho[q], cx[q], cy[q], cz[q]);
            const float r2 = ex * ex + ey * ey + ez * ez;
            const float g = eddy_sph_spiky_grad(k, r2, tiny2) * cm[q] * pg / (crho[q] * crho[q]);
            const float wv = eddy_sph_poly6(k, r2) * cm[q];
            b0 += g * ex, b1 += g * ey, b2 += g * ez;
            y0 += wv * (gx - vi[0]), y1 += wv * (gy - vi[1]), y2 += wv * (gz - vi[2]);
        }
        a0 += b0, a1 += b1, a2 += b2, u0 += y0, u1 += y1, u2 += y2;
    }
    const partner_test_sums r = {{a0, a1, a2}, {u0, u1, u2}};
    return r;
}

/*
 * eddy_sph/partners.h on a walled box with random velocities, pressures and densities, with free-slip
 * and no-slip ghosts: every partner eddy_sph_partner_at gives is, bit for bit, the candidate's offset,
 * velocity and pressure (img NULL; the state slots eddy_sph_gather_state_with filled from the
 * particles, and a solver slot beside them) or its ghost's (eddy_sph_image_diff, _velocity,
 * _pressure); a pair loop written once with it over the candidates and then each mirror sums, in this
 * file, bit for bit what two hand-written loops sum; and both agree, within float rounding, with an
 * O(N^2) sum in double over every particle and every core mirror ghost (eddy_mirror_point, _velocity,
 * _pressure; eddy_boundaries_mirror_walls' wall velocities for no slip) within h.
 */
static void partners_match_candidates_ghosts_and_hand_loops(void **state)
{
    (void)state;
    const int periodic[3] = {0, 0, 0};
    eddy_world *w = random_world(900, 1.0f, 0.13f, periodic, 57, 1);
    eddy_particles *p = &w->particles;
    uint64_t seed = 9;
    for (size_t i = 0; i < p->count; ++i) {
        p->pressure[i] = (float)(2000.0 * uniform(&seed));
        p->density[i] = (float)(950.0 + 100.0 * uniform(&seed));
    }
    const eddy_grid *g = &w->grid;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    enum { C_MASS = EDDY_SPH_STATE_SLOTS, C_EXTRA }; /* a solver slot beside the state */
    eddy_sph_candidates c = eddy_sph_candidates_make(C_EXTRA);
    size_t particles = 0, ghosts = 0, ghost_partners = 0;
    double worst = 0.0;
    for (int wall = EDDY_SPH_WALL_SLIP; wall <= EDDY_SPH_WALL_NO_SLIP; ++wall)
    for (uint32_t ci = 0; ci < g->occupied_count; ++ci) {
        const uint32_t cell = g->occupied[ci];
        assert_int_equal(eddy_sph_gather(&c, g, p, cell), 0);
        static const int slot[] = {C_MASS};
        const float *const src[] = {p->mass};
        eddy_sph_gather_state_with(&c, p, 1, slot, src);
        for (size_t q = 0; q < c.count; ++q) assert_memory_equal(&c.extra[C_MASS][q], &c.m[q], sizeof(float));
        for (uint32_t i = g->cell_begin[cell]; i < g->cell_end[cell]; ++i, ++particles) {
            const float xi[3] = {p->x[i], p->y[i], p->z[i]}, vi[3] = {p->vx[i], p->vy[i], p->vz[i]};
            eddy_sph_image img[EDDY_MAX_MIRRORS];
            const int nimg = eddy_sph_wall_images(&w->boundaries, w->gravity, k.h, (eddy_sph_wall_velocity)wall,
                                                  xi[0], xi[1], xi[2], img);
            ghosts += (size_t)nimg;
            /* Each partner, real and ghost. */
            const eddy_sph_partners real = eddy_sph_partners_make(&c, NULL);
            assert_int_equal(real.count, c.count);
            for (size_t q = 0; q < c.count; ++q) {
                const uint32_t j = c.index[q];
                const eddy_sph_partner r = eddy_sph_partner_at(&real, q, xi[0], xi[1], xi[2]);
                const float want[7] = {xi[0] - c.x[q], xi[1] - c.y[q], xi[2] - c.z[q], p->vx[j], p->vy[j], p->vz[j],
                                       p->pressure[j]};
                const float got[7] = {r.dx, r.dy, r.dz, r.vx, r.vy, r.vz, r.pressure};
                assert_memory_equal(got, want, sizeof want);
                assert_memory_equal(&real.density[q], &p->density[j], sizeof(float));
                for (int mi = 0; mi < nimg; ++mi, ++ghost_partners) {
                    const eddy_sph_partners mirrored = eddy_sph_partners_make(&c, &img[mi]);
                    const eddy_sph_partner gp = eddy_sph_partner_at(&mirrored, q, xi[0], xi[1], xi[2]);
                    float e[7];
                    eddy_sph_image_diff(&img[mi], c.x[q], c.y[q], c.z[q], &e[0], &e[1], &e[2]);
                    eddy_sph_image_velocity(&img[mi], p->vx[j], p->vy[j], p->vz[j], &e[3], &e[4], &e[5]);
                    e[6] = eddy_sph_image_pressure(&img[mi], p->pressure[j], p->density[j], c.x[q], c.y[q], c.z[q]);
                    const float gg[7] = {gp.dx, gp.dy, gp.dz, gp.vx, gp.vy, gp.vz, gp.pressure};
                    assert_memory_equal(gg, e, sizeof e);
                }
            }
            /* The loop written once against the hand-written loops, bit for bit. */
            partner_test_sums once = partner_loop(&k, &c, NULL, xi, vi);
            for (int mi = 0; mi < nimg; ++mi) {
                const partner_test_sums more = partner_loop(&k, &c, &img[mi], xi, vi);
                for (int a = 0; a < 3; ++a) once.a[a] += more.a[a], once.u[a] += more.u[a];
            }
            const partner_test_sums hand = hand_loops(&k, &c, img, nimg, xi, vi);
            if (memcmp(&once, &hand, sizeof once) != 0)
                fail_msg("particle %u (%d mirrors): partners.h sums (%.9g %.9g %.9g | %.9g %.9g %.9g) differ from the "
                         "hand-written loops' (%.9g %.9g %.9g | %.9g %.9g %.9g)", i, nimg, (double)once.a[0],
                         (double)once.a[1], (double)once.a[2], (double)once.u[0], (double)once.u[1], (double)once.u[2],
                         (double)hand.a[0], (double)hand.a[1], (double)hand.a[2], (double)hand.u[0], (double)hand.u[1],
                         (double)hand.u[2]);
            /* Against every particle and every core ghost within h, in double. */
            double ref[6] = {0}, scale[6] = {0};
            eddy_mirror mir[EDDY_MAX_MIRRORS];
            const int nm = eddy_boundaries_mirrors(&w->boundaries, w->gravity, k.h, xi, mir);
            assert_int_equal(nm, nimg);
            for (size_t j = 0; j < p->count; ++j) {
                const float xj[3] = {p->x[j], p->y[j], p->z[j]}, vj[3] = {p->vx[j], p->vy[j], p->vz[j]};
                for (int mi = -1; mi < nm; ++mi) {
                    float pos[3] = {xj[0], xj[1], xj[2]}, vel[3] = {vj[0], vj[1], vj[2]};
                    double pres = p->pressure[j];
                    if (mi >= 0) {
                        eddy_mirror_point(&mir[mi], xj, pos);
                        eddy_mirror_velocity(&mir[mi], vj, vel);
                        if (wall == EDDY_SPH_WALL_NO_SLIP) {
                            /* The container is at rest: each reflection turns the velocity, u -> -u,
                             * so the ghost carries det(R) v_j. */
                            const eddy_real(*r)[3] = mir[mi].rotation;
                            const double det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) -
                                               r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) +
                                               r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
                            for (int a = 0; a < 3; ++a) vel[a] = (float)(det * vj[a]);
                        }
                        pres = eddy_mirror_pressure(&mir[mi], p->pressure[j], p->density[j], xj);
                    }
                    const double d[3] = {(double)xi[0] - pos[0], (double)xi[1] - pos[1], (double)xi[2] - pos[2]};
                    const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], h = k.h;
                    if (!(r2 < h * h) || r2 <= 1e-12 * h * h) continue;
                    const double r = sqrt(r2), rho = p->density[j], m = p->mass[j];
                    const double gr = -45.0 / (M_PI * pow(h, 6)) * (h - r) * (h - r) / r * m * pres / (rho * rho);
                    const double wv = 315.0 / (64.0 * M_PI * pow(h, 9)) * pow(h * h - r2, 3) * m;
                    for (int a = 0; a < 3; ++a) {
                        ref[a] += gr * d[a], scale[a] += fabs(gr * d[a]);
                        ref[3 + a] += wv * ((double)vel[a] - vi[a]), scale[3 + a] += fabs(wv * ((double)vel[a] - vi[a]));
                    }
                }
            }
            const float got[6] = {once.a[0], once.a[1], once.a[2], once.u[0], once.u[1], once.u[2]};
            for (int f = 0; f < 6; ++f) {
                const double err = fabs(got[f] - ref[f]) / (scale[f] + 1e-30);
                worst = err > worst ? err : worst;
                if (!(err < 1e-4))
                    fail_msg("particle %u, sum %d: %.9g, O(N^2) double %.9g (relative to the sum of magnitudes %.3g)",
                             i, f, (double)got[f], ref[f], err);
            }
        }
    }
    print_message("%zu particle sums (free slip, then no slip), %zu mirror images (%zu ghost partners compared); "
                  "worst error %.2g\n", particles, ghosts, ghost_partners, worst);
    assert_true(ghosts > 300);
    eddy_sph_candidates_free(&c);
    eddy_world_destroy(w);
}

/*
 * eddy_sph_gather_table against table[material[index]] with two materials; eddy_sph_records_pack
 * (with and without a fourth array) and _set_d against the arrays, _reserve keeping what it held;
 * eddy_sph_cell_owned against the cell's flags; eddy_sph_candidates_make's clamping and a second free;
 * eddy_sph_wall_velocity_choices indexed by the enum; eddy_sph_simd_name's fallback.
 */
static void tables_records_and_small_helpers(void **state)
{
    (void)state;
    const int periodic[3] = {1, 0, 0};
    eddy_world *w = random_world(900, 1.0f, 0.13f, periodic, 17, 1);
    eddy_particles *p = &w->particles;
    const eddy_grid *g = &w->grid;
    for (size_t i = 0; i < p->count; ++i) p->material[i] = (uint32_t)(i % 3 == 0);
    const float table[2] = {1.5f, -2.75f};
    eddy_sph_candidates c = eddy_sph_candidates_make(3);
    size_t checked = 0;
    for (size_t ci = 0; ci < g->occupied_count; ++ci) {
        const uint32_t cell = g->occupied[ci];
        assert_int_equal(eddy_sph_gather(&c, g, p, cell), 0);
        eddy_sph_gather_table(&c, 2, table, p->material);
        for (size_t q = 0; q < c.count; ++q, ++checked)
            if (c.extra[2][q] != table[p->material[c.index[q]]])
                fail_msg("cell %u, candidate %zu: %g, table says %g", cell, q, (double)c.extra[2][q],
                         (double)table[p->material[c.index[q]]]);
    }
    assert_true(checked > p->count);

    eddy_sph_records r = {0};
    assert_int_equal(eddy_sph_records_reserve(&r, p->count), 0);
    eddy_sph_records_pack(&r, p->count, p->x, p->y, p->z, p->vx);
    for (size_t j = 0; j < p->count; ++j)
        assert_true(r.v[j][0] == p->x[j] && r.v[j][1] == p->y[j] && r.v[j][2] == p->z[j] && r.v[j][3] == p->vx[j]);
    eddy_sph_records_set_d(&r, p->count, p->vy);
    for (size_t j = 0; j < p->count; ++j) assert_true(r.v[j][0] == p->x[j] && r.v[j][3] == p->vy[j]);
    assert_int_equal(eddy_sph_records_reserve(&r, 10 * p->count), 0);
    for (size_t j = 0; j < p->count; ++j) assert_true(r.v[j][2] == p->z[j] && r.v[j][3] == p->vy[j]);
    eddy_sph_records_pack(&r, p->count, p->y, p->z, p->x, NULL);
    for (size_t j = 0; j < p->count; ++j) assert_true(r.v[j][0] == p->y[j] && r.v[j][3] == 0.0f);
    eddy_sph_records_free(&r);
    assert_true(r.v == NULL && r.capacity == 0);
    eddy_sph_records_free(&r);

    /* A cell is owned when any of its particles is not a halo copy; every cell is without halos. */
    for (size_t ci = 0; ci < g->occupied_count; ++ci) assert_true(eddy_sph_cell_owned(g, p, g->occupied[ci]));
    flag_halo(p, 2, 0);
    size_t halo_only = 0;
    for (size_t ci = 0; ci < g->occupied_count; ++ci) {
        const uint32_t cell = g->occupied[ci];
        int any = 0;
        for (uint32_t i = g->cell_begin[cell]; i < g->cell_end[cell]; ++i) any |= !(p->flags[i] & EDDY_PARTICLE_HALO);
        halo_only += !any;
        assert_int_equal(eddy_sph_cell_owned(g, p, cell), any);
    }
    assert_true(halo_only > 0);

    assert_int_equal(eddy_sph_candidates_make(-3).extra_count, 0);
    assert_int_equal(eddy_sph_candidates_make(EDDY_SPH_MAX_EXTRA + 5).extra_count, EDDY_SPH_MAX_EXTRA);
    eddy_sph_candidates_free(&c);
    eddy_sph_candidates_free(&c);
    assert_true(c.extra_count == 3 && c.block == NULL && c.count == 0);
    assert_string_equal(eddy_sph_wall_velocity_choices[EDDY_SPH_WALL_SLIP], "slip");
    assert_string_equal(eddy_sph_wall_velocity_choices[EDDY_SPH_WALL_NO_SLIP], "no_slip");
    assert_null(eddy_sph_wall_velocity_choices[2]);
    assert_string_equal(eddy_sph_simd_name((eddy_sph_simd)7), "?");
    eddy_world_destroy(w);
}

/*
 * eddy_sph_simd_select reads EDDY_SIMD at each call: unset or empty, the default (avx2 where the CPU
 * runs it); a path's name, that path where the CPU runs it and a refusal naming the CPU's paths where
 * it does not; anything else refused with the valid names; the default stored in every case.
 */
static void simd_select_reads_environment(void **state)
{
    (void)state;
    const char *was = getenv("EDDY_SIMD");
    char *saved = was ? strdup(was) : NULL;
    const eddy_sph_simd def = eddy_sph_simd_cpu_has(EDDY_SPH_SIMD_AVX2) ? EDDY_SPH_SIMD_AVX2 : EDDY_SPH_SIMD_BASELINE;
    assert_int_equal(eddy_sph_simd_default(), def);
    eddy_error err = {0};
    eddy_sph_simd s = (eddy_sph_simd)-1;
    unsetenv("EDDY_SIMD");
    assert_int_equal(eddy_sph_simd_select(&s, &err), EDDY_OK);
    assert_int_equal(s, def);
    setenv("EDDY_SIMD", "", 1);
    s = (eddy_sph_simd)-1;
    assert_int_equal(eddy_sph_simd_select(&s, &err), EDDY_OK);
    assert_int_equal(s, def);
    for (int k = 0; k < EDDY_SPH_SIMD_COUNT; ++k) {
        setenv("EDDY_SIMD", eddy_sph_simd_name((eddy_sph_simd)k), 1);
        s = (eddy_sph_simd)-1;
        const int rc = eddy_sph_simd_select(&s, &err);
        if (eddy_sph_simd_cpu_has((eddy_sph_simd)k)) {
            assert_int_equal(rc, EDDY_OK);
            assert_int_equal(s, k);
        } else {
            expect_error(rc, EDDY_ERR_INVALID_ARGUMENT, &err, "is not supported by this CPU (it runs baseline");
            assert_int_equal(s, def);
        }
    }
    setenv("EDDY_SIMD", "AVX2", 1); /* names are case-sensitive */
    s = (eddy_sph_simd)-1;
    expect_error(eddy_sph_simd_select(&s, &err), EDDY_ERR_INVALID_ARGUMENT, &err,
                 "EDDY_SIMD: 'AVX2' is not one of baseline, avx2, avx512");
    assert_int_equal(s, def);
    assert_int_equal(eddy_sph_simd_select(&s, NULL), EDDY_ERR_INVALID_ARGUMENT);
    if (saved) setenv("EDDY_SIMD", saved, 1);
    else unsetenv("EDDY_SIMD");
    free(saved);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernels_at_support_edge),
        cmocka_unit_test(density_pass_matches_brute_force),
        cmocka_unit_test(materials_tables_match_definitions),
        cmocka_unit_test(self_term_convention_on_rest_lattice),
        cmocka_unit_test(stable_dt_matches_formula),
        cmocka_unit_test(fall_height_spans_owned_particles),
        cmocka_unit_test(rest_scale_every_kernel_2d_3d),
        cmocka_unit_test(state_records_edges),
        cmocka_unit_test(materials_refuse_bad_arguments),
        cmocka_unit_test(state_records_refuse_bad_arguments),
        cmocka_unit_test(lists_and_shifting_refuse_bad_arguments),
        cmocka_unit_test(image_maps_match_core),
        cmocka_unit_test(partners_match_candidates_ghosts_and_hand_loops),
        cmocka_unit_test(tables_records_and_small_helpers),
        cmocka_unit_test(simd_select_reads_environment),
    };
    return support_run_tests("test_sdk_sph_api", argc, argv, tests, sizeof tests / sizeof tests[0]);
}
