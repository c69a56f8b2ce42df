/* Hot loops of the disk tests (create data, read data), run without the GIL.
 *
 * Why C: a Python loop of open/write/close per 8 KiB file spends most of its time in
 * the interpreter while holding the GIL, so four stream threads are no faster than
 * one.  Each function here handles a whole batch of files (or a large slice of one
 * file) with the GIL released, so streams scale with threads while the Python side
 * still publishes samples and checks cancellation between batches (every few ms).
 *
 * POSIX: files are opened relative to a directory descriptor with O_NOFOLLOW, so
 * nothing here ever follows a symbolic link; new files use O_CREAT|O_EXCL, so an
 * existing file (or symlink) is never overwritten.
 *
 * Windows (no directory descriptors): the same entry points take directory paths and
 * open files with CreateFileW exactly as native/diskio.py's Python loop does there:
 * CREATE_NEW for new files (never overwrites, a link included), reads unbuffered
 * (FILE_FLAG_NO_BUFFERING, native/winio.py's rules) when evicting or direct, else
 * through the file cache; large files by the Win32 HANDLE of the caller's descriptor.
 * Error codes come back as Win32 codes; native/diskio.py turns them into errno values
 * with native/winio.py's one table.
 *
 * Per-file results come back as one bytes object of packed int64 records
 * {error, nbytes, t_end_ns, latency_ns}, t_end on the clock of time.perf_counter_ns
 * (CLOCK_MONOTONIC on Linux, QueryPerformanceCounter on Windows), so that Python
 * allocates one object per batch, not one per file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>

typedef HANDLE file_t;

/* time.perf_counter_ns() on Windows: QueryPerformanceCounter scaled to ns the way
 * CPython does it (whole seconds and remainder apart, so nothing overflows). */
static LARGE_INTEGER qpc_freq;

static int64_t now_ns(void)
{
    LARGE_INTEGER t;
    QueryPerformanceCounter(&t);
    int64_t f = qpc_freq.QuadPart;
    return (t.QuadPart / f) * 1000000000LL + (t.QuadPart % f) * 1000000000LL / f;
}

/* Write n bytes to a handle; returns bytes written, *err = the Win32 error. */
static int64_t put(file_t h, const unsigned char *src, int64_t n, int *err)
{
    int64_t w = 0;
    while (w < n) {
        DWORD part = (DWORD)(n - w > (1 << 30) ? (1 << 30) : n - w), done = 0;
        if (!WriteFile(h, src + w, part, &done, NULL)) {
            *err = (int)GetLastError();
            return w;
        }
        if (done == 0) {
            *err = ERROR_DISK_FULL;
            return w;
        }
        w += done;
    }
    return w;
}
#else
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef O_DIRECT
#define O_DIRECT 0
#endif

typedef int file_t;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Write n bytes to a descriptor; returns bytes written, *err = errno. */
static int64_t put(file_t fd, const unsigned char *src, int64_t n, int *err)
{
    int64_t w = 0;
    while (w < n) {
        ssize_t r = write(fd, src + w, (size_t)(n - w));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            *err = errno;
            return w;
        }
        if (r == 0) {
            *err = ENOSPC;
            return w;
        }
        w += r;
    }
    return w;
}
#endif

#define FLAG_FSYNC 1  /* create: fsync each file before close */
#define FLAG_EVICT 1  /* read: posix_fadvise(DONTNEED) before reading (Windows: unbuffered) */
#define FLAG_DIRECT 2 /* read: O_DIRECT (Windows: unbuffered) */

/* Not an errno: the record's error code for "not a regular file" (a FIFO, a device). */
#define ERR_NOT_REGULAR 100000

typedef struct {
    int64_t err, nbytes, t_end, latency;
} record_t;

