/* tokenizer/tok_bpe.c — the BPE model, exactly as HF's models/bpe: merges
 * applied lowest rank first, leftmost on ties, with HF's own stale-entry test
 * (an entry is used if its pair still maps to the same new id), byte
 * fallback, unk fusion and ignore_merges; plus a direct-mapped word cache.
 *
 * Owns: the vocab arena and tables, the merge table, the cache and the merge
 * workspace (all freed by tk_bpe_free). Encoding allocates only when the
 * workspace must grow for a longer word than any before. */
#include "tokenizer/tok_internal.h"
#include "core/error.h"
#include "core/heap.h"

#include <stdlib.h>
#include <string.h>

#define CACHE_KMAX 40
#define CACHE_SLOTS 8192

struct tk_cache_slot {
    uint64_t h;
    uint16_t klen, nids;
    char key[CACHE_KMAX];
    uint32_t ids[CACHE_KMAX];
};

struct tk_sym {
    uint32_t id;
    int32_t prev, next;
    uint32_t alive;
};

struct tk_heap_ent {
    uint64_t key;   /* rank << 32 | pos */
    uint32_t new_id;
};

static size_t pow2_at_least(size_t n)
{
    size_t p = 16;
    while (p < n)
        p <<= 1;
    return p;
}

/* Converts a token string as written in tokenizer.json to model space. */
static int to_model(const char *s, size_t n, int byte_level, struct gp_buf *o)
{
    gp_buf_reset(o);
    if (!byte_level)
        return gp_buf_append(o, s, n);
    if (gp_buf_reserve(o, n)) /* each mapped char gives one byte: never longer */
        return -GP_ENOMEM;
    size_t i = 0, k = 0;
    while (i < n) {
        size_t l = gp_utf8_len((const unsigned char *)s + i, n - i);
        if (!l)
            return -1;
        size_t dl;
        int b = tk_cp_to_byte(gp_utf8_cp((const unsigned char *)s + i, &dl));
        if (b < 0)
            return -1;
        o->data[k++] = (char)b;
        i += l;
    }
    o->len = k;
    o->data[k] = 0;
    return 0;
}

int64_t tk_bpe_lookup(const struct tk_bpe *m, const char *s, size_t n)
{
    uint64_t h = tk_hash(s, n);
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = h & m->smask;; i = (i + 1) & m->smask) {
        uint64_t e = m->slots[i];
        if (!e)
            return -1;
        if ((uint32_t)(e >> 32) == tag) {
            uint32_t id = (uint32_t)e - 1;
            if (m->mlen[id] == n && !memcmp(m->arena + m->moff[id], s, n))
                return id;
        }
    }
}

static void vocab_insert(struct tk_bpe *m, uint32_t id)
{
    const char *s = m->arena + m->moff[id];
    size_t n = m->mlen[id];
    uint64_t h = tk_hash(s, n);
    uint64_t *slots = m->slots;
    for (size_t i = h & m->smask;; i = (i + 1) & m->smask) {
        if (!slots[i]) {
            slots[i] = ((h >> 32) << 32) | ((uint64_t)id + 1);
            return;
        }
        uint32_t o = (uint32_t)slots[i] - 1;
        if (m->mlen[o] == n && !memcmp(m->arena + m->moff[o], s, n))
            return; /* two strings with one model form: keep the first */
    }
}

static inline size_t merge_slot(const struct tk_bpe *m, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & m->mmask;
}

static inline int merge_get(const struct tk_bpe *m, uint32_t a, uint32_t b, uint32_t *rank, uint32_t *nid)
{
    uint64_t key = ((uint64_t)a << 32) | b;
    for (size_t i = merge_slot(m, key);; i = (i + 1) & m->mmask) {
        uint64_t k = m->mkey[i];
        if (k == key) {
            *rank = (uint32_t)(m->mval[i] >> 32);
            *nid = (uint32_t)m->mval[i];
            return 1;
        }
        if (k == UINT64_MAX)
            return 0;
    }
}

