/* SPDX-License-Identifier: BSD-3-Clause */
/* PMIx client side of the runtime. Every PMIx status is converted to an rmp
 * code here; nothing else in the library includes pmix.h. */
#include <pmix.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "bootstrap.h"
#include "log.h"
#include "rmpi.h"

static pmix_proc_t boot_me;
static int boot_connected;

/* Failure notices arrive on PMIx's thread: flags only, read by progress. */
static _Atomic int boot_fail_count;
static _Atomic unsigned char *boot_failed;
static int boot_fail_seen;
static size_t boot_evhdlr_id;
static int boot_evhdlr_on;
static _Atomic size_t boot_evhdlr2_id; /* node and job-level events (boot_on_node_event) */
static _Atomic int boot_evhdlr2_on;
static _Atomic int boot_finalizing; /* the server's goodbye is no launcher lost */
static char (*boot_hosts)[64]; /* PMIX_HOSTNAME per rank ("" unknown): node-down events */

/* Singleton key/value store: a 1-rank job still puts and gets its own keys. */
typedef struct boot_kv {
    struct boot_kv *next;
    char *key;
    void *data;
    size_t len;
} boot_kv_t;
static boot_kv_t *boot_local_kv;

/* A launcher that wanted N ranks but does not serve PMIx would otherwise
 * start N unrelated singletons. */
static int boot_check_orphaned(void)
{
    static const char *const vars[] = {"SLURM_NTASKS", "SLURM_NPROCS", "OMPI_COMM_WORLD_SIZE",
                                       "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 1) {
            rmpi_error("%s=%s says this job has several ranks, but no PMIx server is "
                       "reachable: under Slurm run 'srun --mpi=pmix', under Open MPI use "
                       "its mpirun, or use rrun",
                       vars[i], v);
            return RMP_ERR_BOOTSTRAP;
        }
    }
    return RMP_SUCCESS;
}

static int boot_get_u32(const pmix_proc_t *p, const char *key, int optional, uint32_t *out)
{
    pmix_value_t *val = NULL;
    pmix_info_t info;
    bool t = true;
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &t, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(p, key, optional ? &info : NULL, optional ? 1 : 0, &val);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS || val == NULL)
        return RMP_ERR_BOOTSTRAP;
    int ret = RMP_SUCCESS;
    switch (val->type) {
    case PMIX_UINT32: *out = val->data.uint32; break;
    case PMIX_UINT16: *out = val->data.uint16; break;
    case PMIX_INT: *out = (uint32_t)val->data.integer; break;
    case PMIX_PROC_RANK: *out = val->data.rank; break;
    default: ret = RMP_ERR_BOOTSTRAP;
    }
    PMIX_VALUE_RELEASE(val);
    return ret;
}

static int boot_singleton(rmpi_engine_t *e)
{
    int rc = boot_check_orphaned();
    if (rc != RMP_SUCCESS)
        return rc;
    e->job.singleton = true;
    e->job.rank = 0;
    e->job.size = 1;
    e->job.local_rank = 0;
    e->job.local_size = 1;
    e->job.num_nodes = 1;
    e->job.local_ranks = calloc(1, sizeof(int));
    e->job.node_of = calloc(1 + RMPI_DYN_MAX, sizeof(int)); /* + dynamic peers */
    if (!e->job.local_ranks || !e->job.node_of)
        return RMP_ERR_NOMEM;
    gethostname(e->job.hostname, sizeof(e->job.hostname) - 1);
    return RMP_SUCCESS;
}

static int boot_local_peers(rmpi_engine_t *e)
{
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, boot_me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *val = NULL;
    int n = 0;
    e->job.local_ranks = calloc((size_t)e->job.size, sizeof(int));
    if (!e->job.local_ranks)
        return RMP_ERR_NOMEM;
    int rc = RMP_SUCCESS;
    if (PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &val) == PMIX_SUCCESS && val &&
        val->type == PMIX_STRING && val->data.string && val->data.string[0]) {
        rc = rmpi_boot_parse_peers(val->data.string, e->job.size, e->job.rank,
                                   e->job.local_ranks, &n);
        if (rc == RMP_ERR_BOOTSTRAP)
            rmpi_error("PMIx local peers \"%.200s\" are not distinct ranks of this job "
                       "including this one", val->data.string);
    }
    if (val)
        PMIX_VALUE_RELEASE(val);
    if (rc != RMP_SUCCESS)
        return rc;
    if (n == 0) { /* the server did not say: assume only ourselves */
        e->job.local_ranks[0] = e->job.rank;
        n = 1;
    }
    e->job.local_size = n;
    e->job.local_rank = -1;
    for (int i = 0; i < n; i++)
        if (e->job.local_ranks[i] == e->job.rank)
            e->job.local_rank = i;
    if (e->job.local_rank < 0) {
        rmpi_error("PMIx local peers do not include this rank");
        return RMP_ERR_BOOTSTRAP;
    }
    return RMP_SUCCESS;
}

