/* dataset/promptgen.c — safe-vocabulary scan and exact-count prompt text (method in promptgen.h). */
#include "dataset/promptgen.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/rng.h"
#include "tokenizer/tokenizer.h"

#include <stdlib.h>
#include <string.h>

/* Below this many word pieces the vocabulary is not a word vocabulary (the
 * builtin byte tokenizer has none) and we use single characters instead. */
#define MIN_WORD_PIECES 256
#define MAX_PIECE_LEN 48
#define REPAIR_ROUNDS 16
#define MAX_RESTARTS 64

struct piece {
    uint32_t off;
    uint8_t len;
    uint8_t first_ok; /* text without its leading space is still one token */
    uint8_t space;    /* the bare " " piece of the fallback alphabet */
};

struct gp_promptgen {
    struct gp_tokenizer *tok;
    char *pool;
    struct piece *p;
    size_t n;
    uint32_t *first; /* indices into p usable as the first piece of a prompt */
    size_t nfirst;
    int words;
    size_t max_len; /* longest piece, to reserve output space once per batch */
    int additive;   /* word-piece texts provably re-encode piece by piece (see calibrate) */
    enum gp_promptgen_verify verify;
    size_t *ends; /* working: end offset in the output of each placed piece */
    size_t ends_cap;
    uint32_t *placed; /* working: which piece was placed */
};

size_t gp_promptgen_pieces(const struct gp_promptgen *g, int *word_pieces)
{
    if (word_pieces)
        *word_pieces = g->words;
    return g->n;
}

void gp_promptgen_free(struct gp_promptgen *g)
{
    if (!g)
        return;
    free(g->pool);
    free(g->p);
    free(g->first);
    free(g->ends);
    free(g->placed);
    free(g);
}

static int is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* 1 = word piece " [A-Za-z]+", 2 = fallback char [a-z] or " ", 0 = neither. */
static int classify(const char *s, size_t n)
{
    if (n >= 2 && n <= MAX_PIECE_LEN && s[0] == ' ') {
        for (size_t i = 1; i < n; i++)
            if (!is_alpha((unsigned char)s[i]))
                return 0;
        return 1;
    }
    if (n == 1 && ((s[0] >= 'a' && s[0] <= 'z') || s[0] == ' '))
        return 2;
    return 0;
}

struct cand {
    uint32_t off;
    uint8_t len, first_ok, space, kind;
};

static int calibrate(struct gp_promptgen *g, struct gp_error *err);

/* The vocabulary scan's state, from the anchor probe to the candidate list.
 * Everything in it is freed by scan_free; the pool is stolen by the
 * generator when the scan succeeds. */
struct vocab_scan {
    struct gp_tokenizer *tok;
    const char *src;          /* the tokenizer's name, for error messages */
    char atext[64];           /* the anchor token's text */
    size_t alen;
    int use_anchor;
    uint32_t ids[2];          /* [anchor,] id: what is decoded for each id */
    long base;                /* tokens in "a" */
    struct gp_buf dec, pool, probe;
    struct cand *c;
    size_t nc, capc, nwords, nchars;
    int spanning;             /* ids whose text holds a letter followed by a space */
};

static void scan_free(struct vocab_scan *sc)
{
    free(sc->c);
    gp_buf_free(&sc->dec);
    gp_buf_free(&sc->pool);
    gp_buf_free(&sc->probe);
}

/* Scan step 1: the anchor. With a one-token anchor in front, decoders that
 * strip a leading space (SentencePiece's Strip / Metaspace) keep the piece's
 * own space, so each id is decoded after it and the anchor's text cut off. */
