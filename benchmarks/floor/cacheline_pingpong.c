/* SPDX-License-Identifier: BSD-3-Clause */
/* Latency floor: two threads pinned to two cores bounce one cache line. Each round trip
 * is two cache-line transfers; the one-way time (round trip / 2) is the least any
 * shared-memory message between the two cores can take. Prints the best of several
 * trials in microseconds, as one OSU-style row (size = the 64-byte line).
 * Usage: cacheline_pingpong [-a CPU] [-b CPU] [-n ROUNDTRIPS] [-r TRIALS] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static struct {
    _Alignas(128) volatile uint64_t line;
    _Alignas(128) volatile int go;
} shared;

static long rounds = 1000000;

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Ponger: waits for each odd value and answers with the next even one. */
static void *ponger(void *arg)
{
    int cpu = *(int *)arg;
    if (pin(cpu))
        fprintf(stderr, "cacheline_pingpong: cannot pin to cpu %d\n", cpu);
    shared.go = 1;
    for (uint64_t v = 1; v < 2 * (uint64_t)rounds; v += 2) {
        while (__atomic_load_n(&shared.line, __ATOMIC_ACQUIRE) != v)
            ;
        __atomic_store_n(&shared.line, v + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static double trial(int cpu_b)
{
    pthread_t th;
    shared.line = 0;
    shared.go = 0;
    if (pthread_create(&th, NULL, ponger, &cpu_b)) {
        perror("pthread_create");
        exit(1);
    }
    while (!shared.go)
        ;
    double t0 = now();
    for (uint64_t v = 0; v < 2 * (uint64_t)rounds; v += 2) {
        __atomic_store_n(&shared.line, v + 1, __ATOMIC_RELEASE);
        while (__atomic_load_n(&shared.line, __ATOMIC_ACQUIRE) != v + 2)
            ;
    }
    double t = now() - t0;
    pthread_join(th, NULL);
    return t * 1e6 / (2.0 * (double)rounds);
}

int main(int argc, char **argv)
{
    int a = 0, b = 1, trials = 5, c;
    while ((c = getopt(argc, argv, "a:b:n:r:h")) != -1) {
        switch (c) {
        case 'a': a = atoi(optarg); break;
        case 'b': b = atoi(optarg); break;
        case 'n': rounds = atol(optarg); break;
        case 'r': trials = atoi(optarg); break;
        default:
            printf("Usage: %s [-a CPU] [-b CPU] [-n ROUNDTRIPS] [-r TRIALS]\n", argv[0]);
            return c == 'h' ? 0 : 2;
        }
    }
    if (rounds < 1 || trials < 1)
        return 2;
    if (pin(a))
        fprintf(stderr, "cacheline_pingpong: cannot pin to cpu %d\n", a);
    double best = 1e30;
    for (int i = 0; i < trials; i++) {
        double t = trial(b);
        best = t < best ? t : best;
    }
    printf("# Cache-line ping-pong, cpus %d and %d, best of %d x %ld round trips\n"
           "# Size   One-way latency (us)\n%-10d%18.3f\n",
           a, b, trials, rounds, 64, best);
    return 0;
}
