/* SPDX-License-Identifier: BSD-3-Clause */
/* Dynamic peers (core/dynpeer.c) and the meeting of two groups over a port (core/port.c). */
#ifndef RMPI_DYNPEER_H
#define RMPI_DYNPEER_H

#include <stddef.h>

#include "engine.h"

/* This process's address for the transport that reaches dynamic peers (NUL-terminated,
 * *len bytes with the NUL); RMP_ERR_NOT_SUPPORTED when no open transport can. */
int rmpi_dyn_address(rmpi_engine_t *e, char *buf, size_t *len);
/* Make idx (>= world size) a dynamic peer at addr (alen bytes, from the other job:
 * untrusted); me_there: the index by which that process knows this one. */
int rmpi_dyn_add(rmpi_engine_t *e, int idx, int me_there, const char *addr, size_t alen);

#endif
