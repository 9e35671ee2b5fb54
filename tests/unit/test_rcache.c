/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for core/rcache: interval logic with fake reg/dereg, then real invalidation
   through the memory hooks (free, munmap, madvise, mremap, brk). */
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/rcache/rcache.h"

/* ---- fake transport: records calls, checks that no handle is deregistered twice ---- */

#define FAKE_MAX 65536

struct fake_reg {
    uintptr_t addr;
    size_t len;
    int live;
};

struct fake {
    struct fake_reg regs[FAKE_MAX]; /* handle = index + 1 */
    int nreg, ndereg;
    int fail_status;       /* returned by reg when fail_len_above or fail_count match */
    size_t fail_len_above; /* reg of more than this fails (0: never) */
    int fail_count;        /* the next n regs fail */
    uintptr_t fail_addr;   /* reg of a range containing this address fails */
    size_t live_limit;     /* reg fails with NOMEM when live bytes would exceed it */
    size_t live_bytes;
    int dereg_frees;       /* dereg mallocs and frees a large block (hook inside dereg) */
    uintptr_t last_dereg_addr;
    int errors;
};

static size_t P;
static const uintptr_t B = (uintptr_t)1 << 44; /* far from the heap and from mmap */

/* No cmocka assertion in here: failing inside a callback would longjmp out of the cache
   with its lock held. Problems are counted and checked by teardown. */
static int fake_reg(void *ctx, void *addr, size_t len, void **handle)
{
    struct fake *f = ctx;
    uintptr_t a = (uintptr_t)addr;

    if (a % P || len % P || f->nreg >= FAKE_MAX) {
        f->errors++;
        return RMP_ERR_INTERNAL;
    }
    if (f->fail_count > 0) {
        f->fail_count--;
        return f->fail_status;
    }
    if (f->fail_len_above && len > f->fail_len_above)
        return f->fail_status;
    if (f->fail_addr && a <= f->fail_addr && f->fail_addr < a + len)
        return f->fail_status;
    if (f->live_limit && f->live_bytes + len > f->live_limit)
        return RMP_ERR_NOMEM;
    f->regs[f->nreg] = (struct fake_reg){a, len, 1};
    f->live_bytes += len;
    *handle = (void *)(uintptr_t)(++f->nreg);
    return RMP_SUCCESS;
}

static int fake_dereg(void *ctx, void *handle)
{
    struct fake *f = ctx;
    uintptr_t h = (uintptr_t)handle;

    if (h < 1 || h > (uintptr_t)f->nreg || !f->regs[h - 1].live) {
        f->errors++; /* unknown handle or deregistered twice */
        return RMP_ERR_INTERNAL;
    }
    f->regs[h - 1].live = 0;
    f->live_bytes -= f->regs[h - 1].len;
    f->last_dereg_addr = f->regs[h - 1].addr;
    f->ndereg++;
    if (f->dereg_frees) {
        char *p = malloc(8 << 20); /* above the mmap threshold: free() unmaps it */
        if (p)
            p[0] = 1;
        free(p);
    }
    return RMP_SUCCESS;
}

static const rcache_ops_t fake_ops = {fake_reg, fake_dereg};

struct fixture {
    struct fake f;
    rcache_t *rc;
};

static int setup_limit(void **state, size_t max_bytes)
{
    struct fixture *fx = calloc(1, sizeof(*fx));

    assert_non_null(fx);
    assert_int_equal(rcache_create(&fake_ops, &fx->f, max_bytes, &fx->rc), RMP_SUCCESS);
    *state = fx;
    return 0;
}

static int setup(void **state) { return setup_limit(state, SIZE_MAX); }

static int teardown(void **state)
{
    struct fixture *fx = *state;

    rcache_destroy(fx->rc);
    assert_int_equal(fx->f.errors, 0);
    assert_int_equal(fx->f.nreg, fx->f.ndereg); /* everything released */
    free(fx);
    return 0;
}

static rcache_region_t *get_ok(rcache_t *rc, uintptr_t addr, size_t len)
{
    rcache_region_t *r = NULL;

    assert_int_equal(rcache_get(rc, (void *)addr, len, &r), RMP_SUCCESS);
    assert_non_null(r);
    assert_true((uintptr_t)r->addr <= addr);
    assert_true((uintptr_t)r->addr + r->len >= addr + len);
    return r;
}

static rcache_stats_t stats(rcache_t *rc)
{
    rcache_stats_t st;

    rcache_stats(rc, &st);
    return st;
}

