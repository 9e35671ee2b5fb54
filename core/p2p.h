/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point engine: requests, peers, protocols. Internal API used by
 * the public entry points, communicators and collectives. */
#ifndef RMPI_P2P_H
#define RMPI_P2P_H

#include "match.h"
#include "proto.h"
#include "rmpi.h"
#include "transport.h"

enum { RMPI_REQ_SEND = 1, RMPI_REQ_RECV, RMPI_REQ_CTRL, RMPI_REQ_GEN };

enum {
    RMPI_REQF_WAIT_FIN = 1, /* rendezvous send: complete when FIN arrives */
    RMPI_REQF_FRAG = 2,     /* fragmented send in progress */
    RMPI_REQF_ORPHAN = 4,   /* its waiter gave up (timeout): free on completion */
    RMPI_REQF_NEED_PUT = 8  /* CTS received but the transport had no room: retry */
};

struct rmp_request {
    rmpi_mq_elem_t mq; /* posted-receive queue, or a peer's pending-send FIFO */
    uint8_t kind;
    uint8_t flags;
    uint8_t hlen; /* bytes of wire used while the send is pending */
    volatile int done;
    int peer; /* world rank: destination of a send, source of a matched receive */
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
    /* RMPI_REQ_GEN: poll returns 1 when done (status/error set), 0 otherwise. */
    int (*poll)(rmp_request_t req);
    void *ctx;
    void (*release)(rmp_request_t req); /* frees ctx when the request is freed */
    struct rmp_request *next_active;     /* list of active generic requests */
};

typedef struct rmpi_peer {
    const rmpi_tl_iface_t *iface;
    rmpi_tl_t *tl;
    rmpi_ep_t *ep;
    size_t max_am;
    size_t rndv_threshold;
    int rndv_mode;
    int slot;                   /* index of its transport in rmpi_g.tls */
    int failed;                 /* the peer died or its connection broke */
    bool rma;                   /* transport put/get usable with this peer */
    rmpi_mq_t pending;          /* sends waiting for room, in order */
    rmp_request_t frag_rx;      /* fragmented message being received */
    struct rmpi_ux *frag_ux;    /* ... or buffered as unexpected */
} rmpi_peer_t;

typedef struct rmpi_stats {
    uint64_t eager_sent, eager_bytes, rndv_sent, rndv_bytes, frag_sent, frag_bytes;
    uint64_t unexpected;
    /* per transport slot of rmpi_g.tls (RMP_STATS=1) */
    uint64_t tl_msgs[RMPI_TL_MAX], tl_bytes[RMPI_TL_MAX];
} rmpi_stats_t;

extern rmpi_peer_t *rmpi_peers;
extern rmpi_stats_t rmpi_stats;

/* Runtime hooks. */
int rmpi_p2p_init(void);
int rmpi_p2p_drain(void);
void rmpi_p2p_fini(void);
void rmpi_am_handler(int src, const void *hdr, size_t hlen, const void *payload, size_t plen);
/* One-sided emulation messages (core/rma.c). */
void rmpi_rma_handler(int src, const void *hdr, size_t hlen, const void *payload, size_t plen);
/* Free every window (rmp_finalize; nothing may access one any more). */
void rmpi_rma_fini(void);
/* Send a control message (<= 64 bytes of header, no payload) to world rank peer, queued in order. */
int rmpi_send_ctrl(int peer, const void *msg, size_t len, const void *payload, size_t plen);

/* Requests. */
/* Give up on req (its waiter timed out): an unmatched receive is withdrawn
 * and freed, anything else is freed when it completes. */
void rmpi_req_abandon(rmp_request_t req);
rmp_request_t rmpi_req_alloc(int kind);
void rmpi_req_free(rmp_request_t req);
void rmpi_req_complete(rmp_request_t req);
/* Wait until done; the request stays allocated. Honors RMP_TIMEOUT and
 * detects failed peers (their requests complete with RMP_ERR_PEER_FAILED). */
int rmpi_req_wait(rmp_request_t req);

/* For every blocking loop: call rmpi_waiter_poll after each progress. Every
 * 1024th call it looks at the clock: RMP_TIMEOUT, and every 50 ms a check of
 * the peers' health. Returns RMP_SUCCESS or RMP_ERR_TIMEOUT. */
typedef struct rmpi_waiter {
    unsigned spins;
    double deadline; /* 0: none */
    double next_check;
} rmpi_waiter_t;
void rmpi_waiter_init(rmpi_waiter_t *w);
int rmpi_waiter_poll(rmpi_waiter_t *w);

/* Peer failure: every request involving world rank peer completes with
 * RMP_ERR_PEER_FAILED, and later operations towards it fail at once. Called
 * by the core's health checks and by transports (connection loss). */
void rmpi_peer_failed(int peer, const char *why);
/* Has a member of comm failed? Collectives on such a communicator fail. */
int rmpi_comm_lost_member(rmp_comm_t comm);
/* For loops that never block (direct one-sided access): now and then the
 * same health check as a blocking wait, so that a dead target is noticed. */
void rmpi_health_tick(void);
/* Poll the launcher's failure notices and the transports' liveness checks. */
void rmpi_check_failures(void);
/* A generic request completed by poll(), driven by the progress engine. */
int rmpi_req_gen(int (*poll)(rmp_request_t), void *ctx, void (*release)(rmp_request_t),
                 rmp_request_t *out);

/* What a blocking call waits on when it has no request (probe, one-sided
 * waits), for the SIGUSR1 report (core/diag.c); call == NULL: nothing. */
typedef struct rmpi_diag {
    const char *call;
    int peer; /* world rank, -1: any or several */
    int tag;
    long cid;
    int coll; /* a collective waiting in a shared segment: reported like its receives */
} rmpi_diag_t;
extern volatile rmpi_diag_t rmpi_blocked_other;
/* Name of the last collective entered (the report names the call). */
extern const char *volatile rmpi_coll_call;

/* Messaging on an explicit context id (collectives use comm->cid + 1).
 * dest/source are ranks in comm. */
int rmpi_isend_cid(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                   uint32_t cid, rmp_request_t *req);
int rmpi_irecv_cid(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm,
                   uint32_t cid, rmp_request_t *req);
int rmpi_send_cid(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                  uint32_t cid);
int rmpi_recv_cid(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm, uint32_t cid,
                  rmp_status_t *st);

/* Progress engine: poll every transport, retry pending sends, poll generic
 * requests. Returns the number of events. */
int rmpi_progress(void);
/* Work happened outside the progress engine (a shared-memory collective saw its peers
 * move): an oversubscribed rank must not drift into its sleeping idle mode. */
void rmpi_progress_active(void);

#endif
