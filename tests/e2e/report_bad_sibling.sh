#!/usr/bin/env bash
# report_bad_sibling: `genperf report` refuses a run directory whose <stem>_genperf.json or
# genperf_run.json is damaged (exit non-zero, the file named, no report written), as `genperf ingest`
# rejects the same job; an intact directory still reports (issue 14, validation gaps).
set -u
source "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --zero-delay --quiet
"$GENPERF" profile -m m --tokenizer builtin -u "$URL" --endpoint-type chat --streaming --isl 8 --osl 4 \
  --request-count 3 --concurrency 1 --artifact-dir "$TMPDIR/a" >/dev/null 2>&1 || fail "profile failed"
run=$(ls -d "$TMPDIR"/a/*/)
"$GENPERF" report "$run" -o "$TMPDIR/ok.html" >/dev/null 2>&1 || fail "an intact run did not report"
[ -s "$TMPDIR/ok.html" ] || fail "no report written for an intact run"
for victim in profile_export_genperf.json genperf_run.json; do
  cp -r "$run" "$TMPDIR/bad"
  echo '{garbage' > "$TMPDIR/bad/$victim"
  "$GENPERF" report "$TMPDIR/bad" -o "$TMPDIR/bad.html" >"$TMPDIR/out" 2>&1 && fail "report accepted a damaged $victim"
  grep -q "$victim" "$TMPDIR/out" || fail "the error does not name $victim: $(cat "$TMPDIR/out")"
  [ -e "$TMPDIR/bad.html" ] && fail "a report was written despite the damaged $victim"
  "$GENPERF" ingest "$TMPDIR/bad" --db "$TMPDIR/x.db" >/dev/null 2>&1 && fail "ingest accepted a damaged $victim"
  rm -rf "$TMPDIR/bad"
done
echo "damaged siblings refused by report and ingest alike"
