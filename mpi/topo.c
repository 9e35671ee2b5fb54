/* Virtual topologies: Cartesian grids and distributed graphs. */
#include <stdlib.h>
#include <string.h>

#include "mpii.h"

struct mpii_topo {
    int kind; /* MPI_CART or MPI_DIST_GRAPH */
    int ndims;
    int *dims, *periods; /* cart */
};

void mpii_topo_free(mpii_topo_t *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t);
}

int mpii_topo_dup(const mpii_topo_t *t, mpii_topo_t **out)
{
    mpii_topo_t *n = calloc(1, sizeof(*n));
    if (!n)
        return MPI_ERR_NO_MEM;
    *n = *t;
    n->dims = n->periods = NULL;
    if (t->ndims > 0) {
        n->dims = malloc((size_t)t->ndims * sizeof(int));
        n->periods = malloc((size_t)t->ndims * sizeof(int));
        if (!n->dims || !n->periods) {
            mpii_topo_free(n);
            return MPI_ERR_NO_MEM;
        }
        memcpy(n->dims, t->dims, (size_t)t->ndims * sizeof(int));
        memcpy(n->periods, t->periods, (size_t)t->ndims * sizeof(int));
    }
    *out = n;
    return MPI_SUCCESS;
}