/* A file's content (keyed patterns; see app/disk/content.py for why):
 *   window W: pool[(off + j) mod pool_len] XOR key (8-byte phase), j < WINDOW;
 *   file byte p = W[p mod WINDOW], except the first 8 bytes of each 4 KiB block b,
 *   which are the stamp key ^ (b + 1) * GOLDEN (little-endian).
 * The pool's 4 KiB chunks start with fresh random literals, so a stamp replaces bytes
 * the compressor stores as literals anyway: the ratio holds, every block of every
 * file is unique (dedup cannot flatter), and the writer's source stays in the CPU
 * cache instead of streaming 32 MiB of pool through an XOR for every file: the
 * per-byte cost is the kernel's copy alone, as for fio's scrambled buffer. */
#define WINDOW ((int64_t)1 << 20)
#define STAMP_BLOCK 4096
#define GOLDEN 0x9E3779B97F4A7C15ULL

static void xor_copy(unsigned char *dst, const unsigned char *src, int64_t n, uint64_t key)
{
    int64_t words = n / 8, i;
    if (!key) {
        memcpy(dst, src, (size_t)n);
        return;
    }
    for (i = 0; i < words; i++) {
        uint64_t w;
        memcpy(&w, src + 8 * i, 8);
        w ^= key;
        memcpy(dst + 8 * i, &w, 8);
    }
    for (i = words * 8; i < n; i++)
        dst[i] = src[i] ^ (unsigned char)(key >> (8 * (i % 8)));
}

/* win[0, len): W repeated (len may be less than WINDOW for a small file). */
static void fill_window(unsigned char *win, int64_t len, const unsigned char *pool, int64_t pool_len,
                        int64_t off, uint64_t key)
{
    int64_t first = len < WINDOW ? len : WINDOW, j = 0;
    while (j < first) {
        int64_t o = (off + j) % pool_len, n = first - j;
        if (n > pool_len - o)
            n = pool_len - o; /* a multiple of 8: the key's phase carries on */
        xor_copy(win + j, pool + o, n, key);
        j += n;
    }
    for (j = WINDOW; j < len; j += WINDOW)
        memcpy(win + j, win, (size_t)(len - j < WINDOW ? len - j : WINDOW));
}

/* Bytes of window a file needs: all of it up to WINDOW + chunk (writes start at any
 * phase of the window), plus 8 for a stamp running past the end. */
static int64_t window_need(int64_t size, int64_t chunk)
{
    return (size < WINDOW + chunk ? size : WINDOW + chunk) + 8;
}

/* Write file bytes [pos, pos + nbytes) from a window made by fill_window, stamping
 * the block starts in place (a stamp depends on the position only, so restamping a
 * word another write stamped before is harmless).  Returns bytes written; *err is
 * set on failure. */
static int64_t write_content(file_t f, unsigned char *win, int64_t pos, int64_t nbytes, uint64_t key,
                             int64_t chunk, int *err)
{
    int64_t done = 0;
    *err = 0;
    while (done < nbytes) {
        int64_t p = pos + done, n = nbytes - done;
        if (n > chunk)
            n = chunk;
        unsigned char *src = win + p % WINDOW;
        if (key) {
            for (int64_t q = p - p % STAMP_BLOCK; q < p + n; q += STAMP_BLOCK) {
                uint64_t stamp = key ^ ((uint64_t)(q / STAMP_BLOCK + 1) * GOLDEN);
                memcpy(src - (p - q), &stamp, 8);
            }
        }
        int64_t w = put(f, src, n, err);
        if (*err)
            return done + w;
        done += n;
    }
    return done;
}

/* window(pool, off, key, size, chunk) -> bytearray
 * The window one file of `size` bytes is written from (fill_window), for write_fd. */
static PyObject *window(PyObject *self, PyObject *args)
{
    Py_buffer pool;
    long long off, key, size, chunk;
    if (!PyArg_ParseTuple(args, "y*LLLL", &pool, &off, &key, &size, &chunk))
        return NULL;
    PyObject *out = NULL;
    if (pool.len <= 0 || pool.len % 8 || chunk <= 0 || size < 0 || off < 0 || off % 8) {
        PyErr_SetString(PyExc_ValueError, "pool length a positive multiple of 8, offset a multiple of 8, chunk > 0");
    } else {
        int64_t need = window_need(size, chunk);
        out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)need);
        if (out) {
            unsigned char *win = (unsigned char *)PyByteArray_AS_STRING(out);
            memset(win + need - 8, 0, 8);
            Py_BEGIN_ALLOW_THREADS
            fill_window(win, need - 8, pool.buf, pool.len, off % pool.len, (uint64_t)key);
            Py_END_ALLOW_THREADS
        }
    }
    PyBuffer_Release(&pool);
    return out;
}

