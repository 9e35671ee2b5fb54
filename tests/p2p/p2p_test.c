/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point conformance: run with 2, 3, 4 ranks on any transport. */
#include <rmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/t.h"

static int me, np;
static rmp_comm_t W;

static unsigned char pat(size_t i, int src, int salt)
{
    return (unsigned char)(i * 131 + (size_t)src * 7 + (size_t)salt * 13 + (i >> 8));
}

static void fill(unsigned char *b, size_t n, int src, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(i, src, salt);
}

static int verify(const unsigned char *b, size_t n, int src, int salt)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(i, src, salt))
            return 0;
    return 1;
}

/* Every size across eager, rendezvous and their boundaries, ring pattern. */
static void test_sizes(void)
{
    size_t sizes[64];
    int ns = 0;
    size_t edges[] = {0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 100, 1000, 4095, 4096, 4097,
                      8191, 8192, 8193, 16383, 16384, 16385, 32767, 32768, 32769, 65535,
                      65536, 65537, 131072, 262143, 1 << 20, (1 << 20) + 1, 4 << 20,
                      (8 << 20) - 1, 8 << 20};
    for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
        sizes[ns++] = edges[i];
    size_t maxn = 8 << 20;
    unsigned char *sb = malloc(maxn + 64), *rb = malloc(maxn + 64);
    int to = (me + 1) % np, from = (me + np - 1) % np;
    for (int k = 0; k < ns; k++) {
        size_t n = sizes[k];
        fill(sb, n, me, k);
        memset(rb, 0xEE, n + 64);
        rmp_status_t st;
        int rc = rmp_sendrecv(sb, n, to, k, rb, n, from, k, W, &st);
        T_CHECK(rc == RMP_SUCCESS, "sendrecv %zu: %s", n, rmp_strerror(rc));
        T_CHECK(st.bytes == n && st.source == from && st.tag == k,
                "status of %zu: bytes %zu source %d tag %d", n, st.bytes, st.source, st.tag);
        T_CHECK(verify(rb, n, from, k), "data of %zu bytes", n);
        T_CHECK(rb[n] == 0xEE, "byte past %zu written", n);
        /* the same with blocking send/recv ordered to avoid deadlock, and isend/irecv */
        rmp_request_t rq[2];
        memset(rb, 0, n);
        T_RC(rmp_irecv(rb, n, from, 1000 + k, W, &rq[0]));
        T_RC(rmp_isend(sb, n, to, 1000 + k, W, &rq[1]));
        T_RC(rmp_waitall(2, rq, NULL));
        T_CHECK(rq[0] == RMP_REQUEST_NULL && rq[1] == RMP_REQUEST_NULL, "requests nulled");
        T_CHECK(verify(rb, n, from, k), "nonblocking data of %zu bytes", n);
    }
    free(sb);
    free(rb);
}

/* Wildcards: rank 0 receives one message from every other rank with ANY_SOURCE. */
static void test_wildcards(void)
{
    /* On a private communicator: other tests' traffic must not match. */
    rmp_comm_t W0 = W;
    T_RC(rmp_comm_dup(W0, &W));
    if (me == 0) {
        int seen[64] = {0};
        for (int i = 1; i < np; i++) {
            int v = -1;
            rmp_status_t st;
            T_RC(rmp_recv(&v, sizeof(v), RMP_ANY_SOURCE, RMP_ANY_TAG, W, &st));
            T_CHECK(v == st.source * 100 + st.tag && st.tag == st.source + 5,
                    "wildcard got %d from %d tag %d", v, st.source, st.tag);
            if (st.source > 0 && st.source < 64)
                seen[st.source]++;
        }
        for (int i = 1; i < np && i < 64; i++)
            T_CHECK(seen[i] == 1, "rank %d seen %d times", i, seen[i]);
    } else {
        int v = me * 100 + me + 5;
        T_RC(rmp_send(&v, sizeof(v), 0, me + 5, W));
    }
    T_RC(rmp_comm_free(&W));
    W = W0;
}

/* 10,000 messages of mixed sizes (eager and rendezvous) and tags from rank 1
 * to rank 0 arrive in send order; then 3,000 small messages received tag by
 * tag (forcing the others into the unexpected queue) keep per-tag order. */
