/* SPDX-License-Identifier: BSD-3-Clause */
/* Algorithm selection: the RMP_<KIND>_ALGO override, else the first matching row of the
 * table for the communicator's layout (ranks, nodes, ranks per node). The table is data: the built-in rows are generated at build time from
 * tools/tuning/default.tune (a sweep's output, docs/tuning.md), and a tuning file's rows
 * (RMP_TUNING_FILE, core/tuning.c) go in front of them.
 * The choice depends only on (kind, bytes, layout), which every rank of a call agrees on:
 * that keeps the ranks in step and the reductions bitwise identical. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coll_comm.h"
#include "coll_core.h"
#include "coll_op.h"
#include "coll_tune.h"
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

/* RMP_<KIND>_ALGO: one parameter per kind, its help written from the names above at
 * load time, so the names exist once. */
coll_params_t coll_params;
static char coll_param_help[COLL_NKINDS][192];
static char coll_param_choices[COLL_NKINDS][128]; /* "auto|name|...": the validator's */
/* RMP_COLL_CHECK, RMP_COLL_SHM_CHUNK, RMP_COLL_SHM_CMA, then the end */
static rmpi_param_t coll_param_table[COLL_NKINDS + 4];

__attribute__((constructor)) static void coll_params_register(void)
{
    for (int k = 0; k < COLL_NKINDS; k++) {
        size_t o = (size_t)snprintf(coll_param_help[k], sizeof(coll_param_help[k]),
                                    "%s algorithm (auto", coll_kinds[k].kind);
        for (int a = 0; a < COLL_MAX_ALGOS && coll_kinds[k].names[a]; a++)
            o += (size_t)snprintf(coll_param_help[k] + o,
                                  o < sizeof(coll_param_help[k]) ? sizeof(coll_param_help[k]) - o : 0,
                                  ", %s", coll_kinds[k].names[a]);
        if (o < sizeof(coll_param_help[k]) - 1)
            strcat(coll_param_help[k], ")");
        o = (size_t)snprintf(coll_param_choices[k], sizeof(coll_param_choices[k]), "auto");
        for (int a = 0; a < COLL_MAX_ALGOS && coll_kinds[k].names[a]; a++)
            o += (size_t)snprintf(coll_param_choices[k] + o,
                                  o < sizeof(coll_param_choices[k])
                                      ? sizeof(coll_param_choices[k]) - o : 0,
                                  "|%s", coll_kinds[k].names[a]);
        coll_param_table[k] = (rmpi_param_t){coll_kinds[k].env, RMPI_PT_STRING, "auto",
                                             coll_param_choices[k],
                                             offsetof(coll_params_t, algo) +
                                                 (size_t)k * COLL_ALGO_LEN,
                                             COLL_ALGO_LEN, coll_param_help[k]};
    }
    coll_param_table[COLL_NKINDS] = (rmpi_param_t){
        "RMP_COLL_CHECK", RMPI_PT_BOOL, "0", NULL, offsetof(coll_params_t, check), 0,
        "check that every rank called the same collective with the same root, count, "
        "datatype and op (costs one exchange per blocking collective)"};
    coll_param_table[COLL_NKINDS + 1] = (rmpi_param_t){
        "RMP_COLL_SHM_CHUNK", RMPI_PT_SIZE, "0", "0..256m", offsetof(coll_params_t, shm_chunk), 0,
        "slot (pipeline chunk) of the shared-memory collectives, rounded down to 4 KiB, "
        "at least 16 KiB; comm rank 0's value applies (0: automatic, 64 KiB, 512 KiB "
        "with more ranks than cores)"};
    coll_param_table[COLL_NKINDS + 2] = (rmpi_param_t){
        "RMP_COLL_SHM_CMA", RMPI_PT_SIZE, COLL_SHM_CMA_DEFAULT, NULL,
        offsetof(coll_params_t, shm_cma), 0,
        "from this many bytes a 2-rank shm allreduce reads the peer's input and writes its "
        "result by cross-memory attach (single copy), when the kernel permits it; comm rank 0's "
        "value applies (0: never)"};
    (void)rmpi_config_register("collectives", coll_param_table, &coll_params);
}

