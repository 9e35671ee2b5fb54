/* SPDX-License-Identifier: BSD-3-Clause */
/* rrun: start N ranks of a program on this machine under an embedded PMIx
 * server, bind them, forward their output, and end the job cleanly when a
 * rank fails, aborts or the time limit passes. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rmp_config.h"
#include "rrun.h"

extern char **environ;

/* "mpiexec" when started by the mpiexec script (RMP_RRUN_AS), so that messages name
 * the command the user typed. */
const char *rrun_name = "rrun";

void rrun_log(const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "%s: ", rrun_name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

double rrun_now(void)
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
            "  --enable-recovery       a rank's death does not end the job: the survivors\n"
            "                          go on (sets RMP_ON_FAILURE=continue); the exit\n"
            "                          status is still the first failed rank's\n"
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
    fprintf(stderr, "%s: ", rrun_name);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '%s --help'.\n", rrun_name);
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
        } else if (IS("--enable-recovery")) {
            o->recovery = true;
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

/* --enable-recovery sets RMP_ON_FAILURE=continue for the ranks; that value given to
 * the ranks otherwise (environment, -x) makes rrun let the survivors live too. */
static void rrun_recovery(rrun_opts_t *o)
{
    static const char name[] = "RMP_ON_FAILURE";
    const size_t n = sizeof(name) - 1;
    const char *v = getenv(name);
    for (int x = 0; x < o->nxvars; x++)
        if (strncmp(o->xvars[x], name, n) == 0 && o->xvars[x][n] == '=')
            v = o->xvars[x] + n + 1;
    if (o->recovery)
        setenv(name, "continue", 1);
    else if (v && strcmp(v, "continue") == 0)
        o->recovery = true;
}

#define RRUN_FINALIZE_GRACE 1 /* seconds PMIx_server_finalize gets */
/* Read by the alarm handler: lock-free atomics are async-signal-safe. */
static atomic_int rrun_final_status;

static void on_finalize_stuck(int sig)
{
    (void)sig;
    static const char m[] = "rrun: the PMIx server did not shut down; exiting anyway\n";
    ssize_t w = write(STDERR_FILENO, m, sizeof(m) - 1);
    (void)w;
    _exit(atomic_load(&rrun_final_status));
}

/* An outer launcher's PMIx identity must not leak into ours. */
static void rrun_clean_environ(void)
{
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
}

/* The ranks' RMP_* variables, checked once before anything starts by the validator
 * the ranks would run in rmp_init (rmp_info --check, next to rrun or, in the build
 * tree, in tools/): each problem one line, and the job does not start (status 2).
 * Without an RMP_* variable, or without rmp_info, there is nothing to do here. */
static int rrun_check_config(const rrun_opts_t *o)
{
    bool any = false;
    for (char **e = environ; *e && !any; e++)
        any = strncmp(*e, "RMP_", 4) == 0;
    for (int x = 0; x < o->nxvars && !any; x++)
        any = strncmp(o->xvars[x], "RMP_", 4) == 0;
    char self[4096], tool[4200];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (!any || len <= 0)
        return 0;
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    snprintf(tool, sizeof(tool), "%s/rmp_info", self);
    if (access(tool, X_OK) != 0)
        snprintf(tool, sizeof(tool), "%s/../tools/rmp_info", self);
    if (access(tool, X_OK) != 0)
        return 0;
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0) {
        for (int x = 0; x < o->nxvars; x++) {
            const char *eq = strchr(o->xvars[x], '=');
            if (eq) {
                char name[256];
                snprintf(name, sizeof(name), "%.*s", (int)(eq - o->xvars[x]), o->xvars[x]);
                setenv(name, eq + 1, 1);
            }
        }
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDOUT_FILENO);
        execl(tool, "rmp_info", "--check", (char *)NULL);
        _exit(0); /* not runnable: the ranks check again */
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 2) {
        fprintf(stderr, "%s: the job was not started: fix the RMP_* variables above "
                        "(rmp_info lists every one with its accepted values)\n", rrun_name);
        return 2;
    }
    return 0;
}

