#include <eddy/boundary.h>

#include <float.h>
#include <math.h>
#include <string.h>

eddy_collider eddy_default_collider(void)
{
    eddy_collider c;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.shape = EDDY_SHAPE_PLANE;
    c.normal[1] = 1.0f;
    return c;
}

static eddy_real box_distance(const eddy_collider *c, int dims, const eddy_real p[3], eddy_real n[3])
{
    /* Per axis: q > 0 outside the slab; for an inside point the least-negative q is the closest face. */
    eddy_real q[3] = {0, 0, 0}, dir[3] = {0, 0, 0};
    eddy_real outside2 = 0.0f, inside = -FLT_MAX;
    int inside_axis = 0, is_outside = 0;
    for (int a = 0; a < dims; ++a) {
        eddy_real lo = c->min[a] - p[a], hi = p[a] - c->max[a];
        if (lo > 0) { q[a] = lo; dir[a] = -1; }
        else if (hi > 0) { q[a] = hi; dir[a] = 1; }
        else {
            q[a] = lo > hi ? lo : hi;
            dir[a] = lo > hi ? -1 : 1;
        }
        if (q[a] > 0) { outside2 += q[a] * q[a]; is_outside = 1; }
        if (q[a] > inside) { inside = q[a]; inside_axis = a; }
    }
    if (is_outside) {
        eddy_real d = sqrtf(outside2);
        if (n) for (int a = 0; a < 3; ++a) n[a] = (a < dims && q[a] > 0) ? dir[a] * q[a] / d : 0.0f;
        return d;
    }
    if (n) for (int a = 0; a < 3; ++a) n[a] = a == inside_axis ? dir[a] : 0.0f;
    return inside;
}

