/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_T, the tools interface (mpit*.c), over rmp's public introspection calls
 * (rmp_param_*, rmp_stats_get):
 * - control variables: rmp's RMP_* parameters, by their environment names, all
 *   read-only (rmp parses them once, at rmp_init): mpit_cvar.c;
 * - performance variables: the point-to-point counters and queue levels: mpit_pvar.c;
 * - categories: one per parameter owner (core, each transport, each module) and one
 *   for the counters: mpit_cat.c;
 * - events (none) and the one time source: mpit_event.c.
 * Every call takes mpii_t_lock (MPI_T provides MPI_THREAD_MULTIPLE whatever MPI's
 * level); none is on a communication path. */
#ifndef MPII_T_H
#define MPII_T_H

#include "mpii_base.h"

extern pthread_mutex_t mpii_t_lock;

/* Lock, then MPI_SUCCESS, or MPI_T_ERR_NOT_INITIALIZED (and unlocked) outside
 * MPI_T_init_thread..MPI_T_finalize. */
int mpii_t_enter(void);
static inline int mpii_t_leave(int rc)
{
    pthread_mutex_unlock(&mpii_t_lock);
    return rc;
}

/* MPI_T's string output: len NULL leaves name alone; name NULL or *len 0 asks
 * for the length (with the NUL); otherwise copy, truncated and terminated, and
 * set *len to what was copied with the NUL. */
void mpii_t_str(char *dst, int *len, const char *src);

/* Control variables = rmp parameters (built at the first MPI_T_init_thread). */
int mpii_t_cvar_num(void);
const rmp_param_info_t *mpii_t_cvar(int index);
/* Build the table (MPI_SUCCESS or MPI_T_ERR_MEMORY); a cvar's category is its owner's. */
int mpii_t_cvar_setup(void);

/* Performance variables (mpit_pvar.c). */
int mpii_t_pvar_num(void);
/* Free every session left (the last MPI_T_finalize). */
void mpii_t_pvar_free_all(void);

#endif
