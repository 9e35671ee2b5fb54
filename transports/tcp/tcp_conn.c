/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP connections: lazy connect, handshake, simultaneous-connect resolution,
 * frame parsing and failure handling.
 *
 * Handshake: the connecting side sends HELLO (its rank and the acceptor's
 * token); the acceptor answers ACK and from then on both sides use the
 * connection. No data frame is ever written before ACK, so a connection
 * that loses a race carries nothing. When both ranks connect at once, the
 * connection opened by the lower rank wins: the higher rank's acceptor
 * would have to ACK a connection to a rank that is itself connecting, so
 * the lower rank closes the higher rank's attempt, and the higher rank,
 * seeing its attempt closed before ACK, waits for the lower rank's. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "tcp.h"

/* Options of every connection: no Nagle delay, and liveness within RMP_FAILURE_TIMEOUT.
 * A peer whose node vanished (power, link, kernel) sends no FIN or RST: with keepalive the
 * kernel probes an idle connection and, with TCP_USER_TIMEOUT, also gives up on data left
 * unacknowledged; either way the socket reports ETIMEDOUT, read() returns it, and the
 * peer is failed as on a reset (tcp_conn_lost). Probes and their answers are the kernels'
 * own: a live but busy or descheduled rank still answers them, and a connection that
 * carries data sends no probe at all. */
static void tcp_set_options(tcp_tl_t *tl, int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (tl->failure_timeout <= 0)
        return;
    /* With TCP_USER_TIMEOUT set, Linux ends a connection once nothing came back for that
     * long and a keepalive probe is out (the probe count no longer matters): 80% of the
     * timeout, the rest left for the rank to see the error. Probes from 30% on, every 1 s
     * (whole seconds: the kernel's unit). */
    double t = tl->failure_timeout < 2 ? 2 : tl->failure_timeout;
    int idle = (int)(t * 0.3) > 0 ? (int)(t * 0.3) : 1, intvl = 1, cnt = 10;
    unsigned ms = (unsigned)(t * 800.0);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof(ms));
}

static void tcp_update_hot(tcp_tl_t *tl)
{
    tl->hot = NULL;
    if (tl->nup != 1)
        return;
    for (tcp_conn_t *c = tl->conns; c; c = c->next)
        if (!c->dead && c->state == TCP_C_UP)
            tl->hot = c;
}

