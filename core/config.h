/* SPDX-License-Identifier: BSD-3-Clause */
/* Configuration: the core's RMP_* variables are declared in one table in
 * config.c; each transport declares its own (rmpi_tl_iface_t.params). All
 * are parsed once by rmpi_config_load and listed by rmp_info. */
#ifndef RMPI_CONFIG_H
#define RMPI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "param.h"
#include "transport.h"

typedef struct rmpi_engine rmpi_engine_t; /* core/engine.h, which includes this header */

#define RMPI_CONFIG_MAX_MODULES 4

typedef struct rmpi_config {
    int log_level;
    char transports[128];
    size_t rndv_threshold;    /* 0: each transport's own default */
    double timeout;           /* seconds; 0: no limit */
    double failure_timeout;   /* RMP_FAILURE_TIMEOUT, seconds; 0: off */
    bool stats;
    size_t rcache_max_bytes;
    int poll_yield;           /* 0 auto, 1 always, 2 never, 3 sleep */
    char tuning_file[256];
    bool backtrace;           /* print a backtrace on a fatal signal */
    int on_failure;           /* RMP_ON_FAILURE: 0 abort (the launcher ends the job), 1 continue */
    uint64_t from_env;        /* bit i: rmpi_params[i] was set in the environment */
    uint64_t tl_from_env[RMPI_TL_MAX]; /* the same per registry entry's params */
    uint64_t mod_from_env[RMPI_CONFIG_MAX_MODULES]; /* ... per registered module's */
} rmpi_config_t;


/* The core's table, terminated by an entry with name == NULL. */
extern const rmpi_param_t rmpi_params[];

/* One parameter table with where its values and its from-environment bits live. */
typedef struct rmpi_param_set {
    const char *owner; /* "core" or a transport's name */
    const rmpi_param_t *params;
    void *values;
    uint64_t *from_env;
} rmpi_param_set_t;
#define RMPI_PARAM_SETS_MAX (1 + RMPI_TL_MAX + RMPI_CONFIG_MAX_MODULES)
/* Every table: the core's (values in cfg), each built transport's in registry
 * order, then each registered module's. Returns how many were written to sets. */
int rmpi_config_sets(rmpi_config_t *cfg, rmpi_param_set_t *sets);


/* Called with each problem found: is_error (the job must not start) or a warning;
 * sentence names the variable, the value and what is accepted. */
typedef void (*rmpi_config_report_t)(bool is_error, const char *sentence, void *arg);
/* The validator: parse envp (NULL-terminated "NAME=VALUE" array) into cfg and every
 * table's values, reporting every unknown RMP_* name (with a did-you-mean), malformed
 * or out-of-range value and unknown choice once. Returns how many errors. rrun runs it
 * (through rmp_info --check) before starting ranks; rmp_init runs it again. */
int rmpi_config_check_env(char *const *envp, rmpi_config_t *cfg, rmpi_config_report_t report,
                          void *arg);
/* The same, with the first error's sentence in err: RMP_SUCCESS or RMP_ERR_ARG.
 * Warnings go to warn (may be NULL). */
int rmpi_config_load_from(char *const *envp, rmpi_config_t *cfg, char *err, size_t errlen,
                          void (*warn)(const char *sentence));
/* Parse the process environment into rmpi_eng.cfg (logs errors and warnings: under a
 * launcher only rank 0 prints them). */
int rmpi_config_load(rmpi_engine_t *e);

/* Parse val into p's place in values (its owner's struct). RMP_SUCCESS or RMP_ERR_ARG. */
int rmpi_config_set(void *values, const rmpi_param_t *p, const char *val);
/* Was the parameter `name` set in the environment cfg was loaded from? (A tuning file
 * fills in only what the environment left unset.) */
bool rmpi_config_from_env(const rmpi_config_t *cfg, const char *name);
/* Closest known parameter name to an unknown one, or NULL. */
const char *rmpi_config_suggest(const char *name);
/* Format the current value of p (from values: cfg, or its transport's
 * param_values) into buf. */
void rmpi_config_format(const void *values, const rmpi_param_t *p, char *buf, size_t len);

#endif
