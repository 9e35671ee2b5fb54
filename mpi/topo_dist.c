/* SPDX-License-Identifier: BSD-3-Clause */
/* Distributed graph topologies: the adjacent form (each rank gives its own in and out
 * lists) and the general one (any rank gives any edges: one all-to-all tells every rank
 * its in and out edges), and MPI_Dist_graph_neighbors(_count), which also answer for
 * Cartesian and graph communicators with their neighbourhood-collective order. */
#include "mpii_topo.h"

static int dist_weights_bad(const int *w, int n)
{
    return n > 0 && (!w || w == MPI_WEIGHTS_EMPTY);
}

static int dist_info_bad(MPI_Info info)
{
    return info != MPI_INFO_NULL && !mpii_info(info);
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    const char *fn = "MPI_Dist_graph_create_adjacent";
    (void)reorder;
    TOPO_COMM(comm_old, c, fn);
    if (comm_dist_graph) /* defined even when the call fails */
        *comm_dist_graph = MPI_COMM_NULL;
    if (indegree < 0 || outdegree < 0 || (indegree > 0 && !sources) ||
        (outdegree > 0 && !destinations) || !comm_dist_graph)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "invalid degree or NULL array");
    if (dist_info_bad(info))
        return mpii_err_comm(c, MPI_ERR_INFO, fn, "invalid info");
    for (int i = 0; i < indegree; i++)
        if (sources[i] < 0 || sources[i] >= c->size)
            return mpii_err_comm(c, MPI_ERR_RANK, fn, "invalid source rank %d (size %d)",
                                 sources[i], c->size);
    for (int i = 0; i < outdegree; i++)
        if (destinations[i] < 0 || destinations[i] >= c->size)
            return mpii_err_comm(c, MPI_ERR_RANK, fn, "invalid destination rank %d (size %d)",
                                 destinations[i], c->size);
    int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    if (weighted && (dist_weights_bad(sourceweights, indegree) ||
                     dist_weights_bad(destweights, outdegree)))
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "NULL or empty weights");
    mpii_topo_t *t = calloc(1, sizeof(*t));
    if (t) {
        t->kind = MPI_DIST_GRAPH;
        t->indeg = indegree;
        t->outdeg = outdegree;
        if (!(t->in = mpii_topo_copy(sources, indegree)) ||
            !(t->out = mpii_topo_copy(destinations, outdegree)) ||
            (weighted && (!(t->inw = mpii_topo_copy(sourceweights, indegree)) ||
                          !(t->outw = mpii_topo_copy(destweights, outdegree))))) {
            mpii_topo_free(t);
            t = NULL;
        }
    }
    return mpii_topo_attach(c, comm_old, c->size, t, comm_dist_graph, fn);
}
MPII_WEAK(Dist_graph_create_adjacent)

/* The general form. Each given edge s -> d (weight w) is sent as (d, w) to s, which
 * appends it to its out list, and as (s, w) to d, for its in list, tagged with which.
 * Every rank then reads what it received in rank order, each sender's edges in the
 * order they were given: the same answer on every call, as the standard asks. */
enum { DIST_OUT = 0, DIST_IN = 1 };

static int dist_exchange(mpii_comm_t *c, MPI_Comm comm, int n, const int *sources,
                         const int *degrees, const int *dst, const int *w, mpii_topo_t *t,
                         const char *fn)
{
    int p = c->size, rc = MPI_ERR_NO_MEM;
    int *scnt = calloc((size_t)p * 4, sizeof(int)), *sdsp = scnt + p, *rcnt = sdsp + p,
        *rdsp = rcnt + p;
    int *sbuf = NULL, *rbuf = NULL, *fill = NULL;
    if (!scnt)
        goto out;
    long total = 0;
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            scnt[sources[i]] += 3;
            scnt[dst[k]] += 3;
            total += 6;
        }
    if (total > 0x7fffffffL) {
        rc = mpii_err_comm(c, MPI_ERR_ARG, fn, "too many edges");
        goto out_noreport;
    }
    if ((rc = PMPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm)) != MPI_SUCCESS)
        goto out_noreport;
    rc = MPI_ERR_NO_MEM;
    long rtotal = 0;
    for (int r = 0; r < p; r++) {
        sdsp[r] = r > 0 ? sdsp[r - 1] + scnt[r - 1] : 0;
        rdsp[r] = (int)rtotal;
        rtotal += rcnt[r];
    }
    if (rtotal > 0x7fffffffL)
        goto out;
    sbuf = malloc((size_t)(total > 0 ? total : 1) * sizeof(int));
    rbuf = malloc((size_t)(rtotal > 0 ? rtotal : 1) * sizeof(int));
    fill = calloc((size_t)p, sizeof(int));
    if (!sbuf || !rbuf || !fill)
        goto out;
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            int s = sources[i], d = dst[k], wt = w ? w[k] : 1;
            int *a = sbuf + sdsp[s] + fill[s];
            a[0] = DIST_OUT, a[1] = d, a[2] = wt;
            fill[s] += 3;
            a = sbuf + sdsp[d] + fill[d];
            a[0] = DIST_IN, a[1] = s, a[2] = wt;
            fill[d] += 3;
        }
    rc = PMPI_Alltoallv(sbuf, scnt, sdsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, comm);
    if (rc != MPI_SUCCESS)
        goto out_noreport;
    rc = MPI_ERR_NO_MEM;
    for (long k = 0; k < rtotal; k += 3) {
        if (rbuf[k] == DIST_OUT)
            t->outdeg++;
        else
            t->indeg++;
    }
    t->in = malloc((size_t)(t->indeg > 0 ? t->indeg : 1) * sizeof(int));
    t->out = malloc((size_t)(t->outdeg > 0 ? t->outdeg : 1) * sizeof(int));
    if (!t->in || !t->out)
        goto out;
    if (w && (!(t->inw = malloc((size_t)(t->indeg > 0 ? t->indeg : 1) * sizeof(int))) ||
              !(t->outw = malloc((size_t)(t->outdeg > 0 ? t->outdeg : 1) * sizeof(int)))))
        goto out;
    for (long k = 0, i = 0, o = 0; k < rtotal; k += 3) {
        if (rbuf[k] == DIST_OUT) {
            if (w)
                t->outw[o] = rbuf[k + 2];
            t->out[o++] = rbuf[k + 1];
        } else {
            if (w)
                t->inw[i] = rbuf[k + 2];
            t->in[i++] = rbuf[k + 1];
        }
    }
    rc = MPI_SUCCESS;
    goto out_noreport;
