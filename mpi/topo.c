/* SPDX-License-Identifier: BSD-3-Clause */
/* Virtual topologies: Cartesian grids and distributed graphs (adjacent form).
 * rmp does not reorder ranks: the new communicator keeps the old order. */
#include <stdlib.h>
#include <string.h>

#include "mpii.h"

#define TOPO_MAXDIMS 64

struct mpii_topo {
    int kind; /* MPI_CART or MPI_DIST_GRAPH */
    int ndims;
    int *dims, *periods;     /* cart: ndims each */
    int indeg, outdeg;       /* dist graph */
    int *in, *out;           /* neighbour ranks */
    int *inw, *outw;         /* weights, NULL when unweighted */
};

static int *topo_copy(const int *a, int n)
{
    int *b = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (b && n > 0)
        memcpy(b, a, (size_t)n * sizeof(int));
    return b;
}

void mpii_topo_free(mpii_topo_t *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t->in);
    free(t->out);
    free(t->inw);
    free(t->outw);
    free(t);
}

int mpii_topo_dup(const mpii_topo_t *t, mpii_topo_t **out)
{
    mpii_topo_t *n = calloc(1, sizeof(*n));
    if (!n)
        return MPI_ERR_NO_MEM;
    *n = *t;
    n->dims = n->periods = n->in = n->out = n->inw = n->outw = NULL;
    int ok = 1;
    if (t->kind == MPI_CART) {
        ok = (n->dims = topo_copy(t->dims, t->ndims)) && (n->periods = topo_copy(t->periods, t->ndims));
    } else {
        ok = (n->in = topo_copy(t->in, t->indeg)) && (n->out = topo_copy(t->out, t->outdeg)) &&
             (!t->inw || (n->inw = topo_copy(t->inw, t->indeg))) &&
             (!t->outw || (n->outw = topo_copy(t->outw, t->outdeg)));
    }
    if (!ok) {
        mpii_topo_free(n);
        return MPI_ERR_NO_MEM;
    }
    *out = n;
    return MPI_SUCCESS;
}

/* ---- Dims_create ---- */

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    if (nnodes <= 0 || ndims < 0 || (ndims > 0 && !dims))
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Dims_create",
                             "invalid nnodes %d or ndims %d", nnodes, ndims);
    long fixed = 1;
    int free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return mpii_err_comm(NULL, MPI_ERR_DIMS, "MPI_Dims_create", "dims[%d] = %d < 0", i,
                                 dims[i]);
        if (dims[i] > 0)
            fixed *= dims[i];
        else
            free_dims++;
    }
    if (fixed == 0 || nnodes % fixed != 0 || (free_dims == 0 && fixed != nnodes))
        return mpii_err_comm(NULL, MPI_ERR_DIMS, "MPI_Dims_create",
                             "%d nodes cannot be divided by the fixed dimensions (product %ld)",
                             nnodes, fixed);
    if (free_dims == 0)
        return MPI_SUCCESS;
    /* Deal the prime factors, largest first, to the currently smallest free
     * dimension: as balanced as possible, then sorted non-increasing. */
    int rest = (int)(nnodes / fixed);
    int *f = calloc((size_t)free_dims, sizeof(int));
    int primes[64], np = 0;
    if (!f)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, "MPI_Dims_create", "out of memory");
    for (int p = 2; (long)p * p <= rest; p++)
        while (rest % p == 0) {
            primes[np++] = p;
            rest /= p;
        }
    if (rest > 1)
        primes[np++] = rest;
    for (int i = 0; i < free_dims; i++)
        f[i] = 1;
    for (int k = np - 1; k >= 0; k--) {
        int m = 0;
        for (int i = 1; i < free_dims; i++)
            if (f[i] < f[m])
                m = i;
        f[m] *= primes[k];
    }
    for (int i = 0; i < free_dims; i++) /* non-increasing */
        for (int j = i + 1; j < free_dims; j++)
            if (f[j] > f[i]) {
                int t = f[i];
                f[i] = f[j];
                f[j] = t;
            }
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = f[k++];
    free(f);
    return MPI_SUCCESS;
}
MPII_WEAK(Dims_create)

/* ---- Cartesian ---- */

