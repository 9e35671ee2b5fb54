/* SPDX-License-Identifier: BSD-3-Clause */
/* Active-message dispatch: the transports' single upcall (rmpi_am_handler)
 * validates what a peer sent (core/proto.c) and hands it to the handler
 * registered for its message id (RMPI_MSG_* in core/proto.h). Each protocol
 * module registers its own handlers at engine start (rmpi_p2p_init); a new
 * message type is a new id, a wire struct and validator case in proto.*,
 * and one rmpi_am_register call in the module that owns it. */
#ifndef RMPI_AM_H
#define RMPI_AM_H

#include <stddef.h>

#include "proto.h"

typedef struct rmpi_engine rmpi_engine_t; /* core/engine.h, which includes this header */

/* A handler gets the engine the message arrived at and a message that passed
 * rmpi_proto_check: hdr is its type's wire struct (8-byte aligned), src the sender's
 * world rank. */
typedef void (*rmpi_am_fn_t)(rmpi_engine_t *e, int src, const void *hdr, size_t hlen,
                             const void *payload, size_t plen);

/* Install cb for message id (< RMPI_MSG_MAX); ids without one are protocol errors. */
void rmpi_am_register(rmpi_engine_t *e, unsigned id, rmpi_am_fn_t cb);
/* Forget every handler (rmp_finalize). */
void rmpi_am_reset(rmpi_engine_t *e);
/* The callback every transport is initialized with (rmpi_tl_am_cb_t). */
void rmpi_am_handler(int src, const void *hdr, size_t hlen, const void *payload, size_t plen);

#endif
