#!/usr/bin/env bash
# scripts/device-bundle.sh — packs this machine's build for a machine that
# cannot install packages (the workplace's lent GPU machine: another distro, no
# network), into .devbundle/ (git-ignored):
#   bin/   genperf, nginx, wrk, curl with RPATH /opt/gpbundle/lib
#   lib/   every library they load except glibc's own (the target's newer
#          glibc serves those), and the libraries of Open MPI's plugins
#   ompi.tar.xz  Debian's Open MPI (mpirun, plugins, help files), unpacked there
#          only if that machine has no mpirun of its own
# Then, on that machine, from the repository root: bash bench/device_run.sh
# (it installs the bundle and runs the scale-out, nginx and GPU telemetry
# checks; see the header there). Needs patchelf (installed if missing) and a
# build (make -j2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
B=$root/.devbundle
RP=/opt/gpbundle/lib
[ -x "$root/build/genperf" ] || { echo "build first: make -j2"; exit 1; }
command -v patchelf >/dev/null || apt-get install -y -q patchelf >/dev/null
for t in nginx wrk curl mpirun; do command -v $t >/dev/null || { echo "missing $t: bash scripts/deps.sh all"; exit 1; }; done
rm -rf "$B"; mkdir -p "$B/bin" "$B/lib"
cp "$root/build/genperf" "$(command -v nginx)" "$(command -v wrk)" "$(command -v curl)" "$B/bin/"
plug=$(dirname "$(find /usr/lib -path '*openmpi*' -name 'mca_pml_ob1.so' | head -1)")
skip='/(libc|libm|libpthread|libdl|librt|libresolv|libutil|libanl|ld-linux-x86-64|libgcc_s)\.so'
for f in "$B"/bin/* "$(readlink -f "$(command -v mpirun)")" "$plug"/*.so; do
  ldd "$f" 2>/dev/null | awk '/=> \//{print $3}'
done | sort -u | grep -Ev "$skip" | while read -r l; do cp -L "$l" "$B/lib/"; done
for f in "$B"/bin/*; do patchelf --force-rpath --set-rpath "$RP" "$f"; done
# Open MPI at its own paths, its programs pointed at the bundle's libraries
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
pk="libopenmpi3 openmpi-bin openmpi-common libpmix2 libhwloc15 libhwloc-plugins libevent-2.1-7 libevent-pthreads-2.1-7 libevent-core-2.1-7"
for p in $pk; do dpkg -L "$p" 2>/dev/null || true; done | grep -Ev '/(doc|man|lintian|bug)/' |
  while read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "${f#/}"; done | sort -u >"$stage/files"
printf '%s\n' usr/bin/mpirun etc/alternatives/mpirun >>"$stage/files"
mkdir "$stage/root"
tar -C / -cf - -T "$stage/files" | tar -C "$stage/root" -xf -
for b in orterun orted ompi_info; do
  [ -f "$stage/root/usr/bin/$b" ] && patchelf --force-rpath --set-rpath "$RP" "$stage/root/usr/bin/$b"
done
tar -C "$stage/root" -cJf "$B/ompi.tar.xz" .
du -sh "$B"