tcp_conn_t *rmpi_tcp_conn_new(tcp_tl_t *tl, int fd, int state, uint32_t events)
{
    tcp_conn_t *c = calloc(1, sizeof(*c));
    if (!c) {
        close(fd);
        return NULL;
    }
    c->fd = fd;
    c->state = state;
    struct epoll_event ev = {.events = events, .data.ptr = c};
    if (epoll_ctl(tl->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        rmpi_error("tcp: epoll_ctl: %s", strerror(errno));
        close(fd);
        free(c);
        return NULL;
    }
    c->next = tl->conns;
    tl->conns = c;
    return c;
}

void rmpi_tcp_conn_close(tcp_tl_t *tl, tcp_conn_t *c)
{
    if (c->dead)
        return;
    close(c->fd); /* also leaves the epoll set */
    c->fd = -1;
    c->dead = true;
    tl->need_reap = true;
    if (c->state == TCP_C_UP) {
        tl->nup--;
        tcp_update_hot(tl);
    }
    if (c->ep) {
        if (c->ep->conn == c)
            c->ep->conn = NULL;
        if (c->ep->out == c)
            c->ep->out = NULL;
    }
}

void rmpi_tcp_reap(tcp_tl_t *tl)
{
    tcp_conn_t **pp = &tl->conns;
    while (*pp) {
        tcp_conn_t *c = *pp;
        if (c->dead) {
            *pp = c->next;
            free(c->rbuf);
            free(c);
        } else {
            pp = &c->next;
        }
    }
    tl->need_reap = false;
}

/* The endpoint is unusable from now on: send() returns status, queued puts
 * complete with it (from progress), the error is logged once. */
void rmpi_tcp_ep_fail(tcp_ep_t *ep, int status, const char *why)
{
    tcp_tl_t *tl = ep->tl;
    if (ep->state == TCP_EP_FAILED)
        return;
    /* Another job's process closes its connections when it disconnects or ends: normal. */
    if (ep->dyn)
        rmpi_debug("tcp: connection to dynamic peer %d ended: %s", ep->base.peer, why);
    else
        rmpi_error("tcp: connection to rank %d failed: %s", ep->base.peer, why);
    ep->state = TCP_EP_FAILED;
    ep->error = status;
    ep->report = true;
    tl->need_report = true;
    if (ep->conn)
        rmpi_tcp_conn_close(tl, ep->conn);
    if (ep->out)
        rmpi_tcp_conn_close(tl, ep->out);
    while (ep->qhead) {
        tcp_seg_t *s = ep->qhead;
        ep->qhead = s->next;
        if (s->cb)
            rmpi_tcp_done(tl, s, status);
        else
            free(s);
    }
    ep->qtail = &ep->qhead;
}

/* Frames whose size is known up front; the socket is fresh, so they fit. */
static int tcp_send_small(int fd, int kind, const void *hdr, size_t hlen)
{
    tcp_frame_t f = {TCP_MAGIC, (uint8_t)kind, (uint8_t)hlen, 0, 0};
    struct iovec iov[2] = {{&f, sizeof(f)}, {(void *)hdr, hlen}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = hlen ? 2 : 1};
    ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    return w == (ssize_t)(sizeof(f) + hlen) ? 0 : -1;
}

/* Our attempt to reach ep's peer ended before ACK. rejected: the peer
 * closed it after the TCP connect, which is how a lower rank refuses a
 * higher rank's attempt while its own is under way. */
static void tcp_out_failed(tcp_tl_t *tl, tcp_conn_t *c, bool rejected, const char *why)
{
    tcp_ep_t *ep = c->ep;
    rmpi_tcp_conn_close(tl, c);
    if (ep->state != TCP_EP_CONNECTING)
        return;
    if (rejected && rmpi_tcp_peer_lower(tl, ep)) {
        rmpi_debug("tcp: rank %d refused our connection; waiting for its own", ep->base.peer);
        ep->state = TCP_EP_WAIT_PEER;
        return;
    }
    char msg[160];
    snprintf(msg, sizeof(msg), "cannot connect to %s:%u: %s", inet_ntoa(ep->addr.sin_addr),
             (unsigned)ntohs(ep->addr.sin_port), why);
    rmpi_tcp_ep_fail(ep, RMP_ERR_PEER_FAILED, msg);
}

static void tcp_send_hello(tcp_tl_t *tl, tcp_conn_t *c)
{
    tcp_ep_t *ep = c->ep;
    tcp_hello_t h = {ep->token, ep->dyn ? ep->me_there : tl->me,
                     ep->dyn ? TCP_HELLO_DYN : tl->nranks};
    if (tcp_send_small(c->fd, TCP_F_HELLO, &h, sizeof(h)) != 0) {
        tcp_out_failed(tl, c, false, errno ? strerror(errno) : "short write");
        return;
    }
    c->state = TCP_C_HELLO_SENT;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    epoll_ctl(tl->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

int rmpi_tcp_ep_connect(tcp_ep_t *ep)
{
    tcp_tl_t *tl = ep->tl;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        rmpi_tcp_ep_fail(ep, RMP_ERR_TRANSPORT, strerror(errno));
        return ep->error;
    }
    tcp_set_options(tl, fd);
    /* Leave from the chosen interface's address. */
    struct sockaddr_in src = tl->self;
    src.sin_port = 0;
    bind(fd, (struct sockaddr *)&src, sizeof(src));
    int r = connect(fd, (struct sockaddr *)&ep->addr, sizeof(ep->addr));
    int err = errno;
    tcp_conn_t *c = rmpi_tcp_conn_new(tl, fd, TCP_C_CONNECTING, EPOLLIN | EPOLLOUT);
    if (!c) {
        rmpi_tcp_ep_fail(ep, RMP_ERR_NOMEM, "out of memory");
        return ep->error;
    }
    c->ep = ep;
    ep->out = c;
    ep->state = TCP_EP_CONNECTING;
    if (r == 0)
        tcp_send_hello(tl, c);
    else if (err != EINPROGRESS)
        tcp_out_failed(tl, c, false, strerror(err));
    return ep->state == TCP_EP_FAILED ? ep->error : RMP_SUCCESS;
}

void rmpi_tcp_accept(tcp_tl_t *tl)
{
    for (;;) {
        int fd = accept4(tl->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                rmpi_warn("tcp: accept: %s", strerror(errno));
            return;
        }
        tcp_set_options(tl, fd);
        rmpi_tcp_conn_new(tl, fd, TCP_C_ACCEPTED, EPOLLIN);
    }
}

static void tcp_up(tcp_tl_t *tl, tcp_ep_t *ep, tcp_conn_t *c)
{
    c->ep = ep;
    c->state = TCP_C_UP;
    ep->conn = c;
    ep->state = TCP_EP_UP;
    tl->nup++;
    tcp_update_hot(tl);
    rmpi_debug("tcp: connected to rank %d", ep->base.peer);
}

/* A connection we accepted that does not come from a rank of this job
 * (or is a duplicate) is closed; logged once per process at warn. */
static void tcp_drop_stranger(tcp_tl_t *tl, tcp_conn_t *c, const char *why)
{
    static int warned;
    if (!warned++)
        rmpi_warn("tcp: dropped an incoming connection: %s (further ones at debug level)", why);
    else
        rmpi_debug("tcp: dropped an incoming connection: %s", why);
    rmpi_tcp_conn_close(tl, c);
}

static void tcp_hello_from(tcp_tl_t *tl, tcp_conn_t *c, int rank)
{
    tcp_ep_t *ep = &tl->eps[rank];
    bool accept = ep->state == TCP_EP_IDLE || ep->state == TCP_EP_WAIT_PEER ||
                  (ep->state == TCP_EP_CONNECTING && rmpi_tcp_peer_lower(tl, ep));
    if (!accept) {
        /* Our own attempt wins (we are the lower rank), or a duplicate. */
        rmpi_debug("tcp: refused a second connection from rank %d", rank);
        rmpi_tcp_conn_close(tl, c);
        return;
    }
    if (tcp_send_small(c->fd, TCP_F_ACK, NULL, 0) != 0) {
        rmpi_tcp_conn_close(tl, c);
        return;
    }
    if (ep->out)
        rmpi_tcp_conn_close(tl, ep->out); /* the peer's attempt won */
    tcp_up(tl, ep, c);
}

static void tcp_on_hello(tcp_tl_t *tl, tcp_conn_t *c, const tcp_hello_t *h)
{
    /* A dynamic peer names itself by the index we gave it, which connect_dyn set up. */
    bool dyn = h->size == TCP_HELLO_DYN && h->token == tl->token && h->rank >= tl->nranks &&
               h->rank < tl->cap;
    if (dyn && !tl->eps[h->rank].dyn) {
        /* The other group learnt our addresses first (core/port.c: each group hears the
         * other's from its root) and connected while we still wait for theirs: the
         * HELLO waits for connect_dyn instead of failing the peer's first send. */
        rmpi_debug("tcp: dynamic peer %d connected before we knew it: its HELLO waits",
                   (int)h->rank);
        c->parked = (int)h->rank;
        return;
    }
    if (!dyn && rmpi_tcp_hello_check(h, tl->token, tl->nranks, tl->me) != RMP_SUCCESS) {
        tcp_drop_stranger(tl, c, "bad handshake");
        return;
    }
    tcp_hello_from(tl, c, (int)h->rank);
}

void rmpi_tcp_claim_parked(tcp_tl_t *tl, int peer)
{
    for (tcp_conn_t *c = tl->conns; c; c = c->next)
        if (c->parked == peer && !c->dead) {
            c->parked = 0;
            tcp_hello_from(tl, c, peer);
        }
}

static void tcp_on_ack(tcp_tl_t *tl, tcp_conn_t *c)
{
    tcp_ep_t *ep = c->ep;
    if (ep->state != TCP_EP_CONNECTING || ep->out != c) {
        rmpi_tcp_conn_close(tl, c);
        return;
    }
    ep->out = NULL;
    tcp_up(tl, ep, c);
}

/* A frame that breaks the protocol: close the connection. */
static void tcp_malformed(tcp_tl_t *tl, tcp_conn_t *c, const char *why)
{
    char msg[128];
    snprintf(msg, sizeof(msg), "malformed frame (%s)", why);
    if (c->state == TCP_C_UP)
        rmpi_tcp_ep_fail(c->ep, RMP_ERR_TRANSPORT, msg);
    else if (c->state == TCP_C_ACCEPTED)
        tcp_drop_stranger(tl, c, msg);
    else
        tcp_out_failed(tl, c, false, msg);
}

/* The stream ended or broke (EOF, reset, error). */
static void tcp_conn_lost(tcp_tl_t *tl, tcp_conn_t *c, int err)
{
    const char *why = err ? strerror(err) : "closed by the peer";
    if (c->state == TCP_C_UP) {
        char msg[128];
        snprintf(msg, sizeof(msg), "%s%s", why,
                 c->rlen > c->rpos || c->put_left ? " in the middle of a frame" : "");
        rmpi_tcp_ep_fail(c->ep, RMP_ERR_PEER_FAILED, msg);
    } else if (c->state == TCP_C_ACCEPTED) {
        rmpi_debug("tcp: incoming connection closed before its handshake: %s", why);
        rmpi_tcp_conn_close(tl, c);
    } else {
        tcp_out_failed(tl, c, c->state == TCP_C_HELLO_SENT && (err == 0 || err == ECONNRESET),
                       why);
    }
}

void rmpi_tcp_conn_event(tcp_tl_t *tl, tcp_conn_t *c, uint32_t events)
{
    if (c->dead)
        return;
    if (c->state == TCP_C_CONNECTING) {
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return;
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
            err = errno;
        if (err)
            tcp_out_failed(tl, c, false, strerror(err));
        else
            tcp_send_hello(tl, c);
        return;
    }
    rmpi_tcp_conn_read(tl, c);
}

/* Make room for need bytes from rpos on. */
static int tcp_rbuf_reserve(tcp_conn_t *c, size_t need)
{
    if (c->rpos > 0 && (c->rpos == c->rlen || c->rcap - c->rpos < need)) {
        memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
        c->rlen -= c->rpos;
        c->rpos = 0;
    }
    if (need <= c->rcap)
        return 0;
    size_t cap = c->rcap ? c->rcap : TCP_RBUF_MIN;
    while (cap < need)
        cap *= 2;
    unsigned char *b = realloc(c->rbuf, cap);
    if (!b)
        return -1;
    c->rbuf = b;
    c->rcap = cap;
    return 0;
}

/* Deliver every complete frame in the buffer; returns messages handled. */
static int tcp_parse(tcp_tl_t *tl, tcp_conn_t *c)
{
    int n = 0;
    while (!c->dead && !c->put_left) {
        size_t avail = c->rlen - c->rpos;
        if (avail < sizeof(tcp_frame_t))
            break;
        tcp_frame_t f;
        memcpy(&f, c->rbuf + c->rpos, sizeof(f));
        size_t need;
        const char *why;
        if (rmpi_tcp_frame_check(&f, c->state, &need, &why) != RMP_SUCCESS) {
            tcp_malformed(tl, c, why);
            return n;
        }
        if (avail < need) {
            if (tcp_rbuf_reserve(c, need) != 0)
                rmpi_tcp_ep_fail(c->ep, RMP_ERR_NOMEM, "out of memory for a message");
            break;
        }
        const unsigned char *h = c->rbuf + c->rpos + sizeof(f);
        c->rpos += need;
        switch (f.kind) {
        case TCP_F_AM: {
            /* Core headers hold 64-bit fields: hand them over aligned. */
            uint64_t hdr[TCP_MAX_HLEN / 8];
            memcpy(hdr, h, f.hlen);
            tl->cb(c->ep->base.peer, hdr, f.hlen, h + f.hlen, (size_t)f.plen);
            n++;
            break;
        }
        case TCP_F_PUT: {
            tcp_put_hdr_t p;
            memcpy(&p, h, sizeof(p));
            if (!rmpi_tcp_mr_find(tl, p.rkey, p.raddr, f.plen)) {
                tcp_malformed(tl, c, "put outside registered memory");
                return n;
            }
            size_t have = c->rlen - c->rpos;
            size_t now = f.plen < have ? (size_t)f.plen : have;
            memcpy((void *)(uintptr_t)p.raddr, c->rbuf + c->rpos, now);
            c->rpos += now;
            c->put_dst = (char *)(uintptr_t)p.raddr + now;
            c->put_left = (size_t)f.plen - now;
            n++;
            break;
        }
        case TCP_F_HELLO: {
            tcp_hello_t hello;
            memcpy(&hello, h, sizeof(hello));
            tcp_on_hello(tl, c, &hello);
            break;
        }
        case TCP_F_ACK:
            tcp_on_ack(tl, c);
            break;
        }
    }
    return n;
}

/* Read what the socket has (bounded, for fairness) and deliver it. A PUT
 * payload goes from the socket straight into its destination. */
int rmpi_tcp_conn_read(tcp_tl_t *tl, tcp_conn_t *c)
{
    int n = 0;
    for (int iter = 0; iter < 16 && !c->dead; iter++) {
        char *dst;
        size_t want;
        if (c->put_left) {
            dst = c->put_dst;
            want = c->put_left;
        } else {
            if (c->rpos == c->rlen)
                c->rpos = c->rlen = 0;
            if (c->rlen == c->rcap && tcp_rbuf_reserve(c, c->rcap - c->rpos + 1) != 0) {
                rmpi_tcp_ep_fail(c->ep, RMP_ERR_NOMEM, "out of memory for a message");
                break;
            }
            dst = (char *)c->rbuf + c->rlen;
            want = c->rcap - c->rlen;
        }
        ssize_t r = read(c->fd, dst, want);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                tcp_conn_lost(tl, c, errno);
            break;
        }
        if (r == 0) {
            tcp_conn_lost(tl, c, 0);
            break;
        }
        if (c->put_left) {
            c->put_dst += r;
            c->put_left -= (size_t)r;
            if (c->put_left)
                continue;
        } else {
            c->rlen += (size_t)r;
        }
        n += tcp_parse(tl, c);
        if ((size_t)r < want && !c->put_left)
            break; /* the socket is empty: spare the read that would say so */
    }
    return n;
}
