/* SPDX-License-Identifier: BSD-3-Clause */
/* Reductions beyond the core kernels: the extended C types of rmp.h (long double, complex,
 * C_BOOL, the MINLOC/MAXLOC pair types), logical xor, and user-defined ops. coll_op.c
 * hands every (dt, op) outside its [core type][core op] table to this file. */
#include <complex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "coll_blocks.h"
#include "coll_op.h"
#include "coll_tune.h"

typedef struct { float v; int i; } ext_float_int_t;
typedef struct { double v; int i; } ext_double_int_t;
typedef struct { long v; int i; } ext_long_int_t;
typedef struct { int v; int i; } ext_2int_t;
typedef struct { short v; int i; } ext_short_int_t;
typedef struct { long double v; int i; } ext_long_double_int_t;

/* ---- User ops: a table indexed by op - RMP_OP_USER; freed slots are reused. ---- */
typedef struct ext_user_op {
    rmp_op_fn_t fn;
    void *ctx;
    int commute;
    int live;
} ext_user_op_t;

static ext_user_op_t *ext_ops;
static int ext_nops;

static ext_user_op_t *ext_user(rmp_op_t op)
{
    long k = (long)op - RMP_OP_USER;
    return k >= 0 && k < ext_nops && ext_ops[k].live ? &ext_ops[k] : NULL;
}

