/* SPDX-License-Identifier: BSD-3-Clause */
/* Device, port and GID selection, and the per-instance verbs objects (PD, CQ,
 * SRQ). rdma_cm names a device by an IP address, so the chosen GID is turned
 * into the address the listener binds to: the IPv4 address inside a RoCEv2
 * IPv4-mapped GID on Ethernet, the IPoIB interface's address on InfiniBand. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "verbs_int.h"

static int dev_gid_is_v4(const union ibv_gid *g)
{
    static const uint8_t pre[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return memcmp(g->raw, pre, sizeof(pre)) == 0;
}

static void dev_gid_to_ip(const struct ibv_gid_entry *e, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof(*ss));
    if (dev_gid_is_v4(&e->gid)) {
        struct sockaddr_in *in = (struct sockaddr_in *)ss;
        in->sin_family = AF_INET;
        memcpy(&in->sin_addr, e->gid.raw + 12, 4);
    } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
        in6->sin6_family = AF_INET6;
        memcpy(&in6->sin6_addr, e->gid.raw, 16);
        if (e->gid.raw[0] == 0xfe && (e->gid.raw[1] & 0xc0) == 0x80)
            in6->sin6_scope_id = e->ndev_ifindex;
    }
}

/* InfiniBand: rdma_cm needs the IPv4 address of the port's IPoIB interface. */
static int dev_ipoib_addr(const char *dev, struct sockaddr_storage *ss)
{
    char path[256];
    snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/net", dev);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct ifaddrs *ifs = NULL;
    int found = -1;
    if (getifaddrs(&ifs) == 0) {
        struct dirent *de;
        while (found < 0 && (de = readdir(d))) {
            for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
                if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
                    strcmp(i->ifa_name, de->d_name) == 0) {
                    memset(ss, 0, sizeof(*ss));
                    memcpy(ss, i->ifa_addr, sizeof(struct sockaddr_in));
                    found = 0;
                    break;
                }
        }
        freeifaddrs(ifs);
    }
    closedir(d);
    return found;
}

/* Pick the GID of an active port: RMP_VERBS_GID_INDEX, else the first RoCEv2
 * IPv4-mapped GID on Ethernet (then any RoCEv2, then any IPv4-mapped one). */
static int dev_pick_gid(const verbs_params_t *prm, struct ibv_context *ctx, uint8_t port, const struct ibv_port_attr *pa,
                        verbs_sel_t *sel, char *why, size_t whylen)
{
    const char *name = ibv_get_device_name(ctx->device);
    struct ibv_gid_entry e, best;
    int have = 0, rank_best = 99;
    if (pa->link_layer != IBV_LINK_LAYER_ETHERNET) {
        int idx = prm->gid_index >= 0 ? prm->gid_index : 0;
        if (ibv_query_gid(ctx, port, idx, &sel->gid) != 0) {
            snprintf(why, whylen, "%s:%u has no GID index %d", name, port, idx);
            return RMP_ERR_NOT_SUPPORTED;
        }
        if (dev_ipoib_addr(name, &sel->ip) != 0) {
            snprintf(why, whylen,
                     "%s:%u is InfiniBand but no IPoIB interface of it has an IPv4 address "
                     "(rdma_cm needs one)",
                     name, port);
            return RMP_ERR_NOT_SUPPORTED;
        }
        sel->gid_index = idx;
        return RMP_SUCCESS;
    }
    int lo = 0, hi = pa->gid_tbl_len;
    if (prm->gid_index >= 0) {
        lo = prm->gid_index;
        hi = lo + 1;
    }
    for (int i = lo; i < hi; i++) {
        if (ibv_query_gid_ex(ctx, port, (uint32_t)i, &e, 0) != 0)
            continue;
        int r = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? (dev_gid_is_v4(&e.gid) ? 0 : 1)
                                                   : (dev_gid_is_v4(&e.gid) ? 2 : 3);
        if (prm->gid_index >= 0)
            r = 0;
        if (r < rank_best && r < 3) {
            best = e;
            rank_best = r;
            have = 1;
        }
    }
    if (!have) {
        if (prm->gid_index >= 0)
            snprintf(why, whylen, "%s:%u has no usable GID at RMP_VERBS_GID_INDEX=%d", name,
                     port, prm->gid_index);
        else
            snprintf(why, whylen, "%s:%u has no GID with an IP address (is the netdev up?)",
                     name, port);
        return RMP_ERR_NOT_SUPPORTED;
    }
    sel->gid = best.gid;
    sel->gid_index = (int)best.gid_index;
    dev_gid_to_ip(&best, &sel->ip);
    return RMP_SUCCESS;
}

