#!/bin/sh
# edited.sh CKEDIT BASE COPY EDITS: copies the run folder BASE to COPY and applies EDITS, edits
# separated by ';', each the words ckedit takes after the file (e.g. "time nan;step 3"), to
# COPY/checkpoint.eddy with its checksum recomputed, so the resume that follows sees only the semantic
# defect.
K=$1; B=$2; C=$3; EDITS=$4
rm -rf "$C" && cp -r "$B" "$C" || exit 1
IFS=';'
for e in $EDITS; do
    IFS=' '
    # shellcheck disable=SC2086 # the edit's words are meant to split
    "$K" "$C/checkpoint.eddy" $e || exit 1
done
