/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP transport: the interface table, output path, registrations and
 * progress. Connections and parsing live in tcp_conn.c, interface choice in
 * tcp_if.c; the design is in docs/tcp.md.
 *
 * Output: send() writes header and payload with one sendmsg. When the
 * kernel takes nothing it returns RMPI_AGAIN (the core keeps the message
 * queued, in order); when it takes part, the rest is copied into the
 * endpoint's queue and later sends return RMPI_AGAIN until it has left. A
 * PUT payload is queued by reference, and its completion runs from
 * progress() once the last byte is in the kernel. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "param.h"
#include "tcp.h"
#include "tune_default.h"

#define TCP_IOV_MAX 64

typedef struct tcp_params {
    char ifspec[128];
} tcp_params_t;

static tcp_params_t tcp_params;

static const rmpi_param_t tcp_param_table[] = {
    {"RMP_TCP_IF", RMPI_PT_STRING, "", NULL, RMPI_PARAM_STR(tcp_params_t, ifspec),
     "interface name or CIDR for the tcp transport; empty = first non-bridge interface"},
    {NULL, 0, NULL, NULL, 0, 0, NULL},
};

static int tcp_query(const rmpi_tl_args_t *args, char *why, size_t len)
{
    const tcp_params_t *prm = args->params;
    struct in_addr a;
    char name[64];
    int rc = rmpi_tcp_if_pick(prm->ifspec, args->num_nodes <= 1, &a, name, sizeof(name), why,
                              len);
    return rc == RMP_SUCCESS ? RMP_SUCCESS : RMP_ERR_NOT_SUPPORTED;
}

static void tcp_fini(rmpi_tl_t *tl_)
{
    tcp_tl_t *tl = (tcp_tl_t *)tl_;
    if (!tl)
        return;
    for (tcp_conn_t *c = tl->conns; c; c = c->next)
        rmpi_tcp_conn_close(tl, c);
    rmpi_tcp_reap(tl);
    for (int i = 0; tl->eps && i < tl->cap; i++) {
        while (tl->eps[i].qhead) {
            tcp_seg_t *s = tl->eps[i].qhead;
            tl->eps[i].qhead = s->next;
            free(s);
        }
    }
    while (tl->done_head) {
        tcp_seg_t *s = tl->done_head;
        tl->done_head = s->next;
        free(s);
    }
    for (uint32_t i = 0; i < tl->nmrs; i++)
        free(tl->mrs[i]);
    free(tl->mrs);
    if (tl->lfd >= 0)
        close(tl->lfd);
    if (tl->epfd >= 0)
        close(tl->epfd);
    free(tl->eps);
    free(tl);
}

