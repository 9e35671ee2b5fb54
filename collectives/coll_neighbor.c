/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbourhood exchange (MPI's neighbour collectives over cartesian and graph
 * topologies): one round of receives from the in-neighbours and sends to the
 * out-neighbours on the collective context. A negative neighbour (MPI_PROC_NULL) is
 * skipped. Sub-tags tell apart several edges between the same pair of ranks (a periodic
 * dimension of size 2 has the same rank on both sides): edge i of the sender carries
 * ssub[i] and the receiver's edge j expects rsub[j]; NULL means 0 for all. */
#include "coll_check.h"
#include "coll_core.h"
#include "coll_p2p.h"
#include "coll_sched.h"
#include "log.h"

static void nb_edges(coll_sched_t *s, const char *sbuf, const size_t *sbytes,
                     const size_t *sdispls, const int *dst, const int *ssub, int outdeg,
                     char *rbuf, const size_t *rbytes, const size_t *rdispls, const int *src,
                     const int *rsub, int indeg)
{
    for (int j = 0; j < indeg; j++)
        if (src[j] >= 0 && rbytes[j])
            coll_sched_recv(s, rbuf + rdispls[j], rbytes[j], src[j], rsub ? rsub[j] : 0);
    for (int i = 0; i < outdeg; i++)
        if (dst[i] >= 0 && sbytes[i])
            coll_sched_send(s, sbuf + sdispls[i], sbytes[i], dst[i], ssub ? ssub[i] : 0);
}

RMP_EXPORT int rmp_ineighbor_alltoallv(const void *sbuf, const size_t *sbytes,
                                       const size_t *sdispls, const int *dst, const int *ssub,
                                       int outdeg, void *rbuf, const size_t *rbytes,
                                       const size_t *rdispls, const int *src, const int *rsub,
                                       int indeg, rmp_comm_t comm, rmp_request_t *req)
{
    int rc = coll_check_comm(comm, "rmp_ineighbor_alltoallv");
    if (rc != RMP_SUCCESS)
        return rc;
    if (!req || indeg < 0 || outdeg < 0 ||
        (outdeg && (!sbytes || !sdispls || !dst)) || (indeg && (!rbytes || !rdispls || !src))) {
        rmpi_error("rmp_ineighbor_alltoallv: a NULL array or a negative degree");
        return RMP_ERR_ARG;
    }
    for (int i = 0; i < outdeg; i++)
        if (dst[i] >= comm->size || (ssub && (ssub[i] < 0 || ssub[i] >= COLL_SUB_MAX)))
            return RMP_ERR_ARG;
    for (int j = 0; j < indeg; j++)
        if (src[j] >= comm->size || (rsub && (rsub[j] < 0 || rsub[j] >= COLL_SUB_MAX)))
            return RMP_ERR_ARG;
    coll_sched_t *s = coll_sched_new(comm, RMP_UINT8, RMP_SUM, coll_next_tag(comm));
    if (!s)
        return RMP_ERR_NOMEM;
    nb_edges(s, sbuf, sbytes, sdispls, dst, ssub, outdeg, rbuf, rbytes, rdispls, src, rsub,
             indeg);
    return coll_sched_start(s, req);
}

RMP_EXPORT int rmp_neighbor_alltoallv(const void *sbuf, const size_t *sbytes,
                                      const size_t *sdispls, const int *dst, const int *ssub,
                                      int outdeg, void *rbuf, const size_t *rbytes,
                                      const size_t *rdispls, const int *src, const int *rsub,
                                      int indeg, rmp_comm_t comm)
{
    rmp_request_t req;
    int rc = rmp_ineighbor_alltoallv(sbuf, sbytes, sdispls, dst, ssub, outdeg, rbuf, rbytes,
                                     rdispls, src, rsub, indeg, comm, &req);
    return rc != RMP_SUCCESS ? rc : rmp_wait(&req, NULL);
}
