/* SPDX-License-Identifier: BSD-3-Clause */
/* Data-moving collectives with uneven counts (some zero), IN_PLACE, a derived receive
 * type (vector), alltoallw with per-peer types, reduce_scatter with counts, and the
 * nonblocking forms; the data is checked everywhere. */
#include <string.h>

#include "check.h"

static int rank, size;

static int val(int from, int to, int i)
{
    return from * 1000 + to * 100 + i;
}

static void test_gatherv_scatterv(void)
{
    int root = size - 1, *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int total = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = (r * 3) % 4; /* 0, 3, 2, 1, ... */
        displs[r] = total + r;  /* gaps between blocks */
        total += counts[r] + r;
    }
    int *mine = malloc(4 * sizeof(int)), *all = malloc((total + 1) * sizeof(int));
    for (int i = 0; i < counts[rank]; i++)
        mine[i] = val(rank, root, i);
    for (int i = 0; i <= total; i++)
        all[i] = -1;
    CHECK_OK(MPI_Gatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root,
                         MPI_COMM_WORLD));
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < counts[r]; i++)
                CHECK(all[displs[r] + i] == val(r, root, i), "gatherv block %d item %d", r, i);
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < counts[r]; i++)
                all[displs[r] + i] = val(root, r, i);
    memset(mine, 0, 4 * sizeof(int));
    CHECK_OK(MPI_Scatterv(all, counts, displs, MPI_INT, mine, counts[rank], MPI_INT, root,
                          MPI_COMM_WORLD));
    for (int i = 0; i < counts[rank]; i++)
        CHECK(mine[i] == val(root, rank, i), "scatterv item %d", i);
    /* nonblocking */
    MPI_Request req;
    for (int i = 0; i < counts[rank]; i++)
        mine[i] = val(rank, root, i) + 7;
    CHECK_OK(MPI_Igatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root,
                          MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < counts[r]; i++)
                CHECK(all[displs[r] + i] == val(r, root, i) + 7, "igatherv");
    free(mine);
    free(all);
    free(counts);
    free(displs);
}

static void test_allgatherv(void)
{
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int)), total = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = r + 1;
        displs[r] = total;
        total += counts[r];
    }
    int *all = malloc(total * sizeof(int)), *mine = malloc(size * sizeof(int));
    for (int i = 0; i < counts[rank]; i++)
        mine[i] = val(rank, 0, i);
    CHECK_OK(MPI_Allgatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT,
                            MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < counts[r]; i++)
            CHECK(all[displs[r] + i] == val(r, 0, i), "allgatherv");
    memset(all, 0, total * sizeof(int));
    for (int i = 0; i < counts[rank]; i++)
        all[displs[rank] + i] = val(rank, 1, i);
    CHECK_OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_INT,
                            MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < counts[r]; i++)
            CHECK(all[displs[r] + i] == val(r, 1, i), "allgatherv in place");
    MPI_Request req;
    CHECK_OK(MPI_Iallgatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT,
                             MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < counts[r]; i++)
            CHECK(all[displs[r] + i] == val(r, 0, i), "iallgatherv");
    /* a strided receive type: every other int */
    MPI_Datatype every2;
    CHECK_OK(MPI_Type_vector(1, 1, 2, MPI_INT, &every2));
    MPI_Datatype every2r;
    CHECK_OK(MPI_Type_create_resized(every2, 0, 2 * sizeof(int), &every2r));
    CHECK_OK(MPI_Type_commit(&every2r));
    int *wide = calloc(2 * total, sizeof(int));
    CHECK_OK(MPI_Allgatherv(mine, counts[rank], MPI_INT, wide, counts, displs, every2r,
                            MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < counts[r]; i++)
            CHECK(wide[2 * (displs[r] + i)] == val(r, 0, i) && wide[2 * (displs[r] + i) + 1] == 0,
                  "allgatherv into a strided type");
    MPI_Type_free(&every2);
    MPI_Type_free(&every2r);
    free(wide);
    free(all);
    free(mine);
    free(counts);
    free(displs);
}

/* Equal counts, displacements that differ between ranks: packed in rank order on rank 0,
 * reversed with gaps elsewhere (the algorithm must not depend on them: a hang before).
 * Small blocks and blocks over several pieces of scratch; in place too; alltoallv in
 * place with the same spread displacements. */
static void test_equal_counts_spread(int count)
{
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int span = rank == 0 ? count : count + 5;
    for (int r = 0; r < size; r++) {
        counts[r] = count;
        displs[r] = rank == 0 ? r * count : (size - 1 - r) * span + 3;
    }
    size_t total = (size_t)size * span + 3;
    int *all = malloc(total * sizeof(int)), *mine = malloc(count * sizeof(int));
    for (int i = 0; i < count; i++)
        mine[i] = val(rank, 0, i % 97) + i / 97;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < total; i++)
            all[i] = -1;
        if (pass == 1)
            memcpy(all + displs[rank], mine, count * sizeof(int));
        CHECK_OK(MPI_Allgatherv(pass ? MPI_IN_PLACE : mine, count, MPI_INT, all, counts, displs,
                                MPI_INT, MPI_COMM_WORLD));
        size_t used = 0;
        for (int r = 0; r < size; r++) {
            for (int i = 0; i < count; i++)
                CHECK(all[displs[r] + i] == val(r, 0, i % 97) + i / 97,
                      "allgatherv spread (count %d, pass %d): block %d item %d", count, pass, r, i);
            used += count;
        }
        size_t untouched = 0;
        for (size_t i = 0; i < total; i++)
            untouched += all[i] == -1;
        CHECK(untouched == total - used, "allgatherv spread wrote outside its blocks");
    }
    for (int r = 0; r < size; r++)
        for (int i = 0; i < count; i++)
            all[displs[r] + i] = val(rank, r, i % 97) + i / 97;
    CHECK_OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, all, counts, displs,
                           MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < count; i++)
            CHECK(all[displs[r] + i] == val(r, rank, i % 97) + i / 97,
                  "alltoallv in place spread (count %d): block %d item %d", count, r, i);
    free(all);
    free(mine);
    free(counts);
    free(displs);
}

