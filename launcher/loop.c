/* SPDX-License-Identifier: BSD-3-Clause */
/* The event loop: one poll over the ranks' output pipes and a self-pipe
 * that signal handlers and the PMIx server thread write to. Each wake
 * forwards output, reaps exited ranks and lets the policy act. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rrun.h"

#define LOOP_DRAIN 1.0 /* seconds a grandchild holding a pipe gets once every rank is gone */
#define LOOP_READS 16  /* reads per stream per wake, so one chatty rank cannot starve others */

/* Written by the signal handler: lock-free atomics are async-signal-safe (C11 7.14.1.1). */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int must be lock-free");
static atomic_int loop_sig;
static int loop_pipe[2] = {-1, -1};
static const int loop_signals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1};

static void loop_on_signal(int sig)
{
    int saved = errno;
    if (sig != SIGCHLD)
        atomic_store(&loop_sig, sig);
    char b = (char)sig;
    ssize_t w = write(loop_pipe[1], &b, 1);
    (void)w;
    errno = saved;
}

int rrun_loop_init(void)
{
    if (pipe(loop_pipe) != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(loop_pipe[i], F_SETFL, fcntl(loop_pipe[i], F_GETFL) | O_NONBLOCK);
        fcntl(loop_pipe[i], F_SETFD, FD_CLOEXEC);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = loop_on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(loop_signals) / sizeof(loop_signals[0]); i++)
        sigaction(loop_signals[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return loop_pipe[1];
}

void rrun_loop_child_signals(void)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof(loop_signals) / sizeof(loop_signals[0]); i++)
        sigaction(loop_signals[i], &dfl, NULL);
    sigaction(SIGPIPE, &dfl, NULL);
}

void rrun_loop_fini(void)
{
    for (int i = 0; i < 2; i++) {
        if (loop_pipe[i] >= 0)
            close(loop_pipe[i]);
        loop_pipe[i] = -1;
    }
}

/* The poll set: the self-pipe, then every open output pipe; key[i] is
 * rank * 2 + stream - 1. Returns the number of entries. */
static int loop_fill(const rrun_job_t *job, struct pollfd *pfd, int *key)
{
    int n = 0;
    pfd[n].fd = loop_pipe[0];
    pfd[n].events = POLLIN;
    key[n++] = -1;
    for (int r = 0; r < job->launched; r++) {
        const int fds[2] = {job->ranks[r].out_fd, job->ranks[r].err_fd};
        for (int s = 0; s < 2; s++) {
            if (fds[s] < 0)
                continue;
            pfd[n].fd = fds[s];
            pfd[n].events = POLLIN;
            key[n++] = r * 2 + s;
        }
    }
    return n;
}

/* Milliseconds until the next timer (-1: none), or 0 with *done set when
 * every rank is gone and the drain period is over. */
static int loop_timeout(rrun_job_t *job, bool *done)
{
    double t = rrun_now();
    double wake = rrun_policy_next_wake(job);
    *done = false;
    if (job->alive == 0) {
        if (job->term_at == 0)
            job->term_at = t;
        if (t >= job->term_at + LOOP_DRAIN) {
            *done = true;
            return 0;
        }
        if (wake == 0 || job->term_at + LOOP_DRAIN < wake)
            wake = job->term_at + LOOP_DRAIN;
    }
    if (wake == 0)
        return -1;
    return wake < t ? 0 : (int)((wake - t) * 1e3) + 1;
}

static void loop_forward(rrun_job_t *job, const struct pollfd *pfd, const int *key, int n)
{
    for (int i = 1; i < n; i++) {
        if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        int r = key[i] / 2, stream = key[i] % 2 + 1;
        int *fdp = stream == 1 ? &job->ranks[r].out_fd : &job->ranks[r].err_fd;
        int got = 1;
        for (int k = 0; k < LOOP_READS && got == 1; k++)
            got = rrun_io_read(r, stream, *fdp);
        if (got == 0) {
            rrun_io_flush(r, stream);
            close(*fdp);
            *fdp = -1;
        }
    }
}

/* Reaps every exited rank, then hands them to the policy failures first: a
 * slow wake can find both a killed rank and a survivor that left after
 * seeing the death, and waitpid returns them in fork order, not death order.
 * The death is the job's cause, not the survivor's exit. */
static void loop_reap(rrun_job_t *job, int *rk, int *st)
{
    int n = 0;
    for (;;) {
        int s;
        pid_t p = waitpid(-1, &s, WNOHANG);
        if (p <= 0)
            break;
        for (int r = 0; r < job->launched; r++)
            if (job->ranks[r].pid == p && n < job->launched) {
                rk[n] = r;
                st[n++] = s;
            }
    }
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            bool failed = WIFSIGNALED(st[i]) || WEXITSTATUS(st[i]) != 0;
            if (failed == (pass == 0))
                rrun_policy_rank_exited(job, rk[i], st[i]);
        }
}

int rrun_loop_run(rrun_job_t *job)
{
    size_t cap = (size_t)job->cap * 2 + 1; /* spawned processes join the ranks */
    struct pollfd *pfd = calloc(cap, sizeof(*pfd));
    int *key = calloc(cap, sizeof(*key));
    int *reaped = calloc(cap, sizeof(*reaped));
    int rc = -1;
    if (!pfd || !key || !reaped)
        goto out;
    for (;;) {
        int n = loop_fill(job, pfd, key);
        if (job->alive == 0 && n == 1)
            break;
        bool done;
        int ms = loop_timeout(job, &done);
        if (done)
            break;
        int got = poll(pfd, (nfds_t)n, ms);
        if (got < 0 && errno != EINTR)
            break;
        if (pfd[0].revents & POLLIN) {
            char buf[64];
            while (read(loop_pipe[0], buf, sizeof(buf)) > 0)
                ;
        }
        /* Exits and aborts before output: the first failure is named before the
         * survivors' reactions to it are forwarded. */
        rrun_spawn_run(job); /* a PMIx_Spawn the server thread queued */
        loop_reap(job, reaped, reaped + job->cap);
        rrun_policy_tick(job, atomic_exchange(&loop_sig, 0));
        if (got > 0)
            loop_forward(job, pfd, key, n);
    }
    rc = 0;
out:
    free(pfd);
    free(key);
    free(reaped);
    return rc;
}
