/* SPDX-License-Identifier: BSD-3-Clause */
/* The point-to-point engine's own state and its lifetime: start (every
 * protocol module registers its message handlers), finalize draining, teardown
 * (core/engine.c). */
#ifndef RMPI_ENGINE_H
#define RMPI_ENGINE_H

#include "match.h"

struct rmpi_ux;

/* Engine state of this rank. Each field has one owning module; the others
 * only read it or go through that module's functions. */
typedef struct rmpi_ctx {
    rmpi_mq_t posted;          /* posted receives (recv.c) */
    rmpi_mq_t unexp;           /* unexpected messages (recv.c) */
    struct rmpi_ux *ux_free;   /* pool of unexpected entries (recv.c) */
    rmpi_mq_t need_put;        /* RNDV_PUT sends whose put found no room (rndv.c) */
    int npending;              /* peers with a non-empty pending FIFO (send.c) */
    int nfailed;               /* peers known to have failed (failure.c) */
    int ntell;                 /* failures seen here, notices not sent yet (failure.c) */
    /* Oversubscribed idling (progress.c): polls that found nothing since the last event,
     * when that streak began, and the current sleep (0: not sleeping yet). */
    unsigned idle;
    double idle_since;
    long sleep_ns;
    int windows;               /* live windows of this rank (rma_win.c) */
} rmpi_ctx_t;

extern rmpi_ctx_t rmpi_ctx;

/* Runtime hooks (core/runtime.c). */
int rmpi_p2p_init(void);
/* Push out everything queued (control messages included) before teardown. */
int rmpi_p2p_drain(void);
void rmpi_p2p_fini(void);

#endif