static size_t ord_size(int i)
{
    return (size_t)((i * 7919) % 5 == 0 ? 40000 + i % 1000 : i % 300);
}

static void test_ordering(void)
{
    const int N = 10000, M = 3000;
    if (np < 2 || me > 1)
        return;
    unsigned char *buf = malloc(70000);
    if (me == 1) {
        for (int i = 0; i < N; i++) {
            size_t n = ord_size(i);
            fill(buf, n, i, 3);
            if (n >= sizeof(int))
                memcpy(buf, &i, sizeof(int));
            T_RC(rmp_send(buf, n, 0, i % 3, W));
        }
        for (int i = 0; i < M; i++) {
            int v = i;
            T_RC(rmp_send(&v, sizeof(v), 0, 100 + i % 3, W));
        }
    } else {
        int ok = 1;
        for (int i = 0; i < N && ok; i++) {
            size_t n = ord_size(i);
            rmp_status_t st;
            int rc = rmp_recv(buf, 70000, 1, RMP_ANY_TAG, W, &st);
            ok = rc == RMP_SUCCESS && st.bytes == n && st.tag == i % 3;
            if (ok && n >= sizeof(int)) {
                int seq;
                memcpy(&seq, buf, sizeof(int));
                ok = seq == i;
                for (size_t j = sizeof(int); ok && j < n; j++)
                    ok = buf[j] == pat(j, i, 3);
            }
            if (!ok)
                fprintf(stderr, "ordering: message %d wrong (size %zu tag %d)\n", i, st.bytes,
                        st.tag);
        }
        T_CHECK(ok, "10000 mixed messages in order");
        for (int tag = 102; tag >= 100; tag--) {
            int tok = 1;
            for (int i = tag - 100; i < M; i += 3) {
                int v = -1;
                tok &= rmp_recv(&v, sizeof(v), 1, tag, W, NULL) == RMP_SUCCESS && v == i;
            }
            T_CHECK(tok, "per-tag order of tag %d", tag);
        }
    }
    free(buf);
}

/* 1,000 isends before any wait, to a receiver that posts late. */
static void test_many_outstanding(void)
{
    const int N = 1000;
    if (np < 2 || me > 1)
        return;
    int *vals = malloc(N * sizeof(int));
    rmp_request_t *rq = malloc(N * sizeof(*rq));
    if (me == 0) {
        for (int i = 0; i < N; i++) {
            vals[i] = i * 3 + 1;
            T_RC(rmp_isend(&vals[i], sizeof(int), 1, 77, W, &rq[i]));
        }
        T_RC(rmp_waitall(N, rq, NULL));
    } else {
        for (int i = 0; i < N; i++)
            T_RC(rmp_irecv(&vals[i], sizeof(int), 0, 77, W, &rq[i]));
        rmp_status_t *st = malloc(N * sizeof(*st));
        T_RC(rmp_waitall(N, rq, st));
        int ok = 1;
        for (int i = 0; i < N; i++)
            ok &= vals[i] == i * 3 + 1 && st[i].bytes == sizeof(int);
        T_CHECK(ok, "1000 outstanding values in order");
        free(st);
    }
    free(vals);
    free(rq);
}

static void test_truncation(void)
{
    if (np < 2 || me > 1)
        return;
    size_t sizes[] = {100, 100000, 3 << 20};
    for (int k = 0; k < 3; k++) {
        size_t n = sizes[k];
        unsigned char *b = malloc(n + 16);
        if (me == 0) {
            fill(b, n, 0, k);
            T_RC(rmp_send(b, n, 1, 50 + k, W));
        } else {
            memset(b, 0xAB, n + 16);
            rmp_status_t st;
            int rc = rmp_recv(b, n / 2, 0, 50 + k, W, &st);
            T_CHECK(rc == RMP_ERR_TRUNCATE, "truncation of %zu gives %s", n, rmp_strerror(rc));
            T_CHECK(st.error == RMP_ERR_TRUNCATE && st.bytes == n / 2, "truncated status");
            T_CHECK(verify(b, n / 2, 0, k), "truncated data prefix");
            int untouched = 1;
            for (size_t i = n / 2; i < n + 16; i++)
                untouched &= b[i] == 0xAB;
            T_CHECK(untouched, "nothing written past the buffer (%zu)", n);
        }
        free(b);
    }
}

