/* A rule's automaton built in C (extractor/lang/dfa.py keeps the same algorithms in Python where this is not
 * built): Thompson's construction read straight off the regex objects, byte classes, the subset construction,
 * Hopcroft's minimization (a refinable partition, O(m n log n)), products of two DFAs, the content digests of
 * tables and the structural digests of rule bodies, and the searches productivity and key checks ask for.
 * Plain C over buffers, no NumPy headers. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    int32_t *elems, *loc, *blk, *first, *end, *mid;
    int32_t count;
} Partition;

typedef struct {
    int32_t *block, *symbol;
    int64_t size;
    uint8_t *in;    /* in[block * m + symbol]: the pair waits */
    int32_t m;
} Work;

static void push(Work *w, int32_t b, int32_t a) {
    if (w->in[(int64_t)b * w->m + a]) return;
    w->in[(int64_t)b * w->m + a] = 1;
    w->block[w->size] = b;
    w->symbol[w->size] = a;
    w->size++;
}

/* The coarsest partition refining `labels` (int32 n, values in 0..n-1) that every column of `table` (int32
 * n x m, targets in 0..n-1) respects, where the last state is a sink (every column back to itself) no other
 * state is equivalent to (the others are live): each state's block into `out`. Returns the number of blocks,
 * or -1 with a Python error set.
 *
 * Hopcroft's algorithm, sparse in symbols: the sink starts in a block of its own that is never a splitter (the
 * partition is stable on the set of all states, so any one block may be left out), so edges into it are never
 * read; and a (block, symbol) pair is queued only where some edge of that symbol enters the block (a pair no
 * edge enters splits nothing, and neither do its parts). Most edges go to the sink and most (state, symbol)
 * pairs have none coming in, so the work follows the edges between live states, not states x symbols. */
static int32_t refine(const int32_t *table, const int32_t *labels, int32_t *out, int32_t n, int32_t m) {
    int32_t result = -1, sink = n - 1;
    int64_t nm = (int64_t)n * m;
    /* inverse edges, the sink's left out: each target's sources (pred, CSR by target in pred_off), grouped by
     * symbol ascending (group j of them reads syms[j], its sources are pred[group[j]..group[j + 1]]), each
     * target's groups in sym_off: sized by the edges, never symbols x states, and made by counting sorts */
    int32_t *pred_off = calloc((size_t)n + 1, sizeof(int32_t)), *sym_off = calloc((size_t)n + 1, sizeof(int32_t));
    int32_t *pred = NULL, *syms = NULL, *group = NULL;  /* once the edges are counted */
    int32_t *seen = malloc((size_t)n * sizeof(int32_t));  /* the last symbol each target was met with */
    int32_t *by_sym = calloc((size_t)m + 1, sizeof(int32_t)), *src = NULL, *dst = NULL;  /* the edges by symbol */
    Partition p;
    p.elems = malloc((size_t)n * sizeof(int32_t)); p.loc = malloc((size_t)n * sizeof(int32_t));
    p.blk = out; p.first = malloc((size_t)n * sizeof(int32_t)); p.end = malloc((size_t)n * sizeof(int32_t));
    p.mid = malloc((size_t)n * sizeof(int32_t));
    Work w;
    w.m = m; w.size = 0;
    w.block = malloc((size_t)(nm ? nm : 1) * sizeof(int32_t)); w.symbol = malloc((size_t)(nm ? nm : 1) * sizeof(int32_t));
    w.in = calloc((size_t)(nm ? nm : 1), 1);
    int32_t *touched = malloc((size_t)n * sizeof(int32_t));
    int32_t *members = malloc((size_t)n * sizeof(int32_t)); /* the splitter's states: marking reorders blocks */
    int32_t *count = calloc((size_t)n + 1, sizeof(int32_t));
    if (!pred_off || !sym_off || !seen || !by_sym || !p.elems || !p.loc || !p.first || !p.end
        || !p.mid || !w.block || !w.symbol || !w.in || !touched || !members || !count) {
        PyErr_NoMemory();
        goto done;
    }
    if (n < 1) { result = 0; goto done; }
    for (int32_t s = 0; s < n; s++) {
        if (labels[s] < 0 || labels[s] >= n) { PyErr_SetString(PyExc_ValueError, "coarsest: label out of range"); goto done; }
        seen[s] = -1;
    }
    for (int32_t s = 0; s < n; s++)
        for (int32_t a = 0; a < m; a++) {
            int32_t t = table[(int64_t)s * m + a];
            if (t < 0 || t >= n) { PyErr_SetString(PyExc_ValueError, "coarsest: target out of range"); goto done; }
            if (t != sink) { by_sym[a + 1]++; pred_off[t + 1]++; }
        }
    for (int32_t a = 0; a < m; a++) by_sym[a + 1] += by_sym[a];
    for (int32_t t = 0; t < n; t++) pred_off[t + 1] += pred_off[t];
    int32_t edges = by_sym[m];
    size_t bytes = (size_t)(edges ? edges : 1) * sizeof(int32_t);
    src = malloc(bytes); dst = malloc(bytes); pred = malloc(bytes); syms = malloc(bytes); group = malloc(bytes + sizeof(int32_t));
    if (!src || !dst || !pred || !syms || !group) { PyErr_NoMemory(); goto done; }
    for (int32_t s = 0; s < n; s++)  /* the edges by symbol, sources ascending within each */
        for (int32_t a = 0; a < m; a++) {
            int32_t t = table[(int64_t)s * m + a];
            if (t != sink) { src[by_sym[a]] = s; dst[by_sym[a]++] = t; }
        }
    for (int32_t a = m; a > 0; a--) by_sym[a] = by_sym[a - 1];  /* restore the starts */
    by_sym[0] = 0;
    for (int32_t a = 0; a < m; a++)
        for (int32_t i = by_sym[a]; i < by_sym[a + 1]; i++)
            if (seen[dst[i]] != a) { seen[dst[i]] = a; sym_off[dst[i] + 1]++; }
    for (int32_t t = 0; t < n; t++) { sym_off[t + 1] += sym_off[t]; seen[t] = -1; }
    {
        int32_t *cursor = count, *sym_cursor = members;  /* scratch: count is zeroed again below */
        memcpy(cursor, pred_off, (size_t)n * sizeof(int32_t));
        memcpy(sym_cursor, sym_off, (size_t)n * sizeof(int32_t));
        for (int32_t a = 0; a < m; a++)
            for (int32_t i = by_sym[a]; i < by_sym[a + 1]; i++) {
                int32_t t = dst[i];
                if (seen[t] != a) { seen[t] = a; syms[sym_cursor[t]] = a; group[sym_cursor[t]++] = cursor[t]; }
                pred[cursor[t]++] = src[i];
            }
        group[sym_off[n]] = pred_off[n];
        memset(count, 0, ((size_t)n + 1) * sizeof(int32_t));
    }
    /* initial blocks: one per label in use, states in order; then the sink alone */
    for (int32_t s = 0; s < sink; s++) count[labels[s]]++;
    int32_t *block_of_label = touched; /* scratch until the loop */
    p.count = 0;
    int32_t at = 0;
    for (int32_t l = 0; l < n; l++) {
        block_of_label[l] = -1;
        if (!count[l]) continue;
        block_of_label[l] = p.count;
        p.first[p.count] = p.mid[p.count] = at;
        at += count[l];
        p.end[p.count] = p.first[p.count];
        p.count++;
    }
    int32_t sink_block = p.count++;
    p.first[sink_block] = p.mid[sink_block] = p.end[sink_block] = at;
    for (int32_t s = 0; s < n; s++) {
        int32_t b = s == sink ? sink_block : block_of_label[labels[s]];
        p.blk[s] = b;
        p.loc[s] = p.end[b];
        p.elems[p.end[b]++] = s;
    }
    for (int32_t b = 0; b < sink_block; b++)  /* every block but the sink's, by the symbols that enter it */
        for (int32_t i = p.first[b]; i < p.end[b]; i++)
            for (int32_t j = sym_off[p.elems[i]]; j < sym_off[p.elems[i] + 1]; j++) push(&w, b, syms[j]);
    while (w.size) {
        w.size--;
        int32_t splitter = w.block[w.size], a = w.symbol[w.size];
        w.in[(int64_t)splitter * m + a] = 0;
        int32_t ntouched = 0, size = p.end[splitter] - p.first[splitter];
        memcpy(members, p.elems + p.first[splitter], (size_t)size * sizeof(int32_t));
        for (int32_t i = 0; i < size; i++) {
            int32_t t = members[i], lo = sym_off[t], hi = sym_off[t + 1];
            while (lo < hi) {  /* t's group of symbol a, if any: its symbols ascend */
                int32_t mid = lo + (hi - lo) / 2;
                if (syms[mid] < a) lo = mid + 1; else hi = mid;
            }
            if (lo == sym_off[t + 1] || syms[lo] != a) continue;
            for (int32_t j = group[lo]; j < group[lo + 1]; j++) {
                int32_t s = pred[j], b = p.blk[s];
                if (p.loc[s] < p.mid[b]) continue; /* marked already */
                if (p.mid[b] == p.first[b]) touched[ntouched++] = b;
                int32_t other = p.elems[p.mid[b]]; /* swap s to the end of the marked part */
                p.elems[p.loc[s]] = other; p.loc[other] = p.loc[s];
                p.elems[p.mid[b]] = s; p.loc[s] = p.mid[b];
                p.mid[b]++;
            }
        }
        for (int32_t k = 0; k < ntouched; k++) {
            int32_t b = touched[k];
            if (p.mid[b] == p.end[b]) { p.mid[b] = p.first[b]; continue; } /* all of it: no split */
            int32_t fresh = p.count++; /* the marked part becomes a new block */
            p.first[fresh] = p.mid[fresh] = p.first[b];
            p.end[fresh] = p.mid[b];
            p.first[b] = p.mid[b];
            for (int32_t i = p.first[fresh]; i < p.end[fresh]; i++) p.blk[p.elems[i]] = fresh;
            int32_t small = (p.end[fresh] - p.first[fresh]) <= (p.end[b] - p.first[b]) ? fresh : b;
            /* a pair of b that waits goes on waiting for both parts; else the smaller part is enough */
            for (int32_t i = p.first[fresh]; i < p.end[fresh]; i++)
                for (int32_t j = sym_off[p.elems[i]]; j < sym_off[p.elems[i] + 1]; j++)
                    if (w.in[(int64_t)b * m + syms[j]]) push(&w, fresh, syms[j]);
            for (int32_t i = p.first[small]; i < p.end[small]; i++)
                for (int32_t j = sym_off[p.elems[i]]; j < sym_off[p.elems[i] + 1]; j++)
                    if (!w.in[(int64_t)b * m + syms[j]]) push(&w, small, syms[j]);
        }
    }
    result = p.count;
done:
    free(pred_off); free(pred); free(sym_off); free(syms); free(group); free(seen); free(by_sym); free(src); free(dst);
    free(p.elems); free(p.loc); free(p.first); free(p.end);
    free(p.mid); free(w.block); free(w.symbol); free(w.in); free(touched); free(members); free(count);
    return result;
}

/* out[s] = 1 where some accepting state is reachable from s along `edges` (int32 n x m, targets in 0..n-1 or
 * -1 for none). Returns 0, or -1 with a Python error set. */
static int reaching(const int32_t *edges, const uint8_t *accept, uint8_t *out, int32_t n, int32_t m) {
    int result = -1;
    int64_t nm = (int64_t)n * m;
    int32_t *off = calloc((size_t)n + 2, sizeof(int32_t));
    int32_t *pred = malloc((size_t)(nm ? nm : 1) * sizeof(int32_t));
    int32_t *stack = malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    int32_t *last = malloc((size_t)(n ? n : 1) * sizeof(int32_t));  /* the last source counted into each target */
    if (!off || !pred || !stack || !last) { PyErr_NoMemory(); goto done; }
    /* each (source, target) pair once: a row mostly repeats a few targets, and counting every repeat into one
     * counter chains each increment on the one before */
    for (int32_t t = 0; t < n; t++) last[t] = -1;
    for (int32_t s = 0; s < n; s++)
        for (int32_t c = 0; c < m; c++) {
            int32_t t = edges[(int64_t)s * m + c];
            if (t >= n) { PyErr_SetString(PyExc_ValueError, "live: target out of range"); goto done; }
            if (t >= 0 && last[t] != s) { last[t] = s; off[t + 2]++; }
        }
    for (int32_t t = 0; t < n; t++) off[t + 2] += off[t + 1];
    for (int32_t t = 0; t < n; t++) last[t] = -1;
    for (int32_t s = 0; s < n; s++)
        for (int32_t c = 0; c < m; c++) {
            int32_t t = edges[(int64_t)s * m + c];
            if (t >= 0 && last[t] != s) { last[t] = s; pred[off[t + 1]++] = s; }
        }
    int32_t top = 0;
    for (int32_t s = 0; s < n; s++) {
        out[s] = accept[s] ? 1 : 0;
        if (out[s]) stack[top++] = s;
    }
    while (top) {
        int32_t t = stack[--top];
        for (int32_t j = off[t]; j < off[t + 1]; j++)
            if (!out[pred[j]]) { out[pred[j]] = 1; stack[top++] = pred[j]; }
    }
    result = 0;
done:
    free(off); free(pred); free(stack); free(last);
    return result;
}

/* live(edges, accept, out, n, m): `reaching` over buffers (accept, out: uint8 n). */
static PyObject *live(PyObject *self, PyObject *args) {
    Py_buffer edges_b, accept_b, out_b;
    Py_ssize_t n, m;
    if (!PyArg_ParseTuple(args, "y*y*w*nn", &edges_b, &accept_b, &out_b, &n, &m)) return NULL;
    PyObject *result = NULL;
    if (edges_b.len < n * m * 4 || accept_b.len < n || out_b.len < n)
        PyErr_SetString(PyExc_ValueError, "live: buffers smaller than n x m");
    else if (!reaching(edges_b.buf, accept_b.buf, out_b.buf, (int32_t)n, (int32_t)m))
        result = Py_NewRef(Py_None);
    PyBuffer_Release(&edges_b); PyBuffer_Release(&accept_b); PyBuffer_Release(&out_b);
    return result;
}

