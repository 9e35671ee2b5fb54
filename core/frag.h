/* SPDX-License-Identifier: BSD-3-Clause */
/* Fragmentation (core/frag.c): for transports without a rendezvous, a large
 * message goes as FRAG_FIRST (an RTS header and the first chunk) followed by
 * FRAG chunks on the same pair, in order. */
#ifndef RMPI_FRAG_H
#define RMPI_FRAG_H

#include "peer.h"
#include "recv.h"
#include "request.h"

/* req's RTS is filled but for its type (core/send.c): make it a fragmented send. */
int rmpi_frag_start(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req);
/* Move as many chunks of req as the transport takes: RMP_SUCCESS when all
 * left, RMPI_AGAIN when it is full, or an error. */
int rmpi_frag_send(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req);
/* A receive took a fragmented message that was unexpected (perhaps still arriving). */
void rmpi_frag_take(rmpi_engine_t *e, rmp_request_t req, const rmpi_hdr_t *h, rmpi_ux_t *u);
/* Register the handlers of FRAG_FIRST and FRAG (engine start). */
void rmpi_frag_register(rmpi_engine_t *e);

#endif
