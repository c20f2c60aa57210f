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
 * DFA's. Writes allowed[id] = 1 for tokens walked to their end, and into `exits` (int32) the nodes where
 * the rule may end with tokens running on past them. */
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
    uint8_t *allowed = allowed_b.buf;
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
    int64_t *state = malloc(sizeof(int64_t) * 1024);
    Py_ssize_t room = 1024;
    state[0] = start;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 1; i < count;) {
        const int32_t *node = nodes + 3 * i;
        int32_t d = node[2] >> 8, b = node[2] & 255;
        if (d >= room) { room *= 2; state = realloc(state, sizeof(int64_t) * (size_t)room); }
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
        for (int32_t r = node[1]; r < mid; r++) allowed[ids[r]] = 1;
        if (acc && mid < hi && nexits < cap) exits[nexits++] = (int32_t)i;
        i++;
    }
    Py_END_ALLOW_THREADS
    free(state);
fail:
    PyBuffer_Release(&nodes_b); PyBuffer_Release(&ids_b); PyBuffer_Release(&trans_b); PyBuffer_Release(&acc_b);
    PyBuffer_Release(&allowed_b); PyBuffer_Release(&exits_b);
    if (inc_b.obj) PyBuffer_Release(&inc_b);
    if (cum_b.obj) PyBuffer_Release(&cum_b);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromSsize_t(nexits);
}

/* ref_walk(nodes, ids, trans, accept, start, rtrans, rstart, same, rallowed, rexits, allowed, exits)
 * -> number of exit nodes. leaf_walk for a plain DFA, in step with a reference DFA whose table from
 * `rstart` is known (rallowed per token id, rexits sorted nodes): below a node where the two reach
 * states t, u with same[t][u] (uint8, states x reference states: the same language from there on),
 * the subtree keeps the reference's tokens and exits, unwalked. So `allowed` starts as a copy of
 * rallowed, and only subtrees where the two differ are walked (or cleared, where the rule is dead). */
