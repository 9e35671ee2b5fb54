/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduction kernels used by every reducing collective (internal).
 *
 * Contract shared by every function below:
 * - Buffers hold `count` elements of `dt`, aligned to the element size. They may not
 *   overlap partially; the only overlap allowed is the exact aliasing documented per function.
 * - `dt`/`op` must have passed coll_op_check(); an invalid pair is a bug in the caller
 *   (asserted; with NDEBUG the call does nothing).
 * - Integer SUM and PROD wrap modulo 2^bits (signed types too: computed in unsigned, no UB).
 * - Floating MIN/MAX propagate NaN: if either operand is NaN the result is NaN (which
 *   payload is unspecified). MIN(-0, +0) and MAX(-0, +0) return the second operand (`in`/`b`).
 * - LAND/LOR are accepted on integers and on floating types (MPI accepts them only on
 *   integers): nonzero, including NaN, is true; the result is 1 or 0 (1.0 or 0.0).
 * - BAND/BOR/BXOR are accepted on integer types only.
 * - FLOAT16 (IEEE binary16) and BFLOAT16 are stored as uint16_t. Each step converts both
 *   operands to float, computes in float and rounds once to the 16-bit type with
 *   round-to-nearest-even. Since float has more than 2p+2 bits of the 16-bit formats'
 *   precision p, SUM and PROD results are the correctly rounded 16-bit results.
 * - All ops are commutative, but float SUM/PROD are not associative: callers must combine
 *   partial results in the same order on every rank to get bitwise-identical results.
 * - Results are bitwise identical whichever instruction set (SSE2, AVX2, AVX-512, F16C or
 *   the portable C path) the kernel runs on, except NaN payloads. They assume the default
 *   floating-point environment (round to nearest, no FTZ/DAZ) for float/double arithmetic.
 */
#ifndef COLL_OP_H
#define COLL_OP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rmp.h"

/* The MINLOC/MAXLOC pair types of rmp.h ({value; int index}) as C structs. */
typedef struct { float v; int i; } coll_float_int_t;
typedef struct { double v; int i; } coll_double_int_t;
typedef struct { long v; int i; } coll_long_int_t;
typedef struct { int v; int i; } coll_2int_t;
typedef struct { short v; int i; } coll_short_int_t;
typedef struct { long double v; int i; } coll_long_double_int_t;

/* Extended types and ops (coll_op_ext.c): what coll_op_check and coll_op_reduce3 hand
 * over for a (dt, op) outside the core table. */
int coll_op_ext_check(rmp_datatype_t dt, rmp_op_t op);
void coll_op_ext_reduce3(void *out, const void *a, const void *b, size_t count,
                         rmp_datatype_t dt, rmp_op_t op);
/* Element size of an extended or opaque type, 0 when dt is neither. */
size_t coll_ext_size(rmp_datatype_t dt);
/* User ops (coll_op_user.c). 0 for a non-commutative user op, else 1. */
int coll_op_commutative(rmp_op_t op);
/* Is op a user op not freed? */
int coll_op_user_live(rmp_op_t op);
/* out = a op b for a user op: 1, or 0 (nothing done) when op is not one. */
int coll_op_user_reduce3(void *out, const void *a, const void *b, size_t count,
                         rmp_datatype_t dt, rmp_op_t op);

/* Element sizes of the core types (coll_dtype.c). */
extern const unsigned char coll_dt_sizes[RMP_DATATYPE_COUNT];
/* rmp_datatype_size, inline (every collective call asks). */
static inline size_t coll_dt_size(rmp_datatype_t dt)
{
    /* Through unsigned so that a negative value is rejected too. */
    return (unsigned)dt < RMP_DATATYPE_COUNT ? coll_dt_sizes[dt] : coll_ext_size(dt);
}

/* RMP_SUCCESS if op can reduce dt; RMP_ERR_ARG for an unknown dt or op (out-of-range enum)
 * or a bitwise op (BAND, BOR, BXOR) on a floating type (the core floating types are the
 * last four, from RMP_FLOAT16 on: coll_op.c asserts it). */