#ifdef _WIN32
/* ---- Windows ---------------------------------------------------------------------- */

/* dir + '\\' + name as one wide string (PyMem; the caller frees it with PyMem_Free).
 * Either may be str or bytes, decoded as os.fsdecode does; like os.path.join, no
 * separator is added after one that is already there. NULL with an exception set. */
static wchar_t *join_path(PyObject *dir, PyObject *name)
{
    PyObject *d = NULL, *n = NULL, *full = NULL;
    wchar_t *w = NULL;
    if (PyUnicode_FSDecoder(dir, &d) && PyUnicode_FSDecoder(name, &n)) {
        Py_ssize_t len = PyUnicode_GetLength(d);
        Py_UCS4 last = len > 0 ? PyUnicode_ReadChar(d, len - 1) : 0;
        full = (last == '\\' || last == '/') ? PyUnicode_Concat(d, n) : PyUnicode_FromFormat("%U\\%U", d, n);
        if (full)
            w = PyUnicode_AsWideCharString(full, NULL); /* refuses an embedded NUL */
    }
    Py_XDECREF(d);
    Py_XDECREF(n);
    Py_XDECREF(full);
    return w;
}

/* paths[i] for i < n: dirs (one str/bytes, or a sequence with one per file) joined with
 * names[i] (a sequence), or, when names is NULL, with "f%06lld.dat" % index[i]. */
static wchar_t **build_paths(PyObject *dirs, PyObject *names, const int64_t *specs, Py_ssize_t n)
{
    int one_dir = PyUnicode_Check(dirs) || PyBytes_Check(dirs);
    if (!one_dir && (!PySequence_Check(dirs) || PySequence_Size(dirs) != n)) {
        PyErr_SetString(PyExc_ValueError, "one directory path, or one per file");
        return NULL;
    }
    wchar_t **paths = PyMem_Calloc((size_t)(n ? n : 1), sizeof(wchar_t *));
    if (!paths)
        return (wchar_t **)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *dir = one_dir ? (Py_INCREF(dirs), dirs) : PySequence_GetItem(dirs, i);
        PyObject *name = names ? PySequence_GetItem(names, i) : PyUnicode_FromFormat("f%06lld.dat", (long long)specs[5 * i + 4]);
        if (dir && name)
            paths[i] = join_path(dir, name);
        Py_XDECREF(dir);
        Py_XDECREF(name);
        if (!paths[i]) {
            for (Py_ssize_t k = 0; k < i; k++)
                PyMem_Free(paths[k]);
            PyMem_Free(paths);
            return NULL;
        }
    }
    return paths;
}

static void free_paths(wchar_t **paths, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        PyMem_Free(paths[i]);
    PyMem_Free(paths);
}

/* create_files(specs, dirs, pool, chunk, flags) -> bytes
 * specs as on POSIX (the dirfd column is unused); dirs: the directory of every file, or
 * one per file.  CREATE_NEW with the share mode of the CRT's open(), as os.open(O_EXCL)
 * does; FLAG_FSYNC is FlushFileBuffers.  Stops at the first error; the failed file is
 * deleted again (it was ours: CREATE_NEW). */
