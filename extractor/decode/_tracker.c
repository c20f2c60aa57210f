/* The guards' JSON tracker kept in C (extractor/decode/tracker.py keeps the same rules in Python where this is not
 * built): where the output is in JSON terms (in a string, in a number, inside which arrays and objects), byte by
 * byte, and the per-step checks on the string or number being written (too long, looping, stuttering). The output's
 * bytes live in the Python bytearray the tracker was made with; this code only appends to it. What the guards
 * keep per array item or per member string (items, their shapes, parsed objects) stays in Python: a byte that
 * completes one is reported as an event, drained by the caller. Plain C, no NumPy headers. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ARRAY = 0, OBJECT = 1 };
enum { ITEM = 0, STRING = 1, DROP = 2 };  /* events: an array item ended at `,`; a member string closed; a frame
                                             with Python-side state left the stack */

typedef struct {
    int64_t item_start, items, strings, serial;
    int8_t kind, key;
} Frame;

typedef struct {
    int64_t size, string_start, digits, number_start, filled, depth, serial;
    int8_t in_string, escape, member;
} Scalars;

typedef struct {
    Scalars s;
    Frame *frames;
    int64_t cap;
    int64_t *events;  /* (kind, serial, start, end) per event */
    int64_t nevents, event_cap;
    PyObject *data;   /* the output's bytearray */
    PyObject *source; /* bytes: a stutter found in it is not one */
    PyObject *digits; /* bytes: the source's digits without thousands separators */
    int64_t max_string, stutter, max_digits;
    int loops;
} Tracker;

static const char *TRACKER = "extractor.decode._tracker.Tracker";

static void tracker_destroy(PyObject *capsule) {
    Tracker *T = PyCapsule_GetPointer(capsule, TRACKER);
    if (!T) return;
    free(T->frames); free(T->events);
    Py_XDECREF(T->data); Py_XDECREF(T->source); Py_XDECREF(T->digits);
    free(T);
}

static Tracker *tracker_of(PyObject *capsule) { return PyCapsule_GetPointer(capsule, TRACKER); }

static int event(Tracker *T, int64_t kind, int64_t serial, int64_t start, int64_t end) {
    if (T->nevents + 4 > T->event_cap) {
        int64_t cap = T->event_cap ? 2 * T->event_cap : 64;
        int64_t *e = realloc(T->events, (size_t)cap * sizeof(int64_t));
        if (!e) return -1;
        T->events = e, T->event_cap = cap;
    }
    int64_t *e = T->events + T->nevents;
    e[0] = kind, e[1] = serial, e[2] = start, e[3] = end;
    T->nevents += 4;
    return 0;
}

static int push_frame(Tracker *T, int8_t kind, int64_t pos) {
    if (T->s.depth == T->cap) {
        int64_t cap = T->cap ? 2 * T->cap : 16;
        Frame *f = realloc(T->frames, (size_t)cap * sizeof(Frame));
        if (!f) return -1;
        T->frames = f, T->cap = cap;
    }
    Frame *f = &T->frames[T->s.depth++];
    f->kind = kind, f->key = 1, f->item_start = pos + 1, f->items = 0, f->strings = 0, f->serial = T->s.serial++;
    return 0;
}

static inline int is_number(uint8_t b) { return (b >= '0' && b <= '9') || b == '.' || b == 'e' || b == 'E' || b == '+' || b == '-'; }

/* One byte at output position `pos` (tracker.JsonTracker._byte, rule for rule). */
static int byte(Tracker *T, uint8_t b, int64_t pos) {
    Scalars *s = &T->s;
    if (s->in_string) {
        if (s->escape) s->escape = 0;
        else if (b == '\\') s->escape = 1;
        else if (b == '"') {
            s->in_string = 0;
            if (s->member) {
                Frame *top = &T->frames[s->depth - 1];
                top->strings++;
                return event(T, STRING, top->serial, s->string_start, pos);
            }
        }
        return 0;
    }
    if (is_number(b)) {
        if (s->number_start < 0 && (b == '-' || (b >= '0' && b <= '9'))) s->number_start = pos;
        s->digits += b >= '0' && b <= '9';
        return 0;
    }
    s->digits = 0, s->number_start = -1;
    Frame *top = s->depth ? &T->frames[s->depth - 1] : NULL;
    if (b == '"') {
        s->in_string = 1, s->string_start = pos + 1;
        s->member = top && top->kind == OBJECT && !top->key;
    } else if (b == '[') {
        return push_frame(T, ARRAY, pos);
    } else if (b == '{') {
        return push_frame(T, OBJECT, pos);
    } else if (b == ']' || b == '}') {
        if (top) {
            s->depth--;
            if (top->kind == ARRAY && top->items) s->filled--;
            if (top->items || top->strings) return event(T, DROP, top->serial, 0, 0);
        }
    } else if (top && top->kind == OBJECT && (b == ':' || b == ',')) {
        top->key = b == ',';
    } else if (b == ',' && top && top->kind == ARRAY) {
        s->filled += !top->items;
        top->items++;
        int64_t start = top->item_start;
        top->item_start = pos + 1;
        return event(T, ITEM, top->serial, start, pos);
    }
    return 0;
}

