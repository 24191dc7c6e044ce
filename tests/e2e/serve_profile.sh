#!/usr/bin/env bash
# serve_profile: `genperf profile` against `genperf serve` in each flavour. Exact counts
# (client ISL/OSL == server usage == timing log), client-measured TTFT/ITL equal to the
# server's ground truth (timing log) within a small margin, and injected faults become
# failure records one for one; --stream-interval chunks still count exactly.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
"$GENPERF" profile --help 2>&1 | grep -q -- '--streaming' || { echo "genperf profile is not built in this tree"; exit 77; }
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null' EXIT
# Server usage is opt-in (GenAI-Perf never asks for it): the client/server
# count comparison below asks for it the way a GenAI-Perf user would.
run() { # name profile-args -- serve-args
  local name=$1; shift
  local pargs=()
  while [ "$1" != "--" ]; do pargs+=("$1"); shift; done; shift
  rm -f "$TMPDIR/url"
  "$GENPERF" serve --quiet --port 0 --port-file "$TMPDIR/url" --timing-log "$TMPDIR/$name.jsonl" "$@" >/dev/null &
  pid=$!
  for _ in $(seq 200); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
  "$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$(cat "$TMPDIR/url")" --endpoint-type chat \
      --streaming --isl 16 --osl 12 --genperf-output-tokens-deterministic --warmup-request-count 0 \
      --extra-inputs '{"stream_options":{"include_usage":true}}' \
      --artifact-dir "$TMPDIR/art.$name" "${pargs[@]}" >"$TMPDIR/$name.out" 2>&1
  echo "$?" >"$TMPDIR/$name.rc"
  kill -TERM $pid; wait $pid || { echo "serve exit status $?"; exit 1; }; pid=
  cp "$(find "$TMPDIR/art.$name" -name '*_records.jsonl' | head -n1)" "$TMPDIR/$name.records" 2>/dev/null ||
    { echo "no records for $name"; cat "$TMPDIR/$name.out"; exit 1; }
}
for fl in vllm sglang trtllm; do
  run $fl --concurrency 1 --request-count 6 -- --flavor $fl --ttft-ms 25 --itl-ms 4
done
run interval --concurrency 4 --request-count 8 -- --zero-delay --stream-interval 4
run faults --concurrency 2 --request-count 16 -- --zero-delay --seed 5 --fault-rate-500 0.25 \
    --fault-rate-stream-error 0.25
python3 - "$TMPDIR" <<'PY'
import json, statistics, sys
tmp = sys.argv[1]
bad = []
def check(c, what):
    if not c: bad.append(what); print("FAIL", what)
for fl in ("vllm", "sglang", "trtllm"):
    recs = [json.loads(l) for l in open("%s/%s.records" % (tmp, fl))]
    recs = [r for r in recs if not r["warmup"]]
    log = [json.loads(l) for l in open("%s/%s.jsonl" % (tmp, fl))]
    check(len(recs) == 6 and len(log) == 6, "%s: 6 records (%d) and 6 log lines (%d)" % (fl, len(recs), len(log)))
    recs.sort(key=lambda r: r["t_start_ns"])
    dttft, ditl = [], []
    for r, e in zip(recs, log):   # concurrency 1: arrival order is request order
        check(r["status"] == "ok" and r["done"], fl + " record ok")
        # queue-to-send lag: stamped when libcurl began sending; inside the request, before its first token
        check(r["send_lag_ns"] is not None and 0 <= r["send_lag_ns"] < r["ttft_ns"], fl + " send_lag_ns within TTFT")
        check(r["osl"] == 12 and r["server_completion_tokens"] == 12 and e["completion_tokens"] == 12,
              fl + " osl client/server/log")
        check(r["isl"] == r["server_prompt_tokens"] == e["prompt_tokens"] == 16, fl + " isl client/server/log")
        c = [t for t, k in zip(e["chunks_ns"], e["kinds"]) if k == "C"]
        truth_ttft = c[0] - e["t_request_ns"]
        truth_itl = (c[-1] - c[0]) / (len(c) - 1)
        dttft.append((r["ttft_ns"] - truth_ttft) / 1e6)
        ditl.append((r["itl_ns"] - truth_itl) / 1e6)
    print("%s: client-minus-truth TTFT ms %s, ITL ms %s" % (fl, ["%.3f" % x for x in dttft], ["%.3f" % x for x in ditl]))
    check(min(dttft) >= 0 and statistics.median(dttft) < 3, fl + " TTFT matches the timing log")
    check(statistics.median([abs(x) for x in ditl]) < 0.5, fl + " ITL matches the timing log")
# several tokens per chunk: the client still counts 12 tokens from 4 chunks (1 + 4 + 4 + 3)
recs = [json.loads(l) for l in open(tmp + "/interval.records")]
check(len(recs) == 8 and all(r["status"] == "ok" and r["osl"] == 12 and r["server_completion_tokens"] == 12
                             and r["content_chunks"] == 4 for r in recs),
      "stream-interval 4: %r" % [(r["osl"], r["content_chunks"]) for r in recs])
recs = [json.loads(l) for l in open(tmp + "/faults.records")]
log = [json.loads(l) for l in open(tmp + "/faults.jsonl")]
faulted = sum(1 for e in log if e["fault"])
failed = sum(1 for r in recs if r["status"] != "ok" and not r["warmup"])
print("faults: %d faulted log lines, %d failed records of %d" % (faulted, failed, len(recs)))
check(faulted > 0 and failed == faulted, "every fault is a failure record")
sys.exit(1 if bad else 0)
PY
