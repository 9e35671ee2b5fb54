/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal declarations of the verbs transport (RC queue pairs over libibverbs,
 * connections with librdmacm). docs/verbs.md describes the design; the contract
 * is core/api/transport.h. Only files of this folder include this header, and only
 * they talk libibverbs/librdmacm. */
#ifndef RMPI_VERBS_INT_H
#define RMPI_VERBS_INT_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>

#include "rcache.h"
#include "rmpi.h"
#include "verbs_wire.h"

enum {
    VERBS_CREDITS = 64,       /* eager messages one peer may have in flight to us */
    VERBS_CREDIT_SPARE = 4,   /* extra SRQ buffers per peer for credit-only messages */
    VERBS_RECV_BATCH = 16,    /* consumed receive buffers are reposted this many at once */
    VERBS_BUF_SIZE = 8192 + 64, /* eager buffer: the largest hlen + plen */
    VERBS_SQ_DEPTH = 256,     /* send work requests outstanding per QP */
    VERBS_SIGNAL_EVERY = 16,  /* an inline send without resources is signalled this often */
    VERBS_SEND_BUFS = 512,    /* registered bounce buffers for non-inline eager sends */
    VERBS_INLINE_WANT = 256,
    VERBS_POLL_BATCH = 32,
    VERBS_CM_POLL_EVERY = 256, /* progress calls between rdma_cm polls when idle */
    VERBS_CONNECT_TRIES = 4,
    VERBS_CM_TIMEOUT_MS = 5000,
    VERBS_ACK_TIMEOUT = 14,   /* 4.096 us * 2^14 = 67 ms per try (perftest's), 7 tries */
    VERBS_ACK_TIMEOUT_MIN = 8, /* 1 ms per try: the shortest verbs_live.c picks */
    VERBS_RETRY_CNT = 7,      /* transport retries after the first try (the field's max) */
    /* RDMA WRITE/READ is posted in pieces of at most VERBS_RDMA_CHUNK bytes, with at most
     * VERBS_RDMA_WINDOW bytes of them in flight per queue pair (verbs_rdma.c: why). */
    VERBS_RDMA_CHUNK = 128 * 1024,
    VERBS_RDMA_WINDOW = VERBS_RDMA_CHUNK,
};

/* The chosen device, port and GID, and the IP address that names them for rdma_cm. */
typedef struct verbs_sel {
    char dev_name[IBV_SYSFS_NAME_MAX];
    uint8_t port;
    int gid_index;
    int link_layer;
    union ibv_gid gid;
    struct sockaddr_storage ip;
} verbs_sel_t;

/* A registered buffer of VERBS_BUF_SIZE bytes (eager send bounce or SRQ receive). */
typedef struct verbs_buf {
    struct verbs_buf *next;
    char *data;
    uint32_t lkey;
} verbs_buf_t;

/* One registered allocation holding many buffers. */
typedef struct verbs_chunk {
    struct verbs_chunk *next;
    void *mem;
    size_t len;
    struct ibv_mr *mr;
    verbs_buf_t *bufs;
} verbs_chunk_t;

/* The handle rcache keeps for a region. */
typedef struct verbs_reg {
    struct ibv_mr *mr;
    int writable; /* registered with local/remote write (else read-only memory) */
} verbs_reg_t;

enum { VERBS_OP_SEND = 1, VERBS_OP_PUT, VERBS_OP_GET };

/* One send-queue slot; the wr_id of a send WR is its sequence number << 1. */
typedef struct verbs_op {
    uint8_t kind;
    verbs_buf_t *buf;      /* bounce buffer (eager send) */
    rcache_region_t *reg;  /* local registration of put/get */
    uint32_t bytes;        /* RDMA bytes of this request (counted in the ep's window) */
    rmpi_comp_cb_t cb;
    void *arg;
} verbs_op_t;

enum {
    VEP_IDLE = 0,   /* no connection yet: the first use starts one */
    VEP_CONNECTING, /* our rdma_connect in progress */
    VEP_ACCEPTING,  /* we accepted the peer's request, waiting for ESTABLISHED */
    VEP_WAIT_PEER,  /* the peer rejected ours because its own request wins */
    VEP_CONNECTED,
    VEP_FAILED
};

