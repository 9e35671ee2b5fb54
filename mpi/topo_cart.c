/* SPDX-License-Identifier: BSD-3-Clause */
/* Cartesian topologies: row-major coordinates over the ranks in their order. */
#include "mpii_topo.h"

#define TOPO_CART(h, c, t, fn) TOPO_KIND(h, c, t, MPI_CART, "Cartesian", fn)

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    (void)reorder;
    TOPO_COMM(comm_old, c, "MPI_Cart_create");
    if (comm_cart) /* defined even when the call fails */
        *comm_cart = MPI_COMM_NULL;
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
    mpii_topo_t *t = calloc(1, sizeof(*t));
    if (t && (!(t->dims = mpii_topo_copy(dims, ndims)) ||
              !(t->periods = mpii_topo_copy(periods, ndims)))) {
        mpii_topo_free(t);
        t = NULL;
    }
    if (t) {
        t->kind = MPI_CART;
        t->ndims = ndims;
        for (int i = 0; i < ndims; i++)
            t->periods[i] = periods[i] != 0;
    }
    return mpii_topo_attach(c, comm_old, (int)n, t, comm_cart, "MPI_Cart_create");
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

int mpii_topo_shift(const mpii_topo_t *t, int rank, int dim, int disp)
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
    *rank_source = mpii_topo_shift(t, c->rank, direction, -disp);
    *rank_dest = mpii_topo_shift(t, c->rank, direction, disp);
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
    if (!n || !(n->dims = mpii_topo_copy(dims, nd)) ||
        !(n->periods = mpii_topo_copy(periods, nd))) {
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

