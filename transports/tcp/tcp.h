/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP transport, internal declarations (docs/tcp.md).
 *
 * One connection per peer pair, created on first use. Frames are a 16-byte
 * tcp_frame_t followed by hlen header bytes and plen payload bytes. A PUT
 * frame carries (raddr, rkey) and its payload is received straight into the
 * registered memory (the rendezvous lands in the matched receive buffer). */
#ifndef RMPI_TCP_H
#define RMPI_TCP_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rmpi.h"

#define TCP_MAGIC 0x7452u        /* "Rt" */
#define TCP_MAX_HLEN 128         /* largest header an AM frame may carry */
#define TCP_MAX_AM (1u << 20)    /* largest hlen + plen of one AM frame */
#define TCP_RBUF_MIN 65536       /* initial receive buffer per connection */

enum { TCP_F_AM = 1, TCP_F_PUT = 2, TCP_F_HELLO = 3, TCP_F_ACK = 4 };

typedef struct tcp_frame {
    uint16_t magic;
    uint8_t kind;  /* TCP_F_* */
    uint8_t hlen;  /* header bytes that follow */
    uint32_t reserved;
    uint64_t plen; /* payload bytes after the header */
} tcp_frame_t;     /* 16 B */

typedef struct tcp_put_hdr {
    uint64_t raddr;
    uint64_t rkey;
} tcp_put_hdr_t;

/* First frame on a new connection, from the side that connected. token is
 * the acceptor's secret from its published address: only ranks of this job
 * know it, so a stray process cannot pose as a peer. From a dynamic peer (another
 * job, given the address at connect/accept time) size is TCP_HELLO_DYN and rank the
 * index by which the acceptor knows the connector. */
#define TCP_HELLO_DYN (-1)
typedef struct tcp_hello {
    uint64_t token;
    int32_t rank;
    int32_t size;
} tcp_hello_t;

enum {
    TCP_C_ACCEPTED = 1, /* accepted, waiting for HELLO */
    TCP_C_CONNECTING,   /* our connect() is in progress */
    TCP_C_HELLO_SENT,   /* waiting for ACK */
    TCP_C_UP            /* carries the endpoint's traffic */
};

typedef struct tcp_conn {
    int fd;
    int state;          /* TCP_C_* */
    bool dead;          /* closed; freed by the next reap */
    struct tcp_ep *ep; /* NULL until the peer said who it is */
    int parked;        /* a dynamic peer's index whose HELLO waits for connect_dyn; 0 none */
    struct tcp_conn *next;
    unsigned char *rbuf; /* frames being parsed */
    size_t rcap, rpos, rlen;
    char *put_dst;       /* payload of a PUT read straight into place */
    size_t put_left;
} tcp_conn_t;

/* Bytes of the output stream not yet taken by the kernel: either copied
 * (data[]) or a PUT payload referenced in place (cb called once written). */
typedef struct tcp_seg {
    struct tcp_seg *next;
    const char *ptr;
    size_t len;
    rmpi_comp_cb_t cb;
    void *arg;
    int status;
    char data[];
} tcp_seg_t;

enum { TCP_EP_IDLE = 0, TCP_EP_CONNECTING, TCP_EP_WAIT_PEER, TCP_EP_UP, TCP_EP_FAILED };

typedef struct tcp_tl tcp_tl_t;
typedef struct tcp_ep tcp_ep_t;

struct tcp_ep {
    rmpi_ep_t base; /* first: core's handle; base.peer is the world rank */
    tcp_tl_t *tl;
    int state;    /* TCP_EP_* */
    int error;    /* TCP_EP_FAILED: what send() returns */
    bool known;   /* connect() was called: addr and token are valid */
    bool on_flush;
    bool report;  /* failed; the core is told from progress() */
    bool dyn;     /* a dynamic peer (another job): named by me_there in our HELLO */
    int me_there; /* dyn: the index by which the peer knows us */
    tcp_conn_t *conn; /* the connection in use */
    tcp_conn_t *out;  /* our own attempt while connecting */
    struct sockaddr_in addr;
    uint64_t token;   /* the peer's, sent in our HELLO */
    tcp_seg_t *qhead, **qtail;
    struct tcp_ep *next_flush;
};

