/* SPDX-License-Identifier: BSD-3-Clause */
/* The embedded PMIx server: one namespace for the job, every rank a local
 * client. Upcalls run on PMIx's own thread: they never block, and they hand
 * events to the main loop through notify_fd. */
#include <ftw.h>
#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>
#include <errno.h>
#include <sys/wait.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rrun.h"

/* Written by upcalls on the PMIx thread, read by the main loop. The abort
 * status is stored before srv_aborted is released, so a reader that sees
 * srv_aborted sees the status too. */
static atomic_bool srv_aborted;
static atomic_int srv_abort_rank, srv_abort_status;
static atomic_uchar *srv_connected, *srv_finalized; /* per rank */

static char srv_nspace[PMIX_MAX_NSLEN + 1];
static char srv_tmpdir[256];
static int srv_notify_fd = -1;
static int srv_np, srv_cap; /* the job's ranks; slots with spawned processes */
static int srv_up;
static char srv_host[256] = "localhost";

int rrun_server_slot(const pmix_proc_t *proc)
{
    if (PMIX_CHECK_NSPACE(proc->nspace, srv_nspace))
        return proc->rank < (pmix_rank_t)srv_np ? (int)proc->rank : -1;
    return rrun_spawn_slot(proc->nspace, proc->rank);
}

typedef struct srv_wait {
    pthread_mutex_t m;
    pthread_cond_t c;
    int done;
    pmix_status_t status;
} srv_wait_t;

static void srv_wait_init(srv_wait_t *w)
{
    pthread_mutex_init(&w->m, NULL);
    pthread_cond_init(&w->c, NULL);
    w->done = 0;
    w->status = PMIX_SUCCESS;
}

static void srv_op_cb(pmix_status_t status, void *cbdata)
{
    srv_wait_t *w = cbdata;
    pthread_mutex_lock(&w->m);
    w->status = status;
    w->done = 1;
    pthread_cond_signal(&w->c);
    pthread_mutex_unlock(&w->m);
}

static pmix_status_t srv_wait(srv_wait_t *w, pmix_status_t rc)
{
    if (rc == PMIX_OPERATION_SUCCEEDED)
        return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    pthread_mutex_lock(&w->m);
    while (!w->done)
        pthread_cond_wait(&w->c, &w->m);
    pthread_mutex_unlock(&w->m);
    return w->status;
}

static pmix_status_t srv_client_connected(const pmix_proc_t *proc, void *server_object,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    int slot = rrun_server_slot(proc);
    if (slot >= 0 && slot < srv_cap && srv_connected)
        atomic_store(&srv_connected[slot], 1);
    (void)server_object;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_SUCCESS;
}

static pmix_status_t srv_client_finalized(const pmix_proc_t *proc, void *server_object,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    int slot = rrun_server_slot(proc);
    if (slot >= 0 && slot < srv_cap && srv_finalized)
        atomic_store(&srv_finalized[slot], 1);
    (void)server_object;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t srv_abort(const pmix_proc_t *proc, void *server_object, int status,
                               const char msg[], pmix_proc_t procs[], size_t nprocs,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)server_object;
    (void)msg;
    (void)procs;
    (void)nprocs;
    (void)cbfunc;
    (void)cbdata;
    /* Upcalls are serialised on the one PMIx thread: the first abort stays. */
    if (!atomic_load(&srv_aborted)) {
        atomic_store(&srv_abort_status, status);
        atomic_store(&srv_abort_rank, rrun_server_slot(proc));
        atomic_store(&srv_aborted, true);
    }
    char b = 'A';
    ssize_t w = write(srv_notify_fd, &b, 1);
    (void)w;
    return PMIX_OPERATION_SUCCEEDED;
}

static void srv_release_blob(void *cbdata)
{
    free(cbdata);
}

/* One node: the collected data is just what the local library hands us. */
static pmix_status_t srv_fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo, char *data,
                                  size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    char *copy = NULL;
    if (ndata > 0) {
        copy = malloc(ndata);
        if (!copy)
            return PMIX_ERR_NOMEM;
        memcpy(copy, data, ndata);
    }
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, srv_release_blob, copy);
    else
        free(copy);
    return PMIX_SUCCESS;
}

