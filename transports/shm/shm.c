/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared-memory transport for ranks of one node.
 *
 * Each rank owns one segment of a fixed size, whatever the number of ranks
 * (shm_seg.h): an inbox every local sender posts small messages to
 * (shm_inbox.h) and a pool of buffers for its own medium messages
 * (shm_pool.h). It is a nameless memfd (core/shmem.c), kept open for the
 * whole run so that a peer maps it at its first message to or from this
 * rank, not at start-up: a rank maps only the peers it talks to. Nothing is
 * ever named in /dev/shm, so nothing is left behind whatever kills the job.
 * Large messages are pulled by the receiver with one process_vm_readv
 * (cross-memory attach) from the sender's buffer; where the kernel forbids
 * that, the core fragments them through the pool. */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "log.h"
#include "param.h"
#include "rmpi.h"
#include "shm_seg.h"
#include "shmem.h"
#include "tune_default.h"

#define SHM_MAGIC 0x726d70736d656d32ULL /* "rmpsmem2" */
/* Measured (tools/tuning/default.tune): two copies through the pool beat CMA up to here. */
#define SHM_DEFAULT_RNDV RMPI_TUNE_DEFAULT_SHM_RNDV_THRESHOLD

enum { SHM_CMA_AUTO = 0, SHM_CMA_ON, SHM_CMA_OFF };

typedef struct shm_params {
    int cells;
    int bufs;
    size_t buf_bytes;
    int cma; /* SHM_CMA_* */
    size_t rma_msg_max;
    size_t iov_local_min, iov_remote_min;
} shm_params_t;

static shm_params_t shm_params;

static const rmpi_param_t shm_param_table[] = {
    {"RMP_SHM_CELLS", RMPI_PT_INT, "128", "8..65536", RMPI_PARAM_OFF(shm_params_t, cells),
     "cells of each rank's shared-memory inbox (128 bytes each, rounded up to a power of "
     "two, 8..65536): every local sender posts small messages there"},
    {"RMP_SHM_BUFS", RMPI_PT_INT, "64", "1..1024", RMPI_PARAM_OFF(shm_params_t, bufs),
     "medium-message buffers in each rank's shared-memory pool (1..1024; the first 8 are "
     "made at start, the others when a stream of medium messages first needs them)"},
    {"RMP_SHM_BUF_BYTES", RMPI_PT_SIZE, "64k", "4k..16m", RMPI_PARAM_OFF(shm_params_t, buf_bytes),
     "bytes of each pool buffer (4k..16m): the largest eager shm message with its header"},
    {"RMP_SHM_CMA", RMPI_PT_ENUM, "auto", "auto|on|off", RMPI_PARAM_OFF(shm_params_t, cma),
     "single-copy cross-memory attach for large shm messages (auto: use it when the "
     "kernel allows it)"},
    {"RMP_SHM_RMA_MSG_MAX", RMPI_PT_SIZE, "8k", "0..64k", RMPI_PARAM_OFF(shm_params_t, rma_msg_max),
     "one-sided puts and gets of at most this many bytes go as messages the target "
     "applies, not by cross-memory attach, whose system call costs more below it "
     "(docs/tuning.md; 0: cross-memory attach at every size)"},
    {"RMP_SHM_IOV_LOCAL_MIN", RMPI_PT_SIZE, "2k", "64..1g",
     RMPI_PARAM_OFF(shm_params_t, iov_local_min),
     "non-contiguous data moves by one cross-memory attach with segment lists, not packed, "
     "when the segments on the side that makes the call average at least this "
     "(docs/protocols.md, Layouts; a size above any block: always pack)"},
    {"RMP_SHM_IOV_REMOTE_MIN", RMPI_PT_SIZE, "32k", "64..1g",
     RMPI_PARAM_OFF(shm_params_t, iov_remote_min),
     "... and the other process's segments average at least this: the kernel pins that "
     "side's pages one segment at a time (docs/protocols.md, Layouts)"},
    {NULL, 0, NULL, NULL, 0, 0, NULL},
};

static const rmpi_tl_tune_key_t shm_tune_keys[] = {
    {"buf_bytes", "RMP_SHM_BUF_BYTES"},
    {NULL, NULL},
};

