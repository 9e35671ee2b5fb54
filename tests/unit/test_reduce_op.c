/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduction kernels: every (datatype, op) against a scalar reference, 16-bit float
 * conversions exhaustively and against known values. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll_op.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define NDT RMP_DATATYPE_COUNT
#define NOP RMP_OP_COUNT

static const char *dt_name[NDT] = {"int8",   "uint8",   "int16",  "uint16",
                                   "int32",  "uint32",  "int64",  "uint64",
                                   "float16", "bfloat16", "float", "double"};
static const char *op_name[NOP] = {"sum", "prod", "min", "max", "band",
                                   "bor", "bxor", "land", "lor"};

static int is_float(rmp_datatype_t dt)
{
    return dt >= RMP_FLOAT16;
}

static int is_signed(rmp_datatype_t dt)
{
    return dt == RMP_INT8 || dt == RMP_INT16 || dt == RMP_INT32 || dt == RMP_INT64;
}

static int is_bitwise(rmp_op_t op)
{
    return op == RMP_BAND || op == RMP_BOR || op == RMP_BXOR;
}

/* xorshift64*: the same sequence on every platform. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* ---- Scalar reference ---- */

static uint64_t load_u(rmp_datatype_t dt, const void *p)
{
    switch (rmp_datatype_size(dt)) {
    case 1: return *(const uint8_t *)p;
    case 2: return *(const uint16_t *)p;
    case 4: return *(const uint32_t *)p;
    default: return *(const uint64_t *)p;
    }
}

static int64_t load_s(rmp_datatype_t dt, const void *p)
{
    switch (rmp_datatype_size(dt)) {
    case 1: return *(const int8_t *)p;
    case 2: return *(const int16_t *)p;
    case 4: return *(const int32_t *)p;
    default: return *(const int64_t *)p;
    }
}

static void store_u(rmp_datatype_t dt, void *p, uint64_t v)
{
    switch (rmp_datatype_size(dt)) {
    case 1: *(uint8_t *)p = (uint8_t)v; break;
    case 2: *(uint16_t *)p = (uint16_t)v; break;
    case 4: *(uint32_t *)p = (uint32_t)v; break;
    default: *(uint64_t *)p = v; break;
    }
}

/* Integers: arithmetic modulo 2^64 on the zero- or sign-extended values, then truncated. */
static uint64_t ref_int(rmp_datatype_t dt, rmp_op_t op, const void *pa, const void *pb)
{
    uint64_t a = load_u(dt, pa), b = load_u(dt, pb);
    int64_t sa = load_s(dt, pa), sb = load_s(dt, pb);
    int lt = is_signed(dt) ? sa < sb : a < b;

    switch (op) {
    case RMP_SUM: return a + b;
    case RMP_PROD: return a * b;
    case RMP_MIN: return lt ? a : b;
    case RMP_MAX: return lt ? b : a;
    case RMP_BAND: return a & b;
    case RMP_BOR: return a | b;
    case RMP_BXOR: return a ^ b;
    case RMP_LAND: return a != 0 && b != 0;
    case RMP_LOR: return a != 0 || b != 0;
    default: fail(); return 0;
    }
}

/* Floats: MIN/MAX propagate NaN, return the second operand on equality (-0 vs +0). */
static double ref_real(rmp_op_t op, double x, double y)
{
    switch (op) {
    case RMP_SUM: return x + y;
    case RMP_PROD: return x * y;
    case RMP_MIN: return isnan(x) || isnan(y) ? NAN : x < y ? x : y;
    case RMP_MAX: return isnan(x) || isnan(y) ? NAN : x > y ? x : y;
    case RMP_LAND: return x != 0 && y != 0;
    case RMP_LOR: return x != 0 || y != 0;
    default: fail(); return 0;
    }
}

/* float ops are done in float: SUM and PROD are computed in double, which is exact for them
 * only for the 16-bit types; so compute the float case in float. */
