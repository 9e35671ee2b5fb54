/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_T, the tools interface: rmp exposes no variables, categories, events or
 * sources yet; the counting functions say so (the rest are stubs). */
#include "mpii.h"

static int mpit_refs;

int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided)
        return MPI_T_ERR_INVALID;
    mpit_refs++;
    *provided = required >= MPI_THREAD_FUNNELED ? MPI_THREAD_FUNNELED : MPI_THREAD_SINGLE;
    return MPI_SUCCESS;
}
MPII_WEAK(T_init_thread)

int PMPI_T_finalize(void)
{
    if (mpit_refs == 0)
        return MPI_T_ERR_NOT_INITIALIZED;
    mpit_refs--;
    return MPI_SUCCESS;
}
MPII_WEAK(T_finalize)

static int mpit_zero(int *n)
{
    if (mpit_refs == 0)
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!n)
        return MPI_T_ERR_INVALID;
    *n = 0;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
    return mpit_zero(num_cvar);
}
MPII_WEAK(T_cvar_get_num)

int PMPI_T_pvar_get_num(int *num_pvar)
{
    return mpit_zero(num_pvar);
}
MPII_WEAK(T_pvar_get_num)

int PMPI_T_category_get_num(int *num_cat)
{
    return mpit_zero(num_cat);
}
MPII_WEAK(T_category_get_num)

int PMPI_T_event_get_num(int *num_events)
{
    return mpit_zero(num_events);
}
MPII_WEAK(T_event_get_num)

int PMPI_T_source_get_num(int *num_sources)
{
    return mpit_zero(num_sources);
}
MPII_WEAK(T_source_get_num)

int PMPI_T_category_changed(int *update_number)
{
    return mpit_zero(update_number);
}
MPII_WEAK(T_category_changed)
