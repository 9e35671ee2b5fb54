/* SPDX-License-Identifier: BSD-3-Clause */
/* RMP_THREAD_MULTIPLE under rrun (docs/threads.md): mt_test MODE THREADS, every rank
 * running THREADS threads that call rmp at the same time.
 *   pingpong  each thread ping-pongs 256 B with the same thread of rank ^ 1 on its own tag
 *   anysrc    rank 0's threads all receive with RMP_ANY_SOURCE on one tag, competing for
 *             the messages every other rank's threads send; totals and checksums exact
 *   handoff   one thread posts receives and sends, another thread waits on its requests
 *   coll      each thread runs barrier/bcast/allreduce/allgather on its own dup of world
 *   rma       fetch-add from every thread to one counter and to per-thread counters, and
 *             put/get + flush on per-thread slots; totals exact
 *   soak      100,000 messages in all, checksummed, over every thread of ranks 2k, 2k+1
 *   kill      the last rank dies while every thread of the others is blocked in a
 *             receive from it: each thread prints RMP_ERR_PEER_FAILED (tests/threads/
 *             mt_kill.sh checks the lines)
 * Exits 0 and prints "mt MODE: ok" on success; 1 with a message otherwise. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rmp.h>

#define FAIL(...)                                                                          \
    do {                                                                                   \
        fprintf(stderr, "mt_test rank %d: ", me);                                          \
        fprintf(stderr, __VA_ARGS__);                                                      \
        fputc('\n', stderr);                                                               \
        exit(1);                                                                           \
    } while (0)
#define CK(c)                                                                              \
    do {                                                                                   \
        int rc_ = (c);                                                                     \
        if (rc_ != RMP_SUCCESS)                                                            \
            FAIL("%s: %s", #c, rmp_strerror(rc_));                                         \
    } while (0)

static int me, np, nthreads;
static rmp_comm_t comms[8];
static rmp_win_t win;
static uint64_t *winbuf;

static unsigned char pat(int a, int b, int k)
{
    return (unsigned char)(a * 131 + b * 31 + k);
}

static void *t_pingpong(void *arg)
{
    int t = (int)(intptr_t)arg, peer = me ^ 1;
    rmp_comm_t w = rmp_comm_world();
    unsigned char out[256], in[256];
    for (int i = 0; i < 2000; i++) {
        for (int k = 0; k < 256; k++)
            out[k] = pat(i, t, k);
        if (me & 1) {
            CK(rmp_recv(in, sizeof(in), peer, t, w, NULL));
            if (memcmp(in, out, sizeof(in)) != 0)
                FAIL("pingpong: thread %d message %d corrupted", t, i);
            CK(rmp_send(in, sizeof(in), peer, t, w));
        } else {
            CK(rmp_send(out, sizeof(out), peer, t, w));
            CK(rmp_recv(in, sizeof(in), peer, t, w, NULL));
            if (memcmp(in, out, sizeof(in)) != 0)
                FAIL("pingpong: thread %d reply %d corrupted", t, i);
        }
    }
    return NULL;
}

/* Messages carry (sender rank, thread, index); rank 0 sums what it got. */
#define ANY_PER_THREAD 500
static uint64_t any_sum[8];
static long any_count[8];

static void *t_anysrc(void *arg)
{
    int t = (int)(intptr_t)arg;
    rmp_comm_t w = rmp_comm_world();
    int total = (np - 1) * nthreads * ANY_PER_THREAD;
    if (me == 0) {
        /* Every thread receives until the shared budget is used up. */
        static long taken;
        for (;;) {
            if (__atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED) >= total)
                break;
            uint32_t m[3];
            rmp_status_t st;
            CK(rmp_recv(m, sizeof(m), RMP_ANY_SOURCE, 99, w, &st));
            if (st.source != (int)m[0] || st.bytes != sizeof(m))
                FAIL("anysrc: status says rank %d, %zu bytes; message says rank %u", st.source,
                     st.bytes, m[0]);
            any_sum[t] += (uint64_t)m[0] * 1000003u + m[1] * 1009u + m[2];
            any_count[t]++;
        }
    } else {
        for (uint32_t i = 0; i < ANY_PER_THREAD; i++) {
            uint32_t m[3] = {(uint32_t)me, (uint32_t)t, i};
            CK(rmp_send(m, sizeof(m), 0, 99, w));
        }
    }
    return NULL;
}

static void check_anysrc(void)
{
    if (me != 0)
        return;
    uint64_t want = 0, got = 0;
    long n = 0;
    for (int r = 1; r < np; r++)
        for (int t = 0; t < nthreads; t++)
            for (int i = 0; i < ANY_PER_THREAD; i++)
                want += (uint64_t)r * 1000003u + (uint64_t)t * 1009u + (uint64_t)i;
    for (int t = 0; t < nthreads; t++) {
        got += any_sum[t];
        n += any_count[t];
    }
    if (n != (long)(np - 1) * nthreads * ANY_PER_THREAD || got != want)
        FAIL("anysrc: %ld messages, checksum %llu (want %d, %llu)", n, (unsigned long long)got,
             (np - 1) * nthreads * ANY_PER_THREAD, (unsigned long long)want);
}

