/* SPDX-License-Identifier: BSD-3-Clause */
/* Failed peers (core/failure.h). */
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

static int failure_comm_has(rmp_comm_t comm, int world)
{
    if (!comm || !comm->world)
        return 1; /* the world communicator */
    for (int i = 0; i < comm->size; i++)
        if (comm->world[i] == world)
            return 1;
    return 0;
}

int rmpi_comm_lost_member(rmp_comm_t comm)
{
    if (RMPI_LIKELY(__atomic_load_n(&rmpi_ctx.nfailed, __ATOMIC_RELAXED) == 0))
        return 0;
    for (int i = 0; i < comm->size; i++)
        if (rmpi_peer_lost(rmpi_comm_world_rank(comm, i)))
            return 1;
    return 0;
}

int rmpi_failure_dooms_recv(int peer, uint32_t cid, rmp_comm_t comm)
{
    return (peer >= 0 && rmpi_peers[peer].failed) ||
           (rmpi_cid_is_coll(cid) && rmpi_comm_lost_member(comm));
}

static void failure_fail_req(rmp_request_t req, void *arg)
{
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
        rmpi_rndv_withdraw(req);
    rmpi_req_fail(req, RMP_ERR_PEER_FAILED);
}

static void failure_mark(int peer, const char *why)
{
    if (peer < 0 || peer >= rmpi_g.size || !rmpi_peers || rmpi_peers[peer].failed)
        return;
    rmpi_peer_t *p = &rmpi_peers[peer];
    __atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&rmpi_ctx.nfailed, rmpi_ctx.nfailed + 1, __ATOMIC_RELAXED);
    rmpi_warn("rank %d failed (%s): its operations return %s", peer, why,
              rmp_strerror(RMP_ERR_PEER_FAILED));
    rmpi_send_fail_pending(peer); /* unsent messages to it go nowhere */
    p->frag_rx = NULL;
    /* Receives from it, rendezvous waiting on it. */
    rmpi_req_foreach(failure_fail_req, &peer);
}

void rmpi_peer_failed(int peer, const char *why)
{
    rmpi_mt_enter(); /* rare: no need to keep the check out of line */
    failure_mark(peer, why);
    rmpi_mt_leave();
}

void rmpi_check_failures(void)
{
    int ranks[16];
    int n;
    while ((n = rmpi_boot_failed_ranks(ranks, 16)) > 0)
        for (int i = 0; i < n; i++)
            rmpi_peer_failed(ranks[i], "reported by the launcher");
    for (int w = 0; w < rmpi_g.size; w++) {
        rmpi_peer_t *p = &rmpi_peers[w];
        if (w != rmpi_g.rank && !p->failed && p->iface && p->iface->ep_alive &&
            p->iface->ep_alive(p->ep) == RMP_ERR_PEER_FAILED)
            rmpi_peer_failed(w, "process gone");
    }
}
