/* SPDX-License-Identifier: BSD-3-Clause */
/* Every neighbourhood collective in every form - blocking, nonblocking, persistent (each
 * started twice, with new data the second time), and the MPI_Count (_c) variants of all
 * three - on three topologies, values checked block by block:
 * - a Cartesian grid with a periodic and an open dimension (4 ranks: 2x2, the periodic
 *   dimension of size 2 has the same rank on both sides; 3 ranks: 3x1, the periodic
 *   dimension of size 1 is the rank itself both ways), MPI_PROC_NULL blocks untouched;
 * - a graph with duplicate edges and a self loop on every node;
 * - a general distributed graph with duplicate edges, self loops and edges given by a
 *   third rank.
 * The neighbour lists come from MPI_Dist_graph_neighbors; the k-th of several edges
 * between a pair matches the k-th (messages of a pair do not overtake), and a Cartesian
 * block sent in the +1 direction arrives as the receiver's -1 neighbour's.
 * Receive sides also run with a non-contiguous type (every other int). */
#include <string.h>

#include "check.h"

#pragma GCC diagnostic ignored "-Wstringop-overread" /* MPI_UNWEIGHTED as an array */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#define MAXN 32
#define SENT (-7)
enum { BLK, NB, PERS, BLK_C, NB_C, PERS_C, NMODES };
static const char *mode_name[NMODES] = {"blocking", "nonblocking", "persistent",
                                        "blocking _c", "nonblocking _c", "persistent _c"};
static int me, np;
static MPI_Datatype strided; /* one int, extent two ints */

typedef struct topo {
    const char *name;
    MPI_Comm c;
    int in, out, src[MAXN], dst[MAXN], stag[MAXN], rtag[MAXN];
} topo_t;

static int occurrence(const int *l, int i)
{
    int k = 0;
    for (int j = 0; j < i; j++)
        k += l[j] == l[i];
    return k;
}

static void topo_fill(topo_t *t)
{
    int w, st;
    CHECK_OK(MPI_Dist_graph_neighbors_count(t->c, &t->in, &t->out, &w));
    CHECK(t->in <= MAXN && t->out <= MAXN, "degrees");
    CHECK_OK(MPI_Dist_graph_neighbors(t->c, t->in, t->src, MPI_UNWEIGHTED, t->out, t->dst,
                                      MPI_UNWEIGHTED));
    CHECK_OK(MPI_Topo_test(t->c, &st));
    for (int i = 0; i < t->out; i++)
        t->stag[i] = st == MPI_CART ? i : t->dst[i] * 100 + occurrence(t->dst, i);
    for (int j = 0; j < t->in; j++)
        t->rtag[j] = st == MPI_CART ? j ^ 1 : me * 100 + occurrence(t->src, j);
}

/* The value of element e of the block r sends on its edge tagged tag, in round rd. */
static int val(int r, int tag, int e, int rd)
{
    return rd * 1000000 + r * 100000 + tag * 10 + e;
}

static int vcount(int r, int tag)
{
    return (r + tag) % 3 + 1;
}

static void start_wait(MPI_Request *q, int mode)
{
    if (mode == PERS || mode == PERS_C)
        CHECK_OK(MPI_Start(q));
    CHECK_OK(MPI_Wait(q, MPI_STATUS_IGNORE));
    if (mode == NB || mode == NB_C)
        CHECK(*q == MPI_REQUEST_NULL, "nonblocking request not freed");
}

static int rounds(int mode)
{
    return mode == PERS || mode == PERS_C ? 2 : 1;
}

static void check_block(const topo_t *t, const char *what, int mode, const int *rb, int j,
                        int at, int n, int stride, int tag_src, int rd)
{
    for (int e = 0; e < n; e++) {
        int want = t->src[j] == MPI_PROC_NULL ? SENT : val(t->src[j], tag_src, e, rd);
        CHECK(rb[(at + e) * stride] == want, "%s %s on %s, in-edge %d (from %d) elt %d: %d, "
              "expected %d", what, mode_name[mode], t->name, j, t->src[j], e,
              rb[(at + e) * stride], want);
        if (stride == 2)
            CHECK(rb[(at + e) * 2 + 1] == SENT, "%s: the gap of a strided type written", what);
    }
}

