/* SPDX-License-Identifier: BSD-3-Clause */
/* The progress engine (core/progress.h). */
#include <sched.h>
#include <time.h>

#include "engine.h"
#include "mt.h"
#include "progress.h"
#include "request.h"
#include "rndv.h"
#include "send.h"

void rmpi_progress_active(void)
{
    rmpi_mt_enter(); /* called from collectives' own spin loops, outside the engine */
    rmpi_ctx.idle = 0;
    __atomic_store_n(&rmpi_ctx.sleep_ns, 0, __ATOMIC_RELAXED); /* waiters read it unlocked */
    rmpi_mt_leave();
}

/* More ranks than cores: give the core away while idle, and once idle for
 * over 2 ms (a rank parked in a barrier or a receive while others work)
 * sleep, 20 us at first, then longer up to 0.5 ms, so that ranks with work
 * keep the cores. Active ranks never stay idle that long, so they never sleep. */
static void progress_idle(int n)
{
    if (n > 0) {
        rmpi_progress_active();
    } else if (rmpi_ctx.sleep_ns) {
        struct timespec ts = {0, rmpi_ctx.sleep_ns};
        nanosleep(&ts, NULL);
        if (rmpi_ctx.sleep_ns < 500000)
            __atomic_store_n(&rmpi_ctx.sleep_ns, rmpi_ctx.sleep_ns * 2,
                             __ATOMIC_RELAXED); /* up to 0.5 ms */
    } else {
        if (rmpi_ctx.idle++ == 0)
            rmpi_ctx.idle_since = rmpi_now();
        else if ((rmpi_ctx.idle & 255) == 0 && rmpi_now() - rmpi_ctx.idle_since > 2e-3)
            __atomic_store_n(&rmpi_ctx.sleep_ns, 20000, __ATOMIC_RELAXED);
        sched_yield();
    }
}

/* One pass over every transport and the engine's own queues: events handled. */
static inline __attribute__((always_inline)) int progress_poll(void)
{
    int n = 0;
    for (int i = 0; i < rmpi_g.num_polled; i++)
        n += rmpi_g.polled[i].progress(rmpi_g.polled[i].tl);
    if (rmpi_ctx.npending)
        n += rmpi_send_drain_pending();
    if (RMPI_UNLIKELY(!rmpi_mq_empty(&rmpi_ctx.need_put)))
        n += rmpi_rndv_retry_puts();
    if (rmpi_req_have_gen)
        n += rmpi_req_progress_gen();
    return n;
}

/* MULTIPLE: one thread polls at a time; the others find the lock taken and
 * give the core to it (their requests complete under its polling). Idling is
 * a yield after the lock is released, never a sleep with it held. */
static __attribute__((noinline)) int progress_mt(void)
{
    if (!rmpi_mt_trylock()) {
        sched_yield();
        return 0;
    }
    int n = progress_poll();
    rmpi_mt_unlock();
    if (n == 0 && rmpi_g.yield_when_idle)
        sched_yield();
    return n;
}

int rmpi_progress(void)
{
    if (RMPI_UNLIKELY(rmpi_mt))
        return progress_mt();
    int n = progress_poll();
    if (RMPI_UNLIKELY(rmpi_g.yield_when_idle))
        progress_idle(n);
    return n;
}

RMP_EXPORT int rmp_progress(void)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    rmpi_progress();
    return RMP_SUCCESS;
}
