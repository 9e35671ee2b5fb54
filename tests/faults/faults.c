/* SPDX-License-Identifier: BSD-3-Clause */
/* Failure, timeout and hang scenarios, driven by faults_test.sh.
 * usage: faults MODE [VICTIM]
 *
 * Kill modes: rank VICTIM dies by SIGKILL at one point (printing "rank V: dying
 * at T" first; or a peer prints "killing rank V at T" and kills it). Every
 * survivor prints "rank R: MODE WHAT: <rmp_strerror>" for the operation it had
 * pending at that moment and for later operations towards the victim, then
 * "rank R: done". Survivors block SIGTERM until they have reported, so rrun's
 * SIGTERM cannot cut a report short on a loaded machine (SIGKILL still ends a
 * survivor that hangs, and the missing lines fail the test).
 *   eager            the victim receives a stream of eager messages, dies mid-stream
 *   rndv-killed      the receiver matched the victim's rendezvous (probe), then kills it
 *   rndv-dies        the victim matched a rendezvous (probe), then dies before pulling
 *   rndv-killed-seg, rndv-dies-seg   the same with the survivor's data in a layout of
 *                    64 KiB blocks with segments (straight copies on shm, core/layout.h)
 *   coll-NAME        the victim dies inside a collective (a timer fires while it waits
 *                    for the late rank VICTIM+1, which enters after the death); NAME:
 *                    barrier bcast reduce allreduce allgather reduce_scatter alltoall
 *                    gather scatter iallreduce
 *   flush-direct     survivors put+flush to the victim's mapped window while it dies
 *   flush-emul       the same on a window without direct access (emulated through
 *                    the target's progress, which the victim never makes)
 *   init, finalize   the victim dies inside rmp_init/rmp_finalize (RMPI_FAULT=POINT:V,
 *                    set by the driver)
 * Other modes:
 *   timeouts         (RMP_TIMEOUT set) rank 0 runs each blocking call kind against
 *                    rank 1, which never answers; prints the status and the time taken
 *   block-recv       rank 0 waits forever in a receive from rank 1 (RMP_TIMEOUT unset)
 *   hang-coll        every rank but VICTIM enters an allreduce; VICTIM never does
 *   hang-p2p         rank 0 receives from 1, rank 1 probes rank 2, rank 2 sends a
 *                    rendezvous message to 0 that is never received
 *   idle             every rank prints "ready" and waits in a receive forever
 *   node-wait        (across hosts) every rank receives from the next one; the driver cuts
 *                    a host off after every "ready"; a rank that returns prints
 *                    "rank R: node-wait recv: <rmp_strerror> at <wall clock>"
 * Every waiting mode prints "rank R: waiting" once it is about to block. */
#include <errno.h>
#include <rmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Far larger than what shm can hold in flight (its pool: 64 buffers of 64 KiB, 4 MiB):
 * without CMA a send of BIG still blocks mid-message once its receiver stops polling. */
#define BIG (16u << 20)
#define T_PENDING 77
#define T_STREAM 1
#define T_RNDV 2

static rmp_comm_t W;
static int me, np, victim;
static const char *mode;
static long pids[64];

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void say(const char *what, int rc)
{
    printf("rank %d: %s %s: %s\n", me, mode, what, rmp_strerror(rc));
    fflush(stdout);
}

/* Also from the SIGALRM handler: write(2) only after formatting. */
static void die_now(void)
{
    char b[96];
    int n = snprintf(b, sizeof(b), "rank %d: dying at %.6f\n", me, wall());
    ssize_t w = write(STDOUT_FILENO, b, (size_t)n);
    (void)w;
    raise(SIGKILL);
}

static void on_alarm(int sig)
{
    (void)sig;
    die_now();
}

