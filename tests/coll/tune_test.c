/* SPDX-License-Identifier: BSD-3-Clause */
/* RMP_TUNING_FILE under rrun: the table rmp_init installed is the one every rank uses.
 *   tune_test ALGO          allreduce must be ALGO from 1 KiB to 4 MiB: as coll_select
 *                           reports it, and as observed by the number of messages one
 *                           allreduce of 1 KiB sends (ring 2(n-1), rabenseifner 2 log2 n,
 *                           recursive_doubling log2 n, direct n-1 at a power-of-two n);
 *                           results checked. ALGO "builtin": no tuning file may be loaded,
 *                           and the allreduce of 1 KiB must send what the algorithm the
 *                           built-in table names for it sends (whatever the sweep chose).
 *   tune_test --mismatch FILE   rank 0 reads no tuning file, the others FILE: rmp_init
 *                           must fail on those with RMP_ERR_ARG; they exit with status 3
 *                           (tests/coll/tune_mismatch.sh checks status and message).
 * Linked with the static library to look at the table and the message counters. */
#include <rmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/t.h"
#include "collectives/coll_tune.h"
#include "p2p.h"
#include "tuning.h"

static int tune_mismatch(const char *file)
{
    const char *r = getenv("PMIX_RANK");
    int rank = r ? atoi(r) : 0;
    if (rank == 0)
        unsetenv("RMP_TUNING_FILE");
    else
        setenv("RMP_TUNING_FILE", file, 1);
    int rc = rmp_init(NULL, NULL);
    if (rank != 0) {
        fprintf(stderr, "rank %d: rmp_init -> %s\n", rank, rmp_strerror(rc));
        return rc == RMP_ERR_ARG ? 3 : 1;
    }
    /* Rank 0 passes; the job ends when the others exit. */
    rmp_barrier(rmp_comm_world());
    return 1;
}

static int log2i(int n)
{
    int l = 0;
    while ((1 << (l + 1)) <= n)
        l++;
    return l;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--mismatch") == 0)
        return tune_mismatch(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: tune_test ALGO|builtin | --mismatch FILE\n");
        return 2;
    }
    const char *want = argv[1];
    size_t max = 4u << 20;
    T_RC(rmp_init(&argc, &argv));
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w), n = rmp_comm_size(w);
    const char *file = getenv("RMP_TUNING_FILE");
    T_CHECK((file && file[0]) == (rmpi_eng.tuning.path[0] != 0), "tuning file '%s' loaded: '%s'",
            file ? file : "", rmpi_eng.tuning.path);
    if (strcmp(want, "builtin") == 0) {
        int algo = -1;
        T_CHECK(!file, "builtin: RMP_TUNING_FILE must not be set");
        T_RC(coll_select(COLL_ALLREDUCE, 1024, n, 1, &algo));
        want = coll_algo_name(COLL_ALLREDUCE, algo);
        max = 0;
    }

    for (size_t bytes = 1024; bytes <= max; bytes *= 4) {
        int algo = -1;
        T_RC(coll_select(COLL_ALLREDUCE, bytes, n, 1, &algo));
        T_CHECK(strcmp(coll_algo_name(COLL_ALLREDUCE, algo), want) == 0,
                "allreduce of %zu B on %d ranks: %s, want %s", bytes, n,
                coll_algo_name(COLL_ALLREDUCE, algo), want);
    }

    /* One allreduce of 256 floats (eager everywhere), messages counted on this rank. */
    enum { COUNT = 256 };
    float in[COUNT], out[COUNT];
    for (int i = 0; i < COUNT; i++)
        in[i] = (float)(me + i);
    T_RC(rmp_barrier(w));
    uint64_t before = rmpi_eng.stats.eager_sent + rmpi_eng.stats.rndv_sent + rmpi_eng.stats.frag_sent;
    T_RC(rmp_allreduce(in, out, COUNT, RMP_FLOAT, RMP_SUM, w));
    uint64_t sent = rmpi_eng.stats.eager_sent + rmpi_eng.stats.rndv_sent + rmpi_eng.stats.frag_sent - before;
    for (int i = 0; i < COUNT; i++)
        T_CHECK(out[i] == (float)(n * (n - 1) / 2 + n * i), "out[%d] = %g", i, (double)out[i]);
    long expect = -1;
    if ((n & (n - 1)) == 0 && n > 1) {
        if (strcmp(want, "ring") == 0)
            expect = 2L * (n - 1);
        else if (strcmp(want, "rabenseifner") == 0)
            expect = 2L * log2i(n);
        else if (strcmp(want, "recursive_doubling") == 0)
            expect = log2i(n);
        else if (strcmp(want, "direct") == 0)
            expect = n - 1;
    }
    if (expect >= 0)
        T_CHECK((long)sent == expect, "one %s allreduce on %d ranks sent %llu messages, want %ld",
                want, n, (unsigned long long)sent, expect);
    if (me == 0)
        printf("allreduce %s on %d ranks: %llu messages from rank 0\n", want, n,
               (unsigned long long)sent);
    int rc = t_finish();
    rmp_finalize();
    return rc;
}
