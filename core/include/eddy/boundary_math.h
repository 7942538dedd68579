/*
 * eddy/boundary_math.h — the per-particle boundary math of <eddy/boundary.h> as inline source that
 * compiles for the CPU and for a GPU: signed distance and normal of a collider, the Bullet-Fluids
 * contact response, the choice of the mirror walls of a point and the composition of its mirrors.
 *
 * Why inline source and not only the exported functions: a GPU kernel cannot call libeddy. Before
 * this header the CUDA plugin carried a copy of core/src/boundary.c written again for the device,
 * kept equal only by an agreement test that needs a GPU. Now libeddy's exported functions
 * (eddy_collider_distance, eddy_contact_respond, eddy_boundaries_mirrors, eddy_boundaries_mirror_walls)
 * are thin wrappers over these, and a CUDA plugin calls these same functions in its kernels: one
 * definition, compiled by the C compiler for libeddy and by nvcc for the device. Every function is
 * EDDY_HD (defs.h): __host__ __device__ under nvcc, nothing in C. The header is C17 that also compiles
 * as CUDA C++ (pointers, no references, no namespaces).
 *
 * Not binary interface (docs/abi.md): nothing here is exported; a plugin inlines what it was compiled
 * with, exactly like eddy_grid_cell_of. The structs it reads (eddy_collider, eddy_contact_params,
 * eddy_mirror) are the ABI's, unchanged.
 *
 * Operation order: the functions are written in the order of operations the CPU results depend on;
 * the C build (-ffp-contract=off) rounds every operation as written, so libeddy's results are the
 * same bit for bit as before this header. nvcc contracts a * b + c into FMAs in device code by
 * default, so the device rounds differently within a few ulps (the GPU agreement tests of
 * tests/cuda_grid bound it); reorder nothing here without rerunning the state hashes of the CPU
 * solvers (docs/cuda_grid.md).
 *
 * Units: simulation units throughout, as <eddy/boundary.h>. Ownership: every pointer is borrowed for
 * the call; nothing is kept or allocated. Threads: every function is pure (writes only its output
 * arguments): [any thread], and any number of device threads at once.
 */
#ifndef EDDY_BOUNDARY_MATH_H
#define EDDY_BOUNDARY_MATH_H

#include <float.h>
#include <math.h>

#include "boundary.h"
#include "defs.h"

EDDY_BEGIN_DECLS

/*
 * Signed distance from p to a solid axis-aligned box [c->min, c->max] over the first `dims` axes
 * (positive outside), and the unit normal there into free space when n is not NULL (the unused axes
 * of n are 0). Inside the box the nearest face decides (the least negative per-axis depth; the lower
 * axis among equals).
 */
static inline EDDY_HD eddy_real eddy_hd_box_distance(const eddy_collider *c, int dims, const eddy_real p[3],
                                                     eddy_real n[3])
{
    /* Per axis: q > 0 outside the slab; for an inside point the least-negative q is the closest face. */
    eddy_real q[3] = {0, 0, 0}, dir[3] = {0, 0, 0};
    eddy_real outside2 = 0.0f, inside = -FLT_MAX;
    int inside_axis = 0, is_outside = 0;
    for (int a = 0; a < dims; ++a) {
        eddy_real lo = c->min[a] - p[a], hi = p[a] - c->max[a];
        if (lo > 0) {
            q[a] = lo;
            dir[a] = -1;
        } else if (hi > 0) {
            q[a] = hi;
            dir[a] = 1;
        } else {
            q[a] = lo > hi ? lo : hi;
            dir[a] = lo > hi ? -1 : 1;
        }
        if (q[a] > 0) {
            outside2 += q[a] * q[a];
            is_outside = 1;
        }
        if (q[a] > inside) {
            inside = q[a];
            inside_axis = a;
        }
    }
    if (is_outside) {
        eddy_real d = sqrtf(outside2);
        if (n)
            for (int a = 0; a < 3; ++a) n[a] = (a < dims && q[a] > 0) ? dir[a] * q[a] / d : 0.0f;
        return d;
    }
    if (n)
        for (int a = 0; a < 3; ++a) n[a] = a == inside_axis ? dir[a] : 0.0f;
    return inside;
}