int rmpi_verbs_select(const verbs_params_t *prm, struct ibv_context **ctxs, int n,
                      verbs_sel_t *sel, char *why, size_t whylen)
{
    char want[sizeof(prm->device)];
    int want_port = 0;
    snprintf(want, sizeof(want), "%s", prm->device);
    char *colon = strchr(want, ':');
    if (colon) {
        *colon = '\0';
        want_port = atoi(colon + 1);
        if (want_port <= 0 || want_port > 255) {
            snprintf(why, whylen, "RMP_VERBS_DEVICE=%s: bad port number", prm->device);
            return RMP_ERR_ARG;
        }
    }
    if (n == 0) {
        snprintf(why, whylen, "no RDMA device found (no InfiniBand/RoCE adapter, or no kernel "
                              "RDMA support)");
        return RMP_ERR_NOT_SUPPORTED;
    }
    snprintf(why, whylen, "no active port on any RDMA device");
    int seen = 0;
    for (int d = 0; d < n; d++) {
        const char *name = ibv_get_device_name(ctxs[d]->device);
        if (want[0] && strcmp(name, want) != 0)
            continue;
        seen = 1;
        struct ibv_device_attr da;
        if (ibv_query_device(ctxs[d], &da) != 0)
            continue;
        for (uint8_t p = 1; p <= da.phys_port_cnt; p++) {
            struct ibv_port_attr pa;
            if (want_port && p != want_port)
                continue;
            if (ibv_query_port(ctxs[d], p, &pa) != 0)
                continue;
            if (pa.state != IBV_PORT_ACTIVE) {
                snprintf(why, whylen, "%s:%u is %s, not active", name, p,
                         ibv_port_state_str(pa.state));
                continue;
            }
            memset(sel, 0, sizeof(*sel));
            if (dev_pick_gid(prm, ctxs[d], p, &pa, sel, why, whylen) != RMP_SUCCESS)
                continue;
            snprintf(sel->dev_name, sizeof(sel->dev_name), "%s", name);
            sel->port = p;
            sel->link_layer = pa.link_layer;
            return RMP_SUCCESS;
        }
    }
    if (want[0] && !seen)
        snprintf(why, whylen, "RMP_VERBS_DEVICE=%s: no such RDMA device", prm->device);
    return RMP_ERR_NOT_SUPPORTED;
}

/* Side-effect free: open every device, look for a usable port, close again. */
int rmpi_verbs_query(const verbs_params_t *prm, char *why, size_t whylen)
{
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list) {
        snprintf(why, whylen, "no RDMA device found (ibv_get_device_list: %s)", strerror(errno));
        return RMP_ERR_NOT_SUPPORTED;
    }
    struct ibv_context **ctxs = calloc((size_t)n + 1, sizeof(*ctxs));
    int m = 0;
    for (int i = 0; ctxs && i < n; i++)
        if ((ctxs[m] = ibv_open_device(list[i])))
            m++;
    verbs_sel_t sel;
    int rc = ctxs ? rmpi_verbs_select(prm, ctxs, m, &sel, why, whylen) : RMP_ERR_NOMEM;
    if (rc == RMP_SUCCESS && m == 0)
        rc = RMP_ERR_NOT_SUPPORTED;
    if (rc == RMP_SUCCESS && access("/dev/infiniband/rdma_cm", R_OK | W_OK) != 0) {
        snprintf(why, whylen, "/dev/infiniband/rdma_cm is not usable (%s): rdma_ucm module?",
                 strerror(errno));
        rc = RMP_ERR_NOT_SUPPORTED;
    }
    for (int i = 0; i < m; i++)
        ibv_close_device(ctxs[i]);
    free(ctxs);
    ibv_free_device_list(list);
    return rc == RMP_ERR_ARG ? RMP_ERR_NOT_SUPPORTED : rc;
}

