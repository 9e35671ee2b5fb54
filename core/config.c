/* SPDX-License-Identifier: BSD-3-Clause */
/* The RMP_* parameter table and its parser. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "config.h"
#include "log.h"
#include "rmpi.h"
#include "tl_registry.h"

extern char **environ;


#define OFF(f) offsetof(rmpi_config_t, f)
#define STR(f) RMPI_PARAM_STR(rmpi_config_t, f)

const rmpi_param_t rmpi_params[] = {
    {"RMP_LOG", RMPI_PT_ENUM, "warn", "error|warn|info|debug|trace", OFF(log_level), 0,
     "log level; every line is prefixed with the rank"},
    {"RMP_TRANSPORTS", RMPI_PT_STRING, RMPI_TL_DEFAULT_LIST, NULL, STR(transports),
     "transports to use, in order of preference (shm for same-node peers, the first "
     "usable network transport for the others)"},
    {"RMP_RNDV_THRESHOLD", RMPI_PT_SIZE, "0", NULL, OFF(rndv_threshold), 0,
     "message size from which the rendezvous protocol is used; 0 = each transport's "
     "measured default"},
    {"RMP_TIMEOUT", RMPI_PT_DOUBLE, "0", NULL, OFF(timeout), 0,
     "seconds after which a blocking call returns RMP_ERR_TIMEOUT; 0 = wait forever"},
    {"RMP_FAILURE_TIMEOUT", RMPI_PT_DOUBLE, "10", NULL, OFF(failure_timeout), 0,
     "seconds within which a peer on another node that stopped answering is declared "
     "failed (tcp: keepalive and TCP_USER_TIMEOUT; verbs: a zero-byte RDMA write on an "
     "idle connection, acknowledged by the peer's HCA); 0 = off"},
    {"RMP_STATS", RMPI_PT_BOOL, "0", NULL, OFF(stats), 0,
     "print per-rank counters at finalize"},
    {"RMP_RCACHE_MAX_BYTES", RMPI_PT_SIZE, "4g", NULL, OFF(rcache_max_bytes), 0,
     "registered bytes kept in the registration cache before unused regions are evicted"},
    {"RMP_POLL_YIELD", RMPI_PT_ENUM, "auto", "auto|always|never|sleep", OFF(poll_yield), 0,
     "yield the core when polling finds nothing (auto: when ranks outnumber cores; "
     "always: yield, and sleep once idle for 2 ms; sleep: sleep at once, for cores "
     "shared with other jobs or virtual machines)"},
    {"RMP_TUNING_FILE", RMPI_PT_STRING, "", NULL, STR(tuning_file),
     "tuning file written by rmp_tune (thresholds, collective algorithms)"},
    {"RMP_BACKTRACE", RMPI_PT_BOOL, "1", NULL, OFF(backtrace), 0,
     "on a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) a rank prints its "
     "backtrace before it dies"},
    {"RMP_ON_FAILURE", RMPI_PT_ENUM, "abort", "abort|continue", OFF(on_failure), 0,
     "what a rank's death does to the job: abort (the launcher ends it) or continue (the "
     "survivors' calls that involve it return RMP_ERR_PEER_FAILED and they may go on: "
     "rmp_comm_revoke, shrink, agree; rrun --enable-recovery sets it)"},
    {NULL, 0, NULL, NULL, 0, 0, NULL},
};

int rmpi_parse_size(const char *s, size_t *out)
{
    if (s == NULL || !isdigit((unsigned char)*s))
        return RMP_ERR_ARG;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return RMP_ERR_ARG;
    unsigned shift = 0;
    switch (tolower((unsigned char)*end)) {
    case '\0': break;
    case 'k': shift = 10; end++; break;
    case 'm': shift = 20; end++; break;
    case 'g': shift = 30; end++; break;
    default: return RMP_ERR_ARG;
    }
    if (shift && (*end == 'b' || *end == 'B'))
        end++;
    if (*end != '\0')
        return RMP_ERR_ARG;
    if (shift && v > (~0ULL >> shift))
        return RMP_ERR_ARG;
    *out = (size_t)(v << shift);
    return RMP_SUCCESS;
}

int rmpi_parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "y", "yes", "true", "on"};
    static const char *const no[] = {"0", "n", "no", "false", "off"};
    if (s == NULL)
        return RMP_ERR_ARG;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return RMP_SUCCESS;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return RMP_SUCCESS;
        }
    }
    return RMP_ERR_ARG;
}

int rmpi_parse_int(const char *s, int *out)
{
    if (s == NULL || !(isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))))
        return RMP_ERR_ARG;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < -2147483647L - 1 || v > 2147483647L)
        return RMP_ERR_ARG;
    *out = (int)v;
    return RMP_SUCCESS;
}

int rmpi_parse_double(const char *s, double *out)
{
    if (s == NULL || *s == '\0')
        return RMP_ERR_ARG;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v) || v < 0)
        return RMP_ERR_ARG;
    *out = v;
    return RMP_SUCCESS;
}

int rmpi_parse_enum(const char *s, const char *choices, int *out)
{
    if (s == NULL || choices == NULL)
        return RMP_ERR_ARG;
    size_t n = strlen(s);
    int idx = 0;
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == n && strncasecmp(c, s, n) == 0) {
            *out = idx;
            return RMP_SUCCESS;
        }
        if (!bar)
            break;
        c = bar + 1;
        idx++;
    }
    return RMP_ERR_ARG;
}

/* Edit distance, small strings only: a typo in a variable name. */
static size_t config_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (toupper((unsigned char)a[i - 1]) !=
                                 toupper((unsigned char)b[j - 1]));
            size_t best = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            prev = cur;
        }
    }
    return row[lb];
}

