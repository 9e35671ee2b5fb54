/* SPDX-License-Identifier: BSD-3-Clause */
/* The Fortran datatypes from C: every handle's size, extent, name and envelope; every
 * one in a send/receive; reductions (sums of each numeric kind, complex products,
 * MAXLOC/MINLOC on the Fortran pairs, logical ops with the application's .TRUE. and
 * .FALSE.); MPI_Abi_get/set_fortran_info (8-byte INTEGER, a type said to be absent, bad
 * values) and _booleans; MPI_Type_match_size. Runs at 2 or more ranks. */
#include <stdint.h>
#include <string.h>

#include "check.h"

typedef struct {
    MPI_Datatype h;
    const char *name;
    int size;
} ftype_t;

static const ftype_t ftypes[] = {
    {MPI_INTEGER, "MPI_INTEGER", 4}, {MPI_REAL, "MPI_REAL", 4},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8}, {MPI_COMPLEX, "MPI_COMPLEX", 8},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16}, {MPI_LOGICAL, "MPI_LOGICAL", 4},
    {MPI_CHARACTER, "MPI_CHARACTER", 1}, {MPI_2INTEGER, "MPI_2INTEGER", 8},
    {MPI_2REAL, "MPI_2REAL", 8}, {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16},
    {MPI_INTEGER1, "MPI_INTEGER1", 1}, {MPI_INTEGER2, "MPI_INTEGER2", 2},
    {MPI_INTEGER4, "MPI_INTEGER4", 4}, {MPI_INTEGER8, "MPI_INTEGER8", 8},
    {MPI_INTEGER16, "MPI_INTEGER16", 16}, {MPI_REAL2, "MPI_REAL2", 2},
    {MPI_REAL4, "MPI_REAL4", 4}, {MPI_REAL8, "MPI_REAL8", 8}, {MPI_REAL16, "MPI_REAL16", 16},
    {MPI_COMPLEX4, "MPI_COMPLEX4", 4}, {MPI_COMPLEX8, "MPI_COMPLEX8", 8},
    {MPI_COMPLEX16, "MPI_COMPLEX16", 16}, {MPI_COMPLEX32, "MPI_COMPLEX32", 32},
    {MPI_LOGICAL1, "MPI_LOGICAL1", 1}, {MPI_LOGICAL2, "MPI_LOGICAL2", 2},
    {MPI_LOGICAL4, "MPI_LOGICAL4", 4}, {MPI_LOGICAL8, "MPI_LOGICAL8", 8},
    {MPI_LOGICAL16, "MPI_LOGICAL16", 16},
};
#define NF (int)(sizeof(ftypes) / sizeof(ftypes[0]))

static int rank, size;

