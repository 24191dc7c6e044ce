#!/usr/bin/env bash
# "Vary only the tool": one scenario run with tool: genperf and with tool: genai-perf (a stand-in
# `genai-perf` on PATH that records its argv and writes a GenAI-Perf artifact set from
# tests/fixtures/genai-perf/real-genai-perf): the same flags after `profile`, both runs ingested under
# the scenario's label and told apart by the store's producer column, the compare answer pairs them
# on the cell. Then the container form (a stand-in docker), tool: {command: [...]}, and a host with
# neither tool nor runtime: the dry run still prints the command, the run says what is missing.
set -eu
cd "$TMPDIR"
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 CLI missing"; exit 77; }
"$GENPERF" serve --model sim --port 0 --port-file "$TMPDIR/url" --ttft-ms 1 --itl-ms 1 >serve.log 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.1; done
url=$(cat "$TMPDIR/url")
fixture="$GP_ROOT/tests/fixtures/genai-perf/real-genai-perf/test-model-openai-chat-concurrency2"

mkdir -p bin empty dbin
cat > bin/genai-perf <<SH
#!/usr/bin/env bash
# stand-in GenAI-Perf: records argv (one per line), writes the fixture's artifact set
printf '%s\n' "\$@" > "$TMPDIR/genai-perf.argv"
art=; conc=; prev=
for a in "\$@"; do
  case "\$prev" in --artifact-dir) art=\$a ;; --concurrency) conc=\$a ;; esac
  prev=\$a
done
mkdir -p "\$art/sim-openai-chat-concurrency\$conc"
cp "$fixture"/profile_export.json "$fixture"/profile_export_genai_perf.json "$fixture"/profile_export_genai_perf.csv \
  "\$art/sim-openai-chat-concurrency\$conc/"
SH
printf '#!/bin/sh\necho "docker stand-in: $*"\n' > dbin/docker
chmod +x bin/genai-perf dbin/docker

scenario() { # $1 = file, $2 = tool line
  cat > "$1" <<Y
name: cross
model: sim
tokenizer: builtin
framework: attach
url: $url
concurrency: 2
isl: 16
osl: 4
requests: 6
artifact_dir: arts
db: $TMPDIR/tool.db
$2
Y
}
scenario gp.yaml "tool: genperf"
scenario gap.yaml "tool: genai-perf"
scenario cmd.yaml "tool: {command: [$TMPDIR/bin/genai-perf, profile]}"

"$GENPERF" run gp.yaml --dry-run > gp.dry
"$GENPERF" run gp.yaml > gp.out 2>&1 || { cat gp.out; exit 1; }
PATH="$TMPDIR/bin:$PATH" "$GENPERF" run gap.yaml --dry-run > gap.dry
grep -q "^# tool: genai-perf ($TMPDIR/bin/genai-perf)" gap.dry || { echo "dry run names the host tool:"; cat gap.dry; exit 1; }
PATH="$TMPDIR/bin:$PATH" "$GENPERF" run gap.yaml > gap.out 2>&1 || { cat gap.out; exit 1; }
ls arts/cross/c2_isl16_osl4/*/*_genai_perf.json arts/cross/c2_isl16_osl4-genai-perf/*/*_genai_perf.json >/dev/null

python3 - gp.dry gap.dry genai-perf.argv <<'PY'
import shlex, sys
def cell_cmd(path):
    lines = [l for l in open(path) if l.strip() and not l.startswith("#") and " profile " in l]
    return shlex.split(lines[-1])
gp, gap = cell_cmd(sys.argv[1]), cell_cmd(sys.argv[2])
ran = open(sys.argv[3]).read().split("\n")[:-1]
assert gp[1] == "profile" and gap[1] == "profile" and gap[0].endswith("/genai-perf"), (gp[:2], gap[:2])
def flags(a):  # everything after `profile`, the artifact dir aside (each tool's cell has its own)
    a = a[2:] if a[1] == "profile" else a[1:]
    i = a.index("--artifact-dir")
    return a[:i] + a[i + 2:], a[i + 1]
