#include <eddy/boundary.h>

#include <float.h>
#include <math.h>

static float box_distance(const eddy_collider *c, int dims, const float p[3], float n[3])
{
    /* Per axis: q > 0 outside the slab; for an inside point the least-negative q is the closest face. */
    float q[3] = {0, 0, 0}, dir[3] = {0, 0, 0};
    float outside2 = 0.0f, inside = -FLT_MAX;
    int inside_axis = 0, is_outside = 0;
    for (int a = 0; a < dims; ++a) {
        float lo = c->min[a] - p[a], hi = p[a] - c->max[a];
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
        float d = sqrtf(outside2);
        if (n) for (int a = 0; a < 3; ++a) n[a] = (a < dims && q[a] > 0) ? dir[a] * q[a] / d : 0.0f;
        return d;
    }
    if (n) for (int a = 0; a < 3; ++a) n[a] = a == inside_axis ? dir[a] : 0.0f;
    return inside;
}

float eddy_collider_distance(const eddy_collider *c, int dims, const float p[3], float n[3])
{
    switch (c->shape) {
    case EDDY_SHAPE_PLANE: {
        float d = 0.0f;
        for (int a = 0; a < dims; ++a) d += (p[a] - c->point[a]) * c->normal[a];
        if (n) for (int a = 0; a < 3; ++a) n[a] = a < dims ? c->normal[a] : 0.0f;
        return d;
    }
    case EDDY_SHAPE_BOX:
        return box_distance(c, dims, p, n);
    case EDDY_SHAPE_SPHERE: {
        float v[3] = {0, 0, 0}, l2 = 0.0f;
        for (int a = 0; a < dims; ++a) { v[a] = p[a] - c->center[a]; l2 += v[a] * v[a]; }
        float l = sqrtf(l2);
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

float eddy_boundaries_distance(const eddy_boundaries *b, const float p[3], float normal[3], size_t *which)
{
    float best = FLT_MAX;
    for (size_t k = 0; k < b->collider_count; ++k) {
        float n[3];
        float d = eddy_collider_distance(&b->colliders[k], b->dimensions, p, n);
        if (d < best) {
            best = d;
            if (normal) for (int a = 0; a < 3; ++a) normal[a] = n[a];
            if (which) *which = k;
        }
    }
    return best;
}

int eddy_contact_respond(const eddy_collider *c, int dims, const eddy_contact_params *cp, float p[3],
                         float v[3], float dt)
{
    float n[3];
    float d = eddy_collider_distance(c, dims, p, n);
    if (!(d < cp->radius)) return 0;
    float rel[3], vn = 0.0f;
    for (int a = 0; a < 3; ++a) {
        rel[a] = v[a] - c->velocity[a];
        vn += rel[a] * n[a];
    }
    if (vn < 0.0f) {
        /* The impulse removes the approaching normal velocity (and reflects `restitution` of it);
         * friction takes its fraction of the tangential slip relative to the surface. */
        for (int a = 0; a < dims; ++a) {
            float vt = rel[a] - vn * n[a];
            v[a] -= (1.0f + cp->restitution) * vn * n[a] + cp->friction * vt;
        }
    }
    float depth = cp->radius - d - cp->margin;
    (void)dt;
    if (depth > 0.0f)
        for (int a = 0; a < dims; ++a) p[a] += cp->erp * depth * n[a];
    return 1;
}

void eddy_boundaries_respond(const eddy_boundaries *b, const eddy_contact_params *contacts,
                             eddy_particles *p, float dt)
{
    if (b->collider_count == 0) return;
    const long long n = (long long)p->count;
    const int dims = b->dimensions;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) {
        const eddy_contact_params *cp = &contacts[p->material[i]];
        float pos[3] = {p->x[i], p->y[i], p->z[i]};
        float vel[3] = {p->vx[i], p->vy[i], p->vz[i]};
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

/* Half-space integrals of radial functions, the particle at the origin and the solid at x > d:
 *   3D: int f dV = int_d^h f(r) 2 pi r (r - d) dr,    int g (x / r) dV = int_d^h g(r) pi (r^2 - d^2) dr
 *   2D: int f dA = int_d^h f(r) 2 r acos(d / r) dr,   int g (x / r) dA = int_d^h g(r) 2 sqrt(r^2 - d^2) dr
 * (the spherical cap's area and the integral of cos(theta) over it; the same for a circular arc). */
static void wall_integrals(double d, double h, int dims, double *phi, double *grad)
{
    const int n = 2000; /* Simpson intervals; the integrands are smooth on [d, h] */
    const double poly6 = dims == 2 ? 4.0 / (M_PI * pow(h, 8)) : 315.0 / (64.0 * M_PI * pow(h, 9));
    const double spiky_grad = dims == 2 ? 30.0 / (M_PI * pow(h, 5)) : 45.0 / (M_PI * pow(h, 6));
    double sp = 0.0, sg = 0.0, dr = (h - d) / n;
    for (int i = 0; i <= n; ++i) {
        double r = d + i * dr, w = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        double wv = poly6 * pow(h * h - r * r, 3), gv = spiky_grad * (h - r) * (h - r);
        double a, b;
        if (dims == 2) {
            a = r > 0 ? 2.0 * r * acos(fmin(1.0, d / r)) : 0.0;
            b = 2.0 * sqrt(fmax(0.0, r * r - d * d));
        } else {
            a = 2.0 * M_PI * r * (r - d);
            b = M_PI * (r * r - d * d);
        }
        sp += w * wv * a;
        sg += w * gv * b;
    }
    *phi = sp * dr / 3.0;
    *grad = sg * dr / 3.0;
}

void eddy_wall_table_init(eddy_wall_table *t, float h, int dims)
{
    t->dimensions = dims;
    t->h = h;
    for (int k = 0; k <= EDDY_WALL_TABLE_SIZE; ++k) {
        double phi, grad;
        wall_integrals((double)h * k / EDDY_WALL_TABLE_SIZE, h, dims, &phi, &grad);
        t->density[k] = (float)phi;
        t->gradient[k] = (float)grad;
    }
}
