/* SPDX-License-Identifier: BSD-3-Clause */
/* RMP_THREAD_MULTIPLE (docs/threads.md). Every operation that changes the
 * engine's shared state (request pool, matching queues, a peer's pending sends,
 * a transport's queues) runs under the engine lock; blocking calls wait outside
 * it, on their request's completion flag, and drive progress with a try-lock,
 * so a thread never polls a transport while another one does. Below MULTIPLE
 * the lock is never taken: one predictable branch on a read-mostly flag. */
#ifndef RMPI_MT_H
#define RMPI_MT_H

#include <pthread.h>
#include <stdbool.h>

#include "rmpi.h"

extern bool rmpi_mt; /* set once at init, before any other thread can call */
extern pthread_mutex_t rmpi_mt_lock; /* recursive: handlers re-enter send paths */

static inline void rmpi_mt_enter(void)
{
    if (RMPI_UNLIKELY(rmpi_mt))
        pthread_mutex_lock(&rmpi_mt_lock);
}

static inline void rmpi_mt_leave(void)
{
    if (RMPI_UNLIKELY(rmpi_mt))
        pthread_mutex_unlock(&rmpi_mt_lock);
}

/* Start MULTIPLE mode (rmp_init_thread) and end it (finalize, after the threads joined). */
int rmpi_mt_start(void);
void rmpi_mt_stop(void);

#endif
