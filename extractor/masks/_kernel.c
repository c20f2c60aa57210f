/* The native inner loop of mask computation: the walk of a call-free rule's DFA over the
 * vocabulary trie in preorder (extractor/masks/trie.py). Pure C over buffers (NumPy arrays from tables.py / trie.py);
 * extractor/masks/tables.py keeps a NumPy version of the same walk where this is not built. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

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

/* leaf_walk(nodes, ids, trans, accept, start, counted, allowed, exits) -> number of exit triples.
 * nodes: int32 (count + 1) x 3 in preorder: subtree end, first row, depth << 8 | byte; the last is a
 * sentinel whose first row is the number of rows. Rows under node i are [lo[i], lo[end[i]]); those
 * ending at i come first, up to the first child's first row. Plain DFA: trans int32 n x 256, accept
 * uint8. Counted: `counted` is (inc, cum, n, lo, hi, k1, start, period) and trans/accept are the base
 * DFA's. Writes allowed[id] = 1 for tokens walked to their end, and (first row, last row + 1, offset)
 * triples for rows that leave the rule after `offset` bytes (it accepts there and the token goes on). */
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
    Py_ssize_t cap = exits_b.len / (Py_ssize_t)(3 * sizeof(int32_t)), nexits = 0;
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
        if (acc && mid < hi && nexits < cap) {
            exits[3 * nexits] = mid; exits[3 * nexits + 1] = hi; exits[3 * nexits + 2] = d;
            nexits++;
        }
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

static PyMethodDef methods[] = {
    {"leaf_walk", leaf_walk, METH_VARARGS, "Walk a call-free rule's DFA over the token trie."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel", NULL, -1, methods};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&module); }
