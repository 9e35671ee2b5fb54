/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduction kernels: one simple loop per (datatype, op), dispatched through a [dt][op]
 * table. The loops are left to the auto-vectoriser (this file is built with -O3); on x86-64
 * each is cloned for SSE2, AVX2 and AVX-512 and the best clone is picked at load time.
 * The 16-bit floats have a portable block path and, on AVX2 CPUs, fused intrinsic loops. */
#include "coll_op.h"

#include <assert.h>

#if defined(__x86_64__) && defined(COLL_HAVE_TARGET_CLONES)
#include <immintrin.h>
#define COLL_CLONES __attribute__((target_clones("default", "avx2", "avx512f")))
#define COLL_HAVE_AVX2 1
#else
#define COLL_CLONES
#endif

#ifdef __clang__
#define COLL_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#else
#define COLL_IVDEP _Pragma("GCC ivdep")
#endif

/* out[i] = a[i] OP b[i]; out may be exactly a or b. */
typedef void (*coll_kernel_t)(void *out, const void *a, const void *b, size_t n);

/* Not restrict: out may alias a or b. ivdep is still true, since every iteration reads and
 * writes only index i, so no dependence is carried between iterations; it spares gcc a
 * runtime overlap check that would send the exact-alias case to the scalar loop. */
#define COLL_KERNEL(name, T, EXPR)                                                       \
    COLL_CLONES static void name(void *out_, const void *a_, const void *b_, size_t n)   \
    {                                                                                    \
        T *out = out_;                                                                   \
        const T *a = a_, *b = b_;                                                        \
        COLL_IVDEP for (size_t i = 0; i < n; i++)                                       \
        {                                                                                \
            T x = a[i], y = b[i];                                                        \
            out[i] = (T)(EXPR);                                                          \
        }                                                                                \
    }

