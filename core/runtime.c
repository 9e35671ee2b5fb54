/* SPDX-License-Identifier: BSD-3-Clause */
/* rmp_init / rmp_finalize: configuration, PMIx bootstrap, transport
 * selection per peer, the world communicator. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bootstrap.h"
#include "rcache.h"
#include "comm.h"
#include "config.h"
#include "fault.h"
#include "log.h"
#include "mt.h"
#include "p2p.h"
#include "tl_registry.h"
#include "topo.h"
#include "tuning.h"


/* Arguments of each open instance (slot of rmpi_eng.tls.v): they outlive it. */

double rmpi_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

RMP_EXPORT double rmp_wtime(void)
{
    return rmpi_now();
}

RMP_EXPORT int rmp_initialized(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    return e->thr.state == RMPI_STATE_INIT;
}

__thread int rmpi_tls_main __attribute__((tls_model("initial-exec")));
int rmpi_any_thread;
static __thread int runtime_tls_warned;

static const char *const runtime_level_names[] = {"RMP_THREAD_SINGLE", "RMP_THREAD_FUNNELED",
                                                  "RMP_THREAD_SERIALIZED",
                                                  "RMP_THREAD_MULTIPLE"};

int rmpi_check_state_slow(void)
{
    if (RMPI_LIKELY(__atomic_load_n(&rmpi_any_thread, __ATOMIC_RELAXED)))
        return RMP_SUCCESS; /* another thread at SERIALIZED or more */
    rmpi_engine_t *e = &rmpi_eng;
    if (e->thr.state != RMPI_STATE_INIT)
        return RMP_ERR_STATE;
    /* The main thread's flag is cleared after a revoke too (core/ulfm.c). */
    if (e->thr.level >= RMP_THREAD_SERIALIZED || &rmpi_tls_main == e->thr.main_tls)
        return RMP_SUCCESS;
    if (!runtime_tls_warned) {
        runtime_tls_warned = 1;
        rmpi_error("rmp called from a thread other than the one that initialised it, at "
                   "thread level %s: calls from this thread return RMP_ERR_STATE (start rmp "
                   "with rmp_init_thread(..., RMP_THREAD_SERIALIZED, ...) or more to call "
                   "from several threads)",
                   runtime_level_names[e->thr.level]);
    }
    return RMP_ERR_STATE;
}

RMP_EXPORT int rmp_query_thread(int *provided)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (!provided)
        return RMP_ERR_ARG;
    if (e->thr.state != RMPI_STATE_INIT)
        return RMP_ERR_STATE;
    *provided = e->thr.level;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_is_thread_main(int *flag)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (!flag)
        return RMP_ERR_ARG;
    if (e->thr.state != RMPI_STATE_INIT)
        return RMP_ERR_STATE;
    *flag = &rmpi_tls_main == e->thr.main_tls;
    return RMP_SUCCESS;
}

/* Open t in the next slot of rmpi_eng.tls.v. */
static int runtime_open_tl(rmpi_engine_t *e, const rmpi_tl_iface_t *t)
{
    int slot = e->tls.num;
    rmpi_tl_args_t *args = &e->tls.args[slot];
    rmpi_tl_caps_t caps = {0}; /* a field a transport leaves alone is off */
    rmpi_tl_t *tl;
    rmpi_tl_args_fill(e, t, args);
    int rc = t->init(args, &tl, &caps);
    if (rc != RMP_SUCCESS)
        return rc;
    e->tls.v[slot].iface = t;
    e->tls.v[slot].tl = tl;
    e->tls.v[slot].caps = caps;
    e->tls.num++;
    return RMP_SUCCESS;
}

/* Is the transport compiled in, named by RMP_TRANSPORTS and usable on this host? */
static int runtime_tl_selected(rmpi_engine_t *e, const char *name)
{
    size_t n = strlen(name);
    const rmpi_tl_entry_t *te = rmpi_tl_lookup(name, n);
    char why[256];
    rmpi_tl_args_t qargs;
    if (!te || !te->iface)
        return 0;
    for (const char *s = e->cfg.transports; *s; s += strcspn(s, ","), s += *s == ',')
        if (strcspn(s, ",") == n && strncmp(s, name, n) == 0) {
            rmpi_tl_args_fill(e, te->iface, &qargs);
            return te->iface->query(&qargs, why, sizeof(why)) == RMP_SUCCESS;
        }
    return 0;
}