/* The minimal DFA of `edges` (int32 n x m, -1 for none: k byte-class columns, then call columns) from state 0:
 * states that cannot reach acceptance dropped (state 0 kept, with no edges when it cannot), equivalent ones
 * merged; numbered in the order of their first member; byte b reads column byte_class[b] (int32 256). Its
 * table (D x 256), accepting states (D) and return states (D x (m - k), -1 for no call) are malloc'd into
 * `out`, and where D >= digest_from > 0 the table's content digest, made from its D x k rows over the classes (a
 * fraction of the table's bytes). Returns 0, or -1 with a Python error set. */
typedef struct {
    PyObject *bytes;  /* the table (int32 size x 256), built in place in the bytes object handed back to Python */
    int32_t *table, *calls;
    uint8_t *accept;
    int32_t size;
    uint8_t content[16];  /* `content_digest` of the table, made from its rows over byte classes (d x k) */
    int digested;         /* whether `content` is made: tables of `digest_from` states or more */
} Minimal;

static int class_content(const int32_t *rows, int32_t k, const int32_t *byte_class, const uint8_t *accept, int32_t d,
                         uint8_t out[16]);

static void minimal_free(Minimal *d) { Py_XDECREF(d->bytes); free(d->calls); free(d->accept); }

/* The content digest a minimization made, as bytes, or None (a new reference; NULL with a Python error set). */
static PyObject *made_content(const Minimal *d) {
    return d->digested ? PyBytes_FromStringAndSize((const char *)d->content, 16) : Py_NewRef(Py_None);
}

static int minimize_core(const int32_t *edges, const uint8_t *accept, const int32_t *byte_class, int32_t n, int32_t m,
                         int32_t k, Py_ssize_t digest_from, Minimal *out) {
    int failed = -1;
    uint8_t *live = NULL;
    int32_t *pos = NULL, *moves = NULL, *labels = NULL, *block = NULL, *renum = NULL, *reps = NULL, *target = NULL;
    if (n < 1 || k > m) {
        PyErr_SetString(PyExc_ValueError, "minimize: bad sizes");
        return -1;
    }
    live = malloc((size_t)n);
    pos = malloc((size_t)n * sizeof(int32_t));
    if (!live || !pos) { PyErr_NoMemory(); goto done; }
    if (reaching(edges, accept, live, n, m)) goto done;
    int empty = !live[0];
    live[0] = 1;
    int32_t sink = 0;
    for (int32_t s = 0; s < n; s++) pos[s] = live[s] ? sink++ : -1;
    int64_t rows = (int64_t)sink + 1;
    moves = malloc((size_t)(rows * (m ? m : 1)) * sizeof(int32_t));
    labels = calloc((size_t)rows, sizeof(int32_t));
    block = malloc((size_t)rows * sizeof(int32_t));
    renum = malloc((size_t)rows * sizeof(int32_t));
    reps = malloc((size_t)rows * sizeof(int32_t));
    if (!moves || !labels || !block || !renum || !reps) { PyErr_NoMemory(); goto done; }
    for (int32_t s = 0; s < n; s++) {
        if (pos[s] < 0) continue;
        int64_t at = (int64_t)pos[s] * m;
        labels[pos[s]] = accept[s] ? 1 : 0;
        for (int32_t c = 0; c < m; c++) {
            int32_t t = edges[(int64_t)s * m + c];
            if (t >= n) { PyErr_SetString(PyExc_ValueError, "minimize: target out of range"); goto done; }
            moves[at + c] = (t < 0 || pos[t] < 0 || (empty && t == 0)) ? sink : pos[t];
        }
    }
    for (int32_t c = 0; c < m; c++) moves[(int64_t)sink * m + c] = sink;
    int32_t nblocks = refine(moves, labels, block, (int32_t)rows, m);
    if (nblocks < 0) goto done;
    for (int32_t b = 0; b < nblocks; b++) renum[b] = -1;
    int32_t d = 0;
    for (int32_t i = 0; i < sink; i++)
        if (renum[block[i]] < 0) { renum[block[i]] = d; reps[d++] = i; }
    int32_t sink_block = block[sink];
    out->bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)d * 256 * (Py_ssize_t)sizeof(int32_t));
    if (!out->bytes) goto done;
    out->table = (int32_t *)PyBytes_AS_STRING(out->bytes);
    out->calls = malloc((size_t)(d ? d : 1) * (size_t)(m - k ? m - k : 1) * sizeof(int32_t));
    out->accept = malloc((size_t)(d ? d : 1));
    target = malloc((size_t)(d ? d : 1) * (size_t)(k ? k : 1) * sizeof(int32_t));  /* each state's per byte class */
    if (!out->table || !out->calls || !out->accept || !target) { PyErr_NoMemory(); goto done; }
    int32_t run_end[256], run_class[256], runs = 0;  /* the bytes as runs of one class: a row is filled run by run */
    for (int b = 0; b < 256; b++) {
        if (runs && run_class[runs - 1] == byte_class[b]) run_end[runs - 1] = b + 1;
        else { run_class[runs] = byte_class[b]; run_end[runs++] = b + 1; }
    }
    for (int32_t i = 0; i < d; i++) {
        const int32_t *row = moves + (int64_t)reps[i] * m;
        int32_t *at = target + (int64_t)i * k, *line = out->table + (int64_t)i * 256;
        out->accept[i] = (uint8_t)labels[reps[i]];
        for (int32_t c = 0; c < k; c++) at[c] = block[row[c]] == sink_block ? -1 : renum[block[row[c]]];
        for (int32_t r = 0, b = 0; r < runs; r++)
            for (int32_t v = at[run_class[r]]; b < run_end[r]; b++) line[b] = v;
        for (int32_t c = k; c < m; c++) {
            int32_t t = row[c];
            out->calls[(int64_t)i * (m - k) + (c - k)] = block[t] == sink_block ? -1 : renum[block[t]];
        }
    }
    out->size = d;
    out->digested = digest_from > 0 && d >= digest_from;
    if (out->digested && class_content(target, k, byte_class, out->accept, d, out->content)) {
        PyErr_NoMemory();
        goto done;
    }
    failed = 0;
done:
    free(live); free(pos); free(moves); free(labels); free(block); free(renum); free(reps); free(target);
    return failed;
}

/* A growable int32 array. */
typedef struct { int32_t *at; int64_t len, cap; } Ints;

static int ints_push(Ints *v, int32_t x) {
    if (v->len == v->cap) {
        int64_t cap = v->cap ? v->cap * 2 : 1024;
        int32_t *at = realloc(v->at, (size_t)cap * sizeof(int32_t));
        if (!at) return -1;
        v->at = at; v->cap = cap;
    }
    v->at[v->len++] = x;
    return 0;
}

static int cmp_int32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static uint64_t hash_ints(const int32_t *v, int64_t len) {
    uint64_t h = 1469598103934665603ULL;
    for (int64_t i = 0; i < len; i++) { h ^= (uint32_t)v[i]; h *= 1099511628211ULL; }
    return h ^ (h >> 29);
}

/* A hash of each column of a table (int32 n x 256), read row by row: 256 independent chains rather than one
 * long one per column, no strided gather, and a mix of shifts and adds that vectorizes. Equal columns hash
 * alike; callers compare the columns whose hashes meet. */
static void column_hashes(const int32_t *table, int32_t n, uint32_t out[256]) {
    for (int b = 0; b < 256; b++) out[b] = 5381;
    for (int32_t s = 0; s < n; s++) {
        const int32_t *row = table + (int64_t)s * 256;
        for (int b = 0; b < 256; b++) out[b] = ((out[b] << 5) + out[b]) ^ (uint32_t)row[b];
    }
}

/* Whether columns `a` and `b` of a table (int32 n x 256) are equal. */
static int same_column(const int32_t *table, int32_t n, int a, int b) {
    for (int32_t s = 0; s < n; s++)
        if (table[(int64_t)s * 256 + a] != table[(int64_t)s * 256 + b]) return 0;
    return 1;
}

typedef struct {
    const int32_t *eps_off, *eps_dst, *edge_off;
    int32_t n;
    int32_t *kc_off, *kc_len; /* kernel closure of each NFA state in `kc`, computed on first use (-1: not yet) */
    Ints kc, stack;
    uint32_t *stamp;
    uint32_t gen;
} Closures;

/* The NFA states reachable from `s` by empty moves that read something or accept (state 1). Returns 0, -1 out of
 * memory (a Python error set), or -2 when the closures kept would pass what int32 offsets index. */
static int kernel(Closures *c, int32_t s) {
    if (c->kc_off[s] >= 0) return 0;
    c->gen++;
    int64_t start = c->kc.len;
    c->stack.len = 0;
    if (ints_push(&c->stack, s)) return -1;
    c->stamp[s] = c->gen;
    while (c->stack.len) {
        int32_t u = c->stack.at[--c->stack.len];
        if (c->edge_off[u + 1] > c->edge_off[u] || u == 1)
            if (ints_push(&c->kc, u)) return -1;
        for (int32_t j = c->eps_off[u]; j < c->eps_off[u + 1]; j++) {
            int32_t t = c->eps_dst[j];
            if (c->stamp[t] != c->gen) { c->stamp[t] = c->gen; if (ints_push(&c->stack, t)) return -1; }
        }
    }
    if (c->kc.len > INT32_MAX) return -2;
    c->kc_off[s] = (int32_t)start;
    c->kc_len[s] = (int32_t)(c->kc.len - start);
    return 0;
}

/* Edges (src, and one or two more int32 arrays) grouped by source state, stably, as CSR offsets (n + 1) and the
 * arrays reordered; an edge is dropped where `keep` (indexed by its `a` value) is 0. Returns -1 with a Python
 * error set (memory, or a state out of range). */
static int by_source(const int32_t *src, const int32_t *a, const int32_t *b, int64_t count, int32_t n,
                     const uint8_t *keep, int32_t **off, int32_t **a_out, int32_t **b_out) {
    int32_t *o = calloc((size_t)n + 1, sizeof(int32_t)), *cur = malloc(((size_t)n + 1) * sizeof(int32_t));
    int32_t *x = malloc((size_t)(count ? count : 1) * sizeof(int32_t)), *y = malloc((size_t)(count ? count : 1) * sizeof(int32_t));
    *off = o; *a_out = x; *b_out = y;
    if (!o || !cur || !x || !y) { free(cur); PyErr_NoMemory(); return -1; }
    for (int64_t i = 0; i < count; i++) {
        if (src[i] < 0 || src[i] >= n) { free(cur); PyErr_SetString(PyExc_ValueError, "a state out of range"); return -1; }
        if (!keep || keep[a[i]]) o[src[i] + 1]++;
    }
    for (int32_t s = 0; s < n; s++) o[s + 1] += o[s];
    memcpy(cur, o, ((size_t)n + 1) * sizeof(int32_t));
    for (int64_t i = 0; i < count; i++)
        if (!keep || keep[a[i]]) {
            int32_t at = cur[src[i]]++;
            x[at] = a[i];
            if (b) y[at] = b[i];
        }
    free(cur);
    return 0;
}

/* The subset construction over an NFA whose state 0 starts and state 1 accepts (n states): eps_src/eps_dst are
 * its empty moves, edge_src/edge_label/edge_dst its labelled moves (both in the order made), and label_off/
 * label_sym (CSR over `nlabels` labels) the symbols 0..m-1 each label stands for (a label with none: its edges
 * are not taken). DFA states are numbered as found: breadth first, symbols in order. Its table (D x m, -1 for
 * no edge) into `trans`, its accepting states into `*accept_out` (malloc'd), D into `*states_out`. Returns 0;
 * 1 when more than max_states (>= 0) states would be built, 2 when it ran past `seconds` (>= 0), 3 when its
 * subsets would pass what int32 offsets index; or -1 with a Python error set. */