typedef struct shm_seg_hdr {
    uint64_t magic;
    uint64_t probe; /* read by peers to check cross-memory attach */
} shm_seg_hdr_t;

typedef struct shm_tl shm_tl_t;
typedef struct shm_ep shm_ep_t;

struct shm_ep {
    rmpi_ep_t base; /* first: core's handle; base.peer is the world rank */
    struct shm_tl *tl;
    pid_t pid;        /* 0: never connected */
    shm_addr_t addr;  /* its segment, as published */
    void *seg;        /* mapped at the first message either way; NULL before */
    shm_inbox_ctl_t *ictl; /* its inbox */
    shm_cell_t *cells;
    unsigned char *bufs;   /* its pool (I read medium messages there) */
    shm_pool_state_t *state;
    int dead;         /* failed: its cells are dropped */
};

struct shm_tl {
    rmpi_tl_t base; /* first: core's handle */
    rmpi_am_cb_t cb;
    void (*peer_failed)(int peer, const char *why);
    const int *local_ranks;
    int cma;          /* SHM_CMA_* */
    rmpi_shmem_t mem; /* my segment */
    size_t seg_bytes;
    int nlocal, me;   /* local size and my local index */
    uint64_t ncells;
    shm_inbox_rx_t rx; /* my inbox */
    shm_pool_t pool;   /* my pool */
    struct shm_ep *eps; /* by local index */
    int cma_warned;
};

/* Segments are memfds (core/shmem.c): no writable /dev/shm needed. */
static int shm_query(const rmpi_tl_args_t *args, char *why, size_t len)
{
    (void)args;
    int fd = memfd_create("rmp-query", MFD_CLOEXEC);
    if (fd < 0) {
        snprintf(why, len, "memfd_create fails: %s", strerror(errno));
        return RMP_ERR_NOT_SUPPORTED;
    }
    close(fd);
    return RMP_SUCCESS;
}

/* The geometry the parameters ask for, clamped to what shm_addr_check accepts. */
static void shm_geometry(const shm_params_t *prm, uint64_t *ncells, uint32_t *nbufs,
                         size_t *buf_bytes)
{
    uint64_t want = prm->cells < (int)SHM_CELLS_MIN ? SHM_CELLS_MIN : (uint64_t)prm->cells;
    uint64_t c = SHM_CELLS_MIN;
    while (c < want && c < SHM_CELLS_MAX)
        c *= 2;
    *ncells = c;
    int b = prm->bufs;
    *nbufs = b < 1 ? 1 : b > (int)SHM_POOL_BUFS_MAX ? SHM_POOL_BUFS_MAX : (uint32_t)b;
    size_t bb = prm->buf_bytes & ~(size_t)(SHM_LINE - 1);
    *buf_bytes = bb < SHM_BUF_MIN ? SHM_BUF_MIN : bb > SHM_BUF_MAX ? SHM_BUF_MAX : bb;
}

static void shm_unmap(struct shm_ep *ep)
{
    if (ep->seg)
        munmap(ep->seg, ep->addr.seg_bytes);
    ep->seg = NULL;
}

static void shm_fini(rmpi_tl_t *tl_)
{
    shm_tl_t *tl = (shm_tl_t *)tl_;
    if (!tl)
        return;
    for (int i = 0; tl->eps && i < tl->nlocal; i++)
        shm_unmap(&tl->eps[i]);
    rmpi_shmem_destroy(&tl->mem);
    free(tl->eps);
    free(tl);
}

static size_t shm_max_am_hint(const rmpi_tl_args_t *args)
{
    uint64_t ncells;
    uint32_t nbufs;
    size_t buf_bytes;
    shm_geometry(args->params, &ncells, &nbufs, &buf_bytes);
    return buf_bytes;
}

