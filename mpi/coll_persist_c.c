/* SPDX-License-Identifier: BSD-3-Clause */
/* The large-count (_c) forms of the persistent collectives with count arrays and
 * MPI_Ireduce_scatter_c (those with one count are twins in coll_persist.c): the counts
 * and displacements are converted to the int forms' (a value past an int is
 * MPI_ERR_COUNT). A persistent request keeps its count arrays by reference, so the
 * converted copies live in the request's tmp (freed with it). */
#include <limits.h>
#include <stdlib.h>

#include "mpii_base.h"
#include "mpii_p2p.h"

static int cpc_fits(MPI_Count v)
{
    return v >= INT_MIN && v <= INT_MAX;
}

static int cpc_err(MPI_Comm comm, const char *fn, const char *what)
{
    return mpii_err_comm(mpii_comm(comm), MPI_ERR_COUNT, fn,
                         "%s does not fit an int: rmp's persistent collectives take int counts",
                         what);
}

/* Ranks a count array has: the remote group's on an intercommunicator. */
static int cpc_nranks(MPI_Comm comm)
{
    int inter = 0, n = 0;
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return 0;
    if (PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter &&
        PMPI_Comm_remote_size(comm, &n) == MPI_SUCCESS)
        return n;
    return c->size;
}

/* Up to four arrays of n values converted to int, in one block (*blk); a NULL input
 * stays NULL. MPI_SUCCESS, MPI_ERR_COUNT (reported) or MPI_ERR_NO_MEM (reported). */
typedef struct {
    const MPI_Count *cnt[2];
    const MPI_Aint *dsp[2];
    int *out_cnt[2], *out_dsp[2];
} cpc_arrays_t;

static int cpc_convert(MPI_Comm comm, int n, cpc_arrays_t *a, void **blk, const char *fn)
{
    int *p = malloc((size_t)(n > 0 ? n : 1) * 4 * sizeof(int));
    if (!p)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_NO_MEM, fn, "out of memory");
    *blk = p;
    for (int k = 0; k < 2; k++) {
        a->out_cnt[k] = a->cnt[k] ? p + (2 * k) * n : NULL;
        a->out_dsp[k] = a->dsp[k] ? p + (2 * k + 1) * n : NULL;
        for (int i = 0; i < n; i++) {
            if (a->cnt[k] && !cpc_fits(a->cnt[k][i]))
                goto too_big;
            if (a->dsp[k] && !cpc_fits(a->dsp[k][i]))
                goto too_big;
            if (a->cnt[k])
                a->out_cnt[k][i] = (int)a->cnt[k][i];
            if (a->dsp[k])
                a->out_dsp[k][i] = (int)a->dsp[k][i];
        }
    }
    return MPI_SUCCESS;
too_big:
    free(p);
    *blk = NULL;
    return cpc_err(comm, fn, "a count or displacement");
}

/* The int form returned rc: on success the converted arrays go with the request. */
static int cpc_keep(int rc, MPI_Request *request, void *blk)
{
    mpii_req_t *r = rc == MPI_SUCCESS && request ? mpii_req(*request) : NULL;
    if (r && !r->tmp)
        r->tmp = blk;
    else
        free(blk);
    return rc;
}

/* Are the root-side arrays significant at this process? */
static int cpc_is_root(MPI_Comm comm, int root)
{
    mpii_comm_t *c = mpii_comm(comm);
    int inter = 0;
    if (!c)
        return 0;
    PMPI_Comm_test_inter(comm, &inter);
    return inter ? root == MPI_ROOT : root == c->rank;
}

