/* SPDX-License-Identifier: BSD-3-Clause */
/* Eager protocol: the message travels with its header in one transport
 * send; the receiver copies it into the matched buffer or keeps it as
 * unexpected. The send side is inline: it is the hot path. */
#ifndef RMPI_EAGER_H
#define RMPI_EAGER_H

#include "peer.h"
#include "request.h"

/* Does a message of bytes go eagerly to p? */
static inline int rmpi_eager_fits(const rmpi_peer_t *p, size_t bytes)
{
    return bytes + sizeof(rmpi_hdr_t) <= p->max_am && bytes < p->rndv_threshold;
}

/* req's matching header is filled: complete its wire for an eager send. */
static inline int rmpi_eager_start(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req)
{
    req->wire.h.type = RMPI_MSG_EAGER;
    req->hlen = sizeof(rmpi_hdr_t);
    req->payload = req->buf;
    req->plen = req->bytes;
    RMPI_STATS_SENT(e, p, eager, req->bytes);
    return RMP_SUCCESS;
}

/* Without a request: RMP_SUCCESS when the transport took it, RMPI_AGAIN when
 * it had no room, or an error. */
static inline int rmpi_eager_send_now(rmpi_engine_t *e, rmpi_peer_t *p, const void *buf,
                                      size_t bytes, uint32_t cid, int src, int tag)
{
    rmpi_hdr_t h = {RMPI_MSG_EAGER, 0, 0, cid, src, tag};
    int rc = p->iface->send(p->ep, &h, sizeof(h), buf, bytes);
    if (RMPI_LIKELY(rc == RMP_SUCCESS))
        RMPI_STATS_SENT(e, p, eager, bytes);
    return rc;
}

/* A receive matched an eager message of size bytes (data: its payload). */
void rmpi_eager_deliver(rmp_request_t req, const rmpi_hdr_t *h, const void *data, size_t size);
/* Register the handler of RMPI_MSG_EAGER (engine start). */
void rmpi_eager_register(rmpi_engine_t *e);

#endif
