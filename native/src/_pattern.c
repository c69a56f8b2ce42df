/* Test-data pattern generation: the pool builder and the per-block keyed fill.
 *
 * A pattern is a pool (tens of MiB, built once) of self-contained chunks: runs of a
 * few fresh random bytes, each followed by M bytes copied from an earlier distance d
 * (a multiple of 8, within the compressor's history and within the chunk). A block is
 * a chunk-aligned pool slice XOR-ed with a 64-bit key derived from (seed, block number):
 * distances are multiples of 8 and slices start on 8-byte boundaries, so copies stay
 * copies (the ratio holds), yet every block is unique and can be regenerated to verify
 * a read-back. The fill is one pass over memory, as fast as a memcpy.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t xorshift64(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* The key of block `block` under `seed`: never zero, so no block is the bare pool. */
static inline uint64_t block_key(uint64_t seed, uint64_t block)
{
    uint64_t st = seed ^ (block * 0xD1B54A32D192ED03ULL);
    uint64_t k = splitmix64(&st);
    return k ? k : 0x5DEECE66DULL;
}

/* build_pool(buf, seed, match_avg, lit_len, history, chunk)
 * match_avg <= 0 makes the pool plain random bytes (the "random" pattern). */
static PyObject *py_build_pool(PyObject *self, PyObject *args)
{
    Py_buffer buf;
    unsigned long long seed;
    double match_avg;
    Py_ssize_t lit_len, history, chunk;
    if (!PyArg_ParseTuple(args, "w*Kdnnn", &buf, &seed, &match_avg, &lit_len, &history, &chunk)) return NULL;
    if (lit_len < 1 || history < 16 || chunk < 16 || buf.len % chunk != 0) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "bad pool parameters (pool length must be a multiple of chunk)");
        return NULL;
    }
    uint8_t *out = (uint8_t *)buf.buf;
    Py_ssize_t n = buf.len;
    uint64_t rng = seed * 0x2545F4914F6CDD1DULL + 0x9E3779B97F4A7C15ULL;
    if (!rng) rng = 1;
    Py_BEGIN_ALLOW_THREADS
    if (match_avg <= 0) {
        Py_ssize_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t v = xorshift64(&rng);
            memcpy(out + i, &v, 8);
        }
        for (; i < n; i++) out[i] = (uint8_t)xorshift64(&rng);
    } else {
        /* Largest copy distance: a multiple of 8 strictly inside the history. */
        Py_ssize_t max_d = ((history - 1) / 8) * 8;
        double acc = 0.0;
        for (Py_ssize_t base = 0; base < n; base += chunk) {
            uint8_t *c = out + base;
            Py_ssize_t pos = 0;
            while (pos < chunk) {
                Py_ssize_t lits = lit_len < chunk - pos ? lit_len : chunk - pos;
                for (Py_ssize_t k = 0; k < lits; k++) c[pos + k] = (uint8_t)(xorshift64(&rng) >> 24);
                pos += lits;
                if (pos >= chunk) break;
                acc += match_avg;
                Py_ssize_t m = (Py_ssize_t)acc;
                acc -= (double)m;
                if (m > chunk - pos) m = chunk - pos;
                Py_ssize_t reach = pos < max_d ? pos : max_d;
                if (m < 1 || reach < 8) continue;
                Py_ssize_t d = 8 * (1 + (Py_ssize_t)(xorshift64(&rng) % (uint64_t)(reach / 8)));
                for (Py_ssize_t k = 0; k < m; k++) c[pos + k] = c[pos + k - d]; /* may overlap: LZ77 allows it */
                pos += m;
            }
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buf);
    Py_RETURN_NONE;
}

/* Where block `block` starts in the pool: chunk-aligned, consecutive blocks consecutive. */
static inline Py_ssize_t block_offset(uint64_t block, Py_ssize_t block_size, Py_ssize_t pool_len, Py_ssize_t chunk)
{
    Py_ssize_t per_block = (block_size + chunk - 1) / chunk;
    Py_ssize_t starts = (pool_len - block_size) / chunk + 1;
    return (Py_ssize_t)((block * (uint64_t)per_block) % (uint64_t)starts) * chunk;
}

#if defined(__GNUC__)
typedef uint64_t u64x2 __attribute__((vector_size(16)));
#endif

