/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared benchmark helpers; see bench_common.h. */
#include "bench_common.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void bench_defaults(bench_opts_t *o, bench_kind_t kind)
{
    memset(o, 0, sizeof(*o));
    o->kind = kind;
    o->max_size = (size_t)4 << 20;
    o->large_threshold = 8192;
    o->window = 64;
    o->validate = 1;
    o->dtype = "float";
    o->op = "sum";
    switch (kind) {
    case BENCH_P2P_LAT:
    case BENCH_RMA_LAT:
        o->min_size = kind == BENCH_P2P_LAT ? 0 : 1;
        o->iters = 10000, o->iters_large = 1000;
        o->warmup = 1000, o->warmup_large = 10;
        break;
    case BENCH_P2P_BW:
    case BENCH_RMA_BW:
        o->min_size = 1;
        o->iters = 100, o->iters_large = 20;
        o->warmup = 10, o->warmup_large = 2;
        break;
    case BENCH_ATOMIC:
        o->min_size = o->max_size = 8;
        o->iters = o->iters_large = 10000;
        o->warmup = o->warmup_large = 1000;
        break;
    case BENCH_COLL:
        o->min_size = 1; /* raised to the datatype size by the program */
        o->max_size = (size_t)1 << 20;
        o->iters = 1000, o->iters_large = 100;
        o->warmup = 100, o->warmup_large = 10;
        break;
    }
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    switch (*end) {
    case 'k': case 'K': v <<= 10, end++; break;
    case 'm': case 'M': v <<= 20, end++; break;
    case 'g': case 'G': v <<= 30, end++; break;
    default: break;
    }
    if (*end != '\0' && *end != ':')
        return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 1000000000)
        return -1;
    *out = (int)v;
    return 0;
}

static void usage(const char *prog, const bench_opts_t *o, const char *type_help)
{
    printf("Usage: %s [options]\n"
           "  -m [MIN:]MAX  message sizes in bytes, powers of two from MIN (K/M suffixes;"
           " default %zu:%zu)\n"
           "  -i ITERS      timed iterations for every size (default %d, %d above %zu B)\n"
           "  -x WARMUP     untimed iterations for every size (default %d, %d above %zu B)\n",
           prog, o->min_size, o->max_size, o->iters, o->iters_large, o->large_threshold,
           o->warmup, o->warmup_large, o->large_threshold);
    if (o->kind == BENCH_P2P_BW || o->kind == BENCH_RMA_BW)
        printf("  -W WINDOW     messages in flight per iteration (default %d)\n", o->window);
    if (type_help)
        printf("  -t TYPE       test variant: %s\n", type_help);
    if (o->kind == BENCH_COLL)
        printf("  -T DTYPE      int8,uint8,int16,uint16,int32,uint32,int64,uint64,float16,"
               "bfloat16,float,double (default float)\n"
               "  -o OP         sum,min,max (default sum)\n");
    printf("  -c 0|1        validate received data once per size, untimed (default 1)\n"
           "  -h            this help\n");
}

int bench_parse(int argc, char **argv, bench_opts_t *o, const char *prog,
                const char *type_help, int verbose)
{
    int c, v;
    optind = 1;
    opterr = verbose;
    while ((c = getopt(argc, argv, "m:i:x:W:t:T:o:c:h")) != -1) {
        switch (c) {
        case 'm': {
            const char *colon = strchr(optarg, ':');
            size_t lo = o->min_size, hi;
            if (colon) {
                if (parse_size(optarg, &lo) || parse_size(colon + 1, &hi))
                    goto bad;
            } else if (parse_size(optarg, &hi)) {
                goto bad;
            }
            if (lo > hi)
                goto bad;
            o->min_size = lo, o->max_size = hi;
            break;
        }
        case 'i':
            if (parse_int(optarg, &v) || v == 0)
                goto bad;
            o->iters = o->iters_large = v;
            break;
        case 'x':
            if (parse_int(optarg, &v))
                goto bad;
            o->warmup = o->warmup_large = v;
            break;
        case 'W':
            if (parse_int(optarg, &v) || v == 0)
                goto bad;
            o->window = v;
            break;
        case 't': o->type = optarg; break;
        case 'T':
            if (bench_dt_parse(optarg) < 0)
                goto bad;
            o->dtype = optarg;
            break;
        case 'o':
            if (bench_op_parse(optarg) < 0)
                goto bad;
            o->op = optarg;
            break;
        case 'c':
            if (parse_int(optarg, &v))
                goto bad;
            o->validate = v != 0;
            break;
        case 'h':
            if (verbose)
                usage(prog, o, type_help);
            return 1;
        default:
            goto bad_nomsg;
        }
    }
    if (optind < argc) {
        if (verbose)
            fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
        goto bad_nomsg;
    }
    return 0;
bad:
    if (verbose)
        fprintf(stderr, "%s: bad value '%s' for -%c\n", prog, optarg, c);
bad_nomsg:
    if (verbose)
        usage(prog, o, type_help);
    return -1;
}

