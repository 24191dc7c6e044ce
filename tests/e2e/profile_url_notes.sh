#!/usr/bin/env bash
# Issue 43 item 1: one endpoint note, true in every spelling of -u/--url and
# --urls (repeated, duplicated, mixed). Two `genperf serve` instances, A and
# B; A is also reached as A2 (localhost instead of 127.0.0.1), so one server
# under two URLs. For each spelling: the note on stderr (or none), which
# servers got the requests (their success counters), and, with several
# endpoints, the per-endpoint counts in <stem>_genperf.json. Before, the
# README's `--url A --urls A A2` said "A is not used" while A took half the
# requests, `-u A -u A` said "A is not used", and `--urls A B --url C` said
# "--url given 2 times" and left B out.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --ttft-ms 1 --itl-ms 1 --quiet
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
A=$URL; A2=${A/127.0.0.1/localhost}
start_serve --ttft-ms 1 --itl-ms 1 --quiet
B=$URL
cd "$TMPDIR"
common=(-m m --endpoint-type chat --streaming --tokenizer builtin --synthetic-input-tokens-mean 16
        --output-tokens-mean 4 --random-seed 7 --concurrency 2 --request-count 8)
successes() { curl -s "$1/metrics" | awk '/^vllm:request_success_total/ {s += $2} END {print s + 0}'; }
n=0
# case NAME WANT_A WANT_B EXPECTED_NOTE_OR_- PER_ENDPOINT_COUNTS_OR_- -- ARGS...
case_() {
  local name=$1 wa=$2 wb=$3 note=$4 eps=$5; shift 6
  local a0 b0; a0=$(successes "$A"); b0=$(successes "$B"); n=$((n + 1))
  "$GENPERF" profile "${common[@]}" "$@" --artifact-dir "$name" >"$name.out" 2>"$name.err" ||
    { cat "$name.err"; fail "$name: exit $?"; }
  local da=$(( $(successes "$A") - a0 )) db=$(( $(successes "$B") - b0 ))
  [ "$da/$db" = "$wa/$wb" ] || fail "$name: server A served $da, B $db; want $wa/$wb"
  if [ "$note" = - ]; then
    grep -q "note: .*\(--url\|every request\|requests go\)" "$name.err" && fail "$name: a note where none is due: $(grep note "$name.err")"
  else
    [ "$(grep -c '^genperf: note: ' "$name.err")" = 1 ] && grep -qxF "genperf: note: $note" "$name.err" ||
      fail "$name: note is not '$note': $(grep note "$name.err")"
  fi
  local f=$name/m-openai-chat-concurrency2/profile_export_genperf.json
  if [ "$eps" = - ]; then
    grep -q '"endpoints"' "$f" && fail "$name: an endpoint breakdown for one endpoint"
  else
    got=$(python3 -c 'import json,sys; print(" ".join("%s=%d" % (e["url"], e["requests"]) for e in json.load(open(sys.argv[1]))["scale_out"]["endpoints"]))' "$f")
    [ "$got" = "$eps" ] || fail "$name: per-endpoint counts '$got', want '$eps'"
  fi
}
P=/v1/chat/completions
case_ one 8 0 - - -- --url "$A"
case_ urls 4 4 - "$A$P=4 $B$P=4" -- --urls "$A" "$B"
case_ u_twice_same 8 0 "-u/--url given 2 times: the last wins, as in GenAI-Perf; every request goes to $A (every URL given is used)" - -- -u "$A" -u "$A"
case_ u_twice 0 8 "-u/--url given 2 times: the last wins, as in GenAI-Perf; every request goes to $B ($A is not used); for several endpoints write --urls URL URL ..." - -- -u "$A" --url "$B"
case_ u_thrice 0 8 "-u/--url given 3 times: the last wins, as in GenAI-Perf; every request goes to $B ($A, $A2 are not used); for several endpoints write --urls URL URL ..." - -- -u "$A" -u "$A2" -u "$B"
# the README's line: --url A, then --urls naming A and A2 (one server, two URLs): every URL is used
case_ readme 8 0 "-u/--url and --urls given 2 times in all: the last wins; requests go to the 2 URLs of the last --urls: $A, $A2 (every URL given is used)" "$A$P=4 $A2$P=4" -- --url "$A" --urls "$A" "$A2"
case_ url_then_urls 4 4 "-u/--url and --urls given 2 times in all: the last wins; requests go to the 2 URLs of the last --urls: $A, $B (every URL given is used)" "$A$P=4 $B$P=4" -- -u "$B" --urls "$A" "$B"
case_ urls_then_url 0 8 "-u/--url and --urls given 2 times in all: the last wins; every request goes to $B ($A, $A2 are not used)" - -- --urls "$A" "$A2" --url "$B"
case_ urls_then_url_kept 8 0 "-u/--url and --urls given 2 times in all: the last wins; every request goes to $A ($B is not used)" - -- --urls "$A" "$B" --url "$A"
case_ urls_twice 4 4 "--urls given 2 times: the last wins; requests go to the 2 URLs of the last --urls: $A2, $B ($A is not used)" "$A2$P=4 $B$P=4" -- --urls "$A" "$B" --urls "$A2" "$B"
case_ urls_dup 8 0 "every request goes to $A, listed 2 times by --urls, so one server is counted as 2 endpoints" "$A$P=4 $A$P=4" -- --urls "$A" "$A"
case_ urls_dup_mixed 6 2 "requests go to the 4 URLs of the last --urls: $A (listed 3 times: 3 of the 4 endpoints), $B" \
  "$A$P=2 $B$P=2 $A$P=2 $A$P=2" -- --urls "$A" "$B" "$A" "$A"
echo "profile_url_notes: $n cases passed"
