/* SPDX-License-Identifier: BSD-3-Clause */
/* Soak: every rank sends SOAK_MSGS messages of random sizes (seeded, the seed
 * logged) to random peers, with a checksum in each; receivers check that
 * nothing is lost, duplicated, reordered per sender, or corrupted. */
#include <rmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/t.h"

#define MAXSZ 70000

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint32_t csum(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

int main(int argc, char **argv)
{
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w), np = rmp_comm_size(w);
    long total = argc > 1 ? atol(argv[1]) : 1000000; /* messages in the whole job */
    uint64_t seed0 = argc > 2 ? strtoull(argv[2], NULL, 0) : 12345;
    if (me == 0)
        printf("soak: %ld messages, %d ranks, seed %llu\n", total, np,
               (unsigned long long)seed0);
    /* Every rank knows every rank's schedule (same generator), so it knows
     * exactly what it must receive from whom and in which order. */
    long per = total / np;
    uint64_t *st = malloc((size_t)np * sizeof(*st));
    long *next = calloc((size_t)np, sizeof(long)); /* next message index expected per sender */
    if (!st || !next)
        return 1;
    for (int r = 0; r < np; r++)
        st[r] = seed0 * 2654435761u + (uint64_t)r + 1;
    unsigned char *sbuf = malloc(MAXSZ + 16), *rbuf = malloc(MAXSZ + 16);
    /* Count what I must receive. */
    long expect = 0;
    {
        uint64_t *tmp = malloc((size_t)np * sizeof(*tmp));
        memcpy(tmp, st, (size_t)np * sizeof(*tmp));
        for (int r = 0; r < np; r++)
            for (long i = 0; i < per; i++) {
                uint64_t x = rng(&tmp[r]);
                int dest = (int)(x % (uint64_t)np);
                if (dest == r)
                    dest = (dest + 1) % np;
                if (dest == me)
                    expect++;
                rng(&tmp[r]);
            }
        free(tmp);
    }
    long sent = 0, got = 0, bad = 0;
    uint64_t mine = seed0 * 2654435761u + (uint64_t)me + 1; /* == st[me] */
    rmp_request_t sreq = RMP_REQUEST_NULL, rreq = RMP_REQUEST_NULL;
    if (expect > 0)
        rmp_irecv(rbuf, MAXSZ + 16, RMP_ANY_SOURCE, 1, w, &rreq);
    while (sent < per || got < expect) {
        if (sent < per && sreq == RMP_REQUEST_NULL) {
            uint64_t x = rng(&mine);
            int dest = (int)(x % (uint64_t)np);
            if (dest == me)
                dest = (dest + 1) % np;
            uint64_t y = rng(&mine);
            size_t n = (y % 8 == 0) ? (size_t)(y % MAXSZ) : (size_t)(y % 512);
            if (n < 16)
                n = 16;
            uint32_t seq = (uint32_t)sent;
            memcpy(sbuf, &seq, 4);
            for (size_t i = 16; i < n; i++)
                sbuf[i] = (unsigned char)(y >> (i % 56));
            uint32_t c = csum(sbuf + 16, n - 16);
            memcpy(sbuf + 4, &c, 4);
            int32_t src = me;
            memcpy(sbuf + 8, &src, 4);
            if (rmp_isend(sbuf, n, dest, 1, w, &sreq) != RMP_SUCCESS)
                bad++;
            sent++;
        }
        int done = 0;
        if (sreq != RMP_REQUEST_NULL)
            rmp_test(&sreq, &done, NULL);
        if (got < expect) {
            rmp_status_t s;
            rmp_test(&rreq, &done, &s);
            if (done) {
                uint32_t seq, c;
                int32_t src;
                memcpy(&seq, rbuf, 4);
                memcpy(&c, rbuf + 4, 4);
                memcpy(&src, rbuf + 8, 4);
                if (src != s.source || s.bytes < 16 || c != csum(rbuf + 16, s.bytes - 16)) {
                    bad++;
                } else {
                    /* per-sender order: sequence numbers of messages to me only increase */
                    if ((long)seq < next[src])
                        bad++;
                    next[src] = (long)seq + 1;
                }
                got++;
                if (got < expect)
                    rmp_irecv(rbuf, MAXSZ + 16, RMP_ANY_SOURCE, 1, w, &rreq);
            }
        }
    }
    /* The last send may be a rendezvous still being read: its buffer must live. */
    if (sreq != RMP_REQUEST_NULL)
        rmp_wait(&sreq, NULL);
    T_CHECK(bad == 0, "soak: %ld bad messages (seed %llu)", bad, (unsigned long long)seed0);
    T_CHECK(got == expect, "soak: got %ld of %ld", got, expect);
    /* nothing extra may be pending */
    int flag = 1;
    rmp_iprobe(RMP_ANY_SOURCE, 1, w, &flag, NULL);
    T_CHECK(flag == 0, "soak: an unexpected extra message");
    free(st);
    free(next);
    free(sbuf);
    free(rbuf);
    return t_finish();
}
