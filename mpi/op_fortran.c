/* SPDX-License-Identifier: BSD-3-Clause */
/* Predefined reductions on the kinds only Fortran types have (INTEGER16, REAL16,
 * COMPLEX4/32, LOGICALn with the application's .TRUE./.FALSE., the pairs 2REAL,
 * 2DOUBLE_PRECISION, 2INTEGER of 8-byte integers). rmp's collectives have no kernel for
 * them, so each (kind, op) pair becomes one rmp user op (rmp_op_create, commutative)
 * made on first use: rmp's algorithms, shm paths included, run them unchanged, and
 * collectives/ needs no new datatype. */
#include <string.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

#ifdef __SIZEOF_INT128__
typedef __int128 fk_i128;
#endif
#ifdef __SIZEOF_FLOAT128__
typedef __float128 fk_f128;
typedef struct { fk_f128 r, i; } fk_c128;
#endif
#ifdef __FLT16_MAX__
typedef _Float16 fk_f16;
typedef struct { fk_f16 r, i; } fk_c16;
#endif
typedef struct { float v, i; } fk_2f;
typedef struct { double v, i; } fk_2d;
typedef struct { int64_t v, i; } fk_2l;

/* Elements may sit at any byte offset of a packed piece: loads and stores go through
 * memcpy (one move each once compiled). */
#define FK_LOOP(T, EXPR)                                                                   \
    do {                                                                                   \
        const char *pa_ = in;                                                              \
        char *pb_ = io;                                                                    \
        for (size_t k_ = 0; k_ < n; k_++, pa_ += sizeof(T), pb_ += sizeof(T)) {            \
            T x, y, z;                                                                     \
            memcpy(&x, pa_, sizeof(T));                                                    \
            memcpy(&y, pb_, sizeof(T));                                                    \
            z = (EXPR);                                                                    \
            memcpy(pb_, &z, sizeof(T));                                                    \
        }                                                                                  \
    } while (0)

#define FK_ARITH(T)                                                                        \
    case RMP_SUM: if (n) FK_LOOP(T, x + y); return 1;                                      \
    case RMP_PROD: if (n) FK_LOOP(T, x * y); return 1;                                     \
    case RMP_MIN: if (n) FK_LOOP(T, x < y ? x : y); return 1;                              \
    case RMP_MAX: if (n) FK_LOOP(T, x > y ? x : y); return 1;

#define FK_BITS(T)                                                                         \
    case RMP_BAND: if (n) FK_LOOP(T, x & y); return 1;                                     \
    case RMP_BOR: if (n) FK_LOOP(T, x | y); return 1;                                      \
    case RMP_BXOR: if (n) FK_LOOP(T, x ^ y); return 1;                                     \
    case RMP_LAND: if (n) FK_LOOP(T, (T)(x && y)); return 1;                               \
    case RMP_LOR: if (n) FK_LOOP(T, (T)(x || y)); return 1;                                \
    case RMP_LXOR: if (n) FK_LOOP(T, (T)(!x != !y)); return 1;

/* Complex product computed in CT (the half type in float). */
#define FK_CPLX(T, CT)                                                                     \
    case RMP_SUM: if (n) FK_LOOP(T, ((T){x.r + y.r, x.i + y.i})); return 1;                \
    case RMP_PROD:                                                                         \
        if (n)                                                                             \
            FK_LOOP(T, ((T){(CT)x.r * (CT)y.r - (CT)x.i * (CT)y.i,                         \
                            (CT)x.r * (CT)y.i + (CT)x.i * (CT)y.r}));                      \
        return 1;

/* MINLOC/MAXLOC: the extreme value, the lower index among equal values. */
#define FK_LOC(T)                                                                          \
    case RMP_MINLOC:                                                                       \
        if (n)                                                                             \
            FK_LOOP(T, x.v < y.v ? x : y.v < x.v ? y : ((T){x.v, x.i < y.i ? x.i : y.i})); \
        return 1;                                                                          \
    case RMP_MAXLOC:                                                                       \
        if (n)                                                                             \
            FK_LOOP(T, x.v > y.v ? x : y.v > x.v ? y : ((T){x.v, x.i < y.i ? x.i : y.i})); \
        return 1;

