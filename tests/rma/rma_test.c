/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided conformance: run with 2, 3, 4 ranks on any transport. */
#include <malloc.h>
#include <rmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/t.h"

static int me, np;
static int quick; /* --quick: fewer round trips, for a developer's quick look (no suite uses it) */
static rmp_comm_t W;

static unsigned char pat(size_t i, int a, int b)
{
    return (unsigned char)(i * 17 + (size_t)a * 101 + (size_t)b * 7 + (i >> 9));
}

/* A window that could not be created is not used: the phase ends there (its handle is
 * RMP_WIN_NULL; going on would only repeat the creation's error thousands of times). */
static int win_made(int rc, const char *what)
{
    T_CHECK(rc == RMP_SUCCESS, "%s window: %s", what, rmp_strerror(rc));
    return rc == RMP_SUCCESS;
}

/* put/get of every power-of-two size (and odd ones) at random offsets. */
static void test_put_get(int allocate)
{
    const size_t WB = 9 << 20;
    unsigned char *base = NULL, *mine = NULL;
    rmp_win_t win;
    if (!allocate)
        base = mine = calloc(1, WB);
    if (!win_made(allocate ? rmp_win_allocate(WB, W, (void **)&base, &win)
                           : rmp_win_create(base, WB, W, &win), "put/get")) {
        free(mine);
        return;
    }
    unsigned char *src = malloc(8 << 20), *dst = malloc(8 << 20);
    srand(1234 + me);
    int target = (me + 1) % np, k = 0;
    const size_t maxn = quick ? (1u << 20) : (8u << 20);
    for (size_t n = 1; n <= maxn; n = n * 2 + (n < 64 ? 1 : 0), k++) {
        size_t off = (size_t)rand() % (WB - n + 1);
        for (size_t i = 0; i < n; i++)
            src[i] = pat(i, me, k);
        T_RC(rmp_put(src, n, target, off, win));
        memset(dst, 0, n);
        T_RC(rmp_get(dst, n, target, off, win));
        T_CHECK(memcmp(src, dst, n) == 0, "put/get %zu bytes at %zu (%s)", n, off,
                allocate ? "allocate" : "create");
        /* nbi + flush */
        size_t off2 = (size_t)rand() % (WB - n + 1);
        T_RC(rmp_put_nbi(src, n, target, off2, win));
        T_RC(rmp_win_flush(target, win));
        memset(dst, 0, n);
        T_RC(rmp_get_nbi(dst, n, target, off2, win));
        T_RC(rmp_win_flush_all(win));
        T_CHECK(memcmp(src, dst, n) == 0, "nbi %zu bytes", n);
    }
    /* put + flush + barrier: the target sees it in its own memory */
    size_t n = 100000;
    for (size_t i = 0; i < n; i++)
        src[i] = pat(i, me, 99);
    T_RC(rmp_put(src, n, target, 4096, win));
    T_RC(rmp_win_flush(target, win));
    T_RC(rmp_barrier(W));
    int from = (me + np - 1) % np, ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= base[4096 + i] == pat(i, from, 99);
    T_CHECK(ok, "put visible at the target after flush + barrier");
    T_RC(rmp_barrier(W));
    T_RC(rmp_win_free(&win));
    T_CHECK(win == RMP_WIN_NULL, "freed window handle nulled");
    free(src);
    free(dst);
    free(mine);
}

/* 100,000 fetch-adds per rank on rank 0's counter: the total is exact. A
 * compare-and-swap lock protects a non-atomic read-modify-write. */
