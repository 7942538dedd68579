/*
 * host/drive/validate.c — `eddy validate`: every requested case through every requested solver at each
 * requested resolution, through the session layer (the stepping of `eddy run`); the checks measured on
 * every output frame, judged against their bars and the solver's claims, reported by
 * validate_report.c.
 */
#include "validate_internal.h"
#include "provenance.h"
#include "validate_report.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnostics.h"
#include "energy_watch.h"
#include "folder_lock.h"
#include "frame.h"
#include "output.h"
#include "probes.h"
#include "services.h"
#include "session.h"
#include "sim.h"

static int series_add(vseries *s, double t, double v)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 128;
        double *nt = realloc(s->t, cap * sizeof *nt);
        if (nt) s->t = nt;
        double *nv = realloc(s->v, cap * sizeof *nv);
        if (nv) s->v = nv;
        if (!nt || !nv) return -1;
        s->cap = cap;
    }
    s->t[s->n] = t;
    s->v[s->n++] = v;
    return 0;
}

/* What one run of a case keeps per frame. */
typedef struct runner {
    const vcase *c;
    eddy_probes *probes;
    double *probe_values;
    vseries series[VMAX_CHECKS];
    vbaseline base;
    const eddy_sim *sim;
    eddy_energy_watch energy;   /* at every sample: a run that made energy is unstable, its checks fail */
} runner;

