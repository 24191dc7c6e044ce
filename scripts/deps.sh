#!/usr/bin/env bash
# Installs the Debian 12 packages genperf needs to build, test and demo.
# Idempotent: only packages that are missing are installed; a second run does nothing.
# Usage: scripts/deps.sh [build|test|all]   (default: all)
set -euo pipefail
what=${1:-all}

build_pkgs=(build-essential pkg-config libcurl4-openssl-dev libjansson-dev libpcre2-dev nodejs npm
  libutf8proc-dev libsqlite3-dev sqlite3 libpq-dev libmicrohttpd-dev libyaml-dev ca-certificates curl
  libpng-dev libjpeg62-turbo-dev openmpi-bin libopenmpi-dev)
test_pkgs=(postgresql python3-aiohttp python3-numpy python3-rich wrk chromium nodejs npm procps nghttp2-proxy time
  clang nginx-light)

case "$what" in
  build) pkgs=("${build_pkgs[@]}") ;;
  test|all) pkgs=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
  *) echo "scripts/deps.sh: unknown set '$what' (use build, test or all)" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  # dpkg-query prints "install ok installed" only for a fully installed package.
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    # node/npm may come from elsewhere (nodesource, nvm): accept a working command.
    case "$p" in
      nodejs) command -v node >/dev/null 2>&1 && continue ;;
      npm) command -v npm >/dev/null 2>&1 && continue ;;
    esac
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#pkgs[@]} packages present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: missing packages: ${missing[*]}; run 'sudo scripts/deps.sh' or install them with apt-get" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
