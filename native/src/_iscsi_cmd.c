/* One SCSI command through libiscsi in one C call, with the GIL released while the
 * target works: the per-command path of native.iscsi.IscsiTransport.
 *
 * Why C: through ctypes one command is five foreign calls (create task, add buffer,
 * command_sync, read the task, free it), each converting its arguments, plus a ctypes
 * array per data buffer; that cost ~8x libiscsi's own per-command instructions. Here
 * it is one call that takes the buffer protocol directly.
 *
 * Why no link against libiscsi: the entry points are handed in as addresses by the
 * ctypes binding (native/_iscsi_lib.py), with the struct scsi_task offsets of the
 * layout it detected (the layout moved in 1.20 without a soname bump). Loading the
 * library and knowing its layout stay in one place, and this module builds without
 * libiscsi-dev (and on systems where libiscsi is absent and iSCSI is unavailable).
 *
 * Semantics kept from the ctypes path: our own data-in/data-out buffers (no copy; held
 * exported, i.e. locked against resizing, for the call); when command_sync fails the
 * task may still sit in the context's queues, so it is NOT freed (None is returned and
 * the caller abandons the context); raw sense from task->datain (2-byte length, then
 * the fixed-format bytes) on CHECK CONDITION.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#ifndef _WIN32
#include <errno.h>
#include <poll.h>
#endif
#ifdef _WIN32
#include <windows.h>
#endif

typedef void *(*create_task_fn)(int cdb_size, unsigned char *cdb, int xfer_dir, int expxferlen);
typedef int (*add_buffer_fn)(void *task, int len, unsigned char *buf);
typedef void *(*command_sync_fn)(void *iscsi, int lun, void *task, void *data);
typedef void (*free_task_fn)(void *task);
/* The asynchronous half of libiscsi's API, for the overlapped write loop (see repeat). */
typedef void (*command_cb)(void *iscsi, int status, void *command_data, void *private_data);
typedef int (*command_async_fn)(void *iscsi, int lun, void *task, command_cb cb, void *data, void *private_data);
typedef int (*ctx_int_fn)(void *iscsi);
typedef int (*service_fn)(void *iscsi, int revents);

enum { XFER_NONE = 0, XFER_READ = 1, XFER_WRITE = 2 };

/* A fill callable from C without the GIL: the "tapediag.fill" capsule of native._pattern.Filler
 * (its ``_c_fill``), valid while the Filler lives (it is an argument of the call using it). */
typedef struct {
    void (*fill)(void *self, unsigned char *buf, Py_ssize_t len, unsigned long long index);
    void *self;
} TapediagFill;

typedef struct {
    PyObject_HEAD
    create_task_fn create_task;
    add_buffer_fn add_out, add_in;
    command_sync_fn command_sync;
    free_task_fn free_task;
    command_async_fn command_async; /* NULL: no overlapped writes (the ctypes binding gave none) */
    ctx_int_fn get_fd, which_events, out_queue_length;
    service_fn service;
    Py_ssize_t off_status, off_residual_status, off_residual, off_datain_size, off_datain_data;
    PyObject *empty; /* b"": the sense of every command that has none */
    PyObject *good;  /* (0, 0, 0, b""): every GOOD command without residual, shared (no tuple per command) */
} RunnerObject;