static float ref_real_f(rmp_op_t op, float x, float y)
{
    switch (op) {
    case RMP_SUM: return x + y;
    case RMP_PROD: return x * y;
    default: return (float)ref_real(op, x, y);
    }
}

static void ref_elem(rmp_datatype_t dt, rmp_op_t op, const void *a, const void *b, void *out)
{
    const uint16_t *ha = a, *hb = b;

    switch (dt) {
    case RMP_FLOAT16:
        *(uint16_t *)out = coll_f32_to_f16(
            ref_real_f(op, coll_f16_to_f32(*ha), coll_f16_to_f32(*hb)));
        break;
    case RMP_BFLOAT16:
        *(uint16_t *)out = coll_f32_to_bf16(
            ref_real_f(op, coll_bf16_to_f32(*ha), coll_bf16_to_f32(*hb)));
        break;
    case RMP_FLOAT:
        *(float *)out = ref_real_f(op, *(const float *)a, *(const float *)b);
        break;
    case RMP_DOUBLE:
        *(double *)out = ref_real(op, *(const double *)a, *(const double *)b);
        break;
    default:
        store_u(dt, out, ref_int(dt, op, a, b));
        break;
    }
}

/* Equal bits, or both NaN (NaN payloads are unspecified). */
static int same_elem(rmp_datatype_t dt, const void *x, const void *y)
{
    size_t sz = rmp_datatype_size(dt);

    if (memcmp(x, y, sz) == 0)
        return 1;
    switch (dt) {
    case RMP_FLOAT16:
        return isnan(coll_f16_to_f32(*(const uint16_t *)x)) &&
               isnan(coll_f16_to_f32(*(const uint16_t *)y));
    case RMP_BFLOAT16:
        return isnan(coll_bf16_to_f32(*(const uint16_t *)x)) &&
               isnan(coll_bf16_to_f32(*(const uint16_t *)y));
    case RMP_FLOAT: return isnan(*(const float *)x) && isnan(*(const float *)y);
    case RMP_DOUBLE: return isnan(*(const double *)x) && isnan(*(const double *)y);
    default: return 0;
    }
}

/* ---- Random inputs ---- */

static double special_value(void)
{
    static const double v[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 3.0};
    return v[rng() % (sizeof(v) / sizeof(v[0]))];
}

static double random_real(int exp_range)
{
    double m = (double)(rng() >> 11) / 9007199254740992.0; /* [0, 1) */
    int e = (int)(rng() % (uint64_t)(2 * exp_range + 1)) - exp_range;
    return (rng() & 1 ? -1 : 1) * ldexp(1.0 + m, e);
}

static void fill_random(rmp_datatype_t dt, void *buf, size_t n)
{
    size_t sz = rmp_datatype_size(dt);

    for (size_t i = 0; i < n; i++) {
        char *p = (char *)buf + i * sz;
        uint64_t r = rng();

        if (r % 8 == 0) { /* zeros and specials for the logical ops and NaN handling */
            if (dt == RMP_FLOAT)
                *(float *)p = (float)special_value();
            else if (dt == RMP_DOUBLE)
                *(double *)p = special_value();
            else
                memset(p, 0, sz);
        } else if (dt == RMP_FLOAT) {
            float f = (float)random_real(r % 4 == 1 ? 140 : 20);
            memcpy(p, &f, sizeof(f));
            if (r % 64 == 3) /* float subnormals */
                *(float *)p = (float)ldexp(random_real(0), -140);
        } else if (dt == RMP_DOUBLE) {
            *(double *)p = random_real(r % 4 == 1 ? 1030 : 20);
        } else { /* integers, and 16-bit floats: every bit pattern */
            uint64_t v = rng();
            memcpy(p, &v, sz);
        }
    }
}

/* ---- Tests ---- */

