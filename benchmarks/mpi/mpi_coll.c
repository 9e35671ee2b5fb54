/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI reference for the rmp collective benchmarks:
 * -t allreduce|bcast|barrier|allgather|reduce_scatter|alltoall, same sizes, datatypes
 * (-T; float16/bfloat16 are not MPI datatypes), validation, timing and output. */
#include "bench_mpi.h"

enum { T_ALLREDUCE, T_BCAST, T_BARRIER, T_ALLGATHER, T_REDUCE_SCATTER, T_ALLTOALL, T_N };
static const char *const type_names[T_N] = {"allreduce", "bcast", "barrier",
                                             "allgather", "reduce_scatter", "alltoall"};
static const char *const titles[T_N] = {"Allreduce Latency Test", "Broadcast Latency Test",
                                        "Barrier Latency Test", "Allgather Latency Test",
                                        "Reduce_scatter Latency Test", "All-to-All Latency Test"};

static MPI_Datatype mpi_dt(int dt)
{
    switch (dt) {
    case BDT_INT8: return MPI_INT8_T;
    case BDT_UINT8: return MPI_UINT8_T;
    case BDT_INT16: return MPI_INT16_T;
    case BDT_UINT16: return MPI_UINT16_T;
    case BDT_INT32: return MPI_INT32_T;
    case BDT_UINT32: return MPI_UINT32_T;
    case BDT_INT64: return MPI_INT64_T;
    case BDT_UINT64: return MPI_UINT64_T;
    case BDT_FLOAT: return MPI_FLOAT;
    case BDT_DOUBLE: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

static MPI_Op mpi_op(int op) { return op == BOP_MIN ? MPI_MIN : op == BOP_MAX ? MPI_MAX : MPI_SUM; }

static void report(const bench_mpi_t *b, size_t size, double my_us, int iters)
{
    double sum = 0.0, min = 0.0, max = 0.0;
    MCK(MPI_Reduce(&my_us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    MCK(MPI_Reduce(&my_us, &min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD));
    MCK(MPI_Reduce(&my_us, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    if (b->rank == 0)
        bench_coll_row(size, sum / b->size, min, max, iters);
}

/* One call of the collective with count elements (per rank where applicable). */
static int coll(int type, char *sbuf, char *rbuf, int count, MPI_Datatype dt, MPI_Op op)
{
    switch (type) {
    case T_ALLREDUCE: return MPI_Allreduce(sbuf, rbuf, count, dt, op, MPI_COMM_WORLD);
    case T_BCAST: return MPI_Bcast(sbuf, count, dt, 0, MPI_COMM_WORLD);
    case T_ALLGATHER: return MPI_Allgather(sbuf, count, dt, rbuf, count, dt, MPI_COMM_WORLD);
    case T_REDUCE_SCATTER: return MPI_Reduce_scatter_block(sbuf, rbuf, count, dt, op, MPI_COMM_WORLD);
    case T_ALLTOALL: return MPI_Alltoall(sbuf, count, dt, rbuf, count, dt, MPI_COMM_WORLD);
    default: return MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void validate(const bench_mpi_t *b, int type, char *sbuf, char *rbuf, size_t size,
                     size_t count, int dt, int op)
{
    size_t np = (size_t)b->size, esz = bench_dt_size(dt), bytes = count * esz;
    long bad = -1;
    switch (type) {
    case T_ALLREDUCE:
        memset(rbuf, 0, bytes);
        MCK(coll(type, sbuf, rbuf, (int)count, mpi_dt(dt), mpi_op(op)));
        if ((bad = bench_red_check(dt, op, rbuf, count, b->size, 0)) >= 0)
            bench_mpi_bad_data("allreduce result", size, bad);
        break;
    case T_REDUCE_SCATTER:
        memset(rbuf, 0, bytes);
        MCK(coll(type, sbuf, rbuf, (int)count, mpi_dt(dt), mpi_op(op)));
        if ((bad = bench_red_check(dt, op, rbuf, count, b->size, count * (size_t)b->rank)) >= 0)
            bench_mpi_bad_data("reduce_scatter result", size, bad);
        break;
    case T_BCAST:
        if (b->rank == 0)
            bench_fill(sbuf, bytes, bench_seed(size, 40));
        else
            memset(sbuf, 0, bytes);
        MCK(coll(type, sbuf, rbuf, (int)count, mpi_dt(dt), MPI_OP_NULL));
        if ((bad = bench_check(sbuf, bytes, bench_seed(size, 40))) >= 0)
            bench_mpi_bad_data("broadcast data", size, bad);
        break;
    case T_ALLGATHER:
        bench_fill(sbuf, bytes, bench_seed(size, 100 + b->rank));
        memset(rbuf, 0, np * bytes);
        MCK(coll(type, sbuf, rbuf, (int)count, mpi_dt(dt), MPI_OP_NULL));
        for (size_t r = 0; r < np; r++)
            if ((bad = bench_check(rbuf + r * bytes, bytes, bench_seed(size, 100 + (int)r))) >= 0)
                bench_mpi_bad_data("allgather block", size, (long)(r * bytes) + bad);
        break;
    case T_ALLTOALL:
        for (size_t j = 0; j < np; j++)
            bench_fill(sbuf + j * bytes, bytes, bench_seed(size, (int)(1000 * b->rank + j)));
        memset(rbuf, 0, np * bytes);
        MCK(coll(type, sbuf, rbuf, (int)count, mpi_dt(dt), MPI_OP_NULL));
        for (size_t j = 0; j < np; j++)
            if ((bad = bench_check(rbuf + j * bytes, bytes, bench_seed(size, (int)(1000 * j + b->rank)))) >= 0)
                bench_mpi_bad_data("alltoall block", size, (long)(j * bytes) + bad);
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    bench_mpi_t b;
    bench_opts_t o;
    int type = T_ALLREDUCE;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-t"))
            for (int k = 0; k < T_N; k++)
                if (!strcmp(argv[i + 1], type_names[k]))
                    type = k;
    bench_defaults(&o, BENCH_COLL);
    if (type == T_BCAST || type == T_ALLGATHER || type == T_ALLTOALL)
        o.dtype = "uint8"; /* data movement only: sizes from 1 byte, like OSU */
    int rc = bench_mpi_start(&b, &argc, &argv, &o, "mpi_coll",
                             "allreduce, bcast, barrier, allgather, reduce_scatter, alltoall", 1);
    if (rc >= 0)
        return rc;
    type = bench_mpi_type(&o, type_names, T_N, b.rank, "mpi_coll");
    int dt = bench_dt_parse(o.dtype), op = bench_op_parse(o.op);
    if (type >= 0 && type != T_BARRIER && mpi_dt(dt) == MPI_DATATYPE_NULL) {
        if (b.rank == 0)
            fprintf(stderr, "mpi_coll: datatype %s is not supported by MPI\n", o.dtype);
        type = -1;
    }
    if (type < 0) {
        MPI_Finalize();
        return 2;
    }
    size_t np = (size_t)b.size, esz = bench_dt_size(dt);
    int reduction = type == T_ALLREDUCE || type == T_REDUCE_SCATTER;
    if (b.rank == 0) {
        char line[128];
        bench_header("MPI", titles[type], BENCH_COLL_COLUMNS);
        if (type == T_BARRIER)
            snprintf(line, sizeof(line), "%d ranks", b.size);
        else
            snprintf(line, sizeof(line), "datatype %s%s%s, %d ranks", o.dtype,
                     reduction ? ", op " : "", reduction ? o.op : "", b.size);
        bench_comment(line);
    }

    if (type == T_BARRIER) {
        int iters = bench_iters(&o, 0), warm = bench_warmup(&o, 0);
        for (int i = 0; i < warm; i++)
            MCK(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = bench_now();
        for (int i = 0; i < iters; i++)
            MCK(MPI_Barrier(MPI_COMM_WORLD));
        report(&b, 0, (bench_now() - t0) * 1e6 / iters, iters);
        MPI_Finalize();
        return 0;
    }

    size_t factor = type == T_ALLGATHER || type == T_ALLTOALL ? np : 1;
    char *sbuf = bench_alloc((type == T_ALLTOALL ? np : 1) * o.max_size);
    char *rbuf = bench_alloc(factor * o.max_size);
    size_t unit = type == T_REDUCE_SCATTER ? esz * np : esz;
    for (size_t size = bench_coll_first_size(&o, unit); size <= o.max_size; size = bench_next_size(size)) {
        size_t count = type == T_REDUCE_SCATTER ? size / esz / np : size / esz;
        int iters = bench_iters(&o, size), warm = bench_warmup(&o, size);
        if (reduction)
            bench_red_fill(dt, sbuf, type == T_REDUCE_SCATTER ? count * np : count, b.rank, 0);
        if (o.validate)
            validate(&b, type, sbuf, rbuf, size, count, dt, op);
        MCK(MPI_Barrier(MPI_COMM_WORLD));
        double total = 0.0;
        for (int i = 0; i < warm + iters; i++) {
            double t0 = bench_now();
            MCK(coll(type, sbuf, rbuf, (int)count, mpi_dt(dt), mpi_op(op)));
            if (i >= warm)
                total += bench_now() - t0;
            MCK(MPI_Barrier(MPI_COMM_WORLD));
        }
        report(&b, size, total * 1e6 / iters, iters);
    }
    bench_free(sbuf);
    bench_free(rbuf);
    MPI_Finalize();
    return 0;
}