#define CPC_FIT(v, what)                                                                   \
    if (!cpc_fits(v))                                                                      \
        return cpc_err(comm, fn, what);

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    void *blk;
    cpc_arrays_t a = {{recvcounts, NULL}, {NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
    int rc = cpc_convert(comm, mpii_comm(comm) ? mpii_comm(comm)->size : 0, &a, &blk,
                         "MPI_Reduce_scatter_init_c");
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Reduce_scatter_init(sendbuf, recvbuf, a.out_cnt[0], datatype, op, comm, info,
                                  request);
    return cpc_keep(rc, request, blk);
}
MPII_WEAK(Reduce_scatter_init_c)

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                           MPI_Request *request)
{
    void *blk;
    cpc_arrays_t a = {{recvcounts, NULL}, {NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
    int rc = cpc_convert(comm, mpii_comm(comm) ? mpii_comm(comm)->size : 0, &a, &blk,
                         "MPI_Ireduce_scatter_c");
    if (rc != MPI_SUCCESS)
        return rc;
    /* the int form copies the counts before returning */
    rc = PMPI_Ireduce_scatter(sendbuf, recvbuf, a.out_cnt[0], datatype, op, comm, request);
    free(blk);
    return rc;
}
MPII_WEAK(Ireduce_scatter_c)

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    const char *fn = "MPI_Gatherv_init_c";
    void *blk;
    CPC_FIT(sendcount, "sendcount");
    int sig = cpc_is_root(comm, root); /* the arrays mean something at the root only */
    cpc_arrays_t a = {{sig ? recvcounts : NULL, NULL}, {sig ? displs : NULL, NULL},
                      {NULL, NULL}, {NULL, NULL}};
    int rc = cpc_convert(comm, cpc_nranks(comm), &a, &blk, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Gatherv_init(sendbuf, (int)sendcount, sendtype, recvbuf, a.out_cnt[0],
                           a.out_dsp[0], recvtype, root, comm, info, request);
    return cpc_keep(rc, request, blk);
}
MPII_WEAK(Gatherv_init_c)

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    const char *fn = "MPI_Scatterv_init_c";
    void *blk;
    CPC_FIT(recvcount, "recvcount");
    int sig = cpc_is_root(comm, root);
    cpc_arrays_t a = {{sig ? sendcounts : NULL, NULL}, {sig ? displs : NULL, NULL},
                      {NULL, NULL}, {NULL, NULL}};
    int rc = cpc_convert(comm, cpc_nranks(comm), &a, &blk, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Scatterv_init(sendbuf, a.out_cnt[0], a.out_dsp[0], sendtype, recvbuf,
                            (int)recvcount, recvtype, root, comm, info, request);
    return cpc_keep(rc, request, blk);
}
MPII_WEAK(Scatterv_init_c)

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request)
{
    const char *fn = "MPI_Allgatherv_init_c";
    void *blk;
    CPC_FIT(sendcount, "sendcount");
    cpc_arrays_t a = {{recvcounts, NULL}, {displs, NULL}, {NULL, NULL}, {NULL, NULL}};
    int rc = cpc_convert(comm, cpc_nranks(comm), &a, &blk, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Allgatherv_init(sendbuf, (int)sendcount, sendtype, recvbuf, a.out_cnt[0],
                              a.out_dsp[0], recvtype, comm, info, request);
    return cpc_keep(rc, request, blk);
}
MPII_WEAK(Allgatherv_init_c)

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    void *blk;
    int in_place = sendbuf == MPI_IN_PLACE; /* the send arrays are ignored then */
    cpc_arrays_t a = {{recvcounts, in_place ? NULL : sendcounts},
                      {rdispls, in_place ? NULL : sdispls}, {NULL, NULL}, {NULL, NULL}};
    int rc = cpc_convert(comm, cpc_nranks(comm), &a, &blk, "MPI_Alltoallv_init_c");
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Alltoallv_init(sendbuf, a.out_cnt[1], a.out_dsp[1], sendtype, recvbuf,
                             a.out_cnt[0], a.out_dsp[0], recvtype, comm, info, request);
    return cpc_keep(rc, request, blk);
}
MPII_WEAK(Alltoallv_init_c)

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    void *blk;
    int in_place = sendbuf == MPI_IN_PLACE;
    cpc_arrays_t a = {{recvcounts, in_place ? NULL : sendcounts},
                      {rdispls, in_place ? NULL : sdispls}, {NULL, NULL}, {NULL, NULL}};
    int rc = cpc_convert(comm, cpc_nranks(comm), &a, &blk, "MPI_Alltoallw_init_c");
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Alltoallw_init(sendbuf, a.out_cnt[1], a.out_dsp[1], sendtypes, recvbuf,
                             a.out_cnt[0], a.out_dsp[0], recvtypes, comm, info, request);
    return cpc_keep(rc, request, blk);
}
MPII_WEAK(Alltoallw_init_c)
