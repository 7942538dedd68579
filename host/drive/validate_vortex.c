/*
 * host/drive/validate_vortex.c — the vortex cases of `eddy validate`: their initial vorticity (a thin
 * vortex ring, a Gaussian vortex, a pair of them) on particles of their own, which replace the scene's,
 * of a solver that carries a "vorticity" field (vpm_hybrid; a scene's `vortices` go on its seeded
 * particles instead, scene/scene_vortices.c, whose Gaussian profile the cases share), and the measures
 * of those flows (the ring's impulse centroid and impulse, the vortex's second moment, peak speed and
 * circulation, the pair's speed, separation, circulations and impulse). Each measure is taken relative to the state at t = 0
 * (vbaseline) or to the classical result the case's parameters give, so that a case compares with the
 * value 1.
 */
#include "validate_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene_vortices.h"
#include "sim.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Replaces every particle by n particles of material 0: positions pos[3n], volumes V (mass = rho0 V),
 * vorticity w[3n]; then the solver's fields (the velocity the vorticity induces), as after opening. */
static int replace_particles(eddy_sim *sim, size_t n, const eddy_real *pos, const double *V, const eddy_real *w,
                             eddy_error *err)
{
    eddy_world *world = sim->world;
    eddy_particles *p = &world->particles;
    const int f = eddy_particles_find_field(p, "vorticity");
    if (f < 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "initial.vortices: solver '%s' has no \"vorticity\" field to put the vortex on",
                              sim->solver_entry->component->id);
    uint32_t none = 0;
    int rc = eddy_particles_gather(p, &none, 0, err);
    if (!rc) rc = eddy_world_add_particles(world, n, pos, NULL, 0, err);
    if (rc) return rc;
    eddy_field_view v = {.size = sizeof v};
    if ((rc = eddy_world_map_field(world, EDDY_FIELD_MASS, EDDY_MAP_WRITE, &v, err))) return rc;
    for (size_t i = 0; i < n; ++i) v.data[0][i] = (eddy_real)(world->materials[0].rest_density * V[i]);
    eddy_world_unmap_field(world, &v);
    if ((rc = eddy_world_map_field(world, f, EDDY_MAP_WRITE, &v, err))) return rc;
    for (int a = 0; a < 3 && a < v.components; ++a)
        for (size_t i = 0; i < n; ++i) v.data[a][i] = w[3 * i + a];
    eddy_world_unmap_field(world, &v);
    eddy_error_clear(err);
    rc = sim->solver_vtable->compute_fields(sim->solver, world, err);
    return rc ? (err->code ? err->code : rc) : 0;
}

/* The scene's particle spacing of material 0: the lattice the solver's blobs are sized for (its
 * core_radius default). Not (m / rho0)^(1/d): the mass is set so that a poly6 sum on the lattice gives
 * rho0, and at h = 1.6 spacings that root is 2% wider (0.12716 for 0.125), which laid the ring on a
 * coarser lattice than the case states and put a wider blob into its reference speed. */
static double spacing(const eddy_world *w)
{
    return w->materials[0].particle_dist;
}

/* The blob radius sigma: the case's, or the scene's particle spacing. */
static double blob(const vcase *c, const eddy_world *w)
{
    return c->vx_blob >= 0 ? c->vx_blob : spacing(w);
}