static void t_alltoall(const topo_t *t, int mode, int nc)
{
    enum { K = 3 };
    int sb[MAXN * K] = {0}, rb[MAXN * K * 2], st = nc ? 2 : 1;
    MPI_Datatype rt = nc ? strided : MPI_INT;
    MPI_Request q = MPI_REQUEST_NULL;
    if (mode == PERS)
        CHECK_OK(MPI_Neighbor_alltoall_init(sb, K, MPI_INT, rb, K, rt, t->c, MPI_INFO_NULL, &q));
    if (mode == PERS_C)
        CHECK_OK(MPI_Neighbor_alltoall_init_c(sb, K, MPI_INT, rb, K, rt, t->c, MPI_INFO_NULL,
                                              &q));
    for (int rd = 0; rd < rounds(mode); rd++) {
        for (int i = 0; i < t->out; i++)
            for (int e = 0; e < K; e++)
                sb[i * K + e] = val(me, t->stag[i], e, rd);
        for (int k = 0; k < MAXN * K * 2; k++)
            rb[k] = SENT;
        switch (mode) {
        case BLK: CHECK_OK(MPI_Neighbor_alltoall(sb, K, MPI_INT, rb, K, rt, t->c)); break;
        case BLK_C: CHECK_OK(MPI_Neighbor_alltoall_c(sb, K, MPI_INT, rb, K, rt, t->c)); break;
        case NB: CHECK_OK(MPI_Ineighbor_alltoall(sb, K, MPI_INT, rb, K, rt, t->c, &q)); break;
        case NB_C: CHECK_OK(MPI_Ineighbor_alltoall_c(sb, K, MPI_INT, rb, K, rt, t->c, &q)); break;
        }
        if (mode != BLK && mode != BLK_C)
            start_wait(&q, mode);
        for (int j = 0; j < t->in; j++)
            check_block(t, "alltoall", mode, rb, j, j * K, K, st, t->rtag[j], rd);
    }
    if (q != MPI_REQUEST_NULL)
        CHECK_OK(MPI_Request_free(&q));
}

static void t_allgather(const topo_t *t, int mode, int nc)
{
    enum { K = 2 };
    int sb[K] = {0}, rb[MAXN * K * 2], st = nc ? 2 : 1;
    MPI_Datatype rt = nc ? strided : MPI_INT;
    MPI_Request q = MPI_REQUEST_NULL;
    if (mode == PERS)
        CHECK_OK(MPI_Neighbor_allgather_init(sb, K, MPI_INT, rb, K, rt, t->c, MPI_INFO_NULL, &q));
    if (mode == PERS_C)
        CHECK_OK(MPI_Neighbor_allgather_init_c(sb, K, MPI_INT, rb, K, rt, t->c, MPI_INFO_NULL,
                                               &q));
    for (int rd = 0; rd < rounds(mode); rd++) {
        for (int e = 0; e < K; e++)
            sb[e] = val(me, 0, e, rd);
        for (int k = 0; k < MAXN * K * 2; k++)
            rb[k] = SENT;
        switch (mode) {
        case BLK: CHECK_OK(MPI_Neighbor_allgather(sb, K, MPI_INT, rb, K, rt, t->c)); break;
        case BLK_C: CHECK_OK(MPI_Neighbor_allgather_c(sb, K, MPI_INT, rb, K, rt, t->c)); break;
        case NB: CHECK_OK(MPI_Ineighbor_allgather(sb, K, MPI_INT, rb, K, rt, t->c, &q)); break;
        case NB_C: CHECK_OK(MPI_Ineighbor_allgather_c(sb, K, MPI_INT, rb, K, rt, t->c, &q)); break;
        }
        if (mode != BLK && mode != BLK_C)
            start_wait(&q, mode);
        for (int j = 0; j < t->in; j++)
            check_block(t, "allgather", mode, rb, j, j * K, K, st, 0, rd);
    }
    if (q != MPI_REQUEST_NULL)
        CHECK_OK(MPI_Request_free(&q));
}

