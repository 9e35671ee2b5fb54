/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives on non-contiguous data larger than one piece (1 MiB): bcast where the
 * ranks' datatypes differ (strided at the root, contiguous on another rank), allreduce
 * (also in place), reduce, scan, exscan and reduce_scatter_block on a strided vector;
 * gather, scatter, allgather and alltoall (also in place, blocking and nonblocking) of
 * blocks larger than a piece, strided on some ranks and contiguous on others. Checks
 * every element and every gap, and that no rank's peak memory grows by a copy of the
 * whole message. */
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* 5 MiB + 12 B of picked ints: five pieces and a short one. */
#define N ((5 << 18) + 3)
#define GAP (-7)

static int val(int r, size_t i)
{
    return (r + 1) * (int)(i % 1000) + r;
}

static int *strided(size_t n, int fill_rank)
{
    int *b = malloc(2 * n * sizeof(int));
    CHECK(b, "out of memory");
    for (size_t i = 0; i < 2 * n; i++)
        b[i] = i % 2 || fill_rank < 0 ? GAP : val(fill_rank, i / 2);
    return b;
}

static void test_bcast(MPI_Datatype vec)
{
    const int root = size - 1, flat = root == 1 ? 0 : 1;
    int *b = strided(N, rank == root ? root : -1);
    long before = hwm_kib();
    if (rank == flat) /* same signature, contiguous: the ranks must agree on the pieces */
        CHECK_OK(MPI_Bcast(b, N, MPI_INT, root, MPI_COMM_WORLD));
    else
        CHECK_OK(MPI_Bcast(b, 1, vec, root, MPI_COMM_WORLD));
    check_peak("bcast", before, 3 * 1024);
    for (size_t i = 0; i < 2 * (size_t)N; i++) {
        int want = rank == flat ? (i < N ? val(root, i) : GAP) : i % 2 ? GAP : val(root, i / 2);
        CHECK(b[i] == want, "bcast: int %zu is %d, want %d", i, b[i], want);
    }
    free(b);
}

static int sum_to(int hi, size_t i)
{
    int s = 0;
    for (int r = 0; r <= hi; r++)
        s += val(r, i);
    return s;
}

/* kind: 0 allreduce, 1 allreduce in place, 2 reduce at root 1, 3 scan, 4 exscan. */
static void test_reduce(MPI_Datatype vec, int kind)
{
    static const char *names[] = {"allreduce", "allreduce in place", "reduce", "scan",
                                  "exscan"};
    int *s = strided(N, rank), *r = kind == 1 ? s : strided(N, -1);
    long before = hwm_kib();
    const void *in = kind == 1 ? MPI_IN_PLACE : s;
    switch (kind) {
    case 0:
    case 1: CHECK_OK(MPI_Allreduce(in, r, 1, vec, MPI_SUM, MPI_COMM_WORLD)); break;
    case 2: CHECK_OK(MPI_Reduce(s, rank == 1 ? r : NULL, 1, vec, MPI_SUM, 1, MPI_COMM_WORLD)); break;
    case 3: CHECK_OK(MPI_Scan(s, r, 1, vec, MPI_SUM, MPI_COMM_WORLD)); break;
    default: CHECK_OK(MPI_Exscan(s, r, 1, vec, MPI_SUM, MPI_COMM_WORLD)); break;
    }
    check_peak(names[kind], before, 3 * 1024);
    int written = !(kind == 2 && rank != 1) && !(kind == 4 && rank == 0);
    int hi = kind == 3 ? rank : kind == 4 ? rank - 1 : size - 1;
    for (size_t i = 0; i < 2 * (size_t)N; i++) {
        int want = i % 2 || !written ? GAP : sum_to(hi, i / 2);
        CHECK(r[i] == want, "%s: int %zu is %d, want %d", names[kind], i, r[i], want);
    }
    if (kind != 1)
        for (size_t i = 0; i < 2 * (size_t)N; i++)
            CHECK(s[i] == (i % 2 ? GAP : val(rank, i / 2)), "%s: input changed at %zu",
                  names[kind], i);
    free(s);
    if (kind != 1)
        free(r);
}

