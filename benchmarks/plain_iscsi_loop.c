/*
 * plain_iscsi_loop.c - an iSCSI tape read/write loop written the way anyone would write one from
 * libiscsi's header: the independent anchor of bench_tape_vs_c.py (issue 32 §2).
 *
 * It was written from <iscsi/iscsi.h> and <iscsi/scsi-lowlevel.h> alone, not from the project's
 * own iscsi_bare_loop.c: log in, REWIND, MODE SELECT the block length, then COUNT x WRITE(6) from
 * one static buffer (or READ(6) into it), queue depth 1, libiscsi's synchronous API, a task made
 * and freed per command. Both directions time the data commands alone, and the closing filemark
 * apart: WRITE FILEMARKS(6) after the writes, the READ(6) that meets the mark after the reads.
 *
 * The options below exist to measure one factor at a time against the default loop; none is
 * needed for the figure the README quotes:
 *   --data-in libiscsi   READ data lands in libiscsi's own buffer and is copied into ours, as in
 *                        libiscsi's examples (default "own": scsi_task_add_data_in_buffer);
 *   --api async          iscsi_scsi_command_async and our own poll()/iscsi_service() loop instead
 *                        of iscsi_scsi_command_sync (still one command at a time);
 *   --filemark no        no closing filemark (a read then stops after COUNT commands, whatever follows:
 *                        for instruction counts under callgrind); no fm_seconds is printed;
 *   --immediate-data yes|no, --initial-r2t yes|no
 *                        the initiator's wish at login (libiscsi's default: yes / no); the target's
 *                        own setting still decides, iSCSI takes the more conservative of the two.
 *
 * Build: gcc -O2 -o plain_iscsi_loop plain_iscsi_loop.c -liscsi
 * Usage: plain_iscsi_loop --url URL --mode fixed|variable --block BYTES --io BYTES --count N
 *                         [--op write|read|write+read] [options above]
 * Prints, per phase: op=<write|read> bytes=<n> seconds=<data commands> MBps=<decimal>
 *                    cpu_us_per_cmd=<process CPU per data command> fm_seconds=<closing filemark>
 * Exit status 0, or 1 with one line on stderr.
 */
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

struct options {
	const char *url;
	int fixed;
	long block, io, count;
	int do_write, do_read;
	int copy_in;		/* --data-in libiscsi */
	int use_async;		/* --api async */
	int no_filemark;	/* --filemark no */
	int immediate_data;	/* -1: libiscsi's default */
	int initial_r2t;	/* -1: libiscsi's default */
};

static double seconds_of(clockid_t clock)
{
	struct timespec now;

	clock_gettime(clock, &now);
	return (double)now.tv_sec + now.tv_nsec * 1e-9;
}

static void die(struct iscsi_context *iscsi, const char *what)
{
	fprintf(stderr, "%s: %s\n", what, iscsi ? iscsi_get_error(iscsi) : "failed");
	exit(1);
}

/* --api async: one command through the asynchronous API, waited for in our own poll() loop. */
struct waiting {
	int done;
	int status;
};

static void command_done(struct iscsi_context *iscsi, int status, void *command_data, void *private_data)
{
	struct waiting *w = private_data;

	(void)iscsi;
	(void)command_data;
	w->status = status;
	w->done = 1;
}

static int send_and_wait(struct iscsi_context *iscsi, int lun, struct scsi_task *task, struct iscsi_data *out,
			 int use_async)
{
	struct waiting w = {0, 0};

	if (!use_async)
		return iscsi_scsi_command_sync(iscsi, lun, task, out) == NULL ? -1 : 0;
	if (iscsi_scsi_command_async(iscsi, lun, task, command_done, out, &w) != 0)
		return -1;
	while (!w.done) {
		struct pollfd pfd = {iscsi_get_fd(iscsi), (short)iscsi_which_events(iscsi), 0};

		if (poll(&pfd, 1, 1000) < 0 || iscsi_service(iscsi, pfd.revents) < 0)
			return -1;
	}
	task->status = w.status;
	return 0;
}

/* One CDB; returns the finished task (the caller frees it) or exits on a transport failure. */
static struct scsi_task *command(struct iscsi_context *iscsi, int lun, const struct options *o,
				 unsigned char *cdb, int xfer_dir, unsigned char *data, long len)
{
	struct scsi_task *task = scsi_create_task(6, cdb, xfer_dir, (int)len);
	struct iscsi_data out = {(size_t)len, data};

	if (task == NULL)
		die(NULL, "scsi_create_task");
	if (xfer_dir == SCSI_XFER_READ && !o->copy_in)
		scsi_task_add_data_in_buffer(task, (int)len, data);
	if (send_and_wait(iscsi, lun, task, xfer_dir == SCSI_XFER_WRITE ? &out : NULL, o->use_async) != 0)
		die(iscsi, "command");
	if (xfer_dir == SCSI_XFER_READ && o->copy_in && task->status == SCSI_STATUS_GOOD)
		memcpy(data, task->datain.data, (size_t)(task->datain.size < len ? task->datain.size : len));
	return task;
}

