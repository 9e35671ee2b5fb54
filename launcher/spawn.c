/* SPDX-License-Identifier: BSD-3-Clause */
/* What the ranks ask of rrun beyond starting: PMIx_Spawn (MPI_Comm_spawn) and the name
 * service (MPI_Publish_name & co.). The spawn upcall, on PMIx's thread, checks the
 * request (every program must exist and be executable, the job must have room: at most
 * RRUN_SPAWN_MAX processes spawned in all), queues it and wakes the loop; the loop
 * (rrun_spawn_run) registers a new namespace and starts its processes like ranks, in the
 * slots after them: their output is forwarded and their exits count for the job's status
 * as the ranks' do. Host, mapping and other placement directives are ignored (one node).
 * The name service is a table kept on PMIx's thread, where all its upcalls run. */
#include <errno.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rrun.h"

typedef struct spawn_app {
    char *program; /* resolved path */
    char **argv, **env;
    char *cwd;
    int n;
} spawn_app_t;

typedef struct spawn_req {
    spawn_app_t *apps;
    size_t napps;
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
    struct spawn_req *next;
} spawn_req_t;

/* Spawned namespaces: slots [base, base + n) of the job. */
typedef struct spawn_ns {
    char nspace[PMIX_MAX_NSLEN + 1];
    int base, n;
} spawn_ns_t;

static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;
static spawn_req_t *spawn_queue;
static spawn_ns_t spawn_ns[RRUN_SPAWN_MAX];
static int spawn_nns, spawn_reserved; /* namespaces; processes promised so far */
static int spawn_notify_fd = -1;

void rrun_spawn_init(int notify_fd)
{
    spawn_notify_fd = notify_fd;
}

int rrun_spawn_slot(const char *nspace, unsigned rank)
{
    int slot = -1;
    pthread_mutex_lock(&spawn_lock);
    for (int i = 0; i < spawn_nns; i++)
        if (PMIX_CHECK_NSPACE(spawn_ns[i].nspace, nspace) && rank < (unsigned)spawn_ns[i].n)
            slot = spawn_ns[i].base + (int)rank;
    pthread_mutex_unlock(&spawn_lock);
    return slot;
}

bool rrun_spawn_proc_of(int slot, char *nspace, size_t len, int *rank)
{
    bool found = false;
    pthread_mutex_lock(&spawn_lock);
    for (int i = 0; i < spawn_nns && !found; i++)
        if (slot >= spawn_ns[i].base && slot < spawn_ns[i].base + spawn_ns[i].n) {
            snprintf(nspace, len, "%s", spawn_ns[i].nspace);
            *rank = slot - spawn_ns[i].base;
            found = true;
        }
    pthread_mutex_unlock(&spawn_lock);
    return found;
}

static char **spawn_strv_dup(char **v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    char **d = calloc(n + 1, sizeof(char *));
    for (size_t i = 0; d && i < n; i++)
        d[i] = strdup(v[i]);
    return d;
}

static void spawn_strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static void spawn_req_free(spawn_req_t *r)
{
    for (size_t i = 0; i < r->napps; i++) {
        free(r->apps[i].program);
        spawn_strv_free(r->apps[i].argv);
        spawn_strv_free(r->apps[i].env);
        free(r->apps[i].cwd);
    }
    free(r->apps);
    free(r);
}

/* The program a spawn names: a path (relative to the app's directory), or a name looked
 * up in PATH and then in that directory. NULL when nothing executable is there. */
static char *spawn_resolve(const char *cmd, const char *cwd)
{
    char buf[4096];
    if (strchr(cmd, '/')) {
        if (cmd[0] != '/' && cwd)
            snprintf(buf, sizeof(buf), "%s/%s", cwd, cmd);
        else
            snprintf(buf, sizeof(buf), "%s", cmd);
        return access(buf, X_OK) == 0 ? strdup(buf) : NULL;
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t l = strcspn(path, ":");
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)l, path, cmd);
        if (l && access(buf, X_OK) == 0)
            return strdup(buf);
        path += l + (path[l] == ':');
    }
    snprintf(buf, sizeof(buf), "%s/%s", cwd ? cwd : ".", cmd);
    return access(buf, X_OK) == 0 ? strdup(buf) : NULL;
}

