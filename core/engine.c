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

int rmpi_p2p_init(rmpi_engine_t *e)
{
    memset(&e->p2p, 0, sizeof(e->p2p));
    rmpi_mq_init(&e->p2p.posted);
    rmpi_mq_init(&e->p2p.unexp);
    rmpi_mq_init(&e->p2p.need_put);
    memset(&e->stats, 0, sizeof(e->stats));
    /* The one list of protocol modules: each registers its own message ids. */
    rmpi_am_reset(e);
    rmpi_eager_register(e);
    rmpi_rndv_register(e);
    rmpi_frag_register(e);
    rmpi_rma_register(e);
    rmpi_failure_register(e);
    rmpi_ulfm_register(e);
    rmpi_cancel_register(e);
    return RMP_SUCCESS;
}

static int engine_tls_flushed(rmpi_engine_t *e)
{
    for (int i = 0; i < e->tls.num; i++)
        if (e->tls.v[i].iface->flushed &&
            e->tls.v[i].iface->flushed(e->tls.v[i].tl) != RMP_SUCCESS)
            return 0;
    return 1;
}

int rmpi_p2p_drain(rmpi_engine_t *e)
{
    double deadline = rmpi_now() + 10.0;
    rmpi_waiter_t wt;
    rmpi_waiter_init(&wt);
    wt.deadline = 0; /* its own deadline below, not RMP_TIMEOUT */
    rmpi_send_drop_orphans(e);
    while (e->p2p.npending > 0 || !engine_tls_flushed(e)) {
        rmpi_progress();
        rmpi_waiter_poll(&wt);
        if (rmpi_now() > deadline) {
            rmpi_warn("finalize: %d peers still have unsent messages", e->p2p.npending);
            return RMP_ERR_TIMEOUT;
        }
    }
    return RMP_SUCCESS;
}

void rmpi_p2p_fini(rmpi_engine_t *e)
{
    rmpi_recv_fini(e);
    rmpi_ulfm_fini(e);
    rmpi_layout_fini(e);
    rmpi_req_pool_fini(e);
}
