/* The native inner loop of mask computation: the walk of a call-free rule's DFA over the
 * vocabulary trie in preorder (extractor/masks/trie.py). Pure C over buffers (NumPy arrays from tables.py / trie.py);
 * extractor/masks/tables.py keeps a NumPy version of the same walk where this is not built. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A counted DFA (extractor/automata/counted.py): state = count * n + base state. */
typedef struct {
    const int32_t *trans;   /* base transitions, n x 256 */
    const uint8_t *inc;     /* n x 256: the byte starts a counted unit */
    const uint8_t *accept;  /* n */
    const int32_t *cum;     /* (k1) x n cumulative feasibility */
    int64_t n, lo, hi, k1, start, period; /* hi < 0: unbounded (count saturates at lo) */
} Counted;

static int reach(const Counted *c, int64_t t, int64_t count) {
    int64_t a = c->lo - count > 0 ? c->lo - count : 0;
    int64_t b = c->hi >= 0 ? c->hi - count : ((int64_t)1 << 40);
    if (b < a) return 0;
    int64_t last = c->k1 - 2;
    if (c->period) {
        int64_t j = c->start, p = c->period;
        int64_t shift = a > j ? a - (j + (a - j) % p) : 0;
        a -= shift; b -= shift;
        int64_t cap = (a > j ? a : j) + p - 1;
        if (b > cap) b = cap;
    }
    if (b > last) b = last;
    if (a > last + 1) a = last + 1;
    int64_t top = b + 1 > a ? b + 1 : a;
    return c->cum[top * c->n + t] - c->cum[a * c->n + t] > 0;
}

static inline int64_t counted_step(const Counted *c, int64_t state, int b) {
    int64_t s = state % c->n, count = state / c->n;
    int64_t t = c->trans[s * 256 + b];
    if (t < 0) return -1;
    count += c->inc[s * 256 + b];
    if (c->hi < 0 && count > c->lo) count = c->lo;
    return reach(c, t, count) ? count * c->n + t : -1;
}

static inline int counted_accepts(const Counted *c, int64_t state) {
    int64_t s = state % c->n, count = state / c->n;
    return c->accept[s] && count >= c->lo && (c->hi < 0 || count <= c->hi);
}

/* leaf_walk(nodes, ids, trans, accept, start, counted, allowed, exits) -> number of exit nodes.
 * nodes: int32 (count + 1) x 3 in preorder: subtree end, first row, depth << 8 | byte; the last is a
 * sentinel whose first row is the number of rows. Rows under node i are [lo[i], lo[end[i]]); those
 * ending at i come first, up to the first child's first row. Plain DFA: trans int32 n x 256, accept
 * uint8. Counted: `counted` is (inc, cum, n, lo, hi, k1, start, period) and trans/accept are the base
 * DFA's. Sets the bit of each token walked to its end in `allowed` (packed 32 tokens a word, as masks/bits.py packs
 * them: the table is written as it is kept), and writes into `exits` (int32) the nodes where the rule may end with
 * tokens running on past them. */
static PyObject *leaf_walk(PyObject *self, PyObject *args) {
    Py_buffer nodes_b, ids_b, trans_b, acc_b, allowed_b, exits_b, inc_b = {0}, cum_b = {0};
    long long start;
    PyObject *counted;
    if (!PyArg_ParseTuple(args, "y*y*y*y*LOw*w*", &nodes_b, &ids_b, &trans_b, &acc_b, &start, &counted,
                          &allowed_b, &exits_b))
        return NULL;
    const int32_t *nodes = nodes_b.buf;
    Py_ssize_t count = nodes_b.len / (Py_ssize_t)(3 * sizeof(int32_t)) - 1;
    const int64_t *ids = ids_b.buf;
    const int32_t *trans = trans_b.buf;
    const uint8_t *accept = acc_b.buf;
    uint32_t *allowed = allowed_b.buf;
    int32_t *exits = exits_b.buf;
    Py_ssize_t cap = exits_b.len / (Py_ssize_t)sizeof(int32_t), nexits = 0;
    Counted c = {0};
    int is_counted = counted != Py_None;
    if (is_counted) {
        long long n, clo, chi, k1, cstart, period;
        if (!PyArg_ParseTuple(counted, "y*y*LLLLLL", &inc_b, &cum_b, &n, &clo, &chi, &k1, &cstart, &period))
            goto fail;
        c = (Counted){trans, inc_b.buf, accept, cum_b.buf, n, clo, chi, k1, cstart, period};
    }
    Py_ssize_t room = 1024;
    int64_t *state = malloc(sizeof(int64_t) * (size_t)room);
    if (!state) { PyErr_NoMemory(); goto fail; }
    state[0] = start;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 1; i < count;) {
        const int32_t *node = nodes + 3 * i;
        int32_t d = node[2] >> 8, b = node[2] & 255;
        if (d >= room) {  /* a token longer than the room so far */
            int64_t *more = realloc(state, sizeof(int64_t) * (size_t)(room * 2));
            if (!more) { failed = 1; break; }
            state = more;
            room *= 2;
        }
        int64_t s = state[d - 1], t;
        int acc;
        if (is_counted) {
            t = counted_step(&c, s, b);
            acc = t >= 0 && counted_accepts(&c, t);
        } else {
            t = trans[s * 256 + b];
            acc = t >= 0 && accept[t];
        }
        if (t < 0) { i = node[0]; continue; }
        state[d] = t;
        int32_t hi = nodes[3 * node[0] + 1], mid = node[0] > i + 1 ? node[4] : hi;
        for (int32_t r = node[1]; r < mid; r++) allowed[ids[r] >> 5] |= (uint32_t)1 << (ids[r] & 31);
        if (acc && mid < hi && nexits < cap) exits[nexits++] = (int32_t)i;
        i++;
    }
    Py_END_ALLOW_THREADS
    free(state);
    if (failed) PyErr_NoMemory();
fail:
    PyBuffer_Release(&nodes_b); PyBuffer_Release(&ids_b); PyBuffer_Release(&trans_b); PyBuffer_Release(&acc_b);
    PyBuffer_Release(&allowed_b); PyBuffer_Release(&exits_b);
    if (inc_b.obj) PyBuffer_Release(&inc_b);
    if (cum_b.obj) PyBuffer_Release(&cum_b);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromSsize_t(nexits);
}

/* Doubles a walk's two per-depth arrays (a token longer than they have room for). Returns 0, or -1 where memory
 * ran out (both left as they were, still owned by the caller). */
static int deepen(int32_t **a, int32_t **b, Py_ssize_t *room) {
    int32_t *a2 = realloc(*a, sizeof(int32_t) * (size_t)(*room * 2));
    if (!a2) return -1;
    *a = a2;
    int32_t *b2 = realloc(*b, sizeof(int32_t) * (size_t)(*room * 2));
    if (!b2) return -1;
    *b = b2;
    *room *= 2;
    return 0;
}

/* unit_walk(nodes, ids, trans, accept, inc, start, ends, units, exits, exit_units) -> number of exit nodes.
 * leaf_walk of a counted DFA's base (trans int32 n x 256, accept uint8 n, inc uint8 n x 256) from base state
 * `start`, with no count: for each token walked to its end, its end state into ends[id] (int32, left as
 * the caller set it for the others) and the units it read into units[id]; each node where the base accepts
 * with tokens running on past it into `exits`, with the units read to it into `exit_units`. A count's
 * table follows from these without another walk (masks/tables.py: the count only grows along a token). */
