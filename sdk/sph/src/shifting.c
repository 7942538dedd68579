/* Fickian particle shifting (eddy_sph/shifting.h). */
#include <eddy_sph/shifting.h>

#include <math.h>
#include <stdlib.h>

void eddy_sph_shifting_free(eddy_sph_shifting *s)
{
    if (!s) return;
    free(s->shift);
    s->shift = NULL;
    s->capacity = 0;
}

int eddy_sph_shift_reserve(eddy_sph_shifting *s, size_t n)
{
    if (n <= s->capacity) return 0;
    float *f = realloc(s->shift, 4 * n * sizeof *f);
    if (!f) return -1;
    s->shift = f;
    s->capacity = n;
    return 0;
}

/* The candidate array the pass reads besides positions and masses: the volume m_j / rho_j. */
enum { C_VOLUME };

int eddy_sph_shift_cell(void *ctx, uint32_t c, eddy_sph_candidates *cand, eddy_sph_candidates *near, float *max)
{
    (void)near; /* the mirror loops run over the candidates themselves */
    const eddy_sph_shift_ctx *sc = ctx;
    const eddy_world *w = sc->w;
    const eddy_particles *p = &w->particles;
    const eddy_grid *g = &w->grid;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float tiny2 = 1e-12f * k.h2;
    const float dims = (float)w->dimensions;
    float *out = sc->s->shift;
    for (size_t q = 0; q < cand->count; ++q) {
        const uint32_t j = cand->index[q];
        cand->extra[C_VOLUME][q] = p->mass[j] / p->density[j];
    }
    const size_t nc = cand->count;
    const float *cx = cand->x, *cy = cand->y, *cz = cand->z, *cv = cand->extra[C_VOLUME];
    /* Cells clear of every wall skip the per-particle mirror search (eddy_sph_cell_near_walls). */
    const int walls = eddy_sph_cell_near_walls(&w->boundaries, g, p, c, k.h);
    for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
        if (eddy_particle_is_halo(p, i)) continue; /* moved by its owner */
        const float xi = p->x[i], yi = p->y[i], zi = p->z[i];
        /* grad C = sum_j V_j grad W_ij and div r = -sum_j V_j (x_i - x_j) . grad W_ij, scaled below by
         * the material's gradient scale. */
        float gx = 0.0f, gy = 0.0f, gz = 0.0f, div = 0.0f;
        EDDY_SPH_SIMD_SUM(gx, gy, gz, div)
        for (size_t q = 0; q < nc; ++q) {
            const float dx = xi - cx[q], dy = yi - cy[q], dz = zi - cz[q];
            const float r2 = dx * dx + dy * dy + dz * dz;
            const float f = cv[q] * eddy_sph_spiky_grad(&k, r2, tiny2);
            gx += f * dx;
            gy += f * dy;
            gz += f * dz;
            div -= f * r2;
        }
        /* The walls' ghosts, as in the density (eddy_sph_density_pass): images of the candidates. */
        eddy_sph_image img[EDDY_MAX_MIRRORS];
        const int nimg = walls ? eddy_sph_images(&w->boundaries, NULL, k.h, xi, yi, zi, img) : 0;
        for (int mi = 0; mi < nimg; ++mi) {
            const eddy_sph_image gi = img[mi];
            const size_t nn = cand->count;
            const float *nx = cand->x, *ny = cand->y, *nz = cand->z, *nv = cand->extra[C_VOLUME];
            float hx = 0.0f, hy = 0.0f, hz = 0.0f, hdiv = 0.0f;
            EDDY_SPH_SIMD_SUM(hx, hy, hz, hdiv)
            for (size_t q = 0; q < nn; ++q) {
                float ex, ey, ez;
                eddy_sph_image_diff(&gi, nx[q], ny[q], nz[q], &ex, &ey, &ez);
                const float r2 = ex * ex + ey * ey + ez * ez;
                const float f = nv[q] * eddy_sph_spiky_grad(&k, r2, tiny2);
                hx += f * ex;
                hy += f * ey;
                hz += f * ez;
                hdiv -= f * r2;
            }
            gx += hx;
            gy += hy;
            gz += hz;
            div += hdiv;
        }
        const uint32_t m = p->material[i];
        const float gs = sc->mat->gradient_scale[m];
        gx *= gs;
        gy *= gs;
        gz *= gs;
        div *= gs;
        float *o = out + 4 * (size_t)i;
        o[0] = o[1] = o[2] = 0.0f;
        o[3] = div;
        if (!(div >= EDDY_SPH_SHIFT_SURFACE * dims)) continue; /* at a free surface (or NaN): stay */
        const float speed = sqrtf(p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i]);
        /* Lind et al. (2012) eq. 16, D = A h |v| dt, with their h the smoothing length h/2. */
        const float d = sc->s->coefficient * 0.5f * k.h * speed * sc->dt;
        float sx = -d * gx, sy = -d * gy, sz = -d * gz;
        const float len = sqrtf(sx * sx + sy * sy + sz * sz);
        const float cap = EDDY_SPH_SHIFT_MAX * (float)w->materials[m].particle_dist;
        if (len > cap) {
            const float scale = cap / len;
            sx *= scale;
            sy *= scale;
            sz *= scale;
        }
        o[0] = sx;
        o[1] = sy;
        o[2] = sz;
        const float moved = len < cap ? len : cap;
        *max = moved > *max ? moved : *max;
    }
    return 0;
}

void eddy_sph_shift_apply(eddy_sph_shifting *s, eddy_world *w)
{
    eddy_particles *p = &w->particles;
    const float surface = EDDY_SPH_SHIFT_SURFACE * (float)w->dimensions;
    size_t at_surface = 0;
    for (size_t i = 0; i < p->count; ++i) {
        if (eddy_particle_is_halo(p, i)) continue;
        const float *o = s->shift + 4 * i;
        p->x[i] += o[0];
        p->y[i] += o[1];
        p->z[i] += o[2];
        at_surface += !(o[3] >= surface);
    }
    s->surface_count = at_surface;
}
