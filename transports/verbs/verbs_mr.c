/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory: the registered buffer pools (eager send bounce buffers, SRQ receive
 * buffers) and the registration cache used for rendezvous and RMA buffers.
 * User memory is registered only through core/rcache, so a buffer that is
 * freed and reallocated at the same address is never sent through a stale
 * registration (docs/rcache.md). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "log.h"
#include "verbs_int.h"

#define VERBS_ACCESS_RW                                                                  \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |          \
     IBV_ACCESS_REMOTE_ATOMIC)

static int mr_errno(int e)
{
    switch (e) {
    case ENOMEM:
    case EAGAIN:
        return RMP_ERR_NOMEM;
    case EFAULT:
    case EACCES:
    case EPERM:
    case EINVAL:
        return RMP_ERR_ACCESS;
    default:
        return RMP_ERR_TRANSPORT;
    }
}

/* Is all of [addr, addr + len) mapped readable? The kernel pins PROT_NONE
 * pages for a read-only registration, so that fallback must check first. */
static int mr_readable(const void *addr, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    uintptr_t pos = (uintptr_t)addr, end = pos + len;
    char line[512];
    while (pos < end && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || hi <= pos)
            continue;
        if (lo > pos || perms[0] != 'r')
            break;
        pos = hi;
    }
    fclose(f);
    return pos >= end;
}

/* rcache callbacks. Memory that cannot be written (read-only mappings, e.g. a
 * constant table being sent) is registered for remote read only, and marked so. */
static int mr_reg(void *ctx, void *addr, size_t len, void **handle)
{
    verbs_tl_t *tl = ctx;
    verbs_reg_t *r = malloc(sizeof(*r));
    if (!r)
        return RMP_ERR_NOMEM;
    r->writable = 1;
    r->mr = ibv_reg_mr(tl->pd, addr, len, VERBS_ACCESS_RW);
    int e = r->mr ? 0 : errno;
    if (!r->mr && (e == EFAULT || e == EACCES || e == EPERM) && mr_readable(addr, len)) {
        r->writable = 0;
        r->mr = ibv_reg_mr(tl->pd, addr, len, IBV_ACCESS_REMOTE_READ);
        e = r->mr ? 0 : errno;
    }
    if (!r->mr) {
        rmpi_debug("verbs: ibv_reg_mr(%p, %zu): %s", addr, len, strerror(e));
        free(r);
        return mr_errno(e);
    }
    *handle = r;
    return RMP_SUCCESS;
}

static int mr_dereg(void *ctx, void *handle)
{
    (void)ctx;
    verbs_reg_t *r = handle;
    int rc = ibv_dereg_mr(r->mr);
    free(r);
    return rc == 0 ? RMP_SUCCESS : RMP_ERR_TRANSPORT;
}

/* Fault injection for tests/verbs/verbs_srq_fault.c: RMPI_FAULT_SRQ_POST=K makes the
   first K chains posted by this process fail half-way (the first half is posted, the rest
   comes back as bad_wr with ENOMEM), as a real ibv_post_srq_recv may. */
static int mr_srq_faults;

static const rcache_ops_t mr_rcache_ops = {mr_reg, mr_dereg};

