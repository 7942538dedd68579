#!/bin/sh
# movie_fails.sh EDDY MPIRUN SCENE OUT: `--movie` with an ffmpeg that fails (a stand-in first on PATH)
# on one process and on 2. Rank 0 alone makes the movie; its failure must be every process's: said
# once, the one-process message, exit status 1, the checkpoint written; it was said by rank 0 alone,
# which then stopped the others with MPI_Abort. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "movie_fails.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out" && mkdir -p "$out/bin" || fail "cannot create $out"
printf '#!/bin/sh\necho "Unknown encoder libx264" >&2\nexit 3\n' >"$out/bin/ffmpeg" && chmod +x "$out/bin/ffmpeg"
PATH="$out/bin:$PATH"; export PATH
set -- run "$scene" --movie --steps 20 --quiet --no-picture
"$eddy" "$@" --out "$out/np1" >"$out/np1.log" 2>&1
one=$?
"$mpirun" --oversubscribe -np 2 "$eddy" "$@" --out "$out/np2" >"$out/np2.log" 2>&1
two=$?
cat "$out/np2.log"
[ "$one" -eq 1 ] || fail "one process: exit status $one, expected 1"
[ "$two" -eq 1 ] || fail "2 processes: exit status $two, expected 1"
said=$(sed -n "s|^eddy: error: \(cannot write '.*/np1/movie.mp4': ffmpeg exited with status 3: .*\)$|\1|p" "$out/np1.log")
[ -n "$said" ] || fail "one process does not say ffmpeg failed: $(cat "$out/np1.log")"
want=$(printf '%s\n' "$said" | sed 's|/np1/|/np2/|g')
[ "$(grep -c '^eddy: ' "$out/np2.log")" -eq 1 ] || fail "2 processes say more than one line"
grep -qxF -- "eddy: error: $want" "$out/np2.log" || fail "2 processes do not say 'eddy: error: $want'"
! grep -q "MPI_ABORT" "$out/np2.log" || fail "an MPI_Abort instead of a stop"
[ -s "$out/np2/checkpoint.manifest" ] || fail "no checkpoint written on 2 processes"
echo "movie_fails.sh: the failing movie said once with the one-process message, status 1, checkpoint written"
