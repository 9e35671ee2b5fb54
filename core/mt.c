/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine lock of RMP_THREAD_MULTIPLE (core/mt.h). */
#include "mt.h"

bool rmpi_mt;
pthread_mutex_t rmpi_mt_lock;

int rmpi_mt_start(void)
{
    pthread_mutexattr_t a;
    if (pthread_mutexattr_init(&a) != 0)
        return RMP_ERR_NOMEM;
    int rc = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE) == 0 &&
                     pthread_mutex_init(&rmpi_mt_lock, &a) == 0
                 ? RMP_SUCCESS
                 : RMP_ERR_NOMEM;
    pthread_mutexattr_destroy(&a);
    if (rc == RMP_SUCCESS)
        rmpi_mt = true;
    return rc;
}

void rmpi_mt_stop(void)
{
    if (!rmpi_mt)
        return;
    rmpi_mt = false;
    pthread_mutex_destroy(&rmpi_mt_lock);
}
