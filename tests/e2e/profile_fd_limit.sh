#!/usr/bin/env bash
# An open loop that runs out of file descriptors (issue 26 item 10): under `ulimit -n 64`,
# --request-rate 200 against a server answering in ~0.3 s needs ~60 sockets at once. The run warns
# before it starts (the rate times the expected latency exceeds the limit), the requests refused with
# "Too many open files" are transport failures, and the run exits 1 saying the load asked for was not
# applied; with --max-failure-rate the failure share decides instead (0.99: exit 0, a warning). The
# fidelity verdict says the client limited the run, naming those failures (issue 40 item 6).
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
start_serve --ttft-ms 300 --itl-ms 5
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
run() { # dir [args...]
  local d=$1; shift
  ( ulimit -n 64; "$GENPERF" profile -m m --endpoint-type chat --tokenizer builtin --isl 8 --streaming --url "$URL" \
      --request-rate 200 --request-count 200 --output-tokens-mean 8 --artifact-dir "$d" "$@" >"o.$d" 2>"e.$d" ); rc=$?
  cat "e.$d"
}
run plain
check_rc $rc 1
grep -q "warning: --request-rate 200 keeps rate x latency requests in flight (2000 if they take 10 s), but the file descriptor limit 64 leaves room for about 32" e.plain ||
  fail "no up-front warning"
[ "$(grep -n "warning: --request-rate 200" e.plain | cut -d: -f1)" -lt "$(grep -n "requests sent" e.plain | cut -d: -f1)" ] ||
  fail "the fd warning came after the run"
grep -q "error: [0-9]* of 200 requests failed in the client: it ran out of file descriptors (Too many open files; limit 64)" e.plain ||
  fail "no exit-1 line"
check_artifacts "$(ls -d plain/*/)" 200
g=$(ls plain/*/*_genperf.json)
python3 - "$g" <<'PY' || fail "failures not counted: $(cat "$g")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["failures"]["transport"] > 0 and d["requests"]["ok"] > 0, d["requests"]
# issue 40 item 6: the verdict sees the client's own failures
f = d["fidelity"]
assert f["client_limited"] is True and f["verdict"] == "limiting", f
assert any("failed in the client itself (Too many open files)" in r for r in f["reasons"]), f
PY
grep -q "^genperf: client: limiting — .*[0-9]* of 200 requests failed in the client itself (Too many open files)" e.plain ||
  fail "the verdict line does not name the client's own failures"
grep -q "client: not limiting" e.plain && fail "fd-starved run: 'client: not limiting'"
run tolerated --max-failure-rate 0.99
check_rc $rc 0
grep -q "warning: [0-9]* of 200 requests failed in the client: it ran out of file descriptors" e.tolerated || fail "no warning line"
echo "fd limit: ok"