static void test_datatype_size(void **state)
{
    (void)state;
    static const size_t want[NDT] = {1, 1, 2, 2, 4, 4, 8, 8, 2, 2, 4, 8};
    for (int dt = 0; dt < NDT; dt++)
        assert_int_equal(rmp_datatype_size((rmp_datatype_t)dt), want[dt]);
    assert_int_equal(rmp_datatype_size(RMP_DATATYPE_COUNT), 0);
    assert_int_equal(rmp_datatype_size((rmp_datatype_t)-1), 0);
    assert_int_equal(rmp_datatype_size((rmp_datatype_t)1000), 0);
}

static void test_op_check(void **state)
{
    (void)state;
    for (int dt = 0; dt < NDT; dt++) {
        for (int op = 0; op < NOP; op++) {
            int want = is_float((rmp_datatype_t)dt) && is_bitwise((rmp_op_t)op)
                           ? RMP_ERR_ARG
                           : RMP_SUCCESS;
            assert_int_equal(coll_op_check((rmp_datatype_t)dt, (rmp_op_t)op), want);
        }
        assert_int_equal(coll_op_check((rmp_datatype_t)dt, RMP_OP_COUNT), RMP_ERR_ARG);
        assert_int_equal(coll_op_check((rmp_datatype_t)dt, (rmp_op_t)-1), RMP_ERR_ARG);
    }
    assert_int_equal(coll_op_check(RMP_DATATYPE_COUNT, RMP_SUM), RMP_ERR_ARG);
    assert_int_equal(coll_op_check((rmp_datatype_t)-1, RMP_SUM), RMP_ERR_ARG);
    assert_int_equal(coll_op_check((rmp_datatype_t)INT32_MAX, RMP_MAX), RMP_ERR_ARG);
}

enum { MODE_REDUCE, MODE_REDUCE_UNALIGNED, MODE_REDUCE3, MODE_ALIAS_A, MODE_ALIAS_B,
       MODE_COUNT };
static const char *mode_name[MODE_COUNT] = {"reduce", "reduce+1", "reduce3", "out==a",
                                            "out==b"};

/* Compares n elements and the canary element after them (nothing written past the end). */
static void check_result(rmp_datatype_t dt, rmp_op_t op, size_t n, int mode,
                         const char *got, const char *want, const char *canary)
{
    size_t sz = rmp_datatype_size(dt);

    for (size_t i = 0; i < n; i++) {
        if (!same_elem(dt, got + i * sz, want + i * sz)) {
            uint64_t g = 0, w = 0;
            memcpy(&g, got + i * sz, sz);
            memcpy(&w, want + i * sz, sz);
            fail_msg("%s %s count %zu %s: element %zu is 0x%llx, want 0x%llx", dt_name[dt],
                     op_name[op], n, mode_name[mode], i, (unsigned long long)g,
                     (unsigned long long)w);
        }
    }
    if (memcmp(got + n * sz, canary, sz) != 0)
        fail_msg("%s %s count %zu %s: wrote past the end", dt_name[dt], op_name[op], n,
                 mode_name[mode]);
}

/* dst[0, n) = src, then the canary element. */
static char *place(char *dst, const char *src, size_t nb, size_t sz, const char *canary)
{
    memcpy(dst, src, nb);
    memcpy(dst + nb, canary, sz);
    return dst;
}

