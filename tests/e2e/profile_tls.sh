#!/usr/bin/env bash
# https endpoints: a private CA through --cacert or $SSL_CERT_FILE /
# $CURL_CA_BUNDLE; without it verification fails each request with curl's
# reason; --insecure skips verification and says so.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
command -v openssl >/dev/null || { echo "openssl not available"; exit 77; }
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1 || fail "openssl req failed"
start_stub --tokens 3 --tls-cert cert.pem --tls-key key.pem
case "$URL" in https://*) ;; *) fail "stub is not https: $URL" ;; esac
run() { "$GENPERF" profile -m m --url "$URL" --endpoint-type chat --tokenizer builtin --isl 8 --request-count 3 "$@"; }

env -u SSL_CERT_FILE -u CURL_CA_BUNDLE "$GENPERF" profile -m m --url "$URL" --endpoint-type chat \
  --tokenizer builtin --isl 8 --request-count 3 --artifact-dir a0 >o0 2>e0 && fail "self-signed accepted without a CA"
grep -qi "certificate" e0 || { cat e0; fail "no certificate error"; }

run --cacert cert.pem --artifact-dir a1 >o1 2>e1 || { cat e1; fail "--cacert run failed"; }
SSL_CERT_FILE=$TMPDIR/cert.pem run --artifact-dir a2 >o2 2>e2 || { cat e2; fail "SSL_CERT_FILE ignored"; }
env -u SSL_CERT_FILE CURL_CA_BUNDLE=$TMPDIR/cert.pem "$GENPERF" profile -m m --url "$URL" --endpoint-type chat \
  --tokenizer builtin --isl 8 --request-count 3 --artifact-dir a3 >o3 2>e3 || { cat e3; fail "CURL_CA_BUNDLE ignored"; }
env -u SSL_CERT_FILE -u CURL_CA_BUNDLE "$GENPERF" profile -m m --url "$URL" --endpoint-type chat \
  --tokenizer builtin --isl 8 --request-count 3 --insecure --artifact-dir a4 >o4 2>e4 || { cat e4; fail "--insecure failed"; }
grep -q "warning: --insecure" e4 || fail "--insecure without a warning"
for d in a1 a2 a3 a4; do
  [ "$(json_get "$(ls $d/*/*_genperf.json)" 'd["requests"]["ok"]')" = 3 ] || fail "$d: not 3 ok requests"
done
# a CA bundle that does not exist: every request fails with curl's reason, exit 1
run --cacert /nonexistent/ca.pem --artifact-dir a5 >o5 2>e5 && fail "missing CA file accepted"
grep -qi "ca\|certificate" e5 || { cat e5; fail "no CA error"; }
echo ok
