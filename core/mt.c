/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine lock of RMP_THREAD_MULTIPLE (core/mt.h). */
#include <sched.h>
#include <time.h>

#include "mt.h"

__thread char rmpi_mt_self __attribute__((tls_model("initial-exec")));
__thread char rmpi_mt_handoff __attribute__((tls_model("initial-exec")));

/* Spin briefly (the holder is usually running and done within a microsecond), then
 * yield, then sleep: with threads far above the cores, yielding alone keeps every
 * waiter runnable and starves the holder. */
void rmpi_mt_lock_slow(rmpi_engine_t *e)
{
    for (unsigned spins = 0; !rmpi_mt_trylock(e); spins++) {
        if (spins < 64) {
            rmpi_mt_relax();
        } else if (spins < 96) {
            sched_yield();
        } else {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
}

/* The collectives' way to the lock (core/api/coll_core.h): out of line, so that they
 * need no engine global. */
void rmpi_engine_enter(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_mt_enter(e);
}

void rmpi_engine_leave(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_mt_leave(e);
}

int rmpi_mt_start(rmpi_engine_t *e)
{
    e->thr.lock.owner = NULL;
    e->thr.lock.depth = 0;
    e->thr.multiple = true;
    return RMP_SUCCESS;
}

void rmpi_mt_stop(rmpi_engine_t *e)
{
    e->thr.multiple = false;
}
