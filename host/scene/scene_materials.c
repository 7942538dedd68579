/*
 * host/scene/scene_materials.c — the schema of `materials`: the generic members every solver shares
 * (name, rest density, exactly one of particle mass and spacing, contact radius, margin, restitution,
 * friction, erp). The mass of a given spacing and the spacing of a given mass come from the poly6
 * lattice sums, checked within EDDY_LATTICE_RATIO_MAX spacings per smoothing radius. The per-solver
 * keys are checked later (scene_material_params.c).
 *
 * Depends on: scene_values.c, scene_errors.c, scene_lattice.c (scene_material_dist), the core's
 * lattice helpers.
 */
#include "scene_internal.h"

#include "fnv1a.h"

#include <float.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Relative difference allowed between a given particle_spacing and the spacing its particle mass
 * gives back (eddy_rest_spacing): float rounding of the mass leaves about 1e-7, the ill-conditioned
 * range just below h / spacing = 1 (where the neighbours' kernel weight vanishes) far more. */
#define SPACING_ROUND_TRIP 1e-5

/* h / spacing within (1, EDDY_LATTICE_RATIO_MAX] for a given particle_spacing (dx in simulation
 * units), before any lattice sum is formed; the error names the key and both values. */
/* Bounded far outside every fluid (gases near 1 kg/m^3, mercury 1.35e4): past the bounds the particle
 * masses, or the pressures the solvers form from rho0 (rho0 c0^2 in an equation of state), leave single
 * precision, and a run blew up at its first step with a hint about the time step (3e38; 1e32 with pbf),
 * or the spacing was blamed (2e-38). */
static int check_rest_density(ctx *c, const cJSON *o, const char *p, eddy_real rho)
{
    if (rho >= (eddy_real)1e-9 && rho <= (eddy_real)1e12) return EDDY_OK; /* (the bounds as the value, floats) */
    char rp[PATH_BUF];
    scene_path_key(rp, p, "rest_density");
    return scene_fail(c, rp, scene_member(o, "rest_density"), AT_VALUE,
                      "expected a rest density in [1e-9, 1e12] kg/m^3, got %g: outside it the particle masses or "
                      "the pressures the solvers form from it leave single precision", (double)rho);
}

static int check_spacing_ratio(ctx *c, const cJSON *o, const char *p, double dx, double h, double scale)
{
    char sp[PATH_BUF];
    scene_path_key(sp, p, "particle_spacing");
    const cJSON *v = scene_member(o, "particle_spacing");
    const double ratio = h / dx;
    if (ratio > EDDY_LATTICE_RATIO_MAX)
        return scene_fail(c, sp, v, AT_VALUE,
                          "expected a spacing of at least world.smoothing_radius / %d = %g (at most %d spacings "
                          "per smoothing radius), got %g (h / spacing = %g)",
                          EDDY_LATTICE_RATIO_MAX, h / EDDY_LATTICE_RATIO_MAX / scale, EDDY_LATTICE_RATIO_MAX,
                          dx / scale, ratio);
    if (!((eddy_real)dx < (eddy_real)h)) /* in the float precision both are stored in */
        return scene_fail(c, sp, v, AT_VALUE,
                          "expected a spacing below world.smoothing_radius = %g (the kernel must reach the nearest "
                          "neighbours for the density sum to fix the particle mass), got %g",
                          h / scale, dx / scale);
    return EDDY_OK;
}

/* The material's particle_dist (already derived from its mass) against what the scene asked: the
 * given spacing dx (> 0), or, for a given mass, a spacing with h / spacing in (1, limit] whose lattice
 * sums to rest density. */
static int check_rest_spacing(ctx *c, const cJSON *o, const char *p, const eddy_material *m, double dx, double h,
                              double scale)
{
    const int d = c->s->dimensions;
    const double dist = (double)m->particle_dist;
    char kp[PATH_BUF];
    if (dx > 0) {
        if (fabs(dist - dx) <= SPACING_ROUND_TRIP * dx) return EDDY_OK;
        scene_path_key(kp, p, "particle_spacing");
        return scene_fail(c, kp, scene_member(o, "particle_spacing"), AT_VALUE,
                          "expected a spacing further below world.smoothing_radius = %g, got %g (h / spacing = %g): "
                          "the neighbours' kernel weight is too small for a particle mass to give this spacing rest "
                          "density (the mass gives %g)",
                          h / scale, dx / scale, h / dx, dist / scale);
    }
    scene_path_key(kp, p, "particle_mass");
    const cJSON *v = scene_member(o, "particle_mass");
    const double plain = pow((double)m->particle_mass / (double)m->rest_density, 1.0 / d);
    if (isnan(dist) || h / dist > EDDY_LATTICE_RATIO_MAX)
        return scene_fail(c, kp, v, AT_VALUE,
                          "expected a mass whose rest spacing is at least world.smoothing_radius / %d = %g (at most %d "
                          "spacings per smoothing radius), got %g (rest spacing about %g, h / spacing about %g)",
                          EDDY_LATTICE_RATIO_MAX, h / EDDY_LATTICE_RATIO_MAX / scale, EDDY_LATTICE_RATIO_MAX,
                          (double)m->particle_mass, plain / scale, h / plain);
    const double rho = eddy_lattice_density((double)m->particle_mass, dist, h, d);
    if (h / dist > 1 && fabs(rho - (double)m->rest_density) <= 1e-4 * (double)m->rest_density) return EDDY_OK;
    /* Below h the lattice sum falls towards a particle's own weight m W(0) as the spacing grows, so a
     * mass that finds no spacing is one whose own kernel weight alone exceeds rest density (the
     * spacing eddy_rest_spacing falls back to, (m / rho0)^(1/d), may well lie below h: not a reason). */
    const eddy_kernels k = eddy_kernels_make((eddy_real)h, d);
    return scene_fail(c, kp, v, AT_VALUE,
                      "expected a mass of at most rest_density / W_poly6(0) = %g (for world.smoothing_radius = "
                      "%g), got %g: with more, a particle's own kernel weight alone gives more than rest_density "
                      "%g, at any spacing",
                      (double)m->rest_density / (double)eddy_poly6(&k, 0.0f), h / scale, (double)m->particle_mass,
                      (double)m->rest_density);
}

int scene_parse_materials(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *arr = scene_member(root, "materials");
    const char *exp = "a non-empty array of material objects";
    if (!arr) return scene_fail_missing(c, "", root, "materials", exp);
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1) return scene_fail_expected(c, "materials", arr, exp);
    size_t n = (size_t)cJSON_GetArraySize(arr);
    s->materials = calloc(n, sizeof *s->materials);
    if (!s->materials || scene_name_index_init(c->material_names, n))
        return eddy_error_set(c->err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    const int d = s->dimensions;
    const double scale = s->simulation_scale;
    size_t i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++i) {
        char p[PATH_BUF];
        scene_path_index(p, "materials", i);
        if (!cJSON_IsObject(o)) return scene_fail_expected(c, p, o, "a material object");
        /* Duplicates only: which other keys are valid depends on the registered solvers
         * (eddy_scene_material_params, when the world is built). */
        int rc = scene_check_keys(c, o, p, NULL);
        if (rc) return rc;
        eddy_material *m = &s->materials[i];
        *m = eddy_default_material();
        double rho, mass = 0, spacing = 0, v;
        eddy_real rho_real;
        int has_mass, has_spacing;
        if ((rc = scene_get_string(c, o, p, "name", 1, NULL, m->name, sizeof m->name, 1))) return rc;
        size_t j = scene_name_index_add(c->material_names, m->name, i);
        if (j != i) {
            char np[PATH_BUF];
            scene_path_key(np, p, "name");
            char shown[64];
            return scene_fail(c, np, scene_member(o, "name"), AT_VALUE,
                              "expected a unique material name, got \"%s\" again (also materials[%zu])",
                              scene_key_text(m->name, shown, sizeof shown), j);
        }
        /* A float, like the world's: 1e39 became inf, and the spacing was blamed for a NaN mass. */
        if ((rc = scene_get_real(c, o, p, "rest_density", 0, &NS_POS, 1000.0, &rho_real, NULL)) ||
            (rc = check_rest_density(c, o, p, rho_real)) ||
            (rc = scene_get_number(c, o, p, "particle_mass", 0, &NS_POS, 0, &mass, &has_mass)) ||
            (rc = scene_get_number(c, o, p, "particle_spacing", 0, &NS_POS, 0, &spacing, &has_spacing)))
            return rc;
        if (has_mass && has_spacing) {
            char sp[PATH_BUF];
            scene_path_key(sp, p, "particle_spacing");
            return scene_fail(c, sp, scene_member(o, "particle_spacing"), AT_KEY,
                              "expected exactly one of particle_mass and particle_spacing, got both");
        }
        if (!has_mass && !has_spacing)
            return scene_fail(c, p, o, AT_CONTAINER,
                              "expected exactly one of particle_mass and particle_spacing, got neither");
        const cJSON *rv = scene_member(o, "rest_density");
        rho = rv ? rv->valuedouble : 1000.0; /* the mass of a spacing is derived from the value as written */
        m->rest_density = rho_real;
        const double h = (double)s->smoothing_radius;
        if (has_spacing && (rc = check_spacing_ratio(c, o, p, spacing * scale, h, scale))) return rc;
        if (has_spacing) {
            /* The mass that gives this spacing exactly rest density under poly6 summation
             * (eddy_lattice_density), so a block starts at rest instead of under a spurious pressure. */
            double dx = spacing * scale, m0 = rho * pow(dx, (double)d);
            double lattice = eddy_lattice_density(m0, dx, h, d);
            mass = lattice > 0 ? m0 * rho / lattice : m0;
        }
        if (!(mass > 0) || !(mass <= FLT_MAX) || !((eddy_real)mass > 0)) {
            char sp[PATH_BUF];
            scene_path_key(sp, p, has_spacing ? "particle_spacing" : "particle_mass");
            return scene_fail(c, sp, scene_member(o, has_spacing ? "particle_spacing" : "particle_mass"), AT_VALUE,
                              "expected a particle mass within the float range, got %g", mass);
        }
        m->particle_mass = (eddy_real)mass;
        /* particle_dist is what eddy_world_add_material will derive from the mass (same float
         * arithmetic), so the scene's particle counts and the world's fill use one spacing. A given
         * spacing must come back from its mass; a given mass must give a spacing in range. */
        m->particle_dist = scene_material_dist(m, s->smoothing_radius, d);
        if ((rc = check_rest_spacing(c, o, p, m, has_spacing ? spacing * scale : 0, h, scale))) return rc;
        double spacing_world = has_spacing ? spacing : (double)m->particle_dist / scale;
        if ((rc = scene_get_real(c, o, p, "particle_radius", 0, &NS_POS, 0.5 * spacing_world,
                                 &m->contact.radius, NULL)))
            return rc;
        numspec margin = {0, (double)m->contact.radius, 0, 1, 0};
        const cJSON *mv = scene_member(o, "particle_margin");
        if (mv) {
            char mp[PATH_BUF];
            scene_path_key(mp, p, "particle_margin");
            if (!cJSON_IsNumber(mv) || !scene_numspec_ok(&margin, mv->valuedouble)) {
                char b[64];
                return scene_fail(c, mp, mv, AT_VALUE, "expected a number in [0, particle_radius) = [0, %g), got %s",
                                  (double)m->contact.radius, scene_describe(mv, b, sizeof b));
            }
            v = mv->valuedouble;
        } else {
            v = 0.1 * (double)m->contact.radius;
        }
        m->contact.margin = (eddy_real)v;
        if ((rc = scene_get_real(c, o, p, "restitution", 0, &NS_UNIT, 0.0, &m->contact.restitution, NULL)) ||
            (rc = scene_get_real(c, o, p, "friction", 0, &NS_UNIT, 0.0, &m->contact.friction, NULL)) ||
            (rc = scene_get_real(c, o, p, "erp", 0, &NS_UNIT, 0.5, &m->contact.erp, NULL)))
            return rc;
        s->material_count = i + 1;
    }
    return EDDY_OK;
}

