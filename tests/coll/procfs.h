/* SPDX-License-Identifier: BSD-3-Clause */
/* What this process holds, from /proc/self: for leak checks in the collective tests. */
#ifndef COLL_TEST_PROCFS_H
#define COLL_TEST_PROCFS_H

/* Open file descriptors; -1 if /proc is unreadable. */
int procfs_count_fds(void);
/* Mappings whose path contains `name` (a memfd maps as "/memfd:NAME (deleted)"); -1 if
 * /proc is unreadable. */
int procfs_count_maps(const char *name);
/* KiB of those mappings in memory for this process (their Rss); -1 if unreadable. */
long procfs_maps_rss_kib(const char *name);

#endif
