/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine object: everything a running instance of rmp owns (the job's shape, the
 * transports in use, the peers, matching queues, request pool, configuration and
 * tuning in force, thread state, statistics, and each protocol module's tables), and
 * its lifetime: start (every protocol module registers its message handlers), finalize
 * draining, teardown (core/engine.c). Each field has one owning module, named at the
 * field; the others only read it or go through that module's functions.
 * The process globals that are not part of it, and why: docs/architecture.md
 * ("Process globals"), checked by tools/check-globals. */
#ifndef RMPI_ENGINE_H
#define RMPI_ENGINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "am.h"
#include "config.h"
#include "match.h"
#include "proto.h"
#include "rmpi.h"
#include "transport.h"
#include "tuning.h"

struct rmpi_ux;
struct rmpi_peer;
struct rmpi_cid_agree;
struct rmpi_rma_op;
struct rmpi_ulfm_st;
struct rmp_win;
struct rmp_comm;

/* The shape of the job as seen from this rank (core/bootstrap.c fills it at
 * rmp_init; core/runtime.c decides the idling policy from it). */
typedef struct rmpi_job {
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
} rmpi_job_t;

/* The transport instances in use (core/runtime.c, core/tl_registry.c). */
typedef struct rmpi_tls {
    int num;
    struct {
        const rmpi_tl_iface_t *iface;
        rmpi_tl_t *tl;
        rmpi_tl_caps_t caps;
    } v[RMPI_TL_MAX];
    int num_polled; /* the instances whose progress() does something */
    struct {
        int (*progress)(rmpi_tl_t *tl);
        rmpi_tl_t *tl;
    } polled[RMPI_TL_MAX];
    rmpi_tl_args_t args[RMPI_TL_MAX]; /* what each was opened with (runtime.c) */
} rmpi_tls_t;

/* The engine lock of RMP_THREAD_MULTIPLE (core/mt.h). */
typedef struct rmpi_mt_lock {
    void *owner; /* the holder's rmpi_mt_self address, NULL when free (atomic) */
    int depth;   /* recursion, touched by the holder only */
} rmpi_mt_lock_t;

/* Lifecycle and threads (core/runtime.c, core/mt.c). */
typedef struct rmpi_thr {
    int state;           /* RMPI_STATE_* */
    int level;           /* RMP_THREAD_* provided */
    int *main_tls;       /* the initialising thread's rmpi_tls_main */
    bool multiple;       /* level is MULTIPLE: set once at init, before other threads call */
    rmpi_mt_lock_t lock;
} rmpi_thr_t;

/* Message counters (RMP_STATS=1, rmp_stats_get, MPI_T). */
typedef struct rmpi_stats {
    uint64_t eager_sent, eager_bytes, rndv_sent, rndv_bytes, frag_sent, frag_bytes;
    uint64_t direct_bytes; /* layout data copied straight from or into its segments */
    uint64_t unexpected;
    uint64_t recvd, recvd_bytes; /* messages that arrived, matched or not */
    /* per transport slot of the engine's tls (RMP_STATS=1) */
    uint64_t tl_msgs[RMPI_TL_MAX], tl_bytes[RMPI_TL_MAX];
} rmpi_stats_t;

/* The request pool and the generic requests (core/request.c). */
typedef struct rmpi_reqs {
    rmp_request_t free_list;
    void **chunks;
    size_t nchunks;
    rmp_request_t active_gen; /* generic requests being progressed */
    int have_gen;             /* active_gen != NULL, read by every progress call */
    double next_health;       /* rmpi_health_tick's next check */
} rmpi_reqs_t;

/* Context-id agreement (core/cid.c). Allocator s hands out the ids 2s modulo
 * RMPI_CID_MOD: 0 is the main one, 1..RMPI_CID_SLOTS the eager ones. */
#define RMPI_CID_SLOTS 15
typedef struct rmpi_cids {
    pthread_mutex_t lock; /* a leaf lock: under the engine lock or alone, never waiting */
    uint32_t next[RMPI_CID_SLOTS + 1]; /* 0: the next main id, set at first use */
    struct rmpi_cid_agree *owner[RMPI_CID_SLOTS + 1];
    struct rmpi_cid_agree *queue; /* past round 0, by increasing key */
    struct rmpi_cid_agree *idups; /* idups not finished */
} rmpi_cids_t;

/* Open ports of rmp_port_open (core/port.c). */
#define RMPI_PORT_MAX 64
typedef struct rmpi_ports {
    struct {
        int fd;
        uint64_t token;
        char name[96];
    } tab[RMPI_PORT_MAX];
    int n;
} rmpi_ports_t;

/* One-sided state: emulated operations in flight (core/rma_emu.c), the window table
 * (core/rma_win.c). */
typedef struct rmpi_rmas {
    struct rmpi_rma_op *inflight; /* oldest first */
    struct rmpi_rma_op **inflight_tail;
    uint64_t seq;
    struct rmpi_rma_op *free_ops;
    struct rmp_win **win_table;
    uint32_t win_ntable;
    struct rmp_win *win_dead_old, *win_dead_new;
    unsigned win_ndead;
} rmpi_rmas_t;

/* A send in a caller's layout being packed (core/layout.c). */
typedef struct rmpi_layout_out {
    unsigned char *buf;
    rmp_request_t req;
    size_t off, len;
} rmpi_layout_out_t;

/* Point-to-point state, zeroed at each engine start (core/engine.c). */
typedef struct rmpi_p2p {
    rmpi_mq_t posted;           /* posted receives (recv.c) */
    rmpi_mq_t unexp;            /* unexpected messages (recv.c) */
    struct rmpi_ux *ux_free;    /* pool of unexpected entries (recv.c) */
    rmpi_mq_t need_put;         /* RNDV_PUT sends whose put found no room (rndv.c) */
    int npending;               /* peers with a non-empty pending FIFO (send.c) */
    int nfailed;                /* peers known to have failed (failure.c) */
    int ntell;                  /* failures seen here, notices not sent yet (failure.c) */
    /* Oversubscribed idling (progress.c): polls that found nothing since the last event,
     * when that streak began, and the current sleep (0: not sleeping yet). */
    unsigned idle;
    double idle_since;
    long sleep_ns;
    int windows;                /* live windows of this rank (rma_win.c) */
} rmpi_p2p_t;

typedef struct rmpi_engine {
    rmpi_thr_t thr;
    rmpi_job_t job;
    rmpi_tls_t tls;
    rmpi_config_t cfg;          /* configuration in force (core/config.c) */
    rmpi_tuning_t tuning;       /* what the tuning file gave (core/tuning.c) */
    /* World ranks [0, size), then dynamic peers (core/dynpeer.c) up to npeers; the
     * table has room for RMPI_DYN_MAX of those, so entries never move. */
    struct rmpi_peer *peers;
    int npeers;
    struct rmp_comm *world;     /* the world communicator (core/comm.c) */
    rmpi_am_fn_t am[RMPI_MSG_MAX]; /* message handlers by id (core/am.c) */
    rmpi_p2p_t p2p;
    rmpi_reqs_t req;
    rmpi_cids_t cid;
    rmpi_ports_t port;
    rmpi_rmas_t rma;
    rmpi_layout_out_t layout;
    struct rmpi_ulfm_st *ulfm_list; /* revoke and agreement state per context (ulfm.c) */
    int ulfm_nrevoked;          /* communicators revoked here (ulfm.c) */
    rmpi_stats_t stats;
} rmpi_engine_t;

/* This process's engine (core/engine.c). */
extern rmpi_engine_t rmpi_eng;

enum { RMPI_STATE_NONE = 0, RMPI_STATE_INIT = 1, RMPI_STATE_FINALIZED = 2 };

/* Runtime hooks (core/runtime.c). */
int rmpi_p2p_init(rmpi_engine_t *e);
/* Push out everything queued (control messages included) before teardown. */
int rmpi_p2p_drain(rmpi_engine_t *e);
void rmpi_p2p_fini(rmpi_engine_t *e);

#endif
