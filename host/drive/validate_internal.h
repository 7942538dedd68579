/*
 * host/drive/validate_internal.h — what the files of `eddy validate` share: the case as read from its
 * JSON file (validate_case.c), the solvers' claims read from the validation files beside their
 * plugins (validate_case.c), the measures and error measures (validate_measure.c), and the driver and
 * its report (validate.c, validate_report.c).
 */
#ifndef EDDY_HOST_VALIDATE_INTERNAL_H
#define EDDY_HOST_VALIDATE_INTERNAL_H

#include <stddef.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <eddy/eddy.h>

#include "frame.h"
#include "probes.h"
#include "scene.h"
#include "validate.h"

#define VNAME 64
#define VPATH 1024
#define VMAX_CHECKS 8
#define VMAX_SETS 32

/* A key, or a string, of a case or validation file as a message shows it: the scene reader's rules
 * (scene.h), for a terminal would obey an escape sequence in it. The text lives until the end of the
 * enclosing block, so a call's arguments may hold several (`text` is read twice: no side effects). */
#define VSHOWN_KEY(key) eddy_scene_key_text((key), (char[EDDY_SCENE_SHOWN_MAX]){0}, EDDY_SCENE_SHOWN_MAX)
#define VSHOWN_TEXT(text) \
    eddy_scene_token_text((text), strlen(text), (char[EDDY_SCENE_SHOWN_MAX]){0}, EDDY_SCENE_SHOWN_MAX)

/* What a check measures on each frame. */
typedef enum {
    M_PROBE,             /* a probe of the case's scene, by name */
    M_BOTTOM_PRESSURE,   /* least-squares p(y) = a + b y over the bulk, a / (rho0 |g| H), H from the mass */
    M_PRESSURE_GRADIENT, /* b / (-rho0 |g|) of the same fit */
    M_MEAN_DENSITY,      /* mean rho / rho0 over every particle */
    M_DENSITY_DEVIATION, /* largest |rho / rho0 - 1| of the particles deeper than h below the top one */
    M_MAX_SPEED,         /* largest |v| */
    M_BOTTOM_DENSITY,    /* bottom layer's rho / rho0 - 1 over g (H - h/2) / c2, c2 the material's stiffness */
    M_PROFILE,           /* mean velocity component in a band around each reference position */
    M_MODE_AMPLITUDE,    /* least-squares amplitude of the initial velocity mode / its initial one */
    M_RING_SPEED,        /* the ring's mean speed since t = 0 over Kelvin/Saffman's (validate_vortex.c) */
    M_RING_TRAVEL,       /* the distance the ring travelled since t = 0, in ring radii */
    M_RING_IMPULSE,      /* |I(t) - I(0)| / |I_z(0)| */
    M_VORTEX_GROWTH,     /* (m2(t) - m2(0)) / (4 nu t): the Lamb–Oseen core growth rate, 1 exact */
    M_VORTEX_CORE,       /* delta^2(t) / (delta0^2 + 4 nu t) */
    M_VORTEX_PEAK,       /* peak speed over 0.63817 G / (2 pi delta(t)); delta the smoothed start's, or
                          * with "core": "case" (mode 1) the defined vortex's, a_p^2 + 4 nu t */
    M_CIRCULATION,       /* G(t) / G(0) */
    M_PAIR_SPEED,        /* a vortex pair: its midpoint's travel along its classical direction / t / (G / (2 pi d0)) */
    M_PAIR_SEPARATION,   /* |x+ - x-|(t) / d0, x+ and x- the centroids of the vorticity of each sign */
    M_PAIR_CIRCULATION,  /* G+(t) / G+(0) or G-(t) / G-(0), whichever is further from 1 */
    M_PAIR_IMPULSE       /* |P(t) - P(0)| / |P(0)|, P = (sum alpha y, -sum alpha x) */
} measure_kind;

/* How a check turns the measured values and the reference into one error. */
typedef enum {
    E_RMS_RELATIVE,   /* RMS of m / r - 1 over the reference points in [from, to], best shift <= max_shift */
    E_SLOPE_RELATIVE, /* |slope m / slope r - 1|, least-squares slopes over the points in [from, to] */
    E_MAX_RELATIVE,   /* largest |m / r - 1| over the reference points in [from, to] */
    E_RMS_NORMALIZED, /* RMS of (m - r) over the reference points in [from, to], over max |r| */
    E_IMPULSE_RELATIVE, /* |integral of m / integral of r - 1| over [from, to], both at the reference times */
    E_RELATIVE,       /* |reduce(m) / value - 1| over the frames in [from, to] */
    E_VALUE,          /* reduce(m) itself (a bound, e.g. the largest speed) */
    E_SHORTFALL       /* value - reduce(m): how far m falls short of a least value (bar 0: m >= value) */
} error_kind;

