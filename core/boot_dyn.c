/* SPDX-License-Identifier: BSD-3-Clause */
/* What dynamic processes ask of the process manager, through PMIx: start a new job
 * (PMIx_Spawn) and a name service (PMIx_Publish / Lookup / Unpublish). rrun serves
 * them itself (launcher/spawn.c); under another PMIx launcher its server does. */
#include <pmix.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "log.h"
#include "rmpi.h"

/* Service names live under a prefix of ours: PMIx reserves keys starting with "pmix". */
#define BOOT_SVC_PREFIX "rmp-svc:"

static int boot_dyn_status(pmix_status_t prc)
{
    switch (prc) {
    case PMIX_SUCCESS:
        return RMP_SUCCESS;
    case PMIX_ERR_NOT_SUPPORTED:
    case PMIX_ERR_UNREACH:
        return RMP_ERR_NOT_SUPPORTED;
    case PMIX_ERR_NOT_FOUND:
    case PMIX_ERR_BAD_PARAM:
        return RMP_ERR_ARG;
    default:
        return RMP_ERR_BOOTSTRAP;
    }
}

static char **boot_dyn_strv(const char *first, char *const *rest, const char *last)
{
    size_t n = 0;
    while (rest && rest[n])
        n++;
    char **v = calloc(n + 3, sizeof(char *));
    size_t k = 0;
    if (!v)
        return NULL;
    if (first)
        v[k++] = strdup(first);
    for (size_t i = 0; i < n; i++)
        v[k++] = strdup(rest[i]);
    if (last)
        v[k++] = strdup(last);
    return v;
}

RMP_EXPORT int rmp_spawn(int napps, const rmp_spawn_app_t apps[], char *const *env_all)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (napps < 1 || !apps)
        return RMP_ERR_ARG;
    for (int i = 0; i < napps; i++)
        if (!apps[i].cmd || !*apps[i].cmd || apps[i].maxprocs < 1)
            return RMP_ERR_ARG;
    if (e->job.singleton)
        return RMP_ERR_NOT_SUPPORTED; /* no process manager to ask */
    pmix_app_t *a;
    PMIX_APP_CREATE(a, (size_t)napps);
    char cwd[4096];
    for (int i = 0; i < napps; i++) {
        a[i].cmd = strdup(apps[i].cmd);
        a[i].argv = boot_dyn_strv(apps[i].cmd, apps[i].argv, NULL);
        /* the caller's extra variables, then the app's own */
        size_t ne = 0;
        while (env_all && env_all[ne])
            ne++;
        char **env = boot_dyn_strv(NULL, apps[i].env, NULL);
        size_t k = 0;
        while (env && env[k])
            k++;
        char **all = env ? realloc(env, (k + ne + 1) * sizeof(char *)) : NULL;
        if (all) {
            for (size_t j = 0; j < ne; j++)
                all[k++] = strdup(env_all[j]);
            all[k] = NULL;
        }
        a[i].env = all;
        a[i].cwd = strdup(apps[i].wdir ? apps[i].wdir : getcwd(cwd, sizeof(cwd)) ? cwd : ".");
        a[i].maxprocs = apps[i].maxprocs;
    }
    pmix_nspace_t ns;
    pmix_status_t prc = PMIx_Spawn(NULL, 0, a, (size_t)napps, ns);
    PMIX_APP_FREE(a, (size_t)napps);
    if (prc != PMIX_SUCCESS)
        rmpi_debug("PMIx_Spawn: %s", PMIx_Error_string(prc));
    return prc == PMIX_SUCCESS ? RMP_SUCCESS
                               : prc == PMIX_ERR_NOT_SUPPORTED ? RMP_ERR_NOT_SUPPORTED
                                                               : RMP_ERR_BOOTSTRAP;
}

static int boot_dyn_key(const char *service, char *key)
{
    if (!service || !*service || strlen(service) + sizeof(BOOT_SVC_PREFIX) > PMIX_MAX_KEYLEN)
        return RMP_ERR_ARG;
    snprintf(key, PMIX_MAX_KEYLEN + 1, BOOT_SVC_PREFIX "%s", service);
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_publish(const char *service, const char *value)
{
    rmpi_engine_t *e = &rmpi_eng;
    char key[PMIX_MAX_KEYLEN + 1];
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS || (rc = boot_dyn_key(service, key)) != RMP_SUCCESS)
        return rc;
    if (!value)
        return RMP_ERR_ARG;
    if (e->job.singleton)
        return RMP_ERR_NOT_SUPPORTED;
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, key, value, PMIX_STRING);
    pmix_status_t prc = PMIx_Publish(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    /* A name already published is a bad argument too (MPI: MPI_ERR_SERVICE). */
    return prc == PMIX_ERR_DUPLICATE_KEY || prc == PMIX_EXISTS ? RMP_ERR_ARG
                                                                : boot_dyn_status(prc);
}

RMP_EXPORT int rmp_lookup(const char *service, char *value, size_t len)
{
    rmpi_engine_t *e = &rmpi_eng;
    char key[PMIX_MAX_KEYLEN + 1];
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS || (rc = boot_dyn_key(service, key)) != RMP_SUCCESS)
        return rc;
    if (!value || len == 0)
        return RMP_ERR_ARG;
    if (e->job.singleton)
        return RMP_ERR_NOT_SUPPORTED;
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    pmix_status_t prc = PMIx_Lookup(&pd, 1, NULL, 0);
    if (prc == PMIX_SUCCESS && pd.value.type == PMIX_STRING && pd.value.data.string &&
        strlen(pd.value.data.string) < len)
        strcpy(value, pd.value.data.string);
    else if (prc == PMIX_SUCCESS)
        prc = PMIX_ERR_NOT_FOUND;
    PMIX_PDATA_DESTRUCT(&pd);
    return boot_dyn_status(prc);
}

RMP_EXPORT int rmp_unpublish(const char *service)
{
    rmpi_engine_t *e = &rmpi_eng;
    char key[PMIX_MAX_KEYLEN + 1];
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS || (rc = boot_dyn_key(service, key)) != RMP_SUCCESS)
        return rc;
    if (e->job.singleton)
        return RMP_ERR_NOT_SUPPORTED;
    char *keys[2] = {key, NULL};
    return boot_dyn_status(PMIx_Unpublish(keys, NULL, 0));
}