static int subsets_core(const int32_t *eps_src, const int32_t *eps_dst, int64_t neps, const int32_t *edge_src,
                        const int32_t *edge_label, const int32_t *edge_dst, int64_t nedges, const int32_t *label_off,
                        const int32_t *label_sym, int64_t nlabels, int32_t n, int32_t m, Py_ssize_t max_states,
                        double seconds, Ints *trans, uint8_t **accept_out, int64_t *states_out) {
    int result = -1;
    int32_t *eps_off = NULL, *eps_to = NULL, *unused = NULL, *edge_off = NULL, *edge_lab = NULL, *edge_to = NULL;
    uint8_t *keep = malloc((size_t)(nlabels > 0 ? nlabels : 1));
    Closures c = {NULL, NULL, NULL, n, NULL, NULL, {0}, {0}, NULL, 0};
    Ints pool = {0}, off = {0}, found = {0}, bucket = {0};
    uint8_t *accept = NULL;
    int32_t *slots = NULL, *count = NULL, *first = NULL;
    uint32_t *mark = NULL, mgen = 0; /* marks the NFA states of the union being gathered */
    int64_t nslots = 1024;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!keep) { PyErr_NoMemory(); goto done; }
    for (int64_t l = 0; l < nlabels; l++) keep[l] = label_off[l + 1] > label_off[l];
    for (int64_t i = 0; i < nedges; i++)
        if (edge_label[i] < 0 || edge_label[i] >= nlabels) {
            PyErr_SetString(PyExc_ValueError, "subsets: label out of range");
            goto done;
        }
    if (by_source(eps_src, eps_dst, NULL, neps, n, NULL, &eps_off, &eps_to, &unused)
        || by_source(edge_src, edge_label, edge_dst, nedges, n, keep, &edge_off, &edge_lab, &edge_to))
        goto done;
    c.eps_off = eps_off; c.eps_dst = eps_to; c.edge_off = edge_off;
    c.kc_off = malloc((size_t)n * sizeof(int32_t)); c.kc_len = malloc((size_t)n * sizeof(int32_t));
    c.stamp = calloc((size_t)n, sizeof(uint32_t));
    mark = calloc((size_t)n, sizeof(uint32_t));
    slots = malloc((size_t)nslots * sizeof(int32_t));
    count = malloc((size_t)(m + 1) * sizeof(int32_t)); first = malloc((size_t)(m + 1) * sizeof(int32_t));
    if (!c.kc_off || !c.kc_len || !c.stamp || !mark || !slots || !count || !first) { PyErr_NoMemory(); goto done; }
    for (int32_t s = 0; s < n; s++) c.kc_off[s] = -1;
    for (int64_t i = 0; i < nslots; i++) slots[i] = -1;
    if (ints_push(&off, 0)) { PyErr_NoMemory(); goto done; }
    int64_t states = 0;
    /* the start state: the closure of NFA state 0 */
    int32_t zero = 0;
    const int32_t *targets = &zero;
    int64_t ntargets = 1;
    for (int64_t d = -1; d < states; d++) {
        if (d >= 0) { /* the moves of DFA state d, grouped by symbol */
            memset(count, 0, (size_t)(m + 1) * sizeof(int32_t));
            for (int64_t i = off.at[d]; i < off.at[d + 1]; i++)
                for (int32_t j = edge_off[pool.at[i]]; j < edge_off[pool.at[i] + 1]; j++)
                    for (int32_t k = label_off[edge_lab[j]]; k < label_off[edge_lab[j] + 1]; k++)
                        count[label_sym[k] + 1]++;
            for (int32_t a = 0, sum = 0; a < m; a++) { sum += count[a + 1]; count[a + 1] = first[a + 1] = sum; }
            first[0] = 0;  /* sums kept in a register: `count[a + 1] += count[a]` waits on each store */
            bucket.len = 0;
            for (int64_t i = 0; i < count[m]; i++) if (ints_push(&bucket, 0)) { PyErr_NoMemory(); goto done; }
            for (int64_t i = off.at[d]; i < off.at[d + 1]; i++)
                for (int32_t j = edge_off[pool.at[i]]; j < edge_off[pool.at[i] + 1]; j++)
                    for (int32_t k = label_off[edge_lab[j]]; k < label_off[edge_lab[j] + 1]; k++)
                        bucket.at[first[label_sym[k]]++] = edge_to[j];
        }
        int32_t last = -1; /* the symbol before with targets, and its state: symbols often share their targets */
        for (int32_t a = 0; a < (d >= 0 ? m : 1); a++) {
            if (d >= 0) {
                targets = bucket.at + count[a];
                ntargets = count[a + 1] - count[a];
                if (!ntargets) { if (ints_push(trans, -1)) { PyErr_NoMemory(); goto done; } continue; }
                if (last >= 0 && count[last + 1] - count[last] == ntargets
                    && !memcmp(bucket.at + count[last], targets, (size_t)ntargets * sizeof(int32_t))) {
                    if (ints_push(trans, trans->at[trans->len - (a - last)])) { PyErr_NoMemory(); goto done; }
                    continue;
                }
                last = a;
            }
            /* the union of the targets' kernel closures, sorted */
            found.len = 0;
            mgen++;
            for (int64_t i = 0; i < ntargets; i++) {
                int32_t t = targets[i];
                int failed = kernel(&c, t);
                if (failed == -2) { result = 3; goto done; }
                if (failed) { PyErr_NoMemory(); goto done; }
                for (int32_t k = 0; k < c.kc_len[t]; k++) {
                    int32_t u = c.kc.at[c.kc_off[t] + k];
                    if (mark[u] != mgen) { mark[u] = mgen; if (ints_push(&found, u)) { PyErr_NoMemory(); goto done; } }
                }
            }
            qsort(found.at, (size_t)found.len, sizeof(int32_t), cmp_int32);
            /* intern it */
            uint64_t h = hash_ints(found.at, found.len);
            int64_t slot = (int64_t)(h & (uint64_t)(nslots - 1));
            int32_t id = -1;
            while (slots[slot] >= 0) {
                int32_t e = slots[slot];
                int64_t len = off.at[e + 1] - off.at[e];
                if (len == found.len && !memcmp(pool.at + off.at[e], found.at, (size_t)len * sizeof(int32_t))) { id = e; break; }
                slot = (slot + 1) & (nslots - 1);
            }
            if (id < 0) {
                if (max_states >= 0 && states + 1 > max_states) { result = 1; goto done; }
                if (pool.len + found.len > INT32_MAX || states >= INT32_MAX) { result = 3; goto done; }
                id = (int32_t)states++;
                for (int64_t i = 0; i < found.len; i++) if (ints_push(&pool, found.at[i])) { PyErr_NoMemory(); goto done; }
                if (ints_push(&off, (int32_t)pool.len)) { PyErr_NoMemory(); goto done; }
                slots[slot] = id;
                if (states * 2 > nslots) { /* grow the table */
                    int64_t grown = nslots * 2;
                    int32_t *fresh = malloc((size_t)grown * sizeof(int32_t));
                    if (!fresh) { PyErr_NoMemory(); goto done; }
                    for (int64_t i = 0; i < grown; i++) fresh[i] = -1;
                    for (int32_t e = 0; e < states; e++) {
                        int64_t k = (int64_t)(hash_ints(pool.at + off.at[e], off.at[e + 1] - off.at[e]) & (uint64_t)(grown - 1));
                        while (fresh[k] >= 0) k = (k + 1) & (grown - 1);
                        fresh[k] = e;
                    }
                    free(slots); slots = fresh; nslots = grown;
                }
                if (seconds >= 0 && !(states & 255)) {
                    clock_gettime(CLOCK_MONOTONIC, &t1);
                    if ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec) > seconds) {
                        result = 2;
                        goto done;
                    }
                }
            }
            if (d >= 0 && ints_push(trans, id)) { PyErr_NoMemory(); goto done; }
        }
    }
    accept = malloc((size_t)(states ? states : 1));
    if (!accept) { PyErr_NoMemory(); goto done; }
    for (int64_t d = 0; d < states; d++) {
        accept[d] = 0;
        for (int64_t i = off.at[d]; i < off.at[d + 1]; i++) if (pool.at[i] == 1) { accept[d] = 1; break; }
    }
    *accept_out = accept;
    accept = NULL;
    *states_out = states;
    result = 0;
done:
    free(c.kc_off); free(c.kc_len); free(c.stamp); free(c.kc.at); free(c.stack.at);
    free(pool.at); free(off.at); free(found.at); free(bucket.at);
    free(accept); free(mark); free(slots); free(count); free(first);
    free(keep); free(eps_off); free(eps_to); free(unused); free(edge_off); free(edge_lab); free(edge_to);
    return result;
}

/* The pairs of states of two call-free DFAs (tables n x 256, -1 for no edge) reachable from (0, 0), numbered
 * breadth first, read at the `k` columns of `rep` in order (tables `width` wide: all 256 bytes, or one byte per
 * class of a partition both tables' columns are constant on, or tables over such classes: the pairs come in the
 * same order). Both: a byte moves only where both move,
 * and a pair accepts where both do. Minus: `a` moves alone once `b` has no edge (b's state -1), and a pair
 * accepts where `a` does and `b` does not. Each pair's row (k targets, -1 for none) into `trans`, its states
 * into `pairs`, whether it accepts into `*accept` (malloc'd), their number into `*states`. Returns 0, 1 / 2 / 3
 * as `subsets_core` does, or -1 with a Python error set. */
static int product_core(const int32_t *ta, const uint8_t *aa, const int32_t *tb, const uint8_t *ab, int64_t nb,
                        int width, int minus, const int32_t *rep, int k, Py_ssize_t max_states, double seconds,
                        Ints *trans, Ints *pairs, uint8_t **accept, int64_t *states_out) {
    int result = -1;
    int64_t *keys = NULL;
    int32_t *ids = NULL;
    int64_t nslots = 1024, states = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    keys = malloc((size_t)nslots * sizeof(int64_t)); ids = malloc((size_t)nslots * sizeof(int32_t));
    if (!keys || !ids) { PyErr_NoMemory(); goto done; }
    for (int64_t i = 0; i < nslots; i++) keys[i] = -1;
    /* the pair (0, 0) */
    if (ints_push(pairs, 0) || ints_push(pairs, 0)) { PyErr_NoMemory(); goto done; }
    int64_t k0 = 1; /* the key of (x, y) is x * (nb + 1) + y + 1 */
    int64_t s0 = (int64_t)(((uint64_t)k0 * 0x9E3779B97F4A7C15ULL >> 20) & (uint64_t)(nslots - 1));
    keys[s0] = k0;
    ids[s0] = 0;
    states = 1;
    for (int64_t d = 0; d < states; d++) {
        int32_t s = pairs->at[2 * d], t = pairs->at[2 * d + 1];
        for (int j = 0; j < k; j++) {
            int c = rep[j];
            int32_t x = ta[(int64_t)s * width + c], y = t >= 0 ? tb[(int64_t)t * width + c] : -1;
            if (x < 0 || (!minus && y < 0)) { if (ints_push(trans, -1)) { PyErr_NoMemory(); goto done; } continue; }
            int64_t key = (int64_t)x * (nb + 1) + (y + 1);
            int64_t slot = (int64_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL >> 20) & (uint64_t)(nslots - 1));
            while (keys[slot] >= 0 && keys[slot] != key) slot = (slot + 1) & (nslots - 1);
            if (keys[slot] < 0) {
                if (max_states >= 0 && states + 1 > max_states) { result = 1; goto done; }
                if (states >= INT32_MAX) { result = 3; goto done; }
                keys[slot] = key; ids[slot] = (int32_t)states++;
                if (ints_push(pairs, x) || ints_push(pairs, y)) { PyErr_NoMemory(); goto done; }
                int32_t id = ids[slot];
                if (states * 2 > nslots) { /* grow */
                    int64_t grown = nslots * 2;
                    int64_t *nk = malloc((size_t)grown * sizeof(int64_t));
                    int32_t *ni = malloc((size_t)grown * sizeof(int32_t));
                    if (!nk || !ni) { free(nk); free(ni); PyErr_NoMemory(); goto done; }
                    for (int64_t i = 0; i < grown; i++) nk[i] = -1;
                    for (int64_t i = 0; i < nslots; i++) {
                        if (keys[i] < 0) continue;
                        int64_t m = (int64_t)(((uint64_t)keys[i] * 0x9E3779B97F4A7C15ULL >> 20) & (uint64_t)(grown - 1));
                        while (nk[m] >= 0) m = (m + 1) & (grown - 1);
                        nk[m] = keys[i]; ni[m] = ids[i];
                    }
                    free(keys); free(ids); keys = nk; ids = ni; nslots = grown;
                }
                if (seconds >= 0 && !(states & 255)) {
                    clock_gettime(CLOCK_MONOTONIC, &t1);
                    if ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec) > seconds) {
                        result = 2;
                        goto done;
                    }
                }
                if (ints_push(trans, id)) { PyErr_NoMemory(); goto done; }
                continue;
            }
            if (ints_push(trans, ids[slot])) { PyErr_NoMemory(); goto done; }
        }
    }
    *accept = malloc((size_t)states);
    if (!*accept) { PyErr_NoMemory(); goto done; }
    for (int64_t d = 0; d < states; d++) {
        int32_t s = pairs->at[2 * d], t = pairs->at[2 * d + 1];
        int in_b = t >= 0 && ab[t];
        (*accept)[d] = aa[s] && (minus ? !in_b : in_b);
    }
    *states_out = states;
    result = 0;
done:
    free(keys); free(ids);
    return result;
}

/* product(a_trans, a_accept, b_trans, b_accept, na, nb, minus, minimal, digest_from, max_states, seconds) ->
 * `product_core`'s pairs as (trans: bytes, int32 D x 256; accept: bytes, uint8 D; pairs: bytes, int32 D x 2), or
 * with `minimal` their minimal DFA as (pairs: int, table: bytes, int32 D x 256; accept: bytes, uint8 D; content:
 * its `content_digest` where D >= digest_from > 0, else None), or 1 / 2 / 3 as subsets_core returns them. The
 * minimal DFA is found without the full product table: the bytes whose columns are equal in both tables are read as one class, the pairs found over one byte per class, then
 * minimized over those classes. */
static PyObject *product(PyObject *self, PyObject *args) {
    Py_buffer ta_b, aa_b, tb_b, ab_b;
    Py_ssize_t na, nb, digest_from, max_states;
    int minus, minimal;
    double seconds;
    if (!PyArg_ParseTuple(args, "y*y*y*y*nnppnnd", &ta_b, &aa_b, &tb_b, &ab_b, &na, &nb, &minus, &minimal, &digest_from,
                          &max_states, &seconds))
        return NULL;
    const int32_t *ta = ta_b.buf, *tb = tb_b.buf;
    PyObject *result = NULL;
    Ints pairs = {0}, trans = {0};
    uint8_t *accept = NULL;
    Minimal d = {0};
    int64_t states = 0;
    int32_t cls[256], rep[256], ncls = 0;
    uint32_t ha[256], hb[256];
    if (na < 1 || nb < 1 || ta_b.len < na * 256 * 4 || tb_b.len < nb * 256 * 4 || aa_b.len < na || ab_b.len < nb) {
        PyErr_SetString(PyExc_ValueError, "product: buffers smaller than the tables");
        goto done;
    }
    if (minimal) {
        column_hashes(ta, (int32_t)na, ha);
        column_hashes(tb, (int32_t)nb, hb);
        for (int b = 0; b < 256; b++) {
            int32_t c = 0;
            while (c < ncls && !(ha[rep[c]] == ha[b] && hb[rep[c]] == hb[b] && same_column(ta, (int32_t)na, rep[c], b)
                                 && same_column(tb, (int32_t)nb, rep[c], b))) c++;
            if (c == ncls) rep[ncls++] = b;
            cls[b] = c;
        }
    } else
        for (int b = 0; b < 256; b++) rep[ncls++] = b;
    int code = product_core(ta, aa_b.buf, tb, ab_b.buf, nb, 256, minus, rep, ncls, max_states, seconds, &trans,
                            &pairs, &accept, &states);
    if (code < 0) goto done;
    if (code) { result = PyLong_FromLong(code); goto done; }
    if (!minimal) {
        result = Py_BuildValue("(y#y#y#)", (const char *)trans.at, (Py_ssize_t)(trans.len * 4), (const char *)accept,
                               (Py_ssize_t)states, (const char *)pairs.at, (Py_ssize_t)(pairs.len * 4));
        goto done;
    }
    if (minimize_core(trans.at, accept, cls, (int32_t)states, ncls, ncls, digest_from, &d)) goto done;
    result = Py_BuildValue("(nOy#N)", (Py_ssize_t)states, d.bytes, (const char *)d.accept, (Py_ssize_t)d.size,
                           made_content(&d));
done:
    free(pairs.at); free(trans.at); free(accept);
    minimal_free(&d);
    PyBuffer_Release(&ta_b); PyBuffer_Release(&aa_b); PyBuffer_Release(&tb_b); PyBuffer_Release(&ab_b);
    return result;
}