static PyObject *unit_walk(PyObject *self, PyObject *args) {
    Py_buffer nodes_b, ids_b, trans_b, acc_b, inc_b, ends_b, units_b, exits_b, xunits_b;
    long long start;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*Lw*w*w*w*", &nodes_b, &ids_b, &trans_b, &acc_b, &inc_b, &start, &ends_b,
                          &units_b, &exits_b, &xunits_b))
        return NULL;
    const int32_t *nodes = nodes_b.buf, *trans = trans_b.buf;
    const int64_t *ids = ids_b.buf;
    const uint8_t *accept = acc_b.buf, *inc = inc_b.buf;
    int32_t *ends = ends_b.buf, *units = units_b.buf, *exits = exits_b.buf, *xunits = xunits_b.buf;
    Py_ssize_t count = nodes_b.len / (Py_ssize_t)(3 * sizeof(int32_t)) - 1;
    Py_ssize_t cap = exits_b.len / (Py_ssize_t)sizeof(int32_t), nexits = 0;
    if (xunits_b.len < exits_b.len) cap = xunits_b.len / (Py_ssize_t)sizeof(int32_t);
    Py_ssize_t room = 256;
    int32_t *state = malloc(sizeof(int32_t) * (size_t)room), *read = malloc(sizeof(int32_t) * (size_t)room);
    if (!state || !read) { free(state); free(read); PyErr_NoMemory(); goto done; }
    state[0] = (int32_t)start; read[0] = 0;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 1; i < count;) {
        const int32_t *node = nodes + 3 * i;
        int32_t d = node[2] >> 8, b = node[2] & 255;
        if (d >= room && deepen(&state, &read, &room)) { failed = 1; break; }
        int32_t s = state[d - 1], t = trans[s * 256 + b];
        if (t < 0) { i = node[0]; continue; }
        int32_t u = read[d - 1] + inc[s * 256 + b];
        state[d] = t; read[d] = u;
        int32_t hi = nodes[3 * node[0] + 1], mid = node[0] > i + 1 ? node[4] : hi;
        for (int32_t r = node[1]; r < mid; r++) { ends[ids[r]] = t; units[ids[r]] = u; }
        if (accept[t] && mid < hi && nexits < cap) { exits[nexits] = (int32_t)i; xunits[nexits++] = u; }
        i++;
    }
    Py_END_ALLOW_THREADS
    free(state); free(read);
    if (failed) PyErr_NoMemory();
done:
    PyBuffer_Release(&nodes_b); PyBuffer_Release(&ids_b); PyBuffer_Release(&trans_b); PyBuffer_Release(&acc_b);
    PyBuffer_Release(&inc_b); PyBuffer_Release(&ends_b); PyBuffer_Release(&units_b); PyBuffer_Release(&exits_b);
    PyBuffer_Release(&xunits_b);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromSsize_t(nexits);
}

/* ref_walk(nodes, ids, trans, accept, start, rtrans, rstart, same, rwords, rexits, words, exits)
 * -> number of exit nodes. leaf_walk for a plain DFA, in step with a reference DFA whose table from
 * `rstart` is known (rwords its tokens packed 32 a word as masks/bits.py packs them, rexits sorted nodes): below a
 * node where the two reach states t, u with same[t][u] (uint8, states x reference states: the same language from
 * there on), the subtree keeps the reference's tokens and exits, unwalked. So `words` (the table's packed tokens,
 * as many words as rwords) starts as a copy of rwords, and only subtrees where the two differ are walked (or
 * cleared, where the rule is dead): the reference's table is read, and this one written, packed. */
static PyObject *ref_walk(PyObject *self, PyObject *args) {
    Py_buffer nodes_b, ids_b, trans_b, acc_b, rtrans_b, same_b, rallowed_b, rexits_b, allowed_b, exits_b;
    long long start, rstart;
    if (!PyArg_ParseTuple(args, "y*y*y*y*Ly*Ly*y*y*w*w*", &nodes_b, &ids_b, &trans_b, &acc_b, &start, &rtrans_b,
                          &rstart, &same_b, &rallowed_b, &rexits_b, &allowed_b, &exits_b))
        return NULL;
    if (allowed_b.len != rallowed_b.len || allowed_b.len % 4) {
        PyErr_SetString(PyExc_ValueError, "ref_walk: the table's packed words and the reference's, as many of each");
        PyBuffer_Release(&nodes_b); PyBuffer_Release(&ids_b); PyBuffer_Release(&trans_b); PyBuffer_Release(&acc_b);
        PyBuffer_Release(&rtrans_b); PyBuffer_Release(&same_b); PyBuffer_Release(&rallowed_b);
        PyBuffer_Release(&rexits_b); PyBuffer_Release(&allowed_b); PyBuffer_Release(&exits_b);
        return NULL;
    }
    const int32_t *nodes = nodes_b.buf, *trans = trans_b.buf, *rtrans = rtrans_b.buf, *rexits = rexits_b.buf;
    const int64_t *ids = ids_b.buf;
    const uint8_t *accept = acc_b.buf, *same = same_b.buf;
    Py_ssize_t nr = rtrans_b.len / (Py_ssize_t)(256 * sizeof(int32_t));
    uint32_t *allowed = allowed_b.buf;
    int32_t *exits = exits_b.buf;
    Py_ssize_t count = nodes_b.len / (Py_ssize_t)(3 * sizeof(int32_t)) - 1;
    Py_ssize_t cap = exits_b.len / (Py_ssize_t)sizeof(int32_t), nexits = 0;
    Py_ssize_t nrexits = rexits_b.len / (Py_ssize_t)sizeof(int32_t);
    Py_ssize_t room = 256;
    int32_t *state = malloc(sizeof(int32_t) * (size_t)room), *rstate = malloc(sizeof(int32_t) * (size_t)room);
    if (!state || !rstate) {
        free(state); free(rstate);
        PyBuffer_Release(&nodes_b); PyBuffer_Release(&ids_b); PyBuffer_Release(&trans_b); PyBuffer_Release(&acc_b);
        PyBuffer_Release(&rtrans_b); PyBuffer_Release(&same_b); PyBuffer_Release(&rallowed_b);
        PyBuffer_Release(&rexits_b); PyBuffer_Release(&allowed_b); PyBuffer_Release(&exits_b);
        return PyErr_NoMemory();
    }
    state[0] = (int32_t)start; rstate[0] = (int32_t)rstart;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    memcpy(allowed, rallowed_b.buf, (size_t)allowed_b.len);
    for (Py_ssize_t i = 1; i < count;) {
        const int32_t *node = nodes + 3 * i;
        int32_t d = node[2] >> 8, b = node[2] & 255;
        if (d >= room && deepen(&state, &rstate, &room)) { failed = 1; break; }
        int32_t t = trans[state[d - 1] * 256 + b], r = rstate[d - 1], u = r >= 0 ? rtrans[r * 256 + b] : -1;
        int32_t hi = nodes[3 * node[0] + 1];
        if (t < 0) {  /* the rule is dead below: none of the reference's tokens there */
            if (u >= 0) for (int32_t row = node[1]; row < hi; row++) allowed[ids[row] >> 5] &= ~((uint32_t)1 << (ids[row] & 31));
            i = node[0];
            continue;
        }
        if (u >= 0 && same[t * nr + u]) {  /* the same language below: the reference's answer */
            Py_ssize_t lo = 0, top = nrexits;
            while (lo < top) { Py_ssize_t m = (lo + top) / 2; if (rexits[m] < i) lo = m + 1; else top = m; }
            for (; lo < nrexits && rexits[lo] < node[0] && nexits < cap; lo++) exits[nexits++] = rexits[lo];
            i = node[0];
            continue;
        }
        state[d] = t; rstate[d] = u;
        int32_t mid = node[0] > i + 1 ? node[4] : hi;
        for (int32_t row = node[1]; row < mid; row++) allowed[ids[row] >> 5] |= (uint32_t)1 << (ids[row] & 31);
        if (accept[t] && mid < hi && nexits < cap) exits[nexits++] = (int32_t)i;
        i++;
    }
    Py_END_ALLOW_THREADS
    free(state); free(rstate);
    if (failed) PyErr_NoMemory();
    PyBuffer_Release(&nodes_b); PyBuffer_Release(&ids_b); PyBuffer_Release(&trans_b); PyBuffer_Release(&acc_b);
    PyBuffer_Release(&rtrans_b); PyBuffer_Release(&same_b); PyBuffer_Release(&rallowed_b);
    PyBuffer_Release(&rexits_b); PyBuffer_Release(&allowed_b); PyBuffer_Release(&exits_b);
    return failed ? NULL : PyLong_FromSsize_t(nexits);
}

