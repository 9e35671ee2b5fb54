/* rrun: start N ranks of a program on this machine under an embedded PMIx
 * server, bind them, forward their output, and end the job cleanly when a
 * rank fails, aborts or the time limit passes. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rmp_config.h"
#include "rrun.h"

#define RRUN_GRACE 1.0  /* seconds between SIGTERM and SIGKILL */
#define RRUN_NOTICE 0.25 /* seconds the survivors get to see a failure before SIGTERM */

extern char **environ;

static int sig_pipe[2] = {-1, -1};
static volatile sig_atomic_t sig_got;

void rrun_log(const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "rrun: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rrun [options] -n N PROGRAM [ARGS...]\n"
            "Run N ranks of PROGRAM on this machine (an embedded PMIx server).\n\n"
            "  -n, -np N               number of ranks (required)\n"
            "  --bind-to core|numa|none  bind each rank (default: core when N <= cores,\n"
            "                          none when oversubscribed)\n"
            "  --oversubscribe         allow more ranks than cores\n"
            "  -x NAME[=VALUE]         set NAME in the ranks' environment (repeatable)\n"
            "  --tag-output            prefix every output line with [rank]\n"
            "  --timeout SECONDS       kill the job after SECONDS, exit status 124\n"
            "  --report-bindings       print the cores each rank is bound to\n"
            "  --verbose               print launch steps with timings\n"
            "  --version               print the version and exit\n"
            "  -h, --help              this text\n\n"
            "Exit status: 0 when every rank exits 0; otherwise the first failing rank's\n"
            "status (128+signal for a signal), 124 on timeout, 2 for a bad invocation.\n"
            "Across several machines, run the same program under srun --mpi=pmix or\n"
            "Open MPI's mpirun.\n");
}

static void bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "rrun: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'rrun --help'.\n");
    exit(2);
}

static char *resolve_program(const char *prog)
{
    if (strchr(prog, '/')) {
        struct stat st;
        if (stat(prog, &st) != 0)
            bad("program '%s' not found", prog);
        if (!S_ISREG(st.st_mode) || access(prog, X_OK) != 0)
            bad("program '%s' is not executable", prog);
        return strdup(prog);
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        char cand[4096];
        snprintf(cand, sizeof(cand), "%.*s/%s", (int)(len ? len : 1), len ? path : ".", prog);
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
            return strdup(cand);
        path += len;
        if (*path == ':')
            path++;
    }
    bad("program '%s' not found in PATH", prog);
    return NULL;
}

