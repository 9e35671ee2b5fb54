/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal declarations of the verbs transport (RC queue pairs over libibverbs,
 * connections with librdmacm). docs/verbs.md describes the design; the contract
 * is core/transport.h. Only files of this folder include this header, and only
 * they talk libibverbs/librdmacm. */
#ifndef RMPI_VERBS_INT_H
#define RMPI_VERBS_INT_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>

#include "rcache/rcache.h"
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

enum { VERBS_OP_SEND = 1, VERBS_OP_PUT, VERBS_OP_GET, VERBS_OP_AMO };

/* One send-queue slot; the wr_id of a send WR is its sequence number << 1. */
typedef struct verbs_op {
    uint8_t kind;
    verbs_buf_t *buf;      /* bounce buffer (eager send, atomic result) */
    rcache_region_t *reg;  /* local registration of put/get */
    rmpi_comp_cb_t cb;
    void *arg;
    uint64_t *result;      /* atomic: where the old value goes */
} verbs_op_t;

enum {
    VEP_IDLE = 0,   /* no connection yet: the first use starts one */
    VEP_CONNECTING, /* our rdma_connect in progress */
    VEP_ACCEPTING,  /* we accepted the peer's request, waiting for ESTABLISHED */
    VEP_WAIT_PEER,  /* the peer rejected ours because its own request wins */
    VEP_CONNECTED,
    VEP_FAILED
};

struct rmpi_ep {
    rmpi_tl_t *tl;
    int peer;
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
    struct rmpi_ep *next_credit;
};

/* RMP_VERBS_* (the table is in verbs.c). */
typedef struct verbs_params {
    char device[64]; /* name[:port]; empty: first active port */
    int gid_index;   /* -1: automatic */
} verbs_params_t;

struct rmpi_tl {
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
    int nprov;    /* peers provisioned */
    int cm_busy;  /* endpoints in a connecting state */
    unsigned cm_tick;
    rmpi_ep_t *eps; /* by world rank */
    int neps;
    struct {
        uint32_t qpn;
        rmpi_ep_t *ep;
    } *qpmap;
    size_t qpmap_mask;
    rmpi_ep_t *credit_list;
    int need_report;
};

/* verbs_dev.c: device, port and GID selection; the instance's verbs objects. */
int rmpi_verbs_select(const verbs_params_t *prm, struct ibv_context **ctxs, int n,
                      verbs_sel_t *sel, char *why, size_t whylen);
int rmpi_verbs_query(const verbs_params_t *prm, char *why, size_t whylen);
void rmpi_verbs_describe(const rmpi_tl_args_t *args, void (*line)(const char *text));
int rmpi_verbs_dev_open(rmpi_tl_t *tl);
void rmpi_verbs_dev_close(rmpi_tl_t *tl);

/* verbs_mr.c: registered buffer pools and the registration cache. */
int rmpi_verbs_mr_init(rmpi_tl_t *tl);
void rmpi_verbs_mr_fini(rmpi_tl_t *tl);
int rmpi_verbs_rx_grow(rmpi_tl_t *tl, int want);
void rmpi_verbs_rx_repost(rmpi_tl_t *tl);
verbs_buf_t *rmpi_verbs_send_buf(rmpi_tl_t *tl);
void rmpi_verbs_send_buf_put(rmpi_tl_t *tl, verbs_buf_t *b);
int rmpi_verbs_local_reg(rmpi_tl_t *tl, const void *addr, size_t len, int writable,
                         rcache_region_t **reg, uint32_t *lkey);
int rmpi_verbs_mem_reg(rmpi_tl_t *tl, void *addr, size_t len, rmpi_mr_t **mr, uint64_t *rkey);
void rmpi_verbs_mem_dereg(rmpi_tl_t *tl, rmpi_mr_t *mr);

/* verbs_cm.c: the rdma_cm listener and connection state machine. */
int rmpi_verbs_cm_init(rmpi_tl_t *tl);
void rmpi_verbs_cm_fini(rmpi_tl_t *tl);
int rmpi_verbs_cm_connect(rmpi_ep_t *ep);
int rmpi_verbs_cm_progress(rmpi_tl_t *tl);
void rmpi_verbs_ep_close(rmpi_ep_t *ep);
void rmpi_verbs_ep_set_state(rmpi_ep_t *ep, int state);

/* verbs_ep.c: endpoints and the operations posted on them. */
int rmpi_verbs_connect(rmpi_tl_t *tl, int peer, const void *addr, size_t len, rmpi_ep_t **ep,
                       rmpi_tl_caps_t *caps);
int rmpi_verbs_ep_ready(rmpi_ep_t *ep);
void rmpi_verbs_ep_established(rmpi_ep_t *ep);
void rmpi_verbs_ep_fail(rmpi_ep_t *ep, int status);
int rmpi_verbs_send(rmpi_ep_t *ep, const void *hdr, size_t hlen, const void *payload,
                    size_t plen);
int rmpi_verbs_send_credits(rmpi_ep_t *ep);
int rmpi_verbs_flushed(rmpi_tl_t *tl);
int rmpi_verbs_ep_alive(rmpi_ep_t *ep);
int rmpi_verbs_put(rmpi_ep_t *ep, const void *src, size_t len, uint64_t raddr, uint64_t rkey,
                   rmpi_comp_cb_t cb, void *arg);
int rmpi_verbs_get(rmpi_ep_t *ep, void *dst, size_t len, uint64_t raddr, uint64_t rkey,
                   rmpi_comp_cb_t cb, void *arg);
int rmpi_verbs_atomic(rmpi_ep_t *ep, int op, uint64_t operand, uint64_t compare,
                      uint64_t *result, uint64_t raddr, uint64_t rkey, rmpi_comp_cb_t cb,
                      void *arg);
int rmpi_verbs_qpmap_add(rmpi_tl_t *tl, uint32_t qpn, rmpi_ep_t *ep);
rmpi_ep_t *rmpi_verbs_qpmap_find(rmpi_tl_t *tl, uint32_t qpn);

/* verbs_cq.c: completion handling, driven by progress(). */
int rmpi_verbs_progress(rmpi_tl_t *tl);
void rmpi_verbs_retire(rmpi_ep_t *ep, uint64_t upto, int status);
int rmpi_verbs_wc_status(enum ibv_wc_status s);

#endif
