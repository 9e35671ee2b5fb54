/* SPDX-License-Identifier: BSD-3-Clause */
/* Peak resident memory, for the tests that bound it (no whole-message copy). */
#ifndef RMP_TEST_HWM_H
#define RMP_TEST_HWM_H

#include <stdio.h>

/* VmHWM in KiB, -1 if unknown. */
static inline long hwm_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmHWM: %ld kB", &v) == 1)
            break;
    fclose(f);
    return v;
}

#endif