static void test_atomics(int allocate)
{
    uint64_t *base = NULL, *mine = NULL;
    rmp_win_t win;
    if (!allocate)
        base = mine = calloc(8, sizeof(uint64_t));
    if (!win_made(allocate ? rmp_win_allocate(64, W, (void **)&base, &win)
                           : rmp_win_create(base, 64, W, &win), "atomics")) {
        free(mine);
        return;
    }
    const int N = quick ? 500 : np > 2 ? 20000 : 100000;
    uint64_t old, prev = 0;
    int mono = 1;
    for (int i = 0; i < N; i++) {
        int frc = rmp_atomic_fetch_add(1, &old, 0, 0, win);
        T_CHECK(frc == RMP_SUCCESS, "fetch_add %d (%s): %s", i, allocate ? "allocate" : "create",
                rmp_strerror(frc));
        mono &= i == 0 || old > prev;
        prev = old;
    }
    T_CHECK(mono, "fetch_add results increase");
    T_RC(rmp_barrier(W));
    if (me == 0)
        T_CHECK(base[0] == (uint64_t)N * (uint64_t)np, "counter %llu expected %llu",
                (unsigned long long)base[0], (unsigned long long)N * np);
    /* spin lock at offset 8, protected data at offset 16 */
    const int L = quick ? 30 : 300;
    for (int i = 0; i < L; i++) {
        int lrc;
        do { /* a failed cswap leaves old as it was: stop spinning, do not loop on it */
            lrc = rmp_atomic_cswap(0, (uint64_t)me + 1, &old, 0, 8, win);
            T_CHECK(lrc == RMP_SUCCESS, "lock cswap: %s", rmp_strerror(lrc));
        } while (lrc == RMP_SUCCESS && old != 0);
        if (lrc != RMP_SUCCESS)
            break;
        uint64_t v;
        T_RC(rmp_get(&v, 8, 0, 16, win));
        v += 3;
        T_RC(rmp_put(&v, 8, 0, 16, win));
        T_RC(rmp_win_flush(0, win));
        T_RC(rmp_atomic_cswap((uint64_t)me + 1, 0, &old, 0, 8, win));
        T_CHECK(old == (uint64_t)me + 1, "lock held by me");
    }
    T_RC(rmp_barrier(W));
    if (me == 0)
        T_CHECK(base[2] == (uint64_t)L * 3 * (uint64_t)np, "locked sum %llu",
                (unsigned long long)base[2]);
    T_RC(rmp_barrier(W));
    T_RC(rmp_win_free(&win));
    free(mine);
}

static void test_bad_access(void)
{
    unsigned char *base = NULL;
    rmp_win_t win;
    T_RC(rmp_win_allocate(4096, W, (void **)&base, &win));
    memset(base, 0x5A, 4096);
    T_RC(rmp_barrier(W));
    unsigned char buf[64] = {0};
    uint64_t old;
    int t = (me + 1) % np;
    T_CHECK(rmp_put(buf, 8, t, 4090, win) == RMP_ERR_ACCESS, "put past the end");
    T_CHECK(rmp_get(buf, 1, t, 4096, win) == RMP_ERR_ACCESS, "get at the end");
    T_CHECK(rmp_put(buf, 16, t, (size_t)-8, win) == RMP_ERR_ACCESS, "offset before the start");
    T_CHECK(rmp_put(buf, (size_t)-1, t, 0, win) == RMP_ERR_ACCESS, "huge length");
    T_CHECK(rmp_atomic_fetch_add(1, &old, t, 4, win) == RMP_ERR_ARG, "misaligned atomic");
    T_CHECK(rmp_atomic_fetch_add(1, &old, t, 4096, win) == RMP_ERR_ACCESS, "atomic past the end");
    T_CHECK(rmp_put(buf, 8, np, 0, win) == RMP_ERR_ARG, "target out of range");
    T_CHECK(rmp_put(NULL, 8, t, 0, win) == RMP_ERR_ARG, "NULL source");
    T_CHECK(rmp_put(buf, 0, t, 4096, win) == RMP_SUCCESS, "0 bytes at the end is fine");
    T_RC(rmp_barrier(W));
    int ok = 1;
    for (int i = 0; i < 4096; i++)
        ok &= base[i] == 0x5A;
    T_CHECK(ok, "refused accesses touched no memory");
    rmp_win_t stale = win;
    T_RC(rmp_win_free(&win));
    T_CHECK(rmp_put(buf, 8, t, 0, stale) == RMP_ERR_ACCESS, "put to a freed window");
    T_CHECK(rmp_atomic_cswap(0, 1, &old, t, 0, stale) == RMP_ERR_ACCESS, "atomic on freed window");
    T_CHECK(rmp_win_free(&stale) == RMP_ERR_ACCESS, "double free");
    T_CHECK(rmp_put(buf, 8, t, 0, RMP_WIN_NULL) == RMP_ERR_ARG, "NULL window");
}

/* Handles that were never windows, and offsets whose end wraps around, on both
 * kinds of window (mapped: direct access; created: cross-memory attach or
 * emulation): RMP_ERR_ACCESS, and no byte of anybody's memory changes. */
