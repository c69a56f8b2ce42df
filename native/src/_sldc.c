/* SLDC (ECMA-321) cost model: how many bytes a drive's compressor makes of one record.
 *
 * We do not produce the encoded stream: only its length matters (to say what ratio a
 * pattern gives on a drive, and for the virtual drive to know how much tape a record
 * uses). The model:
 *
 *   - a greedy LZ77 parse with hash chains over 2-byte prefixes (a copy of 2 bytes
 *     already beats two literals), longest match wins, nearest on a tie, matches
 *     capped at 271 bytes, distances within the history (1 KiB: 10-bit displacement;
 *     16 KiB: 14-bit);
 *   - scheme 1 costs: literal 9 bits; copy 1 + match-count field (2/4/6/8/12 bits for
 *     2-3/4-7/8-15/16-31/32-271) + displacement;
 *   - scheme 2 costs: 8 bits a byte, 9 for 0xFF (escaped);
 *   - a 13-bit control symbol for every scheme switch. The switching policy is not
 *     standardised; we take the best one for the parse (a two-state Viterbi pass done
 *     on the fly), which is what a good encoder with a look-ahead buffer approaches.
 *     The record starts in scheme 1 (after a Reset 1);
 *   - a 13-bit End of Record symbol, then pad to a 32-bit boundary.
 *
 * The history starts empty for every record: the conservative case, and the one the
 * pattern generator is built for (it never refers back past a block start).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MATCH 271
#define MIN_MATCH 2
#define CONTROL_BITS 13
#define HASH_SIZE 65536

static inline int count_field_bits(int len)
{
    if (len < 4) return 2;
    if (len < 8) return 4;
    if (len < 16) return 6;
    if (len < 32) return 8;
    return 12;
}

static inline uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

typedef struct {
    int32_t head[HASH_SIZE];
    int32_t *prev; /* ring of `window` entries; positions fit int32: records are <= 2 GiB */
    int window;
} matcher_t;

/* Compressed size in bits (before padding) of data[0..n). */
static uint64_t sldc_bits(const uint8_t *data, Py_ssize_t n, int window, int disp_bits, int depth,
                          matcher_t *m, uint64_t *n_literals, uint64_t *n_copies)
{
    const int mask = window - 1;
    const int max_dist = window - 1;
    uint64_t c1 = 0, c2 = CONTROL_BITS; /* best cost so far ending in scheme 1 / scheme 2 */
    uint64_t lits = 0, copies = 0;
    Py_ssize_t i = 0;

    memset(m->head, 0xff, sizeof(m->head));
    /* m->prev needs no clearing: entries are only followed from positions inserted
       in this record, which are written before they are read. */

#define INSERT(pos)                                                          \
    do {                                                                     \
        if ((pos) + 1 < n) {                                                 \
            unsigned h_ = ((unsigned)data[(pos)] << 8) | data[(pos) + 1];    \
            m->prev[(pos) & mask] = m->head[h_];                             \
            m->head[h_] = (int32_t)(pos);                                    \
        }                                                                    \
    } while (0)

    while (i < n) {
        int best_len = 0;
        Py_ssize_t limit = n - i < MAX_MATCH ? n - i : MAX_MATCH;
        if (limit >= MIN_MATCH) {
            unsigned h = ((unsigned)data[i] << 8) | data[i + 1];
            int32_t cand = m->head[h];
            int tries = depth;
            while (cand >= 0 && i - cand <= max_dist && tries-- > 0) {
                const uint8_t *a = data + cand, *b = data + i;
                int len = 0;
                while (len < limit && a[len] == b[len]) len++;
                if (len > best_len) {
                    best_len = len;
                    if (len == limit) break;
                }
                cand = m->prev[cand & mask];
            }
        }
        uint64_t s1, s2 = 0;
        int span;
        if (best_len >= MIN_MATCH) {
            s1 = 1 + count_field_bits(best_len) + disp_bits;
            span = best_len;
            copies++;
        } else {
            s1 = 9;
            span = 1;
            lits++;
        }
        for (int k = 0; k < span; k++) s2 += data[i + k] == 0xff ? 9 : 8;
        uint64_t n1 = min64(c1, c2 + CONTROL_BITS) + s1;
        uint64_t n2 = min64(c2, c1 + CONTROL_BITS) + s2;
        c1 = n1;
        c2 = n2;
        for (int k = 0; k < span; k++) INSERT(i + k);
        i += span;
    }
#undef INSERT
    if (n_literals) *n_literals = lits;
    if (n_copies) *n_copies = copies;
    return min64(c1, c2) + CONTROL_BITS; /* End of Record */
}

