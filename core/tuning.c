/* Tuning files: parse RMP_TUNING_FILE, apply it, and check that every rank of the job
 * runs the same collective table. The format is line based (docs/tuning.md):
 *   version 1
 *   shm rndv_threshold 32k
 *   allreduce ranks<=4 nodes=1 bytes<=256k recursive_doubling
 * Every error names the file and line, so a bad file stops rmp_init with a message the
 * user can act on instead of a job that silently runs untuned. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap.h"
#include "config.h"
#include "log.h"
#include "rmpi.h"
#include "tune_default.h"
#include "tl_registry.h"
#include "tuning.h"

#define TUNING_MAX_WORDS 16

rmpi_tuning_t rmpi_tuning;
const char rmpi_tuning_default_file[] = RMPI_TUNE_DEFAULT_FILE;

/* A transport the tuning file may name (every registered one but self, built or
 * not: one file serves every build), or NULL. */
static const rmpi_tl_entry_t *tuning_tl(const char *name)
{
    const rmpi_tl_entry_t *e = rmpi_tl_lookup(name, strlen(name));
    return e == &rmpi_tl_registry[0] ? NULL : e;
}

static const rmpi_param_t *tuning_param(const rmpi_tl_iface_t *t, const char *name)
{
    for (const rmpi_param_t *p = t->params; p && p->name; p++)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

/* ", buf_bytes": the transport's own keys, for messages. */
static void tuning_keys(const rmpi_tl_entry_t *e, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (const rmpi_tl_tune_key_t *k = e->iface ? e->iface->tune_keys : NULL; k && k->key; k++)
        o += (size_t)snprintf(buf + o, o < len ? len - o : 0, ", %s", k->key);
}

__attribute__((format(printf, 5, 6))) static int
tuning_fail(char *err, size_t errlen, const char *path, int line, const char *fmt, ...)
{
    int o = snprintf(err, errlen, "%s:%d: ", path, line);
    if (o >= 0 && (size_t)o < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + o, errlen - (size_t)o, fmt, ap);
        va_end(ap);
    }
    return RMP_ERR_ARG;
}

/* "shm rndv_threshold 32k", "shm buf_bytes 32k": rndv_threshold for every
 * transport, the rest from the transport's tune_keys. */
static int tuning_p2p(const char *path, int line, char **w, int nw, rmpi_tuning_t *t, char *err,
                      size_t errlen)
{
    const rmpi_tl_entry_t *e = tuning_tl(w[0]);
    int tl = (int)(e - rmpi_tl_registry);
    char keys[128];
    size_t v;
    tuning_keys(e, keys, sizeof(keys));
    if (nw != 3)
        return tuning_fail(err, errlen, path, line,
                           "expected '%s KEY SIZE' (KEY: rndv_threshold%s)", w[0], keys);
    if (strcmp(w[1], "rndv_threshold") == 0) {
        if (rmpi_parse_size(w[2], &v) != RMP_SUCCESS || v == 0)
            return tuning_fail(err, errlen, path, line,
                               "'%s' is not a size above 0 (bytes, optionally with k, m or g)",
                               w[2]);
        t->rndv[tl] = v;
        return RMP_SUCCESS;
    }
    const rmpi_tl_tune_key_t *k = e->iface ? e->iface->tune_keys : NULL;
    while (k && k->key && strcmp(k->key, w[1]) != 0)
        k++;
    const rmpi_param_t *p = k && k->key ? tuning_param(e->iface, k->param) : NULL;
    if (!p)
        return tuning_fail(err, errlen, path, line, "unknown %s setting '%s' (valid: "
                           "rndv_threshold%s)", w[0], w[1], keys);
    /* Parse once here, so that a bad value names the file and line. */
    rmpi_param_t at0 = *p;
    _Alignas(max_align_t) char scratch[512];
    at0.offset = 0;
    if (strlen(w[2]) >= sizeof(t->sets[0].value) || p->size > sizeof(scratch) ||
        rmpi_config_set(scratch, &at0, w[2]) != RMP_SUCCESS ||
        (p->type == RMPI_PT_SIZE && rmpi_parse_size(w[2], &v) == RMP_SUCCESS && v == 0))
        return tuning_fail(err, errlen, path, line, "'%s' is not a valid %s %s (%s)", w[2],
                           w[0], w[1], p->help);
    if (t->nsets == RMPI_TUNE_MAX_SETS)
        return tuning_fail(err, errlen, path, line, "more than %d transport settings",
                           RMPI_TUNE_MAX_SETS);
    rmpi_tune_set_t *set = &t->sets[t->nsets++];
    set->tl = tl;
    set->param = p;
    snprintf(set->value, sizeof(set->value), "%s", w[2]);
    return RMP_SUCCESS;
}

