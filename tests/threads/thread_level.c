/* SPDX-License-Identifier: BSD-3-Clause */
/* Thread levels under rrun at 2 ranks (docs/threads.md): thread_level MODE, MODE one of
 *   single, funneled  a second thread's calls return RMP_ERR_STATE (no hang, no effect),
 *                     rmp_is_thread_main says 0 there and 1 in the main thread, and the
 *                     main thread's traffic still works afterwards;
 *   serialized        two threads, one after the other (joined in turn), each exchange
 *                     checksummed messages with the peer;
 *   multiple          asking for MULTIPLE gives MULTIPLE and rmp_query_thread agrees (the
 *                     concurrent calls are tested by mt_test.c).
 * At serialized and multiple, other threads take the fast argument checks too
 * (rmpi_any_thread): at multiple, after a revoke a worker's send on the revoked
 * communicator gets RMP_ERR_REVOKED and world still works from a worker; at both, after
 * rmp_finalize a worker's calls get RMP_ERR_STATE.
 * Exits 0 on success, 1 with a message otherwise. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rmp.h>

#define FAIL(...)                                                                          \
    do {                                                                                   \
        fprintf(stderr, "thread_level: " __VA_ARGS__);                                     \
        fputc('\n', stderr);                                                               \
        exit(1);                                                                           \
    } while (0)
#define CK(c)                                                                              \
    do {                                                                                   \
        int rc_ = (c);                                                                     \
        if (rc_ != RMP_SUCCESS)                                                            \
            FAIL("%s: %s", #c, rmp_strerror(rc_));                                         \
    } while (0)

static int rank;

/* n ping-pongs of 64 B with the peer, contents checked: 0 when all arrived intact. */
static int exchange(int n, int tag)
{
    rmp_comm_t w = rmp_comm_world();
    unsigned char out[64], in[64];
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 64; k++)
            out[k] = (unsigned char)(i * 31 + k + tag);
        int rc;
        if (rank == 0) {
            if ((rc = rmp_send(out, 64, 1, tag, w)) != RMP_SUCCESS ||
                (rc = rmp_recv(in, 64, 1, tag, w, NULL)) != RMP_SUCCESS)
                return rc;
        } else {
            if ((rc = rmp_recv(in, 64, 0, tag, w, NULL)) != RMP_SUCCESS ||
                (rc = rmp_send(out, 64, 0, tag, w)) != RMP_SUCCESS)
                return rc;
        }
        if (memcmp(in, out, 64) != 0)
            return RMP_ERR_INTERNAL;
    }
    return RMP_SUCCESS;
}

typedef struct {
    int rc_send, rc_rank, rc_wait, main_flag, rc_main, rc_ex;
    int serialized, tag;
    rmp_comm_t comm; /* the send's communicator: world unless set */
} probe_t;

static void *worker(void *arg)
{
    probe_t *p = arg;
    p->rc_main = rmp_is_thread_main(&p->main_flag);
    if (p->comm) {
        char b = 1;
        p->rc_send = rmp_send(&b, 1, 1 - rank, 98, p->comm);
        p->rc_rank = rmp_comm_rank(rmp_comm_world());
        return NULL;
    }
    if (p->serialized) {
        p->rc_ex = exchange(500, p->tag);
        return NULL;
    }
    char b = 1;
    rmp_request_t none = RMP_REQUEST_NULL;
    p->rc_send = rmp_send(&b, 1, 1 - rank, 99, rmp_comm_world());
    p->rc_rank = rmp_comm_rank(rmp_comm_world());
    p->rc_wait = rmp_wait(&none, NULL); /* names no communicator: the state check alone */
    return NULL;
}

static probe_t run_worker_on(int serialized, int tag, rmp_comm_t comm)
{
    probe_t p = {.serialized = serialized, .tag = tag, .main_flag = -1, .comm = comm};
    pthread_t t;
    if (pthread_create(&t, NULL, worker, &p) != 0 || pthread_join(t, NULL) != 0)
        FAIL("pthread");
    return p;
}