/* ---- interval logic ---- */

static void test_hit_and_alignment(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *r1, *r2;

    r1 = get_ok(fx->rc, B + 100, 50);
    assert_int_equal((uintptr_t)r1->addr, B);
    assert_int_equal(r1->len, P);
    assert_int_equal(fx->f.nreg, 1);
    r2 = get_ok(fx->rc, B + 10, P - 10); /* inside the same page */
    assert_ptr_equal(r1, r2);
    assert_int_equal(fx->f.nreg, 1);
    rcache_put(fx->rc, r2);
    rcache_put(fx->rc, r1);
    r1 = get_ok(fx->rc, B, 1); /* unused and cached: still a hit */
    rcache_put(fx->rc, r1);
    assert_int_equal(fx->f.ndereg, 0);
    rcache_stats_t st = stats(fx->rc);
    assert_int_equal(st.hits, 2);
    assert_int_equal(st.misses, 1);
    assert_int_equal(st.bytes, P);
    assert_int_equal(st.regions, 1);
}

static void test_merge_adjacent(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *r;

    rcache_put(fx->rc, get_ok(fx->rc, B, P));
    rcache_put(fx->rc, get_ok(fx->rc, B + 2 * P, P));
    r = get_ok(fx->rc, B + P, P); /* touches both: one region of 3 pages */
    assert_int_equal((uintptr_t)r->addr, B);
    assert_int_equal(r->len, 3 * P);
    assert_int_equal(fx->f.ndereg, 2);
    rcache_put(fx->rc, r);
    rcache_stats_t st = stats(fx->rc);
    assert_int_equal(st.merges, 2);
    assert_int_equal(st.regions, 1);
    assert_int_equal(st.bytes, 3 * P);
}

static void test_merge_overlapping(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *r;

    rcache_put(fx->rc, get_ok(fx->rc, B, 2 * P));
    r = get_ok(fx->rc, B + P, 2 * P); /* [B+P, B+3P) overlaps [B, B+2P) */
    assert_int_equal((uintptr_t)r->addr, B);
    assert_int_equal(r->len, 3 * P);
    assert_int_equal(stats(fx->rc).merges, 1);
    assert_int_equal(fx->f.ndereg, 1);
    rcache_put(fx->rc, r);
}

static void test_overlap_in_use_retired(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *held, *r, *r2;

    held = get_ok(fx->rc, B, 2 * P);
    r = get_ok(fx->rc, B + P, 2 * P);
    assert_ptr_not_equal(held, r);
    assert_int_equal((uintptr_t)r->addr, B);
    assert_int_equal(r->len, 3 * P);
    assert_int_equal(fx->f.ndereg, 0); /* in use: never deregistered under its user */
    assert_int_equal(stats(fx->rc).bytes, 5 * P);
    r2 = get_ok(fx->rc, B, P); /* lookups find the new region only */
    assert_ptr_equal(r2, r);
    rcache_put(fx->rc, r2);
    rcache_put(fx->rc, held); /* last user of the retired region */
    assert_int_equal(fx->f.ndereg, 1);
    assert_int_equal(fx->f.last_dereg_addr, B);
    assert_int_equal(stats(fx->rc).bytes, 3 * P);
    rcache_put(fx->rc, r);
    assert_int_equal(fx->f.ndereg, 1);
}

static void test_adjacent_in_use_not_merged(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *held, *r;

    held = get_ok(fx->rc, B, P);
    r = get_ok(fx->rc, B + P, P);
    assert_int_equal((uintptr_t)r->addr, B + P);
    assert_int_equal(r->len, P);
    assert_int_equal(stats(fx->rc).merges, 0);
    rcache_put(fx->rc, held);
    rcache_put(fx->rc, r);
    /* Both cached side by side; a request spanning them merges the two. */
    r = get_ok(fx->rc, B + P - 1, 2);
    assert_int_equal((uintptr_t)r->addr, B);
    assert_int_equal(r->len, 2 * P);
    rcache_put(fx->rc, r);
}

