#!/usr/bin/env bash
# No file can exhaust memory or hang a command (issue 40 item 1). A 400-byte YAML "billion laughs"
# (nine anchors, each a list of nine aliases of the one before: 9^9 values once expanded) is refused
# by `genperf config -f` and `genperf run` with a message naming the file, the line and the limit,
# under a 1 GiB address-space limit and a timeout so a regression fails fast instead of eating the
# machine. `genperf ingest` refuses a *_genai_perf.json that is a FIFO (it blocked forever) or a link
# to /dev/zero (it read until allocation failed), and a records file that is a FIFO, naming the file.
# Each under a timeout and an address-space limit, so a regression fails instead of hanging.
set -u
cd "$TMPDIR" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# An ASan build reserves terabytes of shadow memory and cannot start under ulimit -v: there the
# timeout alone makes a regression fail fast.
vmem=1048576 vmem_ingest=4194304
ldd "$GENPERF" 2>/dev/null | grep -q libasan && vmem=unlimited vmem_ingest=unlimited
{
  echo 'a: &a [x, x, x, x, x, x, x, x, x]'
  prev=a
  for n in b c d e f g h i; do
    printf '%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n' $n $n $prev $prev $prev $prev $prev $prev $prev $prev $prev
    prev=$n
  done
} >bomb.yaml
for cmd in "config -f bomb.yaml" "run bomb.yaml --dry-run"; do
  (ulimit -v $vmem; timeout 20 "$GENPERF" $cmd) >out 2>err
  rc=$?
  [ $rc -eq 1 ] || [ $rc -eq 2 ] || { cat err; fail "genperf $cmd: exit $rc, want 1 or 2"; }
  grep -q "bomb.yaml line [0-9]*: aliases expand the document to more than [0-9]* values" err ||
    { cat err; fail "genperf $cmd: no message naming the file, line and limit"; }
done
# A YAML file over the size limit (16 MiB) is refused by name before it is parsed.
head -c $((17 << 20)) /dev/zero | tr '\0' '#' >big.yaml
(ulimit -v $vmem; timeout 20 "$GENPERF" config -f big.yaml) >out 2>err
[ $? -eq 1 ] && grep -q "big.yaml' is larger than 16 MiB" err || { cat err; fail "big YAML not refused"; }

mkdir -p fifo zero rec
mkfifo fifo/x_genai_perf.json
ln -s /dev/zero zero/y_genai_perf.json
src="$GP_ROOT/tests/fixtures/genai-perf/genperf-profile/sim-model-openai-chat-concurrency2"
cp "$src"/* rec/
rm rec/profile_export_records.jsonl
mkfifo rec/profile_export_records.jsonl
for d in fifo zero rec; do
  (ulimit -v $vmem_ingest; timeout 20 "$GENPERF" ingest --db "sqlite://$TMPDIR/s.db" $d) >out 2>err
  rc=$?
  [ $rc -eq 124 ] && fail "ingest of $d hangs"
  [ $rc -ne 0 ] || { cat out err; fail "ingest of $d succeeded"; }
  grep -Eq "$d/[a-z_]*(_genai_perf.json|_records.jsonl).* (is not a regular file|is missing)" err ||
    { cat out err; fail "ingest of $d: no message naming the file"; }
done
echo "ok"