static PyObject *runner_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    unsigned long long create, add_out, add_in, sync, free_;
    unsigned long long async = 0, get_fd = 0, which = 0, service = 0, outq = 0;
    Py_ssize_t offs[5];
    static char *kwlist[] = {"create_task", "add_data_out", "add_data_in", "command_sync", "free_task",
                             "off_status", "off_residual_status", "off_residual", "off_datain_size",
                             "off_datain_data", "command_async", "get_fd", "which_events", "service",
                             "out_queue_length", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "KKKKKnnnnn|KKKKK", kwlist, &create, &add_out, &add_in, &sync, &free_,
                                     &offs[0], &offs[1], &offs[2], &offs[3], &offs[4], &async, &get_fd, &which,
                                     &service, &outq))
        return NULL;
    if (!create || !add_out || !add_in || !sync || !free_) {
        PyErr_SetString(PyExc_ValueError, "a libiscsi entry point is NULL");
        return NULL;
    }
    for (int i = 0; i < 5; i++) {
        if (offs[i] < 0 || offs[i] > 4096) {
            PyErr_SetString(PyExc_ValueError, "implausible struct scsi_task offset");
            return NULL;
        }
    }
    RunnerObject *r = (RunnerObject *)type->tp_alloc(type, 0);
    if (r == NULL) return NULL;
    r->create_task = (create_task_fn)(uintptr_t)create;
    r->add_out = (add_buffer_fn)(uintptr_t)add_out;
    r->add_in = (add_buffer_fn)(uintptr_t)add_in;
    r->command_sync = (command_sync_fn)(uintptr_t)sync;
    r->free_task = (free_task_fn)(uintptr_t)free_;
    if (async && get_fd && which && service && outq) {
        r->command_async = (command_async_fn)(uintptr_t)async;
        r->get_fd = (ctx_int_fn)(uintptr_t)get_fd;
        r->which_events = (ctx_int_fn)(uintptr_t)which;
        r->service = (service_fn)(uintptr_t)service;
        r->out_queue_length = (ctx_int_fn)(uintptr_t)outq;
    }
    r->off_status = offs[0];
    r->off_residual_status = offs[1];
    r->off_residual = offs[2];
    r->off_datain_size = offs[3];
    r->off_datain_data = offs[4];
    r->empty = PyBytes_FromStringAndSize(NULL, 0);
    if (r->empty == NULL) {
        Py_DECREF(r);
        return NULL;
    }
    r->good = Py_BuildValue("(kiKO)", 0UL, 0, 0ULL, r->empty);
    if (r->good == NULL) {
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

static void runner_dealloc(RunnerObject *r)
{
    Py_XDECREF(r->empty);
    Py_XDECREF(r->good);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

/* What one command left in its task, read at the layout's offsets. */
typedef struct {
    uint32_t status;
    int residual_status;
    size_t residual;
    int datain_size;
    unsigned char *datain;
} Outcome;

enum { ISSUE_DONE = 0, ISSUE_NOMEM = 1, ISSUE_FAILED = 2 };

static void read_outcome(RunnerObject *r, void *task, Outcome *o, unsigned char *sense, int *sense_len);

/* One command with the GIL already released: task, buffer, command_sync, the task's fields,
 * free. ISSUE_FAILED: command_sync failed and the task may still sit in the context's
 * queues, so it is NOT freed (the caller abandons the context). Sense bytes, when the
 * caller wants them, are copied out before the free into sense[0..*sense_len). */
/* A task for the command with our own buffer as its data-out or data-in area; NULL: out of memory. */
static void *new_task(RunnerObject *r, unsigned char *cdb, int cdb_len, int direction, unsigned char *buf, int length)
{
    void *task = r->create_task(cdb_len, cdb, direction, length);
    if (task == NULL || !length) return task;
    add_buffer_fn add = direction == XFER_WRITE ? r->add_out : r->add_in;
    if (add(task, length, buf) != 0) {
        r->free_task(task);
        return NULL;
    }
    return task;
}

static int issue(RunnerObject *r, void *ctx, int lun, unsigned char *cdb, int cdb_len, int direction,
                 unsigned char *buf, int length, Outcome *o, unsigned char *sense, int *sense_len)
{
    void *task = new_task(r, cdb, cdb_len, direction, buf, length);
    if (task == NULL) return ISSUE_NOMEM;
    if (r->command_sync(ctx, lun, task, NULL) == NULL) return ISSUE_FAILED;
    read_outcome(r, task, o, sense, sense_len);
    r->free_task(task);
    return ISSUE_DONE;
}

/* The task's status, residual and raw sense (copied out: the task is freed next). */
static void read_outcome(RunnerObject *r, void *task, Outcome *o, unsigned char *sense, int *sense_len)
{
    const char *t = (const char *)task;
    int status_raw;
    memcpy(&status_raw, t + r->off_status, sizeof status_raw);
    memcpy(&o->residual_status, t + r->off_residual_status, sizeof o->residual_status);
    memcpy(&o->residual, t + r->off_residual, sizeof o->residual);
    memcpy(&o->datain_size, t + r->off_datain_size, sizeof o->datain_size);
    memcpy(&o->datain, t + r->off_datain_data, sizeof o->datain);
    o->status = (uint32_t)status_raw;
    *sense_len = 0;
    if (o->status == 0x02 && o->datain_size >= 2 && o->datain != NULL) {
        int n = (o->datain[0] << 8) | o->datain[1];
        if (n > o->datain_size - 2) n = o->datain_size - 2;
        if (n > 252) n = 252; /* SPC: sense data is at most 252 bytes */
        memcpy(sense, o->datain + 2, (size_t)n);
        *sense_len = n;
    }
}

static int clean(const Outcome *o) { return o->status == 0 && o->residual_status == 0 && o->residual == 0; }

/* The (status, residual_status, residual, sense) tuple of a command; the shared one when clean. */
static PyObject *outcome_tuple(RunnerObject *r, const Outcome *o, const unsigned char *sense, int sense_len)
{
    if (clean(o)) {
        Py_INCREF(r->good);
        return r->good;
    }
    PyObject *s;
    if (sense_len) {
        s = PyBytes_FromStringAndSize((const char *)sense, sense_len);
        if (s == NULL) return NULL;
    } else {
        s = r->empty;
        Py_INCREF(s);
    }
    return Py_BuildValue("(kiKN)", (unsigned long)o->status, o->residual_status, (unsigned long long)o->residual, s);
}

/* libiscsi's synchronous loop treats a poll() interrupted by a signal as a failed
 * session (issue 14.7: Ctrl-C mid-WRITE recorded as "Poll failed", no filemark).
 * SIGINT/SIGTERM are kept pending while commands run: they are delivered when the
 * mask is restored, Python's handler sets its flag, and the caller sees
 * KeyboardInterrupt between commands with the session intact. (Windows has no signal
 * masks: Ctrl-C runs its handler on a thread of its own and interrupts no wait.) */
#ifndef _WIN32
typedef sigset_t SignalMask;
static void hold_signals(SignalMask *old)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, old);
}
static void release_signals(SignalMask *old) { pthread_sigmask(SIG_SETMASK, old, NULL); }
#else
typedef int SignalMask;
static void hold_signals(SignalMask *old) { (void)old; }
static void release_signals(SignalMask *old) { (void)old; }
#endif

