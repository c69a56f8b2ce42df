/* Anchor for bench_disk.py: the plainest C a disk benchmark could be, so tapediag's
 * small-file figures are compared against what the machine can do with no framework.
 *
 *   disk_anchor create ROOT STREAMS DEPTH BREADTH FILES_PER_DIR MIN MAX
 *   disk_anchor read ROOT STREAMS BUFSIZE
 *
 * create: one thread per stream builds ROOT/sNN/dNN/... pre-order, files of MIN..MAX
 * bytes (open O_CREAT|O_EXCL, write, close), then syncfs, like tapediag's default.
 * read: thread i walks ROOT/s0i first (untimed), then fadvise(DONTNEED) + reads each
 * file whole with BUFSIZE reads (timed).
 * Prints "files bytes seconds" with seconds = the slowest thread (common start).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int depth, breadth, fpd, streams;
static long minsz, maxsz, bufsz;
static const char *root;
static char *wbuf;
static pthread_barrier_t barrier;
static double t_start;

typedef struct {
    int id;
    long files, bytes;
    double end;
    char **paths;
    long npaths, cap;
    uint64_t rng;
} job_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void create_dir(job_t *j, const char *path, int level)
{
    char p[4096];
    for (int b = 0; b < breadth; b++) {
        snprintf(p, sizeof p, "%s/d%02d", path, b);
        if (mkdir(p, 0755) < 0) { perror(p); exit(1); }
        for (int f = 0; f < fpd; f++) {
            char fp[4200];
            snprintf(fp, sizeof fp, "%s/f%06d.dat", p, f);
            long size = minsz + (long)(next(&j->rng) % (uint64_t)(maxsz - minsz + 1));
            int fd = open(fp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd < 0) { perror(fp); exit(1); }
            long done = 0;
            while (done < size) {
                long n = size - done > bufsz ? bufsz : size - done;
                ssize_t w = write(fd, wbuf + (done % (4 << 20)), n);
                if (w <= 0) { perror("write"); exit(1); }
                done += w;
            }
            close(fd);
            j->files++;
            j->bytes += size;
        }
        if (level < depth)
            create_dir(j, p, level + 1);
    }
}

static void *create_job(void *arg)
{
    job_t *j = arg;
    char p[4096];
    snprintf(p, sizeof p, "%s/s%02d", root, j->id);
    pthread_barrier_wait(&barrier);
    if (mkdir(p, 0755) < 0) { perror(p); exit(1); }
    create_dir(j, p, 1);
    int fd = open(p, O_RDONLY | O_DIRECTORY);
    syncfs(fd);
    close(fd);
    j->end = now();
    return NULL;
}

static void walk(job_t *j, const char *path)
{
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        if (e->d_type == DT_DIR) {
            walk(j, p);
        } else if (e->d_type == DT_REG) {
            if (j->npaths == j->cap) {
                j->cap = j->cap ? 2 * j->cap : 1024;
                j->paths = realloc(j->paths, j->cap * sizeof(char *));
            }
            j->paths[j->npaths++] = strdup(p);
        }
    }
    closedir(d);
}

static void *read_job(void *arg)
{
    job_t *j = arg;
    char p[4096];
    snprintf(p, sizeof p, "%s/s%02d", root, j->id);
    walk(j, p);
    char *buf = aligned_alloc(4096, bufsz);
    pthread_barrier_wait(&barrier);
    for (long i = 0; i < j->npaths; i++) {
        int fd = open(j->paths[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        ssize_t r;
        while ((r = read(fd, buf, bufsz)) > 0)
            j->bytes += r;
        close(fd);
        j->files++;
    }
    j->end = now();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4) { fprintf(stderr, "usage: see source\n"); return 2; }
    int create = strcmp(argv[1], "create") == 0;
    root = argv[2];
    streams = atoi(argv[3]);
    if (create) {
        if (argc != 9) return 2;
        depth = atoi(argv[4]); breadth = atoi(argv[5]); fpd = atoi(argv[6]);
        minsz = atol(argv[7]); maxsz = atol(argv[8]); bufsz = 1 << 20;
        wbuf = malloc((4 << 20) + bufsz);
        uint64_t s = 88172645463325252ULL;
        for (long i = 0; i < (4 << 20) + bufsz; i++) wbuf[i] = (char)next(&s);
    } else {
        bufsz = atol(argv[4]);
    }
    pthread_t th[64];
    job_t jobs[64];
    memset(jobs, 0, sizeof jobs);
    pthread_barrier_init(&barrier, NULL, streams + 1);
    for (int i = 0; i < streams; i++) {
        jobs[i].id = i + 1;
        jobs[i].rng = 0x9E3779B97F4A7C15ULL * (i + 1);
        pthread_create(&th[i], NULL, create ? create_job : read_job, &jobs[i]);
    }
    pthread_barrier_wait(&barrier);
    t_start = now();
    long files = 0, bytes = 0;
    double slowest = 0;
    for (int i = 0; i < streams; i++) {
        pthread_join(th[i], NULL);
        files += jobs[i].files;
        bytes += jobs[i].bytes;
        if (jobs[i].end - t_start > slowest) slowest = jobs[i].end - t_start;
    }
    printf("%ld %ld %.6f\n", files, bytes, slowest);
    return 0;
}