static int boot_get_str(const pmix_proc_t *p, const char *key, char *buf, size_t len)
{
    pmix_value_t *val = NULL;
    pmix_info_t info;
    bool t = true;
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &t, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(p, key, &info, 1, &val);
    PMIX_INFO_DESTRUCT(&info);
    int ret = RMP_ERR_BOOTSTRAP;
    if (rc == PMIX_SUCCESS && val && val->type == PMIX_STRING && val->data.string) {
        snprintf(buf, len, "%s", val->data.string);
        ret = RMP_SUCCESS;
    }
    if (val)
        PMIX_VALUE_RELEASE(val);
    return ret;
}

/* Node id of every rank: from PMIx (not gethostname: emulated hosts share
 * it). Launchers give PMIX_NODEID for the local node only (Slurm 22.05, Open
 * MPI 4.1); remote ranks are then grouped by the PMIX_HOSTNAME PMIx reports,
 * the same on every rank. */
static int boot_nodes(rmpi_engine_t *e)
{
    int n = e->job.size;
    e->job.node_of = calloc((size_t)n + RMPI_DYN_MAX, sizeof(int)); /* + dynamic peers */
    char(*hosts)[64] = calloc((size_t)n, sizeof(*hosts));
    if (!e->job.node_of || !hosts) {
        free(hosts);
        return RMP_ERR_NOMEM;
    }
    uint32_t mynode = 0;
    if (boot_get_u32(&boot_me, PMIX_NODEID, 1, &mynode) != RMP_SUCCESS)
        mynode = 0;
    int unknown_next = -1;
    for (int r = 0; r < n; r++) {
        int local = 0;
        for (int i = 0; i < e->job.local_size; i++)
            local |= e->job.local_ranks[i] == r;
        if (local) {
            e->job.node_of[r] = (int)mynode;
            continue;
        }
        pmix_proc_t p;
        uint32_t nid;
        PMIX_LOAD_PROCID(&p, boot_me.nspace, (pmix_rank_t)r);
        if (boot_get_u32(&p, PMIX_NODEID, 1, &nid) == RMP_SUCCESS && nid != mynode) {
            e->job.node_of[r] = (int)nid;
        } else if (boot_get_str(&p, PMIX_HOSTNAME, hosts[r], sizeof(hosts[r])) == RMP_SUCCESS) {
            int first = r;
            for (int q = 0; q < r; q++)
                if (hosts[q][0] && strcmp(hosts[q], hosts[r]) == 0) {
                    first = q;
                    break;
                }
            e->job.node_of[r] = first == r ? 1000000 + r : e->job.node_of[first];
        } else {
            e->job.node_of[r] = unknown_next--; /* remote, node unknown */
        }
    }
    char mine[64]; /* the own node's name too, for node-down events */
    if (boot_get_str(&boot_me, PMIX_HOSTNAME, mine, sizeof(mine)) == RMP_SUCCESS)
        for (int i = 0; i < e->job.local_size; i++)
            snprintf(hosts[e->job.local_ranks[i]], sizeof(hosts[0]), "%s", mine);
    free(boot_hosts);
    boot_hosts = hosts;
    int nn = 0;
    for (int r = 0; r < n; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = e->job.node_of[q] == e->job.node_of[r];
        nn += !seen;
    }
    e->job.num_nodes = nn;
    return RMP_SUCCESS;
}

static void boot_mark_failed(rmpi_engine_t *e, const pmix_proc_t *p)
{
    if (p && PMIX_CHECK_NSPACE(p->nspace, boot_me.nspace) &&
        p->rank < (pmix_rank_t)e->job.size && boot_failed) {
        atomic_store(&boot_failed[p->rank], 1);
        atomic_fetch_add(&boot_fail_count, 1);
    }
}

/* Every affected proc the event's info names (one, or an array; a wildcard rank is
 * every rank of the namespace but this one). */
