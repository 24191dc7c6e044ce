#!/usr/bin/env bash
# profile_endpoints: every --endpoint-type genperf speaks, end to end against
# `genperf serve` (vLLM and SGLang flavours): chat (the default streamed body
# has no stream_options; --server-usage adds it), completions (prompt list),
# embeddings and rankings (NIM and TEI forms; GenAI-Perf's request-only metric
# set and console titles), multimodal with PNG and JPEG images of the asked
# sizes and WAV clips (decoded from inputs.json with Python's stdlib), vision
# as its alias. The unsupported types are refused in one line.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
start_serve --quiet --zero-delay
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
base=(-m genperf-sim --tokenizer builtin -u "$URL" --isl 12 --request-count 4 --num-dataset-entries 4)
prof() { # name args...
  local name=$1; shift
  "$GENPERF" profile "${base[@]}" --artifact-dir "$TMPDIR/a.$name" "$@" >"$name.out" 2>"$name.err" ||
    { cat "$name.err"; fail "$name: exit $?"; }
  RUN=$(find "$TMPDIR/a.$name" -mindepth 1 -maxdepth 1 -type d | head -n1)
  [ -n "$RUN" ] || fail "$name: no run directory"
  ln -sfn "$RUN" "$TMPDIR/r.$name"
}
prof chat --endpoint-type chat --streaming --osl 4
prof usage --endpoint-type chat --streaming --osl 4 --server-usage
prof cmpl --endpoint-type completions --osl 4 -b 2
prof emb --endpoint-type embeddings -b 3
prof rank --endpoint-type rankings -b 2 --input-file synthetic:queries,passages
prof tei --endpoint-type rankings -b 2 --input-file synthetic:queries,passages --extra-inputs rankings:tei
prof png --endpoint-type multimodal --osl 4 --image-width-mean 40 --image-height-mean 24 --image-format png \
  --batch-size-image 2 --audio-length-mean 0.25 --audio-sample-rates 8 --audio-depths 8 --audio-num-channels 2
prof jpeg --endpoint-type vision --osl 4 --streaming --image-width-mean 31 --image-height-mean 17 --image-format jpeg
grep -q "NVIDIA GenAI-Perf | Embeddings Metrics" emb.out || { cat emb.out; fail "embeddings console title"; }
grep -q "NVIDIA GenAI-Perf | Rankings Metrics" rank.out || fail "rankings console title"
grep -q "NVIDIA GenAI-Perf | Multi-Modal Metrics" png.out || fail "multimodal console title"
grep -q "NVIDIA GenAI-Perf | LLM Metrics" jpeg.out || fail "vision keeps GenAI-Perf's LLM title"
grep -q "Token" emb.out && fail "embeddings console has token rows"
python3 - "$TMPDIR" <<'PY' || fail "artifact checks"
import base64, glob, json, os, struct, sys
tmp = sys.argv[1]
def run(name):
    return os.path.realpath(os.path.join(tmp, "r." + name))
def one(name, pat):
    hits = glob.glob(os.path.join(run(name), pat))
    assert len(hits) == 1, (name, pat, hits)
    return hits[0]
def inputs(name):
    return [e["payload"][0] for e in json.load(open(one(name, "inputs.json")))["data"]]
def stats(name):
    return json.load(open(one(name, "*_genai_perf.json")))

# chat: GenAI-Perf's body, no stream_options unless --server-usage
for b in inputs("chat"):
    assert "stream_options" not in b and b["stream"] is True, b
for b in inputs("usage"):
    assert b["stream_options"] == {"include_usage": True}, b
# completions: prompt as a list of -b texts
for b in inputs("cmpl"):
    assert isinstance(b["prompt"], list) and len(b["prompt"]) == 2, b