static pmix_status_t spawn_upcall(const pmix_proc_t *proc, const pmix_info_t job_info[],
                                  size_t ninfo, const pmix_app_t apps[], size_t napps,
                                  pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    (void)job_info;
    (void)ninfo;
    if (napps == 0 || !cbfunc)
        return PMIX_ERR_BAD_PARAM;
    spawn_req_t *r = calloc(1, sizeof(*r));
    if (!r || !(r->apps = calloc(napps, sizeof(*r->apps)))) {
        free(r);
        return PMIX_ERR_NOMEM;
    }
    r->napps = napps;
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    int total = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < napps && rc == PMIX_SUCCESS; i++) {
        spawn_app_t *a = &r->apps[i];
        a->cwd = apps[i].cwd ? strdup(apps[i].cwd) : NULL;
        if (!apps[i].cmd || apps[i].maxprocs < 1) {
            rc = PMIX_ERR_BAD_PARAM;
        } else if (!(a->program = spawn_resolve(apps[i].cmd, a->cwd))) {
            rrun_log("spawn: cannot find an executable %s", apps[i].cmd);
            rc = PMIX_ERR_NOT_FOUND;
        } else {
            a->argv = apps[i].argv ? spawn_strv_dup(apps[i].argv)
                                   : spawn_strv_dup((char *[]){apps[i].cmd, NULL});
            a->env = spawn_strv_dup(apps[i].env);
            a->n = apps[i].maxprocs;
            total += a->n;
            if (!a->argv || !a->env)
                rc = PMIX_ERR_NOMEM;
        }
    }
    pthread_mutex_lock(&spawn_lock);
    if (rc == PMIX_SUCCESS && spawn_reserved + total > RRUN_SPAWN_MAX) {
        rrun_log("spawn: %d more processes would pass rrun's limit of %d spawned", total,
                 RRUN_SPAWN_MAX);
        rc = PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (rc == PMIX_SUCCESS) {
        spawn_reserved += total;
        spawn_req_t **t = &spawn_queue;
        while (*t)
            t = &(*t)->next;
        *t = r;
    }
    pthread_mutex_unlock(&spawn_lock);
    if (rc != PMIX_SUCCESS) {
        spawn_req_free(r);
        return rc;
    }
    char b = 'S';
    ssize_t w = write(spawn_notify_fd, &b, 1);
    (void)w;
    return PMIX_SUCCESS;
}

/* Start one queued request: a new namespace, its processes in the next slots. */
static pmix_status_t spawn_start(rrun_job_t *job, spawn_req_t *r, char *nspace)
{
    static int seq;
    int total = 0;
    for (size_t i = 0; i < r->napps; i++)
        total += r->apps[i].n;
    if (job->launched + total > job->cap || job->end != RRUN_END_NONE)
        return PMIX_ERR_OUT_OF_RESOURCE;
    snprintf(nspace, PMIX_MAX_NSLEN + 1, "rrun-%d-spawn%d", (int)getpid(), ++seq);
    if (rrun_server_register_job(nspace, total) != 0)
        return PMIX_ERROR;
    pthread_mutex_lock(&spawn_lock);
    spawn_ns_t *ns = &spawn_ns[spawn_nns++];
    snprintf(ns->nspace, sizeof(ns->nspace), "%s", nspace);
    ns->base = job->launched;
    ns->n = total;
    pthread_mutex_unlock(&spawn_lock);
    int rank = 0;
    for (size_t i = 0; i < r->napps; i++)
        for (int k = 0; k < r->apps[i].n; k++, rank++) {
            int slot = job->launched;
            if (rrun_launch_proc(job, slot, nspace, rank, r->apps[i].program, r->apps[i].argv,
                                 r->apps[i].cwd, r->apps[i].env) != 0) {
                rrun_policy_launch_failed(job);
                return PMIX_ERROR;
            }
            job->launched++;
            job->alive++;
        }
    return PMIX_SUCCESS;
}