RMP_EXPORT int rmp_op_create(rmp_op_fn_t fn, void *ctx, int commute, rmp_op_t *op)
{
    if (!fn || !op)
        return RMP_ERR_ARG;
    int k = 0;
    while (k < ext_nops && ext_ops[k].live)
        k++;
    if (k == ext_nops) {
        ext_user_op_t *t = realloc(ext_ops, (size_t)(ext_nops + 16) * sizeof(*t));
        if (!t)
            return RMP_ERR_NOMEM;
        memset(t + ext_nops, 0, 16 * sizeof(*t));
        ext_ops = t;
        ext_nops += 16;
    }
    ext_ops[k] = (ext_user_op_t){fn, ctx, commute != 0, 1};
    *op = (rmp_op_t)(RMP_OP_USER + k);
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_op_free(rmp_op_t *op)
{
    ext_user_op_t *u = op ? ext_user(*op) : NULL;
    if (!u)
        return RMP_ERR_ARG;
    u->live = 0;
    *op = RMP_OP_COUNT;
    return RMP_SUCCESS;
}

int coll_op_commutative(rmp_op_t op)
{
    ext_user_op_t *u = ext_user(op);
    return u ? u->commute : 1;
}

size_t coll_ext_size(rmp_datatype_t dt)
{
    switch (dt) {
    case RMP_LONG_DOUBLE: return sizeof(long double);
    case RMP_C_FLOAT_COMPLEX: return sizeof(float complex);
    case RMP_C_DOUBLE_COMPLEX: return sizeof(double complex);
    case RMP_C_LONG_DOUBLE_COMPLEX: return sizeof(long double complex);
    case RMP_C_BOOL: return sizeof(bool);
    case RMP_FLOAT_INT: return sizeof(ext_float_int_t);
    case RMP_DOUBLE_INT: return sizeof(ext_double_int_t);
    case RMP_LONG_INT: return sizeof(ext_long_int_t);
    case RMP_2INT: return sizeof(ext_2int_t);
    case RMP_SHORT_INT: return sizeof(ext_short_int_t);
    case RMP_LONG_DOUBLE_INT: return sizeof(ext_long_double_int_t);
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
    if (ext_user(op))
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

/* User op into out = a op b. The callback computes inout = in op inout, so out must be
 * the right operand: copy b there first when it is not, going through a bounce buffer
 * when out is a (a non-commutative op cannot swap the operands). */
static void ext_user_reduce(const ext_user_op_t *u, void *out, const void *a, const void *b,
                            size_t n, rmp_datatype_t dt, size_t es)
{
    if (out == b && a != b) {
        u->fn(a, out, n, dt, u->ctx);
        return;
    }
    if (out != a && out != b) {
        memcpy(out, b, n * es);
        u->fn(a, out, n, dt, u->ctx);
        return;
    }
    if (u->commute && a != b) { /* out == a: a = b op a is a op b */
        u->fn(b, out, n, dt, u->ctx);
        return;
    }
    /* out == a (and maybe == b): in = a through a bounce buffer, inout = out holding b. */
    _Alignas(64) char stack[COLL_STACK_BYTES];
    size_t per = es <= sizeof(stack) ? sizeof(stack) / es : 1;
    char *tmp = es <= sizeof(stack) ? stack : malloc(es);
    if (!tmp)
        return; /* cannot happen short of memory exhaustion for a > 4 KiB element */
    for (size_t i = 0; i < n; i += per) {
        size_t m = n - i < per ? n - i : per;
        char *o = (char *)out + i * es;
        memcpy(tmp, o, m * es); /* the a part */
        if (b != out)
            memcpy(o, (const char *)b + i * es, m * es);
        u->fn(tmp, o, m, dt, u->ctx);
    }
    if (tmp != stack)
        free(tmp);
}

void coll_op_ext_reduce3(void *out, const void *a, const void *b, size_t n, rmp_datatype_t dt,
                         rmp_op_t op)
{
    const ext_user_op_t *u = ext_user(op);
    if (u) {
        size_t es = coll_dt_size(dt);
        ext_user_reduce(u, out, a, b, n, dt, es);
        return;
    }
    switch (dt) {
    case RMP_LONG_DOUBLE: ext_long_double(out, a, b, n, op); break;
    case RMP_C_FLOAT_COMPLEX: EXT_ARITH(float complex); break;
    case RMP_C_DOUBLE_COMPLEX: EXT_ARITH(double complex); break;
    case RMP_C_LONG_DOUBLE_COMPLEX: EXT_ARITH(long double complex); break;
    case RMP_C_BOOL: ext_bool(out, a, b, n, op); break;
    case RMP_FLOAT_INT: EXT_PAIR(ext_float_int_t); break;
    case RMP_DOUBLE_INT: EXT_PAIR(ext_double_int_t); break;
    case RMP_LONG_INT: EXT_PAIR(ext_long_int_t); break;
    case RMP_2INT: EXT_PAIR(ext_2int_t); break;
    case RMP_SHORT_INT: EXT_PAIR(ext_short_int_t); break;
    case RMP_LONG_DOUBLE_INT: EXT_PAIR(ext_long_double_int_t); break;
    default:
        if (op == RMP_LXOR && ext_is_int(dt))
            ext_lxor_int(out, a, b, n, dt);
        break;
    }
}

int coll_algo_ordered_user(coll_kind_t kind, int algo, rmp_op_t op, int root)
{
    if (coll_op_commutative(op))
        return algo;
    switch (kind) {
    case COLL_ALLREDUCE:
        return algo == COLL_ALLREDUCE_DIRECT || algo == COLL_ALLREDUCE_SHM ? algo
                                                                           : COLL_ALLREDUCE_RD;
    case COLL_REDUCE: /* binomial combines relative ranks: in order from root 0 only */
        return algo == COLL_REDUCE_BINOMIAL && root == 0 ? algo : COLL_REDUCE_LINEAR;
    case COLL_REDUCE_SCATTER:
        return algo == COLL_RS_SHM ? algo : COLL_RS_DIRECT;
    default:
        return algo;
    }
}

RMP_EXPORT int rmp_op_check(rmp_datatype_t dt, rmp_op_t op)
{
    return coll_dt_size(dt) ? coll_op_check(dt, op) : RMP_ERR_ARG;
}

RMP_EXPORT int rmp_reduce_local(const void *in, void *inout, size_t count, rmp_datatype_t dt,
                                rmp_op_t op)
{
    if (rmp_op_check(dt, op) != RMP_SUCCESS || (count && (!in || !inout)))
        return RMP_ERR_ARG;
    coll_op_reduce3(inout, in, inout, count, dt, op);
    return RMP_SUCCESS;
}