typedef struct verbs_tl verbs_tl_t;
typedef struct verbs_ep verbs_ep_t;

struct verbs_ep {
    rmpi_ep_t base; /* first: core's handle; base.peer is the world rank */
    verbs_tl_t *tl;
    int state;
    int fail_status;
    int attempts;
    int provisioned;   /* SRQ buffers were added for this peer */
    int credit_listed;
    int report;        /* failed: tell the core from progress() */
    double deadline;   /* VEP_WAIT_PEER: connect ourselves after this */
    verbs_addr_t addr; /* the peer's listener */
    struct rdma_cm_id *id;
    struct ibv_qp *qp;
    int credits;       /* eager sends we may still post */
    int to_return;     /* the peer's messages consumed here, not yet granted back */
    unsigned unsignaled;
    uint64_t sq_head, sq_tail; /* next to post, next to retire */
    verbs_op_t *ops;   /* VERBS_SQ_DEPTH slots, allocated at first connection */
    size_t rdma_bytes; /* RDMA bytes posted and not completed (<= VERBS_RDMA_WINDOW) */
    struct verbs_rdma *rq_head, *rq_tail; /* RDMA operations with pieces not yet posted */
    struct verbs_ep *next_credit;
    /* Liveness (verbs_live.c): receive completions from the peer (cq_recv counts them),
     * and what the last check saw. */
    uint64_t rx_count, hb_rx, hb_tail;
    double hb_last; /* when the last proof of life was seen or a probe posted */
};

/* RMP_VERBS_* (the table is in verbs.c). */
typedef struct verbs_params {
    char device[64]; /* name[:port]; empty: first active port */
    int gid_index;   /* -1: automatic */
} verbs_params_t;

struct verbs_tl {
    rmpi_tl_t base; /* first: core's handle */
    rmpi_am_cb_t cb;
    void (*peer_failed)(int peer, const char *why);
    const verbs_params_t *prm;
    int me;                   /* world rank */
    size_t rcache_max_bytes;
    bool stats;
    verbs_sel_t sel;
    struct ibv_context **devlist; /* rdma_get_devices() */
    struct ibv_context *ctx;
    struct ibv_device_attr dattr;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_srq *srq;
    struct rdma_event_channel *ch;
    struct rdma_cm_id *listen;
    uint32_t max_inline;
    uint32_t max_msg;
    uint8_t rd_atom;
    int cq_size, srq_size;
    rcache_t *rcache;
    verbs_chunk_t *chunks;
    verbs_buf_t *send_free;
    verbs_buf_t *rx_free; /* consumed, to be reposted */
    int rx_free_n;
    int rx_total; /* receive buffers owned by the SRQ pool */
    int rx_posted; /* of them, posted to the SRQ (the rest are on rx_free) */
    unsigned long long rx_post_failures; /* ibv_post_srq_recv errors (buffers kept) */
    int nprov;    /* peers provisioned */
    int cm_busy;  /* endpoints in a connecting state */
    unsigned cm_tick;
    verbs_ep_t *eps; /* by world rank */
    int neps;
    struct {
        uint32_t qpn;
        verbs_ep_t *ep;
    } *qpmap;
    size_t qpmap_mask;
    verbs_ep_t *credit_list;
    int rdma_queued; /* operations waiting on the endpoints' rq lists */
    int need_report;
    double hb_interval; /* idle seconds before a probe (RMP_FAILURE_TIMEOUT / 3; 0: off) */
    uint8_t ack_timeout; /* the RC local ACK timeout exponent (verbs_live.c) */
};

/* verbs_dev.c: device, port and GID selection; the instance's verbs objects. */
int rmpi_verbs_select(const verbs_params_t *prm, struct ibv_context **ctxs, int n,
                      verbs_sel_t *sel, char *why, size_t whylen);
int rmpi_verbs_query(const verbs_params_t *prm, char *why, size_t whylen);
void rmpi_verbs_describe(const rmpi_tl_args_t *args, void (*line)(const char *text));
int rmpi_verbs_dev_open(verbs_tl_t *tl);
void rmpi_verbs_dev_close(verbs_tl_t *tl);