static void merge_put(struct tk_bpe *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t nid)
{
    uint64_t key = ((uint64_t)a << 32) | b;
    for (size_t i = merge_slot(m, key);; i = (i + 1) & m->mmask) {
        if (m->mkey[i] == UINT64_MAX || m->mkey[i] == key) {
            m->mkey[i] = key; /* a repeated pair: the later rank wins, as in HF */
            m->mval[i] = ((uint64_t)rank << 32) | nid;
            return;
        }
    }
}

static int64_t lookup_str(const struct tk_bpe *m, const char *s, size_t n, struct gp_buf *tmp)
{
    int r = to_model(s, n, m->byte_level, tmp);
    if (r)
        return r == -1 ? -1 : -2;
    return tk_bpe_lookup(m, tmp->data ? tmp->data : "", tmp->len);
}

/* Load step 1: the model's type and options. Everything that would make our
 * encoder disagree with HF (another model type, dropout, subword affixes) is
 * refused here, before anything is allocated. */
static int bpe_read_options(struct tk_bpe *m, json_t *model, struct gp_error *err)
{
    const char *type = json_string_value(json_object_get(model, "type"));
    if (!type || strcmp(type, "BPE") != 0)
        return gp_err(err, GP_ENOTSUP, "model type '%s' is not supported (only BPE)", type ? type : "(none)");
    json_t *dr = json_object_get(model, "dropout");
    if (dr && !json_is_null(dr) && json_number_value(dr) != 0.0)
        return gp_err(err, GP_ENOTSUP, "BPE dropout is not supported (it makes encoding random)");
    const char *csp = json_string_value(json_object_get(model, "continuing_subword_prefix"));
    const char *eow = json_string_value(json_object_get(model, "end_of_word_suffix"));
    if ((csp && *csp) || (eow && *eow))
        return gp_err(err, GP_ENOTSUP,
                      "BPE continuing_subword_prefix/end_of_word_suffix are not supported ('%s'/'%s')",
                      csp ? csp : "", eow ? eow : "");
    m->byte_fallback = json_is_true(json_object_get(model, "byte_fallback"));
    m->fuse_unk = json_is_true(json_object_get(model, "fuse_unk"));
    m->ignore_merges = json_is_true(json_object_get(model, "ignore_merges"));
    return 0;
}

/* Load step 2: a first pass over the vocab validates every id and sizes the
 * arena and tables, so that they are allocated once, at their final size.
 * Ids may have gaps: the tables span 0..max id, and a gap keeps mlen
 * UINT32_MAX ("no such token"). */
static int bpe_alloc_vocab(struct tk_bpe *m, json_t *vocab, struct gp_error *err)
{
    const char *k;
    json_t *v;
    size_t total = 0, count = 0;
    json_int_t maxid = -1;
    json_object_foreach(vocab, k, v) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 0x7fffffff)
            return gp_err(err, GP_EINVAL, "model.vocab['%.60s'] is not a valid id", k);
        if (json_integer_value(v) > maxid)
            maxid = json_integer_value(v);
        total += strlen(k);
        count++;
    }
    m->nid = (uint32_t)(maxid + 1);
    m->arena = malloc(total + 1);
    m->moff = malloc((m->nid + 1) * sizeof *m->moff);
    m->mlen = malloc((m->nid + 1) * sizeof *m->mlen);
    m->smask = pow2_at_least(count * 2 + 2) - 1;
    m->slots = calloc(m->smask + 1, sizeof(uint64_t));
    m->cmask = CACHE_SLOTS - 1;
    m->cache = calloc(CACHE_SLOTS, sizeof *m->cache);
    if (!m->arena || !m->moff || !m->mlen || !m->slots || !m->cache)
        return gp_err(err, GP_ENOMEM, "out of memory loading the vocab");
    for (uint32_t i = 0; i < m->nid; i++)
        m->mlen[i] = UINT32_MAX;
    return 0;
}

/* Load step 3: a second pass stores each token's model form (bytes, for a
 * byte-level model) in the arena and hashes it. The arena was sized from the
 * written forms, which are never shorter than the model forms. */
