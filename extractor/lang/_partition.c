/* Minimization's inner loops (extractor/lang/dfa.py, which keeps the same algorithms in Python where this is
 * not built): the states that reach acceptance, and the coarsest partition of a DFA's states that its
 * transitions respect (Hopcroft's algorithm over a refinable partition, O(m n log n)). Plain C over buffers,
 * no NumPy headers. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* coarsest(table, labels, out, n, m) -> number of blocks.
 * table: int32 n x m, every entry a state in 0..n-1 (a sink state stands for missing edges);
 * labels: int32 n, the initial partition (states with equal labels start together; labels in 0..n-1);
 * out: int32 n, receives each state's block. */
static PyObject *coarsest(PyObject *self, PyObject *args) {
    Py_buffer table_b, labels_b, out_b;
    Py_ssize_t n_, m_;
    if (!PyArg_ParseTuple(args, "y*y*w*nn", &table_b, &labels_b, &out_b, &n_, &m_)) return NULL;
    int32_t n = (int32_t)n_, m = (int32_t)m_;
    const int32_t *table = table_b.buf, *labels = labels_b.buf;
    int32_t *out = out_b.buf;
    PyObject *result = NULL;
    if (table_b.len < (Py_ssize_t)n * m * 4 || labels_b.len < (Py_ssize_t)n * 4 || out_b.len < (Py_ssize_t)n * 4) {
        PyErr_SetString(PyExc_ValueError, "coarsest: buffers smaller than n x m");
        goto release;
    }
    int64_t nm = (int64_t)n * m;
    int32_t *off = calloc((size_t)m * (n + 1) + 1, sizeof(int32_t)); /* inverse edges: CSR per (symbol, target) */
    int32_t *pred = malloc((size_t)(nm ? nm : 1) * sizeof(int32_t));
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
    if (!off || !pred || !p.elems || !p.loc || !p.first || !p.end || !p.mid || !w.block || !w.symbol || !w.in
        || !touched || !members || !count) {
        PyErr_NoMemory();
        goto done;
    }
    for (int32_t s = 0; s < n; s++) {
        if (labels[s] < 0 || labels[s] >= n) { PyErr_SetString(PyExc_ValueError, "coarsest: label out of range"); goto done; }
        for (int32_t a = 0; a < m; a++) {
            int32_t t = table[(int64_t)s * m + a];
            if (t < 0 || t >= n) { PyErr_SetString(PyExc_ValueError, "coarsest: target out of range"); goto done; }
            off[(int64_t)a * (n + 1) + t + 1]++;
        }
    }
    for (int64_t i = 1; i <= (int64_t)m * (n + 1); i++) off[i] += off[i - 1];
    for (int32_t s = 0; s < n; s++)
        for (int32_t a = 0; a < m; a++) {
            int32_t t = table[(int64_t)s * m + a];
            pred[off[(int64_t)a * (n + 1) + t]++] = s;
        }
    for (int64_t i = (int64_t)m * (n + 1); i > 0; i--) off[i] = off[i - 1]; /* restore the starts */
    off[0] = 0;
    /* initial blocks: one per label in use, states in order */
    for (int32_t s = 0; s < n; s++) count[labels[s]]++;
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
    for (int32_t s = 0; s < n; s++) {
        int32_t b = block_of_label[labels[s]];
        p.blk[s] = b;
        p.loc[s] = p.end[b];
        p.elems[p.end[b]++] = s;
    }
    /* the partition is stable on the set of all states, so all blocks but the largest are the splitters */
    int32_t largest = 0;
    for (int32_t b = 1; b < p.count; b++)
        if (p.end[b] - p.first[b] > p.end[largest] - p.first[largest]) largest = b;
    for (int32_t b = 0; b < p.count; b++)
        if (b != largest)
            for (int32_t a = 0; a < m; a++) push(&w, b, a);
    while (w.size) {
        w.size--;
        int32_t splitter = w.block[w.size], a = w.symbol[w.size];
        w.in[(int64_t)splitter * m + a] = 0;
        int32_t ntouched = 0, size = p.end[splitter] - p.first[splitter];
        memcpy(members, p.elems + p.first[splitter], (size_t)size * sizeof(int32_t));
        for (int32_t i = 0; i < size; i++) {
            int32_t t = members[i];
            int64_t row = (int64_t)a * (n + 1) + t;
            for (int32_t j = off[row]; j < off[row + 1]; j++) {
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
            for (int32_t c = 0; c < m; c++) {
                if (w.in[(int64_t)b * m + c]) push(&w, fresh, c);
                else push(&w, small, c);
            }
        }
    }
    result = PyLong_FromLong(p.count);
done:
    free(off); free(pred); free(p.elems); free(p.loc); free(p.first); free(p.end); free(p.mid);
    free(w.block); free(w.symbol); free(w.in); free(touched); free(members); free(count);
release:
    PyBuffer_Release(&table_b); PyBuffer_Release(&labels_b); PyBuffer_Release(&out_b);
    return result;
}

/* live(edges, accept, out, n, m): out[s] = 1 where some accepting state is reachable from s.
 * edges: int32 n x m, targets in 0..n-1 or -1 for none; accept, out: uint8 n. */
static PyObject *live(PyObject *self, PyObject *args) {
    Py_buffer edges_b, accept_b, out_b;
    Py_ssize_t n_, m_;
    if (!PyArg_ParseTuple(args, "y*y*w*nn", &edges_b, &accept_b, &out_b, &n_, &m_)) return NULL;
    int32_t n = (int32_t)n_, m = (int32_t)m_;
    const int32_t *edges = edges_b.buf;
    const uint8_t *accept = accept_b.buf;
    uint8_t *out = out_b.buf;
    PyObject *result = NULL;
    int32_t *off = NULL, *pred = NULL, *stack = NULL;
    if (edges_b.len < (Py_ssize_t)n * m * 4 || accept_b.len < n || out_b.len < n) {
        PyErr_SetString(PyExc_ValueError, "live: buffers smaller than n x m");
        goto release;
    }
    int64_t nm = (int64_t)n * m;
    off = calloc((size_t)n + 2, sizeof(int32_t));
    pred = malloc((size_t)(nm ? nm : 1) * sizeof(int32_t));
    stack = malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    if (!off || !pred || !stack) { PyErr_NoMemory(); goto done; }
    for (int64_t i = 0; i < nm; i++) {
        int32_t t = edges[i];
        if (t >= n) { PyErr_SetString(PyExc_ValueError, "live: target out of range"); goto done; }
        if (t >= 0) off[t + 2]++;
    }
    for (int32_t t = 0; t < n; t++) off[t + 2] += off[t + 1];
    for (int64_t i = 0; i < nm; i++)
        if (edges[i] >= 0) pred[off[edges[i] + 1]++] = (int32_t)(i / m);
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
    result = Py_NewRef(Py_None);
done:
    free(off); free(pred); free(stack);
release:
    PyBuffer_Release(&edges_b); PyBuffer_Release(&accept_b); PyBuffer_Release(&out_b);
    return result;
}

static PyMethodDef methods[] = {
    {"coarsest", coarsest, METH_VARARGS, "The coarsest partition of a DFA's states its transitions respect."},
    {"live", live, METH_VARARGS, "Which states of a DFA reach an accepting one."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_partition", NULL, -1, methods};

PyMODINIT_FUNC PyInit__partition(void) { return PyModule_Create(&module); }
