/* SPDX-License-Identifier: BSD-3-Clause */
/* Single-copy ceiling: a raw process_vm_readv from a peer process (the copy Open MPI's
 * vader and MPICH's CMA path do for large messages), in MB/s (1e6 bytes/s) per size.
 * The parent is pinned to CPU A and reads the buffer of a child pinned to CPU B into one
 * local buffer, reused like the OSU receive buffer. Best of several trials per size.
 * Usage: cma_copy [-a CPU] [-b CPU] [-m [MIN:]MAX] [-r TRIALS] */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set))
        fprintf(stderr, "cma_copy: cannot pin to cpu %d: %s\n", cpu, strerror(errno));
}

int main(int argc, char **argv)
{
    int a = 0, b = 1, trials = 3, c;
    size_t min = 1024, max = (size_t)4 << 20;
    while ((c = getopt(argc, argv, "a:b:m:r:h")) != -1) {
        switch (c) {
        case 'a': a = atoi(optarg); break;
        case 'b': b = atoi(optarg); break;
        case 'm': {
            char *colon = strchr(optarg, ':');
            if (colon) {
                min = strtoull(optarg, NULL, 10);
                max = strtoull(colon + 1, NULL, 10);
            } else {
                max = strtoull(optarg, NULL, 10);
            }
            break;
        }
        case 'r': trials = atoi(optarg); break;
        default:
            printf("Usage: %s [-a CPU] [-b CPU] [-m [MIN:]MAX] [-r TRIALS]\n", argv[0]);
            return c == 'h' ? 0 : 2;
        }
    }
    if (min < 1 || min > max || trials < 1)
        return 2;

    char *remote = aligned_alloc(4096, max), *local = aligned_alloc(4096, max);
    int ready[2], done[2];
    if (!remote || !local || pipe(ready) || pipe(done)) {
        perror("cma_copy");
        return 1;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        /* The child owns its own copy of the pages (written after fork) and sleeps. */
        char x = 0;
        pin(b);
        for (size_t i = 0; i < max; i++)
            remote[i] = (char)(i * 131 + 7);
        if (write(ready[1], &x, 1) != 1)
            _exit(1);
        if (read(done[0], &x, 1) < 0)
            _exit(1);
        _exit(0);
    }
    char x;
    pin(a);
    memset(local, 0, max);
    if (read(ready[0], &x, 1) != 1) {
        fprintf(stderr, "cma_copy: child failed\n");
        return 1;
    }
    printf("# Single-copy ceiling: process_vm_readv from a peer, cpus %d <- %d\n"
           "# Size      Bandwidth (MB/s)\n", a, b);
    int status = 0;
    for (size_t size = min; size <= max; size *= 2) {
        struct iovec liov = {local, size}, riov = {remote, size};
        long iters = (long)(((size_t)256 << 20) / size);
        if (iters < 100)
            iters = 100;
        if (iters > 200000)
            iters = 200000;
        double best = 0.0;
        for (int t = 0; t < trials; t++) {
            double t0 = now();
            for (long i = 0; i < iters; i++) {
                ssize_t n = process_vm_readv(child, &liov, 1, &riov, 1, 0);
                if (n != (ssize_t)size) {
                    fprintf(stderr, "cma_copy: process_vm_readv: %s\n",
                            n < 0 ? strerror(errno) : "short read");
                    status = 1;
                    goto out;
                }
            }
            double bw = (double)size * (double)iters / (now() - t0) / 1e6;
            best = bw > best ? bw : best;
        }
        for (size_t i = 0; i < size; i++)
            if (local[i] != (char)(i * 131 + 7)) {
                fprintf(stderr, "cma_copy: wrong data at %zu\n", i);
                status = 1;
                goto out;
            }
        printf("%-10zu%18.2f\n", size, best);
        fflush(stdout);
    }
out:
    if (write(done[1], &x, 1) != 1)
        kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    free(remote);
    free(local);
    return status;
}