static int scan_anchor(struct vocab_scan *sc, struct gp_error *err)
{
    struct gp_ids anchor = {0};
    struct gp_error lerr = {0};
    int rc = 0;
    if (gp_tokenizer_encode(sc->tok, "a", 1, 0, &anchor, &lerr) < 0) {
        rc = gp_err(err, lerr.code ? lerr.code : GP_EINVAL,
                    "tokenizer '%s': cannot encode a probe text: %s", sc->src, lerr.msg);
        goto out;
    }
    sc->use_anchor = anchor.n == 1;
    if (sc->use_anchor) {
        if (gp_tokenizer_decode(sc->tok, anchor.v, 1, 0, &sc->dec, &lerr) < 0) {
            rc = gp_err(err, GP_EINVAL, "tokenizer '%s': cannot decode a probe token: %s", sc->src, lerr.msg);
            goto out;
        }
        sc->alen = sc->dec.len < sizeof sc->atext ? sc->dec.len : 0;
        memcpy(sc->atext, sc->dec.data, sc->alen);
        sc->use_anchor = sc->alen > 0;
        sc->ids[0] = anchor.v[0];
    }
out:
    gp_ids_free(&anchor);
    return rc;
}

/* Appends a candidate piece: its text goes to the pool, its facts to c. */
static int scan_push(struct vocab_scan *sc, const char *s, size_t n, int kind, int first_ok, struct gp_error *err)
{
    if (sc->nc == sc->capc) {
        size_t ncap = sc->capc ? sc->capc * 2 : 1024;
        struct cand *nn = realloc(sc->c, ncap * sizeof *nn);
        if (!nn)
            return gp_err(err, GP_ENOMEM, "out of memory scanning the vocabulary of '%s'", sc->src);
        sc->c = nn;
        sc->capc = ncap;
    }
    sc->c[sc->nc] = (struct cand){(uint32_t)sc->pool.len, (uint8_t)n, (uint8_t)first_ok,
                                  (uint8_t)(s[0] == ' ' && n == 1), (uint8_t)kind};
    if (gp_buf_append(&sc->pool, s, n))
        return gp_err(err, GP_ENOMEM, "out of memory scanning the vocabulary of '%s'", sc->src);
    sc->nc++;
    if (kind == 1)
        sc->nwords++;
    else
        sc->nchars++;
    return 0;
}

/* Scan step 2, for one id: keeps it as a candidate if its text is a word
 * piece or fallback char (classify) that adds exactly one token in context. */
static int scan_id(struct vocab_scan *sc, size_t id, struct gp_error *err)
{
    gp_buf_reset(&sc->dec);
    sc->ids[sc->use_anchor] = (uint32_t)id;
    if (gp_tokenizer_decode(sc->tok, sc->ids, sc->use_anchor ? 2 : 1, 0, &sc->dec, NULL) < 0)
        return 0;
    if (sc->use_anchor && (sc->dec.len <= sc->alen || memcmp(sc->dec.data, sc->atext, sc->alen) != 0))
        return 0;
    const char *s = sc->dec.data + sc->alen;
    size_t n = sc->dec.len - sc->alen;
    /* A token that could straddle the join of two word pieces ("x y")
     * would make counts non-additive; special tokens included, since
     * added-token matching ignores pre-token boundaries. */
    for (size_t k = 0; k + 1 < n && !sc->spanning; k++)
        if (is_alpha((unsigned char)s[k]) && s[k + 1] == ' ')
            sc->spanning = 1;
    if (gp_tokenizer_is_special(sc->tok, (uint32_t)id))
        return 0;
    int kind = classify(s, n);
    if (!kind)
        return 0;
    /* Context check: the piece adds exactly one token after "a". */
    gp_buf_reset(&sc->probe);
    if (gp_buf_putc(&sc->probe, 'a') || gp_buf_append(&sc->probe, s, n))
        return gp_err(err, GP_ENOMEM, "out of memory scanning the vocabulary of '%s'", sc->src);
    if (gp_tokenizer_count(sc->tok, sc->probe.data, sc->probe.len) != sc->base + 1)
        return 0;
    int first_ok = 0;
    if (kind == 1)
        first_ok = gp_tokenizer_count(sc->tok, s + 1, n - 1) == 1;
    else
        first_ok = s[0] != ' ';
    return scan_push(sc, s, n, kind, first_ok, err);
}