/* minus_words(a_trans, a_accept, na, words, digest_from, max_states, seconds) -> (pairs: int, table: bytes,
 *   int32 D x 256; accept: bytes, uint8 D; content: bytes or None, as `product` gives it), or 1 / 2 / 3: the minimal DFA of a call-free DFA's language less a
 *   finite set of byte strings (a key rule: any key but the declared ones), as `product` with `minimal` gives it
 *   for the words' own automaton, without building that automaton. The words' trie is laid over the classes of
 *   `a`'s columns, each byte a word uses split into a class of its own, and the pairs walked over those classes
 *   (breadth first, classes by lowest byte: the minimal DFA is numbered the same whatever automaton of the words
 *   is walked). */
static PyObject *minus_words(PyObject *self, PyObject *args) {
    Py_buffer ta_b, aa_b;
    Py_ssize_t na, digest_from, max_states;
    PyObject *words;
    double seconds;
    if (!PyArg_ParseTuple(args, "y*y*nO!nnd", &ta_b, &aa_b, &na, &PyTuple_Type, &words, &digest_from, &max_states,
                          &seconds))
        return NULL;
    const int32_t *ta = ta_b.buf;
    PyObject *result = NULL;
    Ints pairs = {0}, trans = {0}, trie = {0};
    uint8_t *accept = NULL, *terminal = NULL, used[256] = {0};
    int32_t *ta_cls = NULL;
    Minimal d = {0};
    int64_t states = 0, nodes = 1, letters = 0;
    int32_t cls[256], rep[256], ka[256], ncls = 0, idx[256];
    uint32_t ha[256];
    Py_ssize_t nw = PyTuple_GET_SIZE(words);
    if (na < 1 || ta_b.len < na * 256 * 4 || aa_b.len < na) {
        PyErr_SetString(PyExc_ValueError, "minus_words: buffers smaller than the table");
        goto done;
    }
    for (Py_ssize_t w = 0; w < nw; w++) {
        PyObject *word = PyTuple_GET_ITEM(words, w);
        if (!PyBytes_Check(word)) { PyErr_SetString(PyExc_TypeError, "minus_words: words are bytes"); goto done; }
        const uint8_t *at = (const uint8_t *)PyBytes_AS_STRING(word);
        for (Py_ssize_t i = 0; i < PyBytes_GET_SIZE(word); i++) used[at[i]] = 1;
        letters += PyBytes_GET_SIZE(word);
    }
    /* a's classes (columns equal), then each byte a word uses on its own: numbered by lowest byte */
    column_hashes(ta, (int32_t)na, ha);
    int32_t nka = 0;
    for (int b = 0; b < 256; b++) {
        int32_t c = 0;
        while (c < nka && !(ha[idx[c]] == ha[b] && same_column(ta, (int32_t)na, idx[c], b))) c++;
        if (c == nka) idx[nka++] = b;
        ka[b] = c;
    }
    for (int b = 0; b < 256; b++) {
        int32_t c = -1;
        if (!used[b])
            for (int32_t j = 0; j < ncls && c < 0; j++)
                if (!used[rep[j]] && ka[rep[j]] == ka[b]) c = j;
        if (c < 0) { c = ncls; rep[ncls++] = b; }
        cls[b] = c;
    }
    /* the trie over those classes: node x class -> child (-1: none); node 0 the root; its nodes are states built */
    if (letters + 1 >= INT32_MAX / 256) { result = PyLong_FromLong(3); goto done; }
    if (max_states >= 0 && letters + 1 > max_states) { result = PyLong_FromLong(1); goto done; }
    terminal = calloc((size_t)letters + 1, 1);
    if (!terminal) { PyErr_NoMemory(); goto done; }
    for (int32_t c = 0; c < ncls; c++) if (ints_push(&trie, -1)) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t w = 0; w < nw; w++) {
        PyObject *word = PyTuple_GET_ITEM(words, w);
        const uint8_t *at = (const uint8_t *)PyBytes_AS_STRING(word);
        int32_t node = 0;
        for (Py_ssize_t i = 0; i < PyBytes_GET_SIZE(word); i++) {
            int64_t slot = (int64_t)node * ncls + cls[at[i]];
            if (trie.at[slot] < 0) {
                trie.at[slot] = (int32_t)nodes++;
                for (int32_t c = 0; c < ncls; c++) if (ints_push(&trie, -1)) { PyErr_NoMemory(); goto done; }
            }
            node = trie.at[(int64_t)node * ncls + cls[at[i]]];
        }
        terminal[node] = 1;
    }
    ta_cls = malloc((size_t)na * (size_t)ncls * sizeof(int32_t));
    if (!ta_cls) { PyErr_NoMemory(); goto done; }
    for (int64_t x = 0; x < na; x++)
        for (int32_t c = 0; c < ncls; c++) ta_cls[x * ncls + c] = ta[x * 256 + rep[c]];
    int32_t every[256];
    for (int32_t c = 0; c < ncls; c++) every[c] = c;
    int code = product_core(ta_cls, aa_b.buf, trie.at, terminal, nodes, ncls, 1, every, ncls, max_states, seconds,
                            &trans, &pairs, &accept, &states);
    if (code < 0) goto done;
    if (code) { result = PyLong_FromLong(code); goto done; }
    if (minimize_core(trans.at, accept, cls, (int32_t)states, ncls, ncls, digest_from, &d)) goto done;
    result = Py_BuildValue("(nOy#N)", (Py_ssize_t)states, d.bytes, (const char *)d.accept, (Py_ssize_t)d.size,
                           made_content(&d));
done:
    free(pairs.at); free(trans.at); free(trie.at); free(accept); free(terminal); free(ta_cls);
    minimal_free(&d);
    PyBuffer_Release(&ta_b); PyBuffer_Release(&aa_b);
    return result;
}

/* reaches(trans, accept, n, call_src, call_dst) -> bool: whether an accepting state is reachable from state 0
 * along the table (int32 n x 256, -1 for none; accept: uint8 n) and the extra edges call_src[i] -> call_dst[i]
 * (int32): a search forward that stops at the first accepting state it meets. */
static PyObject *reaches(PyObject *self, PyObject *args) {
    Py_buffer t_b, a_b, s_b, d_b;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*ny*y*", &t_b, &a_b, &n, &s_b, &d_b)) return NULL;
    const int32_t *trans = t_b.buf, *src = s_b.buf, *dst = d_b.buf;
    const uint8_t *accept = a_b.buf;
    int64_t ncalls = s_b.len / 4;
    PyObject *result = NULL;
    int32_t *off = NULL, *to = NULL, *unused = NULL, *stack = NULL;
    uint8_t *seen = NULL;
    if (n < 1 || t_b.len < n * 256 * 4 || a_b.len < n || d_b.len != s_b.len) {
        PyErr_SetString(PyExc_ValueError, "reaches: bad sizes");
        goto done;
    }
    for (int64_t i = 0; i < ncalls; i++)
        if (dst[i] < 0 || dst[i] >= n) { PyErr_SetString(PyExc_ValueError, "reaches: state out of range"); goto done; }
    if (by_source(src, dst, NULL, ncalls, (int32_t)n, NULL, &off, &to, &unused)) goto done;
    stack = malloc((size_t)n * sizeof(int32_t));
    seen = calloc((size_t)n, 1);
    if (!stack || !seen) { PyErr_NoMemory(); goto done; }
    int found = 0;
    int32_t top = 0;
    stack[top++] = 0;
    seen[0] = 1;
    while (top && !found) {
        int32_t s = stack[--top];
        if (accept[s]) { found = 1; break; }
        for (int b = 0; b < 256; b++) {
            int32_t t = trans[(int64_t)s * 256 + b];
            if (t >= n) { PyErr_SetString(PyExc_ValueError, "reaches: target out of range"); goto done; }
            if (t >= 0 && !seen[t]) { seen[t] = 1; stack[top++] = t; }
        }
        for (int32_t j = off[s]; j < off[s + 1]; j++)
            if (!seen[to[j]]) { seen[to[j]] = 1; stack[top++] = to[j]; }
    }
    result = PyBool_FromLong(found);
done:
    free(off); free(to); free(unused); free(stack); free(seen);
    PyBuffer_Release(&t_b); PyBuffer_Release(&a_b); PyBuffer_Release(&s_b); PyBuffer_Release(&d_b);
    return result;
}

/* endless(trans, accept, n, trimmed) -> bool: whether every state that reaches acceptance and has a successor that
 * does also has one that goes on from there (a DFA, int32 n x 256, -1 for none; accept: uint8 n; `trimmed`: every
 * state is known to reach acceptance, as minimization leaves them, so that search is skipped); see
 * extractor/automata/pda.py's `_endless`, which does the same with NumPy where this is not built. */
static PyObject *endless(PyObject *self, PyObject *args) {
    Py_buffer t_b, a_b;
    Py_ssize_t n;
    int trimmed;
    if (!PyArg_ParseTuple(args, "y*y*np", &t_b, &a_b, &n, &trimmed)) return NULL;
    const int32_t *trans = t_b.buf;
    PyObject *result = NULL;
    uint8_t *live = NULL, *onward = NULL;
    if (n < 1 || t_b.len < n * 256 * 4 || a_b.len < n) { PyErr_SetString(PyExc_ValueError, "endless: bad sizes"); goto done; }
    live = malloc((size_t)n);
    onward = calloc((size_t)n, 1);
    if (!live || !onward) { PyErr_NoMemory(); goto done; }
    if (trimmed)  /* every state reaches acceptance (a start state that does not has no edges: never onward) */
        memset(live, 1, (size_t)n);
    else if (reaching(trans, a_b.buf, live, (int32_t)n, 256)) goto done;
    for (Py_ssize_t s = 0; s < n; s++)  /* live states with a live successor */
        for (int b = 0; b < 256 && live[s] && !onward[s]; b++) {
            int32_t t = trans[s * 256 + b];
            onward[s] = t >= 0 && live[t];
        }
    int all = 1;
    for (Py_ssize_t s = 0; s < n && all; s++) {
        if (!onward[s]) continue;
        int on = 0;
        for (int b = 0; b < 256 && !on; b++) {
            int32_t t = trans[s * 256 + b];
            on = t >= 0 && onward[t];
        }
        all = on;
    }
    result = PyBool_FromLong(all);
done:
    free(live); free(onward);
    PyBuffer_Release(&t_b); PyBuffer_Release(&a_b);
    return result;
}

/* counted_moves(trans, inc, n, call_src, call_dst, call_counted, accept) -> (moves: bytes, n bit sets of
 * (n + 63) / 64 uint64 each; first: bytes, uint8 n): a counted rule's one-count steps and its count-0 finishes,
 * over its base DFA (table int32 n x 256; inc uint8 n x 256, 1 where a byte edge adds one; calls as int32 sources,
 * return states and a uint8 flag for those that add one; accepting states uint8 n). With Z the states reachable
 * by edges that add nothing (itself included): moves[s] holds t where some u in Z(s) steps to t adding one, and
 * first[s] = 1 where Z(s) holds an accepting state. Each strongly connected part of the uncounting edges is
 * found once (Tarjan's order: every part it reaches is done before it) and ORs the bit sets of those parts and
 * its own states' counted edges: the edges times n / 64 words, where the closure took n^3 / 64 per squaring. */