/* The pushdown automaton itself in C, for walks that never return to Python: stacks are interned as
 * (parent stack, frame) nodes, configurations as sorted sets of stack ids, and each configuration's
 * successor per byte is remembered for the walk. Mirrors Automaton.step / close / accepting
 * (extractor/automata/pda.py) and CountedDFA (counted.py); masks/walk.py's native() exports the arrays. */
typedef struct { int32_t parent, rule, state, depth; } StackNode;

typedef struct {
    const int32_t **trans, *call_ptr, *call_to, *offset, *kind;  /* trans[rule]: its table, states x 256 */
    const uint8_t **accept, *call_inc;                              /* accept[rule]: its accepting states */
    Counted *counted;             /* per rule; used where kind[rule] == 1 */
    StackNode *st; int32_t nst, capst;
    int32_t *sh; int64_t shcap;   /* open-addressed hash: stack ids */
    int32_t *cbeg, *clen; uint8_t *cflag; int32_t ncfg, capcfg;
    int32_t *arena; int64_t narena, caparena;
    int32_t *ch; int64_t chcap;   /* open-addressed hash: configuration ids */
    int32_t *memo;                /* ncfg x 256: successor, -1 dead, -2 not computed */
    int32_t *list, *work, *stamp; int64_t caplist, capwork, capstamp; int32_t now;
    int failed;
} PDA;

static void *grow(void *p, int64_t *cap, int64_t need, size_t size, PDA *P) {
    if (need <= *cap) return p;
    int64_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = realloc(p, (size_t)c * size);
    if (!q) { P->failed = 1; return p; }
    *cap = c;
    return q;
}

static int32_t *grow_zero(int32_t *p, int64_t *cap, int64_t need, PDA *P) {
    int64_t old = *cap;
    p = grow(p, cap, need, sizeof(int32_t), P);
    if (!P->failed && *cap > old) memset(p + old, 0, sizeof(int32_t) * (size_t)(*cap - old));
    return p;
}

static inline uint64_t mix(uint64_t h) { h ^= h >> 33; h *= 0xff51afd7ed558ccdULL; h ^= h >> 33; return h; }

static int32_t stack_id(PDA *P, int32_t parent, int32_t rule, int32_t state) {
    if ((int64_t)P->nst * 2 >= P->shcap) {  /* rehash at half load */
        int64_t cap = P->shcap ? P->shcap * 2 : 1024;
        int32_t *h = malloc(sizeof(int32_t) * (size_t)cap);
        if (!h) { P->failed = 1; return -1; }
        memset(h, 0xff, sizeof(int32_t) * (size_t)cap);
        for (int32_t k = 0; k < P->nst; k++) {
            StackNode *n = P->st + k;
            uint64_t i = mix(((uint64_t)(uint32_t)n->parent << 40) ^ ((uint64_t)(uint32_t)n->rule << 24) ^ (uint32_t)n->state) & (uint64_t)(cap - 1);
            while (h[i] >= 0) i = (i + 1) & (uint64_t)(cap - 1);
            h[i] = k;
        }
        free(P->sh); P->sh = h; P->shcap = cap;
    }
    uint64_t mask = (uint64_t)(P->shcap - 1);
    uint64_t i = mix(((uint64_t)(uint32_t)parent << 40) ^ ((uint64_t)(uint32_t)rule << 24) ^ (uint32_t)state) & mask;
    for (; P->sh[i] >= 0; i = (i + 1) & mask) {
        StackNode *n = P->st + P->sh[i];
        if (n->parent == parent && n->rule == rule && n->state == state) return P->sh[i];
    }
    int64_t cap = P->capst;
    P->st = grow(P->st, &cap, P->nst + 1, sizeof(StackNode), P);
    P->capst = (int32_t)cap;
    if (P->failed) return -1;
    P->st[P->nst] = (StackNode){parent, rule, state, parent < 0 ? 1 : P->st[parent].depth + 1};
    P->sh[i] = P->nst;
    return P->nst++;
}

static int frame_accepts(PDA *P, int32_t rule, int32_t state) {
    if (P->kind[rule]) return counted_accepts(P->counted + rule, state);
    return P->accept[rule][state];
}

static int32_t frame_step(PDA *P, int32_t rule, int32_t state, int b) {
    if (P->kind[rule]) { int64_t t = counted_step(P->counted + rule, state, b); return t > INT32_MAX ? -1 : (int32_t)t; }
    return P->trans[rule][(int64_t)state * 256 + b];
}

/* Closes the stacks in P->list[0..n) (calls entered, finished rules returned from) and interns the set. */
static int32_t close_config(PDA *P, int32_t n) {
    if (++P->now == INT32_MAX) { memset(P->stamp, 0, sizeof(int32_t) * (size_t)P->capstamp); P->now = 1; }
    int32_t top = 0, out = 0;
    P->work = grow(P->work, &P->capwork, n, sizeof(int32_t), P);
    if (P->failed) return -1;
    for (int32_t k = 0; k < n; k++) P->work[top++] = P->list[k];
    while (top > 0 && !P->failed) {
        int32_t id = P->work[--top];
        P->stamp = grow_zero(P->stamp, &P->capstamp, (int64_t)P->nst + 1, P);
        if (P->failed) break;
        if (P->stamp[id] == P->now) continue;
        P->stamp[id] = P->now;
        P->list = grow(P->list, &P->caplist, out + 1, sizeof(int32_t), P);
        if (P->failed) break;
        P->list[out++] = id;
        StackNode node = P->st[id];
        int32_t r = node.rule, s = node.state;
        int32_t base = s, count = 0;
        Counted *c = P->kind[r] ? P->counted + r : NULL;
        if (c) { base = (int32_t)(s % c->n); count = (int32_t)(s / c->n); }
        for (int32_t e = P->call_ptr[P->offset[r] + base]; e < P->call_ptr[P->offset[r] + base + 1]; e++) {
            int32_t callee = P->call_to[2 * e], ret = P->call_to[2 * e + 1];
            if (c) {
                int64_t c2 = count + P->call_inc[e];
                if (c->hi < 0 && c2 > c->lo) c2 = c->lo;
                if (!reach(c, ret, c2)) continue;
                ret = (int32_t)(c2 * c->n + ret);
            }
            int32_t caller = stack_id(P, node.parent, r, ret);
            int32_t pushed = caller < 0 ? -1 : stack_id(P, caller, callee, 0);
            if (pushed < 0) break;
            P->work = grow(P->work, &P->capwork, top + 1, sizeof(int32_t), P);
            if (P->failed) break;
            P->work[top++] = pushed;
        }
        if (node.parent >= 0 && frame_accepts(P, r, s)) {
            P->work = grow(P->work, &P->capwork, top + 1, sizeof(int32_t), P);
            if (P->failed) break;
            P->work[top++] = node.parent;
        }
    }
    if (P->failed) return -1;
    /* sort the ids (insertion sort: sets are small) and intern */
    for (int32_t a = 1; a < out; a++) {
        int32_t v = P->list[a], b = a - 1;
        while (b >= 0 && P->list[b] > v) { P->list[b + 1] = P->list[b]; b--; }
        P->list[b + 1] = v;
    }
    uint64_t h = 1469598103934665603ULL;
    for (int32_t a = 0; a < out; a++) h = mix(h ^ (uint32_t)P->list[a]);
    if ((int64_t)P->ncfg * 2 >= P->chcap) {
        int64_t cap = P->chcap ? P->chcap * 2 : 256;
        int32_t *t = malloc(sizeof(int32_t) * (size_t)cap);
        if (!t) { P->failed = 1; return -1; }
        memset(t, 0xff, sizeof(int32_t) * (size_t)cap);
        for (int32_t k = 0; k < P->ncfg; k++) {
            uint64_t g = 1469598103934665603ULL;
            for (int32_t a = 0; a < P->clen[k]; a++) g = mix(g ^ (uint32_t)P->arena[P->cbeg[k] + a]);
            uint64_t i = g & (uint64_t)(cap - 1);
            while (t[i] >= 0) i = (i + 1) & (uint64_t)(cap - 1);
            t[i] = k;
        }
        free(P->ch); P->ch = t; P->chcap = cap;
    }
    uint64_t mask = (uint64_t)(P->chcap - 1), i = h & mask;
    for (; P->ch[i] >= 0; i = (i + 1) & mask) {
        int32_t k = P->ch[i];
        if (P->clen[k] == out && !memcmp(P->arena + P->cbeg[k], P->list, sizeof(int32_t) * (size_t)out)) return k;
    }
    int64_t cap = P->capcfg;
    P->cbeg = grow(P->cbeg, &cap, P->ncfg + 1, sizeof(int32_t), P); cap = P->capcfg;
    P->clen = grow(P->clen, &cap, P->ncfg + 1, sizeof(int32_t), P); cap = P->capcfg;
    P->cflag = grow(P->cflag, &cap, P->ncfg + 1, sizeof(uint8_t), P); cap = P->capcfg;
    P->memo = grow(P->memo, &cap, P->ncfg + 1, sizeof(int32_t) * 256, P);
    P->capcfg = (int32_t)cap;
    P->arena = grow(P->arena, &P->caparena, P->narena + out, sizeof(int32_t), P);
    if (P->failed) return -1;
    int32_t k = P->ncfg++;
    P->cbeg[k] = (int32_t)P->narena; P->clen[k] = out;
    memcpy(P->arena + P->narena, P->list, sizeof(int32_t) * (size_t)out);
    P->narena += out;
    uint8_t flag = 0;
    for (int32_t a = 0; a < out; a++) {
        StackNode *nd = P->st + P->list[a];
        if (nd->depth == 1 && frame_accepts(P, nd->rule, nd->state)) flag = 1;
    }
    P->cflag[k] = flag;
    for (int b = 0; b < 256; b++) P->memo[(int64_t)k * 256 + b] = -2;
    P->ch[i] = k;
    return k;
}