static int tcp_init(const rmpi_tl_args_t *args, rmpi_tl_t **out, rmpi_tl_caps_t *caps)
{
    const tcp_params_t *prm = args->params;
    tcp_tl_t *tl = calloc(1, sizeof(*tl));
    if (!tl)
        return RMP_ERR_NOMEM;
    tl->lfd = tl->epfd = -1;
    tl->cb = args->am;
    tl->peer_failed = args->peer_failed;
    tl->node_of = args->node_of;
    tl->failure_timeout = args->failure_timeout;
    tl->done_tail = &tl->done_head;
    tl->nranks = args->size;
    tl->me = args->rank;
    int rc = RMP_ERR_NOMEM;
    tl->cap = tl->nranks + RMPI_DYN_MAX;
    tl->eps = calloc((size_t)tl->cap, sizeof(*tl->eps));
    if (!tl->eps)
        goto err;
    for (int i = 0; i < tl->cap; i++) {
        tl->eps[i].tl = tl;
        tl->eps[i].base.peer = i;
        tl->eps[i].qtail = &tl->eps[i].qhead;
    }
    char why[256];
    struct in_addr ip;
    rc = rmpi_tcp_if_pick(prm->ifspec, args->num_nodes <= 1, &ip, tl->ifname,
                          sizeof(tl->ifname), why, sizeof(why));
    if (rc != RMP_SUCCESS) {
        rmpi_error("tcp: %s", why);
        rc = RMP_ERR_TRANSPORT;
        goto err;
    }
    if (getrandom(&tl->token, sizeof(tl->token), 0) != sizeof(tl->token))
        tl->token = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(rmpi_now() * 1e9);
    rc = RMP_ERR_TRANSPORT;
    tl->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    tl->self.sin_family = AF_INET;
    tl->self.sin_addr = ip;
    socklen_t slen = sizeof(tl->self);
    if (tl->lfd < 0 || bind(tl->lfd, (struct sockaddr *)&tl->self, sizeof(tl->self)) != 0 ||
        listen(tl->lfd, SOMAXCONN) != 0 ||
        getsockname(tl->lfd, (struct sockaddr *)&tl->self, &slen) != 0) {
        rmpi_error("tcp: cannot listen on %s (%s): %s", inet_ntoa(ip), tl->ifname,
                   strerror(errno));
        goto err;
    }
    tl->epfd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    if (tl->epfd < 0 || epoll_ctl(tl->epfd, EPOLL_CTL_ADD, tl->lfd, &ev) != 0) {
        rmpi_error("tcp: epoll: %s", strerror(errno));
        goto err;
    }
    rmpi_info("tcp: listening on %s:%u (%s)", inet_ntoa(ip), (unsigned)ntohs(tl->self.sin_port),
              tl->ifname);
    caps->max_am = TCP_MAX_AM;
    caps->rndv_threshold = RMPI_TUNE_DEFAULT_TCP_RNDV_THRESHOLD;
    caps->rndv_mode = RMPI_RNDV_PUT;
    caps->intranode_only = false;
    caps->native_atomics = false;
    caps->rma = false; /* put() serves the rendezvous only; windows are emulated */
    tl->base.name = "tcp";
    *out = &tl->base;
    return RMP_SUCCESS;
err:
    tcp_fini(&tl->base);
    return rc;
}

/* "IPv4:PORT/TOKEN" and its NUL. */
static int tcp_get_address(rmpi_tl_t *tl_, void *buf, size_t *len)
{
    tcp_tl_t *tl = (tcp_tl_t *)tl_;
    int n = snprintf(buf, *len, "%s:%u/%016llx", inet_ntoa(tl->self.sin_addr),
                     (unsigned)ntohs(tl->self.sin_port), (unsigned long long)tl->token);
    if (n < 0 || (size_t)n >= *len)
        return RMP_ERR_INTERNAL;
    *len = (size_t)n + 1;
    return RMP_SUCCESS;
}

static int tcp_connect(rmpi_tl_t *tl_, int peer, const void *a, size_t alen, rmpi_ep_t **out,
                       rmpi_tl_caps_t *caps)
{
    tcp_tl_t *tl = (tcp_tl_t *)tl_;
    (void)caps;
    if (peer < 0 || peer >= tl->nranks || peer == tl->me)
        return RMP_ERR_INTERNAL;
    tcp_ep_t *ep = &tl->eps[peer];
    if (rmpi_tcp_addr_decode(a, alen, &ep->addr, &ep->token) != RMP_SUCCESS) {
        rmpi_error("tcp: rank %d published a malformed address", peer);
        return RMP_ERR_BOOTSTRAP;
    }
    ep->known = true;
    rmpi_info("tcp: rank %d (node %d) reached at %s:%u from %s", peer, tl->node_of[peer],
              inet_ntoa(ep->addr.sin_addr), (unsigned)ntohs(ep->addr.sin_port), tl->ifname);
    *out = &ep->base;
    return RMP_SUCCESS;
}