/* U: an unsigned type at least as wide as int, so SUM/PROD wrap instead of overflowing. */
#define COLL_INT_KERNELS(sfx, T, U)                          \
    COLL_KERNEL(sum_##sfx, T, (U)x + (U)y)                   \
    COLL_KERNEL(prod_##sfx, T, (U)x * (U)y)                  \
    COLL_KERNEL(min_##sfx, T, x < y ? x : y)                 \
    COLL_KERNEL(max_##sfx, T, x > y ? x : y)                 \
    COLL_KERNEL(band_##sfx, T, x & y)                        \
    COLL_KERNEL(bor_##sfx, T, x | y)                         \
    COLL_KERNEL(bxor_##sfx, T, x ^ y)                        \
    COLL_KERNEL(land_##sfx, T, (x != 0) & (y != 0))          \
    COLL_KERNEL(lor_##sfx, T, (x != 0) | (y != 0))

/* MIN/MAX: NaN in x is taken by the first test, NaN in y by the false branch (compare and
 * blend, which vectorises; fminf/fmaxf would drop NaNs and do not vectorise). */
#define COLL_FLOAT_KERNELS(sfx, T)                           \
    COLL_KERNEL(sum_##sfx, T, x + y)                         \
    COLL_KERNEL(prod_##sfx, T, x * y)                        \
    COLL_KERNEL(min_##sfx, T, (x < y || x != x) ? x : y)     \
    COLL_KERNEL(max_##sfx, T, (x > y || x != x) ? x : y)     \
    COLL_KERNEL(land_##sfx, T, (x != 0) & (y != 0))          \
    COLL_KERNEL(lor_##sfx, T, (x != 0) | (y != 0))

COLL_INT_KERNELS(i8, int8_t, uint32_t)
COLL_INT_KERNELS(u8, uint8_t, uint32_t)
COLL_INT_KERNELS(i16, int16_t, uint32_t)
COLL_INT_KERNELS(u16, uint16_t, uint32_t)
COLL_INT_KERNELS(i32, int32_t, uint32_t)
COLL_INT_KERNELS(u32, uint32_t, uint32_t)
COLL_INT_KERNELS(i64, int64_t, uint64_t)
COLL_INT_KERNELS(u64, uint64_t, uint64_t)
COLL_FLOAT_KERNELS(f32, float)
COLL_FLOAT_KERNELS(f64, double)

#define COLL_INT_ROW(sfx)                                                              \
    {                                                                                  \
        [RMP_SUM] = sum_##sfx, [RMP_PROD] = prod_##sfx, [RMP_MIN] = min_##sfx,         \
        [RMP_MAX] = max_##sfx, [RMP_BAND] = band_##sfx, [RMP_BOR] = bor_##sfx,         \
        [RMP_BXOR] = bxor_##sfx, [RMP_LAND] = land_##sfx, [RMP_LOR] = lor_##sfx,       \
    }
#define COLL_FLOAT_ROW(sfx)                                                            \
    {                                                                                  \
        [RMP_SUM] = sum_##sfx, [RMP_PROD] = prod_##sfx, [RMP_MIN] = min_##sfx,         \
        [RMP_MAX] = max_##sfx, [RMP_LAND] = land_##sfx, [RMP_LOR] = lor_##sfx,         \
    }

/* NULL marks an invalid pair. The 16-bit float rows are NULL too: they go through
 * coll_half_reduce, which reuses the float row. */
static const coll_kernel_t coll_kernels[RMP_DATATYPE_COUNT][RMP_OP_COUNT] = {
    [RMP_INT8] = COLL_INT_ROW(i8),     [RMP_UINT8] = COLL_INT_ROW(u8),
    [RMP_INT16] = COLL_INT_ROW(i16),   [RMP_UINT16] = COLL_INT_ROW(u16),
    [RMP_INT32] = COLL_INT_ROW(i32),   [RMP_UINT32] = COLL_INT_ROW(u32),
    [RMP_INT64] = COLL_INT_ROW(i64),   [RMP_UINT64] = COLL_INT_ROW(u64),
    [RMP_FLOAT] = COLL_FLOAT_ROW(f32), [RMP_DOUBLE] = COLL_FLOAT_ROW(f64),
};

/* coll_op_check (coll_op.h) tells the floating types by their place. */
_Static_assert(RMP_FLOAT16 + 4 == RMP_DATATYPE_COUNT && RMP_BFLOAT16 == RMP_FLOAT16 + 1 &&
                   RMP_FLOAT == RMP_FLOAT16 + 2 && RMP_DOUBLE == RMP_FLOAT16 + 3 &&
                   RMP_BOR == RMP_BAND + 1 && RMP_BXOR == RMP_BAND + 2,
               "the floating types are the last core types; the bitwise ops are adjacent");

/* ---- 16-bit floats: widen a block to float, run the float kernel, narrow it back. ----
 * The block stays in L1; for BFLOAT16 this is as fast as a fused loop (measured), and needs
 * no per-op code. */

COLL_CLONES static void coll_f16_widen(float *restrict dst, const uint16_t *restrict src,
                                       size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = coll_f16_to_f32(src[i]);
}

COLL_CLONES static void coll_f16_narrow(uint16_t *restrict dst, const float *restrict src,
                                        size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = coll_f32_to_f16(src[i]);
}

COLL_CLONES static void coll_bf16_widen(float *restrict dst, const uint16_t *restrict src,
                                        size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = coll_bf16_to_f32(src[i]);
}

COLL_CLONES static void coll_bf16_narrow(uint16_t *restrict dst, const float *restrict src,
                                         size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = coll_f32_to_bf16(src[i]);
}

#define COLL_HALF_BLOCK 1024

/* The portable path for both 16-bit formats. */
static void coll_half_reduce(uint16_t *out, const uint16_t *a, const uint16_t *b, size_t n,
                             rmp_datatype_t dt, rmp_op_t op)
{
    int f16 = dt == RMP_FLOAT16;
    coll_kernel_t kernel = coll_kernels[RMP_FLOAT][op];
    float fa[COLL_HALF_BLOCK], fb[COLL_HALF_BLOCK];

    /* A block of a and b is read before the same block of out is written: exact aliasing
     * of out with a or b is safe. */
    for (size_t i = 0; i < n; i += COLL_HALF_BLOCK) {
        size_t m = n - i < COLL_HALF_BLOCK ? n - i : COLL_HALF_BLOCK;
        if (f16) {
            coll_f16_widen(fa, a + i, m);
            coll_f16_widen(fb, b + i, m);
        } else {
            coll_bf16_widen(fa, a + i, m);
            coll_bf16_widen(fb, b + i, m);
        }
        kernel(fa, fa, fb, m);
        if (f16)
            coll_f16_narrow(out + i, fa, m);
        else
            coll_bf16_narrow(out + i, fa, m);
    }
}

#ifdef COLL_HAVE_AVX2
/* 16-bit floats on AVX2 CPUs (which all have F16C): widen, operate and narrow in registers,
 * 16 elements a step as two vectors of 8 floats; 3 times the speed of the block path. The
 * conversions give the bits of the C helpers (checked by the unit test), so the last
 * n % 16 elements go through the block path. */
#define COLL_AVX2 __attribute__((target("avx2,f16c")))

COLL_AVX2 static inline void coll_f16_load16(const uint16_t *p, __m256 *lo, __m256 *hi)
{
    *lo = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
    *hi = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 8)));
}

COLL_AVX2 static inline void coll_f16_store16(uint16_t *p, __m256 lo, __m256 hi)
{
#define COLL_RNE (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
    _mm_storeu_si128((__m128i *)p, _mm256_cvtps_ph(lo, COLL_RNE));
    _mm_storeu_si128((__m128i *)(p + 8), _mm256_cvtps_ph(hi, COLL_RNE));
}

/* bfloat16 is the top half of a float: lo gets the even elements (shifted up), hi the odd
 * ones (masked), so no lane shuffle is needed; store16 undoes the split. */
COLL_AVX2 static inline void coll_bf16_load16(const uint16_t *p, __m256 *lo, __m256 *hi)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)p);
    *lo = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
    *hi = _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32((int)0xffff0000u)));
}

/* coll_f32_to_bf16 on 8 lanes, leaving the result in the top half of each lane. */
COLL_AVX2 static inline __m256i coll_bf16_round8(__m256 v)
{
    __m256i x = _mm256_castps_si256(v);
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), odd);
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)),
                                     _mm256_set1_epi32(0x7f800000));
    __m256i quiet = _mm256_or_si256(x, _mm256_set1_epi32(0x00400000));
    return _mm256_blendv_epi8(r, quiet, nan);
}

COLL_AVX2 static inline void coll_bf16_store16(uint16_t *p, __m256 lo, __m256 hi)
{
    __m256i even = _mm256_srli_epi32(coll_bf16_round8(lo), 16);
    __m256i odd = _mm256_and_si256(coll_bf16_round8(hi), _mm256_set1_epi32((int)0xffff0000u));
    _mm256_storeu_si256((__m256i *)p, _mm256_or_si256(even, odd));
}

#define COLL_AVX2_KERNEL(name, fmt, dt, op, VEXPR)                                        \
    COLL_AVX2 static void name(void *out_, const void *a_, const void *b_, size_t n)      \
    {                                                                                     \
        uint16_t *out = out_;                                                             \
        const uint16_t *a = a_, *b = b_;                                                  \
        const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);              \
        size_t i = 0;                                                                     \
        for (; i + 16 <= n; i += 16) {                                                    \
            __m256 xl, xh, yl, yh, rl, rh;                                                \
            coll_##fmt##_load16(a + i, &xl, &xh);                                         \
            coll_##fmt##_load16(b + i, &yl, &yh);                                         \
            { __m256 x = xl, y = yl; rl = (VEXPR); }                                      \
            { __m256 x = xh, y = yh; rh = (VEXPR); }                                      \
            coll_##fmt##_store16(out + i, rl, rh);                                        \
        }                                                                                 \
        (void)zero, (void)one;                                                            \
        coll_half_reduce(out + i, a + i, b + i, n - i, dt, op);                           \
    }

/* The expressions of COLL_FLOAT_KERNELS; NEQ_UQ makes NaN != 0 true, as in C. */
#define COLL_CMP(x, y, pred) _mm256_cmp_ps(x, y, pred)
#define COLL_AVX2_KERNELS(fmt, dt)                                                        \
    COLL_AVX2_KERNEL(sum_##fmt, fmt, dt, RMP_SUM, _mm256_add_ps(x, y))                    \
    COLL_AVX2_KERNEL(prod_##fmt, fmt, dt, RMP_PROD, _mm256_mul_ps(x, y))                  \
    COLL_AVX2_KERNEL(min_##fmt, fmt, dt, RMP_MIN, _mm256_blendv_ps(y, x, _mm256_or_ps(    \
        COLL_CMP(x, y, _CMP_LT_OQ), COLL_CMP(x, x, _CMP_UNORD_Q))))                       \
    COLL_AVX2_KERNEL(max_##fmt, fmt, dt, RMP_MAX, _mm256_blendv_ps(y, x, _mm256_or_ps(    \
        COLL_CMP(x, y, _CMP_GT_OQ), COLL_CMP(x, x, _CMP_UNORD_Q))))                       \
    COLL_AVX2_KERNEL(land_##fmt, fmt, dt, RMP_LAND, _mm256_and_ps(one, _mm256_and_ps(     \
        COLL_CMP(x, zero, _CMP_NEQ_UQ), COLL_CMP(y, zero, _CMP_NEQ_UQ))))                 \
    COLL_AVX2_KERNEL(lor_##fmt, fmt, dt, RMP_LOR, _mm256_and_ps(one, _mm256_or_ps(        \
        COLL_CMP(x, zero, _CMP_NEQ_UQ), COLL_CMP(y, zero, _CMP_NEQ_UQ))))