static const char *dev_port_state(enum ibv_port_state st)
{
    switch (st) {
    case IBV_PORT_DOWN: return "DOWN";
    case IBV_PORT_INIT: return "INIT";
    case IBV_PORT_ARMED: return "ARMED";
    case IBV_PORT_ACTIVE: return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
    default: return "NOP";
    }
}

/* The port's GID table: index, type, address, and the netdev of RoCE GIDs. Empty slots
 * (ibv_query_gid_ex fails with ENODATA) are skipped. */
static void dev_describe_gids(struct ibv_context *c, uint8_t port, const struct ibv_port_attr *pa,
                              void (*line)(const char *text))
{
    char text[320], addr[INET6_ADDRSTRLEN], ifname[IF_NAMESIZE];
    int shown = 0;
    for (int i = 0; i < pa->gid_tbl_len; i++) {
        struct ibv_gid_entry e;
        if (ibv_query_gid_ex(c, port, (uint32_t)i, &e, 0) != 0)
            continue;
        const char *type = e.gid_type == IBV_GID_TYPE_ROCE_V2   ? "RoCEv2"
                           : e.gid_type == IBV_GID_TYPE_ROCE_V1 ? "RoCEv1"
                                                                : "IB";
        inet_ntop(AF_INET6, e.gid.raw, addr, sizeof(addr)); /* IPv4 GIDs: ::ffff:a.b.c.d */
        ifname[0] = '\0';
        if (e.ndev_ifindex && !if_indextoname(e.ndev_ifindex, ifname))
            ifname[0] = '\0';
        snprintf(text, sizeof(text), "  GID %d %-6s %s%s%s%s", (int)e.gid_index, type, addr,
                 ifname[0] ? " (" : "", ifname, ifname[0] ? ")" : "");
        line(text);
        shown++;
    }
    if (!shown)
        line("  no GID (on RoCE: is the netdev up with an address?)");
}

/* rmp_info: every device and port with its GIDs, and which one rmp would use. */
void rmpi_verbs_describe(const rmpi_tl_args_t *args, void (*line)(const char *text))
{
    const verbs_params_t *prm = args->params;
    char text[320];
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list || n == 0) {
        line("no RDMA device");
        if (list)
            ibv_free_device_list(list);
        return;
    }
    struct ibv_context **ctxs = calloc((size_t)n, sizeof(*ctxs));
    int m = 0;
    for (int i = 0; ctxs && i < n; i++) {
        struct ibv_context *c = ibv_open_device(list[i]);
        struct ibv_device_attr da;
        if (!c)
            continue;
        ctxs[m++] = c;
        if (ibv_query_device(c, &da) != 0)
            continue;
        for (uint8_t p = 1; p <= da.phys_port_cnt; p++) {
            struct ibv_port_attr pa;
            if (ibv_query_port(c, p, &pa) != 0)
                continue;
            snprintf(text, sizeof(text),
                     "%s:%u state %s, link layer %s, MTU %d, %d GID slots, atomics %s",
                     ibv_get_device_name(list[i]), p, dev_port_state(pa.state),
                     pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet (RoCE)" : "InfiniBand",
                     128 << pa.active_mtu, pa.gid_tbl_len,
                     da.atomic_cap == IBV_ATOMIC_NONE ? "no" : "yes");
            line(text);
            dev_describe_gids(c, p, &pa, line);
        }
    }
    verbs_sel_t sel;
    char why[256];
    if (ctxs && rmpi_verbs_select(prm, ctxs, m, &sel, why, sizeof(why)) == RMP_SUCCESS) {
        char ip[INET6_ADDRSTRLEN] = "?";
        if (sel.ip.ss_family == AF_INET)
            inet_ntop(AF_INET, &((struct sockaddr_in *)&sel.ip)->sin_addr, ip, sizeof(ip));
        else
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sel.ip)->sin6_addr, ip, sizeof(ip));
        snprintf(text, sizeof(text), "would use %s:%u, GID index %d, rdma_cm address %s",
                 sel.dev_name, sel.port, sel.gid_index, ip);
    } else {
        snprintf(text, sizeof(text), "none usable: %s", why);
    }
    line(text);
    for (int i = 0; i < m; i++)
        ibv_close_device(ctxs[i]);
    free(ctxs);
    ibv_free_device_list(list);
}

