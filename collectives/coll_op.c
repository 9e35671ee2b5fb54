/* Reduction kernels: one simple loop per (datatype, op), dispatched through a [dt][op]
 * table. The loops are left to the auto-vectoriser (this file is built with -O3); on x86-64
 * each is cloned for SSE2, AVX2 and AVX-512 and the best clone is picked at load time. */
#include "collectives/coll_op.h"

#include <assert.h>

#if defined(__x86_64__) && defined(COLL_HAVE_TARGET_CLONES)
#include <immintrin.h>
#define COLL_CLONES __attribute__((target_clones("default", "avx2", "avx512f")))
#define COLL_HAVE_F16C 1
#else
#define COLL_CLONES
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
        _Pragma("GCC ivdep") for (size_t i = 0; i < n; i++)                              \
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

static int coll_dt_is_float(rmp_datatype_t dt)
{
    return dt == RMP_FLOAT16 || dt == RMP_BFLOAT16 || dt == RMP_FLOAT || dt == RMP_DOUBLE;
}

int coll_op_check(rmp_datatype_t dt, rmp_op_t op)
{
    /* Through unsigned so that negative values of the enums are rejected too. */
    if ((unsigned)dt >= RMP_DATATYPE_COUNT || (unsigned)op >= RMP_OP_COUNT)
        return RMP_ERR_ARG;
    if (coll_dt_is_float(dt) && (op == RMP_BAND || op == RMP_BOR || op == RMP_BXOR))
        return RMP_ERR_ARG;
    return RMP_SUCCESS;
}

/* ---- 16-bit floats: widen a block to float, run the float kernel, narrow it back. ----
 * The block stays in L1, so this costs little over a fused loop and needs no per-op code. */

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

#ifdef COLL_HAVE_F16C
/* The F16C instructions give the same bits as the C helpers (checked by the unit test), so
 * the tail can use the helpers. */
__attribute__((target("avx,f16c"))) static void
coll_f16_widen_f16c(float *restrict dst, const uint16_t *restrict src, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
    for (; i < n; i++)
        dst[i] = coll_f16_to_f32(src[i]);
}

__attribute__((target("avx,f16c"))) static void
coll_f16_narrow_f16c(uint16_t *restrict dst, const float *restrict src, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < n; i++)
        dst[i] = coll_f32_to_f16(src[i]);
}
#endif

#define COLL_HALF_BLOCK 1024

static void coll_half_reduce(uint16_t *out, const uint16_t *a, const uint16_t *b, size_t n,
                             rmp_datatype_t dt, rmp_op_t op)
{
    void (*widen)(float *restrict, const uint16_t *restrict, size_t) = coll_bf16_widen;
    void (*narrow)(uint16_t *restrict, const float *restrict, size_t) = coll_bf16_narrow;
    coll_kernel_t kernel = coll_kernels[RMP_FLOAT][op];
    float fa[COLL_HALF_BLOCK], fb[COLL_HALF_BLOCK];

    if (dt == RMP_FLOAT16) {
        widen = coll_f16_widen;
        narrow = coll_f16_narrow;
#ifdef COLL_HAVE_F16C
        if (__builtin_cpu_supports("f16c")) {
            widen = coll_f16_widen_f16c;
            narrow = coll_f16_narrow_f16c;
        }
#endif
    }
    /* A block of a and b is read before the same block of out is written: exact aliasing
     * of out with a or b is safe. */
    for (size_t i = 0; i < n; i += COLL_HALF_BLOCK) {
        size_t m = n - i < COLL_HALF_BLOCK ? n - i : COLL_HALF_BLOCK;
        widen(fa, a + i, m);
        widen(fb, b + i, m);
        kernel(fa, fa, fb, m);
        narrow(out + i, fa, m);
    }
}

void coll_op_reduce3(void *out, const void *a, const void *b, size_t count,
                     rmp_datatype_t dt, rmp_op_t op)
{
    assert(coll_op_check(dt, op) == RMP_SUCCESS);
    if (coll_op_check(dt, op) != RMP_SUCCESS || count == 0)
        return;
    if (dt == RMP_FLOAT16 || dt == RMP_BFLOAT16)
        coll_half_reduce(out, a, b, count, dt, op);
    else
        coll_kernels[dt][op](out, a, b, count);
}

void coll_op_reduce(void *inout, const void *in, size_t count, rmp_datatype_t dt,
                    rmp_op_t op)
{
    coll_op_reduce3(inout, inout, in, count, dt, op);
}