typedef enum { R_MEAN, R_MAX, R_LAST } reduce_kind;

/* A reference table: the file's rows that pass the filter, in SI after the scales. */
typedef struct vref {
    char file[VPATH];        /* as resolved */
    char label[128];         /* legend text */
    char citation[512];
    double *t, *x, *y;       /* [count]: time (s), position (m; profiles), value (the measure's units) */
    size_t count;
    double time_scale, position_scale, value_scale; /* SI = file value * scale */
    char time_label[64], value_label[64], position_label[64];
} vref;

typedef struct vcheck {
    char name[VNAME];
    char title[160];
    measure_kind measure;
    char probe[VNAME];       /* M_PROBE */
    double dry;              /* M_PROBE: the value a NaN reading (no fluid in the probe's reach) stands for; NaN: none */
    int axis, component;     /* M_PROFILE: the position axis, the velocity component */
    double band;             /* M_PROFILE: half-width of the band (m); 0: half the particle spacing */
    double wavenumber;       /* M_MODE_AMPLITUDE: k (rad/m) */
    int mode;                /* M_MODE_AMPLITUDE: 1 Taylor–Green, 2 shear wave; M_VORTEX_PEAK: 0 the
                              * blob-smoothed start's core, 1 the case's (measure key "core") */
    error_kind error;
    reduce_kind reduce;
    double from, to;         /* window: reference x units for series errors, s for E_RELATIVE/E_VALUE */
    double max_shift;        /* E_RMS_RELATIVE: in reference time units */
    double smooth;           /* E_RMS_NORMALIZED: width of the moving average both series get first; 0: none */
    double value;            /* E_RELATIVE: the expected value */
    char value_source[256];  /* E_RELATIVE / E_VALUE: where the value or bound comes from */
    double bar;              /* pass when error <= bar */
    int has_ref;
    vref ref;
} vcheck;

typedef struct vresolution {
    char name[16];
    double spacing;          /* the particle spacing (m), for the order of convergence */
    char *sets[VMAX_SETS];
    int set_count;
} vresolution;

typedef struct vcase {
    char name[VNAME];
    char title[160];
    char file[VPATH];
    char scene[VPATH];       /* resolved */
    char description[4096];
    double end_time;         /* s; NAN: the scene's time.end */
    double sample_interval;  /* s: time.output_interval while validating */
    vresolution res[3];      /* coarse, medium, fine (name "" when the case has none) */
    int initial_velocity;    /* 0: none (the scene's), 1: Taylor–Green vortex, 2: shear wave */
    double tg_amplitude, tg_wavenumber;
    int hydrostatic;         /* 1: start compressed as hydrostatics wants, c2 the material's "stiffness" */
    int vortices;            /* 0: none, 1: a thin vortex ring, 2: a Lamb–Oseen vortex, 3: a 2D vortex pair
                              * (validate_vortex.c) */
    double vx_circulation, vx_radius, vx_core; /* radius: the ring's, or each 2D vortex's extent */
    double vx_separation;    /* the pair's distance between the two vortices' centres */
    double vx_blob;          /* the particles' blob radius sigma; < 0: the scene's particle spacing */
    vcheck checks[VMAX_CHECKS];
    int check_count;
} vcase;

/* What a solver's validation file says about one case. */
typedef enum { CLAIM_NONE, CLAIM_PASS, CLAIM_MISS } claim_kind;

typedef struct vclaim {
    claim_kind kind;         /* the case's, for every check not named below */
    char note[1024];         /* why a miss is expected, or anything the author adds */
    char check_names[VMAX_CHECKS][VNAME]; /* "checks": {"NAME": {"expect": ..., "note": ...}} */
    claim_kind check_kinds[VMAX_CHECKS];
    char check_notes[VMAX_CHECKS][1024];
    int check_count;
    char *sets[VMAX_SETS];
    int set_count;
    char source[VPATH];      /* the validation file */
} vclaim;

