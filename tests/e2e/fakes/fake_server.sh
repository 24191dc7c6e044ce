#!/usr/bin/env bash
# Shared body of the fake vllm / trtllm-serve / python3 executables used by the
# runner's end-to-end tests: records argv (one word per line, then "--") to
# $FAKE_ARGV_LOG and becomes `genperf serve` in the right flavour on the port
# the recipe passed. FAKE_MODE=never-ready keeps the port closed forever;
# FAKE_MODE=crash exits at once with an error, like a server that cannot load.
# It serves the name the real engine would: --served-model-name when given
# (vLLM, SGLang), else the model argument; FAKE_STRICT=1 adds --strict-model so
# a request naming any other model gets vLLM's 404.
# --enable-auto-tool-choice in argv is passed on, so the vLLM flavour answers
# tool_choice "auto" only when the recipe added it, as vLLM does.
flavor=$1; shift
{ printf '%s\n' "$@"; echo --; } >> "${FAKE_ARGV_LOG:-/dev/null}"
port=""
prev=""
tools=()
served=""
case $flavor in
  vllm) model=$2 ;;    # vllm serve MODEL ...
  trtllm) model=$1 ;;  # trtllm-serve MODEL ...
  *) model="" ;;
esac
for a in "$@"; do
  [ "$prev" = "--port" ] && port=$a
  [ "$prev" = "--model-path" ] && model=$a
  [ "$prev" = "--served-model-name" ] && served=$a
  # vLLM answers tool_choice "auto" only when started with this (and a parser)
  [ "$a" = "--enable-auto-tool-choice" ] && tools=(--enable-auto-tool-choice)
  prev=$a
done
# trtllm-serve serves a local model directory under its name (openai_server.py)
[ "$flavor" = trtllm ] && [ -d "$model" ] && model=$(basename "$model")
[ -n "$served" ] || served=$model
echo "fake $flavor starting on port $port"
case "${FAKE_MODE:-}" in
  never-ready) echo "loading weights (forever)"; exec sleep 600 ;;
  crash) echo "RuntimeError: CUDA out of memory (fake)"; exit 3 ;;
esac
exec "$GENPERF" serve --flavor "$flavor" --port "$port" --host 127.0.0.1 --ttft-ms 2 --itl-ms 1 \
  ${served:+--model "$served"} ${FAKE_STRICT:+--strict-model} ${tools[@]+"${tools[@]}"}
