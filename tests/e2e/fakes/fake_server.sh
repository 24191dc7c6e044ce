#!/usr/bin/env bash
# Shared body of the fake vllm / trtllm-serve / python3 executables used by the
# runner's end-to-end tests: records argv (one word per line, then "--") to
# $FAKE_ARGV_LOG and becomes `genperf serve` in the right flavour on the port
# the recipe passed. FAKE_MODE=never-ready keeps the port closed forever;
# FAKE_MODE=crash exits at once with an error, like a server that cannot load.
flavor=$1; shift
{ printf '%s\n' "$@"; echo --; } >> "${FAKE_ARGV_LOG:-/dev/null}"
port=""
prev=""
tools=()
for a in "$@"; do
  [ "$prev" = "--port" ] && port=$a
  # vLLM answers tool_choice "auto" only when started with this (and a parser)
  [ "$a" = "--enable-auto-tool-choice" ] && tools=(--enable-auto-tool-choice)
  prev=$a
done
echo "fake $flavor starting on port $port"
case "${FAKE_MODE:-}" in
  never-ready) echo "loading weights (forever)"; exec sleep 600 ;;
  crash) echo "RuntimeError: CUDA out of memory (fake)"; exit 3 ;;
esac
exec "$GENPERF" serve --flavor "$flavor" --port "$port" --host 127.0.0.1 --ttft-ms 2 --itl-ms 1 ${tools[@]+"${tools[@]}"}
