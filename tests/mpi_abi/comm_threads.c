/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicator creation from 4 threads of each rank at once (issue 26), each thread on
 * its own parent: MPI_Comm_dup, MPI_Comm_idup, MPI_Comm_split and
 * MPI_Comm_create_group, each new communicator checked by an allreduce of values
 * unique to the thread and round (two communicators agreed on one context id would
 * mix their messages) while the other threads do the same. Then overlapping idups on
 * one parent: every rank sees them complete in call order, and each works. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define NT 4
#define ROUNDS 6
#define NIDUP 6
static int rank, size;
static MPI_Comm parents[NT];
static int bad;

static void fail(const char *what, int t, int i, long got, long want)
{
    fprintf(stderr, "rank %d thread %d round %d: %s: %ld, expected %ld\n", rank, t, i, what,
            got, want);
    __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
}

/* Every member contributes v(rank); the sum over the members' parent ranks is checked. */
static void check(MPI_Comm c, const char *what, int t, int i, const int *members, int n)
{
    int crank, csize;
    MPI_Comm_rank(c, &crank);
    MPI_Comm_size(c, &csize);
    if (csize != n)
        fail(what, t, i, csize, n);
    long mine = (long)(rank + 1) * 1000 + t * 100 + i, sum = 0, want = 0;
    for (int k = 0; k < n; k++)
        want += (long)(members[k] + 1) * 1000 + t * 100 + i;
    if (MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c) != MPI_SUCCESS || sum != want)
        fail(what, t, i, sum, want);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm p = parents[t];
    int all[64], half[64], nhalf = 0;
    for (int r = 0; r < size; r++) {
        all[r] = r;
        if (r % 2 == rank % 2)
            half[nhalf++] = r;
    }
    MPI_Group pg, g;
    MPI_Comm_group(p, &pg);
    MPI_Group_incl(pg, nhalf, half, &g);
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm c;
        MPI_Request rq;
        MPI_Comm_dup(p, &c);
        check(c, "dup", t, i, all, size);
        MPI_Comm_free(&c);
        MPI_Comm_idup(p, &c, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        check(c, "idup", t, i, all, size);
        MPI_Comm_free(&c);
        MPI_Comm_split(p, rank % 2, rank, &c);
        check(c, "split", t, i, half, nhalf);
        MPI_Comm_free(&c);
        MPI_Comm_create_group(p, g, t, &c);
        check(c, "create_group", t, i, half, nhalf);
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&pg);
    return NULL;
}

/* Overlapping idups on one parent: request i is never seen complete in a later sweep
 * than request i + 1 (each sweep tests the last first, so a later one found complete
 * means the earlier ones already were). */
static void overlap(void)
{
    MPI_Comm c[NIDUP];
    MPI_Request rq[NIDUP];
    int sweep_done[NIDUP], left = NIDUP, all[64];
    for (int r = 0; r < size; r++)
        all[r] = r;
    for (int i = 0; i < NIDUP; i++) {
        MPI_Comm_idup(MPI_COMM_WORLD, &c[i], &rq[i]);
        sweep_done[i] = -1;
    }
    for (int s = 0; left > 0 && s < 100000000; s++)
        for (int i = NIDUP - 1; i >= 0; i--) {
            int flag = 0;
            if (sweep_done[i] >= 0)
                continue;
            MPI_Test(&rq[i], &flag, MPI_STATUS_IGNORE);
            if (flag) {
                sweep_done[i] = s;
                left--;
            }
        }
    for (int i = 0; i < NIDUP; i++) {
        if (sweep_done[i] < 0)
            fail("overlapping idup never completed", 0, i, 0, 1);
        else if (i > 0 && sweep_done[i] < sweep_done[i - 1])
            fail("overlapping idup completed before the previous one (sweep)", 0, i,
                 sweep_done[i], sweep_done[i - 1]);
    }
    for (int i = NIDUP - 1; i >= 0; i--) {
        if (sweep_done[i] >= 0)
            check(c[i], "overlapping idup", NT, i, all, size);
        MPI_Comm_free(&c[i]);
    }
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE || size > 64) {
        fprintf(stderr, "needs MPI_THREAD_MULTIPLE and at most 64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int t = 0; t < NT; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    overlap();
    for (int t = 0; t < NT; t++)
        MPI_Comm_free(&parents[t]);
    int errs = 0;
    MPI_Allreduce(&bad, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(errs ? "comm_threads: %d errors\n" : "comm_threads: ok\n", errs);
    MPI_Finalize();
    return errs != 0;
}