/* Seconds on the clock of Python's time.perf_counter (CLOCK_MONOTONIC on Linux,
 * QueryPerformanceCounter on Windows), so the caller's samples share its time base. */
static double now(void)
{
#ifdef _WIN32
    static LARGE_INTEGER freq;
    LARGE_INTEGER c;
    if (!freq.QuadPart) QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)freq.QuadPart;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
}

/* One refill of a write's buffer with block ``index`` on: through the C fill without the GIL, or
 * through the Python callable with it (both loops of repeat use it). */
typedef struct {
    PyObject *fill, *buffer; /* fill(buffer, index), called with the GIL */
    long long index;
    PyThreadState **save;    /* the caller's released thread state */
    int failed;
    TapediagFill *cfill;     /* or this, without the GIL, into ``bytes`` (``len`` of them) */
    unsigned char *bytes;
    Py_ssize_t len;
} Prefill;

static void prefill_run(Prefill *p)
{
    if (p->cfill != NULL) {
        p->cfill->fill(p->cfill->self, p->bytes, p->len, (unsigned long long)p->index);
        return;
    }
    PyEval_RestoreThread(*p->save);
    PyObject *index = PyLong_FromLongLong(p->index);
    PyObject *ret = index == NULL ? NULL : PyObject_CallFunctionObjArgs(p->fill, p->buffer, index, NULL);
    Py_XDECREF(index);
    p->failed = ret == NULL;
    Py_XDECREF(ret);
    *p->save = PyEval_SaveThread();
}

#ifndef _WIN32
typedef struct {
    int finished, status;
} AsyncState;

static void on_done(void *iscsi, int status, void *task, void *private_data)
{
    (void)iscsi;
    (void)task;
    AsyncState *st = (AsyncState *)private_data;
    st->status = status;
    st->finished = 1;
}

/* One WRITE through libiscsi's asynchronous API, driving its socket ourselves as its own
 * synchronous loop does (poll, then iscsi_service; a quiet second services timeouts),
 * and refilling the other buffer (``next``) once the command and its data have left (the
 * out-queue is empty): the target is then busy storing the data, and the fill, the one
 * piece of work a bare C loop writing a static buffer does not do, costs no wall time.
 * Same outcomes and failure rule as issue(). */