/*
 * eddy_collider_distance: the signed distance from p to one collider (plane, box or sphere; FLT_MAX
 * for an unknown shape) over `dims` axes, and its unit normal into free space when n is not NULL. At
 * a sphere's exact centre the normal is +y.
 */
static inline EDDY_HD eddy_real eddy_hd_collider_distance(const eddy_collider *c, int dims, const eddy_real p[3],
                                                          eddy_real n[3])
{
    switch (c->shape) {
    case EDDY_SHAPE_PLANE: {
        eddy_real d = 0.0f;
        for (int a = 0; a < dims; ++a) d += (p[a] - c->point[a]) * c->normal[a];
        if (n)
            for (int a = 0; a < 3; ++a) n[a] = a < dims ? c->normal[a] : 0.0f;
        return d;
    }
    case EDDY_SHAPE_BOX:
        return eddy_hd_box_distance(c, dims, p, n);
    case EDDY_SHAPE_SPHERE: {
        eddy_real v[3] = {0, 0, 0}, l2 = 0.0f;
        for (int a = 0; a < dims; ++a) {
            v[a] = p[a] - c->center[a];
            l2 += v[a] * v[a];
        }
        eddy_real l = sqrtf(l2);
        if (n) {
            /* At the exact centre any direction is closest; pick +y ("up") deterministically. */
            for (int a = 0; a < 3; ++a) n[a] = l > 0 ? v[a] / l : (a == 1 ? 1.0f : 0.0f);
        }
        return l - c->radius;
    }
    }
    if (n) n[0] = n[1] = n[2] = 0.0f;
    return FLT_MAX;
}

/*
 * Whether the solid of collider a lies within the closed solid of collider b over `dims` axes: every
 * point of a is inside b or on its surface. Exact for the shapes whose containment is decidable from
 * a few comparisons (a box's farthest corner, a sphere's farthest point); a plane's unbounded solid is
 * within another plane's only (the same normal, bit for bit, and not in front of it), never within a
 * box or a sphere. 0 for an unknown shape.
 */
static inline EDDY_HD int eddy_hd_solid_within(const eddy_collider *a, const eddy_collider *b, int dims)
{
    if (b->shape == EDDY_SHAPE_PLANE) {
        /* The farthest point of a along b's normal must not be in front of b's plane. */
        eddy_real front = 0.0f;
        switch (a->shape) {
        case EDDY_SHAPE_PLANE:
            for (int k = 0; k < dims; ++k)
                if (a->normal[k] != b->normal[k]) return 0;
            for (int k = 0; k < dims; ++k) front += (a->point[k] - b->point[k]) * b->normal[k];
            return front <= 0.0f;
        case EDDY_SHAPE_BOX:
            for (int k = 0; k < dims; ++k)
                front += ((b->normal[k] > 0.0f ? a->max[k] : a->min[k]) - b->point[k]) * b->normal[k];
            return front <= 0.0f;
        case EDDY_SHAPE_SPHERE:
            for (int k = 0; k < dims; ++k) front += (a->center[k] - b->point[k]) * b->normal[k];
            return front + a->radius <= 0.0f;
        }
        return 0;
    }
    if (b->shape == EDDY_SHAPE_BOX) {
        for (int k = 0; k < dims; ++k) {
            eddy_real lo, hi;
            if (a->shape == EDDY_SHAPE_BOX) {
                lo = a->min[k];
                hi = a->max[k];
            } else if (a->shape == EDDY_SHAPE_SPHERE) {
                lo = a->center[k] - a->radius;
                hi = a->center[k] + a->radius;
            } else {
                return 0;
            }
            if (!(lo >= b->min[k] && hi <= b->max[k])) return 0;
        }
        return 1;
    }
    if (b->shape == EDDY_SHAPE_SPHERE) {
        eddy_real far2 = 0.0f;
        if (a->shape == EDDY_SHAPE_BOX) {
            for (int k = 0; k < dims; ++k) {
                eddy_real lo = fabsf(a->min[k] - b->center[k]), hi = fabsf(a->max[k] - b->center[k]);
                eddy_real f = lo > hi ? lo : hi;
                far2 += f * f;
            }
            return far2 <= b->radius * b->radius;
        }
        if (a->shape == EDDY_SHAPE_SPHERE) {
            for (int k = 0; k < dims; ++k) {
                eddy_real v = a->center[k] - b->center[k];
                far2 += v * v;
            }
            return sqrtf(far2) + a->radius <= b->radius;
        }
    }
    return 0;
}

