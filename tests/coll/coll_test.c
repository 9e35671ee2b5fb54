/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives conformance test (public API only), run under rrun with any number of
 * ranks. Every collective, datatype and op, counts 0/1/7/1023 and (1 << 20) + 3 for a few
 * (datatype, op) pairs, in place and not, every root; results compared with a serial
 * reference on every rank, bitwise. Inputs of the reductions are small integers (or powers
 * of two for products) so that every partial result is exact in every datatype, FLOAT16
 * and BFLOAT16 included, whatever the combination order: the reference is then exact too.
 * Random floats check separately that every rank gets bitwise-identical allreduce results,
 * and that sums stay within n * u * sum|x| of the exact sum (u: unit roundoff of the type).
 * Also: nonblocking collectives overlapped with point-to-point traffic on the same tags and
 * a wildcard receive, collectives on rmp_comm_split halves interleaved with the world, and
 * bad arguments; communicators duplicated, split and freed around the node-aware
 * algorithms' shared segments (no descriptor or mapping left behind). Options: --quick
 * (smaller big counts), --big-matrix (every allreduce datatype/op pair at (1 << 20) + 3,
 * for the forced algorithm variants), --expect-shm (the allreduce must use a shared
 * segment: RMP_ALLREDUCE_ALGO=shm on one node), --bad-algo (expects RMP_ALLREDUCE_ALGO to
 * name an unknown algorithm: allreduce must fail with RMP_ERR_ARG), --mismatch (run with
 * RMP_COLL_CHECK=1: ranks that disagree on the root, count, op or collective all get
 * RMP_ERR_ARG, and the communicator still works afterwards). */
#include <math.h>
#include <rmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/t.h"
#include "procfs.h"

#define GUARD 64
#define GUARD_BYTE 0xa5

static rmp_comm_t world;
static int me, np;
static size_t big = ((size_t)1 << 20) + 3;

static const char *const dt_name[] = {"int8",   "uint8",   "int16",    "uint16",
                                      "int32",  "uint32",  "int64",    "uint64",
                                      "float16", "bfloat16", "float", "double"};
static const char *const op_name[] = {"sum", "prod", "min",  "max", "band",
                                      "bor", "bxor", "land", "lor"};

static size_t esz(rmp_datatype_t dt)
{
    return rmp_datatype_size(dt);
}

static int is_float(rmp_datatype_t dt)
{
    return dt >= RMP_FLOAT16;
}

static int is_signed(rmp_datatype_t dt)
{
    return dt == RMP_INT8 || dt == RMP_INT16 || dt == RMP_INT32 || dt == RMP_INT64;
}

