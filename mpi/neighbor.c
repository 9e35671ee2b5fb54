/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbourhood collectives over Cartesian, graph and distributed-graph topologies: every
 * form (allgather(v), alltoall(v,w); blocking, nonblocking, persistent; int and MPI_Count)
 * becomes one plan, run as rmp_(i)neighbor_alltoallv with per-edge byte counts.
 *
 * Order (MPI-4.1 8.6): a Cartesian communicator's neighbours are, per dimension, the -1
 * then the +1 neighbour, MPI_PROC_NULL past an open edge (its block is counted, nothing
 * moves); a graph's are MPI_Graph_neighbors of the rank, in and out alike; a dist graph's
 * its sources and destinations. Cartesian edges carry sub-tags so that both sides of a
 * periodic dimension of size 1 or 2 (the same rank twice) match the right way round:
 * the block sent in the +1 direction is received as the -1 neighbour's. Graph edges all
 * carry sub-tag 0: duplicate edges between two ranks match in list order (messages of
 * one pair do not overtake each other).
 *
 * A side whose blocks are all contiguous moves straight from and to the user's buffer
 * (rmp's base is the lowest block, so MPI_BOTTOM and negative displacements work);
 * otherwise the side is packed into one scratch buffer, sent, and received blocks are
 * unpacked once the exchange completed. */
#include "mpii_coll.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"
#include "mpii_nbr.h"
#include "mpii_p2p.h"

typedef struct nbr_blk {
    mpii_dtype_t *d;
    MPI_Count cnt;
    char *at; /* the user's buf + displacement (the type's origin) */
} nbr_blk_t;

typedef struct nbr_side {
    int n, same, retained;
    const int *peer;
    int *sub;
    size_t *bytes, *disp;
    nbr_blk_t *blk;
    char *base; /* what rmp's displacements count from */
    char *tmp;  /* packed side, NULL: straight from/to the user's blocks */
} nbr_side_t;

struct nbr_plan {
    mpii_comm_t *c;
    nbr_side_t s, r;
};

mpii_comm_t *mpii_nbr_comm(const nbr_plan_t *p)
{
    return p->c;
}

static void nbr_side_free(nbr_side_t *x)
{
    if (x->retained)
        for (int i = 0; i < x->n; i++)
            mpii_dtype_release(x->blk[i].d);
    free(x->sub);
    free(x->tmp);
}

void mpii_nbr_plan_free(nbr_plan_t *p)
{
    if (!p)
        return;
    nbr_side_free(&p->s);
    nbr_side_free(&p->r);
    free(p);
}

static MPI_Count nbr_count(const nbr_args_t *a, int i)
{
    return a->cnt ? a->cnt[i] : a->icnt ? a->icnt[i] : a->count;
}

static int nbr_side(mpii_comm_t *c, nbr_side_t *x, int n, const int *peer, int cart, int recv,
                    const nbr_args_t *a, const char *fn)
{
    x->n = n;
    x->peer = peer;
    x->same = a->same;
    size_t m = (size_t)(n > 0 ? n : 1);
    /* one allocation: sub, bytes, disp, blk */
    x->sub = malloc(m * (sizeof(int) + 2 * sizeof(size_t) + sizeof(nbr_blk_t)) + 16);
    if (!x->sub)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    x->bytes = (size_t *)(((uintptr_t)(x->sub + m) + 7) & ~(uintptr_t)7);
    x->disp = x->bytes + m;
    x->blk = (nbr_blk_t *)(x->disp + m);
    if (n > 0 && a->vec && ((!a->cnt && !a->icnt) || (!a->dsp && !a->idsp) ||
                            (a->vec == 2 && !a->types)))
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "a count, displacement or type array is NULL");
    if (n > 0 && a->buf == MPI_IN_PLACE)
        return mpii_err_comm(c, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not valid here");
    int contig = 1;
    uintptr_t lo = UINTPTR_MAX;
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        mpii_dtype_t *d;
        MPI_Count k = nbr_count(a, i);
        int rc = mpii_coll_type(c, a->types ? a->types[i] : a->type, k, fn, &d);
        if (rc != MPI_SUCCESS)
            return rc;
        MPI_Aint off;
        if (a->same)
            off = 0;
        else if (a->dsp)
            off = a->bytes_disp ? a->dsp[i] : a->dsp[i] * d->extent;
        else if (a->idsp)
            off = a->bytes_disp ? (MPI_Aint)a->idsp[i] : (MPI_Aint)a->idsp[i] * d->extent;
        else
            off = (MPI_Aint)i * (MPI_Aint)k * d->extent;
        x->blk[i] = (nbr_blk_t){d, k, mpii_coll_at(a->buf, off)};
        x->bytes[i] = (size_t)k * d->size;
        x->sub[i] = cart ? (recv ? i ^ 1 : i) : 0;
        if (x->bytes[i]) {
            contig &= d->contig;
            uintptr_t at = (uintptr_t)x->blk[i].at + (uintptr_t)d->true_lb;
            lo = at < lo ? at : lo;
            total += x->bytes[i];
        }
    }
    if (contig) {
        x->base = lo == UINTPTR_MAX ? (char *)a->buf : (char *)lo;
        for (int i = 0; i < n; i++)
            x->disp[i] = x->bytes[i] ? (uintptr_t)x->blk[i].at +
                                           (uintptr_t)x->blk[i].d->true_lb - lo
                                     : 0;
        return MPI_SUCCESS;
    }
    /* packed: allgather's one block once, else the blocks one after another */
    if (!(x->tmp = malloc(x->same ? x->bytes[0] : total)))
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    x->base = x->tmp;
    for (size_t i = 0, o = 0; i < (size_t)n; i++) {
        x->disp[i] = x->same ? 0 : o;
        o += x->bytes[i];
        mpii_dtype_retain(x->blk[i].d); /* packed or unpacked after the call returned */
    }
    x->retained = 1;
    return MPI_SUCCESS;
}