static void test_partial_overlap_lookup(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *r;

    rcache_put(fx->rc, get_ok(fx->rc, B, 4 * P));
    r = get_ok(fx->rc, B + P + 5, P); /* strictly inside: hit */
    assert_int_equal(r->len, 4 * P);
    rcache_put(fx->rc, r);
    assert_int_equal(fx->f.nreg, 1);
    r = get_ok(fx->rc, B + 3 * P, 2 * P); /* sticks out on the right: grows */
    assert_int_equal((uintptr_t)r->addr, B);
    assert_int_equal(r->len, 5 * P);
    rcache_put(fx->rc, r);
    r = get_ok(fx->rc, B - P, 2 * P); /* sticks out on the left */
    assert_int_equal((uintptr_t)r->addr, B - P);
    assert_int_equal(r->len, 6 * P);
    rcache_put(fx->rc, r);
    /* A request just left of a cached region with a gap stays separate. */
    r = get_ok(fx->rc, B - 3 * P, P);
    assert_int_equal(r->len, P);
    rcache_put(fx->rc, r);
    rcache_stats_t st = stats(fx->rc);
    assert_int_equal(st.hits, 1);
    assert_int_equal(st.misses, 4);
    assert_int_equal(st.regions, 2);
}

static void test_invalidate_in_use(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *held, *r;

    held = get_ok(fx->rc, B, 4 * P);
    rcache_invalidate(fx->rc, (void *)(B + 2 * P), 1);
    assert_int_equal(fx->f.ndereg, 0);
    assert_int_equal(stats(fx->rc).invalidations, 1);
    r = get_ok(fx->rc, B, P); /* not found any more: registered anew */
    assert_ptr_not_equal(r, held);
    assert_int_equal(fx->f.nreg, 2);
    rcache_put(fx->rc, held);
    assert_int_equal(fx->f.ndereg, 1);
    assert_int_equal(fx->f.last_dereg_addr, B);
    rcache_put(fx->rc, r);
}

static void test_invalidate_part(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *r;

    rcache_put(fx->rc, get_ok(fx->rc, B, 4 * P));
    rcache_put(fx->rc, get_ok(fx->rc, B + 8 * P, P));
    rcache_invalidate(fx->rc, (void *)(B + 3 * P), 2 * P); /* tail of the first only */
    assert_int_equal(fx->f.ndereg, 1);
    assert_int_equal(fx->f.last_dereg_addr, B);
    rcache_invalidate(fx->rc, (void *)(B + 4 * P), 4 * P); /* touches, does not overlap */
    assert_int_equal(fx->f.ndereg, 1);
    r = get_ok(fx->rc, B + 8 * P, 1);
    rcache_put(fx->rc, r);
    r = get_ok(fx->rc, B, P);
    rcache_put(fx->rc, r);
    rcache_stats_t st = stats(fx->rc);
    assert_int_equal(st.invalidations, 1);
    assert_int_equal(st.hits, 1);
    assert_int_equal(st.misses, 3);
}

static int setup_3p(void **state) { return setup_limit(state, 3 * 4096); }

static void test_lru_eviction_order(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *held;

    assert_int_equal(P, 4096);
    /* A, B, C one page each with gaps (no merging); limit 3 pages. */
    rcache_put(fx->rc, get_ok(fx->rc, B, P));
    rcache_put(fx->rc, get_ok(fx->rc, B + 2 * P, P));
    rcache_put(fx->rc, get_ok(fx->rc, B + 4 * P, P));
    rcache_put(fx->rc, get_ok(fx->rc, B, P)); /* A is now the most recent */
    assert_int_equal(fx->f.ndereg, 0);
    rcache_put(fx->rc, get_ok(fx->rc, B + 6 * P, P)); /* D: evicts B (least recent) */
    assert_int_equal(fx->f.ndereg, 1);
    assert_int_equal(fx->f.last_dereg_addr, B + 2 * P);
    held = get_ok(fx->rc, B + 8 * P, P); /* E in use: evicts C */
    assert_int_equal(fx->f.last_dereg_addr, B + 4 * P);
    /* F in use too: A then D go; the in-use ones stay even above the limit. */
    rcache_region_t *f = get_ok(fx->rc, B + 10 * P, 2 * P);
    assert_int_equal(fx->f.ndereg, 4);
    assert_int_equal(stats(fx->rc).bytes, 3 * P);
    rcache_region_t *g = get_ok(fx->rc, B + 14 * P, P);
    assert_int_equal(stats(fx->rc).bytes, 4 * P); /* nothing unused left to evict */
    rcache_put(fx->rc, g); /* over the limit: goes at once */
    assert_int_equal(fx->f.last_dereg_addr, B + 14 * P);
    rcache_put(fx->rc, held);
    rcache_put(fx->rc, f);
    rcache_stats_t st = stats(fx->rc);
    assert_int_equal(st.evictions, 5);
    assert_true(st.bytes <= 3 * P);
}

