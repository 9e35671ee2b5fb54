/* SPDX-License-Identifier: BSD-3-Clause */
/* Connections: an rdma_cm listener per rank, and RC queue pairs created on
 * first use of a peer, driven by progress() through a non-blocking event
 * channel (no rdma_cm call here waits for the network).
 *
 * Simultaneous connects: when a request from peer r arrives while our own
 * request to r is in flight, the request of the lower rank wins. The higher
 * rank accepts it and destroys its own attempt; the lower rank rejects the
 * higher rank's request, which then waits (VEP_WAIT_PEER) for the winner. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "verbs_int.h"

#define VERBS_REJ_CONSUMER 28 /* IB CM reject reason: consumer defined */

void rmpi_verbs_ep_set_state(verbs_ep_t *ep, int st)
{
    int busy_old = ep->state == VEP_CONNECTING || ep->state == VEP_ACCEPTING ||
                   ep->state == VEP_WAIT_PEER;
    int busy_new = st == VEP_CONNECTING || st == VEP_ACCEPTING || st == VEP_WAIT_PEER;
    ep->tl->cm_busy += busy_new - busy_old;
    ep->state = st;
}

static int cm_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -1 : 0;
}

int rmpi_verbs_cm_init(verbs_tl_t *tl)
{
    if (!(tl->ch = rdma_create_event_channel())) {
        rmpi_error("verbs: rdma_create_event_channel: %s", strerror(errno));
        return RMP_ERR_TRANSPORT;
    }
    if (cm_nonblock(tl->ch->fd) != 0) {
        rmpi_error("verbs: cannot make the rdma_cm channel non-blocking: %s", strerror(errno));
        return RMP_ERR_TRANSPORT;
    }
    if (rdma_create_id(tl->ch, &tl->listen, NULL, RDMA_PS_TCP) != 0) {
        rmpi_error("verbs: rdma_create_id: %s", strerror(errno));
        tl->listen = NULL;
        return RMP_ERR_TRANSPORT;
    }
    if (rdma_bind_addr(tl->listen, (struct sockaddr *)&tl->sel.ip) != 0) {
        rmpi_error("verbs: rdma_bind_addr on %s's address: %s", tl->sel.dev_name,
                   strerror(errno));
        return RMP_ERR_TRANSPORT;
    }
    if (rdma_listen(tl->listen, 1024) != 0) {
        rmpi_error("verbs: rdma_listen: %s", strerror(errno));
        return RMP_ERR_TRANSPORT;
    }
    tl->ctx = tl->listen->verbs;
    if (!tl->ctx || strcmp(ibv_get_device_name(tl->ctx->device), tl->sel.dev_name) != 0) {
        rmpi_error("verbs: rdma_cm bound the address of %s to device %s", tl->sel.dev_name,
                   tl->ctx ? ibv_get_device_name(tl->ctx->device) : "(none)");
        return RMP_ERR_TRANSPORT;
    }
    cm_nonblock(tl->ctx->async_fd);
    return RMP_SUCCESS;
}

/* Destroy ep's queue pair and connection id (the id's events must be acked). */
void rmpi_verbs_ep_close(verbs_ep_t *ep)
{
    if (ep->id) {
        if (ep->id->qp)
            rdma_destroy_qp(ep->id);
        ep->id->context = NULL;
        rdma_destroy_id(ep->id);
    }
    ep->id = NULL;
    ep->qp = NULL;
}

void rmpi_verbs_cm_fini(verbs_tl_t *tl)
{
    for (int i = 0; tl->eps && i < tl->neps; i++)
        rmpi_verbs_ep_close(&tl->eps[i]);
    if (tl->listen)
        rdma_destroy_id(tl->listen);
    tl->listen = NULL;
    if (tl->ch)
        rdma_destroy_event_channel(tl->ch);
    tl->ch = NULL;
}

