/* SPDX-License-Identifier: BSD-3-Clause */
/* Public point-to-point entry points: argument checks, then the engine
 * (send.c, recv.c); wait, test and probe. docs/protocols.md. */
#include "cancel.h"
#include "comm.h"
#include "log.h"
#include "mt.h"
#include "p2p.h"
#include "ulfm.h"

static int p2p_check_send(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm)
{
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (RMPI_UNLIKELY(dest < 0 || dest >= comm->size || tag < 0 || tag > RMP_TAG_UB ||
                      (buf == NULL && bytes > 0))) {
        rmpi_warn("send: invalid argument (dest %d of %d, tag %d, buf %p, %zu bytes)", dest,
                  comm->size, tag, buf, bytes);
        return RMP_ERR_ARG;
    }
    return RMP_SUCCESS;
}

static int p2p_check_recv(const void *buf, size_t bytes, int src, int tag, rmp_comm_t comm)
{
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (RMPI_UNLIKELY((src != RMP_ANY_SOURCE && (src < 0 || src >= comm->size)) ||
                      (tag != RMP_ANY_TAG && (tag < 0 || tag > RMP_TAG_UB)) ||
                      (buf == NULL && bytes > 0))) {
        rmpi_warn("recv: invalid argument (source %d of %d, tag %d, buf %p, %zu bytes)", src,
                  comm->size, tag, buf, bytes);
        return RMP_ERR_ARG;
    }
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_send(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm)
{
    int rc = p2p_check_send(buf, bytes, dest, tag, comm);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    return rmpi_send_cid(buf, bytes, dest, tag, comm, comm->cid);
}

RMP_EXPORT int rmp_isend(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                         rmp_request_t *req)
{
    int rc = p2p_check_send(buf, bytes, dest, tag, comm);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    if (RMPI_UNLIKELY(!req))
        return RMP_ERR_ARG;
    return rmpi_isend_cid(buf, bytes, dest, tag, comm, comm->cid, req);
}

RMP_EXPORT int rmp_recv(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm,
                        rmp_status_t *st)
{
    int rc = p2p_check_recv(buf, bytes, source, tag, comm);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    return rmpi_recv_cid(buf, bytes, source, tag, comm, comm->cid, st);
}

RMP_EXPORT int rmp_irecv(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm,
                         rmp_request_t *req)
{
    int rc = p2p_check_recv(buf, bytes, source, tag, comm);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    if (RMPI_UNLIKELY(!req))
        return RMP_ERR_ARG;
    return rmpi_irecv_cid(buf, bytes, source, tag, comm, comm->cid, req);
}

/* ---- data in the caller's layout (core/layout.h) ---- */

static int p2p_check_layout(const rmp_layout_t *lay, int send)
{
    if (RMPI_UNLIKELY(!lay || (send ? !lay->pack : !lay->unpack))) {
        rmpi_warn("%s: no layout, or a layout without its %s callback", send ? "send" : "recv",
                  send ? "pack" : "unpack");
        return RMP_ERR_ARG;
    }
    return RMP_SUCCESS;
}

static int p2p_isend_layout(const rmp_layout_t *lay, size_t bytes, int dest, int tag,
                            rmp_comm_t comm, int sync, rmp_request_t *req)
{
    int rc = p2p_check_send(lay, bytes, dest, tag, comm);
    if (rc == RMP_SUCCESS)
        rc = p2p_check_layout(lay, 1);
    if (rc == RMP_SUCCESS && !req)
        rc = RMP_ERR_ARG;
    if (rc != RMP_SUCCESS)
        return rc;
    return rmpi_isend_layout_cid(lay, bytes, dest, tag, comm, comm->cid, sync, req);
}

RMP_EXPORT int rmp_isend_layout(const rmp_layout_t *lay, size_t bytes, int dest, int tag,
                                rmp_comm_t comm, rmp_request_t *req)
{
    return p2p_isend_layout(lay, bytes, dest, tag, comm, 0, req);
}

RMP_EXPORT int rmp_issend_layout(const rmp_layout_t *lay, size_t bytes, int dest, int tag,
                                 rmp_comm_t comm, rmp_request_t *req)
{
    return p2p_isend_layout(lay, bytes, dest, tag, comm, 1, req);
}

RMP_EXPORT int rmp_irecv_layout(const rmp_layout_t *lay, size_t bytes, int source, int tag,
                                rmp_comm_t comm, rmp_request_t *req)
{
    int rc = p2p_check_recv(lay, bytes, source, tag, comm);
    if (rc == RMP_SUCCESS)
        rc = p2p_check_layout(lay, 0);
    if (rc == RMP_SUCCESS && !req)
        rc = RMP_ERR_ARG;
    if (rc != RMP_SUCCESS)
        return rc;
    return rmpi_irecv_layout_cid(lay, bytes, source, tag, comm, comm->cid, req);
}

/* A request the caller may still hold: not freed (kind 0) since. A freed request that
 * was reused cannot be told apart; one waited for twice can. */
static inline int p2p_req_live(rmp_request_t r)
{
    return RMPI_LIKELY(r->kind != 0);
}

static int p2p_finish(rmp_request_t *req, rmp_status_t *st)
{
    rmp_request_t r = *req;
    if (st)
        *st = r->status;
    int rc = r->status.error;
    rmpi_req_free(r);
    *req = RMP_REQUEST_NULL;
    return rc;
}

RMP_EXPORT int rmp_wait(rmp_request_t *req, rmp_status_t *st)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!req)
        return RMP_ERR_ARG;
    if (*req == RMP_REQUEST_NULL) {
        if (st)
            *st = (rmp_status_t){RMP_ANY_SOURCE, RMP_ANY_TAG, 0, RMP_SUCCESS, RMP_COMM_NULL};
        return RMP_SUCCESS;
    }
    if (!p2p_req_live(*req))
        return RMP_ERR_ARG;
    rc = rmpi_req_wait(*req);
    if (rc != RMP_SUCCESS)
        return rc;
    return p2p_finish(req, st);
}

