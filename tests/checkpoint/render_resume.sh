# render_resume.sh EDDY SCENE OUT: a run that renders, resumed, renders on with the same request (field
# and colour range, which the resume takes from the checkpoint, given no render option): its frames
# after the resume must be byte-identical to those of the same run made without a break. The request
# names a field and a fixed colour range that differ from the defaults (speed, the rules of
# docs/rendering.md "Colour range"), so a resume that dropped either would draw other colours.
set -u
eddy=$1 scene=$2 out=$3
request="--render --render-field pressure --render-range 0,500"
rm -rf "$out" && mkdir -p "$out" || exit 1
"$eddy" run "$scene" --steps 170 $request --quiet --no-picture --out "$out/split" || exit 1
"$eddy" resume "$out/split" --steps 340 --quiet --no-picture || exit 1
"$eddy" run "$scene" --steps 340 $request --quiet --no-picture --out "$out/whole" || exit 1
status=0
for f in frame_00002.png frame_00003.png; do
  if [ ! -s "$out/split/render/$f" ]; then
    echo "render_resume.sh: the resumed run wrote no render/$f"; status=1
  elif ! cmp -s "$out/split/render/$f" "$out/whole/render/$f"; then
    echo "render_resume.sh: render/$f of the resumed run differs from the run without a break"; status=1
  else
    echo "render/$f: identical to the run without a break"
  fi
done
exit $status