static PyObject *counted_moves(PyObject *self, PyObject *args) {
    Py_buffer t_b, i_b, cs_b, cd_b, cc_b, a_b;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*ny*y*y*y*", &t_b, &i_b, &n, &cs_b, &cd_b, &cc_b, &a_b)) return NULL;
    const int32_t *trans = t_b.buf, *call_src = cs_b.buf, *call_dst = cd_b.buf;
    const uint8_t *inc = i_b.buf, *call_counted = cc_b.buf, *accept = a_b.buf;
    Py_ssize_t ncalls = cs_b.len / 4, words = (n + 63) / 64;
    PyObject *result = NULL, *moves_b = NULL, *first_b = NULL;
    int32_t *off = NULL, *to = NULL, *last = NULL, *index = NULL, *low = NULL, *stack = NULL, *path = NULL;
    int32_t *edge = NULL, *part = NULL;
    uint64_t *own = NULL;
    if (n < 1 || n >= INT32_MAX / 256 || t_b.len < n * 256 * 4 || i_b.len < n * 256 || a_b.len < n
        || cd_b.len != cs_b.len || cc_b.len != ncalls) {
        PyErr_SetString(PyExc_ValueError, "counted_moves: bad sizes");
        goto done;
    }
    off = calloc((size_t)n + 1, sizeof(int32_t)); last = malloc((size_t)n * sizeof(int32_t));
    own = calloc((size_t)(n * words), sizeof(uint64_t));  /* each state's counted steps */
    index = malloc((size_t)n * sizeof(int32_t)); low = malloc((size_t)n * sizeof(int32_t));
    stack = malloc((size_t)n * sizeof(int32_t)); path = malloc((size_t)n * sizeof(int32_t));
    edge = malloc((size_t)n * sizeof(int32_t)); part = malloc((size_t)n * sizeof(int32_t));
    moves_b = PyBytes_FromStringAndSize(NULL, n * words * 8);
    first_b = PyBytes_FromStringAndSize(NULL, n);
    if (!off || !last || !own || !index || !low || !stack || !path || !edge || !part || !moves_b || !first_b) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < ncalls; i++)
        if (call_src[i] < 0 || call_src[i] >= n || call_dst[i] < 0 || call_dst[i] >= n) {
            PyErr_SetString(PyExc_ValueError, "counted_moves: a call out of range");
            goto done;
        }
    /* the uncounting edges, each (source, target) pair once, as CSR; the counted ones into `own` */
    for (int pass = 0; pass < 2; pass++) {
        for (Py_ssize_t s = 0; s < n; s++) last[s] = -1;
        for (Py_ssize_t s = 0; s < n; s++) {
            for (int b = 0; b < 256; b++) {
                int32_t t = trans[s * 256 + b];
                if (t < 0) continue;
                if (t >= n) { PyErr_SetString(PyExc_ValueError, "counted_moves: a target out of range"); goto done; }
                if (inc[s * 256 + b]) { own[s * words + t / 64] |= (uint64_t)1 << (t % 64); continue; }
                if (last[t] == s) continue;
                last[t] = (int32_t)s;
                if (pass) to[off[s]++] = t; else off[s + 1]++;
            }
        }
        for (Py_ssize_t i = 0; i < ncalls; i++) {
            int32_t s = call_src[i], t = call_dst[i];
            if (call_counted[i]) own[(Py_ssize_t)s * words + t / 64] |= (uint64_t)1 << (t % 64);
            else if (pass) to[off[s]++] = t;
            else off[s + 1]++;
        }
        if (pass) {  /* the cursors moved each start to the next one's: shift them back */
            for (Py_ssize_t s = n; s > 0; s--) off[s] = off[s - 1];
            off[0] = 0;
        } else {
            for (Py_ssize_t s = 0; s < n; s++) off[s + 1] += off[s];
            to = malloc((size_t)(off[n] ? off[n] : 1) * sizeof(int32_t));
            if (!to) { PyErr_NoMemory(); goto done; }
        }
    }
    uint64_t *moves = (uint64_t *)PyBytes_AS_STRING(moves_b);
    uint8_t *first = (uint8_t *)PyBytes_AS_STRING(first_b);
    for (Py_ssize_t s = 0; s < n; s++) index[s] = -1;
    int32_t next = 0, depth = 0, held = 0;  /* `path`: the search's states; `stack`: Tarjan's */
    for (Py_ssize_t root = 0; root < n; root++) {
        if (index[root] >= 0) continue;
        path[depth++] = (int32_t)root;
        index[root] = low[root] = next++;
        edge[root] = off[root];
        stack[held++] = (int32_t)root;
        part[root] = -1;
        while (depth) {
            int32_t u = path[depth - 1];
            if (edge[u] < off[u + 1]) {
                int32_t t = to[edge[u]++];
                if (index[t] < 0) {
                    index[t] = low[t] = next++;
                    edge[t] = off[t];
                    stack[held++] = t;
                    part[t] = -1;
                    path[depth++] = t;
                } else if (part[t] < 0 && index[t] < low[u])
                    low[u] = index[t];  /* still on Tarjan's stack */
                continue;
            }
            depth--;
            if (depth && low[u] < low[path[depth - 1]]) low[path[depth - 1]] = low[u];
            if (low[u] != index[u]) continue;
            /* u roots a part: its states are the stack's top down to u; every part they reach beyond it is done */
            int32_t from = held;
            do part[stack[--from]] = u; while (stack[from] != u);
            uint64_t *row = moves + (Py_ssize_t)u * words;
            uint8_t finishes = 0;
            memset(row, 0, (size_t)words * 8);
            for (int32_t k = from; k < held; k++) {
                int32_t v = stack[k];
                finishes |= accept[v] != 0;
                for (Py_ssize_t w = 0; w < words; w++) row[w] |= own[(Py_ssize_t)v * words + w];
                for (int32_t j = off[v]; j < off[v + 1]; j++) {
                    int32_t t = to[j];
                    if (part[t] == u) continue;
                    finishes |= first[t];
                    for (Py_ssize_t w = 0; w < words; w++) row[w] |= moves[(Py_ssize_t)t * words + w];
                }
            }
            for (int32_t k = from; k < held; k++) {
                int32_t v = stack[k];
                first[v] = finishes;
                if (v != u) memcpy(moves + (Py_ssize_t)v * words, row, (size_t)words * 8);
            }
            held = from;
        }
    }
    result = PyTuple_Pack(2, moves_b, first_b);
done:
    Py_XDECREF(moves_b); Py_XDECREF(first_b);
    free(off); free(to); free(last); free(own); free(index); free(low); free(stack); free(path); free(edge); free(part);
    PyBuffer_Release(&t_b); PyBuffer_Release(&i_b); PyBuffer_Release(&cs_b); PyBuffer_Release(&cd_b);
    PyBuffer_Release(&cc_b); PyBuffer_Release(&a_b);
    return result;
}

/* counted_rows(step, first, n, words, limit, max_cells) -> (rows, start, period, complete): the feasibility
 * rows of a counted rule (extractor/automata/counted.py's `_tables`, whose loop it mirrors). Row k+1 has state s
 * where row k has one of the states in step[s] (n bit sets of `words` uint64 each); `first` is row 0 (n bytes,
 * 0 or 1). Rows are made until one repeats an earlier one (start: where that one stands, period: how far back),
 * or `limit` rows stand (limit < 0: no limit); the repeat itself is not kept. `complete` is 0 where rows * n
 * passed `max_cells` first (rows are then those made so far). Repeats are found by a hash table of the rows'
 * bit sets, compared word for word on a hash match. */
static uint64_t row_hash(const uint64_t *row, Py_ssize_t words) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (Py_ssize_t w = 0; w < words; w++) h = (h ^ row[w]) * 0xBF58476D1CE4E5B9ull, h ^= h >> 31;
    return h;
}

static PyObject *counted_rows(PyObject *self, PyObject *args) {
    Py_buffer step_b, first_b;
    Py_ssize_t n, words, limit, max_cells;
    if (!PyArg_ParseTuple(args, "y*y*nnnn", &step_b, &first_b, &n, &words, &limit, &max_cells)) return NULL;
    const uint64_t *step = step_b.buf;
    PyObject *result = NULL;
    uint64_t *bits = NULL;  /* every row made, as bit sets */
    int64_t *slots = NULL;  /* hash table: row index + 1, 0 empty */
    Py_ssize_t count = 0, cap = 64, nslots = 128, start = 0, period = 0;
    int complete = 1;
    if (n <= 0 || words != (n + 63) / 64 || step_b.len < n * words * 8 || first_b.len < n) {
        PyErr_SetString(PyExc_ValueError, "counted_rows: bad sizes");
        goto done;
    }
    bits = calloc((size_t)(cap * words), sizeof(uint64_t));
    slots = calloc((size_t)nslots, sizeof(int64_t));
    if (!bits || !slots) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t s = 0; s < n; s++)
        if (((const uint8_t *)first_b.buf)[s]) bits[s / 64] |= (uint64_t)1 << (s % 64);
    count = 1;
    slots[row_hash(bits, words) & (uint64_t)(nslots - 1)] = 1;
    while (limit < 0 || count < limit) {
        if (count * n > max_cells) { complete = 0; break; }
        if (count == cap) {
            uint64_t *grown = realloc(bits, (size_t)(2 * cap * words) * sizeof(uint64_t));
            if (!grown) { PyErr_NoMemory(); goto done; }
            bits = grown, cap *= 2;
        }
        const uint64_t *prev = bits + (count - 1) * words;
        uint64_t *next = bits + count * words;
        memset(next, 0, (size_t)words * sizeof(uint64_t));
        for (Py_ssize_t s = 0; s < n; s++) {
            const uint64_t *row = step + s * words;
            for (Py_ssize_t w = 0; w < words; w++)
                if (row[w] & prev[w]) { next[s / 64] |= (uint64_t)1 << (s % 64); break; }
        }
        uint64_t h = row_hash(next, words);
        Py_ssize_t at = (Py_ssize_t)(h & (uint64_t)(nslots - 1)), seen = -1;
        while (slots[at]) {
            const uint64_t *other = bits + (slots[at] - 1) * words;
            if (!memcmp(other, next, (size_t)words * sizeof(uint64_t))) { seen = slots[at] - 1; break; }
            at = (at + 1) & (nslots - 1);
        }
        if (seen >= 0) { start = seen, period = count - seen; break; }
        slots[at] = ++count;
        if (2 * count > nslots) {  /* keep the table at most half full: rehash into twice the slots */
            int64_t *more = calloc((size_t)(2 * nslots), sizeof(int64_t));
            if (!more) { PyErr_NoMemory(); goto done; }
            nslots *= 2;
            for (Py_ssize_t k = 0; k < count; k++) {
                Py_ssize_t j = (Py_ssize_t)(row_hash(bits + k * words, words) & (uint64_t)(nslots - 1));
                while (more[j]) j = (j + 1) & (nslots - 1);
                more[j] = k + 1;
            }
            free(slots);
            slots = more;
        }
    }
    PyObject *rows = PyBytes_FromStringAndSize(NULL, count * n);
    if (!rows) goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(rows);
    for (Py_ssize_t k = 0; k < count; k++)
        for (Py_ssize_t s = 0; s < n; s++) out[k * n + s] = (uint8_t)(bits[k * words + s / 64] >> (s % 64) & 1);
    result = Py_BuildValue("Nnni", rows, start, period, complete);
done:
    free(bits); free(slots);
    PyBuffer_Release(&step_b); PyBuffer_Release(&first_b);
    return result;
}

/* Thompson's construction of a rule body (extractor/lang/dfa.py's `_NFA.build`, which it mirrors state for
 * state) read straight off the regex objects: `kinds` is (Bytes, Ref, Seq, Alt, Repeat, Suffix); each edge's
 * label (a byte mask or a callee's name) is numbered in `labels` (a dict, filled in order of first use). State
 * 0 starts, 1 accepts. A part built from a to b adds edges out of a and into b only, so alternatives share
 * both ends; `Suffix` nodes are built once, to state 1. Its states and edges go into an `Nfa`. */
typedef struct { PyObject *node; int32_t a, b; } Job;
typedef struct { Ints eps_src, eps_dst, edge_src, edge_label, edge_dst; int64_t size; } Nfa;

static void nfa_free(Nfa *f) {
    free(f->eps_src.at); free(f->eps_dst.at); free(f->edge_src.at); free(f->edge_label.at); free(f->edge_dst.at);
}

/* 0 where `size` states are within the budget, else 1 (or 3: past what int32 indexes). */
static int past_budget(int64_t size, Py_ssize_t max_states) {
    if (size < INT32_MAX / 2 && (max_states < 0 || size <= max_states)) return 0;
    return size >= INT32_MAX / 2 ? 3 : 1;
}

static int label_id(PyObject *labels, PyObject *key, int32_t *out) {
    PyObject *found = PyDict_GetItemWithError(labels, key);
    if (found) { *out = (int32_t)PyLong_AsLong(found); return 0; }
    if (PyErr_Occurred()) return -1;
    Py_ssize_t id = PyDict_Size(labels);
    PyObject *value = PyLong_FromSsize_t(id);
    if (!value || PyDict_SetItem(labels, key, value) < 0) { Py_XDECREF(value); return -1; }
    Py_DECREF(value);
    *out = (int32_t)id;
    return 0;
}

/* The label id of a node's `attr` (a byte mask or a rule name). */
static int label_of(PyObject *labels, PyObject *node, PyObject *attr, int32_t *out) {
    PyObject *key = PyObject_GetAttr(node, attr);
    if (!key) return -1;
    int failed = label_id(labels, key, out);
    Py_DECREF(key);
    return failed;
}

/* The NFA of `root` into `out`, its labels numbered in the dict `labels`. Returns 0, 1 / 2 / 3 as `subsets_core`
 * does (past `max_states`, past the deadline, past what int32 indexes), or -1 with a Python error set. */
static int thompson_core(PyObject *root, PyObject *kinds, PyObject *labels, Py_ssize_t max_states, double seconds,
                         Nfa *out) {
    if (PyTuple_GET_SIZE(kinds) != 6) { PyErr_SetString(PyExc_ValueError, "thompson: six node kinds"); return -1; }
    PyObject *k_bytes = PyTuple_GET_ITEM(kinds, 0), *k_ref = PyTuple_GET_ITEM(kinds, 1), *k_seq = PyTuple_GET_ITEM(kinds, 2);
    PyObject *k_alt = PyTuple_GET_ITEM(kinds, 3), *k_repeat = PyTuple_GET_ITEM(kinds, 4), *k_suffix = PyTuple_GET_ITEM(kinds, 5);
    static PyObject *s_items, *s_item, *s_mask, *s_rule, *s_min, *s_max;
    if (!s_items) {
        s_items = PyUnicode_InternFromString("items"); s_item = PyUnicode_InternFromString("item");
        s_mask = PyUnicode_InternFromString("mask"); s_rule = PyUnicode_InternFromString("rule");
        s_min = PyUnicode_InternFromString("min"); s_max = PyUnicode_InternFromString("max");
        if (!s_items || !s_item || !s_mask || !s_rule || !s_min || !s_max) return -1;
    }
    int result = -1;
    PyObject *suffixes = PyDict_New();
    Ints *eps_src = &out->eps_src, *eps_dst = &out->eps_dst, *edge_src = &out->edge_src;
    Ints *edge_label = &out->edge_label, *edge_dst = &out->edge_dst;
    Job *work = NULL;
    int64_t njobs = 0, cap = 0, size = 2;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!suffixes) return -1;