/*
 * eddy_hd_collider_hidden asked only of the colliders among[0 .. n) (indices into colliders, in
 * increasing order; NULL: the first n). The same answer for a collider k within `reach` of a point p
 * (-reach <= d_k < reach) when among holds every collider within 2 reach of p: a solid that holds k
 * holds k's point nearest p, so it is no farther from p than |d_k| (the factor 2 is far more than the
 * rounding).
 */
static inline EDDY_HD int eddy_hd_collider_hidden_among(const eddy_collider *colliders, const size_t *among, size_t n,
                                                        int dims, size_t k)
{
    const eddy_collider *c = &colliders[k];
    for (size_t i = 0; i < n; ++i) {
        const size_t j = among ? among[i] : i;
        if (j == k || !eddy_hd_solid_within(c, &colliders[j], dims)) continue;
        if (j > k || !eddy_hd_solid_within(&colliders[j], c, dims)) return 1;
    }
    return 0;
}

/*
 * Whether collider k of the `count` colliders is hidden: its solid lies within another collider's
 * (eddy_hd_solid_within), so none of its surface borders the free space and the fluid can never meet
 * it: a box under the container's floor, or one whose top face is the floor. Of colliders with the
 * same solid the last in the list counts and the others are hidden, so a plane laid over a container
 * wall (whose planes come first) replaces the wall, e.g. with a velocity of its own (a conveyor belt).
 * A hidden collider has no mirrors and no contact response: its surface lies on or behind one that
 * has both, and reflecting across both made two walls of one (a point near a floor and a box face at
 * the floor had three mirrors, one of them the identity, which counted the fluid twice). Evaluated
 * for the colliders' current positions, so a collider that moves out of another is seen from then on.
 */
static inline EDDY_HD int eddy_hd_collider_hidden(const eddy_collider *colliders, size_t count, int dims, size_t k)
{
    return eddy_hd_collider_hidden_among(colliders, NULL, count, dims, k);
}

/*
 * eddy_contact_respond without its unused time step: the Bullet-Fluids response of one particle
 * (position p, velocity v, updated in place) to one collider with the contact parameters of its
 * material (<eddy/boundary.h> describes it). Returns non-zero when the particle touched the surface.
 */
static inline EDDY_HD int eddy_hd_contact_respond(const eddy_collider *c, int dims, const eddy_contact_params *cp,
                                                  eddy_real p[3], eddy_real v[3])
{
    eddy_real n[3];
    eddy_real d = eddy_hd_collider_distance(c, dims, p, n);
    if (!(d < cp->radius)) return 0;
    eddy_real rel[3], vn = 0.0f;
    for (int a = 0; a < 3; ++a) {
        rel[a] = v[a] - c->velocity[a];
        vn += rel[a] * n[a];
    }
    if (vn < 0.0f) {
        /* The impulse removes the approaching normal velocity (and reflects `restitution` of it);
         * friction takes its fraction of the tangential slip relative to the surface. */
        for (int a = 0; a < dims; ++a) {
            eddy_real vt = rel[a] - vn * n[a];
            v[a] -= (1.0f + cp->restitution) * vn * n[a] + cp->friction * vt;
        }
    }
    eddy_real depth = cp->radius - d - cp->margin;
    if (depth > 0.0f)
        for (int a = 0; a < dims; ++a) p[a] += cp->erp * depth * n[a];
    return 1;
}

