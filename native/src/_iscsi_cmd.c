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
 *
 * Waiting is ours, not libiscsi's (issue 27): every command goes out through libiscsi's
 * asynchronous API and this module drives the socket in short slices (wait_done). A
 * signal no longer fails the session (libiscsi's own loop takes an interrupted poll()
 * for a dead one), so nothing is held: between slices, once a command has been
 * outstanding for WATCH_SLICE, Python's signal handlers run (PyErr_CheckSignals) and the
 * caller's ``watch(opcode, seconds)`` says whether to give the command up. Giving up
 * (abandon) asks the target to ABORT TASK and waits ``abort_wait`` seconds for it; a
 * target that does not answer has its session dropped. The caller learns which through
 * its state byte (STATE_*), also when a signal handler's exception propagates.
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
typedef int (*abort_task_fn)(void *iscsi, void *task, command_cb cb, void *private_data);
typedef int (*cancel_task_fn)(void *iscsi, void *task);

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
    abort_task_fn abort_task;   /* NULL: a command given up is dropped with its session */
    cancel_task_fn cancel_task;
    double abort_wait;          /* seconds the target gets to answer ABORT TASK */
    Py_ssize_t off_status, off_residual_status, off_residual, off_datain_size, off_datain_data;
    PyObject *empty; /* b"": the sense of every command that has none */
    PyObject *good;  /* (0, 0, 0, b""): every GOOD command without residual, shared (no tuple per command) */
} RunnerObject;

static PyObject *runner_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    unsigned long long create, add_out, add_in, sync, free_;
    unsigned long long async = 0, get_fd = 0, which = 0, service = 0, outq = 0, abort_ = 0, cancel = 0;
    double abort_wait = 2.0;
    Py_ssize_t offs[5];
    static char *kwlist[] = {"create_task", "add_data_out", "add_data_in", "command_sync", "free_task",
                             "off_status", "off_residual_status", "off_residual", "off_datain_size",
                             "off_datain_data", "command_async", "get_fd", "which_events", "service",
                             "out_queue_length", "abort_task", "cancel_task", "abort_wait", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "KKKKKnnnnn|KKKKKKKd", kwlist, &create, &add_out, &add_in, &sync,
                                     &free_, &offs[0], &offs[1], &offs[2], &offs[3], &offs[4], &async, &get_fd, &which,
                                     &service, &outq, &abort_, &cancel, &abort_wait))
        return NULL;
    if (!(abort_wait >= 0.0 && abort_wait <= 600.0)) {
        PyErr_SetString(PyExc_ValueError, "abort_wait must be 0 to 600 seconds");
        return NULL;
    }
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
    if (abort_ && cancel) {
        r->abort_task = (abort_task_fn)(uintptr_t)abort_;
        r->cancel_task = (cancel_task_fn)(uintptr_t)cancel;
    }
    r->abort_wait = abort_wait;
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

/* ISSUE_FAILED: the session failed under the command (the task may still sit in the context's
 * queues, so it is NOT freed: the caller abandons the context). ISSUE_ABORTED: the command was
 * given up and the target aborted it (ABORT TASK answered; the session stands). ISSUE_DROPPED: it
 * was given up and the target did not answer the abort: the task is left in the context, which
 * the caller must abandon, as after ISSUE_FAILED. */
enum { ISSUE_DONE = 0, ISSUE_NOMEM = 1, ISSUE_FAILED = 2, ISSUE_ABORTED = 3, ISSUE_DROPPED = 4 };

/* The caller's state byte after a call: how a command it gave up ended (the transport's truth
 * even when a signal handler's exception is what the call raises). */
enum { STATE_OK = 0, STATE_ABORTED = 1, STATE_DROPPED = 2 };

/* Seconds a command may be outstanding before the first look (signals, the watch), and between looks:
 * short enough that a cancel is seen at once, long enough that a normal command never takes the GIL. */
#define WATCH_SLICE 0.2

static void read_outcome(RunnerObject *r, void *task, Outcome *o, unsigned char *sense, int *sense_len);

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

/* Without libiscsi's asynchronous entry points (a binding that gave none, or Windows) the
 * command goes through command_sync, whose loop takes a poll() interrupted by a signal for a
 * failed session (issue 14.7): SIGINT/SIGTERM/SIGHUP are then kept pending while it runs. */
