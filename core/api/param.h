/* SPDX-License-Identifier: BSD-3-Clause */
/* A parameter table: the RMP_* environment variables one module owns (core in
 * config.c, each transport in its own folder). core/config.c parses every
 * registered table; rmp_info lists them; the unknown-variable warning
 * suggests from all of them. One validator (rmpi_config_check_env) refuses unknown
 * names, malformed and out-of-range values before a job starts (rrun, rmp_init). */
#ifndef RMPI_PARAM_H
#define RMPI_PARAM_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    RMPI_PT_BOOL,   /* bool */
    RMPI_PT_INT,    /* int */
    RMPI_PT_SIZE,   /* size_t: bytes, with optional k/m/g suffix (powers of 1024) */
    RMPI_PT_DOUBLE, /* double */
    RMPI_PT_STRING, /* char[size] */
    RMPI_PT_ENUM    /* int: index among the '|'-separated choices */
} rmpi_ptype_t;

typedef struct rmpi_param {
    const char *name;    /* environment variable */
    rmpi_ptype_t type;
    const char *defval;  /* default, as it would be written in the environment */
    /* ENUM: "a|b|c". STRING: NULL (any string) or "a|b|c" (one of them, "" = default).
     * INT, SIZE, DOUBLE: NULL or the accepted range "lo..hi" written as a value would
     * be ("4k..16m"): a value outside is refused, never clamped. */
    const char *choices;
    size_t offset;       /* where the parsed value lives in the owner's struct */
    size_t size;         /* capacity for RMPI_PT_STRING */
    const char *help;
} rmpi_param_t;

/* Table entries: RMPI_PARAM_OFF(struct, field) for scalars, RMPI_PARAM_STR for strings. */
#define RMPI_PARAM_OFF(type, f) offsetof(type, f), 0
#define RMPI_PARAM_STR(type, f) offsetof(type, f), sizeof(((type *)0)->f)

/* A module above the core (the collectives: collectives/coll_tune.c) registers
 * its table and values, from a constructor (before rmpi_config_load).
 * RMP_ERR_NOMEM when RMPI_CONFIG_MAX_MODULES are registered. */
int rmpi_config_register(const char *owner, const rmpi_param_t *params, void *values);
/* The parsers of parameter values (pure; tests call them too). Each returns
 * RMP_SUCCESS or RMP_ERR_ARG. */
int rmpi_parse_size(const char *s, size_t *out);
int rmpi_parse_bool(const char *s, bool *out);
int rmpi_parse_int(const char *s, int *out);
int rmpi_parse_double(const char *s, double *out);
int rmpi_parse_enum(const char *s, const char *choices, int *out);

#endif
