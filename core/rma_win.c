/* SPDX-License-Identifier: BSD-3-Clause */
/* Window objects: the table by id, a quarantine for released ones, creation
 * (an exchange of entries among the members: core/xchg.c) and release
 * (core/rma_win.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coll_id.h"
#include "comm.h"
#include "log.h"
#include "mt.h"
#include "p2p.h"
#include "rma_emu.h"
#include "rma_win.h"
#include "xchg.h"

/* Windows by id, for the target side of emulated operations.
 * A released window struct stays readable so that a stale handle is
 * recognised (live == 0), not followed: it waits in a FIFO and is reused only
 * once WIN_QUARANTINE later windows have been freed, so memory stays bounded
 * in a program that creates and frees windows in a loop. rmp_finalize frees
 * them all (every call is refused from then on before the handle is read). */
#define WIN_QUARANTINE 64

struct rmp_win *rmpi_win_lookup(rmpi_engine_t *e, uint32_t id)
{
    struct rmp_win *w = id < e->rma.win_ntable ? e->rma.win_table[id] : NULL;
    return w && w->live ? w : NULL;
}

/* A few windows at most: a scan. */
int rmpi_win_is_live(rmpi_engine_t *e, rmp_win_t win)
{
    for (uint32_t i = 0; i < e->rma.win_ntable; i++)
        if (e->rma.win_table[i] == win)
            return 1;
    return 0;
}

/* ---- creation and destruction ---- */

static int win_register_id(rmpi_engine_t *e, struct rmp_win *w)
{
    for (uint32_t i = 0; i < e->rma.win_ntable; i++) {
        if (!e->rma.win_table[i]) {
            w->id = i;
            e->rma.win_table[i] = w;
            __atomic_add_fetch(&e->p2p.windows, 1, __ATOMIC_RELAXED);
            return RMP_SUCCESS;
        }
    }
    struct rmp_win **t =
        realloc(e->rma.win_table, (e->rma.win_ntable + 16) * sizeof(*t));
    if (!t)
        return RMP_ERR_NOMEM;
    memset(t + e->rma.win_ntable, 0, 16 * sizeof(*t));
    e->rma.win_table = t;
    w->id = e->rma.win_ntable;
    e->rma.win_table[e->rma.win_ntable] = w;
    e->rma.win_ntable += 16;
    __atomic_add_fetch(&e->p2p.windows, 1, __ATOMIC_RELAXED);
    return RMP_SUCCESS;
}

static void win_release(rmpi_engine_t *e, struct rmp_win *w)
{
    rmpi_rma_forget(e, w);
    for (int i = 0; i < e->tls.num; i++)
        if (w->mr[i])
            e->tls.v[i].iface->mem_dereg(e->tls.v[i].tl, w->mr[i]);
    if (w->mapped) {
        for (int r = 0; r < (w->comm ? w->comm->size : 0); r++)
            if (w->mapped[r] && r != w->comm->rank)
                munmap(w->mapped[r], w->seglen > 0 ? (size_t)w->peers[r].bytes : 0);
    }
    if (w->allocated)
        rmpi_shmem_destroy(&w->mem);
    if (w->id < e->rma.win_ntable && e->rma.win_table[w->id] == w) {
        e->rma.win_table[w->id] = NULL;
        __atomic_sub_fetch(&e->p2p.windows, 1, __ATOMIC_RELAXED);
    }
    free(w->peers);
    free(w->mapped);
    free(w->regions);
    w->peers = NULL;
    w->mapped = NULL;
    w->regions = NULL;
    w->nregions = w->capregions = 0;
    w->live = 0;
    w->next_dead = NULL;
    if (e->rma.win_dead_new)
        e->rma.win_dead_new->next_dead = w;
    else
        e->rma.win_dead_old = w;
    e->rma.win_dead_new = w;
    e->rma.win_ndead++;
}

/* A zeroed window struct: the oldest released one past the quarantine, or new. */
static struct rmp_win *win_new_struct(rmpi_engine_t *e)
{
    if (e->rma.win_ndead <= WIN_QUARANTINE)
        return calloc(1, sizeof(struct rmp_win));
    struct rmp_win *w = e->rma.win_dead_old;
    e->rma.win_dead_old = w->next_dead;
    e->rma.win_ndead--;
    memset(w, 0, sizeof(*w));
    return w;
}

/* At rmp_finalize, after the closing fence (nobody accesses a window any
 * more) and before the transports go: windows the program did not free are
 * released, then every window struct is freed. */
void rmpi_rma_fini(rmpi_engine_t *e)
{
    for (uint32_t i = 0; i < e->rma.win_ntable; i++)
        if (e->rma.win_table[i] && e->rma.win_table[i]->live)
            win_release(e, e->rma.win_table[i]);
    while (e->rma.win_dead_old) {
        struct rmp_win *w = e->rma.win_dead_old;
        e->rma.win_dead_old = w->next_dead;
        free(w);
    }
    e->rma.win_dead_new = NULL;
    e->rma.win_ndead = 0;
    free(e->rma.win_table);
    e->rma.win_table = NULL;
    e->rma.win_ntable = 0;
}

