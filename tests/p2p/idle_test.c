/* SPDX-License-Identifier: BSD-3-Clause */
/* What a waiting rank costs the machine under RMP_POLL_YIELD (2 ranks): rank 1 sends
 * 500 messages about 1 ms apart, rank 0 receives each and counts, for its own thread,
 * the CPU time against the time it spent waiting and the times it went to sleep
 * (voluntary context switches). `idle_test sleeps` (RMP_POLL_YIELD=sleep: a rank
 * sleeps from its second empty poll): at most a fifth of a core, and it slept (maybe
 * less than once per message: a late wake-up may find several messages waiting);
 * `idle_test spins` (never): under one sleep per ten messages (a busy machine may take
 * the core away, but the rank never gives it up). */
#include <rmp.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../common/t.h"

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long thread_sleeps(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nvcsw;
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "sleeps") && strcmp(argv[1], "spins"))) {
        fprintf(stderr, "usage: idle_test sleeps|spins\n");
        return 2;
    }
    int sleeps = !strcmp(argv[1], "sleeps");
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w);
    T_CHECK(rmp_comm_size(w) == 2, "run with 2 ranks");
    enum { N = 500 };
    T_RC(rmp_barrier(w));
    if (me == 1) {
        for (int i = 0; i < N; i++) {
            usleep(1000);
            T_RC(rmp_send(&i, sizeof(i), 0, 5, w));
        }
    } else if (me == 0) {
        double wall0 = rmp_wtime(), cpu0 = thread_cpu();
        long sw0 = thread_sleeps();
        int bad = 0;
        for (int i = 0; i < N; i++) {
            int v = -1;
            T_RC(rmp_recv(&v, sizeof(v), 1, 5, w, NULL));
            bad += v != i;
        }
        double wall = rmp_wtime() - wall0, cpu = thread_cpu() - cpu0;
        long sw = thread_sleeps() - sw0;
        T_CHECK(bad == 0, "%d messages out of order", bad);
        printf("idle_test: %d receives in %.3f s, %.3f s of CPU (%.0f%%), %ld sleeps\n", N,
               wall, cpu, 100 * cpu / wall, sw);
        if (sleeps) {
            T_CHECK(cpu < 0.2 * wall, "waiting took %.0f%% of a core, expected at most 20%%",
                    100 * cpu / wall);
            T_CHECK(sw >= 10, "%ld sleeps for %d messages, expected at least 10", sw, N);
        } else {
            T_CHECK(sw < N / 10, "%ld sleeps for %d messages, expected under %d", sw, N,
                    N / 10);
        }
    }
    int rc = t_finish();
    rmp_finalize();
    return rc;
}
