/* SPDX-License-Identifier: BSD-3-Clause */
/* Virtual topologies, what the three kinds share: the object's life (copy with the
 * communicator, free), MPI_Topo_test, MPI_Dims_create and the neighbour lists the
 * neighbourhood collectives use. Kinds: topo_cart.c, topo_graph.c, topo_dist.c. */
#include "mpii_topo.h"

int *mpii_topo_copy(const int *a, int n)
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
    free(t->index);
    free(t->edges);
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
    n->dims = n->periods = n->index = n->edges = NULL;
    n->in = n->out = n->inw = n->outw = NULL;
    int ok = 1;
    if (t->kind == MPI_CART) {
        /* the neighbour list is built again on first use */
        ok = (n->dims = mpii_topo_copy(t->dims, t->ndims)) &&
             (n->periods = mpii_topo_copy(t->periods, t->ndims));
    } else if (t->kind == MPI_GRAPH) {
        int ne = t->nnodes > 0 ? t->index[t->nnodes - 1] : 0;
        ok = (n->index = mpii_topo_copy(t->index, t->nnodes)) &&
             (n->edges = mpii_topo_copy(t->edges, ne)) &&
             (n->in = mpii_topo_copy(t->in, t->indeg));
    } else {
        ok = (n->in = mpii_topo_copy(t->in, t->indeg)) &&
             (n->out = mpii_topo_copy(t->out, t->outdeg)) &&
             (!t->inw || (n->inw = mpii_topo_copy(t->inw, t->indeg))) &&
             (!t->outw || (n->outw = mpii_topo_copy(t->outw, t->outdeg)));
    }
    if (!ok) {
        mpii_topo_free(n);
        return MPI_ERR_NO_MEM;
    }
    *out = n;
    return MPI_SUCCESS;
}

int mpii_topo_comm(MPI_Comm h, const char *fn, mpii_comm_t **c)
{
    int rc = mpii_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(!(*c = mpii_comm(h))))
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    return MPI_SUCCESS;
}

