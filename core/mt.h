/* SPDX-License-Identifier: BSD-3-Clause */
/* RMP_THREAD_MULTIPLE (docs/threads.md). Every operation that changes the
 * engine's shared state (request pool, matching queues, a peer's pending sends,
 * a transport's queues) runs under the engine lock; blocking calls wait outside
 * it, on their request's completion flag, and drive progress with a try-lock,
 * so a thread never polls a transport while another one does. Below MULTIPLE
 * the lock is never taken: one predictable branch on a read-mostly flag.
 *
 * The lock is a recursive spin lock (handlers re-enter send paths): taking it
 * free costs one compare-and-swap, releasing it one store, about half of a
 * pthread mutex's pair; a waiter spins briefly, then yields the core (the
 * holder may be a preempted thread when threads outnumber cores). */
#ifndef RMPI_MT_H
#define RMPI_MT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll_core.h"
#include "engine.h"
#include "rmpi.h"


extern __thread char rmpi_mt_self __attribute__((tls_model("initial-exec")));
/* Set when this thread completed a request another thread allocated: that thread may be
 * waiting for the core this one holds (core/progress.c yields it). */
extern __thread char rmpi_mt_handoff __attribute__((tls_model("initial-exec")));

/* This thread, in 32 bits (a request's owner): its TLS address; a rare collision only
 * costs a hand-off. */
static inline uint32_t rmpi_mt_tag(void)
{
    return (uint32_t)(uintptr_t)&rmpi_mt_self;
}

/* A spinning thread tells the core (lets the sibling hyperthread run). */
static inline void rmpi_mt_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Take the lock if free or already ours: 1 on success, 0 when another thread has it. */
static inline int rmpi_mt_trylock(rmpi_engine_t *e)
{
    void *me = &rmpi_mt_self, *free_ = NULL;
    if (__atomic_load_n(&e->thr.lock.owner, __ATOMIC_RELAXED) == me) {
        e->thr.lock.depth++;
        return 1;
    }
    if (!__atomic_compare_exchange_n(&e->thr.lock.owner, &free_, me, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return 0;
    e->thr.lock.depth = 1;
    return 1;
}

void rmpi_mt_lock_slow(rmpi_engine_t *e);

static inline void rmpi_mt_lock_take(rmpi_engine_t *e)
{
    if (RMPI_UNLIKELY(!rmpi_mt_trylock(e)))
        rmpi_mt_lock_slow(e);
}

static inline void rmpi_mt_unlock(rmpi_engine_t *e)
{
    if (--e->thr.lock.depth == 0)
        __atomic_store_n(&e->thr.lock.owner, NULL, __ATOMIC_RELEASE);
}

static inline void rmpi_mt_enter(rmpi_engine_t *e)
{
    if (RMPI_UNLIKELY(e->thr.multiple))
        rmpi_mt_lock_take(e);
}

static inline void rmpi_mt_leave(rmpi_engine_t *e)
{
    if (RMPI_UNLIKELY(e->thr.multiple))
        rmpi_mt_unlock(e);
}

/* The body of an engine step: inlined into both its unlocked and locked callers. */
#define RMPI_MT_BODY static inline __attribute__((always_inline))

/* Define the entry point PUB(PARAMS) of an engine step whose body is the
 * always-inlined BODY(ARGS): below MULTIPLE it runs BODY directly (one test of
 * rmpi_eng.thr.multiple), under MULTIPLE an out-of-line copy runs it under the engine lock.
 * QUAL is `static` or empty. PUB is an entry point: it works on the process's engine. */
#define RMPI_MT_ENTRY(QUAL, PUB, BODY, PARAMS, ARGS)                                               \
    static __attribute__((noinline)) int BODY##_mt PARAMS                                          \
    {                                                                                              \
        rmpi_mt_lock_take(&rmpi_eng);                                                              \
        int r_ = BODY ARGS;                                                                        \
        rmpi_mt_unlock(&rmpi_eng);                                                                 \
        return r_;                                                                                 \
    }                                                                                              \
    QUAL int PUB PARAMS                                                                            \
    {                                                                                              \
        return RMPI_UNLIKELY(rmpi_eng.thr.multiple) ? BODY##_mt ARGS : BODY ARGS;                  \
    }
#define RMPI_MT_ENTRY_VOID(QUAL, PUB, BODY, PARAMS, ARGS)                                          \
    static __attribute__((noinline)) void BODY##_mt PARAMS                                         \
    {                                                                                              \
        rmpi_mt_lock_take(&rmpi_eng);                                                              \
        BODY ARGS;                                                                                 \
        rmpi_mt_unlock(&rmpi_eng);                                                                 \
    }                                                                                              \
    QUAL void PUB PARAMS                                                                           \
    {                                                                                              \
        if (RMPI_UNLIKELY(rmpi_eng.thr.multiple))                                                  \
            BODY##_mt ARGS;                                                                        \
        else                                                                                       \
            BODY ARGS;                                                                             \
    }

/* Start MULTIPLE mode (rmp_init_thread) and end it (finalize, after the threads joined). */
int rmpi_mt_start(rmpi_engine_t *e);
void rmpi_mt_stop(rmpi_engine_t *e);

#endif