/* Initialise the transports of RMP_TRANSPORTS that can run here. A name the
 * user asked for explicitly that cannot work is an error; with the default
 * list, unusable ones are skipped. */
static int runtime_open_transports(rmpi_engine_t *e)
{
    int explicit_list = getenv("RMP_TRANSPORTS") != NULL;
    const char *s = e->cfg.transports;
    e->tls.num = 0;
    /* self is always there, and always first. */
    int rc = runtime_open_tl(e, rmpi_tl_registry[0].iface);
    if (rc != RMP_SUCCESS)
        return rc;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (len == 0) {
            s++;
            continue;
        }
        const rmpi_tl_entry_t *te = rmpi_tl_lookup(s, len);
        if (!te || te == &rmpi_tl_registry[0]) {
            rmpi_error("RMP_TRANSPORTS names an unknown transport '%.*s' (known: %s)", (int)len,
                       s, rmpi_tl_names());
            return RMP_ERR_ARG;
        }
        const rmpi_tl_iface_t *iface = te->iface;
        char why[256] = "not compiled into this build";
        rmpi_tl_args_t qargs;
        if (iface)
            rmpi_tl_args_fill(e, iface, &qargs);
        if (!iface || iface->query(&qargs, why, sizeof(why)) != RMP_SUCCESS) {
            if (explicit_list) {
                rmpi_error("transport '%.*s' cannot be used here: %s", (int)len, s, why);
                return RMP_ERR_NOT_SUPPORTED;
            }
            rmpi_info("transport '%.*s' skipped: %s", (int)len, s, why);
        } else if (e->tls.num < RMPI_TL_MAX) {
            rc = runtime_open_tl(e, iface);
            if (rc != RMP_SUCCESS) {
                rmpi_error("transport '%s' failed to start: %s", iface->name,
                           rmp_strerror(rc));
                return rc;
            }
            rmpi_tl_caps_t *caps = &e->tls.v[e->tls.num - 1].caps;
            rmpi_from_t from;
            caps->rndv_threshold = rmpi_tuning_rndv(e, iface->name, caps->rndv_threshold, &from);
            rmpi_debug("%s: rendezvous from %zu B (%s)", iface->name, caps->rndv_threshold,
                       rmpi_tuning_from_name(from));
        }
        s += len;
    }
    return RMP_SUCCESS;
}

/* Connect peer w with the first transport in rmpi_eng.tls.v that reaches it,
 * handing it the peer's address for that transport from blob. */
static int runtime_connect_peer(rmpi_engine_t *e, int w, const void *blob, size_t blen)
{
    rmpi_peer_t *p = &e->peers[w];
    int same_node = e->job.node_of[w] == e->job.node_of[e->job.rank];
    int first = w == e->job.rank ? 0 : 1;
    int last = w == e->job.rank ? 1 : e->tls.num;
    for (int i = first; i < last && !p->iface; i++) {
        const rmpi_tl_iface_t *t = e->tls.v[i].iface;
        if (e->tls.v[i].caps.intranode_only && !same_node)
            continue;
        const void *addr = NULL;
        size_t alen = 0;
        int rc = w == e->job.rank ? RMP_SUCCESS
                                        : rmpi_tl_addr_find(blob, blen, t->name, &addr, &alen);
        if (rc != RMP_SUCCESS) {
            rmpi_error("rank %d %s", w,
                       rc == RMP_ERR_NOT_SUPPORTED
                           ? "published no address for a transport this rank uses "
                             "(RMP_TRANSPORTS must be the same on every rank)"
                           : "published a malformed transport address");
            return RMP_ERR_BOOTSTRAP;
        }
        rmpi_tl_caps_t caps = e->tls.v[i].caps;
        rc = t->connect(e->tls.v[i].tl, w, addr, alen, &p->ep, &caps);
        if (rc != RMP_SUCCESS) {
            rmpi_error("cannot connect to rank %d with %s: %s", w, t->name, rmp_strerror(rc));
            return rc;
        }
        rmpi_peer_attach(e, p, i, &caps);
    }
    if (!p->iface) {
        rmpi_error("no transport in RMP_TRANSPORTS=%s reaches rank %d (%s node)",
                   e->cfg.transports, w, same_node ? "same" : "another");
        return RMP_ERR_TRANSPORT;
    }
    rmpi_info("rank %d via %s (eager up to %zu B, rendezvous from %zu B)", w, p->iface->name,
              p->max_am, p->rndv_threshold);
    return RMP_SUCCESS;
}

