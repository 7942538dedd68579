#!/bin/sh
# render_resume_pending.sh EDDY SCENE OUT: a run rendering vorticity, 0 everywhere at t = 0 (the default
# colour range awaits a frame where it varies, docs/rendering.md), checkpointed at step 0 and resumed,
# draws every later frame byte for byte as a run without a break does: the resumed run settles the range
# at its first such frame, with the colour bar's room of the run it continues (the checkpoint stored the
# provisional range, which then stood for good, and the resumed frames' layout differed).
set -u
eddy=$1 scene=$2 out=$3
request="--render --render-field vorticity"
rm -rf "$out" && mkdir -p "$out" || exit 1
"$eddy" run "$scene" --steps 0 $request --quiet --no-picture --out "$out/split" || exit 1
"$eddy" resume "$out/split" --until 0.12 --quiet --no-picture || exit 1
"$eddy" run "$scene" $request --quiet --no-picture --out "$out/whole" || exit 1
status=0
for f in frame_00001.png frame_00002.png frame_00003.png; do
  if ! cmp -s "$out/split/render/$f" "$out/whole/render/$f"; then
    echo "render_resume_pending.sh: render/$f of the resumed run differs from the run without a break"; status=1
  else
    echo "render/$f: identical to the run without a break"
  fi
done
exit $status