int mpii_nbr_plan(MPI_Comm comm, const nbr_args_t *s, const nbr_args_t *r, const char *fn,
                  nbr_plan_t **out)
{
    mpii_comm_t *c;
    int rc = mpii_coll_comm(comm, fn, &c), indeg, outdeg;
    const int *in, *outl;
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->inter)
        return mpii_ic_unsupported(c, fn);
    if (!c->topo)
        return mpii_err_comm(c, MPI_ERR_TOPOLOGY, fn, "the communicator has no topology");
    if (mpii_topo_neighbors(c, &indeg, &in, &outdeg, &outl) != MPI_SUCCESS)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    int status = MPI_UNDEFINED;
    PMPI_Topo_test(comm, &status);
    nbr_plan_t *p = calloc(1, sizeof(*p));
    if (!p)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    p->c = c;
    if ((rc = nbr_side(c, &p->s, outdeg, outl, status == MPI_CART, 0, s, fn)) != MPI_SUCCESS ||
        (rc = nbr_side(c, &p->r, indeg, in, status == MPI_CART, 1, r, fn)) != MPI_SUCCESS) {
        mpii_nbr_plan_free(p);
        return rc;
    }
    *out = p;
    return MPI_SUCCESS;
}

static void nbr_pack(nbr_side_t *x)
{
    if (!x->tmp)
        return;
    for (int i = 0; i < (x->same ? (x->n > 0) : x->n); i++)
        if (x->bytes[i])
            mpii_dtype_pack(x->blk[i].d, x->blk[i].at, x->blk[i].cnt, 0, x->tmp + x->disp[i],
                            x->bytes[i]);
}

static void nbr_unpack(nbr_side_t *x)
{
    if (!x->tmp)
        return;
    for (int i = 0; i < x->n; i++)
        if (x->bytes[i] && x->peer[i] >= 0) /* MPI_PROC_NULL's block stays untouched */
            mpii_dtype_unpack(x->blk[i].d, x->blk[i].at, x->blk[i].cnt, 0,
                              x->tmp + x->disp[i], x->bytes[i]);
}

static int nbr_fin(mpii_req_t *q)
{
    if (q->err == MPI_SUCCESS)
        nbr_unpack(&((nbr_plan_t *)q->ctx)->r);
    mpii_status_empty(&q->status);
    q->status.MPI_ERROR = q->err;
    return MPI_SUCCESS;
}

static void nbr_release(mpii_req_t *q)
{
    mpii_nbr_plan_free(q->ctx);
    q->ctx = NULL;
}

int mpii_nbr_run(nbr_plan_t *p, MPI_Request *req, int own, const char *fn)
{
    nbr_side_t *s = &p->s, *r = &p->r;
    mpii_comm_t *c = p->c;
    nbr_pack(s);
    if (!req) {
        int rc = rmp_neighbor_alltoallv(s->base, s->bytes, s->disp, s->peer, s->sub, s->n,
                                        r->base, r->bytes, r->disp, r->peer, r->sub, r->n,
                                        c->rc);
        if (rc == RMP_SUCCESS)
            nbr_unpack(r);
        if (own)
            mpii_nbr_plan_free(p);
        return rc == RMP_SUCCESS ? MPI_SUCCESS : mpii_coll_err(c, rc, fn);
    }
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc = rmp_ineighbor_alltoallv(s->base, s->bytes, s->disp, s->peer, s->sub, s->n,
                                     r->base, r->bytes, r->disp, r->peer, r->sub, r->n, c->rc,
                                     &rr);
    if (rc != RMP_SUCCESS) {
        if (own)
            mpii_nbr_plan_free(p);
        return mpii_coll_err(c, rc, fn);
    }
    mpii_req_t *q = mpii_req_new_rmp(c, rr, nbr_fin);
    if (!q) {
        rmp_wait(&rr, NULL);
        if (own)
            mpii_nbr_plan_free(p);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    q->ctx = p;
    q->release = own ? nbr_release : NULL;
    *req = (MPI_Request)q;
    return MPI_SUCCESS;
}

int mpii_nbr_go(MPI_Comm comm, const nbr_args_t *s, const nbr_args_t *r, int mode,
                MPI_Info info, MPI_Request *req, const char *fn)
{
    if (mode != MPII_NBR_BLOCKING && !req)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_ARG, fn, "request is NULL");
    if (mode == MPII_NBR_PERSISTENT && info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_INFO, fn, "invalid info");
    nbr_plan_t *p;
    int rc = mpii_nbr_plan(comm, s, r, fn, &p);
    if (rc != MPI_SUCCESS)
        return rc;
    if (mode == MPII_NBR_PERSISTENT)
        return mpii_nbr_persist(p, req, fn);
    return mpii_nbr_run(p, mode == MPII_NBR_NONBLOCKING ? req : NULL, 1, fn);
}