int mpii_topo_attach(mpii_comm_t *c, MPI_Comm comm_old, int n, mpii_topo_t *t,
                     MPI_Comm *newcomm, const char *fn)
{
    MPI_Comm h = MPI_COMM_NULL;
    int err = PMPI_Comm_split(comm_old, c->rank < n ? 0 : MPI_UNDEFINED, c->rank, &h);
    *newcomm = MPI_COMM_NULL;
    if (err != MPI_SUCCESS || h == MPI_COMM_NULL) {
        mpii_topo_free(t);
        return err;
    }
    if (!t) {
        PMPI_Comm_free(&h);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    mpii_comm(h)->topo = t;
    *newcomm = h;
    return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    TOPO_COMM(comm, c, "MPI_Topo_test");
    if (!status)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Topo_test", "status is NULL");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
MPII_WEAK(Topo_test)

/* ---- Dims_create ----
 * The standard asks for dimensions "as close to each other as possible". Chosen here,
 * by an exhaustive search over the divisors: the smallest spread (largest - smallest),
 * and among equal spreads the largest smallest dimension, then the largest next one,
 * and so on. These are the answers MPICH gives (its topo/dims5 table); the former
 * greedy dealing of prime factors gave 10x4x... where 8x5 fits, e.g. 72 in 2-D as
 * 12x6 instead of 9x8. */
typedef struct dims_search {
    int k;            /* free dimensions */
    const int *div;   /* divisors of the free product, increasing */
    int ndiv;
    int *cur, *best;  /* non-increasing */
    int found;
} dims_search_t;

static int dims_better(const dims_search_t *s)
{
    if (!s->found)
        return 1;
    int k = s->k, a = s->cur[0] - s->cur[k - 1], b = s->best[0] - s->best[k - 1];
    if (a != b)
        return a < b;
    for (int j = k - 1; j >= 0; j--)
        if (s->cur[j] != s->best[j])
            return s->cur[j] > s->best[j];
    return 0;
}

/* b^e, or lim + 1 once it passes lim (no overflow: b and lim are below 2^31). */
static long dims_pow(long b, int e, long lim)
{
    long p = 1;
    for (int m = 0; m < e && p <= lim; m++)
        p *= b;
    return p <= lim ? p : lim + 1;
}

/* Place cur[i..k-1] (each <= div[top]) whose product is rest. The spread is cur[0] minus
 * the smallest, which is at most the left-th root of rest: a branch whose smallest would
 * have to exceed that to beat the best spread is cut. */
static void dims_dfs(dims_search_t *s, long rest, int i, int top)
{
    int left = s->k - i, k = s->k;
    long spread = s->found ? s->best[0] - s->best[k - 1] : -1;
    if (s->found && i > 0) {
        long lo = s->cur[0] - spread; /* the smallest must be at least this */
        if (lo > 1 && dims_pow(lo, left, rest) > rest)
            return;
    }
    if (left == 1) {
        if (rest <= s->div[top]) {
            s->cur[i] = (int)rest;
            if (dims_better(s)) {
                memcpy(s->best, s->cur, (size_t)k * sizeof(int));
                s->found = 1;
            }
        }
        return;
    }
    if (i == 0) {
        /* the largest dimension, smallest first: good spreads are found early */
        for (int j = 0; j <= top; j++) {
            long d = s->div[j];
            if (dims_pow(d, k, rest) < rest)
                continue; /* k dimensions of at most d cannot reach rest */
            if (s->found) {
                long lo = d - (s->best[0] - s->best[k - 1]);
                if (lo > 1 && dims_pow(lo, k - 1, rest / d) > rest / d)
                    break; /* and larger d only do worse */
            }
            s->cur[0] = (int)d;
            dims_dfs(s, rest / d, 1, j);
        }
        return;
    }
    for (int j = top; j >= 0; j--) {
        long d = s->div[j];
        if (dims_pow(d, left, rest) < rest)
            return; /* left dimensions of at most d cannot reach rest */
        if (s->found && s->cur[0] - d > s->best[0] - s->best[k - 1])
            return; /* the spread only grows with smaller d */
        if (rest % d)
            continue;
        s->cur[i] = (int)d;
        dims_dfs(s, rest / d, i + 1, j);
    }
}

static int dims_solve(int n, int k, int *out)
{
    int ndiv = 0, cap = 64, *div = malloc((size_t)cap * sizeof(int));
    int *cur = malloc((size_t)k * 2 * sizeof(int));
    int rc = MPI_ERR_NO_MEM;
    if (!div || !cur)
        goto out;
    for (long d = 1; d * d <= n; d++) { /* small side increasing, then the large side */
        if (n % d)
            continue;
        if (ndiv + 2 > cap) {
            int *g = realloc(div, (size_t)(cap *= 2) * sizeof(int));
            if (!g)
                goto out;
            div = g;
        }
        div[ndiv++] = (int)d;
    }
    for (int j = ndiv - 1, m = ndiv; j >= 0; j--) {
        int q = n / div[j];
        if (q != div[m - 1]) {
            if (ndiv + 1 > cap) {
                int *g = realloc(div, (size_t)(cap *= 2) * sizeof(int));
                if (!g)
                    goto out;
                div = g;
            }
            div[ndiv++] = q;
        }
    }
    dims_search_t s = {k, div, ndiv, cur, cur + k, 0};
    dims_dfs(&s, n, 0, ndiv - 1);
    memcpy(out, s.best, (size_t)k * sizeof(int));
    rc = MPI_SUCCESS;
out:
    free(div);
    free(cur);
    return rc;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    int rc = mpii_check_init("MPI_Dims_create");
    if (rc != MPI_SUCCESS)
        return rc;
    if (nnodes <= 0 || ndims < 0 || (ndims > 0 && !dims))
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Dims_create",
                             "invalid nnodes %d or ndims %d", nnodes, ndims);
    long fixed = 1;
    int free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return mpii_err_comm(NULL, MPI_ERR_DIMS, "MPI_Dims_create", "dims[%d] = %d < 0", i,
                                 dims[i]);
        if (dims[i] > 0) {
            fixed *= dims[i];
            if (fixed > nnodes)
                break;
        } else {
            free_dims++;
        }
    }
    if (fixed > nnodes || nnodes % fixed != 0 || (free_dims == 0 && fixed != nnodes))
        return mpii_err_comm(NULL, MPI_ERR_DIMS, "MPI_Dims_create",
                             "%d nodes cannot be divided by the fixed dimensions", nnodes);
    if (free_dims == 0)
        return MPI_SUCCESS;
    int *f = malloc((size_t)free_dims * sizeof(int));
    if (!f || dims_solve((int)(nnodes / fixed), free_dims, f) != MPI_SUCCESS) {
        free(f);
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, "MPI_Dims_create", "out of memory");
    }
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = f[k++];
    free(f);
    return MPI_SUCCESS;
}
MPII_WEAK(Dims_create)

/* ---- Neighbour lists (neighbourhood collectives, MPI_Dist_graph_neighbors) ---- */

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
            t->in[2 * d] = mpii_topo_shift(t, c->rank, d, -1);
            t->in[2 * d + 1] = mpii_topo_shift(t, c->rank, d, 1);
        }
        t->indeg = t->outdeg = n;
    }
    *indeg = t->indeg;
    *outdeg = t->outdeg;
    *in = t->in;
    *out = t->kind == MPI_DIST_GRAPH ? t->out : t->in;
    return MPI_SUCCESS;
}
