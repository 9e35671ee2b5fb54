/* SPDX-License-Identifier: BSD-3-Clause */
/* Starting the ranks: each gets its binding, its environment (PMIx's
 * client settings from setup_fork) and two pipes for its output, and runs in
 * its own process group so that rrun can signal it with its children. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "rrun.h"

extern char **environ;

/* The descriptors above 2 that rrun inherited, ascending (a CI runner's pipe, say): the
 * ranks keep them. Anything else open at fork is rrun's own, possibly opened by the PMIx
 * server thread without close-on-exec (an accepted client socket) while this thread
 * forks: the child closes it before exec. */
#define LAUNCH_FDS_MAX 64
static int launch_fds[LAUNCH_FDS_MAX];
static int launch_nfds;

static int launch_int_cmp(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

void rrun_launch_note_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        launch_nfds = -1; /* unknown: close nothing */
        return;
    }
    int self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd <= 2 || fd == self)
            continue;
        if (launch_nfds == LAUNCH_FDS_MAX) {
            launch_nfds = -1; /* too many to track: close nothing */
            break;
        }
        launch_fds[launch_nfds++] = fd;
    }
    closedir(d);
    if (launch_nfds > 0)
        qsort(launch_fds, (size_t)launch_nfds, sizeof(int), launch_int_cmp);
}

/* In the child (async-signal-safe): close every descriptor above 2 that rrun did not
 * inherit. */
static void launch_close_own_fds(void)
{
    if (launch_nfds < 0)
        return;
    unsigned lo = 3;
    for (int i = 0; i < launch_nfds; i++) {
        if ((unsigned)launch_fds[i] > lo)
            close_range(lo, (unsigned)launch_fds[i] - 1, 0);
        lo = (unsigned)launch_fds[i] + 1;
    }
    close_range(lo, ~0u, 0);
}

static void launch_set_nonblock_cloexec(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static void launch_free_env(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

/* Add "NAME=VALUE" to env[0..*k), replacing NAME if present. */
static void launch_env_put(char **env, size_t *k, char *item)
{
    size_t nl = strcspn(item, "=");
    for (size_t j = 0; j < *k; j++) {
        if (strncmp(env[j], item, nl + 1) == 0) {
            free(env[j]);
            env[j] = item;
            return;
        }
    }
    env[(*k)++] = item;
}

/* The rank's environment: ours, minus an outer launcher's PMIx variables,
 * plus -x settings and rrun's notes, as a heap array setup_fork may grow. */
static char **launch_env(const rrun_opts_t *o, int rank, const char *binding,
                         char *const *xenv)
{
    size_t n = 0, nx = 0;
    while (environ[n])
        n++;
    while (xenv && xenv[nx])
        nx++;
    char **env = calloc(n + (size_t)o->nxvars + nx + 5, sizeof(char *));
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "PMIX_", 5) != 0 || strncmp(environ[i], "PMIX_MCA_", 9) == 0)
            env[k++] = strdup(environ[i]);
    for (int x = 0; x < o->nxvars; x++) {
        const char *v = o->xvars[x];
        char *item;
        if (strchr(v, '=')) {
            item = strdup(v);
        } else {
            const char *cur = getenv(v);
            if (!cur)
                continue;
            if (asprintf(&item, "%s=%s", v, cur) < 0)
                continue;
        }
        launch_env_put(env, &k, item);
    }
    for (size_t x = 0; x < nx; x++) /* a spawned process's own */
        if (strchr(xenv[x], '='))
            launch_env_put(env, &k, strdup(xenv[x]));
    char *b;
    if (asprintf(&b, "RMP_RRUN_BINDING=%s", binding) >= 0)
        env[k++] = b;
    if (asprintf(&b, "RMP_RRUN_RANK=%d", rank) >= 0)
        env[k++] = b;
    if (o->verbose && (b = strdup("RMP_RRUN_VERBOSE=1")))
        env[k++] = b; /* the ranks report their set-up steps too */
    env[k] = NULL;
    return env;
}

/* In the child: only async-signal-safe calls until exec. */
static void launch_exec(const char *program, char *const *argv, const char *cwd, int rank,
                        pid_t rrun_pid, int outp[2], int errp[2], char **env)
{
    /* rrun killed outright (SIGKILL) cannot clean up: its ranks go with
     * it instead of running on unsupervised. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != rrun_pid)
        _exit(127);
    setpgid(0, 0);
    dup2(outp[1], STDOUT_FILENO);
    dup2(errp[1], STDERR_FILENO);
    close(outp[0]);
    close(outp[1]);
    close(errp[0]);
    close(errp[1]);
    launch_close_own_fds();
    rrun_bind_apply(rank);
    rrun_loop_child_signals();
    if (cwd && chdir(cwd) != 0) {
        dprintf(STDERR_FILENO, "%s: cannot enter %s: %s\n", rrun_name, cwd, strerror(errno));
        _exit(127);
    }
    execve(program, argv, env);
    dprintf(STDERR_FILENO, "%s: cannot execute %s: %s\n", rrun_name, program,
            strerror(errno));
    _exit(127);
}

int rrun_launch_proc(rrun_job_t *job, int r, const char *nspace, int nsrank,
                     const char *program, char *const *argv, const char *cwd,
                     char *const *xenv)
{
    const rrun_opts_t *o = job->o;
    rrun_rank_t *rk = &job->ranks[r];
    int outp[2] = {-1, -1}, errp[2] = {-1, -1};
    int rc = -1;
    rk->out_fd = rk->err_fd = -1;
    /* spawned processes are not bound: the plan was made for the job's ranks */
    if (rrun_bind_plan(r, nspace ? RRUN_BIND_NONE : o->bind, rk->binding,
                       sizeof(rk->binding)) != 0)
        return -1;
    if (o->report_bindings)
        rrun_log("rank %d bound to %s", r, rk->binding);
    char **env = launch_env(o, nsrank, rk->binding, xenv);
    if (!env || rrun_server_register_rank(nspace, nsrank, &env) != 0)
        goto out;
    if (pipe(outp) != 0 || pipe(errp) != 0) {
        rrun_log("pipe: %s", strerror(errno));
        goto out_close;
    }
    pid_t rrun_pid = getpid();
    pid_t pid = fork();
    if (pid == 0)
        launch_exec(program ? program : o->program, argv ? argv : o->argv, cwd, r, rrun_pid,
                    outp, errp, env);
    if (pid < 0) {
        rrun_log("fork: %s", strerror(errno));
        goto out_close;
    }
    setpgid(pid, pid); /* also here: no race with the first kill */
    close(outp[1]);
    close(errp[1]);
    launch_set_nonblock_cloexec(outp[0]);
    launch_set_nonblock_cloexec(errp[0]);
    rk->pid = pid;
    rk->out_fd = outp[0];
    rk->err_fd = errp[0];
    rc = 0;
    goto out;
out_close:
    for (int i = 0; i < 2; i++) {
        if (outp[i] >= 0)
            close(outp[i]);
        if (errp[i] >= 0)
            close(errp[i]);
    }
out:
    launch_free_env(env);
    return rc;
}

int rrun_launch(rrun_job_t *job)
{
    for (int r = 0; r < job->o->np; r++)
        job->ranks[r].out_fd = job->ranks[r].err_fd = -1;
    for (int r = 0; r < job->o->np; r++) {
        if (rrun_launch_proc(job, r, NULL, r, NULL, NULL, NULL, NULL) != 0)
            return -1;
        job->launched++;
        job->alive++;
    }
    return 0;
}
