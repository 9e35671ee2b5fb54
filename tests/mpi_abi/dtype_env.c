/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Type_get_envelope / get_contents (and _c): each constructor's arguments come back
 * in the standard's layout, the datatypes handed out are freeable references, a named
 * type has no contents, a large-count type answers only the _c forms, and too small
 * arrays are refused. */
#include <stdio.h>
#include <string.h>

#include "check.h"

static void envelope(const char *what, MPI_Datatype t, int ni, int na, int nd, int comb)
{
    int i = -1, a = -1, d = -1, c = -1;
    CHECK_OK(MPI_Type_get_envelope(t, &i, &a, &d, &c));
    CHECK(i == ni && a == na && d == nd && c == comb,
          "%s: envelope %d ints %d addrs %d types combiner %d, want %d %d %d %d", what, i, a,
          d, c, ni, na, nd, comb);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int ints[16], ec = 0;
    MPI_Aint addrs[8];
    MPI_Datatype types[4], t;

    envelope("MPI_INT", MPI_INT, 0, 0, 0, MPI_COMBINER_NAMED);
    envelope("MPI_FLOAT_INT", MPI_FLOAT_INT, 0, 0, 0, MPI_COMBINER_NAMED);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, addrs, types);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_TYPE, "contents of a named type: class %d", ec);

    /* vector(3, 2, 5) of a contiguous(4) of MPI_DOUBLE: the inner type comes back */
    MPI_Datatype inner, v;
    CHECK_OK(MPI_Type_contiguous(4, MPI_DOUBLE, &inner));
    CHECK_OK(MPI_Type_vector(3, 2, 5, inner, &v));
    envelope("vector", v, 3, 0, 1, MPI_COMBINER_VECTOR);
    CHECK_OK(MPI_Type_get_contents(v, 3, 0, 1, ints, addrs, types));
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && types[0] == inner,
          "vector contents %d %d %d", ints[0], ints[1], ints[2]);
    CHECK_OK(MPI_Type_free(&types[0])); /* a reference of our own: inner stays valid */
    envelope("contiguous", inner, 1, 0, 1, MPI_COMBINER_CONTIGUOUS);
    rc = MPI_Type_get_contents(v, 2, 0, 1, ints, addrs, types);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_ARG, "integer array too small: class %d", ec);

    /* hvector: the stride is an address */
    CHECK_OK(MPI_Type_create_hvector(2, 3, 100, MPI_INT, &t));
    envelope("hvector", t, 2, 1, 1, MPI_COMBINER_HVECTOR);
    CHECK_OK(MPI_Type_get_contents(t, 2, 1, 1, ints, addrs, types));
    CHECK(ints[0] == 2 && ints[1] == 3 && addrs[0] == 100 && types[0] == MPI_INT, "hvector");
    CHECK_OK(MPI_Type_free(&t));

    /* indexed: count, blocklengths, displacements (all integers) */
    int bl[3] = {1, 2, 3}, disp[3] = {0, 4, 9};
    CHECK_OK(MPI_Type_indexed(3, bl, disp, MPI_SHORT, &t));
    envelope("indexed", t, 7, 0, 1, MPI_COMBINER_INDEXED);
    CHECK_OK(MPI_Type_get_contents(t, 7, 0, 1, ints, addrs, types));
    CHECK(ints[0] == 3 && ints[1] == 1 && ints[3] == 3 && ints[4] == 0 && ints[6] == 9,
          "indexed contents");
    CHECK_OK(MPI_Type_free(&t));

    /* indexed_block: count, blocklength, displacements */
    CHECK_OK(MPI_Type_create_indexed_block(3, 2, disp, MPI_INT, &t));
    envelope("indexed_block", t, 5, 0, 1, MPI_COMBINER_INDEXED_BLOCK);
    CHECK_OK(MPI_Type_get_contents(t, 5, 0, 1, ints, addrs, types));
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 0 && ints[4] == 9, "indexed_block");
    CHECK_OK(MPI_Type_free(&t));

    /* struct with two types: count, blocklengths; displacements; types */
    int sbl[2] = {1, 3};
    MPI_Aint sdisp[2] = {0, 8};
    MPI_Datatype st[2] = {MPI_DOUBLE, v};
    CHECK_OK(MPI_Type_create_struct(2, sbl, sdisp, st, &t));
    envelope("struct", t, 3, 2, 2, MPI_COMBINER_STRUCT);
    CHECK_OK(MPI_Type_get_contents(t, 3, 2, 2, ints, addrs, types));
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 3 && addrs[1] == 8 &&
          types[0] == MPI_DOUBLE && types[1] == v, "struct contents");
    CHECK_OK(MPI_Type_free(&types[1]));
    CHECK_OK(MPI_Type_free(&t));

    /* resized: lb and extent as addresses; dup: just the type */
    CHECK_OK(MPI_Type_create_resized(MPI_INT, -4, 16, &t));
    envelope("resized", t, 0, 2, 1, MPI_COMBINER_RESIZED);
    CHECK_OK(MPI_Type_get_contents(t, 0, 2, 1, ints, addrs, types));
    CHECK(addrs[0] == -4 && addrs[1] == 16 && types[0] == MPI_INT, "resized contents");
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_dup(v, &t));
    envelope("dup", t, 0, 0, 1, MPI_COMBINER_DUP);
    CHECK_OK(MPI_Type_free(&t));

    /* subarray: ndims, sizes, subsizes, starts, order */
    int sz[2] = {10, 20}, sub[2] = {3, 4}, start[2] = {1, 2};
    CHECK_OK(MPI_Type_create_subarray(2, sz, sub, start, MPI_ORDER_C, MPI_FLOAT, &t));
    envelope("subarray", t, 8, 0, 1, MPI_COMBINER_SUBARRAY);
    CHECK_OK(MPI_Type_get_contents(t, 8, 0, 1, ints, addrs, types));
    CHECK(ints[0] == 2 && ints[1] == 10 && ints[3] == 3 && ints[6] == 2 &&
          ints[7] == MPI_ORDER_C && types[0] == MPI_FLOAT, "subarray contents");
    CHECK_OK(MPI_Type_free(&t));

    /* large counts: only the _c forms answer, counts as large counts */
    MPI_Count lc[4], ni, na, nc, nd;
    int comb;
    CHECK_OK(MPI_Type_contiguous_c(7, MPI_INT, &t));
    rc = MPI_Type_get_envelope(t, &ints[0], &ints[1], &ints[2], &comb);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_TYPE, "envelope of a large-count type: class %d", ec);
    CHECK_OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK(ni == 0 && na == 0 && nc == 1 && nd == 1 && comb == MPI_COMBINER_CONTIGUOUS,
          "envelope_c of contiguous_c");
    CHECK_OK(MPI_Type_get_contents_c(t, 0, 0, 1, 1, ints, addrs, lc, types));
    CHECK(lc[0] == 7 && types[0] == MPI_INT, "contents_c of contiguous_c: %lld",
          (long long)lc[0]);
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Type_get_envelope_c(v, &ni, &na, &nc, &nd, &comb));
    CHECK(ni == 3 && nc == 0 && comb == MPI_COMBINER_VECTOR, "envelope_c of a classic type");

    CHECK_OK(MPI_Type_free(&v));
    CHECK_OK(MPI_Type_free(&inner));
    printf("dtype_env: ok\n");
    /* Type_match_size: the sized Fortran type of a class and size (the function serves
     * MPI_SIZEOF; MPICH and Open MPI answer the same), MPI_ERR_ARG for none */
    struct { int cls, size; MPI_Datatype want; } m[] = {
        {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1}, {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
        {MPI_TYPECLASS_REAL, 4, MPI_REAL4}, {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
        {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16}};
    for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
        int sz = 0;
        CHECK_OK(MPI_Type_match_size(m[k].cls, m[k].size, &t));
        CHECK(t == m[k].want, "match_size(%d, %d)", m[k].cls, m[k].size);
        CHECK_OK(MPI_Type_size(t, &sz));
        CHECK(sz == m[k].size, "match_size(%d, %d): a type of size %d", m[k].cls, m[k].size, sz);
    }
    rc = MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_ARG, "match_size of a 3-byte integer: class %d", ec);
    rc = MPI_Type_match_size(12345, 4, &t);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_ARG, "match_size of an unknown class: class %d", ec);

    /* Synonyms are named by the standard's first name. */
    {
        char nm[MPI_MAX_OBJECT_NAME];
        int nl;
        CHECK_OK(MPI_Type_get_name(MPI_LONG_LONG, nm, &nl));
        CHECK(!strcmp(nm, "MPI_LONG_LONG_INT"), "MPI_LONG_LONG named %s", nm);
        CHECK_OK(MPI_Type_get_name(MPI_C_COMPLEX, nm, &nl));
        CHECK(!strcmp(nm, "MPI_C_COMPLEX"), "MPI_C_COMPLEX named %s", nm);
    }
    /* A struct of no blocks with NULL arrays (MPICH struct_zero_count): an empty type
     * whose envelope has the count alone. */
    {
        MPI_Datatype z;
        int zs, zni, zna, znd, zc;
        MPI_Aint zlb, zext;
        CHECK_OK(MPI_Type_create_struct(0, NULL, NULL, NULL, &z));
        CHECK_OK(MPI_Type_size(z, &zs));
        CHECK_OK(MPI_Type_get_extent(z, &zlb, &zext));
        CHECK(zs == 0 && zext == 0, "empty struct: size %d extent %ld", zs, (long)zext);
        CHECK_OK(MPI_Type_get_envelope(z, &zni, &zna, &znd, &zc));
        CHECK(zc == MPI_COMBINER_STRUCT && zni == 1 && zna == 0 && znd == 0,
              "empty struct envelope %d %d %d %d", zc, zni, zna, znd);
        CHECK_OK(MPI_Type_free(&z));
    }
    /* A blocklength per block is required once there are blocks: a NULL array is
     * MPI_ERR_ARG in the int and the large-count forms alike (the int forms used to build
     * blocks of 0 elements). */
    {
        MPI_Datatype nt = MPI_DATATYPE_NULL, it = MPI_INT;
        int d1 = 0;
        MPI_Aint a1 = 0;
        MPI_Count c1 = 0;
        const char *what[] = {"struct", "struct_c", "indexed", "indexed_c", "hindexed",
                              "hindexed_c"};
        int rcs[] = {MPI_Type_create_struct(1, NULL, &a1, &it, &nt),
                     MPI_Type_create_struct_c(1, NULL, &c1, &it, &nt),
                     MPI_Type_indexed(1, NULL, &d1, MPI_INT, &nt),
                     MPI_Type_indexed_c(1, NULL, &c1, MPI_INT, &nt),
                     MPI_Type_create_hindexed(1, NULL, &a1, MPI_INT, &nt),
                     MPI_Type_create_hindexed_c(1, NULL, &c1, MPI_INT, &nt)};
        for (int k = 0; k < 6; k++) {
            MPI_Error_class(rcs[k], &ec);
            CHECK(ec == MPI_ERR_ARG, "%s with NULL blocklengths: class %d", what[k], ec);
        }
        CHECK(nt == MPI_DATATYPE_NULL, "a type was built from NULL blocklengths");
    }
    /* MPI_Pack and MPI_Unpack from MPI_BOTTOM with absolute addresses (MPICH
     * struct_pack_mpi_bottom). */
    {
        int a = 7;
        MPI_Aint addr;
        int one = 1, pos = 0;
        char pk[8];
        MPI_Datatype st, it = MPI_INT;
        CHECK_OK(MPI_Get_address(&a, &addr));
        CHECK_OK(MPI_Type_create_struct(1, &one, &addr, &it, &st));
        CHECK_OK(MPI_Type_commit(&st));
        CHECK_OK(MPI_Pack(MPI_BOTTOM, 1, st, pk, sizeof(pk), &pos, MPI_COMM_WORLD));
        CHECK(pos == 4 && !memcmp(pk, &a, 4), "pack from MPI_BOTTOM");
        a = 0;
        pos = 0;
        CHECK_OK(MPI_Unpack(pk, sizeof(pk), &pos, MPI_BOTTOM, 1, st, MPI_COMM_WORLD));
        CHECK(pos == 4 && a == 7, "unpack to MPI_BOTTOM: %d", a);
        CHECK_OK(MPI_Type_free(&st));
    }
    CHECK_OK(MPI_Finalize());
    return 0;
}
