/* SPDX-License-Identifier: BSD-3-Clause */
/* The pack engine against a naive reference: every constructor (nested, zero-length
 * blocks, negative strides and lower bounds, MPI_BOTTOM with absolute addresses) is
 * expanded by this program into its list of (offset, length) blocks, and MPI_Pack /
 * MPI_Unpack must move exactly those bytes in that order: whole, element by element
 * through MPI_Pack's position, and over p2p with a different type on each side (the
 * packed stream then moves in fragments cut at arbitrary bytes). Blocks of 1, 2, 4, 8,
 * 16 and other sizes reach each of the engine's copy loops. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"

#define REGION (8L << 20) /* typed buffers: base is BEFORE bytes in, for negative offsets */
#define BEFORE (2L << 20)

/* The reference typemap: blocks in pack order, and the extent MPI reports (struct
 * padding is the implementation's to choose; the blocks are not). */
typedef struct {
    long n, cap;
    long *off, *len;
    MPI_Aint lb, ext;
} tm_t;

typedef struct {
    MPI_Datatype t;
    tm_t m;
    const char *name;
} ty_t;

static void tm_add(tm_t *m, long off, long len)
{
    if (len == 0)
        return;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->off = realloc(m->off, (size_t)m->cap * sizeof(long));
        m->len = realloc(m->len, (size_t)m->cap * sizeof(long));
        CHECK(m->off && m->len, "out of memory");
    }
    m->off[m->n] = off;
    m->len[m->n] = len;
    m->n++;
}

static long tm_size(const tm_t *m)
{
    long s = 0;
    for (long i = 0; i < m->n; i++)
        s += m->len[i];
    return s;
}

/* A built type: committed, its extent taken from MPI. */
static ty_t ty_done(const char *name, MPI_Datatype t, tm_t m)
{
    ty_t y = {t, m, name};
    CHECK_OK(MPI_Type_commit(&y.t));
    CHECK_OK(MPI_Type_get_extent(y.t, &y.m.lb, &y.m.ext));
    int size;
    CHECK_OK(MPI_Type_size(y.t, &size));
    CHECK(size == tm_size(&y.m), "%s: size %d, reference %ld", name, size, tm_size(&y.m));
    return y;
}

static ty_t ty_basic(MPI_Datatype t)
{
    ty_t y = {t, {0}, "basic"};
    int size;
    MPI_Type_size(t, &size);
    tm_add(&y.m, 0, size);
    MPI_Type_get_extent(t, &y.m.lb, &y.m.ext);
    return y;
}

/* What every constructor is: block k is bl[k] elements of olds[k] from disp[k] bytes. */
static tm_t tm_blocks(long n, const long *bl, const long *disp, const ty_t *const *olds)
{
    tm_t m = {0};
    for (long k = 0; k < n; k++)
        for (long j = 0; j < bl[k]; j++)
            for (long b = 0; b < olds[k]->m.n; b++)
                tm_add(&m, disp[k] + j * olds[k]->m.ext + olds[k]->m.off[b], olds[k]->m.len[b]);
    return m;
}

static ty_t ty_hvector(long count, long bl, long stride, const ty_t *old, const char *name)
{
    long *b = malloc(sizeof(long) * (size_t)(count + 1)), *d = malloc(sizeof(long) * (size_t)(count + 1));
    const ty_t **o = malloc(sizeof(*o) * (size_t)(count + 1));
    for (long i = 0; i < count; i++) {
        b[i] = bl;
        d[i] = i * stride;
        o[i] = old;
    }
    MPI_Datatype t;
    CHECK_OK(MPI_Type_create_hvector((int)count, (int)bl, stride, old->t, &t));
    ty_t y = ty_done(name, t, tm_blocks(count, b, d, o));
    free(b);
    free(d);
    free(o);
    return y;
}

