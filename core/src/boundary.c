#include <eddy/boundary.h>
#include <eddy/boundary_math.h>

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

/* The per-particle math is <eddy/boundary_math.h>, the one definition the CUDA plugin's kernels
 * compile too; the exported functions below only adapt eddy_boundaries to it. */

eddy_real eddy_collider_distance(const eddy_collider *c, int dims, const eddy_real p[3], eddy_real n[3])
{
    return eddy_hd_collider_distance(c, dims, p, n);
}

eddy_real eddy_boundaries_distance(const eddy_boundaries *b, const eddy_real p[3], eddy_real normal[3], size_t *which)
{
    eddy_real best = FLT_MAX;
    for (size_t k = 0; k < b->collider_count; ++k) {
        eddy_real n[3];
        eddy_real d = eddy_hd_collider_distance(&b->colliders[k], b->dimensions, p, n);
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
    (void)dt;
    return eddy_hd_contact_respond(c, dims, cp, p, v);
}

/* Particles per range of eddy_hd_contact_respond_range: its flags fit on the stack, and the pick of the
 * ~1% of particles that may touch a surface runs in vector loops. */
#define RESPOND_BLOCK 256

void eddy_boundaries_respond(const eddy_boundaries *b, const eddy_contact_params *contacts,
                             eddy_particles *p, eddy_real dt)
{
    (void)dt; /* the contact response is a position projection: no velocity of depth / dt */
    if (b->collider_count == 0) return;
    const size_t n = p->count;
    const long long blocks = (long long)((n + RESPOND_BLOCK - 1) / RESPOND_BLOCK);
#pragma omp parallel for schedule(static)
    for (long long blk = 0; blk < blocks; ++blk) {
        const size_t i0 = (size_t)blk * RESPOND_BLOCK;
        const size_t len = n - i0 < RESPOND_BLOCK ? n - i0 : RESPOND_BLOCK;
        unsigned char flag[RESPOND_BLOCK];
        eddy_hd_contact_respond_range(b->colliders, b->collider_count, b->dimensions, contacts, p->material + i0,
                                      p->x + i0, p->y + i0, p->z + i0, p->vx + i0, p->vy + i0, p->vz + i0, len,
                                      flag);
    }
}

int eddy_boundaries_mirror_walls(const eddy_boundaries *b, eddy_real reach, const eddy_real p[3],
                                 size_t walls[EDDY_MAX_MIRROR_WALLS])
{
    eddy_real dist[EDDY_MAX_MIRROR_WALLS], normal[EDDY_MAX_MIRROR_WALLS][3];
    return eddy_hd_mirror_walls(b->colliders, b->collider_count, b->dimensions, reach, p, walls, dist, normal,
                                NULL, NULL);
}

int eddy_boundaries_mirrors(const eddy_boundaries *b, const eddy_real gravity[3], eddy_real reach,
                            const eddy_real p[3], eddy_mirror out[EDDY_MAX_MIRRORS])
{
    return eddy_hd_mirrors(b->colliders, b->collider_count, b->dimensions, gravity, reach, p, out);
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
