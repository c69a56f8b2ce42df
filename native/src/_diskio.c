/* Hot loops of the disk tests (create data, read data), run without the GIL.
 *
 * Why C: a Python loop of open/write/close per 8 KiB file spends most of its time in
 * the interpreter while holding the GIL, so four stream threads are no faster than
 * one.  Each function here handles a whole batch of files (or a large slice of one
 * file) with the GIL released, so streams scale with threads while the Python side
 * still publishes samples and checks cancellation between batches (every few ms).
 *
 * Files are opened relative to a directory descriptor with O_NOFOLLOW, so nothing
 * here ever follows a symbolic link; new files use O_CREAT|O_EXCL, so an existing
 * file (or symlink) is never overwritten.
 *
 * Per-file results come back as one bytes object of packed int64 records
 * {errno, nbytes, t_end_ns (CLOCK_MONOTONIC, same clock as time.monotonic_ns), latency_ns}
 * so that Python allocates one object per batch, not one per file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef _WIN32
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef O_DIRECT
#define O_DIRECT 0
#endif

#define FLAG_FSYNC 1  /* create: fsync each file before close */
#define FLAG_EVICT 1  /* read: posix_fadvise(DONTNEED) before reading */
#define FLAG_DIRECT 2 /* read: O_DIRECT */

typedef struct {
    int64_t err, nbytes, t_end, latency;
} record_t;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Write nbytes of pattern data: pool[off...] (wrapping) XOR-ed with a 64-bit key in
 * 8-byte words.  The pool offset is a multiple of 8, so the key's phase follows the
 * pool's and copies at distances that are multiples of 8 stay copies: the file
 * compresses like the pool while every file's bytes are unique (no dedup cheating).
 * Returns bytes written; *err is set on failure.  *off is advanced. */
static int64_t write_pattern(int fd, const unsigned char *pool, int64_t pool_len, int64_t *off,
                             int64_t nbytes, uint64_t key, unsigned char *scratch, int64_t chunk,
                             int *err)
{
    int64_t done = 0;
    *err = 0;
    while (done < nbytes) {
        int64_t n = nbytes - done;
        if (n > chunk)
            n = chunk;
        if (n > pool_len - *off)
            n = pool_len - *off;
        const unsigned char *src = pool + *off;
        if (key) {
            int64_t words = n / 8, i;
            for (i = 0; i < words; i++) {
                uint64_t w;
                memcpy(&w, src + 8 * i, 8);
                w ^= key;
                memcpy(scratch + 8 * i, &w, 8);
            }
            for (i = words * 8; i < n; i++)
                scratch[i] = src[i] ^ (unsigned char)(key >> (8 * (i % 8)));
            src = scratch;
        }
        int64_t w = 0;
        while (w < n) {
            ssize_t r = write(fd, src + w, (size_t)(n - w));
            if (r < 0) {
                if (errno == EINTR)
                    continue;
                *err = errno;
                return done + w;
            }
            if (r == 0) {
                *err = ENOSPC;
                return done + w;
            }
            w += r;
        }
        done += n;
        *off += n;
        if (*off >= pool_len)
            *off = 0;
    }
    return done;
}

/* create_files(specs, pool, chunk, flags) -> bytes
 * specs: buffer of int64 rows (size, pool_offset, key, dirfd, index), one per file; file
 * i is created in directory dirfd as "f%06d.dat" % index, so one batch may span many
 * small directories.  Stops at the first error; the failed file (if it was created)
 * is removed again, and its record carries the errno. */
static PyObject *create_files(PyObject *self, PyObject *args)
{
    int flags;
    long long chunk;
    Py_buffer specs, pool;
    if (!PyArg_ParseTuple(args, "y*y*Li", &specs, &pool, &chunk, &flags))
        return NULL;
    PyObject *out = NULL;
    unsigned char *scratch = NULL;
    Py_ssize_t n = specs.len / (Py_ssize_t)(5 * sizeof(int64_t));
    if (pool.len <= 0 || pool.len % 8 || chunk <= 0 || specs.len % (5 * sizeof(int64_t))) {
        PyErr_SetString(PyExc_ValueError, "pool length must be a positive multiple of 8, chunk > 0, 5 int64 per file");
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(record_t));
    scratch = PyMem_RawMalloc((size_t)chunk + 8);
    if (!out || !scratch) {
        Py_CLEAR(out);
        PyErr_NoMemory();
        goto done;
    }
    record_t *rec = (record_t *)PyBytes_AS_STRING(out);
    const int64_t *sp = (const int64_t *)specs.buf;
    Py_ssize_t count = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        const int64_t *row = sp + 5 * i;
        char name[32];
        snprintf(name, sizeof name, "f%06lld.dat", (long long)row[4]);
        int dirfd = (int)row[3];
        int64_t t0 = now_ns(), size = row[0], off = row[1] % pool.len;
        uint64_t key = (uint64_t)row[2];
        int err = 0;
        int64_t written = 0;
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            err = errno;
        } else {
            written = write_pattern(fd, pool.buf, pool.len, &off, size, key, scratch, chunk, &err);
            if (!err && (flags & FLAG_FSYNC) && fsync(fd) < 0)
                err = errno;
            if (close(fd) < 0 && !err)
                err = errno;
            if (err)
                unlinkat(dirfd, name, 0); /* ours (O_EXCL): leave no partial file behind */
        }
        int64_t t1 = now_ns();
        rec[i].err = err;
        rec[i].nbytes = err ? 0 : written;
        rec[i].t_end = t1;
        rec[i].latency = t1 - t0;
        count = i + 1;
        if (err)
            break;
    }
    Py_END_ALLOW_THREADS
    if (count < n)
        _PyBytes_Resize(&out, count * (Py_ssize_t)sizeof(record_t));
