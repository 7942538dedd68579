#!/bin/sh
# tools/gpu-deps.sh: run HERE (Debian 12, as root, with the package registry), before a session's first
# call to the GPU machine. That machine (Ubuntu with CUDA, CMake and GCC; docs/cuda_grid.md) reaches no
# registry and lacks the -dev packages eddy builds against, so this downloads them as Debian packages
# and unpacks them into .gpu-deps/root (ignored by git). Carry `.gpu-deps` with the run, which starts
# with tools/gpu-check.sh: it points the build at that folder.
#
# cairo's own pkg-config file requires glib, X11 and a dozen more -dev packages; eddy uses cairo's image
# surfaces only, so .gpu-deps carries cairo's headers, its library and the runtime libraries it links
# (found with ldd here), and a cairo.pc without those requirements.
set -eu
root_dir=$(cd "$(dirname "$0")/.." && pwd)
deps="$root_dir/.gpu-deps"
# The build's packages, and the libraries libcairo.so.2 needs beyond the C library and zlib.
packages="libcjson1 libcjson-dev libcmocka0 libcmocka-dev libpng16-16 libpng-dev zlib1g-dev
libcairo2 libcairo2-dev libpixman-1-0 libfontconfig1 fontconfig-config fonts-dejavu-core libfreetype6
libxcb-shm0 libxcb1 libxcb-render0 libxrender1 libx11-6 libx11-data libxext6 libexpat1 libbrotli1 libxau6
libxdmcp6 libbsd0 libmd0"

command -v apt-get >/dev/null || { echo "gpu-deps: needs apt-get (a Debian machine)" >&2; exit 1; }
rm -rf "$deps"
mkdir -p "$deps/debs" "$deps/root"
apt-get update -qq >/dev/null 2>&1 || true
# shellcheck disable=SC2086
(cd "$deps/debs" && apt-get download -qq $packages)
for f in "$deps"/debs/*.deb; do dpkg -x "$f" "$deps/root"; done
rm -rf "$deps/debs" "$deps/root/usr/share/doc" "$deps/root/usr/share/man" "$deps/root/usr/share/gtk-doc" \
       "$deps/root/usr/share/lintian"
lib="$deps/root/usr/lib/x86_64-linux-gnu"
# Libraries Debian installs under /lib (libexpat, which fontconfig links) join the others, so that the
# one RPATH finds them; static archives and CMake package files (cJSON's names /usr) are not used.
if [ -d "$deps/root/lib/x86_64-linux-gnu" ]; then
    cp -a "$deps/root/lib/x86_64-linux-gnu/." "$lib/"
    rm -rf "$deps/root/lib"
fi
rm -rf "$lib/cmake" "$lib"/*.a
# Links travel to the device as links (its README): a relative one stays inside the folder and works
# there; an absolute one (libz.so -> /lib/...) becomes a copy of its target on this machine.
# Fontconfig's /etc tree is replaced by the configuration below.
rm -rf "$deps/root/etc"
find "$deps/root" -type l | while read -r link; do
    case "$(readlink "$link")" in
        /*) target=$(readlink -f "$link") && rm -f "$link" && { [ ! -e "$target" ] || cp -rL "$target" "$link"; } ;;
    esac
done
find "$deps/root" -xtype l -delete # -dev links to libraries not carried (cairo's gobject, script)
[ -e "$lib/libcairo.so" ] || { echo "gpu-deps: libcairo.so missing after unpacking" >&2; exit 1; }
# Relocatable pkg-config files: ${pcfiledir} instead of /usr (gpu-check.sh needs no rewriting then).
for pc in "$lib"/pkgconfig/*.pc "$deps"/root/usr/share/pkgconfig/*.pc; do
    [ -e "$pc" ] || continue
    # shellcheck disable=SC2016 # ${pcfiledir} is for pkg-config to expand
    case "$pc" in */share/pkgconfig/*) up='${pcfiledir}/../..' ;; *) up='${pcfiledir}/../../..' ;; esac
    sed -i "s#\([=IL]\)/usr\([/ ]\|\$\)#\1$up\2#g" "$pc"
done
rm -f "$lib"/pkgconfig/cairo-*.pc # cairo's X11, glib and font back ends: not carried
cat >"$lib/pkgconfig/cairo.pc" <<'EOF'
prefix=${pcfiledir}/../../..
libdir=${prefix}/lib/x86_64-linux-gnu
includedir=${prefix}/include

Name: cairo
Description: cairo image surfaces for eddy's GPU build (tools/gpu-deps.sh: no X11, glib or fontconfig -dev)
Version: 1.16.0
Libs: -L${libdir} -lcairo
Cflags: -I${includedir}/cairo
EOF
# Fontconfig's configuration, so that text in pictures finds DejaVu there.
mkdir -p "$deps/fontconfig"
cat >"$deps/fontconfig/fonts.conf" <<EOF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig><dir prefix="relative">../root/usr/share/fonts</dir><cachedir>/tmp/eddy-fontconfig</cachedir></fontconfig>
EOF
echo "gpu-deps: $(du -sh "$deps" | cut -f1) in $deps; carry \".gpu-deps\" and start the run with tools/gpu-check.sh"
