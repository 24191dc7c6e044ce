#!/usr/bin/env bash
# genperf run with 'repeats: 3' (issue 30 item 1, the scenario half): each cell runs 3 times
# under <cell>/run_K/ (one GenAI-Perf run directory each), every run is ingested as a job of
# the scenario, `genperf compare --allow-different` (the cells differ in concurrency) reads two cells as 3 vs 3 runs (Welch on run-level values),
# and 'repeats' with a search block is refused, as is --num-runs in profile_args (the runner
# would not find that cell's runs to ingest).
set -eu
cd "$TMPDIR"
"$GENPERF" serve --model sim --port 0 --port-file "$TMPDIR/url" --ttft-ms 2 --itl-ms 1 >serve.log 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.1; done
url=$(cat "$TMPDIR/url")
cat > r.yaml <<Y
model: sim
tokenizer: builtin
framework: attach
url: $url
concurrency: [1, 4]
isl: 16
osl: 4
requests: 12
repeats: 3
artifact_dir: $TMPDIR/arts
Y
"$GENPERF" run r.yaml >out.txt 2>err.txt || { cat out.txt err.txt; echo "FAIL: genperf run exit $?"; exit 1; }
grep -q "cell 2/2 run_3: concurrency 4" out.txt || { cat out.txt; echo "FAIL: no 'cell 2/2 run_3' line"; exit 1; }
for c in c1_isl16_osl4 c4_isl16_osl4; do
  for k in 1 2 3; do
    ls "$TMPDIR"/arts/r/$c/run_$k/*/*_genai_perf.json >/dev/null || { echo "FAIL: no $c/run_$k"; exit 1; }
  done
  [ -e "$TMPDIR/arts/r/$c/run_4" ] && { echo "FAIL: a 4th run of $c"; exit 1; }
done
n=$("$GENPERF" query --db "$TMPDIR/arts/genperf.db" "SELECT COUNT(*) AS n FROM jobs" | grep -Eo '[0-9]+' | tail -n1)
[ "$n" = 6 ] || { echo "FAIL: $n jobs in the store, want 6 (2 cells x 3 runs)"; exit 1; }
"$GENPERF" compare --allow-different "$TMPDIR/arts/r/c1_isl16_osl4" "$TMPDIR/arts/r/c4_isl16_osl4" >cmp.txt 2>&1 || true
grep -q "evidence: 3 vs 3 runs, Welch's t on run-level values" cmp.txt || { cat cmp.txt; echo "FAIL: compare not by runs"; exit 1; }
cat > s.yaml <<Y
model: sim
tokenizer: builtin
framework: attach
url: $url
concurrency: 1
isl: 16
osl: 4
repeats: 2
search: {slo: {time_to_first_token: 100}}
Y
if "$GENPERF" run s.yaml >s.out 2>&1; then echo "FAIL: repeats with search accepted"; exit 1; fi
grep -q "'repeats' runs each sweep cell again; a search picks its own loads" s.out || { cat s.out; echo "FAIL: refusal text"; exit 1; }
sed -e 's/^repeats: 3$/profile_args: [--num-runs, "3"]/' r.yaml >p.yaml
if "$GENPERF" run p.yaml >p.out 2>&1; then echo "FAIL: profile_args --num-runs accepted"; exit 1; fi
grep -q "'profile_args' has --num-runs; write 'repeats: N' instead" p.out || { cat p.out; echo "FAIL: --num-runs refusal"; exit 1; }
echo ok