/* tracker(data, source, digits, max_string, loops, stutter, max_digits) -> capsule; -1 turns a bound off */
static PyObject *tracker_open(PyObject *self, PyObject *args) {
    PyObject *data, *source, *digits;
    long long max_string, stutter, max_digits;
    int loops;
    if (!PyArg_ParseTuple(args, "O!SSLpLL", &PyByteArray_Type, &data, &source, &digits, &max_string, &loops, &stutter,
                          &max_digits))
        return NULL;
    if (stutter == 0) { PyErr_SetString(PyExc_ValueError, "tracker: stutter must be at least 1 (or -1: off)"); return NULL; }
    Tracker *T = calloc(1, sizeof(Tracker));
    if (!T) return PyErr_NoMemory();
    T->s.size = PyByteArray_GET_SIZE(data);
    T->s.number_start = -1;
    Py_INCREF(data); Py_INCREF(source); Py_INCREF(digits);
    T->data = data, T->source = source, T->digits = digits;
    T->max_string = max_string, T->loops = loops, T->stutter = stutter, T->max_digits = max_digits;
    PyObject *capsule = PyCapsule_New(T, TRACKER, tracker_destroy);
    if (!capsule) { Py_DECREF(data); Py_DECREF(source); Py_DECREF(digits); free(T); }
    return capsule;
}

/* feed(tracker, bytes) -> events waiting (the bytes appended to the output's bytearray) */
static PyObject *tracker_feed(PyObject *self, PyObject *args) {
    PyObject *capsule;
    Py_buffer in_b;  /* held while the output grows: the output itself fed to itself cannot be resized, an error */
    if (!PyArg_ParseTuple(args, "Oy*", &capsule, &in_b)) return NULL;
    Tracker *T = tracker_of(capsule);
    if (!T) { PyBuffer_Release(&in_b); return NULL; }
    Py_ssize_t size = PyByteArray_GET_SIZE(T->data), n = in_b.len;
    if (size != T->s.size) {
        PyBuffer_Release(&in_b);
        PyErr_SetString(PyExc_RuntimeError, "feed: the output was changed outside the tracker");
        return NULL;
    }
    if (PyByteArray_Resize(T->data, size + n) < 0) { PyBuffer_Release(&in_b); return NULL; }
    memcpy(PyByteArray_AS_STRING(T->data) + size, in_b.buf, (size_t)n);
    const char *in = PyByteArray_AS_STRING(T->data) + size;  /* the copy: the caller's buffer is let go */
    PyBuffer_Release(&in_b);
    Scalars *s = &T->s;
    const uint8_t *data = (const uint8_t *)in;
    Py_ssize_t k = 0;
    if (s->in_string && !s->escape) {  /* inside a string, bytes other than a quote or backslash change nothing */
        while (k < n && data[k] != '"' && data[k] != '\\') k++;
    }
    for (; k < n; k++)
        if (byte(T, data[k], size + k) < 0) { s->size = size + k; return PyErr_NoMemory(); }
    s->size = size + n;
    return PyLong_FromLongLong(T->nevents / 4);
}

/* events(tracker) -> [(kind, serial, start, end), ...] waiting, then none */
static PyObject *tracker_events(PyObject *self, PyObject *capsule) {
    Tracker *T = tracker_of(capsule);
    if (!T) return NULL;
    PyObject *out = PyList_New(T->nevents / 4);
    if (!out) return NULL;
    for (int64_t k = 0; k < T->nevents / 4; k++) {
        int64_t *e = T->events + 4 * k;
        PyObject *t = Py_BuildValue("(LLLL)", (long long)e[0], (long long)e[1], (long long)e[2], (long long)e[3]);
        if (!t) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, k, t);
    }
    T->nevents = 0;
    return out;
}

/* state(tracker) -> (in_string, escape, string_start, digits, number_start, member, filled) */
static PyObject *tracker_state(PyObject *self, PyObject *capsule) {
    Tracker *T = tracker_of(capsule);
    if (!T) return NULL;
    Scalars *s = &T->s;
    return Py_BuildValue("(OOLLLOL)", s->in_string ? Py_True : Py_False, s->escape ? Py_True : Py_False,
                         (long long)s->string_start, (long long)s->digits, (long long)s->number_start,
                         s->member ? Py_True : Py_False, (long long)s->filled);
}

