/* Hot loops of the network test (app/nettest), run without the GIL.
 *
 * Why C: a stream must never be slower than the link, and on a fast link (loopback,
 * 10 GbE) a Python loop of send() calls spends its time in the interpreter holding the
 * GIL, so four stream threads would be no faster than one. Each call here streams for
 * a slice of time (tens of milliseconds) with the GIL released; the Python side then
 * records a sample, reads TCP_INFO and checks for cancellation between slices.
 *
 * The sockets are non-blocking (the caller sets that): each loop sends or receives
 * until the socket would block, then waits in poll()/select() for at most the time
 * left in its slice, so a slice ends on time even when the peer stops reading.
 *
 * What is sent: a disk test file's content (app/disk/content.py), the stream being one
 * endless "file" with its own key: window W = pattern pool XOR key (made by
 * native.diskio.window), byte p of the stream is W[p mod window_bytes], except the first
 * 8 bytes of every stamp_block, which are key ^ (block + 1) * GOLDEN. Every 4 KiB of a
 * run is unique (a deduplicating WAN optimiser cannot flatter the link), the pattern's
 * compression ratio holds (a compressing link gets what tape and disk tests get), and
 * the source stays in the CPU cache, so the per-byte cost is the kernel's copy alone.
 * window_bytes and stamp_block are passed in from native.diskio (WINDOW, STAMP_BLOCK);
 * tests/nettest/test_netio.py holds the bytes to the disk writer's.
 *
 * Windows: the same loops over Winsock. ws2_32.dll's functions are looked up at run
 * time (Python's socket module has loaded the DLL already), so the module links against
 * nothing but Python, as every other native/src module does.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#define GOLDEN 0x9E3779B97F4A7C15ULL

#ifdef _WIN32
#include <winsock2.h>
#include <windows.h>

typedef SOCKET sock_t;
#define WOULD_BLOCK(e) ((e) == WSAEWOULDBLOCK)
#define INTERRUPTED(e) ((e) == WSAEINTR)

typedef int(WSAAPI *send_fn)(SOCKET, const char *, int, int);
typedef int(WSAAPI *recv_fn)(SOCKET, char *, int, int);
typedef int(WSAAPI *select_fn)(int, fd_set *, fd_set *, fd_set *, const struct timeval *);
typedef int(WSAAPI *lasterror_fn)(void);

static send_fn ws_send;
static recv_fn ws_recv;
static select_fn ws_select;
static lasterror_fn ws_lasterror;
static LARGE_INTEGER qpc_freq;

/* time.perf_counter_ns() on Windows, as native/src/_diskio.c computes it. */
static int64_t now_ns(void)
{
    LARGE_INTEGER t;
    QueryPerformanceCounter(&t);
    int64_t f = qpc_freq.QuadPart;
    return (t.QuadPart / f) * 1000000000LL + (t.QuadPart % f) * 1000000000LL / f;
}

static int load_winsock(void)
{
    HMODULE ws = LoadLibraryW(L"ws2_32.dll");
    if (!ws)
        return -1;
    ws_send = (send_fn)(void *)GetProcAddress(ws, "send");
    ws_recv = (recv_fn)(void *)GetProcAddress(ws, "recv");
    ws_select = (select_fn)(void *)GetProcAddress(ws, "select");
    ws_lasterror = (lasterror_fn)(void *)GetProcAddress(ws, "WSAGetLastError");
    return (ws_send && ws_recv && ws_select && ws_lasterror) ? 0 : -1;
}

static int64_t sock_send(sock_t s, const unsigned char *buf, int64_t n, int *err)
{
    int r = ws_send(s, (const char *)buf, (int)(n > (1 << 30) ? (1 << 30) : n), 0);
    *err = r == SOCKET_ERROR ? ws_lasterror() : 0;
    return r == SOCKET_ERROR ? -1 : r;
}

static int64_t sock_recv(sock_t s, unsigned char *buf, int64_t n, int *err)
{
    int r = ws_recv(s, (char *)buf, (int)(n > (1 << 30) ? (1 << 30) : n), 0);
    *err = r == SOCKET_ERROR ? ws_lasterror() : 0;
    return r == SOCKET_ERROR ? -1 : r;
}

/* Wait until the socket is writable (or readable) or `ns` have passed; 0, or an error code. */
static int wait_ready(sock_t s, int writable, int64_t ns)
{
    fd_set set;
    struct timeval tv;
    FD_ZERO(&set);
    FD_SET(s, &set);
    tv.tv_sec = (long)(ns / 1000000000LL);
    tv.tv_usec = (long)((ns % 1000000000LL) / 1000);
    int r = ws_select(0, writable ? NULL : &set, writable ? &set : NULL, NULL, &tv);
    return r == SOCKET_ERROR ? ws_lasterror() : 0;
}
#else
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

typedef int sock_t;
#define WOULD_BLOCK(e) ((e) == EAGAIN || (e) == EWOULDBLOCK)
#define INTERRUPTED(e) ((e) == EINTR)
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* Python ignores SIGPIPE: a closed peer is EPIPE either way */
#endif

/* time.perf_counter_ns() on Linux: CLOCK_MONOTONIC. */
static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t sock_send(sock_t s, const unsigned char *buf, int64_t n, int *err)
{
    ssize_t r = send(s, buf, (size_t)n, MSG_NOSIGNAL);
    *err = r < 0 ? errno : 0;
    return r;
}

static int64_t sock_recv(sock_t s, unsigned char *buf, int64_t n, int *err)
{
    ssize_t r = recv(s, buf, (size_t)n, 0);
    *err = r < 0 ? errno : 0;
    return r;
}

