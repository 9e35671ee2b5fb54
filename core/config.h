/* Configuration: every RMP_* environment variable is declared in one table in
 * config.c, parsed once by rmpi_config_load, and listed by rmp_info. */
#ifndef RMPI_CONFIG_H
#define RMPI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    RMPI_PT_BOOL,
    RMPI_PT_INT,
    RMPI_PT_SIZE,   /* bytes, with optional k/m/g suffix (powers of 1024) */
    RMPI_PT_DOUBLE,
    RMPI_PT_STRING,
    RMPI_PT_ENUM    /* one of the '|'-separated choices; stored as its index */
} rmpi_ptype_t;

typedef struct rmpi_param {
    const char *name;    /* environment variable */
    rmpi_ptype_t type;
    const char *defval;  /* default, as it would be written in the environment */
    const char *choices; /* RMPI_PT_ENUM only: "a|b|c" */
    size_t offset;       /* where the parsed value lives in rmpi_config_t */
    size_t size;         /* capacity for RMPI_PT_STRING */
    const char *help;
} rmpi_param_t;

enum { RMPI_CMA_AUTO = 0, RMPI_CMA_ON, RMPI_CMA_OFF };

typedef struct rmpi_config {
    int log_level;
    char transports[128];
    size_t rndv_threshold;    /* 0: each transport's own default */
    int shm_cells;
    int shm_bufs;
    size_t shm_buf_bytes;
    int shm_cma;
    double timeout;           /* seconds; 0: no limit */
    bool stats;
    bool coll_check;
    size_t rcache_max_bytes;
    char verbs_device[64];
    int verbs_gid_index;      /* -1: automatic */
    char tcp_if[128];
    int poll_yield;           /* 0 auto, 1 always, 2 never */
    char tuning_file[256];
    char allreduce_algo[32];
    char bcast_algo[32];
    char allgather_algo[32];
    char reduce_scatter_algo[32];
    char alltoall_algo[32];
    char barrier_algo[32];
    char reduce_algo[32];
    uint64_t from_env;        /* bit i: rmpi_params[i] was set in the environment */
} rmpi_config_t;

extern rmpi_config_t rmpi_cfg;

/* The table, terminated by an entry with name == NULL. */
extern const rmpi_param_t rmpi_params[];

/* Parse envp (NULL-terminated "NAME=VALUE" array) into cfg. On a malformed
 * value returns RMP_ERR_ARG and writes a sentence into err. Unknown RMP_*
 * names are reported through warn_unknown (may be NULL). */
int rmpi_config_load_from(char *const *envp, rmpi_config_t *cfg, char *err, size_t errlen,
                          void (*warn_unknown)(const char *name, const char *suggestion));
/* Parse the process environment into rmpi_cfg (logs errors and warnings). */
int rmpi_config_load(void);

/* Pure parsers, exposed for tests. Each returns RMP_SUCCESS or RMP_ERR_ARG. */
int rmpi_parse_size(const char *s, size_t *out);
int rmpi_parse_bool(const char *s, bool *out);
int rmpi_parse_int(const char *s, int *out);
int rmpi_parse_double(const char *s, double *out);
int rmpi_parse_enum(const char *s, const char *choices, int *out);
/* Was the parameter `name` set in the environment cfg was loaded from? (A tuning file
 * fills in only what the environment left unset.) */
bool rmpi_config_from_env(const rmpi_config_t *cfg, const char *name);
/* Closest known parameter name to an unknown one, or NULL. */
const char *rmpi_config_suggest(const char *name);
/* Format the current value of p (from cfg) into buf. */
void rmpi_config_format(const rmpi_config_t *cfg, const rmpi_param_t *p, char *buf, size_t len);

#endif
