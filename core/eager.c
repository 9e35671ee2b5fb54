/* SPDX-License-Identifier: BSD-3-Clause */
/* Eager protocol, receive side (core/eager.h). */
#include <string.h>

#include "am.h"
#include "eager.h"
#include "recv.h"

/* Inlined into the eager handler (the message path); recv.c's unexpected path calls
 * the exported copy. */
static inline __attribute__((always_inline)) void
eager_deliver(rmp_request_t req, const rmpi_hdr_t *h, const void *data, size_t size)
{
    rmpi_recv_status(req, h, size);
    if (RMPI_UNLIKELY(req->lay != NULL))
        req->lay->unpack(req->lay->ctx, 0, data, req->status.bytes);
    else if (req->status.bytes) /* buf may be NULL for 0 bytes */
        memcpy(req->buf, data, req->status.bytes);
    rmpi_req_complete(req);
}

void rmpi_eager_deliver(rmp_request_t req, const rmpi_hdr_t *h, const void *data, size_t size)
{
    eager_deliver(req, h, data, size);
}

static void eager_on_msg(rmpi_engine_t *e, int src, const void *hdr, size_t hlen, const void *payload,
                         size_t plen)
{
    (void)hlen;
    const rmpi_hdr_t *h = hdr;
    RMPI_STATS_RECVD(e, plen);
    rmp_request_t req = rmpi_recv_match(e, h);
    if (RMPI_LIKELY(req != NULL)) {
        req->peer = src;
        eager_deliver(req, h, payload, plen);
    } else {
        rmpi_recv_buffer(e, src, h, plen, plen, payload, plen);
    }
}

void rmpi_eager_register(rmpi_engine_t *e)
{
    rmpi_am_register(e, RMPI_MSG_EAGER, eager_on_msg);
}