/* verbs_mr.c: registered buffer pools and the registration cache. */
int rmpi_verbs_mr_init(verbs_tl_t *tl);
void rmpi_verbs_mr_fini(verbs_tl_t *tl);
int rmpi_verbs_rx_grow(verbs_tl_t *tl, int want);
void rmpi_verbs_rx_repost(verbs_tl_t *tl);
verbs_buf_t *rmpi_verbs_send_buf(verbs_tl_t *tl);
void rmpi_verbs_send_buf_put(verbs_tl_t *tl, verbs_buf_t *b);
int rmpi_verbs_local_reg(verbs_tl_t *tl, const void *addr, size_t len, int writable,
                         rcache_region_t **reg, uint32_t *lkey);
int rmpi_verbs_mem_reg(rmpi_tl_t *tl, void *addr, size_t len, rmpi_mr_t **mr, uint64_t *rkey);
void rmpi_verbs_mem_dereg(rmpi_tl_t *tl, rmpi_mr_t *mr);

/* verbs_cm.c: the rdma_cm listener and connection state machine. */
int rmpi_verbs_cm_init(verbs_tl_t *tl);
void rmpi_verbs_cm_fini(verbs_tl_t *tl);
int rmpi_verbs_cm_connect(verbs_ep_t *ep);
int rmpi_verbs_cm_progress(verbs_tl_t *tl);
void rmpi_verbs_ep_close(verbs_ep_t *ep);
void rmpi_verbs_ep_set_state(verbs_ep_t *ep, int state);

/* verbs_ep.c: endpoints and the operations posted on them. */
int rmpi_verbs_connect(rmpi_tl_t *tl, int peer, const void *addr, size_t len, rmpi_ep_t **ep,
                       rmpi_tl_caps_t *caps);
int rmpi_verbs_ep_ready(verbs_ep_t *ep);
void rmpi_verbs_ep_established(verbs_ep_t *ep);
void rmpi_verbs_ep_fail(verbs_ep_t *ep, int status);
int rmpi_verbs_send(rmpi_ep_t *ep, const void *hdr, size_t hlen, const void *payload,
                    size_t plen);
int rmpi_verbs_send_credits(verbs_ep_t *ep);
int rmpi_verbs_flushed(rmpi_tl_t *tl);
int rmpi_verbs_post_probe(verbs_ep_t *ep);
int rmpi_verbs_put(rmpi_ep_t *ep, const void *src, size_t len, uint64_t raddr, uint64_t rkey,
                   rmpi_comp_cb_t cb, void *arg);
int rmpi_verbs_get(rmpi_ep_t *ep, void *dst, size_t len, uint64_t raddr, uint64_t rkey,
                   rmpi_comp_cb_t cb, void *arg);
int rmpi_verbs_post(verbs_ep_t *ep, struct ibv_send_wr *wr);
verbs_op_t *rmpi_verbs_slot(verbs_ep_t *ep, uint64_t seq, int kind);
int rmpi_verbs_qpmap_add(verbs_tl_t *tl, uint32_t qpn, verbs_ep_t *ep);
verbs_ep_t *rmpi_verbs_qpmap_find(verbs_tl_t *tl, uint32_t qpn);

/* verbs_rdma.c: put/get as bounded pieces under a per-QP window. */
void rmpi_verbs_rdma_pump(verbs_tl_t *tl);
void rmpi_verbs_rdma_fail(verbs_ep_t *ep, int status);

/* verbs_live.c: liveness within RMP_FAILURE_TIMEOUT (idle-connection probes, async events). */
void rmpi_verbs_live_init(verbs_tl_t *tl, double failure_timeout);
int rmpi_verbs_ep_alive(rmpi_ep_t *ep);
void rmpi_verbs_live_event(verbs_tl_t *tl, struct ibv_async_event *ae);

/* verbs_cq.c: completion handling, driven by progress(). */
int rmpi_verbs_progress(rmpi_tl_t *tl);
void rmpi_verbs_retire(verbs_ep_t *ep, uint64_t upto, int status);
int rmpi_verbs_wc_status(enum ibv_wc_status s);

#endif
