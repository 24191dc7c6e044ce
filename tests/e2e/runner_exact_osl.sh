#!/usr/bin/env bash
# Issue 39 item 4: engines stop at EOS, so each cell sends the engine's
# stop-at-EOS override (exact_osl, default on; vLLM also min_tokens), and the
# sweep table and `genperf results` show the measured OSL beside the asked one.
set -eu
cd "$TMPDIR"
cat > v.yaml <<'Y'
model: m
framework: vllm
hardware: {gpus: 1}
concurrency: 1
isl: 8
osl: 16
artifact_dir: arts
Y
"$GENPERF" run v.yaml --dry-run > v.txt
grep -q -- ' --random-seed 0 --extra-inputs ignore_eos:true --extra-inputs min_tokens:16 --profile-export-file ' v.txt \
  || { cat v.txt; echo "vllm cell without ignore_eos/min_tokens"; exit 1; }
for fw in sglang trtllm; do
  sed "s/framework: vllm/framework: $fw/" v.yaml > $fw.yaml
  "$GENPERF" run $fw.yaml --dry-run | grep -q -- ' --extra-inputs ignore_eos:true --'
  "$GENPERF" run $fw.yaml --dry-run | grep -vq -- 'min_tokens'
done
printf 'exact_osl: false\n' >> v.yaml
! "$GENPERF" run v.yaml --dry-run | grep -q -- '--extra-inputs'
printf 'exact_osl: 1\n' > bad.yaml; cat v.yaml | grep -v exact_osl >> bad.yaml
if "$GENPERF" run bad.yaml --dry-run 2>err.txt; then echo "exact_osl: 1 accepted"; exit 1; fi
grep -q "'exact_osl' must be true" err.txt
# a server that stops at EOS early (--eos-rate): with exact_osl every
# response is the asked 24 tokens; without, shorter, and both tables say so
"$GENPERF" serve --model sim --port 0 --port-file "$TMPDIR/url" --ttft-ms 1 --itl-ms 1 --eos-rate 0.2 --seed 3 >serve.log 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.1; done
url=$(cat "$TMPDIR/url")
for mode in true false; do
  cat > a-$mode.yaml <<Y
model: sim
tokenizer: builtin
framework: attach
url: $url
concurrency: 2
isl: 16
osl: 24
requests: 8
exact_osl: $mode
artifact_dir: $TMPDIR/arts
Y
  "$GENPERF" run a-$mode.yaml > out-$mode.txt 2>&1 || { cat out-$mode.txt; exit 1; }
  cat out-$mode.txt
  grep -q 'OSL out' out-$mode.txt
done
# the row: concurrency ISL OSL "OSL out" ...
awk '$1 == 2 && $2 == 16 && $3 == 24 {print $4}' out-true.txt | grep -qx '24.0'
m=$(awk '$1 == 2 && $2 == 16 && $3 == 24 {print $4}' out-false.txt)
python3 -c 'import sys; v = float(sys.argv[1]); assert v < 24, v' "$m"
"$GENPERF" results --db "$TMPDIR/arts/genperf.db" --format csv > res.csv
cat res.csv
python3 - res.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2, rows
got = sorted(float(r["osl_measured"]) for r in rows)
assert all(r["osl"] == "24" for r in rows), rows
assert got[1] == 24.0 and got[0] < 24, got
PY
