/* SPDX-License-Identifier: BSD-3-Clause */
/* Parallel sum with rmp_allreduce.
 *
 * The integers 1..N are dealt out to the ranks in contiguous slices. Each rank sums its
 * slice, then one rmp_allreduce adds the partial sums up and gives the total to every
 * rank, which checks it against the closed forms:
 *
 *   sum i               = N(N+1)/2            (UINT64, exact)
 *   sum i^2             = N(N+1)(2N+1)/6      (UINT64, exact)
 *   sum 1/(i(i+1))      = 1 - 1/(N+1)         (DOUBLE, telescoping; rounding, so a tolerance)
 *
 *   rrun -n 4 build/examples/allreduce_sum [N]
 *
 * Exits 0 when all three totals are right on every rank, 1 otherwise. */
#include <math.h>
#include <rmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void check(int rc, const char *what)
{
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "allreduce_sum: %s failed: %s\n", what, rmp_strerror(rc));
        rmp_abort(rmp_comm_world(), 1);
    }
}

int main(int argc, char **argv)
{
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "allreduce_sum: rmp_init: %s\n", rmp_strerror(rc));
        return 1;
    }
    rmp_comm_t world = rmp_comm_world();
    int me = rmp_comm_rank(world), n = rmp_comm_size(world);
    /* N up to 2^20 keeps sum i^2 (about N^3/3) far below 2^64. */
    uint64_t N = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    if (N < 1 || N > (1u << 20))
        N = 1000000;

    /* This rank's slice [lo, hi): the first N % n ranks get one extra number. */
    uint64_t per = N / (uint64_t)n, extra = N % (uint64_t)n, r = (uint64_t)me;
    uint64_t lo = 1 + r * per + (r < extra ? r : extra);
    uint64_t hi = lo + per + (r < extra ? 1 : 0);

    uint64_t ints[2] = {0, 0}; /* sum i, sum i^2 */
    double frac = 0;           /* sum 1/(i(i+1)) */
    for (uint64_t i = lo; i < hi; i++) {
        ints[0] += i;
        ints[1] += i * i;
        frac += 1.0 / ((double)i * (double)(i + 1));
    }

    /* In place: the partial sums are replaced by the totals, on every rank. */
    check(rmp_allreduce(RMP_IN_PLACE, ints, 2, RMP_UINT64, RMP_SUM, world), "rmp_allreduce");
    check(rmp_allreduce(RMP_IN_PLACE, &frac, 1, RMP_DOUBLE, RMP_SUM, world), "rmp_allreduce");

    uint64_t want_sum = N * (N + 1) / 2;
    uint64_t want_sq = N * (N + 1) * (2 * N + 1) / 6;
    double want_frac = 1.0 - 1.0 / (double)(N + 1);
    int bad = ints[0] != want_sum || ints[1] != want_sq || fabs(frac - want_frac) > 1e-12;
    if (bad)
        fprintf(stderr,
                "allreduce_sum: rank %d: got %llu, %llu, %.17g; expected %llu, %llu, %.17g\n", me,
                (unsigned long long)ints[0], (unsigned long long)ints[1], frac,
                (unsigned long long)want_sum, (unsigned long long)want_sq, want_frac);

    /* Did any rank see a wrong total? MAX of the flags tells everybody. */
    check(rmp_allreduce(RMP_IN_PLACE, &bad, 1, RMP_INT32, RMP_MAX, world), "rmp_allreduce");
    if (me == 0) {
        printf("allreduce_sum: %d ranks, N = %llu\n", n, (unsigned long long)N);
        printf("  sum i          = %llu (closed form N(N+1)/2 = %llu)\n",
               (unsigned long long)ints[0], (unsigned long long)want_sum);
        printf("  sum i^2        = %llu (closed form N(N+1)(2N+1)/6 = %llu)\n",
               (unsigned long long)ints[1], (unsigned long long)want_sq);
        printf("  sum 1/(i(i+1)) = %.15f (closed form 1 - 1/(N+1) = %.15f)\n", frac, want_frac);
        printf("allreduce_sum: %s\n", bad ? "WRONG" : "ok");
    }
    rc = rmp_finalize();
    if (rc != RMP_SUCCESS)
        fprintf(stderr, "allreduce_sum: rmp_finalize: %s\n", rmp_strerror(rc));
    return bad || rc != RMP_SUCCESS ? 1 : 0;
}
