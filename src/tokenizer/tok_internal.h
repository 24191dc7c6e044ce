/* tokenizer/tok_internal.h — the pieces of an HF tokenizer.json pipeline,
 * shared by the tok_*.c files of this module only (not a public interface).
 *
 * Owns: the component structs below. Everything hangs off struct gp_tokenizer
 * (tokenizer.c) and is freed by gp_tokenizer_free: each component has a
 * tk_*_free that releases what its loader allocated. The encode workspace
 * (struct tk_ws) belongs to the tokenizer and is reused across calls, which is
 * why one tokenizer must not be shared between threads.
 *
 * "Model space": for byte-level models (a ByteLevel pre-tokenizer) the BPE
 * works on raw bytes; the vocab is keyed by each token's bytes after undoing
 * the GPT-2 bytes_to_unicode map, so no mapped strings are built while
 * encoding. For SentencePiece-style models model space is the normalized UTF-8.
 */
#ifndef GP_TOKENIZER_TOK_INTERNAL_H
#define GP_TOKENIZER_TOK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <jansson.h>

#include "core/buf.h"
#include "core/utf8.h" /* gp_utf8_len / gp_utf8_cp / gp_utf8_enc: every tok_*.c walks UTF-8 */
#include "tokenizer/tokenizer.h"

struct gp_error;

/* ---- small utilities (tok_util.c; UTF-8 itself: core/utf8.h) ---- */
/* Also defined in tok_util.c: gp_ids_push / gp_ids_free, the public id
 * array of tokenizer.h (repeated here: every tok_*.c that appends ids needs
 * only this header and tok_util.c, not tokenizer.c). */
int gp_ids_push(struct gp_ids *ids, uint32_t id);
void gp_ids_free(struct gp_ids *ids);
uint64_t tk_hash(const void *p, size_t n);
/* 1 if s[0..n) is valid UTF-8. */
int tk_utf8_valid(const char *s, size_t n);
/* Appends s with every maximal invalid subsequence replaced by U+FFFD (as
 * WHATWG / Rust from_utf8_lossy do). */
int tk_utf8_lossy(struct gp_buf *out, const char *s, size_t n);
/* The inverse of GPT-2 bytes_to_unicode: code point -> byte (-1 = unmapped). */
int tk_cp_to_byte(uint32_t cp);
/* Unicode White_Space, as Rust char::is_whitespace. */
int tk_is_space(uint32_t cp);

/* A list of strings in one arena (decoder chains, pieces). */
struct tk_strs {
    struct gp_buf data;
    size_t *off, *len;
    size_t n, cap;
};
int tk_strs_push(struct tk_strs *s, const char *p, size_t n);
void tk_strs_reset(struct tk_strs *s);
void tk_strs_free(struct tk_strs *s);

/* ---- regex (tok_regex.c): PCRE2 with JIT, UTF+UCP, \s rewritten as HF's ---- */
struct tk_regex {
    pcre2_code *code;
    pcre2_match_data *md;
    int jit;       /* JIT compiled: match through the fast pcre2_jit_match */
};
/* literal: pattern is a plain string (Split/Replace {"String": ...}). */
int tk_regex_compile(struct tk_regex *re, const char *pat, size_t len, int literal,
                     const char *what, struct gp_error *err);
/* Next non-empty match at or after start: 1 found (*ms,*me), 0 none, <0 error. */
int tk_regex_next(struct tk_regex *re, const char *s, size_t n, size_t start, size_t *ms, size_t *me);
void tk_regex_free(struct tk_regex *re);

/* ---- normalizers (tok_norm.c) ---- */
enum tk_norm_kind { TK_N_SEQ, TK_N_NFC, TK_N_NFD, TK_N_NFKC, TK_N_NFKD, TK_N_PREPEND, TK_N_REPLACE,
                    TK_N_LOWERCASE, TK_N_STRIP };
struct tk_norm {
    enum tk_norm_kind kind;
    struct tk_norm *sub;  /* TK_N_SEQ: array of nsub */
    size_t nsub;
    char *a, *b;          /* PREPEND: a; REPLACE: a -> b (string pattern) */
    size_t alen, blen;
    int left, right;      /* STRIP */
};
int tk_norm_load(struct tk_norm *n, json_t *j, struct gp_error *err);
/* Normalizes s into out (out is reset first; s must not point into out or
 * alt). alt and scratch are work buffers the caller keeps across calls. */
int tk_norm_apply(const struct tk_norm *n, const char *s, size_t len, struct gp_buf *out,
                  struct gp_buf *alt, struct gp_buf *scratch);
void tk_norm_free(struct tk_norm *n);

