/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbourhood collectives over cartesian and distributed-graph topologies, blocking and
 * nonblocking: every variant becomes rmp_(i)neighbor_alltoallv with per-edge byte counts
 * and displacements. Cartesian edges carry sub-tags so that both sides of a periodic
 * dimension of size 2 (the same rank twice) match the right way round. Contiguous
 * datatypes only for now (others: MPI_ERR_TYPE naming the limit). */
#include "mpii.h"

int mpii_topo_neighbors(const mpii_comm_t *c, int *indeg, const int **in, int *outdeg,
                        const int **out);

typedef struct nbr {
    mpii_comm_t *c;
    int indeg, outdeg, cart;
    const int *in, *out;
    size_t *sb, *sd, *rb, *rd; /* one allocation */
    int *ssub, *rsub;
} nbr_t;

static int nbr_type(nbr_t *x, MPI_Datatype dt, const char *fn, mpii_dtype_t **d)
{
    int rc = mpii_coll_type(x->c, dt, 0, fn, d);
    if (rc == MPI_SUCCESS && !(*d)->contig)
        rc = mpii_err_comm(x->c, MPI_ERR_TYPE, fn,
                           "non-contiguous datatypes in neighbour collectives are not "
                           "supported by rmp yet");
    return rc;
}

static int nbr_begin(MPI_Comm comm, const char *fn, nbr_t *x)
{
    int rc = mpii_coll_comm(comm, fn, &x->c), status = MPI_UNDEFINED;
    if (rc != MPI_SUCCESS)
        return rc;
    if (x->c->inter)
        return mpii_ic_unsupported(x->c, fn);
    if (mpii_topo_neighbors(x->c, &x->indeg, &x->in, &x->outdeg, &x->out) != MPI_SUCCESS)
        return mpii_err_comm(x->c, MPI_ERR_TOPOLOGY, fn, "the communicator has no topology");
    PMPI_Topo_test(comm, &status);
    x->cart = status == MPI_CART;
    size_t n = (size_t)(x->indeg + x->outdeg) + 1;
    x->sb = malloc(2 * n * sizeof(size_t) * 2 + 2 * n * sizeof(int));
    if (!x->sb)
        return mpii_err_comm(x->c, MPI_ERR_NO_MEM, fn, "out of memory");
    x->sd = x->sb + n;
    x->rb = x->sd + n;
    x->rd = x->rb + n;
    x->ssub = (int *)(x->rd + n);
    x->rsub = x->ssub + n;
    for (int i = 0; i < x->outdeg; i++)
        x->ssub[i] = x->cart ? i : 0;
    for (int j = 0; j < x->indeg; j++)
        x->rsub[j] = x->cart ? j ^ 1 : 0; /* the -1 neighbour sent in its +1 direction */
    return MPI_SUCCESS;
}

static int nbr_run(nbr_t *x, const void *sbuf, void *rbuf, MPI_Request *req, const char *fn)
{
    int rc;
    rmp_request_t rr = RMP_REQUEST_NULL;
    if (req)
        rc = rmp_ineighbor_alltoallv(sbuf, x->sb, x->sd, x->out, x->ssub, x->outdeg, rbuf,
                                     x->rb, x->rd, x->in, x->rsub, x->indeg, x->c->rc, &rr);
    else
        rc = rmp_neighbor_alltoallv(sbuf, x->sb, x->sd, x->out, x->ssub, x->outdeg, rbuf,
                                    x->rb, x->rd, x->in, x->rsub, x->indeg, x->c->rc);
    free(x->sb);
    if (rc != RMP_SUCCESS)
        return mpii_coll_err(x->c, rc, fn);
    if (req) {
        mpii_req_t *r = mpii_req_new_rmp(x->c, rr, NULL);
        if (!r) {
            rmp_wait(&rr, NULL);
            return mpii_err_comm(x->c, MPI_ERR_NO_MEM, fn, "out of memory");
        }
        *req = (MPI_Request)r;
    }
    return MPI_SUCCESS;
}