/*
 * The contact response of one particle (position p, velocity v, in place) to every collider in order
 * that is not hidden (eddy_hd_collider_hidden): what a particle meets. Returns non-zero when it touched
 * any. Whether a collider is hidden is asked only of one within reach (a few per particle), so that
 * many colliders cost no pass over every pair. The one loop of eddy_boundaries_respond,
 * eddy_hd_contact_respond_range, pbf's projection and the CUDA plugin's integration: a solid inside
 * another (a box under the floor) pushed a particle a second time where any of them looped itself.
 */
static inline EDDY_HD int eddy_hd_contact_respond_visible(const eddy_collider *colliders, size_t count, int dims,
                                                          const eddy_contact_params *cp, eddy_real p[3], eddy_real v[3])
{
    int touched = 0;
    for (size_t k = 0; k < count; ++k) {
        if (!(eddy_hd_collider_distance(&colliders[k], dims, p, NULL) < cp->radius) ||
            eddy_hd_collider_hidden(colliders, count, dims, k))
            continue;
        touched |= eddy_hd_contact_respond(&colliders[k], dims, cp, p, v);
    }
    return touched;
}

/*
 * Which of the n points (x[t], y[t], z[t]; z is read only in 3D) a contact response with a contact
 * radius of at most `reach` may move: flag[t] = 1 for the points within reach of a plane or a sphere
 * among the colliders, for every point when there is another shape, else 0. Conservative: a point
 * left at 0 is farther than reach from every surface as eddy_hd_collider_distance computes it, so
 * eddy_hd_contact_respond would leave it and its velocity unchanged for every collider, and a caller
 * may skip it (eddy_boundaries_respond, and pbf's projection inside its iterations). One loop over the
 * points per collider, without branches on the data, so that it vectorizes: the response itself is a
 * branchy loop over every collider per point (5-6% of a dam break's step, for the ~1% of particles
 * that touch anything). The distances are computed as there, but a compiler may fuse multiply-adds
 * in one and not the other (an FMA target with contraction on): a slack of 4 ulps of the coordinates
 * (normals are unit, eddy_world_add_collider normalizes them) covers that, and for spheres the
 * rounding of the square root. Writes flag[0 .. n).
 */
static inline EDDY_HD void eddy_hd_contact_pick(const eddy_collider *colliders, size_t count, int dims, eddy_real reach,
                                                const eddy_real *x, const eddy_real *y, const eddy_real *z, size_t n,
                                                unsigned char *flag)
{
    for (size_t t = 0; t < n; ++t) flag[t] = 0;
    for (size_t k = 0; k < count; ++k) {
        const eddy_collider *c = &colliders[k];
        if (c->shape == EDDY_SHAPE_PLANE) {
            const eddy_real px = c->point[0], py = c->point[1], pz = dims == 3 ? c->point[2] : 0.0f;
            const eddy_real nx = c->normal[0], ny = c->normal[1], nz = dims == 3 ? c->normal[2] : 0.0f;
            const eddy_real at = fabsf(px) + fabsf(py) + fabsf(pz);
            for (size_t t = 0; t < n; ++t) {
                const eddy_real zt = dims == 3 ? z[t] : 0.0f;
                const eddy_real d = (x[t] - px) * nx + (y[t] - py) * ny + (zt - pz) * nz;
                const eddy_real slack = 5e-7f * (fabsf(x[t]) + fabsf(y[t]) + fabsf(zt) + at);
                flag[t] |= (unsigned char)(d < reach + slack);
            }
        } else if (c->shape == EDDY_SHAPE_SPHERE) {
            const eddy_real cx = c->center[0], cy = c->center[1], cz = dims == 3 ? c->center[2] : 0.0f;
            /* At least 2^-60, so that r * r below stays a normal float rather than underflowing to 0. */
            const eddy_real outer = fmaxf((c->radius + reach) * 1.0001f, 0x1p-60f);
            const eddy_real at = fabsf(cx) + fabsf(cy) + fabsf(cz);
            for (size_t t = 0; t < n; ++t) {
                const eddy_real zt = dims == 3 ? z[t] : 0.0f;
                const eddy_real vx = x[t] - cx, vy = y[t] - cy, vz = zt - cz;
                const eddy_real slack = 5e-7f * (fabsf(x[t]) + fabsf(y[t]) + fabsf(zt) + at);
                const eddy_real r = outer + slack;
                flag[t] |= (unsigned char)(vx * vx + vy * vy + vz * vz < r * r);
            }
        } else {
            for (size_t t = 0; t < n; ++t) flag[t] = 1;
            return;
        }
    }
}