static int bpe_fill_vocab(struct tk_bpe *m, json_t *vocab, struct gp_buf *tmp, struct gp_error *err)
{
    const char *k;
    json_t *v;
    json_object_foreach(vocab, k, v) {
        uint32_t id = (uint32_t)json_integer_value(v);
        int r = to_model(k, strlen(k), m->byte_level, tmp);
        if (r == -GP_ENOMEM)
            return gp_err(err, GP_ENOMEM, "out of memory loading the vocab");
        if (r)
            continue; /* not byte-mapped: no pre-token can ever reach it */
        if (m->mlen[id] != UINT32_MAX)
            continue;
        m->moff[id] = (uint32_t)m->arena_len;
        m->mlen[id] = (uint32_t)tmp->len;
        memcpy(m->arena + m->arena_len, tmp->data, tmp->len);
        m->arena_len += tmp->len;
        vocab_insert(m, id);
    }
    return 0;
}

/* Load step 4: ids the encoder needs on every word, resolved once: the unk
 * token, each single byte's id (byte-level) and each "<0xNN>" byte-fallback
 * id (UINT32_MAX where the vocab has none). */
static int bpe_resolve_special(struct tk_bpe *m, json_t *model, struct gp_buf *tmp, struct gp_error *err)
{
    const char *unk = json_string_value(json_object_get(model, "unk_token"));
    if (unk) {
        m->unk_id = lookup_str(m, unk, strlen(unk), tmp);
        if (m->unk_id < 0)
            return gp_err(err, GP_EINVAL, "model.unk_token '%s' is not in the vocab", unk);
    }
    for (int b = 0; b < 256; b++) {
        char c = (char)b;
        m->byte_id[b] = UINT32_MAX;
        m->bf_id[b] = UINT32_MAX;
        if (m->byte_level) {
            int64_t id = tk_bpe_lookup(m, &c, 1);
            if (id >= 0)
                m->byte_id[b] = (uint32_t)id;
        }
        char name[8];
        snprintf(name, sizeof name, "<0x%02X>", b);
        int64_t id = lookup_str(m, name, 6, tmp);
        if (id >= 0)
            m->bf_id[b] = (uint32_t)id;
    }
    return 0;
}

/* Splits merges[i], written either "a b" or ["a","b"], into its two tokens.
 * Returns 0, 1 for the "#version" header line some files carry (skipped),
 * or an error. */
static int merge_parts(json_t *e, size_t i, const char **a, size_t *al, const char **b, size_t *bl,
                       struct gp_error *err)
{
    if (json_is_string(e)) {
        const char *s = json_string_value(e);
        size_t sl = json_string_length(e);
        if (sl >= 8 && !strncmp(s, "#version", 8))
            return 1;
        const char *sp = memchr(s, ' ', sl);
        if (!sp || memchr(sp + 1, ' ', sl - (size_t)(sp + 1 - s)))
            return gp_err(err, GP_EINVAL, "model.merges[%zu] '%.60s' is not two tokens separated by one space", i, s);
        *a = s; *al = (size_t)(sp - s);
        *b = sp + 1; *bl = sl - *al - 1;
        return 0;
    }
    if (json_is_array(e) && json_array_size(e) == 2 && json_is_string(json_array_get(e, 0)) &&
        json_is_string(json_array_get(e, 1))) {
        *a = json_string_value(json_array_get(e, 0)); *al = json_string_length(json_array_get(e, 0));
        *b = json_string_value(json_array_get(e, 1)); *bl = json_string_length(json_array_get(e, 1));
        return 0;
    }
    return gp_err(err, GP_EINVAL, "model.merges[%zu] is neither \"a b\" nor [\"a\",\"b\"]", i);
}

/* Load step 5: the merge table, pair of ids -> (rank, merged id). The rank is
 * the merge's index in the file, so HF's "lowest rank first" order holds. */
