/* SPDX-License-Identifier: BSD-3-Clause */
/* Derived datatypes across ranks: each type's data sent typed and received
 * typed, packed or as bytes, compared element by element; holes of the
 * receive buffer stay untouched. Pack/Unpack/Pack_size, Get_count and
 * Get_elements. Run with 2..4 ranks (pairs 0-1 do the work). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"

/* Point-to-point only (this program tests p2p, not collectives): everybody
 * reports to rank 0, which releases everybody, on a communicator of its own
 * (wildcard receives of the tests never see it). */
static MPI_Comm bar_comm = MPI_COMM_NULL;
static void p2p_barrier(void)
{
    int r, n, x = 0;
    if (bar_comm == MPI_COMM_NULL)
        MPI_Comm_dup(MPI_COMM_WORLD, &bar_comm);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (r == 0) {
        for (int i = 1; i < n; i++)
            MPI_Recv(&x, 1, MPI_INT, i, 32000, bar_comm, MPI_STATUS_IGNORE);
        for (int i = 1; i < n; i++)
            MPI_Send(&x, 1, MPI_INT, i, 32001, bar_comm);
    } else {
        MPI_Send(&x, 1, MPI_INT, 0, 32000, bar_comm);
        MPI_Recv(&x, 1, MPI_INT, 0, 32001, bar_comm, MPI_STATUS_IGNORE);
    }
}


#define N 4096

static int rank, size;

/* Send count elements of type t from a buffer filled with i, receive them with the same
 * type into a buffer of -1: the selected ints must match, everything else stay -1. */
