/* SPDX-License-Identifier: BSD-3-Clause */
/* Datatypes in one process: extents of every constructor, Pack/Unpack round
 * trips (whole and in pieces through MPI_Pack's position), holes left alone,
 * the pair types' C layout, freeing a type another one is built on, and bad
 * constructor arguments. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"

#define SPAN 8192

/* Pack count elements of t from ints 0..SPAN-1, in one call and then element by
 * element; unpack into -1s: exactly the selected ints come back, the rest stay -1. */
static void roundtrip(const char *name, MPI_Datatype t, int count, int expect_ints)
{
    int *src = malloc(sizeof(int) * SPAN), *dst = malloc(sizeof(int) * SPAN);
    int psize;
    for (int i = 0; i < SPAN; i++)
        src[i] = i;
    MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize);
    CHECK(psize == expect_ints * 4, "%s: Pack_size %d, expected %d", name, psize,
          expect_ints * 4);
    char *a = malloc((size_t)psize + 1), *b = malloc((size_t)psize + 1);
    int pos = 0;
    /* The buffers start 64 ints in: a negative displacement stays inside them. */
    CHECK_OK(MPI_Pack(src + 64, count, t, a, psize, &pos, MPI_COMM_WORLD));
    CHECK(pos == psize, "%s: position %d", name, pos);
    /* Element by element through the position: the same stream. */
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    pos = 0;
    for (int e = 0; e < count; e++)
        CHECK_OK(MPI_Pack((char *)(src + 64) + e * ext, 1, t, b, psize, &pos, MPI_COMM_WORLD));
    CHECK(!memcmp(a, b, (size_t)psize), "%s: packing element by element differs", name);
    for (int i = 0; i < SPAN; i++)
        dst[i] = -1;
    pos = 0;
    CHECK_OK(MPI_Unpack(a, psize, &pos, dst + 64, count, t, MPI_COMM_WORLD));
    int n = 0;
    for (int i = 0; i < SPAN; i++) {
        CHECK(dst[i] == -1 || dst[i] == i, "%s: int %d is %d", name, i, dst[i]);
        n += dst[i] != -1;
    }
    CHECK(n == expect_ints, "%s: %d ints unpacked, expected %d", name, n, expect_ints);
    /* The packed stream holds the ints in type-map order: every one is a selected index. */
    for (int i = 0; i < expect_ints; i++) {
        int v;
        memcpy(&v, a + 4 * i, 4);
        CHECK(v >= 0 && v < SPAN && dst[v] == v, "%s: packed int %d is %d", name, i, v);
    }
    free(src);
    free(dst);
    free(a);
    free(b);
}

