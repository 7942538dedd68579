/*
 * Rest-lattice sums of every kernel (eddy_sph/lattice.h), in double precision: the lattice points
 * of one octant (coordinates >= 0) with their multiplicity 2^(non-zero coordinates).
 */
#include <eddy_sph/lattice.h>

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* W(r) in double precision, support h; the coefficients of <eddy/kernels.h>. */
static double kernel_value(eddy_sph_kernel kernel, double r, double h, int d)
{
    if (r >= h) return 0.0;
    const double q = r / h;
    switch (kernel) {
    case EDDY_SPH_SPIKY: {
        const double c = d == 2 ? 10.0 / (M_PI * pow(h, 5)) : 15.0 / (M_PI * pow(h, 6));
        return c * pow(h - r, 3);
    }
    case EDDY_SPH_CUBIC: {
        const double s = d == 2 ? 40.0 / (7.0 * M_PI * h * h) : 8.0 / (M_PI * h * h * h);
        return q <= 0.5 ? s * (6.0 * (q * q * q - q * q) + 1.0) : 2.0 * s * pow(1.0 - q, 3);
    }
    case EDDY_SPH_WENDLAND: {
        const double s = d == 2 ? 7.0 / (M_PI * h * h) : 21.0 / (2.0 * M_PI * h * h * h);
        return s * pow(1.0 - q, 4) * (1.0 + 4.0 * q);
    }
    default: {
        const double c = d == 2 ? 4.0 / (M_PI * pow(h, 8)) : 315.0 / (64.0 * M_PI * pow(h, 9));
        return c * pow(h * h - r * r, 3);
    }
    }
}

double eddy_sph_lattice_sum(eddy_sph_kernel kernel, double spacing, double h, int dimensions)
{
    if (!isfinite(spacing) || !isfinite(h) || (dimensions != 2 && dimensions != 3)) return NAN;
    if (spacing <= 0.0 || h <= 0.0) return 0.0;
    const double ratio = h / spacing;
    if (ratio > EDDY_LATTICE_RATIO_MAX) return NAN;
    const int n = (int)ceil(ratio);
    const int nz = dimensions == 3 ? n : 0;
    double sum = 0.0;
    for (int k = 0; k <= nz; ++k)
        for (int j = 0; j <= n; ++j)
            for (int i = 0; i <= n; ++i) {
                const double r = spacing * sqrt((double)i * i + (double)j * j + (double)k * k);
                if (r >= h) continue;
                const int mult = (i ? 2 : 1) * (j ? 2 : 1) * (k ? 2 : 1);
                sum += mult * kernel_value(kernel, r, h, dimensions);
            }
    return sum;
}

double eddy_sph_lattice_density(eddy_sph_kernel kernel, double mass, double spacing, double h, int dimensions)
{
    return mass * eddy_sph_lattice_sum(kernel, spacing, h, dimensions);
}

double eddy_sph_rest_scale(eddy_sph_kernel kernel, const eddy_material *material, double h, int dimensions)
{
    const double rho = eddy_sph_lattice_density(kernel, material->particle_mass, material->particle_dist, h,
                                                dimensions);
    return material->rest_density / rho;
}