static int32_t pda_step(PDA *P, int32_t cfg, int b) {
    int32_t *slot = P->memo + (int64_t)cfg * 256 + b;
    if (*slot != -2) return *slot;
    int32_t n = 0, beg = P->cbeg[cfg], len = P->clen[cfg];
    for (int32_t a = 0; a < len; a++) {
        StackNode nd = P->st[P->arena[beg + a]];
        int32_t t = frame_step(P, nd.rule, nd.state, b);
        if (t < 0) continue;
        int32_t moved = stack_id(P, nd.parent, nd.rule, t);
        if (moved < 0) return -1;
        P->list = grow(P->list, &P->caplist, n + 1, sizeof(int32_t), P);
        if (P->failed) return -1;
        P->list[n++] = moved;
    }
    int32_t next = n ? close_config(P, n) : -1;
    P->memo[(int64_t)cfg * 256 + b] = next;  /* memo may have moved: index again */
    return next;
}

/* A PDA with the automaton's arrays it reads: `a` and `tables` hold the buffers of the 10-tuple masks/walk.py's
 * native() builds (a[0] and a[1] are tuples: their items' buffers are in `tables`). */
typedef struct {
    PDA P;
    Py_buffer a[10], *tables;
    Py_ssize_t rules;
    int got;            /* a[2..got) are held */
    PyObject *aut;      /* the tuple, kept alive while a persistent machine reads it */
} Machine;

static void machine_free(Machine *M) {
    PDA *P = &M->P;
    for (int k = 2; k < M->got; k++) PyBuffer_Release(M->a + k);
    for (Py_ssize_t k = 0; M->tables && k < 2 * M->rules; k++)
        if (M->tables[k].obj) PyBuffer_Release(M->tables + k);
    free(M->tables); free(P->trans); free(P->accept); free(P->counted); free(P->st); free(P->sh); free(P->cbeg);
    free(P->clen); free(P->cflag); free(P->arena); free(P->ch); free(P->memo); free(P->list); free(P->work);
    free(P->stamp);
    Py_XDECREF(M->aut);
    memset(M, 0, sizeof *M);
}

/* Reads the automaton tuple into M (zeroed by the caller); -1 with an exception set on failure (free M after). */
static int machine_load(Machine *M, PyObject *aut) {
    PDA *P = &M->P;
    M->got = 2;
    if (!PyTuple_Check(aut) || PyTuple_GET_SIZE(aut) != 10) { PyErr_SetString(PyExc_TypeError, "automaton: a 10-tuple"); return -1; }
    for (; M->got < 10; M->got++)
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(aut, M->got), M->a + M->got, PyBUF_SIMPLE) < 0) return -1;
    /* per-rule tables, per-rule accepting states, inc (counted rules' rows only), call_ptr, call_to, call_inc,
     * offset, kind, params (int64 rules x 8: n, lo, hi, k1, start, period, cum offset, inc row), cum */
    Py_buffer *a = M->a;
    P->call_ptr = a[3].buf; P->call_to = a[4].buf; P->call_inc = a[5].buf;
    P->offset = a[6].buf; P->kind = a[7].buf;
    const uint8_t *inc = a[2].buf;
    const int64_t *params = a[8].buf;
    const int32_t *cum = a[9].buf;
    Py_ssize_t rules = a[6].len / (Py_ssize_t)sizeof(int32_t);
    PyObject *trans_of = PyTuple_GET_ITEM(aut, 0), *accept_of = PyTuple_GET_ITEM(aut, 1);
    if (!PyTuple_Check(trans_of) || !PyTuple_Check(accept_of) || PyTuple_GET_SIZE(trans_of) != rules
        || PyTuple_GET_SIZE(accept_of) != rules) {
        PyErr_SetString(PyExc_TypeError, "automaton: a table and accepting states per rule");
        return -1;
    }
    M->tables = calloc(2 * (size_t)rules + 1, sizeof(Py_buffer));
    P->trans = calloc((size_t)rules + 1, sizeof(int32_t *));
    P->accept = calloc((size_t)rules + 1, sizeof(uint8_t *));
    P->counted = calloc((size_t)rules + 1, sizeof(Counted));
    M->rules = rules;
    if (!M->tables || !P->trans || !P->accept || !P->counted) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t r = 0; r < rules; r++) {
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(trans_of, r), M->tables + 2 * r, PyBUF_SIMPLE) < 0
            || PyObject_GetBuffer(PyTuple_GET_ITEM(accept_of, r), M->tables + 2 * r + 1, PyBUF_SIMPLE) < 0) return -1;
        P->trans[r] = M->tables[2 * r].buf;
        P->accept[r] = M->tables[2 * r + 1].buf;
    }
    for (Py_ssize_t r = 0; r < rules; r++) {
        if (!P->kind[r]) continue;
        const int64_t *q = params + 8 * r;
        P->counted[r] = (Counted){P->trans[r], inc + q[7] * 256, P->accept[r], cum + q[6], q[0], q[1], q[2], q[3], q[4], q[5]};
    }
    return 0;
}

/* Interns the configuration written as int32 [frames, rule, state, ..., frames, rule, state, ...] (closed). */
static int32_t machine_config(PDA *P, const int32_t *start, Py_ssize_t nstart) {
    int32_t n = 0;
    for (Py_ssize_t k = 0; k < nstart;) {
        int32_t frames = start[k++], parent = -1;
        for (int32_t f = 0; f < frames && k + 1 < nstart; f++, k += 2) parent = stack_id(P, parent, start[k], start[k + 1]);
        P->list = grow(P->list, &P->caplist, n + 1, sizeof(int32_t), P);
        if (P->failed || parent < 0) return -1;
        P->list[n++] = parent;
    }
    return P->failed ? -1 : close_config(P, n);
}

/* What a walk of the trie found: token ids (or, with `configs`, the distinct configurations at token ends) and
 * exit nodes. */
typedef struct {
    int64_t *reached, nr, rcap;
    int32_t *exits;
    int64_t ne, ecap;
    uint8_t *seen;      /* configurations already listed (`configs` walks) */
    int64_t capseen;
} Walked;

static void walked_free(Walked *W) { free(W->reached); free(W->exits); free(W->seen); }

/* The walk of configurations of the pushdown automaton over the trie from configuration `first`: the proper
 * descendants of each root, skipping every subtree no stack survives. Lists the ids of the tokens walked to their
 * end (or, with `configs`, the configurations they end in, each once) and, with `want_exits`, the nodes where a
 * stack is down to its bottom frame, that frame's rule may end, and tokens run on past the node. */