out:
    rc = mpii_err_comm(c, rc, fn, "out of memory");
out_noreport:
    free(scnt);
    free(sbuf);
    free(rbuf);
    free(fill);
    return rc;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    const char *fn = "MPI_Dist_graph_create";
    (void)reorder;
    TOPO_COMM(comm_old, c, fn);
    if (comm_dist_graph) /* defined even when the call fails */
        *comm_dist_graph = MPI_COMM_NULL;
    if (n < 0 || (n > 0 && (!sources || !degrees)) || !comm_dist_graph)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "invalid n %d or NULL array", n);
    if (dist_info_bad(info))
        return mpii_err_comm(c, MPI_ERR_INFO, fn, "invalid info");
    long ne = 0;
    for (int i = 0; i < n; i++) {
        if (sources[i] < 0 || sources[i] >= c->size)
            return mpii_err_comm(c, MPI_ERR_RANK, fn, "invalid source rank %d (size %d)",
                                 sources[i], c->size);
        if (degrees[i] < 0)
            return mpii_err_comm(c, MPI_ERR_ARG, fn, "degrees[%d] = %d < 0", i, degrees[i]);
        ne += degrees[i];
    }
    if (ne > 0 && !destinations)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "destinations is NULL");
    for (long k = 0; k < ne; k++)
        if (destinations[k] < 0 || destinations[k] >= c->size)
            return mpii_err_comm(c, MPI_ERR_RANK, fn, "invalid destination rank %d (size %d)",
                                 destinations[k], c->size);
    int weighted = weights != MPI_UNWEIGHTED;
    if (weighted && ne > 0 && (!weights || weights == MPI_WEIGHTS_EMPTY))
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "NULL or empty weights for %ld edges", ne);
    mpii_topo_t *t = calloc(1, sizeof(*t));
    if (!t)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    t->kind = MPI_DIST_GRAPH;
    int rc = dist_exchange(c, comm_old, n, sources, degrees, destinations,
                           weighted ? (ne > 0 ? weights : MPI_WEIGHTS_EMPTY) : NULL, t, fn);
    if (rc != MPI_SUCCESS) {
        mpii_topo_free(t);
        return rc;
    }
    return mpii_topo_attach(c, comm_old, c->size, t, comm_dist_graph, fn);
}
MPII_WEAK(Dist_graph_create)

/* Any topology: a dist graph's lists, else the neighbourhood-collective lists. */
#define TOPO_ANY(h, c, t, fn)                                                            \
    TOPO_COMM(h, c, fn);                                                                 \
    int indeg_, outdeg_;                                                                 \
    const int *in_, *out_;                                                               \
    if (mpii_topo_neighbors(c, &indeg_, &in_, &outdeg_, &out_) != MPI_SUCCESS)           \
        return mpii_err_comm(c, c->topo ? MPI_ERR_NO_MEM : MPI_ERR_TOPOLOGY, fn,        \
                             "the communicator has no topology");                        \
    const mpii_topo_t *t = c->topo;

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    TOPO_ANY(comm, c, t, "MPI_Dist_graph_neighbors_count");
    if (!indegree || !outdegree || !weighted)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Dist_graph_neighbors_count", "NULL argument");
    *indegree = indeg_;
    *outdegree = outdeg_;
    *weighted = t->inw != NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(Dist_graph_neighbors_count)

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    TOPO_ANY(comm, c, t, "MPI_Dist_graph_neighbors");
    if (maxindegree < 0 || maxoutdegree < 0 || (maxindegree > 0 && !sources) ||
        (maxoutdegree > 0 && !destinations))
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Dist_graph_neighbors",
                             "invalid maxindegree %d, maxoutdegree %d or NULL array",
                             maxindegree, maxoutdegree);
    /* the standard fills what fits */
    int ni = maxindegree < indeg_ ? maxindegree : indeg_;
    int no = maxoutdegree < outdeg_ ? maxoutdegree : outdeg_;
    memcpy(sources, in_, (size_t)ni * sizeof(int));
    memcpy(destinations, out_, (size_t)no * sizeof(int));
    if (t->inw && sourceweights && sourceweights != MPI_UNWEIGHTED &&
        sourceweights != MPI_WEIGHTS_EMPTY)
        memcpy(sourceweights, t->inw, (size_t)ni * sizeof(int));
    if (t->outw && destweights && destweights != MPI_UNWEIGHTED &&
        destweights != MPI_WEIGHTS_EMPTY)
        memcpy(destweights, t->outw, (size_t)no * sizeof(int));
    return MPI_SUCCESS;
}
MPII_WEAK(Dist_graph_neighbors)
