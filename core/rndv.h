/* SPDX-License-Identifier: BSD-3-Clause */
/* Rendezvous protocols (core/rndv.c): the sender announces the message
 * (RTS); the receiver pulls it (RNDV_GET, then FIN to the sender), or answers
 * with its buffer (CTS) and the sender writes it (RNDV_PUT, then FIN to the
 * receiver). */
#ifndef RMPI_RNDV_H
#define RMPI_RNDV_H

#include "peer.h"
#include "recv.h"
#include "request.h"

/* req's RTS is filled but for its type (core/send.c): make it an RTS (and
 * register its buffer for RNDV_GET). */
int rmpi_rndv_start(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req);
/* A receive took an RTS that was unexpected. */
void rmpi_rndv_take(rmpi_engine_t *e, rmp_request_t req, const rmpi_hdr_t *h, const rmpi_ux_t *u);
/* Retry the puts that found no room (progress engine); the number started. */
int rmpi_rndv_retry_puts(rmpi_engine_t *e);
/* Take req off the retry queue (its peer failed). */
void rmpi_rndv_withdraw(rmpi_engine_t *e, rmp_request_t req);
/* Register the handlers of RTS, CTS and FIN (engine start). */
void rmpi_rndv_register(rmpi_engine_t *e);

#endif
