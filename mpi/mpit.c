/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_T initialisation (reference counted: every MPI_T_init_thread needs its
 * MPI_T_finalize) and what the other mpit*.c files share (mpii_t.h). */
#include <string.h>

#include "mpii_t.h"

pthread_mutex_t mpii_t_lock = PTHREAD_MUTEX_INITIALIZER;
static int mpit_refs;

int mpii_t_enter(void)
{
    pthread_mutex_lock(&mpii_t_lock);
    if (mpit_refs == 0) {
        pthread_mutex_unlock(&mpii_t_lock);
        return MPI_T_ERR_NOT_INITIALIZED;
    }
    return MPI_SUCCESS;
}

void mpii_t_str(char *dst, int *len, const char *src)
{
    if (!len)
        return;
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (!dst || *len <= 0) {
        *len = (int)n + 1;
        return;
    }
    if (n > (size_t)*len - 1)
        n = (size_t)*len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    *len = (int)n + 1;
}

int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided)
        return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&mpii_t_lock);
    /* The variable set is fixed for the life of the process: built once. */
    if (mpit_refs == 0 && mpii_t_cvar_setup() != MPI_SUCCESS)
        return mpii_t_leave(MPI_T_ERR_CANNOT_INIT);
    mpit_refs++;
    /* Every MPI_T call takes mpii_t_lock: any level can be provided. */
    *provided = required >= MPI_THREAD_MULTIPLE     ? MPI_THREAD_MULTIPLE
                : required >= MPI_THREAD_SERIALIZED ? MPI_THREAD_SERIALIZED
                : required >= MPI_THREAD_FUNNELED   ? MPI_THREAD_FUNNELED
                                                    : MPI_THREAD_SINGLE;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_init_thread)

int PMPI_T_finalize(void)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (--mpit_refs == 0)
        mpii_t_pvar_free_all(); /* sessions and handles end with MPI_T */
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_finalize)