static void test_self(void)
{
    size_t sizes[] = {0, 5, 20000, 2 << 20};
    for (int k = 0; k < 4; k++) {
        size_t n = sizes[k];
        unsigned char *a = malloc(n + 1), *b = malloc(n + 1);
        fill(a, n, me, k);
        /* blocking send to self before the receive is posted */
        T_RC(rmp_send(a, n, me, 9, W));
        rmp_status_t st;
        T_RC(rmp_recv(b, n, me, 9, W, &st));
        T_CHECK(st.source == me && st.bytes == n && verify(b, n, me, k), "self %zu", n);
        rmp_request_t r[2];
        memset(b, 0, n);
        T_RC(rmp_irecv(b, n, me, 10, W, &r[0]));
        T_RC(rmp_isend(a, n, me, 10, W, &r[1]));
        T_RC(rmp_waitall(2, r, NULL));
        T_CHECK(verify(b, n, me, k), "self nonblocking %zu", n);
        free(a);
        free(b);
    }
}

static void test_probe(void)
{
    if (np < 2 || me > 1)
        return;
    if (me == 0) {
        char msg[300];
        memset(msg, 'p', sizeof(msg));
        T_RC(rmp_send(msg, 123, 1, 31, W));
        char *big = calloc(1, 100000);
        T_RC(rmp_send(big, 100000, 1, 32, W));
        free(big);
    } else {
        rmp_status_t st;
        T_RC(rmp_probe(0, 31, W, &st));
        T_CHECK(st.bytes == 123 && st.source == 0 && st.tag == 31, "probe status %zu", st.bytes);
        int flag = 0;
        T_RC(rmp_iprobe(RMP_ANY_SOURCE, 4242, W, &flag, &st));
        T_CHECK(flag == 0, "iprobe finds nothing for an unused tag");
        char buf[123];
        T_RC(rmp_recv(buf, sizeof(buf), 0, 31, W, &st));
        /* the large one */
        T_RC(rmp_probe(0, RMP_ANY_TAG, W, &st));
        T_CHECK(st.tag == 32 && st.bytes == 100000, "probe any tag");
        char *big = malloc(st.bytes);
        T_RC(rmp_recv(big, st.bytes, 0, 32, W, &st));
        free(big);
    }
}

static void test_bad_input(void)
{
    char b[8] = {0};
    rmp_request_t r;
    T_CHECK(rmp_send(b, 8, np, 0, W) == RMP_ERR_ARG, "dest == size");
    T_CHECK(rmp_send(b, 8, -1, 0, W) == RMP_ERR_ARG, "dest -1");
    T_CHECK(rmp_send(b, 8, 0, -5, W) == RMP_ERR_ARG, "negative tag");
    T_CHECK(rmp_send(NULL, 8, 0, 0, W) == RMP_ERR_ARG, "NULL buffer");
    T_CHECK(rmp_isend(b, 8, 0, 0, W, NULL) == RMP_ERR_ARG, "NULL request");
    T_CHECK(rmp_recv(b, 8, np + 3, 0, W, NULL) == RMP_ERR_ARG, "source out of range");
    T_CHECK(rmp_irecv(NULL, 8, 0, 0, W, &r) == RMP_ERR_ARG, "NULL recv buffer");
    T_CHECK(rmp_recv(b, 8, 0, -7, W, NULL) == RMP_ERR_ARG, "recv negative tag");
    T_CHECK(rmp_send(b, 8, 0, 0, RMP_COMM_NULL) == RMP_ERR_ARG, "NULL comm");
    T_CHECK(rmp_send(NULL, 0, me, 3, W) == RMP_SUCCESS, "NULL with 0 bytes is fine");
    T_CHECK(rmp_recv(NULL, 0, me, 3, W, NULL) == RMP_SUCCESS, "0-byte recv");
    T_CHECK(rmp_wait(NULL, NULL) == RMP_ERR_ARG, "wait NULL");
    rmp_request_t nul = RMP_REQUEST_NULL;
    T_CHECK(rmp_wait(&nul, NULL) == RMP_SUCCESS, "wait on a null request");
    T_CHECK(rmp_init(NULL, NULL) == RMP_ERR_STATE, "double init");
}