static void parse_args(int argc, char **argv, rrun_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->np = -1;
    o->bind = RRUN_BIND_DEFAULT;
    o->xvars = calloc((size_t)argc, sizeof(char *));
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-')
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        const char *val = NULL;
        const char *eq = NULL;
        if (a[1] == '-' && (eq = strchr(a, '=')) != NULL)
            val = eq + 1;
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
#define IS(s) (strlen(s) == nlen && strncmp(a, s, nlen) == 0)
#define NEEDVAL()                                                         \
    do {                                                                  \
        if (!val) {                                                       \
            if (i + 1 >= argc)                                            \
                bad("option '%s' needs a value", a);                      \
            val = argv[++i];                                              \
        }                                                                 \
    } while (0)
        if (IS("-h") || IS("--help")) {
            usage(stdout);
            exit(0);
        } else if (IS("--version") || IS("-V")) {
            printf("rrun (rmp) %s\n", RMP_VERSION);
            exit(0);
        } else if (IS("-n") || IS("-np") || IS("--np") || IS("-c")) {
            NEEDVAL();
            char *end;
            long n = strtol(val, &end, 10);
            if (*end || end == val || n < 1 || n > 4096)
                bad("the number of ranks must be an integer from 1 to 4096, not '%s'", val);
            o->np = (int)n;
        } else if (IS("--bind-to")) {
            NEEDVAL();
            if (strcmp(val, "core") == 0)
                o->bind = RRUN_BIND_CORE;
            else if (strcmp(val, "numa") == 0)
                o->bind = RRUN_BIND_NUMA;
            else if (strcmp(val, "none") == 0)
                o->bind = RRUN_BIND_NONE;
            else
                bad("--bind-to takes core, numa or none, not '%s'", val);
        } else if (IS("-x")) {
            NEEDVAL();
            if (!*val || *val == '=')
                bad("-x needs NAME or NAME=VALUE, not '%s'", val);
            o->xvars[o->nxvars++] = (char *)val;
        } else if (IS("--tag-output")) {
            o->tag_output = true;
        } else if (IS("--oversubscribe")) {
            o->oversubscribe = true;
        } else if (IS("--report-bindings")) {
            o->report_bindings = true;
        } else if (IS("--verbose") || IS("-v")) {
            o->verbose = true;
        } else if (IS("--timeout")) {
            NEEDVAL();
            char *end;
            double t = strtod(val, &end);
            if (*end || end == val || !(t > 0))
                bad("--timeout takes a positive number of seconds, not '%s'", val);
            o->timeout = t;
        } else {
            bad("unknown option '%s'", a);
        }
#undef IS
#undef NEEDVAL
    }
    if (i >= argc)
        bad("%s", "no program given");
    if (o->np < 0)
        bad("%s", "the number of ranks is missing (-n N)");
    o->program = resolve_program(argv[i]);
    o->argv = &argv[i];
}

static void on_signal(int sig)
{
    int saved = errno;
    if (sig != SIGCHLD)
        sig_got = sig;
    char b = (char)sig;
    ssize_t w = write(sig_pipe[1], &b, 1);
    (void)w;
    errno = saved;
}

static void set_nonblock_cloexec(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* The rank's environment: ours, minus an outer launcher's PMIx variables,
 * plus -x settings and rrun's notes, as a heap array setup_fork may grow. */
static char **build_env(const rrun_opts_t *o, int rank, const char *binding)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + (size_t)o->nxvars + 5, sizeof(char *));
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
        size_t nl = strcspn(item, "=");
        size_t j;
        for (j = 0; j < k; j++)
            if (strncmp(env[j], item, nl + 1) == 0)
                break;
        if (j < k) {
            free(env[j]);
            env[j] = item;
        } else {
            env[k++] = item;
        }
    }
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

