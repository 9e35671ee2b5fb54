/* SPDX-License-Identifier: BSD-3-Clause */
/* The failure policy: what ends the job and how. The first cause (a failed,
 * aborted or unfinalized rank, a launch failure, a signal, the time limit)
 * sets the exit status; the ranks then get a notice period to see the
 * failure, SIGTERM, and SIGKILL after a grace period. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "rrun.h"

#define POLICY_GRACE 1.0  /* seconds between SIGTERM and SIGKILL */
#define POLICY_NOTICE 0.25 /* seconds the survivors get to see a failure before SIGTERM */
/* Seconds an unfinalized exit waits before it is the job's cause: survivors of a killed
 * rank may see its death (its connections torn down as it exits) and leave before the
 * kernel reports the death to rrun; the death, if one comes, is the cause (CI's
 * mt-kill-np3 in the verbs guest). */
#define POLICY_UNFIN_GRACE 1.0

void rrun_policy_kill_all(rrun_job_t *job, int sig)
{
    for (int r = 0; r < job->launched; r++)
        if (job->ranks[r].pid > 0 && !job->ranks[r].exited)
            kill(-job->ranks[r].pid, sig);
}

static void policy_terminate(rrun_job_t *job, double t)
{
    rrun_policy_kill_all(job, SIGTERM);
    job->term_at = t;
    job->kill_at = t + POLICY_GRACE;
}

void rrun_policy_launch_failed(rrun_job_t *job)
{
    rrun_policy_kill_all(job, SIGKILL);
    job->term_at = rrun_now();
    job->kill_at = job->term_at;
    job->end = RRUN_END_LAUNCH;
    if (job->exit_code == 0)
        job->exit_code = 1;
}

static void policy_describe(int st, char *buf, size_t len)
{
    if (WIFSIGNALED(st))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
}

/* Does the program use rmp through MPI? Then messages name MPI_Finalize and MPI_Abort.
 * A live rank's mappings tell (also for a Python rank that loaded mpi4py); else the
 * program file. Asked only once a rank has failed. */
static bool policy_is_mpi(rrun_job_t *job)
{
    static int known = -1;
    for (int r = 0; known < 0 && r < job->launched; r++) {
        char path[64], line[512];
        snprintf(path, sizeof(path), "/proc/%d/maps", (int)job->ranks[r].pid);
        FILE *f = job->ranks[r].exited ? NULL : fopen(path, "r");
        while (f && known < 0 && fgets(line, sizeof(line), f))
            if (strstr(line, "libmpi_abi"))
                known = 1;
        if (f)
            fclose(f);
    }
    if (known < 0) {
        FILE *f = fopen(job->o->program, "rb");
        static const char want[] = "libmpi_abi";
        size_t m = 0;
        int c;
        known = 0;
        while (f && (c = getc(f)) != EOF && !known) {
            m = c == want[m] ? m + 1 : c == want[0];
            known = m == sizeof(want) - 1;
        }
        if (f)
            fclose(f);
    }
    return known == 1;
}

static const char *policy_finalize_name(rrun_job_t *job)
{
    return policy_is_mpi(job) ? "MPI_Finalize" : "rmp_finalize";
}

static const char *policy_abort_name(rrun_job_t *job)
{
    return policy_is_mpi(job) ? "MPI_Abort" : "rmp_abort";
}

static void policy_unfinalized_due(rrun_job_t *job, bool now);
static void policy_end_rank(rrun_job_t *job, int r, int st, bool unfinalized);

/* --enable-recovery: a rank died or failed; it is named and its status kept for the job's,
 * the survivors are told (their calls involving it fail) and go on. An abort, an
 * unfinalized exit, a signal to rrun and the time limit still end the job. */
static void policy_survive(rrun_job_t *job, int r, int st)
{
    char how[128];
    policy_describe(st, how, sizeof(how));
    rrun_log("rank %d (pid %d on %s) %s; the others go on (--enable-recovery)", r,
             (int)job->ranks[r].pid, job->host, how);
    if (job->exit_code == 0)
        job->exit_code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
    if (job->exit_code == 0)
        job->exit_code = 1;
    if (job->alive > 0)
        rrun_server_notify_failure(r);
}

void rrun_policy_rank_exited(rrun_job_t *job, int r, int st)
{
    rrun_rank_t *rk = &job->ranks[r];
    rk->exited = true;
    rk->status = st;
    job->alive--;
    /* An rmp rank that leaves without rmp_finalize strands the others. */
    bool unfinalized = !WIFSIGNALED(st) && WEXITSTATUS(st) == 0 && job->o->np > 1 &&
                       rrun_server_unfinalized(r);
    bool failed = WIFSIGNALED(st) || WEXITSTATUS(st) != 0 || unfinalized;
    if (!failed || job->end != RRUN_END_NONE || job->timed_out) {
        policy_unfinalized_due(job, job->alive == 0);
        return;
    }
    if (unfinalized && (job->alive > 0 || job->unfin_at > 0)) {
        if (job->unfin_at == 0) { /* the first such exit is the one named */
            job->unfin_at = rrun_now() + POLICY_UNFIN_GRACE;
            job->unfin_rank = r;
            /* Said now, before the survivors' reactions to it reach the output. */
            rrun_log("rank %d (pid %d on %s) exited with status 0 without calling %s", r,
                     (int)job->ranks[r].pid, job->host, policy_finalize_name(job));
        }
        policy_unfinalized_due(job, job->alive == 0);
        return;
    }
    int ar, as;
    if (job->o->recovery && !unfinalized && !(rrun_server_aborted(&ar, &as) && ar == r)) {
        policy_survive(job, r, st);
        return;
    }
    policy_end_rank(job, r, st, unfinalized);
}