static int shm_init(const rmpi_tl_args_t *args, rmpi_tl_t **out, rmpi_tl_caps_t *caps)
{
    const shm_params_t *prm = args->params;
    int rc = RMP_SUCCESS;
    shm_tl_t *tl = calloc(1, sizeof(*tl));
    if (!tl)
        return RMP_ERR_NOMEM;
    tl->cb = args->am;
    tl->peer_failed = args->peer_failed;
    tl->local_ranks = args->local_ranks;
    tl->cma = prm->cma;
    tl->mem.fd = -1;
    tl->nlocal = args->local_size;
    tl->me = args->local_rank;
    shm_geometry(prm, &tl->ncells, &tl->pool.nbufs, &tl->pool.buf_bytes);
    tl->seg_bytes = shm_seg_bytes(tl->ncells, tl->pool.nbufs, tl->pool.buf_bytes);
    tl->eps = calloc((size_t)tl->nlocal, sizeof(*tl->eps));
    if (!tl->eps) {
        rc = RMP_ERR_NOMEM;
        goto err;
    }
    if (tl->nlocal > 1) {
        /* The inbox and the first pool buffers are made now: this rank's hot lines from
         * the first message on (their size does not depend on N). */
        rc = rmpi_shmem_create(tl->seg_bytes, "rmp-shm", 0, &tl->mem);
        if (rc != RMP_SUCCESS)
            goto err;
        char *seg = tl->mem.addr;
        rmpi_shmem_prefault(seg, shm_seg_warm_bytes(tl->ncells, tl->pool.nbufs,
                                                     tl->pool.buf_bytes));
        shm_seg_hdr_t *h = (shm_seg_hdr_t *)seg;
        h->magic = SHM_MAGIC;
        h->probe = SHM_MAGIC ^ (uint64_t)getpid();
        tl->rx.ctl = (shm_inbox_ctl_t *)(seg + SHM_LINE);
        tl->rx.cells = (shm_cell_t *)(seg + shm_seg_cells_off());
        tl->rx.ncells = tl->ncells;
        shm_inbox_init(tl->rx.ctl, tl->rx.cells, tl->ncells);
        tl->pool.state = (shm_pool_state_t *)(seg + shm_seg_state_off(tl->ncells));
        tl->pool.bufs = (unsigned char *)seg + shm_seg_bufs_off(tl->ncells, tl->pool.nbufs);
    }
    caps->max_am = tl->pool.buf_bytes;
    caps->rndv_threshold = SHM_DEFAULT_RNDV;
    caps->rndv_mode = prm->cma == SHM_CMA_OFF ? RMPI_RNDV_NONE : RMPI_RNDV_GET;
    caps->intranode_only = true;
    caps->rma = prm->cma != SHM_CMA_OFF;
    caps->rma_msg_max = prm->rma_msg_max;
    caps->copyv_local_min = prm->iov_local_min;
    caps->copyv_remote_min = prm->iov_remote_min;
    caps->native_atomics = false;
    tl->base.name = "shm";
    *out = &tl->base;
    return RMP_SUCCESS;
err:
    shm_fini(&tl->base);
    return rc;
}

/* Nothing to publish when this rank is alone on its node. */
static int shm_get_address(rmpi_tl_t *tl_, void *buf, size_t *len)
{
    shm_tl_t *tl = (shm_tl_t *)tl_;
    if (tl->nlocal <= 1) {
        *len = 0;
        return RMP_SUCCESS;
    }
    shm_seg_hdr_t *h = tl->mem.addr;
    shm_addr_t a;
    if (*len < sizeof(a))
        return RMP_ERR_INTERNAL;
    memset(&a, 0, sizeof(a));
    snprintf(a.name, sizeof(a.name), "%s", tl->mem.name);
    a.pid = getpid();
    a.nlocal = tl->nlocal;
    a.ncells = (uint32_t)tl->ncells;
    a.nbufs = tl->pool.nbufs;
    a.buf_bytes = tl->pool.buf_bytes;
    a.seg_bytes = tl->seg_bytes;
    a.probe_addr = (uint64_t)(uintptr_t)&h->probe;
    memcpy(buf, &a, sizeof(a));
    *len = sizeof(a);
    return RMP_SUCCESS;
}

static int shm_local_index(const shm_tl_t *tl, int world)
{
    for (int i = 0; i < tl->nlocal; i++)
        if (tl->local_ranks[i] == world)
            return i;
    return -1;
}

/* Can we read the peer's memory with process_vm_readv? */
static int shm_cma_works(pid_t pid, uint64_t probe_addr)
{
    uint64_t v = 0;
    struct iovec l = {&v, sizeof(v)}, r = {(void *)(uintptr_t)probe_addr, sizeof(v)};
    ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n != (ssize_t)sizeof(v))
        return -errno;
    return v == (SHM_MAGIC ^ (uint64_t)pid) ? 1 : 0;
}