static size_t win_pagesize(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return n == 0 ? pg : (n + pg - 1) / pg * pg;
}

/* Library memory in a shared segment, so that same-node ranks map it. Not
 * populated: a page is made when first touched, as malloc's are, so a window
 * of 1 GiB a rank costs nothing until used (populated, every creation zeroed
 * the whole segment and every same-node peer mapped it page by page). */
static int win_alloc_segment(struct rmp_win *w, size_t bytes)
{
    w->seglen = win_pagesize(bytes);
    int rc = rmpi_shmem_create(w->seglen, "rmp-win", 0, &w->mem);
    if (rc == RMP_SUCCESS)
        w->base = w->mem.addr;
    return rc;
}

static int win_map_peers(rmpi_engine_t *e, struct rmp_win *w)
{
    int n = w->comm->size;
    w->mapped = calloc((size_t)n, sizeof(void *));
    if (!w->mapped)
        return RMP_ERR_NOMEM;
    int mynode = e->job.node_of[e->job.rank];
    for (int r = 0; r < n; r++) {
        rmpi_win_entry_t *pe = &w->peers[r];
        if (r == w->comm->rank || !pe->allocated ||
            e->job.node_of[rmpi_comm_world_rank(w->comm, r)] != mynode)
            continue;
        /* The entry comes from the peer: a name without its NUL or a size
         * that rounds past 2^64 is not mapped (the transport path checks). */
        void *p = NULL;
        if (memchr(pe->seg, '\0', sizeof(pe->seg)) && pe->bytes <= SIZE_MAX / 2 &&
            rmpi_shmem_attach(pe->seg, win_pagesize(pe->bytes), 0, &p) == RMP_SUCCESS)
            w->mapped[r] = p; /* otherwise it goes through the transport */
    }
    return RMP_SUCCESS;
}

static int win_create(void *base, size_t bytes, rmp_comm_t comm, int allocate, int dynamic,
                      void **out_base, rmp_win_t *out)
{
    rmpi_engine_t *e = &rmpi_eng;
    /* A failed creation leaves RMP_WIN_NULL, never the caller's old value: a program that
     * goes on with the variable (a survivor after a member died, say) gets RMP_ERR_ARG for
     * a NULL window, not "freed window" for whatever its previous window was. */
    if (out)
        *out = RMP_WIN_NULL;
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!out || (!allocate && base == NULL && bytes > 0) || (allocate && !out_base))
        return RMP_ERR_ARG;
    struct rmp_win *w = win_new_struct(e);
    if (!w)
        return RMP_ERR_NOMEM;
    w->magic = RMPI_WIN_MAGIC;
    w->comm = comm;
    w->bytes = bytes;
    w->base = base;
    w->allocated = allocate;
    w->dynamic = dynamic;
    w->mem.fd = -1;
    rc = win_register_id(e, w);
    if (rc == RMP_SUCCESS && allocate)
        rc = win_alloc_segment(w, bytes);
    rmpi_win_entry_t me;
    memset(&me, 0, sizeof(me));
    me.base = (uint64_t)(uintptr_t)w->base;
    me.bytes = bytes;
    me.id = w->id;
    me.allocated = (uint32_t)allocate;
    me.dynamic = (uint32_t)dynamic;
    snprintf(me.seg, sizeof(me.seg), "%s", w->allocated ? w->mem.name : "");
    for (int i = 0; rc == RMP_SUCCESS && i < e->tls.num && i < RMPI_TL_MAX; i++) {
        const rmpi_tl_iface_t *t = e->tls.v[i].iface;
        if (t->mem_reg && bytes > 0)
            rc = t->mem_reg(e->tls.v[i].tl, w->base, bytes, &w->mr[i], &me.keys[i]);
    }
    /* Live from here on: a faster peer may reach it as soon as it has our
     * entry, before this rank returns from the collective. */
    w->live = 1;
    /* Everybody learns everybody's window, even when one rank failed, so
     * that the collective ends on every rank with the same outcome. */
    w->peers = calloc((size_t)comm->size, sizeof(rmpi_win_entry_t));
    if (!w->peers) {
        win_release(e, w);
        return RMP_ERR_NOMEM;
    }
    me.status = rc;
    w->peers[comm->rank] = me;
    rc = rmpi_xchg_allgather(comm, RMPI_TAG_CORE_WIN, w->peers, sizeof(me));
    for (int r = 0; rc == RMP_SUCCESS && r < comm->size; r++)
        if (w->peers[r].status != RMP_SUCCESS)
            rc = w->peers[r].status < 0 ? w->peers[r].status : RMP_ERR_TRANSPORT;
    if (rc == RMP_SUCCESS && allocate)
        rc = win_map_peers(e, w);
    /* Once every same-node rank has mapped it, the descriptor can go. */
    if (rc == RMP_SUCCESS && allocate)
        rc = rmpi_xchg_barrier(comm);
    if (allocate)
        rmpi_shmem_seal(&w->mem);
    if (rc != RMP_SUCCESS) {
        rmpi_error("window creation failed: %s", rmp_strerror(rc));
        win_release(e, w);
        return rc;
    }
    if (allocate)
        *out_base = w->base; /* zero-filled: a new segment */
    *out = w;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_win_create(void *base, size_t bytes, rmp_comm_t comm, rmp_win_t *win)
{
    return win_create(base, bytes, comm, 0, 0, NULL, win);
}

