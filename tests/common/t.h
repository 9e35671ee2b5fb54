/* SPDX-License-Identifier: BSD-3-Clause */
/* Tiny check helpers for multi-rank test programs: count, report, exit. */
#ifndef RMP_TEST_T_H
#define RMP_TEST_T_H

#include <rmp.h>
#include <stdio.h>
#include <stdlib.h>

static int t_pass, t_fail;

#define T_CHECK(cond, ...)                                                          \
    do {                                                                            \
        if (cond) {                                                                 \
            t_pass++;                                                               \
        } else {                                                                    \
            t_fail++;                                                               \
            fprintf(stderr, "FAIL rank %d %s:%d: ", rmp_comm_rank(rmp_comm_world()), \
                    __FILE__, __LINE__);                                            \
            fprintf(stderr, __VA_ARGS__);                                           \
            fprintf(stderr, "\n");                                                  \
        }                                                                           \
    } while (0)

#define T_RC(call)                                                                  \
    do {                                                                            \
        int t_rc_ = (call);                                                         \
        T_CHECK(t_rc_ == RMP_SUCCESS, "%s -> %s", #call, rmp_strerror(t_rc_));      \
    } while (0)

/* Sum pass/fail over all ranks with plain p2p (no collectives needed), print
 * "N passed, M failed" on rank 0, return the exit status. */
static inline int t_finish(void)
{
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w), n = rmp_comm_size(w);
    long tot[2] = {t_pass, t_fail};
    if (me == 0) {
        for (int r = 1; r < n; r++) {
            long other[2] = {0, 1};
            if (rmp_recv(other, sizeof(other), r, 0x3fff0000, w, NULL) != RMP_SUCCESS)
                other[1] = 1;
            tot[0] += other[0];
            tot[1] += other[1];
        }
        printf("%ld passed, %ld failed\n", tot[0], tot[1]);
        fflush(stdout);
    } else {
        rmp_send(tot, sizeof(tot), 0, 0x3fff0000, w);
    }
    int ok = rmp_finalize() == RMP_SUCCESS;
    return (t_fail == 0 && ok && (me != 0 || tot[1] == 0)) ? 0 : 1;
}

#endif
