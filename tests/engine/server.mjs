// tests/engine/server.mjs — the reference inference engine of genperf's test
// suite: an OpenAI-compatible HTTP server over llama.cpp (node-llama-cpp, CPU
// build), serving the tiny GGUF that tests/engine/make_gguf.py writes.
//
// Owns: /v1/chat/completions and /v1/completions (streaming and not), /v1/models,
// /health, Prometheus-style /metrics (vLLM's metric names), the request queue in
// front of the context's sequences, and the per-request log of the engine's own
// stamps (--log FILE, one JSON line per finished request).
//
// Usage: node server.mjs --modules DIR --model M.gguf [--port 0] [--port-file F]
//          [--log F] [--sequences 4] [--threads 1] [--ctx 1024] [--seed 29]
// DIR is the node_modules that scripts/fetch-engine.sh installs (an ES module
// does not look at NODE_PATH, so the path is given).
//
// What it measures honestly and what it fixes on purpose:
// - Every request is decoded by llama.cpp: its prompt is evaluated and every output
//   token is one forward pass of the model; several requests share one context
//   (one sequence each) and llama.cpp decodes them in the same batch.
// - max_tokens is honoured exactly and EOS is ignored (it can never be sampled).
// - Only whole-word tokens come out: the model is built so (make_gguf.py says
//   how), so the client's re-tokenized OSL can be checked against completion_tokens.
// - usage carries the engine's own counts: prompt_tokens is the number of tokens
//   evaluated for the prompt (BOS and chat template included), completion_tokens
//   the number of tokens sampled.
// - The log's stamps are wall-clock ns (the clock genperf's records use):
//   t_in when the request body has been read, t_first when the first token's
//   bytes were handed to the socket, t_last likewise for the last.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import {pathToFileURL} from "node:url";

function parseArgs(argv) {
  const o = {modules: null, model: null, port: 0, portFile: null, log: null, sequences: 4, threads: 1, ctx: 1024, seed: 29};
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i], v = argv[i + 1];
    const take = () => { if (v === undefined) throw new Error(`${k} needs a value`); i++; return v; };
    switch (k) {
      case "--modules": o.modules = take(); break;
      case "--model": o.model = take(); break;
      case "--port": o.port = Number(take()); break;
      case "--port-file": o.portFile = take(); break;
      case "--log": o.log = take(); break;
      case "--sequences": o.sequences = Number(take()); break;
      case "--threads": o.threads = Number(take()); break;
      case "--ctx": o.ctx = Number(take()); break;
      case "--seed": o.seed = Number(take()); break;
      default: throw new Error(`unknown argument ${k} (see the usage line at the top of server.mjs)`);
    }
  }
  if (!o.model) throw new Error("--model M.gguf is required (tests/engine/make_gguf.py writes one)");
  if (!o.modules) throw new Error("--modules DIR (node_modules holding node-llama-cpp) is required");
  return o;
}

// Wall-clock ns as a Number (µs resolution is what performance.now() gives).
const wallNs = () => Math.round((performance.timeOrigin + performance.now()) * 1e6);

const opt = parseArgs(process.argv.slice(2));
const {getLlama, LlamaLogLevel, TokenBias} =
  await import(pathToFileURL(path.join(opt.modules, "node-llama-cpp", "dist", "index.js")).href);
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath: opt.model});
// One ggml thread: on this 2-core host shared with other jobs, ggml's spinning
// barrier with 2 threads measured ~250 ms per token against 1-3 ms with one.
const context = await model.createContext({
  contextSize: opt.ctx * opt.sequences, sequences: opt.sequences, threads: opt.threads,
  batchSize: Math.min(512, opt.ctx * opt.sequences),
});
const free = [];
for (let i = 0; i < opt.sequences; i++) free.push(context.getSequence());

// EOS is ignored: it can never be sampled, so every request decodes max_tokens.
const bias = new TokenBias(model.tokenizer).set(model.tokens.eos, "never");
// Tokens the detokenizer reads as continuing a text (alone, it would drop a
// piece's leading space as at the start of a text).
const ctxTokens = model.tokenize("is");
const logStream = opt.log ? fs.createWriteStream(opt.log, {flags: "a"}) : null;

