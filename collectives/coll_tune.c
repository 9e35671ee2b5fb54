/* Algorithm selection: the RMP_<KIND>_ALGO override, else the first matching row of the
 * table for the communicator's layout (ranks, nodes, ranks per node). The table is data: the built-in rows are generated at build time from
 * tools/tuning/default.tune (a sweep's output, docs/tuning.md), and a tuning file's rows
 * (RMP_TUNING_FILE, core/tuning.c) go in front of them.
 * The choice depends only on (kind, bytes, layout), which every rank of a call agrees on:
 * that keeps the ranks in step and the reductions bitwise identical. */
#include <limits.h>
#include <stdio.h>

#include "coll.h"
#include "config.h"
#include "log.h"
#include "tune_default.h"

#define COLL_TABLE_MAX 512

#define COLL_MAX_ALGOS 6

static const struct {
    const char *kind;
    const char *env;
    const char *names[COLL_MAX_ALGOS]; /* indexed by the kind's algorithm enum */
} coll_kinds[COLL_NKINDS] = {
    [COLL_BARRIER] = {"barrier", "RMP_BARRIER_ALGO", {"dissemination", "direct", "hier", "shm"}},
    [COLL_BCAST] = {"bcast", "RMP_BCAST_ALGO",
                    {"binomial", "scatter_allgather", "linear", "hier", "shm"}},
    [COLL_REDUCE] = {"reduce", "RMP_REDUCE_ALGO", {"binomial", "reduce_scatter_gather", "linear"}},
    [COLL_ALLREDUCE] = {"allreduce", "RMP_ALLREDUCE_ALGO",
                        {"recursive_doubling", "rabenseifner", "ring", "direct", "shm", "hier"}},
    [COLL_ALLGATHER] = {"allgather", "RMP_ALLGATHER_ALGO",
                        {"recursive_doubling", "bruck", "ring", "direct", "shm"}},
    [COLL_REDUCE_SCATTER] = {"reduce_scatter", "RMP_REDUCE_SCATTER_ALGO",
                             {"recursive_halving", "ring", "direct", "shm"}},
    [COLL_ALLTOALL] = {"alltoall", "RMP_ALLTOALL_ALGO", {"pairwise", "bruck", "linear", "shm"}},
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

int coll_kind_by_name(const char *name, coll_kind_t *kind)
{
    for (int k = 0; k < COLL_NKINDS; k++) {
        if (strcmp(name, coll_kinds[k].kind) == 0) {
            *kind = (coll_kind_t)k;
            return RMP_SUCCESS;
        }
    }
    return RMP_ERR_ARG;
}

const char *coll_kind_name(coll_kind_t kind)
{
    return (unsigned)kind < COLL_NKINDS ? coll_kinds[kind].kind : "?";
}

int coll_algo_by_name(coll_kind_t kind, const char *name, int *algo)
{
    if ((unsigned)kind >= COLL_NKINDS)
        return RMP_ERR_ARG;
    for (int a = 0; a < COLL_MAX_ALGOS && coll_kinds[kind].names[a]; a++) {
        if (strcmp(name, coll_kinds[kind].names[a]) == 0) {
            *algo = a;
            return RMP_SUCCESS;
        }
    }
    return RMP_ERR_ARG;
}

void coll_algo_list(coll_kind_t kind, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int a = 0; (unsigned)kind < COLL_NKINDS && a < COLL_MAX_ALGOS && coll_kinds[kind].names[a];
         a++) {
        int w = snprintf(buf + o, len - o, "%s%s", a ? ", " : "", coll_kinds[kind].names[a]);
        if (w < 0 || (size_t)w >= len - o)
            break;
        o += (size_t)w;
    }
}

/* The table in force: per kind, a tuning file's rows, then the built-in ones. Written
 * by coll_tune_install before any collective runs (rmp_init), read-only afterwards. */
static coll_row_t coll_rows[COLL_TABLE_MAX];
static size_t coll_first[COLL_NKINDS], coll_count[COLL_NKINDS];
static size_t coll_nrows;
static int coll_installed;