#define TOPO_COMM(h, c, fn)                                                              \
    mpii_check_init(fn);                                                                 \
    mpii_comm_t *c = mpii_comm(h);                                                       \
    if (MPII_UNLIKELY(!c))                                                               \
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator");

#define TOPO_CART(h, c, t, fn)                                                           \
    TOPO_COMM(h, c, fn);                                                                 \
    const mpii_topo_t *t = c->topo;                                                      \
    if (!t || t->kind != MPI_CART)                                                       \
        return mpii_err_comm(c, MPI_ERR_TOPOLOGY, fn, "the communicator has no Cartesian topology");

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    (void)reorder;
    TOPO_COMM(comm_old, c, "MPI_Cart_create");
    if (ndims < 0 || (ndims > 0 && (!dims || !periods)) || !comm_cart)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Cart_create", "invalid ndims %d or NULL array",
                             ndims);
    if (ndims > TOPO_MAXDIMS)
        return mpii_err_comm(c, MPI_ERR_DIMS, "MPI_Cart_create", "%d dimensions (at most %d)",
                             ndims, TOPO_MAXDIMS);
    long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return mpii_err_comm(c, MPI_ERR_DIMS, "MPI_Cart_create", "dims[%d] = %d", i, dims[i]);
        n *= dims[i];
        if (n > c->size)
            break;
    }
    if (n > c->size)
        return mpii_err_comm(c, MPI_ERR_TOPOLOGY, "MPI_Cart_create",
                             "the grid needs more than the %d ranks of the communicator", c->size);
    MPI_Comm h;
    int err = PMPI_Comm_split(comm_old, c->rank < n ? 0 : MPI_UNDEFINED, c->rank, &h);
    if (err != MPI_SUCCESS || h == MPI_COMM_NULL) {
        *comm_cart = MPI_COMM_NULL;
        return err;
    }
    mpii_comm_t *nc = mpii_comm(h);
    mpii_topo_t *t = calloc(1, sizeof(*t));
    if (!t || !(t->dims = topo_copy(dims, ndims)) || !(t->periods = topo_copy(periods, ndims))) {
        mpii_topo_free(t);
        PMPI_Comm_free(&h);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, "MPI_Cart_create", "out of memory");
    }
    t->kind = MPI_CART;
    t->ndims = ndims;
    for (int i = 0; i < ndims; i++)
        t->periods[i] = periods[i] != 0;
    nc->topo = t;
    *comm_cart = h;
    return MPI_SUCCESS;
}
MPII_WEAK(Cart_create)

static void topo_coords(const mpii_topo_t *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    TOPO_CART(comm, c, t, "MPI_Cartdim_get");
    if (!ndims)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Cartdim_get", "ndims is NULL");
    *ndims = t->ndims;
    return MPI_SUCCESS;
}
MPII_WEAK(Cartdim_get)

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    TOPO_CART(comm, c, t, "MPI_Cart_get");
    if (maxdims < t->ndims || (t->ndims > 0 && (!dims || !periods || !coords)))
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Cart_get",
                             "maxdims %d < %d dimensions or NULL array", maxdims, t->ndims);
    memcpy(dims, t->dims, (size_t)t->ndims * sizeof(int));
    memcpy(periods, t->periods, (size_t)t->ndims * sizeof(int));
    topo_coords(t, c->rank, coords);
    return MPI_SUCCESS;
}
MPII_WEAK(Cart_get)

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    TOPO_CART(comm, c, t, "MPI_Cart_coords");
    if (rank < 0 || rank >= c->size)
        return mpii_err_comm(c, MPI_ERR_RANK, "MPI_Cart_coords", "invalid rank %d (size %d)",
                             rank, c->size);
    if (maxdims < t->ndims || (t->ndims > 0 && !coords))
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Cart_coords",
                             "maxdims %d < %d dimensions or NULL coords", maxdims, t->ndims);
    topo_coords(t, rank, coords);
    return MPI_SUCCESS;
}
MPII_WEAK(Cart_coords)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    TOPO_CART(comm, c, t, "MPI_Cart_rank");
    if ((t->ndims > 0 && !coords) || !rank)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Cart_rank", "NULL argument");
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i];
        if (t->periods[i])
            x = ((x % t->dims[i]) + t->dims[i]) % t->dims[i];
        else if (x < 0 || x >= t->dims[i])
            return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Cart_rank",
                                 "coordinate %d of dimension %d outside 0..%d", x, i,
                                 t->dims[i] - 1);
        r = r * t->dims[i] + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}
