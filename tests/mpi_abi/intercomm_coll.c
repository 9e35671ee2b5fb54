/* SPDX-License-Identifier: BSD-3-Clause */
/* Every collective over intercommunicators, in its blocking, nonblocking and persistent
 * forms, with values checked: both groups as the root side (MPI_ROOT at the root,
 * MPI_PROC_NULL at its group's others, untouched buffers there), uneven groups (the
 * first half against the rest, and the last rank against all others). */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define CNT 3
#define NMAX 16

static int wrank, wsize, side, lrank, nl, nr;
static MPI_Comm ic;

/* The value process `rank` of group `g` contributes as element i. */
static int val(int g, int rank, int i)
{
    return 1000 * g + 100 * rank + i;
}

/* mode 0: blocking; 1: nonblocking + wait; 2: persistent, started twice. */
#define COLL(mode, B, I, P)                                                               \
    do {                                                                                  \
        MPI_Request r_;                                                                   \
        if ((mode) == 0) {                                                                \
            CHECK_OK(B);                                                                  \
        } else if ((mode) == 1) {                                                         \
            CHECK_OK(I);                                                                  \
            CHECK_OK(MPI_Wait(&r_, MPI_STATUS_IGNORE));                                   \
        } else {                                                                          \
            CHECK_OK(P);                                                                  \
            for (int k_ = 0; k_ < 2; k_++) {                                              \
                CHECK_OK(MPI_Start(&r_));                                                 \
                CHECK_OK(MPI_Wait(&r_, MPI_STATUS_IGNORE));                               \
            }                                                                             \
            CHECK_OK(MPI_Request_free(&r_));                                              \
        }                                                                                 \
    } while (0)

#define INF MPI_INFO_NULL

/* The root argument for a root at rank rr of group rg. */
static int root_arg(int rg, int rr)
{
    return side == rg ? (lrank == rr ? MPI_ROOT : MPI_PROC_NULL) : rr;
}