/* The QP of a connection (ours or accepted), and the SRQ buffers for the peer. */
static int cm_create_qp(verbs_ep_t *ep, struct rdma_cm_id *id)
{
    verbs_tl_t *tl = ep->tl;
    if (!ep->ops && !(ep->ops = calloc(VERBS_SQ_DEPTH, sizeof(*ep->ops))))
        return RMP_ERR_NOMEM;
    if (!ep->provisioned) {
        int rc = rmpi_verbs_rx_grow(
            tl, (tl->nprov + 1) * (VERBS_CREDITS + VERBS_CREDIT_SPARE) + VERBS_RECV_BATCH);
        if (rc != RMP_SUCCESS)
            return rc;
        ep->provisioned = 1;
        tl->nprov++;
    }
    static const uint32_t inl[] = {VERBS_INLINE_WANT, 64, 0};
    int err = 0;
    for (size_t i = 0; i < sizeof(inl) / sizeof(inl[0]); i++) {
        struct ibv_qp_init_attr a;
        memset(&a, 0, sizeof(a));
        a.send_cq = tl->cq;
        a.recv_cq = tl->cq;
        a.srq = tl->srq;
        a.qp_type = IBV_QPT_RC;
        a.cap.max_send_wr = VERBS_SQ_DEPTH;
        a.cap.max_send_sge = 2;
        a.cap.max_recv_sge = 1;
        a.cap.max_inline_data = inl[i];
        if (rdma_create_qp(id, tl->pd, &a) == 0) {
            if (a.cap.max_inline_data < tl->max_inline)
                tl->max_inline = a.cap.max_inline_data; /* the smallest of all QPs */
            err = 0;
            break;
        }
        err = errno;
    }
    if (err) {
        rmpi_error("verbs: rdma_create_qp for rank %d: %s", ep->base.peer, strerror(err));
        return err == ENOMEM ? RMP_ERR_NOMEM : RMP_ERR_TRANSPORT;
    }
    uint8_t t = tl->ack_timeout; /* verbs_live.c: within RMP_FAILURE_TIMEOUT */
    rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t));
    ep->id = id;
    ep->qp = id->qp;
    id->context = ep;
    ep->credits = VERBS_CREDITS;
    ep->to_return = 0;
    ep->unsignaled = 0;
    ep->sq_head = ep->sq_tail = 0;
    ep->rdma_bytes = 0;
    return rmpi_verbs_qpmap_add(tl, ep->qp->qp_num, ep);
}

static void cm_param(verbs_tl_t *tl, struct rdma_conn_param *p, verbs_cm_priv_t *priv)
{
    memset(p, 0, sizeof(*p));
    priv->magic = VERBS_CM_MAGIC;
    priv->rank = tl->me;
    p->private_data = priv;
    p->private_data_len = sizeof(*priv);
    p->responder_resources = tl->rd_atom;
    p->initiator_depth = tl->rd_atom;
    p->retry_count = VERBS_RETRY_CNT;
    p->rnr_retry_count = 7; /* the backstop only: credits keep the SRQ stocked */
}

/* Start our connection to ep's peer (from the first send/put/get to it). */
int rmpi_verbs_cm_connect(verbs_ep_t *ep)
{
    verbs_tl_t *tl = ep->tl;
    struct rdma_cm_id *id;
    if (rdma_create_id(tl->ch, &id, ep, RDMA_PS_TCP) != 0) {
        rmpi_error("verbs: rdma_create_id: %s", strerror(errno));
        return RMP_ERR_TRANSPORT;
    }
    struct sockaddr_storage src = tl->sel.ip; /* our device, any port */
    if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&ep->addr.sa,
                          VERBS_CM_TIMEOUT_MS) != 0) {
        rmpi_error("verbs: rdma_resolve_addr for rank %d: %s", ep->base.peer, strerror(errno));
        rdma_destroy_id(id);
        return RMP_ERR_TRANSPORT;
    }
    ep->id = id;
    ep->qp = NULL;
    rmpi_verbs_ep_set_state(ep, VEP_CONNECTING);
    rmpi_debug("verbs: connecting to rank %d", ep->base.peer);
    return RMP_SUCCESS;
}

/* Detach ep's connection. Inside an event handler the id of that event cannot
 * be destroyed before the event is acked (rdma_destroy_id would wait forever):
 * it is handed back through *destroy instead. */
static void cm_detach(verbs_ep_t *ep, struct rdma_cm_id **destroy)
{
    if (ep->id) {
        ep->id->context = NULL;
        *destroy = ep->id;
    }
    ep->id = NULL;
    ep->qp = NULL;
}

/* A failed attempt: drop the connection; try again at next use, or give up. */
static void cm_retry(verbs_ep_t *ep, const char *what, int status, struct rdma_cm_id **destroy)
{
    ep->attempts++;
    cm_detach(ep, destroy);
    if (ep->attempts < VERBS_CONNECT_TRIES) {
        rmpi_info("verbs: connection to rank %d: %s (status %d); retrying", ep->base.peer, what,
                  status);
        rmpi_verbs_ep_set_state(ep, VEP_IDLE);
        return;
    }
    rmpi_error("verbs: cannot connect to rank %d: %s (status %d) after %d attempts", ep->base.peer,
               what, status, ep->attempts);
    rmpi_verbs_ep_set_state(ep, VEP_FAILED);
    ep->fail_status = RMP_ERR_PEER_FAILED;
}