const stats = {running: 0, success: 0, promptTokens: 0, generationTokens: 0, nextId: 1};
const waiting = [];
function acquire() {
  if (free.length) return Promise.resolve(free.pop());
  return new Promise((resolve) => waiting.push(resolve));
}
function release(seq) {
  const next = waiting.shift();
  if (next) next(seq); else free.push(seq);
}

function contentText(c) {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.filter((p) => p && p.type === "text").map((p) => p.text ?? "").join("");
  return "";
}

// Llama 2's chat template: the prompt text and where it came from.
function chatPrompt(messages) {
  if (!Array.isArray(messages) || messages.length === 0) throw new Error("'messages' must be a non-empty array");
  let sys = "", text = "";
  for (const m of messages) {
    const c = contentText(m?.content);
    if (m?.role === "system") sys += c;
    else if (m?.role === "assistant") text += ` ${c} `;
    else {
      text += `[INST] ${sys ? `<<SYS>>\n${sys}\n<</SYS>>\n\n` : ""}${c} [/INST]`;
      sys = "";
    }
  }
  return text;
}

function promptTokens(kind, body) {
  let text;
  if (kind === "chat") text = chatPrompt(body.messages);
  else if (typeof body.prompt === "string") text = body.prompt;
  else if (Array.isArray(body.prompt) && body.prompt.every((p) => typeof p === "string")) text = body.prompt.join("");
  else throw new Error("'prompt' must be a string or an array of strings");
  // model.tokenize adds SentencePiece's space prefix, as the HF tokenizer's
  // Prepend normalizer does; BOS as llama.cpp's server adds it.
  return [model.tokens.bos, ...model.tokenize(text)];
}

function sendJson(res, status, obj) {
  const b = JSON.stringify(obj);
  res.writeHead(status, {"content-type": "application/json", "content-length": Buffer.byteLength(b)});
  res.end(b);
}

async function generate(kind, body, res, tIn, closed) {
  const id = stats.nextId++;
  const prompt = promptTokens(kind, body);
  const maxTokens = Number(body.max_tokens ?? body.max_completion_tokens ?? 16);
  if (!Number.isInteger(maxTokens) || maxTokens < 1) throw new Error("'max_tokens' must be a positive integer");
  if (prompt.length + maxTokens > opt.ctx)
    throw new Error(`prompt (${prompt.length} tokens) + max_tokens (${maxTokens}) exceeds the context of ${opt.ctx} (--ctx)`);
  const stream = body.stream === true;
  const usageInStream = stream && body.stream_options?.include_usage === true;
  const created = Math.floor(Date.now() / 1000);
  const rid = (kind === "chat" ? "chatcmpl-" : "cmpl-") + id;
  const modelName = typeof body.model === "string" ? body.model : "engine";
  const chunk = (choice) => JSON.stringify({
    id: rid, object: kind === "chat" ? "chat.completion.chunk" : "text_completion", created, model: modelName,
    choices: [{index: 0, ...choice}],
  });

  const tQueued = wallNs();
  const seq = await acquire();
  stats.running++;
  const tStart = wallNs();
  let tFirst = null, tLast = null, n = 0, text = "";
  try {
    if (stream) {
      res.writeHead(200, {"content-type": "text/event-stream", "cache-control": "no-cache"});
      if (kind === "chat") res.write(`data: ${chunk({delta: {role: "assistant", content: ""}, logprobs: null, finish_reason: null})}\n\n`);
    }
    const gen = seq.evaluate(prompt, {temperature: 1, seed: opt.seed + id, tokenBias: bias});
    for await (const tok of gen) {
      // The first token's leading space is dropped, as HF's Strip decoder and
      // llama.cpp's detokenizer do at the start of a text.
      let piece = model.detokenize([tok], false, ctxTokens);
      if (n === 0) piece = piece.replace(/^ /, "");
      n++;
      text += piece;
      if (stream) {
        res.write(`data: ${chunk(kind === "chat"
          ? {delta: {content: piece}, logprobs: null, finish_reason: null}
          : {text: piece, logprobs: null, finish_reason: null})}\n\n`);
      }
      const t = wallNs();
      if (tFirst === null) tFirst = t;
      tLast = t;
      if (n >= maxTokens || closed()) break;
    }
  } finally {
    await seq.clearHistory();
    stats.running--;
    release(seq);
  }
  const usage = {prompt_tokens: prompt.length, completion_tokens: n, total_tokens: prompt.length + n};
  if (stream) {
    res.write(`data: ${chunk(kind === "chat" ? {delta: {}, logprobs: null, finish_reason: "length"}
                                              : {text: "", logprobs: null, finish_reason: "length"})}\n\n`);
    if (usageInStream)
      res.write(`data: ${JSON.stringify({id: rid, object: kind === "chat" ? "chat.completion.chunk" : "text_completion",
                                          created, model: modelName, choices: [], usage})}\n\n`);
    res.end("data: [DONE]\n\n");
  } else {
    const choice = kind === "chat"
      ? {index: 0, message: {role: "assistant", content: text}, logprobs: null, finish_reason: "length"}
      : {index: 0, text, logprobs: null, finish_reason: "length"};
    sendJson(res, 200, {id: rid, object: kind === "chat" ? "chat.completion" : "text_completion",
                        created, model: modelName, choices: [choice], usage});
    tFirst = tLast = wallNs(); // a non-streamed answer leaves in one piece
  }
  stats.success++;
  stats.promptTokens += prompt.length;
  stats.generationTokens += n;
  logStream?.write(JSON.stringify({id: rid, endpoint: kind, stream, t_in: tIn, t_queued: tQueued, t_start: tStart,
                                   t_first: tFirst, t_last: tLast, prompt_tokens: prompt.length,
                                   completion_tokens: n, cancelled: closed()}) + "\n");
}

