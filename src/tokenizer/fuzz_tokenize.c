/* tokenizer/fuzz_tokenize.c — fuzz target: encode arbitrary bytes (invalid
 * UTF-8 included), decode the ids, and re-encode the decoded text, with the
 * tokenizer.json named by $GP_FUZZ_TOKENIZER (default: the built-in one).
 * Build: make fuzz-tokenizer; run: GP_FUZZ_TOKENIZER=.cache/tokenizers/llama3
 * build/fuzz/tokenizer_encode -max_len=4096.
 * The tokenizer is loaded once and kept for the process (a fuzz harness, not
 * library code). */
#include "core/buf.h"
#include "core/error.h"
#include "tokenizer/tokenizer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct gp_tokenizer *tok;
    if (!tok) {
        const char *spec = getenv("GP_FUZZ_TOKENIZER");
        struct gp_error err = {0};
        if (gp_tokenizer_load(spec && *spec ? spec : "builtin", NULL, &tok, &err)) {
            fprintf(stderr, "fuzz_tokenize: %s\n", err.msg);
            abort();
        }
    }
    struct gp_ids ids = {0};
    struct gp_buf text = {0};
    int special = size && (data[0] & 1);
    if (gp_tokenizer_encode(tok, (const char *)data, size, special, &ids, NULL) == 0) {
        for (size_t i = 0; i < ids.n; i++)
            if (ids.v[i] >= gp_tokenizer_vocab_size(tok))
                abort();
        if (gp_tokenizer_decode(tok, ids.v, ids.n, size && (data[0] & 2), &text, NULL) == 0) {
            ids.n = 0;
            (void)gp_tokenizer_encode(tok, text.data ? text.data : "", text.len, 0, &ids, NULL);
        }
    }
    gp_ids_free(&ids);
    gp_buf_free(&text);
    return 0;
}
