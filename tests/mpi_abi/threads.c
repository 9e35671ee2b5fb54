/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_THREAD_MULTIPLE through the MPI layer, 2 ranks x 4 threads at once: each thread
 * exchanges 300 messages with the same thread of the peer on its own tag, half with a
 * derived (vector) datatype that every request holds a reference to, half freed with
 * MPI_Request_free before completion (the layer's orphan list); contents checked.
 * Then osu_latency_mt's pattern: one thread of rank 0 sends NT * N numbered messages on
 * one tag, each answered before the next, to NT receiving threads of rank 1 whose
 * receives all match it: a receive is often completed by another thread's poll (the
 * engine's hand-off, core/progress.c). Each number must arrive exactly once and each
 * answer must be the one for the message just sent. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define NT 4
#define N 300
static int rank;
static MPI_Datatype vec; /* 4 blocks of 2 ints, stride 3 */
static int bad;

static void *worker(void *arg)
{
    int t = (int)(long)arg, peer = rank ^ 1;
    for (int i = 0; i < N; i++) {
        int out[12], in[12] = {0};
        for (int k = 0; k < 12; k++)
            out[k] = rank * 100000 + t * 1000 + i * 7 + k;
        MPI_Request rq[2];
        if (i % 2 == 0) {
            MPI_Irecv(in, 1, vec, peer, t, MPI_COMM_WORLD, &rq[0]);
            MPI_Isend(out, 1, vec, peer, t, MPI_COMM_WORLD, &rq[1]);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
            for (int b = 0; b < 4; b++)
                for (int k = 0; k < 2; k++)
                    if (in[b * 3 + k] != peer * 100000 + t * 1000 + i * 7 + b * 3 + k)
                        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        } else {
            MPI_Irecv(in, 12, MPI_INT, peer, t, MPI_COMM_WORLD, &rq[0]);
            MPI_Isend(out, 12, MPI_INT, peer, t, MPI_COMM_WORLD, &rq[1]);
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            MPI_Request_free(&rq[1]); /* done or not: the layer reaps it */
            for (int k = 0; k < 12; k++)
                if (in[k] != peer * 100000 + t * 1000 + i * 7 + k)
                    __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        }
    }
    return NULL;
}

static unsigned char seen[NT * N];

/* Rank 1: receive N of the shared-tag messages, whichever, and answer each. */
static void *shared_recv(void *arg)
{
    (void)arg;
    for (int i = 0; i < N; i++) {
        int v = -1, ans;
        MPI_Recv(&v, 1, MPI_INT, 0, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (v < 0 || v >= NT * N || __atomic_fetch_add(&seen[v], 1, __ATOMIC_RELAXED) != 0)
            __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        ans = v + 1000000;
        MPI_Send(&ans, 1, MPI_INT, 0, 91, MPI_COMM_WORLD);
    }
    return NULL;
}

/* Rank 0: one sender, each message answered before the next. */
static void *shared_send(void *arg)
{
    (void)arg;
    for (int v = 0; v < NT * N; v++) {
        int ans = -1;
        MPI_Send(&v, 1, MPI_INT, 1, 90, MPI_COMM_WORLD);
        MPI_Recv(&ans, 1, MPI_INT, 1, 91, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (ans != v + 1000000)
            __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided != MPI_THREAD_MULTIPLE) {
        printf("threads: provided %d\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Type_vector(4, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    pthread_t th[NT];
    for (long t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    int nsh = rank == 0 ? 1 : NT;
    for (long t = 0; t < nsh; t++)
        pthread_create(&th[t], NULL, rank == 0 ? shared_send : shared_recv, (void *)t);
    for (int t = 0; t < nsh; t++)
        pthread_join(th[t], NULL);
    if (rank == 1)
        for (int v = 0; v < NT * N; v++)
            if (seen[v] != 1)
                bad++;
    MPI_Type_free(&vec);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads: %d threads x %d messages per rank, then 1 sender to %d receivers "
               "on one tag, %d wrong\n", NT, N, NT, all);
    MPI_Finalize();
    return all != 0;
}