/* handoff: thread 2k posts, thread 2k+1 waits on the requests it was handed. */
#define HANDOFF_N 64
static rmp_request_t handoff_req[8][2 * HANDOFF_N];
static int handoff_ready[8];
static unsigned handoff_in[8][HANDOFF_N], handoff_out[8][HANDOFF_N];

static void *t_handoff(void *arg)
{
    int t = (int)(intptr_t)arg, pair = t / 2, peer = me ^ 1;
    rmp_comm_t w = rmp_comm_world();
    for (int round = 0; round < 50; round++) {
        if (t % 2 == 0) {
            for (int i = 0; i < HANDOFF_N; i++) {
                handoff_out[pair][i] = (unsigned)(round * 7919 + i * 13 + pair);
                CK(rmp_irecv(&handoff_in[pair][i], sizeof(unsigned), peer, 100 + pair, w,
                             &handoff_req[pair][i]));
                CK(rmp_isend(&handoff_out[pair][i], sizeof(unsigned), peer, 100 + pair, w,
                             &handoff_req[pair][HANDOFF_N + i]));
            }
            __atomic_store_n(&handoff_ready[pair], 1, __ATOMIC_RELEASE);
            while (__atomic_load_n(&handoff_ready[pair], __ATOMIC_ACQUIRE) != 0)
                sched_yield();
        } else {
            while (__atomic_load_n(&handoff_ready[pair], __ATOMIC_ACQUIRE) != 1)
                sched_yield();
            CK(rmp_waitall(2 * HANDOFF_N, handoff_req[pair], NULL));
            for (int i = 0; i < HANDOFF_N; i++)
                if (handoff_in[pair][i] != (unsigned)(round * 7919 + i * 13 + pair))
                    FAIL("handoff: pair %d round %d message %d: %u", pair, round, i,
                         handoff_in[pair][i]);
            __atomic_store_n(&handoff_ready[pair], 0, __ATOMIC_RELEASE);
        }
    }
    return NULL;
}

static void *t_coll(void *arg)
{
    int t = (int)(intptr_t)arg;
    rmp_comm_t c = comms[t];
    for (int i = 0; i < 200; i++) {
        CK(rmp_barrier(c));
        int64_t v = me + t + i, sum = 0;
        CK(rmp_allreduce(&v, &sum, 1, RMP_INT64, RMP_SUM, c));
        int64_t want = (int64_t)np * (t + i) + (int64_t)np * (np - 1) / 2;
        if (sum != want)
            FAIL("coll: thread %d allreduce %d gave %lld, want %lld", t, i, (long long)sum,
                 (long long)want);
        int64_t b = me == i % np ? 1000 * t + i : -1;
        CK(rmp_bcast(&b, 1, RMP_INT64, i % np, c));
        if (b != 1000 * t + i)
            FAIL("coll: thread %d bcast %d gave %lld", t, i, (long long)b);
        int32_t mine = me * 100 + t, all[64];
        CK(rmp_allgather(&mine, all, 1, RMP_INT32, c));
        for (int r = 0; r < np; r++)
            if (all[r] != r * 100 + t)
                FAIL("coll: thread %d allgather %d: slot %d = %d", t, i, r, all[r]);
    }
    return NULL;
}

/* Window: [0] one counter everyone adds to, [1..8] one per thread, then per-thread slots. */
#define RMA_ITERS 300
static void *t_rma(void *arg)
{
    int t = (int)(intptr_t)arg, right = (me + 1) % np;
    uint64_t old;
    for (int i = 0; i < RMA_ITERS; i++) {
        CK(rmp_atomic_fetch_add(1, &old, 0, 0, win));
        CK(rmp_atomic_fetch_add(2, &old, right, (size_t)(1 + t) * 8, win));
        uint64_t v = ((uint64_t)me << 40) | ((uint64_t)t << 32) | (uint64_t)i, back = 0;
        size_t slot = (size_t)(16 + me * 8 + t) * 8;
        CK(rmp_put(&v, sizeof(v), right, slot, win));
        CK(rmp_win_flush(right, win));
        CK(rmp_get(&back, sizeof(back), right, slot, win));
        if (back != v)
            FAIL("rma: thread %d read back %llx, wrote %llx", t, (unsigned long long)back,
                 (unsigned long long)v);
        if (i % 16 == 0) {
            CK(rmp_put_nbi(&v, sizeof(v), right, slot, win));
            CK(rmp_win_flush_all(win));
        }
    }
    return NULL;
}

static void check_rma(void)
{
    if (me == 0 && winbuf[0] != (uint64_t)np * nthreads * RMA_ITERS)
        FAIL("rma: shared counter %llu, want %d", (unsigned long long)winbuf[0],
             np * nthreads * RMA_ITERS);
    for (int t = 0; t < nthreads; t++)
        if (winbuf[1 + t] != 2u * RMA_ITERS)
            FAIL("rma: thread %d's counter %llu, want %d", t, (unsigned long long)winbuf[1 + t],
                 2 * RMA_ITERS);
}

