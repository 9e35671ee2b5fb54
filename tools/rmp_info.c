/* SPDX-License-Identifier: BSD-3-Clause */
/* rmp_info: what this build and this machine offer, and every parameter. */
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

extern char **environ;

#include "engine.h"
#include "bootstrap.h"
#include "collectives/coll_tune.h"
#include "config.h"
#include "proto.h"
#include "rmp_info.h"
#include "rmpi.h"
#include "topo.h"
#include "tl_registry.h"
#include "transport.h"
#include "tuning.h"

static void info_line(const char *text);

static void info_transports(void)
{
    printf("Transports (RMP_TRANSPORTS order; self is always used for a rank's own messages):\n");
    for (int i = 1; i < RMPI_TL_MAX; i++) {
        const rmpi_tl_entry_t *e = &rmpi_tl_registry[i];
        const rmpi_tl_iface_t *t = e->iface;
        char why[256] = "";
        if (!t) {
            printf("  %-6s not built into this library%s\n", e->name,
                   strcmp(e->name, "verbs") == 0 && !RMP_HAVE_VERBS
                       ? " (libibverbs or librdmacm was not found when it was configured)"
                       : "");
            continue;
        }
        rmpi_tl_args_t args;
        rmpi_tl_args_fill(&rmpi_eng, t, &args);
        if (t->query(&args, why, sizeof(why)) == RMP_SUCCESS)
            printf("  %-6s built, usable here\n", e->name);
        else
            printf("  %-6s built, NOT usable here: %s\n", e->name, why);
        if (t->describe) /* also when unusable: a DOWN port or a missing GID shows why */
            t->describe(&args, info_line);
    }
}

static void info_line(const char *text)
{
    printf("      %s\n", text);
}

static const rmpi_tl_iface_t *info_find(const char *name)
{
    const rmpi_tl_entry_t *e = rmpi_tl_lookup(name, strlen(name));
    return e ? e->iface : NULL;
}

/* The current value of parameter name, as text ("" when there is none). */
static void info_param(const char *name, char *buf, size_t len)
{
    rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
    int n = rmpi_config_sets(&rmpi_eng.cfg, sets);
    buf[0] = '\0';
    for (int s = 0; s < n; s++)
        for (const rmpi_param_t *p = sets[s].params; p->name; p++)
            if (strcmp(p->name, name) == 0)
                rmpi_config_format(sets[s].values, p, buf, len);
}

static void info_size(size_t b, char *buf, size_t len)
{
    if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, len, "%zu KiB", b >> 10);
    else
        snprintf(buf, len, "%zu B", b);
}