static void walk_trie(PDA *P, const int32_t *nodes, const int64_t *ids, int32_t first, const int32_t *roots,
                      Py_ssize_t nroots, int want_exits, int configs, Walked *W) {
    int32_t *cfg = NULL;  /* the configuration at each depth of the walk, grown as tokens run longer */
    int64_t room = 0;
    for (Py_ssize_t j = 0; j < nroots && first >= 0 && !P->failed; j++) {
        int32_t root = roots[j], stop = nodes[3 * root], at = nodes[3 * root + 2] >> 8;
        cfg = grow(cfg, &room, at + 1, sizeof(int32_t), P);
        if (P->failed) break;
        cfg[at] = first;
        for (int32_t i = root + 1; i < stop && !P->failed;) {
            const int32_t *node = nodes + 3 * i;
            int32_t d = node[2] >> 8, b = node[2] & 255;
            if (d >= room) {
                cfg = grow(cfg, &room, d + 1, sizeof(int32_t), P);
                if (P->failed) break;
            }
            int32_t t = pda_step(P, cfg[d - 1], b);
            if (t < 0) { i = node[0]; continue; }
            cfg[d] = t;
            int32_t hi = nodes[3 * node[0] + 1], mid = node[0] > i + 1 ? node[4] : hi;
            if (configs && mid > node[1]) {
                if (t >= W->capseen) {
                    int64_t old = W->capseen;
                    W->seen = grow(W->seen, &W->capseen, (int64_t)t + 1, 1, P);
                    if (P->failed) break;
                    memset(W->seen + old, 0, (size_t)(W->capseen - old));
                }
                if (!W->seen[t]) {
                    W->seen[t] = 1;
                    W->reached = grow(W->reached, &W->rcap, W->nr + 1, sizeof(int64_t), P);
                    if (P->failed) break;
                    W->reached[W->nr++] = t;
                }
            } else if (!configs) {
                W->reached = grow(W->reached, &W->rcap, W->nr + (mid - node[1]), sizeof(int64_t), P);
                if (P->failed) break;
                for (int32_t row = node[1]; row < mid; row++) W->reached[W->nr++] = ids[row];
            }
            if (want_exits && P->cflag[t] && mid < hi) {
                W->exits = grow(W->exits, &W->ecap, W->ne + 1, sizeof(int32_t), P);
                if (P->failed) break;
                W->exits[W->ne++] = i;
            }
            i++;
        }
    }
    free(cfg);
}

static PyObject *walked_result(PDA *P, Walked *W) {
    if (P->failed) { PyErr_SetString(PyExc_MemoryError, "out of memory in the pushdown walk"); return NULL; }
    return Py_BuildValue("y#y#", W->reached ? (const char *)W->reached : "", (Py_ssize_t)(W->nr * (Py_ssize_t)sizeof(int64_t)),
                         W->exits ? (const char *)W->exits : "", (Py_ssize_t)(W->ne * (Py_ssize_t)sizeof(int32_t)));
}

/* A machine kept alive across calls (a capsule): its interned stacks, configurations and per-byte steps persist,
 * so a generation's place is a configuration id and a step seen before is one memo read. Calls keep the GIL:
 * threads sharing one machine take turns. */
static const char *MACHINE = "extractor.masks._kernel.Machine";

static void machine_destroy(PyObject *capsule) {
    Machine *M = PyCapsule_GetPointer(capsule, MACHINE);
    if (M) { machine_free(M); free(M); }
}

static Machine *machine_of(PyObject *capsule) { return PyCapsule_GetPointer(capsule, MACHINE); }

/* The automaton of a machine capsule where `cfg` is one of its configurations; NULL with an error set otherwise. */
static PDA *machine_at(PyObject *capsule, int32_t cfg, const char *who) {
    Machine *M = machine_of(capsule);
    if (!M) return NULL;
    if (cfg < 0 || cfg >= M->P.ncfg) {
        PyErr_Format(PyExc_IndexError, "%s: no such configuration", who);
        return NULL;
    }
    return &M->P;
}

/* machine(automaton) -> capsule */
static PyObject *machine_open(PyObject *self, PyObject *args) {
    PyObject *aut;
    if (!PyArg_ParseTuple(args, "O", &aut)) return NULL;
    Machine *M = calloc(1, sizeof(Machine));
    if (!M) return PyErr_NoMemory();
    if (machine_load(M, aut) < 0) { machine_free(M); free(M); return NULL; }
    Py_INCREF(aut);
    M->aut = aut;
    PyObject *capsule = PyCapsule_New(M, MACHINE, machine_destroy);
    if (!capsule) { machine_free(M); free(M); }
    return capsule;
}

/* machine_config(machine, start) -> id of the (closed) configuration written as int32 [frames, rule, state, ...,
 * frames, rule, state, ...], bottom frame first */
static PyObject *machine_intern(PyObject *self, PyObject *args) {
    PyObject *capsule;
    Py_buffer start_b;
    if (!PyArg_ParseTuple(args, "Oy*", &capsule, &start_b)) return NULL;
    Machine *M = machine_of(capsule);
    int32_t id = M ? machine_config(&M->P, start_b.buf, start_b.len / (Py_ssize_t)sizeof(int32_t)) : -1;
    PyBuffer_Release(&start_b);
    if (!M) return NULL;
    if (M->P.failed) return PyErr_NoMemory();
    return PyLong_FromLong(id);
}

/* machine_step(machine, config, data) -> id of the configuration after `data`'s bytes, -1 where one is refused */
static PyObject *machine_step(PyObject *self, PyObject *args) {
    PyObject *capsule;
    int32_t cfg;
    const char *data;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "Oiy#", &capsule, &cfg, &data, &size)) return NULL;
    PDA *P = machine_at(capsule, cfg, "machine_step");
    if (!P) return NULL;
    for (Py_ssize_t k = 0; k < size && cfg >= 0; k++) cfg = pda_step(P, cfg, (uint8_t)data[k]);
    if (P->failed) return PyErr_NoMemory();
    return PyLong_FromLong(cfg);
}

/* machine_stacks(machine, config) -> int32 bytes [frames, rule, state, ...] per stack, bottom frame first */
static PyObject *machine_stacks(PyObject *self, PyObject *args) {
    PyObject *capsule;
    int32_t cfg;
    if (!PyArg_ParseTuple(args, "Oi", &capsule, &cfg)) return NULL;
    PDA *P = machine_at(capsule, cfg, "machine_stacks");
    if (!P) return NULL;
    int64_t total = 0;
    for (int32_t a = 0; a < P->clen[cfg]; a++) total += 1 + 2 * (int64_t)P->st[P->arena[P->cbeg[cfg] + a]].depth;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(total * 4));
    if (!out) return NULL;
    int32_t *w = (int32_t *)PyBytes_AS_STRING(out);
    for (int32_t a = 0; a < P->clen[cfg]; a++) {
        int32_t id = P->arena[P->cbeg[cfg] + a], depth = P->st[id].depth;
        *w = depth;
        for (int32_t f = depth - 1; f >= 0; f--, id = P->st[id].parent) {
            w[1 + 2 * f] = P->st[id].rule;
            w[2 + 2 * f] = P->st[id].state;
        }
        w += 1 + 2 * depth;
    }
    return out;
}

/* machine_tops(machine, config, flagged) -> (least stack depth, int32 bytes [depth, rule, state] per stack whose top
 * frame's rule is flagged): what a caller reading only top frames needs, no configuration built in Python.
 * `flagged`: one byte per rule, nonzero for the rules asked about. */