/* A test that found req pending after a failure: RMP_ERR_PEER_FAILED_PENDING for a
 * receive from any source the failure holds up (rmp_wait's, core/ulfm.c). */
static int p2p_test_stalled(rmpi_engine_t *e, rmp_request_t req)
{
    rmpi_mt_enter(e);
    int stalled = rmpi_ulfm_anysrc_stalled(e, req);
    rmpi_mt_leave(e);
    return stalled ? RMP_ERR_PEER_FAILED_PENDING : RMP_SUCCESS;
}

RMP_EXPORT int rmp_test(rmp_request_t *req, int *done, rmp_status_t *st)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!req || !done)
        return RMP_ERR_ARG;
    if (*req == RMP_REQUEST_NULL) {
        *done = 1;
        return RMP_SUCCESS;
    }
    if (!p2p_req_live(*req))
        return RMP_ERR_ARG;
    if (!rmpi_req_done(*req))
        rmpi_progress();
    *done = rmpi_req_done(*req);
    if (!*done)
        return RMPI_UNLIKELY(e->p2p.nfailed > 0) ? p2p_test_stalled(e, *req) : RMP_SUCCESS;
    return p2p_finish(req, st);
}

RMP_EXPORT int rmp_waitall(size_t n, rmp_request_t reqs[], rmp_status_t sts[])
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (n > 0 && !reqs)
        return RMP_ERR_ARG;
    int first_err = RMP_SUCCESS;
    for (size_t i = 0; i < n; i++) {
        int r = rmp_wait(&reqs[i], sts ? &sts[i] : NULL);
        if (r != RMP_SUCCESS && first_err == RMP_SUCCESS)
            first_err = r;
    }
    return first_err;
}

