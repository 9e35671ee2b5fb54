/* SPDX-License-Identifier: BSD-3-Clause */
/* Topologies: Dims_create, a periodic-by-open Cartesian grid with shifts at
 * the edges, rank/coords round trips, Cart_sub, a distributed graph ring. */
#include "check.h"

/* GCC reads MPI_UNWEIGHTED ((int *)10) passed for a `const int w[]` parameter as
 * an array of size 0; the standard defines both. */
#pragma GCC diagnostic ignored "-Wstringop-overread"

static void dims_case(int n, int nd, const int *in, const int *want)
{
    int d[8];
    for (int i = 0; i < nd; i++)
        d[i] = in[i];
    CHECK_OK(MPI_Dims_create(n, nd, d));
    for (int i = 0; i < nd; i++)
        CHECK(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", n, nd, i,
              d[i], want[i]);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rank, size, r;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    dims_case(12, 2, (int[]){0, 0}, (int[]){4, 3});
    dims_case(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
    dims_case(12, 2, (int[]){0, 2}, (int[]){6, 2});
    dims_case(7, 2, (int[]){0, 0}, (int[]){7, 1});
    int d2[2] = {5, 0};
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Dims_create(12, 2, d2) == MPI_ERR_DIMS, "12 nodes with a fixed 5");
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    /* rows x 2 grid, periodic along dim 0, open along dim 1 (size even) */
    int dims[2] = {0, 2}, periods[2] = {1, 0};
    CHECK(size % 2 == 0, "run with an even number of ranks");
    CHECK_OK(MPI_Dims_create(size, 2, dims));
    MPI_Comm cart;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    int status;
    CHECK_OK(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART, "Topo_test %d", status);
    CHECK_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
    CHECK(status == MPI_UNDEFINED, "world Topo_test %d", status);
    int nd, gd[2], gp[2], c[2];
    CHECK_OK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == 2, "Cartdim_get %d", nd);
    CHECK_OK(MPI_Cart_get(cart, 2, gd, gp, c));
    CHECK(gd[0] == size / 2 && gd[1] == 2 && gp[0] == 1 && gp[1] == 0, "Cart_get dims/periods");
    CHECK(c[0] == rank / 2 && c[1] == rank % 2, "my coords (%d, %d)", c[0], c[1]);
    for (int q = 0; q < size; q++) {
        CHECK_OK(MPI_Cart_coords(cart, q, 2, c));
        CHECK_OK(MPI_Cart_rank(cart, c, &r));
        CHECK(r == q, "coords/rank round trip %d -> %d", q, r);
    }
    /* periodic dim wraps; out-of-range coordinate on the periodic dim wraps too */
    CHECK_OK(MPI_Cart_rank(cart, (int[]){-1, 0}, &r));
    CHECK(r == (size / 2 - 1) * 2, "wrapped rank %d", r);
    int src, dst;
    CHECK_OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    int rows = size / 2, row = rank / 2, col = rank % 2;
    CHECK(src == ((row - 1 + rows) % rows) * 2 + col && dst == ((row + 1) % rows) * 2 + col,
          "periodic shift: %d %d", src, dst);
    /* open dim: the edges see MPI_PROC_NULL */
    CHECK_OK(MPI_Cart_shift(cart, 1, 1, &src, &dst));
    CHECK(src == (col == 0 ? MPI_PROC_NULL : rank - 1) && dst == (col == 1 ? MPI_PROC_NULL : rank + 1),
          "open shift at col %d: %d %d", col, src, dst);
    CHECK_OK(MPI_Cart_shift(cart, 1, 2, &src, &dst));
    CHECK(src == MPI_PROC_NULL && dst == MPI_PROC_NULL, "shift by 2 on a width-2 open dim");
    CHECK_OK(MPI_Cart_shift(cart, 0, -rows, &src, &dst));
    CHECK(src == rank && dst == rank, "periodic shift by the full length");

    /* sub: keep dim 1 -> rows of 2 */
    MPI_Comm sub;
    CHECK_OK(MPI_Cart_sub(cart, (int[]){0, 1}, &sub));
    int s;
    CHECK_OK(MPI_Comm_size(sub, &s));
    CHECK_OK(MPI_Comm_rank(sub, &r));
    CHECK(s == 2 && r == col, "Cart_sub: rank %d size %d", r, s);
    CHECK_OK(MPI_Cartdim_get(sub, &nd));
    CHECK(nd == 1, "Cart_sub ndims %d", nd);
    CHECK_OK(MPI_Comm_free(&sub));

    /* a dup keeps the topology */
    MPI_Comm cdup;
    CHECK_OK(MPI_Comm_dup(cart, &cdup));
    CHECK_OK(MPI_Cart_shift(cdup, 1, 1, &src, &dst));
    CHECK(src == (col == 0 ? MPI_PROC_NULL : rank - 1), "dup of cart shift");
    CHECK_OK(MPI_Comm_free(&cdup));
    CHECK_OK(MPI_Comm_free(&cart));

    /* distributed graph: a directed ring, weighted */
    MPI_Comm ring;
    int from = (rank - 1 + size) % size, to = (rank + 1) % size, wi = 10 + from, wo = 10 + rank;
    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, &wi, 1, &to, &wo,
                                            MPI_INFO_NULL, 0, &ring));
    CHECK_OK(MPI_Topo_test(ring, &status));
    CHECK(status == MPI_DIST_GRAPH, "ring Topo_test %d", status);
    int indeg, outdeg, weighted;
    CHECK_OK(MPI_Dist_graph_neighbors_count(ring, &indeg, &outdeg, &weighted));
    CHECK(indeg == 1 && outdeg == 1 && weighted, "neighbors_count %d %d %d", indeg, outdeg,
          weighted);
    int gi, go, gwi, gwo;
    CHECK_OK(MPI_Dist_graph_neighbors(ring, 1, &gi, &gwi, 1, &go, &gwo));
    CHECK(gi == from && go == to && gwi == wi && gwo == wo, "neighbors");
    CHECK_OK(MPI_Comm_free(&ring));
    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring));
    CHECK_OK(MPI_Dist_graph_neighbors_count(ring, &indeg, &outdeg, &weighted));
    CHECK(indeg == 0 && outdeg == 0 && !weighted, "empty unweighted graph");
    CHECK_OK(MPI_Comm_free(&ring));
    CHECK_OK(MPI_Finalize());
    return 0;
}