static pmix_server_module_t srv_module = { /* + spawn.c's (rrun_spawn_module) */
    .client_connected = srv_client_connected,
    .client_finalized = srv_client_finalized,
    .abort = srv_abort,
    .fence_nb = srv_fence_nb,
};

static int srv_register_nspace(const char *nspace, int np, const char *host)
{
    int rc = -1;
    char *noderegex = NULL, *ppnregex = NULL, *peers = NULL;
    size_t plen = (size_t)np * 12 + 1;
    peers = malloc(plen);
    if (!peers)
        goto out;
    size_t off = 0;
    for (int r = 0; r < np; r++)
        off += (size_t)snprintf(peers + off, plen - off, r ? ",%d" : "%d", r);
    if (PMIx_generate_regex(host, &noderegex) != PMIX_SUCCESS ||
        PMIx_generate_ppn(peers, &ppnregex) != PMIX_SUCCESS)
        goto out;

    size_t ninfo = 10 + (size_t)np;
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, ninfo);
    uint32_t u32 = (uint32_t)np, one = 1, zero = 0;
    size_t i = 0;
    PMIX_INFO_LOAD(&info[i++], PMIX_UNIV_SIZE, &u32, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[i++], PMIX_JOB_SIZE, &u32, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[i++], PMIX_MAX_PROCS, &u32, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[i++], PMIX_JOBID, nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[i++], PMIX_NODE_MAP, noderegex, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[i++], PMIX_PROC_MAP, ppnregex, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[i++], PMIX_NUM_NODES, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[i++], PMIX_LOCAL_SIZE, &u32, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[i++], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    /* The node. */
    {
        pmix_data_array_t *da;
        PMIX_DATA_ARRAY_CREATE(da, 5, PMIX_INFO);
        pmix_info_t *ni = da->array;
        PMIX_INFO_LOAD(&ni[0], PMIX_HOSTNAME, host, PMIX_STRING);
        PMIX_INFO_LOAD(&ni[1], PMIX_NODEID, &zero, PMIX_UINT32);
        PMIX_INFO_LOAD(&ni[2], PMIX_LOCAL_SIZE, &u32, PMIX_UINT32);
        PMIX_INFO_LOAD(&ni[3], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
        pmix_rank_t leader = 0;
        PMIX_INFO_LOAD(&ni[4], PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&info[i++], PMIX_NODE_INFO_ARRAY, da, PMIX_DATA_ARRAY);
        PMIX_DATA_ARRAY_FREE(da); /* PMIX_INFO_LOAD made a deep copy */
    }
    for (int r = 0; r < np; r++) {
        pmix_data_array_t *da;
        PMIX_DATA_ARRAY_CREATE(da, 6, PMIX_INFO);
        pmix_info_t *pi = da->array;
        pmix_rank_t rank = (pmix_rank_t)r;
        uint16_t lr = (uint16_t)r;
        uint32_t app = 0;
        PMIX_INFO_LOAD(&pi[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&pi[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pi[2], PMIX_NODE_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pi[3], PMIX_NODEID, &zero, PMIX_UINT32);
        PMIX_INFO_LOAD(&pi[4], PMIX_HOSTNAME, host, PMIX_STRING);
        PMIX_INFO_LOAD(&pi[5], PMIX_APPNUM, &app, PMIX_UINT32);
        PMIX_INFO_LOAD(&info[i++], PMIX_PROC_DATA, da, PMIX_DATA_ARRAY);
        PMIX_DATA_ARRAY_FREE(da);
    }
    srv_wait_t w;
    srv_wait_init(&w);
    pmix_status_t prc = PMIx_server_register_nspace(nspace, np, info, i, srv_op_cb, &w);
    prc = srv_wait(&w, prc);
    PMIX_INFO_FREE(info, ninfo);
    if (prc != PMIX_SUCCESS) {
        rrun_log("PMIx_server_register_nspace failed: %s", PMIx_Error_string(prc));
        goto out;
    }
    rc = 0;
out:
    free(peers);
    free(noderegex);
    free(ppnregex);
    return rc;
}

int rrun_server_start(const rrun_opts_t *o, int notify_fd)
{
    srv_notify_fd = notify_fd;
    srv_np = o->np;
    srv_cap = o->np + RRUN_SPAWN_MAX;
    srv_connected = calloc((size_t)srv_cap, sizeof(*srv_connected));
    srv_finalized = calloc((size_t)srv_cap, sizeof(*srv_finalized));
    if (!srv_connected || !srv_finalized)
        return -1;
    snprintf(srv_tmpdir, sizeof(srv_tmpdir), "%s/rrun.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(srv_tmpdir)) {
        rrun_log("cannot create a private directory under /tmp: %m");
        return -1;
    }
    snprintf(srv_nspace, sizeof(srv_nspace), "rrun-%d", (int)getpid());
    char *host = srv_host;
    gethostname(host, sizeof(srv_host) - 1);
    rrun_spawn_module(&srv_module);

    pmix_info_t info[4];
    pmix_topology_t topo = {.source = "hwloc", .topology = rrun_bind_topology()};
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, srv_tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, srv_tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_HOSTNAME, host, PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
    pmix_status_t prc = PMIx_server_init(&srv_module, info, 4);
    for (int i = 0; i < 4; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (prc != PMIX_SUCCESS) {
        rrun_log("PMIx_server_init failed: %s", PMIx_Error_string(prc));
        return -1;
    }
    srv_up = 1;
    return srv_register_nspace(srv_nspace, o->np, host);
}

int rrun_server_register_job(const char *nspace, int np)
{
    return srv_register_nspace(nspace, np, srv_host);
}

int rrun_server_register_rank(const char *nspace, int rank, char ***env)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, nspace ? nspace : srv_nspace, (pmix_rank_t)rank);
    srv_wait_t w;
    srv_wait_init(&w);
    pmix_status_t prc =
        PMIx_server_register_client(&proc, getuid(), getgid(), NULL, srv_op_cb, &w);
    prc = srv_wait(&w, prc);
    if (prc != PMIX_SUCCESS) {
        rrun_log("PMIx_server_register_client(%d) failed: %s", rank, PMIx_Error_string(prc));
        return -1;
    }
    prc = PMIx_server_setup_fork(&proc, env);
    if (prc != PMIX_SUCCESS) {
        rrun_log("PMIx_server_setup_fork(%d) failed: %s", rank, PMIx_Error_string(prc));
        return -1;
    }
    return 0;
}

bool rrun_server_aborted(int *rank, int *status)
{
    if (!atomic_load(&srv_aborted))
        return false;
    *rank = atomic_load(&srv_abort_rank);
    *status = atomic_load(&srv_abort_status);
    return true;
}

bool rrun_server_unfinalized(int rank)
{
    return srv_connected && atomic_load(&srv_connected[rank]) &&
           !atomic_load(&srv_finalized[rank]);
}

/* Tell the surviving ranks that rank failed (their operations towards it
 * then fail instead of waiting). */
void rrun_server_notify_failure(int rank)
{
    if (!srv_up)
        return;
    pmix_proc_t src;
    char ns[PMIX_MAX_NSLEN + 1];
    int nr = rank;
    if (rank < srv_np || !rrun_spawn_proc_of(rank, ns, sizeof(ns), &nr))
        snprintf(ns, sizeof(ns), "%s", srv_nspace);
    PMIX_LOAD_PROCID(&src, ns, (pmix_rank_t)nr);
    pmix_info_t info[2];
    bool t = true;
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &src, PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_NON_DEFAULT, &t, PMIX_BOOL);
    PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, &src, PMIX_RANGE_NAMESPACE, info, 2, NULL, NULL);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

static int srv_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* The directory is ours (mkdtemp); PMIx leaves its rendezvous files in it. */
static void srv_rmtree(const char *dir)
{
    nftw(dir, srv_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void rrun_server_stop(void)
{
    /* Files first: PMIx_server_finalize may never return (see rrun.c). */
    if (srv_tmpdir[0])
        srv_rmtree(srv_tmpdir);
    srv_tmpdir[0] = '\0';
    if (srv_up) {
        PMIx_server_finalize();
        srv_up = 0;
    }
    /* Only now: upcalls may run until PMIx_server_finalize returns. */
    free(srv_connected);
    free(srv_finalized);
    srv_connected = srv_finalized = NULL;
}
