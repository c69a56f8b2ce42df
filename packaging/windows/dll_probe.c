/*
 * Loads the cross-built libsgutils2 DLL the way tapediag's ctypes binding will on
 * Windows (LoadLibrary + GetProcAddress, no import library) and exercises the
 * pass-through API without a drive: version string, SPTI direct mode on/off, an
 * object's construct/destruct, and opening a tape device that does not exist, which
 * must fail with a negated errno rather than crash. build-windows-dll.sh runs it
 * under Wine when Wine is installed; exit 0 means every step behaved.
 *
 *   dll_probe.exe PATH\TO\libsgutils2-1-46-2.dll
 */
#include <stdbool.h>
#include <stdio.h>
#include <windows.h>

typedef const char *(*version_fn)(void);
typedef void (*direct_fn)(int);
typedef int (*state_fn)(void);
typedef void *(*construct_fn)(void);
typedef void (*destruct_fn)(void *);
typedef int (*open_fn)(const char *, bool, int);
/* GetProcAddress's FARPROC goes through the one type gcc lets be cast to any other. */
typedef void (*generic_fn)(void);

static generic_fn need(HMODULE dll, const char *name, int *failures)
{
    FARPROC fn = GetProcAddress(dll, name);
    if (!fn) {
        printf("missing export: %s\n", name);
        ++*failures;
    }
    return (generic_fn)fn;
}

int main(int argc, char **argv)
{
    int failures = 0;
    if (argc != 2) {
        printf("usage: dll_probe.exe LIBSGUTILS2.DLL\n");
        return 2;
    }
    HMODULE dll = LoadLibraryA(argv[1]);
    if (!dll) {
        printf("LoadLibrary(%s) failed: error %lu\n", argv[1], GetLastError());
        return 1;
    }
    version_fn version = (version_fn)need(dll, "scsi_pt_version", &failures);
    direct_fn direct = (direct_fn)need(dll, "scsi_pt_win32_direct", &failures);
    state_fn state = (state_fn)need(dll, "scsi_pt_win32_spt_state", &failures);
    construct_fn construct = (construct_fn)need(dll, "construct_scsi_pt_obj", &failures);
    destruct_fn destruct = (destruct_fn)need(dll, "destruct_scsi_pt_obj", &failures);
    open_fn open_device = (open_fn)need(dll, "scsi_pt_open_device", &failures);
    if (failures)
        return 1;

    printf("pass-through version: %s\n", version());
    direct(1);
    int on = state();
    direct(0);
    int off = state();
    direct(1);
    printf("SPTI direct: on=%d off=%d\n", on, off);
    if (!on || off)
        ++failures;

    void *obj = construct();
    printf("construct_scsi_pt_obj: %s\n", obj ? "ok" : "NULL");
    if (!obj)
        ++failures;
    else
        destruct(obj);

    int fd = open_device("\\\\.\\Tape97", false, 0);
    printf("open \\\\.\\Tape97 (absent): %d\n", fd);
    if (fd >= 0)
        ++failures;

    FreeLibrary(dll);
    printf(failures ? "probe: FAILED\n" : "probe: ok\n");
    return failures ? 1 : 0;
}
