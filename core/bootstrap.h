/* SPDX-License-Identifier: BSD-3-Clause */
/* Bootstrap: the only module that talks PMIx. Out-of-band key/value exchange
 * among the ranks of the job, and the job's shape. */
#ifndef RMPI_BOOTSTRAP_H
#define RMPI_BOOTSTRAP_H

#include <stddef.h>

#include "engine.h"

/* Connect to the PMIx server, or become a 1-rank job when there is none.
 * Fills the engine's job: rank, size, local ranks, nodes, hostname. */
int rmpi_boot_init(rmpi_engine_t *e);
int rmpi_boot_finalize(void);
/* Publish a blob under key for every rank (visible after rmpi_boot_fence). */
int rmpi_boot_put(const char *key, const void *data, size_t len);
/* Commit what was put and wait until every rank of the job did the same. */
int rmpi_boot_fence(void);
/* Fetch rank's blob under key into a malloc'd buffer the caller frees. */
int rmpi_boot_get(int rank, const char *key, void **data, size_t *len);
/* End the whole job with exit_code (never returns). */
void rmpi_boot_abort(int exit_code, const char *msg) __attribute__((noreturn));
/* Ranks the launcher reported as failed since the last call (at most max);
 * safe to call often: one atomic load when nothing happened. */
int rmpi_boot_failed_ranks(rmpi_engine_t *e, int *out, int max);
/* Parse PMIX_LOCAL_PEERS ("3,1,2": distinct ranks of a job of size ranks,
 * comma-separated decimals, nothing else) into out (room for size) in
 * ascending order, *n entries. The list must hold me. RMP_SUCCESS,
 * RMP_ERR_BOOTSTRAP for anything else, or RMP_ERR_NOMEM. */
int rmpi_boot_parse_peers(const char *s, int size, int me, int *out, int *n);
/* PMIx library version string, or "none". */
const char *rmpi_boot_version(void);

#endif
