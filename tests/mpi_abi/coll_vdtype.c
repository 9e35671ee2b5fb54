/* SPDX-License-Identifier: BSD-3-Clause */
/* The v and w collectives (gatherv, scatterv, allgatherv, alltoallv, alltoallw) on
 * non-contiguous types, blocks of about 3 MiB with counts that differ by rank: strided on
 * some ranks or for some peers, contiguous elsewhere, gaps between the blocks, in place
 * too. Checks every element and every gap, and that no rank's peak memory grows by a
 * copy of the message (the blocks move as layouts, piece by piece). */
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;
static MPI_Datatype every2; /* one int, extent two ints */
static int nb;               /* the nonblocking forms, the type freed before the wait */

/* The strided type for one call: a duplicate in nonblocking mode, which the caller frees
 * before waiting (the request keeps it alive). */
static MPI_Datatype e2_get(void)
{
    MPI_Datatype t = every2;
    if (nb)
        CHECK_OK(MPI_Type_dup(every2, &t));
    return t;
}

/* Blocking call, or nonblocking call (setting q_) then the type freed, then the wait. */
#define RUN(e2, blocking, nonblocking)                                                  \
    do {                                                                                \
        if (nb) {                                                                       \
            MPI_Request q_;                                                             \
            CHECK_OK(nonblocking);                                                      \
            MPI_Type_free(&(e2));                                                       \
            CHECK_OK(MPI_Wait(&q_, MPI_STATUS_IGNORE));                                 \
        } else {                                                                        \
            CHECK_OK(blocking);                                                         \
        }                                                                               \
    } while (0)

#define GAP (-7)
#define M ((3 << 18) + 1) /* ints in the largest block: 3 MiB + 4 B */
#define LIMIT_KIB (3 * 1024) /* less than one block; a packed copy is n blocks */

static int cnt(int from, int to)
{
    return M - from * 1001 - to * 13;
}

static int val(int from, int to, int i)
{
    return from * 1000003 + to * 7919 + i % 5000;
}

/* Element i of a block that starts at element `at` of buf, strided (every2) or not. */
static int *elem(int *buf, int str, size_t at, int i)
{
    return str ? buf + 2 * (at + (size_t)i) : buf + at + (size_t)i;
}

static int *alloc_gap(size_t ints)
{
    int *b = malloc(ints * sizeof(int));
    CHECK(b, "out of memory");
    for (size_t i = 0; i < ints; i++)
        b[i] = GAP;
    return b;
}

/* Every int of buf is the value of its block's element, or a gap. blocks: n starts
 * (in elements) and counts, senders `from[k]` to `to[k]`; from < 0: left as gaps. */
typedef struct blk {
    size_t at;
    int count, from, to, str;
} blk_t;

static void check_buf(const char *what, const int *buf, size_t ints, const blk_t *b, int n)
{
    char *want_set = calloc(ints, 1);
    CHECK(want_set, "out of memory");
    for (int k = 0; k < n; k++)
        for (int i = 0; b[k].from >= 0 && i < b[k].count; i++) {
            size_t at = b[k].str ? 2 * (b[k].at + (size_t)i) : b[k].at + (size_t)i;
            CHECK(buf[at] == val(b[k].from, b[k].to, i), "%s: block %d element %d is %d, want %d",
                  what, k, i, buf[at], val(b[k].from, b[k].to, i));
            want_set[at] = 1;
        }
    for (size_t i = 0; i < ints; i++)
        CHECK(want_set[i] || buf[i] == GAP, "%s: int %zu outside the blocks is %d", what, i,
              buf[i]);
    free(want_set);
}

/* gatherv to the last rank (is_gather) or scatterv from it. The root's blocks are
 * strided with 3-element gaps between them; the other side is strided on even ranks. */
