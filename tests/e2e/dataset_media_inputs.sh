#!/usr/bin/env bash
# inputs.json of a multimodal workload holds PNG and JPEG data URLs of the
# asked sizes and WAV input_audio parts (headers read back with Python's
# stdlib, independently of genperf's encoders), in GenAI-Perf's part order;
# embeddings and rankings bodies have GenAI-Perf's keys.
set -u
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
gen="$GP_ROOT/${BUILD:-build}/bench/prompt_gen"
[ -x "$gen" ] || { echo "prompt_gen not built"; exit 1; }
cd "$TMPDIR"
"$gen" -n 3 --isl 12 --endpoint-type multimodal --image 64x48 --image-format png --batch-size-image 2 \
  --audio 0.5 --inputs png.json >/dev/null || exit 1
"$gen" -n 3 --isl 12 --endpoint-type multimodal --image 33x17 --image-format jpeg --inputs jpeg.json >/dev/null || exit 1
"$gen" -n 2 --isl 8 --endpoint-type embeddings -b 3 --inputs emb.json >/dev/null || exit 1
"$gen" -n 2 --isl 8 --endpoint-type rankings -b 2 --input-file synthetic:queries,passages --inputs rank.json >/dev/null || exit 1
if "$gen" -n 1 --isl 8 --endpoint-type embeddings --stream --inputs x.json 2>err.txt >/dev/null; then
  echo "embeddings accepted --streaming"; exit 1
fi
grep -q "not supported for openai_embeddings" err.txt || { cat err.txt; exit 1; }
python3 - <<'PY' || exit 1
import base64, json, struct

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

def parts(path):
    for e in json.load(open(path))["data"]:
        body = e["payload"][0]
        assert list(body) == ["model", "messages"], list(body)
        yield body["messages"][0]["content"]

for content in parts("png.json"):
    assert [p["type"] for p in content] == ["text", "image_url", "image_url", "input_audio"], content
    for p in content[1:3]:
        url = p["image_url"]["url"]
        assert url.startswith("data:image/png;base64,"), url[:40]
        assert png_size(base64.b64decode(url.split(",", 1)[1])) == (64, 48)
    a = content[3]["input_audio"]
    assert list(a) == ["data", "format"] and a["format"] == "wav"
    wav = base64.b64decode(a["data"])
    assert wav[:4] == b"RIFF" and wav[8:16] == b"WAVEfmt "
    fmt, ch, rate, _, _, bits = struct.unpack("<HHIIHH", wav[20:36])
    assert (fmt, ch, rate, bits) == (1, 1, 16000, 16), (fmt, ch, rate, bits)
    assert struct.unpack("<I", wav[40:44])[0] == 8000 * 2 and len(wav) == 44 + 16000
for content in parts("jpeg.json"):
    url = content[1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    assert jpeg_size(base64.b64decode(url.split(",", 1)[1])) == (33, 17)
for e in json.load(open("emb.json"))["data"]:
    b = e["payload"][0]
    assert list(b) == ["model", "input"] and len(b["input"]) == 3, b
for e in json.load(open("rank.json"))["data"]:
    b = e["payload"][0]
    assert list(b) == ["query", "passages", "model"] and list(b["query"]) == ["text"], b
    assert len(b["passages"]) == 2 and all(list(p) == ["text"] for p in b["passages"])
print("multimodal PNG 64x48 x2 + WAV 0.5 s, JPEG 33x17, embeddings, rankings: GenAI-Perf shapes")
PY
