/* SPDX-License-Identifier: BSD-3-Clause */
/* rmp_mt_rate: the multi-threaded message rate (benchmarks/mt/mt_rate.h) on rmp with
 * RMP_THREAD_MULTIPLE, between ranks 0 and 1. */
#include <rmp.h>

#define MT_NAME "rmp_mt_rate"
#define MT_REQ rmp_request_t
#define MT_CK(c)                                                                           \
    do {                                                                                   \
        int rc_ = (c);                                                                     \
        if (rc_ != RMP_SUCCESS) {                                                          \
            fprintf(stderr, "rmp_mt_rate: %s: %s\n", #c, rmp_strerror(rc_));              \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)
#define MT_ISEND(b, n, to, tag, r) MT_CK(rmp_isend(b, n, to, tag, rmp_comm_world(), r))
#define MT_IRECV(b, n, from, tag, r) MT_CK(rmp_irecv(b, n, from, tag, rmp_comm_world(), r))
#define MT_WAITALL(n, r) MT_CK(rmp_waitall(n, r, NULL))
#define MT_SEND(b, n, to, tag) MT_CK(rmp_send(b, n, to, tag, rmp_comm_world()))
#define MT_RECV(b, n, from, tag) MT_CK(rmp_recv(b, n, from, tag, rmp_comm_world(), NULL))
#define MT_BARRIER() MT_CK(rmp_barrier(rmp_comm_world()))
#include "mt_rate.h"

int main(int argc, char **argv)
{
    int provided;
    MT_CK(rmp_init_thread(&argc, &argv, RMP_THREAD_MULTIPLE, &provided));
    if (provided != RMP_THREAD_MULTIPLE || rmp_comm_size(rmp_comm_world()) != 2) {
        fprintf(stderr, "rmp_mt_rate: needs RMP_THREAD_MULTIPLE and 2 ranks\n");
        return 1;
    }
    mt_rank = rmp_comm_rank(rmp_comm_world());
    mt_main(argc, argv);
    MT_CK(rmp_finalize());
    return 0;
}