static int measure(runner *r, eddy_session *ses, eddy_error *err)
{
    eddy_frame fr;
    int rc = eddy_session_snapshot(ses, &fr, err);
    if (rc) return rc;
    if (eddy_probes_count(r->probes)) rc = eddy_probes_measure(r->probes, &fr, r->probe_values, err);
    eddy_diagnostics d;
    if (!rc && !(rc = eddy_diagnostics_of_frame(&fr, &d, err))) eddy_energy_watch_frame(&r->energy, r->sim, &d, fr.time);
    if (fr.time == 0) vbaseline_take(&r->base, r->c, &fr);
    for (int k = 0; k < r->c->check_count && !rc; ++k) {
        const vcheck *ck = &r->c->checks[k];
        vseries *s = &r->series[k];
        if (ck->measure == M_MODE_AMPLITUDE && fr.time == 0)
            r->base.amplitude0 = vmeasure_mode_amplitude(&fr, ck->mode, ck->wavenumber);
        if (ck->measure == M_PROFILE) {
            vmeasure_profile(ck, &fr, s->profile);
            continue;
        }
        if (series_add(s, fr.time, vmeasure_scalar(ck, r->c, &r->base, &fr, r->probes, r->probe_values)))
            rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    eddy_session_snapshot_release(&fr);
    return rc;
}

static int on_frame(void *user, eddy_session *ses, int frame, eddy_error *err)
{
    (void)frame;
    return measure(user, ses, err);
}

/* One case, solver and resolution: the overrides in the order case, solver's claim, command line. */
static int run_one(const eddy_validate_options *o, eddy_registry *reg, const vcase *c, int res, const char *solver,
                   const vclaim *claim, vrun *out, eddy_error *err)
{
    const vresolution *rs = &c->res[res];
    const char *sets[VMAX_SETS * 2 + EDDY_VALIDATE_MAX_SETS + 2];
    size_t n = 0;
    char interval[64];
    snprintf(interval, sizeof interval, "time.output_interval=%.17g", c->sample_interval);
    sets[n++] = interval;
    for (int k = 0; k < rs->set_count; ++k) sets[n++] = rs->sets[k];
    for (int k = 0; k < claim->set_count; ++k) sets[n++] = claim->sets[k];
    for (size_t k = 0; k < o->set_count; ++k) sets[n++] = o->sets[k];
    eddy_session_options so = eddy_session_default_options();
    so.scene_path = c->scene;
    so.sets = sets;
    so.set_count = n;
    so.solver = solver;
    so.threads = o->threads;
    so.registry = reg;
    eddy_session *ses = NULL;
    runner r;
    memset(&r, 0, sizeof r);
    r.c = c;
    r.base.amplitude0 = 1.0;
    const double t0 = eddy_time_ms();
    int rc = eddy_session_open(&so, &ses, err);
    if (rc) goto done;
    eddy_sim *sim = eddy_session_sim(ses);
    eddy_world *w = sim->world;
    r.sim = sim;
    if ((rc = eddy_probes_parse(eddy_session_scene(ses), reg, &r.probes, err)) ||
        (rc = eddy_probes_open(r.probes, w, sim->host, err)))
        goto done;
    if (!(r.probe_values = calloc(eddy_probes_count(r.probes) + 1, sizeof *r.probe_values))) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    for (int k = 0; k < c->check_count; ++k)
        if (c->checks[k].measure == M_PROFILE) {
            r.series[k].profile = malloc((c->checks[k].ref.count + 1) * sizeof(double));
            if (!r.series[k].profile) {
                rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
                goto done;
            }
            for (size_t i = 0; i < c->checks[k].ref.count; ++i) r.series[k].profile[i] = NAN;
        }
    if (c->initial_velocity && (rc = vinitial_velocity(w, c->initial_velocity, c->tg_amplitude, c->tg_wavenumber, err)))
        goto done;
    if (c->hydrostatic) {
        /* The linearized equation of state's dp/drho: the material's stiffness (Müller et al. 2003's k;
         * a solver with its own sound speed c0 is given stiffness = c0^2 by its validation file). */
        const double c2 = eddy_param_get(&w->materials[0].params, "stiffness", NAN);
        /* Without one (pbf: no equation of state) the lattice at rest density is the state to start
         * from; the equation of state's density excess (bottom_density) then has nothing to compare. */
        if (isnan(c2) && !o->quiet)
            fprintf(stderr,
                    "  note: solver '%s' declares no material stiffness (EDDY_MATERIAL_STIFFNESS_DESC): the case "
                    "starts from the lattice at rest density, not from the hydrostatic compression of the "
                    "linearized equation of state, and its bottom_density check reads nan (a solver with a sound "
                    "speed c0 declares the stiffness and sets materials[0].stiffness = c0^2 in its validation "
                    "file)\n",
                    sim->solver_entry->component->id);
        if (!isnan(c2) && (rc = vinitial_hydrostatic(w, c2, err))) goto done;
        /* The fields derived at the open are the uncompressed lattice's: a solver that evolves its
         * density (rather than summing it each step) would start from them, the compression lost. */
        if (!isnan(c2) && sim->solver_vtable->compute_fields) {
            eddy_error_clear(err);
            const int frc = sim->solver_vtable->compute_fields(sim->solver, w, err);
            if (frc) {
                rc = err->code ? err->code : frc;
                goto done;
            }
        }
    }
    if (c->vortices && (rc = vinitial_vortices(sim, c, err))) goto done;
    /* Counted once the initial state is set: the vortex cases replace the scene's placeholder block. */
    out->particles = w->particles.count - w->particles.halo_count;
    if ((rc = measure(&r, ses, err))) goto done;
    const double end = isnan(c->end_time) ? eddy_session_scene(ses)->end_time : c->end_time;
    const eddy_session_plan plan = {.end_steps = -1, .end_time = end, .on_frame = on_frame, .user = &r};
    rc = eddy_session_run(ses, &plan, NULL, err);
    out->steps = w->step;
    out->end_time = w->time;
    if (!rc && eddy_energy_watch_made(&r.energy)) {
        out->energy_ratio = eddy_energy_watch_ratio(&r.energy);
        out->energy_time = r.energy.rise_time;
        eddy_energy_watch_describe(&r.energy, &sim->scene, out->unstable, sizeof out->unstable);
    }
done:
    out->wall_s = (eddy_time_ms() - t0) / 1e3;
    for (int k = 0; k < c->check_count; ++k) {
        const vcheck *ck = &c->checks[k];
        double shift = 0;
        out->error[k] = rc ? NAN : verror(ck, &r.series[k], &shift);
        out->shift[k] = shift;
        out->series[k] = r.series[k]; /* handed over */
    }
    eddy_probes_destroy(r.probes);
    free(r.probe_values);
    eddy_session_close(ses);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* The command                                                                                       */
/* ------------------------------------------------------------------------------------------------ */

/* Every check a claim names is a check of the case: a misspelt name would leave the check it meant
 * under the case's claim (a claimed miss judged as a claimed pass, or the reverse) without a word. */
static int claim_checks_known(const vclaim *cl, const vcase *c, const char *id, eddy_error *err)
{
    for (int q = 0; q < cl->check_count; ++q) {
        int found = 0;
        for (int k = 0; k < c->check_count && !found; ++k) found = strcmp(c->checks[k].name, cl->check_names[q]) == 0;
        if (found) continue;
        char list[VMAX_CHECKS * (VNAME + 2)] = "";
        for (int k = 0; k < c->check_count; ++k)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                     VSHOWN_TEXT(c->checks[k].name));
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%s: solvers.%s.cases.%s.checks.%s: the case has no such check (its checks: %s)",
                              cl->source, id, c->name, VSHOWN_KEY(cl->check_names[q]), list);
    }
    return 0;
}

