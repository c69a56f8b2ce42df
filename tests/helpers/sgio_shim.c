/* An LD_PRELOAD stand-in for the kernel's SG_IO, so sg3_utils tools that cannot read a response from
 * a file (sg_opcodes 0.69 has no --inhex) decode bytes tapediag wrote: every SG_IO ioctl records its
 * CDB in $SHIM_CDB and answers GOOD with the contents of $SHIM_RESPONSE (cut to the allocation length).
 * Test-only; compiled by the test that uses it. Other ioctls go to the real one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <scsi/sg.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ioctl(int fd, unsigned long request, ...) {
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (request != SG_IO) {
        int (*real)(int, unsigned long, void *) = (int (*)(int, unsigned long, void *))dlsym(RTLD_NEXT, "ioctl");
        return real(fd, request, arg);
    }
    sg_io_hdr_t *h = arg;
    const char *cdb_path = getenv("SHIM_CDB"), *resp_path = getenv("SHIM_RESPONSE");
    FILE *f = cdb_path ? fopen(cdb_path, "wb") : NULL;
    if (f) { fwrite(h->cmdp, 1, h->cmd_len, f); fclose(f); }
    unsigned char buf[65536];
    size_t n = 0;
    f = resp_path ? fopen(resp_path, "rb") : NULL;
    if (f) { n = fread(buf, 1, sizeof buf, f); fclose(f); }
    if (n > h->dxfer_len) n = h->dxfer_len;
    memcpy(h->dxferp, buf, n);
    h->status = h->masked_status = h->msg_status = 0;
    h->sb_len_wr = 0; h->host_status = h->driver_status = 0;
    h->resid = (int)(h->dxfer_len - n); h->duration = 0; h->info = 0;
    return 0;
}
