#include "run.h"

#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "diagnostics.h"
#include "output.h"
#include "picture.h"
#include "progress.h"
#include "sim.h"

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig)
{
    stop_requested = sig;
}

void eddy_run_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

eddy_run_options eddy_run_default_options(void)
{
    eddy_run_options o;
    memset(&o, 0, sizeof o);
    o.steps = -1;
    o.until = NAN;
    o.format_vtk = o.format_csv = -1;
    o.picture = 1;
    return o;
}

static int write_outputs(eddy_output *out, eddy_sim *sim, int frame, double wall_start, eddy_error *err)
{
    eddy_world *w = sim->world;
    int rc = eddy_output_write_frame(out, w, frame, w->time, err);
    if (rc) return rc;
    eddy_diagnostics d;
    if ((rc = eddy_diagnostics_compute(w, &d, err))) return rc;
    return eddy_output_write_diagnostics(out, &d, w->time, w->step, eddy_time_ms() - wall_start, err);
}

int eddy_run(const eddy_run_options *opt, eddy_error *err)
{
    if (opt->threads > 0) omp_set_num_threads(opt->threads);
    eddy_scene scene;
    int rc = eddy_scene_load(opt->scene_path, opt->sets, opt->set_count, &scene, err);
    if (rc) return rc;
    if (opt->threads > 0) scene.threads = opt->threads;
    if (opt->out_dir) snprintf(scene.out_dir, sizeof scene.out_dir, "%s", opt->out_dir);
    if (opt->format_vtk >= 0) scene.write_vtk = opt->format_vtk;
    if (opt->format_csv >= 0) scene.write_csv = opt->format_csv;
    double end_time = isnan(opt->until) ? scene.end_time : opt->until;
    if (!(end_time >= 0)) {
        eddy_scene_free(&scene);
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--until must be a time >= 0");
    }
    double interval = scene.output_interval;

    eddy_sim sim;
    eddy_sim_options so = {opt->solver, opt->grid, 0, NULL};
    if ((rc = eddy_sim_open(&scene, &so, &sim, err))) return rc;
    eddy_world *w = sim.world;

    eddy_output_options oo = eddy_output_default_options();
    oo.write_vtk = sim.scene.write_vtk;
    oo.write_csv = sim.scene.write_csv;
    oo.simulation_scale = w->simulation_scale;
    eddy_output *out = NULL;
    if ((rc = eddy_output_create(sim.scene.out_dir, &oo, &out, err))) goto done;

    if (!opt->quiet)
        fprintf(stderr, "eddy: %s with %s (grid %s), %zu particles, %d threads -> %s\n", sim.scene.name,
                sim.solver_entry->component->id, sim.grid_entry->component->id, w->particles.count,
                omp_get_max_threads(), sim.scene.out_dir);

    double wall_start = eddy_time_ms();
    int frame = 0;
    if ((rc = write_outputs(out, &sim, frame++, wall_start, err))) goto done;
    eddy_progress pr;
    eddy_progress_begin(&pr, opt->quiet);
    const int by_steps = opt->steps >= 0;
    const double t_stop = by_steps ? INFINITY : end_time;
    int last_written = 1;
    while (1) {
        if (by_steps ? (long long)w->step >= opt->steps : w->time >= t_stop) break;
        if (stop_requested) {
            rc = eddy_error_set(err, EDDY_ERR_INTERRUPTED, "interrupted by signal %d at step %llu (t = %.6g s)",
                                (int)stop_requested, (unsigned long long)w->step, w->time);
            break;
        }
        double next_frame = frame * interval;
        double target = next_frame < t_stop ? next_frame : t_stop;
        double dt;
        if ((rc = eddy_sim_next_dt(&sim, target, &dt, err))) break;
        if (sim.dt_limit[0] && !sim.warned_dt_limit && !opt->quiet) {
            fprintf(stderr, "warning: time step %.4g s is above the solver's %s limit; stepping with %.4g s\n",
                    sim.scene.dt, sim.dt_limit, dt);
            sim.warned_dt_limit = 1;
        }
        if ((rc = eddy_sim_step(&sim, dt, err))) break;
        last_written = 0;
        /* Snap to the frame time so frame times are exact, not accumulated sums of dt. */
        if (fabs(w->time - next_frame) <= 1e-9 * interval) {
            w->time = next_frame;
            if ((rc = write_outputs(out, &sim, frame++, wall_start, err))) break;
            last_written = 1;
        }
        double f = by_steps ? (double)w->step / (double)(opt->steps ? opt->steps : 1) : w->time / end_time;
        eddy_progress_update(&pr, f, w->time, by_steps ? w->time : end_time, w->step);
    }
    /* The final state is always written, also after an error or an interrupt, unless it is the last
     * frame already; an exploded state is kept too, since it shows what went wrong. */
    if (!last_written) {
        eddy_error ferr;
        if (write_outputs(out, &sim, frame++, wall_start, &ferr) && !rc) {
            *err = ferr;
            rc = ferr.code;
        }
    }
    eddy_progress_end(&pr, w->time, w->step);
    if (opt->picture && out) {
        char path[EDDY_SCENE_PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/picture.png", sim.scene.out_dir);
        eddy_error perr;
        if (eddy_picture_write_world(path, w, &perr)) {
            if (!rc) { *err = perr; rc = perr.code; }
        } else if (!opt->quiet) {
            fprintf(stderr, "picture: %s\n", path);
        }
    }
    if (opt->hash && rc != EDDY_ERR_UNSTABLE) {
        uint64_t h;
        eddy_error herr;
        if (eddy_particles_hash(&w->particles, &h, &herr) == 0)
            printf("state-hash: %016llx\n", (unsigned long long)h);
    }
done:
    eddy_output_destroy(out);
    eddy_sim_close(&sim);
    return rc;
}