static PyObject *create_files(PyObject *self, PyObject *args)
{
    int flags;
    long long chunk;
    Py_buffer specs, pool;
    PyObject *dirs;
    if (!PyArg_ParseTuple(args, "y*Oy*Li", &specs, &dirs, &pool, &chunk, &flags))
        return NULL;
    PyObject *out = NULL;
    unsigned char *scratch = NULL;
    wchar_t **paths = NULL;
    Py_ssize_t n = specs.len / (Py_ssize_t)(5 * sizeof(int64_t));
    if (pool.len <= 0 || pool.len % 8 || chunk <= 0 || specs.len % (5 * sizeof(int64_t))) {
        PyErr_SetString(PyExc_ValueError, "pool length must be a positive multiple of 8, chunk > 0, 5 int64 per file");
        goto done;
    }
    const int64_t *sp = (const int64_t *)specs.buf;
    if (!(paths = build_paths(dirs, NULL, sp, n)))
        goto done;
    out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(record_t));
    scratch = PyMem_RawMalloc((size_t)window_need(INT64_MAX, chunk));
    if (!out || !scratch) {
        Py_CLEAR(out);
        PyErr_NoMemory();
        goto done;
    }
    record_t *rec = (record_t *)PyBytes_AS_STRING(out);
    Py_ssize_t count = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        const int64_t *row = sp + 5 * i;
        int64_t t0 = now_ns(), size = row[0], off = row[1] % pool.len;
        uint64_t key = (uint64_t)row[2];
        fill_window(scratch, window_need(size, chunk) - 8, pool.buf, pool.len, off, key);
        int err = 0;
        int64_t written = 0;
        HANDLE h = CreateFileW(paths[i], GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, CREATE_NEW,
                               FILE_ATTRIBUTE_NORMAL, NULL);
        if (h == INVALID_HANDLE_VALUE) {
            err = (int)GetLastError();
        } else {
            written = write_content(h, scratch, 0, size, key, chunk, &err);
            if (!err && (flags & FLAG_FSYNC) && !FlushFileBuffers(h))
                err = (int)GetLastError();
            if (!CloseHandle(h) && !err)
                err = (int)GetLastError();
            if (err)
                DeleteFileW(paths[i]);
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
    if (paths)
        free_paths(paths, n);
    if (scratch)
        PyMem_RawFree(scratch);
    PyBuffer_Release(&specs);
    PyBuffer_Release(&pool);
    return out;
}

/* write_fd(handle, window, pos, nbytes, key, chunk) -> (written, error)
 * As on POSIX, on the Win32 HANDLE of the caller's descriptor (msvcrt.get_osfhandle:
 * Python's C runtime owns the descriptor table, not this module's). */
static PyObject *write_fd(PyObject *self, PyObject *args)
{
    Py_ssize_t handle;
    Py_buffer win;
    long long pos, nbytes, key, chunk;
    if (!PyArg_ParseTuple(args, "nw*LLLL", &handle, &win, &pos, &nbytes, &key, &chunk))
        return NULL;
    int64_t reach = pos + nbytes < WINDOW + chunk ? pos + nbytes : WINDOW + chunk;
    if (chunk <= 0 || pos < 0 || nbytes < 0 || win.len < reach + 8) {
        PyBuffer_Release(&win);
        PyErr_SetString(PyExc_ValueError, "window too short for this write (make it with window())");
        return NULL;
    }
    int err = 0;
    int64_t written;
    Py_BEGIN_ALLOW_THREADS
    written = write_content((HANDLE)handle, win.buf, pos, nbytes, (uint64_t)key, chunk, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&win);
    return Py_BuildValue("Li", (long long)written, err);
}

/* Read to EOF (or max_bytes) in whole-buffer reads, as native/winio.py does: a
 * synchronous ReadFile on a file is short only at its end, and on an unbuffered
 * handle the offset after a short read would be unaligned, so a short read is EOF. */
static int64_t read_all(HANDLE h, unsigned char *buf, int64_t buflen, int64_t max_bytes, int *err, int *eof)
{
    int64_t total = 0;
    DWORD ask = (DWORD)(buflen > (1 << 30) ? (1 << 30) : buflen);
    *err = 0;
    *eof = 0;
    if (ask == 0) { /* an empty buffer would never reach the end */
        *err = ERROR_INVALID_PARAMETER;
        return 0;
    }
    while (max_bytes < 0 || total < max_bytes) {
        DWORD got = 0;
        if (!ReadFile(h, buf, ask, &got, NULL)) {
            DWORD e = GetLastError();
            if (e == ERROR_HANDLE_EOF)
                *eof = 1;
            else
                *err = (int)e;
            break;
        }
        total += got;
        if (got < ask) {
            *eof = 1;
            break;
        }
    }
    return total;
}

