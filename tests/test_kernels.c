/*
 * Kernel tests (Müller, Charypar & Gross 2003, the kernels' normalizations): every kernel integrates to
 * 1, the gradient moment  int r . grad W dV  is -d, and the viscosity Laplacian moment  int r^2 lap W dV
 * is 2d, in 2D and 3D, by composite Simpson quadrature over the radius in double precision (the kernels
 * themselves are float, so 1e-6 is the tolerance). A wrong coefficient (e.g. 45/(64 pi h^6) for the
 * spiky gradient) misses by orders of magnitude more. A Cartesian lattice sum checks the same
 * normalization through the r^2 entry points the solvers call.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include <eddy/kernels.h>

typedef double (*radial_fn)(const eddy_kernels *k, double r);

static double w_poly6(const eddy_kernels *k, double r) { return eddy_poly6(k, (float)(r * r)); }
static double w_spiky(const eddy_kernels *k, double r) { return eddy_spiky(k, (float)r); }
static double w_cubic(const eddy_kernels *k, double r) { return eddy_cubic(k, (float)r); }
static double w_wendland(const eddy_kernels *k, double r) { return eddy_wendland(k, (float)r); }
/* r . grad W = factor * r^2 */
static double g_poly6(const eddy_kernels *k, double r) { return eddy_poly6_grad(k, (float)(r * r)) * r * r; }
static double g_spiky(const eddy_kernels *k, double r) { return eddy_spiky_grad(k, (float)r) * r * r; }
static double g_cubic(const eddy_kernels *k, double r) { return eddy_cubic_grad(k, (float)r) * r * r; }
static double g_wendland(const eddy_kernels *k, double r) { return eddy_wendland_grad(k, (float)r) * r * r; }
static double l_visc(const eddy_kernels *k, double r) { return eddy_viscosity_laplacian(k, (float)r) * r * r; }

/* int_0^h f(r) S_d r^(d-1) dr, S_2 = 2 pi, S_3 = 4 pi. 2^14 intervals put the cubic spline's knot at
 * q = 1/2 on a node, so every piece is integrated exactly up to rounding. */
static double radial_integral(radial_fn f, float h, int d)
{
    eddy_kernels k = eddy_kernels_make(h, d);
    const int n = 1 << 14;
    const double dr = (double)h / n;
    const double surface = d == 2 ? 2.0 * M_PI : 4.0 * M_PI;
    double sum = 0.0;
    for (int i = 0; i <= n; ++i) {
        double r = i * dr;
        double w = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        sum += w * f(&k, r) * surface * pow(r, d - 1);
    }
    return sum * dr / 3.0;
}

static void check(const char *name, radial_fn f, int d, double expected)
{
    const float radii[] = {0.0457f, 1.0f, 3.7f};
    for (int i = 0; i < 3; ++i) {
        double v = radial_integral(f, radii[i], d);
        printf("  %-28s %dD h=%-7g  %.9f (expected %g)\n", name, d, radii[i], v, expected);
        if (fabs(v - expected) > 1e-6 * fabs(expected))
            fail_msg("%s in %dD with h = %g integrates to %.9f, expected %g", name, d, radii[i], v, expected);
    }
}

static void normalization(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; ++d) {
        check("poly6", w_poly6, d, 1.0);
        check("spiky", w_spiky, d, 1.0);
        check("cubic spline", w_cubic, d, 1.0);
        check("Wendland C2", w_wendland, d, 1.0);
    }
}

static void gradient_moments(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; ++d) {
        check("poly6 r.grad", g_poly6, d, -d);
        check("spiky r.grad", g_spiky, d, -d);
        check("cubic spline r.grad", g_cubic, d, -d);
        check("Wendland C2 r.grad", g_wendland, d, -d);
    }
}

static void viscosity_laplacian_moment(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; ++d) check("viscosity r^2 lap", l_visc, d, 2.0 * d);
}

/* The gradient factors are derivatives of the values: a central difference along x must agree. */
static void gradients_match_values(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; ++d) {
        eddy_kernels k = eddy_kernels_make(1.0f, d);
        for (double r = 0.05; r < 0.97; r += 0.0731) {
            const double e = 1e-3;
            double num_p = (eddy_poly6(&k, (float)((r + e) * (r + e))) - eddy_poly6(&k, (float)((r - e) * (r - e)))) / (2 * e);
            double num_s = (eddy_spiky(&k, (float)(r + e)) - eddy_spiky(&k, (float)(r - e))) / (2 * e);
            double num_c = (eddy_cubic(&k, (float)(r + e)) - eddy_cubic(&k, (float)(r - e))) / (2 * e);
            double num_w = (eddy_wendland(&k, (float)(r + e)) - eddy_wendland(&k, (float)(r - e))) / (2 * e);
            double scale = eddy_poly6(&k, 0.0f) + eddy_spiky(&k, 0.0f);
            assert_true(fabs(num_p - eddy_poly6_grad(&k, (float)(r * r)) * r) < 1e-3 * scale);
            assert_true(fabs(num_s - eddy_spiky_grad(&k, (float)r) * r) < 1e-3 * scale);
            assert_true(fabs(num_c - eddy_cubic_grad(&k, (float)r) * r) < 1e-3 * scale);
            assert_true(fabs(num_w - eddy_wendland_grad(&k, (float)r) * r) < 1e-3 * scale);
        }
    }
}

/* Sum of V * W over a fine Cartesian lattice around an off-lattice point: the Riemann sum of a
 * compactly supported smooth kernel converges fast, so it must be 1 to 1e-4. */
static void lattice_sum(void **state)
{
    (void)state;
    const float h = 1.0f;
    const double s = h / 24.0;
    for (int d = 2; d <= 3; ++d) {
        eddy_kernels k = eddy_kernels_make(h, d);
        double sum_p = 0, sum_c = 0, sum_w = 0;
        const int n = 25;
        const double o[3] = {0.31 * s, 0.17 * s, d == 3 ? 0.41 * s : 0.0};
        for (int i = -n; i <= n; ++i)
            for (int j = -n; j <= n; ++j)
                for (int l = (d == 3 ? -n : 0); l <= (d == 3 ? n : 0); ++l) {
                    double x = i * s - o[0], y = j * s - o[1], z = d == 3 ? l * s - o[2] : 0.0;
                    double r2 = x * x + y * y + z * z, r = sqrt(r2);
                    sum_p += eddy_poly6(&k, (float)r2);
                    sum_c += eddy_cubic(&k, (float)r);
                    sum_w += eddy_wendland(&k, (float)r);
                }
        double vol = pow(s, d);
        printf("  lattice sums %dD: poly6 %.7f cubic %.7f wendland %.7f\n", d, sum_p * vol, sum_c * vol, sum_w * vol);
        assert_true(fabs(sum_p * vol - 1.0) < 1e-4);
        assert_true(fabs(sum_c * vol - 1.0) < 1e-4);
        assert_true(fabs(sum_w * vol - 1.0) < 1e-4);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(normalization),
        cmocka_unit_test(gradient_moments),
        cmocka_unit_test(viscosity_laplacian_moment),
        cmocka_unit_test(gradients_match_values),
        cmocka_unit_test(lattice_sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
