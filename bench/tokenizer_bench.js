// bench/tokenizer_bench.js TOKENIZER_JSON TEXT_FILE [MIN_SECONDS]
// Encode throughput of HF tokenizers (Rust, through the node binding), one
// call at a time (one thread), add_special_tokens=false, one line per call —
// the same work `genperf tokenize --bench` does. Prints one JSON line.
'use strict';
const fs = require('fs');
const path = require('path');
let tk;
try { tk = require('tokenizers'); } catch (e) {
  const root = process.env.GENPERF_CACHE || path.join(__dirname, '..', '.cache');
  tk = require(path.join(root, 'node', 'node_modules', 'tokenizers'));
}
(async () => {
  const [tokFile, textFile, minS] = process.argv.slice(2);
  const t0 = process.hrtime.bigint();
  const tok = tk.Tokenizer.fromFile(tokFile);
  const loadS = Number(process.hrtime.bigint() - t0) / 1e9;
  const lines = fs.readFileSync(textFile, 'utf8').split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const lineBytes = lines.map((l) => Buffer.byteLength(l, 'utf8'));
  const opts = { addSpecialTokens: false };
  for (let i = 0; i < Math.min(lines.length, 50); i++) await tok.encode(lines[i], null, opts); // warm up
  let bytes = 0, tokens = 0, iters = 0;
  const start = process.hrtime.bigint();
  let el = 0;
  do {
    for (let i = 0; i < lines.length; i++) {
      const e = await tok.encode(lines[i], null, opts);
      tokens += e.getIds().length;
      bytes += lineBytes[i];
    }
    iters++;
    el = Number(process.hrtime.bigint() - start) / 1e9;
  } while (el < Number(minS || 1));
  console.log(JSON.stringify({ impl: 'hf-tokenizers-node', bytes, tokens, seconds: el, iters,
    mb_per_s: bytes / el / 1e6, tokens_per_s: tokens / el, load_s: loadS }));
})().catch((e) => { console.error(e); process.exit(1); });