static void rooted(int mode, int rg, int rr)
{
    int root = root_arg(rg, rr), other = !side;
    int sbuf[NMAX * CNT * 4], rbuf[NMAX * CNT * 4], cnts[NMAX], dsp[NMAX];
    /* bcast */
    for (int i = 0; i < CNT; i++)
        rbuf[i] = root == MPI_ROOT ? val(side, lrank, i) : -1;
    COLL(mode, MPI_Bcast(rbuf, CNT, MPI_INT, root, ic),
         MPI_Ibcast(rbuf, CNT, MPI_INT, root, ic, &r_),
         MPI_Bcast_init(rbuf, CNT, MPI_INT, root, ic, INF, &r_));
    for (int i = 0; i < CNT; i++)
        CHECK(rbuf[i] == (root == MPI_PROC_NULL ? -1 : val(rg, rr, i)),
              "bcast mode %d root %d/%d: [%d] = %d", mode, rg, rr, i, rbuf[i]);
    /* gather */
    for (int i = 0; i < CNT; i++)
        sbuf[i] = val(side, lrank, i);
    for (int i = 0; i < NMAX * CNT; i++)
        rbuf[i] = -1;
    COLL(mode, MPI_Gather(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, root, ic),
         MPI_Igather(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, root, ic, &r_),
         MPI_Gather_init(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, root, ic, INF, &r_));
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < CNT; i++)
            CHECK(rbuf[j * CNT + i] == (root == MPI_ROOT ? val(other, j, i) : -1),
                  "gather mode %d: [%d][%d] = %d", mode, j, i, rbuf[j * CNT + i]);
    /* gatherv: remote j sends j + 1 elements, placed in reverse order */
    for (int i = 0; i < CNT + NMAX; i++)
        sbuf[i] = val(side, lrank, i);
    for (int j = 0, off = 0; j < nr; j++) {
        cnts[nr - 1 - j] = (nr - j);
        dsp[nr - 1 - j] = off;
        off += nr - j;
    }
    for (int i = 0; i < NMAX * CNT; i++)
        rbuf[i] = -1;
    COLL(mode, MPI_Gatherv(sbuf, lrank + 1, MPI_INT, rbuf, cnts, dsp, MPI_INT, root, ic),
         MPI_Igatherv(sbuf, lrank + 1, MPI_INT, rbuf, cnts, dsp, MPI_INT, root, ic, &r_),
         MPI_Gatherv_init(sbuf, lrank + 1, MPI_INT, rbuf, cnts, dsp, MPI_INT, root, ic, INF,
                          &r_));
    if (root == MPI_ROOT)
        for (int j = 0; j < nr; j++)
            for (int i = 0; i < j + 1; i++)
                CHECK(rbuf[dsp[j] + i] == val(other, j, i), "gatherv: [%d][%d] = %d", j, i,
                      rbuf[dsp[j] + i]);
    else
        CHECK(rbuf[0] == -1, "gatherv wrote at a non-root");
    /* scatter */
    for (int i = 0; i < nr * CNT; i++)
        sbuf[i] = root == MPI_ROOT ? val(side, lrank, i) : -2;
    for (int i = 0; i < CNT; i++)
        rbuf[i] = -1;
    COLL(mode, MPI_Scatter(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, root, ic),
         MPI_Iscatter(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, root, ic, &r_),
         MPI_Scatter_init(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, root, ic, INF, &r_));
    for (int i = 0; i < CNT; i++)
        CHECK(rbuf[i] == (root >= 0 ? val(rg, rr, lrank * CNT + i) : -1),
              "scatter mode %d: [%d] = %d", mode, i, rbuf[i]);
    /* scatterv: remote j gets j + 1 elements from the displacements above */
    for (int i = 0; i < NMAX * CNT; i++)
        sbuf[i] = root == MPI_ROOT ? val(side, lrank, i) : -2;
    for (int i = 0; i < CNT + NMAX; i++)
        rbuf[i] = -1;
    COLL(mode, MPI_Scatterv(sbuf, cnts, dsp, MPI_INT, rbuf, lrank + 1, MPI_INT, root, ic),
         MPI_Iscatterv(sbuf, cnts, dsp, MPI_INT, rbuf, lrank + 1, MPI_INT, root, ic, &r_),
         MPI_Scatterv_init(sbuf, cnts, dsp, MPI_INT, rbuf, lrank + 1, MPI_INT, root, ic, INF,
                           &r_));
    if (root >= 0) {
        /* the root side's displacements for me, recomputed with its remote size (mine: nl) */
        int off = 0;
        for (int j = nl - 1; j > lrank; j--)
            off += j + 1;
        for (int i = 0; i < lrank + 1; i++)
            CHECK(rbuf[i] == val(rg, rr, off + i), "scatterv: [%d] = %d, want %d", i, rbuf[i],
                  val(rg, rr, off + i));
    }
    /* reduce */
    for (int i = 0; i < CNT; i++) {
        sbuf[i] = val(side, lrank, i);
        rbuf[i] = -1;
    }
    COLL(mode, MPI_Reduce(sbuf, rbuf, CNT, MPI_INT, MPI_SUM, root, ic),
         MPI_Ireduce(sbuf, rbuf, CNT, MPI_INT, MPI_SUM, root, ic, &r_),
         MPI_Reduce_init(sbuf, rbuf, CNT, MPI_INT, MPI_SUM, root, ic, INF, &r_));
    for (int i = 0; i < CNT; i++) {
        int want = 0;
        for (int j = 0; j < nr; j++)
            want += val(other, j, i);
        CHECK(rbuf[i] == (root == MPI_ROOT ? want : -1), "reduce mode %d: [%d] = %d, want %d",
              mode, i, rbuf[i], want);
    }
}

/* A non-commutative op: a o b = a * 31 + b (folds in rank order). */
static void noncomm(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = ((int *)in)[i] * 31 + ((int *)inout)[i];
}

