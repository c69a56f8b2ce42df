/*
 * iscsi_bare_loop.c - the anchor for every "how fast can we write to / read from an iSCSI
 * tape" figure: the leanest loop libiscsi's public API allows, so Python transports and
 * the tape engine are measured as a ratio against it in the same run on the same target.
 *
 * It logs in like native/iscsi.py does (normal session, no header digest, no
 * auto-reconnect), rewinds, sets the block mode with MODE SELECT(6) (block length N
 * for fixed, 0 for variable), then:
 *   write: times COUNT x WRITE(6) of IO bytes from one static buffer (our own data-out
 *          buffer, no copies);
 *   read:  times COUNT x READ(6) of IO bytes into one static buffer (our own data-in
 *          buffer, scsi_task_add_data_in_buffer: Data-In PDUs land in it, no copies);
 *          from BOT, so it reads what a previous write left there;
 *   write+read: the write, then REWIND, then the read of what it just wrote.
 * Every command is iscsi_scsi_command_sync on a task created and freed per command,
 * as any synchronous libiscsi client does.
 *
 * With "filemark" the closing filemark is timed separately from the data I/Os: after
 * the write one WRITE FILEMARKS(6) (the drive's buffer flush), after the read one more
 * READ(6), which must end in CHECK CONDITION with the FILEMARK bit (the read of the
 * mark a tape-perf read phase ends on).
 *
 * Fixed mode: WRITE(6)/READ(6) with the FIXED bit and the transfer length in blocks
 * (IO/BLOCK blocks per command) after MODE SELECT of block length BLOCK. Variable mode:
 * one IO-byte block per command, transfer length in bytes (READ(6) without SILI, as the
 * engine sends it).
 *
 * With "copy" each WRITE's buffer is first refilled by memcpy from a 32 MiB pool of
 * pseudo-random bytes (a different slice each time): the least any tool that writes fresh,
 * non-constant data must do per I/O, so a tape engine generating its patterns can be held
 * against the static-buffer loop (call cost only) and against this one (call + fresh data).
 *
 * Build:  gcc -O2 -o iscsi_bare_loop iscsi_bare_loop.c -liscsi
 * Usage:  iscsi_bare_loop URL fixed|variable BLOCK IO COUNT [write|read|write+read] [filemark|copy|filemark+copy]
 * Prints: without the optional arguments (the old form), one line
 *           "bytes=<n> seconds=<s> MBps=<decimal MB/s> cpu_us_per_cmd=<CPU time of the timed loop per command>";
 *         with them, one such line per phase, prefixed "op=write"/"op=read" and followed by
 *           "fm_seconds=<the closing filemark's time>" (0 without "filemark").
 *         Exit 1 on any error.
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

/* Run one CDB. Returns 0 on GOOD; with want_filemark, 0 only on CHECK CONDITION whose
 * fixed-format sense has the FILEMARK bit. Prints and returns -1 otherwise. */
static int run(struct iscsi_context *iscsi, int lun, unsigned char *cdb, int cdb_len,
	       int dir, unsigned char *buf, int len, const char *what, int want_filemark)
{
	struct scsi_task *task = scsi_create_task(cdb_len, cdb, dir, len);
	int status, filemark = 0;

	if (task == NULL) {
		fprintf(stderr, "%s: out of memory\n", what);
		return -1;
	}
	if (len && dir == SCSI_XFER_WRITE)
		scsi_task_add_data_out_buffer(task, len, buf);
	if (len && dir == SCSI_XFER_READ)
		scsi_task_add_data_in_buffer(task, len, buf);
	if (iscsi_scsi_command_sync(iscsi, lun, task, NULL) == NULL) {
		fprintf(stderr, "%s: %s\n", what, iscsi_get_error(iscsi));
		scsi_free_scsi_task(task);
		return -1;
	}
	status = task->status;
	/* On CHECK CONDITION task->datain holds the SCSI Response segment: 2-byte length, sense. */
	if (status == SCSI_STATUS_CHECK_CONDITION && task->datain.size >= 5 && task->datain.data)
		filemark = (task->datain.data[2 + 2] & 0x80) != 0;
	scsi_free_scsi_task(task);
	if (want_filemark && status == SCSI_STATUS_CHECK_CONDITION && filemark)
		return 0;
	if (status != SCSI_STATUS_GOOD || want_filemark) {
		fprintf(stderr, "%s: status 0x%x%s: %s\n", what, status,
			want_filemark ? " (a filemark was expected)" : "", iscsi_get_error(iscsi));
		return -1;
	}
	return 0;
}

/* COUNT WRITE(6)s or READ(6)s with the same CDB, then the optional closing filemark. */
static unsigned char *pool;	/* "copy": fresh data for every WRITE */
static long pool_slots;