f1, d1 = flags(gp); f2, d2 = flags(gap)
assert f1 == f2, ("same scenario -> same flags", f1, f2)
assert d1 == "arts/cross/c2_isl16_osl4" and d2 == "arts/cross/c2_isl16_osl4-genai-perf", (d1, d2)
assert ran[0] == "profile" and flags(["x"] + ran)[0] == f2, ("the stand-in got the printed command", ran)
print("same flags for both tools:", " ".join(f1[:6]), "...")
PY

rows=$(sqlite3 tool.db "SELECT j.label || ' ' || j.producer || ' ' || s.concurrency FROM jobs j JOIN scenarios s ON s.id = j.scenario_id ORDER BY j.producer")
echo "$rows"
[ "$rows" = "cross genai-perf 2
cross genperf 2" ] || { echo "want one job per tool under the scenario's label, same cell"; exit 1; }
ids=$(sqlite3 tool.db "SELECT group_concat(id) FROM jobs")
"$GENPERF" report --db "sqlite://$TMPDIR/tool.db" --job "$ids" -o cross.html >/dev/null
python3 - cross.html "$ids" <<'PY'
import json, re, sys
html = open(sys.argv[1]).read()
b = json.loads(re.search(r'<script type="application/json" id="gp-bundle">(.*?)</script>', html, re.S).group(1))
pts = b["api"]["/api/compare?ids=" + sys.argv[2]]["points"]
tools = sorted(p["tool"] for p in pts)
assert tools == ["genai-perf", "genperf"] and len({p["concurrency"] for p in pts}) == 1, pts
print("compare pairs", tools, "on concurrency", pts[0]["concurrency"])
PY

# Container form: no genai-perf on PATH, a docker there.
PATH="$TMPDIR/dbin:$TMPDIR/empty" "$GENPERF" run gap.yaml --dry-run > ctr.dry
grep -q "^# tool: genai-perf in the container nvcr.io/nvidia/tritonserver:26.04-py3-sdk" ctr.dry || { cat ctr.dry; exit 1; }
grep -q "^$TMPDIR/dbin/docker run --rm --net=host -v $TMPDIR:$TMPDIR -w $TMPDIR nvcr.io/nvidia/tritonserver:26.04-py3-sdk genai-perf profile -m sim " ctr.dry ||
  { echo "container command:"; cat ctr.dry; exit 1; }

# tool: {command: [...]}: the list takes the place of `genperf profile`.
"$GENPERF" run cmd.yaml --dry-run > cmd.dry
grep -q "^$TMPDIR/bin/genai-perf profile -m sim " cmd.dry || { cat cmd.dry; exit 1; }

# Neither the tool nor a runtime: the dry run prints the command, the run says what is missing.
PATH="$TMPDIR/empty" "$GENPERF" run gap.yaml --dry-run > miss.dry
grep -q "is not on PATH and neither docker nor podman is" miss.dry && grep -q "^genai-perf profile -m sim " miss.dry ||
  { echo "dry run without the tool:"; cat miss.dry; exit 1; }
rc=0; PATH="$TMPDIR/empty" "$GENPERF" run gap.yaml > miss.out 2>&1 || rc=$?
[ "$rc" -ne 0 ] && grep -q "pip install genai-perf" miss.out || { echo "run without the tool (rc $rc):"; cat miss.out; exit 1; }
cat miss.out

# A bad tool is refused with the choices.
printf 'model: m\nframework: attach\nurl: http://x\nconcurrency: 1\nisl: 1\nosl: 1\ntool: perf_analyzer\n' > bad.yaml
rc=0; "$GENPERF" run bad.yaml --dry-run > bad.out 2>&1 || rc=$?
[ "$rc" -ne 0 ] && grep -q "use genperf, genai-perf, or {command" bad.out || { cat bad.out; exit 1; }
echo "runner_tool ok"
