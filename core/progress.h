/* SPDX-License-Identifier: BSD-3-Clause */
/* The progress engine (core/progress.c): polls the transports, retries what
 * found no room, drives generic requests, and idles politely when ranks
 * outnumber cores. */
#ifndef RMPI_PROGRESS_H
#define RMPI_PROGRESS_H

#include "rmpi.h"

/* Poll every transport, retry pending sends and puts, poll generic requests.
 * Returns the number of events. */
int rmpi_progress(void);
/* For a loop spinning on its own flags (a shared-memory collective) between its calls
 * of rmpi_progress: while this rank has a window, the same polls, never idling (no
 * yield, no sleep; under MULTIPLE only if no other thread is polling), so that the
 * one-sided operations others send it by message do not wait for the next full
 * progress call; without a window, nothing (a spin costs no more than before). */
int rmpi_progress_serve_rma(void);
/* Work happened outside the progress engine (a shared-memory collective saw its peers
 * move): an oversubscribed rank must not drift into its sleeping idle mode. */
void rmpi_progress_active(void);

/* MULTIPLE: the calling thread starts a new wait; it polls before it sleeps again
 * (its request may have completed under another thread's polling, never its own). */
void rmpi_progress_mt_reset(void);
/* MULTIPLE: this thread's idle sleep per poll in ns (0: it polls without sleeping).
 * Thread-local: the rank-wide rmpi_ctx.sleep_ns stays 0 under MULTIPLE. */
extern __thread long rmpi_mt_sleep_ns __attribute__((tls_model("initial-exec")));

/* Should a rank spinning outside the progress engine (a shared-memory
 * collective) call it, and so yield the core, on every poll? Ranks outnumber cores. */
static inline int rmpi_progress_yields(void)
{
    return rmpi_g.yield_when_idle;
}

/* More local ranks than cores (decided once by rmp_init): spinning costs a peer its core. */
static inline int rmpi_oversubscribed(void)
{
    return rmpi_g.oversubscribed;
}

#endif