RMP_EXPORT int rmp_win_allocate(size_t bytes, rmp_comm_t comm, void **base, rmp_win_t *win)
{
    return win_create(NULL, bytes, comm, 1, 0, base, win);
}

RMP_EXPORT int rmp_win_create_dynamic(rmp_comm_t comm, rmp_win_t *win)
{
    return win_create(NULL, 0, comm, 0, 1, NULL, win);
}

/* ---- regions of dynamic windows (local: no other rank is told) ---- */

/* The region holding addr, grown by the regions attached right behind it: one access
 * may span regions that touch (MPI only forbids overlap), e.g. two halves of an array. */
int rmpi_win_region(const struct rmp_win *w, uint64_t addr, uint64_t bytes,
                    rmpi_win_region_t *out)
{
    int i = 0;
    while (i < w->nregions && !(addr >= w->regions[i].base &&
                                addr - w->regions[i].base <= w->regions[i].bytes))
        i++;
    if (i == w->nregions)
        return 0;
    rmpi_win_region_t run = w->regions[i];
    for (int grown = 1; grown;) {
        grown = 0;
        for (int j = 0; j < w->nregions; j++) {
            if (w->regions[j].base == run.base + run.bytes && w->regions[j].bytes > 0) {
                run.bytes += w->regions[j].bytes;
                grown = 1;
            }
        }
    }
    *out = run;
    return bytes <= run.bytes - (addr - run.base);
}

RMPI_MT_BODY int win_attach_locked(rmp_win_t win, void *base, size_t bytes)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_rma_check_win(e, win);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!win->dynamic || (!base && bytes > 0) || (uintptr_t)base > UINTPTR_MAX - bytes)
        return RMP_ERR_ARG;
    uintptr_t b = (uintptr_t)base;
    for (int i = 0; i < win->nregions; i++) {
        const rmpi_win_region_t *r = &win->regions[i];
        if (b < r->base + r->bytes && r->base < b + bytes) {
            rmpi_warn("rmp_win_attach: [%p, +%zu) overlaps a region attached before", base,
                      bytes);
            return RMP_ERR_ARG; /* MPI: attached memory may not overlap */
        }
    }
    if (win->nregions == win->capregions) {
        int cap = win->capregions ? 2 * win->capregions : 8;
        rmpi_win_region_t *t = realloc(win->regions, (size_t)cap * sizeof(*t));
        if (!t)
            return RMP_ERR_NOMEM;
        win->regions = t;
        win->capregions = cap;
    }
    win->regions[win->nregions++] = (rmpi_win_region_t){b, bytes};
    return RMP_SUCCESS;
}

RMPI_MT_BODY int win_detach_locked(rmp_win_t win, const void *base)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_rma_check_win(e, win);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!win->dynamic)
        return RMP_ERR_ARG;
    for (int i = 0; i < win->nregions; i++) {
        if (win->regions[i].base == (uintptr_t)base) {
            win->regions[i] = win->regions[--win->nregions];
            return RMP_SUCCESS;
        }
    }
    rmpi_warn("rmp_win_detach: %p is not the start of an attached region", base);
    return RMP_ERR_ARG;
}

RMPI_MT_ENTRY(RMP_EXPORT, rmp_win_attach, win_attach_locked,
    (rmp_win_t win, void *base, size_t bytes), (win, base, bytes))
RMPI_MT_ENTRY(RMP_EXPORT, rmp_win_detach, win_detach_locked,
    (rmp_win_t win, const void *base), (win, base))

RMP_EXPORT int rmp_win_free(rmp_win_t *win)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (!win)
        return RMP_ERR_ARG;
    int rc = rmpi_rma_check_win(e, *win);
    if (rc != RMP_SUCCESS)
        return rc;
    struct rmp_win *w = *win;
    /* Operations a flush already gave up on (RMP_TIMEOUT: puts by message to a target
     * that does not progress) are not waited for a second time: the caller was told. */
    rc = w->flush_gave_up ? RMP_ERR_TIMEOUT : rmp_win_flush_all(w);
    /* Nobody may still be accessing our memory when it goes. */
    int brc = rmpi_xchg_barrier(w->comm);
    win_release(e, w);
    *win = RMP_WIN_NULL;
    return rc != RMP_SUCCESS ? rc : brc;
}