eddy_real eddy_collider_distance(const eddy_collider *c, int dims, const eddy_real p[3], eddy_real n[3])
{
    switch (c->shape) {
    case EDDY_SHAPE_PLANE: {
        eddy_real d = 0.0f;
        for (int a = 0; a < dims; ++a) d += (p[a] - c->point[a]) * c->normal[a];
        if (n) for (int a = 0; a < 3; ++a) n[a] = a < dims ? c->normal[a] : 0.0f;
        return d;
    }
    case EDDY_SHAPE_BOX:
        return box_distance(c, dims, p, n);
    case EDDY_SHAPE_SPHERE: {
        eddy_real v[3] = {0, 0, 0}, l2 = 0.0f;
        for (int a = 0; a < dims; ++a) { v[a] = p[a] - c->center[a]; l2 += v[a] * v[a]; }
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

eddy_real eddy_boundaries_distance(const eddy_boundaries *b, const eddy_real p[3], eddy_real normal[3], size_t *which)
{
    eddy_real best = FLT_MAX;
    for (size_t k = 0; k < b->collider_count; ++k) {
        eddy_real n[3];
        eddy_real d = eddy_collider_distance(&b->colliders[k], b->dimensions, p, n);
        if (d < best) {
            best = d;
            if (normal) for (int a = 0; a < 3; ++a) normal[a] = n[a];
            if (which) *which = k;
        }
    }
    return best;
}

int eddy_contact_respond(const eddy_collider *c, int dims, const eddy_contact_params *cp, eddy_real p[3],
                         eddy_real v[3], eddy_real dt)
{
    eddy_real n[3];
    eddy_real d = eddy_collider_distance(c, dims, p, n);
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
    (void)dt;
    if (depth > 0.0f)
        for (int a = 0; a < dims; ++a) p[a] += cp->erp * depth * n[a];
    return 1;
}

void eddy_boundaries_respond(const eddy_boundaries *b, const eddy_contact_params *contacts,
                             eddy_particles *p, eddy_real dt)
{
    if (b->collider_count == 0) return;
    const long long n = (long long)p->count;
    const int dims = b->dimensions;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) {
        const eddy_contact_params *cp = &contacts[p->material[i]];
        eddy_real pos[3] = {p->x[i], p->y[i], p->z[i]};
        eddy_real vel[3] = {p->vx[i], p->vy[i], p->vz[i]};
        int touched = 0;
        for (size_t k = 0; k < b->collider_count; ++k)
            touched |= eddy_contact_respond(&b->colliders[k], dims, cp, pos, vel, dt);
        if (touched) {
            p->x[i] = pos[0];
            p->y[i] = pos[1];
            p->z[i] = pos[2];
            p->vx[i] = vel[0];
            p->vy[i] = vel[1];
            p->vz[i] = vel[2];
        }
    }
}

/* One reflecting plane: x' = x - 2 ((x - q) . n) n. */
typedef struct plane {
    eddy_real n[3];
    eddy_real qn; /* q . n */
    eddy_real vn; /* wall velocity . n */
} plane;

static void compose(const eddy_mirror *m, const plane *pl, const eddy_real g[3], eddy_mirror *out)
{
    /* Reflection R_p = I - 2 n n^T, t_p = 2 (q . n) n; out = P o m: R = R_p R_m, t = R_p t_m + t_p. */
    eddy_real rp[3][3];
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) rp[a][c] = (a == c ? 1.0f : 0.0f) - 2.0f * pl->n[a] * pl->n[c];
    eddy_mirror r;
    for (int a = 0; a < 3; ++a) {
        for (int c = 0; c < 3; ++c)
            r.rotation[a][c] = rp[a][0] * m->rotation[0][c] + rp[a][1] * m->rotation[1][c] +
                               rp[a][2] * m->rotation[2][c];
        r.offset[a] = rp[a][0] * m->offset[0] + rp[a][1] * m->offset[1] + rp[a][2] * m->offset[2] +
                      2.0f * pl->qn * pl->n[a];
        r.velocity_offset[a] = rp[a][0] * m->velocity_offset[0] + rp[a][1] * m->velocity_offset[1] +
                               rp[a][2] * m->velocity_offset[2] + 2.0f * pl->vn * pl->n[a];
    }
    /* Hydrostatic continuation across this wall: -2 d_j (g . n) with d_j = x_j . n - q . n. */
    eddy_real gn = g[0] * pl->n[0] + g[1] * pl->n[1] + g[2] * pl->n[2];
    for (int a = 0; a < 3; ++a) r.pressure_slope[a] = m->pressure_slope[a] - 2.0f * gn * pl->n[a];
    r.pressure_offset = m->pressure_offset + 2.0f * gn * pl->qn;
    *out = r;
}

/* The surfaces a point within `reach` is mirrored across: the nearest EDDY_MAX_MIRROR_WALLS, in
 * collider order among equal distances (deterministic), with their distances and outward normals. One
 * selection for eddy_boundaries_mirrors and eddy_boundaries_mirror_walls, so that the two agree. */
static int select_walls(const eddy_boundaries *b, eddy_real reach, const eddy_real p[3],
                        size_t which[EDDY_MAX_MIRROR_WALLS], eddy_real dist[EDDY_MAX_MIRROR_WALLS],
                        eddy_real normal[EDDY_MAX_MIRROR_WALLS][3])
{
    int nw = 0;
    for (size_t k = 0; k < b->collider_count; ++k) {
        eddy_real n[3];
        eddy_real d = eddy_collider_distance(&b->colliders[k], b->dimensions, p, n);
        if (!(d < reach) || d < -reach) continue;
        int at = nw;
        while (at > 0 && d < dist[at - 1]) --at;
        if (at >= EDDY_MAX_MIRROR_WALLS) continue;
        int last = nw < EDDY_MAX_MIRROR_WALLS ? nw : EDDY_MAX_MIRROR_WALLS - 1;
        for (int m = last; m > at; --m) {
            which[m] = which[m - 1];
            dist[m] = dist[m - 1];
            for (int a = 0; a < 3; ++a) normal[m][a] = normal[m - 1][a];
        }
        which[at] = k;
        dist[at] = d;
        for (int a = 0; a < 3; ++a) normal[at][a] = n[a];
        if (nw < EDDY_MAX_MIRROR_WALLS) ++nw;
    }
    return nw;
}

int eddy_boundaries_mirror_walls(const eddy_boundaries *b, eddy_real reach, const eddy_real p[3],
                                 size_t walls[EDDY_MAX_MIRROR_WALLS])
{
    eddy_real dist[EDDY_MAX_MIRROR_WALLS], normal[EDDY_MAX_MIRROR_WALLS][3];
    return select_walls(b, reach, p, walls, dist, normal);
}

int eddy_boundaries_mirrors(const eddy_boundaries *b, const eddy_real gravity[3], eddy_real reach,
                            const eddy_real p[3], eddy_mirror out[EDDY_MAX_MIRRORS])
{
    size_t which[EDDY_MAX_MIRROR_WALLS];
    eddy_real dist[EDDY_MAX_MIRROR_WALLS], normal[EDDY_MAX_MIRROR_WALLS][3];
    const int nw = select_walls(b, reach, p, which, dist, normal);
    plane walls[EDDY_MAX_MIRROR_WALLS];
    for (int k = 0; k < nw; ++k) {
        const eddy_real *n = normal[k], d = dist[k];
        plane pl;
        eddy_real qn = 0.0f;
        for (int a = 0; a < 3; ++a) {
            pl.n[a] = n[a];
            qn += (p[a] - d * n[a]) * n[a]; /* the nearest surface point is p - d n */
        }
        pl.qn = qn;
        const eddy_real *vw = b->colliders[which[k]].velocity;
        pl.vn = vw[0] * n[0] + vw[1] * n[1] + vw[2] * n[2];
        walls[k] = pl;
    }
    const eddy_real zero[3] = {0, 0, 0};
    const eddy_real *g = gravity ? gravity : zero;
    /* Mirror for every non-empty subset of the walls, composed in wall order. */
    int count = 0;
    for (int mask = 1; mask < (1 << nw); ++mask) {
        eddy_mirror m;
        memset(&m, 0, sizeof m);
        for (int a = 0; a < 3; ++a) m.rotation[a][a] = 1.0f;
        for (int k = 0; k < nw; ++k)
            if (mask & (1 << k)) compose(&m, &walls[k], g, &m);
        out[count++] = m;
    }
    return count;
}

void eddy_collider_translate(eddy_collider *c, int dimensions, double dt)
{
    for (int a = 0; a < dimensions && a < 3; ++a) {
        eddy_real d = (eddy_real)(c->velocity[a] * dt);
        c->point[a] += d;
        c->min[a] += d;
        c->max[a] += d;
        c->center[a] += d;
    }
}