static const char *coll_env_value(coll_kind_t kind)
{
    return (unsigned)kind < COLL_NKINDS ? coll_params.algo[kind] : "auto";
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
unsigned coll_tune_gen = 1;

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
    coll_tune_gen++;
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

int coll_select_comm_slow(coll_kind_t kind, size_t bytes, rmp_comm_t comm, int *algo)
{
    coll_comm_t *cc = coll_comm_get(comm);
    coll_memo_t *m = cc ? &cc->memo[kind] : NULL;
    int rc = coll_select(kind, bytes, comm->size, cc ? cc->nodes : comm->size, algo);
    if (rc == RMP_SUCCESS && m && coll_installed)
        *m = (coll_memo_t){bytes, *algo, coll_tune_gen};
    return rc;
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

/* ---- Tuning files: the collective rows ("allreduce ranks<=4 bytes<=256k ring"),
 * a section of core/tuning.c's grammar registered at load time (the core knows no
 * collective). ---- */

#define COLL_FILE_MAX_ROWS 256

static coll_row_t coll_file_rows[COLL_FILE_MAX_ROWS]; /* the last file parsed */
static size_t coll_file_nrows;
static int coll_file_catch_all[COLL_NKINDS];

__attribute__((format(printf, 3, 4))) static int coll_file_fail(char *err, size_t errlen,
                                                                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return RMP_ERR_ARG;
}

enum { SEEN_RANKS = 1, SEEN_BYTES = 2, SEEN_PPN = 4, SEEN_NODES_MIN = 8, SEEN_NODES_MAX = 16 };

/* One condition of a row: ranks<=N, bytes<=SIZE, ppn<=N, nodes=N, nodes<=N, nodes>=N. */
static int coll_file_cond(const char *w, coll_row_t *r, unsigned *seen, char *err, size_t errlen)
{
    size_t klen = strcspn(w, "<>=");
    const char *op = w + klen;
    int oplen = op[0] == '=' ? 1 : (op[0] && op[1] == '=') ? 2 : 0;
    const char *val = op + oplen;
    int ge = op[0] == '>', eq = op[0] == '=';
    if (klen == 0 || oplen == 0)
        return coll_file_fail(err, errlen,
                           "'%s' is not a condition (ranks<=N, bytes<=SIZE, ppn<=N, nodes=N, "
                           "nodes<=N, nodes>=N); the algorithm comes last",
                           w);
    unsigned bit;
    int n = 0;
    size_t b = 0;
    if (klen == 5 && strncmp(w, "nodes", 5) == 0)
        bit = eq ? SEEN_NODES_MIN | SEEN_NODES_MAX : ge ? SEEN_NODES_MIN : SEEN_NODES_MAX;
    else if (klen == 5 && strncmp(w, "ranks", 5) == 0)
        bit = SEEN_RANKS;
    else if (klen == 5 && strncmp(w, "bytes", 5) == 0)
        bit = SEEN_BYTES;
    else if (klen == 3 && strncmp(w, "ppn", 3) == 0)
        bit = SEEN_PPN;
    else
        return coll_file_fail(err, errlen, "'%s': unknown condition '%.*s' (ranks, "
                           "bytes, ppn, nodes)", w, (int)klen, w);
    if ((ge || eq) && !(bit & (SEEN_NODES_MIN | SEEN_NODES_MAX)))
        return coll_file_fail(err, errlen, "'%s': only nodes takes = and >=; "
                           "ranks, bytes and ppn take <=", w);
    if (*seen & bit)
        return coll_file_fail(err, errlen, "'%s': %.*s is limited twice", w, (int)klen, w);
    *seen |= bit;
    if (bit == SEEN_BYTES ? rmpi_parse_size(val, &b) != RMP_SUCCESS
                          : rmpi_parse_int(val, &n) != RMP_SUCCESS || n < 1)
        return coll_file_fail(err, errlen, "'%s': '%s' is not %s", w, val,
                           bit == SEEN_BYTES ? "a size (bytes, optionally with k, m or g)"
                                             : "a whole number of at least 1");
    if (bit == SEEN_RANKS)
        r->max_ranks = n;
    else if (bit == SEEN_BYTES)
        r->max_bytes = b;
    else if (bit == SEEN_PPN)
        r->max_ppn = n;
    if (bit & SEEN_NODES_MIN)
        r->min_nodes = n;
    if (bit & SEEN_NODES_MAX)
        r->max_nodes = n;
    return RMP_SUCCESS;
}

/* "KIND [conditions...] ALGO". coll_file_catch_all[kind]: line of the kind's row without
 * conditions, after which no row of that kind can ever apply. */
static int coll_file_row(int line, coll_kind_t kind, char **w, int nw, char *err,
                         size_t errlen)
{
    coll_row_t r = {kind, INT_MAX, 1, INT_MAX, INT_MAX, SIZE_MAX, 0};
    unsigned seen = 0;
    const char *algo = w[nw - 1];
    char valid[160];
    if (nw < 2)
        return coll_file_fail(err, errlen, "%s row without an algorithm", w[0]);
    if (strpbrk(algo, "<>="))
        return coll_file_fail(err, errlen,
                           "%s row ends with the condition '%s'; the last word names the "
                           "algorithm", w[0], algo);
    for (int i = 1; i < nw - 1; i++) {
        int rc = coll_file_cond(w[i], &r, &seen, err, errlen);
        if (rc != RMP_SUCCESS)
            return rc;
    }
    if (r.min_nodes > r.max_nodes)
        return coll_file_fail(err, errlen, "nodes>=%d and nodes<=%d never both hold",
                           r.min_nodes, r.max_nodes);
    if (coll_algo_by_name(kind, algo, &r.algo) != RMP_SUCCESS) {
        coll_algo_list(kind, valid, sizeof(valid));
        return coll_file_fail(err, errlen, "unknown %s algorithm '%s' (valid: %s)",
                           w[0], algo, valid);
    }
    if (coll_file_catch_all[kind])
        return coll_file_fail(err, errlen,
                           "this %s row never applies: the row on line %d has no conditions "
                           "and matches every call first", w[0], coll_file_catch_all[kind]);
    if (seen == 0)
        coll_file_catch_all[kind] = line;
    if (coll_file_nrows == COLL_FILE_MAX_ROWS)
        return coll_file_fail(err, errlen, "more than %d collective rows", COLL_FILE_MAX_ROWS);
    coll_file_rows[coll_file_nrows++] = r;
    return RMP_SUCCESS;
}

static int coll_file_claims(const char *word)
{
    coll_kind_t kind;
    return coll_kind_by_name(word, &kind) == RMP_SUCCESS;
}

static void coll_file_begin(void)
{
    coll_file_nrows = 0;
    memset(coll_file_catch_all, 0, sizeof(coll_file_catch_all));
}

static int coll_file_line(int line, char **w, int nw, char *err, size_t errlen)
{
    coll_kind_t kind;
    if (coll_kind_by_name(w[0], &kind) != RMP_SUCCESS)
        return coll_file_fail(err, errlen, "'%s' is not a collective", w[0]);
    return coll_file_row(line, kind, w, nw, err, errlen);
}

static int coll_file_install(char *err, size_t errlen)
{
    return coll_tune_install(coll_file_rows, coll_file_nrows, err, errlen);
}

/* FNV-1a over the rows in force, field by field (no padding bytes). */
static uint64_t coll_file_hash(uint64_t h)
{
    size_t n;
    const coll_row_t *r = coll_tune_rows(&n);
    for (size_t i = 0; i < n; i++) {
        uint64_t f[7] = {(uint64_t)r[i].kind,      (uint64_t)r[i].max_ranks,
                         (uint64_t)r[i].min_nodes, (uint64_t)r[i].max_nodes,
                         (uint64_t)r[i].max_ppn,   (uint64_t)r[i].max_bytes,
                         (uint64_t)r[i].algo};
        for (int k = 0; k < 7; k++)
            for (int byte = 0; byte < 8; byte++)
                h = (h ^ ((f[k] >> (8 * byte)) & 0xff)) * 1099511628211ull;
    }
    return h;
}

const coll_row_t *coll_tune_file_rows(size_t *n)
{
    *n = coll_file_nrows;
    return coll_file_rows;
}

static const rmpi_tune_section_t coll_file_section = {
    .what = "a collective: barrier, bcast, reduce, allreduce, allgather, reduce_scatter, "
            "alltoall",
    .claims = coll_file_claims,
    .begin = coll_file_begin,
    .line = coll_file_line,
    .install = coll_file_install,
    .hash = coll_file_hash,
};

/* Before main (and rmp_init): a tuning file can name collectives whenever the
 * library is loaded. */
__attribute__((constructor)) static void coll_file_register(void)
{
    (void)rmpi_tuning_register(&coll_file_section);
}

/* The order-preserving algorithm for a non-commutative op (coll_tune.h). */
int coll_algo_ordered_user(coll_kind_t kind, int algo, rmp_op_t op, int root)
{
    if (coll_op_commutative(op))
        return algo;
    switch (kind) {
    case COLL_ALLREDUCE:
        return algo == COLL_ALLREDUCE_DIRECT || algo == COLL_ALLREDUCE_SHM ? algo
                                                                           : COLL_ALLREDUCE_RD;
    case COLL_REDUCE: /* binomial combines relative ranks: in order from root 0 only */
        return algo == COLL_REDUCE_BINOMIAL && root == 0 ? algo : COLL_REDUCE_LINEAR;
    case COLL_REDUCE_SCATTER:
        return algo == COLL_RS_SHM ? algo : COLL_RS_DIRECT;
    default:
        return algo;
    }
}