/*
 * The contact response of the n particles at x, y, z with velocities vx, vy, vz, updated in place (in 2D
 * too all six arrays are read, and z, vz come back unchanged): eddy_hd_contact_respond for every collider in order
 * that is not hidden (eddy_hd_collider_hidden), each particle with the contact parameters of its
 * material, contacts[material[t]]. The particles eddy_hd_contact_pick leaves out are skipped, which
 * changes no result, so the result of a particle does not depend on how a caller splits the particles
 * into ranges. What eddy_boundaries_respond does to the particles' own
 * velocity, for a caller that keeps a velocity of its own (vpm_hybrid's SPH velocity). flag: n bytes
 * of scratch the caller provides (ranges of a few hundred particles keep it on the stack, and the pick
 * in vector loops).
 */
static inline EDDY_HD void eddy_hd_contact_respond_range(const eddy_collider *colliders, size_t count, int dims,
                                                         const eddy_contact_params *contacts,
                                                         const uint32_t *material, eddy_real *x, eddy_real *y,
                                                         eddy_real *z, eddy_real *vx, eddy_real *vy, eddy_real *vz,
                                                         size_t n, unsigned char *flag)
{
    if (count == 0 || n == 0) return;
    eddy_real reach = 0.0f;
    for (size_t t = 0; t < n; ++t) reach = fmaxf(reach, contacts[material[t]].radius);
    eddy_hd_contact_pick(colliders, count, dims, reach, x, y, z, n, flag);
    for (size_t t = 0; t < n; ++t) {
        if (!flag[t]) continue;
        const eddy_contact_params *cp = &contacts[material[t]];
        eddy_real pos[3] = {x[t], y[t], z[t]};
        eddy_real vel[3] = {vx[t], vy[t], vz[t]};
        if (!eddy_hd_contact_respond_visible(colliders, count, dims, cp, pos, vel)) continue;
        x[t] = pos[0], y[t] = pos[1], z[t] = pos[2];
        vx[t] = vel[0], vy[t] = vel[1], vz[t] = vel[2];
    }
}

/*
 * The surfaces a point p within `reach` is mirrored across, among `count` colliders over `dims` axes:
 * the nearest EDDY_MAX_MIRROR_WALLS (collider order among equal distances, so the choice is
 * deterministic), nearest first, with their indices (which), signed distances (dist) and outward
 * normals (normal). Hidden colliders (eddy_hd_collider_hidden) are left out, and of surfaces whose
 * normals at their nearest points are parallel and face the same way only the nearest counts (the
 * last in collider order at equal distances). Returns how many (0 .. EDDY_MAX_MIRROR_WALLS). One
 * selection behind eddy_boundaries_mirrors and eddy_boundaries_mirror_walls, so that the two agree. qn
 * and vn are both NULL or both not NULL (only qn is tested); when not NULL they receive each wall's
 * tangent plane for eddy_hd_mirror_reflect: q . n of its nearest
 * surface point q = p - dist n, and the collider's velocity . n (computed as a wall is taken, the
 * order of operations the device code was first measured with).
 */
