/* SPDX-License-Identifier: BSD-3-Clause */
/* Failed peers (core/failure.h). */
#include <stdio.h>
#include <string.h>

#include "am.h"
#include "bootstrap.h"
#include "coll_id.h"
#include "comm.h"
#include "engine.h"
#include "failure.h"
#include "log.h"
#include "mt.h"
#include "peer.h"
#include "recv.h"
#include "request.h"
#include "rndv.h"
#include "send.h"

/* Is world rank `world` a member of comm or of the communicators it serves (fail_scope)? */
static int failure_comm_has(rmp_comm_t comm, int world)
{
    if (!comm)
        return 1;
    for (; comm; comm = comm->fail_scope) {
        if (!comm->world)
            return 1; /* the world communicator */
        for (int i = 0; i < comm->size; i++)
            if (comm->world[i] == world)
                return 1;
    }
    return 0;
}

int rmpi_comm_scan_lost(rmp_comm_t comm)
{
    rmpi_engine_t *e = &rmpi_eng;
    for (; comm; comm = comm->fail_scope)
        for (int i = 0; i < comm->size; i++)
            if (rmpi_peer_lost(e, rmpi_comm_world_rank(comm, i)))
                return 1;
    return 0;
}

int rmpi_failure_dooms_recv(rmpi_engine_t *e, int peer, uint32_t cid, rmp_comm_t comm)
{
    return (peer >= 0 && e->peers[peer].failed) ||
           (rmpi_cid_is_coll(cid) && rmpi_comm_lost_member(comm));
}

static void failure_fail_req(rmp_request_t req, void *arg)
{
    rmpi_engine_t *e = &rmpi_eng;
    int peer = *(int *)arg;
    if (req->kind == RMPI_REQ_GEN)
        return;
    /* A collective on a communicator that lost a member cannot complete,
     * whichever member this rank happens to wait for. */
    int posted = req->kind == RMPI_REQ_RECV && rmpi_recv_is_posted(&req->mq);
    int coll_recv = posted && rmpi_cid_is_coll(req->mq.cid) && failure_comm_has(req->comm, peer);
    if (req->peer != peer && !coll_recv)
        return;
    if (posted)
        rmpi_recv_withdraw(req);
    else if (req->flags & RMPI_REQF_NEED_PUT)
        rmpi_rndv_withdraw(e, req);
    rmpi_req_fail(req, RMP_ERR_PEER_FAILED);
}

/* tell: this rank saw it (a transport, a protocol error, a liveness check), so the
 * others may not: each live rank gets a notice at the next failure check. A launcher's
 * report reaches every rank anyway, and a notice is not passed on. */
static void failure_mark(rmpi_engine_t *e, int peer, const char *why, int tell)
{
    if (peer < 0 || peer >= e->job.size || !e->peers || e->peers[peer].failed)
        return;
    rmpi_peer_t *p = &e->peers[peer];
    __atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
    if (tell && e->job.size > 2) {
        p->tell_others = true;
        e->p2p.ntell++;
    }
    __atomic_store_n(&e->p2p.nfailed, e->p2p.nfailed + 1, __ATOMIC_RELAXED);
    rmpi_warn("rank %d failed (%s): its operations return %s", peer, why,
              rmp_strerror(RMP_ERR_PEER_FAILED));
    rmpi_send_fail_pending(e, peer); /* unsent messages to it go nowhere */
    p->frag_rx = NULL;
    /* Receives from it, rendezvous waiting on it. */
    rmpi_req_foreach(e, failure_fail_req, &peer);
}

void rmpi_peer_failed(int peer, const char *why)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_mt_enter(e); /* rare: no need to keep the check out of line */
    failure_mark(e, peer, why, 1);
    rmpi_mt_leave(e);
}

/* The notices of failures seen here, to every rank not known to have failed (one
 * small message each; a rank not connected yet is connected for it). */
static void failure_tell(rmpi_engine_t *e)
{
    for (int f = 0; f < e->job.size && e->p2p.ntell > 0; f++) {
        if (!e->peers[f].tell_others)
            continue;
        e->peers[f].tell_others = false;
        e->p2p.ntell--;
        rmpi_failnote_t m;
        memset(&m, 0, sizeof(m));
        m.type = RMPI_MSG_FAILED;
        m.rank = f;
        for (int w = 0; w < e->job.size; w++)
            if (w != e->job.rank && !e->peers[w].failed)
                (void)rmpi_send_ctrl(w, &m, sizeof(m), NULL, 0); /* best effort */
    }
}

static void failure_on_msg(rmpi_engine_t *e, int src, const void *hdr, size_t hlen, const void *payload,
                           size_t plen)
{
    (void)hlen;
    (void)payload;
    (void)plen;
    const rmpi_failnote_t *m = hdr;
    if (m->rank >= e->job.size) {
        rmpi_error("protocol error: failure notice from rank %d names rank %d of %d", src,
                   m->rank, e->job.size);
        return;
    }
    if (m->rank == e->job.rank) {
        /* Its connection to this rank broke; this rank is alive and says so once. */
        rmpi_warn("rank %d reports this rank as failed (a broken connection): ignored", src);
        return;
    }
    char why[48];
    snprintf(why, sizeof(why), "reported by rank %d", src);
    failure_mark(e, m->rank, why, 0);
}

void rmpi_failure_register(rmpi_engine_t *e)
{
    rmpi_am_register(e, RMPI_MSG_FAILED, failure_on_msg);
}

void rmpi_check_failures(rmpi_engine_t *e)
{
    int ranks[16];
    int n;
    while ((n = rmpi_boot_failed_ranks(e, ranks, 16)) > 0) {
        rmpi_mt_enter(e);
        for (int i = 0; i < n; i++)
            failure_mark(e, ranks[i], "reported by the launcher", 0);
        rmpi_mt_leave(e);
    }
    for (int w = 0; w < e->job.size; w++) {
        rmpi_peer_t *p = &e->peers[w];
        if (w != e->job.rank && !p->failed && p->iface && p->iface->ep_alive &&
            p->iface->ep_alive(p->ep) == RMP_ERR_PEER_FAILED)
            rmpi_peer_failed(w, "process gone");
    }
    if (RMPI_UNLIKELY(e->p2p.ntell > 0)) {
        rmpi_mt_enter(e);
        failure_tell(e);
        rmpi_mt_leave(e);
    }
}