/* The pending unfinalized exit becomes the job's cause when its grace has passed (or
 * nobody is left to die), unless something else ended the job first. */
static void policy_unfinalized_due(rrun_job_t *job, bool now)
{
    if (job->unfin_at == 0 || (!now && rrun_now() < job->unfin_at))
        return;
    job->unfin_at = 0;
    if (job->end == RRUN_END_NONE && !job->timed_out)
        policy_end_rank(job, job->unfin_rank, job->ranks[job->unfin_rank].status, true);
}

/* A rank's failure after the pending unfinalized exit (other than a death by a signal,
 * which may be what made that rank leave): the early exit is the cause, this one is
 * its consequence. True when it ended the job that way. */
static bool policy_unfinalized_first(rrun_job_t *job, int r, const char *what)
{
    if (job->unfin_at == 0 || r == job->unfin_rank)
        return false;
    int u = job->unfin_rank;
    job->unfin_at = 0;
    policy_end_rank(job, u, job->ranks[u].status, true);
    rrun_log("rank %d %s (a consequence of rank %d's exit)", r, what, u);
    return true;
}

static void policy_end_rank(rrun_job_t *job, int r, int st, bool unfinalized)
{
    rrun_rank_t *rk = &job->ranks[r];
    if (!unfinalized && !WIFSIGNALED(st)) {
        char what[160];
        int ar, as;
        if (rrun_server_aborted(&ar, &as) && ar == r)
            snprintf(what, sizeof(what), "called %s(%d)", policy_abort_name(job), as);
        else
            snprintf(what, sizeof(what), "exited with status %d", WEXITSTATUS(st));
        if (policy_unfinalized_first(job, r, what))
            return;
    }
    job->end = RRUN_END_RANK;
    job->failed_rank = r;
    int pid = (int)rk->pid, ar, as;
    if (unfinalized) { /* announced when it was reaped */
        rrun_log("rank %d (pid %d on %s) left without calling %s: ending the job", r, pid,
                 job->host, policy_finalize_name(job));
        job->exit_code = 1;
    } else if (rrun_server_aborted(&ar, &as) && ar == r) {
        rrun_log("rank %d (pid %d on %s) called %s(%d); ending the job", r, pid, job->host,
                 policy_abort_name(job), as);
        job->exit_code = as;
    } else {
        char how[128];
        policy_describe(st, how, sizeof(how));
        rrun_log("rank %d (pid %d on %s) %s; ending the job", r, pid, job->host, how);
        job->exit_code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
    }
    if (job->exit_code == 0)
        job->exit_code = 1;
    if (job->alive > 0) {
        rrun_server_notify_failure(r);
        job->notice_at = rrun_now() + POLICY_NOTICE;
    }
}

/* An abort seen before its rank exited. */
static void policy_abort(rrun_job_t *job)
{
    int r, status;
    if (job->end != RRUN_END_NONE || !rrun_server_aborted(&r, &status))
        return;
    char what[96];
    snprintf(what, sizeof(what), "called %s(%d)", policy_abort_name(job), status);
    if (policy_unfinalized_first(job, r, what)) {
        policy_terminate(job, rrun_now());
        return;
    }
    job->end = RRUN_END_RANK;
    job->failed_rank = r;
    job->exit_code = status ? status : 1;
    rrun_log("rank %d (on %s) %s; ending the job", r, job->host, what);
    policy_terminate(job, rrun_now());
}

static void policy_signal(rrun_job_t *job, int sig)
{
    if (job->end != RRUN_END_NONE)
        return; /* the job is ending already */
    if (sig == SIGUSR1) {
        rrun_policy_kill_all(job, SIGUSR1); /* passed on: the ranks report where they wait */
        return;
    }
    rrun_log("received signal %d (%s); ending the job", sig, strsignal(sig));
    job->end = RRUN_END_SIGNAL;
    job->exit_code = 128 + sig;
    policy_terminate(job, rrun_now());
}

void rrun_policy_tick(rrun_job_t *job, int sig)
{
    policy_abort(job);
    policy_unfinalized_due(job, false);
    if (sig)
        policy_signal(job, sig);
    double t = rrun_now();
    if (job->deadline > 0 && !job->timed_out && t >= job->deadline && job->alive > 0) {
        job->timed_out = true;
        rrun_log("job timed out after %g s; where each rank is blocked:", job->o->timeout);
        job->exit_code = 124;
        if (job->end == RRUN_END_NONE)
            job->end = RRUN_END_TIMEOUT;
        /* Ranks report where they wait (SIGUSR1), then go. */
        rrun_policy_kill_all(job, SIGUSR1);
        job->notice_at = t + POLICY_NOTICE;
    }
    if (job->notice_at > 0 && t >= job->notice_at) {
        job->notice_at = 0;
        if (job->alive > 0)
            policy_terminate(job, t);
    }
    if (job->kill_at > 0 && t >= job->kill_at && job->alive > 0) {
        rrun_policy_kill_all(job, SIGKILL);
        job->kill_at = 0;
    }
}

static void policy_earlier(double *wake, double at)
{
    if (at > 0 && (*wake == 0 || at < *wake))
        *wake = at;
}

double rrun_policy_next_wake(const rrun_job_t *job)
{
    double wake = 0;
    if (!job->timed_out)
        policy_earlier(&wake, job->deadline);
    policy_earlier(&wake, job->kill_at);
    policy_earlier(&wake, job->notice_at);
    policy_earlier(&wake, job->unfin_at);
    return wake;
}