int coll_tune_install(const coll_row_t *rows, size_t n, char *err, size_t errlen)
{
    if (n + coll_default_nrows > COLL_TABLE_MAX) {
        snprintf(err, errlen, "%zu collective rows; at most %zu fit", n,
                 (size_t)COLL_TABLE_MAX - coll_default_nrows);
        return RMP_ERR_ARG;
    }
    size_t o = 0;
    for (int k = 0; k < COLL_NKINDS; k++) {
        coll_first[k] = o;
        for (size_t i = 0; i < n; i++)
            if (rows[i].kind == (coll_kind_t)k)
                coll_rows[o++] = rows[i];
        for (size_t i = 0; i < coll_default_nrows; i++) {
            const coll_row_src_t *d = &coll_default_rows[i];
            if (d->kind != (coll_kind_t)k)
                continue;
            coll_row_t r = {d->kind, d->max_ranks, d->min_nodes, d->max_nodes,
                            d->max_ppn, d->max_bytes, 0};
            if (coll_algo_by_name(d->kind, d->algo, &r.algo) != RMP_SUCCESS) {
                snprintf(err, errlen, "internal: %s:%d: unknown %s algorithm '%s'",
                         RMPI_TUNE_DEFAULT_FILE, d->line, coll_kinds[k].kind, d->algo);
                return RMP_ERR_INTERNAL;
            }
            coll_rows[o++] = r;
        }
        coll_count[k] = o - coll_first[k];
    }
    coll_nrows = o;
    coll_installed = 1;
    return RMP_SUCCESS;
}

static void coll_tune_ensure(void)
{
    char err[256];
    if (RMPI_UNLIKELY(!coll_installed) && coll_tune_install(NULL, 0, err, sizeof(err)) != 0)
        rmpi_error("%s", err);
}

const coll_row_t *coll_tune_rows(size_t *n)
{
    coll_tune_ensure();
    *n = coll_nrows;
    return coll_rows;
}


/* Algorithms that need a layout: the shared-memory one a single node, the hierarchical
 * ones several nodes with more than one rank on some node. */
static int coll_algo_layout(coll_kind_t kind, int algo)
{
    switch (kind) {
    case COLL_ALLREDUCE: return algo == COLL_ALLREDUCE_SHM ? 1 : algo == COLL_ALLREDUCE_HIER ? 2 : 0;
    case COLL_BCAST: return algo == COLL_BCAST_SHM ? 1 : algo == COLL_BCAST_HIER ? 2 : 0;
    case COLL_BARRIER: return algo == COLL_BARRIER_SHM ? 1 : algo == COLL_BARRIER_HIER ? 2 : 0;
    case COLL_ALLGATHER: return algo == COLL_ALLGATHER_SHM ? 1 : 0;
    case COLL_ALLTOALL: return algo == COLL_ALLTOALL_SHM ? 1 : 0;
    case COLL_REDUCE_SCATTER: return algo == COLL_RS_SHM ? 1 : 0;
    default: return 0;
    }
}

static int coll_layout_fits(coll_kind_t kind, int algo, const coll_layout_t *lay)
{
    switch (coll_algo_layout(kind, algo)) {
    case 1: return lay->nodes == 1 && lay->ranks > 1;
    case 2: return lay->nodes > 1 && lay->nodes < lay->ranks;
    default: return 1;
    }
}

/* The first matching row whose algorithm fits the layout: a row naming shm or hier is
 * passed over where they cannot run (so a tuning file cannot break a job by naming them),
 * and with flat set they are passed over always. */
static int coll_pick(coll_kind_t kind, size_t bytes, const coll_layout_t *lay, int flat)
{
    coll_tune_ensure();
    const coll_row_t *r = coll_rows + coll_first[kind];
    for (size_t i = 0; i < coll_count[kind]; i++)
        if (lay->ranks <= r[i].max_ranks && bytes <= r[i].max_bytes &&
            lay->nodes >= r[i].min_nodes && lay->nodes <= r[i].max_nodes &&
            lay->ppn <= r[i].max_ppn &&
            (flat ? !coll_algo_layout(kind, r[i].algo) : coll_layout_fits(kind, r[i].algo, lay)))
            return r[i].algo;
    return 0;
}

/* n ranks on `nodes` nodes (every rank computes the same values): ppn is the most ranks
 * any node can have when they are spread as evenly as the count allows. */
static coll_layout_t coll_layout_of(int n, int nodes)
{
    if (nodes < 1)
        nodes = 1;
    if (nodes > n)
        nodes = n > 0 ? n : 1;
    coll_layout_t l = {n, nodes, (n + nodes - 1) / nodes};
    return l;
}

int coll_select_flat(coll_kind_t kind, size_t bytes, int n)
{
    coll_layout_t lay = coll_layout_of(n, 1);
    return coll_pick(kind, bytes, &lay, 1);
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

int coll_tune_pick(coll_kind_t kind, size_t bytes, const coll_layout_t *lay)
{
    return coll_pick(kind, bytes, lay, 0);
}

int coll_select(coll_kind_t kind, size_t bytes, int n, int nodes, int *algo)
{
    const char *v = coll_env_value(kind);
    if (RMPI_LIKELY(v[0] == '\0' || memcmp(v, "auto", 5) == 0)) { /* v holds >= 32 bytes */
        coll_layout_t lay = coll_layout_of(n, nodes);
        *algo = coll_pick(kind, bytes, &lay, 0);
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