static int history_params(Py_ssize_t history, int *disp_bits)
{
    int bits = 0;
    if (history < 256 || history > (1 << 20) || (history & (history - 1)) != 0) {
        PyErr_Format(PyExc_ValueError, "history must be a power of two from 256 to 1 MiB, not %zd", history);
        return -1;
    }
    while ((1 << bits) < history) bits++;
    *disp_bits = bits;
    return 0;
}

static matcher_t *matcher_new(int window)
{
    matcher_t *m = (matcher_t *)malloc(sizeof(matcher_t));
    if (!m) return NULL;
    m->prev = (int32_t *)malloc(sizeof(int32_t) * (size_t)window);
    if (!m->prev) {
        free(m);
        return NULL;
    }
    m->window = window;
    return m;
}

static void matcher_free(matcher_t *m)
{
    if (m) {
        free(m->prev);
        free(m);
    }
}

/* compressed_bits(data, history=1024, depth=32) -> (bits, literals, copies) */
static PyObject *py_compressed_bits(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"data", "history", "depth", NULL};
    Py_buffer buf;
    Py_ssize_t history = 1024;
    int depth = 32, disp_bits;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|ni", kwlist, &buf, &history, &depth)) return NULL;
    if (history_params(history, &disp_bits) < 0 || depth < 1 || buf.len > INT32_MAX) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "depth must be >= 1 and a record at most 2 GiB");
        PyBuffer_Release(&buf);
        return NULL;
    }
    matcher_t *m = matcher_new((int)history);
    if (!m) {
        PyBuffer_Release(&buf);
        return PyErr_NoMemory();
    }
    uint64_t bits, lits, copies;
    Py_BEGIN_ALLOW_THREADS
    bits = sldc_bits((const uint8_t *)buf.buf, buf.len, (int)history, disp_bits, depth, m, &lits, &copies);
    Py_END_ALLOW_THREADS
    matcher_free(m);
    PyBuffer_Release(&buf);
    return Py_BuildValue("(KKK)", (unsigned long long)bits, (unsigned long long)lits, (unsigned long long)copies);
}

/* compressed_sizes(data, record_size, history=1024, depth=32) -> list of padded byte sizes,
   one per record of `record_size` bytes (the last may be shorter). One call for many
   records keeps the per-record Python overhead out of the virtual drive's hot path. */
static PyObject *py_compressed_sizes(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"data", "record_size", "history", "depth", NULL};
    Py_buffer buf;
    Py_ssize_t record = 0, history = 1024;
    int depth = 32, disp_bits;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*n|ni", kwlist, &buf, &record, &history, &depth)) return NULL;
    if (history_params(history, &disp_bits) < 0 || record < 1 || record > INT32_MAX || depth < 1) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "record_size (at most 2 GiB) and depth must be >= 1");
        PyBuffer_Release(&buf);
        return NULL;
    }
    Py_ssize_t count = (buf.len + record - 1) / record;
    uint64_t *out = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)(count ? count : 1));
    matcher_t *m = matcher_new((int)history);
    if (!out || !m) {
        free(out);
        matcher_free(m);
        PyBuffer_Release(&buf);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < count; r++) {
        Py_ssize_t off = r * record;
        Py_ssize_t len = buf.len - off < record ? buf.len - off : record;
        uint64_t bits = sldc_bits((const uint8_t *)buf.buf + off, len, (int)history, disp_bits, depth, m, NULL, NULL);
        out[r] = ((bits + 31) / 32) * 4;
    }
    Py_END_ALLOW_THREADS
    matcher_free(m);
    PyBuffer_Release(&buf);
    PyObject *list = PyList_New(count);
    if (!list) {
        free(out);
        return NULL;
    }
    for (Py_ssize_t r = 0; r < count; r++) PyList_SET_ITEM(list, r, PyLong_FromUnsignedLongLong(out[r]));
    free(out);
    return list;
}

static PyMethodDef methods[] = {
    {"compressed_bits", (PyCFunction)(void (*)(void))py_compressed_bits, METH_VARARGS | METH_KEYWORDS,
     "compressed_bits(data, history=1024, depth=32) -> (bits, literals, copies): SLDC cost of one record, "
     "End of Record symbol included, before padding."},
    {"compressed_sizes", (PyCFunction)(void (*)(void))py_compressed_sizes, METH_VARARGS | METH_KEYWORDS,
     "compressed_sizes(data, record_size, history=1024, depth=32) -> list of padded sizes in bytes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_sldc", "SLDC (ECMA-321) compressed-size model.", -1, methods};

PyMODINIT_FUNC PyInit__sldc(void) { return PyModule_Create(&module); }
