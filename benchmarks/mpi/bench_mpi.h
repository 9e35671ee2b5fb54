/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI side of the benchmark harness: the same method and output as the rmp benchmarks
 * (benchmarks/bench_common.c is compiled in), so the compare scripts read both alike. */
#ifndef BENCH_MPI_H
#define BENCH_MPI_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_common.h"

static inline void bench_mpi_fail(int rc, const char *what, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0, rank = -1;
    MPI_Error_string(rc, msg, &len);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "[rank %d] %s:%d: %s failed: %s\n", rank, file, line, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

#define MCK(call)                                                                          \
    do {                                                                                   \
        int mck_rc_ = (call);                                                              \
        if (mck_rc_ != MPI_SUCCESS)                                                        \
            bench_mpi_fail(mck_rc_, #call, __FILE__, __LINE__);                            \
    } while (0)

static inline void bench_mpi_bad_data(const char *what, size_t size, long index)
{
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "[rank %d] validation failed: %s, size %zu, first bad byte/element %ld\n",
            rank, what, size, index);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

typedef struct {
    int rank, size;
} bench_mpi_t;

/* MPI_Init and option parsing: -1 to run, else the exit status (job finalized). */
static inline int bench_mpi_start(bench_mpi_t *b, int *argc, char ***argv, bench_opts_t *o,
                                  const char *prog, const char *type_help, int min_ranks)
{
    MCK(MPI_Init(argc, argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MCK(MPI_Comm_rank(MPI_COMM_WORLD, &b->rank));
    MCK(MPI_Comm_size(MPI_COMM_WORLD, &b->size));
    int pr = bench_parse(*argc, *argv, o, prog, type_help, b->rank == 0);
    if (pr == 0 && b->size < min_ranks) {
        if (b->rank == 0)
            fprintf(stderr, "%s: needs at least %d ranks\n", prog, min_ranks);
        pr = -1;
    }
    if (pr == 0)
        return -1;
    MPI_Finalize();
    return pr > 0 ? 0 : 2;
}

/* The -t variant as an index into names[], or -1 (message printed on rank 0). */
static inline int bench_mpi_type(const bench_opts_t *o, const char *const *names, int n,
                                 int rank, const char *prog)
{
    if (!o->type)
        return 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(o->type, names[i]))
            return i;
    if (rank == 0)
        fprintf(stderr, "%s: unknown -t %s\n", prog, o->type);
    return -1;
}

#endif /* BENCH_MPI_H */