done:
    if (scratch)
        PyMem_RawFree(scratch);
    PyBuffer_Release(&specs);
    PyBuffer_Release(&pool);
    return out;
}

/* write_fd(fd, pool, pool_offset, nbytes, key, chunk) -> (written, errno)
 * One slice of a large file; the caller owns the descriptor. */
static PyObject *write_fd(PyObject *self, PyObject *args)
{
    int fd;
    Py_buffer pool;
    long long off, nbytes, key, chunk;
    if (!PyArg_ParseTuple(args, "iy*LLLL", &fd, &pool, &off, &nbytes, &key, &chunk))
        return NULL;
    if (pool.len <= 0 || pool.len % 8 || chunk <= 0) {
        PyBuffer_Release(&pool);
        PyErr_SetString(PyExc_ValueError, "pool length must be a positive multiple of 8 and chunk > 0");
        return NULL;
    }
    unsigned char *scratch = PyMem_RawMalloc((size_t)chunk + 8);
    if (!scratch) {
        PyBuffer_Release(&pool);
        return PyErr_NoMemory();
    }
    int err = 0;
    int64_t written, o = off % pool.len;
    Py_BEGIN_ALLOW_THREADS
    written = write_pattern(fd, pool.buf, pool.len, &o, nbytes, (uint64_t)key, scratch, chunk, &err);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(scratch);
    PyBuffer_Release(&pool);
    return Py_BuildValue("Li", (long long)written, err);
}

/* Read an open file to EOF (or max_bytes) with buffer-sized reads. */
static int64_t read_all(int fd, unsigned char *buf, int64_t buflen, int64_t max_bytes, int *err, int *eof)
{
    int64_t total = 0;
    *err = 0;
    *eof = 0;
    while (max_bytes < 0 || total < max_bytes) {
        ssize_t r = read(fd, buf, (size_t)buflen);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            *err = errno;
            break;
        }
        if (r == 0) {
            *eof = 1;
            break;
        }
        total += r;
    }
    return total;
}

/* read_files(dirfds, names, buf, flags) -> bytes of records.
 * dirfds: an int (every name in that directory) or a buffer of int32, one per name, so
 * that one batch can span many small directories.
 * Unlike create, an unreadable file does not stop the batch: backup agents skip it. */
static PyObject *read_files(PyObject *self, PyObject *args)
{
    int flags, single_fd = -1;
    PyObject *dirfds_in, *names_in;
    Py_buffer buf, fds = {0};
    if (!PyArg_ParseTuple(args, "OOw*i", &dirfds_in, &names_in, &buf, &flags))
        return NULL;
    PyObject *out = NULL;
    const char **cn = NULL;
    PyObject *names = PySequence_Tuple(names_in); /* holds the items while the GIL is released */
    if (!names)
        goto done;
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    if (PyLong_Check(dirfds_in)) {
        single_fd = (int)PyLong_AsLong(dirfds_in);
        if (single_fd == -1 && PyErr_Occurred())
            goto done;
    } else {
        if (PyObject_GetBuffer(dirfds_in, &fds, PyBUF_SIMPLE) < 0)
            goto done;
        if (fds.len != n * (Py_ssize_t)sizeof(int32_t)) {
            PyErr_SetString(PyExc_ValueError, "one int32 directory descriptor per name");
            goto done;
        }
    }
    cn = PyMem_Malloc(sizeof(char *) * (size_t)(n ? n : 1));
    if (!cn) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        cn[i] = PyBytes_AsString(PyTuple_GET_ITEM(names, i));
        if (!cn[i])
            goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(record_t));
    if (!out)
        goto done;
    record_t *rec = (record_t *)PyBytes_AS_STRING(out);
    const int32_t *fdv = fds.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t t0 = now_ns(), got = 0;
        int err = 0, eof = 0;
        int oflags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | ((flags & FLAG_DIRECT) ? O_DIRECT : 0);
        int fd = openat(fdv ? fdv[i] : single_fd, cn[i], oflags);
        if (fd < 0) {
            err = errno;
        } else {
            if (flags & FLAG_EVICT)
                posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
            posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
            got = read_all(fd, buf.buf, buf.len, -1, &err, &eof);
            close(fd);
        }
        int64_t t1 = now_ns();
        rec[i].err = err;
        rec[i].nbytes = got;
        rec[i].t_end = t1;
        rec[i].latency = t1 - t0;
    }
    Py_END_ALLOW_THREADS