/* Step 3: the generator, from word pieces when the vocabulary has enough of
 * them, else from single characters. Refused when no prompt could start. */
static int build_generator(struct vocab_scan *sc, struct gp_promptgen **out, struct gp_error *err)
{
    int want = sc->nwords >= MIN_WORD_PIECES ? 1 : 2;
    struct gp_promptgen *g = calloc(1, sizeof *g);
    if (!g)
        return gp_err(err, GP_ENOMEM, "out of memory");
    size_t keep = want == 1 ? sc->nwords : sc->nchars;
    g->tok = sc->tok;
    g->words = want == 1;
    g->p = malloc((keep ? keep : 1) * sizeof *g->p);
    g->first = malloc((keep ? keep : 1) * sizeof *g->first);
    if (!g->p || !g->first) {
        gp_promptgen_free(g);
        return gp_err(err, GP_ENOMEM, "out of memory");
    }
    const struct cand *c = sc->c;
    for (size_t i = 0; i < sc->nc; i++) {
        if (c[i].kind != want)
            continue;
        if (c[i].first_ok)
            g->first[g->nfirst++] = (uint32_t)g->n;
        if (c[i].len > g->max_len)
            g->max_len = c[i].len;
        g->p[g->n++] = (struct piece){c[i].off, c[i].len, c[i].first_ok, c[i].space};
    }
    if (g->nfirst == 0 || g->n < 2) {
        gp_promptgen_free(g);
        return gp_err(err, GP_ENOTSUP,
                      "tokenizer '%s': found no safe vocabulary for synthetic prompts (%zu word pieces, %zu "
                      "letters); use --input-file with your own prompts",
                      sc->src, sc->nwords, sc->nchars);
    }
    /* 16 bytes of slack for place()'s fixed-size copies */
    if (gp_buf_append(&sc->pool, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16)) {
        gp_promptgen_free(g);
        return gp_err(err, GP_ENOMEM, "out of memory");
    }
    g->pool = gp_buf_steal(&sc->pool);
    *out = g;
    return 0;
}

int gp_promptgen_new(struct gp_tokenizer *tok, struct gp_promptgen **out, struct gp_error *err)
{
    *out = NULL;
    struct vocab_scan sc = {.tok = tok, .src = gp_tokenizer_source(tok)};
    int rc = scan_anchor(&sc, err);
    if (!rc) {
        sc.base = gp_tokenizer_count(tok, "a", 1);
        size_t vocab = gp_tokenizer_vocab_size(tok);
        for (size_t id = 0; id < vocab && !rc; id++)
            rc = scan_id(&sc, id, err);
    }
    struct gp_promptgen *g = NULL;
    if (!rc && !(rc = build_generator(&sc, &g, err))) {
        g->verify = GP_PROMPTGEN_VERIFY;
        if (g->words && !sc.spanning && calibrate(g, err) == 1)
            g->additive = 1;
        *out = g;
    }
    scan_free(&sc);
    return rc;
}

static int ensure_ends(struct gp_promptgen *g, size_t n)
{
    if (n <= g->ends_cap)
        return 0;
    size_t nc = g->ends_cap ? g->ends_cap : 1024;
    while (nc < n)
        nc *= 2;
    size_t *e = realloc(g->ends, nc * sizeof *e);
    if (!e)
        return -1;
    g->ends = e;
    uint32_t *p = realloc(g->placed, nc * sizeof *p);
    if (!p)
        return -1;
    g->placed = p;
    g->ends_cap = nc;
    return 0;
}

/* Appends k pieces after the np already placed. The hot loop of workload
 * generation (41M iterations for 10,000 x 4,096 tokens): one reservation,
 * then fixed 16-byte copies for short pieces (the pool and the output have
 * 16 bytes of slack), and piece ends recorded only when a repair may need
 * them (track = 1). */
