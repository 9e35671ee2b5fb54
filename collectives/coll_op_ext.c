/* SPDX-License-Identifier: BSD-3-Clause */
/* Reductions beyond the core kernels: the extended C types of rmp.h (long double, complex,
 * C_BOOL, the MINLOC/MAXLOC pair types) and logical xor. coll_op.c hands every (dt, op)
 * outside its [core type][core op] table that is not a user op (coll_op_user.c) here. */
#include <complex.h>
#include <stdbool.h>
#include <string.h>

#include "coll_op.h"

size_t coll_ext_size(rmp_datatype_t dt)
{
    switch (dt) {
    case RMP_LONG_DOUBLE: return sizeof(long double);
    case RMP_C_FLOAT_COMPLEX: return sizeof(float complex);
    case RMP_C_DOUBLE_COMPLEX: return sizeof(double complex);
    case RMP_C_LONG_DOUBLE_COMPLEX: return sizeof(long double complex);
    case RMP_C_BOOL: return sizeof(bool);
    case RMP_FLOAT_INT: return sizeof(coll_float_int_t);
    case RMP_DOUBLE_INT: return sizeof(coll_double_int_t);
    case RMP_LONG_INT: return sizeof(coll_long_int_t);
    case RMP_2INT: return sizeof(coll_2int_t);
    case RMP_SHORT_INT: return sizeof(coll_short_int_t);
    case RMP_LONG_DOUBLE_INT: return sizeof(coll_long_double_int_t);
    default:
        break;
    }
    long n = (long)dt - RMP_DATATYPE_OPAQUE;
    return n >= 1 && n < (1L << 30) ? (size_t)n : 0;
}

static int ext_is_int(rmp_datatype_t dt)
{
    return (unsigned)dt <= RMP_UINT64;
}

static int ext_is_pair(rmp_datatype_t dt)
{
    return dt >= RMP_FLOAT_INT && dt <= RMP_LONG_DOUBLE_INT;
}

int coll_op_ext_check(rmp_datatype_t dt, rmp_op_t op)
{
    size_t es = coll_dt_size(dt);
    if (es == 0)
        return RMP_ERR_ARG;
    if (coll_op_user_live(op))
        return RMP_SUCCESS;
    if ((long)dt >= RMP_DATATYPE_OPAQUE)
        return RMP_ERR_ARG; /* opaque elements: user ops only */
    switch (op) {
    case RMP_LXOR:
        return ext_is_int(dt) || dt == RMP_C_BOOL || dt == RMP_LONG_DOUBLE ? RMP_SUCCESS
                                                                          : RMP_ERR_ARG;
    case RMP_MINLOC:
    case RMP_MAXLOC:
        return ext_is_pair(dt) ? RMP_SUCCESS : RMP_ERR_ARG;
    case RMP_SUM:
    case RMP_PROD:
        return dt >= RMP_LONG_DOUBLE && dt <= RMP_C_LONG_DOUBLE_COMPLEX ? RMP_SUCCESS
                                                                        : RMP_ERR_ARG;
    case RMP_MIN:
    case RMP_MAX:
        return dt == RMP_LONG_DOUBLE ? RMP_SUCCESS : RMP_ERR_ARG;
    case RMP_LAND:
    case RMP_LOR:
        return dt == RMP_LONG_DOUBLE || dt == RMP_C_BOOL ? RMP_SUCCESS : RMP_ERR_ARG;
    default:
        return RMP_ERR_ARG;
    }
}

/* out[i] = a[i] OP b[i] over n elements of T; out may alias a or b exactly. */
#define EXT_LOOP(T, EXPR)                                                                  \
    do {                                                                                   \
        T *o_ = out;                                                                       \
        const T *a_ = a, *b_ = b;                                                          \
        for (size_t i = 0; i < n; i++) {                                                   \
            T x = a_[i], y = b_[i];                                                        \
            o_[i] = (T)(EXPR);                                                             \
        }                                                                                  \
    } while (0)

