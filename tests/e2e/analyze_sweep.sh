#!/usr/bin/env bash
# genperf analyze over 3 concurrencies against `genperf serve`: 3 cell directories named as
# GenAI-Perf names them, each a full profile artifact set at its concurrency, and
# analyze_export_genai_perf.csv with GenAI-Perf's two tables (CRLF, csv.writer quoting);
# every cell's input_config.subcommand is "analyze"; then a --sweep-range / bad-range check.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null' EXIT
"$GENPERF" serve --quiet --zero-delay --port 0 --port-file "$TMPDIR/url" >/dev/null &
pid=$!
for _ in $(seq 200); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/url")
"$GENPERF" analyze --sweep-type concurrency --sweep-list 1,2,4 -m org/sim --tokenizer builtin -u "$url" \
  --endpoint-type chat --streaming --isl 16 --osl 4 --request-count 8 --concurrency 99 \
  --artifact-dir "$TMPDIR/a" >"$TMPDIR/out" 2>&1 || { cat "$TMPDIR/out"; exit 1; }
ls "$TMPDIR/a"
for c in 1 2 4; do
  d="$TMPDIR/a/org_sim-openai-chat-concurrency$c"
  [ -f "$d/profile_export_genai_perf.json" ] && [ -f "$d/profile_export.json" ] && [ -f "$d/inputs.json" ] ||
    { echo "cell $c missing"; exit 1; }
  grep -q "\"concurrency\": $c\$" "$d/profile_export_genai_perf.json" || { echo "cell $c ran at the wrong concurrency"; exit 1; }
  # GenAI-Perf's analyze exports its own config: input_config.subcommand "analyze" (base_config.py)
  grep -q '"subcommand": "analyze",' "$d/profile_export_genai_perf.json" ||
    { grep '"subcommand"' "$d/profile_export_genai_perf.json"; echo "cell $c: subcommand is not analyze"; exit 1; }
done
[ ! -e "$TMPDIR/a/.analyze-staging" ] || { echo "staging left behind"; exit 1; }
python3 - "$TMPDIR/a/analyze_export_genai_perf.csv" <<'PY'
import sys
raw = open(sys.argv[1], "rb").read().decode()
assert raw.endswith("\r\n") and "\n" not in raw.replace("\r\n", ""), "CRLF rows"
rows = raw.split("\r\n")
print("\n".join(rows))
assert rows[0] == ("Config Name,Concurrency,ISL,Num Dataset Entries,p99 Time To First Token (ms),"
                   "p99 Inter Token Latency (ms),p99 Request Latency (ms),p99 Output Sequence Length (tokens),"
                   "Avg. Output Token Throughput (tokens/sec),Request Throughput (requests/sec)"), rows[0]
body = [r.split(",") for r in rows[1:4]]
assert [r[0] for r in body] == ["org/sim_run_config_0", "org/sim_run_config_1", "org/sim_run_config_2"], body
assert [r[1] for r in body] == ["1", "2", "4"], body
assert all(r[2] == "16" and r[3] == "100" and r[7] == "4.00" for r in body), body
assert rows[4] == "", "blank row between the tables"
assert rows[5] == ("Config Name,GPU,p99 GPU Power Usage (W),p99 GPU Energy Consumption (MJ),p99 GPU Utilization (%),"
                   "p99 GPU Memory Used (GB),Avg. GPU Power Limit (W),Avg. GPU Total Memory (GB)"), rows[5]
print("csv ok")
PY
[ $? -eq 0 ] || exit 1
# num_dataset_entries by range with a step: 3 cells, named after the swept parameter
"$GENPERF" analyze --sweep-type num_dataset_entries --sweep-range 2:6:2 -m sim --tokenizer builtin -u "$url" \
  --endpoint-type chat --isl 8 --osl 2 --request-count 4 --artifact-dir "$TMPDIR/b" >"$TMPDIR/out2" 2>&1 ||
  { cat "$TMPDIR/out2"; exit 1; }
for v in 2 4 6; do [ -d "$TMPDIR/b/sim-openai-chat-num_dataset_entries$v" ] || { ls "$TMPDIR/b"; exit 1; }; done
grep -q '^sim_run_config_2,1,8,6,' "$TMPDIR/b/analyze_export_genai_perf.csv" || { cat "$TMPDIR/b/analyze_export_genai_perf.csv"; exit 1; }
if "$GENPERF" analyze --sweep-type concurrency --sweep-range 3:8 -m sim -u "$url" 2>"$TMPDIR/err"; then exit 1; fi
grep -q "powers of 2 when sweeping concurrency" "$TMPDIR/err" || { cat "$TMPDIR/err"; exit 1; }
echo PASS