static probe_t run_worker(int serialized, int tag)
{
    return run_worker_on(serialized, tag, NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "single";
    int want = !strcmp(mode, "funneled")     ? RMP_THREAD_FUNNELED
               : !strcmp(mode, "serialized") ? RMP_THREAD_SERIALIZED
               : !strcmp(mode, "multiple")   ? RMP_THREAD_MULTIPLE
                                             : RMP_THREAD_SINGLE;
    int provided = -1, q = -1, flag = -1;
    if (!strcmp(mode, "single"))
        CK(rmp_init(&argc, &argv));
    else
        CK(rmp_init_thread(&argc, &argv, want, &provided));
    rank = rmp_comm_rank(rmp_comm_world());
    CK(rmp_query_thread(&q));
    CK(rmp_is_thread_main(&flag));
    if (flag != 1)
        FAIL("rmp_is_thread_main is %d in the main thread", flag);
    if (!strcmp(mode, "single") && q != RMP_THREAD_SINGLE)
        FAIL("rmp_init gives level %d, not SINGLE", q);
    if (strcmp(mode, "single") && (provided != want || q != want)) {
        FAIL("%s asked: provided %d, query %d", mode, provided, q);
    }
    if (want <= RMP_THREAD_FUNNELED) {
        probe_t p = run_worker(0, 0);
        if (p.rc_send != RMP_ERR_STATE || p.rc_rank != RMP_ERR_STATE ||
            p.rc_wait != RMP_ERR_STATE)
            FAIL("%s: another thread's rmp_send gave %d, rmp_comm_rank %d, rmp_wait %d (want "
                 "RMP_ERR_STATE)", mode, p.rc_send, p.rc_rank, p.rc_wait);
        if (p.rc_main != RMP_SUCCESS || p.main_flag != 0)
            FAIL("rmp_is_thread_main in another thread: rc %d flag %d", p.rc_main, p.main_flag);
        CK(exchange(100, 1)); /* the refused send had no effect on the main thread's */
    } else {
        probe_t a = run_worker(1, 2);
        CK(a.rc_ex);
        probe_t b = run_worker(1, 3);
        CK(b.rc_ex);
        if (a.main_flag != 0 || b.main_flag != 0)
            FAIL("rmp_is_thread_main is not 0 in the worker threads");
        CK(exchange(100, 4));
    }
    if (want == RMP_THREAD_MULTIPLE) {
        /* A revoke clears the fast test of every thread: the worker's send is refused.
         * (Not at serialized: there the check after rmp_finalize below must find the
         * flag that rmp_finalize, not a revoke, cleared.) */
        rmp_comm_t d = NULL;
        CK(rmp_comm_dup(rmp_comm_world(), &d));
        CK(rmp_barrier(rmp_comm_world()));
        if (rank == 0)
            CK(rmp_comm_revoke(d));
        CK(rmp_barrier(rmp_comm_world())); /* rank 1 has the revoke: it came first */
        probe_t r = run_worker_on(0, 0, d);
        if (r.rc_send != RMP_ERR_REVOKED || r.rc_rank != rank)
            FAIL("%s: after a revoke a worker's send gave %d (want RMP_ERR_REVOKED), "
                 "rmp_comm_rank(world) %d (want %d)", mode, r.rc_send, r.rc_rank, rank);
        probe_t c = run_worker(1, 5); /* world is not revoked: still works */
        CK(c.rc_ex);
        CK(rmp_comm_free(&d));
    }
    CK(rmp_barrier(rmp_comm_world()));
    CK(rmp_finalize());
    if (want >= RMP_THREAD_SERIALIZED) {
        probe_t f = run_worker(0, 0);
        if (f.rc_send != RMP_ERR_STATE || f.rc_rank != RMP_ERR_STATE ||
            f.rc_wait != RMP_ERR_STATE)
            FAIL("%s: after rmp_finalize a worker's rmp_send gave %d, rmp_comm_rank %d, "
                 "rmp_wait %d (want RMP_ERR_STATE)", mode, f.rc_send, f.rc_rank, f.rc_wait);
    }
    if (rank == 0)
        printf("thread_level %s: ok\n", mode);
    return 0;
}