#ifndef _WIN32
typedef sigset_t SignalMask;
static void hold_signals(SignalMask *old)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
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

/* What watches a call's commands: the caller's watch and state byte, and its released thread state. */
typedef struct {
    PyObject *watch;          /* watch(opcode, seconds) -> true to give the command up; or NULL */
    unsigned char *state;     /* the caller's state byte (STATE_*), or NULL */
    PyThreadState **save;     /* the caller's released thread state: a look takes the GIL with it */
    int gave_up;              /* a command was given up: the caller stops after it, whatever its end */
    int raised;               /* a Python exception (a signal handler's, the watch's) is pending */
} Watcher;

static void set_state(Watcher *w, unsigned char value)
{
    if (w->state != NULL) *w->state = value;
}

/* One look at a command outstanding for ``waited`` seconds, with the GIL: Python's signal handlers
 * run (in the main thread; a handler may raise, e.g. KeyboardInterrupt), then the caller's watch is
 * asked. True: give the command up. An exception stays pending until the call returns. */
static int watch_says_stop(Watcher *w, int opcode, double waited)
{
    if (w->raised) return 1;
    PyEval_RestoreThread(*w->save);
    int stop = 0;
    if (PyErr_CheckSignals() < 0) {
        stop = w->raised = 1;
    } else if (w->watch != NULL) {
        PyObject *answer = PyObject_CallFunction(w->watch, "id", opcode, waited);
        if (answer == NULL) {
            stop = w->raised = 1;
        } else {
            stop = PyObject_IsTrue(answer) != 0;
            Py_DECREF(answer);
        }
    }
    *w->save = PyEval_SaveThread();
    return stop;
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
    struct Drains *drains;   /* overlapped: when the WRITE in flight has sent all it will send (wait_done) */
} Prefill;

/* When a WRITE has sent everything: libiscsi has nothing left to send ("drains") once after the command
 * PDU with its immediate and unsolicited data, then once more after the Data-Out each R2T asks for. A
 * target that wants its data in R2T rounds (tgtd and LIO as installed: InitialR2T=Yes, 256 KiB bursts)
 * asks again while the first drain's fill would still run, and its R2T would wait for the fill; so the
 * fill waits for the drain after which the previous WRITE of the same size was answered, and a stream of
 * equal WRITEs (a burst) fills while the target stores the last of the data. */
typedef struct Drains {
    int expect; /* drains before the fill: what the previous WRITE of the burst had (1 before the first) */
    int seen;   /* drains of the WRITE in flight so far */
} Drains;

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