static void die_in_ms(int ms)
{
    signal(SIGALRM, on_alarm);
    struct itimerval it = {{0, 0}, {ms / 1000, (ms % 1000) * 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
}

/* The victim is a child of rrun: gone (ESRCH) once rrun reaped it. */
static void wait_gone(long pid)
{
    for (int i = 0; i < 10000 && !(kill((pid_t)pid, 0) != 0 && errno == ESRCH); i++)
        usleep(1000);
}

static void pause_forever(void)
{
    for (;;)
        pause();
}

static void allow_sigterm(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
}

/* The survivor's common part: the receive it had pending from the victim,
 * then later operations towards it. */
static void survivor_finish(rmp_request_t *pending)
{
    char c = 0;
    if (*pending != RMP_REQUEST_NULL)
        say("pending-recv", rmp_wait(pending, NULL));
    say("later-send", rmp_send(&c, 1, victim, 5, W));
    say("later-recv", rmp_recv(&c, 1, victim, 5, W, NULL));
    say("later-barrier", rmp_barrier(W));
    printf("rank %d: done\n", me);
    fflush(stdout);
    allow_sigterm();
    pause_forever();
}

static int coll_run(const char *name, int late)
{
    static double a[4096], b[4096];
    size_t n = 64;
    if (strcmp(name, "barrier") == 0)
        return rmp_barrier(W);
    if (strcmp(name, "bcast") == 0)
        return rmp_bcast(a, n, RMP_DOUBLE, late, W);
    if (strcmp(name, "reduce") == 0)
        return rmp_reduce(a, b, n, RMP_DOUBLE, RMP_SUM, victim, W);
    if (strcmp(name, "allreduce") == 0)
        return rmp_allreduce(a, b, n, RMP_DOUBLE, RMP_SUM, W);
    if (strcmp(name, "allgather") == 0)
        return rmp_allgather(a, b, n, RMP_DOUBLE, W);
    if (strcmp(name, "reduce_scatter") == 0)
        return rmp_reduce_scatter(a, b, n, RMP_DOUBLE, RMP_SUM, W);
    if (strcmp(name, "alltoall") == 0)
        return rmp_alltoall(a, b, n, RMP_DOUBLE, W);
    if (strcmp(name, "gather") == 0)
        return rmp_gather(a, b, n, RMP_DOUBLE, victim, W);
    if (strcmp(name, "scatter") == 0)
        return rmp_scatter(a, b, n, RMP_DOUBLE, late, W);
    if (strcmp(name, "iallreduce") == 0) {
        rmp_request_t r;
        int rc = rmp_iallreduce(a, b, n, RMP_DOUBLE, RMP_SUM, W, &r);
        return rc != RMP_SUCCESS ? rc : rmp_wait(&r, NULL);
    }
    fprintf(stderr, "faults: unknown collective %s\n", name);
    exit(2);
}

static void mode_eager(rmp_request_t *pending)
{
    char buf[64] = {0};
    if (me == victim) {
        for (int i = 0; i < 2000 * (np - 1); i++)
            rmp_recv(buf, sizeof(buf), RMP_ANY_SOURCE, T_STREAM, W, NULL);
        die_now();
    }
    int rc = RMP_SUCCESS;
    for (long i = 0; i < 100000000L && rc == RMP_SUCCESS; i++)
        rc = rmp_send(buf, sizeof(buf), victim, T_STREAM, W);
    say("stream", rc);
    survivor_finish(pending);
}

/* The survivor's side of the -seg modes: BIG bytes in 64 KiB blocks every 128 KiB. */
#define SEG_BLK ((size_t)64 << 10)
static char seg_mem[2 * BIG];

static void *seg_at(size_t off)
{
    return seg_mem + off / SEG_BLK * 2 * SEG_BLK + off % SEG_BLK;
}

static void seg_move(size_t off, char *pk, size_t len, int unpack)
{
    while (len > 0) {
        size_t n = SEG_BLK - off % SEG_BLK < len ? SEG_BLK - off % SEG_BLK : len;
        if (unpack)
            memcpy(seg_at(off), pk, n);
        else
            memcpy(pk, seg_at(off), n);
        off += n, pk += n, len -= n;
    }
}

static void seg_pack(void *ctx, size_t off, void *dst, size_t len)
{
    (void)ctx;
    seg_move(off, dst, len, 0);
}

static void seg_unpack(void *ctx, size_t off, const void *src, size_t len)
{
    (void)ctx;
    seg_move(off, (char *)(uintptr_t)src, len, 1);
}

static size_t seg_segments(void *ctx, size_t off, size_t len, struct iovec *iov, size_t max,
                           size_t *n)
{
    (void)ctx;
    size_t k = 0, got = 0;
    for (; got < len && k < max; k++) {
        size_t o = off + got, l = SEG_BLK - o % SEG_BLK;
        iov[k].iov_base = seg_at(o);
        iov[k].iov_len = l < len - got ? l : len - got;
        got += iov[k].iov_len;
    }
    *n = k;
    return got;
}

static const rmp_layout_t seg_layout = {.pack = seg_pack, .unpack = seg_unpack,
                                        .segments = seg_segments};

static int seg_recv(int src, int tag)
{
    rmp_request_t r;
    int rc = rmp_irecv_layout(&seg_layout, BIG, src, tag, W, &r);
    return rc == RMP_SUCCESS ? rmp_wait(&r, NULL) : rc;
}

static int seg_send(int dest, int tag)
{
    rmp_request_t r;
    int rc = rmp_isend_layout(&seg_layout, BIG, dest, tag, W, &r);
    return rc == RMP_SUCCESS ? rmp_wait(&r, NULL) : rc;
}

static void mode_rndv(rmp_request_t *pending, int killed, int seg)
{
    static char big[BIG];
    int partner = (victim + 1) % np;
    rmp_status_t st;
    if (killed) {
        /* The victim sends; its receiver kills it once the RTS is here. */
        if (me == victim) {
            int rc = rmp_send(big, BIG, partner, T_RNDV, W);
            say("victim-send", rc);
            pause_forever();
        }
        if (me == partner) {
            say("probe", rmp_probe(victim, T_RNDV, W, &st));
            printf("rank %d: killing rank %d at %.6f\n", me, victim, wall());
            fflush(stdout);
            kill((pid_t)pids[victim], SIGKILL);
            wait_gone(pids[victim]);
            say("rndv-recv", seg ? seg_recv(victim, T_RNDV) : rmp_recv(big, BIG, victim, T_RNDV,
                                                                       W, NULL));
        }
    } else {
        /* The partner sends; the victim matches (probe) and dies before the data moved. */
        if (me == victim) {
            rmp_probe(partner, T_RNDV, W, &st);
            die_now();
        }
        if (me == partner)
            say("rndv-send",
                seg ? seg_send(victim, T_RNDV) : rmp_send(big, BIG, victim, T_RNDV, W));
    }
    survivor_finish(pending);
}

static void mode_coll(rmp_request_t *pending, const char *name)
{
    int late = (victim + 1) % np;
    int rc = coll_run(name, late); /* warm-up: every rank, connections made */
    if (rc == RMP_SUCCESS)
        rc = rmp_barrier(W);
    if (rc != RMP_SUCCESS)
        say("warm-up", rc);
    if (me == victim) {
        die_in_ms(200);
        say("victim-returned", coll_run(name, late));
        pause_forever();
    }
    if (me == late) {
        /* Enters after the death, once it knows of it: fails at entry. */
        say("pending-recv", rmp_wait(pending, NULL));
        say("late", coll_run(name, late));
    } else {
        say("inside", coll_run(name, late));
    }
    survivor_finish(pending);
}

static void mode_flush(rmp_request_t *pending, int direct)
{
    static char mem[4096];
    void *base;
    rmp_win_t win;
    int rc = direct ? rmp_win_allocate(4096, W, &base, &win) : rmp_win_create(mem, 4096, W, &win);
    if (rc == RMP_SUCCESS)
        rc = rmp_barrier(W);
    if (rc != RMP_SUCCESS) {
        say("window", rc);
        exit(3);
    }
    if (me == victim) {
        die_in_ms(200);
        pause_forever(); /* no progress: emulated operations on it stay unanswered */
    }
    uint64_t v = (uint64_t)me;
    for (long i = 0; i < 1000000000L && rc == RMP_SUCCESS; i++) {
        rc = rmp_put_nbi(&v, sizeof(v), victim, 8 * (size_t)me, win);
        if (rc == RMP_SUCCESS)
            rc = rmp_win_flush(victim, win);
    }
    say("flush", rc);
    say("later-put", rmp_put(&v, sizeof(v), victim, 0, win));
    say("later-flush", rmp_win_flush(victim, win));
    /* What a dead member leaves of windows (docs/verbs.md, the time-limit kill): the free
     * fails but releases the window, and a window created afterwards fails with its handle
     * set to RMP_WIN_NULL (not left at the old window's value, which every later call would
     * report as a freed window). */
    rmp_win_t old = win;
    say("later-free", rmp_win_free(&win));
    rmp_win_t again = old;
    say("later-create", rmp_win_create(mem, 4096, W, &again));
    printf("rank %d: %s handle after the failed create: %s\n", me, mode,
           again == RMP_WIN_NULL ? "null" : "stale");
    uint64_t prev;
    rc = rmp_atomic_fetch_add(1, &prev, victim, 0, again);
    printf("rank %d: %s atomic on it: %s\n", me, mode, rmp_strerror(rc));
    survivor_finish(pending);
}

/* Rank 1 stays out of rmp until rank 0 has created the file FAULTS_DONE. */
static void mode_timeouts(void)
{
    static char big[BIG], mem[4096];
    const char *done = getenv("FAULTS_DONE");
    rmp_win_t win;
    if (np != 2 || !done) {
        fprintf(stderr, "faults timeouts: needs 2 ranks and FAULTS_DONE\n");
        exit(2);
    }
    int rc = rmp_win_create(mem, sizeof(mem), W, &win);
    if (rc == RMP_SUCCESS)
        rc = rmp_barrier(W);
    if (rc != RMP_SUCCESS) {
        say("setup", rc);
        exit(3);
    }
    if (me == 1) {
        printf("rank 1: waiting\n");
        fflush(stdout);
        while (access(done, F_OK) != 0)
            usleep(10000);
    } else {
        char c;
        double x = 0, y;
        uint64_t old;
        rmp_request_t r;
        rmp_status_t st;
        for (int k = 0; k < 9; k++) {
            double t0 = rmp_wtime();
            const char *what = "";
            switch (k) {
            case 0: what = "recv"; rc = rmp_recv(&c, 1, 1, 3, W, NULL); break;
            case 1: what = "send-rndv"; rc = rmp_send(big, BIG, 1, 3, W); break;
            case 2:
                what = "wait";
                rc = rmp_irecv(&c, 1, 1, 4, W, &r);
                if (rc == RMP_SUCCESS)
                    rc = rmp_wait(&r, NULL);
                break;
            case 3: what = "probe"; rc = rmp_probe(1, 5, W, &st); break;
            case 4: what = "barrier"; rc = rmp_barrier(W); break;
            case 5: what = "allreduce"; rc = rmp_allreduce(&x, &y, 1, RMP_DOUBLE, RMP_SUM, W); break;
            case 6:
                what = "put-flush";
                rc = rmp_put_nbi(&x, sizeof(x), 1, 0, win);
                if (rc == RMP_SUCCESS)
                    rc = rmp_win_flush(1, win);
                break;
            case 7: what = "atomic"; rc = rmp_atomic_fetch_add(1, &old, 1, 8, win); break;
            default: what = "win-free"; rc = rmp_win_free(&win); break;
            }
            printf("rank 0: timeout %s: %s after %.2f s\n", what, rmp_strerror(rc),
                   rmp_wtime() - t0);
            fflush(stdout);
        }
        FILE *f = fopen(done, "w");
        if (f)
            fclose(f);
    }
    printf("rank %d: finalize: %s\n", me, rmp_strerror(rmp_finalize()));
    exit(0);
}

static void waiting(void)
{
    printf("rank %d: waiting\n", me);
    fflush(stdout);
}

static void mode_hang(int coll)
{
    static char big[BIG];
    double x = 1, y;
    char c;
    rmp_status_t st;
    rmp_barrier(W);
    waiting();
    if (coll) {
        if (me == victim)
            pause_forever();
        say("allreduce", rmp_allreduce(&x, &y, 1, RMP_DOUBLE, RMP_SUM, W));
    } else if (me == 0) {
        say("recv", rmp_recv(&c, 1, 1, 3, W, NULL));
    } else if (me == 1) {
        say("probe", rmp_probe(2, 4, W, &st));
    } else if (me == 2) {
        say("send", rmp_send(big, BIG, 0, 5, W));
    }
    pause_forever();
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    mode = argv[1];
    victim = argc > 2 ? atoi(argv[2]) : 0;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGTERM);
    sigprocmask(SIG_BLOCK, &s, NULL);
    int rc = rmp_init(&argc, &argv);
    W = rmp_comm_world();
    me = rc == RMP_SUCCESS ? rmp_comm_rank(W) : -1;
    if (rc != RMP_SUCCESS) {
        /* Only a survivor of a death inside rmp_init gets here. */
        const char *r = getenv("PMIX_RANK");
        me = r ? atoi(r) : -1;
        say("init", rc);
        printf("rank %d: done\n", me);
        fflush(stdout);
        return 10;
    }
    np = rmp_comm_size(W);
    if (np < 2 || np > 64 || victim < 0 || victim >= np) {
        fprintf(stderr, "faults: needs 2..64 ranks and a victim among them\n");
        return 2;
    }
    if (strcmp(mode, "timeouts") == 0)
        mode_timeouts();
    if (strcmp(mode, "block-recv") == 0) {
        char c;
        waiting();
        if (me == 0)
            say("recv", rmp_recv(&c, 1, 1, 3, W, NULL));
        pause_forever();
    }
    if (strcmp(mode, "hang-coll") == 0 || strcmp(mode, "hang-p2p") == 0)
        mode_hang(strcmp(mode, "hang-coll") == 0);
    if (strcmp(mode, "init") == 0) {
        /* The victim died in rmp_init after the fence, and this rank's init
         * succeeded: what it does next towards the victim must fail. */
        rmp_request_t pending = RMP_REQUEST_NULL;
        if (me != victim && (rc = rmp_irecv(&victim, 0, victim, T_PENDING, W, &pending)) != 0)
            say("post-pending", rc);
        survivor_finish(&pending);
    }
    if (strcmp(mode, "finalize") == 0) {
        rc = rmp_barrier(W);
        if (rc != RMP_SUCCESS)
            say("barrier", rc);
        say("finalize", rmp_finalize());
        printf("rank %d: done\n", me);
        fflush(stdout);
        return 0;
    }
    long mine = (long)getpid();
    rc = rmp_allgather(&mine, pids, sizeof(long), RMP_UINT8, W);
    if (rc != RMP_SUCCESS) {
        say("pids", rc);
        return 3;
    }
    if (strcmp(mode, "idle") == 0) {
        char c;
        printf("rank %d: ready pid %ld\n", me, mine);
        fflush(stdout);
        allow_sigterm();
        rmp_recv(&c, 1, RMP_ANY_SOURCE, 9, W, NULL);
        pause_forever();
    }
    if (strcmp(mode, "node-wait") == 0) {
        char c;
        printf("rank %d: ready\n", me);
        fflush(stdout);
        allow_sigterm();
        rc = rmp_recv(&c, 1, (me + 1) % np, 9, W, NULL);
        printf("rank %d: node-wait recv: %s at %.3f\n", me, rmp_strerror(rc), wall());
        fflush(stdout);
        pause_forever();
    }
    /* Posted before anything fails: the receive a survivor has pending. The barrier
     * makes it so: without it a survivor descheduled here (3 ranks on 2 cores) could
     * learn of the victim's death first, and its post, not its wait, would fail. */
    char pc;
    rmp_request_t pending = RMP_REQUEST_NULL;
    if (me != victim && (rc = rmp_irecv(&pc, 1, victim, T_PENDING, W, &pending)) != RMP_SUCCESS)
        say("post-pending", rc);
    rc = rmp_barrier(W);
    if (rc != RMP_SUCCESS) {
        say("posted", rc);
        return 3;
    }
    if (strcmp(mode, "eager") == 0)
        mode_eager(&pending);
    else if (strcmp(mode, "rndv-killed") == 0 || strcmp(mode, "rndv-killed-seg") == 0)
        mode_rndv(&pending, 1, strcmp(mode, "rndv-killed-seg") == 0);
    else if (strcmp(mode, "rndv-dies") == 0 || strcmp(mode, "rndv-dies-seg") == 0)
        mode_rndv(&pending, 0, strcmp(mode, "rndv-dies-seg") == 0);
    else if (strncmp(mode, "coll-", 5) == 0)
        mode_coll(&pending, mode + 5);
    else if (strcmp(mode, "flush-direct") == 0)
        mode_flush(&pending, 1);
    else if (strcmp(mode, "flush-emul") == 0)
        mode_flush(&pending, 0);
    else {
        fprintf(stderr, "faults: unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}
