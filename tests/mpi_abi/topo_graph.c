/* SPDX-License-Identifier: BSD-3-Clause */
/* Graph and distributed-graph topologies at 4 ranks, and what the other topology calls
 * answer: MPI_Graph_create with a duplicate edge and a self loop (get, dims, neighbours
 * of every node, map, a smaller graph leaving ranks out, an empty graph, bad index and
 * edges refused with their classes), MPI_Dist_graph_create in its general form (edges
 * given by ranks other than their ends, duplicates, weights; every rank's lists checked
 * against the order the edges were given in), MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY,
 * MPI_Dist_graph_neighbors on Cartesian and graph communicators, MPI_Dims_create's
 * balance (MPICH's topo/dims5 answers), MPI_Comm_split_type's hardware kinds. */
#include <string.h>

#include "check.h"

/* MPI_UNWEIGHTED ((int *)10) read by GCC as an array of size 0 */
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

static int rank, size;

/* 4 nodes: 0-1 twice (a duplicate edge), 1-2, 2-3, 3-3 (a self loop), 0-3. */
static const int g_index[4] = {3, 6, 8, 11};
static const int g_edges[11] = {1, 1, 3, /**/ 0, 0, 2, /**/ 1, 3, /**/ 2, 3, 0};

static void test_graph(void)
{
    MPI_Comm g;
    int status, nn, ne, idx[4], edg[11], nb[8], cnt, nr;
    CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, 4, g_index, g_edges, 1, &g));
    CHECK_OK(MPI_Topo_test(g, &status));
    CHECK(status == MPI_GRAPH, "Topo_test %d", status);
    CHECK_OK(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(nn == 4 && ne == 11, "Graphdims_get %d %d", nn, ne);
    CHECK_OK(MPI_Graph_get(g, 4, 11, idx, edg));
    CHECK(!memcmp(idx, g_index, sizeof(idx)) && !memcmp(edg, g_edges, sizeof(edg)),
          "Graph_get");
    for (int r = 0; r < 4; r++) {
        int lo = r ? g_index[r - 1] : 0;
        CHECK_OK(MPI_Graph_neighbors_count(g, r, &cnt));
        CHECK(cnt == g_index[r] - lo, "Graph_neighbors_count(%d) %d", r, cnt);
        CHECK_OK(MPI_Graph_neighbors(g, r, 8, nb));
        CHECK(!memcmp(nb, g_edges + lo, (size_t)cnt * sizeof(int)), "Graph_neighbors(%d)", r);
    }
    /* the dist-graph view of a graph: its own list both ways, unweighted */
    int in, out, w, src[8], dst[8];
    CHECK_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    int lo = rank ? g_index[rank - 1] : 0, deg = g_index[rank] - lo;
    CHECK(in == deg && out == deg && !w, "Dist_graph_neighbors_count on a graph");
    CHECK_OK(MPI_Dist_graph_neighbors(g, 8, src, MPI_UNWEIGHTED, 8, dst, MPI_UNWEIGHTED));
    CHECK(!memcmp(src, g_edges + lo, (size_t)deg * sizeof(int)) &&
              !memcmp(dst, g_edges + lo, (size_t)deg * sizeof(int)),
          "Dist_graph_neighbors on a graph");
    /* a dup keeps the graph */
    MPI_Comm d;
    CHECK_OK(MPI_Comm_dup(g, &d));
    CHECK_OK(MPI_Graph_neighbors(d, 3, 8, nb));
    CHECK(nb[0] == 2 && nb[1] == 3 && nb[2] == 0, "dup's graph");
    CHECK_OK(MPI_Graph_map(MPI_COMM_WORLD, 3, g_index, g_edges, &nr));
    CHECK(nr == (rank < 3 ? rank : MPI_UNDEFINED), "Graph_map %d", nr);
    MPI_Comm_free(&d);
    MPI_Comm_free(&g);

    /* 2 nodes: ranks 2 and 3 are left out; 0 nodes: everyone is */
    int i2[2] = {1, 2}, e2[2] = {1, 0};
    CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, 2, i2, e2, 0, &g));
    CHECK((g == MPI_COMM_NULL) == (rank >= 2), "2-node graph on rank %d", rank);
    if (g != MPI_COMM_NULL) {
        CHECK_OK(MPI_Comm_size(g, &nr));
        CHECK(nr == 2, "2-node graph of size %d", nr);
        MPI_Comm_free(&g);
    }
    CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &g));
    CHECK(g == MPI_COMM_NULL, "empty graph");

    /* errors, returned */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int bad_index[2] = {2, 1}, bad_edges[2] = {1, 5}, ecls;
    MPI_Error_class(MPI_Graph_create(MPI_COMM_WORLD, 2, bad_index, e2, 0, &g), &ecls);
    CHECK(ecls == MPI_ERR_ARG, "decreasing index: class %d", ecls);
    MPI_Error_class(MPI_Graph_create(MPI_COMM_WORLD, 2, i2, bad_edges, 0, &g), &ecls);
    CHECK(ecls == MPI_ERR_TOPOLOGY, "edge outside the graph: class %d", ecls);
    int i5[5] = {1, 2, 3, 4, 5}, e5[5] = {0, 1, 2, 3, 4};
    MPI_Error_class(MPI_Graph_create(MPI_COMM_WORLD, size + 1, i5, e5, 0, &g), &ecls);
    CHECK(ecls == MPI_ERR_ARG, "more nodes than ranks: class %d", ecls);
    MPI_Error_class(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &cnt), &ecls);
    CHECK(ecls == MPI_ERR_TOPOLOGY, "Graph_neighbors_count without a graph: class %d", ecls);
    MPI_Error_class(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out, &w), &ecls);
    CHECK(ecls == MPI_ERR_TOPOLOGY, "Dist_graph_neighbors_count without topology: %d", ecls);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* The general dist graph: rank r gives the edges (r+1)%4 -> (r+2)%4 and, twice,
 * (r+3)%4 -> r with weights 10r+k for its k-th edge, and rank 0 adds a self loop 0->0. */