/* One command through command_sync, signals held (see hold_signals): the fallback path. */
static int issue_sync(RunnerObject *r, void *ctx, int lun, unsigned char *cdb, int cdb_len, int direction,
                      unsigned char *buf, int length, Outcome *o, unsigned char *sense, int *sense_len)
{
    void *task = new_task(r, cdb, cdb_len, direction, buf, length);
    if (task == NULL) return ISSUE_NOMEM;
    SignalMask mask;
    hold_signals(&mask);
    void *done = r->command_sync(ctx, lun, task, NULL);
    release_signals(&mask);
    if (done == NULL) return ISSUE_FAILED;
    read_outcome(r, task, o, sense, sense_len);
    r->free_task(task);
    return ISSUE_DONE;
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

/* An ABORT TASK's answer. Heap-allocated: when the target does not answer in time the request stays
 * in the context, and a late answer (the session kept) frees the state it finds orphaned. */
typedef struct {
    int finished, status, orphaned;
    uint32_t response; /* iSCSI TMF response: 0 function complete, 1 task does not exist, ... */
} AbortState;

static void on_abort(void *iscsi, int status, void *data, void *private_data)
{
    (void)iscsi;
    AbortState *a = (AbortState *)private_data;
    if (a->orphaned) {
        free(a);
        return;
    }
    a->status = status;
    a->response = data != NULL ? *(uint32_t *)data : 0xFF;
    a->finished = 1;
}

/* poll() the context's socket up to ``ms`` and service it; -1 when the session failed. An interrupted
 * poll is not a failure (a signal: the caller looks at once); ``idle``: nothing came for ``ms``. */
static int service_once(RunnerObject *r, void *ctx, int ms, int *interrupted, int *idle)
{
    struct pollfd pfd = {r->get_fd(ctx), (short)r->which_events(ctx), 0};
    int ret = poll(&pfd, 1, ms < 0 ? 0 : ms);
    *interrupted = ret < 0 && errno == EINTR;
    *idle = ret == 0;
    if (*interrupted) return 0;
    if (ret < 0 || r->service(ctx, ret == 0 ? 0 : pfd.revents) < 0) return -1;
    return 0;
}

static int drop(Watcher *w)
{
    set_state(w, STATE_DROPPED);
    return ISSUE_DROPPED;
}

/* Give up a command still outstanding: ABORT TASK when the command has left whole (a Data-Out still
 * queued would leave the stream mid-PDU), ``abort_wait`` seconds for the answer, then libiscsi
 * forgets the task. No answer (a frozen target), or a refusal: the session is dropped. The command
 * completing meanwhile is an ordinary outcome (ISSUE_DONE). */
static int abandon(RunnerObject *r, void *ctx, void *task, AsyncState *st, Watcher *w)
{
    w->gave_up = 1;
    if (r->abort_task == NULL || r->out_queue_length(ctx) != 0) return drop(w);
    AbortState *a = calloc(1, sizeof *a);
    if (a == NULL) return drop(w);
    if (r->abort_task(ctx, task, on_abort, a) != 0) {
        free(a);
        return drop(w);
    }
    double until = now() + r->abort_wait;
    int interrupted, idle;
    while (!a->finished && !st->finished) {
        double left = until - now();
        if (left <= 0 || service_once(r, ctx, (int)(left * 1000) + 1, &interrupted, &idle) < 0) {
            a->orphaned = 1;
            return drop(w);
        }
    }
    if (st->finished) { /* the command's own answer came first: its outcome stands */
        if (a->finished)
            free(a);
        else
            a->orphaned = 1;
        return ISSUE_DONE;
    }
    int aborted = a->status == 0 && (a->response == 0 || a->response == 1);
    free(a);
    if (!aborted) return drop(w);
    r->cancel_task(ctx, task); /* libiscsi forgets it (its callback runs now, CANCELLED) */
    set_state(w, STATE_ABORTED);
    return ISSUE_ABORTED;
}

/* Whether libiscsi still has bytes to send: a PDU queued, or the one it is writing (which has already
 * left the out-queue, so iscsi_out_queue_length says 0 while a large Data-Out is still half written). */
static int sending(RunnerObject *r, void *ctx) { return (r->which_events(ctx) & POLLOUT) != 0; }

/* Drive the context until the command ends (``st``), refilling ``next`` once the command has sent all its
 * data (``Drains``: the target is then busy storing it, and the fill costs no wall time). What libiscsi has
 * to send (the command, an R2T's Data-Out) is written at once, without a poll() first: the socket almost
 * always takes it, and libiscsi's own loop spends one poll() per command learning so; only what the socket
 * did not take waits for poll(). While the command is outstanding, a look after every WATCH_SLICE without
 * an event from the target (and at once after a signal): given up, it is abandoned. A target still
 * sending is not stuck, and the clock is read only then, so a streaming command costs one clock reading
 * more than libiscsi's own loop. */
static int wait_done(RunnerObject *r, void *ctx, void *task, int opcode, AsyncState *st, Watcher *w, Prefill *next,
                     int *filled)
{
    double start = now();
    int interrupted = 0, idle, out = 1, tried = 0;
    Drains first = {1, 0}; /* a fill without a burst's history: at the first drain */
    Drains *d = next == NULL ? NULL : next->drains != NULL ? next->drains : &first;
    if (d != NULL) d->seen = 0;
    while (!st->finished) {
        int still = sending(r, ctx);
        if (d != NULL) { /* a write with a fill: its drains are counted to the end, for the next WRITE */
            d->seen += out && !still;
            out = still;
        }
        if (still && !tried) { /* once per poll(): what the socket does not take now waits for POLLOUT */
            tried = 1;
            if (r->service(ctx, POLLOUT) < 0) return ISSUE_FAILED;
            continue;
        }
        if (d != NULL && !*filled && !still && d->seen >= d->expect) {
            *filled = 1;
            prefill_run(next);
            continue;
        }
        tried = 0;
        if (service_once(r, ctx, (int)(WATCH_SLICE * 1000), &interrupted, &idle) < 0) return ISSUE_FAILED;
        if ((idle || interrupted) && !st->finished && watch_says_stop(w, opcode, now() - start))
            return abandon(r, ctx, task, st, w);
    }
    if (d != NULL) d->expect = d->seen > 0 ? d->seen : 1;
    return ISSUE_DONE;
}

/* One command through libiscsi's asynchronous API, driving its socket ourselves (wait_done); for a
 * write, ``next`` (or NULL) is the other buffer's refill. Outcomes as the ISSUE_* codes say: the
 * task is freed unless the session failed or was dropped under it. */
static int issue_async(RunnerObject *r, void *ctx, int lun, unsigned char *cdb, int cdb_len, int direction,
                       unsigned char *buf, int length, Outcome *o, unsigned char *sense, int *sense_len,
                       Watcher *w, Prefill *next)
{
    void *task = new_task(r, cdb, cdb_len, direction, buf, length);
    if (task == NULL) return ISSUE_NOMEM;
    AsyncState st = {0, 0};
    if (r->command_async(ctx, lun, task, on_done, NULL, &st) != 0) return ISSUE_FAILED; /* task left, as below */
    int filled = next == NULL;
    int how = wait_done(r, ctx, task, cdb[0], &st, w, next, &filled);
    if (how == ISSUE_FAILED || how == ISSUE_DROPPED) return how;
    if (how == ISSUE_DONE) {
        memcpy((char *)task + r->off_status, &st.status, sizeof st.status); /* as libiscsi's sync callback does */
        read_outcome(r, task, o, sense, sense_len);
    }
    r->free_task(task);
    if (!filled && !w->raised) prefill_run(next);
    return how;
}
#endif

/* One command by whichever path this binding has. */
static int issue(RunnerObject *r, void *ctx, int lun, unsigned char *cdb, int cdb_len, int direction,
                 unsigned char *buf, int length, Outcome *o, unsigned char *sense, int *sense_len, Watcher *w,
                 Prefill *next)
{
#ifndef _WIN32
    if (r->command_async != NULL)
        return issue_async(r, ctx, lun, cdb, cdb_len, direction, buf, length, o, sense, sense_len, w, next);
#endif
    int how = issue_sync(r, ctx, lun, cdb, cdb_len, direction, buf, length, o, sense, sense_len);
    if (next != NULL) prefill_run(next);
    return how;
}

/* The caller's optional (watch, state) arguments: watch callable or None, state a writable buffer of
 * at least one byte or None. On success the state buffer (if any) is acquired. */
static int take_watch(PyObject *watch, PyObject *state, Watcher *w, Py_buffer *sbuf, int *have_state)
{
    *have_state = 0;
    w->watch = NULL;
    w->state = NULL;
    w->gave_up = w->raised = 0;
    if (watch != NULL && watch != Py_None) {
        if (!PyCallable_Check(watch)) {
            PyErr_SetString(PyExc_TypeError, "watch must be callable or None");
            return -1;
        }
        w->watch = watch;
    }
    if (state != NULL && state != Py_None) {
        if (PyObject_GetBuffer(state, sbuf, PyBUF_WRITABLE) < 0) return -1;
        if (sbuf->len < 1) {
            PyBuffer_Release(sbuf);
            PyErr_SetString(PyExc_ValueError, "the state buffer needs a byte");
            return -1;
        }
        *have_state = 1;
        w->state = (unsigned char *)sbuf->buf;
        *w->state = STATE_OK;
    }
    return 0;
}

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

/* run(context, lun, cdb, direction, buffer, length[, watch, state])
 *   -> (status, residual_status, residual, sense), or None when the command did not end at the
 *      target: the session failed, or the command was given up (``state[0]``: STATE_ABORTED, the
 *      session stands; STATE_DROPPED, the caller abandons it, as after a failure).
 * status is libiscsi's task status as an unsigned 32-bit value (its own codes lie
 * above 0xFF); length bytes of buffer are the data-out or the data-in area. ``watch``: see
 * wait_done; an exception a signal handler or the watch raised propagates once the command
 * is settled (``state`` then says how). */
static PyObject *runner_run(RunnerObject *r, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 && nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "run(context, lun, cdb, direction, buffer, length[, watch, state])");
        return NULL;
    }
    Watcher w;
    Py_buffer sbuf;
    int have_state;
    if (take_watch(nargs == 8 ? args[6] : NULL, nargs == 8 ? args[7] : NULL, &w, &sbuf, &have_state) < 0)
        return NULL;
    void *ctx;
    long lun, direction;
    Py_ssize_t length;
    Py_buffer cdb, data;
    int have_data;
    if (take_command(args, &ctx, &lun, &cdb, &direction, &data, &have_data, &length) < 0) {
        if (have_state) PyBuffer_Release(&sbuf);
        return NULL;
    }
    Outcome o;
    unsigned char sense[252];
    int sense_len = 0, how;
    PyThreadState *save = PyEval_SaveThread();
    w.save = &save;
    how = issue(r, ctx, (int)lun, (unsigned char *)cdb.buf, (int)cdb.len, (int)direction,
                have_data ? (unsigned char *)data.buf : NULL, (int)length, &o, sense, &sense_len, &w, NULL);
    PyEval_RestoreThread(save);
    PyObject *result;
    if (w.raised)
        result = NULL; /* the handler's or the watch's exception */
    else if (how == ISSUE_NOMEM)
        result = PyErr_NoMemory();
    else if (how != ISSUE_DONE) /* failed, aborted or dropped: the state byte says which */
        result = Py_NewRef(Py_None);
    else
        result = outcome_tuple(r, &o, sense, sense_len);
    if (have_data) PyBuffer_Release(&data);
    PyBuffer_Release(&cdb);
    if (have_state) PyBuffer_Release(&sbuf);
    return result;
}

