/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared-memory transport for ranks of one node.
 *
 * Each rank owns one segment holding its inbound rings, one per local
 * sender: a nameless memfd (core/shmem.c) that peers map after the first
 * fence; after the second fence the owner drops the descriptor. Nothing is
 * ever named in /dev/shm, so nothing is left behind whatever kills the job. Large messages are pulled by the receiver with one
 * process_vm_readv (cross-memory attach) from the sender's buffer; where the
 * kernel forbids that, they are fragmented through the rings. */
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
#include "shm_addr.h"
#include "shm_ring.h"
#include "shmem.h"
#include "tune_default.h"

#define SHM_MAGIC 0x726d70736d656d31ULL /* "rmpsmem1" */
/* Measured (tools/tuning/default.tune): two copies through the ring beat CMA up to here. */
#define SHM_DEFAULT_RNDV RMPI_TUNE_DEFAULT_SHM_RNDV_THRESHOLD
#define SHM_MAX_AM (64 * 1024)

enum { SHM_CMA_AUTO = 0, SHM_CMA_ON, SHM_CMA_OFF };

typedef struct shm_params {
    size_t ring_bytes;
    int cma; /* SHM_CMA_* */
} shm_params_t;

static shm_params_t shm_params;

static const rmpi_param_t shm_param_table[] = {
    {"RMP_SHM_RING_BYTES", RMPI_PT_SIZE, "1m", NULL, RMPI_PARAM_OFF(shm_params_t, ring_bytes),
     "bytes of each shared-memory eager ring (one per ordered pair of local ranks)"},
    {"RMP_SHM_CMA", RMPI_PT_ENUM, "auto", "auto|on|off", RMPI_PARAM_OFF(shm_params_t, cma),
     "single-copy cross-memory attach for large shm messages (auto: use it when the "
     "kernel allows it)"},
    {NULL, 0, NULL, NULL, 0, 0, NULL},
};

static const rmpi_tl_tune_key_t shm_tune_keys[] = {
    {"ring_bytes", "RMP_SHM_RING_BYTES"},
    {NULL, NULL},
};

typedef struct shm_seg_hdr {
    uint64_t magic;
    uint64_t probe; /* read by peers to check cross-memory attach */
    int32_t pid;
    int32_t nlocal;
    uint64_t ring_lines;
} shm_seg_hdr_t;

struct rmpi_ep {
    struct rmpi_tl *tl;
    int peer;        /* world rank */
    int lidx;        /* local index */
    pid_t pid;
    shm_tx_t tx;     /* my ring inside the peer's segment */
    void *seg;       /* the peer's segment, mapped */
    size_t seg_bytes;
};

struct rmpi_tl {
    rmpi_am_cb_t cb;
    void (*peer_failed)(int peer, const char *why);
    const int *local_ranks;
    int cma;          /* SHM_CMA_* */
    rmpi_shmem_t mem; /* my segment */
    void *seg;
    size_t seg_bytes;
    int nlocal, me;   /* local size and my local index */
    uint64_t ring_lines;
    struct rmpi_ep *eps;  /* by local index */
    shm_rx_t *rx;         /* my inbound rings by sender local index */
    int *active;          /* local indices of connected peers */
    int nactive;
    int cma_warned;
};

static shm_ring_ctl_t *shm_ctl(void *seg, int idx)
{
    return (shm_ring_ctl_t *)((char *)seg + SHM_LINE * (size_t)(1 + idx));
}

static shm_line_t *shm_lines(void *seg, int nlocal, uint64_t ring_lines, int idx)
{
    return (shm_line_t *)((char *)seg + SHM_LINE * (size_t)(1 + nlocal) +
                          (size_t)idx * ring_lines * SHM_LINE);
}

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

static uint64_t shm_ring_lines_cfg(const shm_params_t *prm)
{
    uint64_t lines = prm->ring_bytes / SHM_LINE;
    uint64_t p = 64;
    while (p * 2 <= lines && p * 2 <= SHM_RING_MAX_LINES)
        p *= 2;
    return p;
}

static void shm_fini(rmpi_tl_t *tl)
{
    if (!tl)
        return;
    for (int i = 0; tl->eps && i < tl->nlocal; i++)
        if (tl->eps[i].seg)
            munmap(tl->eps[i].seg, tl->eps[i].seg_bytes);
    rmpi_shmem_destroy(&tl->mem);
    free(tl->eps);
    free(tl->rx);
    free(tl->active);
    free(tl);
}

