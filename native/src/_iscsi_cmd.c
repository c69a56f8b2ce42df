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

typedef void *(*create_task_fn)(int cdb_size, unsigned char *cdb, int xfer_dir, int expxferlen);
typedef int (*add_buffer_fn)(void *task, int len, unsigned char *buf);
typedef void *(*command_sync_fn)(void *iscsi, int lun, void *task, void *data);
typedef void (*free_task_fn)(void *task);

enum { XFER_NONE = 0, XFER_READ = 1, XFER_WRITE = 2 };

typedef struct {
    PyObject_HEAD
    create_task_fn create_task;
    add_buffer_fn add_out, add_in;
    command_sync_fn command_sync;
    free_task_fn free_task;
    Py_ssize_t off_status, off_residual_status, off_residual, off_datain_size, off_datain_data;
    PyObject *empty; /* b"": the sense of every command that has none */
    PyObject *good;  /* (0, 0, 0, b""): every GOOD command without residual, shared (no tuple per command) */
} RunnerObject;

static PyObject *runner_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    unsigned long long create, add_out, add_in, sync, free_;
    Py_ssize_t offs[5];
    static char *kwlist[] = {"create_task", "add_data_out", "add_data_in", "command_sync", "free_task",
                             "off_status", "off_residual_status", "off_residual", "off_datain_size",
                             "off_datain_data", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "KKKKKnnnnn", kwlist, &create, &add_out, &add_in, &sync, &free_,
                                     &offs[0], &offs[1], &offs[2], &offs[3], &offs[4]))
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
    void *ctx = PyLong_AsVoidPtr(args[0]);
    long lun = PyLong_AsLong(args[1]);
    long direction = PyLong_AsLong(args[3]);
    Py_ssize_t length = PyLong_AsSsize_t(args[5]);
    if (PyErr_Occurred()) return NULL;
    if (ctx == NULL) {
        PyErr_SetString(PyExc_ValueError, "no iSCSI context");
        return NULL;
    }
    if (direction < XFER_NONE || direction > XFER_WRITE || length < 0 || length > INT32_MAX ||
        (direction == XFER_NONE) != (length == 0)) {
        PyErr_SetString(PyExc_ValueError, "bad direction or length");
        return NULL;
    }
    Py_buffer cdb, data;
    if (PyObject_GetBuffer(args[2], &cdb, PyBUF_SIMPLE) < 0) return NULL;
    if (cdb.len < 1 || cdb.len > 16) {
        PyBuffer_Release(&cdb);
        PyErr_SetString(PyExc_ValueError, "a CDB is 1 to 16 bytes");
        return NULL;
    }
    int have_data = 0;
    if (length) {
        if (PyObject_GetBuffer(args[4], &data, direction == XFER_WRITE ? PyBUF_SIMPLE : PyBUF_WRITABLE) < 0) {
            PyBuffer_Release(&cdb);
            return NULL; /* BufferError for a non-contiguous or read-only buffer */
        }
        have_data = 1;
        if (data.len < length) {
            PyBuffer_Release(&data);
            PyBuffer_Release(&cdb);
            PyErr_SetString(PyExc_ValueError, "the buffer is shorter than the transfer length");
            return NULL;
        }
    }
    PyObject *result = NULL;
    void *task = r->create_task((int)cdb.len, (unsigned char *)cdb.buf, (int)direction, (int)length);
    if (task == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    if (length) {
        add_buffer_fn add = direction == XFER_WRITE ? r->add_out : r->add_in;
        if (add(task, (int)length, (unsigned char *)data.buf) != 0) {
            r->free_task(task);
            PyErr_NoMemory();
            goto out;
        }
    }
    void *done;
    /* libiscsi's synchronous loop treats a poll() interrupted by a signal as a failed
     * session (issue 14.7: Ctrl-C mid-WRITE recorded as "Poll failed", no filemark).
     * Keep SIGINT/SIGTERM pending for the duration of this one command: they are
     * delivered when the mask is restored, Python's handler sets its flag, and the
     * caller sees KeyboardInterrupt between commands with the session intact.
     * (Windows has no signal masks: Ctrl-C runs its handler on a thread of its own and
     * interrupts no wait, so there is nothing to hold back there.) */
#ifndef _WIN32
    sigset_t block, old_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
#endif
    Py_BEGIN_ALLOW_THREADS
#ifndef _WIN32
    pthread_sigmask(SIG_BLOCK, &block, &old_mask);
#endif
    done = r->command_sync(ctx, (int)lun, task, NULL);
#ifndef _WIN32
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
#endif
    Py_END_ALLOW_THREADS
    if (done == NULL) { /* the task may still be queued in the context: leave it be */
        result = Py_None;
        Py_INCREF(result);
        goto out;
    }
    const char *t = (const char *)task;
    int status_raw, residual_status, datain_size;
    size_t residual;
    unsigned char *datain;
    memcpy(&status_raw, t + r->off_status, sizeof status_raw);
    memcpy(&residual_status, t + r->off_residual_status, sizeof residual_status);
    memcpy(&residual, t + r->off_residual, sizeof residual);
    memcpy(&datain_size, t + r->off_datain_size, sizeof datain_size);
    memcpy(&datain, t + r->off_datain_data, sizeof datain);
    uint32_t status = (uint32_t)status_raw;
    if (status == 0 && residual_status == 0 && residual == 0) { /* the hot loops: one shared answer */
        r->free_task(task);
        result = r->good;
        Py_INCREF(result);
        goto out;
    }
    PyObject *sense;
    if (status == 0x02 && datain_size >= 2 && datain != NULL) {
        Py_ssize_t n = ((Py_ssize_t)datain[0] << 8) | datain[1];
        if (n > datain_size - 2) n = datain_size - 2;
        sense = PyBytes_FromStringAndSize((const char *)datain + 2, n);
    } else {
        sense = r->empty;
        Py_INCREF(sense);
    }
    r->free_task(task);
    if (sense == NULL) goto out;
    result = Py_BuildValue("(kiKN)", (unsigned long)status, residual_status, (unsigned long long)residual, sense);
out:
    if (have_data) PyBuffer_Release(&data);
    PyBuffer_Release(&cdb);
    return result;
}

static PyMethodDef runner_methods[] = {
    {"run", (PyCFunction)(void (*)(void))runner_run, METH_FASTCALL,
     "run(context, lun, cdb, direction, buffer, length) -> (status, residual_status, residual, sense) | None"},
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
