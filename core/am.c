/* SPDX-License-Identifier: BSD-3-Clause */
/* Active-message dispatch (core/am.h): one table of handlers keyed by the
 * message id, filled by the protocol modules themselves. */
#include "am.h"

#include "failure.h"
#include "log.h"
#include "rmpi.h"

/* A valid message whose module is not running (none today: every module registers). */
static void am_unclaimed(rmpi_engine_t *e, int src, const void *hdr, size_t hlen, const void *payload,
                         size_t plen)
{
    (void)e;
    (void)hlen, (void)payload, (void)plen;
    rmpi_error("protocol error: no handler for message type %u from rank %d",
               *(const uint8_t *)hdr, src);
}


void rmpi_am_register(rmpi_engine_t *e, unsigned id, rmpi_am_fn_t cb)
{
    if (id < RMPI_MSG_MAX)
        e->am[id] = cb;
}

void rmpi_am_reset(rmpi_engine_t *e)
{
    for (unsigned i = 0; i < RMPI_MSG_MAX; i++)
        e->am[i] = am_unclaimed;
}

void rmpi_am_handler(int src, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    rmpi_engine_t *e = &rmpi_eng;
    const char *why;
    if (RMPI_UNLIKELY(rmpi_proto_check(hdr, hlen, plen, &why) != RMP_SUCCESS)) {
        /* Nothing more from this peer can be trusted: fail it rather than
         * read past its message or wait for what will never come. */
        rmpi_error("protocol error from rank %d: %s", src, why);
        rmpi_peer_failed(src, "protocol error");
        return;
    }
    /* rmpi_proto_check accepted the type, so it is below RMPI_MSG_MAX. */
    e->am[*(const uint8_t *)hdr](e, src, hdr, hlen, payload, plen);
}