static void test_forged(int allocate)
{
    static unsigned char mem[4096];
    unsigned char *base = mem;
    rmp_win_t win;
    if (allocate)
        T_RC(rmp_win_allocate(4096, W, (void **)&base, &win));
    else
        T_RC(rmp_win_create(mem, 4096, W, &win));
    memset(base, 0x5A, 4096);
    T_RC(rmp_barrier(W));
    int t = (me + 1) % np;
    unsigned char buf[64] = {0};
    uint64_t old = 7;
    const size_t max = (size_t)-1;
    T_CHECK(rmp_put(buf, 16, t, max - 7, win) == RMP_ERR_ACCESS, "offset+len wraps (put)");
    T_CHECK(rmp_get(buf, 8, t, max, win) == RMP_ERR_ACCESS, "offset at SIZE_MAX (get)");
    T_CHECK(rmp_put_nbi(buf, 4097, t, 0, win) == RMP_ERR_ACCESS, "one byte too long (put_nbi)");
    T_CHECK(rmp_get_nbi(buf, 2, t, 4095, win) == RMP_ERR_ACCESS, "one byte past (get_nbi)");
    T_CHECK(rmp_atomic_fetch_add(1, &old, t, max - 7, win) == RMP_ERR_ACCESS, "atomic wraps");
    T_CHECK(rmp_atomic_cswap(0, 1, &old, t, 4096, win) == RMP_ERR_ACCESS, "cswap at the end");
    T_CHECK(old == 7, "refused atomics wrote no result");

    /* Never windows: a small integer, all ones, a buffer that looks like one
     * (the library's own magic and a "live" flag). None may be followed. */
    uint64_t fake[32];
    memset(fake, 0xA5, sizeof(fake));
    fake[0] = 0x726d7077696e3031ULL;
    fake[1] = 1;
    uint64_t copy[32];
    memcpy(copy, fake, sizeof(fake));
    rmp_win_t forged[] = {(rmp_win_t)(uintptr_t)1, (rmp_win_t)(uintptr_t)-1,
                          (rmp_win_t)(uintptr_t)0x1000, (rmp_win_t)(void *)fake,
                          (rmp_win_t)(void *)buf};
    for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
        rmp_win_t f = forged[i];
        T_CHECK(rmp_put(buf, 8, t, 0, f) == RMP_ERR_ACCESS, "put through forged handle %zu", i);
        T_CHECK(rmp_get(buf, 8, t, 0, f) == RMP_ERR_ACCESS, "get through forged handle %zu", i);
        T_CHECK(rmp_atomic_fetch_add(1, &old, t, 0, f) == RMP_ERR_ACCESS, "atomic, forged %zu", i);
        T_CHECK(rmp_win_flush(t, f) == RMP_ERR_ACCESS, "flush of forged handle %zu", i);
        T_CHECK(rmp_win_flush_all(f) == RMP_ERR_ACCESS, "flush_all of forged handle %zu", i);
        T_CHECK(rmp_win_free(&f) == RMP_ERR_ACCESS && f == forged[i], "free of forged %zu", i);
    }
    T_CHECK(memcmp(fake, copy, sizeof(fake)) == 0, "the look-alike was not written");

    /* A stale handle whose slot a new window took over: refused, and the new
     * window's memory is untouched. */
    rmp_win_t stale = win;
    T_RC(rmp_win_free(&win));
    static unsigned char mem2[4096];
    rmp_win_t win2;
    memset(mem2, 0x3C, sizeof(mem2));
    T_RC(rmp_win_create(mem2, sizeof(mem2), W, &win2));
    T_CHECK(rmp_put(buf, 8, t, 0, stale) == RMP_ERR_ACCESS, "put through a reused slot");
    T_RC(rmp_barrier(W));
    int ok = 1;
    for (size_t i = 0; i < sizeof(mem2); i++)
        ok &= mem2[i] == 0x3C;
    T_CHECK(ok, "the new window was not touched");
    T_RC(rmp_win_free(&win2));
    if (!allocate) {
        ok = 1;
        for (size_t i = 0; i < sizeof(mem); i++)
            ok &= mem[i] == 0x5A;
        T_CHECK(ok, "refused accesses touched no memory");
    }
}

static long heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long)(mi.uordblks + mi.hblkhd);
}

/* Windows created and freed in a loop: a freed handle is still refused after
 * a few more windows, and memory stays bounded (window structs used to be
 * kept forever: 200 B each). Under valgrind mallinfo2 reports 0: memcheck
 * checks the rest. */
