#!/usr/bin/env bash
# tokenizer_hub: --tokenizer ORG/NAME downloads from $HF_ENDPOINT (a local fake
# hub) into the HF cache layout, is then served from the cache without network,
# honours --tokenizer-revision and HF_TOKEN, and fails clearly when offline.
set -u
command -v python3 >/dev/null || { echo "skipped: python3 not found (needed for the fake hub)"; exit 77; }
root=$TMPDIR/hub; mkdir -p "$root/acme/tiny/main" "$root/acme/tiny/v1"
# a tiny byte-level tokenizer: "ab" merges, main and v1 differ in one merge
mk() { cat <<JSON
{"added_tokens":[],"normalizer":null,"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"use_regex":true},
 "post_processor":null,"decoder":{"type":"ByteLevel"},
 "model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2,"\u0120":3},"merges":[$1]}}
JSON
}
mk '"a b"' >"$root/acme/tiny/main/tokenizer.json"
echo '{"add_bos_token":false}' >"$root/acme/tiny/main/tokenizer_config.json"
mk '' >"$root/acme/tiny/v1/tokenizer.json"
python3 "$GP_ROOT/tests/tokenizer/fake_hub.py" "$root" "$TMPDIR/url" "$TMPDIR/log" & pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
[ -s "$TMPDIR/url" ] || { echo "fake hub did not start"; exit 1; }
export HF_ENDPOINT=$(cat "$TMPDIR/url") HF_HOME=$TMPDIR/hf HF_TOKEN=secret123
unset HF_HUB_CACHE HUGGINGFACE_HUB_CACHE HF_HUB_OFFLINE
fail() { echo "FAIL: $*"; exit 1; }

out=$(printf 'ab ab\n' | "$GENPERF" tokenize --tokenizer acme/tiny) || fail "download run failed"
[ "$out" = "[2,3,2]" ] || fail "main: got $out"
repo=$HF_HOME/hub/models--acme--tiny
commit=$(cat "$repo/refs/main") || fail "no refs/main"
[ -f "$repo/snapshots/$commit/tokenizer.json" ] || fail "no snapshot file"
[ -L "$repo/snapshots/$commit/tokenizer.json" ] && ls "$repo/blobs/" | grep -q . || fail "snapshot is not a link into blobs/"
[ -f "$repo/snapshots/$commit/tokenizer_config.json" ] || fail "tokenizer_config.json not fetched"
grep -q "/acme/tiny/resolve/main/tokenizer.json Bearer secret123" "$TMPDIR/log" || fail "HF_TOKEN not sent: $(cat "$TMPDIR/log")"

out=$(printf 'ab ab\n' | "$GENPERF" tokenize --tokenizer acme/tiny --tokenizer-revision v1) || fail "v1 failed"
[ "$out" = "[0,1,3,0,1]" ] || fail "v1: got $out"

kill $pid; wait $pid 2>/dev/null
# from the cache, with the hub gone and offline
out=$(printf 'ab\n' | HF_HUB_OFFLINE=1 "$GENPERF" tokenize --tokenizer acme/tiny) || fail "cached run failed"
[ "$out" = "[2]" ] || fail "cached: got $out"
out=$(printf 'ab\n' | "$GENPERF" tokenize --tokenizer acme/tiny --offline --tokenizer-revision v1) || fail "cached v1 failed"
[ "$out" = "[0,1]" ] || fail "cached v1: got $out"
# offline and not cached: one clear error that says how to supply a file
err=$(printf 'ab\n' | "$GENPERF" tokenize --tokenizer acme/other --offline 2>&1) && fail "offline miss succeeded"
echo "$err" | grep -q -- "--tokenizer /path/to/tokenizer.json" || fail "unclear offline error: $err"
# hub gone, not cached: download error names the fix too
err=$(printf 'ab\n' | "$GENPERF" tokenize --tokenizer acme/other 2>&1) && fail "unreachable hub succeeded"
echo "$err" | grep -q -- "--tokenizer /path/to/tokenizer.json" || fail "unclear download error: $err"
echo "ok"
