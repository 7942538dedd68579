#!/bin/sh
# wide_reference.sh EDDY VALIDATION_DIR OUT: a case folder of the user's own (`eddy validate --cases DIR`)
# may hold reference tables of any width. The shear wave's table (t, amplitude) spread over 40 columns,
# the two named ones the 35th and 38th and every other one a number that differs from both, gives the
# same check figures as the two-column table; a row of 39 columns is refused, naming its line. The
# reader kept 32 columns: the named columns read as missing, and a row differing past the 32nd was taken.
eddy=$1; src=$2; out=$3
fail() { echo "wide_reference.sh: $*" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out" || exit 1
for d in narrow wide ragged; do cp -r "$src" "$out/$d" || exit 1; done
table=data/shear_wave_decay.csv
# widen.awk: comments kept; the header and each row spread over 40 columns, t at 35 and amplitude at 38.
widen='BEGIN { FS = "," }
/^#/ { print; next }
{ line = ""
  for (c = 1; c <= 40; ++c) {
      v = (c == 35) ? $1 : (c == 38) ? $2 : (NR == hdr ? "filler" c : 1000 * c + NR)
      line = line (c > 1 ? "," : "") v
  }
  print line }'
hdr=$(grep -n -v '^#' "$src/$table" | head -n 1 | cut -d: -f1)
awk -v hdr="$hdr" "$widen" "$src/$table" > "$out/wide/$table" || exit 1
head -n "$hdr" "$out/wide/$table" | tail -n 1 | grep -q '^filler1,.*,t,filler36,filler37,amplitude,filler39,filler40$' ||
    fail "the widened header is not as meant: $(head -n "$hdr" "$out/wide/$table" | tail -n 1)"
# The ragged table: the wide one with its third data row one column short.
awk -v row=$((hdr + 3)) 'NR == row { sub(/,[^,]*$/, "") } { print }' "$out/wide/$table" > "$out/ragged/$table" || exit 1

run() { "$eddy" validate --cases "$out/$1" --case shear_wave --solver sph_mueller --resolution coarse --out "$out/report_$1" --quiet; }
run narrow || fail "the two-column table's run failed"
run wide || fail "the 40-column table's run failed"
figures() { cut -d, -f1-7 "$out/report_$1/report.csv"; }
[ "$(figures narrow)" = "$(figures wide)" ] ||
    fail "the figures differ: $(figures narrow) against $(figures wide)"
[ "$(figures wide | wc -l)" -ge 2 ] || fail "no check in the report"
sh "$(dirname "$0")/../expect.sh" 1 "shear_wave_decay.csv:$((hdr + 3)): expected 40 fields, got 39" \
    "$eddy" validate --cases "$out/ragged" --case shear_wave --solver sph_mueller --resolution coarse \
    --out "$out/report_ragged" --quiet
