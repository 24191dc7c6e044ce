// tests/engine/tokenize.mjs MODULES MODEL [--jsonl] < lines — the reference engine's own
// tokenization (llama.cpp, vocabulary only) of each stdin line, printed as a JSON
// array of ids without special tokens (text such as "<s>" is plain text), the format of `genperf tokenize`, so
// e2e/engine_tokenize can compare the two on the tokenizer corpus.
import fs from "node:fs";
import path from "node:path";
import {pathToFileURL} from "node:url";

const [modules, modelPath, mode] = process.argv.slice(2);
if (!modules || !modelPath) throw new Error("usage: node tokenize.mjs NODE_MODULES_DIR MODEL.gguf [--jsonl] < lines");
const jsonl = mode === "--jsonl"; // each line a JSON string (texts holding newlines), as genperf tokenize --jsonl
const {getLlama, LlamaLogLevel} =
  await import(pathToFileURL(path.join(modules, "node-llama-cpp", "dist", "index.js")).href);
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath, vocabOnly: true});
const lines = fs.readFileSync(0, "utf8").split("\n");
if (lines[lines.length - 1] === "") lines.pop();
process.stdout.write(lines.map((l) => JSON.stringify(model.tokenize(jsonl ? JSON.parse(l) : l))).join("\n") + (lines.length ? "\n" : ""));
