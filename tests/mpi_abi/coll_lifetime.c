/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives outliving their handles, and persistent collectives' order:
 * - a nonblocking collective freed with MPI_Request_free, its communicator freed at
 *   once while a late rank has not joined yet: the schedule still runs (from the
 *   progress engine of the next call) on a communicator that must live until it is
 *   done (MPICH coll/nonblocking3 crashed in MPI_Finalize's barrier). The freed
 *   memory is reused and overwritten at once, so a use after free shows.
 * - persistent collectives match in the order of their init calls (MPI 4), not in the
 *   order each rank starts them (MPICH coll/p_order). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* Memory of the size of what MPI_Comm_free released, taken and scribbled over. */
static void scribble(void *blk[], int n)
{
    for (int i = 0; i < n; i++) {
        blk[i] = malloc((size_t)(16 + 8 * (i % 24)));
        CHECK(blk[i], "malloc");
        memset(blk[i], 0xa5, (size_t)(16 + 8 * (i % 24)));
    }
}

/* Static: a freed collective may still forward from them after the loop went on. */
static int in[8], out[8], bc[8];

static void freed_collectives(int rank, int size)
{
    for (int it = 0; it < 8; it++) {
        MPI_Comm dup;
        CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS, "dup");
        if (rank == it % size)
            usleep(20000); /* the others free everything before this rank joins */
        in[it] = rank + 1;
        out[it] = -1;
        bc[it] = rank == 0 ? 77 : -1;
        MPI_Request q[3];
        CHECK(MPI_Iallreduce(&in[it], &out[it], 1, MPI_INT, MPI_SUM, dup, &q[0]) == MPI_SUCCESS,
              "iallreduce");
        CHECK(MPI_Ibarrier(dup, &q[1]) == MPI_SUCCESS, "ibarrier");
        CHECK(MPI_Ibcast(&bc[it], 1, MPI_INT, 0, dup, &q[2]) == MPI_SUCCESS, "ibcast");
        for (int i = 0; i < 3; i++)
            CHECK(MPI_Request_free(&q[i]) == MPI_SUCCESS && q[i] == MPI_REQUEST_NULL,
                  "request_free");
        CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS && dup == MPI_COMM_NULL, "comm_free");
        void *blk[64];
        scribble(blk, 64);
        /* The freed collectives complete from this barrier's progress: the results are
         * defined once every rank is past it (each took part in all of them). */
        CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
        for (int i = 0; i < 64; i++)
            free(blk[i]);
        int n = size * (size + 1) / 2;
        /* Their results land as progress runs them (later rounds too). */
        double t0 = MPI_Wtime();
        while ((out[it] != n || bc[it] != 77) && MPI_Wtime() - t0 < 30) {
            int f;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
        }
        CHECK(out[it] == n, "iteration %d: freed allreduce gave %d, not %d", it, out[it], n);
        CHECK(bc[it] == 77, "iteration %d: freed bcast gave %d", it, bc[it]);
    }
}

static void persistent_order(int rank)
{
    for (int it = 0; it < 4; it++) {
        int a = -1, sum = -1, one = 1;
        MPI_Request q[3];
        CHECK(MPI_Bcast_init(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]) ==
                  MPI_SUCCESS, "bcast_init");
        CHECK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]) == MPI_SUCCESS,
              "barrier_init");
        CHECK(MPI_Allreduce_init(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &q[2]) == MPI_SUCCESS, "allreduce_init");
        if (rank == 0)
            a = 42 + it;
        /* Every rank its own start order: rank r starts r%3 first. */
        for (int k = 0; k < 3; k++) {
            int i = (rank + (rank % 2 ? 3 - k : k)) % 3;
            CHECK(MPI_Start(&q[i]) == MPI_SUCCESS, "start %d", i);
        }
        CHECK(MPI_Waitall(3, q, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall");
        CHECK(a == 42 + it, "persistent bcast matched another collective: a = %d", a);
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        CHECK(sum == size, "persistent allreduce gave %d, not %d", sum, size);
        for (int i = 0; i < 3; i++)
            CHECK(MPI_Request_free(&q[i]) == MPI_SUCCESS, "request_free");
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    freed_collectives(rank, size);
    persistent_order(rank);
    MPI_Finalize();
    if (rank == 0)
        printf("coll_lifetime: ok\n");
    return 0;
}
