/* SPDX-License-Identifier: BSD-3-Clause */
/* Graph topologies (MPI_Graph_create): every rank gives the whole graph, node i's
 * neighbours being edges[index[i-1] .. index[i]-1]. Duplicate edges and self loops are
 * valid; a rank keeps the graph (for MPI_Graph_get and MPI_Graph_neighbors of any node)
 * and its own list, which is its neighbourhood in both directions. */
#include "mpii_topo.h"

#define TOPO_GRAPH(h, c, t, fn) TOPO_KIND(h, c, t, MPI_GRAPH, "graph", fn)

/* Node r's neighbours within the graph arrays. */
static const int *graph_nbrs(const int *index, const int *edges, int r, int *n)
{
    int lo = r > 0 ? index[r - 1] : 0;
    *n = index[r] - lo;
    return edges + lo;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    const char *fn = "MPI_Graph_create";
    (void)reorder;
    TOPO_COMM(comm_old, c, fn);
    if (comm_graph) /* defined even when the call fails */
        *comm_graph = MPI_COMM_NULL;
    if (nnodes > c->size)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "%d nodes in a communicator of %d ranks",
                             nnodes, c->size);
    if (!comm_graph || nnodes < 0 || (nnodes > 0 && (!index || (index[nnodes - 1] > 0 && !edges))))
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "invalid nnodes %d or NULL array", nnodes);
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i > 0 ? index[i - 1] : 0))
            return mpii_err_comm(c, MPI_ERR_ARG, fn,
                                 "index[%d] = %d is smaller than the entry before it", i,
                                 index[i]);
    int ne = nnodes > 0 ? index[nnodes - 1] : 0;
    for (int i = 0; i < ne; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            return mpii_err_comm(c, MPI_ERR_TOPOLOGY, fn, "edges[%d] = %d is not a node of 0..%d",
                                 i, edges[i], nnodes - 1);
    mpii_topo_t *t = NULL;
    if (c->rank < nnodes && (t = calloc(1, sizeof(*t)))) {
        int deg;
        const int *mine = graph_nbrs(index, edges, c->rank, &deg);
        t->kind = MPI_GRAPH;
        t->nnodes = nnodes;
        t->indeg = t->outdeg = deg;
        if (!(t->index = mpii_topo_copy(index, nnodes)) ||
            !(t->edges = mpii_topo_copy(edges, ne)) ||
            !(t->in = mpii_topo_copy(mine, deg))) {
            mpii_topo_free(t);
            t = NULL;
        }
    }
    return mpii_topo_attach(c, comm_old, nnodes, t, comm_graph, fn);
}
MPII_WEAK(Graph_create)

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    TOPO_GRAPH(comm, c, t, "MPI_Graphdims_get");
    if (!nnodes || !nedges)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Graphdims_get", "NULL argument");
    *nnodes = t->nnodes;
    *nedges = t->nnodes > 0 ? t->index[t->nnodes - 1] : 0;
    return MPI_SUCCESS;
}
MPII_WEAK(Graphdims_get)

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    TOPO_GRAPH(comm, c, t, "MPI_Graph_get");
    int ne = t->nnodes > 0 ? t->index[t->nnodes - 1] : 0;
    if (maxindex < 0 || maxedges < 0 || (maxindex > 0 && !index) || (maxedges > 0 && !edges))
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Graph_get", "invalid maxindex %d, maxedges %d"
                             " or NULL array", maxindex, maxedges);
    /* the standard fills what fits */
    memcpy(index, t->index, (size_t)(maxindex < t->nnodes ? maxindex : t->nnodes) * sizeof(int));
    memcpy(edges, t->edges, (size_t)(maxedges < ne ? maxedges : ne) * sizeof(int));
    return MPI_SUCCESS;
}
MPII_WEAK(Graph_get)

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    TOPO_GRAPH(comm, c, t, "MPI_Graph_neighbors_count");
    if (rank < 0 || rank >= t->nnodes)
        return mpii_err_comm(c, MPI_ERR_RANK, "MPI_Graph_neighbors_count",
                             "rank %d is not a node of 0..%d", rank, t->nnodes - 1);
    if (!nneighbors)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Graph_neighbors_count", "NULL argument");
    graph_nbrs(t->index, t->edges, rank, nneighbors);
    return MPI_SUCCESS;
}
MPII_WEAK(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    TOPO_GRAPH(comm, c, t, "MPI_Graph_neighbors");
    if (rank < 0 || rank >= t->nnodes)
        return mpii_err_comm(c, MPI_ERR_RANK, "MPI_Graph_neighbors",
                             "rank %d is not a node of 0..%d", rank, t->nnodes - 1);
    if (maxneighbors < 0 || (maxneighbors > 0 && !neighbors))
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Graph_neighbors",
                             "invalid maxneighbors %d or NULL array", maxneighbors);
    int n;
    const int *nb = graph_nbrs(t->index, t->edges, rank, &n);
    memcpy(neighbors, nb, (size_t)(maxneighbors < n ? maxneighbors : n) * sizeof(int));
    return MPI_SUCCESS;
}
MPII_WEAK(Graph_neighbors)

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                   int *newrank)
{
    (void)index;
    (void)edges;
    TOPO_COMM(comm, c, "MPI_Graph_map");
    if (nnodes <= 0 || !newrank)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Graph_map", "invalid nnodes %d or NULL newrank",
                             nnodes);
    if (nnodes > c->size)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Graph_map", "%d nodes in a communicator of %d"
                             " ranks", nnodes, c->size);
    /* no reordering: the first nnodes ranks keep their place */
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
MPII_WEAK(Graph_map)
