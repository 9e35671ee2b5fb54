/* SPDX-License-Identifier: BSD-3-Clause */
/* What collectives/ may use of the engine: the one engine header its files include, and
 * their only way into core (collectives/meson.build gives them core/api, not core/).
 * An algorithm may use
 * - the communicator's shape, checks and holds, and whether a member failed
 *   (comm_obj.h); its collective context and tags (coll_id.h);
 * - point-to-point on an explicit context (cid_msg.h), and below: the requests it gets
 *   back, their waits and results, generic requests for schedules;
 * - the progress engine, for loops spinning on shared memory;
 * - the hang report's hooks (diag.h);
 * - the engine lock of RMP_THREAD_MULTIPLE around starting a schedule, so that another
 *   thread's progress cannot run its first round while it is posted;
 * - logging, parameter tables and their parsers, shared-memory segments, the tuning
 *   file's sections (log.h, param.h, shmem.h, tune_section.h).
 * The declarations below are owned here; core's module headers (request.h, progress.h,
 * mt.h) include this one. Anything else of core (transports, protocols, matching, the
 * engine object) is not the collectives': one needing more extends this list, with a
 * reason. */
#ifndef RMPI_COLL_CORE_H
#define RMPI_COLL_CORE_H

#include <stddef.h>

#include "cid_msg.h"
#include "coll_id.h"
#include "comm_obj.h"
#include "diag.h"
#include "log.h"
#include "param.h"
#include "rmpi.h"
#include "shmem.h"
#include "tune_section.h"

/* ---- requests (core/request.c) ---- */

/* Wait until done; the request stays allocated. Honors RMP_TIMEOUT and
 * detects failed peers (their requests complete with RMP_ERR_PEER_FAILED). */
int rmpi_req_wait(rmp_request_t req);
/* Free a request (under the engine lock in MULTIPLE: its callers hold it or own req). */
void rmpi_req_free(rmp_request_t req);
/* Has req completed? (Any thread; what completion wrote is visible after a true answer.) */
int rmpi_req_is_done(rmp_request_t req);
/* Free the completed req; its status into *st and, for a receive, the bytes it expected
 * into *expect (else SIZE_MAX). */
void rmpi_req_take(rmp_request_t req, rmp_status_t *st, size_t *expect);
/* A generic request completed by poll(ctx, &error), driven by the progress engine: poll
 * returns 1 when done (with *error set, RMP_SUCCESS or not), 0 otherwise; release(ctx)
 * runs when the request is freed. */
int rmpi_req_gen(int (*poll)(void *ctx, int *error), void *ctx, void (*release)(void *ctx),
                 rmp_request_t *out);

/* For every blocking loop: call rmpi_waiter_poll after each progress. Every
 * 1024th call it looks at the clock: RMP_TIMEOUT, and every 50 ms a check of
 * the peers' health. Returns RMP_SUCCESS or RMP_ERR_TIMEOUT, or for w->req (set by
 * rmpi_req_wait) RMP_ERR_PEER_FAILED_PENDING: an unacknowledged failure holds it up. */
typedef struct rmpi_waiter {
    rmp_request_t req; /* a receive from any source (rmpi_req_wait), else NULL */
    unsigned spins;
    double deadline; /* 0: none */
    double next_check;
} rmpi_waiter_t;
void rmpi_waiter_init(rmpi_waiter_t *w);
int rmpi_waiter_poll(rmpi_waiter_t *w);

/* ---- progress (core/progress.c) ---- */

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
/* Should a rank spinning outside the progress engine (a shared-memory collective) call
 * it, and so yield the core, on every poll? Ranks outnumber cores. Fixed at init. */
int rmpi_progress_yields(void);
/* More local ranks than cores (decided once by rmp_init): spinning costs a peer its core. */
int rmpi_oversubscribed(void);

/* ---- the engine lock of RMP_THREAD_MULTIPLE (core/mt.c; no-ops below it) ---- */

void rmpi_engine_enter(void);
void rmpi_engine_leave(void);

#endif
