/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI reference for the rmp one-sided benchmarks:
 * -t put_latency|get_latency|put_bw|get_bw|atomic (atomic prints "# fetch_add" and
 * "# cswap" sections; fadd or cswap alone also accepted). Passive target: the window is
 * allocated once and locked with MPI_Win_lock_all; every operation is completed with
 * MPI_Win_flush, like rmp_put + rmp_win_flush. */
#include "bench_mpi.h"

#define NCHECK 2

enum { T_PUT_LAT, T_GET_LAT, T_PUT_BW, T_GET_BW, T_ATOMIC, T_FADD, T_CSWAP, T_N };
static const char *const type_names[T_N] = {"put_latency", "get_latency", "put_bw", "get_bw",
                                             "atomic", "fadd", "cswap"};

/* Target writes its window (or origin writes remotely), then the other side reads it. */
static void validate(bench_mpi_t *b, int type, char *lbuf, char *base, size_t size, MPI_Win win)
{
    int n = type == T_PUT_LAT || type == T_GET_LAT ? 1 : NCHECK, isz = (int)size;
    int put = type == T_PUT_LAT || type == T_PUT_BW;
    long bad;
    if (b->rank == 1) {
        for (int j = 0; j < n; j++) {
            if (put)
                memset(base + j * size, 0, size);
            else
                bench_fill(base + j * size, size, bench_seed(size, 30 + j));
        }
    }
    MCK(MPI_Win_sync(win));
    MCK(MPI_Barrier(MPI_COMM_WORLD));
    if (b->rank == 0) {
        memset(lbuf, 0, n * size);
        for (int j = 0; j < n; j++) {
            if (put) {
                bench_fill(lbuf + j * size, size, bench_seed(size, 30 + j));
                MCK(MPI_Put(lbuf + j * size, isz, MPI_CHAR, 1, (MPI_Aint)(j * size), isz, MPI_CHAR, win));
            } else {
                MCK(MPI_Get(lbuf + j * size, isz, MPI_CHAR, 1, (MPI_Aint)(j * size), isz, MPI_CHAR, win));
            }
        }
        MCK(MPI_Win_flush(1, win));
        if (!put)
            for (int j = 0; j < n; j++)
                if ((bad = bench_check(lbuf + j * size, size, bench_seed(size, 30 + j))) >= 0)
                    bench_mpi_bad_data("data returned by get + flush", size, bad);
    }
    MCK(MPI_Barrier(MPI_COMM_WORLD));
    MCK(MPI_Win_sync(win));
    if (b->rank == 1 && put)
        for (int j = 0; j < n; j++)
            if ((bad = bench_check(base + j * size, size, bench_seed(size, 30 + j))) >= 0)
                bench_mpi_bad_data("window contents after put + flush", size, bad);
}

static void fop(uint64_t v, uint64_t *old, MPI_Win win)
{
    MCK(MPI_Fetch_and_op(&v, old, MPI_UINT64_T, 1, 0, MPI_SUM, win));
    MCK(MPI_Win_flush(1, win));
}

static void cas(uint64_t cmp, uint64_t swap, uint64_t *old, MPI_Win win)
{
    MCK(MPI_Compare_and_swap(&swap, &cmp, old, MPI_UINT64_T, 1, 0, win));
    MCK(MPI_Win_flush(1, win));
}

static void validate_atomic(MPI_Win win)
{
    uint64_t v0, old;
    fop(0, &v0, win);
    for (uint64_t k = 0; k < 10; k++) {
        fop(1, &old, win);
        if (old != v0 + k)
            bench_mpi_bad_data("fetch_add old value", 8, (long)k);
    }
    cas(v0 + 10, 5, &old, win);
    if (old != v0 + 10)
        bench_mpi_bad_data("cswap (success) old value", 8, 0);
    cas(v0 + 10, 7, &old, win);
    if (old != 5)
        bench_mpi_bad_data("cswap (failure) old value", 8, 1);
    fop(0, &old, win);
    if (old != 5)
        bench_mpi_bad_data("value after failed cswap", 8, 2);
}