/* One address get per peer. */
static int runtime_connect_peers(rmpi_engine_t *e)
{
    /* Room for dynamic peers too (core/dynpeer.c): entries never move. */
    e->peers = calloc((size_t)e->job.size + RMPI_DYN_MAX, sizeof(*e->peers));
    if (!e->peers)
        return RMP_ERR_NOMEM;
    for (int w = e->job.size; w < e->job.size + RMPI_DYN_MAX; w++)
        rmpi_mq_init(&e->peers[w].pending);
    e->npeers = e->job.size;
    int rc = RMP_SUCCESS;
    for (int w = 0; w < e->job.size && rc == RMP_SUCCESS; w++) {
        void *blob = NULL;
        size_t blen = 0;
        rmpi_mq_init(&e->peers[w].pending);
        if (w != e->job.rank)
            rc = rmpi_tl_fetch(w, &blob, &blen);
        if (rc == RMP_SUCCESS)
            rc = runtime_connect_peer(e, w, blob, blen);
        free(blob);
    }
    return rc;
}

/* The progress loop polls only instances that can have events: those that
 * reach at least one peer (peers pick transports by the same rule on both
 * sides, so an unused instance never receives anything). */
static void runtime_polled(rmpi_engine_t *e)
{
    e->tls.num_polled = 0;
    for (int i = 0; i < e->tls.num; i++) {
        int used = 0;
        for (int w = 0; w < e->job.size && !used; w++)
            used = e->peers && e->peers[w].tl == e->tls.v[i].tl &&
                   w != e->job.rank;
        if (used && e->tls.v[i].iface->progress &&
            e->tls.v[i].iface != rmpi_tl_registry[0].iface) {
            e->tls.polled[e->tls.num_polled].progress =
                e->tls.v[i].iface->progress;
            e->tls.polled[e->tls.num_polled].tl = e->tls.v[i].tl;
            e->tls.num_polled++;
        }
    }
}

static void runtime_close_transports(rmpi_engine_t *e)
{
    e->tls.num_polled = 0;
    for (int i = e->tls.num - 1; i >= 0; i--)
        e->tls.v[i].iface->fini(e->tls.v[i].tl);
    e->tls.num = 0;
    free(e->peers);
    e->peers = NULL;
    e->npeers = 0;
}

static void runtime_release(rmpi_engine_t *e)
{
    rmpi_rma_fini(e);
    runtime_close_transports(e);
    rmpi_p2p_fini(e);
    rmpi_comm_world_fini(e);
    free(e->job.local_ranks);
    free(e->job.node_of);
    e->job.local_ranks = NULL;
    e->job.node_of = NULL;
}

/* rrun --verbose: each set-up step of rmp_init with the milliseconds since it began. */
static void runtime_step(rmpi_engine_t *e, double t0, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void runtime_step(rmpi_engine_t *e, double t0, const char *fmt, ...)
{
    if (!getenv("RMP_RRUN_VERBOSE")) /* a few calls, during rmp_init only */
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "[rmp %d] init %.1f ms: %s\n", e->job.rank, (rmpi_now() - t0) * 1e3, msg);
}