enum { SEEN_RANKS = 1, SEEN_BYTES = 2, SEEN_PPN = 4, SEEN_NODES_MIN = 8, SEEN_NODES_MAX = 16 };

/* One condition of a row: ranks<=N, bytes<=SIZE, ppn<=N, nodes=N, nodes<=N, nodes>=N. */
static int tuning_cond(const char *path, int line, const char *w, coll_row_t *r, unsigned *seen,
                       char *err, size_t errlen)
{
    size_t klen = strcspn(w, "<>=");
    const char *op = w + klen;
    int oplen = op[0] == '=' ? 1 : (op[0] && op[1] == '=') ? 2 : 0;
    const char *val = op + oplen;
    int ge = op[0] == '>', eq = op[0] == '=';
    if (klen == 0 || oplen == 0)
        return tuning_fail(err, errlen, path, line,
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
        return tuning_fail(err, errlen, path, line, "'%s': unknown condition '%.*s' (ranks, "
                           "bytes, ppn, nodes)", w, (int)klen, w);
    if ((ge || eq) && !(bit & (SEEN_NODES_MIN | SEEN_NODES_MAX)))
        return tuning_fail(err, errlen, path, line, "'%s': only nodes takes = and >=; "
                           "ranks, bytes and ppn take <=", w);
    if (*seen & bit)
        return tuning_fail(err, errlen, path, line, "'%s': %.*s is limited twice", w, (int)klen, w);
    *seen |= bit;
    if (bit == SEEN_BYTES ? rmpi_parse_size(val, &b) != RMP_SUCCESS
                          : rmpi_parse_int(val, &n) != RMP_SUCCESS || n < 1)
        return tuning_fail(err, errlen, path, line, "'%s': '%s' is not %s", w, val,
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

/* "KIND [conditions...] ALGO". catch_all[kind]: line of the kind's row without
 * conditions, after which no row of that kind can ever apply. */
static int tuning_row(const char *path, int line, coll_kind_t kind, char **w, int nw,
                      rmpi_tuning_t *t, int *catch_all, char *err, size_t errlen)
{
    coll_row_t r = {kind, INT_MAX, 1, INT_MAX, INT_MAX, SIZE_MAX, 0};
    unsigned seen = 0;
    const char *algo = w[nw - 1];
    char valid[160];
    if (nw < 2)
        return tuning_fail(err, errlen, path, line, "%s row without an algorithm", w[0]);
    if (strpbrk(algo, "<>="))
        return tuning_fail(err, errlen, path, line,
                           "%s row ends with the condition '%s'; the last word names the "
                           "algorithm", w[0], algo);
    for (int i = 1; i < nw - 1; i++) {
        int rc = tuning_cond(path, line, w[i], &r, &seen, err, errlen);
        if (rc != RMP_SUCCESS)
            return rc;
    }
    if (r.min_nodes > r.max_nodes)
        return tuning_fail(err, errlen, path, line, "nodes>=%d and nodes<=%d never both hold",
                           r.min_nodes, r.max_nodes);
    if (coll_algo_by_name(kind, algo, &r.algo) != RMP_SUCCESS) {
        coll_algo_list(kind, valid, sizeof(valid));
        return tuning_fail(err, errlen, path, line, "unknown %s algorithm '%s' (valid: %s)",
                           w[0], algo, valid);
    }
    if (catch_all[kind])
        return tuning_fail(err, errlen, path, line,
                           "this %s row never applies: the row on line %d has no conditions "
                           "and matches every call first", w[0], catch_all[kind]);
    if (seen == 0)
        catch_all[kind] = line;
    if (t->nrows == RMPI_TUNE_MAX_ROWS)
        return tuning_fail(err, errlen, path, line, "more than %d collective rows",
                           RMPI_TUNE_MAX_ROWS);
    t->rows[t->nrows++] = r;
    return RMP_SUCCESS;
}

static int tuning_line(const char *path, int line, char **w, int nw, rmpi_tuning_t *t,
                       int *catch_all, char *err, size_t errlen)
{
    coll_kind_t kind;
    if (strcmp(w[0], "version") == 0) {
        if (nw != 2 || strcmp(w[1], "1") != 0)
            return tuning_fail(err, errlen, path, line,
                               "unsupported version line (this rmp reads 'version 1')");
        return RMP_SUCCESS;
    }
    if (tuning_tl(w[0]))
        return tuning_p2p(path, line, w, nw, t, err, errlen);
    if (coll_kind_by_name(w[0], &kind) == RMP_SUCCESS)
        return tuning_row(path, line, kind, w, nw, t, catch_all, err, errlen);
    return tuning_fail(err, errlen, path, line,
                       "unknown keyword '%s' (expected version; a transport: %s; "
                       "or a collective: barrier, bcast, reduce, allreduce, allgather, "
                       "reduce_scatter, alltoall)", w[0], rmpi_tl_names());
}

int rmpi_tuning_parse(const char *path, rmpi_tuning_t *t, char *err, size_t errlen)
{
    int rc = RMP_SUCCESS, line = 0;
    int catch_all[COLL_NKINDS] = {0};
    char buf[512];
    memset(t, 0, sizeof(*t));
    if (strlen(path) >= sizeof(t->path)) {
        snprintf(err, errlen, "%.64s...: path longer than %zu characters", path,
                 sizeof(t->path) - 1);
        return RMP_ERR_ARG;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return RMP_ERR_ARG;
    }
    while (rc == RMP_SUCCESS && fgets(buf, sizeof(buf), f)) {
        line++;
        size_t len = strlen(buf);
        if (len == sizeof(buf) - 1 && buf[len - 1] != '\n' && !feof(f)) {
            rc = tuning_fail(err, errlen, path, line, "line longer than %zu characters",
                             sizeof(buf) - 2);
            break;
        }
        buf[strcspn(buf, "#")] = '\0';
        char *w[TUNING_MAX_WORDS], *save = NULL;
        int nw = 0;
        for (char *tok = strtok_r(buf, " \t\r\n", &save); tok && rc == RMP_SUCCESS;
             tok = strtok_r(NULL, " \t\r\n", &save)) {
            if (nw == TUNING_MAX_WORDS)
                rc = tuning_fail(err, errlen, path, line, "more than %d words",
                                 TUNING_MAX_WORDS);
            else
                w[nw++] = tok;
        }
        if (rc == RMP_SUCCESS && nw > 0)
            rc = tuning_line(path, line, w, nw, t, catch_all, err, errlen);
    }
    if (rc == RMP_SUCCESS && ferror(f)) {
        snprintf(err, errlen, "%s: read error after line %d", path, line);
        rc = RMP_ERR_ARG;
    }
    fclose(f);
    if (rc == RMP_SUCCESS)
        snprintf(t->path, sizeof(t->path), "%s", path);
    return rc;
}

int rmpi_tuning_load(void)
{
    char err[512];
    int rc = RMP_SUCCESS;
    memset(&rmpi_tuning, 0, sizeof(rmpi_tuning));
    if (rmpi_cfg.tuning_file[0])
        rc = rmpi_tuning_parse(rmpi_cfg.tuning_file, &rmpi_tuning, err, sizeof(err));
    if (rc != RMP_SUCCESS) {
        rmpi_error("RMP_TUNING_FILE: %s", err);
        memset(&rmpi_tuning, 0, sizeof(rmpi_tuning));
        goto out;
    }
    rc = coll_tune_install(rmpi_tuning.rows, rmpi_tuning.nrows, err, sizeof(err));
    if (rc != RMP_SUCCESS) {
        rmpi_error("%s%s%s", rmpi_tuning.path, rmpi_tuning.path[0] ? ": " : "", err);
        goto out;
    }
    for (size_t i = 0; i < rmpi_tuning.nsets; i++) {
        const rmpi_tune_set_t *set = &rmpi_tuning.sets[i];
        const rmpi_tl_iface_t *tl = rmpi_tl_registry[set->tl].iface;
        if (!rmpi_config_from_env(&rmpi_cfg, set->param->name))
            (void)rmpi_config_set(tl->param_values, set->param, set->value);
    }
    if (rmpi_tuning.path[0])
        rmpi_debug("tuning file %s: %zu collective rows ahead of the built-in ones",
                   rmpi_tuning.path, rmpi_tuning.nrows);
out:
    return rc;
}

size_t rmpi_tuning_rndv(const char *tl, size_t dflt, rmpi_from_t *from)
{
    rmpi_from_t f = RMPI_FROM_DEFAULT;
    size_t v = dflt;
    const rmpi_tl_entry_t *e = tuning_tl(tl);
    int i = e ? (int)(e - rmpi_tl_registry) : -1;
    if (rmpi_cfg.rndv_threshold > 0) {
        f = RMPI_FROM_ENV;
        v = rmpi_cfg.rndv_threshold;
    } else if (i >= 0 && rmpi_tuning.rndv[i] > 0) {
        f = RMPI_FROM_FILE;
        v = rmpi_tuning.rndv[i];
    }
    if (from)
        *from = f;
    return v;
}

rmpi_from_t rmpi_tuning_param_from(const char *name)
{
    if (rmpi_config_from_env(&rmpi_cfg, name))
        return RMPI_FROM_ENV;
    for (size_t i = 0; i < rmpi_tuning.nsets; i++)
        if (strcmp(rmpi_tuning.sets[i].param->name, name) == 0)
            return RMPI_FROM_FILE;
    return RMPI_FROM_DEFAULT;
}

const char *rmpi_tuning_from_name(rmpi_from_t from)
{
    switch (from) {
    case RMPI_FROM_ENV: return "environment";
    case RMPI_FROM_FILE: return "tuning file";
    default: return "default";
    }
}

/* FNV-1a over the rows in force, field by field (no padding bytes). */
static uint64_t tuning_hash(void)
{
    size_t n;
    const coll_row_t *r = coll_tune_rows(&n);
    uint64_t h = 1469598103934665603ull;
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

int rmpi_tuning_publish(void)
{
    uint64_t h = tuning_hash();
    return rmpi_boot_put("rmp.tune", &h, sizeof(h));
}

int rmpi_tuning_check(void)
{
    void *data = NULL;
    size_t len = 0;
    if (rmpi_g.rank == 0)
        return RMP_SUCCESS;
    int rc = rmpi_boot_get(0, "rmp.tune", &data, &len);
    if (rc != RMP_SUCCESS)
        goto out;
    uint64_t mine = tuning_hash(), theirs = 0;
    if (len == sizeof(theirs))
        memcpy(&theirs, data, sizeof(theirs));
    if (len != sizeof(theirs) || theirs != mine) {
        rmpi_error("the collective table differs from rank 0's (RMP_TUNING_FILE=%s here): every "
                   "rank must read the same tuning file, or collectives would hang",
                   rmpi_tuning.path[0] ? rmpi_tuning.path : "unset");
        rc = RMP_ERR_ARG;
    }
out:
    free(data);
    return rc;
}