static void test_window_churn(void)
{
    uint64_t cell[8] = {0}, old = 0;
    rmp_win_t win, stale = RMP_WIN_NULL;
    long before = 0;
    int ok = 1;
    for (int i = 0; i < 300; i++) {
        if (i == 100)
            before = heap_in_use();
        ok &= rmp_win_create(cell, sizeof(cell), W, &win) == RMP_SUCCESS;
        ok &= rmp_atomic_fetch_add(1, &old, (me + 1) % np, 0, win) == RMP_SUCCESS;
        if (i == 10)
            stale = win;
        ok &= rmp_win_free(&win) == RMP_SUCCESS;
        if (i == 20)
            T_CHECK(rmp_put(cell, 8, 0, 0, stale) == RMP_ERR_ACCESS,
                    "a window freed 10 windows ago is refused");
    }
    long growth = heap_in_use() - before;
    T_CHECK(ok, "300 windows created, used and freed");
    T_CHECK(growth < 8192, "heap grew %ld bytes over 200 window create/free", growth);
    T_CHECK(cell[0] == 300, "every fetch-add landed: %llu", (unsigned long long)cell[0]);
}

/* Dynamic windows: regions attached locally, addresses exchanged by the program, every
 * access checked by the target against its regions. */
static void test_dynamic(void)
{
    rmp_win_t win, plain;
    T_RC(rmp_win_create_dynamic(W, &win));
    uint64_t *mem = calloc(32, sizeof(uint64_t)), *other = calloc(4, sizeof(uint64_t));
    T_RC(rmp_win_attach(win, mem, 32 * sizeof(uint64_t)));
    T_CHECK(rmp_win_attach(win, mem + 8, 8) == RMP_ERR_ARG, "overlapping attach refused");
    T_CHECK(rmp_win_detach(win, mem + 1) == RMP_ERR_ARG, "detach of an unattached address");
    T_RC(rmp_win_create(other, 4 * sizeof(uint64_t), W, &plain));
    T_CHECK(rmp_win_attach(plain, other, 8) == RMP_ERR_ARG, "attach to a non-dynamic window");
    uint64_t *addr = calloc((size_t)np, sizeof(uint64_t)), a = (uint64_t)(uintptr_t)mem;
    T_RC(rmp_allgather(&a, addr, 1, RMP_UINT64, W));
    int t = (me + 1) % np, from = (me + np - 1) % np;
    uint64_t v = 1000 + (uint64_t)me, got = 0, old = 0;
    T_RC(rmp_put(&v, 8, t, addr[t] + 8 * 8, win));
    T_RC(rmp_win_flush(t, win));
    T_RC(rmp_get(&got, 8, t, addr[t] + 8 * 8, win));
    T_CHECK(got == v, "dynamic put/get: %llu", (unsigned long long)got);
    for (int i = 0; i < 10; i++)
        T_RC(rmp_atomic_fetch_add(1, &old, 0, addr[0], win));
    T_RC(rmp_atomic_fetch_add(1, &old, me, addr[me], win)); /* this rank's own region */
    T_CHECK(rmp_put(&v, 8, t, addr[t] + 32 * 8, win) == RMP_ERR_ACCESS,
            "put past the region refused by the target");
    T_CHECK(rmp_get(&got, 16, t, addr[t] + 31 * 8, win) == RMP_ERR_ACCESS,
            "get straddling the region's end refused");
    T_RC(rmp_barrier(W));
    T_CHECK(mem[8] == 1000 + (uint64_t)from, "dynamic put landed: %llu",
            (unsigned long long)mem[8]);
    if (me == 0)
        T_CHECK(mem[0] == 10 * (uint64_t)np + 1, "dynamic fetch-adds: %llu",
                (unsigned long long)mem[0]);
    T_RC(rmp_win_detach(win, mem));
    T_RC(rmp_barrier(W));
    T_CHECK(rmp_get(&got, 8, t, addr[t], win) == RMP_ERR_ACCESS, "access after detach refused");
    T_RC(rmp_barrier(W));
    T_RC(rmp_win_free(&win));
    T_RC(rmp_win_free(&plain));
    free(addr);
    free(mem);
    free(other);
}

/* Say when each part is done and when, so a run cut short by a time limit shows where
 * it was (what a kill leaves in the log is failures of whatever came next). */
#define PHASE(call)                                                                         \
    do {                                                                                    \
        call;                                                                               \
        if (me == 0) {                                                                      \
            printf("rank 0: %s done at %.1f s\n", #call, rmp_wtime() - t0);                 \
            fflush(stdout);                                                                 \
        }                                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        quick |= strcmp(argv[i], "--quick") == 0;
    }
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    W = rmp_comm_world();
    me = rmp_comm_rank(W);
    np = rmp_comm_size(W);
    double t0 = rmp_wtime();
    PHASE(test_put_get(1));
    PHASE(test_put_get(0));
    PHASE(test_atomics(1));
    PHASE(test_atomics(0));
    PHASE(test_bad_access());
    PHASE(test_forged(1));
    PHASE(test_forged(0));
    PHASE(test_window_churn());
    PHASE(test_dynamic());
    return t_finish();
}