static int place(struct gp_promptgen *g, struct gp_rng *rng, struct gp_buf *out, size_t *np, size_t k,
                 int first_strips, int track)
{
    if ((track && ensure_ends(g, *np + k)) || gp_buf_reserve(out, k * g->max_len + 16))
        return -1;
    char *dst = out->data + out->len;
    const char *pool = g->pool;
    const struct piece *pieces = g->p;
    size_t at = *np;
    uint32_t prev = at && track ? g->placed[at - 1] : 0;
    int prev_space = at && track ? pieces[prev].space : 0;
    for (size_t j = 0; j < k; j++, at++) {
        uint32_t pi;
        if (at == 0) {
            pi = g->first[gp_rng_below(rng, g->nfirst)];
        } else {
            pi = (uint32_t)gp_rng_below(rng, g->n);
            /* Fallback alphabet: no run of spaces (it would merge into one
             * whitespace pre-token in real tokenizers and look odd), and no
             * trailing space (a prefix is joined to its prompt by one). */
            while (pieces[pi].space && (prev_space || j + 1 == k))
                pi = (uint32_t)gp_rng_below(rng, g->n);
        }
        const struct piece *p = &pieces[pi];
        const char *s = pool + p->off;
        size_t len = p->len;
        if (at == 0 && first_strips && s[0] == ' ') {
            s++;
            len--;
        }
        if (len <= 16)
            memcpy(dst, s, 16);
        else
            memcpy(dst, s, len);
        dst += len;
        prev_space = p->space;
        if (track) {
            g->placed[at] = pi;
            g->ends[at] = (size_t)(dst - out->data);
        }
    }
    *np = at;
    out->len = (size_t)(dst - out->data);
    out->data[out->len] = '\0';
    return 0;
}

/* Additivity check, run once per tokenizer after the vocabulary scan found no
 * token spanning a letter-space join. A token sequence is only ever split at
 * such joins if no token contains one (then no BPE merge, added-token match
 * or unigram piece can cross a join), and the per-piece context check showed
 * each piece is one token after a letter. The one thing the scan cannot see is
 * a pre-tokenizer that splits inside a word piece depending on what precedes
 * it; none of HF's regexes do (a letter run never continues across a space),
 * and this check confirms it on 4 x 4096 random pieces, i.e. every piece of a
 * typical vocabulary in a random left context. Returns 1 additive, 0 not,
 * <0 error. */
static int calibrate(struct gp_promptgen *g, struct gp_error *err)
{
    struct gp_buf b = {0};
    struct gp_rng r;
    gp_rng_seed_stream(&r, 0x6770, 0, 0);
    int ok = 1;
    for (int round = 0; round < 4 && ok; round++) {
        size_t np = 0;
        b.len = 0;
        if (place(g, &r, &b, &np, 4096, 1, 0)) {
            gp_buf_free(&b);
            return gp_err(err, GP_ENOMEM, "out of memory checking the tokenizer vocabulary");
        }
        ok = gp_tokenizer_count(g->tok, b.data, b.len) == 4096;
    }
    gp_buf_free(&b);
    return ok;
}

int gp_promptgen_additive(const struct gp_promptgen *g) { return g->additive; }

void gp_promptgen_set_verify(struct gp_promptgen *g, enum gp_promptgen_verify v) { g->verify = v; }

