/* SPDX-License-Identifier: BSD-3-Clause */
/* Node scale (issue 16): N ranks on one node run init, a message to and from
 * every other rank, every collective, a window with put/get/fetch-add, and
 * finalize. Rank 0 prints the shared memory the job holds and the ranks'
 * RSS, and the test fails when the shared memory exceeds the formula of
 * docs/protocols.md ("Shared memory at node scale"): after init, with only the
 * first 8 pool buffers of each rank made, and at the end, with all of them.
 *
 * Shared memory is measured as the sum over ranks of the proportional set
 * size (Pss) of their rmp segments (memfd:rmp-* mappings in smaps): every
 * resident page counted once, whichever ranks map it, and nothing from
 * other jobs on the machine (the /proc/meminfo Shmem delta, printed too,
 * includes them). Run with the default RMP_SHM_* parameters.
 *   rrun --oversubscribe -n 128 scale_test */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rmp.h"

#define CHECK(x)                                                                         \
    do {                                                                                 \
        int rc_ = (x);                                                                   \
        if (rc_ != RMP_SUCCESS) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, rmp_strerror(rc_)); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)
#define FAIL(...)                                                                        \
    do {                                                                                 \
        fprintf(stderr, __VA_ARGS__);                                                    \
        exit(1);                                                                         \
    } while (0)

/* kB of a "Key:   N kB" line of a /proc file, summed over the lines that
 * follow a mapping whose name holds `within` (NULL: every line). */
static uint64_t proc_kb(const char *path, const char *key, const char *within)
{
    FILE *f = fopen(path, "r");
    if (!f)
        FAIL("cannot read %s\n", path);
    char line[512];
    uint64_t sum = 0;
    int in = within == NULL;
    size_t klen = strlen(key);
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        if (within && sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
            in = strstr(line, within) != NULL; /* a mapping's header line */
        else if (in && strncmp(line, key, klen) == 0 && line[klen] == ':')
            sum += strtoull(line + klen + 1, NULL, 10);
    }
    fclose(f);
    return sum;
}

static size_t page_up(size_t n)
{
    return (n + 4095) & ~(size_t)4095;
}

/* docs/protocols.md: a rank's shm segment with the default parameters (128 cells, 64
 * state lines, 64 buffers of 64 KiB of which the first 8 are made at start and the
 * others when a burst of medium messages needs them: `full` counts them all), the
 * collective segment of an n-rank communicator, and an n-rank window of wbytes per
 * rank. */
static uint64_t formula(int n, size_t wbytes, int full)
{
    size_t seg = page_up(2 * 64 + 128 * 128 + 64 * 64) + (full ? 64 : 8) * (64u << 10);
    size_t chunk = n <= 32 ? (64u << 10) : ((4u << 20) / (2 * (size_t)(n + 1))) & ~(size_t)4095;
    if (chunk < 16384)
        chunk = 16384;
    size_t coll = page_up((size_t)n * 64) + 2 * (size_t)(n + 1) * chunk;
    return (uint64_t)n * seg + coll + (uint64_t)n * page_up(wbytes);
}