static PyObject *machine_tops(PyObject *self, PyObject *args) {
    PyObject *capsule;
    int32_t cfg;
    Py_buffer flag_b;
    if (!PyArg_ParseTuple(args, "Oiy*", &capsule, &cfg, &flag_b)) return NULL;
    PDA *P = machine_at(capsule, cfg, "machine_tops");
    if (!P) { PyBuffer_Release(&flag_b); return NULL; }
    const uint8_t *flagged = flag_b.buf;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)P->clen[cfg] * 12);  /* every stack at most */
    if (!out) { PyBuffer_Release(&flag_b); return NULL; }
    int32_t low = -1, *w = (int32_t *)PyBytes_AS_STRING(out), *start = w;
    for (int32_t a = 0; a < P->clen[cfg]; a++) {
        StackNode *top = P->st + P->arena[P->cbeg[cfg] + a];
        if (low < 0 || top->depth < low) low = top->depth;
        if (top->depth > 0 && top->rule < flag_b.len && flagged[top->rule]) {
            *w++ = top->depth; *w++ = top->rule; *w++ = top->state;
        }
    }
    PyBuffer_Release(&flag_b);
    if (_PyBytes_Resize(&out, (Py_ssize_t)(w - start) * 4) < 0) return NULL;
    return Py_BuildValue("(iN)", low, out);
}

/* machine_next(machine, nodes, config) -> int64 bytes: the distinct configurations some token leads to from
 * `config` (the whole trie walked, in the machine's memo: each step is remembered for later calls) */
static PyObject *machine_next(PyObject *self, PyObject *args) {
    PyObject *capsule;
    Py_buffer nodes_b;
    int32_t from;
    if (!PyArg_ParseTuple(args, "Oy*i", &capsule, &nodes_b, &from)) return NULL;
    PDA *P = machine_at(capsule, from, "machine_next");
    PyObject *result = NULL;
    Walked W = {0};
    int32_t root = 0;
    if (P) {
        walk_trie(P, nodes_b.buf, NULL, from, &root, 1, 0, 1, &W);
        result = P->failed ? PyErr_NoMemory()
            : PyBytes_FromStringAndSize(W.reached ? (const char *)W.reached : "", (Py_ssize_t)(W.nr * 8));
    }
    walked_free(&W);
    PyBuffer_Release(&nodes_b);
    return result;
}

/* machine_walk(machine, nodes, ids, config, roots, exits) -> (reached, exit nodes) as bytes: `walk_trie` from one of
 * the machine's configurations, its steps kept for later calls. Token ids int64, exit nodes int32. */
static PyObject *machine_walk(PyObject *self, PyObject *args) {
    PyObject *capsule;
    Py_buffer nodes_b, ids_b, roots_b;
    int32_t from;
    int want_exits;
    if (!PyArg_ParseTuple(args, "Oy*y*iy*p", &capsule, &nodes_b, &ids_b, &from, &roots_b, &want_exits)) return NULL;
    PDA *P = machine_at(capsule, from, "machine_walk");
    PyObject *result = NULL;
    Walked W = {0};
    if (P) {
        walk_trie(P, nodes_b.buf, ids_b.buf, from, roots_b.buf, roots_b.len / (Py_ssize_t)sizeof(int32_t),
                  want_exits, 0, &W);
        result = walked_result(P, &W);
    }
    walked_free(&W);
    PyBuffer_Release(&nodes_b); PyBuffer_Release(&ids_b); PyBuffer_Release(&roots_b);
    return result;
}

/* machine_size(machine) -> (stacks, configurations) interned so far */
static PyObject *machine_size(PyObject *self, PyObject *args) {
    PyObject *capsule;
    if (!PyArg_ParseTuple(args, "O", &capsule)) return NULL;
    Machine *M = machine_of(capsule);
    if (!M) return NULL;
    return Py_BuildValue("(ii)", M->P.nst, M->P.ncfg);
}

/* call_edges(sites, sizes, index, counted) -> (call_ptr: bytes, int32 S + 1; call_to: bytes, int32 E x 2; call_inc:
 * bytes, uint8 E), the call edges as the machine reads them. Per rule: `sites` its (state, callee, return state)
 * triples by state, `sizes` its number of states, `counted` the callees whose calls are counted units (None: a
 * plain rule); `index` numbers the callees (one it lacks is skipped). States are numbered rule after rule; an
 * edge's place is its state's, in call_ptr's CSR. */
static PyObject *call_edges(PyObject *self, PyObject *args) {
    PyObject *sites_of, *sizes, *index, *counted_of;
    if (!PyArg_ParseTuple(args, "O!O!O!O!", &PyTuple_Type, &sites_of, &PyTuple_Type, &sizes, &PyDict_Type, &index,
                          &PyTuple_Type, &counted_of))
        return NULL;
    Py_ssize_t rules = PyTuple_GET_SIZE(sites_of);
    if (PyTuple_GET_SIZE(sizes) != rules || PyTuple_GET_SIZE(counted_of) != rules) {
        PyErr_SetString(PyExc_ValueError, "call_edges: one entry per rule");
        return NULL;
    }
    int64_t total = 0, edges = 0;
    for (Py_ssize_t r = 0; r < rules; r++) {
        PyObject *sites = PyTuple_GET_ITEM(sites_of, r);
        int64_t n = PyLong_AsLongLong(PyTuple_GET_ITEM(sizes, r));
        if (n < 0 || !PyTuple_Check(sites)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "call_edges: a size and a tuple of sites per rule");
            return NULL;
        }
        total += n;
        edges += PyTuple_GET_SIZE(sites);
    }
    if (total >= INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "call_edges: more states than int32 numbers"); return NULL; }
    PyObject *ptr_b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(total + 1) * 4);
    PyObject *to_b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(edges ? edges : 1) * 8);
    PyObject *inc_b = PyBytes_FromStringAndSize(NULL, edges ? edges : 1);
    if (!ptr_b || !to_b || !inc_b) goto fail;
    int32_t *ptr = (int32_t *)PyBytes_AS_STRING(ptr_b), *to = (int32_t *)PyBytes_AS_STRING(to_b);
    uint8_t *inc = (uint8_t *)PyBytes_AS_STRING(inc_b);
    memset(ptr, 0, (size_t)(total + 1) * 4);
    int64_t base = 0, e = 0;
    for (Py_ssize_t r = 0; r < rules; r++) {
        PyObject *sites = PyTuple_GET_ITEM(sites_of, r), *counted = PyTuple_GET_ITEM(counted_of, r);
        int64_t n = PyLong_AsLongLong(PyTuple_GET_ITEM(sizes, r)), last = -1;
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(sites); j++) {
            PyObject *site = PyTuple_GET_ITEM(sites, j);
            if (!PyTuple_Check(site) || PyTuple_GET_SIZE(site) != 3) {
                PyErr_SetString(PyExc_ValueError, "call_edges: a site is (state, callee, return state)");
                goto fail;
            }
            long state = PyLong_AsLong(PyTuple_GET_ITEM(site, 0)), ret = PyLong_AsLong(PyTuple_GET_ITEM(site, 2));
            PyObject *callee = PyTuple_GET_ITEM(site, 1), *id = PyDict_GetItemWithError(index, callee);
            if (PyErr_Occurred()) goto fail;
            if (state < last || state >= n || ret < 0 || ret >= n) {
                PyErr_SetString(PyExc_ValueError, "call_edges: sites out of order or of range");
                goto fail;
            }
            last = state;
            if (!id) continue;
            int in = counted == Py_None ? 0 : PySequence_Contains(counted, callee);
            if (in < 0) goto fail;
            ptr[1 + base + state]++;
            to[2 * e] = (int32_t)PyLong_AsLong(id);
            to[2 * e + 1] = (int32_t)ret;
            inc[e++] = (uint8_t)in;
        }
        base += n;
    }
    for (int64_t i = 1; i <= total; i++) ptr[i] += ptr[i - 1];
    PyObject *result = Py_BuildValue("(Oy#y#)", ptr_b, PyBytes_AS_STRING(to_b), (Py_ssize_t)e * 8,
                                     PyBytes_AS_STRING(inc_b), (Py_ssize_t)e);
    Py_DECREF(ptr_b); Py_DECREF(to_b); Py_DECREF(inc_b);
    return result;
fail:
    Py_XDECREF(ptr_b); Py_XDECREF(to_b); Py_XDECREF(inc_b);
    return NULL;
}

/* fill_rows(out, width, rows) -> None: write packed mask rows into `out`, a writable C-contiguous int32 buffer of
 * rows of `width` words (vLLM's shared bitmask). `rows`: a list of (index, words) pairs, `words` an int32 buffer of
 * at most `width` words (the words past it are zeroed: ids past the vocabulary are never allowed) or None for a
 * row allowing everything. The buffers are taken first, then every copy runs with the GIL released: a batch of
 * requests costs one crossing. */
