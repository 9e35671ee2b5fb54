/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Comm_spawn and MPI_Comm_spawn_multiple: the root opens a port, asks the process
 * manager for the new job (rmp_spawn) with the port's name in the children's environment
 * (MPII_DYN_PARENT_ENV), and the group accepts the children's connect from their
 * MPI_Init (dynamic.c). Info: "wdir" is honoured; other keys are ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpii_dyn.h"
#include "mpii_inter.h"

/* What the root tells the group: whether the children started, and how many. */
typedef struct spawn_res {
    int err, total;
} spawn_res_t;

/* At the root: start the job; MPI_SUCCESS or an error class, with a message in why. */
static int spawn_start(int count, char *cmds[], char **argvs[], const int maxprocs[],
                       const MPI_Info infos[], const char *port, int *total, char *why,
                       size_t wlen)
{
    if (count < 1 || !cmds || !maxprocs) {
        snprintf(why, wlen, "no command to start");
        return MPI_ERR_ARG;
    }
    rmp_spawn_app_t *apps = calloc((size_t)count, sizeof(*apps));
    char(*wdirs)[1024] = calloc((size_t)count, sizeof(*wdirs));
    int err = MPI_SUCCESS;
    *total = 0;
    if (!apps || !wdirs) {
        err = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int i = 0; i < count; i++) {
        if (!cmds[i] || !*cmds[i] || maxprocs[i] < 1) {
            snprintf(why, wlen, "command %d: %s", i,
                     !cmds[i] || !*cmds[i] ? "no program" : "maxprocs below 1");
            err = cmds[i] && *cmds[i] ? MPI_ERR_ARG : MPI_ERR_SPAWN;
            goto out;
        }
        apps[i].cmd = cmds[i];
        apps[i].argv = argvs ? argvs[i] : NULL;
        apps[i].maxprocs = maxprocs[i];
        int flag = 0;
        MPI_Info info = infos ? infos[i] : MPI_INFO_NULL;
        if (info != MPI_INFO_NULL &&
            PMPI_Info_get(info, "wdir", (int)sizeof(wdirs[i]) - 1, wdirs[i], &flag) ==
                MPI_SUCCESS &&
            flag)
            apps[i].wdir = wdirs[i];
        *total += maxprocs[i];
    }
    char env[MPI_MAX_PORT_NAME + 32];
    snprintf(env, sizeof(env), "%s=%s", MPII_DYN_PARENT_ENV, port);
    char *const env_all[] = {env, NULL};
    int st = rmp_spawn(count, apps, env_all);
    if (st != RMP_SUCCESS) {
        snprintf(why, wlen, "%s",
                 st == RMP_ERR_NOT_SUPPORTED
                     ? "the process manager cannot start processes (run under rrun)"
                     : "the process manager could not start the program(s)");
        err = st == RMP_ERR_NOT_SUPPORTED ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_ERR_SPAWN;
    }
out:
    free(apps);
    free(wdirs);
    return err;
}

static int spawn_run(int count, char *cmds[], char **argvs[], const int maxprocs[],
                     const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm *intercomm,
                     int errcodes[], const char *fn)
{
    mpii_comm_t *c;
    int rc = mpii_dyn_check_rooted(comm, root, intercomm, "intercomm", fn, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    char port[MPI_MAX_PORT_NAME] = "", why[256] = "";
    spawn_res_t res = {MPI_SUCCESS, 0};
    int st;
    if (c->rank == root) {
        st = rmp_port_open(port, sizeof(port));
        if (st != RMP_SUCCESS) {
            res.err = st == RMP_ERR_NOT_SUPPORTED ? MPI_ERR_UNSUPPORTED_OPERATION
                                                  : mpii_err_from_rmp(st);
            snprintf(why, sizeof(why), "cannot open a port: %s", rmp_strerror(st));
        } else {
            res.err = spawn_start(count, cmds, argvs, maxprocs, infos, port, &res.total, why,
                                  sizeof(why));
        }
    }
    st = rmp_bcast(&res, sizeof(res), RMP_UINT8, root, c->rc);
    if (st != RMP_SUCCESS && res.err == MPI_SUCCESS)
        res.err = mpii_err_from_rmp(st);
    mpii_comm_t *n = NULL;
    if (res.err == MPI_SUCCESS) {
        res.err = mpii_dyn_meet(c->rank == root ? port : NULL, root, c, 1, &n);
        if (res.err == MPI_SUCCESS && !n)
            res.err = MPI_ERR_INTERN;
        if (res.err != MPI_SUCCESS)
            snprintf(why, sizeof(why), "the children did not connect");
    }
    if (port[0])
        rmp_port_close(port);
    for (int i = 0; errcodes && i < res.total; i++)
        errcodes[i] = res.err;
    if (res.err != MPI_SUCCESS) {
        *intercomm = MPI_COMM_NULL;
        return mpii_err_comm(c, res.err, fn, "%s",
                             why[0] ? why : "the root could not start the children");
    }
    *intercomm = mpii_comm_handle(n);
    return MPI_SUCCESS;
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmds[1] = {(char *)command};
    char **argvs[1] = {argv};
    return spawn_run(1, cmds, argvs, &maxprocs, &info, root, comm, intercomm,
                     array_of_errcodes, "MPI_Comm_spawn");
}
MPII_WEAK(Comm_spawn)

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    return spawn_run(count, array_of_commands, array_of_argv, array_of_maxprocs,
                     array_of_info, root, comm, intercomm, array_of_errcodes,
                     "MPI_Comm_spawn_multiple");
}
MPII_WEAK(Comm_spawn_multiple)