/* allgather (rcnt/rdsp NULL: blocks of rcount) and allgatherv. */
static int nbr_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         int rcount, const int *rcnt, const int *rdsp, MPI_Datatype rtype,
                         MPI_Comm comm, MPI_Request *req, const char *fn)
{
    nbr_t x = {0};
    mpii_dtype_t *sd, *rd;
    int rc = nbr_begin(comm, fn, &x);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = nbr_type(&x, stype, fn, &sd)) != MPI_SUCCESS ||
        (rc = nbr_type(&x, rtype, fn, &rd)) != MPI_SUCCESS ||
        (rcnt && (!rdsp)) || scount < 0 || (!rcnt && rcount < 0)) {
        free(x.sb);
        return rc != MPI_SUCCESS ? rc : mpii_err_comm(x.c, MPI_ERR_ARG, fn, "bad counts");
    }
    for (int i = 0; i < x.outdeg; i++) {
        x.sb[i] = (size_t)scount * sd->size;
        x.sd[i] = 0;
    }
    for (int j = 0; j < x.indeg; j++) {
        x.rb[j] = (size_t)(rcnt ? rcnt[j] : rcount) * rd->size;
        x.rd[j] = (size_t)((rcnt ? (MPI_Aint)rdsp[j] : (MPI_Aint)j * rcount) * rd->extent);
    }
    return nbr_run(&x, mpii_coll_at(sbuf, sd->true_lb), mpii_coll_at(rbuf, rd->true_lb), req, fn);
}

/* alltoall (counts NULL: blocks of scount/rcount), alltoallv, and alltoallw (types
 * non-NULL, byte displacements). */
static int nbr_alltoall(const void *sbuf, int scount, const int *scnt, const MPI_Aint *sdspw,
                        const int *sdsp, MPI_Datatype stype, const MPI_Datatype *stypes,
                        void *rbuf, int rcount, const int *rcnt, const MPI_Aint *rdspw,
                        const int *rdsp, MPI_Datatype rtype, const MPI_Datatype *rtypes,
                        MPI_Comm comm, MPI_Request *req, const char *fn)
{
    nbr_t x = {0};
    mpii_dtype_t *d;
    int rc = nbr_begin(comm, fn, &x);
    for (int i = 0; rc == MPI_SUCCESS && i < x.outdeg; i++) {
        if ((rc = nbr_type(&x, stypes ? stypes[i] : stype, fn, &d)) != MPI_SUCCESS)
            break;
        int k = scnt ? scnt[i] : scount;
        MPI_Aint at = stypes ? sdspw[i] : (scnt ? sdsp[i] : (MPI_Aint)i * scount) * d->extent;
        if (k < 0 || at < 0) {
            rc = mpii_err_comm(x.c, MPI_ERR_COUNT, fn, "negative count or displacement");
            break;
        }
        x.sb[i] = (size_t)k * d->size;
        x.sd[i] = (size_t)(at + d->true_lb);
    }
    for (int j = 0; rc == MPI_SUCCESS && j < x.indeg; j++) {
        if ((rc = nbr_type(&x, rtypes ? rtypes[j] : rtype, fn, &d)) != MPI_SUCCESS)
            break;
        int k = rcnt ? rcnt[j] : rcount;
        MPI_Aint at = rtypes ? rdspw[j] : (rcnt ? rdsp[j] : (MPI_Aint)j * rcount) * d->extent;
        if (k < 0 || at < 0) {
            rc = mpii_err_comm(x.c, MPI_ERR_COUNT, fn, "negative count or displacement");
            break;
        }
        x.rb[j] = (size_t)k * d->size;
        x.rd[j] = (size_t)(at + d->true_lb);
    }
    if (rc != MPI_SUCCESS) {
        free(x.sb);
        return rc;
    }
    return nbr_run(&x, sbuf, rbuf, req, fn);
}

int PMPI_Neighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    return nbr_allgather(sbuf, scount, stype, rbuf, rcount, NULL, NULL, rtype, comm, NULL,
                         "MPI_Neighbor_allgather");
}
MPII_WEAK(Neighbor_allgather)

