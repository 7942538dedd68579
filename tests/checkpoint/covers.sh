#!/bin/sh
# covers.sh EDDY "SOLVER SOLVER ...": fails, naming it, when `eddy list` shows a solver that is not in
# the list (the solvers that have a resume test).
E=$1; covered=$2
solvers=$("$E" list | awk '$2 == "solver" {print $1}') || exit 1
[ -n "$solvers" ] || { echo "covers.sh: eddy list shows no solver"; exit 1; }
for s in $solvers; do
    case " $covered " in
        *" $s "*) ;;
        *) echo "solver $s has no resume test"; exit 1 ;;
    esac
done
echo "covered: $covered"