static int wait_ready(sock_t s, int writable, int64_t ns)
{
    struct pollfd p = {s, (short)(writable ? POLLOUT : POLLIN), 0};
    int ms = (int)((ns + 999999) / 1000000);
    int r = poll(&p, 1, ms > 0 ? ms : 1);
    return (r < 0 && errno != EINTR) ? errno : 0;
}
#endif

/* Stamp the block starts that stream bytes [p, p + n) cover, in the window copy at src
 * (= window + p mod window_bytes). A stamp depends on the position only, so stamping a
 * word again (a short send resumes mid-block) is harmless. */
static void stamp(unsigned char *src, int64_t p, int64_t n, uint64_t key, int64_t block)
{
    for (int64_t q = p - p % block; q < p + n; q += block) {
        uint64_t value = key ^ ((uint64_t)(q / block + 1) * GOLDEN);
        memcpy(src - (p - q), &value, 8);
    }
}

static int get_socket(PyObject *obj, sock_t *out)
{
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *out = (sock_t)v;
    return 0;
}

/* send_for(sock, window, pos, key, chunk, window_bytes, stamp_block, until_ns)
 *   -> (sent, error, t_end_ns)
 * Sends stream bytes pos, pos+1, ... in sends of up to `chunk` bytes until
 * time.perf_counter_ns() reaches until_ns or an error (errno / WSA code) ends it. */
static PyObject *send_for(PyObject *self, PyObject *args)
{
    PyObject *sockobj;
    Py_buffer win;
    long long pos, key, chunk, wbytes, block, until;
    if (!PyArg_ParseTuple(args, "Ow*LLLLLL", &sockobj, &win, &pos, &key, &chunk, &wbytes, &block, &until))
        return NULL;
    sock_t s;
    if (get_socket(sockobj, &s) < 0 || chunk <= 0 || block < 8 || wbytes <= 0 || wbytes % block || pos < 0 ||
        win.len < wbytes + chunk + 8) {
        PyBuffer_Release(&win);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "window too short (native.diskio.window) or bad chunk/block sizes");
        return NULL;
    }
    unsigned char *w = (unsigned char *)win.buf;
    int64_t done = 0;
    int err = 0;
    Py_BEGIN_ALLOW_THREADS
    for (;;) {
        int64_t t = now_ns();
        if (t >= until)
            break;
        int64_t p = pos + done;
        unsigned char *src = w + p % wbytes;
        if (key)
            stamp(src, p, chunk, (uint64_t)key, block);
        int64_t r = sock_send(s, src, chunk, &err);
        if (r > 0) {
            done += r;
            continue;
        }
        if (r < 0 && INTERRUPTED(err))
            continue;
        if (r < 0 && WOULD_BLOCK(err)) {
            err = wait_ready(s, 1, until - t);
            if (err)
                break;
            continue;
        }
        break; /* an error, or a send that took nothing */
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&win);
    return Py_BuildValue("LiL", (long long)done, err, (long long)now_ns());
}

/* recv_for(sock, buffer, until_ns, max_bytes) -> (received, error, eof, t_last_ns)
 * Receives (and discards) into `buffer` until time.perf_counter_ns() reaches until_ns,
 * max_bytes have come (max_bytes < 0: no limit), the peer closed (eof = 1), or an error.
 * t_last_ns is the time the last byte came (0 when none came). */
static PyObject *recv_for(PyObject *self, PyObject *args)
{
    PyObject *sockobj;
    Py_buffer buf;
    long long until, max_bytes;
    if (!PyArg_ParseTuple(args, "Ow*LL", &sockobj, &buf, &until, &max_bytes))
        return NULL;
    sock_t s;
    if (get_socket(sockobj, &s) < 0 || buf.len <= 0) {
        PyBuffer_Release(&buf);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "empty receive buffer");
        return NULL;
    }
    unsigned char *b = (unsigned char *)buf.buf;
    int64_t done = 0, last = 0;
    int err = 0, eof = 0;
    Py_BEGIN_ALLOW_THREADS
    for (;;) {
        int64_t t = now_ns();
        if (t >= until)
            break;
        int64_t want = buf.len;
        if (max_bytes >= 0 && max_bytes - done < want)
            want = max_bytes - done;
        if (want <= 0)
            break;
        int64_t r = sock_recv(s, b, want, &err);
        if (r > 0) {
            done += r;
            last = now_ns();
            continue;
        }
        if (r == 0) {
            eof = 1;
            break;
        }
        if (INTERRUPTED(err))
            continue;
        if (WOULD_BLOCK(err)) {
            err = wait_ready(s, 0, until - t);
            if (err)
                break;
            continue;
        }
        break;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buf);
    return Py_BuildValue("LiiL", (long long)done, err, eof, (long long)last);
}

static PyMethodDef methods[] = {
    {"send_for", send_for, METH_VARARGS, "send_for(sock, window, pos, key, chunk, window_bytes, stamp_block, until_ns) "
                                         "-> (sent, error, t_end_ns)"},
    {"recv_for", recv_for, METH_VARARGS, "recv_for(sock, buffer, until_ns, max_bytes) -> (received, error, eof, t_last_ns)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_netio", "Network test stream loops (GIL released).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__netio(void)
{
#ifdef _WIN32
    QueryPerformanceFrequency(&qpc_freq);
    if (load_winsock() < 0) {
        PyErr_SetString(PyExc_ImportError, "ws2_32.dll's send/recv/select not found");
        return NULL;
    }
#endif
    return PyModule_Create(&module);
}