static int bpe_load_merges(struct tk_bpe *m, json_t *model, struct gp_buf *tmp, struct gp_error *err)
{
    json_t *merges = json_object_get(model, "merges");
    if (!json_is_array(merges))
        return gp_err(err, GP_EINVAL, "model.merges is missing or not an array");
    size_t nm = json_array_size(merges);
    m->mmask = pow2_at_least(nm * 2 + 2) - 1;
    m->mkey = malloc((m->mmask + 1) * sizeof *m->mkey);
    m->mval = malloc((m->mmask + 1) * sizeof *m->mval);
    if (!m->mkey || !m->mval)
        return gp_err(err, GP_ENOMEM, "out of memory loading merges");
    memset(m->mkey, 0xff, (m->mmask + 1) * sizeof *m->mkey);
    struct gp_buf cat = {0};
    int rc = 0;
    for (size_t i = 0; i < nm && !rc; i++) {
        const char *a = "", *b = ""; /* set by merge_parts; initialised for the compiler */
        size_t al = 0, bl = 0;
        int r = merge_parts(json_array_get(merges, i), i, &a, &al, &b, &bl, err);
        if (r == 1)
            continue;
        if (r) {
            rc = r;
            break;
        }
        int64_t ia = lookup_str(m, a, al, tmp), ib = lookup_str(m, b, bl, tmp), in = -1;
        if (ia >= 0 && ib >= 0) {
            /* the model form of a+b is the two model forms joined */
            gp_buf_reset(&cat);
            if (gp_buf_append(&cat, m->arena + m->moff[ia], m->mlen[ia]) ||
                gp_buf_append(&cat, m->arena + m->moff[ib], m->mlen[ib])) {
                rc = gp_err(err, GP_ENOMEM, "out of memory loading merges");
                break;
            }
            in = tk_bpe_lookup(m, cat.data ? cat.data : "", cat.len);
        }
        if (ia < 0 || ib < 0 || in < 0) {
            rc = gp_err(err, GP_EINVAL, "model.merges[%zu] ('%.40s' + '%.40s') uses a token that is not in the vocab",
                        i, a, b);
            break;
        }
        merge_put(m, (uint32_t)ia, (uint32_t)ib, (uint32_t)i, (uint32_t)in);
    }
    gp_buf_free(&cat);
    return rc;
}

/* Load step 6 (SentencePiece-style models only): words span a whole prompt.
 * If no token holds a "▁" right after another char that is not "▁", no merge
 * can cross such a point, so the word may be cut there without changing any
 * id; spm_split records whether that holds. */
static void bpe_detect_spm_split(struct tk_bpe *m)
{
    static const char SP[] = "\xE2\x96\x81";
    m->spm_split = tk_bpe_lookup(m, SP, 3) >= 0;
    for (uint32_t id = 0; m->spm_split && id < m->nid; id++) {
        if (m->mlen[id] == UINT32_MAX)
            continue;
        const char *s = m->arena + m->moff[id];
        size_t n = m->mlen[id];
        for (size_t p = 1; p + 3 <= n; p++)
            if (!memcmp(s + p, SP, 3) && !(p >= 3 && !memcmp(s + p - 3, SP, 3))) {
                m->spm_split = 0;
                break;
            }
    }
    memcpy(m->spm_sp, SP, 3);
    m->spm_sp_len = 3;
}

/* On error the tables built so far stay in m: the caller frees them with
 * tk_bpe_free, as before. */
int tk_bpe_load(struct tk_bpe *m, json_t *model, int byte_level, struct gp_error *err)
{
    memset(m, 0, sizeof *m);
    m->byte_level = byte_level;
    m->unk_id = -1;
    int rc = bpe_read_options(m, model, err);
    if (rc)
        return rc;
    json_t *vocab = json_object_get(model, "vocab");
    if (!json_is_object(vocab))
        return gp_err(err, GP_EINVAL, "model.vocab is missing or not an object");
    if ((rc = bpe_alloc_vocab(m, vocab, err)))
        return rc;
    struct gp_buf tmp = {0}; /* scratch for model forms, shared by the steps */
    if (!(rc = bpe_fill_vocab(m, vocab, &tmp, err)) && !(rc = bpe_resolve_special(m, model, &tmp, err)) &&
        !(rc = bpe_load_merges(m, model, &tmp, err)) && !byte_level)
        bpe_detect_spm_split(m);
    gp_buf_free(&tmp);
    return rc;
}

