#!/bin/sh
# refused.sh EDDY MPIRUN SCENE OUT TEXT: SCENE on two processes must fail (non-zero) and say TEXT.
# Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; text=$5
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
"$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --steps 2 --quiet --no-picture --out "$out" >"$out.txt" 2>&1
rc=$?
cat "$out.txt"
if [ "$rc" -eq 0 ]; then echo "refused.sh: the run succeeded; expected a refusal" >&2; exit 1; fi
if ! grep -qF -- "$text" "$out.txt"; then echo "refused.sh: the output does not say: $text" >&2; exit 1; fi