int main(int argc, char **argv)
{
    uint64_t shmem0 = proc_kb("/proc/meminfo", "Shmem", NULL);
    double t0 = rmp_wtime();
    CHECK(rmp_init(&argc, &argv));
    double tinit = rmp_wtime() - t0;
    /* What init made: the pool's buffers past the eighth are not made yet. */
    int64_t pss_init = (int64_t)proc_kb("/proc/self/smaps", "Pss", "memfd:rmp-");
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w), n = rmp_comm_size(w);

    /* A message to and from every other rank. */
    int *in = calloc((size_t)n, sizeof(int)), *out = calloc((size_t)n, sizeof(int));
    rmp_request_t *reqs = calloc(2 * (size_t)n, sizeof(rmp_request_t));
    if (!in || !out || !reqs)
        FAIL("out of memory\n");
    size_t nr = 0;
    for (int r = 0; r < n; r++) {
        if (r == me)
            continue;
        out[r] = me * 100000 + r;
        CHECK(rmp_irecv(&in[r], sizeof(int), r, 7, w, &reqs[nr++]));
        CHECK(rmp_isend(&out[r], sizeof(int), r, 7, w, &reqs[nr++]));
    }
    CHECK(rmp_waitall(nr, reqs, NULL));
    for (int r = 0; r < n; r++)
        if (r != me && in[r] != r * 100000 + me)
            FAIL("rank %d: from %d got %d\n", me, r, in[r]);

    /* Every collective, with results checked. */
    enum { C = 64 };
    int64_t *a = calloc((size_t)n * C, 8), *b = calloc((size_t)n * C, 8);
    if (!a || !b)
        FAIL("out of memory\n");
    CHECK(rmp_barrier(w));
    int64_t v = me == 3 % n ? 42 : 0;
    CHECK(rmp_bcast(&v, 1, RMP_INT64, 3 % n, w));
    if (v != 42)
        FAIL("bcast\n");
    for (int i = 0; i < C; i++)
        a[i] = me + i;
    CHECK(rmp_allreduce(a, b, C, RMP_INT64, RMP_SUM, w));
    for (int i = 0; i < C; i++)
        if (b[i] != (int64_t)n * (n - 1) / 2 + (int64_t)n * i)
            FAIL("allreduce\n");
    CHECK(rmp_reduce(a, b, C, RMP_INT64, RMP_MAX, 0, w));
    if (me == 0 && b[1] != n)
        FAIL("reduce\n");
    CHECK(rmp_allgather(&a[0], b, 1, RMP_INT64, w));
    for (int r = 0; r < n; r++)
        if (b[r] != r)
            FAIL("allgather\n");
    CHECK(rmp_gather(&a[0], b, 1, RMP_INT64, 0, w));
    if (me == 0 && b[n - 1] != n - 1)
        FAIL("gather\n");
    for (int r = 0; r < n; r++)
        a[r] = me * 1000 + r;
    CHECK(rmp_scatter(a, &v, 1, RMP_INT64, 0, w));
    if (v != me)
        FAIL("scatter\n");
    CHECK(rmp_alltoall(a, b, 1, RMP_INT64, w));
    for (int r = 0; r < n; r++)
        if (b[r] != r * 1000 + me)
            FAIL("alltoall\n");
    for (int r = 0; r < n; r++)
        a[r] = r;
    CHECK(rmp_reduce_scatter(a, &v, 1, RMP_INT64, RMP_SUM, w));
    if (v != (int64_t)me * n)
        FAIL("reduce_scatter\n");
    rmp_request_t rq;
    a[0] = 1;
    CHECK(rmp_iallreduce(a, b, 1, RMP_INT64, RMP_SUM, w, &rq));
    CHECK(rmp_wait(&rq, NULL));
    if (b[0] != n)
        FAIL("iallreduce\n");

    /* A window: put to the right, get from the left, fetch-add on rank 0. */
    const size_t wbytes = 4096;
    uint64_t *base;
    rmp_win_t win;
    CHECK(rmp_win_allocate(wbytes, w, (void **)&base, &win));
    memset(base, 0, wbytes);
    CHECK(rmp_barrier(w));
    uint64_t mine = 1000 + (uint64_t)me, old;
    CHECK(rmp_put(&mine, 8, (me + 1) % n, 8, win));
    CHECK(rmp_atomic_fetch_add(1, &old, 0, 0, win));
    CHECK(rmp_win_flush_all(win));
    CHECK(rmp_barrier(w));
    uint64_t got;
    CHECK(rmp_get(&got, 8, (me + n - 1) % n, 8, win));
    CHECK(rmp_win_flush_all(win));
    if (got != 1000 + (uint64_t)((me + n - 2) % n) || base[1] != 1000 + (uint64_t)((me + n - 1) % n))
        FAIL("rank %d: window put/get\n", me);
    CHECK(rmp_barrier(w));
    if (me == 0 && base[0] != (uint64_t)n)
        FAIL("fetch-add: %llu of %d\n", (unsigned long long)base[0], n);

    /* Everything is mapped and touched now: measure before the window goes. */
    int64_t m[3] = {(int64_t)proc_kb("/proc/self/smaps", "Pss", "memfd:rmp-"),
                    (int64_t)proc_kb("/proc/self/status", "VmRSS", NULL), pss_init}, s[3];
    CHECK(rmp_allreduce(m, s, 3, RMP_INT64, RMP_SUM, w));
    int64_t rss_max;
    CHECK(rmp_allreduce(&m[1], &rss_max, 1, RMP_INT64, RMP_MAX, w));
    double tmax;
    CHECK(rmp_allreduce(&tinit, &tmax, 1, RMP_DOUBLE, RMP_MAX, w));
    uint64_t shmem1 = proc_kb("/proc/meminfo", "Shmem", NULL);
    CHECK(rmp_win_free(&win));
    int rc = 0;
    if (me == 0) {
        uint64_t limit = formula(n, wbytes, 1), at_init = formula(n, 0, 0);
        printf("scale: %d ranks: init %.2f s (slowest rank); rmp shared memory %.1f MiB "
               "after init (formula without the window, buffers 9-64 not made: %.1f MiB), "
               "%.1f MiB at the end (sum of Pss of memfd:rmp-* mappings), formula %.1f MiB; "
               "/proc/meminfo Shmem delta %.1f MiB (whole machine); RSS %.1f MiB per rank "
               "(mean), %.1f max\n",
               n, tmax, s[2] / 1024.0, at_init / 1048576.0, s[0] / 1024.0, limit / 1048576.0,
               ((double)shmem1 - shmem0) / 1024.0, s[1] / 1024.0 / n, rss_max / 1024.0);
        if ((uint64_t)s[2] * 1024 > at_init) {
            fprintf(stderr, "scale: shared memory after init %.1f MiB exceeds the formula's "
                    "%.1f MiB\n", s[2] / 1024.0, at_init / 1048576.0);
            rc = 1;
        }
        if ((uint64_t)s[0] * 1024 > limit) {
            fprintf(stderr, "scale: shared memory %.1f MiB exceeds the formula's %.1f MiB\n",
                    s[0] / 1024.0, limit / 1048576.0);
            rc = 1;
        }
        /* issue 16's targets: 64 ranks <= 256 MiB, 128 ranks <= 512 MiB */
        uint64_t target = n >= 128 ? (512u << 20) : n >= 64 ? (256u << 20) : UINT64_MAX;
        if ((uint64_t)s[0] * 1024 > target) {
            fprintf(stderr, "scale: over the %llu MiB target at %d ranks\n",
                    (unsigned long long)(target >> 20), n);
            rc = 1;
        }
    }
    free(a);
    free(b);
    free(in);
    free(out);
    free(reqs);
    CHECK(rmp_finalize());
    return rc;
}
