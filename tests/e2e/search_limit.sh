#!/usr/bin/env bash
# genperf search against `genperf serve`'s batching model, where the SLO limit is known from the model:
#
# --max-batch 6, one decode step = 2 ms (no per-sequence or prefill cost), OSL 100: a request takes
# S ~= 200 ms once admitted. Up to concurrency 6 every request is admitted at once, TTFT ~= 1-2 steps
# (~4 ms). At concurrency 7 one request of every 7 waits a whole S for a free slot (TTFT ~= 200 ms),
# so 1/7 = 14% miss a 30 ms TTFT SLO and the goodput share (86%) is below a 90% target; at 8, 25% miss.
# The limit is therefore exactly concurrency 6: doubling tries 1, 2, 4, 8 (misses), bisection 6
# (meets) and 7 (misses) -> 6 cells. Then saturation (--max-batch 2: throughput flat from 2 to 4 while
# latency doubles), the cell and time caps, the store's job group, and usage errors.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; wait 2>/dev/null' EXIT
start_serve() { # $1 = url file, rest = serve flags
  local f=$1; shift
  "$GENPERF" serve --quiet --port 0 --port-file "$f" --decode-step-ms 2 --decode-step-per-seq-us 0 \
    --prefill-us-per-token 0 "$@" >/dev/null &
  pids="$pids $!"
  for _ in $(seq 200); do [ -s "$f" ] && break; sleep 0.05; done
}
# (not url=$(start_serve ...): a subshell would keep the pid from the trap, and the
# server would outlive the test)
start_serve "$TMPDIR/url6" --max-batch 6; url=$(cat "$TMPDIR/url6")
common=(-m org/sim --tokenizer builtin --endpoint-type chat --streaming --isl 16)

t0=$(date +%s)
"$GENPERF" search "${common[@]}" -u "$url" --osl 100 --concurrency 99 -g time_to_first_token:30 \
  --goodput-target 0.9 --max-cells 10 --artifact-dir "$TMPDIR/a" --db "$TMPDIR/db.sqlite" --label limit-test \
  >"$TMPDIR/out" 2>"$TMPDIR/err" || { cat "$TMPDIR/out" "$TMPDIR/err"; exit 1; }
echo "limit search: $(( $(date +%s) - t0 )) s"
sed -n '/^concurrency search/,$p' "$TMPDIR/out"
python3 - "$TMPDIR/a/search_export_genperf.csv" "$TMPDIR/out" <<'PY'
import sys
raw = open(sys.argv[1], "rb").read().decode()
assert raw.endswith("\r\n") and "\n" not in raw.replace("\r\n", ""), "CRLF rows"
rows = raw.split("\r\n")
assert rows[0].startswith("Cell,Search Type,Value,Meets Target,Good Share,Requests,Good Requests,"
                          "p50 Time To First Token (ms),p99 Time To First Token (ms)"), rows[0]
blank = rows.index("")
cells = [r.split(",") for r in rows[1:blank]]
summary = dict(r.split(",", 1) for r in rows[blank + 1:] if r)
tried = [int(c[2]) for c in cells]
meets = {int(c[2]): c[3] == "yes" for c in cells}
limit = int(summary["Limit"])
print("tried", tried, "limit", limit, summary["Reason"])
# the model says 6; one bisection step of slack for a loaded machine
assert limit in (5, 6), (limit, tried)
assert meets[limit] and not meets[limit + 1], "the limit meets, one above it misses"
assert tried[:4] == [1, 2, 4, 8] and not meets[8], tried
assert len(tried) <= 7, ("bounded cell count", tried)
assert summary["Stopped"] == "converged" and summary["SLOs"] == "time_to_first_token:30", summary
assert summary["Goodput Target"] == "0.9" and summary["Cells"] == str(len(tried)), summary
c8 = [c for c in cells if c[2] == "8"][0]
assert 0.6 <= float(c8[4]) < 0.9 and float(c8[8]) > 100, ("c=8 queues: TTFT p99 ~ a request", c8)
out = open(sys.argv[2]).read()
assert f"limit: concurrency {limit}\n" in out and "stopped: converged: concurrency" in out, out
print("csv ok")
PY
[ $? -eq 0 ] || exit 1
for d in "$TMPDIR"/a/org_sim-openai-chat-concurrency*; do
  [ -f "$d/profile_export_genai_perf.json" ] && [ -f "$d/profile_export.json" ] || { echo "cell $d incomplete"; exit 1; }
done
grep -q '"concurrency": 8$' "$TMPDIR/a/org_sim-openai-chat-concurrency8/profile_export_genai_perf.json" ||
  { echo "cell 8 ran at the wrong concurrency (the user's --concurrency 99 must be replaced)"; exit 1; }
