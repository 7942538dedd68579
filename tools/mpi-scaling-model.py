#!/usr/bin/env python3
"""Weak-scaling model of eddy on many processes (docs/performance.md, "Several processes").

Per step and process:

    t(R) = compute(n) + halo_cpu * halo(R) + exchange(R) + reductions(R)
    compute(n)    = n * c                       c: measured s per particle-step, one process
    halo_cpu      = measured s per halo copy per step (packing, unpacking, the id map: the halo
                    rebuild of `eddy bench` timed alone, divided by the copies it made)
    exchange(R)   = E * (alpha * m + b * halo(R) / (E * bandwidth))
                    E exchanges per step (migration, halo copies, each field refresh), m messages
                    per exchange (the neighbours a process sends to), b measured bytes per halo copy
                    per step (all exchanges together)
    reductions(R) = K * log2(R) * alpha         K collectives per step (time step, step statistics,
                                                signal agreement: an all-reduce is log2 R latencies)

    efficiency(R) = compute(n) / t(R)

n particles per process (weak scaling: the run grows with R). halo(R) and m come from the geometry of
three decompositions of a 3D fluid of spacing dx, with the halo reaching W = 3 h = 6 dx (h = 2 dx in
every scene; decomp.c copies what lies within 3 h):

  slabs, channel   the run grows along the slab axis only (a long channel): 2 faces of constant area
  slabs, cube      the run grows as a cube (side L = (R n)^(1/3) dx): a slab's faces grow as L^2 while
                   its thickness L / R shrinks; once it is thinner than W a halo spans several slabs
  3D blocks        cubes of n particles (side s = n^(1/3) dx, recursive coordinate bisection or a
                   3D grid of blocks): halo = (s + 2 W)^3 - s^3, 26 neighbours

The inputs below were measured with tools/mpi-bench.sh and tools/mpi-ab.sh on the 2-core development
VM (shared with other jobs; see docs/performance.md for the tables). Run: python3
tools/mpi-scaling-model.py (the halo kept between steps; --rebuild: the halo rebuilt every step, as
before 2026-11-24 afternoon); --summary: the 1M-particle efficiency table docs/performance.md quotes, for
both; the medians of a tools/mpi-bench.sh CSV: --table OUT.csv; of a tools/mpi-ab.sh CSV: --ab OUT.csv.
"""

import math

# --- measured (tools/mpi-bench.sh, medians of 3 interleaved rounds; docs/performance.md) -------------
MEASURED = {
    # c: s per particle-step, one process, one thread, 100k particles (3D dam break)
    # halo_cpu: s per halo copy per step; bytes: per halo copy per step (MPI_Alltoallv tally)
    # exchanges: MPI_Alltoallv calls per step (messages per step / messages per exchange at R = 2)
    # collectives: MPI collectives per step per process besides the exchanges' data
    # 3 rounds, 2026-11-24: 3D dam break, 103 680 particles on 1 process, 205 200 on 2
    # halo_cpu here: the halo rebuilt from scratch every step, wall time of one rebuild timed alone
    "sph_mueller": dict(c=2.33e-6, halo_cpu=2.37e-6, bytes=75.2, exchanges=3, collectives=10),
    "tait": dict(c=1.83e-6, halo_cpu=3.13e-6, bytes=72.2, exchanges=3, collectives=10),
}
# halo_cpu measured the same way for both halo treatments (tools/mpi-ab.sh, 3 interleaved rounds,
# 2026-11-24, 2 processes of ~100k, 20.5k (sph_mueller) / 21.7k (tait) halo copies each): CPU time per
# halo copy per step of migration + halo update + refreshes (eddy bench's host phases, MPI calls apart,
# slowest process). The wall-time figures above (2.37 / 3.13 us) also counted waiting on the loaded VM.
# Rebuilt every step (before): 18.3 / 14.5 ms per step; kept between steps (decomp.c now: overwritten in
# place, built-in fields only, refreshes without a count exchange): 3.9 / 3.7 ms. bytes: per halo copy
# per step (halo_bytes_per_step / halo copies).
MEASURED_REBUILD = {k: dict(v, halo_cpu=h) for (k, v), h in zip(MEASURED.items(), (0.89e-6, 0.67e-6))}
HALO_CPU_NEW = {"sph_mueller": 0.19e-6, "tait": 0.17e-6}
BYTES_NEW = {"sph_mueller": 62.7, "tait": 60.3}
MEASURED = {k: dict(v, halo_cpu=HALO_CPU_NEW[k], bytes=BYTES_NEW[k]) for k, v in MEASURED.items()}

NETWORK = dict(alpha=1.5e-6, bandwidth=100e9 / 8)  # 100 Gb/s, 1.5 us per message
W = 6.0  # halo reach in spacings: 3 h, h = 2 dx