static void test_gsv(int is_gather, int in_place)
{
    char what[64];
    snprintf(what, sizeof(what), "%s%s%s", nb ? "i" : "", is_gather ? "gatherv" : "scatterv",
             in_place ? " in place" : "");
    const int root = size - 1, one_str = rank % 2 == 0;
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    blk_t *blks = malloc(size * sizeof(blk_t));
    size_t elems = 3;
    for (int r = 0; r < size; r++) {
        counts[r] = cnt(r, root);
        displs[r] = (int)elems;
        blks[r] = (blk_t){elems, counts[r], r, root, 1};
        elems += (size_t)counts[r] + 3;
    }
    int *big = rank == root ? alloc_gap(2 * elems) : NULL;
    int *one = alloc_gap(one_str ? 2 * (size_t)M : (size_t)M);
    const int mine = cnt(rank, root);
    for (int i = 0; is_gather && i < mine; i++)
        *elem(one, one_str, 0, i) = val(rank, root, i);
    for (int r = 0; rank == root && r < size; r++)
        if (!is_gather || (in_place && r == root))
            for (int i = 0; i < counts[r]; i++)
                *elem(big, 1, displs[r], i) = val(r, root, i);
    MPI_Datatype e2 = e2_get(), ot = one_str ? e2 : MPI_INT;
    const void *sb = is_gather ? (rank == root && in_place ? MPI_IN_PLACE : one) : big;
    void *rb = is_gather ? big : (rank == root && in_place ? MPI_IN_PLACE : one);
    long before = hwm_kib();
    if (is_gather)
        RUN(e2, MPI_Gatherv(sb, mine, ot, rb, counts, displs, e2, root, MPI_COMM_WORLD),
            MPI_Igatherv(sb, mine, ot, rb, counts, displs, e2, root, MPI_COMM_WORLD, &q_));
    else
        RUN(e2, MPI_Scatterv(sb, counts, displs, e2, rb, mine, ot, root, MPI_COMM_WORLD),
            MPI_Iscatterv(sb, counts, displs, e2, rb, mine, ot, root, MPI_COMM_WORLD, &q_));
    check_peak(what, before, LIMIT_KIB);
    if (rank == root)
        check_buf(what, big, 2 * elems, blks, size);
    if (!is_gather && !(rank == root && in_place)) {
        blk_t b = {0, mine, rank, root, one_str};
        check_buf(what, one, one_str ? 2 * (size_t)M : (size_t)M, &b, 1);
    }
    free(big);
    free(one);
    free(blks);
    free(counts);
    free(displs);
}

/* allgatherv: the receive side strided on even ranks, contiguous on odd ones, gaps
 * between blocks; the send side strided on every third rank. Counts unequal (the ring),
 * equal and large (agreed, then the ring), equal and small (the allgather in scratch). */
static void test_allgatherv(int equal, int small, int in_place)
{
    char what[64];
    snprintf(what, sizeof(what), "%sallgatherv %s%s%s", nb ? "i" : "", equal ? "equal" : "unequal",
             small ? " small" : "", in_place ? " in place" : "");
    const int r_str = rank % 2 == 0, s_str = rank % 3 == 0;
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    blk_t *blks = malloc(size * sizeof(blk_t));
    size_t elems = 1;
    for (int r = 0; r < size; r++) {
        counts[r] = small ? 1000 + 7 * !equal * r : equal ? M : cnt(r, 0);
        displs[r] = (int)elems;
        blks[r] = (blk_t){elems, counts[r], r, 0, r_str};
        elems += (size_t)counts[r] + 2;
    }
    int *rbuf = alloc_gap(2 * elems), *sbuf = alloc_gap(2 * (size_t)M);
    for (int i = 0; i < counts[rank]; i++) {
        *elem(sbuf, s_str, 0, i) = val(rank, 0, i);
        if (in_place)
            *elem(rbuf, r_str, displs[rank], i) = val(rank, 0, i);
    }
    long before = hwm_kib();
    MPI_Datatype e2 = e2_get(), st = s_str ? e2 : MPI_INT, rt = r_str ? e2 : MPI_INT;
    const void *sb = in_place ? MPI_IN_PLACE : sbuf;
    RUN(e2, MPI_Allgatherv(sb, counts[rank], st, rbuf, counts, displs, rt, MPI_COMM_WORLD),
        MPI_Iallgatherv(sb, counts[rank], st, rbuf, counts, displs, rt, MPI_COMM_WORLD, &q_));
    check_peak(what, before, LIMIT_KIB);
    check_buf(what, rbuf, 2 * elems, blks, size);
    free(rbuf);
    free(sbuf);
    free(blks);
    free(counts);
    free(displs);
}

/* alltoallv: strided on even ranks, contiguous on odd ones (the ranks' types differ);
 * alltoallw: per peer, strided where rank + peer is even (sending) or the peer is even
 * (receiving), contiguous otherwise, displacements in bytes. */
