/* SPDX-License-Identifier: BSD-3-Clause */
/* rcache: memory registration cache, transport-agnostic.
 *
 * A transport gives two callbacks (register, deregister); the cache keeps page-aligned
 * registered intervals in a balanced tree, reference-counts their users, merges a miss with
 * the cached regions it overlaps or touches, evicts unused regions in LRU order above a byte
 * limit, and drops regions whose memory is unmapped or remapped (munmap, mremap, madvise
 * DONTNEED/FREE/REMOVE, MAP_FIXED mmap, brk/sbrk shrink, including the calls made inside
 * libc's free()) once rcache_hooks_install() has succeeded. See docs/rcache.md.
 *
 * Threads: every rcache_* call on one cache is serialised by the cache's lock; the memory
 * hooks may fire on any thread (even inside malloc or a signal handler): they only queue
 * the range without locks, and the queue is applied at the start and end of the next
 * rcache_get / rcache_put / rcache_invalidate / rcache_flush on that cache, always before a
 * lookup. Callbacks run with the cache lock held, on the calling thread, and must not call
 * back into the same cache.
 */
#ifndef RMP_RCACHE_H
#define RMP_RCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "rmp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rcache rcache_t;

typedef struct rcache_ops {
    /* Register [addr, addr + len) (page-aligned by the cache) and set *handle.
       Returns RMP_SUCCESS or a negative RMP_ERR_* (RMP_ERR_NOMEM makes the cache evict
       every unused region and retry once; any other error is returned to the caller of
       rcache_get as is). May allocate and may unmap memory. */
    int (*reg)(void *ctx, void *addr, size_t len, void **handle);
    /* Deregister a handle returned by reg. Errors are ignored (the region is gone). */
    int (*dereg)(void *ctx, void *handle);
} rcache_ops_t;

/* What rcache_get hands out. Read-only for the user; valid until rcache_put. The region
   covers the requested range: addr <= request and addr + len >= request end. */
typedef struct rcache_region {
    void *addr;
    size_t len;
    void *handle; /* what ops->reg returned */
} rcache_region_t;

typedef struct {
    uint64_t hits;          /* rcache_get served by a cached region */
    uint64_t misses;        /* rcache_get that registered a new region */
    uint64_t evictions;     /* unused regions dropped by the byte limit */
    uint64_t invalidations; /* regions dropped because their memory changed */
    uint64_t merges;        /* cached regions absorbed into a new, larger one */
    size_t bytes;           /* bytes currently registered (cached or in use) */
    size_t regions;         /* regions currently registered */
} rcache_stats_t;

/* max_bytes: limit on registered bytes; above it, unused regions are deregistered oldest
   first. In-use regions are never evicted, so the limit can be exceeded by them. 0 caches
   nothing (a region is deregistered at its last put); SIZE_MAX is unlimited.
   Returns RMP_SUCCESS, RMP_ERR_ARG, RMP_ERR_NOMEM, or RMP_ERR_INTERNAL when the
   process-wide table of caches watched by the hooks is full. */
int rcache_create(const rcache_ops_t *ops, void *ctx, size_t max_bytes, rcache_t **out);

/* Find or register a region covering [addr, addr + len); takes a reference.
   Returns RMP_SUCCESS, RMP_ERR_ARG (NULL addr, len 0, wrap-around), RMP_ERR_NOMEM, or the
   error of ops->reg (nothing is cached then). *region is written only on success. */
int rcache_get(rcache_t *rc, const void *addr, size_t len, rcache_region_t **region);

/* Drop a reference. At zero the region stays cached (most recently used) unless it was
   invalidated or replaced meanwhile, or the byte limit is exceeded. */
void rcache_put(rcache_t *rc, rcache_region_t *region);

/* Drop every cached region overlapping [addr, addr + len): deregistered now when unused,
   at its last rcache_put otherwise; later lookups never return it. */
void rcache_invalidate(rcache_t *rc, const void *addr, size_t len);

/* Apply invalidations queued by the memory hooks now (rcache_get does it anyway). */
void rcache_flush(rcache_t *rc);

/* Deregister everything. Regions still in use are deregistered too (a leak by the
   caller); their pointers become invalid. NULL is accepted. */
void rcache_destroy(rcache_t *rc);

/* Counters; invalidations queued by hooks but not yet applied are not counted. */
void rcache_stats(const rcache_t *rc, rcache_stats_t *st);

/* Install the process-wide memory hooks (idempotent, thread-safe). Call it early (rmp_init,
   before PMIx starts its threads), and only in processes that cache registrations (the
   verbs transport). Returns RMP_SUCCESS or RMP_ERR_NOT_SUPPORTED (other threads exist, so
   the non-atomic patch is not written; unknown libc layout, text not writable, another
   library already patched the functions, or the self-test failed: freeing a 33 MiB block
   did not reach the hook): the caller should then not cache registrations across calls. */
int rcache_hooks_install(void);

/* 1 once rcache_hooks_install() has succeeded. */
int rcache_hooks_active(void);

/* Why the hooks are not active (a static string), or "installed". */
const char *rcache_hooks_why(void);

#ifdef __cplusplus
}
#endif

#endif /* RMP_RCACHE_H */