/* frames(tracker) -> [(serial, kind, item_start, key), ...] bottom first (kind 0: array, 1: object) */
static PyObject *tracker_frames(PyObject *self, PyObject *capsule) {
    Tracker *T = tracker_of(capsule);
    if (!T) return NULL;
    PyObject *out = PyList_New(T->s.depth);
    if (!out) return NULL;
    for (int64_t k = 0; k < T->s.depth; k++) {
        Frame *f = &T->frames[k];
        PyObject *t = Py_BuildValue("(LiLO)", (long long)f->serial, (int)f->kind, (long long)f->item_start,
                                    f->key ? Py_True : Py_False);
        if (!t) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, k, t);
    }
    return out;
}

/* mark(tracker) -> bytes: the scalars and the frames, to come back to (events must be drained first) */
static PyObject *tracker_mark(PyObject *self, PyObject *capsule) {
    Tracker *T = tracker_of(capsule);
    if (!T) return NULL;
    if (T->nevents) { PyErr_SetString(PyExc_RuntimeError, "mark: events not drained"); return NULL; }
    size_t frames = (size_t)T->s.depth * sizeof(Frame);
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(sizeof(Scalars) + frames));
    if (!out) return NULL;
    memcpy(PyBytes_AS_STRING(out), &T->s, sizeof(Scalars));
    if (frames) memcpy(PyBytes_AS_STRING(out) + sizeof(Scalars), T->frames, frames);
    return out;
}

/* restore(tracker, mark): back to `mark`, the output's bytearray cut back to its size then */
static PyObject *tracker_restore(PyObject *self, PyObject *args) {
    PyObject *capsule;
    const char *mark;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "Oy#", &capsule, &mark, &n)) return NULL;
    Tracker *T = tracker_of(capsule);
    if (!T) return NULL;
    Scalars s;
    if (n < (Py_ssize_t)sizeof(Scalars)) goto bad;
    memcpy(&s, mark, sizeof s);
    if (s.depth < 0 || s.size < 0 || n != (Py_ssize_t)(sizeof(Scalars) + (size_t)s.depth * sizeof(Frame))
        || s.size > PyByteArray_GET_SIZE(T->data)) goto bad;
    if (s.depth > T->cap) {
        Frame *f = realloc(T->frames, (size_t)s.depth * sizeof(Frame));
        if (!f) return PyErr_NoMemory();
        T->frames = f, T->cap = s.depth;
    }
    if (s.depth) memcpy(T->frames, mark + sizeof(Scalars), (size_t)s.depth * sizeof(Frame));
    if (PyByteArray_Resize(T->data, (Py_ssize_t)s.size) < 0) return NULL;
    T->s = s;
    T->nevents = 0;
    Py_RETURN_NONE;
bad:
    PyErr_SetString(PyExc_ValueError, "restore: not a mark of this tracker");
    return NULL;
}

static inline uint8_t shape(uint8_t b) { return b >= '1' && b <= '9' ? '0' : b; }

static int64_t twice(int64_t period) { return period >= 16 ? 2 : 3; }
static int64_t over_short(int64_t period) { return (24 + period - 1) / period; }
static int64_t four(int64_t period) { return 4; }

/* Whether `text` ends with a stretch of `shortest`..`longest` bytes repeated `times(period)` times (guards.py's
 * `_repeats_at_end`: the periods tried are those at which the last `shortest` bytes come back). */
static int repeats_at_end(const uint8_t *text, int64_t size, int64_t shortest, int64_t longest,
                          int64_t (*times)(int64_t)) {
    if (size < 2 * shortest) return 0;
    const uint8_t *needle = text + size - shortest;
    int64_t half = size / 2, low = size - shortest - (longest < half ? longest : half);
    for (int64_t pos = size - 2 * shortest; pos >= low; pos--) {
        if (memcmp(text + pos, needle, (size_t)shortest)) continue;
        int64_t period = size - shortest - pos, n = times(period);
        if (period * n > size) continue;
        int64_t k = 2;
        while (k <= n && !memcmp(text + size - k * period, text + size - period, (size_t)period)) k++;
        if (k > n) return 1;
    }
    return 0;
}

#define LOOP_WINDOW 256
#define FIRST_BYTES 64  /* tracker.py's FIRST_BYTES */

/* guards.py's `looping`: the string from `start` ends repeating itself */
static int looping(const uint8_t *data, int64_t end, int64_t start) {
    int64_t from = end - LOOP_WINDOW > start ? end - LOOP_WINDOW : start, size = end - from;
    const uint8_t *text = data + from;
    if (repeats_at_end(text, size, 6, 128, twice) || repeats_at_end(text, size, 1, 5, over_short)) return 1;
    uint8_t shaped[LOOP_WINDOW];
    int changed = 0;
    for (int64_t k = 0; k < size; k++) changed |= (shaped[k] = shape(text[k])) != text[k];
    return changed && repeats_at_end(shaped, size, 6, 64, four);
}