/* PD, CQ and SRQ on the context rdma_cm bound the listener to. The CQ holds
 * every completion that can be outstanding: the SRQ plus each peer's send queue. */
int rmpi_verbs_dev_open(verbs_tl_t *tl)
{
    if (ibv_query_device(tl->ctx, &tl->dattr) != 0) {
        rmpi_error("verbs: ibv_query_device(%s): %s", tl->sel.dev_name, strerror(errno));
        return RMP_ERR_TRANSPORT;
    }
    struct ibv_port_attr pa;
    if (ibv_query_port(tl->ctx, tl->sel.port, &pa) != 0) {
        rmpi_error("verbs: ibv_query_port(%s:%u): %s", tl->sel.dev_name, tl->sel.port,
                   strerror(errno));
        return RMP_ERR_TRANSPORT;
    }
    tl->max_msg = pa.max_msg_sz ? pa.max_msg_sz : (1u << 30);
    tl->rd_atom = (uint8_t)(tl->dattr.max_qp_rd_atom < 16 ? tl->dattr.max_qp_rd_atom : 16);
    long peers = tl->neps > 1 ? tl->neps - 1 : 1;
    long srq = peers * (VERBS_CREDITS + VERBS_CREDIT_SPARE) + 2 * VERBS_RECV_BATCH;
    if (srq > tl->dattr.max_srq_wr)
        srq = tl->dattr.max_srq_wr;
    long cqe = srq + peers * VERBS_SQ_DEPTH + 64;
    if (cqe > tl->dattr.max_cqe)
        cqe = tl->dattr.max_cqe;
    tl->srq_size = (int)srq;
    tl->cq_size = (int)cqe;
    if (!(tl->pd = ibv_alloc_pd(tl->ctx))) {
        rmpi_error("verbs: ibv_alloc_pd: %s", strerror(errno));
        return RMP_ERR_TRANSPORT;
    }
    if (!(tl->cq = ibv_create_cq(tl->ctx, tl->cq_size, tl, NULL, 0))) {
        rmpi_error("verbs: ibv_create_cq(%d): %s", tl->cq_size, strerror(errno));
        return errno == ENOMEM ? RMP_ERR_NOMEM : RMP_ERR_TRANSPORT;
    }
    struct ibv_srq_init_attr sa;
    memset(&sa, 0, sizeof(sa));
    sa.attr.max_wr = (uint32_t)tl->srq_size;
    sa.attr.max_sge = 1;
    if (!(tl->srq = ibv_create_srq(tl->pd, &sa))) {
        rmpi_error("verbs: ibv_create_srq(%d): %s", tl->srq_size, strerror(errno));
        return errno == ENOMEM ? RMP_ERR_NOMEM : RMP_ERR_TRANSPORT;
    }
    return RMP_SUCCESS;
}

void rmpi_verbs_dev_close(verbs_tl_t *tl)
{
    if (tl->srq)
        ibv_destroy_srq(tl->srq);
    if (tl->cq)
        ibv_destroy_cq(tl->cq);
    tl->srq = NULL;
    tl->cq = NULL;
    /* The PD goes last, after the memory registrations (rmpi_verbs_mr_fini). */
}
