#!/bin/sh
# damage.sh BASE COPY KIND: copies the run folder BASE to COPY and damages COPY/checkpoint.eddy.
B=$1; C=$2; KIND=$3
rm -rf "$C" && cp -r "$B" "$C" || exit 1
F="$C/checkpoint.eddy"
size=$(wc -c < "$F")
case "$KIND" in
    truncate) head -c $((size / 2)) "$F" > "$F.cut" && mv "$F.cut" "$F" ;;
    # one bit of a particle field in the middle of the file
    bitflip) off=$((size / 2))
             byte=$(od -An -tu1 -j "$off" -N1 "$F" | tr -d ' ')
             printf "$(printf '\\%03o' $((byte ^ 4)))" | dd of="$F" bs=1 seek="$off" conv=notrunc 2>/dev/null ;;
    version) printf '\143' | dd of="$F" bs=1 seek=8 conv=notrunc 2>/dev/null ;;   # format 99
    magic) printf 'X' | dd of="$F" bs=1 seek=0 conv=notrunc 2>/dev/null ;;
    missing) rm "$F" ;;
    # bytes after the end (a file appended to), which was reported as truncated
    trailing) printf 'appended' >> "$F" ;;
    # what a copy onto a full disk leaves
    empty) : > "$F" ;;
    # not regular files: reading must refuse them, not block in open() (FIFO) or read forever
    fifo) rm "$F" && mkfifo "$F" ;;
    folder) rm "$F" && mkdir "$F" ;;
    manifest_fifo) mkfifo "$C/checkpoint.manifest" ;;
    *) echo "damage.sh: unknown kind $KIND"; exit 1 ;;
esac