#define DG_MAX 8
static int dg_edges(int r, int *s, int *d, int *w)
{
    int n = 0;
    s[n] = (r + 1) % 4, d[n] = (r + 2) % 4, n++;
    s[n] = (r + 3) % 4, d[n] = r, n++;
    s[n] = (r + 3) % 4, d[n] = r, n++;
    if (r == 0)
        s[n] = 0, d[n] = 0, n++;
    for (int k = 0; k < n; k++)
        w[k] = 10 * r + k;
    return n;
}

static void test_dist(void)
{
    int s[DG_MAX], d[DG_MAX], w[DG_MAX], ones[DG_MAX];
    int n = dg_edges(rank, s, d, w);
    for (int k = 0; k < n; k++)
        ones[k] = 1;
    MPI_Info info;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "unknown_hint", "ignored"));
    MPI_Comm g;
    /* one source per edge, degree 1 each (the array form that names the same source twice) */
    CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, s, ones, d, w, info, 1, &g));
    MPI_Info_free(&info);
    int status;
    CHECK_OK(MPI_Topo_test(g, &status));
    CHECK(status == MPI_DIST_GRAPH, "Topo_test %d", status);
    /* expected: every rank's given edges, in rank order, each in the order given */
    int ein[4 * DG_MAX], einw[4 * DG_MAX], eout[4 * DG_MAX], eoutw[4 * DG_MAX], ni = 0, no = 0;
    for (int r = 0; r < size; r++) {
        int rs[DG_MAX], rd[DG_MAX], rw[DG_MAX], rn = dg_edges(r, rs, rd, rw);
        for (int k = 0; k < rn; k++) {
            if (rs[k] == rank)
                eout[no] = rd[k], eoutw[no++] = rw[k];
            if (rd[k] == rank)
                ein[ni] = rs[k], einw[ni++] = rw[k];
        }
    }
    int in, out, wt, src[4 * DG_MAX], srcw[4 * DG_MAX], dst[4 * DG_MAX], dstw[4 * DG_MAX];
    CHECK_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &wt));
    CHECK(in == ni && out == no && wt, "counts %d %d %d, expected %d %d 1", in, out, wt, ni, no);
    CHECK_OK(MPI_Dist_graph_neighbors(g, in, src, srcw, out, dst, dstw));
    for (int i = 0; i < in; i++)
        CHECK(src[i] == ein[i] && srcw[i] == einw[i], "in edge %d: %d (w %d), expected %d (%d)",
              i, src[i], srcw[i], ein[i], einw[i]);
    for (int i = 0; i < out; i++)
        CHECK(dst[i] == eout[i] && dstw[i] == eoutw[i], "out edge %d: %d (w %d), expected %d (%d)",
              i, dst[i], dstw[i], eout[i], eoutw[i]);
    /* two calls give the same lists */
    int src2[4 * DG_MAX], dst2[4 * DG_MAX];
    CHECK_OK(MPI_Dist_graph_neighbors(g, in, src2, MPI_UNWEIGHTED, out, dst2, MPI_UNWEIGHTED));
    CHECK(!memcmp(src, src2, (size_t)in * sizeof(int)) && !memcmp(dst, dst2, (size_t)out * 4),
          "second Dist_graph_neighbors");
    MPI_Comm_free(&g);

    /* unweighted, edges given only by rank 0 (others give none: MPI_WEIGHTS_EMPTY is
     * then no different from MPI_UNWEIGHTED for them), a ring 0->1->2->3->0 */
    int rs[1] = {0}, rdeg[1] = {4}, rd[4] = {1, 2, 3, 0};
    int ring_s[4] = {0, 1, 2, 3}, ring_deg[4] = {1, 1, 1, 1};
    (void)rs;
    (void)rdeg;
    CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? 4 : 0, ring_s, ring_deg, rd,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    CHECK_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &wt));
    CHECK(in == 1 && out == 1 && !wt, "ring counts %d %d %d", in, out, wt);
    CHECK_OK(MPI_Dist_graph_neighbors(g, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED));
    CHECK(src[0] == (rank + 3) % 4 && dst[0] == (rank + 1) % 4, "ring lists %d %d", src[0],
          dst[0]);
    MPI_Comm_free(&g);
    /* weighted with no edge anywhere: MPI_WEIGHTS_EMPTY */
    CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY,
                                   MPI_INFO_NULL, 0, &g));
    CHECK_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &wt));
    CHECK(in == 0 && out == 0 && wt, "empty weighted graph %d %d %d", in, out, wt);
    MPI_Comm_free(&g);

    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int bad_d[1] = {size}, one[1] = {1}, zero[1] = {0}, ecls;
    MPI_Error_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, zero, one, bad_d, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &g), &ecls);
    CHECK(ecls == MPI_ERR_RANK, "destination outside the communicator: class %d", ecls);
    MPI_Error_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, zero, one, zero, MPI_WEIGHTS_EMPTY,
                                          MPI_INFO_NULL, 0, &g), &ecls);
    CHECK(ecls == MPI_ERR_ARG, "MPI_WEIGHTS_EMPTY for an edge: class %d", ecls);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Dist_graph_neighbors on a 2x2 grid, periodic along dim 0 only: the neighbourhood
 * collectives' order, MPI_PROC_NULL past the open edge. */