static void test_split(void)
{
    rmp_comm_t half;
    T_RC(rmp_comm_split(W, me % 2, -me, &half));
    int hs = rmp_comm_size(half), hr = rmp_comm_rank(half);
    T_CHECK(hs == (np + 1 - me % 2) / 2, "split size %d", hs);
    /* key -me reverses the order */
    int expect = hs - 1 - me / 2;
    T_CHECK(hr == expect, "split rank %d expected %d", hr, expect);
    /* messages on the sub-communicator do not match world receives */
    int v = me, got = -1;
    T_RC(rmp_sendrecv(&v, sizeof(v), (hr + 1) % hs, 5, &got, sizeof(got), (hr + hs - 1) % hs, 5,
                      half, NULL));
    int from_world = -1;
    /* who is my left neighbour in half, in world terms: same parity */
    for (int w = 0; w < np; w++)
        if (w % 2 == me % 2 && (hs - 1 - w / 2) == (hr + hs - 1) % hs)
            from_world = w;
    T_CHECK(got == from_world, "split ring got %d expected %d", got, from_world);
    rmp_comm_t none;
    T_RC(rmp_comm_split(W, me == 0 ? RMP_UNDEFINED : 1, 0, &none));
    T_CHECK((me == 0) == (none == RMP_COMM_NULL), "undefined color gives no comm");
    if (none)
        T_RC(rmp_comm_free(&none));
    T_RC(rmp_comm_free(&half));
    T_CHECK(half == RMP_COMM_NULL, "freed comm nulled");
}

/* rmp_node_ranks: this node's world ranks, ascending, the same set as the ranks whose
 * rmp_node_id is ours (gathered from every rank). */
static void test_node(void)
{
    int n = -1, id = rmp_node_id();
    T_CHECK(rmp_node_ranks(NULL, 0, NULL) == RMP_ERR_ARG, "node_ranks: NULL n");
    T_CHECK(rmp_node_ranks(NULL, 1, &n) == RMP_ERR_ARG, "node_ranks: NULL ranks, max 1");
    T_RC(rmp_node_ranks(NULL, 0, &n));
    T_CHECK(n >= 1 && n <= np, "node_ranks: %d ranks of %d", n, np);
    int *ranks = calloc((size_t)n, sizeof(int)), *ids = calloc((size_t)np, sizeof(int));
    T_CHECK(ranks && ids, "calloc");
    if (!ranks || !ids)
        return;
    int n2 = -1;
    T_RC(rmp_node_ranks(ranks, n, &n2));
    T_RC(rmp_allgather(&id, ids, 1, RMP_INT32, W));
    int k = 0, mine = 0;
    for (int r = 0; r < np; r++)
        if (ids[r] == id) {
            T_CHECK(k < n && ranks[k] == r, "node_ranks[%d] = %d, want %d", k,
                    k < n ? ranks[k] : -1, r);
            mine |= r == me;
            k++;
        }
    T_CHECK(n2 == n && k == n && mine, "node_ranks: %d then %d ranks, %d share node %d", n, n2,
            k, id);
    free(ranks);
    free(ids);
}

int main(int argc, char **argv)
{
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "rmp_init: %s\n", rmp_strerror(rc));
        return 1;
    }
    W = rmp_comm_world();
    me = rmp_comm_rank(W);
    np = rmp_comm_size(W);
    struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {{"bad_input", test_bad_input}, {"self", test_self},
                 {"sizes", test_sizes}, {"wildcards", test_wildcards},
                 {"ordering", test_ordering}, {"many_outstanding", test_many_outstanding},
                 {"truncation", test_truncation}, {"probe", test_probe},
                 {"split", test_split}, {"node", test_node}};
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
        if (getenv("P2P_TEST_VERBOSE"))
            fprintf(stderr, "rank %d: %s\n", me, tests[i].name);
        tests[i].fn();
    }
    return t_finish();
}