static void test_reduce_all(void **state)
{
    (void)state;
    static const size_t counts[] = {0, 1, 7, 1023, (1u << 20) + 3};
    const size_t max_n = (1u << 20) + 3, max_bytes = (max_n + 2) * 8;
    char *a = malloc(max_bytes), *b = malloc(max_bytes), *want = malloc(max_bytes);
    char *x = malloc(max_bytes), *y = malloc(max_bytes), *z = malloc(max_bytes);
    const char canary[8] = {0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a};

    assert_true(a && b && want && x && y && z);
    for (int d = 0; d < NDT; d++) {
        rmp_datatype_t dt = (rmp_datatype_t)d;
        size_t sz = rmp_datatype_size(dt);

        fill_random(dt, a, max_n);
        fill_random(dt, b, max_n);
        for (int o = 0; o < NOP; o++) {
            rmp_op_t op = (rmp_op_t)o;
            if (coll_op_check(dt, op) != RMP_SUCCESS)
                continue;
            for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
                size_t n = counts[ci], nb = n * sz;

                for (size_t i = 0; i < n; i++)
                    ref_elem(dt, op, a + i * sz, b + i * sz, want + i * sz);
                for (int mode = 0; mode < MODE_COUNT; mode++) {
                    char *out, *xa, *yb;

                    if (mode == MODE_REDUCE_UNALIGNED) { /* one element off */
                        xa = place(x + sz, a, nb, sz, canary);
                        yb = place(y + sz, b, nb, sz, canary);
                    } else {
                        xa = place(x, a, nb, sz, canary);
                        yb = place(y, b, nb, sz, canary);
                    }
                    switch (mode) {
                    case MODE_REDUCE:
                    case MODE_REDUCE_UNALIGNED:
                        coll_op_reduce(xa, yb, n, dt, op);
                        out = xa;
                        break;
                    case MODE_REDUCE3: /* separate out, one element off */
                        out = z + sz;
                        memcpy(out + nb, canary, sz);
                        coll_op_reduce3(out, xa, yb, n, dt, op);
                        break;
                    case MODE_ALIAS_A:
                        coll_op_reduce3(xa, xa, yb, n, dt, op);
                        out = xa;
                        break;
                    default: /* MODE_ALIAS_B */
                        coll_op_reduce3(yb, xa, yb, n, dt, op);
                        out = yb;
                        break;
                    }
                    check_result(dt, op, n, mode, out, want, canary);
                }
            }
        }
    }
    free(a);
    free(b);
    free(want);
    free(x);
    free(y);
    free(z);
}

static void test_zero_count_null(void **state)
{
    (void)state;
    for (int dt = 0; dt < NDT; dt++) {
        coll_op_reduce(NULL, NULL, 0, (rmp_datatype_t)dt, RMP_SUM);
        coll_op_reduce3(NULL, NULL, NULL, 0, (rmp_datatype_t)dt, RMP_MAX);
    }
}

/* out == a == b: x OP x. */
static void test_alias_all(void **state)
{
    (void)state;
    int32_t v[5] = {1, -2, 3, INT32_MAX, 0};
    double d[3] = {0.5, -1.5, 2.0};

    coll_op_reduce3(v, v, v, 5, RMP_INT32, RMP_SUM);
    assert_int_equal(v[0], 2);
    assert_int_equal(v[1], -4);
    assert_int_equal(v[3], -2); /* wraps */
    coll_op_reduce3(d, d, d, 3, RMP_DOUBLE, RMP_PROD);
    assert_true(d[0] == 0.25 && d[1] == 2.25 && d[2] == 4.0);
}

static void test_integer_wrap(void **state)
{
    (void)state;
    uint8_t u8a[2] = {250, 16}, u8b[2] = {10, 16};
    int8_t i8a[2] = {127, -128}, i8b[2] = {1, -1};
    uint16_t u16a[1] = {65535}, u16b[1] = {65535};
    uint32_t u32a[1] = {UINT32_MAX}, u32b[1] = {2};
    int32_t i32a[1] = {INT32_MIN}, i32b[1] = {-1};
    int64_t i64a[1] = {INT64_MAX}, i64b[1] = {1};
    uint64_t u64a[1] = {UINT64_MAX}, u64b[1] = {UINT64_MAX};

    coll_op_reduce(u8a, u8b, 2, RMP_UINT8, RMP_SUM);
    assert_int_equal(u8a[0], 4);
    coll_op_reduce(u8a + 1, u8b + 1, 1, RMP_UINT8, RMP_PROD);
    assert_int_equal(u8a[1], 0);
    coll_op_reduce(i8a, i8b, 2, RMP_INT8, RMP_SUM);
    assert_int_equal(i8a[0], -128);
    assert_int_equal(i8a[1], 127);
    coll_op_reduce(u16a, u16b, 1, RMP_UINT16, RMP_PROD); /* 65535^2 overflows int */
    assert_int_equal(u16a[0], 1);
    coll_op_reduce(u32a, u32b, 1, RMP_UINT32, RMP_SUM);
    assert_int_equal(u32a[0], 1);
    coll_op_reduce(i32a, i32b, 1, RMP_INT32, RMP_PROD);
    assert_int_equal(i32a[0], INT32_MIN);
    coll_op_reduce(i64a, i64b, 1, RMP_INT64, RMP_SUM);
    assert_true(i64a[0] == INT64_MIN);
    coll_op_reduce(u64a, u64b, 1, RMP_UINT64, RMP_PROD);
    assert_true(u64a[0] == 1);
}