static int tcp_connect_dyn(rmpi_tl_t *tl_, int peer, int me_there, const void *a, size_t alen,
                           rmpi_ep_t **out, rmpi_tl_caps_t *caps)
{
    tcp_tl_t *tl = (tcp_tl_t *)tl_;
    (void)caps;
    if (peer < tl->nranks || peer >= tl->cap || me_there < 0)
        return RMP_ERR_INTERNAL;
    tcp_ep_t *ep = &tl->eps[peer];
    if (rmpi_tcp_addr_decode(a, alen, &ep->addr, &ep->token) != RMP_SUCCESS) {
        rmpi_error("tcp: dynamic peer %d sent a malformed address", peer);
        return RMP_ERR_BOOTSTRAP;
    }
    ep->dyn = true;
    ep->me_there = me_there;
    ep->known = true;
    rmpi_info("tcp: dynamic peer %d (we are its %d) reached at %s:%u", peer, me_there,
              inet_ntoa(ep->addr.sin_addr), (unsigned)ntohs(ep->addr.sin_port));
    *out = &ep->base;
    rmpi_tcp_claim_parked(tl, peer);
    return RMP_SUCCESS;
}

void rmpi_tcp_done(tcp_tl_t *tl, tcp_seg_t *s, int status)
{
    s->status = status;
    s->next = NULL;
    *tl->done_tail = s;
    tl->done_tail = &s->next;
}

static int tcp_run_done(tcp_tl_t *tl)
{
    int n = 0;
    while (tl->done_head) {
        tcp_seg_t *s = tl->done_head;
        tl->done_head = s->next;
        if (!tl->done_head)
            tl->done_tail = &tl->done_head;
        s->cb(s->arg, s->status);
        free(s);
        n++;
    }
    return n;
}

/* Bytes the kernel took (0 when it took none), or -1 when the endpoint
 * failed. */
static ssize_t tcp_writev(tcp_ep_t *ep, struct iovec *iov, size_t cnt)
{
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = cnt};
    for (;;) {
        ssize_t w = sendmsg(ep->conn->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w >= 0)
            return w;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        int e = errno;
        rmpi_tcp_ep_fail(ep, e == EPIPE || e == ECONNRESET ? RMP_ERR_PEER_FAILED
                                                            : RMP_ERR_TRANSPORT,
                         strerror(e));
        return -1;
    }
}

static void tcp_queue(tcp_ep_t *ep, tcp_seg_t *s)
{
    s->next = NULL;
    *ep->qtail = s;
    ep->qtail = &s->next;
    if (!ep->on_flush) {
        ep->on_flush = true;
        ep->next_flush = ep->tl->flush_list;
        ep->tl->flush_list = ep;
    }
}

/* Copy what is left of iov after skip bytes into one queued segment. */
static int tcp_queue_copy(tcp_ep_t *ep, const struct iovec *iov, size_t cnt, size_t skip)
{
    size_t total = 0;
    for (size_t i = 0; i < cnt; i++)
        total += iov[i].iov_len;
    tcp_seg_t *s = malloc(sizeof(*s) + total - skip);
    if (!s)
        return RMP_ERR_NOMEM;
    size_t off = 0;
    for (size_t i = 0; i < cnt; i++) {
        size_t l = iov[i].iov_len;
        const char *b = iov[i].iov_base;
        if (skip >= l) {
            skip -= l;
            continue;
        }
        memcpy(s->data + off, b + skip, l - skip);
        off += l - skip;
        skip = 0;
    }
    s->ptr = s->data;
    s->len = off;
    s->cb = NULL;
    tcp_queue(ep, s);
    return RMP_SUCCESS;
}

int rmpi_tcp_ep_flush(tcp_ep_t *ep)
{
    while (ep->qhead && ep->state == TCP_EP_UP) {
        struct iovec iov[TCP_IOV_MAX];
        size_t cnt = 0, total = 0;
        for (tcp_seg_t *s = ep->qhead; s && cnt < TCP_IOV_MAX; s = s->next) {
            iov[cnt].iov_base = (void *)s->ptr;
            iov[cnt++].iov_len = s->len;
            total += s->len;
        }
        ssize_t w = tcp_writev(ep, iov, cnt);
        if (w < 0)
            return ep->error;
        size_t left = (size_t)w;
        while (ep->qhead && ep->qhead->len <= left) {
            tcp_seg_t *s = ep->qhead;
            left -= s->len;
            ep->qhead = s->next;
            if (s->cb)
                rmpi_tcp_done(ep->tl, s, RMP_SUCCESS);
            else
                free(s);
        }
        if (!ep->qhead)
            ep->qtail = &ep->qhead;
        if (left) {
            ep->qhead->ptr += left;
            ep->qhead->len -= left;
        }
        if ((size_t)w < total)
            break; /* the socket is full */
    }
    return RMP_SUCCESS;
}