int PMPI_Ineighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    if (!req)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_ARG, "MPI_Ineighbor_allgather",
                             "request is NULL");
    return nbr_allgather(sbuf, scount, stype, rbuf, rcount, NULL, NULL, rtype, comm, req,
                         "MPI_Ineighbor_allgather");
}
MPII_WEAK(Ineighbor_allgather)

int PMPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rtype,
                             MPI_Comm comm)
{
    return nbr_allgather(sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, comm, NULL,
                         "MPI_Neighbor_allgatherv");
}
MPII_WEAK(Neighbor_allgatherv)

int PMPI_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                              const int rcounts[], const int displs[], MPI_Datatype rtype,
                              MPI_Comm comm, MPI_Request *req)
{
    if (!req)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_ARG, "MPI_Ineighbor_allgatherv",
                             "request is NULL");
    return nbr_allgather(sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, comm, req,
                         "MPI_Ineighbor_allgatherv");
}
MPII_WEAK(Ineighbor_allgatherv)

int PMPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    return nbr_alltoall(sbuf, scount, NULL, NULL, NULL, stype, NULL, rbuf, rcount, NULL, NULL,
                        NULL, rtype, NULL, comm, NULL, "MPI_Neighbor_alltoall");
}
MPII_WEAK(Neighbor_alltoall)

int PMPI_Ineighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    if (!req)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_ARG, "MPI_Ineighbor_alltoall",
                             "request is NULL");
    return nbr_alltoall(sbuf, scount, NULL, NULL, NULL, stype, NULL, rbuf, rcount, NULL, NULL,
                        NULL, rtype, NULL, comm, req, "MPI_Ineighbor_alltoall");
}
MPII_WEAK(Ineighbor_alltoall)

int PMPI_Neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                            MPI_Datatype stype, void *rbuf, const int rcounts[],
                            const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    if (!scounts || !sdispls || !rcounts || !rdispls)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_ARG, "MPI_Neighbor_alltoallv",
                             "a count or displacement array is NULL");
    return nbr_alltoall(sbuf, 0, scounts, NULL, sdispls, stype, NULL, rbuf, 0, rcounts, NULL,
                        rdispls, rtype, NULL, comm, NULL, "MPI_Neighbor_alltoallv");
}
MPII_WEAK(Neighbor_alltoallv)

int PMPI_Ineighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                             MPI_Datatype stype, void *rbuf, const int rcounts[],
                             const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                             MPI_Request *req)
{
    if (!scounts || !sdispls || !rcounts || !rdispls || !req)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_ARG, "MPI_Ineighbor_alltoallv",
                             "a NULL array or request");
    return nbr_alltoall(sbuf, 0, scounts, NULL, sdispls, stype, NULL, rbuf, 0, rcounts, NULL,
                        rdispls, rtype, NULL, comm, req, "MPI_Ineighbor_alltoallv");
}
MPII_WEAK(Ineighbor_alltoallv)

int PMPI_Neighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype rtypes[],
                            MPI_Comm comm)
{
    if (!scounts || !sdispls || !stypes || !rcounts || !rdispls || !rtypes)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_ARG, "MPI_Neighbor_alltoallw",
                             "a NULL array");
    return nbr_alltoall(sbuf, 0, scounts, sdispls, NULL, MPI_DATATYPE_NULL, stypes, rbuf, 0,
                        rcounts, rdispls, NULL, MPI_DATATYPE_NULL, rtypes, comm, NULL,
                        "MPI_Neighbor_alltoallw");
}
MPII_WEAK(Neighbor_alltoallw)

int PMPI_Ineighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype rtypes[],
                             MPI_Comm comm, MPI_Request *req)
{
    if (!scounts || !sdispls || !stypes || !rcounts || !rdispls || !rtypes || !req)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_ARG, "MPI_Ineighbor_alltoallw",
                             "a NULL array or request");
    return nbr_alltoall(sbuf, 0, scounts, sdispls, NULL, MPI_DATATYPE_NULL, stypes, rbuf, 0,
                        rcounts, rdispls, NULL, MPI_DATATYPE_NULL, rtypes, comm, req,
                        "MPI_Ineighbor_alltoallw");
}
MPII_WEAK(Ineighbor_alltoallw)
