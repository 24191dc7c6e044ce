#!/usr/bin/env bash
# The workload through `genperf profile`: inputs.json holds --num-dataset-entries
# distinct bodies with GenAI-Perf's key order plus the deterministic-OSL fields,
# the reported ISL equals prefix + ISL exactly for every request (builtin tokenizer), and a second
# run with the same flags writes a byte-identical inputs.json.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
start_serve
run() { # artifact dir
  "$GENPERF" profile -m sim-model --endpoint-type chat --streaming -u "$URL" --tokenizer builtin \
    --synthetic-input-tokens-mean 40 --output-tokens-mean 12 --genperf-output-tokens-deterministic \
    --num-dataset-entries 5 --request-count 10 --num-prefix-prompts 2 --prefix-prompt-length 16 \
    --random-seed 42 --extra-inputs temperature:0.5 --artifact-dir "$1" >"$1.out" 2>&1 \
    || { cat "$1.out"; fail "genperf profile failed"; }
}
run a1
run a2
in1=$(find a1 -name inputs.json | head -n1)
in2=$(find a2 -name inputs.json | head -n1)
[ -n "$in1" ] && [ -n "$in2" ] || fail "no inputs.json"
cmp "$in1" "$in2" || fail "inputs.json differs between two identical runs"
python3 - "$in1" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))["data"]
assert len(d) == 5, len(d)
bodies = [e["payload"][0] for e in d]
for b in bodies:
    # no stream_options: GenAI-Perf never sends it (genperf's server usage is opt-in)
    assert list(b) == ["model", "messages", "stream", "max_tokens", "min_tokens",
                       "ignore_eos", "temperature"], list(b)
    assert b["max_tokens"] == 12 and b["min_tokens"] == 12 and b["ignore_eos"] is True
    c = b["messages"][0]["content"]
    # builtin: 1 token per byte. ISL counts the prefix: f"{prefix} {prompt}" is
    # exactly 16 + 40 tokens (with the builtin tokenizer the join space is one of them)
    assert len(c.encode()) == 16 + 40, (len(c), c)
    assert c[16] == " " and "  " not in c, c
assert len({b["messages"][0]["content"] for b in bodies}) == 5
assert len({b["messages"][0]["content"][:16] for b in bodies}) <= 2
print("inputs.json ok")
PY
gp=$(find a1 -name '*_genai_perf.json' | head -n1)
[ -n "$gp" ] || fail "no *_genai_perf.json"
isl=$(json_get "$gp" 'd["input_sequence_length"]["min"], d["input_sequence_length"]["max"]')
[ "$isl" = "56.0 56.0" ] || fail "reported ISL min/max $isl, want 56.0 56.0"
echo "reported ISL 56 (16 prefix + 40) for every request"