/* Each block is 3 elements of a 100,000-int strided vector (1.2 MB): more than one
 * piece's share of a block at every size. */
static void test_reduce_scatter_block(void)
{
    const int m = 100000, per = 3;
    MPI_Datatype v;
    CHECK_OK(MPI_Type_vector(m, 1, 2, MPI_INT, &v));
    CHECK_OK(MPI_Type_commit(&v));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(v, &lb, &ext);
    size_t ints = (size_t)ext / sizeof(int), total = ints * per * (size_t)size;
    int *s = malloc(total * sizeof(int)), *r = malloc(ints * per * sizeof(int));
    CHECK(s && r, "out of memory");
    /* Int k of the picked stream is element-wise (k); unpicked ints are gaps. */
    for (size_t i = 0; i < total; i++)
        s[i] = (i % ints) % 2 ? GAP : val(rank, i / ints * m + (i % ints) / 2);
    for (size_t i = 0; i < ints * per; i++)
        r[i] = GAP;
    CHECK_OK(MPI_Reduce_scatter_block(s, r, per, v, MPI_SUM, MPI_COMM_WORLD));
    for (size_t i = 0; i < ints * per; i++) {
        size_t k = ((size_t)rank * per + i / ints) * m + (i % ints) / 2;
        int want = (i % ints) % 2 ? GAP : sum_to(size - 1, k);
        CHECK(r[i] == want, "reduce_scatter_block: int %zu is %d, want %d", i, r[i], want);
    }
    free(s);
    free(r);
    MPI_Type_free(&v);
}

/* ---- Data-moving collectives: blocks of 3 MiB + 4 B of picked ints, each rank's
 * buffer strided or contiguous (the ranks' types differ; the signatures match). */
#define M ((3 << 18) + 1)

static MPI_Datatype vecm;

static size_t blk_ints(int str)
{
    return str ? 2 * (size_t)M - 1 : M;
}

static int *blk_alloc(int str, int nblk)
{
    size_t n = blk_ints(str) * (size_t)nblk;
    int *b = malloc(n * sizeof(int));
    CHECK(b, "out of memory");
    for (size_t i = 0; i < n; i++)
        b[i] = GAP;
    return b;
}

static int *blk_at(int *b, int str, int blk, size_t i)
{
    return b + (size_t)blk * blk_ints(str) + (str ? 2 * i : i);
}

/* The value of int i of the block that rank `from` sends to rank `to`. */
static int mv_val(int from, int to, size_t i)
{
    return from * 1000003 + to * 7919 + (int)(i % 5000);
}

static void blk_fill(int *b, int str, int blk, int from, int to)
{
    for (size_t i = 0; i < M; i++)
        *blk_at(b, str, blk, i) = mv_val(from, to, i);
}

/* Block blk of b holds what `from` sent `to`, or (from < 0) is untouched; gaps kept. */
static void blk_check(const char *what, int *b, int str, int blk, int from, int to)
{
    size_t base = (size_t)blk * blk_ints(str);
    for (size_t k = 0; k < blk_ints(str); k++) {
        int picked = !str || k % 2 == 0;
        int want = picked && from >= 0 ? mv_val(from, to, str ? k / 2 : k) : GAP;
        CHECK(b[base + k] == want, "%s: block %d int %zu is %d, want %d", what, blk, k,
              b[base + k], want);
    }
}

#define BLK_ARGS(str) (str) ? 1 : M, (str) ? vecm : MPI_INT