/* Whether the validation file of one of `solvers` claims case `name`. */
static int claimed_by_any(const eddy_registry_entry *const *solvers, int count, const char *name)
{
    int claims = 0;
    for (int si = 0; si < count && !claims; ++si) {
        char **claimed = NULL;
        size_t nc = 0;
        eddy_error err;
        if (vclaim_cases(solvers[si]->file, solvers[si]->component->id, &claimed, &nc, &err) == 0)
            for (size_t q = 0; q < nc; ++q) claims |= strcmp(claimed[q], name) == 0;
        vcase_list_free(claimed, nc);
    }
    return claims;
}

static int res_index(const char *name)
{
    return strcmp(name, "coarse") == 0 ? 0 : strcmp(name, "medium") == 0 ? 1 : 2;
}

static const char *const RES[] = {"coarse", "medium", "fine"};

/* One claimed case of --list: "NAME", "NAME (expected to miss)", "NAME (expected to miss: H1, H2)",
 * "NAME (expected to miss: front_speed at coarse)"; the case's claim is its medium one. */
static int print_claim(const eddy_registry_entry *e, const char *name, eddy_error *err)
{
    vclaim cl[3];
    for (int r = 0; r < 3; ++r)
        if (vclaim_find(e->file, e->component->id, name, RES[r], &cl[r], err)) {
            for (int q = 0; q < r; ++q) vclaim_free(&cl[q]);
            return err->code;
        }
    const claim_kind base = cl[1].kind;
    printf(" %s%s", name, base == CLAIM_MISS ? " (expected to miss" : "");
    int listed = 0;
    for (int q = 0; q < cl[1].check_count; ++q) {
        int differs[3], n = 0;
        for (int r = 0; r < 3; ++r) n += differs[r] = cl[r].check_kinds[q] != CLAIM_NONE && cl[r].check_kinds[q] != base;
        if (!n) continue;
        if (!listed) printf(base == CLAIM_MISS ? "; expected to pass: " : " (expected to miss: ");
        printf("%s%s", listed ? ", " : "", cl[1].check_names[q]);
        for (int r = 0, m = 0; r < 3 && n < 3; ++r)
            if (differs[r]) printf("%s%s", m++ ? " and " : " at ", RES[r]);
        listed = 1;
    }
    if (base == CLAIM_MISS || listed) printf(")");
    for (int r = 0; r < 3; ++r) vclaim_free(&cl[r]);
    return 0;
}