static ty_t ty_vector(long count, long bl, long stride, const ty_t *old, const char *name)
{
    MPI_Datatype t;
    CHECK_OK(MPI_Type_vector((int)count, (int)bl, (int)stride, old->t, &t));
    ty_t h = ty_hvector(count, bl, stride * old->m.ext, old, name);
    MPI_Type_free(&h.t);
    return ty_done(name, t, h.m);
}

/* indexed (disp in elements: ext != 0) or hindexed (bytes: ext == 0); bl1 >= 0: the
 * _block form with that block length. */
static ty_t ty_indexed(int n, const int *bl, int bl1, const int *disp, const MPI_Aint *hdisp,
                       const ty_t *old, const char *name)
{
    long b[4096], d[4096];
    const ty_t *o[4096];
    CHECK(n <= 4096, "too many blocks");
    for (int i = 0; i < n; i++) {
        b[i] = bl1 >= 0 ? bl1 : bl[i];
        d[i] = hdisp ? hdisp[i] : disp[i] * old->m.ext;
        o[i] = old;
    }
    MPI_Datatype t;
    if (hdisp && bl1 >= 0)
        CHECK_OK(MPI_Type_create_hindexed_block(n, bl1, hdisp, old->t, &t));
    else if (hdisp)
        CHECK_OK(MPI_Type_create_hindexed(n, bl, hdisp, old->t, &t));
    else if (bl1 >= 0)
        CHECK_OK(MPI_Type_create_indexed_block(n, bl1, disp, old->t, &t));
    else
        CHECK_OK(MPI_Type_indexed(n, bl, disp, old->t, &t));
    return ty_done(name, t, tm_blocks(n, b, d, o));
}

static ty_t ty_struct(int n, const int *bl, const MPI_Aint *disp, const ty_t *const *olds,
                      const char *name)
{
    long b[16], d[16];
    MPI_Datatype ts[16];
    for (int i = 0; i < n; i++) {
        b[i] = bl[i];
        d[i] = disp[i];
        ts[i] = olds[i]->t;
    }
    MPI_Datatype t;
    CHECK_OK(MPI_Type_create_struct(n, bl, disp, ts, &t));
    return ty_done(name, t, tm_blocks(n, b, d, olds));
}

static ty_t ty_resized(const ty_t *old, MPI_Aint lb, MPI_Aint ext, const char *name)
{
    MPI_Datatype t;
    CHECK_OK(MPI_Type_create_resized(old->t, lb, ext, &t));
    long b = 1, d = 0;
    const ty_t *o = old;
    ty_t y = ty_done(name, t, tm_blocks(1, &b, &d, &o));
    CHECK(y.m.lb == lb && y.m.ext == ext, "%s: lb %ld extent %ld", name, (long)y.m.lb,
          (long)y.m.ext);
    return y;
}

/* A 3-d subarray of esize-byte elements: the reference walks its index space. */
static ty_t ty_subarray(const int *sz, const int *sub, const int *st, int order, MPI_Datatype e,
                        int esize, const char *name)
{
    MPI_Datatype t;
    CHECK_OK(MPI_Type_create_subarray(3, sz, sub, st, order, e, &t));
    tm_t m = {0};
    int c = order == MPI_ORDER_C;
    for (int i = 0; i < sub[c ? 0 : 2]; i++)
        for (int j = 0; j < sub[1]; j++)
            for (int k = 0; k < sub[c ? 2 : 0]; k++) {
                long x = st[c ? 0 : 2] + i, y = st[1] + j, z = st[c ? 2 : 0] + k;
                long lin = c ? (x * sz[1] + y) * sz[2] + z : (x * sz[1] + y) * sz[0] + z;
                tm_add(&m, lin * esize, esize);
            }
    return ty_done(name, t, m);
}

/* Bytes that differ from their neighbours and between seeds (n: a multiple of 8). */
static void fill(unsigned char *p, long n, unsigned seed)
{
    uint64_t x = 0x9e3779b97f4a7c15ull * (seed + 1);
    for (long i = 0; i < n; i += 8) {
        x += 0x632be59bd9b4e019ull;
        memcpy(p + i, &x, 8);
    }
}