static void test_alltoall(int w)
{
    char what[32];
    snprintf(what, sizeof(what), "%salltoall%s", nb ? "i" : "", w ? "w" : "v");
    MPI_Datatype e2 = e2_get();
    int *sc = malloc(size * sizeof(int)), *rc = malloc(size * sizeof(int));
    int *sd = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    MPI_Datatype *st = malloc(size * sizeof(MPI_Datatype)), *rt = malloc(size * sizeof(MPI_Datatype));
    blk_t *sblk = malloc(size * sizeof(blk_t)), *rblk = malloc(size * sizeof(blk_t));
    size_t selems = 1, relems = 2;
    for (int p = 0; p < size; p++) {
        int s_str = w ? (rank + p) % 2 == 0 : rank % 2 == 0;
        int r_str = w ? p % 2 == 0 : rank % 2 == 0;
        sc[p] = cnt(rank, p);
        rc[p] = cnt(p, rank);
        st[p] = s_str ? e2 : MPI_INT;
        rt[p] = r_str ? e2 : MPI_INT;
        /* alltoallw: both sides in ints (every2 blocks at even offsets) */
        size_t s_at = w && !s_str ? 2 * selems : selems, r_at = w && !r_str ? 2 * relems : relems;
        sblk[p] = (blk_t){s_at, sc[p], rank, p, s_str};
        rblk[p] = (blk_t){r_at, rc[p], p, rank, r_str};
        sd[p] = w ? (int)(2 * selems * sizeof(int)) : (int)selems;
        rd[p] = w ? (int)(2 * relems * sizeof(int)) : (int)relems;
        selems += (size_t)sc[p] + 1;
        relems += (size_t)rc[p] + 2;
    }
    /* alltoallv addresses elements of its one type (strided: pairs of ints) */
    int *sbuf = alloc_gap(2 * selems), *rbuf = alloc_gap(2 * relems);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < sc[p]; i++)
            *elem(sbuf, sblk[p].str, sblk[p].at, i) = val(rank, p, i);
    long before = hwm_kib();
    if (w)
        RUN(e2, MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD),
            MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &q_));
    else
        RUN(e2, MPI_Alltoallv(sbuf, sc, sd, st[0], rbuf, rc, rd, rt[0], MPI_COMM_WORLD),
            MPI_Ialltoallv(sbuf, sc, sd, st[0], rbuf, rc, rd, rt[0], MPI_COMM_WORLD, &q_));
    check_peak(what, before, LIMIT_KIB);
    check_buf(what, rbuf, 2 * relems, rblk, size);
    check_buf(what, sbuf, 2 * selems, sblk, size); /* the send buffer is input only */
    free(sbuf);
    free(rbuf);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    free(st);
    free(rt);
    free(sblk);
    free(rblk);
}

/* alltoallv in place on the strided type (through a packed copy), and a bcast on it:
 * in nonblocking mode the type is freed before the wait, and the completion still
 * unpacks with it. */
static void test_in_place_small(void)
{
    const int k = 1000;
    int *buf = alloc_gap(2 * (size_t)k * size), *counts = malloc(size * sizeof(int));
    int *displs = malloc(size * sizeof(int));
    blk_t *blks = malloc(size * sizeof(blk_t));
    for (int p = 0; p < size; p++) {
        counts[p] = k;
        displs[p] = p * k;
        for (int i = 0; i < k; i++)
            *elem(buf, 1, (size_t)p * k, i) = val(rank, p, i);
        blks[p] = (blk_t){(size_t)p * k, k, p, rank, 1};
    }
    MPI_Datatype e2 = e2_get();
    RUN(e2, MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts, displs, e2,
                          MPI_COMM_WORLD),
        MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts, displs, e2,
                       MPI_COMM_WORLD, &q_));
    check_buf(nb ? "ialltoallv in place" : "alltoallv in place", buf, 2 * (size_t)k * size, blks,
              size);
    for (size_t i = 0; i < 2 * (size_t)k * size; i++)
        buf[i] = GAP;
    for (int i = 0; rank == 0 && i < k; i++)
        *elem(buf, 1, 0, i) = val(0, 1, i);
    blk_t b = {0, k, 0, 1, 1};
    e2 = e2_get();
    RUN(e2, MPI_Bcast(buf, k, e2, 0, MPI_COMM_WORLD),
        MPI_Ibcast(buf, k, e2, 0, MPI_COMM_WORLD, &q_));
    check_buf(nb ? "ibcast" : "bcast", buf, 2 * (size_t)k * size, &b, 1);
    free(buf);
    free(counts);
    free(displs);
    free(blks);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    void *warm = warm_segment(MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype v;
    CHECK_OK(MPI_Type_vector(1, 1, 2, MPI_INT, &v));
    CHECK_OK(MPI_Type_create_resized(v, 0, 2 * sizeof(int), &every2));
    CHECK_OK(MPI_Type_commit(&every2));
    MPI_Type_free(&v);
    for (nb = 0; nb < 2; nb++) {
        for (int in_place = 0; in_place < 2; in_place++) {
            test_gsv(1, in_place);
            test_gsv(0, in_place);
        }
        for (int in_place = 0; in_place < 2; in_place++) {
            test_allgatherv(0, 0, in_place);
            test_allgatherv(1, 0, in_place);
            test_allgatherv(0, 1, in_place);
            test_allgatherv(1, 1, in_place);
        }
        test_alltoall(0);
        test_alltoall(1);
        test_in_place_small();
    }
    MPI_Type_free(&every2);
    free(warm);
    CHECK_OK(MPI_Finalize());
    if (rank == 0)
        printf("coll_vdtype: %d ranks OK\n", size);
    return 0;
}