/* ---- pre-tokenizers (tok_pretok.c) ---- */
enum tk_pre_kind { TK_P_SPLIT, TK_P_BYTELEVEL, TK_P_METASPACE };
enum tk_split_beh { TK_B_ISOLATED, TK_B_REMOVED, TK_B_MERGED_PREV, TK_B_MERGED_NEXT, TK_B_CONTIGUOUS };
enum tk_prepend { TK_PREPEND_ALWAYS, TK_PREPEND_FIRST, TK_PREPEND_NEVER };
struct tk_pre {
    enum tk_pre_kind kind;
    struct tk_regex re;        /* SPLIT; BYTELEVEL with use_regex */
    int has_re;
    enum tk_split_beh beh;
    int invert;
    int add_prefix_space;      /* BYTELEVEL */
    enum tk_prepend prepend;   /* METASPACE */
    int ms_split;              /* METASPACE split */
    char repl[8];              /* METASPACE replacement (UTF-8) */
    size_t repl_len;
};
/* Pieces of one text: byte ranges into a buffer. */
struct tk_pieces {
    size_t *off, *len;
    unsigned char *first;      /* 1 if the piece starts at original offset 0 */
    size_t n, cap;
};
int tk_pieces_push(struct tk_pieces *p, size_t off, size_t len, int first);
void tk_pieces_free(struct tk_pieces *p);
/* Loads a pre_tokenizer (a Sequence is flattened into pre[0..*n)). */
int tk_pre_load(json_t *j, struct tk_pre **pre, size_t *n, int *byte_level, struct gp_error *err);
/* Runs the pre-tokenizers over text (a buffer it may replace with bufs[1]):
 * on return, *text and *textlen hold the (possibly rewritten) text, and pieces the
 * pre-tokens. first: the text starts at original offset 0. */
int tk_pre_apply(const struct tk_pre *pre, size_t n, const char **text, size_t *textlen, int first,
                 struct tk_pieces *pieces, struct tk_pieces *tmp, struct gp_buf bufs[2]);
void tk_pre_free(struct tk_pre *pre, size_t n);

/* ---- BPE model (tok_bpe.c) ---- */
struct tk_cache_slot;
struct tk_bpe {
    /* model-space vocab: id -> bytes (mlen == UINT32_MAX: unreachable), and a hash */
    char *arena;
    size_t arena_len;
    uint32_t *moff, *mlen;
    uint32_t nid;              /* ids 0..nid-1 (sparse entries have mlen UINT32_MAX) */
    uint64_t *slots;           /* open addressing: hash tag << 32 | id+1, 0 = empty */
    size_t smask;
    /* merges: key a<<32|b -> rank<<32|new */
    uint64_t *mkey, *mval;
    size_t mmask;
    int byte_level;
    uint32_t byte_id[256];     /* byte-level: the id of each single byte (UINT32_MAX = none) */
    uint32_t bf_id[256];       /* byte_fallback: the id of <0xNN> */
    int byte_fallback, fuse_unk, ignore_merges;
    int64_t unk_id;            /* -1: none */
    int spm_split;             /* safe to split SPM words before "▁" after a non-"▁" */
    char spm_sp[8];
    size_t spm_sp_len;
    struct tk_cache_slot *cache;
    size_t cmask;
    /* workspace */
    struct tk_sym *sym;
    size_t symcap;
    struct tk_heap_ent *heap;
    size_t heapcap;
};
/* id_str: id -> token string as written in the file (for the model vocab). */
int tk_bpe_load(struct tk_bpe *m, json_t *model, int byte_level, struct gp_error *err);
int64_t tk_bpe_lookup(const struct tk_bpe *m, const char *s, size_t n);
/* Tokenizes one pre-token (model-space bytes) and appends its ids. */
int tk_bpe_word(struct tk_bpe *m, const char *s, size_t n, struct gp_ids *out);
void tk_bpe_free(struct tk_bpe *m);

/* ---- added tokens (tok_added.c) ---- */
struct tk_added_tok {
    char *content;             /* the pattern matched (normalized form when normalized) */
    size_t len;
    uint32_t id;
    unsigned char special, normalized, lstrip, rstrip, single_word;
};
struct tk_added {
    struct tk_added_tok *t;    /* sorted by first byte, then longest first */
    size_t n;
    uint32_t bstart[256], bcount[256]; /* the tokens starting with byte b */
};
/* Takes ownership of t[0..n) (contents included) and indexes them. */
int tk_added_init(struct tk_added *a, struct tk_added_tok *t, size_t n);
/* Finds the next added token in s at or after *pos (leftmost, then longest).
 * Returns the token index or -1; *ms, *me the span including lstrip/rstrip. */
/* pos is where the previous match ended (lstrip never reaches before it). */
long tk_added_next(const struct tk_added *a, const char *s, size_t n, size_t pos, size_t *ms, size_t *me);
void tk_added_free(struct tk_added *a);

/* ---- decoders (tok_decode.c) ---- */
enum tk_dec_kind { TK_D_SEQ, TK_D_BYTELEVEL, TK_D_BYTEFALLBACK, TK_D_FUSE, TK_D_STRIP, TK_D_REPLACE,
                   TK_D_METASPACE };
struct tk_dec {
    enum tk_dec_kind kind;
    struct tk_dec *sub;
    size_t nsub;
    char *a, *b;
    size_t alen, blen;
    uint32_t strip_cp;
    int start, stop;
    enum tk_prepend prepend;
    char repl[8];
    size_t repl_len;
};
int tk_dec_load(struct tk_dec *d, json_t *j, struct gp_error *err);
/* Runs the chain on the tokens in *cur; the result is in *cur again (tmp and
 * scratch are work space the caller keeps). */
int tk_dec_apply(const struct tk_dec *d, struct tk_strs **cur, struct tk_strs **tmp, struct gp_buf *scratch);
void tk_dec_free(struct tk_dec *d);

#endif