MPII_WEAK(Cart_rank)

/* Rank at coordinate + disp along dim, MPI_PROC_NULL past an open edge. */
static int topo_shift(const mpii_topo_t *t, int rank, int dim, int disp)
{
    int coords[TOPO_MAXDIMS];
    topo_coords(t, rank, coords);
    long x = (long)coords[dim] + disp;
    if (t->periods[dim])
        x = ((x % t->dims[dim]) + t->dims[dim]) % t->dims[dim];
    else if (x < 0 || x >= t->dims[dim])
        return MPI_PROC_NULL;
    coords[dim] = (int)x;
    int r = 0;
    for (int i = 0; i < t->ndims; i++)
        r = r * t->dims[i] + coords[i];
    return r;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    TOPO_CART(comm, c, t, "MPI_Cart_shift");
    if (direction < 0 || direction >= t->ndims)
        return mpii_err_comm(c, MPI_ERR_DIMS, "MPI_Cart_shift",
                             "direction %d outside 0..%d", direction, t->ndims - 1);
    if (!rank_source || !rank_dest)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Cart_shift", "NULL output argument");
    *rank_source = topo_shift(t, c->rank, direction, -disp);
    *rank_dest = topo_shift(t, c->rank, direction, disp);
    return MPI_SUCCESS;
}
MPII_WEAK(Cart_shift)

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    TOPO_CART(comm, c, t, "MPI_Cart_sub");
    if ((t->ndims > 0 && !remain_dims) || !newcomm)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Cart_sub", "NULL argument");
    int coords[TOPO_MAXDIMS], color = 0, key = 0, nd = 0, dims[TOPO_MAXDIMS], periods[TOPO_MAXDIMS];
    topo_coords(t, c->rank, coords);
    /* color: the coordinates of the dropped dimensions; key: of the kept ones */
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + coords[i];
            dims[nd] = t->dims[i];
            periods[nd++] = t->periods[i];
        } else {
            color = color * t->dims[i] + coords[i];
        }
    }
    MPI_Comm h;
    int err = PMPI_Comm_split(comm, color, key, &h);
    if (err != MPI_SUCCESS)
        return err;
    mpii_comm_t *nc = mpii_comm(h);
    mpii_topo_t *n = calloc(1, sizeof(*n));
    if (!n || !(n->dims = topo_copy(dims, nd)) || !(n->periods = topo_copy(periods, nd))) {
        mpii_topo_free(n);
        PMPI_Comm_free(&h);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, "MPI_Cart_sub", "out of memory");
    }
    n->kind = MPI_CART;
    n->ndims = nd;
    nc->topo = n;
    *newcomm = h;
    return MPI_SUCCESS;
}
MPII_WEAK(Cart_sub)

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    (void)periods;
    TOPO_COMM(comm, c, "MPI_Cart_map");
    if (ndims < 0 || (ndims > 0 && !dims) || !newrank)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Cart_map", "invalid argument");
    long n = 1;
    for (int i = 0; i < ndims; i++)
        n *= dims[i] > 0 ? dims[i] : 0;
    if (n == 0 || n > c->size)
        return mpii_err_comm(c, MPI_ERR_DIMS, "MPI_Cart_map", "invalid dimensions");
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
MPII_WEAK(Cart_map)

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    TOPO_COMM(comm, c, "MPI_Topo_test");
    if (!status)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Topo_test", "status is NULL");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
MPII_WEAK(Topo_test)