/* The loops of repeat(), with the GIL released; ``*i`` is where the caller's count stopped. */
typedef struct {
    void *ctx;
    int lun, cdb_len, direction, length;
    unsigned char *cdb, *buf, *spare;
    PyObject *fill, *buf_obj, *spare_obj;
    TapediagFill *cfill;
    Py_ssize_t count;
    double until, *t_start, *t_end;
    long long first, step;
} Loop;

/* 1: stopped at a command that did not complete clean (or was given up); 0: at count or until;
 * -1: a Python fill raised (its exception propagates). */
static int loop_plain(RunnerObject *r, Loop *L, Watcher *w, PyThreadState **save, Outcome *o, unsigned char *sense,
                      int *sense_len, int *how, Py_ssize_t *i)
{
    for (; *i < L->count; (*i)++) {
        if (L->fill != NULL) {
            Prefill p = {L->fill, L->buf_obj, L->first + (long long)*i * L->step, save, 0, L->cfill, L->buf, L->length,
                         NULL};
            prefill_run(&p);
            if (p.failed) return -1;
        }
        double a = now();
        if (a >= L->until) return 0;
        *how = issue(r, L->ctx, L->lun, L->cdb, L->cdb_len, L->direction, L->buf, L->length, o, sense, sense_len, w,
                     NULL);
        L->t_start[*i] = a;
        L->t_end[*i] = now();
        if (*how != ISSUE_DONE || !clean(o)) return 1;
        if (w->gave_up) { /* given up, yet it ended clean: it counts, and the loop stops there */
            (*i)++;
            return 0;
        }
    }
    return 0;
}

