/* rrun: the single-node launcher. One process, four jobs: parse the command
 * line (rrun.c), serve PMIx to the ranks (server.c), bind them (bind.c),
 * forward their output (iofwd.c). */
#ifndef RRUN_H
#define RRUN_H

#include <stdbool.h>
#include <sys/types.h>

enum { RRUN_BIND_DEFAULT, RRUN_BIND_CORE, RRUN_BIND_NUMA, RRUN_BIND_NONE };

typedef struct rrun_opts {
    int np;
    int bind;
    bool tag_output;
    bool oversubscribe;
    bool report_bindings;
    bool verbose;
    double timeout;   /* seconds, 0 = none */
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

/* server.c */
int rrun_server_start(const rrun_opts_t *o, int notify_fd);
int rrun_server_register_rank(int rank, char ***env);
void rrun_server_stop(void);
void rrun_server_notify_failure(int rank);
/* Set by the abort upcall (read in the main loop after notify_fd wakes it). */
extern volatile int rrun_abort_rank, rrun_abort_status;
/* Per rank: connected to the PMIx server / called PMIx_Finalize. */
extern volatile unsigned char *rrun_connected, *rrun_finalized;

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

void rrun_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