/* What a job of n ranks on this machine would use, per peer and size. */
static void info_explain(int n)
{
    printf("A job of %d rank(s) on this machine (one node):\n", n);
    printf("  to itself: self (direct copy into the matching receive)\n");
    if (n > 1) {
        const rmpi_tl_iface_t *shm = info_find("shm");
        char why[256] = "", cma[16];
        const char *order = rmpi_eng.cfg.transports;
        rmpi_tl_args_t args;
        if (shm)
            rmpi_tl_args_fill(&rmpi_eng, shm, &args);
        info_param("RMP_SHM_CMA", cma, sizeof(cma));
        if (strstr(order, "shm") && shm && shm->query(&args, why, sizeof(why)) == RMP_SUCCESS) {
            size_t thr = rmpi_tuning_rndv(&rmpi_eng, "shm", shm->default_rndv, NULL);
            char t[32];
            info_size(thr, t, sizeof(t));
            printf("  to the other %d rank(s): shm\n", n - 1);
            printf("    0 B .. < %s: eager through the receiver's inbox (up to 96 B) or a\n"
                   "      pool buffer of the sender (copy in, copy out)\n", t);
            printf("    >= %s: rendezvous, one copy by cross-memory attach (%s); where the\n"
                   "      kernel forbids it, fragments through the pool buffers (two copies)\n",
                   t, strcmp(cma, "off") == 0 ? "disabled by RMP_SHM_CMA=off" : "auto");
            printf("    one-sided: allocated windows mapped (loads/stores, CPU atomics); created\n"
                   "      windows by cross-memory attach, atomics executed by the target\n");
        } else {
            printf("  to the other %d rank(s): the first usable of RMP_TRANSPORTS=%s\n", n - 1,
                   order);
        }
    }
    static const struct {
        coll_kind_t kind;
        const char *name;
    } kinds[] = {{COLL_BARRIER, "barrier"},     {COLL_BCAST, "bcast"},
                 {COLL_REDUCE, "reduce"},       {COLL_ALLREDUCE, "allreduce"},
                 {COLL_ALLGATHER, "allgather"}, {COLL_REDUCE_SCATTER, "reduce_scatter"},
                 {COLL_ALLTOALL, "alltoall"}};
    static const size_t sizes[] = {8, 1024, 65536, 1 << 20, 16 << 20};
    /* One node, then (the collectives where the layout matters) the same ranks on 2 nodes. */
    for (int nodes = 1; nodes <= 2; nodes++) {
        if (nodes == 2 && n < 3)
            break;
        if (nodes == 1)
            printf("Collective algorithms for %d rank(s) on one node, by message size:\n  %-15s",
                   n, "");
        else
            printf("The same %d ranks spread over 2 nodes (hier: node, leaders, node; the\n"
                   "node and leader steps use the one-node table):\n  %-15s",
                   n, "");
        for (size_t j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
            char t[32];
            info_size(sizes[j], t, sizeof(t));
            printf(" %-19s", t);
        }
        printf("\n");
        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
            coll_kind_t k = kinds[i].kind;
            if (nodes == 2 && k != COLL_BARRIER && k != COLL_BCAST && k != COLL_ALLREDUCE)
                continue;
            printf("  %-15s", kinds[i].name);
            for (size_t j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
                int algo = 0;
                if (coll_select(k, sizes[j], n, nodes, &algo) == RMP_SUCCESS)
                    printf(" %-19s", coll_algo_name(k, algo));
                else
                    printf(" %-19s", "(invalid override)");
                if (k == COLL_BARRIER)
                    break;
            }
            printf("\n");
        }
    }
}

/* The point-to-point limits a job would use per transport, and where they come from. */
static void info_thresholds(void)
{
    size_t nrows;
    (void)coll_tune_file_rows(&nrows);
    if (rmpi_eng.tuning.path[0])
        printf("Tuning file: %s (RMP_TUNING_FILE; %zu collective rows ahead of the built-in "
               "ones)\n", rmpi_eng.tuning.path, nrows);
    else if (rmpi_eng.cfg.tuning_file[0])
        printf("Tuning file: %s NOT usable (the error above; rmp_init would fail); built-in "
               "defaults shown\n", rmpi_eng.cfg.tuning_file);
    else
        printf("Tuning file: none (RMP_TUNING_FILE unset); built-in defaults from %s\n",
               rmpi_tuning_default_file);
    printf("Thresholds in force (eager below the rendezvous threshold, up to the largest eager "
           "message):\n");
    for (int i = 1; i < RMPI_TL_MAX; i++) {
        const rmpi_tl_iface_t *t = rmpi_tl_registry[i].iface;
        rmpi_from_t from;
        rmpi_tl_args_t args;
        char thr[32], eager[32];
        if (!t)
            continue;
        rmpi_tl_args_fill(&rmpi_eng, t, &args);
        size_t v = rmpi_tuning_rndv(&rmpi_eng, t->name, t->default_rndv, &from);
        info_size(v, thr, sizeof(thr));
        if (t->max_am_hint)
            info_size(t->max_am_hint(&args) - sizeof(rmpi_hdr_t), eager, sizeof(eager));
        else
            snprintf(eager, sizeof(eager), "?");
        printf("  %-6s rendezvous from %-8s (%s), largest eager message %s\n", t->name, thr,
               from == RMPI_FROM_ENV    ? "environment: RMP_RNDV_THRESHOLD"
               : from == RMPI_FROM_FILE ? "tuning file"
                                        : "default",
               eager);
        /* The transport's own tuning keys, with the parameter each sets. */
        for (const rmpi_tl_tune_key_t *k = t->tune_keys; k && k->key; k++) {
            char cur[64];
            info_param(k->param, cur, sizeof(cur));
            from = rmpi_tuning_param_from(&rmpi_eng, k->param);
            printf("  %-6s %s %s (%s)\n", t->name, k->key, cur,
                   from == RMPI_FROM_ENV    ? "environment"
                   : from == RMPI_FROM_FILE ? "tuning file"
                                            : "default");
        }
    }
}