static void unrooted(int mode, MPI_Op nc)
{
    int other = !side;
    int sbuf[NMAX * NMAX * 4], rbuf[NMAX * NMAX * 4], scnt[NMAX], sdsp[NMAX], rcnt[NMAX],
        rdsp[NMAX], bs[NMAX], br[NMAX];
    MPI_Datatype ts[NMAX], tr[NMAX];
    COLL(mode, MPI_Barrier(ic), MPI_Ibarrier(ic, &r_), MPI_Barrier_init(ic, INF, &r_));
    /* allgather */
    for (int i = 0; i < CNT; i++)
        sbuf[i] = val(side, lrank, i);
    for (int i = 0; i < NMAX * CNT; i++)
        rbuf[i] = -1;
    COLL(mode, MPI_Allgather(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, ic),
         MPI_Iallgather(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, ic, &r_),
         MPI_Allgather_init(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, ic, INF, &r_));
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < CNT; i++)
            CHECK(rbuf[j * CNT + i] == val(other, j, i), "allgather mode %d: [%d][%d] = %d",
                  mode, j, i, rbuf[j * CNT + i]);
    /* allgatherv: remote j sends j + 1 elements, stored with a gap of 1 */
    for (int i = 0; i < NMAX; i++)
        sbuf[i] = val(side, lrank, i);
    for (int j = 0, off = 0; j < nr; j++) {
        rcnt[j] = j + 1;
        rdsp[j] = off;
        off += j + 2;
    }
    for (int i = 0; i < NMAX * NMAX; i++)
        rbuf[i] = -1;
    COLL(mode, MPI_Allgatherv(sbuf, lrank + 1, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, ic),
         MPI_Iallgatherv(sbuf, lrank + 1, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, ic, &r_),
         MPI_Allgatherv_init(sbuf, lrank + 1, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, ic, INF, &r_));
    for (int j = 0; j < nr; j++) {
        for (int i = 0; i < j + 1; i++)
            CHECK(rbuf[rdsp[j] + i] == val(other, j, i), "allgatherv: [%d][%d] = %d", j, i,
                  rbuf[rdsp[j] + i]);
        CHECK(rbuf[rdsp[j] + j + 1] == -1, "allgatherv wrote into a gap");
    }
    /* alltoall: block j for remote j */
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < CNT; i++)
            sbuf[j * CNT + i] = val(side, lrank, 10 * j + i);
    COLL(mode, MPI_Alltoall(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, ic),
         MPI_Ialltoall(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, ic, &r_),
         MPI_Alltoall_init(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, ic, INF, &r_));
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < CNT; i++)
            CHECK(rbuf[j * CNT + i] == val(other, j, 10 * lrank + i), "alltoall: [%d][%d] = %d",
                  j, i, rbuf[j * CNT + i]);
    /* alltoallv / alltoallw: sender a to receiver b moves (a + b) % 3 + 1 elements */
    for (int j = 0, so = 0, ro = 0; j < nr; j++) {
        scnt[j] = (lrank + j) % 3 + 1;
        rcnt[j] = (j + lrank) % 3 + 1;
        sdsp[j] = so;
        rdsp[j] = ro;
        bs[j] = so * (int)sizeof(int);
        br[j] = ro * (int)sizeof(int);
        ts[j] = tr[j] = MPI_INT;
        for (int i = 0; i < scnt[j]; i++)
            sbuf[so + i] = val(side, lrank, 10 * j + i);
        so += scnt[j];
        ro += rcnt[j] + 1;
    }
    for (int w = 0; w < 2; w++) {
        for (int i = 0; i < NMAX * NMAX; i++)
            rbuf[i] = -1;
        if (w)
            COLL(mode, MPI_Alltoallw(sbuf, scnt, bs, ts, rbuf, rcnt, br, tr, ic),
                 MPI_Ialltoallw(sbuf, scnt, bs, ts, rbuf, rcnt, br, tr, ic, &r_),
                 MPI_Alltoallw_init(sbuf, scnt, bs, ts, rbuf, rcnt, br, tr, ic, INF, &r_));
        else
            COLL(mode, MPI_Alltoallv(sbuf, scnt, sdsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, ic),
                 MPI_Ialltoallv(sbuf, scnt, sdsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, ic, &r_),
                 MPI_Alltoallv_init(sbuf, scnt, sdsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, ic,
                                    INF, &r_));
        for (int j = 0; j < nr; j++) {
            for (int i = 0; i < rcnt[j]; i++)
                CHECK(rbuf[rdsp[j] + i] == val(other, j, 10 * lrank + i),
                      "alltoall%c mode %d: [%d][%d] = %d", w ? 'w' : 'v', mode, j, i,
                      rbuf[rdsp[j] + i]);
            CHECK(rbuf[rdsp[j] + rcnt[j]] == -1, "alltoallv wrote into a gap");
        }
    }
    /* allreduce, with a non-commutative op: x0 o (x1 o (... o x[nr-1])) */
    for (int i = 0; i < CNT; i++)
        sbuf[i] = val(side, lrank, i) % 7;
    for (int k = 0; k < 2; k++) {
        MPI_Op op = k ? nc : MPI_SUM;
        COLL(mode, MPI_Allreduce(sbuf, rbuf, CNT, MPI_INT, op, ic),
             MPI_Iallreduce(sbuf, rbuf, CNT, MPI_INT, op, ic, &r_),
             MPI_Allreduce_init(sbuf, rbuf, CNT, MPI_INT, op, ic, INF, &r_));
        for (int i = 0; i < CNT; i++) {
            int want = val(other, nr - 1, i) % 7;
            for (int j = nr - 2; j >= 0; j--)
                want = k ? (val(other, j, i) % 7) * 31 + want : want + val(other, j, i) % 7;
            CHECK(rbuf[i] == want, "allreduce mode %d op %d: [%d] = %d, want %d", mode, k, i,
                  rbuf[i], want);
        }
    }
    /* reduce_scatter_block: vectors of T = nl * nr * 2 elements; my block T / nl */
    int t = nl * nr * 2, blk = t / nl;
    for (int i = 0; i < t; i++)
        sbuf[i] = val(side, lrank, i);
    COLL(mode, MPI_Reduce_scatter_block(sbuf, rbuf, blk, MPI_INT, MPI_SUM, ic),
         MPI_Ireduce_scatter_block(sbuf, rbuf, blk, MPI_INT, MPI_SUM, ic, &r_),
         MPI_Reduce_scatter_block_init(sbuf, rbuf, blk, MPI_INT, MPI_SUM, ic, INF, &r_));
    for (int i = 0; i < blk; i++) {
        int want = 0;
        for (int j = 0; j < nr; j++)
            want += val(other, j, lrank * blk + i);
        CHECK(rbuf[i] == want, "reduce_scatter_block mode %d: [%d] = %d, want %d", mode, i,
              rbuf[i], want);
    }
    /* reduce_scatter: uneven counts of the same total */
    int off = 0;
    for (int k = 0; k < nl; k++)
        rcnt[k] = blk + (nl > 1 ? (k == 0) - (k == nl - 1) : 0);
    for (int k = 0; k < lrank; k++)
        off += rcnt[k];
    COLL(mode, MPI_Reduce_scatter(sbuf, rbuf, rcnt, MPI_INT, MPI_SUM, ic),
         MPI_Ireduce_scatter(sbuf, rbuf, rcnt, MPI_INT, MPI_SUM, ic, &r_),
         MPI_Reduce_scatter_init(sbuf, rbuf, rcnt, MPI_INT, MPI_SUM, ic, INF, &r_));
    for (int i = 0; i < rcnt[lrank]; i++) {
        int want = 0;
        for (int j = 0; j < nr; j++)
            want += val(other, j, off + i);
        CHECK(rbuf[i] == want, "reduce_scatter mode %d: [%d] = %d, want %d", mode, i, rbuf[i],
              want);
    }
}