#define PUSH_JOB(N, A, B) do { \
        if (njobs == cap) { \
            int64_t c2 = cap ? cap * 2 : 256; \
            Job *w2 = realloc(work, (size_t)c2 * sizeof(Job)); \
            if (!w2) { PyErr_NoMemory(); goto done; } \
            work = w2; cap = c2; \
        } \
        work[njobs].node = (N); work[njobs].a = (A); work[njobs].b = (B); njobs++; \
    } while (0)
#define OVER_BUDGET() do { int code = past_budget(size, max_states); if (code) { result = code; goto done; } } while (0)
#define EPS(A, B) do { if (ints_push(eps_src, (A)) || ints_push(eps_dst, (B))) { PyErr_NoMemory(); goto done; } } while (0)
#define EDGE(A, L, B) do { if (ints_push(edge_src, (A)) || ints_push(edge_label, (L)) || ints_push(edge_dst, (B))) \
        { PyErr_NoMemory(); goto done; } } while (0)
    PUSH_JOB(root, 0, 1);
    int64_t checked = 0;
    while (njobs) {
        if (size - checked > 1024) {
            checked = size;
            OVER_BUDGET();
            if (seconds >= 0) {
                clock_gettime(CLOCK_MONOTONIC, &t1);
                if ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec) > seconds) {
                    result = 2;
                    goto done;
                }
            }
        }
        Job job = work[--njobs];
        PyObject *node = job.node, *kind = (PyObject *)Py_TYPE(node);
        int32_t a = job.a, b = job.b, id;
        if (kind == k_bytes || kind == k_ref) {
            if (label_of(labels, node, kind == k_bytes ? s_mask : s_rule, &id)) goto done;
            EDGE(a, id, b);
        } else if (kind == k_seq || kind == k_alt) {
            PyObject *items = PyObject_GetAttr(node, s_items);
            if (!items) goto done;
            Py_DECREF(items);  /* kept alive by the node */
            if (!PyTuple_Check(items)) { PyErr_SetString(PyExc_TypeError, "items: not a tuple"); goto done; }
            Py_ssize_t n = PyTuple_GET_SIZE(items);
            if (kind == k_seq && !n) EPS(a, b);
            for (Py_ssize_t k = 0; k < n; k++) {
                PyObject *item = PyTuple_GET_ITEM(items, k);
                if (kind == k_alt) { PUSH_JOB(item, a, b); continue; }
                int32_t next = k == n - 1 ? b : (int32_t)size++;
                if ((PyObject *)Py_TYPE(item) == k_bytes) {  /* a byte of a literal: its edge at once */
                    if (label_of(labels, item, s_mask, &id)) goto done;
                    EDGE(a, id, next);
                } else PUSH_JOB(item, a, next);
                a = next;
            }
        } else if (kind == k_suffix) {
            PyObject *entry = PyDict_GetItemWithError(suffixes, node);
            int32_t start;
            if (entry) start = (int32_t)PyLong_AsLong(entry);
            else {
                if (PyErr_Occurred()) goto done;
                start = (int32_t)size++;
                PyObject *value = PyLong_FromLong(start);
                if (!value || PyDict_SetItem(suffixes, node, value) < 0) { Py_XDECREF(value); goto done; }
                Py_DECREF(value);
                PyObject *item = PyObject_GetAttr(node, s_item);
                if (!item) goto done;
                Py_DECREF(item);  /* kept alive by the node */
                PUSH_JOB(item, start, 1);
            }
            EPS(a, start);
        } else if (kind == k_repeat) {
            PyObject *item = PyObject_GetAttr(node, s_item), *lo_o = PyObject_GetAttr(node, s_min);
            PyObject *hi_o = PyObject_GetAttr(node, s_max);
            long lo = lo_o ? PyLong_AsLong(lo_o) : -1, hi = hi_o && hi_o != Py_None ? PyLong_AsLong(hi_o) : -1;
            int unbounded = hi_o == Py_None;
            Py_XDECREF(item); Py_XDECREF(lo_o); Py_XDECREF(hi_o);  /* kept alive by the node */
            if (!item || !lo_o || !hi_o || PyErr_Occurred()) goto done;
            int32_t cur = a;
            for (long k = 0; k < lo; k++) {
                int32_t next = (int32_t)size++;
                PUSH_JOB(item, cur, next);
                cur = next;
                OVER_BUDGET();
            }
            if (unbounded) {
                int32_t hub = (int32_t)size++, back = (int32_t)size++;
                EPS(cur, hub); PUSH_JOB(item, hub, back); EPS(back, hub); EPS(hub, b);
            } else {
                for (long k = 0; k < hi - lo; k++) {
                    EPS(cur, b);
                    int32_t next = (int32_t)size++;
                    PUSH_JOB(item, cur, next);
                    cur = next;
                    OVER_BUDGET();
                }
                EPS(cur, b);
            }
        } else {
            PyErr_Format(PyExc_TypeError, "not a regex node: %R", node);
            goto done;
        }
    }
    out->size = size;
    result = 0;
done:
#undef PUSH_JOB
#undef OVER_BUDGET
#undef EPS
#undef EDGE
    Py_DECREF(suffixes);
    free(work);
    return result;
}

static void blake2b_16(const uint8_t *data, size_t len, uint8_t out[16]);

/* Classes of equal columns of a table (int32 d x 256): `first` each class's lowest byte, ascending, `canon` each
 * byte's class, `live` each class's count of entries >= 0; returns the number of classes. The guess of equal
 * columns comes from hashing every `stride`-th row, and is checked (and the live entries counted) in one pass over
 * all rows; a wrong guess is redone from hashes of every row, then by comparing columns where hashes collide. */
static int32_t column_classes(const int32_t *table, int32_t d, int32_t stride, int32_t first[256], int32_t canon[256],
                              size_t live[256]) {
    int32_t ids = 0, rep[256];
    uint32_t hash[256];
    for (int b = 0; b < 256; b++) hash[b] = 5381;
    for (int32_t s = 0; s < d; s += stride) {
        const int32_t *row = table + (int64_t)s * 256;
        for (int b = 0; b < 256; b++) hash[b] = ((hash[b] << 5) + hash[b]) ^ (uint32_t)row[b];
    }
    for (int b = 0; b < 256; b++) {
        rep[b] = b;
        for (int a = 0; a < b; a++)
            if (rep[a] == a && hash[a] == hash[b]) { rep[b] = a; break; }
        if (rep[b] == b) first[ids] = b, canon[b] = ids++;
        else canon[b] = canon[rep[b]];
    }
    for (int32_t j = 0; j < ids; j++) live[j] = 0;
    int guessed = 1;
    for (int32_t s = 0; s < d && guessed; s++) {
        const int32_t *row = table + (int64_t)s * 256;
        for (int b = 0; b < 256; b++)
            if (row[b] != row[rep[b]]) { guessed = 0; break; }
        for (int32_t j = 0; j < ids; j++) live[j] += row[first[j]] >= 0;
    }
    if (guessed) return ids;
    if (stride > 1) return column_classes(table, d, 1, first, canon, live);
    int32_t slot_of[512];  /* two different columns share a hash: open addressing over the hashes, compared */
    for (int i = 0; i < 512; i++) slot_of[i] = -1;
    ids = 0;
    for (int b = 0; b < 256; b++) {
        uint32_t at = (hash[b] * 2654435761u) >> 23;
        int32_t j;
        while ((j = slot_of[at]) >= 0 && !(hash[first[j]] == hash[b] && same_column(table, d, first[j], b)))
            at = (at + 1) & 511;
        if (j < 0) j = slot_of[at] = ids, first[ids++] = b;
        canon[b] = j;
    }
    for (int32_t j = 0; j < ids; j++) live[j] = 0;
    for (int32_t s = 0; s < d; s++)
        for (int32_t j = 0; j < ids; j++) live[j] += table[(int64_t)s * 256 + first[j]] >= 0;
    return ids;
}

/* BLAKE2b-128 of the content digest's bytes, given the equal columns already found: `ids` distinct columns, column
 * j's entry of row s at base[s * stride + col[j]], with `live[j]` entries >= 0, and `canon` each byte's column id.
 * Returns 0, or -1 out of memory (no Python error set: it may run without the GIL). */
static int sparse_digest(const int32_t *base, int64_t stride, const int32_t *col, int32_t ids, const size_t *live,
                         const int32_t canon[256], const uint8_t *accept, int32_t d, uint8_t out[16]) {
    size_t off[256], fill[256], head = 1 + 256, at = head;
    for (int32_t j = 0; j < ids; j++) off[j] = at, fill[j] = 0, at += 4 + 8 * live[j];
    uint8_t *data = malloc(at + (size_t)d + 4);
    if (!data) return -1;
    for (int32_t j = 0; j < ids; j++)
        for (int i = 0; i < 4; i++) data[off[j] + i] = (uint8_t)((uint32_t)live[j] >> (8 * i));
    for (int32_t s = 0; s < d; s++) {
        const int32_t *row = base + (int64_t)s * stride;
        for (int32_t j = 0; j < ids; j++) {
            int32_t v = row[col[j]];
            if (v < 0) continue;
            uint8_t *state = data + off[j] + 4 + 4 * fill[j], *target = data + off[j] + 4 + 4 * (live[j] + fill[j]);
            for (int i = 0; i < 4; i++) {
                state[i] = (uint8_t)((uint32_t)s >> (8 * i));
                target[i] = (uint8_t)((uint32_t)v >> (8 * i));
            }
            fill[j]++;
        }
    }
    data[0] = 'S';
    for (int b = 0; b < 256; b++) data[1 + b] = (uint8_t)canon[b];
    for (int32_t s = 0; s < d; s++) data[at++] = accept[s] ? 1 : 0;
    for (int i = 0; i < 4; i++) data[at++] = (uint8_t)((uint32_t)d >> (8 * i));
    blake2b_16(data, at, out);
    free(data);
    return 0;
}

/* The content digest of a DFA's table (int32 d x 256, -1 for none) and accepting states (uint8 d): BLAKE2b-128
 * of "S", each byte's column id (uint8, columns numbered by their lowest byte), each distinct column sparse (its
 * count of live entries, uint32, then their states, uint32, then their targets, int32, all little-endian: tables
 * are mostly -1, and hashing only what is live reads a fraction of the bytes), the accepting states and d (uint32):
 * equal for equal tables, whatever built them. The C constructions make it beside the table (`class_content`);
 * this reads a table made elsewhere. Two passes over the rows where the sampled guess of equal columns holds (a
 * table may be tens of megabytes). Returns 0, or -1 out of memory (no Python error set: the GIL is not held). */
static int content_digest(const int32_t *table, const uint8_t *accept, int32_t d, uint8_t out[16]) {
    int32_t canon[256], first[256];
    size_t live[256];
    int32_t ids = column_classes(table, d, d > 512 ? d / 256 : 1, first, canon, live);
    return sparse_digest(table, 256, first, ids, live, canon, accept, d, out);
}

/* `content_digest` of the table whose row s reads rows[s * k + byte_class[b]] at byte b: its equal columns are found
 * among the k class columns (hashed and their live entries counted in one pass, then compared where hashes meet),
 * never reading the d x 256 table. */
static int class_content(const int32_t *rows, int32_t k, const int32_t *byte_class, const uint8_t *accept, int32_t d,
                         uint8_t out[16]) {
    int32_t canon[256], col[256], id_of[256];
    size_t live[256], count[256];
    uint32_t hash[256];
    for (int32_t c = 0; c < k; c++) hash[c] = 5381, count[c] = 0, id_of[c] = -1;
    for (int32_t s = 0; s < d; s++) {
        const int32_t *row = rows + (int64_t)s * k;
        for (int32_t c = 0; c < k; c++) {
            hash[c] = ((hash[c] << 5) + hash[c]) ^ (uint32_t)row[c];
            count[c] += row[c] >= 0;
        }
    }
    int32_t ids = 0;
    for (int b = 0; b < 256; b++) {
        int32_t c = byte_class[b];
        if (id_of[c] < 0) {
            for (int32_t j = 0; j < ids && id_of[c] < 0; j++) {
                int same = hash[col[j]] == hash[c];
                for (int32_t s = 0; same && s < d; s++) same = rows[(int64_t)s * k + col[j]] == rows[(int64_t)s * k + c];
                if (same) id_of[c] = j;
            }
            if (id_of[c] < 0) col[ids] = c, id_of[c] = ids++;
        }
        canon[b] = id_of[c];
    }
    for (int32_t j = 0; j < ids; j++) live[j] = count[col[j]];
    return sparse_digest(rows, k, col, ids, live, canon, accept, d, out);
}

/* content(trans, accept, n) -> bytes: `content_digest` of a table. */
static PyObject *content(PyObject *self, PyObject *args) {
    Py_buffer t_b, a_b;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*n", &t_b, &a_b, &n)) return NULL;
    PyObject *result = NULL;
    uint8_t out[16];
    if (n < 1 || t_b.len < n * 256 * 4 || a_b.len < n) PyErr_SetString(PyExc_ValueError, "content: bad sizes");
    else {
        int code;
        Py_BEGIN_ALLOW_THREADS  /* only the buffers are read: another thread (a decoding loop) runs meanwhile */
        code = content_digest(t_b.buf, a_b.buf, (int32_t)n, out);
        Py_END_ALLOW_THREADS
        if (code) PyErr_NoMemory();
        else result = PyBytes_FromStringAndSize((const char *)out, 16);
    }
    PyBuffer_Release(&t_b); PyBuffer_Release(&a_b);
    return result;
}

/* table_classes(trans, n) -> bytes: each byte's class of equal columns (uint8 x 256, numbered by their lowest byte),
 * found as the content digest finds them (`column_classes`: rows sampled, then one pass in row order), where a
 * transposed copy would read the table by column. */