#ifndef _WIN32
/* The overlapped write loop: the two buffers in turn, the next filled while a WRITE is in flight. */
static int loop_overlapped(RunnerObject *r, Loop *L, Watcher *w, PyThreadState **save, Outcome *o,
                           unsigned char *sense, int *sense_len, int *how, Py_ssize_t *i)
{
    unsigned char *bufs[2] = {L->buf, L->spare};
    PyObject *objs[2] = {L->buf_obj, L->spare_obj};
    Drains drains = {1, 0};
    Prefill p = {L->fill, objs[0], L->first, save, 0, L->cfill, bufs[0], L->length, NULL};
    if (L->count > 0) prefill_run(&p); /* the first buffer, as the plain loop fills it */
    if (p.failed) return -1;
    int cur = 0;
    for (; *i < L->count; (*i)++) {
        double a = now();
        if (a >= L->until) return 0;
        Prefill next = {L->fill, objs[cur ^ 1], L->first + (long long)(*i + 1) * L->step, save, 0, L->cfill,
                        bufs[cur ^ 1], L->length, &drains};
        *how = issue(r, L->ctx, L->lun, L->cdb, L->cdb_len, XFER_WRITE, bufs[cur], L->length, o, sense, sense_len, w,
                     *i + 1 < L->count ? &next : NULL);
        L->t_start[*i] = a;
        L->t_end[*i] = now();
        if (next.failed) return -1; /* a fill raised: its exception propagates */
        if (*how != ISSUE_DONE || !clean(o)) return 1;
        if (w->gave_up) {
            (*i)++;
            return 0;
        }
        cur ^= 1;
    }
    return 0;
}
#endif

