/* SPDX-License-Identifier: BSD-3-Clause */
/* Rendezvous of 64 MiB by RDMA write, twice from the same buffer into the same
 * buffer: the second time both sides must hit the registration cache (no new
 * registration), and the data must be right both times. */
#include <stdlib.h>

#include "vt.h"

#define SZ (64u << 20)

int main(int argc, char **argv)
{
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    vt_require_verbs();
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w);
    if (me < 2) {
        unsigned char *b = malloc(SZ);
        for (int round = 0; round < 2; round++) {
            rcache_stats_t s0 = vt_rcache();
            double t0 = vt_now();
            if (me == 0) {
                vt_fill(b, SZ, 40 + round);
                T_RC(rmp_send(b, SZ, 1, 3, w));
            } else {
                memset(b, 0, SZ);
                rmp_status_t st;
                T_RC(rmp_recv(b, SZ, 0, 3, w, &st));
                T_CHECK(st.bytes == SZ, "64 MiB status %zu", st.bytes);
                long bad = vt_check(b, SZ, 40 + round);
                T_CHECK(bad < 0, "64 MiB data wrong at %ld (round %d)", bad, round);
            }
            double dt = vt_now() - t0;
            rcache_stats_t s1 = vt_rcache();
            printf("rndv rank %d round %d: %.1f MB/s, rcache +%llu hits +%llu misses\n", me,
                   round, SZ / dt / 1e6, (unsigned long long)(s1.hits - s0.hits),
                   (unsigned long long)(s1.misses - s0.misses));
            if (round == 1)
                T_CHECK(s1.misses == s0.misses && s1.hits > s0.hits,
                        "second 64 MiB transfer registered again (misses %llu -> %llu)",
                        (unsigned long long)s0.misses, (unsigned long long)s1.misses);
        }
        free(b);
    }
    return t_finish();
}