/* The ring bounds the largest message as well as SHM_MAX_AM does. */
static size_t shm_max_am_hint(const rmpi_tl_args_t *args)
{
    size_t max_am = shm_ring_max_msg(shm_ring_lines_cfg(args->params));
    return max_am < SHM_MAX_AM ? max_am : SHM_MAX_AM;
}

static int shm_init(const rmpi_tl_args_t *args, rmpi_tl_t **out, rmpi_tl_caps_t *caps)
{
    const shm_params_t *prm = args->params;
    int rc = RMP_SUCCESS;
    rmpi_tl_t *tl = calloc(1, sizeof(*tl));
    if (!tl)
        return RMP_ERR_NOMEM;
    tl->cb = args->am;
    tl->peer_failed = args->peer_failed;
    tl->local_ranks = args->local_ranks;
    tl->cma = prm->cma;
    tl->mem.fd = -1;
    tl->nlocal = args->local_size;
    tl->me = args->local_rank;
    tl->ring_lines = shm_ring_lines_cfg(prm);
    tl->seg_bytes = shm_seg_bytes(tl->nlocal, tl->ring_lines);
    tl->eps = calloc((size_t)tl->nlocal, sizeof(*tl->eps));
    tl->rx = calloc((size_t)tl->nlocal, sizeof(*tl->rx));
    tl->active = calloc((size_t)tl->nlocal, sizeof(int));
    if (!tl->eps || !tl->rx || !tl->active) {
        rc = RMP_ERR_NOMEM;
        goto err;
    }
    if (tl->nlocal > 1) {
        rc = rmpi_shmem_create(tl->seg_bytes, "rmp-shm", &tl->mem);
        if (rc != RMP_SUCCESS)
            goto err;
        tl->seg = tl->mem.addr;
        shm_seg_hdr_t *h = tl->seg;
        h->magic = SHM_MAGIC;
        h->probe = SHM_MAGIC ^ (uint64_t)getpid();
        h->pid = getpid();
        h->nlocal = tl->nlocal;
        h->ring_lines = tl->ring_lines;
    }
    caps->max_am = shm_max_am_hint(args);
    caps->rndv_threshold = SHM_DEFAULT_RNDV;
    caps->rndv_mode = prm->cma == SHM_CMA_OFF ? RMPI_RNDV_NONE : RMPI_RNDV_GET;
    caps->intranode_only = true;
    caps->rma = prm->cma != SHM_CMA_OFF;
    caps->native_atomics = false;
    *out = tl;
    return RMP_SUCCESS;
err:
    shm_fini(tl);
    return rc;
}

/* Nothing to publish when this rank is alone on its node. */
static int shm_get_address(rmpi_tl_t *tl, void *buf, size_t *len)
{
    if (tl->nlocal <= 1) {
        *len = 0;
        return RMP_SUCCESS;
    }
    shm_seg_hdr_t *h = tl->seg;
    shm_addr_t a;
    if (*len < sizeof(a))
        return RMP_ERR_INTERNAL;
    memset(&a, 0, sizeof(a));
    snprintf(a.name, sizeof(a.name), "%s", tl->mem.name);
    a.pid = getpid();
    a.nlocal = tl->nlocal;
    a.ring_lines = tl->ring_lines;
    a.seg_bytes = tl->seg_bytes;
    a.probe_addr = (uint64_t)(uintptr_t)&h->probe;
    memcpy(buf, &a, sizeof(a));
    *len = sizeof(a);
    return RMP_SUCCESS;
}

static int shm_local_index(const rmpi_tl_t *tl, int world)
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

static int shm_connect(rmpi_tl_t *tl, int peer, const void *addr, size_t alen, rmpi_ep_t **out,
                       rmpi_tl_caps_t *caps)
{
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
    void *seg = NULL;
    rc = rmpi_shmem_attach(a->name, a->seg_bytes, &seg);
    if (rc != RMP_SUCCESS)
        return rc;
    rmpi_ep_t *ep = &tl->eps[lidx];
    ep->tl = tl;
    ep->peer = peer;
    ep->lidx = lidx;
    ep->pid = a->pid;
    ep->seg = seg;
    ep->seg_bytes = a->seg_bytes;
    ep->tx.ctl = shm_ctl(seg, tl->me);
    ep->tx.lines = shm_lines(seg, a->nlocal, a->ring_lines, tl->me);
    ep->tx.nlines = a->ring_lines;
    ep->tx.head = 0;
    ep->tx.tail_cache = 0;
    shm_rx_t *rx = &tl->rx[lidx];
    rx->ctl = shm_ctl(tl->seg, lidx);
    rx->lines = shm_lines(tl->seg, tl->nlocal, tl->ring_lines, lidx);
    rx->nlines = tl->ring_lines;
    rx->tail = 0;
    tl->active[tl->nactive++] = lidx;
    size_t max_am = shm_ring_max_msg(a->ring_lines);
    if (max_am < caps->max_am)
        caps->max_am = max_am;
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
    *out = ep;
    return rc;
}