static inline void xor_copy(uint8_t *dst, const uint8_t *src, Py_ssize_t len, uint64_t key)
{
    Py_ssize_t i = 0;
#if defined(__GNUC__)
    /* 64 bytes a turn in four 16-byte lanes: the compiler's own vectorization does 16
     * with loop overhead on each, twice the instructions for the same memory traffic. */
    u64x2 k2 = {key, key};
    for (; i + 64 <= len; i += 64) {
        u64x2 a, b, c, d;
        memcpy(&a, src + i, 16);
        memcpy(&b, src + i + 16, 16);
        memcpy(&c, src + i + 32, 16);
        memcpy(&d, src + i + 48, 16);
        a ^= k2;
        b ^= k2;
        c ^= k2;
        d ^= k2;
        memcpy(dst + i, &a, 16);
        memcpy(dst + i + 16, &b, 16);
        memcpy(dst + i + 32, &c, 16);
        memcpy(dst + i + 48, &d, 16);
    }
#endif
    for (; i + 8 <= len; i += 8) {
        uint64_t v;
        memcpy(&v, src + i, 8);
        v ^= key;
        memcpy(dst + i, &v, 8);
    }
    for (; i < len; i++) dst[i] = src[i] ^ (uint8_t)(key >> (8 * (i & 7)));
}

/* Blocks first, first+1, ... of the pattern into out[0..n) (the last may be short). */
static void fill_blocks(uint8_t *out, Py_ssize_t n, const uint8_t *src, Py_ssize_t plen, Py_ssize_t block_size,
                        uint64_t first, uint64_t seed, Py_ssize_t chunk, int keyed)
{
    uint64_t block = first;
    for (Py_ssize_t off = 0; off < n; off += block_size, block++) {
        Py_ssize_t len = n - off < block_size ? n - off : block_size;
        const uint8_t *s = src + block_offset(block, block_size, plen, chunk);
        if (keyed)
            xor_copy(out + off, s, len, block_key(seed, block));
        else
            memcpy(out + off, s, (size_t)len);
    }
}

static int check_args(Py_buffer *data, Py_buffer *pool, Py_ssize_t block_size, Py_ssize_t chunk)
{
    if (block_size < 1 || chunk < 8 || chunk % 8 != 0 || block_size > pool->len) {
        PyErr_SetString(PyExc_ValueError, "block size must be between 1 and the pool length");
        return -1;
    }
    return 0;
}

/* mismatch(data, pool, block_size, first_block, seed, chunk, keyed) -> offset of the first
 * byte that differs from the regenerated blocks, or -1. Allocates nothing. */