/* "shm,tcp" (what is open), or with peers "shm 3, tcp 4" (peers reached by each). */
static void runtime_step_transports(rmpi_engine_t *e, double t0, const char *what)
{
    char names[160] = "";
    size_t len = 0;
    for (int i = 0; i < e->tls.num && len < sizeof(names); i++) {
        int peers = 0;
        for (int w = 0; e->peers && w < e->job.size; w++)
            peers += e->peers[w].tl == e->tls.v[i].tl;
        if (!e->peers)
            len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? "," : "",
                                    e->tls.v[i].iface->name);
        else if (peers)
            len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s %d",
                                    len ? ", " : "", e->tls.v[i].iface->name, peers);
    }
    runtime_step(e, t0, "%s: %s", what, names);
}

RMP_EXPORT int rmp_init(int *argc, char ***argv)
{
    int provided;
    return rmp_init_thread(argc, argv, RMP_THREAD_SINGLE, &provided);
}

RMP_EXPORT int rmp_init_thread(int *argc, char ***argv, int required, int *provided)
{
    rmpi_engine_t *e = &rmpi_eng;
    (void)argc;
    (void)argv;
    if (!provided || required < RMP_THREAD_SINGLE || required > RMP_THREAD_MULTIPLE)
        return RMP_ERR_ARG;
    if (e->thr.state != RMPI_STATE_NONE) {
        rmpi_warn("rmp_init called %s", e->thr.state == RMPI_STATE_INIT
                                             ? "twice"
                                             : "after rmp_finalize (rmp cannot restart)");
        return RMP_ERR_STATE;
    }
    double t0 = rmpi_now();
    int rc = rmpi_config_load(e);
    if (rc == RMP_SUCCESS)
        rc = rmpi_tuning_load(e);
    if (rc != RMP_SUCCESS) /* each problem was said, once, by the validator */
        return rc;
    /* Memory hooks patch libc: before PMIx starts threads that may be inside it, and
       only for their one user, the verbs transport's registration cache. */
    if (runtime_tl_selected(e, "verbs"))
        (void)rcache_hooks_install();
    rc = rmpi_boot_init(e);
    if (rc != RMP_SUCCESS)
        goto err_boot;
    runtime_step(e, t0, "PMIx client up: rank %d of %d, %d node(s)", e->job.rank,
                 e->job.size, e->job.num_nodes);
    int cores = rmpi_topo_num_cores();
    e->job.oversubscribed = e->job.local_size > cores;
    e->job.yield_when_idle = e->cfg.poll_yield == 1 || e->cfg.poll_yield == 3 ||
                             (e->cfg.poll_yield == 0 && e->job.oversubscribed);
    e->job.sleep_when_idle = e->cfg.poll_yield == 3;
    rc = rmpi_p2p_init(e);
    if (rc == RMP_SUCCESS && (rc = runtime_open_transports(e)) == RMP_SUCCESS)
        runtime_step_transports(e, t0, "transports open");
    if (rc == RMP_SUCCESS && e->job.size > 1)
        rc = rmpi_tl_publish(e);
    if (rc == RMP_SUCCESS && e->job.size > 1)
        rc = rmpi_tuning_publish();
    rmpi_fault_point(e, "init-before-fence");
    if (rc == RMP_SUCCESS && e->job.size > 1 && (rc = rmpi_boot_fence()) == RMP_SUCCESS)
        runtime_step(e, t0, "endpoints exchanged (PMIx fence)");
    rmpi_fault_point(e, "init-after-fence");
    if (rc == RMP_SUCCESS && e->job.size > 1)
        rc = rmpi_tuning_check(e);
    if (rc == RMP_SUCCESS && (rc = runtime_connect_peers(e)) == RMP_SUCCESS)
        runtime_step_transports(e, t0, "peers per transport");
    if (rc == RMP_SUCCESS)
        runtime_polled(e);
    if (rc == RMP_SUCCESS && e->job.size > 1)
        rc = rmpi_boot_fence();
    for (int i = 0; rc == RMP_SUCCESS && i < e->tls.num; i++)
        if (e->tls.v[i].iface->post_connect)
            rc = e->tls.v[i].iface->post_connect(e->tls.v[i].tl);
    if (rc == RMP_SUCCESS)
        rc = rmpi_comm_world_init(e);
    if (rc != RMP_SUCCESS)
        goto err_runtime;
    if (rc == RMP_SUCCESS && required == RMP_THREAD_MULTIPLE)
        rc = rmpi_mt_start(e);
    if (rc != RMP_SUCCESS)
        goto err_runtime;
    e->thr.level = required;
    *provided = e->thr.level;
    e->thr.state = RMPI_STATE_INIT;
    e->thr.main_tls = &rmpi_tls_main;
    rmpi_tls_main = 1;
    if (e->thr.level >= RMP_THREAD_SERIALIZED)
        __atomic_store_n(&rmpi_any_thread, 1, __ATOMIC_RELAXED);
    rmpi_diag_install();
    runtime_step(e, t0, "ready (segments mapped, connections set up)");
    rmpi_info("initialized: rank %d of %d on %s (local %d of %d, %d node(s))%s", e->job.rank,
              e->job.size, e->job.hostname, e->job.local_rank,
              e->job.local_size, e->job.num_nodes,
              e->job.singleton ? ", singleton" : "");
    return RMP_SUCCESS;

err_runtime:
    runtime_release(e);
    rmpi_boot_finalize();
err_boot:
    if (rc == RMP_ERR_PEER_FAILED) /* a consequence: the launcher names the rank */
        rmpi_info("rmp_init failed: %s", rmp_strerror(rc));
    else
        rmpi_error("rmp_init failed: %s", rmp_strerror(rc));
    return rc;
}