static int valid_pair(rmp_datatype_t dt, rmp_op_t op)
{
    return !(is_float(dt) && (op == RMP_BAND || op == RMP_BOR || op == RMP_BXOR));
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static uint64_t hash3(uint64_t a, uint64_t b, uint64_t c)
{
    return mix(a * 0x9e3779b97f4a7c15ull ^ mix(b + 0x632be59bd9b4e019ull) ^ mix(c + 17));
}

/* ---- 16-bit floats: encode exactly representable normal values, decode any. ---- */
static uint16_t f16_enc(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    if ((u & 0x7fffffff) == 0)
        return sign;
    uint32_t e = ((u >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(sign | e << 10 | ((u >> 13) & 0x3ff));
}

static double f16_dec(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return h & 0x8000 ? -v : v;
}

static uint16_t bf16_enc(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

static double bf16_dec(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* ---- element access ---- */
static uint64_t norm(rmp_datatype_t dt, uint64_t x)
{
    switch (esz(dt)) {
    case 1: return is_signed(dt) ? (uint64_t)(int64_t)(int8_t)x : (uint8_t)x;
    case 2: return is_signed(dt) ? (uint64_t)(int64_t)(int16_t)x : (uint16_t)x;
    case 4: return is_signed(dt) ? (uint64_t)(int64_t)(int32_t)x : (uint32_t)x;
    default: return x;
    }
}

static void put_raw(rmp_datatype_t dt, void *buf, size_t i, uint64_t x)
{
    char *p = (char *)buf + i * esz(dt);
    uint8_t a = (uint8_t)x;
    uint16_t b = (uint16_t)x;
    uint32_t c = (uint32_t)x;
    switch (esz(dt)) {
    case 1: memcpy(p, &a, 1); break;
    case 2: memcpy(p, &b, 2); break;
    case 4: memcpy(p, &c, 4); break;
    default: memcpy(p, &x, 8);
    }
}

static uint64_t get_raw(rmp_datatype_t dt, const void *buf, size_t i)
{
    const char *p = (const char *)buf + i * esz(dt);
    uint8_t a;
    uint16_t b;
    uint32_t c;
    uint64_t x;
    switch (esz(dt)) {
    case 1: memcpy(&a, p, 1); return norm(dt, a);
    case 2: memcpy(&b, p, 2); return norm(dt, b);
    case 4: memcpy(&c, p, 4); return norm(dt, c);
    default: memcpy(&x, p, 8); return x;
    }
}

static void put_f(rmp_datatype_t dt, void *buf, size_t i, double v)
{
    char *p = (char *)buf + i * esz(dt);
    float f = (float)v;
    uint16_t h;
    switch (dt) {
    case RMP_FLOAT16: h = f16_enc(f); memcpy(p, &h, 2); break;
    case RMP_BFLOAT16: h = bf16_enc(f); memcpy(p, &h, 2); break;
    case RMP_FLOAT: memcpy(p, &f, 4); break;
    default: memcpy(p, &v, 8);
    }
}

static double get_f(rmp_datatype_t dt, const void *buf, size_t i)
{
    const char *p = (const char *)buf + i * esz(dt);
    uint16_t h;
    float f;
    double d;
    switch (dt) {
    case RMP_FLOAT16: memcpy(&h, p, 2); return f16_dec(h);
    case RMP_BFLOAT16: memcpy(&h, p, 2); return bf16_dec(h);
    case RMP_FLOAT: memcpy(&f, p, 4); return f;
    default: memcpy(&d, p, 8); return d;
    }
}

/* ---- exact reduction inputs and the serial reference ---- */

/* Element i of rank r's input for op: small values whose every partial result is exact. */
static double gen_val(rmp_op_t op, int r, size_t i)
{
    static const double pm2[4] = {-2, 1, 2, -1};
    uint64_t h = hash3((uint64_t)op, (uint64_t)r, i);
    switch (op) {
    case RMP_SUM: return (double)(int)(h % 9) - 4;
    case RMP_PROD: return pm2[h % 4];
    case RMP_LAND:
    case RMP_LOR: return h % (2 + i % 5) == 0 ? 0 : (double)(h % 3 + 1);
    default: return (double)(int)(h % 19) - 9;
    }
}

static uint64_t gen_raw(rmp_datatype_t dt, rmp_op_t op, int r, size_t i)
{
    uint64_t h = hash3((uint64_t)op + 100, (uint64_t)r, i), g = hash3(7, (uint64_t)r, i);
    switch (op) {
    case RMP_BAND: return norm(dt, h | g); /* mostly ones, so that the AND keeps some */
    case RMP_BOR: return norm(dt, h & g & hash3(8, (uint64_t)r, i));
    case RMP_BXOR: return norm(dt, h);
    default: return norm(dt, (uint64_t)(int64_t)gen_val(op, r, i));
    }
}

/* Nonzero: inputs and references repeat with this period (base 0 only), so that the big
 * matrix computes n x period values instead of n x count. A prime: no alignment with any
 * algorithm's chunks or blocks. */
static size_t gen_period;

/* With gen_period: copy the first gen_period elements of buf over the rest. */
static void fill_repeat(rmp_datatype_t dt, void *buf, size_t count, size_t base)
{
    if (gen_period == 0 || base != 0 || count <= gen_period)
        return;
    size_t es = esz(dt), p = gen_period * es;
    for (size_t off = p; off < count * es; off += p)
        memcpy((char *)buf + off, buf, count * es - off < p ? count * es - off : p);
}

static void fill_input(rmp_datatype_t dt, rmp_op_t op, void *buf, size_t count, int r,
                       size_t base)
{
    size_t all = count;
    if (gen_period && base == 0 && count > gen_period)
        count = gen_period;
    for (size_t i = 0; i < count; i++) {
        if (is_float(dt))
            put_f(dt, buf, i, gen_val(op, r, base + i));
        else
            put_raw(dt, buf, i, gen_raw(dt, op, r, base + i));
    }
    fill_repeat(dt, buf, all, base);
}

static uint64_t op_int(rmp_datatype_t dt, rmp_op_t op, uint64_t a, uint64_t b)
{
    int s = is_signed(dt);
    switch (op) {
    case RMP_SUM: return norm(dt, a + b);
    case RMP_PROD: return norm(dt, a * b);
    case RMP_MIN: return (s ? (int64_t)a < (int64_t)b : a < b) ? a : b;
    case RMP_MAX: return (s ? (int64_t)a > (int64_t)b : a > b) ? a : b;
    case RMP_BAND: return a & b;
    case RMP_BOR: return a | b;
    case RMP_BXOR: return a ^ b;
    case RMP_LAND: return a && b;
    default: return a || b;
    }
}

static double op_flt(rmp_op_t op, double a, double b)
{
    switch (op) {
    case RMP_SUM: return a + b;
    case RMP_PROD: return a * b;
    case RMP_MIN: return a < b ? a : b;
    case RMP_MAX: return a > b ? a : b;
    case RMP_LAND: return a != 0 && b != 0;
    default: return a != 0 || b != 0;
    }
}

/* The reduction over ranks 0..n-1 of elements base..base+count-1. */
static void fill_expected(rmp_datatype_t dt, rmp_op_t op, void *buf, size_t count, int n,
                          size_t base)
{
    size_t all = count;
    if (gen_period && base == 0 && count > gen_period)
        count = gen_period;
    for (size_t i = 0; i < count; i++) {
        if (is_float(dt)) {
            double acc = gen_val(op, 0, base + i);
            for (int r = 1; r < n; r++)
                acc = op_flt(op, acc, gen_val(op, r, base + i));
            put_f(dt, buf, i, acc);
        } else {
            uint64_t acc = gen_raw(dt, op, 0, base + i);
            for (int r = 1; r < n; r++)
                acc = op_int(dt, op, acc, gen_raw(dt, op, r, base + i));
            put_raw(dt, buf, i, acc);
        }
    }
    fill_repeat(dt, buf, all, base);
}

/* ---- buffers with a guard zone ---- */
static char *galloc(size_t bytes)
{
    char *p = malloc(bytes + GUARD);
    if (!p) {
        fprintf(stderr, "rank %d: out of memory (%zu bytes)\n", me, bytes);
        rmp_abort(world, 3);
    }
    memset(p, 0x5a, bytes);
    memset(p + bytes, GUARD_BYTE, GUARD);
    return p;
}

static int guard_ok(const char *p, size_t bytes)
{
    for (size_t i = 0; i < GUARD; i++)
        if ((unsigned char)p[bytes + i] != GUARD_BYTE)
            return 0;
    return 1;
}

/* Compare got with exp; report the first difference. */
static void check_eq(const char *what, rmp_datatype_t dt, const void *got, const void *exp,
                     size_t count, const char *ctx)
{
    size_t es = esz(dt);
    if (memcmp(got, exp, count * es) == 0) {
        t_pass++;
        return;
    }
    size_t i = 0;
    while (memcmp((const char *)got + i * es, (const char *)exp + i * es, es) == 0)
        i++;
    if (is_float(dt))
        T_CHECK(0, "%s %s: element %zu of %zu is %g, expected %g", what, ctx, i, count,
                get_f(dt, got, i), get_f(dt, exp, i));
    else
        T_CHECK(0, "%s %s: element %zu of %zu is %#llx, expected %#llx", what, ctx, i, count,
                (unsigned long long)get_raw(dt, got, i), (unsigned long long)get_raw(dt, exp, i));
}

static void fill_bytes(void *buf, size_t bytes, uint64_t seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < bytes; i++)
        p[i] = (unsigned char)hash3(seed, 3, i / 8) >> (i % 8);
}

#define CTX_LEN 128
#define RC_CHECK(rc, what, ctx) \
    T_CHECK((rc) == RMP_SUCCESS, "%s %s -> %s", what, ctx, rmp_strerror(rc))

/* ---- reductions ---- */

static void test_allreduce(rmp_comm_t c, rmp_datatype_t dt, rmp_op_t op, size_t count,
                           int in_place)
{
    int r = rmp_comm_rank(c), n = rmp_comm_size(c);
    size_t bytes = count * esz(dt);
    char ctx[CTX_LEN];
    snprintf(ctx, sizeof(ctx), "(%s %s count %zu%s, %d ranks)", dt_name[dt], op_name[op],
             count, in_place ? " in place" : "", n);
    if (count == 0) {
        RC_CHECK(rmp_allreduce(NULL, NULL, 0, dt, op, c), "allreduce", ctx);
        return;
    }
    char *s = galloc(bytes), *rb = galloc(bytes), *e = galloc(bytes);
    fill_input(dt, op, in_place ? rb : s, count, r, 0);
    int rc = rmp_allreduce(in_place ? RMP_IN_PLACE : s, rb, count, dt, op, c);
    RC_CHECK(rc, "allreduce", ctx);
    fill_expected(dt, op, e, count, n, 0);
    check_eq("allreduce", dt, rb, e, count, ctx);
    T_CHECK(guard_ok(rb, bytes) && guard_ok(s, bytes), "allreduce %s wrote past the end", ctx);
    if (!in_place) {
        fill_input(dt, op, e, count, r, 0);
        T_CHECK(memcmp(s, e, bytes) == 0, "allreduce %s modified sbuf", ctx);
    }
    free(s);
    free(rb);
    free(e);
}

static void test_reduce(rmp_comm_t c, rmp_datatype_t dt, rmp_op_t op, size_t count, int root,
                        int in_place)
{
    int r = rmp_comm_rank(c), n = rmp_comm_size(c);
    size_t bytes = count * esz(dt);
    char ctx[CTX_LEN];
    snprintf(ctx, sizeof(ctx), "(%s %s count %zu root %d%s, %d ranks)", dt_name[dt],
             op_name[op], count, root, in_place ? " in place" : "", n);
    if (count == 0) {
        RC_CHECK(rmp_reduce(NULL, NULL, 0, dt, op, root, c), "reduce", ctx);
        return;
    }
    int ip = in_place && r == root;
    char *s = galloc(bytes), *rb = r == root ? galloc(bytes) : NULL, *e = galloc(bytes);
    fill_input(dt, op, ip ? rb : s, count, r, 0);
    RC_CHECK(rmp_reduce(ip ? RMP_IN_PLACE : s, rb, count, dt, op, root, c), "reduce", ctx);
    if (r == root) {
        fill_expected(dt, op, e, count, n, 0);
        check_eq("reduce", dt, rb, e, count, ctx);
        T_CHECK(guard_ok(rb, bytes), "reduce %s wrote past the end", ctx);
    }
    if (!ip) {
        fill_input(dt, op, e, count, r, 0);
        T_CHECK(memcmp(s, e, bytes) == 0 && guard_ok(s, bytes), "reduce %s modified sbuf", ctx);
    }
    free(s);
    free(rb);
    free(e);
}

static void test_reduce_scatter(rmp_comm_t c, rmp_datatype_t dt, rmp_op_t op, size_t count,
                                int in_place)
{
    int r = rmp_comm_rank(c), n = rmp_comm_size(c);
    size_t bytes = count * esz(dt), total = bytes * (size_t)n;
    char ctx[CTX_LEN];
    snprintf(ctx, sizeof(ctx), "(%s %s count %zu%s, %d ranks)", dt_name[dt], op_name[op],
             count, in_place ? " in place" : "", n);
    if (count == 0) {
        RC_CHECK(rmp_reduce_scatter(NULL, NULL, 0, dt, op, c), "reduce_scatter", ctx);
        return;
    }
    char *s = galloc(total), *rb = galloc(in_place ? total : bytes), *e = galloc(bytes);
    fill_input(dt, op, in_place ? rb : s, count * (size_t)n, r, 0);
    RC_CHECK(rmp_reduce_scatter(in_place ? RMP_IN_PLACE : s, rb, count, dt, op, c),
             "reduce_scatter", ctx);
    fill_expected(dt, op, e, count, n, (size_t)r * count);
    check_eq("reduce_scatter", dt, rb, e, count, ctx);
    T_CHECK(guard_ok(rb, in_place ? total : bytes) && guard_ok(s, total),
            "reduce_scatter %s wrote past the end", ctx);
    free(s);
    free(rb);
    free(e);
}

/* ---- data movers ---- */

static void test_bcast(rmp_comm_t c, rmp_datatype_t dt, size_t count, int root)
{
    int r = rmp_comm_rank(c), n = rmp_comm_size(c);
    size_t bytes = count * esz(dt);
    char ctx[CTX_LEN];
    snprintf(ctx, sizeof(ctx), "(%s count %zu root %d, %d ranks)", dt_name[dt], count, root, n);
    if (count == 0) {
        RC_CHECK(rmp_bcast(NULL, 0, dt, root, c), "bcast", ctx);
        return;
    }
    char *b = galloc(bytes), *e = galloc(bytes);
    fill_bytes(e, bytes, 1000 + (uint64_t)root);
    if (r == root)
        memcpy(b, e, bytes);
    RC_CHECK(rmp_bcast(b, count, dt, root, c), "bcast", ctx);
    check_eq("bcast", RMP_UINT8, b, e, bytes, ctx);
    T_CHECK(guard_ok(b, bytes), "bcast %s wrote past the end", ctx);
    free(b);
    free(e);
}

static void test_allgather(rmp_comm_t c, rmp_datatype_t dt, size_t count, int in_place)
{
    int r = rmp_comm_rank(c), n = rmp_comm_size(c);
    size_t bytes = count * esz(dt), total = bytes * (size_t)n;
    char ctx[CTX_LEN];
    snprintf(ctx, sizeof(ctx), "(%s count %zu%s, %d ranks)", dt_name[dt], count,
             in_place ? " in place" : "", n);
    if (count == 0) {
        RC_CHECK(rmp_allgather(NULL, NULL, 0, dt, c), "allgather", ctx);
        return;
    }
    char *s = galloc(bytes), *rb = galloc(total), *e = galloc(total);
    for (int i = 0; i < n; i++)
        fill_bytes(e + (size_t)i * bytes, bytes, 2000 + (uint64_t)i);
    memcpy(in_place ? rb + (size_t)r * bytes : s, e + (size_t)r * bytes, bytes);
    RC_CHECK(rmp_allgather(in_place ? RMP_IN_PLACE : s, rb, count, dt, c), "allgather", ctx);
    check_eq("allgather", RMP_UINT8, rb, e, total, ctx);
    T_CHECK(guard_ok(rb, total) && guard_ok(s, bytes), "allgather %s wrote past the end", ctx);
    free(s);
    free(rb);
    free(e);
}

static void test_alltoall(rmp_comm_t c, rmp_datatype_t dt, size_t count, int in_place)
{
    int r = rmp_comm_rank(c), n = rmp_comm_size(c);
    size_t bytes = count * esz(dt), total = bytes * (size_t)n;
    char ctx[CTX_LEN];
    snprintf(ctx, sizeof(ctx), "(%s count %zu%s, %d ranks)", dt_name[dt], count,
             in_place ? " in place" : "", n);
    if (count == 0) {
        RC_CHECK(rmp_alltoall(NULL, NULL, 0, dt, c), "alltoall", ctx);
        return;
    }
    char *s = galloc(total), *rb = galloc(total), *e = galloc(total);
    for (int i = 0; i < n; i++) {
        fill_bytes((in_place ? rb : s) + (size_t)i * bytes, bytes, (uint64_t)(r * n + i));
        fill_bytes(e + (size_t)i * bytes, bytes, (uint64_t)(i * n + r));
    }
    RC_CHECK(rmp_alltoall(in_place ? RMP_IN_PLACE : s, rb, count, dt, c), "alltoall", ctx);
    check_eq("alltoall", RMP_UINT8, rb, e, total, ctx);
    T_CHECK(guard_ok(rb, total) && guard_ok(s, total), "alltoall %s wrote past the end", ctx);
    free(s);
    free(rb);
    free(e);
}

static void test_gather_scatter(rmp_comm_t c, rmp_datatype_t dt, size_t count, int root,
                                int in_place)
{
    int r = rmp_comm_rank(c), n = rmp_comm_size(c), ip = in_place && r == root;
    size_t bytes = count * esz(dt), total = bytes * (size_t)n;
    char ctx[CTX_LEN];
    snprintf(ctx, sizeof(ctx), "(%s count %zu root %d%s, %d ranks)", dt_name[dt], count, root,
             in_place ? " in place" : "", n);
    if (count == 0) {
        RC_CHECK(rmp_gather(NULL, NULL, 0, dt, root, c), "gather", ctx);
        RC_CHECK(rmp_scatter(NULL, NULL, 0, dt, root, c), "scatter", ctx);
        return;
    }
    char *s = galloc(bytes), *all = galloc(total), *e = galloc(total);
    for (int i = 0; i < n; i++)
        fill_bytes(e + (size_t)i * bytes, bytes, 3000 + (uint64_t)i);
    /* gather */
    if (ip)
        memcpy(all + (size_t)r * bytes, e + (size_t)r * bytes, bytes);
    else
        memcpy(s, e + (size_t)r * bytes, bytes);
    RC_CHECK(rmp_gather(ip ? RMP_IN_PLACE : s, r == root ? all : NULL, count, dt, root, c),
             "gather", ctx);
    if (r == root) {
        check_eq("gather", RMP_UINT8, all, e, total, ctx);
        T_CHECK(guard_ok(all, total), "gather %s wrote past the end", ctx);
    }
    /* scatter: the root sends e, everyone gets its block */
    memset(s, 0x5a, bytes);
    if (r == root)
        memcpy(all, e, total);
    RC_CHECK(rmp_scatter(r == root ? all : NULL, ip ? RMP_IN_PLACE : s, count, dt, root, c),
             "scatter", ctx);
    if (!ip)
        check_eq("scatter", RMP_UINT8, s, e + (size_t)r * bytes, bytes, ctx);
    if (r == root)
        check_eq("scatter sbuf", RMP_UINT8, all, e, total, ctx);
    T_CHECK(guard_ok(s, bytes) && guard_ok(all, total), "scatter %s wrote past the end", ctx);
    free(s);
    free(all);
    free(e);
}

/* ---- the sets ---- */

static const size_t small_counts[] = {0, 1, 7, 1023};
#define NSMALL (sizeof(small_counts) / sizeof(small_counts[0]))

static void run_reductions(rmp_comm_t c)
{
    int n = rmp_comm_size(c);
    int roots[3] = {0, n - 1, n / 2};
    for (int dt = 0; dt < RMP_DATATYPE_COUNT; dt++)
        for (int op = 0; op < RMP_OP_COUNT; op++) {
            if (!valid_pair(dt, op))
                continue;
            for (size_t k = 0; k < NSMALL; k++) {
                size_t count = small_counts[k];
                for (int ip = 0; ip < 2; ip++) {
                    test_allreduce(c, dt, op, count, ip);
                    test_reduce_scatter(c, dt, op, count, ip);
                    test_reduce(c, dt, op, count, roots[(dt + op + ip) % 3], ip);
                }
            }
        }
}

static void run_movers(rmp_comm_t c)
{
    int n = rmp_comm_size(c);
    for (int dt = 0; dt < RMP_DATATYPE_COUNT; dt++)
        for (size_t k = 0; k < NSMALL; k++) {
            size_t count = small_counts[k];
            for (int root = 0; root < n; root++)
                test_bcast(c, dt, count, root);
            for (int ip = 0; ip < 2; ip++) {
                test_allgather(c, dt, count, ip);
                test_alltoall(c, dt, count, ip);
                test_gather_scatter(c, dt, count, (dt + ip) % n, ip);
            }
        }
}

static void run_big(rmp_comm_t c)
{
    int n = rmp_comm_size(c);
    size_t per = big / (size_t)n + 1;
    test_allreduce(c, RMP_FLOAT, RMP_SUM, big, 0);
    test_allreduce(c, RMP_BFLOAT16, RMP_SUM, big, 1);
    test_allreduce(c, RMP_INT32, RMP_PROD, big, 0);
    test_allreduce(c, RMP_DOUBLE, RMP_MAX, big, 1);
    test_allreduce(c, RMP_FLOAT16, RMP_MIN, big / 2, 0);
    test_allreduce(c, RMP_UINT8, RMP_BXOR, big, 0);
    test_reduce(c, RMP_FLOAT, RMP_SUM, big, 1 % n, 0);
    test_reduce(c, RMP_INT64, RMP_BOR, big / 2, n - 1, 1);
    test_reduce_scatter(c, RMP_FLOAT, RMP_SUM, per, 0);
    test_reduce_scatter(c, RMP_INT32, RMP_MAX, per, 1);
    test_bcast(c, RMP_UINT8, big, n - 1);
    test_bcast(c, RMP_DOUBLE, big / 4, 0);
    test_allgather(c, RMP_INT16, per, 0);
    test_allgather(c, RMP_INT8, per, 1);
    test_alltoall(c, RMP_FLOAT, per / (size_t)n + 1, 0);
    test_alltoall(c, RMP_INT8, per, 1);
    test_gather_scatter(c, RMP_DOUBLE, per / 2, n / 2, 0);
    test_gather_scatter(c, RMP_UINT16, per, 0, 1);
}

/* ---- random floats: bitwise identical on every rank, close to the exact sum ---- */

/* v truncated to p significant bits: exact in a format with p bits of precision. */
static double quantize(double v, int p)
{
    int e;
    double m = frexp(v, &e);
    return ldexp(trunc(ldexp(m, p)), e - p);
}

static double rand_val(rmp_datatype_t dt, rmp_op_t op, int r, size_t i)
{
    uint64_t h = hash3(500 + (uint64_t)dt, (uint64_t)r, i);
    double u = (double)(h >> 11) / 9007199254740992.0; /* [0, 1) */
    double v = op == RMP_PROD ? 0.9 + 0.2 * u
                              : (h & 1 ? -1 : 1) * ldexp(0.5 + u, (int)(h >> 60) % 5 - 2);
    switch (dt) {
    case RMP_FLOAT16: return quantize(v, 11);
    case RMP_BFLOAT16: return quantize(v, 8);
    case RMP_FLOAT: return (float)v;
    default: return v;
    }
}

static void test_bitwise(rmp_comm_t c, rmp_datatype_t dt, rmp_op_t op, size_t count,
                         int nonblocking)
{
    int r = rmp_comm_rank(c), n = rmp_comm_size(c);
    size_t bytes = count * esz(dt);
    char ctx[CTX_LEN];
    snprintf(ctx, sizeof(ctx), "(random %s %s count %zu%s, %d ranks)", dt_name[dt], op_name[op],
             count, nonblocking ? " nonblocking" : "", n);
    char *s = galloc(bytes), *rb = galloc(bytes), *b0 = galloc(bytes);
    for (size_t i = 0; i < count; i++)
        put_f(dt, s, i, rand_val(dt, op, r, i));
    if (nonblocking) {
        rmp_request_t req;
        int rc = rmp_iallreduce(s, rb, count, dt, op, c, &req);
        RC_CHECK(rc, "iallreduce", ctx);
        if (rc == RMP_SUCCESS)
            RC_CHECK(rmp_wait(&req, NULL), "iallreduce wait", ctx);
    } else {
        RC_CHECK(rmp_allreduce(s, rb, count, dt, op, c), "allreduce", ctx);
    }
    memcpy(b0, rb, bytes);
    RC_CHECK(rmp_bcast(b0, count, dt, 0, c), "bcast", ctx);
    T_CHECK(memcmp(b0, rb, bytes) == 0, "allreduce %s: rank 0 got different bits", ctx);
    /* Against the exact result: error bound n * u * sum|x| (sums), 2n * u * |ref| (products). */
    double u = dt == RMP_FLOAT16 ? ldexp(1, -11) : dt == RMP_BFLOAT16 ? ldexp(1, -8)
             : dt == RMP_FLOAT ? ldexp(1, -24) : ldexp(1, -53);
    size_t bad = count;
    for (size_t i = 0; i < count && bad == count; i++) {
        double ref = rand_val(dt, op, 0, i), mag = fabs(ref);
        for (int k = 1; k < n; k++) {
            double v = rand_val(dt, op, k, i);
            ref = op_flt(op, ref, v);
            mag += fabs(v);
        }
        double got = get_f(dt, rb, i), tol = op == RMP_SUM ? n * u * mag
                                             : op == RMP_PROD ? 2 * n * u * fabs(ref) : 0;
        if (!(fabs(got - ref) <= tol))
            bad = i;
    }
    T_CHECK(bad == count, "allreduce %s: element %zu too far from the exact result", ctx, bad);
    free(s);
    free(rb);
    free(b0);
}

static void run_bitwise(rmp_comm_t c, int quick)
{
    static const rmp_datatype_t dts[] = {RMP_FLOAT16, RMP_BFLOAT16, RMP_FLOAT, RMP_DOUBLE};
    static const rmp_op_t ops[] = {RMP_SUM, RMP_PROD, RMP_MIN, RMP_MAX};
    for (size_t d = 0; d < 4; d++)
        for (size_t o = 0; o < 4; o++) {
            test_bitwise(c, dts[d], ops[o], 7, 0);
            test_bitwise(c, dts[d], ops[o], 1023, o & 1);
            test_bitwise(c, dts[d], ops[o], 40000 + 3, o & 1);
        }
    test_bitwise(c, RMP_FLOAT, RMP_SUM, quick ? big / 4 : big, 0);
    test_bitwise(c, RMP_BFLOAT16, RMP_SUM, quick ? big / 4 : big, 1);
}

/* ---- nonblocking, overlapped with point-to-point on the same tags ---- */

static void test_nonblocking(rmp_comm_t c)
{
    int r = rmp_comm_rank(c), n = rmp_comm_size(c);
    int right = (r + 1) % n, left = (r - 1 + n) % n;
    char ctx[CTX_LEN];
    snprintf(ctx, sizeof(ctx), "(nonblocking, %d ranks)", n);
    /* A wildcard receive posted first must only ever see the user's message. */
    int inbox[4] = {-1, -1, -1, -1}, msg[4] = {r, 0x5eed, r * 3, 7};
    rmp_request_t wild, sreq, nb[6];
    rmp_status_t st;
    RC_CHECK(rmp_irecv(inbox, sizeof(inbox), RMP_ANY_SOURCE, RMP_ANY_TAG, c, &wild), "irecv", ctx);

    size_t c1 = 1023, c2 = big / 8, c3 = 777;
    char *a1 = galloc(c1 * 4), *e1 = galloc(c1 * 4);
    char *a2 = galloc(c2 * 4), *e2 = galloc(c2 * 4);
    char *b3 = galloc(c3 * 8), *e3 = galloc(c3 * 8);
    char *a4 = galloc(7 * 2), *s4 = galloc(7 * 2), *e4 = galloc(7 * 2);
    fill_input(RMP_INT32, RMP_SUM, a1, c1, r, 0);
    fill_input(RMP_FLOAT, RMP_SUM, a2, c2, r, 0);
    fill_input(RMP_FLOAT16, RMP_MAX, s4, 7, r, 0);
    fill_bytes(e3, c3 * 8, 4000);
    if (r == n - 1)
        memcpy(b3, e3, c3 * 8);
    RC_CHECK(rmp_ibarrier(c, &nb[0]), "ibarrier", ctx);
    RC_CHECK(rmp_iallreduce(RMP_IN_PLACE, a1, c1, RMP_INT32, RMP_SUM, c, &nb[1]), "iallreduce",
             ctx);
    RC_CHECK(rmp_ibcast(b3, c3, RMP_DOUBLE, n - 1, c, &nb[2]), "ibcast", ctx);
    RC_CHECK(rmp_iallreduce(RMP_IN_PLACE, a2, c2, RMP_FLOAT, RMP_SUM, c, &nb[3]), "iallreduce",
             ctx);
    RC_CHECK(rmp_iallreduce(s4, a4, 7, RMP_FLOAT16, RMP_MAX, c, &nb[4]), "iallreduce", ctx);
    RC_CHECK(rmp_ibarrier(c, &nb[5]), "ibarrier", ctx);
    /* User traffic on tags a collective could use, while they run. */
    RC_CHECK(rmp_isend(msg, sizeof(msg), right, 0, c, &sreq), "isend", ctx);
    for (int t = 1; t <= 3; t++)
        RC_CHECK(rmp_send(&t, sizeof(t), right, t << 10, c), "send", ctx);
    /* Complete in an order different from the start order, with rmp_test polling. */
    int pending = 6, spins = 0;
    while (pending > 0 && spins < 100000000) {
        for (int i = 5; i >= 0; i--) {
            int done = 0;
            if (nb[i] == RMP_REQUEST_NULL)
                continue;
            int rc = rmp_test(&nb[i], &done, NULL);
            if (rc != RMP_SUCCESS) {
                RC_CHECK(rc, "test", ctx);
                nb[i] = RMP_REQUEST_NULL;
                done = 1;
            }
            pending -= done;
        }
        spins++;
    }
    T_CHECK(pending == 0, "nonblocking collectives %s did not complete", ctx);
    RC_CHECK(rmp_wait(&sreq, NULL), "wait isend", ctx);
    RC_CHECK(rmp_wait(&wild, &st), "wait wildcard", ctx);
    T_CHECK(st.source == left && st.tag == 0 && inbox[0] == left && inbox[1] == 0x5eed,
            "wildcard receive %s got source %d tag %d data %d %d", ctx, st.source, st.tag,
            inbox[0], inbox[1]);
    for (int t = 1; t <= 3; t++) {
        int v = 0;
        RC_CHECK(rmp_recv(&v, sizeof(v), left, t << 10, c, NULL), "recv", ctx);
        T_CHECK(v == t, "user message %d %s: got %d", t, ctx, v);
    }
    fill_expected(RMP_INT32, RMP_SUM, e1, c1, n, 0);
    check_eq("iallreduce", RMP_INT32, a1, e1, c1, ctx);
    fill_expected(RMP_FLOAT, RMP_SUM, e2, c2, n, 0);
    check_eq("iallreduce big", RMP_FLOAT, a2, e2, c2, ctx);
    check_eq("ibcast", RMP_UINT8, b3, e3, c3 * 8, ctx);
    fill_expected(RMP_FLOAT16, RMP_MAX, e4, 7, n, 0);
    check_eq("iallreduce f16", RMP_FLOAT16, a4, e4, 7, ctx);
    T_CHECK(guard_ok(a1, c1 * 4) && guard_ok(a2, c2 * 4) && guard_ok(b3, c3 * 8) &&
                guard_ok(a4, 14),
            "nonblocking %s wrote past the end", ctx);
    free(a1), free(e1), free(a2), free(e2), free(b3), free(e3), free(a4), free(s4), free(e4);
}

/* Every datatype and op through iallreduce, every root through ibcast. */
static void run_nonblocking_sets(rmp_comm_t c)
{
    int r = rmp_comm_rank(c), n = rmp_comm_size(c);
    static const size_t counts[] = {0, 1, 7, 1023, 20000};
    for (int dt = 0; dt < RMP_DATATYPE_COUNT; dt++)
        for (int op = 0; op < RMP_OP_COUNT; op++) {
            if (!valid_pair(dt, op))
                continue;
            for (size_t k = 0; k < 5; k++) {
                size_t count = counts[k], bytes = count * esz(dt);
                int ip = (dt + op + (int)k) & 1;
                char ctx[CTX_LEN];
                snprintf(ctx, sizeof(ctx), "(%s %s count %zu%s, %d ranks)", dt_name[dt],
                         op_name[op], count, ip ? " in place" : "", n);
                char *s = galloc(bytes), *rb = galloc(bytes), *e = galloc(bytes);
                fill_input(dt, op, ip ? rb : s, count, r, 0);
                rmp_request_t req;
                int rc = rmp_iallreduce(ip ? RMP_IN_PLACE : s, rb, count, dt, op, c, &req);
                RC_CHECK(rc, "iallreduce", ctx);
                if (rc == RMP_SUCCESS)
                    RC_CHECK(rmp_wait(&req, NULL), "iallreduce wait", ctx);
                fill_expected(dt, op, e, count, n, 0);
                check_eq("iallreduce", dt, rb, e, count, ctx);
                T_CHECK(guard_ok(rb, bytes), "iallreduce %s wrote past the end", ctx);
                free(s), free(rb), free(e);
            }
        }
    static const size_t bcounts[] = {0, 1, 1023, 300000};
    for (size_t k = 0; k < 4; k++)
        for (int root = 0; root < n; root++) {
            size_t bytes = bcounts[k] * 4;
            char ctx[CTX_LEN];
            snprintf(ctx, sizeof(ctx), "(count %zu root %d, %d ranks)", bcounts[k], root, n);
            char *b = galloc(bytes), *e = galloc(bytes);
            fill_bytes(e, bytes, 5000 + (uint64_t)root);
            if (r == root)
                memcpy(b, e, bytes);
            rmp_request_t req;
            int rc = rmp_ibcast(bcounts[k] ? b : NULL, bcounts[k], RMP_INT32, root, c, &req);
            RC_CHECK(rc, "ibcast", ctx);
            if (rc == RMP_SUCCESS)
                RC_CHECK(rmp_wait(&req, NULL), "ibcast wait", ctx);
            check_eq("ibcast", RMP_UINT8, b, e, bytes, ctx);
            free(b), free(e);
            if (bytes > 4096 && root > 1)
                break;
        }
    for (int i = 0; i < 20; i++) {
        rmp_request_t req;
        RC_CHECK(rmp_ibarrier(c, &req), "ibarrier", "");
        RC_CHECK(rmp_wait(&req, NULL), "ibarrier wait", "");
    }
}

/* ---- sub-communicators ---- */

static void test_split(int quick)
{
    rmp_comm_t half;
    int rc = rmp_comm_split(world, me % 2, -me, &half);
    RC_CHECK(rc, "comm_split", "");
    if (rc != RMP_SUCCESS)
        return;
    int hn = rmp_comm_size(half), hr = rmp_comm_rank(half);
    T_CHECK(hn == (np + 1 - me % 2) / 2 && hr == hn - 1 - me / 2,
            "split: rank %d size %d in the half of world rank %d", hr, hn, me);
    /* The halves run different collectives at the same time, interleaved with the world. */
    for (int round = 0; round < 2; round++) {
        rmp_request_t wreq;
        int wv = me + 1, wsum = 0;
        RC_CHECK(rmp_iallreduce(&wv, &wsum, 1, RMP_INT32, RMP_SUM, world, &wreq), "iallreduce", "");
        if (me % 2 == 0) {
            test_allreduce(half, RMP_FLOAT, RMP_SUM, 1023, round);
            test_bcast(half, RMP_INT64, 777, hn - 1);
            test_reduce_scatter(half, RMP_INT16, RMP_MAX, 100, 0);
            test_allreduce(half, RMP_DOUBLE, RMP_PROD, quick ? 20000 : 200000, 0);
        } else {
            test_alltoall(half, RMP_INT32, 33, round);
            test_allreduce(half, RMP_INT32, RMP_BXOR, 7, 1);
            test_allgather(half, RMP_DOUBLE, 500, 0);
            test_reduce(half, RMP_FLOAT, RMP_SUM, quick ? 20000 : 200000, 0, 1);
        }
        RC_CHECK(rmp_barrier(world), "barrier", "");
        test_allreduce(world, RMP_UINT16, RMP_SUM, 100, 0);
        test_bitwise(half, RMP_FLOAT, RMP_SUM, 5000, round);
        RC_CHECK(rmp_wait(&wreq, NULL), "wait", "");
        T_CHECK(wsum == np * (np + 1) / 2, "world iallreduce during split collectives: %d", wsum);
    }
    run_movers(half);
    RC_CHECK(rmp_comm_free(&half), "comm_free", "");
}

/* ---- node-aware algorithms ---- */

/* Every allreduce pair at (1 << 20) + 3 elements, in place and not: chunked pipelines. */
static void run_big_matrix(rmp_comm_t c)
{
    gen_period = 65521;
    for (int dt = 0; dt < RMP_DATATYPE_COUNT; dt++)
        for (int op = 0; op < RMP_OP_COUNT; op++)
            if (valid_pair(dt, op))
                test_allreduce(c, dt, op, ((size_t)1 << 20) + 3, (dt + op) & 1);
    gen_period = 0;
}

#define SEG_NAME "rmp-coll" /* the memfd label of the collective segments */

/* Each communicator's segment lives as long as it: a duplicate gets its own (from its
 * sixth collective on), freeing it
 * unmaps it and leaves no descriptor; the halves of a split hold two segments at once,
 * used concurrently and interleaved with the world's. */
static void test_segments(int expect_shm)
{
    rmp_comm_t d = RMP_COMM_NULL, half = RMP_COMM_NULL;
    /* Warm up: transports may open descriptors on first contact. */
    RC_CHECK(rmp_comm_dup(world, &d), "comm_dup", "");
    test_allreduce(d, RMP_INT32, RMP_SUM, 1023, 0);
    RC_CHECK(rmp_comm_free(&d), "comm_free", "");
    int fds0 = procfs_count_fds(), maps0 = procfs_count_maps(SEG_NAME);
    T_CHECK(fds0 > 0 && maps0 >= 0, "cannot read /proc/self");
    for (int i = 0; i < 6; i++) {
        long kib0 = procfs_maps_rss_kib(SEG_NAME); /* world's segment */
        RC_CHECK(rmp_comm_dup(world, &d), "comm_dup", "");
        test_allreduce(d, RMP_INT32, RMP_SUM, 1023, i & 1);
        test_allreduce(d, RMP_FLOAT, RMP_SUM, 100000 + 3, 0);
        /* the segment is made at the sixth collective that wants it (coll_shm.c) */
        for (int k = 0; k < 4; k++)
            test_allreduce(d, RMP_INT32, RMP_SUM, 1023, k & 1);
        if (expect_shm && np > 1)
            T_CHECK(procfs_count_maps(SEG_NAME) == maps0 + 1,
                    "duplicate %d: %d segment mappings, want %d", i, procfs_count_maps(SEG_NAME),
                    maps0 + 1);
        /* only the control lines and the first 16 KiB of each of the 2 (np + 1) slots
         * are mapped when it is made (coll_shm.c, SHM_WARM); a large operation maps
         * more */
        long warm = 4 + 2 * (np + 1) * 16;
        if (expect_shm && np > 1 && i == 0) {
            long kib = procfs_maps_rss_kib(SEG_NAME) - kib0;
            T_CHECK(kib0 >= 0 && kib <= warm, "a new segment: %ld KiB resident, want <= %ld", kib,
                    warm);
            test_bcast(d, RMP_FLOAT, 100000 + 3, 0); /* through the slots (the 2-rank
                                                       * allreduce would copy directly) */
            kib = procfs_maps_rss_kib(SEG_NAME) - kib0;
            T_CHECK(kib > warm, "after a 400 KB bcast: %ld KiB resident, want > %ld", kib,
                    warm);
        }
        RC_CHECK(rmp_comm_free(&d), "comm_free", "");
    }
    T_CHECK(procfs_count_maps(SEG_NAME) == maps0, "freed duplicates left %d segment mappings",
            procfs_count_maps(SEG_NAME) - maps0);
    T_CHECK(procfs_count_fds() == fds0, "freed duplicates left %d descriptors",
            procfs_count_fds() - fds0);

    RC_CHECK(rmp_comm_split(world, me % 2, me, &half), "comm_split", "");
    int hn = rmp_comm_size(half);
    for (int round = 0; round < 3; round++) {
        test_allreduce(half, RMP_DOUBLE, RMP_SUM, 70000 + (size_t)round, round & 1);
        test_allreduce(world, RMP_INT64, RMP_MAX, 1023, 0);
        test_bitwise(half, RMP_FLOAT, RMP_SUM, 3000, 0);
        test_allreduce(half, RMP_UINT8, RMP_BXOR, 7, 1);
    }
    if (expect_shm && hn > 1)
        T_CHECK(procfs_count_maps(SEG_NAME) == maps0 + 1, "split: %d segment mappings, want %d",
                procfs_count_maps(SEG_NAME), maps0 + 1);
    RC_CHECK(rmp_comm_free(&half), "comm_free", "");
    T_CHECK(procfs_count_maps(SEG_NAME) == maps0 && procfs_count_fds() == fds0,
            "freed halves left %d mappings, %d descriptors", procfs_count_maps(SEG_NAME) - maps0,
            procfs_count_fds() - fds0);
}

/* ---- bad arguments: local errors, no communication ---- */

static void test_errors(void)
{
    int x[4] = {0}, y[4] = {0};
    rmp_request_t req;
    T_CHECK(rmp_allreduce(x, y, 1, RMP_DATATYPE_COUNT, RMP_SUM, world) == RMP_ERR_ARG, "bad dt");
    T_CHECK(rmp_allreduce(x, y, 1, (rmp_datatype_t)-1, RMP_SUM, world) == RMP_ERR_ARG, "dt -1");
    T_CHECK(rmp_allreduce(x, y, 1, RMP_INT32, RMP_OP_COUNT, world) == RMP_ERR_ARG, "bad op");
    T_CHECK(rmp_allreduce(x, y, 1, RMP_FLOAT, RMP_BXOR, world) == RMP_ERR_ARG, "bxor float");
    T_CHECK(rmp_allreduce(NULL, y, 1, RMP_INT32, RMP_SUM, world) == RMP_ERR_ARG, "NULL sbuf");
    T_CHECK(rmp_allreduce(x, NULL, 1, RMP_INT32, RMP_SUM, world) == RMP_ERR_ARG, "NULL rbuf");
    T_CHECK(rmp_allreduce(x, RMP_IN_PLACE, 1, RMP_INT32, RMP_SUM, world) == RMP_ERR_ARG,
            "in place rbuf");
    T_CHECK(rmp_allreduce(x, y, 1, RMP_INT32, RMP_SUM, NULL) == RMP_ERR_ARG, "NULL comm");
    T_CHECK(rmp_iallreduce(x, y, 1, RMP_INT32, RMP_LAND + 7, world, &req) == RMP_ERR_ARG,
            "iallreduce bad op");
    T_CHECK(rmp_iallreduce(x, y, 1, RMP_INT32, RMP_SUM, world, NULL) == RMP_ERR_ARG,
            "iallreduce NULL req");
    T_CHECK(rmp_bcast(x, 1, RMP_INT32, np, world) == RMP_ERR_ARG, "bcast root n");
    T_CHECK(rmp_bcast(x, 1, RMP_INT32, -1, world) == RMP_ERR_ARG, "bcast root -1");
    T_CHECK(rmp_bcast(NULL, 1, RMP_INT32, 0, world) == RMP_ERR_ARG, "bcast NULL");
    T_CHECK(rmp_ibcast(x, 1, RMP_INT32, np, world, &req) == RMP_ERR_ARG, "ibcast root n");
    T_CHECK(rmp_reduce(x, y, 1, RMP_INT32, RMP_SUM, np, world) == RMP_ERR_ARG, "reduce root");
    T_CHECK(rmp_reduce(x, y, 1, RMP_DOUBLE, RMP_BAND, 0, world) == RMP_ERR_ARG, "reduce band");
    T_CHECK(rmp_gather(x, y, 1, RMP_INT32, -2, world) == RMP_ERR_ARG, "gather root");
    T_CHECK(rmp_scatter(x, y, 1, RMP_INT32, np + 3, world) == RMP_ERR_ARG, "scatter root");
    T_CHECK(rmp_allgather(x, NULL, 1, RMP_INT32, world) == RMP_ERR_ARG, "allgather NULL");
    T_CHECK(rmp_alltoall(NULL, y, 1, RMP_INT32, world) == RMP_ERR_ARG, "alltoall NULL");
    T_CHECK(rmp_reduce_scatter(x, y, 1, RMP_UINT8, RMP_OP_COUNT, world) == RMP_ERR_ARG,
            "reduce_scatter op");
    T_CHECK(rmp_allgather(x, y, 1, (rmp_datatype_t)99, world) == RMP_ERR_ARG, "allgather dt");
    rmp_layout_t nul = {.ctx = NULL}, *plain = malloc((size_t)np * sizeof(*plain));
    size_t *four = malloc((size_t)np * sizeof(*four));
    T_CHECK(plain && four, "out of memory");
    for (int i = 0; i < np; i++) {
        plain[i] = (rmp_layout_t){.ctx = x};
        four[i] = 4;
    }
    T_CHECK(rmp_gatherv_layout(&nul, 4, NULL, NULL, 0, world) == RMP_ERR_ARG,
            "gatherv_layout: plain bytes at NULL (non-root), no layouts (root)");
    T_CHECK(rmp_scatterv_layout(NULL, NULL, plain, 4, np, world) == RMP_ERR_ARG,
            "scatterv_layout root n");
    T_CHECK(rmp_alltoallv_layout(NULL, four, plain, four, world) == RMP_ERR_ARG,
            "alltoallv_layout NULL send layouts");
    T_CHECK(rmp_ialltoallv_layout(plain, four, NULL, four, world, &req) == RMP_ERR_ARG,
            "ialltoallv_layout NULL receive layouts");
    T_CHECK(rmp_iallgatherv_layout(&nul, 4, plain, four, world, &req) == RMP_ERR_ARG,
            "iallgatherv_layout plain bytes at NULL");
    free(plain);
    free(four);
    T_CHECK(rmp_barrier(NULL) == RMP_ERR_ARG, "barrier NULL");
    T_CHECK(rmp_ibarrier(world, NULL) == RMP_ERR_ARG, "ibarrier NULL req");
    T_CHECK(rmp_ibarrier(NULL, &req) == RMP_ERR_ARG, "ibarrier NULL comm");
    /* Nothing above may have started a collective: the next one still matches up. */
    test_allreduce(world, RMP_INT32, RMP_SUM, 3, 0);
}

static void test_barrier(void)
{
    for (int i = 0; i < 50; i++)
        RC_CHECK(rmp_barrier(world), "barrier", "");
    if (np == 1)
        return;
    /* Nobody leaves before the last one arrives. The last one starts its sleep only after
     * every other rank has read its clock (their messages), so the bound holds even when
     * ranks leave the previous barrier far apart (TCG guests: ~10 ms between nodes). */
    double t0 = rmp_wtime();
    if (me == np - 1) {
        for (int r = 0; r < np - 1; r++)
            RC_CHECK(rmp_recv(NULL, 0, RMP_ANY_SOURCE, 77, world, NULL), "recv", "");
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    } else {
        RC_CHECK(rmp_send(NULL, 0, np - 1, 77, world), "send", "");
    }
    RC_CHECK(rmp_barrier(world), "barrier", "");
    double dt = rmp_wtime() - t0;
    T_CHECK(dt >= 0.045, "barrier returned after %.3f s while rank %d slept 0.05 s", dt, np - 1);
}

/* Every rank must see RMP_ERR_ARG, also the ones whose own arguments look fine. */
static void test_mismatch(void)
{
    int buf[8] = {0}, out[8];
    int rc = rmp_bcast(buf, 4, RMP_INT32, me == np - 1 ? 1 : 0, world);
    T_CHECK(rc == RMP_ERR_ARG, "bcast with mismatched roots -> %s", rmp_strerror(rc));
    rc = rmp_allreduce(buf, out, me == 0 ? 3 : 4, RMP_INT32, RMP_SUM, world);
    T_CHECK(rc == RMP_ERR_ARG, "allreduce with mismatched counts -> %s", rmp_strerror(rc));
    rc = rmp_allreduce(buf, out, 4, RMP_INT32, me == 0 ? RMP_MAX : RMP_SUM, world);
    T_CHECK(rc == RMP_ERR_ARG, "allreduce with mismatched ops -> %s", rmp_strerror(rc));
    rc = rmp_reduce(buf, out, 4, me == 0 ? RMP_UINT32 : RMP_INT32, RMP_SUM, 0, world);
    T_CHECK(rc == RMP_ERR_ARG, "reduce with mismatched datatypes -> %s", rmp_strerror(rc));
    rc = me == 0 ? rmp_barrier(world) : rmp_allreduce(buf, out, 4, RMP_INT32, RMP_SUM, world);
    T_CHECK(rc == RMP_ERR_ARG, "barrier on rank 0, allreduce elsewhere -> %s", rmp_strerror(rc));
    rc = rmp_gather(buf, out, me == 0 ? 0 : 1, RMP_INT32, 0, world);
    T_CHECK(rc == RMP_ERR_ARG, "gather with count 0 on rank 0 only -> %s", rmp_strerror(rc));
    /* Agreement again: the collective works and computes the right thing. */
    int one = 1, sum = 0;
    RC_CHECK(rmp_allreduce(&one, &sum, 1, RMP_INT32, RMP_SUM, world), "allreduce",
             "(after mismatches)");
    T_CHECK(sum == np, "allreduce after mismatches: %d, expected %d", sum, np);
}

int main(int argc, char **argv)
{
    int quick = 0, bad_algo = 0, mismatch = 0, big_matrix = 0, expect_shm = 0;
    for (int i = 1; i < argc; i++) {
        quick |= strcmp(argv[i], "--quick") == 0;
        big_matrix |= strcmp(argv[i], "--big-matrix") == 0;
        expect_shm |= strcmp(argv[i], "--expect-shm") == 0;
        bad_algo |= strcmp(argv[i], "--bad-algo") == 0;
        mismatch |= strcmp(argv[i], "--mismatch") == 0;
    }
    int x = 1, y = 0;
    T_CHECK(rmp_allreduce(&x, &y, 1, RMP_INT32, RMP_SUM, rmp_comm_world()) == RMP_ERR_STATE,
            "allreduce before rmp_init");
    T_CHECK(rmp_barrier(rmp_comm_world()) == RMP_ERR_STATE, "barrier before rmp_init");
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "rmp_init: %s\n", rmp_strerror(rc));
        return 1;
    }
    world = rmp_comm_world();
    me = rmp_comm_rank(world);
    np = rmp_comm_size(world);
    if (quick)
        big = ((size_t)1 << 18) + 3;
    if (bad_algo) {
        rc = rmp_allreduce(&x, &y, 1, RMP_INT32, RMP_SUM, world);
        T_CHECK(rc == RMP_ERR_ARG, "unknown RMP_ALLREDUCE_ALGO: allreduce -> %s", rmp_strerror(rc));
        rmp_request_t req;
        rc = rmp_iallreduce(&x, &y, 1, RMP_INT32, RMP_SUM, world, &req);
        T_CHECK(rc == RMP_ERR_ARG, "unknown RMP_ALLREDUCE_ALGO: iallreduce -> %s",
                rmp_strerror(rc));
        RC_CHECK(rmp_bcast(&x, 1, RMP_INT32, 0, world), "bcast", "(bad allreduce algorithm)");
        return t_finish();
    }
    if (mismatch) {
        if (np > 1)
            test_mismatch();
        return t_finish();
    }
    test_errors();
    test_barrier();
    run_reductions(world);
    run_movers(world);
    run_big(world);
    run_bitwise(world, quick);
    if (big_matrix)
        run_big_matrix(world);
    test_segments(expect_shm);
    /* The wildcard receive of test_nonblocking must not see other traffic on the world
     * (t_finish's messages from ranks that are done): a communicator of its own. */
    rmp_comm_t dup = RMP_COMM_NULL;
    RC_CHECK(rmp_comm_dup(world, &dup), "comm_dup", "");
    test_nonblocking(dup);
    run_nonblocking_sets(world);
    test_split(quick);
    test_nonblocking(dup);
    RC_CHECK(rmp_comm_free(&dup), "comm_free", "");
    return t_finish();
}