static void check_queries(void)
{
    for (int i = 0; i < NF; i++) {
        int s, len, ni, na, nd, comb;
        MPI_Aint lb, ext;
        char name[MPI_MAX_OBJECT_NAME];
        CHECK(MPI_Type_size(ftypes[i].h, &s) == MPI_SUCCESS && s == ftypes[i].size,
              "%s: size %d, expected %d", ftypes[i].name, s, ftypes[i].size);
        CHECK_OK(MPI_Type_get_extent(ftypes[i].h, &lb, &ext));
        CHECK(lb == 0 && ext == ftypes[i].size, "%s: lb %ld extent %ld", ftypes[i].name,
              (long)lb, (long)ext);
        CHECK_OK(MPI_Type_get_name(ftypes[i].h, name, &len));
        CHECK(!strcmp(name, ftypes[i].name), "name %s, expected %s", name, ftypes[i].name);
        CHECK_OK(MPI_Type_get_envelope(ftypes[i].h, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0,
              "%s: combiner %d", ftypes[i].name, comb);
    }
}

/* Rank 0 sends 3 elements of every type to every other rank: a byte pattern. */
static void check_p2p(void)
{
    unsigned char buf[3 * 32], exp[3 * 32];
    for (int i = 0; i < NF; i++) {
        size_t n = 3 * (size_t)ftypes[i].size;
        for (size_t k = 0; k < n; k++)
            exp[k] = (unsigned char)(17 * i + 3 * k + 1);
        if (rank == 0) {
            for (int p = 1; p < size; p++)
                CHECK_OK(MPI_Send(exp, 3, ftypes[i].h, p, i, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            int cnt;
            memset(buf, 0, sizeof(buf));
            CHECK_OK(MPI_Recv(buf, 3, ftypes[i].h, 0, i, MPI_COMM_WORLD, &st));
            CHECK_OK(MPI_Get_count(&st, ftypes[i].h, &cnt));
            CHECK(cnt == 3 && !memcmp(buf, exp, n), "%s: received %d, data %s",
                  ftypes[i].name, cnt, memcmp(buf, exp, n) ? "differs" : "ok");
        }
    }
}

/* SUM of rank + 1 over the ranks, for every integer and real kind. */
static void check_sums(void)
{
    long tot = (long)size * (size + 1) / 2;
    int32_t i4 = rank + 1, o4;
    CHECK_OK(MPI_Allreduce(&i4, &o4, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    CHECK(o4 == tot, "INTEGER sum %d", o4);
    int8_t i1 = (int8_t)(rank + 1), o1;
    CHECK_OK(MPI_Allreduce(&i1, &o1, 1, MPI_INTEGER1, MPI_SUM, MPI_COMM_WORLD));
    CHECK(o1 == tot, "INTEGER1 sum %d", o1);
    int16_t i2 = (int16_t)(rank + 1), o2;
    CHECK_OK(MPI_Allreduce(&i2, &o2, 1, MPI_INTEGER2, MPI_SUM, MPI_COMM_WORLD));
    CHECK(o2 == tot, "INTEGER2 sum %d", o2);
    int64_t i8 = ((int64_t)1 << 40) * (rank + 1), o8;
    CHECK_OK(MPI_Allreduce(&i8, &o8, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD));
    CHECK(o8 == ((int64_t)1 << 40) * tot, "INTEGER8 sum");
#ifdef __SIZEOF_INT128__
    __int128 i16[2] = {((__int128)1 << 100) * (rank + 1), rank}, o16[2];
    CHECK_OK(MPI_Allreduce(i16, o16, 2, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD));
    CHECK(o16[0] == ((__int128)1 << 100) * tot && o16[1] == tot - size, "INTEGER16 sum");
    CHECK_OK(MPI_Allreduce(i16, o16, 2, MPI_INTEGER16, MPI_MAX, MPI_COMM_WORLD));
    CHECK(o16[0] == ((__int128)1 << 100) * size, "INTEGER16 max");
#endif
    float r4 = (float)(rank + 1), q4;
    CHECK_OK(MPI_Allreduce(&r4, &q4, 1, MPI_REAL, MPI_SUM, MPI_COMM_WORLD));
    CHECK(q4 == (float)tot, "REAL sum %g", q4);
    CHECK_OK(MPI_Allreduce(&r4, &q4, 1, MPI_REAL4, MPI_SUM, MPI_COMM_WORLD));
    CHECK(q4 == (float)tot, "REAL4 sum %g", q4);
    double r8 = rank + 1.5, q8;
    CHECK_OK(MPI_Allreduce(&r8, &q8, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD));
    CHECK(q8 == tot + 0.5 * size, "DOUBLE PRECISION sum %g", q8);
    CHECK_OK(MPI_Allreduce(&r8, &q8, 1, MPI_REAL8, MPI_SUM, MPI_COMM_WORLD));
    CHECK(q8 == tot + 0.5 * size, "REAL8 sum %g", q8);
#ifdef __FLT16_MAX__
    _Float16 h = (_Float16)(rank + 1), hq;
    CHECK_OK(MPI_Allreduce(&h, &hq, 1, MPI_REAL2, MPI_SUM, MPI_COMM_WORLD));
    CHECK((float)hq == (float)tot, "REAL2 sum %g", (double)hq);
    _Float16 ch[2] = {(_Float16)(rank + 1), (_Float16)1}, cq[2];
    CHECK_OK(MPI_Allreduce(ch, cq, 1, MPI_COMPLEX4, MPI_SUM, MPI_COMM_WORLD));
    CHECK((float)cq[0] == (float)tot && (float)cq[1] == (float)size, "COMPLEX4 sum");
#endif
#ifdef __SIZEOF_FLOAT128__
    __float128 x = (__float128)(rank + 1) / 3, xq;
    CHECK_OK(MPI_Allreduce(&x, &xq, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD));
    __float128 d = xq - (__float128)tot / 3;
    CHECK(d < 1e-30Q && d > -1e-30Q, "REAL16 sum off by %g", (double)d);
    /* (1 + i)^size by PROD: 2^(size/2) e^(i size pi/4) */
    __float128 c32[2] = {1, 1}, c32q[2];
    CHECK_OK(MPI_Allreduce(c32, c32q, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD));
    if (size == 2)
        CHECK(c32q[0] == 0 && c32q[1] == 2, "COMPLEX32 prod");
    CHECK_OK(MPI_Allreduce(c32, c32q, 1, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD));
    CHECK(c32q[0] == size && c32q[1] == size, "COMPLEX32 sum");
#endif
    float c8[4] = {(float)rank, 1, 2, (float)-rank}, c8q[4];
    CHECK_OK(MPI_Allreduce(c8, c8q, 2, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(c8q[0] == (float)(tot - size) && c8q[1] == (float)size && c8q[2] == 2.0f * size &&
              c8q[3] == (float)-(tot - size), "COMPLEX sum");
    CHECK_OK(MPI_Allreduce(c8, c8q, 2, MPI_COMPLEX8, MPI_SUM, MPI_COMM_WORLD));
    CHECK(c8q[1] == (float)size, "COMPLEX8 sum");
    double c16[2] = {0, 1}, c16q[2]; /* i^size */
    CHECK_OK(MPI_Allreduce(c16, c16q, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
    double er[4] = {1, 0, -1, 0}, ei[4] = {0, 1, 0, -1};
    CHECK(c16q[0] == er[size % 4] && c16q[1] == ei[size % 4], "DOUBLE COMPLEX prod %g %g",
          c16q[0], c16q[1]);
    CHECK_OK(MPI_Allreduce(c16, c16q, 1, MPI_COMPLEX16, MPI_SUM, MPI_COMM_WORLD));
    CHECK(c16q[0] == 0 && c16q[1] == size, "COMPLEX16 sum");
}

/* MAXLOC/MINLOC on the pairs: the extreme at rank 1, ties broken by the lower index. */
static void check_pairs(void)
{
    int32_t p[2] = {rank == 1 ? 100 : 5, rank}, q[2];
    CHECK_OK(MPI_Allreduce(p, q, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(q[0] == 100 && q[1] == 1, "2INTEGER maxloc (%d, %d)", q[0], q[1]);
    CHECK_OK(MPI_Allreduce(p, q, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(q[0] == 5 && q[1] == 0, "2INTEGER minloc (%d, %d)", q[0], q[1]);
    float f[4] = {rank == 1 ? -1.0f : 2.0f, (float)rank, 7.0f, (float)(size - rank)}, fq[4];
    CHECK_OK(MPI_Allreduce(f, fq, 2, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(fq[0] == -1 && fq[1] == 1 && fq[2] == 7 && fq[3] == 1, "2REAL minloc");
    double d[2] = {rank == 1 ? 9.5 : 1.0, rank}, dq[2];
    CHECK_OK(MPI_Allreduce(d, dq, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(dq[0] == 9.5 && dq[1] == 1, "2DOUBLE_PRECISION maxloc");
}

/* LAND/LOR/LXOR on LOGICAL with true/false values t/f (4 bytes). */
static void check_logical(int32_t t, int32_t f)
{
    int32_t v[3] = {t, rank == 1 ? t : f, rank == 1 ? f : t}, q[3];
    CHECK_OK(MPI_Allreduce(v, q, 3, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    CHECK(q[0] == t && q[1] == (size == 2 ? f : f) && q[2] == f, "LOGICAL land %d %d %d",
          q[0], q[1], q[2]);
    CHECK_OK(MPI_Allreduce(v, q, 3, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(q[0] == t && q[1] == t && q[2] == (size > 1 ? t : f), "LOGICAL lor");
    CHECK_OK(MPI_Allreduce(v, q, 3, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD));
    CHECK(q[0] == (size % 2 ? t : f) && q[1] == t, "LOGICAL lxor %d %d", q[0], q[1]);
    /* LOGICAL1 keeps its own values (default 1 and 0): any non-.FALSE. is true. */
    int8_t b[1] = {(int8_t)(rank == 0 ? 5 : 0)}, bq;
    CHECK_OK(MPI_Allreduce(b, &bq, 1, MPI_LOGICAL1, MPI_LOR, MPI_COMM_WORLD));
    CHECK(bq == 1, "LOGICAL1 lor %d", bq);
}

static void check_info(void)
{
    MPI_Info info;
    char val[MPI_MAX_INFO_VAL];
    int flag, len = sizeof(val);
    CHECK_OK(MPI_Abi_get_fortran_info(&info));
    CHECK_OK(MPI_Info_get_string(info, "mpi_integer_size", &len, val, &flag));
    CHECK(flag && !strcmp(val, "4"), "mpi_integer_size %s", flag ? val : "(absent)");
    len = sizeof(val);
    CHECK_OK(MPI_Info_get_string(info, "mpi_integer16_supported", &len, val, &flag));
    CHECK(flag && !strcmp(val, "true"), "mpi_integer16_supported");
    /* An 8-byte default INTEGER, REAL16 said absent. */
    MPI_Info_set(info, "mpi_integer_size", "8");
    MPI_Info_set(info, "mpi_real16_supported", "false");
    CHECK_OK(MPI_Abi_set_fortran_info(info));
    MPI_Info_free(&info);
    int s;
    CHECK(MPI_Type_size(MPI_INTEGER, &s) == MPI_SUCCESS && s == 8, "INTEGER size %d", s);
    CHECK(MPI_Type_size(MPI_2INTEGER, &s) == MPI_SUCCESS && s == 16, "2INTEGER size %d", s);
    CHECK(MPI_Type_size(MPI_REAL16, &s) != MPI_SUCCESS, "REAL16 still usable");
    int64_t i8 = ((int64_t)1 << 36) + rank, o8;
    CHECK_OK(MPI_Allreduce(&i8, &o8, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    CHECK(o8 == ((int64_t)size << 36) + (int64_t)size * (size - 1) / 2, "INTEGER*8 sum");
    int64_t p[2] = {((int64_t)1 << 40) - rank, rank}, q[2];
    CHECK_OK(MPI_Allreduce(p, q, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(q[0] == ((int64_t)1 << 40) - (size - 1) && q[1] == size - 1, "2INTEGER*8 minloc");
    CHECK_OK(MPI_Abi_get_fortran_info(&info));
    len = sizeof(val);
    CHECK_OK(MPI_Info_get_string(info, "mpi_real16_supported", &len, val, &flag));
    CHECK(flag && !strcmp(val, "false"), "mpi_real16_supported after set");
    /* Bad values change nothing. */
    MPI_Info_set(info, "mpi_integer_size", "3");
    CHECK(MPI_Abi_set_fortran_info(info) == MPI_ERR_ARG, "size 3 accepted");
    MPI_Info_set(info, "mpi_integer_size", "4");
    MPI_Info_set(info, "mpi_real16_supported", "maybe");
    CHECK(MPI_Abi_set_fortran_info(info) == MPI_ERR_ARG, "\"maybe\" accepted");
    CHECK(MPI_Type_size(MPI_INTEGER, &s) == MPI_SUCCESS && s == 8, "changed by a bad call");
    MPI_Info_set(info, "mpi_real16_supported", "true");
    CHECK_OK(MPI_Abi_set_fortran_info(info));
    MPI_Info_free(&info);
    CHECK(MPI_Type_size(MPI_INTEGER, &s) == MPI_SUCCESS && s == 4, "INTEGER size %d", s);
    CHECK(MPI_Type_size(MPI_REAL16, &s) == MPI_SUCCESS && s == 16, "REAL16 back");
}

static void check_booleans(void)
{
    int32_t t, f;
    int set;
    CHECK_OK(MPI_Abi_get_fortran_booleans(4, &t, &f, &set));
    CHECK(t == 1 && f == 0 && !set, "default booleans %d %d %d", t, f, set);
    check_logical(1, 0);
    /* Intel Fortran's: .TRUE. is -1. */
    t = -1;
    f = 0;
    CHECK_OK(MPI_Abi_set_fortran_booleans(4, &t, &f));
    int32_t t2, f2;
    CHECK_OK(MPI_Abi_get_fortran_booleans(4, &t2, &f2, &set));
    CHECK(t2 == -1 && f2 == 0 && set, "booleans after set");
    check_logical(-1, 0);
    CHECK(MPI_Abi_set_fortran_booleans(3, &t, &f) == MPI_ERR_ARG, "logical_size 3");
    t = 1;
    CHECK_OK(MPI_Abi_set_fortran_booleans(4, &t, &f));
}

static void check_match_and_errors(void)
{
    MPI_Datatype t;
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &t) == MPI_SUCCESS &&
              t == MPI_INTEGER16, "match integer 16");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t) == MPI_SUCCESS && t == MPI_REAL8,
          "match real 8");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 32, &t) == MPI_SUCCESS &&
              t == MPI_COMPLEX32, "match complex 32");
    CHECK(MPI_Type_match_size(MPIX_TYPECLASS_LOGICAL, 4, &t) == MPI_SUCCESS &&
              t == MPI_LOGICAL4, "match logical 4");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t) == MPI_ERR_ARG, "match real 3");
    /* Ops not defined on a type: a clear MPI_ERR_OP, no crash. */
    double a[2] = {1, 2}, b[2];
    int ec;
    CHECK(MPI_Allreduce(a, b, 1, MPI_REAL16, MPI_BAND, MPI_COMM_WORLD) != MPI_SUCCESS,
          "BAND on REAL16 accepted");
    CHECK(MPI_Allreduce(a, b, 1, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS,
          "SUM on LOGICAL accepted");
    int rc = MPI_Allreduce(a, b, 1, MPI_COMPLEX16, MPI_MAX, MPI_COMM_WORLD);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_OP, "MAX on COMPLEX16: class %d", ec);
}

/* MPI_Type_create_f90_*: the kind SELECTED_*_KIND would pick, (p, r) in the contents,
 * one handle per (p, r), usable in communication; MPI_Type_get_value_index. */
static void check_f90(void)
{
    struct { int comb, p, r, size; } c[] = {
        {MPI_COMBINER_F90_INTEGER, 0, 3, 2},   {MPI_COMBINER_F90_INTEGER, 0, 9, 4},
        {MPI_COMBINER_F90_INTEGER, 0, 10, 8},  {MPI_COMBINER_F90_INTEGER, 0, 30, 16},
        {MPI_COMBINER_F90_REAL, 3, 10, 4},     {MPI_COMBINER_F90_REAL, 7, MPI_UNDEFINED, 8},
        {MPI_COMBINER_F90_REAL, MPI_UNDEFINED, 400, 16},
        {MPI_COMBINER_F90_COMPLEX, 6, 37, 8},  {MPI_COMBINER_F90_COMPLEX, 15, 300, 16},
    };
    for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
        MPI_Datatype t, t2;
        int s, ni, na, nd, comb, ints[2] = {-9, -9};
        if (c[k].comb == MPI_COMBINER_F90_INTEGER) {
            CHECK_OK(MPI_Type_create_f90_integer(c[k].r, &t));
            CHECK_OK(MPI_Type_create_f90_integer(c[k].r, &t2));
        } else if (c[k].comb == MPI_COMBINER_F90_REAL) {
            CHECK_OK(MPI_Type_create_f90_real(c[k].p, c[k].r, &t));
            CHECK_OK(MPI_Type_create_f90_real(c[k].p, c[k].r, &t2));
        } else {
            CHECK_OK(MPI_Type_create_f90_complex(c[k].p, c[k].r, &t));
            CHECK_OK(MPI_Type_create_f90_complex(c[k].p, c[k].r, &t2));
        }
        CHECK(t == t2, "case %zu: two handles for one (p, r)", k);
        CHECK(MPI_Type_size(t, &s) == MPI_SUCCESS && s == c[k].size, "case %zu: size %d", k,
              s);
        CHECK_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
        int want_ni = c[k].comb == MPI_COMBINER_F90_INTEGER ? 1 : 2;
        CHECK(comb == c[k].comb && ni == want_ni && na == 0 && nd == 0,
              "case %zu: envelope %d %d %d %d", k, comb, ni, na, nd);
        CHECK_OK(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
        CHECK(want_ni == 1 ? ints[0] == c[k].r : ints[0] == c[k].p && ints[1] == c[k].r,
              "case %zu: contents %d %d", k, ints[0], ints[1]);
        CHECK(MPI_Type_free(&t) != MPI_SUCCESS, "an f90 type was freed");
    }
    MPI_Datatype ti, tr, tc;
    CHECK_OK(MPI_Type_create_f90_integer(12, &ti));
    int64_t i8 = ((int64_t)1 << 50) + rank, o8;
    CHECK_OK(MPI_Allreduce(&i8, &o8, 1, ti, MPI_SUM, MPI_COMM_WORLD));
    CHECK(o8 == ((int64_t)size << 50) + (int64_t)size * (size - 1) / 2, "f90 integer sum");
    CHECK_OK(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &tc));
    double cz[2] = {1, rank}, cq[2];
    CHECK_OK(MPI_Allreduce(cz, cq, 1, tc, MPI_SUM, MPI_COMM_WORLD));
    CHECK(cq[0] == size && cq[1] == size * (size - 1) / 2, "f90 complex sum");
    CHECK_OK(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &tr));
    float f = 2.5f;
    if (rank == 0)
        CHECK_OK(MPI_Send(&f, 1, tr, 1, 99, MPI_COMM_WORLD));
    else if (rank == 1) {
        float g = 0;
        CHECK_OK(MPI_Recv(&g, 1, tr, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(g == 2.5f, "f90 real send");
    }
    int ec;
    MPI_Datatype t;
    MPI_Error_class(MPI_Type_create_f90_integer(39, &t), &ec);
    CHECK(ec == MPI_ERR_ARG, "integer range 39: class %d", ec);
    MPI_Error_class(MPI_Type_create_f90_real(34, MPI_UNDEFINED, &t), &ec);
    CHECK(ec == MPI_ERR_ARG, "real precision 34: class %d", ec);
    MPI_Error_class(MPI_Type_create_f90_complex(MPI_UNDEFINED, MPI_UNDEFINED, &t), &ec);
    CHECK(ec == MPI_ERR_ARG, "complex of nothing: class %d", ec);

    CHECK_OK(MPI_Type_get_value_index(MPI_INT, MPI_INT, &t));
    CHECK(t == MPI_2INT, "value_index int int");
    CHECK_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
    CHECK(t == MPI_DOUBLE_INT, "value_index double int");
    CHECK_OK(MPI_Type_get_value_index(MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, &t));
    CHECK(t == MPI_2DOUBLE_PRECISION, "value_index 2double_precision");
    CHECK_OK(MPI_Type_get_value_index(MPI_INT, MPI_DOUBLE, &t));
    CHECK(t == MPI_DATATYPE_NULL, "value_index int double");
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check_queries();
    check_p2p();
    check_sums();
    check_pairs();
    check_booleans();
    check_info();
    check_match_and_errors();
    check_f90();
    MPI_Finalize();
    if (rank == 0)
        printf("dtype_fortran: ok\n");
    return 0;
}
