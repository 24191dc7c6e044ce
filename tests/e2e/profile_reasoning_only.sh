#!/usr/bin/env bash
# profile_reasoning_only (issue 38 item 5): a reasoning model is diagnosed as
# one. Against `genperf serve --reasoning 8` (the first 8 output tokens stream
# as reasoning_content; usage.completion_tokens counts them) with seeded EOS:
#  (a) answers that ended inside the reasoning (no content) are out of
#      GenAI-Perf's table; the console says how many and where they are
#      counted (*_genperf.json reasoning.requests_reasoning_only);
#  (b) answers whose usage (reasoning included) is max_tokens produced what
#      was asked: their short content is put down to the reasoning, not to
#      "stopped early (EOS?)";
#  (c) usage one past max_tokens (--miscount-rate 1) "differs by 1", it did
#      not "run past max_tokens";
#  (d) a run whose every answer was reasoning-only says so on its last line.
# Ground truth is the server's timing log: completion_tokens per request.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"

prof() { # dir osl count extra...
  local d=$1 osl=$2 n=$3; shift 3
  "$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$URL" --endpoint-type chat --streaming \
    --isl 32 --osl "$osl" --request-count "$n" --concurrency 4 --server-usage --artifact-dir "$d" "$@" \
    >"$d.out" 2>"$d.err"
}

# (a), (b): 40 answers, EOS at 5% a token, max_tokens 16
start_serve --quiet --zero-delay --reasoning 8 --eos-rate 0.05 --seed 0 --timing-log log.jsonl
[ "$SERVER" = serve ] || { echo "genperf serve did not start"; exit 77; }
prof a 16 40; rc=$?
stop_serve
check_rc $rc 0
python3 - a.err "$(find a -name '*_genperf.json')" "$(find a -name '*_genai_perf.json')" log.jsonl <<'PY' ||
import json, re, sys
err = open(sys.argv[1]).read()
g = json.load(open(sys.argv[2])); gp = json.load(open(sys.argv[3]))
ct = [json.loads(l)["completion_tokens"] for l in open(sys.argv[4])]
assert len(ct) == 40, len(ct)
only = sum(c <= 8 for c in ct)          # EOS inside the 8 reasoning tokens: no content
full = sum(c == 16 for c in ct)         # max_tokens produced: 8 reasoning + 8 content
short = sum(c < 16 for c in ct)         # EOS: an early stop, reasoning included
assert only > 0 and full > 0 and short > only, (only, full, short)  # seed 0 has each case
counted = 40 - only
# (a) the console count, the _genperf.json count, and what GenAI-Perf's table left out agree
rs = g["reasoning"]
assert rs["requests_reasoning_only"] == only, rs
assert g["requests"]["measured"] - g["requests"]["counted"] == only, g["requests"]
assert gp["request_count"]["avg"] == counted, gp["request_count"]
want = "%d of 40 completed answers carried only reasoning, no content" % only
assert want in err, err
assert "left out of its table (Request Count %d)" % counted in err, err
assert "requests_reasoning_only" in err, err
# (b) usage = max_tokens: the reasoning took the share; only real early stops are blamed on EOS
assert ("in %d of 40 requests the content was shorter than the requested OSL" % full) in err, err
assert "because reasoning tokens count against max_tokens" in err, err
assert ("differs from the requested OSL in %d of 40 requests (0 longer, %d shorter" % (short, short)) in err, err
m = re.search(r"got ([0-9.]+), reasoning included", err)
assert m and abs(float(m.group(1)) - sum(ct) / 40) < 0.051, (m and m.group(1), sum(ct) / 40)
assert "all 40 completed answers" not in err
PY
  fail "reasoning-only answers and the OSL check"

# (d) max_tokens 8 = the reasoning: every answer is reasoning-only
start_serve --quiet --zero-delay --reasoning 8
prof d 8 6; rc=$?
stop_serve
check_rc $rc 0
last=$(tail -n1 d.err)
case $last in
  *"all 6 completed answers carried only reasoning, none reached content"*"raise max_tokens (--osl)"*) ;;
  *) cat d.err; fail "last line: $last" ;;
esac
grep -q "stopped early" d.err && { cat d.err; fail "(d) blamed EOS"; }
grep -q "in 6 of 6 requests the content was shorter" d.err || { cat d.err; fail "(d) reasoning share"; }
[ "$(json_get "$(find d -name '*_genperf.json')" 'd["reasoning"]["requests_reasoning_only"]')" = 6 ] ||
  fail "(d) requests_reasoning_only"

# (c) usage one past max_tokens
start_serve --quiet --zero-delay --miscount-rate 1
prof c 8 4; rc=$?
stop_serve
check_rc $rc 0
grep -q "in 4 of 4 requests the server's count differs by 1" c.err || { cat c.err; fail "(c) differs by 1"; }
grep -q "ran past max_tokens" c.err && { cat c.err; fail "(c) ran past max_tokens"; }
echo ok
