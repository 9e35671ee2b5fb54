/* SPDX-License-Identifier: BSD-3-Clause */
/* The multi-threaded message-rate pattern (docs/threads.md), written once for rmp
 * (rmp_mt_rate.c) and for any MPI (mpi_mt_rate.c, built with the MPI's wrapper): T
 * threads per rank, thread t of rank 0 streams 8-byte messages to thread t of rank 1 on
 * tag t, in windows of W non-blocking sends answered by one 4-byte acknowledgement
 * (osu_bw's method). Prints "T messages/s" for each T of -t (default 1,2,4), the median
 * of -r rounds (default 5) with min and max. The including file defines the MT_* calls. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MT_MAXT 16
#define MT_W 64

static int mt_rank, mt_iters = 2000, mt_skip = 200;
static pthread_barrier_t mt_bar;

static double mt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *mt_stream(void *arg)
{
    int t = (int)(long)arg;
    char buf[MT_W][8], ack[4] = {0};
    MT_REQ req[MT_W];
    pthread_barrier_wait(&mt_bar);
    for (int i = 0; i < mt_iters + mt_skip; i++) {
        if (i == mt_skip)
            pthread_barrier_wait(&mt_bar); /* the clock starts with every thread warm */
        for (int w = 0; w < MT_W; w++) {
            if (mt_rank == 0)
                MT_ISEND(buf[w], 8, 1, t, &req[w]);
            else
                MT_IRECV(buf[w], 8, 0, t, &req[w]);
        }
        MT_WAITALL(MT_W, req);
        if (mt_rank == 0)
            MT_RECV(ack, 4, 1, MT_MAXT + t);
        else
            MT_SEND(ack, 4, 0, MT_MAXT + t);
    }
    return NULL;
}

static double mt_round(int nt)
{
    pthread_t th[MT_MAXT];
    pthread_barrier_init(&mt_bar, NULL, (unsigned)nt + 1);
    MT_BARRIER();
    for (int t = 0; t < nt; t++)
        pthread_create(&th[t], NULL, mt_stream, (void *)(long)t);
    pthread_barrier_wait(&mt_bar); /* start */
    pthread_barrier_wait(&mt_bar); /* warm-up done */
    double t0 = mt_now();
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    double el = mt_now() - t0;
    pthread_barrier_destroy(&mt_bar);
    return (double)nt * mt_iters * MT_W / el;
}

static int mt_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Parse -t 1,2,4 -r ROUNDS -i ITERS; run every T in each round (interleaved). */
static void mt_main(int argc, char **argv)
{
    int ts[MT_MAXT], nts = 0, rounds = 5;
    char tlist[64] = "1,2,4";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-t") == 0)
            snprintf(tlist, sizeof(tlist), "%s", argv[i + 1]);
        else if (strcmp(argv[i], "-r") == 0)
            rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-i") == 0)
            mt_iters = atoi(argv[i + 1]);
    }
    for (char *s = strtok(tlist, ","); s && nts < MT_MAXT; s = strtok(NULL, ","))
        if (atoi(s) >= 1 && atoi(s) <= MT_MAXT)
            ts[nts++] = atoi(s);
    if (rounds < 1 || rounds > 99 || mt_iters < 1 || nts == 0) {
        fprintf(stderr, "usage: %s [-t 1,2,4] [-r ROUNDS] [-i ITERS]\n", argv[0]);
        exit(2);
    }
    double rate[MT_MAXT][99];
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < nts; k++)
            rate[k][r] = mt_round(ts[k]);
    if (mt_rank != 0)
        return;
    printf("# %s: 8-byte messages, window %d, %d iterations per thread; median of %d "
           "interleaved rounds (min, max)\n# threads    messages/s        min        max\n",
           MT_NAME, MT_W, mt_iters, rounds);
    for (int k = 0; k < nts; k++) {
        qsort(rate[k], (size_t)rounds, sizeof(double), mt_cmp);
        printf("%-9d %12.0f %10.0f %10.0f\n", ts[k], rate[k][rounds / 2], rate[k][0],
               rate[k][rounds - 1]);
    }
}
