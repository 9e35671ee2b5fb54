/* SPDX-License-Identifier: BSD-3-Clause */
/* Process resources the soak watches: resident memory and open descriptors. */
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soak.h"

/* Resident memory after handing free heap pages back (malloc_trim): what is
 * held, not where the heap's free space happens to sit at that moment. */
long soak_rss_kib(void)
{
    long size = 0, resident = -1;
    malloc_trim(0);
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Entries of /proc/self/fd, minus the one opendir itself holds. */
int soak_fd_count(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1;
}

void soak_fd_list(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return;
    int self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == self)
            continue;
        char path[300], target[256];
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        target[n < 0 ? 0 : n] = '\0';
        int w = snprintf(buf + used, len - used, "%s -> %s\n", e->d_name, target);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
    closedir(d);
}

/* glibc raises its mmap threshold to the size of the largest mmapped block
 * freed so far (and keeps up to twice that at the top of the heap): then the
 * first large temporary buffer after the warm-up grows the heap for good, a
 * step that is the allocator's history, not a leak. A fixed threshold makes
 * resident memory follow what is really allocated. */
void soak_malloc_pin(void)
{
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 256 * 1024);
}

/* Bytes allocated with malloc and still in use (heap and mmapped blocks). */
long soak_heap_kib(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long)((mi.uordblks + mi.hblkhd) / 1024);
}
