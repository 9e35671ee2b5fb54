/* SPDX-License-Identifier: BSD-3-Clause */
/* The large-count persistent collectives (MPI_<Coll>_init_c) and MPI_Ireduce_scatter_c:
 * results over two starts (the data changes between them), the count arrays freed by
 * the caller after init (MPI keeps them valid, we check our copies), and a count past an
 * int refused with MPI_ERR_COUNT. */
#include <limits.h>
#include <string.h>

#include "check.h"

enum { K = 3 }; /* elements per rank */

static int rank, size;

static void run(MPI_Request *r, const char *what)
{
    for (int round = 0; round < 2; round++) {
        CHECK_OK(MPI_Start(r));
        CHECK_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
        (void)what;
    }
}

static MPI_Count *counts(MPI_Count v)
{
    MPI_Count *c = malloc(sizeof(*c) * (size_t)size);
    for (int i = 0; i < size; i++)
        c[i] = v;
    return c;
}

static MPI_Aint *displs(MPI_Aint step)
{
    MPI_Aint *d = malloc(sizeof(*d) * (size_t)size);
    for (int i = 0; i < size; i++)
        d[i] = step * i;
    return d;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info ni = MPI_INFO_NULL;
    int n = size * K;
    int *s = malloc(sizeof(int) * (size_t)n), *d = malloc(sizeof(int) * (size_t)n);
    MPI_Request r;
    for (int i = 0; i < n; i++)
        s[i] = rank * 1000 + i;

    /* Bcast, Allreduce, Reduce, Scan, Exscan, Reduce_scatter_block. */
    memcpy(d, s, sizeof(int) * K);
    CHECK_OK(MPI_Bcast_init_c(d, K, MPI_INT, 1 % size, w, ni, &r));
    run(&r, "bcast");
    for (int i = 0; i < K; i++)
        CHECK(d[i] == (1 % size) * 1000 + i, "bcast [%d] = %d", i, d[i]);
    CHECK_OK(MPI_Request_free(&r));

    CHECK_OK(MPI_Allreduce_init_c(s, d, K, MPI_INT, MPI_SUM, w, ni, &r));
    run(&r, "allreduce");
    for (int i = 0; i < K; i++)
        CHECK(d[i] == 1000 * size * (size - 1) / 2 + size * i, "allreduce [%d] = %d", i, d[i]);
    CHECK_OK(MPI_Request_free(&r));

    memset(d, 0, sizeof(int) * K);
    CHECK_OK(MPI_Reduce_init_c(s, d, K, MPI_INT, MPI_MAX, 0, w, ni, &r));
    run(&r, "reduce");
    if (rank == 0)
        for (int i = 0; i < K; i++)
            CHECK(d[i] == (size - 1) * 1000 + i, "reduce [%d] = %d", i, d[i]);
    CHECK_OK(MPI_Request_free(&r));

    CHECK_OK(MPI_Scan_init_c(s, d, K, MPI_INT, MPI_SUM, w, ni, &r));
    run(&r, "scan");
    for (int i = 0; i < K; i++)
        CHECK(d[i] == 1000 * rank * (rank + 1) / 2 + (rank + 1) * i, "scan [%d] = %d", i, d[i]);
    CHECK_OK(MPI_Request_free(&r));

    CHECK_OK(MPI_Exscan_init_c(s, d, K, MPI_INT, MPI_SUM, w, ni, &r));
    run(&r, "exscan");
    if (rank > 0)
        for (int i = 0; i < K; i++)
            CHECK(d[i] == 1000 * (rank - 1) * rank / 2 + rank * i, "exscan [%d] = %d", i, d[i]);
    CHECK_OK(MPI_Request_free(&r));

    CHECK_OK(MPI_Reduce_scatter_block_init_c(s, d, K, MPI_INT, MPI_SUM, w, ni, &r));
    run(&r, "reduce_scatter_block");
    for (int i = 0; i < K; i++)
        CHECK(d[i] == 1000 * size * (size - 1) / 2 + size * (rank * K + i),
              "reduce_scatter_block [%d] = %d", i, d[i]);
    CHECK_OK(MPI_Request_free(&r));

    MPI_Count *rc = counts(K);
    CHECK_OK(MPI_Reduce_scatter_init_c(s, d, rc, MPI_INT, MPI_SUM, w, ni, &r));
    free(rc);
    run(&r, "reduce_scatter");
    for (int i = 0; i < K; i++)
        CHECK(d[i] == 1000 * size * (size - 1) / 2 + size * (rank * K + i),
              "reduce_scatter [%d] = %d", i, d[i]);
    CHECK_OK(MPI_Request_free(&r));

    rc = counts(K);
    memset(d, 0, sizeof(int) * K);
    CHECK_OK(MPI_Ireduce_scatter_c(s, d, rc, MPI_INT, MPI_SUM, w, &r));
    free(rc);
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < K; i++)
        CHECK(d[i] == 1000 * size * (size - 1) / 2 + size * (rank * K + i),
              "ireduce_scatter_c [%d] = %d", i, d[i]);

    /* Gathers and scatters: element i of rank j's K is j * 1000 + i. */
    CHECK_OK(MPI_Allgather_init_c(s, K, MPI_INT, d, K, MPI_INT, w, ni, &r));
    run(&r, "allgather");
    for (int j = 0; j < size; j++)
        for (int i = 0; i < K; i++)
            CHECK(d[j * K + i] == j * 1000 + i, "allgather [%d][%d] = %d", j, i, d[j * K + i]);
    CHECK_OK(MPI_Request_free(&r));

    memset(d, 0, sizeof(int) * (size_t)n);
    rc = counts(K);
    MPI_Aint *dp = displs(K);
    CHECK_OK(MPI_Allgatherv_init_c(s, K, MPI_INT, d, rc, dp, MPI_INT, w, ni, &r));
    free(rc);
    free(dp);
    run(&r, "allgatherv");
    for (int j = 0; j < size; j++)
        for (int i = 0; i < K; i++)
            CHECK(d[j * K + i] == j * 1000 + i, "allgatherv [%d][%d] = %d", j, i, d[j * K + i]);
    CHECK_OK(MPI_Request_free(&r));

    memset(d, 0, sizeof(int) * (size_t)n);
    CHECK_OK(MPI_Gather_init_c(s, K, MPI_INT, d, K, MPI_INT, 0, w, ni, &r));
    run(&r, "gather");
    if (rank == 0)
        for (int j = 0; j < size; j++)
            CHECK(d[j * K] == j * 1000, "gather [%d] = %d", j, d[j * K]);
    CHECK_OK(MPI_Request_free(&r));

    memset(d, 0, sizeof(int) * (size_t)n);
    rc = rank == 0 ? counts(K) : NULL; /* significant at the root only */
    dp = rank == 0 ? displs(K) : NULL;
    CHECK_OK(MPI_Gatherv_init_c(s, K, MPI_INT, d, rc, dp, MPI_INT, 0, w, ni, &r));
    free(rc);
    free(dp);
    run(&r, "gatherv");
    if (rank == 0)
        for (int j = 0; j < size; j++)
            CHECK(d[j * K + 1] == j * 1000 + 1, "gatherv [%d] = %d", j, d[j * K + 1]);
    CHECK_OK(MPI_Request_free(&r));

    CHECK_OK(MPI_Scatter_init_c(s, K, MPI_INT, d, K, MPI_INT, 0, w, ni, &r));
    run(&r, "scatter");
    for (int i = 0; i < K; i++)
        CHECK(d[i] == rank * K + i, "scatter [%d] = %d", i, d[i]);
    CHECK_OK(MPI_Request_free(&r));

    rc = rank == 0 ? counts(K) : NULL;
    dp = rank == 0 ? displs(K) : NULL;
    memset(d, 0, sizeof(int) * K);
    CHECK_OK(MPI_Scatterv_init_c(s, rc, dp, MPI_INT, d, K, MPI_INT, 0, w, ni, &r));
    free(rc);
    free(dp);
    run(&r, "scatterv");
    for (int i = 0; i < K; i++)
        CHECK(d[i] == rank * K + i, "scatterv [%d] = %d", i, d[i]);
    CHECK_OK(MPI_Request_free(&r));

    /* Alltoall: block j of rank i's send goes to rank j's block i. */
    CHECK_OK(MPI_Alltoall_init_c(s, K, MPI_INT, d, K, MPI_INT, w, ni, &r));
    run(&r, "alltoall");
    for (int j = 0; j < size; j++)
        CHECK(d[j * K] == j * 1000 + rank * K, "alltoall [%d] = %d", j, d[j * K]);
    CHECK_OK(MPI_Request_free(&r));

    memset(d, 0, sizeof(int) * (size_t)n);
    rc = counts(K);
    dp = displs(K);
    CHECK_OK(MPI_Alltoallv_init_c(s, rc, dp, MPI_INT, d, rc, dp, MPI_INT, w, ni, &r));
    free(rc);
    free(dp);
    run(&r, "alltoallv");
    for (int j = 0; j < size; j++)
        CHECK(d[j * K + 2] == j * 1000 + rank * K + 2, "alltoallv [%d] = %d", j, d[j * K + 2]);
    CHECK_OK(MPI_Request_free(&r));

    memset(d, 0, sizeof(int) * (size_t)n);
    rc = counts(K);
    dp = displs(K * (MPI_Aint)sizeof(int)); /* alltoallw: bytes */
    MPI_Datatype *ty = malloc(sizeof(*ty) * (size_t)size);
    for (int i = 0; i < size; i++)
        ty[i] = MPI_INT;
    CHECK_OK(MPI_Alltoallw_init_c(s, rc, dp, ty, d, rc, dp, ty, w, ni, &r));
    free(rc);
    free(dp);
    run(&r, "alltoallw");
    for (int j = 0; j < size; j++)
        CHECK(d[j * K + 1] == j * 1000 + rank * K + 1, "alltoallw [%d] = %d", j, d[j * K + 1]);
    CHECK_OK(MPI_Request_free(&r));
    free(ty);

    /* Past an int: MPI_ERR_COUNT (nothing is read or started). */
    int cls;
    MPI_Count big = (MPI_Count)INT_MAX + 1;
    r = MPI_REQUEST_NULL;
    MPI_Error_class(MPI_Allreduce_init_c(s, d, big, MPI_INT, MPI_SUM, w, ni, &r), &cls);
    CHECK(cls == MPI_ERR_COUNT && r == MPI_REQUEST_NULL, "Allreduce_init_c big count: %d", cls);
    rc = counts(K);
    rc[size - 1] = big;
    MPI_Error_class(MPI_Reduce_scatter_init_c(s, d, rc, MPI_INT, MPI_SUM, w, ni, &r), &cls);
    CHECK(cls == MPI_ERR_COUNT, "Reduce_scatter_init_c big count: %d", cls);
    MPI_Error_class(MPI_Ireduce_scatter_c(s, d, rc, MPI_INT, MPI_SUM, w, &r), &cls);
    CHECK(cls == MPI_ERR_COUNT, "Ireduce_scatter_c big count: %d", cls);
    free(rc);
    free(s);
    free(d);
    MPI_Finalize();
    return 0;
}