static PyObject *fill_rows(PyObject *self, PyObject *args) {
    Py_buffer out_b;
    Py_ssize_t width;
    PyObject *rows;
    if (!PyArg_ParseTuple(args, "w*nO!", &out_b, &width, &PyList_Type, &rows)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(rows), height = width > 0 ? out_b.len / (width * 4) : 0, got = 0;
    Py_buffer *bufs = NULL;
    Py_ssize_t *at = NULL;
    if (width <= 0 || out_b.len % (width * 4)) {
        PyErr_Format(PyExc_ValueError, "fill_rows: a buffer of %zd bytes is no whole number of %zd-word rows",
                     out_b.len, width);
        goto fail;
    }
    bufs = calloc((size_t)(n ? n : 1), sizeof(Py_buffer));
    at = malloc(sizeof(Py_ssize_t) * (size_t)(n ? n : 1));
    if (!bufs || !at) { PyErr_NoMemory(); goto fail; }
    for (; got < n; got++) {
        PyObject *pair = PyList_GET_ITEM(rows, got), *words;
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_Format(PyExc_TypeError, "fill_rows: entry %zd is not an (index, words) pair", got);
            goto fail;
        }
        at[got] = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 0));
        if (at[got] == -1 && PyErr_Occurred()) goto fail;
        if (at[got] < 0 || at[got] >= height) {
            PyErr_Format(PyExc_IndexError, "fill_rows: row %zd of a bitmask of %zd rows", at[got], height);
            goto fail;
        }
        words = PyTuple_GET_ITEM(pair, 1);
        if (words == Py_None) { bufs[got].buf = NULL; continue; }
        if (PyObject_GetBuffer(words, bufs + got, PyBUF_C_CONTIGUOUS) < 0) goto fail;
        if (bufs[got].itemsize != 4 || bufs[got].len > width * 4) {
            PyErr_Format(PyExc_ValueError, "fill_rows: entry %zd has %zd bytes in items of %zd, not up to %zd int32 "
                         "words", got, bufs[got].len, bufs[got].itemsize, width);
            got++;
            goto fail;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        char *row = (char *)out_b.buf + at[i] * width * 4;
        if (!bufs[i].buf) { memset(row, 0xff, (size_t)width * 4); continue; }
        memcpy(row, bufs[i].buf, (size_t)bufs[i].len);
        memset(row + bufs[i].len, 0, (size_t)(width * 4 - bufs[i].len));
    }
    Py_END_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) if (bufs[i].buf) PyBuffer_Release(bufs + i);
    free(bufs); free(at);
    PyBuffer_Release(&out_b);
    Py_RETURN_NONE;
fail:
    for (Py_ssize_t i = 0; i < got && bufs; i++) if (bufs[i].buf) PyBuffer_Release(bufs + i);
    free(bufs); free(at);
    PyBuffer_Release(&out_b);
    return NULL;
}

static PyObject *set_ids(PyObject *self, PyObject *args) {
    Py_buffer words_b, ids_b;
    int on;
    if (!PyArg_ParseTuple(args, "w*y*p", &words_b, &ids_b, &on)) return NULL;
    if (words_b.itemsize != 4 || ids_b.itemsize != 8 || words_b.len % 4 || ids_b.len % 8) {
        PyErr_Format(PyExc_ValueError, "set_ids: int32 words and int64 ids, not items of %zd and %zd bytes",
                     words_b.itemsize, ids_b.itemsize);
        goto fail;
    }
    uint32_t *words = (uint32_t *)words_b.buf;
    const int64_t *ids = (const int64_t *)ids_b.buf;
    Py_ssize_t n = ids_b.len / 8, bits = (words_b.len / 4) * 32;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= bits) {
            PyErr_Format(PyExc_IndexError, "set_ids: token %lld of a row of %zd bits", (long long)ids[i], bits);
            goto fail;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t bit = (uint32_t)1 << (ids[i] & 31);
        if (on) words[ids[i] >> 5] |= bit; else words[ids[i] >> 5] &= ~bit;
    }
    PyBuffer_Release(&words_b); PyBuffer_Release(&ids_b);
    Py_RETURN_NONE;
fail:
    PyBuffer_Release(&words_b); PyBuffer_Release(&ids_b);
    return NULL;
}