/* read_files(dirs, names, buf, flags) -> bytes of records.
 * dirs: one directory path or one per name.  FLAG_EVICT or FLAG_DIRECT: unbuffered
 * (FILE_FLAG_NO_BUFFERING | SEQUENTIAL_SCAN, every share mode: native/winio.py's
 * open; the caller checked buf's alignment); otherwise through the file cache with
 * the CRT open()'s share mode.  An unreadable file does not stop the batch. */
static PyObject *read_files(PyObject *self, PyObject *args)
{
    int flags;
    PyObject *dirs, *names;
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "OOw*i", &dirs, &names, &buf, &flags))
        return NULL;
    PyObject *out = NULL;
    wchar_t **paths = NULL;
    Py_ssize_t n = PySequence_Size(names);
    if (n < 0 || !(paths = build_paths(dirs, names, NULL, n)))
        goto done;
    out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(record_t));
    if (!out)
        goto done;
    record_t *rec = (record_t *)PyBytes_AS_STRING(out);
    int unbuffered = (flags & (FLAG_EVICT | FLAG_DIRECT)) != 0;
    DWORD share = FILE_SHARE_READ | FILE_SHARE_WRITE | (unbuffered ? FILE_SHARE_DELETE : 0);
    DWORD attrs = unbuffered ? FILE_FLAG_NO_BUFFERING | FILE_FLAG_SEQUENTIAL_SCAN : FILE_ATTRIBUTE_NORMAL;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t t0 = now_ns(), got = 0;
        int err = 0, eof = 0;
        HANDLE h = CreateFileW(paths[i], GENERIC_READ, share, NULL, OPEN_EXISTING, attrs, NULL);
        if (h == INVALID_HANDLE_VALUE) {
            err = (int)GetLastError();
        } else {
            if (GetFileType(h) != FILE_TYPE_DISK) /* only a file is read (a device name, a pipe: skipped) */
                err = ERR_NOT_REGULAR;
            else
                got = read_all(h, buf.buf, buf.len, -1, &err, &eof);
            CloseHandle(h);
        }
        int64_t t1 = now_ns();
        rec[i].err = err;
        rec[i].nbytes = got;
        rec[i].t_end = t1;
        rec[i].latency = t1 - t0;
    }
    Py_END_ALLOW_THREADS
done:
    if (paths)
        free_paths(paths, n);
    PyBuffer_Release(&buf);
    return out;
}

/* read_fd(handle, buf, max_bytes) -> (nbytes, error, eof): one slice of a large file,
 * by the Win32 HANDLE of the caller's descriptor. */
static PyObject *read_fd(PyObject *self, PyObject *args)
{
    Py_ssize_t handle;
    Py_buffer buf;
    long long max_bytes;
    if (!PyArg_ParseTuple(args, "nw*L", &handle, &buf, &max_bytes))
        return NULL;
    int err, eof;
    int64_t got;
    Py_BEGIN_ALLOW_THREADS
    got = read_all((HANDLE)handle, buf.buf, buf.len, max_bytes, &err, &eof);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buf);
    return Py_BuildValue("Lii", (long long)got, err, eof);
}

/* No syncfs (flushing a volume needs administrator rights) and no resident() (no
 * mincore): native/diskio.py keeps its fallbacks for those two. */
