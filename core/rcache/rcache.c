/* SPDX-License-Identifier: BSD-3-Clause */
/* Registration cache: interval tree, reference counts, LRU, deferred invalidation.
 *
 * Invariant: the regions in the tree are pairwise disjoint (they may touch). A lookup is
 * then one predecessor search. On a miss the new region absorbs every region it overlaps
 * (required for disjointness) and every unused region it touches (fewer, larger
 * registrations). An absorbed or invalidated region that is still in use leaves the tree
 * ("retired") and is deregistered at its last put, so nothing in use is ever deregistered
 * under its user and nothing retired is ever handed out again.
 *
 * Hooks never take the cache lock (they can fire inside malloc, holding an arena lock that
 * ops->reg/dereg may need: ABBA). They push ranges into a small lock-free slot array that
 * the owner drains, under the lock, before every lookup. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rcache.h"
#include "rcache_int.h"

#define RCACHE_QUEUE_LEN 64
#define RCACHE_DRAIN_ROUNDS 4

enum { SLOT_FREE, SLOT_BUSY, SLOT_READY };

struct rcache_slot {
    atomic_int state;
    uintptr_t lo, hi; /* written by the producer between BUSY and READY */
};

struct rcache_entry {
    rcache_region_t pub;
    uintptr_t start, end;
    struct rcache_entry *left, *right;
    struct rcache_entry *lru_prev, *lru_next; /* on the LRU list iff unused and in the tree */
    struct rcache_entry *next;                /* scratch list while the lock is held */
    uint32_t refcount;
    int height;
    int in_tree;
};

struct rcache {
    rcache_ops_t ops;
    void *ctx;
    size_t max_bytes;
    uintptr_t page_mask;
    pthread_mutex_t lock;
    struct rcache_entry *root;
    size_t tree_count;
    struct rcache_entry lru; /* sentinel: lru.lru_next is the least recently used */
    rcache_stats_t st;
    int sub_slot;
    /* Read by the hooks without the lock: bounds of what the tree may contain. */
    _Atomic uintptr_t span_lo, span_hi;
    atomic_uint pending;  /* > 0: slots or overflow may need draining */
    atomic_int overflow;  /* the queue was full: invalidate everything */
    struct rcache_slot q[RCACHE_QUEUE_LEN];
};

#define entry_of(r) ((struct rcache_entry *)((char *)(r) - offsetof(struct rcache_entry, pub)))

/* ---- AVL tree keyed by start (unique: regions are disjoint) ---- */

static int tree_h(const struct rcache_entry *n) { return n ? n->height : 0; }

static void tree_fix(struct rcache_entry *n)
{
    int l = tree_h(n->left), r = tree_h(n->right);
    n->height = 1 + (l > r ? l : r);
}

static struct rcache_entry *tree_rot_right(struct rcache_entry *n)
{
    struct rcache_entry *l = n->left;
    n->left = l->right;
    l->right = n;
    tree_fix(n);
    tree_fix(l);
    return l;
}

static struct rcache_entry *tree_rot_left(struct rcache_entry *n)
{
    struct rcache_entry *r = n->right;
    n->right = r->left;
    r->left = n;
    tree_fix(n);
    tree_fix(r);
    return r;
}

static struct rcache_entry *tree_balance(struct rcache_entry *n)
{
    int b = tree_h(n->left) - tree_h(n->right);

    tree_fix(n);
    if (b > 1) {
        if (tree_h(n->left->left) < tree_h(n->left->right))
            n->left = tree_rot_left(n->left);
        return tree_rot_right(n);
    }
    if (b < -1) {
        if (tree_h(n->right->right) < tree_h(n->right->left))
            n->right = tree_rot_right(n->right);
        return tree_rot_left(n);
    }
    return n;
}

static struct rcache_entry *tree_insert(struct rcache_entry *n, struct rcache_entry *e)
{
    if (!n) {
        e->left = e->right = NULL;
        e->height = 1;
        return e;
    }
    if (e->start < n->start)
        n->left = tree_insert(n->left, e);
    else
        n->right = tree_insert(n->right, e);
    return tree_balance(n);
}

static struct rcache_entry *tree_remove_min(struct rcache_entry *n, struct rcache_entry **min)
{
    if (!n->left) {
        *min = n;
        return n->right;
    }
    n->left = tree_remove_min(n->left, min);
    return tree_balance(n);
}

static struct rcache_entry *tree_remove(struct rcache_entry *n, const struct rcache_entry *e)
{
    struct rcache_entry *min;

