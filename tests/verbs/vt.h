/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers for the verbs-specific tests: they link the static library and look
 * at the transport's state (connection of each peer, registration cache). */
#ifndef RMP_TEST_VT_H
#define RMP_TEST_VT_H

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../common/skip.h"
#include "../common/t.h"
#include "p2p.h"
#include "tl_registry.h"
#include "verbs_int.h"

/* The verbs instance, or NULL when this job does not use verbs. */
static inline verbs_tl_t *vt_tl(void)
{
    for (int i = 0; i < rmpi_eng.tls.num; i++)
        if (rmpi_eng.tls.v[i].iface == &rmpi_tl_verbs)
            return (verbs_tl_t *)rmpi_eng.tls.v[i].tl;
    return NULL;
}

static inline int vt_state(int world_peer)
{
    verbs_tl_t *tl = vt_tl();
    return tl ? tl->eps[world_peer].state : -1;
}

static inline rcache_stats_t vt_rcache(void)
{
    rcache_stats_t st;
    memset(&st, 0, sizeof(st));
    verbs_tl_t *tl = vt_tl();
    if (tl)
        rcache_stats(tl->rcache, &st);
    return st;
}

/* Exit with meson's skip code when verbs is not what this job runs on. */
static inline void vt_require_verbs(void)
{
    if (!vt_tl()) {
        int code = rmp_comm_rank(rmp_comm_world()) == 0
                       ? T_SKIP_CODE("not running on the verbs transport (set RMP_TRANSPORTS=verbs)")
                       : t_skip_ci_code();
        rmp_finalize();
        exit(code);
    }
}

static inline double vt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline unsigned char vt_pat(size_t i, int salt)
{
    return (unsigned char)(i * 131 + (size_t)salt * 17 + (i >> 9));
}

static inline void vt_fill(unsigned char *b, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = vt_pat(i, salt);
}

static inline long vt_check(const unsigned char *b, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != vt_pat(i, salt))
            return (long)i;
    return -1;
}

#endif