#define EXT_LXOR(T) EXT_LOOP(T, (x != 0) != (y != 0))

/* The lower value wins, ties take the lower index (MPI's MINLOC; MAXLOC with >). */
#define EXT_LOC(T, CMP)                                                                    \
    EXT_LOOP(T, ((T){(CMP(x.v, y.v) || x.v == y.v) ? x.v : y.v,                           \
                     x.v == y.v ? (x.i < y.i ? x.i : y.i) : CMP(x.v, y.v) ? x.i : y.i}))
#define EXT_LT(p, q) ((p) < (q))
#define EXT_GT(p, q) ((p) > (q))

#define EXT_PAIR(T)                                                                        \
    do {                                                                                   \
        if (op == RMP_MINLOC)                                                              \
            EXT_LOC(T, EXT_LT);                                                            \
        else                                                                               \
            EXT_LOC(T, EXT_GT);                                                            \
    } while (0)

#define EXT_ARITH(T)                                                                       \
    do {                                                                                   \
        if (op == RMP_SUM)                                                                 \
            EXT_LOOP(T, x + y);                                                            \
        else                                                                               \
            EXT_LOOP(T, x * y);                                                            \
    } while (0)

static void ext_lxor_int(void *out, const void *a, const void *b, size_t n, rmp_datatype_t dt)
{
    switch (coll_dt_size(dt)) {
    case 1: EXT_LXOR(uint8_t); break;
    case 2: EXT_LXOR(uint16_t); break;
    case 4: EXT_LXOR(uint32_t); break;
    default: EXT_LXOR(uint64_t); break;
    }
}

static void ext_long_double(void *out, const void *a, const void *b, size_t n, rmp_op_t op)
{
    typedef long double T;
    switch (op) {
    case RMP_SUM: EXT_LOOP(T, x + y); break;
    case RMP_PROD: EXT_LOOP(T, x * y); break;
    case RMP_MIN: EXT_LOOP(T, (x < y || x != x) ? x : y); break;
    case RMP_MAX: EXT_LOOP(T, (x > y || x != x) ? x : y); break;
    case RMP_LAND: EXT_LOOP(T, (x != 0) && (y != 0)); break;
    case RMP_LOR: EXT_LOOP(T, (x != 0) || (y != 0)); break;
    default: EXT_LXOR(T); break;
    }
}

static void ext_bool(void *out, const void *a, const void *b, size_t n, rmp_op_t op)
{
    if (op == RMP_LAND)
        EXT_LOOP(bool, x && y);
    else if (op == RMP_LOR)
        EXT_LOOP(bool, x || y);
    else
        EXT_LOOP(bool, x != y);
}

void coll_op_ext_reduce3(void *out, const void *a, const void *b, size_t n, rmp_datatype_t dt,
                         rmp_op_t op)
{
    switch (dt) {
    case RMP_LONG_DOUBLE: ext_long_double(out, a, b, n, op); break;
    case RMP_C_FLOAT_COMPLEX: EXT_ARITH(float complex); break;
    case RMP_C_DOUBLE_COMPLEX: EXT_ARITH(double complex); break;
    case RMP_C_LONG_DOUBLE_COMPLEX: EXT_ARITH(long double complex); break;
    case RMP_C_BOOL: ext_bool(out, a, b, n, op); break;
    case RMP_FLOAT_INT: EXT_PAIR(coll_float_int_t); break;
    case RMP_DOUBLE_INT: EXT_PAIR(coll_double_int_t); break;
    case RMP_LONG_INT: EXT_PAIR(coll_long_int_t); break;
    case RMP_2INT: EXT_PAIR(coll_2int_t); break;
    case RMP_SHORT_INT: EXT_PAIR(coll_short_int_t); break;
    case RMP_LONG_DOUBLE_INT: EXT_PAIR(coll_long_double_int_t); break;
    default:
        if (op == RMP_LXOR && ext_is_int(dt))
            ext_lxor_int(out, a, b, n, dt);
        break;
    }
}