    if (!n)
        return NULL;
    if (e->start < n->start) {
        n->left = tree_remove(n->left, e);
    } else if (e->start > n->start) {
        n->right = tree_remove(n->right, e);
    } else {
        if (!n->right)
            return n->left;
        n->right = tree_remove_min(n->right, &min);
        min->left = n->left;
        min->right = n->right;
        return tree_balance(min);
    }
    return tree_balance(n);
}

/* The region with the largest start <= addr. */
static struct rcache_entry *tree_pred(struct rcache_entry *n, uintptr_t addr)
{
    struct rcache_entry *best = NULL;

    while (n) {
        if (n->start <= addr) {
            best = n;
            n = n->right;
        } else {
            n = n->left;
        }
    }
    return best;
}

/* Push on *list every region touching [lo, hi]: start <= hi and end >= lo. Regions left of
   n end at or before n->start, so the left subtree matters only when n->start >= lo. */
static void tree_touching(struct rcache_entry *n, uintptr_t lo, uintptr_t hi,
                          struct rcache_entry **list)
{
    while (n) {
        if (n->start > hi) {
            n = n->left;
            continue;
        }
        if (n->end >= lo) {
            n->next = *list;
            *list = n;
        }
        if (n->start >= lo)
            tree_touching(n->left, lo, hi, list);
        n = n->right;
    }
}

/* ---- region life cycle (lock held) ---- */

static void lru_unlink(struct rcache_entry *e)
{
    e->lru_prev->lru_next = e->lru_next;
    e->lru_next->lru_prev = e->lru_prev;
    e->lru_prev = e->lru_next = NULL;
}

static void lru_push_mru(rcache_t *rc, struct rcache_entry *e)
{
    e->lru_next = &rc->lru;
    e->lru_prev = rc->lru.lru_prev;
    rc->lru.lru_prev->lru_next = e;
    rc->lru.lru_prev = e;
}

static void region_unlink(rcache_t *rc, struct rcache_entry *e)
{
    rc->root = tree_remove(rc->root, e);
    e->in_tree = 0;
    if (e->lru_next)
        lru_unlink(e);
    if (--rc->tree_count == 0) {
        atomic_store(&rc->span_lo, UINTPTR_MAX);
        atomic_store(&rc->span_hi, 0);
    }
}

static void region_free(rcache_t *rc, struct rcache_entry *e)
{
    rc->ops.dereg(rc->ctx, e->pub.handle);
    rc->st.bytes -= e->pub.len;
    rc->st.regions--;
    free(e);
}

/* Take e out of the tree; deregister it now if unused, else at its last put. */
static void region_retire(rcache_t *rc, struct rcache_entry *e)
{
    region_unlink(rc, e);
    if (e->refcount == 0)
        region_free(rc, e);
}

static void rcache_invalidate_locked(rcache_t *rc, uintptr_t lo, uintptr_t hi)
{
    struct rcache_entry *list = NULL, *e, *next;

    if (lo >= hi || !rc->root)
        return;
    tree_touching(rc->root, lo, hi, &list);
    for (e = list; e; e = next) {
        next = e->next;
        if (e->start >= hi || e->end <= lo)
            continue; /* only adjacent */
        rc->st.invalidations++;
        region_retire(rc, e);
    }
}

/* Apply what the hooks queued. See rcache_notify_unmap for the ordering argument. */
static void rcache_drain(rcache_t *rc)
{
    int round, i;

    for (round = 0; round < RCACHE_DRAIN_ROUNDS; round++) {
        if (atomic_load(&rc->pending) == 0 || atomic_exchange(&rc->pending, 0) == 0)
            return;
        if (atomic_exchange(&rc->overflow, 0))
            rcache_invalidate_locked(rc, 0, UINTPTR_MAX);
        for (i = 0; i < RCACHE_QUEUE_LEN; i++) {
            struct rcache_slot *s = &rc->q[i];
            uintptr_t lo, hi;

            if (atomic_load_explicit(&s->state, memory_order_acquire) != SLOT_READY)
                continue;
            lo = s->lo;
            hi = s->hi;
            atomic_store_explicit(&s->state, SLOT_FREE, memory_order_release);
            rcache_invalidate_locked(rc, lo, hi);
        }
    }
}

static void rcache_evict_to_limit(rcache_t *rc)
{
    while (rc->st.bytes > rc->max_bytes && rc->lru.lru_next != &rc->lru) {
        rc->st.evictions++;
        region_retire(rc, rc->lru.lru_next);
    }
}

static void rcache_evict_all_unused(rcache_t *rc)
{
    while (rc->lru.lru_next != &rc->lru) {
        rc->st.evictions++;
        region_retire(rc, rc->lru.lru_next);
    }
}