struct tcp_mr {
    uint64_t addr, len, key; /* key 0: slot free */
    uint32_t idx;            /* slot in tl->mrs */
    struct tcp_mr *next_free;
};

struct tcp_tl {
    rmpi_tl_t base; /* first: core's handle */
    rmpi_am_cb_t cb;
    void (*peer_failed)(int peer, const char *why);
    const int *node_of;  /* node id per world rank */
    int epfd, lfd;
    uint64_t token;
    struct sockaddr_in self;
    char ifname[64];
    struct tcp_ep *eps; /* by world rank */
    int nranks, me;
    int cap;            /* eps entries: nranks + RMPI_DYN_MAX (dynamic peers) */
    tcp_conn_t *conns;
    int nup;             /* connections in state UP */
    tcp_conn_t *hot;     /* the only UP connection, polled without epoll */
    unsigned tick;
    bool need_reap;
    bool need_report; /* some endpoint has report set */
    struct tcp_ep *flush_list;
    tcp_seg_t *done_head, **done_tail; /* completions to run from progress */
    struct tcp_mr **mrs;              /* registrations by index */
    uint32_t nmrs, mr_gen;
    struct tcp_mr *mr_free;
    double failure_timeout; /* RMP_FAILURE_TIMEOUT (0: off): keepalive on every socket */
};

/* tcp_if.c: pick the interface address. spec is RMP_TCP_IF (name or CIDR,
 * may be empty); loopback_ok when every peer is on this node. */
int rmpi_tcp_if_pick(const char *spec, bool loopback_ok, struct in_addr *addr, char *name,
                     size_t namelen, char *why, size_t whylen);

/* tcp_frame.c: validation of what peers send. */
/* May a frame with header f arrive on a connection in state (TCP_C_*)?
 * RMP_SUCCESS with *need = the stream bytes of header, hlen and (AM only)
 * payload; PUT payloads are bounded by the registration they land in. Else
 * RMP_ERR_TRANSPORT and a reason in *why. */
int rmpi_tcp_frame_check(const tcp_frame_t *f, int state, size_t *need, const char **why);
/* A HELLO from a rank of this job (the acceptor's token, the job size, a
 * rank other than ours)? RMP_SUCCESS or RMP_ERR_TRANSPORT. */
int rmpi_tcp_hello_check(const tcp_hello_t *h, uint64_t token, int nranks, int me);
/* The address a peer published ("IPv4:PORT/TOKEN" and its NUL, alen bytes).
 * RMP_SUCCESS, or RMP_ERR_BOOTSTRAP when it is anything else. */
int rmpi_tcp_addr_decode(const char *a, size_t alen, struct sockaddr_in *sa, uint64_t *token);

/* Does ep's peer win a simultaneous connection (the lower rank's attempt wins)? Dynamic
 * peers have unrelated ranks: the lower token wins (each side knows both). */
static inline bool rmpi_tcp_peer_lower(const tcp_tl_t *tl, const tcp_ep_t *ep)
{
    return ep->dyn ? ep->token < tl->token : ep->base.peer < tl->me;
}

/* tcp_conn.c: connections. */
int rmpi_tcp_ep_connect(tcp_ep_t *ep);
void rmpi_tcp_accept(tcp_tl_t *tl);
/* connect_dyn made peer known: answer the HELLOs it sent before. */
void rmpi_tcp_claim_parked(tcp_tl_t *tl, int peer);
void rmpi_tcp_conn_event(tcp_tl_t *tl, tcp_conn_t *c, uint32_t events);
int rmpi_tcp_conn_read(tcp_tl_t *tl, tcp_conn_t *c);
void rmpi_tcp_conn_close(tcp_tl_t *tl, tcp_conn_t *c);
void rmpi_tcp_ep_fail(tcp_ep_t *ep, int status, const char *why);
void rmpi_tcp_reap(tcp_tl_t *tl);
tcp_conn_t *rmpi_tcp_conn_new(tcp_tl_t *tl, int fd, int state, uint32_t events);

/* tcp.c: output and registrations. */
int rmpi_tcp_ep_flush(tcp_ep_t *ep);
void rmpi_tcp_done(tcp_tl_t *tl, tcp_seg_t *s, int status);
struct tcp_mr *rmpi_tcp_mr_find(tcp_tl_t *tl, uint64_t key, uint64_t addr, uint64_t len);

#endif
