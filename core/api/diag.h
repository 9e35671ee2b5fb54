/* SPDX-License-Identifier: BSD-3-Clause */
/* Hang diagnosis (core/diag.c): on SIGUSR1 every rank writes one line saying
 * what it is blocked on. A blocking wait on a request is known from
 * rmpi_req_wait; loops without a request (probe, one-sided waits, collectives
 * spinning on shared memory) say here what they wait on. */
#ifndef RMPI_DIAG_H
#define RMPI_DIAG_H

#include "rmp.h"

/* What a blocking call waits on when it has no request; call == NULL: nothing. */
typedef struct rmpi_diag {
    const char *call;
    int peer; /* world rank, -1: any or several */
    int tag;
    long cid; /* -1: none */
    int coll; /* a collective waiting in a shared segment: reported like its receives */
} rmpi_diag_t;

/* Written by the blocking loops, read by the signal handler. Per thread: under
 * MULTIPLE each thread blocks on its own call, and the report names the one of
 * the thread the signal lands on (the main thread, in a single-threaded program).
 * Visible here so that the calls below inline: every collective call enters one. */
#define RMPI_DIAG_TLS __thread __attribute__((tls_model("initial-exec")))
extern RMPI_DIAG_TLS volatile rmpi_diag_t rmpi_diag_other;
extern RMPI_DIAG_TLS const char *volatile rmpi_diag_coll_call;

/* The current state, to restore when the loop ends (loops nest). */
static inline rmpi_diag_t rmpi_diag_save(void)
{
    return rmpi_diag_other;
}
static inline void rmpi_diag_restore(rmpi_diag_t saved)
{
    rmpi_diag_other = saved;
}
/* Waiting in call on world rank peer (-1: any), for tag on context cid (-1: none). */
void rmpi_diag_wait(const char *call, int peer, int tag, long cid);
/* A collective of comm (the call last entered) waits in a shared segment on
 * its world rank peer. */
void rmpi_diag_wait_coll(rmp_comm_t comm, int peer);
/* A collective call starts (the report names it). */
static inline void rmpi_diag_coll_enter(const char *call)
{
    rmpi_diag_coll_call = call;
}

/* Install the SIGUSR1 handler unless the application has its own (rmp_init), and the
 * fatal-signal backtrace (core/backtrace.c). */
void rmpi_diag_install(void);
/* The backtrace on SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT unless RMP_BACKTRACE=0 or
 * the application (or a sanitizer) handles the signal. */
void rmpi_backtrace_install(void);

#endif