static int setup_zero(void **state) { return setup_limit(state, 0); }

static void test_zero_limit_caches_nothing(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *r1, *r2;

    r1 = get_ok(fx->rc, B, P);
    r2 = get_ok(fx->rc, B, P); /* in use: shared */
    assert_ptr_equal(r1, r2);
    rcache_put(fx->rc, r1);
    assert_int_equal(fx->f.ndereg, 0);
    rcache_put(fx->rc, r2);
    assert_int_equal(fx->f.ndereg, 1);
    assert_int_equal(stats(fx->rc).bytes, 0);
}

static void test_reg_failure(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *r = (rcache_region_t *)0x1;

    fx->f.fail_status = RMP_ERR_ACCESS;
    fx->f.fail_addr = B + 5 * P;
    assert_int_equal(rcache_get(fx->rc, (void *)(B + 5 * P), 10, &r), RMP_ERR_ACCESS);
    assert_ptr_equal(r, (rcache_region_t *)0x1); /* output untouched */
    rcache_stats_t st = stats(fx->rc);
    assert_int_equal(st.regions, 0);
    assert_int_equal(st.bytes, 0);
    assert_int_equal(st.misses, 0);
    /* The same range is retried (nothing negative is cached). */
    fx->f.fail_addr = 0;
    rcache_put(fx->rc, get_ok(fx->rc, B + 5 * P, 10));
    /* A merge that fails falls back to the request alone. */
    fx->f.fail_len_above = P;
    r = get_ok(fx->rc, B + 6 * P, P);
    assert_int_equal((uintptr_t)r->addr, B + 6 * P);
    assert_int_equal(r->len, P);
    rcache_put(fx->rc, r);
    /* Bad arguments. */
    assert_int_equal(rcache_get(fx->rc, NULL, 10, &r), RMP_ERR_ARG);
    assert_int_equal(rcache_get(fx->rc, (void *)B, 0, &r), RMP_ERR_ARG);
    assert_int_equal(rcache_get(fx->rc, (void *)UINTPTR_MAX, 2, &r), RMP_ERR_ARG);
    assert_int_equal(rcache_get(NULL, (void *)B, 1, &r), RMP_ERR_ARG);
    assert_int_equal(rcache_create(NULL, NULL, 0, &fx->rc), RMP_ERR_ARG);
}

static void test_nomem_evicts_and_retries(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *held, *r;

    fx->f.live_limit = 3 * P;
    held = get_ok(fx->rc, B, P);
    rcache_put(fx->rc, get_ok(fx->rc, B + 2 * P, P));
    rcache_put(fx->rc, get_ok(fx->rc, B + 4 * P, P));
    r = get_ok(fx->rc, B + 6 * P, P); /* NOMEM, evict the 2 unused ones, retry */
    assert_int_equal(stats(fx->rc).evictions, 2);
    assert_int_equal(fx->f.ndereg, 2);
    /* Nothing left to evict: NOMEM is returned. */
    rcache_region_t *r2 = NULL;
    assert_int_equal(rcache_get(fx->rc, (void *)(B + 8 * P), 2 * P, &r2), RMP_ERR_NOMEM);
    rcache_put(fx->rc, r);
    rcache_put(fx->rc, held);
}

/* Random operations; the fake asserts no double dereg, teardown that all are released,
   here: every returned region covers its request and is registered. */
static void test_random(void **state)
{
    struct fixture *fx = *state;
    rcache_region_t *held[64] = {0};
    unsigned seed = 12345;
    int i;

    for (i = 0; i < 20000; i++) {
        int slot = rand_r(&seed) % 64, op = rand_r(&seed) % 10;
        uintptr_t a = B + (uintptr_t)(rand_r(&seed) % (64 * P));
        size_t len = 1 + rand_r(&seed) % (4 * P);

        if (op < 6) {
            if (held[slot])
                rcache_put(fx->rc, held[slot]);
            held[slot] = get_ok(fx->rc, a, len);
            assert_true(fx->f.regs[(uintptr_t)held[slot]->handle - 1].live);
        } else if (op < 9) {
            if (held[slot])
                rcache_put(fx->rc, held[slot]);
            held[slot] = NULL;
        } else {
            rcache_invalidate(fx->rc, (void *)a, len);
        }
    }
    for (i = 0; i < 64; i++)
        if (held[i])
            rcache_put(fx->rc, held[i]);
    rcache_stats_t st = stats(fx->rc);
    assert_int_equal(st.bytes, fx->f.live_bytes);
    assert_int_equal(st.regions, (size_t)(fx->f.nreg - fx->f.ndereg));
}

