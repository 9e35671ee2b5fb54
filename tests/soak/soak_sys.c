/* SPDX-License-Identifier: BSD-3-Clause */
/* Process resources the soak watches: resident memory and open descriptors. */
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soak.h"

/* kB of a "Key:   N kB" line of /proc/self/status, -1 when missing. */
static long soak_status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t klen = strlen(key);
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            v = strtol(line + klen + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* Resident memory after handing free heap pages back (malloc_trim): what is
 * held, not where the heap's free space happens to sit at that moment. The
 * process's own memory (RssAnon + RssFile): the shared segments are counted apart
 * (soak_shmem_kib), since rmp's shm pool makes its later buffers when first used. */
long soak_rss_kib(void)
{
    malloc_trim(0);
    long anon = soak_status_kib("RssAnon"), file = soak_status_kib("RssFile");
    return anon < 0 || file < 0 ? -1 : anon + file;
}

/* Resident shared memory (RssShmem): the shm segments this rank made or mapped. */
long soak_shmem_kib(void)
{
    return soak_status_kib("RssShmem");
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
