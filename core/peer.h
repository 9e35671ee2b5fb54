/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-peer state of the engine (one entry per world rank, set up by
 * core/runtime.c at connect time) and the message counters. */
#ifndef RMPI_PEER_H
#define RMPI_PEER_H

#include "engine.h"
#include "match.h"
#include "rmpi.h"
#include "transport.h"

typedef struct rmpi_peer {
    const rmpi_tl_iface_t *iface;
    rmpi_tl_t *tl;
    rmpi_ep_t *ep;
    size_t max_am;
    size_t rndv_threshold;
    int rndv_mode;
    int slot;                   /* index of its transport in rmpi_eng.tls.v */
    int failed;                 /* the peer died or its connection broke */
    bool tell_others;           /* seen failing here: notice to send (failure.c) */
    bool rma;                   /* transport put/get usable with this peer */
    bool copyv;                 /* ... and copyv: segment lists on both sides (core/layout.h) */
    size_t copyv_local_min;     /* ... worth it from these average segment lengths (caps) */
    size_t copyv_remote_min;
    size_t rma_msg_max;         /* ... but not for transfers up to this size (caps) */
    rmpi_mq_t pending;          /* sends waiting for room, in order */
    rmp_request_t frag_rx;      /* fragmented message being received */
    struct rmpi_ux *frag_ux;    /* ... or buffered as unexpected */
} rmpi_peer_t;

/* Has world rank w failed? Readable without the engine lock (the wait loops
 * of MULTIPLE); failure.c sets the flag under it. */
static inline int rmpi_peer_lost(rmpi_engine_t *e, int w)
{
    return __atomic_load_n(&e->peers[w].failed, __ATOMIC_RELAXED);
}

/* p reaches its rank through the engine's transport slot, connected with caps (the
 * transport's answer to connect): the one place a peer's transport fields are set. */
static inline void rmpi_peer_attach(rmpi_engine_t *e, rmpi_peer_t *p, int slot,
                                    const rmpi_tl_caps_t *caps)
{
    p->iface = e->tls.v[slot].iface;
    p->tl = e->tls.v[slot].tl;
    p->max_am = caps->max_am;
    p->rndv_threshold = caps->rndv_threshold;
    p->rndv_mode = caps->rndv_mode;
    p->slot = slot;
    p->rma = caps->rma && p->iface->put && p->iface->get;
    p->copyv = p->rma && p->iface->copyv;
    p->copyv_local_min = caps->copyv_local_min;
    p->copyv_remote_min = caps->copyv_remote_min;
    p->rma_msg_max = caps->rma_msg_max;
}

/* Count a message of bytes sent to p on engine E (RMP_STATS=1 prints the counters). */
#define RMPI_STATS_SENT(E, p, kind, nbytes)                 \
    do {                                                    \
        (E)->stats.kind##_sent++;                           \
        (E)->stats.kind##_bytes += (nbytes);                \
        (E)->stats.tl_msgs[(p)->slot]++;                    \
        (E)->stats.tl_bytes[(p)->slot] += (nbytes);         \
    } while (0)
/* Count a message of nbytes that arrived on engine E (rmp_stats_get, MPI_T). */
#define RMPI_STATS_RECVD(E, nbytes)                         \
    do {                                                    \
        (E)->stats.recvd++;                                 \
        (E)->stats.recvd_bytes += (nbytes);                 \
    } while (0)

#endif
