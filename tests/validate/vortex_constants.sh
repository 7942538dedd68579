#!/bin/sh
# vortex_constants.sh VALIDATE_VORTEX_C LAMB_OSEEN_JSON VPM_HYBRID_MD: derives the vortex checks'
# constants here, by quadrature and root finding with no constant taken from eddy, and holds the
# transcribed ones to them:
# - Lamb-Oseen's peak speed: v(r) = G / (2 pi r) (1 - exp(-r^2 / delta^2)), so v_max = f* G / (2 pi delta)
#   with f* the maximum of f(x) = (1 - exp(-x^2)) / x, at x* where f'(x) = 0, (1 + 2 x^2) exp(-x^2) = 1.
#   Found twice, by golden-section search on f and by bisection on f' = 0, which must agree. The
#   command's 0.63817 (host/drive/validate_vortex.c) and the case's "0.63817 ... at r = 1.1209 delta"
#   must be f* and x* rounded to their last digit.
# - Thin rings: U = G / (4 pi R) (ln(8 R / a) - C) with C = 1/2 - lim (I(rho) - ln(rho / a)), I(rho) =
#   (4 pi^2 / G^2) int_0^rho r v(r)^2 dr the core's swirl energy (Saffman 1992, Vortex Dynamics, 11.2).
#   The uniform core (v = G r / (2 pi a^2) inside a) must give Kelvin's C = 1/4, which checks the
#   formula; the Gaussian core omega ~ exp(-r^2 / a^2) gives Saffman's (1970) C, which the command's
#   0.558 must be rounded to its last digit. Then U for G = R = 1, a = 0.1 with Kelvin's C must be the 0.3288
#   docs/solvers/vpm_hybrid.md states.
# Each transcribed value is read from its file, so a changed constant or figure fails here, named.
vortex_c=$1 lamb_json=$2 vpm_md=$3
grab() { # grab FILE ERE: the first match of ERE in FILE, its last number, or a named failure
    v=$(grep -o -E "$2" "$1" | head -n 1 | grep -o -E '[0-9]+\.[0-9]+$')
    [ -n "$v" ] || { echo "vortex_constants.sh: $1: no text matching '$2'" >&2; exit 1; }
    printf '%s\n' "$v"
}
peak_c=$(grab "$vortex_c" 'vmax / \([0-9]+\.[0-9]+') || exit 1
saffman_c=$(grab "$vortex_c" 'log\(8 \* c->vx_radius / a\) - [0-9]+\.[0-9]+') || exit 1
peak_case=$(grab "$lamb_json" 'v_max = [0-9]+\.[0-9]+') || exit 1
xpeak_case=$(grab "$lamb_json" 'at r = [0-9]+\.[0-9]+') || exit 1
u_doc=$(grab "$vpm_md" 'a = 0\.1 gives U = [0-9]+\.[0-9]+') || exit 1
awk -v peak_c="$peak_c" -v saffman_c="$saffman_c" -v peak_case="$peak_case" -v xpeak_case="$xpeak_case" \
    -v u_doc="$u_doc" -v vortex_c="$vortex_c" -v lamb_json="$lamb_json" -v vpm_md="$vpm_md" '
    function f(x) { return (1 - exp(-x * x)) / x }
    # x^2 f'"'"'(x): the sign of f'"'"'
    function fprime_sign(x) { return (1 + 2 * x * x) * exp(-x * x) - 1 }
    function abs(x) { return x < 0 ? -x : x }
    # (4 pi^2 / G^2) r v^2 for each core, with a = 1 and G = 1: r v^2 / (1 / (4 pi^2))
    function swirl_uniform(r) { return r <= 1 ? r * r * r : 1 / r }
    function swirl_gauss(r) { return r == 0 ? 0 : (1 - exp(-r * r)) ^ 2 / r }
    # Simpson over [lo, hi] in n (even) panels
    function simpson(kind, lo, hi, n,    h, s, i, x, w) {
        h = (hi - lo) / n; s = 0
        for (i = 0; i <= n; ++i) {
            x = lo + i * h; w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2)
            s += w * (kind == "uniform" ? swirl_uniform(x) : swirl_gauss(x))
        }
        return s * h / 3
    }
    # A transcribed value must be the derived one rounded to its own last digit: within half a unit of it.
    function check(what, got, want,    tol) {
        tol = 0.5 * 10 ^ -(length(got) - index(got, "."))
        printf "%s: %s, derived %.7f (|difference| %.2g, allowed %.2g)\n", what, got, want, abs(got - want), tol
        if (!(abs(got - want) <= tol)) { printf "vortex_constants.sh: %s is %s, but the derivation gives %.7f\n", what, got, want > "/dev/stderr"; bad = 1 }
    }
    BEGIN {
        pi = atan2(0, -1)
        # Golden-section search for the maximum of f on [0.5, 2] (f is unimodal there).
        g = (sqrt(5) - 1) / 2; lo = 0.5; hi = 2
        for (i = 0; i < 200; ++i) {
            x1 = hi - g * (hi - lo); x2 = lo + g * (hi - lo)
            if (f(x1) < f(x2)) lo = x1; else hi = x2
        }
        xg = (lo + hi) / 2
        # Bisection on the stationarity condition (1 + 2 x^2) exp(-x^2) = 1: positive below x*, negative above.
        lo = 0.5; hi = 2
        for (i = 0; i < 200; ++i) { m = (lo + hi) / 2; if (fprime_sign(m) > 0) lo = m; else hi = m }
        xb = (lo + hi) / 2
        printf "Lamb-Oseen: max of (1 - exp(-x^2)) / x at x = %.7f (golden section), %.7f (f'"'"' = 0); f = %.7f\n", xg, xb, f(xb)
        if (abs(xg - xb) > 1e-6) { print "vortex_constants.sh: the two searches for the peak disagree" > "/dev/stderr"; bad = 1 }
        fstar = f(xb)
        check("the peak speed constant of " vortex_c, peak_c, fstar)
        check("the peak speed constant of " lamb_json, peak_case, fstar)
        check("the peak radius / delta of " lamb_json, xpeak_case, xb)
        # Swirl energy: int_0^rho minus ln(rho); the integrands are smooth on [0, 1] and [1, rho], and the
        # Gaussian tail beyond rho = 12 is below exp(-144).
        rho = 12
        cu = 0.5 - (simpson("uniform", 0, 1, 2000) + simpson("uniform", 1, rho, 200000) - log(rho))
        cg = 0.5 - (simpson("gauss", 0, 1, 2000) + simpson("gauss", 1, rho, 200000) - log(rho))
        printf "thin rings: C = %.7f for the uniform core (Kelvin: 1/4), %.7f for the Gaussian core\n", cu, cg
        check("the uniform core'"'"'s C (Kelvin'"'"'s 1/4)", "0.2500000", cu)
        check("Saffman'"'"'s Gaussian-core constant of " vortex_c, saffman_c, cg)
        u = 1 / (4 * pi) * (log(8 / 0.1) - cu)
        check("the uniform-core ring speed (G = R = 1, a = 0.1) of " vpm_md, u_doc, u)
        exit bad
    }'
