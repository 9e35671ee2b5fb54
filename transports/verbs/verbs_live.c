/* SPDX-License-Identifier: BSD-3-Clause */
/* Liveness of RC connections within RMP_FAILURE_TIMEOUT (docs/reliability.md).
 *
 * RC retries run only while something is in flight, so a rank that only waits for
 * a peer whose node vanished would wait for ever. While the core is blocked it asks
 * ep_alive every 50 ms; a connected peer that gave no sign of life (no receive from
 * it, no acknowledgement of ours) for RMP_FAILURE_TIMEOUT / 3 gets a probe: a
 * signalled zero-byte RDMA write. The peer's HCA acknowledges it at the transport
 * level, whatever its process is doing (computing, descheduled, stopped in a
 * debugger), so a busy rank is never taken for dead; a dead node lets the retries
 * run out (IBV_WC_RETRY_EXC_ERR), and cq_send fails the peer. All tries of a request
 * end within another third of the bound (the ACK timeout is lowered for short
 * bounds). Nothing is sent while traffic flows, nor by a rank that is not blocked. */
#include <math.h>
#include <string.h>

#include "log.h"
#include "verbs_int.h"

void rmpi_verbs_live_init(verbs_tl_t *tl, double failure_timeout)
{
    tl->ack_timeout = VERBS_ACK_TIMEOUT;
    tl->hb_interval = failure_timeout > 0 ? failure_timeout / 3 : 0;
    if (failure_timeout <= 0)
        return;
    /* (1 + retries) tries of 4.096 us * 2^t each within a third of the bound: the
     * default (67 ms, 0.54 s in all) fits any bound from 1.6 s up; a shorter bound gets
     * shorter tries, down to 1 ms. */
    double per_try = failure_timeout / 3 / (1 + VERBS_RETRY_CNT);
    while (tl->ack_timeout > VERBS_ACK_TIMEOUT_MIN &&
           4.096e-6 * (double)(1u << tl->ack_timeout) > per_try)
        tl->ack_timeout--;
}

int rmpi_verbs_ep_alive(rmpi_ep_t *ep_)
{
    verbs_ep_t *ep = (verbs_ep_t *)ep_;
    if (ep->state == VEP_FAILED)
        return RMP_ERR_PEER_FAILED;
    verbs_tl_t *tl = ep->tl;
    if (ep->state != VEP_CONNECTED || tl->hb_interval <= 0)
        return RMP_SUCCESS;
    double now = rmpi_now();
    if (ep->rx_count != ep->hb_rx || ep->sq_tail != ep->hb_tail) {
        ep->hb_rx = ep->rx_count; /* a sign of life since the last look */
        ep->hb_tail = ep->sq_tail;
        ep->hb_last = now;
        return RMP_SUCCESS;
    }
    if (now - ep->hb_last < tl->hb_interval)
        return RMP_SUCCESS;
    /* A signalled request in flight (a probe, or data) ends in an ACK or, on an HCA,
     * in retry exceeded within a third of the bound. Soft-RoCE takes the retry count
     * 7 for "retry for ever" (rxe_comp.c: `if (qp->comp.retry_cnt != 7)
     * retry_cnt--`), so its requests to a vanished node never end: rmp bounds the wait
     * itself, 1.5 intervals without an acknowledgement or a receive. */
    if (ep->sq_head != ep->sq_tail && ep->unsignaled == 0) {
        if (now - ep->hb_last >= 1.5 * tl->hb_interval) {
            rmpi_warn("verbs: rank %d acknowledged nothing for %.1f s: taken as lost",
                      ep->base.peer, now - ep->hb_last);
            rmpi_verbs_ep_fail(ep, RMP_ERR_PEER_FAILED);
        }
        return RMP_SUCCESS;
    }
    ep->hb_last = now;
    rmpi_trace("verbs: rank %d silent for %.1f s: probe", ep->base.peer, tl->hb_interval);
    if (rmpi_verbs_post_probe(ep) == RMP_ERR_TRANSPORT)
        rmpi_verbs_ep_fail(ep, RMP_ERR_PEER_FAILED); /* a QP that takes no work is gone */
    return RMP_SUCCESS;
}

/* Our port went down or lost its address: every connection may be dead, or may come
 * back. Probe all at the next check and let the retries decide within the bound. */
static void live_probe_all(verbs_tl_t *tl)
{
    for (int i = 0; i < tl->neps; i++)
        tl->eps[i].hb_last = -INFINITY;
}

void rmpi_verbs_live_event(verbs_tl_t *tl, struct ibv_async_event *ae)
{
    switch (ae->event_type) {
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR: {
        verbs_ep_t *ep = rmpi_verbs_qpmap_find(tl, ae->element.qp->qp_num);
        rmpi_warn("verbs: %s on the queue pair to rank %d", ibv_event_type_str(ae->event_type),
                  ep ? ep->base.peer : -1);
        if (ep)
            rmpi_verbs_ep_fail(ep, RMP_ERR_PEER_FAILED);
        break;
    }
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_GID_CHANGE:
    case IBV_EVENT_LID_CHANGE:
        if (ae->element.port_num != tl->sel.port)
            break;
        rmpi_warn("verbs: %s on %s port %u: probing every connection",
                  ibv_event_type_str(ae->event_type), tl->sel.dev_name, tl->sel.port);
        live_probe_all(tl);
        break;
    case IBV_EVENT_DEVICE_FATAL:
        /* Nothing on this device works any more: every connection is lost. */
        rmpi_error("verbs: %s on %s", ibv_event_type_str(ae->event_type), tl->sel.dev_name);
        for (int i = 0; i < tl->neps; i++)
            if (tl->eps[i].state != VEP_IDLE)
                rmpi_verbs_ep_fail(&tl->eps[i], RMP_ERR_PEER_FAILED);
        break;
    case IBV_EVENT_SRQ_ERR:
    case IBV_EVENT_CQ_ERR:
        rmpi_error("verbs: %s on %s", ibv_event_type_str(ae->event_type), tl->sel.dev_name);
        break;
    default:
        rmpi_debug("verbs: async event %s", ibv_event_type_str(ae->event_type));
    }
}