static void test_cart_view(void)
{
    int dims[2] = {2, 2}, periods[2] = {1, 0};
    MPI_Comm c;
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    int in, out, w, src[4], dst[4], x = rank / 2, y = rank % 2;
    CHECK_OK(MPI_Dist_graph_neighbors_count(c, &in, &out, &w));
    CHECK(in == 4 && out == 4 && !w, "cart counts %d %d %d", in, out, w);
    CHECK_OK(MPI_Dist_graph_neighbors(c, 4, src, MPI_UNWEIGHTED, 4, dst, MPI_UNWEIGHTED));
    int other = (1 - x) * 2 + y;
    int want[4] = {other, other, y == 0 ? MPI_PROC_NULL : rank - 1,
                   y == 1 ? MPI_PROC_NULL : rank + 1};
    for (int i = 0; i < 4; i++)
        CHECK(src[i] == want[i] && dst[i] == want[i], "cart neighbour %d: %d %d, expected %d", i,
              src[i], dst[i], want[i]);
    MPI_Comm_free(&c);
}

static void dims_case(int n, int nd, const int *want)
{
    int d[16] = {0};
    CHECK_OK(MPI_Dims_create(n, nd, d));
    for (int i = 0; i < nd; i++)
        CHECK(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", n, nd, i, d[i],
              want[i]);
}

static void test_dims(void)
{
    dims_case(72, 2, (int[]){9, 8}); /* the greedy dealing of primes gave 12 x 6 */
    dims_case(180, 2, (int[]){15, 12});
    dims_case(70416, 4, (int[]){163, 9, 8, 6});
    dims_case(712656, 5, (int[]){101, 14, 9, 8, 7});
    dims_case(378000, 10, (int[]){7, 5, 5, 5, 4, 3, 3, 3, 2, 2});
    dims_case(1, 3, (int[]){1, 1, 1});
    dims_case(2147483647, 2, (int[]){2147483647, 1}); /* a large prime, quickly */
    /* 1344 divisors: a search without its bounds took 10 s here */
    dims_case(735134400, 10, (int[]){17, 13, 11, 8, 7, 6, 6, 6, 5, 5});
}

static void test_split_type(void)
{
    MPI_Comm c;
    MPI_Info info;
    int n, flag;
    char v[64];
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "HW_GUIDED without the key");
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
    CHECK(c != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory");
    MPI_Comm s;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &s));
    int cmp;
    CHECK_OK(MPI_Comm_compare(c, s, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "HW_GUIDED mpi_shared_memory is the node (%d)", cmp);
    MPI_Comm_free(&c);
    CHECK_OK(MPI_Info_set(info, "mpi_hw_resource_type", "l3cache"));
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c));
    CHECK(c == MPI_COMM_NULL, "a resource rmp does not see");
    MPI_Info_free(&info);
    /* unguided: a strict subset (several nodes) or nothing (one node) */
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, info, &c));
    CHECK_OK(MPI_Comm_size(s, &n));
    CHECK((c == MPI_COMM_NULL) == (n == size), "HW_UNGUIDED on %d of %d ranks", n, size);
    if (c != MPI_COMM_NULL) {
        CHECK_OK(MPI_Info_get_string(info, "mpi_hw_resource_type", &(int){64}, v, &flag));
        CHECK(flag && !strcmp(v, "mpi_shared_memory"), "HW_UNGUIDED's info");
        MPI_Comm_free(&c);
    }
    MPI_Info_free(&info);
    MPI_Comm_free(&s);
    CHECK_OK(MPI_Get_hw_resource_info(&info));
    CHECK_OK(MPI_Info_get_string(info, "mpi_hw_resource_type", &(int){64}, v, &flag));
    CHECK(flag && strstr(v, "mpi_shared_memory"), "Get_hw_resource_info");
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 4, "run with 4 ranks");
    test_graph();
    test_dist();
    test_cart_view();
    test_dims();
    test_split_type();
    CHECK_OK(MPI_Finalize());
    return 0;
}