static PyObject *table_classes(PyObject *self, PyObject *args) {
    Py_buffer t_b;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*n", &t_b, &n)) return NULL;
    PyObject *result = NULL;
    if (n < 1 || t_b.len < n * 256 * 4) PyErr_SetString(PyExc_ValueError, "table_classes: bad sizes");
    else {
        int32_t first[256], canon[256];
        size_t live[256];
        uint8_t out[256];
        Py_BEGIN_ALLOW_THREADS  /* only the buffer is read */
        column_classes(t_b.buf, (int32_t)n, n > 512 ? (int32_t)n / 256 : 1, first, canon, live);
        Py_END_ALLOW_THREADS
        for (int b = 0; b < 256; b++) out[b] = (uint8_t)canon[b];
        result = PyBytes_FromStringAndSize((const char *)out, 256);
    }
    PyBuffer_Release(&t_b);
    return result;
}

/* A byte mask (a Python int below 2**256) as 32 bytes, little-endian. Returns 0, or -1 with a Python error set. */
static int mask_bytes(PyObject *mask, uint8_t out[32]) {
#if PY_VERSION_HEX < 0x030D0000
    return _PyLong_AsByteArray((PyLongObject *)mask, out, 32, 1, 0);  /* no method call per label */
#else
    PyObject *raw = PyObject_CallMethod(mask, "to_bytes", "is", 32, "little");
    if (!raw) return -1;
    memcpy(out, PyBytes_AS_STRING(raw), 32);
    Py_DECREF(raw);
    return 0;
#endif
}

/* The minimal DFA of a full table (int32 n x 256, -1 for none; accept: uint8 n) into `out`, the bytes whose
 * columns are equal read as one class (classes numbered by their lowest byte). Returns 0, or -1 with a Python
 * error set. */
static int minimize_table(const int32_t *trans, const uint8_t *accept, int32_t n, Minimal *out) {
    int failed = -1;
    int32_t byte_class[256], rep[256], ncls = 0;
    uint32_t hash[256], by_byte[256];
    int32_t *edges = NULL;
    column_hashes(trans, n, by_byte);
    for (int b = 0; b < 256; b++) {
        int32_t c = 0;
        while (c < ncls && !(hash[c] == by_byte[b] && same_column(trans, n, rep[c], b))) c++;
        if (c == ncls) { rep[ncls] = b; hash[ncls] = by_byte[b]; ncls++; }
        byte_class[b] = c;
    }
    edges = malloc((size_t)(n ? n : 1) * (size_t)ncls * sizeof(int32_t));
    if (!edges) { PyErr_NoMemory(); goto done; }
    for (int32_t s = 0; s < n; s++)
        for (int32_t c = 0; c < ncls; c++) edges[(int64_t)s * ncls + c] = trans[(int64_t)s * 256 + rep[c]];
    failed = minimize_core(edges, accept, byte_class, n, ncls, ncls, 0, out);
done:
    free(edges);
    return failed;
}

/* from_table(trans, accept, n) -> (table: bytes, int32 D x 256; accept: bytes, uint8 D): `minimize_table`. */
static PyObject *from_table(PyObject *self, PyObject *args) {
    Py_buffer trans_b, accept_b;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*n", &trans_b, &accept_b, &n)) return NULL;
    PyObject *result = NULL;
    Minimal d = {0};
    if (n < 1 || trans_b.len < n * 256 * 4 || accept_b.len < n)
        PyErr_SetString(PyExc_ValueError, "from_table: buffers smaller than n x 256");
    else if (!minimize_table(trans_b.buf, accept_b.buf, (int32_t)n, &d))
        result = Py_BuildValue("(Oy#)", d.bytes, (const char *)d.accept, (Py_ssize_t)d.size);
    minimal_free(&d);
    PyBuffer_Release(&trans_b); PyBuffer_Release(&accept_b);
    return result;
}

/* The bytes of a 32-byte mask, lowest first, into `out`; returns how many. */
static int mask_members(const uint8_t mask[32], uint8_t out[256]) {
    int count = 0;
    for (int w = 0; w < 4; w++) {
        uint64_t word;
        memcpy(&word, mask + 8 * w, 8);  /* little-endian machines: bit i of the word is byte 64 w + i */
        while (word) {
            out[count++] = (uint8_t)(64 * w + __builtin_ctzll(word));
            word &= word - 1;
        }
    }
    return count;
}

/* Each byte's class (`cls`, numbered by lowest byte) in the coarsest partition of 0..255 where every mask of
 * `bits` (n masks of 32 bytes; `is_mask[l]` marks them) is a union of classes. Returns the number of classes.
 * Each mask costs its own size: a class it cuts loses the bytes inside to a new class. */
static int32_t byte_classes(const uint8_t (*bits)[32], const uint8_t *is_mask, int64_t n, int32_t cls[256]) {
    int32_t ncls = 1, size[256], inside[256], split[256], renum[256];
    uint8_t members[256];
    for (int b = 0; b < 256; b++) cls[b] = 0;
    size[0] = 256;
    for (int64_t l = 0; l < n; l++) {
        if (!is_mask[l]) continue;
        int count = mask_members(bits[l], members);
        for (int i = 0; i < count; i++) { inside[cls[members[i]]] = 0; split[cls[members[i]]] = -1; }
        for (int i = 0; i < count; i++) inside[cls[members[i]]]++;
        for (int i = 0; i < count; i++) {
            int32_t c = cls[members[i]];
            if (split[c] == -2 || (split[c] < 0 && inside[c] == size[c])) { split[c] = -2; continue; }  /* not cut */
            if (split[c] < 0) { split[c] = ncls; size[ncls++] = 0; }
            cls[members[i]] = split[c];
            size[c]--;
            size[split[c]]++;
        }
    }
    for (int32_t c = 0; c < ncls; c++) renum[c] = -1;
    int32_t next = 0;
    for (int b = 0; b < 256; b++) {
        if (renum[cls[b]] < 0) renum[cls[b]] = next++;
        cls[b] = renum[cls[b]];
    }
    return ncls;
}

/* A minimal DFA's calls (int32 d x len(names): each state's return state per callee, -1 for none) as Python reads
 * them: a tuple with each state's ((callee, return state), ...), and into `*sites` every (state, callee, return
 * state), by state then callee. Returns a new reference, or NULL with a Python error set. */
static PyObject *call_tuples(const int32_t *returns, int32_t d, PyObject *names, PyObject **sites) {
    Py_ssize_t k = PyList_GET_SIZE(names), count = 0;
    for (int64_t i = 0; i < (int64_t)d * k; i++) count += returns[i] >= 0;
    PyObject *calls = PyTuple_New(d), *empty = PyTuple_New(0);
    *sites = PyTuple_New(count);
    if (!calls || !empty || !*sites) goto fail;
    Py_ssize_t at = 0;
    for (int32_t s = 0; s < d; s++) {
        Py_ssize_t here = 0;
        for (Py_ssize_t j = 0; j < k; j++) here += returns[(int64_t)s * k + j] >= 0;
        if (!here) { Py_INCREF(empty); PyTuple_SET_ITEM(calls, s, empty); continue; }
        PyObject *row = PyTuple_New(here);
        if (!row) goto fail;
        PyTuple_SET_ITEM(calls, s, row);
        for (Py_ssize_t j = 0, r = 0; j < k; j++) {
            int32_t t = returns[(int64_t)s * k + j];
            if (t < 0) continue;
            PyObject *name = PyList_GET_ITEM(names, j);
            PyObject *edge = Py_BuildValue("(Oi)", name, t), *site = Py_BuildValue("(iOi)", s, name, t);
            if (!edge || !site) { Py_XDECREF(edge); Py_XDECREF(site); goto fail; }
            PyTuple_SET_ITEM(row, r++, edge);
            PyTuple_SET_ITEM(*sites, at++, site);
        }
    }
    Py_DECREF(empty);
    return calls;
fail:
    Py_XDECREF(calls); Py_XDECREF(empty); Py_CLEAR(*sites);
    return NULL;
}

/* rule(node, kinds, allowed, digest_from, max_states, seconds) -> (nfa_states, subsets, table: bytes, int32 D x 256; accept:
 *   bytes, uint8 D; calls: tuple, each state's ((callee, return state), ...); sites: tuple of (state, callee,
 *   return state); content: the table's `content_digest` where D >= digest_from > 0, else None), or 1 / 2 / 3 as `subsets_core` returns them.
 * A rule body's minimal DFA in one call (extractor/lang/dfa.py's `build_dfa` does the same steps in Python where
 * this is not built): Thompson's construction, the byte classes of its masks, one column per callee in `allowed`
 * (None: every callee) in name order (calls to the others are not taken), the subset construction, then
 * minimization. The calls are read off the minimal DFA's return state per callee (`call_tuples`). */
static PyObject *rule(PyObject *self, PyObject *args) {
    PyObject *root, *kinds, *allowed;
    Py_ssize_t digest_from, max_states;
    double seconds;
    if (!PyArg_ParseTuple(args, "OO!Onnd", &root, &PyTuple_Type, &kinds, &allowed, &digest_from, &max_states, &seconds))
        return NULL;
    PyObject *result = NULL, *labels = PyDict_New(), *names = PyList_New(0), *columns = PyDict_New();
    PyObject *calls = NULL, *sites = NULL;
    PyObject **keys = NULL;
    Nfa f;
    Ints trans = {0}, syms = {0};
    Minimal d = {0};
    uint8_t *accept = NULL, (*bits)[32] = NULL, *is_mask = NULL;
    int32_t *label_off = NULL, cls[256];
    int64_t states = 0;
    struct timespec t0, t1;
    memset(&f, 0, sizeof f);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!labels || !names || !columns) goto done;
    int code = thompson_core(root, kinds, labels, max_states, seconds, &f);
    if (code < 0) goto done;
    if (!code && max_states >= 0 && f.size > max_states) code = 1;
    if (code) { result = PyLong_FromLong(code); goto done; }
    Py_ssize_t nlabels = PyDict_Size(labels), pos = 0;
    PyObject *key, *value;
    bits = calloc((size_t)(nlabels ? nlabels : 1), 32);
    is_mask = calloc((size_t)(nlabels ? nlabels : 1), 1);
    keys = calloc((size_t)(nlabels ? nlabels : 1), sizeof(PyObject *));
    label_off = malloc((size_t)(nlabels + 1) * sizeof(int32_t));
    if (!bits || !is_mask || !keys || !label_off) { PyErr_NoMemory(); goto done; }
    while (PyDict_Next(labels, &pos, &key, &value)) {  /* labels are numbered 0.. in insertion order */
        Py_ssize_t id = PyLong_AsSsize_t(value);
        if (id < 0 || id >= nlabels) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "rule: bad label"); goto done; }
        keys[id] = key;
        if (PyLong_Check(key)) {
            is_mask[id] = 1;
            if (mask_bytes(key, bits[id])) goto done;
            continue;
        }
        int in = allowed == Py_None ? 1 : PySequence_Contains(allowed, key);
        if (in < 0 || (in && PyList_Append(names, key) < 0)) goto done;
    }
    if (PyList_Sort(names) < 0) goto done;
    int32_t ncls = byte_classes((const uint8_t (*)[32])bits, is_mask, nlabels, cls);
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(names); j++) {
        PyObject *column = PyLong_FromSsize_t(ncls + j);
        int failed = !column || PyDict_SetItem(columns, PyList_GET_ITEM(names, j), column) < 0;
        Py_XDECREF(column);
        if (failed) goto done;
    }
    for (Py_ssize_t l = 0; l < nlabels; l++) {  /* each label's symbols: its classes, ascending, or its column */
        label_off[l] = (int32_t)syms.len;
        if (is_mask[l]) {
            uint8_t members[256], hit[32] = {0};  /* the classes it meets, as a bit set: read back in order */
            int count = mask_members(bits[l], members);
            for (int i = 0; i < count; i++) hit[cls[members[i]] >> 3] |= (uint8_t)(1 << (cls[members[i]] & 7));
            for (int i = mask_members(hit, members), j = 0; j < i; j++)
                if (ints_push(&syms, members[j])) { PyErr_NoMemory(); goto done; }
            continue;
        }
        PyObject *column = PyDict_GetItemWithError(columns, keys[l]);
        if (!column && PyErr_Occurred()) goto done;
        if (column && ints_push(&syms, (int32_t)PyLong_AsLong(column))) { PyErr_NoMemory(); goto done; }
    }
    label_off[nlabels] = (int32_t)syms.len;
    int32_t m = ncls + (int32_t)PyList_GET_SIZE(names);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double spent = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    code = subsets_core(f.eps_src.at, f.eps_dst.at, f.eps_src.len, f.edge_src.at, f.edge_label.at, f.edge_dst.at,
                        f.edge_src.len, label_off, syms.at, nlabels, (int32_t)f.size, m,
                        max_states >= 0 ? max_states - (Py_ssize_t)f.size : -1,
                        seconds >= 0 ? (seconds > spent ? seconds - spent : 0.0) : -1.0, &trans, &accept, &states);
    if (code < 0) goto done;
    if (code) { result = PyLong_FromLong(code); goto done; }
    if (minimize_core(trans.at, accept, cls, (int32_t)states, m, ncls, digest_from, &d)) goto done;
    calls = call_tuples(d.calls, d.size, names, &sites);
    if (!calls) goto done;
    result = Py_BuildValue("(nnOy#OON)", (Py_ssize_t)f.size, (Py_ssize_t)states, d.bytes, (const char *)d.accept,
                           (Py_ssize_t)d.size, calls, sites, made_content(&d));
done:
    Py_XDECREF(calls); Py_XDECREF(sites);
    Py_XDECREF(labels); Py_XDECREF(names); Py_XDECREF(columns);
    nfa_free(&f); minimal_free(&d);
    free(trans.at); free(syms.at); free(accept); free(bits); free(is_mask); free(keys); free(label_off);
    return result;
}