static int shm_post_connect(rmpi_tl_t *tl)
{
    rmpi_shmem_seal(&tl->mem);
    return RMP_SUCCESS;
}

static int shm_send(rmpi_ep_t *ep, const void *hdr, size_t hlen, const void *payload,
                    size_t plen)
{
    return shm_ring_push(&ep->tx, hdr, hlen, payload, plen) ? RMPI_AGAIN : RMP_SUCCESS;
}

/* Cross-memory attach: one copy between the two address spaces. */
static int shm_cma(rmpi_ep_t *ep, void *local, size_t len, uint64_t raddr, int write)
{
    size_t done = 0;
    while (done < len) {
        struct iovec l = {(char *)local + done, len - done};
        struct iovec r = {(char *)(uintptr_t)raddr + done, len - done};
        ssize_t n = write ? process_vm_writev(ep->pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(ep->pid, &l, 1, &r, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            int e = errno;
            if (e == ESRCH)
                return RMP_ERR_PEER_FAILED;
            rmpi_error("process_vm_%s with rank %d: %s", write ? "writev" : "readv", ep->peer,
                       strerror(e));
            return RMP_ERR_ACCESS;
        }
        done += (size_t)n;
    }
    return RMP_SUCCESS;
}

/* Complete first, then tell the core that the peer is gone (it fails the
 * peer's other operations; this one already has its status). */
static void shm_cma_done(rmpi_ep_t *ep, int rc, rmpi_comp_cb_t cb, void *arg)
{
    cb(arg, rc);
    if (rc == RMP_ERR_PEER_FAILED)
        ep->tl->peer_failed(ep->peer, "process gone");
}

static int shm_get(rmpi_ep_t *ep, void *dst, size_t len, uint64_t raddr, uint64_t rkey,
                   rmpi_comp_cb_t cb, void *arg)
{
    (void)rkey;
    shm_cma_done(ep, shm_cma(ep, dst, len, raddr, 0), cb, arg);
    return RMP_SUCCESS;
}

static int shm_put(rmpi_ep_t *ep, const void *src, size_t len, uint64_t raddr, uint64_t rkey,
                   rmpi_comp_cb_t cb, void *arg)
{
    (void)rkey;
    shm_cma_done(ep, shm_cma(ep, (void *)src, len, raddr, 1), cb, arg);
    return RMP_SUCCESS;
}

static int shm_ep_alive(rmpi_ep_t *ep)
{
    if (kill(ep->pid, 0) == 0 || errno != ESRCH)
        return RMP_SUCCESS;
    return RMP_ERR_PEER_FAILED;
}

static int shm_progress(rmpi_tl_t *tl)
{
    int n = 0;
    for (int i = 0; i < tl->nactive; i++) {
        int lidx = tl->active[i];
        shm_rx_t *rx = &tl->rx[lidx];
        for (int budget = 0; budget < 32; budget++) {
            shm_rec_t *rec = shm_ring_peek(rx);
            if (!rec)
                break;
            const unsigned char *d = (const unsigned char *)(rec + 1);
            tl->cb(tl->eps[lidx].peer, d, rec->hlen, d + rec->hlen, rec->plen);
            shm_ring_pop(rx, rec);
            n++;
        }
        if (RMPI_UNLIKELY(rx->corrupt)) {
            /* Never read this ring again: the peer is treated as failed. */
            int peer = tl->eps[lidx].peer;
            tl->active[i--] = tl->active[--tl->nactive];
            rmpi_error("shm: rank %d wrote a malformed frame", peer);
            tl->peer_failed(peer, "malformed shared-memory frame");
        }
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
    .atomic = NULL, /* emulated by the target (core/rma.c): CPU atomics on its memory */
    .ep_alive = shm_ep_alive,
    .progress = shm_progress,
    .fini = shm_fini,
};
