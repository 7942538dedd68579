/*
 * Rest-lattice sums of every kernel (eddy_sph/lattice.h), in double precision: the lattice points
 * of one octant (coordinates >= 0) with their multiplicity 2^(non-zero coordinates).
 */
#include <eddy_sph/lattice.h>

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The normalization coefficient of <eddy/kernels.h>'s kernels, support h, in double precision. */
static double kernel_coefficient(eddy_sph_kernel kernel, double h, int d)
{
    switch (kernel) {
    case EDDY_SPH_SPIKY: return d == 2 ? 10.0 / (M_PI * pow(h, 5)) : 15.0 / (M_PI * pow(h, 6));
    case EDDY_SPH_CUBIC: return d == 2 ? 40.0 / (7.0 * M_PI * h * h) : 8.0 / (M_PI * h * h * h);
    case EDDY_SPH_WENDLAND: return d == 2 ? 7.0 / (M_PI * h * h) : 21.0 / (2.0 * M_PI * h * h * h);
    default: return d == 2 ? 4.0 / (M_PI * pow(h, 8)) : 315.0 / (64.0 * M_PI * pow(h, 9));
    }
}

/* W(r) in double precision, support h. */
static double kernel_value(eddy_sph_kernel kernel, double r, double h, int d)
{
    if (r >= h) return 0.0;
    const double q = r / h, c = kernel_coefficient(kernel, h, d);
    switch (kernel) {
    case EDDY_SPH_SPIKY: return c * pow(h - r, 3);
    case EDDY_SPH_CUBIC: return q <= 0.5 ? c * (6.0 * (q * q * q - q * q) + 1.0) : 2.0 * c * pow(1.0 - q, 3);
    case EDDY_SPH_WENDLAND: return c * pow(1.0 - q, 4) * (1.0 + 4.0 * q);
    default: return c * pow(h * h - r * r, 3);
    }
}

/* |dW/dr| in double precision, support h (the derivatives of kernel_value). */
static double kernel_slope(eddy_sph_kernel kernel, double r, double h, int d)
{
    if (r >= h) return 0.0;
    const double q = r / h, c = kernel_coefficient(kernel, h, d);
    switch (kernel) {
    case EDDY_SPH_SPIKY: return 3.0 * c * (h - r) * (h - r);
    case EDDY_SPH_CUBIC: return q <= 0.5 ? c * (12.0 * q - 18.0 * q * q) / h : 6.0 * c * (1.0 - q) * (1.0 - q) / h;
    case EDDY_SPH_WENDLAND: return 20.0 * c * q * pow(1.0 - q, 3) / h;
    default: return 6.0 * c * r * (h * h - r * r) * (h * h - r * r);
    }
}

/* sum over the lattice points within h of f(point), by octant with multiplicities; f gets the
 * point's r and its x^2 summed over the coordinate permutations' share (r^2 / d: the lattice is
 * symmetric under swapping axes). */
typedef double (*lattice_term)(eddy_sph_kernel kernel, double r, double h, int d);

static double lattice_accumulate(eddy_sph_kernel kernel, double spacing, double h, int dimensions,
                                 lattice_term term)
{
    const int n = (int)ceil(h / spacing);
    const int nz = dimensions == 3 ? n : 0;
    double sum = 0.0;
    for (int k = 0; k <= nz; ++k)
        for (int j = 0; j <= n; ++j)
            for (int i = 0; i <= n; ++i) {
                const double r = spacing * sqrt((double)i * i + (double)j * j + (double)k * k);
                if (r >= h) continue;
                const int mult = (i ? 2 : 1) * (j ? 2 : 1) * (k ? 2 : 1);
                sum += mult * term(kernel, r, h, dimensions);
            }
    return sum;
}

/* x^2 |W'(r)| / r with x^2 averaged over the axes (r^2 / d); 0 at the origin. */
static double gradient_moment_term(eddy_sph_kernel kernel, double r, double h, int d)
{
    return r > 0.0 ? r * kernel_slope(kernel, r, h, d) / d : 0.0;
}

/* The kernels kernel_coefficient knows; another value would be summed as poly6 without a word. */
static int known_kernel(eddy_sph_kernel kernel)
{
    return kernel == EDDY_SPH_POLY6 || kernel == EDDY_SPH_SPIKY || kernel == EDDY_SPH_CUBIC || kernel == EDDY_SPH_WENDLAND;
}

double eddy_sph_lattice_sum(eddy_sph_kernel kernel, double spacing, double h, int dimensions)
{
    if (!known_kernel(kernel) || !isfinite(spacing) || !isfinite(h) || (dimensions != 2 && dimensions != 3)) return NAN;
    if (spacing <= 0.0 || h <= 0.0) return 0.0;
    const double ratio = h / spacing;
    if (ratio > EDDY_LATTICE_RATIO_MAX) return NAN;
    return lattice_accumulate(kernel, spacing, h, dimensions, kernel_value);
}

double eddy_sph_lattice_gradient_moment(eddy_sph_kernel kernel, double spacing, double h, int dimensions)
{
    if (!known_kernel(kernel) || !isfinite(spacing) || !isfinite(h) || (dimensions != 2 && dimensions != 3)) return NAN;
    if (spacing <= 0.0 || h <= 0.0) return 1.0;
    if (h / spacing > EDDY_LATTICE_RATIO_MAX) return NAN;
    if (spacing >= h) return 0.0;
    const double moment = lattice_accumulate(kernel, spacing, h, dimensions, gradient_moment_term);
    return moment / lattice_accumulate(EDDY_SPH_POLY6, spacing, h, dimensions, kernel_value);
}

double eddy_sph_lattice_density(eddy_sph_kernel kernel, double mass, double spacing, double h, int dimensions)
{
    return mass * eddy_sph_lattice_sum(kernel, spacing, h, dimensions);
}

double eddy_sph_rest_scale(eddy_sph_kernel kernel, const eddy_material *material, double h, int dimensions)
{
    if (!material) return NAN;
    const double rho = eddy_sph_lattice_density(kernel, material->particle_mass, material->particle_dist, h,
                                                dimensions);
    /* A lattice that sums to nothing (spacing or h <= 0, no mass) has no scale: NaN, not rho0 / 0. */
    if (!(rho > 0.0)) return NAN;
    return material->rest_density / rho;
}