/* Which regions a miss on [s, e) absorbs, and the resulting range. Overlapping regions are
   always absorbed; touching ones only when unused and with_adjacent. */
static struct rcache_entry *rcache_plan(rcache_t *rc, uintptr_t s, uintptr_t e,
                                        int with_adjacent, uintptr_t *lo, uintptr_t *hi,
                                        int *widened)
{
    struct rcache_entry *list = NULL, *absorb = NULL, *x, *next;

    *lo = s;
    *hi = e;
    *widened = 0;
    tree_touching(rc->root, s, e, &list);
    for (x = list; x; x = next) {
        next = x->next;
        if (x->start >= e || x->end <= s) {
            if (!with_adjacent || x->refcount)
                continue;
            *widened = 1;
        }
        if (x->start < *lo)
            *lo = x->start;
        if (x->end > *hi)
            *hi = x->end;
        x->next = absorb;
        absorb = x;
    }
    return absorb;
}

static void rcache_span_add(rcache_t *rc, uintptr_t lo, uintptr_t hi)
{
    if (lo < atomic_load(&rc->span_lo))
        atomic_store(&rc->span_lo, lo);
    if (hi > atomic_load(&rc->span_hi))
        atomic_store(&rc->span_hi, hi);
}

static int rcache_miss(rcache_t *rc, uintptr_t s, uintptr_t e, struct rcache_entry **out)
{
    struct rcache_entry *n, *absorb, *x, *next;
    int with_adjacent = 1, evicted = 0, widened, status;
    uintptr_t lo, hi;
    void *handle;

    n = calloc(1, sizeof(*n));
    if (!n)
        return RMP_ERR_NOMEM;
    for (;;) {
        absorb = rcache_plan(rc, s, e, with_adjacent, &lo, &hi, &widened);
        /* Widen the hooks' filter first: an unmap racing with ops->reg gets queued. */
        rcache_span_add(rc, lo, hi);
        status = rc->ops.reg(rc->ctx, (void *)lo, hi - lo, &handle);
        if (status == RMP_SUCCESS)
            break;
        if (widened) {
            with_adjacent = 0; /* e.g. a neighbour with other protections */
        } else if (status == RMP_ERR_NOMEM && !evicted && rc->lru.lru_next != &rc->lru) {
            rcache_evict_all_unused(rc);
            evicted = 1;
        } else {
            goto err_free;
        }
    }
    for (x = absorb; x; x = next) {
        next = x->next;
        rc->st.merges++;
        region_retire(rc, x);
    }
    n->pub.addr = (void *)lo;
    n->pub.len = hi - lo;
    n->pub.handle = handle;
    n->start = lo;
    n->end = hi;
    n->refcount = 1;
    n->in_tree = 1;
    rc->root = tree_insert(rc->root, n);
    rc->tree_count++;
    rcache_span_add(rc, lo, hi); /* again: eviction may have reset it when the tree emptied */
    rc->st.misses++;
    rc->st.bytes += n->pub.len;
    rc->st.regions++;
    rcache_evict_to_limit(rc);
    *out = n;
    return RMP_SUCCESS;

err_free:
    free(n);
    return status;
}

/* ---- public ---- */

int rcache_create(const rcache_ops_t *ops, void *ctx, size_t max_bytes, rcache_t **out)
{
    rcache_t *rc;
    long page;
    int i, status;

    if (!ops || !ops->reg || !ops->dereg || !out)
        return RMP_ERR_ARG;
    rc = calloc(1, sizeof(*rc));
    if (!rc)
        return RMP_ERR_NOMEM;
    page = sysconf(_SC_PAGESIZE);
    rc->ops = *ops;
    rc->ctx = ctx;
    rc->max_bytes = max_bytes;
    rc->page_mask = (uintptr_t)(page > 0 ? page : 4096) - 1;
    rc->lru.lru_next = rc->lru.lru_prev = &rc->lru;
    atomic_init(&rc->span_lo, UINTPTR_MAX);
    atomic_init(&rc->span_hi, 0);
    atomic_init(&rc->pending, 0);
    atomic_init(&rc->overflow, 0);
    for (i = 0; i < RCACHE_QUEUE_LEN; i++)
        atomic_init(&rc->q[i].state, SLOT_FREE);
    if (pthread_mutex_init(&rc->lock, NULL)) {
        status = RMP_ERR_NOMEM;
        goto err_free;
    }
    rc->sub_slot = rcache_hooks_subscribe(rc);
    if (rc->sub_slot < 0) {
        status = RMP_ERR_INTERNAL;
        goto err_mutex;
    }
    *out = rc;
    return RMP_SUCCESS;

err_mutex:
    pthread_mutex_destroy(&rc->lock);
err_free:
    free(rc);
    return status;
}

