/* SPDX-License-Identifier: BSD-3-Clause */
/* Requests: the object behind rmp_request_t, their pool, completion, and the
 * wait loop with its timeout and health checks (core/request.c). What the collectives
 * use of them (waits, results, generic requests, the waiter) is declared in
 * core/api/coll_core.h. */
#ifndef RMPI_REQUEST_H
#define RMPI_REQUEST_H

#include "coll_core.h"
#include "match.h"
#include "proto.h"
#include "rmpi.h"
#include "transport.h"

enum { RMPI_REQ_SEND = 1, RMPI_REQ_RECV, RMPI_REQ_CTRL, RMPI_REQ_GEN };

enum {
    RMPI_REQF_WAIT_FIN = 1, /* rendezvous send: complete when FIN arrives */
    RMPI_REQF_FRAG = 2,     /* fragmented send in progress */
    RMPI_REQF_ORPHAN = 4,   /* nobody waits (timeout, rmp_request_free): free on completion */
    RMPI_REQF_NEED_PUT = 8, /* CTS received but the transport had no room: retry */
    RMPI_REQF_SYNC_ACK = 16, /* receive of a synchronous fragmented send: FIN when complete */
    RMPI_REQF_MORE = 32,     /* RNDV_PUT send: more pieces follow this one (layout receiver) */
    RMPI_REQF_IN_CALL = 64,     /* inside a transport's put/get that moves a piece */
    RMPI_REQF_CALLED_BACK = 128, /* that put/get completed before it returned */
    RMPI_REQF_DIRECT = 256,     /* layout receive: the piece asked for lands in place */
    RMPI_REQF_SLOT1 = 512       /* layout receive: the next bounce piece goes to the 2nd half */
};

struct rmp_request {
    rmpi_mq_elem_t mq; /* posted-receive queue, or a peer's pending-send FIFO */
    uint8_t kind;
    uint8_t hlen; /* bytes of wire used while the send is pending */
    uint16_t flags;
    int done; /* written under the engine lock; read unlocked with rmpi_req_done */
    int peer; /* world rank: destination of a send, source of a matched receive */
    uint32_t owner; /* MULTIPLE: the allocating thread (rmpi_mt_tag), for the hand-off */
    void *buf;
    size_t bytes;
    rmp_status_t status;
    /* Send state kept while the transport has no room. */
    union {
        rmpi_hdr_t h;
        rmpi_rts_t rts;
        rmpi_fin_t fin;
        rmpi_cts_t cts;
        unsigned char raw[64];
    } wire;
    rmpi_mr_t *mr;      /* rendezvous registration, released at completion */
    rmp_comm_t comm;    /* receives: their communicator (for failure handling) */
    uint64_t peer_req;  /* rendezvous: the other side's request id */
    const void *payload;
    size_t plen;
    size_t frag_off; /* fragmented protocol: bytes moved so far */
    size_t total;
    /* RMPI_REQ_GEN: poll(ctx, &status.error) (core/api/coll_core.h: rmpi_req_gen). */
    int (*poll)(void *ctx, int *error);
    void (*gen_release)(void *ctx);
    void *ctx;
    void (*release)(rmp_request_t req); /* frees ctx when the request is freed */
    struct rmp_request *next_active;     /* list of active generic requests */
    const rmp_layout_t *lay; /* data in the caller's layout (core/layout.c), else NULL */
};

/* Has req completed? Safe without the engine lock (MULTIPLE): what completion
 * wrote before is visible after a true answer. */
static inline int rmpi_req_done(const struct rmp_request *req)
{
    return __atomic_load_n(&req->done, __ATOMIC_ACQUIRE);
}

/* Under the engine lock (MULTIPLE): its callers hold it. */
rmp_request_t rmpi_req_alloc(rmpi_engine_t *e, int kind);
void rmpi_req_complete(rmp_request_t req);
/* Nobody will wait for req (rmp_request_free): freed now if complete, else at completion. */
void rmpi_req_release(rmp_request_t req);
/* Complete req with error rc; a control message (nobody waits on it) is freed. */
void rmpi_req_fail(rmp_request_t req, int rc);
/* Poll the generic requests (progress engine); the number that completed. */
int rmpi_req_progress_gen(rmpi_engine_t *e);
/* Is any generic request active? Read by every progress call. */
/* Every live request, for failure handling (rare: a linear scan). */
void rmpi_req_foreach(rmpi_engine_t *e, void (*fn)(rmp_request_t req, void *arg), void *arg);
/* Free the pool (rmp_finalize). */
void rmpi_req_pool_fini(rmpi_engine_t *e);
/* The request a blocking call waits on, for the SIGUSR1 report (core/diag.c). */
extern __thread rmp_request_t rmpi_blocked_req __attribute__((tls_model("initial-exec")));

/* For loops that never block (direct one-sided access): now and then the
 * same health check as a blocking wait, so that a dead target is noticed. */
void rmpi_health_tick(void);

#endif
