/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbour collectives: a periodic 1-D cartesian ring (at 2 ranks both neighbours are
 * the same rank: the blocks must still arrive in the right slots) and a distributed graph
 * (each rank sends to rank+1 and rank+2), blocking and nonblocking, data checked. */
#include "check.h"

static int rank, size;

static void test_cart(void)
{
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    int mine = 100 + rank, got[2] = {-1, -1};
    CHECK_OK(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, ring));
    CHECK(got[0] == 100 + left && got[1] == 100 + right, "cart allgather: %d %d", got[0], got[1]);
    /* alltoall: block 0 goes to the -1 neighbour, block 1 to the +1 neighbour */
    int out[2] = {rank * 10 + 0, rank * 10 + 1};
    MPI_Request req;
    CHECK_OK(MPI_Ineighbor_alltoall(out, 1, MPI_INT, got, 1, MPI_INT, ring, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    /* from the -1 neighbour: what it sent in its +1 direction */
    CHECK(got[0] == left * 10 + 1 && got[1] == right * 10 + 0, "cart alltoall: %d %d", got[0],
          got[1]);
    MPI_Comm_free(&ring);
}

static void test_graph(void)
{
    MPI_Comm g;
    int dst[2] = {(rank + 1) % size, (rank + 2) % size};
    int src[2] = {(rank - 1 + size) % size, (rank - 2 + 2 * size) % size};
    int w[2] = {1, 1};
    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, w, 2, dst, w,
                                            MPI_INFO_NULL, 0, &g));
    int sc[2] = {1, 2}, sd[2] = {0, 1}, rc[2] = {1, 2}, rd[2] = {3, 0};
    int out[3] = {rank, rank * 2, rank * 3}, in[5] = {-1, -1, -1, -1, -1};
    /* to rank+1: 1 int (out[0]); to rank+2: 2 ints (out[1..2]) */
    CHECK_OK(MPI_Neighbor_alltoallv(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, g));
    int s1 = src[0], s2 = src[1];
    CHECK(in[3] == s1 && in[0] == s2 * 2 && in[1] == s2 * 3, "graph alltoallv: %d %d %d", in[3],
          in[0], in[1]);
    int counts[2] = {1, 1}, displs[2] = {1, 0}, got[2];
    CHECK_OK(MPI_Neighbor_allgatherv(&out[0], 1, MPI_INT, got, counts, displs, MPI_INT, g));
    CHECK(got[1] == s1 && got[0] == s2, "graph allgatherv");
    MPI_Comm_free(&g);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_cart();
    test_graph();
    CHECK_OK(MPI_Finalize());
    return 0;
}
