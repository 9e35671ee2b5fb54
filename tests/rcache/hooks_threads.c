/* SPDX-License-Identifier: BSD-3-Clause */
/* The libc patch is never written while another thread runs (docs/rcache.md): with a
 * second thread alive, rcache_hooks_install refuses and says why; the hooks stay off. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rcache.h"
#include "rmpi.h"

static void *idle(void *arg)
{
    (void)arg;
    pause();
    return NULL;
}

int main(void)
{
    pthread_t th;
    if (pthread_create(&th, NULL, idle, NULL) != 0) {
        printf("hooks_threads: pthread_create failed\n");
        return 1;
    }
    int rc = rcache_hooks_install();
    const char *why = rcache_hooks_why();
    if (rc != RMP_ERR_NOT_SUPPORTED || rcache_hooks_active() || !strstr(why, "other threads")) {
        printf("hooks_threads: with a second thread, install gave %d, active %d, why '%s'\n",
               rc, rcache_hooks_active(), why);
        return 1;
    }
    printf("hooks_threads: refused with a second thread running: %s\n", why);
    return 0;
}
