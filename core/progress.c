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
    rmpi_engine_t *e = &rmpi_eng;
    return e->job.yield_when_idle;
}

int rmpi_oversubscribed(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    return e->job.oversubscribed;
}

void rmpi_progress_active(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_mt_enter(e); /* called from collectives' own spin loops, outside the engine */
    e->p2p.idle = 0;
    __atomic_store_n(&e->p2p.sleep_ns, 0, __ATOMIC_RELAXED); /* waiters read it unlocked */
    rmpi_mt_leave(e);
}

/* More ranks than cores: give the core away while idle, and once idle for
 * over 2 ms (a rank parked in a barrier or a receive while others work)
 * sleep, 20 us at first, then longer up to 0.5 ms, so that ranks with work
 * keep the cores. Active ranks never stay idle that long, so they never sleep.
 * RMP_POLL_YIELD=sleep sleeps from the second empty poll: where the cores are
 * shared beyond what the rank can see (virtual machines on a busy host), a
 * rank that yields still holds its virtual CPU, and the host's core with it. */
static void progress_idle(rmpi_engine_t *e, int n)
{
    if (n > 0) {
        rmpi_progress_active();
    } else if (e->p2p.sleep_ns) {
        struct timespec ts = {0, e->p2p.sleep_ns};
        nanosleep(&ts, NULL);
        if (e->p2p.sleep_ns < 500000)
            __atomic_store_n(&e->p2p.sleep_ns, e->p2p.sleep_ns * 2,
                             __ATOMIC_RELAXED); /* up to 0.5 ms */
    } else {
        if (e->p2p.idle++ == 0)
            e->p2p.idle_since = rmpi_now();
        else if (e->job.sleep_when_idle ||
                 ((e->p2p.idle & 255) == 0 && rmpi_now() - e->p2p.idle_since > 2e-3))
            __atomic_store_n(&e->p2p.sleep_ns, 20000, __ATOMIC_RELAXED);
        sched_yield();
    }
}

/* One pass over every transport and the engine's own queues: events handled. */
static inline __attribute__((always_inline)) int progress_poll(rmpi_engine_t *e)
{
    int n = 0;
    for (int i = 0; i < e->tls.num_polled; i++)
        n += e->tls.polled[i].progress(e->tls.polled[i].tl);
    if (e->p2p.npending)
        n += rmpi_send_drain_pending(e);
    if (RMPI_UNLIKELY(!rmpi_mq_empty(&e->p2p.need_put)))
        n += rmpi_rndv_retry_puts(e);
    if (e->req.have_gen)
        n += rmpi_req_progress_gen(e);
    return n;
}

/* MULTIPLE: each waiting thread's own idle state (thread-local). An empty poll is
 * followed by a spin (a pause) for the first RMPI_MT_SPIN of them, then by a yield: a
 * yield is a system call, and one after every empty poll had put 0.3 us on a one-thread
 * ping-pong (osu_latency_mt -t 1: 0.40 us, 0.13 with the spin) and more with
 * threads sharing a core. A rank that has more ranks than cores on its node yields at
 * once, as below MULTIPLE. A thread that has found nothing to do for over 1 ms (its
 * request is another thread's copy away, or the peer's) sleeps, 10 us at first, up to
 * 0.2 ms: threads commonly outnumber the cores, and waiters that only yield stay
 * runnable; they took the cores from the threads copying the data (issue 26: 4 threads
 * a rank moving 16 MiB messages, 80% of the CPU in waiters' polls). */
#define RMPI_MT_SPIN 256
static __thread unsigned mt_idle __attribute__((tls_model("initial-exec")));
__thread long rmpi_mt_sleep_ns __attribute__((tls_model("initial-exec"))); /* progress.h */
static __thread double mt_idle_since __attribute__((tls_model("initial-exec")));

static void progress_mt_idle(rmpi_engine_t *e)
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
    else if (e->job.sleep_when_idle ||
             ((mt_idle & 63) == 0 && rmpi_now() - mt_idle_since > 1e-3))
        rmpi_mt_sleep_ns = 10000;
    if (mt_idle > RMPI_MT_SPIN || e->job.yield_when_idle)
        sched_yield();
    else
        rmpi_mt_relax();
}

void rmpi_progress_mt_reset(void)
{
    mt_idle = 0;
    rmpi_mt_sleep_ns = 0;
}

/* MULTIPLE: one thread polls at a time; the others find the lock taken and
 * wait as idle pollers do (their requests complete under its polling). Idling is
 * a spin, a yield or a sleep after the lock is released, never with it held. A poll
 * that completed another thread's request yields at once: that thread may share this
 * core and wait for it (osu_latency_mt -t 2, one sender thread, two receivers sharing
 * a core: 7.8 us with the spin alone, 0.88 us with the hand-off; 11 rounds' medians). */
static __attribute__((noinline)) int progress_mt(rmpi_engine_t *e)
{
    int n = 0;
    if (rmpi_mt_trylock(e)) {
        n = progress_poll(e);
        rmpi_mt_unlock(e);
        if (n)
            rmpi_progress_mt_reset();
    }
    /* the flag may come from this poll or from any call since (a send's own progress) */
    if (RMPI_UNLIKELY(rmpi_mt_handoff)) {
        rmpi_mt_handoff = 0;
        sched_yield();
    } else if (!n) {
        progress_mt_idle(e);
    }
    return n;
}

int rmpi_progress(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (RMPI_UNLIKELY(e->thr.multiple))
        return progress_mt(e);
    int n = progress_poll(e);
    if (RMPI_UNLIKELY(e->job.yield_when_idle))
        progress_idle(e, n);
    return n;
}

int rmpi_progress_serve_rma(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (!__atomic_load_n(&e->p2p.windows, __ATOMIC_RELAXED)) /* read outside the lock */
        return 0;
    if (RMPI_LIKELY(!e->thr.multiple))
        return progress_poll(e);
    if (!rmpi_mt_trylock(e))
        return 0;
    int n = progress_poll(e);
    rmpi_mt_unlock(e);
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