def halo_slabs_channel(n, R):
    """2 faces of a cube of n particles (1 for the two end slabs, ignored: the worst process)."""
    if R == 1:
        return 0.0, 0
    area = n ** (2.0 / 3.0)
    return 2 * W * area, min(2, R - 1)


def halo_slabs_cube(n, R):
    """Slabs of a cube of R n particles: thickness T = L / R, faces L^2."""
    if R == 1:
        return 0.0, 0
    L = (R * n) ** (1.0 / 3.0)
    T = L / R
    halo = min(2 * W * L * L, (R - 1) * n)  # every particle within W of the slab, at most all others
    return halo, min(2 * math.ceil(W / T), R - 1)


def halo_blocks(n, R):
    """Cubes of n particles; fewer than 26 neighbours while the run is only 2 or 3 blocks across."""
    if R == 1:
        return 0.0, 0
    s = n ** (1.0 / 3.0)
    k = round(R ** (1.0 / 3.0))
    if k ** 3 == R and k >= 3:
        return (s + 2 * W) ** 3 - s ** 3, 26
    # R = 2, 4: blocks in a row / a square: faces shared only along the split axes
    axes = 1 if R == 2 else 2 if R == 4 else 3
    neigh = {1: 1, 2: 3, 3: 7}[axes]
    halo = sum(W * s * s for _ in range(axes)) + (W * W * s if axes >= 2 else 0) + (W ** 3 if axes == 3 else 0)
    return halo, neigh


DECOMPOSITIONS = {
    "slabs, channel": halo_slabs_channel,
    "slabs, cube": halo_slabs_cube,
    "3D blocks": halo_blocks,
}


def step_time(m, n, R, halo, messages, net=NETWORK):
    compute = n * m["c"]
    cpu = halo * m["halo_cpu"]
    exch = m["exchanges"] * messages * net["alpha"] + m["bytes"] * halo / net["bandwidth"]
    red = m["collectives"] * math.log2(R) * net["alpha"] if R > 1 else 0.0
    return compute, cpu, exch, red


