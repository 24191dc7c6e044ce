#!/usr/bin/env bash
# scripts/pg-test.sh — a throwaway PostgreSQL cluster for the test suite.
#
#   scripts/pg-test.sh start DIR   initdb + start a cluster in DIR (created if missing; must be
#                                  traversable by the postgres user when run as root), listening
#                                  only on a unix socket in DIR/sock; prints its URL on stdout
#   scripts/pg-test.sh url DIR     prints the URL of the cluster in DIR
#   scripts/pg-test.sh stop DIR    stops it (fast shutdown) and removes DIR
#
# Uses Debian's /usr/lib/postgresql/<ver>/bin (or PG_BIN). As root the server runs as the
# postgres user (PostgreSQL refuses root); otherwise as the caller. Trust auth, no TCP port,
# so nothing outside this machine can reach it and two clusters never collide.
set -euo pipefail
cmd=${1:-}; dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: scripts/pg-test.sh start|url|stop DIR" >&2; exit 2
fi
pg_bin=${PG_BIN:-}
if [ -z "$pg_bin" ]; then
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && pg_bin=$d; done
fi
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ]; then
  echo "pg-test: no PostgreSQL server binaries (install Debian's postgresql or set PG_BIN)" >&2; exit 3
fi
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
url() { echo "postgresql:///postgres?host=$dir/sock&port=5432&user=postgres"; }
case "$cmd" in
  start)
    mkdir -p "$dir/sock"
    if [ "$(id -u)" -eq 0 ]; then chown -R postgres: "$dir"; chmod 755 "$dir"; fi
    as_pg "$pg_bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    as_pg "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
      -o "-c listen_addresses= -k $dir/sock -p 5432 -c fsync=off -c max_connections=50" start >/dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    url ;;
  url) url ;;
  stop)
    if [ -d "$dir/data" ]; then
      as_pg "$pg_bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir" ;;
  *) echo "pg-test: unknown command '$cmd' (use start, url or stop)" >&2; exit 2 ;;
esac
