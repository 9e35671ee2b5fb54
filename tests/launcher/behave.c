/* SPDX-License-Identifier: BSD-3-Clause */
/* A rank that misbehaves on request, for the launcher tests.
 * usage: behave MODE [ARG] — modes:
 *   ok                   init, finalize, exit 0
 *   exit R CODE          rank R exits with CODE after init; the others wait in recv
 *   kill R               rank R SIGKILLs itself after init; the others wait in recv
 *   abort R CODE         rank R calls rmp_abort(CODE); the others wait in recv
 *   sleep                every rank sleeps forever after init
 *   spew LINES           every rank prints LINES numbered lines of ~100 bytes
 *   env NAME             prints NAME's value
 *   split                comm_split checks, prints "split ok" per rank
 *   hang-child           rank 0 forks a child that sleeps forever, then exits 4
 *   detect R             rank R SIGKILLs itself; the others report what their
 *                        pending receive from R returned
 *   coll-kill R          every rank loops on allreduce/bcast/barrier; rank R
 *                        SIGKILLs itself inside the loop; the others report the
 *                        first error their collectives returned
 *   reap-order           rank 0 stops rrun (SIGSTOP), SIGKILLs rank 1, waits until it is
 *                        a zombie, has a child resume rrun a little later and exits 0
 *                        without rmp_finalize: rrun then finds both exits in one wake,
 *                        the survivor's first in fork order (np 2)
 *   exit-then-kill       rank 0 exits 0 without rmp_finalize, rank 1 SIGKILLs itself
 *                        0.3 s later: the death, reaped later, is still the job's
 *                        cause (a survivor that saw a death before rrun did) */
#include <rmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void wait_forever(void)
{
    char c;
    rmp_recv(&c, 1, RMP_ANY_SOURCE, 999, rmp_comm_world(), NULL);
    for (;;)
        pause();
}

/* Whether process pid is a zombie (dead, not yet reaped). */
static int is_zombie(int pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] == 'Z';
}

static void reap_order(int me)
{
    rmp_comm_t w = rmp_comm_world();
    int pid = getpid(), peer = 0;
    if (me == 1) {
        rmp_send(&pid, sizeof(pid), 0, 7, w);
        wait_forever();
    }
    rmp_recv(&peer, sizeof(peer), 1, 7, w, NULL);
    pid_t rrun = getppid();
    kill(rrun, SIGSTOP);
    kill(peer, SIGKILL);
    for (int i = 0; i < 500 && !is_zombie(peer); i++)
        usleep(10000);
    if (fork() == 0) { /* outlives this rank: rrun is stopped, cannot reap it yet */
        usleep(300000);
        kill(rrun, SIGCONT);
        _exit(0);
    }
    exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "behave: rmp_init: %s\n", rmp_strerror(rc));
        return 10;
    }
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w), np = rmp_comm_size(w);
    const char *mode = argv[1];
    int r = argc > 2 ? atoi(argv[2]) : 0;
    int code = argc > 3 ? atoi(argv[3]) : 1;
    if (strcmp(mode, "ok") == 0) {
        printf("rank %d of %d ok\n", me, np);
    } else if (strcmp(mode, "exit") == 0) {
        if (me == r)
            exit(code);
        wait_forever();
    } else if (strcmp(mode, "kill") == 0) {
        if (me == r)
            raise(SIGKILL);
        wait_forever();
    } else if (strcmp(mode, "abort") == 0) {
        if (me == r)
            rmp_abort(w, code);
        wait_forever();
    } else if (strcmp(mode, "sleep") == 0) {
        for (;;)
            pause();
    } else if (strcmp(mode, "spew") == 0) {
        char line[128];
        memset(line, 'a' + me % 26, sizeof(line));
        for (int i = 0; i < r; i++) {
            int n = snprintf(line, 40, "rank %d line %d ", me, i);
            line[n] = 'x';
            line[99] = '\n';
            fwrite(line, 1, 100, stdout);
        }
        fflush(stdout);
    } else if (strcmp(mode, "env") == 0) {
        const char *v = getenv(argv[2]);
        printf("%s=%s\n", argv[2], v ? v : "(unset)");
    } else if (strcmp(mode, "detect") == 0) {
        /* Survivors outlive rrun's SIGTERM (SIGKILL comes a second later),
         * so a loaded machine cannot cut their report short. */
        signal(SIGTERM, SIG_IGN);
        if (me == r)
            raise(SIGKILL);
        char c;
        double t0 = rmp_wtime();
        int rc2 = rmp_recv(&c, 1, r, 5, w, NULL);
        printf("rank %d: receive from dead rank %d returned \"%s\" after %.2f s\n", me, r,
               rmp_strerror(rc2), rmp_wtime() - t0);
        fflush(stdout);
        rc2 = rmp_send(&c, 1, r, 5, w);
        printf("rank %d: later send returned \"%s\"\n", me, rmp_strerror(rc2));
        fflush(stdout);
        for (;;)
            pause();
    } else if (strcmp(mode, "coll-kill") == 0) {
        signal(SIGTERM, SIG_IGN); /* see detect */
        double v[64] = {0}, out[64];
        int rc2 = RMP_SUCCESS;
        for (int i = 0; rc2 == RMP_SUCCESS; i++) {
            if (me == r && i == 300)
                raise(SIGKILL);
            switch (i % 3) {
            case 0: rc2 = rmp_allreduce(v, out, 64, RMP_DOUBLE, RMP_SUM, w); break;
            case 1: rc2 = rmp_bcast(v, 64, RMP_DOUBLE, i % np, w); break;
            default: rc2 = rmp_barrier(w); break;
            }
        }
        printf("rank %d: collective returned \"%s\"\n", me, rmp_strerror(rc2));
        fflush(stdout);
        for (;;)
            pause();
    } else if (strcmp(mode, "exit-then-kill") == 0) {
        if (me == 0)
            exit(0);
        if (me == 1) {
            usleep(300000);
            raise(SIGKILL);
        }
        wait_forever();
    } else if (strcmp(mode, "reap-order") == 0) {
        reap_order(me);
    } else if (strcmp(mode, "hang-child") == 0) {
        if (me == 0) {
            if (fork() == 0) {
                for (;;)
                    pause();
            }
            exit(4);
        }
        wait_forever();
    }
    rc = rmp_finalize();
    return rc == RMP_SUCCESS ? 0 : 11;
}
