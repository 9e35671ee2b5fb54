/* SPDX-License-Identifier: BSD-3-Clause */
/* What cross-memory attach with segment lists costs against packing, per block size:
 * a message of -s bytes in blocks of B bytes every 2B (a vector) moved from a child
 * process pinned to CPU B into the parent pinned to CPU A, four ways:
 *   both    process_vm_readv, both sides' blocks as segment lists (the kernel pins the
 *           remote pages one segment at a time);
 *   local   the parent's side as segments, the child's contiguous;
 *   remote  the child's side as segments, the parent's contiguous;
 *   pack    pack (a strided copy on the sending side, timed in the parent: same cost),
 *           one contiguous readv, unpack: the three copies of a packing protocol.
 * Best of -r trials in microseconds. core/layout.h's thresholds come from these rows.
 * Usage: cma_iov [-a CPU] [-b CPU] [-s BYTES] [-r TRIALS] */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SEGS 1024 /* UIO_MAXIOV: segments per call */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set))
        fprintf(stderr, "cma_iov: cannot pin to cpu %d: %s\n", cpu, strerror(errno));
}

static struct iovec lv[SEGS], rv[SEGS];

/* Blocks [i, i + k) of b bytes every 2b from base into v; or one segment of k*b bytes
 * at base + i*b when contiguous. */
static size_t segs(struct iovec *v, char *base, size_t i, size_t k, size_t b, int strided)
{
    if (!strided) {
        v[0].iov_base = base + i * b;
        v[0].iov_len = k * b;
        return 1;
    }
    for (size_t j = 0; j < k; j++) {
        v[j].iov_base = base + 2 * b * (i + j);
        v[j].iov_len = b;
    }
    return k;
}

static int readv_all(pid_t child, char *dst, char *src, size_t total, size_t b, int lstr,
                     int rstr)
{
    size_t n = total / b;
    for (size_t i = 0; i < n;) {
        size_t k = n - i < SEGS ? n - i : SEGS;
        size_t nl = segs(lv, dst, i, k, b, lstr), nr = segs(rv, src, i, k, b, rstr);
        if (process_vm_readv(child, lv, nl, rv, nr, 0) != (ssize_t)(k * b))
            return -1;
        i += k;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int a = 0, bcpu = 1, trials = 10, c;
    size_t total = (size_t)1 << 20;
    while ((c = getopt(argc, argv, "a:b:s:r:h")) != -1) {
        switch (c) {
        case 'a': a = atoi(optarg); break;
        case 'b': bcpu = atoi(optarg); break;
        case 's': total = strtoull(optarg, NULL, 10); break;
        case 'r': trials = atoi(optarg); break;
        default:
            printf("Usage: %s [-a CPU] [-b CPU] [-s BYTES] [-r TRIALS]\n", argv[0]);
            return c == 'h' ? 0 : 2;
        }
    }
    if (total < 4096 || trials < 1) {
        fprintf(stderr, "cma_iov: -s at least 4096, -r at least 1\n");
        return 2;
    }
    /* Both processes see the source at the same address (forked after it is made). */
    char *src = malloc(2 * total), *dst = malloc(2 * total), *bounce = malloc(total);
    char *pk = malloc(total);
    if (!src || !dst || !bounce || !pk)
        return 1;
    memset(src, 1, 2 * total);
    memset(dst, 0, 2 * total);
    memset(bounce, 0, total);
    pid_t child = fork();
    if (child == 0) {
        pin(bcpu);
        pause();
        return 0;
    }
    pin(a);
    printf("# cma_iov: %zu bytes in blocks of B every 2B, child cpu %d -> parent cpu %d,"
           " best of %d, us\n", total, bcpu, a, trials);
    printf("# %8s %10s %10s %10s %10s\n", "B", "both", "local", "remote", "pack");
    static const size_t blocks[] = {4, 32, 256, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
                                    262144};
    int rc = 0;
    for (size_t bi = 0; bi < sizeof(blocks) / sizeof(blocks[0]) && rc == 0; bi++) {
        size_t b = blocks[bi], n = total / b;
        double best[4] = {1e30, 1e30, 1e30, 1e30};
        for (int t = 0; t < trials && rc == 0; t++) {
            for (int way = 0; way < 3 && rc == 0; way++) {
                double t0 = now_us();
                rc = readv_all(child, dst, src, total, b, way != 2, way != 1);
                double dt = now_us() - t0;
                best[way] = dt < best[way] ? dt : best[way];
            }
            double t0 = now_us();
            for (size_t i = 0; i < n; i++)
                memcpy(pk + i * b, src + 2 * b * i, b);
            rc = rc ? rc : readv_all(child, bounce, pk, total, total, 0, 0);
            for (size_t i = 0; i < n; i++)
                memcpy(dst + 2 * b * i, bounce + i * b, b);
            double dt = now_us() - t0;
            best[3] = dt < best[3] ? dt : best[3];
        }
        printf("%10zu %10.1f %10.1f %10.1f %10.1f\n", b, best[0], best[1], best[2], best[3]);
    }
    if (rc)
        fprintf(stderr, "cma_iov: process_vm_readv: %s\n", strerror(errno));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return rc ? 1 : 0;
}