/* Keep the peer's address; map nothing yet (shm_map, at the first message). */
static int shm_connect(rmpi_tl_t *tl_, int peer, const void *addr, size_t alen, rmpi_ep_t **out,
                       rmpi_tl_caps_t *caps)
{
    shm_tl_t *tl = (shm_tl_t *)tl_;
    int lidx = shm_local_index(tl, peer);
    if (lidx < 0 || lidx == tl->me)
        return RMP_ERR_INTERNAL;
    shm_addr_t abuf, *a = &abuf;
    const char *why;
    int rc = shm_addr_check(addr, alen, tl->nlocal, &why);
    if (rc != RMP_SUCCESS) {
        rmpi_error("shm: rank %d published a malformed address (%s)", peer, why);
        return rc;
    }
    memcpy(&abuf, addr, sizeof(abuf)); /* addr may be unaligned */
    shm_ep_t *ep = &tl->eps[lidx];
    ep->tl = tl;
    ep->base.peer = peer;
    ep->pid = a->pid;
    ep->addr = *a;
    if (caps->rndv_mode == RMPI_RNDV_GET) {
        int ok = shm_cma_works(a->pid, a->probe_addr);
        if (ok <= 0) {
            caps->rndv_mode = RMPI_RNDV_NONE;
            caps->rma = false;
            if (!tl->cma_warned && tl->cma == SHM_CMA_ON) {
                rmpi_error("RMP_SHM_CMA=on but cross-memory attach to rank %d fails (%s)",
                           peer, ok < 0 ? strerror(-ok) : "wrong data");
                rc = RMP_ERR_NOT_SUPPORTED;
            } else if (!tl->cma_warned) {
                rmpi_info("cross-memory attach is not permitted here (%s): large shm "
                          "messages use the two-copy pipeline",
                          ok < 0 ? strerror(-ok) : "wrong data");
            }
            tl->cma_warned = 1;
        }
    }
    *out = &ep->base;
    return rc;
}

/* The peer's segment, mapped at the first message to or from it: a rank
 * maps only the peers it talks to. */
static int shm_map(shm_ep_t *ep)
{
    void *seg = NULL;
    int rc = rmpi_shmem_attach(ep->addr.name, ep->addr.seg_bytes, 0, &seg);
    if (rc != RMP_SUCCESS)
        return rc;
    rmpi_shmem_prefault(seg, shm_seg_warm_bytes(ep->addr.ncells, ep->addr.nbufs,
                                                ep->addr.buf_bytes));
    char *s = seg;
    ep->seg = seg;
    ep->ictl = (shm_inbox_ctl_t *)(s + SHM_LINE);
    ep->cells = (shm_cell_t *)(s + shm_seg_cells_off());
    ep->state = (shm_pool_state_t *)(s + shm_seg_state_off(ep->addr.ncells));
    ep->bufs = (unsigned char *)s + shm_seg_bufs_off(ep->addr.ncells, ep->addr.nbufs);
    return RMP_SUCCESS;
}

static int shm_post_connect(rmpi_tl_t *tl_)
{
    shm_tl_t *tl = (shm_tl_t *)tl_;
    (void)tl; /* the descriptor stays open: peers map the segment when they first need it */
    return RMP_SUCCESS;
}

static int shm_send(rmpi_ep_t *ep_, const void *hdr, size_t hlen, const void *payload,
                    size_t plen)
{
    shm_ep_t *ep = (shm_ep_t *)ep_;
    if (RMPI_UNLIKELY(!ep->seg)) {
        int rc = shm_map(ep);
        if (rc != RMP_SUCCESS)
            return rc;
    }
    shm_tl_t *tl = ep->tl;
    if (hlen + plen <= SHM_CELL_DATA)
        return shm_inbox_post(ep->ictl, ep->cells, ep->addr.ncells, (uint16_t)tl->me, hdr, hlen,
                              payload, plen)
                   ? RMPI_AGAIN
                   : RMP_SUCCESS;
    if (hlen + plen > tl->pool.buf_bytes)
        return RMP_ERR_INTERNAL; /* the core never sends more than max_am */
    int64_t idx = shm_pool_get(&tl->pool);
    if (idx < 0)
        return RMPI_AGAIN;
    unsigned char *b = shm_pool_buf(tl->pool.bufs, tl->pool.buf_bytes, (uint32_t)idx);
    memcpy(b, hdr, hlen);
    memcpy(b + hlen, payload, plen);
    uint64_t pos;
    shm_cell_t *c = shm_inbox_claim(ep->ictl, ep->cells, ep->addr.ncells, &pos);
    if (!c) {
        shm_pool_put(tl->pool.state, (uint32_t)idx);
        return RMPI_AGAIN;
    }
    uint32_t i32 = (uint32_t)idx;
    c->plen = (uint32_t)plen;
    c->src = (uint16_t)tl->me;
    c->hlen = (uint8_t)hlen;
    c->kind = SHM_CELL_POOL;
    memcpy(c->data, &i32, sizeof(i32));
    shm_inbox_publish(c, pos);
    return RMP_SUCCESS;
}