/* Cases: reads `dir`/cases/NAME.json (or every *.json in name order when name is NULL). */
int vcase_load(const char *dir, const char *name, vcase *c, eddy_error *err);
void vcase_free(vcase *c);
/* The names of every case in dir/cases, sorted; *names malloc'ed, each entry malloc'ed. */
int vcase_list(const char *dir, char ***names, size_t *count, eddy_error *err);
void vcase_list_free(char **names, size_t count);

/* The folder of the installed cases: $EDDY_VALIDATION_DIR, <exe>/../share/eddy/validation, or the
 * install prefix's. */
int vcase_default_dir(char *out, size_t size);

/* The claim of solver `id` (whose plugin file is `plugin_file`) for case `name` at resolution `res`
 * ("coarse", "medium", "fine"; NULL: a miss at any resolution counts): from the validation file beside
 * the plugin. A missing file is no claim; a malformed one is an error naming the file and the key. */
int vclaim_find(const char *plugin_file, const char *id, const char *name, const char *res, vclaim *out,
                eddy_error *err);
void vclaim_free(vclaim *c);
/* The claim for one check of the case: its own entry, else the case's. *note may be NULL. */
claim_kind vclaim_of_check(const vclaim *c, const char *check, const char **note);
/* Every case a solver claims (pass or miss), in the file's order; names malloc'ed. */
int vclaim_cases(const char *plugin_file, const char *id, char ***names, size_t *count, eddy_error *err);

/* What a measure relative to the initial state needs of frame 0. */
typedef struct vbaseline {
    double amplitude0;       /* M_MODE_AMPLITUDE */
    int have_ring, have_vortex;
    double ring_z, impulse[3]; /* the ring's impulse centroid and impulse */
    double circulation, m2;  /* the 2D vortex's */
    int have_pair;
    double pair_mid[2], pair_dir[2]; /* the pair's midpoint and the unit direction it should travel in */
    double pair_d, pair_circ[2], pair_impulse[2]; /* separation; G+ and G-; P */
} vbaseline;

struct eddy_sim;

/* --- measures (validate_measure.c) ---------------------------------------------------------------- */

/* The check's value on one frame (not M_PROFILE). `probe_values` holds the scene's probes. */
double vmeasure_scalar(const vcheck *ck, const vcase *c, const vbaseline *b, const eddy_frame *fr,
                       const eddy_probes *probes, const double *probe_values);
/* M_PROFILE: the mean velocity component at every reference point of time t (|t - t_ref| small). */
void vmeasure_profile(const vcheck *ck, const eddy_frame *fr, double *values /* [ref count], NAN elsewhere */);
/* The amplitude of velocity mode `mode` (1 Taylor–Green, 2 shear wave) in the frame's velocities. */
double vmeasure_mode_amplitude(const eddy_frame *fr, int mode, double k);
/* Puts velocity mode `mode` of amplitude U on the particles: 1, the Taylor–Green vortex
 * u = -U cos(kx) sin(ky), v = U sin(kx) cos(ky); 2, the shear wave u = U sin(ky), v = 0. */
int vinitial_velocity(eddy_world *w, int mode, double U, double k, eddy_error *err);
/* Moves the particles of a tank at rest down as hydrostatics compresses them under p = c2 (rho - rho0)
 * (c2 <= 0 or no gravity: unchanged). */
int vinitial_hydrostatic(eddy_world *w, double c2, eddy_error *err);

/* --- vortices (validate_vortex.c) ----------------------------------------------------------------- */

/* Replaces the particles by the case's vortex ring, Lamb–Oseen vortex or vortex pair (no-op without
 * one); the solver must carry a "vorticity" field. */
int vinitial_vortices(struct eddy_sim *sim, const vcase *c, eddy_error *err);
/* The vortex state of frame 0. */
void vbaseline_take(vbaseline *b, const vcase *c, const eddy_frame *fr);
/* M_RING_*, M_VORTEX_*, M_CIRCULATION, M_PAIR_* on one frame. */
double vmeasure_vortex(const vcheck *ck, const vcase *c, const vbaseline *b, const eddy_frame *fr);

/* A measured series: time and value per frame; for M_PROFILE the values at the reference points. */
typedef struct vseries {
    double *t, *v;           /* [n] */
    size_t n, cap;
    double *profile;         /* M_PROFILE: [ref count] */
} vseries;

/* The error of a check from its series; *shift gets the time shift used (reference units). */
double verror(const vcheck *ck, const vseries *s, double *shift);

#endif /* EDDY_HOST_VALIDATE_INTERNAL_H */