RMP_EXPORT int rmp_sendrecv(const void *sbuf, size_t sbytes, int dest, int stag, void *rbuf,
                            size_t rbytes, int source, int rtag, rmp_comm_t comm,
                            rmp_status_t *st)
{
    int rc = p2p_check_send(sbuf, sbytes, dest, stag, comm);
    if (rc == RMP_SUCCESS)
        rc = p2p_check_recv(rbuf, rbytes, source, rtag, comm);
    if (rc != RMP_SUCCESS)
        return rc;
    rmp_request_t rr, sr;
    rc = rmpi_irecv_cid(rbuf, rbytes, source, rtag, comm, comm->cid, &rr);
    if (rc != RMP_SUCCESS)
        return rc;
    rc = rmpi_isend_cid(sbuf, sbytes, dest, stag, comm, comm->cid, &sr);
    if (rc != RMP_SUCCESS) {
        rmp_wait(&rr, st);
        return rc;
    }
    int rc2 = rmp_wait(&sr, NULL);
    rc = rmp_wait(&rr, st);
    return rc != RMP_SUCCESS ? rc : rc2;
}

RMP_EXPORT int rmp_iprobe(int source, int tag, rmp_comm_t comm, int *flag, rmp_status_t *st)
{
    int rc = p2p_check_recv(NULL, 0, source, tag, comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!flag)
        return RMP_ERR_ARG;
    *flag = rmpi_recv_probe(comm->cid, source, tag, st);
    if (!*flag) {
        rmpi_progress();
        *flag = rmpi_recv_probe(comm->cid, source, tag, st);
    }
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_probe(int source, int tag, rmp_comm_t comm, rmp_status_t *st)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = p2p_check_recv(NULL, 0, source, tag, comm);
    if (rc != RMP_SUCCESS)
        return rc;
    int peer = source == RMP_ANY_SOURCE ? -1 : rmpi_comm_world_rank(comm, source);
    rmpi_waiter_t wt;
    rmpi_waiter_init(&wt);
    /* No request to point at: tell the SIGUSR1 report by hand. */
    rmpi_diag_t outer = rmpi_diag_save();
    rmpi_diag_wait("rmp_probe", peer, tag, (long)comm->cid);
    for (;;) {
        if (rmpi_recv_probe(comm->cid, source, tag, st))
            break;
        /* A dead sender's message never comes (what it sent before is found above). */
        if (peer >= 0 && rmpi_peer_lost(e, peer)) {
            rc = RMP_ERR_PEER_FAILED;
            break;
        }
        rmpi_progress();
        rc = rmpi_waiter_poll(&wt);
        if (rc != RMP_SUCCESS)
            break;
    }
    rmpi_diag_restore(outer);
    return rc;
}

RMP_EXPORT int rmp_issend(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                          rmp_request_t *req)
{
    int rc = p2p_check_send(buf, bytes, dest, tag, comm);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    if (RMPI_UNLIKELY(!req))
        return RMP_ERR_ARG;
    return rmpi_issend_cid(buf, bytes, dest, tag, comm, comm->cid, req);
}

RMP_EXPORT int rmp_ssend(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm)
{
    rmp_request_t req;
    int rc = rmp_issend(buf, bytes, dest, tag, comm, &req);
    if (rc != RMP_SUCCESS)
        return rc;
    return rmp_wait(&req, NULL);
}