int bench_iters(const bench_opts_t *o, size_t size)
{
    return size > o->large_threshold ? o->iters_large : o->iters;
}

int bench_warmup(const bench_opts_t *o, size_t size)
{
    return size > o->large_threshold ? o->warmup_large : o->warmup;
}

size_t bench_first_size(const bench_opts_t *o) { return o->min_size; }

size_t bench_next_size(size_t size) { return size ? size * 2 : 1; }

size_t bench_coll_first_size(const bench_opts_t *o, size_t unit)
{
    size_t s = o->min_size;
    if (s < unit) {
        s = 1;
        while (s < unit)
            s *= 2;
    }
    return s;
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void *bench_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0)
        bytes = 1;
    if (posix_memalign(&p, 4096, bytes)) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", bytes);
        exit(1);
    }
    memset(p, 0, bytes);
    return p;
}

void bench_free(void *p) { free(p); }

uint32_t bench_seed(size_t size, int tag)
{
    uint64_t x = (uint64_t)size * 0x9e3779b97f4a7c15ull + (uint64_t)(unsigned)tag * 0xbf58476d1ce4e5b9ull;
    x ^= x >> 31;
    return (uint32_t)(x ^ (x >> 32)) | 1u;
}

/* Word i holds a mix of seed and i, so shifted, swapped or stale data is caught. */
static inline uint64_t pattern_word(uint32_t seed, size_t i)
{
    uint64_t x = ((uint64_t)seed << 32) ^ (uint64_t)i * 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return x * 0xbf58476d1ce4e5b9ull + seed;
}

void bench_fill(void *buf, size_t bytes, uint32_t seed)
{
    unsigned char *b = buf;
    size_t i;
    for (i = 0; i + 8 <= bytes; i += 8) {
        uint64_t w = pattern_word(seed, i / 8);
        memcpy(b + i, &w, 8);
    }
    if (i < bytes) {
        uint64_t w = pattern_word(seed, i / 8);
        memcpy(b + i, &w, bytes - i);
    }
}

long bench_check(const void *buf, size_t bytes, uint32_t seed)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t w = pattern_word(seed, i / 8);
        size_t n = bytes - i < 8 ? bytes - i : 8;
        if (memcmp(b + i, &w, n)) {
            const unsigned char *e = (const unsigned char *)&w;
            for (size_t j = 0; j < n; j++)
                if (b[i + j] != e[j])
                    return (long)(i + j);
        }
    }
    return -1;
}

void bench_header(const char *impl, const char *title, const char *column)
{
    printf("# %s %s v0.1\n# Size%s\n", impl, title, column);
    fflush(stdout);
}

void bench_row(size_t size, double value)
{
    printf("%-10zu%18.2f\n", size, value);
    fflush(stdout);
}

void bench_coll_row(size_t size, double avg, double min, double max, int iters)
{
    printf("%-10zu%18.2f%18.2f%18.2f%12d\n", size, avg, min, max, iters);
    fflush(stdout);
}

void bench_comment(const char *text)
{
    printf("# %s\n", text);
    fflush(stdout);
}

/* ---- datatypes ---- */

static const struct {
    const char *name;
    size_t size;
} dt_table[BDT_COUNT] = {
    [BDT_INT8] = {"int8", 1},         [BDT_UINT8] = {"uint8", 1},
    [BDT_INT16] = {"int16", 2},       [BDT_UINT16] = {"uint16", 2},
    [BDT_INT32] = {"int32", 4},       [BDT_UINT32] = {"uint32", 4},
    [BDT_INT64] = {"int64", 8},       [BDT_UINT64] = {"uint64", 8},
    [BDT_FLOAT16] = {"float16", 2},   [BDT_BFLOAT16] = {"bfloat16", 2},
    [BDT_FLOAT] = {"float", 4},       [BDT_DOUBLE] = {"double", 8},
};

static const char *const op_names[BOP_COUNT] = {"sum", "min", "max"};

int bench_dt_parse(const char *name)
{
    for (int i = 0; i < BDT_COUNT; i++)
        if (!strcmp(name, dt_table[i].name))
            return i;
    if (!strcmp(name, "int"))
        return BDT_INT32;
    if (!strcmp(name, "half") || !strcmp(name, "fp16"))
        return BDT_FLOAT16;
    if (!strcmp(name, "bf16"))
        return BDT_BFLOAT16;
    return -1;
}

