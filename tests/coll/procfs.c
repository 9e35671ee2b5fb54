/* SPDX-License-Identifier: BSD-3-Clause */
/* See procfs.h. */
#include "procfs.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

int procfs_count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory stream's own descriptor */
}

int procfs_count_maps(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof(line), f))
        n += strstr(line, name) != NULL;
    fclose(f);
    return n;
}

long procfs_maps_rss_kib(const char *name)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    long kib = 0, v = 0;
    int in = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strchr(line, '-') && strchr(line, ' ') && strchr(line, '-') < strchr(line, ' '))
            in = strstr(line, name) != NULL; /* a mapping's header: "lo-hi perms ..." */
        else if (in && sscanf(line, "Rss: %ld kB", &v) == 1)
            kib += v;
    }
    fclose(f);
    return kib;
}