int rcache_get(rcache_t *rc, const void *addr, size_t len, rcache_region_t **region)
{
    uintptr_t a = (uintptr_t)addr, s, e;
    struct rcache_entry *n;
    int status = RMP_SUCCESS;

    if (!rc || !addr || !len || !region || a + len < a)
        return RMP_ERR_ARG;
    s = a & ~rc->page_mask;
    e = (a + len + rc->page_mask) & ~rc->page_mask;
    if (e == 0)
        return RMP_ERR_ARG; /* the last page of the address space */

    pthread_mutex_lock(&rc->lock);
    rcache_drain(rc);
    n = tree_pred(rc->root, s);
    if (n && n->end >= e) {
        if (n->refcount++ == 0)
            lru_unlink(n);
        rc->st.hits++;
    } else {
        status = rcache_miss(rc, s, e, &n);
        /* Unmaps queued during ops->reg may concern the new region: it stays with the
           caller (who raced with its own unmap) but is not cached. */
        rcache_drain(rc);
    }
    pthread_mutex_unlock(&rc->lock);
    if (status == RMP_SUCCESS)
        *region = &n->pub;
    return status;
}

void rcache_put(rcache_t *rc, rcache_region_t *region)
{
    struct rcache_entry *n;

    if (!rc || !region)
        return;
    n = entry_of(region);
    pthread_mutex_lock(&rc->lock);
    rcache_drain(rc);
    if (n->refcount > 0 && --n->refcount == 0) {
        if (!n->in_tree) {
            region_free(rc, n);
        } else {
            lru_push_mru(rc, n);
            rcache_evict_to_limit(rc);
        }
    }
    pthread_mutex_unlock(&rc->lock);
}

void rcache_invalidate(rcache_t *rc, const void *addr, size_t len)
{
    uintptr_t lo = (uintptr_t)addr, hi = lo + len;

    if (!rc || !len)
        return;
    if (hi < lo)
        hi = UINTPTR_MAX;
    pthread_mutex_lock(&rc->lock);
    rcache_drain(rc);
    rcache_invalidate_locked(rc, lo, hi);
    pthread_mutex_unlock(&rc->lock);
}

void rcache_flush(rcache_t *rc)
{
    if (!rc)
        return;
    pthread_mutex_lock(&rc->lock);
    rcache_drain(rc);
    pthread_mutex_unlock(&rc->lock);
}

static void rcache_free_tree(rcache_t *rc, struct rcache_entry *n)
{
    if (!n)
        return;
    rcache_free_tree(rc, n->left);
    rcache_free_tree(rc, n->right);
    region_free(rc, n);
}

void rcache_destroy(rcache_t *rc)
{
    if (!rc)
        return;
    rcache_hooks_unsubscribe(rc->sub_slot);
    pthread_mutex_lock(&rc->lock);
    /* Retired regions still in use are only reachable by their users: they leak. */
    rcache_free_tree(rc, rc->root);
    rc->root = NULL;
    pthread_mutex_unlock(&rc->lock);
    pthread_mutex_destroy(&rc->lock);
    free(rc);
}

void rcache_stats(const rcache_t *rc, rcache_stats_t *st)
{
    if (!rc || !st)
        return;
    pthread_mutex_lock((pthread_mutex_t *)&rc->lock);
    *st = rc->st;
    pthread_mutex_unlock((pthread_mutex_t *)&rc->lock);
}

/* Hook side: any thread, no lock, no allocation. The slot is published (READY, release)
   before pending is raised, and the owner clears pending before scanning: an unmap whose
   hook returned before a rcache_get started is always applied by that get. */
void rcache_notify_unmap(rcache_t *rc, uintptr_t lo, uintptr_t hi)
{
    int i;

    if (hi <= atomic_load(&rc->span_lo) || lo >= atomic_load(&rc->span_hi))
        return;
    for (i = 0; i < RCACHE_QUEUE_LEN; i++) {
        struct rcache_slot *s = &rc->q[i];
        int expected = SLOT_FREE;

        if (atomic_load_explicit(&s->state, memory_order_relaxed) != SLOT_FREE ||
            !atomic_compare_exchange_strong(&s->state, &expected, SLOT_BUSY))
            continue;
        s->lo = lo;
        s->hi = hi;
        atomic_store_explicit(&s->state, SLOT_READY, memory_order_release);
        atomic_fetch_add(&rc->pending, 1);
        return;
    }
    /* Full: over-invalidating is always safe. */
    atomic_store(&rc->overflow, 1);
    atomic_fetch_add(&rc->pending, 1);
}