static void test_alltoallvw(void)
{
    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    int st = 0, rt = 0;
    for (int p = 0; p < size; p++) {
        sc[p] = (rank + p) % 3; /* to p */
        rc[p] = (p + rank) % 3; /* from p: what p sends to me */
        sd[p] = st;
        rd[p] = rt;
        st += sc[p];
        rt += rc[p];
    }
    int *sb = malloc((st + 1) * sizeof(int)), *rb = malloc((rt + 1) * sizeof(int));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < sc[p]; i++)
            sb[sd[p] + i] = val(rank, p, i);
    CHECK_OK(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < rc[p]; i++)
            CHECK(rb[rd[p] + i] == val(p, rank, i), "alltoallv from %d item %d", p, i);
    memset(rb, 0, (rt + 1) * sizeof(int));
    MPI_Request req;
    CHECK_OK(MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < rc[p]; i++)
            CHECK(rb[rd[p] + i] == val(p, rank, i), "ialltoallv");
    /* alltoallw: byte displacements, the same data as ints */
    MPI_Datatype *types = malloc(size * sizeof(MPI_Datatype));
    int *sdb = malloc(size * sizeof(int)), *rdb = malloc(size * sizeof(int));
    for (int p = 0; p < size; p++) {
        types[p] = MPI_INT;
        sdb[p] = sd[p] * (int)sizeof(int);
        rdb[p] = rd[p] * (int)sizeof(int);
    }
    memset(rb, 0, (rt + 1) * sizeof(int));
    CHECK_OK(MPI_Alltoallw(sb, sc, sdb, types, rb, rc, rdb, types, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < rc[p]; i++)
            CHECK(rb[rd[p] + i] == val(p, rank, i), "alltoallw");
    free(types);
    free(sdb);
    free(rdb);
    free(sb);
    free(rb);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

static void test_regular(void)
{
    int *all = malloc(2 * size * sizeof(int)), two[2] = {val(rank, 0, 0), val(rank, 0, 1)};
    CHECK_OK(MPI_Allgather(two, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        CHECK(all[2 * r] == val(r, 0, 0) && all[2 * r + 1] == val(r, 0, 1), "allgather");
    for (int p = 0; p < 2 * size; p++)
        all[p] = val(rank, p / 2, p % 2);
    CHECK_OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        CHECK(all[2 * p] == val(p, rank, 0) && all[2 * p + 1] == val(p, rank, 1),
              "alltoall in place");
    if (rank == 0)
        for (int p = 0; p < 2 * size; p++)
            all[p] = val(0, p / 2, p % 2);
    CHECK_OK(MPI_Scatter(all, 2, MPI_INT, rank == 0 ? MPI_IN_PLACE : two, 2, MPI_INT, 0,
                         MPI_COMM_WORLD));
    if (rank != 0)
        CHECK(two[0] == val(0, rank, 0) && two[1] == val(0, rank, 1), "scatter");
    MPI_Request req;
    two[0] = rank;
    two[1] = -rank;
    CHECK_OK(MPI_Igather(two, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank == 0)
        for (int r = 0; r < size; r++)
            CHECK(all[2 * r] == r && all[2 * r + 1] == -r, "igather");
    int x = rank + 1, y = 0;
    CHECK_OK(MPI_Ireduce(&x, &y, 1, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(rank != size - 1 || y == size * (size + 1) / 2, "ireduce");
    CHECK_OK(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(y == (rank + 1) * (rank + 2) / 2, "iscan");
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    free(all);
}

static void test_reduce_scatter(void)
{
    int *counts = malloc(size * sizeof(int)), total = 0;
    for (int r = 0; r < size; r++)
        total += counts[r] = (r % 2) + r;
    int *in = malloc((total + 1) * sizeof(int)), out[64];
    for (int i = 0; i < total; i++)
        in[i] = i * (rank + 1);
    CHECK_OK(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int off = 0;
    for (int r = 0; r < rank; r++)
        off += counts[r];
    for (int i = 0; i < counts[rank]; i++)
        CHECK(out[i] == (off + i) * size * (size + 1) / 2, "reduce_scatter item %d", i);
    MPI_Request req;
    CHECK_OK(MPI_Ireduce_scatter(in, out, counts, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < counts[rank]; i++)
        CHECK(out[i] == (off + i) * size, "ireduce_scatter item %d", i);
    free(in);
    free(counts);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_gatherv_scatterv();
    test_allgatherv();
    test_equal_counts_spread(3);
    test_equal_counts_spread(700 * 256); /* 700 KiB: over several pieces of scratch */
    test_alltoallvw();
    test_regular();
    test_reduce_scatter();
    CHECK_OK(MPI_Finalize());
    return 0;
}