/* repeat(context, lun, cdb, direction, buffer, length, count, until, starts, ends, fill, first, step, spare
 *        [, watch, state]) -> (clean, tail)
 *
 * The same command up to ``count`` times, the hot loop of a tape test in one call: no
 * Python between commands, the GIL released throughout (held only for ``fill`` and a look
 * at a slow command), so a drive's stream costs what libiscsi costs, and several drives'
 * threads stream at once. Before every command: stop when the clock has reached ``until``
 * (perf_counter seconds); for a write, ``fill(buffer, first + i * step)`` refills the
 * data-out buffer (the pattern generator, in C). starts[i] and ends[i] (doubles) receive
 * each command's clock readings, tail included.
 *
 * ``clean`` commands completed GOOD with the whole transfer. The loop stops at the
 * first command that did not: ``tail`` is then its (status, residual_status, residual,
 * sense), or False when it did not end at the target (the session failed, or the command
 * was given up: ``state`` says which, as for run()); None when it stopped at ``count``,
 * ``until``, or after a command that was given up but ended clean.
 *
 * With ``spare`` (a second buffer as long as ``buffer``) and libiscsi's asynchronous entry
 * points, a write alternates between the two buffers and fills the next one while the
 * current WRITE is in flight (loop_overlapped). */
/* repeat()'s loop with the GIL released: the overlapped one for a write with a spare buffer where libiscsi
 * has its asynchronous entry points, else the plain one (``loop_plain``'s return values). */
static int run_loop(RunnerObject *r, Loop *L, Watcher *w, int have_spare, Outcome *o, unsigned char *sense,
                    int *sense_len, int *how, Py_ssize_t *i)
{
    int stopped;
    PyThreadState *save = PyEval_SaveThread();
    w->save = &save;
#ifndef _WIN32
    if (have_spare && r->command_async != NULL)
        stopped = loop_overlapped(r, L, w, &save, o, sense, sense_len, how, i);
    else
#endif
        stopped = loop_plain(r, L, w, &save, o, sense, sense_len, how, i);
    PyEval_RestoreThread(save);
    return stopped;
}

/* repeat()'s numbers and its fill: count, until, first and step, and the fill callable (None: none) with its C
 * entry point when it has one (a fill that needs no GIL: native._pattern.Filler). -1 with an exception set. */
static int take_repeat(PyObject *const *args, Py_ssize_t *count, double *until, long long *first, long long *step,
                       PyObject **fill, TapediagFill **cfill)
{
    *count = PyLong_AsSsize_t(args[6]);
    *until = PyFloat_AsDouble(args[7]);
    *first = PyLong_AsLongLong(args[11]);
    *step = PyLong_AsLongLong(args[12]);
    if (PyErr_Occurred()) return -1;
    *fill = args[10] == Py_None ? NULL : args[10];
    if (*fill != NULL && !PyCallable_Check(*fill)) {
        PyErr_SetString(PyExc_TypeError, "fill must be callable or None");
        return -1;
    }
    *cfill = NULL;
    if (*fill != NULL) {
        PyObject *cap = PyObject_GetAttrString(*fill, "_c_fill");
        if (cap == NULL) {
            PyErr_Clear();
        } else {
            if (PyCapsule_IsValid(cap, "tapediag.fill")) *cfill = (TapediagFill *)PyCapsule_GetPointer(cap, "tapediag.fill");
            Py_DECREF(cap);
        }
    }
    if (*count < 0) {
        PyErr_SetString(PyExc_ValueError, "count must not be negative");
        return -1;
    }
    return 0;
}