static void test_float_semantics(void **state)
{
    (void)state;
    float f[6] = {NAN, 1.0f, -0.0f, 0.0f, NAN, 2.0f};
    float g[6] = {1.0f, NAN, 0.0f, -0.0f, 0.0f, 0.0f};
    double d[2] = {NAN, -3.0}, e[2] = {-INFINITY, NAN};
    uint16_t h[4] = {0x7e00, 0x0000, 0x3c00, 0x7c00}; /* NaN, 0, 1, Inf */
    uint16_t k[4] = {0x3c00, 0x0000, 0x1000, 0x3c00};

    coll_op_reduce(f, g, 4, RMP_FLOAT, RMP_MIN);
    assert_true(isnan(f[0]) && isnan(f[1]));
    assert_true(f[2] == 0.0f && !signbit(f[2])); /* equal: second operand */
    assert_true(f[3] == 0.0f && signbit(f[3]));
    coll_op_reduce(f + 4, g + 4, 2, RMP_FLOAT, RMP_LAND); /* NaN is true */
    assert_true(f[4] == 0.0f && f[5] == 0.0f);
    f[4] = NAN;
    g[4] = 2.0f;
    coll_op_reduce(f + 4, g + 4, 1, RMP_FLOAT, RMP_LAND);
    assert_true(f[4] == 1.0f);
    coll_op_reduce(d, e, 2, RMP_DOUBLE, RMP_MAX);
    assert_true(isnan(d[0]) && isnan(d[1]));
    coll_op_reduce(h, k, 4, RMP_FLOAT16, RMP_LOR);
    assert_int_equal(h[0], 0x3c00); /* NaN || 1 */
    assert_int_equal(h[1], 0x0000);
    assert_int_equal(h[2], 0x3c00);
    assert_int_equal(h[3], 0x3c00);
}

/* Per-step rounding of the 16-bit formats, ties to even. */
static void test_half_arith(void **state)
{
    (void)state;
    /* 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even is 1. */
    uint16_t a[4] = {0x3c00, 0x3c01, 0x7bff, 0x0001};
    uint16_t b[4] = {0x1000, 0x1000, 0x7bff, 0x8001}; /* 2^-11, 2^-11, 65504, -2^-24 */
    uint16_t ba[3] = {0x3f80, 0x3f81, 0x7f7f};
    uint16_t bb[3] = {0x3b80, 0x3b80, 0x7f7f}; /* 2^-8, 2^-8, max */

    coll_op_reduce(a, b, 4, RMP_FLOAT16, RMP_SUM);
    assert_int_equal(a[0], 0x3c00);
    assert_int_equal(a[1], 0x3c02); /* 1+2^-10 + 2^-11: tie, up to even */
    assert_int_equal(a[2], 0x7c00); /* overflow: Inf */
    assert_int_equal(a[3], 0x0000); /* x + -x is +0 */
    coll_op_reduce(ba, bb, 3, RMP_BFLOAT16, RMP_SUM);
    assert_int_equal(ba[0], 0x3f80);
    assert_int_equal(ba[1], 0x3f82);
    assert_int_equal(ba[2], 0x7f80);
}

