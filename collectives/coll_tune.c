/* Algorithm selection: the RMP_<KIND>_ALGO override, else the first matching row of the
 * table below (from an interleaved sweep of every algorithm on this 2-core node with 2 and
 * 4 ranks; docs/collectives.md).
 * The choice depends only on (kind, bytes, ranks), which every rank of a call agrees on:
 * that keeps the ranks in step and the reductions bitwise identical. */
#include <limits.h>
#include <stdio.h>

#include "coll.h"
#include "config.h"
#include "log.h"

#define COLL_ANY INT_MAX
#define COLL_MAXB SIZE_MAX

typedef struct coll_rule {
    coll_kind_t kind;
    int max_ranks;    /* the row applies when ranks <= max_ranks */
    size_t max_bytes; /* ... and bytes <= max_bytes */
    int algo;
} coll_rule_t;

/* Single node, 2 cores, oversubscribed above 2 ranks (see docs/collectives.md): one-step
 * algorithms (linear/direct) win on few ranks, where each extra step costs a round of
 * scheduling; log-step algorithms for small messages on more ranks; ring / Rabenseifner /
 * scatter-allgather for large messages on many ranks. */
static const coll_rule_t coll_rules[] = {
    {COLL_BARRIER, COLL_ANY, COLL_MAXB, COLL_BARRIER_DISSEMINATION},

    {COLL_BCAST, 4, COLL_MAXB, COLL_BCAST_LINEAR},
    {COLL_BCAST, 8, 64 << 10, COLL_BCAST_LINEAR},
    {COLL_BCAST, 8, COLL_MAXB, COLL_BCAST_BINOMIAL},
    {COLL_BCAST, COLL_ANY, 128 << 10, COLL_BCAST_BINOMIAL},
    {COLL_BCAST, COLL_ANY, COLL_MAXB, COLL_BCAST_SCATTER_ALLGATHER},

    {COLL_REDUCE, 2, 64 << 10, COLL_REDUCE_BINOMIAL},
    {COLL_REDUCE, 8, 4 << 10, COLL_REDUCE_LINEAR},
    {COLL_REDUCE, COLL_ANY, 64 << 10, COLL_REDUCE_BINOMIAL},
    {COLL_REDUCE, COLL_ANY, COLL_MAXB, COLL_REDUCE_RS_GATHER},

    {COLL_ALLREDUCE, 2, 256 << 10, COLL_ALLREDUCE_RD},
    {COLL_ALLREDUCE, 2, COLL_MAXB, COLL_ALLREDUCE_RABENSEIFNER},
    {COLL_ALLREDUCE, 4, 256, COLL_ALLREDUCE_DIRECT},
    {COLL_ALLREDUCE, 4, 128 << 10, COLL_ALLREDUCE_RD},
    {COLL_ALLREDUCE, 4, COLL_MAXB, COLL_ALLREDUCE_RING},
    {COLL_ALLREDUCE, 8, 64, COLL_ALLREDUCE_DIRECT},
    {COLL_ALLREDUCE, 8, 8 << 10, COLL_ALLREDUCE_RD},
    {COLL_ALLREDUCE, 8, COLL_MAXB, COLL_ALLREDUCE_RING},
    {COLL_ALLREDUCE, COLL_ANY, 8 << 10, COLL_ALLREDUCE_RD},
    {COLL_ALLREDUCE, COLL_ANY, 512 << 10, COLL_ALLREDUCE_RABENSEIFNER},
    {COLL_ALLREDUCE, COLL_ANY, COLL_MAXB, COLL_ALLREDUCE_RING},

    {COLL_ALLGATHER, 4, COLL_MAXB, COLL_ALLGATHER_DIRECT},
    {COLL_ALLGATHER, 8, 16 << 10, COLL_ALLGATHER_DIRECT},
    {COLL_ALLGATHER, 8, COLL_MAXB, COLL_ALLGATHER_RING},
    {COLL_ALLGATHER, COLL_ANY, 4 << 10, COLL_ALLGATHER_RD}, /* Bruck if not a power of 2 */
    {COLL_ALLGATHER, COLL_ANY, COLL_MAXB, COLL_ALLGATHER_RING},

    {COLL_REDUCE_SCATTER, 2, COLL_MAXB, COLL_RS_RING},
    {COLL_REDUCE_SCATTER, 4, 256 << 10, COLL_RS_DIRECT},
    {COLL_REDUCE_SCATTER, 4, COLL_MAXB, COLL_RS_RING},
    {COLL_REDUCE_SCATTER, 8, 4 << 10, COLL_RS_DIRECT},
    {COLL_REDUCE_SCATTER, COLL_ANY, 64 << 10, COLL_RS_HALVING},
    {COLL_REDUCE_SCATTER, COLL_ANY, COLL_MAXB, COLL_RS_RING},

    {COLL_ALLTOALL, 8, COLL_MAXB, COLL_ALLTOALL_LINEAR},
    {COLL_ALLTOALL, COLL_ANY, 256, COLL_ALLTOALL_BRUCK},
    {COLL_ALLTOALL, COLL_ANY, COLL_MAXB, COLL_ALLTOALL_PAIRWISE},
};