static void run_atomic(const bench_opts_t *o, int do_fadd, int do_cswap, MPI_Win win)
{
    int iters = bench_iters(o, 8), warm = bench_warmup(o, 8);
    uint64_t old, cur;
    double t0 = 0.0;
    if (o->validate)
        validate_atomic(win);
    if (do_fadd) {
        for (int i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = bench_now();
            fop(1, &old, win);
        }
        double t = bench_now() - t0;
        bench_comment("fetch_add");
        bench_row(8, t * 1e6 / iters);
    }
    if (do_cswap) {
        fop(0, &cur, win);
        for (int i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = bench_now();
            cas(cur, cur + 1, &old, win);
            cur = old == cur ? cur + 1 : old;
        }
        double t = bench_now() - t0;
        bench_comment("cswap");
        bench_row(8, t * 1e6 / iters);
    }
}

int main(int argc, char **argv)
{
    bench_mpi_t b;
    bench_opts_t o;
    int type = T_PUT_LAT;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-t"))
            for (int k = 0; k < T_N; k++)
                if (!strcmp(argv[i + 1], type_names[k]))
                    type = k;
    bench_defaults(&o, type == T_PUT_LAT || type == T_GET_LAT ? BENCH_RMA_LAT
                       : type == T_PUT_BW || type == T_GET_BW ? BENCH_RMA_BW
                                                              : BENCH_ATOMIC);
    int rc = bench_mpi_start(&b, &argc, &argv, &o, "mpi_rma",
                             "put_latency, get_latency, put_bw, get_bw, atomic, fadd, cswap", 2);
    if (rc >= 0)
        return rc;
    type = bench_mpi_type(&o, type_names, T_N, b.rank, "mpi_rma");
    if (type < 0) {
        MPI_Finalize();
        return 2;
    }

    size_t wbytes = type >= T_ATOMIC ? 64 : NCHECK * o.max_size;
    char *base, *lbuf = bench_alloc(wbytes);
    MPI_Win win;
    MCK(MPI_Win_allocate((MPI_Aint)wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, wbytes);
    MCK(MPI_Win_lock_all(0, win));
    MCK(MPI_Barrier(MPI_COMM_WORLD));

    static const char *const titles[] = {"Put Latency Test", "Get Latency Test",
                                         "Put Bandwidth Test", "Get Bandwidth Test"};
    if (b.rank == 0)
        bench_header("MPI", type >= T_ATOMIC ? "Atomic Latency Test" : titles[type],
                     type == T_PUT_BW || type == T_GET_BW ? "      Bandwidth (MB/s)"
                                                          : "          Latency (us)");
    if (type >= T_ATOMIC) {
        if (b.rank == 0)
            run_atomic(&o, type != T_CSWAP, type != T_FADD, win);
    } else {
        for (size_t size = bench_first_size(&o); size <= o.max_size; size = bench_next_size(size)) {
            int iters = bench_iters(&o, size), warm = bench_warmup(&o, size), isz = (int)size;
            if (o.validate)
                validate(&b, type, lbuf, base, size, win);
            MCK(MPI_Barrier(MPI_COMM_WORLD));
            if (b.rank != 0)
                continue;
            double t0 = 0.0;
            for (int i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                switch (type) {
                case T_PUT_LAT:
                    MCK(MPI_Put(lbuf, isz, MPI_CHAR, 1, 0, isz, MPI_CHAR, win));
                    break;
                case T_GET_LAT:
                    MCK(MPI_Get(lbuf, isz, MPI_CHAR, 1, 0, isz, MPI_CHAR, win));
                    break;
                case T_PUT_BW:
                    for (int j = 0; j < o.window; j++)
                        MCK(MPI_Put(lbuf, isz, MPI_CHAR, 1, 0, isz, MPI_CHAR, win));
                    break;
                default:
                    for (int j = 0; j < o.window; j++)
                        MCK(MPI_Get(lbuf, isz, MPI_CHAR, 1, 0, isz, MPI_CHAR, win));
                    break;
                }
                MCK(MPI_Win_flush(1, win));
            }
            double t = bench_now() - t0;
            if (type == T_PUT_LAT || type == T_GET_LAT)
                bench_row(size, t * 1e6 / iters);
            else
                bench_row(size, (double)size * o.window * iters / t / 1e6);
        }
    }
    MCK(MPI_Barrier(MPI_COMM_WORLD));
    MCK(MPI_Win_unlock_all(win));
    MCK(MPI_Win_free(&win));
    bench_free(lbuf);
    MPI_Finalize();
    return 0;
}