size_t eddy_validate_ring_particles(double R, double G, double ap, double dl, eddy_real **pos_out, double **V_out,
                                    eddy_real **w_out)
{
    *pos_out = *w_out = NULL;
    *V_out = NULL;
    const int K = (int)ceil(2.5 * ap / dl), nphi = (int)lround(2.0 * M_PI * R / dl);
    double sumw = 0.0;
    size_t ncs = 0;
    for (int i = -K; i <= K; ++i)
        for (int j = -K; j <= K; ++j) {
            const double s = dl * sqrt((double)(i * i + j * j));
            if (s > 2.5 * ap) continue;
            sumw += exp(-s * s / (ap * ap)) * dl * dl;
            ++ncs;
        }
    const size_t n = ncs * (size_t)nphi;
    eddy_real *pos = malloc(3 * n * sizeof *pos + 1), *w = malloc(3 * n * sizeof *w + 1);
    double *V = malloc(n * sizeof *V + 1);
    if (!pos || !w || !V) {
        free(pos), free(w), free(V);
        return 0;
    }
    size_t k = 0;
    for (int f = 0; f < nphi; ++f) {
        const double phi = 2.0 * M_PI * f / nphi, cs = cos(phi), sn = sin(phi);
        for (int i = -K; i <= K; ++i)
            for (int j = -K; j <= K; ++j) {
                const double s = dl * sqrt((double)(i * i + j * j));
                if (s > 2.5 * ap) continue;
                /* Every section carries G: the sum of om dl^2 over it. */
                const double r = R + i * dl, om = G * exp(-s * s / (ap * ap)) / sumw;
                pos[3 * k] = (eddy_real)(r * cs), pos[3 * k + 1] = (eddy_real)(r * sn);
                pos[3 * k + 2] = (eddy_real)(j * dl);
                w[3 * k] = (eddy_real)(-om * sn), w[3 * k + 1] = (eddy_real)(om * cs), w[3 * k + 2] = 0;
                V[k] = dl * dl * r * 2.0 * M_PI / nphi;
                ++k;
            }
    }
    *pos_out = pos, *V_out = V, *w_out = w;
    return n;
}

/* The case's thin ring (eddy_validate_ring_particles) at the scene's particle spacing. */
static int ring(eddy_sim *sim, const vcase *c, eddy_error *err)
{
    eddy_real *pos, *w;
    double *V;
    const size_t n = eddy_validate_ring_particles(c->vx_radius, c->vx_circulation, c->vx_core, spacing(sim->world),
                                                  &pos, &V, &w);
    if (!n) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    int rc = replace_particles(sim, n, pos, V, w, err);
    free(pos), free(w), free(V);
    return rc;
}

/* Appends a 2D Gaussian vortex omega = G / (pi a_p^2) exp(-r^2 / a_p^2) centred at (cx, 0) to the
 * buffers at n: the points of the material's lattice within `ext` of the centre, off the centre (no
 * particle at r = 0), normalised to exactly G (its sign included: G < 0 turns clockwise). Returns the
 * number appended, at most (2 ceil(ext / dl) + 1)^2. The profile is the scene's `vortices`' own
 * (scene_vortices.h); the particles are the case's, so that the vortex sits on a lattice centred on it
 * whatever the scene's placeholder block, and its measures start from exactly G. */
static size_t gaussian_vortex(const eddy_material *mat, double cx, double G, double ap, double ext, eddy_real *pos,
                              double *V, eddy_real *w)
{
    const double dl = mat->particle_dist, Vp = mat->particle_mass / mat->rest_density;
    const int m = (int)ceil(ext / dl);
    double sum = 0;
    size_t n = 0;
    for (int i = -m; i <= m; ++i)
        for (int j = -m; j <= m; ++j) {
            const double x = (i + 0.5) * dl, y = (j + 0.5) * dl;
            if (x * x + y * y > ext * ext) continue;
            pos[3 * n] = (eddy_real)(cx + x), pos[3 * n + 1] = (eddy_real)y;
            w[3 * n + 2] = (eddy_real)eddy_scene_gaussian_vorticity(G, ap, x * x + y * y);
            sum += w[3 * n + 2] * Vp;
            V[n++] = Vp;
        }
    for (size_t i = 0; i < n; ++i) w[3 * i + 2] = (eddy_real)(w[3 * i + 2] * G / sum);
    return n;
}

/* The case's 2D vortices: one Gaussian vortex of circulation G at the origin (lamb_oseen), or a pair
 * of opposite ones with centres `separation` apart on the x axis, +G (counter-clockwise) at -d/2 and -G
 * at +d/2, which moves in +y. */