static int issue_overlapped(RunnerObject *r, void *ctx, int lun, unsigned char *cdb, int cdb_len,
                            unsigned char *buf, int length, Outcome *o, unsigned char *sense, int *sense_len,
                            Prefill *next)
{
    void *task = new_task(r, cdb, cdb_len, XFER_WRITE, buf, length);
    if (task == NULL) return ISSUE_NOMEM;
    AsyncState st = {0, 0};
    if (r->command_async(ctx, lun, task, on_done, NULL, &st) != 0) return ISSUE_FAILED; /* task left, as in run() */
    int filled = next == NULL;
    while (!st.finished) {
        if (!filled && r->out_queue_length(ctx) == 0) {
            filled = 1;
            prefill_run(next);
            continue;
        }
        struct pollfd pfd = {r->get_fd(ctx), (short)r->which_events(ctx), 0};
        int ret = poll(&pfd, 1, 1000);
        if (ret < 0 && errno == EINTR) continue;
        if (ret < 0 || r->service(ctx, ret == 0 ? 0 : pfd.revents) < 0) return ISSUE_FAILED;
    }
    memcpy((char *)task + r->off_status, &st.status, sizeof st.status); /* as libiscsi's sync callback does */
    read_outcome(r, task, o, sense, sense_len);
    r->free_task(task);
    if (!filled) prefill_run(next);
    return ISSUE_DONE;
}
#endif

/* The checks run() and repeat() share; the CDB and data buffers are acquired on success. */
static int take_command(PyObject *const *args, void **ctx, long *lun, Py_buffer *cdb, long *direction,
                        Py_buffer *data, int *have_data, Py_ssize_t *length)
{
    *ctx = PyLong_AsVoidPtr(args[0]);
    *lun = PyLong_AsLong(args[1]);
    *direction = PyLong_AsLong(args[3]);
    *length = PyLong_AsSsize_t(args[5]);
    *have_data = 0;
    if (PyErr_Occurred()) return -1;
    if (*ctx == NULL) {
        PyErr_SetString(PyExc_ValueError, "no iSCSI context");
        return -1;
    }
    if (*direction < XFER_NONE || *direction > XFER_WRITE || *length < 0 || *length > INT32_MAX ||
        (*direction == XFER_NONE) != (*length == 0)) {
        PyErr_SetString(PyExc_ValueError, "bad direction or length");
        return -1;
    }
    if (PyObject_GetBuffer(args[2], cdb, PyBUF_SIMPLE) < 0) return -1;
    if (cdb->len < 1 || cdb->len > 16) {
        PyBuffer_Release(cdb);
        PyErr_SetString(PyExc_ValueError, "a CDB is 1 to 16 bytes");
        return -1;
    }
    if (*length) {
        if (PyObject_GetBuffer(args[4], data, *direction == XFER_WRITE ? PyBUF_SIMPLE : PyBUF_WRITABLE) < 0) {
            PyBuffer_Release(cdb);
            return -1; /* BufferError for a non-contiguous or read-only buffer */
        }
        *have_data = 1;
        if (data->len < *length) {
            PyBuffer_Release(data);
            PyBuffer_Release(cdb);
            *have_data = 0;
            PyErr_SetString(PyExc_ValueError, "the buffer is shorter than the transfer length");
            return -1;
        }
    }
    return 0;
}

/* run(context, lun, cdb, direction, buffer, length)
 *   -> (status, residual_status, residual, sense) or None when the session failed.
 * status is libiscsi's task status as an unsigned 32-bit value (its own codes lie
 * above 0xFF); length bytes of buffer are the data-out or the data-in area. */
static PyObject *runner_run(RunnerObject *r, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "run(context, lun, cdb, direction, buffer, length)");
        return NULL;
    }
    void *ctx;
    long lun, direction;
    Py_ssize_t length;
    Py_buffer cdb, data;
    int have_data;
    if (take_command(args, &ctx, &lun, &cdb, &direction, &data, &have_data, &length) < 0) return NULL;
    Outcome o;
    unsigned char sense[252];
    int sense_len = 0, how;
    SignalMask mask;
    Py_BEGIN_ALLOW_THREADS
    hold_signals(&mask);
    how = issue(r, ctx, (int)lun, (unsigned char *)cdb.buf, (int)cdb.len, (int)direction,
                have_data ? (unsigned char *)data.buf : NULL, (int)length, &o, sense, &sense_len);
    release_signals(&mask);
    Py_END_ALLOW_THREADS
    PyObject *result;
    if (how == ISSUE_NOMEM)
        result = PyErr_NoMemory();
    else if (how == ISSUE_FAILED) /* the task may still be queued in the context: leave it be */
        result = Py_NewRef(Py_None);
    else
        result = outcome_tuple(r, &o, sense, sense_len);
    if (have_data) PyBuffer_Release(&data);
    PyBuffer_Release(&cdb);
    return result;
}

