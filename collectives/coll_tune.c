/* Algorithm selection: the RMP_<KIND>_ALGO override, else the node layout (hier, shm),
 * else the first matching row of the table below (from an interleaved sweep of every
 * algorithm on this 2-core node with 2 and 4 ranks; docs/collectives.md).
 * The choice depends only on (kind, bytes, ranks, nodes), which every rank of a call agrees
 * on: that keeps the ranks in step and the reductions bitwise identical. */
#include <limits.h>
#include <stdio.h>

#include "coll.h"
#include "config.h"
#include "log.h"

#define COLL_ANY INT_MAX
#define COLL_MAXB SIZE_MAX

typedef struct coll_rule {
    int max_ranks;    /* the row applies when ranks <= max_ranks */
    size_t max_bytes; /* ... and bytes <= max_bytes */
    int algo;
} coll_rule_t;

/* Single node, 2 cores, oversubscribed above 2 ranks (see docs/collectives.md): one-step
 * algorithms (linear/direct) win on few ranks, where each extra step costs a round of
 * scheduling; log-step algorithms for small messages on more ranks; ring / Rabenseifner /
 * scatter-allgather for large messages on many ranks. Each list ends with a catch-all. */
static const coll_rule_t barrier_rules[] = {
    {COLL_ANY, COLL_MAXB, COLL_BARRIER_DISSEMINATION},
};
static const coll_rule_t bcast_rules[] = {
    {4, COLL_MAXB, COLL_BCAST_LINEAR},
    {8, 64 << 10, COLL_BCAST_LINEAR},
    {8, COLL_MAXB, COLL_BCAST_BINOMIAL},
    {COLL_ANY, 128 << 10, COLL_BCAST_BINOMIAL},
    {COLL_ANY, COLL_MAXB, COLL_BCAST_SCATTER_ALLGATHER},
};
static const coll_rule_t reduce_rules[] = {
    {2, 64 << 10, COLL_REDUCE_BINOMIAL},
    {8, 4 << 10, COLL_REDUCE_LINEAR},
    {COLL_ANY, 64 << 10, COLL_REDUCE_BINOMIAL},
    {COLL_ANY, COLL_MAXB, COLL_REDUCE_RS_GATHER},
};
static const coll_rule_t allreduce_rules[] = {
    {2, 256 << 10, COLL_ALLREDUCE_RD},
    {2, COLL_MAXB, COLL_ALLREDUCE_RABENSEIFNER},
    {4, 256, COLL_ALLREDUCE_DIRECT},
    {4, 128 << 10, COLL_ALLREDUCE_RD},
    {4, COLL_MAXB, COLL_ALLREDUCE_RING},
    {8, 64, COLL_ALLREDUCE_DIRECT},
    {8, 8 << 10, COLL_ALLREDUCE_RD},
    {8, COLL_MAXB, COLL_ALLREDUCE_RING},
    {COLL_ANY, 8 << 10, COLL_ALLREDUCE_RD},
    {COLL_ANY, 512 << 10, COLL_ALLREDUCE_RABENSEIFNER},
    {COLL_ANY, COLL_MAXB, COLL_ALLREDUCE_RING},
};
static const coll_rule_t allgather_rules[] = {
    {4, COLL_MAXB, COLL_ALLGATHER_DIRECT},
    {8, 16 << 10, COLL_ALLGATHER_DIRECT},
    {8, COLL_MAXB, COLL_ALLGATHER_RING},
    {COLL_ANY, 4 << 10, COLL_ALLGATHER_RD}, /* Bruck if not a power of 2 */
    {COLL_ANY, COLL_MAXB, COLL_ALLGATHER_RING},
};
static const coll_rule_t reduce_scatter_rules[] = {
    {2, COLL_MAXB, COLL_RS_RING},
    {4, 256 << 10, COLL_RS_DIRECT},
    {4, COLL_MAXB, COLL_RS_RING},
    {8, 4 << 10, COLL_RS_DIRECT},
    {COLL_ANY, 64 << 10, COLL_RS_HALVING},
    {COLL_ANY, COLL_MAXB, COLL_RS_RING},
};
static const coll_rule_t alltoall_rules[] = {
    {8, COLL_MAXB, COLL_ALLTOALL_LINEAR},
    {COLL_ANY, 256, COLL_ALLTOALL_BRUCK},
    {COLL_ANY, COLL_MAXB, COLL_ALLTOALL_PAIRWISE},
};

#define COLL_MAX_ALGOS 6
#define COLL_RULES(r) r, sizeof(r) / sizeof(r[0])

