/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared option parsing, timing, data patterns and output for the rmp benchmarks and for
 * the MPI reference programs in benchmarks/mpi/. Nothing here calls rmp or MPI, so both
 * sides measure with exactly the same method and print exactly the same format (OSU style:
 * '#' header lines, then one "size value" row per message size). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Which default sizes and iteration counts to use (OSU micro-benchmark defaults). */
typedef enum {
    BENCH_P2P_LAT, /* ping-pong: sizes 0..4 MiB, 10000/1000 iterations */
    BENCH_P2P_BW,  /* windowed bandwidth: sizes 1..4 MiB, 100/20 iterations, window 64 */
    BENCH_RMA_LAT, /* put/get + flush: sizes 1..4 MiB, 10000/1000 iterations */
    BENCH_RMA_BW,  /* 64 nbi ops + flush: sizes 1..4 MiB, 100/20 iterations */
    BENCH_ATOMIC,  /* 8-byte atomics, 10000 iterations */
    BENCH_COLL     /* collectives: sizes dtsize..1 MiB, 1000/100 iterations */
} bench_kind_t;

typedef struct {
    bench_kind_t kind;
    size_t min_size, max_size;
    int iters, iters_large;   /* timed iterations for size <= / > large_threshold */
    int warmup, warmup_large; /* untimed iterations before them */
    size_t large_threshold;
    int window;        /* messages or operations in flight for bandwidth tests */
    const char *type;  /* -t: test variant (program specific) */
    const char *dtype; /* -T: datatype name for collectives */
    const char *op;    /* -o: reduction op name for collectives */
    int validate;      /* -c 0 disables the per-size validation pass (default on) */
} bench_opts_t;

void bench_defaults(bench_opts_t *o, bench_kind_t kind);
/* Parses -m MIN:MAX|MAX, -i, -x, -W (window), -t, -T, -o, -c, -h. Returns 0 to run,
 * 1 when help was printed (exit 0) and -1 on a bad option (exit 2). Messages are printed
 * only when verbose is non-zero (rank 0). type_help lists the valid -t values or is NULL. */
int bench_parse(int argc, char **argv, bench_opts_t *o, const char *prog,
                const char *type_help, int verbose);
int bench_iters(const bench_opts_t *o, size_t size);
int bench_warmup(const bench_opts_t *o, size_t size);
/* Size sequence: min, then doubling (0 is followed by 1), while <= max. */
size_t bench_first_size(const bench_opts_t *o);
size_t bench_next_size(size_t size);
/* First size for a collective: at least unit (datatype size times elements per rank). */
size_t bench_coll_first_size(const bench_opts_t *o, size_t unit);

double bench_now(void); /* seconds, CLOCK_MONOTONIC */

/* Page-aligned, zeroed and touched (so first-touch faults stay out of the timings);
 * exits on failure. */
void *bench_alloc(size_t bytes);
void bench_free(void *p);

/* Deterministic byte pattern depending on seed and position. bench_check returns the index
 * of the first mismatching byte or -1 when buf holds the pattern. */
uint32_t bench_seed(size_t size, int tag);
void bench_fill(void *buf, size_t bytes, uint32_t seed);
long bench_check(const void *buf, size_t bytes, uint32_t seed);

/* Output: "# <impl> <title> v0.1" and "# Size<column>", then rows "%-10zu%18.2f". */
void bench_header(const char *impl, const char *title, const char *column);
void bench_row(size_t size, double value);
/* Collective rows carry OSU's -f columns: average, minimum and maximum over the ranks of
 * each rank's mean time per call, and the iterations; the compare scripts read the max. */
#define BENCH_COLL_COLUMNS "       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations"
void bench_coll_row(size_t size, double avg, double min, double max, int iters);
void bench_comment(const char *text);

/* Datatypes for the collective tests, in the order of rmp_datatype_t. */
typedef enum {
    BDT_INT8, BDT_UINT8, BDT_INT16, BDT_UINT16, BDT_INT32, BDT_UINT32, BDT_INT64,
    BDT_UINT64, BDT_FLOAT16, BDT_BFLOAT16, BDT_FLOAT, BDT_DOUBLE, BDT_COUNT
} bench_dt_t;
typedef enum { BOP_SUM, BOP_MIN, BOP_MAX, BOP_COUNT } bench_op_t;

int bench_dt_parse(const char *name);  /* -1 when unknown */
int bench_op_parse(const char *name);  /* -1 when unknown */
const char *bench_dt_name(int dt);
size_t bench_dt_size(int dt);
/* Small integers stored exactly in every datatype (including float16/bfloat16). */
void bench_dt_set(int dt, void *buf, size_t i, int value);
double bench_dt_get(int dt, const void *buf, size_t i);
/* Contribution of a rank to element i of a reduction (1..5: sums over up to 25 ranks stay
 * exact even in int8 and bfloat16), and the expected reduced value over nranks ranks. */
int bench_red_value(int rank, size_t i);
double bench_red_expect(int op, int nranks, size_t i);
/* Fill count elements with bench_red_value(rank, i + first); check a result of count
 * elements against bench_red_expect; returns the first bad index or -1. */
void bench_red_fill(int dt, void *buf, size_t count, int rank, size_t first);
long bench_red_check(int dt, int op, const void *buf, size_t count, int nranks, size_t first);

#endif /* BENCH_COMMON_H */