RMP_EXPORT int rmp_cancel(rmp_request_t *req, int *cancelled)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!req || !cancelled)
        return RMP_ERR_ARG;
    *cancelled = *req != RMP_REQUEST_NULL && rmpi_recv_cancel(*req, 0);
    if (*cancelled)
        *req = RMP_REQUEST_NULL;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_request_cancel(rmp_request_t req, int *cancelled)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!cancelled || (req != RMP_REQUEST_NULL && !p2p_req_live(req)))
        return RMP_ERR_ARG;
    *cancelled = req != RMP_REQUEST_NULL &&
                 (req->kind == RMPI_REQ_SEND ? rmpi_send_cancel(req) : rmpi_recv_cancel(req, 1));
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_request_free(rmp_request_t *req)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!req || (*req != RMP_REQUEST_NULL && !p2p_req_live(*req)))
        return RMP_ERR_ARG;
    if (*req != RMP_REQUEST_NULL)
        rmpi_req_release(*req);
    *req = RMP_REQUEST_NULL;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_request_get_status(rmp_request_t req, int *done, rmp_status_t *st)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!done || (req != RMP_REQUEST_NULL && !p2p_req_live(req)))
        return RMP_ERR_ARG;
    if (req == RMP_REQUEST_NULL) {
        *done = 1;
        if (st)
            *st = (rmp_status_t){RMP_ANY_SOURCE, RMP_ANY_TAG, 0, RMP_SUCCESS, RMP_COMM_NULL};
        return RMP_SUCCESS;
    }
    *done = rmpi_req_done(req);
    if (*done && st)
        *st = req->status;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_improbe(int source, int tag, rmp_comm_t comm, int *flag, rmp_message_t *msg,
                           rmp_status_t *st)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = p2p_check_recv(NULL, 0, source, tag, comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!flag || !msg)
        return RMP_ERR_ARG;
    rmpi_ux_t *u = rmpi_recv_mprobe(e, comm->cid, source, tag, st);
    if (!u) {
        rmpi_progress();
        u = rmpi_recv_mprobe(e, comm->cid, source, tag, st);
    }
    *flag = u != NULL;
    if (u)
        *msg = (rmp_message_t)u;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_mprobe(int source, int tag, rmp_comm_t comm, rmp_message_t *msg,
                          rmp_status_t *st)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = p2p_check_recv(NULL, 0, source, tag, comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!msg)
        return RMP_ERR_ARG;
    int peer = source == RMP_ANY_SOURCE ? -1 : rmpi_comm_world_rank(comm, source);
    rmpi_waiter_t wt;
    rmpi_waiter_init(&wt);
    rmpi_diag_t outer = rmpi_diag_save();
    rmpi_diag_wait("rmp_mprobe", peer, tag, (long)comm->cid);
    for (;;) {
        rmpi_ux_t *u = rmpi_recv_mprobe(e, comm->cid, source, tag, st);
        if (u) {
            *msg = (rmp_message_t)u;
            break;
        }
        if (peer >= 0 && rmpi_peer_lost(e, peer)) {
            rc = RMP_ERR_PEER_FAILED;
            break;
        }
        rmpi_progress();
        rc = rmpi_waiter_poll(&wt);
        if (rc != RMP_SUCCESS)
            break;
    }
    rmpi_diag_restore(outer);
    return rc;
}

static int p2p_imrecv(rmpi_engine_t *e, void *buf, const rmp_layout_t *lay, size_t bytes,
                      rmp_message_t *msg, rmp_request_t *out)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!msg || *msg == RMP_MESSAGE_NULL || !out || (buf == NULL && lay == NULL && bytes > 0))
        return RMP_ERR_ARG;
    rmpi_mt_enter(e);
    rmp_request_t req = rmpi_req_alloc(e, RMPI_REQ_RECV);
    rmpi_mt_leave(e);
    if (RMPI_UNLIKELY(!req))
        return RMP_ERR_NOMEM;
    req->buf = buf;
    req->lay = lay;
    req->bytes = bytes;
    rmpi_ux_t *u = (rmpi_ux_t *)*msg;
    *msg = RMP_MESSAGE_NULL;
    rmpi_recv_take(req, u);
    *out = req;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_imrecv(void *buf, size_t bytes, rmp_message_t *msg, rmp_request_t *out)
{
    rmpi_engine_t *e = &rmpi_eng;
    return p2p_imrecv(e, buf, NULL, bytes, msg, out);
}

RMP_EXPORT int rmp_imrecv_layout(const rmp_layout_t *lay, size_t bytes, rmp_message_t *msg,
                                 rmp_request_t *out)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = p2p_check_layout(lay, 0);
    return rc != RMP_SUCCESS ? rc : p2p_imrecv(e, NULL, lay, bytes, msg, out);
}

RMP_EXPORT int rmp_mrecv(void *buf, size_t bytes, rmp_message_t *msg, rmp_status_t *st)
{
    rmp_request_t req;
    int rc = rmp_imrecv(buf, bytes, msg, &req);
    if (rc != RMP_SUCCESS)
        return rc;
    return rmp_wait(&req, st);
}