/* Fortran LOGICALs: a value is false when it is the application's .FALSE. pattern. */
static int fk_logical(size_t ls, rmp_op_t op, const void *in, void *io, size_t n)
{
    if (op != RMP_LAND && op != RMP_LOR && op != RMP_LXOR)
        return 0;
    const unsigned char *t, *f;
    mpii_fortran_booleans(ls, &t, &f);
    const char *a = in;
    char *b = io;
    for (size_t k = 0; k < n; k++, a += ls, b += ls) {
        int x = memcmp(a, f, ls) != 0, y = memcmp(b, f, ls) != 0;
        int z = op == RMP_LAND ? x && y : op == RMP_LOR ? x || y : x != y;
        memcpy(b, z ? t : f, ls);
    }
    return 1;
}

/* Reduce n elements (n == 0: only tell whether op is defined on the kind). */
static int fk_run(int basic, rmp_op_t op, const void *in, void *io, size_t n)
{
    switch (basic) {
#ifdef __SIZEOF_INT128__
    case MPII_B_INT128:
        switch (op) {
            FK_ARITH(fk_i128)
            FK_BITS(fk_i128)
        default: return 0;
        }
#endif
#ifdef __SIZEOF_FLOAT128__
    case MPII_B_FLOAT128:
        switch (op) {
            FK_ARITH(fk_f128)
        default: return 0;
        }
    case MPII_B_COMPLEX128:
        switch (op) {
            FK_CPLX(fk_c128, fk_f128)
        default: return 0;
        }
#endif
#ifdef __FLT16_MAX__
    case MPII_B_COMPLEX_HALF:
        switch (op) {
            FK_CPLX(fk_c16, float)
        default: return 0;
        }
#endif
    case MPII_B_FLOG1: return fk_logical(1, op, in, io, n);
    case MPII_B_FLOG2: return fk_logical(2, op, in, io, n);
    case MPII_B_FLOG4: return fk_logical(4, op, in, io, n);
    case MPII_B_FLOG8: return fk_logical(8, op, in, io, n);
    case MPII_B_FLOG16: return fk_logical(16, op, in, io, n);
    case MPII_B_2FLOAT:
        switch (op) {
            FK_LOC(fk_2f)
        default: return 0;
        }
    case MPII_B_2DOUBLE:
        switch (op) {
            FK_LOC(fk_2d)
        default: return 0;
        }
    case MPII_B_2INT64:
        switch (op) {
            FK_LOC(fk_2l)
        default: return 0;
        }
    default:
        return 0;
    }
}

/* One rmp op per (kind, predefined op), made on first use and kept for the run. */
#define FK_NKIND (MPII_B_COUNT - MPII_B_INT128)
#define FK_NOP (RMP_OP_COUNT + (RMP_OP_EXT_END - RMP_LXOR))
typedef struct fk_entry {
    int basic;
    rmp_op_t op;
    rmp_op_t rop;
    int made;
} fk_entry_t;
static fk_entry_t fk_ops[FK_NKIND][FK_NOP];

static void fk_cb(const void *in, void *inout, size_t count, rmp_datatype_t dt, void *ctx)
{
    const fk_entry_t *e = ctx;
    (void)dt;
    fk_run(e->basic, e->op, in, inout, count);
}

int mpii_fortran_red(int basic, rmp_op_t op, rmp_op_t *rop, size_t *es)
{
    int oi = (unsigned)op < RMP_OP_COUNT                       ? (int)op
             : op >= RMP_LXOR && op < RMP_OP_EXT_END ? RMP_OP_COUNT + (int)(op - RMP_LXOR)
                                                               : -1;
    if (basic < MPII_B_INT128 || basic >= MPII_B_COUNT || oi < 0 ||
        !fk_run(basic, op, NULL, NULL, 0))
        return MPI_ERR_OP;
    fk_entry_t *e = &fk_ops[basic - MPII_B_INT128][oi];
    int rc = MPI_SUCCESS;
    MPII_LOCK();
    if (!e->made) {
        e->basic = basic;
        e->op = op;
        if (rmp_op_create(fk_cb, e, 1, &e->rop) == RMP_SUCCESS)
            e->made = 1;
        else
            rc = MPI_ERR_NO_MEM;
    }
    MPII_UNLOCK();
    *rop = e->rop;
    *es = mpii_basic_size(basic);
    return rc;
}
