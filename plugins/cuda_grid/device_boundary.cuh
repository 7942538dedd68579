/*
 * Device copies of the core's boundary helpers (core/src/boundary.c, core/include/eddy/boundary.h):
 * signed distance to a collider, the Bullet-Fluids contact response, and the mirror ghosts. The core's
 * functions are host code, so they are written here again, operation for operation in the same order,
 * for the GPU-resident solver step. Private to plugins/cuda_grid; CUDA C++ only.
 *
 * Keep in step with core/src/boundary.c: a change there must be made here too (the GPU agreement test
 * of sph_mueller_cuda compares the two after 100 steps of scenes with walls and a sphere).
 */
#ifndef EDDY_CUDA_GRID_DEVICE_BOUNDARY_CUH
#define EDDY_CUDA_GRID_DEVICE_BOUNDARY_CUH

#include <eddy/boundary.h>

#include <float.h>

namespace eddy_cuda {

__device__ inline float box_distance(const eddy_collider &c, int dims, const float p[3], float n[3])
{
    float q[3] = {0, 0, 0}, dir[3] = {0, 0, 0};
    float outside2 = 0.0f, inside = -FLT_MAX;
    int inside_axis = 0, is_outside = 0;
    for (int a = 0; a < dims; ++a) {
        float lo = c.min[a] - p[a], hi = p[a] - c.max[a];
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
        float d = sqrtf(outside2);
        for (int a = 0; a < 3; ++a) n[a] = (a < dims && q[a] > 0) ? dir[a] * q[a] / d : 0.0f;
        return d;
    }
    for (int a = 0; a < 3; ++a) n[a] = a == inside_axis ? dir[a] : 0.0f;
    return inside;
}

__device__ inline float collider_distance(const eddy_collider &c, int dims, const float p[3], float n[3])
{
    switch (c.shape) {
    case EDDY_SHAPE_PLANE: {
        float d = 0.0f;
        for (int a = 0; a < dims; ++a) d += (p[a] - c.point[a]) * c.normal[a];
        for (int a = 0; a < 3; ++a) n[a] = a < dims ? c.normal[a] : 0.0f;
        return d;
    }
    case EDDY_SHAPE_BOX:
        return box_distance(c, dims, p, n);
    case EDDY_SHAPE_SPHERE: {
        float v[3] = {0, 0, 0}, l2 = 0.0f;
        for (int a = 0; a < dims; ++a) {
            v[a] = p[a] - c.center[a];
            l2 += v[a] * v[a];
        }
        float l = sqrtf(l2);
        for (int a = 0; a < 3; ++a) n[a] = l > 0 ? v[a] / l : (a == 1 ? 1.0f : 0.0f);
        return l - c.radius;
    }
    }
    n[0] = n[1] = n[2] = 0.0f;
    return FLT_MAX;
}

/* eddy_contact_respond: returns non-zero when the particle touched the surface. */
__device__ inline int contact_respond(const eddy_collider &c, int dims, const eddy_contact_params &cp, float p[3],
                                      float v[3])
{
    float n[3];
    float d = collider_distance(c, dims, p, n);
    if (!(d < cp.radius)) return 0;
    float rel[3], vn = 0.0f;
    for (int a = 0; a < 3; ++a) {
        rel[a] = v[a] - c.velocity[a];
        vn += rel[a] * n[a];
    }
    if (vn < 0.0f) {
        for (int a = 0; a < dims; ++a) {
            float vt = rel[a] - vn * n[a];
            v[a] -= (1.0f + cp.restitution) * vn * n[a] + cp.friction * vt;
        }
    }
    float depth = cp.radius - d - cp.margin;
    if (depth > 0.0f)
        for (int a = 0; a < dims; ++a) p[a] += cp.erp * depth * n[a];
    return 1;
}

struct mirror_plane {
    float n[3];
    float qn;
    float vn;
};

__device__ inline void mirror_compose(const eddy_mirror &m, const mirror_plane &pl, const float g[3], eddy_mirror &out)
{
    float rp[3][3];
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) rp[a][c] = (a == c ? 1.0f : 0.0f) - 2.0f * pl.n[a] * pl.n[c];
    eddy_mirror r;
    for (int a = 0; a < 3; ++a) {
        for (int c = 0; c < 3; ++c)
            r.rotation[a][c] =
                rp[a][0] * m.rotation[0][c] + rp[a][1] * m.rotation[1][c] + rp[a][2] * m.rotation[2][c];
        r.offset[a] = rp[a][0] * m.offset[0] + rp[a][1] * m.offset[1] + rp[a][2] * m.offset[2] + 2.0f * pl.qn * pl.n[a];
        r.velocity_offset[a] = rp[a][0] * m.velocity_offset[0] + rp[a][1] * m.velocity_offset[1] +
                               rp[a][2] * m.velocity_offset[2] + 2.0f * pl.vn * pl.n[a];
    }
    float gn = g[0] * pl.n[0] + g[1] * pl.n[1] + g[2] * pl.n[2];
    for (int a = 0; a < 3; ++a) r.pressure_slope[a] = m.pressure_slope[a] - 2.0f * gn * pl.n[a];
    r.pressure_offset = m.pressure_offset + 2.0f * gn * pl.qn;
    out = r;
}

