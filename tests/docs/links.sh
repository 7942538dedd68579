#!/bin/sh
# links.sh FILE...: every relative Markdown link [text](target) in the files names a file or folder
# that exists (relative to the file that holds it; a #fragment is dropped, web and mail links are not
# followed). Prints each broken link as FILE:LINE: target, and exits 1 when there is one.
bad=0
for f in "$@"; do
    dir=$(dirname "$f")
    # One "LINE target" per link: inline links only, which is all eddy's docs use.
    out=$(awk '{
        line = $0
        while (match(line, /\]\([^) ]+\)/)) {
            t = substr(line, RSTART + 2, RLENGTH - 3)
            print FNR " " t
            line = substr(line, RSTART + RLENGTH)
        }
    }' "$f") || exit 2
    [ -n "$out" ] || continue
    while read -r n t; do
        case $t in
            http://*|https://*|mailto:*|\#*) continue ;;
        esac
        p=${t%%#*}
        [ -e "$dir/$p" ] || { echo "$f:$n: $t"; bad=1; }
    done <<LINKS
$out
LINKS
done
[ $bad -eq 0 ] || { echo "links.sh: broken links above" >&2; exit 1; }
exit 0