static int boot_mark_affected(rmpi_engine_t *e, const pmix_info_t info[], size_t ninfo)
{
    int found = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
            info[i].value.type == PMIX_PROC) {
            boot_mark_failed(e, info[i].value.data.proc);
            found = 1;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROCS) &&
                   info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray &&
                   info[i].value.data.darray->type == PMIX_PROC) {
            const pmix_data_array_t *a = info[i].value.data.darray;
            const pmix_proc_t *procs = a->array;
            for (size_t k = 0; k < a->size; k++) {
                if (procs[k].rank != PMIX_RANK_WILDCARD) {
                    boot_mark_failed(e, &procs[k]);
                    continue;
                }
                for (int r = 0; r < e->job.size; r++) {
                    pmix_proc_t p;
                    PMIX_LOAD_PROCID(&p, procs[k].nspace, (pmix_rank_t)r);
                    if (r != e->job.rank)
                        boot_mark_failed(e, &p);
                }
            }
            found = 1;
        }
    }
    return found;
}

static void boot_on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                          pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                          size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                          void *cbdata)
{
    rmpi_engine_t *e = &rmpi_eng;
    (void)id;
    (void)status;
    (void)results;
    (void)nresults;
    if (!boot_mark_affected(e, info, ninfo))
        boot_mark_failed(e, source);
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* The local PMIx server is gone: the launcher's daemon on this node ended or was killed
 * (mpirun or srun SIGKILLed, a daemon that crashed). Nothing will end this rank, forward
 * its output or answer a fence any more, so it ends now, from PMIx's thread (the main
 * thread may be computing, far from any rmp call), as Open MPI's and MPICH's ranks do:
 * an orphan would hold its node's cores and memory until someone finds it. Under rrun
 * the kernel ends the ranks first (PR_SET_PDEATHSIG). */
static void boot_launcher_lost(void)
{
    rmpi_error("lost the connection to the launcher's PMIx server (its daemon on this node "
               "ended or was killed): this rank ends too, as nothing could end it any more");
    _exit(1);
}

/* A node down or offline (every rank on it, named by host or by the affected procs),
 * a job's abort or its end with an error status (the affected procs), the connection
 * to the local PMIx server lost (boot_launcher_lost ends the rank). Runs in PMIx's
 * thread: for peers it only marks, rmpi_check_failures acts. */
static void boot_on_node_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                               pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                               size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                               void *cbdata)
{
    rmpi_engine_t *e = &rmpi_eng;
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    int found = 0, abnormal = status != PMIX_EVENT_JOB_END;
    for (size_t i = 0; i < ninfo && !abnormal; i++)
        abnormal = PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS) &&
                   info[i].value.type == PMIX_STATUS && info[i].value.data.status != PMIX_SUCCESS;
    if (!abnormal)
        goto done; /* a job's end without an error status: its ranks finalize, not fail */
    found = boot_mark_affected(e, info, ninfo);
    for (size_t i = 0; i < ninfo && !found && boot_hosts; i++) {
        if (!PMIX_CHECK_KEY(&info[i], PMIX_HOSTNAME) || info[i].value.type != PMIX_STRING ||
            !info[i].value.data.string)
            continue;
        for (int r = 0; r < e->job.size; r++)
            if (r != e->job.rank && strcmp(boot_hosts[r], info[i].value.data.string) == 0) {
                pmix_proc_t p;
                PMIX_LOAD_PROCID(&p, boot_me.nspace, (pmix_rank_t)r);
                boot_mark_failed(e, &p);
            }
    }
    if (status == PMIX_ERR_LOST_CONNECTION && !atomic_load(&boot_finalizing))
        boot_launcher_lost();
done:
    if (cbfunc) /* PMIX_SUCCESS: the other handlers (PMIx's defaults) still run */
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* The node-event handler's registration, answered in PMIx's thread. */
static void boot_node_registered(pmix_status_t status, size_t id, void *cbdata)
{
    (void)cbdata;
    if (status != PMIX_SUCCESS) {
        rmpi_debug("no PMIx node events: %s", PMIx_Error_string(status));
        return;
    }
    atomic_store(&boot_evhdlr2_id, id);
    atomic_store(&boot_evhdlr2_on, 1);
}

int rmpi_boot_failed_ranks(rmpi_engine_t *e, int *out, int max)
{
    int c = atomic_load_explicit(&boot_fail_count, memory_order_acquire);
    if (RMPI_LIKELY(c == boot_fail_seen))
        return 0;
    boot_fail_seen = c;
    int n = 0;
    for (int r = 0; r < e->job.size && n < max; r++)
        if (atomic_exchange(&boot_failed[r], 0))
            out[n++] = r;
    return n;
}

