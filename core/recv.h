/* SPDX-License-Identifier: BSD-3-Clause */
/* Matching (core/recv.c): posted receives and unexpected messages of this
 * rank, the pool of unexpected entries, and the receive calls on an explicit
 * context id. The protocol handlers ask here for the receive a message
 * matches, or leave the message here when none is posted. */
#ifndef RMPI_RECV_H
#define RMPI_RECV_H

#include "cid_msg.h"
#include "engine.h"
#include "match.h"
#include "proto.h"
#include "request.h"
#include "rmp.h"

#define RMPI_UX_INLINE 256

/* An unexpected message: its matching triple in mq, what the protocol needs
 * to finish it once a receive takes it, and the bytes that came with it. */
typedef struct rmpi_ux {
    rmpi_mq_elem_t mq;
    int peer;       /* world rank of the sender */
    uint8_t type;   /* RMPI_MSG_EAGER, _RTS or _FRAG_FIRST */
    uint8_t hflags; /* the message's RMPI_HDR_* flags */
    size_t size;    /* whole message */
    size_t have;    /* bytes buffered so far */
    uint64_t sreq, addr, key;
    unsigned char *data;
    struct rmpi_ux *next_free;
    unsigned char inline_buf[RMPI_UX_INLINE];
} rmpi_ux_t;


/* The posted receive that message h matches, taken off the queue; NULL if none. */
static inline rmp_request_t rmpi_recv_match(rmpi_engine_t *e, const rmpi_hdr_t *h)
{
    rmpi_mq_elem_t *el = rmpi_mq_match_posted(&e->p2p.posted, h->cid, h->src, h->tag);
    return el ? rmpi_container_of(el, struct rmp_request, mq) : NULL;
}
/* Keep message h from world rank src as unexpected: room for cap bytes, of
 * which the plen of payload are here; size is the whole message. NULL when
 * it cannot be buffered (the peer is failed then). */
rmpi_ux_t *rmpi_recv_buffer(rmpi_engine_t *e, int src, const rmpi_hdr_t *h, size_t cap, size_t size,
                            const void *payload, size_t plen);
/* Source, tag, bytes and truncation of req for a message h of size bytes. */
static inline void rmpi_recv_status(rmp_request_t req, const rmpi_hdr_t *h, size_t size)
{
    req->status.source = h->src;
    req->status.tag = h->tag;
    if (size > req->bytes) {
        req->status.bytes = req->bytes;
        req->status.error = RMP_ERR_TRUNCATE;
    } else {
        req->status.bytes = size;
    }
}
/* Is an unexpected message matched by (cid, source, tag) here? Its status if so. */
int rmpi_recv_probe(uint32_t cid, int source, int tag, rmp_status_t *st);
/* Withdraw req if it is a receive still waiting in the posted queue (rmp_cancel):
 * 1 if it was, and then it is freed. */
int rmpi_recv_cancel(rmp_request_t req, int keep);
/* A sender cancels message m (core/cancel.c): 1 if it was still unexpected here
 * (it is dropped then), 0 if a receive has it. */
int rmpi_recv_cancel_unexp(rmpi_engine_t *e, int src, const rmpi_cancel_t *m, const void *payload,
                           size_t plen);
/* Matched probe: the first unexpected message matched by (cid, source, tag),
 * taken off the queue (no receive can match it any more), its status in st. */
rmpi_ux_t *rmpi_recv_mprobe(rmpi_engine_t *e, uint32_t cid, int source, int tag, rmp_status_t *st);
/* req (its buf and bytes set) receives the message u that a matched probe took. */
void rmpi_recv_take(rmp_request_t req, rmpi_ux_t *u);
/* Take a posted receive off the queue (its peer failed). */
void rmpi_recv_withdraw(rmp_request_t req);
/* Is req a receive still waiting in the posted queue? */
static inline int rmpi_recv_is_posted(const rmpi_mq_elem_t *mq)
{
    return mq->next != mq;
}
/* Free what is buffered and the pool (rmp_finalize). */
void rmpi_recv_fini(rmpi_engine_t *e);
size_t rmpi_p2p_unexpected_high_water(rmpi_engine_t *e);

#endif