static void expect_good(struct iscsi_context *iscsi, int lun, const struct options *o, unsigned char *cdb,
			int xfer_dir, unsigned char *data, long len, const char *what)
{
	struct scsi_task *task = command(iscsi, lun, o, cdb, xfer_dir, data, len);

	if (task->status != SCSI_STATUS_GOOD) {
		fprintf(stderr, "%s: status 0x%02x, sense key %d, ASC/ASCQ 0x%04x\n", what, task->status,
			task->sense.key, task->sense.ascq);
		exit(1);
	}
	scsi_free_scsi_task(task);
}

static void phase(struct iscsi_context *iscsi, int lun, const struct options *o, int writing, unsigned char *buf)
{
	long length = o->fixed ? o->io / o->block : o->io;	/* blocks, or bytes in variable mode */
	unsigned char cdb[6] = {writing ? 0x0a : 0x08, o->fixed ? 0x01 : 0x00,
				(unsigned char)(length >> 16), (unsigned char)(length >> 8), (unsigned char)length, 0};
	int dir = writing ? SCSI_XFER_WRITE : SCSI_XFER_READ;
	double wall0, cpu0, wall1, cpu1, mark0, mark1;
	long n;

	wall0 = seconds_of(CLOCK_MONOTONIC);
	cpu0 = seconds_of(CLOCK_PROCESS_CPUTIME_ID);
	for (n = 0; n < o->count; n++)
		expect_good(iscsi, lun, o, cdb, dir, buf, o->io, writing ? "WRITE(6)" : "READ(6)");
	cpu1 = seconds_of(CLOCK_PROCESS_CPUTIME_ID);
	wall1 = seconds_of(CLOCK_MONOTONIC);

	if (o->no_filemark) {
		printf("op=%s bytes=%ld seconds=%.6f MBps=%.1f cpu_us_per_cmd=%.1f\n", writing ? "write" : "read",
		       o->io * o->count, wall1 - wall0, o->io * o->count / (wall1 - wall0) / 1e6,
		       (cpu1 - cpu0) / o->count * 1e6);
		return;
	}
	mark0 = seconds_of(CLOCK_MONOTONIC);
	if (writing) {
		unsigned char wfm[6] = {0x10, 0, 0, 0, 1, 0};

		expect_good(iscsi, lun, o, wfm, SCSI_XFER_NONE, NULL, 0, "WRITE FILEMARKS(6)");
	} else {
		struct scsi_task *task = command(iscsi, lun, o, cdb, dir, buf, o->io);

		/* tgt and real drives: CHECK CONDITION, NO SENSE, ASC/ASCQ 00/01 FILEMARK DETECTED */
		if (task->status != SCSI_STATUS_CHECK_CONDITION || task->sense.ascq != 0x0001) {
			fprintf(stderr, "READ(6) after the data: status 0x%02x, ASC/ASCQ 0x%04x, not a filemark\n",
				task->status, task->sense.ascq);
			exit(1);
		}
		scsi_free_scsi_task(task);
	}
	mark1 = seconds_of(CLOCK_MONOTONIC);

	printf("op=%s bytes=%ld seconds=%.6f MBps=%.1f cpu_us_per_cmd=%.1f fm_seconds=%.6f\n",
	       writing ? "write" : "read", o->io * o->count, wall1 - wall0, o->io * o->count / (wall1 - wall0) / 1e6,
	       (cpu1 - cpu0) / o->count * 1e6, mark1 - mark0);
	fflush(stdout);
}

static int yes_no(const char *text, const char *name)
{
	if (strcmp(text, "yes") == 0)
		return 1;
	if (strcmp(text, "no") == 0)
		return 0;
	fprintf(stderr, "%s is yes or no\n", name);
	exit(2);
}