static int contains(PyObject *haystack, const uint8_t *needle, int64_t n) {
    const char *h = PyBytes_AS_STRING(haystack);
    Py_ssize_t size = PyBytes_GET_SIZE(haystack);
    for (Py_ssize_t k = 0; k + n <= size; k++)
        if (h[k] == (char)needle[0] && !memcmp(h + k, needle, (size_t)n)) return 1;
    return 0;
}

/* guards.py's `stuttering`: the value from `start` ends with 2-4 bytes repeated `times` times back to back, a run
 * neither the source holds nor (digits only) the source's digits */
static int stuttering(Tracker *T, const uint8_t *data, int64_t end, int64_t start, int64_t times) {
    for (int64_t period = 2; period <= 4; period++) {
        int64_t need = period * times, size = end - start;
        if (size < need) continue;
        const uint8_t *tail = data + end - period;
        int64_t count = 1;
        while (count < times && !memcmp(data + end - (count + 1) * period, tail, (size_t)period)) count++;
        if (count < times) continue;
        while ((count + 1) * period <= size && !memcmp(data + end - (count + 1) * period, tail, (size_t)period)) count++;
        const uint8_t *run = data + end - count * period;
        int64_t n = count * period, plain = 1;
        for (int64_t k = 0; k < n && plain; k++) plain = run[k] >= '0' && run[k] <= '9';
        if (!contains(T->source, run, n) && !(plain && contains(T->digits, run, n))) return 1;
    }
    return 0;
}

/* check(tracker) -> bits: 1 the string must close, 2 the number must end, 4 an array on the stack holds an item,
 * 8 a member's string value is being written, 16 the innermost array's first item is being written (guards.py's
 * `Guard.plan`, its per-step part) */
static PyObject *tracker_check(PyObject *self, PyObject *capsule) {
    Tracker *T = tracker_of(capsule);
    if (!T) return NULL;
    Scalars *s = &T->s;
    if (PyByteArray_GET_SIZE(T->data) != s->size) {
        PyErr_SetString(PyExc_RuntimeError, "check: the output was changed outside the tracker");
        return NULL;
    }
    const uint8_t *data = (const uint8_t *)PyByteArray_AS_STRING(T->data);
    int64_t end = s->size;
    long bits = (s->filled ? 4 : 0) | (s->in_string && s->member ? 8 : 0);
    if (s->depth) {  /* 16: the innermost array's first item is under way (tracker.py's `_first`) */
        const Frame *top = &T->frames[s->depth - 1];
        if (top->kind == OBJECT)
            bits |= s->depth > 1 && T->frames[s->depth - 2].kind == ARRAY && !T->frames[s->depth - 2].items ? 16 : 0;
        else if (!top->items)
            for (int64_t at = top->item_start; at < end && at < top->item_start + FIRST_BYTES; at++)
                if (data[at] != ' ' && data[at] != '\t' && data[at] != '\r' && data[at] != '\n') { bits |= 16; break; }
    }
    if (s->in_string) {
        int64_t size = end - s->string_start;
        if ((T->max_string >= 0 && size >= T->max_string) || (T->loops && size >= 18 && looping(data, end, s->string_start))
            || (T->stutter > 0 && size >= 2 * T->stutter && stuttering(T, data, end, s->string_start, T->stutter)))
            bits |= 1;
    } else if ((T->max_digits >= 0 && s->digits >= T->max_digits)
               || (T->stutter > 0 && s->number_start >= 0 && stuttering(T, data, end, s->number_start, T->stutter))) {
        bits |= 2;
    }
    return PyLong_FromLong(bits);
}

static PyMethodDef methods[] = {
    {"tracker", tracker_open, METH_VARARGS, "A JSON tracker over an output bytearray (a capsule)."},
    {"feed", tracker_feed, METH_VARARGS, "Append bytes to the output and track them; how many events wait."},
    {"events", tracker_events, METH_O, "The events waiting (array items ended, member strings closed, frames left)."},
    {"state", tracker_state, METH_O, "The tracker's scalars."},
    {"frames", tracker_frames, METH_O, "The frames on the tracker's stack, bottom first."},
    {"mark", tracker_mark, METH_O, "The tracker's place, to restore."},
    {"restore", tracker_restore, METH_VARARGS, "Back to a mark, the output cut back to its size then."},
    {"check", tracker_check, METH_O, "The guards' per-step checks, as bits."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_tracker", NULL, -1, methods};

PyMODINIT_FUNC PyInit__tracker(void) { return PyModule_Create(&module); }
