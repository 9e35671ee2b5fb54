/* SPDX-License-Identifier: BSD-3-Clause */
/* SRQ exhaustion: a burst of 10,000 eager messages at a receiver that is not
 * receiving (not even polling) for a few seconds. Credits must hold the
 * sender back: every message arrives, in order, intact, and the device
 * reports no receiver-not-ready NAK (Soft-RoCE's hw_counters). */
#include <glob.h>
#include <stdlib.h>
#include <unistd.h>

#include "vt.h"

#define N 10000

static long rnr_count(void)
{
    static const char *const pats[] = {
        "/sys/class/infiniband/*/ports/*/hw_counters/rcvd_rnr_err",
        "/sys/class/infiniband/*/ports/*/hw_counters/send_rnr_err"};
    long total = 0;
    int found = 0;
    for (int k = 0; k < 2; k++) {
        glob_t g;
        if (glob(pats[k], 0, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            FILE *f = fopen(g.gl_pathv[i], "r");
            long v = 0;
            if (f && fscanf(f, "%ld", &v) == 1) {
                total += v;
                found = 1;
            }
            if (f)
                fclose(f);
        }
        globfree(&g);
    }
    return found ? total : -1;
}

static size_t msg_size(int i)
{
    return i % 10 == 9 ? 4000 + (size_t)(i % 97) : 8 + (size_t)(i % 120);
}

int main(int argc, char **argv)
{
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    vt_require_verbs();
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w);
    if (me < 2) {
        int x = 0;
        /* connect first: the receiver must be idle, not the connection */
        T_RC(rmp_sendrecv(&x, sizeof(x), 1 - me, 0, &x, sizeof(x), 1 - me, 0, w, NULL));
    }
    long rnr0 = rnr_count();
    if (me == 0) {
        unsigned char *buf = malloc((size_t)N * 4100);
        rmp_request_t *rq = malloc(N * sizeof(*rq));
        double t0 = vt_now();
        for (int i = 0; i < N; i++) {
            unsigned char *b = buf + (size_t)i * 4100;
            size_t n = msg_size(i);
            vt_fill(b, n, i);
            T_RC(rmp_isend(b, n, 1, 5, w, &rq[i]));
        }
        T_RC(rmp_waitall(N, rq, NULL));
        printf("burst: %d messages sent in %.2f s\n", N, vt_now() - t0);
        free(buf);
        free(rq);
    } else if (me == 1) {
        sleep(3); /* no progress at all: the sender runs out of credits */
        unsigned char *b = malloc(4100);
        int ok = 1;
        for (int i = 0; i < N && ok; i++) {
            rmp_status_t st;
            int rc = rmp_recv(b, 4100, 0, 5, w, &st);
            ok = rc == RMP_SUCCESS && st.bytes == msg_size(i) && vt_check(b, st.bytes, i) < 0;
            if (!ok)
                fprintf(stderr, "burst: message %d wrong (rc %d, %zu bytes)\n", i, rc, st.bytes);
        }
        T_CHECK(ok, "10000 burst messages in order and intact");
        free(b);
    }
    if (me < 2) {
        long rnr1 = rnr_count();
        if (rnr0 >= 0) {
            T_CHECK(rnr1 == rnr0, "RNR NAKs during the burst: %ld", rnr1 - rnr0);
            if (me == 0)
                printf("burst: %ld RNR NAKs\n", rnr1 - rnr0);
        }
    }
    return t_finish();
}