/* Machine-readable: "KIND NAME..." per collective, from the library's names table
 * (rmp_tune sweeps exactly these). */
static void info_algorithms(void)
{
    for (int k = 0; k < COLL_NKINDS; k++) {
        printf("%s", coll_kind_name((coll_kind_t)k));
        for (int a = 0; strcmp(coll_algo_name((coll_kind_t)k, a), "?") != 0; a++)
            printf(" %s", coll_algo_name((coll_kind_t)k, a));
        printf("\n");
    }
}

/* One key:value a line, stable names (like ompi_info --parsable): scripts read this. */
static void info_parsable(void)
{
    printf("version:%s\n", RMP_VERSION);
    printf("pmix:%s\n", rmpi_boot_version());
    char hv[32];
    rmpi_topo_hwloc_version(hv, sizeof(hv));
    printf("hwloc:%s\n", hv);
    for (int i = 1; i < RMPI_TL_MAX; i++) {
        const rmpi_tl_entry_t *e = &rmpi_tl_registry[i];
        char why[256];
        rmpi_tl_args_t args;
        printf("transport:%s:built:%s\n", e->name, e->iface ? "yes" : "no");
        if (!e->iface)
            continue;
        rmpi_tl_args_fill(&rmpi_eng, e->iface, &args);
        printf("transport:%s:usable:%s\n", e->name,
               e->iface->query(&args, why, sizeof(why)) == RMP_SUCCESS ? "yes" : "no");
    }
    rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
    int n = rmpi_config_sets(&rmpi_eng.cfg, sets);
    for (int s = 0; s < n; s++) {
        for (const rmpi_param_t *p = sets[s].params; p->name; p++) {
            char cur[256];
            rmpi_config_format(sets[s].values, p, cur, sizeof(cur));
            printf("param:%s:owner:%s\n", p->name, sets[s].owner);
            printf("param:%s:default:%s\n", p->name, p->defval);
            printf("param:%s:value:%s\n", p->name, cur);
            if (p->choices)
                printf("param:%s:%s:%s\n", p->name,
                       p->type == RMPI_PT_ENUM || p->type == RMPI_PT_STRING ? "choices"
                                                                             : "range",
                       p->choices);
        }
    }
    for (int k = 0; k < COLL_NKINDS; k++) {
        printf("algorithms:%s:", coll_kind_name((coll_kind_t)k));
        for (int a = 0; strcmp(coll_algo_name((coll_kind_t)k, a), "?") != 0; a++)
            printf("%s%s", a ? "," : "", coll_algo_name((coll_kind_t)k, a));
        printf("\n");
    }
    info_mpi_parsable();
}

/* Each problem with the RMP_* variables on one line, once; the count. */
static void info_report(bool is_error, const char *sentence, void *arg)
{
    (void)arg;
    fprintf(stderr, "rmp: %s: %s\n", is_error ? "error" : "warning", sentence);
}