/* kind: 0 gather, 1 scatter, 2 allgather, 3 alltoall; in place where MPI allows. */
/* nb: the nonblocking form (its blocks move as layouts too). */
static void test_move(int kind, int in_place, int nb)
{
    static const char *names[] = {"gather", "scatter", "allgather", "alltoall"};
    char what[64];
    snprintf(what, sizeof(what), "%s%s%s", nb ? "i" : "", names[kind], in_place ? " in place" : "");
    MPI_Request q = MPI_REQUEST_NULL;
    const int root = kind == 0 ? size - 1 : 0, s_str = rank % 2 == 0, r_str = rank != 1;
    int sblks = kind == 1 || kind == 3 ? size : 1, rblks = kind == 1 ? 1 : size;
    int *sb = blk_alloc(s_str, sblks), *rb = blk_alloc(r_str, rblks);
    for (int b = 0; b < sblks; b++)
        blk_fill(sb, s_str, b, rank, sblks > 1 ? b : -1);
    if (in_place && kind == 3)
        for (int b = 0; b < size; b++)
            blk_fill(rb, r_str, b, rank, b);
    else if (in_place && kind != 1)
        blk_fill(rb, r_str, rank, rank, -1);
    const void *s = in_place && kind != 1 ? MPI_IN_PLACE : sb;
    void *r = in_place && kind == 1 && rank == root ? MPI_IN_PLACE : rb;
    long before = hwm_kib();
    switch (kind) {
    case 0:
        if (rank != root)
            s = sb;
        if (nb)
            CHECK_OK(MPI_Igather(s, BLK_ARGS(s_str), r, BLK_ARGS(r_str), root, MPI_COMM_WORLD, &q));
        else
            CHECK_OK(MPI_Gather(s, BLK_ARGS(s_str), r, BLK_ARGS(r_str), root, MPI_COMM_WORLD));
        break;
    case 1:
        if (nb)
            CHECK_OK(MPI_Iscatter(s, BLK_ARGS(s_str), r, BLK_ARGS(r_str), root, MPI_COMM_WORLD, &q));
        else
            CHECK_OK(MPI_Scatter(s, BLK_ARGS(s_str), r, BLK_ARGS(r_str), root, MPI_COMM_WORLD));
        break;
    case 2:
        if (nb)
            CHECK_OK(MPI_Iallgather(s, BLK_ARGS(s_str), r, BLK_ARGS(r_str), MPI_COMM_WORLD, &q));
        else
            CHECK_OK(MPI_Allgather(s, BLK_ARGS(s_str), r, BLK_ARGS(r_str), MPI_COMM_WORLD));
        break;
    default:
        if (nb)
            CHECK_OK(MPI_Ialltoall(s, BLK_ARGS(s_str), r, BLK_ARGS(r_str), MPI_COMM_WORLD, &q));
        else
            CHECK_OK(MPI_Alltoall(s, BLK_ARGS(s_str), r, BLK_ARGS(r_str), MPI_COMM_WORLD));
        break;
    }
    CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    if (!(nb && in_place && kind == 3)) /* that one sends from a packed copy (docs/mpi.md) */
        check_peak(what, before, 3 * 1024); /* blocks of 3 MiB */
    switch (kind) {
    case 0:
        for (int b = 0; b < size; b++)
            blk_check(what, rb, r_str, b, rank == root ? b : rank == b && in_place ? b : -1, -1);
        break;
    case 1:
        if (r != MPI_IN_PLACE)
            blk_check(what, rb, r_str, 0, root, rank);
        else
            blk_check(what, rb, r_str, 0, -1, -1);
        for (int b = 0; rank == root && b < size; b++) /* the root's send buffer is input */
            blk_check(what, sb, s_str, b, root, b);
        break;
    case 2:
        for (int b = 0; b < size; b++)
            blk_check(what, rb, r_str, b, b, -1);
        break;
    default:
        for (int b = 0; b < size; b++)
            blk_check(what, rb, r_str, b, b, rank);
        break;
    }
    free(sb);
    free(rb);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    void *warm = warm_segment(MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype vec;
    CHECK_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    CHECK_OK(MPI_Type_commit(&vec));
    if (size > 1)
        test_bcast(vec);
    for (int kind = 0; kind < 5; kind++)
        test_reduce(vec, kind);
    test_reduce_scatter_block();
    CHECK_OK(MPI_Type_vector(M, 1, 2, MPI_INT, &vecm));
    CHECK_OK(MPI_Type_commit(&vecm));
    for (int kind = 0; kind < 4; kind++)
        for (int in_place = 0; in_place < 2; in_place++)
            for (int nb = 0; nb < 2; nb++)
                test_move(kind, in_place, nb);
    MPI_Type_free(&vecm);
    MPI_Type_free(&vec);
    free(warm);
    CHECK_OK(MPI_Finalize());
    if (rank == 0)
        printf("coll_dtype: %d ranks OK\n", size);
    return 0;
}
