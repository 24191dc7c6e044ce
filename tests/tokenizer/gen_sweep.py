#!/usr/bin/env python3
"""tests/tokenizer/gen_sweep.py OUT.jsonl — a code-point sweep for the corpus test.

Every code point assigned in Unicode <= 14 (Python's unicodedata here is 14.0,
the version of PCRE2 10.42's tables; HF's Oniguruma knows Unicode 16, so
code points first assigned later would differ by design), surrogates
excluded, placed in contexts that exercise each regex branch, 48 per line.
"""
import json, sys, unicodedata

assert unicodedata.unidata_version.startswith("14."), "needs Unicode 14 tables (Python 3.11)"
cps = [c for c in range(1, 0x110000)
       if not (0xD800 <= c <= 0xDFFF) and unicodedata.category(chr(c)) not in ("Cn", "Cs", "Co")]
with open(sys.argv[1], "w", encoding="utf-8") as f:
    for i in range(0, len(cps), 48):
        parts = []
        for k, c in enumerate(cps[i:i + 48]):
            ch = chr(c)
            ctx = ("a{c}a", " {c}1", ".{c}.", "{c}{c}x", "'{c}", "\n{c} ", "{c}'s")[k % 7]
            parts.append(ctx.format(c=ch))
        f.write(json.dumps(" ".join(parts), ensure_ascii=False) + "\n")