static int ensure_ws(struct tk_bpe *m, size_t n)
{
    if (n > m->symcap) {
        size_t c = pow2_at_least(n);
        struct tk_sym *s = realloc(m->sym, c * sizeof *s);
        if (!s)
            return -GP_ENOMEM;
        m->sym = s;
        m->symcap = c;
    }
    if (n * 2 > m->heapcap) {
        size_t c = pow2_at_least(n * 2);
        struct tk_heap_ent *h = realloc(m->heap, c * sizeof *h);
        if (!h)
            return -GP_ENOMEM;
        m->heap = h;
        m->heapcap = c;
    }
    return 0;
}

/* The merge queue: least (rank, position) first; the key packs both, so no
 * two entries of one word tie. */
static inline int ent_less(const struct tk_heap_ent *a, const struct tk_heap_ent *b) { return a->key < b->key; }

GP_HEAP_DEFINE(ent_heap, struct tk_heap_ent, ent_less)

static inline void heap_push(struct tk_heap_ent *h, size_t *n, uint64_t key, uint32_t nid)
{
    ent_heap_push(h, n, (struct tk_heap_ent){.key = key, .new_id = nid});
}

/* Builds the initial symbols of a word; returns their count or <0. */
static long word_symbols(struct tk_bpe *m, const char *s, size_t n)
{
    long ns = 0;
    int64_t unk_pending = -1; /* an unk symbol not yet emitted (fuse_unk joins them) */
    size_t i = 0;
    while (i < n) {
        size_t l = m->byte_level ? 1 : gp_utf8_len((const unsigned char *)s + i, n - i);
        if (!l)
            l = 1;
        int64_t id = (m->byte_level && l == 1) ? (m->byte_id[(unsigned char)s[i]] == UINT32_MAX
                                                      ? -1 : (int64_t)m->byte_id[(unsigned char)s[i]])
                                               : tk_bpe_lookup(m, s + i, l);
        if (id >= 0) {
            if (unk_pending >= 0) {
                m->sym[ns++].id = (uint32_t)unk_pending;
                unk_pending = -1;
            }
            m->sym[ns++].id = (uint32_t)id;
        } else {
            int fb = 0;
            if (m->byte_fallback) {
                fb = 1;
                for (size_t k = 0; k < l; k++)
                    if (m->bf_id[(unsigned char)s[i + k]] == UINT32_MAX)
                        fb = 0;
                if (fb)
                    for (size_t k = 0; k < l; k++)
                        m->sym[ns++].id = m->bf_id[(unsigned char)s[i + k]];
            }
            if (!fb && m->unk_id >= 0) {
                if (unk_pending >= 0 && !m->fuse_unk)
                    m->sym[ns++].id = (uint32_t)unk_pending;
                unk_pending = m->unk_id;
            }
        }
        i += l;
    }
    if (unk_pending >= 0)
        m->sym[ns++].id = (uint32_t)unk_pending;
    return ns;
}