#define SOAK_TOTAL 100000
static void *t_soak(void *arg)
{
    int t = (int)(intptr_t)arg, peer = me ^ 1;
    rmp_comm_t w = rmp_comm_world();
    int n = SOAK_TOTAL / nthreads / 2; /* each direction */
    uint64_t sum_out = 0, sum_in = 0;
    unsigned char buf[8][1024];
    rmp_request_t rq[8];
    for (int i = 0; i < n; i += 8) {
        int k = n - i < 8 ? n - i : 8;
        for (int j = 0; j < k; j++)
            CK(rmp_irecv(buf[j], sizeof(buf[j]), peer, 200 + t, w, &rq[j]));
        for (int j = 0; j < k; j++) {
            unsigned char m[1024];
            size_t len = (size_t)((i + j) * 37 % 1000) + 8;
            for (size_t b = 0; b < len; b++)
                m[b] = pat(i + j, t, (int)b);
            for (size_t b = 0; b < len; b++)
                sum_out += m[b] * (b + 1);
            CK(rmp_send(m, len, peer, 200 + t, w));
        }
        for (int j = 0; j < k; j++) {
            rmp_status_t st;
            CK(rmp_wait(&rq[j], &st));
            for (size_t b = 0; b < st.bytes; b++)
                sum_in += buf[j][b] * (b + 1);
        }
    }
    if (sum_in != sum_out) /* both sides send the same sequence */
        FAIL("soak: thread %d checksum in %llu, out %llu", t, (unsigned long long)sum_in,
             (unsigned long long)sum_out);
    return NULL;
}

static void *t_kill(void *arg)
{
    int t = (int)(intptr_t)arg;
    char b[8];
    int rc = rmp_recv(b, sizeof(b), np - 1, 300 + t, rmp_comm_world(), NULL);
    printf("rank %d thread %d: %s\n", me, t, rmp_strerror(rc));
    fflush(stdout);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        FAIL("usage: mt_test pingpong|anysrc|handoff|coll|rma|soak|kill THREADS");
    const char *mode = argv[1];
    nthreads = atoi(argv[2]);
    if (nthreads < 1 || nthreads > 8)
        FAIL("THREADS must be 1..8");
    int provided;
    CK(rmp_init_thread(&argc, &argv, RMP_THREAD_MULTIPLE, &provided));
    if (provided != RMP_THREAD_MULTIPLE)
        FAIL("asked for RMP_THREAD_MULTIPLE, got %d", provided);
    rmp_comm_t w = rmp_comm_world();
    me = rmp_comm_rank(w);
    np = rmp_comm_size(w);
    void *(*fn)(void *) = NULL;
    if (strcmp(mode, "pingpong") == 0 || strcmp(mode, "handoff") == 0 ||
        strcmp(mode, "soak") == 0) {
        if (np % 2)
            FAIL("%s needs an even number of ranks", mode);
        fn = mode[0] == 'p' ? t_pingpong : mode[0] == 'h' ? t_handoff : t_soak;
        if (fn == t_handoff && nthreads % 2)
            FAIL("handoff needs an even number of threads");
    } else if (strcmp(mode, "anysrc") == 0) {
        fn = t_anysrc;
    } else if (strcmp(mode, "coll") == 0) {
        for (int t = 0; t < nthreads; t++)
            CK(rmp_comm_dup(w, &comms[t]));
        fn = t_coll;
    } else if (strcmp(mode, "rma") == 0) {
        CK(rmp_win_allocate((size_t)(16 + 8 * np) * 8 + 64, w, (void **)&winbuf, &win));
        memset(winbuf, 0, (size_t)(16 + 8 * np) * 8);
        CK(rmp_barrier(w));
        fn = t_rma;
    } else if (strcmp(mode, "kill") == 0) {
        CK(rmp_barrier(w));
        if (me == np - 1) {
            usleep(300000); /* the others' threads are blocked by now */
            printf("rank %d: dying\n", me);
            fflush(stdout);
            raise(SIGKILL);
        }
        fn = t_kill;
    } else {
        FAIL("unknown mode %s", mode);
    }
    pthread_t th[8];
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t) != 0)
            FAIL("pthread_create");
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    if (fn == t_kill) {
        printf("rank %d: done\n", me);
        return 0;
    }
    CK(rmp_barrier(w));
    if (fn == t_anysrc)
        check_anysrc();
    if (fn == t_rma) {
        check_rma();
        CK(rmp_barrier(w));
        CK(rmp_win_free(&win));
    }
    if (fn == t_coll)
        for (int t = 0; t < nthreads; t++)
            CK(rmp_comm_free(&comms[t]));
    CK(rmp_finalize());
    if (me == 0)
        printf("mt %s: ok (%d ranks x %d threads)\n", mode, np, nthreads);
    return 0;
}
