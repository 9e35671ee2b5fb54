/* SPDX-License-Identifier: BSD-3-Clause */
/* The 2-rank single-copy allreduce (collectives/coll_shm_cma.c) under rrun.
 *   cma_test cma      every predefined op on every datatype it reduces, two
 *                     non-commutative user ops (one on RMP_OPAQUE(24)), in place and
 *                     not, at counts around the piece boundaries (64 KiB with
 *                     RMP_COLL_SHM_CHUNK=16k, RMP_COLL_SHM_CMA=1); each call must take
 *                     the single-copy path (one chunk number of the segment per call,
 *                     cross-memory attach agreed).
 *   cma_test nocma    the same calls where cross-memory attach is refused
 *                     (RMP_SHM_CMA=off): the chunked segment must run them instead.
 *   cma_test switch   default parameters: float sums just below, at and above
 *                     RMP_COLL_SHM_CMA's default; the path must change at the switch.
 *   cma_test mixed    the same with RMP_COLL_SHM_CMA=0 on every rank but 0: rank 0's
 *                     value applies (ranks that disagreed would wait for ever).
 *   cma_test any      the same calls at any rank count (3+: the other algorithms).
 * Results are compared with rmp_reduce_local(x0, x1) computed locally (the rank-order
 * reduction every rank must get), on the bytes that hold values (not padding); the input
 * must be left unchanged. Linked with the static library to look at the segment's state. */
#include <complex.h>
#include <rmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/t.h"
#include "collectives/coll_comm.h"
#include "collectives/coll_op.h"
#include "collectives/coll_shm_seg.h"

typedef struct {
    size_t off, len;
} seg_t;

typedef struct {
    rmp_datatype_t dt;
    const char *name;
    seg_t seg[2]; /* the value bytes of an element (len 0: unused) */
} type_t;

#define LD_BYTES (sizeof(long double) < 10 ? sizeof(long double) : 10) /* x87: 10 of 16 */
#define PAIR(T, name, dt) \
    {dt, name, {{0, sizeof(((T *)0)->v)}, {offsetof(T, i), sizeof(int)}}}

static const type_t types[] = {
    {RMP_INT8, "int8", {{0, 1}}},        {RMP_UINT8, "uint8", {{0, 1}}},
    {RMP_INT16, "int16", {{0, 2}}},      {RMP_UINT16, "uint16", {{0, 2}}},
    {RMP_INT32, "int32", {{0, 4}}},      {RMP_UINT32, "uint32", {{0, 4}}},
    {RMP_INT64, "int64", {{0, 8}}},      {RMP_UINT64, "uint64", {{0, 8}}},
    {RMP_FLOAT16, "float16", {{0, 2}}},  {RMP_BFLOAT16, "bfloat16", {{0, 2}}},
    {RMP_FLOAT, "float", {{0, 4}}},      {RMP_DOUBLE, "double", {{0, 8}}},
    {RMP_LONG_DOUBLE, "long_double", {{0, LD_BYTES}}},
    {RMP_C_FLOAT_COMPLEX, "float_complex", {{0, 8}}},
    {RMP_C_DOUBLE_COMPLEX, "double_complex", {{0, 16}}},
    {RMP_C_LONG_DOUBLE_COMPLEX, "long_double_complex",
     {{0, LD_BYTES}, {sizeof(long double), LD_BYTES}}},
    {RMP_C_BOOL, "bool", {{0, 1}}},
    PAIR(coll_float_int_t, "float_int", RMP_FLOAT_INT),
    PAIR(coll_double_int_t, "double_int", RMP_DOUBLE_INT),
    PAIR(coll_long_int_t, "long_int", RMP_LONG_INT),
    PAIR(coll_2int_t, "2int", RMP_2INT),
    PAIR(coll_short_int_t, "short_int", RMP_SHORT_INT),
    {RMP_LONG_DOUBLE_INT, "long_double_int",
     {{0, LD_BYTES}, {offsetof(coll_long_double_int_t, i), sizeof(int)}}},
};

static const rmp_op_t ops[] = {RMP_SUM,  RMP_PROD, RMP_MIN, RMP_MAX,    RMP_BAND,  RMP_BOR,
                               RMP_BXOR, RMP_LAND, RMP_LOR, RMP_LXOR, RMP_MINLOC, RMP_MAXLOC};

/* User ops must be associative, and these are not commutative: the first non-zero
 * operand (in is the left operand), */
