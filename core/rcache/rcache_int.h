/* SPDX-License-Identifier: BSD-3-Clause */
/* rcache internals shared by rcache.c (the cache) and rcache_hooks.c (the memory hooks). */
#ifndef RMP_RCACHE_INT_H
#define RMP_RCACHE_INT_H

#include <stdint.h>

#include "rcache.h"

/* Add rc to the process-wide list the hooks notify. Returns the slot, or -1 when full. */
int rcache_hooks_subscribe(rcache_t *rc);
/* Remove the slot; returns once no hook still uses the cache. */
void rcache_hooks_unsubscribe(int slot);
/* Called by the hooks on any thread, possibly inside malloc or a signal handler: queue the
   invalidation of [lo, hi) without locking or allocating. */
void rcache_notify_unmap(rcache_t *rc, uintptr_t lo, uintptr_t hi);

#endif /* RMP_RCACHE_INT_H */