static void ref_pack(const tm_t *m, uintptr_t base, int count, unsigned char *out)
{
    for (int e = 0; e < count; e++)
        for (long b = 0; b < m->n; b++) {
            memcpy(out, (const void *)(base + (uintptr_t)(e * m->ext + m->off[b])),
                   (size_t)m->len[b]);
            out += m->len[b];
        }
}

static void ref_unpack(const tm_t *m, uintptr_t base, int count, const unsigned char *in)
{
    for (int e = 0; e < count; e++)
        for (long b = 0; b < m->n; b++) {
            memcpy((void *)(base + (uintptr_t)(e * m->ext + m->off[b])), in, (size_t)m->len[b]);
            in += m->len[b];
        }
}

static unsigned char *rg_a, *rg_b;

/* Pack and unpack count elements of y at base (MPI_BOTTOM: bottom is 1 and the
 * offsets are absolute) against the reference. */
static void check_type(const ty_t *y, int count, int bottom)
{
    long psz = tm_size(&y->m) * count;
    unsigned char *ref = malloc((size_t)psz + 1), *got = malloc((size_t)psz + 1);
    unsigned char *got2 = malloc((size_t)psz + 1);
    uintptr_t base = bottom ? 0 : (uintptr_t)(rg_a + BEFORE);
    void *mbuf = bottom ? MPI_BOTTOM : rg_a + BEFORE;
    fill(rg_a, REGION, 7);
    int ps, pos = 0;
    CHECK_OK(MPI_Pack_size(count, y->t, MPI_COMM_WORLD, &ps));
    CHECK(ps == psz, "%s: Pack_size %d, reference %ld", y->name, ps, psz);
    ref_pack(&y->m, base, count, ref);
    CHECK_OK(MPI_Pack(mbuf, count, y->t, got, ps, &pos, MPI_COMM_WORLD));
    CHECK(pos == ps && !memcmp(ref, got, (size_t)psz), "%s x%d: packed stream differs",
          y->name, count);
    /* Element by element, the position advancing. */
    pos = 0;
    for (int e = 0; e < count && !bottom; e++)
        CHECK_OK(MPI_Pack(rg_a + BEFORE + e * y->m.ext, 1, y->t, got2, ps, &pos, MPI_COMM_WORLD));
    CHECK(bottom || !memcmp(ref, got2, (size_t)psz), "%s: element by element differs", y->name);
    /* Unpack into a filled region: the typemap's bytes change, nothing else. */
    if (!bottom) {
        fill(rg_a, REGION, 99);
        memcpy(rg_b, rg_a, REGION);
        ref_unpack(&y->m, (uintptr_t)(rg_b + BEFORE), count, ref);
        pos = 0;
        CHECK_OK(MPI_Unpack(ref, ps, &pos, rg_a + BEFORE, count, y->t, MPI_COMM_WORLD));
        CHECK(pos == ps && !memcmp(rg_a, rg_b, REGION), "%s x%d: unpack differs", y->name,
              count);
        fill(rg_a, REGION, 99);
        pos = 0;
        for (int e = 0; e < count; e++)
            CHECK_OK(MPI_Unpack(ref, ps, &pos, rg_a + BEFORE + e * y->m.ext, 1, y->t,
                                MPI_COMM_WORLD));
        CHECK(!memcmp(rg_a, rg_b, REGION), "%s: unpack element by element differs", y->name);
    }
    free(ref);
    free(got);
    free(got2);
}

/* count of s from rank 0 into rcount of r at rank 1 (same packed size): rank 1 checks
 * its region against the reference scatter of rank 0's reference stream. */
