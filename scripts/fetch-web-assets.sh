#!/usr/bin/env bash
# Fetches the chart library the Benchmarks page and reports embed (uPlot, MIT),
# pinned by version and by the sha256 of the npm tarball, into .cache/web-assets/.
# Idempotent: does nothing when the verified files are already there.
# The build depends on the two extracted files; if this script fails the build
# fails with its message (we refuse to ship a page whose charts silently vanish).
# Usage: scripts/fetch-web-assets.sh [DEST_DIR]   (default: .cache/web-assets)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/.cache/web-assets}
name=uplot
version=1.6.32
sha256=4b8a8191e425658e3ea8c8c1314b0fc679c861ee3a1af2b20c7b16ba50b5133d

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
tgz="$dest/$name-$version.tgz"
verify() { [ -f "$tgz" ] && [ "$(sha256sum "$tgz" | cut -d' ' -f1)" = "$sha256" ]; }

if [ -f "$dest/uPlot.iife.min.js" ] && [ -f "$dest/uPlot.min.css" ] && verify; then
  exit 0
fi
if ! verify; then
  rm -f "$tgz"
  if [ -n "${GP_WEB_ASSETS_TGZ:-}" ]; then
    # An offline copy of the same tarball (checked against the same sha256).
    cp "$GP_WEB_ASSETS_TGZ" "$tgz"
  else
    if ! command -v npm >/dev/null 2>&1; then
      echo "fetch-web-assets: npm not found; install nodejs+npm (scripts/deps.sh) or set GP_WEB_ASSETS_TGZ to a copy of $name-$version.tgz" >&2
      exit 1
    fi
    if ! (cd "$dest" && npm pack "$name@$version" --silent >/dev/null 2>"$dest/npm-pack.log"); then
      echo "fetch-web-assets: 'npm pack $name@$version' failed (see $dest/npm-pack.log); the npm registry must be reachable, or set GP_WEB_ASSETS_TGZ to a copy of the tarball" >&2
      exit 1
    fi
  fi
  if ! verify; then
    echo "fetch-web-assets: $tgz does not match the pinned sha256 $sha256; refusing to embed it" >&2
    rm -f "$tgz"
    exit 1
  fi
fi
tmp=$(mktemp -d "$dest/x.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tgz" -C "$tmp" package/dist/uPlot.iife.min.js package/dist/uPlot.min.css package/LICENSE
for f in uPlot.iife.min.js uPlot.min.css; do mv "$tmp/package/dist/$f" "$dest/$f"; done
mv "$tmp/package/LICENSE" "$dest/uPlot.LICENSE"
echo "fetch-web-assets: $name $version ready in $dest"