/* Drop the first n bytes of the segment list v[*i..cnt) (partial transfers). */
static void shm_iov_skip(struct iovec *v, size_t cnt, size_t *i, size_t n)
{
    while (n > 0 && *i < cnt) {
        size_t k = n < v[*i].iov_len ? n : v[*i].iov_len;
        v[*i].iov_base = (char *)v[*i].iov_base + k;
        v[*i].iov_len -= k;
        n -= k;
        if (v[*i].iov_len == 0)
            (*i)++;
    }
    while (*i < cnt && v[*i].iov_len == 0)
        (*i)++;
}

/* Cross-memory attach: one copy between the two address spaces, segment lists on both
 * sides (at most RMPI_IOV_MAX each, same total). */
static int shm_cmav(shm_ep_t *ep, int write, const struct iovec *local, size_t nl,
                    const struct iovec *remote, size_t nr)
{
    struct iovec l[RMPI_IOV_MAX], r[RMPI_IOV_MAX];
    if (nl > RMPI_IOV_MAX || nr > RMPI_IOV_MAX)
        return RMP_ERR_ARG;
    memcpy(l, local, nl * sizeof(*l));
    memcpy(r, remote, nr * sizeof(*r));
    size_t li = 0, ri = 0;
    shm_iov_skip(l, nl, &li, 0);
    shm_iov_skip(r, nr, &ri, 0);
    while (li < nl && ri < nr) {
        ssize_t n = write ? process_vm_writev(ep->pid, l + li, nl - li, r + ri, nr - ri, 0)
                          : process_vm_readv(ep->pid, l + li, nl - li, r + ri, nr - ri, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            int e = errno;
            if (e == ESRCH)
                return RMP_ERR_PEER_FAILED;
            rmpi_error("process_vm_%s with rank %d: %s", write ? "writev" : "readv", ep->base.peer,
                       n == 0 ? "no progress" : strerror(e));
            return RMP_ERR_ACCESS;
        }
        shm_iov_skip(l, nl, &li, (size_t)n);
        shm_iov_skip(r, nr, &ri, (size_t)n);
    }
    return RMP_SUCCESS;
}

static int shm_cma(shm_ep_t *ep, void *local, size_t len, uint64_t raddr, int write)
{
    struct iovec l = {local, len};
    struct iovec r = {(void *)(uintptr_t)raddr, len};
    return shm_cmav(ep, write, &l, 1, &r, 1);
}

/* Complete first, then tell the core that the peer is gone (it fails the
 * peer's other operations; this one already has its status). */
static void shm_cma_done(shm_ep_t *ep, int rc, rmpi_comp_cb_t cb, void *arg)
{
    cb(arg, rc);
    if (rc == RMP_ERR_PEER_FAILED)
        ep->tl->peer_failed(ep->base.peer, "process gone");
}

static int shm_get(rmpi_ep_t *ep_, void *dst, size_t len, uint64_t raddr, uint64_t rkey,
                   rmpi_comp_cb_t cb, void *arg)
{
    shm_ep_t *ep = (shm_ep_t *)ep_;
    (void)rkey;
    shm_cma_done(ep, shm_cma(ep, dst, len, raddr, 0), cb, arg);
    return RMP_SUCCESS;
}