/* send/put on an endpoint that is not up: start connecting (lazily). */
static int tcp_not_up(tcp_ep_t *ep)
{
    switch (ep->state) {
    case TCP_EP_FAILED:
        return ep->error;
    case TCP_EP_IDLE:
        if (!ep->known)
            return RMP_ERR_INTERNAL;
        if (rmpi_tcp_ep_connect(ep) != RMP_SUCCESS)
            return ep->error;
        return ep->state == TCP_EP_UP ? RMP_SUCCESS : RMPI_AGAIN;
    default:
        return RMPI_AGAIN;
    }
}

/* Room for a new frame: nothing of an earlier one may be waiting. */
static int tcp_ready(tcp_ep_t *ep)
{
    if (RMPI_UNLIKELY(ep->state != TCP_EP_UP)) {
        int rc = tcp_not_up(ep);
        if (rc != RMP_SUCCESS)
            return rc;
    }
    if (RMPI_UNLIKELY(ep->qhead != NULL)) {
        rmpi_tcp_ep_flush(ep);
        if (ep->state != TCP_EP_UP)
            return ep->error;
        if (ep->qhead)
            return RMPI_AGAIN;
    }
    return RMP_SUCCESS;
}

static int tcp_send(rmpi_ep_t *ep_, const void *hdr, size_t hlen, const void *payload,
                    size_t plen)
{
    tcp_ep_t *ep = (tcp_ep_t *)ep_;
    int rc = tcp_ready(ep);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    if (RMPI_UNLIKELY(hlen == 0 || hlen > TCP_MAX_HLEN || plen > TCP_MAX_AM - hlen)) {
        rmpi_error("tcp: message of %zu + %zu bytes exceeds the limits (%d + %u)", hlen, plen,
                   TCP_MAX_HLEN, TCP_MAX_AM);
        return RMP_ERR_INTERNAL;
    }
    tcp_frame_t f = {TCP_MAGIC, TCP_F_AM, (uint8_t)hlen, 0, plen};
    struct iovec iov[3] = {{&f, sizeof(f)}, {(void *)hdr, hlen}, {(void *)payload, plen}};
    size_t cnt = plen ? 3 : 2;
    ssize_t w = tcp_writev(ep, iov, cnt);
    if (RMPI_LIKELY(w == (ssize_t)(sizeof(f) + hlen + plen)))
        return RMP_SUCCESS;
    if (w < 0)
        return ep->error;
    if (w == 0)
        return RMPI_AGAIN; /* nothing left: the core keeps it */
    return tcp_queue_copy(ep, iov, cnt, (size_t)w);
}