/* repeat(context, lun, cdb, direction, buffer, length, count, until, starts, ends, fill, first, step, spare)
 *   -> (clean, tail)
 *
 * The same command up to ``count`` times, the hot loop of a tape test in one call: no
 * Python between commands, the GIL released throughout (held only for ``fill``), so a
 * drive's stream costs what libiscsi costs, and several drives' threads stream at once.
 * Before every command: stop when the clock has reached ``until`` (perf_counter
 * seconds); for a write, ``fill(buffer, first + i * step)`` refills the data-out buffer
 * (the pattern generator, in C). starts[i] and ends[i] (doubles) receive each command's
 * clock readings, tail included.
 *
 * ``clean`` commands completed GOOD with the whole transfer. The loop stops at the
 * first command that did not: ``tail`` is then its (status, residual_status, residual,
 * sense), or False when the session failed under it (the task is left queued, as in
 * run()); None when it stopped at ``count`` or ``until``.
 *
 * With ``spare`` (a second buffer as long as ``buffer``) and libiscsi's asynchronous entry
 * points, a write alternates between the two buffers and fills the next one while the
 * current WRITE is in flight (issue_overlapped). */
static PyObject *runner_repeat(RunnerObject *r, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 14) {
        PyErr_SetString(PyExc_TypeError, "repeat(context, lun, cdb, direction, buffer, length, count, until, starts, "
                                         "ends, fill, first, step, spare)");
        return NULL;
    }
    Py_ssize_t count = PyLong_AsSsize_t(args[6]);
    double until = PyFloat_AsDouble(args[7]);
    long long first = PyLong_AsLongLong(args[11]);
    long long step = PyLong_AsLongLong(args[12]);
    if (PyErr_Occurred()) return NULL;
    PyObject *fill = args[10] == Py_None ? NULL : args[10];
    if (fill != NULL && !PyCallable_Check(fill)) {
        PyErr_SetString(PyExc_TypeError, "fill must be callable or None");
        return NULL;
    }
    TapediagFill *cfill = NULL; /* a fill that needs no GIL: native._pattern.Filler */
    if (fill != NULL) {
        PyObject *cap = PyObject_GetAttrString(fill, "_c_fill");
        if (cap == NULL) {
            PyErr_Clear();
        } else {
            if (PyCapsule_IsValid(cap, "tapediag.fill")) cfill = (TapediagFill *)PyCapsule_GetPointer(cap, "tapediag.fill");
            Py_DECREF(cap);
        }
    }
    if (count < 0) {
        PyErr_SetString(PyExc_ValueError, "count must not be negative");
        return NULL;
    }
    void *ctx;
    long lun, direction;
    Py_ssize_t length;
    Py_buffer cdb, data, starts, ends;
    int have_data;
    if (take_command(args, &ctx, &lun, &cdb, &direction, &data, &have_data, &length) < 0) return NULL;
    if (fill != NULL && direction != XFER_WRITE) {
        if (have_data) PyBuffer_Release(&data);
        PyBuffer_Release(&cdb);
        PyErr_SetString(PyExc_ValueError, "fill is for a data-out buffer");
        return NULL;
    }
    Py_buffer spare;
    int have_spare = 0;
    if (args[13] != Py_None && fill != NULL) {
        if (PyObject_GetBuffer(args[13], &spare, PyBUF_SIMPLE) < 0) goto no_times;
        have_spare = 1;
        if (spare.len < length) {
            PyErr_SetString(PyExc_ValueError, "the spare buffer is shorter than the transfer length");
            goto no_starts;
        }
    }
    if (cfill != NULL && ((have_data && data.readonly) || (have_spare && spare.readonly))) {
        PyErr_SetString(PyExc_TypeError, "a filled buffer must be writable");
        goto no_starts;
    }
    if (PyObject_GetBuffer(args[8], &starts, PyBUF_WRITABLE) < 0) goto no_starts;
    if (PyObject_GetBuffer(args[9], &ends, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&starts);
        goto no_starts;
    }
    PyObject *result = NULL;
    if (starts.len < count * (Py_ssize_t)sizeof(double) || ends.len < count * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "the time buffers hold fewer than count doubles");
        goto out;
    }
    double *t_start = (double *)starts.buf, *t_end = (double *)ends.buf;
    unsigned char *buf = have_data ? (unsigned char *)data.buf : NULL;
    Outcome o;
    unsigned char sense[252];
    int sense_len = 0, how = ISSUE_DONE, stopped = 0;
    Py_ssize_t i = 0;
    SignalMask mask;
    PyThreadState *save = PyEval_SaveThread();
    hold_signals(&mask);
