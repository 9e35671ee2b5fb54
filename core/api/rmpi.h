/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal declarations shared by every module of the library. */
#ifndef RMPI_H
#define RMPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rmp.h"
#include "rmp_config.h"
#include "transport.h"

#define RMP_EXPORT __attribute__((visibility("default")))
#define RMPI_LIKELY(x) __builtin_expect(!!(x), 1)
#define RMPI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RMPI_CACHELINE 64
#define rmpi_container_of(ptr, type, member) \
    ((type *)((char *)(ptr) - offsetof(type, member)))

/* Internal status, never returned to users: "no room now, try again". */
#define RMPI_AGAIN 1

/* 1 in the thread that called rmp_init, from the end of rmp_init to the start of
 * rmp_finalize (which clears it through rmpi_eng.thr.main_tls, whichever thread finalizes):
 * the only test on the path of every call. Static TLS (initial-exec): one load, no
 * __tls_get_addr call. */
extern __thread int rmpi_tls_main __attribute__((tls_model("initial-exec")));
/* The same for every thread at once, tested by the slow checks first (core/runtime.c,
 * core/comm.c): 1 from the end of rmp_init to the start of rmp_finalize when the thread
 * level is RMP_THREAD_SERIALIZED or more, cleared by a revoke as rmpi_tls_main is. */
extern int rmpi_any_thread;

/* The reason a call may not proceed (core/runtime.c): not initialised, finalised, or a
 * thread other than the main one below RMP_THREAD_SERIALIZED (logged once per thread). */
int rmpi_check_state_slow(void);

/* Check that rmp_init has run, rmp_finalize has not, and this thread may call. */
static inline int rmpi_check_state(void)
{
    return RMPI_LIKELY(rmpi_tls_main) ? RMP_SUCCESS : rmpi_check_state_slow();
}

double rmpi_now(void);

#endif
