/* SPDX-License-Identifier: BSD-3-Clause */
/* The failure policy: what ends the job and how. The first cause (a failed,
 * aborted or unfinalized rank, a launch failure, a signal, the time limit)
 * sets the exit status; the ranks then get a notice period to see the
 * failure, SIGTERM, and SIGKILL after a grace period. */
#include <signal.h>
#include <stdio.h>
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

static void policy_unfinalized_due(rrun_job_t *job, bool now);
static void policy_end_rank(rrun_job_t *job, int r, int st, bool unfinalized);

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
        }
        policy_unfinalized_due(job, job->alive == 0);
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

static void policy_end_rank(rrun_job_t *job, int r, int st, bool unfinalized)
{
    rrun_rank_t *rk = &job->ranks[r];
    job->end = RRUN_END_RANK;
    job->failed_rank = r;
    int pid = (int)rk->pid, ar, as;
    if (unfinalized) {
        rrun_log("rank %d (pid %d on %s) exited with status 0 without calling rmp_finalize; "
                 "ending the job",
                 r, pid, job->host);
        job->exit_code = 1;
    } else if (rrun_server_aborted(&ar, &as) && ar == r) {
        rrun_log("rank %d (pid %d on %s) called rmp_abort(%d); ending the job", r, pid,
                 job->host, as);
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
    job->end = RRUN_END_RANK;
    job->failed_rank = r;
    job->exit_code = status ? status : 1;
    rrun_log("rank %d (on %s) called rmp_abort(%d); ending the job", r, job->host, status);
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