static const struct {
    const char *env;
    const char *names[COLL_MAX_ALGOS]; /* indexed by the kind's algorithm enum */
    const coll_rule_t *rules;
    size_t nrules;
} coll_kinds[COLL_NKINDS] = {
    [COLL_BARRIER] = {"RMP_BARRIER_ALGO", {"dissemination", "direct", "hier"},
                      COLL_RULES(barrier_rules)},
    [COLL_BCAST] = {"RMP_BCAST_ALGO", {"binomial", "scatter_allgather", "linear", "hier"},
                    COLL_RULES(bcast_rules)},
    [COLL_REDUCE] = {"RMP_REDUCE_ALGO", {"binomial", "reduce_scatter_gather", "linear"},
                     COLL_RULES(reduce_rules)},
    [COLL_ALLREDUCE] = {"RMP_ALLREDUCE_ALGO",
                        {"recursive_doubling", "rabenseifner", "ring", "direct", "shm", "hier"},
                        COLL_RULES(allreduce_rules)},
    [COLL_ALLGATHER] = {"RMP_ALLGATHER_ALGO", {"recursive_doubling", "bruck", "ring", "direct"},
                        COLL_RULES(allgather_rules)},
    [COLL_REDUCE_SCATTER] = {"RMP_REDUCE_SCATTER_ALGO", {"recursive_halving", "ring", "direct"},
                             COLL_RULES(reduce_scatter_rules)},
    [COLL_ALLTOALL] = {"RMP_ALLTOALL_ALGO", {"pairwise", "bruck", "linear"},
                       COLL_RULES(alltoall_rules)},
};

static const char *coll_env_value(coll_kind_t kind)
{
    switch (kind) {
    case COLL_BARRIER: return rmpi_cfg.barrier_algo;
    case COLL_BCAST: return rmpi_cfg.bcast_algo;
    case COLL_REDUCE: return rmpi_cfg.reduce_algo;
    case COLL_ALLREDUCE: return rmpi_cfg.allreduce_algo;
    case COLL_ALLGATHER: return rmpi_cfg.allgather_algo;
    case COLL_REDUCE_SCATTER: return rmpi_cfg.reduce_scatter_algo;
    case COLL_ALLTOALL: return rmpi_cfg.alltoall_algo;
    default: return "auto";
    }
}

const char *coll_algo_name(coll_kind_t kind, int algo)
{
    if ((unsigned)kind >= COLL_NKINDS || algo < 0 || algo >= COLL_MAX_ALGOS)
        return "?";
    const char *s = coll_kinds[kind].names[algo];
    return s ? s : "?";
}

int coll_select_flat(coll_kind_t kind, size_t bytes, int n)
{
    const coll_rule_t *r = coll_kinds[kind].rules;
    for (size_t i = 0; i < coll_kinds[kind].nrules; i++)
        if (n <= r[i].max_ranks && bytes <= r[i].max_bytes)
            return r[i].algo;
    return 0;
}

static int coll_unknown(coll_kind_t kind, const char *value)
{
    char valid[128] = "auto";
    size_t len = strlen(valid);
    for (int a = 0; a < COLL_MAX_ALGOS && coll_kinds[kind].names[a]; a++)
        len += (size_t)snprintf(valid + len, sizeof(valid) - len, ", %s",
                                coll_kinds[kind].names[a]);
    rmpi_error("%s=%s: unknown algorithm; valid: %s", coll_kinds[kind].env, value, valid);
    return RMP_ERR_ARG;
}

/* The node layout first: spanning several nodes with more than one rank on some node, the
 * hierarchical barrier/bcast/allreduce keep the network to one rank per node; on one node
 * the shared-memory allreduce ties with the best point-to-point one below 32 KiB on 2 ranks
 * and wins everywhere else measured (1-4 MiB: ~1.7x; 4 ranks: 1.7-4x; docs/collectives.md).
 * Everything else: the table. */
static int coll_layout_pick(coll_kind_t kind, size_t bytes, int n, int nodes)
{
    if (nodes > 1 && nodes < n) {
        if (kind == COLL_ALLREDUCE)
            return COLL_ALLREDUCE_HIER;
        if (kind == COLL_BCAST)
            return COLL_BCAST_HIER;
        if (kind == COLL_BARRIER)
            return COLL_BARRIER_HIER;
    }
    if (nodes == 1 && n > 1 && kind == COLL_ALLREDUCE)
        return COLL_ALLREDUCE_SHM;
    return coll_select_flat(kind, bytes, n);
}

int coll_select(coll_kind_t kind, size_t bytes, int n, int nodes, int *algo)
{
    const char *v = coll_env_value(kind);
    if (RMPI_LIKELY(v[0] == '\0' || memcmp(v, "auto", 5) == 0)) { /* v holds >= 32 bytes */
        *algo = coll_layout_pick(kind, bytes, n, nodes);
        return RMP_SUCCESS;
    }
    for (int a = 0; a < COLL_MAX_ALGOS && coll_kinds[kind].names[a]; a++) {
        if (strcmp(v, coll_kinds[kind].names[a]) == 0) {
            *algo = a;
            return RMP_SUCCESS;
        }
    }
    return coll_unknown(kind, v);
}
