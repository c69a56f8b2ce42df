/*
 * iscsi_bare_loop.c - the anchor for every "how fast can we write to an iSCSI tape"
 * figure: the leanest loop libiscsi allows, so Python transports and the tape engine
 * are measured as a ratio against it in the same run on the same target.
 *
 * It logs in like native/iscsi.py does (normal session, no header digest, no
 * auto-reconnect), rewinds, sets the block mode with MODE SELECT(6) (block length N
 * for fixed, 0 for variable), then times COUNT x WRITE(6) of IO bytes from one static
 * buffer with iscsi_scsi_command_sync and our own data-out buffer (no copies).
 *
 * Build:  gcc -O2 -o iscsi_bare_loop iscsi_bare_loop.c -liscsi
 * Usage:  iscsi_bare_loop URL fixed|variable BLOCK IO COUNT
 *         (fixed: each WRITE(6) carries IO/BLOCK blocks; variable: one IO-byte block)
 * Prints: one line "bytes=<n> seconds=<s> MBps=<decimal MB/s> cpu_us_per_cmd=<CPU time of
 *         the timed loop per command>"; exit 1 on any error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run one CDB; returns 0 on GOOD, prints and returns -1 otherwise. */
static int run(struct iscsi_context *iscsi, int lun, unsigned char *cdb, int cdb_len,
	       int dir, unsigned char *buf, int len, const char *what)
{
	struct scsi_task *task = scsi_create_task(cdb_len, cdb, dir, len);
	int status;

	if (task == NULL) {
		fprintf(stderr, "%s: out of memory\n", what);
		return -1;
	}
	if (len && dir == SCSI_XFER_WRITE)
		scsi_task_add_data_out_buffer(task, len, buf);
	if (iscsi_scsi_command_sync(iscsi, lun, task, NULL) == NULL) {
		fprintf(stderr, "%s: %s\n", what, iscsi_get_error(iscsi));
		scsi_free_scsi_task(task);
		return -1;
	}
	status = task->status;
	scsi_free_scsi_task(task);
	if (status != SCSI_STATUS_GOOD) {
		fprintf(stderr, "%s: status 0x%x: %s\n", what, status, iscsi_get_error(iscsi));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct iscsi_context *iscsi;
	struct iscsi_url *url;
	unsigned char cdb[6], param[12];
	unsigned char *buf;
	long block, io, count, i, xfer;
	int fixed, lun;
	double t0, t1, c0, c1;

	if (argc != 6) {
		fprintf(stderr, "usage: %s URL fixed|variable BLOCK IO COUNT\n", argv[0]);
		return 2;
	}
	fixed = strcmp(argv[2], "fixed") == 0;
	block = atol(argv[3]);
	io = atol(argv[4]);
	count = atol(argv[5]);
	if (block <= 0 || io <= 0 || count <= 0 || (fixed && io % block) || io >= (1L << 24)) {
		fprintf(stderr, "bad sizes\n");
		return 2;
	}

	iscsi = iscsi_create_context("iqn.2026-11.org.tapediag:anchor");
	url = iscsi_parse_full_url(iscsi, argv[1]);
	if (url == NULL) {
		fprintf(stderr, "bad URL: %s\n", iscsi_get_error(iscsi));
		return 1;
	}
	iscsi_set_targetname(iscsi, url->target);
	iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(iscsi, ISCSI_HEADER_DIGEST_NONE);
	iscsi_set_noautoreconnect(iscsi, 1);
	lun = url->lun;
	if (iscsi_full_connect_sync(iscsi, url->portal, lun) != 0) {
		fprintf(stderr, "login failed: %s\n", iscsi_get_error(iscsi));
		return 1;
	}

	buf = aligned_alloc(4096, (io + 4095) / 4096 * 4096);
	for (i = 0; i < io; i++)
		buf[i] = (unsigned char)(i * 2654435761u >> 24);

	memset(cdb, 0, 6);				/* REWIND */
	cdb[0] = 0x01;
	if (run(iscsi, lun, cdb, 6, SCSI_XFER_NONE, NULL, 0, "REWIND"))
		return 1;

	memset(param, 0, sizeof(param));		/* MODE SELECT(6): header + one block descriptor */
	param[2] = 0x10;				/* buffered mode */
	param[3] = 8;
	xfer = fixed ? block : 0;
	param[9] = xfer >> 16;
	param[10] = xfer >> 8;
	param[11] = xfer;
	memset(cdb, 0, 6);
	cdb[0] = 0x15;
	cdb[1] = 0x10;					/* PF */
	cdb[4] = sizeof(param);
	if (run(iscsi, lun, cdb, 6, SCSI_XFER_WRITE, param, sizeof(param), "MODE SELECT"))
		return 1;

	xfer = fixed ? io / block : io;			/* WRITE(6) transfer length */
	memset(cdb, 0, 6);
	cdb[0] = 0x0A;
	cdb[1] = fixed ? 1 : 0;
	cdb[2] = xfer >> 16;
	cdb[3] = xfer >> 8;
	cdb[4] = xfer;

	t0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < count; i++)
		if (run(iscsi, lun, cdb, 6, SCSI_XFER_WRITE, buf, io, "WRITE(6)"))
			return 1;
	c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	t1 = clock_s(CLOCK_MONOTONIC);

	printf("bytes=%ld seconds=%.6f MBps=%.1f cpu_us_per_cmd=%.1f\n", io * count, t1 - t0,
	       io * count / (t1 - t0) / 1e6, (c1 - c0) / count * 1e6);
	iscsi_logout_sync(iscsi);
	iscsi_destroy_url(url);
	iscsi_destroy_context(iscsi);
	free(buf);
	return 0;
}