[ ! -e "$TMPDIR/a/.search-staging" ] || { echo "staging left behind"; exit 1; }
# every cell is one job of the group (label), at its concurrency
n=$(ls -d "$TMPDIR"/a/org_sim-openai-chat-concurrency* | wc -l)
"$GENPERF" query --db "$TMPDIR/db.sqlite" --format csv \
  "select j.label, s.concurrency from jobs j join scenarios s on s.id = j.scenario_id order by j.id" >"$TMPDIR/q" ||
  { cat "$TMPDIR/q"; exit 1; }
[ "$(grep -c '^limit-test,' "$TMPDIR/q")" = "$n" ] || { cat "$TMPDIR/q"; echo "want $n jobs labelled limit-test"; exit 1; }
sed -n 2,5p "$TMPDIR/q" | cut -d, -f2 | tr '\n' ' ' | grep -q '^1 2 4 8 $' || { cat "$TMPDIR/q"; exit 1; }

# saturation: 2 slots, a generous SLO; once a request always waits for each slot, more
# concurrency gains no throughput while latency doubles. On a quiet host that is already so at 4
# (flat from 2 to 4: the client's turnaround between a response and the next send is negligible);
# on a busy one that turnaround leaves a slot idle at concurrency 2, so 4 still gains (+18% seen
# under `make test-loaded`) and the search saturates at 8, which queues behind the 2 slots on any
# host. Either is the model's answer; 16 or beyond is not.
start_serve "$TMPDIR/url2" --max-batch 2; url2=$(cat "$TMPDIR/url2")
"$GENPERF" search "${common[@]}" -u "$url2" --osl 50 -g time_to_first_token:100000 \
  --artifact-dir "$TMPDIR/s" >"$TMPDIR/out2" 2>&1 || { cat "$TMPDIR/out2"; exit 1; }
sat=$(sed -nE 's/^stopped: saturated at concurrency (4|8): throughput.*/\1/p' "$TMPDIR/out2")
[ -n "$sat" ] && grep -q "^limit: concurrency $sat\$" "$TMPDIR/out2" ||
  { sed -n '/^concurrency search/,$p' "$TMPDIR/out2"; exit 1; }
grep -q '^Stopped,saturated' "$TMPDIR/s/search_export_genperf.csv" || exit 1
want_cells=3; [ "$sat" = 8 ] && want_cells=4   # 1 2 4, or 1 2 4 8
[ "$(ls -d "$TMPDIR"/s/*-concurrency* | wc -l)" = $want_cells ] || { ls "$TMPDIR/s"; exit 1; }

# caps: two cells, then a time cap that the first cell already spends
"$GENPERF" search "${common[@]}" -u "$url2" --osl 10 --max-cells 2 --artifact-dir "$TMPDIR/c" >"$TMPDIR/out3" 2>&1 ||
  { cat "$TMPDIR/out3"; exit 1; }
grep -q '^stopped: stopped after 2 cells (--max-cells) while still doubling' "$TMPDIR/out3" || { cat "$TMPDIR/out3"; exit 1; }
grep -q '(no SLO given)' "$TMPDIR/out3" || exit 1
"$GENPERF" search "${common[@]}" -u "$url2" --osl 10 --max-time 0.01 --artifact-dir "$TMPDIR/t" >"$TMPDIR/out4" 2>&1 ||
  { cat "$TMPDIR/out4"; exit 1; }
grep -q '^stopped: stopped at the time cap (--max-time 0.01 s)' "$TMPDIR/out4" || { cat "$TMPDIR/out4"; exit 1; }
grep -q '^Cells,1' "$TMPDIR/t/search_export_genperf.csv" || exit 1

# a --request-count below a cell's concurrency: profile refuses such a count,
# which ended the search at that cell ("the cell's profile failed at
# concurrency 4", exit 1); the cell's count is raised to its concurrency
"$GENPERF" search "${common[@]}" -u "$url2" --osl 10 --request-count 2 --max-cells 3 --artifact-dir "$TMPDIR/rc" \
  >"$TMPDIR/out5" 2>&1 || { cat "$TMPDIR/out5"; exit 1; }
grep -q 'cell 3: --request-count raised from 2 to 4' "$TMPDIR/out5" || { cat "$TMPDIR/out5"; exit 1; }
grep -Eq '^ +3 +4 +[0-9.]+% +4 ' "$TMPDIR/out5" || { cat "$TMPDIR/out5"; exit 1; }   # cell 3 ran 4 requests

# usage errors exit 2 with the fix in the message
for bad in "--search-type batch_size" "--goodput-target 1.5" "--max-cells 0"; do
  # shellcheck disable=SC2086
  "$GENPERF" search -m sim -u "$url" $bad 2>"$TMPDIR/e"
  rc=$?
  [ $rc -eq 2 ] || { echo "$bad: exit $rc, want 2"; exit 1; }
done
grep -q "max-cells '0'" "$TMPDIR/e" || { cat "$TMPDIR/e"; exit 1; }
if "$GENPERF" search -u "$url" 2>"$TMPDIR/e"; then exit 1; fi
grep -q "required: -m/--model" "$TMPDIR/e" || { cat "$TMPDIR/e"; exit 1; }
echo PASS