static int phase(struct iscsi_context *iscsi, int lun, int writing, int fixed, long block, long io,
		 long count, int filemark, unsigned char *buf, int tagged)
{
	unsigned char cdb[6];
	long i, xfer = fixed ? io / block : io;	/* transfer length: blocks (fixed) or bytes */
	double t0, t1, c0, c1, fm = 0;

	memset(cdb, 0, 6);
	cdb[0] = writing ? 0x0A : 0x08;
	cdb[1] = fixed ? 1 : 0;
	cdb[2] = xfer >> 16;
	cdb[3] = xfer >> 8;
	cdb[4] = xfer;

	t0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < count; i++) {
		if (writing && pool)
			memcpy(buf, pool + (i % pool_slots) * io, io);
		if (run(iscsi, lun, cdb, 6, writing ? SCSI_XFER_WRITE : SCSI_XFER_READ, buf, io,
			writing ? "WRITE(6)" : "READ(6)", 0))
			return -1;
	}
	c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	t1 = clock_s(CLOCK_MONOTONIC);

	if (filemark) {
		double f0 = clock_s(CLOCK_MONOTONIC);
		if (writing) {
			unsigned char wfm[6] = {0x10, 0, 0, 0, 1, 0};	/* WRITE FILEMARKS(6), 1 mark */
			if (run(iscsi, lun, wfm, 6, SCSI_XFER_NONE, NULL, 0, "WRITE FILEMARKS", 0))
				return -1;
		} else if (run(iscsi, lun, cdb, 6, SCSI_XFER_READ, buf, io, "READ(6) of the filemark", 1)) {
			return -1;
		}
		fm = clock_s(CLOCK_MONOTONIC) - f0;
	}
	if (tagged)
		printf("op=%s ", writing ? "write" : "read");
	printf("bytes=%ld seconds=%.6f MBps=%.1f cpu_us_per_cmd=%.1f", io * count, t1 - t0,
	       io * count / (t1 - t0) / 1e6, (c1 - c0) / count * 1e6);
	if (tagged)
		printf(" fm_seconds=%.6f", fm);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct iscsi_context *iscsi;
	struct iscsi_url *url;
	unsigned char cdb[6], param[12];
	unsigned char *buf;
	long block, io, count, i, xfer;
	int fixed, lun, writes = 1, reads = 0, filemark = 0, copy = 0, tagged = argc > 6;
	const unsigned char rewind_cdb[6] = {0x01, 0, 0, 0, 0, 0};

	if (argc < 6 || argc > 8) {
		fprintf(stderr, "usage: %s URL fixed|variable BLOCK IO COUNT [write|read|write+read] [filemark]\n",
			argv[0]);
		return 2;
	}
	fixed = strcmp(argv[2], "fixed") == 0;
	block = atol(argv[3]);
	io = atol(argv[4]);
	count = atol(argv[5]);
	if (argc > 6) {
		writes = strcmp(argv[6], "write") == 0 || strcmp(argv[6], "write+read") == 0;
		reads = strcmp(argv[6], "read") == 0 || strcmp(argv[6], "write+read") == 0;
		if (!writes && !reads) {
			fprintf(stderr, "the operation is write, read or write+read\n");
			return 2;
		}
	}
	if (argc > 7) {
		filemark = strcmp(argv[7], "filemark") == 0 || strcmp(argv[7], "filemark+copy") == 0;
		copy = strcmp(argv[7], "copy") == 0 || strcmp(argv[7], "filemark+copy") == 0;
		if (!filemark && !copy) {
			fprintf(stderr, "the last argument, when given, is: filemark, copy or filemark+copy\n");
			return 2;
		}
	}
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
	if (copy) {
		uint64_t x = 0x9E3779B97F4A7C15u;
		long pool_bytes = 32L << 20;

		pool_slots = pool_bytes / io > 1 ? pool_bytes / io - 1 : 1;
		pool = malloc((pool_slots + 1) * io);
		if (pool == NULL) {
			fprintf(stderr, "out of memory\n");
			return 1;
		}
		for (i = 0; i < (pool_slots + 1) * io; i++) {	/* xorshift: incompressible, cheap */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			pool[i] = (unsigned char)x;
		}
	}

	memcpy(cdb, rewind_cdb, 6);
	if (run(iscsi, lun, cdb, 6, SCSI_XFER_NONE, NULL, 0, "REWIND", 0))
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
	if (run(iscsi, lun, cdb, 6, SCSI_XFER_WRITE, param, sizeof(param), "MODE SELECT", 0))
		return 1;

	if (writes && phase(iscsi, lun, 1, fixed, block, io, count, filemark, buf, tagged))
		return 1;
	if (writes && reads) {
		memcpy(cdb, rewind_cdb, 6);
		if (run(iscsi, lun, cdb, 6, SCSI_XFER_NONE, NULL, 0, "REWIND", 0))
			return 1;
	}
	if (reads && phase(iscsi, lun, 0, fixed, block, io, count, filemark, buf, tagged))
		return 1;

	iscsi_logout_sync(iscsi);
	iscsi_destroy_url(url);
	iscsi_destroy_context(iscsi);
	free(buf);
	free(pool);
	return 0;
}