static float f16_decode(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (float)(h & 0x8000 ? -v : v);
}

static void test_f16_exhaustive(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = coll_f16_to_f32((uint16_t)h);
        uint16_t back = coll_f32_to_f16(f);
        float want = f16_decode((uint16_t)h);

        if (isnan(want)) {
            assert_true(isnan(f));
            assert_int_equal(signbit(f) != 0, (h & 0x8000) != 0);
            assert_int_equal(back, h | 0x0200); /* quietened, payload kept */
        } else {
            assert_true(coll_f32_bits(f) == coll_f32_bits(want));
            assert_int_equal(back, h);
        }
    }
}

static void test_bf16_exhaustive(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = coll_bf16_to_f32((uint16_t)h);
        uint16_t back = coll_f32_to_bf16(f);

        assert_true(coll_f32_bits(f) == h << 16);
        if (isnan(f))
            assert_int_equal(back, h | 0x0040);
        else
            assert_int_equal(back, h);
    }
}

static void test_f16_known(void **state)
{
    (void)state;
    struct {
        float f;
        uint16_t h;
    } v[] = {
        {1.0f, 0x3c00},
        {-2.0f, 0xc000},
        {0.0f, 0x0000},
        {-0.0f, 0x8000},
        {65504.0f, 0x7bff},
        {65519.99f, 0x7bff},
        {65520.0f, 0x7c00}, /* tie between max and 2^16: even is Inf */
        {1e10f, 0x7c00},
        {-1e10f, 0xfc00},
        {INFINITY, 0x7c00},
        {-INFINITY, 0xfc00},
        {0x1p-24f, 0x0001},  /* smallest subnormal */
        {0x1p-25f, 0x0000},  /* tie between 0 and 2^-24: even is 0 */
        {0x1.000002p-25f, 0x0001},
        {0x3p-25f, 0x0002},  /* tie between 1 and 2 ulps: even is 2 */
        {0x1p-14f, 0x0400},  /* smallest normal */
        {0x1.ff8p-15f, 0x03ff}, /* largest subnormal */
        {0x1.ffep-15f, 0x0400}, /* rounds up into the normals */
        {0x1.002p0f, 0x3c00},   /* 1 + 2^-11: tie, even is 1 */
        {0x1.006p0f, 0x3c02},   /* 1 + 3*2^-11: tie, even is 1 + 2^-9 */
        {0x1.002002p0f, 0x3c01},
        {0.1f, 0x2e66},
        {FLT_TRUE_MIN, 0x0000},
        {-FLT_TRUE_MIN, 0x8000},
    };

    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        if (coll_f32_to_f16(v[i].f) != v[i].h)
            fail_msg("f32 %a -> f16 0x%04x, want 0x%04x", (double)v[i].f,
                     coll_f32_to_f16(v[i].f), v[i].h);
    }
    assert_true(coll_f16_to_f32(0x0001) == 0x1p-24f);
    assert_true(coll_f16_to_f32(0x7bff) == 65504.0f);
    assert_true(coll_f16_to_f32(0x7c00) == INFINITY);
    assert_true(coll_f16_to_f32(0xfc00) == -INFINITY);
    assert_true(isnan(coll_f16_to_f32(0x7e00)) && isnan(coll_f16_to_f32(0x7c01)));
    assert_true((coll_f32_to_f16(NAN) & 0x7fff) > 0x7c00);
    assert_true((coll_f32_to_f16(coll_bits_f32(0x7f800001)) & 0x7fff) > 0x7c00); /* low payload */
    assert_int_equal(coll_f32_to_f16(coll_bits_f32(0xffc00000)), 0xfe00);
}