int bench_op_parse(const char *name)
{
    for (int i = 0; i < BOP_COUNT; i++)
        if (!strcmp(name, op_names[i]))
            return i;
    return -1;
}

const char *bench_dt_name(int dt) { return dt >= 0 && dt < BDT_COUNT ? dt_table[dt].name : "?"; }

size_t bench_dt_size(int dt) { return dt >= 0 && dt < BDT_COUNT ? dt_table[dt].size : 0; }

static float bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t float_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Exact for the small integers used here (normal numbers, no rounding needed). */
static uint16_t float_to_half(float f)
{
    uint32_t u = float_to_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    int exp = (int)((u >> 23) & 0xff);
    uint32_t mant = u & 0x7fffffu;
    if (exp == 0)
        return (uint16_t)sign;
    return (uint16_t)(sign | (uint32_t)(exp - 127 + 15) << 10 | mant >> 13);
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
    if (exp == 0 && mant == 0)
        return bits_to_float(sign);
    if (exp == 0) { /* subnormal */
        float v = (float)mant / 1024.0f / 16384.0f;
        return sign ? -v : v;
    }
    if (exp == 31)
        return bits_to_float(sign | 0x7f800000u | mant << 13);
    return bits_to_float(sign | (exp - 15 + 127) << 23 | mant << 13);
}

void bench_dt_set(int dt, void *buf, size_t i, int value)
{
    switch (dt) {
    case BDT_INT8: ((int8_t *)buf)[i] = (int8_t)value; break;
    case BDT_UINT8: ((uint8_t *)buf)[i] = (uint8_t)value; break;
    case BDT_INT16: ((int16_t *)buf)[i] = (int16_t)value; break;
    case BDT_UINT16: ((uint16_t *)buf)[i] = (uint16_t)value; break;
    case BDT_INT32: ((int32_t *)buf)[i] = value; break;
    case BDT_UINT32: ((uint32_t *)buf)[i] = (uint32_t)value; break;
    case BDT_INT64: ((int64_t *)buf)[i] = value; break;
    case BDT_UINT64: ((uint64_t *)buf)[i] = (uint64_t)value; break;
    case BDT_FLOAT16: ((uint16_t *)buf)[i] = float_to_half((float)value); break;
    case BDT_BFLOAT16: ((uint16_t *)buf)[i] = (uint16_t)(float_to_bits((float)value) >> 16); break;
    case BDT_FLOAT: ((float *)buf)[i] = (float)value; break;
    case BDT_DOUBLE: ((double *)buf)[i] = (double)value; break;
    default: break;
    }
}

double bench_dt_get(int dt, const void *buf, size_t i)
{
    switch (dt) {
    case BDT_INT8: return ((const int8_t *)buf)[i];
    case BDT_UINT8: return ((const uint8_t *)buf)[i];
    case BDT_INT16: return ((const int16_t *)buf)[i];
    case BDT_UINT16: return ((const uint16_t *)buf)[i];
    case BDT_INT32: return ((const int32_t *)buf)[i];
    case BDT_UINT32: return ((const uint32_t *)buf)[i];
    case BDT_INT64: return (double)((const int64_t *)buf)[i];
    case BDT_UINT64: return (double)((const uint64_t *)buf)[i];
    case BDT_FLOAT16: return half_to_float(((const uint16_t *)buf)[i]);
    case BDT_BFLOAT16: return bits_to_float((uint32_t)((const uint16_t *)buf)[i] << 16);
    case BDT_FLOAT: return ((const float *)buf)[i];
    case BDT_DOUBLE: return ((const double *)buf)[i];
    default: return 0.0;
    }
}

int bench_red_value(int rank, size_t i) { return (int)(i % 3) + rank % 3 + 1; }

double bench_red_expect(int op, int nranks, size_t i)
{
    double acc = bench_red_value(0, i);
    for (int r = 1; r < nranks; r++) {
        double v = bench_red_value(r, i);
        if (op == BOP_SUM)
            acc += v;
        else if (op == BOP_MIN)
            acc = v < acc ? v : acc;
        else
            acc = v > acc ? v : acc;
    }
    return acc;
}

void bench_red_fill(int dt, void *buf, size_t count, int rank, size_t first)
{
    for (size_t i = 0; i < count; i++)
        bench_dt_set(dt, buf, i, bench_red_value(rank, i + first));
}

long bench_red_check(int dt, int op, const void *buf, size_t count, int nranks, size_t first)
{
    for (size_t i = 0; i < count; i++)
        if (bench_dt_get(dt, buf, i) != bench_red_expect(op, nranks, i + first))
            return (long)i;
    return -1;
}