static void roundtrip(const char *name, MPI_Datatype t, int count, int span)
{
    int *sbuf = malloc(sizeof(int) * (size_t)span), *rbuf = malloc(sizeof(int) * (size_t)span);
    int *pk = malloc(sizeof(int) * (size_t)span);
    for (int i = 0; i < span; i++) {
        sbuf[i] = i;
        rbuf[i] = -1;
    }
    int tsize;
    MPI_Type_size(t, &tsize);
    if (rank == 0) {
        MPI_Send(sbuf, count, t, 1, 7, MPI_COMM_WORLD);
        /* And the same data as packed bytes, for rank 1 to compare. */
        int pos = 0, psize;
        MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize);
        CHECK(psize == count * tsize, "%s: Pack_size %d, expected %d", name, psize, count * tsize);
        MPI_Pack(sbuf, count, t, pk, psize, &pos, MPI_COMM_WORLD);
        CHECK(pos == psize, "%s: Pack position %d of %d", name, pos, psize);
        MPI_Send(pk, pos, MPI_PACKED, 1, 8, MPI_COMM_WORLD);
        /* Typed receive of the bytes rank 1 sends back. */
        MPI_Recv(rbuf, count, t, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int *ref = malloc(sizeof(int) * (size_t)span);
        for (int i = 0; i < span; i++)
            ref[i] = -1;
        pos = 0;
        MPI_Unpack(pk, psize, &pos, ref, count, t, MPI_COMM_WORLD);
        for (int i = 0; i < span; i++)
            CHECK(rbuf[i] == ref[i], "%s: int %d is %d after the typed receive, %d expected",
                  name, i, rbuf[i], ref[i]);
        free(ref);
    } else if (rank == 1) {
        MPI_Status st;
        MPI_Recv(rbuf, count, t, 0, 7, MPI_COMM_WORLD, &st);
        int n;
        MPI_Get_count(&st, t, &n);
        CHECK(n == count, "%s: Get_count %d, expected %d", name, n, count);
        MPI_Get_elements(&st, MPI_INT, &n);
        CHECK(n == count * tsize / 4, "%s: Get_elements %d", name, n);
        MPI_Recv(pk, count * tsize, MPI_PACKED, 0, 8, MPI_COMM_WORLD, &st);
        /* Unpacking the packed stream gives the same buffer as the typed receive. */
        int *ref = malloc(sizeof(int) * (size_t)span);
        for (int i = 0; i < span; i++)
            ref[i] = -1;
        int pos = 0;
        MPI_Unpack(pk, count * tsize, &pos, ref, count, t, MPI_COMM_WORLD);
        int selected = 0;
        for (int i = 0; i < span; i++) {
            CHECK(rbuf[i] == ref[i], "%s: int %d is %d, %d expected", name, i, rbuf[i], ref[i]);
            CHECK(rbuf[i] == -1 || rbuf[i] == i, "%s: int %d is %d", name, i, rbuf[i]);
            selected += rbuf[i] != -1;
        }
        CHECK(selected * 4 <= count * tsize, "%s: %d ints written", name, selected);
        /* Send the packed bytes back as plain bytes: rank 0 receives them typed. */
        MPI_Send(pk, count * tsize, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
        free(ref);
    }
    free(sbuf);
    free(rbuf);
    free(pk);
}

/* 16 MiB of every other int: Isend whose type is freed before the wait, Ssend,
 * and a contiguous send, each into an Irecv of the strided type posted before
 * the send starts (rank 1 says "go"; an unexpected message is buffered whole by
 * the receiver, whatever its type). The data moves in pieces (rmp layouts): no
 * side's peak memory grows by a whole-message copy. */
static void big_go(int tag)
{
    int x = 0;
    if (rank == 0)
        MPI_Recv(&x, 0, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(&x, 0, MPI_INT, 0, tag, MPI_COMM_WORLD);
}

static void big_pipelined(void)
{
    const int n = 4 << 20; /* elements picked: 16 MiB */
    int *b = malloc(sizeof(int) * 2 * (size_t)n), *c = malloc(sizeof(int) * (size_t)n);
    for (size_t i = 0; i < 2 * (size_t)n; i++)
        b[i] = rank == 0 ? (int)i : -1;
    for (int i = 0; i < n; i++)
        c[i] = 2 * i;
    MPI_Datatype t, t2;
    MPI_Type_vector(n, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Type_dup(t, &t2);
    long before = hwm_kib();
    MPI_Request rq;
    MPI_Status st;
    if (rank == 0) {
        big_go(50);
        MPI_Isend(b, 1, t2, 1, 40, MPI_COMM_WORLD, &rq);
        MPI_Type_free(&t2); /* the send keeps its type */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        big_go(51);
        MPI_Ssend(b, 1, t, 1, 41, MPI_COMM_WORLD);
        big_go(52);
        MPI_Send(c, n, MPI_INT, 1, 42, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Irecv(b, 1, t, 0, 40, MPI_COMM_WORLD, &rq);
        big_go(50);
        MPI_Wait(&rq, &st);
        int cnt;
        MPI_Get_count(&st, t, &cnt);
        CHECK(cnt == 1, "big Irecv: Get_count %d", cnt);
        for (size_t i = 0; i < 2 * (size_t)n; i++)
            CHECK(b[i] == (i % 2 ? -1 : (int)i), "big Irecv: int %zu is %d", i, b[i]);
        for (size_t i = 0; i < 2 * (size_t)n; i++)
            b[i] = -1;
        MPI_Irecv(b, 1, t, 0, 41, MPI_COMM_WORLD, &rq);
        big_go(51);
        MPI_Wait(&rq, &st);
        for (size_t i = 0; i < 2 * (size_t)n; i++)
            CHECK(b[i] == (i % 2 ? -1 : (int)i), "big Ssend/Recv: int %zu is %d", i, b[i]);
        for (size_t i = 0; i < 2 * (size_t)n; i++)
            b[i] = -1;
        MPI_Irecv(b, 1, t, 0, 42, MPI_COMM_WORLD, &rq);
        big_go(52);
        MPI_Wait(&rq, &st);
        for (size_t i = 0; i < 2 * (size_t)n; i++)
            CHECK(b[i] == (i % 2 ? -1 : (int)i), "big contiguous into strided: int %zu is %d", i,
                  b[i]);
        MPI_Type_free(&t2);
    }
    long grew = hwm_kib() - before;
    if (rank < 2)
        CHECK(before > 0 && grew < 8 * 1024, "16 MiB strided messages: peak memory grew %ld KiB",
              grew);
    else
        MPI_Type_free(&t2);
    MPI_Type_free(&t);
    free(b);
    free(c);
}

static void check_extent(const char *name, MPI_Datatype t, MPI_Aint lb, MPI_Aint extent,
                         MPI_Aint tlb, MPI_Aint textent, int tsize)
{
    MPI_Aint l, e;
    MPI_Count lc, ec;
    int s;
    MPI_Type_get_extent(t, &l, &e);
    CHECK(l == lb && e == extent, "%s: lb %ld extent %ld, expected %ld %ld", name, (long)l,
          (long)e, (long)lb, (long)extent);
    MPI_Type_get_true_extent(t, &l, &e);
    CHECK(l == tlb && e == textent, "%s: true lb %ld extent %ld, expected %ld %ld", name,
          (long)l, (long)e, (long)tlb, (long)textent);
    MPI_Type_get_extent_c(t, &lc, &ec);
    CHECK(lc == lb && ec == extent, "%s: _c extent", name);
    MPI_Type_size(t, &s);
    CHECK(s == tsize, "%s: size %d, expected %d", name, s, tsize);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &bar_comm);
    CHECK(size >= 2, "needs 2 ranks");

    MPI_Datatype vec, idx, blk, hidx, st, rs, sub, big, vst, dup;
    /* vector: 3 blocks of 2, stride 5 */
    MPI_Type_vector(3, 2, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    check_extent("vector", vec, 0, 12 * 4, 0, 12 * 4, 24);
    roundtrip("vector", vec, 7, N);

    int bl[3] = {2, 1, 3}, ds[3] = {7, 0, 20};
    MPI_Type_indexed(3, bl, ds, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    check_extent("indexed", idx, 0, 23 * 4, 0, 23 * 4, 24);
    roundtrip("indexed", idx, 5, N);

    int bds[4] = {9, 1, 4, 30};
    MPI_Type_create_indexed_block(4, 2, bds, MPI_INT, &blk);
    MPI_Type_commit(&blk);
    roundtrip("indexed_block", blk, 3, N);

    int hbl[2] = {3, 1};
    MPI_Aint hds[2] = {40, 4};
    MPI_Type_create_hindexed(2, hbl, hds, MPI_INT, &hidx);
    MPI_Type_commit(&hidx);
    check_extent("hindexed", hidx, 4, 48, 4, 48, 16);
    roundtrip("hindexed", hidx, 9, N);

    /* struct with gaps: {int a; (gap) int b[2] at 12; (gap) double-aligned int at 32} */
    int sbl[3] = {1, 2, 1};
    MPI_Aint sds[3] = {0, 12, 32};
    MPI_Datatype sts[3] = {MPI_INT, MPI_INT, MPI_INT};
    MPI_Type_create_struct(3, sbl, sds, sts, &st);
    MPI_Type_commit(&st);
    check_extent("struct", st, 0, 36, 0, 36, 16);
    roundtrip("struct", st, 11, N);

    /* the same struct resized to 48 bytes (a gap after every element), and to a negative lb */
    MPI_Type_create_resized(st, 0, 48, &rs);
    MPI_Type_commit(&rs);
    check_extent("resized", rs, 0, 48, 0, 36, 16);
    roundtrip("resized", rs, 13, N);

    /* a C struct with padding: {char c; double d; int i;} */
    struct cs { char c; double d; int i; };
    MPI_Aint cds[3] = {offsetof(struct cs, c), offsetof(struct cs, d), offsetof(struct cs, i)};
    int cbl[3] = {1, 1, 1};
    MPI_Datatype cts[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, ctype;
    MPI_Type_create_struct(3, cbl, cds, cts, &ctype);
    MPI_Type_commit(&ctype);
    MPI_Aint clb, cext;
    MPI_Type_get_extent(ctype, &clb, &cext);
    CHECK(cext == (MPI_Aint)sizeof(struct cs), "C struct extent %ld, sizeof %zu", (long)cext,
          sizeof(struct cs));
    if (rank < 2) {
        struct cs a[5], b[5];
        memset(b, 0x5a, sizeof(b));
        for (int i = 0; i < 5; i++)
            a[i] = (struct cs){(char)('a' + i), i * 1.5, -i};
        MPI_Sendrecv(a, 5, ctype, 1 - rank, 3, b, 5, ctype, 1 - rank, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < 5; i++)
            CHECK(b[i].c == 'a' + i && b[i].d == i * 1.5 && b[i].i == -i, "C struct %d", i);
    }

    /* subarray: 3x4 block at (2,5) of a 10x12 C array, and Fortran order */
    int sizes[2] = {10, 12}, subs[2] = {3, 4}, starts[2] = {2, 5};
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
    MPI_Type_commit(&sub);
    check_extent("subarray", sub, 0, 120 * 4, (2 * 12 + 5) * 4, ((4 * 12 + 8) - (2 * 12 + 5) + 1) * 4, 48);
    roundtrip("subarray", sub, 2, N);
    MPI_Datatype subf;
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &subf);
    MPI_Type_commit(&subf);
    roundtrip("subarray_f", subf, 3, N);

    /* a vector of structs (non-contiguous child), and a dup of it */
    MPI_Type_vector(4, 2, 3, rs, &vst);
    MPI_Type_commit(&vst);
    roundtrip("vector_of_struct", vst, 2, N * 4);
    MPI_Type_dup(vst, &dup);
    MPI_Type_commit(&dup);
    roundtrip("dup", dup, 2, N * 4);

    /* large strided vector: a few MB packed in pieces */
    MPI_Type_vector(200000, 1, 3, MPI_INT, &big);
    MPI_Type_commit(&big);
    roundtrip("big_vector", big, 1, 600000);

    big_pipelined();

    /* freeing a type used by another keeps the other working */
    MPI_Type_free(&st);
    CHECK(st == MPI_DATATYPE_NULL, "Type_free did not reset the handle");
    roundtrip("resized_after_free", rs, 4, N);

    /* pair types: sizes and extents of the C structs */
    struct { double v; int i; } di;
    struct { short v; int i; } si;
    int s;
    MPI_Aint lb, ext;
    MPI_Type_size(MPI_DOUBLE_INT, &s);
    MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &ext);
    CHECK(s == 12 && ext == (MPI_Aint)sizeof(di), "MPI_DOUBLE_INT size %d extent %ld", s,
          (long)ext);
    MPI_Type_size(MPI_SHORT_INT, &s);
    MPI_Type_get_extent(MPI_SHORT_INT, &lb, &ext);
    CHECK(s == 6 && ext == (MPI_Aint)sizeof(si), "MPI_SHORT_INT size %d extent %ld", s,
          (long)ext);
    if (rank < 2) {
        struct { double v; int i; } a[3] = {{1.5, 1}, {2.5, 2}, {3.5, 3}}, b[3];
        memset(b, 0, sizeof(b));
        MPI_Sendrecv(a, 3, MPI_DOUBLE_INT, 1 - rank, 4, b, 3, MPI_DOUBLE_INT, 1 - rank, 4,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 3; i++)
            CHECK(b[i].v == a[i].v && b[i].i == a[i].i, "DOUBLE_INT %d", i);
    }

    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    MPI_Type_free(&blk);
    MPI_Type_free(&hidx);
    MPI_Type_free(&rs);
    MPI_Type_free(&ctype);
    MPI_Type_free(&sub);
    MPI_Type_free(&subf);
    MPI_Type_free(&vst);
    MPI_Type_free(&dup);
    MPI_Type_free(&big);
    p2p_barrier();
    if (rank == 0)
        printf("p2p_dtype: ok\n");
    MPI_Comm_free(&bar_comm);
    MPI_Finalize();
    return 0;
}
