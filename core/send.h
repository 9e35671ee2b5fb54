/* SPDX-License-Identifier: BSD-3-Clause */
/* Sending (core/send.c): the protocol choice for a message, the per-peer FIFO
 * of sends waiting for room in the transport, control messages. */
#ifndef RMPI_SEND_H
#define RMPI_SEND_H

#include <stdint.h>

#include "cid_msg.h"
#include "rmp.h"

/* Send a control message (<= 64 bytes of header) to world rank peer, queued in order. */
int rmpi_send_ctrl(int peer, const void *msg, size_t len, const void *payload, size_t plen);
/* The FIN of a rendezvous: completes target_req on peer with status. */
int rmpi_send_fin(int peer, uint64_t target_req, int status);
/* Retry the sends that found no room (progress engine); the number that left. */
int rmpi_send_drain_pending(rmpi_engine_t *e);
/* Fail every unsent message to world rank peer (it failed). */
void rmpi_send_fail_pending(rmpi_engine_t *e, int peer);
/* Sends whose caller gave up (RMP_TIMEOUT) are not pushed out at teardown:
 * the peer that never took them may be in its own finalize already. */
void rmpi_send_drop_orphans(rmpi_engine_t *e);

#endif