done:
    if (cn)
        PyMem_Free(cn);
    if (fds.obj)
        PyBuffer_Release(&fds);
    Py_XDECREF(names);
    PyBuffer_Release(&buf);
    return out;
}

/* read_fd(fd, buf, max_bytes) -> (nbytes, errno, eof): one slice of a large file. */
static PyObject *read_fd(PyObject *self, PyObject *args)
{
    int fd;
    Py_buffer buf;
    long long max_bytes;
    if (!PyArg_ParseTuple(args, "iw*L", &fd, &buf, &max_bytes))
        return NULL;
    int err, eof;
    int64_t got;
    Py_BEGIN_ALLOW_THREADS
    got = read_all(fd, buf.buf, buf.len, max_bytes, &err, &eof);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buf);
    return Py_BuildValue("Lii", (long long)got, err, eof);
}

/* syncfs(fd): flush the whole file system holding fd (what "fsync at end" means for
 * a tree of thousands of files without reopening each one). */
static PyObject *py_syncfs(PyObject *self, PyObject *args)
{
    int fd, r;
    if (!PyArg_ParseTuple(args, "i", &fd))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
#ifdef __linux__
    r = syncfs(fd);
#else
    sync();
    r = 0;
#endif
    Py_END_ALLOW_THREADS
    if (r < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_NONE;
}

/* resident(fd) -> (resident_pages, total_pages): how much of a file sits in the page
 * cache right now (mmap + mincore).  Used to warn when reads may come from memory. */
static PyObject *resident(PyObject *self, PyObject *args)
{
    int fd;
    if (!PyArg_ParseTuple(args, "i", &fd))
        return NULL;
    struct stat st;
    if (fstat(fd, &st) < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    long page = sysconf(_SC_PAGESIZE);
    int64_t pages = ((int64_t)st.st_size + page - 1) / page, res = 0;
    if (pages == 0)
        return Py_BuildValue("LL", 0LL, 0LL);
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return PyErr_SetFromErrno(PyExc_OSError);
    unsigned char *vec = PyMem_Malloc((size_t)pages);
    if (!vec) {
        munmap(map, (size_t)st.st_size);
        return PyErr_NoMemory();
    }
    if (mincore(map, (size_t)st.st_size, vec) == 0)
        for (int64_t i = 0; i < pages; i++)
            res += vec[i] & 1;
    PyMem_Free(vec);
    munmap(map, (size_t)st.st_size);
    return Py_BuildValue("LL", (long long)res, (long long)pages);
}

static PyMethodDef methods[] = {
    {"create_files", create_files, METH_VARARGS, "Create a batch of pattern files in one directory (GIL released)."},
    {"write_fd", write_fd, METH_VARARGS, "Write a slice of pattern data to an open file (GIL released)."},
    {"read_files", read_files, METH_VARARGS, "Read a batch of whole files in one directory (GIL released)."},
    {"read_fd", read_fd, METH_VARARGS, "Read a slice of an open file (GIL released)."},
    {"syncfs", py_syncfs, METH_VARARGS, "Flush the file system that holds fd."},
    {"resident", resident, METH_VARARGS, "Pages of an open file resident in the page cache."},
    {NULL, NULL, 0, NULL},
};
#else
static PyMethodDef methods[] = {{NULL, NULL, 0, NULL}};
#endif

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_diskio", "Disk test hot loops (POSIX).", -1, methods};

PyMODINIT_FUNC PyInit__diskio(void)
{
    PyObject *m = PyModule_Create(&moduledef);
#ifndef _WIN32
    if (m) {
        PyModule_AddIntConstant(m, "RECORD_SIZE", (long)sizeof(record_t));
        PyModule_AddIntConstant(m, "FLAG_FSYNC", FLAG_FSYNC);
        PyModule_AddIntConstant(m, "FLAG_EVICT", FLAG_EVICT);
        PyModule_AddIntConstant(m, "FLAG_DIRECT", FLAG_DIRECT);
        PyModule_AddIntConstant(m, "HAVE_O_DIRECT", O_DIRECT != 0);
    }
#endif
    return m;
}