static struct {
    const char *owner;
    const rmpi_param_t *params;
    void *values;
} config_modules[RMPI_CONFIG_MAX_MODULES];
static int config_nmodules;

int rmpi_config_register(const char *owner, const rmpi_param_t *params, void *values)
{
    if (config_nmodules == RMPI_CONFIG_MAX_MODULES)
        return RMP_ERR_NOMEM;
    config_modules[config_nmodules].owner = owner;
    config_modules[config_nmodules].params = params;
    config_modules[config_nmodules].values = values;
    config_nmodules++;
    return RMP_SUCCESS;
}

int rmpi_config_sets(rmpi_config_t *cfg, rmpi_param_set_t *sets)
{
    int n = 0;
    sets[n++] = (rmpi_param_set_t){"core", rmpi_params, cfg, &cfg->from_env};
    for (int i = 0; i < RMPI_TL_MAX; i++) {
        const rmpi_tl_iface_t *t = rmpi_tl_registry[i].iface;
        if (t && t->params)
            sets[n++] = (rmpi_param_set_t){t->name, t->params, t->param_values,
                                           &cfg->tl_from_env[i]};
    }
    for (int i = 0; i < config_nmodules; i++)
        sets[n++] = (rmpi_param_set_t){config_modules[i].owner, config_modules[i].params,
                                       config_modules[i].values, &cfg->mod_from_env[i]};
    return n;
}

const char *rmpi_config_suggest(const char *name)
{
    rmpi_config_t scratch; /* only for the table list; nothing is written */
    rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
    int nsets = rmpi_config_sets(&scratch, sets);
    const char *best = NULL;
    size_t bestd = 4;
    for (int s = 0; s < nsets; s++) {
        for (const rmpi_param_t *p = sets[s].params; p->name; p++) {
            size_t d = config_distance(name, p->name);
            if (d < bestd) {
                bestd = d;
                best = p->name;
            }
        }
    }
    return best;
}

/* Does val name one of the '|'-separated choices? (STRING parameters with choices;
 * "" means the default.) */
static bool config_in_choices(const char *val, const char *choices)
{
    int idx;
    return *val == '\0' || rmpi_parse_enum(val, choices, &idx) == RMP_SUCCESS;
}

static const char *config_type_hint(const rmpi_param_t *p)
{
    switch (p->type) {
    case RMPI_PT_BOOL: return "a boolean (0/1, yes/no, true/false, on/off)";
    case RMPI_PT_INT: return "an integer";
    case RMPI_PT_SIZE: return "a size in bytes, optionally with k, m or g";
    case RMPI_PT_DOUBLE: return "a non-negative number";
    case RMPI_PT_ENUM: return p->choices;
    case RMPI_PT_STRING: return "a shorter string";
    }
    return "?";
}