def table(path):
    """The medians of tools/mpi-bench.sh's CSV, as docs/performance.md quotes them."""
    import csv
    import statistics
    rows = list(csv.DictReader(open(path)))
    groups = {}
    for r in rows:
        groups.setdefault((r["solver"], r["kind"], int(r["ranks"]), int(r["particles"]) // 1000), []).append(r)
    # The weak run on R processes with the strong runs' total is also the strong run on R (tools/mpi-bench.sh
    # runs it once).
    for (solver, kind, R, k), g in list(groups.items()):
        if kind == "weak" and (solver, "strong", 1, k) in groups:
            groups.setdefault((solver, "strong", R, k), g)
    base = {}
    print("| solver | scaling | processes | particles | ms/step | particle-steps/s per process | efficiency | "
          "halo copies | halo MB/step | exchange ms | reductions ms | outside MPI ms | halo rebuild ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(groups, key=lambda k: (k[0], k[1] == "strong", k[2])):
        g = groups[key]
        med = lambda k: statistics.median(float(r[k]) for r in g if r.get(k)) if any(r.get(k) for r in g) else 0.0
        solver, kind, R, _ = key
        ms = med("step_ms")
        n = statistics.median(int(r["particles"]) for r in g)
        rate = n / (ms * 1e-3) / R
        if R == 1:
            base[(solver, kind)] = (ms, n)
        b_ms, b_n = base.get((solver, kind), (ms, n))
        # weak: the same work per process in the same time; strong: R times faster
        eff = b_ms / ms if kind == "weak" else b_ms / (R * ms)
        ex, red = med("exchange_ms"), med("reduce_ms")
        print(f"| {solver} | {kind} | {R}{' (oversubscribed)' if R > 2 else ''} | {n:,.0f} | {ms:.0f} | {rate:.3g} | "
              f"{100 * eff:.0f}% | {med('halo_particles'):,.0f} | {med('halo_bytes_per_step') / 1e6:.2f} | "
              f"{ex:.1f} | {red:.1f} | {ms - ex - red if R > 1 else ms:.0f} | {med('rebuild_ms'):.1f} |")
    print(f"\n({len(rows)} runs; medians over the rounds of each configuration)")


def summary():
    """Weak scaling at 1M particles per process, R = 64 / 512 / 4096, both halo treatments."""
    print("| decomposition | halo | R = 64 | R = 512 | R = 4096 | halo / owned at 4096 |")
    print("| --- | --- | --- | --- | --- | --- |")
    n = 1e6
    for solver in MEASURED:
        for name, geo in DECOMPOSITIONS.items():
            for label, meas in (("rebuilt every step", MEASURED_REBUILD), ("kept between steps", MEASURED)):
                m = meas[solver]
                effs = []
                for R in (64, 512, 4096):
                    halo, msgs = geo(n, R)
                    c, cpu, ex, red = step_time(m, n, R, halo, msgs)
                    effs.append(c / (c + cpu + ex + red))
                print(f"| {solver}, {name} | {label} | " + " | ".join(f"{100 * e:.0f}%" for e in effs) +
                      f" | {geo(n, 4096)[0] / n:.2f} |")


def ab(path):
    """The medians of tools/mpi-ab.sh's CSV: per build (A, B), solver and process count."""
    import csv
    import statistics
    rows = list(csv.DictReader(open(path)))
    groups = {}
    for r in rows:
        groups.setdefault((r["solver"], r["label"], int(r["ranks"])), []).append(r)
    keys = ["step_ms", "order_ms", "migrate_ms", "halo_ms", "refresh_ms", "decomp_mpi_ms", "exchange_ms",
            "reduce_ms", "rebuild_ms", "halo_bytes_per_step", "halo_particles"]
    print("| solver | build | processes | ms/step | weak efficiency | host CPU ms/step: order | migration | "
          "halo update | refreshes | (MPI wall ms) | halo rebuild alone ms | halo MB/step |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for solver, label, R in sorted(groups):
        g = groups[(solver, label, R)]
        med = {k: (statistics.median(float(r[k]) for r in g if r.get(k)) if any(r.get(k) for r in g) else 0.0)
               for k in keys}
        one = groups.get((solver, label, 1))
        t1 = statistics.median(float(r["step_ms"]) for r in one) if one else med["step_ms"]
        print(f"| {solver} | {label} | {R} | {med['step_ms']:.0f} | {100 * t1 / med['step_ms']:.0f}% | "
              f"{med['order_ms']:.2f} | {med['migrate_ms']:.2f} | {med['halo_ms']:.2f} | {med['refresh_ms']:.2f} | "
              f"{med['decomp_mpi_ms']:.1f} | {med['rebuild_ms']:.1f} | {med['halo_bytes_per_step'] / 1e6:.2f} |")
    print(f"\n({len(rows)} runs; medians over the rounds; host phases only on 2 processes)")


def main(rebuild=False):
    ranks = [2, 4, 64, 512, 4096]
    for solver, m in (MEASURED_REBUILD if rebuild else MEASURED).items():
        for n in (1e5, 1e6):
            print(f"\n{solver}, {n:.0e} particles per process, {NETWORK['bandwidth'] * 8 / 1e9:.0f} Gb/s, "
                  f"alpha {NETWORK['alpha'] * 1e6:.1f} us")
            print(f"{'decomposition':16s} {'R':>5s} {'halo/owned':>10s} {'msgs':>5s} {'compute ms':>10s} "
                  f"{'halo cpu ms':>11s} {'exchange ms':>11s} {'reduce ms':>9s} {'efficiency':>10s}")
            for name, geo in DECOMPOSITIONS.items():
                for R in ranks:
                    halo, msgs = geo(n, R)
                    c, cpu, ex, red = step_time(m, n, R, halo, msgs)
                    eff = c / (c + cpu + ex + red)
                    print(f"{name:16s} {R:5d} {halo / n:10.3f} {msgs:5d} {1e3 * c:10.1f} {1e3 * cpu:11.2f} "
                          f"{1e3 * ex:11.3f} {1e3 * red:9.3f} {100 * eff:9.1f}%")


def all_ranks_note():
    """decomp.c exchanges with MPI_Alltoall (the counts) and MPI_Alltoallv over every process. Where the
    library runs them pairwise (R - 1 rounds, one latency each, empty messages included) that alone costs
    R alpha per exchange; a neighbourhood collective (MPI_Neighbor_alltoallv on a graph communicator of
    the slabs or blocks that share a halo) costs only the neighbours' messages."""
    print("\nAs implemented, every exchange is an MPI_Alltoall + MPI_Alltoallv over all R processes; if the")
    print("library runs them pairwise, each costs about 2 R alpha (empty messages included), per step:")
    for solver, m in MEASURED.items():
        row = ", ".join(f"R = {R}: {1e3 * m['exchanges'] * 2 * R * NETWORK['alpha']:.2f} ms" for R in (64, 512, 4096))
        print(f"  {solver}: {row} (against {1e3 * 1e6 * m['c']:.0f} ms of compute at 1e6 particles)")


if __name__ == "__main__":
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        table(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "--ab":
        ab(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] == "--summary":
        summary()
    else:
        main(rebuild="--rebuild" in sys.argv[1:])
        all_ranks_note()