static void op_first(const void *in, void *inout, size_t count, rmp_datatype_t dt, void *ctx)
{
    (void)dt;
    (void)ctx;
    const int32_t *a = in;
    int32_t *b = inout;
    for (size_t i = 0; i < count; i++)
        b[i] = a[i] != 0 ? a[i] : b[i];
}

/* and, on opaque elements (a multiple of 8 bytes), the composition of affine maps
 * x -> m x + c mod 2^32, one (m, c) per word: first the left one, then the right. */
static void op_affine(const void *in, void *inout, size_t count, rmp_datatype_t dt, void *ctx)
{
    (void)ctx;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (size_t i = 0; i < rmp_datatype_size(dt) / 8 * count; i++) {
        uint32_t am = (uint32_t)a[i], ac = (uint32_t)(a[i] >> 32);
        uint32_t bm = (uint32_t)b[i], bc = (uint32_t)(b[i] >> 32);
        b[i] = (uint64_t)(am * bm) | (uint64_t)(ac * bm + bc) << 32;
    }
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Rank r's input of element i: small values (no NaN, no overflow that differs by order),
 * every byte of the element written (padding zero). */
static void fill(char *buf, size_t count, rmp_datatype_t dt, size_t es, int r)
{
    uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(r + 1) + (uint64_t)dt;
    memset(buf, 0, count * es);
    for (size_t i = 0; i < count; i++) {
        char *e = buf + i * es;
        int v = (int)(rnd(&s) % 9) - 3, idx = (int)(rnd(&s) % 5);
        switch (dt) {
        case RMP_FLOAT16: {
            uint16_t h = (uint16_t)((rnd(&s) & 0x83ffu) | ((10u + rnd(&s) % 10u) << 10));
            memcpy(e, &h, 2);
            break;
        }
        case RMP_BFLOAT16: {
            uint16_t h = (uint16_t)((rnd(&s) & 0x807fu) | ((120u + rnd(&s) % 10u) << 7));
            memcpy(e, &h, 2);
            break;
        }
        case RMP_FLOAT: *(float *)e = (float)v * 0.75f; break;
        case RMP_DOUBLE: *(double *)e = v * 0.375; break;
        case RMP_LONG_DOUBLE: *(long double *)e = v * 0.125L; break;
        case RMP_C_FLOAT_COMPLEX: *(float complex *)e = v + idx * I; break;
        case RMP_C_DOUBLE_COMPLEX: *(double complex *)e = v - idx * I; break;
        case RMP_C_LONG_DOUBLE_COMPLEX: *(long double complex *)e = idx + v * I; break;
        case RMP_C_BOOL: *(bool *)e = v > 0; break;
        case RMP_FLOAT_INT: *(coll_float_int_t *)e = (coll_float_int_t){(float)v, idx}; break;
        case RMP_DOUBLE_INT: *(coll_double_int_t *)e = (coll_double_int_t){v, idx}; break;
        case RMP_LONG_INT: *(coll_long_int_t *)e = (coll_long_int_t){v, idx}; break;
        case RMP_2INT: *(coll_2int_t *)e = (coll_2int_t){v, idx}; break;
        case RMP_SHORT_INT: *(coll_short_int_t *)e = (coll_short_int_t){(short)v, idx}; break;
        case RMP_LONG_DOUBLE_INT:
            *(coll_long_double_int_t *)e = (coll_long_double_int_t){v, idx};
            break;
        default: { /* integers and opaque: any bits */
            for (size_t b = 0; b < es; b += 8) {
                uint64_t x = rnd(&s);
                memcpy(e + b, &x, es - b < 8 ? es - b : 8);
            }
        }
        }
    }
}

static int same(const char *a, const char *b, size_t count, size_t es, const seg_t *seg,
                size_t *at)
{
    for (size_t i = 0; i < count; i++)
        for (int k = 0; k < 2; k++)
            if (seg[k].len && memcmp(a + i * es + seg[k].off, b + i * es + seg[k].off,
                                     seg[k].len) != 0) {
                *at = i;
                return 0;
            }
    return 1;
}

static const char *mode;
static int rank, size, any_path; /* any_path: no path expected (elements beyond a slot) */

static coll_shm_t *seg_of(void)
{
    coll_comm_t *cc = rmp_comm_world()->coll_priv;
    return cc ? cc->shm : NULL;
}

/* One allreduce of count elements, checked; the path too where the mode says which. */
static void one(rmp_datatype_t dt, const char *tname, const seg_t *seg, rmp_op_t op,
                const char *oname, size_t count, int in_place)
{
    size_t es = rmp_datatype_size(dt), bytes = count * es;
    char *x0 = malloc(bytes), *x1 = malloc(bytes), *sb = malloc(bytes), *rb = malloc(bytes);
    if (!x0 || !x1 || !sb || !rb) {
        T_CHECK(0, "out of memory at %zu bytes", bytes);
        goto out;
    }
    /* The expected: x0 op x1 op ... in rank order, locally. */
    fill(x0, count, dt, es, 0);
    for (int r = 1; r < size; r++) {
        fill(x1, count, dt, es, r);
        T_RC(rmp_reduce_local(x0, x1, count, dt, op));
        memcpy(x0, x1, bytes);
    }
    fill(sb, count, dt, es, rank);
    memset(rb, 0x5a, bytes);
    if (in_place)
        memcpy(rb, sb, bytes);
    coll_shm_t *s = seg_of();
    uint64_t seq0 = s ? s->seq : 0;
    int rc = rmp_allreduce(in_place ? RMP_IN_PLACE : sb, rb, count, dt, op, rmp_comm_world());
    T_CHECK(rc == RMP_SUCCESS, "%s %s count %zu%s: %s", tname, oname, count,
            in_place ? " in place" : "", rmp_strerror(rc));
    size_t at = 0;
    T_CHECK(same(rb, x0, count, es, seg, &at), "%s %s count %zu%s: element %zu differs", tname,
            oname, count, in_place ? " in place" : "", at);
    if (!in_place) {
        fill(x1, count, dt, es, rank);
        T_CHECK(memcmp(sb, x1, bytes) == 0, "%s %s count %zu: the input changed", tname, oname,
                count);
    }
    s = seg_of();
    if (any_path) {
    } else if (strcmp(mode, "cma") == 0) {
        T_CHECK(s && s->cma == 1 && s->seq == seq0 + 1,
                "%s %s count %zu: not the single-copy path (cma %d, %llu chunk numbers)", tname,
                oname, count, s ? s->cma : 0, s ? (unsigned long long)(s->seq - seq0) : 0ull);
    } else if (strcmp(mode, "nocma") == 0) {
        size_t chunks = s && bytes > 4096 ? (bytes + s->chunk / es * es - 1) / (s->chunk / es * es)
                                          : 1;
        T_CHECK(s && s->cma == -1 && s->seq == seq0 + chunks,
                "%s %s count %zu: not the chunked segment (cma %d, %llu chunk numbers, want "
                "%zu)",
                tname, oname, count, s ? s->cma : 0,
                s ? (unsigned long long)(s->seq - seq0) : 0ull, chunks);
    } else if (size != 2) {
        T_CHECK(!s || s->cma == 0, "%d ranks: cross-memory attach tried (cma %d)", size, s->cma);
    }
out:
    free(x0);
    free(x1);
    free(sb);
    free(rb);
}

/* Counts around the piece boundaries: a rank's half is lo..hi of coll_blocks_even, so a
 * vector of 2 m pieces gives each rank exactly m; +-1 element moves the boundary. */
static void counts_of(size_t es, size_t *c, int *nc)
{
    /* Elements per piece at RMP_COLL_SHM_CHUNK=16k: 4 slots (CMA_SLOTS). */
    size_t piece = 65536 / es;
    size_t base[] = {1, 2, 3, 2 * piece - 1, 2 * piece, 2 * piece + 1, 4 * piece + 3};
    *nc = 0;
    for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
        c[(*nc)++] = base[i];
}

int main(int argc, char **argv)
{
    mode = argc > 1 ? argv[1] : "any";
    const char *pr = getenv("PMIX_RANK");
    if (strcmp(mode, "mixed") == 0 && pr && atoi(pr) != 0)
        setenv("RMP_COLL_SHM_CMA", "0", 1); /* rank 0's value must apply everywhere */
    T_RC(rmp_init(&argc, &argv));
    rmp_comm_t w = rmp_comm_world();
    rank = rmp_comm_rank(w);
    size = rmp_comm_size(w);
    /* The shared segment is made at the sixth collective that wants it (coll_shm.c): the
     * paths checked below are those of a communicator past that point. */
    for (int i = 0; i < 6; i++) {
        int32_t x = 1, y = 0;
        T_RC(rmp_allreduce(&x, &y, 1, RMP_INT32, RMP_SUM, w));
    }
    if (strcmp(mode, "switch") == 0 || strcmp(mode, "mixed") == 0) {
        /* RMP_COLL_SHM_CMA's default is 256k: float sums from 256k - 4 to 256k + 4. */
        static const seg_t f[2] = {{0, 4}};
        for (size_t bytes = (256u << 10) - 4; bytes <= (256u << 10) + 4; bytes += 4) {
            coll_shm_t *s = seg_of();
            uint64_t seq0 = s ? s->seq : 0;
            one(RMP_FLOAT, "float", f, RMP_SUM, "sum", bytes / 4, 0);
            s = seg_of();
            uint64_t used = s ? s->seq - seq0 : 0;
            /* Below the switch: the chunked segment, and no attempt at attaching yet (the
             * slot may be 512 KiB where ranks outnumber cores: one chunk then). */
            size_t per = s ? s->chunk / 4 * 4 : 1;
            if (bytes < (256u << 10))
                T_CHECK(s && s->cma == 0 && used == (bytes + per - 1) / per,
                        "%zu bytes: %llu chunk numbers (cma %d), want the chunked segment", bytes,
                        (unsigned long long)used, s ? s->cma : 0);
            else
                T_CHECK(s && s->cma == 1 && used == 1,
                        "%zu bytes: %llu chunk numbers (cma %d), want the single-copy path",
                        bytes, (unsigned long long)used, s ? s->cma : 0);
        }
        return t_finish();
    }
    rmp_op_t first, opq;
    T_RC(rmp_op_create(op_first, NULL, 0, &first));
    T_RC(rmp_op_create(op_affine, NULL, 0, &opq));
    size_t c[16];
    int nc;
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        size_t es = rmp_datatype_size(types[t].dt);
        counts_of(es, c, &nc);
        for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
            if (rmp_op_check(types[t].dt, ops[o]) != RMP_SUCCESS)
                continue;
            char oname[16];
            snprintf(oname, sizeof(oname), "op %d", (int)ops[o]);
            for (int i = 0; i < nc; i++)
                for (int ip = 0; ip < 2; ip++)
                    one(types[t].dt, types[t].name, types[t].seg, ops[o], oname, c[i], ip);
        }
    }
    static const seg_t i4[2] = {{0, 4}}, o24[2] = {{0, 24}};
    counts_of(4, c, &nc);
    for (int i = 0; i < nc; i++)
        for (int ip = 0; ip < 2; ip++)
            one(RMP_INT32, "int32", i4, first, "user first non-zero", c[i], ip);
    counts_of(24, c, &nc);
    for (int i = 0; i < nc; i++)
        for (int ip = 0; ip < 2; ip++)
            one(RMP_OPAQUE(24), "opaque24", o24, opq, "user affine", c[i], ip);
    /* Elements larger than a slot (16 KiB here, 64 KiB by default) cannot be cut into
     * pieces: another algorithm runs them, in rank order. */
    static const seg_t big[2] = {{0, 80000}};
    any_path = 1;
    for (size_t n = 1; n <= 3; n += 2)
        for (int ip = 0; ip < 2; ip++)
            one(RMP_OPAQUE(80000), "opaque80000", big, opq, "user affine", n, ip);
    /* And reduce_scatter (its pieces are a slot / n): block r is x0 op x1 ... of block r. */
    for (int ip = 0; ip < 2; ip++) {
        size_t es = 80000, cnt = 2, bytes = cnt * es;
        char *in = calloc((size_t)size, bytes), *want = malloc(bytes), *x = malloc(bytes),
             *out = calloc((size_t)size, bytes);
        if (!in || !want || !x || !out) {
            T_CHECK(0, "out of memory");
        } else {
            for (int r = 0; r < size; r++) {
                fill(x, cnt, RMP_OPAQUE(80000), es, r * 31 + rank); /* block rank of rank r */
                if (r == 0)
                    memcpy(want, x, bytes);
                else {
                    T_RC(rmp_reduce_local(want, x, cnt, RMP_OPAQUE(80000), opq));
                    memcpy(want, x, bytes);
                }
            }
            for (int b = 0; b < size; b++)
                fill(in + (size_t)b * bytes, cnt, RMP_OPAQUE(80000), es, rank * 31 + b);
            if (ip)
                memcpy(out, in, (size_t)size * bytes);
            T_RC(rmp_reduce_scatter(ip ? RMP_IN_PLACE : in, out, cnt, RMP_OPAQUE(80000), opq,
                                    rmp_comm_world()));
            T_CHECK(memcmp(out, want, bytes) == 0, "reduce_scatter of 80000-byte elements%s: "
                    "wrong block", ip ? " in place" : "");
        }
        free(in);
        free(want);
        free(x);
        free(out);
    }
    T_RC(rmp_op_free(&first));
    T_RC(rmp_op_free(&opq));
    return t_finish();
}
