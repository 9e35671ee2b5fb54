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

int rmpi_progress_yields(void)
{
    return rmpi_eng.job.yield_when_idle;
}

int rmpi_oversubscribed(void)
{
    return rmpi_eng.job.oversubscribed;
}

void rmpi_progress_active(void)
{
    rmpi_mt_enter(); /* called from collectives' own spin loops, outside the engine */
    rmpi_eng.p2p.idle = 0;
    __atomic_store_n(&rmpi_eng.p2p.sleep_ns, 0, __ATOMIC_RELAXED); /* waiters read it unlocked */
    rmpi_mt_leave();
}

/* More ranks than cores: give the core away while idle, and once idle for
 * over 2 ms (a rank parked in a barrier or a receive while others work)
 * sleep, 20 us at first, then longer up to 0.5 ms, so that ranks with work
 * keep the cores. Active ranks never stay idle that long, so they never sleep.
 * RMP_POLL_YIELD=sleep sleeps from the second empty poll: where the cores are
 * shared beyond what the rank can see (virtual machines on a busy host), a
 * rank that yields still holds its virtual CPU, and the host's core with it. */
static void progress_idle(int n)
{
    if (n > 0) {
        rmpi_progress_active();
    } else if (rmpi_eng.p2p.sleep_ns) {
        struct timespec ts = {0, rmpi_eng.p2p.sleep_ns};
        nanosleep(&ts, NULL);
        if (rmpi_eng.p2p.sleep_ns < 500000)
            __atomic_store_n(&rmpi_eng.p2p.sleep_ns, rmpi_eng.p2p.sleep_ns * 2,
                             __ATOMIC_RELAXED); /* up to 0.5 ms */
    } else {
        if (rmpi_eng.p2p.idle++ == 0)
            rmpi_eng.p2p.idle_since = rmpi_now();
        else if (rmpi_eng.job.sleep_when_idle ||
                 ((rmpi_eng.p2p.idle & 255) == 0 && rmpi_now() - rmpi_eng.p2p.idle_since > 2e-3))
            __atomic_store_n(&rmpi_eng.p2p.sleep_ns, 20000, __ATOMIC_RELAXED);
        sched_yield();
    }
}

/* One pass over every transport and the engine's own queues: events handled. */
static inline __attribute__((always_inline)) int progress_poll(void)
{
    int n = 0;
    for (int i = 0; i < rmpi_eng.tls.num_polled; i++)
        n += rmpi_eng.tls.polled[i].progress(rmpi_eng.tls.polled[i].tl);
    if (rmpi_eng.p2p.npending)
        n += rmpi_send_drain_pending();
    if (RMPI_UNLIKELY(!rmpi_mq_empty(&rmpi_eng.p2p.need_put)))
        n += rmpi_rndv_retry_puts();
    if (rmpi_eng.req.have_gen)
        n += rmpi_req_progress_gen();
    return n;
}

/* MULTIPLE: each waiting thread's own idle state (thread-local): a thread that
 * has found nothing to do for over 1 ms (its request is another thread's copy
 * away, or the peer's) sleeps, 10 us at first, up to 0.2 ms. Threads commonly
 * outnumber the cores, and waiters that only yield stay runnable: they took the
 * cores from the threads copying the data (issue 26: 4 threads a rank moving
 * 16 MiB messages, 80% of the CPU in waiters' polls). */
static __thread unsigned mt_idle __attribute__((tls_model("initial-exec")));
__thread long rmpi_mt_sleep_ns __attribute__((tls_model("initial-exec"))); /* progress.h */
static __thread double mt_idle_since __attribute__((tls_model("initial-exec")));

static void progress_mt_idle(void)
{
    if (rmpi_mt_sleep_ns) {
        struct timespec ts = {0, rmpi_mt_sleep_ns};
        nanosleep(&ts, NULL);
        if (rmpi_mt_sleep_ns < 200000)
            rmpi_mt_sleep_ns *= 2;
        return;
    }
    if (mt_idle++ == 0)
        mt_idle_since = rmpi_now();
    else if (rmpi_eng.job.sleep_when_idle ||
             ((mt_idle & 63) == 0 && rmpi_now() - mt_idle_since > 1e-3))
        rmpi_mt_sleep_ns = 10000;
    sched_yield();
}

void rmpi_progress_mt_reset(void)
{
    mt_idle = 0;
    rmpi_mt_sleep_ns = 0;
}

/* MULTIPLE: one thread polls at a time; the others find the lock taken and
 * give the core to it (their requests complete under its polling). Idling is
 * a yield or a sleep after the lock is released, never with it held. */
static __attribute__((noinline)) int progress_mt(void)
{
    if (!rmpi_mt_trylock()) {
        progress_mt_idle();
        return 0;
    }
    int n = progress_poll();
    rmpi_mt_unlock();
    if (n) {
        rmpi_progress_mt_reset();
    } else {
        progress_mt_idle();
    }
    return n;
}

int rmpi_progress(void)
{
    if (RMPI_UNLIKELY(rmpi_eng.thr.multiple))
        return progress_mt();
    int n = progress_poll();
    if (RMPI_UNLIKELY(rmpi_eng.job.yield_when_idle))
        progress_idle(n);
    return n;
}

int rmpi_progress_serve_rma(void)
{
    if (!__atomic_load_n(&rmpi_eng.p2p.windows, __ATOMIC_RELAXED)) /* read outside the lock */
        return 0;
    if (RMPI_LIKELY(!rmpi_eng.thr.multiple))
        return progress_poll();
    if (!rmpi_mt_trylock())
        return 0;
    int n = progress_poll();
    rmpi_mt_unlock();
    if (n)
        rmpi_progress_mt_reset();
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