static int shm_put(rmpi_ep_t *ep_, const void *src, size_t len, uint64_t raddr, uint64_t rkey,
                   rmpi_comp_cb_t cb, void *arg)
{
    shm_ep_t *ep = (shm_ep_t *)ep_;
    (void)rkey;
    shm_cma_done(ep, shm_cma(ep, (void *)src, len, raddr, 1), cb, arg);
    return RMP_SUCCESS;
}

static int shm_copyv(rmpi_ep_t *ep_, int write, const struct iovec *local, size_t nl,
                     const struct iovec *remote, size_t nr)
{
    return shm_cmav((shm_ep_t *)ep_, write, local, nl, remote, nr);
}

static int shm_ep_alive(rmpi_ep_t *ep_)
{
    shm_ep_t *ep = (shm_ep_t *)ep_;
    if (kill(ep->pid, 0) == 0 || errno != ESRCH)
        return RMP_SUCCESS;
    return RMP_ERR_PEER_FAILED;
}

/* A cell that breaks the format: its sender (when the cell names one) is
 * treated as failed and its later cells are dropped. */
static void shm_bad_cell(shm_tl_t *tl, const shm_cell_t *c, const char *what)
{
    if (c->src < (unsigned)tl->nlocal && tl->eps[c->src].pid && !tl->eps[c->src].dead) {
        shm_ep_t *ep = &tl->eps[c->src];
        ep->dead = 1;
        rmpi_error("shm: rank %d %s", ep->base.peer, what);
        tl->peer_failed(ep->base.peer, "malformed shared-memory message");
    } else if (c->src >= (unsigned)tl->nlocal || !tl->eps[c->src].pid) {
        rmpi_error("shm: a message in the inbox names no local rank (%u)", (unsigned)c->src);
    }
}

/* Hand one published cell to the core. */
static void shm_deliver(shm_tl_t *tl, const shm_cell_t *c)
{
    shm_ep_t *ep = c->src < (unsigned)tl->nlocal ? &tl->eps[c->src] : NULL;
    if (!ep || !ep->pid || c->src == (unsigned)tl->me ||
        shm_cell_check(c, tl->nlocal, ep->addr.nbufs, ep->addr.buf_bytes) != 0) {
        shm_bad_cell(tl, c, "wrote a malformed inbox cell");
        return;
    }
    if (ep->dead)
        return;
    if (c->kind == SHM_CELL_INLINE) {
        tl->cb(ep->base.peer, c->data, c->hlen, c->data + c->hlen, c->plen);
        return;
    }
    if (RMPI_UNLIKELY(!ep->seg) && shm_map(ep) != RMP_SUCCESS) {
        ep->dead = 1;
        tl->peer_failed(ep->base.peer, "its shared segment is gone");
        return;
    }
    uint32_t idx;
    memcpy(&idx, c->data, sizeof(idx));
    const unsigned char *b = shm_pool_buf(ep->bufs, ep->addr.buf_bytes, idx);
    tl->cb(ep->base.peer, b, c->hlen, b + c->hlen, c->plen);
    shm_pool_put(ep->state, idx);
}

static int shm_progress(rmpi_tl_t *tl_)
{
    shm_tl_t *tl = (shm_tl_t *)tl_;
    int n = 0;
    if (tl->nlocal < 2)
        return 0;
    for (; n < 32; n++) {
        shm_cell_t *c = shm_inbox_peek(&tl->rx);
        if (!c)
            break;
        shm_deliver(tl, c);
        shm_inbox_pop(&tl->rx, c);
    }
    return n;
}

const rmpi_tl_iface_t rmpi_tl_shm = {
    .name = "shm",
    .default_rndv = SHM_DEFAULT_RNDV,
    .params = shm_param_table,
    .param_values = &shm_params,
    .tune_keys = shm_tune_keys,
    .max_am_hint = shm_max_am_hint,
    .query = shm_query,
    .init = shm_init,
    .get_address = shm_get_address,
    .connect = shm_connect,
    .post_connect = shm_post_connect,
    .send = shm_send,
    .mem_reg = NULL, /* the peer's pid is all cross-memory attach needs */
    .mem_dereg = NULL,
    .put = shm_put,
    .get = shm_get,
    .copyv = shm_copyv,
    .atomic = NULL, /* emulated by the target (core/rma.c): CPU atomics on its memory */
    .ep_alive = shm_ep_alive,
    .progress = shm_progress,
    .fini = shm_fini,
};