static void extent(const char *name, MPI_Datatype t, MPI_Aint lb, MPI_Aint ext, MPI_Aint tlb,
                   MPI_Aint text, int size)
{
    MPI_Aint l, e;
    int s;
    MPI_Type_get_extent(t, &l, &e);
    CHECK(l == lb && e == ext, "%s: lb %ld extent %ld, expected %ld %ld", name, (long)l,
          (long)e, (long)lb, (long)ext);
    MPI_Type_get_true_extent(t, &l, &e);
    CHECK(l == tlb && e == text, "%s: true lb %ld extent %ld, expected %ld %ld", name, (long)l,
          (long)e, (long)tlb, (long)text);
    MPI_Type_size(t, &s);
    CHECK(s == size, "%s: size %d, expected %d", name, s, size);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Datatype c, v, hv, ix, hix, ib, st, rs, neg, sub, vv;
    MPI_Type_contiguous(5, MPI_INT, &c);
    MPI_Type_commit(&c);
    extent("contiguous", c, 0, 20, 0, 20, 20);
    roundtrip("contiguous", c, 3, 15);

    MPI_Type_vector(3, 2, 5, MPI_INT, &v);
    MPI_Type_commit(&v);
    extent("vector", v, 0, 48, 0, 48, 24);
    roundtrip("vector", v, 4, 24);

    MPI_Type_create_hvector(2, 3, -40, MPI_INT, &hv); /* negative stride */
    MPI_Type_commit(&hv);
    extent("hvector", hv, -40, 52, -40, 52, 24);
    roundtrip("hvector", hv, 1, 6);

    int bl[3] = {2, 1, 3}, ds[3] = {7, 0, 20};
    MPI_Type_indexed(3, bl, ds, MPI_INT, &ix);
    MPI_Type_commit(&ix);
    extent("indexed", ix, 0, 92, 0, 92, 24);
    roundtrip("indexed", ix, 5, 30);

    MPI_Aint hd[2] = {40, 4};
    int hbl[2] = {3, 1};
    MPI_Type_create_hindexed(2, hbl, hd, MPI_INT, &hix);
    MPI_Type_commit(&hix);
    extent("hindexed", hix, 4, 48, 4, 48, 16);
    roundtrip("hindexed", hix, 9, 36);

    int bd[4] = {9, 1, 4, 30};
    MPI_Type_create_indexed_block(4, 2, bd, MPI_INT, &ib);
    MPI_Type_commit(&ib);
    extent("indexed_block", ib, 4, 124, 4, 124, 32);
    roundtrip("indexed_block", ib, 3, 24);

    int sbl[3] = {1, 2, 1};
    MPI_Aint sds[3] = {0, 12, 32};
    MPI_Datatype sts[3] = {MPI_INT, MPI_INT, MPI_INT};
    MPI_Type_create_struct(3, sbl, sds, sts, &st);
    MPI_Type_commit(&st);
    extent("struct", st, 0, 36, 0, 36, 16);
    roundtrip("struct", st, 7, 28);

    MPI_Type_create_resized(st, 0, 48, &rs);
    MPI_Type_commit(&rs);
    extent("resized", rs, 0, 48, 0, 36, 16);
    roundtrip("resized", rs, 7, 28);
    MPI_Type_create_resized(MPI_INT, -4, 12, &neg);
    MPI_Type_commit(&neg);
    extent("resized_neg", neg, -4, 12, 0, 4, 4);

    /* C struct with padding: the extent is sizeof (alignment padding). */
    struct cs { char c; double d; int i; };
    MPI_Aint cds[3] = {offsetof(struct cs, c), offsetof(struct cs, d), offsetof(struct cs, i)};
    int cbl[3] = {1, 1, 1};
    MPI_Datatype cts[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, ct;
    MPI_Type_create_struct(3, cbl, cds, cts, &ct);
    MPI_Type_commit(&ct);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(ct, &lb, &ext);
    CHECK(ext == (MPI_Aint)sizeof(struct cs), "C struct extent %ld", (long)ext);
    struct cs in[4], out[4];
    memset(out, 0x77, sizeof(out));
    for (int i = 0; i < 4; i++)
        in[i] = (struct cs){(char)('k' + i), i / 4.0, 3 * i};
    char pk[64];
    int pos = 0, psize;
    MPI_Pack_size(4, ct, MPI_COMM_WORLD, &psize);
    CHECK(psize == 4 * 13, "C struct packs %d bytes", psize);
    MPI_Pack(in, 4, ct, pk, sizeof(pk), &pos, MPI_COMM_WORLD);
    pos = 0;
    MPI_Unpack(pk, sizeof(pk), &pos, out, 4, ct, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++)
        CHECK(out[i].c == in[i].c && out[i].d == in[i].d && out[i].i == in[i].i, "C struct %d", i);

    int sizes[3] = {6, 7, 8}, subs[3] = {2, 3, 4}, starts[3] = {1, 2, 3};
    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
    MPI_Type_commit(&sub);
    extent("subarray", sub, 0, 6 * 7 * 8 * 4, (1 * 56 + 2 * 8 + 3) * 4,
           ((2 * 56 + 4 * 8 + 6) - (1 * 56 + 2 * 8 + 3) + 1) * 4, 24 * 4);
    roundtrip("subarray", sub, 2, 48);

    MPI_Type_vector(3, 2, 4, rs, &vv); /* a vector of a non-contiguous type */
    MPI_Type_commit(&vv);
    roundtrip("vector_of_resized_struct", vv, 2, 48);

    /* Freeing the types others are built on keeps those working. */
    MPI_Type_free(&st);
    MPI_Type_free(&rs);
    roundtrip("vector_after_free", vv, 2, 48);

    /* Pair types: the C structs. */
    struct { long double v; int i; } ldi;
    int s;
    MPI_Type_size(MPI_LONG_DOUBLE_INT, &s);
    MPI_Type_get_extent(MPI_LONG_DOUBLE_INT, &lb, &ext);
    CHECK(s == (int)sizeof(long double) + 4 && ext == (MPI_Aint)sizeof(ldi),
          "LONG_DOUBLE_INT size %d extent %ld", s, (long)ext);
    MPI_Type_size(MPI_2INT, &s);
    MPI_Type_get_extent(MPI_2INT, &lb, &ext);
    CHECK(s == 8 && ext == 8, "2INT");
    MPI_Type_size(MPI_FLOAT_INT, &s);
    CHECK(s == 8, "FLOAT_INT");

    /* Bad arguments: the class through the handler, nothing created. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype bad = MPI_DATATYPE_NULL;
    int cls;
    MPI_Error_class(MPI_Type_contiguous(-2, MPI_INT, &bad), &cls);
    CHECK(cls == MPI_ERR_COUNT && bad == MPI_DATATYPE_NULL, "negative count: class %d", cls);
    MPI_Error_class(MPI_Type_vector(2, 1, 1, MPI_DATATYPE_NULL, &bad), &cls);
    CHECK(cls == MPI_ERR_TYPE, "null oldtype: class %d", cls);
    MPI_Datatype freed = c;
    MPI_Type_free(&c);
    MPI_Error_class(MPI_Type_size(freed, &s), &cls);
    CHECK(cls == MPI_ERR_TYPE, "freed type: class %d", cls);
    MPI_Error_class(MPI_Type_free(&freed), &cls);
    CHECK(cls == MPI_ERR_TYPE, "double free: class %d", cls);
    MPI_Datatype pre = MPI_DOUBLE;
    MPI_Error_class(MPI_Type_free(&pre), &cls);
    CHECK(cls == MPI_ERR_TYPE && pre == MPI_DOUBLE, "freeing a predefined type: class %d", cls);
    int badsub[3] = {3, 3, 9};
    MPI_Error_class(MPI_Type_create_subarray(3, sizes, badsub, starts, MPI_ORDER_C, MPI_INT, &bad),
                    &cls);
    CHECK(cls == MPI_ERR_ARG, "subarray larger than the array: class %d", cls);
    pos = 0;
    MPI_Error_class(MPI_Pack(in, 4, MPI_INT, pk, 8, &pos, MPI_COMM_WORLD), &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && pos == 0, "Pack past the buffer: class %d", cls);
    MPI_Datatype unc;
    MPI_Type_contiguous(2, MPI_INT, &unc);
    MPI_Error_class(MPI_Pack(in, 1, unc, pk, 64, &pos, MPI_COMM_WORLD), &cls);
    CHECK(cls == MPI_ERR_TYPE, "uncommitted type: class %d", cls);

    MPI_Type_free(&unc);
    MPI_Type_free(&v);
    MPI_Type_free(&hv);
    MPI_Type_free(&ix);
    MPI_Type_free(&hix);
    MPI_Type_free(&ib);
    MPI_Type_free(&neg);
    MPI_Type_free(&ct);
    MPI_Type_free(&sub);
    MPI_Type_free(&vv);
    printf("dtype_pack: ok\n");
    MPI_Finalize();
    return 0;
}