static void test_bf16_known(void **state)
{
    (void)state;
    assert_int_equal(coll_f32_to_bf16(1.0f), 0x3f80);
    assert_int_equal(coll_f32_to_bf16(-2.0f), 0xc000);
    assert_int_equal(coll_f32_to_bf16(0x1.01p0f), 0x3f80);  /* tie, even */
    assert_int_equal(coll_f32_to_bf16(0x1.03p0f), 0x3f82);  /* tie, even */
    assert_int_equal(coll_f32_to_bf16(0x1.010002p0f), 0x3f81);
    assert_int_equal(coll_f32_to_bf16(FLT_MAX), 0x7f80);   /* rounds to Inf */
    assert_int_equal(coll_f32_to_bf16(0x1.fep127f), 0x7f7f); /* largest finite */
    assert_int_equal(coll_f32_to_bf16(INFINITY), 0x7f80);
    assert_int_equal(coll_f32_to_bf16(-INFINITY), 0xff80);
    assert_int_equal(coll_f32_to_bf16(coll_bits_f32(0x00010000)), 0x0001); /* subnormal kept */
    assert_int_equal(coll_f32_to_bf16(coll_bits_f32(0x00008000)), 0x0000); /* tie, even */
    assert_int_equal(coll_f32_to_bf16(coll_bits_f32(0x00018000)), 0x0002); /* tie, even */
    assert_int_equal(coll_f32_to_bf16(coll_bits_f32(0x7f800001)), 0x7fc0); /* NaN stays NaN */
    assert_int_equal(coll_f32_to_bf16(coll_bits_f32(0xffffffff)), 0xffff);
    assert_true(coll_bf16_to_f32(0x3f80) == 1.0f);
    assert_true(isnan(coll_bf16_to_f32(0x7fc0)));
}

/* The C helpers must give the F16C bits, which the kernels use when the CPU has them. */
#if defined(__x86_64__)
static int cpu_has_f16c(void)
{
#ifdef __clang__
    return __builtin_cpu_supports("avx2"); /* clang 14 knows no "f16c"; AVX2 implies it */
#else
    return __builtin_cpu_supports("f16c");
#endif
}

__attribute__((target("f16c"))) static void check_against_f16c(void)
{
    for (uint32_t h = 0; h < 65536; h++) {
        float hw = _cvtsh_ss((unsigned short)h);
        assert_true(coll_f32_bits(coll_f16_to_f32((uint16_t)h)) == coll_f32_bits(hw));
    }
    /* Every exponent with random mantissas, plus each mantissa boundary pattern. */
    for (uint32_t i = 0; i < (1u << 22); i++) {
        uint32_t bits = (uint32_t)rng();
        if (i & 1)
            bits = (bits & 0xff800000u) | (i & 0x2000u ? 0x1000u : 0x0fffu) |
                   ((bits & 0x7fe000u) * (i & 2u ? 1u : 0u));
        uint16_t hw = _cvtss_sh(coll_bits_f32(bits), _MM_FROUND_TO_NEAREST_INT);
        if (coll_f32_to_f16(coll_bits_f32(bits)) != hw)
            fail_msg("f32 0x%08x -> 0x%04x, F16C gives 0x%04x", bits,
                     coll_f32_to_f16(coll_bits_f32(bits)), hw);
    }
}
#endif

static void test_f16_matches_f16c(void **state)
{
    (void)state;
#if defined(__x86_64__)
    if (cpu_has_f16c()) {
        check_against_f16c();
        return;
    }
#endif
    skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datatype_size),   cmocka_unit_test(test_op_check),
        cmocka_unit_test(test_zero_count_null), cmocka_unit_test(test_alias_all),
        cmocka_unit_test(test_integer_wrap),    cmocka_unit_test(test_float_semantics),
        cmocka_unit_test(test_half_arith),      cmocka_unit_test(test_f16_exhaustive),
        cmocka_unit_test(test_bf16_exhaustive), cmocka_unit_test(test_f16_known),
        cmocka_unit_test(test_bf16_known),      cmocka_unit_test(test_f16_matches_f16c),
        cmocka_unit_test(test_reduce_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
