/* SPDX-License-Identifier: BSD-3-Clause */
/* Registration-cache coherence in one real process, without an RDMA device.
 *
 * The fake transport "pins" like ibv_reg_mr does: at registration it records the physical
 * page frame of every page (from /proc/self/pagemap). Whenever the cache hands out a region
 * for a buffer, the buffer's pages must still be the recorded frames: a region that
 * survived a free()/munmap()/madvise()/mremap()/sbrk() of its memory would show other
 * frames, i.e. an RDMA transfer would read or write the old, freed pages.
 * Exits 77 (skip) when pagemap does not show frame numbers (needs CAP_SYS_ADMIN) or the
 * hooks cannot be installed. The cross-rank version runs with the verbs transport. */
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/rcache/rcache.h"

static int pagemap_fd = -1;
static size_t page;

static uint64_t pfn_of(uintptr_t addr)
{
    uint64_t e = 0;

    if (pread(pagemap_fd, &e, sizeof(e), (off_t)(addr / page * 8)) != (ssize_t)sizeof(e))
        return 0;
    return (e >> 63) & 1 ? e & ((1ULL << 55) - 1) : 0;
}

struct pinned {
    uintptr_t addr;
    size_t npages;
    uint64_t pfn[];
};

static int pin_reg(void *ctx, void *addr, size_t len, void **handle)
{
    struct pinned *p = malloc(sizeof(*p) + len / page * sizeof(uint64_t));
    size_t i;

    (void)ctx;
    if (!p)
        return RMP_ERR_NOMEM;
    p->addr = (uintptr_t)addr;
    p->npages = len / page;
    for (i = 0; i < p->npages; i++)
        p->pfn[i] = pfn_of(p->addr + i * page);
    *handle = p;
    return RMP_SUCCESS;
}

static int pin_dereg(void *ctx, void *handle)
{
    (void)ctx;
    free(handle);
    return RMP_SUCCESS;
}

static int failures;

/* Touch buf, get a region, compare frames of the buffer's pages, put. */
static void use(rcache_t *rc, void *buf, size_t len, const char *what)
{
    uintptr_t a = (uintptr_t)buf & ~(uintptr_t)(page - 1), end = (uintptr_t)buf + len;
    rcache_region_t *r;
    struct pinned *p;

    memset(buf, 0x5a, len);
    if (rcache_get(rc, buf, len, &r) != RMP_SUCCESS) {
        printf("FAIL %s: rcache_get\n", what);
        failures++;
        return;
    }
    p = r->handle;
    for (; a < end; a += page) {
        uint64_t now = pfn_of(a), then = p->pfn[(a - p->addr) / page];
        if (now != then) {
            printf("FAIL %s: page %#lx is frame %#lx, the registration has %#lx\n", what,
                   (unsigned long)a, (unsigned long)now, (unsigned long)then);
            failures++;
            break;
        }
    }
    rcache_put(rc, r);
}

int main(void)
{
    const rcache_ops_t ops = {pin_reg, pin_dereg};
    size_t big = 8 << 20, len = 64 * 4096;
    rcache_t *rc;
    char *p, *q, *cur;
    int i;

    page = (size_t)sysconf(_SC_PAGESIZE);
    pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
    p = malloc(page);
    memset(p, 1, page);
    if (pagemap_fd < 0 || !pfn_of((uintptr_t)p)) {
        printf("SKIP: /proc/self/pagemap shows no frame numbers (needs CAP_SYS_ADMIN)\n");
        return 77;
    }
    free(p);
    if (rcache_hooks_install() != RMP_SUCCESS) {
        printf("SKIP: memory hooks not supported here\n");
        return 77;
    }
    mallopt(M_MMAP_THRESHOLD, 128 * 1024); /* large blocks always mmapped (see docs) */
    if (rcache_create(&ops, NULL, SIZE_MAX, &rc) != RMP_SUCCESS)
        return 1;

    for (i = 0; i < 20; i++) { /* free() then malloc() of a large block */
        p = malloc(big);
        use(rc, p, big, "malloc");
        use(rc, p, big, "malloc, cached");
        free(p);
    }
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    use(rc, p, len, "mmap");
    munmap(p, len);
    q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    use(rc, q, len, q == p ? "mmap at the same address" : "mmap elsewhere");
    madvise(q, len, MADV_DONTNEED);
    use(rc, q, len, "after madvise(DONTNEED)");
    mmap(q, len / 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    use(rc, q, len, "after mmap(MAP_FIXED)");
    p = mremap(q, len, 2 * len, MREMAP_MAYMOVE);
    use(rc, p, 2 * len, "after mremap");
    munmap(p, 2 * len);
    cur = sbrk(0);
    if (sbrk((intptr_t)len) == cur) {
        use(rc, cur, len, "sbrk");
        if ((char *)sbrk(0) == cur + len) {
            sbrk(-(intptr_t)len);
            if (sbrk((intptr_t)len) == cur)
                use(rc, cur, len, "sbrk after shrink");
        }
    }
    rcache_stats_t st;
    rcache_stats(rc, &st);
    printf("hits %llu misses %llu invalidations %llu merges %llu\n", (unsigned long long)st.hits,
           (unsigned long long)st.misses, (unsigned long long)st.invalidations,
           (unsigned long long)st.merges);
    rcache_destroy(rc);
    printf("%s\n", failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
