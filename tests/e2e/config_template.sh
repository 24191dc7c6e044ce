#!/usr/bin/env bash
# genperf create-template writes GenAI-Perf's genai_perf_config.yaml byte for byte (fixture made by
# GenAI-Perf's own template code), refuses to overwrite it; the template as written is refused for its
# missing model (GenAI-Perf's message); edited (model, url, endpoint type, stimulus, measurement, tokens,
# goodput), `genperf config -f` runs a profile against `genperf serve` with those settings; an analyze
# section makes it an analyze; --override-config adds flags, a CLI stimulus or measurement replacing the
# file's; overrides without it are refused.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null' EXIT
cd "$TMPDIR" || exit 1
"$GENPERF" create-template || exit 1
cmp genai_perf_config.yaml "$GP_ROOT/tests/fixtures/genai-perf/create-template/genai_perf_config.yaml" ||
  { diff genai_perf_config.yaml "$GP_ROOT/tests/fixtures/genai-perf/create-template/genai_perf_config.yaml"; exit 1; }
if "$GENPERF" create-template 2>err; then echo "overwrote the template"; exit 1; fi
grep -q "File 'genai_perf_config.yaml' already exists. Please specify a different filename." err || { cat err; exit 1; }
"$GENPERF" create-template -f other.yaml && cmp other.yaml genai_perf_config.yaml || exit 1
"$GENPERF" config -f genai_perf_config.yaml 2>err
[ $? -eq 1 ] && grep -q "Required field model_names is not set" err || { cat err; exit 1; }

"$GENPERF" serve --quiet --zero-delay --port 0 --port-file url >/dev/null &
pid=$!
for _ in $(seq 200); do [ -s url ] && break; sleep 0.05; done
python3 - "$(cat url)" <<'PY'
import sys
t = open("genai_perf_config.yaml").read()
def sub(old, new):
    global t
    assert t.count(old) == 1, old
    t = t.replace(old, new)
sub("  model_names: \n", "  model_names: org/sim\n")
sub("    type: kserve\n", "    type: chat\n")
sub("    streaming: False\n", "    streaming: True\n")
sub("    url: localhost:8001\n", f"    url: {sys.argv[1]}\n")
sub("    stimulus: {'concurrency': 1}\n", "    stimulus: {'concurrency': 3}\n")
sub("      # If left unset, the default value will be inferred based on the mode.\n      num: \n", "      num: 9\n")
sub("    goodput: \n", "    goodput: {time_to_first_token: 60000}\n")
sub("    synthetic_tokens:\n      mean: 550\n", "    synthetic_tokens:\n      mean: 16\n")
sub("    output_tokens:\n      mean: \n", "    output_tokens:\n      mean: 5\n")
sub("    name: \n", "    name: builtin\n")
sub("    artifact_directory: artifacts\n", "    artifact_directory: arts\n")
open("edited.yaml", "w").write(t)
PY
[ $? -eq 0 ] || exit 1
"$GENPERF" config -f edited.yaml >out 2>err || { cat out err; exit 1; }
grep -q "^genperf config: edited.yaml runs: genperf profile -m org/sim --endpoint-type chat --streaming --url " err ||
  { cat err; exit 1; }
j=arts/org_sim-openai-chat-concurrency3/profile_export_genai_perf.json
python3 - "$j" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
ic = j["input_config"]
assert ic["perf_analyzer"]["stimulus"] == {"concurrency": 3}, ic["perf_analyzer"]
assert ic["perf_analyzer"]["measurement"] == {"mode": "request_count", "num": 9}, ic["perf_analyzer"]
assert ic["endpoint"]["streaming"] is True and ic["endpoint"]["type"] == "chat", ic["endpoint"]
assert ic["input"]["goodput"] == {"time_to_first_token": 60000.0}, ic["input"]["goodput"]
assert j["request_count"]["avg"] == 9 and j["output_sequence_length"]["avg"] == 5, j["request_count"]
assert j["input_sequence_length"]["avg"] == 16 and j["request_goodput"]["avg"] > 0
print("profile from config ok")
PY
[ $? -eq 0 ] || exit 1
# overrides need --override-config; with it, the CLI flag wins
if "$GENPERF" config -f edited.yaml --concurrency 2 2>err; then exit 1; fi
grep -q "the --override-config flag must be set" err || { cat err; exit 1; }
"$GENPERF" config -f edited.yaml --override-config --concurrency 2 --artifact-dir arts2 >out 2>err || { cat err; exit 1; }
[ -f arts2/org_sim-openai-chat-concurrency2/profile_export_genai_perf.json ] || { ls -R arts2; cat err; exit 1; }
# a CLI stimulus of another kind replaces the file's (create_config.py sets perf_analyzer.stimulus from the
# CLI), as does a CLI measurement: not "argument --request-rate: not allowed with argument --concurrency"
"$GENPERF" config -f edited.yaml --override-config --request-rate 200 --measurement-interval 300 \
  --artifact-dir arts3 >out 2>err || { cat err; exit 1; }
grep -q "runs: genperf profile .* --request-rate 200 --measurement-interval 300 " err || { cat err; exit 1; }
grep "runs:" err | grep -q -- "--concurrency\|--request-count" && { cat err; exit 1; }
python3 - arts3/org_sim-openai-chat-request_rate200.0/profile_export_genai_perf.json <<'PY'
import json, sys
pa = json.load(open(sys.argv[1]))["input_config"]["perf_analyzer"]
assert pa["stimulus"] == {"request_rate": 200.0}, pa
assert pa["measurement"] == {"mode": "interval", "num": 300}, pa
PY
[ $? -eq 0 ] || { ls -R arts3; exit 1; }
# an analyze section runs analyze (GenAI-Perf infers the subcommand)
sed -e 's/^  analyze:$/  analyze:\n    concurrency: {start: 1, stop: 2}/' edited.yaml >an.yaml
"$GENPERF" config -f an.yaml >out 2>err || { cat err; exit 1; }
grep -q "runs: genperf analyze -m org/sim --sweep-type concurrency --sweep-range 1:2" err || { cat err; exit 1; }
[ -f arts/analyze_export_genai_perf.csv ] && [ -d arts/org_sim-openai-chat-concurrency1 ] || { ls arts; exit 1; }
# ... and records it: config_command.py _infer_subcommand makes the subcommand ANALYZE
grep -q '"subcommand": "analyze",' arts/org_sim-openai-chat-concurrency1/profile_export_genai_perf.json ||
  { grep subcommand arts/org_sim-openai-chat-concurrency1/profile_export_genai_perf.json; exit 1; }
# an unknown key is refused with GenAI-Perf's message
printf 'model_names: m\nendpoint:\n  typo: 1\n' >bad.yaml
"$GENPERF" config -f bad.yaml 2>err
[ $? -eq 1 ] && grep -q "User Config: typo is not a valid endpoint parameter" err || { cat err; exit 1; }
echo PASS