int gp_promptgen_text(struct gp_promptgen *g, struct gp_rng *rng, long ntokens, const char *head,
                      size_t head_len, struct gp_buf *out, struct gp_error *err)
{
    if (ntokens < 1)
        return gp_err(err, GP_EINVAL, "prompt length %ld: must be at least 1 token", ntokens);
    gp_buf_reset(out);
    long target = ntokens;
    size_t base_len = 0;
    if (head && head_len) {
        long hc = gp_tokenizer_count(g->tok, head, head_len);
        if (hc < 0)
            return gp_err(err, GP_EINVAL, "tokenizer '%s' failed to encode a prompt prefix",
                          gp_tokenizer_source(g->tok));
        target += hc;
        /* f"{prefix} {prompt}": the join space; the first piece then drops its own. */
        if (gp_buf_append(out, head, head_len) || gp_buf_putc(out, ' '))
            return gp_err(err, GP_ENOMEM, "out of memory generating a prompt");
        base_len = out->len;
    }
    for (int restart = 0; restart < MAX_RESTARTS; restart++) {
        out->len = base_len;
        if (out->data)
            out->data[base_len] = '\0';
        size_t np = 0;
        int trust = g->additive && g->verify == GP_PROMPTGEN_TRUST_ADDITIVE;
        if (place(g, rng, out, &np, (size_t)ntokens, 1, !trust))
            return gp_err(err, GP_ENOMEM, "out of memory generating a prompt of %ld tokens", ntokens);
        if (trust)
            return 0; /* exact by construction: n one-token pieces, no joins crossed */
        for (int round = 0; round < REPAIR_ROUNDS; round++) {
            long c = gp_tokenizer_count(g->tok, out->data, out->len);
            if (c < 0)
                return gp_err(err, GP_EINVAL, "tokenizer '%s' failed to encode a generated prompt",
                              gp_tokenizer_source(g->tok));
            if (c == target)
                return 0;
            if (c > target) {
                size_t drop = (size_t)(c - target);
                if (drop >= np)
                    break;
                np -= drop;
                out->len = g->ends[np - 1];
                out->data[out->len] = '\0';
            } else if (place(g, rng, out, &np, (size_t)(target - c), 1, 1)) {
                return gp_err(err, GP_ENOMEM, "out of memory generating a prompt of %ld tokens", ntokens);
            }
        }
    }
    return gp_err(err, GP_EINVAL,
                  "tokenizer '%s': could not build a prompt of exactly %ld tokens after %d attempts; "
                  "use another --synthetic-input-tokens-mean or --tokenizer",
                  gp_tokenizer_source(g->tok), ntokens, MAX_RESTARTS);
}

int gp_promptgen_blocks(struct gp_promptgen *g, uint64_t seed, const int64_t *ids, size_t nids, long block,
                        long ntokens, uint64_t salt, struct gp_buf *out, struct gp_error *err)
{
    if (ntokens < 1 || block < 1)
        return gp_err(err, GP_EINVAL, "prompt length %ld: must be at least 1 token", ntokens);
    gp_buf_reset(out);
    int trust = g->additive && g->verify == GP_PROMPTGEN_TRUST_ADDITIVE;
    struct gp_rng tail;
    gp_rng_seed_stream(&tail, seed, GP_RNG_TAIL, salt);
    size_t np = 0;
    long left = ntokens;
    for (size_t b = 0; left > 0; b++) {
        long k = left < block ? left : block;
        struct gp_rng r;
        struct gp_rng *use = &tail;
        if (b < nids) {
            gp_rng_seed_stream(&r, seed, GP_RNG_BLOCK, (uint64_t)ids[b]);
            use = &r;
        }
        if (place(g, use, out, &np, (size_t)k, 1, !trust))
            return gp_err(err, GP_ENOMEM, "out of memory generating a prompt of %ld tokens", ntokens);
        left -= k;
    }
    if (trust)
        return 0;
    for (int round = 0; round < REPAIR_ROUNDS * 4; round++) {
        long c = gp_tokenizer_count(g->tok, out->data, out->len);
        if (c < 0)
            return gp_err(err, GP_EINVAL, "tokenizer '%s' failed to encode a generated prompt",
                          gp_tokenizer_source(g->tok));
        if (c == ntokens)
            return 0;
        if (c > ntokens) {
            size_t drop = (size_t)(c - ntokens);
            if (drop >= np)
                break;
            np -= drop;
            out->len = g->ends[np - 1];
            out->data[out->len] = '\0';
        } else if (place(g, &tail, out, &np, (size_t)(ntokens - c), 1, 1)) {
            return gp_err(err, GP_ENOMEM, "out of memory generating a prompt of %ld tokens", ntokens);
        }
    }
    return gp_err(err, GP_EINVAL,
                  "tokenizer '%s': could not build a trace prompt of exactly %ld tokens; use another --tokenizer",
                  gp_tokenizer_source(g->tok), ntokens);
}