assert stats("cmpl")["request_count"]["avg"] == 4
# embeddings and rankings: request metrics only, every request answered
for name, path in (("emb", "v1/embeddings"), ("rank", "v1/ranking"), ("tei", "v1/ranking")):
    s = stats(name)
    keys = [k for k in s if k not in ("input_config", "telemetry_stats")]
    assert keys == ["request_throughput", "request_latency", "request_count"], (name, keys)
    assert s["request_count"]["avg"] == 4, (name, s["request_count"])
    assert s["request_latency"]["avg"] > 0
    assert s["input_config"]["endpoint"]["custom"] == path
    pe = json.load(open(one(name, "profile_export.json")))
    assert pe["endpoint"] == path, pe["endpoint"]
    for r in pe["experiments"][0]["requests"]:
        resp = json.loads(r["response_outputs"][0]["response"])
        if name == "emb":
            assert len(resp["data"]) == 3 and resp["usage"]["prompt_tokens"] > 0, resp
        elif name == "rank":
            assert sorted(x["index"] for x in resp["rankings"]) == [0, 1], resp
        else:
            assert isinstance(resp, list) and sorted(x["index"] for x in resp) == [0, 1], resp
    csv = open(one(name, "*_genai_perf.csv")).read()
    assert "Token" not in csv and "Request Latency (ms)" in csv, csv
for b in inputs("emb"):
    assert list(b) == ["input", "model"] or set(b) == {"input", "model"}, b
    assert len(b["input"]) == 3
for b in inputs("rank"):
    assert "query" in b and len(b["passages"]) == 2, b
for b in inputs("tei"):
    assert "texts" in b and "model" not in b, b
assert stats("emb")["input_config"]["endpoint"]["output_format"] == "openai_embeddings"

# multimodal: images of the asked sizes, WAV clips as asked; requests answered
def png_size(b):
    assert b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR", "not a PNG"
    return struct.unpack(">II", b[16:24])
def jpeg_size(b):
    assert b[:2] == b"\xff\xd8", "not a JPEG"
    i = 2
    while i < len(b):
        marker, seg = b[i + 1], struct.unpack(">H", b[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            h, w = struct.unpack(">HH", b[i + 5:i + 9])
            return w, h
        i += 2 + seg
    raise AssertionError("no SOF marker")
for b in inputs("png"):
    parts = b["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url", "input_audio"], parts
    for p in parts[1:3]:
        url = p["image_url"]["url"]
        assert url.startswith("data:image/png;base64,")
        assert png_size(base64.b64decode(url.split(",", 1)[1])) == (40, 24)
    wav = base64.b64decode(parts[3]["input_audio"]["data"])
    fmt, ch, rate, _, _, bits = struct.unpack("<HHIIHH", wav[20:36])
    assert wav[:4] == b"RIFF" and (fmt, ch, rate, bits) == (1, 2, 8000, 8), (fmt, ch, rate, bits)
for b in inputs("jpeg"):
    url = b["messages"][0]["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    assert jpeg_size(base64.b64decode(url.split(",", 1)[1])) == (31, 17)
for name in ("png", "jpeg"):
    s = stats(name)
    assert s["request_count"]["avg"] == 4 and s["output_sequence_length"]["avg"] == 4, (name, s.get("request_count"))
    assert s["input_config"]["endpoint"]["output_format"] == "openai_multimodal"
assert stats("png")["input_config"]["input"]["image"] == {"width": {"mean": 40, "stddev": 0},
    "height": {"mean": 24, "stddev": 0}, "batch_size": 2, "format": "png"}
assert stats("jpeg")["input_config"]["endpoint"]["type"] == "vision"
assert os.path.basename(run("jpeg")) == "genperf-sim-openai-vision-concurrency1"
PY
for t in kserve tensorrtllm_engine dynamic_grpc template generate huggingface_generate image_retrieval nvclip; do
  "$GENPERF" profile -m m --endpoint-type $t >out.txt 2>err.txt; rc=$?
  [ $rc -eq 1 ] || fail "--endpoint-type $t: exit $rc, want 1"
  grep -q "it speaks chat, completions, embeddings, rankings, multimodal, vision, responses (OpenAI-compatible HTTP) and anthropic_messages" err.txt ||
    { cat err.txt; fail "--endpoint-type $t message"; }
done
echo ok