static void free_env(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

static void describe_status(int st, char *buf, size_t len)
{
    if (WIFSIGNALED(st))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
}

static int exit_code_of(int st)
{
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

static void kill_all(rrun_rank_t *ranks, int np, int sig)
{
    for (int r = 0; r < np; r++)
        if (ranks[r].pid > 0 && !ranks[r].exited)
            kill(-ranks[r].pid, sig);
}

/* Segments of ranks that died before unlinking them (see transports/shm). */
static void cleanup_shm(rrun_rank_t *ranks, int np)
{
    for (int r = 0; r < np; r++) {
        char pat[128];
        snprintf(pat, sizeof(pat), "/dev/shm/rmp-%d-%d-*", (int)getuid(), (int)ranks[r].pid);
        glob_t g;
        if (glob(pat, 0, NULL, &g) == 0)
            for (size_t i = 0; i < g.gl_pathc; i++)
                unlink(g.gl_pathv[i]);
        globfree(&g);
    }
}

#define RRUN_FINALIZE_GRACE 1
static volatile sig_atomic_t rrun_final_status;

static void on_finalize_stuck(int sig)
{
    (void)sig;
    static const char m[] = "rrun: the PMIx server did not shut down; exiting anyway\n";
    ssize_t w = write(STDERR_FILENO, m, sizeof(m) - 1);
    (void)w;
    _exit(rrun_final_status);
}

int main(int argc, char **argv)
{
    rrun_opts_t o;
    double t0 = now();
    parse_args(argc, argv, &o);

    /* An outer launcher's PMIx identity must not leak into ours. */
    for (char **e = environ; *e;) {
        if (strncmp(*e, "PMIX_", 5) == 0 && strncmp(*e, "PMIX_MCA_", 9) != 0) {
            char name[256];
            snprintf(name, sizeof(name), "%.*s", (int)strcspn(*e, "="), *e);
            unsetenv(name);
        } else {
            e++;
        }
    }
    /* Faster client start-up (see PMIX.md); the user may override. */
    setenv("PMIX_MCA_gds", "hash", 0);

    if (pipe(sig_pipe) != 0)
        return 1;
    set_nonblock_cloexec(sig_pipe[0]);
    set_nonblock_cloexec(sig_pipe[1]);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (rrun_bind_init() != 0) {
        rrun_log("hwloc could not load the topology");
        return 1;
    }
    int cores = rrun_bind_ncores();
    if (o.np > cores && !o.oversubscribe) {
        fprintf(stderr,
                "rrun: %d ranks requested but this machine has %d cores; add "
                "--oversubscribe to run anyway\n",
                o.np, cores);
        return 2;
    }
    if (o.bind == RRUN_BIND_DEFAULT)
        o.bind = o.np <= cores ? RRUN_BIND_CORE : RRUN_BIND_NONE;
    if (o.verbose)
        rrun_log("%.1f ms: options parsed, %d cores", 1e3 * (now() - t0), cores);

    if (rrun_server_start(&o, sig_pipe[1]) != 0) {
        rrun_server_stop();
        return 1;
    }
    if (o.verbose)
        rrun_log("%.1f ms: PMIx server up", 1e3 * (now() - t0));

    rrun_rank_t *ranks = calloc((size_t)o.np, sizeof(*ranks));
    struct pollfd *pfd = calloc((size_t)o.np * 2 + 1, sizeof(*pfd));
    int *pfd_rank = calloc((size_t)o.np * 2 + 1, sizeof(int));
    if (!ranks || !pfd || !pfd_rank)
        return 1;
    rrun_io_init(o.np, o.tag_output);

    int exit_code = 0, failed_rank = -1, launched = 0;
    double kill_at = 0, term_at = 0, notice_at = 0;
    for (int r = 0; r < o.np; r++) {
        ranks[r].out_fd = ranks[r].err_fd = -1;
        if (rrun_bind_plan(r, o.bind, ranks[r].binding, sizeof(ranks[r].binding)) != 0) {
            exit_code = 1;
            break;
        }
        if (o.report_bindings)
            rrun_log("rank %d bound to %s", r, ranks[r].binding);
        char **env = build_env(&o, r, ranks[r].binding);
        if (!env || rrun_server_register_rank(r, &env) != 0) {
            free_env(env);
            exit_code = 1;
            break;
        }
        int outp[2], errp[2];
        if (pipe(outp) != 0 || pipe(errp) != 0) {
            rrun_log("pipe: %s", strerror(errno));
            free_env(env);
            exit_code = 1;
            break;
        }
        pid_t rrun_pid = getpid();
        pid_t pid = fork();
        if (pid == 0) {
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
            rrun_bind_apply(r);
            struct sigaction dfl;
            memset(&dfl, 0, sizeof(dfl));
            dfl.sa_handler = SIG_DFL;
            sigaction(SIGCHLD, &dfl, NULL);
            sigaction(SIGINT, &dfl, NULL);
            sigaction(SIGTERM, &dfl, NULL);
            sigaction(SIGHUP, &dfl, NULL);
            sigaction(SIGUSR1, &dfl, NULL);
            sigaction(SIGPIPE, &dfl, NULL);
            execve(o.program, o.argv, env);
            dprintf(STDERR_FILENO, "rrun: cannot execute %s: %s\n", o.program, strerror(errno));
            _exit(127);
        }
        free_env(env);
        close(outp[1]);
        close(errp[1]);
        if (pid < 0) {
            rrun_log("fork: %s", strerror(errno));
            close(outp[0]);
            close(errp[0]);
            exit_code = 1;
            break;
        }
        setpgid(pid, pid); /* also here: no race with the first kill */
        set_nonblock_cloexec(outp[0]);
        set_nonblock_cloexec(errp[0]);
        ranks[r].pid = pid;
        ranks[r].out_fd = outp[0];
        ranks[r].err_fd = errp[0];
        launched++;
    }
    if (o.verbose)
        rrun_log("%.1f ms: %d ranks started", 1e3 * (now() - t0), launched);
    if (launched < o.np) {
        kill_all(ranks, launched, SIGKILL);
        term_at = now();
        kill_at = term_at;
        failed_rank = -2;
    }

    char host[256] = "this host";
    gethostname(host, sizeof(host) - 1);
    double deadline = o.timeout > 0 ? t0 + o.timeout : 0;
    int alive = launched, timed_out = 0;
    for (;;) {
        int open_fds = 0;
        int npfd = 0;
        pfd[npfd].fd = sig_pipe[0];
        pfd[npfd].events = POLLIN;
        pfd_rank[npfd++] = -1;
        for (int r = 0; r < launched; r++) {
            if (ranks[r].out_fd >= 0) {
                pfd[npfd].fd = ranks[r].out_fd;
                pfd[npfd].events = POLLIN;
                pfd_rank[npfd++] = r * 2;
                open_fds++;
            }
            if (ranks[r].err_fd >= 0) {
                pfd[npfd].fd = ranks[r].err_fd;
                pfd[npfd].events = POLLIN;
                pfd_rank[npfd++] = r * 2 + 1;
                open_fds++;
            }
        }
        if (alive == 0 && open_fds == 0)
            break;
        double t = now();
        double wake = 1e9;
        if (deadline > 0 && !timed_out)
            wake = deadline;
        if (kill_at > 0 && kill_at < wake)
            wake = kill_at;
        if (notice_at > 0 && notice_at < wake)
            wake = notice_at;
        /* Once every rank is gone, a grandchild holding a pipe gets a second. */
        if (alive == 0 && (term_at == 0 || t < term_at + 1.0)) {
            if (term_at == 0)
                term_at = t;
            if (term_at + 1.0 < wake)
                wake = term_at + 1.0;
        } else if (alive == 0) {
            break;
        }
        int ms = wake >= 1e9 ? -1 : (int)((wake - t) * 1e3) + 1;
        if (ms < 0 && wake < 1e9)
            ms = 0;
        int n = poll(pfd, (nfds_t)npfd, ms);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 1; n > 0 && i < npfd; i++) {
            if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int r = pfd_rank[i] / 2, stream = pfd_rank[i] % 2 + 1;
            int *fdp = stream == 1 ? &ranks[r].out_fd : &ranks[r].err_fd;
            /* Read a bounded amount per wake so one chatty rank cannot starve others. */
            int got = 1;
            for (int k = 0; k < 16 && got == 1; k++)
                got = rrun_io_read(r, stream, *fdp);
            if (got == 0) {
                rrun_io_flush(r, stream);
                close(*fdp);
                *fdp = -1;
            }
        }
        if (pfd[0].revents & POLLIN) {
            char buf[64];
            while (read(sig_pipe[0], buf, sizeof(buf)) > 0)
                ;
        }
        /* Reap. */
        for (;;) {
            int st;
            pid_t p = waitpid(-1, &st, WNOHANG);
            if (p <= 0)
                break;
            for (int r = 0; r < launched; r++) {
                if (ranks[r].pid != p)
                    continue;
                ranks[r].exited = true;
                ranks[r].status = st;
                alive--;
                /* An rmp rank that leaves without rmp_finalize strands the others. */
                bool unfinalized = !WIFSIGNALED(st) && WEXITSTATUS(st) == 0 && o.np > 1 &&
                                   rrun_connected[r] && !rrun_finalized[r];
                if ((WIFSIGNALED(st) || WEXITSTATUS(st) != 0 || unfinalized) &&
                    failed_rank == -1 && !timed_out) {
                    failed_rank = r;
                    char how[128];
                    describe_status(st, how, sizeof(how));
                    if (unfinalized) {
                        rrun_log("rank %d (pid %d on %s) exited with status 0 without "
                                 "calling rmp_finalize; ending the job",
                                 r, (int)p, host);
                        exit_code = 1;
                    } else if (rrun_abort_rank == r) {
                        rrun_log("rank %d (pid %d on %s) called rmp_abort(%d); ending the job",
                                 r, (int)p, host, rrun_abort_status);
                        exit_code = rrun_abort_status;
                    } else {
                        rrun_log("rank %d (pid %d on %s) %s; ending the job", r, (int)p, host,
                                 how);
                        exit_code = exit_code_of(st);
                    }
                    if (exit_code == 0)
                        exit_code = 1;
                    if (alive > 0) {
                        rrun_server_notify_failure(r);
                        notice_at = now() + RRUN_NOTICE;
                    }
                }
            }
        }
        /* An abort seen before its rank exited. */
        if (rrun_abort_rank >= 0 && failed_rank == -1) {
            int r = rrun_abort_rank;
            failed_rank = r;
            exit_code = rrun_abort_status ? rrun_abort_status : 1;
            rrun_log("rank %d (on %s) called rmp_abort(%d); ending the job", r, host,
                     rrun_abort_status);
            kill_all(ranks, launched, SIGTERM);
            term_at = now();
            kill_at = term_at + RRUN_GRACE;
        }
        if (sig_got && failed_rank == -1) {
            int s = sig_got;
            sig_got = 0;
            if (s == SIGUSR1) {
                kill_all(ranks, launched, SIGUSR1);
            } else {
                rrun_log("received signal %d (%s); ending the job", s, strsignal(s));
                failed_rank = -3;
                exit_code = 128 + s;
                kill_all(ranks, launched, SIGTERM);
                term_at = now();
                kill_at = term_at + RRUN_GRACE;
            }
        }
        t = now();
        if (deadline > 0 && !timed_out && t >= deadline && alive > 0) {
            timed_out = 1;
            rrun_log("job timed out after %g s; where each rank is blocked:", o.timeout);
            exit_code = 124;
            if (failed_rank == -1)
                failed_rank = -4;
            /* Ranks report where they wait (SIGUSR1), then go. */
            kill_all(ranks, launched, SIGUSR1);
            notice_at = t + RRUN_NOTICE;
        }
        if (notice_at > 0 && t >= notice_at) {
            notice_at = 0;
            if (alive > 0) {
                kill_all(ranks, launched, SIGTERM);
                term_at = t;
                kill_at = t + RRUN_GRACE;
            }
        }
        if (kill_at > 0 && t >= kill_at && alive > 0) {
            kill_all(ranks, launched, SIGKILL);
            kill_at = 0;
        }
    }
    /* Grandchildren in the ranks' process groups go too. */
    for (int r = 0; r < launched; r++)
        kill(-ranks[r].pid, SIGKILL);
    cleanup_shm(ranks, launched);
    if (timed_out)
        exit_code = 124;
    rrun_io_fini();
    /* libpmix can deadlock in PMIx_server_finalize (seen after a connection
     * attempt it refused, e.g. from another user): the job is over and its
     * files are gone by then, so give it a few seconds and leave. */
    rrun_final_status = exit_code;
    signal(SIGALRM, on_finalize_stuck);
    alarm(RRUN_FINALIZE_GRACE);
    rrun_server_stop();
    alarm(0);
    rrun_bind_fini();
    if (o.verbose)
        rrun_log("%.1f ms: job done, exit status %d", 1e3 * (now() - t0), exit_code);
    free(ranks);
    free(pfd);
    free(pfd_rank);
    free(o.xvars);
    free(o.program);
    return exit_code;
}
