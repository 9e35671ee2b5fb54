/* SPDX-License-Identifier: BSD-3-Clause */
/* Reductions: MINLOC/MAXLOC on pair types, a non-commutative user op whose result
 * depends on rank order (blocking, nonblocking, scan, every algorithm size), every
 * predefined op on the extended C types, IN_PLACE variants, Reduce_local. */
#include <complex.h>
#include <stdbool.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* 2x2 integer matrix product (mod 2^32): associative, not commutative. */
typedef struct { unsigned a, b, c, d; } mat_t;

static void mat_mul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    CHECK(*dt != MPI_DATATYPE_NULL, "the user op got no datatype");
    mat_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        mat_t r = {x[i].a * y[i].a + x[i].b * y[i].c, x[i].a * y[i].b + x[i].b * y[i].d,
                   x[i].c * y[i].a + x[i].d * y[i].c, x[i].c * y[i].b + x[i].d * y[i].d};
        y[i] = r;
    }
}

static mat_t mat_of(int r, int i)
{
    mat_t m = {(unsigned)(r + 1), (unsigned)(2 * r + i), (unsigned)(i + 3), (unsigned)(r * r + 1)};
    return m;
}

/* x_lo * ... * x_hi in rank order */
static mat_t mat_prefix(int lo, int hi, int i)
{
    mat_t acc = mat_of(lo, i);
    for (int r = lo + 1; r <= hi; r++) {
        mat_t x = acc, y = mat_of(r, i);
        int one = 1;
        mat_mul(&x, &y, &one, &(MPI_Datatype){MPI_INT});
        acc = y;
    }
    return acc;
}

