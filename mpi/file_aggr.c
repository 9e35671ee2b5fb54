/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO aggregators of two-phase collective access. The node layout comes from the
 * node id of every rank (rmp_node_id, by which MPI_Comm_split_type splits), one
 * allgather at open. Ranks are put in aggregator order: the lowest rank of every node,
 * then the second of every node, and so on, so the first cb_nodes entries spread the
 * I/O over as many nodes as they can; cb_nodes defaults to the node count (ROMIO's
 * default). */
#include <stdlib.h>

#include "mpii.h"
#include "mpii_file.h"

int mpii_file_aggr_alloc(mpii_file_t *f)
{
    f->aggr = malloc(3 * sizeof(int) * (size_t)f->size); /* the order, then pairs */
    return f->aggr ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static int aggr_cmp(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

void mpii_file_aggr_layout(mpii_file_t *f)
{
    int n = f->size, *pr = f->aggr + n, nodes = 0; /* pr: n pairs */
    int me = rmp_node_id();
    PMPI_Allgather(&me, 1, MPI_INT, f->aggr, 1, MPI_INT, f->comm);
    for (int r = 0; r < n; r++) { /* (node, rank) */
        pr[2 * r] = f->aggr[r];
        pr[2 * r + 1] = r;
    }
    qsort(pr, (size_t)n, 2 * sizeof(int), aggr_cmp);
    for (int i = 0, lr = 0, prev = 0; i < n; i++) { /* (rank on its node, rank) */
        lr = i > 0 && pr[2 * i] == prev ? lr + 1 : 0;
        nodes += lr == 0;
        prev = pr[2 * i];
        pr[2 * i] = lr;
    }
    qsort(pr, (size_t)n, 2 * sizeof(int), aggr_cmp);
    for (int i = 0; i < n; i++)
        f->aggr[i] = pr[2 * i + 1];
    f->nodes = nodes > 0 ? nodes : 1;
}

void mpii_file_aggr_free(mpii_file_t *f)
{
    free(f->aggr);
    f->aggr = NULL;
}