/* BLAKE2b (RFC 7693), unkeyed, for the 16-byte digests of rule bodies (extractor/lang/regex.py's `digest`, which
 * uses hashlib.blake2b(data, digest_size=16) where this is not built: the two give the same bytes). */
static const uint64_t B2_IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
static const uint8_t B2_SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

static uint64_t rotr64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

static void b2_compress(uint64_t h[8], const uint8_t block[128], uint64_t t, int last) {
    uint64_t v[16], m[16];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(m, block, sizeof m);  /* the message words are little-endian: one load each */
#else
    for (int i = 0; i < 16; i++) {
        m[i] = 0;
        for (int j = 7; j >= 0; j--) m[i] = (m[i] << 8) | block[8 * i + j];
    }
#endif
    for (int i = 0; i < 8; i++) { v[i] = h[i]; v[i + 8] = B2_IV[i]; }
    v[12] ^= t;
    if (last) v[14] = ~v[14];
#define B2_G(a, b, c, d, x, y) do { \
        v[a] = v[a] + v[b] + (x); v[d] = rotr64(v[d] ^ v[a], 32); v[c] = v[c] + v[d]; v[b] = rotr64(v[b] ^ v[c], 24); \
        v[a] = v[a] + v[b] + (y); v[d] = rotr64(v[d] ^ v[a], 16); v[c] = v[c] + v[d]; v[b] = rotr64(v[b] ^ v[c], 63); \
    } while (0)
    /* the rounds written out, so that every message index is a constant and `v` lives in registers */
#define B2_ROUND(r) do { \
        B2_G(0, 4, 8, 12, m[B2_SIGMA[r][0]], m[B2_SIGMA[r][1]]); B2_G(1, 5, 9, 13, m[B2_SIGMA[r][2]], m[B2_SIGMA[r][3]]); \
        B2_G(2, 6, 10, 14, m[B2_SIGMA[r][4]], m[B2_SIGMA[r][5]]); B2_G(3, 7, 11, 15, m[B2_SIGMA[r][6]], m[B2_SIGMA[r][7]]); \
        B2_G(0, 5, 10, 15, m[B2_SIGMA[r][8]], m[B2_SIGMA[r][9]]); B2_G(1, 6, 11, 12, m[B2_SIGMA[r][10]], m[B2_SIGMA[r][11]]); \
        B2_G(2, 7, 8, 13, m[B2_SIGMA[r][12]], m[B2_SIGMA[r][13]]); B2_G(3, 4, 9, 14, m[B2_SIGMA[r][14]], m[B2_SIGMA[r][15]]); \
    } while (0)
    B2_ROUND(0); B2_ROUND(1); B2_ROUND(2); B2_ROUND(3); B2_ROUND(4); B2_ROUND(5);
    B2_ROUND(6); B2_ROUND(7); B2_ROUND(8); B2_ROUND(9); B2_ROUND(10); B2_ROUND(11);
#undef B2_ROUND
#undef B2_G
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

static void blake2b_16(const uint8_t *data, size_t len, uint8_t out[16]) {
    uint64_t h[8];
    uint8_t block[128];
    memcpy(h, B2_IV, sizeof h);
    h[0] ^= 0x01010000ULL ^ 16;
    size_t done = 0;
    while (len - done > 128) {
        b2_compress(h, data + done, (uint64_t)(done + 128), 0);
        done += 128;
    }
    memset(block, 0, sizeof block);
    memcpy(block, data + done, len - done);
    b2_compress(h, block, (uint64_t)len, 1);
    for (int i = 0; i < 16; i++) out[i] = (uint8_t)(h[i / 8] >> (8 * (i % 8)));
}

static PyObject *blake2b16(PyObject *self, PyObject *args) {
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "y*", &data)) return NULL;
    uint8_t out[16];
    blake2b_16(data.buf, (size_t)data.len, out);
    PyBuffer_Release(&data);
    return PyBytes_FromStringAndSize((const char *)out, 16);
}

typedef struct { uint8_t *at; size_t len, cap; } Buf;

static int buf_add(Buf *b, const void *data, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        uint8_t *at = realloc(b->at, cap);
        if (!at) { PyErr_NoMemory(); return -1; }
        b->at = at; b->cap = cap;
    }
    memcpy(b->at + b->len, data, n);
    b->len += n;
    return 0;
}

/* The digest a node keeps (a new reference), or NULL without an error where it has none. Read as an attribute,
 * never through __dict__: an instance's dict is made only when asked for, and each one is another object
 * for the cyclic collector to walk. */
static PyObject *kept_digest(PyObject *node, PyObject *key) {
    PyObject *found = NULL;
#if PY_VERSION_HEX >= 0x030D0000
    if (PyObject_GetOptionalAttr(node, key, &found) < 0) return NULL;
#else
    if (_PyObject_LookupAttr(node, key, &found) < 0) return NULL;
#endif
    return found;
}

/* A node waiting on the digest walk's stack: `parts` (borrowed from the node) is set once its parts are pushed. */
typedef struct { PyObject *node, *parts, *one; Py_ssize_t n; } Pending;

/* digest(node, kinds, other) -> bytes: `regex.digest` for (Bytes, Ref, Seq, Alt, Repeat, Suffix) bodies, each node
 * keeping its digest under "_digest"; a node of another kind is handed to `other` (Python), which keeps its own.
 * Walked in post-order with a stack of the digests made: each occurrence of a part hands its digest up to the node
 * above, so a node reads its own attribute once and its parts' never (a shared node met again reads the digest it
 * kept the first time). */
static PyObject *digest(PyObject *self, PyObject *args) {
    PyObject *root, *kinds, *other;
    if (!PyArg_ParseTuple(args, "OO!O", &root, &PyTuple_Type, &kinds, &other)) return NULL;
    if (PyTuple_GET_SIZE(kinds) != 6) { PyErr_SetString(PyExc_ValueError, "digest: six node kinds"); return NULL; }
    PyObject *k_bytes = PyTuple_GET_ITEM(kinds, 0), *k_ref = PyTuple_GET_ITEM(kinds, 1), *k_seq = PyTuple_GET_ITEM(kinds, 2);
    PyObject *k_alt = PyTuple_GET_ITEM(kinds, 3), *k_repeat = PyTuple_GET_ITEM(kinds, 4), *k_suffix = PyTuple_GET_ITEM(kinds, 5);
    static PyObject *s_key, *s_items, *s_item, *s_mask, *s_rule, *s_min, *s_max;
    if (!s_key) {
        s_key = PyUnicode_InternFromString("_digest"); s_items = PyUnicode_InternFromString("items");
        s_item = PyUnicode_InternFromString("item"); s_mask = PyUnicode_InternFromString("mask");
        s_rule = PyUnicode_InternFromString("rule"); s_min = PyUnicode_InternFromString("min");
        s_max = PyUnicode_InternFromString("max");
        if (!s_key || !s_items || !s_item || !s_mask || !s_rule || !s_min || !s_max) return NULL;
    }
    PyObject *result = NULL, **made = NULL;  /* `made`: the digests handed up, new references */
    Pending *stack = NULL;
    Py_ssize_t depth = 0, cap = 0, nmade = 0, made_cap = 0;
    Buf data = {0};
    PyObject *found = kept_digest(root, s_key);
    if (found || PyErr_Occurred()) return found;
#define PUSH_NODE(N) do { \
        if (depth == cap) { \
            Py_ssize_t c2 = cap ? cap * 2 : 256; \
            Pending *s2 = realloc(stack, (size_t)c2 * sizeof(Pending)); \
            if (!s2) { PyErr_NoMemory(); goto done; } \
            stack = s2; cap = c2; \
        } \
        stack[depth++] = (Pending){(N), NULL, NULL, -1}; \
    } while (0)
#define HAND_UP(D) do { \
        if (nmade == made_cap) { \
            Py_ssize_t c2 = made_cap ? made_cap * 2 : 256; \
            PyObject **m2 = realloc(made, (size_t)c2 * sizeof(PyObject *)); \
            if (!m2) { Py_DECREF(D); PyErr_NoMemory(); goto done; } \
            made = m2; made_cap = c2; \
        } \
        made[nmade++] = (D); \
    } while (0)
    PUSH_NODE(root);
    while (depth) {
        Pending at = stack[--depth];
        PyObject *node = at.node, *kind = (PyObject *)Py_TYPE(node);
        if (at.n < 0) {  /* met: its kept digest, or its parts pushed above it */
            PyObject *have = kept_digest(node, s_key);
            if (have) { HAND_UP(have); continue; }
            if (PyErr_Occurred()) goto done;
            if (kind != k_bytes && kind != k_ref && kind != k_seq && kind != k_alt && kind != k_repeat && kind != k_suffix) {
                PyObject *other_made = PyObject_CallOneArg(other, node);  /* keeps it on the node */
                if (!other_made) goto done;
                HAND_UP(other_made);
                continue;
            }
            if (kind == k_seq || kind == k_alt) {
                at.parts = PyObject_GetAttr(node, s_items);
                if (!at.parts) goto done;
                Py_DECREF(at.parts);
                if (!PyTuple_Check(at.parts)) { PyErr_SetString(PyExc_TypeError, "items"); goto done; }
                at.n = PyTuple_GET_SIZE(at.parts);
            } else if (kind == k_repeat || kind == k_suffix) {
                at.one = PyObject_GetAttr(node, s_item);
                if (!at.one) goto done;
                Py_DECREF(at.one);
                at.n = 1;
            } else
                at.n = 0;
            if (at.n) {  /* again once its parts have handed up their digests, the first part's lowest */
                stack[depth++] = at;
                for (Py_ssize_t k = at.n; k-- > 0;) PUSH_NODE(at.parts ? PyTuple_GET_ITEM(at.parts, k) : at.one);
                continue;
            }
        }
        data.len = 0;
        const char *tag = kind == k_seq ? "\0S" : kind == k_alt ? "\0A" : kind == k_suffix ? "\0X"
                          : kind == k_repeat ? "\0R" : kind == k_bytes ? "\0B" : "\0F";
        if (buf_add(&data, tag, 2)) goto done;
        for (Py_ssize_t k = nmade - at.n; k < nmade; k++) {
            char *bytes; Py_ssize_t len;
            if (PyBytes_AsStringAndSize(made[k], &bytes, &len) < 0 || buf_add(&data, bytes, (size_t)len)) goto done;
        }
        if (kind == k_repeat) {
            PyObject *lo = PyObject_GetAttr(node, s_min), *hi = lo ? PyObject_GetAttr(node, s_max) : NULL;
            char text[64];
            if (hi && hi == Py_None) snprintf(text, sizeof text, "(%ld, None)", PyLong_AsLong(lo));
            else if (hi) snprintf(text, sizeof text, "(%ld, %ld)", PyLong_AsLong(lo), PyLong_AsLong(hi));
            Py_XDECREF(lo); Py_XDECREF(hi);
            if (!hi || PyErr_Occurred() || buf_add(&data, text, strlen(text))) goto done;
        } else if (kind == k_bytes) {
            PyObject *mask = PyObject_GetAttr(node, s_mask);
            uint8_t raw[32];
            int failed = !mask || mask_bytes(mask, raw) || buf_add(&data, raw, 32);
            Py_XDECREF(mask);
            if (failed) goto done;
        } else if (kind == k_ref) {
            PyObject *rule = PyObject_GetAttr(node, s_rule);
            Py_ssize_t len;
            const char *text = rule ? PyUnicode_AsUTF8AndSize(rule, &len) : NULL;
            int failed = !text || buf_add(&data, text, (size_t)len);
            Py_XDECREF(rule);
            if (failed) goto done;
        }
        uint8_t out[16];
        blake2b_16(data.at, data.len, out);
        PyObject *own = PyBytes_FromStringAndSize((const char *)out, 16);
        if (!own) goto done;
        if (PyObject_GenericSetAttr(node, s_key, own) < 0) { Py_DECREF(own); goto done; }  /* past a frozen __setattr__ */
        for (Py_ssize_t k = nmade - at.n; k < nmade; k++) Py_DECREF(made[k]);
        nmade -= at.n;
        HAND_UP(own);
    }
    if (nmade != 1) { PyErr_SetString(PyExc_RuntimeError, "digest: the walk handed up no single digest"); goto done; }
    result = made[--nmade];
done:
#undef PUSH_NODE
#undef HAND_UP
    for (Py_ssize_t k = 0; k < nmade; k++) Py_DECREF(made[k]);
    free(stack); free(made); free(data.at);
    return result;
}

static PyMethodDef methods[] = {
    {"live", live, METH_VARARGS, "Which states of a DFA reach an accepting one."},
    {"minus_words", minus_words, METH_VARARGS, "The minimal DFA of a call-free DFA's language less some strings."},
    {"product", product, METH_VARARGS, "The product of two call-free DFAs (intersection or difference), or its "
                                       "minimal DFA."},
    {"counted_moves", counted_moves, METH_VARARGS, "A counted rule's one-count steps and count-0 finishes."},
    {"counted_rows", counted_rows, METH_VARARGS, "The feasibility rows of a counted rule, up to a repeat."},
    {"endless", endless, METH_VARARGS, "Whether every live state of a DFA with a live successor can go on."},
    {"reaches", reaches, METH_VARARGS, "Whether a DFA with extra edges reaches acceptance from its start."},
    {"rule", rule, METH_VARARGS, "A rule body's minimal DFA: Thompson, subsets and minimization in one call."},
    {"content", content, METH_VARARGS, "The content digest of a DFA's table and accepting states."},
    {"table_classes", table_classes, METH_VARARGS, "Each byte's class of equal columns of a full byte table."},
    {"from_table", from_table, METH_VARARGS, "The minimal DFA of a full byte table."},
    {"digest", digest, METH_VARARGS, "The structural digest of a rule body, kept on each node."},
    {"blake2b16", blake2b16, METH_VARARGS, "BLAKE2b with a 16-byte digest (what `digest` hashes with)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_partition", NULL, -1, methods};

PyMODINIT_FUNC PyInit__partition(void) { return PyModule_Create(&module); }