/* Non-contiguous types: every other int, through allgather and allreduce. */
static void derived(void)
{
    MPI_Datatype v;
    int s[2 * CNT], r[2 * CNT * NMAX];
    CHECK_OK(MPI_Type_vector(CNT, 1, 2, MPI_INT, &v));
    CHECK_OK(MPI_Type_commit(&v));
    for (int i = 0; i < 2 * CNT; i++)
        s[i] = i % 2 ? -5 : val(side, lrank, i / 2);
    for (int i = 0; i < 2 * CNT * NMAX; i++)
        r[i] = -1;
    /* the extent of v is 2 * CNT - 1 ints: blocks j at j * (2 * CNT - 1) */
    CHECK_OK(MPI_Allgather(s, 1, v, r, 1, v, ic));
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < CNT; i++)
            CHECK(r[j * (2 * CNT - 1) + 2 * i] == val(!side, j, i), "derived allgather [%d][%d]",
                  j, i);
    for (int i = 0; i < 2 * CNT; i++)
        r[i] = -1;
    CHECK_OK(MPI_Allreduce(s, r, 1, v, MPI_SUM, ic));
    for (int i = 0; i < CNT; i++) {
        int want = 0;
        for (int j = 0; j < nr; j++)
            want += val(!side, j, i);
        CHECK(r[2 * i] == want && r[2 * i + 1] == -1, "derived allreduce [%d] = %d, want %d", i,
              r[2 * i], want);
    }
    CHECK_OK(MPI_Type_free(&v));
}