static inline int coll_op_check(rmp_datatype_t dt, rmp_op_t op)
{
    if ((unsigned)dt >= RMP_DATATYPE_COUNT || (unsigned)op >= RMP_OP_COUNT)
        return (int)dt >= 0 && (int)op >= 0 ? coll_op_ext_check(dt, op) : RMP_ERR_ARG;
    return dt < RMP_FLOAT16 || op < RMP_BAND || op > RMP_BXOR ? RMP_SUCCESS : RMP_ERR_ARG;
}

/* inout[i] = inout[i] OP in[i] for i < count: inout is the left operand. inout and in must
 * not overlap. count may be 0 (pointers are then not accessed). */
void coll_op_reduce(void *inout, const void *in, size_t count, rmp_datatype_t dt,
                    rmp_op_t op);

/* out[i] = a[i] OP b[i]: a is the left operand. out may be exactly a or exactly b; a and b
 * may be the same buffer. Saves the copy a two-operand reduction would need. */
void coll_op_reduce3(void *out, const void *a, const void *b, size_t count,
                     rmp_datatype_t dt, rmp_op_t op);

/* ---- Scalar 16-bit float conversions (branch-free, so loops over them vectorise). ----
 * They give exactly the results of the x86 F16C instructions (VCVTPH2PS, VCVTPS2PH with
 * round-to-nearest-even) for every input, and do not depend on the floating-point
 * environment (rounding mode, FTZ/DAZ). A signalling NaN is quietened (quiet bit set,
 * rest of the payload kept, truncated to the narrower format). */

static inline uint32_t coll_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float coll_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/* binary16 -> float, exact. */
static inline float coll_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t u = (uint32_t)(h & 0x7fffu) << 13; /* exponent and mantissa, float-aligned */
    uint32_t e = u & 0x0f800000u;
    uint32_t normal = u + ((127u - 15u) << 23);
    uint32_t infnan = u + ((255u - 31u) << 23);
    /* Subnormal: place the mantissa under exponent 2^-14, then subtract 2^-14 (exact). */
    uint32_t sub = coll_f32_bits(coll_bits_f32(u + (113u << 23)) - coll_bits_f32(113u << 23));
    uint32_t r = e == 0 ? sub : normal;
    r = e == 0x0f800000u ? (u > 0x0f800000u ? infnan | 0x00400000u : infnan) : r;
    return coll_bits_f32(r | sign);
}

/* float -> binary16, round to nearest even; overflow gives +-Inf. Integer-only. */
static inline uint16_t coll_f32_to_f16(float f)
{
    uint32_t x = coll_f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t a = x & 0x7fffffffu;
    /* Normal result: rebias the exponent, add the rounding bias (half ulp - 1 + odd bit);
     * a carry out of the mantissa bumps the exponent, up to Inf. */
    uint32_t normal = (a - ((127u - 15u) << 23) + 0xfffu + ((a >> 13) & 1u)) >> 13;
    /* Subnormal or zero result: shift the 24-bit significand right and round by hand. */
    uint32_t e = a >> 23;
    uint32_t s = e >= 96u && e < 113u ? 126u - e : 31u; /* 14..30; 31 gives 0 */
    uint32_t m = (a & 0x007fffffu) | 0x00800000u;
    uint32_t q = m >> s;
    uint32_t rem = m & ((1u << s) - 1u);
    uint32_t halfway = 1u << (s - 1u);
    uint32_t sub = q + (rem > halfway || (rem == halfway && (q & 1u)));
    uint32_t r = a < (113u << 23) ? sub : normal;
    r = a >= (143u << 23) ? 0x7c00u : r; /* >= 65536: Inf (65520..65536 round up above) */
    r = a > 0x7f800000u ? 0x7e00u | ((a >> 13) & 0x3ffu) : r; /* NaN: quiet, keep top payload */
    return (uint16_t)(r | sign);
}

/* bfloat16 -> float, exact (a NaN is kept as is). */
static inline float coll_bf16_to_f32(uint16_t h)
{
    return coll_bits_f32((uint32_t)h << 16);
}

/* float -> bfloat16, round to nearest even; subnormals kept (no flush to zero). */
static inline uint16_t coll_f32_to_bf16(float f)
{
    uint32_t x = coll_f32_bits(f);
    uint32_t r = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    r = (x & 0x7fffffffu) > 0x7f800000u ? (x >> 16) | 0x0040u : r;
    return (uint16_t)r;
}

#endif /* COLL_OP_H */