static PyMethodDef methods[] = {
    {"create_files", create_files, METH_VARARGS, "Create a batch of pattern files (GIL released)."},
    {"window", window, METH_VARARGS, "The content window a large file is written from (see write_fd)."},
    {"write_fd", write_fd, METH_VARARGS, "Write a slice of a large file's content to a handle (GIL released)."},
    {"read_files", read_files, METH_VARARGS, "Read a batch of whole files (GIL released)."},
    {"read_fd", read_fd, METH_VARARGS, "Read a slice of a file by its handle (GIL released)."},
    {NULL, NULL, 0, NULL},
};
#else /* POSIX */
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
    scratch = PyMem_RawMalloc((size_t)window_need(INT64_MAX, chunk));
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
        fill_window(scratch, window_need(size, chunk) - 8, pool.buf, pool.len, off, key);
        int err = 0;
        int64_t written = 0;
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            err = errno;
        } else {
            written = write_content(fd, scratch, 0, size, key, chunk, &err);
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

/* write_fd(fd, window, pos, nbytes, key, chunk) -> (written, errno)
 * File bytes [pos, pos + nbytes) of one large file; the caller owns the descriptor
 * and made the window (stamped in place here) for this file. */
static PyObject *write_fd(PyObject *self, PyObject *args)
{
    int fd;
    Py_buffer win;
    long long pos, nbytes, key, chunk;
    if (!PyArg_ParseTuple(args, "iw*LLLL", &fd, &win, &pos, &nbytes, &key, &chunk))
        return NULL;
    int64_t reach = pos + nbytes < WINDOW + chunk ? pos + nbytes : WINDOW + chunk;
    if (chunk <= 0 || pos < 0 || nbytes < 0 || win.len < reach + 8) {
        PyBuffer_Release(&win);
        PyErr_SetString(PyExc_ValueError, "window too short for this write (make it with window())");
        return NULL;
    }
    int err = 0;
    int64_t written;
    Py_BEGIN_ALLOW_THREADS
    written = write_content(fd, win.buf, pos, nbytes, (uint64_t)key, chunk, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&win);
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
        /* O_NONBLOCK: a FIFO swapped in after the tree walk must not block the open; only a
         * regular file is read (ERR_NOT_REGULAR otherwise, listed as skipped). */
        int oflags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | ((flags & FLAG_DIRECT) ? O_DIRECT : 0);
        int fd = openat(fdv ? fdv[i] : single_fd, cn[i], oflags);
        struct stat st;
        if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
            close(fd);
            fd = -1;
            errno = ERR_NOT_REGULAR;
        }
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
    {"window", window, METH_VARARGS, "The content window a large file is written from (see write_fd)."},
    {"write_fd", write_fd, METH_VARARGS, "Write a slice of a large file's content to an open file (GIL released)."},
    {"read_files", read_files, METH_VARARGS, "Read a batch of whole files in one directory (GIL released)."},
    {"read_fd", read_fd, METH_VARARGS, "Read a slice of an open file (GIL released)."},
    {"syncfs", py_syncfs, METH_VARARGS, "Flush the file system that holds fd."},
    {"resident", resident, METH_VARARGS, "Pages of an open file resident in the page cache."},
    {NULL, NULL, 0, NULL},
};
#endif /* _WIN32 */

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_diskio", "Disk test hot loops (POSIX and Win32).", -1,
                                       methods};

PyMODINIT_FUNC PyInit__diskio(void)
{
#ifdef _WIN32
    QueryPerformanceFrequency(&qpc_freq); /* fixed at boot; never fails on XP and later */
#endif
    PyObject *m = PyModule_Create(&moduledef);
    if (m) {
        PyModule_AddIntConstant(m, "RECORD_SIZE", (long)sizeof(record_t));
        PyModule_AddIntConstant(m, "FLAG_FSYNC", FLAG_FSYNC);
        PyModule_AddIntConstant(m, "FLAG_EVICT", FLAG_EVICT);
        PyModule_AddIntConstant(m, "FLAG_DIRECT", FLAG_DIRECT);
#ifdef _WIN32
        PyModule_AddIntConstant(m, "HAVE_O_DIRECT", 0);
#else
        PyModule_AddIntConstant(m, "HAVE_O_DIRECT", O_DIRECT != 0);
#endif
        PyModule_AddIntConstant(m, "ERR_NOT_REGULAR", ERR_NOT_REGULAR);
    }
    return m;
}