/* A registered chunk of n buffers; they are handed to the caller as a list. */
static int mr_chunk_new(verbs_tl_t *tl, int n, verbs_buf_t **list)
{
    verbs_chunk_t *c = calloc(1, sizeof(*c));
    if (!c)
        return RMP_ERR_NOMEM;
    c->len = (size_t)n * VERBS_BUF_SIZE;
    c->mem = mmap(NULL, c->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    c->bufs = calloc((size_t)n, sizeof(*c->bufs));
    if (c->mem == MAP_FAILED || !c->bufs) {
        if (c->mem != MAP_FAILED)
            munmap(c->mem, c->len);
        free(c->bufs);
        free(c);
        return RMP_ERR_NOMEM;
    }
    c->mr = ibv_reg_mr(tl->pd, c->mem, c->len, IBV_ACCESS_LOCAL_WRITE);
    if (!c->mr) {
        int e = errno;
        rmpi_error("verbs: registering %zu bytes of buffers: %s (is 'ulimit -l' too small?)",
                   c->len, strerror(e));
        munmap(c->mem, c->len);
        free(c->bufs);
        free(c);
        return mr_errno(e) == RMP_ERR_ACCESS ? RMP_ERR_TRANSPORT : mr_errno(e);
    }
    for (int i = 0; i < n; i++) {
        c->bufs[i].data = (char *)c->mem + (size_t)i * VERBS_BUF_SIZE;
        c->bufs[i].lkey = c->mr->lkey;
        c->bufs[i].next = i + 1 < n ? &c->bufs[i + 1] : *list;
    }
    *list = &c->bufs[0];
    c->next = tl->chunks;
    tl->chunks = c;
    return RMP_SUCCESS;
}

int rmpi_verbs_mr_init(verbs_tl_t *tl)
{
    size_t max = tl->rcache_max_bytes;
    if (rcache_hooks_install() != RMP_SUCCESS) {
        /* Without the memory hooks a cached registration could outlive its pages. */
        static int warned; /* once per process, not per transport instance */
        if (!warned++)
            rmpi_warn("verbs: memory hooks unavailable (%s): registering every rendezvous "
                      "buffer per message (no registration cache)",
                      rcache_hooks_why());
        max = 0;
    }
    const char *f = getenv("RMPI_FAULT_SRQ_POST");
    mr_srq_faults = f ? atoi(f) : 0;
    int rc = rcache_create(&mr_rcache_ops, tl, max, &tl->rcache);
    if (rc != RMP_SUCCESS)
        return rc;
    return mr_chunk_new(tl, VERBS_SEND_BUFS, &tl->send_free);
}

void rmpi_verbs_mr_fini(verbs_tl_t *tl)
{
    if (tl->rcache) {
        rcache_stats_t st;
        rcache_stats(tl->rcache, &st);
        /* RMP_STATS=1 prints it as a stats line, RMP_LOG=debug as a log line. */
        if (tl->stats || rmpi_log_level >= RMPI_LOG_DEBUG)
            rmpi_log_at(tl->stats ? RMPI_LOG_ERROR : RMPI_LOG_DEBUG,
                        "%sverbs rcache: %llu hits, %llu misses, %llu evictions, %llu "
                        "invalidations, %llu merges, %zu regions / %zu bytes registered at "
                        "finalize",
                        tl->stats ? "stats: " : "", (unsigned long long)st.hits,
                        (unsigned long long)st.misses, (unsigned long long)st.evictions,
                        (unsigned long long)st.invalidations, (unsigned long long)st.merges,
                        st.regions, st.bytes);
        rcache_destroy(tl->rcache);
        tl->rcache = NULL;
    }
    while (tl->chunks) {
        verbs_chunk_t *c = tl->chunks;
        tl->chunks = c->next;
        ibv_dereg_mr(c->mr);
        munmap(c->mem, c->len);
        free(c->bufs);
        free(c);
    }
    tl->send_free = NULL;
    tl->rx_free = NULL;
}

static int mr_post_srq(verbs_tl_t *tl, struct ibv_recv_wr *wr, int n, struct ibv_recv_wr **bad)
{
    if (RMPI_UNLIKELY(mr_srq_faults > 0)) {
        mr_srq_faults--;
        int half = n / 2;
        if (half > 0) {
            wr[half - 1].next = NULL;
            int rc = ibv_post_srq_recv(tl->srq, wr, bad);
            wr[half - 1].next = &wr[half];
            if (rc != 0)
                return rc;
        }
        *bad = &wr[half];
        return ENOMEM;
    }
    return ibv_post_srq_recv(tl->srq, wr, bad);
}

/* Post the consumed receive buffers back to the SRQ as one chain. What the device
   refuses goes back on rx_free and is tried again (here at the next batch, and from
   rmpi_verbs_progress now and then, in case the SRQ ran dry and no batch comes). */
void rmpi_verbs_rx_repost(verbs_tl_t *tl)
{
    struct ibv_recv_wr wr[VERBS_RECV_BATCH * 4], *bad;
    struct ibv_sge sge[VERBS_RECV_BATCH * 4];
    while (tl->rx_free) {
        int n = 0;
        while (tl->rx_free && n < (int)(sizeof(wr) / sizeof(wr[0]))) {
            verbs_buf_t *b = tl->rx_free;
            tl->rx_free = b->next;
            sge[n] = (struct ibv_sge){(uint64_t)(uintptr_t)b->data, VERBS_BUF_SIZE, b->lkey};
            wr[n] = (struct ibv_recv_wr){(uint64_t)(uintptr_t)b | 1, &wr[n + 1], &sge[n], 1};
            n++;
        }
        wr[n - 1].next = NULL;
        bad = NULL;
        int rc = mr_post_srq(tl, wr, n, &bad);
        if (rc != 0) {
            /* Work requests from bad on were not posted: their buffers go back. */
            int first = bad ? (int)(bad - wr) : 0;
            if (first < 0 || first > n)
                first = 0;
            for (int i = n - 1; i >= first; i--) {
                verbs_buf_t *b = (verbs_buf_t *)(uintptr_t)(wr[i].wr_id & ~(uint64_t)1);
                b->next = tl->rx_free;
                tl->rx_free = b;
            }
            tl->rx_free_n -= first;
            tl->rx_posted += first;
            tl->rx_post_failures++;
            if (tl->rx_post_failures == 1 || tl->rx_post_failures % 1000 == 0)
                rmpi_warn("verbs: ibv_post_srq_recv: %s (%d of %d buffers posted; the rest "
                          "is kept and posted again later; %llu failure(s) so far)",
                          strerror(rc), first, n, (unsigned long long)tl->rx_post_failures);
            return;
        }
        tl->rx_free_n -= n;
        tl->rx_posted += n;
    }
}

/* Make the SRQ pool hold at least want buffers (each new peer adds its credits). */
int rmpi_verbs_rx_grow(verbs_tl_t *tl, int want)
{
    if (want > tl->srq_size)
        want = tl->srq_size;
    if (tl->rx_total >= want)
        return RMP_SUCCESS;
    int n = want - tl->rx_total;
    if (n < 4 * VERBS_RECV_BATCH && tl->rx_total + 4 * VERBS_RECV_BATCH <= tl->srq_size)
        n = 4 * VERBS_RECV_BATCH;
    verbs_buf_t *list = NULL;
    int rc = mr_chunk_new(tl, n, &list);
    if (rc != RMP_SUCCESS)
        return rc;
    /* Append to the free list and post everything now. */
    verbs_buf_t *last = list;
    while (last->next)
        last = last->next;
    last->next = tl->rx_free;
    tl->rx_free = list;
    tl->rx_free_n += n;
    tl->rx_total += n;
    rmpi_verbs_rx_repost(tl);
    return RMP_SUCCESS;
}

verbs_buf_t *rmpi_verbs_send_buf(verbs_tl_t *tl)
{
    verbs_buf_t *b = tl->send_free;
    if (b)
        tl->send_free = b->next;
    return b;
}

void rmpi_verbs_send_buf_put(verbs_tl_t *tl, verbs_buf_t *b)
{
    b->next = tl->send_free;
    tl->send_free = b;
}

/* A cached region covering [addr, addr + len), writable if asked. A region
 * registered read-only whose memory has become writable since (mprotect is not
 * an invalidation) is dropped and registered again once. */
static int mr_get(verbs_tl_t *tl, const void *addr, size_t len, int writable,
                  rcache_region_t **out)
{
    for (int tries = 0;; tries++) {
        rcache_region_t *r;
        int rc = rcache_get(tl->rcache, addr, len, &r);
        if (rc != RMP_SUCCESS)
            return rc;
        if (!writable || ((verbs_reg_t *)r->handle)->writable) {
            *out = r;
            return RMP_SUCCESS;
        }
        rcache_put(tl->rcache, r);
        if (tries == 1)
            return RMP_ERR_ACCESS;
        rcache_invalidate(tl->rcache, addr, len);
    }
}

/* A local buffer of put/get: registered through the cache, reference held
 * until the operation completes. */
int rmpi_verbs_local_reg(verbs_tl_t *tl, const void *addr, size_t len, int writable,
                         rcache_region_t **reg, uint32_t *lkey)
{
    rcache_region_t *r;
    int rc = mr_get(tl, addr, len, writable, &r);
    if (rc != RMP_SUCCESS)
        return rc;
    verbs_reg_t *vr = r->handle;
    *reg = r;
    *lkey = vr->mr->lkey;
    return RMP_SUCCESS;
}

int rmpi_verbs_mem_reg(rmpi_tl_t *tl_, void *addr, size_t len, rmpi_mr_t **mr, uint64_t *rkey)
{
    verbs_tl_t *tl = (verbs_tl_t *)tl_;
    rcache_region_t *r;
    int rc = mr_get(tl, addr, len, 1, &r);
    if (rc != RMP_SUCCESS) {
        rmpi_error("verbs: cannot register %zu bytes at %p for remote access: %s", len, addr,
                   rmp_strerror(rc));
        return rc;
    }
    verbs_reg_t *vr = r->handle;
    *mr = (rmpi_mr_t *)r;
    *rkey = vr->mr->rkey;
    return RMP_SUCCESS;
}

void rmpi_verbs_mem_dereg(rmpi_tl_t *tl_, rmpi_mr_t *mr)
{
    verbs_tl_t *tl = (verbs_tl_t *)tl_;
    if (mr)
        rcache_put(tl->rcache, (rcache_region_t *)mr);
}
