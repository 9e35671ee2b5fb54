/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine's state and lifetime (core/engine.h): start, finalize
 * draining, teardown. */
#include <string.h>

#include "am.h"
#include "eager.h"
#include "cancel.h"
#include "engine.h"
#include "failure.h"
#include "frag.h"
#include "layout.h"
#include "log.h"
#include "peer.h"
#include "progress.h"
#include "recv.h"
#include "request.h"
#include "rma.h"
#include "rndv.h"
#include "send.h"
#include "ulfm.h"

rmpi_engine_t rmpi_eng = {
    .cid.lock = PTHREAD_MUTEX_INITIALIZER,
    .rma.inflight_tail = &rmpi_eng.rma.inflight,
};

int rmpi_p2p_init(void)
{
    memset(&rmpi_eng.p2p, 0, sizeof(rmpi_eng.p2p));
    rmpi_mq_init(&rmpi_eng.p2p.posted);
    rmpi_mq_init(&rmpi_eng.p2p.unexp);
    rmpi_mq_init(&rmpi_eng.p2p.need_put);
    memset(&rmpi_eng.stats, 0, sizeof(rmpi_eng.stats));
    /* The one list of protocol modules: each registers its own message ids. */
    rmpi_am_reset();
    rmpi_eager_register();
    rmpi_rndv_register();
    rmpi_frag_register();
    rmpi_rma_register();
    rmpi_failure_register();
    rmpi_ulfm_register();
    rmpi_cancel_register();
    return RMP_SUCCESS;
}

static int engine_tls_flushed(void)
{
    for (int i = 0; i < rmpi_eng.tls.num; i++)
        if (rmpi_eng.tls.v[i].iface->flushed &&
            rmpi_eng.tls.v[i].iface->flushed(rmpi_eng.tls.v[i].tl) != RMP_SUCCESS)
            return 0;
    return 1;
}

int rmpi_p2p_drain(void)
{
    double deadline = rmpi_now() + 10.0;
    rmpi_waiter_t wt;
    rmpi_waiter_init(&wt);
    wt.deadline = 0; /* its own deadline below, not RMP_TIMEOUT */
    rmpi_send_drop_orphans();
    while (rmpi_eng.p2p.npending > 0 || !engine_tls_flushed()) {
        rmpi_progress();
        rmpi_waiter_poll(&wt);
        if (rmpi_now() > deadline) {
            rmpi_warn("finalize: %d peers still have unsent messages", rmpi_eng.p2p.npending);
            return RMP_ERR_TIMEOUT;
        }
    }
    return RMP_SUCCESS;
}

void rmpi_p2p_fini(void)
{
    rmpi_recv_fini();
    rmpi_ulfm_fini(&rmpi_eng);
    rmpi_layout_fini();
    rmpi_req_pool_fini();
}