#define COLL_MAX_ALGOS 4

static const struct {
    const char *env;
    const char *names[COLL_MAX_ALGOS]; /* indexed by the kind's algorithm enum */
} coll_kinds[COLL_NKINDS] = {
    [COLL_BARRIER] = {"RMP_BARRIER_ALGO", {"dissemination", "direct"}},
    [COLL_BCAST] = {"RMP_BCAST_ALGO", {"binomial", "scatter_allgather", "linear"}},
    [COLL_REDUCE] = {"RMP_REDUCE_ALGO", {"binomial", "reduce_scatter_gather", "linear"}},
    [COLL_ALLREDUCE] = {"RMP_ALLREDUCE_ALGO",
                        {"recursive_doubling", "rabenseifner", "ring", "direct"}},
    [COLL_ALLGATHER] = {"RMP_ALLGATHER_ALGO", {"recursive_doubling", "bruck", "ring", "direct"}},
    [COLL_REDUCE_SCATTER] = {"RMP_REDUCE_SCATTER_ALGO", {"recursive_halving", "ring", "direct"}},
    [COLL_ALLTOALL] = {"RMP_ALLTOALL_ALGO", {"pairwise", "bruck", "linear"}},
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

static int coll_table(coll_kind_t kind, size_t bytes, int n)
{
    for (size_t i = 0; i < sizeof(coll_rules) / sizeof(coll_rules[0]); i++) {
        const coll_rule_t *r = &coll_rules[i];
        if (r->kind == kind && n <= r->max_ranks && bytes <= r->max_bytes)
            return r->algo;
    }
    return 0;
}

static int coll_unknown(coll_kind_t kind, const char *value)
{
    char valid[128] = "auto";
    size_t len = strlen(valid);
    for (int a = 0; a < COLL_MAX_ALGOS && coll_kinds[kind].names[a]; a++)
        len += (size_t)snprintf(valid + len, sizeof(valid) - len, ", %s",
                                coll_kinds[kind].names[a]);
    if (kind == COLL_ALLREDUCE)
        snprintf(valid + len, sizeof(valid) - len, ", shm");
    rmpi_error("%s=%s: unknown algorithm; valid: %s", coll_kinds[kind].env, value, valid);
    return RMP_ERR_ARG;
}

int coll_select(coll_kind_t kind, size_t bytes, int n, int *algo)
{
    const char *v = coll_env_value(kind);
    if (RMPI_LIKELY(v[0] == '\0' || strcmp(v, "auto") == 0)) {
        *algo = coll_table(kind, bytes, n);
        return RMP_SUCCESS;
    }
    for (int a = 0; a < COLL_MAX_ALGOS && coll_kinds[kind].names[a]; a++) {
        if (strcmp(v, coll_kinds[kind].names[a]) == 0) {
            *algo = a;
            return RMP_SUCCESS;
        }
    }
    if (kind == COLL_ALLREDUCE && strcmp(v, "shm") == 0) {
        /* Named in the parameter table, but no shared-memory allreduce exists yet. */
        static int warned;
        if (!warned++)
            rmpi_warn("RMP_ALLREDUCE_ALGO=shm is not implemented yet; using the table");
        *algo = coll_table(kind, bytes, n);
        return RMP_SUCCESS;
    }
    return coll_unknown(kind, v);
}
