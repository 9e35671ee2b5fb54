/* SPDX-License-Identifier: BSD-3-Clause */
/* rrun: the single-node launcher. One process, one job per file: the command
 * line and the job's life from start to exit status (rrun.c), starting the
 * ranks (launch.c), the event loop that watches them (loop.c), what a
 * failure, an abort, a signal or the time limit does to the job (policy.c),
 * PMIx for the ranks (server.c), binding (bind.c), output (iofwd.c). */
#ifndef RRUN_H
#define RRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct pmix_proc pmix_proc_t;

enum { RRUN_BIND_DEFAULT, RRUN_BIND_CORE, RRUN_BIND_NUMA, RRUN_BIND_NONE };

typedef struct rrun_opts {
    int np;
    int bind;
    bool tag_output;
    bool oversubscribe;
    bool report_bindings;
    bool verbose;
    double timeout;   /* seconds, 0 = none */
    bool recovery;    /* --enable-recovery (or RMP_ON_FAILURE=continue): a death ends nothing */
    char **xvars;     /* -x NAME[=VALUE] as given */
    int nxvars;
    char *program;    /* resolved path */
    char **argv;      /* program's argv (argv[0] as given) */
} rrun_opts_t;

typedef struct rrun_rank {
    pid_t pid;
    int out_fd, err_fd;      /* read ends, -1 when closed */
    bool exited;
    int status;              /* wait status */
    char binding[128];       /* human description */
} rrun_rank_t;

/* Why the job is ending: the first cause wins and sets the exit status. */
typedef enum rrun_end {
    RRUN_END_NONE,    /* running: every rank so far exited 0 after rmp_finalize */
    RRUN_END_RANK,    /* rank failed_rank failed, aborted or left unfinalized */
    RRUN_END_LAUNCH,  /* a rank could not be started */
    RRUN_END_SIGNAL,  /* rrun received SIGINT, SIGTERM or SIGHUP */
    RRUN_END_TIMEOUT, /* --timeout passed first */
} rrun_end_t;

/* The job as the event loop and the failure policy see it. Times are
 * rrun_now() seconds; 0 means "not armed". */
typedef struct rrun_job {
    const rrun_opts_t *o;
    rrun_rank_t *ranks;
    int launched;      /* ranks[0..launched) were started */
    int alive;         /* started and not yet reaped */
    rrun_end_t end;
    int failed_rank;   /* when end == RRUN_END_RANK */
    int exit_code;
    bool timed_out;    /* the time limit passed while ranks were alive: 124 */
    double deadline;   /* --timeout */
    double notice_at;  /* survivors have seen the failure: SIGTERM them */
    /* A rank left with status 0 without rmp_finalize while others live: the job's cause
     * once this passes, unless a rank dies meanwhile (rrun_policy_rank_exited). */
    double unfin_at;
    int unfin_rank;
    double term_at;    /* SIGTERM sent (or last rank gone): output drain starts */
    double kill_at;    /* SIGKILL whoever is left */
    char host[256];
    int cap;           /* entries of ranks: np, then room for spawned processes */
} rrun_job_t;

/* Processes MPI_Comm_spawn may add to a job (launcher/spawn.c): they follow the ranks in
 * job->ranks (slots np..), and their exits count like the ranks'. */
#define RRUN_SPAWN_MAX 64

/* The command's name in messages: "rrun", or "mpiexec" under the mpiexec script. */
extern const char *rrun_name;
double rrun_now(void);
void rrun_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* launch.c: start ranks [0, np) of job->o; sets job->launched and alive.
 * Returns 0, or -1 (logged) when a rank could not be started. */
int rrun_launch(rrun_job_t *job);
/* launch.c: start one process in job->ranks[slot]: rank nsrank of PMIx namespace nspace
 * (NULL: the job's), running program with argv (NULL: the job's), in cwd (NULL: ours),
 * with xenv ("NAME=VALUE", NULL-terminated, or NULL) added to its environment. */
int rrun_launch_proc(rrun_job_t *job, int slot, const char *nspace, int nsrank,
                     const char *program, char *const *argv, const char *cwd,
                     char *const *xenv);
/* launch.c: note the descriptors rrun was started with (call first thing in main): ranks
 * get those and stdin/stdout/stderr, never one rrun or its PMIx thread opened. */
void rrun_launch_note_fds(void);

/* loop.c */
/* Catch SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1 into a self-pipe; returns
 * the pipe's write end (others may wake the loop through it) or -1. */
int rrun_loop_init(void);
/* In a child before exec: default dispositions for what rrun_loop_init caught. */
void rrun_loop_child_signals(void);
/* Forward output, reap ranks and apply the policy until every rank is gone
 * and its output drained. */
int rrun_loop_run(rrun_job_t *job);
void rrun_loop_fini(void);

/* policy.c: each returns with the job's state and timers updated. */
void rrun_policy_launch_failed(rrun_job_t *job);
void rrun_policy_rank_exited(rrun_job_t *job, int rank, int status);
/* After each wake: an abort, sig (a signal rrun received, not SIGCHLD; 0 for
 * none), the time limit, and the notice -> SIGTERM -> SIGKILL escalation. */
void rrun_policy_tick(rrun_job_t *job, int sig);
/* The earliest armed timer, or 0 when none. */
double rrun_policy_next_wake(const rrun_job_t *job);
void rrun_policy_kill_all(rrun_job_t *job, int sig);

/* server.c. Upcalls run on the PMIx server thread; what they record is read
 * here through these functions (C11 atomics inside). */
int rrun_server_start(const rrun_opts_t *o, int notify_fd);
int rrun_server_register_rank(const char *nspace, int rank, char ***env);
/* Register a new namespace of np processes on this host (spawn.c). */
int rrun_server_register_job(const char *nspace, int np);
/* The job slot of a PMIx process (the job's rank, or a spawned one's slot), -1 if none. */
int rrun_server_slot(const pmix_proc_t *proc);
void rrun_server_stop(void);
void rrun_server_notify_failure(int rank);
/* The first rmp_abort: true with its rank and status. */
bool rrun_server_aborted(int *rank, int *status);
/* Rank connected to the PMIx server and has not called PMIx_Finalize. */
bool rrun_server_unfinalized(int rank);

/* spawn.c: PMIx_Spawn and the name service (publish/lookup/unpublish) for the ranks.
 * The upcalls queue a spawn and wake the loop, which starts it (rrun_spawn_run). */
struct pmix_server_module_4_0_0_t;
void rrun_spawn_module(struct pmix_server_module_4_0_0_t *m);
void rrun_spawn_init(int notify_fd);
void rrun_spawn_run(rrun_job_t *job);
/* Namespace and rank of job slot (>= np); false when none. */
bool rrun_spawn_proc_of(int slot, char *nspace, size_t len, int *rank);
int rrun_spawn_slot(const char *nspace, unsigned rank);

/* bind.c */
int rrun_bind_init(void);
int rrun_bind_ncores(void);
/* Compute rank's cpu set for mode; describe it into desc. */
int rrun_bind_plan(int rank, int mode, char *desc, size_t desclen);
/* In the child, before exec: apply the plan (no allocation). */
void rrun_bind_apply(int rank);
void rrun_bind_fini(void);
void *rrun_bind_topology(void);

/* iofwd.c */
void rrun_io_init(int np, bool tag);
/* Read what is available on fd (rank's stream 1 or 2): 1 data, -1 none now, 0 EOF. */
int rrun_io_read(int rank, int stream, int fd);
/* Flush any partial line of rank's stream at EOF. */
void rrun_io_flush(int rank, int stream);
void rrun_io_fini(void);

#endif