/* Cores, oversubscription and the default binding: 0, or the exit status. */
static int rrun_plan(rrun_opts_t *o)
{
    if (rrun_bind_init() != 0) {
        rrun_log("hwloc could not load the topology");
        return 1;
    }
    int cores = rrun_bind_ncores();
    if (o->np > cores && !o->oversubscribe) {
        fprintf(stderr,
                "%s: %d ranks requested but this machine has %d cores; add "
                "--oversubscribe to run anyway\n",
                rrun_name, o->np, cores);
        return 2;
    }
    if (o->bind == RRUN_BIND_DEFAULT)
        o->bind = o->np <= cores ? RRUN_BIND_CORE : RRUN_BIND_NONE;
    return 0;
}

/* The job once every rank is gone: grandchildren in the ranks' process
 * groups go too, then the PMIx server. Returns the exit status. */
static int rrun_finish(rrun_job_t *job)
{
    for (int r = 0; r < job->launched; r++)
        kill(-job->ranks[r].pid, SIGKILL);
    if (job->timed_out)
        job->exit_code = 124;
    rrun_io_fini();
    /* libpmix can deadlock in PMIx_server_finalize (seen after a connection
     * attempt it refused, e.g. from another user): the job is over and its
     * files are gone by then, so give it a few seconds and leave. */
    atomic_store(&rrun_final_status, job->exit_code);
    signal(SIGALRM, on_finalize_stuck);
    alarm(RRUN_FINALIZE_GRACE);
    rrun_server_stop();
    alarm(0);
    return job->exit_code;
}

int main(int argc, char **argv)
{
    rrun_opts_t o;
    double t0 = rrun_now();
    rrun_launch_note_fds();
    const char *as = getenv("RMP_RRUN_AS");
    if (as && strcmp(as, "mpiexec") == 0)
        rrun_name = "mpiexec";
    unsetenv("RMP_RRUN_AS"); /* not the ranks' business */
    parse_args(argc, argv, &o);
    rrun_recovery(&o);
    rrun_clean_environ();
    rrun_job_t job = {.o = &o, .end = RRUN_END_NONE};
    job.exit_code = rrun_check_config(&o);
    if (job.exit_code != 0) {
        free(o.xvars);
        free(o.program);
        return job.exit_code;
    }
    int notify_fd = rrun_loop_init();
    if (notify_fd < 0) {
        rrun_log("pipe: %s", strerror(errno));
        job.exit_code = 1;
        goto out;
    }
    job.exit_code = rrun_plan(&o);
    if (job.exit_code != 0)
        goto out_bind;
    if (o.verbose)
        rrun_log("%.1f ms: options parsed, %d cores", 1e3 * (rrun_now() - t0),
                 rrun_bind_ncores());
    if (rrun_server_start(&o, notify_fd) != 0) {
        rrun_server_stop();
        job.exit_code = 1;
        goto out_bind;
    }
    if (o.verbose)
        rrun_log("%.1f ms: PMIx server up", 1e3 * (rrun_now() - t0));

    job.cap = o.np + RRUN_SPAWN_MAX;
    job.ranks = calloc((size_t)job.cap, sizeof(*job.ranks));
    if (!job.ranks) {
        rrun_server_stop();
        job.exit_code = 1;
        goto out_bind;
    }
    strcpy(job.host, "this host");
    gethostname(job.host, sizeof(job.host) - 1);
    job.deadline = o.timeout > 0 ? t0 + o.timeout : 0;
    rrun_io_init(job.cap, o.tag_output);
    rrun_spawn_init(notify_fd);
    if (rrun_launch(&job) != 0)
        rrun_policy_launch_failed(&job);
    if (o.verbose)
        rrun_log("%.1f ms: %d ranks started", 1e3 * (rrun_now() - t0), job.launched);
    rrun_loop_run(&job);
    rrun_finish(&job);
    if (o.verbose)
        rrun_log("%.1f ms: job done, exit status %d", 1e3 * (rrun_now() - t0), job.exit_code);
    free(job.ranks);
out_bind:
    rrun_bind_fini();
out:
    rrun_loop_fini();
    free(o.xvars);
    free(o.program);
    return job.exit_code;
}