/* ---- Distributed graph (adjacent form) ---- */

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    (void)reorder;
    (void)info;
    TOPO_COMM(comm_old, c, "MPI_Dist_graph_create_adjacent");
    const char *fn = "MPI_Dist_graph_create_adjacent";
    if (indegree < 0 || outdegree < 0 || (indegree > 0 && !sources) ||
        (outdegree > 0 && !destinations) || !comm_dist_graph)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "invalid degree or NULL array");
    for (int i = 0; i < indegree; i++)
        if (sources[i] < 0 || sources[i] >= c->size)
            return mpii_err_comm(c, MPI_ERR_RANK, fn, "invalid source rank %d (size %d)",
                                 sources[i], c->size);
    for (int i = 0; i < outdegree; i++)
        if (destinations[i] < 0 || destinations[i] >= c->size)
            return mpii_err_comm(c, MPI_ERR_RANK, fn, "invalid destination rank %d (size %d)",
                                 destinations[i], c->size);
    int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    if (weighted && ((indegree > 0 && (!sourceweights || sourceweights == MPI_WEIGHTS_EMPTY)) ||
                     (outdegree > 0 && (!destweights || destweights == MPI_WEIGHTS_EMPTY))))
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "NULL or empty weights");
    MPI_Comm h;
    int err = PMPI_Comm_dup(comm_old, &h);
    if (err != MPI_SUCCESS)
        return err;
    mpii_comm_t *nc = mpii_comm(h);
    mpii_topo_free(nc->topo); /* a dup of a cart keeps it: the graph replaces it */
    mpii_topo_t *t = nc->topo = calloc(1, sizeof(*t));
    if (!t || !(t->in = topo_copy(sources, indegree)) ||
        !(t->out = topo_copy(destinations, outdegree)) ||
        (weighted && (!(t->inw = topo_copy(indegree ? sourceweights : NULL, indegree)) ||
                      !(t->outw = topo_copy(outdegree ? destweights : NULL, outdegree))))) {
        PMPI_Comm_free(&h);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    t->kind = MPI_DIST_GRAPH;
    t->indeg = indegree;
    t->outdeg = outdegree;
    *comm_dist_graph = h;
    return MPI_SUCCESS;
}
MPII_WEAK(Dist_graph_create_adjacent)

#define TOPO_GRAPH(h, c, t, fn)                                                          \
    TOPO_COMM(h, c, fn);                                                                 \
    const mpii_topo_t *t = c->topo;                                                      \
    if (!t || t->kind != MPI_DIST_GRAPH)                                                 \
        return mpii_err_comm(c, MPI_ERR_TOPOLOGY, fn,                                    \
                             "the communicator has no distributed graph topology");

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    TOPO_GRAPH(comm, c, t, "MPI_Dist_graph_neighbors_count");
    if (!indegree || !outdegree || !weighted)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Dist_graph_neighbors_count", "NULL argument");
    *indegree = t->indeg;
    *outdegree = t->outdeg;
    *weighted = t->inw != NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(Dist_graph_neighbors_count)

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    TOPO_GRAPH(comm, c, t, "MPI_Dist_graph_neighbors");
    if (maxindegree < t->indeg || maxoutdegree < t->outdeg ||
        (t->indeg > 0 && !sources) || (t->outdeg > 0 && !destinations))
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Dist_graph_neighbors",
                             "arrays smaller than the degrees (%d, %d)", t->indeg, t->outdeg);
    memcpy(sources, t->in, (size_t)t->indeg * sizeof(int));
    memcpy(destinations, t->out, (size_t)t->outdeg * sizeof(int));
    if (t->inw && sourceweights && sourceweights != MPI_UNWEIGHTED)
        memcpy(sourceweights, t->inw, (size_t)t->indeg * sizeof(int));
    if (t->outw && destweights && destweights != MPI_UNWEIGHTED)
        memcpy(destweights, t->outw, (size_t)t->outdeg * sizeof(int));
    return MPI_SUCCESS;
}
MPII_WEAK(Dist_graph_neighbors)

int mpii_topo_neighbors(const mpii_comm_t *c, int *indeg, const int **in, int *outdeg,
                        const int **out)
{
    mpii_topo_t *t = c->topo;
    if (!t)
        return MPI_ERR_TOPOLOGY;
    if (t->kind == MPI_CART && !t->in) {
        /* built on first use: -1 then +1 neighbour of every dimension */
        int n = 2 * t->ndims;
        t->in = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
        if (!t->in)
            return MPI_ERR_NO_MEM;
        for (int d = 0; d < t->ndims; d++) {
            t->in[2 * d] = topo_shift(t, c->rank, d, -1);
            t->in[2 * d + 1] = topo_shift(t, c->rank, d, 1);
        }
        t->indeg = t->outdeg = n;
    }
    *indeg = t->indeg;
    *outdeg = t->outdeg;
    *in = t->in;
    *out = t->kind == MPI_CART ? t->in : t->out;
    return MPI_SUCCESS;
}