static PyObject *ref_walk(PyObject *self, PyObject *args) {
    Py_buffer nodes_b, ids_b, trans_b, acc_b, rtrans_b, same_b, rallowed_b, rexits_b, allowed_b, exits_b;
    long long start, rstart;
    if (!PyArg_ParseTuple(args, "y*y*y*y*Ly*Ly*y*y*w*w*", &nodes_b, &ids_b, &trans_b, &acc_b, &start, &rtrans_b,
                          &rstart, &same_b, &rallowed_b, &rexits_b, &allowed_b, &exits_b))
        return NULL;
    const int32_t *nodes = nodes_b.buf, *trans = trans_b.buf, *rtrans = rtrans_b.buf, *rexits = rexits_b.buf;
    const int64_t *ids = ids_b.buf;
    const uint8_t *accept = acc_b.buf, *rallowed = rallowed_b.buf, *same = same_b.buf;
    Py_ssize_t nr = rtrans_b.len / (Py_ssize_t)(256 * sizeof(int32_t));
    uint8_t *allowed = allowed_b.buf;
    int32_t *exits = exits_b.buf;
    Py_ssize_t count = nodes_b.len / (Py_ssize_t)(3 * sizeof(int32_t)) - 1;
    Py_ssize_t cap = exits_b.len / (Py_ssize_t)sizeof(int32_t), nexits = 0;
    Py_ssize_t nrexits = rexits_b.len / (Py_ssize_t)sizeof(int32_t);
    Py_ssize_t room = 1024;
    int32_t *state = malloc(sizeof(int32_t) * (size_t)room), *rstate = malloc(sizeof(int32_t) * (size_t)room);
    state[0] = (int32_t)start; rstate[0] = (int32_t)rstart;
    Py_BEGIN_ALLOW_THREADS
    memcpy(allowed, rallowed, (size_t)(allowed_b.len < rallowed_b.len ? allowed_b.len : rallowed_b.len));
    for (Py_ssize_t i = 1; i < count;) {
        const int32_t *node = nodes + 3 * i;
        int32_t d = node[2] >> 8, b = node[2] & 255;
        if (d >= room) {
            room *= 2;
            state = realloc(state, sizeof(int32_t) * (size_t)room);
            rstate = realloc(rstate, sizeof(int32_t) * (size_t)room);
        }
        int32_t t = trans[state[d - 1] * 256 + b], r = rstate[d - 1], u = r >= 0 ? rtrans[r * 256 + b] : -1;
        int32_t hi = nodes[3 * node[0] + 1];
        if (t < 0) {  /* the rule is dead below: none of the reference's tokens there */
            if (u >= 0) for (int32_t row = node[1]; row < hi; row++) allowed[ids[row]] = 0;
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
        for (int32_t row = node[1]; row < mid; row++) allowed[ids[row]] = 1;
        if (accept[t] && mid < hi && nexits < cap) exits[nexits++] = (int32_t)i;
        i++;
    }
    Py_END_ALLOW_THREADS
    free(state); free(rstate);
    PyBuffer_Release(&nodes_b); PyBuffer_Release(&ids_b); PyBuffer_Release(&trans_b); PyBuffer_Release(&acc_b);
    PyBuffer_Release(&rtrans_b); PyBuffer_Release(&same_b); PyBuffer_Release(&rallowed_b);
    PyBuffer_Release(&rexits_b); PyBuffer_Release(&allowed_b); PyBuffer_Release(&exits_b);
    return PyLong_FromSsize_t(nexits);
}

/* config_walk(nodes, ids, trans, flags, jobs, work, reached, exits) -> -1 when done, else config * 256 + byte.
 * The walk of configurations of the pushdown automaton (extractor/automata/configs.py) over the trie:
 * trans int32 (configs x 256) with -1 dead and -2 not computed yet; flags uint8 per configuration (bit 0:
 * the bottom frame may end). jobs: int32 (root node, configuration) pairs; each walks the root's proper
 * descendants from that configuration at the root's depth. Writes into `reached` (int64) the ids of the
 * tokens walked to their end, and into `exits` (int32, unless it is empty) the nodes where the bottom
 * frame may end with tokens running on. At a transition not computed yet it stops and returns it; the
 * caller fills it in and calls again with the same work area: int32 [job, node, reached count, exits
 * count, configuration per depth...]. */
static PyObject *config_walk(PyObject *self, PyObject *args) {
    Py_buffer nodes_b, ids_b, trans_b, flags_b, jobs_b, work_b, reached_b, exits_b;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*w*w*w*", &nodes_b, &ids_b, &trans_b, &flags_b, &jobs_b, &work_b,
                          &reached_b, &exits_b))
        return NULL;
    const int32_t *nodes = nodes_b.buf, *trans = trans_b.buf, *jobs = jobs_b.buf;
    const int64_t *ids = ids_b.buf;
    const uint8_t *flags = flags_b.buf;
    int64_t *reached = reached_b.buf;
    int32_t *work = work_b.buf, *exits = exits_b.buf, *cfg = work + 4;
    Py_ssize_t njobs = jobs_b.len / (Py_ssize_t)(2 * sizeof(int32_t));
    Py_ssize_t room = work_b.len / (Py_ssize_t)sizeof(int32_t) - 4;
    Py_ssize_t ecap = exits_b.len / (Py_ssize_t)sizeof(int32_t), rcap = reached_b.len / (Py_ssize_t)sizeof(int64_t);
    int32_t job = work[0], i = work[1], nr = work[2], ne = work[3];
    long long miss = -1;
    for (; job < njobs; job++, i = 0) {
        int32_t root = jobs[2 * job], stop = nodes[3 * root];
        if (i == 0) { cfg[nodes[3 * root + 2] >> 8] = jobs[2 * job + 1]; i = root + 1; }
        while (i < stop) {
            const int32_t *node = nodes + 3 * i;
            int32_t d = node[2] >> 8, b = node[2] & 255;
            if (d >= room) { PyErr_SetString(PyExc_ValueError, "work area shallower than the trie"); goto done; }
            int32_t from = cfg[d - 1], t = trans[(Py_ssize_t)from * 256 + b];
            if (t == -1) { i = node[0]; continue; }
            if (t == -2) { miss = (long long)from * 256 + b; goto done; }
            cfg[d] = t;
            int32_t hi = nodes[3 * node[0] + 1], mid = node[0] > i + 1 ? node[4] : hi;
            if (nr + (mid - node[1]) > rcap) { PyErr_SetString(PyExc_ValueError, "reached buffer full"); goto done; }
            for (int32_t row = node[1]; row < mid; row++) reached[nr++] = ids[row];
            if (ecap && (flags[t] & 1) && mid < hi) {
                if (ne == ecap) { PyErr_SetString(PyExc_ValueError, "exits buffer full"); goto done; }
                exits[ne++] = i;
            }
            i++;
        }
    }
done:
    work[0] = job; work[1] = i; work[2] = nr; work[3] = ne;
    PyBuffer_Release(&nodes_b); PyBuffer_Release(&ids_b); PyBuffer_Release(&trans_b); PyBuffer_Release(&flags_b);
    PyBuffer_Release(&jobs_b); PyBuffer_Release(&work_b); PyBuffer_Release(&reached_b); PyBuffer_Release(&exits_b);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromLongLong(miss);
}

static PyMethodDef methods[] = {
    {"leaf_walk", leaf_walk, METH_VARARGS, "Walk a call-free rule's DFA over the token trie."},
    {"ref_walk", ref_walk, METH_VARARGS, "Walk a call-free rule's DFA beside a reference whose table is known."},
    {"config_walk", config_walk, METH_VARARGS, "Walk configurations of the pushdown automaton over the token trie."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel", NULL, -1, methods};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&module); }
