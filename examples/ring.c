/* SPDX-License-Identifier: BSD-3-Clause */
/* Token ring with point-to-point send/recv.
 *
 * Rank 0 starts a token; every rank adds its own rank number and passes the token to
 * its right neighbour, so when the token comes back to rank 0 it holds
 * 0 + 1 + ... + (n-1) = n(n-1)/2 for every lap. The token goes around LAPS times.
 *
 *   rrun -n 4 build/examples/ring [LAPS]
 *
 * Exits 0 when every lap gave the expected total, 1 otherwise. */
#include <rmp.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_TOKEN 7

/* An rmp call that fails ends the whole job: there is no sensible way to go on. */
static void check(int rc, const char *what)
{
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "ring: %s failed: %s\n", what, rmp_strerror(rc));
        rmp_abort(rmp_comm_world(), 1);
    }
}

int main(int argc, char **argv)
{
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "ring: rmp_init: %s\n", rmp_strerror(rc));
        return 1;
    }
    rmp_comm_t world = rmp_comm_world();
    int me = rmp_comm_rank(world), n = rmp_comm_size(world);
    int laps = argc > 1 ? atoi(argv[1]) : 10;
    if (laps < 1)
        laps = 1;
    int right = (me + 1) % n, left = (me + n - 1) % n;
    long expect = (long)n * (n - 1) / 2;
    int bad = 0;

    for (int lap = 0; lap < laps; lap++) {
        long token;
        rmp_status_t st;
        if (me == 0) {
            /* Rank 0 sends first and then waits for the token to come back. A nonblocking
             * send lets a 1-rank job (right == left == 0) pass the token to itself. */
            token = 0;
            rmp_request_t req;
            check(rmp_isend(&token, sizeof token, right, TAG_TOKEN, world, &req), "rmp_isend");
            long back;
            check(rmp_recv(&back, sizeof back, left, TAG_TOKEN, world, &st), "rmp_recv");
            check(rmp_wait(&req, NULL), "rmp_wait");
            /* The status tells who sent the message and how big it was. */
            if (st.source != left || st.bytes != sizeof back || back != expect) {
                fprintf(stderr, "ring: lap %d: got %ld from rank %d (%zu bytes), expected %ld from %d\n",
                        lap, back, st.source, st.bytes, expect, left);
                bad = 1;
            }
        } else {
            /* Everybody else receives from the left, adds its rank and passes it on.
             * Messages between one pair with one tag arrive in order, so laps never mix. */
            check(rmp_recv(&token, sizeof token, left, TAG_TOKEN, world, &st), "rmp_recv");
            token += me;
            check(rmp_send(&token, sizeof token, right, TAG_TOKEN, world), "rmp_send");
        }
    }

    /* Only rank 0 can judge the result; tell everybody so that all ranks exit alike. */
    check(rmp_bcast(&bad, 1, RMP_INT32, 0, world), "rmp_bcast");
    if (me == 0)
        printf("ring: %d ranks, %d laps, token total %ld per lap: %s\n", n, laps, expect,
               bad ? "WRONG" : "ok");
    rc = rmp_finalize();
    if (rc != RMP_SUCCESS)
        fprintf(stderr, "ring: rmp_finalize: %s\n", rmp_strerror(rc));
    return bad || rc != RMP_SUCCESS ? 1 : 0;
}