static void info_params(void)
{
    rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
    int n = rmpi_config_sets(&rmpi_eng.cfg, sets);
    printf("Parameters (environment variables):\n");
    for (int s = 0; s < n; s++) {
        for (const rmpi_param_t *p = sets[s].params; p->name; p++) {
            char cur[256];
            rmpi_config_format(sets[s].values, p, cur, sizeof(cur));
            const char *what = !p->choices ? ""
                               : p->type == RMPI_PT_ENUM || p->type == RMPI_PT_STRING
                                   ? "; one of "
                                   : "; accepted ";
            printf("  %-24s default '%s', current '%s'\n      %s%s%s\n", p->name, p->defval,
                   cur, p->help, what, p->choices ? p->choices : "");
        }
    }
}

static void info_usage(FILE *f)
{
    fprintf(f,
            "usage: rmp_info [--explain [-n N]] [--algorithms] [--parsable] [--check]\n"
            "                [--version] [--help]\n"
            "Prints the version, transports (built, usable here, and why not), RDMA\n"
            "devices with ports and GIDs, topology, the tuning file and thresholds in\n"
            "force, and every RMP_* parameter with default and current value.\n"
            "  --explain      which transport, protocol and collective algorithm a job of N\n"
            "                 ranks on this machine would use for each size class\n"
            "  --algorithms   the algorithm names of each collective, one line each\n"
            "  --parsable     the same facts as key:value lines with stable names\n"
            "  --check        only check the RMP_* variables of the environment: each\n"
            "                 problem on one line, exit status 2 if any (rrun runs this\n"
            "                 before it starts ranks)\n"
            "  --version      the version\n"
            "Exit status: 0; 1 when the configuration or tuning file is refused; 2 for a\n"
            "bad invocation or (--check) a refused configuration.\n");
}

int main(int argc, char **argv)
{
    int explain = 0, algorithms = 0, parsable = 0, check = 0, n = 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            info_usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
            printf("rmp_info (rmp) %s\n", RMP_VERSION);
            return 0;
        } else if (strcmp(argv[i], "--explain") == 0) {
            explain = 1;
        } else if (strcmp(argv[i], "--algorithms") == 0) {
            algorithms = 1;
        } else if (strcmp(argv[i], "--parsable") == 0 || strcmp(argv[i], "--parseable") == 0) {
            parsable = 1;
        } else if (strcmp(argv[i], "--check") == 0) {
            check = 1;
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            n = atoi(argv[++i]);
            if (n < 1) {
                fprintf(stderr, "rmp_info: -n takes a positive number\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--params") != 0) {
            fprintf(stderr, "rmp_info: unknown option '%s'\n", argv[i]);
            info_usage(stderr);
            return 2;
        }
    }
    if (check) /* tuning files are checked by rmp_init, where the file is read */
        return rmpi_config_check_env(environ, &rmpi_eng.cfg, info_report, NULL) ? 2 : 0;
    /* Every problem once, here; the lines below show the values in force. */
    int rc = rmpi_config_check_env(environ, &rmpi_eng.cfg, info_report, NULL) ? RMP_ERR_ARG
                                                                         : RMP_SUCCESS;
    if (rc == RMP_SUCCESS)
        rc = rmpi_tuning_load(&rmpi_eng); /* a bad RMP_TUNING_FILE: the error, then exit status 1 */
    if (algorithms) {
        info_algorithms();
        return 0;
    }
    if (parsable) {
        info_parsable();
        return rc == RMP_SUCCESS ? 0 : 1;
    }
    if (explain) {
        if (rmpi_eng.tuning.path[0])
            printf("Tuning file: %s\n", rmpi_eng.tuning.path);
        info_explain(n);
        return rc == RMP_SUCCESS ? 0 : 1;
    }
    printf("rmp %s\n", RMP_VERSION);
    printf("  PMIx:  %s\n", rmpi_boot_version());
    char hv[32];
    rmpi_topo_hwloc_version(hv, sizeof(hv));
    printf("  hwloc: %s\n", hv);
    char topo[256] = "unknown";
    rmpi_topo_summary(topo, sizeof(topo));
    printf("Topology: %s\n", topo);
    info_transports();
    info_thresholds();
    info_mpi();
    info_params();
    return rc == RMP_SUCCESS ? 0 : 1;
}
