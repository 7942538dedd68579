#!/bin/sh
# Installs the Debian packages eddy needs to build and test, skipping those already present.
# Safe to run repeatedly; needs root (or sudo) only when something is missing.
set -e
packages="gcc g++ make cmake pkg-config libcjson-dev libpng-dev libcmocka-dev python3 libcairo2-dev fonts-dejavu-core
          python3-dev python3-numpy python3-pytest python3-setuptools python3-venv python3-matplotlib
          libopenmpi-dev openmpi-bin"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "eddy: installing Debian packages:$missing" >&2
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; else sudo=""; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >&2