/* allgatherv: rank r sends r % 3 + 1 ints; blocks land in reverse order with a gap. */
static void t_allgatherv(const topo_t *t, int mode)
{
    int sb[3] = {0}, rb[MAXN * 5], rc[MAXN], rdsp[MAXN], sc = me % 3 + 1;
    MPI_Count rcc[MAXN];
    MPI_Aint rdc[MAXN];
    for (int j = t->in - 1, at = 0; j >= 0; j--) {
        rc[j] = t->src[j] == MPI_PROC_NULL ? 2 : t->src[j] % 3 + 1;
        rdsp[j] = at;
        rcc[j] = rc[j];
        rdc[j] = at;
        at += rc[j] + 1;
    }
    MPI_Request q = MPI_REQUEST_NULL;
    if (mode == PERS)
        CHECK_OK(MPI_Neighbor_allgatherv_init(sb, sc, MPI_INT, rb, rc, rdsp, MPI_INT, t->c,
                                              MPI_INFO_NULL, &q));
    if (mode == PERS_C)
        CHECK_OK(MPI_Neighbor_allgatherv_init_c(sb, sc, MPI_INT, rb, rcc, rdc, MPI_INT, t->c,
                                                MPI_INFO_NULL, &q));
    for (int rd = 0; rd < rounds(mode); rd++) {
        for (int e = 0; e < sc; e++)
            sb[e] = val(me, 0, e, rd);
        for (int k = 0; k < MAXN * 5; k++)
            rb[k] = SENT;
        switch (mode) {
        case BLK:
            CHECK_OK(MPI_Neighbor_allgatherv(sb, sc, MPI_INT, rb, rc, rdsp, MPI_INT, t->c));
            break;
        case BLK_C:
            CHECK_OK(MPI_Neighbor_allgatherv_c(sb, sc, MPI_INT, rb, rcc, rdc, MPI_INT, t->c));
            break;
        case NB:
            CHECK_OK(MPI_Ineighbor_allgatherv(sb, sc, MPI_INT, rb, rc, rdsp, MPI_INT, t->c, &q));
            break;
        case NB_C:
            CHECK_OK(MPI_Ineighbor_allgatherv_c(sb, sc, MPI_INT, rb, rcc, rdc, MPI_INT, t->c,
                                                &q));
            break;
        }
        if (mode != BLK && mode != BLK_C)
            start_wait(&q, mode);
        for (int j = 0; j < t->in; j++) {
            check_block(t, "allgatherv", mode, rb, j, rdsp[j], rc[j], 1, 0, rd);
            CHECK(rb[rdsp[j] + rc[j]] == SENT, "allgatherv wrote past a block");
        }
    }
    if (q != MPI_REQUEST_NULL)
        CHECK_OK(MPI_Request_free(&q));
}

/* alltoallv (w: alltoallw, odd in-edges received with the strided type, byte
 * displacements): edge counts vcount(sender, tag), blocks in reverse order. */
static void t_alltoallv(const topo_t *t, int mode, int w)
{
    int sb[MAXN * 4] = {0}, rb[MAXN * 8], sc[MAXN], sd[MAXN], rc[MAXN], rdsp[MAXN];
    MPI_Count scc[MAXN], rcc[MAXN];
    MPI_Aint sdc[MAXN], rdc[MAXN], sdw[MAXN], rdw[MAXN];
    MPI_Datatype stw[MAXN], rtw[MAXN];
    for (int i = t->out - 1, at = 0; i >= 0; i--) {
        sc[i] = vcount(me, t->stag[i]);
        sd[i] = at;
        scc[i] = sc[i], sdc[i] = at, sdw[i] = (MPI_Aint)at * (MPI_Aint)sizeof(int);
        stw[i] = MPI_INT;
        at += sc[i];
    }
    for (int j = t->in - 1, at = 0; j >= 0; j--) {
        rc[j] = t->src[j] == MPI_PROC_NULL ? 1 : vcount(t->src[j], t->rtag[j]);
        rdsp[j] = at;
        rcc[j] = rc[j], rdc[j] = at;
        rtw[j] = w && (j & 1) ? strided : MPI_INT;
        rdw[j] = (MPI_Aint)at * (MPI_Aint)sizeof(int);
        at += (w && (j & 1) ? 2 * rc[j] : rc[j]) + 1;
    }
    const char *what = w ? "alltoallw" : "alltoallv";
    MPI_Request q = MPI_REQUEST_NULL;
    if (mode == PERS && !w)
        CHECK_OK(MPI_Neighbor_alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rdsp, MPI_INT, t->c,
                                             MPI_INFO_NULL, &q));
    if (mode == PERS_C && !w)
        CHECK_OK(MPI_Neighbor_alltoallv_init_c(sb, scc, sdc, MPI_INT, rb, rcc, rdc, MPI_INT,
                                               t->c, MPI_INFO_NULL, &q));
    if (mode == PERS && w)
        CHECK_OK(MPI_Neighbor_alltoallw_init(sb, sc, sdw, stw, rb, rc, rdw, rtw, t->c,
                                             MPI_INFO_NULL, &q));
    if (mode == PERS_C && w)
        CHECK_OK(MPI_Neighbor_alltoallw_init_c(sb, scc, sdw, stw, rb, rcc, rdw, rtw, t->c,
                                               MPI_INFO_NULL, &q));
    for (int rd = 0; rd < rounds(mode); rd++) {
        for (int i = 0; i < t->out; i++)
            for (int e = 0; e < sc[i]; e++)
                sb[sd[i] + e] = val(me, t->stag[i], e, rd);
        for (int k = 0; k < MAXN * 8; k++)
            rb[k] = SENT;
        if (!w)
            switch (mode) {
            case BLK:
                CHECK_OK(MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rdsp, MPI_INT, t->c));
                break;
            case BLK_C:
                CHECK_OK(MPI_Neighbor_alltoallv_c(sb, scc, sdc, MPI_INT, rb, rcc, rdc, MPI_INT,
                                                  t->c));
                break;
            case NB:
                CHECK_OK(MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rdsp, MPI_INT, t->c,
                                                 &q));
                break;
            case NB_C:
                CHECK_OK(MPI_Ineighbor_alltoallv_c(sb, scc, sdc, MPI_INT, rb, rcc, rdc, MPI_INT,
                                                   t->c, &q));
                break;
            }
        else
            switch (mode) {
            case BLK:
                CHECK_OK(MPI_Neighbor_alltoallw(sb, sc, sdw, stw, rb, rc, rdw, rtw, t->c));
                break;
            case BLK_C:
                CHECK_OK(MPI_Neighbor_alltoallw_c(sb, scc, sdw, stw, rb, rcc, rdw, rtw, t->c));
                break;
            case NB:
                CHECK_OK(MPI_Ineighbor_alltoallw(sb, sc, sdw, stw, rb, rc, rdw, rtw, t->c, &q));
                break;
            case NB_C:
                CHECK_OK(MPI_Ineighbor_alltoallw_c(sb, scc, sdw, stw, rb, rcc, rdw, rtw, t->c,
                                                   &q));
                break;
            }
        if (mode != BLK && mode != BLK_C)
            start_wait(&q, mode);
        for (int j = 0; j < t->in; j++) {
            int strd = w && (j & 1) ? 2 : 1;
            if (strd == 2) /* the strided block starts at rdsp[j] ints: index in its units */
                for (int e = 0; e < rc[j]; e++) {
                    int want = t->src[j] == MPI_PROC_NULL ? SENT
                                                          : val(t->src[j], t->rtag[j], e, rd);
                    CHECK(rb[rdsp[j] + 2 * e] == want && rb[rdsp[j] + 2 * e + 1] == SENT,
                          "%s %s on %s, in-edge %d elt %d: %d, expected %d", what,
                          mode_name[mode], t->name, j, e, rb[rdsp[j] + 2 * e], want);
                }
            else
                check_block(t, what, mode, rb, j, rdsp[j], rc[j], 1, t->rtag[j], rd);
        }
    }
    if (q != MPI_REQUEST_NULL)
        CHECK_OK(MPI_Request_free(&q));
}