/* A numeric parameter's range "lo..hi" (its choices), parsed as its values are. */
static bool config_range_of(const rmpi_param_t *p, double *lo, double *hi)
{
    const char *dots = p->choices ? strstr(p->choices, "..") : NULL;
    if (p->type == RMPI_PT_ENUM || p->type == RMPI_PT_STRING || !dots)
        return false;
    char a[32], b[32];
    snprintf(a, sizeof(a), "%.*s", (int)(dots - p->choices), p->choices);
    snprintf(b, sizeof(b), "%s", dots + 2);
    const char *ab[2] = {a, b};
    double v[2];
    for (int i = 0; i < 2; i++) {
        size_t z;
        int n;
        if (p->type == RMPI_PT_SIZE && rmpi_parse_size(ab[i], &z) == RMP_SUCCESS)
            v[i] = (double)z;
        else if (p->type == RMPI_PT_INT && rmpi_parse_int(ab[i], &n) == RMP_SUCCESS)
            v[i] = n;
        else if (p->type != RMPI_PT_DOUBLE || rmpi_parse_double(ab[i], &v[i]) != RMP_SUCCESS)
            return false;
    }
    *lo = v[0];
    *hi = v[1];
    return true;
}

/* Parse val into p's place; on failure one sentence in why (may be NULL) naming the
 * variable, the value and what is accepted. */
static int config_set_why(void *values, const rmpi_param_t *p, const char *val, char *why,
                          size_t len)
{
    void *dst = (char *)values + p->offset;
    int rc = RMP_ERR_ARG;
    /* Parsed aside, stored only once accepted: a refused value is never in force. */
    union {
        bool b;
        int i;
        size_t z;
        double d;
    } v;
    double num = 0;
    switch (p->type) {
    case RMPI_PT_BOOL: rc = rmpi_parse_bool(val, &v.b); break;
    case RMPI_PT_INT:
        rc = rmpi_parse_int(val, &v.i);
        num = v.i;
        break;
    case RMPI_PT_SIZE:
        rc = rmpi_parse_size(val, &v.z);
        num = (double)v.z;
        break;
    case RMPI_PT_DOUBLE:
        rc = rmpi_parse_double(val, &v.d);
        num = v.d;
        break;
    case RMPI_PT_ENUM: rc = rmpi_parse_enum(val, p->choices, &v.i); break;
    case RMPI_PT_STRING:
        if (strlen(val) >= p->size)
            break;
        if (p->choices && !config_in_choices(val, p->choices)) {
            if (why)
                snprintf(why, len, "%s=%.64s is not one of %s", p->name, val, p->choices);
            return RMP_ERR_ARG;
        }
        strcpy(dst, val);
        return RMP_SUCCESS;
    }
    if (rc != RMP_SUCCESS) {
        if (why)
            snprintf(why, len, "%s=%.64s%s is malformed: expected %s", p->name, val,
                     strlen(val) > 64 ? "..." : "", config_type_hint(p));
        return RMP_ERR_ARG;
    }
    double lo, hi;
    if (p->choices && p->type != RMPI_PT_ENUM && p->type != RMPI_PT_BOOL) {
        if (!config_range_of(p, &lo, &hi)) {
            if (why)
                snprintf(why, len, "internal: %s has a bad range '%s'", p->name, p->choices);
            return RMP_ERR_INTERNAL;
        }
        if (num < lo || num > hi) {
            if (why)
                snprintf(why, len, "%s=%.64s is out of range: accepted %s", p->name, val,
                         p->choices);
            return RMP_ERR_ARG;
        }
    }
    switch (p->type) {
    case RMPI_PT_BOOL: *(bool *)dst = v.b; break;
    case RMPI_PT_INT:
    case RMPI_PT_ENUM: *(int *)dst = v.i; break;
    case RMPI_PT_SIZE: *(size_t *)dst = v.z; break;
    case RMPI_PT_DOUBLE: *(double *)dst = v.d; break;
    case RMPI_PT_STRING: break;
    }
    return RMP_SUCCESS;
}

