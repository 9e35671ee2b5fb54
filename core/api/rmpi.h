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

/* Process-wide state established by rmp_init. */
typedef struct rmpi_global {
    int state;           /* RMPI_STATE_* */
    int thread_level;    /* RMP_THREAD_* provided */
    int *main_tls;       /* the initialising thread's rmpi_tls_main */
    int rank;            /* world rank */
    int size;            /* world size */
    int local_rank;      /* index among ranks of this node */
    int local_size;      /* ranks on this node */
    int *local_ranks;    /* world ranks of this node, ascending */
    int *node_of;        /* node id per world rank */
    int num_nodes;
    bool singleton;      /* started without any PMIx server */
    bool oversubscribed; /* more local ranks than cores: yield when idle */
    bool yield_when_idle; /* progress calls sched_yield when it found nothing */
    bool sleep_when_idle; /* ... and sleeps from its second empty poll on */
    char hostname[256];
    int num_tls; /* transport instances in use */
    struct {
        const rmpi_tl_iface_t *iface;
        rmpi_tl_t *tl;
        rmpi_tl_caps_t caps;
    } tls[RMPI_TL_MAX];
    int num_polled; /* the instances whose progress() does something */
    struct {
        int (*progress)(rmpi_tl_t *tl);
        rmpi_tl_t *tl;
    } polled[RMPI_TL_MAX];
} rmpi_global_t;

enum { RMPI_STATE_NONE = 0, RMPI_STATE_INIT = 1, RMPI_STATE_FINALIZED = 2 };

extern rmpi_global_t rmpi_g;

/* 1 in the thread that called rmp_init, from the end of rmp_init to the start of
 * rmp_finalize (which clears it through rmpi_g.main_tls, whichever thread finalizes):
 * the only test on the path of every call. Static TLS (initial-exec): one load, no
 * __tls_get_addr call. */
extern __thread int rmpi_tls_main __attribute__((tls_model("initial-exec")));

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
