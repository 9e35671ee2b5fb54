/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the MPI conformance programs: CHECK(cond, fmt, ...) reports the
 * rank, the line and the message and aborts the job. */
#ifndef MPI_ABI_CHECK_H
#define MPI_ABI_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "../common/hwm.h"

#define CHECK(cond, ...)                                                            \
    do {                                                                            \
        if (!(cond)) {                                                              \
            int r_ = -1, i_ = 0, f_ = 0;                                            \
            MPI_Initialized(&i_);                                                   \
            MPI_Finalized(&f_);                                                     \
            i_ = i_ && !f_;                                                         \
            if (i_)                                                                 \
                MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                 \
            fprintf(stderr, "FAIL rank %d %s:%d: ", r_, __FILE__, __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                                           \
            fprintf(stderr, "\n");                                                  \
            fflush(stderr);                                                         \
            if (i_)                                                                 \
                MPI_Abort(MPI_COMM_WORLD, 3);                                       \
            exit(3);                                                                \
        }                                                                           \
    } while (0)

/* Peak memory grew by less than limit_kib since `before` (hwm_kib()): no copy of the
 * whole message was made. Not under ASan: its quarantine and shadow memory move the peak
 * by megabytes (the plain build asserts the bound). */
static inline void check_peak(const char *what, long before, long limit_kib)
{
#if defined(__SANITIZE_ADDRESS__)
    (void)what;
    (void)before;
    (void)limit_kib;
#else
    long grew = hwm_kib() - before;
    CHECK(before > 0 && grew < limit_kib, "%s: peak memory grew %ld KiB (limit %ld KiB)", what,
          grew, limit_kib);
#endif
}

#define CHECK_OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

/* Before bounding the peak of collectives on comm: rmp maps the communicator's shared
 * segment on its sixth collective and its pages count as they are touched (up to 6 MiB,
 * with more ranks than cores: larger chunks). A 2 MiB allreduce touches them all (every
 * rank reads every slot of both sets). Its buffers stay allocated until the caller frees
 * the returned block, so the peak of the warm-up does not hide later growth. */
static inline void *warm_segment(MPI_Comm comm)
{
    size_t n = (2u << 20) / sizeof(int);
    int *b = calloc(2 * n, sizeof(int));
    CHECK(b, "out of memory");
    /* rmp makes the segment at the sixth collective that wants it (collectives/coll_shm.c) */
    for (int i = 0; i < 6; i++)
        CHECK_OK(MPI_Allreduce(b, b + n, (int)n, MPI_INT, MPI_SUM, comm));
    return b;
}

#endif