int rmpi_config_set(void *values, const rmpi_param_t *p, const char *val)
{
    return config_set_why(values, p, val, NULL, 0);
}

/* Variables the launcher sets for the ranks, and those of the test and benchmark
 * scripts (tools/run-tests, tests/fuzz/run, tests/osu, tests/multinode), are not
 * rmp's knobs. */
static bool config_foreign(const char *name)
{
    static const char *const prefixes[] = {"RMP_RRUN_", "RMP_SKIP_", "RMP_FUZZ_",
                                           "RMP_OSU_",  "RMP_CLUSTER_", "RMP_BENCH_",
                                           "RMP_PERFTEST_", "RMP_RSH_", "RMP_TEST_", "RMP_VM_",
                                           "RMP_MPICH_"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

/* RMP_<TL>_... of a known transport that is not built: its table is not here. */
static const char *config_unbuilt_tl(const char *name)
{
    for (int i = 0; i < RMPI_TL_MAX; i++) {
        const char *tl = rmpi_tl_registry[i].name;
        size_t n = strlen(tl);
        if (rmpi_tl_registry[i].iface || strlen(name) <= 5 + n || name[4 + n] != '_')
            continue;
        if (strncasecmp(name + 4, tl, n) == 0)
            return tl;
    }
    return NULL;
}

/* RMP_TRANSPORTS: a comma-separated list of transport names this library knows. */
static int config_check_transports(const char *list, char *why, size_t len)
{
    for (const char *s = list; *s; s += strcspn(s, ","), s += *s == ',') {
        size_t n = strcspn(s, ",");
        const rmpi_tl_entry_t *te = n ? rmpi_tl_lookup(s, n) : NULL;
        if (n && (!te || te == &rmpi_tl_registry[0])) {
            snprintf(why, len, "RMP_TRANSPORTS=%.64s names an unknown transport '%.*s': "
                     "a comma-separated list of %s", list, (int)(n < 32 ? n : 32), s,
                     rmpi_tl_names());
            return RMP_ERR_ARG;
        }
    }
    return RMP_SUCCESS;
}

int rmpi_config_check_env(char *const *envp, rmpi_config_t *cfg, rmpi_config_report_t report,
                          void *arg)
{
    rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
    char why[512];
    int errors = 0;
    memset(cfg, 0, sizeof(*cfg));
    int nsets = rmpi_config_sets(cfg, sets);
    for (int s = 0; s < nsets; s++) {
        for (const rmpi_param_t *p = sets[s].params; p->name; p++) {
            if (p - sets[s].params >= 64 ||
                config_set_why(sets[s].values, p, p->defval, why, sizeof(why)) != RMP_SUCCESS) {
                if (report)
                    report(true, "internal: a bad default (or over 64 parameters in a table)",
                           arg);
                return 1;
            }
        }
    }
    for (char *const *te = envp; te && *te; te++) {
        if (strncmp(*te, "RMP_", 4) != 0)
            continue;
        const char *eq = strchr(*te, '=');
        if (!eq)
            continue;
        size_t nlen = (size_t)(eq - *te);
        const rmpi_param_t *found = NULL;
        int fs = 0;
        for (int s = 0; s < nsets && !found; s++) {
            for (const rmpi_param_t *p = sets[s].params; p->name; p++) {
                if (strlen(p->name) == nlen && strncmp(p->name, *te, nlen) == 0) {
                    found = p;
                    fs = s;
                    break;
                }
            }
        }
        if (!found) {
            char name[128];
            snprintf(name, sizeof(name), "%.*s", (int)nlen, *te);
            if (config_foreign(name))
                continue;
            const char *tl = config_unbuilt_tl(name), *sugg = rmpi_config_suggest(name);
            if (tl) { /* depends on how the library was built: the job can still run */
                snprintf(why, sizeof(why), "%s is ignored: the %s transport is not built "
                         "into this library", name, tl);
                if (report)
                    report(false, why, arg);
                continue;
            }
            if (sugg)
                snprintf(why, sizeof(why), "%s=%.64s: unknown variable (did you mean %s?)",
                         name, eq + 1, sugg);
            else
                snprintf(why, sizeof(why), "%s=%.64s: unknown variable (rmp_info lists them "
                         "all)", name, eq + 1);
        } else if (config_set_why(sets[fs].values, found, eq + 1, why, sizeof(why)) ==
                       RMP_SUCCESS &&
                   (strcmp(found->name, "RMP_TRANSPORTS") != 0 ||
                    config_check_transports(eq + 1, why, sizeof(why)) == RMP_SUCCESS)) {
            *sets[fs].from_env |= 1ull << (found - sets[fs].params);
            continue;
        }
        errors++;
        if (report)
            report(true, why, arg);
    }
    return errors;
}

typedef struct {
    char *err;
    size_t errlen;
    int nerr;
    void (*warn)(const char *sentence);
} config_first_t;

static void config_keep_first(bool is_error, const char *sentence, void *arg)
{
    config_first_t *f = arg;
    if (is_error && f->nerr++ == 0)
        snprintf(f->err, f->errlen, "%s", sentence);
    else if (!is_error && f->warn)
        f->warn(sentence);
}

int rmpi_config_load_from(char *const *envp, rmpi_config_t *cfg, char *err, size_t errlen,
                          void (*warn)(const char *sentence))
{
    config_first_t f = {err, errlen, 0, warn};
    if (errlen)
        err[0] = '\0';
    return rmpi_config_check_env(envp, cfg, config_keep_first, &f) ? RMP_ERR_ARG
                                                                  : RMP_SUCCESS;
}

bool rmpi_config_from_env(const rmpi_config_t *cfg, const char *name)
{
    rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
    int nsets = rmpi_config_sets((rmpi_config_t *)cfg, sets);
    for (int s = 0; s < nsets; s++)
        for (const rmpi_param_t *p = sets[s].params; p->name; p++)
            if (strcmp(p->name, name) == 0)
                return (*sets[s].from_env >> (p - sets[s].params)) & 1;
    return false;
}

/* Under srun or mpirun every rank checks the same environment: rank 0 (or a rank
 * that cannot tell) says what is wrong, the others only fail. */
static bool config_speaks(void)
{
    static const char *const vars[] = {"PMIX_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
                                       "PMI_RANK"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strcmp(v, "0") == 0;
    }
    return true;
}

static void config_log(bool is_error, const char *sentence, void *arg)
{
    (void)arg;
    if (!config_speaks())
        return;
    if (is_error)
        rmpi_error("%s", sentence);
    else
        rmpi_warn("%s", sentence);
}

int rmpi_config_load(rmpi_engine_t *e)
{
    /* RMP_LOG first, so that warnings about the rest obey it. */
    const char *lv = getenv("RMP_LOG");
    int level;
    if (lv && rmpi_parse_enum(lv, rmpi_params[0].choices, &level) == RMP_SUCCESS)
        rmpi_log_level = level;
    if (rmpi_config_check_env(environ, &e->cfg, config_log, NULL) != 0)
        return RMP_ERR_ARG;
    rmpi_log_level = e->cfg.log_level;
    return RMP_SUCCESS;
}

void rmpi_config_format(const void *values, const rmpi_param_t *p, char *buf, size_t len)
{
    const void *src = (const char *)values + p->offset;
    switch (p->type) {
    case RMPI_PT_BOOL: snprintf(buf, len, "%d", *(const bool *)src); break;
    case RMPI_PT_INT: snprintf(buf, len, "%d", *(const int *)src); break;
    case RMPI_PT_SIZE: snprintf(buf, len, "%zu", *(const size_t *)src); break;
    case RMPI_PT_DOUBLE: snprintf(buf, len, "%g", *(const double *)src); break;
    case RMPI_PT_STRING: snprintf(buf, len, "%s", (const char *)src); break;
    case RMPI_PT_ENUM: {
        int idx = *(const int *)src;
        const char *c = p->choices;
        for (int i = 0; i < idx && c; i++) {
            c = strchr(c, '|');
            if (c)
                c++;
        }
        const char *bar = c ? strchr(c, '|') : NULL;
        snprintf(buf, len, "%.*s", c ? (bar ? (int)(bar - c) : (int)strlen(c)) : 1,
                 c ? c : "?");
        break;
    }
    }
}