static int tcp_put(rmpi_ep_t *ep_, const void *src, size_t len, uint64_t raddr, uint64_t rkey,
                   rmpi_comp_cb_t cb, void *arg)
{
    tcp_ep_t *ep = (tcp_ep_t *)ep_;
    int rc = tcp_ready(ep);
    if (rc != RMP_SUCCESS)
        return rc;
    tcp_frame_t f = {TCP_MAGIC, TCP_F_PUT, sizeof(tcp_put_hdr_t), 0, len};
    tcp_put_hdr_t p = {raddr, rkey};
    struct iovec iov[3] = {{&f, sizeof(f)}, {&p, sizeof(p)}, {(void *)src, len}};
    size_t hdr = sizeof(f) + sizeof(p);
    /* Allocated first, so that nothing has started when it fails. */
    tcp_seg_t *s = malloc(sizeof(*s));
    if (!s)
        return RMP_ERR_NOMEM;
    ssize_t w = tcp_writev(ep, iov, 3);
    if (w < 0 || (size_t)w == hdr + len) {
        free(s);
        if (w < 0)
            return ep->error;
        cb(arg, RMP_SUCCESS);
        return RMP_SUCCESS;
    }
    /* The payload waits in place; the header, if unsent, is queued first. */
    if ((size_t)w < hdr && tcp_queue_copy(ep, iov, 2, (size_t)w) != RMP_SUCCESS) {
        free(s);
        if (w == 0)
            return RMP_ERR_NOMEM;
        /* Part of a header is on the wire: this stream cannot recover. */
        rmpi_tcp_ep_fail(ep, RMP_ERR_NOMEM, "out of memory");
        return ep->error;
    }
    size_t done = (size_t)w > hdr ? (size_t)w - hdr : 0;
    s->ptr = (const char *)src + done;
    s->len = len - done;
    s->cb = cb;
    s->arg = arg;
    tcp_queue(ep, s);
    return RMP_SUCCESS;
}

/* ---- registrations: what a PUT frame may write ---- */

static int tcp_mem_reg(rmpi_tl_t *tl_, void *addr, size_t len, rmpi_mr_t **out, uint64_t *rkey)
{
    tcp_tl_t *tl = (tcp_tl_t *)tl_;
    struct tcp_mr *mr = tl->mr_free;
    if (mr) {
        tl->mr_free = mr->next_free;
    } else {
        struct tcp_mr **mrs = realloc(tl->mrs, (tl->nmrs + 1) * sizeof(*mrs));
        if (!mrs)
            return RMP_ERR_NOMEM;
        tl->mrs = mrs;
        if (!(mr = calloc(1, sizeof(*mr))))
            return RMP_ERR_NOMEM;
        mr->idx = tl->nmrs;
        tl->mrs[tl->nmrs++] = mr;
    }
    mr->addr = (uint64_t)(uintptr_t)addr;
    mr->len = len;
    /* A generation in the high half: a stale key never matches a reused slot. */
    mr->key = ((uint64_t)(++tl->mr_gen | 1u) << 32) | (mr->idx + 1);
    *out = (rmpi_mr_t *)mr;
    *rkey = mr->key;
    return RMP_SUCCESS;
}

static void tcp_mem_dereg(rmpi_tl_t *tl_, rmpi_mr_t *mr_)
{
    tcp_tl_t *tl = (tcp_tl_t *)tl_;
    struct tcp_mr *mr = (struct tcp_mr *)mr_;
    mr->key = 0;
    mr->next_free = tl->mr_free;
    tl->mr_free = mr;
}

struct tcp_mr *rmpi_tcp_mr_find(tcp_tl_t *tl, uint64_t key, uint64_t addr, uint64_t len)
{
    uint32_t idx = (uint32_t)key - 1;
    if (key == 0 || idx >= tl->nmrs)
        return NULL;
    struct tcp_mr *mr = tl->mrs[idx];
    if (mr->key != key || addr < mr->addr || len > mr->len || addr - mr->addr > mr->len - len)
        return NULL;
    return mr;
}

/* ---- progress ---- */

static int tcp_flush_all(tcp_tl_t *tl)
{
    int n = 0;
    tcp_ep_t **pp = &tl->flush_list;
    while (*pp) {
        tcp_ep_t *ep = *pp;
        if (ep->qhead && ep->state == TCP_EP_UP) {
            rmpi_tcp_ep_flush(ep);
            n++;
        }
        if (!ep->qhead || ep->state != TCP_EP_UP) {
            *pp = ep->next_flush;
            ep->on_flush = false;
        } else {
            pp = &ep->next_flush;
        }
    }
    return n;
}

/* Tell the core about lost peers from here, never from inside send(): it
 * fails their queued sends and receives. */