static int setup_small(void **state) { return setup_limit(state, 16 * 4096); }

/* ---- real memory through the hooks ---- */

static void hooks_installed(void) { assert_int_equal(rcache_hooks_install(), RMP_SUCCESS); }

/* Sanitizer allocators replace glibc's malloc and unmap with raw system calls: the tests
   that rely on what free() does cannot pass there (docs/rcache.md, limits). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SKIP_WITHOUT_GLIBC_MALLOC() skip()
#else
#define SKIP_WITHOUT_GLIBC_MALLOC() ((void)0)
#endif

/* Register [p, p+len), drop the reference, run unmap(), flush: one more invalidation. */
#define EXPECT_INVALIDATION(fx, p, len, unmap)                                              \
    do {                                                                                    \
        rcache_region_t *r_ = get_ok((fx)->rc, (uintptr_t)(p), (len));                      \
        uint64_t before_ = stats((fx)->rc).invalidations;                                   \
        rcache_put((fx)->rc, r_);                                                           \
        unmap;                                                                              \
        rcache_flush((fx)->rc);                                                             \
        assert_int_equal(stats((fx)->rc).invalidations, before_ + 1);                       \
    } while (0)

static void test_hook_free_malloc(void **state)
{
    struct fixture *fx = *state;
    size_t len = 8 << 20; /* above the mmap threshold: free() unmaps it */
    char *p, *q;
    rcache_region_t *r;

    SKIP_WITHOUT_GLIBC_MALLOC();
    hooks_installed();
    p = malloc(len);
    assert_non_null(p);
    memset(p, 1, len);
    EXPECT_INVALIDATION(fx, p, len, free(p));
    q = malloc(len);
    assert_non_null(q);
    r = get_ok(fx->rc, (uintptr_t)q, len);
    assert_int_equal(stats(fx->rc).hits, 0); /* same address or not: never the stale one */
    rcache_put(fx->rc, r);
    free(q);
}