COLL_AVX2_KERNELS(f16, RMP_FLOAT16)
COLL_AVX2_KERNELS(bf16, RMP_BFLOAT16)

static const coll_kernel_t coll_avx2_kernels[2][RMP_OP_COUNT] = {
    COLL_FLOAT_ROW(f16),
    COLL_FLOAT_ROW(bf16),
};
#endif

void coll_op_reduce3(void *out, const void *a, const void *b, size_t count,
                     rmp_datatype_t dt, rmp_op_t op)
{
    assert(coll_op_check(dt, op) == RMP_SUCCESS);
    if (__builtin_expect(coll_op_check(dt, op) != RMP_SUCCESS, 0) || count == 0)
        return;
    if ((unsigned)dt >= RMP_DATATYPE_COUNT || (unsigned)op >= RMP_OP_COUNT) {
        if (!coll_op_user_reduce3(out, a, b, count, dt, op))
            coll_op_ext_reduce3(out, a, b, count, dt, op);
    }
    else if (dt != RMP_FLOAT16 && dt != RMP_BFLOAT16)
        coll_kernels[dt][op](out, a, b, count);
#ifdef COLL_HAVE_AVX2
    else if (__builtin_cpu_supports("avx2"))
        coll_avx2_kernels[dt == RMP_BFLOAT16][op](out, a, b, count);
#endif
    else
        coll_half_reduce(out, a, b, count, dt, op);
}

void coll_op_reduce(void *inout, const void *in, size_t count, rmp_datatype_t dt,
                    rmp_op_t op)
{
    coll_op_reduce3(inout, inout, in, count, dt, op);
}