/* eddy_boundaries_mirrors over `count` colliders. */
__device__ inline int boundary_mirrors(const eddy_collider *colliders, int count, int dims, const float g[3],
                                       float reach, const float p[3], eddy_mirror out[EDDY_MAX_MIRRORS])
{
    mirror_plane walls[EDDY_MAX_MIRROR_WALLS];
    float dist[EDDY_MAX_MIRROR_WALLS];
    int nw = 0;
    for (int k = 0; k < count; ++k) {
        float n[3];
        float d = collider_distance(colliders[k], dims, p, n);
        if (!(d < reach) || d < -reach) continue;
        int at = nw;
        while (at > 0 && d < dist[at - 1]) --at;
        if (at >= EDDY_MAX_MIRROR_WALLS) continue;
        int last = nw < EDDY_MAX_MIRROR_WALLS ? nw : EDDY_MAX_MIRROR_WALLS - 1;
        for (int m = last; m > at; --m) {
            walls[m] = walls[m - 1];
            dist[m] = dist[m - 1];
        }
        mirror_plane pl;
        float qn = 0.0f;
        for (int a = 0; a < 3; ++a) {
            pl.n[a] = n[a];
            qn += (p[a] - d * n[a]) * n[a];
        }
        pl.qn = qn;
        const float *vw = colliders[k].velocity;
        pl.vn = vw[0] * n[0] + vw[1] * n[1] + vw[2] * n[2];
        walls[at] = pl;
        dist[at] = d;
        if (nw < EDDY_MAX_MIRROR_WALLS) ++nw;
    }
    int made = 0;
    for (int mask = 1; mask < (1 << nw); ++mask) {
        eddy_mirror m;
        for (int a = 0; a < 3; ++a) {
            for (int c = 0; c < 3; ++c) m.rotation[a][c] = a == c ? 1.0f : 0.0f;
            m.offset[a] = m.velocity_offset[a] = m.pressure_slope[a] = 0.0f;
        }
        m.pressure_offset = 0.0f;
        for (int k = 0; k < nw; ++k)
            if (mask & (1 << k)) mirror_compose(m, walls[k], g, m);
        out[made++] = m;
    }
    return made;
}

__device__ inline void mirror_apply_point(const eddy_mirror &m, const float x[3], float out[3])
{
    for (int a = 0; a < 3; ++a)
        out[a] = m.rotation[a][0] * x[0] + m.rotation[a][1] * x[1] + m.rotation[a][2] * x[2] + m.offset[a];
}

__device__ inline void mirror_apply_velocity(const eddy_mirror &m, const float v[3], float out[3])
{
    for (int a = 0; a < 3; ++a)
        out[a] = m.rotation[a][0] * v[0] + m.rotation[a][1] * v[1] + m.rotation[a][2] * v[2] + m.velocity_offset[a];
}

__device__ inline float mirror_pressure(const eddy_mirror &m, float p_j, float rho_j, const float x_j[3])
{
    return p_j + rho_j * (m.pressure_slope[0] * x_j[0] + m.pressure_slope[1] * x_j[1] + m.pressure_slope[2] * x_j[2] +
                          m.pressure_offset);
}

} // namespace eddy_cuda

#endif /* EDDY_CUDA_GRID_DEVICE_BOUNDARY_CUH */