/* h / spacing below the range docs/scenes.md gives ("about 1.2 to 4"), for the warning and the hint. */
static int under_resolved(double h, double dist)
{
    return dist > 0 && h / dist < EDDY_SCENE_RATIO_MIN;
}

/* Whether `said` was said before in this process (the last few texts, which covers a scene's
 * materials); notes it if not. A race says one text twice at worst. */
static int said_before(uint64_t said)
{
    enum { KEPT = 16 };
    static atomic_uint_fast64_t kept[KEPT];
    static atomic_uint next;
    for (int k = 0; k < KEPT; ++k)
        if (atomic_load(&kept[k]) == said) return 1;
    atomic_store(&kept[atomic_fetch_add(&next, 1u) % KEPT], said);
    return 0;
}

/*
 * (scene_internal.h) A spacing just below h is accepted (the lattice sum still fixes a mass), and the
 * run exploded many steps later with a hint about the time step, stiffness, gravity and viscosity: the
 * density sum of a particle then sees its nearest neighbours at the kernel's edge, so said when the run
 * starts. Only below the documented range: above 4 a run is slower, not wrong (the tracers of
 * vpm_drop_in_tank.json sit at 20, and 32 is refused). Once a process for a given text: a comparison
 * builds one world per solver from one scene.
 */
