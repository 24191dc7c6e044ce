// tests/tokenizer/ref.js — the reference: HF tokenizers (Rust) through its
// node binding. Writes the expected output of `genperf tokenize` for inputs.
//
//   node ref.js TOKENIZER_JSON OUTDIR NAME=FILE[:jsonl] ...
// For each input it writes OUTDIR/NAME.ids (add_special_tokens=false),
// NAME.ids_special (true), NAME.dec (decode(ids, false) as JSON strings) and
// NAME.dec_skip (decode(ids_special, true)). Text inputs are split on '\n'
// bytes and each line is read as UTF-8 the WHATWG way (invalid bytes become
// U+FFFD), which is what genperf does with invalid input too.
// The binding is found via NODE_PATH or GENPERF_CACHE/node/node_modules.
'use strict';
const fs = require('fs');
const path = require('path');
let tokenizers;
try { tokenizers = require('tokenizers'); } catch (e) {
  const root = process.env.GENPERF_CACHE || path.join(__dirname, '..', '..', '.cache');
  tokenizers = require(path.join(root, 'node', 'node_modules', 'tokenizers'));
}
const { Tokenizer } = tokenizers;

function readInputs(spec) {
  const [name, rest] = spec.split('=');
  const jsonl = rest.endsWith(':jsonl');
  const file = jsonl ? rest.slice(0, -6) : rest;
  const buf = fs.readFileSync(file);
  const texts = [];
  const dec = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  let start = 0;
  for (let i = 0; i <= buf.length; i++) {
    if (i === buf.length || buf[i] === 0x0a) {
      if (i === buf.length && start === i) break;
      const line = dec.decode(buf.subarray(start, i));
      texts.push(jsonl ? JSON.parse(line) : line);
      start = i + 1;
    }
  }
  return { name, texts };
}

(async () => {
  const [tokFile, outDir, ...inputs] = process.argv.slice(2);
  const tok = Tokenizer.fromFile(tokFile);
  fs.mkdirSync(outDir, { recursive: true });
  for (const spec of inputs) {
    const { name, texts } = readInputs(spec);
    const ids = [], idsS = [], dec = [], decS = [];
    for (const t of texts) {
      const e = await tok.encode(t, null, { addSpecialTokens: false });
      const es = await tok.encode(t, null, { addSpecialTokens: true });
      const a = Array.from(e.getIds()), b = Array.from(es.getIds());
      ids.push(JSON.stringify(a));
      idsS.push(JSON.stringify(b));
      dec.push(JSON.stringify(await tok.decode(a, false)));
      decS.push(JSON.stringify(await tok.decode(b, true)));
    }
    const w = (ext, arr) => fs.writeFileSync(path.join(outDir, `${name}.${ext}`), arr.map((x) => x + '\n').join(''));
    w('ids', ids); w('ids_special', idsS); w('dec', dec); w('dec_skip', decS);
  }
})().catch((e) => { console.error('ref.js: ' + (e && e.stack || e)); process.exit(1); });