static void run_layout(int l)
{
    int a = l == 0 ? wrank < wsize / 2 : wrank == wsize - 1, rleader = -1;
    for (int r = 0; r < wsize && rleader < 0; r++) {
        int ra = l == 0 ? r < wsize / 2 : r == wsize - 1;
        if (ra != a)
            rleader = r;
    }
    MPI_Comm local;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, a, wrank, &local));
    CHECK_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rleader, 3, &ic));
    CHECK_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    side = a;
    MPI_Comm_rank(ic, &lrank);
    MPI_Comm_size(ic, &nl);
    MPI_Comm_remote_size(ic, &nr);
    CHECK(nl <= NMAX && nr <= NMAX, "too many ranks");
    MPI_Op nc;
    CHECK_OK(MPI_Op_create(noncomm, 0, &nc));
    for (int mode = 0; mode < 3; mode++) {
        for (int rg = 0; rg < 2; rg++) {
            int gsize = rg == side ? nl : nr;
            rooted(mode, rg, 0);
            if (gsize > 1)
                rooted(mode, rg, gsize - 1);
        }
        unrooted(mode, nc);
    }
    derived();
    /* a bad root, scan and neighbour collectives are refused */
    int x = 0, y;
    CHECK(MPI_Bcast(&x, 1, MPI_INT, nr, ic) == MPI_ERR_ROOT, "root %d accepted", nr);
    CHECK(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM, "scan accepted");
    MPI_Request r;
    CHECK(MPI_Iexscan(&x, &y, 1, MPI_INT, MPI_SUM, ic, &r) == MPI_ERR_COMM, "iexscan accepted");
    CHECK(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, ic) == MPI_ERR_COMM,
          "neighbor_allgather accepted");
    /* several nonblocking collectives in flight at once complete in any order */
    int b1 = side == 0 && lrank == 0 ? 11 : -1, b2 = side == 1 && lrank == 0 ? 22 : -1;
    MPI_Request q[3];
    CHECK_OK(MPI_Ibcast(&b1, 1, MPI_INT, root_arg(0, 0), ic, &q[0]));
    CHECK_OK(MPI_Ibcast(&b2, 1, MPI_INT, root_arg(1, 0), ic, &q[1]));
    CHECK_OK(MPI_Ibarrier(ic, &q[2]));
    CHECK_OK(MPI_Wait(&q[2], MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    CHECK(side == 1 ? b1 == 11 : b2 == 22, "overlapping ibcasts: %d %d", b1, b2);
    CHECK_OK(MPI_Op_free(&nc));
    CHECK_OK(MPI_Comm_free(&ic));
    CHECK_OK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize >= 2 && wsize <= NMAX, "needs 2..%d ranks", NMAX);
    run_layout(0);
    run_layout(1);
    MPI_Finalize();
    if (wrank == 0)
        printf("intercomm_coll: OK\n");
    return 0;
}
