/* SPDX-License-Identifier: BSD-3-Clause */
/* Failed peers (core/failure.c): how the engine learns that a peer is gone
 * and what happens to the operations that involve it. */
#ifndef RMPI_FAILURE_H
#define RMPI_FAILURE_H

#include <stdint.h>

#include "comm_obj.h"
#include "engine.h"
#include "rmp.h"

/* Peer failure: every request involving world rank peer completes with
 * RMP_ERR_PEER_FAILED, and later operations towards it fail at once. Called
 * by the core's health checks and by transports (connection loss). */
void rmpi_peer_failed(int peer, const char *why);
/* Is a receive from world rank peer (-1: any) on context cid of comm bound to
 * fail? (Only asked once some peer has failed.) */
int rmpi_failure_dooms_recv(rmpi_engine_t *e, int peer, uint32_t cid, rmp_comm_t comm);
/* Register the handler of RMPI_MSG_FAILED (engine start). */
void rmpi_failure_register(rmpi_engine_t *e);
/* Poll the launcher's failure notices and the transports' liveness checks; send the
 * notices of failures this rank saw itself. */
void rmpi_check_failures(rmpi_engine_t *e);

#endif
