/* SPDX-License-Identifier: BSD-3-Clause */
/* The ULFM fault-tolerance extension (mpi-ext.h: MPIX_Comm_revoke, shrink, agree,
 * failure_ack, ...) over rmp's (include/rmp.h "Surviving failures"). Not standard
 * functions: gen_stubs.py does not know them, each is defined here as PMPIX_Name with
 * MPIX_Name its weak alias, exported by name. Intracommunicators only. */
#include <stdlib.h>

#include "mpii_base.h"
/* after mpii.h, which includes mpi.h its own way */
#include "mpi-ext.h"

#define MPIIX_WEAK(name)                                                               \
    extern __typeof__(PMPIX_##name) MPIX_##name                                        \
        __attribute__((weak, alias("PMPIX_" #name), visibility("default")));
#define MPIIX_API __attribute__((visibility("default")))

/* The communicator of an FT call, or NULL after reporting why not. */
static mpii_comm_t *ulfm_comm(MPI_Comm h, const char *fn, int *err)
{
    *err = mpii_check_init(fn);
    if (*err != MPI_SUCCESS)
        return NULL;
    mpii_comm_t *c = mpii_comm(h);
    if (!c) {
        *err = mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator %p", (void *)h);
        return NULL;
    }
    if (c->inter) {
        *err = mpii_err_comm(c, MPI_ERR_COMM, fn, "not supported on an intercommunicator");
        return NULL;
    }
    return c;
}

static int ulfm_ret(mpii_comm_t *c, int st, const char *fn)
{
    if (st == RMP_SUCCESS)
        return MPI_SUCCESS;
    return mpii_err_comm(c, mpii_err_from_rmp(st), fn, "%s", rmp_strerror(st));
}

MPIIX_API int PMPIX_Comm_revoke(MPI_Comm comm)
{
    int err;
    mpii_comm_t *c = ulfm_comm(comm, "MPIX_Comm_revoke", &err);
    return c ? ulfm_ret(c, rmp_comm_revoke(c->rc), "MPIX_Comm_revoke") : err;
}
MPIIX_WEAK(Comm_revoke)

MPIIX_API int PMPIX_Comm_is_revoked(MPI_Comm comm, int *flag)
{
    int err;
    mpii_comm_t *c = ulfm_comm(comm, "MPIX_Comm_is_revoked", &err);
    if (!c)
        return err;
    if (!flag)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPIX_Comm_is_revoked", "flag is NULL");
    return ulfm_ret(c, rmp_comm_is_revoked(c->rc, flag), "MPIX_Comm_is_revoked");
}
MPIIX_WEAK(Comm_is_revoked)

MPIIX_API int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char fn[] = "MPIX_Comm_shrink";
    int err;
    mpii_comm_t *c = ulfm_comm(comm, fn, &err);
    if (!c)
        return err;
    if (!newcomm)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "newcomm is NULL");
    uint64_t key = mpii_comm_child_key(c);
    rmp_comm_t rc = RMP_COMM_NULL;
    int st = rmp_comm_shrink(c->rc, &rc);
    if (st != RMP_SUCCESS)
        return ulfm_ret(c, st, fn);
    mpii_comm_t *n;
    err = mpii_comm_wrap(rc, c, &n);
    if (err != MPI_SUCCESS)
        return mpii_err_comm(c, err, fn, "out of memory");
    n->key = key;
    *newcomm = mpii_comm_handle(n);
    return MPI_SUCCESS;
}
MPIIX_WEAK(Comm_shrink)

MPIIX_API int PMPIX_Comm_agree(MPI_Comm comm, int *flag)
{
    int err;
    mpii_comm_t *c = ulfm_comm(comm, "MPIX_Comm_agree", &err);
    if (!c)
        return err;
    if (!flag)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPIX_Comm_agree", "flag is NULL");
    return ulfm_ret(c, rmp_comm_agree(c->rc, flag), "MPIX_Comm_agree");
}
MPIIX_WEAK(Comm_agree)

MPIIX_API int PMPIX_Comm_failure_ack(MPI_Comm comm)
{
    int err;
    mpii_comm_t *c = ulfm_comm(comm, "MPIX_Comm_failure_ack", &err);
    return c ? ulfm_ret(c, rmp_comm_failure_ack(c->rc), "MPIX_Comm_failure_ack") : err;
}
MPIIX_WEAK(Comm_failure_ack)

/* The group of c's acknowledged failed members, in c's order. */
static int ulfm_failed_group(mpii_comm_t *c, MPI_Group *grp, const char *fn)
{
    if (!grp)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "the group argument is NULL");
    int *ranks = malloc((size_t)c->size * sizeof(int));
    if (!ranks)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    int n = 0;
    int st = rmp_comm_failure_get_acked(c->rc, ranks, c->size, &n);
    if (st != RMP_SUCCESS) {
        free(ranks);
        return ulfm_ret(c, st, fn);
    }
    for (int i = 0; i < n; i++)
        ranks[i] = mpii_comm_world_rank(c, ranks[i]);
    mpii_group_t *g = n ? mpii_group_new(n, ranks) : &mpii_group_empty;
    free(ranks);
    if (!g)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    *grp = mpii_group_handle(g);
    return MPI_SUCCESS;
}

MPIIX_API int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp)
{
    int err;
    mpii_comm_t *c = ulfm_comm(comm, "MPIX_Comm_failure_get_acked", &err);
    return c ? ulfm_failed_group(c, failedgrp, "MPIX_Comm_failure_get_acked") : err;
}
MPIIX_WEAK(Comm_failure_get_acked)