static int print_list(const char *dir, eddy_registry *reg)
{
    char **names;
    size_t count;
    eddy_error err;
    if (vcase_list(dir, &names, &count, &err)) {
        eddy_services_say("error: ", err.message);
        return 1;
    }
    printf("cases (%s):\n", dir);
    int status = 0;
    for (size_t i = 0; i < count; ++i) {
        vcase c;
        if (vcase_load(dir, names[i], &c, &err)) {
            printf("  %-22s (cannot be read: %s)\n", names[i], err.message);
            status = 1;
            continue;
        }
        printf("  %-22s %s\n", c.name, c.title);
        vcase_free(&c);
    }
    printf("solvers:\n");
    for (size_t i = 0; i < eddy_registry_count(reg); ++i) {
        const eddy_registry_entry *e = eddy_registry_at(reg, i);
        if (strcmp(e->component->interface_id, EDDY_INTERFACE_SOLVER) != 0) continue;
        char **claimed;
        size_t nc;
        if (vclaim_cases(e->file, e->component->id, &claimed, &nc, &err)) {
            printf("  %-22s (validation file: %s)\n", e->component->id, err.message);
            status = 1;
            continue;
        }
        printf("  %-22s", e->component->id);
        if (!nc) printf(" declares no case");
        for (size_t k = 0; k < nc; ++k) {
            if (print_claim(e, claimed[k], &err)) {
                printf(" %s (%s)", claimed[k], err.message);
                status = 1;
            }
        }
        printf("\n");
        vcase_list_free(claimed, nc);
    }
    vcase_list_free(names, count);
    return status;
}