static void check_p2p(const ty_t *s, int scount, const ty_t *r, int rcount)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long psz = tm_size(&s->m) * scount;
    CHECK(psz == tm_size(&r->m) * rcount, "p2p %s/%s: sizes differ", s->name, r->name);
    if (rank == 0) {
        fill(rg_a, REGION, 3);
        CHECK_OK(MPI_Send(rg_a + BEFORE, scount, s->t, 1, 5, MPI_COMM_WORLD));
    } else if (rank == 1) {
        unsigned char *ref = malloc((size_t)psz + 1);
        fill(rg_b, REGION, 3); /* rank 0's data, to compute what it sent */
        ref_pack(&s->m, (uintptr_t)(rg_b + BEFORE), scount, ref);
        fill(rg_a, REGION, 55);
        fill(rg_b, REGION, 55);
        ref_unpack(&r->m, (uintptr_t)(rg_b + BEFORE), rcount, ref);
        MPI_Status st;
        CHECK_OK(MPI_Recv(rg_a + BEFORE, rcount, r->t, 0, 5, MPI_COMM_WORLD, &st));
        int n;
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(n == psz, "p2p %s -> %s: %d bytes, expected %ld", s->name, r->name, n, psz);
        CHECK(!memcmp(rg_a, rg_b, REGION), "p2p %s -> %s: received data differs", s->name,
              r->name);
        free(ref);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void ty_free(ty_t *y)
{
    MPI_Type_free(&y->t);
    free(y->m.off);
    free(y->m.len);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rg_a = malloc(REGION);
    rg_b = malloc(REGION);
    CHECK(rg_a && rg_b, "out of memory");

    ty_t dbl = ty_basic(MPI_DOUBLE), i32 = ty_basic(MPI_INT), chr = ty_basic(MPI_CHAR);
    ty_t sht = ty_basic(MPI_SHORT), cdb = ty_basic(MPI_C_DOUBLE_COMPLEX);
    enum { NT = 48 };
    ty_t t[NT];
    int nt = 0;
    MPI_Datatype tmp;
    CHECK_OK(MPI_Type_contiguous(5, MPI_DOUBLE, &tmp));
    long five = 5, zero = 0;
    const ty_t *pd = &dbl;
    t[nt++] = ty_done("contiguous", tmp, tm_blocks(1, &five, &zero, &pd));
    t[nt++] = ty_vector(1000, 1, 2, &dbl, "vector 8B");                    /* 8-byte loop */
    t[nt++] = ty_vector(300, 1, 3, &chr, "vector 1B");
    t[nt++] = ty_vector(300, 1, 3, &sht, "vector 2B");
    t[nt++] = ty_vector(300, 1, 3, &i32, "vector 4B");
    t[nt++] = ty_vector(200, 2, 5, &dbl, "vector 16B");
    t[nt++] = ty_vector(200, 3, 5, &chr, "vector 3B");                     /* other sizes */
    t[nt++] = ty_vector(100, 3, 4, &dbl, "vector 24B");
    t[nt++] = ty_hvector(100, 1, 24, &cdb, "hvector complex");
    t[nt++] = ty_hvector(50, 2, -40, &dbl, "hvector negative stride");
    t[nt++] = ty_vector(7, 1, -3, &i32, "vector negative stride");
    t[nt++] = ty_vector(0, 1, 3, &i32, "vector count 0");
    {
        int bl[] = {1, 2, 0, 3, 1}, d[] = {0, 5, 9, 12, -4};
        t[nt++] = ty_indexed(5, bl, -1, d, NULL, &i32, "indexed zero-length, negative");
    }
    int ib[4096];
    for (int i = 0; i < 2014; i++)
        ib[i] = i * 3 + i % 3; /* MPICH's indexperf: runs of 8 and 16 bytes mixed */
    int iip = nt;
    t[nt++] = ty_indexed(2014, NULL, 1, ib, NULL, &dbl, "indexed_block indexperf");
    for (int i = 0; i < 500; i++)
        ib[i] = i * 4 + (i % 2);
    t[nt++] = ty_indexed(500, NULL, 1, ib, NULL, &i32, "indexed_block 4B");
    t[nt++] = ty_indexed(500, NULL, 1, ib, NULL, &chr, "indexed_block 1B");
    t[nt++] = ty_indexed(500, NULL, 2, ib, NULL, &sht, "indexed_block 2x2B");
    t[nt++] = ty_indexed(500, NULL, 1, ib, NULL, &cdb, "indexed_block 16B");
    for (int i = 0; i < 300; i++)
        ib[i] = i * 4; /* a vector written as indexed: packed as the vector */
    t[nt++] = ty_indexed(300, NULL, 1, ib, NULL, &dbl, "indexed_block strided");
    {
        static MPI_Aint hs[300];
        for (int i = 0; i < 300; i++)
            hs[i] = -24 * i;
        t[nt++] = ty_indexed(300, NULL, 1, NULL, hs, &i32, "hindexed_block negative step");
        t[nt++] = ty_indexed(300, NULL, 2, NULL, hs, &sht, "hindexed_block step 2x2B");
    }
    {
        int bl[] = {3, 1, 2, 4};
        MPI_Aint hd[] = {-64, 40, 8, 200};
        t[nt++] = ty_indexed(4, bl, -1, NULL, hd, &dbl, "hindexed negative");
        t[nt++] = ty_indexed(4, NULL, 3, NULL, hd, &i32, "hindexed_block");
    }
    ty_t vec = ty_vector(40, 1, 3, &dbl, "inner vector");
    {
        int bl[] = {2, 1, 3};
        MPI_Aint d[] = {0, 8, 16};
        const ty_t *o[] = {&i32, &dbl, &chr};
        t[nt++] = ty_struct(3, bl, d, o, "struct");
        t[nt] = ty_vector(30, 2, 3, &t[nt - 1], "vector of struct");
        nt++;
        int bl2[] = {2, 1};
        MPI_Aint d2[] = {-8, 16};
        const ty_t *o2[] = {&i32, &vec};
        t[nt++] = ty_struct(2, bl2, d2, o2, "struct of vector");
        int bl3[] = {1, 2, 1};
        int d3[] = {0, 1000, -600};
        t[nt++] = ty_indexed(3, bl3, -1, d3, NULL, &vec, "indexed of vector");
    }
    ty_t col = ty_vector(100, 1, 100, &dbl, "column");
    int itr = nt;
    t[nt++] = ty_hvector(100, 1, 8, &col, "transpose"); /* MPICH's transp_datatype */
    t[nt++] = ty_resized(&vec, -16, 1000, "resized vector");
    t[nt] = ty_vector(10, 2, 3, &t[nt - 1], "vector of resized");
    nt++;
    {
        CHECK_OK(MPI_Type_dup(t[nt - 1].t, &tmp));
        ty_t y = t[nt - 1];
        y.m.off = malloc(sizeof(long) * (size_t)y.m.n);
        y.m.len = malloc(sizeof(long) * (size_t)y.m.n);
        memcpy(y.m.off, t[nt - 1].m.off, sizeof(long) * (size_t)y.m.n);
        memcpy(y.m.len, t[nt - 1].m.len, sizeof(long) * (size_t)y.m.n);
        t[nt++] = ty_done("dup", tmp, y.m);
    }
    {
        int sz[] = {6, 7, 8}, sub[] = {3, 4, 5}, st[] = {1, 2, 3};
        t[nt++] = ty_subarray(sz, sub, st, MPI_ORDER_C, MPI_DOUBLE, 8, "subarray C");
        t[nt++] = ty_subarray(sz, sub, st, MPI_ORDER_FORTRAN, MPI_INT, 4, "subarray Fortran");
        /* darray BLOCK x BLOCK on 2x2 is the subarray of this rank's block; rank 3 of 4. */
        int g[] = {9, 10}, dist[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
        int darg[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[] = {2, 2};
        CHECK_OK(MPI_Type_create_darray(4, 3, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_DOUBLE,
                                        &tmp));
        tm_t m = {0};
        for (int i = 5; i < 9; i++)
            for (int j = 5; j < 10; j++)
                tm_add(&m, (i * 10 + j) * 8, 8);
        t[nt++] = ty_done("darray block", tmp, m);
        int g1 = 20, cyc = MPI_DISTRIBUTE_CYCLIC, two = 2, four = 4;
        CHECK_OK(MPI_Type_create_darray(4, 1, 1, &g1, &cyc, &two, &four, MPI_ORDER_C, MPI_INT,
                                        &tmp));
        tm_t m2 = {0};
        for (int i = 0; i < 20; i++)
            if ((i / 2) % 4 == 1)
                tm_add(&m2, i * 4, 4);
        t[nt++] = ty_done("darray cyclic(2)", tmp, m2);
    }
    CHECK(nt <= NT, "too many types");
    for (int k = 0; k < nt; k++)
        for (int c = 1; c <= 3; c++)
            check_type(&t[k], c, 0);

    /* MPI_BOTTOM: nestvec2's struct of absolute addresses. */
    {
        int bl[] = {2, 1};
        MPI_Aint d[2];
        MPI_Get_address(rg_a + BEFORE + 1000, &d[0]);
        MPI_Get_address(rg_a + BEFORE - 4000, &d[1]);
        const ty_t *o[] = {&i32, &vec};
        ty_t y = ty_struct(2, bl, d, o, "MPI_BOTTOM struct");
        check_type(&y, 1, 1);
        ty_free(&y);
    }

    if (size >= 2) {
        /* Large enough to move in many fragments or by rendezvous. */
        ty_t big = ty_vector(200000, 1, 2, &dbl, "big vector");
        ty_t bigc = ty_vector(1, 200000, 1, &dbl, "big contiguous");
        ty_t big16 = ty_vector(100000, 2, 3, &dbl, "big vector 16B");
        ty_t ipc = ty_vector(1, 2014 * 40, 1, &dbl, "indexperf contiguous");
        ty_t trc = ty_vector(1, 10000, 1, &dbl, "transpose contiguous");
        check_p2p(&big, 1, &bigc, 1);
        check_p2p(&bigc, 1, &big, 1);
        check_p2p(&big, 1, &big16, 1);
        check_p2p(&big16, 1, &big, 1);
        check_p2p(&t[iip], 40, &ipc, 1);
        check_p2p(&ipc, 1, &t[iip], 40);
        /* Runs of 3 and 6 bytes (adjacent blocks merge): fragment boundaries fall
         * inside blocks. */
        static int hb[100000];
        for (int i = 0; i < 100000; i++)
            hb[i] = i * 4 + i % 2;
        ty_t odd = ty_indexed(0, NULL, 3, NULL, NULL, &chr, "empty indexed_block");
        ty_free(&odd);
        MPI_Datatype ot;
        CHECK_OK(MPI_Type_create_indexed_block(100000, 3, hb, MPI_CHAR, &ot));
        tm_t om = {0};
        for (int i = 0; i < 100000; i++)
            tm_add(&om, hb[i], 3);
        odd = ty_done("big indexed 3B", ot, om);
        ty_t oddc = ty_vector(1, 300000, 1, &chr, "big chars");
        check_p2p(&odd, 2, &oddc, 2);
        check_p2p(&oddc, 2, &odd, 2);
        ty_free(&odd);
        ty_free(&oddc);
        check_p2p(&trc, 3, &t[itr], 3); /* MPICH's transp_datatype */
        check_p2p(&t[itr], 3, &trc, 3);
        ty_free(&big);
        ty_free(&bigc);
        ty_free(&big16);
        ty_free(&ipc);
        ty_free(&trc);
        for (int k = 0; k < nt; k++)
            check_p2p(&t[k], 3, &t[k], 3);
    }
    for (int k = 0; k < nt; k++)
        ty_free(&t[k]);
    ty_free(&vec);
    ty_free(&col);
    free(rg_a);
    free(rg_b);
    if (rank == 0)
        printf("dtype_engine: OK\n");
    MPI_Finalize();
    return 0;
}