static inline EDDY_HD int eddy_hd_mirror_walls(const eddy_collider *colliders, size_t count, int dims,
                                               eddy_real reach, const eddy_real p[3],
                                               size_t which[EDDY_MAX_MIRROR_WALLS],
                                               eddy_real dist[EDDY_MAX_MIRROR_WALLS],
                                               eddy_real normal[EDDY_MAX_MIRROR_WALLS][3],
                                               eddy_real qn[EDDY_MAX_MIRROR_WALLS], eddy_real vn[EDDY_MAX_MIRROR_WALLS])
{
    /* The colliders within 2 reach of p, which hold every solid that may hide a wall of p: asking
     * only them keeps a porous bed of many colliders from costing a pass over all of them per wall.
     * With more than fit here, every collider is asked. */
    size_t near[16];
    const int near_max = (int)(sizeof near / sizeof near[0]);
    int nnear = 0;
    for (size_t k = 0; k < count && nnear <= near_max; ++k)
        if (eddy_hd_collider_distance(&colliders[k], dims, p, NULL) < 2.0f * reach) {
            if (nnear < near_max) near[nnear] = k;
            ++nnear;
        }
    const int few = nnear <= near_max;
    const size_t visits = few ? (size_t)nnear : count;
    int nw = 0;
    for (size_t v = 0; v < visits; ++v) {
        const size_t k = few ? near[v] : v;
        eddy_real n[3];
        eddy_real d = eddy_hd_collider_distance(&colliders[k], dims, p, n);
        if (!(d < reach) || d < -reach) continue;
        /* Two walls facing the same way are never a corner: the reflection across one composed with
         * the other's is a translation (the identity where they coincide) that lays a copy of the
         * fluid over itself. The farther one lies behind the nearer, beyond the solid p sees, so only
         * the nearer is a wall of p (the later in the list at equal distances, as for equal solids). */
        int twin = -1;
        for (int m = 0; m < nw; ++m)
            if (normal[m][0] * n[0] + normal[m][1] * n[1] + normal[m][2] * n[2] > 1.0f - 1e-6f) twin = m;
        if (twin >= 0 && dist[twin] < d) continue;
        int at = nw;
        while (at > 0 && d < dist[at - 1]) --at;
        if (twin < 0 && at >= EDDY_MAX_MIRROR_WALLS) continue;
        if (eddy_hd_collider_hidden_among(colliders, few ? near : NULL, few ? (size_t)nnear : count, dims, k))
            continue;
        if (twin >= 0) {
            /* k takes its twin's place: at <= twin, as d <= dist[twin]; or twin + 1 at a tie. */
            for (int m = twin; m + 1 < nw; ++m) {
                which[m] = which[m + 1];
                dist[m] = dist[m + 1];
                for (int a = 0; a < 3; ++a) normal[m][a] = normal[m + 1][a];
                if (qn) {
                    qn[m] = qn[m + 1];
                    vn[m] = vn[m + 1];
                }
            }
            --nw;
            if (at > twin) --at;
        }
        int last = nw < EDDY_MAX_MIRROR_WALLS ? nw : EDDY_MAX_MIRROR_WALLS - 1;
        for (int m = last; m > at; --m) {
            which[m] = which[m - 1];
            dist[m] = dist[m - 1];
            for (int a = 0; a < 3; ++a) normal[m][a] = normal[m - 1][a];
            if (qn) {
                qn[m] = qn[m - 1];
                vn[m] = vn[m - 1];
            }
        }
        which[at] = k;
        dist[at] = d;
        for (int a = 0; a < 3; ++a) normal[at][a] = n[a];
        if (qn) {
            eddy_real s = 0.0f;
            for (int a = 0; a < 3; ++a) s += (p[a] - d * n[a]) * n[a]; /* the nearest surface point is p - d n */
            qn[at] = s;
            const eddy_real *vw = colliders[k].velocity;
            vn[at] = vw[0] * n[0] + vw[1] * n[1] + vw[2] * n[2];
        }
        if (nw < EDDY_MAX_MIRROR_WALLS) ++nw;
    }
    return nw;
}

/*
 * *out = the reflection across one wall composed after m (out may be m): the plane with unit normal
 * n, qn = q . n for a point q on it, and vn = the wall's velocity . n. With R_p = I - 2 n n^T and
 * t_p = 2 qn n: R = R_p R_m, t = R_p t_m + t_p, the velocity offset likewise with 2 vn n, and the
 * hydrostatic pressure continuation across the wall, -2 d_j (g . n) with d_j = x_j . n - qn, added to
 * m's (g: gravity, sim units / s^2).
 */