int eddy_validate_run(const eddy_validate_options *opt)
{
    eddy_services_set_quiet(1); /* the per-step log of the sessions; validate prints its own lines */
    /* The claims are figures measured on the SSE2 path (eddy_sph/simd.h), the one every x86-64 machine
     * runs: a report is then the same on every machine. The wider paths differ by rounding only, but a
     * splashing front amplifies rounding: sph_mueller's late dam-break front speed at medium measured
     * 0.125 on SSE2 and 0.158 on AVX2 against a 0.15 bar while it was an end-value difference (fitted
     * since: 9.5-10.3% over the paths; docs/validation.md). EDDY_SIMD still chooses. */
    if (!getenv("EDDY_SIMD")) setenv("EDDY_SIMD", "baseline", 1);
    char dir[VPATH];
    if (opt->cases_dir)
        snprintf(dir, sizeof dir, "%s", opt->cases_dir);
    else
        vcase_default_dir(dir, sizeof dir);
    eddy_registry *reg = NULL;
    eddy_error err;
    eddy_error_clear(&err);
    if (eddy_services_registry(1, &reg, &err)) {
        eddy_services_say("error: ", err.message);
        return 1;
    }
    if (opt->list) {
        int s = print_list(dir, reg);
        eddy_registry_destroy(reg);
        return s;
    }
    /* The solvers: as given (each must be a solver of the registry), or every one with a claim. */
    const eddy_registry_entry *solvers[256];
    int nsolvers = 0, status = 0;
    if (opt->solver_count) {
        for (int i = 0; i < opt->solver_count; ++i) {
            const eddy_registry_entry *e = eddy_registry_find(reg, opt->solvers[i], EDDY_INTERFACE_SOLVER);
            if (!e) {
                fprintf(stderr, "eddy: error: --solver: no solver '%s'; the solvers found are %s\n", opt->solvers[i],
                        eddy_registry_ids(reg, EDDY_INTERFACE_SOLVER));
                eddy_registry_destroy(reg);
                return 1;
            }
            solvers[nsolvers++] = e;
        }
    } else {
        for (size_t i = 0; i < eddy_registry_count(reg) && nsolvers < 256; ++i) {
            const eddy_registry_entry *e = eddy_registry_at(reg, i);
            if (strcmp(e->component->interface_id, EDDY_INTERFACE_SOLVER) != 0) continue;
            char **claimed;
            size_t nc = 0;
            /* A validation file that cannot be read is an error, not a solver without claims: it was
             * left out without a word, and the command exited 0. */
            if (vclaim_cases(e->file, e->component->id, &claimed, &nc, &err)) {
                eddy_services_say("error: ", err.message);
                status = 1;
            } else if (nc) {
                solvers[nsolvers++] = e;
            }
            vcase_list_free(claimed, nc);
        }
        if (status) {
            eddy_registry_destroy(reg);
            return status;
        }
    }
    /* Every --case must name a case of the folder, and read: errors before any run. */
    if (opt->case_count) {
        char **known;
        size_t nk;
        if (vcase_list(dir, &known, &nk, &err)) {
            eddy_services_say("error: ", err.message);
            eddy_registry_destroy(reg);
            return 1;
        }
        char list[1024] = "";
        for (size_t i = 0; i < nk; ++i)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", known[i]);
        for (int k = 0; k < opt->case_count && !status; ++k) {
            int found = 0;
            for (size_t i = 0; i < nk; ++i) found |= strcmp(known[i], opt->cases[k]) == 0;
            vcase c;
            if (!found) {
                fprintf(stderr, "eddy: error: --case: no case '%s' in %s/cases; the cases are %s\n", opt->cases[k], dir,
                        nk ? list : "(none)");
                status = 1;
            } else if (vcase_load(dir, opt->cases[k], &c, &err)) {
                eddy_services_say("error: ", err.message);
                status = 1;
            } else {
                vcase_free(&c);
            }
            /* Without --solver a case runs with the solvers that claim it: one none claims ran nowhere,
             * and the command exited 0 on an empty report. */
            if (!status && !opt->solver_count && !claimed_by_any(solvers, nsolvers, opt->cases[k])) {
                fprintf(stderr, "eddy: error: --case: no solver's validation file claims '%s'; name the solvers to "
                                "run it with --solver ID\n", opt->cases[k]);
                status = 1;
            }
        }
        vcase_list_free(known, nk);
        if (status) {
            eddy_registry_destroy(reg);
            return status;
        }
    }
    if (!nsolvers) {
        fprintf(stderr, "eddy: error: no solver declares validation cases (an eddy_<plugin>.validation.json beside "
                        "its plugin); name one with --solver ID and the cases with --case NAME\n");
        eddy_registry_destroy(reg);
        return 1;
    }
    vreport rep;
    vreport_init(&rep, opt->out_dir ? opt->out_dir : "out/validate");
    /* The folder before the runs: a path that cannot hold the report would otherwise be found after
     * every case had run (a full validation takes half an hour). */
    if (eddy_output_make_dirs(rep.dir, &err)) {
        fprintf(stderr, "eddy: error: --out: %s\n", err.message);
        vreport_free(&rep);
        eddy_registry_destroy(reg);
        return 1;
    }
    /* ... held until the report is written (folder_lock.h): a validation (or a run) writing into it
     * already is refused before any case runs. Each case's plots go into a folder of its own below it,
     * held while they are written (vreport_add). */
    eddy_folder_lock *lock = NULL;
    if (eddy_folder_lock_take(rep.dir, EDDY_FOLDER_MAKE, "choose another --out", &lock, &err)) {
        eddy_services_say("error: ", err.message);
        vreport_free(&rep);
        eddy_registry_destroy(reg);
        return 1;
    }
    eddy_sets_text(rep.sets, sizeof rep.sets, opt->sets, opt->set_count);
    eddy_services_defer_signals();
    for (int si = 0; si < nsolvers && !*eddy_services_stop_flag(); ++si) {
        const eddy_registry_entry *e = solvers[si];
        const char *id = e->component->id;
        char **names = NULL;
        size_t count = 0;
        if (opt->case_count) {
            /* Named solvers run every named case (an author's solver without a file, or a case it does
             * not claim yet); without --solver each solver runs the named cases it claims. */
            char **claimed = NULL;
            size_t nc = 0;
            if (!opt->solver_count) vclaim_cases(e->file, id, &claimed, &nc, &err);
            for (int k = 0; k < opt->case_count; ++k) {
                int keep = opt->solver_count > 0;
                for (size_t q = 0; q < nc; ++q) keep |= strcmp(claimed[q], opt->cases[k]) == 0;
                if (!keep) continue;
                char **nn = realloc(names, (count + 1) * sizeof *nn);
                if (!nn) break;
                names = nn;
                names[count++] = strdup(opt->cases[k]);
            }
            vcase_list_free(claimed, nc);
            if (!count) {
                vcase_list_free(names, count);
                continue;
            }
        } else if (vclaim_cases(e->file, id, &names, &count, &err)) {
            eddy_services_say("error: ", err.message);
            status = 1;
            continue;
        }
        if (!count) {
            fprintf(stderr, "eddy: error: solver '%s' declares no validation case (no %s beside %s); name the cases "
                            "with --case NAME\n", id, "eddy_<plugin>.validation.json", e->file);
            status = 1;
        }
        for (size_t ci = 0; ci < count && !*eddy_services_stop_flag(); ++ci) {
            vcase c;
            if (vcase_load(dir, names[ci], &c, &err)) {
                eddy_services_say("error: ", err.message);
                status = 1;
                continue;
            }
            for (int ri = 0; ri < opt->resolution_count && !*eddy_services_stop_flag(); ++ri) {
                const int res = res_index(opt->resolutions[ri]);
                /* The claim may differ by resolution (a check met only at the finer ones). */
                vclaim claim;
                if (vclaim_find(e->file, id, names[ci], opt->resolutions[ri], &claim, &err)) {
                    eddy_services_say("error: ", err.message);
                    status = 1;
                    break;
                }
                if (claim_checks_known(&claim, &c, id, &err)) {
                    eddy_services_say("error: ", err.message);
                    vclaim_free(&claim);
                    status = 1;
                    break;
                }
                vrun run;
                memset(&run, 0, sizeof run);
                if (!opt->quiet) {
                    fprintf(stderr, "validate: %s with %s at %s resolution ...\n", c.name, id, c.res[res].name);
                    fflush(stderr);
                }
                eddy_error rerr;
                eddy_error_clear(&rerr);
                int rc = run_one(opt, reg, &c, res, id, &claim, &run, &rerr);
                if (rc) snprintf(run.failure, sizeof run.failure, "%s", rerr.message);
                if (vreport_add(&rep, &c, id, res, &claim, &run, opt->quiet, &err)) {
                    eddy_services_say("error: ", err.message);
                    status = 1;
                }
                for (int k = 0; k < c.check_count; ++k) {
                    free(run.series[k].t);
                    free(run.series[k].v);
                    free(run.series[k].profile);
                }
                vclaim_free(&claim);
            }
            vcase_free(&c);
        }
        vcase_list_free(names, count);
    }
    /* Nothing ran (every named solver's validation file or case was refused, or an interrupt came
     * first): an empty report would replace the one an earlier validation left in the folder. */
    if (rep.count == 0 && (status || *eddy_services_stop_flag())) {
        if (!opt->quiet) fprintf(stderr, "eddy: validate: nothing ran; %s/report.md is left as it was\n", rep.dir);
    } else if (vreport_write(&rep, &err)) {
        eddy_services_say("error: ", err.message);
        status = 1;
    }
    vreport_print_summary(&rep, stdout);
    if (rep.claimed_misses) status = 1;
    if (*eddy_services_stop_flag()) status = 130;
    eddy_folder_lock_release(lock);
    vreport_free(&rep);
    eddy_registry_destroy(reg);
    return status;
}
