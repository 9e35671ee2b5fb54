/* SPDX-License-Identifier: BSD-3-Clause */
/* Mixed soak: p2p of random sizes and kinds, collectives on world and on two
 * split halves (some nonblocking, outstanding across the round), one-sided
 * atomics and put/get, for a given duration. Asserts that no message is lost,
 * duplicated, reordered or corrupted, that every collective and atomic result
 * is exact, that resident memory grows < 1% from the end of the warm-up (10%
 * of the duration) to the end, that no descriptor leaks during the run, and
 * that rmp_finalize leaves none of its own open. Shared memory is counted apart:
 * it may grow only by the shm pool's buffers made when first used (the 56 of 64
 * made lazily, 64 KiB each, of this rank's segment and of each node peer's it maps).
 *
 *   soak_mixed [SECONDS [SEED]]     (or SOAK_SECONDS, SOAK_SEED; default 60 s)
 *
 * SOAK_RSS_CHECK=0 keeps the RSS figures but not the 1% assertion: under
 * valgrind resident memory is mostly valgrind's own (translations, shadow
 * memory), which the memcheck suite's leak check replaces.
 *
 * Round r's whole schedule is a function of (SEED, r) only: a failure printed
 * as "round R (seed S)" replays with the same SEED. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soak.h"

enum { CTL_GO, CTL_WARM, CTL_STOP };

/* Rank 0's clock decides for everyone; the allreduce is also the round's
 * closing barrier (no rank starts the next round's puts before every target
 * has checked this round's). */
static int soak_control(soak_t *k, double t0, double seconds, int *warmed)
{
    int32_t c = CTL_GO, all = CTL_GO;
    if (k->me == 0) {
        double el = rmp_wtime() - t0;
        c = el >= seconds ? CTL_STOP : (!*warmed && el >= seconds / 10) ? CTL_WARM : CTL_GO;
    }
    int rc = rmp_allreduce(&c, &all, 1, RMP_INT32, RMP_MAX, k->world);
    if (rc != RMP_SUCCESS) {
        SOAK_FAIL(k, "control allreduce: %s", rmp_strerror(rc));
        return CTL_STOP;
    }
    if (all == CTL_STOP && !*warmed) {
        SOAK_FAIL(k, "the run ended before the warm-up did");
        return CTL_STOP;
    }
    *warmed |= all == CTL_WARM;
    return all;
}

static int soak_setup(soak_t *k)
{
    k->world = rmp_comm_world();
    k->me = rmp_comm_rank(k->world);
    k->np = rmp_comm_size(k->world);
    if (k->np > 64) {
        fprintf(stderr, "soak_mixed: at most 64 ranks\n");
        return RMP_ERR_ARG;
    }
    int rc = rmp_comm_split(k->world, k->me % 2, k->me, &k->half);
    if (rc == RMP_SUCCESS)
        rc = soak_p2p_init(k);
    if (rc == RMP_SUCCESS)
        rc = soak_coll_init(k);
    if (rc == RMP_SUCCESS)
        rc = soak_rma_init(k);
    return rc;
}