static void boot_register_events(rmpi_engine_t *e)
{
    boot_failed = calloc((size_t)e->job.size, sizeof(*boot_failed));
    if (!boot_failed)
        return;
    /* tests/faults: behave as under a launcher that sends no failure notices
     * (RMPI_, not RMP_: not a user parameter). */
    if (getenv("RMPI_FAULT_NO_NOTICES"))
        return;
    pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED, PMIX_PROC_TERMINATED,
                             PMIX_ERR_PROC_ABORTING, PMIX_ERR_PROC_TERM_WO_SYNC};
    pmix_status_t rc = PMIx_Register_event_handler(codes, sizeof(codes) / sizeof(codes[0]),
                                                   NULL, 0, boot_on_event, NULL, NULL);
    if (rc >= 0) {
        boot_evhdlr_id = (size_t)rc;
        boot_evhdlr_on = 1;
    } else {
        rmpi_debug("no PMIx failure notices: %s", PMIx_Error_string(rc));
    }
    /* Separately (a server that refuses these codes keeps the proc-level handler), and
     * without waiting for the server's answer: rmp_init gains no round trip. */
    pmix_status_t more[] = {PMIX_EVENT_NODE_DOWN, PMIX_EVENT_NODE_OFFLINE,
                            PMIX_ERR_LOST_CONNECTION, PMIX_EVENT_JOB_END,
                            PMIX_ERR_JOB_ABORTED};
    rc = PMIx_Register_event_handler(more, sizeof(more) / sizeof(more[0]), NULL, 0,
                                     boot_on_node_event, boot_node_registered, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
        rmpi_debug("no PMIx node events: %s", PMIx_Error_string(rc));
}

int rmpi_boot_init(rmpi_engine_t *e)
{
    if (getenv("PMIX_NAMESPACE") == NULL && getenv("PMIX_SERVER_URI41") == NULL &&
        getenv("PMIX_SERVER_URI4") == NULL && getenv("PMIX_SERVER_URI3") == NULL &&
        getenv("PMIX_SERVER_URI2") == NULL)
        return boot_singleton(e);

    pmix_status_t prc = PMIx_Init(&boot_me, NULL, 0);
    if (prc != PMIX_SUCCESS) {
        rmpi_error("PMIx_Init failed: %s", PMIx_Error_string(prc));
        return RMP_ERR_BOOTSTRAP;
    }
    boot_connected = 1;
    e->job.rank = (int)boot_me.rank;
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, boot_me.nspace, PMIX_RANK_WILDCARD);
    uint32_t size;
    if (boot_get_u32(&wild, PMIX_JOB_SIZE, 0, &size) != RMP_SUCCESS || size == 0) {
        rmpi_error("PMIx did not report the job size");
        return RMP_ERR_BOOTSTRAP;
    }
    e->job.size = (int)size;
    int rc = boot_local_peers(e);
    if (rc == RMP_SUCCESS)
        rc = boot_nodes(e);
    if (rc != RMP_SUCCESS)
        return rc;
    pmix_value_t *val = NULL;
    if (PMIx_Get(&boot_me, PMIX_HOSTNAME, NULL, 0, &val) == PMIX_SUCCESS && val &&
        val->type == PMIX_STRING)
        snprintf(e->job.hostname, sizeof(e->job.hostname), "%s", val->data.string);
    else
        gethostname(e->job.hostname, sizeof(e->job.hostname) - 1);
    if (val)
        PMIX_VALUE_RELEASE(val);
    boot_register_events(e);
    return RMP_SUCCESS;
}

int rmpi_boot_finalize(void)
{
    while (boot_local_kv) {
        boot_kv_t *kv = boot_local_kv;
        boot_local_kv = kv->next;
        free(kv->key);
        free(kv->data);
        free(kv);
    }
    if (!boot_connected)
        return RMP_SUCCESS;
    boot_connected = 0;
    atomic_store(&boot_finalizing, 1);
    if (boot_evhdlr_on)
        PMIx_Deregister_event_handler(boot_evhdlr_id, NULL, NULL);
    boot_evhdlr_on = 0;
    if (atomic_exchange(&boot_evhdlr2_on, 0))
        PMIx_Deregister_event_handler(atomic_load(&boot_evhdlr2_id), NULL, NULL);
    free(boot_hosts);
    boot_hosts = NULL;
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? RMP_SUCCESS : RMP_ERR_BOOTSTRAP;
}