function metrics() {
  return [
    "# HELP vllm:num_requests_running Requests being decoded (holding a sequence of the context).",
    "# TYPE vllm:num_requests_running gauge",
    `vllm:num_requests_running{model_name="engine"} ${stats.running}`,
    "# HELP vllm:num_requests_waiting Requests queued for a free sequence.",
    "# TYPE vllm:num_requests_waiting gauge",
    `vllm:num_requests_waiting{model_name="engine"} ${waiting.length}`,
    "# TYPE vllm:request_success_total counter",
    `vllm:request_success_total{model_name="engine"} ${stats.success}`,
    "# TYPE vllm:prompt_tokens_total counter",
    `vllm:prompt_tokens_total{model_name="engine"} ${stats.promptTokens}`,
    "# TYPE vllm:generation_tokens_total counter",
    `vllm:generation_tokens_total{model_name="engine"} ${stats.generationTokens}`,
    "",
  ].join("\n");
}

const server = http.createServer((req, res) => {
  const url = req.url.split("?")[0];
  if (req.method === "GET" && url === "/metrics") {
    res.writeHead(200, {"content-type": "text/plain; version=0.0.4"});
    return res.end(metrics());
  }
  if (req.method === "GET" && url === "/health") return sendJson(res, 200, {status: "ok"});
  if (req.method === "GET" && url === "/v1/models")
    return sendJson(res, 200, {object: "list", data: [{id: "engine", object: "model", owned_by: "genperf-tests"}]});
  const kind = url === "/v1/chat/completions" ? "chat" : url === "/v1/completions" ? "completions" : null;
  if (req.method !== "POST" || !kind) return sendJson(res, 404, {error: {message: `no route ${req.method} ${url}`}});
  const parts = [];
  req.on("data", (d) => parts.push(d));
  req.on("end", () => {
    const tIn = wallNs();
    let body;
    try { body = JSON.parse(Buffer.concat(parts).toString("utf8")); }
    catch (e) { return sendJson(res, 400, {error: {message: `request body is not JSON: ${e.message}`}}); }
    let gone = false;
    res.on("close", () => { gone = !res.writableFinished; });
    generate(kind, body, res, tIn, () => gone).catch((e) => {
      if (!res.headersSent) sendJson(res, 400, {error: {message: e.message, type: "invalid_request_error"}});
      else res.end();
    });
  });
});
server.keepAliveTimeout = 60000;
server.listen(opt.port, "127.0.0.1", () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  if (opt.portFile) fs.writeFileSync(opt.portFile + ".tmp", url + "\n"), fs.renameSync(opt.portFile + ".tmp", opt.portFile);
  process.stderr.write(`engine: ${url} model ${opt.model}, ${opt.sequences} sequences, ${opt.threads} thread(s), ` +
                       `ctx ${opt.ctx} per sequence\n`);
});
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => { server.close(); logStream?.end(); process.exit(0); });