void scene_warn_resolution(const eddy_scene *s, const eddy_host *host)
{
    if (!host) return;
    const double h = (double)s->smoothing_radius, scale = (double)s->simulation_scale;
    const cJSON *arr = scene_member(s->root, "materials");
    size_t i = 0;
    for (const cJSON *o = arr ? arr->child : NULL; o && i < s->material_count; o = o->next, ++i) {
        const eddy_material *m = &s->materials[i];
        if (!under_resolved(h, (double)m->particle_dist)) continue;
        const cJSON *spacing = scene_member(o, "particle_spacing");
        const int given = cJSON_IsNumber(spacing);
        /* The spacing as written: the one derived back from its mass differs in the last digits. */
        const double dx = given ? spacing->valuedouble * scale : (double)m->particle_dist;
        char mp[PATH_BUF], p[PATH_BUF], value[128];
        scene_path_index(mp, "materials", i);
        scene_path_key(p, mp, given ? "particle_spacing" : "particle_mass");
        /* (h is given in simulation units, the spacing in world units: both as written, and the spacing
         * in h's units beside it where they differ) */
        char sim_units[48] = "";
        if (scale != 1.0) snprintf(sim_units, sizeof sim_units, " (%g in simulation units)", dx);
        if (given) snprintf(value, sizeof value, "%g%s is", dx / scale, sim_units);
        else snprintf(value, sizeof value, "%g gives a rest spacing of %g%s,", (double)m->particle_mass, dx / scale,
                      sim_units);
        eddy_error e;
        eddy_error_clear(&e);
        ctx c = scene_ctx(s, &e);
        scene_fail(&c, p, given ? spacing : scene_member(o, "particle_mass"), AT_VALUE,
                   "%s close to world.smoothing_radius = %g (h / spacing = %.3g, below the %g to %g with which "
                   "SPH resolves a fluid, docs/scenes.md): the density sum sees the neighbours at the kernel's "
                   "edge and the run may explode; use a spacing of at most h / %g = %.3g",
                   value, h, h / dx, EDDY_SCENE_RATIO_MIN, EDDY_SCENE_RATIO_MAX, EDDY_SCENE_RATIO_MIN,
                   h / EDDY_SCENE_RATIO_MIN / scale);
        if (!said_before(eddy_fnv1a_str(EDDY_FNV1A_OFFSET, e.message)))
            eddy_host_log(host, EDDY_LOG_WARNING, NULL, "warning: %s", e.message);
    }
}

/* (scene.h) */
const char *eddy_scene_resolution_hint(const eddy_world *w, char *buf, size_t size)
{
    if (size) buf[0] = '\0';
    if (!w) return buf;
    for (size_t i = 0; i < w->material_count; ++i) {
        const double h = (double)w->smoothing_radius, dist = (double)w->materials[i].particle_dist;
        if (!under_resolved(h, dist)) continue;
        char shown[EDDY_SCENE_SHOWN_MAX];
        snprintf(buf, size,
                 "; material '%s' has h / spacing = %.3g, below the %g to %g with which SPH resolves a fluid: "
                 "use a smaller particle_spacing",
                 scene_key_text(w->materials[i].name, shown, sizeof shown), h / dist, EDDY_SCENE_RATIO_MIN,
                 EDDY_SCENE_RATIO_MAX);
        break;
    }
    return buf;
}