static inline EDDY_HD void eddy_hd_mirror_reflect(const eddy_mirror *m, const eddy_real n[3], eddy_real qn,
                                                  eddy_real vn, const eddy_real g[3], eddy_mirror *out)
{
    eddy_real rp[3][3];
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) rp[a][c] = (a == c ? 1.0f : 0.0f) - 2.0f * n[a] * n[c];
    eddy_mirror r;
    for (int a = 0; a < 3; ++a) {
        for (int c = 0; c < 3; ++c)
            r.rotation[a][c] = rp[a][0] * m->rotation[0][c] + rp[a][1] * m->rotation[1][c] +
                               rp[a][2] * m->rotation[2][c];
        r.offset[a] = rp[a][0] * m->offset[0] + rp[a][1] * m->offset[1] + rp[a][2] * m->offset[2] +
                      2.0f * qn * n[a];
        r.velocity_offset[a] = rp[a][0] * m->velocity_offset[0] + rp[a][1] * m->velocity_offset[1] +
                               rp[a][2] * m->velocity_offset[2] + 2.0f * vn * n[a];
    }
    eddy_real gn = g[0] * n[0] + g[1] * n[1] + g[2] * n[2];
    for (int a = 0; a < 3; ++a) r.pressure_slope[a] = m->pressure_slope[a] - 2.0f * gn * n[a];
    r.pressure_offset = m->pressure_offset + 2.0f * gn * qn;
    *out = r;
}

/* The identity mirror: rotation I, every offset and slope 0. */
static inline EDDY_HD void eddy_hd_mirror_identity(eddy_mirror *m)
{
    for (int a = 0; a < 3; ++a) {
        for (int c = 0; c < 3; ++c) m->rotation[a][c] = a == c ? 1.0f : 0.0f;
        m->offset[a] = m->velocity_offset[a] = m->pressure_slope[a] = 0.0f;
    }
    m->pressure_offset = 0.0f;
}

/*
 * eddy_boundaries_mirrors over `count` colliders and `dims` axes: fills out with the mirrors of p (one
 * per non-empty subset of the walls of eddy_hd_mirror_walls, mirror mask - 1 composing the walls of
 * the bits of mask in increasing order) and returns how many (0 .. EDDY_MAX_MIRRORS). Each wall is the
 * plane tangent to its surface at the point nearest p, moving with the collider's velocity. gravity
 * may be NULL (no hydrostatic continuation).
 */
static inline EDDY_HD int eddy_hd_mirrors(const eddy_collider *colliders, size_t count, int dims,
                                          const eddy_real gravity[3], eddy_real reach, const eddy_real p[3],
                                          eddy_mirror out[EDDY_MAX_MIRRORS])
{
    size_t which[EDDY_MAX_MIRROR_WALLS];
    eddy_real dist[EDDY_MAX_MIRROR_WALLS], normal[EDDY_MAX_MIRROR_WALLS][3];
    eddy_real qn[EDDY_MAX_MIRROR_WALLS], vn[EDDY_MAX_MIRROR_WALLS];
    const int nw = eddy_hd_mirror_walls(colliders, count, dims, reach, p, which, dist, normal, qn, vn);
    const eddy_real zero[3] = {0, 0, 0};
    const eddy_real *g = gravity ? gravity : zero;
    int made = 0;
    for (int mask = 1; mask < (1 << nw); ++mask) {
        eddy_mirror m;
        eddy_hd_mirror_identity(&m);
        for (int k = 0; k < nw; ++k)
            if (mask & (1 << k)) eddy_hd_mirror_reflect(&m, normal[k], qn[k], vn[k], g, &m);
        out[made++] = m;
    }
    return made;
}

EDDY_END_DECLS

#endif /* EDDY_BOUNDARY_MATH_H */