static void parse(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{"url", required_argument, NULL, 'u'}, {"mode", required_argument, NULL, 'm'},
		{"block", required_argument, NULL, 'b'}, {"io", required_argument, NULL, 'i'},
		{"count", required_argument, NULL, 'c'}, {"op", required_argument, NULL, 'o'},
		{"data-in", required_argument, NULL, 'd'}, {"api", required_argument, NULL, 'a'},
		{"filemark", required_argument, NULL, 'f'}, {"immediate-data", required_argument, NULL, 'I'}, {"initial-r2t", required_argument, NULL, 'R'},
		{NULL, 0, NULL, 0},
	};
	const char *op = "write+read", *mode = NULL;
	int c;

	memset(o, 0, sizeof(*o));
	o->immediate_data = o->initial_r2t = -1;
	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (c) {
		case 'u': o->url = optarg; break;
		case 'm': mode = optarg; break;
		case 'b': o->block = atol(optarg); break;
		case 'i': o->io = atol(optarg); break;
		case 'c': o->count = atol(optarg); break;
		case 'o': op = optarg; break;
		case 'd': o->copy_in = strcmp(optarg, "libiscsi") == 0; break;
		case 'a': o->use_async = strcmp(optarg, "async") == 0; break;
		case 'f': o->no_filemark = !yes_no(optarg, "--filemark"); break;
		case 'I': o->immediate_data = yes_no(optarg, "--immediate-data"); break;
		case 'R': o->initial_r2t = yes_no(optarg, "--initial-r2t"); break;
		default: exit(2);
		}
	}
	o->fixed = mode != NULL && strcmp(mode, "fixed") == 0;
	o->do_write = strstr(op, "write") != NULL;
	o->do_read = strstr(op, "read") != NULL;
	if (o->url == NULL || mode == NULL || (!o->fixed && strcmp(mode, "variable") != 0) || o->block <= 0 ||
	    o->io <= 0 || o->io >= (1L << 24) || o->count <= 0 || (o->fixed && o->io % o->block) ||
	    (!o->do_write && !o->do_read)) {
		fprintf(stderr, "usage: %s --url URL --mode fixed|variable --block BYTES --io BYTES --count N "
			"[--op write|read|write+read] [--data-in own|libiscsi] [--api sync|async] [--filemark yes|no] "
			"[--immediate-data yes|no] [--initial-r2t yes|no]\n", argv[0]);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct options o;
	struct iscsi_context *iscsi;
	struct iscsi_url *url;
	static unsigned char mode_data[12];
	unsigned char rewind[6] = {0x01, 0, 0, 0, 0, 0};
	unsigned char mode_select[6] = {0x15, 0x10, 0, 0, sizeof(mode_data), 0};
	unsigned char *buf;
	long i, block_length;

	parse(argc, argv, &o);
	iscsi = iscsi_create_context("iqn.2026-11.org.example:plain-loop");
	if (iscsi == NULL)
		die(NULL, "iscsi_create_context");
	url = iscsi_parse_full_url(iscsi, o.url);
	if (url == NULL)
		die(iscsi, "URL");
	iscsi_set_targetname(iscsi, url->target);
	iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(iscsi, ISCSI_HEADER_DIGEST_NONE);
	if (o.immediate_data >= 0)
		iscsi_set_immediate_data(iscsi, o.immediate_data ? ISCSI_IMMEDIATE_DATA_YES : ISCSI_IMMEDIATE_DATA_NO);
	if (o.initial_r2t >= 0)
		iscsi_set_initial_r2t(iscsi, o.initial_r2t ? ISCSI_INITIAL_R2T_YES : ISCSI_INITIAL_R2T_NO);
	if (iscsi_full_connect_sync(iscsi, url->portal, url->lun) != 0)
		die(iscsi, "login");

	buf = malloc(o.io);
	if (buf == NULL)
		die(NULL, "malloc");
	for (i = 0; i < o.io; i++)
		buf[i] = (unsigned char)rand();

	expect_good(iscsi, url->lun, &o, rewind, SCSI_XFER_NONE, NULL, 0, "REWIND");
	block_length = o.fixed ? o.block : 0;	/* mode parameter header (4) + block descriptor (8) */
	mode_data[2] = 0x10;			/* buffered mode 1 */
	mode_data[3] = 8;
	mode_data[9] = (unsigned char)(block_length >> 16);
	mode_data[10] = (unsigned char)(block_length >> 8);
	mode_data[11] = (unsigned char)block_length;
	expect_good(iscsi, url->lun, &o, mode_select, SCSI_XFER_WRITE, mode_data, sizeof(mode_data), "MODE SELECT(6)");

	if (o.do_write)
		phase(iscsi, url->lun, &o, 1, buf);
	if (o.do_write && o.do_read)
		expect_good(iscsi, url->lun, &o, rewind, SCSI_XFER_NONE, NULL, 0, "REWIND");
	if (o.do_read)
		phase(iscsi, url->lun, &o, 0, buf);

	iscsi_logout_sync(iscsi);
	iscsi_destroy_url(url);
	iscsi_destroy_context(iscsi);
	free(buf);
	return 0;
}