int rmpi_boot_put(const char *key, const void *data, size_t len)
{
    if (!boot_connected) {
        boot_kv_t *kv = calloc(1, sizeof(*kv));
        if (!kv)
            return RMP_ERR_NOMEM;
        kv->key = strdup(key);
        kv->data = malloc(len ? len : 1);
        if (!kv->key || !kv->data) {
            free(kv->key);
            free(kv->data);
            free(kv);
            return RMP_ERR_NOMEM;
        }
        memcpy(kv->data, data, len);
        kv->len = len;
        kv->next = boot_local_kv;
        boot_local_kv = kv;
        return RMP_SUCCESS;
    }
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)data;
    val.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS) {
        rmpi_error("PMIx_Put(%s) failed: %s", key, PMIx_Error_string(rc));
        return RMP_ERR_BOOTSTRAP;
    }
    return RMP_SUCCESS;
}

static atomic_int boot_fence_done;
static pmix_status_t boot_fence_status;

static void boot_fence_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    boot_fence_status = status;
    atomic_store(&boot_fence_done, 1);
}

/* Non-blocking fence, waited for here: a rank that dies before it joins
 * makes the server hold the fence until it notices, possibly for ever; the
 * launcher's failure notice ends the wait at once instead. */
int rmpi_boot_fence(void)
{
    if (!boot_connected)
        return RMP_SUCCESS;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        rmpi_error("PMIx_Commit failed: %s", PMIx_Error_string(rc));
        return RMP_ERR_BOOTSTRAP;
    }
    /* Static: an abandoned fence may still read them. */
    static pmix_info_t info;
    static pmix_proc_t wild;
    static bool t = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    PMIX_LOAD_PROCID(&wild, boot_me.nspace, PMIX_RANK_WILDCARD);
    atomic_store(&boot_fence_done, 0);
    rc = PMIx_Fence_nb(&wild, 1, &info, 1, boot_fence_cb, NULL);
    if (rc == PMIX_SUCCESS) {
        struct timespec ts = {0, 100000};
        while (!atomic_load(&boot_fence_done)) {
            if (atomic_load(&boot_fail_count) > 0) {
                /* A consequence: the launcher names the rank that failed. */
                rmpi_info("fence abandoned: another rank of the job failed");
                return RMP_ERR_PEER_FAILED;
            }
            nanosleep(&ts, NULL);
        }
        rc = boot_fence_status;
    }
    if (rc != PMIX_SUCCESS) {
        rmpi_error("PMIx_Fence failed: %s", PMIx_Error_string(rc));
        /* A participant that died makes the server end the fence with
         * PARTIAL_SUCCESS (PMIx 4: the survivors' part did complete). */
        return rc == PMIX_ERR_PROC_ABORTED || rc == PMIX_ERR_LOST_CONNECTION ||
                       rc == PMIX_ERR_PARTIAL_SUCCESS || rc == PMIX_ERR_PROC_TERM_WO_SYNC
                   ? RMP_ERR_PEER_FAILED
                   : RMP_ERR_BOOTSTRAP;
    }
    return RMP_SUCCESS;
}

int rmpi_boot_get(int rank, const char *key, void **data, size_t *len)
{
    if (!boot_connected) {
        for (boot_kv_t *kv = boot_local_kv; kv; kv = kv->next) {
            if (rank == 0 && strcmp(kv->key, key) == 0) {
                void *d = malloc(kv->len ? kv->len : 1);
                if (!d)
                    return RMP_ERR_NOMEM;
                memcpy(d, kv->data, kv->len);
                *data = d;
                *len = kv->len;
                return RMP_SUCCESS;
            }
        }
        return RMP_ERR_BOOTSTRAP;
    }
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, boot_me.nspace, (pmix_rank_t)rank);
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val == NULL || val->type != PMIX_BYTE_OBJECT) {
        rmpi_error("PMIx_Get(rank %d, %s) failed: %s", rank, key, PMIx_Error_string(rc));
        if (val)
            PMIX_VALUE_RELEASE(val);
        return RMP_ERR_BOOTSTRAP;
    }
    size_t n = val->data.bo.size;
    void *d = malloc(n ? n : 1);
    if (!d) {
        PMIX_VALUE_RELEASE(val);
        return RMP_ERR_NOMEM;
    }
    memcpy(d, val->data.bo.bytes, n);
    PMIX_VALUE_RELEASE(val);
    *data = d;
    *len = n;
    return RMP_SUCCESS;
}

void rmpi_boot_abort(int exit_code, const char *msg)
{
    fflush(stdout);
    fflush(stderr);
    if (boot_connected)
        PMIx_Abort(exit_code, msg, NULL, 0);
    _exit(exit_code);
}

const char *rmpi_boot_version(void)
{
    return PMIx_Get_version();
}
