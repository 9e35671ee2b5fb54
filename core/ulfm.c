/* SPDX-License-Identifier: BSD-3-Clause */
/* Surviving failures: the per-communicator state, revocation, failure acknowledgement
 * (core/ulfm.h). Nothing here is on the message path: a revoke clears the fast-path
 * flags (rmpi_tls_main, rmpi_any_thread), so that every later call that names a
 * communicator takes rmpi_comm_check_slow, which asks rmpi_ulfm_revoked. */
#include <stdlib.h>
#include <string.h>

#include "am.h"
#include "failure.h"
#include "log.h"
#include "mt.h"
#include "peer.h"
#include "recv.h"
#include "request.h"
#include "send.h"
#include "ulfm.h"


rmpi_ulfm_st_t *rmpi_ulfm_get(rmpi_engine_t *e, uint32_t cid, int size)
{
    for (rmpi_ulfm_st_t *s = e->ulfm_list; s; s = s->next)
        if (s->cid == cid)
            return s->size == size ? s : NULL;
    rmpi_ulfm_st_t *s = calloc(1, sizeof(*s));
    if (!s || !(s->acked = calloc((size_t)size, 1))) {
        free(s);
        return NULL;
    }
    s->cid = cid;
    s->size = size;
    s->sent_to = -1;
    s->query_from = -1;
    s->next = e->ulfm_list;
    e->ulfm_list = s;
    return s;
}

static rmpi_ulfm_st_t *ulfm_find(rmpi_engine_t *e, uint32_t cid)
{
    for (rmpi_ulfm_st_t *s = e->ulfm_list; s; s = s->next)
        if (s->cid == cid)
            return s;
    return NULL;
}

void rmpi_ulfm_val_free(rmpi_ulfm_val_t *v)
{
    free(v->failed);
    v->failed = NULL;
}

static void ulfm_st_free(rmpi_ulfm_st_t *s)
{
    rmpi_ulfm_val_free(&s->mine);
    for (int i = 0; i < 2; i++) {
        rmpi_ulfm_val_free(&s->coll[i].val);
        free(s->coll[i].got);
        rmpi_ulfm_val_free(&s->dec[i]);
    }
    free(s->acked);
    free(s);
}

void rmpi_ulfm_forget(rmpi_engine_t *e, uint32_t cid)
{
    for (rmpi_ulfm_st_t **p = &e->ulfm_list; *p; p = &(*p)->next)
        if ((*p)->cid == cid) {
            rmpi_ulfm_st_t *s = *p;
            *p = s->next;
            ulfm_st_free(s);
            return;
        }
}

void rmpi_ulfm_fini(rmpi_engine_t *e)
{
    while (e->ulfm_list) {
        rmpi_ulfm_st_t *s = e->ulfm_list;
        e->ulfm_list = s->next;
        ulfm_st_free(s);
    }
    e->ulfm_nrevoked = 0;
}

void rmpi_ulfm_send(rmpi_engine_t *e, rmp_comm_t comm, int m, const rmpi_ftmsg_t *msg,
                    const uint8_t *bitmap)
{
    int w = rmpi_comm_world_rank(comm, m);
    if (m == comm->rank || rmpi_peer_lost(e, w))
        return;
    size_t plen = bitmap ? ((size_t)comm->size + 7) / 8 : 0;
    (void)rmpi_send_ctrl(w, msg, sizeof(*msg), bitmap, plen); /* best effort: it may die */
}

/* Pass the revoke on to every live member: it reaches them although its first sender
 * may die half-way through its own sends. */
static void ulfm_flood(rmpi_engine_t *e, rmp_comm_t comm, rmpi_ulfm_st_t *s)
{
    if (s->flooded)
        return;
    s->flooded = 1;
    rmpi_ftmsg_t m;
    memset(&m, 0, sizeof(m));
    m.type = RMPI_MSG_FT;
    m.op = RMPI_FT_REVOKE;
    m.cid = comm->cid;
    m.size = (uint32_t)comm->size;
    m.from = comm->rank;
    for (int r = 0; r < comm->size; r++)
        rmpi_ulfm_send(e, comm, r, &m, NULL);
}

typedef struct ulfm_scan {
    uint32_t cid;
    rmp_comm_t comm; /* a communicator with that context, found on a pending request */
} ulfm_scan_t;

/* Pending operations on a revoked communicator complete with RMP_ERR_REVOKED: posted
 * receives (its point-to-point and collective contexts). A send already on the wire
 * completes by its protocol (a rendezvous peer may still read its buffer). */
static void ulfm_fail_req(rmp_request_t req, void *arg)
{
    ulfm_scan_t *sc = arg;
    if (req->kind != RMPI_REQ_RECV || !req->comm || req->comm->cid != sc->cid)
        return;
    sc->comm = req->comm;
    if (!rmpi_recv_is_posted(&req->mq))
        return;
    rmpi_recv_withdraw(req);
    rmpi_req_fail(req, RMP_ERR_REVOKED);
}