#ifndef _WIN32
    if (have_spare && r->command_async != NULL) { /* the overlapped write loop */
        unsigned char *bufs[2] = {buf, (unsigned char *)spare.buf};
        PyObject *objs[2] = {args[4], args[13]};
        Prefill p = {fill, objs[0], first, &save, 0, cfill, bufs[0], length};
        if (count > 0) prefill_run(&p); /* the first buffer, as the plain loop fills it */
        int cur = 0;
        for (; !p.failed && i < count; i++) {
            double a = now();
            if (a >= until) break;
            Prefill next = {fill, objs[cur ^ 1], first + (long long)(i + 1) * step, &save, 0, cfill, bufs[cur ^ 1],
                            length};
            how = issue_overlapped(r, ctx, (int)lun, (unsigned char *)cdb.buf, (int)cdb.len, bufs[cur], (int)length,
                                   &o, sense, &sense_len, i + 1 < count ? &next : NULL);
            t_start[i] = a;
            t_end[i] = now();
            p.failed = next.failed;
            if (how != ISSUE_DONE || !clean(&o)) {
                stopped = 1;
                break;
            }
            cur ^= 1;
        }
        if (p.failed) stopped = -1; /* a fill raised: its exception propagates */
        goto done;
    }
#endif
    for (; i < count; i++) {
        if (fill != NULL) {
            Prefill p = {fill, args[4], first + (long long)i * step, &save, 0, cfill, buf, length};
            prefill_run(&p);
            if (p.failed) {
                stopped = -1;
                break;
            }
        }
        double a = now();
        if (a >= until) break;
        how = issue(r, ctx, (int)lun, (unsigned char *)cdb.buf, (int)cdb.len, (int)direction, buf, (int)length, &o,
                    sense, &sense_len);
        t_start[i] = a;
        t_end[i] = now();
        if (how != ISSUE_DONE || !clean(&o)) {
            stopped = 1;
            break;
        }
    }
#ifndef _WIN32
done:
#endif
    release_signals(&mask);
    PyEval_RestoreThread(save);
    if (stopped < 0) goto out; /* fill raised: its exception propagates */
    PyObject *tail;
    if (!stopped)
        tail = Py_NewRef(Py_None);
    else if (how == ISSUE_NOMEM)
        tail = PyErr_NoMemory();
    else if (how == ISSUE_FAILED)
        tail = Py_NewRef(Py_False);
    else
        tail = outcome_tuple(r, &o, sense, sense_len);
    if (tail != NULL) result = Py_BuildValue("(nN)", i, tail);
out:
    PyBuffer_Release(&ends);
    PyBuffer_Release(&starts);
    if (have_spare) PyBuffer_Release(&spare);
    if (have_data) PyBuffer_Release(&data);
    PyBuffer_Release(&cdb);
    return result;
no_starts:
    if (have_spare) PyBuffer_Release(&spare);
no_times:
    if (have_data) PyBuffer_Release(&data);
    PyBuffer_Release(&cdb);
    return NULL;
}

static PyMethodDef runner_methods[] = {
    {"run", (PyCFunction)(void (*)(void))runner_run, METH_FASTCALL,
     "run(context, lun, cdb, direction, buffer, length) -> (status, residual_status, residual, sense) | None"},
    {"repeat", (PyCFunction)(void (*)(void))runner_repeat, METH_FASTCALL,
     "repeat(context, lun, cdb, direction, buffer, length, count, until, starts, ends, fill, first, step, spare) -> (clean, tail)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject RunnerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "native._iscsi_cmd.Runner",
    .tp_basicsize = sizeof(RunnerObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "libiscsi's per-command entry points (addresses) and struct scsi_task offsets; run() issues one command.",
    .tp_new = runner_new,
    .tp_dealloc = (destructor)runner_dealloc,
    .tp_methods = runner_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_iscsi_cmd", "One libiscsi SCSI command per C call.", -1,
                                    NULL};

PyMODINIT_FUNC PyInit__iscsi_cmd(void)
{
    if (PyType_Ready(&RunnerType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&RunnerType);
    if (PyModule_AddObject(m, "Runner", (PyObject *)&RunnerType) < 0) {
        Py_DECREF(&RunnerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
