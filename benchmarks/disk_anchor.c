/* Anchor for bench_disk.py: the plainest C a disk benchmark could be, so tapediag's
 * small-file figures are compared against what the machine can do with no framework.
 *
 *   disk_anchor create ROOT STREAMS DEPTH BREADTH FILES_PER_DIR MIN MAX
 *   disk_anchor read ROOT STREAMS BUFSIZE
 *
 * create: one thread per stream builds ROOT/sNN/dNN/... pre-order, files of MIN..MAX
 * bytes, then syncfs, like tapediag's default.  Each file is the same job tapediag
 * does: openat(dirfd, O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC), one write of bytes
 * taken from a random 4 KiB-aligned offset of a 32 MiB pool and XOR-ed with a per-file
 * 64-bit key, the first 8 bytes of each 4 KiB block replaced by a stamp (the content
 * app/disk/content.py describes, for files below its 1 MiB window), close.  Nothing else: no latency
 * clock, no manifest, no sampling.
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

#define POOL (32L << 20)

/* pool[off..off+n) XOR key in 8-byte phase into out (wrapping at the pool's end) */
static void fill(unsigned char *out, long off, long n, uint64_t key)
{
    long o = off % POOL;
    for (long i = 0; i < n; i += 8, o += 8) {
        uint64_t w;
        if (o == POOL)
            o = 0;
        memcpy(&w, wbuf + o, 8);
        w ^= key;
        memcpy(out + i, &w, 8);
    }
}

static void create_dir(job_t *j, int parent, int level, unsigned char *scratch)
{
    char name[32];
    for (int b = 0; b < breadth; b++) {
        snprintf(name, sizeof name, "d%02d", b);
        if (mkdirat(parent, name, 0755) < 0) { perror(name); exit(1); }
        int dfd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0) { perror(name); exit(1); }
        for (int f = 0; f < fpd; f++) {
            char fn[32];
            snprintf(fn, sizeof fn, "f%06d.dat", f);
            long size = minsz + (long)(next(&j->rng) % (uint64_t)(maxsz - minsz + 1));
            long off = (long)(next(&j->rng) % (POOL / 4096)) * 4096;
            uint64_t key = next(&j->rng) | 1;
            int fd = openat(dfd, fn, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (fd < 0) { perror(fn); exit(1); }
            long done = 0;
            while (done < size) {
                long n = size - done > bufsz ? bufsz : size - done;
                fill(scratch, off + done, n, key);
                for (long q = 0; q < n; q += 4096) {
                    uint64_t stamp = key ^ ((uint64_t)((done + q) / 4096 + 1) * 0x9E3779B97F4A7C15ULL);
                    memcpy(scratch + q, &stamp, 8);
                }
                ssize_t w = write(fd, scratch, n);
                if (w <= 0) { perror("write"); exit(1); }
                done += w;
            }
            close(fd);
            j->files++;
            j->bytes += size;
        }
        if (level < depth)
            create_dir(j, dfd, level + 1, scratch);
        close(dfd);
    }
}

static void *create_job(void *arg)
{
    job_t *j = arg;
    char p[4096];
    unsigned char *scratch = malloc(bufsz + 16);
    snprintf(p, sizeof p, "%s/s%02d", root, j->id);
    pthread_barrier_wait(&barrier);
    if (mkdir(p, 0755) < 0) { perror(p); exit(1); }
    int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    create_dir(j, fd, 1, scratch);
    syncfs(fd);
    close(fd);
    j->end = now();
    free(scratch);
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
        wbuf = malloc(POOL);
        uint64_t s = 88172645463325252ULL;
        for (long i = 0; i < POOL; i += 8) { uint64_t v = next(&s); memcpy(wbuf + i, &v, 8); }
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