static void cm_on_request(verbs_tl_t *tl, struct rdma_cm_event *ev, struct rdma_cm_id **destroy)
{
    verbs_cm_priv_t priv;
    if (rmpi_verbs_priv_decode(ev->param.conn.private_data, ev->param.conn.private_data_len,
                               tl->neps, tl->me, &priv.rank) != RMP_SUCCESS) {
        rmpi_warn("verbs: rejecting a connection request that is not from this job");
        goto reject;
    }
    verbs_ep_t *ep = &tl->eps[priv.rank];
    switch (ep->state) {
    case VEP_IDLE:
    case VEP_WAIT_PEER:
        break;
    case VEP_CONNECTING:
        if (priv.rank > tl->me)
            goto reject; /* ours wins: the peer waits for it */
        rmpi_debug("verbs: simultaneous connect with rank %d: taking its request", priv.rank);
        rmpi_verbs_ep_close(ep);
        break;
    default:
        rmpi_warn("verbs: rank %d asks to connect again (state %d): rejected", priv.rank,
                  ep->state);
        goto reject;
    }
    int rc = cm_create_qp(ep, ev->id);
    if (rc != RMP_SUCCESS) {
        ev->id->context = NULL;
        ep->id = NULL;
        ep->qp = NULL;
        if (ev->id->qp)
            rdma_destroy_qp(ev->id);
        rmpi_verbs_ep_set_state(ep, VEP_FAILED);
        ep->fail_status = rc;
        goto reject;
    }
    struct rdma_conn_param p;
    verbs_cm_priv_t mine;
    cm_param(tl, &p, &mine);
    if (ev->param.conn.initiator_depth < p.responder_resources)
        p.responder_resources = ev->param.conn.initiator_depth;
    if (ev->param.conn.responder_resources < p.initiator_depth)
        p.initiator_depth = ev->param.conn.responder_resources;
    if (rdma_accept(ev->id, &p) != 0) {
        rmpi_error("verbs: rdma_accept from rank %d: %s", priv.rank, strerror(errno));
        *destroy = ev->id;
        ep->id = NULL;
        ep->qp = NULL;
        ev->id->context = NULL;
        rmpi_verbs_ep_set_state(ep, VEP_IDLE);
        return;
    }
    rmpi_verbs_ep_set_state(ep, VEP_ACCEPTING);
    return;
reject:
    rdma_reject(ev->id, NULL, 0);
    *destroy = ev->id;
}

static void cm_event(verbs_tl_t *tl, struct rdma_cm_event *ev, struct rdma_cm_id **destroy)
{
    if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
        cm_on_request(tl, ev, destroy);
        return;
    }
    verbs_ep_t *ep = ev->id->context;
    if (ev->id == tl->listen)
        return;
    if (!ep || ep->id != ev->id) {
        if (ev->event != RDMA_CM_EVENT_TIMEWAIT_EXIT)
            *destroy = ev->id; /* an abandoned attempt */
        return;
    }
    switch (ev->event) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rdma_resolve_route(ev->id, VERBS_CM_TIMEOUT_MS) != 0)
            cm_retry(ep, "rdma_resolve_route failed", errno, destroy);
        break;
    case RDMA_CM_EVENT_ROUTE_RESOLVED: {
        int rc = cm_create_qp(ep, ev->id);
        if (rc != RMP_SUCCESS) {
            cm_retry(ep, "cannot create a queue pair", rc, destroy);
            break;
        }
        struct rdma_conn_param p;
        verbs_cm_priv_t mine;
        cm_param(tl, &p, &mine);
        if (rdma_connect(ev->id, &p) != 0)
            cm_retry(ep, "rdma_connect failed", errno, destroy);
        break;
    }
    case RDMA_CM_EVENT_ESTABLISHED:
        rmpi_verbs_ep_established(ep);
        break;
    case RDMA_CM_EVENT_REJECTED:
        if (ev->status == VERBS_REJ_CONSUMER && ep->state == VEP_CONNECTING &&
            ep->base.peer < tl->me) {
            /* The peer's own request wins the race; it is on its way. */
            cm_detach(ep, destroy);
            rmpi_verbs_ep_set_state(ep, VEP_WAIT_PEER);
            ep->deadline = rmpi_now() + 30.0;
        } else {
            cm_retry(ep, "connection rejected", ev->status, destroy);
        }
        break;
    case RDMA_CM_EVENT_ADDR_ERROR:
    case RDMA_CM_EVENT_ROUTE_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_CONNECT_ERROR:
        if (ep->state == VEP_CONNECTED)
            rmpi_verbs_ep_fail(ep, RMP_ERR_PEER_FAILED);
        else
            cm_retry(ep, rdma_event_str(ev->event), ev->status, destroy);
        break;
    case RDMA_CM_EVENT_DISCONNECTED:
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
        rmpi_verbs_ep_fail(ep, RMP_ERR_PEER_FAILED);
        break;
    default:
        break;
    }
}

static void cm_async(verbs_tl_t *tl)
{
    struct ibv_async_event ae;
    while (ibv_get_async_event(tl->ctx, &ae) == 0) {
        rmpi_verbs_live_event(tl, &ae);
        ibv_ack_async_event(&ae);
    }
}

int rmpi_verbs_cm_progress(verbs_tl_t *tl)
{
    int n = 0;
    struct rdma_cm_event *ev;
    while (rdma_get_cm_event(tl->ch, &ev) == 0) {
        struct rdma_cm_id *destroy = NULL;
        rmpi_trace("verbs: cm event %s status %d", rdma_event_str(ev->event), ev->status);
        cm_event(tl, ev, &destroy);
        rdma_ack_cm_event(ev);
        if (destroy) {
            if (destroy->qp)
                rdma_destroy_qp(destroy);
            rdma_destroy_id(destroy);
        }
        n++;
    }
    cm_async(tl);
    return n;
}
