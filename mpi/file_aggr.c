/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO aggregators of two-phase collective access. The node layout comes from
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), which rmp answers from the node of every
 * rank. Ranks are put in aggregator order: the lowest rank of every node, then the
 * second of every node, and so on, so the first cb_nodes entries spread the I/O over
 * as many nodes as they can; cb_nodes defaults to the node count (ROMIO's default). */
#include <stdlib.h>

#include "mpii.h"
#include "mpii_file.h"

int mpii_file_aggr_init(mpii_file_t *f)
{
    int n = f->size, rc = MPI_SUCCESS;
    MPI_Comm node = MPI_COMM_NULL;
    int *lr = malloc(2 * sizeof(int) * (size_t)n); /* per rank: local rank, node index */
    f->aggr = malloc(sizeof(int) * (size_t)n);
    if (!lr || !f->aggr)
        rc = MPI_ERR_NO_MEM;
    int me[2] = {0, 0};
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_split_type(f->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc == MPI_SUCCESS) {
        PMPI_Comm_rank(node, &me[0]);
        /* a node's index: the lowest rank on it, as seen by its local rank 0 */
        int low = f->rank;
        PMPI_Allreduce(MPI_IN_PLACE, &low, 1, MPI_INT, MPI_MIN, node);
        me[1] = low;
        PMPI_Comm_free(&node);
    }
    int any = rc;
    PMPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, f->comm);
    if (any) {
        free(lr);
        return any;
    }
    PMPI_Allgather(me, 2, MPI_INT, lr, 2, MPI_INT, f->comm);
    int nodes = 0, k = 0;
    for (int r = 0; r < n; r++)
        nodes += lr[2 * r] == 0;
    for (int level = 0; k < n; level++)
        for (int r = 0; r < n; r++)
            if (lr[2 * r] == level)
                f->aggr[k++] = r;
    f->nodes = nodes > 0 ? nodes : 1;
    free(lr);
    return MPI_SUCCESS;
}

void mpii_file_aggr_free(mpii_file_t *f)
{
    free(f->aggr);
    f->aggr = NULL;
}