static int gaussian_vortices(eddy_sim *sim, const vcase *c, eddy_error *err)
{
    const eddy_material *mat = &sim->world->materials[0];
    const double ap = c->vx_core, G = c->vx_circulation, ext = c->vx_radius, d = c->vx_separation;
    const int m = (int)ceil(ext / mat->particle_dist), pair = c->vortices == 3;
    const size_t one = (size_t)(2 * m + 1) * (size_t)(2 * m + 1), cap = pair ? 2 * one : one;
    eddy_real *pos = calloc(3 * cap, sizeof *pos), *w = calloc(3 * cap, sizeof *w);
    double *V = malloc(cap * sizeof *V);
    int rc;
    if (!pos || !w || !V) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    size_t n;
    if (pair) {
        n = gaussian_vortex(mat, -0.5 * d, G, ap, ext, pos, V, w);
        n += gaussian_vortex(mat, 0.5 * d, -G, ap, ext, pos + 3 * n, V + n, w + 3 * n);
    } else {
        n = gaussian_vortex(mat, 0.0, G, ap, ext, pos, V, w);
    }
    rc = replace_particles(sim, n, pos, V, w, err);
done:
    free(pos), free(w), free(V);
    return rc;
}

int vinitial_vortices(eddy_sim *sim, const vcase *c, eddy_error *err)
{
    return c->vortices == 1 ? ring(sim, c, err) : c->vortices >= 2 ? gaussian_vortices(sim, c, err) : 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* Measures                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/* The particles' vorticity times volume (alpha), component a; NULL without a vorticity field. */
static const eddy_real *vorticity(const eddy_frame *fr, int a)
{
    const eddy_particles *p = &fr->world->particles;
    const int f = eddy_particles_find_field(p, "vorticity");
    return f < 0 ? NULL : eddy_particles_field(p, f, a);
}

static double volume(const eddy_frame *fr, size_t i)
{
    const eddy_world *w = fr->world;
    return (double)w->particles.mass[i] / w->materials[w->particles.material[i]].rest_density;
}

/* A ring: Z = sum z alpha_theta r / sum alpha_theta r (the impulse centroid) and the impulse
 * I = (1/2) sum x x alpha. */
static int ring_state(const eddy_frame *fr, double *Z, double I[3])
{
    const eddy_particles *p = &fr->world->particles;
    const eddy_real *wx = vorticity(fr, 0), *wy = vorticity(fr, 1), *wz = vorticity(fr, 2);
    if (!wx || !wy || !wz) return -1;
    double sz = 0, sw = 0;
    I[0] = I[1] = I[2] = 0;
    for (size_t o = 0; o < fr->count; ++o) {
        const size_t i = fr->order[o];
        const double V = volume(fr, i);
        const double a[3] = {wx[i] * V, wy[i] * V, wz[i] * V}, x[3] = {p->x[i], p->y[i], p->z[i]};
        const double r = hypot(x[0], x[1]);
        if (r == 0) continue;
        const double ath = (x[0] * a[1] - x[1] * a[0]) / r;
        sz += x[2] * ath * r;
        sw += ath * r;
        I[0] += 0.5 * (x[1] * a[2] - x[2] * a[1]);
        I[1] += 0.5 * (x[2] * a[0] - x[0] * a[2]);
        I[2] += 0.5 * (x[0] * a[1] - x[1] * a[0]);
    }
    *Z = sw != 0 ? sz / sw : NAN;
    return 0;
}

/* A 2D vortex: circulation G = sum alpha_z, second moment m2 = sum alpha |x - centroid|^2 / G, the
 * largest particle speed. */
static int vortex_state(const eddy_frame *fr, double *G, double *m2, double *vmax)
{
    const eddy_particles *p = &fr->world->particles;
    const eddy_real *wz = vorticity(fr, 2);
    if (!wz) return -1;
    double g = 0, cx = 0, cy = 0, s = 0, v = 0;
    for (size_t o = 0; o < fr->count; ++o) {
        const size_t i = fr->order[o];
        const double a = wz[i] * volume(fr, i);
        g += a, cx += a * p->x[i], cy += a * p->y[i];
    }
    if (g == 0) return -1;
    cx /= g, cy /= g;
    for (size_t o = 0; o < fr->count; ++o) {
        const size_t i = fr->order[o];
        const double a = wz[i] * volume(fr, i);
        s += a * ((p->x[i] - cx) * (p->x[i] - cx) + (p->y[i] - cy) * (p->y[i] - cy));
        v = fmax(v, hypot(p->vx[i], p->vy[i]));
    }
    *G = g, *m2 = s / g, *vmax = v;
    return 0;
}

/* A 2D vortex pair: the circulation G[s] and the vorticity centroid x[s] of each sign (s = 0: alpha > 0,
 * 1: alpha < 0), and the linear impulse P = (sum alpha y, -sum alpha x) (Saffman 1992, ch. 3: the 2D
 * counterpart of the 3D (1/2) sum x x alpha; with no net circulation it does not depend on the origin). */
static int pair_state(const eddy_frame *fr, double G[2], double x[2][2], double P[2])
{
    const eddy_particles *p = &fr->world->particles;
    const eddy_real *wz = vorticity(fr, 2);
    if (!wz) return -1;
    double sx[2] = {0, 0}, sy[2] = {0, 0};
    G[0] = G[1] = P[0] = P[1] = 0;
    for (size_t o = 0; o < fr->count; ++o) {
        const size_t i = fr->order[o];
        const double a = wz[i] * volume(fr, i);
        const int s = a < 0;
        if (a == 0) continue;
        G[s] += a, sx[s] += a * p->x[i], sy[s] += a * p->y[i];
        P[0] += a * p->y[i], P[1] -= a * p->x[i];
    }
    if (G[0] == 0 || G[1] == 0) return -1;
    for (int s = 0; s < 2; ++s) x[s][0] = sx[s] / G[s], x[s][1] = sy[s] / G[s];
    return 0;
}

void vbaseline_take(vbaseline *b, const vcase *c, const eddy_frame *fr)
{
    if (c->vortices == 1 && ring_state(fr, &b->ring_z, b->impulse) == 0) b->have_ring = 1;
    double vmax;
    if (c->vortices == 2 && vortex_state(fr, &b->circulation, &b->m2, &vmax) == 0) b->have_vortex = 1;
    double x[2][2];
    if (c->vortices == 3 && pair_state(fr, b->pair_circ, x, b->pair_impulse) == 0) {
        const double dx = x[1][0] - x[0][0], dy = x[1][1] - x[0][1];
        b->pair_d = hypot(dx, dy);
        b->pair_mid[0] = 0.5 * (x[0][0] + x[1][0]), b->pair_mid[1] = 0.5 * (x[0][1] + x[1][1]);
        /* Each vortex carries the other along: the + vortex's velocity at the - one points along
         * e_z x (x- - x+), and so does the - vortex's at the + one: the pair moves that way. */
        b->pair_dir[0] = -dy / b->pair_d, b->pair_dir[1] = dx / b->pair_d;
        b->have_pair = b->pair_d > 0;
    }
}

/* Kelvin's thin-ring speed with Saffman's (1970) constant for a Gaussian core: U = G / (4 pi R)
 * (ln(8 R / a) - 0.558), a^2 = a_p^2 + 2 sigma^2 the core of the sampled Gaussian smoothed by the
 * particles' Gaussian blobs of radius sigma. */
static double saffman_speed(const vcase *c, const eddy_world *w)
{
    const double sg = blob(c, w), a = sqrt(c->vx_core * c->vx_core + 2 * sg * sg);
    return c->vx_circulation / (4 * M_PI * c->vx_radius) * (log(8 * c->vx_radius / a) - 0.558);
}

double vmeasure_vortex(const vcheck *ck, const vcase *c, const vbaseline *b, const eddy_frame *fr)
{
    const double t = fr->time;
    if (ck->measure == M_RING_SPEED || ck->measure == M_RING_TRAVEL || ck->measure == M_RING_IMPULSE) {
        double Z, I[3];
        if (!b->have_ring || ring_state(fr, &Z, I)) return NAN;
        if (ck->measure == M_RING_TRAVEL) return (Z - b->ring_z) / c->vx_radius;
        if (ck->measure == M_RING_SPEED) return t > 0 ? (Z - b->ring_z) / t / saffman_speed(c, fr->world) : NAN;
        const double d[3] = {I[0] - b->impulse[0], I[1] - b->impulse[1], I[2] - b->impulse[2]};
        return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / fabs(b->impulse[2]);
    }
    if (ck->measure >= M_PAIR_SPEED) {
        double G[2], x[2][2], P[2];
        if (!b->have_pair || pair_state(fr, G, x, P)) return NAN;
        switch (ck->measure) {
        case M_PAIR_SPEED: {
            /* Along the direction point vortices take (a pair moving backwards or sideways is not 1), at
             * U = G / (2 pi d0) with G the mean of the two measured circulations. */
            const double mx = 0.5 * (x[0][0] + x[1][0]) - b->pair_mid[0];
            const double my = 0.5 * (x[0][1] + x[1][1]) - b->pair_mid[1];
            const double U = 0.5 * (b->pair_circ[0] - b->pair_circ[1]) / (2 * M_PI * b->pair_d);
            return t > 0 ? (mx * b->pair_dir[0] + my * b->pair_dir[1]) / t / U : NAN;
        }
        case M_PAIR_SEPARATION:
            return hypot(x[1][0] - x[0][0], x[1][1] - x[0][1]) / b->pair_d;
        case M_PAIR_CIRCULATION: {
            const double r0 = G[0] / b->pair_circ[0], r1 = G[1] / b->pair_circ[1];
            return fabs(r0 - 1) >= fabs(r1 - 1) ? r0 : r1;
        }
        case M_PAIR_IMPULSE:
            return hypot(P[0] - b->pair_impulse[0], P[1] - b->pair_impulse[1]) /
                   hypot(b->pair_impulse[0], b->pair_impulse[1]);
        default:
            return NAN;
        }
    }
    double G, m2, vmax;
    if (!b->have_vortex || vortex_state(fr, &G, &m2, &vmax)) return NAN;
    const eddy_world *w = fr->world;
    const double nu = eddy_param_get(&w->materials[0].params, "viscosity", NAN) / w->materials[0].rest_density;
    /* The blobs add 2 sigma^2 to the second moment of the field they carry, at all times. */
    const double sg = blob(c, w), d0sq = b->m2 + 2 * sg * sg, dsq = d0sq + 4 * nu * t;
    switch (ck->measure) {
    case M_VORTEX_GROWTH:
        return t > 0 ? (m2 - b->m2) / (4 * nu * t) : NAN;
    case M_VORTEX_CORE:
        return (m2 + 2 * sg * sg) / dsq;
    case M_VORTEX_PEAK: {
        /* "core": "case" (mode 1): the vortex the case defines, delta^2 = a_p^2 + 4 nu t (Lamb 1932,
         * sec. 334a), whatever the spacing. The smoothed reference above carries the blobs' 2 sigma^2 and
         * the lattice's m2(0), so it widens with sigma and forgives the discretisation's own smoothing:
         * 0.6% against it at the coarse resolution is 15% against the vortex set up. */
        const double ref = ck->mode == 1 ? c->vx_core * c->vx_core + 4 * nu * t : dsq;
        return vmax / (0.63817 * b->circulation / (2 * M_PI * sqrt(ref)));
    }
    case M_CIRCULATION:
        return G / b->circulation;
    default:
        return NAN;
    }
}
