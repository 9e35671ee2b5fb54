/* SPDX-License-Identifier: BSD-3-Clause */
/* Messaging on an explicit context id (core/send.c, core/recv.c): what core's own
 * exchanges and the collectives (on their context, core/api/coll_id.h) send and receive
 * with. dest/source are ranks in comm. */
#ifndef RMPI_CID_MSG_H
#define RMPI_CID_MSG_H

#include <stdint.h>

#include "rmp.h"

int rmpi_isend_cid(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                   uint32_t cid, rmp_request_t *req);
/* A synchronous send: completes once the receiver matched it (docs/protocols.md). */
int rmpi_issend_cid(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                    uint32_t cid, rmp_request_t *req);
/* A message in the caller's layout (core/layout.c): always the fragmented protocol. */
int rmpi_isend_layout_cid(const rmp_layout_t *lay, size_t bytes, int dest, int tag,
                          rmp_comm_t comm, uint32_t cid, int sync, rmp_request_t *out);
int rmpi_send_cid(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                  uint32_t cid);
int rmpi_irecv_cid(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm,
                   uint32_t cid, rmp_request_t *req);
/* A receive into the caller's layout (core/layout.h). */
int rmpi_irecv_layout_cid(const rmp_layout_t *lay, size_t bytes, int source, int tag,
                          rmp_comm_t comm, uint32_t cid, rmp_request_t *out);
int rmpi_recv_cid(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm, uint32_t cid,
                  rmp_status_t *st);
/* Give up on req (its waiter timed out): an unmatched receive is withdrawn
 * and freed, anything else is freed when it completes. */
void rmpi_req_abandon(rmp_request_t req);

#endif