static int bpe_merge(struct tk_bpe *m, const char *s, size_t n, struct gp_ids *out)
{
    if (ensure_ws(m, n + 1))
        return -GP_ENOMEM;
    long ns = word_symbols(m, s, n);
    struct tk_sym *sym = m->sym;
    struct tk_heap_ent *heap = m->heap;
    size_t hn = 0;
    uint32_t rank, nid;
    for (long i = 0; i < ns; i++) {
        sym[i].prev = (int32_t)i - 1;
        sym[i].next = i + 1 < ns ? (int32_t)i + 1 : -1;
        sym[i].alive = 1;
        if (i + 1 < ns && merge_get(m, sym[i].id, sym[i + 1].id, &rank, &nid))
            heap_push(heap, &hn, ((uint64_t)rank << 32) | (uint64_t)i, nid);
    }
    while (hn) {
        struct tk_heap_ent top = ent_heap_pop(heap, &hn);
        uint32_t pos = (uint32_t)top.key;
        struct tk_sym *cur = &sym[pos];
        if (!cur->alive || cur->next < 0)
            continue;
        struct tk_sym *right = &sym[cur->next];
        if (!merge_get(m, cur->id, right->id, &rank, &nid) || nid != top.new_id)
            continue;
        cur->id = top.new_id;
        right->alive = 0;
        cur->next = right->next;
        if (right->next >= 0)
            sym[right->next].prev = (int32_t)pos;
        if (hn + 2 > m->heapcap) { /* cannot happen: each merge pushes <= 2 after popping 1 */
            return -GP_ENOMEM;
        }
        if (cur->prev >= 0 && merge_get(m, sym[cur->prev].id, cur->id, &rank, &nid))
            heap_push(heap, &hn, ((uint64_t)rank << 32) | (uint32_t)cur->prev, nid);
        if (cur->next >= 0 && merge_get(m, cur->id, sym[cur->next].id, &rank, &nid))
            heap_push(heap, &hn, ((uint64_t)rank << 32) | pos, nid);
    }
    for (long i = 0; i < ns; i = sym[i].next) {
        if (gp_ids_push(out, sym[i].id))
            return -GP_ENOMEM;
        if (sym[i].next < 0)
            break;
    }
    return 0;
}

static int word_one(struct tk_bpe *m, const char *s, size_t n, struct gp_ids *out)
{
    if (!n)
        return 0;
    struct tk_cache_slot *slot = NULL;
    uint64_t h = 0;
    if (n <= CACHE_KMAX) {
        h = tk_hash(s, n);
        slot = &m->cache[h & m->cmask];
        if (slot->h == h && slot->klen == n && !memcmp(slot->key, s, n)) {
            for (unsigned i = 0; i < slot->nids; i++)
                if (gp_ids_push(out, slot->ids[i]))
                    return -GP_ENOMEM;
            return 0;
        }
    }
    size_t start = out->n;
    if (m->ignore_merges) {
        int64_t id = tk_bpe_lookup(m, s, n);
        if (id >= 0) {
            if (gp_ids_push(out, (uint32_t)id))
                return -GP_ENOMEM;
            goto fill;
        }
    }
    int r = bpe_merge(m, s, n, out);
    if (r)
        return r;
fill:
    if (slot && out->n - start <= CACHE_KMAX) {
        slot->h = h;
        slot->klen = (uint16_t)n;
        slot->nids = (uint16_t)(out->n - start);
        memcpy(slot->key, s, n);
        memcpy(slot->ids, out->v + start, (out->n - start) * sizeof *out->v);
    }
    return 0;
}

int tk_bpe_word(struct tk_bpe *m, const char *s, size_t n, struct gp_ids *out)
{
    if (!m->spm_split || m->ignore_merges)
        return word_one(m, s, n, out);
    /* cut before every "▁" that follows a char other than "▁" */
    size_t start = 0, i = 0;
    const char *sp = m->spm_sp;
    while (i + 3 <= n) {
        const char *hit = memmem(s + i, n - i, sp, 3);
        if (!hit)
            break;
        size_t p = (size_t)(hit - s);
        if (p > start && !(p >= 3 && !memcmp(s + p - 3, sp, 3))) {
            int r = word_one(m, s + start, p - start, out);
            if (r)
                return r;
            start = p;
        }
        i = p + 3;
    }
    return word_one(m, s + start, n - start, out);
}

void tk_bpe_free(struct tk_bpe *m)
{
    free(m->arena);
    free(m->moff);
    free(m->mlen);
    free(m->slots);
    free(m->mkey);
    free(m->mval);
    free(m->cache);
    free(m->sym);
    free(m->heap);
    memset(m, 0, sizeof *m);
}