static void run_all(topo_t *t)
{
    topo_fill(t);
    for (int m = 0; m < NMODES; m++) {
        t_alltoall(t, m, 0);
        t_alltoall(t, m, 1);
        t_allgather(t, m, 0);
        t_allgather(t, m, 1);
        t_allgatherv(t, m);
        t_alltoallv(t, m, 0);
        t_alltoallv(t, m, 1);
    }
    CHECK_OK(MPI_Comm_free(&t->c));
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK_OK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided));
    CHECK_OK(MPI_Type_commit(&strided));

    topo_t cart = {.name = "cart"};
    int dims[2] = {np == 4 ? 2 : np, np == 4 ? 2 : 1}, periods[2] = {np == 4, np != 4};
    CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart.c));
    run_all(&cart);

    /* every node: next twice, itself, previous twice (a symmetric multigraph) */
    int index[MAXN], edges[MAXN * 5];
    for (int i = 0; i < np; i++) {
        int *e = edges + 5 * i;
        e[0] = e[1] = (i + 1) % np, e[2] = i, e[3] = e[4] = (i + np - 1) % np;
        index[i] = 5 * (i + 1);
    }
    topo_t graph = {.name = "graph"};
    CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &graph.c));
    run_all(&graph);

    /* rank r gives: r -> r+1 twice, r+2 -> r, r -> r (weighted) */
    int s[4] = {me, me, (me + 2) % np, me}, deg[4] = {1, 1, 1, 1};
    int d[4] = {(me + 1) % np, (me + 1) % np, me, me}, wt[4] = {1, 2, 3, 4};
    topo_t dist = {.name = "dist graph"};
    CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 4, s, deg, d, wt, MPI_INFO_NULL, 0, &dist.c));
    run_all(&dist);

    /* no topology: refused */
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int x = 0, y[2], ecls;
    MPI_Error_class(MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD), &ecls);
    CHECK(ecls == MPI_ERR_TOPOLOGY, "neighbour collective without topology: class %d", ecls);
    CHECK_OK(MPI_Type_free(&strided));
    CHECK_OK(MPI_Finalize());
    return 0;
}