static void runtime_print_stats(rmpi_engine_t *e)
{
    const rmpi_stats_t *st = &e->stats;
    fprintf(stderr,
            "[rmp %d] stats: eager %llu msgs %llu B, rendezvous %llu msgs %llu B, fragmented "
            "%llu msgs %llu B, unexpected %llu (queue high water %zu)\n",
            e->job.rank, (unsigned long long)st->eager_sent,
            (unsigned long long)st->eager_bytes, (unsigned long long)st->rndv_sent,
            (unsigned long long)st->rndv_bytes, (unsigned long long)st->frag_sent,
            (unsigned long long)st->frag_bytes, (unsigned long long)st->unexpected,
            rmpi_p2p_unexpected_high_water(e));
    for (int i = 0; i < e->tls.num; i++)
        fprintf(stderr, "[rmp %d] stats: %s: %llu msgs %llu B sent\n", e->job.rank,
                e->tls.v[i].iface->name, (unsigned long long)e->stats.tl_msgs[i],
                (unsigned long long)e->stats.tl_bytes[i]);
}

RMP_EXPORT int rmp_finalize(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    rmpi_fault_point(e, "finalize-before-fence");
    rc = rmpi_p2p_drain(e);
    /* Everyone stops sending before anyone tears down its memory. */
    int frc = e->job.size > 1 ? rmpi_boot_fence() : RMP_SUCCESS;
    /* A survivor that went on (RMP_ON_FAILURE=continue) knows of the death already. */
    if (frc == RMP_ERR_PEER_FAILED && e->cfg.on_failure == 1 && e->p2p.nfailed > 0)
        frc = RMP_SUCCESS;
    rmpi_fault_point(e, "finalize-after-fence");
    if (e->cfg.stats)
        runtime_print_stats(e);
    e->thr.state = RMPI_STATE_FINALIZED;
    *e->thr.main_tls = 0;
    __atomic_store_n(&rmpi_any_thread, 0, __ATOMIC_RELAXED);
    runtime_release(e);
    rmpi_mt_stop(e);
    int brc = rmpi_boot_finalize();
    if (rc == RMP_SUCCESS)
        rc = frc != RMP_SUCCESS ? frc : brc;
    return rc;
}

RMP_EXPORT void rmp_abort(rmp_comm_t comm, int exit_code)
{
    rmpi_engine_t *e = &rmpi_eng;
    (void)comm;
    char msg[128];
    /* No API name: an MPI program reaches this through MPI_Abort or its error handler. */
    snprintf(msg, sizeof(msg), "rank %d aborts the job with exit code %d", e->job.rank,
             exit_code);
    rmpi_error("%s", msg);
    rmpi_boot_abort(exit_code, msg);
}