/* Mark cid revoked here (once) and end what waits on it. */
static void ulfm_revoke_local(rmpi_engine_t *e, rmpi_ulfm_st_t *s, rmp_comm_t comm)
{
    if (!s->revoked) {
        s->revoked = 1;
        e->ulfm_nrevoked++;
        /* From now on every call naming a communicator asks (rmpi_comm_check_slow). */
        if (e->thr.main_tls)
            __atomic_store_n(e->thr.main_tls, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&rmpi_any_thread, 0, __ATOMIC_RELAXED);
        ulfm_scan_t sc = {s->cid, comm};
        rmpi_req_foreach(e, ulfm_fail_req, &sc);
        comm = sc.comm;
    }
    if (comm)
        ulfm_flood(e, comm, s);
}

void rmpi_ulfm_sweep(rmpi_engine_t *e)
{
    for (rmpi_ulfm_st_t *s = e->ulfm_list; s; s = s->next)
        if (s->revoked) {
            ulfm_scan_t sc = {s->cid, NULL};
            rmpi_req_foreach(e, ulfm_fail_req, &sc);
            if (sc.comm)
                ulfm_flood(e, sc.comm, s);
        }
}

int rmpi_ulfm_revoked(rmpi_engine_t *e, rmp_comm_t comm)
{
    if (!e->ulfm_nrevoked)
        return 0;
    rmpi_ulfm_st_t *s = ulfm_find(e, comm->cid);
    if (!s || !s->revoked)
        return 0;
    ulfm_flood(e, comm, s); /* a revoke received before this communicator was seen */
    return 1;
}

static void ulfm_on_msg(rmpi_engine_t *e, int src, const void *hdr, size_t hlen, const void *payload,
                        size_t plen)
{
    (void)hlen;
    (void)plen;
    const rmpi_ftmsg_t *m = hdr;
    if (src < 0 || src >= e->job.size || e->peers[src].failed)
        return; /* late words of a rank declared failed are not heard */
    if (m->op != RMPI_FT_REVOKE) {
        rmpi_ulfm_agree_on_msg(e, src, m, payload);
        return;
    }
    rmpi_ulfm_st_t *s = rmpi_ulfm_get(e, m->cid, (int)m->size);
    if (!s) {
        rmpi_error("revoke of context %u from rank %d: no memory, or a size (%u) that "
                   "differs from this rank's", m->cid, src, m->size);
        return;
    }
    ulfm_revoke_local(e, s, NULL);
}

void rmpi_ulfm_register(rmpi_engine_t *e)
{
    rmpi_am_register(e, RMPI_MSG_FT, ulfm_on_msg);
}

RMP_EXPORT int rmp_comm_revoke(rmp_comm_t comm)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_comm_check_local(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    rmpi_mt_enter(e);
    rmpi_ulfm_st_t *s = rmpi_ulfm_get(e, comm->cid, comm->size);
    if (s)
        ulfm_revoke_local(e, s, comm);
    rmpi_mt_leave(e);
    return s ? RMP_SUCCESS : RMP_ERR_NOMEM;
}

RMP_EXPORT int rmp_comm_is_revoked(rmp_comm_t comm, int *flag)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_comm_check_local(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!flag)
        return RMP_ERR_ARG;
    rmpi_mt_enter(e);
    *flag = rmpi_ulfm_revoked(e, comm);
    rmpi_mt_leave(e);
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_comm_failure_ack(rmp_comm_t comm)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_comm_check_local(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    rmpi_mt_enter(e);
    rmpi_ulfm_st_t *s = rmpi_ulfm_get(e, comm->cid, comm->size);
    for (int r = 0; s && r < comm->size; r++)
        if (rmpi_peer_lost(e, rmpi_comm_world_rank(comm, r)))
            s->acked[r] = 1;
    rmpi_mt_leave(e);
    return s ? RMP_SUCCESS : RMP_ERR_NOMEM;
}

int rmpi_ulfm_anysrc_stalled(rmpi_engine_t *e, rmp_request_t req)
{
    rmp_comm_t comm = req->comm;
    if (req->kind != RMPI_REQ_RECV || req->done || req->mq.src != RMP_ANY_SOURCE || !comm ||
        req->mq.cid != comm->cid || !rmpi_recv_is_posted(&req->mq))
        return 0;
    rmpi_ulfm_st_t *s = ulfm_find(e, comm->cid);
    for (int r = 0; r < comm->size; r++)
        if (rmpi_peer_lost(e, rmpi_comm_world_rank(comm, r)) && !(s && s->acked[r]))
            return 1;
    return 0;
}

RMP_EXPORT int rmp_comm_failure_get_acked(rmp_comm_t comm, int *ranks, int max, int *n)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_comm_check_local(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!n || max < 0 || (max > 0 && !ranks))
        return RMP_ERR_ARG;
    rmpi_mt_enter(e);
    rmpi_ulfm_st_t *s = ulfm_find(e, comm->cid);
    int k = 0;
    for (int r = 0; s && r < comm->size; r++)
        if (s->acked[r]) {
            if (k < max)
                ranks[k] = r;
            k++;
        }
    rmpi_mt_leave(e);
    *n = k;
    return k > max ? RMP_ERR_TRUNCATE : RMP_SUCCESS;
}