static void test_noncommutative(MPI_Datatype mt, MPI_Op op, int n)
{
    mat_t *in = malloc(n * sizeof(mat_t)), *out = malloc(n * sizeof(mat_t));
    for (int i = 0; i < n; i++)
        in[i] = mat_of(rank, i);
    CHECK_OK(MPI_Allreduce(in, out, n, mt, op, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(memcmp(&out[i], &(mat_t[]){mat_prefix(0, size - 1, i)}[0], sizeof(mat_t)) == 0,
              "allreduce non-commutative element %d of %d", i, n);
    memset(out, 0, n * sizeof(mat_t));
    CHECK_OK(MPI_Reduce(in, out, n, mt, op, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1)
        for (int i = 0; i < n; i++)
            CHECK(memcmp(&out[i], &(mat_t[]){mat_prefix(0, size - 1, i)}[0], sizeof(mat_t)) == 0,
                  "reduce non-commutative element %d", i);
    CHECK_OK(MPI_Scan(in, out, n, mt, op, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(memcmp(&out[i], &(mat_t[]){mat_prefix(0, rank, i)}[0], sizeof(mat_t)) == 0,
              "scan non-commutative element %d", i);
    CHECK_OK(MPI_Exscan(in, out, n, mt, op, MPI_COMM_WORLD));
    for (int i = 0; i < n && rank > 0; i++)
        CHECK(memcmp(&out[i], &(mat_t[]){mat_prefix(0, rank - 1, i)}[0], sizeof(mat_t)) == 0,
              "exscan non-commutative element %d", i);
    MPI_Request req;
    CHECK_OK(MPI_Iallreduce(in, out, n, mt, op, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK(memcmp(&out[i], &(mat_t[]){mat_prefix(0, size - 1, i)}[0], sizeof(mat_t)) == 0,
              "iallreduce non-commutative element %d", i);
    /* reduce_scatter_block: block r of the product goes to rank r */
    mat_t *all = malloc((size_t)size * n * sizeof(mat_t));
    for (int b = 0; b < size; b++)
        for (int i = 0; i < n; i++)
            all[b * n + i] = mat_of(rank, b * n + i);
    CHECK_OK(MPI_Reduce_scatter_block(all, out, n, mt, op, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(memcmp(&out[i], &(mat_t[]){mat_prefix(0, size - 1, rank * n + i)}[0],
                     sizeof(mat_t)) == 0,
              "reduce_scatter_block non-commutative element %d", i);
    free(all);
    free(in);
    free(out);
}

static void test_loc(void)
{
    struct { double v; int i; } d[3], dr[3];
    struct { int v; int i; } t[2], tr[2];
    for (int k = 0; k < 3; k++) {
        d[k].v = k == 0 ? (double)(rank % 2) : k == 1 ? -(double)rank : 7.0; /* ties */
        d[k].i = rank;
    }
    CHECK_OK(MPI_Allreduce(d, dr, 3, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(dr[0].v == 0 && dr[0].i == 0, "minloc tie: %g at %d", dr[0].v, dr[0].i);
    CHECK(dr[1].v == -(size - 1) && dr[1].i == size - 1, "minloc: %g at %d", dr[1].v, dr[1].i);
    CHECK(dr[2].v == 7.0 && dr[2].i == 0, "minloc all equal: lowest index");
    CHECK_OK(MPI_Allreduce(d, dr, 3, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(dr[0].v == (size > 1) && dr[0].i == (size > 1), "maxloc tie: %g at %d", dr[0].v, dr[0].i);
    CHECK(dr[1].v == 0 && dr[1].i == 0, "maxloc");
    t[0].v = 100 - rank;
    t[0].i = 10 * rank;
    t[1].v = rank;
    t[1].i = -rank;
    CHECK_OK(MPI_Reduce(t, tr, 2, MPI_2INT, MPI_MAXLOC, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(tr[0].v == 100 && tr[0].i == 0 && tr[1].v == size - 1 && tr[1].i == -(size - 1),
              "2int maxloc");
    struct { float v; int i; } f = {(float)(rank * 3 % size), rank}, fr;
    CHECK_OK(MPI_Allreduce(&f, &fr, 1, MPI_FLOAT_INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(fr.v == 0 && fr.i == 0, "float_int minloc");
    struct { short v; int i; } s = {(short)-rank, rank}, sr;
    CHECK_OK(MPI_Allreduce(&s, &sr, 1, MPI_SHORT_INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(sr.v == -(size - 1) && sr.i == size - 1, "short_int minloc");
    struct { long v; int i; } l = {rank == 1 ? 5 : 1, rank}, lr;
    CHECK_OK(MPI_Allreduce(&l, &lr, 1, MPI_LONG_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(lr.v == (size > 1 ? 5 : 1) && lr.i == (size > 1 ? 1 : 0), "long_int maxloc");
    struct { long double v; int i; } ld = {(long double)rank, rank}, ldr;
    CHECK_OK(MPI_Allreduce(&ld, &ldr, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(ldr.v == size - 1 && ldr.i == size - 1, "long_double_int maxloc");
}

static void test_types(void)
{
    long double ld = rank + 0.5L, ldr;
    CHECK_OK(MPI_Allreduce(&ld, &ldr, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(ldr == size * (size - 1) / 2.0L + size * 0.5L, "long double sum");
    CHECK_OK(MPI_Allreduce(&ld, &ldr, 1, MPI_LONG_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK(ldr == size - 0.5L, "long double max");
    double complex z = rank + 1.0 * I, zr;
    CHECK_OK(MPI_Allreduce(&z, &zr, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(creal(zr) == size * (size - 1) / 2.0 && cimag(zr) == size, "complex sum");
    CHECK_OK(MPI_Allreduce(&z, &zr, 1, MPI_C_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
    double complex want = 1;
    for (int r = 0; r < size; r++)
        want *= r + 1.0 * I;
    double complex dz = zr - want;
    CHECK(creal(dz) * creal(dz) + cimag(dz) * cimag(dz) < 1e-18, "complex prod");
    float complex fz = 2.0f * I, fzr;
    CHECK_OK(MPI_Allreduce(&fz, &fzr, 1, MPI_C_FLOAT_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
    float complex fw = 1;
    for (int r = 0; r < size; r++)
        fw *= 2.0f * I;
    float complex dfz = fzr - fw;
    CHECK(crealf(dfz) * crealf(dfz) + cimagf(dfz) * cimagf(dfz) < 1e-6f, "float complex prod");
    bool b[3] = {rank == 0, true, false}, br[3];
    CHECK_OK(MPI_Allreduce(b, br, 3, MPI_C_BOOL, MPI_LXOR, MPI_COMM_WORLD));
    CHECK(br[0] == true && br[1] == (size % 2 == 1) && br[2] == false, "bool lxor");
    CHECK_OK(MPI_Allreduce(b, br, 3, MPI_C_BOOL, MPI_LAND, MPI_COMM_WORLD));
    CHECK(br[0] == (size == 1) && br[1] && !br[2], "bool land");
    CHECK_OK(MPI_Allreduce(b, br, 3, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(br[0] && br[1] && !br[2], "bool lor");
    int x = rank == 1 ? 7 : 0, xr;
    CHECK_OK(MPI_Allreduce(&x, &xr, 1, MPI_INT, MPI_LXOR, MPI_COMM_WORLD));
    CHECK(xr == (size > 1), "int lxor");
    unsigned char by = (unsigned char)(1u << rank), byr;
    CHECK_OK(MPI_Allreduce(&by, &byr, 1, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD));
    CHECK(byr == (1u << size) - 1, "byte bor");
    long long ll = rank, llr;
    CHECK_OK(MPI_Allreduce(&ll, &llr, 1, MPI_LONG_LONG, MPI_PROD, MPI_COMM_WORLD));
    CHECK(llr == 0, "long long prod");
    short sh = (short)(rank + 1), shr;
    CHECK_OK(MPI_Allreduce(&sh, &shr, 1, MPI_SHORT, MPI_BXOR, MPI_COMM_WORLD));
    short want_x = 0;
    for (int r = 0; r < size; r++)
        want_x ^= (short)(r + 1);
    CHECK(shr == want_x, "short bxor");
}

static void test_in_place(void)
{
    int v[4];
    for (int i = 0; i < 4; i++)
        v[i] = rank + i;
    CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        CHECK(v[i] == size * (size - 1) / 2 + size * i, "allreduce in place");
    for (int i = 0; i < 4; i++)
        v[i] = rank * 10 + i;
    if (rank == 1 % size)
        CHECK_OK(MPI_Reduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_MAX, 1 % size, MPI_COMM_WORLD));
    else
        CHECK_OK(MPI_Reduce(v, NULL, 4, MPI_INT, MPI_MAX, 1 % size, MPI_COMM_WORLD));
    if (rank == 1 % size)
        CHECK(v[3] == (size - 1) * 10 + 3, "reduce in place");
    int s = rank + 1;
    CHECK_OK(MPI_Scan(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(s == (rank + 1) * (rank + 2) / 2, "scan in place");
    s = rank + 1;
    CHECK_OK(MPI_Exscan(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(rank == 0 || s == rank * (rank + 1) / 2, "exscan in place");
    int *rs = malloc(size * 2 * sizeof(int));
    for (int i = 0; i < 2 * size; i++)
        rs[i] = i + rank;
    CHECK_OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, rs, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(rs[0] == size * 2 * rank + size * (size - 1) / 2 &&
          rs[1] == size * (2 * rank + 1) + size * (size - 1) / 2, "reduce_scatter_block in place");
    free(rs);
    double a[2] = {1.5, 2.5}, b[2] = {rank, rank};
    CHECK_OK(MPI_Reduce_local(a, b, 2, MPI_DOUBLE, MPI_SUM));
    CHECK(b[0] == rank + 1.5 && b[1] == rank + 2.5, "reduce_local");
}

/* The large-count nonblocking forms (_c) on small counts: same results as the classic. */
static void test_large_count_nbc(void)
{
    long long in[3] = {rank, 2 * rank, 1}, out[3] = {0};
    MPI_Request r[3];
    CHECK_OK(MPI_Iallreduce_c(in, out, (MPI_Count)3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD,
                              &r[0]));
    int root_val = rank == 0 ? 4242 : -1, *all = malloc((size_t)size * sizeof(int));
    CHECK_OK(MPI_Ibcast_c(&root_val, (MPI_Count)1, MPI_INT, 0, MPI_COMM_WORLD, &r[1]));
    CHECK_OK(MPI_Iallgather_c(&rank, (MPI_Count)1, MPI_INT, all, (MPI_Count)1, MPI_INT,
                              MPI_COMM_WORLD, &r[2]));
    CHECK_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    long long s = (long long)size * (size - 1) / 2;
    CHECK(out[0] == s && out[1] == 2 * s && out[2] == size, "Iallreduce_c %lld %lld %lld",
          out[0], out[1], out[2]);
    CHECK(root_val == 4242, "Ibcast_c %d", root_val);
    for (int i = 0; i < size; i++)
        CHECK(all[i] == i, "Iallgather_c[%d] = %d", i, all[i]);
    free(all);
}

static void int_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i])
            ((int *)inout)[i] = ((int *)in)[i];
}

/* A user op freed while nonblocking reductions using it are in flight: they complete
 * normally (the standard), the op goes when the last request is freed (MPICH's
 * coll/nonblocking3 freed it before the wait and aborted in the reduction). */
static void test_op_freed_in_flight(void)
{
    enum { N = 4096 };
    int *in = malloc(N * sizeof(int)), *out = malloc(N * sizeof(int)), *red = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = (i * 7 + rank * 13) % 1000;
    for (int round = 0; round < 3; round++) {
        MPI_Op op;
        MPI_Request r[2];
        CHECK_OK(MPI_Op_create(int_max, 1, &op));
        CHECK_OK(MPI_Iallreduce(in, out, N, MPI_INT, op, MPI_COMM_WORLD, &r[0]));
        CHECK_OK(MPI_Ireduce(in, red, N, MPI_INT, op, size - 1, MPI_COMM_WORLD, &r[1]));
        CHECK_OK(MPI_Op_free(&op));
        CHECK(op == MPI_OP_NULL, "Op_free sets MPI_OP_NULL");
        CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < N; i++) {
            int want = 0;
            for (int q = 0; q < size; q++)
                if ((i * 7 + q * 13) % 1000 > want)
                    want = (i * 7 + q * 13) % 1000;
            CHECK(out[i] == want, "Iallreduce after Op_free [%d] = %d, want %d", i, out[i], want);
            CHECK(rank != size - 1 || red[i] == want, "Ireduce after Op_free [%d]", i);
        }
    }
    free(in);
    free(out);
    free(red);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_large_count_nbc();
    test_op_freed_in_flight();
    MPI_Datatype mt;
    MPI_Op op;
    CHECK_OK(MPI_Type_contiguous(4, MPI_UNSIGNED, &mt));
    CHECK_OK(MPI_Type_commit(&mt));
    CHECK_OK(MPI_Op_create(mat_mul, 0, &op));
    int commute = 1;
    CHECK_OK(MPI_Op_commutative(op, &commute));
    CHECK(commute == 0, "Op_commutative");
    /* 1 element (latency algorithms), 3000 (vector algorithms: ring/halving when allowed) */
    test_noncommutative(mt, op, 1);
    test_noncommutative(mt, op, 3000);
    CHECK_OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL, "Op_free sets MPI_OP_NULL");
    CHECK_OK(MPI_Type_free(&mt));
    test_loc();
    test_types();
    test_in_place();
    CHECK_OK(MPI_Finalize());
    return 0;
}