void rrun_spawn_run(rrun_job_t *job)
{
    for (;;) {
        pthread_mutex_lock(&spawn_lock);
        spawn_req_t *r = spawn_queue;
        if (r)
            spawn_queue = r->next;
        pthread_mutex_unlock(&spawn_lock);
        if (!r)
            return;
        char nspace[PMIX_MAX_NSLEN + 1] = "";
        pmix_status_t rc = spawn_start(job, r, nspace);
        r->cbfunc(rc, nspace, r->cbdata);
        spawn_req_free(r);
    }
}

/* ---- The name service ---- */
typedef struct spawn_name {
    char key[PMIX_MAX_KEYLEN + 1];
    char *value;
    struct spawn_name *next;
} spawn_name_t;
static spawn_name_t *spawn_names;

static spawn_name_t **spawn_name_find(const char *key)
{
    spawn_name_t **p = &spawn_names;
    while (*p && strcmp((*p)->key, key) != 0)
        p = &(*p)->next;
    return p;
}

static pmix_status_t publish_upcall(const pmix_proc_t *proc, const pmix_info_t info[],
                                    size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    pmix_status_t rc = PMIX_SUCCESS;
    /* the directives (range, persistence...) are PMIx's keys; the rest is data */
    for (size_t i = 0; i < ninfo && rc == PMIX_SUCCESS; i++) {
        if (strncmp(info[i].key, "pmix", 4) == 0)
            continue;
        if (info[i].value.type != PMIX_STRING || !info[i].value.data.string)
            rc = PMIX_ERR_NOT_SUPPORTED;
        else if (*spawn_name_find(info[i].key))
            rc = PMIX_ERR_DUPLICATE_KEY;
    }
    for (size_t i = 0; i < ninfo && rc == PMIX_SUCCESS; i++) {
        if (strncmp(info[i].key, "pmix", 4) == 0)
            continue;
        spawn_name_t *n = calloc(1, sizeof(*n));
        if (!n || !(n->value = strdup(info[i].value.data.string))) {
            free(n);
            rc = PMIX_ERR_NOMEM;
            break;
        }
        PMIX_LOAD_KEY(n->key, info[i].key);
        n->next = spawn_names;
        spawn_names = n;
    }
    if (cbfunc)
        cbfunc(rc, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t lookup_upcall(const pmix_proc_t *proc, char **keys,
                                   const pmix_info_t info[], size_t ninfo,
                                   pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    (void)info;
    (void)ninfo;
    size_t n = 0;
    while (keys && keys[n])
        n++;
    pmix_pdata_t *pd = NULL;
    size_t found = 0;
    if (n)
        PMIX_PDATA_CREATE(pd, n);
    for (size_t i = 0; i < n; i++) {
        spawn_name_t *e = *spawn_name_find(keys[i]);
        if (!e)
            continue;
        PMIX_LOAD_PROCID(&pd[found].proc, "rrun", 0);
        PMIX_LOAD_KEY(pd[found].key, e->key);
        PMIX_VALUE_LOAD(&pd[found].value, e->value, PMIX_STRING);
        found++;
    }
    if (cbfunc)
        cbfunc(found ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, found ? pd : NULL, found, cbdata);
    if (pd)
        PMIX_PDATA_FREE(pd, n);
    return PMIX_SUCCESS;
}

static pmix_status_t unpublish_upcall(const pmix_proc_t *proc, char **keys,
                                      const pmix_info_t info[], size_t ninfo,
                                      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    (void)info;
    (void)ninfo;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; keys && keys[i]; i++) {
        spawn_name_t **p = spawn_name_find(keys[i]), *e = *p;
        if (!e) {
            rc = PMIX_ERR_NOT_FOUND;
            continue;
        }
        *p = e->next;
        free(e->value);
        free(e);
    }
    if (cbfunc)
        cbfunc(rc, cbdata);
    return PMIX_SUCCESS;
}

void rrun_spawn_module(pmix_server_module_t *m)
{
    m->spawn = spawn_upcall;
    m->publish = publish_upcall;
    m->lookup = lookup_upcall;
    m->unpublish = unpublish_upcall;
}