static void test_hook_munmap_mmap_hint(void **state)
{
    struct fixture *fx = *state;
    size_t len = 16 * P;
    char *p, *q;

    hooks_installed();
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    EXPECT_INVALIDATION(fx, p, len, munmap(p, len));
    q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(q != MAP_FAILED);
    rcache_put(fx->rc, get_ok(fx->rc, (uintptr_t)q, len));
    assert_int_equal(stats(fx->rc).hits, 0);
    /* MAP_FIXED over a registered range replaces its pages. */
    EXPECT_INVALIDATION(fx, q + P, P,
                        assert_true(mmap(q, 2 * P, PROT_READ | PROT_WRITE,
                                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == q));
    /* Partial munmap of a registered range. */
    EXPECT_INVALIDATION(fx, q, len, munmap(q + 15 * P, P));
    munmap(q, 15 * P);
}

static void test_hook_madvise_mremap(void **state)
{
    struct fixture *fx = *state;
    size_t len = 16 * P;
    char *p;
    uint64_t before;

    hooks_installed();
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    memset(p, 1, len);
    EXPECT_INVALIDATION(fx, p, len, madvise(p + P, P, MADV_DONTNEED));
    EXPECT_INVALIDATION(fx, p, len, madvise(p, len, MADV_FREE));
    /* Harmless advice is not an invalidation. */
    rcache_put(fx->rc, get_ok(fx->rc, (uintptr_t)p, len));
    before = stats(fx->rc).invalidations;
    madvise(p, len, MADV_WILLNEED);
    rcache_flush(fx->rc);
    assert_int_equal(stats(fx->rc).invalidations, before);
    EXPECT_INVALIDATION(fx, p, len, p = mremap(p, len, 64 * len, MREMAP_MAYMOVE));
    assert_true(p != MAP_FAILED);
    munmap(p, 64 * len);
}

static void test_hook_brk(void **state)
{
    struct fixture *fx = *state;
    size_t len = 16 * P;
    uintptr_t target;
    char *cur, *blocks[128];
    uint64_t before;
    int i;

    SKIP_WITHOUT_GLIBC_MALLOC();
    hooks_installed();
    /* malloc_trim() shrinks the main heap with sbrk(-n) from inside libc. The fake reg
       does not touch memory, so the region is cached first, above the current break:
       its bookkeeping must not sit at the top of the heap and block the trim. */
    target = ((uintptr_t)sbrk(0) + (1 << 20)) & ~(uintptr_t)(P - 1);
    rcache_put(fx->rc, get_ok(fx->rc, target, len));
    for (i = 0; i < 128; i++) {
        blocks[i] = malloc(64 << 10);
        assert_non_null(blocks[i]);
        memset(blocks[i], 1, 64 << 10);
    }
    assert_true((uintptr_t)sbrk(0) > target + len);
    before = stats(fx->rc).invalidations;
    for (i = 127; i >= 0; i--)
        free(blocks[i]);
    malloc_trim(0);
    assert_true((uintptr_t)sbrk(0) <= target);
    rcache_flush(fx->rc);
    assert_int_equal(stats(fx->rc).invalidations, before + 1);

    /* An explicit sbrk shrink; skipped if malloc moved the break in between. */
    cur = sbrk(0);
    rcache_put(fx->rc, get_ok(fx->rc, (uintptr_t)cur, len));
    assert_true(sbrk((intptr_t)len) == cur);
    if ((char *)sbrk(0) == cur + len) {
        before = stats(fx->rc).invalidations;
        assert_true(sbrk(-(intptr_t)len) == cur + len);
        rcache_flush(fx->rc);
        assert_int_equal(stats(fx->rc).invalidations, before + 1);
    }
}

static void *free_in_thread(void *p)
{
    free(p);
    return NULL;
}

static void test_hook_free_other_thread(void **state)
{
    struct fixture *fx = *state;
    size_t len = 4 << 20;
    char *p;
    pthread_t t;

    SKIP_WITHOUT_GLIBC_MALLOC();
    hooks_installed();
    p = malloc(len);
    assert_non_null(p);
    memset(p, 2, len);
    EXPECT_INVALIDATION(fx, p, len, (pthread_create(&t, NULL, free_in_thread, p),
                                     pthread_join(t, NULL)));
}

/* dereg frees a large block (its free() unmaps and fires the hook) while the cache lock
   is held: no deadlock, and the unrelated unmap does not disturb the cache. */
static void test_hook_inside_dereg(void **state)
{
    struct fixture *fx = *state;
    size_t len = 8 << 20;
    char *p;

    SKIP_WITHOUT_GLIBC_MALLOC();
    hooks_installed();
    p = malloc(len);
    assert_non_null(p);
    fx->f.dereg_frees = 1;
    EXPECT_INVALIDATION(fx, p, len, free(p));
    rcache_put(fx->rc, get_ok(fx->rc, B, P));
    rcache_invalidate(fx->rc, (void *)B, P);
    assert_int_equal(stats(fx->rc).invalidations, 2);
}

/* More unmaps than the queue holds before the owner looks: everything is dropped. */
static void test_hook_queue_overflow(void **state)
{
    struct fixture *fx = *state;
    size_t len = 256 * P;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    rcache_region_t *r;
    int i;

    hooks_installed();
    assert_true(p != MAP_FAILED);
    for (i = 0; i < 100; i++)
        rcache_put(fx->rc, get_ok(fx->rc, (uintptr_t)p + 2 * i * P, P));
    for (i = 0; i < 100; i++)
        madvise(p + 2 * i * P, P, MADV_DONTNEED);
    r = get_ok(fx->rc, (uintptr_t)p + 198 * P, P);
    assert_int_equal(stats(fx->rc).invalidations, 100);
    assert_int_equal(stats(fx->rc).hits, 0);
    rcache_put(fx->rc, r);
    munmap(p, len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hit_and_alignment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_adjacent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_overlapping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overlap_in_use_retired, setup, teardown),
        cmocka_unit_test_setup_teardown(test_adjacent_in_use_not_merged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partial_overlap_lookup, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalidate_in_use, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalidate_part, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lru_eviction_order, setup_3p, teardown),
        cmocka_unit_test_setup_teardown(test_zero_limit_caches_nothing, setup_zero, teardown),
        cmocka_unit_test_setup_teardown(test_reg_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nomem_evicts_and_retries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_hook_free_malloc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hook_munmap_mmap_hint, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hook_madvise_mremap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hook_brk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hook_free_other_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hook_inside_dereg, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hook_queue_overflow, setup, teardown),
    };

    P = (size_t)sysconf(_SC_PAGESIZE);
    /* glibc raises its mmap threshold when a mmapped block is freed (up to 32 MiB), after
       which large blocks come from the heap and free() no longer unmaps them. Fix it so
       every test sees the same behaviour. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