/* What ended repeat()'s loop: None at count or until, False for a command that did not end at the target,
 * else the tail command's outcome tuple (NULL with an exception set when out of memory). */
static PyObject *repeat_tail(RunnerObject *r, int stopped, int how, Outcome *o, unsigned char *sense, int sense_len)
{
    if (!stopped) return Py_NewRef(Py_None);
    if (how == ISSUE_NOMEM) return PyErr_NoMemory();
    if (how != ISSUE_DONE) return Py_NewRef(Py_False); /* failed, aborted or dropped: the state byte says which */
    return outcome_tuple(r, o, sense, sense_len);
}

static PyObject *runner_repeat(RunnerObject *r, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 14 && nargs != 16) {
        PyErr_SetString(PyExc_TypeError, "repeat(context, lun, cdb, direction, buffer, length, count, until, starts, "
                                         "ends, fill, first, step, spare[, watch, state])");
        return NULL;
    }
    Py_ssize_t count;
    double until;
    long long first, step;
    PyObject *fill;
    TapediagFill *cfill;
    if (take_repeat(args, &count, &until, &first, &step, &fill, &cfill) < 0) return NULL;
    Watcher w;
    Py_buffer sbuf;
    int have_state;
    PyObject *result = NULL;
    if (take_watch(nargs == 16 ? args[14] : NULL, nargs == 16 ? args[15] : NULL, &w, &sbuf, &have_state) < 0)
        return NULL;
    void *ctx;
    long lun, direction;
    Py_ssize_t length;
    Py_buffer cdb, data, starts, ends;
    int have_data;
    if (take_command(args, &ctx, &lun, &cdb, &direction, &data, &have_data, &length) < 0) goto no_command;
    if (fill != NULL && direction != XFER_WRITE) {
        PyErr_SetString(PyExc_ValueError, "fill is for a data-out buffer");
        goto no_times;
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
    if (starts.len < count * (Py_ssize_t)sizeof(double) || ends.len < count * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "the time buffers hold fewer than count doubles");
        goto out;
    }
    Loop L = {ctx, (int)lun, (int)cdb.len, (int)direction, (int)length, (unsigned char *)cdb.buf,
              have_data ? (unsigned char *)data.buf : NULL, have_spare ? (unsigned char *)spare.buf : NULL,
              fill, args[4], args[13], cfill, count, until, (double *)starts.buf, (double *)ends.buf, first, step};
    Outcome o;
    unsigned char sense[252];
    int sense_len = 0, how = ISSUE_DONE;
    Py_ssize_t i = 0;
    int stopped = run_loop(r, &L, &w, have_spare, &o, sense, &sense_len, &how, &i);
    if (stopped < 0 || w.raised) goto out; /* a fill's, a signal handler's or the watch's exception propagates */
    PyObject *tail = repeat_tail(r, stopped, how, &o, sense, sense_len);
    if (tail != NULL) result = Py_BuildValue("(nN)", i, tail);
out:
    PyBuffer_Release(&ends);
    PyBuffer_Release(&starts);
no_starts:
    if (have_spare) PyBuffer_Release(&spare);
no_times:
    if (have_data) PyBuffer_Release(&data);
    PyBuffer_Release(&cdb);
no_command:
    if (have_state) PyBuffer_Release(&sbuf);
    return result;
}

static PyMethodDef runner_methods[] = {
    {"run", (PyCFunction)(void (*)(void))runner_run, METH_FASTCALL,
     "run(context, lun, cdb, direction, buffer, length[, watch, state]) -> (status, residual_status, residual, sense) "
     "| None"},
    {"repeat", (PyCFunction)(void (*)(void))runner_repeat, METH_FASTCALL,
     "repeat(context, lun, cdb, direction, buffer, length, count, until, starts, ends, fill, first, step, spare"
     "[, watch, state]) -> (clean, tail)"},
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
