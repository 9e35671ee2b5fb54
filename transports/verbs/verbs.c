/* SPDX-License-Identifier: BSD-3-Clause */
/* The verbs transport: RC queue pairs over libibverbs, connected lazily with
 * librdmacm. This file holds the interface table and the instance's life
 * cycle; docs/verbs.md describes the design. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "param.h"
#include "tune_default.h"
#include "verbs_int.h"

static verbs_params_t verbs_params;

static const rmpi_param_t verbs_param_table[] = {
    {"RMP_VERBS_DEVICE", RMPI_PT_STRING, "", NULL, RMPI_PARAM_STR(verbs_params_t, device),
     "RDMA device and port, as name[:port]; empty = first active port"},
    {"RMP_VERBS_GID_INDEX", RMPI_PT_INT, "-1", "-1..255", RMPI_PARAM_OFF(verbs_params_t, gid_index),
     "GID index on RoCE; -1 = the RoCEv2 IPv4 GID"},
    {NULL, 0, NULL, NULL, 0, 0, NULL},
};

static int verbs_query(const rmpi_tl_args_t *args, char *why, size_t whylen)
{
    return rmpi_verbs_query(args->params, why, whylen);
}

static void verbs_fini(rmpi_tl_t *tl_)
{
    verbs_tl_t *tl = (verbs_tl_t *)tl_;
    if (!tl)
        return;
    rmpi_verbs_cm_fini(tl); /* queue pairs and ids first: they use the CQ and SRQ */
    rmpi_verbs_mr_fini(tl);
    rmpi_verbs_dev_close(tl);
    if (tl->pd)
        ibv_dealloc_pd(tl->pd);
    for (int i = 0; tl->eps && i < tl->neps; i++)
        free(tl->eps[i].ops);
    free(tl->eps);
    free(tl->qpmap);
    if (tl->devlist)
        rdma_free_devices(tl->devlist);
    free(tl);
}

static void verbs_addr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
        port = ntohs(in->sin_port);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
        port = ntohs(in6->sin6_port);
    }
    snprintf(buf, len, "%s port %u", ip, port);
}

/* The listener's address: where peers' rdma_connect goes. */
static int verbs_get_address(rmpi_tl_t *tl_, void *buf, size_t *len)
{
    verbs_tl_t *tl = (verbs_tl_t *)tl_;
    verbs_addr_t a;
    if (*len < sizeof(a))
        return RMP_ERR_INTERNAL;
    memset(&a, 0, sizeof(a));
    struct sockaddr *la = rdma_get_local_addr(tl->listen);
    memcpy(&a.sa, la, la->sa_family == AF_INET ? sizeof(struct sockaddr_in)
                                                : sizeof(struct sockaddr_in6));
    memcpy(buf, &a, sizeof(a));
    *len = sizeof(a);
    return RMP_SUCCESS;
}

static int verbs_init(const rmpi_tl_args_t *args, rmpi_tl_t **out, rmpi_tl_caps_t *caps)
{
    int rc = RMP_ERR_NOMEM;
    verbs_tl_t *tl = calloc(1, sizeof(*tl));
    if (!tl)
        return RMP_ERR_NOMEM;
    tl->cb = args->am;
    tl->peer_failed = args->peer_failed;
    tl->prm = args->params;
    tl->me = args->rank;
    tl->rcache_max_bytes = args->rcache_max_bytes;
    tl->stats = args->stats;
    rmpi_verbs_live_init(tl, args->failure_timeout);
    tl->max_inline = UINT32_MAX;
    tl->neps = args->size;
    size_t cap = 64;
    while (cap < 4 * ((size_t)tl->neps + 16))
        cap *= 2;
    tl->qpmap_mask = cap - 1;
    tl->qpmap = calloc(cap, sizeof(*tl->qpmap));
    tl->eps = calloc((size_t)tl->neps, sizeof(*tl->eps));
    if (!tl->qpmap || !tl->eps)
        goto err;
    for (int i = 0; i < tl->neps; i++) {
        tl->eps[i].tl = tl;
        tl->eps[i].base.peer = i;
    }
    int n = 0;
    tl->devlist = rdma_get_devices(&n);
    char why[256];
    rc = rmpi_verbs_select(tl->prm, tl->devlist, tl->devlist ? n : 0, &tl->sel, why, sizeof(why));
    if (rc != RMP_SUCCESS) {
        rmpi_error("verbs: %s", why);
        rc = RMP_ERR_TRANSPORT;
        goto err;
    }
    if ((rc = rmpi_verbs_cm_init(tl)) != RMP_SUCCESS ||
        (rc = rmpi_verbs_dev_open(tl)) != RMP_SUCCESS ||
        (rc = rmpi_verbs_mr_init(tl)) != RMP_SUCCESS)
        goto err;
    verbs_addr_t a;
    size_t alen = sizeof(a);
    verbs_get_address(&tl->base, &a, &alen);
    char as[96];
    verbs_addr_str(&a.sa, as, sizeof(as));
    rmpi_info("verbs: %s port %u (%s), GID index %d, listening on %s, %d SRQ / %d CQ entries "
              "max",
              tl->sel.dev_name, tl->sel.port,
              tl->sel.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand",
              tl->sel.gid_index, as, tl->srq_size, tl->cq_size);
    caps->max_am = VERBS_BUF_SIZE;
    caps->rndv_threshold = RMPI_TUNE_DEFAULT_VERBS_RNDV_THRESHOLD;
    caps->rndv_mode = RMPI_RNDV_PUT;
    caps->intranode_only = false;
    caps->native_atomics = false; /* docs/verbs.md: why not the NIC's */
    caps->rma = true;
    tl->base.name = "verbs";
    *out = &tl->base;
    return RMP_SUCCESS;
err:
    verbs_fini(&tl->base);
    return rc;
}

static size_t verbs_max_am_hint(const rmpi_tl_args_t *args)
{
    (void)args;
    return VERBS_BUF_SIZE;
}

const rmpi_tl_iface_t rmpi_tl_verbs = {
    .name = "verbs",
    .default_rndv = RMPI_TUNE_DEFAULT_VERBS_RNDV_THRESHOLD,
    .params = verbs_param_table,
    .param_values = &verbs_params,
    .max_am_hint = verbs_max_am_hint,
    .describe = rmpi_verbs_describe,
    .query = verbs_query,
    .init = verbs_init,
    .get_address = verbs_get_address,
    .connect = rmpi_verbs_connect,
    .post_connect = NULL, /* rdma_cm addresses stay valid: peers connect on first use */
    .send = rmpi_verbs_send,
    .mem_reg = rmpi_verbs_mem_reg,
    .mem_dereg = rmpi_verbs_mem_dereg,
    .put = rmpi_verbs_put,
    .get = rmpi_verbs_get,
    .atomic = NULL, /* emulated by the target: NIC atomics are not atomic against its CPU's */
    .flushed = rmpi_verbs_flushed,
    .ep_alive = rmpi_verbs_ep_alive,
    .progress = rmpi_verbs_progress,
    .fini = verbs_fini,
};
