/* SPDX-License-Identifier: BSD-3-Clause */
/* Instruction cost of the point-to-point path, for callgrind (benchmarks/cost/run):
 * rank 1 posts N receives (rmp_irecv), rank 0 sends N messages of S bytes (rmp_send)
 * while rank 1 sleeps, then rank 1 completes them all (rmp_waitall): each message is
 * waiting in its queue and matches a posted receive at the first poll, so the counts
 * hold no empty polls and do not depend on timing. With -i the sender uses rmp_isend
 * and one rmp_waitall instead (the osu_bw pattern). mpi_path_cost.c is its MPI twin.
 * With -a the ranks run N rmp_allreduce calls of S/8 doubles instead, rank 1 entering each
 * 20 ms after rank 0: rank 1's calls find rank 0's part there and never spin, so its
 * count holds no empty polls either.
 * Usage:
 *   rmp_path_cost [-n N] [-s BYTES] [-i | -a] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rmp.h>
#include <valgrind/callgrind.h>

#define CK(c)                                                                              \
    do {                                                                                   \
        int rc_ = (c);                                                                     \
        if (rc_ != RMP_SUCCESS) {                                                          \
            fprintf(stderr, "%s: %s\n", #c, rmp_strerror(rc_));                           \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    int n = 64, opt, isend = 0, allreduce = 0;
    size_t bytes = 8;
    CK(rmp_init(&argc, &argv));
    while ((opt = getopt(argc, argv, "n:s:ia")) != -1) {
        if (opt == 'i')
            isend = 1;
        else if (opt == 'a')
            allreduce = 1;
        else if (opt == 'n')
            n = atoi(optarg);
        else if (opt == 's')
            bytes = (size_t)atol(optarg);
        else {
            fprintf(stderr, "usage: rmp_path_cost [-n N] [-s BYTES] [-i | -a]\n");
            rmp_finalize();
            return 2;
        }
    }
    rmp_comm_t w = rmp_comm_world();
    int rank = rmp_comm_rank(w);
    char *buf = calloc(1, bytes + 1);
    if (!buf || rmp_comm_size(w) != 2 || n < 1) {
        fprintf(stderr, "rmp_path_cost: 2 ranks, N >= 1\n");
        rmp_finalize();
        return 2;
    }
    /* A first exchange both ways connects the pair outside the measured calls (the
     * barrier may run over a shared segment and connect nothing). */
    int peer = 1 - rank, tag = n + 1;
    CK(rmp_sendrecv(buf, bytes, peer, tag, buf, bytes, peer, tag, w, NULL));
    if (allreduce) {
        size_t count = bytes / sizeof(double) ? bytes / sizeof(double) : 1;
        double *in = calloc(count, sizeof(double)), *out = calloc(count, sizeof(double));
        if (!in || !out)
            return 1;
        for (int round = 0; round < 2; round++) {
            CK(rmp_barrier(w));
            if (round == 1)
                CALLGRIND_ZERO_STATS;
            for (int i = 0; i < n; i++) {
                if (rank == 1)
                    usleep(20000);
                CK(rmp_allreduce(in, out, count, RMP_DOUBLE, RMP_SUM, w));
            }
        }
        free(in);
        free(out);
        free(buf);
        CK(rmp_finalize());
        return 0;
    }
    rmp_request_t *reqs = calloc((size_t)n, sizeof(*reqs));
    if (!reqs)
        return 1;
    /* Twice: the first round grows the request pool and warms what else a first use
     * sets up; the counters are zeroed before the second, the one reported. */
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            CALLGRIND_ZERO_STATS;
        if (rank == 1)
            for (int i = 0; i < n; i++)
                CK(rmp_irecv(buf, bytes, 0, i, w, &reqs[i]));
        CK(rmp_barrier(w));
        if (rank == 0 && isend) {
            for (int i = 0; i < n; i++)
                CK(rmp_isend(buf, bytes, 1, i, w, &reqs[i]));
            CK(rmp_waitall((size_t)n, reqs, NULL));
        } else if (rank == 0) {
            for (int i = 0; i < n; i++)
                CK(rmp_send(buf, bytes, 1, i, w));
        } else {
            usleep(200000); /* every message is in the receiver's queue by now */
            CK(rmp_waitall((size_t)n, reqs, NULL));
        }
        CK(rmp_barrier(w));
    }
    CK(rmp_barrier(w));
    free(reqs);
    free(buf);
    CK(rmp_finalize());
    return 0;
}