static void tcp_report_failures(tcp_tl_t *tl)
{
    tl->need_report = false;
    for (int i = 0; i < tl->cap; i++)
        if (tl->eps[i].report) {
            tl->eps[i].report = false;
            tl->peer_failed(i, "tcp connection lost");
        }
}

static int tcp_ep_alive(rmpi_ep_t *ep_)
{
    tcp_ep_t *ep = (tcp_ep_t *)ep_;
    return ep->state == TCP_EP_FAILED ? RMP_ERR_PEER_FAILED : RMP_SUCCESS;
}

static void tcp_describe(const rmpi_tl_args_t *args, void (*line)(const char *text))
{
    const tcp_params_t *prm = args->params;
    char why[256], name[64], text[320];
    struct in_addr a;
    bool one_node = args->num_nodes <= 1;
    if (rmpi_tcp_if_pick(prm->ifspec, false, &a, name, sizeof(name), why, sizeof(why)) ==
        RMP_SUCCESS)
        snprintf(text, sizeof(text), "interface %s (%s)%s", name, inet_ntoa(a),
                 prm->ifspec[0] ? ", from RMP_TCP_IF" : ", for peers on other nodes");
    else
        snprintf(text, sizeof(text), "no interface for other nodes: %s", why);
    line(text);
    if (!prm->ifspec[0] && one_node)
        line("loopback when every rank is on this node");
}

static int tcp_progress(rmpi_tl_t *tl_)
{
    tcp_tl_t *tl = (tcp_tl_t *)tl_;
    int n = 0;
    if (RMPI_UNLIKELY(tl->need_report))
        tcp_report_failures(tl);
    if (tl->flush_list)
        tcp_flush_all(tl);
    /* One peer: read its socket directly (one syscall instead of two), and
     * look at the rest (new connections) every 64th call. */
    if (tl->hot && (++tl->tick & 63) != 0) {
        n += rmpi_tcp_conn_read(tl, tl->hot);
    } else {
        struct epoll_event ev[32];
        int k = epoll_wait(tl->epfd, ev, 32, 0);
        for (int i = 0; i < k; i++) {
            if (!ev[i].data.ptr)
                rmpi_tcp_accept(tl);
            else
                rmpi_tcp_conn_event(tl, ev[i].data.ptr, ev[i].events);
            n++;
        }
    }
    if (tl->need_reap)
        rmpi_tcp_reap(tl);
    if (tl->done_head)
        n += tcp_run_done(tl);
    if (RMPI_UNLIKELY(tl->need_report))
        tcp_report_failures(tl);
    return n;
}

/* Everything send()/put() accepted has left this process. For the core's
 * drain at finalize (see tests/multinode/REQUESTS.md). */
static int tcp_flushed(rmpi_tl_t *tl_)
{
    tcp_tl_t *tl = (tcp_tl_t *)tl_;
    return tl->flush_list || tl->done_head ? RMPI_AGAIN : RMP_SUCCESS;
}

static size_t tcp_max_am_hint(const rmpi_tl_args_t *args)
{
    (void)args;
    return TCP_MAX_AM;
}

const rmpi_tl_iface_t rmpi_tl_tcp = {
    .name = "tcp",
    .default_rndv = RMPI_TUNE_DEFAULT_TCP_RNDV_THRESHOLD,
    .params = tcp_param_table,
    .param_values = &tcp_params,
    .max_am_hint = tcp_max_am_hint,
    .describe = tcp_describe,
    .query = tcp_query,
    .init = tcp_init,
    .get_address = tcp_get_address,
    .connect = tcp_connect,
    .post_connect = NULL,
    .send = tcp_send,
    .mem_reg = tcp_mem_reg,
    .mem_dereg = tcp_mem_dereg,
    .put = tcp_put, /* the rendezvous payload, received in place */
    .get = NULL,
    .atomic = NULL, /* emulated by the target's progress engine (core/rma.c) */
    .flushed = tcp_flushed,
    .ep_alive = tcp_ep_alive,
    .progress = tcp_progress,
    .fini = tcp_fini,
    .connect_dyn = tcp_connect_dyn,
};
