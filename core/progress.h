/* SPDX-License-Identifier: BSD-3-Clause */
/* The progress engine (core/progress.c): polls the transports, retries what
 * found no room, drives generic requests, and idles politely when ranks
 * outnumber cores. What the collectives use of it is declared in core/api/coll_core.h. */
#ifndef RMPI_PROGRESS_H
#define RMPI_PROGRESS_H

#include "coll_core.h"
#include "rmpi.h"

/* MULTIPLE: the calling thread starts a new wait; it polls before it sleeps again
 * (its request may have completed under another thread's polling, never its own). */
void rmpi_progress_mt_reset(void);
/* MULTIPLE: this thread's idle sleep per poll in ns (0: it polls without sleeping).
 * Thread-local: the rank-wide rmpi_eng.p2p.sleep_ns stays 0 under MULTIPLE. */
extern __thread long rmpi_mt_sleep_ns __attribute__((tls_model("initial-exec")));

#endif
