/* SPDX-License-Identifier: BSD-3-Clause */
/* Tuning files (RMP_TUNING_FILE): the per-transport thresholds and the collective rows
 * rmp_tune writes, read once by rmp_init. Format and rules: docs/tuning.md. Precedence:
 * an RMP_* variable set in the environment > the tuning file > the built-in defaults
 * (generated from tools/tuning/default.tune). */
#ifndef RMPI_TUNING_H
#define RMPI_TUNING_H

#include <stddef.h>
#include <stdint.h>

#include "transport.h"
#include "tune_section.h"

typedef struct rmpi_engine rmpi_engine_t; /* core/engine.h, which includes this header */

typedef enum { RMPI_FROM_DEFAULT, RMPI_FROM_FILE, RMPI_FROM_ENV } rmpi_from_t;

#define RMPI_TUNE_MAX_SETS 16

/* "TL KEY VALUE" for one of a transport's tune_keys: value for its parameter. */
typedef struct rmpi_tune_set {
    int tl;                    /* RMPI_TL_ID_* */
    const struct rmpi_param *param;
    char value[64];
} rmpi_tune_set_t;

typedef struct rmpi_tuning {
    char path[256];             /* "" when no file was loaded */
    size_t rndv[RMPI_TL_MAX];   /* rendezvous thresholds by RMPI_TL_ID_*; 0: not in the file */
    rmpi_tune_set_t sets[RMPI_TUNE_MAX_SETS]; /* transport parameters */
    size_t nsets;
} rmpi_tuning_t;

/* What rmpi_tuning_load read (rmp_info prints it). */

/* Parse the tuning file at path into t and the registered sections (nothing
 * applied). RMP_ERR_ARG with "path:line: message" in err on any error. */
int rmpi_tuning_parse(const char *path, rmpi_tuning_t *t, char *err, size_t errlen);
/* Read RMP_TUNING_FILE (if set) and apply it: its rows go in front of the built-in
 * collective table (the sections install what they parsed), its transport settings
 * into the transports' parameters unless
 * the environment set them.
 * Call after rmpi_config_load; logs and returns the error. */
int rmpi_tuning_load(rmpi_engine_t *e);
/* The rendezvous threshold for transport tl whose own default is dflt, and where it
 * comes from (from may be NULL). */
size_t rmpi_tuning_rndv(rmpi_engine_t *e, const char *tl, size_t dflt, rmpi_from_t *from);
const char *rmpi_tuning_from_name(rmpi_from_t from);
/* Where the value of transport parameter name comes from. */
rmpi_from_t rmpi_tuning_param_from(rmpi_engine_t *e, const char *name);
/* The file the built-in defaults were generated from (tools/tuning/default.tune). */
extern const char rmpi_tuning_default_file[];
/* Every rank must run the same collective table: publish this rank's (before the
 * first fence of rmp_init), then compare with rank 0's (after it). */
int rmpi_tuning_publish(void);
int rmpi_tuning_check(rmpi_engine_t *e);

#endif
