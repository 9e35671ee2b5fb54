/* SPDX-License-Identifier: BSD-3-Clause */
/* Cancel of a send (core/cancel.c, RMPI_MSG_CANCEL). */
#ifndef RMPI_CANCEL_H
#define RMPI_CANCEL_H

#include "engine.h"
#include "rmp.h"

/* Ask that send req be taken back. Returns 1 if it completed cancelled at once;
 * otherwise 0, and it completes later, with RMP_ERR_CANCELLED if the receiver
 * dropped the message before a receive had it. */
int rmpi_send_cancel(rmp_request_t req);
void rmpi_cancel_register(rmpi_engine_t *e);

#endif