int main(int argc, char **argv)
{
    const char *sec_s = argc > 1 ? argv[1] : getenv("SOAK_SECONDS");
    const char *seed_s = argc > 2 ? argv[2] : getenv("SOAK_SEED");
    double seconds = sec_s ? atof(sec_s) : 60;
    soak_t k = {.seed = seed_s ? strtoull(seed_s, NULL, 0) : 20261122};
    static char fds_before[16384], fds_after[16384];
    soak_fd_list(fds_before, sizeof(fds_before));
    int nfd_before = soak_fd_count();

    soak_malloc_pin();
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "rmp_init: %s\n", rmp_strerror(rc));
        return 1;
    }
    rc = soak_setup(&k);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "soak_mixed: setup: %s\n", rmp_strerror(rc));
        rmp_abort(rmp_comm_world(), 1);
    }
    if (k.me == 0)
        printf("soak_mixed: %d ranks, %.0f s, seed %llu (replay: SOAK_SEED=%llu)\n", k.np,
               seconds, (unsigned long long)k.seed, (unsigned long long)k.seed);
    fflush(stdout);

    long rss_warm = -1, rss_end, heap_warm = -1, heap_end, shm_warm = -1, shm_end;
    int fd_warm = -1, fd_end, warmed = 0, ctl = CTL_GO;
    double t0 = rmp_wtime();
    while (ctl != CTL_STOP) {
        if (soak_coll_begin(&k) != RMP_SUCCESS)
            break;
        soak_p2p_round(&k);
        soak_rma_round(&k);
        soak_coll_round(&k);
        soak_rma_churn(&k);
        soak_coll_end(&k);
        rc = rmp_barrier(k.world);
        if (rc != RMP_SUCCESS)
            SOAK_FAIL(&k, "barrier: %s", rmp_strerror(rc));
        soak_rma_check(&k);
        ctl = soak_control(&k, t0, seconds, &warmed);
        if (ctl == CTL_WARM) {
            rss_warm = soak_rss_kib();
            shm_warm = soak_shmem_kib();
            heap_warm = soak_heap_kib();
            fd_warm = soak_fd_count();
        }
        k.round++;
    }
    double el = rmp_wtime() - t0;
    /* Nothing may be left over: no message, and every atomic has landed. */
    int flag = 1;
    rmp_iprobe(RMP_ANY_SOURCE, RMP_ANY_TAG, k.world, &flag, NULL);
    if (flag)
        SOAK_FAIL(&k, "p2p: an extra message is pending after the last round (duplicate?)");
    rc = rmp_barrier(k.world);
    if (rc != RMP_SUCCESS)
        SOAK_FAIL(&k, "final barrier: %s", rmp_strerror(rc));
    soak_rma_final(&k);
    rss_end = soak_rss_kib();
    shm_end = soak_shmem_kib();
    heap_end = soak_heap_kib();
    fd_end = soak_fd_count();

    double growth = rss_warm > 0 ? 100.0 * (double)(rss_end - rss_warm) / (double)rss_warm : 0;
    printf("rank %d: %llu rounds in %.1f s: %llu msgs %.1f MiB, %llu collectives, %llu atomics, "
           "%llu put/get; RSS %ld KiB after warm-up, %ld KiB at end (%+.2f%%), shared %ld -> "
           "%ld KiB, malloc'd %ld -> %ld KiB; fds %d -> %d\n",
           k.me, (unsigned long long)k.round, el, (unsigned long long)k.msgs,
           (double)k.bytes / (1 << 20), (unsigned long long)k.colls,
           (unsigned long long)k.atomics, (unsigned long long)k.puts, rss_warm, rss_end, growth,
           shm_warm, shm_end, heap_warm, heap_end, fd_warm, fd_end);
    fflush(stdout);
    const char *rss_check = getenv("SOAK_RSS_CHECK");
    if (growth >= 1.0 && !(rss_check && strcmp(rss_check, "0") == 0))
        SOAK_FAIL(&k, "resident memory grew %.2f%% (%ld -> %ld KiB)", growth, rss_warm, rss_end);
    /* docs/protocols.md: buffers 9-64 of the pool (RMP_SHM_BUFS, RMP_SHM_BUF_BYTES
     * defaults) are made when first used, in this rank's segment and in the node
     * peers' it maps: nothing else may add shared memory after the warm-up. */
    long shm_lazy = 56L * 64 * k.np;
    if (shm_warm >= 0 && shm_end - shm_warm > shm_lazy && !(rss_check && !strcmp(rss_check, "0")))
        SOAK_FAIL(&k, "shared memory grew %ld KiB (%ld -> %ld), more than the pool's lazy "
                  "buffers (%ld KiB)", shm_end - shm_warm, shm_warm, shm_end, shm_lazy);
    if (fd_end != fd_warm)
        SOAK_FAIL(&k, "open descriptors went from %d to %d during the run", fd_warm, fd_end);

    soak_rma_fini(&k);
    soak_coll_fini();
    soak_p2p_fini(&k);
    rc = rmp_comm_free(&k.half);
    if (rc != RMP_SUCCESS)
        SOAK_FAIL(&k, "comm_free: %s", rmp_strerror(rc));
    long bad = k.bad, all_bad = 0;
    rc = rmp_allreduce(&bad, &all_bad, 1, RMP_INT64, RMP_SUM, k.world);
    if (rc != RMP_SUCCESS)
        all_bad = bad + 1;
    rc = rmp_finalize();
    if (rc != RMP_SUCCESS)
        fprintf(stderr, "rank %d: rmp_finalize: %s\n", k.me, rmp_strerror(rc));
    /* After finalize, every descriptor rmp opened is closed again. */
    soak_fd_list(fds_after, sizeof(fds_after));
    int nfd_after = soak_fd_count();
    if (nfd_after != nfd_before || strcmp(fds_before, fds_after) != 0) {
        fprintf(stderr, "FAIL rank %d: descriptors before rmp_init (%d):\n%safter rmp_finalize "
                        "(%d):\n%s", k.me, nfd_before, fds_before, nfd_after, fds_after);
        bad++;
    }
    if (k.me == 0)
        printf("soak_mixed: %ld failures (seed %llu)\n", all_bad, (unsigned long long)k.seed);
    return bad == 0 && all_bad == 0 && rc == RMP_SUCCESS ? 0 : 1;
}