static PyObject *py_mismatch(PyObject *self, PyObject *args)
{
    Py_buffer data, pool;
    Py_ssize_t block_size, chunk;
    unsigned long long first, seed;
    int keyed;
    if (!PyArg_ParseTuple(args, "y*y*nKKnp", &data, &pool, &block_size, &first, &seed, &chunk, &keyed)) return NULL;
    if (check_args(&data, &pool, block_size, chunk) < 0) {
        PyBuffer_Release(&data);
        PyBuffer_Release(&pool);
        return NULL;
    }
    const uint8_t *in = (const uint8_t *)data.buf;
    const uint8_t *src = (const uint8_t *)pool.buf;
    Py_ssize_t n = data.len, plen = pool.len, bad = -1;
    Py_BEGIN_ALLOW_THREADS
    uint64_t block = first;
    for (Py_ssize_t off = 0; off < n && bad < 0; off += block_size, block++) {
        Py_ssize_t len = n - off < block_size ? n - off : block_size;
        const uint8_t *s = src + block_offset(block, block_size, plen, chunk);
        uint64_t key = keyed ? block_key(seed, block) : 0;
        Py_ssize_t i = 0;
        for (; i + 8 <= len; i += 8) {
            uint64_t a, b;
            memcpy(&a, in + off + i, 8);
            memcpy(&b, s + i, 8);
            if (a != (b ^ key)) break;
        }
        for (; i < len; i++) {
            if (in[off + i] != (uint8_t)(s[i] ^ (uint8_t)(key >> (8 * (i & 7))))) {
                bad = off + i;
                break;
            }
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    PyBuffer_Release(&pool);
    return PyLong_FromSsize_t(bad);
}

static PyObject *py_block_key(PyObject *self, PyObject *args)
{
    unsigned long long seed, block;
    if (!PyArg_ParseTuple(args, "KK", &seed, &block)) return NULL;
    return PyLong_FromUnsignedLongLong(block_key(seed, block));
}

/* Filler(pool, block_size, seed, chunk, keyed): the fill of one pattern, callable as
 * filler(buffer, first_block) (blocks first_block, first_block+1, ..., the last may be
 * short), and usable from C without the GIL: its
 * ``_c_fill`` capsule ("tapediag.fill") holds a TapediagFill whose function fills a buffer
 * with blocks index, index+1, ... A transport's C loop (native._iscsi_cmd) calls it
 * between WRITEs with the GIL released, so a drive's stream never waits for the
 * interpreter, not even when several drives' threads stream at once. The pool's buffer is
 * held for the Filler's life (pools are never mutated once built). */
typedef struct {
    void (*fill)(void *self, unsigned char *buf, Py_ssize_t len, unsigned long long index);
    void *self;
} TapediagFill;

typedef struct {
    PyObject_HEAD
    Py_buffer pool;
    Py_ssize_t block_size, chunk;
    uint64_t seed;
    int keyed;
    TapediagFill spec;
} FillerObject;

static void filler_fill(void *self, unsigned char *buf, Py_ssize_t len, unsigned long long index)
{
    FillerObject *f = (FillerObject *)self;
    fill_blocks(buf, len, (const uint8_t *)f->pool.buf, f->pool.len, f->block_size, index, f->seed, f->chunk, f->keyed);
}

static PyObject *filler_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"pool", "block_size", "seed", "chunk", "keyed", NULL};
    FillerObject *f = (FillerObject *)type->tp_alloc(type, 0);
    if (f == NULL) return NULL;
    unsigned long long seed;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*nKnp", kwlist, &f->pool, &f->block_size, &seed, &f->chunk,
                                     &f->keyed)) {
        f->pool.obj = NULL;
        Py_DECREF(f);
        return NULL;
    }
    f->seed = seed;
    if (check_args(NULL, &f->pool, f->block_size, f->chunk) < 0) {
        Py_DECREF(f);
        return NULL;
    }
    f->spec.fill = filler_fill;
    f->spec.self = f;
    return (PyObject *)f;
}

static void filler_dealloc(FillerObject *f)
{
    if (f->pool.obj != NULL) PyBuffer_Release(&f->pool);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

static PyObject *filler_call(FillerObject *f, PyObject *args, PyObject *kwds)
{
    Py_buffer dst;
    unsigned long long first;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "filler(buffer, first_block) takes no keywords");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "w*K", &dst, &first)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    filler_fill(f, (unsigned char *)dst.buf, dst.len, first);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&dst);
    Py_RETURN_NONE;
}

static PyObject *filler_c_fill(FillerObject *f, void *closure)
{
    (void)closure;
    return PyCapsule_New(&f->spec, "tapediag.fill", NULL); /* valid while the Filler lives */
}

static PyGetSetDef filler_getset[] = {
    {"_c_fill", (getter)filler_c_fill, NULL, "capsule 'tapediag.fill': the fill as a C function", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject FillerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "native._pattern.Filler",
    .tp_basicsize = sizeof(FillerObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Filler(pool, block_size, seed, chunk, keyed): filler(buffer, first_block) fills blocks in place.",
    .tp_new = filler_new,
    .tp_dealloc = (destructor)filler_dealloc,
    .tp_call = (ternaryfunc)filler_call,
    .tp_getset = filler_getset,
};

static PyMethodDef methods[] = {
    {"build_pool", py_build_pool, METH_VARARGS, "build_pool(buf, seed, match_avg, lit_len, history, chunk)"},
    {"mismatch", py_mismatch, METH_VARARGS, "mismatch(data, pool, block_size, first_block, seed, chunk, keyed) -> int"},
    {"block_key", py_block_key, METH_VARARGS, "block_key(seed, block) -> the 64-bit XOR key of a block"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pattern", "Keyed test-data pattern generation.", -1, methods};

PyMODINIT_FUNC PyInit__pattern(void)
{
    if (PyType_Ready(&FillerType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&FillerType);
    if (PyModule_AddObject(m, "Filler", (PyObject *)&FillerType) < 0) {
        Py_DECREF(&FillerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