static int cmp_int64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Of n pairs (each pair's k successors, one a column, in succ: -1 for none), those from which some pair with `seed`
 * set is reachable (itself included), into `hit`: a backward search over the successor edges. Returns 0, or -1 out of memory. */
static int reaching_pairs(const int32_t *succ, int64_t n, int32_t k, const uint8_t *seed, uint8_t *hit) {
    int64_t *start = calloc((size_t)n + 1, sizeof(int64_t));
    int64_t *work = malloc(((size_t)n ? (size_t)n : 1) * sizeof(int64_t));
    int64_t edges = 0;
    for (int64_t i = 0; i < n * k; i++) if (succ[i] >= 0) { start[succ[i] + 1]++; edges++; }
    int64_t *from = malloc(((size_t)edges ? (size_t)edges : 1) * sizeof(int64_t));
    if (!start || !work || !from) { free(start); free(work); free(from); return -1; }
    for (int64_t j = 0; j < n; j++) start[j + 1] += start[j];
    int64_t *fill = work;  /* scratch: each target's next free slot */
    memcpy(fill, start, (size_t)n * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++)
        for (int32_t c = 0; c < k; c++) { int32_t j = succ[i * k + c]; if (j >= 0) from[fill[j]++] = i; }
    int64_t top = 0;
    for (int64_t i = 0; i < n; i++) { hit[i] = seed[i]; if (seed[i]) work[top++] = i; }
    while (top) {
        int64_t j = work[--top];
        for (int64_t e = start[j]; e < start[j + 1]; e++)
            if (!hit[from[e]]) { hit[from[e]] = 1; work[top++] = from[e]; }
    }
    free(start); free(work); free(from);
    return 0;
}

/* pair_states(ta, aacc, tb, bacc, columns) -> (partner: int32 bytes per state of a, same: uint8 bytes a x b), the
 * pairing of masks/reference.py's `pair` (the same arrays, its NumPy version the plain one it replaces): the pairs of
 * states one string leads two trimmed DFAs to, found breadth first from both starts over the byte columns given (each
 * level's new pairs numbered in ascending pair code, state of a times the states of b plus state of b, as np.unique
 * orders them); a pair is bad where some pair it reaches differs in accepting or in which columns it can take;
 * `same[s, r]` is 1 for the pairs found that are not bad; each state's partner is its first pair found that is not
 * bad, else its first, kept only where that pair reaches a pair that is not bad and from which b goes on. */
static PyObject *pair_states(PyObject *self, PyObject *args) {
    Py_buffer ta_b, aa_b, tb_b, ba_b, col_b;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*", &ta_b, &aa_b, &tb_b, &ba_b, &col_b)) return NULL;
    PyObject *result = NULL, *partner_o = NULL, *same_o = NULL;
    int64_t na = aa_b.len, nb = ba_b.len, k = col_b.len / (Py_ssize_t)sizeof(int32_t), n = 0, cap = 64;
    int32_t *index = NULL, *succ = NULL;
    int64_t *codes = NULL, *found = NULL;
    uint8_t *seed = NULL, *bad = NULL, *useful = NULL;
    int64_t *first = NULL, *good = NULL;
    const int32_t *ta = ta_b.buf, *tb = tb_b.buf, *cols = col_b.buf;
    const uint8_t *aa = aa_b.buf, *ba = ba_b.buf;
    if (ta_b.len != na * 256 * 4 || tb_b.len != nb * 256 * 4 || na < 1 || nb < 1 || na * nb >= INT32_MAX || k < 1) {
        PyErr_SetString(PyExc_ValueError, "pair_states: int32 tables of 256 columns a state, beside one accept byte a "
                                          "state, fewer than 2**31 pairs, and some column");
        goto done;
    }
    for (int64_t c = 0; c < k; c++)
        if (cols[c] < 0 || cols[c] > 255) { PyErr_SetString(PyExc_ValueError, "pair_states: a column past 255"); goto done; }
    index = malloc((size_t)(na * nb) * sizeof(int32_t));
    codes = malloc((size_t)cap * sizeof(int64_t));
    found = malloc((size_t)cap * sizeof(int64_t));
    if (!index || !codes || !found) { PyErr_NoMemory(); goto done; }
    memset(index, 0xff, (size_t)(na * nb) * sizeof(int32_t));
    codes[0] = 0; index[0] = 0; n = 1;
    for (int64_t lo = 0, hi = 1; lo < hi; lo = hi, hi = n) {  /* a level at a time */
        int64_t nf = 0;
        for (int64_t i = lo; i < hi; i++) {
            int64_t s = codes[i] / nb, r = codes[i] % nb;
            for (int64_t c = 0; c < k; c++) {
                int32_t x = ta[s * 256 + cols[c]], y = tb[r * 256 + cols[c]];
                if (x < 0 || y < 0) continue;
                int64_t code = (int64_t)x * nb + y;
                if (index[code] != -1) continue;
                index[code] = -2;  /* found on this level: listed once */
                if (n + nf >= cap) {  /* codes takes the level's new pairs after the n so far */
                    cap *= 2;
                    int64_t *f2 = realloc(found, (size_t)cap * sizeof(int64_t)), *c2 = f2 ? realloc(codes, (size_t)cap * sizeof(int64_t)) : NULL;
                    if (f2) found = f2;
                    if (c2) codes = c2;
                    if (!f2 || !c2) { PyErr_NoMemory(); goto done; }
                }
                found[nf++] = code;
            }
        }
        qsort(found, (size_t)nf, sizeof(int64_t), cmp_int64);
        for (int64_t j = 0; j < nf; j++) { index[found[j]] = (int32_t)n; codes[n++] = found[j]; }
    }
    succ = calloc((size_t)(n * k), sizeof(int32_t));
    seed = calloc((size_t)n, 1); bad = malloc((size_t)n); useful = malloc((size_t)n);
    first = malloc((size_t)na * sizeof(int64_t)); good = malloc((size_t)na * sizeof(int64_t));
    if (!succ || !seed || !bad || !useful || !first || !good) { PyErr_NoMemory(); goto done; }
    for (int64_t i = 0; i < n; i++) {
        int64_t s = codes[i] / nb, r = codes[i] % nb;
        uint8_t differs = (aa[s] != 0) != (ba[r] != 0);
        for (int64_t c = 0; c < k; c++) {
            int32_t x = ta[s * 256 + cols[c]], y = tb[r * 256 + cols[c]];
            differs |= (x >= 0) != (y >= 0);
            succ[i * k + c] = (x >= 0 && y >= 0) ? index[(int64_t)x * nb + y] : -1;
        }
        seed[i] = differs;
    }
    if (reaching_pairs(succ, n, (int32_t)k, seed, bad)) { PyErr_NoMemory(); goto done; }
    for (int64_t i = 0; i < n; i++) {
        int64_t r = codes[i] % nb;
        uint8_t goes = 0;
        for (int64_t c = 0; c < k && !goes; c++) goes = tb[r * 256 + cols[c]] >= 0;
        seed[i] = !bad[i] && goes;
    }
    if (reaching_pairs(succ, n, (int32_t)k, seed, useful)) { PyErr_NoMemory(); goto done; }
    partner_o = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(na * 4));
    same_o = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(na * nb));
    if (!partner_o || !same_o) goto done;
    int32_t *partner = (int32_t *)PyBytes_AS_STRING(partner_o);
    uint8_t *same = (uint8_t *)PyBytes_AS_STRING(same_o);
    memset(same, 0, (size_t)(na * nb));
    for (int64_t s = 0; s < na; s++) { first[s] = good[s] = -1; partner[s] = -1; }
    for (int64_t i = 0; i < n; i++) {
        int64_t s = codes[i] / nb;
        same[codes[i]] = !bad[i];
        if (first[s] < 0) first[s] = i;
        if (good[s] < 0 && !bad[i]) good[s] = i;
    }
    for (int64_t s = 0; s < na; s++) {
        int64_t pick = good[s] >= 0 ? good[s] : first[s];
        if (pick >= 0 && useful[pick]) partner[s] = (int32_t)(codes[pick] % nb);
    }
    result = PyTuple_Pack(2, partner_o, same_o);
done:
    Py_XDECREF(partner_o); Py_XDECREF(same_o);
    free(index); free(codes); free(found); free(succ); free(seed); free(bad); free(useful); free(first); free(good);
    PyBuffer_Release(&ta_b); PyBuffer_Release(&aa_b); PyBuffer_Release(&tb_b); PyBuffer_Release(&ba_b);
    PyBuffer_Release(&col_b);
    return result;
}

/* Whether `op` holds only ints (a stack's frame: (rule, state)). */
static int ints_only(PyObject *op) {
    if (!PyTuple_CheckExact(op)) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(op); i++)
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(op, i))) return 0;
    return 1;
}

/* A configuration (a frozenset of stacks, each a tuple of (rule, state) int pairs) taken off the cyclic
 * collector's lists, as CPython takes tuples of atoms off them: nothing it holds can lead back to it, so no
 * reference cycle can pass through it, and it is freed by reference counting as before. A grammar numbers tens of
 * thousands of configurations and a server keeps hundreds of grammars: each full collection would walk them all,
 * inside whichever call allocates (a decoding step). Anything else is left as it is; returns whether it untracked. */
static PyObject *untrack_config(PyObject *self, PyObject *config) {
    (void)self;
    if (!PyFrozenSet_CheckExact(config) || !PyObject_GC_IsTracked(config)) Py_RETURN_FALSE;
    PyObject *it = PyObject_GetIter(config);
    if (it == NULL) return NULL;
    PyObject *stack;
    int plain = 1;
    while (plain && (stack = PyIter_Next(it)) != NULL) {
        if (!PyTuple_CheckExact(stack)) plain = 0;
        for (Py_ssize_t i = 0; plain && i < PyTuple_GET_SIZE(stack); i++)
            plain = ints_only(PyTuple_GET_ITEM(stack, i));
        Py_DECREF(stack);
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) return NULL;
    if (!plain) Py_RETURN_FALSE;
    PyObject_GC_UnTrack(config);
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"untrack_config", untrack_config, METH_O, "A configuration of int frames taken off the cyclic collector's lists."},
    {"set_ids", set_ids, METH_VARARGS, "Set (or clear) the bits of token ids in packed int32 words, in place."},
    {"leaf_walk", leaf_walk, METH_VARARGS, "Walk a call-free rule's DFA over the token trie."},
    {"unit_walk", unit_walk, METH_VARARGS, "Walk a counted DFA's base over the token trie, counting units."},
    {"ref_walk", ref_walk, METH_VARARGS, "Walk a call-free rule's DFA beside a reference whose table is known."},
    {"call_edges", call_edges, METH_VARARGS, "The call edges of rule automata, numbered as the machine reads them."},
    {"machine", machine_open, METH_VARARGS, "A pushdown automaton kept alive across calls (a capsule)."},
    {"machine_config", machine_intern, METH_VARARGS, "The id of a configuration in a machine."},
    {"machine_step", machine_step, METH_VARARGS, "A machine's configuration after some bytes (-1: refused)."},
    {"machine_stacks", machine_stacks, METH_VARARGS, "A machine's configuration as its stacks."},
    {"machine_tops", machine_tops, METH_VARARGS, "A machine configuration's least depth and its flagged top frames."},
    {"machine_next", machine_next, METH_VARARGS, "The configurations some token leads to from one."},
    {"machine_walk", machine_walk, METH_VARARGS, "Walk the pushdown automaton over the token trie from a machine configuration."},
    {"machine_size", machine_size, METH_VARARGS, "Stacks and configurations a machine has interned."},
    {"fill_rows", fill_rows, METH_VARARGS, "Copy packed mask rows into a bitmask, the GIL released."},
    {"pair_states", pair_states, METH_VARARGS, "The pairing of a rule's DFA with the reference's (masks/reference.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel", NULL, -1, methods};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&module); }
